/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-window"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <string.h>
#include <utime.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include <adwaita.h>

#include "copyscope-engine.h"
#include "cs-copy-page.h"
#include "cs-fold-box.h"
#include "cs-history.h"
#include "cs-history-page.h"
#include "cs-history-row.h"
#include "cs-progress-view.h"
#include "cs-io-private.h"
#include "cs-queued-job.h"
#include "cs-resume-hint.h"
#include "cs-setup-page.h"
#include "cs-source-list.h"
#include "cs-source-row.h"
#include "cs-summary-page.h"
#include "cs-test-tree.h"
#include "cs-throughput-graph.h"
#include "cs-ui-test.h"
#include "cs-window-session.h"

/*
 * The window in-process, driven the way a user would: drops, actions, the
 * slider, dialog answers; checked against the real files the engine wrote.
 * Widgets are found by what they are and what they are called.
 */

#define WAIT_SECONDS 60

static CsSetupPage *
setup_page (CsWindow *window)
{
  return CS_SETUP_PAGE (cs_ui_find (window, CS_TYPE_SETUP_PAGE));
}

static CsSourceList *
source_list (CsWindow *window)
{
  return CS_SOURCE_LIST (cs_ui_find (window, CS_TYPE_SOURCE_LIST));
}

static CsThreadSlider *
setup_slider (CsWindow *window)
{
  return cs_setup_page_get_thread_slider (setup_page (window));
}

static CsThreadSlider *
live_slider (CsWindow *window)
{
  return cs_copy_page_get_thread_slider (CS_COPY_PAGE (cs_ui_find (window, CS_TYPE_COPY_PAGE)));
}

static CsSummaryPage *
summary_page (CsWindow *window)
{
  return CS_SUMMARY_PAGE (cs_ui_find (window, CS_TYPE_SUMMARY_PAGE));
}

static GtkWidget *
graph (CsWindow *window)
{
  return cs_ui_find_labelled (window, CS_TYPE_THROUGHPUT_GRAPH, "Throughput graph");
}

static void
write_file (const char *path,
            gsize       size,
            guint       seed)
{
  g_autofree char *data = g_malloc (size);
  g_autoptr(GError) error = NULL;

  for (gsize i = 0; i < size; i++)
    data[i] = (char) ((i * 131 + seed * 17 + (i >> 9)) & 0xff);

  g_file_set_contents (path, data, (gssize) size, &error);
  g_assert_no_error (error);
}

static guint
count_temporaries (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;
  guint n = 0;

  if (dir == NULL)
    return 0;

  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_str_has_prefix (name, ".copyscope-"))
        n++;
      if (g_file_test (child, G_FILE_TEST_IS_DIR))
        n += count_temporaries (child);
    }

  return n;
}

static GtkDropTarget *
find_drop_target (GtkWidget *widget)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (GTK_IS_DROP_TARGET (controller))
        return GTK_DROP_TARGET (controller);
    }

  return NULL;
}

static GtkListBox *
find_list_box (GtkWidget *widget)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkListBox *found;

      /* The preferences group has a list box of its own; ours holds the rows. */
      if (GTK_IS_LIST_BOX (child) && CS_IS_SOURCE_ROW (gtk_widget_get_first_child (child)))
        return GTK_LIST_BOX (child);
      if ((found = find_list_box (child)) != NULL)
        return found;
    }

  return NULL;
}

static gboolean
all_rows_scanned (gpointer data)
{
  GtkListBox *list_box = data;

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (list_box)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (CS_IS_SOURCE_ROW (child) && !cs_source_row_get_scanned (CS_SOURCE_ROW (child)))
      return FALSE;

  return TRUE;
}

static void
test_drop (void)
{
  g_autofree char *dir = cs_test_tree_make_tmp ();
  g_autofree char *file = g_build_filename (dir, "photo.jpg", NULL);
  g_autofree char *folder = g_build_filename (dir, "Holiday", NULL);
  g_autofree char *inner = g_build_filename (folder, "a.txt", NULL);
  g_autofree char *odd = g_build_filename (dir, "two\nlines", NULL);
  g_autoptr(GFile) gfile = g_file_new_for_path (file);
  g_autoptr(GFile) gfolder = g_file_new_for_path (folder);
  g_autoptr(GFile) godd = g_file_new_for_path (odd);
  GSList *files = NULL;
  GValue value = G_VALUE_INIT;
  GtkDropTarget *target;
  GtkListBox *list_box;
  gboolean handled = FALSE;
  CsWindow *window;
  guint n_rows = 0;
  gboolean saw_odd = FALSE;

  write_file (file, 1000, 1);
  g_assert_cmpint (g_mkdir (folder, 0755), ==, 0);
  write_file (inner, 2000, 2);
  write_file (odd, 30, 3);

  window = cs_ui_window_new ();
  cs_ui_screenshot (window, "01-empty.png");

  target = find_drop_target (GTK_WIDGET (source_list (window)));
  g_assert_nonnull (target);

  files = g_slist_append (files, g_object_ref (gfile));
  files = g_slist_append (files, g_object_ref (gfolder));
  files = g_slist_append (files, g_object_ref (godd));
  g_value_init (&value, GDK_TYPE_FILE_LIST);
  g_value_take_boxed (&value, files);
  g_signal_emit_by_name (target, "drop", &value, 10.0, 10.0, &handled);
  g_value_unset (&value);

  g_assert_true (handled);
  g_assert_cmpuint (cs_source_list_get_n_files (source_list (window)), ==, 3);

  list_box = find_list_box (GTK_WIDGET (source_list (window)));
  g_assert_nonnull (list_box);
  g_assert_true (cs_ui_wait_until (all_rows_scanned, list_box, WAIT_SECONDS));

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (list_box)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      const char *title;

      if (!CS_IS_SOURCE_ROW (child))
        continue;
      n_rows++;
      title = adw_preferences_row_get_title (ADW_PREFERENCES_ROW (child));
      /* A newline in a name shows as a symbol, never as a second line. */
      g_assert_null (strchr (title, '\n'));
      if (g_str_has_prefix (title, "two"))
        saw_odd = TRUE;
      if (g_strcmp0 (title, "Holiday") == 0)
        {
          g_assert_cmpuint (cs_source_row_get_n_files (CS_SOURCE_ROW (child)), ==, 1);
          g_assert_cmpuint (cs_source_row_get_n_bytes (CS_SOURCE_ROW (child)), ==, 2000);
        }
    }
  g_assert_cmpuint (n_rows, ==, 3);
  g_assert_true (saw_odd);

  /* Dropping the same items again adds nothing. */
  {
    GFile *again[] = { gfile };

    cs_window_add_sources (window, again, 1);
    g_assert_cmpuint (cs_source_list_get_n_files (source_list (window)), ==, 3);
  }

  /* Without a destination there is nothing to start. */
  g_assert_false (gtk_widget_is_sensitive (GTK_WIDGET (cs_ui_find_button (window, "Start Copy"))));
  {
    g_autoptr(GFile) destination = g_file_new_for_path (g_get_tmp_dir ());

    cs_window_set_destination (window, destination);
  }
  g_assert_true (gtk_widget_is_sensitive (GTK_WIDGET (cs_ui_find_button (window, "Start Copy"))));
  cs_ui_screenshot (window, "02-sources.png");

  cs_ui_window_destroy (window);
  cs_test_tree_remove (dir);
}

static CsWindow *
window_with_copy (const char *source,
                  const char *destination,
                  guint       threads)
{
  CsWindow *window = cs_ui_window_new ();
  g_autoptr(GFile) source_file = g_file_new_for_path (source);
  g_autoptr(GFile) destination_file = g_file_new_for_path (destination);
  GFile *sources[] = { source_file };

  cs_window_add_sources (window, sources, 1);
  cs_window_set_destination (window, destination_file);
  cs_thread_slider_set_threads (setup_slider (window), threads);

  return window;
}

static void
generate (const char *dir,
          guint64     n_files,
          guint64     size)
{
  g_autoptr(GError) error = NULL;

  cs_generate_files_sync (dir, n_files, size, 42, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
}

static void
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

static gboolean
has_progress (gpointer data)
{
  CsWindow *window = data;
  CsJob *job = cs_window_get_job (window);
  CsProgress progress;

  if (job == NULL)
    return TRUE;

  cs_job_get_progress (job, &progress);
  return progress.bytes_done > 0;
}

typedef struct
{
  CsWindow *window;
  guint     threads;
} ThreadsWait;

static gboolean
threads_applied (gpointer data)
{
  ThreadsWait *wait = data;
  CsJob *job = cs_window_get_job (wait->window);

  return job == NULL || cs_job_get_threads (job) == wait->threads;
}

static void
test_slider (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "source", NULL);
  g_autofree char *destination = g_build_filename (root, "destination", NULL);
  g_autofree char *copied = g_build_filename (destination, "source", NULL);
  g_autoptr(GArray) timeline = NULL;
  ThreadsWait wait;
  CsWindow *window;
  CsRun *run;
  gboolean found = FALSE;

  generate (source, 10000, 8192);
  g_assert_cmpint (g_mkdir (destination, 0755), ==, 0);

  window = window_with_copy (source, destination, 1);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_nonnull (cs_window_get_job (window));
  g_assert_cmpuint (cs_job_get_threads (cs_window_get_job (window)), ==, 1);

  g_assert_true (cs_ui_wait_until (has_progress, window, WAIT_SECONDS));
  g_assert_nonnull (cs_window_get_job (window));

  /* What a drag ends on, the job gets. */
  cs_thread_slider_set_threads (live_slider (window), 16);
  g_assert_cmpuint (cs_thread_slider_get_threads (setup_slider (window)), ==, 16);
  wait.window = window;
  wait.threads = 16;
  g_assert_true (cs_ui_wait_until (threads_applied, &wait, WAIT_SECONDS));
  g_assert_nonnull (cs_window_get_job (window));
  g_assert_cmpuint (cs_job_get_threads (cs_window_get_job (window)), ==, 16);
  cs_ui_screenshot (window, "03-copying.png");

  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));

  run = cs_summary_page_get_run (summary_page (window));
  timeline = cs_run_dup_timeline (run);
  g_assert_nonnull (timeline);
  for (guint i = 0; i < timeline->len; i++)
    {
      const CsThreadChange *change = &g_array_index (timeline, CsThreadChange, i);

      if (change->from == 1 && change->to == 16)
        found = TRUE;
    }
  g_assert_true (found);
  cs_test_tree_assert_equal (source, copied);

  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
}

