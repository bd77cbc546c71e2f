/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-io-smb"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libsmbclient.h>
#include <linux/magic.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <glib/gi18n-lib.h>

#include "cs-io-table-private.h"
#include "cs-io-smb-conn-private.h"
#include "cs-io-smb-lock-private.h"
#include "cs-io-smb-private.h"
#include "cs-smb.h"
#include "cs-smb-credentials-private.h"

/*
 * The backend for smb:// locations: the I/O table's calls, each on the
 * connection of the thread that makes it (cs-io-smb-conn.c), a name joined
 * into a URL; a folder's listing in getdents64's records; a partial's lock
 * as a file of its own (cs-io-smb-lock.c).
 */

/* ---- The table ------------------------------------------------------------ */

static int
smb_openat (int dirfd, const char *path, int flags, mode_t mode)
{
  g_autofree char *url = NULL;
  CsSmbConn *conn;
  CsSmbHandle *h;
  SMBCFILE *file = NULL;
  struct stat st;
  int r = 0;

  if ((flags & O_TMPFILE) == O_TMPFILE)
    {
      errno = EOPNOTSUPP;
      return -1;
    }
  if ((url = _cs_io_smb_url_at (dirfd, path)) == NULL || (conn = _cs_io_smb_conn_for (url)) == NULL)
    return -1;

  WITH_CONN (conn)
    {
      if (flags & O_DIRECTORY)
        {
          r = _cs_io_smb_lib.smbc_getFunctionStat (conn->ctx) (conn->ctx, url, &st);
          if (r == 0 && !S_ISDIR (st.st_mode))
            {
              errno = ENOTDIR;
              r = -1;
            }
        }
      else
        {
          int open_flags = flags & (O_ACCMODE | O_CREAT | O_EXCL | O_TRUNC);
          /* A file opened only for writing may not read its own attributes,
           * and each fstat then asks by name (three requests, not one): a new
           * file is opened for reading too, where the share lets it. */
          gboolean also_read = (open_flags & O_ACCMODE) == O_WRONLY && (open_flags & O_CREAT);

          if (also_read)
            file = _cs_io_smb_lib.smbc_getFunctionOpen (conn->ctx) (conn->ctx, url,
                                                     (open_flags & ~O_ACCMODE) | O_RDWR, mode);
          if (!also_read || (file == NULL && errno == EACCES))
            file = _cs_io_smb_lib.smbc_getFunctionOpen (conn->ctx) (conn->ctx, url, open_flags, mode);
          r = file != NULL ? 0 : -1;
        }
    }
  if (r != 0)
    return -1;

  h = g_new0 (CsSmbHandle, 1);
  h->conn = conn;
  g_atomic_int_inc (&conn->refs);
  h->url = g_steal_pointer (&url);
  h->file = file;
  h->folder = (flags & O_DIRECTORY) != 0;
  return _cs_io_smb_handle_add (h);
}

static int
set_times (CsSmbConn            *conn,
           const char           *url,
           const struct timespec times[2])
{
  struct stat st;
  struct timeval tv[2];

  /* UTIME_OMIT and UTIME_NOW ask for what the file has, or the clock. */
  for (int i = 0; i < 2; i++)
    {
      if (times[i].tv_nsec == UTIME_OMIT)
        {
          if (_cs_io_smb_lib.smbc_getFunctionStat (conn->ctx) (conn->ctx, url, &st) != 0)
            return -1;
          tv[i].tv_sec = i == 0 ? st.st_atim.tv_sec : st.st_mtim.tv_sec;
          tv[i].tv_usec = (i == 0 ? st.st_atim.tv_nsec : st.st_mtim.tv_nsec) / 1000;
        }
      else if (times[i].tv_nsec == UTIME_NOW)
        gettimeofday (&tv[i], NULL);
      else
        {
          tv[i].tv_sec = times[i].tv_sec;
          tv[i].tv_usec = times[i].tv_nsec / 1000;
        }
    }
  if (_cs_io_smb_lib.smbc_getFunctionUtimes (conn->ctx) (conn->ctx, url, tv) == 0)
    return 0;
  /* Refused by name, libsmbclient 4.17 opens the file to set the times on a
   * handle (SMBC_setatr's plan B), and a folder fails that open whatever
   * the first refusal was: "Is a directory" told a user whose share would
   * not let them set a folder's times nothing. A local filesystem says
   * EPERM when times may not be set. */
  if (errno == EISDIR)
    errno = EPERM;
  return -1;
}

