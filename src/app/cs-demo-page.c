/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <errno.h>

#include <adwaita.h>
#include <glib/gi18n.h>

#include "cs-demo-page.h"
#include "cs-file-chooser.h"
#include "cs-format.h"
#include "cs-history.h"
#include "cs-page-task.h"
#include "cs-throughput-graph.h"
#include "cs-toast.h"

/*
 * The help-desk demonstration: one big file against many small ones of the
 * same total size, with the two graphs side by side and the result in plain
 * words. The demonstration blocks, so it runs as a CsPageTask on a thread of
 * its own, and the graphs follow the current copy from the task's polls. With
 * T1/T2 on, "compare" hands the 1- and 2-thread runs to the window for the
 * comparison page. Choosing where the copies go is the page's own action.
 */

#define POLL_MS        150
#define MEGABYTE       1000000

/* What the demonstration's thread works with; read-only while it runs. */
typedef struct
{
  CsDemo *demo;
  char   *work_dir;
  char   *destination;
} DemoWork;

struct _CsDemoPage
{
  GtkWidget          parent_instance;

  /* Template widgets */
  GtkSpinButton     *size_spin;
  GtkSwitch         *t1_t2_switch;
  AdwActionRow      *destination_row;
  GtkButton         *start_button;
  GtkButton         *stop_button;
  GtkButton         *compare_button;
  GtkWidget         *status_box;
  GtkSpinner        *spinner;
  GtkLabel          *status_label;
  GtkLabel          *error_label;
  GtkWidget         *explanation_box;
  GtkLabel          *explanation_label;
  GtkLabel          *big_label;
  GtkLabel          *small_label;
  CsThroughputGraph *big_graph;
  CsThroughputGraph *small_graph;

  /* Owned */
  GFile             *destination;
  CsDemo            *demo;          /* the last one that finished */
  CsJob             *watched;
  guint              n_shown;
  GCancellable      *cancellable;   /* the chooser, while it is open */

  /* Borrowed: the running demonstration, until it hands back */
  CsPageTask        *task;
};

G_DEFINE_FINAL_TYPE (CsDemoPage, cs_demo_page, GTK_TYPE_WIDGET)

