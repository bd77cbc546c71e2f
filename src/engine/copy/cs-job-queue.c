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


/* The gate (pause, questions, stop), the clock it holds, the bounded queue,
 * the descriptor budget and the big buffers; the pool's worker function. */

static void
worker_free (gpointer data)
{
  CsWorker *worker = data;

  free (worker->buffer);
  g_free (worker);
}

static GPrivate worker_private = G_PRIVATE_INIT (worker_free);

/* Once no worker is left: every big buffer is back in the free list. */
void
_cs_job_free_big_buffers (CsJob *job)
{
  _cs_mutex_lock (&job->bigbuf.big_lock);
  g_assert (job->bigbuf.free_big_buffers->len == job->bigbuf.big_buffers);
  for (guint i = 0; i < job->bigbuf.free_big_buffers->len; i++)
    free (g_ptr_array_index (job->bigbuf.free_big_buffers, i));
  g_ptr_array_set_size (job->bigbuf.free_big_buffers, 0);
  job->bigbuf.big_buffers = 0;
  _cs_mutex_unlock (&job->bigbuf.big_lock);
}

/* any thread */
guint8 *
_cs_job_lend_big_buffer (CsJob *job)
{
  guint allowed = MAX (1, atomic_load_explicit (&job->tune.threads, memory_order_relaxed) / CS_BIG_BUFFER_THREADS);
  guint8 *buffer = NULL;

  _cs_mutex_lock (&job->bigbuf.big_lock);
  if (job->bigbuf.free_big_buffers->len > 0)
    buffer = g_ptr_array_steal_index_fast (job->bigbuf.free_big_buffers, job->bigbuf.free_big_buffers->len - 1);
  else if (job->bigbuf.big_buffers < allowed)
    {
      if (posix_memalign ((void **) &buffer, 4096, CS_BIG_BUFFER_SIZE) != 0)
        g_error ("Out of memory");
      job->bigbuf.big_buffers++;
    }
  _cs_mutex_unlock (&job->bigbuf.big_lock);

  return buffer;
}

/* any thread */
void
_cs_job_return_big_buffer (CsJob  *job,
                           guint8 *buffer)
{
  g_assert (buffer != NULL);
  _cs_mutex_lock (&job->bigbuf.big_lock);
  g_ptr_array_add (job->bigbuf.free_big_buffers, buffer);
  _cs_mutex_unlock (&job->bigbuf.big_lock);
}


/* ---- The clock ----------------------------------------------------------- */

double
_cs_job_elapsed (CsJob *job)
{
  gint64 frozen;

  if (job->clock.start_mono == 0)
    return 0;
  frozen = __atomic_load_n (&job->clock.clock_frozen, __ATOMIC_ACQUIRE);
  if (frozen >= 0)
    return (double) frozen / G_USEC_PER_SEC;
  return (double) (g_get_monotonic_time () - __atomic_load_n (&job->clock.clock_origin, __ATOMIC_RELAXED))
         / G_USEC_PER_SEC;
}

/* main thread, before the threads start */
void
_cs_job_clock_start (CsJob *job)
{
  job->clock.start_mono = g_get_monotonic_time ();
  job->clock.clock_origin = job->clock.start_mono;
  job->clock.clock_frozen = -1;
  job->phases.threads_since = job->clock.start_mono;
}

/* main thread, before the pool starts: the runs' numbers, which a worker
 * thread GLib hands from one job's pool to another's tells apart. */
static void
number_run (CsJob *job)
{
  static atomic_uint_fast64_t runs;

  job->phases.run = atomic_fetch_add (&runs, 1) + 1;
}

/* The wall time the user held the copy, µs, up to @now_us; any thread. */
gint64
_cs_job_paused_us (CsJob  *job,
                   gint64  now_us)
{
  gint64 paused;

  _cs_mutex_lock (&job->gate.lock);
  paused = job->clock.paused_us;
  if (job->clock.holds > 0 && job->clock.hold_paused)
    paused += MAX (now_us - job->clock.held_since, 0);
  _cs_mutex_unlock (&job->gate.lock);

  return paused;
}

double
_cs_job_thread_seconds (CsJob  *job,
                        gint64  now_us)
{
  double seconds = 0;

  _cs_mutex_lock (&job->phases.thread_lock);
  if (job->phases.threads_since != 0)
    seconds = job->phases.thread_seconds
              + (double) _cs_job_threads (job) * (double) MAX (now_us - job->phases.threads_since, 0) / G_USEC_PER_SEC;
  _cs_mutex_unlock (&job->phases.thread_lock);

  return seconds;
}

