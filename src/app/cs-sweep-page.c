/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <errno.h>

#include <adwaita.h>
#include <glib/gi18n.h>

#include "cs-export.h"
#include "cs-file-chooser.h"
#include "cs-fold-box.h"
#include "cs-format.h"
#include "cs-generate-dialog.h"
#include "cs-history.h"
#include "cs-limit-hint.h"
#include "cs-sweep-chart.h"
#include "cs-sweep-page.h"
#include "cs-throughput-graph.h"
#include "cs-toast.h"

/*
 * A thread sweep: set up, run, result. The sweep runs through
 * cs_sweep_run_async (), which hands this page each copy's job on the main
 * thread before it starts; the page reads that job's progress and samples
 * every POLL_MS, since the job reports to the sweep's thread, not to this one. Choosing the folders, generating
 * a test set and exporting the charts are the page's own actions (sweep.*); a
 * finished sweep is kept in the history. a toast in the window says what
 * happened.
 */

#define POLL_MS 200
#define EXPORT_WIDTH  1200
#define EXPORT_HEIGHT 420

static const guint thread_choices[] = { 1, 2, 4, 8, 16, 32, 64, 128 };

/* One sweep under way, main thread only: its callbacks get this, and a page
 * that goes away lets go of it (@page NULL) while the sweep stops. */
typedef struct
{
  CsSweepPage  *page;
  CsSweep      *sweep;
  GCancellable *cancellable;
} SweepRun;

struct _CsSweepPage
{
  GtkWidget          parent_instance;

  /* Template widgets */
  GtkStack          *stack;
  GtkLabel          *error_label;
  AdwActionRow      *source_row;
  AdwActionRow      *destination_row;
  GtkCheckButton    *check_1;
  GtkCheckButton    *check_2;
  GtkCheckButton    *check_4;
  GtkCheckButton    *check_8;
  GtkCheckButton    *check_16;
  GtkCheckButton    *check_32;
  GtkCheckButton    *check_64;
  GtkCheckButton    *check_128;
  GtkSpinButton     *repeats_spin;
  GtkSwitch         *cold_switch;
  GtkButton         *start_button;
  GtkLabel          *run_title_label;
  GtkLabel          *run_detail_label;
  GtkProgressBar    *progress_bar;
  CsThroughputGraph *live_graph;
  CsLimitHint       *limit_hint;
  GtkLabel          *result_title_label;
  GtkLabel          *recommendation_label;
  GtkLabel          *result_detail_label;
  GtkMenuButton     *export_button;
  CsSweepChart      *time_chart;
  CsSweepChart      *rate_chart;
  CsSweepChart      *files_chart;

  /* Owned */
  GFile             *source;
  GFile             *destination;
  CsSweep           *result;
  char              *sentence;
  CsJob             *watched;       /* the copy shown live */
  guint              n_shown;       /* of its samples, already in the graph */
  guint              n_changes;
  GCancellable      *cancellable;   /* choosers and exports under way */

  /* Borrowed: the running sweep, freed when it hands back */
  SweepRun          *run;
  CsJob             *current;       /* the copy it runs now; owned */
  guint              index;         /* of the current copy */
  guint              total;
  guint              poll_id;
};

G_DEFINE_FINAL_TYPE (CsSweepPage, cs_sweep_page, GTK_TYPE_WIDGET)

static GtkCheckButton **
thread_checks (CsSweepPage *self,
               GtkCheckButton **checks)
{
  checks[0] = self->check_1;
  checks[1] = self->check_2;
  checks[2] = self->check_4;
  checks[3] = self->check_8;
  checks[4] = self->check_16;
  checks[5] = self->check_32;
  checks[6] = self->check_64;
  checks[7] = self->check_128;

  return checks;
}

static GArray *
chosen_threads (CsSweepPage *self)
{
  GtkCheckButton *checks[G_N_ELEMENTS (thread_choices)];
  GArray *threads = g_array_new (FALSE, FALSE, sizeof (guint));

  thread_checks (self, checks);
  for (guint i = 0; i < G_N_ELEMENTS (thread_choices); i++)
    if (gtk_check_button_get_active (checks[i]))
      g_array_append_val (threads, thread_choices[i]);

  return threads;
}

