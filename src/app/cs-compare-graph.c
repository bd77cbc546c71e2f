/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "cs-compare-graph.h"
#include "cs-format.h"
#include "cs-graph-style.h"
#include "cs-plot.h"

/*
 * Several runs overlaid on one time axis, aligned at their starts: MB/s written
 * and requests/s per run, one colour and dash per run, thread markers. The
 * runs are finished records, read once when set.
 */

typedef struct
{
  CsSample *samples;   /* the series' means, for the tooltip */
  guint     n_samples;
  GArray   *series;    /* of CsBucket: what the chart draws */
  GArray   *changes;   /* of CsThreadChange */
  GArray   *events;    /* of CsRunEvent */
  char     *label;
} GraphRun;

struct _CsCompareGraph
{
  GtkWidget        parent_instance;

  /* Owned */
  GArray          *runs;      /* of GraphRun */
  CsPlotRun       *plot_runs; /* borrow from runs */
  CsPlotPalette    palette;
  double           hover_t;
};

G_DEFINE_FINAL_TYPE (CsCompareGraph, cs_compare_graph, GTK_TYPE_WIDGET)

static void
graph_run_clear (gpointer data)
{
  GraphRun *run = data;

  g_clear_pointer (&run->samples, g_free);
  g_clear_pointer (&run->series, g_array_unref);
  g_clear_pointer (&run->changes, g_array_unref);
  g_clear_pointer (&run->events, g_array_unref);
  g_clear_pointer (&run->label, g_free);
}

static void
cs_compare_graph_get_options (CsCompareGraph *self,
                              CsPlotOptions  *options)
{
  options->t_min = 0;
  options->t_max = 0;
  options->hover_t = self->hover_t;
  options->show_markers = TRUE;
  options->axes = NULL;
}

static gboolean
cs_compare_graph_time_at (GtkWidget *widget,
                          double     x,
                          double    *out_t)
{
  CsCompareGraph *self = CS_COMPARE_GRAPH (widget);
  CsPlotOptions options = { 0 };

  if (self->runs->len == 0)
    return FALSE;

  cs_compare_graph_get_options (self, &options);

  return cs_plot_throughput_time_at (gtk_widget_get_width (GTK_WIDGET (self)),
                                     gtk_widget_get_height (GTK_WIDGET (self)),
                                     self->plot_runs, self->runs->len, &options, x, out_t);
}

static const CsSample *
sample_at (const GraphRun *run,
           double          t)
{
  const CsSample *best = NULL;

  for (guint i = 0; i < run->n_samples; i++)
    {
      if (best == NULL || ABS (run->samples[i].t - t) < ABS (best->t - t))
        best = &run->samples[i];
      if (run->samples[i].t > t)
        break;
    }

  return best;
}

static gboolean
query_tooltip_cb (CsCompareGraph *self,
                  int             x,
                  int             y,
                  gboolean        keyboard,
                  GtkTooltip     *tooltip)
{
  g_autoptr(GString) text = NULL;
  double t;

  if (keyboard || !cs_compare_graph_time_at (GTK_WIDGET (self), x, &t))
    return FALSE;

  text = g_string_new (NULL);
  /* Translators: the first line of the comparison graph's tooltip */
  g_string_append_printf (text, _("At %.1f s"), t);

  for (guint i = 0; i < self->runs->len; i++)
    {
      const GraphRun *run = &g_array_index (self->runs, GraphRun, i);
      const CsSample *s = sample_at (run, t);

      if (s == NULL || s->t + 1.0 < t)
        continue;

      /* Translators: one run in the comparison graph's tooltip, like "T1: 84.2 MB/s written · 1200 requests/s · 2 threads" */
      g_string_append_printf (text, _("\n%s: %.1f MB/s written · %.0f requests/s · %.0f threads"),
                              run->label,
                              s->values[CS_COUNTER_WRITE_TRANSFER_RATE],
                              s->values[CS_COUNTER_REQUEST_RATE],
                              s->values[CS_COUNTER_THREADS]);
    }

  gtk_tooltip_set_text (tooltip, text->str);

  return TRUE;
}

static void
cs_compare_graph_snapshot (GtkWidget   *widget,
                           GtkSnapshot *snapshot)
{
  CsCompareGraph *self = CS_COMPARE_GRAPH (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  CsPlotOptions options = { 0 };
  cairo_t *cr;

  if (width <= 0 || height <= 0)
    return;

  cs_compare_graph_get_options (self, &options);

  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  cs_plot_draw_throughput (cr, width, height, &self->palette,
                           self->plot_runs, self->runs->len, &options);
  cairo_destroy (cr);
}

static void
cs_compare_graph_measure (GtkWidget      *widget,
                          GtkOrientation  orientation,
                          int             for_size,
                          int            *minimum,
                          int            *natural,
                          int            *minimum_baseline,
                          int            *natural_baseline)
{
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = 240;
      *natural = 800;
    }
  else
    {
      *minimum = 300;
      *natural = 380;
    }
}

