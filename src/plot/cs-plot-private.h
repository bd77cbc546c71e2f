/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <math.h>
#include <pango/pangocairo.h>

#include "cs-plot.h"

/*
 * What the pieces of src/plot share. cs-plot-throughput.c and
 * cs-plot-sweep.c draw the two charts out of: the painter (cairo context,
 * text, crisp lines, the value grid), the legend, the series (decimated to
 * pixel columns), the markers and the read-out at the pointer; colours come
 * from cs-plot-palette.c, axis maths from cs-plot-axis.c, and cs-plot.c
 * writes a drawing to PNG, SVG or PDF.
 */

G_BEGIN_DECLS

/* Room for any tick label, suffix and sign included. */
#define CS_PLOT_LABEL_SIZE 32

/* Sanity limit for plotted values: anything larger is treated as this, so the
 * axis maths never overflows and cairo never sees coordinates it cannot hold. */
#define CS_PLOT_VALUE_LIMIT 1e15

/* The layout both charts share. The horizontal one does not depend on the
 * font, so that cs_plot_throughput_time_at () can map pointer positions
 * without drawing. */
#define CS_PLOT_PADDING         8.0
#define CS_PLOT_LEFT_GUTTER     46.0
#define CS_PLOT_RIGHT_GUTTER    14.0
#define CS_PLOT_MIN_PLOT_SIZE   12.0
#define CS_PLOT_MAX_TICKS       64
#define CS_PLOT_LEGEND_ITEM_GAP 16.0

/* Axis maths and number formatting (cs-plot-axis.c). */
double _cs_plot_axis_step   (double  span,
                             guint   max_intervals);
guint  _cs_plot_axis_ticks  (double  lo,
                             double  hi,
                             guint   max_intervals,
                             double *out_step,
                             double *ticks,
                             guint   max_ticks);

void   _cs_plot_format_number (char   *buf,
                               gsize   size,
                               double  value,
                               double  step);
void   _cs_plot_format_tick   (char   *buf,
                               gsize   size,
                               double  value,
                               double  step);

/* A plot's area, in the surface's units. */
typedef struct {
  double x;
  double y;
  double width;
  double height;
} CsPlotRect;

/* The cairo context, the palette and a layout for text (cs-plot-painter.c). */
typedef struct {
  cairo_t              *cr;
  const CsPlotPalette  *palette;
  PangoLayout          *layout;
  PangoFontDescription *font;
  PangoFontDescription *bold;
  double                font_px;
  double                line_height;
} CsPlotPainter;

void   _cs_plot_painter_init       (CsPlotPainter       *p,
                                    cairo_t             *cr,
                                    const CsPlotPalette *palette);
void   _cs_plot_painter_clear      (CsPlotPainter       *p);
void   _cs_plot_painter_background (CsPlotPainter       *p,
                                    double               width,
                                    double               height);
void   _cs_plot_painter_text_size  (CsPlotPainter       *p,
                                    const char          *text,
                                    gboolean             bold,
                                    double              *out_width,
                                    double              *out_height);
double _cs_plot_painter_text       (CsPlotPainter       *p,
                                    const char          *text,
                                    gboolean             bold,
                                    const CsPlotColor   *color,
                                    double               alpha,
                                    double               x,
                                    double               y,
                                    double               xalign,
                                    double               yalign);
void   _cs_plot_painter_boxed_text (CsPlotPainter       *p,
                                    const char          *text,
                                    gboolean             bold,
                                    const CsPlotColor   *color,
                                    const CsPlotColor   *border,
                                    double               x,
                                    double               y);

void   _cs_plot_set_color          (cairo_t             *cr,
                                    const CsPlotColor   *color,
                                    double               alpha);

/* The centre of the pixel a coordinate falls in: 1 px lines there cover
 * exactly one row or column of pixels instead of smearing over two. */
static inline double
_cs_plot_crisp (double v)
{
  return floor (v) + 0.5;
}

void   _cs_plot_crisp_hline        (cairo_t             *cr,
                                    double               x0,
                                    double               x1,
                                    double               y);
void   _cs_plot_crisp_vline        (cairo_t             *cr,
                                    double               x,
                                    double               y0,
                                    double               y1);

/* The value axis: grid lines, the zero line and (if @labels) tick labels. */
void   _cs_plot_draw_value_grid    (CsPlotPainter       *p,
                                    const CsPlotRect    *plot,
                                    double               y_max,
                                    gboolean             labels);

