/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n.h>

#include "cs-format.h"
#include "cs-generate-dialog.h"
#include "cs-history.h"
#include "cs-plot.h"
#include "cs-report.h"
#include "cs-sweep-chart.h"
#include "cs-window-private.h"

/*
 * The window's pages beyond one copy: History, the comparison, the thread
 * sweep and the demonstration, with going back between them; saving finished
 * runs and sweeps in the history; exports in every format; the Auto switch's
 * remembered count. The pages ask through signals and actions; the window
 * answers with its file choosers, dialogs and toasts.
 */

#define SWEEP_EXPORT_WIDTH  1200
#define SWEEP_EXPORT_HEIGHT 420

typedef enum {
  EXPORT_RUN,
  EXPORT_COMPARISON,
  EXPORT_SWEEP,
} ExportKind;

typedef enum {
  FOLDER_SWEEP_SOURCE,
  FOLDER_SWEEP_DESTINATION,
  FOLDER_DEMO_DESTINATION,
} FolderTarget;

static const struct {
  const char *page;
  const char *subtitle;
} page_subtitles[] = {
  { "history", N_("History") },
  { "compare", N_("Comparison") },
  { "sweep", N_("Thread Sweep") },
  { "demo", N_("Demonstration") },
};

/* Navigation */

static void
cs_window_navigate (CsWindow   *self,
                    const char *page)
{
  const char *current = gtk_stack_get_visible_child_name (self->stack);

  if (g_strcmp0 (current, page) == 0)
    return;

  g_ptr_array_add (self->back_stack, g_strdup (current));
  gtk_stack_set_visible_child_name (self->stack, page);
}

static void
visible_page_changed_cb (CsWindow *self)
{
  const char *page = gtk_stack_get_visible_child_name (self->stack);
  const char *subtitle = NULL;

  /* A copy, or the setup of the next one, starts afresh. */
  if (g_strcmp0 (page, "setup") == 0 || g_strcmp0 (page, "copying") == 0)
    g_ptr_array_set_size (self->back_stack, 0);
  if (g_strcmp0 (page, "copying") == 0)
    self->summary_from_history = FALSE;

  for (guint i = 0; i < G_N_ELEMENTS (page_subtitles); i++)
    if (g_strcmp0 (page, page_subtitles[i].page) == 0)
      subtitle = _(page_subtitles[i].subtitle);

  if (subtitle != NULL)
    adw_window_title_set_subtitle (self->window_title, subtitle);
  else if (g_strcmp0 (page, "copying") != 0)
    adw_window_title_set_subtitle (self->window_title, NULL);

  _cs_window_pages_update_actions (self);
}

static void
go_back_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);
  g_autofree char *page = NULL;

  if (self->job != NULL || self->back_stack->len == 0)
    return;

  page = g_strdup (g_ptr_array_index (self->back_stack, self->back_stack->len - 1));
  g_ptr_array_remove_index (self->back_stack, self->back_stack->len - 1);
  gtk_stack_set_visible_child_name (self->stack, page);
}

static void
show_history_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);

  if (self->job != NULL)
    return;

  cs_history_page_reload (self->history_page);
  cs_window_navigate (self, "history");
}

static void
show_sweep_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);

  if (self->job != NULL)
    return;

  cs_window_navigate (self, "sweep");
}

static void
show_demo_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);

  if (self->job != NULL)
    return;

  cs_window_navigate (self, "demo");
}

/* History */

/* main thread */
void
_cs_window_save_run (CsWindow *self,
                     CsRun    *run)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;

  g_assert (CS_IS_WINDOW (self));

  path = cs_history_save (run, &error);
  if (path == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("Could not keep the run in the history: %s"),
                                                  error->message);

      _cs_window_show_toast (self, message);
    }
}

static void
history_open_run_cb (CsWindow      *self,
                     CsRun         *run,
                     CsHistoryPage *page)
{
  cs_summary_page_set_run (self->summary_page, run);
  self->summary_from_history = TRUE;
  cs_window_navigate (self, "summary");
}

