/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <glib/gi18n.h>

#include "cs-file-chooser.h"
#include "cs-format.h"
#include "cs-generate-dialog.h"
#include "cs-window-private.h"

/*
 * The window's actions. Buttons and menus only name them; which are enabled
 * follows from the run state in one place, _cs_window_actions_update().
 */

static void
sources_chosen_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  CsWindow *self = user_data;   /* alive unless the chooser was cancelled */
  g_autoptr(GListModel) files = _cs_choose_finish (result, NULL);
  g_autoptr(GPtrArray) array = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; files != NULL && i < g_list_model_get_n_items (files); i++)
    g_ptr_array_add (array, g_list_model_get_item (files, i));
  if (array->len > 0)
    cs_window_add_sources (self, (GFile **) array->pdata, array->len);
}

static void
add_files_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);

  _cs_choose_async (GTK_WINDOW (self), CS_CHOOSE_FILES, _("Add Files"), _("_Add"), NULL,
                    self->choosers, sources_chosen_cb, self);
}

static void
add_folder_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);

  _cs_choose_async (GTK_WINDOW (self), CS_CHOOSE_FOLDERS, _("Add Folders"), _("_Add"), NULL,
                    self->choosers, sources_chosen_cb, self);
}

static void
choose_destination_action (GtkWidget  *widget,
                           const char *action_name,
                           GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);

  _cs_choose_folder (widget, cs_setup_page_get_into_title (self->setup_page),
                     self->choosers,
                     (CsFolderChosenFunc) cs_window_set_destination);
}

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);

  /* JSON unless the chosen name asks for another format. */
  gtk_widget_activate_action (GTK_WIDGET (self->summary_page), "summary.export", "s", "json");
}

static void
open_destination_action (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);
  CsRun *run = cs_summary_page_get_run (self->summary_page);

  if (run != NULL && cs_run_get_destination (run) != NULL)
    _cs_window_open_folder (self, cs_run_get_destination (run));
}

static void
open_log_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);
  const char *log = cs_summary_page_get_log_path (self->summary_page);

  if (log != NULL)
    _cs_window_open_file (self, log);
}

static void
clear_sources_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);

  cs_setup_page_clear_sources (self->setup_page);
}

/*
 * A job of @files into @destination, set up as the setup page says; NULL,
 * the setup page saying why, when a file is neither a local or mounted
 * path nor on an SMB share. With @setup_names, @files are the setup page's,
 * each copied under the name its row gives it.
 */
CsJob *
_cs_window_build_job (CsWindow  *self,
                      GFile    **files,
                      guint      n_files,
                      GFile     *destination,
                      gboolean   setup_names,
                      GStrv     *out_sources,
                      char     **out_destination)
{
  g_autoptr(GStrvBuilder) sources = g_strv_builder_new ();
  g_autoptr(GPtrArray) locations = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *destination_location = NULL;
  g_autoptr(CsJob) job = cs_job_new ();

  for (guint i = 0; i < n_files; i++)
    {
      char *location = _cs_file_get_location (files[i]);

      /* The engine copies paths and smb:// locations; other remote ones
       * need to be mounted first. */
      if (location == NULL)
        {
          g_autofree char *uri = g_file_get_uri (files[i]);
          g_autofree char *text = g_strdup_printf (_("“%s” is not a local or mounted folder, nor one "
                                                     "on an SMB share."), uri);

          cs_setup_page_show_refusal (self->setup_page, text);
          return NULL;
        }
      g_ptr_array_add (locations, location);
      g_strv_builder_add (sources, location);
    }

  destination_location = _cs_file_get_location (destination);
  if (destination_location == NULL)
    {
      cs_setup_page_show_refusal (self->setup_page,
                                  _("The destination is not a local or mounted folder, nor one on "
                                    "an SMB share."));
      return NULL;
    }
  for (guint i = 0; i < n_files; i++)
    {
      const char *as = setup_names ? cs_setup_page_get_copy_as (self->setup_page, files[i]) : NULL;

      /* Renamed on its row so as not to land on another source's name. */
      if (as != NULL)
        {
          g_autofree char *target = g_build_filename (destination_location, as, NULL);

          cs_job_add_source_as (job, g_ptr_array_index (locations, i), target);
        }
      else
        cs_job_add_source (job, g_ptr_array_index (locations, i));
    }
  cs_job_set_destination (job, destination_location);
  _cs_window_configure_job (self, job);

  if (out_sources != NULL)
    *out_sources = g_strv_builder_end (sources);
  if (out_destination != NULL)
    *out_destination = g_steal_pointer (&destination_location);
  return g_steal_pointer (&job);
}

/* The setup page's copy has started or joined the queue: its sources are
 * the copy's now, and the window shows the running copy. */
void
_cs_window_setup_started (CsWindow *self,
                          CsJob    *job,
                          gboolean  queued)
{
  if (!queued)
    g_clear_pointer (&self->retry_targets, g_hash_table_unref);
  /* What the setup page gets next is the next copy's. */
  cs_setup_page_clear_sources (self->setup_page);
  /* Back to the running copy, whose page lists the queue. */
  if (cs_copy_queue_get_job (self->copy_queue) != job)
    _cs_window_show_home (self, "copying");
}

