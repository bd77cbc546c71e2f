/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <glib/gi18n.h>

#include "cs-window-private.h"

/*
 * The window's actions. Buttons and menus only name them; which are enabled
 * follows from the run state in one place, _cs_window_actions_update().
 */

typedef enum {
  CHOOSE_FILES,
  CHOOSE_FOLDERS,
  CHOOSE_DESTINATION,
} ChooseMode;

static void
cs_window_chosen (CsWindow   *self,
                  ChooseMode  mode,
                  GListModel *files)
{
  guint n = g_list_model_get_n_items (files);

  switch (mode)
    {
    case CHOOSE_FILES:
    case CHOOSE_FOLDERS:
      {
        g_autoptr(GPtrArray) array = g_ptr_array_new_with_free_func (g_object_unref);

        for (guint i = 0; i < n; i++)
          g_ptr_array_add (array, g_list_model_get_item (files, i));
        cs_window_add_sources (self, (GFile **) array->pdata, array->len);
      }
      break;

    case CHOOSE_DESTINATION:
      if (n > 0)
        {
          g_autoptr(GFile) folder = g_list_model_get_item (files, 0);

          cs_destination_row_set_file (self->destination_row, folder);
        }
      break;

    default:
      g_assert_not_reached ();
    }
}

#if GTK_CHECK_VERSION (4, 10, 0)

typedef struct
{
  CsWindow   *self;
  ChooseMode  mode;
} ChooseData;

static void
file_dialog_done_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  GtkFileDialog *dialog = GTK_FILE_DIALOG (object);
  ChooseData *data = user_data;
  g_autoptr(CsWindow) self = data->self;
  ChooseMode mode = data->mode;
  g_autoptr(GListModel) files = NULL;
  g_autoptr(GError) error = NULL;

  g_free (data);

  switch (mode)
    {
    case CHOOSE_FILES:
      files = gtk_file_dialog_open_multiple_finish (dialog, result, &error);
      break;

    case CHOOSE_FOLDERS:
      files = gtk_file_dialog_select_multiple_folders_finish (dialog, result, &error);
      break;

    case CHOOSE_DESTINATION:
      {
        g_autoptr(GFile) file = NULL;
        GListStore *store = g_list_store_new (G_TYPE_FILE);

        file = gtk_file_dialog_select_folder_finish (dialog, result, &error);
        if (file != NULL)
          g_list_store_append (store, file);
        files = G_LIST_MODEL (store);
      }
      break;

    default:
      g_assert_not_reached ();
    }

  if (files != NULL)
    cs_window_chosen (self, mode, files);
}

static void
cs_window_choose (CsWindow   *self,
                  ChooseMode  mode)
{
  g_autoptr(GtkFileDialog) dialog = gtk_file_dialog_new ();
  ChooseData *data = g_new0 (ChooseData, 1);

  data->self = g_object_ref (self);
  data->mode = mode;
  gtk_file_dialog_set_modal (dialog, TRUE);

  switch (mode)
    {
    case CHOOSE_FILES:
      gtk_file_dialog_set_title (dialog, _("Add Files"));
      gtk_file_dialog_open_multiple (dialog, GTK_WINDOW (self), NULL, file_dialog_done_cb, data);
      break;

    case CHOOSE_FOLDERS:
      gtk_file_dialog_set_title (dialog, _("Add Folders"));
      gtk_file_dialog_select_multiple_folders (dialog, GTK_WINDOW (self), NULL,
                                               file_dialog_done_cb, data);
      break;

    case CHOOSE_DESTINATION:
      gtk_file_dialog_set_title (dialog, _("Copy Into"));
      gtk_file_dialog_set_accept_label (dialog, _("_Select"));
      gtk_file_dialog_select_folder (dialog, GTK_WINDOW (self), NULL, file_dialog_done_cb, data);
      break;

    default:
      g_assert_not_reached ();
    }
}

#else /* GTK < 4.10 */

