/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-io"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "cs-env-private.h"
#include "cs-io-private.h"
#include "cs-io-smb-private.h"
#include "cs-worker-phase-private.h"

/*
 * The I/O seam: every request of a copy goes through here, counted, timed by
 * kind for the workers' phases, and sent to the table of its handle's backend
 * (a test's table, the SMB client or the system). Its quiet door at the end
 * sends the count ahead's and the sweep's requests the same way, uncounted.
 * One file of about a thousand lines on purpose: the handle lookup (find,
 * Target, handed_out) is shared by both doors and stays private to it.
 */

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

static int
default_fadvise (int   fd,
                 off_t offset,
                 off_t len,
                 int   advice)
{
  int r = posix_fadvise (fd, offset, len, advice);

  if (r != 0)
    {
      errno = r;
      return -1;
    }
  return 0;
}

/* flock(2): the kernel drops it with the descriptor, a SIGKILL included,
 * so a lock is never left behind and no name is needed. */
static int
default_lock (int         fd,
              int         dirfd,
              const char *name)
{
  if (fd < 0)
    {
      errno = EBADF;
      return -1;
    }
  if (flock (fd, LOCK_EX | LOCK_NB) != 0)
    {
      errno = errno == EWOULDBLOCK ? EBUSY : errno;
      return -1;
    }
  return 0;
}

static int
default_unlock (int         fd,
                int         dirfd,
                const char *name)
{
  if (fd < 0)
    {
      errno = EBADF;
      return -1;
    }
  return flock (fd, LOCK_UN);
}

static const CsIoTable default_table = {
  .name = "posix",
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
  .fremovexattr = fremovexattr,
  .mount_root = default_mount_root,
  .fstatfs = fstatfs,
  .fadvise = default_fadvise,
  .lock = default_lock,
  .unlock = default_unlock,
};


#define HANDLE_MASK ((1 << CS_IO_HANDLE_BITS) - 1)
#define MAX_BACKENDS 8

/* Written before any job runs; the count is published last, so a reader
 * that sees a number also sees its table. Number 0 is the POSIX backend. */
static const CsIoTable *backends[MAX_BACKENDS] = { &default_table, &_cs_io_smb };
static atomic_int n_backends = 2;
static GMutex register_lock;

const CsIoTable *
_cs_io_get_default (void)
{
  return &default_table;
}

void
_cs_io_set (const CsIoTable *table)
{
  backends[0] = table != NULL ? table : &default_table;
}

int
_cs_io_register (const CsIoTable *table)
{
  int n;

  g_return_val_if_fail (table->scheme != NULL, -1);

  g_mutex_lock (&register_lock);
  n = atomic_load (&n_backends);
  for (int i = 1; i < n; i++)
    if (backends[i] == table)
      {
        g_mutex_unlock (&register_lock);
        return i;
      }
  g_assert (n < MAX_BACKENDS);
  backends[n] = table;
  atomic_store_explicit (&n_backends, n + 1, memory_order_release);
  g_mutex_unlock (&register_lock);
  return n;
}

/* A backend's table and its own number for a handle of the seam's. */
typedef struct {
  const CsIoTable *table;
  int              handle;
  int              backend;
} Target;

static gboolean
find (int         handle,
      const char *location,
      Target     *out)
{
  int n = atomic_load_explicit (&n_backends, memory_order_acquire);

  out->backend = 0;
  out->handle = handle;
  if (handle >= 0)
    {
      out->backend = handle >> CS_IO_HANDLE_BITS;
      out->handle = handle & HANDLE_MASK;
      if (out->backend >= n)
        {
          errno = EBADF;
          return FALSE;
        }
    }
  else if (location != NULL)
    {
      for (int i = 1; i < n; i++)
        if (g_str_has_prefix (location, backends[i]->scheme))
          out->backend = i;
    }
  out->table = backends[out->backend];
  return TRUE;
}

static gboolean
find_pair (int         a,
           const char *a_location,
           int         b,
           const char *b_location,
           Target     *ta,
           Target     *tb)
{
  if (!find (a, a_location, ta) || !find (b, b_location, tb))
    return FALSE;
  if (ta->backend != tb->backend)
    {
      errno = EXDEV;
      return FALSE;
    }
  return TRUE;
}

