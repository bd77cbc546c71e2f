/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-copy"

#include "config.h"

#include <errno.h>
#include <string.h>

#include "cs-copy-outcome-private.h"
#include "cs-dir-private.h"
#include "cs-errno-private.h"
#include "cs-job-private.h"
#include "cs-metadata-private.h"
#include "cs-move-private.h"
#include "cs-names-private.h"

/*
 * What came of one attempt at an item (a file, a link, a chunk): our own
 * error codes beside errno's, whether it stops the whole job, whether it is
 * worth another try, and how a failure and a success are recorded.
 */

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
gboolean
_cs_copy_is_fatal (int code)
{
  return (code > 0 && _cs_is_fatal_errno (code)) || code == CS_ERR_DEST_REMOVED;
}

/* The first file to meet a fatal error names it, and the job stops; files
 * that meet it after are cancelled, not a stream of identical errors. */
void
_cs_copy_settle_fatal (CsJob     *job,
                       CsOutcome *o)
{
  if (_cs_job_fatal (job, outcome_message (o->code)))
    job->gate.fatal_reported = TRUE;
  else
    o->code = CS_ERR_STOPPED;
}

/* A file that failed with an errno: its destination folder may be gone,
 * removed by someone while we wrote into it (creating in it then answers
 * ENOENT, or EPERM for an unnamed temporary). One fstat, on failures only. */
CsOutcome
_cs_copy_check_removed (CsJob    *job,
                        CsDir    *dir,
                        CsOutcome o)
{
  if (o.code > 0 && !_cs_copy_is_fatal (o.code) && _cs_dir_dst_removed (job, dir))
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

/* Whether a failed or stopped resumable copy keeps its partial for a later
 * run: after an interruption that the user chose to resume from, or an error
 * from the system (a lost share, a full disk, EIO); not when the source
 * changed, the copy did not match, or the name was taken meanwhile. */
gboolean
_cs_copy_keeps_partial (CsJob *job,
                        int    code)
{
  if (code == CS_ERR_STOPPED)
    return atomic_load (&job->resume.keep_partial);
  return code > 0;
}

void
_cs_copy_record_failure (CsJob      *job,
                         CsItem     *item,
                         const char *name,
                         CsOutcome   o,
                         guint       attempts,
                         guint64     size)
{
  CsDir *dir = item->dir;

  if (o.code == CS_ERR_STOPPED)
    return;
  if (job->setup.settings.operation == CS_OPERATION_MOVE)
    atomic_fetch_add (&job->tally.kept_files, 1);
  if (job->lists.log != NULL)
    {
      const char *message = outcome_message (o.code);
      g_autofree char *why = g_strdup_printf ("%s: %s", o.op != NULL ? o.op : "copy",
                                              message != NULL ? message : g_strerror (MAX (o.code, 0)));

      _cs_job_log (job, dir, item->name, "failed", size, why);
    }
  if (o.code == CS_ERR_NOT_HELD)
    _cs_metadata_lost (job, CS_METADATA_LINKS, dir, name, FALSE);
  else if (_cs_copy_is_fatal (o.code))
    {
      /* The file that met the fatal error names it; the job report filters the
       * echoes of that error from elsewhere, so this one goes in directly. */
      g_autofree char *path = _cs_dir_dup_path (dir, name, FALSE);

      _cs_run_add_error (job->life.run, path, o.op != NULL ? o.op : "copy", MAX (o.code, 0),
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
void
_cs_copy_record_success (CsJob    *job,
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
  if (job->setup.settings.operation == CS_OPERATION_MOVE)
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
CsOutcome
_cs_copy_with_retries (CsJob    *job,
                       CsAttempt once,
                       CsWorker *worker,
                       CsItem   *item,
                       CsAction  action,
                       guint    *out_attempts)
{
  double wait = job->setup.settings.wait;
  CsOutcome o = CS_OK;
  guint attempt;

  for (attempt = 1; ; attempt++)
    {
      o = _cs_copy_check_removed (job, item->dir, once (job, worker, item, action));
      if (o.code == 0 || o.code == CS_ERR_STOPPED)
        break;
      if (_cs_copy_is_fatal (o.code))
        {
          _cs_copy_settle_fatal (job, &o);
          break;
        }
      /* After a stop, a failure is one of its echoes (the destination gone, a
       * cancel in flight): cancelled with the rest. */
      if (_cs_job_stopping (job))
        {
          o.code = CS_ERR_STOPPED;
          break;
        }
      if (!is_retriable (o.code) || attempt > job->setup.settings.retries)
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
