/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <errno.h>

#include <adwaita.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "cs-history-page.h"
#include "cs-history.h"
#include "cs-toast.h"

/*
 * The saved runs, newest first, and the saved thread sweeps. Opening,
 * renaming and deleting happen here against the history folder, a delete
 * with Undo in a toast; the window shows what is opened and the toasts.
 * The page watches the folder, so runs the CLI saves meanwhile appear.
 */

/* A save is a temporary file renamed into place: one reload for the lot. */
#define RELOAD_DELAY_MS 200

struct _CsHistoryPage
{
  GtkWidget            parent_instance;

  /* Template widgets */
  GtkStack            *stack;
  AdwPreferencesGroup *runs_group;
  GtkButton           *compare_button;
  GtkListBox          *runs_list;
  AdwPreferencesGroup *sweeps_group;
  GtkListBox          *sweeps_list;
  GtkLabel            *skipped_label;

  GFileMonitor        *monitor;      /* the history folder */
  guint                reload_id;
  gboolean             stale;        /* changed while not on screen */

  guint                n_runs;
  guint                n_sweeps;

  /* The rows past the first screenful, added a batch at a time while idle:
   * a list of a thousand runs shows at once and fills in behind. */
  GPtrArray           *pending;      /* of CsHistoryEntry */
  guint                pending_next;
  GHashTable          *pending_chosen; /* ids to show chosen */
  guint                fill_id;
};

/* Rows made before the page first draws, and in each idle batch after. */
#define FIRST_ROWS      24
#define ROWS_PER_BATCH  10

G_DEFINE_FINAL_TYPE (CsHistoryPage, cs_history_page, GTK_TYPE_WIDGET)

enum {
  OPEN_RUN,
  OPEN_SWEEP,
  COMPARE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
cs_history_page_fail (CsHistoryPage *self,
                      const char    *message)
{
  g_autoptr(AdwToast) toast = adw_toast_new (message);

  _cs_toast_show (GTK_WIDGET (self), toast);
}

/* The listed run is its record's header (cs_run_is_header ()): whatever
 * shows or keeps a run reads the whole record. */
static CsRun *
load_whole (CsHistoryPage *self,
            CsRun         *run)
{
  g_autoptr(GError) error = NULL;
  CsRun *whole;

  if (!cs_run_is_header (run))
    return cs_run_ref (run);

  whole = cs_history_load (cs_run_get_id (run), &error);
  if (whole == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("Could not read the run: %s"), error->message);

      cs_history_page_fail (self, message);
    }

  return whole;
}

/* The log of a deleted run goes when its toast does, unless Undo took it. */
static void
delete_log_aside (char *log_aside)
{
  (void) g_unlink (log_aside);
  g_free (log_aside);
}

static void
undo_delete_run_cb (CsHistoryPage *self,
                    AdwToast      *toast)
{
  CsRun *run = g_object_get_data (G_OBJECT (toast), "cs-run");
  g_autofree char *log_aside = g_object_steal_data (G_OBJECT (toast), "cs-log-aside");
  g_autoptr(GError) error = NULL;
  g_autofree char *path = cs_history_save (run, &error);

  if (path != NULL)
    cs_history_restore_manifest (run);
  if (path != NULL && log_aside != NULL)
    cs_history_restore_log (log_aside, run, &error);
  else if (log_aside != NULL)
    (void) g_unlink (log_aside);
  if (error != NULL)
    {
      g_autofree char *message = g_strdup_printf (_("Could not restore the run: %s"), error->message);

      cs_history_page_fail (self, message);
    }
  cs_history_page_reload (self);
}

/* Deleted at once, its log set aside (@log_aside, or NULL); the toast's Undo
 * saves it again and puts the log back. */
