/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-limit-hint"

#include "config.h"

#include <math.h>

#include "cs-copy-page.h"
#include "cs-limit-hint.h"
#include "cs-phase-view.h"
#include "cs-ui-test.h"

/* The limit's sentence under the live graph, drawn from the workers' time,
 * and the way it leads to "Where the Time Goes". */

/* Small files to a share at 8 threads, the workers in requests nine tenths
 * of their time, as the copy page hands them over: a sample's phases, then
 * the sample. */
static void
push_share (CsLimitHint *hint,
            double       seconds)
{
  static const double shares[CS_PHASE_N] = {
    [CS_PHASE_WAITING] = 0.10, [CS_PHASE_OPENING] = 0.30, [CS_PHASE_WRITING] = 0.30,
    [CS_PHASE_METADATA] = 0.15, [CS_PHASE_PUBLISHING] = 0.15,
  };
  CsSample s = { 0 };

  for (guint i = 0; i < CS_N_COUNTERS; i++)
    s.values[i] = NAN;
  for (double t = 0.25; t <= seconds; t += 0.25)
    {
      CsPhaseBucket b = { .t_start = t - 0.25, .t = t, .n = 1 };

      for (guint p = 0; p < CS_PHASE_N; p++)
        b.seconds[p] = shares[p] * 8 * 0.25;
      s.t = t;
      s.files_done += 20;
      s.bytes_done += 20 * 12288;
      s.values[CS_COUNTER_REQUEST_RATE] = 80 * 25;
      s.values[CS_COUNTER_AVG_WRITE_REQUEST_TIME] = 1.3;
      s.values[CS_COUNTER_CPU_USAGE] = 20;
      s.values[CS_COUNTER_THREADS] = 8;
      cs_limit_hint_push_phases (hint, &b, 1);
      cs_limit_hint_push_sample (hint, &s);
    }
}

static void
show_phases_cb (CsLimitHint *hint,
                guint       *count)
{
  (*count)++;
}

static gboolean
counted (gpointer data)
{
  return *(guint *) data > 0;
}

static gboolean
has_focus (gpointer data)
{
  return gtk_widget_has_focus (data);
}

/* Where a page shows the workers' time, the sentence is a button a
 * keyboard reaches and a screen reader names by the sentence. */
static void
test_link (void)
{
  GtkWidget *window = gtk_window_new ();
  CsLimitHint *hint = g_object_new (CS_TYPE_LIMIT_HINT, NULL);
  GtkWidget *button;
  GtkWidget *label;
  guint shown = 0;

  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (hint));
  gtk_window_present (GTK_WINDOW (window));
  cs_limit_hint_set_remote (hint, TRUE);
  g_signal_connect (hint, "show-phases", G_CALLBACK (show_phases_cb), &shown);
  push_share (hint, 4);
  cs_ui_iterate ();

  /* Without the view beside it (the sweep page): a plain line. */
  g_assert_false (cs_limit_hint_get_phases_link (hint));
  g_assert_cmpstr (cs_limit_hint_get_text (hint), ==,
                   "7 of 8 workers are waiting for the server: more threads overlap the waits");
  label = cs_ui_find_label (hint, "7 of 8 workers");
  g_assert_nonnull (label);
  g_assert_null (gtk_widget_get_ancestor (label, GTK_TYPE_BUTTON));
  button = cs_ui_find_button (hint, "7 of 8 workers are waiting for the server: more threads overlap the waits");
  g_assert_true (button == NULL || !gtk_widget_get_mapped (button));

  cs_limit_hint_set_phases_link (hint, TRUE);
  cs_ui_iterate ();
  label = cs_ui_find_label (hint, "7 of 8 workers");
  g_assert_nonnull (label);
  button = gtk_widget_get_ancestor (label, GTK_TYPE_BUTTON);
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_get_mapped (button));
  g_assert_cmpint (gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (button)), ==, GTK_ACCESSIBLE_ROLE_BUTTON);
  g_assert_true (cs_ui_find_button (hint, "7 of 8 workers are waiting for the server: more threads overlap the waits")
                 == button);

  /* Tab reaches it, and Enter (the button's activation, which clicks it
   * once it has shown itself pressed) shows the phases. */
  g_assert_true (gtk_widget_child_focus (window, GTK_DIR_TAB_FORWARD));
  g_assert_true (gtk_widget_has_focus (button));
  g_assert_true (gtk_widget_activate (button));
  g_assert_true (cs_ui_wait_until (counted, &shown, 5));
  g_assert_cmpuint (shown, ==, 1);

  /* The same sentence, updated, in the button. */
  push_share (hint, 1);
  cs_limit_hint_reset (hint);
  g_assert_nonnull (cs_ui_find_label (hint, "Measuring what limits this copy"));
  g_assert_true (gtk_widget_get_ancestor (cs_ui_find_label (hint, "Measuring"), GTK_TYPE_BUTTON) == button);

  gtk_window_destroy (GTK_WINDOW (window));
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

/* On the copy page of a narrow window the view is below the fold: the
 * sentence scrolls it into sight and gives it the focus. */
static void
test_copy_page (void)
{
  GtkWidget *window = gtk_window_new ();
  CsCopyPage *page = g_object_new (CS_TYPE_COPY_PAGE, NULL);
  CsLimitHint *hint;
  GtkWidget *view, *scrolled, *button;
  graphene_rect_t bounds;

  gtk_window_set_default_size (GTK_WINDOW (window), 600, 500);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (page));
  gtk_window_present (GTK_WINDOW (window));
  settle ();

  hint = CS_LIMIT_HINT (cs_ui_find (page, CS_TYPE_LIMIT_HINT));
  view = cs_ui_find (page, CS_TYPE_PHASE_VIEW);
  scrolled = gtk_widget_get_ancestor (view, GTK_TYPE_SCROLLED_WINDOW);
  g_assert_true (cs_limit_hint_get_phases_link (hint));
  g_assert_true (gtk_widget_get_focusable (view));

  /* Out of sight before. */
  g_assert_true (gtk_widget_compute_bounds (view, scrolled, &bounds));
  g_test_message ("view at %.0f–%.0f of %d", bounds.origin.y, bounds.origin.y + bounds.size.height,
                  gtk_widget_get_height (scrolled));
  g_assert_cmpfloat (bounds.origin.y, >=, gtk_widget_get_height (scrolled));

  button = gtk_widget_get_ancestor (cs_ui_find_label (hint, "Measuring"), GTK_TYPE_BUTTON);
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_activate (button));
  g_assert_true (cs_ui_wait_until (has_focus, view, 5));
  settle ();
  g_assert_true (gtk_widget_compute_bounds (view, scrolled, &bounds));
  g_test_message ("view at %.0f–%.0f of %d", bounds.origin.y, bounds.origin.y + bounds.size.height,
                  gtk_widget_get_height (scrolled));
  g_assert_cmpfloat (bounds.origin.y, >=, 0);
  g_assert_cmpfloat (bounds.origin.y + bounds.size.height, <=, gtk_widget_get_height (scrolled));

  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int    argc,
      char **argv)
{
  cs_ui_test_init (&argc, &argv);

  g_test_add_func ("/limit-hint/link", test_link);
  g_test_add_func ("/limit-hint/copy-page", test_copy_page);

  return g_test_run ();
}
