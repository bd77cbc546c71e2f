/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-plot"

#include "config.h"

#include <math.h>

#include <pango/pangocairo.h>

#include "cs-plot.h"
#include "cs-plot-private.h"

/* Drawing primitives both charts share: text through one pango layout,
 * crisp 1 px lines, boxed labels, and the value axis. */

#define DEFAULT_FONT_FAMILY "Sans"
#define DEFAULT_FONT_SIZE   9.0

/* Points to pixels at the 96 dpi GTK and cairo assume. */
#define PT_TO_PX (96.0 / 72.0)

#define LABEL_GAP 6.0

void
_cs_plot_painter_init (CsPlotPainter       *p,
                       cairo_t             *cr,
                       const CsPlotPalette *palette)
{
  g_autoptr(PangoAttrList) attrs = NULL;
  const char *family;
  double size;
  int height;

  p->cr = cr;
  p->palette = palette;

  family = palette->font_family != NULL ? palette->font_family : DEFAULT_FONT_FAMILY;
  size = palette->font_size > 0.0 ? palette->font_size : DEFAULT_FONT_SIZE;
  p->font_px = size * PT_TO_PX;

  /* Absolute sizes: the picture must not depend on the resolution of
   * whichever surface it lands on (screen, PNG, or PDF in points). */
  p->font = pango_font_description_new ();
  pango_font_description_set_family (p->font, family);
  pango_font_description_set_absolute_size (p->font, p->font_px * PANGO_SCALE);
  p->bold = pango_font_description_copy (p->font);
  pango_font_description_set_weight (p->bold, PANGO_WEIGHT_BOLD);

  p->layout = pango_cairo_create_layout (cr);

  /* Tabular digits keep tick labels and read-outs from wobbling. */
  attrs = pango_attr_list_new ();
  pango_attr_list_insert (attrs, pango_attr_font_features_new ("tnum"));
  pango_layout_set_attributes (p->layout, attrs);

  pango_layout_set_font_description (p->layout, p->font);
  pango_layout_set_text (p->layout, "0Hg", -1);
  pango_layout_get_pixel_size (p->layout, NULL, &height);
  p->line_height = MAX (height, ceil (p->font_px));
}

void
_cs_plot_painter_clear (CsPlotPainter *p)
{
  g_clear_object (&p->layout);
  g_clear_pointer (&p->font, pango_font_description_free);
  g_clear_pointer (&p->bold, pango_font_description_free);
}

void
_cs_plot_set_color (cairo_t           *cr,
                    const CsPlotColor *color,
                    double             alpha)
{
  cairo_set_source_rgba (cr, color->r, color->g, color->b, color->a * alpha);
}

void
_cs_plot_painter_text_size (CsPlotPainter *p,
                            const char    *text,
                            gboolean       bold,
                            double        *out_width,
                            double        *out_height)
{
  int width, height;

  pango_layout_set_font_description (p->layout, bold ? p->bold : p->font);
  pango_layout_set_text (p->layout, text, -1);
  pango_layout_get_pixel_size (p->layout, &width, &height);

  if (out_width != NULL)
    *out_width = width;
  if (out_height != NULL)
    *out_height = height;
}

/* Draws @text with its box aligned at (@x, @y) by @xalign and @yalign
 * (0 = left/top, 0.5 = centre, 1 = right/bottom); returns the width. */
double
_cs_plot_painter_text (CsPlotPainter     *p,
                       const char        *text,
                       gboolean           bold,
                       const CsPlotColor *color,
                       double             alpha,
                       double             x,
                       double             y,
                       double             xalign,
                       double             yalign)
{
  double width, height;

  _cs_plot_painter_text_size (p, text, bold, &width, &height);

  /* Whole pixels keep glyphs sharp on image surfaces. */
  cairo_move_to (p->cr, round (x - xalign * width), round (y - yalign * height));
  _cs_plot_set_color (p->cr, color, alpha);
  pango_cairo_show_layout (p->cr, p->layout);

  return width;
}

void
_cs_plot_crisp_hline (cairo_t *cr,
                      double   x0,
                      double   x1,
                      double   y)
{
  cairo_move_to (cr, x0, _cs_plot_crisp (y));
  cairo_line_to (cr, x1, _cs_plot_crisp (y));
}

