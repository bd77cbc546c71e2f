/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-report"

#include "config.h"

#include <locale.h>
#include <math.h>

#include "cs-compare.h"
#include "cs-run-private.h"
#include "report-fixtures.h"

/*
 * Seed 003 (Robocopy T2 vs. T1 on two SSDs): average, minimum and maximum of
 * the counters Copyscope shares with it, and the run each review sentence
 * names as better for the average, minimum and maximum.
 */
typedef struct {
  CsCounter   counter;
  double      t2[3];        /* avg, min, max */
  double      t1[3];
  const char *best[3];      /* "T2", "T1" or "tie" */
} SeedRow;

static const SeedRow seed_003[] = {
  { CS_COUNTER_DATA_TRANSFER_RATE, { 170.65, 0.00, 325.13 }, { 128.48, 23.52, 312.22 }, { "T2", "T1", "T2" } },
  { CS_COUNTER_READ_TRANSFER_RATE, { 108.33, 0.00, 251.23 }, { 75.28, 4.74, 213.22 }, { "T2", "T1", "T2" } },
  { CS_COUNTER_WRITE_TRANSFER_RATE, { 58.71, 0.00, 135.25 }, { 50.30, 0.39, 113.15 }, { "T2", "T1", "T2" } },
  { CS_COUNTER_DATA_REQUEST_RATE, { 4668.41, 0.00, 6682.78 }, { 3701.72, 1166.57, 7124.81 }, { "T2", "T1", "T1" } },
  { CS_COUNTER_READ_REQUEST_RATE, { 3280.50, 0.00, 5457.74 }, { 2208.20, 429.46, 3074.95 }, { "T2", "T1", "T2" } },
  { CS_COUNTER_WRITE_REQUEST_RATE, { 621.64, 0.00, 1601.25 }, { 973.50, 29.51, 5245.99 }, { "T1", "T1", "T1" } },
  { CS_COUNTER_AVG_REQUEST_SIZE, { 37.60, 0.00, 84.79 }, { 43.47, 6.04, 107.99 }, { "T1", "T1", "T1" } },
  { CS_COUNTER_AVG_READ_REQUEST_SIZE, { 33.49, 0.00, 96.00 }, { 44.61, 6.47, 157.34 }, { "T1", "T1", "T1" } },
  { CS_COUNTER_AVG_WRITE_REQUEST_SIZE, { 79.48, 0.00, 162.26 }, { 81.40, 4.00, 250.56 }, { "T1", "T1", "T1" } },
  { CS_COUNTER_AVG_REQUEST_TIME, { 0.38, 0.00, 0.69 }, { 0.59, 0.10, 2.62 }, { "T2", "T2", "T2" } },
  { CS_COUNTER_AVG_READ_REQUEST_TIME, { 0.23, 0.00, 0.56 }, { 0.36, 0.11, 3.05 }, { "T2", "T2", "T2" } },
  { CS_COUNTER_AVG_WRITE_REQUEST_TIME, { 0.50, 0.00, 1.25 }, { 0.51, 0.03, 1.54 }, { "T2", "T2", "T2" } },
  { CS_COUNTER_CPU_USAGE, { 30.42, 0.00, 47.00 }, { 14.82, 7.00, 21.00 }, { "T1", "T2", "T1" } },
  { CS_COUNTER_CPU_USAGE_SYSTEM, { 26.33, 0.00, 41.00 }, { 13.65, 7.00, 21.00 }, { "T1", "T2", "T1" } },
  { CS_COUNTER_PROCESS_CPU_USAGE, { 80.88, 0.00, 100.00 }, { 51.31, 28.57, 65.07 }, { "T1", "T2", "T1" } },
  { CS_COUNTER_PROCESS_MEMORY, { 16.35, 8.27, 19.47 }, { 5.41, 5.30, 6.25 }, { "T1", "T1", "T1" } },
};

