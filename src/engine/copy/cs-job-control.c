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


/* Control from the main thread (threads, limits, pause, cancel, progress)
 * and the two threads the job runs: the controller and the sampler. */

/* ---- Control (main thread) ----------------------------------------------- */

/* any thread */
void
_cs_job_apply_threads (CsJob      *job,
                       guint       n_threads,
                       const char *reason)
{
  gint64 now = g_get_monotonic_time ();
  guint old;

  /* The count's integral moves with it: the phases add up to it. */
  _cs_mutex_lock (&job->phases.thread_lock);
  old = atomic_exchange (&job->tune.threads, n_threads);
  if (job->phases.threads_since != 0 && old != n_threads)
    {
      job->phases.thread_seconds += (double) old * (double) MAX (now - job->phases.threads_since, 0) / G_USEC_PER_SEC;
      job->phases.threads_since = now;
    }
  _cs_mutex_unlock (&job->phases.thread_lock);

  if (old == n_threads)
    return;

  _cs_job_queue_resize (job, n_threads);
  _cs_run_add_thread_change (job->life.run, _cs_job_elapsed (job), old, n_threads, reason);
  _cs_job_post_thread_change (job, old, n_threads);
}

void
cs_job_set_threads (CsJob      *self,
                    guint       n_threads,
                    const char *reason)
{
  g_return_if_fail (CS_IS_JOB (self));
  g_return_if_fail (n_threads >= CS_JOB_MIN_THREADS && n_threads <= CS_JOB_MAX_THREADS);

  /* A count chosen by hand wins over Auto. */
  atomic_store (&self->tune.auto_threads, 0);

  if (self->gate.state == CS_JOB_STATE_READY)
    {
      atomic_store (&self->tune.threads, n_threads);
      self->setup.settings.threads = n_threads;
      return;
    }
  _cs_job_apply_threads (self, n_threads, reason != NULL ? reason : "user");
}

void
cs_job_set_auto_threads (CsJob    *self,
                         gboolean  enabled)
{
  g_return_if_fail (CS_IS_JOB (self));

  if (enabled && !atomic_load (&self->tune.auto_threads))
    {
      /* The sampler thread owns the tuner once running; it restarts it on this flag. */
      atomic_store (&self->tune.auto_threads, 2);
    }
  else if (!enabled)
    atomic_store (&self->tune.auto_threads, 0);
}

gboolean
cs_job_get_auto_threads (CsJob *self)
{
  g_return_val_if_fail (CS_IS_JOB (self), FALSE);
  return atomic_load (&self->tune.auto_threads) != 0;
}

/* sampler thread */
void
_cs_job_auto_feed (CsJob          *job,
                   const CsSample *sample,
                   double          bytes_per_file)
{
  int mode = atomic_load (&job->tune.auto_threads);
  g_autofree char *reason = NULL;
  guint next;

  if (mode == 0)
    return;
  if (mode == 2)
    {
      cs_auto_tuner_init (&job->tune.tuner, atomic_load (&job->tune.threads), CS_JOB_MIN_THREADS, CS_JOB_MAX_THREADS);
      atomic_store (&job->tune.auto_threads, 1);
    }

  next = cs_auto_tuner_feed (&job->tune.tuner, sample->values[CS_COUNTER_FILE_RATE],
                             sample->values[CS_COUNTER_WRITE_TRANSFER_RATE], bytes_per_file, &reason);
  /* The best count measured so far, even if the copy ends mid-probe. */
  if (job->tune.tuner.phase == CS_AUTO_HOLDING)
    job->tune.auto_settled = job->tune.tuner.current;
  else if (job->tune.tuner.have_base)
    job->tune.auto_settled = job->tune.tuner.base_threads;
  if (next != 0 && atomic_load (&job->tune.auto_threads) != 0)
    _cs_job_apply_threads (job, next, reason);
}