static void
history_open_sweep_cb (CsWindow      *self,
                       CsSweep       *sweep,
                       CsHistoryPage *page)
{
  if (cs_sweep_page_is_running (self->sweep_page))
    {
      _cs_window_show_toast (self, _("A sweep is running; open this one when it is done"));
      return;
    }

  cs_sweep_page_show_sweep (self->sweep_page, sweep);
  cs_window_navigate (self, "sweep");
}

static void
cs_window_compare (CsWindow           *self,
                   GPtrArray          *runs,
                   const char * const *labels)
{
  cs_compare_page_set_runs (self->compare_page, (CsRun **) runs->pdata, runs->len, labels);
  cs_window_navigate (self, "compare");
}

static void
history_compare_cb (CsWindow      *self,
                    GPtrArray     *runs,
                    CsHistoryPage *page)
{
  cs_window_compare (self, runs, NULL);
}

static void
demo_compare_cb (CsWindow   *self,
                 GPtrArray  *runs,
                 CsDemoPage *page)
{
  static const char * const labels[] = { "T1", "T2", NULL };

  cs_window_compare (self, runs, runs->len == 2 ? labels : NULL);
}

static void
undo_delete_run_cb (CsWindow *self,
                    AdwToast *toast)
{
  CsRun *run = g_object_get_data (G_OBJECT (toast), "cs-run");
  g_autoptr(GError) error = NULL;
  g_autofree char *path = cs_history_save (run, &error);

  if (path == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("Could not restore the run: %s"), error->message);

      _cs_window_show_toast (self, message);
    }
  cs_history_page_reload (self->history_page);
}

