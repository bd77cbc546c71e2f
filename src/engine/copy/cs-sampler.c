/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-sampler"

#include "config.h"

#include <math.h>
#include <string.h>

#include "cs-env-private.h"
#include "cs-job-private.h"
#include "cs-sampler-private.h"

/*
 * Reads the job's atomic counters at a fixed interval and turns the differences
 * into rates over the run's clock. A sample is made only once the clock has run
 * half an interval since the last one: while the copy is paused or waits for an
 * answer the clock stands still, and the few bytes still landing then (requests
 * in flight when it stopped) must be counted against time the clock ran, not
 * against none. So each recorded sample covers at least half an interval, and
 * no rate can exceed what the counters moved in that time. Only the sampler
 * thread touches this struct.
 */

typedef struct {
  double  t;                  /* the run's clock */
  gint64  mono;
  guint64 requests, reads, writes, copies, bytes_read, bytes_written, read_ns, write_ns;
  guint64 files_done, bytes_done, files_checked;
  guint64 cpu_total, cpu_idle, cpu_system;
  guint64 process_cpu;
  /* Where the workers' time went: every slot's time in each phase, added
   * up, and the thread count's integral, both over wall time. */
  guint64 phase_ns[CS_PHASE_N];
  guint64 run_delay_ns;       /* the slots' threads' run_delay since they took them */
  double  runnable_carry;     /* worker-seconds of it left for the samples after this one */
  double  thread_seconds;
  double  paused;             /* wall seconds the user held the copy, so far */
} Snapshot;

struct _CsSampler {
  CsJob    *job;
  double    min_dt;           /* seconds of the clock a sample covers at least */
  Snapshot  last;             /* at the last recorded sample (or the start) */
  Snapshot  before_last;      /* at the one before it */
  gboolean  have_sample;
  gboolean  runnable_measured;  /* the kernel keeps run_delay: schedstat could be read */
  double    lane_t[CS_PHASE_MAX_WORKERS];  /* the newest change handed to each lane */
};

static void
snapshot (CsJob    *job,
          Snapshot *s)
{
  CsCounters *c = &job->counters;
  guint64 cpu_total = 0, cpu_idle = 0, cpu_system = 0;

  guint64 now_ns;
  guint n_slots;

  s->t = _cs_job_elapsed (job);
  now_ns = _cs_worker_phase_now ();
  s->mono = (gint64) (now_ns / 1000);
  s->thread_seconds = _cs_job_thread_seconds (job, s->mono);
  s->paused = (double) _cs_job_paused_us (job, s->mono) / G_USEC_PER_SEC;
  memset (s->phase_ns, 0, sizeof s->phase_ns);
  s->run_delay_ns = 0;
  s->runnable_carry = 0;
  n_slots = MIN (atomic_load (&job->phases.n_slots), CS_JOB_PHASE_SLOTS);
  for (guint i = 0; i < n_slots; i++)
    {
      CsWorkerPhase *w = atomic_load_explicit (&job->phases.slots[i], memory_order_acquire);
      guint64 ns[CS_PHASE_N];

      /* Claimed but not stored yet: its time so far is waiting. */
      if (w == NULL)
        continue;
      _cs_worker_phase_read (w, now_ns, ns);
      for (guint p = 0; p < CS_PHASE_N; p++)
        s->phase_ns[p] += ns[p];
      /* One pread of a few bytes per slot: 1-2 µs each, so 64 workers
       * cost 0.06-0.12 ms a sample (test-job's /job/runnable/cost, on 2
       * loaded cores). */
      s->run_delay_ns += _cs_run_delay_read (&w->run_delay);
    }
  s->requests = 0;
  for (guint i = 0; i < CS_N_REQ; i++)
    s->requests += atomic_load_explicit (&c->requests[i], memory_order_relaxed);
  s->reads = atomic_load_explicit (&c->requests[CS_REQ_READ], memory_order_relaxed);
  s->writes = atomic_load_explicit (&c->requests[CS_REQ_WRITE], memory_order_relaxed);
  s->copies = atomic_load_explicit (&c->requests[CS_REQ_COPY], memory_order_relaxed);
  s->bytes_read = atomic_load_explicit (&c->bytes_read, memory_order_relaxed);
  s->bytes_written = atomic_load_explicit (&c->bytes_written, memory_order_relaxed);
  s->read_ns = atomic_load_explicit (&c->read_ns, memory_order_relaxed);
  s->write_ns = atomic_load_explicit (&c->write_ns, memory_order_relaxed);
  s->files_done = atomic_load_explicit (&c->files_done, memory_order_relaxed);
  s->bytes_done = atomic_load_explicit (&c->bytes_done, memory_order_relaxed);
  s->files_checked = atomic_load_explicit (&job->tally.files_checked, memory_order_relaxed);
  s->process_cpu = _cs_env_process_cpu_usec ();
  _cs_env_read_cpu_times (&cpu_total, &cpu_idle, &cpu_system);
  s->cpu_total = cpu_total;
  s->cpu_idle = cpu_idle;
  s->cpu_system = cpu_system;
}

