/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-run"

/*
 * Where the workers' time went (cs-phases.h): the time by phase at the
 * samples' two resolutions, the lanes of the last seconds and the latency
 * histograms; what the sampler records of them, what readers get back, and
 * their JSON both ways:
 *
 *   "phases": {
 *     "ids":     ["waiting", "listing", …],          the columns' and lanes' phases
 *     "totals":  {"waiting": 12.5, …},                worker-seconds, exact
 *     "samples": {"t": […], "<id>": […], …},          whole samples, worker-ms
 *     "buckets": {"width": w, "t": […], "t_start": […], "n": […], "<id>": […]},
 *     "lanes":   [{"worker": 0, "t_us": [first, +delta, …], "phase": [index into ids, …]}],
 *     "runnable": 3.25                                 worker-seconds waiting to run, exact
 *   },
 *   "latency": {"open": {"count": n, "sum_ns": s, "max_ns": m, "buckets": [48 counts]}, …}
 *
 * A phase column that is all zero is left out; the worker-ms are rounded,
 * which is what keeps a 24-hour record within its budget (the totals stay
 * exact beside them). Ids a reader does not know are skipped, so a later
 * phase does not make older readers refuse the record.
 *
 * Where run_delay was measured, "runnable" holds its exact total and the
 * samples and buckets a "runnable" column in worker-ms beside the phases'
 * (left out when all zero, as they are); a record without the member was
 * not measured. Readers before it skip both, as they skip unknown ids.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "cs-run.h"
#include "cs-run-internal.h"
#include "cs-run-private.h"
#include "cs-tsan-private.h"

/* A sample's phase may hold every worker for the whole run, no more. */
#define MAX_PHASE_SECONDS (MAX_DURATION * CS_PHASE_MAX_WORKERS)
#define MAX_LATENCY_COUNT 1e15

static CsRunPhases *
phases_ensure (CsRun *run)
{
  if (run->phases == NULL)
    {
      run->phases = g_new0 (CsRunPhases, 1);
      run->phases->recent = g_array_new (FALSE, FALSE, sizeof (CsPhaseBucket));
      run->phases->buckets = g_array_new (FALSE, FALSE, sizeof (CsPhaseBucket));
      run->phases->bucket_width = FIRST_BUCKET_WIDTH;
    }

  return run->phases;
}

void
_cs_run_phases_free (CsRun *run)
{
  CsRunPhases *phases = run->phases;

  for (guint k = 0; k < CS_LATENCY_N; k++)
    g_clear_pointer (&run->latency[k], g_free);
  if (phases == NULL)
    return;
  g_array_unref (phases->recent);
  g_array_unref (phases->buckets);
  for (guint w = 0; w < CS_PHASE_MAX_WORKERS; w++)
    g_clear_pointer (&phases->lanes[w], g_array_unref);
  g_clear_pointer (&run->phases, g_free);
}

static guint
recent_len (CsRunPhases *phases)
{
  return phases->recent->len - phases->recent_first;
}

static CsPhaseBucket *
recent_at (CsRunPhases *phases,
           guint        i)
{
  return &g_array_index (phases->recent, CsPhaseBucket, phases->recent_first + i);
}

static void
bucket_merge (CsPhaseBucket       *into,
              const CsPhaseBucket *next)
{
  /* Worker-seconds add up: a bucket holds the sum of its samples'. */
  for (guint p = 0; p < CS_PHASE_N; p++)
    into->seconds[p] += next->seconds[p];
  into->runnable += next->runnable;
  into->t = next->t;
  into->n += next->n;
}

/* As the samples' buckets (cs-run-samples.c): merged in pairs past
 * MAX_BUCKETS, the width doubling. */
static void
buckets_add (CsRunPhases         *phases,
             const CsPhaseBucket *bucket)
{
  GArray *buckets = phases->buckets;
  CsPhaseBucket *last = buckets->len > 0
                        ? &g_array_index (buckets, CsPhaseBucket, buckets->len - 1) : NULL;
  guint out = 0;

  if (last != NULL && bucket->t - last->t_start <= phases->bucket_width)
    {
      bucket_merge (last, bucket);
      return;
    }

  g_array_append_vals (buckets, bucket, 1);
  if (buckets->len <= MAX_BUCKETS)
    return;

  for (guint i = 0; i < buckets->len; i += 2, out++)
    {
      CsPhaseBucket merged = g_array_index (buckets, CsPhaseBucket, i);

      if (i + 1 < buckets->len)
        bucket_merge (&merged, &g_array_index (buckets, CsPhaseBucket, i + 1));
      g_array_index (buckets, CsPhaseBucket, out) = merged;
    }
  g_array_set_size (buckets, out);
  phases->bucket_width *= 2;
}

