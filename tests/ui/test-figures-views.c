/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-figures-views"

#include "config.h"

#include <math.h>
#include <string.h>

#include <utime.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include <adwaita.h>

#include "copyscope-engine.h"
#include "cs-compare-page.h"
#include "cs-copy-page.h"
#include "cs-history.h"
#include "cs-history-page.h"
#include "cs-history-row.h"
#include "cs-limit-hint.h"
#include "cs-progress-view.h"
#include "cs-setup-page.h"
#include "cs-thread-slider.h"
#include "cs-summary-page.h"
#include "cs-test-tree.h"
#include "cs-ui-test.h"

/*
 * One meaning per number: a recorded run shows the same copy speed, files per
 * second, duration and thread count in every view and export — the window's
 * summary, history and comparison, `copyscope-cli history`, the CLI's own
 * summary, and the Markdown, HTML, CSV and JSON reports.
 *
 * The runs are chosen so that the figures' rivals differ from them: with
 * --verify the bytes read are twice the bytes written, some files are skipped
 * (found, not copied), and one run was paused, so its clock ran for less than
 * the time it took. The expected figures are worked out here from the run's
 * counters and its clock, not with the code that formats them.
 */

#define N_FILES    400
#define N_SKIPPED  40
#define FILE_SIZE  30000
#define PAUSE_MS   600
#define HOLD_MS    800
#define WAIT_SECONDS 60

static const char *cli;
static char *home;      /* the user's folders of this test, the CLI's too */

typedef struct {
  double   duration;
  double   speed;       /* MB/s */
  double   file_rate;   /* files/s */
  guint    threads;
  char    *duration_text;
  char    *speed_text;
  char    *file_rate_text;
  char    *window_file_rate_text;   /* grouped in the user's language: "1,070 files/s" */
} Expected;

static void
expected_clear (Expected *e)
{
  g_clear_pointer (&e->duration_text, g_free);
  g_clear_pointer (&e->speed_text, g_free);
  g_clear_pointer (&e->file_rate_text, g_free);
  g_clear_pointer (&e->window_file_rate_text, g_free);
}

/* The run's figures from its totals and clock, at the precision the views
 * promise: 2 decimals of a second, MB/s to 0.1, files/s to 1 from 100 up. */
static void
expected_from_run (Expected *e,
                   CsRun    *run)
{
  CsTotals totals;

  cs_run_get_totals (run, &totals);
  e->duration = cs_run_get_duration (run);
  g_assert_cmpfloat (e->duration, >, 0.1);
  g_assert_cmpfloat (e->duration, <, 59);
  e->speed = (double) totals.v[CS_CLASS_COPIED][CS_KIND_BYTES] / 1e6 / e->duration;
  e->file_rate = (double) totals.v[CS_CLASS_COPIED][CS_KIND_FILES] / e->duration;
  e->threads = cs_run_get_settings (run)->threads;
  e->duration_text = g_strdup_printf ("%.2f s", e->duration);
  e->speed_text = g_strdup_printf (e->speed >= 1 ? "%.1f MB/s" : "%.2f MB/s", e->speed);
  e->file_rate_text = g_strdup_printf (e->file_rate >= 99.5 ? "%.0f files/s"
                                       : e->file_rate >= 1 ? "%.1f files/s" : "%.2f files/s",
                                       e->file_rate);
  /* The window groups the thousands as the user's language does (the C
   * library's rule, which printf's ' flag follows); the CLI and the exports
   * keep plain digits for scripts. */
  e->window_file_rate_text = e->file_rate >= 99.5 ? g_strdup_printf ("%'.0f files/s", e->file_rate)
                                                  : g_strdup (e->file_rate_text);
}

static void
assert_has (const char *where,
            const char *text,
            const char *expected)
{
  if (strstr (text, expected) == NULL)
    g_error ("%s does not show “%s”:\n%s", where, expected, text);
}

static void
assert_figures (const char     *where,
                const char     *text,
                const Expected *e,
                const char     *file_rate_text)
{
  g_autofree char *threads = g_strdup_printf ("%u", e->threads);

  g_test_message ("%s: %s, %s, %s", where, e->duration_text, e->speed_text, file_rate_text);
  assert_has (where, text, e->duration_text);
  assert_has (where, text, e->speed_text);
  assert_has (where, text, file_rate_text);
  assert_has (where, text, threads);
}