static void
cs_history_page_run_deleted (CsHistoryPage *self,
                             CsRun         *run,
                             char          *log_aside)
{
  g_autofree char *label = cs_run_dup_label (run);
  g_autofree char *title = NULL;
  g_autoptr(AdwToast) toast = NULL;

  if (label != NULL && *label != '\0')
    title = g_strdup_printf (_("“%s” deleted"), label);
  else
    title = g_strdup (_("Run deleted"));

  toast = adw_toast_new (title);
  adw_toast_set_button_label (toast, _("_Undo"));
  adw_toast_set_priority (toast, ADW_TOAST_PRIORITY_HIGH);
  g_object_set_data_full (G_OBJECT (toast), "cs-run", cs_run_ref (run), (GDestroyNotify) cs_run_unref);
  if (log_aside != NULL)
    g_object_set_data_full (G_OBJECT (toast), "cs-log-aside", log_aside,
                            (GDestroyNotify) delete_log_aside);
  g_signal_connect_object (toast, "button-clicked", G_CALLBACK (undo_delete_run_cb), self,
                           G_CONNECT_SWAPPED);
  _cs_toast_show (GTK_WIDGET (self), toast);
}

static void
undo_delete_sweep_cb (CsHistoryPage *self,
                      AdwToast      *toast)
{
  CsSweep *sweep = g_object_get_data (G_OBJECT (toast), "cs-sweep");
  const char *path = g_object_get_data (G_OBJECT (toast), "cs-path");
  g_autoptr(GError) error = NULL;

  if (!cs_sweep_save (sweep, path, &error))
    {
      g_autofree char *message = g_strdup_printf (_("Could not restore the sweep: %s"), error->message);

      cs_history_page_fail (self, message);
    }
  cs_history_page_reload (self);
}

static void
cs_history_page_sweep_deleted (CsHistoryPage *self,
                               CsSweep       *sweep,
                               const char    *path)
{
  g_autoptr(AdwToast) toast = adw_toast_new (_("Sweep deleted"));

  adw_toast_set_button_label (toast, _("_Undo"));
  adw_toast_set_priority (toast, ADW_TOAST_PRIORITY_HIGH);
  g_object_set_data_full (G_OBJECT (toast), "cs-sweep", cs_sweep_ref (sweep),
                          (GDestroyNotify) cs_sweep_unref);
  g_object_set_data_full (G_OBJECT (toast), "cs-path", g_strdup (path), g_free);
  g_signal_connect_object (toast, "button-clicked", G_CALLBACK (undo_delete_sweep_cb), self,
                           G_CONNECT_SWAPPED);
  _cs_toast_show (GTK_WIDGET (self), toast);
}

static void
cs_history_page_update_compare (CsHistoryPage *self)
{
  g_autoptr(GPtrArray) chosen = cs_history_page_dup_chosen (self);
  g_autofree char *label = NULL;

  gtk_widget_set_sensitive (GTK_WIDGET (self->compare_button), chosen->len >= 2);

  if (chosen->len >= 2)
    /* Translators: the compare button with the number of selected runs */
    label = g_strdup_printf (_("_Compare %u"), chosen->len);
  gtk_button_set_label (self->compare_button, label != NULL ? label : _("_Compare"));
}

static void
clear_list (GtkListBox *list)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (list))) != NULL)
    gtk_list_box_remove (list, child);
}

static void
cs_history_page_show_state (CsHistoryPage *self)
{
  gtk_stack_set_visible_child_name (self->stack,
                                    self->n_runs + self->n_sweeps > 0 ? "list" : "empty");
  gtk_widget_set_visible (GTK_WIDGET (self->runs_group), self->n_runs > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->sweeps_group), self->n_sweeps > 0);
  cs_history_page_update_compare (self);
}

static void
rename_requested_cb (CsHistoryPage *self,
                     const char    *label,
                     CsHistoryRow  *row)
{
  CsRun *run = cs_history_row_get_run (row);
  g_autoptr(GError) error = NULL;

  if (run == NULL)
    return;

  if (!cs_history_set_label (cs_run_get_id (run), *label != '\0' ? label : NULL, &error))
    {
      g_autofree char *message = g_strdup_printf (_("Could not rename the run: %s"), error->message);

      cs_history_page_fail (self, message);
      return;
    }

  cs_run_set_label (run, *label != '\0' ? label : NULL);
}

