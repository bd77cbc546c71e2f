/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <sys/stat.h>

#include "cs-dir-private.h"
#include "cs-job-private.h"

G_BEGIN_DECLS

/* Our own error codes next to errno values; negative so they never collide. */
#define CS_ERR_SOURCE_CHANGED  (-1000)
#define CS_ERR_MISMATCH        (-1001)
#define CS_ERR_STOPPED         (-1002)
#define CS_ERR_APPEARED        (-1003)
#define CS_ERR_NO_UNNAMED      (-1004)  /* an unnamed temporary could not be linked: write a named one */
#define CS_ERR_NOT_HELD        (-1005)  /* the destination holds no such thing: said once, at the end */
#define CS_ERR_DEST_REMOVED    (-1006)  /* the destination folder was deleted meanwhile */
#define CS_ERR_CANNOT_MAKE     (-1007)  /* a device without root, or a node the destination cannot hold */
#define CS_ERR_NO_LINK         (-1008)  /* a later name cannot be linked here: copy it */
#define CS_ERR_NO_RESUME       (-1009)  /* no partial to write resumably: an ordinary temporary */

/* "a file", "a folder", "a symbolic link" … for @mode's type, in messages. */
const char *_cs_copy_type_name     (mode_t        mode);
/* What to do with @name given what is at @dst_name (asks, for the policy Ask). */
CsAction  _cs_copy_decide          (CsJob        *job,
                                    CsDir        *dir,
                                    const char   *name,
                                    const char   *dst_name,
                                    const struct stat *src);
/* scanner thread: whether @name (with @src from lstat) is at @dst_name in
 * @dir's destination identical, as _cs_copy_decide would decide it
 * (CS_ACTION_SKIP), its metadata given in place where it differs. FALSE
 * for anything else, which is left to a worker's decision: nothing is
 * reported or asked here. */
gboolean  _cs_copy_decide_identical (CsJob       *job,
                                    CsDir        *dir,
                                    const char   *name,
                                    const char   *dst_name,
                                    const struct stat *src);
/* Whether @dir's destination is on a local filesystem, where a stat costs
 * less than handing the file to a worker. */
gboolean  _cs_copy_dest_is_local   (CsJob        *job,
                                    CsDir        *dir);
/* Before a request of @want bytes: what the speed limit lets it move now
 * (waiting for it, holding nothing), or 0 when the job stops meanwhile. */
guint64   _cs_copy_limit_take      (CsJob        *job,
                                    guint64       want);
/* After it: gives back what it took and did not move (@moved < 0: nothing). */
void      _cs_copy_limit_refund    (CsJob        *job,
                                    guint64       taken,
                                    gssize        moved);
/* scanner thread: a big file to be copied in @n_chunks chunk items, each of
 * which holds a reference. */
CsBig    *_cs_big_new              (int           n_chunks);
/* any thread: the last reference closes the file and removes its temporary
 * unless it was published. */
void      _cs_big_unref            (CsJob        *job,
                                    CsBig        *big);

/* worker thread: copies, links or skips @item. FALSE when the item was put
 * aside, to be taken up and freed by another worker (a later name of a file
 * whose first name is still being copied); TRUE when the caller frees it. */
gboolean  _cs_copy_item            (CsJob        *job,
                                    CsWorker     *worker,
                                    CsItem       *item);

G_END_DECLS
