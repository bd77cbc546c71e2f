/* SPDX-License-Identifier: GPL-3.0-or-later */

/*
 * An LD_PRELOAD shim that injects I/O faults into an unmodified binary — the
 * CLI under test. Configured by the environment; inert unless CSFAULT_PATH is
 * set:
 *
 *   CSFAULT_PATH      fnmatch patterns, separated by '|', for the path a
 *                     descriptor points to (found through /proc/self/fd), or
 *                     the path opened; an unnamed file (O_TMPFILE) is opened
 *                     as "DIR/#unnamed" and points to "DIR/#INODE (deleted)"
 *   CSFAULT_OP        comma-separated: read, write, fsync, copy_file_range,
 *                     splice, sendfile, ficlone, openat; "read" and "write" also
 *                     cover the input and output sides of the kernel-copy calls
 *   CSFAULT_NTH       the first matching call hit, from 1 (default 1)
 *   CSFAULT_COUNT     how many calls are hit from there (default: all)
 *   CSFAULT_ERRNO     fail with this error: a name (EIO, ENOSPC, …) or a number
 *   CSFAULT_SHORT     1: transfer at most half of what was asked instead
 *   CSFAULT_DELAY_US  sleep this long in every matching call
 *   CSFAULT_LOG       append one line per injected fault to this file
 *
 * Wrapped: read, pread(64), write, pwrite(64), copy_file_range, splice,
 * sendfile(64), ioctl (FICLONE), fsync, fdatasync, open(64), openat(64).
 */

#define _GNU_SOURCE
/* The 64-bit names are defined here and the plain ones alias them. */
#undef _FILE_OFFSET_BITS

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define MIN_LEN(a, b) ((a) < (b) ? (a) : (b))

enum {
  OP_READ = 1 << 0,
  OP_WRITE = 1 << 1,
  OP_FSYNC = 1 << 2,
  OP_COPY_FILE_RANGE = 1 << 3,
  OP_SPLICE = 1 << 4,
  OP_SENDFILE = 1 << 5,
  OP_FICLONE = 1 << 6,
  OP_OPENAT = 1 << 7,
};

static struct {
  int           ready;
  const char   *pattern;
  unsigned      ops;
  unsigned long nth;
  unsigned long count;
  int           error;
  int           short_io;
  unsigned long delay_us;
  int           log_fd;
  atomic_ulong  seen;
} cfg;

static ssize_t (*real_read) (int, void *, size_t);
static ssize_t (*real_pread) (int, void *, size_t, off_t);
static ssize_t (*real_write) (int, const void *, size_t);
static ssize_t (*real_pwrite) (int, const void *, size_t, off_t);
static ssize_t (*real_copy_file_range) (int, off_t *, int, off_t *, size_t, unsigned int);
static ssize_t (*real_splice) (int, off_t *, int, off_t *, size_t, unsigned int);
static ssize_t (*real_sendfile) (int, int, off_t *, size_t);
static int (*real_ioctl) (int, unsigned long, ...);
static int (*real_fsync) (int);
static int (*real_fdatasync) (int);
static int (*real_open) (const char *, int, ...);
static int (*real_openat) (int, const char *, int, ...);

static const struct { const char *name; int value; } errnos[] = {
  { "EIO", EIO }, { "ENOSPC", ENOSPC }, { "EDQUOT", EDQUOT }, { "EACCES", EACCES },
  { "EPERM", EPERM }, { "ENOTCONN", ENOTCONN }, { "ESTALE", ESTALE }, { "EXDEV", EXDEV },
  { "EOPNOTSUPP", EOPNOTSUPP }, { "ENOSYS", ENOSYS }, { "EINVAL", EINVAL }, { "EINTR", EINTR },
  { "EROFS", EROFS }, { "EMFILE", EMFILE }, { "ENOMEM", ENOMEM }, { "EAGAIN", EAGAIN },
};