/* Starts the setup page's copy, or, while one runs, queues it; a copy to an
 * SMB share nobody mounted logs in first, asking where it must. */
static void
start_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);
  GListModel *model = cs_setup_page_get_sources (self->setup_page);
  GFile *destination = cs_setup_page_get_destination (self->setup_page);
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);
  g_auto(GStrv) sources = NULL;
  g_autofree char *destination_location = NULL;
  g_autoptr(CsJob) job = NULL;

  if (destination == NULL || self->login != NULL)
    return;

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    g_ptr_array_add (files, g_list_model_get_item (model, i));
  job = _cs_window_build_job (self, (GFile **) files->pdata, files->len, destination, TRUE,
                              &sources, &destination_location);
  if (job == NULL)
    return;

  _cs_window_submit (self, job, (const char * const *) sources, destination_location, TRUE);
}

static void
queue_move (CsWindow *self,
            guint     from,
            guint     to)
{
  cs_copy_queue_move (self->copy_queue, from, to);
}

static void
queue_up_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  guint position = g_variant_get_uint32 (parameter);

  if (position > 0)
    queue_move (CS_WINDOW (widget), position, position - 1);
}

static void
queue_down_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  guint position = g_variant_get_uint32 (parameter);

  queue_move (CS_WINDOW (widget), position, position + 1);
}

static void
queue_hold_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);

  /* Let go while its device is free: its turn is now. */
  cs_copy_queue_toggle_held (self->copy_queue, g_variant_get_uint32 (parameter));
}

static void
queue_remove_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);

  /* One running side by side is cancelled on its own page, once shown. */
  cs_copy_queue_remove (self->copy_queue, g_variant_get_uint32 (parameter));
}

static void
pause_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);

  if (cs_copy_queue_get_job (self->copy_queue) == NULL)
    return;

  if (cs_job_get_state (cs_copy_queue_get_job (self->copy_queue)) == CS_JOB_STATE_PAUSED)
    cs_job_resume (cs_copy_queue_get_job (self->copy_queue));
  else
    cs_job_pause (cs_copy_queue_get_job (self->copy_queue));

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

  /* The destination and the options carry over; the sources went with the
   * copy that started, and what was handed over since waits here. */
  cs_setup_page_show_refusal (self->setup_page, NULL);

  /* During a copy, the next one is set up on top of it: Back returns to it. */
  if (cs_copy_queue_get_job (self->copy_queue) != NULL)
    _cs_window_navigate (self, "setup");
  else
    _cs_window_show_home (self, "setup");
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

  if (cs_copy_queue_get_job (self->copy_queue) != NULL || run == NULL)
    return;

  errors = cs_run_dup_errors (run);
  if (errors == NULL || cs_run_get_n_errors (run) == 0)
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

      /* A note is no file to retry: what the destination did not keep, or
       * what was left out on purpose, which a retry would leave out again. */
      if (error->note)
        continue;
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

  if (!_cs_window_start (self, job, cs_run_get_destination (run)))
    {
      _cs_window_show_toast (self, _("The failed files cannot be copied again"));
      return;
    }
  g_clear_pointer (&self->retry_targets, g_hash_table_unref);
  self->retry_targets = g_steal_pointer (&targets);
}

static void
go_back_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  _cs_window_go_back (CS_WINDOW (widget));
}

static void
show_history_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);

  if (cs_copy_queue_get_job (self->copy_queue) != NULL)
    return;

  cs_history_page_reload (self->history_page);
  _cs_window_show_section (self, "history");
}

static void
show_sweep_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);

  if (cs_copy_queue_get_job (self->copy_queue) == NULL)
    _cs_window_show_section (self, "sweep");
}

static void
show_demo_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);

  if (cs_copy_queue_get_job (self->copy_queue) == NULL)
    _cs_window_show_section (self, "demo");
}

static void
add_generated_cb (CsWindow *self,
                  AdwToast *toast)
{
  const char *dir = g_object_get_data (G_OBJECT (toast), "cs-path");
  g_autoptr(GFile) file = g_file_new_for_path (dir);
  GFile *files[] = { file };

  cs_window_add_sources (self, files, 1);
}

static void
generated_cb (CsWindow         *self,
              const char       *dir,
              CsGenerateDialog *dialog)
{
  g_autoptr(GFile) file = g_file_new_for_path (dir);
  g_autofree char *name = _cs_display_name (file);
  g_autofree char *title = g_strdup_printf (_("Test data written to “%s”"), name);
  AdwToast *toast = adw_toast_new (title);

  if (cs_copy_queue_get_job (self->copy_queue) == NULL)
    {
      adw_toast_set_button_label (toast, _("_Add as Source"));
      g_object_set_data_full (G_OBJECT (toast), "cs-path", g_strdup (dir), g_free);
      g_signal_connect_object (toast, "button-clicked", G_CALLBACK (add_generated_cb), self,
                               G_CONNECT_SWAPPED);
    }
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

static void
generate_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);
  CsGenerateDialog *dialog = cs_generate_dialog_new (GTK_WINDOW (self));

  g_signal_connect_object (dialog, "generated", G_CALLBACK (generated_cb), self, G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (dialog));
}