/* A limit set while the job runs is an event for the graph. */
static void
set_limit (CsJob      *self,
           CsLimiter  *limiter,
           double     *setting,
           const char *kind,
           double      value)
{
  CsJobState state = cs_job_get_state (self);

  if (state == CS_JOB_STATE_FINISHED || _cs_limiter_get (limiter) == value)
    return;
  _cs_limiter_set (limiter, value);
  if (state == CS_JOB_STATE_READY)
    *setting = value;
  else
    {
      CsRunEvent event = { _cs_job_elapsed (self), (char *) kind, value };

      _cs_run_add_event (self->life.run, &event);
      _cs_job_post_sample (self, NULL);
    }
}

void
cs_job_set_max_rate (CsJob  *self,
                     double  bytes_per_second)
{
  g_return_if_fail (CS_IS_JOB (self));
  g_return_if_fail (bytes_per_second >= 0);

  set_limit (self, &self->limits.byte_limit, &self->setup.settings.max_rate, "max-rate", bytes_per_second);
}

double
cs_job_get_max_rate (CsJob *self)
{
  g_return_val_if_fail (CS_IS_JOB (self), 0);

  return _cs_limiter_get (&self->limits.byte_limit);
}

void
cs_job_set_max_files (CsJob  *self,
                      double  files_per_second)
{
  g_return_if_fail (CS_IS_JOB (self));
  g_return_if_fail (files_per_second >= 0);

  set_limit (self, &self->limits.file_limit, &self->setup.settings.max_files, "max-files", files_per_second);
}

double
cs_job_get_max_files (CsJob *self)
{
  g_return_val_if_fail (CS_IS_JOB (self), 0);

  return _cs_limiter_get (&self->limits.file_limit);
}

gboolean
cs_job_get_limited (CsJob *self)
{
  g_return_val_if_fail (CS_IS_JOB (self), FALSE);

  return _cs_limiter_held_back (&self->limits.byte_limit, G_USEC_PER_SEC)
         || _cs_limiter_held_back (&self->limits.file_limit, G_USEC_PER_SEC);
}

/* any thread: whether the destination is a network share, where each
 * request is a round trip; FALSE until the scanner has opened it. */
gboolean
cs_job_get_destination_remote (CsJob *self)
{
  g_return_val_if_fail (CS_IS_JOB (self), FALSE);

  return atomic_load (&self->dest.dst_remote) != 0;
}

guint
cs_job_get_threads (CsJob *self)
{
  g_return_val_if_fail (CS_IS_JOB (self), 0);
  return atomic_load (&self->tune.threads);
}

void
cs_job_pause (CsJob *self)
{
  g_return_if_fail (CS_IS_JOB (self));

  _cs_mutex_lock (&self->gate.lock);
  if (self->gate.state == CS_JOB_STATE_RUNNING && !self->gate.paused && !_cs_job_stopping (self))
    {
      self->gate.paused = TRUE;
      __atomic_store_n (&self->gate.state, CS_JOB_STATE_PAUSED, __ATOMIC_RELEASE);
      _cs_job_hold_locked (self, TRUE);
      _cs_job_update_gate_locked (self);
    }
  _cs_mutex_unlock (&self->gate.lock);
  _cs_job_post_sample (self, NULL);
}

void
cs_job_resume (CsJob *self)
{
  gboolean released = FALSE;
  CsRunEvent hold;

  g_return_if_fail (CS_IS_JOB (self));

  _cs_mutex_lock (&self->gate.lock);
  if (self->gate.paused)
    {
      self->gate.paused = FALSE;
      __atomic_store_n (&self->gate.state, CS_JOB_STATE_RUNNING, __ATOMIC_RELEASE);
      released = _cs_job_release_locked (self, &hold);
      _cs_job_update_gate_locked (self);
      g_cond_broadcast (&self->gate.cond);
    }
  _cs_mutex_unlock (&self->gate.lock);
  if (released)
    _cs_run_add_event (self->life.run, &hold);
  _cs_job_post_sample (self, NULL);
}

/* any thread */
void
cs_job_set_keep_partial (CsJob    *self,
                         gboolean  keep)
{
  g_return_if_fail (CS_IS_JOB (self));

  atomic_store (&self->resume.keep_partial, !!keep);
}

