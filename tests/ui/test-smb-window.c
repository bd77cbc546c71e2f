/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-smb-window"

#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include <adwaita.h>

#include "copyscope-engine.h"
#include "cs-copy-page.h"
#include "cs-destination-row.h"
#include "cs-fake-smb.h"
#include "cs-login-dialog.h"
#include "cs-setup-page.h"
#include "cs-source-list.h"
#include "cs-source-row.h"
#include "cs-summary-page.h"
#include "cs-test-tree.h"
#include "cs-ui-test.h"

/*
 * smb:// locations in the window: dropped on it as GIO hands them over
 * (a URI with no path on GVfs's mount), shown as "server/share/folder",
 * handed to the job as smb:// URLs; a server that refuses to let the
 * window log in gets a dialog, asked again after a wrong password, and
 * Cancel leaves the setup as it was. Against the fake server of
 * tests/common/cs-fake-smb.c, which refuses what the engine's credentials
 * do not match: no smbd needed.
 *
 * With CS_SMB_LAB_URL (smb://USER@127.0.0.1:PORT/share of the lab Samba),
 * CS_SMB_LAB_PASSWORD and CS_SMB_LAB_SOURCE set, as tests/labnas/
 * test-smb-window.sh does, only the lab's cases run, through the engine's
 * real SMB client: /smb-window/lab, the password typed into the dialog;
 * with CS_SMB_LAB_KEYRING (a secret service on the session bus),
 * /smb-window/lab-remember, the password typed and "Remember password"
 * on, and /smb-window/lab-remembered, in a process of its own, the copy
 * going without a question.
 */

#define WAIT_SECONDS 60
#define USER         "lab"
#define PASSWORD     "right pass"
#define SHARE_URL    "smb://" USER "@" CS_FAKE_SMB_SERVER "/" CS_FAKE_SMB_SHARE

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

static CsSetupPage *
setup_page (CsWindow *window)
{
  return CS_SETUP_PAGE (cs_ui_find (window, CS_TYPE_SETUP_PAGE));
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

/* Drops @uri on @widget as a file manager would. */
static gboolean
drop_uri (GtkWidget  *widget,
          const char *uri)
{
  GtkDropTarget *target = find_drop_target (widget);
  GValue value = G_VALUE_INIT;
  gboolean handled = FALSE;

  g_assert_nonnull (target);
  g_value_init (&value, GDK_TYPE_FILE_LIST);
  g_value_take_boxed (&value, g_slist_append (NULL, g_file_new_for_uri (uri)));
  g_signal_emit_by_name (target, "drop", &value, 10.0, 10.0, &handled);
  g_value_unset (&value);
  return handled;
}

static gboolean
match_entry_row (GtkWidget  *root,
                 const char *title,
                 GtkWidget **found)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (ADW_IS_ENTRY_ROW (child)
          && g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (child)), title) == 0)
        {
          *found = child;
          return TRUE;
        }
      if (match_entry_row (child, title, found))
        return TRUE;
    }
  return FALSE;
}

/* What the user reads for @msgid, mnemonic aside: the lab test may run in
 * another language for its screenshots. */
static char *
tr (const char *msgid)
{
  g_autoptr(GString) text = g_string_new (_(msgid));

  g_string_replace (text, "_", "", 0);
  return g_string_free (g_steal_pointer (&text), FALSE);
}

/* The dialog's field called @title, as the user reads it. */
static GtkEditable *
field (AdwMessageDialog *dialog,
       const char       *title)
{
  g_autofree char *shown = tr (title);
  GtkWidget *row = NULL;

  g_assert_true (match_entry_row (GTK_WIDGET (dialog), shown, &row));
  return GTK_EDITABLE (row);
}

static gboolean
dialog_shown (gpointer data)
{
  AdwMessageDialog *dialog = cs_ui_find_dialog (data);

  return dialog != NULL && CS_IS_LOGIN_DIALOG (dialog);
}

/* The dialog asking for a login, once the window has looked and the
 * server refused what it had. */