static void
history_run_deleted_cb (CsWindow      *self,
                        CsRun         *run,
                        CsHistoryPage *page)
{
  g_autofree char *label = cs_run_dup_label (run);
  g_autofree char *title = NULL;
  AdwToast *toast;

  if (label != NULL && *label != '\0')
    title = g_strdup_printf (_("“%s” deleted"), label);
  else
    title = g_strdup (_("Run deleted"));

  toast = adw_toast_new (title);
  adw_toast_set_button_label (toast, _("_Undo"));
  adw_toast_set_priority (toast, ADW_TOAST_PRIORITY_HIGH);
  g_object_set_data_full (G_OBJECT (toast), "cs-run", cs_run_ref (run), (GDestroyNotify) cs_run_unref);
  g_signal_connect_object (toast, "button-clicked", G_CALLBACK (undo_delete_run_cb), self,
                           G_CONNECT_SWAPPED);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

static void
undo_delete_sweep_cb (CsWindow *self,
                      AdwToast *toast)
{
  CsSweep *sweep = g_object_get_data (G_OBJECT (toast), "cs-sweep");
  const char *path = g_object_get_data (G_OBJECT (toast), "cs-path");
  g_autoptr(GError) error = NULL;

  if (!cs_sweep_save (sweep, path, &error))
    {
      g_autofree char *message = g_strdup_printf (_("Could not restore the sweep: %s"), error->message);

      _cs_window_show_toast (self, message);
    }
  cs_history_page_reload (self->history_page);
}

static void
history_sweep_deleted_cb (CsWindow      *self,
                          CsSweep       *sweep,
                          const char    *path,
                          CsHistoryPage *page)
{
  AdwToast *toast = adw_toast_new (_("Sweep deleted"));

  adw_toast_set_button_label (toast, _("_Undo"));
  adw_toast_set_priority (toast, ADW_TOAST_PRIORITY_HIGH);
  g_object_set_data_full (G_OBJECT (toast), "cs-sweep", cs_sweep_ref (sweep),
                          (GDestroyNotify) cs_sweep_unref);
  g_object_set_data_full (G_OBJECT (toast), "cs-path", g_strdup (path), g_free);
  g_signal_connect_object (toast, "button-clicked", G_CALLBACK (undo_delete_sweep_cb), self,
                           G_CONNECT_SWAPPED);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

static void
history_failed_cb (CsWindow      *self,
                   const char    *message,
                   CsHistoryPage *page)
{
  _cs_window_show_toast (self, message);
}

static void
sweep_finished_cb (CsWindow    *self,
                   CsSweep     *sweep,
                   CsSweepPage *page)
{
  g_autofree char *dir = cs_history_get_dir ();
  g_autoptr(GDateTime) started = g_date_time_new_from_unix_utc (cs_sweep_get_started (sweep) / G_USEC_PER_SEC);
  g_autofree char *stamp = NULL;
  g_autofree char *name = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;

  if (started == NULL)
    started = g_date_time_new_now_utc ();
  stamp = g_date_time_format (started, "%Y%m%dT%H%M%SZ");
  name = g_strdup_printf (CS_HISTORY_SWEEP_PREFIX "%s.json", stamp);
  path = g_build_filename (dir, name, NULL);

  if (g_mkdir_with_parents (dir, 0755) != 0 || !cs_sweep_save (sweep, path, &error))
    {
      g_autofree char *message = g_strdup_printf (_("Could not keep the sweep in the history: %s"),
                                                  error != NULL ? error->message : g_strerror (errno));

      _cs_window_show_toast (self, message);
      return;
    }

  _cs_window_show_toast (self, _("Sweep kept in the history"));
}

/* File choosers */

static void
cs_window_write_export (CsWindow   *self,
                        ExportKind  kind,
                        const char *extension,
                        GFile      *file);

static void
cs_window_folder_chosen (CsWindow     *self,
                         FolderTarget  target,
                         GFile        *folder)
{
  switch (target)
    {
    case FOLDER_SWEEP_SOURCE:
      cs_sweep_page_set_source (self->sweep_page, folder);
      break;

    case FOLDER_SWEEP_DESTINATION:
      cs_sweep_page_set_destination (self->sweep_page, folder);
      break;

    case FOLDER_DEMO_DESTINATION:
      cs_demo_page_set_destination (self->demo_page, folder);
      break;

    default:
      g_assert_not_reached ();
    }
}

static const char *
folder_title (FolderTarget target)
{
  switch (target)
    {
    case FOLDER_SWEEP_SOURCE:
      return _("Sweep Source");
    case FOLDER_SWEEP_DESTINATION:
      return _("Sweep Destination");
    case FOLDER_DEMO_DESTINATION:
      return _("Copy the Demonstration Into");
    default:
      g_assert_not_reached ();
    }
}

static char *
export_name (CsWindow   *self,
             ExportKind  kind,
             const char *extension)
{
  g_autoptr(GDateTime) started = NULL;
  g_autofree char *stamp = NULL;
  gint64 usec = 0;

  if (kind == EXPORT_RUN && cs_summary_page_get_run (self->summary_page) != NULL)
    usec = cs_run_get_started (cs_summary_page_get_run (self->summary_page));
  else if (kind == EXPORT_SWEEP && cs_sweep_page_get_sweep (self->sweep_page) != NULL)
    usec = cs_sweep_get_started (cs_sweep_page_get_sweep (self->sweep_page));

  if (usec > 0)
    started = g_date_time_new_from_unix_local (usec / G_USEC_PER_SEC);
  if (started == NULL)
    started = g_date_time_new_now_local ();
  stamp = g_date_time_format (started, "%Y-%m-%d-%H%M%S");

  switch (kind)
    {
    case EXPORT_RUN:
      return g_strdup_printf ("copyscope-%s.%s", stamp, extension);
    case EXPORT_COMPARISON:
      return g_strdup_printf ("copyscope-comparison-%s.%s", stamp, extension);
    case EXPORT_SWEEP:
      return g_strdup_printf ("copyscope-sweep-%s.%s", stamp, extension);
    default:
      g_assert_not_reached ();
    }
}

#if GTK_CHECK_VERSION (4, 10, 0)

typedef struct
{
  CsWindow     *self;
  gboolean      save;
  ExportKind    kind;
  FolderTarget  target;
  char         *extension;
} ChooseData;

static void
choose_data_free (ChooseData *data)
{
  g_clear_object (&data->self);
  g_free (data->extension);
  g_free (data);
}

static void
file_dialog_done_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  ChooseData *data = user_data;
  g_autoptr(GFile) file = NULL;

  if (data->save)
    file = gtk_file_dialog_save_finish (GTK_FILE_DIALOG (object), result, NULL);
  else
    file = gtk_file_dialog_select_folder_finish (GTK_FILE_DIALOG (object), result, NULL);

  if (file != NULL && data->save)
    cs_window_write_export (data->self, data->kind, data->extension, file);
  else if (file != NULL)
    cs_window_folder_chosen (data->self, data->target, file);

  choose_data_free (data);
}

static void
cs_window_choose_folder (CsWindow     *self,
                         FolderTarget  target)
{
  g_autoptr(GtkFileDialog) dialog = gtk_file_dialog_new ();
  ChooseData *data = g_new0 (ChooseData, 1);

  data->self = g_object_ref (self);
  data->target = target;
  gtk_file_dialog_set_title (dialog, folder_title (target));
  gtk_file_dialog_set_accept_label (dialog, _("_Select"));
  gtk_file_dialog_set_modal (dialog, TRUE);
  gtk_file_dialog_select_folder (dialog, GTK_WINDOW (self), NULL, file_dialog_done_cb, data);
}

static void
cs_window_choose_export (CsWindow   *self,
                         ExportKind  kind,
                         const char *extension)
{
  g_autoptr(GtkFileDialog) dialog = gtk_file_dialog_new ();
  g_autofree char *name = export_name (self, kind, extension);
  ChooseData *data = g_new0 (ChooseData, 1);

  data->self = g_object_ref (self);
  data->save = TRUE;
  data->kind = kind;
  data->extension = g_strdup (extension);
  gtk_file_dialog_set_title (dialog, _("Export"));
  gtk_file_dialog_set_initial_name (dialog, name);
  gtk_file_dialog_set_modal (dialog, TRUE);
  gtk_file_dialog_save (dialog, GTK_WINDOW (self), NULL, file_dialog_done_cb, data);
}

#else /* GTK < 4.10 */

static void
native_response_cb (CsWindow        *self,
                    int              response,
                    GtkNativeDialog *native)
{
  g_autoptr(GtkNativeDialog) chooser = g_steal_pointer (&self->chooser);
  GObject *object = G_OBJECT (native);

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
      const char *extension = g_object_get_data (object, "cs-extension");

      if (file != NULL && extension != NULL)
        cs_window_write_export (self, GPOINTER_TO_INT (g_object_get_data (object, "cs-kind")),
                                extension, file);
      else if (file != NULL)
        cs_window_folder_chosen (self, GPOINTER_TO_INT (g_object_get_data (object, "cs-target")),
                                 file);
    }

  gtk_native_dialog_destroy (native);
}