/* A backend's new handle in the seam's numbers. */
static int
handed_out (const Target *t,
            int           handle)
{
  if (handle < 0)
    return handle;
  if (handle > HANDLE_MASK)
    {
      t->table->close (handle);
      errno = EMFILE;
      return -1;
    }
  return (t->backend << CS_IO_HANDLE_BITS) | handle;
}

const CsIoTable *
_cs_io_backend (int         handle,
                const char *location)
{
  Target t;

  return find (handle, location, &t) ? t.table : NULL;
}

char *
_cs_io_filesystem_type (const char *location)
{
  Target t;

  if (!find (CS_IO_AT_LOCATION, location, &t) || t.table->describe == NULL)
    return _cs_env_filesystem_type (location);
  return t.table->describe (location);
}

char *
_cs_io_explain_missing (const char *location)
{
  Target t;

  if (!find (CS_IO_AT_LOCATION, location, &t) || t.table->explain_missing == NULL)
    return NULL;
  return t.table->explain_missing (location);
}

gboolean
_cs_io_connects (int         dirfd,
                 const char *path)
{
  Target t;

  return find (dirfd, dirfd == CS_IO_AT_LOCATION ? path : NULL, &t) && t.table->connect != NULL;
}

int
_cs_io_connect (int         dirfd,
                const char *path)
{
  Target t;

  if (!find (dirfd, dirfd == CS_IO_AT_LOCATION ? path : NULL, &t))
    return -1;
  return t.table->connect != NULL ? t.table->connect (t.handle, path) : 0;
}

gboolean
_cs_io_is_path (const char *location)
{
  Target t;

  return find (CS_IO_AT_LOCATION, location, &t) && t.backend == 0;
}

char *
_cs_io_location_name (const char *location)
{
  g_autofree char *base = g_path_get_basename (location);
  char *name;

  if (_cs_io_is_path (location))
    return g_steal_pointer (&base);
  /* A "%" that starts no escape is a "%": a URL typed, not written by GIO. */
  name = g_uri_unescape_string (base, "/");
  return name != NULL ? name : g_steal_pointer (&base);
}

char *
_cs_io_location_child (const char *location,
                       const char *name)
{
  g_autofree char *escaped = NULL;

  if (_cs_io_is_path (location))
    return g_build_filename (location, name, NULL);
  escaped = g_uri_escape_string (name, NULL, TRUE);
  return g_strconcat (location, g_str_has_suffix (location, "/") ? "" : "/", escaped, NULL);
}

int
_cs_io_stat_location (const char  *location,
                      gboolean     follow,
                      struct stat *st)
{
  Target t;