static GString *printed;

static void
capture_printerr (const char *text)
{
  g_string_append (printed, text);
}

/*
 * With COPYSCOPE_LOOP_PROBE=1 the window measures its main loop all through a
 * copy and prints one line about it at the end, during a 64-thread copy of a
 * tree like the benchmark's `many` (small files, three levels deep). How late
 * the loop ran is bench/window's to measure and judge, on a quiet machine;
 * here only that the probe follows the copy.
 */
static void
test_loop_probe (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "source", NULL);
  g_autofree char *destination = g_build_filename (root, "destination", NULL);
  g_autofree char *copied = g_build_filename (destination, "source", NULL);
  g_autoptr(GError) error = NULL;
  GPrintFunc old_handler;
  const char *ticks;
  CsWindow *window;

  cs_generate_sync (CS_SCENARIO_MANY, source, 0.1, 1, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_mkdir (destination, 0755), ==, 0);

  printed = g_string_new (NULL);
  old_handler = g_set_printerr_handler (capture_printerr);
  g_setenv ("COPYSCOPE_LOOP_PROBE", "1", TRUE);
  window = window_with_copy (source, destination, 64);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  g_unsetenv ("COPYSCOPE_LOOP_PROBE");
  g_set_printerr_handler (old_handler);

  g_assert_cmpstr (cs_run_get_outcome (cs_summary_page_get_run (summary_page (window))), ==,
                   "completed");
  cs_test_tree_assert_equal (source, copied);

  g_test_message ("%s", printed->str);
  g_assert_true (g_str_has_prefix (printed->str, "loop-probe: ticks="));
  g_assert_null (strstr (printed->str + 1, "loop-probe:"));
  /* Ticked all through the copy, so the figures describe it. */
  ticks = printed->str + strlen ("loop-probe: ticks=");
  g_assert_cmpuint (g_ascii_strtoull (ticks, NULL, 10), >=, 10);
  g_assert_nonnull (strstr (printed->str, " max_ms="));
  g_assert_nonnull (strstr (printed->str, " p99_ms="));
  g_string_free (g_steal_pointer (&printed), TRUE);

  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
}

/* Opening a source whose name starts with "bad-" fails, as an unreadable file
 * would for anyone but root, who runs CI. */
static CsIoTable fault_table;

static int
fault_openat (int         dirfd,
              const char *path,
              int         flags,
              mode_t      mode)
{
  const char *name = strrchr (path, '/');

  name = name != NULL ? name + 1 : path;
  if ((flags & O_ACCMODE) == O_RDONLY && !(flags & O_DIRECTORY) && g_str_has_prefix (name, "bad-"))
    {
      errno = EIO;
      return -1;
    }

  return openat (dirfd, path, flags, mode);
}

static void
assert_same_bytes (const char *a,
                   const char *b)
{
  g_autofree char *data_a = NULL;
  g_autofree char *data_b = NULL;
  gsize len_a, len_b;

  g_assert_true (g_file_get_contents (a, &data_a, &len_a, NULL));
  if (!g_file_get_contents (b, &data_b, &len_b, NULL))
    g_error ("%s was not copied to %s", a, b);
  g_assert_cmpmem (data_a, len_a, data_b, len_b);
}

/* Failures in two folders, retried from the summary and then from the retry's
 * own summary: exactly those files are copied again, each into its own folder,
 * and nothing else is touched. */
static void
test_retry_failed (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "source", NULL);
  g_autofree char *destination = g_build_filename (root, "destination", NULL);
  g_autofree char *src_a = g_build_filename (source, "a", NULL);
  g_autofree char *src_c = g_build_filename (source, "b", "c", NULL);
  const char *files[] = { "a/ok-1.bin", "a/bad-1.bin", "b/c/ok-2.bin", "b/c/bad-2.bin", "top.bin" };
  g_autoptr(GSettings) settings = g_settings_new ("io.github.copyscope.Copyscope");
  g_autofree char *changed = g_build_filename (destination, "source", "a", "ok-1.bin", NULL);
  struct timespec old_times[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
  CsWindow *window;
  CsRun *run;
  CsTotals totals;

  g_assert_cmpint (g_mkdir_with_parents (src_a, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (src_c, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (destination, 0755), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_build_filename (source, files[i], NULL);

      write_file (path, 3000 + i * 1000, 30 + i);
    }

  window = window_with_copy (source, destination, 2);
  /* Failures are final at once; waiting out retries proves nothing here. */
  g_settings_set_uint (settings, "retries", 0);
  fault_table = *_cs_io_get_default ();
  fault_table.openat = fault_openat;
  _cs_io_set (&fault_table);

  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));

  run = cs_summary_page_get_run (summary_page (window));
  cs_run_get_totals (run, &totals);
  g_assert_cmpuint (totals.v[CS_CLASS_FAILED][CS_KIND_FILES], ==, 2);
  g_assert_cmpuint (totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, 3);

  /* A copy that is older than its source and differs from it: going over the
   * sources again would replace it; retrying only the failures leaves it. */
  write_file (changed, 10, 99);
  g_assert_cmpint (utimensat (AT_FDCWD, changed, old_times, 0), ==, 0);

  /* The first retry fails the same two files again; the retry's own summary
   * retries them once more, still each into its own folder. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.retry-failed", NULL);
  g_assert_nonnull (cs_window_get_job (window));
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  _cs_io_set (NULL);

  run = cs_summary_page_get_run (summary_page (window));
  cs_run_get_totals (run, &totals);
  g_assert_cmpuint (totals.v[CS_CLASS_FAILED][CS_KIND_FILES], ==, 2);
  g_assert_cmpuint (totals.v[CS_CLASS_TOTAL][CS_KIND_FILES], ==, 2);

  gtk_widget_activate_action (GTK_WIDGET (window), "win.retry-failed", NULL);
  g_assert_nonnull (cs_window_get_job (window));
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));

  run = cs_summary_page_get_run (summary_page (window));
  g_assert_cmpstr (cs_run_get_outcome (run), ==, "completed");
  cs_run_get_totals (run, &totals);
  g_assert_cmpuint (totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, 2);
  g_assert_cmpuint (totals.v[CS_CLASS_TOTAL][CS_KIND_FILES], ==, 2);
  g_assert_cmpuint (totals.v[CS_CLASS_FAILED][CS_KIND_FILES], ==, 0);

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *src = g_build_filename (source, files[i], NULL);
      g_autofree char *dst = g_build_filename (destination, "source", files[i], NULL);

      if (g_str_equal (files[i], "a/ok-1.bin"))
        {
          g_autofree char *data = NULL;
          gsize len;

          g_assert_true (g_file_get_contents (dst, &data, &len, NULL));
          g_assert_cmpuint (len, ==, 10);
        }
      else
        assert_same_bytes (src, dst);
    }
  /* Nothing landed at the top under the failed files' own names. */
  {
    g_autofree char *stray_1 = g_build_filename (destination, "bad-1.bin", NULL);
    g_autofree char *stray_2 = g_build_filename (destination, "source", "bad-2.bin", NULL);

    g_assert_false (g_file_test (stray_1, G_FILE_TEST_EXISTS));
    g_assert_false (g_file_test (stray_2, G_FILE_TEST_EXISTS));
  }
  g_assert_cmpuint (count_temporaries (destination), ==, 0);

  g_settings_reset (settings, "retries");
  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
}

/* What the window asked of the session, seen through its hooks. */
typedef struct
{
  guint          n_inhibits;
  guint          held;            /* the cookie given out and not yet returned */
  guint          returned;
  GNotification *notification;
  char          *notification_id;
  char          *shown_uri;
} Session;

static Session session;

static guint
fake_inhibit (GtkWindow  *window,
              const char *reason)
{
  g_assert_nonnull (reason);
  g_assert_cmpuint (session.held, ==, 0);
  session.n_inhibits++;
  session.held = 1000 + session.n_inhibits;
  return session.held;
}

static void
fake_uninhibit (GtkWindow *window,
                guint      cookie)
{
  g_assert_cmpuint (cookie, ==, session.held);
  session.returned = cookie;
  session.held = 0;
}

static void
fake_send_notification (GtkWindow     *window,
                        const char    *id,
                        GNotification *notification)
{
  g_set_object (&session.notification, notification);
  g_free (session.notification_id);
  session.notification_id = g_strdup (id);
}

static void
fake_show_uri (GtkWindow  *window,
               const char *uri)
{
  g_free (session.shown_uri);
  session.shown_uri = g_strdup (uri);
}

static const CsWindowSession fake_session = {
  fake_inhibit,
  fake_uninhibit,
  fake_send_notification,
  fake_show_uri,
};

static void
session_reset (void)
{
  g_clear_object (&session.notification);
  g_clear_pointer (&session.notification_id, g_free);
  g_clear_pointer (&session.shown_uri, g_free);
  memset (&session, 0, sizeof session);
}

typedef struct
{
  CsWindow *window;
  gboolean  held_throughout;
} InhibitWatch;

/* While the job runs, the session must hold the window's cookie. */
static gboolean
inhibit_watch_cb (gpointer data)
{
  InhibitWatch *watch = data;

  if (cs_window_get_job (watch->window) != NULL && session.held == 0)
    watch->held_throughout = FALSE;

  return G_SOURCE_CONTINUE;
}

static void
test_inhibit (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "source", NULL);
  g_autofree char *destination = g_build_filename (root, "destination", NULL);
  InhibitWatch watch = { NULL, TRUE };
  guint watch_id;
  CsWindow *window;

  generate (source, 3000, 4096);
  g_assert_cmpint (g_mkdir (destination, 0755), ==, 0);
  session_reset ();
  _cs_window_set_session (&fake_session);

  window = window_with_copy (source, destination, 2);
  g_assert_cmpuint (session.n_inhibits, ==, 0);

  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_nonnull (cs_window_get_job (window));
  g_assert_cmpuint (session.n_inhibits, ==, 1);
  g_assert_cmpuint (session.held, !=, 0);

  watch.window = window;
  watch_id = g_timeout_add (5, inhibit_watch_cb, &watch);
  g_assert_true (cs_ui_wait_until (has_progress, window, WAIT_SECONDS));
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  g_source_remove (watch_id);

  g_assert_true (watch.held_throughout);
  g_assert_cmpuint (session.n_inhibits, ==, 1);
  g_assert_cmpuint (session.held, ==, 0);
  g_assert_cmpuint (session.returned, ==, 1001);

  /* A window closed while it copies gives the cookie back too. */
  {
    g_autofree char *again = g_build_filename (root, "again", NULL);
    g_autoptr(GFile) again_file = g_file_new_for_path (again);

    g_assert_cmpint (g_mkdir (again, 0755), ==, 0);
    gtk_widget_activate_action (GTK_WIDGET (window), "win.new-copy", NULL);
    {
      g_autoptr(GFile) source_file = g_file_new_for_path (source);
      GFile *sources[] = { source_file };

      cs_window_add_sources (window, sources, 1);
    }
    cs_window_set_destination (window, again_file);
    gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
    g_assert_nonnull (cs_window_get_job (window));
    g_assert_cmpuint (session.held, ==, 1002);
  }
  cs_ui_window_destroy (window);
  g_assert_cmpuint (session.held, ==, 0);
  g_assert_cmpuint (session.returned, ==, 1002);

  _cs_window_set_session (NULL);
  session_reset ();
  cs_test_tree_remove (root);
}