static AdwMessageDialog *
wait_for_login_dialog (CsWindow *window)
{
  g_assert_true (cs_ui_wait_until (dialog_shown, window, WAIT_SECONDS));
  return cs_ui_find_dialog (window);
}

static gboolean
no_dialog (gpointer data)
{
  return cs_ui_find_dialog (data) == NULL;
}

static void
answer (CsWindow   *window,
        const char *password)
{
  AdwMessageDialog *dialog = wait_for_login_dialog (window);
  g_autofree char *log_in = tr ("_Log In");

  gtk_editable_set_text (field (dialog, "Password"), password);
  cs_ui_answer (dialog, log_in);
}

static gboolean
refusal_shown (gpointer data)
{
  return cs_setup_page_get_refusal (setup_page (data)) != NULL;
}

static gboolean
job_started_or_refused (gpointer data)
{
  return cs_window_get_job (data) != NULL || refusal_shown (data);
}

/* The window's copy of a folder with a space and a "%" in its name, onto
 * the share, and back from it, its names as they are called. */
static void
test_drop_and_log_in (void)
{
  g_autofree char *backing = cs_test_tree_make_tmp ();
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "holiday 100%", NULL);
  g_autofree char *arrived = g_build_filename (backing, "my dst", "holiday 100%", NULL);
  g_autofree char *on_share = g_build_filename (backing, "from share", NULL);
  g_autofree char *back = g_build_filename (root, "back", NULL);
  g_autofree char *returned = g_build_filename (back, "from share", NULL);
  g_autoptr(GFile) source_file = g_file_new_for_path (source);
  g_autofree char *last_user = NULL;
  const char * const *run_sources;
  AdwMessageDialog *dialog;
  GFile *sources[] = { source_file };
  CsWindow *window;
  CsRun *run;
  GtkWidget *row;

  g_assert_cmpint (g_mkdir (source, 0755), ==, 0);
  for (guint i = 0; i < 5; i++)
    {
      g_autofree char *name = g_strdup_printf ("photo %u.jpg", i);
      g_autofree char *path = g_build_filename (source, name, NULL);

      write_file (path, 1000 + i * 4000, i);
    }
  g_assert_cmpint (g_mkdir (on_share, 0755), ==, 0);
  {
    g_autofree char *path = g_build_filename (on_share, "notes #1.txt", NULL);

    write_file (path, 3000, 9);
  }
  cs_fake_smb_install (backing, USER, PASSWORD);

  window = cs_ui_window_new ();
  cs_window_add_sources (window, sources, 1);

  /* Dropped as a file manager hands it over: shown as the share's folder,
   * not as a URL with escapes, and never asked of GIO, which cannot. */
  row = cs_ui_find (window, CS_TYPE_DESTINATION_ROW);
  g_assert_true (drop_uri (row, SHARE_URL "/my%20dst"));
  g_assert_nonnull (cs_setup_page_get_destination (setup_page (window)));
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), ==,
                   CS_FAKE_SMB_SERVER "/" CS_FAKE_SMB_SHARE "/my dst\n"
                   "SMB share, reached at the server directly");
  g_assert_nonnull (cs_ui_find_label (row, "Free space unknown"));
  cs_ui_screenshot (window, "smb-01-setup.png");

  /* Start: the server refuses what the window has, so it asks, with the
   * URL's user filled in. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  dialog = wait_for_login_dialog (window);
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Log In to nas");
  g_assert_cmpstr (gtk_editable_get_text (field (dialog, "User")), ==, USER);
  g_assert_nonnull (strstr (adw_message_dialog_get_body (dialog), "“share” on nas"));
  g_assert_null (cs_window_get_job (window));
  /* Nothing starts twice while it asks. */
  g_assert_false (gtk_widget_is_sensitive (GTK_WIDGET (cs_ui_find_button (window, "Start Copy"))));
  cs_ui_screenshot (dialog, "smb-02-dialog.png");

  /* A wrong password: asked again, saying so. */
  answer (window, "wrong");
  dialog = wait_for_login_dialog (window);
  g_assert_nonnull (strstr (adw_message_dialog_get_body (dialog), "refused this user and password"));
  g_assert_cmpstr (gtk_editable_get_text (field (dialog, "User")), ==, USER);
  g_assert_null (cs_window_get_job (window));

  /* The right one: the copy starts, to the share by its URL. */
  answer (window, PASSWORD);
  g_assert_true (cs_ui_wait_until (job_started_or_refused, window, WAIT_SECONDS));
  g_assert_null (cs_setup_page_get_refusal (setup_page (window)));
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  last_user = cs_fake_smb_dup_last_user ();
  g_assert_cmpstr (last_user, ==, USER);

  run = cs_summary_page_get_run (CS_SUMMARY_PAGE (cs_ui_find (window, CS_TYPE_SUMMARY_PAGE)));
  g_assert_cmpstr (cs_run_get_outcome (run), ==, "completed");
  g_assert_cmpstr (cs_run_get_destination (run), ==, SHARE_URL "/my%20dst");
  g_assert_cmpstr (cs_run_get_environment (run)->route, ==,
                   "SMB directly to " CS_FAKE_SMB_SERVER "/" CS_FAKE_SMB_SHARE);
  g_assert_nonnull (cs_ui_find_label (window, "SMB directly to nas/share"));
  cs_test_tree_assert_equal (source, arrived);
  /* The flush at the end (on by default) reaches no disk on a share
   * libsmbclient cannot flush: the summary says so, once. */
  {
    g_autoptr(GPtrArray) errors = cs_run_dup_errors (run);
    guint said = 0;

    for (guint i = 0; i < errors->len; i++)
      said += g_strcmp0 (((const CsRunError *) g_ptr_array_index (errors, i))->operation, "flush") == 0;
    g_assert_cmpuint (said, ==, 1);
    g_assert_nonnull (cs_ui_find_label (window, "libsmbclient offers no flush"));
  }
  cs_ui_screenshot (window, "smb-03-summary.png");

  /* Back from the share, dropped on the source list: its name shown and
   * kept without escapes, logged in already for this process. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.new-copy", NULL);
  g_assert_true (drop_uri (cs_ui_find (window, CS_TYPE_SOURCE_LIST), SHARE_URL "/from%20share"));
  row = cs_ui_find (window, CS_TYPE_SOURCE_ROW);
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==, "from share");
  g_assert_nonnull (strstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), "nas/share"));
  {
    g_autoptr(GFile) back_file = g_file_new_for_path (back);

    cs_window_set_destination (window, back_file);
  }
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (cs_ui_wait_until (job_started_or_refused, window, WAIT_SECONDS));
  g_assert_null (cs_setup_page_get_refusal (setup_page (window)));
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  g_assert_null (cs_ui_find_dialog (window));
  run = cs_summary_page_get_run (CS_SUMMARY_PAGE (cs_ui_find (window, CS_TYPE_SUMMARY_PAGE)));
  run_sources = cs_run_get_sources (run);
  g_assert_cmpstr (run_sources[0], ==, SHARE_URL "/from%20share");
  cs_test_tree_assert_equal (on_share, returned);

  /* A share the server has not: said at once, without a question, and the
   * login stays good for the server's other shares. */
  {
    g_autoptr(GFile) nowhere = g_file_new_for_uri ("smb://" USER "@" CS_FAKE_SMB_SERVER "/nope/in");
    g_autoptr(GFile) again = g_file_new_for_path (on_share);
    GFile *more[] = { again };

    gtk_widget_activate_action (GTK_WIDGET (window), "win.new-copy", NULL);
    cs_window_add_sources (window, more, 1);
    cs_window_set_destination (window, nowhere);
    gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
    g_assert_true (cs_ui_wait_until (job_started_or_refused, window, WAIT_SECONDS));
    g_assert_null (cs_window_get_job (window));
    g_assert_null (cs_ui_find_dialog (window));
    g_assert_nonnull (strstr (cs_setup_page_get_refusal (setup_page (window)),
                              "The server nas has no share named “nope”"));
  }

  cs_ui_window_destroy (window);
  cs_test_tree_remove (backing);
  cs_test_tree_remove (root);
}

