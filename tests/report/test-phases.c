/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-report"

/*
 * Where the workers' time went, as the record keeps it (cs-phases.h): the
 * time by phase at the samples' two resolutions, the lanes, the latency
 * histograms and their percentiles, the JSON both ways, and a record
 * without them reading as "no phase data".
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "cs-run.h"
#include "cs-run-private.h"
#include "report-fixtures.h"

static CsRun *
reload (CsRun *run)
{
  g_autofree char *json = cs_run_to_json_string (run, TRUE);
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  CsRun *copy;

  root = json_from_string (json, &error);
  g_assert_no_error (error);
  copy = cs_run_new_from_json (root, &error);
  g_assert_no_error (error);
  g_assert_nonnull (copy);

  return copy;
}

static void
assert_json_equal (CsRun *a,
                   CsRun *b)
{
  g_autofree char *ja = cs_run_to_json_string (a, TRUE);
  g_autofree char *jb = cs_run_to_json_string (b, TRUE);

  g_assert_cmpstr (ja, ==, jb);
}

static void
test_phases_names (void)
{
  gboolean colours[CS_PHASE_N] = { FALSE };

  for (guint p = 0; p < CS_PHASE_N; p++)
    {
      CsPhase back;

      g_assert_true (cs_phase_from_id (cs_phase_get_id (p), &back));
      g_assert_cmpuint (back, ==, p);
      g_assert_nonnull (cs_phase_get_label (p));
      g_assert_cmpuint (cs_phase_get_colour (p), <, CS_PHASE_N);
      g_assert_false (colours[cs_phase_get_colour (p)]);
      colours[cs_phase_get_colour (p)] = TRUE;
    }
  /* The ids are what files hold: they never change. */
  g_assert_cmpstr (cs_phase_get_id (CS_PHASE_WAITING), ==, "waiting");
  g_assert_cmpstr (cs_phase_get_id (CS_PHASE_PUBLISHING), ==, "publishing");
  g_assert_cmpstr (cs_phase_get_id (CS_PHASE_PAUSED), ==, "paused");
  g_assert_false (cs_phase_from_id ("sleeping", NULL));

  for (guint k = 0; k < CS_LATENCY_N; k++)
    {
      CsLatencyKind back;

      g_assert_true (cs_latency_kind_from_id (cs_latency_kind_get_id (k), &back));
      g_assert_cmpuint (back, ==, k);
    }
  g_assert_cmpstr (cs_latency_kind_get_id (CS_LATENCY_SET_TIMES), ==, "set_times");
}

/* The buckets and fio's percentiles, table-driven. */
static void
test_phases_histogram (void)
{
  CsLatencyHistogram h = { { 0 } }, other = { { 0 } };

  g_assert_cmpuint (cs_latency_bucket_of (0), ==, 0);
  g_assert_cmpuint (cs_latency_bucket_of (1), ==, 0);
  g_assert_cmpuint (cs_latency_bucket_of (2), ==, 1);
  g_assert_cmpuint (cs_latency_bucket_of (3), ==, 1);
  g_assert_cmpuint (cs_latency_bucket_of (4), ==, 2);
  g_assert_cmpuint (cs_latency_bucket_of (1023), ==, 9);
  g_assert_cmpuint (cs_latency_bucket_of (1024), ==, 10);
  g_assert_cmpuint (cs_latency_bucket_of (G_MAXUINT64), ==, CS_LATENCY_BUCKETS - 1);

  g_assert_cmpfloat (cs_latency_histogram_percentile (&h, 50), ==, 0);

  /* 90 requests of 1000 ns (bucket [512, 1024)), 9 of 5000 ns ([4096,
   * 8192)), one of 1 ms ([524288, 1048576)). */
  for (guint i = 0; i < 90; i++)
    cs_latency_histogram_add (&h, 1000);
  for (guint i = 0; i < 9; i++)
    cs_latency_histogram_add (&other, 5000);
  cs_latency_histogram_add (&other, 1000000);
  cs_latency_histogram_merge (&h, &other);

  g_assert_cmpuint (h.count, ==, 100);
  g_assert_cmpuint (h.max_ns, ==, 1000000);
  g_assert_cmpfloat (cs_latency_histogram_mean (&h), ==, (90 * 1000.0 + 9 * 5000.0 + 1e6) / 100);
  /* The bucket's middle, as fio reports it. */
  g_assert_cmpfloat (cs_latency_histogram_percentile (&h, 50), ==, 768);
  g_assert_cmpfloat (cs_latency_histogram_percentile (&h, 90), ==, 768);
  g_assert_cmpfloat (cs_latency_histogram_percentile (&h, 91), ==, 6144);
  g_assert_cmpfloat (cs_latency_histogram_percentile (&h, 99), ==, 6144);
  /* Never past the exact maximum. */
  g_assert_cmpfloat (cs_latency_histogram_percentile (&h, 100), ==, 786432);
  h.max_ns = 600000;
  g_assert_cmpfloat (cs_latency_histogram_percentile (&h, 100), ==, 600000);
}

