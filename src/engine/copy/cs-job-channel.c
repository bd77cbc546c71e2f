/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-job"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>

#include "cs-auto-memory-private.h"
#include "cs-conflict-private.h"
#include "cs-copy-private.h"
#include "cs-count-ahead-private.h"
#include "cs-deletions-private.h"
#include "cs-dest-fs-private.h"
#include "cs-mirror-private.h"
#include "cs-dir-private.h"
#include "cs-env-private.h"
#include "cs-errno-private.h"
#include "cs-io-private.h"
#include "cs-job-private.h"
#include "cs-links-private.h"
#include "cs-move-private.h"
#include "cs-names-private.h"
#include "cs-sampler-private.h"
#include "cs-scanner-private.h"
#include "cs-smb.h"
#include "cs-stage-private.h"


/* The one channel to the main context: dirty flags under notify_lock, at
 * most one pending source, signals emitted outside the lock; and the questions
 * (a conflict, a mirror's deletions) that wait on it. */

enum {
  SIGNAL_PROGRESS,
  SIGNAL_SAMPLE,
  SIGNAL_THREADS_CHANGED,
  SIGNAL_CONFLICT,
  SIGNAL_DELETIONS,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* From cs_job_class_init */
void
_cs_job_channel_class_init (CsJobClass *klass)
{
  signals[SIGNAL_PROGRESS] =
    g_signal_new ("progress", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_SAMPLE] =
    g_signal_new ("sample", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_POINTER);
  signals[SIGNAL_THREADS_CHANGED] =
    g_signal_new ("threads-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_UINT, G_TYPE_UINT);
  signals[SIGNAL_CONFLICT] =
    g_signal_new ("conflict", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, CS_TYPE_CONFLICT);
  signals[SIGNAL_DELETIONS] =
    g_signal_new ("deletions", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, CS_TYPE_DELETIONS);
}

/* main thread, as the job starts: where the signals go, and whether anyone
 * answers a conflict (else the copy skips without asking). */
void
_cs_job_channel_open (CsJob        *job,
                      GMainContext *context)
{
  job->channel.has_conflict_handler = g_signal_has_handler_pending (job, signals[SIGNAL_CONFLICT], 0, TRUE);
  job->channel.context = g_main_context_ref (context);
}


static gboolean
dispatch (gpointer data)
{
  CsJob *job = data;
  g_autoptr(GArray) samples = NULL;
  g_autoptr(GPtrArray) conflicts = NULL;
  g_autoptr(GArray) changes = NULL;
  g_autoptr(CsDeletions) deletions = NULL;
  gboolean progress, done;

  _cs_mutex_lock (&job->channel.notify_lock);
  samples = g_steal_pointer (&job->channel.pending_samples);
  job->channel.pending_samples = g_array_new (FALSE, FALSE, sizeof (CsSample));
  conflicts = g_steal_pointer (&job->channel.pending_conflicts);
  job->channel.pending_conflicts = g_ptr_array_new_with_free_func (g_object_unref);
  deletions = g_steal_pointer (&job->channel.pending_deletions);
  changes = g_steal_pointer (&job->channel.pending_thread_changes);
  job->channel.pending_thread_changes = g_array_new (FALSE, FALSE, sizeof (guint));
  progress = job->channel.progress_dirty;
  job->channel.progress_dirty = FALSE;
  done = job->channel.done_pending;
  job->channel.done_pending = FALSE;
  g_clear_pointer (&job->channel.notify_source, g_source_unref);
  _cs_mutex_unlock (&job->channel.notify_lock);

  /* Signals are emitted outside the lock: handlers may call back into the job. */
  for (guint i = 0; i + 1 < changes->len; i += 2)
    g_signal_emit (job, signals[SIGNAL_THREADS_CHANGED], 0,
                   g_array_index (changes, guint, i), g_array_index (changes, guint, i + 1));
  for (guint i = 0; i < samples->len; i++)
    g_signal_emit (job, signals[SIGNAL_SAMPLE], 0, &g_array_index (samples, CsSample, i));
  if (progress || samples->len > 0 || done)
    g_signal_emit (job, signals[SIGNAL_PROGRESS], 0);
  for (guint i = 0; i < conflicts->len; i++)
    g_signal_emit (job, signals[SIGNAL_CONFLICT], 0, g_ptr_array_index (conflicts, i));
  if (deletions != NULL)
    g_signal_emit (job, signals[SIGNAL_DELETIONS], 0, deletions);
  if (done)
    _cs_job_finish_on_main (job);

  return G_SOURCE_REMOVE;
}

/* notify_lock held */
static void
schedule_locked (CsJob *job)
{
  if (job->channel.notify_source != NULL || job->channel.context == NULL)
    return;

  job->channel.notify_source = g_idle_source_new ();
  g_source_set_priority (job->channel.notify_source, G_PRIORITY_DEFAULT);
  g_source_set_callback (job->channel.notify_source, dispatch, g_object_ref (job), g_object_unref);
  g_source_set_static_name (job->channel.notify_source, "[copyscope] job progress");
  g_source_attach (job->channel.notify_source, job->channel.context);
}

void
_cs_job_post_sample (CsJob          *job,
                     const CsSample *sample)
{
  _cs_mutex_lock (&job->channel.notify_lock);
  if (sample != NULL)
    g_array_append_val (job->channel.pending_samples, *sample);
  job->channel.progress_dirty = TRUE;
  schedule_locked (job);
  _cs_mutex_unlock (&job->channel.notify_lock);
}

/* any thread: the next progress signal has news (a failure or a note in
 * the record); it goes with the next sample. */
void
_cs_job_mark_progress (CsJob *job)
{
  _cs_mutex_lock (&job->channel.notify_lock);
  job->channel.progress_dirty = TRUE;
  _cs_mutex_unlock (&job->channel.notify_lock);
}

/* any thread: a change of the thread count for the "threads-changed" signal */
void
_cs_job_post_thread_change (CsJob *job,
                            guint  from,
                            guint  to)
{
  _cs_mutex_lock (&job->channel.notify_lock);
  g_array_append_val (job->channel.pending_thread_changes, from);
  g_array_append_val (job->channel.pending_thread_changes, to);
  job->channel.progress_dirty = TRUE;
  schedule_locked (job);
  _cs_mutex_unlock (&job->channel.notify_lock);
}

/* controller thread, last: the main context joins it and ends the run. */
void
_cs_job_post_done (CsJob *job)
{
  _cs_mutex_lock (&job->channel.notify_lock);
  job->channel.done_pending = TRUE;
  schedule_locked (job);
  _cs_mutex_unlock (&job->channel.notify_lock);
}

/* A question to the user, a conflict or the deletions of a mirror, holds
 * the clock and closes the gate until it is answered. */
static void
begin_question (CsJob *job)
{
  _cs_mutex_lock (&job->gate.lock);
  _cs_job_hold_locked (job, FALSE);
  job->gate.asking++;
  _cs_job_update_gate_locked (job);
  _cs_mutex_unlock (&job->gate.lock);
}

static void
end_question (CsJob *job)
{
  gboolean released;
  CsRunEvent hold;

  _cs_mutex_lock (&job->gate.lock);
  job->gate.asking--;
  _cs_job_update_gate_locked (job);
  released = _cs_job_release_locked (job, &hold);
  g_cond_broadcast (&job->gate.cond);
  _cs_mutex_unlock (&job->gate.lock);
  if (released)
    _cs_run_add_event (job->life.run, &hold);
}

CsConflictAnswer
_cs_job_ask (CsJob             *job,
             CsDir             *dir,
             const char        *name,
             const struct stat *src,
             const struct stat *dst,
             gboolean          *out_apply_all)
{
  g_autoptr(CsConflict) conflict = NULL;
  g_autofree char *src_path = NULL;
  g_autofree char *dst_path = NULL;
  CsConflictAnswer answer = CS_CONFLICT_SKIP;
  gboolean all = FALSE;
  CsPhase was;

  if (!job->channel.has_conflict_handler)
    return CS_CONFLICT_SKIP;

  /* Waiting for another worker's question to be answered is waiting too. */
  was = _cs_worker_phase_set (CS_PHASE_QUESTION);

  /* One question at a time; an "apply to all" answer ends the questions. */
  _cs_mutex_lock (&job->channel.ask_lock);
  if (job->channel.has_all_answer)
    {
      answer = job->channel.all_answer;
      _cs_mutex_unlock (&job->channel.ask_lock);
      _cs_worker_phase_restore (was);
      *out_apply_all = TRUE;
      return answer;
    }

  src_path = _cs_dir_dup_path (dir, name, FALSE);
  dst_path = _cs_dir_dup_path (dir, name, TRUE);
  conflict = _cs_conflict_new (src_path, dst_path, src, dst);

  begin_question (job);
  _cs_mutex_lock (&job->channel.notify_lock);
  g_ptr_array_add (job->channel.pending_conflicts, g_object_ref (conflict));
  schedule_locked (job);
  _cs_mutex_unlock (&job->channel.notify_lock);

  if (!_cs_conflict_wait (conflict, job, &answer, &all))
    answer = CS_CONFLICT_SKIP;
  end_question (job);

  if (all)
    {
      job->channel.all_answer = answer;
      job->channel.has_all_answer = TRUE;
    }
  _cs_mutex_unlock (&job->channel.ask_lock);
  _cs_worker_phase_restore (was);

  *out_apply_all = all;
  return answer;
}

gboolean
_cs_job_confirm_deletions (CsJob       *job,
                           CsDeletions *deletions)
{
  gboolean answer;

  begin_question (job);
  _cs_mutex_lock (&job->channel.notify_lock);
  g_set_object (&job->channel.pending_deletions, deletions);
  schedule_locked (job);
  _cs_mutex_unlock (&job->channel.notify_lock);
  answer = _cs_deletions_wait (deletions, job);
  end_question (job);

  return answer;
}