static void
recent_expire (CsRunPhases *phases)
{
  double newest = recent_at (phases, recent_len (phases) - 1)->t;

  while (recent_len (phases) > 1 && recent_at (phases, 0)->t < newest - RECENT_SECONDS)
    {
      buckets_add (phases, recent_at (phases, 0));
      phases->recent_first++;
    }

  if (phases->recent_first > 0 && phases->recent_first >= recent_len (phases))
    {
      g_array_remove_range (phases->recent, 0, phases->recent_first);
      phases->recent_first = 0;
    }
}

static double
last_t (CsRunPhases *phases)
{
  if (recent_len (phases) > 0)
    return recent_at (phases, recent_len (phases) - 1)->t;
  if (phases->buckets->len > 0)
    return g_array_index (phases->buckets, CsPhaseBucket, phases->buckets->len - 1).t;
  return 0;
}

static gboolean
seconds_valid (const double seconds[CS_PHASE_N])
{
  for (guint p = 0; p < CS_PHASE_N; p++)
    if (!(seconds[p] >= 0 && seconds[p] <= MAX_PHASE_SECONDS))
      return FALSE;
  return TRUE;
}

/* @count: into the totals (a sample read back is in them already). */
static void
store_sample (CsRunPhases  *phases,
              double        t,
              const double  seconds[CS_PHASE_N],
              gboolean      count)
{
  CsPhaseBucket sample = { .t_start = last_t (phases), .t = t, .n = 1 };

  memcpy (sample.seconds, seconds, sizeof sample.seconds);
  if (count)
    for (guint p = 0; p < CS_PHASE_N; p++)
      phases->totals[p] += seconds[p];
  g_array_append_val (phases->recent, sample);
  recent_expire (phases);
}

void
_cs_run_add_phase_sample (CsRun        *run,
                          double        t,
                          const double  seconds[CS_PHASE_N])
{
  g_autoptr(CsMutexLocker) locker = NULL;
  CsRunPhases *phases;

  g_return_if_fail (run != NULL);
  g_return_if_fail (seconds != NULL);
  g_return_if_fail (seconds_valid (seconds));

  locker = _cs_mutex_locker_new (&run->mutex);
  phases = phases_ensure (run);
  g_return_if_fail (t > last_t (phases) || (t == 0 && recent_len (phases) == 0));
  store_sample (phases, t, seconds, TRUE);
}

void
_cs_run_replace_last_phase_sample (CsRun        *run,
                                   double        t,
                                   const double  seconds[CS_PHASE_N])
{
  g_autoptr(CsMutexLocker) locker = NULL;
  CsRunPhases *phases;
  CsPhaseBucket *last;

  g_return_if_fail (run != NULL);
  g_return_if_fail (seconds != NULL);
  g_return_if_fail (seconds_valid (seconds));

  locker = _cs_mutex_locker_new (&run->mutex);
  phases = phases_ensure (run);
  if (recent_len (phases) == 0)
    {
      store_sample (phases, t, seconds, TRUE);
      return;
    }

  last = recent_at (phases, recent_len (phases) - 1);
  g_return_if_fail (t > last->t_start);
  for (guint p = 0; p < CS_PHASE_N; p++)
    phases->totals[p] += seconds[p] - last->seconds[p];
  last->t = t;
  memcpy (last->seconds, seconds, sizeof last->seconds);
}

void
_cs_run_set_phase_runnable (CsRun  *run,
                            double  runnable)
{
  g_autoptr(CsMutexLocker) locker = NULL;
  CsRunPhases *phases;
  CsPhaseBucket *last;

  g_return_if_fail (run != NULL);
  g_return_if_fail (runnable >= 0 && runnable <= MAX_PHASE_SECONDS);

  locker = _cs_mutex_locker_new (&run->mutex);
  phases = run->phases;
  g_return_if_fail (phases != NULL && recent_len (phases) > 0);

  /* The newest sample is always a whole one in recent: setting it again
   * (the closing piece made again) replaces, as the phases do. */
  last = recent_at (phases, recent_len (phases) - 1);
  phases->runnable_total += runnable - last->runnable;
  phases->runnable_total = MAX (phases->runnable_total, 0.0);
  last->runnable = runnable;
  phases->runnable_measured = TRUE;
}