/* What the CLI and the exports print. */
static void
assert_shows (const char     *where,
              const char     *text,
              const Expected *e)
{
  assert_figures (where, text, e, e->file_rate_text);
}

/* What the window shows, in the user's language. */
static void
assert_window_shows (const char     *where,
                     const char     *text,
                     const Expected *e)
{
  assert_figures (where, text, e, e->window_file_rate_text);
}

/* Everything a widget shows in its labels, in order. */
static void
collect_labels (GtkWidget *widget,
                GString   *out)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget))
    {
      g_string_append (out, gtk_label_get_text (GTK_LABEL (widget)));
      g_string_append_c (out, '\n');
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_labels (child, out);
}

static char *
shown_text (gpointer widget)
{
  GString *out = g_string_new (NULL);

  collect_labels (GTK_WIDGET (widget), out);
  return g_string_free (out, FALSE);
}

static char *
run_cli (const char * const *argv,
         char              **out_stderr)
{
  g_autoptr(GError) error = NULL;
  char *out = NULL;
  int status = 0;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, out_stderr,
                &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, &error))
    g_error ("%s: %s", argv[1], error->message);

  return out;
}

/* A source of N_FILES files, N_SKIPPED of them already at the destination,
 * identical, so the copy skips them. */
static void
make_tree (const char *root,
           char      **out_source,
           char      **out_destination)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *source = g_build_filename (root, "source", NULL);
  g_autofree char *destination = g_build_filename (root, "destination", NULL);
  g_autofree char *copied = g_build_filename (destination, "source", NULL);
  g_autoptr(GDir) dir = NULL;
  const char *name;
  guint n = 0;

  cs_generate_files_sync (source, N_FILES, FILE_SIZE, 3, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_mkdir_with_parents (copied, 0755), ==, 0);

  dir = g_dir_open (source, 0, &error);
  g_assert_no_error (error);
  while ((name = g_dir_read_name (dir)) != NULL && n < N_SKIPPED)
    {
      g_autofree char *from = g_build_filename (source, name, NULL);
      g_autofree char *to = g_build_filename (copied, name, NULL);
      g_autofree char *argv[] = { g_strdup ("cp"), g_strdup ("-p"), g_strdup (from),
                                  g_strdup (to), NULL };
      int status;

      if (!g_file_test (from, G_FILE_TEST_IS_REGULAR))
        continue;
      g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status,
                    &error);
      g_assert_no_error (error);
      g_assert_true (g_spawn_check_wait_status (status, NULL));
      n++;
    }
  g_assert_cmpuint (n, ==, N_SKIPPED);

  *out_source = g_steal_pointer (&source);
  *out_destination = g_steal_pointer (&destination);
}

typedef struct {
  CsJob          *job;
  CsProgressView *card;
  gboolean        paused;
  gboolean        resumed;
} PauseState;

static gboolean
resume_cb (gpointer data)
{
  PauseState *state = data;

  cs_job_resume (state->job);
  state->resumed = TRUE;
  return G_SOURCE_REMOVE;
}

static void
on_progress (CsJob    *job,
             gpointer  data)
{
  PauseState *state = data;
  CsProgress p;

  cs_job_get_progress (job, &p);
  cs_progress_view_update (state->card, &p);
  if (!state->paused && p.files_done >= 20)
    {
      g_autoptr(GSource) resume = g_timeout_source_new (PAUSE_MS);

      state->paused = TRUE;
      cs_job_pause (job);
      /* run_sync iterates its own context, the signal's thread-default one. */
      g_source_set_callback (resume, resume_cb, state, NULL);
      g_source_attach (resume, g_main_context_get_thread_default ());
    }
}

/* The copy as the window makes it, in-process, with a pause; @card is the
 * live progress card that watched it. */
