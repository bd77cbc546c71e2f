/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-window"

#include "config.h"

#include "test-window.h"

/* Copies, moves and mirrors from the window, and what they leave in History:
 * the log and the checksum list. */

void
test_copy (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "source", NULL);
  g_autofree char *destination = g_build_filename (root, "destination", NULL);
  g_autofree char *copied = g_build_filename (destination, "source", NULL);
  g_autofree char *nested = g_build_filename (source, "nested", NULL);
  g_autofree char *nested_file = g_build_filename (nested, "deep.bin", NULL);
  CsWindow *window;
  CsRun *run;

  generate (source, 300, 20000);
  g_assert_cmpint (g_mkdir (nested, 0755), ==, 0);
  write_file (nested_file, 1 << 20, 9);
  g_assert_cmpint (g_mkdir (destination, 0755), ==, 0);

  window = window_with_copy (source, destination, 4);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_nonnull (cs_window_get_job (window));
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "copying");
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (cs_ui_find_button (window, "Cancel Copy"))));

  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "summary");

  run = cs_summary_page_get_run (summary_page (window));
  g_assert_nonnull (run);
  g_assert_cmpstr (cs_run_get_outcome (run), ==, "completed");
  cs_test_tree_assert_equal (source, copied);
  g_assert_cmpuint (count_temporaries (destination), ==, 0);
  cs_ui_screenshot (window, "05-summary.png");

  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
}

/* A rerun onto a complete destination reads as checking, with its own
 * rate on the graph; a fresh copy never does (issue 40). */
static CsIoTable slow_table;

/* Each look at a file a little slow, so the rerun lasts long enough to be
 * seen in the middle. */
static int
slow_fstatat (int          dirfd,
              const char  *path,
              struct stat *st,
              int          flags)
{
  /* 3,000 files take the scan about 3 s: the count ahead, which waits a
   * second of a scan before it begins (cs-count-ahead.c), gives the total
   * while the window still reads as checking. */
  g_usleep (1000);
  return _cs_io_get_default ()->fstatat (dirfd, path, st, flags);
}

typedef struct {
  CsWindow *window;
  gboolean  seen_checking;
} Watch;

static CsProgressView *
progress_view (CsWindow *window)
{
  return CS_PROGRESS_VIEW (cs_ui_find (window, CS_TYPE_PROGRESS_VIEW));
}

/* Until the job ends, notes whether the window ever read as checking. */
static gboolean
done_watching (gpointer data)
{
  Watch *watch = data;

  if (cs_ui_find_label (watch->window, "to copy so far") != NULL
      || cs_progress_view_get_checking (progress_view (watch->window)))
    watch->seen_checking = TRUE;
  return cs_ui_job_done (watch->window);
}

/* Until the headline reads as checking with the run's whole total (the
 * count ahead's), or the job ends. */
static gboolean
shows_checking_total (gpointer data)
{
  CsWindow *window = data;
  GtkWidget *headline = cs_ui_find_label (window, "to copy so far");
  g_autofree char *files = g_strdup_printf ("of %'d files — ", 3000);

  return (headline != NULL && strstr (gtk_label_get_label (GTK_LABEL (headline)), files) != NULL)
         || cs_ui_job_done (window);
}

