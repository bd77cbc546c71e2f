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

/*
 * A copy job. The main thread sets it up and controls it; a controller thread
 * runs the scanner and waits for the pool; the pool's workers copy; a sampler
 * thread turns the counters into samples. Everything that reaches the main
 * context goes through one coalescing channel (dirty flags under a lock, at most
 * one pending source), never one callback per file.
 */

G_DEFINE_FINAL_TYPE (CsJob, cs_job, G_TYPE_OBJECT)
G_DEFINE_QUARK (cs-job-error-quark, cs_job_error)



static void
cs_job_dispose (GObject *object)
{
  CsJob *self = CS_JOB (object);

  /* A running job keeps itself alive through its threads; see run_async. */
  g_clear_object (&self->life.task);
  if (self->life.cancellable != NULL && self->life.cancelled_id != 0)
    g_cancellable_disconnect (self->life.cancellable, self->life.cancelled_id);
  self->life.cancelled_id = 0;
  g_clear_object (&self->life.cancellable);

  G_OBJECT_CLASS (cs_job_parent_class)->dispose (object);
}

static void
cs_job_finalize (GObject *object)
{
  CsJob *self = CS_JOB (object);

  g_ptr_array_unref (self->setup.sources);
  g_ptr_array_unref (self->setup.source_targets);
  g_free (self->setup.destination);
  g_clear_pointer (&self->setup.given_sources, g_ptr_array_unref);
  g_clear_pointer (&self->check.refusals, g_ptr_array_unref);
  g_clear_pointer (&self->check.read_paths, g_ptr_array_unref);
  g_free (self->setup.given_destination);
  g_free (self->setup.route);
  _cs_run_settings_clear (&self->setup.settings);
  g_clear_pointer (&self->setup.excludes, g_ptr_array_unref);
  g_free (self->setup.cache_mode);
  g_clear_pointer (&self->life.run, cs_run_unref);
  g_clear_pointer (&self->channel.context, g_main_context_unref);
  g_clear_pointer (&self->channel.pending_samples, g_array_unref);
  g_clear_pointer (&self->channel.pending_conflicts, g_ptr_array_unref);
  g_clear_object (&self->channel.pending_deletions);
  g_clear_object (&self->mirror.deletions);
  g_clear_pointer (&self->mirror.mirror_replaced, g_ptr_array_unref);
  g_clear_pointer (&self->channel.pending_thread_changes, g_array_unref);
  g_clear_error (&self->control.run_error);
  g_free (self->gate.fatal_message);
  g_clear_pointer (&self->lists.log, _cs_log_free);
  g_clear_pointer (&self->lists.manifest, _cs_manifest_free);
  g_free (self->setup.manifest_path);
  g_mutex_clear (&self->gate.lock);
  g_mutex_clear (&self->ahead.meet_lock);
  g_cond_clear (&self->ahead.wake);
  g_mutex_clear (&self->channel.ask_lock);
  g_mutex_clear (&self->channel.notify_lock);
  g_mutex_clear (&self->stage.stage_lock);
  g_mutex_clear (&self->hardlinks.link_lock);
  g_mutex_clear (&self->move.move_lock);
  g_mutex_clear (&self->phases.thread_lock);
  for (guint i = 0; i < MIN (atomic_load (&self->phases.n_slots), CS_JOB_PHASE_SLOTS); i++)
    {
      CsWorkerPhase *w = atomic_load (&self->phases.slots[i]);

      if (w != NULL)
        _cs_worker_phase_clear (w);
      free (w);
    }
  for (guint i = 0; i < CS_JOB_LINK_LOCKS; i++)
    g_mutex_clear (&self->stage.link_locks[i]);
  g_ptr_array_unref (self->stage.free_stages);
  g_ptr_array_unref (self->stage.stages);
  _cs_job_free_big_buffers (self);
  g_ptr_array_unref (self->bigbuf.free_big_buffers);
  g_mutex_clear (&self->bigbuf.big_lock);
  g_cond_clear (&self->gate.cond);
  g_cond_clear (&self->control.sampler_cond);
  _cs_limiter_clear (&self->limits.byte_limit);
  _cs_limiter_clear (&self->limits.file_limit);
  _cs_metadata_clear (&self->dest.metadata);
  g_ptr_array_unref (self->dest.dest_filesystems);

  G_OBJECT_CLASS (cs_job_parent_class)->finalize (object);
}