static CsCompare *
seed_compare (void)
{
  double avg[2][CS_N_COUNTERS], min[2][CS_N_COUNTERS], max[2][CS_N_COUNTERS];
  g_autoptr(CsRun) t2 = NULL;
  g_autoptr(CsRun) t1 = NULL;
  const char * const labels[] = { "Robocopy T2", "Robocopy T1", NULL };

  for (guint c = 0; c < CS_N_COUNTERS; c++)
    for (guint r = 0; r < 2; r++)
      avg[r][c] = min[r][c] = max[r][c] = NAN;

  for (guint i = 0; i < G_N_ELEMENTS (seed_003); i++)
    {
      const SeedRow *row = &seed_003[i];

      avg[0][row->counter] = row->t2[0];
      min[0][row->counter] = row->t2[1];
      max[0][row->counter] = row->t2[2];
      avg[1][row->counter] = row->t1[0];
      min[1][row->counter] = row->t1[1];
      max[1][row->counter] = row->t1[2];
    }

  /* The seed lists T2 first; so does the comparison. */
  t2 = fixture_run_with_stats ("T2", avg[0], min[0], max[0]);
  t1 = fixture_run_with_stats ("T1", avg[1], min[1], max[1]);

  return cs_compare_new ((CsRun *[]) { t2, t1 }, 2, labels);
}

static void
test_compare_seed_winners (void)
{
  g_autoptr(CsCompare) compare = seed_compare ();

  g_assert_cmpuint (cs_compare_get_n_tests (compare), ==, G_N_ELEMENTS (seed_003));
  g_assert_cmpuint (cs_compare_get_n_ties (compare), ==, 0);

  for (guint i = 0; i < G_N_ELEMENTS (seed_003); i++)
    {
      const SeedRow *row = &seed_003[i];
      const CsCompareCounter *c = cs_compare_get_counter (compare, row->counter);

      g_test_message ("%s", cs_counter_get_info (row->counter)->label);
      g_assert_true (c->is_test);
      g_assert_cmpfloat_with_epsilon (c->stats[0].avg, row->t2[0], 1e-9);
      g_assert_cmpfloat_with_epsilon (c->stats[1].avg, row->t1[0], 1e-9);
      for (guint s = 0; s < CS_COMPARE_N_STATS; s++)
        {
          int expected = g_str_equal (row->best[s], "T2") ? 0 : 1;

          g_assert_cmpint (c->best[s], ==, expected);
          g_assert_true (cs_compare_is_best (compare, row->counter, s, expected));
          g_assert_false (cs_compare_is_best (compare, row->counter, s, 1 - expected));
        }
    }

  /* No data for these in the seed, and Threads has no direction. */
  g_assert_false (cs_compare_get_counter (compare, CS_COUNTER_REQUEST_RATE)->is_test);
  g_assert_false (cs_compare_get_counter (compare, CS_COUNTER_THREADS)->is_test);

  g_assert_cmpuint (cs_compare_get_wins (compare, 0), ==, 8);
  g_assert_cmpuint (cs_compare_get_wins (compare, 1), ==, 8);
}

static void
test_compare_seed_verdict (void)
{
  g_autoptr(CsCompare) compare = seed_compare ();
  g_autofree char *verdict = cs_compare_dup_verdict (compare);

  g_assert_cmpstr (verdict, ==,
                   "According to the performance results, Robocopy T2 achieves better results in "
                   "8 out of 16 tests including: Data Request Rate, Read Request Rate, Data Transfer Rate, "
                   "Read Transfer Rate, Write Transfer Rate, Average Request Time, Average Read Request Time "
                   "and Average Write Request Time. On the other hand, Robocopy T1 achieves better results in "
                   "8 out of 16 tests including: Write Request Rate, Average Request Size, Average Read "
                   "Request Size, Average Write Request Size, CPU Usage, CPU Usage System, Process CPU Usage "
                   "and Process Memory Used.");
}

