/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-phases-view"

#include "config.h"

#include <math.h>
#include <string.h>

#include <adwaita.h>

#include "copyscope-engine.h"
#include "cs-copy-page.h"
#include "cs-phase-breakdown.h"
#include "cs-phase-view.h"
#include "cs-run-private.h"
#include "cs-summary-page.h"
#include "cs-ui-test.h"

/*
 * "Where the time goes" in the window: the phase view on the copying page
 * and the summary, and the summary's breakdown, from records written with
 * the record's own writers (the engine's sampler calls the same ones). The
 * expected figures are worked out here from what was written.
 */

#define N_SAMPLES   80
#define INTERVAL    0.5
#define N_FILES     2000

typedef struct {
  double seconds[CS_PHASE_N];   /* the whole run's, as written */
} Written;

/* The share of each phase in a sample: 4 workers then 8 from 10 s, the
 * second four mostly waiting for work. */
static void
sample_phases (guint   i,
               guint   workers,
               double  out_seconds[CS_PHASE_N])
{
  double busy = MIN (workers, 4) * INTERVAL;
  double wobble = (i % 5) * 0.01;

  memset (out_seconds, 0, sizeof (double) * CS_PHASE_N);
  out_seconds[CS_PHASE_OPENING] = busy * (0.30 + wobble);
  out_seconds[CS_PHASE_READING] = busy * 0.10;
  out_seconds[CS_PHASE_WRITING] = busy * (0.25 - wobble);
  out_seconds[CS_PHASE_METADATA] = busy * 0.15;
  out_seconds[CS_PHASE_PUBLISHING] = busy * 0.15;
  out_seconds[CS_PHASE_LISTING] = busy * 0.05;
  out_seconds[CS_PHASE_WAITING] = (workers - MIN (workers, 4)) * INTERVAL * 0.8;
  out_seconds[CS_PHASE_FLUSHING] = (workers - MIN (workers, 4)) * INTERVAL * 0.2;
}

/* Adds to @run what a copy with phases records: samples, a thread change,
 * the time by phase, @n_lanes workers' lanes and latencies. */
static void
add_phases (CsRun   *run,
            guint    n_lanes,
            Written *written)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (42);
  CsLatencyHistogram histograms[CS_LATENCY_N] = { { { 0 } } };
  const double medians_us[CS_LATENCY_N] = { 900, 250, 300, 150, 700, 1100, 2000 };
  CsTotals totals = { { { 0 } } };

  if (written != NULL)
    memset (written, 0, sizeof *written);

  for (guint i = 1; i <= N_SAMPLES; i++)
    {
      CsSample sample = { 0 };
      double seconds[CS_PHASE_N];
      guint workers = i * INTERVAL <= 10.0 ? 4 : 8;

      sample.t = i * INTERVAL;
      sample.values[CS_COUNTER_WRITE_TRANSFER_RATE] = workers * 3.0 + (i % 3);
      sample.values[CS_COUNTER_READ_TRANSFER_RATE] = workers * 3.0 + (i % 4);
      sample.values[CS_COUNTER_DATA_REQUEST_RATE] = workers * 50.0;
      sample.values[CS_COUNTER_REQUEST_RATE] = workers * 160.0;
      sample.values[CS_COUNTER_THREADS] = workers;
      sample.files_done = i * N_FILES / N_SAMPLES;
      sample.bytes_done = sample.files_done * G_GUINT64_CONSTANT (30000);
      _cs_run_add_sample (run, &sample);

      sample_phases (i, workers, seconds);
      _cs_run_add_phase_sample (run, sample.t, seconds);
      for (guint ph = 0; ph < CS_PHASE_N && written != NULL; ph++)
        written->seconds[ph] += seconds[ph];
    }
  _cs_run_add_thread_change (run, 10.0, 4, 8, "user");
  _cs_run_set_duration (run, N_SAMPLES * INTERVAL);

  /* Each worker going round a small file's phases over the last 30 s. */
  for (guint w = 0; w < n_lanes; w++)
    {
      const CsPhase cycle[] = { CS_PHASE_WAITING, CS_PHASE_OPENING, CS_PHASE_READING,
                                CS_PHASE_WRITING, CS_PHASE_METADATA, CS_PHASE_PUBLISHING };
      g_autoptr(GArray) changes = g_array_new (FALSE, FALSE, sizeof (CsPhaseChange));
      double t = N_SAMPLES * INTERVAL - 30.0;

      for (guint c = 0; t < N_SAMPLES * INTERVAL; c++)
        {
          CsPhaseChange change = { t, cycle[c % G_N_ELEMENTS (cycle)] };

          g_array_append_val (changes, change);
          t += g_rand_double_range (rand, 0.05, 0.6);
        }
      _cs_run_add_phase_changes (run, w, (CsPhaseChange *) (gpointer) changes->data, changes->len);
    }

  for (guint k = 0; k < CS_LATENCY_N; k++)
    {
      for (guint i = 0; i < 1000; i++)
        cs_latency_histogram_add (&histograms[k],
                                  (guint64) (medians_us[k] * 1000 * g_rand_double_range (rand, 0.5, 1.5)));
      cs_latency_histogram_add (&histograms[k], (guint64) (medians_us[k] * 1000 * 20));
      _cs_run_add_latency (run, k, &histograms[k]);
    }

  totals.v[CS_CLASS_TOTAL][CS_KIND_FILES] = N_FILES;
  totals.v[CS_CLASS_COPIED][CS_KIND_FILES] = N_FILES;
  totals.v[CS_CLASS_TOTAL][CS_KIND_BYTES] = N_FILES * G_GUINT64_CONSTANT (30000);
  totals.v[CS_CLASS_COPIED][CS_KIND_BYTES] = N_FILES * G_GUINT64_CONSTANT (30000);
  _cs_run_set_totals (run, &totals);
}

