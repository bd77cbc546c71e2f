/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-pages"

#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include <adwaita.h>

#include "copyscope-engine.h"
#include "cs-check-page.h"
#include "cs-compare-page.h"
#include "cs-copy-page.h"
#include "cs-counter-view.h"
#include "cs-demo-page.h"
#include "cs-format.h"
#include "cs-generate-dialog.h"
#include "cs-history.h"
#include "cs-history-page.h"
#include "cs-history-row.h"
#include "cs-run-private.h"
#include "cs-setup-page.h"
#include "cs-summary-page.h"
#include "cs-sweep-chart.h"
#include "cs-sweep-page.h"
#include "cs-test-tree.h"
#include "cs-throughput-graph.h"
#include "cs-ui-test.h"

/*
 * The window's pages beyond one copy, driven in-process: History against a
 * temporary data folder, a comparison, a sweep and the demonstration end to
 * end on tiny generated sets, and the Auto switch against a running job.
 */

#define WAIT_SECONDS 120

static CsHistoryPage *
history_page (CsWindow *window)
{
  return (CsHistoryPage *) cs_ui_find (window, CS_TYPE_HISTORY_PAGE);
}

static CsComparePage *
compare_page (CsWindow *window)
{
  return (CsComparePage *) cs_ui_find (window, CS_TYPE_COMPARE_PAGE);
}

static CsSweepPage *
sweep_page (CsWindow *window)
{
  return (CsSweepPage *) cs_ui_find (window, CS_TYPE_SWEEP_PAGE);
}

static CsDemoPage *
demo_page (CsWindow *window)
{
  return (CsDemoPage *) cs_ui_find (window, CS_TYPE_DEMO_PAGE);
}

static CsSummaryPage *
summary_page (CsWindow *window)
{
  return (CsSummaryPage *) cs_ui_find (window, CS_TYPE_SUMMARY_PAGE);
}

static CsThreadSlider *
setup_slider (CsWindow *window)
{
  return cs_setup_page_get_thread_slider (CS_SETUP_PAGE (cs_ui_find (window, CS_TYPE_SETUP_PAGE)));
}

static CsThreadSlider *
live_slider (CsWindow *window)
{
  return cs_copy_page_get_thread_slider (CS_COPY_PAGE (cs_ui_find (window, CS_TYPE_COPY_PAGE)));
}

static void
generate (const char *dir,
          guint64     n_files,
          guint64     size)
{
  g_autoptr(GError) error = NULL;

  cs_generate_files_sync (dir, n_files, size, 7, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
}

/* A finished run with steady counters: @rate MB/s written, @cpu % CPU. */
static CsRun *
synthetic_run (const char *label,
               gint64      started,
               guint       threads,
               double      rate,
               double      cpu)
{
  const char *sources[] = { "/data/photos", NULL };
  CsRunSettings settings = { 0 };
  CsTotals totals = { 0 };
  CsRun *run = cs_run_new ();

  settings.threads = threads;
  settings.interval_ms = 250;
  _cs_run_set_kind (run, "copy");
  _cs_run_set_sources (run, sources);
  _cs_run_set_destination (run, "/mnt/nas/backup");
  _cs_run_set_settings (run, &settings);
  _cs_run_set_started (run, started);
  _cs_run_set_duration (run, 10.0);

  for (guint i = 0; i < 40; i++)
    {
      CsSample sample = { 0 };
      double wobble = (double) (i % 4) - 1.5;

      sample.t = i * 0.25;
      sample.values[CS_COUNTER_REQUEST_RATE] = rate * 40 + wobble;
      sample.values[CS_COUNTER_DATA_REQUEST_RATE] = rate * 16 + wobble;
      sample.values[CS_COUNTER_READ_REQUEST_RATE] = rate * 8 + wobble;
      sample.values[CS_COUNTER_WRITE_REQUEST_RATE] = rate * 8 + wobble;
      sample.values[CS_COUNTER_DATA_TRANSFER_RATE] = rate * 2 + wobble;
      sample.values[CS_COUNTER_READ_TRANSFER_RATE] = rate + wobble;
      sample.values[CS_COUNTER_WRITE_TRANSFER_RATE] = rate + wobble;
      sample.values[CS_COUNTER_FILE_RATE] = rate / 2 + wobble;
      sample.values[CS_COUNTER_AVG_REQUEST_SIZE] = 128;
      sample.values[CS_COUNTER_AVG_REQUEST_TIME] = 10.0 / rate;
      sample.values[CS_COUNTER_CPU_USAGE] = cpu + wobble;
      sample.values[CS_COUNTER_PROCESS_CPU_USAGE] = cpu / 2 + wobble;
      sample.values[CS_COUNTER_PROCESS_MEMORY] = 40 + cpu;
      sample.values[CS_COUNTER_THREADS] = threads;
      sample.files_done = (guint64) (i * rate / 8);
      sample.bytes_done = (guint64) (i * rate * 250000);
      _cs_run_add_sample (run, &sample);
    }

  totals.v[CS_CLASS_TOTAL][CS_KIND_FILES] = totals.v[CS_CLASS_COPIED][CS_KIND_FILES] = 2701;
  totals.v[CS_CLASS_TOTAL][CS_KIND_BYTES] = totals.v[CS_CLASS_COPIED][CS_KIND_BYTES] = (guint64) (rate * 10e6);
  _cs_run_set_totals (run, &totals);
  _cs_run_set_outcome (run, "completed", NULL);
  cs_run_set_label (run, label);

  return run;
}

static char *
isolate_user_dirs (void)
{
  char *home = cs_test_tree_make_tmp ();
  g_autofree char *data = g_build_filename (home, "data", NULL);
  g_autofree char *cache = g_build_filename (home, "cache", NULL);
  g_autofree char *config = g_build_filename (home, "config", NULL);

  g_setenv ("XDG_DATA_HOME", data, TRUE);
  g_setenv ("XDG_CACHE_HOME", cache, TRUE);
  g_setenv ("XDG_CONFIG_HOME", config, TRUE);

  return home;
}

/* Each test starts with an empty history. */
static void
clear_history (void)
{
  g_autofree char *dir = cs_history_get_dir ();

  cs_test_tree_remove (dir);
}

/* A day-long copy, 345,600 samples at 250 ms: speed that sags every few
 * hours and a thread count changed every four. */
static CsRun *
day_run (gint64 started)
{
  const char *sources[] = { "/srv/old-nas/projects", NULL };
  CsRunSettings settings = { 0 };
  CsTotals totals = { 0 };
  CsRun *run = cs_run_new ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (24);
  guint threads = 8;

  settings.threads = threads;
  settings.interval_ms = 250;
  _cs_run_set_sources (run, sources);
  _cs_run_set_destination (run, "/mnt/new-nas/projects");
  _cs_run_set_settings (run, &settings);
  _cs_run_set_started (run, started);
  _cs_run_set_duration (run, 86400.0);

  for (guint i = 0; i < 345600; i++)
    {
      CsSample sample = { 0 };
      double t = (i + 1) * 0.25;
      double level = (threads == 16 ? 1.4 : 1.0) * (0.8 + 0.2 * cos (t / 7200.0 * G_PI));
      double write = level * (90 + g_rand_double_range (rand, -35, 35));

      if (i > 0 && i % 57600 == 0)
        {
          guint to = threads == 8 ? 16 : 8;

          _cs_run_add_thread_change (run, t, threads, to, "user");
          threads = to;
        }
      sample.t = t;
      sample.values[CS_COUNTER_WRITE_TRANSFER_RATE] = write;
      sample.values[CS_COUNTER_READ_TRANSFER_RATE] = write * 1.02;
      sample.values[CS_COUNTER_DATA_TRANSFER_RATE] = write * 2.02;
      sample.values[CS_COUNTER_DATA_REQUEST_RATE] = write * 16;
      sample.values[CS_COUNTER_REQUEST_RATE] = write * 22 + g_rand_double_range (rand, 0, 300);
      sample.values[CS_COUNTER_FILE_RATE] = write / 2.5;
      sample.values[CS_COUNTER_THREADS] = threads;
      sample.files_done = (guint64) (t * 36);
      sample.bytes_done = (guint64) (t * 9e7);
      _cs_run_add_sample (run, &sample);
    }

  totals.v[CS_CLASS_TOTAL][CS_KIND_FILES] = totals.v[CS_CLASS_COPIED][CS_KIND_FILES] = 3110400;
  totals.v[CS_CLASS_TOTAL][CS_KIND_BYTES] = totals.v[CS_CLASS_COPIED][CS_KIND_BYTES] = (guint64) 7.776e12;
  _cs_run_set_totals (run, &totals);
  _cs_run_set_outcome (run, "completed", NULL);
  cs_run_set_label (run, "Old NAS → new NAS");

  return run;
}

/* Whether a label under @widget shows text selected. */
static gboolean
any_label_selected (GtkWidget *widget)
{
  int start, end;

  if (GTK_IS_LABEL (widget) &&
      gtk_label_get_selection_bounds (GTK_LABEL (widget), &start, &end) && start != end)
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (any_label_selected (child))
      return TRUE;
  return FALSE;
}

/* The summary of a day-long copy opens from the history: its whole record
 * read then (the list holds headers), drawn from its buckets. */
static void
test_day_summary (void)
{
  gint64 now = g_get_real_time ();
  g_autoptr(CsRun) day = day_run (now - (gint64) 90000 * G_USEC_PER_SEC);
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *duration = NULL;
  CsHistoryRow *row;
  CsRun *shown;
  CsWindow *window;

  clear_history ();
  path = cs_history_save (day, &error);
  g_assert_no_error (error);

  window = cs_ui_window_new ();
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-history", NULL);
  g_assert_cmpuint (cs_history_page_get_n_runs (history_page (window)), ==, 1);
  row = cs_history_page_get_run_row (history_page (window), 0);
  g_assert_true (cs_run_is_header (cs_history_row_get_run (row)));
  duration = cs_figure_format_localized (CS_FIGURE_DURATION, 86400.0);
  g_assert_nonnull (cs_ui_find_label (row, duration));

  g_signal_emit_by_name (row, "activate");
  cs_ui_iterate ();
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "summary");
  shown = cs_summary_page_get_run (summary_page (window));
  g_assert_false (cs_run_is_header (shown));
  g_assert_cmpuint (cs_run_get_n_samples (shown), ==, 345600);
  g_assert_nonnull (cs_ui_find_label (window, duration));
  /* The focus that came with the row lands on a button, not on the
   * sentences: a selectable label given the focus selects all its text. */
  g_assert_false (any_label_selected (GTK_WIDGET (summary_page (window))));
  g_assert_true (GTK_IS_BUTTON (gtk_root_get_focus (GTK_ROOT (window))));
  cs_ui_screenshot (window, "summary-24h.png");

  cs_ui_window_destroy (window);
}