static void
test_compare_seed_sentences (void)
{
  g_autoptr(CsCompare) compare = seed_compare ();
  g_autofree char *cpu = cs_compare_dup_counter_sentence (compare, CS_COUNTER_CPU_USAGE);
  g_autofree char *memory = cs_compare_dup_counter_sentence (compare, CS_COUNTER_PROCESS_MEMORY);
  g_autofree char *rate = cs_compare_dup_counter_sentence (compare, CS_COUNTER_DATA_TRANSFER_RATE);
  g_autofree char *none = cs_compare_dup_counter_sentence (compare, CS_COUNTER_THREADS);
  CsStat pooled;

  /* Word for word as in the seed, but for the unit, which Copyscope spells one
   * way everywhere (the seed writes "MB/Sec"). */
  g_assert_cmpstr (cpu, ==,
                   "The average CPU Usage is better for Robocopy T1 (14.82 % vs. 30.42 %), "
                   "the minimum CPU Usage is better for Robocopy T2 (0.00 % vs. 7.00 %) and "
                   "the maximum CPU Usage is better for Robocopy T1 (21.00 % vs. 47.00 %).");
  g_assert_cmpstr (rate, ==,
                   "The average Data Transfer Rate is better for Robocopy T2 (170.65 MB/s vs. 128.48 MB/s), "
                   "the minimum Data Transfer Rate is better for Robocopy T1 (23.52 MB/s vs. 0.00 MB/s) and "
                   "the maximum Data Transfer Rate is better for Robocopy T2 (325.13 MB/s vs. 312.22 MB/s).");
  g_assert_cmpstr (memory, ==,
                   "The average Process Memory Used is better for Robocopy T1 (5.41 MB vs. 16.35 MB), "
                   "the minimum Process Memory Used is better for Robocopy T1 (5.30 MB vs. 8.27 MB) and "
                   "the maximum Process Memory Used is better for Robocopy T1 (6.25 MB vs. 19.47 MB).");
  g_assert_null (none);

  /* The seed's "Average: 149.56 MB/Sec Min: 0.00 MB/Sec Max: 325.13 MB/Sec". */
  g_assert_true (cs_compare_get_pooled (compare, CS_COUNTER_DATA_TRANSFER_RATE, &pooled));
  g_assert_cmpfloat_with_epsilon (pooled.avg, 149.565, 1e-9);
  g_assert_cmpfloat (pooled.min, ==, 0.0);
  g_assert_cmpfloat (pooled.max, ==, 325.13);
}

static CsRun *
constant_run (const char *label,
              double      rate,
              double      cpu)
{
  double avg[CS_N_COUNTERS];

  for (guint c = 0; c < CS_N_COUNTERS; c++)
    avg[c] = NAN;
  avg[CS_COUNTER_DATA_TRANSFER_RATE] = rate;
  avg[CS_COUNTER_CPU_USAGE] = cpu;

  return fixture_run_with_stats (label, avg, avg, avg);
}

static void
test_compare_ties (void)
{
  g_autoptr(CsRun) a = constant_run ("A", 100.0, 10.0);
  g_autoptr(CsRun) b = constant_run ("B", 100.4, 10.0);
  g_autoptr(CsCompare) compare = cs_compare_new ((CsRun *[]) { a, b }, 2, NULL);
  g_autofree char *verdict = cs_compare_dup_verdict (compare);
  g_autofree char *rate = cs_compare_dup_counter_sentence (compare, CS_COUNTER_DATA_TRANSFER_RATE);
  g_autofree char *cpu = cs_compare_dup_counter_sentence (compare, CS_COUNTER_CPU_USAGE);

  /* 0.4 % apart: a tie, stated as one. */
  g_assert_cmpint (cs_compare_get_counter (compare, CS_COUNTER_DATA_TRANSFER_RATE)->best[CS_COMPARE_AVG],
                   ==, CS_COMPARE_TIE);
  g_assert_cmpuint (cs_compare_get_n_ties (compare), ==, 2);
  g_assert_cmpuint (cs_compare_get_wins (compare, 0), ==, 0);
  g_assert_true (cs_compare_is_best (compare, CS_COUNTER_DATA_TRANSFER_RATE, CS_COMPARE_AVG, 0));
  g_assert_true (cs_compare_is_best (compare, CS_COUNTER_DATA_TRANSFER_RATE, CS_COMPARE_AVG, 1));
  g_assert_cmpstr (verdict, ==,
                   "According to the performance results, the runs are tied (within 0.5 %) in 2 out of 2 tests: "
                   "Data Transfer Rate and CPU Usage.");
  g_assert_cmpstr (rate, ==,
                   "The average Data Transfer Rate is about the same for both A and B (100.00 MB/s vs. 100.40 MB/s), "
                   "the minimum Data Transfer Rate is about the same for both A and B (100.00 MB/s vs. 100.40 MB/s) and "
                   "the maximum Data Transfer Rate is about the same for both A and B (100.00 MB/s vs. 100.40 MB/s).");
  g_assert_cmpstr (cpu, ==,
                   "The average CPU Usage is identical for both A and B (10.00 %), "
                   "the minimum CPU Usage is identical for both A and B (10.00 %) and "
                   "the maximum CPU Usage is identical for both A and B (10.00 %).");
}