static void
cs_sweep_page_update_start (CsSweepPage *self)
{
  g_autoptr(GArray) threads = chosen_threads (self);

  gtk_widget_set_sensitive (GTK_WIDGET (self->start_button),
                            self->run == NULL && self->source != NULL &&
                            self->destination != NULL && threads->len > 0);
}

static void
threads_toggled_cb (CsSweepPage *self)
{
  cs_sweep_page_update_start (self);
}

static void
show_folder (AdwActionRow *row,
             GFile        *file)
{
  g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;
  g_autofree char *display = path != NULL ? _cs_display_path (path) : NULL;

  if (display != NULL)
    adw_action_row_set_subtitle (row, display);
}

/* main thread: follows the copy the sweep runs now */
static void
cs_sweep_page_poll (CsSweepPage *self)
{
  CsJob *job = self->current;
  guint index = self->index;
  guint total = self->total;
  g_autofree CsSample *samples = NULL;
  g_autofree char *title = NULL;
  g_autofree char *detail = NULL;
  guint n_samples = 0;
  CsProgress progress;
  CsRun *run;

  if (job == NULL)
    return;

  run = cs_job_get_run (job);
  if (job != self->watched)
    {
      g_set_object (&self->watched, job);
      self->n_shown = 0;
      self->n_changes = 0;
      cs_throughput_graph_set_run (self->live_graph, NULL);
      cs_limit_hint_reset (self->limit_hint);
    }

  samples = cs_run_dup_samples (run, &n_samples);
  if (n_samples > 0 && self->n_shown == 0)
    cs_throughput_graph_set_run (self->live_graph, run);
  else
    for (guint i = self->n_shown; i < n_samples; i++)
      cs_throughput_graph_push_sample (self->live_graph, &samples[i]);
  cs_limit_hint_set_remote (self->limit_hint, cs_job_get_destination_remote (job));
  {
    g_autoptr(GArray) phases = cs_run_dup_phase_series (run);
    CsProgress scan;
    guint k = 0;

    cs_job_get_progress (job, &scan);
    cs_limit_hint_set_scan_ended (self->limit_hint, !scan.scanning);

    /* Each bucket before the sample it ends with, both oldest first; the
     * hint takes each bucket once however often it is handed over. */
    for (guint i = self->n_shown; i < n_samples; i++)
      {
        for (; phases != NULL && k < phases->len && g_array_index (phases, CsPhaseBucket, k).t <= samples[i].t; k++)
          cs_limit_hint_push_phases (self->limit_hint, &g_array_index (phases, CsPhaseBucket, k), 1);
        cs_limit_hint_push_sample (self->limit_hint, &samples[i]);
      }
  }
  self->n_shown = n_samples;

  cs_job_get_progress (job, &progress);

  /* Translators: which copy of the sweep runs now, like "Copy 3 of 24 · 4 threads" */
  title = g_strdup_printf (ngettext ("Copy %u of %u · %u thread", "Copy %u of %u · %u threads",
                                     cs_job_get_threads (job)),
                           index + 1, total, cs_job_get_threads (job));
  gtk_label_set_label (self->run_title_label, title);

  if (progress.bytes_total > 0)
    {
      g_autofree char *done = _cs_format_bytes (progress.bytes_done);
      g_autofree char *found = _cs_format_bytes (progress.bytes_total);
      g_autofree char *elapsed = cs_format_duration (progress.elapsed, CS_DURATION_ESTIMATE, TRUE);
      double fraction = (double) progress.bytes_done / (double) progress.bytes_total;

      /* Translators: progress of the current copy of a sweep, like "12 MB of 64 MB · 3 seconds" */
      detail = g_strdup_printf (_("%s of %s · %s"), done, found, elapsed);
      gtk_label_set_label (self->run_detail_label, detail);
      gtk_progress_bar_set_fraction (self->progress_bar,
                                     (index + CLAMP (fraction, 0.0, 1.0)) / MAX (total, 1));
    }
}

