/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <sys/stat.h>

#include "cs-dir-private.h"
#include "cs-job-private.h"

G_BEGIN_DECLS

typedef enum {
  CS_ACTION_COPY,        /* nothing there yet */
  CS_ACTION_REPLACE,
  CS_ACTION_KEEP_BOTH,
  CS_ACTION_SKIP,        /* identical, or kept by the policy */
  CS_ACTION_SKIP_NEWER,  /* the destination is newer: skipped and reported */
  CS_ACTION_SKIP_KEPT,   /* it differs, and the policy (never) or the user kept it */
  CS_ACTION_FAIL,        /* reported already */
} CsAction;

/* What to do with @name given what is at @dst_name (asks, for the policy Ask). */
CsAction  _cs_copy_decide          (CsJob        *job,
                                    CsDir        *dir,
                                    const char   *name,
                                    const char   *dst_name,
                                    const struct stat *src);
/* Counts and reports a file that is not copied (skip, skip-newer, fail). */
void      _cs_copy_account         (CsJob        *job,
                                    CsDir        *dir,
                                    const char   *name,
                                    const char   *dst_name,
                                    CsAction      action,
                                    guint64       size);
/* Before a request of @want bytes: what the speed limit lets it move now
 * (waiting for it, holding nothing), or 0 when the job stops meanwhile. */
guint64   _cs_copy_limit_take      (CsJob        *job,
                                    guint64       want);
/* After it: gives back what it took and did not move (@moved < 0: nothing). */
void      _cs_copy_limit_refund    (CsJob        *job,
                                    guint64       taken,
                                    gssize        moved);
/* worker thread: copies, links or skips @item. FALSE when the item was put
 * aside, to be taken up and freed by another worker (a later name of a file
 * whose first name is still being copied); TRUE when the caller frees it. */
gboolean  _cs_copy_item            (CsJob        *job,
                                    CsWorker     *worker,
                                    CsItem       *item);

G_END_DECLS
