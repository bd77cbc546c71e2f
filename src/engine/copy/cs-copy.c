/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-copy"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <xxhash.h>

#include "cs-copy-private.h"
#include "cs-dest-fs-private.h"
#include "cs-dir-private.h"
#include "cs-errno-private.h"
#include "cs-job-private.h"
#include "cs-metadata-private.h"
#include "cs-links-private.h"
#include "cs-move-private.h"
#include "cs-names-private.h"
#include "cs-resume-private.h"
#include "cs-stage-private.h"
#include "cs-tweak-private.h"
#include "cs-xattrs-private.h"

/*
 * One file: written to a hidden temporary next to its final name, checked, given
 * its metadata, and only then renamed into place. A file under its final name is
 * always complete; a cancel, a kill or an error leaves at most a temporary that
 * the next run recognises and removes.
 */

/* The worker's buffer also holds an extended attribute's list and value. */
G_STATIC_ASSERT (CS_BUFFER_SIZE >= CS_XATTRS_BUFFER_SIZE);

typedef struct {
  int         code;     /* errno or CS_ERR_*; 0 = success */
  const char *op;
} Outcome;

#define OK ((Outcome) { 0, NULL })

static inline Outcome
fail (int         code,
      const char *op)
{
  /* When a FUSE server dies (sshfs killed, a share's daemon crashing), the
   * requests in flight get ECONNABORTED and every later one ENOTCONN: the same
   * vanished destination. A server spoken to directly (SMB) that dies refuses
   * the next connection or drops the one in use (a reset, or a broken pipe
   * to a request sent as it went): the same. No file the engine writes is a
   * pipe or a socket, so these come from a connection only. */
  if (code == ECONNABORTED || code == ECONNREFUSED || code == ENETRESET || code == ECONNRESET
      || code == EPIPE)
    code = ENOTCONN;
  return (Outcome) { code, op };
}

static const char *
outcome_message (int code)
{
  switch (code)
    {
    case CS_ERR_SOURCE_CHANGED:
      return "The source file changed while it was copied";
    case CS_ERR_MISMATCH:
      return "Verification failed: the copy differs from the source";
    case CS_ERR_APPEARED:
      return "Another program created this file during the copy; it was left untouched";
    case CS_ERR_NOT_HELD:
      return "The destination cannot hold symbolic links";
    case CS_ERR_DEST_REMOVED:
      return CS_DEST_REMOVED_MESSAGE;
    default:
      return code > 0 && _cs_is_fatal_errno (code) ? _cs_fatal_message (code) : NULL;
    }
}

/* Whether @code stops the whole job: a destination that is full, gone, or
 * had a folder removed from under the copy. */
static gboolean
is_fatal (int code)
{
  return (code > 0 && _cs_is_fatal_errno (code)) || code == CS_ERR_DEST_REMOVED;
}

/* The first file to meet a fatal error names it, and the job stops; files
 * that meet it after are cancelled, not a stream of identical errors. */
static void
settle_fatal (CsJob   *job,
              Outcome *o)
{
  if (_cs_job_fatal (job, outcome_message (o->code)))
    job->fatal_reported = TRUE;
  else
    o->code = CS_ERR_STOPPED;
}

/* A file that failed with an errno: its destination folder may be gone,
 * removed by someone while we wrote into it (creating in it then answers
 * ENOENT, or EPERM for an unnamed temporary). One fstat, on failures only. */
static Outcome
check_removed (CsJob   *job,
               CsDir   *dir,
               Outcome  o)
{
  if (o.code > 0 && !is_fatal (o.code) && _cs_dir_dst_removed (job, dir))
    o.code = CS_ERR_DEST_REMOVED;
  return o;
}

static gboolean
is_retriable (int code)
{
  switch (code)
    {
    case EIO:
    case EAGAIN:
    case EBUSY:
    case ETIMEDOUT:
    case ECONNRESET:
    case EMFILE:
    case ENFILE:
    case ENOMEM:
    case CS_ERR_SOURCE_CHANGED:
      return TRUE;
    default:
      return FALSE;
    }
}

