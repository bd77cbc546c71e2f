/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-io"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "cs-io-private.h"

static int
default_openat (int dirfd, const char *path, int flags, mode_t mode)
{
  return openat (dirfd, path, flags, mode);
}

static int
default_clone (int dst_fd, int src_fd)
{
  return ioctl (dst_fd, FICLONE, src_fd);
}

static int
default_renameat2 (int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
                   unsigned int flags)
{
  return renameat2 (olddirfd, oldpath, newdirfd, newpath, flags);
}

/* Only the mode: a network filesystem may answer it from the attributes it
 * holds, where fstat asks the server again after a write changed the size
 * (a round trip per file on sshfs). */
static int
default_fstat_mode (int     fd,
                    mode_t *mode)
{
  struct statx stx;

  /* Every filesystem fills in the mode, asked for or not. */
  if (statx (fd, "", AT_EMPTY_PATH, STATX_MODE, &stx) != 0)
    return -1;
  *mode = stx.stx_mode;
  return 0;
}

static ssize_t
default_getdents (int fd, void *buf, size_t size)
{
  return syscall (SYS_getdents64, fd, buf, size);
}

/* statx says so where the kernel knows (5.8 and later); before, another
 * device than the folder's is the sign, which misses bind mounts. */
static int
default_mount_root (int         dirfd,
                    const char *path)
{
  struct statx stx;
  struct stat parent;

  if (statx (dirfd, path, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_BASIC_STATS, &stx) != 0)
    return -1;
  if (stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT)
    return (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT) != 0;
  if (fstat (dirfd, &parent) != 0)
    return -1;
  return makedev (stx.stx_dev_major, stx.stx_dev_minor) != parent.st_dev;
}

static const CsIoTable default_table = {
  .openat = default_openat,
  .close = close,
  .pread = pread,
  .pwrite = pwrite,
  .copy_file_range = copy_file_range,
  .clone = default_clone,
  .fsync = fsync,
  .fstat = fstat,
  .fstat_mode = default_fstat_mode,
  .statx = statx,
  .fstatat = fstatat,
  .mkdirat = mkdirat,
  .renameat2 = default_renameat2,
  .linkat = linkat,
  .unlinkat = unlinkat,
  .fchmod = fchmod,
  .fchown = fchown,
  .futimens = futimens,
  .utimensat = utimensat,
  .fchownat = fchownat,
  .ftruncate = ftruncate,
  .lseek = lseek,
  .readlinkat = readlinkat,
  .symlinkat = symlinkat,
  .mknodat = mknodat,
  .fchmodat = fchmodat,
  .getdents = default_getdents,
  .syncfs = syncfs,
  .flistxattr = flistxattr,
  .fgetxattr = fgetxattr,
  .fsetxattr = fsetxattr,
  .mount_root = default_mount_root,
};

static const CsIoTable *io = &default_table;

const CsIoTable *
_cs_io_get_default (void)
{
  return &default_table;
}

void
_cs_io_set (const CsIoTable *table)
{
  io = table != NULL ? table : &default_table;
}

static inline void
count (CsCounters   *c,
       CsRequestKind kind)
{
  atomic_fetch_add_explicit (&c->requests[kind], 1, memory_order_relaxed);
}

static inline guint64
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64) ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + (guint64) ts.tv_nsec;
}

/* Repeats a call interrupted by a signal; a plain loop would hide the count. */
#define RETRY_EINTR(expr) ({ __typeof__ (expr) _r; do _r = (expr); while (_r < 0 && errno == EINTR); _r; })

int
_cs_io_openat (CsCounters *c, int dirfd, const char *path, int flags, mode_t mode)
{
  count (c, (flags & O_CREAT) ? CS_REQ_CREATE : CS_REQ_OPEN);
  return RETRY_EINTR (io->openat (dirfd, path, flags | O_CLOEXEC, mode));
}

int
_cs_io_close (CsCounters *c, int fd)
{
  count (c, CS_REQ_CLOSE);
  /* close() must not be retried on Linux: the descriptor is gone either way. */
  return io->close (fd);
}