static CsRun *
run_with_phases (guint    n_lanes,
                 Written *written)
{
  CsRun *run = cs_run_new ();
  CsRunSettings settings = { 0 };
  const char * const sources[] = { "/data/small-files", NULL };

  cs_run_set_label (run, "small files");
  _cs_run_set_sources (run, sources);
  _cs_run_set_destination (run, "/mnt/nas/backup");
  settings.threads = 4;
  settings.interval_ms = (guint) (INTERVAL * 1000);
  _cs_run_set_settings (run, &settings);
  _cs_run_set_started (run, G_GINT64_CONSTANT (1700000000) * G_USEC_PER_SEC);
  add_phases (run, n_lanes, written);
  _cs_run_set_outcome (run, "completed", NULL);

  return run;
}

/* A record from before the engine kept phases: samples, no phases. */
static CsRun *
run_without_phases (void)
{
  CsRun *run = cs_run_new ();

  for (guint i = 1; i <= 8; i++)
    {
      CsSample sample = { 0 };

      sample.t = i * 0.25;
      sample.values[CS_COUNTER_WRITE_TRANSFER_RATE] = 10;
      sample.values[CS_COUNTER_THREADS] = 4;
      _cs_run_add_sample (run, &sample);
    }
  _cs_run_set_duration (run, 2.0);
  _cs_run_set_outcome (run, "completed", NULL);

  return run;
}