enum {
  COMPARE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
demo_work_free (gpointer data)
{
  DemoWork *work = data;

  g_clear_pointer (&work->demo, cs_demo_unref);
  g_clear_pointer (&work->work_dir, g_free);
  g_clear_pointer (&work->destination, g_free);
  g_free (work);
}

static char *
default_destination (void)
{
  return g_build_filename (g_get_user_cache_dir (), "copyscope", "demo-copies", NULL);
}

static char *
describe_run (CsRun *run)
{
  g_autofree char *duration = NULL;
  g_autofree char *files = NULL;
  g_autofree char *speed = NULL;
  CsFigures figures;

  if (run == NULL)
    return g_strdup (_("Not copied yet"));

  /* The figures every other view gives this run (cs-figures.h): not the
   * write counter's average over the samples, nor a duration in whole
   * seconds, which would make the summary and History disagree with it. */
  cs_run_get_figures (run, &figures);
  files = _cs_format_count (figures.files);
  duration = cs_figure_format_localized (CS_FIGURE_DURATION, figures.duration);
  speed = cs_figure_format_localized (CS_FIGURE_SPEED, figures.speed);

  /* Translators: under a demo graph: files copied, the time it took and the
   * copy speed, like "1 file in 0.31 s · 210.5 MB/s" */
  return g_strdup_printf (ngettext ("%s file in %s · %s", "%s files in %s · %s",
                                    (gulong) figures.files),
                          files, duration, speed);
}

static void
cs_demo_page_set_running (CsDemoPage *self,
                          gboolean    running)
{
  gtk_widget_set_visible (GTK_WIDGET (self->start_button), !running);
  gtk_widget_set_visible (GTK_WIDGET (self->stop_button), running);
  gtk_widget_set_visible (self->status_box, running);
  gtk_spinner_set_spinning (self->spinner, running);
  gtk_widget_set_sensitive (GTK_WIDGET (self->size_spin), !running);
  gtk_widget_set_sensitive (GTK_WIDGET (self->t1_t2_switch), !running);
  if (running)
    gtk_widget_set_visible (GTK_WIDGET (self->compare_button), FALSE);
}

/* main thread: follows the copy the demonstration runs now */
static void
demo_poll_cb (gpointer  owner,
              CsJob    *job,
              guint     step,
              guint     n_steps)
{
  CsDemoPage *self = owner;
  CsDemoRun which = (CsDemoRun) step;
  g_autofree CsSample *samples = NULL;
  g_autofree char *status = NULL;
  CsThroughputGraph *graph;
  guint n_samples = 0;
  CsRun *run;

  switch (which)
    {
    case CS_DEMO_BIG:
      status = g_strdup (_("Copying one big file…"));
      break;
    case CS_DEMO_SMALL:
      status = g_strdup (_("Copying the small files…"));
      break;
    case CS_DEMO_SMALL_T1:
      status = g_strdup (_("Copying the small files with 1 thread…"));
      break;
    case CS_DEMO_SMALL_T2:
      status = g_strdup (_("Copying the small files with 2 threads…"));
      break;
    case CS_DEMO_N_RUNS:
    default:
      g_assert_not_reached ();
    }
  gtk_label_set_label (self->status_label, status);

  graph = which == CS_DEMO_BIG ? self->big_graph : self->small_graph;
  run = cs_job_get_run (job);
  if (job != self->watched)
    {
      g_set_object (&self->watched, job);
      self->n_shown = 0;
      cs_throughput_graph_set_run (graph, NULL);
      gtk_label_set_label (which == CS_DEMO_BIG ? self->big_label : self->small_label,
                           _("Copying…"));
    }

  samples = cs_run_dup_samples (run, &n_samples);
  if (n_samples > 0 && self->n_shown == 0)
    cs_throughput_graph_set_run (graph, run);
  else
    for (guint i = self->n_shown; i < n_samples; i++)
      cs_throughput_graph_push_sample (graph, &samples[i]);
  self->n_shown = n_samples;
}

/* the demonstration's thread */
static void
demo_run_cb (CsDemo    *demo,
             CsDemoRun  which,
             CsJob     *job,
             gpointer   user_data)
{
  _cs_page_task_set_job (user_data, job, which, CS_DEMO_N_RUNS);
}

static void
cs_demo_page_show_result (CsDemoPage *self,
                          CsDemo     *demo)
{
  g_autofree char *explanation = cs_demo_explain (demo);
  g_autofree char *big = describe_run (cs_demo_get_run (demo, CS_DEMO_BIG));
  g_autofree char *small = describe_run (cs_demo_get_run (demo, CS_DEMO_SMALL));

  cs_throughput_graph_set_run (self->big_graph, cs_demo_get_run (demo, CS_DEMO_BIG));
  cs_throughput_graph_set_run (self->small_graph, cs_demo_get_run (demo, CS_DEMO_SMALL));
  /* Side by side on one time axis, so the shorter copy looks shorter. */
  {
    double span = 0;

    for (CsDemoRun i = CS_DEMO_BIG; i <= CS_DEMO_SMALL; i++)
      if (cs_demo_get_run (demo, i) != NULL)
        span = MAX (span, cs_run_get_duration (cs_demo_get_run (demo, i)));
    cs_throughput_graph_set_time_span (self->big_graph, span);
    cs_throughput_graph_set_time_span (self->small_graph, span);
  }
  gtk_label_set_label (self->big_label, big);
  gtk_label_set_label (self->small_label, small);
  gtk_label_set_label (self->explanation_label, explanation);
  gtk_widget_set_visible (self->explanation_box, TRUE);
  gtk_widget_set_visible (GTK_WIDGET (self->compare_button),
                          cs_demo_get_run (demo, CS_DEMO_SMALL_T1) != NULL &&
                          cs_demo_get_run (demo, CS_DEMO_SMALL_T2) != NULL);
}

/* The demonstration's copies are runs like any other: in History, to open
 * and compare again later. */
static void
cs_demo_page_keep_runs (CsDemoPage *self,
                        CsDemo     *demo)
{
  for (guint i = 0; i < CS_DEMO_N_RUNS; i++)
    {
      CsRun *run = cs_demo_get_run (demo, (CsDemoRun) i);
      g_autoptr(GError) error = NULL;
      g_autofree char *path = NULL;

      if (run == NULL)
        continue;

      path = cs_history_save (run, &error);
      if (path == NULL)
        {
          g_autofree char *message = g_strdup_printf (_("Could not keep the run in the history: %s"),
                                                      error->message);
          g_autoptr(AdwToast) toast = adw_toast_new (message);

          _cs_toast_show (GTK_WIDGET (self), toast);
          return;
        }
    }
}

/* main thread: the demonstration's thread hands the task back */
static void
demo_done_cb (gpointer      owner,
              gpointer      data,
              const GError *error)
{
  CsDemoPage *self = owner;
  DemoWork *work = data;

  self->task = NULL;
  g_clear_object (&self->watched);
  cs_demo_page_set_running (self, FALSE);

  if (error == NULL)
    {
      g_clear_pointer (&self->demo, cs_demo_unref);
      self->demo = cs_demo_ref (work->demo);
      cs_demo_page_show_result (self, self->demo);
      cs_demo_page_keep_runs (self, self->demo);
    }
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_autofree char *text = g_strdup_printf (_("The demonstration stopped: %s"), error->message);

      gtk_label_set_label (self->error_label, text);
      gtk_widget_set_visible (GTK_WIDGET (self->error_label), TRUE);
    }
}