/* The changes before the last CS_PHASE_LANE_SECONDS go, but the one the
 * window starts in stays: it says what the worker was doing then. */
static void
lane_trim (GArray *lane,
           double  newest,
           guint   max_changes)
{
  guint drop = 0;

  while (drop + 1 < lane->len &&
         g_array_index (lane, CsPhaseChange, drop + 1).t <= newest - CS_PHASE_LANE_SECONDS)
    drop++;
  drop = MAX (drop, lane->len > max_changes ? lane->len - max_changes : 0);
  if (drop > 0)
    g_array_remove_range (lane, 0, drop);
}

void
_cs_run_add_phase_changes (CsRun               *run,
                           guint                worker,
                           const CsPhaseChange *changes,
                           guint                n_changes)
{
  g_autoptr(CsMutexLocker) locker = NULL;
  CsRunPhases *phases;
  GArray *lane;

  g_return_if_fail (run != NULL);
  g_return_if_fail (worker < CS_PHASE_MAX_WORKERS);
  g_return_if_fail (changes != NULL || n_changes == 0);

  locker = _cs_mutex_locker_new (&run->mutex);
  phases = phases_ensure (run);
  if (phases->lanes[worker] == NULL)
    phases->lanes[worker] = g_array_new (FALSE, FALSE, sizeof (CsPhaseChange));
  lane = phases->lanes[worker];

  for (guint i = 0; i < n_changes; i++)
    {
      double previous = lane->len > 0 ? g_array_index (lane, CsPhaseChange, lane->len - 1).t : 0;

      g_return_if_fail (changes[i].phase < CS_PHASE_N);
      g_return_if_fail (changes[i].t >= previous && changes[i].t <= MAX_DURATION);
      g_array_append_vals (lane, &changes[i], 1);
      phases->lanes_newest = MAX (phases->lanes_newest, changes[i].t);
      /* Trimmed as it grows, so a burst costs no more than the cap. */
      if (lane->len >= 2 * CS_PHASE_LANE_MAX_CHANGES)
        lane_trim (lane, phases->lanes_newest, CS_PHASE_LANE_MAX_CHANGES);
    }
  lane_trim (lane, phases->lanes_newest, CS_PHASE_LANE_MAX_CHANGES);
}

void
_cs_run_add_latency (CsRun                    *run,
                     CsLatencyKind             kind,
                     const CsLatencyHistogram *histogram)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);
  g_return_if_fail (kind < CS_LATENCY_N);
  g_return_if_fail (histogram != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  if (run->latency[kind] == NULL)
    run->latency[kind] = g_new0 (CsLatencyHistogram, 1);
  cs_latency_histogram_merge (run->latency[kind], histogram);
}

gboolean
cs_run_get_phase_totals (CsRun  *run,
                         double  out_seconds[CS_PHASE_N])
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_val_if_fail (run != NULL, FALSE);

  locker = _cs_mutex_locker_new (&run->mutex);
  if (run->phases == NULL || (recent_len (run->phases) == 0 && run->phases->buckets->len == 0))
    return FALSE;
  if (out_seconds != NULL)
    memcpy (out_seconds, run->phases->totals, sizeof run->phases->totals);

  return TRUE;
}

gboolean
cs_run_get_runnable_total (CsRun  *run,
                           double *out_seconds)
{
  g_autoptr(CsMutexLocker) locker = NULL;
  CsRunPhases *phases;

  g_return_val_if_fail (run != NULL, FALSE);

  locker = _cs_mutex_locker_new (&run->mutex);
  phases = run->phases;
  if (phases == NULL || (recent_len (phases) == 0 && phases->buckets->len == 0) ||
      !phases->runnable_measured)
    return FALSE;
  if (out_seconds != NULL)
    *out_seconds = phases->runnable_total;

  return TRUE;
}