/* Whether a file under @folder holds @text. */
static gboolean
folder_holds (const char *folder,
              const char *text)
{
  g_autoptr(GDir) dir = g_dir_open (folder, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (folder, name, NULL);
      g_autofree char *contents = NULL;
      gsize length = 0;

      if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
        {
          if (folder_holds (path, text))
            return TRUE;
        }
      else if (g_file_get_contents (path, &contents, &length, NULL)
               && g_strstr_len (contents, (gssize) length, text) != NULL)
        return TRUE;
    }
  return FALSE;
}

/* A password typed or dropped into an smb:// URL: the copy logs in with
 * it, without a question, and neither the setup page (destination row,
 * source list) nor the run, its record or the history keeps it. */
static void
test_password_in_url (void)
{
  g_autofree char *backing = cs_test_tree_make_tmp ();
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "album", NULL);
  g_autofree char *arrived = g_build_filename (backing, "dst", "album", NULL);
  g_autofree char *on_share = g_build_filename (backing, "shared", NULL);
  g_autofree char *photo = g_build_filename (source, "a.jpg", NULL);
  g_autofree char *notes = g_build_filename (on_share, "b.txt", NULL);
  g_autofree char *back = g_build_filename (root, "back", NULL);
  g_autofree char *json = NULL;
  g_autofree char *uri = NULL;
  g_autoptr(GFile) source_file = g_file_new_for_path (source);
  GFile *sources[] = { source_file };
  const char *subtitle;
  CsWindow *window;
  CsRun *run;
  GtkWidget *row;

  g_assert_cmpint (g_mkdir (source, 0755), ==, 0);
  write_file (photo, 3000, 1);
  g_assert_cmpint (g_mkdir (on_share, 0755), ==, 0);
  write_file (notes, 2000, 2);
  g_assert_cmpint (g_mkdir (back, 0755), ==, 0);
  /* A password no earlier test typed: only the URL's logs in. */
  cs_fake_smb_install (backing, USER, "Url-Only 7");

  window = cs_ui_window_new ();
  cs_window_add_sources (window, sources, 1);
  row = cs_ui_find (window, CS_TYPE_DESTINATION_ROW);
  g_assert_true (drop_uri (row, "smb://" USER ":Url-Only%207@" CS_FAKE_SMB_SERVER "/"
                                CS_FAKE_SMB_SHARE "/dst"));
  uri = g_file_get_uri (cs_setup_page_get_destination (setup_page (window)));
  g_assert_cmpstr (uri, ==, SHARE_URL "/dst");
  subtitle = adw_action_row_get_subtitle (ADW_ACTION_ROW (row));
  g_assert_null (strstr (subtitle, "Url-Only"));

  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (cs_ui_wait_until (job_started_or_refused, window, WAIT_SECONDS));
  g_assert_null (cs_setup_page_get_refusal (setup_page (window)));
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  g_assert_null (cs_ui_find_dialog (window));
  run = cs_summary_page_get_run (CS_SUMMARY_PAGE (cs_ui_find (window, CS_TYPE_SUMMARY_PAGE)));
  g_assert_cmpstr (cs_run_get_outcome (run), ==, "completed");
  g_assert_cmpstr (cs_run_get_destination (run), ==, SHARE_URL "/dst");
  json = cs_run_to_json_string (run, FALSE);
  g_assert_null (strstr (json, "Url-Only"));
  cs_test_tree_assert_equal (source, arrived);

  /* Dropped on the source list with it: the row and the run without it. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.new-copy", NULL);
  g_assert_true (drop_uri (cs_ui_find (window, CS_TYPE_SOURCE_LIST),
                           "smb://" USER ":Url-Only%207@" CS_FAKE_SMB_SERVER "/"
                           CS_FAKE_SMB_SHARE "/shared"));
  row = cs_ui_find (window, CS_TYPE_SOURCE_ROW);
  g_assert_null (strstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), "Url-Only"));
  {
    g_autoptr(GFile) back_file = g_file_new_for_path (back);

    cs_window_set_destination (window, back_file);
  }
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (cs_ui_wait_until (job_started_or_refused, window, WAIT_SECONDS));
  g_assert_null (cs_setup_page_get_refusal (setup_page (window)));
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  run = cs_summary_page_get_run (CS_SUMMARY_PAGE (cs_ui_find (window, CS_TYPE_SUMMARY_PAGE)));
  g_assert_cmpstr (cs_run_get_sources (run)[0], ==, SHARE_URL "/shared");

  /* Nothing the window or the engine wrote holds it: history, logs. */
  g_assert_false (folder_holds (g_getenv ("XDG_DATA_HOME"), "Url-Only"));

  cs_ui_window_destroy (window);
  cs_test_tree_remove (backing);
  cs_test_tree_remove (root);
}

