/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-plot"

#include "config.h"

#include <math.h>

#include "cs-plot.h"
#include "cs-plot-private.h"

/* How series look (colour and dash) and the legend that names them. */

#define SWATCH_WIDTH    22.0
#define SWATCH_TEXT_GAP 6.0

/* Series differ by dash as well as colour, so they stay apart in
 * greyscale prints and for readers who cannot tell the hues apart. */
void
_cs_plot_set_series_style (cairo_t             *cr,
                           const CsPlotPalette *palette,
                           guint                style,
                           double               line_width)
{
  static const double dashed[] = { 5.0, 4.0 };
  static const double dotted[] = { 0.01, 3.5 };
  static const double dash_dot[] = { 7.0, 3.5, 0.01, 3.5 };
  static const double long_dash[] = { 10.0, 4.0 };

  _cs_plot_set_color (cr, &palette->series[style % CS_PLOT_N_SERIES_COLORS], 1.0);
  cairo_set_line_width (cr, line_width);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_ROUND);

  switch (style % 5)
    {
    case 0:
      cairo_set_dash (cr, NULL, 0, 0.0);
      break;
    case 1:
      cairo_set_dash (cr, dashed, G_N_ELEMENTS (dashed), 0.0);
      break;
    case 2:
      cairo_set_dash (cr, dotted, G_N_ELEMENTS (dotted), 0.0);
      break;
    case 3:
      cairo_set_dash (cr, dash_dot, G_N_ELEMENTS (dash_dot), 0.0);
      break;
    default:
      cairo_set_dash (cr, long_dash, G_N_ELEMENTS (long_dash), 0.0);
      break;
    }
}

static void
draw_swatch (CsPlotPainter    *p,
             CsPlotSwatchKind  kind,
             guint             style,
             double            x,
             double            cy)
{
  cairo_t *cr = p->cr;

  cairo_save (cr);

  switch (kind)
    {
    case CS_PLOT_SWATCH_LINE:
      _cs_plot_set_series_style (cr, p->palette, style, 2.0);
      cairo_move_to (cr, x + 1.0, round (cy));
      cairo_line_to (cr, x + SWATCH_WIDTH - 1.0, round (cy));
      cairo_stroke (cr);
      break;

    case CS_PLOT_SWATCH_LINE_DOT:
      _cs_plot_set_series_style (cr, p->palette, style, 2.0);
      cairo_move_to (cr, x + 1.0, round (cy));
      cairo_line_to (cr, x + SWATCH_WIDTH - 1.0, round (cy));
      cairo_stroke (cr);
      cairo_arc (cr, x + SWATCH_WIDTH / 2.0, round (cy), 3.5, 0.0, 2.0 * G_PI);
      cairo_fill (cr);
      break;

    case CS_PLOT_SWATCH_RANGE:
      _cs_plot_set_color (cr, &p->palette->series[style % CS_PLOT_N_SERIES_COLORS], 0.7);
      cairo_set_line_width (cr, 1.0);
      _cs_plot_crisp_vline (cr, x + SWATCH_WIDTH / 2.0, cy - 5.0, cy + 5.0);
      _cs_plot_crisp_hline (cr, x + SWATCH_WIDTH / 2.0 - 4.0, x + SWATCH_WIDTH / 2.0 + 5.0,
                            cy - 5.0);
      _cs_plot_crisp_hline (cr, x + SWATCH_WIDTH / 2.0 - 4.0, x + SWATCH_WIDTH / 2.0 + 5.0,
                            cy + 5.0);
      cairo_stroke (cr);
      break;

    default:
      g_assert_not_reached ();
    }

  cairo_restore (cr);
}

/* Lays the legend out right-aligned at @right, wrapping onto more rows when
 * it does not fit in @available; returns its height. Draws only if @draw. */
double
_cs_plot_legend_layout (CsPlotPainter          *p,
                        const CsPlotLegendItem *items,
                        guint                   n_items,
                        double                  right,
                        double                  top,
                        double                  available,
                        gboolean                draw)
{
  guint row_start = 0;
  double y = top;

  if (n_items == 0)
    return 0.0;

  while (row_start < n_items)
    {
      double row_width = 0.0;
      guint row_end = row_start;
      double x;

      /* Take as many items as fit; at least one, however narrow the space. */
      while (row_end < n_items)
        {
          double text_width;
          double item_width;

          _cs_plot_painter_text_size (p, items[row_end].label, FALSE, &text_width, NULL);
          item_width = SWATCH_WIDTH + SWATCH_TEXT_GAP + text_width;
          if (row_end > row_start)
            item_width += CS_PLOT_LEGEND_ITEM_GAP;

          if (row_end > row_start && row_width + item_width > available)
            break;

          row_width += item_width;
          row_end++;
        }

      if (draw)
        {
          x = right - row_width;
          for (guint i = row_start; i < row_end; i++)
            {
              draw_swatch (p, items[i].kind, items[i].style, x, y + p->line_height / 2.0);
              x += SWATCH_WIDTH + SWATCH_TEXT_GAP;
              x += _cs_plot_painter_text (p, items[i].label, FALSE, &p->palette->foreground, 1.0,
                                          x, y, 0.0, 0.0);
              x += CS_PLOT_LEGEND_ITEM_GAP;
            }
        }

      y += p->line_height;
      row_start = row_end;
    }

  return y - top;
}