static gboolean
poll_cb (gpointer user_data)
{
  cs_sweep_page_poll (user_data);

  return G_SOURCE_CONTINUE;
}

/* main thread, while the sweep's thread waits: the copy about to start */
static void
sweep_job_cb (CsSweep  *sweep,
              CsJob    *job,
              guint     index,
              guint     total,
              gpointer  user_data)
{
  SweepRun *run = user_data;
  CsSweepPage *self = run->page;

  if (self == NULL)
    return;

  g_set_object (&self->current, job);
  self->index = index;
  self->total = total;
}

static void
sweep_run_free (SweepRun *run)
{
  cs_sweep_unref (run->sweep);
  g_object_unref (run->cancellable);
  g_free (run);
}

/*
 * The focus that reaches the result goes to its first button, never to the
 * sentences above it: a selectable label given the focus selects all its
 * text, and the result would open with its reason highlighted.
 */
static void
cs_sweep_page_focus_result (CsSweepPage *self)
{
  gtk_widget_grab_focus (GTK_WIDGET (self->export_button));
  gtk_label_select_region (self->recommendation_label, 0, 0);
  gtk_label_select_region (self->result_detail_label, 0, 0);
}

static gboolean
cs_sweep_page_result_shown (CsSweepPage *self)
{
  return g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), "result") == 0;
}

/* Focus coming into the page from elsewhere: the window showing it (from
 * History), or Tab from the header bar. */
static gboolean
cs_sweep_page_focus (GtkWidget        *widget,
                     GtkDirectionType  direction)
{
  CsSweepPage *self = CS_SWEEP_PAGE (widget);

  if (gtk_widget_get_focus_child (widget) == NULL && direction != GTK_DIR_TAB_BACKWARD &&
      cs_sweep_page_result_shown (self))
    {
      cs_sweep_page_focus_result (self);
      return TRUE;
    }

  return GTK_WIDGET_CLASS (cs_sweep_page_parent_class)->focus (widget, direction);
}

static void
cs_sweep_page_show_result (CsSweepPage *self,
                           CsSweep     *sweep)
{
  g_autofree char *sentence = NULL;
  g_autofree char *title = NULL;
  g_autofree char *detail = NULL;
  g_autofree char *source = _cs_display_path (cs_sweep_get_source (sweep) != NULL
                                              ? cs_sweep_get_source (sweep) : "?");
  g_autofree char *destination = _cs_display_path (cs_sweep_get_destination (sweep) != NULL
                                                   ? cs_sweep_get_destination (sweep) : "?");
  guint recommended = cs_sweep_get_recommended (sweep, &sentence);
  guint repeats = cs_sweep_get_repeats (sweep);

  cs_sweep_ref (sweep);
  g_clear_pointer (&self->result, cs_sweep_unref);
  self->result = sweep;
  g_free (self->sentence);
  self->sentence = g_strdup (sentence != NULL ? sentence : "");

  if (recommended > 0)
    title = g_strdup_printf (ngettext ("%u Thread Recommended", "%u Threads Recommended", recommended),
                             recommended);
  else
    title = g_strdup (_("No Recommendation"));

  /* Translators: how a sweep was measured: source → destination, repeats, cache mode */
  detail = g_strdup_printf (ngettext ("%s → %s · %u repeat per count · cache %s · MB = 10⁶ bytes",
                                      "%s → %s · %u repeats per count · cache %s · MB = 10⁶ bytes",
                                      repeats),
                            source, destination, repeats,
                            cs_sweep_get_cache_mode (sweep) != NULL ? cs_sweep_get_cache_mode (sweep) : "?");

  gtk_label_set_label (self->result_title_label, title);
  gtk_label_set_label (self->recommendation_label,
                       sentence != NULL ? sentence
                                        : _("None of the copies could be timed, so there is nothing to recommend."));
  gtk_label_set_label (self->result_detail_label, detail);

  cs_sweep_chart_set_sweep (self->time_chart, sweep);
  cs_sweep_chart_set_sweep (self->rate_chart, sweep);
  cs_sweep_chart_set_sweep (self->files_chart, sweep);

  gtk_stack_set_visible_child_name (self->stack, "result");
  /* The stack hands the focus it had (on Stop Sweep) to the result's first
   * focusable widget, the sentence. */
  if (gtk_widget_get_focus_child (GTK_WIDGET (self)) != NULL)
    cs_sweep_page_focus_result (self);
}

