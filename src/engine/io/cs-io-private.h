/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * Every filesystem request the engine makes goes through this seam, for three
 * reasons: each call is counted (the request rates are the product), tests
 * can put their own table in to inject faults deterministically, and a
 * location need not be a local path: each table is a backend.
 *
 * What a backend is, the table of calls it fills, is in
 * cs-io-table-private.h; this is the seam in front of the backends.
 *
 * The seam adds the backend's number above CS_IO_HANDLE_BITS to each handle
 * it hands back, so the engine keeps one int per open file and every call
 * reaches the backend the handle came from; a backend sees its own numbers
 * only. A call joining two handles (rename, link, copy_file_range, clone) of
 * two backends fails with EXDEV, which the engine already takes as "move the
 * bytes another way". The POSIX backend is number 0: its handles are the
 * descriptors themselves.
 */

#include <fcntl.h>
#include <glib.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>

#include "cs-io-quiet-private.h"
#include "cs-io-table-private.h"

G_BEGIN_DECLS

typedef enum {
  CS_REQ_OPEN,
  CS_REQ_CREATE,
  CS_REQ_STAT,
  CS_REQ_READ,
  CS_REQ_WRITE,
  CS_REQ_COPY,       /* copy_file_range, reflink */
  CS_REQ_FSYNC,
  CS_REQ_MKDIR,
  CS_REQ_RENAME,
  CS_REQ_SETATTR,    /* times, mode, owner, size */
  CS_REQ_READDIR,
  CS_REQ_CLOSE,
  CS_REQ_UNLINK,
  CS_REQ_OTHER,      /* readlink, symlink, link, seek for holes, statfs */
  CS_N_REQ
} CsRequestKind;

/* Bumped by workers with relaxed atomics; read by the sampler. */
typedef struct {
  atomic_uint_fast64_t requests[CS_N_REQ];
  atomic_uint_fast64_t bytes_read;
  atomic_uint_fast64_t bytes_written;
  atomic_uint_fast64_t read_ns;       /* summed latency of read and copy requests */
  atomic_uint_fast64_t write_ns;      /* summed latency of write and copy requests */
  atomic_uint_fast64_t files_done;
  atomic_uint_fast64_t bytes_done;
} CsCounters;

#define CS_IO_HANDLE_BITS 24

/* The POSIX backend; tests may replace it before a job starts and restore it
 * after (NULL puts the real one back). */
const CsIoTable *_cs_io_get_default (void);
void             _cs_io_set         (const CsIoTable *table);

/* Adds a backend for the locations starting with its scheme, before any job
 * uses it; registering the same table again returns the same number. */
int              _cs_io_register    (const CsIoTable *table);
/* The backend a handle, or a location with CS_IO_AT_LOCATION, belongs to. */
const CsIoTable *_cs_io_backend     (int handle, const char *location);
/* The filesystem @location is on, for the run record: the backend's own words
 * (an SMB server and share), else the mount table's type. */
char            *_cs_io_filesystem_type (const char *location);
/* Whether a thread's connection to the server of @path in @dirfd (or of
 * the location @path) can be set up ahead: the backend has connections. */
gboolean         _cs_io_connects      (int dirfd, const char *path);
/* This thread's connection to that server set up now (CsIoTable.connect):
 * 0, or -1 with errno, for nobody to report. Not counted: no request of
 * the run's, as the set-up a first call makes is none. */
int              _cs_io_connect       (int dirfd, const char *path);
/* Whether @location is the POSIX backend's: a path, not a URL of another. */
gboolean         _cs_io_is_path     (const char *location);
/* The last part of @location (no trailing "/"), as a name the calls take
 * in its folder's handle: a path's basename; a URL's last segment
 * unescaped, since a backend of URLs escapes the names it joins. */
char            *_cs_io_location_name  (const char *location);
/* @name in the folder @location, as a location: joined to a URL escaped. */
char            *_cs_io_location_child (const char *location, const char *name);
/* stat (or lstat) of a location before a job opens it: a path as the
 * system sees it, no fault table between, a URL asked of its backend.
 * Not counted: these are the check's, no part of the run. */
int              _cs_io_stat_location (const char *location, gboolean follow, struct stat *st);

/* Counted calls. Each retries EINTR itself and returns like the system call. */
int     _cs_io_openat    (CsCounters *c, int dirfd, const char *path, int flags, mode_t mode);
int     _cs_io_close     (CsCounters *c, int fd);
ssize_t _cs_io_pread     (CsCounters *c, int fd, void *buf, size_t count, off_t offset);
ssize_t _cs_io_pwrite    (CsCounters *c, int fd, const void *buf, size_t count, off_t offset);
ssize_t _cs_io_copy_range (CsCounters *c, int fd_in, off_t *off_in, int fd_out, off_t *off_out,
                           size_t len);