/* any thread */
guint
cs_job_get_partials (CsJob   *self,
                     guint64 *out_proven)
{
  g_return_val_if_fail (CS_IS_JOB (self), 0);

  if (out_proven != NULL)
    *out_proven = atomic_load (&self->resume.partials_proven);
  return atomic_load (&self->resume.partials_open);
}

/* any thread */
void
cs_job_cancel (CsJob *self)
{
  g_return_if_fail (CS_IS_JOB (self));

  _cs_job_stop (self, CS_STOP_CANCEL, NULL);
  _cs_mutex_lock (&self->gate.lock);
  if (self->gate.state == CS_JOB_STATE_PAUSED)
    __atomic_store_n (&self->gate.state, CS_JOB_STATE_RUNNING, __ATOMIC_RELEASE);
  _cs_mutex_unlock (&self->gate.lock);
}

CsJobState
cs_job_get_state (CsJob *self)
{
  g_return_val_if_fail (CS_IS_JOB (self), CS_JOB_STATE_READY);

  /* Without the lock: the window asks at every update, and a worker holding
   * the lock at nice 19 made it wait up to half a second. */
  return __atomic_load_n (&self->gate.state, __ATOMIC_ACQUIRE);
}

void
cs_job_get_progress (CsJob      *self,
                     CsProgress *out)
{
  g_return_if_fail (CS_IS_JOB (self));
  g_return_if_fail (out != NULL);

  memset (out, 0, sizeof *out);
  out->state = cs_job_get_state (self);
  out->scanning = atomic_load (&self->control.scanning) != 0;
  out->flushing = atomic_load (&self->control.flushing) != 0;
  out->threads = atomic_load (&self->tune.threads);
  out->active = (guint) atomic_load (&self->gate.active);
  out->dirs_found = atomic_load (&self->tally.dirs_found);
  out->files_found = atomic_load (&self->tally.files_found);
  out->bytes_found = atomic_load (&self->tally.bytes_found);
  out->files_total = out->files_found;
  out->bytes_total = out->bytes_found;
  out->total_known = !out->scanning;
  /* Counted ahead, the total is known before the scanner gets there; what it
   * found beyond the count (files added meanwhile) is not left out. */
  if (out->scanning && atomic_load_explicit (&self->ahead.counted, memory_order_acquire))
    {
      out->total_known = TRUE;
      out->files_total = MAX (out->files_found, atomic_load (&self->ahead.files_counted));
      out->bytes_total = MAX (out->bytes_found, atomic_load (&self->ahead.bytes_counted));
    }
  out->files_done = atomic_load (&self->counters.files_done);
  /* Bytes of files still in flight count too, or one big file would show 0 % until it ends. */
  out->bytes_done = atomic_load (&self->counters.bytes_done) + atomic_load (&self->tally.bytes_partial);
  out->bytes_done = MIN (out->bytes_done, MAX (out->bytes_found, atomic_load (&self->counters.bytes_done)));
  out->files_copied = atomic_load (&self->tally.totals[CS_CLASS_COPIED][CS_KIND_FILES]);
  out->bytes_copied = atomic_load (&self->tally.totals[CS_CLASS_COPIED][CS_KIND_BYTES]);
  out->bytes_copying = atomic_load (&self->tally.bytes_partial);
  out->files_skipped = atomic_load (&self->tally.totals[CS_CLASS_SKIPPED][CS_KIND_FILES]);
  out->files_checked = atomic_load (&self->tally.files_checked);
  out->files_to_copy = atomic_load (&self->tally.files_to_copy);
  out->files_failed = atomic_load (&self->tally.totals[CS_CLASS_FAILED][CS_KIND_FILES])
                      + atomic_load (&self->tally.totals[CS_CLASS_MISMATCH][CS_KIND_FILES]);
  out->n_errors = cs_run_get_n_errors (self->life.run);
  out->n_notes = cs_run_get_n_notes (self->life.run);
  out->elapsed = _cs_job_elapsed (self);
}

/* ---- Running ------------------------------------------------------------- */