ssize_t
_cs_io_pread (CsCounters *c, int fd, void *buf, size_t len, off_t offset)
{
  guint64 start = now_ns ();
  ssize_t n = RETRY_EINTR (io->pread (fd, buf, len, offset));

  count (c, CS_REQ_READ);
  atomic_fetch_add_explicit (&c->read_ns, now_ns () - start, memory_order_relaxed);
  if (n > 0)
    atomic_fetch_add_explicit (&c->bytes_read, (guint64) n, memory_order_relaxed);
  return n;
}

ssize_t
_cs_io_pwrite (CsCounters *c, int fd, const void *buf, size_t len, off_t offset)
{
  guint64 start = now_ns ();
  ssize_t n = RETRY_EINTR (io->pwrite (fd, buf, len, offset));

  count (c, CS_REQ_WRITE);
  atomic_fetch_add_explicit (&c->write_ns, now_ns () - start, memory_order_relaxed);
  if (n > 0)
    atomic_fetch_add_explicit (&c->bytes_written, (guint64) n, memory_order_relaxed);
  return n;
}

static void
count_copy (CsCounters *c,
            guint64     start,
            ssize_t     n)
{
  guint64 elapsed = now_ns () - start;

  count (c, CS_REQ_COPY);
  atomic_fetch_add_explicit (&c->read_ns, elapsed, memory_order_relaxed);
  atomic_fetch_add_explicit (&c->write_ns, elapsed, memory_order_relaxed);
  if (n > 0)
    {
      atomic_fetch_add_explicit (&c->bytes_read, (guint64) n, memory_order_relaxed);
      atomic_fetch_add_explicit (&c->bytes_written, (guint64) n, memory_order_relaxed);
    }
}

ssize_t
_cs_io_copy_range (CsCounters *c, int fd_in, off_t *off_in, int fd_out, off_t *off_out,
                   size_t len)
{
  guint64 start = now_ns ();
  ssize_t n = RETRY_EINTR (io->copy_file_range (fd_in, off_in, fd_out, off_out, len, 0));

  count_copy (c, start, n);
  return n;
}

int
_cs_io_clone (CsCounters *c, int dst_fd, int src_fd, guint64 size)
{
  guint64 start = now_ns ();
  int r = RETRY_EINTR (io->clone (dst_fd, src_fd));

  count_copy (c, start, r == 0 ? (ssize_t) size : 0);
  return r;
}

#define SIMPLE(kind, call) do { count (c, kind); return RETRY_EINTR (call); } while (0)

int
_cs_io_fsync (CsCounters *c, int fd)
{
  SIMPLE (CS_REQ_FSYNC, io->fsync (fd));
}

int
_cs_io_fstat (CsCounters *c, int fd, struct stat *st)
{
  SIMPLE (CS_REQ_STAT, io->fstat (fd, st));
}

int
_cs_io_mount_root (CsCounters *c, int dirfd, const char *path)
{
  SIMPLE (CS_REQ_STAT, io->mount_root (dirfd, path));
}

int
_cs_io_fstat_mode (CsCounters *c, int fd, mode_t *mode)
{
  SIMPLE (CS_REQ_STAT, io->fstat_mode (fd, mode));
}

int
_cs_io_fstatat (CsCounters *c, int dirfd, const char *path, struct stat *st, int flags)
{
  SIMPLE (CS_REQ_STAT, io->fstatat (dirfd, path, st, flags));
}

int
_cs_io_statx (CsCounters *c, int dirfd, const char *path, int flags, unsigned int mask,
              struct statx *stx)
{
  SIMPLE (CS_REQ_STAT, io->statx (dirfd, path, flags, mask, stx));
}

int
_cs_io_mkdirat (CsCounters *c, int dirfd, const char *path, mode_t mode)
{
  SIMPLE (CS_REQ_MKDIR, io->mkdirat (dirfd, path, mode));
}

int
_cs_io_renameat2 (CsCounters *c, int olddirfd, const char *oldpath, int newdirfd,
                  const char *newpath, unsigned int flags)
{
  SIMPLE (CS_REQ_RENAME, io->renameat2 (olddirfd, oldpath, newdirfd, newpath, flags));
}