GArray *
cs_run_dup_phase_series (CsRun *run)
{
  g_autoptr(CsMutexLocker) locker = NULL;
  CsRunPhases *phases;
  GArray *series;

  g_return_val_if_fail (run != NULL, NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  phases = run->phases;
  if (phases == NULL || (recent_len (phases) == 0 && phases->buckets->len == 0))
    return NULL;

  series = g_array_sized_new (FALSE, FALSE, sizeof (CsPhaseBucket),
                              phases->buckets->len + recent_len (phases));
  g_array_append_vals (series, phases->buckets->data, phases->buckets->len);
  if (recent_len (phases) > 0)
    g_array_append_vals (series, recent_at (phases, 0), recent_len (phases));

  return series;
}

/* The newest @max of the series alone: what a live reader that takes each
 * sample once needs, without copying a long copy's whole series (thousands
 * of buckets) at every sample. */
GArray *
cs_run_dup_phase_series_newest (CsRun *run,
                                guint  max)
{
  g_autoptr(CsMutexLocker) locker = NULL;
  CsRunPhases *phases;
  GArray *series;
  guint from_recent, from_buckets;

  g_return_val_if_fail (run != NULL, NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  phases = run->phases;
  if (phases == NULL || (recent_len (phases) == 0 && phases->buckets->len == 0) || max == 0)
    return NULL;

  from_recent = MIN (max, recent_len (phases));
  from_buckets = MIN (max - from_recent, phases->buckets->len);
  series = g_array_sized_new (FALSE, FALSE, sizeof (CsPhaseBucket), from_buckets + from_recent);
  g_array_append_vals (series,
                       &g_array_index (phases->buckets, CsPhaseBucket, phases->buckets->len - from_buckets),
                       from_buckets);
  if (from_recent > 0)
    g_array_append_vals (series, recent_at (phases, recent_len (phases) - from_recent), from_recent);

  return series;
}

/* The lanes as a reader gets them, trimmed to the window; @budget: at most
 * this many changes in all, the newest of each lane kept. */
static GArray *
lanes_dup_locked (CsRun *run,
                  guint  budget)
{
  CsRunPhases *phases = run->phases;
  GArray *lanes;
  guint n_lanes = 0;

  if (phases == NULL)
    return NULL;
  for (guint w = 0; w < CS_PHASE_MAX_WORKERS; w++)
    n_lanes += phases->lanes[w] != NULL && phases->lanes[w]->len > 0;
  if (n_lanes == 0)
    return NULL;

  lanes = g_array_new (FALSE, TRUE, sizeof (CsPhaseLane));
  g_array_set_clear_func (lanes, (GDestroyNotify) cs_phase_lane_clear);
  for (guint w = 0; w < CS_PHASE_MAX_WORKERS; w++)
    {
      CsPhaseLane lane = { .worker = w };

      if (phases->lanes[w] == NULL || phases->lanes[w]->len == 0)
        continue;
      lane.changes = g_array_copy (phases->lanes[w]);
      lane_trim (lane.changes, phases->lanes_newest, MAX (1, budget / n_lanes));
      g_array_append_val (lanes, lane);
    }

  return lanes;
}

GArray *
cs_run_dup_phase_lanes (CsRun *run)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_val_if_fail (run != NULL, NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  return lanes_dup_locked (run, CS_PHASE_MAX_WORKERS * CS_PHASE_LANE_MAX_CHANGES);
}

gboolean
cs_run_get_latency (CsRun              *run,
                    CsLatencyKind       kind,
                    CsLatencyHistogram *out_histogram)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_val_if_fail (run != NULL, FALSE);
  g_return_val_if_fail (kind < CS_LATENCY_N, FALSE);

  locker = _cs_mutex_locker_new (&run->mutex);
  if (run->latency[kind] == NULL)
    return FALSE;
  if (out_histogram != NULL)
    *out_histogram = *run->latency[kind];

  return TRUE;
}

/* Writing. */

static gint64
worker_ms (double seconds)
{
  return (gint64) llround (seconds * 1000);
}

static void
add_int_column (JsonBuilder  *builder,
                const char   *name,
                const gint64 *values,
                guint         n)
{
  json_builder_set_member_name (builder, name);
  json_builder_begin_array (builder);
  for (guint i = 0; i < n; i++)
    json_builder_add_int_value (builder, values[i]);
  json_builder_end_array (builder);
}

/* The phase columns of @rows, in worker-ms, each only when not all zero;
 * and, past the phases, the runnable one. */
static void
add_phase_columns (JsonBuilder         *builder,
                   const CsPhaseBucket *rows,
                   guint                n)
{
  g_autofree gint64 *values = g_new (gint64, MAX (n, 1));

  for (guint p = 0; p <= CS_PHASE_N; p++)
    {
      gboolean any = FALSE;

      for (guint i = 0; i < n; i++)
        {
          values[i] = worker_ms (p < CS_PHASE_N ? rows[i].seconds[p] : rows[i].runnable);
          any |= values[i] != 0;
        }
      if (any)
        add_int_column (builder, p < CS_PHASE_N ? cs_phase_get_id (p) : "runnable", values, n);
    }
}

static void
add_double_column (JsonBuilder         *builder,
                   const char          *name,
                   const CsPhaseBucket *rows,
                   guint                n,
                   gboolean             start)
{
  json_builder_set_member_name (builder, name);
  json_builder_begin_array (builder);
  for (guint i = 0; i < n; i++)
    json_builder_add_double_value (builder, start ? rows[i].t_start : rows[i].t);
  json_builder_end_array (builder);
}

static void
build_lanes (JsonBuilder *builder,
             CsRun       *run)
{
  g_autoptr(GArray) lanes = lanes_dup_locked (run, CS_PHASE_LANES_WRITTEN);

  if (lanes == NULL)
    return;

  json_builder_set_member_name (builder, "lanes");
  json_builder_begin_array (builder);
  for (guint l = 0; l < lanes->len; l++)
    {
      const CsPhaseLane *lane = &g_array_index (lanes, CsPhaseLane, l);
      gint64 previous = 0;

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "worker");
      json_builder_add_int_value (builder, lane->worker);
      /* µs, each after the first as the step from the one before: short
       * numbers, exact enough for a request of a few µs. */
      json_builder_set_member_name (builder, "t_us");
      json_builder_begin_array (builder);
      for (guint i = 0; i < lane->changes->len; i++)
        {
          gint64 us = llround (g_array_index (lane->changes, CsPhaseChange, i).t * 1e6);

          json_builder_add_int_value (builder, i == 0 ? us : us - previous);
          previous = us;
        }
      json_builder_end_array (builder);
      json_builder_set_member_name (builder, "phase");
      json_builder_begin_array (builder);
      for (guint i = 0; i < lane->changes->len; i++)
        json_builder_add_int_value (builder, g_array_index (lane->changes, CsPhaseChange, i).phase);
      json_builder_end_array (builder);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
}

static void
build_latency (JsonBuilder *builder,
               CsRun       *run)
{
  gboolean any = FALSE;

  for (guint k = 0; k < CS_LATENCY_N; k++)
    any |= run->latency[k] != NULL;
  if (!any)
    return;

  json_builder_set_member_name (builder, "latency");
  json_builder_begin_object (builder);
  for (guint k = 0; k < CS_LATENCY_N; k++)
    {
      const CsLatencyHistogram *h = run->latency[k];

      if (h == NULL)
        continue;
      json_builder_set_member_name (builder, cs_latency_kind_get_id (k));
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "count");
      json_builder_add_int_value (builder, (gint64) MIN (h->count, (guint64) G_MAXINT64));
      json_builder_set_member_name (builder, "sum_ns");
      json_builder_add_double_value (builder, h->sum_ns);
      json_builder_set_member_name (builder, "max_ns");
      json_builder_add_int_value (builder, (gint64) MIN (h->max_ns, (guint64) G_MAXINT64));
      json_builder_set_member_name (builder, "buckets");
      json_builder_begin_array (builder);
      for (guint i = 0; i < CS_LATENCY_BUCKETS; i++)
        json_builder_add_int_value (builder, (gint64) MIN (h->buckets[i], (guint64) G_MAXINT64));
      json_builder_end_array (builder);
      json_builder_end_object (builder);
    }
  json_builder_end_object (builder);
}