static gpointer
sampler_thread (gpointer data)
{
  CsJob *job = data;
  CsSampler *sampler = g_steal_pointer (&job->control.sampler_state);
  gboolean record = job->setup.settings.interval_ms > 0;
  gint64 interval = (gint64) (record ? job->setup.settings.interval_ms : 250) * 1000;
  gint64 next = g_get_monotonic_time () + interval;

  _cs_mutex_lock (&job->gate.lock);
  while (!job->control.finished)
    {
      if (!_cs_cond_wait_until (&job->control.sampler_cond, &job->gate.lock, next))
        {
          _cs_mutex_unlock (&job->gate.lock);
          _cs_sampler_take (sampler, record, FALSE);
          /* Lines of files that finished a while ago reach the log now. */
          _cs_log_flush (job->lists.log);
          _cs_mutex_lock (&job->gate.lock);
          next += interval;
          /* After a long stall, sample again at the normal pace rather than catch up. */
          if (next < g_get_monotonic_time ())
            next = g_get_monotonic_time () + interval;
        }
    }
  _cs_mutex_unlock (&job->gate.lock);

  /* The closing sample covers the last part interval, so short runs have one too. */
  _cs_sampler_take (sampler, record, TRUE);
  _cs_sampler_free (sampler);

  return NULL;
}

static void
flush_destination (CsJob *job)
{
  int fd;

  /* Where no flush reaches the disk (libsmbclient has none: note_no_flush
   * says so), the destination is not even opened: libsmbclient opens a
   * folder asked for as a file by listing it whole, at the end of every
   * copy (50 entries behind 1 ms per filesystem call: 0.13 s). */
  if (atomic_load (&job->dest.dst_cannot_flush))
    return;
  fd = _cs_io_openat (&job->counters, CS_IO_AT_LOCATION, job->setup.destination, O_RDONLY, 0);
  if (fd < 0)
    {
      g_autofree char *parent = g_path_get_dirname (job->setup.destination);
      fd = _cs_io_openat (&job->counters, CS_IO_AT_LOCATION, parent, O_RDONLY | O_DIRECTORY, 0);
    }
  if (fd < 0)
    return;
  if (_cs_io_syncfs (&job->counters, fd) != 0)
    _cs_job_report (job, NULL, job->setup.destination, "flush", errno, NULL, 1);
  _cs_io_close (&job->counters, fd);
}

guint
cs_job_get_remembered_threads (const char  *destination,
                               char       **out_filesystem)
{
  g_return_val_if_fail (destination != NULL, 0);

  return _cs_auto_memory_recall (destination, out_filesystem);
}

/* A job that asked for a flush (--durable, a move's before it removes
 * sources, the one at the end) onto a destination whose backend has none
 * (libsmbclient 4.17 offers no flush: fsync there succeeds and asks the
 * server for nothing) says so once, unless it ended on a fatal error, which
 * is then the one thing said. */
static void
note_no_flush (CsJob *job)
{
  if (!atomic_load (&job->dest.dst_cannot_flush) || job->setup.settings.dry_run
      || atomic_load (&job->gate.stop) == CS_STOP_FATAL)
    return;
  if (!job->setup.settings.durable && !job->setup.settings.flush
      && job->setup.settings.operation != CS_OPERATION_MOVE)
    return;
  _cs_job_note (job, NULL, job->setup.destination, "flush", 0,
                _("The server has each byte once its write returns, but libsmbclient offers no "
                  "flush: no flush asked for here (of each file, before a moved source is "
                  "removed, or at the end) reaches the server's disk"));
}

/* Remembers what Auto settled on for this destination's filesystem, in
 * general (what the window offers) and for the size of the files copied. */
static void
remember_threads (CsJob *job)
{
  if (job->tune.auto_settled == 0 || job->setup.settings.dry_run)
    return;
  _cs_auto_memory_store (job->setup.destination, atomic_load (&job->tune.size_class) - 1, job->tune.auto_settled);
}

