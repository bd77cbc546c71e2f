/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-sources"

#include "config.h"

#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include <adwaita.h>

#include "copyscope-engine.h"
#include "cs-setup-page.h"
#include "cs-source-list.h"
#include "cs-source-row.h"
#include "cs-summary-page.h"
#include "cs-test-tree.h"
#include "cs-ui-test.h"

/*
 * What the user drops as sources (issue 37): two of one name are said on
 * both rows before Start, naming each other, and can be told apart by
 * removing one or copying one under another name; a dropped symbolic link
 * shows as a link and to what, and is copied as one; a source dropped twice
 * is one row.
 */

#define WAIT_SECONDS 60

static CsSourceList *
source_list (CsWindow *window)
{
  return CS_SOURCE_LIST (cs_ui_find (window, CS_TYPE_SOURCE_LIST));
}

static CsSummaryPage *
summary_page (CsWindow *window)
{
  return CS_SUMMARY_PAGE (cs_ui_find (window, CS_TYPE_SUMMARY_PAGE));
}

static void
write_text (const char *path,
            const char *text)
{
  g_autofree char *parent = g_path_get_dirname (path);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
}

static char *
read_text (const char *path)
{
  g_autoptr(GError) error = NULL;
  char *text = NULL;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  return text;
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

/* Drops @paths (NULL-terminated) on the source list, as a file manager does. */
static void
drop (CsWindow    *window,
      const char **paths)
{
  GtkDropTarget *target = find_drop_target (GTK_WIDGET (source_list (window)));
  GSList *files = NULL;
  GValue value = G_VALUE_INIT;
  gboolean handled = FALSE;

  g_assert_nonnull (target);
  for (guint i = 0; paths[i] != NULL; i++)
    files = g_slist_append (files, g_file_new_for_path (paths[i]));
  g_value_init (&value, GDK_TYPE_FILE_LIST);
  g_value_take_boxed (&value, files);
  g_signal_emit_by_name (target, "drop", &value, 10.0, 10.0, &handled);
  g_value_unset (&value);
  g_assert_true (handled);
}

/* Every source row under @widget, in order. */
static void
collect_rows (GtkWidget *widget,
              GPtrArray *found)
{
  for (GtkWidget *w = gtk_widget_get_first_child (widget); w != NULL; w = gtk_widget_get_next_sibling (w))
    {
      if (CS_IS_SOURCE_ROW (w))
        g_ptr_array_add (found, w);
      else
        collect_rows (w, found);
    }
}

static GPtrArray *
rows (CsWindow *window)
{
  GPtrArray *found = g_ptr_array_new ();

  collect_rows (GTK_WIDGET (source_list (window)), found);
  return found;
}

static gboolean
all_scanned (gpointer data)
{
  g_autoptr(GPtrArray) found = rows (data);

  for (guint i = 0; i < found->len; i++)
    if (!cs_source_row_get_scanned (found->pdata[i]))
      return FALSE;
  return TRUE;
}

static CsSourceRow *
row_of (CsWindow   *window,
        const char *path)
{
  g_autoptr(GPtrArray) found = rows (window);
  g_autoptr(GFile) file = g_file_new_for_path (path);

  for (guint i = 0; i < found->len; i++)
    if (g_file_equal (cs_source_row_get_file (found->pdata[i]), file))
      return found->pdata[i];
  g_error ("no row for %s", path);
}

static const char *
subtitle (CsSourceRow *row)
{
  return adw_action_row_get_subtitle (ADW_ACTION_ROW (row));
}

/* Two cameras' folders each with an IMG_0001.JPG, and a file of another name. */
typedef struct {
  char *root;
  char *a_x;
  char *b_x;
  char *other;
  char *dest;
} Tree;

static void
tree_init (Tree *t)
{
  t->root = cs_test_tree_make_tmp ();
  t->a_x = g_build_filename (t->root, "cam1", "IMG_0001.JPG", NULL);
  t->b_x = g_build_filename (t->root, "cam2", "IMG_0001.JPG", NULL);
  t->other = g_build_filename (t->root, "cam2", "IMG_0002.JPG", NULL);
  t->dest = g_build_filename (t->root, "dest", NULL);
  write_text (t->a_x, "A\n");
  write_text (t->b_x, "B\n");
  write_text (t->other, "other\n");
  g_assert_cmpint (g_mkdir (t->dest, 0755), ==, 0);
}

static void
tree_clear (Tree *t)
{
  cs_test_tree_remove (t->root);
  g_free (t->root);
  g_free (t->a_x);
  g_free (t->b_x);
  g_free (t->other);
  g_free (t->dest);
}

static CsWindow *
window_with_clash (Tree *t)
{
  CsWindow *window = cs_ui_window_new ();
  g_autoptr(GFile) dest = g_file_new_for_path (t->dest);
  const char *paths[] = { t->a_x, t->other, t->b_x, NULL };

  drop (window, paths);
  cs_window_set_destination (window, dest);
  g_assert_true (cs_ui_wait_until (all_scanned, window, WAIT_SECONDS));
  return window;
}

static CsRun *
start_and_wait (CsWindow *window)
{
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_nonnull (cs_window_get_job (window));
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "summary");
  return cs_summary_page_get_run (summary_page (window));
}

