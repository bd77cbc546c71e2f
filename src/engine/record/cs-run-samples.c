/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-run"

/*
 * The run's samples at two resolutions, and each counter's statistics over
 * all of them (docs/ARCHITECTURE.md, "Long runs"): the last RECENT_SECONDS
 * whole, everything before in at most MAX_BUCKETS buckets. Every function
 * without a lock of its own is called with the run's lock held.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "cs-run.h"
#include "cs-run-internal.h"
#include "cs-run-private.h"
#include "cs-tsan-private.h"

guint
_cs_run_recent_len (CsRun *run)
{
  return run->recent->len - run->recent_first;
}

const CsSample *
_cs_run_recent_at (CsRun *run,
                   guint  i)
{
  return &g_array_index (run->recent, CsSample, run->recent_first + i);
}

static void
bucket_from_sample (CsBucket       *bucket,
                    const CsSample *sample,
                    double          t_start)
{
  bucket->sample = *sample;
  bucket->t_start = t_start;
  bucket->n = 1;
  memcpy (bucket->min, sample->values, sizeof bucket->min);
  memcpy (bucket->max, sample->values, sizeof bucket->max);
}

/* @into, then @next after it, become one. */
static void
bucket_merge (CsBucket       *into,
              const CsBucket *next)
{
  for (guint c = 0; c < CS_N_COUNTERS; c++)
    {
      double a = into->sample.values[c], b = next->sample.values[c];

      if (c == CS_COUNTER_THREADS)
        into->sample.values[c] = b;
      else if (isnan (a))
        into->sample.values[c] = b;
      else if (!isnan (b))
        into->sample.values[c] = (a * into->n + b * next->n) / (into->n + next->n);
      /* fmin and fmax take the number over a NaN. */
      into->min[c] = fmin (into->min[c], next->min[c]);
      into->max[c] = fmax (into->max[c], next->max[c]);
    }
  into->sample.t = next->sample.t;
  into->sample.files_done = next->sample.files_done;
  into->sample.bytes_done = next->sample.bytes_done;
  into->n += next->n;
}

static void
buckets_halve (CsRun *run)
{
  guint n = run->buckets->len, out = 0;

  for (guint i = 0; i < n; i += 2, out++)
    {
      CsBucket merged = g_array_index (run->buckets, CsBucket, i);

      if (i + 1 < n)
        bucket_merge (&merged, &g_array_index (run->buckets, CsBucket, i + 1));
      g_array_index (run->buckets, CsBucket, out) = merged;
    }
  g_array_set_size (run->buckets, out);
  run->bucket_width *= 2;
}

/* A sample, or a bucket read back, joins the older part of the run. */
static void
buckets_add (CsRun          *run,
             const CsBucket *bucket)
{
  CsBucket *last = run->buckets->len > 0
                   ? &g_array_index (run->buckets, CsBucket, run->buckets->len - 1) : NULL;

  if (last != NULL && bucket->sample.t - last->t_start <= run->bucket_width)
    {
      bucket_merge (last, bucket);
      return;
    }

  g_array_append_vals (run->buckets, bucket, 1);
  if (run->buckets->len > MAX_BUCKETS)
    buckets_halve (run);
}

/* Samples that fell out of the recent window go to the buckets. Each costs a
 * merge; the array is compacted once half of it is gone, so the cost per
 * sample stays flat. */
static void
recent_expire (CsRun *run)
{
  const CsSample *newest = _cs_run_recent_at (run, _cs_run_recent_len (run) - 1);

  while (_cs_run_recent_len (run) > 1 && _cs_run_recent_at (run, 0)->t < newest->t - RECENT_SECONDS)
    {
      double t_start = run->buckets->len > 0
                       ? g_array_index (run->buckets, CsBucket, run->buckets->len - 1).sample.t : 0;
      CsBucket bucket;

      bucket_from_sample (&bucket, _cs_run_recent_at (run, 0), t_start);
      buckets_add (run, &bucket);
      run->recent_first++;
    }

  if (run->recent_first > 0 && run->recent_first >= _cs_run_recent_len (run))
    {
      g_array_remove_range (run->recent, 0, run->recent_first);
      run->recent_first = 0;
    }
}

static void
sums_add (StatSum        *sums,
          const CsSample *sample)
{
  for (guint c = 0; c < CS_N_COUNTERS; c++)
    {
      double v = sample->values[c];

      /* NaN marks "no data in this interval" (no reads: no read latency). */
      if (isnan (v))
        continue;
      sums[c].sum += v;
      sums[c].n++;
      sums[c].min = MIN (sums[c].min, v);
      sums[c].max = MAX (sums[c].max, v);
    }
}

/* The pending sample is final now: into the statistics. */
void
_cs_run_settle_pending (CsRun *run)
{
  if (run->pending && _cs_run_recent_len (run) > 0)
    sums_add (run->sums, _cs_run_recent_at (run, _cs_run_recent_len (run) - 1));
  run->pending = FALSE;
}

/* A sample at the end of the run. @count: into the statistics (a sample read
 * back from a record that keeps them has been counted already). */
void
_cs_run_store_sample (CsRun          *run,
                      const CsSample *sample,
                      gboolean        count)
{
  _cs_run_settle_pending (run);
  g_array_append_vals (run->recent, sample, 1);
  run->pending = count;
  recent_expire (run);
}