/* scanner thread: the first look is taken; Auto starts from a count for it. */
static void
size_up_done (CsJob *job)
{
  double mean = job->tune.sized_files > 0 ? (double) job->tune.sized_bytes / job->tune.sized_files : 0;
  CsSizeClass klass = _cs_size_class_for_mean (mean);
  g_autofree char *reason = NULL;
  guint remembered, start;
  int expected = 1;

  job->tune.sized = TRUE;
  atomic_store (&job->tune.size_class, (int) klass + 1);
  if (atomic_load (&job->tune.auto_threads) == 0)
    return;

  remembered = _cs_auto_memory_recall_for (job->setup.destination, klass);
  start = remembered != 0 ? remembered : _cs_size_class_start (klass);
  if (remembered != 0)
    reason = g_strdup_printf ("auto: %s files (%.0f kB on average); %u threads worked best last time",
                              _cs_size_class_name (klass), mean / 1e3, start);
  else
    reason = g_strdup_printf ("auto: %s files (%.0f kB on average); starting at %u threads",
                              _cs_size_class_name (klass), mean / 1e3, start);
  _cs_job_apply_threads (job, start, reason);
  /* The tuner measures from here; a switch turned off meanwhile stays off. */
  atomic_compare_exchange_strong (&job->tune.auto_threads, &expected, 2);
}

void
_cs_job_size_up (CsJob   *job,
                 guint64  size)
{
  if (job->tune.sized)
    return;
  job->tune.sized_files++;
  job->tune.sized_bytes += size;
  /* Enough to tell tiny files from large ones, early enough to matter. */
  if (job->tune.sized_files >= 32 || job->tune.sized_bytes >= (G_GUINT64_CONSTANT (64) << 20))
    size_up_done (job);
}

void
_cs_job_size_up_end (CsJob *job)
{
  if (!job->tune.sized && job->tune.sized_files > 0)
    size_up_done (job);
}

/* controller thread, once the work is done: the machine and the filesystems
 * for the record. Reading mountinfo, the host name and the like took about a
 * millisecond before the first request on a cold start, so not before the
 * copy; and not while it runs, as a share's backend counts its connections
 * (the most the copy had) until the last worker is done: read when the scan
 * ended, a copy changed from 2 to 8 threads meanwhile said 4. The record is
 * read only after the controller is joined. */
static void
record_environment (CsJob *self)
{
  CsRunEnvironment env = { 0 };
  g_autofree char *probe = NULL;

  _cs_env_init_environment (&env);
  env.source_fs = _cs_io_filesystem_type (g_ptr_array_index (self->setup.sources, 0));
  probe = _cs_env_filesystem_probe (self->setup.destination);
  env.destination_fs = _cs_io_filesystem_type (probe);
  env.cache_mode = g_strdup (self->setup.cache_mode != NULL ? self->setup.cache_mode : "unknown");
  env.route = g_strdup (self->setup.route);
  _cs_run_set_environment (self->life.run, &env);
  _cs_run_environment_clear (&env);
}