static void
test_history (void)
{
  gint64 now = g_get_real_time ();
  g_autoptr(CsRun) t1 = synthetic_run ("T1", now - (gint64) 3600 * G_USEC_PER_SEC, 1, 80, 20);
  g_autoptr(CsRun) t2 = synthetic_run ("T2", now - (gint64) 1800 * G_USEC_PER_SEC, 2, 120, 30);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) entries = NULL;
  g_autoptr(CsRun) loaded = NULL;
  g_autofree char *path1 = NULL;
  g_autofree char *path2 = NULL;
  g_autofree char *label = NULL;
  CsHistoryRow *row;
  GtkWidget *undo;
  CsWindow *window;

  clear_history ();
  path1 = cs_history_save (t1, &error);
  g_assert_no_error (error);
  path2 = cs_history_save (t2, &error);
  g_assert_no_error (error);

  window = cs_ui_window_new ();
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-history", NULL);
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "history");
  g_assert_cmpuint (cs_history_page_get_n_runs (history_page (window)), ==, 2);
  g_assert_true (gtk_widget_get_visible (cs_ui_find_button (window, "Back")));

  /* Newest first: T2, then T1. */
  row = cs_history_page_get_run_row (history_page (window), 0);
  g_assert_cmpstr (cs_run_get_id (cs_history_row_get_run (row)), ==, cs_run_get_id (t2));
  cs_history_row_rename (row, "Two threads");
  loaded = cs_history_load (cs_run_get_id (t2), &error);
  g_assert_no_error (error);
  label = cs_run_dup_label (loaded);
  g_assert_cmpstr (label, ==, "Two threads");

  /* Both chosen → the comparison, oldest first. */
  cs_history_row_set_chosen (row, TRUE);
  cs_history_row_set_chosen (cs_history_page_get_run_row (history_page (window), 1), TRUE);
  cs_ui_screenshot (window, "10-history.png");
  cs_history_page_compare (history_page (window));
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "compare");
  g_assert_true (g_str_has_prefix (cs_compare_page_get_labels (compare_page (window))[0], "T1"));
  g_assert_nonnull (strstr (cs_compare_page_get_verdict (compare_page (window)), "Two threads"));

  gtk_widget_activate_action (GTK_WIDGET (window), "win.go-back", NULL);
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "history");

  /* Opening shows the run on the summary page. */
  g_signal_emit_by_name (cs_history_page_get_run_row (history_page (window), 1), "activate");
  cs_ui_iterate ();
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "summary");
  g_assert_cmpstr (cs_run_get_id (cs_summary_page_get_run (summary_page (window))), ==, cs_run_get_id (t1));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.go-back", NULL);
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "history");

  /* Delete takes the file away at once; the window's toast offers Undo,
   * which saves it again. */
  cs_history_row_delete (cs_history_page_get_run_row (history_page (window), 0));
  g_assert_cmpuint (cs_history_page_get_n_runs (history_page (window)), ==, 1);
  g_assert_false (g_file_test (path2, G_FILE_TEST_EXISTS));
  entries = cs_history_list (NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (entries->len, ==, 1);
  g_clear_pointer (&entries, g_ptr_array_unref);
  cs_ui_iterate ();
  undo = cs_ui_find_button (window, "Undo");
  g_assert_nonnull (undo);
  g_signal_emit_by_name (undo, "clicked");
  cs_ui_iterate ();
  entries = cs_history_list (NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (entries->len, ==, 2);
  g_assert_true (g_file_test (path2, G_FILE_TEST_EXISTS));

  cs_ui_window_destroy (window);
}

typedef struct
{
  CsWindow *window;
  guint     n_runs;
} RunsWait;

static gboolean
history_filled (gpointer data)
{
  RunsWait *wait = data;

  return cs_history_page_get_run_row (history_page (wait->window), wait->n_runs - 1) != NULL;
}

/* The page is made from the history index alone: a label changed in the index,
 * and in no record, is what its row shows, for the first rows made at once and
 * the rest filled in while idle. */
static void
test_history_from_index (void)
{
  gint64 now = g_get_real_time ();
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = cs_history_get_dir ();
  g_autofree char *index = g_build_filename (dir, ".index", NULL);
  g_autofree char *text = NULL;
  RunsWait wait = { NULL, 40 };
  const char *marks[] = { "R39", "R00" };
  gsize len = 0;

  clear_history ();
  for (guint i = 0; i < wait.n_runs; i++)
    {
      g_autofree char *label = g_strdup_printf ("R%02u", i);
      g_autoptr(CsRun) run = synthetic_run (label, now - (gint64) (wait.n_runs - i) * 60 * G_USEC_PER_SEC,
                                            1 + i % 4, 50, 10);
      g_autofree char *path = cs_history_save (run, &error);

      g_assert_no_error (error);
    }
  g_ptr_array_unref (cs_history_list (NULL, &error));
  g_assert_no_error (error);

  /* The newest run's label and the oldest's, in the index only. */
  g_assert_true (g_file_get_contents (index, &text, &len, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (marks); i++)
    {
      char *found = memmem (text, len, marks[i], strlen (marks[i]) + 1);

      g_assert_nonnull (found);
      found[0] = 'X';
    }
  g_assert_true (g_file_set_contents (index, text, len, NULL));

  wait.window = cs_ui_window_new ();
  gtk_widget_activate_action (GTK_WIDGET (wait.window), "win.show-history", NULL);
  g_assert_cmpuint (cs_history_page_get_n_runs (history_page (wait.window)), ==, wait.n_runs);
  g_assert_nonnull (cs_ui_find_label (cs_history_page_get_run_row (history_page (wait.window), 0), "X39"));
  g_assert_true (cs_ui_wait_until (history_filled, &wait, WAIT_SECONDS));
  g_assert_nonnull (cs_ui_find_label (cs_history_page_get_run_row (history_page (wait.window), wait.n_runs - 1),
                                      "X00"));
  g_assert_nonnull (cs_ui_find_label (cs_history_page_get_run_row (history_page (wait.window), 1), "R38"));

  cs_ui_window_destroy (wait.window);
}

static gboolean
history_has_runs (gpointer data)
{
  RunsWait *wait = data;

  return cs_history_page_get_n_runs (history_page (wait->window)) == wait->n_runs;
}

/* Runs saved while History is open (by the CLI) appear; chosen rows stay chosen. */
static void
test_history_watch (void)
{
  gint64 now = g_get_real_time ();
  g_autoptr(CsRun) t1 = synthetic_run ("T1", now - (gint64) G_USEC_PER_SEC * 120, 1, 50, 10);
  g_autoptr(CsRun) t2 = synthetic_run ("T2", now - (gint64) G_USEC_PER_SEC * 60, 2, 100, 25);
  g_autoptr(CsRun) t3 = synthetic_run ("T3", now, 4, 150, 30);
  g_autoptr(GError) error = NULL;
  g_autofree char *path1 = NULL;
  g_autofree char *path2 = NULL;
  g_autofree char *path3 = NULL;
  RunsWait wait;
  CsWindow *window;

  clear_history ();
  window = cs_ui_window_new ();
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-history", NULL);
  g_assert_cmpuint (cs_history_page_get_n_runs (history_page (window)), ==, 0);

  wait.window = window;
  path1 = cs_history_save (t1, &error);
  g_assert_no_error (error);
  wait.n_runs = 1;
  g_assert_true (cs_ui_wait_until (history_has_runs, &wait, WAIT_SECONDS));

  path2 = cs_history_save (t2, &error);
  g_assert_no_error (error);
  wait.n_runs = 2;
  g_assert_true (cs_ui_wait_until (history_has_runs, &wait, WAIT_SECONDS));

  /* T1 chosen, T3 arrives: T1 is still chosen, now below two. */
  cs_history_row_set_chosen (cs_history_page_get_run_row (history_page (window), 1), TRUE);
  path3 = cs_history_save (t3, &error);
  g_assert_no_error (error);
  wait.n_runs = 3;
  g_assert_true (cs_ui_wait_until (history_has_runs, &wait, WAIT_SECONDS));
  g_assert_true (cs_history_row_get_chosen (cs_history_page_get_run_row (history_page (window), 2)));
  g_assert_false (cs_history_row_get_chosen (cs_history_page_get_run_row (history_page (window), 0)));

  /* Deleted elsewhere, gone here. */
  g_assert_cmpint (g_unlink (path2), ==, 0);
  wait.n_runs = 2;
  g_assert_true (cs_ui_wait_until (history_has_runs, &wait, WAIT_SECONDS));

  cs_ui_window_destroy (window);
}

static void
test_compare (void)
{
  gint64 now = g_get_real_time ();
  g_autoptr(CsRun) t1 = synthetic_run ("T1", now - (gint64) 60 * G_USEC_PER_SEC, 1, 50, 10);
  g_autoptr(CsRun) t2 = synthetic_run ("T2", now, 2, 100, 25);
  CsRun *runs[] = { t1, t2 };
  const char *verdict;
  CsWindow *window = cs_ui_window_new ();

  cs_compare_page_set_runs (compare_page (window), runs, 2, NULL);
  gtk_stack_set_visible_child_name (cs_ui_page_stack (window), "compare");

  verdict = cs_compare_page_get_verdict (compare_page (window));
  g_assert_nonnull (strstr (verdict, "T2 achieves better results in"));
  g_assert_nonnull (strstr (verdict, "On the other hand"));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (compare_page (window))));
  cs_ui_screenshot (window, "11-compare.png");

  cs_ui_window_destroy (window);
}

