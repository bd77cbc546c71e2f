/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-plot"

#include "config.h"

#include <math.h>

#include <glib/gi18n-lib.h>

#include "cs-plot.h"
#include "cs-plot-private.h"

/* The throughput chart: MB/s over requests/s on one time axis, with the
 * markers, the limit line and the read-out at the pointer. */

/* A whole run's axis is its length, down to a tenth of a second. */
#define MIN_TIME_SPAN   0.1
#define EMPTY_TIME_SPAN 10.0

static void
draw_time_grid (CsPlotPainter    *p,
                const CsPlotRect *plot,
                double            t_lo,
                double            t_hi,
                const double     *ticks,
                guint             n_ticks)
{
  cairo_t *cr = p->cr;

  cairo_save (cr);
  cairo_set_line_width (cr, 1.0);
  _cs_plot_set_color (cr, &p->palette->grid, 1.0);
  for (guint i = 0; i < n_ticks; i++)
    {
      double x = _cs_plot_time_to_x (plot, t_lo, t_hi, ticks[i]);

      /* The plot's left edge already reads as the axis. */
      if (x < plot->x + 1.0)
        continue;
      _cs_plot_crisp_vline (cr, x, plot->y, plot->y + plot->height);
    }
  cairo_stroke (cr);
  cairo_restore (cr);
}

static void
draw_time_labels (CsPlotPainter    *p,
                  const CsPlotRect *plot,
                  double            width,
                  double            t_lo,
                  double            t_hi,
                  const double     *ticks,
                  guint             n_ticks,
                  double            step,
                  double            divisor,
                  double            y)
{
  double last_right = -G_MAXDOUBLE;

  for (guint i = 0; i < n_ticks; i++)
    {
      char label[CS_PLOT_LABEL_SIZE];
      double x = _cs_plot_time_to_x (plot, t_lo, t_hi, ticks[i]);
      double label_width;
      double left;

      /* The ticks are in seconds; their labels in the axis's unit. */
      _cs_plot_format_number (label, sizeof label, ticks[i] / divisor, step);
      _cs_plot_painter_text_size (p, label, FALSE, &label_width, NULL);

      left = CLAMP (x - label_width / 2.0, CS_PLOT_PADDING, width - CS_PLOT_PADDING - label_width);
      if (left < last_right + 4.0)
        continue;

      _cs_plot_painter_text (p, label, FALSE, &p->palette->foreground, 0.8, left, y, 0.0, 0.0);
      last_right = left + label_width;
    }
}

static gboolean
runs_time_range (const CsPlotRun     *runs,
                 guint                n_runs,
                 const CsPlotOptions *options,
                 double              *out_lo,
                 double              *out_hi)
{
  double t_end = -G_MAXDOUBLE;
  gboolean have_samples = FALSE;

  for (guint r = 0; r < n_runs; r++)
    {
      for (guint i = 0; i < _cs_plot_run_len (&runs[r]); i++)
        {
          double t = _cs_plot_run_at (&runs[r], i)->t;

          if (isfinite (t))
            {
              t_end = MAX (t_end, t);
              have_samples = TRUE;
            }
        }
    }

  if (options != NULL && isfinite (options->t_min) && isfinite (options->t_max) &&
      options->t_max > options->t_min)
    {
      *out_lo = options->t_min;
      *out_hi = options->t_max;
      return have_samples;
    }

  *out_lo = 0.0;
  if (!have_samples)
    *out_hi = EMPTY_TIME_SPAN;
  else
    *out_hi = MAX (t_end, MIN_TIME_SPAN);

  return have_samples;
}

gboolean
cs_plot_throughput_time_range (const CsPlotRun     *runs,
                               guint                n_runs,
                               const CsPlotOptions *options,
                               double              *out_lo,
                               double              *out_hi)
{
  g_return_val_if_fail (runs != NULL || n_runs == 0, FALSE);

  return runs_time_range (runs, n_runs, options, out_lo, out_hi);
}

static gboolean
throughput_plot_columns (double  width,
                         double *out_left,
                         double *out_right)
{
  double left = CS_PLOT_PADDING + CS_PLOT_LEFT_GUTTER;
  double right = width - CS_PLOT_PADDING - CS_PLOT_RIGHT_GUTTER;

  *out_left = left;
  *out_right = right;

  return right - left >= CS_PLOT_MIN_PLOT_SIZE;
}