static int
smb_close (int fd)
{
  CsSmbHandle *h = _cs_io_smb_handle_take (fd);
  int r = 0;

  if (h == NULL)
    return -1;
  if (h->file != NULL)
    WITH_CONN (h->conn)
      {
        if (h->folder)
          r = _cs_io_smb_lib.smbc_getFunctionClosedir (h->conn->ctx) (h->conn->ctx, h->file);
        else
          r = _cs_io_smb_lib.smbc_getFunctionClose (h->conn->ctx) (h->conn->ctx, h->file);
        if (r == 0 && h->has_times)
          r = set_times (h->conn, h->url, h->times);
      }
  _cs_io_smb_conn_unref (h->conn);
  g_free (h->pending);
  g_free (h->url);
  g_free (h);
  return r;
}

/* Moves the server's offset only when it is not where the last call left it. */
static gboolean
seek_to (CsSmbHandle *h,
         off_t        offset)
{
  if (h->pos == offset)
    return TRUE;
  if (_cs_io_smb_lib.smbc_getFunctionLseek (h->conn->ctx) (h->conn->ctx, h->file, offset, SEEK_SET) < 0)
    return FALSE;
  h->pos = offset;
  return TRUE;
}

/* A read or a write at @offset, from the offset the last one left. */
static ssize_t
transfer (int         fd,
          void       *buf,
          size_t      count,
          off_t       offset,
          gboolean    writing)
{
  CsSmbHandle *h = _cs_io_smb_handle_get (fd);
  ssize_t n = -1;

  if (h == NULL || h->folder)
    {
      errno = h == NULL ? EBADF : EISDIR;
      return -1;
    }
  WITH_CONN (h->conn)
    if (seek_to (h, offset))
      {
        SMBCCTX *ctx = h->conn->ctx;

        n = writing ? _cs_io_smb_lib.smbc_getFunctionWrite (ctx) (ctx, h->file, buf, count)
                    : _cs_io_smb_lib.smbc_getFunctionRead (ctx) (ctx, h->file, buf, count);
        h->pos = n >= 0 ? offset + n : -1;
        h->written |= writing && n > 0;
      }
  return n;
}

static ssize_t
smb_pread (int fd, void *buf, size_t count, off_t offset)
{
  return transfer (fd, buf, count, offset, FALSE);
}

/* The buffer is only read: smbc_write takes it as const. */
static ssize_t
smb_pwrite (int fd, const void *buf, size_t count, off_t offset)
{
  return transfer (fd, (void *) buf, count, offset, TRUE);
}

static off_t
smb_lseek (int fd, off_t offset, int whence)
{
  CsSmbHandle *h = _cs_io_smb_handle_get (fd);
  off_t r = -1;

  if (h == NULL)
    return -1;
  if (h->folder || (whence != SEEK_SET && whence != SEEK_CUR && whence != SEEK_END))
    {
      errno = EINVAL;
      return -1;
    }
  WITH_CONN (h->conn)
    {
      r = _cs_io_smb_lib.smbc_getFunctionLseek (h->conn->ctx) (h->conn->ctx, h->file, offset, whence);
      h->pos = r;
    }
  return r;
}

static int
smb_fstat (int fd, struct stat *st)
{
  CsSmbHandle *h = _cs_io_smb_handle_get (fd);
  int r = -1;

  if (h == NULL)
    return -1;
  /* A file opened only for writing may not read its own attributes (the
   * server says EINVAL): then they are asked by name, as lstat asks. */
  WITH_CONN (h->conn)
    {
      if (!h->folder)
        r = _cs_io_smb_lib.smbc_getFunctionFstat (h->conn->ctx) (h->conn->ctx, h->file, st);
      if (r != 0)
        r = _cs_io_smb_lib.smbc_getFunctionStat (h->conn->ctx) (h->conn->ctx, h->url, st);
    }
  if (r == 0)
    _cs_io_smb_fix_stat (st);
  return r;
}