static void
cs_window_show_chooser (CsWindow             *self,
                        GtkFileChooserNative *native)
{
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  g_signal_connect_object (native, "response", G_CALLBACK (native_response_cb), self,
                           G_CONNECT_SWAPPED);
  self->chooser = GTK_NATIVE_DIALOG (native);
  gtk_native_dialog_show (self->chooser);
}

static void
cs_window_choose_folder (CsWindow     *self,
                         FolderTarget  target)
{
  GtkFileChooserNative *native;

  if (self->chooser != NULL)
    return;

  native = gtk_file_chooser_native_new (folder_title (target), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, _("_Select"), NULL);
  g_object_set_data (G_OBJECT (native), "cs-target", GINT_TO_POINTER (target));
  cs_window_show_chooser (self, native);
}

static void
cs_window_choose_export (CsWindow   *self,
                         ExportKind  kind,
                         const char *extension)
{
  g_autofree char *name = NULL;
  GtkFileChooserNative *native;

  if (self->chooser != NULL)
    return;

  native = gtk_file_chooser_native_new (_("Export"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), NULL);
  name = export_name (self, kind, extension);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (native), name);
  g_object_set_data (G_OBJECT (native), "cs-kind", GINT_TO_POINTER (kind));
  g_object_set_data_full (G_OBJECT (native), "cs-extension", g_strdup (extension), g_free);
  cs_window_show_chooser (self, native);
}

#endif

/* Exports */