gboolean
cs_plot_throughput_time_at (double               width,
                            double               height,
                            const CsPlotRun     *runs,
                            guint                n_runs,
                            const CsPlotOptions *options,
                            double               x,
                            double              *out_t)
{
  double left, right;
  double t_lo, t_hi;

  g_return_val_if_fail (runs != NULL || n_runs == 0, FALSE);

  if (!throughput_plot_columns (width, &left, &right))
    return FALSE;
  if (!(x >= left && x <= right))
    return FALSE;

  runs_time_range (runs, n_runs, options, &t_lo, &t_hi);

  if (out_t != NULL)
    *out_t = t_lo + (x - left) / (right - left) * (t_hi - t_lo);

  return TRUE;
}

typedef struct {
  const char       *title;       /* axis title, the unit */
  const char       *unit;        /* for read-outs */
  CsPlotSeries     *series;
  guint             n_series;
  CsPlotLegendItem *legend;
  double            y_max;
  double            header_height;
  CsPlotRect        plot;
} Chart;

static void
chart_header (CsPlotPainter *p,
              const Chart   *chart,
              double         left,
              double         right,
              double         top,
              gboolean       draw)
{
  double title_width;

  _cs_plot_painter_text_size (p, chart->title, TRUE, &title_width, NULL);
  if (draw)
    _cs_plot_painter_text (p, chart->title, TRUE, &p->palette->foreground, 1.0, left, top,
                           0.0, 0.0);

  _cs_plot_legend_layout (p, chart->legend, chart->n_series, right, top,
                          right - left - title_width - 2.0 * CS_PLOT_LEGEND_ITEM_GAP, draw);
}

static double
chart_header_height (CsPlotPainter *p,
                     const Chart   *chart,
                     double         left,
                     double         right)
{
  double title_width;

  _cs_plot_painter_text_size (p, chart->title, TRUE, &title_width, NULL);

  return MAX (p->line_height,
              _cs_plot_legend_layout (p, chart->legend, chart->n_series, right, 0.0,
                                      right - left - title_width - 2.0 * CS_PLOT_LEGEND_ITEM_GAP,
                                      FALSE));
}

static double
axis_max (double  data_max,
          double *state)
{
  if (state == NULL)
    return cs_plot_nice_ceiling (data_max);

  *state = cs_plot_axis_update (*state, data_max);

  return *state;
}