static int
smb_fstat_mode (int fd, mode_t *mode)
{
  struct stat st;

  if (smb_fstat (fd, &st) != 0)
    return -1;
  *mode = st.st_mode;
  return 0;
}

static int
smb_fstatat (int dirfd, const char *path, struct stat *st, int flags)
{
  int r;

  if ((flags & AT_EMPTY_PATH) && path[0] == '\0' && dirfd != CS_IO_AT_LOCATION)
    return smb_fstat (dirfd, st);
  r = BY_NAME (dirfd, path, _cs_io_smb_lib.smbc_getFunctionStat (conn->ctx) (conn->ctx, url, st));
  if (r == 0)
    _cs_io_smb_fix_stat (st);
  return r;
}

static void
statx_timestamp (struct statx_timestamp *t,
                 const struct timespec  *ts)
{
  t->tv_sec = ts->tv_sec;
  t->tv_nsec = (guint32) ts->tv_nsec;
}

static int
smb_statx (int dirfd, const char *path, int flags, unsigned int mask, struct statx *stx)
{
  struct stat st;

  if (smb_fstatat (dirfd, path, &st, flags & AT_EMPTY_PATH) != 0)
    return -1;
  memset (stx, 0, sizeof *stx);
  stx->stx_mask = STATX_BASIC_STATS;
  stx->stx_mode = (guint16) st.st_mode;
  stx->stx_nlink = (guint32) st.st_nlink;
  stx->stx_uid = st.st_uid;
  stx->stx_gid = st.st_gid;
  stx->stx_ino = st.st_ino;
  stx->stx_size = (guint64) st.st_size;
  stx->stx_blocks = (guint64) st.st_blocks;
  stx->stx_blksize = (guint32) st.st_blksize;
  stx->stx_dev_major = major (st.st_dev);
  stx->stx_dev_minor = minor (st.st_dev);
  statx_timestamp (&stx->stx_atime, &st.st_atim);
  statx_timestamp (&stx->stx_mtime, &st.st_mtim);
  statx_timestamp (&stx->stx_ctime, &st.st_ctim);
  return 0;
}

static int
smb_mkdirat (int dirfd, const char *path, mode_t mode)
{
  return BY_NAME (dirfd, path, _cs_io_smb_lib.smbc_getFunctionMkdir (conn->ctx) (conn->ctx, url, mode));
}

/* smbc_rename replaces an existing name (on EEXIST it deletes the target and
 * tries again), so a rename that must not replace is not offered: the engine
 * then publishes by claiming the name with an exclusive create first. */
static int
smb_renameat2 (int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
               unsigned int flags)
{
  g_autofree char *from = NULL;
  g_autofree char *to = NULL;
  CsSmbConn *conn;
  int r = -1;

  if (flags != 0)
    {
      errno = EINVAL;
      return -1;
    }
  if ((from = _cs_io_smb_url_at (olddirfd, oldpath)) == NULL || (to = _cs_io_smb_url_at (newdirfd, newpath)) == NULL
      || (conn = _cs_io_smb_conn_for (from)) == NULL)
    return -1;
  WITH_CONN (conn)
    {
      r = _cs_io_smb_lib.smbc_getFunctionRename (conn->ctx) (conn->ctx, from, conn->ctx, to);
      /* libsmbclient replaces a name with a rename that does not replace,
       * then, on EEXIST, a delete of the name and the rename again; when one
       * of those two fails it says EEXIST, the first attempt's answer,
       * whatever the cause, and the engine takes the name for another's.
       * Seen when the server's process ends between them: smbd 4.17 panics
       * now and then in closing the deleted name ("Could not store share
       * mode data"; 1,000 files at 8 threads on the lab Samba with 1 ms
       * per request: 2 to 6 files a copy failed so). Asked again, the
       * library connects anew where the connection was lost and finishes
       * the rename, or answers as it finds the names now. */
      if (r != 0 && errno == EEXIST)
        r = _cs_io_smb_lib.smbc_getFunctionRename (conn->ctx) (conn->ctx, from, conn->ctx, to);
    }
  return r;
}