/* A check against a checksum list while it runs: the files checked of
 * those listed, the bytes and the rate, the differences so far, and the
 * reading on the graph. */
static void
test_check_page (void)
{
  CsWindow *window = cs_ui_window_new ();
  CsCheckPage *page = (CsCheckPage *) cs_ui_find (window, CS_TYPE_CHECK_PAGE);
  GtkProgressBar *bar;
  CsManifestCheck so_far = { 0 };
  CsSample sample = { 0 };

  g_assert_nonnull (page);
  cs_check_page_start (page, "/srv/backup/SUMS.xxh128", "/srv/backup");
  gtk_stack_set_visible_child_name (cs_ui_page_stack (window), "checking");
  g_assert_nonnull (cs_ui_find_label (page, "/srv/backup/SUMS.xxh128 → /srv/backup"));
  for (guint i = 1; i <= 12; i++)
    {
      sample.t = i * 0.25;
      sample.files_done = i * 400;
      sample.bytes_done = (guint64) i * 120000000;
      sample.values[CS_COUNTER_READ_TRANSFER_RATE] = 480 + (i % 3) * 10;
      sample.values[CS_COUNTER_DATA_TRANSFER_RATE] = sample.values[CS_COUNTER_READ_TRANSFER_RATE];
      sample.values[CS_COUNTER_FILE_RATE] = 1600;
      sample.values[CS_COUNTER_THREADS] = 8;
      so_far.listed = 6154;
      so_far.changed = i >= 10 ? 1 : 0;
      cs_check_page_update (page, &sample, &so_far);
    }
  bar = GTK_PROGRESS_BAR (cs_ui_find (page, GTK_TYPE_PROGRESS_BAR));
  g_assert_cmpstr (gtk_progress_bar_get_text (bar), ==, "4,800 of 6,154 files checked");
  g_assert_cmpfloat_with_epsilon (gtk_progress_bar_get_fraction (bar), 4800.0 / 6154.0, 1e-9);
  /* Sizes keep their unit on the line: a no-break space. */
  g_assert_nonnull (cs_ui_find_label (page, "1.4\u00a0GB read · 480.0 MB/s · 1,600 files/s · 1 difference so far"));
  g_assert_true (gtk_widget_is_visible (cs_ui_find_button (page, "Cancel Check")));
  cs_ui_screenshot (window, "check-progress.png");

  cs_ui_window_destroy (window);
}

/* A label under @root that shows some of its text selected, or NULL. */
static GtkLabel *
selected_label (GtkWidget *root)
{
  int start, end;

  if (GTK_IS_LABEL (root) && gtk_widget_get_mapped (root) &&
      gtk_label_get_selection_bounds (GTK_LABEL (root), &start, &end))
    return GTK_LABEL (root);

  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkLabel *found = selected_label (child);

      if (found != NULL)
        return found;
    }

  return NULL;
}

static void
collect_widgets (GtkWidget *root,
                 GType      type,
                 GPtrArray *found)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type))
    g_ptr_array_add (found, root);
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_widgets (child, type, found);
}

static CsWindow *sized_window;

static gboolean
window_width_changed (gpointer data)
{
  return gtk_widget_get_width (GTK_WIDGET (sized_window)) != GPOINTER_TO_INT (data);
}

/* The narrowest the window can be with what it shows now. */
static int
window_minimum_width (CsWindow *window)
{
  int min = 0;

  gtk_widget_measure (GTK_WIDGET (window), GTK_ORIENTATION_HORIZONTAL, -1, &min, NULL, NULL, NULL);
  return min;
}

static gboolean
never (gpointer data)
{
  return FALSE;
}

static gboolean
sweep_done (gpointer data)
{
  return !cs_sweep_page_is_running (CS_SWEEP_PAGE (data));
}