static void
native_response_cb (CsWindow        *self,
                    int              response,
                    GtkNativeDialog *native)
{
  ChooseMode mode = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (native), "cs-choose-mode"));
  g_autoptr(GtkNativeDialog) chooser = g_steal_pointer (&self->chooser);

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GListModel) files = gtk_file_chooser_get_files (GTK_FILE_CHOOSER (native));

      cs_window_chosen (self, mode, files);
    }

  gtk_native_dialog_destroy (native);
}

static void
cs_window_choose (CsWindow   *self,
                  ChooseMode  mode)
{
  GtkFileChooserAction action = GTK_FILE_CHOOSER_ACTION_OPEN;
  const char *title = NULL;
  const char *accept = NULL;
  gboolean multiple = FALSE;
  GtkFileChooserNative *native;

  if (self->chooser != NULL)
    return;

  switch (mode)
    {
    case CHOOSE_FILES:
      title = _("Add Files");
      accept = _("_Add");
      multiple = TRUE;
      break;

    case CHOOSE_FOLDERS:
      title = _("Add Folders");
      accept = _("_Add");
      action = GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER;
      multiple = TRUE;
      break;

    case CHOOSE_DESTINATION:
      title = _("Copy Into");
      accept = _("_Select");
      action = GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER;
      break;

    default:
      g_assert_not_reached ();
    }

  native = gtk_file_chooser_native_new (title, GTK_WINDOW (self), action, accept, NULL);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  gtk_file_chooser_set_select_multiple (GTK_FILE_CHOOSER (native), multiple);

  g_object_set_data (G_OBJECT (native), "cs-choose-mode", GINT_TO_POINTER (mode));
  g_signal_connect_object (native, "response", G_CALLBACK (native_response_cb), self,
                           G_CONNECT_SWAPPED);

  self->chooser = GTK_NATIVE_DIALOG (native);
  gtk_native_dialog_show (self->chooser);
}

#endif

static void
add_files_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  cs_window_choose (CS_WINDOW (widget), CHOOSE_FILES);
}

static void
add_folder_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  cs_window_choose (CS_WINDOW (widget), CHOOSE_FOLDERS);
}

static void
choose_destination_action (GtkWidget  *widget,
                           const char *action_name,
                           GVariant   *parameter)
{
  cs_window_choose (CS_WINDOW (widget), CHOOSE_DESTINATION);
}

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  /* JSON unless the chosen name asks for another format. */
  _cs_window_export_run (CS_WINDOW (widget), "json");
}

static void
clear_sources_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);

  cs_source_list_clear (self->source_list);
}

static void
start_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);
  GListModel *files = cs_source_list_get_files (self->source_list);
  GFile *destination = cs_destination_row_get_file (self->destination_row);
  g_autofree char *destination_path = NULL;
  g_autoptr(CsJob) job = NULL;
  g_autoptr(GFile) missing = NULL;

  if (self->job != NULL || destination == NULL)
    return;

  job = cs_job_new ();

  for (guint i = 0; i < g_list_model_get_n_items (files); i++)
    {
      g_autoptr(GFile) file = g_list_model_get_item (files, i);
      g_autofree char *path = g_file_get_path (file);

      /* The engine copies paths; remote locations need to be mounted first. */
      if (path == NULL)
        {
          g_autofree char *uri = g_file_get_uri (file);
          g_autoptr(GError) error = g_error_new (CS_JOB_ERROR, CS_JOB_ERROR_INVALID,
                                                 _("“%s” is not a local or mounted folder."), uri);

          gtk_label_set_label (self->refusal_label, error->message);
          gtk_widget_set_visible (GTK_WIDGET (self->refusal_label), TRUE);
          return;
        }
      cs_job_add_source (job, path);
    }

  destination_path = g_file_get_path (destination);
  if (destination_path == NULL)
    {
      gtk_label_set_label (self->refusal_label,
                           _("The destination is not a local or mounted folder."));
      gtk_widget_set_visible (GTK_WIDGET (self->refusal_label), TRUE);
      return;
    }
  cs_job_set_destination (job, destination_path);

  _cs_window_configure_job (self, job);
  if (_cs_window_start (self, job))
    g_clear_pointer (&self->retry_targets, g_hash_table_unref);
}