static int
smb_unlinkat (int dirfd, const char *path, int flags)
{
  if (flags & AT_REMOVEDIR)
    return BY_NAME (dirfd, path, _cs_io_smb_lib.smbc_getFunctionRmdir (conn->ctx) (conn->ctx, url));
  return BY_NAME (dirfd, path, _cs_io_smb_lib.smbc_getFunctionUnlink (conn->ctx) (conn->ctx, url));
}

static int
smb_futimens (int fd, const struct timespec times[2])
{
  CsSmbHandle *h = _cs_io_smb_handle_get (fd);
  int r = -1;

  if (h == NULL)
    return -1;
  /* smbc_utimes sets them by name, on a handle of its own; the server then
   * stamps the write time of the handle that wrote the data when that one
   * closes, or two seconds after its first write (Samba's delayed write
   * time), whichever comes after ours: set on a written file, the times
   * are set once it is closed. */
  if (!h->folder && h->written)
    {
      memcpy (h->times, times, sizeof h->times);
      h->has_times = TRUE;
      return 0;
    }
  WITH_CONN (h->conn)
    r = set_times (h->conn, h->url, times);
  return r;
}

static int
smb_utimensat (int dirfd, const char *path, const struct timespec times[2], int flags)
{
  if (path == NULL || path[0] == '\0')
    return smb_futimens (dirfd, times);
  return BY_NAME (dirfd, path, set_times (conn, url, times));
}

static int
smb_ftruncate (int fd, off_t length)
{
  CsSmbHandle *h = _cs_io_smb_handle_get (fd);
  int r = -1;

  if (h == NULL)
    return -1;
  WITH_CONN (h->conn)
    r = _cs_io_smb_lib.smbc_getFunctionFtruncate (h->conn->ctx) (h->conn->ctx, h->file, length);
  return r;
}

static unsigned char
dirent_type (unsigned int smbc_type)
{
  switch (smbc_type)
    {
    case SMBC_DIR:
      return DT_DIR;
    case SMBC_FILE:
      return DT_REG;
    case SMBC_LINK:
      return DT_LNK;
    default:
      return DT_UNKNOWN;
    }
}

/* Puts @d into @buf as getdents64 would; FALSE when it does not fit. */
static gboolean
put_dirent (const struct smbc_dirent *d,
            char                     *buf,
            size_t                    size,
            size_t                   *used)
{
  struct linux_dirent64 *out = (struct linux_dirent64 *) (buf + *used);
  size_t len = strlen (d->name);
  size_t reclen = (offsetof (struct linux_dirent64, d_name) + len + 1 + 7) & ~(size_t) 7;

  if (*used + reclen > size)
    return FALSE;
  memset (out, 0, reclen);
  out->d_ino = 1;  /* SMB has no inode numbers in a listing; 0 would mean "deleted" */
  out->d_off = 0;
  out->d_reclen = (unsigned short) reclen;
  out->d_type = dirent_type (d->smbc_type);
  memcpy (out->d_name, d->name, len + 1);
  *used += reclen;
  return TRUE;
}

static ssize_t
smb_getdents (int fd, void *buf, size_t size)
{
  CsSmbHandle *h = _cs_io_smb_handle_get (fd);
  size_t used = 0;
  ssize_t r = 0;

  if (h == NULL)
    return -1;
  if (!h->folder)
    {
      errno = ENOTDIR;
      return -1;
    }
  WITH_CONN (h->conn)
    {
      struct smbc_dirent *d;

      if (h->file == NULL)
        h->file = _cs_io_smb_lib.smbc_getFunctionOpendir (h->conn->ctx) (h->conn->ctx, h->url);
      if (h->file == NULL)
        r = -1;
      else if (h->pending != NULL && !put_dirent (h->pending, buf, size, &used))
        {
          errno = EINVAL;
          r = -1;
        }
      else
        {
          g_clear_pointer (&h->pending, g_free);
          while ((d = _cs_io_smb_lib.smbc_getFunctionReaddir (h->conn->ctx) (h->conn->ctx, h->file)) != NULL)
            if (!put_dirent (d, buf, size, &used))
              {
                h->pending = g_memdup2 (d, d->dirlen);
                break;
              }
          r = (ssize_t) used;
        }
    }
  return r;
}

