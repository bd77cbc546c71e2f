/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <glib/gi18n.h>

#include "cs-file-chooser.h"
#include "cs-format.h"
#include "cs-generate-dialog.h"

/*
 * Writes one of the benchmark scenarios into a folder, with progress and
 * Cancel. Generating blocks, so it runs in the engine's cs_generate_async,
 * which reports its counts on its thread, under a lock here; a main-thread
 * timeout shows them. "generated"
 * gives the folder written, and the dialog closes.
 */

#define POLL_MS 100

typedef struct
{
  /* Set before the thread starts */
  CsScenario        scenario;
  double            scale;
  guint64           seed;
  char             *dir;
  GCancellable     *cancellable;

  /* Under lock */
  GMutex            lock;
  guint64           files_done;
  guint64           files_total;
  guint64           bytes_done;
  guint64           bytes_total;

  /* Main thread only: NULL once the dialog is gone */
  CsGenerateDialog *dialog;
} GenerateTask;

struct _CsGenerateDialog
{
  AdwWindow        parent_instance;

  /* Template widgets */
  GtkButton       *cancel_button;
  GtkButton       *generate_button;
  AdwComboRow     *scenario_row;
  GtkSpinButton   *scale_spin;
  GtkSpinButton   *seed_spin;
  AdwActionRow    *estimate_row;
  AdwActionRow    *folder_row;
  GtkButton       *folder_button;
  GtkWidget       *progress_group;
  GtkProgressBar  *progress_bar;
  GtkLabel        *error_label;

  /* Owned */
  GFile           *folder;
  GCancellable    *cancellable;   /* the chooser, while it is open */
  guint            poll_id;

  /* Borrowed: the running generation, until it hands back */
  GenerateTask    *task;
};

G_DEFINE_FINAL_TYPE (CsGenerateDialog, cs_generate_dialog, ADW_TYPE_WINDOW)

enum {
  GENERATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
generate_task_free (GenerateTask *task)
{
  g_mutex_clear (&task->lock);
  g_clear_object (&task->cancellable);
  g_clear_pointer (&task->dir, g_free);
  g_free (task);
}

static CsScenario
selected_scenario (CsGenerateDialog *self)
{
  guint selected = adw_combo_row_get_selected (self->scenario_row);

  return selected < CS_N_SCENARIOS ? (CsScenario) selected : CS_SCENARIO_SMALL;
}

static void
settings_changed_cb (CsGenerateDialog *self)
{
  CsScenario scenario = selected_scenario (self);
  double scale = gtk_spin_button_get_value (self->scale_spin);
  g_autofree char *count = NULL;
  g_autofree char *bytes = NULL;
  g_autofree char *estimate = NULL;
  guint64 n_files = 0, n_bytes = 0;

  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->scenario_row),
                               _(cs_scenario_describe (scenario)));

  cs_scenario_estimate (scenario, scale, &n_files, &n_bytes);
  count = _cs_format_count (n_files);
  bytes = _cs_format_bytes (n_bytes);
  /* Translators: the size of a data set to generate, like "20,000 files, 245.8 MB" */
  estimate = g_strdup_printf (ngettext ("%s file, %s", "%s files, %s", (gulong) n_files), count, bytes);
  adw_action_row_set_subtitle (self->estimate_row, estimate);
}

static void
show_folder (CsGenerateDialog *self)
{
  g_autofree char *path = g_file_get_path (self->folder);
  g_autofree char *display = _cs_display_path (path != NULL ? path : "?");

  adw_action_row_set_subtitle (self->folder_row, display);
}

static void
cs_generate_dialog_set_running (CsGenerateDialog *self,
                                gboolean          running)
{
  gtk_widget_set_sensitive (GTK_WIDGET (self->generate_button), !running);
  gtk_widget_set_sensitive (GTK_WIDGET (self->scenario_row), !running);
  gtk_widget_set_sensitive (GTK_WIDGET (self->scale_spin), !running);
  gtk_widget_set_sensitive (GTK_WIDGET (self->seed_spin), !running);
  gtk_widget_set_sensitive (GTK_WIDGET (self->folder_button), !running);
  gtk_widget_set_visible (self->progress_group, running);
}