static void
draw_sweep_cb (cairo_t  *cr,
               double    width,
               double    height,
               gpointer  user_data)
{
  CsWindow *self = user_data;
  CsPlotPalette palette;

  switch (g_settings_get_enum (self->settings, "export-palette"))
    {
    case 1:
      cs_plot_palette_init_dark (&palette);
      break;
    case 2:
      cs_plot_palette_init_high_contrast (&palette);
      break;
    default:
      cs_plot_palette_init_light (&palette);
      break;
    }

  cs_sweep_chart_draw_all (cr, width, height, &palette, cs_sweep_page_get_sweep (self->sweep_page));
}

/* The format the chosen name asks for, or the one chosen before. */
static char *
chosen_extension (GFile      *file,
                  const char *fallback)
{
  g_autofree char *base = g_file_get_basename (file);
  const char *dot = base != NULL ? strrchr (base, '.') : NULL;

  if (dot != NULL && dot[1] != '\0')
    return g_ascii_strdown (dot + 1, -1);

  return g_strdup (fallback);
}

static GBytes *
cs_window_render_export (CsWindow    *self,
                         ExportKind   kind,
                         const char  *extension,
                         GError     **error)
{
  switch (kind)
    {
    case EXPORT_RUN:
    case EXPORT_COMPARISON:
      {
        CsReportFormat format;
        CsRun *single[1] = { cs_summary_page_get_run (self->summary_page) };
        CsRun **runs = single;
        const char * const *labels = NULL;
        guint n_runs = 1;

        if (!cs_report_format_from_string (extension, &format))
          {
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                         _("“%s” is not a format Copyscope writes; use md, html, csv, json, png, svg or pdf"),
                         extension);
            return NULL;
          }

        if (kind == EXPORT_COMPARISON)
          {
            runs = cs_compare_page_get_runs (self->compare_page, &n_runs);
            labels = cs_compare_page_get_labels (self->compare_page);
          }
        if (n_runs == 0 || runs[0] == NULL)
          {
            g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("There is nothing to export"));
            return NULL;
          }

        return cs_report_render (runs, n_runs, labels, format, error);
      }

    case EXPORT_SWEEP:
      {
        CsPlotFormat format;

        if (!cs_plot_format_from_string (extension, &format))
          {
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                         _("“%s” is not a chart format; use png, svg or pdf"), extension);
            return NULL;
          }
        if (cs_sweep_page_get_sweep (self->sweep_page) == NULL)
          {
            g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("There is nothing to export"));
            return NULL;
          }

        return cs_plot_render (format, SWEEP_EXPORT_WIDTH, SWEEP_EXPORT_HEIGHT,
                               draw_sweep_cb, self, error);
      }

    default:
      g_assert_not_reached ();
    }
}

static void
cs_window_write_export (CsWindow   *self,
                        ExportKind  kind,
                        const char *extension,
                        GFile      *file)
{
  g_autofree char *chosen = chosen_extension (file, extension);
  g_autofree char *name = _cs_display_name (file);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *message = NULL;

  bytes = cs_window_render_export (self, kind, chosen, &error);
  if (bytes == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT) &&
      g_strcmp0 (chosen, extension) != 0)
    {
      /* A name with a dot of its own, like "run 1.5": the format chosen before. */
      g_clear_error (&error);
      bytes = cs_window_render_export (self, kind, extension, &error);
    }

  if (bytes != NULL)
    g_file_replace_contents (file, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                             NULL, FALSE, G_FILE_CREATE_REPLACE_DESTINATION, NULL, NULL, &error);

  if (error != NULL)
    message = g_strdup_printf (_("Could not export: %s"), error->message);
  else
    message = g_strdup_printf (_("Exported “%s”"), name);

  _cs_window_show_toast (self, message);
}

/* Exports what the summary shows; @extension suggests the format. */
void
_cs_window_export_run (CsWindow   *self,
                       const char *extension)
{
  g_assert (CS_IS_WINDOW (self));

  if (cs_summary_page_get_run (self->summary_page) == NULL)
    return;

  cs_window_choose_export (self, EXPORT_RUN, extension);
}

