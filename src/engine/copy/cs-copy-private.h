/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <sys/stat.h>

#include "cs-dir-private.h"
#include "cs-job-private.h"

G_BEGIN_DECLS

/* "a file", "a folder", "a symbolic link" … for @mode's type, in messages. */
const char *_cs_copy_type_name     (mode_t        mode);
/* What to do with @name given what is at @dst_name (asks, for the policy Ask). */
CsAction  _cs_copy_decide          (CsJob        *job,
                                    CsDir        *dir,
                                    const char   *name,
                                    const char   *dst_name,
                                    const struct stat *src);
/* The same decision given what is at @dst_name (@there, from a stat or a
 * folder's listing; never NULL): reports, asks and tweaks as it does. */
CsAction  _cs_copy_decide_against  (CsJob        *job,
                                    CsDir        *dir,
                                    const char   *name,
                                    const char   *dst_name,
                                    const struct stat *src,
                                    const struct stat *there);
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
/* The same given what is at @dst_name (@dst, from a stat or a listing). */
gboolean  _cs_copy_identical_to    (CsJob        *job,
                                    CsDir        *dir,
                                    const char   *name,
                                    const char   *dst_name,
                                    const struct stat *src,
                                    const struct stat *dst);
/* Whether @dir's destination is on a local filesystem, where its files are
 * decided in batches (cs-decide-batch.c). */
gboolean  _cs_copy_dest_is_local   (CsJob        *job,
                                    CsDir        *dir);
/* worker thread: copies, links or skips @item. FALSE when the item was put
 * aside, to be taken up and freed by another worker (a later name of a file
 * whose first name is still being copied); TRUE when the caller frees it. */
gboolean  _cs_copy_item            (CsJob        *job,
                                    CsWorker     *worker,
                                    CsItem       *item);

G_END_DECLS