static void
test_phases_none (void)
{
  g_autoptr(CsRun) run = fixture_run ("plain", "6f9619ff-8b86-4011-b42d-00c04fc964ff", 4, 1.0);
  g_autoptr(CsRun) copy = NULL;
  g_autofree char *json = NULL;
  double totals[CS_PHASE_N];

  g_assert_false (cs_run_get_phase_totals (run, totals));
  g_assert_false (cs_run_get_runnable_total (run, NULL));
  g_assert_null (cs_run_dup_phase_series (run));
  g_assert_null (cs_run_dup_phase_series_newest (run, 64));
  g_assert_null (cs_run_dup_phase_lanes (run));
  for (guint k = 0; k < CS_LATENCY_N; k++)
    g_assert_false (cs_run_get_latency (run, k, NULL));

  /* Nothing written for it, and nothing read back: not zeros. */
  json = cs_run_to_json_string (run, FALSE);
  g_assert_null (strstr (json, "\"phases\""));
  g_assert_null (strstr (json, "\"latency\""));
  copy = reload (run);
  g_assert_false (cs_run_get_phase_totals (copy, NULL));
  g_assert_null (cs_run_dup_phase_series (copy));
  g_assert_false (cs_run_get_latency (copy, CS_LATENCY_READ, NULL));
}

static CsRun *
phases_run (void)
{
  CsRun *run = fixture_run ("phases", "6f9619ff-8b86-4011-b42d-00c04fc964fe", 2, 1.0);
  CsLatencyHistogram open = { { 0 } }, write = { { 0 } };

  for (guint i = 1; i <= 8; i++)
    {
      double seconds[CS_PHASE_N] = { 0 };

      /* Two workers for a quarter second: half a worker-second a sample. */
      seconds[CS_PHASE_OPENING] = 0.125;
      seconds[CS_PHASE_WRITING] = 0.25 + (i % 2) * 0.0625;
      seconds[CS_PHASE_WAITING] = 0.125 - (i % 2) * 0.0625;
      _cs_run_add_phase_sample (run, i * 0.25, seconds);
    }

  for (guint w = 0; w < 2; w++)
    {
      const CsPhaseChange changes[] = {
        { 0.0, CS_PHASE_WAITING },
        { 0.001 + w * 0.0005, CS_PHASE_OPENING },
        { 0.25, CS_PHASE_WRITING },
        { 1.5, CS_PHASE_PUBLISHING },
        { 1.75, CS_PHASE_WAITING },
      };

      _cs_run_add_phase_changes (run, w, changes, G_N_ELEMENTS (changes));
    }

  for (guint i = 0; i < 10; i++)
    cs_latency_histogram_add (&open, 20000 + i * 1000);
  cs_latency_histogram_add (&write, 3000000);
  _cs_run_add_latency (run, CS_LATENCY_OPEN, &open);
  _cs_run_add_latency (run, CS_LATENCY_WRITE, &write);
  _cs_run_add_latency (run, CS_LATENCY_WRITE, &write);

  return run;
}