/* the demonstration's thread */
static gboolean
demo_run (CsPageTask    *task,
          gpointer       data,
          GCancellable  *cancellable,
          GError       **error)
{
  DemoWork *work = data;

  if (g_mkdir_with_parents (work->destination, 0755) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "%s: %s", work->destination, g_strerror (saved));
      return FALSE;
    }

  return cs_demo_run_sync (work->demo, work->work_dir, work->destination,
                           demo_run_cb, task, cancellable, error);
}

static void
start_clicked_cb (CsDemoPage *self)
{
  cs_demo_page_start (self);
}

static void
stop_clicked_cb (CsDemoPage *self)
{
  cs_demo_page_cancel (self);
}

static void
compare_clicked_cb (CsDemoPage *self)
{
  cs_demo_page_compare (self);
}

static void
choose_destination_action (GtkWidget  *widget,
                           const char *action_name,
                           GVariant   *parameter)
{
  CsDemoPage *self = CS_DEMO_PAGE (widget);

  _cs_choose_folder (widget, _("Copy the Demonstration Into"), self->cancellable,
                     (CsFolderChosenFunc) cs_demo_page_set_destination);
}

static void
cs_demo_page_dispose (GObject *object)
{
  CsDemoPage *self = CS_DEMO_PAGE (object);
  GtkWidget *child;

  /* The thread finishes on its own; its task no longer calls back here. */
  g_clear_pointer (&self->task, _cs_page_task_abandon);

  gtk_widget_dispose_template (GTK_WIDGET (self), CS_TYPE_DEMO_PAGE);

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  g_clear_object (&self->watched);
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (cs_demo_page_parent_class)->dispose (object);
}

static void
cs_demo_page_finalize (GObject *object)
{
  CsDemoPage *self = CS_DEMO_PAGE (object);

  g_clear_object (&self->destination);
  g_clear_pointer (&self->demo, cs_demo_unref);

  G_OBJECT_CLASS (cs_demo_page_parent_class)->finalize (object);
}

static void
cs_demo_page_class_init (CsDemoPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cs_demo_page_dispose;
  object_class->finalize = cs_demo_page_finalize;

  /* The runs with 1 and with 2 threads, labelled T1 and T2. */
  signals[COMPARE] =
    g_signal_new ("compare",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_PTR_ARRAY);

  /* Something to tell the user. */
  g_type_ensure (CS_TYPE_THROUGHPUT_GRAPH);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-demo-page.ui");
  gtk_widget_class_bind_template_child (widget_class, CsDemoPage, size_spin);
  gtk_widget_class_bind_template_child (widget_class, CsDemoPage, t1_t2_switch);
  gtk_widget_class_bind_template_child (widget_class, CsDemoPage, destination_row);
  gtk_widget_class_bind_template_child (widget_class, CsDemoPage, start_button);
  gtk_widget_class_bind_template_child (widget_class, CsDemoPage, stop_button);
  gtk_widget_class_bind_template_child (widget_class, CsDemoPage, compare_button);
  gtk_widget_class_bind_template_child (widget_class, CsDemoPage, status_box);
  gtk_widget_class_bind_template_child (widget_class, CsDemoPage, spinner);
  gtk_widget_class_bind_template_child (widget_class, CsDemoPage, status_label);
  gtk_widget_class_bind_template_child (widget_class, CsDemoPage, error_label);
  gtk_widget_class_bind_template_child (widget_class, CsDemoPage, explanation_box);
  gtk_widget_class_bind_template_child (widget_class, CsDemoPage, explanation_label);
  gtk_widget_class_bind_template_child (widget_class, CsDemoPage, big_label);
  gtk_widget_class_bind_template_child (widget_class, CsDemoPage, small_label);
  gtk_widget_class_bind_template_child (widget_class, CsDemoPage, big_graph);
  gtk_widget_class_bind_template_child (widget_class, CsDemoPage, small_graph);
  gtk_widget_class_bind_template_callback (widget_class, start_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, stop_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, compare_clicked_cb);

  gtk_widget_class_install_action (widget_class, "demo.choose-destination", NULL,
                                   choose_destination_action);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "demopage");
}

static void
cs_demo_page_init (CsDemoPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->cancellable = g_cancellable_new ();
}