static void
test_compare_three_runs (void)
{
  g_autoptr(CsRun) a = constant_run (NULL, 100.0, 30.0);
  g_autoptr(CsRun) b = constant_run ("fast", 150.0, 20.0);
  g_autoptr(CsRun) c = constant_run (NULL, 120.0, 25.0);
  const char * const labels[] = { NULL, NULL, "C", NULL };
  g_autoptr(CsCompare) compare = cs_compare_new ((CsRun *[]) { a, b, c }, 3, labels);
  g_autofree char *verdict = cs_compare_dup_verdict (compare);
  g_autofree char *rate = cs_compare_dup_counter_sentence (compare, CS_COUNTER_DATA_TRANSFER_RATE);

  g_assert_cmpstr (cs_compare_get_label (compare, 0), ==, "Run 1");
  g_assert_cmpstr (cs_compare_get_label (compare, 1), ==, "fast");
  g_assert_cmpstr (cs_compare_get_label (compare, 2), ==, "C");
  g_assert_cmpstr (verdict, ==,
                   "According to the performance results, fast achieves better results in 2 out of 2 tests "
                   "including: Data Transfer Rate and CPU Usage.");
  g_assert_true (g_str_has_prefix (rate, "The average Data Transfer Rate is better for fast "
                                         "(150.00 MB/s, vs. 100.00 MB/s for Run 1, 120.00 MB/s for C)"));
}

/* A copy of @files files and @bytes bytes that took @duration s with @threads
 * threads (changed to @later at half time when not 0), and counters that
 * favour it when @counters_favour. */
static CsRun *
timed_run (const char *label,
           double      duration,
           guint64     files,
           guint64     bytes,
           guint       threads,
           guint       later,
           gboolean    counters_favour)
{
  double avg[CS_N_COUNTERS];
  CsRunSettings settings = { 0 };
  CsTotals totals = { { { 0 } } };
  CsRun *run;

  for (guint c = 0; c < CS_N_COUNTERS; c++)
    avg[c] = NAN;
  /* The seed reviews' tally reads these; they say nothing of the time. */
  avg[CS_COUNTER_AVG_REQUEST_SIZE] = counters_favour ? 60 : 40;
  avg[CS_COUNTER_CPU_USAGE] = counters_favour ? 20 : 40;
  avg[CS_COUNTER_PROCESS_MEMORY] = counters_favour ? 5 : 16;
  run = fixture_run_with_stats (label, avg, avg, avg);

  settings.threads = threads;
  settings.interval_ms = 250;
  _cs_run_set_settings (run, &settings);
  _cs_run_set_duration (run, duration);
  totals.v[CS_CLASS_COPIED][CS_KIND_FILES] = files;
  totals.v[CS_CLASS_COPIED][CS_KIND_BYTES] = bytes;
  _cs_run_set_totals (run, &totals);
  if (later > 0)
    _cs_run_add_thread_change (run, duration / 2, threads, later, "user");

  return run;
}

/*
 * Copyscope's verdict leads with which run finished faster and by how much,
 * whatever the counters' tally says: 16 threads 3 times as fast as 1 is what
 * the comparison is about, though 1 thread "achieves better results" in the
 * seed reviews' terms (request size, CPU, memory).
 */
static void
test_compare_outcome (void)
{
  g_autoptr(CsRun) t1 = timed_run ("T1", 7.12, 5000, 61440000, 1, 0, TRUE);
  g_autoptr(CsRun) t2 = timed_run ("T2", 2.35, 5000, 61440000, 16, 0, FALSE);
  g_autoptr(CsCompare) compare = cs_compare_new ((CsRun *[]) { t1, t2 }, 2, NULL);
  g_autofree char *outcome = cs_compare_dup_outcome (compare);
  g_autofree char *tally = cs_compare_dup_verdict (compare);
  CsCompareOutcome o;

  cs_compare_get_outcome (compare, &o);
  g_assert_cmpint (o.fastest, ==, 1);
  g_assert_false (o.by_speed);
  g_assert_cmpfloat_with_epsilon (o.factor, 7.12 / 2.35, 1e-9);
  g_assert_cmpstr (outcome, ==,
                   "T2 finished faster: 2.35 s against 7.12 s for T1, 3.03 times as fast. "
                   "T1: 7.12 s, 8.6 MB/s, 702 files/s, 1 thread. "
                   "T2: 2.35 s, 26.1 MB/s, 2128 files/s, 16 threads.");
  /* The tally stays the seed reviews', as the detail. */
  g_assert_cmpuint (cs_compare_get_wins (compare, 0), ==, 3);
  g_assert_true (g_str_has_prefix (tally, "According to the performance results, T1 achieves better results in 3 out of 3 tests"));
}