int     _cs_io_clone     (CsCounters *c, int dst_fd, int src_fd, guint64 size);
int     _cs_io_fsync     (CsCounters *c, int fd);
int     _cs_io_fstat     (CsCounters *c, int fd, struct stat *st);
int     _cs_io_fstat_mode (CsCounters *c, int fd, mode_t *mode);
int     _cs_io_fstatat   (CsCounters *c, int dirfd, const char *path, struct stat *st, int flags);
/* Only what @mask asks for, which a network filesystem may answer from the
 * attributes it holds; AT_STATX_FORCE_SYNC in @flags asks the server. */
int     _cs_io_statx     (CsCounters *c, int dirfd, const char *path, int flags,
                          unsigned int mask, struct statx *stx);
int     _cs_io_mkdirat   (CsCounters *c, int dirfd, const char *path, mode_t mode);
int     _cs_io_renameat2 (CsCounters *c, int olddirfd, const char *oldpath, int newdirfd,
                          const char *newpath, unsigned int flags);
int     _cs_io_linkat    (CsCounters *c, int olddirfd, const char *oldpath, int newdirfd,
                          const char *newpath, int flags);
int     _cs_io_unlinkat  (CsCounters *c, int dirfd, const char *path, int flags);
int     _cs_io_fchmod    (CsCounters *c, int fd, mode_t mode);
int     _cs_io_fchown    (CsCounters *c, int fd, uid_t uid, gid_t gid);
int     _cs_io_futimens  (CsCounters *c, int fd, const struct timespec times[2]);
int     _cs_io_utimensat (CsCounters *c, int dirfd, const char *path,
                          const struct timespec times[2], int flags);
int     _cs_io_fchownat  (CsCounters *c, int dirfd, const char *path, uid_t uid, gid_t gid,
                          int flags);
int     _cs_io_ftruncate (CsCounters *c, int fd, off_t length);
off_t   _cs_io_lseek     (CsCounters *c, int fd, off_t offset, int whence);
ssize_t _cs_io_readlinkat (CsCounters *c, int dirfd, const char *path, char *buf, size_t size);
int     _cs_io_symlinkat (CsCounters *c, const char *target, int newdirfd, const char *linkpath);
int     _cs_io_mknodat   (CsCounters *c, int dirfd, const char *path, mode_t mode, dev_t dev);
int     _cs_io_fchmodat  (CsCounters *c, int dirfd, const char *path, mode_t mode);
/* Fills @buf with struct linux_dirent64 records (cs-io-table-private.h). */
ssize_t _cs_io_getdents  (CsCounters *c, int fd, void *buf, size_t size);
/* The folder's entries with their stats in one listing (CsIoListed into
 * @entries); -1 with ENOTSUP where the backend lists names only. */
int     _cs_io_readdirplus (CsCounters *c, int fd, GPtrArray *entries);
/* A folder opened (O_DIRECTORY, as _cs_io_openat) and listed with its
 * entries' stats at once, where its backend can: on a share, without the
 * stat by name an open makes. @out_listed FALSE where only opened (names
 * only, or the listing failed): @entries is then to be ignored. */
int     _cs_io_openat_listed (CsCounters *c, int dirfd, const char *path, int flags,
                              GPtrArray *entries, gboolean *out_listed);
int     _cs_io_syncfs    (CsCounters *c, int fd);
ssize_t _cs_io_flistxattr (CsCounters *c, int fd, char *list, size_t size);
ssize_t _cs_io_fgetxattr (CsCounters *c, int fd, const char *name, void *value, size_t size);
int     _cs_io_fsetxattr (CsCounters *c, int fd, const char *name, const void *value, size_t size);
int     _cs_io_fremovexattr (CsCounters *c, int fd, const char *name);

/* Not counted, as they are no request for a file: what the filesystem is,
 * and a hint about how a file will be read. */
int     _cs_io_fstatfs   (int fd, struct statfs *sfs);
int     _cs_io_fadvise   (int fd, off_t offset, off_t len, int advice);

/* A partial's lock (see the table): 0 or 1, or -1 with errno, EBUSY when held. */
int     _cs_io_lock      (CsCounters *c, int fd, int dirfd, const char *name);
int     _cs_io_unlock    (CsCounters *c, int fd, int dirfd, const char *name);

/* Whether @path in @dirfd (not followed) is where another filesystem, or a
 * bind mount, is mounted: 1, 0, or -1 with errno. */
int     _cs_io_mount_root (CsCounters *c, int dirfd, const char *path);

/* Errors that mean "this way of copying is not available here", never data errors. */
gboolean _cs_io_is_unsupported (int error_code);

G_END_DECLS