/* job->gate.lock held; @paused: the user's pause, else a question */
void
_cs_job_hold_locked (CsJob    *job,
                     gboolean  paused)
{
  if (job->clock.holds++ == 0)
    {
      job->clock.held_since = g_get_monotonic_time ();
      job->clock.hold_paused = FALSE;
      __atomic_store_n (&job->clock.clock_frozen, job->clock.held_since - job->clock.clock_origin, __ATOMIC_RELEASE);
    }
  job->clock.hold_paused |= paused;
}

/* job->gate.lock held; the origin moves before the clock thaws, so a reader that
 * sees it running also sees the new origin. When the clock runs again,
 * @out_event is the hold for the graph to mark, at the clock's time it
 * stood still at: "pause" (the user paused during it, perhaps while a
 * question was open too) or "question", and its seconds; the caller adds it
 * once the lock is released. */
gboolean
_cs_job_release_locked (CsJob      *job,
                        CsRunEvent *out_event)
{
  gint64 held;

  g_assert (job->clock.holds > 0);
  if (--job->clock.holds > 0)
    return FALSE;

  held = g_get_monotonic_time () - job->clock.held_since;
  *out_event = (CsRunEvent) {
    .t = (double) job->clock.clock_frozen / G_USEC_PER_SEC,
    .kind = job->clock.hold_paused ? "pause" : "question",
    .value = (double) held / G_USEC_PER_SEC,
  };
  if (job->clock.hold_paused)
    job->clock.paused_us += held;
  __atomic_store_n (&job->clock.clock_origin, job->clock.clock_origin + held, __ATOMIC_RELAXED);
  __atomic_store_n (&job->clock.clock_frozen, -1, __ATOMIC_RELEASE);

  return TRUE;
}

/* ---- Stopping, pausing, the bounded queue -------------------------------- */

gboolean
_cs_job_stopping (CsJob *job)
{
  return atomic_load_explicit (&job->gate.stop, memory_order_relaxed) != CS_STOP_NONE;
}

/* job->gate.lock held */
void
_cs_job_update_gate_locked (CsJob *job)
{
  atomic_store (&job->gate.gate_closed, job->gate.paused || job->gate.asking > 0);
}

/* A question holds the whole copy, not only the worker that asked: the clock
 * stands still meanwhile, and bytes the others copied then would be counted
 * against no time at all (a rate of 334.6 GB/s was shown during a prompt). */
gboolean
_cs_job_wait_if_paused (CsJob *job)
{
  if (_cs_job_stopping (job))
    return FALSE;
  if (G_LIKELY (!atomic_load_explicit (&job->gate.gate_closed, memory_order_relaxed)))
    return TRUE;

  _cs_mutex_lock (&job->gate.lock);
  while ((job->gate.paused || job->gate.asking > 0) && !_cs_job_stopping (job))
    {
      CsPhase was = _cs_worker_phase_set (job->gate.paused ? CS_PHASE_PAUSED : CS_PHASE_QUESTION);

      _cs_cond_wait (&job->gate.cond, &job->gate.lock);
      _cs_worker_phase_restore (was);
    }
  _cs_mutex_unlock (&job->gate.lock);

  return !_cs_job_stopping (job);
}

gboolean
_cs_job_sleep (CsJob  *job,
               double  seconds)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) (seconds * G_USEC_PER_SEC);

  _cs_mutex_lock (&job->gate.lock);
  while (!_cs_job_stopping (job) && g_get_monotonic_time () < deadline)
    _cs_cond_wait_until (&job->gate.cond, &job->gate.lock, deadline);
  _cs_mutex_unlock (&job->gate.lock);

  return !_cs_job_stopping (job);
}