static void
cs_sweep_page_toast (CsSweepPage *self,
                     const char  *title)
{
  g_autoptr(AdwToast) toast = adw_toast_new (title);

  _cs_toast_show (GTK_WIDGET (self), toast);
}

/* A finished sweep goes into the history, named after its start. */
static void
cs_sweep_page_keep (CsSweepPage *self,
                    CsSweep     *sweep)
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

      cs_sweep_page_toast (self, message);
      return;
    }

  cs_sweep_page_toast (self, _("Sweep kept in the history"));
}

/* main thread: the sweep has returned */
static void
sweep_done_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  SweepRun *run = user_data;
  CsSweepPage *self = run->page;
  CsSweep *sweep = run->sweep;
  g_autoptr(GError) error = NULL;

  cs_sweep_run_finish (sweep, result, &error);
  if (self == NULL)
    {
      sweep_run_free (run);
      return;
    }

  /* A last poll first: a copy shorter than the poll interval, or one that
   * ended since the last tick, has samples the page has not seen, and the
   * page would end with an empty live graph. */
  g_clear_handle_id (&self->poll_id, g_source_remove);
  cs_sweep_page_poll (self);
  self->run = NULL;
  g_clear_object (&self->current);
  g_clear_object (&self->watched);

  if (error == NULL)
    {
      cs_sweep_page_show_result (self, sweep);
      cs_sweep_page_keep (self, sweep);
    }
  else
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_autofree char *text = g_strdup_printf (_("The sweep stopped: %s"), error->message);

          gtk_label_set_label (self->error_label, text);
          gtk_widget_set_visible (GTK_WIDGET (self->error_label), TRUE);
        }
      gtk_stack_set_visible_child_name (self->stack, "setup");
    }

  cs_sweep_page_update_start (self);
  sweep_run_free (run);
}

static void
start_clicked_cb (CsSweepPage *self)
{
  cs_sweep_page_start (self);
}

static void
cancel_clicked_cb (CsSweepPage *self)
{
  cs_sweep_page_cancel (self);
}

static void
new_sweep_clicked_cb (CsSweepPage *self)
{
  gtk_stack_set_visible_child_name (self->stack, "setup");
}

static void
choose_source_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  CsSweepPage *self = CS_SWEEP_PAGE (widget);

  _cs_choose_folder (widget, _("Sweep Source"), self->cancellable,
                     (CsFolderChosenFunc) cs_sweep_page_set_source);
}

static void
choose_destination_action (GtkWidget  *widget,
                           const char *action_name,
                           GVariant   *parameter)
{
  CsSweepPage *self = CS_SWEEP_PAGE (widget);

  _cs_choose_folder (widget, _("Sweep Destination"), self->cancellable,
                     (CsFolderChosenFunc) cs_sweep_page_set_destination);
}

static GtkWindow *
cs_sweep_page_get_window (CsSweepPage *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  return GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL;
}

static void
generated_cb (CsSweepPage      *self,
              const char       *dir,
              CsGenerateDialog *dialog)
{
  g_autoptr(GFile) file = g_file_new_for_path (dir);

  cs_sweep_page_set_source (self, file);
}