static CsRun *
paused_run (const char      *root,
            CsProgressView  *card)
{
  g_autofree char *source = NULL;
  g_autofree char *destination = NULL;
  g_autoptr(CsJob) job = cs_job_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *saved = NULL;
  PauseState state = { job, card };
  CsProgress last;
  gint64 wall;
  CsRun *run;

  make_tree (root, &source, &destination);
  cs_job_add_source (job, source);
  cs_job_set_destination (job, destination);
  cs_job_set_threads (job, 2, NULL);
  cs_job_set_interval (job, 100);
  cs_job_set_verify (job, TRUE);
  cs_job_set_overwrite (job, CS_OVERWRITE_NEWER);
  /* Slow enough to pause in the middle. */
  cs_job_set_max_files (job, 400);
  g_signal_connect (job, "progress", G_CALLBACK (on_progress), &state);
  wall = g_get_monotonic_time ();
  g_assert_true (cs_job_run_sync (job, NULL, &error));
  wall = g_get_monotonic_time () - wall;
  g_assert_no_error (error);
  g_assert_true (state.resumed);
  /* As the copy page does when its job ends. */
  cs_job_get_progress (job, &last);
  cs_progress_view_update (card, &last);

  run = cs_run_ref (cs_job_get_run (job));
  g_assert_cmpfloat (last.elapsed, ==, cs_run_get_duration (run));
  /* The pause is time held, not time the copy took. */
  g_assert_cmpfloat (cs_run_get_held (run), >=, PAUSE_MS / 1000.0 - 0.05);
  g_assert_cmpfloat (cs_run_get_duration (run) + cs_run_get_held (run), <=,
                     (double) wall / G_USEC_PER_SEC);
  saved = cs_history_save (run, &error);
  g_assert_no_error (error);

  return run;
}

/* The copy as `copyscope-cli copy --verify` makes it; its summary too. */
static CsRun *
cli_run (const char  *root,
         char       **out_summary)
{
  g_autofree char *source = NULL;
  g_autofree char *destination = NULL;
  g_autofree char *json = g_build_filename (root, "cli-run.json", NULL);
  g_autoptr(GError) error = NULL;
  CsRun *run;

  make_tree (root, &source, &destination);
  {
    const char *argv[] = { cli, "copy", "--verify", "--threads", "3", "--json", json,
                           source, destination, NULL };

    *out_summary = run_cli (argv, NULL);
  }
  run = cs_run_load (json, &error);
  g_assert_no_error (error);

  return run;
}

/* The figures in the run's own JSON, the "figures" object the views' CSV
 * also has, at full precision. */
static void
assert_json_figures (const char     *where,
                     const char     *text,
                     const Expected *e)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *figures;

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  figures = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)),
                                           "figures");
  g_assert_nonnull (figures);
  g_test_message ("%s: figures object", where);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (figures, "duration"),
                                  e->duration, 1e-6);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (figures, "mb_per_second"),
                                  e->speed, 1e-6 * MAX (e->speed, 1));
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (figures, "files_per_second"),
                                  e->file_rate, 1e-6 * MAX (e->file_rate, 1));
  g_assert_cmpint (json_object_get_int_member (figures, "threads"), ==, e->threads);
}

/* A CSV report's figures rows: "name,unit,value[,value…]". */
static double
csv_figure (const char *csv,
            const char *name,
            guint       column)
{
  g_auto(GStrv) lines = g_strsplit (csv, "\n", -1);
  g_autofree char *prefix = g_strconcat (name, ",", NULL);

  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], prefix))
      {
        g_auto(GStrv) cells = g_strsplit (g_strchomp (lines[i]), ",", -1);

        g_assert_cmpuint (g_strv_length (cells), >, 2 + column);
        return g_ascii_strtod (cells[2 + column], NULL);
      }
  g_error ("no “%s” row in the CSV:\n%s", name, csv);
  return 0;
}

static void
assert_csv (const char     *where,
            const char     *csv,
            guint           column,
            const Expected *e)
{
  g_test_message ("%s: figures rows", where);
  g_assert_cmpfloat (fabs (csv_figure (csv, "duration", column) - e->duration), <, 1e-4);
  g_assert_cmpfloat (fabs (csv_figure (csv, "mb_per_second", column) - e->speed), <,
                     1e-4 * MAX (e->speed, 1));
  g_assert_cmpfloat (fabs (csv_figure (csv, "files_per_second", column) - e->file_rate), <,
                     1e-4 * MAX (e->file_rate, 1));
  g_assert_cmpfloat (csv_figure (csv, "threads", column), ==, e->threads);
}

static gboolean
row_is_for (CsHistoryRow *row,
            CsRun        *run)
{
  return g_strcmp0 (cs_run_get_id (cs_history_row_get_run (row)), cs_run_get_id (run)) == 0;
}