/* The stat libsmbclient's readdirplus2 gives @info (its setup_stat: the
 * type, and the mode bits, from the DOS attributes; the owner, the device
 * and the link count as a stat by name gives them), with @like's device
 * and owner: an entry of the same listing the library made the stat of.
 * The inode number stays 0: a listing's is never compared (SMB.md). */
static void
stat_of_listed (const struct libsmb_file_info *info,
                const struct stat             *like,
                struct stat                   *st)
{
  gboolean folder = (info->attrs & SMBC_DOS_MODE_DIRECTORY) != 0;

  memset (st, 0, sizeof *st);
  st->st_mode = folder ? S_IFDIR | 0555 : S_IFREG | 0444;
  if (info->attrs & SMBC_DOS_MODE_ARCHIVE)
    st->st_mode |= S_IXUSR;
  if (info->attrs & SMBC_DOS_MODE_SYSTEM)
    st->st_mode |= S_IXGRP;
  if (info->attrs & SMBC_DOS_MODE_HIDDEN)
    st->st_mode |= S_IXOTH;
  if (!(info->attrs & SMBC_DOS_MODE_READONLY))
    st->st_mode |= S_IWUSR;
  st->st_size = (off_t) info->size;
  st->st_blksize = 512;
  st->st_blocks = (blkcnt_t) ((info->size + 511) / 512);
  st->st_nlink = folder ? 2 : 1;
  st->st_uid = like->st_uid;
  st->st_gid = like->st_gid;
  st->st_dev = like->st_dev;
  st->st_atim = info->atime_ts;
  st->st_ctim = info->ctime_ts;
  st->st_mtim = info->mtime_ts;
}

static gboolean
same_listed_stat (const struct stat *a,
                  const struct stat *b)
{
  return a->st_mode == b->st_mode && a->st_size == b->st_size && a->st_nlink == b->st_nlink
         && a->st_uid == b->st_uid && a->st_gid == b->st_gid && a->st_dev == b->st_dev
         && a->st_blocks == b->st_blocks && a->st_blksize == b->st_blksize
         && a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec
         && a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec
         && a->st_atim.tv_sec == b->st_atim.tv_sec && a->st_atim.tv_nsec == b->st_atim.tv_nsec;
}

/* Set once readdirplus2 gave a stat stat_of_listed would not make. */
static atomic_int library_stats_only;

/*
 * The whole folder in one listing, on a directory handle of its own so a
 * getdents under way on @fd keeps its place: libsmbclient's opendir asks
 * the server for every entry with its attributes (a few requests per
 * thousand entries), and readdirplus2 hands each with the stat a stat by
 * name would give, without asking again. But it makes that stat after
 * parsing the folder's URL again with the entry's name (SMBC_parse_path,
 * which sets the context's credentials from Samba's configuration, a scan
 * of its parameter table by name per entry): a fifth of a no-op rerun's
 * CPU (20,000 files, 0.2 s). So readdirplus2 gives entries until it has
 * given a folder and a file whose stats stat_of_listed makes alike, and
 * readdirplus the others, stat_of_listed making their stats; should the
 * library make one otherwise, it makes all, for the rest of the run.
 */
