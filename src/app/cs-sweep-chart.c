/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <math.h>

#include <adwaita.h>
#include <glib/gi18n.h>

#include "cs-graph-style.h"
#include "cs-sweep-chart.h"

/*
 * One metric of a finished sweep against the thread count: the median of the
 * repeats with min–max bars, the recommended count highlighted.
 */

struct _CsSweepChart
{
  GtkWidget         parent_instance;

  /* Owned */
  CsPlotSweepPoint *points;
  guint             n_points;
  guint             recommended;
  char             *recommended_label;
  CsPlotPalette     palette;

  CsSweepMetric     metric;
};

G_DEFINE_FINAL_TYPE (CsSweepChart, cs_sweep_chart, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_METRIC,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static const char *
metric_title (CsSweepMetric metric)
{
  switch (metric)
    {
    case CS_SWEEP_METRIC_TIME:
      return _("Time");
    case CS_SWEEP_METRIC_MB_PER_SECOND:
      return _("Copy Speed");
    case CS_SWEEP_METRIC_FILES_PER_SECOND:
      return _("Files per Second");
    case CS_SWEEP_N_METRICS:
    default:
      g_assert_not_reached ();
    }
}

static const char *
metric_unit (CsSweepMetric metric)
{
  switch (metric)
    {
    case CS_SWEEP_METRIC_TIME:
      return _("s");
    case CS_SWEEP_METRIC_MB_PER_SECOND:
      return _("MB/s");
    case CS_SWEEP_METRIC_FILES_PER_SECOND:
      return _("files/s");
    case CS_SWEEP_N_METRICS:
    default:
      g_assert_not_reached ();
    }
}

static CsPlotSweepPoint *
points_for (CsSweep       *sweep,
            CsSweepMetric  metric,
            guint         *n_points)
{
  g_autofree CsSweepStat *stats = cs_sweep_dup_stats (sweep, n_points);
  CsPlotSweepPoint *points = g_new0 (CsPlotSweepPoint, MAX (*n_points, 1));

  for (guint i = 0; i < *n_points; i++)
    {
      const double *values;

      switch (metric)
        {
        case CS_SWEEP_METRIC_TIME:
          values = stats[i].seconds;
          break;
        case CS_SWEEP_METRIC_MB_PER_SECOND:
          values = stats[i].mb_per_second;
          break;
        case CS_SWEEP_METRIC_FILES_PER_SECOND:
        case CS_SWEEP_N_METRICS:
        default:
          values = stats[i].files_per_second;
          break;
        }

      points[i].threads = stats[i].threads;
      points[i].median = values[0];
      points[i].min = values[1];
      points[i].max = values[2];
    }

  return points;
}

/* Why the marked count, in words every chart of the sweep can say: the rates
 * follow the median time the recommendation reads (cs_sweep_dup_stats). */
static char *
recommended_label (CsSweep *sweep,
                   guint    recommended)
{
  g_autofree CsSweepStat *stats = NULL;
  double best = G_MAXDOUBLE, mine = 0;
  guint n = 0;

  if (recommended == 0)
    return NULL;

  stats = cs_sweep_dup_stats (sweep, &n);
  for (guint i = 0; i < n; i++)
    {
      best = MIN (best, stats[i].seconds[0]);
      if (stats[i].threads == recommended)
        mine = stats[i].seconds[0];
    }

  if (mine <= best)
    /* Translators: the mark on a sweep chart at the count with the best median time */
    return g_strdup_printf (_("recommended: %u, the fastest"), recommended);
  /* Translators: the mark on a sweep chart at the fewest threads that come
   * close to the fastest, like "recommended: 8, within 5 % of the best" */
  return g_strdup_printf (_("recommended: %u, within %.0f %% of the best"), recommended,
                          CS_SWEEP_TOLERANCE * 100);
}

void
cs_sweep_chart_draw_all (cairo_t             *cr,
                         double               width,
                         double               height,
                         const CsPlotPalette *palette,
                         CsSweep             *sweep)
{
  g_autofree char *label = NULL;
  guint recommended;
  double third = width / CS_SWEEP_N_METRICS;

  g_return_if_fail (cr != NULL);
  g_return_if_fail (palette != NULL);
  g_return_if_fail (sweep != NULL);

  recommended = cs_sweep_get_recommended (sweep, NULL);
  label = recommended_label (sweep, recommended);

  cairo_save (cr);
  cairo_set_source_rgba (cr, palette->background.r, palette->background.g,
                         palette->background.b, palette->background.a);
  cairo_paint (cr);
  cairo_restore (cr);

  for (guint m = 0; m < CS_SWEEP_N_METRICS; m++)
    {
      g_autofree CsPlotSweepPoint *points = NULL;
      guint n_points = 0;

      points = points_for (sweep, (CsSweepMetric) m, &n_points);

      cairo_save (cr);
      cairo_translate (cr, third * m, 0);
      cairo_rectangle (cr, 0, 0, third, height);
      cairo_clip (cr);
      cs_plot_draw_sweep (cr, third, height, palette,
                          metric_title ((CsSweepMetric) m), metric_unit ((CsSweepMetric) m),
                          points, n_points, recommended, label);
      cairo_restore (cr);
    }
}

static void
cs_sweep_chart_snapshot (GtkWidget   *widget,
                         GtkSnapshot *snapshot)
{
  CsSweepChart *self = CS_SWEEP_CHART (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  cairo_t *cr;

  if (width <= 0 || height <= 0)
    return;

  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  cs_plot_draw_sweep (cr, width, height, &self->palette,
                      metric_title (self->metric), metric_unit (self->metric),
                      self->points, self->n_points, self->recommended, self->recommended_label);
  cairo_destroy (cr);
}

static void
cs_sweep_chart_measure (GtkWidget      *widget,
                        GtkOrientation  orientation,
                        int             for_size,
                        int            *minimum,
                        int            *natural,
                        int            *minimum_baseline,
                        int            *natural_baseline)
{
  CsSweepChart *self = CS_SWEEP_CHART (widget);

  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      /* Never so narrow that the recommendation's label leaves the plot;
       * side by side, the charts fold first. */
      double label = cs_plot_sweep_min_width (&self->palette, self->recommended,
                                              self->recommended_label);

      *minimum = MAX (200, (int) ceil (label));
      *natural = MAX (320, *minimum);
    }
  else
    {
      *minimum = 220;
      *natural = 260;
    }
}

static void
cs_sweep_chart_css_changed (GtkWidget         *widget,
                            GtkCssStyleChange *change)
{
  CsSweepChart *self = CS_SWEEP_CHART (widget);

  GTK_WIDGET_CLASS (cs_sweep_chart_parent_class)->css_changed (widget, change);

  _cs_graph_style_update_palette (widget, &self->palette);
  gtk_widget_queue_draw (widget);
}

static void
cs_sweep_chart_finalize (GObject *object)
{
  CsSweepChart *self = CS_SWEEP_CHART (object);

  g_clear_pointer (&self->points, g_free);
  g_clear_pointer (&self->recommended_label, g_free);

  G_OBJECT_CLASS (cs_sweep_chart_parent_class)->finalize (object);
}

static void
cs_sweep_chart_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  CsSweepChart *self = CS_SWEEP_CHART (object);

  switch (prop_id)
    {
    case PROP_METRIC:
      g_value_set_uint (value, self->metric);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cs_sweep_chart_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  CsSweepChart *self = CS_SWEEP_CHART (object);

  switch (prop_id)
    {
    case PROP_METRIC:
      if (self->metric != g_value_get_uint (value))
        {
          self->metric = g_value_get_uint (value);
          gtk_widget_queue_draw (GTK_WIDGET (self));
          g_object_notify_by_pspec (object, pspec);
        }
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cs_sweep_chart_class_init (CsSweepChartClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = cs_sweep_chart_finalize;
  object_class->get_property = cs_sweep_chart_get_property;
  object_class->set_property = cs_sweep_chart_set_property;

  widget_class->snapshot = cs_sweep_chart_snapshot;
  widget_class->measure = cs_sweep_chart_measure;
  widget_class->css_changed = cs_sweep_chart_css_changed;

  /* A CsSweepMetric: 0 time, 1 MB/s, 2 files/s. */
  properties[PROP_METRIC] =
    g_param_spec_uint ("metric", NULL, NULL,
                       0, CS_SWEEP_N_METRICS - 1, CS_SWEEP_METRIC_TIME,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-sweep-chart.ui");
  gtk_widget_class_set_css_name (widget_class, "sweepchart");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
cs_sweep_chart_init (CsSweepChart *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  cs_plot_palette_init_light (&self->palette);
}

void
cs_sweep_chart_set_sweep (CsSweepChart *self,
                          CsSweep      *sweep)
{
  g_autoptr(GString) description = NULL;

  g_return_if_fail (CS_IS_SWEEP_CHART (self));

  g_clear_pointer (&self->points, g_free);
  self->n_points = 0;
  self->recommended = 0;
  g_clear_pointer (&self->recommended_label, g_free);

  if (sweep != NULL)
    {
      self->points = points_for (sweep, self->metric, &self->n_points);
      self->recommended = cs_sweep_get_recommended (sweep, NULL);
      self->recommended_label = recommended_label (sweep, self->recommended);
    }

  description = g_string_new (NULL);
  for (guint i = 0; i < self->n_points; i++)
    /* Translators: one point of a sweep chart for screen readers, like "8 threads: 12.5 MB/s. " */
    g_string_append_printf (description, _("%u threads: %.3g %s. "),
                            self->points[i].threads, self->points[i].median,
                            metric_unit (self->metric));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, metric_title (self->metric),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description->str,
                                  -1);
  /* Its label, and so its minimum width, may have changed. */
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

guint
cs_sweep_chart_get_recommended (CsSweepChart *self)
{
  g_return_val_if_fail (CS_IS_SWEEP_CHART (self), 0);

  return self->recommended;
}

const char *
cs_sweep_chart_get_label (CsSweepChart *self)
{
  g_return_val_if_fail (CS_IS_SWEEP_CHART (self), NULL);

  return self->recommended_label;
}