static void
test_one_run_everywhere (void)
{
  g_autofree char *paused_root = g_build_filename (home, "paused", NULL);
  g_autofree char *cli_root = g_build_filename (home, "cli", NULL);
  g_autofree char *cli_summary = NULL;
  g_autofree char *history = NULL;
  g_autoptr(CsRun) paused = NULL;
  g_autoptr(CsRun) by_cli = NULL;
  Expected expected[2] = { { 0 } };
  CsRun *runs[2];
  CsTotals totals;
  CsWindow *window;
  CsHistoryPage *history_page;
  GtkWidget *card_window = gtk_window_new ();
  CsProgressView *card = g_object_new (CS_TYPE_PROGRESS_VIEW, NULL);

  gtk_window_set_child (GTK_WINDOW (card_window), GTK_WIDGET (card));
  gtk_window_present (GTK_WINDOW (card_window));
  g_assert_cmpint (g_mkdir_with_parents (paused_root, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (cli_root, 0755), ==, 0);

  runs[0] = paused = paused_run (paused_root, card);
  runs[1] = by_cli = cli_run (cli_root, &cli_summary);
  for (guint i = 0; i < 2; i++)
    {
      expected_from_run (&expected[i], runs[i]);
      /* Read ≠ written, found ≠ copied: the rivals of the figures differ. */
      cs_run_get_totals (runs[i], &totals);
      g_assert_cmpuint (totals.v[CS_CLASS_SKIPPED][CS_KIND_FILES], ==, N_SKIPPED);
      g_assert_cmpuint (totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, N_FILES - N_SKIPPED);
    }
  g_assert_cmpuint (expected[0].threads, ==, 2);
  g_assert_cmpuint (expected[1].threads, ==, 3);

  /* The live card's speed is over the last seconds of the clock
   * (CS_ETA_SPEED_WINDOW): all of a copy this short, so at its end it is the
   * run's. It shows no duration, files/s or threads. */
  g_assert_cmpfloat (expected[0].duration, <, CS_ETA_SPEED_WINDOW);
  {
    g_autofree char *text = shown_text (card);

    g_test_message ("the live progress card: %s", expected[0].speed_text);
    assert_has ("the live progress card", text, expected[0].speed_text);
  }
  gtk_window_destroy (GTK_WINDOW (card_window));

  /* The CLI's summary of its own copy. */
  assert_shows ("copyscope-cli copy's summary", cli_summary, &expected[1]);

  /* copyscope-cli history: both runs. */
  {
    const char *argv[] = { cli, "history", NULL };

    history = run_cli (argv, NULL);
  }
  {
    g_auto(GStrv) lines = g_strsplit (history, "\n", -1);

    for (guint i = 0; i < 2; i++)
      {
        g_autofree char *speed = g_strdup_printf (" %.*s ",
                                                  (int) (strchr (expected[i].speed_text, ' ')
                                                         - expected[i].speed_text),
                                                  expected[i].speed_text);
        /* The number of "95.1 files/s", the unit being in the header. */
        g_autofree char *file_rate = g_strdup_printf (" %.*s ",
                                                      (int) (strchr (expected[i].file_rate_text, ' ')
                                                             - expected[i].file_rate_text),
                                                      expected[i].file_rate_text);
        g_autofree char *duration = g_strdup_printf (" %s ", expected[i].duration_text);
        gboolean found = FALSE;

        for (guint l = 0; lines[l] != NULL && !found; l++)
          {
            g_autofree char *padded = g_strconcat (" ", lines[l], " ", NULL);

            /* Columns; so the figures stand alone between spaces. */
            g_strdelimit (padded, "\t", ' ');
            found = strstr (padded, duration) != NULL && strstr (padded, speed) != NULL
                    && strstr (padded, file_rate) != NULL;
          }
        if (!found)
          g_error ("copyscope-cli history has no line with%s,%s and%s:\n%s",
                   duration, speed, file_rate, history);
      }
  }

  /* Every export of each run, written by the CLI from the saved record. */
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *json = g_build_filename (home, "run.json", NULL);
      const char *formats[] = { "md", "html" };

      g_assert_true (cs_run_save (runs[i], json, NULL));
      for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
        {
          const char *argv[] = { cli, "report", "--format", formats[f], "--output", "-",
                                 json, NULL };
          g_autofree char *report = run_cli (argv, NULL);
          g_autofree char *where = g_strdup_printf ("the %s report", formats[f]);

          assert_shows (where, report, &expected[i]);
        }
      {
        const char *argv[] = { cli, "report", "--format", "csv", "--output", "-", json, NULL };
        g_autofree char *csv = run_cli (argv, NULL);

        assert_csv ("the CSV report", csv, 0, &expected[i]);
      }
      {
        const char *argv[] = { cli, "report", "--format", "json", "--output", "-", json, NULL };
        g_autofree char *text = run_cli (argv, NULL);

        assert_json_figures ("the JSON record", text, &expected[i]);
      }
    }

  /* The window: History, each run's summary, and the two compared. */
  window = cs_ui_window_new ();
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-history", NULL);
  history_page = (CsHistoryPage *) cs_ui_find (window, CS_TYPE_HISTORY_PAGE);
  g_assert_cmpuint (cs_history_page_get_n_runs (history_page), ==, 2);
  for (guint r = 0; r < 2; r++)
    {
      CsHistoryRow *row = cs_history_page_get_run_row (history_page, r);
      guint i = row_is_for (row, paused) ? 0 : 1;
      g_autofree char *text = shown_text (row);

      g_assert_true (row_is_for (row, runs[i]));
      assert_window_shows ("the window's history", text, &expected[i]);
      cs_history_row_set_chosen (row, TRUE);
    }

  for (guint i = 0; i < 2; i++)
    {
      CsSummaryPage *summary = (CsSummaryPage *) cs_ui_find (window, CS_TYPE_SUMMARY_PAGE);
      g_autofree char *text = NULL;

      cs_summary_page_set_run (summary, runs[i]);
      gtk_stack_set_visible_child_name (cs_ui_page_stack (window), "summary");
      cs_ui_iterate ();
      text = shown_text (summary);
      assert_window_shows ("the window's summary", text, &expected[i]);
      if (i == 0)
        cs_ui_screenshot (window, "figures-summary.png");
    }

  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-history", NULL);
  cs_history_page_compare (history_page);
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "compare");
  {
    CsComparePage *compare = (CsComparePage *) cs_ui_find (window, CS_TYPE_COMPARE_PAGE);
    g_autofree char *text = shown_text (compare);

    for (guint i = 0; i < 2; i++)
      {
        assert_window_shows ("the comparison's verdict", cs_compare_page_get_verdict (compare), &expected[i]);
        assert_window_shows ("the comparison page", text, &expected[i]);
      }
  }

  cs_ui_window_destroy (window);
  for (guint i = 0; i < 2; i++)
    expected_clear (&expected[i]);
}