/* Lists @url with its entries' stats on @conn, which the caller holds. */
static int
list_folder (CsSmbConn  *conn,
             const char *url,
             GPtrArray  *entries)
{
  SMBCCTX *ctx = conn->ctx;
  SMBCFILE *folder = _cs_io_smb_lib.smbc_getFunctionOpendir (ctx) (ctx, url);
  smbc_readdirplus_fn plus = _cs_io_smb_lib.smbc_getFunctionReaddirPlus != NULL
                             ? _cs_io_smb_lib.smbc_getFunctionReaddirPlus (ctx) : NULL;
  smbc_readdirplus2_fn plus2 = _cs_io_smb_lib.smbc_getFunctionReaddirPlus2 (ctx);
  gboolean folder_alike = FALSE, file_alike = FALSE;
  const struct libsmb_file_info *info;
  struct stat like;
  struct stat st;

  if (folder == NULL)
    return -1;
  memset (&like, 0, sizeof like);
  memset (&st, 0, sizeof st);
  if (atomic_load_explicit (&library_stats_only, memory_order_relaxed))
    plus = NULL;
  for (;;)
    {
      gboolean ours = plus != NULL && folder_alike && file_alike;

      info = ours ? plus (ctx, folder) : plus2 (ctx, folder, &st);
      if (info == NULL)
        break;
      if (ours)
        stat_of_listed (info, &like, &st);
      else if (plus != NULL)
        {
          struct stat mine;

          stat_of_listed (info, &st, &mine);
          if (!same_listed_stat (&mine, &st))
            {
              if (!atomic_exchange (&library_stats_only, 1))
                g_debug ("readdirplus2 made a stat otherwise than its setup_stat did (mode %o, %o made): "
                         "each entry's comes from it", (unsigned) st.st_mode, (unsigned) mine.st_mode);
              plus = NULL;
            }
          else if (S_ISDIR (st.st_mode))
            folder_alike = TRUE;
          else
            file_alike = TRUE;
          like = st;
        }
      if (info->name != NULL && strcmp (info->name, ".") != 0 && strcmp (info->name, "..") != 0)
        {
          _cs_io_smb_fix_stat (&st);
          g_ptr_array_add (entries, _cs_io_listed_new (info->name, &st));
        }
      memset (&st, 0, sizeof st);
    }
  _cs_io_smb_lib.smbc_getFunctionClosedir (ctx) (ctx, folder);
  return 0;
}

static int
smb_readdirplus (int fd, GPtrArray *entries)
{
  CsSmbHandle *h = _cs_io_smb_handle_get (fd);
  int r = 0;

  if (h == NULL)
    return -1;
  if (!h->folder)
    {
      errno = ENOTDIR;
      return -1;
    }
  if (_cs_io_smb_lib.smbc_getFunctionReaddirPlus2 == NULL)
    {
      errno = ENOTSUP;
      return -1;
    }
  WITH_CONN (h->conn)
    r = list_folder (h->conn, h->url, entries);
  return r;
}

/* A folder's handle needs no request of its own (smb_openat only asks
 * whether a folder is there): the listing, which fails on anything else
 * (ENOENT, ENOTDIR), asks that and lists it in one. */
static int
smb_openat_listed (int dirfd, const char *path, int flags, GPtrArray *entries, gboolean *out_listed)
{
  g_autofree char *url = NULL;
  CsSmbConn *conn;
  CsSmbHandle *h;
  int r = 0;

  *out_listed = FALSE;
  if (_cs_io_smb_lib.smbc_getFunctionReaddirPlus2 == NULL || !(flags & O_DIRECTORY))
    return smb_openat (dirfd, path, flags, 0);
  if ((url = _cs_io_smb_url_at (dirfd, path)) == NULL || (conn = _cs_io_smb_conn_for (url)) == NULL)
    return -1;
  /* A connection not set up by a stat of its share's root connects in its
   * first call, alone (cs-io-smb-conn.c): a short one then, the open's
   * stat, or the threads' first listings (a tenth of a second each behind
   * 1 ms of latency) would follow one another. */
  if (!_cs_io_smb_conn_connected (conn))
    {
      int fd = smb_openat (dirfd, path, flags, 0);

      *out_listed = fd >= 0 && smb_readdirplus (fd, entries) == 0;
      return fd;
    }
  WITH_CONN (conn)
    r = list_folder (conn, url, entries);
  if (r != 0)
    return -1;
  *out_listed = TRUE;

  h = g_new0 (CsSmbHandle, 1);
  h->conn = conn;
  g_atomic_int_inc (&conn->refs);
  h->url = g_steal_pointer (&url);
  h->folder = TRUE;
  return _cs_io_smb_handle_add (h);
}

static int
unsupported (void)
{
  errno = EOPNOTSUPP;
  return -1;
}

/* The length of "smb://[user@]server[:port]/share" in @url. */
static gsize
share_prefix_len (const char *url)
{
  const char *p = strchr (url + strlen ("smb://"), '/');

  if (p == NULL)
    return strlen (url);
  p = strchr (p + 1, '/');
  return p != NULL ? (gsize) (p - url) : strlen (url);
}