void
test_rerun_checking (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "source", NULL);
  g_autofree char *destination = g_build_filename (root, "destination", NULL);
  g_autofree char *copied = g_build_filename (destination, "source", NULL);
  /* Counts group as the locale says. */
  g_autofree char *files = g_strdup_printf ("of %'d files — ", 3000);
  g_autofree char *checked = g_strdup_printf ("Checked %'d files, copied 0 (", 3000);
  Watch watch = { 0 };
  GtkLabel *headline;
  const char *text;
  CsWindow *window;

  generate (source, 3000, 100);
  g_assert_cmpint (g_mkdir (destination, 0755), ==, 0);

  /* A fresh copy: the usual progress, never "Checking". */
  window = window_with_copy (source, destination, 2);
  watch.window = window;
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (cs_ui_wait_until (done_watching, &watch, WAIT_SECONDS));
  g_assert_false (watch.seen_checking);
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "summary");
  g_assert_null (cs_ui_find_label (window, "Checked "));
  cs_test_tree_assert_equal (source, copied);
  cs_ui_window_destroy (window);

  /* The same copy again: every file is there. */
  slow_table = *_cs_io_get_default ();
  slow_table.fstatat = slow_fstatat;
  _cs_io_set (&slow_table);
  window = window_with_copy (source, destination, 2);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (cs_ui_wait_until (shows_checking_total, window, WAIT_SECONDS));
  g_assert_false (cs_ui_job_done (window));
  headline = GTK_LABEL (cs_ui_find_label (window, "to copy so far"));
  g_assert_nonnull (headline);
  text = gtk_label_get_label (headline);
  g_assert_true (g_str_has_prefix (text, "Checking "));
  g_assert_nonnull (strstr (text, files));
  g_assert_nonnull (strstr (text, " — 0 to copy so far"));
  g_assert_true (cs_progress_view_get_checking (progress_view (window)));
  g_assert_true (cs_throughput_graph_get_show_checks (
    CS_THROUGHPUT_GRAPH (cs_ui_find (cs_ui_find (window, CS_TYPE_COPY_PAGE), CS_TYPE_THROUGHPUT_GRAPH))));
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  _cs_io_set (NULL);

  /* The summary says what was checked and what copied. */
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "summary");
  g_assert_nonnull (cs_ui_find_label (summary_page (window), checked));
  g_assert_nonnull (cs_ui_find_label (summary_page (window), " files checked/s · "));
  g_assert_true (cs_throughput_graph_get_show_checks (
    CS_THROUGHPUT_GRAPH (cs_ui_find (GTK_WIDGET (summary_page (window)), CS_TYPE_THROUGHPUT_GRAPH))));
  cs_ui_screenshot (window, "rerun-summary.png");

  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
}

/* Names in the history folder that start with @prefix and end with @suffix. */
static guint
count_in_history (const char *prefix,
                  const char *suffix)
{
  g_autofree char *dir_path = cs_history_get_dir ();
  g_autoptr(GDir) dir = g_dir_open (dir_path, 0, NULL);
  const char *name;
  guint n = 0;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    n += g_str_has_prefix (name, prefix) && g_str_has_suffix (name, suffix);

  return n;
}

static CsHistoryRow *
history_row_of (CsWindow *window,
                CsRun    *run)
{
  CsHistoryPage *page = CS_HISTORY_PAGE (cs_ui_find (window, CS_TYPE_HISTORY_PAGE));
  CsHistoryRow *row;

  for (guint i = 0; (row = cs_history_page_get_run_row (page, i)) != NULL; i++)
    if (g_strcmp0 (cs_run_get_id (cs_history_row_get_run (row)), cs_run_get_id (run)) == 0)
      return row;

  return NULL;
}

/* "Keep a Log of Every File": the copy's log lies beside its record, one line
 * per file as the CLI's --log writes it, names escaped; the summary offers
 * it, and so does the run opened from History, which deletes it with the run
 * (and puts it back on Undo). Off, the default, there is none. */