CsSampler *
_cs_sampler_new (CsJob *job)
{
  CsSampler *self = g_new0 (CsSampler, 1);
  guint interval_ms = job->setup.settings.interval_ms > 0 ? job->setup.settings.interval_ms : 250;
  CsRunDelay probe;

  self->job = job;
  /* The workers' files are of the same kernel: where this thread's own
   * cannot be read (no file, or "0 0 0" without scheduler statistics),
   * theirs cannot either, and the record says "not measured". */
  _cs_run_delay_open_thread (&probe, _cs_run_delay_tid ());
  self->runnable_measured = probe.fd >= 0;
  _cs_run_delay_close (&probe);
  self->min_dt = interval_ms / 2000.0;
  snapshot (job, &self->last);
  self->last.t = 0;
  self->before_last = self->last;

  return self;
}

static double
ratio (double num,
       double den)
{
  return den > 0 ? num / den : 0.0;
}

/* The rates between two snapshots. */
static void
make_sample (CsJob          *job,
             const Snapshot *from,
             const Snapshot *to,
             CsSample       *sample)
{
  double dt = to->t - from->t;
  double wall_dt = (double) (to->mono - from->mono) / G_USEC_PER_SEC;
  guint64 d_reads = to->reads - from->reads;
  guint64 d_writes = to->writes - from->writes;
  guint64 d_copies = to->copies - from->copies;
  guint64 d_rbytes = to->bytes_read - from->bytes_read;
  guint64 d_wbytes = to->bytes_written - from->bytes_written;
  double read_reqs = (double) (d_reads + d_copies);
  double write_reqs = (double) (d_writes + d_copies);

  /* Only a run that ended before its clock moved at all: its counters moved in
   * no measurable time, and rates of it would mean nothing. */
  if (dt <= 1e-6)
    dt = G_MAXDOUBLE;

  memset (sample, 0, sizeof *sample);
  sample->t = to->t;
  sample->values[CS_COUNTER_REQUEST_RATE] = (double) (to->requests - from->requests) / dt;
  sample->values[CS_COUNTER_DATA_REQUEST_RATE] = (double) (d_reads + d_writes + d_copies) / dt;
  sample->values[CS_COUNTER_READ_REQUEST_RATE] = read_reqs / dt;
  sample->values[CS_COUNTER_WRITE_REQUEST_RATE] = write_reqs / dt;
  sample->values[CS_COUNTER_DATA_TRANSFER_RATE] = (double) (d_rbytes + d_wbytes) / 1e6 / dt;
  sample->values[CS_COUNTER_READ_TRANSFER_RATE] = (double) d_rbytes / 1e6 / dt;
  sample->values[CS_COUNTER_WRITE_TRANSFER_RATE] = (double) d_wbytes / 1e6 / dt;
  sample->values[CS_COUNTER_FILE_RATE] = (double) (to->files_done - from->files_done) / dt;
  sample->values[CS_COUNTER_CHECK_RATE] = (double) (to->files_checked - from->files_checked) / dt;
  sample->values[CS_COUNTER_AVG_REQUEST_SIZE] = ratio ((double) (d_rbytes + d_wbytes), read_reqs + write_reqs) / 1e3;
  sample->values[CS_COUNTER_AVG_READ_REQUEST_SIZE] = ratio ((double) d_rbytes, read_reqs) / 1e3;
  sample->values[CS_COUNTER_AVG_WRITE_REQUEST_SIZE] = ratio ((double) d_wbytes, write_reqs) / 1e3;
  sample->values[CS_COUNTER_AVG_REQUEST_TIME] =
    ratio ((double) ((to->read_ns - from->read_ns) + (to->write_ns - from->write_ns)), read_reqs + write_reqs) / 1e6;
  sample->values[CS_COUNTER_AVG_READ_REQUEST_TIME] = ratio ((double) (to->read_ns - from->read_ns), read_reqs) / 1e6;
  sample->values[CS_COUNTER_AVG_WRITE_REQUEST_TIME] = ratio ((double) (to->write_ns - from->write_ns), write_reqs) / 1e6;
  /* CPU over wall time: it is spent whether the clock runs or not. */
  if (to->cpu_total > from->cpu_total)
    {
      double total = (double) (to->cpu_total - from->cpu_total);

      sample->values[CS_COUNTER_CPU_USAGE] = 100.0 * (1.0 - (double) (to->cpu_idle - from->cpu_idle) / total);
      sample->values[CS_COUNTER_CPU_USAGE_SYSTEM] = 100.0 * (double) (to->cpu_system - from->cpu_system) / total;
    }
  sample->values[CS_COUNTER_PROCESS_CPU_USAGE] =
    wall_dt > 0 ? 100.0 * (double) (to->process_cpu - from->process_cpu) / 1e6 / wall_dt : 0.0;
  sample->values[CS_COUNTER_PROCESS_MEMORY] = (double) _cs_env_process_rss () / 1e6;
  sample->values[CS_COUNTER_THREADS] = _cs_job_threads (job);
  sample->files_done = to->files_done;
  sample->bytes_done = to->bytes_done;

  for (guint i = 0; i < CS_N_COUNTERS; i++)
    if (!isfinite (sample->values[i]) || sample->values[i] < 0)
      sample->values[i] = 0;
}