/* main thread */
static gboolean
poll_cb (gpointer user_data)
{
  CsGenerateDialog *self = user_data;
  GenerateTask *task = self->task;
  guint64 files_done, files_total, bytes_done, bytes_total;
  g_autofree char *done = NULL;
  g_autofree char *total = NULL;
  g_autofree char *files_done_text = NULL;
  g_autofree char *files_total_text = NULL;
  g_autofree char *text = NULL;

  if (task == NULL)
    {
      self->poll_id = 0;
      return G_SOURCE_REMOVE;
    }

  g_mutex_lock (&task->lock);
  files_done = task->files_done;
  files_total = task->files_total;
  bytes_done = task->bytes_done;
  bytes_total = task->bytes_total;
  g_mutex_unlock (&task->lock);

  if (bytes_total == 0)
    {
      gtk_progress_bar_pulse (self->progress_bar);
      return G_SOURCE_CONTINUE;
    }

  done = _cs_format_bytes (bytes_done);
  total = _cs_format_bytes (bytes_total);
  files_done_text = _cs_format_count (files_done);
  files_total_text = _cs_format_count (files_total);
  /* Translators: generating progress, like "1,200 of 20,000 files · 14.7 MB of 245.8 MB" */
  text = g_strdup_printf (ngettext ("%s of %s file · %s of %s", "%s of %s files · %s of %s",
                                    (gulong) files_total),
                          files_done_text, files_total_text, done, total);
  gtk_progress_bar_set_text (self->progress_bar, text);
  gtk_progress_bar_set_fraction (self->progress_bar, (double) bytes_done / (double) bytes_total);

  return G_SOURCE_CONTINUE;
}

/* the engine's generating thread */
static void
progress_cb (guint64  files_done,
             guint64  files_total,
             guint64  bytes_done,
             guint64  bytes_total,
             gpointer user_data)
{
  GenerateTask *task = user_data;

  g_mutex_lock (&task->lock);
  task->files_done = files_done;
  task->files_total = files_total;
  task->bytes_done = bytes_done;
  task->bytes_total = bytes_total;
  g_mutex_unlock (&task->lock);
}

/* main thread: generating ended */
static void
generate_done_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  GenerateTask *task = user_data;
  CsGenerateDialog *self = task->dialog;
  g_autoptr(GError) error = NULL;
  gboolean ok = cs_generate_finish (result, &error);

  if (self == NULL)
    {
      generate_task_free (task);
      return;
    }

  self->task = NULL;
  g_clear_handle_id (&self->poll_id, g_source_remove);
  cs_generate_dialog_set_running (self, FALSE);

  if (ok)
    {
      g_signal_emit (self, signals[GENERATED], 0, task->dir);
      generate_task_free (task);
      gtk_window_destroy (GTK_WINDOW (self));
      return;
    }
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_autofree char *text = g_strdup_printf (_("Could not generate the files: %s"), error->message);

      gtk_label_set_label (self->error_label, text);
      gtk_widget_set_visible (GTK_WIDGET (self->error_label), TRUE);
    }

  generate_task_free (task);
}

static void
generate_clicked_cb (CsGenerateDialog *self)
{
  cs_generate_dialog_start (self);
}

static void
cancel_clicked_cb (CsGenerateDialog *self)
{
  if (self->task != NULL)
    g_cancellable_cancel (self->task->cancellable);
  else
    gtk_window_destroy (GTK_WINDOW (self));
}

static void
choose_folder_clicked_cb (CsGenerateDialog *self)
{
  _cs_choose_folder (GTK_WIDGET (self), _("Generate Into"), self->cancellable,
                     (CsFolderChosenFunc) cs_generate_dialog_set_folder);
}

static void
cs_generate_dialog_dispose (GObject *object)
{
  CsGenerateDialog *self = CS_GENERATE_DIALOG (object);

  /* The thread finishes on its own; its task no longer points here. */
  if (self->task != NULL)
    {
      g_cancellable_cancel (self->task->cancellable);
      self->task->dialog = NULL;
      self->task = NULL;
    }
  g_clear_handle_id (&self->poll_id, g_source_remove);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);

  gtk_widget_dispose_template (GTK_WIDGET (self), CS_TYPE_GENERATE_DIALOG);

  G_OBJECT_CLASS (cs_generate_dialog_parent_class)->dispose (object);
}

static void
cs_generate_dialog_finalize (GObject *object)
{
  CsGenerateDialog *self = CS_GENERATE_DIALOG (object);

  g_clear_object (&self->folder);

  G_OBJECT_CLASS (cs_generate_dialog_parent_class)->finalize (object);
}