/* Arithmetic every piece uses. */
static inline double
_cs_plot_time_to_x (const CsPlotRect *plot,
                    double            t_lo,
                    double            t_hi,
                    double            t)
{
  return plot->x + (t - t_lo) / (t_hi - t_lo) * plot->width;
}

/* A value safe for the axis maths and for cairo's fixed-point coordinates. */
static inline double
_cs_plot_sane_value (double v)
{
  if (isnan (v))
    return NAN;

  return CLAMP (v, -CS_PLOT_VALUE_LIMIT, CS_PLOT_VALUE_LIMIT);
}

/* A run's entries, samples or buckets alike. */
static inline guint
_cs_plot_run_len (const CsPlotRun *run)
{
  return run->buckets != NULL ? run->n_buckets : run->n_samples;
}

static inline const CsSample *
_cs_plot_run_at (const CsPlotRun *run,
                 guint            i)
{
  return run->buckets != NULL ? &run->buckets[i].sample : &run->samples[i];
}

/* Series styles and legends (cs-plot-legend.c). */
typedef enum {
  CS_PLOT_SWATCH_LINE,
  CS_PLOT_SWATCH_LINE_DOT,
  CS_PLOT_SWATCH_RANGE,
} CsPlotSwatchKind;

typedef struct {
  const char       *label;
  guint             style;
  CsPlotSwatchKind  kind;
} CsPlotLegendItem;

void   _cs_plot_set_series_style   (cairo_t                *cr,
                                    const CsPlotPalette    *palette,
                                    guint                   style,
                                    double                  line_width);
double _cs_plot_legend_layout      (CsPlotPainter          *p,
                                    const CsPlotLegendItem *items,
                                    guint                   n_items,
                                    double                  right,
                                    double                  top,
                                    double                  available,
                                    gboolean                draw);

/* One line of a chart: a counter of a run (cs-plot-series.c). */
typedef struct {
  const CsPlotRun *run;
  CsCounter        counter;
  guint            style;
  const char      *label;
} CsPlotSeries;

double _cs_plot_series_max         (const CsPlotSeries     *series,
                                    guint                   n_series,
                                    double                  t_lo,
                                    double                  t_hi);
void   _cs_plot_draw_series        (CsPlotPainter          *p,
                                    const CsPlotSeries     *series,
                                    guint                   n_series,
                                    const CsPlotRect       *plot,
                                    double                  t_lo,
                                    double                  t_hi,
                                    double                  y_max,
                                    gboolean                fill);

/* Marks on the time axis (cs-plot-markers.c): an array of them for a chart,
 * whose labels are laid out, kept clear, then drawn over the lines. */
GArray *_cs_plot_collect_markers        (const CsPlotPalette *palette,
                                         const CsPlotRun     *runs,
                                         guint                n_runs,
                                         double               t_lo,
                                         double               t_hi);
void    _cs_plot_layout_marker_labels   (CsPlotPainter       *p,
                                         GArray              *markers,
                                         const CsPlotRect    *plot,
                                         double               t_lo,
                                         double               t_hi);
void    _cs_plot_clip_out_marker_labels (CsPlotPainter       *p,
                                         GArray              *markers,
                                         double               width,
                                         double               height);
void    _cs_plot_draw_marker_lines      (CsPlotPainter       *p,
                                         GArray              *markers,
                                         const CsPlotRect    *plot,
                                         double               t_lo,
                                         double               t_hi);
void    _cs_plot_draw_marker_labels     (CsPlotPainter       *p,
                                         GArray              *markers,
                                         const CsPlotRect    *plot);
double  _cs_plot_rate_limit_max         (const CsPlotRun     *run,
                                         double               t_lo,
                                         double               t_hi);
void    _cs_plot_draw_rate_limit        (CsPlotPainter       *p,
                                         const CsPlotRun     *run,
                                         const CsPlotRect    *plot,
                                         double               t_lo,
                                         double               t_hi,
                                         double               y_max);

/* The read-out at the pointer's time @hover_t (cs-plot-hover.c). */
void    _cs_plot_draw_hover             (CsPlotPainter       *p,
                                         const CsPlotSeries  *series,
                                         guint                n_series,
                                         const CsPlotRect    *plot,
                                         double               t_lo,
                                         double               t_hi,
                                         double               y_max,
                                         double               hover_t,
                                         const char          *unit,
                                         gboolean             with_time);

G_END_DECLS
