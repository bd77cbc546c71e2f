/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-plot"

#include "config.h"

#include <math.h>
#include <stdlib.h>

#include <glib/gi18n-lib.h>

#include "cs-plot.h"
#include "cs-plot-private.h"

/* The sweep chart: a metric against thread count on a log2 axis. */

static int
sweep_point_compare (gconstpointer a,
                     gconstpointer b)
{
  const CsPlotSweepPoint *pa = a;
  const CsPlotSweepPoint *pb = b;

  return (pa->threads > pb->threads) - (pa->threads < pb->threads);
}

/* Position on the log2 axis. A run without workers (0 threads) sits one
 * step left of the smallest thread count. */
static double
sweep_position (guint  threads,
                guint  smallest)
{
  if (threads == 0)
    return log2 (MAX (smallest, 1)) - 1.0;

  return log2 (threads);
}

void
cs_plot_draw_sweep (cairo_t                *cr,
                    double                  width,
                    double                  height,
                    const CsPlotPalette    *palette,
                    const char             *title,
                    const char             *unit,
                    const CsPlotSweepPoint *points,
                    guint                   n_points,
                    guint                   recommended,
                    const char             *recommended_label)
{
  static const double guide_dash[] = { 4.0, 3.0 };
  g_autofree CsPlotSweepPoint *sorted = NULL;
  CsPlotPalette fallback;
  CsPlotPainter p = { 0 };
  CsPlotLegendItem legend[2];
  const CsPlotColor *line_color;
  const CsPlotColor *highlight;
  CsPlotRect plot;
  double y;
  double left, right;
  double title_height = 0.0;
  double header_height;
  double header_gap;
  double pos_lo, pos_hi;
  double y_max = 0.0;
  double last_label_right = -G_MAXDOUBLE;
  g_autofree char *mark_label = NULL;
  double mark_x = 0.0, mark_top = 0.0;
  guint smallest = 0;
  gboolean have_values = FALSE;

  g_return_if_fail (cr != NULL);
  g_return_if_fail (points != NULL || n_points == 0);

  if (palette == NULL)
    {
      cs_plot_palette_init_light (&fallback);
      palette = &fallback;
    }
  if (unit == NULL)
    unit = "";

  line_color = &palette->series[0];
  highlight = &palette->series[1];

  cairo_save (cr);
  _cs_plot_painter_init (&p, cr, palette);
  _cs_plot_painter_background (&p, width, height);

  left = CS_PLOT_PADDING + CS_PLOT_LEFT_GUTTER;
  right = width - CS_PLOT_PADDING - CS_PLOT_RIGHT_GUTTER;
  if (right - left < CS_PLOT_MIN_PLOT_SIZE)
    goto out;

  legend[0] = (CsPlotLegendItem) { _("median"), 0, CS_PLOT_SWATCH_LINE_DOT };
  legend[1] = (CsPlotLegendItem) { _("min–max"), 0, CS_PLOT_SWATCH_RANGE };

  y = CS_PLOT_PADDING;
  if (title != NULL && *title != '\0')
    {
      _cs_plot_painter_text_size (&p, title, TRUE, NULL, &title_height);
      title_height += 4.0;
    }

  {
    double unit_width;
    double legend_space;

    _cs_plot_painter_text_size (&p, unit, TRUE, &unit_width, NULL);
    legend_space = right - CS_PLOT_PADDING - unit_width - 2.0 * CS_PLOT_LEGEND_ITEM_GAP;
    header_height = MAX (p.line_height,
                         _cs_plot_legend_layout (&p, legend, G_N_ELEMENTS (legend), right, 0.0,
                                                 legend_space, FALSE));
    header_gap = ceil (p.line_height / 2.0) + 3.0;

    plot.x = left;
    plot.width = right - left;
    plot.y = CS_PLOT_PADDING + title_height + header_height + header_gap;
    plot.height = floor (height - plot.y - 4.0 - p.line_height - 2.0 - p.line_height
                         - CS_PLOT_PADDING);
    if (plot.height < CS_PLOT_MIN_PLOT_SIZE)
      goto out;

    if (title_height > 0.0)
      _cs_plot_painter_text (&p, title, TRUE, &palette->foreground, 1.0, CS_PLOT_PADDING, y,
                             0.0, 0.0);
    y += title_height;
    _cs_plot_painter_text (&p, unit, TRUE, &palette->foreground, 0.8, CS_PLOT_PADDING, y,
                           0.0, 0.0);
    _cs_plot_legend_layout (&p, legend, G_N_ELEMENTS (legend), right, y, legend_space, TRUE);
  }

  sorted = g_memdup2 (points, sizeof (CsPlotSweepPoint) * n_points);
  if (n_points > 0)
    qsort (sorted, n_points, sizeof (CsPlotSweepPoint), sweep_point_compare);

  for (guint i = 0; i < n_points; i++)
    {
      if (sorted[i].threads > 0 && smallest == 0)
        smallest = sorted[i].threads;
    }

  for (guint i = 0; i < n_points; i++)
    {
      double values[] = { sorted[i].median, sorted[i].min, sorted[i].max };

      for (guint v = 0; v < G_N_ELEMENTS (values); v++)
        {
          double value = _cs_plot_sane_value (values[v]);

          if (!isnan (value))
            {
              y_max = MAX (y_max, value);
              have_values = TRUE;
            }
        }
    }
  y_max = cs_plot_nice_ceiling (y_max);

  if (n_points > 0)
    {
      pos_lo = sweep_position (sorted[0].threads, smallest) - 0.5;
      pos_hi = sweep_position (sorted[n_points - 1].threads, smallest) + 0.5;
    }
  else
    {
      pos_lo = -0.5;
      pos_hi = 7.5;
    }

#define SWEEP_X(threads) \
  (plot.x + (sweep_position ((threads), smallest) - pos_lo) / (pos_hi - pos_lo) * plot.width)
#define SWEEP_Y(value) \
  (plot.y + plot.height - CLAMP ((value), -0.1 * y_max, 1.1 * y_max) / y_max * plot.height)

  /* Where the recommendation's label goes, first: nothing drawn before it
   * (grid, guide, bars, line) may show through it, whatever the ground (the
   * window leaves it transparent for its frame to show through). */
  if (recommended > 0 && have_values)
    {
      const CsPlotSweepPoint *point = NULL;
      double label_width, label_height;

      mark_label = recommended_label != NULL ? g_strdup (recommended_label)
                                             : g_strdup_printf (_("recommended: %u"), recommended);
      for (guint i = 0; i < n_points; i++)
        if (sorted[i].threads == recommended)
          point = &sorted[i];

      _cs_plot_painter_text_size (&p, mark_label, TRUE, &label_width, &label_height);

      mark_x = SWEEP_X (recommended) - label_width / 2.0;
      mark_x = CLAMP (mark_x, plot.x + 4.0, plot.x + plot.width - label_width - 4.0);

      /* Above the point's bar when there is room, else below it. */
      mark_top = plot.y + 4.0;
      if (point != NULL)
        {
          double hi = _cs_plot_sane_value (point->max);
          double lo = _cs_plot_sane_value (point->min);
          double median = _cs_plot_sane_value (point->median);
          double upper = isnan (hi) ? median : MAX (hi, median);
          double lower = isnan (lo) ? median : MIN (lo, median);

          if (!isnan (upper))
            {
              mark_top = SWEEP_Y (upper) - 14.0 - label_height;
              if (mark_top < plot.y + 2.0)
                mark_top = SWEEP_Y (lower) + 14.0;
              mark_top = CLAMP (mark_top, plot.y + 2.0, plot.y + plot.height - label_height - 4.0);
            }
        }

      /* The box _cs_plot_painter_boxed_text () draws, kept clear until then. */
      cairo_save (cr);
      cairo_rectangle (cr, 0, 0, width, height);
      cairo_rectangle (cr, round (mark_x) - 4.0, round (mark_top) - 2.0,
                       label_width + 8.0, label_height + 4.0);
      cairo_set_fill_rule (cr, CAIRO_FILL_RULE_EVEN_ODD);
      cairo_clip (cr);
      cairo_set_fill_rule (cr, CAIRO_FILL_RULE_WINDING);
    }

  /* Grid: a vertical line and label at every thread count measured. */
  cairo_save (cr);
  cairo_set_line_width (cr, 1.0);
  _cs_plot_set_color (cr, &palette->grid, 1.0);
  for (guint i = 0; i < n_points; i++)
    {
      if (i > 0 && sorted[i].threads == sorted[i - 1].threads)
        continue;
      _cs_plot_crisp_vline (cr, SWEEP_X (sorted[i].threads), plot.y, plot.y + plot.height);
    }
  cairo_stroke (cr);
  cairo_restore (cr);

  _cs_plot_draw_value_grid (&p, &plot, y_max, have_values);

  y = plot.y + plot.height + 4.0;
  for (guint i = 0; i < n_points; i++)
    {
      char label[CS_PLOT_LABEL_SIZE];
      double label_width;
      double x;
      gboolean is_recommended = sorted[i].threads == recommended && recommended > 0;

      if (i > 0 && sorted[i].threads == sorted[i - 1].threads)
        continue;

      g_snprintf (label, sizeof label, "%u", sorted[i].threads);
      _cs_plot_painter_text_size (&p, label, is_recommended, &label_width, NULL);
      x = SWEEP_X (sorted[i].threads) - label_width / 2.0;
      if (x < last_label_right + 4.0)
        continue;

      _cs_plot_painter_text (&p, label, is_recommended,
                             is_recommended ? highlight : &palette->foreground,
                             is_recommended ? 1.0 : 0.8, x, y, 0.0, 0.0);
      last_label_right = x + label_width;
    }
  y += p.line_height + 2.0;
  _cs_plot_painter_text (&p, _("threads"), FALSE, &palette->foreground, 0.8,
                         plot.x + plot.width / 2.0, y, 0.5, 0.0);

  if (!have_values)
    {
      _cs_plot_painter_text (&p, _("No data"), FALSE, &palette->foreground, 0.6,
                             plot.x + plot.width / 2.0, plot.y + plot.height / 2.0, 0.5, 0.5);
      goto out;
    }

  cairo_save (cr);
  cairo_rectangle (cr, plot.x - 8.0, plot.y - 8.0, plot.width + 16.0, plot.height + 9.0);
  cairo_clip (cr);

  /* The recommended count first, so the data draws over its guide. */
  if (recommended > 0)
    {
      cairo_save (cr);
      cairo_set_line_width (cr, 1.0);
      cairo_set_dash (cr, guide_dash, G_N_ELEMENTS (guide_dash), 0.0);
      _cs_plot_set_color (cr, highlight, 0.7);
      _cs_plot_crisp_vline (cr, SWEEP_X (recommended), plot.y, plot.y + plot.height);
      cairo_stroke (cr);
      cairo_restore (cr);
    }

  /* Min–max bars with caps. */
  cairo_set_line_width (cr, 1.0);
  _cs_plot_set_color (cr, line_color, 0.65);
  for (guint i = 0; i < n_points; i++)
    {
      double lo = _cs_plot_sane_value (sorted[i].min);
      double hi = _cs_plot_sane_value (sorted[i].max);
      double x = SWEEP_X (sorted[i].threads);

      if (isnan (lo) || isnan (hi))
        continue;

      _cs_plot_crisp_vline (cr, x, SWEEP_Y (hi), SWEEP_Y (lo));
      _cs_plot_crisp_hline (cr, _cs_plot_crisp (x) - 4.0, _cs_plot_crisp (x) + 5.0, SWEEP_Y (hi));
      _cs_plot_crisp_hline (cr, _cs_plot_crisp (x) - 4.0, _cs_plot_crisp (x) + 5.0, SWEEP_Y (lo));
    }
  cairo_stroke (cr);

  /* Median line, broken where a median is missing, then dots on top. */
  {
    gboolean drawing = FALSE;

    for (guint i = 0; i < n_points; i++)
      {
        double median = _cs_plot_sane_value (sorted[i].median);

        if (isnan (median))
          {
            drawing = FALSE;
            continue;
          }

        if (drawing)
          cairo_line_to (cr, SWEEP_X (sorted[i].threads), SWEEP_Y (median));
        else
          cairo_move_to (cr, SWEEP_X (sorted[i].threads), SWEEP_Y (median));
        drawing = TRUE;
      }
    _cs_plot_set_series_style (cr, palette, 0, 2.0);
    cairo_stroke (cr);
  }

  for (guint i = 0; i < n_points; i++)
    {
      double median = _cs_plot_sane_value (sorted[i].median);
      gboolean is_recommended = sorted[i].threads == recommended && recommended > 0;

      if (isnan (median))
        continue;

      cairo_arc (cr, SWEEP_X (sorted[i].threads), SWEEP_Y (median),
                 is_recommended ? 5.0 : 3.5, 0.0, 2.0 * G_PI);
      _cs_plot_set_color (cr, is_recommended ? highlight : line_color, 1.0);
      cairo_fill_preserve (cr);
      cairo_set_line_width (cr, 1.5);
      _cs_plot_set_color (cr, &palette->background, 1.0);
      cairo_stroke (cr);

      if (is_recommended)
        {
          cairo_arc (cr, SWEEP_X (sorted[i].threads), SWEEP_Y (median), 8.5, 0.0, 2.0 * G_PI);
          cairo_set_line_width (cr, 2.0);
          _cs_plot_set_color (cr, highlight, 1.0);
          cairo_stroke (cr);
        }
    }

  cairo_restore (cr);

  if (mark_label != NULL)
    {
      cairo_restore (cr);
      _cs_plot_painter_boxed_text (&p, mark_label, TRUE, highlight, highlight, mark_x, mark_top);
    }

#undef SWEEP_X
#undef SWEEP_Y

out:
  _cs_plot_painter_clear (&p);
  cairo_restore (cr);
}