static void
cs_job_class_init (CsJobClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = cs_job_dispose;
  object_class->finalize = cs_job_finalize;

  _cs_job_channel_class_init (klass);
}

static void
cs_job_init (CsJob *self)
{
  self->setup.sources = g_ptr_array_new_with_free_func (g_free);
  self->setup.source_targets = g_ptr_array_new_with_free_func (g_free);
  self->setup.settings.threads = CS_JOB_DEFAULT_THREADS;
  self->setup.settings.overwrite = CS_OVERWRITE_NEWER;
  self->setup.settings.retries = 2;
  self->setup.settings.wait = 1.0;
  self->setup.settings.interval_ms = 250;
  self->setup.settings.flush = TRUE;
  self->setup.settings.max_delete = CS_JOB_DEFAULT_MAX_DELETE;
  atomic_init (&self->tune.threads, CS_JOB_DEFAULT_THREADS);
  self->life.run = cs_run_new ();
  self->gate.state = CS_JOB_STATE_READY;
  g_mutex_init (&self->gate.lock);
  g_mutex_init (&self->ahead.meet_lock);
  g_cond_init (&self->ahead.wake);
  self->ahead.wait_us = CS_COUNT_WAIT_US;
  self->ahead.disk_blocks = CS_COUNT_DISK_BLOCKS;
  g_mutex_init (&self->channel.ask_lock);
  g_mutex_init (&self->channel.notify_lock);
  g_mutex_init (&self->phases.thread_lock);
  g_mutex_init (&self->stage.stage_lock);
  g_mutex_init (&self->hardlinks.link_lock);
  g_mutex_init (&self->move.move_lock);
  for (guint i = 0; i < CS_JOB_LINK_LOCKS; i++)
    g_mutex_init (&self->stage.link_locks[i]);
  self->stage.stage_root_fd = -1;
  self->setup.log_fd = -1;
  self->life.presence_fd = -1;
  self->stage.stages = g_ptr_array_new_with_free_func (g_free);
  self->stage.free_stages = g_ptr_array_new ();
  g_mutex_init (&self->bigbuf.big_lock);
  self->bigbuf.free_big_buffers = g_ptr_array_new ();
  g_cond_init (&self->gate.cond);
  g_cond_init (&self->control.sampler_cond);
  _cs_limiter_init (&self->limits.byte_limit);
  _cs_limiter_init (&self->limits.file_limit);
  _cs_metadata_init (&self->dest.metadata);
  self->dest.dest_filesystems = g_ptr_array_new_with_free_func ((GDestroyNotify) _cs_dest_fs_free);
  self->channel.pending_samples = g_array_new (FALSE, FALSE, sizeof (CsSample));
  self->channel.pending_conflicts = g_ptr_array_new_with_free_func (g_object_unref);
  self->channel.pending_thread_changes = g_array_new (FALSE, FALSE, sizeof (guint));
}

CsJob *
cs_job_new (void)
{
  return g_object_new (CS_TYPE_JOB, NULL);
}

#define RETURN_IF_STARTED(self) \
  g_return_if_fail (CS_IS_JOB (self)); \
  g_return_if_fail ((self)->gate.state == CS_JOB_STATE_READY)

void
cs_job_add_source (CsJob      *self,
                   const char *path)
{
  RETURN_IF_STARTED (self);
  g_return_if_fail (path != NULL && *path != '\0');

  /* A password in an smb:// URL goes to the login, never into the job,
   * whose locations every record, log and message shows. */
  g_ptr_array_add (self->setup.sources, cs_smb_location_take_password (path, NULL));
  g_ptr_array_add (self->setup.source_targets, NULL);
}

void
cs_job_add_source_as (CsJob      *self,
                      const char *path,
                      const char *destination_path)
{
  RETURN_IF_STARTED (self);
  g_return_if_fail (path != NULL && *path != '\0');
  g_return_if_fail (destination_path != NULL && *destination_path != '\0');

  g_ptr_array_add (self->setup.sources, cs_smb_location_take_password (path, NULL));
  g_ptr_array_add (self->setup.source_targets, cs_smb_location_take_password (destination_path, NULL));
}