/* Cancel: nothing starts, the setup stays as it was and says why. */
static void
test_cancel (void)
{
  g_autofree char *backing = cs_test_tree_make_tmp ();
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "a.txt", NULL);
  g_autoptr(GFile) source_file = g_file_new_for_path (source);
  g_autoptr(GFile) destination = NULL;
  GFile *sources[] = { source_file };
  AdwMessageDialog *dialog;
  CsWindow *window;

  write_file (source, 100, 1);
  /* Another server's password than the one the process logged in with. */
  cs_fake_smb_install (backing, "other", "another password");

  window = cs_ui_window_new ();
  cs_window_add_sources (window, sources, 1);
  destination = g_file_new_for_uri ("smb://other@" CS_FAKE_SMB_SERVER "/" CS_FAKE_SMB_SHARE "/in");
  /* As "copyscope --destination smb://…" hands it over. */
  cs_window_set_destination (window, destination);

  g_assert_true (cs_window_start_copy (window, FALSE));
  dialog = wait_for_login_dialog (window);
  g_assert_cmpstr (gtk_editable_get_text (field (dialog, "User")), ==, "other");
  cs_ui_answer (dialog, "Cancel");
  g_assert_true (cs_ui_wait_until (no_dialog, window, WAIT_SECONDS));

  g_assert_null (cs_window_get_job (window));
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "setup");
  g_assert_nonnull (strstr (cs_setup_page_get_refusal (setup_page (window)),
                            "No user and password were given for nas/share"));
  g_assert_cmpuint (g_list_model_get_n_items (cs_setup_page_get_sources (setup_page (window))), ==, 1);
  g_assert_true (g_file_equal (cs_setup_page_get_destination (setup_page (window)), destination));
  g_assert_true (gtk_widget_is_sensitive (GTK_WIDGET (cs_ui_find_button (window, "Start Copy"))));
  {
    g_autofree char *in = g_build_filename (backing, "in", NULL);

    g_assert_false (g_file_test (in, G_FILE_TEST_EXISTS));
  }

  cs_ui_window_destroy (window);
  cs_test_tree_remove (backing);
  cs_test_tree_remove (root);
}

