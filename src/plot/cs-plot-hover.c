/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-plot"

#include "config.h"

#include <math.h>

#include <glib/gi18n-lib.h>

#include "cs-plot.h"
#include "cs-plot-private.h"

/* The pointer's read-out: a line at its time, a dot on each series at the
 * nearest sample, and their values in a box. */

/* The sample nearest to @t, or NULL. */
static const CsSample *
nearest_sample (const CsPlotRun *run,
                double           t)
{
  const CsSample *best = NULL;
  double best_distance = G_MAXDOUBLE;

  for (guint i = 0; i < _cs_plot_run_len (run); i++)
    {
      double distance = fabs (_cs_plot_run_at (run, i)->t - t);

      if (distance < best_distance)
        {
          best_distance = distance;
          best = _cs_plot_run_at (run, i);
        }
    }

  return best;
}

void
_cs_plot_draw_hover (CsPlotPainter      *p,
                     const CsPlotSeries *series,
                     guint               n_series,
                     const CsPlotRect   *plot,
                     double              t_lo,
                     double              t_hi,
                     double              y_max,
                     double              hover_t,
                     const char         *unit,
                     gboolean            with_time)
{
  g_autoptr(GString) text = g_string_new (NULL);
  cairo_t *cr = p->cr;
  double x = _cs_plot_time_to_x (plot, t_lo, t_hi, hover_t);
  double box_width, box_height;
  double left;

  cairo_save (cr);
  cairo_rectangle (cr, plot->x, plot->y, plot->width, plot->height);
  cairo_clip (cr);

  cairo_set_line_width (cr, 1.0);
  _cs_plot_set_color (cr, &p->palette->foreground, 0.55);
  _cs_plot_crisp_vline (cr, x, plot->y, plot->y + plot->height);
  cairo_stroke (cr);

  if (with_time)
    {
      char time_label[CS_PLOT_LABEL_SIZE];

      _cs_plot_format_number (time_label, sizeof time_label, hover_t, 0.0);
      /* Translators: a time in seconds in the chart's read-out */
      g_string_append_printf (text, _("%s s"), time_label);
    }

  for (guint s = 0; s < n_series; s++)
    {
      const CsSample *sample = nearest_sample (series[s].run, hover_t);
      const CsPlotColor *color = &p->palette->series[series[s].style % CS_PLOT_N_SERIES_COLORS];
      char value_label[CS_PLOT_LABEL_SIZE];
      double v;

      if (sample == NULL)
        continue;

      v = _cs_plot_sane_value (sample->values[series[s].counter]);
      _cs_plot_format_tick (value_label, sizeof value_label, v, 0.0);
      if (text->len > 0)
        g_string_append_c (text, '\n');
      g_string_append_printf (text, "%s: %s %s", series[s].label, value_label, unit);

      if (isnan (v) || !isfinite (sample->t))
        continue;

      v = CLAMP (v, 0.0, y_max);
      cairo_arc (cr, _cs_plot_time_to_x (plot, t_lo, t_hi, sample->t),
                 plot->y + plot->height - v / y_max * plot->height, 3.5, 0.0, 2.0 * G_PI);
      _cs_plot_set_color (cr, color, 1.0);
      cairo_fill_preserve (cr);
      cairo_set_line_width (cr, 1.5);
      _cs_plot_set_color (cr, &p->palette->background, 1.0);
      cairo_stroke (cr);
    }

  _cs_plot_painter_text_size (p, text->str, FALSE, &box_width, &box_height);
  left = x + 8.0;
  if (left + box_width + 4.0 > plot->x + plot->width)
    left = x - 8.0 - box_width;

  /* Low in the plot, where it does not cover the thread-change labels. */
  _cs_plot_painter_boxed_text (p, text->str, FALSE, &p->palette->foreground, &p->palette->grid,
                               left,
                               MAX (plot->y + 4.0, plot->y + plot->height - box_height - 8.0));

  cairo_restore (cr);
}