void
_cs_window_actions_update (CsWindow *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  const char *page = gtk_stack_get_visible_child_name (self->stack);
  gboolean running = cs_copy_queue_get_job (self->copy_queue) != NULL;
  gboolean on_setup = g_strcmp0 (page, "setup") == 0;
  gboolean summary = !running && g_strcmp0 (page, "summary") == 0;
  gboolean paused = running && cs_job_get_state (cs_copy_queue_get_job (self->copy_queue)) == CS_JOB_STATE_PAUSED;
  CsRun *run = cs_summary_page_get_run (self->summary_page);
  guint n_sources = g_list_model_get_n_items (cs_setup_page_get_sources (self->setup_page));

  /* The next copy can be set up at any time, even while one runs. */
  gtk_widget_action_set_enabled (widget, "win.add-files", TRUE);
  gtk_widget_action_set_enabled (widget, "win.add-folder", TRUE);
  gtk_widget_action_set_enabled (widget, "win.clear-sources", on_setup && n_sources > 0);
  gtk_widget_action_set_enabled (widget, "win.choose-destination", on_setup);
  gtk_widget_action_set_enabled (widget, "win.new-copy", TRUE);
  /* While a copy runs, Start queues the next one. */
  gtk_widget_action_set_enabled (widget, "win.start",
                                 on_setup && n_sources > 0 && self->login == NULL &&
                                 cs_setup_page_get_destination (self->setup_page) != NULL);
  gtk_widget_action_set_enabled (widget, "win.pause", running);
  gtk_widget_action_set_enabled (widget, "win.cancel", running);
  gtk_widget_action_set_enabled (widget, "win.export", summary && run != NULL);
  gtk_widget_action_set_enabled (widget, "win.open-destination",
                                 summary && run != NULL && cs_run_get_destination (run) != NULL);
  gtk_widget_action_set_enabled (widget, "win.open-log",
                                 summary && cs_summary_page_get_log_path (self->summary_page) != NULL);
  _cs_window_check_update (self, summary);
  gtk_widget_action_set_enabled (widget, "win.retry-failed",
                                 summary && run != NULL && cs_run_get_n_errors (run) > 0 &&
                                 !self->summary_from_history);

  gtk_widget_set_visible (GTK_WIDGET (self->start_button), on_setup);
  _cs_window_update_start_button (self);
  gtk_widget_set_visible (GTK_WIDGET (self->add_button), on_setup);
  gtk_widget_set_visible (GTK_WIDGET (self->pause_button), running);
  gtk_widget_set_visible (GTK_WIDGET (self->cancel_button), running);

  gtk_button_set_icon_name (self->pause_button,
                            paused ? "media-playback-start-symbolic" : "media-playback-pause-symbolic");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->pause_button), paused ? _("Resume") : _("Pause"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->pause_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, paused ? _("Resume") : _("Pause"),
                                  -1);

  gtk_widget_action_set_enabled (widget, "win.go-back", self->back_stack->len > 0);
  gtk_widget_action_set_enabled (widget, "win.show-history", !running);
  gtk_widget_action_set_enabled (widget, "win.show-sweep", !running);
  gtk_widget_action_set_enabled (widget, "win.show-demo", !running);
  gtk_widget_set_visible (GTK_WIDGET (self->back_button), self->back_stack->len > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->history_button), !running);
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
  gtk_widget_class_install_action (widget_class, "win.queue-up", "u", queue_up_action);
  gtk_widget_class_install_action (widget_class, "win.queue-down", "u", queue_down_action);
  gtk_widget_class_install_action (widget_class, "win.queue-hold", "u", queue_hold_action);
  gtk_widget_class_install_action (widget_class, "win.queue-remove", "u", queue_remove_action);
  gtk_widget_class_install_action (widget_class, "win.pause", NULL, pause_action);
  gtk_widget_class_install_action (widget_class, "win.cancel", NULL, cancel_action);
  gtk_widget_class_install_action (widget_class, "win.new-copy", NULL, new_copy_action);
  gtk_widget_class_install_action (widget_class, "win.retry-failed", NULL, retry_failed_action);
  gtk_widget_class_install_action (widget_class, "win.export", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "win.open-destination", NULL,
                                   open_destination_action);
  gtk_widget_class_install_action (widget_class, "win.open-log", NULL, open_log_action);
  gtk_widget_class_install_action (widget_class, "win.go-back", NULL, go_back_action);
  gtk_widget_class_install_action (widget_class, "win.show-history", NULL, show_history_action);
  gtk_widget_class_install_action (widget_class, "win.show-sweep", NULL, show_sweep_action);
  gtk_widget_class_install_action (widget_class, "win.show-demo", NULL, show_demo_action);
  gtk_widget_class_install_action (widget_class, "win.generate", NULL, generate_action);
  _cs_window_check_install_actions (widget_class);
}