  if (!find (CS_IO_AT_LOCATION, location, &t))
    return -1;
  if (t.backend == 0)
    return follow ? stat (location, st) : lstat (location, st);
  return t.table->fstatat (CS_IO_AT_LOCATION, location, st, follow ? 0 : AT_SYMLINK_NOFOLLOW);
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

/*
 * Each request a worker makes puts it in the request's phase and times it
 * by kind (cs-worker-phase-private.h): here, the one place every counted
 * request passes. A thread that keeps no phases (the scanner, the
 * controller) pays one thread-local load. CS_PHASE_N, CS_LATENCY_N: none.
 */
static const guint8 request_phase[CS_N_REQ] = {
  [CS_REQ_OPEN] = CS_PHASE_OPENING,
  [CS_REQ_CREATE] = CS_PHASE_OPENING,
  [CS_REQ_STAT] = CS_PHASE_OPENING,
  [CS_REQ_READ] = CS_PHASE_READING,
  [CS_REQ_WRITE] = CS_PHASE_WRITING,
  [CS_REQ_COPY] = CS_PHASE_WRITING,
  [CS_REQ_FSYNC] = CS_PHASE_FLUSHING,
  [CS_REQ_MKDIR] = CS_PHASE_OPENING,
  [CS_REQ_RENAME] = CS_PHASE_PUBLISHING,
  [CS_REQ_SETATTR] = CS_PHASE_METADATA,
  [CS_REQ_READDIR] = CS_PHASE_LISTING,
  [CS_REQ_CLOSE] = CS_PHASE_FLUSHING,
  [CS_REQ_UNLINK] = CS_PHASE_DELETING,
  [CS_REQ_OTHER] = CS_PHASE_N,
};

static const guint8 request_latency[CS_N_REQ] = {
  [CS_REQ_OPEN] = CS_LATENCY_OPEN,
  [CS_REQ_CREATE] = CS_LATENCY_OPEN,
  [CS_REQ_STAT] = CS_LATENCY_N,
  [CS_REQ_READ] = CS_LATENCY_READ,
  [CS_REQ_WRITE] = CS_LATENCY_WRITE,
  [CS_REQ_COPY] = CS_LATENCY_WRITE,
  [CS_REQ_FSYNC] = CS_LATENCY_N,
  [CS_REQ_MKDIR] = CS_LATENCY_N,
  [CS_REQ_RENAME] = CS_LATENCY_RENAME,
  [CS_REQ_SETATTR] = CS_LATENCY_SET_TIMES,
  [CS_REQ_READDIR] = CS_LATENCY_LIST,
  [CS_REQ_CLOSE] = CS_LATENCY_CLOSE,
  [CS_REQ_UNLINK] = CS_LATENCY_N,
  [CS_REQ_OTHER] = CS_LATENCY_N,
};

/* Before a request: its start in ns, or 0 where nothing is timed. */
static inline guint64
begin (CsRequestKind kind)
{
  CsWorkerPhase *w = _cs_worker_phase;
  guint64 now;

  if (G_LIKELY (w == NULL) || (request_phase[kind] == CS_PHASE_N && request_latency[kind] == CS_LATENCY_N))
    return 0;
  now = now_ns ();
  if (request_phase[kind] != CS_PHASE_N)
    _cs_worker_phase_set_at (w, (CsPhase) request_phase[kind], now);
  return now;
}

/* After it, with its end if the caller has read the clock already (else 0). */
static inline void
finish (CsRequestKind kind,
        guint64       start,
        guint64       end)
{
  CsWorkerPhase *w = _cs_worker_phase;

  if (start == 0 || w == NULL || request_latency[kind] == CS_LATENCY_N)
    return;
  if (end == 0)
    end = now_ns ();
  cs_latency_histogram_add (&w->latency[request_latency[kind]], end > start ? end - start : 0);
}

/* Repeats a call interrupted by a signal; a plain loop would hide the count. */
#define RETRY_EINTR(expr) ({ __typeof__ (expr) _r; do _r = (expr); while (_r < 0 && errno == EINTR); _r; })

int
_cs_io_openat (CsCounters *c, int dirfd, const char *path, int flags, mode_t mode)
{
  Target d;
  CsRequestKind kind;
  guint64 start;
  int fd;

  if (!find (dirfd, path, &d))
    return -1;
  kind = (flags & O_CREAT) ? CS_REQ_CREATE : CS_REQ_OPEN;
  count (c, kind);
  start = begin (kind);
  fd = RETRY_EINTR (d.table->openat (d.handle, path, flags | O_CLOEXEC, mode));
  finish (kind, start, 0);
  return handed_out (&d, fd);
}

int
_cs_io_close (CsCounters *c, int fd)
{
  Target f;
  guint64 start;
  int r;

  if (!find (fd, NULL, &f))
    return -1;
  count (c, CS_REQ_CLOSE);
  start = begin (CS_REQ_CLOSE);
  /* close() must not be retried on Linux: the descriptor is gone either way. */
  r = f.table->close (f.handle);
  finish (CS_REQ_CLOSE, start, 0);
  return r;
}

ssize_t
_cs_io_pread (CsCounters *c, int fd, void *buf, size_t len, off_t offset)
{
  Target f;
  guint64 start, end;
  ssize_t n;

  if (!find (fd, NULL, &f))
    return -1;
  start = begin (CS_REQ_READ);
  if (start == 0)
    start = now_ns ();
  n = RETRY_EINTR (f.table->pread (f.handle, buf, len, offset));
  end = now_ns ();
  count (c, CS_REQ_READ);
  atomic_fetch_add_explicit (&c->read_ns, end - start, memory_order_relaxed);
  finish (CS_REQ_READ, start, end);
  if (n > 0)
    atomic_fetch_add_explicit (&c->bytes_read, (guint64) n, memory_order_relaxed);
  return n;
}

ssize_t
_cs_io_pwrite (CsCounters *c, int fd, const void *buf, size_t len, off_t offset)
{
  Target f;
  guint64 start, end;
  ssize_t n;

  if (!find (fd, NULL, &f))
    return -1;
  start = begin (CS_REQ_WRITE);
  if (start == 0)
    start = now_ns ();
  n = RETRY_EINTR (f.table->pwrite (f.handle, buf, len, offset));
  end = now_ns ();
  count (c, CS_REQ_WRITE);
  atomic_fetch_add_explicit (&c->write_ns, end - start, memory_order_relaxed);
  finish (CS_REQ_WRITE, start, end);
  if (n > 0)
    atomic_fetch_add_explicit (&c->bytes_written, (guint64) n, memory_order_relaxed);
  return n;
}

static void
count_copy (CsCounters *c,
            guint64     start,
            ssize_t     n)
{
  guint64 end = now_ns ();
  guint64 elapsed = end - start;

  finish (CS_REQ_COPY, start, end);
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
  Target in, out;
  guint64 start;
  ssize_t n;

  if (!find_pair (fd_in, NULL, fd_out, NULL, &in, &out))
    return -1;
  start = begin (CS_REQ_COPY);
  if (start == 0)
    start = now_ns ();
  n = RETRY_EINTR (in.table->copy_file_range (in.handle, off_in, out.handle, off_out, len, 0));
  count_copy (c, start, n);
  return n;
}

int
_cs_io_clone (CsCounters *c, int dst_fd, int src_fd, guint64 size)
{
  Target dst, src;
  guint64 start;
  int r;

  if (!find_pair (dst_fd, NULL, src_fd, NULL, &dst, &src))
    return -1;
  start = begin (CS_REQ_COPY);
  if (start == 0)
    start = now_ns ();
  r = RETRY_EINTR (dst.table->clone (dst.handle, src.handle));
  count_copy (c, start, r == 0 ? (ssize_t) size : 0);
  return r;
}

/* One call on one handle (or a folder and a name): found, counted, retried. */
#define SIMPLE(kind, handle, location, call) do {                          \
    Target t;                                                              \
    if (!find (handle, location, &t))                                      \
      return -1;                                                           \
    guint64 start_ = begin (kind);                                         \
    __typeof__ (t.table->call) r_;                                         \
    count (c, kind);                                                       \
    r_ = RETRY_EINTR (t.table->call);                                      \
    finish (kind, start_, 0);                                              \
    return r_;                                                             \
  } while (0)