/* ---- Held: a question open, the copy paused -------------------------------- */

typedef struct {
  CsWindow       *window;
  CsJob          *job;
  CsProgressView *card;
  CsProgress      last;        /* what the card was shown last, read again */
  guint           n_checked;
  guint           holds;       /* watched so far */
  guint           n_checked_after[2];  /* of the checks, after the first and second hold */
} Watch;

/* The live card's speed against what the job's counters allow: the bytes
 * copied so far over the clock's seconds in the speed's window (the whole
 * clock while it is shorter; else the window less a sample's gap). The card
 * read the counters a moment before @p: as much of the clock is allowed. */
static void
assert_card_bounded (Watch            *watch,
                     const CsProgress *p)
{
  double rate = cs_progress_view_get_rate (watch->card);
  double span, bound;

  if (p->elapsed <= 0.01)
    {
      g_assert_cmpfloat (rate, ==, 0);
      return;
    }
  span = p->elapsed <= CS_ETA_SPEED_WINDOW ? p->elapsed : CS_ETA_SPEED_WINDOW - 0.5;
  bound = (double) (p->bytes_copied + p->bytes_copying) / (span - 0.01);
  if (rate > bound)
    g_error ("the card shows %.1f MB/s, the counters allow %.1f MB/s (%" G_GUINT64_FORMAT
             " bytes in %.3f s of the clock)", rate / 1e6, bound / 1e6,
             p->bytes_copied + p->bytes_copying, p->elapsed);
  watch->n_checked++;
  if (watch->holds > 0)
    watch->n_checked_after[watch->holds - 1]++;
}

static void
on_window_progress (CsJob    *job,
                    gpointer  data)
{
  Watch *watch = data;

  cs_job_get_progress (job, &watch->last);
  assert_card_bounded (watch, &watch->last);
}

/* For HOLD_MS the clock stands still, the card's speed with it, and no sample
 * reaches past it: no rate divides bytes by time the clock did not run. */
