/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <sys/stat.h>

#include "cs-io-private.h"

G_BEGIN_DECLS

/*
 * The stats of a folder's entries started together, so that on a cold cache
 * their inode reads overlap instead of each waiting for the disk in turn
 * (io_uring's statx, which the kernel runs in its own workers). Only for the
 * system's folders through the real POSIX table: a test's table, or another
 * backend (SMB lists its stats itself), gets every stat one by one as before.
 * Where io_uring is missing, refused (seccomp, kernel.io_uring_disabled, an
 * old kernel) or turned off with COPYSCOPE_NO_IO_URING set,
 * _cs_io_stat_ahead_start returns NULL and the caller stats each name
 * itself: the same answers, one at a time.
 */

typedef struct _CsIoStatAhead CsIoStatAhead;

/* Starts the AT_SYMLINK_NOFOLLOW stats of @names[0 .. @n) in the folder
 * @dirfd; the names must stay valid until freed. Each is counted as a stat
 * request. NULL where stats cannot be started ahead. */
CsIoStatAhead *_cs_io_stat_ahead_start (CsCounters         *c,
                                        int                 dirfd,
                                        const char * const *names,
                                        guint               n);
/* What fstatat (@dirfd, @names[@i], @st, AT_SYMLINK_NOFOLLOW) says: 0, or
 * -1 with errno; waits for it if it is not in yet. */
int            _cs_io_stat_ahead_take  (CsIoStatAhead      *ahead,
                                        guint               i,
                                        struct stat        *st);
/* Waits for its stats still out, then frees. */
void           _cs_io_stat_ahead_free  (CsIoStatAhead      *ahead);

/* For tests: FALSE makes every start return NULL, as where io_uring is
 * missing; TRUE puts back the default (on unless COPYSCOPE_NO_IO_URING). */
void           _cs_io_stat_ahead_enable    (gboolean        enabled);
/* Whether stats can be started ahead in this thread. */
gboolean       _cs_io_stat_ahead_available (void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CsIoStatAhead, _cs_io_stat_ahead_free)

G_END_DECLS