static void
export_as_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  _cs_window_export_run (CS_WINDOW (widget), g_variant_get_string (parameter, NULL));
}

static void
export_comparison_action (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);
  guint n_runs = 0;

  cs_compare_page_get_runs (self->compare_page, &n_runs);
  if (n_runs >= 2)
    cs_window_choose_export (self, EXPORT_COMPARISON, g_variant_get_string (parameter, NULL));
}

static void
export_sweep_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);

  if (cs_sweep_page_get_sweep (self->sweep_page) != NULL)
    cs_window_choose_export (self, EXPORT_SWEEP, g_variant_get_string (parameter, NULL));
}

static void
choose_folder_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  const char *target = g_variant_get_string (parameter, NULL);

  if (g_strcmp0 (target, "sweep-source") == 0)
    cs_window_choose_folder (CS_WINDOW (widget), FOLDER_SWEEP_SOURCE);
  else if (g_strcmp0 (target, "sweep-destination") == 0)
    cs_window_choose_folder (CS_WINDOW (widget), FOLDER_SWEEP_DESTINATION);
  else if (g_strcmp0 (target, "demo-destination") == 0)
    cs_window_choose_folder (CS_WINDOW (widget), FOLDER_DEMO_DESTINATION);
}

/* Generated data */

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
  g_autofree char *title = NULL;
  AdwToast *toast;

  /* Asked for from the sweep page: it becomes the sweep's source. */
  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), "sweep") == 0)
    {
      cs_sweep_page_set_source (self->sweep_page, file);
      return;
    }

  title = g_strdup_printf (_("Test data written to “%s”"), name);
  toast = adw_toast_new (title);
  if (self->job == NULL)
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

/* Auto threads */

static void
cs_window_update_remembered (CsWindow *self)
{
  GFile *destination = cs_destination_row_get_file (self->destination_row);
  g_autofree char *path = destination != NULL ? g_file_get_path (destination) : NULL;
  g_autofree char *filesystem = NULL;
  g_autofree char *title = NULL;
  g_autofree char *label = NULL;
  guint threads = 0;

  if (path != NULL)
    threads = cs_job_get_remembered_threads (path, &filesystem);

  self->remembered_threads = threads;
  gtk_widget_set_visible (GTK_WIDGET (self->remembered_row), threads > 0);
  if (threads == 0)
    return;

  /* Two whole sentences rather than one with a pasted-in "kind of": word order and
   * agreement around the file system name differ between languages. */
  if (filesystem != NULL)
    {
      /* Translators: like "Last time 8 threads worked best for this nfs4 destination" */
      title = g_strdup_printf (ngettext ("Last time %u thread worked best for this %s destination",
                                         "Last time %u threads worked best for this %s destination",
                                         threads),
                               threads, filesystem);
    }
  else
    {
      title = g_strdup_printf (ngettext ("Last time %u thread worked best for this kind of "
                                         "destination",
                                         "Last time %u threads worked best for this kind of "
                                         "destination",
                                         threads),
                               threads);
    }

  /* Translators: the button that sets the remembered thread count, like "Use 8" */
  label = g_strdup_printf (_("Use %u"), threads);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->remembered_row), title);
  gtk_button_set_label (self->remembered_button, label);
}

static void
use_remembered_threads_action (GtkWidget  *widget,
                               const char *action_name,
                               GVariant   *parameter)
{
  CsWindow *self = CS_WINDOW (widget);

  if (self->remembered_threads > 0)
    cs_thread_slider_set_threads (self->setup_thread_slider, self->remembered_threads);
}

static void
auto_changed_cb (CsWindow       *self,
                 GParamSpec     *pspec,
                 CsThreadSlider *slider)
{
  if (self->job != NULL)
    cs_job_set_auto_threads (self->job, cs_thread_slider_get_auto (slider));
}