static void
pause_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);

  if (self->job == NULL)
    return;

  if (cs_job_get_state (self->job) == CS_JOB_STATE_PAUSED)
    cs_job_resume (self->job);
  else
    cs_job_pause (self->job);

  _cs_window_actions_update (self);
}

static void
cancel_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  _cs_window_ask_cancel (CS_WINDOW (widget));
}

static void
new_copy_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);

  if (self->job != NULL)
    return;

  /* The destination and the options usually carry over; the sources do not. */
  cs_source_list_clear (self->source_list);
  gtk_widget_set_visible (GTK_WIDGET (self->refusal_label), FALSE);
  gtk_stack_set_visible_child_name (self->stack, "setup");
}

/* The folder of the destination where @source (a path that failed) belongs,
 * or NULL when it lies outside every source. */
static char *
destination_dir_for (CsRun      *run,
                     const char *failed)
{
  const char * const *sources = cs_run_get_sources (run);
  const char *destination = cs_run_get_destination (run);

  for (guint i = 0; sources != NULL && sources[i] != NULL; i++)
    {
      g_autoptr(GFile) source = g_file_new_for_path (sources[i]);
      g_autoptr(GFile) file = g_file_new_for_path (failed);
      g_autoptr(GFile) source_parent = g_file_get_parent (source);
      g_autoptr(GFile) file_parent = g_file_get_parent (file);
      g_autofree char *relative = NULL;

      if (source_parent == NULL || file_parent == NULL)
        continue;
      if (!g_file_equal (file, source) && !g_file_has_prefix (file, source))
        continue;

      /* Sources land in the destination under their own names. */
      if (g_file_equal (file_parent, source_parent))
        return g_strdup (destination);

      relative = g_file_get_relative_path (source_parent, file_parent);
      return g_build_filename (destination, relative, NULL);
    }

  return NULL;
}

/* Where a failed file of the run on the summary page belongs: where a Retry
 * Failed sent it, or its folder under the destination; NULL when neither is
 * known. */
static char *
target_for (CsWindow   *self,
            CsRun      *run,
            const char *failed)
{
  const char *target;
  g_autofree char *dir = NULL;
  g_autofree char *name = NULL;

  if (self->retry_targets != NULL
      && (target = g_hash_table_lookup (self->retry_targets, failed)) != NULL)
    return g_strdup (target);

  dir = destination_dir_for (run, failed);
  if (dir == NULL)
    return NULL;
  name = g_path_get_basename (failed);
  return g_build_filename (dir, name, NULL);
}

static void
retry_failed_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);
  CsRun *run = cs_summary_page_get_run (self->summary_page);
  g_autoptr(GPtrArray) errors = NULL;
  g_autoptr(GHashTable) targets = NULL;
  g_autoptr(CsJob) job = NULL;
  gboolean exact = TRUE;

  if (self->job != NULL || run == NULL)
    return;

  errors = cs_run_dup_errors (run);
  if (errors == NULL || errors->len == 0)
    return;

  job = cs_job_new ();
  targets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  /* Each failed file goes back to exactly where it belongs, whatever folder
   * that is. A name the record keeps only as raw bytes, or a path outside
   * every source, cannot be placed; then the new job goes over the original
   * sources again, where "replace older" skips what is already there. */
  for (guint i = 0; i < errors->len && exact; i++)
    {
      const CsRunError *error = g_ptr_array_index (errors, i);
      char *target;

      if (error->path == NULL || error->path_raw != NULL)
        {
          exact = FALSE;
          break;
        }
      if (g_hash_table_contains (targets, error->path))
        continue;

      target = target_for (self, run, error->path);
      if (target == NULL)
        {
          exact = FALSE;
          break;
        }
      g_hash_table_insert (targets, g_strdup (error->path), target);
      cs_job_add_source_as (job, error->path, target);
    }

  if (exact)
    {
      cs_job_set_destination (job, cs_run_get_destination (run));
      _cs_window_configure_job (self, job);
    }
  else
    {
      const char * const *sources = cs_run_get_sources (run);

      g_clear_object (&job);
      g_hash_table_remove_all (targets);
      job = cs_job_new ();
      for (guint i = 0; sources != NULL && sources[i] != NULL; i++)
        {
          const char *target = self->retry_targets != NULL
                               ? g_hash_table_lookup (self->retry_targets, sources[i]) : NULL;

          /* A source a retry placed goes back to the same place. */
          if (target != NULL)
            {
              cs_job_add_source_as (job, sources[i], target);
              g_hash_table_insert (targets, g_strdup (sources[i]), g_strdup (target));
            }
          else
            cs_job_add_source (job, sources[i]);
        }
      cs_job_set_destination (job, cs_run_get_destination (run));
      _cs_window_configure_job (self, job);
      cs_job_set_overwrite (job, CS_OVERWRITE_NEWER);
    }

  if (!_cs_window_start (self, job))
    {
      _cs_window_show_toast (self, _("The failed files cannot be copied again"));
      return;
    }
  g_clear_pointer (&self->retry_targets, g_hash_table_unref);
  self->retry_targets = g_steal_pointer (&targets);
}

