/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-sampler"

#include "config.h"

#include <math.h>

#include "cs-env-private.h"
#include "cs-job-private.h"
#include "cs-sampler-private.h"

/* The job's counters at one moment. */
typedef struct {
  guint64 requests, reads, writes, copies, bytes_read, bytes_written, read_ns, write_ns, files_done;
} Snapshot;

/* Reads the job's atomic counters at a fixed interval and turns the differences
 * into rates. Only the sampler thread touches this struct. */
struct _CsSampler {
  CsJob    *job;
  Snapshot  last;         /* at the previous sample */
  double    last_t;
  guint64   bytes_done;
  guint64   cpu_total, cpu_idle, cpu_system;
  guint64   process_cpu;
  gint64    last_mono;
};

static void
snapshot (CsCounters *c,
          Snapshot   *s)
{
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
}

CsSampler *
_cs_sampler_new (CsJob *job)
{
  CsSampler *self = g_new0 (CsSampler, 1);

  self->job = job;
  snapshot (&job->counters, &self->last);
  _cs_env_read_cpu_times (&self->cpu_total, &self->cpu_idle, &self->cpu_system);
  self->process_cpu = _cs_env_process_cpu_usec ();
  self->last_mono = g_get_monotonic_time ();
  self->last_t = 0;

  return self;
}

static double
ratio (double num,
       double den)
{
  return den > 0 ? num / den : 0.0;
}

/* sampler thread */
void
_cs_sampler_take (CsSampler *self,
                  gboolean   record)
{
  CsJob *job = self->job;
  CsSample sample = { 0 };
  Snapshot s;
  guint64 cpu_total = 0, cpu_idle = 0, cpu_system = 0, process_cpu;
  gint64 mono = g_get_monotonic_time ();
  double t = _cs_job_elapsed (job);
  double dt, wall_dt;
  guint64 d_reads, d_writes, d_copies, d_rbytes, d_wbytes;
  double read_reqs, write_reqs, bytes_per_file;

  snapshot (&job->counters, &s);
  process_cpu = _cs_env_process_cpu_usec ();
  _cs_env_read_cpu_times (&cpu_total, &cpu_idle, &cpu_system);

  /* Rates use the run's clock (which stops while paused); CPU uses wall time. */
  dt = t - self->last_t;
  wall_dt = (double) (mono - self->last_mono) / G_USEC_PER_SEC;
  if (dt <= 1e-6)
    dt = wall_dt > 1e-6 ? wall_dt : 1e-6;

  d_reads = s.reads - self->last.reads;
  d_writes = s.writes - self->last.writes;
  d_copies = s.copies - self->last.copies;
  d_rbytes = s.bytes_read - self->last.bytes_read;
  d_wbytes = s.bytes_written - self->last.bytes_written;
  read_reqs = (double) (d_reads + d_copies);
  write_reqs = (double) (d_writes + d_copies);

  sample.t = t;
  sample.values[CS_COUNTER_REQUEST_RATE] = (double) (s.requests - self->last.requests) / dt;
  sample.values[CS_COUNTER_DATA_REQUEST_RATE] = (double) (d_reads + d_writes + d_copies) / dt;
  sample.values[CS_COUNTER_READ_REQUEST_RATE] = read_reqs / dt;
  sample.values[CS_COUNTER_WRITE_REQUEST_RATE] = write_reqs / dt;
  sample.values[CS_COUNTER_DATA_TRANSFER_RATE] = (double) (d_rbytes + d_wbytes) / 1e6 / dt;
  sample.values[CS_COUNTER_READ_TRANSFER_RATE] = (double) d_rbytes / 1e6 / dt;
  sample.values[CS_COUNTER_WRITE_TRANSFER_RATE] = (double) d_wbytes / 1e6 / dt;
  sample.values[CS_COUNTER_FILE_RATE] = (double) (s.files_done - self->last.files_done) / dt;
  sample.values[CS_COUNTER_AVG_REQUEST_SIZE] = ratio ((double) (d_rbytes + d_wbytes), read_reqs + write_reqs) / 1e3;
  sample.values[CS_COUNTER_AVG_READ_REQUEST_SIZE] = ratio ((double) d_rbytes, read_reqs) / 1e3;
  sample.values[CS_COUNTER_AVG_WRITE_REQUEST_SIZE] = ratio ((double) d_wbytes, write_reqs) / 1e3;
  sample.values[CS_COUNTER_AVG_REQUEST_TIME] =
    ratio ((double) ((s.read_ns - self->last.read_ns) + (s.write_ns - self->last.write_ns)), read_reqs + write_reqs) / 1e6;
  sample.values[CS_COUNTER_AVG_READ_REQUEST_TIME] = ratio ((double) (s.read_ns - self->last.read_ns), read_reqs) / 1e6;
  sample.values[CS_COUNTER_AVG_WRITE_REQUEST_TIME] = ratio ((double) (s.write_ns - self->last.write_ns), write_reqs) / 1e6;
  if (cpu_total > self->cpu_total)
    {
      double total = (double) (cpu_total - self->cpu_total);

      sample.values[CS_COUNTER_CPU_USAGE] = 100.0 * (1.0 - (double) (cpu_idle - self->cpu_idle) / total);
      sample.values[CS_COUNTER_CPU_USAGE_SYSTEM] = 100.0 * (double) (cpu_system - self->cpu_system) / total;
    }
  sample.values[CS_COUNTER_PROCESS_CPU_USAGE] =
    wall_dt > 0 ? 100.0 * (double) (process_cpu - self->process_cpu) / 1e6 / wall_dt : 0.0;
  sample.values[CS_COUNTER_PROCESS_MEMORY] = (double) _cs_env_process_rss () / 1e6;
  sample.values[CS_COUNTER_THREADS] = atomic_load (&job->threads);
  sample.files_done = s.files_done;
  sample.bytes_done = atomic_load_explicit (&job->counters.bytes_done, memory_order_relaxed);

  for (guint i = 0; i < CS_N_COUNTERS; i++)
    if (!isfinite (sample.values[i]) || sample.values[i] < 0)
      sample.values[i] = 0;

  bytes_per_file = s.files_done > self->last.files_done
                   ? (double) (sample.bytes_done - self->bytes_done) / (double) (s.files_done - self->last.files_done)
                   : 0.0;
  self->last = s;
  self->last_t = t;
  self->last_mono = mono;
  self->bytes_done = sample.bytes_done;
  if (cpu_total > 0)
    {
      self->cpu_total = cpu_total;
      self->cpu_idle = cpu_idle;
      self->cpu_system = cpu_system;
    }
  self->process_cpu = process_cpu;

  _cs_job_auto_feed (job, &sample, bytes_per_file);

  if (record)
    {
      _cs_run_add_sample (job->run, &sample);
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