void
_cs_run_build_phases (JsonBuilder *builder,
                      CsRun       *run)
{
  CsRunPhases *phases = run->phases;

  build_latency (builder, run);
  if (phases == NULL)
    return;

  json_builder_set_member_name (builder, "phases");
  json_builder_begin_object (builder);

  json_builder_set_member_name (builder, "ids");
  json_builder_begin_array (builder);
  for (guint p = 0; p < CS_PHASE_N; p++)
    json_builder_add_string_value (builder, cs_phase_get_id (p));
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "totals");
  json_builder_begin_object (builder);
  for (guint p = 0; p < CS_PHASE_N; p++)
    {
      json_builder_set_member_name (builder, cs_phase_get_id (p));
      json_builder_add_double_value (builder, phases->totals[p]);
    }
  json_builder_end_object (builder);

  json_builder_set_member_name (builder, "samples");
  json_builder_begin_object (builder);
  add_double_column (builder, "t", recent_len (phases) > 0 ? recent_at (phases, 0) : NULL,
                     recent_len (phases), FALSE);
  if (recent_len (phases) > 0)
    add_phase_columns (builder, recent_at (phases, 0), recent_len (phases));
  json_builder_end_object (builder);

  json_builder_set_member_name (builder, "buckets");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "width");
  json_builder_add_double_value (builder, phases->bucket_width);
  {
    const CsPhaseBucket *rows = (const CsPhaseBucket *) (gpointer) phases->buckets->data;
    guint n = phases->buckets->len;
    g_autofree gint64 *counts = g_new (gint64, MAX (n, 1));

    add_double_column (builder, "t", rows, n, FALSE);
    add_double_column (builder, "t_start", rows, n, TRUE);
    for (guint i = 0; i < n; i++)
      counts[i] = rows[i].n;
    add_int_column (builder, "n", counts, n);
    add_phase_columns (builder, rows, n);
  }
  json_builder_end_object (builder);

  build_lanes (builder, run);

  if (phases->runnable_measured)
    {
      json_builder_set_member_name (builder, "runnable");
      json_builder_add_double_value (builder, phases->runnable_total);
    }

  json_builder_end_object (builder);
}