/*
 * The worker-seconds in each phase between two snapshots. The slots say
 * what the workers on items did; the rest of the thread count's time is the
 * workers waiting for work (or threads not started yet, or ended), or, for
 * the part of it the clock was held, paused or waiting for an answer. So
 * the phases add up to the count's integral, slider changes and pauses
 * included, except where workers finishing their items after the slider
 * went down take more than it allows: that is measured, not trimmed.
 */
static void
make_phases (const Snapshot *from,
             const Snapshot *to,
             double          seconds[CS_PHASE_N],
             double         *runnable)
{
  double wall_dt = (double) (to->mono - from->mono) / G_USEC_PER_SEC;
  double held = wall_dt - (to->t - from->t);
  double busy = 0, rest;

  for (guint p = 0; p < CS_PHASE_N; p++)
    {
      seconds[p] = to->phase_ns[p] > from->phase_ns[p] ? (double) (to->phase_ns[p] - from->phase_ns[p]) / 1e9 : 0.0;
      if (p != CS_PHASE_WAITING)
        busy += seconds[p];
    }
  /* The clock and the wall time are read a few µs apart: less than a
   * millisecond between them is no hold. */
  if (held < 0.001)
    held = 0;
  rest = MAX (to->thread_seconds - from->thread_seconds - busy, 0.0);
  if (wall_dt > 0 && held > 0)
    {
      double paused = CLAMP (to->paused - from->paused, 0.0, held);
      double rest_paused = rest * MIN (paused / wall_dt, 1.0);
      double rest_asked = rest * MIN ((held - paused) / wall_dt, 1.0 - paused / wall_dt);

      seconds[CS_PHASE_PAUSED] += rest_paused;
      seconds[CS_PHASE_QUESTION] += rest_asked;
      rest = MAX (rest - rest_paused - rest_asked, 0.0);
    }
  seconds[CS_PHASE_WAITING] = rest;
  /* Each slot's count only grows, and slots are never given back while
   * the job runs, so their sum only grows too. */
  *runnable = to->run_delay_ns > from->run_delay_ns
              ? (double) (to->run_delay_ns - from->run_delay_ns) / 1e9 : 0.0;
}

/* A sample's runnable within what its workers could have waited in it,
 * the rest carried on (_cs_run_delay_spread). */
static double
spread_runnable (const Snapshot *from,
                 Snapshot       *to,
                 double          runnable,
                 gboolean        final)
{
  to->runnable_carry = from->runnable_carry;
  return _cs_run_delay_spread (&to->runnable_carry, runnable,
                               to->thread_seconds - from->thread_seconds, final);
}

/* The lanes: each worker's recent changes, on the run's clock. A change is
 * placed back from @now by the wall time since it; inside a hold the clock
 * stood still, so those land at the hold's start. */
static void
hand_over_lanes (CsSampler      *self,
                 const Snapshot *now)
{
  CsJob *job = self->job;
  guint n_slots = MIN (atomic_load (&job->phases.n_slots), CS_PHASE_MAX_WORKERS);
  g_autofree CsWorkerPhaseChange *raw = g_new (CsWorkerPhaseChange, CS_WORKER_PHASE_RING);
  g_autofree CsPhaseChange *changes = g_new (CsPhaseChange, CS_WORKER_PHASE_RING);

  for (guint i = 0; i < n_slots; i++)
    {
      CsWorkerPhase *w = atomic_load_explicit (&job->phases.slots[i], memory_order_acquire);
      guint n;

      if (w == NULL)
        continue;
      n = _cs_worker_phase_drain (w, raw, CS_WORKER_PHASE_RING);
      for (guint k = 0; k < n; k++)
        {
          double ago = (double) MAX (now->mono * 1000 - (gint64) raw[k].ns, 0) / 1e9;
          double t = CLAMP (now->t - ago, self->lane_t[i], MAX (now->t, self->lane_t[i]));

          changes[k] = (CsPhaseChange) { t, raw[k].phase };
          self->lane_t[i] = t;
        }
      if (n > 0)
        _cs_run_add_phase_changes (job->life.run, i, changes, n);
    }
}

