/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-copy"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <xxhash.h>

#include "cs-copy-data-private.h"
#include "cs-job-private.h"
#include "cs-limiter-private.h"
#include "cs-manifest-private.h"

/*
 * A file's bytes, from the source to the temporary: copy_file_range where
 * the kernel or a server copies them, else through the worker's buffer (or a
 * big one the job lends for a share); data extents only for a sparse file;
 * read to the end for a pseudo-file; the speed limit taken per request.
 */

int
_cs_copy_open_source (CsJob      *job,
                      CsDir      *dir,
                      const char *name)
{
  int flags = O_RDONLY | O_NOFOLLOW;
  int fd;

  if (!atomic_load_explicit (&job->caps.no_noatime, memory_order_relaxed))
    {
      fd = _cs_io_openat (&job->counters, dir->src_fd, name, flags | O_NOATIME, 0);
      if (fd >= 0 || errno != EPERM)
        return fd;
      /* Only the owner (or root) may ask for no access-time updates. */
      atomic_store (&job->caps.no_noatime, 1);
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
  if (!_cs_limiter_is_on (&job->limits.byte_limit))
    return want;
  want = MIN (want, _cs_limiter_request_size (&job->limits.byte_limit, LIMITED_REQUEST_MIN, CS_REQUEST_MAX));
  return _cs_limiter_take (&job->limits.byte_limit, (double) want) ? want : 0;
}

/* After it: gives back what the request took and did not move. */
void
_cs_copy_limit_refund (CsJob   *job,
                       guint64  taken,
                       gssize   moved)
{
  if (moved < 0 || (guint64) moved < taken)
    _cs_limiter_refund (&job->limits.byte_limit, (double) (taken - (guint64) MAX (moved, 0)));
}

/* Whether @fd is a file a backend of URLs reaches (on an SMB share). */
gboolean
_cs_copy_on_share (int fd)
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
      && _cs_copy_on_share (dst_fd) && !_cs_copy_on_share (src_fd))
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
static CsOutcome
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
        return _cs_fail (CS_ERR_STOPPED, NULL);
      want = _cs_copy_limit_take (job, want);
      if (want == 0)
        return _cs_fail (CS_ERR_STOPPED, NULL);

      if (!atomic_load_explicit (&job->caps.no_copy_range, memory_order_relaxed))
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
              atomic_fetch_add_explicit (&job->tally.bytes_partial, (guint64) n, memory_order_relaxed);
              continue;
            }
          if (n < 0 && !_cs_io_is_unsupported (errno))
            return _cs_fail (errno, "copy");
          if (n < 0)
            atomic_store (&job->caps.no_copy_range, 1);
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
        return _cs_fail (errno, "read");
      if (n == 0)
        return _cs_fail (CS_ERR_SOURCE_CHANGED, "read");

      for (ssize_t w = 0; w < n;)
        {
          ssize_t m = _cs_io_pwrite (&job->counters, dst_fd, buffer + w, (size_t) (n - w),
                                     (off_t) (offset + done + (guint64) w));
          if (m < 0)
            return _cs_fail (errno, "write");
          if (m == 0)
            return _cs_fail (EIO, "write");
          w += m;
        }
      done += (guint64) n;
      worker->partial += (guint64) n;
      atomic_fetch_add_explicit (&job->tally.bytes_partial, (guint64) n, memory_order_relaxed);
    }

  return CS_OK;
}

/* Copies [offset, offset + length) of a file of @file_size bytes with the
 * fastest method the filesystems allow. */
static CsOutcome
copy_range (CsJob    *job,
            CsWorker *worker,
            int       src_fd,
            int       dst_fd,
            guint64   offset,
            guint64   length,
            guint64   file_size)
{
  CsOutcome o = copy_range_through (job, worker, src_fd, dst_fd, offset, length, file_size);

  release_buffer (job, worker);
  return o;
}

/* Like copy_range, through take_buffer's buffer, with the XXH3 of the bytes
 * written in @out_hash: a partial's journal (cs-resume-private.h) needs
 * each block's hash, and taking it from the buffer costs no second read of
 * either file. */