static void
test_phases_round_trip (void)
{
  g_autoptr(CsRun) run = phases_run ();
  g_autoptr(CsRun) copy = NULL;
  g_autoptr(GArray) series = NULL;
  g_autoptr(GArray) lanes = NULL;
  double totals[CS_PHASE_N], back[CS_PHASE_N];
  CsLatencyHistogram h;
  double sum = 0;

  g_assert_true (cs_run_get_phase_totals (run, totals));
  g_assert_cmpfloat (totals[CS_PHASE_OPENING], ==, 1.0);
  g_assert_cmpfloat (totals[CS_PHASE_WRITING], ==, 2.25);
  g_assert_cmpfloat (totals[CS_PHASE_WAITING], ==, 0.75);
  g_assert_cmpfloat (totals[CS_PHASE_PAUSED], ==, 0);
  /* Two workers for two seconds. */
  for (guint p = 0; p < CS_PHASE_N; p++)
    sum += totals[p];
  g_assert_cmpfloat (sum, ==, 4.0);

  series = cs_run_dup_phase_series (run);
  g_assert_cmpuint (series->len, ==, 8);
  g_assert_cmpfloat (g_array_index (series, CsPhaseBucket, 0).t_start, ==, 0);
  g_assert_cmpfloat (g_array_index (series, CsPhaseBucket, 3).t_start, ==, 0.75);
  g_assert_cmpfloat (g_array_index (series, CsPhaseBucket, 3).t, ==, 1.0);

  g_assert_true (cs_run_get_latency (run, CS_LATENCY_WRITE, &h));
  g_assert_cmpuint (h.count, ==, 2);
  g_assert_false (cs_run_get_latency (run, CS_LATENCY_READ, NULL));

  copy = reload (run);
  assert_json_equal (run, copy);
  g_assert_true (cs_run_get_phase_totals (copy, back));
  g_assert_cmpmem (totals, sizeof totals, back, sizeof back);
  g_clear_pointer (&series, g_array_unref);
  series = cs_run_dup_phase_series (copy);
  g_assert_cmpuint (series->len, ==, 8);
  g_assert_cmpfloat (g_array_index (series, CsPhaseBucket, 7).seconds[CS_PHASE_WRITING], ==, 0.25);
  /* The file holds worker-ms; the totals stay exact. */
  g_assert_cmpfloat (g_array_index (series, CsPhaseBucket, 6).seconds[CS_PHASE_WRITING], ==, 0.313);

  lanes = cs_run_dup_phase_lanes (copy);
  g_assert_cmpuint (lanes->len, ==, 2);
  for (guint w = 0; w < 2; w++)
    {
      const CsPhaseLane *lane = &g_array_index (lanes, CsPhaseLane, w);

      g_assert_cmpuint (lane->worker, ==, w);
      g_assert_cmpuint (lane->changes->len, ==, 5);
      g_assert_cmpfloat_with_epsilon (g_array_index (lane->changes, CsPhaseChange, 1).t,
                                      0.001 + w * 0.0005, 1e-9);
      g_assert_cmpuint (g_array_index (lane->changes, CsPhaseChange, 3).phase, ==, CS_PHASE_PUBLISHING);
    }

  g_assert_true (cs_run_get_latency (copy, CS_LATENCY_OPEN, &h));
  g_assert_cmpuint (h.count, ==, 10);
  g_assert_cmpuint (h.max_ns, ==, 29000);
  g_assert_cmpfloat (cs_latency_histogram_percentile (&h, 50), ==, 24576);
  g_assert_false (cs_run_get_latency (copy, CS_LATENCY_LIST, NULL));
}

/* The closing sample made again: the totals follow. */
static void
test_phases_replace_last (void)
{
  g_autoptr(CsRun) run = cs_run_new ();
  double a[CS_PHASE_N] = { [CS_PHASE_READING] = 1.0 };
  double b[CS_PHASE_N] = { [CS_PHASE_READING] = 0.5, [CS_PHASE_FLUSHING] = 0.75 };
  double totals[CS_PHASE_N];

  _cs_run_replace_last_phase_sample (run, 0.25, a);
  _cs_run_add_phase_sample (run, 0.5, a);
  _cs_run_replace_last_phase_sample (run, 0.625, b);
  g_assert_true (cs_run_get_phase_totals (run, totals));
  g_assert_cmpfloat (totals[CS_PHASE_READING], ==, 1.5);
  g_assert_cmpfloat (totals[CS_PHASE_FLUSHING], ==, 0.75);
}

/* A lane keeps the last seconds, the change the window starts in, and no
 * more than its cap. */
