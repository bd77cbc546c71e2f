/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-window"

#include "config.h"

#include "test-window.h"

/*
 * The window in-process, driven the way a user would: drops, actions, the
 * slider, dialog answers; checked against the real files the engine wrote.
 * Widgets are found by what they are and what they are called. Each part
 * of the window has its file, test-window-*.c; this one holds the helpers
 * more than one of them uses, and main () with the list of all their tests.
 */

CsSetupPage *
setup_page (CsWindow *window)
{
  return CS_SETUP_PAGE (cs_ui_find (window, CS_TYPE_SETUP_PAGE));
}

CsThreadSlider *
setup_slider (CsWindow *window)
{
  return cs_setup_page_get_thread_slider (setup_page (window));
}

CsThreadSlider *
live_slider (CsWindow *window)
{
  return cs_copy_page_get_thread_slider (CS_COPY_PAGE (cs_ui_find (window, CS_TYPE_COPY_PAGE)));
}

CsSummaryPage *
summary_page (CsWindow *window)
{
  return CS_SUMMARY_PAGE (cs_ui_find (window, CS_TYPE_SUMMARY_PAGE));
}

GtkWidget *
graph (CsWindow *window)
{
  return cs_ui_find_labelled (window, CS_TYPE_THROUGHPUT_GRAPH, "Throughput graph");
}

void
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

guint
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

GtkDropTarget *
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

CsWindow *
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

void
generate (const char *dir,
          guint64     n_files,
          guint64     size)
{
  g_autoptr(GError) error = NULL;

  cs_generate_files_sync (dir, n_files, size, 42, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
}

gboolean
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

Session session;

guint
fake_inhibit (GtkWindow  *window,
              const char *reason)
{
  g_assert_nonnull (reason);
  g_assert_cmpuint (session.held, ==, 0);
  session.n_inhibits++;
  session.held = 1000 + session.n_inhibits;
  return session.held;
}

void
fake_uninhibit (GtkWindow *window,
                guint      cookie)
{
  g_assert_cmpuint (cookie, ==, session.held);
  session.returned = cookie;
  session.held = 0;
}

void
fake_send_notification (GtkWindow     *window,
                        const char    *id,
                        GNotification *notification)
{
  g_set_object (&session.notification, notification);
  g_free (session.notification_id);
  session.notification_id = g_strdup (id);
}

void
fake_show_uri (GtkWindow  *window,
               const char *uri)
{
  g_free (session.shown_uri);
  session.shown_uri = g_strdup (uri);
}

const CsWindowSession fake_session = {
  fake_inhibit,
  fake_uninhibit,
  fake_send_notification,
  fake_show_uri,
};

void
session_reset (void)
{
  g_clear_object (&session.notification);
  g_clear_pointer (&session.notification_id, g_free);
  g_clear_pointer (&session.shown_uri, g_free);
  memset (&session, 0, sizeof session);
}

gboolean
job_paused (gpointer data)
{
  CsJob *job = cs_window_get_job (CS_WINDOW (data));
  CsProgress progress;

  if (job == NULL)
    return TRUE;

  cs_job_get_progress (job, &progress);
  return progress.state == CS_JOB_STATE_PAUSED;
}

gboolean
job_running (gpointer data)
{
  CsJob *job = cs_window_get_job (CS_WINDOW (data));

  return job == NULL || cs_job_get_state (job) == CS_JOB_STATE_RUNNING;
}

gboolean
conflict_shown (gpointer data)
{
  CsWindow *window = data;

  return cs_ui_find_dialog (window) != NULL || cs_window_get_job (window) == NULL;
}

void
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
  g_test_add_func ("/window/totals-narrow", test_totals_narrow);
  g_test_add_func ("/window/choose-destination", test_choose_destination);
  g_test_add_func ("/window/refusal", test_refusal);
  g_test_add_func ("/window/copy", test_copy);
  g_test_add_func ("/window/rerun-checking", test_rerun_checking);
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