void
cs_job_set_destination (CsJob      *self,
                        const char *path)
{
  RETURN_IF_STARTED (self);
  g_return_if_fail (path != NULL && *path != '\0');

  g_free (self->setup.destination);
  self->setup.destination = cs_smb_location_take_password (path, NULL);
}

void
cs_job_set_operation (CsJob       *self,
                      CsOperation  operation)
{
  RETURN_IF_STARTED (self);
  g_return_if_fail (operation <= CS_OPERATION_MIRROR);
  self->setup.settings.operation = operation;
}

void
cs_job_set_max_delete (CsJob  *self,
                       gint64  max)
{
  RETURN_IF_STARTED (self);
  g_return_if_fail (max >= -1);
  self->setup.settings.max_delete = max;
}

void
cs_job_set_confirm_deletions (CsJob    *self,
                              gboolean  confirm)
{
  RETURN_IF_STARTED (self);
  self->setup.confirm_deletions = !!confirm;
}

CsDeletions *
cs_job_get_deletions (CsJob *self)
{
  g_return_val_if_fail (CS_IS_JOB (self), NULL);
  return self->mirror.deletions;
}

CsOperation
cs_job_get_operation (CsJob *self)
{
  g_return_val_if_fail (CS_IS_JOB (self), CS_OPERATION_COPY);
  return self->setup.settings.operation;
}

void
cs_job_set_overwrite (CsJob       *self,
                      CsOverwrite  overwrite)
{
  RETURN_IF_STARTED (self);
  g_return_if_fail (overwrite <= CS_OVERWRITE_DIFFERENT);
  self->setup.settings.overwrite = overwrite;
}

void
cs_job_set_verify (CsJob    *self,
                   gboolean  verify)
{
  RETURN_IF_STARTED (self);
  self->setup.settings.verify = !!verify;
}

void
cs_job_set_durable (CsJob    *self,
                    gboolean  durable)
{
  RETURN_IF_STARTED (self);
  self->setup.settings.durable = !!durable;
}

void
cs_job_set_staging (CsJob     *self,
                    CsStaging  staging)
{
  RETURN_IF_STARTED (self);
  g_return_if_fail (staging <= CS_STAGING_NEVER);
  self->setup.staging = staging;
}

void
cs_job_set_chunking (CsJob      *self,
                     CsChunking  chunking)
{
  RETURN_IF_STARTED (self);
  g_return_if_fail (chunking <= CS_CHUNKING_NEVER);
  self->setup.chunking = chunking;
}

void
cs_job_set_into (CsJob    *self,
                 gboolean  into)
{
  RETURN_IF_STARTED (self);
  self->setup.into = !!into;
}

void
cs_job_set_flush (CsJob    *self,
                  gboolean  flush)
{
  RETURN_IF_STARTED (self);
  self->setup.settings.flush = !!flush;
}

void
cs_job_set_dry_run (CsJob         *self,
                    gboolean       dry_run,
                    CsJobPlanFunc  func,
                    gpointer       user_data)
{
  RETURN_IF_STARTED (self);
  self->setup.settings.dry_run = !!dry_run;
  self->setup.plan_func = func;
  self->setup.plan_data = user_data;
}

void
cs_job_set_retries (CsJob *self,
                    guint  retries)
{
  RETURN_IF_STARTED (self);
  self->setup.settings.retries = MIN (retries, 1000);
}

void
cs_job_set_wait (CsJob  *self,
                 double  seconds)
{
  RETURN_IF_STARTED (self);
  g_return_if_fail (seconds >= 0 && seconds <= 3600);
  self->setup.settings.wait = seconds;
}

void
cs_job_set_interval (CsJob *self,
                     guint  interval_ms)
{
  RETURN_IF_STARTED (self);
  g_return_if_fail (interval_ms == 0 || (interval_ms >= 100 && interval_ms <= 10000));
  self->setup.settings.interval_ms = interval_ms;
}