/* Runs a small copy in @window and says whether a notification went out. */
static gboolean
copy_notifies (CsWindow   *window,
               const char *source,
               const char *destination)
{
  g_autoptr(GFile) source_file = g_file_new_for_path (source);
  g_autoptr(GFile) destination_file = g_file_new_for_path (destination);
  GFile *sources[] = { source_file };

  session_reset ();
  gtk_widget_activate_action (GTK_WIDGET (window), "win.new-copy", NULL);
  cs_window_add_sources (window, sources, 1);
  cs_window_set_destination (window, destination_file);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_nonnull (cs_window_get_job (window));
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));

  return session.notification != NULL;
}

static gboolean
window_active (gpointer data)
{
  return gtk_window_is_active (GTK_WINDOW (data));
}

static gboolean
window_inactive (gpointer data)
{
  return !gtk_window_is_active (GTK_WINDOW (data));
}

static void
test_notification (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "source", NULL);
  g_autofree char *first = g_build_filename (root, "first", NULL);
  g_autofree char *second = g_build_filename (root, "second", NULL);
  CsWindow *window;
  GtkWindow *other;

  generate (source, 200, 4096);
  g_assert_cmpint (g_mkdir (first, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (second, 0755), ==, 0);
  _cs_window_set_session (&fake_session);

  /* Watched: the summary is enough. */
  window = cs_ui_window_new ();
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (cs_ui_wait_until (window_active, window, WAIT_SECONDS));
  g_assert_false (copy_notifies (window, source, first));

  /* Another window has the focus: the copy's end is told in a notification. */
  other = GTK_WINDOW (gtk_window_new ());
  gtk_window_present (other);
  g_assert_true (cs_ui_wait_until (window_inactive, window, WAIT_SECONDS));
  g_assert_true (copy_notifies (window, source, second));
  g_assert_cmpstr (session.notification_id, ==, "copy-finished");

  gtk_window_destroy (other);
  cs_ui_window_destroy (window);
  _cs_window_set_session (NULL);
  session_reset ();
  cs_test_tree_remove (root);
}

static gboolean
cancel_dialog_shown (gpointer data)
{
  CsWindow *window = data;

  return cs_ui_find_dialog (window) != NULL || cs_window_get_job (window) == NULL;
}

typedef struct
{
  CsWindow   *window;
  const char *destination;
} InFlight;

/* Files being written into @path by this process: a named temporary shows in
 * the folder, an unnamed one (O_TMPFILE, how a local disk starts a new file)
 * only as an open descriptor. */
static guint
count_in_flight (const char *path)
{
  g_autoptr(GDir) fds = g_dir_open ("/proc/self/fd", 0, NULL);
  g_autofree char *prefix = g_strconcat (path, "/", NULL);
  const char *name;
  guint n = count_temporaries (path);

  g_assert_nonnull (fds);
  while ((name = g_dir_read_name (fds)) != NULL)
    {
      g_autofree char *link = g_build_filename ("/proc/self/fd", name, NULL);
      g_autofree char *target = g_file_read_link (link, NULL);

      /* An unnamed temporary reads as "FOLDER/#INODE (deleted)". */
      if (target != NULL && g_str_has_prefix (target, prefix) && g_str_has_suffix (target, " (deleted)"))
        n++;
    }

  return n;
}

static gboolean
file_in_flight (gpointer data)
{
  InFlight *in_flight = data;

  return cs_window_get_job (in_flight->window) == NULL ||
         count_in_flight (in_flight->destination) > 0;
}

static gboolean
job_paused (gpointer data)
{
  CsJob *job = cs_window_get_job (CS_WINDOW (data));
  CsProgress progress;

  if (job == NULL)
    return TRUE;

  cs_job_get_progress (job, &progress);
  return progress.state == CS_JOB_STATE_PAUSED;
}

static void
test_cancel (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "source", NULL);
  g_autofree char *destination = g_build_filename (root, "destination", NULL);
  InFlight in_flight;
  AdwMessageDialog *dialog;
  CsTotals totals;
  CsWindow *window;
  CsRun *run;

  generate (source, 24, 64 << 20);
  g_assert_cmpint (g_mkdir (destination, 0755), ==, 0);

  /* Limited, so that a warm copy of 1.5 GiB is still under way when paused. */
  window = window_with_copy (source, destination, 2);
  cs_speed_limit_set_max_rate (cs_setup_page_get_speed_limit (setup_page (window)), 300e6);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);

  /* Pause with files half-written, so cancelling has temporaries to clean.
   * A pause holds each worker before its next piece of a file, or before its
   * next file: on a loaded machine both workers can be between files at that
   * moment, having published the ones seen in flight. Then the copy goes on
   * and is paused again, until a pause finds files half-written. */
  in_flight.window = window;
  in_flight.destination = destination;
  for (guint attempt = 0;; attempt++)
    {
      g_assert_true (cs_ui_wait_until (file_in_flight, &in_flight, WAIT_SECONDS));
      g_assert_nonnull (cs_window_get_job (window));
      gtk_widget_activate_action (GTK_WIDGET (window), "win.pause", NULL);
      g_assert_true (cs_ui_wait_until (job_paused, window, WAIT_SECONDS));
      g_assert_nonnull (cs_window_get_job (window));
      if (count_in_flight (destination) > 0)
        break;
      g_test_message ("paused between files (attempt %u): going on", attempt + 1);
      g_assert_cmpuint (attempt, <, 20);
      gtk_widget_activate_action (GTK_WIDGET (window), "win.pause", NULL);
    }
  g_assert_cmpuint (count_in_flight (destination), >, 0);
  cs_ui_screenshot (window, "03-paused.png");

  gtk_widget_activate_action (GTK_WIDGET (window), "win.cancel", NULL);
  g_assert_true (cs_ui_wait_until (cancel_dialog_shown, window, WAIT_SECONDS));
  dialog = cs_ui_find_dialog (window);
  g_assert_nonnull (dialog);
  cs_ui_screenshot (dialog, "06-cancel-dialog.png");
  cs_ui_answer (dialog, "Cancel Copy");

  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  run = cs_summary_page_get_run (summary_page (window));
  g_assert_cmpstr (cs_run_get_outcome (run), ==, "cancelled");
  cs_run_get_totals (run, &totals);
  g_assert_cmpuint (totals.v[CS_CLASS_COPIED][CS_KIND_FILES], <, 24);
  g_assert_cmpuint (count_in_flight (destination), ==, 0);
  cs_ui_screenshot (window, "06-cancelled.png");

  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
}

static gboolean
job_running (gpointer data)
{
  CsJob *job = cs_window_get_job (CS_WINDOW (data));

  return job == NULL || cs_job_get_state (job) == CS_JOB_STATE_RUNNING;
}

static gboolean
job_is (gpointer data)
{
  gpointer *pair = data;

  return cs_window_get_job (CS_WINDOW (pair[0])) == pair[1];
}

static gboolean
queue_done (gpointer data)
{
  CsWindow *window = CS_WINDOW (data);

  return cs_window_get_job (window) == NULL && g_list_model_get_n_items (cs_window_get_queue (window)) == 0;
}

static CsQueuedJob *
queued (CsWindow *window,
        guint     position)
{
  g_autoptr(CsQueuedJob) item = g_list_model_get_item (cs_window_get_queue (window), position);

  g_assert_nonnull (item);
  return item;      /* the queue holds it */
}

/* The lines of @run's per-file log, which must exist: @n_files of them,
 * each a file copied from under @source. */
static void
assert_log_of (CsRun      *run,
               const char *source,
               guint       n_files)
{
  g_autofree char *log = cs_history_find_log (run);
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (log);
  g_file_get_contents (log, &text, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_str_has_suffix (text, "\n"));
  lines = g_strsplit (text, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, n_files + 1);
  for (guint i = 0; i < n_files; i++)
    {
      g_auto(GStrv) fields = g_strsplit (lines[i], "\t", -1);
      g_autofree char *path = NULL;

      g_assert_cmpuint (g_strv_length (fields), ==, 3);
      g_assert_cmpstr (fields[0], ==, "copied");
      path = cs_text_unescape (fields[2], &error);
      g_assert_no_error (error);
      g_assert_true (g_str_has_prefix (path, source));
      g_assert_cmpuint (path[strlen (source)], ==, G_DIR_SEPARATOR);
    }
}

/* A drop on the running copy's page, and Start on the setup page while a
 * copy runs, each queue a copy; the queue's order is the order they run in,
 * one after the other, a held one waits, and each gets its own record. */