gboolean
_cs_job_stop (CsJob        *job,
              CsStopReason  reason,
              const char   *message)
{
  gboolean first = FALSE;
  gboolean released = FALSE;
  CsRunEvent hold;

  _cs_mutex_lock (&job->gate.lock);
  if (atomic_load (&job->gate.stop) == CS_STOP_NONE)
    {
      atomic_store (&job->gate.stop, reason);
      if (message != NULL)
        job->gate.fatal_message = g_strdup (message);
      first = TRUE;
    }
  if (job->gate.paused)
    {
      job->gate.paused = FALSE;
      released = _cs_job_release_locked (job, &hold);
    }
  _cs_job_update_gate_locked (job);
  g_cond_broadcast (&job->gate.cond);
  _cs_mutex_unlock (&job->gate.lock);
  if (released)
    _cs_run_add_event (job->life.run, &hold);
  /* Workers waiting for a speed limit stop waiting. */
  _cs_limiter_stop (&job->limits.byte_limit);
  _cs_limiter_stop (&job->limits.file_limit);

  return first;
}

gboolean
_cs_job_fatal (CsJob      *job,
               const char *message)
{
  return _cs_job_stop (job, CS_STOP_FATAL, message);
}

/* What an item counts against the queue bound. A batch counts its files: the
 * bound is what keeps memory flat, and counting a batch of sixteen as one let
 * the queue hold sixteen times as many files (25 MB at 100,000 files). */
static guint
item_weight (CsItem *item)
{
  return item->kind == CS_ITEM_BATCH ? MAX (item->n_files, 1) : 1;
}

static void connect_ahead (CsJob *job);

void
_cs_job_push (CsJob  *job,
              CsItem *item)
{
  guint weight = item_weight (item);

  _cs_mutex_lock (&job->gate.lock);
  while (job->gate.pending >= job->gate.max_pending && !_cs_job_stopping (job))
    {
      /* The pool, not the scan, sets the pace: with files to copy in
       * it, the count ahead begins (cs-count-ahead.c). */
      atomic_store_explicit (&job->ahead.scan_held, 1, memory_order_relaxed);
      _cs_cond_wait (&job->gate.cond, &job->gate.lock);
    }
  /* Written atomically although under the lock: the scanner peeks at it without
   * the lock to decide on batching (queue_item). */
  __atomic_fetch_add (&job->gate.pending, weight, __ATOMIC_RELAXED);
  _cs_mutex_unlock (&job->gate.lock);

  /* The pool's queue is GLib's own lock; the worker acquires this in worker_func. */
  CS_TSAN_RELEASE (item);
  g_thread_pool_push (job->gate.pool, item, NULL);
  if (!atomic_load_explicit (&job->gate.connected_ahead, memory_order_relaxed)
      && atomic_load_explicit (&job->scan.listings_slow, memory_order_relaxed)
      && !atomic_exchange (&job->gate.connected_ahead, 1))
    connect_ahead (job);
}

/* Many threads each holding a few descriptors need more than the usual 1024;
 * when even the hard limit is low, the job budgets what it has. */
static void
plan_fd_budget (CsJob *job)
{
  struct rlimit rl;
  guint64 avail;

  if (getrlimit (RLIMIT_NOFILE, &rl) != 0)
    return;
  if (rl.rlim_cur < rl.rlim_max)
    {
      rl.rlim_cur = rl.rlim_max;
      setrlimit (RLIMIT_NOFILE, &rl);
      getrlimit (RLIMIT_NOFILE, &rl);
    }

  /* Some for stdio, /proc reads, flushing and the listing of existing folders. */
  avail = rl.rlim_cur > 40 ? rl.rlim_cur - 24 : 16;
  job->gate.max_dir_fds = (guint) MIN (avail / 2, G_MAXUINT / 2);
  /* An item holds a source and a temporary; a chunk one more. */
  job->gate.max_items = (guint) MAX (1, MIN ((avail - avail / 2) / 3, G_MAXUINT / 2));
}

static gboolean
budget_limits_items (CsJob *job)
{
  return job->gate.max_items < CS_JOB_MAX_THREADS;
}

void
_cs_job_hold_item (CsJob *job)
{
  _cs_mutex_lock (&job->gate.lock);
  __atomic_fetch_add (&job->gate.pending, 1, __ATOMIC_RELAXED);
  _cs_mutex_unlock (&job->gate.lock);
}

void
_cs_job_release_held (CsJob *job)
{
  _cs_mutex_lock (&job->gate.lock);
  if (__atomic_sub_fetch (&job->gate.pending, 1, __ATOMIC_RELAXED) == 0)
    g_cond_broadcast (&job->gate.cond);
  _cs_mutex_unlock (&job->gate.lock);
}

