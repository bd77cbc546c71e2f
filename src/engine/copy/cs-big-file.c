/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-copy"

#include "config.h"

#include <errno.h>
#include <fcntl.h>

#include "cs-big-file-private.h"
#include "cs-copy-attrs-private.h"
#include "cs-copy-data-private.h"
#include "cs-copy-outcome-private.h"
#include "cs-dir-private.h"
#include "cs-job-private.h"
#include "cs-limiter-private.h"
#include "cs-links-private.h"
#include "cs-manifest-private.h"
#include "cs-publish-private.h"
#include "cs-resume-private.h"

/*
 * A big file copied in chunks by several workers at once (CsBig): the first
 * chunk opens its temporary (or the partial an earlier run left) at its final
 * size, each chunk writes its range, and the last one out finishes, publishes
 * and records the file.
 */

static CsOutcome
open_big (CsJob    *job,
          CsWorker *worker,
          CsItem   *item)
{
  CsBig *big = item->big;

  big->src_fd = _cs_copy_open_source (job, item->dir, item->name);
  if (big->src_fd < 0)
    return _cs_fail (errno, "open");
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
        return _cs_fail (errno, "create");
    }
  _cs_publish_temp_name (job, big->tmp_name, sizeof big->tmp_name);
  big->tmp_fd = _cs_io_openat (&job->counters, item->dir->dst_fd, big->tmp_name,
                               O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
  if (big->tmp_fd < 0)
    {
      big->tmp_name[0] = '\0';
      return _cs_fail (errno, "create");
    }
sized:
  /* The final size up front: chunks land at their offsets and holes stay
   * holes; a partial keeps what it holds. */
  if (_cs_io_ftruncate (&job->counters, big->tmp_fd, item->st.st_size) != 0)
    return _cs_fail (errno, "truncate");

  return CS_OK;
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

  atomic_fetch_sub_explicit (&job->tally.bytes_partial, atomic_load (&big->partial), memory_order_relaxed);
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
 * later run or goes (see _cs_copy_keeps_partial). */
static void
end_resume (CsJob  *job,
            CsBig  *big,
            int     code)
{
  if (big->resume == NULL)
    return;
  _cs_resume_close (job, big->resume, big->published, !big->published && _cs_copy_keeps_partial (job, code));
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
      || atomic_load_explicit (&job->caps.no_copy_range, memory_order_relaxed))
    return -1;
  return _cs_io_openat (&job->counters, item->dir->dst_fd, item->big->tmp_name,
                        O_WRONLY | O_NOFOLLOW, 0);
}

static CsOutcome
chunk_once (CsJob    *job,
            CsWorker *worker,
            CsItem   *item,
            CsAction  action)
{
  CsOutcome o;
  int fd, own_tmp;

  if (item->big->resume != NULL && _cs_resume_has_block (item->big->resume, item->offset))
    {
      /* Kept from an earlier run: progress as if copied now. */
      worker->partial += item->length;
      atomic_fetch_add_explicit (&job->tally.bytes_partial, item->length, memory_order_relaxed);
      return CS_OK;
    }

  /* A descriptor of its own: readahead state lives in the open file, and chunks
   * read at different offsets through one descriptor defeat it. */
  fd = _cs_copy_open_source (job, item->dir, item->name);
  if (fd < 0)
    return _cs_fail (errno, "open");
  own_tmp = open_own_partial (job, item, fd);
  if (own_tmp >= 0)
    {
      /* Not journaled (_cs_copied_by_server): what the server copied is copied
       * again, there, after an interruption. */
      o = _cs_copy_data (job, worker, fd, own_tmp, &item->st, item->offset, item->length);
      _cs_io_close (&job->counters, own_tmp);
    }
  else if (item->big->resume != NULL)
    {
      guint64 hash;
      int code;

      o = _cs_copy_range_hashed (job, worker, fd, item->big->tmp_fd, item->offset, item->length,
                                 (guint64) item->st.st_size, &hash);
      if (o.code == 0
          && (code = _cs_resume_wrote_block (job, item->big->resume, item->offset, item->length, hash)) != 0)
        o = _cs_fail (code, "write journal");
    }
  else
    o = _cs_copy_data (job, worker, fd, item->big->tmp_fd, &item->st, item->offset, item->length);
  _cs_io_close (&job->counters, fd);

  return o;
}