static void
test_queue (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *first = g_build_filename (root, "first", NULL);
  g_autofree char *second = g_build_filename (root, "second", NULL);
  g_autofree char *third = g_build_filename (root, "third", NULL);
  g_autofree char *destination = g_build_filename (root, "destination", NULL);
  g_autofree char *second_copy = g_build_filename (destination, "second", NULL);
  g_autofree char *third_copy = g_build_filename (destination, "third", NULL);
  g_autoptr(GFile) second_file = g_file_new_for_path (second);
  g_autoptr(GFile) third_file = g_file_new_for_path (third);
  g_autoptr(CsJob) running = NULL;
  g_autoptr(CsJob) second_job = NULL;
  GValue value = G_VALUE_INIT;
  gboolean handled = FALSE;
  GtkDropTarget *target;
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  gpointer pair[2];
  CsWindow *window;

  generate (first, 16, 32 << 20);
  generate (second, 4, 1 << 20);
  generate (third, 4, 1 << 20);
  g_assert_cmpint (g_mkdir (destination, 0755), ==, 0);

  window = window_with_copy (first, destination, 2);
  g_settings_set_boolean (settings, "keep-log", TRUE);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  running = g_object_ref (cs_window_get_job (window));
  g_assert_true (cs_ui_wait_until (job_running, window, WAIT_SECONDS));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.pause", NULL);
  g_assert_true (cs_ui_wait_until (job_paused, window, WAIT_SECONDS));
  g_assert_true (cs_window_get_job (window) == running);

  /* A second drop, on the copy's page: queued into the same destination. */
  target = find_drop_target (cs_ui_find (window, CS_TYPE_COPY_PAGE));
  g_assert_nonnull (target);
  g_value_init (&value, GDK_TYPE_FILE_LIST);
  g_value_take_boxed (&value, g_slist_append (NULL, g_object_ref (second_file)));
  g_signal_emit_by_name (target, "drop", &value, 10.0, 10.0, &handled);
  g_value_unset (&value);
  g_assert_true (handled);
  g_assert_true (cs_window_get_job (window) == running);
  g_assert_cmpuint (g_list_model_get_n_items (cs_window_get_queue (window)), ==, 1);
  g_assert_cmpstr (cs_queued_job_get_destination (queued (window, 0)), ==, destination);
  g_assert_cmpstr (cs_queued_job_get_sources (queued (window, 0))[0], ==, second);

  /* Start on the setup page while the copy runs: queued behind it. */
  {
    GFile *files[] = { third_file };

    cs_window_add_sources (window, files, 1);
  }
  gtk_widget_activate_action (GTK_WIDGET (window), "win.new-copy", NULL);
  g_assert_true (gtk_widget_is_sensitive (GTK_WIDGET (cs_ui_find_button (window, "Add to Queue"))));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (cs_window_get_job (window) == running);
  g_assert_cmpuint (g_list_model_get_n_items (cs_window_get_queue (window)), ==, 2);
  g_assert_cmpstr (cs_queued_job_get_sources (queued (window, 1))[0], ==, third);

  /* Reordered: the third first, then held; the second runs next. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.queue-down", "u", 0);
  g_assert_cmpstr (cs_queued_job_get_sources (queued (window, 0))[0], ==, third);
  g_assert_cmpstr (cs_queued_job_get_sources (queued (window, 1))[0], ==, second);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.queue-hold", "u", 0);
  g_assert_true (cs_queued_job_get_held (queued (window, 0)));
  second_job = g_object_ref (cs_queued_job_get_job (queued (window, 1)));
  {
    GtkWidget *page = cs_ui_find (window, CS_TYPE_COPY_PAGE);

    /* Back on the running copy's page, which lists the queue. */
    g_assert_true (gtk_stack_get_visible_child (GTK_STACK (gtk_widget_get_parent (page))) == page);
  }
  cs_ui_screenshot (window, "26-queue.png");

  /* One after the other: the second starts once the first has finished. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.pause", NULL);
  pair[0] = window;
  pair[1] = second_job;
  g_assert_true (cs_ui_wait_until (job_is, pair, WAIT_SECONDS * 4));
  g_assert_cmpint (cs_job_get_state (running), ==, CS_JOB_STATE_FINISHED);
  g_assert_cmpstr (cs_run_get_outcome (cs_job_get_run (running)), ==, "completed");
  g_assert_cmpuint (g_list_model_get_n_items (cs_window_get_queue (window)), ==, 1);

  /* Held, the third waits after the second has finished too. */
  pair[1] = NULL;
  g_assert_true (cs_ui_wait_until (job_is, pair, WAIT_SECONDS));
  g_assert_cmpstr (cs_run_get_outcome (cs_job_get_run (second_job)), ==, "completed");
  g_assert_true (cs_job_get_run (second_job) != cs_job_get_run (running));
  g_assert_true (g_file_test (second_copy, G_FILE_TEST_IS_DIR));
  g_assert_false (g_file_test (third_copy, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (g_list_model_get_n_items (cs_window_get_queue (window)), ==, 1);

  /* Let go, it runs at once. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.queue-hold", "u", 0);
  g_assert_true (cs_ui_wait_until (queue_done, window, WAIT_SECONDS));
  g_assert_true (g_file_test (third_copy, G_FILE_TEST_IS_DIR));
  g_assert_cmpstr (cs_run_get_sources (cs_summary_page_get_run (summary_page (window)))[0], ==, third);

  /* Each its own log, of its own files. */
  assert_log_of (cs_job_get_run (running), first, 16);
  assert_log_of (cs_job_get_run (second_job), second, 4);
  assert_log_of (cs_summary_page_get_run (summary_page (window)), third, 4);

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
static void
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
static void
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

static gboolean
has_rate_event (gpointer data)
{
  g_autoptr(GArray) events = cs_run_dup_events (cs_job_get_run (CS_JOB (data)));

  for (guint i = 0; i < events->len; i++)
    {
      const CsRunEvent *event = &g_array_index (events, CsRunEvent, i);

      if (g_strcmp0 (event->kind, "max-rate") == 0 && event->value == 50e6)
        return TRUE;
    }
  return FALSE;
}

static gboolean
shows_limited (gpointer data)
{
  return cs_ui_find_label (data, "Limited by your setting: the speed limit") != NULL;
}

/* The speed limit set up before the copy is the job's; changed on the
 * copy's page it applies at once, marked in the record, and the explainer
 * names it as what limits the copy. */
static gboolean
side_job_done (gpointer data)
{
  CsJob *job = data;

  return cs_job_get_state (job) == CS_JOB_STATE_FINISHED;
}

/* The queue's device rule: copies to one device (a filesystem here) run one
 * after the other; to another device, side by side only when asked for. */
static void
test_queue_devices (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *shm = g_strdup ("/dev/shm/copyscope-test-XXXXXX");
  g_autofree char *first = g_build_filename (root, "first", NULL);
  g_autofree char *second = g_build_filename (root, "second", NULL);
  g_autofree char *third = g_build_filename (root, "third", NULL);
  g_autofree char *here = g_build_filename (root, "here", NULL);
  g_autofree char *also_here = g_build_filename (root, "also-here", NULL);
  g_autofree char *second_copy = g_build_filename (also_here, "second", NULL);
  g_autofree char *third_copy = NULL;
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autoptr(CsJob) running = NULL;
  g_autoptr(CsJob) second_job = NULL;
  g_autoptr(CsJob) third_job = NULL;
  struct stat here_st, shm_st;
  gpointer pair[2];
  CsWindow *window;

  if (g_mkdtemp (shm) == NULL)
    {
      g_test_skip ("no /dev/shm");
      cs_test_tree_remove (root);
      return;
    }
  third_copy = g_build_filename (shm, "third", NULL);
  g_assert_cmpint (g_mkdir (here, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (also_here, 0755), ==, 0);
  g_assert_cmpint (g_stat (here, &here_st), ==, 0);
  g_assert_cmpint (g_stat (shm, &shm_st), ==, 0);
  if (here_st.st_dev == shm_st.st_dev)
    {
      g_test_skip ("/dev/shm is on the test folder's filesystem");
      cs_test_tree_remove (shm);
      cs_test_tree_remove (root);
      return;
    }
  generate (first, 16, 32 << 20);
  generate (second, 4, 1 << 20);
  generate (third, 4, 1 << 20);
  g_assert_false (g_settings_get_boolean (settings, "queue-side-by-side"));

  window = window_with_copy (first, here, 2);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  running = g_object_ref (cs_window_get_job (window));
  g_assert_true (cs_ui_wait_until (job_running, window, WAIT_SECONDS));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.pause", NULL);
  g_assert_true (cs_ui_wait_until (job_paused, window, WAIT_SECONDS));

  /* Queued: one to the same filesystem, one to another. */
  {
    g_autoptr(GFile) second_file = g_file_new_for_path (second);
    g_autoptr(GFile) third_file = g_file_new_for_path (third);
    g_autoptr(GFile) also_here_file = g_file_new_for_path (also_here);
    g_autoptr(GFile) shm_file = g_file_new_for_path (shm);

    g_assert_true (cs_window_queue_copy (window, &second_file, 1, also_here_file));
    g_assert_true (cs_window_queue_copy (window, &third_file, 1, shm_file));
  }
  g_assert_cmpuint (g_list_model_get_n_items (cs_window_get_queue (window)), ==, 2);
  g_assert_cmpstr (cs_queued_job_get_device (queued (window, 0)), !=,
                   cs_queued_job_get_device (queued (window, 1)));
  second_job = g_object_ref (cs_queued_job_get_job (queued (window, 0)));
  third_job = g_object_ref (cs_queued_job_get_job (queued (window, 1)));

  /* By default, one after the other whatever the device. */
  cs_ui_iterate ();
  g_assert_false (cs_queued_job_get_running (queued (window, 0)));
  g_assert_false (cs_queued_job_get_running (queued (window, 1)));
  g_assert_cmpint (cs_job_get_state (third_job), ==, CS_JOB_STATE_READY);
  g_assert_nonnull (cs_ui_find_label (window, "Queue: 2 Copies Waiting"));

  /* Side by side: the copy to the other device starts now, beside the paused
   * one; the one to the same filesystem still waits for it. */
  /* Slowed, so that it is seen running in the list. */
  cs_job_set_max_rate (third_job, 4e6);
  g_settings_set_boolean (settings, "queue-side-by-side", TRUE);
  cs_ui_iterate ();
  g_assert_cmpint (cs_job_get_state (third_job), !=, CS_JOB_STATE_READY);
  g_assert_true (cs_queued_job_get_job (queued (window, 0)) == second_job);
  g_assert_false (cs_queued_job_get_running (queued (window, 0)));
  g_assert_cmpint (cs_job_get_state (second_job), ==, CS_JOB_STATE_READY);
  /* The heading counts the one beside as running, not as waiting. */
  g_assert_null (cs_ui_find_label (window, "Copies Waiting"));
  g_assert_nonnull (cs_ui_find_label (window, "Queue: 1 Copy Running Side by Side, 1 Waiting"));
  if (cs_job_get_state (third_job) == CS_JOB_STATE_RUNNING)
    cs_ui_screenshot (window, "27-queue-side-by-side.png");
  g_assert_true (cs_ui_wait_until (side_job_done, third_job, WAIT_SECONDS));
  cs_ui_iterate ();
  g_assert_cmpstr (cs_run_get_outcome (cs_job_get_run (third_job)), ==, "completed");
  g_assert_true (g_file_test (third_copy, G_FILE_TEST_IS_DIR));
  g_assert_true (cs_window_get_job (window) == running);
  g_assert_cmpint (cs_job_get_state (running), ==, CS_JOB_STATE_PAUSED);
  g_assert_cmpuint (g_list_model_get_n_items (cs_window_get_queue (window)), ==, 1);
  g_assert_cmpint (cs_job_get_state (second_job), ==, CS_JOB_STATE_READY);
  g_assert_false (g_file_test (second_copy, G_FILE_TEST_EXISTS));

  /* The first done, the second has its turn. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.pause", NULL);
  pair[0] = window;
  pair[1] = second_job;
  g_assert_true (cs_ui_wait_until (job_is, pair, WAIT_SECONDS * 4));
  g_assert_cmpstr (cs_run_get_outcome (cs_job_get_run (running)), ==, "completed");
  g_assert_true (cs_ui_wait_until (queue_done, window, WAIT_SECONDS));
  g_assert_cmpstr (cs_run_get_outcome (cs_job_get_run (second_job)), ==, "completed");
  g_assert_true (g_file_test (second_copy, G_FILE_TEST_IS_DIR));

  g_settings_reset (settings, "queue-side-by-side");
  cs_ui_window_destroy (window);
  cs_test_tree_remove (shm);
  cs_test_tree_remove (root);
}

static void
test_speed_limit (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "source", NULL);
  g_autofree char *destination = g_build_filename (root, "destination", NULL);
  g_autoptr(CsJob) job = NULL;
  CsCopyPage *copy_page;
  CsWindow *window;

  generate (source, 8, 4 << 20);
  g_assert_cmpint (g_mkdir (destination, 0755), ==, 0);

  window = window_with_copy (source, destination, 2);
  cs_speed_limit_set_max_rate (cs_setup_page_get_speed_limit (setup_page (window)), 10e6);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  job = g_object_ref (cs_window_get_job (window));
  g_assert_cmpfloat (cs_job_get_max_rate (job), ==, 10e6);

  g_assert_true (cs_ui_wait_until (job_running, window, WAIT_SECONDS));
  copy_page = CS_COPY_PAGE (cs_ui_find (window, CS_TYPE_COPY_PAGE));
  g_assert_cmpfloat (cs_speed_limit_get_max_rate (cs_copy_page_get_speed_limit (copy_page)), ==, 10e6);
  g_assert_true (cs_ui_wait_until (shows_limited, window, WAIT_SECONDS));

  cs_speed_limit_set_max_rate (cs_copy_page_get_speed_limit (copy_page), 50e6);
  g_assert_cmpfloat (cs_job_get_max_rate (job), ==, 50e6);
  g_assert_true (has_rate_event (job));
  cs_ui_screenshot (window, "26-speed-limit.png");

  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  g_assert_cmpstr (cs_run_get_outcome (cs_job_get_run (job)), ==, "completed");

  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
}

/* Files whose names start with ".copyscope-resume-" in @dir. */
static guint
count_partials (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    n += g_str_has_prefix (name, ".copyscope-resume-");
  return n;
}

/* Whether a partial copy in @data (a folder) has a block journaled: a
 * journal longer than its header. */
static gboolean
block_journaled (gpointer data)
{
  g_autoptr(GDir) d = g_dir_open (data, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, ".copyscope-resume-") && g_str_has_suffix (name, ".journal"))
      {
        g_autofree char *path = g_build_filename (data, name, NULL);
        struct stat st;

        if (stat (path, &st) == 0 && st.st_size > 80)
          return TRUE;
      }
  return FALSE;
}

/* The check box of the cancel dialog, when it shows. */
static GtkCheckButton *
shown_keep_box (AdwMessageDialog *dialog)
{
  GtkWidget *keep = cs_ui_find (dialog, GTK_TYPE_CHECK_BUTTON);

  return keep != NULL && gtk_widget_get_visible (keep) ? GTK_CHECK_BUTTON (keep) : NULL;
}

/* Without a big file in flight, the cancel dialog offers nothing to keep. */
static void
test_cancel_small (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "source", NULL);
  g_autofree char *destination = g_build_filename (root, "destination", NULL);
  AdwMessageDialog *dialog;
  CsWindow *window;

  generate (source, 200, 1 << 20);
  g_assert_cmpint (g_mkdir (destination, 0755), ==, 0);

  window = window_with_copy (source, destination, 2);
  cs_speed_limit_set_max_rate (cs_setup_page_get_speed_limit (setup_page (window)), 20e6);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (cs_ui_wait_until (job_running, window, WAIT_SECONDS));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.cancel", NULL);
  g_assert_true (cs_ui_wait_until (cancel_dialog_shown, window, WAIT_SECONDS));
  dialog = cs_ui_find_dialog (window);
  g_assert_nonnull (dialog);
  g_assert_null (shown_keep_box (dialog));
  cs_ui_answer (dialog, "Cancel Copy");
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  g_assert_cmpuint (count_partials (destination), ==, 0);

  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
}

/* The bytes of @run's events of @kind ("resume": gone on with from earlier
 * partial copies; "kept": left for a later run). */
static guint64
event_bytes (CsRun      *run,
             const char *kind)
{
  g_autoptr(GArray) events = cs_run_dup_events (run);
  guint64 bytes = 0;

  for (guint i = 0; i < events->len; i++)
    if (g_strcmp0 (g_array_index (events, CsRunEvent, i).kind, kind) == 0)
      bytes += (guint64) g_array_index (events, CsRunEvent, i).value;
  return bytes;
}

/* Whether @window shows the sentence @format, with @bytes and the size of
 * big.bin in it. */
static gboolean
shows_partial (CsWindow   *window,
               const char *format,
               guint64     bytes)
{
  g_autofree char *bytes_text = g_format_size (bytes);
  g_autofree char *size_text = g_format_size (256 << 20);
  g_autofree char *sentence = g_strdup_printf (format, bytes_text, size_text);

  return cs_ui_find_label (window, sentence) != NULL;
}

typedef struct {
  CsWindow   *window;
  const char *title;          /* NULL: any */
} HintWait;

/* Whether the setup page says, under the destination, that a partial will
 * be gone on from, in the words @data (a HintWait) gives. */
static gboolean
hint_shows (gpointer data)
{
  HintWait *w = data;
  GtkWidget *hint = cs_ui_find (w->window, CS_TYPE_RESUME_HINT);

  return hint != NULL && gtk_widget_is_visible (hint)
         && (w->title == NULL
             || g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (hint)), w->title) == 0);
}

