/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-window"

#include "config.h"

#include <glib/gi18n.h>

#include "copyscope-engine.h"
#include "cs-file-chooser.h"
#include "cs-window-private.h"

/*
 * Checking a folder against a checksum list (cs-manifest.h): chosen from
 * the main menu (a list, then the folder it describes), or the shown run's
 * own list against its destination from the summary. The check runs on a
 * thread of its own, which drives the engine's check and its workers; the
 * answer is a dialog with the counts and the first differences.
 */

/* Differences named in the dialog; the rest are counted. */
#define SHOWN_DIFFERENCES 12

typedef struct {
  char            *manifest;
  char            *folder;
  GPtrArray       *differences;   /* char*, the first SHOWN_DIFFERENCES */
  CsManifestCheck  result;
  char            *error;
} CheckWork;

static void
check_work_free (CheckWork *work)
{
  g_free (work->manifest);
  g_free (work->folder);
  g_ptr_array_unref (work->differences);
  g_free (work->error);
  g_free (work);
}

/* the check's thread */
static void
on_difference (const char *what,
               const char *path,
               const char *message,
               gpointer    user_data)
{
  CheckWork *work = user_data;
  g_autofree char *shown = NULL;
  const char *label;

  if (work->differences->len >= SHOWN_DIFFERENCES)
    return;
  shown = cs_log_escape (path);
  label = g_str_equal (what, "changed") ? _("changed")
          : g_str_equal (what, "missing") ? _("missing")
          : g_str_equal (what, "extra") ? _("extra")
          : _("unreadable");
  /* Translators: one difference a check found, "changed: photos/2019/a.jpg" */
  g_ptr_array_add (work->differences, g_strdup_printf (_("%s: %s"), label, shown));
}

static void
check_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  CheckWork *work = task_data;
  g_autoptr(GError) error = NULL;

  if (!cs_manifest_check_sync (work->manifest, work->folder, CS_JOB_DEFAULT_THREADS, on_difference, work,
                               NULL, &work->result, &error))
    work->error = g_strdup (error->message);
  g_task_return_boolean (task, TRUE);
}

static void
on_checked (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  CsWindow *self = CS_WINDOW (object);
  CheckWork *work = g_task_get_task_data (G_TASK (result));
  g_autoptr(GString) body = g_string_new (NULL);
  g_autofree char *folder = g_filename_display_name (work->folder);
  const CsManifestCheck *r = &work->result;
  guint64 differences = r->changed + r->missing + r->extra;
  const char *heading;
  AdwMessageDialog *dialog;

  if (work->error != NULL)
    {
      heading = _("The Check Could Not Run");
      g_string_append (body, work->error);
    }
  else
    {
      g_autofree char *listed = g_strdup_printf ("%" G_GUINT64_FORMAT, r->listed);
      g_autofree char *matched = g_strdup_printf ("%" G_GUINT64_FORMAT, r->matched);
      g_autofree char *changed = g_strdup_printf ("%" G_GUINT64_FORMAT, r->changed);
      g_autofree char *missing = g_strdup_printf ("%" G_GUINT64_FORMAT, r->missing);
      g_autofree char *extra = g_strdup_printf ("%" G_GUINT64_FORMAT, r->extra);
      g_autofree char *unreadable = g_strdup_printf ("%" G_GUINT64_FORMAT, r->unreadable);

      heading = differences > 0 ? _("Differences Found")
                : r->unreadable > 0 ? _("Some Files Could Not Be Read")
                : _("Every File Matches");
      /* Translators: the result of a check, "In /backup: 120 listed, 117 match, 1 changed,
       * 1 missing, 2 extra, 0 unreadable." */
      g_string_append_printf (body, _("In %s: %s listed, %s match, %s changed, %s missing, %s extra, %s unreadable."),
                              folder, listed, matched, changed, missing, extra, unreadable);
      if (work->differences->len > 0)
        g_string_append_c (body, '\n');
      for (guint i = 0; i < work->differences->len; i++)
        g_string_append_printf (body, "\n%s", (const char *) g_ptr_array_index (work->differences, i));
      if (differences + r->unreadable > work->differences->len)
        g_string_append_printf (body, "\n%s", _("…and more: “copyscope-cli check” lists them all."));
    }

  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self), heading, body->str));
  adw_message_dialog_add_response (dialog, "close", _("_Close"));
  adw_message_dialog_set_default_response (dialog, "close");
  gtk_window_present (GTK_WINDOW (dialog));
}