static void
watch_hold (Watch *watch)
{
  CsRun *run = cs_job_get_run (watch->job);
  gint64 until = g_get_monotonic_time () + HOLD_MS * 1000;
  gint64 settled = g_get_monotonic_time () + 300 * 1000;
  double rate;
  CsProgress first, p;

  /* What was on its way when the clock stopped arrives first. */
  cs_job_get_progress (watch->job, &first);
  while (watch->last.elapsed != first.elapsed && g_get_monotonic_time () < settled)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (5000);
    }
  rate = cs_progress_view_get_rate (watch->card);
  while (g_get_monotonic_time () < until)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (5000);
      cs_job_get_progress (watch->job, &p);
      g_assert_cmpfloat (p.elapsed, ==, first.elapsed);
      g_assert_cmpfloat (cs_progress_view_get_rate (watch->card), ==, rate);
      {
        g_autofree CsSample *samples = NULL;
        guint n = 0;

        samples = cs_run_dup_samples (run, &n);
        if (n > 0)
          g_assert_cmpfloat (samples[n - 1].t, <=, first.elapsed);
      }
      assert_card_bounded (watch, &watch->last);
    }
  watch->holds++;
}

static gboolean
dialog_open (gpointer data)
{
  Watch *watch = data;

  return cs_ui_find_dialog (watch->window) != NULL || cs_window_get_job (watch->window) == NULL;
}

static gboolean
half_done (gpointer data)
{
  Watch *watch = data;
  CsProgress p;

  if (cs_window_get_job (watch->window) == NULL)
    return TRUE;
  cs_job_get_progress (watch->job, &p);
  return !p.scanning && p.files_done >= p.files_found / 2;
}

static gboolean
paused (gpointer data)
{
  Watch *watch = data;

  return cs_job_get_state (watch->job) == CS_JOB_STATE_PAUSED;
}

/* The window's copy, asked about one file and paused once: its live speed
 * never exceeds what its counters moved over its clock's time (the window
 * once showed 334.6 GB/s while a conflict dialog waited), and its summary's
 * speed is the bytes copied over a duration without the holds. */