/* A 256 MiB file cut short by a cancel that keeps it: the dialog offers it,
 * the summary says it is kept; set up again, the same copy says before
 * Start what it will go on from, goes on from it, says so, and leaves no
 * partial behind; set up once more, it says nothing of a partial. */
static void
test_cancel_keep (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "source", NULL);
  g_autofree char *destination = g_build_filename (root, "destination", NULL);
  g_autofree char *copy = g_build_filename (destination, "source", NULL);
  g_autofree char *big = g_build_filename (source, "big.bin", NULL);
  AdwMessageDialog *dialog;
  GtkCheckButton *keep;
  CsWindow *window;
  guint64 kept;
  CsRun *run;

  g_assert_cmpint (g_mkdir (source, 0755), ==, 0);
  write_file (big, 256 << 20, 5);
  g_assert_cmpint (g_mkdir (destination, 0755), ==, 0);

  /* Limited, as a copy where resuming pays is slow: a block that copies
   * faster than 1 GB/s is not journaled (it costs less to copy again). */
  window = window_with_copy (source, destination, 2);
  cs_speed_limit_set_max_rate (cs_setup_page_get_speed_limit (setup_page (window)), 100e6);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (cs_ui_wait_until (block_journaled, copy, WAIT_SECONDS));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.pause", NULL);
  g_assert_true (cs_ui_wait_until (job_paused, window, WAIT_SECONDS));
  g_assert_nonnull (cs_window_get_job (window));

  gtk_widget_activate_action (GTK_WIDGET (window), "win.cancel", NULL);
  g_assert_true (cs_ui_wait_until (cancel_dialog_shown, window, WAIT_SECONDS));
  dialog = cs_ui_find_dialog (window);
  keep = shown_keep_box (dialog);
  g_assert_nonnull (keep);
  g_assert_nonnull (cs_ui_find_label (dialog, "partial copy of 1 big file ("));
  gtk_check_button_set_active (keep, TRUE);
  cs_ui_screenshot (dialog, "06-cancel-dialog-keep.png");
  cs_ui_answer (dialog, "Cancel Copy");
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  g_assert_cmpstr (cs_run_get_outcome (cs_summary_page_get_run (summary_page (window))), ==, "cancelled");
  g_assert_cmpuint (count_partials (copy), ==, 2);
  kept = event_bytes (cs_summary_page_get_run (summary_page (window)), "kept");
  g_assert_cmpuint (kept, >, 0);
  g_assert_true (shows_partial (window, "Kept to resume: source/big.bin, %s of %s\n", kept));
  cs_ui_screenshot (window, "06-cancelled-kept.png");

  /* The same copy set up again: before Start the page says how far it will
   * go on, every byte kept. */
  {
    g_autofree char *kept_text = g_format_size (kept);
    g_autofree char *size_text = g_format_size (256 << 20);
    g_autofree char *title = g_strdup_printf ("source/big.bin will go on from %s of %s, kept by an earlier copy",
                                              kept_text, size_text);
    HintWait wait = { window, title };
    g_autoptr(GFile) source_file = g_file_new_for_path (source);
    GFile *sources[] = { source_file };

    gtk_widget_activate_action (GTK_WIDGET (window), "win.new-copy", NULL);
    cs_window_add_sources (window, sources, 1);
    g_assert_true (cs_ui_wait_until (hint_shows, &wait, WAIT_SECONDS));
    cs_ui_screenshot (window, "07-resume-hint.png");
  }

  /* It goes on, and leaves no partial behind. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  run = cs_summary_page_get_run (summary_page (window));
  g_assert_cmpstr (cs_run_get_outcome (run), ==, "completed");
  /* From where the cancel left it, every byte it kept. */
  g_assert_cmpuint (event_bytes (run, "resume"), ==, kept);
  g_assert_cmpuint (count_partials (copy), ==, 0);
  cs_test_tree_assert_equal (source, copy);
  g_assert_true (shows_partial (window, "Resumed source/big.bin at %s of %s", kept));
  cs_ui_screenshot (window, "07-resumed.png");

  /* Set up once more: nothing is left to go on from, and nothing is said. */
  {
    HintWait wait = { window, NULL };
    g_autoptr(GFile) source_file = g_file_new_for_path (source);
    GFile *sources[] = { source_file };

    gtk_widget_activate_action (GTK_WIDGET (window), "win.new-copy", NULL);
    cs_window_add_sources (window, sources, 1);
    g_assert_false (cs_ui_wait_until (hint_shows, &wait, 2));
  }

  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
}