/* A test set generated from here becomes the sweep's source. */
static void
generate_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  CsSweepPage *self = CS_SWEEP_PAGE (widget);
  CsGenerateDialog *dialog = cs_generate_dialog_new (cs_sweep_page_get_window (self));

  g_signal_connect_object (dialog, "generated", G_CALLBACK (generated_cb), self, G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
draw_sweep_cb (cairo_t  *cr,
               double    width,
               double    height,
               gpointer  user_data)
{
  CsSweepPage *self = user_data;
  CsPlotPalette palette;

  _cs_export_palette_init (&palette);
  cs_sweep_chart_draw_all (cr, width, height, &palette, self->result);
}

static GBytes *
render_sweep (GtkWidget   *widget,
              const char  *extension,
              GError     **error)
{
  CsSweepPage *self = CS_SWEEP_PAGE (widget);
  CsPlotFormat format;

  if (!cs_plot_format_from_string (extension, &format))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("“%s” is not a chart format; use png, svg or pdf"), extension);
      return NULL;
    }
  if (self->result == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("There is nothing to export"));
      return NULL;
    }

  return cs_plot_render (format, EXPORT_WIDTH, EXPORT_HEIGHT, draw_sweep_cb, self, error);
}

static void
exported_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  CsSweepPage *self = user_data;   /* alive unless the export was cancelled */
  g_autofree char *message = _cs_export_finish (result);

  if (message != NULL)
    cs_sweep_page_toast (self, message);
}

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  CsSweepPage *self = CS_SWEEP_PAGE (widget);
  const char *extension = g_variant_get_string (parameter, NULL);
  g_autofree char *name = NULL;

  if (self->result == NULL)
    return;

  name = _cs_export_name ("copyscope-sweep", cs_sweep_get_started (self->result), extension);
  _cs_export_async (widget, name, extension, render_sweep, self->cancellable, exported_cb, self);
}

static void
cs_sweep_page_dispose (GObject *object)
{
  CsSweepPage *self = CS_SWEEP_PAGE (object);
  GtkWidget *child;

  /* The sweep stops on its own; its callbacks no longer reach this page. */
  if (self->run != NULL)
    {
      self->run->page = NULL;
      g_cancellable_cancel (self->run->cancellable);
      self->run = NULL;
    }
  g_clear_handle_id (&self->poll_id, g_source_remove);
  g_clear_object (&self->current);

  gtk_widget_dispose_template (GTK_WIDGET (self), CS_TYPE_SWEEP_PAGE);

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  g_clear_object (&self->watched);
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (cs_sweep_page_parent_class)->dispose (object);
}

static void
cs_sweep_page_finalize (GObject *object)
{
  CsSweepPage *self = CS_SWEEP_PAGE (object);

  g_clear_object (&self->source);
  g_clear_object (&self->destination);
  g_clear_pointer (&self->result, cs_sweep_unref);
  g_clear_pointer (&self->sentence, g_free);

  G_OBJECT_CLASS (cs_sweep_page_parent_class)->finalize (object);
}