/* After the workers are gone: their latencies, added up by kind. */
static void
hand_over_latencies (CsJob *job)
{
  guint n_slots = MIN (atomic_load (&job->phases.n_slots), CS_JOB_PHASE_SLOTS);
  CsLatencyHistogram all[CS_LATENCY_N];

  memset (all, 0, sizeof all);
  for (guint i = 0; i < n_slots; i++)
    {
      CsWorkerPhase *w = atomic_load_explicit (&job->phases.slots[i], memory_order_acquire);

      if (w != NULL)
        for (guint k = 0; k < CS_LATENCY_N; k++)
          cs_latency_histogram_merge (&all[k], &w->latency[k]);
    }
  for (guint k = 0; k < CS_LATENCY_N; k++)
    if (all[k].count > 0)
      _cs_run_add_latency (job->life.run, k, &all[k]);
}

/* sampler thread. @final: the job has ended; this sample closes the record. */
void
_cs_sampler_take (CsSampler *self,
                  gboolean   record,
                  gboolean   final)
{
  CsJob *job = self->job;
  CsSample sample;
  Snapshot now;
  const Snapshot *from = &self->last;
  gboolean replace = FALSE;
  double seconds[CS_PHASE_N], runnable;

  snapshot (job, &now);
  /* /proc/stat could not be read: keep the last figures as the baseline. */
  if (now.cpu_total == 0)
    {
      now.cpu_total = self->last.cpu_total;
      now.cpu_idle = self->last.cpu_idle;
      now.cpu_system = self->last.cpu_system;
    }

  if (now.t - self->last.t < self->min_dt)
    {
      if (!final)
        {
          _cs_job_post_sample (job, NULL);
          return;
        }
      if (self->have_sample)
        {
          /* Nothing since the last sample: it already ends the record,
           * but its phases take in the time since, which the workers'
           * count spent all the same. */
          if (now.requests == self->last.requests && now.files_done == self->last.files_done)
            {
              if (record)
                {
                  double seconds[CS_PHASE_N], runnable;

                  make_phases (&self->before_last, &now, seconds, &runnable);
                  runnable = spread_runnable (&self->before_last, &now, runnable, TRUE);
                  _cs_run_replace_last_phase_sample (job->life.run, self->last.t, seconds);
                  if (self->runnable_measured)
                    _cs_run_set_phase_runnable (job->life.run, runnable);
                  hand_over_lanes (self, &now);
                  hand_over_latencies (job);
                }
              _cs_job_post_sample (job, NULL);
              return;
            }
          /* A short last piece: the last sample is made again over both. */
          from = &self->before_last;
          replace = TRUE;
        }
    }

  make_sample (job, from, &now, &sample);
  /* Before the snapshots move on: @from is one of them. */
  make_phases (from, &now, seconds, &runnable);
  runnable = spread_runnable (from, &now, runnable, final);

  if (!replace)
    _cs_job_auto_feed (job, &sample,
                       now.files_done > self->last.files_done
                       ? (double) (now.bytes_done - self->last.bytes_done) / (double) (now.files_done - self->last.files_done)
                       : 0.0);
  if (!replace)
    self->before_last = self->last;
  self->last = now;
  self->have_sample = TRUE;

  if (record)
    {
      if (replace)
        {
          _cs_run_replace_last_sample (job->life.run, &sample);
          _cs_run_replace_last_phase_sample (job->life.run, sample.t, seconds);
        }
      else
        {
          _cs_run_add_sample (job->life.run, &sample);
          _cs_run_add_phase_sample (job->life.run, sample.t, seconds);
        }
      if (self->runnable_measured)
        _cs_run_set_phase_runnable (job->life.run, runnable);
      hand_over_lanes (self, &now);
      if (final)
        hand_over_latencies (job);
      _cs_job_post_sample (job, &sample);
    }
  else
    _cs_job_post_sample (job, NULL);
}

void
_cs_sampler_free (CsSampler *self)
{
  g_free (self);
}
