/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-window"

#include "config.h"

#include "test-window.h"

/* The setup page: drops, the destination chooser, refused destinations,
 * accessible names, a destination that does not exist yet. */

static CsSourceList *
source_list (CsWindow *window)
{
  return CS_SOURCE_LIST (cs_ui_find (window, CS_TYPE_SOURCE_LIST));
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

void
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

void
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

void
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
void
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
void
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
void
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