static void
test_sweep (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "source", NULL);
  g_autofree char *destination = g_build_filename (root, "destination", NULL);
  g_autoptr(GFile) source_file = g_file_new_for_path (source);
  g_autoptr(GFile) destination_file = g_file_new_for_path (destination);
  g_autofree char *history_dir = cs_history_get_dir ();
  static const guint threads[] = { 1, 2 };
  g_autoptr(GDir) dir = NULL;
  const char *recommendation;
  const char *name;
  guint n_saved = 0;
  CsWindow *window;

  clear_history ();
  generate (source, 60, 8000);
  g_assert_cmpint (g_mkdir (destination, 0755), ==, 0);

  window = cs_ui_window_new ();
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-sweep", NULL);
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "sweep");

  cs_sweep_page_set_source (sweep_page (window), source_file);
  cs_sweep_page_set_destination (sweep_page (window), destination_file);
  cs_sweep_page_set_threads (sweep_page (window), threads, G_N_ELEMENTS (threads));
  cs_sweep_page_set_repeats (sweep_page (window), 1);
  cs_sweep_page_set_cold (sweep_page (window), FALSE);
  cs_ui_screenshot (window, "12-sweep-setup.png");

  /* Started with its button, as a user does: the focus is on the page. */
  {
    GtkWidget *start = cs_ui_find_button (sweep_page (window), "Start Sweep");

    g_assert_nonnull (start);
    g_assert_true (gtk_widget_grab_focus (start));
    g_signal_emit_by_name (start, "clicked");
  }
  g_assert_true (cs_sweep_page_is_running (sweep_page (window)));
  g_assert_true (cs_ui_wait_until (sweep_done, sweep_page (window), WAIT_SECONDS));
  cs_ui_iterate ();

  g_assert_nonnull (cs_sweep_page_get_sweep (sweep_page (window)));
  recommendation = cs_sweep_page_get_recommendation (sweep_page (window));
  g_assert_nonnull (recommendation);
  g_assert_cmpstr (recommendation, !=, "");
  g_assert_cmpuint (cs_sweep_get_recommended (cs_sweep_page_get_sweep (sweep_page (window)), NULL), >, 0);
  cs_ui_screenshot (window, "13-sweep-result.png");

  /* The focus the page had went on without selecting the sentence that
   * says why (a selectable label given the focus selects all its text). */
  {
    GtkLabel *selected = selected_label (GTK_WIDGET (sweep_page (window)));

    if (selected != NULL)
      g_test_message ("selected: %s", gtk_label_get_label (selected));
    g_assert_null (selected);
  }

  /* The result fits a window 600 px wide, as every page must: its wrapping
   * sentences are measured at the width they get, not on one line. */
  g_test_message ("the window with the sweep's result: at least %d px",
                  window_minimum_width (window));
  g_assert_cmpint (window_minimum_width (window), <=, 600);

  /* At every width, each chart is wide enough for its recommendation label
   * inside its plot: side by side, the charts fold before the first is
   * squeezed below that. */
  {
    g_autoptr(GPtrArray) charts = g_ptr_array_new ();

    sized_window = window;
    collect_widgets (GTK_WIDGET (sweep_page (window)), CS_TYPE_SWEEP_CHART, charts);
    g_assert_cmpuint (charts->len, ==, 3);
    for (int width = 700; width <= 1400; width += 20)
      {
        int before = gtk_widget_get_width (GTK_WIDGET (window));

        gtk_window_set_default_size (GTK_WINDOW (window), width, 780);
        cs_ui_wait_until (window_width_changed, GINT_TO_POINTER (before), 2);
        cs_ui_iterate ();
        for (guint i = 0; i < charts->len; i++)
          {
            CsSweepChart *chart = charts->pdata[i];
            double needed = cs_plot_sweep_min_width (NULL, cs_sweep_chart_get_recommended (chart),
                                                     cs_sweep_chart_get_label (chart));

            if (gtk_widget_get_width (GTK_WIDGET (chart)) < needed)
              g_test_message ("window %d px: chart %u is %d px, “%s” needs %.0f",
                              gtk_widget_get_width (GTK_WIDGET (window)), i,
                              gtk_widget_get_width (GTK_WIDGET (chart)),
                              cs_sweep_chart_get_label (chart), needed);
            g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (chart)), >=, needed);
          }
      }
  }

  /* Its live graph showed the short copies on an axis of their size, not a
   * minute's: the span that holds the longest of them (0.5, 1, 2, 5 … s). A
   * copy of these 60 files takes well under a second on a quiet machine, a
   * second or two on a loaded one. */
  {
    CsThroughputGraph *graph = (CsThroughputGraph *) cs_ui_find (sweep_page (window),
                                                                 CS_TYPE_THROUGHPUT_GRAPH);
    const double spans[] = { 0.5, 1, 2, 5, 10, 20, 50 };
    const CsSweepRun *runs;
    guint n_runs;
    double longest = 0, span = 60;
    double lo, hi;

    runs = cs_sweep_get_runs (cs_sweep_page_get_sweep (sweep_page (window)), &n_runs);
    for (guint i = 0; i < n_runs; i++)
      longest = MAX (longest, runs[i].seconds);
    for (guint i = G_N_ELEMENTS (spans); i-- > 0 && spans[i] >= longest;)
      span = spans[i];

    /* The last copy ends before a poll of the page has seen its samples
     * more often than not on a fast machine: the page polls once more when
     * the sweep returns (cs-sweep-page.c), so its graph holds them. */
    g_assert_true (cs_throughput_graph_get_time_range (graph, &lo, &hi));
    g_test_message ("the sweep's live graph: %.3f–%.3f s; the longest copy %.3f s",
                    lo, hi, longest);
    g_assert_cmpfloat (hi, <=, span);
    g_assert_cmpfloat (hi, <, 60);
  }

  /* Kept in the history folder, listed among the sweeps. */
  dir = g_dir_open (history_dir, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    n_saved += g_str_has_prefix (name, "sweep-");
  g_assert_cmpuint (n_saved, ==, 1);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-history", NULL);
  g_assert_cmpuint (cs_history_page_get_n_sweeps (history_page (window)), ==, 1);

  /* Opened again from History, where the focus was: nothing selected either. */
  {
    GtkWidget *row = cs_ui_find (history_page (window), CS_TYPE_HISTORY_ROW);

    g_assert_nonnull (row);
    g_assert_true (gtk_widget_grab_focus (row));
    g_signal_emit_by_name (history_page (window), "open-sweep",
                           cs_sweep_page_get_sweep (sweep_page (window)));
    g_assert_cmpstr (cs_ui_visible_page (window), ==, "sweep");
    cs_ui_iterate ();
    g_assert_null (selected_label (GTK_WIDGET (sweep_page (window))));
  }

  /* Every copy went into a folder of its own, removed once timed. */
  g_clear_pointer (&dir, g_dir_close);
  dir = g_dir_open (destination, 0, NULL);
  g_assert_nonnull (dir);
  g_assert_null (g_dir_read_name (dir));

  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
}

/* Every graph on @root, in order. */
static void
collect_graphs (GtkWidget *widget,
                GPtrArray *out)
{
  if (CS_IS_THROUGHPUT_GRAPH (widget))
    g_ptr_array_add (out, widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_graphs (child, out);
}

/* The live graph sizes its time axis to the copy so far, the whole-run view to
 * the run, or to a span it shares with others. */
static void
test_graph_axes (void)
{
  g_autoptr(CsRun) run = cs_run_new ();
  CsThroughputGraph *graph = g_object_ref_sink (g_object_new (CS_TYPE_THROUGHPUT_GRAPH, NULL));
  double lo, hi;

  g_assert_false (cs_throughput_graph_get_time_range (graph, &lo, &hi));
  cs_throughput_graph_set_run (graph, run);

  /* Two samples of a half-second copy. */
  for (guint i = 1; i <= 2; i++)
    {
      CsSample sample = { .t = 0.25 * i };

      sample.values[CS_COUNTER_READ_TRANSFER_RATE] = 50;
      cs_throughput_graph_push_sample (graph, &sample);
    }
  g_assert_true (cs_throughput_graph_get_time_range (graph, &lo, &hi));
  g_assert_cmpfloat (lo, ==, 0);
  g_assert_cmpfloat (hi, ==, 0.5);
  cs_throughput_graph_set_show_all (graph, TRUE);
  g_assert_true (cs_throughput_graph_get_time_range (graph, &lo, &hi));
  g_assert_cmpfloat (hi, ==, 0.5);
  cs_throughput_graph_set_time_span (graph, 3.0);
  g_assert_true (cs_throughput_graph_get_time_range (graph, &lo, &hi));
  g_assert_cmpfloat (lo, ==, 0);
  g_assert_cmpfloat (hi, ==, 3.0);
  cs_throughput_graph_set_time_span (graph, 0);
  cs_throughput_graph_set_show_all (graph, FALSE);

  /* On to 75 s: the axis grows with it, then the last minute scrolls. */
  for (guint i = 3; i <= 300; i++)
    {
      CsSample sample = { .t = 0.25 * i };

      cs_throughput_graph_push_sample (graph, &sample);
      if (i == 13)
        {
          g_assert_true (cs_throughput_graph_get_time_range (graph, &lo, &hi));
          g_assert_cmpfloat (hi, ==, 5.0);
        }
    }
  g_assert_true (cs_throughput_graph_get_time_range (graph, &lo, &hi));
  g_assert_cmpfloat (lo, ==, 15.0);
  g_assert_cmpfloat (hi, ==, 75.0);

  g_object_unref (graph);
}

static gboolean
sweep_progress_shown (gpointer data)
{
  GtkProgressBar *bar = (GtkProgressBar *) cs_ui_find (data, GTK_TYPE_PROGRESS_BAR);

  return gtk_progress_bar_get_fraction (bar) > 0 && cs_ui_find_label (data, "Copy ") != NULL;
}

/* The sweep's progress reaches the page while it runs; Stop Sweep ends it
 * with nothing to report (no result, no error), its copies removed; a page
 * that goes while a sweep runs is not called back. */
static void
test_sweep_cancel (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "source", NULL);
  g_autofree char *destination = g_build_filename (root, "destination", NULL);
  g_autoptr(GFile) source_file = g_file_new_for_path (source);
  g_autoptr(GFile) destination_file = g_file_new_for_path (destination);
  static const guint threads[] = { 1, 2 };
  g_autoptr(GDir) dir = NULL;
  CsSweepPage *page;
  CsWindow *window;

  generate (source, 3000, 4000);
  g_assert_cmpint (g_mkdir (destination, 0755), ==, 0);

  window = cs_ui_window_new ();
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-sweep", NULL);
  page = sweep_page (window);
  cs_sweep_page_set_source (page, source_file);
  cs_sweep_page_set_destination (page, destination_file);
  cs_sweep_page_set_threads (page, threads, G_N_ELEMENTS (threads));
  cs_sweep_page_set_repeats (page, 3);
  cs_sweep_page_set_cold (page, FALSE);

  g_assert_true (cs_sweep_page_start (page));
  g_assert_true (cs_ui_wait_until (sweep_progress_shown, page, WAIT_SECONDS));
  g_assert_true (cs_sweep_page_is_running (page));
  g_signal_emit_by_name (cs_ui_find_button (page, "Stop Sweep"), "clicked");
  g_assert_true (cs_ui_wait_until (sweep_done, page, WAIT_SECONDS));
  cs_ui_iterate ();

  g_assert_null (cs_sweep_page_get_sweep (page));
  g_assert_null (cs_ui_find_label (page, "The sweep stopped"));
  g_assert_true (gtk_widget_get_sensitive (cs_ui_find_button (page, "Start Sweep")));
  dir = g_dir_open (destination, 0, NULL);
  g_assert_null (g_dir_read_name (dir));

  /* Again, and the window goes meanwhile. */
  g_assert_true (cs_sweep_page_start (page));
  g_assert_true (cs_ui_wait_until (sweep_progress_shown, page, WAIT_SECONDS));
  cs_ui_window_destroy (window);
  cs_ui_wait_until (never, NULL, 3);

  cs_test_tree_remove (root);
}

static gboolean
demo_done (gpointer data)
{
  return !cs_demo_page_is_running (CS_DEMO_PAGE (data));
}

static gboolean
demo_copying (gpointer data)
{
  return cs_ui_find_label (data, "Copying the small files") != NULL;
}

/* Stop during the demonstration's small files (shown from the job the page
 * follows): no explanation and no error, ready again. */