void
test_log (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "source", NULL);
  g_autofree char *sub = g_build_filename (source, "sub", NULL);
  g_autofree char *destination = g_build_filename (root, "destination", NULL);
  g_autofree char *second = g_build_filename (root, "second", NULL);
  g_autofree char *history = cs_history_get_dir ();
  /* A newline, a tab and a byte that is no UTF-8 in names. */
  const char *names[] = { "plain.txt", "sub/deep.bin", "two\nlines.txt", "tab\tbed.txt", "bad-\xff.bin" };
  const char *escaped[] = { "plain.txt", "sub/deep.bin", "two\\nlines.txt", "tab\\tbed.txt", "bad-\\xff.bin" };
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autoptr(CsRun) logged = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) log_file = NULL;
  g_autoptr(GPtrArray) entries = NULL;
  g_autofree char *log = NULL;
  g_autofree char *record = NULL;
  g_autofree char *text = NULL;
  g_autofree char *undone = NULL;
  g_autofree char *uri = NULL;
  g_auto(GStrv) lines = NULL;
  GtkWidget *open_log;
  GtkWidget *undo;
  CsHistoryRow *row;
  CsWindow *window;
  CsRun *run;
  guint skipped = 1;

  g_assert_cmpint (g_mkdir_with_parents (sub, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (destination, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (second, 0755), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (source, names[i], NULL);

      write_file (path, 1000 * (i + 1), i);
    }
  _cs_window_set_session (&fake_session);

  window = window_with_copy (source, destination, 2);
  g_settings_set_boolean (settings, "keep-log", TRUE);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  run = cs_summary_page_get_run (summary_page (window));
  g_assert_cmpstr (cs_run_get_outcome (run), ==, "completed");
  logged = cs_run_ref (run);

  /* Beside the record: its name, ".log" for ".json". */
  log = cs_history_find_log (run);
  g_assert_nonnull (log);
  g_assert_true (g_str_has_prefix (log, history));
  g_assert_true (g_str_has_suffix (log, ".log"));
  record = g_strdup_printf ("%.*s.json", (int) (strlen (log) - strlen (".log")), log);
  g_assert_true (g_file_test (record, G_FILE_TEST_IS_REGULAR));

  /* One line per file, as cs-log.c writes them: "copied", size, source path. */
  g_file_get_contents (log, &text, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_utf8_validate (text, -1, NULL));
  lines = g_strsplit (text, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, G_N_ELEMENTS (names) + 1);
  g_assert_cmpstr (lines[G_N_ELEMENTS (names)], ==, "");
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *source_path = g_build_filename (source, names[i], NULL);
      g_autofree char *line = g_strdup_printf ("copied\t%u\t%s/%s", 1000 * (i + 1), source, escaped[i]);
      g_autofree char *path = NULL;
      gboolean found = FALSE;

      for (guint l = 0; lines[l] != NULL; l++)
        if (g_strcmp0 (lines[l], line) == 0)
          {
            g_auto(GStrv) fields = g_strsplit (lines[l], "\t", -1);

            found = TRUE;
            /* The exact bytes come back. */
            path = cs_text_unescape (fields[2], &error);
            g_assert_no_error (error);
            g_assert_cmpstr (path, ==, source_path);
          }
      if (!found)
        g_error ("No line “%s” in the log:\n%s", line, text);
    }

  /* The summary offers it; Open Log opens it. */
  g_assert_cmpstr (cs_summary_page_get_log_path (summary_page (window)), ==, log);
  open_log = cs_ui_find_button (summary_page (window), "Open Log");
  g_assert_nonnull (open_log);
  g_assert_true (gtk_widget_is_visible (open_log));
  g_assert_true (gtk_widget_is_sensitive (open_log));
  g_assert_nonnull (cs_ui_find_label (summary_page (window), "Log of Every File"));
  cs_ui_screenshot (window, "summary-log.png");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.open-log", NULL);
  log_file = g_file_new_for_path (log);
  uri = g_file_get_uri (log_file);
  g_assert_cmpstr (session.shown_uri, ==, uri);
  cs_ui_window_destroy (window);

  /* Off by default: a copy keeps no log, and its summary offers none. */
  window = window_with_copy (source, second, 2);
  g_assert_false (g_settings_get_boolean (settings, "keep-log"));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  run = cs_summary_page_get_run (summary_page (window));
  g_assert_cmpstr (cs_run_get_outcome (run), ==, "completed");
  g_assert_null (cs_history_find_log (run));
  g_assert_null (cs_summary_page_get_log_path (summary_page (window)));
  g_assert_false (gtk_widget_is_visible (cs_ui_find_button (summary_page (window), "Open Log")));
  g_assert_cmpuint (count_in_history ("", ".log"), ==, 1);

  /* History: the run opened there offers its log. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-history", NULL);
  row = history_row_of (window, logged);
  g_assert_nonnull (row);
  g_signal_emit_by_name (row, "activate");
  cs_ui_iterate ();
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "summary");
  g_assert_cmpstr (cs_summary_page_get_log_path (summary_page (window)), ==, log);
  g_assert_true (gtk_widget_is_visible (cs_ui_find_button (summary_page (window), "Open Log")));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.go-back", NULL);

  /* Deleted, the run takes its log along; Undo brings both back. */
  cs_history_row_delete (history_row_of (window, logged));
  g_assert_false (g_file_test (record, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (log, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (count_in_history ("", ".log"), ==, 1);  /* set aside, hidden */
  cs_ui_iterate ();
  undo = cs_ui_find_button (window, "Undo");
  g_assert_nonnull (undo);
  g_signal_emit_by_name (undo, "clicked");
  cs_ui_iterate ();
  g_assert_true (g_file_test (record, G_FILE_TEST_IS_REGULAR));
  g_file_get_contents (log, &undone, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (undone, ==, text);

  /* Deleted for good once its toast has gone, here with the window. */
  row = history_row_of (window, logged);
  g_assert_nonnull (row);
  cs_history_row_delete (row);
  g_assert_false (g_file_test (log, G_FILE_TEST_EXISTS));
  cs_ui_window_destroy (window);
  g_assert_cmpuint (count_in_history ("", ".log"), ==, 0);
  g_assert_cmpuint (count_in_history (".", ""), ==, 1);  /* the index alone */

  /* The index lists what is left, with nothing it cannot read. */
  entries = cs_history_list (&skipped, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (skipped, ==, 0);
  for (guint i = 0; i < entries->len; i++)
    g_assert_cmpstr (cs_run_get_id (((CsHistoryEntry *) entries->pdata[i])->run), !=, cs_run_get_id (logged));

  _cs_window_set_session (NULL);
  session_reset ();
  cs_test_tree_remove (root);
}

/* Scrolls the page holding @widget so that it is @above pixels below the top. */
static void
scroll_to (GtkWidget *widget,
           double     above)
{
  GtkWidget *scrolled = gtk_widget_get_ancestor (widget, GTK_TYPE_SCROLLED_WINDOW);
  GtkAdjustment *adjustment;

  g_assert_nonnull (scrolled);
  adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scrolled));
  /* A window just resized lays out on the next frames: until it holds. */
  for (guint i = 0; i < 50; i++)
    {
      graphene_point_t point;

      cs_ui_iterate ();
      g_assert_true (gtk_widget_compute_point (widget, gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (scrolled)),
                                               &GRAPHENE_POINT_INIT (0, 0), &point));
      gtk_adjustment_set_value (adjustment, point.y - above);
      if (fabs (gtk_adjustment_get_value (adjustment) - (point.y - above)) < 1)
        break;
      g_usleep (G_USEC_PER_SEC / 50);
    }
}

typedef struct {
  CsWindow *window;
  CsRun    *before;     /* the run the summary showed when the check began */
} CheckWait;

/* A check's summary is on screen: a run of kind "check", another than the
 * one shown before. */
static gboolean
check_shown (gpointer data)
{
  CheckWait *wait = data;
  CsRun *run = cs_summary_page_get_run (summary_page (wait->window));

  return g_strcmp0 (cs_ui_visible_page (wait->window), "summary") == 0 && run != NULL
         && run != wait->before && g_strcmp0 (cs_run_get_kind (run), "check") == 0;
}

/* "Keep a Checksum List": the copy's list lies beside its record in History,
 * paths relative to the destination, and xxhsum -c --strict agrees with it
 * there; the summary offers it and its check, which finds every file and
 * then a changed one; the run opened from History offers it too. Off, the
 * default, there is none. */
void
test_manifest (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "source", NULL);
  g_autofree char *sub = g_build_filename (source, "sub", NULL);
  g_autofree char *destination = g_build_filename (root, "destination", NULL);
  g_autofree char *second = g_build_filename (root, "second", NULL);
  g_autofree char *history = cs_history_get_dir ();
  g_autofree char *changed = g_build_filename (destination, "source", "sub", "deep.bin", NULL);
  g_autofree char *removed = g_build_filename (destination, "source", "plain.txt", NULL);
  g_autofree char *added = g_build_filename (destination, "source", "sub", "new.txt", NULL);
  g_autoptr(CsRun) checked = NULL;
  g_autoptr(CsRun) differences = NULL;
  CheckWait wait;
  g_autofree char *text = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  /* No newline: xxhsum 0.8.1 cannot check an escaped name (test-manifest
   * proves those with sha256sum). */
  const char *names[] = { "plain.txt", "sub/deep.bin", "with space.txt", "bad-\xff.bin" };
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autoptr(CsRun) kept = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *list_path = NULL;
  GtkWidget *undo;
  CsHistoryRow *row;
  CsRunManifest m;
  CsWindow *window;
  CsRun *run;
  int status = -1;

  g_assert_cmpint (g_mkdir_with_parents (sub, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (destination, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (second, 0755), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (source, names[i], NULL);

      write_file (path, 1000 * (i + 1), i);
    }
  _cs_window_set_session (&fake_session);

  window = window_with_copy (source, destination, 2);
  g_assert_false (g_settings_get_boolean (settings, "keep-manifest"));
  g_settings_set_boolean (settings, "keep-manifest", TRUE);
  g_assert_nonnull (cs_ui_find_label (window, "Keep a Checksum List"));
  /* Tall enough to show the option, below the others. */
  gtk_window_set_default_size (GTK_WINDOW (window), 1100, 1000);
  cs_ui_iterate ();
  cs_ui_screenshot (window, "setup-checksum-list.png");
  gtk_window_set_default_size (GTK_WINDOW (window), 1100, 800);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  run = cs_summary_page_get_run (summary_page (window));
  g_assert_cmpstr (cs_run_get_outcome (run), ==, "completed");
  kept = cs_run_ref (run);

  /* In History, named by the run's id; every file in it. */
  g_assert_true (cs_run_get_manifest (run, &m));
  g_assert_true (g_str_has_prefix (m.path, history));
  g_assert_true (g_str_has_suffix (m.path, ".xxh128"));
  g_assert_cmpuint (m.files, ==, G_N_ELEMENTS (names));
  list_path = g_strdup (m.path);
  g_file_get_contents (m.path, &text, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (text, "  source/sub/deep.bin\n"));
  g_spawn_sync (destination, (char *[]) { (char *) "xxhsum", (char *) "-c", (char *) "--strict", (char *) m.path, NULL },
                NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &status, &error);
  g_assert_no_error (error);
  g_test_message ("xxhsum: %s%s", out, err);
  g_assert_true (g_spawn_check_wait_status (status, NULL));

  /* The summary offers it, and checks the destination against it. */
  g_assert_nonnull (cs_ui_find_label (summary_page (window), "Checksum List"));
  g_assert_true (gtk_widget_is_visible (cs_ui_find_button (summary_page (window), "Check Now")));
  cs_ui_screenshot (window, "summary-checksum-list.png");
  wait = (CheckWait) { window, kept };
  gtk_widget_activate_action (GTK_WIDGET (window), "win.check-run-manifest", NULL);
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "checking");
  g_assert_true (cs_ui_wait_until (check_shown, &wait, WAIT_SECONDS));
  g_assert_nonnull (cs_ui_find_label (summary_page (window), "Every File Matches"));
  checked = cs_run_ref (cs_summary_page_get_run (summary_page (window)));
  /* Back where it was started from: the copy's summary. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.go-back", NULL);
  cs_ui_iterate ();
  g_assert_true (cs_summary_page_get_run (summary_page (window)) == kept);

  /* A changed, a removed and an added file: a summary of the check lists
   * each, as a copy's lists its failures, and History keeps it. */
  write_file (changed, 2000, 77);
  g_assert_cmpint (g_unlink (removed), ==, 0);
  write_file (added, 300, 5);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.check-run-manifest", NULL);
  g_assert_true (cs_ui_wait_until (check_shown, &wait, WAIT_SECONDS));
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "summary");
  run = cs_summary_page_get_run (summary_page (window));
  g_assert_cmpstr (cs_run_get_kind (run), ==, "check");
  g_assert_cmpuint (cs_run_get_n_errors (run), ==, 3);
  g_assert_nonnull (cs_ui_find_label (summary_page (window), "Differences Found"));
  g_assert_nonnull (cs_ui_find_label (summary_page (window), "3 Differences"));
  g_assert_nonnull (cs_ui_find_label (summary_page (window), "Checked 4 files"));
  g_assert_nonnull (cs_ui_find_label (summary_page (window), "Changed: the contents differ"));
  g_assert_nonnull (cs_ui_find_label (summary_page (window), "Missing: listed in the checksum list"));
  g_assert_nonnull (cs_ui_find_label (summary_page (window), "Extra: not in the checksum list"));
  /* Named inside the folder checked, as the list names them. */
  g_assert_nonnull (cs_ui_find_label (summary_page (window), "source/sub/deep.bin"));
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (cs_ui_find_label (summary_page (window), "source/sub/deep.bin"))),
                   ==, "source/sub/deep.bin");
  g_assert_false (gtk_widget_is_visible (cs_ui_find_button (summary_page (window), "Retry Failed")));
  /* Tall enough for the differences below the graph. */
  gtk_window_set_default_size (GTK_WINDOW (window), 1100, 1060);
  cs_ui_iterate ();
  cs_ui_screenshot (window, "check-differences.png");
  gtk_window_set_default_size (GTK_WINDOW (window), 600, 800);
  cs_ui_iterate ();
  scroll_to (cs_ui_find_label (summary_page (window), "3 Differences"), 24);
  cs_ui_screenshot (window, "check-differences-600px.png");
  gtk_window_set_default_size (GTK_WINDOW (window), 1100, 800);
  differences = cs_run_ref (run);

  /* In History, said to be a check and what it found. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-history", NULL);
  cs_ui_iterate ();
  row = history_row_of (window, differences);
  g_assert_nonnull (row);
  g_test_message ("history: %s", adw_action_row_get_subtitle (ADW_ACTION_ROW (row)));
  g_assert_true (g_str_has_prefix (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)),
                                   "Checked 4 files against "));
  g_assert_true (g_str_has_suffix (gtk_widget_get_tooltip_text (GTK_WIDGET (row)), ".xxh128"));
  g_assert_nonnull (strstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)),
                            ": 1 changed, 1 missing or unreadable, 1 extra\nin "));
  g_assert_nonnull (history_row_of (window, checked));
  cs_ui_screenshot (window, "history-check.png");
  g_signal_emit_by_name (row, "activate");
  cs_ui_iterate ();
  g_assert_true (cs_summary_page_get_run (summary_page (window)) != differences);
  g_assert_cmpuint (cs_run_get_n_errors (cs_summary_page_get_run (summary_page (window))), ==, 3);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.go-back", NULL);
  cs_ui_iterate ();
  cs_ui_window_destroy (window);

  /* The same summary in Dutch, wide and 600 px wide: a window made in
   * that language, as the build's catalogues have it. */
  {
    g_autofree char *saved_locale = g_strdup (setlocale (LC_ALL, NULL));
    g_autofree char *saved_language = g_strdup (g_getenv ("LANGUAGE"));

    bindtextdomain (GETTEXT_PACKAGE, BUILD_ROOT G_DIR_SEPARATOR_S "po");
    bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
    textdomain (GETTEXT_PACKAGE);
    g_assert_nonnull (setlocale (LC_ALL, "nl_NL.UTF-8"));
    g_setenv ("LANGUAGE", "nl", TRUE);

    window = cs_ui_window_new ();
    gtk_window_set_default_size (GTK_WINDOW (window), 1100, 1060);
    cs_summary_page_set_run (summary_page (window), differences);
    gtk_stack_set_visible_child_name (cs_ui_page_stack (window), "summary");
    cs_ui_iterate ();
    g_assert_nonnull (cs_ui_find_label (summary_page (window), "Verschillen gevonden"));
    g_assert_nonnull (cs_ui_find_label (summary_page (window), "3 verschillen"));
    g_assert_nonnull (cs_ui_find_label (summary_page (window), "Gewijzigd: de inhoud wijkt af"));
    cs_ui_screenshot (window, "check-differences-nl.png");
    gtk_window_set_default_size (GTK_WINDOW (window), 600, 800);
    cs_ui_iterate ();
    /* Below "3 verschillen, hieronder vermeld": the list's first row. */
    scroll_to (cs_ui_find_label (summary_page (window), "Extra: staat niet"), 80);
    cs_ui_screenshot (window, "check-differences-nl-600px.png");
    cs_ui_window_destroy (window);

    if (saved_language != NULL)
      g_setenv ("LANGUAGE", saved_language, TRUE);
    else
      g_unsetenv ("LANGUAGE");
    setlocale (LC_ALL, saved_locale);
  }

  /* Off: no list, no row. */
  window = window_with_copy (source, second, 2);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  run = cs_summary_page_get_run (summary_page (window));
  g_assert_false (cs_run_get_manifest (run, &m));
  g_assert_false (gtk_widget_is_visible (cs_ui_find_button (summary_page (window), "Check Now")));

  /* History: its entry says it has a list, and the run opened there
   * offers it. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-history", NULL);
  cs_ui_screenshot (window, "history-checksum-list.png");
  row = history_row_of (window, kept);
  g_assert_nonnull (row);
  g_assert_true (g_str_has_suffix (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), " · checksum list"));
  g_signal_emit_by_name (row, "activate");
  cs_ui_iterate ();
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "summary");
  g_assert_true (gtk_widget_is_visible (cs_ui_find_button (summary_page (window), "Check Now")));
  cs_ui_screenshot (window, "history-summary-checksum-list.png");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.go-back", NULL);

  /* Deleted, the run takes its list along; Undo brings it back. */
  cs_history_row_delete (history_row_of (window, kept));
  g_assert_false (g_file_test (list_path, G_FILE_TEST_EXISTS));
  cs_ui_iterate ();
  undo = cs_ui_find_button (window, "Undo");
  g_assert_nonnull (undo);
  g_signal_emit_by_name (undo, "clicked");
  cs_ui_iterate ();
  g_assert_true (g_file_test (list_path, G_FILE_TEST_IS_REGULAR));
  cs_ui_window_destroy (window);

  _cs_window_set_session (NULL);
  session_reset ();
  cs_test_tree_remove (root);
}