static int
splice_go_on (off_t  n,
              void  *data)
{
  return 1;
}

/*
 * A copy the server makes itself (SMB2 copy-chunk, as Windows Explorer asks
 * for one), where both files are on one share: no byte crosses the network.
 * libsmbclient does it for two files open in one context on one tree
 * connection; else it would copy through the client, which the engine's
 * own reads and writes do already, counted.
 */
static ssize_t
smb_copy_file_range (int fd_in, off_t *off_in, int fd_out, off_t *off_out, size_t len,
                     unsigned int flags)
{
  CsSmbHandle *in = _cs_io_smb_handle_get (fd_in);
  CsSmbHandle *out = _cs_io_smb_handle_get (fd_out);
  gsize prefix;
  off_t n = -1;

  if (in == NULL || out == NULL)
    return -1;
  /* Files on two shares stay so for the whole job; two connections (a big
   * file's temporary opened by another worker) the copy chain avoids. */
  prefix = share_prefix_len (in->url);
  if (in->folder || out->folder || off_in == NULL || off_out == NULL || in->conn != out->conn
      || prefix != share_prefix_len (out->url) || strncmp (in->url, out->url, prefix) != 0)
    return unsupported ();

  WITH_CONN (in->conn)
    if (seek_to (in, *off_in) && seek_to (out, *off_out))
      {
        SMBCCTX *ctx = in->conn->ctx;

        n = _cs_io_smb_lib.smbc_getFunctionSplice (ctx) (ctx, in->file, out->file, (off_t) len,
                                             splice_go_on, NULL);
        in->pos = n >= 0 ? *off_in + n : -1;
        out->pos = n >= 0 ? *off_out + n : -1;
        out->written |= n > 0;
      }
  if (n > 0)
    {
      *off_in += n;
      *off_out += n;
    }
  return n;
}

static int
smb_clone (int dst_fd, int src_fd)
{
  return unsupported ();
}

/* libsmbclient has no flush; the server has the bytes once a write returns,
 * and a close ends the handle's caching on the server's side. */
static int
smb_fsync (int fd)
{
  return _cs_io_smb_handle_get (fd) != NULL ? 0 : -1;
}

static int
smb_syncfs (int fd)
{
  return smb_fsync (fd);
}

static int
smb_linkat (int olddirfd, const char *oldpath, int newdirfd, const char *newpath, int flags)
{
  return unsupported ();
}

/* Modes and owners are the server's business: SMB shares map them from
 * their own ACLs and users. Saying so lets the engine report it once. */
static int
smb_fchmod (int fd, mode_t mode)
{
  return unsupported ();
}

static int
smb_fchown (int fd, uid_t uid, gid_t gid)
{
  return unsupported ();
}

static int
smb_fchownat (int dirfd, const char *path, uid_t uid, gid_t gid, int flags)
{
  return unsupported ();
}

static int
smb_fchmodat (int dirfd, const char *path, mode_t mode, int flags)
{
  return unsupported ();
}

static ssize_t
smb_readlinkat (int dirfd, const char *path, char *buf, size_t size)
{
  errno = EINVAL;
  return -1;
}

static int
smb_symlinkat (const char *target, int newdirfd, const char *linkpath)
{
  return unsupported ();
}

static int
smb_mknodat (int dirfd, const char *path, mode_t mode, dev_t dev)
{
  return unsupported ();
}

static ssize_t
smb_flistxattr (int fd, char *list, size_t size)
{
  return unsupported ();
}

static ssize_t
smb_fgetxattr (int fd, const char *name, void *value, size_t size)
{
  return unsupported ();
}

static int
smb_fsetxattr (int fd, const char *name, const void *value, size_t size, int flags)
{
  return unsupported ();
}

/* A share is one tree: nothing is mounted inside it as far as a client sees. */
static int
smb_mount_root (int dirfd, const char *path)
{
  return 0;
}

/* The connection's set-up (a negotiation, a login, a tree connect and a
 * look at the share's root: on the lab share behind 1 ms, 55 ms) made
 * before the thread's first call, as that call would make it. */
