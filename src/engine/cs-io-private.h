/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * Every filesystem request the engine makes goes through this seam, for three
 * reasons: each call is counted (the request rates are the product), tests
 * can put their own table in to inject faults deterministically, and a
 * location need not be a local path: each table is a backend.
 *
 * A backend hands out its own handles for open files and folders (the POSIX
 * backend's are file descriptors), and every call names a file by a folder
 * handle and a name, the way the *at() calls do: a name is resolved in the
 * folder the scanner opened, so a folder renamed or replaced above it cannot
 * redirect a copy. CS_IO_AT_LOCATION as the folder takes the name as a
 * location instead (an absolute path, or a URL whose scheme a backend
 * claims); that is how a job gets its first handles.
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

#define CS_IO_AT_LOCATION AT_FDCWD
#define CS_IO_HANDLE_BITS 24

typedef struct {
  const char *name;     /* "posix": what the run record calls the backend */
  const char *scheme;   /* the locations it takes, "smb://"; NULL for paths */
  int     (*openat)          (int dirfd, const char *path, int flags, mode_t mode);
  int     (*close)           (int fd);
  ssize_t (*pread)           (int fd, void *buf, size_t count, off_t offset);
  ssize_t (*pwrite)          (int fd, const void *buf, size_t count, off_t offset);
  ssize_t (*copy_file_range) (int fd_in, off_t *off_in, int fd_out, off_t *off_out,
                              size_t len, unsigned int flags);
  int     (*clone)           (int dst_fd, int src_fd);   /* ioctl (FICLONE) */
  int     (*fsync)           (int fd);
  int     (*fstat)           (int fd, struct stat *st);
  int     (*fstat_mode)      (int fd, mode_t *mode);     /* statx (STATX_MODE) */
  int     (*statx)           (int dirfd, const char *path, int flags, unsigned int mask,
                              struct statx *stx);
  int     (*fstatat)         (int dirfd, const char *path, struct stat *st, int flags);
  int     (*mkdirat)         (int dirfd, const char *path, mode_t mode);
  int     (*renameat2)       (int olddirfd, const char *oldpath, int newdirfd,
                              const char *newpath, unsigned int flags);
  int     (*linkat)          (int olddirfd, const char *oldpath, int newdirfd,
                              const char *newpath, int flags);
  int     (*unlinkat)        (int dirfd, const char *path, int flags);
  int     (*fchmod)          (int fd, mode_t mode);
  int     (*fchown)          (int fd, uid_t uid, gid_t gid);
  int     (*futimens)        (int fd, const struct timespec times[2]);
  int     (*utimensat)       (int dirfd, const char *path, const struct timespec times[2],
                              int flags);
  int     (*fchownat)        (int dirfd, const char *path, uid_t uid, gid_t gid, int flags);
  int     (*ftruncate)       (int fd, off_t length);
  off_t   (*lseek)           (int fd, off_t offset, int whence);
  ssize_t (*readlinkat)      (int dirfd, const char *path, char *buf, size_t size);
  int     (*symlinkat)       (const char *target, int newdirfd, const char *linkpath);
  int     (*mknodat)         (int dirfd, const char *path, mode_t mode, dev_t dev);
  int     (*fchmodat)        (int dirfd, const char *path, mode_t mode, int flags);
  ssize_t (*getdents)        (int fd, void *buf, size_t size);
  int     (*syncfs)          (int fd);
  ssize_t (*flistxattr)      (int fd, char *list, size_t size);
  ssize_t (*fgetxattr)       (int fd, const char *name, void *value, size_t size);
  int     (*fsetxattr)       (int fd, const char *name, const void *value, size_t size, int flags);
  int     (*mount_root)      (int dirfd, const char *path);  /* 1: a mount's root, 0: not, -1: errno */
  int     (*fstatfs)         (int fd, struct statfs *sfs);
  int     (*fadvise)         (int fd, off_t offset, off_t len, int advice);
  /* A partial's lock, for a resume journal (cs-resume.c): taken without
   * waiting on @fd, the partial open in @dirfd, or as @name in @dirfd where
   * the backend cannot lock an open file; EBUSY while another holds it. @fd
   * may be -1: only a lock by name is asked for (one left behind). Returns
   * 0 for a lock on @fd (it goes when @fd closes), 1 for one by @name (@fd
   * may close first: a share renames no open file). Released by unlock,
   * and where the backend can, by the holder's end. May be NULL: no
   * partial is then kept, the file copied whole. */
  int     (*lock)            (int fd, int dirfd, const char *name);
  int     (*unlock)          (int fd, int dirfd, const char *name);
  /* What the run record calls a location of this backend's (none: the
   * filesystem it is mounted from); may be NULL. */
  char   *(*describe)        (const char *location);
  /* Why a location that does not exist cannot: the root it would be in (an
   * SMB share) is not on the server. NULL where the root is there, or the
   * backend has no such roots; may be NULL. */
  char   *(*explain_missing) (const char *location);
} CsIoTable;

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
/* The backend's reason a location does not exist, or NULL: see above. */
char            *_cs_io_explain_missing (const char *location);
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
/* What getdents64 fills @buf with: records of d_reclen bytes each. */
struct linux_dirent64 {
  guint64        d_ino;
  gint64         d_off;
  unsigned short d_reclen;
  unsigned char  d_type;
  char           d_name[];
};
ssize_t _cs_io_getdents  (CsCounters *c, int fd, void *buf, size_t size);
int     _cs_io_syncfs    (CsCounters *c, int fd);
ssize_t _cs_io_flistxattr (CsCounters *c, int fd, char *list, size_t size);
ssize_t _cs_io_fgetxattr (CsCounters *c, int fd, const char *name, void *value, size_t size);
int     _cs_io_fsetxattr (CsCounters *c, int fd, const char *name, const void *value, size_t size);

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