double
cs_plot_sweep_min_width (const CsPlotPalette *palette,
                         guint                recommended,
                         const char          *recommended_label)
{
  g_autofree char *label = NULL;
  cairo_surface_t *surface;
  CsPlotPalette fallback;
  CsPlotPainter p = { 0 };
  double label_width = 0.0;
  cairo_t *cr;

  if (recommended == 0)
    return 0.0;
  if (palette == NULL)
    {
      cs_plot_palette_init_light (&fallback);
      palette = &fallback;
    }

  label = recommended_label != NULL ? g_strdup (recommended_label)
                                    : g_strdup_printf (_("recommended: %u"), recommended);
  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 1, 1);
  cr = cairo_create (surface);
  _cs_plot_painter_init (&p, cr, palette);
  _cs_plot_painter_text_size (&p, label, TRUE, &label_width, NULL);
  _cs_plot_painter_clear (&p);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);

  /* The label keeps 4 px from the plot's sides (cs_plot_draw_sweep ()), and
   * its box reaches 4 px beyond its text. */
  return ceil (CS_PLOT_PADDING + CS_PLOT_LEFT_GUTTER + 4.0 + 4.0 + label_width + 4.0 + 4.0 +
               CS_PLOT_RIGHT_GUTTER + CS_PLOT_PADDING);
}
