/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * The seam's quiet door, for the filesystem requests that are no copy's:
 * the count ahead of the scanner (cs-count-ahead.c) and a thread sweep's
 * set-up and clean-up around its timed copies (cs-sweep.c). This header is
 * all of the seam such a room needs; cs-io-private.h, the copy's, includes
 * it.
 *
 * Quiet means two things. Nothing is counted: the request rates a run
 * records are its copy's, and the count ahead must not add its own walk to
 * them. And a path is served by the system's own calls, never by a table a
 * test put in with _cs_io_set: the faults a test injects, and the requests
 * it counts, reach the copy alone. A handle or a URL of another backend (an
 * SMB share) still reaches that backend: a share is reached only through it.
 *
 * Each call retries EINTR itself and returns like the system call.
 */

#include <glib.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "cs-io-table-private.h"

G_BEGIN_DECLS

int     _cs_io_quiet_openat   (int dirfd, const char *path, int flags, mode_t mode);
int     _cs_io_quiet_close    (int fd);
int     _cs_io_quiet_fstatat  (int dirfd, const char *path, struct stat *st, int flags);
/* Fills @buf with struct linux_dirent64 records (cs-io-table-private.h). */
ssize_t _cs_io_quiet_getdents (int fd, void *buf, size_t size);
int     _cs_io_quiet_fadvise  (int fd, off_t offset, off_t len, int advice);

/* Removes @name in the folder @parent_fd and everything in it, through the
 * backend @parent_fd belongs to: on a share what was written there is
 * removed there. Links are removed, never followed, and nothing mounted
 * below is entered, so nothing outside @name goes. */
void    _cs_io_quiet_remove_tree (int parent_fd, const char *name);

/* The backend's reason a location does not exist, or NULL (an SMB share
 * names the server or the share it could not reach). */
char   *_cs_io_explain_missing (const char *location);

G_END_DECLS
