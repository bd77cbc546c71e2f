/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "cs-export.h"
#include "cs-file-chooser.h"
#include "cs-format.h"
#include "cs-report.h"

/* Where a file's name says it holds the workers' timeline (Trace Event JSON),
 * not the run's record. */
#define TRACE_SUFFIX ".trace.json"

typedef struct
{
  GtkWidget          *widget;      /* alive unless the export was cancelled */
  CsExportRenderFunc  render;
  char               *extension;   /* the format chosen before the name */
  GFile              *file;
} ExportData;

static void
export_data_free (gpointer data)
{
  ExportData *export = data;

  g_free (export->extension);
  g_clear_object (&export->file);
  g_free (export);
}

/* A name for the file of what started at @started_usec (0: now), like
 * "copyscope-sweep-2024-06-01-120000.png". */
char *
_cs_export_name (const char *prefix,
                 gint64      started_usec,
                 const char *extension)
{
  g_autoptr(GDateTime) started = NULL;
  g_autofree char *stamp = NULL;

  g_return_val_if_fail (prefix != NULL, NULL);
  g_return_val_if_fail (extension != NULL, NULL);

  if (started_usec > 0)
    started = g_date_time_new_from_unix_local (started_usec / G_USEC_PER_SEC);
  if (started == NULL)
    started = g_date_time_new_now_local ();
  stamp = g_date_time_format (started, "%Y-%m-%d-%H%M%S");

  /* The timeline is JSON too: its own suffix keeps it from reading as the run's. */
  if (g_strcmp0 (extension, "trace") == 0)
    extension = TRACE_SUFFIX + 1;
  return g_strdup_printf ("%s-%s.%s", prefix, stamp, extension);
}

/* Exported charts have the colours the preferences chose, whatever the desktop's. */
void
_cs_export_palette_init (CsPlotPalette *palette)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);

  switch (g_settings_get_enum (settings, "export-palette"))
    {
    case 1:
      cs_plot_palette_init_dark (palette);
      break;
    case 2:
      cs_plot_palette_init_high_contrast (palette);
      break;
    default:
      cs_plot_palette_init_light (palette);
      break;
    }
}

/* A report of @runs (one: the run's own; more: their comparison) in the
 * format @extension names. */
GBytes *
_cs_export_render_runs (CsRun              **runs,
                        guint                n_runs,
                        const char * const  *labels,
                        const char          *extension,
                        GError             **error)
{
  CsReportFormat format;

  g_return_val_if_fail (extension != NULL, NULL);

  if (!cs_report_format_from_string (extension, &format))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("“%s” is not a format Copyscope writes; use md, html, csv, json, png, svg or pdf"),
                   extension);
      return NULL;
    }
  if (n_runs == 0 || runs == NULL || runs[0] == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("There is nothing to export"));
      return NULL;
    }

  return cs_report_render (runs, n_runs, labels, format, error);
}

/* The format a file's name asks for ("….trace.json" the workers' timeline,
 * else its last suffix), or @fallback, the one chosen before. */
char *
_cs_export_format_of_name (const char *basename,
                           const char *fallback)
{
  g_autofree char *lower = basename != NULL ? g_ascii_strdown (basename, -1) : NULL;
  const char *dot = lower != NULL ? strrchr (lower, '.') : NULL;

  if (lower != NULL && g_str_has_suffix (lower, TRACE_SUFFIX))
    return g_strdup ("trace");
  if (dot != NULL && dot[1] != '\0')
    return g_strdup (dot + 1);

  return g_strdup (fallback);
}

static char *
chosen_extension (GFile      *file,
                  const char *fallback)
{
  g_autofree char *base = g_file_get_basename (file);

  return _cs_export_format_of_name (base, fallback);
}

static void
written_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = _cs_display_name (G_FILE (object));

  if (!g_file_replace_contents_finish (G_FILE (object), result, NULL, &error))
    g_task_return_pointer (task, g_strdup_printf (_("Could not export: %s"), error->message), g_free);
  else
    g_task_return_pointer (task, g_strdup_printf (_("Exported “%s”"), name), g_free);
}

static void
chosen_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ExportData *export = g_task_get_task_data (task);
  GtkWidget *widget = export->widget;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *chosen = NULL;

  export->file = _cs_choose_file_finish (result, &error);
  if (export->file == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  chosen = chosen_extension (export->file, export->extension);
  bytes = export->render (widget, chosen, &error);
  if (bytes == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT) &&
      g_strcmp0 (chosen, export->extension) != 0)
    {
      /* A name with a dot of its own, like "run 1.5": the format chosen before. */
      g_clear_error (&error);
      bytes = export->render (widget, export->extension, &error);
    }

  if (bytes == NULL)
    {
      g_task_return_pointer (task, g_strdup_printf (_("Could not export: %s"), error->message), g_free);
      return;
    }

  g_file_replace_contents_bytes_async (export->file, bytes, NULL, FALSE,
                                       G_FILE_CREATE_REPLACE_DESTINATION,
                                       g_task_get_cancellable (task), written_cb,
                                       g_steal_pointer (&task));
}

/*
 * Asks where to save what @widget shows, suggesting @name; then @render makes
 * the file's bytes for the format the chosen name asks for (@extension when it
 * asks for none) and they are written there. @widget cancels @cancellable
 * when it goes.
 */
void
_cs_export_async (GtkWidget           *widget,
                  const char          *name,
                  const char          *extension,
                  CsExportRenderFunc   render,
                  GCancellable        *cancellable,
                  GAsyncReadyCallback  callback,
                  gpointer             user_data)
{
  GtkRoot *root;
  ExportData *export;
  GTask *task;

  g_return_if_fail (GTK_IS_WIDGET (widget));
  g_return_if_fail (name != NULL);
  g_return_if_fail (extension != NULL);
  g_return_if_fail (render != NULL);

  /* No reference on @widget: it cancels its exports when it goes. */
  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, _cs_export_async);
  export = g_new0 (ExportData, 1);
  export->widget = widget;
  export->render = render;
  export->extension = g_strdup (extension);
  g_task_set_task_data (task, export, export_data_free);

  root = gtk_widget_get_root (widget);
  _cs_choose_async (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL, CS_CHOOSE_SAVE, _("Export"),
                    _("_Save"), name, cancellable, chosen_cb, task);
}

/* What to tell the user, or NULL when they chose no file or the export was
 * cancelled. */
char *
_cs_export_finish (GAsyncResult *result)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == _cs_export_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), NULL);
}
