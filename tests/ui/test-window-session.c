/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-window"

#include "config.h"

#include "test-window.h"

/* The desktop session: inhibiting suspend during a copy, the notification at
 * its end. */

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

void
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

void
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