static void
cs_sweep_page_class_init (CsSweepPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cs_sweep_page_dispose;
  object_class->finalize = cs_sweep_page_finalize;
  widget_class->focus = cs_sweep_page_focus;

  /* Something to tell the user, such as that the sweep was kept. */
  g_type_ensure (CS_TYPE_FOLD_BOX);
  g_type_ensure (CS_TYPE_LIMIT_HINT);
  g_type_ensure (CS_TYPE_SWEEP_CHART);
  g_type_ensure (CS_TYPE_THROUGHPUT_GRAPH);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-sweep-page.ui");
  gtk_widget_class_bind_template_child (widget_class, CsSweepPage, stack);
  gtk_widget_class_bind_template_child (widget_class, CsSweepPage, error_label);
  gtk_widget_class_bind_template_child (widget_class, CsSweepPage, source_row);
  gtk_widget_class_bind_template_child (widget_class, CsSweepPage, destination_row);
  gtk_widget_class_bind_template_child (widget_class, CsSweepPage, check_1);
  gtk_widget_class_bind_template_child (widget_class, CsSweepPage, check_2);
  gtk_widget_class_bind_template_child (widget_class, CsSweepPage, check_4);
  gtk_widget_class_bind_template_child (widget_class, CsSweepPage, check_8);
  gtk_widget_class_bind_template_child (widget_class, CsSweepPage, check_16);
  gtk_widget_class_bind_template_child (widget_class, CsSweepPage, check_32);
  gtk_widget_class_bind_template_child (widget_class, CsSweepPage, check_64);
  gtk_widget_class_bind_template_child (widget_class, CsSweepPage, check_128);
  gtk_widget_class_bind_template_child (widget_class, CsSweepPage, repeats_spin);
  gtk_widget_class_bind_template_child (widget_class, CsSweepPage, cold_switch);
  gtk_widget_class_bind_template_child (widget_class, CsSweepPage, start_button);
  gtk_widget_class_bind_template_child (widget_class, CsSweepPage, run_title_label);
  gtk_widget_class_bind_template_child (widget_class, CsSweepPage, run_detail_label);
  gtk_widget_class_bind_template_child (widget_class, CsSweepPage, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, CsSweepPage, live_graph);
  gtk_widget_class_bind_template_child (widget_class, CsSweepPage, limit_hint);
  gtk_widget_class_bind_template_child (widget_class, CsSweepPage, result_title_label);
  gtk_widget_class_bind_template_child (widget_class, CsSweepPage, recommendation_label);
  gtk_widget_class_bind_template_child (widget_class, CsSweepPage, result_detail_label);
  gtk_widget_class_bind_template_child (widget_class, CsSweepPage, export_button);
  gtk_widget_class_bind_template_child (widget_class, CsSweepPage, time_chart);
  gtk_widget_class_bind_template_child (widget_class, CsSweepPage, rate_chart);
  gtk_widget_class_bind_template_child (widget_class, CsSweepPage, files_chart);
  gtk_widget_class_bind_template_callback (widget_class, threads_toggled_cb);
  gtk_widget_class_bind_template_callback (widget_class, start_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, cancel_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, new_sweep_clicked_cb);

  gtk_widget_class_install_action (widget_class, "sweep.choose-source", NULL, choose_source_action);
  gtk_widget_class_install_action (widget_class, "sweep.choose-destination", NULL,
                                   choose_destination_action);
  gtk_widget_class_install_action (widget_class, "sweep.generate", NULL, generate_action);
  gtk_widget_class_install_action (widget_class, "sweep.export", "s", export_action);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "sweeppage");
}

static void
cs_sweep_page_init (CsSweepPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_stack_set_visible_child_name (self->stack, "setup");

  self->cancellable = g_cancellable_new ();
}

void
cs_sweep_page_set_source (CsSweepPage *self,
                          GFile       *source)
{
  g_return_if_fail (CS_IS_SWEEP_PAGE (self));
  g_return_if_fail (G_IS_FILE (source));

  g_set_object (&self->source, source);
  show_folder (self->source_row, source);
  cs_sweep_page_update_start (self);
}

void
cs_sweep_page_set_destination (CsSweepPage *self,
                               GFile       *destination)
{
  g_return_if_fail (CS_IS_SWEEP_PAGE (self));
  g_return_if_fail (G_IS_FILE (destination));

  g_set_object (&self->destination, destination);
  show_folder (self->destination_row, destination);
  cs_sweep_page_update_start (self);
}

/* Ticks the boxes of @threads (counts that are offered) and no others. */
void
cs_sweep_page_set_threads (CsSweepPage *self,
                           const guint *threads,
                           guint        n_threads)
{
  GtkCheckButton *checks[G_N_ELEMENTS (thread_choices)];

  g_return_if_fail (CS_IS_SWEEP_PAGE (self));
  g_return_if_fail (threads != NULL || n_threads == 0);

  thread_checks (self, checks);
  for (guint i = 0; i < G_N_ELEMENTS (thread_choices); i++)
    {
      gboolean active = FALSE;

      for (guint j = 0; j < n_threads; j++)
        active |= threads[j] == thread_choices[i];
      gtk_check_button_set_active (checks[i], active);
    }
}