CsLink *
_cs_big_copy_chunk (CsJob    *job,
                    CsWorker *worker,
                    CsItem   *item,
                    gboolean *ready)
{
  CsBig *big = item->big;
  CsAction action = item->keep_both ? CS_ACTION_KEEP_BOTH : item->replace ? CS_ACTION_REPLACE : CS_ACTION_COPY;
  const char *final = item->dst_name != NULL ? item->dst_name : item->name;
  CsOutcome o = CS_OK;
  CsTimes times_state;
  gboolean when_published;
  guint attempts = 1;
  gboolean skip;

  /* The file counts against a files/s limit once, when its first chunk
   * starts, and waits for it before taking the file's lock. */
  if (item->offset == 0 && !_cs_limiter_take (&job->limits.file_limit, 1))
    skip = TRUE;
  else
    skip = FALSE;

  _cs_mutex_lock (&big->lock);
  if (!skip && !big->opened && !big->failed && !_cs_job_stopping (job))
    {
      big->opened = TRUE;
      big->dir = _cs_dir_ref (item->dir);
      o = _cs_copy_check_removed (job, item->dir, open_big (job, worker, item));
      if (_cs_copy_is_fatal (o.code))
        _cs_copy_settle_fatal (job, &o);
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
      o = _cs_copy_with_retries (job, chunk_once, worker, item, action, &attempts);
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
    return NULL;

  /* The last chunk out finishes the file. A chunk that met the job's fatal
   * error kept its code (_cs_copy_settle_fatal): this file is the one that names it. */
  if (big->failed || !big->opened || _cs_job_stopping (job))
    {
      end_resume (job, big, big->failed ? big->error_code : CS_ERR_STOPPED);
      if (big->failed && big->error_code != CS_ERR_STOPPED
          && (!_cs_job_stopping (job) || _cs_copy_is_fatal (big->error_code)))
        _cs_copy_record_failure (job, item, final, _cs_fail (big->error_code, big->error_op), attempts,
                                 (guint64) item->st.st_size);
      return NULL;
    }

  when_published = _cs_copy_times_when_published (item, &times_state) && action != CS_ACTION_KEEP_BOTH;
  o = _cs_copy_finish_temp (job, worker, item, big->src_fd, big->tmp_fd, 0600, &item->st, !when_published);
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
      o = _cs_publish (job, item->dir->dst_fd, big->tmp_name, item->dir, final, action);
      if (o.code == 0)
        big->published = TRUE;
    }
  if (big->resume != NULL)
    worker->resumed = _cs_resume_get_kept (big->resume);
  end_resume (job, big, o.code);
  o = _cs_copy_check_removed (job, item->dir, o);
  if (_cs_copy_is_fatal (o.code))
    _cs_copy_settle_fatal (job, &o);
  if (o.code == 0)
    _cs_copy_keep_times (job, worker, item, action, when_published, times_state);
  if (o.code == 0)
    {
      _cs_copy_record_success (job, worker, item, action, (guint64) item->st.st_size);
      if (action != CS_ACTION_KEEP_BOTH)
        _cs_manifest_copied (job, worker, item);
    }
  else if (o.code == CS_ERR_APPEARED && _cs_copy_appeared_identical (job, item->dir, final, &item->st))
    {
      _cs_job_account (job, item->dir, item->name, final, CS_ACTION_SKIP, (guint64) item->st.st_size);
      _cs_manifest_kept (job, worker, item);
    }
  else
    _cs_copy_record_failure (job, item, final, o, 1, (guint64) item->st.st_size);
  /* The caller settles the first name (it copies the names that waited). */
  *ready = (o.code == 0 && action != CS_ACTION_KEEP_BOTH) || o.code == CS_ERR_APPEARED;
  return big->link;
}