CsOutcome
_cs_copy_range_hashed (CsJob    *job,
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
  CsOutcome o = CS_OK;

  XXH3_64bits_reset (state);
  while (done < length && o.code == 0)
    {
      guint64 want = MIN (length - done, buffer_size);
      ssize_t n;

      if (!_cs_job_wait_if_paused (job) || (want = _cs_copy_limit_take (job, want)) == 0)
        {
          o = _cs_fail (CS_ERR_STOPPED, NULL);
          break;
        }
      n = _cs_io_pread (&job->counters, src_fd, buffer, want, (off_t) (offset + done));
      _cs_copy_limit_refund (job, want, n);
      if (n <= 0)
        {
          o = n < 0 ? _cs_fail (errno, "read") : _cs_fail (CS_ERR_SOURCE_CHANGED, "read");
          break;
        }
      XXH3_64bits_update (state, buffer, (size_t) n);
      for (ssize_t w = 0; w < n;)
        {
          ssize_t m = _cs_io_pwrite (&job->counters, dst_fd, buffer + w, (size_t) (n - w),
                                     (off_t) (offset + done + (guint64) w));
          if (m <= 0)
            {
              o = m < 0 ? _cs_fail (errno, "write") : _cs_fail (EIO, "write");
              break;
            }
          w += m;
        }
      done += (guint64) n;
      worker->partial += (guint64) n;
      atomic_fetch_add_explicit (&job->tally.bytes_partial, (guint64) n, memory_order_relaxed);
    }
  *out_hash = XXH3_64bits_digest (state);
  XXH3_freeState (state);
  release_buffer (job, worker);

  return o;
}

/* Like copy_range, but only the data extents, so holes stay holes. */
static CsOutcome
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
      CsOutcome o;

      if (data < 0)
        {
          if (errno == ENXIO)
            return CS_OK;          /* only a hole is left */
          if (_cs_io_is_unsupported (errno))
            return copy_range (job, worker, src_fd, dst_fd, pos, end - pos, file_size);
          return _cs_fail (errno, "seek");
        }
      if ((guint64) data >= end)
        return CS_OK;
      hole = _cs_io_lseek (&job->counters, src_fd, data, SEEK_HOLE);
      if (hole < 0)
        return _cs_fail (errno, "seek");
      o = copy_range (job, worker, src_fd, dst_fd, (guint64) data, MIN ((guint64) hole, end) - (guint64) data,
                      file_size);
      if (o.code != 0)
        return o;
      pos = (guint64) hole;
    }

  return CS_OK;
}

gboolean
_cs_copy_is_sparse (const struct stat *st)
{
  return st->st_size > 0 && (guint64) st->st_blocks * 512 < (guint64) st->st_size;
}

CsOutcome
_cs_copy_data (CsJob             *job,
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
  if (_cs_copy_is_sparse (st))
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
CsOutcome
_cs_copy_to_end (CsJob    *job,
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
        return _cs_fail (errno, "read");
      if (n == 0)
        break;
      for (ssize_t w = 0; w < n;)
        {
          ssize_t m = _cs_io_pwrite (&job->counters, dst_fd, worker->buffer + w, (size_t) (n - w),
                                     (off_t) (done + (guint64) w));
          if (m < 0)
            return _cs_fail (errno, "write");
          if (m == 0)
            return _cs_fail (EIO, "write");
          w += m;
        }
      done += (guint64) n;
      worker->partial += (guint64) n;
      atomic_fetch_add_explicit (&job->tally.bytes_partial, (guint64) n, memory_order_relaxed);
      if (!_cs_job_wait_if_paused (job))
        return _cs_fail (CS_ERR_STOPPED, NULL);
    }
  *out_size = done;
  return CS_OK;
}

/* XXH3-128 of @fd's @size bytes in @xxh (16 bytes, canonical), and SHA-256
 * in @sha when it is not NULL: one read serves --verify and the manifest. */
CsOutcome
_cs_copy_hash_file (CsJob    *job,
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
          return _cs_fail (saved, "verify");
        }
      if (n == 0)
        break;
      _cs_hasher_update (&hasher, worker->buffer, (size_t) n);
      pos += (guint64) n;
    }
  _cs_hasher_finish (&hasher, xxh, sha);

  return pos == size ? CS_OK : _cs_fail (CS_ERR_MISMATCH, "verify");
}

/* Whether the server copied the whole last range itself (SMB copy-chunk): to
 * hash it for a journal, its bytes would come back over the network, which
 * costs every copy more than copying it again, in the server, costs the rare
 * one that is interrupted. Such blocks are not journaled. */
gboolean
_cs_copied_by_server (const CsWorker *worker,
                      int             dst_fd,
                      guint64         length)
{
  const CsIoTable *backend;

  if (worker->in_place < length)
    return FALSE;
  backend = _cs_io_backend (dst_fd, NULL);
  return backend != NULL && backend->scheme != NULL;
}