static void
delete_requested_cb (CsHistoryPage *self,
                     CsHistoryRow  *row)
{
  g_autoptr(GError) error = NULL;
  CsRun *run = cs_history_row_get_run (row);
  CsSweep *sweep = cs_history_row_get_sweep (row);

  if (run != NULL)
    {
      /* Whole, for the Undo to save it again. */
      g_autoptr(CsRun) deleted = load_whole (self, run);
      char *log_aside = NULL;

      if (deleted == NULL)
        return;
      if (!cs_history_delete_full (cs_run_get_id (run), &log_aside, &error))
        {
          g_autofree char *message = g_strdup_printf (_("Could not delete the run: %s"), error->message);

          cs_history_page_fail (self, message);
          return;
        }

      gtk_list_box_remove (self->runs_list, GTK_WIDGET (row));
      self->n_runs--;
      cs_history_page_show_state (self);
      cs_history_page_run_deleted (self, deleted, log_aside);
    }
  else if (sweep != NULL)
    {
      g_autoptr(CsSweep) deleted = cs_sweep_ref (sweep);
      g_autofree char *path = g_strdup (cs_history_row_get_path (row));

      if (g_unlink (path) != 0)
        {
          int saved = errno;
          g_autofree char *message = g_strdup_printf (_("Could not delete the sweep: %s"),
                                                      g_strerror (saved));

          cs_history_page_fail (self, message);
          return;
        }

      gtk_list_box_remove (self->sweeps_list, GTK_WIDGET (row));
      self->n_sweeps--;
      cs_history_page_show_state (self);
      cs_history_page_sweep_deleted (self, deleted, path);
    }
}

static void
row_activated_cb (CsHistoryPage *self,
                  GtkListBoxRow *list_row,
                  GtkListBox    *list)
{
  CsHistoryRow *row = CS_HISTORY_ROW (list_row);

  if (cs_history_row_get_run (row) != NULL)
    {
      g_autoptr(CsRun) run = load_whole (self, cs_history_row_get_run (row));

      if (run != NULL)
        g_signal_emit (self, signals[OPEN_RUN], 0, run);
    }
  else if (cs_history_row_get_sweep (row) != NULL)
    g_signal_emit (self, signals[OPEN_SWEEP], 0, cs_history_row_get_sweep (row));
}

static void
compare_clicked_cb (CsHistoryPage *self)
{
  cs_history_page_compare (self);
}