/* The same for a call joining two handles of one backend. */
#define PAIR(kind, a, a_location, b, b_location, call) do {                \
    Target ta, tb;                                                         \
    if (!find_pair (a, a_location, b, b_location, &ta, &tb))               \
      return -1;                                                           \
    guint64 start_ = begin (kind);                                         \
    __typeof__ (ta.table->call) r_;                                        \
    count (c, kind);                                                       \
    r_ = RETRY_EINTR (ta.table->call);                                     \
    finish (kind, start_, 0);                                              \
    return r_;                                                             \
  } while (0)

/* Routed by the folder, so a lock by name alone (@fd -1) finds its backend. */
static int
lock_call (CsCounters *c,
           gboolean    take,
           int         fd,
           int         dirfd,
           const char *name)
{
  Target tf = { NULL, -1, 0 }, td;
  int (*call) (int, int, const char *);

  if (fd >= 0 ? !find_pair (fd, NULL, dirfd, NULL, &tf, &td) : !find (dirfd, NULL, &td))
    return -1;
  call = take ? td.table->lock : td.table->unlock;
  if (call == NULL)
    {
      errno = EOPNOTSUPP;
      return -1;
    }
  count (c, CS_REQ_OTHER);
  return RETRY_EINTR (call (tf.handle, td.handle, name));
}

int
_cs_io_lock (CsCounters *c, int fd, int dirfd, const char *name)
{
  return lock_call (c, TRUE, fd, dirfd, name);
}

int
_cs_io_unlock (CsCounters *c, int fd, int dirfd, const char *name)
{
  return lock_call (c, FALSE, fd, dirfd, name);
}