static void
test_held_bounded (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "source", NULL);
  g_autofree char *destination = g_build_filename (root, "destination", NULL);
  g_autofree char *copied = g_build_filename (destination, "source", NULL);
  g_autoptr(GFile) source_file = g_file_new_for_path (source);
  g_autoptr(GFile) destination_file = g_file_new_for_path (destination);
  GFile *sources[] = { source_file };
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) dir = NULL;
  g_autoptr(CsRun) run = NULL;
  g_autofree char *asked = NULL;
  const char *name;
  Watch watch = { 0 };
  CsFigures figures;
  CsTotals totals;
  gint64 wall;

  /* The first file the scan meets is newer at the destination: it is asked
   * about while the rest is still to copy. */
  cs_generate_files_sync (source, N_FILES, FILE_SIZE, 5, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  dir = g_dir_open (source, 0, &error);
  g_assert_no_error (error);
  name = g_dir_read_name (dir);
  asked = g_build_filename (copied, name, NULL);
  g_assert_cmpint (g_mkdir_with_parents (copied, 0755), ==, 0);
  g_assert_true (g_file_set_contents (asked, "newer", -1, NULL));
  {
    gint64 later = g_get_real_time () / G_USEC_PER_SEC + 500;

    g_assert_cmpint (g_utime (asked, &(struct utimbuf) { later, later }), ==, 0);
  }

  watch.window = cs_ui_window_new ();
  watch.card = (CsProgressView *) cs_ui_find (watch.window, CS_TYPE_PROGRESS_VIEW);
  cs_window_add_sources (watch.window, sources, 1);
  cs_window_set_destination (watch.window, destination_file);
  cs_thread_slider_set_threads (cs_setup_page_get_thread_slider (
                                  (CsSetupPage *) cs_ui_find (watch.window, CS_TYPE_SETUP_PAGE)), 2);
  cs_setup_page_set_overwrite ((CsSetupPage *) cs_ui_find (watch.window, CS_TYPE_SETUP_PAGE),
                               CS_OVERWRITE_ASK);
  wall = g_get_monotonic_time ();
  gtk_widget_activate_action (GTK_WIDGET (watch.window), "win.start", NULL);
  watch.job = g_object_ref (cs_window_get_job (watch.window));
  run = cs_run_ref (cs_job_get_run (watch.job));
  /* Slow enough to pause in the middle, short enough for the speed's window. */
  cs_job_set_max_files (watch.job, 300);
  g_signal_connect_after (watch.job, "progress", G_CALLBACK (on_window_progress), &watch);

  g_assert_true (cs_ui_wait_until (dialog_open, &watch, WAIT_SECONDS));
  g_assert_nonnull (cs_ui_find_dialog (watch.window));
  watch_hold (&watch);
  cs_ui_answer (cs_ui_find_dialog (watch.window), "Replace");

  g_assert_true (cs_ui_wait_until (half_done, &watch, WAIT_SECONDS));
  g_assert_nonnull (cs_window_get_job (watch.window));
  gtk_widget_activate_action (GTK_WIDGET (watch.window), "win.pause", NULL);
  g_assert_true (cs_ui_wait_until (paused, &watch, WAIT_SECONDS));
  watch_hold (&watch);
  gtk_widget_activate_action (GTK_WIDGET (watch.window), "win.pause", NULL);

  g_assert_true (cs_ui_wait_until (cs_ui_job_done, watch.window, WAIT_SECONDS));
  wall = g_get_monotonic_time () - wall;
  g_signal_handlers_disconnect_by_data (watch.job, &watch);
  /* Where the bug was: right after each hold, while the copy goes on. A
   * quiet machine makes a hundred checks in all, one at load 20 two dozen,
   * as few as four after the pause. */
  g_test_message ("%u checks of the card's speed, %u after the question, %u after the pause",
                  watch.n_checked, watch.n_checked_after[0], watch.n_checked_after[1]);
  g_assert_cmpuint (watch.n_checked_after[0], >=, 1);
  g_assert_cmpuint (watch.n_checked_after[1], >=, 1);

  /* Both holds are time held, not in the duration the speed divides by. */
  cs_run_get_figures (run, &figures);
  cs_run_get_totals (run, &totals);
  g_assert_cmpuint (totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, N_FILES);
  g_assert_cmpfloat (figures.held, >=, 2 * HOLD_MS / 1000.0 - 0.05);
  g_assert_cmpfloat (figures.duration + figures.held, <=, (double) wall / G_USEC_PER_SEC);
  g_assert_cmpfloat (fabs (figures.speed * 1e6 * figures.duration
                           - (double) totals.v[CS_CLASS_COPIED][CS_KIND_BYTES]), <, 1);
  /* And the graph marks them where the clock stood still. */
  {
    g_autoptr(GArray) events = cs_run_dup_events (run);
    guint n_holds = 0;

    for (guint i = 0; i < events->len; i++)
      {
        const CsRunEvent *event = &g_array_index (events, CsRunEvent, i);

        if (g_str_equal (event->kind, "pause") || g_str_equal (event->kind, "question"))
          n_holds++;
      }
    g_assert_cmpuint (n_holds, ==, 2);
  }

  cs_ui_window_destroy (watch.window);
  g_object_unref (watch.job);
  cs_test_tree_remove (root);
}

/* The flush at the end of a copy takes seconds on a local disk with nothing
 * moving: the card says the data is being written instead of a time left of
 * nothing, and goes back to a time left (or none) when it is not flushing. */
static void
test_flushing_card (void)
{
  GtkWidget *card_window = gtk_window_new ();
  CsProgressView *card = g_object_new (CS_TYPE_PROGRESS_VIEW, NULL);
  CsProgress p = { 0 };

  gtk_window_set_child (GTK_WINDOW (card_window), GTK_WIDGET (card));
  gtk_window_present (GTK_WINDOW (card_window));

  p.state = CS_JOB_STATE_RUNNING;
  p.total_known = TRUE;
  p.files_total = p.files_found = 1000;
  p.bytes_total = p.bytes_found = 1000 * 1000 * 100;
  for (guint i = 1; i <= 40; i++)
    {
      p.elapsed = i * 0.25;
      p.files_done = p.files_copied = i * 25;
      p.bytes_done = p.bytes_copied = p.files_done * 100 * 1000;
      cs_progress_view_update (card, &p);
    }
  cs_ui_iterate ();
  g_assert_nonnull (cs_ui_find_label (card, "left"));
  g_assert_null (cs_ui_find_label (card, "Writing to the disk"));

  p.flushing = TRUE;
  p.elapsed += 0.25;
  cs_progress_view_update (card, &p);
  cs_ui_iterate ();
  g_assert_nonnull (cs_ui_find_label (card, "Writing to the disk"));
  g_assert_null (cs_ui_find_label (card, "left"));

  gtk_window_destroy (GTK_WINDOW (card_window));
}