int
_cs_io_linkat (CsCounters *c, int olddirfd, const char *oldpath, int newdirfd,
               const char *newpath, int flags)
{
  SIMPLE (CS_REQ_OTHER, io->linkat (olddirfd, oldpath, newdirfd, newpath, flags));
}

int
_cs_io_unlinkat (CsCounters *c, int dirfd, const char *path, int flags)
{
  SIMPLE (CS_REQ_UNLINK, io->unlinkat (dirfd, path, flags));
}

int
_cs_io_fchmod (CsCounters *c, int fd, mode_t mode)
{
  SIMPLE (CS_REQ_SETATTR, io->fchmod (fd, mode));
}

int
_cs_io_fchown (CsCounters *c, int fd, uid_t uid, gid_t gid)
{
  SIMPLE (CS_REQ_SETATTR, io->fchown (fd, uid, gid));
}

int
_cs_io_futimens (CsCounters *c, int fd, const struct timespec times[2])
{
  SIMPLE (CS_REQ_SETATTR, io->futimens (fd, times));
}

int
_cs_io_utimensat (CsCounters *c, int dirfd, const char *path, const struct timespec times[2],
                  int flags)
{
  SIMPLE (CS_REQ_SETATTR, io->utimensat (dirfd, path, times, flags));
}

int
_cs_io_fchownat (CsCounters *c, int dirfd, const char *path, uid_t uid, gid_t gid, int flags)
{
  SIMPLE (CS_REQ_SETATTR, io->fchownat (dirfd, path, uid, gid, flags));
}

int
_cs_io_ftruncate (CsCounters *c, int fd, off_t length)
{
  SIMPLE (CS_REQ_SETATTR, io->ftruncate (fd, length));
}

off_t
_cs_io_lseek (CsCounters *c, int fd, off_t offset, int whence)
{
  count (c, CS_REQ_OTHER);
  return io->lseek (fd, offset, whence);
}

ssize_t
_cs_io_readlinkat (CsCounters *c, int dirfd, const char *path, char *buf, size_t size)
{
  SIMPLE (CS_REQ_OTHER, io->readlinkat (dirfd, path, buf, size));
}

int
_cs_io_symlinkat (CsCounters *c, const char *target, int newdirfd, const char *linkpath)
{
  SIMPLE (CS_REQ_OTHER, io->symlinkat (target, newdirfd, linkpath));
}

int
_cs_io_mknodat (CsCounters *c, int dirfd, const char *path, mode_t mode, dev_t dev)
{
  SIMPLE (CS_REQ_CREATE, io->mknodat (dirfd, path, mode, dev));
}

int
_cs_io_fchmodat (CsCounters *c, int dirfd, const char *path, mode_t mode)
{
  SIMPLE (CS_REQ_SETATTR, io->fchmodat (dirfd, path, mode, 0));
}

ssize_t
_cs_io_getdents (CsCounters *c, int fd, void *buf, size_t size)
{
  SIMPLE (CS_REQ_READDIR, io->getdents (fd, buf, size));
}

int
_cs_io_syncfs (CsCounters *c, int fd)
{
  SIMPLE (CS_REQ_FSYNC, io->syncfs (fd));
}

ssize_t
_cs_io_flistxattr (CsCounters *c, int fd, char *list, size_t size)
{
  SIMPLE (CS_REQ_OTHER, io->flistxattr (fd, list, size));
}

ssize_t
_cs_io_fgetxattr (CsCounters *c, int fd, const char *name, void *value, size_t size)
{
  SIMPLE (CS_REQ_OTHER, io->fgetxattr (fd, name, value, size));
}

int
_cs_io_fsetxattr (CsCounters *c, int fd, const char *name, const void *value, size_t size)
{
  SIMPLE (CS_REQ_SETATTR, io->fsetxattr (fd, name, value, size, 0));
}

gboolean
_cs_io_is_unsupported (int error_code)
{
  switch (error_code)
    {
    case EXDEV:
    case EOPNOTSUPP:
    case ENOSYS:
    case EINVAL:
    case ENOTTY:
      return TRUE;
    default:
      return FALSE;
    }
}