static gboolean
conflict_shown (gpointer data)
{
  CsWindow *window = data;

  return cs_ui_find_dialog (window) != NULL || cs_window_get_job (window) == NULL;
}

static void
assert_file_bytes (const char *path,
                   gsize       size,
                   guint       seed)
{
  g_autofree char *expected = g_malloc (size);
  g_autofree char *data = NULL;
  gsize len;

  for (gsize i = 0; i < size; i++)
    expected[i] = (char) ((i * 131 + seed * 17 + (i >> 9)) & 0xff);

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  g_assert_cmpuint (len, ==, size);
  g_assert_true (memcmp (data, expected, size) == 0);
}

static void
test_conflict (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "source", NULL);
  g_autofree char *destination = g_build_filename (root, "destination", NULL);
  g_autofree char *copied = g_build_filename (destination, "source", NULL);
  const char *names[] = { "keep.txt", "replace.txt" };
  gint64 dst_mtime = g_get_real_time () / G_USEC_PER_SEC - 60;
  gint64 src_mtime = dst_mtime - 3 * 24 * 3600;
  g_autoptr(GDateTime) src_date = NULL;
  g_autofree char *src_text = NULL;
  CsWindow *window;
  guint answered = 0;

  g_assert_cmpint (g_mkdir (source, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (copied, 0755), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *src = g_build_filename (source, names[i], NULL);
      g_autofree char *dst = g_build_filename (copied, names[i], NULL);

      write_file (src, 5000, 10 + i);
      write_file (dst, 700, 20 + i);
      /* The one being copied is larger, the one there newer. */
      g_assert_cmpint (g_utime (src, &(struct utimbuf) { src_mtime, src_mtime }), ==, 0);
      g_assert_cmpint (g_utime (dst, &(struct utimbuf) { dst_mtime, dst_mtime }), ==, 0);
    }
  /* And one already there, the same: skipped without a question. */
  {
    g_autofree char *src = g_build_filename (source, "same.txt", NULL);
    g_autofree char *dst = g_build_filename (copied, "same.txt", NULL);

    write_file (src, 300, 30);
    write_file (dst, 300, 30);
    g_assert_cmpint (g_utime (src, &(struct utimbuf) { src_mtime, src_mtime }), ==, 0);
    g_assert_cmpint (g_utime (dst, &(struct utimbuf) { src_mtime, src_mtime }), ==, 0);
  }
  src_date = g_date_time_new_from_unix_local (src_mtime);
  src_text = g_date_time_format (src_date, "%e %b %Y, %H:%M");

  window = window_with_copy (source, destination, 1);
  cs_setup_page_set_overwrite (setup_page (window), CS_OVERWRITE_ASK);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_nonnull (cs_window_get_job (window));

  while (answered < G_N_ELEMENTS (names))
    {
      AdwMessageDialog *dialog;
      const char *body;

      g_assert_true (cs_ui_wait_until (conflict_shown, window, WAIT_SECONDS));
      dialog = cs_ui_find_dialog (window);
      g_assert_nonnull (dialog);

      if (answered == 0)
        cs_ui_screenshot (dialog, "04-conflict.png");

      /* The dialog names the file it asks about. */
      body = adw_message_dialog_get_body (dialog);
      g_assert_true (strstr (body, "keep.txt") != NULL || strstr (body, "replace.txt") != NULL);
      /* In the user's words, which side is newer and which larger. */
      g_assert_nonnull (strstr (body, src_text));
      g_assert_nonnull (strstr (body, " — newer\nBeing copied: "));
      g_assert_nonnull (strstr (body, " — larger\n"));
      cs_ui_answer (dialog, strstr (body, "keep.txt") != NULL ? "Skip" : "Replace");
      answered++;
    }

  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));

  {
    g_autofree char *keep = g_build_filename (copied, "keep.txt", NULL);
    g_autofree char *replace = g_build_filename (copied, "replace.txt", NULL);

    assert_file_bytes (keep, 700, 20);
    assert_file_bytes (replace, 5000, 11);
  }
  g_assert_cmpuint (count_temporaries (destination), ==, 0);

  /* The summary tells the file that was there from the one the user kept. */
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "summary");
  g_assert_nonnull (cs_ui_find_label (window, "Skipped (identical): 1 file ("));
  g_assert_nonnull (cs_ui_find_label (window, " · Skipped (your choice): 1 file ("));

  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
}

static void
test_refusal (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "source", NULL);
  g_autofree char *inside = g_build_filename (source, "inside", NULL);
  CsWindow *window;

  generate (source, 3, 100);
  g_assert_cmpint (g_mkdir (inside, 0755), ==, 0);

  window = window_with_copy (source, inside, 2);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);

  g_assert_null (cs_window_get_job (window));
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "setup");
  g_assert_nonnull (cs_setup_page_get_refusal (setup_page (window)));
  g_assert_nonnull (strstr (cs_setup_page_get_refusal (setup_page (window)), "inside"));
  /* Shown where the user looks, not only kept in the page. */
  g_assert_nonnull (cs_ui_find_label (window, "The destination is inside a source."));
  cs_ui_screenshot (window, "07-refused.png");

  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
}

static void
test_accessibility (void)
{
  CsWindow *window = cs_ui_window_new ();
  GtkWidget *scale = cs_thread_slider_get_scale (live_slider (window));

  gtk_test_accessible_assert_role (GTK_ACCESSIBLE (cs_ui_find_button (window, "Start Copy")),
                                   GTK_ACCESSIBLE_ROLE_BUTTON);
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (cs_ui_find_button (window, "Start Copy")),
                                       GTK_ACCESSIBLE_PROPERTY_LABEL, "Start Copy");

  gtk_test_accessible_assert_role (GTK_ACCESSIBLE (cs_ui_find_button (window, "Cancel Copy")),
                                   GTK_ACCESSIBLE_ROLE_BUTTON);
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (cs_ui_find_button (window, "Cancel Copy")),
                                       GTK_ACCESSIBLE_PROPERTY_LABEL, "Cancel Copy");

  gtk_test_accessible_assert_role (GTK_ACCESSIBLE (scale), GTK_ACCESSIBLE_ROLE_SLIDER);
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (scale),
                                       GTK_ACCESSIBLE_PROPERTY_LABEL, "Threads");
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (scale),
                                       GTK_ACCESSIBLE_PROPERTY_VALUE_TEXT, "8 threads");

  gtk_test_accessible_assert_role (GTK_ACCESSIBLE (graph (window)), GTK_ACCESSIBLE_ROLE_IMG);
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (graph (window)),
                                       GTK_ACCESSIBLE_PROPERTY_LABEL, "Throughput graph");
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (graph (window)),
                                       GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, "No data yet");

  cs_ui_window_destroy (window);
}

static void
test_thread_slider (void)
{
  g_autoptr(CsThreadSlider) slider = g_object_ref_sink (g_object_new (CS_TYPE_THREAD_SLIDER, NULL));
  GtkRange *scale = GTK_RANGE (cs_thread_slider_get_scale (slider));

  g_assert_cmpuint (cs_thread_slider_get_threads (slider), ==, 8);

  /* The scale runs over log2: each mark is a doubling. */
  gtk_range_set_value (scale, 0);
  g_assert_cmpuint (cs_thread_slider_get_threads (slider), ==, 1);
  gtk_range_set_value (scale, 7);
  g_assert_cmpuint (cs_thread_slider_get_threads (slider), ==, 128);
  gtk_range_set_value (scale, 4);
  g_assert_cmpuint (cs_thread_slider_get_threads (slider), ==, 16);

  /* Counts between the marks stay exact. */
  cs_thread_slider_set_threads (slider, 12);
  g_assert_cmpuint (cs_thread_slider_get_threads (slider), ==, 12);
  g_assert_cmpfloat_with_epsilon (gtk_range_get_value (scale), 3.585, 0.001);

  cs_thread_slider_set_threads (slider, 1000);
  g_assert_cmpuint (cs_thread_slider_get_threads (slider), ==, 128);
}

static GtkWidget *
shown_file_chooser (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) toplevel = g_list_model_get_item (toplevels, i);

      if (GTK_IS_FILE_CHOOSER (toplevel) && gtk_widget_get_visible (toplevel))
        return toplevel;
    }

  return NULL;
}

static gboolean
file_chooser_shown (gpointer data)
{
  return shown_file_chooser () != NULL;
}

static gboolean
file_chooser_gone (gpointer data)
{
  return shown_file_chooser () == NULL;
}

/* GTK 4.8's own chooser loads folders after it is shown, and answering or
 * destroying it before that is done trips over its loading. */
static void
chooser_settle (void)
{
  for (guint i = 0; i < 50; i++)
    {
      g_usleep (10000);
      cs_ui_iterate ();
    }
}

static gboolean
destination_chosen (gpointer data)
{
  return cs_setup_page_get_destination (setup_page (data)) != NULL;
}

/* Without a portal the chooser is GTK's own dialog, which the test answers:
 * a folder chosen becomes the destination, a dismissed chooser changes
 * nothing, and one still open when the window goes goes with it. */