/* Reading. */

/* The phase each of the record's ids is, or CS_PHASE_N for one this
 * version does not know. */
static guint
read_ids (CsRunReader *r,
          JsonObject  *o,
          CsPhase    **out_map)
{
  JsonArray *ids = _cs_run_read_array (r, o, "phases", "ids", TRUE);
  guint n;

  *out_map = NULL;
  if (ids == NULL)
    return 0;
  n = json_array_get_length (ids);
  if (n > 1000)
    {
      _cs_run_reader_fail (r, "“phases.ids” has more than 1000 values");
      return 0;
    }
  *out_map = g_new (CsPhase, MAX (n, 1));
  for (guint i = 0; i < n && !r->failed; i++)
    {
      g_autofree char *id = _cs_run_read_string_node (r, json_array_get_element (ids, i),
                                                      "phases", "ids[]", FALSE);

      if (id == NULL || !cs_phase_from_id (id, &(*out_map)[i]))
        (*out_map)[i] = CS_PHASE_N;
    }

  return n;
}

/* A table of rows: "t" and, with @buckets, "t_start" and "n", and a column
 * of worker-ms per known phase. */
static GArray *
read_rows (CsRunReader *r,
           JsonObject  *phases,
           const char  *name,
           gboolean     buckets)
{
  g_autoptr(GArray) rows = NULL;
  JsonObject *o = _cs_run_read_object (r, phases, "phases", name);
  g_autofree char *where = g_strconcat ("phases.", name, NULL);
  JsonArray *t, *t_start = NULL, *n = NULL;
  guint len;

  if (o == NULL)
    return NULL;
  t = _cs_run_read_array (r, o, where, "t", TRUE);
  if (buckets)
    {
      t_start = _cs_run_read_array (r, o, where, "t_start", TRUE);
      n = _cs_run_read_array (r, o, where, "n", TRUE);
    }
  if (t == NULL || r->failed)
    return NULL;
  len = json_array_get_length (t);
  if (len > MAX_SAMPLES)
    {
      _cs_run_reader_fail (r, "“%s.t” has too many values", where);
      return NULL;
    }
  if ((t_start != NULL && json_array_get_length (t_start) != len) ||
      (n != NULL && json_array_get_length (n) != len))
    {
      _cs_run_reader_fail (r, "the columns of “%s” differ in length", where);
      return NULL;
    }

  rows = g_array_sized_new (FALSE, TRUE, sizeof (CsPhaseBucket), len);
  g_array_set_size (rows, len);
  for (guint i = 0; i < len && !r->failed; i++)
    {
      CsPhaseBucket *row = &g_array_index (rows, CsPhaseBucket, i);

      row->t = _cs_run_read_double_node (r, json_array_get_element (t, i), where, "t[]",
                                         0, MAX_DURATION, FALSE);
      row->n = 1;
      if (buckets)
        {
          row->t_start = _cs_run_read_double_node (r, json_array_get_element (t_start, i),
                                                   where, "t_start[]", 0, MAX_DURATION, FALSE);
          row->n = _cs_run_read_int_node (r, json_array_get_element (n, i), where, "n[]",
                                          1, MAX_SAMPLES);
        }
    }

  /* The phases, then the runnable column past them. */
  for (guint p = 0; p <= CS_PHASE_N && !r->failed; p++)
    {
      const char *id = p < CS_PHASE_N ? cs_phase_get_id (p) : "runnable";
      JsonArray *column = _cs_run_read_array (r, o, where, id, FALSE);

      /* Left out: all zero. */
      if (column == NULL)
        continue;
      if (json_array_get_length (column) != len)
        {
          _cs_run_reader_fail (r, "“%s.%s” and “%s.t” differ in length", where, id, where);
          break;
        }
      for (guint i = 0; i < len && !r->failed; i++)
        {
          CsPhaseBucket *row = &g_array_index (rows, CsPhaseBucket, i);
          double seconds = _cs_run_read_int_node (r, json_array_get_element (column, i), where,
                                                  id, 0, MAX_PHASE_SECONDS * 1000) / 1000.0;

          if (p < CS_PHASE_N)
            row->seconds[p] = seconds;
          else
            row->runnable = seconds;
        }
    }

  return r->failed ? NULL : g_steal_pointer (&rows);
}

