/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <sys/stat.h>

#include "cs-dir-private.h"
#include "cs-job-private.h"

G_BEGIN_DECLS

/* scanner thread: @dir's destination folder listed once with each entry's
 * stat, where its backend gives them in one listing (a share: SMB's
 * directory query returns every entry's size, times and type): CsIoListed
 * in a new array. NULL where it does not (a local disk, a libsmbclient
 * without readdirplus2) or the listing failed: then names are listed and
 * each file is asked about by name, as before. */
GPtrArray *_cs_dest_listing_read   (CsJob             *job,
                                    CsDir             *dir);
/* scanner thread: decides @name (@src from lstat) against @dst, what @dir's
 * listing showed at @dst_name, where the decision writes nothing: the same
 * file there (skipped, its metadata tweaked in place), one the policy keeps
 * (--overwrite=never, newer), or another type (reported) — accounted, TRUE.
 * FALSE for all that needs a worker (a copy, a replacement, a question),
 * which decides again by name: nothing is written on a listing's word. */
gboolean   _cs_dest_listing_decide (CsJob             *job,
                                    CsDir             *dir,
                                    const char        *name,
                                    const char        *dst_name,
                                    const struct stat *src,
                                    const struct stat *dst);

/* A destination subfolder opened and listed ahead by a thread of its own,
 * while the scanner is busy elsewhere: on a share each folder costs a few
 * round trips, which would otherwise follow one another. */
typedef struct _CsPrefetch CsPrefetch;

/* scanner thread: starts opening and listing each folder @stats (the
 * listed names of @dir's destination folder → CsIoListed) shows, up to a
 * bound, first the listed names in @first (may be NULL), in that order:
 * the folders the scanner will enter first: the listed names → CsPrefetch,
 * in a new table whose end waits for each and closes what was not taken.
 * NULL where there is none. */
GHashTable *_cs_dest_listing_prefetch (CsJob      *job,
                                       CsDir      *dir,
                                       GHashTable *stats,
                                       GPtrArray  *first);
/* scanner thread, before it lists @dir's destination folder, which is
 * there, on a share: the threads that will list its subfolders set their
 * connections up meanwhile, and list the subfolders the scanner will
 * enter first, by the source's names. The next _cs_dest_listing_prefetch
 * keeps those its listing shows. */
void        _cs_dest_listing_start_early (CsJob *job,
                                          CsDir *dir);
/* scanner thread: what was listed early and not kept is closed, each once
 * its thread is done; before the folder they were listed in closes. */
void        _cs_dest_listing_end_early (CsJob *job);
/* scanner thread: @prefetch's folder, opened as the scanner would open it
 * (O_DIRECTORY | O_NOFOLLOW in its parent), once it is: its handle, now the
 * caller's, its listing in @out_entries (or NULL) and its stat in @out_st
 * (as its parent's listing gave it: its filesystem, without a request)
 * where @out_has_st. -1 if it could not be opened: the caller goes its own
 * way, which says why. */
int         _cs_dest_listing_take     (CsPrefetch  *prefetch,
                                       GPtrArray  **out_entries,
                                       struct stat *out_st,
                                       gboolean    *out_has_st);

/* scanner thread, once its walk is over: the threads that listed ahead
 * end, and with them their connections. */
void        _cs_dest_listing_finish   (CsJob      *job);

G_END_DECLS