static void
test_choose_destination (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *target = g_build_filename (root, "Target", NULL);
  g_autoptr(GFile) target_file = g_file_new_for_path (target);
  g_autoptr(GError) error = NULL;
  GtkWidget *chooser;
  CsWindow *window;

  g_assert_cmpint (g_mkdir (target, 0755), ==, 0);
  window = cs_ui_window_new ();

  gtk_widget_activate_action (GTK_WIDGET (window), "win.choose-destination", NULL);
  g_assert_true (cs_ui_wait_until (file_chooser_shown, NULL, WAIT_SECONDS));
  chooser = shown_file_chooser ();
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (chooser)), ==, "Copy Into");
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (chooser)) == GTK_WINDOW (window));
  gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), target_file, &error);
  g_assert_no_error (error);
  chooser_settle ();
  gtk_dialog_response (GTK_DIALOG (chooser), GTK_RESPONSE_ACCEPT);
  g_assert_true (cs_ui_wait_until (destination_chosen, window, WAIT_SECONDS));
  g_assert_true (g_file_equal (cs_setup_page_get_destination (setup_page (window)), target_file));
  g_assert_true (cs_ui_wait_until (file_chooser_gone, NULL, WAIT_SECONDS));

  gtk_widget_activate_action (GTK_WIDGET (window), "win.choose-destination", NULL);
  g_assert_true (cs_ui_wait_until (file_chooser_shown, NULL, WAIT_SECONDS));
  gtk_dialog_response (GTK_DIALOG (shown_file_chooser ()), GTK_RESPONSE_CANCEL);
  g_assert_true (cs_ui_wait_until (file_chooser_gone, NULL, WAIT_SECONDS));
  g_assert_true (g_file_equal (cs_setup_page_get_destination (setup_page (window)), target_file));

  gtk_widget_activate_action (GTK_WIDGET (window), "win.add-folder", NULL);
  g_assert_true (cs_ui_wait_until (file_chooser_shown, NULL, WAIT_SECONDS));
  chooser_settle ();
  cs_ui_window_destroy (window);
  g_assert_true (cs_ui_wait_until (file_chooser_gone, NULL, WAIT_SECONDS));

  cs_test_tree_remove (root);
}

static gboolean
destination_is_missing (gpointer data)
{
  return cs_ui_find_label (data, "Not there yet: the copy makes this folder") != NULL &&
         cs_ui_find_label (data, " free") != NULL;
}

/* "Copy Into nas1" puts Photos at nas1/Photos, whether nas1 exists or not; a
 * missing nas1 is said to be made before the start, with the free space of the
 * folder it goes into; the summary names nas1 and opens it. */
static void
test_copy_into (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *photos = g_build_filename (root, "Photos", NULL);
  g_autofree char *nas = g_build_filename (root, "nas1", NULL);
  g_autofree char *copied = g_build_filename (nas, "Photos", NULL);
  g_autoptr(GFile) nas_file = g_file_new_for_path (nas);
  g_autofree char *nas_uri = g_file_get_uri (nas_file);
  g_autoptr(GDir) dir = NULL;
  CsWindow *window;

  generate (photos, 20, 3000);
  session_reset ();
  _cs_window_set_session (&fake_session);

  window = window_with_copy (photos, nas, 2);
  g_assert_true (cs_ui_wait_until (destination_is_missing, window, WAIT_SECONDS));
  cs_ui_screenshot (window, "08-copy-into-new-folder.png");

  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  g_assert_cmpstr (cs_run_get_outcome (cs_summary_page_get_run (summary_page (window))), ==,
                   "completed");
  cs_test_tree_assert_equal (photos, copied);
  dir = g_dir_open (nas, 0, NULL);
  g_assert_cmpstr (g_dir_read_name (dir), ==, "Photos");
  g_assert_null (g_dir_read_name (dir));

  /* The summary says where, and opens it. */
  g_assert_nonnull (cs_ui_find_label (window, nas));
  cs_ui_screenshot (window, "09-summary-where.png");
  g_signal_emit_by_name (cs_ui_find_button (window, "Open Destination"), "clicked");
  g_assert_cmpstr (session.shown_uri, ==, nas_uri);

  cs_ui_window_destroy (window);
  _cs_window_set_session (NULL);
  session_reset ();
  cs_test_tree_remove (root);
}

static gboolean
parents_are_missing (gpointer data)
{
  return cs_ui_find_label (data, "Not there yet: the copy makes this folder and 2 folders above it") != NULL &&
         cs_ui_find_label (data, " free") != NULL;
}

static gboolean
destination_is_blocked (gpointer data)
{
  return cs_ui_find_label (data, "is a file") != NULL;
}

/* Copy Into a folder whose parents are missing too: the row says the copy
 * makes them all, and it does. With a file standing where a folder should
 * be, the row says it cannot be made, and the copy does not start. */
static void
test_copy_into_parents (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *photos = g_build_filename (root, "Photos", NULL);
  g_autofree char *nas = g_build_filename (root, "a", "b", "nas1", NULL);
  g_autofree char *copied = g_build_filename (nas, "Photos", NULL);
  g_autofree char *blocker = g_build_filename (root, "notes.txt", NULL);
  g_autofree char *blocked = g_build_filename (blocker, "nas1", NULL);
  g_autofree char *blocker_text = NULL;
  CsWindow *window;

  generate (photos, 5, 3000);
  write_file (blocker, 10, 1);

  window = window_with_copy (photos, nas, 2);
  g_assert_true (cs_ui_wait_until (parents_are_missing, window, WAIT_SECONDS));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  g_assert_cmpstr (cs_run_get_outcome (cs_summary_page_get_run (summary_page (window))), ==,
                   "completed");
  cs_test_tree_assert_equal (photos, copied);
  cs_ui_window_destroy (window);

  window = window_with_copy (photos, blocked, 2);
  g_assert_true (cs_ui_wait_until (destination_is_blocked, window, WAIT_SECONDS));
  blocker_text = g_strdup_printf ("Cannot be made: %s is a file", blocker);
  g_assert_nonnull (cs_ui_find_label (window, blocker_text));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_null (cs_window_get_job (window));
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "setup");
  g_assert_nonnull (strstr (cs_setup_page_get_refusal (setup_page (window)), "no folder can be made in it"));

  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
}

/* The progress card's time left at the very end of a steady copy: both of
 * its estimates are under a second, and it says so in words that read. */
static void
test_time_left (void)
{
  GtkWidget *window = gtk_window_new ();
  CsProgressView *card = g_object_new (CS_TYPE_PROGRESS_VIEW, NULL);
  CsProgress p = { 0 };
  GtkWidget *label;

  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (card));
  gtk_window_present (GTK_WINDOW (window));

  /* 1,000 files of 100 kB at 10 MB/s, a snapshot every quarter second,
   * up to 20 ms before the end. */
  p.state = CS_JOB_STATE_RUNNING;
  p.total_known = TRUE;
  p.threads = p.active = 8;
  p.files_found = p.files_total = 1000;
  p.bytes_found = p.bytes_total = 100000000;
  for (guint i = 1; i <= 40; i++)
    {
      p.elapsed = i * 0.25;
      p.bytes_done = p.bytes_copied = (guint64) (p.elapsed * 10e6) - (i == 40 ? 200000 : 0);
      p.files_done = p.files_copied = p.bytes_done / 100000;
      cs_progress_view_update (card, &p);
    }
  cs_ui_iterate ();

  label = cs_ui_find_label (card, "econd left");
  g_assert_nonnull (label);
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (label)), ==, "Less than a second left");

  gtk_window_destroy (GTK_WINDOW (window));
}

/* A wheel or touchpad over the slider scrolls the page: the scale takes no
 * scroll events, so they reach the page's scrolled window. */
static void
test_slider_scroll (void)
{
  CsWindow *window = cs_ui_window_new ();
  CsThreadSlider *sliders[] = { setup_slider (window), live_slider (window) };

  for (guint i = 0; i < G_N_ELEMENTS (sliders); i++)
    {
      GtkWidget *scale = cs_thread_slider_get_scale (sliders[i]);

      for (GtkWidget *widget = scale; widget != NULL && !GTK_IS_SCROLLED_WINDOW (widget);
           widget = gtk_widget_get_parent (widget))
        {
          g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

          for (guint j = 0; j < g_list_model_get_n_items (controllers); j++)
            {
              g_autoptr(GObject) controller = g_list_model_get_item (controllers, j);

              g_assert_false (GTK_IS_EVENT_CONTROLLER_SCROLL (controller));
            }
        }
      g_assert_nonnull (gtk_widget_get_ancestor (scale, GTK_TYPE_SCROLLED_WINDOW));
    }

  cs_ui_window_destroy (window);
}

/* Move chosen on the setup page: the Start button and the chooser say so,
 * the job moves, and the sources are gone once their copies are there. */
static void
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
static void
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

static void
collect_labels (GtkWidget *widget,
                GPtrArray *labels)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (GTK_IS_LABEL (child) && gtk_widget_get_mapped (child))
        g_ptr_array_add (labels, child);
      collect_labels (child, labels);
    }
}

/* The slider's marks 1 … 128 side by side, none touching the next. */
static void
assert_marks_apart (CsThreadSlider *slider)
{
  GtkWidget *scale = cs_thread_slider_get_scale (slider);
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();
  double right = -G_MAXDOUBLE;

  collect_labels (scale, labels);
  g_assert_cmpuint (labels->len, ==, 8);

  /* In the order of the marks, left to right. */
  for (guint i = 0; i < labels->len; i++)
    {
      graphene_rect_t bounds;

      g_assert_true (gtk_widget_compute_bounds (g_ptr_array_index (labels, i), scale, &bounds));
      g_test_message ("mark %s at %.0f–%.0f",
                      gtk_label_get_label (g_ptr_array_index (labels, i)),
                      bounds.origin.x, bounds.origin.x + bounds.size.width);
      g_assert_cmpfloat (bounds.origin.x, >, right);
      right = bounds.origin.x + bounds.size.width;
    }
}

/* Layout happens on the frame clock: let a few frames pass. */
static void
settle (void)
{
  for (guint i = 0; i < 20; i++)
    {
      g_usleep (G_USEC_PER_SEC / 100);
      cs_ui_iterate ();
    }
}

static gboolean
window_narrow (gpointer data)
{
  return gtk_widget_get_width (GTK_WIDGET (data)) <= 600;
}

static gboolean
window_wide (gpointer data)
{
  return gtk_widget_get_width (GTK_WIDGET (data)) >= 1000;
}

/* The copy page's columns: the graph's, not the progress card's. */
static CsFoldBox *
copy_fold_box (CsWindow *window)
{
  GtkWidget *graph = cs_ui_find (cs_ui_find (window, CS_TYPE_COPY_PAGE), CS_TYPE_THROUGHPUT_GRAPH);

  return CS_FOLD_BOX (gtk_widget_get_ancestor (graph, CS_TYPE_FOLD_BOX));
}

/* Every page works in a window 600 px wide: none asks for more, the copy's
 * graph goes above its counters, the sliders' marks stay apart. */