void
cs_demo_page_set_size_mb (CsDemoPage *self,
                          guint       megabytes)
{
  g_return_if_fail (CS_IS_DEMO_PAGE (self));

  gtk_spin_button_set_value (self->size_spin, megabytes);
}

void
cs_demo_page_set_t1_t2 (CsDemoPage *self,
                        gboolean    enabled)
{
  g_return_if_fail (CS_IS_DEMO_PAGE (self));

  gtk_switch_set_active (self->t1_t2_switch, enabled);
}

void
cs_demo_page_set_destination (CsDemoPage *self,
                              GFile      *destination)
{
  g_autofree char *path = NULL;
  g_autofree char *display = NULL;

  g_return_if_fail (CS_IS_DEMO_PAGE (self));
  g_return_if_fail (G_IS_FILE (destination));

  g_set_object (&self->destination, destination);
  path = g_file_get_path (destination);
  if (path != NULL)
    {
      display = _cs_display_path (path);
      adw_action_row_set_subtitle (self->destination_row, display);
    }
}

/* Starts the demonstration; FALSE when one already runs. */
gboolean
cs_demo_page_start (CsDemoPage *self)
{
  DemoWork *work;
  guint64 megabytes;

  g_return_val_if_fail (CS_IS_DEMO_PAGE (self), FALSE);

  if (self->task != NULL)
    return FALSE;

  megabytes = (guint64) gtk_spin_button_get_value_as_int (self->size_spin);

  work = g_new0 (DemoWork, 1);
  work->demo = cs_demo_new (megabytes * MEGABYTE);
  cs_demo_set_t1_t2 (work->demo, gtk_switch_get_active (self->t1_t2_switch));
  work->work_dir = g_build_filename (g_get_user_cache_dir (), "copyscope", "demo", NULL);
  work->destination = self->destination != NULL ? g_file_get_path (self->destination) : NULL;
  if (work->destination == NULL)
    work->destination = default_destination ();

  gtk_widget_set_visible (GTK_WIDGET (self->error_label), FALSE);
  gtk_widget_set_visible (self->explanation_box, FALSE);
  gtk_label_set_label (self->status_label, _("Writing the test files…"));
  gtk_label_set_label (self->big_label, _("Waiting"));
  gtk_label_set_label (self->small_label, _("Waiting"));
  cs_throughput_graph_set_run (self->big_graph, NULL);
  cs_throughput_graph_set_run (self->small_graph, NULL);
  cs_throughput_graph_set_time_span (self->big_graph, 0);
  cs_throughput_graph_set_time_span (self->small_graph, 0);
  cs_demo_page_set_running (self, TRUE);

  self->task = _cs_page_task_start ("cs-demo", self, POLL_MS, work, demo_work_free,
                                    demo_run, demo_poll_cb, demo_done_cb);

  return TRUE;
}

void
cs_demo_page_cancel (CsDemoPage *self)
{
  g_return_if_fail (CS_IS_DEMO_PAGE (self));

  if (self->task != NULL)
    _cs_page_task_cancel (self->task);
}

gboolean
cs_demo_page_is_running (CsDemoPage *self)
{
  g_return_val_if_fail (CS_IS_DEMO_PAGE (self), FALSE);

  return self->task != NULL;
}

/* The last demonstration that ran to its end, or NULL. */
CsDemo *
cs_demo_page_get_demo (CsDemoPage *self)
{
  g_return_val_if_fail (CS_IS_DEMO_PAGE (self), NULL);

  return self->demo;
}

const char *
cs_demo_page_get_explanation (CsDemoPage *self)
{
  g_return_val_if_fail (CS_IS_DEMO_PAGE (self), NULL);

  if (!gtk_widget_get_visible (self->explanation_box))
    return NULL;

  return gtk_label_get_label (self->explanation_label);
}

/* Hands the 1- and 2-thread runs to whoever compares them. */
void
cs_demo_page_compare (CsDemoPage *self)
{
  g_autoptr(GPtrArray) runs = NULL;
  CsRun *t1, *t2;

  g_return_if_fail (CS_IS_DEMO_PAGE (self));

  if (self->demo == NULL)
    return;

  t1 = cs_demo_get_run (self->demo, CS_DEMO_SMALL_T1);
  t2 = cs_demo_get_run (self->demo, CS_DEMO_SMALL_T2);
  if (t1 == NULL || t2 == NULL)
    return;

  runs = g_ptr_array_new_with_free_func ((GDestroyNotify) cs_run_unref);
  g_ptr_array_add (runs, cs_run_ref (t1));
  g_ptr_array_add (runs, cs_run_ref (t2));
  g_signal_emit (self, signals[COMPARE], 0, runs);
}