void
cs_plot_draw_throughput (cairo_t             *cr,
                         double               width,
                         double               height,
                         const CsPlotPalette *palette,
                         const CsPlotRun     *runs,
                         guint                n_runs,
                         const CsPlotOptions *options)
{
  static const CsPlotOptions default_options = {
    .t_min = 0.0,
    .t_max = 0.0,
    .hover_t = -1.0,
    .show_markers = TRUE,
    .axes = NULL,
  };
  g_autoptr(GPtrArray) owned_labels = g_ptr_array_new_with_free_func (g_free);
  g_autofree CsPlotSeries *rate_series = NULL;
  g_autofree CsPlotSeries *request_series = NULL;
  g_autofree CsPlotLegendItem *rate_legend = NULL;
  g_autofree CsPlotLegendItem *request_legend = NULL;
  CsPlotSeries check_series[1];
  CsPlotLegendItem check_legend[1];
  g_autoptr(GArray) markers = NULL;
  CsPlotPalette fallback;
  Chart charts[3];
  guint n_charts;
  CsPlotPainter p = { 0 };
  double time_ticks[CS_PLOT_MAX_TICKS];
  double time_step;
  double time_divisor;
  const char *time_unit;
  guint n_time_ticks;
  double left, right;
  double t_lo, t_hi;
  double plot_height;
  double y;
  gboolean have_data;
  guint n_series;

  g_return_if_fail (cr != NULL);
  g_return_if_fail (runs != NULL || n_runs == 0);

  if (palette == NULL)
    {
      cs_plot_palette_init_light (&fallback);
      palette = &fallback;
    }
  if (options == NULL)
    options = &default_options;

  cairo_save (cr);
  _cs_plot_painter_init (&p, cr, palette);
  _cs_plot_painter_background (&p, width, height);

  if (!throughput_plot_columns (width, &left, &right))
    goto out;

  have_data = runs_time_range (runs, n_runs, options, &t_lo, &t_hi);

  /* One run shows read against write; several show one line each. */
  n_series = n_runs > 1 ? n_runs : 2;
  rate_series = g_new0 (CsPlotSeries, n_series);
  request_series = g_new0 (CsPlotSeries, n_series);
  rate_legend = g_new0 (CsPlotLegendItem, n_series);
  request_legend = g_new0 (CsPlotLegendItem, n_series);

  if (n_runs > 1)
    {
      for (guint r = 0; r < n_runs; r++)
        {
          const char *label = runs[r].label;

          if (label == NULL)
            {
              char *owned = g_strdup_printf (_("Run %u"), r + 1);

              g_ptr_array_add (owned_labels, owned);
              label = owned;
            }

          /* Written, the bytes that end up copied: read + written (the Data
           * Transfer Rate) would count each copied byte twice, and --verify's
           * reading back three times. */
          rate_series[r] = (CsPlotSeries) { &runs[r], CS_COUNTER_WRITE_TRANSFER_RATE, r, label };
          request_series[r] = (CsPlotSeries) { &runs[r], CS_COUNTER_REQUEST_RATE, r, label };
        }
    }
  else if (n_runs == 1)
    {
      rate_series[0] = (CsPlotSeries) { &runs[0], CS_COUNTER_READ_TRANSFER_RATE, 0, _("Read") };
      rate_series[1] = (CsPlotSeries) { &runs[0], CS_COUNTER_WRITE_TRANSFER_RATE, 1, _("Write") };
      request_series[0] = (CsPlotSeries) { &runs[0], CS_COUNTER_DATA_REQUEST_RATE, 2,
                                           _("Data requests") };
      request_series[1] = (CsPlotSeries) { &runs[0], CS_COUNTER_REQUEST_RATE, 3,
                                           _("All requests") };
    }
  else
    {
      /* No run at all: the legend still says what will appear. */
      rate_series[0] = (CsPlotSeries) { NULL, CS_COUNTER_READ_TRANSFER_RATE, 0, _("Read") };
      rate_series[1] = (CsPlotSeries) { NULL, CS_COUNTER_WRITE_TRANSFER_RATE, 1, _("Write") };
      request_series[0] = (CsPlotSeries) { NULL, CS_COUNTER_DATA_REQUEST_RATE, 2,
                                           _("Data requests") };
      request_series[1] = (CsPlotSeries) { NULL, CS_COUNTER_REQUEST_RATE, 3, _("All requests") };
    }

  for (guint s = 0; s < n_series; s++)
    {
      rate_legend[s] = (CsPlotLegendItem) { rate_series[s].label, rate_series[s].style,
                                            CS_PLOT_SWATCH_LINE };
      request_legend[s] = (CsPlotLegendItem) { request_series[s].label, request_series[s].style,
                                               CS_PLOT_SWATCH_LINE };
    }

  charts[0] = (Chart) {
    .title = n_runs > 1 ? _("MB/s written") : _("MB/s"),
    .unit = _("MB/s"),
    .series = rate_series,
    .n_series = n_series,
    .legend = rate_legend,
  };
  charts[1] = (Chart) {
    .title = _("requests/s"),
    .unit = _("req/s"),
    .series = request_series,
    .n_series = n_series,
    .legend = request_legend,
  };
  /* Files checked/s on its own axis: thousands of them a second next to a
   * few MB/s would flatten one or the other. Only for one run, live or
   * whole, whose window asks for it. */
  n_charts = 2;
  if (options->show_checks && n_runs == 1)
    {
      check_series[0] = (CsPlotSeries) { &runs[0], CS_COUNTER_CHECK_RATE, 4, _("Checked") };
      check_legend[0] = (CsPlotLegendItem) { check_series[0].label, check_series[0].style,
                                             CS_PLOT_SWATCH_LINE };
      charts[2] = (Chart) {
        .title = _("files checked/s"),
        .unit = _("files/s"),
        .series = check_series,
        .n_series = 1,
        .legend = check_legend,
      };
      n_charts = 3;
    }

  for (guint c = 0; c < n_charts; c++)
    charts[c].header_height = chart_header_height (&p, &charts[c], CS_PLOT_PADDING, right);

  /* Vertical layout: header, plot, header, plot, time labels, axis title. */
  {
    double header_gap = ceil (p.line_height / 2.0) + 3.0;
    double fixed = CS_PLOT_PADDING
                   + 4.0 + p.line_height
                   + 2.0 + p.line_height
                   + CS_PLOT_PADDING;

    for (guint c = 0; c < n_charts; c++)
      fixed += (c > 0 ? 10.0 : 0.0) + charts[c].header_height + header_gap;
    plot_height = floor ((height - fixed) / n_charts);
    if (plot_height < CS_PLOT_MIN_PLOT_SIZE)
      goto out;

    y = CS_PLOT_PADDING;
    for (guint c = 0; c < n_charts; c++)
      {
        if (c > 0)
          y += 10.0;
        chart_header (&p, &charts[c], CS_PLOT_PADDING, right, y, TRUE);
        y += charts[c].header_height + header_gap;
        charts[c].plot = (CsPlotRect) { left, y, right - left, plot_height };
        y += plot_height;
      }
  }

  {
    double rate_max = 0.0, request_max = 0.0;

    if (have_data)
      {
        rate_max = _cs_plot_series_max (rate_series, n_runs > 0 ? n_series : 0, t_lo, t_hi);
        request_max = _cs_plot_series_max (request_series, n_runs > 0 ? n_series : 0, t_lo, t_hi);
        if (n_runs == 1)
          rate_max = MAX (rate_max, _cs_plot_rate_limit_max (&runs[0], t_lo, t_hi));
      }

    if (have_data)
      {
        charts[0].y_max = axis_max (rate_max, options->axes ? &options->axes->rate_max : NULL);
        charts[1].y_max = axis_max (request_max,
                                    options->axes ? &options->axes->request_max : NULL);
        if (n_charts > 2)
          charts[2].y_max = axis_max (_cs_plot_series_max (check_series, 1, t_lo, t_hi),
                                      options->axes ? &options->axes->check_max : NULL);
      }
    else
      {
        for (guint c = 0; c < n_charts; c++)
          charts[c].y_max = 1.0;
      }
  }

  /* A day's copy reads in hours, as the phase chart's axis does: nice
   * steps of the unit, kept in seconds for the grid. */
  cs_plot_time_unit (t_hi - t_lo, &time_divisor, &time_unit);
  n_time_ticks = _cs_plot_axis_ticks (t_lo / time_divisor, t_hi / time_divisor,
                                      (guint) CLAMP ((right - left) / 70.0, 1.0, 12.0),
                                      &time_step, time_ticks, G_N_ELEMENTS (time_ticks));
  for (guint i = 0; i < n_time_ticks; i++)
    time_ticks[i] *= time_divisor;

  markers = _cs_plot_collect_markers (palette, runs, n_runs, t_lo, t_hi);
  if (options->show_markers)
    _cs_plot_layout_marker_labels (&p, markers, &charts[0].plot, t_lo, t_hi);

  for (guint c = 0; c < n_charts; c++)
    {
      const Chart *chart = &charts[c];

      /* The labels are in the first chart's plot. */
      if (c == 0 && options->show_markers)
        _cs_plot_clip_out_marker_labels (&p, markers, width, height);
      draw_time_grid (&p, &chart->plot, t_lo, t_hi, time_ticks, n_time_ticks);
      _cs_plot_draw_value_grid (&p, &chart->plot, chart->y_max, have_data);
      if (options->show_markers)
        _cs_plot_draw_marker_lines (&p, markers, &chart->plot, t_lo, t_hi);
      if (n_runs == 1 && c == 0 && have_data)
        _cs_plot_draw_rate_limit (&p, &runs[0], &chart->plot, t_lo, t_hi, chart->y_max);
      if (n_runs > 0)
        _cs_plot_draw_series (&p, chart->series, chart->n_series, &chart->plot, t_lo, t_hi,
                              chart->y_max, n_runs == 1);
      if (c == 0 && options->show_markers)
        cairo_restore (p.cr);
    }

  if (options->show_markers)
    _cs_plot_draw_marker_labels (&p, markers, &charts[0].plot);

  if (!have_data)
    {
      const CsPlotRect *plot = &charts[0].plot;

      _cs_plot_painter_text (&p, _("Waiting for data"), FALSE, &p.palette->foreground, 0.6,
                             plot->x + plot->width / 2.0, plot->y + plot->height / 2.0, 0.5, 0.5);
    }
  else if (options->hover_t >= 0.0 && options->hover_t >= t_lo && options->hover_t <= t_hi)
    {
      for (guint c = 0; c < n_charts; c++)
        _cs_plot_draw_hover (&p, charts[c].series, charts[c].n_series, &charts[c].plot, t_lo, t_hi,
                             charts[c].y_max, options->hover_t, charts[c].unit, c == 0);
    }

  y = charts[n_charts - 1].plot.y + charts[n_charts - 1].plot.height + 4.0;
  draw_time_labels (&p, &charts[n_charts - 1].plot, width, t_lo, t_hi, time_ticks, n_time_ticks,
                    time_step, time_divisor, y);
  y += p.line_height + 2.0;
  _cs_plot_painter_text (&p, time_unit, FALSE, &p.palette->foreground, 0.8,
                         left + (right - left) / 2.0, y, 0.5, 0.0);

out:
  _cs_plot_painter_clear (&p);
  cairo_restore (cr);
}