void
_cs_window_pages_update_actions (CsWindow *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  gboolean running = self->job != NULL;
  guint n_compared = 0;

  cs_compare_page_get_runs (self->compare_page, &n_compared);

  gtk_widget_action_set_enabled (widget, "win.go-back", !running && self->back_stack->len > 0);
  gtk_widget_action_set_enabled (widget, "win.show-history", !running);
  gtk_widget_action_set_enabled (widget, "win.show-sweep", !running);
  gtk_widget_action_set_enabled (widget, "win.show-demo", !running);
  gtk_widget_action_set_enabled (widget, "win.export-comparison", n_compared >= 2);
  gtk_widget_action_set_enabled (widget, "win.export-as",
                                 cs_summary_page_get_run (self->summary_page) != NULL);

  gtk_widget_set_visible (GTK_WIDGET (self->back_button), !running && self->back_stack->len > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->history_button), !running);
}

void
_cs_window_class_install_page_actions (GtkWidgetClass *widget_class)
{
  g_type_ensure (CS_TYPE_COMPARE_PAGE);
  g_type_ensure (CS_TYPE_DEMO_PAGE);
  g_type_ensure (CS_TYPE_HISTORY_PAGE);
  g_type_ensure (CS_TYPE_LIMIT_HINT);
  g_type_ensure (CS_TYPE_SWEEP_PAGE);

  gtk_widget_class_bind_template_child (widget_class, CsWindow, back_button);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, history_button);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, history_page);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, compare_page);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, sweep_page);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, demo_page);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, limit_hint);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, remembered_row);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, remembered_button);

  gtk_widget_class_install_action (widget_class, "win.go-back", NULL, go_back_action);
  gtk_widget_class_install_action (widget_class, "win.show-history", NULL, show_history_action);
  gtk_widget_class_install_action (widget_class, "win.show-sweep", NULL, show_sweep_action);
  gtk_widget_class_install_action (widget_class, "win.show-demo", NULL, show_demo_action);
  gtk_widget_class_install_action (widget_class, "win.generate", NULL, generate_action);
  gtk_widget_class_install_action (widget_class, "win.choose-folder", "s", choose_folder_action);
  gtk_widget_class_install_action (widget_class, "win.export-as", "s", export_as_action);
  gtk_widget_class_install_action (widget_class, "win.export-comparison", "s",
                                   export_comparison_action);
  gtk_widget_class_install_action (widget_class, "win.export-sweep", "s", export_sweep_action);
  gtk_widget_class_install_action (widget_class, "win.use-remembered-threads", NULL,
                                   use_remembered_threads_action);
}

void
_cs_window_pages_init (CsWindow *self)
{
  self->back_stack = g_ptr_array_new_with_free_func (g_free);

  g_signal_connect_object (self->stack, "notify::visible-child",
                           G_CALLBACK (visible_page_changed_cb), self, G_CONNECT_SWAPPED);

  g_signal_connect_object (self->history_page, "open-run", G_CALLBACK (history_open_run_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->history_page, "open-sweep", G_CALLBACK (history_open_sweep_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->history_page, "compare", G_CALLBACK (history_compare_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->history_page, "run-deleted", G_CALLBACK (history_run_deleted_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->history_page, "sweep-deleted", G_CALLBACK (history_sweep_deleted_cb),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->history_page, "failed", G_CALLBACK (history_failed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->sweep_page, "finished", G_CALLBACK (sweep_finished_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->demo_page, "compare", G_CALLBACK (demo_compare_cb), self,
                           G_CONNECT_SWAPPED);

  /* One Auto switch, like one count: set up before the copy, changed during it,
   * and remembered for the next start like the count. */
  g_settings_bind (self->settings, "auto-threads", self->setup_thread_slider, "auto",
                   G_SETTINGS_BIND_DEFAULT);
  g_object_bind_property (self->setup_thread_slider, "auto",
                          self->thread_slider, "auto",
                          G_BINDING_SYNC_CREATE | G_BINDING_BIDIRECTIONAL);
  g_signal_connect_object (self->thread_slider, "notify::auto", G_CALLBACK (auto_changed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->destination_row, "notify::file",
                           G_CALLBACK (cs_window_update_remembered), self, G_CONNECT_SWAPPED);

  cs_window_update_remembered (self);
}

void
_cs_window_pages_finalize (CsWindow *self)
{
  g_clear_pointer (&self->back_stack, g_ptr_array_unref);
}