int
_cs_io_fsync (CsCounters *c, int fd)
{
  SIMPLE (CS_REQ_FSYNC, fd, NULL, fsync (t.handle));
}

int
_cs_io_fstat (CsCounters *c, int fd, struct stat *st)
{
  SIMPLE (CS_REQ_STAT, fd, NULL, fstat (t.handle, st));
}

int
_cs_io_mount_root (CsCounters *c, int dirfd, const char *path)
{
  SIMPLE (CS_REQ_STAT, dirfd, path, mount_root (t.handle, path));
}

int
_cs_io_fstat_mode (CsCounters *c, int fd, mode_t *mode)
{
  SIMPLE (CS_REQ_STAT, fd, NULL, fstat_mode (t.handle, mode));
}

int
_cs_io_fstatat (CsCounters *c, int dirfd, const char *path, struct stat *st, int flags)
{
  SIMPLE (CS_REQ_STAT, dirfd, path, fstatat (t.handle, path, st, flags));
}

int
_cs_io_statx (CsCounters *c, int dirfd, const char *path, int flags, unsigned int mask,
              struct statx *stx)
{
  SIMPLE (CS_REQ_STAT, dirfd, path, statx (t.handle, path, flags, mask, stx));
}

int
_cs_io_mkdirat (CsCounters *c, int dirfd, const char *path, mode_t mode)
{
  SIMPLE (CS_REQ_MKDIR, dirfd, path, mkdirat (t.handle, path, mode));
}

int
_cs_io_renameat2 (CsCounters *c, int olddirfd, const char *oldpath, int newdirfd,
                  const char *newpath, unsigned int flags)
{
  PAIR (CS_REQ_RENAME, olddirfd, oldpath, newdirfd, newpath,
        renameat2 (ta.handle, oldpath, tb.handle, newpath, flags));
}

int
_cs_io_linkat (CsCounters *c, int olddirfd, const char *oldpath, int newdirfd,
               const char *newpath, int flags)
{
  PAIR (CS_REQ_OTHER, olddirfd, oldpath, newdirfd, newpath,
        linkat (ta.handle, oldpath, tb.handle, newpath, flags));
}

int
_cs_io_unlinkat (CsCounters *c, int dirfd, const char *path, int flags)
{
  SIMPLE (CS_REQ_UNLINK, dirfd, path, unlinkat (t.handle, path, flags));
}

int
_cs_io_fchmod (CsCounters *c, int fd, mode_t mode)
{
  SIMPLE (CS_REQ_SETATTR, fd, NULL, fchmod (t.handle, mode));
}

int
_cs_io_fchown (CsCounters *c, int fd, uid_t uid, gid_t gid)
{
  SIMPLE (CS_REQ_SETATTR, fd, NULL, fchown (t.handle, uid, gid));
}

int
_cs_io_futimens (CsCounters *c, int fd, const struct timespec times[2])
{
  SIMPLE (CS_REQ_SETATTR, fd, NULL, futimens (t.handle, times));
}

int
_cs_io_utimensat (CsCounters *c, int dirfd, const char *path, const struct timespec times[2],
                  int flags)
{
  SIMPLE (CS_REQ_SETATTR, dirfd, path, utimensat (t.handle, path, times, flags));
}

int
_cs_io_fchownat (CsCounters *c, int dirfd, const char *path, uid_t uid, gid_t gid, int flags)
{
  SIMPLE (CS_REQ_SETATTR, dirfd, path, fchownat (t.handle, path, uid, gid, flags));
}

int
_cs_io_ftruncate (CsCounters *c, int fd, off_t length)
{
  SIMPLE (CS_REQ_SETATTR, fd, NULL, ftruncate (t.handle, length));
}

off_t
_cs_io_lseek (CsCounters *c, int fd, off_t offset, int whence)
{
  Target f;

  if (!find (fd, NULL, &f))
    return -1;
  count (c, CS_REQ_OTHER);
  return f.table->lseek (f.handle, offset, whence);
}

ssize_t
_cs_io_readlinkat (CsCounters *c, int dirfd, const char *path, char *buf, size_t size)
{
  SIMPLE (CS_REQ_OTHER, dirfd, path, readlinkat (t.handle, path, buf, size));
}

