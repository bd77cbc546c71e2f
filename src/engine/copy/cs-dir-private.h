/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * Folders and items: who makes and frees them. A folder lives while anything
 * inside it is outstanding; its last reference, on whichever thread drops it,
 * gives the destination folder its mode and times and closes its descriptors.
 */

#include "cs-items-private.h"

G_BEGIN_DECLS

/* scanner thread: a folder inside @parent (NULL for the container of a
 * source), holding two descriptors of the job's budget until its last
 * reference. */
CsDir    *_cs_dir_new              (CsJob        *job,
                                    CsDir        *parent,
                                    const char   *name,
                                    const char   *dst_name);
CsDir    *_cs_dir_ref              (CsDir        *dir);
/* any thread: the last reference finishes the folder */
void      _cs_dir_unref            (CsDir        *dir);
/* controller thread: where the destination is on a share, folders whose
 * last reference goes in a worker or the scanner get their attributes in
 * threads of their own (start, before the scan), until every folder has
 * ended (end, before the workers' pool is closed). */
void      _cs_dir_finisher_start   (CsJob        *job);
void      _cs_dir_finisher_end     (CsJob        *job);
/* any thread, before it writes or removes an entry of @dir's destination
 * folder (or may): the folder's times are then set at its end, whatever
 * its listing showed. */
void      _cs_dir_note_written     (CsDir        *dir);
/* scanner thread, once @dir->src_fd is open: what kind of filesystem the
 * source folder is on, asked only where it differs from @parent's (NULL: the
 * container of a source). */
void      _cs_dir_note_source      (CsJob        *job,
                                    CsDir        *dir,
                                    CsDir        *parent);
/* scanner thread, before the folder's items are queued: a claim's temporary a
 * killed run left here, for the final name of @hash, renamed at @ctime. */
void      _cs_dir_add_claim        (CsDir        *dir,
                                    guint64       hash,
                                    const struct timespec *ctime);
/* any thread: whether @st, of the file under @name, is the empty claim such a
 * run made on it and was killed before it could write its text. */
gboolean  _cs_dir_is_unwritten_claim (CsDir      *dir,
                                      const char *name,
                                      const struct stat *st);
/* any thread, after an ENOENT: whether @dir's destination folder was removed
 * while the copy wrote into it. */
gboolean  _cs_dir_dst_removed      (CsJob        *job,
                                    CsDir        *dir);

/* any thread: a first name that goes without being settled; the names that
 * waited for it are cancelled with it. */
void      _cs_item_abandon_link    (CsJob        *job,
                                    CsLink       *link);
void      _cs_item_free            (CsItem       *item);

G_END_DECLS