static GtkWidget *
cs_history_page_add_row (CsHistoryPage *self,
                         GtkListBox    *list,
                         GtkWidget     *row)
{
  g_signal_connect_object (row, "rename-requested", G_CALLBACK (rename_requested_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (row, "delete-requested", G_CALLBACK (delete_requested_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (row, "notify::chosen", G_CALLBACK (cs_history_page_update_compare), self,
                           G_CONNECT_SWAPPED);
  gtk_list_box_append (list, row);

  return row;
}

static void
add_run_rows (CsHistoryPage *self,
              guint          count)
{
  guint end = MIN (self->pending_next + count, self->pending->len);

  for (; self->pending_next < end; self->pending_next++)
    {
      const CsHistoryEntry *entry = g_ptr_array_index (self->pending, self->pending_next);
      GtkWidget *row = cs_history_row_new_for_run (entry->run);

      cs_history_page_add_row (self, self->runs_list, row);
      if (g_hash_table_contains (self->pending_chosen, cs_run_get_id (entry->run)))
        cs_history_row_set_chosen (CS_HISTORY_ROW (row), TRUE);
    }
}

static void
stop_filling (CsHistoryPage *self)
{
  g_clear_handle_id (&self->fill_id, g_source_remove);
  g_clear_pointer (&self->pending, g_ptr_array_unref);
  g_clear_pointer (&self->pending_chosen, g_hash_table_unref);
  self->pending_next = 0;
}

static gboolean
fill_cb (gpointer user_data)
{
  CsHistoryPage *self = user_data;

  add_run_rows (self, ROWS_PER_BATCH);
  if (self->pending_next < self->pending->len)
    return G_SOURCE_CONTINUE;

  self->fill_id = 0;
  stop_filling (self);
  cs_history_page_update_compare (self);
  return G_SOURCE_REMOVE;
}

static void
cs_history_page_load_sweeps (CsHistoryPage *self)
{
  g_autoptr(GPtrArray) paths = cs_history_list_sweeps ();

  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      g_autoptr(GError) error = NULL;
      g_autoptr(CsSweep) sweep = cs_sweep_load (path, &error);

      if (sweep == NULL)
        {
          g_debug ("Skipping %s: %s", path, error->message);
          continue;
        }

      cs_history_page_add_row (self, self->sweeps_list, cs_history_row_new_for_sweep (sweep, path));
      self->n_sweeps++;
    }
}

static gboolean
reload_cb (gpointer user_data)
{
  CsHistoryPage *self = user_data;

  self->reload_id = 0;
  cs_history_page_reload (self);

  return G_SOURCE_REMOVE;
}

static void
folder_changed_cb (CsHistoryPage     *self,
                   GFile             *file,
                   GFile             *other_file,
                   GFileMonitorEvent  event)
{
  g_autofree char *name = g_file_get_basename (file);

  /* The history's index, written as it lists, is no record. */
  if (name != NULL && name[0] == '.')
    return;

  if (!gtk_widget_get_mapped (GTK_WIDGET (self)))
    {
      self->stale = TRUE;
      return;
    }

  if (self->reload_id == 0)
    self->reload_id = g_timeout_add (RELOAD_DELAY_MS, reload_cb, self);
}

static void
cs_history_page_watch (CsHistoryPage *self)
{
  g_autofree char *path = cs_history_get_dir ();
  g_autoptr(GFile) dir = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;

  /* A folder that is not there yet cannot be watched for what comes into it. */
  g_mkdir_with_parents (path, 0755);
  self->monitor = g_file_monitor_directory (dir, G_FILE_MONITOR_WATCH_MOVES, NULL, &error);
  if (self->monitor == NULL)
    {
      g_debug ("Not watching %s: %s", path, error->message);
      return;
    }

  g_signal_connect_object (self->monitor, "changed", G_CALLBACK (folder_changed_cb), self,
                           G_CONNECT_SWAPPED);
}

static void
cs_history_page_map (GtkWidget *widget)
{
  CsHistoryPage *self = CS_HISTORY_PAGE (widget);

  GTK_WIDGET_CLASS (cs_history_page_parent_class)->map (widget);

  if (self->stale)
    cs_history_page_reload (self);
}

static void
cs_history_page_dispose (GObject *object)
{
  CsHistoryPage *self = CS_HISTORY_PAGE (object);
  GtkWidget *child;

  g_clear_handle_id (&self->reload_id, g_source_remove);
  stop_filling (self);
  if (self->monitor != NULL)
    g_file_monitor_cancel (self->monitor);
  g_clear_object (&self->monitor);

  gtk_widget_dispose_template (GTK_WIDGET (object), CS_TYPE_HISTORY_PAGE);

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (object))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (cs_history_page_parent_class)->dispose (object);
}

static void
cs_history_page_class_init (CsHistoryPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cs_history_page_dispose;
  widget_class->map = cs_history_page_map;

  signals[OPEN_RUN] =
    g_signal_new ("open-run",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, CS_TYPE_RUN);

  signals[OPEN_SWEEP] =
    g_signal_new ("open-sweep",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, CS_TYPE_SWEEP);

  /* The chosen runs, oldest first; labels come from the runs. */
  signals[COMPARE] =
    g_signal_new ("compare",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_PTR_ARRAY);

  /* Something to tell the user: a delete to undo, a change the folder refused. */
  g_type_ensure (CS_TYPE_HISTORY_ROW);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-history-page.ui");
  gtk_widget_class_bind_template_child (widget_class, CsHistoryPage, stack);
  gtk_widget_class_bind_template_child (widget_class, CsHistoryPage, runs_group);
  gtk_widget_class_bind_template_child (widget_class, CsHistoryPage, compare_button);
  gtk_widget_class_bind_template_child (widget_class, CsHistoryPage, runs_list);
  gtk_widget_class_bind_template_child (widget_class, CsHistoryPage, sweeps_group);
  gtk_widget_class_bind_template_child (widget_class, CsHistoryPage, sweeps_list);
  gtk_widget_class_bind_template_child (widget_class, CsHistoryPage, skipped_label);
  gtk_widget_class_bind_template_callback (widget_class, row_activated_cb);
  gtk_widget_class_bind_template_callback (widget_class, compare_clicked_cb);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "historypage");
}

static void
cs_history_page_init (CsHistoryPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  cs_history_page_watch (self);
}

/* Reads the history folder again. */
void
cs_history_page_reload (CsHistoryPage *self)
{
  g_autoptr(GPtrArray) entries = NULL;
  g_autoptr(GPtrArray) chosen = NULL;
  g_autoptr(GHashTable) chosen_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GError) error = NULL;
  guint n_skipped = 0;

  g_return_if_fail (CS_IS_HISTORY_PAGE (self));

  g_clear_handle_id (&self->reload_id, g_source_remove);
  self->stale = FALSE;

  /* What the user chose to compare stays chosen. */
  chosen = cs_history_page_dup_chosen (self);
  for (guint i = 0; i < chosen->len; i++)
    g_hash_table_add (chosen_ids, g_strdup (cs_run_get_id (g_ptr_array_index (chosen, i))));

  stop_filling (self);
  clear_list (self->runs_list);
  clear_list (self->sweeps_list);
  self->n_runs = 0;
  self->n_sweeps = 0;

  entries = cs_history_list (&n_skipped, &error);
  if (entries == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("Could not read the history: %s"), error->message);

      cs_history_page_fail (self, message);
    }

  if (entries != NULL)
    {
      self->pending = g_steal_pointer (&entries);
      self->pending_chosen = g_steal_pointer (&chosen_ids);
      self->n_runs = self->pending->len;
      add_run_rows (self, FIRST_ROWS);
      if (self->pending_next < self->pending->len)
        self->fill_id = g_idle_add_full (G_PRIORITY_LOW, fill_cb, self, NULL);
      else
        stop_filling (self);
    }

  cs_history_page_load_sweeps (self);

  if (n_skipped > 0)
    {
      g_autofree char *text = g_strdup_printf (ngettext ("%u saved file could not be read.",
                                                         "%u saved files could not be read.",
                                                         n_skipped),
                                               n_skipped);

      gtk_label_set_label (self->skipped_label, text);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->skipped_label), n_skipped > 0);

  cs_history_page_show_state (self);
}

