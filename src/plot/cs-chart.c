/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-plot"

#include "config.h"

#include "cs-chart.h"

typedef struct {
  CsPlotPalette     palette;
  const CsPlotRun  *runs;
  guint             n_runs;
} Chart;

static void
draw_chart (cairo_t  *cr,
            double    width,
            double    height,
            gpointer  user_data)
{
  Chart *chart = user_data;
  CsPlotOptions options = { 0 };

  options.hover_t = -1;
  options.show_markers = TRUE;

  cs_plot_draw_throughput (cr, width, height, &chart->palette,
                           chart->runs, chart->n_runs, &options);
}

GBytes *
cs_chart_render_throughput (CsPlotFormat      format,
                            double            width,
                            double            height,
                            const CsPlotRun  *runs,
                            guint             n_runs,
                            GError          **error)
{
  Chart chart = { .runs = runs, .n_runs = n_runs };

  g_return_val_if_fail (runs != NULL || n_runs == 0, NULL);

  /* Exports are printed and pasted into documents: always the light palette. */
  cs_plot_palette_init_light (&chart.palette);

  return cs_plot_render (format, width, height, draw_chart, &chart, error);
}