static void
cs_generate_dialog_class_init (CsGenerateDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cs_generate_dialog_dispose;
  object_class->finalize = cs_generate_dialog_finalize;

  /* The folder the files are in. */
  signals[GENERATED] =
    g_signal_new ("generated",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-generate-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, CsGenerateDialog, cancel_button);
  gtk_widget_class_bind_template_child (widget_class, CsGenerateDialog, generate_button);
  gtk_widget_class_bind_template_child (widget_class, CsGenerateDialog, scenario_row);
  gtk_widget_class_bind_template_child (widget_class, CsGenerateDialog, scale_spin);
  gtk_widget_class_bind_template_child (widget_class, CsGenerateDialog, seed_spin);
  gtk_widget_class_bind_template_child (widget_class, CsGenerateDialog, estimate_row);
  gtk_widget_class_bind_template_child (widget_class, CsGenerateDialog, folder_row);
  gtk_widget_class_bind_template_child (widget_class, CsGenerateDialog, folder_button);
  gtk_widget_class_bind_template_child (widget_class, CsGenerateDialog, progress_group);
  gtk_widget_class_bind_template_child (widget_class, CsGenerateDialog, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, CsGenerateDialog, error_label);
  gtk_widget_class_bind_template_callback (widget_class, settings_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, generate_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, cancel_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, choose_folder_clicked_cb);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
cs_generate_dialog_init (CsGenerateDialog *self)
{
  g_autofree char *folder = g_build_filename (g_get_user_cache_dir (), "copyscope", "scenarios", NULL);

  gtk_widget_init_template (GTK_WIDGET (self));

  self->cancellable = g_cancellable_new ();
  self->folder = g_file_new_for_path (folder);
  show_folder (self);
  settings_changed_cb (self);
}

CsGenerateDialog *
cs_generate_dialog_new (GtkWindow *parent)
{
  g_return_val_if_fail (parent == NULL || GTK_IS_WINDOW (parent), NULL);

  return g_object_new (CS_TYPE_GENERATE_DIALOG,
                       "transient-for", parent,
                       NULL);
}

void
cs_generate_dialog_set_scenario (CsGenerateDialog *self,
                                 CsScenario        scenario)
{
  g_return_if_fail (CS_IS_GENERATE_DIALOG (self));
  g_return_if_fail (scenario < CS_N_SCENARIOS);

  adw_combo_row_set_selected (self->scenario_row, scenario);
}

void
cs_generate_dialog_set_scale (CsGenerateDialog *self,
                              double            scale)
{
  g_return_if_fail (CS_IS_GENERATE_DIALOG (self));

  gtk_spin_button_set_value (self->scale_spin, scale);
}

/* The files go into a folder named after the scenario inside @folder. */
void
cs_generate_dialog_set_folder (CsGenerateDialog *self,
                               GFile            *folder)
{
  g_return_if_fail (CS_IS_GENERATE_DIALOG (self));
  g_return_if_fail (G_IS_FILE (folder));

  g_set_object (&self->folder, folder);
  show_folder (self);
}

gboolean
cs_generate_dialog_start (CsGenerateDialog *self)
{
  g_autofree char *folder = NULL;
  g_autofree char *name = NULL;
  GenerateTask *task;
  CsScenario scenario;
  double scale;

  g_return_val_if_fail (CS_IS_GENERATE_DIALOG (self), FALSE);

  if (self->task != NULL)
    return FALSE;

  folder = g_file_get_path (self->folder);
  if (folder == NULL)
    {
      gtk_label_set_label (self->error_label, _("Choose a local or mounted folder."));
      gtk_widget_set_visible (GTK_WIDGET (self->error_label), TRUE);
      return FALSE;
    }

  scenario = selected_scenario (self);
  scale = gtk_spin_button_get_value (self->scale_spin);

  task = g_new0 (GenerateTask, 1);
  g_mutex_init (&task->lock);
  task->scenario = scenario;
  task->scale = scale;
  task->seed = (guint64) gtk_spin_button_get_value_as_int (self->seed_spin);
  /* One folder per scenario, scale and seed, so a set is never mixed with another. */
  name = g_strdup_printf ("%s-x%g-seed%" G_GUINT64_FORMAT,
                          cs_scenario_to_string (scenario), scale, task->seed);
  g_strdelimit (name, ",", '.');
  task->dir = g_build_filename (folder, name, NULL);
  task->cancellable = g_cancellable_new ();
  task->dialog = self;
  self->task = task;

  gtk_widget_set_visible (GTK_WIDGET (self->error_label), FALSE);
  gtk_progress_bar_set_fraction (self->progress_bar, 0);
  gtk_progress_bar_set_text (self->progress_bar, _("Starting…"));
  cs_generate_dialog_set_running (self, TRUE);

  self->poll_id = g_timeout_add (POLL_MS, poll_cb, self);
  cs_generate_async (task->scenario, task->dir, task->scale, task->seed, progress_cb, task,
                     task->cancellable, generate_done_cb, task);

  return TRUE;
}