static void
read_lanes (CsRunReader  *r,
            JsonObject   *o,
            const CsPhase *map,
            guint         n_ids,
            CsRunPhases  *phases)
{
  JsonArray *lanes = _cs_run_read_array (r, o, "phases", "lanes", FALSE);

  if (lanes == NULL)
    return;
  if (json_array_get_length (lanes) > CS_PHASE_MAX_WORKERS)
    {
      _cs_run_reader_fail (r, "“phases.lanes” has more than %d lanes", CS_PHASE_MAX_WORKERS);
      return;
    }

  for (guint l = 0; l < json_array_get_length (lanes) && !r->failed; l++)
    {
      JsonNode *node = json_array_get_element (lanes, l);
      JsonObject *lane;
      JsonArray *t, *phase;
      gint64 worker, us = 0;
      guint len;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          _cs_run_reader_fail (r, "“phases.lanes[]” must be an object");
          return;
        }
      lane = json_node_get_object (node);
      worker = _cs_run_read_int (r, lane, "phases.lanes[]", "worker", 0, CS_PHASE_MAX_WORKERS - 1);
      t = _cs_run_read_array (r, lane, "phases.lanes[]", "t_us", TRUE);
      phase = _cs_run_read_array (r, lane, "phases.lanes[]", "phase", TRUE);
      if (r->failed)
        return;
      len = json_array_get_length (t);
      if (json_array_get_length (phase) != len || len > CS_PHASE_LANE_MAX_CHANGES)
        {
          _cs_run_reader_fail (r, "“phases.lanes[]” has columns of different lengths, or too long");
          return;
        }
      if (phases->lanes[worker] != NULL)
        {
          _cs_run_reader_fail (r, "“phases.lanes[]” has worker %" G_GINT64_FORMAT " twice", worker);
          return;
        }
      phases->lanes[worker] = g_array_new (FALSE, FALSE, sizeof (CsPhaseChange));
      for (guint i = 0; i < len && !r->failed; i++)
        {
          gint64 step = _cs_run_read_int_node (r, json_array_get_element (t, i),
                                               "phases.lanes[]", "t_us[]", 0, MAX_DURATION * 1e6);
          gint64 index = _cs_run_read_int_node (r, json_array_get_element (phase, i),
                                                "phases.lanes[]", "phase[]", 0, n_ids - 1);
          CsPhaseChange change;

          us += step;
          if (r->failed || us > MAX_DURATION * 1e6)
            {
              _cs_run_reader_fail (r, "“phases.lanes[].t_us” runs past the longest run");
              return;
            }
          /* A phase of a later version: the lane goes on without it. */
          if (map[index] == CS_PHASE_N)
            continue;
          change.t = us / 1e6;
          change.phase = map[index];
          g_array_append_val (phases->lanes[worker], change);
          phases->lanes_newest = MAX (phases->lanes_newest, change.t);
        }
    }
}