static void
test_demo_cancel (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autoptr(GFile) destination = g_file_new_for_path (root);
  CsDemoPage *page;
  CsWindow *window;

  window = cs_ui_window_new ();
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-demo", NULL);
  page = demo_page (window);

  cs_demo_page_set_size_mb (page, 32);
  cs_demo_page_set_t1_t2 (page, TRUE);
  cs_demo_page_set_destination (page, destination);
  g_assert_true (cs_demo_page_start (page));
  g_assert_true (cs_ui_wait_until (demo_copying, page, WAIT_SECONDS));
  g_signal_emit_by_name (cs_ui_find_button (page, "Stop"), "clicked");
  g_assert_true (cs_ui_wait_until (demo_done, page, WAIT_SECONDS));
  cs_ui_iterate ();

  g_assert_null (cs_demo_page_get_explanation (page));
  g_assert_null (cs_demo_page_get_demo (page));
  g_assert_null (cs_ui_find_label (page, "The demonstration stopped"));
  g_assert_true (gtk_widget_get_visible (cs_ui_find_button (page, "Demonstrate")));

  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
}

static void
test_demo (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autoptr(GFile) destination = g_file_new_for_path (root);
  g_autofree char *sets = g_build_filename (g_get_user_cache_dir (), "copyscope", "demo", NULL);
  g_autoptr(GPtrArray) entries = NULL;
  g_autoptr(GError) error = NULL;
  CsWindow *window;
  const char *explanation;

  clear_history ();
  window = cs_ui_window_new ();
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-demo", NULL);
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "demo");

  cs_demo_page_set_size_mb (demo_page (window), 1);
  cs_demo_page_set_t1_t2 (demo_page (window), TRUE);
  cs_demo_page_set_destination (demo_page (window), destination);
  g_assert_true (cs_demo_page_start (demo_page (window)));
  g_assert_true (cs_ui_wait_until (demo_done, demo_page (window), WAIT_SECONDS));

  explanation = cs_demo_page_get_explanation (demo_page (window));
  g_assert_nonnull (explanation);
  g_assert_nonnull (strstr (explanation, "small files"));
  /* Why, in the workers' own time: each copy's top phases. */
  g_assert_nonnull (strstr (explanation, "The workers' busy time — one big file: "));
  cs_ui_screenshot (window, "14-demo.png");

  /* Its two graphs side by side on one time axis, the longer copy's. */
  {
    g_autoptr(GPtrArray) graphs = g_ptr_array_new ();
    CsDemo *demo = cs_demo_page_get_demo (demo_page (window));
    double longest = MAX (cs_run_get_duration (cs_demo_get_run (demo, CS_DEMO_BIG)),
                          cs_run_get_duration (cs_demo_get_run (demo, CS_DEMO_SMALL)));

    collect_graphs (GTK_WIDGET (demo_page (window)), graphs);
    g_assert_cmpuint (graphs->len, ==, 2);
    for (guint i = 0; i < graphs->len; i++)
      {
        double lo, hi;

        g_assert_true (cs_throughput_graph_get_time_range (graphs->pdata[i], &lo, &hi));
        g_test_message ("demo graph %u: %.3f–%.3f s", i, lo, hi);
        g_assert_cmpfloat (lo, ==, 0);
        g_assert_cmpfloat (hi, ==, longest);
      }

    /* Under each graph, the copy's duration and speed as every other view
     * gives them: the clock's seconds, and bytes copied per second of it. */
    for (CsDemoRun i = CS_DEMO_BIG; i <= CS_DEMO_SMALL; i++)
      {
        CsRun *run = cs_demo_get_run (demo, i);
        double duration = cs_run_get_duration (run);
        guint64 files, bytes;
        g_autofree char *start = NULL;
        g_autofree char *expected = NULL;
        GtkWidget *label;
        CsTotals totals;
        double speed;

        cs_run_get_totals (run, &totals);
        files = totals.v[CS_CLASS_COPIED][CS_KIND_FILES];
        bytes = totals.v[CS_CLASS_COPIED][CS_KIND_BYTES];
        g_assert_cmpfloat (duration, >, 0);
        g_assert_cmpfloat (duration, <, 9.995);
        speed = (double) bytes / duration / 1e6;
        start = g_strdup_printf ("%" G_GUINT64_FORMAT " %s in ", files, files == 1 ? "file" : "files");
        expected = g_strdup_printf (speed >= 1 ? "%s%.2f s · %.1f MB/s" : "%s%.2f s · %.2f MB/s",
                                    start, duration, speed);
        label = cs_ui_find_label (demo_page (window), start);
        g_assert_nonnull (label);
        g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (label)), ==, expected);
      }
  }

  /* Its four copies are in History; the sets it generated are gone. */
  entries = cs_history_list (NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (entries->len, ==, CS_DEMO_N_RUNS);
  g_assert_false (g_file_test (sets, G_FILE_TEST_EXISTS));

  /* Then 1 vs 2 threads, on the comparison page as T1 and T2. */
  cs_demo_page_compare (demo_page (window));
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "compare");
  g_assert_cmpstr (cs_compare_page_get_labels (compare_page (window))[0], ==, "T1");
  g_assert_cmpstr (cs_compare_page_get_labels (compare_page (window))[1], ==, "T2");
  g_assert_cmpstr (cs_compare_page_get_verdict (compare_page (window)), !=, "");
  cs_ui_screenshot (window, "15-demo-compare.png");

  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
}

static CsSetupPage *
setup_page (CsWindow *window)
{
  return CS_SETUP_PAGE (cs_ui_find (window, CS_TYPE_SETUP_PAGE));
}

static guint
n_sources (CsWindow *window)
{
  return g_list_model_get_n_items (cs_setup_page_get_sources (setup_page (window)));
}

/* What the user sees of an action: its button there and usable. */
static gboolean
button_usable (CsWindow   *window,
               const char *label)
{
  GtkWidget *button = cs_ui_find_button (window, label);

  g_assert_nonnull (button);
  return gtk_widget_get_visible (button) && gtk_widget_is_sensitive (button);
}

static gboolean
can_go_back (CsWindow *window)
{
  return button_usable (window, "Back");
}

static void
go_back (CsWindow *window)
{
  g_assert_true (can_go_back (window));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.go-back", NULL);
  cs_ui_iterate ();
}

/* A finished copy of @source into @destination; its summary on screen. */
static void
copy_and_wait (CsWindow   *window,
               const char *source,
               const char *destination)
{
  g_autoptr(GFile) source_file = g_file_new_for_path (source);
  g_autoptr(GFile) destination_file = g_file_new_for_path (destination);
  GFile *sources[] = { source_file };

  cs_window_add_sources (window, sources, 1);
  cs_window_set_destination (window, destination_file);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_nonnull (cs_window_get_job (window));
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "summary");
}

/* Back is one logical step: from a section (History, the sweep, the demo) to
 * the copy's page below it, from what a section opened to the section. */
static void
test_back (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "source", NULL);
  g_autofree char *destination = g_build_filename (root, "destination", NULL);
  g_autoptr(CsRun) old = synthetic_run ("Old", g_get_real_time () - (gint64) G_USEC_PER_SEC * 3600, 1, 50, 10);
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *copy_id = NULL;
  CsHistoryRow *row = NULL;
  CsWindow *window;

  clear_history ();
  path = cs_history_save (old, &error);
  g_assert_no_error (error);
  generate (source, 20, 4000);

  window = cs_ui_window_new ();
  g_assert_false (can_go_back (window));

  /* History, then the sweep from there: Back leads home, not to History. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-history", NULL);
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "history");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-sweep", NULL);
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "sweep");
  go_back (window);
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "setup");
  g_assert_false (can_go_back (window));

  /* After a copy its summary is home; a run opened from History goes on top
   * of History, and two steps back is the copy's own summary again. */
  copy_and_wait (window, source, destination);
  copy_id = g_strdup (cs_run_get_id (cs_summary_page_get_run (summary_page (window))));
  g_assert_false (can_go_back (window));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-history", NULL);
  for (guint i = 0; i < cs_history_page_get_n_runs (history_page (window)); i++)
    if (g_strcmp0 (cs_run_get_id (cs_history_row_get_run (cs_history_page_get_run_row (history_page (window), i))),
                   cs_run_get_id (old)) == 0)
      row = cs_history_page_get_run_row (history_page (window), i);
  g_assert_nonnull (row);
  g_signal_emit_by_name (row, "activate");
  cs_ui_iterate ();
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "summary");
  g_assert_cmpstr (cs_run_get_id (cs_summary_page_get_run (summary_page (window))), ==, cs_run_get_id (old));

  go_back (window);
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "history");
  go_back (window);
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "summary");
  g_assert_cmpstr (cs_run_get_id (cs_summary_page_get_run (summary_page (window))), ==, copy_id);
  g_assert_false (can_go_back (window));

  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
}

/* New Copy from every page: the setup, the destination kept, no sources of
 * the copy before. */