static void
collect_labels (GtkWidget *widget,
                GString   *out)
{
  if (!gtk_widget_get_mapped (widget))
    return;
  if (GTK_IS_LABEL (widget))
    {
      g_string_append (out, gtk_label_get_text (GTK_LABEL (widget)));
      g_string_append_c (out, '\n');
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_labels (child, out);
}

/* The text a user sees in @widget, a label a line. */
static char *
shown_text (gpointer widget)
{
  GString *out = g_string_new (NULL);

  collect_labels (GTK_WIDGET (widget), out);
  return g_string_free (out, FALSE);
}

static GtkWindow *
window_with (GtkWidget *child)
{
  GtkWindow *window = GTK_WINDOW (gtk_window_new ());

  gtk_window_set_default_size (window, 800, 500);
  gtk_window_set_child (window, child);
  gtk_window_present (window);
  cs_ui_iterate ();

  return window;
}

static void
destroy_window (GtkWindow *window)
{
  gtk_window_destroy (window);
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/* A record with phases: the stack, a lane per worker, and a legend of the
 * phases that took time, by their labels. */
static void
test_view_shows_phases (void)
{
  g_autoptr(CsRun) run = run_with_phases (8, NULL);
  CsPhaseView *view = g_object_new (CS_TYPE_PHASE_VIEW, NULL);
  GtkWindow *window = window_with (GTK_WIDGET (view));
  g_autofree char *text = NULL;

  cs_phase_view_set_run (view, run);
  cs_ui_iterate ();

  g_assert_true (cs_phase_view_get_has_data (view));
  g_assert_cmpuint (cs_phase_view_get_n_lanes (view), ==, 8);

  text = shown_text (view);
  g_test_message ("shown:\n%s", text);
  g_assert_null (strstr (text, "No phase data"));
  for (guint ph = 0; ph < CS_PHASE_N; ph++)
    {
      /* What took time is in the legend; what took none is not. */
      gboolean took_time = ph != CS_PHASE_DELETING && ph != CS_PHASE_LIMITED
                           && ph != CS_PHASE_QUESTION && ph != CS_PHASE_PAUSED;
      g_autofree char *line = g_strdup_printf ("\n%s\n", cs_phase_get_label (ph));
      g_autofree char *padded = g_strdup_printf ("\n%s", text);

      g_assert_true ((strstr (padded, line) != NULL) == took_time);
    }
  g_assert_nonnull (strstr (text, "One row per worker, the last 30.0 s"));

  /* Set to nothing, it says so. */
  cs_phase_view_set_run (view, NULL);
  cs_ui_iterate ();
  g_assert_false (cs_phase_view_get_has_data (view));
  g_assert_cmpuint (cs_phase_view_get_n_lanes (view), ==, 0);

  destroy_window (window);
}

/* A busy worker's lane keeps only its newest changes (CS_PHASE_LANE_MAX_CHANGES),
 * so lanes begin at different times: the lanes show the span they all
 * cover, and say how long it is, rather than rows that start anywhere in a
 * 30-second window. */
static void
test_view_lanes_span (void)
{
  g_autoptr(CsRun) run = run_with_phases (4, NULL);
  CsPhaseView *view = g_object_new (CS_TYPE_PHASE_VIEW, NULL);
  GtkWindow *window = window_with (GTK_WIDGET (view));
  g_autoptr(GArray) lanes = NULL;
  g_autofree char *text = NULL;
  double end = N_SAMPLES * INTERVAL;

  /* Worker 4 changed phase every 2.5 ms: its 1,024 newest changes cover
   * the last 2.56 s. */
  for (guint c = 0; c < 2000; c++)
    {
      CsPhaseChange change = { end - 5.0 + c * 0.0025, c % 2 ? CS_PHASE_WRITING : CS_PHASE_OPENING };

      _cs_run_add_phase_changes (run, 4, &change, 1);
    }
  lanes = cs_run_dup_phase_lanes (run);
  g_assert_cmpuint (lanes->len, ==, 5);

  cs_phase_view_set_run (view, run);
  cs_ui_iterate ();
  g_assert_cmpuint (cs_phase_view_get_n_lanes (view), ==, 5);
  text = shown_text (view);
  g_test_message ("shown:\n%s", text);
  g_assert_null (strstr (text, "the last 30"));
  g_assert_nonnull (strstr (text, "One row per worker, the last 2.5"));

  destroy_window (window);
}

/* Where run_delay was measured: the share above the chart and the dashed
 * line in the legend; where not (this record before it was set), neither. */
static void
test_view_runnable (void)
{
  Written written;
  g_autoptr(CsRun) run = run_with_phases (8, &written);
  CsPhaseView *view = g_object_new (CS_TYPE_PHASE_VIEW, NULL);
  GtkWindow *window = window_with (GTK_WIDGET (view));
  g_autofree char *before = NULL;
  g_autofree char *text = NULL;
  g_autofree char *expected = NULL;
  double sum = 0;

  cs_phase_view_set_run (view, run);
  cs_ui_iterate ();
  before = shown_text (view);
  g_assert_null (strstr (before, "processor"));

  /* The last sample: 3 of its 4 worker-seconds waiting to run. */
  _cs_run_set_phase_runnable (run, 3.0);
  for (guint ph = 0; ph < CS_PHASE_N; ph++)
    sum += written.seconds[ph];
  expected = g_strdup_printf ("\nReady, waiting for a processor: %.0f %% of worker time\n",
                              100.0 * 3.0 / sum);
  cs_phase_view_refresh (view, TRUE);
  cs_ui_iterate ();
  text = shown_text (view);
  g_test_message ("shown:\n%s", text);
  g_assert_nonnull (strstr (text, expected));
  g_assert_nonnull (strstr (text, "\nReady, waiting for a processor\n"));

  gtk_window_set_default_size (window, 800, 420);
  cs_ui_iterate ();
  cs_ui_screenshot (window, "phases-runnable.png");
  destroy_window (window);
}

/* An old record: a sentence, no chart, no legend, no lanes. */
static void
test_view_no_phase_data (void)
{
  g_autoptr(CsRun) run = run_without_phases ();
  CsPhaseView *view = g_object_new (CS_TYPE_PHASE_VIEW, NULL);
  GtkWindow *window = window_with (GTK_WIDGET (view));
  g_autofree char *text = NULL;

  cs_phase_view_set_run (view, run);
  cs_ui_iterate ();

  g_assert_false (cs_phase_view_get_has_data (view));
  g_assert_cmpuint (cs_phase_view_get_n_lanes (view), ==, 0);
  text = shown_text (view);
  g_assert_cmpstr (text, ==, "No phase data for this copy\n");

  destroy_window (window);
}

/* More than 64 workers: the stack, and a sentence instead of the lanes. */
static void
test_view_many_workers (void)
{
  g_autoptr(CsRun) run = run_with_phases (CS_PHASE_VIEW_MAX_LANES + 16, NULL);
  g_autoptr(CsRun) at_limit = run_with_phases (CS_PHASE_VIEW_MAX_LANES, NULL);
  CsPhaseView *view = g_object_new (CS_TYPE_PHASE_VIEW, NULL);
  GtkWindow *window = window_with (GTK_WIDGET (view));
  g_autofree char *text = NULL;

  cs_phase_view_set_run (view, at_limit);
  cs_ui_iterate ();
  g_assert_cmpuint (cs_phase_view_get_n_lanes (view), ==, CS_PHASE_VIEW_MAX_LANES);

  cs_phase_view_set_run (view, run);
  cs_ui_iterate ();
  g_assert_true (cs_phase_view_get_has_data (view));
  g_assert_cmpuint (cs_phase_view_get_n_lanes (view), ==, 0);
  text = shown_text (view);
  g_assert_nonnull (strstr (text, "Lanes are drawn for copies of up to 64 workers"));

  destroy_window (window);
}

static gboolean
has_lanes (gpointer data)
{
  return cs_phase_view_get_n_lanes (data) == 3;
}

/* The copying page: the job's run read at once, and again as samples
 * arrive (lanes appear as the workers' changes do). */
static void
test_copy_page_live (void)
{
  g_autoptr(CsJob) job = cs_job_new ();
  CsRun *run = cs_job_get_run (job);
  CsWindow *window = cs_ui_window_new ();
  CsCopyPage *page = (CsCopyPage *) cs_ui_find (window, CS_TYPE_COPY_PAGE);
  CsPhaseView *view;
  const CsPhaseChange change = { 1.0, CS_PHASE_WRITING };
  CsSample sample = { 0 };

  g_assert_nonnull (page);
  view = (CsPhaseView *) cs_ui_find (page, CS_TYPE_PHASE_VIEW);
  g_assert_nonnull (view);

  cs_copy_page_set_job (page, job);
  gtk_stack_set_visible_child_name (cs_ui_page_stack (window), "copying");
  cs_ui_iterate ();
  g_assert_false (cs_phase_view_get_has_data (view));
  g_assert_nonnull (cs_ui_find_label (page, "No phase data for this copy"));

  add_phases (run, 2, NULL);
  _cs_run_add_phase_changes (run, 2, &change, 1);
  sample.t = N_SAMPLES * INTERVAL + INTERVAL;
  g_signal_emit_by_name (job, "sample", &sample);
  /* At most twice a second: the next sample after that reads again. */
  while (!has_lanes (view))
    {
      g_usleep (G_USEC_PER_SEC / 10);
      sample.t += 0.1;
      g_signal_emit_by_name (job, "sample", &sample);
      cs_ui_iterate ();
      g_assert_cmpfloat (sample.t, <, N_SAMPLES * INTERVAL + 10);
    }
  g_assert_true (cs_phase_view_get_has_data (view));

  gtk_window_set_default_size (GTK_WINDOW (window), 1100, 1000);
  cs_ui_screenshot (window, "phases-copying.png");
  cs_copy_page_set_job (page, NULL);
  cs_ui_window_destroy (window);
}

/* The summary: the view, and the breakdown with each phase's share and
 * the percentiles per request kind; an old record's summary has neither. */
static void
test_summary_breakdown (void)
{
  Written written;
  g_autoptr(CsRun) run = run_with_phases (8, &written);
  g_autoptr(CsRun) old = run_without_phases ();
  CsWindow *window = cs_ui_window_new ();
  CsSummaryPage *summary = (CsSummaryPage *) cs_ui_find (window, CS_TYPE_SUMMARY_PAGE);
  CsPhaseBreakdown *breakdown;
  CsPhaseView *view;
  g_autofree char *text = NULL;
  g_autofree char *old_text = NULL;
  g_autofree char *writing = NULL;
  g_autofree char *per_file = NULL;
  g_autofree char *open_max = NULL;
  CsLatencyHistogram open;
  double sum = 0;

  g_assert_nonnull (summary);
  breakdown = (CsPhaseBreakdown *) cs_ui_find (summary, CS_TYPE_PHASE_BREAKDOWN);
  view = (CsPhaseView *) cs_ui_find (summary, CS_TYPE_PHASE_VIEW);
  g_assert_nonnull (breakdown);
  g_assert_nonnull (view);

  cs_summary_page_set_run (summary, run);
  gtk_stack_set_visible_child_name (cs_ui_page_stack (window), "summary");
  cs_ui_iterate ();

  g_assert_true (cs_phase_view_get_has_data (view));
  g_assert_cmpuint (cs_phase_view_get_n_lanes (view), ==, 8);
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (breakdown)));

  for (guint ph = 0; ph < CS_PHASE_N; ph++)
    sum += written.seconds[ph];
  writing = g_strdup_printf ("%.0f %%", 100.0 * written.seconds[CS_PHASE_WRITING] / sum);
  per_file = _cs_phase_breakdown_format_ns (written.seconds[CS_PHASE_WRITING] * 1e9 / N_FILES);
  g_assert_true (cs_run_get_latency (run, CS_LATENCY_OPEN, &open));
  open_max = _cs_phase_breakdown_format_ns (open.max_ns);

  text = shown_text (breakdown);
  g_test_message ("breakdown:\n%s", text);
  g_assert_nonnull (strstr (text, "Worker-Time by Phase"));
  g_assert_nonnull (strstr (text, "\nWriting\n"));
  g_assert_nonnull (strstr (text, writing));
  g_assert_nonnull (strstr (text, per_file));
  g_assert_nonnull (strstr (text, "Request Latency"));
  g_assert_nonnull (strstr (text, "p50\np90\np99\nMax\n"));
  g_assert_nonnull (strstr (text, "\nSet times\n"));
  g_assert_nonnull (strstr (text, open_max));
  /* A phase that took no time is not a row of zeros. */
  g_assert_null (strstr (text, "\nPaused\n"));

  {
    g_autofree char *ns = _cs_phase_breakdown_format_ns (850);
    g_autofree char *ms = _cs_phase_breakdown_format_ns (5.8e6);

    g_assert_cmpstr (ns, ==, "850 ns");
    g_assert_cmpstr (ms, ==, "5.8 ms");
  }

  cs_ui_screenshot (window, "phases-summary.png");

  cs_summary_page_set_run (summary, old);
  cs_ui_iterate ();
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (breakdown)));
  g_assert_false (cs_phase_view_get_has_data (view));
  old_text = shown_text (summary);
  g_assert_nonnull (strstr (old_text, "No phase data for this copy"));
  g_assert_null (strstr (old_text, "Request Latency"));

  cs_ui_window_destroy (window);
}

int
main (int   argc,
      char *argv[])
{
  cs_ui_test_init (&argc, &argv);

  g_test_add_func ("/phases/view/shows-phases", test_view_shows_phases);
  g_test_add_func ("/phases/view/no-phase-data", test_view_no_phase_data);
  g_test_add_func ("/phases/view/many-workers", test_view_many_workers);
  g_test_add_func ("/phases/view/runnable", test_view_runnable);
  g_test_add_func ("/phases/view/lanes-span", test_view_lanes_span);
  g_test_add_func ("/phases/copy-page/live", test_copy_page_live);
  g_test_add_func ("/phases/summary/breakdown", test_summary_breakdown);

  return g_test_run ();
}