/* Both rows say so before Start, each naming the other; the third says
 * nothing. Started as it is, the first keeps the name and the second is
 * reported, naming both: never merged without a word. */
static void
test_clash (void)
{
  Tree t;
  CsWindow *window;
  CsSourceRow *first, *second, *third;
  g_autofree char *copied = NULL;
  g_autofree char *left = NULL;
  g_autoptr(GPtrArray) errors = NULL;
  gboolean reported = FALSE;
  CsRun *run;

  tree_init (&t);
  window = window_with_clash (&t);
  first = row_of (window, t.a_x);
  second = row_of (window, t.b_x);
  third = row_of (window, t.other);

  g_assert_nonnull (cs_source_row_get_clash (first));
  g_assert_nonnull (strstr (cs_source_row_get_clash (first), t.b_x));
  g_assert_nonnull (cs_source_row_get_clash (second));
  g_assert_nonnull (strstr (cs_source_row_get_clash (second), t.a_x));
  g_assert_null (cs_source_row_get_clash (third));
  /* On the rows themselves, where the user reads them. */
  g_assert_nonnull (strstr (subtitle (second), t.a_x));
  g_assert_nonnull (strstr (subtitle (first), t.b_x));
  g_assert_true (gtk_widget_get_visible (cs_ui_find_labelled (second, GTK_TYPE_MENU_BUTTON,
                                                              "Copy Under Another Name")));
  g_assert_false (gtk_widget_get_visible (cs_ui_find_labelled (third, GTK_TYPE_MENU_BUTTON,
                                                               "Copy Under Another Name")));
  cs_ui_screenshot (window, "sources-clash.png");

  run = start_and_wait (window);
  copied = g_build_filename (t.dest, "IMG_0001.JPG", NULL);
  left = read_text (copied);
  g_assert_cmpstr (left, ==, "A\n");
  errors = cs_run_dup_errors (run);
  for (guint i = 0; i < errors->len; i++)
    {
      const CsRunError *e = g_ptr_array_index (errors, i);

      if (!e->note && strstr (e->path, "cam2/IMG_0001.JPG") != NULL
          && strstr (e->message, "cam1/IMG_0001.JPG") != NULL)
        reported = TRUE;
    }
  g_assert_true (reported);

  cs_ui_window_destroy (window);
  tree_clear (&t);
}

/* Removing one of the two: the other says nothing any more, and is copied. */
static void
test_remove_one (void)
{
  Tree t;
  CsWindow *window;
  CsSourceRow *first;
  GtkWidget *remove;
  g_autofree char *copied = NULL;
  g_autofree char *text = NULL;
  CsRun *run;

  tree_init (&t);
  window = window_with_clash (&t);
  first = row_of (window, t.a_x);

  remove = cs_ui_find_labelled (first, GTK_TYPE_BUTTON, "Remove From Sources");
  g_assert_nonnull (remove);
  g_signal_emit_by_name (remove, "clicked");
  cs_ui_iterate ();
  g_assert_cmpuint (cs_source_list_get_n_files (source_list (window)), ==, 2);
  g_assert_null (cs_source_row_get_clash (row_of (window, t.b_x)));
  g_assert_null (strstr (subtitle (row_of (window, t.b_x)), t.a_x));

  run = start_and_wait (window);
  g_assert_cmpstr (cs_run_get_outcome (run), ==, "completed");
  g_assert_cmpuint (cs_run_get_n_errors (run), ==, 0);
  copied = g_build_filename (t.dest, "IMG_0001.JPG", NULL);
  text = read_text (copied);
  g_assert_cmpstr (text, ==, "B\n");

  cs_ui_window_destroy (window);
  tree_clear (&t);
}

/* Enter in @entry: its text widget's activation, which the entry passes on. */
static void
press_enter (GtkWidget *entry)
{
  GtkWidget *text = cs_ui_find (entry, GTK_TYPE_TEXT);

  g_assert_nonnull (text);
  /* What its Enter binding does. */
  g_signal_emit_by_name (text, "activate");
  cs_ui_iterate ();
}

/* Copying the second under another name: its row's button offers "IMG_0001 (2).JPG",
 * the rows say nothing of a clash, and both land, each whole. */