void
_cs_job_acquire_dir_fds (CsJob *job,
                         guint  n)
{
  _cs_mutex_lock (&job->gate.lock);
  /* Wait only while finishing items can free folders; the folders on the
   * scanner's own path can't be given back, and waiting on them would hang. */
  while (job->gate.dir_fds + n > job->gate.max_dir_fds && job->gate.pending > 0 && !_cs_job_stopping (job))
    _cs_cond_wait_until (&job->gate.cond, &job->gate.lock, g_get_monotonic_time () + G_USEC_PER_SEC / 20);
  __atomic_fetch_add (&job->gate.dir_fds, n, __ATOMIC_RELAXED);
  _cs_mutex_unlock (&job->gate.lock);
}

void
_cs_job_release_dir_fds (CsJob *job,
                         guint  n)
{
  _cs_mutex_lock (&job->gate.lock);
  __atomic_fetch_sub (&job->gate.dir_fds, MIN (n, job->gate.dir_fds), __ATOMIC_RELAXED);
  _cs_mutex_unlock (&job->gate.lock);
}

void
_cs_job_dir_finished (CsJob *job,
                      CsDir *dir)
{
  if (job->setup.settings.operation == CS_OPERATION_MOVE && !job->setup.settings.dry_run)
    _cs_move_finish_dir (job, dir);
}

/* The worker's phase slot for @job, claimed with its first item there. */
static CsWorkerPhase *
worker_phase (CsJob    *job,
              CsWorker *worker)
{
  guint i;

  if (worker->phase_run == job->phases.run)
    return worker->phase;
  worker->phase_run = job->phases.run;
  worker->phase = NULL;
  /* A job that records no samples keeps no phases either: the seam then
   * costs a thread-local load (bench/run's --sampling-overhead baseline). */
  if (job->setup.settings.interval_ms == 0)
    return NULL;
  i = atomic_fetch_add (&job->phases.n_slots, 1);
  if (i < CS_JOB_PHASE_SLOTS)
    {
      CsWorkerPhase *w;

      if (posix_memalign ((void **) &w, 64, sizeof *w) != 0)
        g_error ("Out of memory");
      _cs_worker_phase_init (w, CS_PHASE_WAITING, _cs_worker_phase_now ());
      atomic_store_explicit (&job->phases.slots[i], w, memory_order_release);
      worker->phase = w;
    }
  return worker->phase;
}

/* A task of the pool's that is no item (_cs_job_queue_connect_ahead). */
static int connect_task;

static void
worker_func (gpointer data,
             gpointer user_data)
{
  CsItem *item = data;
  CsJob *job = user_data;
  CsWorker *worker;
  guint weight, before;

  if (data == &connect_task)
    {
      CS_TSAN_ACQUIRE (&connect_task);
      if (!_cs_job_stopping (job))
        _cs_io_connect (CS_IO_AT_LOCATION, job->setup.destination);
      return;
    }
  CS_TSAN_ACQUIRE (item);
  weight = item_weight (item);
  worker = g_private_get (&worker_private);
  if (worker == NULL)
    {
      worker = g_new0 (CsWorker, 1);
      /* Aligned so the same buffer also suits O_DIRECT readers later. */
      if (posix_memalign ((void **) &worker->buffer, 4096, CS_BUFFER_SIZE) != 0)
        g_error ("Out of memory");
      g_private_set (&worker_private, worker);
    }

  if (budget_limits_items (job))
    {
      _cs_mutex_lock (&job->gate.lock);
      while (job->gate.items_active >= job->gate.max_items)
        _cs_cond_wait (&job->gate.cond, &job->gate.lock);
      job->gate.items_active++;
      _cs_mutex_unlock (&job->gate.lock);
    }

  /* Set per item, not per thread: GLib may hand this thread to another
   * pool once the job's is freed. Until its first request the worker is
   * opening the item. */
  _cs_worker_phase = worker_phase (job, worker);
  _cs_worker_phase_set (CS_PHASE_OPENING);
  atomic_fetch_add (&job->gate.active, 1);
  if (item->kind == CS_ITEM_BATCH)
    {
      CsItem *member;

      while ((member = item->next) != NULL)
        {
          item->next = member->next;
          member->next = NULL;
          /* A member put aside (see _cs_copy_item) is freed by whoever takes it up. */
          if (!_cs_job_wait_if_paused (job) || _cs_copy_item (job, worker, member))
            _cs_item_free (member);
        }
      _cs_item_free (item);
    }
  else if (!(_cs_job_wait_if_paused (job) || item->kind == CS_ITEM_CHUNK)
           || _cs_copy_item (job, worker, item))
    _cs_item_free (item);
  atomic_fetch_sub (&job->gate.active, 1);
  _cs_worker_phase_set (CS_PHASE_WAITING);
  _cs_worker_phase = NULL;

  /* Only a few waiters care: the scanner when the queue was full or it waits for
   * folder descriptors, and the controller when the queue empties. Waking them
   * for every file costs a futex each. */
  _cs_mutex_lock (&job->gate.lock);
  before = __atomic_fetch_sub (&job->gate.pending, weight, __ATOMIC_RELAXED);
  if (budget_limits_items (job))
    {
      job->gate.items_active--;
      g_cond_broadcast (&job->gate.cond);
    }
  else if (job->gate.pending == 0 || (before >= job->gate.max_pending && job->gate.pending < job->gate.max_pending)
           || job->gate.dir_fds + 4 > job->gate.max_dir_fds)
    g_cond_broadcast (&job->gate.cond);
  _cs_mutex_unlock (&job->gate.lock);
}


