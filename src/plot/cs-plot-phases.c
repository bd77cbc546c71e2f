/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-plot"

#include "config.h"

#include <math.h>

#include <glib/gi18n-lib.h>

#include "cs-plot.h"
#include "cs-plot-private.h"

/* The phase chart: the workers' time as a stacked area by phase over the
 * copy, with the thread changes marked. Each entry of the record's series
 * (a sample, or a bucket of many) is a step as wide as it lasted, as high as
 * the workers it kept busy in each phase on average. Over the stack, where
 * it was measured, a dashed step line: the workers ready to run but waiting
 * for a processor. It overlaps the phases (a worker "reading" may be
 * waiting all the same), so it is a line over them, not a layer of them. */

#define LEGEND_SWATCH 9.0

static const double runnable_dash[] = { 6.0, 3.0 };

/* The runnable line's legend entry: a short dashed stroke, as drawn. */
void
cs_plot_draw_runnable_swatch (cairo_t             *cr,
                              double               x,
                              double               y,
                              double               width,
                              const CsPlotPalette *palette)
{
  CsPlotPalette fallback;

  g_return_if_fail (cr != NULL);

  if (palette == NULL)
    {
      cs_plot_palette_init_light (&fallback);
      palette = &fallback;
    }
  cairo_save (cr);
  cairo_set_line_width (cr, 2.0);
  cairo_set_dash (cr, runnable_dash, G_N_ELEMENTS (runnable_dash), 0);
  _cs_plot_set_color (cr, &palette->foreground, 0.9);
  cairo_move_to (cr, x, y);
  cairo_line_to (cr, x + width, y);
  cairo_stroke (cr);
  cairo_restore (cr);
}

static double
bucket_runnable (const CsPhaseBucket *b)
{
  double width = b->t - b->t_start;

  return width > 0 ? _cs_plot_sane_value (b->runnable / width) : 0;
}

/* GNOME's palette, told apart in light and dark alike; a phase's colour is
 * the same in every chart and export. */
static const CsPlotColor phase_colours[CS_PHASE_N] = {
  { 0x9a / 255.0, 0x99 / 255.0, 0x96 / 255.0, 1 },  /* grey: waiting for work */
  { 0x91 / 255.0, 0x41 / 255.0, 0xac / 255.0, 1 },  /* purple: listing */
  { 0xe6 / 255.0, 0x61 / 255.0, 0x00 / 255.0, 1 },  /* orange: opening */
  { 0x35 / 255.0, 0x84 / 255.0, 0xe4 / 255.0, 1 },  /* blue: reading */
  { 0x2e / 255.0, 0xc2 / 255.0, 0x7e / 255.0, 1 },  /* green: writing */
  { 0x1a / 255.0, 0x5f / 255.0, 0xb4 / 255.0, 1 },  /* dark blue: flushing */
  { 0xf5 / 255.0, 0xc2 / 255.0, 0x11 / 255.0, 1 },  /* yellow: metadata */
  { 0xe0 / 255.0, 0x1b / 255.0, 0x24 / 255.0, 1 },  /* red: publishing */
  { 0x86 / 255.0, 0x5e / 255.0, 0x3c / 255.0, 1 },  /* brown: deleting */
  { 0xc0 / 255.0, 0x61 / 255.0, 0xcb / 255.0, 1 },  /* pink: speed limit */
  { 0x99 / 255.0, 0xc1 / 255.0, 0xf1 / 255.0, 1 },  /* light blue: question */
  { 0x5e / 255.0, 0x5c / 255.0, 0x64 / 255.0, 1 },  /* dark grey: paused */
};

void
cs_plot_phase_colour (CsPhase      phase,
                      CsPlotColor *out_colour)
{
  g_return_if_fail (phase < CS_PHASE_N);
  g_return_if_fail (out_colour != NULL);

  *out_colour = phase_colours[cs_phase_get_colour (phase) % CS_PHASE_N];
}

void
cs_plot_time_unit (double       span,
                   double      *out_divisor,
                   const char **out_label)
{
  /* A day's copy reads in hours, not in 80,000 seconds. */
  if (span > 2 * 3600)
    {
      *out_divisor = 3600;
      *out_label = _("hours");
    }
  else if (span > 2 * 60)
    {
      *out_divisor = 60;
      *out_label = _("minutes");
    }
  else
    {
      *out_divisor = 1;
      *out_label = _("seconds");
    }
}

static double
bucket_workers (const CsPhaseBucket *b,
                CsPhase              phase)
{
  double width = b->t - b->t_start;

  return width > 0 ? _cs_plot_sane_value (b->seconds[phase] / width) : 0;
}