void
cs_sweep_page_set_repeats (CsSweepPage *self,
                           guint        repeats)
{
  g_return_if_fail (CS_IS_SWEEP_PAGE (self));

  gtk_spin_button_set_value (self->repeats_spin, repeats);
}

void
cs_sweep_page_set_cold (CsSweepPage *self,
                        gboolean     cold)
{
  g_return_if_fail (CS_IS_SWEEP_PAGE (self));

  gtk_switch_set_active (self->cold_switch, cold);
}

/* Starts the sweep as set up; FALSE when something is missing or one runs. */
gboolean
cs_sweep_page_start (CsSweepPage *self)
{
  g_autoptr(GArray) threads = NULL;
  g_autofree char *source = NULL;
  g_autofree char *destination = NULL;
  CsSweep *sweep;
  SweepRun *run;

  g_return_val_if_fail (CS_IS_SWEEP_PAGE (self), FALSE);

  threads = chosen_threads (self);
  if (self->run != NULL || self->source == NULL || self->destination == NULL || threads->len == 0)
    return FALSE;

  source = g_file_get_path (self->source);
  destination = g_file_get_path (self->destination);
  if (source == NULL || destination == NULL)
    {
      gtk_label_set_label (self->error_label, _("The source and the destination must be local or mounted folders."));
      gtk_widget_set_visible (GTK_WIDGET (self->error_label), TRUE);
      return FALSE;
    }

  gtk_widget_set_visible (GTK_WIDGET (self->error_label), FALSE);

  sweep = cs_sweep_new (source, destination);
  cs_sweep_set_threads (sweep, (const guint *) (gpointer) threads->data, threads->len);
  cs_sweep_set_repeats (sweep, (guint) gtk_spin_button_get_value_as_int (self->repeats_spin));
  cs_sweep_set_cold (sweep, gtk_switch_get_active (self->cold_switch));
  run = g_new0 (SweepRun, 1);
  run->page = self;
  run->sweep = sweep;
  run->cancellable = g_cancellable_new ();
  self->run = run;
  self->poll_id = g_timeout_add (POLL_MS, poll_cb, self);
  cs_sweep_run_async (sweep, sweep_job_cb, run, run->cancellable, sweep_done_cb, run);

  cs_throughput_graph_set_run (self->live_graph, NULL);
  cs_limit_hint_reset (self->limit_hint);
  gtk_progress_bar_set_fraction (self->progress_bar, 0);
  gtk_label_set_label (self->run_title_label, _("Preparing the first copy…"));
  gtk_label_set_label (self->run_detail_label, "");
  gtk_stack_set_visible_child_name (self->stack, "running");
  cs_sweep_page_update_start (self);

  return TRUE;
}

void
cs_sweep_page_cancel (CsSweepPage *self)
{
  g_return_if_fail (CS_IS_SWEEP_PAGE (self));

  if (self->run != NULL)
    g_cancellable_cancel (self->run->cancellable);
}

gboolean
cs_sweep_page_is_running (CsSweepPage *self)
{
  g_return_val_if_fail (CS_IS_SWEEP_PAGE (self), FALSE);

  return self->run != NULL;
}

/* Shows a finished sweep, such as one from the history. */
void
cs_sweep_page_show_sweep (CsSweepPage *self,
                          CsSweep     *sweep)
{
  g_return_if_fail (CS_IS_SWEEP_PAGE (self));
  g_return_if_fail (sweep != NULL);

  if (self->run != NULL)
    return;

  cs_sweep_page_show_result (self, sweep);
}

/* The sweep on the result page, or NULL. */
CsSweep *
cs_sweep_page_get_sweep (CsSweepPage *self)
{
  g_return_val_if_fail (CS_IS_SWEEP_PAGE (self), NULL);

  return self->result;
}

const char *
cs_sweep_page_get_recommendation (CsSweepPage *self)
{
  g_return_val_if_fail (CS_IS_SWEEP_PAGE (self), NULL);

  return self->sentence;
}