guint
cs_history_page_get_n_runs (CsHistoryPage *self)
{
  g_return_val_if_fail (CS_IS_HISTORY_PAGE (self), 0);

  return self->n_runs;
}

guint
cs_history_page_get_n_sweeps (CsHistoryPage *self)
{
  g_return_val_if_fail (CS_IS_HISTORY_PAGE (self), 0);

  return self->n_sweeps;
}

/* The row of the @index-th run, newest first; NULL past the end. */
CsHistoryRow *
cs_history_page_get_run_row (CsHistoryPage *self,
                             guint          index)
{
  GtkListBoxRow *row;

  g_return_val_if_fail (CS_IS_HISTORY_PAGE (self), NULL);

  row = gtk_list_box_get_row_at_index (self->runs_list, (int) index);

  return row != NULL ? CS_HISTORY_ROW (row) : NULL;
}

/* The chosen runs, oldest first, as new references. */
GPtrArray *
cs_history_page_dup_chosen (CsHistoryPage *self)
{
  GPtrArray *chosen = g_ptr_array_new_with_free_func ((GDestroyNotify) cs_run_unref);
  GtkWidget *child;

  g_return_val_if_fail (CS_IS_HISTORY_PAGE (self), chosen);

  for (child = gtk_widget_get_last_child (GTK_WIDGET (self->runs_list));
       child != NULL;
       child = gtk_widget_get_prev_sibling (child))
    {
      if (CS_IS_HISTORY_ROW (child) && cs_history_row_get_chosen (CS_HISTORY_ROW (child)))
        g_ptr_array_add (chosen, cs_run_ref (cs_history_row_get_run (CS_HISTORY_ROW (child))));
    }

  return chosen;
}

/* Asks for a comparison of the chosen runs; nothing with fewer than two. */
void
cs_history_page_compare (CsHistoryPage *self)
{
  g_autoptr(GPtrArray) chosen = NULL;

  g_return_if_fail (CS_IS_HISTORY_PAGE (self));

  chosen = cs_history_page_dup_chosen (self);
  if (chosen->len < 2)
    return;
  for (guint i = 0; i < chosen->len; i++)
    {
      CsRun *whole = load_whole (self, g_ptr_array_index (chosen, i));

      if (whole == NULL)
        return;
      cs_run_unref (g_ptr_array_index (chosen, i));
      g_ptr_array_index (chosen, i) = whole;
    }
  g_signal_emit (self, signals[COMPARE], 0, chosen);
}