/* Samples at a steady pace for the hint under the live graph. */
static void
push_steady (CsLimitHint *hint,
             double      *t,
             CsSample    *s,
             guint        threads,
             double       files_per_s,
             double       seconds)
{
  for (double end = *t + seconds - 1e-9; *t < end;)
    {
      *t += 0.25;
      s->t = *t;
      s->files_done += (guint64) (files_per_s / 4);
      s->bytes_done += (guint64) (files_per_s / 4) * 12288;
      s->values[CS_COUNTER_REQUEST_RATE] = files_per_s * 25;
      s->values[CS_COUNTER_AVG_REQUEST_TIME] = 0.7;
      s->values[CS_COUNTER_AVG_WRITE_REQUEST_TIME] = 1.3;
      s->values[CS_COUNTER_CPU_USAGE] = 20;
      s->values[CS_COUNTER_THREADS] = threads;
      cs_limit_hint_push_sample (hint, s);
    }
}

/* The hint says what the samples show: round trips on a share rather than
 * "more threads help" for any small file, and, after a change of the slider
 * by hand, what the change did once both counts were measured; Auto's own
 * decision stays Auto's. */
static void
test_limit_hint (void)
{
  GtkWidget *hint_window = gtk_window_new ();
  CsLimitHint *hint = g_object_new (CS_TYPE_LIMIT_HINT, NULL);
  CsThreadChange by_hand = { 3.0, 2, 8, (char *) "slider" };
  CsThreadChange by_auto = { 6.0, 8, 16, (char *) "auto: files/s +3 % at 8 threads, trying 16" };
  CsSample s = { 0 };
  double t = 0;

  for (guint i = 0; i < CS_N_COUNTERS; i++)
    s.values[i] = NAN;
  gtk_window_set_child (GTK_WINDOW (hint_window), GTK_WIDGET (hint));
  gtk_window_present (GTK_WINDOW (hint_window));
  cs_limit_hint_set_remote (hint, TRUE);

  push_steady (hint, &t, &s, 2, 100, 3);
  cs_ui_iterate ();
  g_assert_nonnull (cs_ui_find_label (hint, "Small files on a share: 25 requests per file, 1.3 ms each"));
  g_assert_null (cs_ui_find_label (hint, "threads:"));

  cs_limit_hint_set_change (hint, &by_hand);
  push_steady (hint, &t, &s, 8, 140, 1.5);
  cs_ui_iterate ();
  g_assert_null (cs_ui_find_label (hint, "threads:"));
  push_steady (hint, &t, &s, 8, 140, 1.5);
  cs_ui_iterate ();
  g_assert_nonnull (cs_ui_find_label (hint, "2 → 8 threads: files/s +40 %"));

  cs_limit_hint_set_change (hint, &by_auto);
  push_steady (hint, &t, &s, 16, 140, 3);
  cs_ui_iterate ();
  g_assert_nonnull (cs_ui_find_label (hint, "Auto: 8 → 16 threads — files/s +3 % at 8 threads"));
  g_assert_null (cs_ui_find_label (hint, "no faster"));

  gtk_window_destroy (GTK_WINDOW (hint_window));
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *data = NULL;
  g_autofree char *cache = NULL;
  g_autofree char *config = NULL;
  int status;

  /* Before GTK starts: GLib reads these once, and the history is kept there. */
  home = cs_test_tree_make_tmp ();
  data = g_build_filename (home, "data", NULL);
  cache = g_build_filename (home, "cache", NULL);
  config = g_build_filename (home, "config", NULL);
  g_setenv ("XDG_DATA_HOME", data, TRUE);
  g_setenv ("XDG_CACHE_HOME", cache, TRUE);
  g_setenv ("XDG_CONFIG_HOME", config, TRUE);

  cs_ui_test_init (&argc, &argv);
  cli = g_getenv ("CS_CLI");
  g_assert_nonnull (cli);

  g_test_add_func ("/figures/one-run-everywhere", test_one_run_everywhere);
  g_test_add_func ("/figures/held-bounded", test_held_bounded);
  g_test_add_func ("/figures/flushing-card", test_flushing_card);
  g_test_add_func ("/figures/limit-hint", test_limit_hint);

  status = g_test_run ();
  cs_test_tree_remove (home);
  g_free (home);

  return status;
}
