/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * Mirroring (CS_OPERATION_MIRROR): the destination folder made to match the
 * source. The copying is a copy's; then the extras (what the destination has
 * and the source does not, "Extras" in Robocopy's table) are deleted.
 *
 * What is deleted, and never more:
 *
 *   - only names left over in a destination folder after its source folder
 *     was read to its end without an error (a folder that could not be read
 *     whole has no extras), and only when the job did not stop;
 *   - never a name matching the job's excludes, our temporaries or staging
 *     folders (a copy in progress keeps its folder), nor anything across a
 *     mount point;
 *   - every extra is listed before anything is deleted (CsDeletions, the
 *     dry run's "delete" lines), and a list longer than the maximum
 *     (cs_job_set_max_delete) deletes nothing;
 *   - each is deleted by its name in its parent folder, reached from the
 *     mirror's root one component at a time without following a symbolic
 *     link, and only if it is still what was listed (type, device, inode;
 *     for a file size and time too): a link is removed as a link, never
 *     followed, and a folder only when empty.
 */

#include <glib.h>

#include "cs-dir-private.h"
#include "cs-job-private.h"

G_BEGIN_DECLS

/* scanner thread: @dir is the folder the mirror makes match (its
 * destination is open). */
void      _cs_mirror_add_root      (CsJob        *job,
                                    CsDir        *dir);
/* scanner thread, once @dir's source folder was read to its end: @existing
 * holds the destination's names the source does not have. */
void      _cs_mirror_note_extras   (CsJob        *job,
                                    CsDir        *dir,
                                    GHashTable   *existing);
/* controller, once no worker runs: lists (dry run), asks (when the job was
 * told to) and deletes the extras. */
void      _cs_mirror_finish        (CsJob        *job);

/*
 * An entry of another type than its source's (a file where the source has a
 * folder, a link where it has a file …) is an extra to replace: listed with
 * the deletions (the dry run's "delete" lines, --max-delete, the window's
 * list), deleted with them once the copying is done, and only then copied
 * from its source, never written through. Where it could not be deleted the
 * copy finds it there and fails naming both types.
 */
typedef struct {
  CsDir        *dir;          /* a reference: the folder's times wait for the copy */
  char         *name;
  char         *dst_name;     /* NULL: @name */
  guint         depth;
} CsReplaced;

/* scanner thread: @listed in @dir's destination (with @dst from lstat) is of
 * another type than @name in its source: listed for deletion, and the entry
 * kept for _cs_mirror_take_replaced. FALSE when this job deletes nothing
 * there (not a mirror, or too many folders wait already): the copy then
 * fails on it, naming both types. */
gboolean  _cs_mirror_replace       (CsJob        *job,
                                    CsDir        *dir,
                                    const char   *name,
                                    const char   *dst_name,
                                    const char   *listed,
                                    const struct stat *dst,
                                    guint         depth);
/* controller, after _cs_mirror_finish: the entries to copy now (or NULL),
 * for the caller to free with _cs_mirror_replaced_free. */
GPtrArray *_cs_mirror_take_replaced (CsJob       *job);
void      _cs_mirror_replaced_free (CsReplaced   *replaced);

G_END_DECLS