/* Until every queued item is done. */
void
_cs_job_wait_for_items (CsJob *job)
{
  _cs_mutex_lock (&job->gate.lock);
  while (job->gate.pending > 0)
    _cs_cond_wait (&job->gate.cond, &job->gate.lock);
  _cs_mutex_unlock (&job->gate.lock);
}

/* main thread, before the threads start: the queue's bounds and the pool. */
void
_cs_job_queue_open (CsJob *job)
{
  job->gate.max_pending = 4096;
  plan_fd_budget (job);
  number_run (job);

#ifdef CS_TSAN
  /* GLib hands a finished pool's idle threads to the next pool through its own
   * queue, out of TSan's sight; here every pool starts threads of its own. */
  g_thread_pool_set_max_unused_threads (0);
#endif
  /* Exclusive: the job's own threads, not the process's shared ones that GTask and
   * GIO take theirs from, so a worker keeps nothing of another pool's and leaves
   * nothing for one. */
  job->gate.pool = g_thread_pool_new (worker_func, job, (int) atomic_load (&job->tune.threads), TRUE, NULL);
}

/*
 * With an item, once a listing said the server is slow: on a share each
 * worker's connection was set up by its first call, inside its first file
 * (a negotiation, a login, a tree connect, a look at the share's root:
 * 55 ms behind 1 ms per filesystem call, in the lab), one worker after
 * another as a rerun's few items came. A task for each of the pool's
 * threads, the job's own, sets them up together. Not on a fast server,
 * where a rerun's changes reach a few workers only and a set-up is CPU
 * more than waiting (at 0 µs on two cores, 8 set-ups cost a 1 % changed
 * mirror of 5,000 files 0.1 s, 22 %), and not for a rerun with nothing to
 * copy. A first copy gives every worker an item at once anyway.
 */
static void
connect_ahead (CsJob *job)
{
  if (job->setup.settings.dry_run || !_cs_io_connects (CS_IO_AT_LOCATION, job->setup.destination))
    return;
  _cs_mutex_lock (&job->gate.lock);
  if (job->gate.pool != NULL)
    for (int i = g_thread_pool_get_max_threads (job->gate.pool); i > 0; i--)
      {
        CS_TSAN_RELEASE (&connect_task);
        g_thread_pool_push (job->gate.pool, &connect_task, NULL);
      }
  _cs_mutex_unlock (&job->gate.lock);
}

/* any thread: the pool's size; the controller frees the pool once the copy
 * is over, hence the lock. */
void
_cs_job_queue_resize (CsJob *job,
                      guint  n_threads)
{
  _cs_mutex_lock (&job->gate.lock);
  if (job->gate.pool != NULL)
    g_thread_pool_set_max_threads (job->gate.pool, (int) n_threads, NULL);
  _cs_mutex_unlock (&job->gate.lock);
}

/* controller thread, once every item is done: the workers end, and their big
 * buffers are not kept for the flush and the summary. */
void
_cs_job_queue_close (CsJob *job)
{
  GThreadPool *pool;

  _cs_mutex_lock (&job->gate.lock);
  pool = g_steal_pointer (&job->gate.pool);
  _cs_mutex_unlock (&job->gate.lock);
  g_thread_pool_free (pool, FALSE, TRUE);
  _cs_job_free_big_buffers (job);
}