/* Move chosen on the setup page: the Start button and the chooser say so,
 * the job moves, and the sources are gone once their copies are there. */
void
test_move (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *photos = g_build_filename (root, "Photos", NULL);
  g_autofree char *reference = g_build_filename (root, "reference", NULL);
  g_autofree char *nas = g_build_filename (root, "nas1", NULL);
  g_autofree char *moved = g_build_filename (nas, "Photos", NULL);
  const char *cp[] = { "cp", "-a", photos, reference, NULL };
  g_autoptr(GError) error = NULL;
  GtkWidget *move_toggle;
  CsWindow *window;
  CsRun *run;
  int status;

  generate (photos, 20, 3000);
  g_spawn_sync (NULL, (char **) cp, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_cmpint (g_mkdir (nas, 0755), ==, 0);

  window = window_with_copy (photos, nas, 2);
  g_assert_nonnull (cs_ui_find_button (window, "Start Copy"));
  move_toggle = cs_ui_find_button (window, "Move");
  g_assert_nonnull (move_toggle);
  g_signal_emit_by_name (move_toggle, "clicked");
  cs_ui_iterate ();
  g_assert_null (cs_ui_find_button (window, "Start Copy"));
  g_assert_nonnull (cs_ui_find_button (window, "Start Move"));
  g_assert_nonnull (cs_ui_find_label (window, "Move Into"));
  cs_ui_screenshot (window, "10-move-setup.png");

  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  run = cs_summary_page_get_run (summary_page (window));
  g_assert_cmpint (cs_run_get_settings (run)->operation, ==, CS_OPERATION_MOVE);
  g_assert_cmpstr (cs_run_get_outcome (run), ==, "completed");
  cs_test_tree_assert_equal (reference, moved);
  g_assert_false (g_file_test (photos, G_FILE_TEST_EXISTS));

  /* Files handed over now start the next job: the moved sources are not
   * in it. */
  {
    g_autoptr(GFile) next = g_file_new_for_path (reference);
    GFile *files[] = { next };

    cs_window_add_sources (window, files, 1);
    g_assert_cmpuint (g_list_model_get_n_items (cs_setup_page_get_sources (setup_page (window))), ==, 1);
  }

  /* Copy again: the choice stays until changed, as the other options do. */
  g_assert_nonnull (cs_ui_find_button (window, "Start Move"));
  cs_window_set_operation (window, CS_OPERATION_COPY);
  g_assert_nonnull (cs_ui_find_button (window, "Start Copy"));

  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
}

static void
collect_row_titles (GtkWidget *widget,
                    GPtrArray *titles)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (ADW_IS_ACTION_ROW (child))
        g_ptr_array_add (titles, g_strdup (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (child))));
      collect_row_titles (child, titles);
    }
}