static GArray *
series_locked (CsRun *run)
{
  guint n = _cs_run_recent_len (run);
  GArray *series = g_array_sized_new (FALSE, FALSE, sizeof (CsBucket), run->buckets->len + n);
  double t_start;

  g_array_append_vals (series, run->buckets->data, run->buckets->len);
  t_start = run->buckets->len > 0
            ? g_array_index (run->buckets, CsBucket, run->buckets->len - 1).sample.t : 0;
  for (guint i = 0; i < n; i++)
    {
      CsBucket bucket;

      bucket_from_sample (&bucket, _cs_run_recent_at (run, i), t_start);
      g_array_append_val (series, bucket);
      t_start = bucket.sample.t;
    }

  return series;
}

GArray *
cs_run_dup_series (CsRun *run)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_val_if_fail (run != NULL, NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  return series_locked (run);
}

CsSample *
cs_run_dup_samples (CsRun *run,
                    guint *n_samples)
{
  g_autoptr(CsMutexLocker) locker = NULL;
  guint n_buckets, n;
  CsSample *samples;

  g_return_val_if_fail (run != NULL, NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  n_buckets = run->buckets->len;
  n = n_buckets + _cs_run_recent_len (run);
  if (n_samples != NULL)
    *n_samples = n;
  if (n == 0)
    return NULL;

  samples = g_new (CsSample, n);
  for (guint i = 0; i < n_buckets; i++)
    samples[i] = g_array_index (run->buckets, CsBucket, i).sample;
  if (_cs_run_recent_len (run) > 0)
    memcpy (samples + n_buckets, _cs_run_recent_at (run, 0),
            _cs_run_recent_len (run) * sizeof (CsSample));

  return samples;
}

guint
_cs_run_n_samples_locked (CsRun *run)
{
  guint n = _cs_run_recent_len (run);

  if (run->header)
    return run->header_samples;
  for (guint i = 0; i < run->buckets->len; i++)
    n += g_array_index (run->buckets, CsBucket, i).n;

  return n;
}

guint
cs_run_get_n_samples (CsRun *run)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_val_if_fail (run != NULL, 0);

  locker = _cs_mutex_locker_new (&run->mutex);
  return _cs_run_n_samples_locked (run);
}

static double
last_t_locked (CsRun *run)
{
  if (_cs_run_recent_len (run) > 0)
    return _cs_run_recent_at (run, _cs_run_recent_len (run) - 1)->t;
  if (run->buckets->len > 0)
    return g_array_index (run->buckets, CsBucket, run->buckets->len - 1).sample.t;
  return 0;
}

static gboolean
get_stat_locked (CsRun     *run,
                 CsCounter  counter,
                 CsStat    *out_stat)
{
  StatSum sum = run->sums[counter];

  /* A count, whose figure is its mean over the clock's time (cs-figures.h). */
  if (counter == CS_COUNTER_THREADS &&
      (_cs_run_recent_len (run) > 0 || run->buckets->len > 0 || run->header))
    {
      double until = run->duration > 0 ? run->duration : last_t_locked (run);
      guint min, max;
      double mean;

      _cs_run_threads_over_time (run->settings.threads,
                                 (const CsThreadChange *) (gpointer) run->timeline->data,
                                 run->timeline->len, until, &min, &max, &mean);
      if (out_stat != NULL)
        {
          out_stat->avg = mean;
          out_stat->min = min;
          out_stat->max = max;
        }
      return TRUE;
    }

  if (run->pending && _cs_run_recent_len (run) > 0)
    {
      StatSum last[CS_N_COUNTERS] = { { 0 } };

      last[counter] = sum;
      sums_add (last, _cs_run_recent_at (run, _cs_run_recent_len (run) - 1));
      sum = last[counter];
    }

  if (sum.n == 0)
    return FALSE;

  if (out_stat != NULL)
    {
      out_stat->avg = sum.sum / sum.n;
      out_stat->min = sum.min;
      out_stat->max = sum.max;
    }

  return TRUE;
}

gboolean
cs_run_get_stat (CsRun     *run,
                 CsCounter  counter,
                 CsStat    *out_stat)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_val_if_fail (run != NULL, FALSE);
  g_return_val_if_fail (counter < CS_N_COUNTERS, FALSE);

  locker = _cs_mutex_locker_new (&run->mutex);
  return get_stat_locked (run, counter, out_stat);
}

void
_cs_run_replace_last_sample (CsRun          *run,
                             const CsSample *sample)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);
  g_return_if_fail (sample != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  /* Only the pending sample may be made again; one already counted stays. */
  if (_cs_run_recent_len (run) == 0 || !run->pending)
    _cs_run_store_sample (run, sample, TRUE);
  else
    g_array_index (run->recent, CsSample, run->recent->len - 1) = *sample;
}

void
_cs_run_add_sample (CsRun          *run,
                    const CsSample *sample)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);
  g_return_if_fail (sample != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  _cs_run_store_sample (run, sample, TRUE);
}

/* The pending sample's value of @counter, which the statistics do not hold
 * yet; NaN when there is none. */
static double
pending_value (CsRun     *run,
               CsCounter  counter)
{
  guint n = _cs_run_recent_len (run);

  return run->pending && n > 0 ? _cs_run_recent_at (run, n - 1)->values[counter] : NAN;
}

/* The sum of a counter's values over its samples. */
double
_cs_run_stat_sum_locked (CsRun     *run,
                         CsCounter  counter)
{
  double sum = run->sums[counter].sum;

  if (!isnan (pending_value (run, counter)))
    sum += pending_value (run, counter);

  return sum;
}

/* How many samples a counter's statistics are over. */
guint64
_cs_run_stat_count_locked (CsRun     *run,
                           CsCounter  counter)
{
  guint64 n = run->sums[counter].n;

  if (!isnan (pending_value (run, counter)))
    n++;

  return n;
}