static void
draw_phases (cairo_t              *cr,
             double                width,
             double                height,
             const CsPlotPalette  *palette,
             const CsPhaseBucket  *series,
             guint                 n_series,
             const CsThreadChange *changes,
             guint                 n_changes,
             gboolean              with_header)
{
  static const double marker_dash[] = { 3.0, 3.0 };
  CsPlotPalette fallback;
  CsPlotPainter p = { 0 };
  gboolean shown[CS_PHASE_N] = { FALSE };
  gboolean runnable = FALSE;
  double ticks[CS_PLOT_MAX_TICKS];
  CsPlotRect plot;
  double left = CS_PLOT_PADDING + CS_PLOT_LEFT_GUTTER;
  double right = width - CS_PLOT_PADDING - CS_PLOT_RIGHT_GUTTER;
  double x, y, t_lo = 0, t_hi = 0, y_max = 0, divisor, step, last_right = -G_MAXDOUBLE;
  const char *unit;
  guint n_ticks;

  g_return_if_fail (cr != NULL);
  g_return_if_fail (series != NULL || n_series == 0);
  g_return_if_fail (changes != NULL || n_changes == 0);

  if (palette == NULL)
    {
      cs_plot_palette_init_light (&fallback);
      palette = &fallback;
    }

  cairo_save (cr);
  _cs_plot_painter_init (&p, cr, palette);
  _cs_plot_painter_background (&p, width, height);

  for (guint i = 0; i < n_series; i++)
    {
      double stacked = 0;

      for (guint ph = 0; ph < CS_PHASE_N; ph++)
        {
          stacked += bucket_workers (&series[i], ph);
          shown[ph] |= series[i].seconds[ph] > 0;
        }
      y_max = MAX (y_max, MAX (stacked, bucket_runnable (&series[i])));
      runnable |= series[i].runnable > 0;
    }
  if (n_series > 0)
    {
      t_lo = series[0].t_start;
      t_hi = MAX (series[n_series - 1].t, t_lo + 0.1);
    }
  y_max = y_max > 0 ? cs_plot_nice_ceiling (y_max) : 1;

  /* Title, then the legend: the phases that took any time, wrapped. */
  y = CS_PLOT_PADDING;
  if (!with_header)
    goto plot_area;
  _cs_plot_painter_text (&p, _("Where the time goes: workers by phase"), TRUE,
                         &palette->foreground, 1.0, CS_PLOT_PADDING, y, 0.0, 0.0);
  y += p.line_height + 4.0;
  x = left;
  for (guint ph = 0; ph < CS_PHASE_N; ph++)
    {
      const char *label = g_dgettext (GETTEXT_PACKAGE, cs_phase_get_label (ph));
      double text_width;

      if (!shown[ph])
        continue;
      _cs_plot_painter_text_size (&p, label, FALSE, &text_width, NULL);
      if (x > left && x + LEGEND_SWATCH + 4.0 + text_width > right)
        {
          x = left;
          y += p.line_height + 2.0;
        }
      _cs_plot_set_color (cr, &phase_colours[ph], 1.0);
      cairo_rectangle (cr, x, y + (p.line_height - LEGEND_SWATCH) / 2.0, LEGEND_SWATCH, LEGEND_SWATCH);
      cairo_fill (cr);
      _cs_plot_painter_text (&p, label, FALSE, &palette->foreground, 0.9,
                             x + LEGEND_SWATCH + 4.0, y, 0.0, 0.0);
      x += LEGEND_SWATCH + 4.0 + text_width + CS_PLOT_LEGEND_ITEM_GAP;
    }
  if (runnable)
    {
      const char *label = _("Ready, waiting for a processor");
      double text_width;

      _cs_plot_painter_text_size (&p, label, FALSE, &text_width, NULL);
      if (x > left && x + 2 * LEGEND_SWATCH + 4.0 + text_width > right)
        {
          x = left;
          y += p.line_height + 2.0;
        }
      cs_plot_draw_runnable_swatch (cr, x, y + p.line_height / 2.0, 2 * LEGEND_SWATCH, palette);
      _cs_plot_painter_text (&p, label, FALSE, &palette->foreground, 0.9,
                             x + 2 * LEGEND_SWATCH + 4.0, y, 0.0, 0.0);
    }
  y += p.line_height + 6.0;

plot_area:
  plot.x = left;
  plot.y = y;
  plot.width = MAX (right - left, CS_PLOT_MIN_PLOT_SIZE);
  plot.height = MAX (height - CS_PLOT_PADDING - 2 * p.line_height - 8.0 - y, CS_PLOT_MIN_PLOT_SIZE);

  _cs_plot_draw_value_grid (&p, &plot, y_max, n_series > 0);

  if (n_series == 0)
    {
      _cs_plot_painter_text (&p, _("No phase data"), FALSE, &palette->foreground, 0.6,
                             plot.x + plot.width / 2.0, plot.y + plot.height / 2.0, 0.5, 0.5);
      goto out;
    }

  /* The stack, phase by phase from the bottom, each entry a step. */
  cairo_save (cr);
  cairo_rectangle (cr, plot.x, plot.y, plot.width, plot.height);
  cairo_clip (cr);
  {
    g_autofree double *base = g_new0 (double, n_series);

    for (guint ph = 0; ph < CS_PHASE_N; ph++)
      {
        if (!shown[ph])
          continue;
        _cs_plot_set_color (cr, &phase_colours[ph], 0.85);
        for (guint i = 0; i < n_series; i++)
          {
            double v = bucket_workers (&series[i], ph);
            double x0 = _cs_plot_time_to_x (&plot, t_lo, t_hi, series[i].t_start);
            double x1 = _cs_plot_time_to_x (&plot, t_lo, t_hi, series[i].t);
            double y0 = plot.y + plot.height - base[i] / y_max * plot.height;
            double y1 = plot.y + plot.height - (base[i] + v) / y_max * plot.height;

            if (v > 0)
              cairo_rectangle (cr, x0, y1, MAX (x1 - x0, 0.5), y0 - y1);
            base[i] += v;
          }
        cairo_fill (cr);
      }
  }

  /* Waiting for a processor: a step per entry, joined, over the stack. */
  if (runnable)
    {
      cairo_set_line_width (cr, 2.0);
      cairo_set_dash (cr, runnable_dash, G_N_ELEMENTS (runnable_dash), 0);
      _cs_plot_set_color (cr, &palette->foreground, 0.9);
      for (guint i = 0; i < n_series; i++)
        {
          double x0 = _cs_plot_time_to_x (&plot, t_lo, t_hi, series[i].t_start);
          double x1 = _cs_plot_time_to_x (&plot, t_lo, t_hi, series[i].t);
          double y1 = plot.y + plot.height - bucket_runnable (&series[i]) / y_max * plot.height;

          if (i == 0)
            cairo_move_to (cr, x0, y1);
          else
            cairo_line_to (cr, x0, y1);
          cairo_line_to (cr, x1, y1);
        }
      cairo_stroke (cr);
    }

  /* The thread changes, as the throughput chart marks them. */
  cairo_set_line_width (cr, 1.0);
  cairo_set_dash (cr, marker_dash, G_N_ELEMENTS (marker_dash), 0);
  _cs_plot_set_color (cr, &palette->marker, 0.9);
  for (guint i = 0; i < n_changes; i++)
    if (changes[i].t > t_lo && changes[i].t < t_hi)
      _cs_plot_crisp_vline (cr, _cs_plot_time_to_x (&plot, t_lo, t_hi, changes[i].t),
                            plot.y, plot.y + plot.height);
  cairo_stroke (cr);
  cairo_restore (cr);

  /* The time axis, in the unit that suits the copy's length. */
  cs_plot_time_unit (t_hi - t_lo, &divisor, &unit);
  n_ticks = _cs_plot_axis_ticks (t_lo / divisor, t_hi / divisor,
                                 (guint) CLAMP (plot.width / 70.0, 1.0, 12.0),
                                 &step, ticks, G_N_ELEMENTS (ticks));
  y = plot.y + plot.height + 4.0;
  for (guint i = 0; i < n_ticks; i++)
    {
      char label[CS_PLOT_LABEL_SIZE];
      double label_width;
      double lx;

      _cs_plot_format_number (label, sizeof label, ticks[i], step);
      _cs_plot_painter_text_size (&p, label, FALSE, &label_width, NULL);
      lx = CLAMP (_cs_plot_time_to_x (&plot, t_lo, t_hi, ticks[i] * divisor) - label_width / 2.0,
                  CS_PLOT_PADDING, width - CS_PLOT_PADDING - label_width);
      if (lx < last_right + 4.0)
        continue;
      _cs_plot_painter_text (&p, label, FALSE, &palette->foreground, 0.8, lx, y, 0.0, 0.0);
      last_right = lx + label_width;
    }
  y += p.line_height + 2.0;
  _cs_plot_painter_text (&p, unit, FALSE, &palette->foreground, 0.8,
                         plot.x + plot.width / 2.0, y, 0.5, 0.0);

out:
  _cs_plot_painter_clear (&p);
  cairo_restore (cr);
}

void
cs_plot_draw_phases (cairo_t              *cr,
                     double                width,
                     double                height,
                     const CsPlotPalette  *palette,
                     const CsPhaseBucket  *series,
                     guint                 n_series,
                     const CsThreadChange *changes,
                     guint                 n_changes)
{
  draw_phases (cr, width, height, palette, series, n_series, changes, n_changes, TRUE);
}

void
cs_plot_draw_phases_area (cairo_t              *cr,
                          double                width,
                          double                height,
                          const CsPlotPalette  *palette,
                          const CsPhaseBucket  *series,
                          guint                 n_series,
                          const CsThreadChange *changes,
                          guint                 n_changes)
{
  draw_phases (cr, width, height, palette, series, n_series, changes, n_changes, FALSE);
}