static void
test_narrow (void)
{
  const char *pages[] = { "setup", "copying", "summary", "history", "compare", "sweep", "demo" };
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "a-folder-with-a-rather-long-name", NULL);
  g_autofree char *in_the_way = g_build_filename (root, "a-file-in-the-way", NULL);
  g_autofree char *nowhere = g_build_filename (in_the_way, "parent", "of-the-destination", NULL);
  CsWindow *window;

  /* With what makes the setup page widest: sources, a destination that
   * cannot be made, and the refusal that names it. */
  generate (source, 3, 1000);
  write_file (in_the_way, 10, 2);
  window = window_with_copy (source, nowhere, 8);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_null (cs_window_get_job (window));
  g_assert_nonnull (cs_setup_page_get_refusal (setup_page (window)));

  gtk_window_set_default_size (GTK_WINDOW (window), 600, 800);
  g_assert_true (cs_ui_wait_until (window_narrow, window, WAIT_SECONDS));

  for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
    {
      g_autofree char *name = g_strdup_printf ("20-narrow-%s.png", pages[i]);
      int min = 0;

      gtk_stack_set_visible_child_name (cs_ui_page_stack (window), pages[i]);
      settle ();
      gtk_widget_measure (GTK_WIDGET (window), GTK_ORIENTATION_HORIZONTAL, -1, &min, NULL, NULL, NULL);
      g_test_message ("%s: at least %d px", pages[i], min);
      g_assert_cmpint (min, <=, 600);
      g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (window)), <=, 600);
      cs_ui_screenshot (window, name);

      if (g_strcmp0 (pages[i], "setup") == 0)
        assert_marks_apart (setup_slider (window));
      if (g_strcmp0 (pages[i], "copying") == 0)
        {
          assert_marks_apart (live_slider (window));
          g_assert_true (cs_fold_box_get_folded (copy_fold_box (window)));
        }
    }

  /* Wide again, side by side. */
  gtk_stack_set_visible_child_name (cs_ui_page_stack (window), "copying");
  gtk_window_set_default_size (GTK_WINDOW (window), 1100, 800);
  g_assert_true (cs_ui_wait_until (window_wide, window, WAIT_SECONDS));
  settle ();
  cs_ui_screenshot (window, "20-wide-copying.png");
  g_assert_false (cs_fold_box_get_folded (copy_fold_box (window)));

  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
}

/* The progress card's widest line, the count: a label with the style of a
 * title. */
static GtkLabel *
progress_headline (CsProgressView *card)
{
  for (GtkWidget *widget = gtk_widget_get_first_child (GTK_WIDGET (card)); widget != NULL;
       widget = gtk_widget_get_next_sibling (widget))
    for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
         child = gtk_widget_get_next_sibling (child))
      if (GTK_IS_LABEL (child) && gtk_widget_has_css_class (child, "title-3"))
        return GTK_LABEL (child);
  g_assert_not_reached ();
}

static GtkLabel *
progress_time_left (CsProgressView *card)
{
  GtkWidget *headline = GTK_WIDGET (progress_headline (card));

  return GTK_LABEL (gtk_widget_get_next_sibling (headline));
}

/* @label shows its whole text: not ellipsized, and given no less width
 * than it needs (a label that does not ellipsize would be cut by its
 * parent). */
static void
assert_whole (GtkLabel *label)
{
  int min = 0, nat = 0;

  gtk_widget_measure (GTK_WIDGET (label), GTK_ORIENTATION_HORIZONTAL, -1, &min, &nat, NULL, NULL);
  g_test_message ("“%s”: %d px, at least %d, at most %d", gtk_label_get_label (label),
                  gtk_widget_get_width (GTK_WIDGET (label)), min, nat);
  g_assert_false (pango_layout_is_ellipsized (gtk_label_get_layout (label)));
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (label)), >=, min);
}

/* No label shown under @root breaks a line inside a word: a title too long
 * for its row ("Geschwindigkeitsgren" over "ze") is cut where no reader
 * would. Breaks after a space, a hyphen, a slash or a dash are fine. */
static void
assert_words_whole (GtkWidget *root)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (!gtk_widget_get_mapped (child))
        continue;
      if (GTK_IS_LABEL (child))
        {
          PangoLayout *layout = gtk_label_get_layout (GTK_LABEL (child));
          const char *text = pango_layout_get_text (layout);

          for (GSList *l = pango_layout_get_lines_readonly (layout); l != NULL; l = l->next)
            {
              const PangoLayoutLine *line = l->data;
              gunichar before, after;

              if (line->start_index == 0)
                continue;
              before = g_utf8_get_char (g_utf8_prev_char (text + line->start_index));
              after = g_utf8_get_char (text + line->start_index);
              if (g_unichar_isspace (before) || g_unichar_isspace (after)
                  || before == '-' || before == '/' || before == 0x2014 || before == 0x2013)
                continue;
              g_test_message ("“%s” breaks a word before byte %d", text, line->start_index);
              g_test_fail ();
            }
        }
      assert_words_whole (child);
    }
}

/* The copy page's progress card in a window 600 px wide, in English, Dutch
 * and German, as the lab Samba's 2,000 small files showed it at 62 % with a
 * range of time left ("Nog 34 seconden tot 42 seconden"): the count is
 * whole ("1.235 van 2.000 bestanden", once cut to "1.235 van 2.000
 * bestan…"), and so is the time left, under the count where it must; no
 * label of the copy page or the setup page breaks a word. */
static void
test_progress_narrow (void)
{
  const struct {
    const char *language;
    const char *locale;
  } languages[] = {
    { "en", "en_US.UTF-8" },
    { "nl", "nl_NL.UTF-8" },
    { "de", "de_DE.UTF-8" },
  };

  /* gtk_test_init() set en_US.UTF-8, which the other tests count on. */
  g_autofree char *saved_locale = g_strdup (setlocale (LC_ALL, NULL));
  g_autofree char *saved_language = g_strdup (g_getenv ("LANGUAGE"));

  /* The build's catalogues, as the window run from the build finds them. */
  bindtextdomain (GETTEXT_PACKAGE, BUILD_ROOT G_DIR_SEPARATOR_S "po");
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  for (guint l = 0; l < G_N_ELEMENTS (languages); l++)
    {
      g_autofree char *name = g_strdup_printf ("21-progress-600-%s.png", languages[l].language);
      CsProgressView *card;
      CsProgress p = { 0 };
      CsWindow *window;

      if (setlocale (LC_ALL, languages[l].locale) == NULL)
        {
          g_test_message ("no locale %s (.ci/install-deps --tests makes it)", languages[l].locale);
          g_test_fail ();
          continue;
        }
      g_setenv ("LANGUAGE", languages[l].language, TRUE);

      window = cs_ui_window_new ();
      gtk_window_set_default_size (GTK_WINDOW (window), 600, 800);
      g_assert_true (cs_ui_wait_until (window_narrow, window, WAIT_SECONDS));
      gtk_stack_set_visible_child_name (cs_ui_page_stack (window), "copying");
      card = CS_PROGRESS_VIEW (cs_ui_find (cs_ui_find (window, CS_TYPE_COPY_PAGE), CS_TYPE_PROGRESS_VIEW));

      /* 2,000 files of 12 kB, 20 to 26 a second, a snapshot every quarter
       * second, up to 1,235 of them. */
      p.state = CS_JOB_STATE_RUNNING;
      p.total_known = TRUE;
      p.threads = p.active = 8;
      p.files_found = p.files_total = 2000;
      p.bytes_found = p.bytes_total = 2000 * 12300;
      for (guint i = 1; p.files_done < 1235; i++)
        {
          p.elapsed = i * 0.25;
          p.files_done = p.files_copied = MIN (1235, p.files_done + (i % 4 == 0 ? 8 : 5));
          p.bytes_done = p.bytes_copied = p.files_done * 12300;
          cs_progress_view_update (card, &p);
        }
      settle ();
      cs_ui_screenshot (window, name);

      assert_whole (progress_time_left (card));
      assert_whole (progress_headline (card));
      assert_words_whole (cs_ui_find (window, CS_TYPE_COPY_PAGE));
      gtk_stack_set_visible_child_name (cs_ui_page_stack (window), "setup");
      settle ();
      assert_words_whole (GTK_WIDGET (setup_page (window)));

      cs_ui_window_destroy (window);
    }

  if (saved_language != NULL)
    g_setenv ("LANGUAGE", saved_language, TRUE);
  else
    g_unsetenv ("LANGUAGE");
  setlocale (LC_ALL, saved_locale);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *data_home = cs_test_tree_make_tmp ();
  int status;

  /* Finished copies are kept in the history: this run's own, not the user's. */
  g_setenv ("XDG_DATA_HOME", data_home, TRUE);

  cs_ui_test_init (&argc, &argv);

  g_test_add_func ("/window/thread-slider", test_thread_slider);
  g_test_add_func ("/window/accessibility", test_accessibility);
  g_test_add_func ("/window/drop", test_drop);
  g_test_add_func ("/window/slider-scroll", test_slider_scroll);
  g_test_add_func ("/window/time-left", test_time_left);
  g_test_add_func ("/window/narrow", test_narrow);
  g_test_add_func ("/window/progress-narrow", test_progress_narrow);
  g_test_add_func ("/window/choose-destination", test_choose_destination);
  g_test_add_func ("/window/refusal", test_refusal);
  g_test_add_func ("/window/copy", test_copy);
  g_test_add_func ("/window/log", test_log);
  g_test_add_func ("/window/manifest", test_manifest);
  g_test_add_func ("/window/copy-into", test_copy_into);
  g_test_add_func ("/window/copy-into-parents", test_copy_into_parents);
  g_test_add_func ("/window/move", test_move);
  g_test_add_func ("/window/mirror", test_mirror);
  g_test_add_func ("/window/slider-live", test_slider);
  g_test_add_func ("/window/loop-probe", test_loop_probe);
  g_test_add_func ("/window/cancel", test_cancel);
  g_test_add_func ("/window/queue", test_queue);
  g_test_add_func ("/window/queue-devices", test_queue_devices);
  g_test_add_func ("/window/speed-limit", test_speed_limit);
  g_test_add_func ("/window/cancel-small", test_cancel_small);
  g_test_add_func ("/window/cancel-keep", test_cancel_keep);
  g_test_add_func ("/window/conflict", test_conflict);
  g_test_add_func ("/window/retry-failed", test_retry_failed);
  g_test_add_func ("/window/inhibit", test_inhibit);
  g_test_add_func ("/window/notification", test_notification);

  status = g_test_run ();
  cs_test_tree_remove (data_home);

  return status;
}