static void
read_latency (CsRunReader *r,
              JsonObject  *root,
              CsRun       *run)
{
  JsonObject *o;

  if (!json_object_has_member (root, "latency"))
    return;
  o = _cs_run_read_object (r, root, "", "latency");
  for (guint k = 0; k < CS_LATENCY_N && o != NULL && !r->failed; k++)
    {
      const char *id = cs_latency_kind_get_id (k);
      g_autofree char *where = g_strconcat ("latency.", id, NULL);
      g_autofree CsLatencyHistogram *h = NULL;
      JsonObject *kind;
      JsonArray *buckets;
      guint64 total = 0;

      if (!json_object_has_member (o, id))
        continue;
      kind = _cs_run_read_object (r, o, "latency", id);
      if (kind == NULL)
        return;
      h = g_new0 (CsLatencyHistogram, 1);
      h->count = _cs_run_read_int (r, kind, where, "count", 0, MAX_LATENCY_COUNT);
      h->sum_ns = _cs_run_read_double (r, kind, where, "sum_ns", 0, MAX_LATENCY_COUNT * 1e18);
      h->max_ns = _cs_run_read_int (r, kind, where, "max_ns", 0, (double) G_MAXINT64);
      buckets = _cs_run_read_array (r, kind, where, "buckets", TRUE);
      if (buckets == NULL || r->failed)
        return;
      if (json_array_get_length (buckets) != CS_LATENCY_BUCKETS)
        {
          _cs_run_reader_fail (r, "“%s.buckets” must have %d values", where, CS_LATENCY_BUCKETS);
          return;
        }
      for (guint i = 0; i < CS_LATENCY_BUCKETS && !r->failed; i++)
        {
          h->buckets[i] = _cs_run_read_int_node (r, json_array_get_element (buckets, i),
                                                 where, "buckets[]", 0, MAX_LATENCY_COUNT);
          total += h->buckets[i];
        }
      if (!r->failed && total != h->count)
        {
          _cs_run_reader_fail (r, "“%s.count” is not the sum of its buckets", where);
          return;
        }
      run->latency[k] = g_steal_pointer (&h);
    }
}

void
_cs_run_read_phases (CsRunReader *r,
                     JsonObject  *root,
                     CsRun       *run)
{
  g_autofree CsPhase *map = NULL;
  g_autoptr(GArray) samples = NULL;
  g_autoptr(GArray) buckets = NULL;
  CsRunPhases *phases;
  JsonObject *o, *totals;
  guint n_ids;
  double t = 0;

  read_latency (r, root, run);
  if (r->failed || !json_object_has_member (root, "phases"))
    return;

  o = _cs_run_read_object (r, root, "", "phases");
  if (o == NULL)
    return;
  n_ids = read_ids (r, o, &map);
  totals = _cs_run_read_object (r, o, "phases", "totals");
  samples = read_rows (r, o, "samples", FALSE);
  buckets = read_rows (r, o, "buckets", TRUE);
  if (r->failed)
    return;

  phases = phases_ensure (run);
  for (guint p = 0; p < CS_PHASE_N && !r->failed; p++)
    if (json_object_has_member (totals, cs_phase_get_id (p)))
      phases->totals[p] = _cs_run_read_double (r, totals, "phases.totals", cs_phase_get_id (p),
                                               0, MAX_PHASE_SECONDS);
  phases->bucket_width = _cs_run_read_double (r, _cs_run_read_object (r, o, "phases", "buckets"),
                                              "phases.buckets", "width", 1e-3, MAX_DURATION);
  /* Without it, not measured: the columns are then ignored, so a record
   * edited by hand cannot claim a share it does not total. */
  phases->runnable_measured = json_object_has_member (o, "runnable");
  if (phases->runnable_measured)
    phases->runnable_total = _cs_run_read_double (r, o, "phases", "runnable", 0, MAX_PHASE_SECONDS);
  else
    {
      for (guint i = 0; i < buckets->len; i++)
        g_array_index (buckets, CsPhaseBucket, i).runnable = 0;
      for (guint i = 0; i < samples->len; i++)
        g_array_index (samples, CsPhaseBucket, i).runnable = 0;
    }

  /* In order, each after the one before, as they were recorded. */
  for (guint i = 0; i < buckets->len && !r->failed; i++)
    {
      const CsPhaseBucket *b = &g_array_index (buckets, CsPhaseBucket, i);

      if (b->t_start < t || b->t < b->t_start)
        _cs_run_reader_fail (r, "“phases.buckets” are out of order");
      t = b->t;
    }
  if (!r->failed)
    g_array_append_vals (phases->buckets, buckets->data, buckets->len);
  for (guint i = 0; i < samples->len && !r->failed; i++)
    {
      const CsPhaseBucket *s = &g_array_index (samples, CsPhaseBucket, i);

      if (s->t < t || (s->t == t && (i > 0 || phases->buckets->len > 0)))
        {
          _cs_run_reader_fail (r, "“phases.samples.t” is out of order");
          break;
        }
      store_sample (phases, s->t, s->seconds, FALSE);
      recent_at (phases, recent_len (phases) - 1)->runnable = s->runnable;
      t = s->t;
    }

  read_lanes (r, o, map, n_ids, phases);
}