static void
test_new_copy (void)
{
  const char *pages[] = { "summary", "history", "sweep", "demo", "compare", "setup" };
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "source", NULL);
  g_autofree char *destination = g_build_filename (root, "destination", NULL);
  g_autoptr(CsRun) t1 = synthetic_run ("T1", g_get_real_time () - (gint64) G_USEC_PER_SEC * 60, 1, 50, 10);
  g_autoptr(CsRun) t2 = synthetic_run ("T2", g_get_real_time (), 2, 100, 25);
  CsWindow *window;

  generate (source, 20, 4000);
  window = cs_ui_window_new ();
  copy_and_wait (window, source, destination);

  for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
    {
      if (g_strcmp0 (pages[i], "history") == 0)
        gtk_widget_activate_action (GTK_WIDGET (window), "win.show-history", NULL);
      else if (g_strcmp0 (pages[i], "sweep") == 0)
        gtk_widget_activate_action (GTK_WIDGET (window), "win.show-sweep", NULL);
      else if (g_strcmp0 (pages[i], "demo") == 0)
        gtk_widget_activate_action (GTK_WIDGET (window), "win.show-demo", NULL);
      else if (g_strcmp0 (pages[i], "compare") == 0)
        {
          g_autoptr(GPtrArray) pair = g_ptr_array_new ();

          g_ptr_array_add (pair, t1);
          g_ptr_array_add (pair, t2);
          gtk_widget_activate_action (GTK_WIDGET (window), "win.show-history", NULL);
          g_signal_emit_by_name (history_page (window), "compare", pair);
        }
      g_assert_cmpstr (cs_ui_visible_page (window), ==, pages[i]);

      gtk_widget_activate_action (GTK_WIDGET (window), "win.new-copy", NULL);
      cs_ui_iterate ();
      g_assert_cmpstr (cs_ui_visible_page (window), ==, "setup");
      g_assert_cmpuint (n_sources (window), ==, 0);
      g_assert_nonnull (cs_setup_page_get_destination (setup_page (window)));
      g_assert_false (can_go_back (window));
    }

  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
}

static gboolean
job_started (gpointer data)
{
  CsJob *job = cs_window_get_job (CS_WINDOW (data));

  return job == NULL || cs_job_get_state (job) == CS_JOB_STATE_RUNNING;
}

/* A source or destination handed to the window (the command line, the file
 * manager) always shows: on the setup page, or, while a copy runs, kept for
 * the next copy and said in a toast. */
static void
test_handed_over (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "source", NULL);
  g_autofree char *later = g_build_filename (root, "later", NULL);
  g_autofree char *destination = g_build_filename (root, "destination", NULL);
  g_autofree char *elsewhere = g_build_filename (root, "elsewhere", NULL);
  g_autoptr(GFile) source_file = g_file_new_for_path (source);
  g_autoptr(GFile) later_file = g_file_new_for_path (later);
  g_autoptr(GFile) destination_file = g_file_new_for_path (destination);
  g_autoptr(GFile) elsewhere_file = g_file_new_for_path (elsewhere);
  GFile *sources[] = { source_file };
  GFile *later_sources[] = { later_file };
  CsWindow *window;

  generate (source, 40, 4 << 20);
  generate (later, 5, 1000);
  window = cs_ui_window_new ();

  /* Another page shown, no copy: the setup comes forward with them. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-history", NULL);
  cs_window_add_sources (window, sources, 1);
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "setup");
  g_assert_cmpuint (n_sources (window), ==, 1);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-sweep", NULL);
  cs_window_set_destination (window, destination_file);
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "setup");
  g_assert_true (g_file_equal (cs_setup_page_get_destination (setup_page (window)), destination_file));

  /* A copy runs (held paused): they wait on the setup page, a toast says so. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (cs_ui_wait_until (job_started, window, WAIT_SECONDS));
  g_assert_nonnull (cs_window_get_job (window));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.pause", NULL);
  g_assert_cmpint (cs_job_get_state (cs_window_get_job (window)), ==, CS_JOB_STATE_PAUSED);
  g_assert_cmpuint (n_sources (window), ==, 0);
  cs_window_add_sources (window, later_sources, 1);
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "copying");
  g_assert_nonnull (cs_ui_find_label (window, "“later” waits for the next copy"));
  cs_window_set_destination (window, elsewhere_file);
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "copying");
  g_assert_cmpuint (n_sources (window), ==, 1);
  g_assert_true (g_file_equal (cs_setup_page_get_destination (setup_page (window)), elsewhere_file));

  /* New Copy during the copy shows them, to be queued; Back returns to the copy. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.new-copy", NULL);
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "setup");
  g_assert_true (button_usable (window, "Add to Queue"));
  go_back (window);
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "copying");

  /* Setting up the next copy when this one ends: it stays, a toast tells. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.new-copy", NULL);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.pause", NULL);
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "setup");
  g_assert_nonnull (cs_ui_find_label (window, "The copy is complete"));
  g_assert_cmpuint (n_sources (window), ==, 1);
  g_assert_true (button_usable (window, "Start Copy"));
  cs_ui_screenshot (window, "16-next-copy.png");
  go_back (window);
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "summary");

  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
}

static void
test_auto (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "source", NULL);
  g_autofree char *destination = g_build_filename (root, "destination", NULL);
  g_autoptr(GFile) source_file = g_file_new_for_path (source);
  g_autoptr(GFile) destination_file = g_file_new_for_path (destination);
  GFile *sources[] = { source_file };
  GtkWidget *scale;
  CsWindow *window;
  CsJob *job;

  generate (source, 400, 16000);
  g_assert_cmpint (g_mkdir (destination, 0755), ==, 0);

  window = cs_ui_window_new ();
  cs_window_add_sources (window, sources, 1);
  cs_window_set_destination (window, destination_file);

  /* Before the start: the switch goes into the job. */
  cs_thread_slider_set_auto (setup_slider (window), TRUE);
  g_assert_true (cs_thread_slider_get_auto (live_slider (window)));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  job = cs_window_get_job (window);
  g_assert_nonnull (job);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.pause", NULL);
  g_assert_true (cs_job_get_auto_threads (job));

  /* Live: off and on again. */
  cs_thread_slider_set_auto (live_slider (window), FALSE);
  g_assert_false (cs_job_get_auto_threads (job));
  cs_thread_slider_set_auto (live_slider (window), TRUE);
  g_assert_true (cs_job_get_auto_threads (job));

  /* A hand on the slider turns Auto off. */
  scale = cs_thread_slider_get_scale (live_slider (window));
  gtk_range_set_value (GTK_RANGE (scale), 1.0);
  g_assert_false (cs_thread_slider_get_auto (live_slider (window)));
  g_assert_false (cs_job_get_auto_threads (job));

  gtk_widget_activate_action (GTK_WIDGET (window), "win.pause", NULL);
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));

  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
}

static const char *
grid_text (GtkWidget *grid,
           int        column,
           int        row)
{
  GtkWidget *child = gtk_grid_get_child_at (GTK_GRID (grid), column, row);

  g_assert_true (GTK_IS_LABEL (child));
  return gtk_label_get_label (GTK_LABEL (child));
}

static GtkWidget *
find_grid (GtkWidget  *widget,
           const char *accessible_label)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (GTK_IS_GRID (child))
        {
          g_autofree char *problem =
            gtk_test_accessible_check_property (GTK_ACCESSIBLE (child), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                                accessible_label);

          if (problem == NULL)
            return child;
        }
      if ((found = find_grid (child, accessible_label)) != NULL)
        return found;
    }

  return NULL;
}

/* The live counters and the summary's statistics name every counter, with its
 * unit, as the engine defines it, and the summary's figures are the run's. */
static void
test_counter_rows (void)
{
  g_autoptr(CsRun) run = synthetic_run ("rows", g_get_real_time (), 4, 80, 20);
  GtkWidget *view = g_object_ref_sink (g_object_new (CS_TYPE_COUNTER_VIEW, NULL));
  GtkWidget *summary = g_object_ref_sink (g_object_new (CS_TYPE_SUMMARY_PAGE, NULL));
  GtkWidget *live_grid = find_grid (view, "Live counters");
  GtkWidget *stats_grid = find_grid (summary, "Counter statistics");
  g_autofree CsSample *samples = NULL;
  guint n_samples = 0;

  g_assert_nonnull (live_grid);
  g_assert_nonnull (stats_grid);

  samples = cs_run_dup_samples (run, &n_samples);
  cs_counter_view_set_sample (CS_COUNTER_VIEW (view), &samples[n_samples - 1]);
  cs_summary_page_set_run (CS_SUMMARY_PAGE (summary), run);

  for (guint i = 0; i < CS_N_COUNTERS; i++)
    {
      const CsCounterInfo *info = cs_counter_get_info ((CsCounter) i);
      g_autofree char *title = NULL;
      CsStat stat;

      g_assert_cmpstr (grid_text (live_grid, 0, (int) i), ==, info->label);
      g_assert_cmpstr (grid_text (live_grid, 2, (int) i), ==, info->unit);

      if (info->unit[0] != '\0')
        title = g_strdup_printf ("%s (%s)", info->label, info->unit);
      else
        title = g_strdup (info->label);
      g_assert_cmpstr (grid_text (stats_grid, 0, (int) i + 1), ==, title);
      g_assert_cmpstr (grid_text (stats_grid, 4, (int) i + 1), ==,
                       cs_direction_to_string (info->direction));

      if (cs_run_get_stat (run, (CsCounter) i, &stat) && i == CS_COUNTER_THREADS)
        g_assert_cmpstr (grid_text (stats_grid, 1, (int) i + 1), ==, "4");
      else if (cs_run_get_stat (run, (CsCounter) i, &stat))
        g_assert_cmpstr (grid_text (stats_grid, 1, (int) i + 1), !=, "—");
    }
  g_assert_null (gtk_grid_get_child_at (GTK_GRID (live_grid), 0, CS_N_COUNTERS));
  g_assert_null (gtk_grid_get_child_at (GTK_GRID (stats_grid), 0, CS_N_COUNTERS + 1));
  g_assert_cmpstr (grid_text (live_grid, 1, CS_COUNTER_THREADS), ==, "4");

  g_object_unref (view);
  g_object_unref (summary);
}

