/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * Hard links kept as links, as cp -a and rsync -H keep them: the first name
 * of a file met in the scan is copied, every later name is linked to that
 * copy. The scanner keeps a map of the files with more than one link whose
 * names it has not all met yet — only those, so its memory grows with them
 * alone, not with the tree — and drops each one when its last name is met.
 *
 * A later name can reach a worker before its first name's copy is
 * published; it then waits in the file's list, off the queue, and the worker
 * that settles the first name takes it up. Where the first name was not
 * copied (it failed, or a newer file was kept) or the destination cannot
 * link, a later name is copied as a file of its own.
 */

#include <sys/stat.h>

#include "cs-items-private.h"

G_BEGIN_DECLS

typedef enum {
  CS_LINK_PENDING,    /* the first name is being copied */
  CS_LINK_READY,      /* its copy is at the destination: link to it */
  CS_LINK_NONE,       /* no copy to link to: copy each name */
} CsLinkState;

/* scanner thread: @name (its destination name @dst_name) in @dir is a file
 * with several links. Returns the file's entry, a reference for the item;
 * @out_first says whether this is the first of its names met. */
CsLink     *_cs_links_meet          (CsJob             *job,
                                     CsDir             *dir,
                                     const char        *dst_name,
                                     const struct stat *st,
                                     gboolean          *out_first);
/* controller thread, once the scan is over: the map goes; entries still
 * referenced by items stay. */
void        _cs_links_clear         (CsJob             *job);
void        _cs_link_unref          (CsLink            *link);
/* The first name's copy, where later names are linked to. */
const char *_cs_link_target         (CsLink            *link);

/* worker thread, for a later name: its entry's state. PENDING means @item
 * now waits in the entry (the job counts it as in flight) and the caller must
 * neither free nor touch it again. */
CsLinkState _cs_link_wait           (CsJob             *job,
                                     CsItem            *item);
/* worker thread, for the first name once it is done: READY when its copy is
 * at the destination. Returns the names that waited, linked by ->next, for
 * the caller to copy and then release with _cs_job_release_held. */
CsItem     *_cs_link_settle         (CsJob             *job,
                                     CsLink            *link,
                                     gboolean           ready);

G_END_DECLS