static void
test_rename_one (void)
{
  Tree t;
  CsWindow *window;
  CsSourceRow *second;
  GtkWidget *button, *entry;
  g_autofree char *first_copy = NULL;
  g_autofree char *second_copy = NULL;
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  CsRun *run;

  tree_init (&t);
  window = window_with_clash (&t);
  second = row_of (window, t.b_x);

  button = cs_ui_find_labelled (second, GTK_TYPE_MENU_BUTTON, "Copy Under Another Name");
  gtk_menu_button_popup (GTK_MENU_BUTTON (button));
  cs_ui_iterate ();
  entry = cs_ui_find_labelled (gtk_menu_button_get_popover (GTK_MENU_BUTTON (button)),
                               GTK_TYPE_ENTRY, "Name at the Destination");
  g_assert_nonnull (entry);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (entry)), ==, "IMG_0001 (2).JPG");

  /* A path is no name: refused, nothing changes. */
  gtk_editable_set_text (GTK_EDITABLE (entry), "../IMG_0001.JPG");
  press_enter (entry);
  g_assert_true (gtk_widget_has_css_class (entry, "error"));
  g_assert_null (cs_source_row_get_copy_as (second));
  g_assert_nonnull (cs_source_row_get_clash (second));

  gtk_editable_set_text (GTK_EDITABLE (entry), "IMG_0001 (2).JPG");
  press_enter (entry);
  cs_ui_iterate ();
  g_assert_cmpstr (cs_source_row_get_copy_as (second), ==, "IMG_0001 (2).JPG");
  g_assert_null (cs_source_row_get_clash (second));
  g_assert_null (cs_source_row_get_clash (row_of (window, t.a_x)));
  g_assert_nonnull (strstr (subtitle (second), "IMG_0001 (2).JPG"));
  cs_ui_screenshot (window, "sources-renamed.png");

  run = start_and_wait (window);
  g_assert_cmpstr (cs_run_get_outcome (run), ==, "completed");
  g_assert_cmpuint (cs_run_get_n_errors (run), ==, 0);
  first_copy = g_build_filename (t.dest, "IMG_0001.JPG", NULL);
  second_copy = g_build_filename (t.dest, "IMG_0001 (2).JPG", NULL);
  a = read_text (first_copy);
  b = read_text (second_copy);
  g_assert_cmpstr (a, ==, "A\n");
  g_assert_cmpstr (b, ==, "B\n");
  /* The source is untouched. */
  g_assert_true (g_file_test (t.b_x, G_FILE_TEST_IS_REGULAR));

  cs_ui_window_destroy (window);
  tree_clear (&t);
}

/* A dropped link to a folder shows as a link and to what, and is copied as a
 * link, as cp -a copies it; the folder it points to is not copied through it. */
static void
test_symlink (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *data = g_build_filename (root, "p", "data", "photo.jpg", NULL);
  g_autofree char *link = g_build_filename (root, "p", "current", NULL);
  g_autofree char *dest = g_build_filename (root, "dest", NULL);
  g_autofree char *copied = g_build_filename (dest, "current", NULL);
  g_autofree char *target = NULL;
  g_autoptr(GFile) dest_file = g_file_new_for_path (dest);
  const char *paths[] = { link, NULL };
  CsWindow *window;
  CsSourceRow *row;
  CsRun *run;

  write_text (data, "x\n");
  g_assert_cmpint (symlink ("data", link), ==, 0);
  g_assert_cmpint (g_mkdir (dest, 0755), ==, 0);

  window = cs_ui_window_new ();
  drop (window, paths);
  cs_window_set_destination (window, dest_file);
  g_assert_true (cs_ui_wait_until (all_scanned, window, WAIT_SECONDS));
  row = row_of (window, link);
  g_assert_cmpstr (cs_source_row_get_link_target (row), ==, "data");
  g_assert_nonnull (strstr (subtitle (row), "Link to “data”"));

  run = start_and_wait (window);
  g_assert_cmpstr (cs_run_get_outcome (run), ==, "completed");
  g_assert_true (g_file_test (copied, G_FILE_TEST_IS_SYMLINK));
  target = g_file_read_link (copied, NULL);
  g_assert_cmpstr (target, ==, "data");

  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
}

/* The same path dropped twice, in one drop and again: one row. */
static void
test_twice (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  /* A one-letter title trips GTK 4.8's ellipsized label (min > natural). */
  g_autofree char *file = g_build_filename (root, "notes.txt", NULL);
  const char *paths[] = { file, file, NULL };
  CsWindow *window;
  g_autoptr(GPtrArray) found = NULL;

  write_text (file, "f\n");
  window = cs_ui_window_new ();
  drop (window, paths);
  drop (window, paths);
  g_assert_true (cs_ui_wait_until (all_scanned, window, WAIT_SECONDS));
  g_assert_cmpuint (cs_source_list_get_n_files (source_list (window)), ==, 1);
  found = rows (window);
  g_assert_cmpuint (found->len, ==, 1);
  g_assert_null (cs_source_row_get_clash (found->pdata[0]));

  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
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

  g_test_add_func ("/sources/clash", test_clash);
  g_test_add_func ("/sources/remove-one", test_remove_one);
  g_test_add_func ("/sources/rename-one", test_rename_one);
  g_test_add_func ("/sources/symlink", test_symlink);
  g_test_add_func ("/sources/twice", test_twice);

  status = g_test_run ();
  cs_test_tree_remove (data_home);
  return status;
}