/* For the pictures (CS_SCREENSHOT_DIR), a while at 2 threads first. */
static gboolean
has_progress (gpointer data)
{
  CsJob *job = cs_window_get_job (data);
  guint64 wanted = g_getenv ("CS_SCREENSHOT_DIR") != NULL ? 1000 : 50;
  CsProgress progress;

  if (job == NULL)
    return TRUE;
  cs_job_get_progress (job, &progress);
  return progress.files_done >= wanted;
}

/* The lab Samba, through libsmbclient: the password typed into the dialog,
 * the files byte-identical on the share (tests/labnas/test-smb-window.sh
 * compares them), a thread change during the copy. */
static void
test_lab (void)
{
  const char *url = g_getenv ("CS_SMB_LAB_URL");
  const char *password = g_getenv ("CS_SMB_LAB_PASSWORD");
  g_autoptr(GFile) source_file = g_file_new_for_path (g_getenv ("CS_SMB_LAB_SOURCE"));
  g_autofree char *destination_url = g_strconcat (url, "/dst", NULL);
  g_autoptr(GFile) destination = g_file_new_for_uri (destination_url);
  g_autoptr(GArray) timeline = NULL;
  g_autofree char *body = NULL;
  GFile *sources[] = { source_file };
  AdwMessageDialog *dialog;
  CsThreadSlider *live;
  CsTotals totals;
  CsWindow *window;
  CsRun *run;
  gboolean changed = FALSE;

  window = cs_ui_window_new ();
  /* For a look at a narrow window: CS_SMB_LAB_WIDTH=600. */
  if (g_getenv ("CS_SMB_LAB_WIDTH") != NULL)
    gtk_window_set_default_size (GTK_WINDOW (window), atoi (g_getenv ("CS_SMB_LAB_WIDTH")), 1000);
  cs_thread_slider_set_threads (cs_setup_page_get_thread_slider (setup_page (window)), 2);
  cs_window_add_sources (window, sources, 1);
  cs_window_set_destination (window, destination);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);

  dialog = wait_for_login_dialog (window);
  body = g_strdup (adw_message_dialog_get_body (dialog));
  /*X*/
  cs_ui_screenshot (dialog, "smb-login-dialog.png");
  answer (window, "not the password");
  dialog = wait_for_login_dialog (window);
  /* Asked again, saying why. */
  g_assert_cmpstr (adw_message_dialog_get_body (dialog), !=, body);
  cs_ui_screenshot (dialog, "smb-login-refused.png");
  answer (window, password);

  g_assert_true (cs_ui_wait_until (job_started_or_refused, window, WAIT_SECONDS));
  g_assert_null (cs_setup_page_get_refusal (setup_page (window)));
  g_assert_true (cs_ui_wait_until (has_progress, window, WAIT_SECONDS));
  if (cs_window_get_job (window) != NULL)
    {
      live = cs_copy_page_get_thread_slider (CS_COPY_PAGE (cs_ui_find (window, CS_TYPE_COPY_PAGE)));
      cs_thread_slider_set_threads (live, 8);
      if (g_getenv ("CS_SCREENSHOT_DIR") != NULL)
        {
          /* Long enough after the change for the graph to answer it. */
          for (guint i = 0; i < 60 && cs_window_get_job (window) != NULL; i++)
            {
              g_usleep (G_USEC_PER_SEC / 10);
              cs_ui_iterate ();
            }
          cs_ui_screenshot (window, "smb-native-copying.png");
        }
    }
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, 600));

  run = cs_summary_page_get_run (CS_SUMMARY_PAGE (cs_ui_find (window, CS_TYPE_SUMMARY_PAGE)));
  {
    g_autoptr(GPtrArray) errors = cs_run_dup_errors (run);

    for (guint i = 0; errors != NULL && i < errors->len; i++)
      {
        const CsRunError *e = g_ptr_array_index (errors, i);

        g_test_message ("%s: %s: %s", e->path, e->operation, e->message);
      }
  }
  /* A share keeps no modes, which the run reports; no file failed. */
  cs_run_get_totals (run, &totals);
  g_assert_cmpstr (cs_run_get_outcome (run), ==, "completed");
  g_assert_cmpuint (totals.v[CS_CLASS_FAILED][CS_KIND_FILES], ==, 0);
  g_assert_cmpuint (totals.v[CS_CLASS_COPIED][CS_KIND_FILES], >, 0);
  g_assert_cmpstr (cs_run_get_destination (run), ==, destination_url);
  {
    g_autofree char *direct = g_strdup_printf (_("SMB directly to %s/%s"), "127.0.0.1", "share");

    g_assert_cmpstr (cs_run_get_environment (run)->route, ==, direct);
  }
  timeline = cs_run_dup_timeline (run);
  for (guint i = 0; i < timeline->len; i++)
    changed = changed || g_array_index (timeline, CsThreadChange, i).to == 8;
  g_assert_true (changed);
  {
    g_autofree char *json = cs_run_to_json_string (run, FALSE);

    g_assert_null (strstr (json, password));
  }
  cs_ui_screenshot (window, "smb-native-summary.png");

  cs_ui_window_destroy (window);
}

