/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-window"

#include "config.h"

#include <glib/gi18n.h>

#include "copyscope-engine.h"
#include "cs-file-chooser.h"
#include "cs-window-private.h"

#include "cs-history.h"

/*
 * Checking a folder against a checksum list (cs-manifest.h): chosen from
 * the main menu (a list, then the folder it describes), or the shown run's
 * own list against its destination from the summary. The engine's check
 * runs on a thread of its own (cs_manifest_check_async) and records a run
 * of kind "check", as copyscope-cli check --json does: the check page shows
 * its progress, and once done the run is kept in History and shown on the
 * summary page, differences as its list, graph and exports as a copy's.
 *
 * Progress comes as the generate dialog's does: the check's thread leaves
 * its newest counts and samples under a lock, and a timeout on the main
 * thread takes them to the page.
 */

/* As often as the engine samples. */
#define POLL_MS 250

typedef struct _CsWindowCheck {
  /* Under lock: written by the check's thread */
  GMutex           lock;
  GArray          *samples;       /* CsSample, not shown yet */
  CsManifestCheck  so_far;

  /* Main thread only */
  CsWindow        *window;        /* NULL once the window is gone */
  CsRun           *run;
  char            *manifest;
  char            *folder;
  GCancellable    *cancellable;
  guint            poll_id;
} CsWindowCheck;

static void
window_check_free (CsWindowCheck *check)
{
  g_clear_handle_id (&check->poll_id, g_source_remove);
  g_mutex_clear (&check->lock);
  g_array_unref (check->samples);
  cs_run_unref (check->run);
  g_free (check->manifest);
  g_free (check->folder);
  g_clear_object (&check->cancellable);
  g_free (check);
}

/* the check's thread */
static void
on_progress (const CsSample        *sample,
             const CsManifestCheck *so_far,
             gpointer               user_data)
{
  CsWindowCheck *check = user_data;

  g_mutex_lock (&check->lock);
  g_array_append_val (check->samples, *sample);
  check->so_far = *so_far;
  g_mutex_unlock (&check->lock);
}

/* main thread: what the check's thread left, to the page */
static void
window_check_show_progress (CsWindowCheck *check)
{
  g_autoptr(GArray) samples = NULL;
  CsManifestCheck so_far;

  g_mutex_lock (&check->lock);
  samples = g_steal_pointer (&check->samples);
  check->samples = g_array_new (FALSE, FALSE, sizeof (CsSample));
  so_far = check->so_far;
  g_mutex_unlock (&check->lock);

  if (check->window == NULL)
    return;
  for (guint i = 0; i < samples->len; i++)
    cs_check_page_update (check->window->check_page, &g_array_index (samples, CsSample, i), &so_far);
}

static gboolean
poll_cb (gpointer user_data)
{
  window_check_show_progress (user_data);
  return G_SOURCE_CONTINUE;
}

/* main thread: the check has ended. */
static void
on_checked (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  CsWindowCheck *check = user_data;
  CsWindow *self = check->window;
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) save_error = NULL;
  g_autofree char *saved = NULL;
  CsManifestCheck counts;
  gboolean ok;

  g_clear_handle_id (&check->poll_id, g_source_remove);
  window_check_show_progress (check);
  ok = cs_manifest_check_finish (result, &counts, &error);
  if (self == NULL)
    {
      window_check_free (check);
      return;
    }
  self->check = NULL;
  _cs_window_actions_update (self);

  if (!ok && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      _cs_window_show_toast (self, _("The check was cancelled"));
      if (g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), "checking") == 0)
        _cs_window_go_back (self);
      window_check_free (check);
      return;
    }
  if (!ok && counts.listed == 0)
    {
      /* Nothing was read (the list unreadable or malformed, the folder
       * gone): no run worth keeping, a message. */
      AdwMessageDialog *dialog;

      dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self), _("The Check Could Not Run"),
                                                           error->message));
      adw_message_dialog_add_response (dialog, "close", _("_Close"));
      adw_message_dialog_set_default_response (dialog, "close");
      gtk_window_present (GTK_WINDOW (dialog));
      if (g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), "checking") == 0)
        _cs_window_go_back (self);
      window_check_free (check);
      return;
    }

  saved = cs_history_save (check->run, &save_error);
  if (saved == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("Could not keep the run in the history: %s"),
                                                  save_error->message);

      _cs_window_show_toast (self, message);
    }

  cs_summary_page_set_run (self->summary_page, check->run);
  self->summary_from_history = TRUE;
  /* The summary takes the check page's place: Back goes where the check
   * was started from. */
  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), "checking") == 0)
    {
      gtk_stack_set_visible_child_name (self->stack, "summary");
      _cs_window_actions_update (self);
    }
  else
    _cs_window_navigate (self, "summary");
  window_check_free (check);
}

/* main thread: checks @folder against @manifest, on the check page. */
static void
check_start (CsWindow   *self,
             const char *manifest,
             const char *folder)
{
  CsWindowCheck *check;

  if (self->check != NULL)
    {
      _cs_window_show_toast (self, _("A check is running; start this one when it is done"));
      return;
    }

  check = g_new0 (CsWindowCheck, 1);
  g_mutex_init (&check->lock);
  check->samples = g_array_new (FALSE, FALSE, sizeof (CsSample));
  check->window = self;
  check->run = cs_run_new ();
  check->manifest = g_strdup (manifest);
  check->folder = g_strdup (folder);
  check->cancellable = g_cancellable_new ();
  self->check = check;

  cs_check_page_start (self->check_page, manifest, folder);
  _cs_window_navigate (self, "checking");
  check->poll_id = g_timeout_add (POLL_MS, poll_cb, check);
  cs_manifest_check_async (manifest, folder, CS_JOB_DEFAULT_THREADS, check->run, on_progress, check,
                           check->cancellable, on_checked, check);
  _cs_window_actions_update (self);
}

void
_cs_window_check_cancel (CsWindow *self)
{
  CsWindowCheck *check = self->check;

  if (check == NULL)
    return;
  /* The check ends on its own thread; its callback then frees it. */
  self->check = NULL;
  check->window = NULL;
  g_clear_handle_id (&check->poll_id, g_source_remove);
  g_cancellable_cancel (check->cancellable);
}

static void
cancel_check_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);

  if (self->check != NULL)
    g_cancellable_cancel (self->check->cancellable);
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
                                 has && cs_run_get_destination (run) != NULL && self->check == NULL);
  /* One check at a time. */
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.check-manifest", self->check == NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.cancel-check", self->check != NULL);
}

void
_cs_window_check_install_actions (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.check-manifest", NULL, check_manifest_action);
  gtk_widget_class_install_action (widget_class, "win.check-run-manifest", NULL, check_run_manifest_action);
  gtk_widget_class_install_action (widget_class, "win.open-manifest", NULL, open_manifest_action);
  gtk_widget_class_install_action (widget_class, "win.cancel-check", NULL, cancel_check_action);
}