static void
resolve (void)
{
  const char *v;

  if (cfg.ready)
    return;
  real_read = dlsym (RTLD_NEXT, "read");
  real_pread = dlsym (RTLD_NEXT, "pread64");
  real_write = dlsym (RTLD_NEXT, "write");
  real_pwrite = dlsym (RTLD_NEXT, "pwrite64");
  real_copy_file_range = dlsym (RTLD_NEXT, "copy_file_range");
  real_splice = dlsym (RTLD_NEXT, "splice");
  real_sendfile = dlsym (RTLD_NEXT, "sendfile64");
  real_ioctl = dlsym (RTLD_NEXT, "ioctl");
  real_fsync = dlsym (RTLD_NEXT, "fsync");
  real_fdatasync = dlsym (RTLD_NEXT, "fdatasync");
  real_open = dlsym (RTLD_NEXT, "open64");
  real_openat = dlsym (RTLD_NEXT, "openat64");

  cfg.pattern = getenv ("CSFAULT_PATH");
  cfg.nth = (v = getenv ("CSFAULT_NTH")) != NULL ? strtoul (v, NULL, 10) : 1;
  cfg.count = (v = getenv ("CSFAULT_COUNT")) != NULL ? strtoul (v, NULL, 10) : 0;
  cfg.short_io = (v = getenv ("CSFAULT_SHORT")) != NULL && strcmp (v, "1") == 0;
  cfg.delay_us = (v = getenv ("CSFAULT_DELAY_US")) != NULL ? strtoul (v, NULL, 10) : 0;
  if ((v = getenv ("CSFAULT_ERRNO")) != NULL)
    {
      for (size_t i = 0; i < sizeof errnos / sizeof errnos[0]; i++)
        if (strcmp (v, errnos[i].name) == 0)
          cfg.error = errnos[i].value;
      if (cfg.error == 0)
        cfg.error = atoi (v);
    }
  if ((v = getenv ("CSFAULT_OP")) != NULL)
    {
      static const struct { const char *name; unsigned op; } names[] = {
        { "read", OP_READ }, { "write", OP_WRITE }, { "fsync", OP_FSYNC },
        { "copy_file_range", OP_COPY_FILE_RANGE }, { "splice", OP_SPLICE },
        { "sendfile", OP_SENDFILE }, { "ficlone", OP_FICLONE }, { "openat", OP_OPENAT },
      };
      char *list = strdup (v), *save = NULL;

      for (char *tok = strtok_r (list, ",", &save); tok != NULL; tok = strtok_r (NULL, ",", &save))
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
          if (strcmp (tok, names[i].name) == 0)
            cfg.ops |= names[i].op;
      free (list);
    }
  cfg.log_fd = -1;
  if ((v = getenv ("CSFAULT_LOG")) != NULL)
    {
      cfg.log_fd = real_open (v, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      /* Kept away from the low numbers a program may expect to own. */
      if (cfg.log_fd >= 0 && cfg.log_fd < 100)
        {
          int high = fcntl (cfg.log_fd, F_DUPFD_CLOEXEC, 100);

          if (high >= 0)
            {
              close (cfg.log_fd);
              cfg.log_fd = high;
            }
        }
    }
  cfg.ready = 1;
}

__attribute__ ((constructor)) static void
init (void)
{
  resolve ();
}

static int
pattern_matches (const char *path)
{
  const char *p = cfg.pattern;

  while (p != NULL)
    {
      const char *bar = strchr (p, '|');
      char one[4096];
      size_t len = bar != NULL ? (size_t) (bar - p) : strlen (p);

      if (len < sizeof one)
        {
          memcpy (one, p, len);
          one[len] = '\0';
          if (fnmatch (one, path, 0) == 0)
            return 1;
        }
      p = bar != NULL ? bar + 1 : NULL;
    }
  return 0;
}

static int
fd_matches (int fd)
{
  char link[64], path[4096];
  ssize_t n;

  if (cfg.pattern == NULL || fd < 0 || fd == cfg.log_fd)
    return 0;
  snprintf (link, sizeof link, "/proc/self/fd/%d", fd);
  n = readlink (link, path, sizeof path - 1);
  if (n <= 0)
    return 0;
  path[n] = '\0';
  return pattern_matches (path);
}

static int
at_matches (int         dirfd,
            const char *path)
{
  char link[64], full[8192];
  ssize_t n;

  if (cfg.pattern == NULL || path == NULL)
    return 0;
  if (path[0] == '/')
    return pattern_matches (path);
  if (dirfd == AT_FDCWD)
    snprintf (link, sizeof link, "/proc/self/cwd");
  else
    snprintf (link, sizeof link, "/proc/self/fd/%d", dirfd);
  n = readlink (link, full, sizeof full / 2);
  if (n <= 0)
    return 0;
  full[n] = '\0';
  snprintf (full + n, sizeof full - (size_t) n, "/%s", path);
  return pattern_matches (full);
}

/* An unnamed file in the folder @path: matched as "FOLDER/#unnamed". */
static int
tmpfile_matches (int         dirfd,
                 const char *path)
{
  char rel[4096];

  if (strcmp (path, ".") == 0)
    return at_matches (dirfd, "#unnamed");
  snprintf (rel, sizeof rel, "%s/#unnamed", path);
  return at_matches (dirfd, rel);
}

static void
log_fault (const char *call,
           int         fd,
           const char *what)
{
  char line[256];
  int len;

  if (cfg.log_fd < 0)
    return;
  len = snprintf (line, sizeof line, "%s fd %d: %s\n", call, fd, what);
  if (len > 0)
    (void) !real_write (cfg.log_fd, line, (size_t) MIN_LEN (len, (int) sizeof line - 1));
}

/* Decides for a call that matched op and path: 0 = pass, 1 = fail with
 * cfg.error, 2 = go short. Sleeps first when asked to. */
static int
decide (void)
{
  unsigned long n;

  if (cfg.delay_us > 0)
    {
      struct timespec ts = { (time_t) (cfg.delay_us / 1000000), (long) (cfg.delay_us % 1000000) * 1000 };
      nanosleep (&ts, NULL);
    }
  if (cfg.error == 0 && !cfg.short_io)
    return 0;
  n = atomic_fetch_add (&cfg.seen, 1) + 1;
  if (n < cfg.nth || (cfg.count > 0 && n >= cfg.nth + cfg.count))
    return 0;
  return cfg.short_io ? 2 : 1;
}

/* Runs the decision for @fd under @op; returns -1 with errno set to fail, else
 * the count to pass on (maybe shortened). */
static long
gate (unsigned    op,
      const char *call,
      int         match,
      int         fd,
      size_t      count)
{
  int d;

  if (!(cfg.ops & op) || !match)
    return (long) count;
  d = decide ();
  if (d == 1)
    {
      log_fault (call, fd, strerror (cfg.error));
      errno = cfg.error;
      return -1;
    }
  if (d == 2 && count > 1)
    {
      log_fault (call, fd, "short");
      return (long) (count / 2);
    }
  return (long) count;
}

ssize_t
read (int fd, void *buf, size_t count)
{
  long n;

  resolve ();
  n = gate (OP_READ, "read", fd_matches (fd), fd, count);
  return n < 0 ? -1 : real_read (fd, buf, (size_t) n);
}

ssize_t
pread64 (int fd, void *buf, size_t count, off_t offset)
{
  long n;

  resolve ();
  n = gate (OP_READ, "pread", fd_matches (fd), fd, count);
  return n < 0 ? -1 : real_pread (fd, buf, (size_t) n, offset);
}

ssize_t pread (int fd, void *buf, size_t count, off_t offset) __attribute__ ((alias ("pread64")));

ssize_t
write (int fd, const void *buf, size_t count)
{
  long n;

  resolve ();
  n = gate (OP_WRITE, "write", fd_matches (fd), fd, count);
  return n < 0 ? -1 : real_write (fd, buf, (size_t) n);
}

ssize_t
pwrite64 (int fd, const void *buf, size_t count, off_t offset)
{
  long n;

  resolve ();
  n = gate (OP_WRITE, "pwrite", fd_matches (fd), fd, count);
  return n < 0 ? -1 : real_pwrite (fd, buf, (size_t) n, offset);
}

ssize_t pwrite (int fd, const void *buf, size_t count, off_t offset) __attribute__ ((alias ("pwrite64")));

/* The kernel-copy calls: their own op, "read" on the input side, "write" on
 * the output side. */
static long
gate_copy (unsigned    op,
           const char *call,
           int         fd_in,
           int         fd_out,
           size_t      len)
{
  int in = fd_matches (fd_in);
  int out = fd_matches (fd_out);
  long n = (long) len;

  if (n >= 0)
    n = gate (op, call, in || out, in ? fd_in : fd_out, (size_t) n);
  if (n >= 0)
    n = gate (OP_READ, call, in, fd_in, (size_t) n);
  if (n >= 0)
    n = gate (OP_WRITE, call, out, fd_out, (size_t) n);
  return n;
}

ssize_t
copy_file_range (int fd_in, off_t *off_in, int fd_out, off_t *off_out, size_t len, unsigned int flags)
{
  long n;

  resolve ();
  n = gate_copy (OP_COPY_FILE_RANGE, "copy_file_range", fd_in, fd_out, len);
  return n < 0 ? -1 : real_copy_file_range (fd_in, off_in, fd_out, off_out, (size_t) n, flags);
}

ssize_t
splice (int fd_in, off_t *off_in, int fd_out, off_t *off_out, size_t len, unsigned int flags)
{
  long n;

  resolve ();
  n = gate_copy (OP_SPLICE, "splice", fd_in, fd_out, len);
  return n < 0 ? -1 : real_splice (fd_in, off_in, fd_out, off_out, (size_t) n, flags);
}

ssize_t
sendfile64 (int out_fd, int in_fd, off_t *offset, size_t count)
{
  long n;

  resolve ();
  n = gate_copy (OP_SENDFILE, "sendfile", in_fd, out_fd, count);
  return n < 0 ? -1 : real_sendfile (out_fd, in_fd, offset, (size_t) n);
}

ssize_t sendfile (int out_fd, int in_fd, off_t *offset, size_t count) __attribute__ ((alias ("sendfile64")));

int
ioctl (int fd, unsigned long request, ...)
{
  va_list args;
  void *arg;

  va_start (args, request);
  arg = va_arg (args, void *);
  va_end (args);

  resolve ();
  if (request == FICLONE)
    {
      int src = (int) (long) arg;
      int match = fd_matches (fd) || fd_matches (src);

      if (gate (OP_FICLONE, "ficlone", match, fd, 1) < 0)
        return -1;
    }
  return real_ioctl (fd, request, arg);
}

int
fsync (int fd)
{
  resolve ();
  if (gate (OP_FSYNC, "fsync", fd_matches (fd), fd, 1) < 0)
    return -1;
  return real_fsync (fd);
}

int
fdatasync (int fd)
{
  resolve ();
  if (gate (OP_FSYNC, "fdatasync", fd_matches (fd), fd, 1) < 0)
    return -1;
  return real_fdatasync (fd);
}

int
openat64 (int dirfd, const char *path, int flags, ...)
{
  mode_t mode = 0;

  if (flags & (O_CREAT | __O_TMPFILE))
    {
      va_list args;

      va_start (args, flags);
      mode = va_arg (args, mode_t);
      va_end (args);
    }
  resolve ();
  if (gate (OP_OPENAT, "openat",
            (flags & __O_TMPFILE) == __O_TMPFILE ? tmpfile_matches (dirfd, path)
                                                 : at_matches (dirfd, path),
            dirfd, 1) < 0)
    return -1;
  return real_openat (dirfd, path, flags, mode);
}

int openat (int dirfd, const char *path, int flags, ...) __attribute__ ((alias ("openat64")));

int
open64 (const char *path, int flags, ...)
{
  mode_t mode = 0;

  if (flags & (O_CREAT | __O_TMPFILE))
    {
      va_list args;

      va_start (args, flags);
      mode = va_arg (args, mode_t);
      va_end (args);
    }
  resolve ();
  if (gate (OP_OPENAT, "open", at_matches (AT_FDCWD, path), -1, 1) < 0)
    return -1;
  return real_open (path, flags, mode);
}

int open (const char *path, int flags, ...) __attribute__ ((alias ("open64")));