static gboolean
string_in (GPtrArray  *strings,
           const char *wanted)
{
  for (guint i = 0; i < strings->len; i++)
    if (g_strcmp0 (g_ptr_array_index (strings, i), wanted) == 0)
      return TRUE;

  return FALSE;
}

/* Runs the window's mirror of @source into @nas and answers its question
 * with @answer; returns the run, which the summary page holds. */
static CsRun *
run_mirror (CsWindow   *window,
            const char *answer,
            const char *screenshot)
{
  AdwMessageDialog *dialog;
  g_autoptr(GPtrArray) titles = g_ptr_array_new_with_free_func (g_free);
  const char *body;

  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_nonnull (cs_window_get_job (window));
  g_assert_true (cs_ui_wait_until (conflict_shown, window, WAIT_SECONDS));
  dialog = cs_ui_find_dialog (window);
  g_assert_nonnull (dialog);
  if (screenshot != NULL)
    cs_ui_screenshot (dialog, screenshot);

  /* Counts and bytes, the limit, and exactly the extras. */
  body = adw_message_dialog_get_body (dialog);
  g_test_message ("%s", body);
  g_assert_nonnull (strstr (body, "delete 2 files (3.5"));
  g_assert_nonnull (strstr (body, "kB) and 2 folders from “nas1”"));
  g_assert_nonnull (strstr (body, "at most 1,000 files and folders"));
  collect_row_titles (GTK_WIDGET (dialog), titles);
  g_assert_cmpuint (titles->len, ==, 4);
  g_assert_true (string_in (titles, "Photos/old.txt"));
  g_assert_true (string_in (titles, "Photos/gone/older.txt"));
  g_assert_true (string_in (titles, "Photos/gone"));
  g_assert_true (string_in (titles, "Photos/empty"));

  /* While it asks, nothing is deleted. */
  g_assert_nonnull (cs_window_get_job (window));
  cs_ui_answer (dialog, answer);
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  g_assert_null (cs_ui_find_dialog (window));

  return cs_summary_page_get_run (summary_page (window));
}

