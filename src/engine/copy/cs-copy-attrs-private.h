/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <sys/stat.h>

#include "cs-copy-outcome-private.h"
#include "cs-dest-fs-private.h"
#include "cs-job-private.h"

G_BEGIN_DECLS

/* Whether @dst's modification time equals @src's at the precision the
 * destination keeps. */
gboolean  _cs_copy_same_mtime      (const struct stat *dst,
                                    const struct stat *src);
/* Whether @dst is newer than @src at that precision. */
gboolean  _cs_copy_newer           (const struct stat *dst,
                                    const struct stat *src);
/* worker thread: everything between "all bytes of @item are in the
 * temporary @tmp_fd" and "ready to publish": the source checked unchanged,
 * --verify, attributes, owner, mode, the times when @times_on_fd, fsync. */
CsOutcome _cs_copy_finish_temp     (CsJob        *job,
                                    CsWorker     *worker,
                                    CsItem       *item,
                                    int           src_fd,
                                    int           tmp_fd,
                                    mode_t        created_mode,
                                    const struct stat *st,
                                    gboolean      times_on_fd);
/* Whether @item's times are set on its published name (else on the open
 * temporary), and the state that was decided by, for _cs_copy_keep_times. */
gboolean  _cs_copy_times_when_published (CsItem  *item,
                                         CsTimes *state);
/* worker thread, after @item is published: its times on its name where
 * that is the way, read back while the way is not known. */
void      _cs_copy_keep_times      (CsJob        *job,
                                    CsWorker     *worker,
                                    CsItem       *item,
                                    CsAction      action,
                                    gboolean      when_published,
                                    CsTimes       state);
/* Whether @final, taken while we copied, is what our copy of @src would
 * have been (another copy of the same file): a skip, not a failure. */
gboolean  _cs_copy_appeared_identical (CsJob             *job,
                                       CsDir             *dir,
                                       const char        *final,
                                       const struct stat *src);

G_END_DECLS