static gboolean
same_time (const struct timespec *a,
           const struct timespec *b)
{
  return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* The precision a destination keeps shows in its stamp: trailing zeros in
 * the nanoseconds (a multiple of 10^6 for a share with milliseconds), none at
 * all for whole seconds, and an even whole second for a share that keeps 2 s
 * (FAT, and the NAS appliances built on it, like Robocopy's /FFT).  A stamp
 * that looks coarse by chance only makes the comparison of that one file
 * coarser: its size must still match. */
static gint64
kept_precision_ns (const struct stat *dst)
{
  long nsec = dst->st_mtim.tv_nsec;
  gint64 g = 1;

  if (nsec == 0)
    return (dst->st_mtim.tv_sec % 2 == 0 ? 2 : 1) * G_GINT64_CONSTANT (1000000000);
  while (g < G_GINT64_CONSTANT (1000000000) && nsec % (g * 10) == 0)
    g *= 10;
  return g;
}

/* @dst minus @src in ns, clamped to ±4 s: only differences up to 2 s matter. */
static gint64
mtime_diff_ns (const struct stat *dst,
               const struct stat *src)
{
  gint64 secs = (gint64) dst->st_mtim.tv_sec - (gint64) src->st_mtim.tv_sec;

  secs = CLAMP (secs, -4, 4);
  return secs * G_GINT64_CONSTANT (1000000000) + (dst->st_mtim.tv_nsec - src->st_mtim.tv_nsec);
}

/* Equal at the precision the destination keeps, whether the share rounded the
 * time down or up. */
static gboolean
same_mtime (const struct stat *dst,
            const struct stat *src)
{
  gint64 d = mtime_diff_ns (dst, src);

  return ABS (d) < kept_precision_ns (dst);
}

static gboolean
newer (const struct stat *dst,
       const struct stat *src)
{
  return mtime_diff_ns (dst, src) >= kept_precision_ns (dst);
}

/* Whether the source changed (was written, replaced, renamed into place)
 * after the destination file was last written: then a destination with a
 * later modification time is a copy of what the source was, not a newer
 * file, as when a source is replaced by an older-dated one (a version
 * restored from a backup). To the nanosecond where the destination keeps
 * them, else by whole seconds, as a share may keep no more. */
static gboolean
changed_since (const struct stat *src,
               const struct stat *dst)
{
  if (dst->st_ctim.tv_sec == 0)
    return FALSE;   /* a filesystem that shows no change time */
  if (dst->st_ctim.tv_nsec == 0)
    return src->st_ctim.tv_sec > dst->st_ctim.tv_sec;
  return src->st_ctim.tv_sec > dst->st_ctim.tv_sec
         || (src->st_ctim.tv_sec == dst->st_ctim.tv_sec && src->st_ctim.tv_nsec > dst->st_ctim.tv_nsec);
}

/* The text of a claim (see publish_claimed); returns its length. */
static gsize
placeholder_text (CsJob *job,
                  char  *buf,
                  gsize  size)
{
  return (gsize) g_snprintf (buf, size, CS_PLACEHOLDER_PREFIX "%s\n", job->job_tag);
}

/* Whether @name, with @st from lstat, is a claim of any run of ours: exactly the
 * claim's size, ours, and the claim's text with some job tag. Only files of
 * that exact size are opened, so this costs nothing on ordinary files. */
static gboolean
is_placeholder (CsJob             *job,
                CsDir             *dir,
                const char        *name,
                const struct stat *st)
{
  char text[CS_PLACEHOLDER_SIZE + 1];
  const gsize prefix = sizeof CS_PLACEHOLDER_PREFIX - 1;
  ssize_t n;
  int fd;

  if (!S_ISREG (st->st_mode) || st->st_size != (off_t) CS_PLACEHOLDER_SIZE
      || st->st_uid != job->euid)
    return FALSE;
  fd = _cs_io_openat (&job->counters, dir->dst_fd, name, O_RDONLY | O_NOFOLLOW, 0);
  if (fd < 0)
    return FALSE;
  n = _cs_io_pread (&job->counters, fd, text, sizeof text, 0);
  _cs_io_close (&job->counters, fd);
  if (n != (ssize_t) CS_PLACEHOLDER_SIZE || memcmp (text, CS_PLACEHOLDER_PREFIX, prefix) != 0
      || text[CS_PLACEHOLDER_SIZE - 1] != '\n')
    return FALSE;
  for (gsize i = prefix; i < CS_PLACEHOLDER_SIZE - 1; i++)
    if (!g_ascii_isxdigit (text[i]))
      return FALSE;

  return TRUE;
}

const char *
_cs_copy_type_name (mode_t mode)
{
  switch (mode & S_IFMT)
    {
    case S_IFDIR:
      return "a folder";
    case S_IFLNK:
      return "a symbolic link";
    case S_IFREG:
      return "a file";
    case S_IFIFO:
      return "a FIFO";
    case S_IFCHR:
      return "a character device";
    case S_IFBLK:
      return "a block device";
    case S_IFSOCK:
      return "a socket";
    default:
      return "something else";
    }
}

/* any worker, or the scanner for big files and dry runs */
CsAction
_cs_copy_decide (CsJob             *job,
                 CsDir             *dir,
                 const char        *name,
                 const char        *dst_name,
                 const struct stat *src)
{
  struct stat dst;

  if (dir->dst_new)
    return CS_ACTION_COPY;

  if (_cs_io_fstatat (&job->counters, dir->dst_fd, dst_name, &dst, AT_SYMLINK_NOFOLLOW) != 0)
    {
      if (errno == ENOENT)
        return CS_ACTION_COPY;
      _cs_job_report_item (job, dir, name, dst_name, (guint64) src->st_size, FALSE,
                           "stat destination", errno, NULL, 1);
      return CS_ACTION_FAIL;
    }

  /* A claim a killed run left: ours, holding no data, replaced like a
   * temporary — with its text, or killed before the text was written. */
  if (!S_ISDIR (dst.st_mode)
      && (is_placeholder (job, dir, dst_name, &dst) || _cs_dir_is_unwritten_claim (dir, dst_name, &dst)))
    return CS_ACTION_REPLACE;

  /* Another kind of entry under the name: times of a link and a file say
   * nothing about which is newer, and a folder is never replaced by a file
   * here. A mirror lists it with its extras and replaces it once they are
   * deleted (cs-mirror.c); a copy leaves it and says so, unless told to
   * replace whatever is there (the name is renamed over, never written
   * through). */
  if ((dst.st_mode & S_IFMT) != (src->st_mode & S_IFMT)
      && (S_ISDIR (dst.st_mode) || job->settings.overwrite != CS_OVERWRITE_ALWAYS))
    {
      g_autofree char *message = g_strdup_printf ("Not replaced: the destination is %s, the source %s",
                                                  _cs_copy_type_name (dst.st_mode),
                                                  _cs_copy_type_name (src->st_mode));

      _cs_job_report_item (job, dir, name, dst_name, (guint64) src->st_size, FALSE, "replace",
                           S_ISDIR (dst.st_mode) ? EISDIR : EEXIST, message, 1);
      return CS_ACTION_FAIL;
    }

  if (job->settings.overwrite == CS_OVERWRITE_ALWAYS)
    return CS_ACTION_REPLACE;
  if (dst.st_size == src->st_size && same_mtime (&dst, src)
      && (!(S_ISCHR (src->st_mode) || S_ISBLK (src->st_mode)) || dst.st_rdev == src->st_rdev))
    {
      /* The data is there; its mode, owner, attributes may not be. */
      _cs_tweak_metadata (job, dir, name, dst_name, src, &dst);
      return CS_ACTION_SKIP;
    }

  switch (job->settings.overwrite)
    {
    case CS_OVERWRITE_NEVER:
      return CS_ACTION_SKIP_KEPT;
    case CS_OVERWRITE_DIFFERENT:
      return CS_ACTION_REPLACE;
    case CS_OVERWRITE_NEWER:
      return newer (&dst, src) && !changed_since (src, &dst) ? CS_ACTION_SKIP_NEWER : CS_ACTION_REPLACE;
    case CS_OVERWRITE_ASK:
      {
        gboolean all = FALSE;

        switch (_cs_job_ask (job, dir, dst_name, src, &dst, &all))
          {
          case CS_CONFLICT_REPLACE:
            return CS_ACTION_REPLACE;
          case CS_CONFLICT_KEEP_BOTH:
            return CS_ACTION_KEEP_BOTH;
          case CS_CONFLICT_SKIP:
          default:
            return CS_ACTION_SKIP_KEPT;
          }
      }
    case CS_OVERWRITE_ALWAYS:
    default:
      return CS_ACTION_REPLACE;
    }
}

static gboolean on_share (int fd);

/* scanner thread */
gboolean
_cs_copy_decide_identical (CsJob             *job,
                           CsDir             *dir,
                           const char        *name,
                           const char        *dst_name,
                           const struct stat *src)
{
  struct stat dst;

  /* What a worker's decision would skip as identical, by the same rules in
   * the same order (_cs_copy_decide), and nothing else: all that decision
   * reports, asks or replaces stays with the worker. */
  if (dir->dst_new || dir->dst_fd < 0 || job->settings.overwrite == CS_OVERWRITE_ALWAYS
      || _cs_io_fstatat (&job->counters, dir->dst_fd, dst_name, &dst, AT_SYMLINK_NOFOLLOW) != 0
      || (dst.st_mode & S_IFMT) != (src->st_mode & S_IFMT) || S_ISDIR (dst.st_mode)
      || dst.st_size != src->st_size || !same_mtime (&dst, src)
      || ((S_ISCHR (src->st_mode) || S_ISBLK (src->st_mode)) && dst.st_rdev != src->st_rdev)
      || is_placeholder (job, dir, dst_name, &dst) || _cs_dir_is_unwritten_claim (dir, dst_name, &dst))
    return FALSE;
  _cs_tweak_metadata (job, dir, name, dst_name, src, &dst);
  return TRUE;
}

gboolean
_cs_copy_dest_is_local (CsJob *job,
                        CsDir *dir)
{
  return dir->dst_fd >= 0 && !on_share (dir->dst_fd) && !atomic_load (&job->dst_remote);
}

static void
temp_name (CsJob *job,
           char  *buf,
           gsize  size)
{
  guint64 seq = atomic_fetch_add (&job->temp_seq, 1);

  g_snprintf (buf, size, CS_TEMP_PREFIX "%s-%" G_GUINT64_FORMAT CS_TEMP_SUFFIX, job->job_tag, seq);
}

/* Whether a file written beside its final name in @dir is published by a
 * claim (publish_noreplace's last resort): the filesystem can neither rename
 * without replacing nor hard-link, as the first files found out. */
static gboolean
publishes_by_claim (CsJob *job,
                    CsDir *dir)
{
  return (atomic_load_explicit (&job->no_noreplace, memory_order_relaxed)
          || (dir->fs != NULL && dir->fs->noreplace_racy))
         && atomic_load_explicit (&job->no_link, memory_order_relaxed);
}

static int
open_source (CsJob      *job,
             CsDir      *dir,
             const char *name)
{
  int flags = O_RDONLY | O_NOFOLLOW;
  int fd;

  if (!atomic_load_explicit (&job->no_noatime, memory_order_relaxed))
    {
      fd = _cs_io_openat (&job->counters, dir->src_fd, name, flags | O_NOATIME, 0);
      if (fd >= 0 || errno != EPERM)
        return fd;
      /* Only the owner (or root) may ask for no access-time updates. */
      atomic_store (&job->no_noatime, 1);
    }

  return _cs_io_openat (&job->counters, dir->src_fd, name, flags, 0);
}

/* The smallest request a speed limit cuts the data into. */
#define LIMITED_REQUEST_MIN (G_GUINT64_CONSTANT (64) << 10)

/* Before a request of @want bytes: what the speed limit lets it move now
 * (waiting for it, holding nothing), or 0 when the job stops meanwhile. */
guint64
_cs_copy_limit_take (CsJob   *job,
                     guint64  want)
{
  if (!_cs_limiter_is_on (&job->byte_limit))
    return want;
  want = MIN (want, _cs_limiter_request_size (&job->byte_limit, LIMITED_REQUEST_MIN, CS_REQUEST_MAX));
  return _cs_limiter_take (&job->byte_limit, (double) want) ? want : 0;
}

/* After it: gives back what the request took and did not move. */
void
_cs_copy_limit_refund (CsJob   *job,
                       guint64  taken,
                       gssize   moved)
{
  if (moved < 0 || (guint64) moved < taken)
    _cs_limiter_refund (&job->byte_limit, (double) (taken - (guint64) MAX (moved, 0)));
}

/* Whether @fd is a file a backend of URLs reaches (on an SMB share). */
static gboolean
on_share (int fd)
{
  const CsIoTable *backend = _cs_io_backend (fd, NULL);

  return backend != NULL && backend->scheme != NULL;
}

/*
 * The buffer a range of a file of @file_size bytes from @src_fd to @dst_fd
 * moves through, in @out, and its size. A big file written to a share from
 * a local disk moves in big calls where the job can lend a big buffer:
 * libsmbclient sends one request at a time per call, so the call's size
 * sets how many round trips and request headers the server sees (a 2 GiB
 * file: 2,115 writes of 1 MiB, 256 of 8 MiB). Not for reading from a
 * share: libsmbclient allocates each read's reply in full beside the
 * buffer, so 8 MiB reads cost twice that at their peak (a 2 GiB file at 1
 * thread: 42.0 MB against 28.6 MB, the target 34) and measured no faster
 * (35.6 s against 34.2 s). Everything else moves through the worker's own
 * 1 MiB, which the memory target counts on. The loan lasts until
 * release_buffer.
 */
static gsize
take_buffer (CsJob     *job,
             CsWorker  *worker,
             int        src_fd,
             int        dst_fd,
             guint64    file_size,
             guint8   **out)
{
  if (worker->big_buffer == NULL && file_size >= CS_BIG_FILE_MIN
      && on_share (dst_fd) && !on_share (src_fd))
    worker->big_buffer = _cs_job_lend_big_buffer (job);
  if (worker->big_buffer != NULL)
    {
      *out = worker->big_buffer;
      return CS_BIG_BUFFER_SIZE;
    }
  *out = worker->buffer;
  return CS_BUFFER_SIZE;
}

/* Gives back what take_buffer lent, for other workers' big files. */
static void
release_buffer (CsJob    *job,
                CsWorker *worker)
{
  if (worker->big_buffer != NULL)
    _cs_job_return_big_buffer (job, g_steal_pointer (&worker->big_buffer));
}

/* copy_range's loop; the buffer it takes is given back by copy_range. */
static Outcome
copy_range_through (CsJob    *job,
                    CsWorker *worker,
                    int       src_fd,
                    int       dst_fd,
                    guint64   offset,
                    guint64   length,
                    guint64   file_size)
{
  guint8 *buffer = NULL;
  gsize buffer_size = 0;
  guint64 done = 0;

  while (done < length)
    {
      guint64 want = MIN (length - done, CS_REQUEST_MAX);
      ssize_t n;

      if (!_cs_job_wait_if_paused (job))
        return fail (CS_ERR_STOPPED, NULL);
      want = _cs_copy_limit_take (job, want);
      if (want == 0)
        return fail (CS_ERR_STOPPED, NULL);

      if (!atomic_load_explicit (&job->no_copy_range, memory_order_relaxed))
        {
          off_t in = (off_t) (offset + done);
          off_t out = (off_t) (offset + done);

          n = _cs_io_copy_range (&job->counters, src_fd, &in, dst_fd, &out, want);
          if (n > 0)
            _cs_copy_limit_refund (job, want, n);
          if (n > 0)
            {
              done += (guint64) n;
              worker->in_place += (guint64) n;
              worker->partial += (guint64) n;
              atomic_fetch_add_explicit (&job->bytes_partial, (guint64) n, memory_order_relaxed);
              continue;
            }
          if (n < 0 && !_cs_io_is_unsupported (errno))
            return fail (errno, "copy");
          if (n < 0)
            atomic_store (&job->no_copy_range, 1);
          /* 0 before the end: either the source shrank or the filesystem can't do
           * it in the kernel; plain reads tell which. */
        }

      /* Taken here, not before: a range the server or the kernel copies
       * needs no buffer. */
      if (buffer == NULL)
        buffer_size = take_buffer (job, worker, src_fd, dst_fd, file_size, &buffer);
      n = _cs_io_pread (&job->counters, src_fd, buffer, MIN (want, buffer_size),
                        (off_t) (offset + done));
      _cs_copy_limit_refund (job, want, n);
      if (n < 0)
        return fail (errno, "read");
      if (n == 0)
        return fail (CS_ERR_SOURCE_CHANGED, "read");

      for (ssize_t w = 0; w < n;)
        {
          ssize_t m = _cs_io_pwrite (&job->counters, dst_fd, buffer + w, (size_t) (n - w),
                                     (off_t) (offset + done + (guint64) w));
          if (m < 0)
            return fail (errno, "write");
          if (m == 0)
            return fail (EIO, "write");
          w += m;
        }
      done += (guint64) n;
      worker->partial += (guint64) n;
      atomic_fetch_add_explicit (&job->bytes_partial, (guint64) n, memory_order_relaxed);
    }

  return OK;
}

/* Copies [offset, offset + length) of a file of @file_size bytes with the
 * fastest method the filesystems allow. */
static Outcome
copy_range (CsJob    *job,
            CsWorker *worker,
            int       src_fd,
            int       dst_fd,
            guint64   offset,
            guint64   length,
            guint64   file_size)
{
  Outcome o = copy_range_through (job, worker, src_fd, dst_fd, offset, length, file_size);

  release_buffer (job, worker);
  return o;
}

/* Like copy_range, through take_buffer's buffer, with the XXH3 of the bytes
 * written in @out_hash: a partial's journal (cs-resume-private.h) needs
 * each block's hash, and taking it from the buffer costs no second read of
 * either file. */
static Outcome
copy_range_hashed (CsJob    *job,
                   CsWorker *worker,
                   int       src_fd,
                   int       dst_fd,
                   guint64   offset,
                   guint64   length,
                   guint64   file_size,
                   guint64  *out_hash)
{
  XXH3_state_t *state = XXH3_createState ();
  guint8 *buffer;
  gsize buffer_size = take_buffer (job, worker, src_fd, dst_fd, file_size, &buffer);
  guint64 done = 0;
  Outcome o = OK;

  XXH3_64bits_reset (state);
  while (done < length && o.code == 0)
    {
      guint64 want = MIN (length - done, buffer_size);
      ssize_t n;

      if (!_cs_job_wait_if_paused (job) || (want = _cs_copy_limit_take (job, want)) == 0)
        {
          o = fail (CS_ERR_STOPPED, NULL);
          break;
        }
      n = _cs_io_pread (&job->counters, src_fd, buffer, want, (off_t) (offset + done));
      _cs_copy_limit_refund (job, want, n);
      if (n <= 0)
        {
          o = n < 0 ? fail (errno, "read") : fail (CS_ERR_SOURCE_CHANGED, "read");
          break;
        }
      XXH3_64bits_update (state, buffer, (size_t) n);
      for (ssize_t w = 0; w < n;)
        {
          ssize_t m = _cs_io_pwrite (&job->counters, dst_fd, buffer + w, (size_t) (n - w),
                                     (off_t) (offset + done + (guint64) w));
          if (m <= 0)
            {
              o = m < 0 ? fail (errno, "write") : fail (EIO, "write");
              break;
            }
          w += m;
        }
      done += (guint64) n;
      worker->partial += (guint64) n;
      atomic_fetch_add_explicit (&job->bytes_partial, (guint64) n, memory_order_relaxed);
    }
  *out_hash = XXH3_64bits_digest (state);
  XXH3_freeState (state);
  release_buffer (job, worker);

  return o;
}

/* Like copy_range, but only the data extents, so holes stay holes. */
static Outcome
copy_sparse_range (CsJob    *job,
                   CsWorker *worker,
                   int       src_fd,
                   int       dst_fd,
                   guint64   offset,
                   guint64   length,
                   guint64   file_size)
{
  guint64 end = offset + length;
  guint64 pos = offset;

  while (pos < end)
    {
      off_t data = _cs_io_lseek (&job->counters, src_fd, (off_t) pos, SEEK_DATA);
      off_t hole;
      Outcome o;

      if (data < 0)
        {
          if (errno == ENXIO)
            return OK;          /* only a hole is left */
          if (_cs_io_is_unsupported (errno))
            return copy_range (job, worker, src_fd, dst_fd, pos, end - pos, file_size);
          return fail (errno, "seek");
        }
      if ((guint64) data >= end)
        return OK;
      hole = _cs_io_lseek (&job->counters, src_fd, data, SEEK_HOLE);
      if (hole < 0)
        return fail (errno, "seek");
      o = copy_range (job, worker, src_fd, dst_fd, (guint64) data, MIN ((guint64) hole, end) - (guint64) data,
                      file_size);
      if (o.code != 0)
        return o;
      pos = (guint64) hole;
    }

  return OK;
}

static gboolean
is_sparse (const struct stat *st)
{
  return st->st_size > 0 && (guint64) st->st_blocks * 512 < (guint64) st->st_size;
}

static Outcome
copy_data (CsJob             *job,
           CsWorker          *worker,
           int                src_fd,
           int                dst_fd,
           const struct stat *st,
           guint64            offset,
           guint64            length)
{
  /* Big files, whole or in chunks, ask for sequential readahead, which
   * doubles the window (cp asks for it too). Whole, 2 GiB cold, 8 runs each:
   * 385 → 365 ms median (cp 367); in chunks, 430 MB, 8 runs each: 4 threads
   * 0.227 → 0.201 s, 1 thread unchanged. Not for smaller files: on the
   * images set (54 × 7.5 MB, 8 threads, 10 runs) it measured 116 → 125 ms.
   * Only a hint: its failure changes nothing. */
  if ((guint64) st->st_size >= CS_BIG_FILE_MIN)
    _cs_io_fadvise (src_fd, (off_t) offset, (off_t) length, POSIX_FADV_SEQUENTIAL);
  worker->in_place = 0;
  if (is_sparse (st))
    return copy_sparse_range (job, worker, src_fd, dst_fd, offset, length, (guint64) st->st_size);
  return copy_range (job, worker, src_fd, dst_fd, offset, length, (guint64) st->st_size);
}

/*
 * A file on a pseudo-filesystem (procfs, sysfs): its size says nothing (0 for
 * /proc/version, a page for a sysfs attribute) and the kernel makes up what
 * it holds as it is read, so it is read to its end, as cp does. The one
 * exception to "bytes read == the source's size"; what was read is what the
 * record counts. No fast path: copy_file_range and reflinks answer nothing
 * useful here.
 */
static Outcome
copy_to_end (CsJob    *job,
             CsWorker *worker,
             int       src_fd,
             int       dst_fd,
             guint64  *out_size)
{
  guint64 done = 0;

  for (;;)
    {
      ssize_t n = _cs_io_pread (&job->counters, src_fd, worker->buffer, CS_BUFFER_SIZE, (off_t) done);

      if (n < 0)
        return fail (errno, "read");
      if (n == 0)
        break;
      for (ssize_t w = 0; w < n;)
        {
          ssize_t m = _cs_io_pwrite (&job->counters, dst_fd, worker->buffer + w, (size_t) (n - w),
                                     (off_t) (done + (guint64) w));
          if (m < 0)
            return fail (errno, "write");
          if (m == 0)
            return fail (EIO, "write");
          w += m;
        }
      done += (guint64) n;
      worker->partial += (guint64) n;
      atomic_fetch_add_explicit (&job->bytes_partial, (guint64) n, memory_order_relaxed);
      if (!_cs_job_wait_if_paused (job))
        return fail (CS_ERR_STOPPED, NULL);
    }
  *out_size = done;
  return OK;
}

/* XXH3-128 of @fd's @size bytes in @xxh (16 bytes, canonical), and SHA-256
 * in @sha when it is not NULL: one read serves --verify and the manifest. */
static Outcome
hash_file (CsJob    *job,
           CsWorker *worker,
           int       fd,
           guint64   size,
           guint8   *xxh,
           guint8   *sha)
{
  CsHasher hasher;
  guint64 pos = 0;

  _cs_hasher_init (&hasher, sha != NULL);
  while (pos < size)
    {
      ssize_t n = _cs_io_pread (&job->counters, fd, worker->buffer, CS_BUFFER_SIZE, (off_t) pos);

      if (n < 0)
        {
          int saved = errno;
          _cs_hasher_clear (&hasher);
          return fail (saved, "verify");
        }
      if (n == 0)
        break;
      _cs_hasher_update (&hasher, worker->buffer, (size_t) n);
      pos += (guint64) n;
    }
  _cs_hasher_finish (&hasher, xxh, sha);

  return pos == size ? OK : fail (CS_ERR_MISMATCH, "verify");
}

/* The owner a fresh temporary shows on @fs, where chown is refused: the first
 * one's, asked once. A filesystem that refuses chown gives every file it
 * creates for us one owner (a share's login, a FAT mount's uid=), so asking
 * each file again costs a round trip (an SMB2 request) and tells nothing new. */
static gboolean
fresh_owner (CsDestFs *fs,
             uid_t    *uid,
             gid_t    *gid)
{
  guint64 v;

  if (fs == NULL || !atomic_load (&fs->fresh_owner_known))
    return FALSE;
  v = atomic_load (&fs->fresh_owner);
  *uid = (uid_t) (v >> 32);
  *gid = (gid_t) (v & G_MAXUINT32);
  return TRUE;
}

/* Whether @fd shows @st's owner; asked for alone, which a share answers from
 * the attributes the create brought back. Only after chown was refused. */
static gboolean
shows_owner (CsJob             *job,
             CsDestFs          *fs,
             int                fd,
             const struct stat *st)
{
  struct statx stx;
  uid_t uid;
  gid_t gid;

  if (!fresh_owner (fs, &uid, &gid))
    {
      if (_cs_io_statx (&job->counters, fd, "", AT_EMPTY_PATH, STATX_UID | STATX_GID, &stx) != 0)
        return FALSE;
      uid = stx.stx_uid;
      gid = stx.stx_gid;
      if (fs != NULL)
        {
          atomic_store (&fs->fresh_owner, (guint64) uid << 32 | (guint64) gid);
          atomic_store (&fs->fresh_owner_known, 1);
        }
    }
  return uid == st->st_uid && gid == st->st_gid;
}

/* Owner and group (as root), unless the destination refused them before. */
static Outcome
keep_owner (CsJob             *job,
            CsWorker          *worker,
            CsItem            *item,
            int                tmp_fd,
            const struct stat *st)
{
  /* A temporary we created in a folder we created already has our owner and
   * group; asking again costs a round trip per file on a share. */
  if (job->euid != 0 || (item->dir->dst_new && st->st_uid == job->euid && st->st_gid == job->egid))
    return OK;
  if (!_cs_metadata_refused (job, CS_METADATA_OWNERS)
      && _cs_io_fchown (&job->counters, tmp_fd, st->st_uid, st->st_gid) == 0)
    return OK;
  if (!_cs_metadata_refused (job, CS_METADATA_OWNERS)
      && !_cs_metadata_refuse (job, CS_METADATA_OWNERS, errno))
    return fail (errno, "chown");
  if (!shows_owner (job, item->dir->fs, tmp_fd, st))
    worker->lost |= 1u << CS_METADATA_OWNERS;
  return OK;
}

/* The mode a fresh temporary created with @created_mode shows on @fs, where
 * chmod is refused: the first one's, asked once (as fresh_owner). */
static gboolean
fresh_mode (CsDestFs *fs,
            mode_t    created_mode,
            mode_t   *shown)
{
  guint v = fs != NULL ? atomic_load (&fs->fresh_mode) : 0;

  if (!(v & CS_FRESH_KNOWN) || ((v >> 12) & 07777) != (created_mode & 07777))
    return FALSE;
  *shown = v & 07777;
  return TRUE;
}

/* The mode, after chown (which clears set-id bits). A temporary created with
 * its final mode keeps it unless a umask took bits away; asking for the mode
 * alone is answered from the attributes the create brought back, where a
 * chmod is a round trip (two on sshfs) per file on a share. Where chmod is
 * refused, what a fresh temporary shows is asked of the first one only. */
static Outcome
keep_mode (CsJob    *job,
           CsWorker *worker,
           CsDestFs *fs,
           int       tmp_fd,
           mode_t    created_mode,
           mode_t    mode)
{
  mode_t now_mode = 0;
  gboolean shown = FALSE;

  if (_cs_metadata_refused (job, CS_METADATA_MODES) && fresh_mode (fs, created_mode, &now_mode))
    {
      if ((now_mode & 07777) != mode)
        worker->lost |= 1u << CS_METADATA_MODES;
      return OK;
    }
  if (mode == created_mode)
    {
      shown = _cs_io_fstat_mode (&job->counters, tmp_fd, &now_mode) == 0;
      if (shown && (now_mode & 07777) == mode)
        return OK;
    }
  if (!_cs_metadata_refused (job, CS_METADATA_MODES)
      && _cs_io_fchmod (&job->counters, tmp_fd, mode) == 0)
    return OK;
  if (!_cs_metadata_refused (job, CS_METADATA_MODES)
      && !_cs_metadata_refuse (job, CS_METADATA_MODES, errno))
    return fail (errno, "chmod");
  if (!shown)
    shown = _cs_io_fstat_mode (&job->counters, tmp_fd, &now_mode) == 0;
  /* Refused, so this is what the create gave it. */
  if (shown && fs != NULL)
    atomic_store (&fs->fresh_mode, CS_FRESH_KNOWN | (guint) (created_mode & 07777) << 12
                                   | (guint) (now_mode & 07777));
  if (!shown || (now_mode & 07777) != mode)
    worker->lost |= 1u << CS_METADATA_MODES;
  return OK;
}

/* Everything between "all bytes are in the temporary" and "ready to publish";
 * the times too when @times_on_fd (see keep_times). */
static Outcome
finish_temp (CsJob             *job,
             CsWorker          *worker,
             CsItem            *item,
             int                src_fd,
             int                tmp_fd,
             mode_t             created_mode,
             const struct stat *st,
             gboolean           times_on_fd)
{
  struct timespec times[2] = { st->st_atim, st->st_mtim };
  struct stat now;
  gboolean cleared;
  mode_t mode;
  Outcome o;

  if (!item->dir->src_pseudo && is_sparse (st) && _cs_io_ftruncate (&job->counters, tmp_fd, st->st_size) != 0)
    return fail (errno, "truncate");

  /* The source must be the file we scanned, unchanged, or the copy is a mix.
   * The change time too: a program that rewrites a file and puts its mtime
   * back (tar, rsync, a backup tool) leaves size, mtime and inode as they
   * were, but not ctime, which no one can set. */
  if (_cs_io_fstat (&job->counters, src_fd, &now) != 0)
    return fail (errno, "stat");
  if (now.st_size != st->st_size || !same_time (&now.st_mtim, &st->st_mtim)
      || !same_time (&now.st_ctim, &st->st_ctim) || now.st_ino != st->st_ino
      || now.st_dev != st->st_dev)
    return fail (CS_ERR_SOURCE_CHANGED, "copy");

  /* A pseudo-file read again may read differently (a counter, the time): it
   * is not read back. */
  if (job->settings.verify && st->st_size > 0 && !item->dir->src_pseudo)
    {
      guint8 a[16], b[16], sha[32];
      gboolean sha256 = _cs_manifest_wants_sha256 (job);

      /* Read the copy back from the device, not from the pages we just wrote. */
      if (_cs_io_fsync (&job->counters, tmp_fd) != 0)
        return fail (errno, "fsync");
      _cs_io_fadvise (tmp_fd, 0, 0, POSIX_FADV_DONTNEED);
      o = hash_file (job, worker, src_fd, (guint64) st->st_size, a, NULL);
      if (o.code != 0)
        return o;
      /* XXH3-128, as xxhsum -H2: what is read back is the manifest's line. */
      o = hash_file (job, worker, tmp_fd, (guint64) st->st_size, b, sha256 ? sha : NULL);
      if (o.code != 0)
        return o;
      if (memcmp (a, b, sizeof a) != 0)
        return fail (CS_ERR_MISMATCH, "verify");
      memcpy (worker->digest, sha256 ? sha : b, sha256 ? sizeof sha : sizeof b);
      worker->has_digest = TRUE;
    }

  worker->lost |= _cs_xattrs_copy (job, src_fd, tmp_fd, (char *) worker->buffer);
  o = keep_owner (job, worker, item, tmp_fd, st);
  if (o.code != 0)
    return o;
  mode = _cs_metadata_mode (job, tmp_fd, NULL, st, &cleared);
  if (cleared)
    worker->lost |= 1u << CS_METADATA_SPECIAL_BITS;
  o = keep_mode (job, worker, item->dir->fs, tmp_fd, created_mode, mode);
  if (o.code != 0)
    return o;
  if (times_on_fd && _cs_io_futimens (&job->counters, tmp_fd, times) != 0)
    return fail (errno, "set times");
  if (job->settings.durable && _cs_io_fsync (&job->counters, tmp_fd) != 0)
    return fail (errno, "fsync");

  return OK;
}

/* Links @tmp to @final and drops @tmp: 0, or the errno of the link.
 *
 * From a staging folder (on a share) one link into a folder at a time: the
 * kernel checks the folder's permissions once before it queues for the
 * folder's lock and again holding it, and a share's folder attributes are
 * dropped by every change, so with several workers queued the first check was
 * always stale and cost a round trip of its own (sshfs, 100 files, 8 threads:
 * 195 requests for the folder's attributes, 103 with the lock). The kernel
 * runs the links one at a time anyway. */
static int
publish_link (CsJob      *job,
              int         tmp_fd,
              const char *tmp,
              CsDir      *dir,
              const char *final)
{
  int fd = dir->dst_fd;
  int code;

  if (tmp_fd == fd)
    code = _cs_io_linkat (&job->counters, tmp_fd, tmp, fd, final, 0) == 0 ? 0 : errno;
  else
    {
      GMutex *lock = &job->link_locks[(guint) fd % CS_JOB_LINK_LOCKS];

      g_mutex_lock (lock);
      /* A worker that queued here behind the one that found the folder on
       * another filesystem (see copy_file_once) need not ask again. */
      if (atomic_load_explicit (&dir->no_stage, memory_order_relaxed))
        code = EXDEV;
      else
        code = _cs_io_linkat (&job->counters, tmp_fd, tmp, fd, final, 0) == 0 ? 0 : errno;
      if (code == EXDEV)
        atomic_store (&dir->no_stage, 1);
      g_mutex_unlock (lock);
    }
  if (code != 0)
    return code;
  _cs_io_unlinkat (&job->counters, tmp_fd, tmp, 0);
  return 0;
}

static gboolean
link_unsupported (int code)
{
  return code == EPERM || (code != EXDEV && _cs_io_is_unsupported (code));
}

/* What a hard link's result @code (0 or an errno) settles: TRUE with @out set
 * when linked, when the name was taken meanwhile, or on a real error; FALSE
 * when this way of linking is @refused and another must be tried. */
static gboolean
link_settled (int         code,
              gboolean    refused,
              const char *op,
              Outcome    *out)
{
  if (code == 0)
    *out = OK;
  else if (code == EEXIST)
    *out = fail (CS_ERR_APPEARED, op);
  else if (refused)
    return FALSE;
  else
    *out = fail (code, op);
  return TRUE;
}

/* Publishes by hard link unless links are known not to work here; TRUE when
 * that settled it, with the outcome in @out. */
static gboolean
publish_by_link (CsJob      *job,
                 int         tmp_fd,
                 const char *tmp,
                 CsDir      *dir,
                 const char *final,
                 Outcome    *out)
{
  int code;

  if (atomic_load_explicit (&job->no_link, memory_order_relaxed))
    return FALSE;
  code = publish_link (job, tmp_fd, tmp, dir, final);
  if (link_settled (code, link_unsupported (code), "rename", out))
    return TRUE;
  atomic_store (&job->no_link, 1);
  return FALSE;
}

/* Whether the file under @final is still the claim we made: our own text,
 * with this run's tag. Asked only after a rename over it failed, to take
 * back what is ours and nothing else. */
static gboolean
claim_intact (CsJob      *job,
              CsDir      *dir,
              const char *final,
              const char *text,
              gsize       len)
{
  char now_text[CS_PLACEHOLDER_SIZE + 1];
  struct stat now;
  ssize_t n;
  int fd;

  if (_cs_io_fstatat (&job->counters, dir->dst_fd, final, &now, AT_SYMLINK_NOFOLLOW) != 0
      || !S_ISREG (now.st_mode) || now.st_size != (off_t) len)
    return FALSE;
  fd = _cs_io_openat (&job->counters, dir->dst_fd, final, O_RDONLY | O_NOFOLLOW, 0);
  if (fd < 0)
    return FALSE;
  n = _cs_io_pread (&job->counters, fd, now_text, sizeof now_text, 0);
  _cs_io_close (&job->counters, fd);
  return n == (ssize_t) len && memcmp (now_text, text, len) == 0;
}

/* The name a temporary takes to say which final name it is about to claim:
 * ".copyscope-<tag>-<n>.claim-<hash of the name>". */
static void
intent_name (CsJob      *job,
             const char *final,
             char       *buf,
             gsize       size)
{
  g_snprintf (buf, size, CS_TEMP_PREFIX "%s-%" G_GUINT64_FORMAT CS_CLAIM_SUFFIX "%016"
              G_GINT64_MODIFIER "x", job->job_tag, (guint64) atomic_fetch_add (&job->temp_seq, 1),
              _cs_name_hash (final));
}

/* Whether temporary @tmp in @tmp_fd already has the intent to claim @final
 * in @dir (see publish_claimed). */
static gboolean
is_intent_for (int         tmp_fd,
               const char *tmp,
               CsDir      *dir,
               const char *final)
{
  guint64 hash;

  return tmp_fd == dir->dst_fd && _cs_name_claim_hash (tmp, &hash) && hash == _cs_name_hash (final);
}

/*
 * The last resort, for shares that can neither rename without replacing nor
 * hard-link (some SMB and FUSE servers). "Check that the name is free, then
 * rename" would clobber a file another program creates between the two, so
 * the name is claimed first, atomically, with an exclusive create; the
 * finished temporary is then renamed over our own claim.
 *
 * While the claim stands, anyone creating the name (O_EXCL, link, mkdir,
 * rename without replace) is told it exists. The claim is a small file that
 * says what it is: "copyscope placeholder <job tag>\n", mode 0400, so an
 * ordinary program opening it for writing as another user is refused too.
 * A kill between the claim and the rename leaves it under the final name; it
 * is not a partial copy of anything, the oracle counts it with the
 * temporaries, and the next run recognises it by its exact size, owner and
 * text (is_placeholder) and replaces it with the file. A kill between the
 * create and the write of the text leaves an empty file instead, not ours by
 * itself: so the temporary says which name it is about to claim
 * (".copyscope-<tag>-<n>.claim-<hash of the name>"), and the next run,
 * finding that temporary of a run that is gone, replaces the empty file of
 * that name with the file, if the empty file is no older than the
 * temporary's last change (_cs_dir_is_unwritten_claim). Before that, the
 * rerun took the empty file for a newer one and skipped it for ever. A
 * temporary written beside its final name once the job knows it publishes
 * this way is created under that name (copy_file_attempt); else it is
 * renamed to it here, one request more (three on SMB).
 *
 * The claim is not looked at again before the rename: the rename follows its
 * close at once, so a check by name would narrow nothing (it would itself
 * open the window it closes) and cost a round trip (three requests on SMB).
 * What no primitive these shares offer can close: a program that replaces
 * our claim by renaming over it, or rewrites it at its size, in the moment
 * between the claim's close and the rename. That needs a program that
 * deliberately replaces a file it did not create, and the window is one
 * request wide instead of the whole check-to-rename gap.
 *
 * The fast paths never come here: it costs six requests more than a rename.
 */
static Outcome
publish_claimed (CsJob      *job,
                 int         tmp_fd,
                 const char *tmp,
                 CsDir      *dir,
                 const char *final)
{
  char text[CS_PLACEHOLDER_SIZE + 1];
  gsize len = placeholder_text (job, text, sizeof text);
  gboolean renamed = !is_intent_for (tmp_fd, tmp, dir, final);
  char intent[96];
  Outcome o;
  ssize_t n;
  int fd;

  if (renamed)
    {
      intent_name (job, final, intent, sizeof intent);
      if (_cs_io_renameat2 (&job->counters, tmp_fd, tmp, dir->dst_fd, intent, 0) != 0)
        return fail (errno, "rename");
    }
  else
    g_strlcpy (intent, tmp, sizeof intent);

  fd = _cs_io_openat (&job->counters, dir->dst_fd, final,
                      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0400);
  if (fd < 0)
    {
      o = fail (errno == EEXIST ? CS_ERR_APPEARED : errno, "rename");
      goto give_back;
    }
  n = _cs_io_pwrite (&job->counters, fd, text, len, 0);
  if (n != (ssize_t) len)
    {
      o = fail (n >= 0 ? EIO : errno, "rename");
      _cs_io_close (&job->counters, fd);
      _cs_io_unlinkat (&job->counters, dir->dst_fd, final, 0);
      goto give_back;
    }
  _cs_io_close (&job->counters, fd);

  if (_cs_io_renameat2 (&job->counters, dir->dst_fd, intent, dir->dst_fd, final, 0) == 0)
    return OK;

  /* Over our own claim "exists" is what libsmbclient says when its delete of
   * the claim failed, also because the server just went away: asked again,
   * a share that is gone says so itself, and the job stops on that instead
   * of listing the file as a failure of its own. */
  {
    int code = errno;
    struct stat now;

    if (code == EEXIST && _cs_io_fstatat (&job->counters, dir->dst_fd, final, &now,
                                          AT_SYMLINK_NOFOLLOW) != 0 && errno != ENOENT)
      code = errno;
    o = fail (code, "rename");
  }
  if (claim_intact (job, dir, final, text, len))
    _cs_io_unlinkat (&job->counters, dir->dst_fd, final, 0);

give_back:
  /* The caller still owns the temporary under its old name (keep-both tries
   * the next name with it, a failure removes it). */
  if (renamed && _cs_io_renameat2 (&job->counters, dir->dst_fd, intent, tmp_fd, tmp, 0) != 0)
    _cs_io_unlinkat (&job->counters, dir->dst_fd, intent, 0);
  return o;
}

/* Publishes a finished temporary without ever clobbering a file it did not decide to replace. */
static Outcome
publish_noreplace (CsJob      *job,
                   int         tmp_fd,
                   const char *tmp,
                   CsDir      *dir,
                   const char *final)
{
  int fd = dir->dst_fd;
  /* From a staging folder a hard link locks only the final folder, where a
   * rename between folders also takes the filesystem-wide rename lock, so
   * renames into different folders wait for each other (lab NAS, 1,000 files
   * in 13 folders, 32 threads: 1.5 s linked, 3.9 s renamed). A folder with
   * more files than the largest pool is the bottleneck itself, and there the
   * rename, one round trip fewer than link and unlink, wins (1,000 files in
   * one folder: 3.9 s renamed, 4.5 s linked). */
  gboolean staged = tmp_fd != fd;
  gboolean prefer_link = staged && atomic_load_explicit (&dir->n_files, memory_order_relaxed) <= CS_JOB_MAX_THREADS;
  Outcome o;

  if (prefer_link && publish_by_link (job, tmp_fd, tmp, dir, final, &o))
    return o;

  /* Where RENAME_NOREPLACE is a check and a plain rename (GVfs), a name
   * created between the two would be clobbered: a hard link, or the claim. */
  if (!atomic_load_explicit (&job->no_noreplace, memory_order_relaxed)
      && !(dir->fs != NULL && dir->fs->noreplace_racy))
    {
      if (_cs_io_renameat2 (&job->counters, tmp_fd, tmp, fd, final, RENAME_NOREPLACE) == 0)
        return OK;
      if (errno == EEXIST)
        return fail (CS_ERR_APPEARED, "rename");
      /* From a staging folder on another filesystem: the caller writes beside. */
      if (errno == EXDEV || !_cs_io_is_unsupported (errno))
        return fail (errno, "rename");
      atomic_store (&job->no_noreplace, 1);
    }

  /* Without RENAME_NOREPLACE, a hard link fails just as safely on an existing name. */
  if (publish_by_link (job, tmp_fd, tmp, dir, final, &o))
    return o;

  return publish_claimed (job, tmp_fd, tmp, dir, final);
}

/* "name (2).ext", "name (3).ext", … until one is free. */
static Outcome
publish_keep_both (CsJob      *job,
                   int         tmp_fd,
                   const char *tmp,
                   CsDir      *dir,
                   const char *final)
{
  for (guint n = 2; n < CS_KEEP_BOTH_MAX; n++)
    {
      g_autofree char *candidate = _cs_name_numbered (final, n);
      Outcome o = publish_noreplace (job, tmp_fd, tmp, dir, candidate);

      if (o.code != CS_ERR_APPEARED)
        return o;
    }

  return fail (EEXIST, "rename");
}

/* Renames temporary @tmp in folder @tmp_fd (the destination folder, or a
 * staging folder) to @final in @dir. */
static Outcome
publish (CsJob      *job,
         int         tmp_fd,
         const char *tmp,
         CsDir      *dir,
         const char *final,
         CsAction    action)
{
  switch (action)
    {
    case CS_ACTION_REPLACE:
      /* rename() replaces atomically: the old file stays whole until this instant. */
      if (_cs_io_renameat2 (&job->counters, tmp_fd, tmp, dir->dst_fd, final, 0) != 0)
        return fail (errno, "rename");
      return OK;
    case CS_ACTION_KEEP_BOTH:
      return publish_keep_both (job, tmp_fd, tmp, dir, final);
    case CS_ACTION_COPY:
    case CS_ACTION_SKIP:
    case CS_ACTION_SKIP_NEWER:
    case CS_ACTION_SKIP_KEPT:
    case CS_ACTION_FAIL:
    default:
      return publish_noreplace (job, tmp_fd, tmp, dir, final);
    }
}

/* Linking by descriptor (AT_EMPTY_PATH) answers these without
 * CAP_DAC_READ_SEARCH; /proc/self/fd may still work. */
static gboolean
lacks_privilege (int code)
{
  return code == ENOENT || code == EPERM;
}

/* One way of linking an unnamed temporary; see link_settled. @code gets the
 * link's result. */
static gboolean
link_unnamed (CsJob      *job,
              int         olddirfd,
              const char *oldpath,
              CsDir      *dir,
              const char *final,
              int         flags,
              Outcome    *out,
              int        *code)
{
  *code = _cs_io_linkat (&job->counters, olddirfd, oldpath, dir->dst_fd, final, flags) == 0 ? 0 : errno;

  return link_settled (*code, lacks_privilege (*code) || _cs_io_is_unsupported (*code), "link", out);
}

/* No /proc, or links refused: named temporaries from now on, this file too. */
static Outcome
no_unnamed (CsJob *job)
{
  atomic_store (&job->no_unnamed, 1);
  return fail (CS_ERR_NO_UNNAMED, "link");
}

/*
 * An unnamed temporary (O_TMPFILE) becomes the file by one hard link, which
 * fails on an existing name like RENAME_NOREPLACE. A folder's lock is then
 * taken once per file instead of twice (create, rename): copying 4,000 small
 * files into one folder, 8 threads spent 40 % of their CPU spinning on it.
 * A kill leaves nothing behind, since the kernel frees an inode no name holds.
 * Linking by descriptor (AT_EMPTY_PATH) needs CAP_DAC_READ_SEARCH; without it
 * the link goes through /proc/self/fd.
 */
static Outcome
publish_unnamed (CsJob      *job,
                 int         tmp_fd,
                 CsDir      *dir,
                 const char *final)
{
  char proc[64];
  Outcome o;
  int code;

  if (!atomic_load_explicit (&job->unnamed_via_proc, memory_order_relaxed))
    {
      if (link_unnamed (job, tmp_fd, "", dir, final, AT_EMPTY_PATH, &o, &code))
        return o;
      /* Only a refusal of this way is worth the other; a filesystem that
       * cannot link refuses both. */
      if (!lacks_privilege (code))
        return no_unnamed (job);
      atomic_store (&job->unnamed_via_proc, 1);
    }

  g_snprintf (proc, sizeof proc, "/proc/self/fd/%d", tmp_fd);
  if (link_unnamed (job, AT_FDCWD, proc, dir, final, AT_SYMLINK_FOLLOW, &o, &code))
    return o;

  return no_unnamed (job);
}

static void
discard_temp (CsJob      *job,
              int         folder_fd,
              int        *tmp_fd,
              const char *tmp)
{
  if (*tmp_fd >= 0)
    {
      _cs_io_close (&job->counters, *tmp_fd);
      *tmp_fd = -1;
    }
  if (tmp[0] != '\0')
    _cs_io_unlinkat (&job->counters, folder_fd, tmp, 0);
}

/*
 * Times, kept as the destination keeps them. On a local disk, NFS, sshfs or
 * the lab NAS the time set on the open temporary stays. Through GVfs the
 * server stamps the time of the close over it, and the close comes when
 * gvfsd-fuse gets to the release, which the kernel sends without waiting:
 * a time set by name after close () may still come before it. Only a rename
 * closes the file at once, so there the time is set on the published file.
 * (Through FUSE the right time even shows for about a second, from the
 * kernel's attribute cache, so a check must ask the server.)
 *
 * fusefat stamps the time of the rename instead.
 *
 * Which it is, each destination filesystem answers for itself: the first
 * file published there is read back from the server (AT_STATX_FORCE_SYNC).
 * If its time was lost, files get their times by name once published from
 * then on, and the first of those is read back too; if even that is lost,
 * every file is set and read back, and what still differs is reported. Only
 * a file whose source time is well apart from the clock can show that a time
 * was kept (a file written a moment ago looks the same either way), so until
 * one comes every file is read back; usually only the first files of a run
 * pay it.
 */

/* Farther than a FAT share's 2 s and a server's clock from now. */
#define TIMES_TELLING_NS (G_GINT64_CONSTANT (10) * G_TIME_SPAN_SECOND * 1000)

/* Whether @item's times are set on its published name (else on the open
 * temporary), and the state that was decided by, for keep_times. */
static gboolean
times_when_published (CsItem  *item,
                      CsTimes *state)
{
  *state = item->dir->fs != NULL ? (CsTimes) atomic_load (&item->dir->fs->times) : CS_TIMES_ON_FD;
  return *state >= CS_TIMES_TRY_PUBLISHED;
}

/* Whether a copy showing @src's time proves that the time was kept, not
 * stamped by the destination just now. */
static gboolean
telling_time (const struct stat *src)
{
  gint64 now = g_get_real_time () * 1000;
  gint64 t = (gint64) src->st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000) + src->st_mtim.tv_nsec;

  return ABS (now - t) > TIMES_TELLING_NS;
}

static gboolean
shows_mtime (CsJob             *job,
             int                dir_fd,
             const char        *name,
             const struct stat *src)
{
  struct statx stx;
  struct stat dst = { 0 };

  if (_cs_io_statx (&job->counters, dir_fd, name, AT_SYMLINK_NOFOLLOW | AT_STATX_FORCE_SYNC,
                    STATX_MTIME, &stx) != 0)
    return FALSE;
  dst.st_mtim.tv_sec = stx.stx_mtime.tv_sec;
  dst.st_mtim.tv_nsec = stx.stx_mtime.tv_nsec;
  return same_mtime (&dst, src);
}

/* After @item is published: sets its times on its name when that is the
 * way here, reads them back while that way is not known to work, moves the
 * filesystem on to the next way when they were lost, and sets this file's
 * times again if need be. */
static void
keep_times (CsJob    *job,
            CsWorker *worker,
            CsItem   *item,
            CsAction  action,
            gboolean  when_published,
            CsTimes   state)
{
  const char *final = item->dst_name != NULL ? item->dst_name : item->name;
  struct timespec times[2] = { item->st.st_atim, item->st.st_mtim };
  int fd = item->dir->dst_fd;
  CsTimes trying = when_published ? CS_TIMES_TRY_PUBLISHED : CS_TIMES_UNKNOWN;
  int expected = (int) state;

  /* "name (2)" is not under @final: its times were set on the temporary. */
  if (item->dir->fs == NULL || action == CS_ACTION_KEEP_BOTH)
    return;
  if (when_published && _cs_io_utimensat (&job->counters, fd, final, times, AT_SYMLINK_NOFOLLOW) != 0)
    {
      worker->lost |= 1u << CS_METADATA_TIMES;
      return;
    }
  if (state == (when_published ? CS_TIMES_PUBLISHED : CS_TIMES_ON_FD))
    return;
  if (shows_mtime (job, fd, final, &item->st))
    {
      if (state == trying && telling_time (&item->st))
        atomic_compare_exchange_strong (&item->dir->fs->times, &expected,
                                        when_published ? CS_TIMES_PUBLISHED : CS_TIMES_ON_FD);
      return;
    }
  if (state == trying)
    atomic_compare_exchange_strong (&item->dir->fs->times, &expected,
                                    when_published ? CS_TIMES_LOST : CS_TIMES_TRY_PUBLISHED);
  if (_cs_io_utimensat (&job->counters, fd, final, times, AT_SYMLINK_NOFOLLOW) != 0
      || !shows_mtime (job, fd, final, &item->st))
    worker->lost |= 1u << CS_METADATA_TIMES;
}

/* Writes @item into a temporary in @folder_fd and publishes it. */
static Outcome
copy_file_attempt (CsJob    *job,
               CsWorker *worker,
               CsItem   *item,
               CsAction  action,
               int       folder_fd)
{
  const char *final = item->dst_name != NULL ? item->dst_name : item->name;
  char tmp[96] = "";
  int src_fd, tmp_fd = -1;
  mode_t created_mode = 0600;
  gboolean unnamed, when_published;
  CsTimes times_state;
  Outcome o;

  src_fd = open_source (job, item->dir, item->name);
  if (src_fd < 0)
    return fail (errno, "open");

  /* A new file beside the others starts as an unnamed temporary where the
   * filesystem has them (see publish_unnamed); a replacement still needs a
   * name to rename over the old file atomically. */
  unnamed = folder_fd == item->dir->dst_fd && action == CS_ACTION_COPY
            && !atomic_load_explicit (&job->no_unnamed, memory_order_relaxed);
  if (unnamed)
    {
      tmp_fd = _cs_io_openat (&job->counters, folder_fd, ".", O_RDWR | O_TMPFILE,
                              item->st.st_mode & 0777);
      if (tmp_fd >= 0)
        created_mode = item->st.st_mode & 0777;
      else if (errno == EISDIR || errno == ENOENT || _cs_io_is_unsupported (errno))
        {
          /* Kernels and filesystems without O_TMPFILE answer these. */
          atomic_store (&job->no_unnamed, 1);
          unnamed = FALSE;
        }
      else
        {
          o = fail (errno, "create");
          goto out;
        }
    }

  /* Beside the final files a named temporary is private (0600) until
   * published. Nobody else can reach an unnamed one, or one in our own staging
   * folder (0700), so those are created with their final permissions and
   * usually need no chmod. */
  if (!unnamed)
    {
      if (folder_fd != item->dir->dst_fd)
        created_mode = item->st.st_mode & 0777;

      /* A new file that will be published by a claim is written under the
       * name that says so (publish_claimed), which saves renaming it there:
       * 3 of the 25 SMB2 requests a small file took. */
      if (action == CS_ACTION_COPY && folder_fd == item->dir->dst_fd
          && publishes_by_claim (job, item->dir))
        intent_name (job, final, tmp, sizeof tmp);
      else
        temp_name (job, tmp, sizeof tmp);
      /* Read-write: --verify reads the copy back through this descriptor. */
      tmp_fd = _cs_io_openat (&job->counters, folder_fd, tmp,
                              O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, created_mode);
      if (tmp_fd < 0)
        {
          o = fail (errno, "create");
          tmp[0] = '\0';
          goto out;
        }
    }

  o = OK;
  if (item->dir->src_pseudo)
    o = copy_to_end (job, worker, src_fd, tmp_fd, &item->read_size);
  else if (item->st.st_size > 0)
    {
      gboolean cloned = FALSE;

      if (!atomic_load_explicit (&job->no_clone, memory_order_relaxed) && !is_sparse (&item->st))
        {
          if (_cs_io_clone (&job->counters, tmp_fd, src_fd, (guint64) item->st.st_size) == 0)
            cloned = TRUE;
          else if (_cs_io_is_unsupported (errno))
            atomic_store (&job->no_clone, 1);
          else
            o = fail (errno, "clone");
        }
      if (!cloned && o.code == 0)
        o = copy_data (job, worker, src_fd, tmp_fd, &item->st, 0, (guint64) item->st.st_size);
    }

  when_published = times_when_published (item, &times_state) && action != CS_ACTION_KEEP_BOTH;
  if (o.code == 0)
    o = finish_temp (job, worker, item, src_fd, tmp_fd, created_mode, &item->st, !when_published);
  if (o.code == 0 && unnamed)
    {
      o = publish_unnamed (job, tmp_fd, item->dir, final);
      _cs_io_close (&job->counters, tmp_fd);
      tmp_fd = -1;
    }
  else if (o.code == 0)
    {
      _cs_io_close (&job->counters, tmp_fd);
      tmp_fd = -1;
      o = publish (job, folder_fd, tmp, item->dir, final, action);
      if (o.code == 0)
        tmp[0] = '\0';
    }
  if (o.code == 0)
    keep_times (job, worker, item, action, when_published, times_state);

out:
  if (o.code != 0)
    discard_temp (job, folder_fd, &tmp_fd, tmp);
  _cs_io_close (&job->counters, src_fd);

  return o;
}

/* Whether a failed or stopped resumable copy keeps its partial for a later
 * run: after an interruption that the user chose to resume from, or an error
 * from the system (a lost share, a full disk, EIO); not when the source
 * changed, the copy did not match, or the name was taken meanwhile. */
static gboolean
keeps_partial (CsJob *job,
               int    code)
{
  if (code == CS_ERR_STOPPED)
    return atomic_load (&job->keep_partial);
  return code > 0;
}

/* Whether the server copied the whole last range itself (SMB copy-chunk): to
 * hash it for a journal, its bytes would come back over the network, which
 * costs every copy more than copying it again, in the server, costs the rare
 * one that is interrupted. Such blocks are not journaled. */
static gboolean
copied_by_server (const CsWorker *worker,
                  int             dst_fd,
                  guint64         length)
{
  const CsIoTable *backend;

  if (worker->in_place < length)
    return FALSE;
  backend = _cs_io_backend (dst_fd, NULL);
  return backend != NULL && backend->scheme != NULL;
}

/* A big file through its partial (cs-resume-private.h): the blocks an
 * earlier run wrote and the journal proves are kept, the others copied. */
static Outcome
copy_resumable (CsJob    *job,
                CsWorker *worker,
                CsItem   *item,
                CsAction  action)
{
  const char *final = item->dst_name != NULL ? item->dst_name : item->name;
  guint64 size = (guint64) item->st.st_size;
  CsResume *resume;
  CsTimes times_state;
  gboolean when_published;
  Outcome o = OK;
  gint64 started;
  int src_fd, tmp_fd, code;

  src_fd = open_source (job, item->dir, item->name);
  if (src_fd < 0)
    return fail (errno, "open");
  resume = _cs_resume_open (job, worker, item->dir, final, src_fd, &item->st);
  if (resume == NULL)
    {
      o = errno == EBUSY || errno == EEXIST || _cs_io_is_unsupported (errno)
          ? fail (CS_ERR_NO_RESUME, NULL) : fail (errno, "create");
      _cs_io_close (&job->counters, src_fd);
      return o;
    }
  tmp_fd = _cs_resume_get_fd (resume);
  worker->resumed = _cs_resume_get_kept (resume);

  for (guint64 off = 0; off < size && o.code == 0; off += CS_RESUME_BLOCK)
    {
      guint64 length = MIN (CS_RESUME_BLOCK, size - off);

      if (_cs_resume_has_block (resume, off))
        {
          /* Kept: progress as if copied now. */
          worker->partial += length;
          atomic_fetch_add_explicit (&job->bytes_partial, length, memory_order_relaxed);
          continue;
        }
      /* The fastest way the filesystems allow (copy_file_range), then, where
       * journaling pays (_cs_resume_pays), the block's hash read back from
       * the partial's pages while the next one copies. Hashing from the
       * buffer through pread/pwrite took 2.74 s for a warm 2 GiB against
       * cp's 0.64 s; reading every block back before the next, 1.54 s
       * against 0.54 s (bench/resume-overhead). */
      started = g_get_monotonic_time ();
      o = copy_data (job, worker, src_fd, tmp_fd, &item->st, off, length);
      if (o.code == 0 && !copied_by_server (worker, tmp_fd, length)
          && _cs_resume_pays (length, g_get_monotonic_time () - started)
          && (code = _cs_resume_hash_later (resume, off, length)) != 0)
        o = fail (code, "write journal");
    }
  if (o.code == 0 && (code = _cs_resume_hashed (resume)) != 0)
    o = fail (code, "write journal");
  when_published = times_when_published (item, &times_state) && action != CS_ACTION_KEEP_BOTH;
  if (o.code == 0)
    o = finish_temp (job, worker, item, src_fd, tmp_fd, 0600, &item->st, !when_published);
  if (o.code == 0)
    {
      _cs_resume_release_fd (job, resume);
      o = publish (job, item->dir->dst_fd, _cs_resume_get_name (resume), item->dir, final, action);
    }
  _cs_resume_close (job, resume, o.code == 0, o.code != 0 && keeps_partial (job, o.code));
  if (o.code == 0)
    keep_times (job, worker, item, action, when_published, times_state);
  _cs_io_close (&job->counters, src_fd);

  return o;
}

/* copy_file_attempt, again with a named temporary when an unnamed one could
 * not be linked in (the job then writes named ones from the start). */
static Outcome
copy_file_via (CsJob    *job,
               CsWorker *worker,
               CsItem   *item,
               CsAction  action,
               int       folder_fd)
{
  Outcome o = copy_file_attempt (job, worker, item, action, folder_fd);

  if (o.code == CS_ERR_NO_UNNAMED)
    o = copy_file_attempt (job, worker, item, action, folder_fd);
  return o;
}

static Outcome
copy_file_once (CsJob    *job,
                CsWorker *worker,
                CsItem   *item,
                CsAction  action)
{
  CsStage *stage = NULL;
  Outcome o;

  /* Written beside its final name, never staged: the partial stays there. */
  if (!item->dir->src_pseudo && _cs_resume_wanted (job, &item->st))
    {
      o = copy_resumable (job, worker, item, action);
      if (o.code != CS_ERR_NO_RESUME)
        return o;
    }

  /* Staging pays where workers queue for a folder's lock; one or two workers
   * hardly do, and a rename between folders costs them a round trip more
   * (lab NAS, 100 files, 1 thread: 1.5 s beside, 1.8 s staged). Nor where
   * files are published by a claim: the claim and the renames take the
   * folder's lock anyway, and a staged file is renamed into the folder
   * before its claim, where one written beside is created under its
   * intent's name (3 SMB2 requests a file). */
  if ((job->staging == CS_STAGING_ALWAYS || atomic_load_explicit (&job->threads, memory_order_relaxed) >= 4)
      && !atomic_load_explicit (&item->dir->no_stage, memory_order_relaxed)
      && (job->staging == CS_STAGING_ALWAYS || !publishes_by_claim (job, item->dir)))
    stage = _cs_stage_acquire (job);
  if (stage == NULL)
    return copy_file_via (job, worker, item, action, item->dir->dst_fd);

  o = copy_file_via (job, worker, item, action, stage->fd);
  _cs_stage_release (job, stage);
  /* A folder on another filesystem (a share mounted inside the destination):
   * its files are written beside them, this one again. */
  if (o.code == EXDEV)
    {
      atomic_store (&item->dir->no_stage, 1);
      o = copy_file_via (job, worker, item, action, item->dir->dst_fd);
    }

  return o;
}

static Outcome
copy_symlink_once (CsJob    *job,
                   CsWorker *worker,
                   CsItem   *item,
                   CsAction  action)
{
  const char *final = item->dst_name != NULL ? item->dst_name : item->name;
  gsize size = MAX ((gsize) item->st.st_size + 1, 256);
  g_autofree char *target = g_malloc (size);
  struct timespec times[2] = { item->st.st_atim, item->st.st_mtim };
  char tmp[64];
  ssize_t n;
  Outcome o;

  n = _cs_io_readlinkat (&job->counters, item->dir->src_fd, item->name, target, size);
  if (n < 0)
    return fail (errno, "read link");
  if ((gsize) n >= size)
    return fail (CS_ERR_SOURCE_CHANGED, "read link");
  target[n] = '\0';

  if (_cs_metadata_refused (job, CS_METADATA_LINKS))
    return fail (CS_ERR_NOT_HELD, "create link");
  temp_name (job, tmp, sizeof tmp);
  if (_cs_io_symlinkat (&job->counters, target, item->dir->dst_fd, tmp) != 0)
    return fail (_cs_metadata_refuse (job, CS_METADATA_LINKS, errno) ? CS_ERR_NOT_HELD : errno,
                 "create link");

  if (job->euid == 0)
    _cs_io_fchownat (&job->counters, item->dir->dst_fd, tmp, item->st.st_uid, item->st.st_gid,
                     AT_SYMLINK_NOFOLLOW);
  /* A link's own time is not worth the link: where the destination refuses
   * it, it is only counted. */
  if (_cs_metadata_refused (job, CS_METADATA_LINK_TIMES))
    worker->lost |= 1u << CS_METADATA_LINK_TIMES;
  else if (_cs_io_utimensat (&job->counters, item->dir->dst_fd, tmp, times, AT_SYMLINK_NOFOLLOW) != 0)
    {
      if (!_cs_metadata_refuse (job, CS_METADATA_LINK_TIMES, errno))
        {
          o = fail (errno, "set times");
          _cs_io_unlinkat (&job->counters, item->dir->dst_fd, tmp, 0);
          return o;
        }
      worker->lost |= 1u << CS_METADATA_LINK_TIMES;
    }

  o = publish (job, item->dir->dst_fd, tmp, item->dir, final, action);
  if (o.code != 0)
    _cs_io_unlinkat (&job->counters, item->dir->dst_fd, tmp, 0);

  return o;
}

/*
 * A FIFO or a device node: made anew under a temporary name with mknod, given
 * its owner (as root), mode and times, and published like a file. Never
 * opened: a FIFO's read would wait for a writer, a device's would read the
 * device. Making a device needs root (CAP_MKNOD); without it, or on a
 * destination that cannot hold such nodes, it is skipped with a note.
 */
static Outcome
copy_special_once (CsJob    *job,
                   CsWorker *worker,
                   CsItem   *item,
                   CsAction  action)
{
  const char *final = item->dst_name != NULL ? item->dst_name : item->name;
  struct timespec times[2] = { item->st.st_atim, item->st.st_mtim };
  int dst_fd = item->dir->dst_fd;
  char tmp[64];
  gboolean cleared;
  mode_t mode;
  Outcome o = OK;

  temp_name (job, tmp, sizeof tmp);
  if (_cs_io_mknodat (&job->counters, dst_fd, tmp, (item->st.st_mode & S_IFMT) | 0600,
                      item->st.st_rdev) != 0)
    return fail (errno == EPERM || _cs_io_is_unsupported (errno) ? CS_ERR_CANNOT_MAKE : errno, "create");

  /* What the destination refuses is counted as lost, as for files. */
  if (job->euid == 0 && !_cs_metadata_refused (job, CS_METADATA_OWNERS)
      && _cs_io_fchownat (&job->counters, dst_fd, tmp, item->st.st_uid, item->st.st_gid,
                          AT_SYMLINK_NOFOLLOW) != 0
      && !_cs_metadata_refuse (job, CS_METADATA_OWNERS, errno))
    o = fail (errno, "chown");
  if (job->euid == 0 && _cs_metadata_refused (job, CS_METADATA_OWNERS))
    worker->lost |= 1u << CS_METADATA_OWNERS;
  mode = _cs_metadata_mode (job, dst_fd, tmp, &item->st, &cleared);
  if (cleared)
    worker->lost |= 1u << CS_METADATA_SPECIAL_BITS;
  if (o.code == 0 && !_cs_metadata_refused (job, CS_METADATA_MODES)
      && _cs_io_fchmodat (&job->counters, dst_fd, tmp, mode) != 0
      && !_cs_metadata_refuse (job, CS_METADATA_MODES, errno))
    o = fail (errno, "chmod");
  if (_cs_metadata_refused (job, CS_METADATA_MODES))
    worker->lost |= 1u << CS_METADATA_MODES;
  if (o.code == 0
      && _cs_io_utimensat (&job->counters, dst_fd, tmp, times, AT_SYMLINK_NOFOLLOW) != 0)
    o = fail (errno, "set times");
  if (o.code == 0)
    o = publish (job, dst_fd, tmp, item->dir, final, action);
  if (o.code != 0)
    _cs_io_unlinkat (&job->counters, dst_fd, tmp, 0);

  return o;
}

/*
 * The final name was taken while we copied: by another program, whose file is
 * left alone and reported — or by another copy of the same file (two identical
 * runs at once), whose file is what ours would have been. That one is what a
 * rerun would skip as identical (the same type, size and time at the
 * precision the destination keeps), so it counts as skipped, not as a
 * failure.
 */
static gboolean
appeared_identical (CsJob             *job,
                    CsDir             *dir,
                    const char        *final,
                    const struct stat *src)
{
  struct stat dst;

  return _cs_io_fstatat (&job->counters, dir->dst_fd, final, &dst, AT_SYMLINK_NOFOLLOW) == 0
         && (dst.st_mode & S_IFMT) == (src->st_mode & S_IFMT) && dst.st_size == src->st_size
         && same_mtime (&dst, src);
}

static void
record_failure (CsJob      *job,
                CsItem     *item,
                const char *name,
                Outcome     o,
                guint       attempts,
                guint64     size)
{
  CsDir *dir = item->dir;

  if (o.code == CS_ERR_STOPPED)
    return;
  if (job->settings.operation == CS_OPERATION_MOVE)
    atomic_fetch_add (&job->kept_files, 1);
  if (job->log != NULL)
    {
      const char *message = outcome_message (o.code);
      g_autofree char *why = g_strdup_printf ("%s: %s", o.op != NULL ? o.op : "copy",
                                              message != NULL ? message : g_strerror (MAX (o.code, 0)));

      _cs_job_log (job, dir, item->name, "failed", size, why);
    }
  if (o.code == CS_ERR_NOT_HELD)
    _cs_metadata_lost (job, CS_METADATA_LINKS, dir, name, FALSE);
  else if (is_fatal (o.code))
    {
      /* The file that met the fatal error names it; the job report filters the
       * echoes of that error from elsewhere, so this one goes in directly. */
      g_autofree char *path = _cs_dir_dup_path (dir, name, FALSE);

      _cs_run_add_error (job->run, path, o.op != NULL ? o.op : "copy", MAX (o.code, 0),
                         outcome_message (o.code), attempts);
    }
  else
    _cs_job_report (job, dir, name, o.op != NULL ? o.op : "copy", o.code > 0 ? o.code : 0,
                    outcome_message (o.code), attempts);
  _cs_job_add_total (job, o.code == CS_ERR_MISMATCH ? CS_CLASS_MISMATCH : CS_CLASS_FAILED, 1, size);
  atomic_fetch_add_explicit (&job->counters.files_done, 1, memory_order_relaxed);
  atomic_fetch_add_explicit (&job->counters.bytes_done, size, memory_order_relaxed);
}

/* @item is published: what the destination did not keep of it counts now. */
static void
record_success (CsJob    *job,
                CsWorker *worker,
                CsItem   *item,
                CsAction  action,
                guint64   size)
{
  const char *final = item->dst_name != NULL ? item->dst_name : item->name;

  for (guint i = 0; i < CS_N_METADATA; i++)
    if (worker->lost & (1u << i))
      _cs_metadata_lost (job, i, item->dir, final, FALSE);
  /* A move logs the file once its source is gone (cs-move.c). */
  if (job->settings.operation == CS_OPERATION_MOVE)
    _cs_move_copied (job, item);
  else if (worker->resumed > 0)
    {
      g_autofree char *why = g_strdup_printf ("at %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " bytes",
                                              worker->resumed, size);

      _cs_job_log (job, item->dir, item->name, "resumed", size, why);
    }
  else
    _cs_job_log (job, item->dir, item->name, action == CS_ACTION_REPLACE ? "replaced" : "copied", size, NULL);
  _cs_job_count_done (job, CS_CLASS_COPIED, size);
}

/* Runs @once with retries; returns the last outcome. */
static Outcome
with_retries (CsJob    *job,
              Outcome (*once) (CsJob *, CsWorker *, CsItem *, CsAction),
              CsWorker *worker,
              CsItem   *item,
              CsAction  action,
              guint    *out_attempts)
{
  double wait = job->settings.wait;
  Outcome o = OK;
  guint attempt;

  for (attempt = 1; ; attempt++)
    {
      o = check_removed (job, item->dir, once (job, worker, item, action));
      if (o.code == 0 || o.code == CS_ERR_STOPPED)
        break;
      if (is_fatal (o.code))
        {
          settle_fatal (job, &o);
          break;
        }
      /* After a stop, a failure is one of its echoes (the destination gone, a
       * cancel in flight): cancelled with the rest. */
      if (_cs_job_stopping (job))
        {
          o.code = CS_ERR_STOPPED;
          break;
        }
      if (!is_retriable (o.code) || attempt > job->settings.retries)
        break;
      /* A file that changed under us is copied again as it is now. */
      if (o.code == CS_ERR_SOURCE_CHANGED && item->kind != CS_ITEM_CHUNK
          && _cs_io_fstatat (&job->counters, item->dir->src_fd, item->name, &item->st,
                             AT_SYMLINK_NOFOLLOW) != 0)
        break;
      if (!_cs_job_sleep (job, wait))
        {
          o.code = CS_ERR_STOPPED;
          break;
        }
      wait = MIN (wait * 2, 30.0);
    }

  *out_attempts = attempt;
  return o;
}

static Outcome
symlink_once (CsJob    *job,
              CsWorker *worker,
              CsItem   *item,
              CsAction  action)
{
  return copy_symlink_once (job, worker, item, action);
}

static Outcome
special_once (CsJob    *job,
              CsWorker *worker,
              CsItem   *item,
              CsAction  action)
{
  return copy_special_once (job, worker, item, action);
}

static void settle_first (CsJob *job, CsWorker *worker, CsLink *link, gboolean ready);

static Outcome
open_big (CsJob    *job,
          CsWorker *worker,
          CsItem   *item)
{
  CsBig *big = item->big;

  big->src_fd = open_source (job, item->dir, item->name);
  if (big->src_fd < 0)
    return fail (errno, "open");
  if (_cs_resume_wanted (job, &item->st))
    {
      const char *final = item->dst_name != NULL ? item->dst_name : item->name;

      big->resume = _cs_resume_open (job, worker, item->dir, final, big->src_fd, &item->st);
      if (big->resume != NULL)
        {
          big->tmp_fd = _cs_resume_get_fd (big->resume);
          g_strlcpy (big->tmp_name, _cs_resume_get_name (big->resume), sizeof big->tmp_name);
          goto sized;
        }
      if (errno != EBUSY && errno != EEXIST && !_cs_io_is_unsupported (errno))
        return fail (errno, "create");
    }
  temp_name (job, big->tmp_name, sizeof big->tmp_name);
  big->tmp_fd = _cs_io_openat (&job->counters, item->dir->dst_fd, big->tmp_name,
                               O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
  if (big->tmp_fd < 0)
    {
      big->tmp_name[0] = '\0';
      return fail (errno, "create");
    }
sized:
  /* The final size up front: chunks land at their offsets and holes stay
   * holes; a partial keeps what it holds. */
  if (_cs_io_ftruncate (&job->counters, big->tmp_fd, item->st.st_size) != 0)
    return fail (errno, "truncate");

  return OK;
}

/* ---- Big files ------------------------------------------------------ */

CsBig *
_cs_big_new (int n_chunks)
{
  CsBig *big = g_new0 (CsBig, 1);

  atomic_init (&big->ref, 1);
  atomic_init (&big->remaining, n_chunks);
  g_mutex_init (&big->lock);
  big->src_fd = -1;
  big->tmp_fd = -1;

  return big;
}

void
_cs_big_unref (CsJob *job,
               CsBig *big)
{
  if (atomic_fetch_sub (&big->ref, 1) != 1)
    return;

  atomic_fetch_sub_explicit (&job->bytes_partial, atomic_load (&big->partial), memory_order_relaxed);
  /* The last chunk closed it; a file whose last chunk never ran keeps it. */
  if (big->resume != NULL)
    {
      _cs_resume_close (job, big->resume, FALSE, TRUE);
      big->tmp_fd = -1;
      big->tmp_name[0] = '\0';
    }
  if (big->tmp_fd >= 0)
    _cs_io_close (&job->counters, big->tmp_fd);
  if (!big->published && big->tmp_name[0] != '\0' && big->dir != NULL)
    _cs_io_unlinkat (&job->counters, big->dir->dst_fd, big->tmp_name, 0);
  if (big->src_fd >= 0)
    _cs_io_close (&job->counters, big->src_fd);
  if (big->link != NULL)
    {
      _cs_item_abandon_link (job, big->link);
      _cs_link_unref (big->link);
    }
  if (big->dir != NULL)
    _cs_dir_unref (big->dir);
  g_free (big->error_op);
  g_mutex_clear (&big->lock);
  g_free (big);
}

/* The last chunk is done with the file: its partial, if any, stays for a
 * later run or goes (see keeps_partial). */
static void
end_resume (CsJob  *job,
            CsBig  *big,
            int     code)
{
  if (big->resume == NULL)
    return;
  _cs_resume_close (job, big->resume, big->published, !big->published && keeps_partial (job, code));
  big->resume = NULL;
  big->tmp_fd = -1;
  big->tmp_name[0] = '\0';
}

/* The big file's temporary opened again by this worker, where a server can
 * copy the chunk itself: libsmbclient's copy-chunk takes two files open on
 * one connection, and each worker has its own while the temporary was opened
 * by the first. -1 elsewhere, or when the job copies through its buffer. */
static int
open_own_partial (CsJob    *job,
                  CsItem   *item,
                  int       src_fd)
{
  const CsIoTable *src = _cs_io_backend (src_fd, NULL);
  const CsIoTable *dst = _cs_io_backend (item->big->tmp_fd, NULL);

  if (src == NULL || src != dst || dst->scheme == NULL
      || atomic_load_explicit (&job->no_copy_range, memory_order_relaxed))
    return -1;
  return _cs_io_openat (&job->counters, item->dir->dst_fd, item->big->tmp_name,
                        O_WRONLY | O_NOFOLLOW, 0);
}

static Outcome
chunk_once (CsJob    *job,
            CsWorker *worker,
            CsItem   *item,
            CsAction  action)
{
  Outcome o;
  int fd, own_tmp;

  if (item->big->resume != NULL && _cs_resume_has_block (item->big->resume, item->offset))
    {
      /* Kept from an earlier run: progress as if copied now. */
      worker->partial += item->length;
      atomic_fetch_add_explicit (&job->bytes_partial, item->length, memory_order_relaxed);
      return OK;
    }

  /* A descriptor of its own: readahead state lives in the open file, and chunks
   * read at different offsets through one descriptor defeat it. */
  fd = open_source (job, item->dir, item->name);
  if (fd < 0)
    return fail (errno, "open");
  own_tmp = open_own_partial (job, item, fd);
  if (own_tmp >= 0)
    {
      /* Not journaled (copied_by_server): what the server copied is copied
       * again, there, after an interruption. */
      o = copy_data (job, worker, fd, own_tmp, &item->st, item->offset, item->length);
      _cs_io_close (&job->counters, own_tmp);
    }
  else if (item->big->resume != NULL)
    {
      guint64 hash;
      int code;

      o = copy_range_hashed (job, worker, fd, item->big->tmp_fd, item->offset, item->length,
                             (guint64) item->st.st_size, &hash);
      if (o.code == 0
          && (code = _cs_resume_wrote_block (job, item->big->resume, item->offset, item->length, hash)) != 0)
        o = fail (code, "write journal");
    }
  else
    o = copy_data (job, worker, fd, item->big->tmp_fd, &item->st, item->offset, item->length);
  _cs_io_close (&job->counters, fd);

  return o;
}

static void
copy_chunk (CsJob    *job,
            CsWorker *worker,
            CsItem   *item)
{
  CsBig *big = item->big;
  CsAction action = item->keep_both ? CS_ACTION_KEEP_BOTH : item->replace ? CS_ACTION_REPLACE : CS_ACTION_COPY;
  const char *final = item->dst_name != NULL ? item->dst_name : item->name;
  Outcome o = OK;
  CsTimes times_state;
  gboolean when_published;
  guint attempts = 1;
  gboolean skip;

  /* The file counts against a files/s limit once, when its first chunk
   * starts, and waits for it before taking the file's lock. */
  if (item->offset == 0 && !_cs_limiter_take (&job->file_limit, 1))
    skip = TRUE;
  else
    skip = FALSE;

  _cs_mutex_lock (&big->lock);
  if (!skip && !big->opened && !big->failed && !_cs_job_stopping (job))
    {
      big->opened = TRUE;
      big->dir = _cs_dir_ref (item->dir);
      o = check_removed (job, item->dir, open_big (job, worker, item));
      if (is_fatal (o.code))
        settle_fatal (job, &o);
      if (o.code != 0)
        {
          big->failed = TRUE;
          big->error_code = o.code;
          big->error_op = g_strdup (o.op);
        }
    }
  skip = skip || big->failed || !big->opened;
  _cs_mutex_unlock (&big->lock);

  if (!skip && !_cs_job_stopping (job))
    {
      o = with_retries (job, chunk_once, worker, item, action, &attempts);
      if (o.code != 0)
        {
          /* Chunks fail together when the share fills up: the one that
           * stopped the job keeps its code, its neighbours only see the stop.
           * Whichever takes the lock first, the file keeps the real cause. */
          _cs_mutex_lock (&big->lock);
          if (!big->failed || (big->error_code == CS_ERR_STOPPED && o.code != CS_ERR_STOPPED))
            {
              big->failed = TRUE;
              big->error_code = o.code;
              g_free (big->error_op);
              big->error_op = g_strdup (o.op);
            }
          _cs_mutex_unlock (&big->lock);
        }
    }

  if (atomic_fetch_sub (&big->remaining, 1) != 1)
    return;

  /* The last chunk out finishes the file. A chunk that met the job's fatal
   * error kept its code (settle_fatal): this file is the one that names it. */
  if (big->failed || !big->opened || _cs_job_stopping (job))
    {
      end_resume (job, big, big->failed ? big->error_code : CS_ERR_STOPPED);
      if (big->failed && big->error_code != CS_ERR_STOPPED
          && (!_cs_job_stopping (job) || is_fatal (big->error_code)))
        record_failure (job, item, final, fail (big->error_code, big->error_op), attempts,
                        (guint64) item->st.st_size);
      return;
    }

  when_published = times_when_published (item, &times_state) && action != CS_ACTION_KEEP_BOTH;
  o = finish_temp (job, worker, item, big->src_fd, big->tmp_fd, 0600, &item->st, !when_published);
  if (o.code == 0)
    {
      /* A partial's descriptor may hold its lock until its journal is gone. */
      if (big->resume == NULL)
        {
          _cs_io_close (&job->counters, big->tmp_fd);
          big->tmp_fd = -1;
        }
      else if (_cs_resume_release_fd (job, big->resume))
        big->tmp_fd = -1;
      o = publish (job, item->dir->dst_fd, big->tmp_name, item->dir, final, action);
      if (o.code == 0)
        big->published = TRUE;
    }
  if (big->resume != NULL)
    worker->resumed = _cs_resume_get_kept (big->resume);
  end_resume (job, big, o.code);
  o = check_removed (job, item->dir, o);
  if (is_fatal (o.code))
    settle_fatal (job, &o);
  if (o.code == 0)
    keep_times (job, worker, item, action, when_published, times_state);
  if (o.code == 0)
    {
      record_success (job, worker, item, action, (guint64) item->st.st_size);
      if (action != CS_ACTION_KEEP_BOTH)
        _cs_manifest_copied (job, worker, item);
    }
  else if (o.code == CS_ERR_APPEARED && appeared_identical (job, item->dir, final, &item->st))
    {
      _cs_job_account (job, item->dir, item->name, final, CS_ACTION_SKIP, (guint64) item->st.st_size);
      _cs_manifest_kept (job, worker, item);
    }
  else
    record_failure (job, item, final, o, 1, (guint64) item->st.st_size);
  if (big->link != NULL)
    settle_first (job, worker, big->link,
                  (o.code == 0 && action != CS_ACTION_KEEP_BOTH) || o.code == CS_ERR_APPEARED);
}

/* A later name's copy in place of a link: the destination cannot link
 * (FAT, most SMB shares; then it is not asked again), the first name's copy
 * is gone, or it has too many links. The contents are the same either way,
 * and what was not kept is said at the end (cs-metadata.c). */
static gboolean
link_refused (CsJob *job,
              int    code)
{
  if (_cs_metadata_refuse (job, CS_METADATA_HARD_LINKS, code))
    return TRUE;
  return code == EMLINK || code == EXDEV || code == ENOENT || code == ENAMETOOLONG
         || _cs_io_is_unsupported (code);
}

/* A later name of a file, linked to the copy of its first name: new by one
 * hard link (which fails on an existing name, as RENAME_NOREPLACE does); in
 * place of an older file by a link under a temporary name and a rename over
 * it, so the old file stays whole until then. */
static Outcome
link_once (CsJob    *job,
           CsWorker *worker,
           CsItem   *item,
           CsAction  action)
{
  const char *final = item->dst_name != NULL ? item->dst_name : item->name;
  const char *target = _cs_link_target (item->link);
  int dst_fd = item->dir->dst_fd;
  char tmp[64];
  Outcome o;

  if (action == CS_ACTION_COPY)
    {
      if (_cs_io_linkat (&job->counters, AT_FDCWD, target, dst_fd, final, 0) == 0)
        return OK;
      if (errno == EEXIST)
        return fail (CS_ERR_APPEARED, "link");
      return fail (link_refused (job, errno) ? CS_ERR_NO_LINK : errno, "link");
    }

  temp_name (job, tmp, sizeof tmp);
  if (_cs_io_linkat (&job->counters, AT_FDCWD, target, dst_fd, tmp, 0) != 0)
    return fail (link_refused (job, errno) ? CS_ERR_NO_LINK : errno, "link");
  if (_cs_io_renameat2 (&job->counters, dst_fd, tmp, dst_fd, final, 0) == 0)
    return OK;
  o = fail (errno, "rename");
  _cs_io_unlinkat (&job->counters, dst_fd, tmp, 0);
  return o;
}

/* Whether @final in @item's destination folder is its first name's copy
 * already (one file, linked). */
static gboolean
same_file_as_target (CsJob      *job,
                     CsItem     *item,
                     const char *final)
{
  struct stat a, b;

  if (_cs_io_fstatat (&job->counters, AT_FDCWD, _cs_link_target (item->link), &a, AT_SYMLINK_NOFOLLOW) != 0
      || _cs_io_fstatat (&job->counters, item->dir->dst_fd, final, &b, AT_SYMLINK_NOFOLLOW) != 0)
    return TRUE;   /* nothing to link to, or nothing there: left as decided */
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The first name of a file is done: @ready when its copy is at the
 * destination, identical. The names that waited for it are taken up here. */
static void
settle_first (CsJob    *job,
              CsWorker *worker,
              CsLink   *link,
              gboolean  ready)
{
  CsItem *waiter = _cs_link_settle (job, link, ready);

  while (waiter != NULL)
    {
      CsItem *next = waiter->next;

      waiter->next = NULL;
      /* Settled: it cannot be put aside again. */
      _cs_copy_item (job, worker, waiter);
      _cs_item_free (waiter);
      _cs_job_release_held (job);
      waiter = next;
    }
}

/* worker thread */
gboolean
_cs_copy_item (CsJob    *job,
               CsWorker *worker,
               CsItem   *item)
{
  const char *final = item->dst_name != NULL ? item->dst_name : item->name;
  guint64 size = item->kind == CS_ITEM_SYMLINK ? 0 : (guint64) item->st.st_size;
  gboolean first = item->link != NULL && item->link_first;
  gboolean linked = FALSE, ready = FALSE;
  CsAction action;
  guint attempts = 0;
  Outcome o;

  worker->partial = 0;
  worker->lost = 0;
  worker->resumed = 0;
  worker->has_digest = FALSE;
  if (item->kind == CS_ITEM_CHUNK)
    {
      copy_chunk (job, worker, item);
      /* A big file's chunks count as progress until the whole file is done. */
      atomic_fetch_add (&item->big->partial, worker->partial);
      _cs_big_unref (job, item->big);
      return TRUE;
    }

  if (_cs_job_stopping (job))
    return TRUE;

  /* A later name: linked once its first name's copy is there; until then
   * it waits with that file, off the queue. */
  if (item->link != NULL && !first)
    switch (_cs_link_wait (job, item))
      {
      case CS_LINK_PENDING:
        return FALSE;
      case CS_LINK_READY:
        linked = TRUE;
        break;
      case CS_LINK_NONE:
      default:
        break;
      }

  action = _cs_copy_decide (job, item->dir, item->name, final, &item->st);
  /* The same data under a later name is not yet the same file: names
   * linked since the last run are linked here too (rsync -H). */
  if (linked && action == CS_ACTION_SKIP && job->settings.operation != CS_OPERATION_MOVE
      && !same_file_as_target (job, item, final))
    action = CS_ACTION_REPLACE;
  _cs_job_count_decided (job, action);
  if (job->settings.operation == CS_OPERATION_MOVE && _cs_move_item (job, worker, item, action))
    {
      _cs_manifest_moved (job, worker, item, action);
      /* As for a copy, only an identical file there is one the later names
       * may share; renamed ones keep their links by themselves. */
      if (first)
        settle_first (job, worker, item->link, action == CS_ACTION_SKIP);
      return TRUE;
    }
  if (action >= CS_ACTION_SKIP)
    {
      _cs_job_account (job, item->dir, item->name, final, action, size);
      if (action != CS_ACTION_FAIL)
        _cs_manifest_kept (job, worker, item);
      /* Only an identical file there is one the later names may share. */
      if (first)
        settle_first (job, worker, item->link, action == CS_ACTION_SKIP);
      return TRUE;
    }
  if (!_cs_limiter_take (&job->file_limit, 1))
    return TRUE;

  o = fail (CS_ERR_NO_LINK, NULL);
  if (linked && action != CS_ACTION_KEEP_BOTH && !_cs_metadata_refused (job, CS_METADATA_HARD_LINKS))
    o = with_retries (job, link_once, worker, item, action, &attempts);
  if (o.code == CS_ERR_NO_LINK && linked)
    worker->lost |= 1u << CS_METADATA_HARD_LINKS;
  if (o.code == CS_ERR_NO_LINK)
    o = with_retries (job, item->kind == CS_ITEM_SYMLINK ? symlink_once
                           : item->kind == CS_ITEM_SPECIAL ? special_once : copy_file_once,
                      worker, item, action, &attempts);
  atomic_fetch_sub_explicit (&job->bytes_partial, worker->partial, memory_order_relaxed);
  if (o.code == 0 && item->dir->src_pseudo)
    {
      /* Counted by its size when found; by what it held once read. */
      _cs_job_correct_found_bytes (job, size, item->read_size);
      record_success (job, worker, item, action, item->read_size);
    }
  else if (o.code == 0)
    {
      record_success (job, worker, item, action, size);
      ready = action != CS_ACTION_KEEP_BOTH;
    }
  else if (o.code == CS_ERR_APPEARED && appeared_identical (job, item->dir, final, &item->st))
    {
      _cs_job_account (job, item->dir, item->name, final, CS_ACTION_SKIP, size);
      _cs_manifest_kept (job, worker, item);
      ready = TRUE;
    }
  else if (o.code == CS_ERR_CANNOT_MAKE)
    {
      const char *message = S_ISFIFO (item->st.st_mode) || job->euid == 0
                            ? "Not copied: the destination cannot hold this FIFO or device"
                            : "Not copied: only root can make a device node";

      _cs_job_note (job, item->dir, item->name, "special file", 0, message);
      _cs_job_log (job, item->dir, item->name, "skipped", 0, message + strlen ("Not copied: "));
      _cs_job_add_total (job, CS_CLASS_SKIPPED, 1, 0);
      atomic_fetch_add_explicit (&job->counters.files_done, 1, memory_order_relaxed);
      if (job->settings.operation == CS_OPERATION_MOVE)
        atomic_fetch_add (&job->kept_files, 1);
    }
  else
    record_failure (job, item, final, o, attempts, size);

  /* A "keep both" copy went under another name, which the manifest does
   * not learn. */
  if (o.code == 0 && action != CS_ACTION_KEEP_BOTH)
    _cs_manifest_copied (job, worker, item);
  if (first)
    settle_first (job, worker, item->link, ready);
  return TRUE;
}