/* The window's mirror lists what it would delete, counts and bytes, and asks
 * once: Keep deletes nothing, Delete deletes exactly those. */
void
test_mirror (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *photos = g_build_filename (root, "Photos", NULL);
  g_autofree char *nas = g_build_filename (root, "nas1", NULL);
  g_autofree char *mirrored = g_build_filename (nas, "Photos", NULL);
  g_autofree char *gone = g_build_filename (mirrored, "gone", NULL);
  g_autofree char *empty = g_build_filename (mirrored, "empty", NULL);
  g_autofree char *old = g_build_filename (mirrored, "old.txt", NULL);
  g_autofree char *older = g_build_filename (gone, "older.txt", NULL);
  g_autofree char *new_file = g_build_filename (photos, "new.txt", NULL);
  g_autofree char *new_copy = g_build_filename (mirrored, "new.txt", NULL);
  const char *cp[] = { "cp", "-a", photos, nas, NULL };
  g_autoptr(GError) error = NULL;
  GtkWidget *mirror_toggle;
  CsWindow *window;
  CsRemovals removals;
  CsRun *run;
  int status;

  generate (photos, 20, 3000);
  g_assert_cmpint (g_mkdir (nas, 0755), ==, 0);
  g_spawn_sync (NULL, (char **) cp, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  /* The source gained a file; the destination has what the source lost. */
  write_file (new_file, 1000, 1);
  g_assert_cmpint (g_mkdir (gone, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (empty, 0755), ==, 0);
  write_file (old, 1500, 2);
  write_file (older, 2000, 3);

  window = window_with_copy (photos, nas, 2);
  mirror_toggle = cs_ui_find_button (window, "Mirror");
  g_assert_nonnull (mirror_toggle);
  g_signal_emit_by_name (mirror_toggle, "clicked");
  cs_ui_iterate ();
  g_assert_nonnull (cs_ui_find_button (window, "Start Mirror"));
  g_assert_nonnull (cs_ui_find_label (window, "Mirror Into"));
  cs_ui_screenshot (window, "11-mirror-setup.png");

  /* Keep: the new file is copied, nothing is deleted, the summary says so. */
  run = run_mirror (window, "Keep Them", "12-mirror-deletions.png");
  g_assert_cmpint (cs_run_get_settings (run)->operation, ==, CS_OPERATION_MIRROR);
  g_assert_cmpint (cs_run_get_settings (run)->max_delete, ==, CS_JOB_DEFAULT_MAX_DELETE);
  cs_run_get_removals (run, &removals);
  g_assert_cmpuint (removals.deleted_files + removals.deleted_dirs, ==, 0);
  g_assert_cmpuint (removals.not_deleted, ==, 4);
  assert_file_bytes (new_copy, 1000, 1);
  assert_file_bytes (old, 1500, 2);
  assert_file_bytes (older, 2000, 3);
  g_assert_true (g_file_test (empty, G_FILE_TEST_IS_DIR));

  /* Delete: exactly the extras go, and the destination matches the source. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.new-copy", NULL);
  cs_ui_iterate ();
  if (g_list_model_get_n_items (cs_setup_page_get_sources (setup_page (window))) == 0)
    {
      g_autoptr(GFile) again = g_file_new_for_path (photos);
      GFile *files[] = { again };

      cs_window_add_sources (window, files, 1);
    }
  g_assert_nonnull (cs_ui_find_button (window, "Start Mirror"));
  run = run_mirror (window, "Delete", NULL);
  cs_run_get_removals (run, &removals);
  g_assert_cmpuint (removals.deleted_files, ==, 2);
  g_assert_cmpuint (removals.deleted_dirs, ==, 2);
  g_assert_cmpuint (removals.deleted_bytes, ==, 3500);
  g_assert_cmpuint (removals.not_deleted, ==, 0);
  g_assert_cmpstr (cs_run_get_outcome (run), ==, "completed");
  cs_test_tree_assert_equal (photos, mirrored);

  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
}