static int
smb_connect (int dirfd, const char *path)
{
  g_autofree char *url = _cs_io_smb_url_at (dirfd, path);

  return url != NULL && _cs_io_smb_conn_for (url) != NULL ? 0 : -1;
}

/* The engine asks what the filesystem is to learn that each create and
 * rename is a round trip to another machine. */
static int
smb_fstatfs (int fd, struct statfs *sfs)
{
  if (_cs_io_smb_handle_get (fd) == NULL)
    return -1;
  memset (sfs, 0, sizeof *sfs);
  sfs->f_type = SMB2_SUPER_MAGIC;
  sfs->f_bsize = 4096;
  sfs->f_namelen = 255;
  return 0;
}

static int
smb_fadvise (int fd, off_t offset, off_t len, int advice)
{
  return 0;
}

/* A missing share reads as ENOENT, like a missing folder in it: ask for
 * smb://host/share itself, so the message can name what is really missing. */
static char *
smb_explain_missing (const char *location)
{
  g_autoptr(GUri) uri = g_uri_parse (location, G_URI_FLAGS_NON_DNS, NULL);
  g_autofree char *root = NULL;
  g_autofree char *share = NULL;
  const char *start, *end;
  struct stat st;

  if (uri == NULL || g_uri_get_host (uri) == NULL)
    return NULL;
  /* The share is the first segment after the authority, as written. */
  start = strchr (location + strlen ("smb://"), '/');
  if (start == NULL)
    return NULL;
  while (*start == '/')
    start++;
  end = strchrnul (start, '/');
  if (end == start)
    return NULL;
  root = g_strndup (location, (gsize) (end - location));
  if (smb_fstatat (CS_IO_AT_LOCATION, root, &st, 0) == 0 || errno != ENOENT)
    return NULL;
  share = g_uri_unescape_segment (start, end, NULL);
  return g_strdup_printf (_("The server %s has no share named “%s”"), g_uri_get_host (uri),
                          share != NULL ? share : root);
}

/* A partial's lock: a file of its own (cs-io-smb-lock.c), through this table. */
static int
smb_lock (int fd, int dirfd, const char *name)
{
  return _cs_io_smb_lock (&_cs_io_smb, fd, dirfd, name);
}

static int
smb_unlock (int fd, int dirfd, const char *name)
{
  return _cs_io_smb_unlock (&_cs_io_smb, fd, dirfd, name);
}

const CsIoTable _cs_io_smb = {
  .name = "smb",
  .cannot_flush = TRUE,
  .replace_deletes_first = TRUE,
  .scheme = "smb://",
  .openat = smb_openat,
  .close = smb_close,
  .pread = smb_pread,
  .pwrite = smb_pwrite,
  .copy_file_range = smb_copy_file_range,
  .clone = smb_clone,
  .fsync = smb_fsync,
  .fstat = smb_fstat,
  .fstat_mode = smb_fstat_mode,
  .statx = smb_statx,
  .fstatat = smb_fstatat,
  .mkdirat = smb_mkdirat,
  .renameat2 = smb_renameat2,
  .linkat = smb_linkat,
  .unlinkat = smb_unlinkat,
  .fchmod = smb_fchmod,
  .fchown = smb_fchown,
  .futimens = smb_futimens,
  .utimensat = smb_utimensat,
  .fchownat = smb_fchownat,
  .ftruncate = smb_ftruncate,
  .lseek = smb_lseek,
  .readlinkat = smb_readlinkat,
  .symlinkat = smb_symlinkat,
  .mknodat = smb_mknodat,
  .fchmodat = smb_fchmodat,
  .getdents = smb_getdents,
  .readdirplus = smb_readdirplus,
  .openat_listed = smb_openat_listed,
  .syncfs = smb_syncfs,
  .flistxattr = smb_flistxattr,
  .fgetxattr = smb_fgetxattr,
  .fsetxattr = smb_fsetxattr,
  .mount_root = smb_mount_root,
  .explain_missing = smb_explain_missing,
  .fstatfs = smb_fstatfs,
  .fadvise = smb_fadvise,
  .lock = smb_lock,
  .unlock = smb_unlock,
  .connect = smb_connect,
  .describe = _cs_io_smb_describe,
};