static gpointer
controller_thread (gpointer data)
{
  CsJob *job = data;
  CsTotals totals;
  CsStopReason reason;

  _cs_dir_finisher_start (job);
  _cs_count_ahead_start (job);
  _cs_scanner_run (job);
  _cs_count_ahead_stop (job);
  _cs_job_size_up_end (job);
  atomic_store (&job->control.scanning, 0);

  _cs_job_wait_for_items (job);
  /* A mirror deletes its extras only once everything is copied; then the
   * entries that replace extras of another type are copied in their place. */
  if (job->setup.settings.operation == CS_OPERATION_MIRROR)
    {
      _cs_mirror_finish (job);
      _cs_scanner_run_replaced (job, _cs_mirror_take_replaced (job));
      _cs_job_wait_for_items (job);
    }
  /* After the replacements: a name among them links to its file's others. */
  _cs_links_clear (job);
  record_environment (job);

  /* Every folder's attributes set before the workers and their buffers go. */
  _cs_dir_finisher_end (job);
  _cs_job_queue_close (job);
  /* A move's last sources go once their copies are flushed; after a cancel
   * too, since their copies are complete. */
  if (job->setup.settings.operation == CS_OPERATION_MOVE)
    _cs_move_drain (job, TRUE);
  _cs_stage_teardown (job);
  _cs_metadata_report (job);
  note_no_flush (job);
  /* Nothing of this run is left to be taken for a live one's. */
  if (job->life.presence_fd >= 0)
    close (job->life.presence_fd);
  job->life.presence_fd = -1;

  if (job->setup.settings.flush && !job->setup.settings.dry_run && !_cs_job_stopping (job))
    {
      /* Seconds on a local disk (a copy that fits in memory is written back
       * only now), during which nothing else moves: said, not left to look
       * like a copy that hangs at its end. */
      atomic_store (&job->control.flushing, 1);
      _cs_job_post_sample (job, NULL);
      flush_destination (job);
      atomic_store (&job->control.flushing, 0);
    }
  _cs_manifest_finish (job);

  _cs_mutex_lock (&job->gate.lock);
  job->control.finished = TRUE;
  g_cond_broadcast (&job->gate.cond);
  g_cond_signal (&job->control.sampler_cond);
  _cs_mutex_unlock (&job->gate.lock);
  if (job->control.sampler != NULL)
    g_thread_join (g_steal_pointer (&job->control.sampler));
  g_clear_pointer (&job->lists.log, _cs_log_free);

  for (guint c = 0; c < CS_N_CLASSES; c++)
    for (guint k = 0; k < CS_N_KINDS; k++)
      totals.v[c][k] = atomic_load (&job->tally.totals[c][k]);
  _cs_run_set_totals (job->life.run, &totals);
  {
    CsRemovals removals = {
      atomic_load (&job->tally.moved_files), atomic_load (&job->tally.moved_bytes),
      atomic_load (&job->tally.moved_dirs), atomic_load (&job->tally.kept_files),
      atomic_load (&job->tally.deleted_files), atomic_load (&job->tally.deleted_dirs),
      atomic_load (&job->tally.deleted_bytes), atomic_load (&job->tally.not_deleted),
    };

    _cs_run_set_removals (job->life.run, &removals);
  }
  {
    CsSkips skips = {
      atomic_load (&job->tally.identical_files), atomic_load (&job->tally.identical_bytes),
      atomic_load (&job->tally.chosen_files), atomic_load (&job->tally.chosen_bytes),
    };

    _cs_run_set_skips (job->life.run, &skips);
  }
  /* The clock stops with the copy, so what is read of it later (the window's
   * last progress) is the run's duration, and the two add up to the wall's. */
  {
    gint64 now = g_get_monotonic_time ();
    gint64 frozen = __atomic_load_n (&job->clock.clock_frozen, __ATOMIC_ACQUIRE);

    if (frozen < 0)
      frozen = now - __atomic_load_n (&job->clock.clock_origin, __ATOMIC_RELAXED);
    __atomic_store_n (&job->clock.clock_frozen, frozen, __ATOMIC_RELEASE);
    _cs_run_set_duration (job->life.run, (double) frozen / G_USEC_PER_SEC);
    _cs_run_set_held (job->life.run, (double) (now - job->clock.start_mono - frozen) / G_USEC_PER_SEC);
  }

  reason = atomic_load (&job->gate.stop);
  if (reason == CS_STOP_NONE)
    remember_threads (job);
  if (reason == CS_STOP_FATAL)
    {
      if (!job->gate.fatal_reported)
        _cs_run_add_error (job->life.run, job->setup.destination, "copy", 0, job->gate.fatal_message, 1);
      _cs_run_set_outcome (job->life.run, "failed", job->gate.fatal_message);
      job->control.run_error = g_error_new_literal (CS_JOB_ERROR, CS_JOB_ERROR_DESTINATION, job->gate.fatal_message);
    }
  else if (reason == CS_STOP_CANCEL)
    {
      _cs_run_set_outcome (job->life.run, "cancelled", NULL);
      job->control.run_error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "The copy was cancelled");
    }
  else
    _cs_run_set_outcome (job->life.run, "completed", NULL);

  _cs_job_post_done (job);

  return NULL;
}

/* main thread, as the job starts: the sampler's baseline is taken before
 * any worker can count a byte. */
void
_cs_job_start_threads (CsJob *job)
{
  job->control.sampler_state = _cs_sampler_new (job);
  job->control.sampler = g_thread_new ("cs-sampler", sampler_thread, job);
  job->control.controller = g_thread_new ("cs-controller", controller_thread, job);
}