static void
test_phases_lanes_bounded (void)
{
  g_autoptr(CsRun) run = cs_run_new ();
  g_autoptr(GArray) lanes = NULL;
  const CsPhaseLane *lane;

  for (guint i = 0; i < 100; i++)
    {
      CsPhaseChange change = { i * 1.0, i % CS_PHASE_N };

      _cs_run_add_phase_changes (run, 3, &change, 1);
    }
  lanes = cs_run_dup_phase_lanes (run);
  g_assert_cmpuint (lanes->len, ==, 1);
  lane = &g_array_index (lanes, CsPhaseLane, 0);
  g_assert_cmpuint (lane->worker, ==, 3);
  /* 99 is the newest: 69 … 99, and 69 is where the window starts. */
  g_assert_cmpuint (lane->changes->len, ==, 31);
  g_assert_cmpfloat (g_array_index (lane->changes, CsPhaseChange, 0).t, ==, 69);

  g_clear_pointer (&lanes, g_array_unref);
  for (guint i = 0; i < 5000; i++)
    {
      CsPhaseChange change = { 100 + i * 1e-4, i % CS_PHASE_N };

      _cs_run_add_phase_changes (run, 3, &change, 1);
    }
  lanes = cs_run_dup_phase_lanes (run);
  lane = &g_array_index (lanes, CsPhaseLane, 0);
  g_assert_cmpuint (lane->changes->len, ==, CS_PHASE_LANE_MAX_CHANGES);
  g_assert_cmpfloat (g_array_index (lane->changes, CsPhaseChange, lane->changes->len - 1).t,
                     ==, 100 + 4999 * 1e-4);
}

/* A day at 250 ms with every phase busy in every sample, 128 full lanes and
 * every kind of request: within 2.4 MB, and its totals exact. */
static void
test_phases_long (void)
{
  g_autoptr(CsRun) run = cs_run_new ();
  g_autoptr(CsRun) copy = NULL;
  g_autoptr(GArray) series = NULL;
  g_autofree char *json = NULL;
  const guint n = 345600;
  double expected[CS_PHASE_N] = { 0 }, totals[CS_PHASE_N], from_series[CS_PHASE_N] = { 0 };
  double runnable = 0, runnable_series = 0, back;

  for (guint i = 0; i < n; i++)
    {
      CsSample sample = { 0 };
      double seconds[CS_PHASE_N];

      sample.t = (i + 1) * 0.25;
      for (guint c = 0; c < CS_N_COUNTERS; c++)
        sample.values[c] = (i * 7 + c) % 1013;
      sample.files_done = i;
      sample.bytes_done = (guint64) i * 1000;
      _cs_run_add_sample (run, &sample);

      /* 64 workers: 16 worker-seconds a sample, spread over every phase. */
      for (guint p = 0; p < CS_PHASE_N; p++)
        {
          seconds[p] = (1 + (i * 13 + p * 7) % 29) * 0.0491;
          expected[p] += seconds[p];
        }
      _cs_run_add_phase_sample (run, sample.t, seconds);
      /* And some of them waiting for a processor, every sample. */
      _cs_run_set_phase_runnable (run, (1 + (i * 11) % 31) * 0.0377);
      runnable += (1 + (i * 11) % 31) * 0.0377;
    }
  _cs_run_set_duration (run, n * 0.25);

  for (guint w = 0; w < CS_PHASE_MAX_WORKERS; w++)
    for (guint i = 0; i < CS_PHASE_LANE_MAX_CHANGES; i++)
      {
        CsPhaseChange change = { n * 0.25 - 20 + i * 0.0173 + w * 1e-6, (i + w) % CS_PHASE_N };

        _cs_run_add_phase_changes (run, w, &change, 1);
      }
  for (guint k = 0; k < CS_LATENCY_N; k++)
    {
      CsLatencyHistogram h = { { 0 } };

      for (guint i = 0; i < 100000; i++)
        cs_latency_histogram_add (&h, 100 + (guint64) i * i * (k + 1));
      _cs_run_add_latency (run, k, &h);
    }

  g_assert_true (cs_run_get_phase_totals (run, totals));
  series = cs_run_dup_phase_series (run);
  g_assert_cmpuint (series->len, <=, 1024 + 2401);
  for (guint i = 0; i < series->len; i++)
    {
      for (guint p = 0; p < CS_PHASE_N; p++)
        from_series[p] += g_array_index (series, CsPhaseBucket, i).seconds[p];
      runnable_series += g_array_index (series, CsPhaseBucket, i).runnable;
    }
  for (guint p = 0; p < CS_PHASE_N; p++)
    {
      g_assert_cmpfloat (totals[p], ==, expected[p]);
      /* The buckets hold sums: nothing lost as they merge. */
      g_assert_cmpfloat_with_epsilon (from_series[p], expected[p], expected[p] * 1e-9);
    }
  g_assert_true (cs_run_get_runnable_total (run, &back));
  g_assert_cmpfloat_with_epsilon (back, runnable, runnable * 1e-12);
  g_assert_cmpfloat_with_epsilon (runnable_series, runnable, runnable * 1e-9);

  /* The newest few alone are the series' tail; asked for more than there
   * are, the whole series. */
  {
    g_autoptr(GArray) tail = cs_run_dup_phase_series_newest (run, 64);
    g_autoptr(GArray) all = cs_run_dup_phase_series_newest (run, 100000);
    g_autoptr(GArray) past_recent = cs_run_dup_phase_series_newest (run, 2500);

    g_assert_cmpuint (tail->len, ==, 64);
    g_assert_cmpmem (tail->data, 64 * sizeof (CsPhaseBucket),
                     &g_array_index (series, CsPhaseBucket, series->len - 64), 64 * sizeof (CsPhaseBucket));
    g_assert_cmpmem (all->data, all->len * sizeof (CsPhaseBucket),
                     series->data, series->len * sizeof (CsPhaseBucket));
    /* Reaching back past the whole samples into the merged buckets. */
    g_assert_cmpuint (past_recent->len, ==, 2500);
    g_assert_cmpmem (past_recent->data, 2500 * sizeof (CsPhaseBucket),
                     &g_array_index (series, CsPhaseBucket, series->len - 2500), 2500 * sizeof (CsPhaseBucket));
    g_assert_null (cs_run_dup_phase_series_newest (run, 0));
  }

  json = cs_run_to_json_string (run, TRUE);
  g_test_message ("a day's record with phases: %zu bytes, %u entries", strlen (json), series->len);
  g_assert_cmpuint (strlen (json), <=, 2400 * 1000);

  copy = reload (run);
  assert_json_equal (run, copy);
  g_assert_true (cs_run_get_phase_totals (copy, totals));
  for (guint p = 0; p < CS_PHASE_N; p++)
    g_assert_cmpfloat (totals[p], ==, expected[p]);
  g_assert_true (cs_run_get_runnable_total (copy, &back));
  g_assert_cmpfloat_with_epsilon (back, runnable, runnable * 1e-12);
}