void
_cs_window_actions_update (CsWindow *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  const char *page = gtk_stack_get_visible_child_name (self->stack);
  gboolean running = self->job != NULL;
  gboolean setup = !running && g_strcmp0 (page, "setup") == 0;
  gboolean summary = !running && g_strcmp0 (page, "summary") == 0;
  gboolean paused = running && cs_job_get_state (self->job) == CS_JOB_STATE_PAUSED;
  CsRun *run = cs_summary_page_get_run (self->summary_page);

  gtk_widget_action_set_enabled (widget, "win.add-files", !running);
  gtk_widget_action_set_enabled (widget, "win.add-folder", !running);
  gtk_widget_action_set_enabled (widget, "win.clear-sources",
                                 setup && cs_source_list_get_n_files (self->source_list) > 0);
  gtk_widget_action_set_enabled (widget, "win.choose-destination", setup);
  gtk_widget_action_set_enabled (widget, "win.start",
                                 setup &&
                                 cs_source_list_get_n_files (self->source_list) > 0 &&
                                 cs_destination_row_get_file (self->destination_row) != NULL);
  gtk_widget_action_set_enabled (widget, "win.pause", running);
  gtk_widget_action_set_enabled (widget, "win.cancel", running);
  gtk_widget_action_set_enabled (widget, "win.new-copy", summary);
  gtk_widget_action_set_enabled (widget, "win.export", summary && run != NULL);
  gtk_widget_action_set_enabled (widget, "win.retry-failed",
                                 summary && run != NULL && cs_run_get_n_errors (run) > 0 &&
                                 !self->summary_from_history);

  gtk_widget_set_visible (GTK_WIDGET (self->start_button), setup);
  gtk_widget_set_visible (GTK_WIDGET (self->add_button), setup);
  gtk_widget_set_visible (GTK_WIDGET (self->pause_button), running);
  gtk_widget_set_visible (GTK_WIDGET (self->cancel_button), running);

  gtk_button_set_icon_name (self->pause_button,
                            paused ? "media-playback-start-symbolic" : "media-playback-pause-symbolic");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->pause_button), paused ? _("Resume") : _("Pause"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->pause_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, paused ? _("Resume") : _("Pause"),
                                  -1);

  _cs_window_pages_update_actions (self);
}

void
_cs_window_class_install_actions (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.add-files", NULL, add_files_action);
  gtk_widget_class_install_action (widget_class, "win.add-folder", NULL, add_folder_action);
  gtk_widget_class_install_action (widget_class, "win.clear-sources", NULL, clear_sources_action);
  gtk_widget_class_install_action (widget_class, "win.choose-destination", NULL,
                                   choose_destination_action);
  gtk_widget_class_install_action (widget_class, "win.start", NULL, start_action);
  gtk_widget_class_install_action (widget_class, "win.pause", NULL, pause_action);
  gtk_widget_class_install_action (widget_class, "win.cancel", NULL, cancel_action);
  gtk_widget_class_install_action (widget_class, "win.new-copy", NULL, new_copy_action);
  gtk_widget_class_install_action (widget_class, "win.retry-failed", NULL, retry_failed_action);
  gtk_widget_class_install_action (widget_class, "win.export", NULL, export_action);
}