static void
cs_compare_graph_css_changed (GtkWidget         *widget,
                              GtkCssStyleChange *change)
{
  CsCompareGraph *self = CS_COMPARE_GRAPH (widget);

  GTK_WIDGET_CLASS (cs_compare_graph_parent_class)->css_changed (widget, change);

  _cs_graph_style_update_palette (widget, &self->palette);
  gtk_widget_queue_draw (widget);
}

static void
cs_compare_graph_finalize (GObject *object)
{
  CsCompareGraph *self = CS_COMPARE_GRAPH (object);

  g_clear_pointer (&self->plot_runs, g_free);
  g_clear_pointer (&self->runs, g_array_unref);

  G_OBJECT_CLASS (cs_compare_graph_parent_class)->finalize (object);
}

static void
cs_compare_graph_class_init (CsCompareGraphClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = cs_compare_graph_finalize;

  widget_class->snapshot = cs_compare_graph_snapshot;
  widget_class->measure = cs_compare_graph_measure;
  widget_class->css_changed = cs_compare_graph_css_changed;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-compare-graph.ui");
  gtk_widget_class_set_css_name (widget_class, "comparegraph");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
cs_compare_graph_init (CsCompareGraph *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->runs = g_array_new (FALSE, TRUE, sizeof (GraphRun));
  g_array_set_clear_func (self->runs, graph_run_clear);
  self->hover_t = -1;
  cs_plot_palette_init_light (&self->palette);

  g_signal_connect (self, "query-tooltip", G_CALLBACK (query_tooltip_cb), NULL);
  _cs_graph_style_track_hover (GTK_WIDGET (self), &self->hover_t, cs_compare_graph_time_at);
}

/* @labels: one per run, or NULL for each run's own label. */
void
cs_compare_graph_set_runs (CsCompareGraph     *self,
                           CsRun             **runs,
                           guint               n_runs,
                           const char * const *labels)
{
  g_autoptr(GString) description = NULL;

  g_return_if_fail (CS_IS_COMPARE_GRAPH (self));
  g_return_if_fail (runs != NULL || n_runs == 0);

  g_array_set_size (self->runs, 0);
  g_clear_pointer (&self->plot_runs, g_free);
  self->plot_runs = g_new0 (CsPlotRun, MAX (n_runs, 1));
  self->hover_t = -1;
  description = g_string_new (NULL);

  for (guint i = 0; i < n_runs; i++)
    {
      GraphRun run = { 0 };

      run.samples = cs_run_dup_samples (runs[i], &run.n_samples);
      run.series = cs_run_dup_series (runs[i]);
      run.changes = cs_run_dup_timeline (runs[i]);
      run.events = cs_run_dup_events (runs[i]);
      if (labels != NULL && labels[i] != NULL)
        run.label = g_strdup (labels[i]);
      else
        run.label = cs_run_dup_label (runs[i]);
      if (run.label == NULL)
        run.label = g_strdup_printf (_("Run %u"), i + 1);
      g_array_append_val (self->runs, run);

      {
        g_autofree char *speed = NULL;
        CsFigures figures;

        cs_run_get_figures (runs[i], &figures);
        speed = cs_figure_format_localized (CS_FIGURE_SPEED, figures.speed);
        /* Translators: part of the comparison graph's accessible description, like "T1: 84.2 MB/s. " */
        g_string_append_printf (description, _("%s: %s. "), run.label, speed);
      }
    }

  /* The array no longer grows: its elements stay where they are. */
  for (guint i = 0; i < self->runs->len; i++)
    {
      GraphRun *run = &g_array_index (self->runs, GraphRun, i);

      self->plot_runs[i].buckets = (const CsBucket *) (gpointer) run->series->data;
      self->plot_runs[i].n_buckets = run->series->len;
      self->plot_runs[i].changes = run->changes != NULL
                                   ? (const CsThreadChange *) (gpointer) run->changes->data : NULL;
      self->plot_runs[i].n_changes = run->changes != NULL ? run->changes->len : 0;
      self->plot_runs[i].events = run->events != NULL
                                  ? (const CsRunEvent *) (gpointer) run->events->data : NULL;
      self->plot_runs[i].n_events = run->events != NULL ? run->events->len : 0;
      self->plot_runs[i].label = run->label;
    }

  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description->str,
                                  -1);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

guint
cs_compare_graph_get_n_runs (CsCompareGraph *self)
{
  g_return_val_if_fail (CS_IS_COMPARE_GRAPH (self), 0);

  return self->runs->len;
}