static gboolean
started_or_asked (gpointer data)
{
  return job_started_or_refused (data) || dialog_shown (data);
}

/* A copy of the lab source into @folder of the lab share; TRUE when it
 * asked for a login first, which it answers with the right password,
 * "Remember password" on with @remember. */
static gboolean
lab_copy (const char *folder,
          gboolean    remember)
{
  g_autoptr(GFile) source_file = g_file_new_for_path (g_getenv ("CS_SMB_LAB_SOURCE"));
  g_autofree char *url = g_strconcat (g_getenv ("CS_SMB_LAB_URL"), "/", folder, NULL);
  g_autoptr(GFile) destination = g_file_new_for_uri (url);
  GFile *sources[] = { source_file };
  gboolean asked = FALSE;
  CsWindow *window;
  CsTotals totals;

  window = cs_ui_window_new ();
  cs_window_add_sources (window, sources, 1);
  cs_window_set_destination (window, destination);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (cs_ui_wait_until (started_or_asked, window, WAIT_SECONDS));
  if (dialog_shown (window))
    {
      AdwMessageDialog *dialog = wait_for_login_dialog (window);
      GtkCheckButton *check = GTK_CHECK_BUTTON (cs_ui_find (dialog, GTK_TYPE_CHECK_BUTTON));

      asked = TRUE;
      gtk_check_button_set_active (check, remember);
      answer (window, g_getenv ("CS_SMB_LAB_PASSWORD"));
      g_assert_true (cs_ui_wait_until (job_started_or_refused, window, WAIT_SECONDS));
    }
  g_assert_null (cs_setup_page_get_refusal (setup_page (window)));
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, 600));
  cs_run_get_totals (cs_summary_page_get_run (CS_SUMMARY_PAGE (cs_ui_find (window, CS_TYPE_SUMMARY_PAGE))),
                     &totals);
  g_assert_cmpuint (totals.v[CS_CLASS_FAILED][CS_KIND_FILES], ==, 0);
  g_assert_cmpuint (totals.v[CS_CLASS_COPIED][CS_KIND_FILES], >, 0);
  /* The keyring is written in a thread of its own, the copy meanwhile; a
   * toast would say it failed. */
  for (guint i = 0; remember && i < 20; i++)
    {
      g_usleep (G_USEC_PER_SEC / 20);
      cs_ui_iterate ();
    }
  g_assert_null (cs_ui_find_label (window, "not kept in the keyring"));
  cs_ui_window_destroy (window);
  return asked;
}