int
_cs_io_symlinkat (CsCounters *c, const char *target, int newdirfd, const char *linkpath)
{
  SIMPLE (CS_REQ_OTHER, newdirfd, linkpath, symlinkat (target, t.handle, linkpath));
}

int
_cs_io_mknodat (CsCounters *c, int dirfd, const char *path, mode_t mode, dev_t dev)
{
  SIMPLE (CS_REQ_CREATE, dirfd, path, mknodat (t.handle, path, mode, dev));
}

int
_cs_io_fchmodat (CsCounters *c, int dirfd, const char *path, mode_t mode)
{
  SIMPLE (CS_REQ_SETATTR, dirfd, path, fchmodat (t.handle, path, mode, 0));
}

ssize_t
_cs_io_getdents (CsCounters *c, int fd, void *buf, size_t size)
{
  SIMPLE (CS_REQ_READDIR, fd, NULL, getdents (t.handle, buf, size));
}

int
_cs_io_readdirplus (CsCounters *c, int fd, GPtrArray *entries)
{
  Target t;

  if (!find (fd, NULL, &t))
    return -1;
  if (t.table->readdirplus == NULL)
    {
      errno = ENOTSUP;
      return -1;
    }
  /* One request of the kind: a folder read, however many entries it held. */
  count (c, CS_REQ_READDIR);
  return t.table->readdirplus (t.handle, entries);
}

int
_cs_io_openat_listed (CsCounters *c,
                      int         dirfd,
                      const char *path,
                      int         flags,
                      GPtrArray  *entries,
                      gboolean   *out_listed)
{
  Target d;
  guint64 start;
  int fd;

  *out_listed = FALSE;
  if (!find (dirfd, path, &d))
    return -1;
  if (d.table->openat_listed == NULL)
    {
      fd = _cs_io_openat (c, dirfd, path, flags, 0);
      *out_listed = fd >= 0 && _cs_io_readdirplus (c, fd, entries) == 0;
      return fd;
    }
  count (c, CS_REQ_OPEN);
  count (c, CS_REQ_READDIR);
  start = begin (CS_REQ_OPEN);
  /* Not retried: an interrupted listing may have appended entries. */
  fd = d.table->openat_listed (d.handle, path, flags | O_CLOEXEC, entries, out_listed);
  finish (CS_REQ_OPEN, start, 0);
  if (fd < 0)
    *out_listed = FALSE;
  return handed_out (&d, fd);
}

CsIoListed *
_cs_io_listed_new (const char        *name,
                   const struct stat *st)
{
  size_t len = strlen (name);
  CsIoListed *listed = g_malloc (sizeof *listed + len + 1);

  listed->st = *st;
  memcpy (listed->name, name, len + 1);
  return listed;
}

int
_cs_io_syncfs (CsCounters *c, int fd)
{
  SIMPLE (CS_REQ_FSYNC, fd, NULL, syncfs (t.handle));
}

ssize_t
_cs_io_flistxattr (CsCounters *c, int fd, char *list, size_t size)
{
  SIMPLE (CS_REQ_OTHER, fd, NULL, flistxattr (t.handle, list, size));
}

ssize_t
_cs_io_fgetxattr (CsCounters *c, int fd, const char *name, void *value, size_t size)
{
  SIMPLE (CS_REQ_OTHER, fd, NULL, fgetxattr (t.handle, name, value, size));
}

int
_cs_io_fsetxattr (CsCounters *c, int fd, const char *name, const void *value, size_t size)
{
  SIMPLE (CS_REQ_SETATTR, fd, NULL, fsetxattr (t.handle, name, value, size, 0));
}

int
_cs_io_fremovexattr (CsCounters *c, int fd, const char *name)
{
  Target t;

  if (!find (fd, NULL, &t))
    return -1;
  if (t.table->fremovexattr == NULL)
    {
      errno = ENOTSUP;
      return -1;
    }
  count (c, CS_REQ_SETATTR);
  return RETRY_EINTR (t.table->fremovexattr (t.handle, name));
}

int
_cs_io_fstatfs (int fd, struct statfs *sfs)
{
  Target f;

  if (!find (fd, NULL, &f))
    return -1;
  return RETRY_EINTR (f.table->fstatfs (f.handle, sfs));
}