/* Waiting for a processor: beside the phases in each sample, merged by
 * addition, its total exact; made again with the closing sample; a record
 * without it (older, or a kernel without schedstat) "not measured". */
static void
test_phases_runnable (void)
{
  g_autoptr(CsRun) run = phases_run ();
  g_autoptr(CsRun) copy = NULL;
  g_autoptr(CsRun) older = phases_run ();
  g_autoptr(CsRun) older_back = NULL;
  g_autoptr(GArray) series = NULL;
  g_autoptr(GArray) older_series = NULL;
  double a[CS_PHASE_N] = { [CS_PHASE_READING] = 0.5 };
  double runnable;

  /* Its last sample says 0.125 worker-s, then is made again with 0.375. */
  _cs_run_set_phase_runnable (run, 0.125);
  g_assert_true (cs_run_get_runnable_total (run, &runnable));
  g_assert_cmpfloat (runnable, ==, 0.125);
  _cs_run_add_phase_sample (run, 2.25, a);
  _cs_run_set_phase_runnable (run, 0.25);
  _cs_run_replace_last_phase_sample (run, 2.375, a);
  _cs_run_set_phase_runnable (run, 0.375);
  g_assert_true (cs_run_get_runnable_total (run, &runnable));
  g_assert_cmpfloat (runnable, ==, 0.5);

  series = cs_run_dup_phase_series (run);
  g_assert_cmpuint (series->len, ==, 9);
  g_assert_cmpfloat (g_array_index (series, CsPhaseBucket, 0).runnable, ==, 0);
  g_assert_cmpfloat (g_array_index (series, CsPhaseBucket, 7).runnable, ==, 0.125);
  g_assert_cmpfloat (g_array_index (series, CsPhaseBucket, 8).runnable, ==, 0.375);

  copy = reload (run);
  assert_json_equal (run, copy);
  g_assert_true (cs_run_get_runnable_total (copy, &runnable));
  g_assert_cmpfloat (runnable, ==, 0.5);
  g_clear_pointer (&series, g_array_unref);
  series = cs_run_dup_phase_series (copy);
  g_assert_cmpfloat (g_array_index (series, CsPhaseBucket, 8).runnable, ==, 0.375);

  /* Never set: phase data, but run_delay not measured, and so read back. */
  g_assert_true (cs_run_get_phase_totals (older, NULL));
  g_assert_false (cs_run_get_runnable_total (older, NULL));
  older_back = reload (older);
  g_assert_false (cs_run_get_runnable_total (older_back, NULL));
  older_series = cs_run_dup_phase_series (older_back);
  for (guint i = 0; i < older_series->len; i++)
    g_assert_cmpfloat (g_array_index (older_series, CsPhaseBucket, i).runnable, ==, 0);
}