void
cs_job_add_exclude (CsJob      *self,
                    const char *glob)
{
  g_auto(GStrv) old = NULL;
  guint n;

  RETURN_IF_STARTED (self);
  g_return_if_fail (glob != NULL);

  if (self->setup.excludes == NULL)
    self->setup.excludes = g_ptr_array_new_with_free_func ((GDestroyNotify) g_pattern_spec_free);
  g_ptr_array_add (self->setup.excludes, g_pattern_spec_new (glob));

  old = self->setup.settings.excludes;
  n = old != NULL ? g_strv_length (old) : 0;
  self->setup.settings.excludes = g_new0 (char *, n + 2);
  for (guint i = 0; i < n; i++)
    self->setup.settings.excludes[i] = g_strdup (old[i]);
  self->setup.settings.excludes[n] = g_strdup (glob);
}

void
cs_job_set_log_fd (CsJob *self,
                   int    fd)
{
  RETURN_IF_STARTED (self);
  g_return_if_fail (fd >= -1);

  self->setup.log_fd = fd;
}

void
cs_job_set_cache_mode (CsJob      *self,
                       const char *cache_mode)
{
  RETURN_IF_STARTED (self);
  g_free (self->setup.cache_mode);
  self->setup.cache_mode = g_strdup (cache_mode);
}

/* any thread: whether @name matches one of the job's excludes */
gboolean
_cs_job_is_excluded (CsJob      *job,
                     const char *name)
{
  if (job->setup.excludes == NULL)
    return FALSE;
  for (guint i = 0; i < job->setup.excludes->len; i++)
    {
      GPatternSpec *spec = g_ptr_array_index (job->setup.excludes, i);

      if (g_pattern_spec_match_string (spec, name))
        return TRUE;
    }
  return FALSE;
}

CsRun *
cs_job_get_run (CsJob *self)
{
  g_return_val_if_fail (CS_IS_JOB (self), NULL);
  return self->life.run;
}


static void
on_cancelled (GCancellable *cancellable,
              gpointer      user_data)
{
  cs_job_cancel (CS_JOB (user_data));
}

/* A path as the record keeps it: absolute and canonical, so the record says
 * where the files were wherever it is read (History, `copyscope-cli history`)
 * and not relative to the folder the copy was started from. Only the record's:
 * the copy itself goes by the names as they were given. */
static char *
record_path (const char *path)
{
  g_autofree char *absolute = NULL;

  /* A URL is no relative path: it was "<cwd>/smb:/…" in the record. */
  if (!_cs_io_is_path (path))
    return g_utf8_make_valid (path, -1);
  absolute = g_canonicalize_filename (path, NULL);
  return g_filename_display_name (absolute);
}

static void
record_start (CsJob *self)
{
  GPtrArray *sources = self->setup.given_sources != NULL ? self->setup.given_sources : self->setup.sources;
  g_autoptr(GPtrArray) display = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *dst_display = record_path (self->setup.given_destination != NULL ? self->setup.given_destination
                                                                             : self->setup.destination);

  for (guint i = 0; i < sources->len; i++)
    g_ptr_array_add (display, record_path (g_ptr_array_index (sources, i)));
  g_ptr_array_add (display, NULL);

  self->setup.settings.threads = atomic_load (&self->tune.threads);
  _cs_run_set_sources (self->life.run, (const char * const *) display->pdata);
  _cs_run_set_destination (self->life.run, dst_display);
  _cs_run_set_settings (self->life.run, &self->setup.settings);
  _cs_run_set_started (self->life.run, g_get_real_time ());
}

/* @context: where the job's signals and its end are delivered. Nothing of a
 * job that runs is touched before the state check: a second call is refused
 * while the threads of the first read these fields. */