void
_cs_plot_crisp_vline (cairo_t *cr,
                      double   x,
                      double   y0,
                      double   y1)
{
  cairo_move_to (cr, _cs_plot_crisp (x), y0);
  cairo_line_to (cr, _cs_plot_crisp (x), y1);
}

static void
rounded_rect (cairo_t *cr,
              double   x,
              double   y,
              double   width,
              double   height,
              double   radius)
{
  radius = MIN (radius, MIN (width, height) / 2.0);

  cairo_new_sub_path (cr);
  cairo_arc (cr, x + width - radius, y + radius, radius, -G_PI / 2.0, 0.0);
  cairo_arc (cr, x + width - radius, y + height - radius, radius, 0.0, G_PI / 2.0);
  cairo_arc (cr, x + radius, y + height - radius, radius, G_PI / 2.0, G_PI);
  cairo_arc (cr, x + radius, y + radius, radius, G_PI, 1.5 * G_PI);
  cairo_close_path (cr);
}

/* A label on a backing box so it stays legible over lines. */
void
_cs_plot_painter_boxed_text (CsPlotPainter     *p,
                             const char        *text,
                             gboolean           bold,
                             const CsPlotColor *color,
                             const CsPlotColor *border,
                             double             x,
                             double             y)
{
  double width, height;

  _cs_plot_painter_text_size (p, text, bold, &width, &height);

  rounded_rect (p->cr, round (x) - 4.0, round (y) - 2.0, width + 8.0, height + 4.0, 3.0);
  _cs_plot_set_color (p->cr, &p->palette->background, 0.88);
  cairo_fill_preserve (p->cr);
  if (border != NULL)
    {
      cairo_set_line_width (p->cr, 1.0);
      _cs_plot_set_color (p->cr, border, 0.8);
      cairo_stroke (p->cr);
    }
  else
    {
      cairo_new_path (p->cr);
    }

  _cs_plot_painter_text (p, text, bold, color, 1.0, x, y, 0.0, 0.0);
}

void
_cs_plot_painter_background (CsPlotPainter *p,
                             double         width,
                             double         height)
{
  cairo_rectangle (p->cr, 0, 0, width, height);
  _cs_plot_set_color (p->cr, &p->palette->background, 1.0);
  cairo_fill (p->cr);
}

void
_cs_plot_draw_value_grid (CsPlotPainter    *p,
                          const CsPlotRect *plot,
                          double            y_max,
                          gboolean          labels)
{
  double ticks[CS_PLOT_MAX_TICKS];
  double step;
  guint max_intervals;
  guint n;
  cairo_t *cr = p->cr;

  max_intervals = (guint) CLAMP (plot->height / (p->line_height * 2.0), 1.0, 6.0);
  n = _cs_plot_axis_ticks (0.0, y_max, max_intervals, &step, ticks, G_N_ELEMENTS (ticks));

  cairo_save (cr);
  cairo_set_line_width (cr, 1.0);
  _cs_plot_set_color (cr, &p->palette->grid, 1.0);
  for (guint i = 1; i < n; i++)
    {
      double y = plot->y + plot->height - ticks[i] / y_max * plot->height;
      _cs_plot_crisp_hline (cr, plot->x, plot->x + plot->width, y);
    }
  cairo_stroke (cr);

  /* The zero line is the base of the chart: a little stronger than the grid. */
  _cs_plot_set_color (cr, &p->palette->foreground, 0.45);
  _cs_plot_crisp_hline (cr, plot->x, plot->x + plot->width, plot->y + plot->height - 1.0);
  cairo_stroke (cr);
  cairo_restore (cr);

  if (!labels)
    return;

  for (guint i = 0; i < n; i++)
    {
      char label[CS_PLOT_LABEL_SIZE];
      double y = plot->y + plot->height - ticks[i] / y_max * plot->height;

      _cs_plot_format_tick (label, sizeof label, ticks[i], step);
      _cs_plot_painter_text (p, label, FALSE, &p->palette->foreground, 0.8,
                             plot->x - LABEL_GAP, y, 1.0, 0.5);
    }
}