/* A record whose samples have the column but not the total: not measured,
 * the column ignored (a share must come with the total it is a share of). */
static void
test_phases_runnable_without_total (void)
{
  g_autoptr(CsRun) run = phases_run ();
  g_autofree char *json = NULL;
  g_autoptr(GString) edited = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(CsRun) back = NULL;
  g_autoptr(GArray) series = NULL;
  char *member;

  _cs_run_set_phase_runnable (run, 0.125);
  json = cs_run_to_json_string (run, FALSE);
  edited = g_string_new (json);
  member = strstr (edited->str, ",\"runnable\":0.125}");
  g_assert_nonnull (member);
  g_string_erase (edited, member - edited->str, strlen (",\"runnable\":0.125"));
  g_assert_nonnull (strstr (edited->str, "\"runnable\":["));

  root = json_from_string (edited->str, NULL);
  back = cs_run_new_from_json (root, NULL);
  g_assert_nonnull (back);
  g_assert_false (cs_run_get_runnable_total (back, NULL));
  series = cs_run_dup_phase_series (back);
  g_assert_cmpfloat (g_array_index (series, CsPhaseBucket, 7).runnable, ==, 0);
}

/* Corrupt phase data is refused with a message naming it; an unknown
 * phase, from a later version, is skipped. */
static void
test_phases_bad_input (void)
{
  g_autoptr(CsRun) run = phases_run ();
  static const struct {
    const char *from;
    const char *to;
    const char *message;
  } cases[] = {
    { "\"ids\" : [", "\"ids\" : [ 3, ", "phases" },
    { "\"count\" : 10", "\"count\" : 11", "latency.open.count" },
    { "\"worker\" : 1", "\"worker\" : 0", "twice" },
    { "\"worker\" : 1", "\"worker\" : 128", "worker" },
    { "\"t_us\" : [", "\"t_us\" : [ 5, ", "lengths" },
    { "\"runnable\" : [", "\"runnable\" : [ 5, ", "runnable" },
    { "\"runnable\" : 0.125", "\"runnable\" : -1", "runnable" },
  };
  g_autofree char *json = NULL;

  _cs_run_set_phase_runnable (run, 0.125);
  json = cs_run_to_json_string (run, TRUE);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GString) bad = g_string_new (json);
      g_autoptr(JsonNode) root = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(CsRun) broken = NULL;

      g_assert_cmpuint (g_string_replace (bad, cases[i].from, cases[i].to, 1), ==, 1);
      root = json_from_string (bad->str, &error);
      g_assert_no_error (error);
      broken = cs_run_new_from_json (root, &error);
      g_assert_null (broken);
      g_assert_error (error, CS_RUN_ERROR, CS_RUN_ERROR_INVALID);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, cases[i].message));
    }

  {
    g_autoptr(GString) later = g_string_new (json);
    g_autoptr(JsonNode) root = NULL;
    g_autoptr(GError) error = NULL;
    g_autoptr(CsRun) read = NULL;
    g_autoptr(GArray) lanes = NULL;

    g_string_replace (later, "\"publishing\",", "\"dreaming\",", 1);
    root = json_from_string (later->str, &error);
    g_assert_no_error (error);
    read = cs_run_new_from_json (root, &error);
    g_assert_no_error (error);
    lanes = cs_run_dup_phase_lanes (read);
    g_assert_cmpuint (g_array_index (lanes, CsPhaseLane, 0).changes->len, ==, 4);
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/phases/names", test_phases_names);
  g_test_add_func ("/phases/histogram", test_phases_histogram);
  g_test_add_func ("/phases/none", test_phases_none);
  g_test_add_func ("/phases/round-trip", test_phases_round_trip);
  g_test_add_func ("/phases/replace-last", test_phases_replace_last);
  g_test_add_func ("/phases/lanes-bounded", test_phases_lanes_bounded);
  g_test_add_func ("/phases/long", test_phases_long);
  g_test_add_func ("/phases/runnable", test_phases_runnable);
  g_test_add_func ("/phases/runnable/without-total", test_phases_runnable_without_total);
  g_test_add_func ("/phases/bad-input", test_phases_bad_input);

  return g_test_run ();
}
