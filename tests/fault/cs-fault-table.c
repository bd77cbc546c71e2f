/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-fault"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cs-fault-table.h"
#include "cs-tsan-private.h"

#define MAX_FD    65536
#define MAX_RULES 16

typedef struct {
  CsFaultRule rule;
  guint       seen;
  guint       hits;
} Rule;

static CsIoTable table;
static const CsIoTable *real;
static GMutex lock;
static Rule rules[MAX_RULES];
static guint n_rules;
static char *dest_root;
static char *fd_path[MAX_FD];     /* where each descriptor the engine opened points */
static char *fd_name[MAX_FD];     /* the source file it concerns, for sources and temporaries */
static gboolean fd_created[MAX_FD];  /* opened with O_CREAT */
static GHashTable *calls;         /* "op/name" → count */
static guint total_injected;

/* The source a worker opened last: the temporary it creates next is for it. */
static GPrivate last_source = G_PRIVATE_INIT (g_free);

static const char *
lookup_name (int fd)
{
  return fd >= 0 && fd < MAX_FD ? fd_name[fd] : NULL;
}

static gboolean
in_dest_path (const char *path)
{
  gsize len;

  if (dest_root == NULL || path == NULL)
    return FALSE;
  len = strlen (dest_root);
  return strncmp (path, dest_root, len) == 0 && (path[len] == '\0' || path[len] == '/');
}

static gboolean
fd_in_dest (int fd)
{
  gboolean in;

  _cs_mutex_lock (&lock);
  in = fd >= 0 && fd < MAX_FD && in_dest_path (fd_path[fd]);
  _cs_mutex_unlock (&lock);
  return in;
}

static gboolean
at_in_dest (int         dirfd,
            const char *path)
{
  if (path != NULL && path[0] == '/')
    return in_dest_path (path);
  if (dirfd == AT_FDCWD)
    {
      g_autofree char *cwd = g_get_current_dir ();
      g_autofree char *abs = g_build_filename (cwd, path, NULL);
      return in_dest_path (abs);
    }
  return fd_in_dest (dirfd);
}

static void
count_call (CsFaultOp   op,
            const char *name)
{
  char *key = g_strdup_printf ("%d/%s", op, name != NULL ? name : "");
  char *any = g_strdup_printf ("%d/*", op);

  g_hash_table_insert (calls, key, GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (calls, key)) + 1));
  g_hash_table_insert (calls, any, GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (calls, any)) + 1));
}

/* Finds the rule that hits this call, if any; copies it to @out. */
static gboolean
match (CsFaultOp    op,
       const char  *name,
       CsFaultRule *out)
{
  gboolean hit = FALSE;

  _cs_mutex_lock (&lock);
  if (op != CS_FAULT_ANY_DEST)
    count_call (op, name);
  for (guint i = 0; i < n_rules && !hit; i++)
    {
      Rule *r = &rules[i];

      if (r->rule.op != op)
        continue;
      if (r->rule.name != NULL && g_strcmp0 (r->rule.name, name) != 0)
        continue;
      r->seen++;
      if (r->seen >= r->rule.nth && (r->rule.times < 0 || r->seen < r->rule.nth + (guint) r->rule.times))
        {
          r->hits++;
          total_injected++;
          *out = r->rule;
          hit = TRUE;
        }
    }
  _cs_mutex_unlock (&lock);

  return hit;
}

/* Applies an errno-style rule; TRUE when the call must fail now. */
static gboolean
inject (CsFaultOp   op,
        const char *name)
{
  CsFaultRule r;

  if (!match (op, name, &r))
    return FALSE;
  switch (r.action)
    {
    case CS_FAULT_HOOK:
      r.hook (name, r.hook_data);
      return FALSE;
    case CS_FAULT_EINTR:
      errno = EINTR;
      return TRUE;
    case CS_FAULT_ERRNO:
    case CS_FAULT_SHORT:
    case CS_FAULT_ZERO:
    default:
      errno = r.error;
      return TRUE;
    }
}

#define DEST_GUARD(cond) do { if ((cond) && inject (CS_FAULT_ANY_DEST, NULL)) return -1; } while (0)

