/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-window"

#include "config.h"

#include "test-window.h"

/* The thread slider before and during a copy, the main loop's probe and the
 * time left. */

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

void
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
void
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

void
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

/* The progress card's time left at the very end of a steady copy: both of
 * its estimates are under a second, and it says so in words that read. */
void
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
void
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