int
_cs_io_fadvise (int fd, off_t offset, off_t len, int advice)
{
  Target f;

  if (!find (fd, NULL, &f))
    return -1;
  return f.table->fadvise (f.handle, offset, len, advice);
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

/* ---- The quiet door (cs-io-quiet-private.h) ---------------------------- */

/* As find, but a path is the system's own: a test's table is the copy's. */
static gboolean
find_quiet (int         handle,
            const char *location,
            Target     *out)
{
  if (!find (handle, location, out))
    return FALSE;
  if (out->backend == 0)
    out->table = &default_table;
  return TRUE;
}

/* The same as SIMPLE, quietly: nothing counted. */
#define QUIET(handle, location, call) do {                                 \
    Target t;                                                              \
    if (!find_quiet (handle, location, &t))                                \
      return -1;                                                           \
    return RETRY_EINTR (t.table->call);                                    \
  } while (0)

int
_cs_io_quiet_openat (int dirfd, const char *path, int flags, mode_t mode)
{
  Target d;

  if (!find_quiet (dirfd, path, &d))
    return -1;
  return handed_out (&d, RETRY_EINTR (d.table->openat (d.handle, path, flags | O_CLOEXEC, mode)));
}

int
_cs_io_quiet_close (int fd)
{
  Target f;

  if (!find_quiet (fd, NULL, &f))
    return -1;
  /* close() must not be retried on Linux: the descriptor is gone either way. */
  return f.table->close (f.handle);
}

int
_cs_io_quiet_fstatat (int dirfd, const char *path, struct stat *st, int flags)
{
  QUIET (dirfd, path, fstatat (t.handle, path, st, flags));
}

ssize_t
_cs_io_quiet_getdents (int fd, void *buf, size_t size)
{
  QUIET (fd, NULL, getdents (t.handle, buf, size));
}

int
_cs_io_quiet_fadvise (int fd, off_t offset, off_t len, int advice)
{
  QUIET (fd, NULL, fadvise (t.handle, offset, len, advice));
}

static int
quiet_unlinkat (int dirfd, const char *path, int flags)
{
  QUIET (dirfd, path, unlinkat (t.handle, path, flags));
}

static int
quiet_mount_root (int dirfd, const char *path)
{
  QUIET (dirfd, path, mount_root (t.handle, path));
}

static int
quiet_fchmod (int fd, mode_t mode)
{
  QUIET (fd, NULL, fchmod (t.handle, mode));
}

/* The names in the folder @fd, listed whole before any goes: a share may
 * not list on past a name removed under it. */
static GPtrArray *
quiet_list_names (int fd)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *buf = g_malloc (32 * 1024);
  ssize_t n;

  while ((n = _cs_io_quiet_getdents (fd, buf, 32 * 1024)) > 0)
    for (ssize_t pos = 0; pos < n;)
      {
        struct linux_dirent64 *d = (struct linux_dirent64 *) (gpointer) (buf + pos);

        if (strcmp (d->d_name, ".") != 0 && strcmp (d->d_name, "..") != 0)
          g_ptr_array_add (names, g_strdup (d->d_name));
        pos += d->d_reclen;
      }
  return names;
}

void
_cs_io_quiet_remove_tree (int         parent_fd,
                          const char *name)
{
  g_autoptr(GPtrArray) names = NULL;
  struct stat st;
  int fd;

  if (_cs_io_quiet_fstatat (parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return;
  if (!S_ISDIR (st.st_mode))
    {
      quiet_unlinkat (parent_fd, name, 0);
      return;
    }
  if (quiet_mount_root (parent_fd, name) != 0)
    return;
  fd = _cs_io_quiet_openat (parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
  if (fd < 0)
    return;
  /* Folders copied read-only must be writable to be emptied; a share has
   * no modes of ours to change (EOPNOTSUPP). */
  quiet_fchmod (fd, 0700);
  names = quiet_list_names (fd);
  for (guint i = 0; i < names->len; i++)
    _cs_io_quiet_remove_tree (fd, g_ptr_array_index (names, i));
  _cs_io_quiet_close (fd);
  quiet_unlinkat (parent_fd, name, AT_REMOVEDIR);
}