/* Asked, and told to remember: the wrapper finds it in the keyring. */
static void
test_lab_remember (void)
{
  g_assert_true (lab_copy ("dst-remember", TRUE));
}

/* A process of its own, nothing given: the keyring's password, no question. */
static void
test_lab_remembered (void)
{
  g_assert_false (lab_copy ("dst-remembered", FALSE));
}

/* What a row's two-line format says on its second line before its next
 * figure, in the language of the test. */
static char *
fixed_part (const char *format)
{
  const char *start = strchr (format, '\n');

  g_assert_nonnull (start);
  start++;
  return g_strndup (start, strcspn (start, "%"));
}

static gboolean
subtitle_has (gpointer data)
{
  const char *subtitle = adw_action_row_get_subtitle (ADW_ACTION_ROW (data));
  const char *wanted = g_object_get_data (G_OBJECT (data), "wanted");

  return subtitle != NULL && strstr (subtitle, wanted) != NULL;
}

/* A folder on the share's GVfs mount: before any copy, the destination row
 * says whether a copy there goes to the server directly or through the
 * mount, as the route will (cs-route.c): through the mount with no login that
 * works (no keyring, no guests on the lab), directly once the password is
 * given. */
static void
test_gvfs_row (void)
{
  g_autoptr(GFile) folder = g_file_new_for_path (g_getenv ("CS_SMB_LAB_GVFS_PATH"));
  g_autofree char *mount = fixed_part (_("%s\nSMB share: through GNOME's mount, slower for small "
                                        "files; Copyscope could not log in itself (%s)"));
  g_autofree char *direct = fixed_part (_("%s\nSMB share: Copyscope talks to the server directly, "
                                         "measured %.1f× as fast for small files as through the mount"));
  g_autoptr(GError) error = NULL;
  CsDestinationRow *row;
  CsWindow *window;

  window = cs_ui_window_new ();
  if (g_getenv ("CS_SMB_LAB_WIDTH") != NULL)
    gtk_window_set_default_size (GTK_WINDOW (window), atoi (g_getenv ("CS_SMB_LAB_WIDTH")), 800);
  row = CS_DESTINATION_ROW (cs_ui_find (window, CS_TYPE_DESTINATION_ROW));
  cs_window_set_destination (window, folder);
  g_object_set_data (G_OBJECT (row), "wanted", mount);
  if (!cs_ui_wait_until (subtitle_has, row, WAIT_SECONDS))
    g_error ("no login: the row says “%s”", adw_action_row_get_subtitle (ADW_ACTION_ROW (row)));
  g_assert_null (strstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), direct));
  cs_ui_screenshot (window, "gvfs-destination-mount.png");

  /* As the window logs in after its dialog: that login, for that server. */
  if (!cs_smb_log_in_sync (g_getenv ("CS_SMB_LAB_GVFS_PATH"), NULL, g_getenv ("CS_SMB_LAB_USER"),
                           g_getenv ("CS_SMB_LAB_PASSWORD"), NULL, &error))
    g_error ("the login with the password: %s", error->message);
  cs_destination_row_set_file (row, NULL);
  cs_window_set_destination (window, folder);
  g_object_set_data (G_OBJECT (row), "wanted", direct);
  if (!cs_ui_wait_until (subtitle_has, row, WAIT_SECONDS))
    g_error ("with the password: the row says “%s”", adw_action_row_get_subtitle (ADW_ACTION_ROW (row)));
  cs_ui_screenshot (window, "gvfs-destination-direct.png");

  cs_ui_window_destroy (window);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *data_home = cs_test_tree_make_tmp ();
  g_autofree char *runtime = cs_test_tree_make_tmp ();
  int status;

  /* Finished copies are kept in the history: this run's own. */
  g_setenv ("XDG_DATA_HOME", data_home, TRUE);
  /* A share GIO cannot reach, as for an SMB share nobody mounted: its URI
   * has no path. And no keyring of this machine's. */
  g_setenv ("GIO_USE_VFS", "local", TRUE);
  if (g_getenv ("CS_SMB_LAB_KEYRING") == NULL)
    cs_fake_smb_hide_keyring (runtime);

  cs_ui_test_init (&argc, &argv);
  /* For a look in another language (LANGUAGE=nl): the build's catalogues. */
  if (g_getenv ("CS_TEST_LOCALEDIR") != NULL)
    {
      bindtextdomain (GETTEXT_PACKAGE, g_getenv ("CS_TEST_LOCALEDIR"));
      bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
      textdomain (GETTEXT_PACKAGE);
    }

  if (g_strcmp0 (g_getenv ("CS_SMB_LAB_KEYRING"), "remember") == 0)
    g_test_add_func ("/smb-window/lab-remember", test_lab_remember);
  else if (g_strcmp0 (g_getenv ("CS_SMB_LAB_KEYRING"), "remembered") == 0)
    g_test_add_func ("/smb-window/lab-remembered", test_lab_remembered);
  else if (g_getenv ("CS_SMB_LAB_GVFS_PATH") != NULL)
    g_test_add_func ("/smb-window/gvfs-row", test_gvfs_row);
  else if (g_getenv ("CS_SMB_LAB_URL") != NULL)
    g_test_add_func ("/smb-window/lab", test_lab);
  else
    {
      g_test_add_func ("/smb-window/drop-and-log-in", test_drop_and_log_in);
      g_test_add_func ("/smb-window/cancel", test_cancel);
      g_test_add_func ("/smb-window/password-in-url", test_password_in_url);
    }

  status = g_test_run ();
  cs_test_tree_remove (data_home);
  cs_test_tree_remove (runtime);
  return status;
}