static gboolean
start (CsJob         *self,
       GMainContext  *context,
       GCancellable  *cancellable,
       GError       **error)
{
  guint64 tag = ((guint64) g_random_int () << 32) | g_random_int ();

  if (self->gate.state != CS_JOB_STATE_READY)
    {
      g_set_error_literal (error, CS_JOB_ERROR, CS_JOB_ERROR_INVALID, "A job runs only once");
      return FALSE;
    }
  _cs_route_choose (self);
  if (!cs_job_check_start (self, error))
    {
      _cs_run_set_outcome (self->life.run, "failed", (*error)->message);
      return FALSE;
    }

  _cs_job_channel_open (self, context);

  g_snprintf (self->life.job_tag, sizeof self->life.job_tag, "%016" G_GINT64_MODIFIER "x", tag);
  self->life.presence_fd = _cs_names_announce (self->life.job_tag);
  if (!_cs_manifest_open (self, error))
    {
      _cs_run_set_outcome (self->life.run, "failed", (*error)->message);
      return FALSE;
    }
  self->life.euid = geteuid ();
  self->life.egid = getegid ();
  if (self->setup.log_fd >= 0)
    self->lists.log = _cs_log_new (self->setup.log_fd);
  if (self->setup.settings.operation == CS_OPERATION_MIRROR)
    self->mirror.deletions = _cs_deletions_new (self->setup.settings.max_delete);
  record_start (self);

  _cs_job_queue_open (self);
  __atomic_store_n (&self->gate.state, CS_JOB_STATE_RUNNING, __ATOMIC_RELEASE);
  atomic_store (&self->control.scanning, 1);
  _cs_job_clock_start (self);

  if (cancellable != NULL)
    {
      self->life.cancellable = g_object_ref (cancellable);
      self->life.cancelled_id = g_cancellable_connect (cancellable, G_CALLBACK (on_cancelled), self, NULL);
    }

  /* The threads hold a reference until _cs_job_finish_on_main() joins them. */
  g_object_ref (self);
  _cs_job_start_threads (self);

  return TRUE;
}

/* main thread, from the channel once the controller is done */
void
_cs_job_finish_on_main (CsJob *self)
{
  if (self->control.controller != NULL)
    g_thread_join (g_steal_pointer (&self->control.controller));

  _cs_mutex_lock (&self->gate.lock);
  __atomic_store_n (&self->gate.state, CS_JOB_STATE_FINISHED, __ATOMIC_RELEASE);
  _cs_mutex_unlock (&self->gate.lock);

  if (self->life.cancellable != NULL && self->life.cancelled_id != 0)
    {
      g_cancellable_disconnect (self->life.cancellable, self->life.cancelled_id);
      self->life.cancelled_id = 0;
    }

  if (self->life.task != NULL)
    {
      g_autoptr(GTask) task = g_steal_pointer (&self->life.task);

      if (self->control.run_error != NULL)
        g_task_return_error (task, g_error_copy (self->control.run_error));
      else
        g_task_return_boolean (task, TRUE);
    }

  g_object_unref (self);
}

gboolean
cs_job_run_sync (CsJob         *self,
                 GCancellable  *cancellable,
                 GError       **error)
{
  g_autoptr(GMainContext) context = g_main_context_new ();

  g_return_val_if_fail (CS_IS_JOB (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  g_main_context_push_thread_default (context);

  if (!start (self, context, cancellable, error))
    {
      g_main_context_pop_thread_default (context);
      return FALSE;
    }

  while (cs_job_get_state (self) != CS_JOB_STATE_FINISHED)
    g_main_context_iteration (context, TRUE);
  /* Anything posted after the last dispatch. */
  while (g_main_context_iteration (context, FALSE))
    ;
  g_main_context_pop_thread_default (context);

  if (self->control.run_error != NULL)
    {
      g_propagate_error (error, g_error_copy (self->control.run_error));
      return FALSE;
    }
  return TRUE;
}

void
cs_job_run_async (CsJob               *self,
                  GCancellable        *cancellable,
                  GAsyncReadyCallback  callback,
                  gpointer             user_data)
{
  g_autoptr(GMainContext) context = g_main_context_ref_thread_default ();
  g_autoptr(GTask) task = NULL;
  GError *error = NULL;

  g_return_if_fail (CS_IS_JOB (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, cs_job_run_async);
  /* A cancelled run answers G_IO_ERROR_CANCELLED once its record is
   * complete, not the moment the cancellable fires. */
  g_task_set_check_cancellable (task, FALSE);

  if (!start (self, context, cancellable, &error))
    {
      /* This call's own task: a job asked to run twice still reports its
       * first run to the first caller. GTask answers from the main context,
       * never from inside this call. */
      g_task_return_error (task, error);
      return;
    }
  self->life.task = g_steal_pointer (&task);
}

gboolean
cs_job_run_finish (CsJob         *self,
                   GAsyncResult  *result,
                   GError       **error)
{
  g_return_val_if_fail (CS_IS_JOB (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == cs_job_run_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
