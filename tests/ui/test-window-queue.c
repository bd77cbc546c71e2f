/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-window"

#include "config.h"

#include "test-window.h"

/* The copy queue: jobs waiting their turn, side jobs on other devices, the
 * speed limit. */

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
void
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
void
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

void
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