static void
test_compare_outcome_cases (void)
{
  /* Within 0.5 %: neither is faster. */
  {
    g_autoptr(CsRun) a = timed_run ("A", 2.000, 100, 1000000, 4, 0, FALSE);
    g_autoptr(CsRun) b = timed_run ("B", 2.008, 100, 1000000, 8, 0, FALSE);
    g_autoptr(CsCompare) compare = cs_compare_new ((CsRun *[]) { a, b }, 2, NULL);
    g_autofree char *outcome = cs_compare_dup_outcome (compare);

    g_assert_cmpstr (outcome, ==,
                     "The runs finished in the same time, within 0.5 %: 2.00 s for A and 2.01 s for B. "
                     "A: 2.00 s, 0.50 MB/s, 50.0 files/s, 4 threads. "
                     "B: 2.01 s, 0.50 MB/s, 49.8 files/s, 8 threads.");
  }
  /* Different amounts: the speeds tell, not the durations. */
  {
    g_autoptr(CsRun) a = timed_run ("A", 7.0, 5000, 70000000, 1, 0, FALSE);
    g_autoptr(CsRun) b = timed_run ("B", 2.0, 3000, 40000000, 8, 0, FALSE);
    g_autoptr(CsCompare) compare = cs_compare_new ((CsRun *[]) { a, b }, 2, NULL);
    g_autofree char *outcome = cs_compare_dup_outcome (compare);
    CsCompareOutcome o;

    cs_compare_get_outcome (compare, &o);
    g_assert_true (o.by_speed);
    g_assert_cmpint (o.fastest, ==, 1);
    g_assert_true (g_str_has_prefix (outcome, "B copied faster: 20.0 MB/s against 10.0 MB/s for A, "
                                              "2.00 times the speed. The runs copied different amounts"));
  }
  /* Three runs, and a count that changed: its range and time-weighted mean. */
  {
    g_autoptr(CsRun) a = timed_run ("one", 9.0, 100, 1000000, 1, 0, FALSE);
    g_autoptr(CsRun) b = timed_run ("auto", 3.0, 100, 1000000, 4, 16, FALSE);
    g_autoptr(CsRun) c = timed_run ("eight", 4.5, 100, 1000000, 8, 0, FALSE);
    g_autoptr(CsCompare) compare = cs_compare_new ((CsRun *[]) { a, b, c }, 3, NULL);
    g_autofree char *outcome = cs_compare_dup_outcome (compare);

    g_assert_cmpstr (outcome, ==,
                     "auto finished fastest: 3.00 s against 9.00 s for one (3.00 times as fast), "
                     "4.50 s for eight (1.50 times as fast). "
                     "one: 9.00 s, 0.11 MB/s, 11.1 files/s, 1 thread. "
                     "auto: 3.00 s, 0.33 MB/s, 33.3 files/s, 4–16 threads (mean 10.0). "
                     "eight: 4.50 s, 0.22 MB/s, 22.2 files/s, 8 threads.");
  }
}

int
main (int   argc,
      char *argv[])
{
  setlocale (LC_ALL, "");
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/compare/seed-003/winners", test_compare_seed_winners);
  g_test_add_func ("/compare/seed-003/verdict", test_compare_seed_verdict);
  g_test_add_func ("/compare/seed-003/sentences", test_compare_seed_sentences);
  g_test_add_func ("/compare/ties", test_compare_ties);
  g_test_add_func ("/compare/three-runs", test_compare_three_runs);
  g_test_add_func ("/compare/outcome", test_compare_outcome);
  g_test_add_func ("/compare/outcome-cases", test_compare_outcome_cases);

  return g_test_run ();
}