/* main thread: checks @folder against @manifest and says what it found. */
static void
check_start (CsWindow   *self,
             const char *manifest,
             const char *folder)
{
  g_autoptr(GTask) task = g_task_new (self, NULL, on_checked, NULL);
  CheckWork *work = g_new0 (CheckWork, 1);

  work->manifest = g_strdup (manifest);
  work->folder = g_strdup (folder);
  work->differences = g_ptr_array_new_with_free_func (g_free);
  g_task_set_task_data (task, work, (GDestroyNotify) check_work_free);
  _cs_window_show_toast (self, _("Checking against the checksum list…"));
  g_task_run_in_thread (task, check_thread);
}

/* A list chosen, its folder being chosen. The choosers are cancelled when
 * the window goes, so a folder that comes back finds the window there. */
typedef struct {
  CsWindow *window;
  char     *manifest;
} Pending;

static void
on_folder_chosen (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Pending *pending = user_data;
  g_autoptr(GFile) folder = _cs_choose_file_finish (result, NULL);
  g_autofree char *path = folder != NULL ? g_file_get_path (folder) : NULL;

  if (path != NULL)
    check_start (pending->window, pending->manifest, path);
  g_free (pending->manifest);
  g_free (pending);
}

static void
on_manifest_chosen (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GFile) file = _cs_choose_file_finish (result, NULL);
  Pending *pending;
  CsWindow *self;

  if (file == NULL || g_file_peek_path (file) == NULL)
    return;
  self = CS_WINDOW (user_data);
  pending = g_new0 (Pending, 1);
  pending->window = self;
  pending->manifest = g_file_get_path (file);
  /* The folder it describes: its own, for a list written inside the copy. */
  _cs_choose_async (GTK_WINDOW (self), CS_CHOOSE_FOLDER, _("Folder to Check"), _("_Check"), NULL,
                    self->choosers, on_folder_chosen, pending);
}

static void
check_manifest_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);

  _cs_choose_async (GTK_WINDOW (self), CS_CHOOSE_FILES, _("Checksum List"), _("_Open"), NULL,
                    self->choosers, on_manifest_chosen, self);
}

/* The summary's run: its own list against its destination. */
static void
check_run_manifest_action (GtkWidget  *widget,
                           const char *action_name,
                           GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);
  CsRun *run = cs_summary_page_get_run (self->summary_page);
  CsRunManifest m;

  if (run != NULL && cs_run_get_manifest (run, &m) && cs_run_get_destination (run) != NULL)
    check_start (self, m.path, cs_run_get_destination (run));
}

static void
open_manifest_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);
  CsRun *run = cs_summary_page_get_run (self->summary_page);
  CsRunManifest m;

  if (run != NULL && cs_run_get_manifest (run, &m))
    _cs_window_open_file (self, m.path);
}

void
_cs_window_check_update (CsWindow *self,
                         gboolean  summary)
{
  CsRun *run = summary ? cs_summary_page_get_run (self->summary_page) : NULL;
  CsRunManifest m;
  gboolean has = run != NULL && cs_run_get_manifest (run, &m) && g_file_test (m.path, G_FILE_TEST_IS_REGULAR);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.open-manifest", has);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.check-run-manifest",
                                 has && cs_run_get_destination (run) != NULL);
}

void
_cs_window_check_install_actions (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.check-manifest", NULL, check_manifest_action);
  gtk_widget_class_install_action (widget_class, "win.check-run-manifest", NULL, check_run_manifest_action);
  gtk_widget_class_install_action (widget_class, "win.open-manifest", NULL, open_manifest_action);
}