/* The summary's totals, as the table and as the rows that stand in for it
 * in a narrow window: the same classes in the same order, a copy's or a
 * check's, each row with its files, bytes and folders, and the failures
 * marked only when there are some. */
static void
test_totals_forms (void)
{
  const struct {
    const char *kind;
    guint64     failed;
    const char *titles[CS_N_CLASSES];
  } cases[] = {
    { "copy", 3, { "Total", "Copied", "Skipped", "Mismatch", "Failed", "Extras" } },
    { "copy", 0, { "Total", "Copied", "Skipped", "Mismatch", "Failed", "Extras" } },
    { "check", 2, { "Total", "Matched", "Skipped", "Changed", "Missing", "Extras" } },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr(CsRun) run = synthetic_run ("totals", g_get_real_time (), 4, 80, 20);
      GtkWidget *summary = g_object_ref_sink (g_object_new (CS_TYPE_SUMMARY_PAGE, NULL));
      GtkWidget *grid = cs_ui_find_labelled (summary, GTK_TYPE_GRID, "Totals");
      GtkWidget *list = cs_ui_find_labelled (summary, GTK_TYPE_LIST_BOX, "Totals");
      CsTotals totals = { { { 0 } } };

      g_assert_nonnull (grid);
      g_assert_nonnull (list);

      totals.v[CS_CLASS_TOTAL][CS_KIND_DIRS] = 7;
      totals.v[CS_CLASS_TOTAL][CS_KIND_FILES] = 1200 + cases[c].failed;
      totals.v[CS_CLASS_TOTAL][CS_KIND_BYTES] = 5000000;
      totals.v[CS_CLASS_COPIED][CS_KIND_DIRS] = 7;
      totals.v[CS_CLASS_COPIED][CS_KIND_FILES] = 1200;
      totals.v[CS_CLASS_COPIED][CS_KIND_BYTES] = 4000000;
      totals.v[CS_CLASS_FAILED][CS_KIND_FILES] = cases[c].failed;
      totals.v[CS_CLASS_FAILED][CS_KIND_BYTES] = cases[c].failed * 1000;
      _cs_run_set_kind (run, cases[c].kind);
      _cs_run_set_totals (run, &totals);
      cs_summary_page_set_run (CS_SUMMARY_PAGE (summary), run);

      for (guint klass = 0; klass < CS_N_CLASSES; klass++)
        {
          AdwActionRow *row = ADW_ACTION_ROW (gtk_list_box_get_row_at_index (GTK_LIST_BOX (list),
                                                                             (int) klass));
          const char *title = adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row));
          const char *figures = adw_action_row_get_subtitle (row);
          g_autofree char *files = _cs_format_count (totals.v[klass][CS_KIND_FILES]);
          g_autofree char *bytes = _cs_format_bytes (totals.v[klass][CS_KIND_BYTES]);
          GtkWidget *cell = gtk_grid_get_child_at (GTK_GRID (grid), (int) klass + 1,
                                                   CS_KIND_FILES + 1);
          gboolean alarming = klass == CS_CLASS_FAILED && cases[c].failed > 0;

          g_test_message ("%s: %s — %s", cases[c].kind, title, figures);
          g_assert_cmpstr (grid_text (grid, (int) klass + 1, 0), ==, cases[c].titles[klass]);
          g_assert_cmpstr (title, ==, cases[c].titles[klass]);
          g_assert_true (g_str_has_prefix (figures, files));
          g_assert_cmpstr (grid_text (grid, (int) klass + 1, CS_KIND_FILES + 1), ==, files);
          g_assert_nonnull (strstr (figures, bytes));
          g_assert_cmpint (strstr (figures, "folders") != NULL, ==,
                           totals.v[klass][CS_KIND_DIRS] > 0);
          g_assert_cmpint (gtk_widget_has_css_class (GTK_WIDGET (row), "error"), ==, alarming);
          g_assert_cmpint (gtk_widget_has_css_class (cell, "error"), ==, alarming);
        }

      g_object_unref (summary);
    }
}

/* A copy that reached a share GVfs mounted says how, where the summary says
 * how the run was measured; one that reached none says nothing of it. */
static void
test_route (void)
{
  g_autoptr(CsRun) routed = synthetic_run ("routed", g_get_real_time (), 8, 80, 20);
  g_autoptr(CsRun) plain = synthetic_run ("plain", g_get_real_time (), 8, 80, 20);
  CsRunEnvironment env = { .kernel = "6.1", .cpus = 2, .source_fs = "ext4",
                           .destination_fs = "smb", .cache_mode = "warm",
                           .route = "SMB directly to 127.0.0.1/share" };
  GtkWidget *summary = g_object_ref_sink (g_object_new (CS_TYPE_SUMMARY_PAGE, NULL));
  GtkWidget *label;

  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  CsWindow *window;

  /* Kept in the history and opened from there, as a user finds it. */
  _cs_run_set_environment (routed, &env);
  clear_history ();
  path = cs_history_save (routed, &error);
  g_assert_no_error (error);
  window = cs_ui_window_new ();
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-history", NULL);
  g_signal_emit_by_name (cs_history_page_get_run_row (history_page (window), 0), "activate");
  cs_ui_iterate ();
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "summary");
  label = cs_ui_find_label (window, "sampled every");
  g_assert_nonnull (label);
  g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (label)),
                            "ext4 → smb (SMB directly to 127.0.0.1/share)"));
  g_assert_nonnull (cs_ui_find_label (window, "/mnt/nas/backup\nSMB directly to 127.0.0.1/share"));
  cs_ui_screenshot (window, "summary-route.png");
  cs_ui_window_destroy (window);

  env.route = NULL;
  _cs_run_set_environment (plain, &env);
  cs_summary_page_set_run (CS_SUMMARY_PAGE (summary), plain);
  label = cs_ui_find_label (summary, "sampled every");
  g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (label)), "ext4 → smb ·"));
  g_assert_null (strstr (gtk_label_get_label (GTK_LABEL (label)), "directly"));
  g_assert_null (cs_ui_find_label (summary, "directly"));

  g_object_unref (summary);
}

/* Whether @root holds a shown label with @text, on screen. */
static gboolean
shows_label (gpointer    root,
             const char *text)
{
  GtkWidget *label = cs_ui_find_label (root, text);

  return label != NULL && gtk_widget_get_mapped (label);
}

/* A list of the summary, by what a screen reader calls it, on screen. */
static gboolean
shows_list (gpointer    root,
            const char *name)
{
  GtkWidget *list = cs_ui_find_labelled (root, GTK_TYPE_LIST_BOX, name);

  return list != NULL && gtk_widget_get_mapped (list);
}

/* A note is not a failure: a copy whose run lists only notes (a socket left
 * out; what the destination did not keep, in a record written before notes
 * had their field too) is complete, says "1 note", lists it apart and offers
 * no retry; the live page said no problem either. With a failure beside a
 * note, the failure decides. */