static int
f_openat (int dirfd, const char *path, int flags, mode_t mode)
{
  /* An unnamed temporary (O_TMPFILE, which includes O_DIRECTORY) is a create. */
  gboolean create = (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE;
  gboolean file = !create && !(flags & O_DIRECTORY);
  g_autofree char *base = g_path_get_basename (path);
  const char *name = create ? g_private_get (&last_source) : file ? base : NULL;
  int fd;

  DEST_GUARD (at_in_dest (dirfd, path));
  if (create || file)
    {
      if (inject (create ? CS_FAULT_CREATE : CS_FAULT_OPEN, name))
        return -1;
    }
  fd = real->openat (dirfd, path, flags, mode);
  if (fd >= 0 && fd < MAX_FD)
    {
      char link[64];
      char target[4096];
      ssize_t n;

      g_snprintf (link, sizeof link, "/proc/self/fd/%d", fd);
      n = readlink (link, target, sizeof target - 1);
      target[MAX (n, 0)] = '\0';
      _cs_mutex_lock (&lock);
      g_free (fd_path[fd]);
      fd_path[fd] = g_strdup (target);
      g_free (fd_name[fd]);
      fd_name[fd] = g_strdup (name);
      fd_created[fd] = (flags & O_CREAT) != 0;
      _cs_mutex_unlock (&lock);
      if (file)
        g_private_replace (&last_source, g_strdup (base));
    }
  return fd;
}

static int
f_close (int fd)
{
  g_autofree char *path = NULL;
  g_autofree char *name = NULL;
  gboolean created = FALSE;
  int r;

  if (fd >= 0 && fd < MAX_FD)
    {
      _cs_mutex_lock (&lock);
      path = g_steal_pointer (&fd_path[fd]);
      name = g_steal_pointer (&fd_name[fd]);
      created = fd_created[fd];
      fd_created[fd] = FALSE;
      _cs_mutex_unlock (&lock);
    }
  r = real->close (fd);
  if (r == 0 && created && in_dest_path (path) && inject (CS_FAULT_CLOSE_STAMP, name))
    utimensat (AT_FDCWD, path, NULL, 0);
  return r;
}

/* A rule on a read or write of *@count bytes: FALSE to go on with the real
 * call (for *@count bytes, maybe fewer now), TRUE to return *@ret instead. */
static gboolean
data_fault (CsFaultOp  op,
            int        fd,
            size_t    *count,
            ssize_t   *ret)
{
  CsFaultRule r;

  if (!match (op, lookup_name (fd), &r))
    return FALSE;
  switch (r.action)
    {
    case CS_FAULT_SHORT:
      *count = MAX (*count / 3, 1);
      return FALSE;
    case CS_FAULT_ZERO:
      *ret = 0;
      return TRUE;
    case CS_FAULT_HOOK:
      r.hook (lookup_name (fd), r.hook_data);
      return FALSE;
    case CS_FAULT_EINTR:
      errno = EINTR;
      *ret = -1;
      return TRUE;
    case CS_FAULT_ERRNO:
    default:
      errno = r.error;
      *ret = -1;
      return TRUE;
    }
}

static ssize_t
f_pread (int fd, void *buf, size_t count, off_t offset)
{
  ssize_t ret;

  if (data_fault (CS_FAULT_READ, fd, &count, &ret))
    return ret;
  return real->pread (fd, buf, count, offset);
}

static ssize_t
f_pwrite (int fd, const void *buf, size_t count, off_t offset)
{
  ssize_t ret;

  DEST_GUARD (fd_in_dest (fd));
  if (data_fault (CS_FAULT_WRITE, fd, &count, &ret))
    return ret;
  return real->pwrite (fd, buf, count, offset);
}

static ssize_t
f_copy_file_range (int fd_in, off_t *off_in, int fd_out, off_t *off_out, size_t len,
                   unsigned int flags)
{
  CsFaultRule r;

  DEST_GUARD (fd_in_dest (fd_out));
  if (match (CS_FAULT_COPY_RANGE, lookup_name (fd_in), &r))
    {
      switch (r.action)
        {
        case CS_FAULT_SHORT:
          return real->copy_file_range (fd_in, off_in, fd_out, off_out, MAX (len / 3, 1), flags);
        case CS_FAULT_ZERO:
          return 0;
        case CS_FAULT_HOOK:
          r.hook (lookup_name (fd_in), r.hook_data);
          break;
        case CS_FAULT_EINTR:
          errno = EINTR;
          return -1;
        case CS_FAULT_ERRNO:
        default:
          errno = r.error;
          return -1;
        }
    }
  return real->copy_file_range (fd_in, off_in, fd_out, off_out, len, flags);
}

static int
f_clone (int dst_fd, int src_fd)
{
  DEST_GUARD (fd_in_dest (dst_fd));
  if (inject (CS_FAULT_CLONE, lookup_name (src_fd)))
    return -1;
  return real->clone (dst_fd, src_fd);
}

static int
f_fsync (int fd)
{
  DEST_GUARD (fd_in_dest (fd));
  if (inject (CS_FAULT_FSYNC, lookup_name (fd)))
    return -1;
  return real->fsync (fd);
}

static int
f_fstat (int fd, struct stat *st)
{
  DEST_GUARD (fd_in_dest (fd));
  if (inject (CS_FAULT_FSTAT, lookup_name (fd)))
    return -1;
  return real->fstat (fd, st);
}

static int
f_fstat_mode (int fd, mode_t *mode)
{
  DEST_GUARD (fd_in_dest (fd));
  if (inject (CS_FAULT_FSTAT, lookup_name (fd)))
    return -1;
  return real->fstat_mode (fd, mode);
}

static int
f_fstatat (int dirfd, const char *path, struct stat *st, int flags)
{
  g_autofree char *base = path != NULL ? g_path_get_basename (path) : NULL;
  gboolean in_dest = at_in_dest (dirfd, path);

  DEST_GUARD (in_dest);
  if (inject (in_dest ? CS_FAULT_STAT_DEST : CS_FAULT_STAT, base))
    return -1;
  return real->fstatat (dirfd, path, st, flags);
}

static int
f_statx (int dirfd, const char *path, int flags, unsigned int mask, struct statx *stx)
{
  g_autofree char *base = path != NULL ? g_path_get_basename (path) : NULL;

  /* Counted (and failed where a rule says), but not a call CS_FAULT_ANY_DEST
   * fails: the tests of a failing destination were written without it. */
  if (at_in_dest (dirfd, path) && inject (CS_FAULT_STATX_DEST, base))
    return -1;
  return real->statx (dirfd, path, flags, mask, stx);
}

static int
f_mkdirat (int dirfd, const char *path, mode_t mode)
{
  DEST_GUARD (at_in_dest (dirfd, path));
  return real->mkdirat (dirfd, path, mode);
}

static int
f_renameat2 (int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
             unsigned int flags)
{
  g_autofree char *base = g_path_get_basename (newpath);

  DEST_GUARD (at_in_dest (newdirfd, newpath));
  if (inject (CS_FAULT_RENAME, base))
    return -1;
  if ((flags & RENAME_NOREPLACE) && inject (CS_FAULT_RENAME_NOREPLACE, base))
    return -1;
  if (!(flags & RENAME_NOREPLACE) && inject (CS_FAULT_RENAME_REPLACE, base))
    return -1;
  return real->renameat2 (olddirfd, oldpath, newdirfd, newpath, flags);
}

static int
f_linkat (int olddirfd, const char *oldpath, int newdirfd, const char *newpath, int flags)
{
  g_autofree char *base = g_path_get_basename (newpath);

  DEST_GUARD (at_in_dest (newdirfd, newpath));
  if (inject (CS_FAULT_LINK, base))
    return -1;
  return real->linkat (olddirfd, oldpath, newdirfd, newpath, flags);
}

static int
f_unlinkat (int dirfd, const char *path, int flags)
{
  DEST_GUARD (at_in_dest (dirfd, path));
  return real->unlinkat (dirfd, path, flags);
}

static int
f_fchmod (int fd, mode_t mode)
{
  DEST_GUARD (fd_in_dest (fd));
  if (inject (CS_FAULT_CHMOD, lookup_name (fd)))
    return -1;
  return real->fchmod (fd, mode);
}

static int
f_futimens (int fd, const struct timespec times[2])
{
  DEST_GUARD (fd_in_dest (fd));
  return real->futimens (fd, times);
}

static int
f_ftruncate (int fd, off_t length)
{
  DEST_GUARD (fd_in_dest (fd));
  return real->ftruncate (fd, length);
}

static int
f_symlinkat (const char *target, int newdirfd, const char *linkpath)
{
  gboolean dest = at_in_dest (newdirfd, linkpath);

  DEST_GUARD (dest);
  if (dest && inject (CS_FAULT_SYMLINK, NULL))
    return -1;
  return real->symlinkat (target, newdirfd, linkpath);
}

static int
f_fsetxattr (int fd, const char *name, const void *value, size_t size, int flags)
{
  DEST_GUARD (fd_in_dest (fd));
  if (inject (CS_FAULT_SETXATTR, lookup_name (fd)))
    return -1;
  return real->fsetxattr (fd, name, value, size, flags);
}

static ssize_t
f_getdents (int fd, void *buf, size_t size)
{
  DEST_GUARD (fd_in_dest (fd));
  return real->getdents (fd, buf, size);
}

void
cs_fault_install (const char *dest)
{
  real = _cs_io_get_default ();
  table = *real;
  table.openat = f_openat;
  table.close = f_close;
  table.pread = f_pread;
  table.pwrite = f_pwrite;
  table.copy_file_range = f_copy_file_range;
  table.clone = f_clone;
  table.fsync = f_fsync;
  table.fstat = f_fstat;
  table.fstat_mode = f_fstat_mode;
  table.fstatat = f_fstatat;
  table.statx = f_statx;
  table.mkdirat = f_mkdirat;
  table.renameat2 = f_renameat2;
  table.linkat = f_linkat;
  table.unlinkat = f_unlinkat;
  table.fchmod = f_fchmod;
  table.futimens = f_futimens;
  table.ftruncate = f_ftruncate;
  table.symlinkat = f_symlinkat;
  table.fsetxattr = f_fsetxattr;
  table.getdents = f_getdents;

  _cs_mutex_lock (&lock);
  n_rules = 0;
  memset (rules, 0, sizeof rules);
  g_free (dest_root);
  dest_root = dest != NULL ? g_canonicalize_filename (dest, NULL) : NULL;
  g_clear_pointer (&calls, g_hash_table_unref);
  calls = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  _cs_mutex_unlock (&lock);

  _cs_io_set (&table);
}

void
cs_fault_add (const CsFaultRule *rule)
{
  _cs_mutex_lock (&lock);
  g_assert_cmpuint (n_rules, <, MAX_RULES);
  rules[n_rules].rule = *rule;
  if (rules[n_rules].rule.nth == 0)
    rules[n_rules].rule.nth = 1;
  n_rules++;
  _cs_mutex_unlock (&lock);
}

void
cs_fault_remove (void)
{
  _cs_io_set (NULL);
  _cs_mutex_lock (&lock);
  for (guint i = 0; i < MAX_FD; i++)
    {
      g_clear_pointer (&fd_path[i], g_free);
      g_clear_pointer (&fd_name[i], g_free);
      fd_created[i] = FALSE;
    }
  _cs_mutex_unlock (&lock);
}

guint
cs_fault_hits (guint rule)
{
  guint hits;

  _cs_mutex_lock (&lock);
  g_assert_cmpuint (rule, <, n_rules);
  hits = rules[rule].hits;
  _cs_mutex_unlock (&lock);
  return hits;
}

guint
cs_fault_calls (CsFaultOp   op,
                const char *name)
{
  g_autofree char *key = g_strdup_printf ("%d/%s", op, name != NULL ? name : "*");
  guint n;

  _cs_mutex_lock (&lock);
  n = calls != NULL ? GPOINTER_TO_UINT (g_hash_table_lookup (calls, key)) : 0;
  _cs_mutex_unlock (&lock);
  return n;
}

guint
cs_fault_total (void)
{
  guint n;

  _cs_mutex_lock (&lock);
  n = total_injected;
  _cs_mutex_unlock (&lock);
  return n;
}