static void
test_summary_notes (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "photos", NULL);
  g_autofree char *destination = g_build_filename (root, "nas", NULL);
  g_autofree char *socket_path = g_build_filename (source, "socket", NULL);
  g_autoptr(CsRun) old = synthetic_run ("Old", g_get_real_time () - (gint64) G_USEC_PER_SEC * 60, 2, 40, 10);
  g_autoptr(CsRun) both = synthetic_run ("Both", g_get_real_time (), 2, 40, 10);
  GtkWidget *summary = g_object_ref_sink (g_object_new (CS_TYPE_SUMMARY_PAGE, NULL));
  struct sockaddr_un addr = { AF_UNIX };
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  CsWindow *window;
  int fd;

  clear_history ();
  generate (source, 6, 2000);
  g_assert_cmpuint (strlen (socket_path), <, sizeof addr.sun_path);
  strcpy (addr.sun_path, socket_path);
  fd = socket (AF_UNIX, SOCK_STREAM, 0);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (bind (fd, (struct sockaddr *) &addr, sizeof addr), ==, 0);
  close (fd);
  g_assert_cmpint (g_mkdir (destination, 0755), ==, 0);

  window = cs_ui_window_new ();
  copy_and_wait (window, source, destination);
  g_assert_cmpuint (cs_run_get_n_errors (cs_summary_page_get_run (summary_page (window))), ==, 0);
  g_assert_cmpuint (cs_run_get_n_notes (cs_summary_page_get_run (summary_page (window))), ==, 1);
  g_assert_true (shows_label (summary_page (window), "Copy Complete"));
  g_assert_false (shows_label (window, "Copy Finished with Problems"));
  g_assert_false (shows_label (window, "listed below\n"));
  g_assert_null (cs_ui_find_label (summary_page (window), "problem"));
  g_assert_true (shows_label (summary_page (window), "1 note, listed below"));
  g_assert_true (shows_label (summary_page (window), "1 Note"));
  g_assert_true (shows_label (summary_page (window), "Not copied: a socket belongs to the program that listens on it"));
  g_assert_true (shows_list (summary_page (window), "Notes"));
  g_assert_false (shows_list (summary_page (window), "Failures"));
  g_assert_false (gtk_widget_get_mapped (cs_ui_find_button (summary_page (window), "Retry Failed")));
  /* The live page's row, under the summary now, said no problem. */
  g_assert_nonnull (cs_ui_find_label (cs_ui_find (window, CS_TYPE_COPY_PAGE), "No Problems, 1 Note"));
  g_assert_null (cs_ui_find_label (cs_ui_find (window, CS_TYPE_COPY_PAGE), "Problem,"));
  cs_ui_screenshot (window, "summary-notes.png");
  cs_ui_window_destroy (window);

  /* A record of before, its chmod loss listed with no attempt and no "note". */
  clear_history ();
  _cs_run_add_error (old, "/mnt/nas/backup", "chmod", EPERM,
                     "The destination does not keep permissions: 303 files have other permissions "
                     "there than at the source (for example “IMG_0001.jpg”)", 0);
  path = cs_history_save (old, &error);
  g_assert_no_error (error);
  {
    g_autoptr(JsonNode) node = cs_run_to_json (old);
    JsonArray *entries = json_object_get_array_member (json_node_get_object (node), "errors");
    g_autofree char *text = NULL;

    json_object_remove_member (json_array_get_object_element (entries, 0), "note");
    text = json_to_string (node, FALSE);
    g_assert_null (strstr (text, "\"note\""));
    g_assert_true (g_file_set_contents (path, text, -1, &error));
    g_assert_no_error (error);
  }
  window = cs_ui_window_new ();
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-history", NULL);
  g_signal_emit_by_name (cs_history_page_get_run_row (history_page (window), 0), "activate");
  cs_ui_iterate ();
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "summary");
  g_assert_true (shows_label (summary_page (window), "Copy Complete"));
  g_assert_true (shows_label (summary_page (window), "1 note, listed below"));
  g_assert_true (shows_label (summary_page (window), "The destination does not keep permissions: 303 files"));
  g_assert_true (shows_list (summary_page (window), "Notes"));
  g_assert_false (shows_list (summary_page (window), "Failures"));
  g_assert_false (gtk_widget_get_mapped (cs_ui_find_button (summary_page (window), "Retry Failed")));
  cs_ui_window_destroy (window);

  /* A failure and a note: the failure decides, the note stays apart. */
  _cs_run_add_error (both, "/data/photos/locked.jpg", "open", EACCES, "Permission denied", 1);
  _cs_run_add_note (both, "/mnt/nas/backup", "chmod", EPERM,
                    "The destination does not keep permissions: 5 files have other permissions "
                    "there than at the source (for example “a.jpg”)");
  cs_summary_page_set_run (CS_SUMMARY_PAGE (summary), both);
  g_assert_nonnull (cs_ui_find_label (summary, "Copy Finished with Problems"));
  g_assert_nonnull (cs_ui_find_label (summary, "1 problem, listed below"));
  g_assert_nonnull (cs_ui_find_label (summary, "1 Failure"));
  g_assert_nonnull (cs_ui_find_label (summary, "1 Note"));
  g_assert_true (gtk_widget_get_visible (cs_ui_find_button (summary, "Retry Failed")));
  g_object_unref (summary);

  cs_test_tree_remove (root);
}

/* ---- Generate dialog ---------------------------------------------------- */

typedef struct {
  char     *dir;
  gboolean  destroyed;
} Generated;

static void
generated_cb (CsGenerateDialog *dialog,
              const char       *dir,
              Generated        *g)
{
  g_free (g->dir);
  g->dir = g_strdup (dir);
}

static void
dialog_destroyed_cb (GtkWidget *dialog,
                     Generated *g)
{
  g->destroyed = TRUE;
}

static gboolean
dialog_closed (gpointer data)
{
  return ((Generated *) data)->destroyed;
}

static gboolean
generate_button_sensitive (gpointer data)
{
  return gtk_widget_get_sensitive (cs_ui_find_button (data, "Generate"));
}

/* The dialog generates in the engine's task: it says where, and closes; a
 * cancelled one stays open, ready again, and says nothing was generated; one
 * closed while it works lets the work finish without calling back. */
static void
test_generate_dialog (void)
{
  g_autofree char *folder = g_dir_make_tmp ("copyscope-generate-XXXXXX", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (folder);
  Generated g = { NULL, FALSE };
  CsGenerateDialog *dialog;
  GDir *dir;

  dialog = cs_generate_dialog_new (NULL);
  g_signal_connect (dialog, "generated", G_CALLBACK (generated_cb), &g);
  g_signal_connect (dialog, "destroy", G_CALLBACK (dialog_destroyed_cb), &g);
  cs_generate_dialog_set_scenario (dialog, CS_SCENARIO_SMALL);
  cs_generate_dialog_set_scale (dialog, 0.01);
  cs_generate_dialog_set_folder (dialog, file);
  gtk_window_present (GTK_WINDOW (dialog));
  g_assert_true (cs_generate_dialog_start (dialog));
  g_assert_false (cs_generate_dialog_start (dialog));
  g_assert_true (cs_ui_wait_until (dialog_closed, &g, 60));
  g_assert_nonnull (g.dir);
  g_assert_true (g_str_has_prefix (g.dir, folder));
  dir = g_dir_open (g.dir, 0, NULL);
  g_assert_nonnull (dir);
  g_assert_nonnull (g_dir_read_name (dir));
  g_dir_close (dir);
  g_clear_pointer (&g.dir, g_free);

  /* Cancelled at once: open, ready for another try, nothing generated. */
  g.destroyed = FALSE;
  dialog = cs_generate_dialog_new (NULL);
  g_signal_connect (dialog, "generated", G_CALLBACK (generated_cb), &g);
  g_signal_connect (dialog, "destroy", G_CALLBACK (dialog_destroyed_cb), &g);
  cs_generate_dialog_set_scale (dialog, 4.0);
  cs_generate_dialog_set_folder (dialog, file);
  gtk_window_present (GTK_WINDOW (dialog));
  g_assert_true (cs_generate_dialog_start (dialog));
  g_assert_false (generate_button_sensitive (dialog));
  gtk_widget_activate (cs_ui_find_button (dialog, "Cancel"));
  g_assert_true (cs_ui_wait_until (generate_button_sensitive, dialog, 60));
  g_assert_false (g.destroyed);
  g_assert_null (g.dir);

  /* Closed while it works: no callback reaches the dialog that is gone. */
  g_assert_true (cs_generate_dialog_start (dialog));
  gtk_window_destroy (GTK_WINDOW (dialog));
  g_assert_true (g.destroyed);
  /* The cancelled work ends within moments and calls nothing back. */
  cs_ui_wait_until (never, NULL, 2);
  g_assert_null (g.dir);

  cs_test_tree_remove (folder);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *home = NULL;
  int status;

  /* The history, the demo's files and the remembered counts go to a folder of
   * this run's own. (G_TEST_OPTION_ISOLATE_DIRS would hide the system's
   * XDG_DATA_DIRS too, and with them the image loaders' icons.) */
  home = isolate_user_dirs ();

  cs_ui_test_init (&argc, &argv);

  g_test_add_func ("/pages/counter-rows", test_counter_rows);
  g_test_add_func ("/pages/totals-forms", test_totals_forms);
  g_test_add_func ("/pages/history", test_history);
  g_test_add_func ("/pages/day-summary", test_day_summary);
  g_test_add_func ("/pages/summary-notes", test_summary_notes);
  g_test_add_func ("/pages/history-watch", test_history_watch);
  g_test_add_func ("/pages/history-from-index", test_history_from_index);
  g_test_add_func ("/pages/compare", test_compare);
  g_test_add_func ("/pages/check", test_check_page);
  g_test_add_func ("/pages/sweep", test_sweep);
  g_test_add_func ("/pages/sweep-cancel", test_sweep_cancel);
  g_test_add_func ("/pages/demo", test_demo);
  g_test_add_func ("/pages/demo-cancel", test_demo_cancel);
  g_test_add_func ("/pages/graph-axes", test_graph_axes);
  g_test_add_func ("/pages/auto", test_auto);
  g_test_add_func ("/pages/back", test_back);
  g_test_add_func ("/pages/new-copy", test_new_copy);
  g_test_add_func ("/pages/handed-over", test_handed_over);
  g_test_add_func ("/pages/route", test_route);
  g_test_add_func ("/pages/generate-dialog", test_generate_dialog);

  status = g_test_run ();
  cs_test_tree_remove (home);

  return status;
}
