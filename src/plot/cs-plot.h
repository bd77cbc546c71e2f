/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * Drawing of Copyscope's charts with cairo and pango, without GTK: the window
 * draws through these functions in its snapshot, and exports write the same
 * picture to PNG, SVG and PDF.
 */

#include <cairo.h>
#include <gio/gio.h>

#include "cs-run.h"

G_BEGIN_DECLS

typedef struct {
  double r, g, b, a;
} CsPlotColor;

#define CS_PLOT_N_SERIES_COLORS 8

typedef struct {
  CsPlotColor background;
  CsPlotColor foreground;      /* text, axes */
  CsPlotColor grid;
  CsPlotColor marker;          /* thread-change markers */
  CsPlotColor series[CS_PLOT_N_SERIES_COLORS];
  const char *font_family;     /* NULL: "Sans" */
  double      font_size;       /* points; 0: 9 */
} CsPlotPalette;

void cs_plot_palette_init_light         (CsPlotPalette *palette);
void cs_plot_palette_init_dark          (CsPlotPalette *palette);
void cs_plot_palette_init_high_contrast (CsPlotPalette *palette);

/*
 * One run's data for the throughput chart; borrowed. Either samples, or the
 * run's series of buckets (cs_run_dup_series ()): then a band from each
 * bucket's lowest to its highest value shows under the line of its means.
 * However many there are, the chart draws at most one point per pixel
 * column: those that fall in a column merge (their mean for the line, their
 * extremes for the band), so the cost of a frame stays that of its width.
 */
typedef struct {
  const CsSample       *samples;
  guint                 n_samples;
  const CsThreadChange *changes;
  guint                 n_changes;
  const CsRunEvent     *events;       /* pauses, questions and speed-limit changes are marked */
  guint                 n_events;
  const char           *label;        /* legend entry in comparisons; NULL for a single run */
  const CsBucket       *buckets;      /* instead of samples when not NULL */
  guint                 n_buckets;
  double                max_rate;     /* bytes/s at the start, 0: none; with its changes, a line */
} CsPlotRun;

/* Nice axis maxima kept between frames so the axes do not jump at every dip. */
typedef struct {
  double rate_max;      /* MB/s axis; 0 = not set yet */
  double request_max;   /* requests/s axis */
  double check_max;     /* files checked/s axis */
} CsPlotAxisState;

typedef struct {
  double           t_min;         /* visible window in seconds; t_max <= t_min shows everything */
  double           t_max;
  double           hover_t;       /* < 0: no hover line */
  gboolean         show_markers;
  CsPlotAxisState *axes;          /* in/out; NULL: computed fresh */
  gboolean         show_checks;   /* a single run: a third chart of files checked/s */
} CsPlotOptions;

/*
 * Two stacked charts on one time axis: transfer rate (read and write MB/s for a
 * single run; data MB/s per run when several are overlaid, aligned at their
 * starts) and request rate (data requests/s and all requests/s; all requests/s
 * per run when overlaid), with a labelled vertical marker ("8 → 16 threads") at
 * every thread change and speed-limit change, a dotted one ("paused 12 s")
 * where the clock stood still for a pause or a question, and a single run's
 * MB/s limit as a line. Series differ by dash as well as colour. With
 * @show_checks, a single run gets a third chart under them, files checked/s:
 * on a rerun that finds most files unchanged the work is deciding, and its
 * rate says how fast that goes where MB/s and requests/s read as idle.
 */
void     cs_plot_draw_throughput     (cairo_t             *cr,
                                      double               width,
                                      double               height,
                                      const CsPlotPalette *palette,
                                      const CsPlotRun     *runs,
                                      guint                n_runs,
                                      const CsPlotOptions *options);

/* The time axis the chart draws: the options' window, else 0 to the end of
 * the longest run; FALSE when there are no samples. */
gboolean cs_plot_throughput_time_range (const CsPlotRun     *runs,
                                        guint                n_runs,
                                        const CsPlotOptions *options,
                                        double              *out_lo,
                                        double              *out_hi);
/* Maps an x position in a chart of @width back to a time; FALSE outside the plot area. */
gboolean cs_plot_throughput_time_at  (double               width,
                                      double               height,
                                      const CsPlotRun     *runs,
                                      guint                n_runs,
                                      const CsPlotOptions *options,
                                      double               x,
                                      double              *out_t);

/* One thread count of a sweep: median, min and max over its repeats. */
typedef struct {
  guint  threads;
  double median;
  double min;
  double max;
} CsPlotSweepPoint;

/* A metric against thread count on a log2 axis, with min–max bars and the
 * recommended count highlighted (0: none) and labelled @recommended_label
 * (NULL: "recommended: N"), which says why in the chart's numbers. */
void     cs_plot_draw_sweep          (cairo_t                *cr,
                                      double                  width,
                                      double                  height,
                                      const CsPlotPalette    *palette,
                                      const char             *title,
                                      const char             *unit,
                                      const CsPlotSweepPoint *points,
                                      guint                   n_points,
                                      guint                   recommended,
                                      const char             *recommended_label);

/* The narrowest chart cs_plot_draw_sweep () can draw with the label of its
 * @recommended count (labelled as it says) inside the plot; 0 when nothing
 * is recommended. @palette: NULL for the light one (only its font counts). */
double   cs_plot_sweep_min_width     (const CsPlotPalette    *palette,
                                      guint                   recommended,
                                      const char             *recommended_label);

/* The phase chart (cs-phases.h): worker-time as a stacked area of workers
 * by phase over the copy, a step per entry of the record's series
 * (cs_run_dup_phase_series ()), a legend of the phases that took any time,
 * the thread changes marked, and a time axis in seconds, minutes or hours
 * as the copy's length suits. */
void     cs_plot_draw_phases         (cairo_t              *cr,
                                      double                width,
                                      double                height,
                                      const CsPlotPalette  *palette,
                                      const CsPhaseBucket  *series,
                                      guint                 n_series,
                                      const CsThreadChange *changes,
                                      guint                 n_changes);
/* The same without its title and legend, for a window that shows them
 * with its own widgets (and translates the phases' labels there). */
void     cs_plot_draw_phases_area    (cairo_t              *cr,
                                      double                width,
                                      double                height,
                                      const CsPlotPalette  *palette,
                                      const CsPhaseBucket  *series,
                                      guint                 n_series,
                                      const CsThreadChange *changes,
                                      guint                 n_changes);
/* The legend entry of the line drawn over the stack where the record has
 * it (CsPhaseBucket.runnable): a dashed stroke of @width from (@x, @y).
 * @palette: NULL for the light one. Its label: "Ready, waiting for a
 * processor". */
void     cs_plot_draw_runnable_swatch (cairo_t             *cr,
                                       double               x,
                                       double               y,
                                       double               width,
                                       const CsPlotPalette *palette);
/* A phase's colour, the same in every chart and export. */
void     cs_plot_phase_colour        (CsPhase               phase,
                                      CsPlotColor          *out_colour);
/* The unit a time axis spanning @span seconds reads in: seconds up to two
 * minutes, minutes up to two hours, then hours (translated label). */
void     cs_plot_time_unit           (double                span,
                                      double               *out_divisor,
                                      const char          **out_label);

/* "Nice" numbers: the smallest 1, 2 or 5 × 10^n >= @value (value > 0). */
double   cs_plot_nice_ceiling        (double               value);
/* The time axis of a live chart whose copy has run @t_end seconds, showing at
 * most the last @window: while the copy is shorter, from 0 to the next nice
 * span that holds it (0.5, 1, 2, 5, 10, 20, 50 s, then @window), so a copy of
 * a second fills its chart instead of a sliver of a minute's. */
void     cs_plot_live_time_range     (double               t_end,
                                      double               window,
                                      double              *out_lo,
                                      double              *out_hi);
/* Grows at once; shrinks only when the data falls below 40 % of the current maximum. */
double   cs_plot_axis_update         (double               current_max,
                                      double               data_max);

typedef enum {
  CS_PLOT_FORMAT_PNG,
  CS_PLOT_FORMAT_SVG,
  CS_PLOT_FORMAT_PDF,
} CsPlotFormat;

gboolean cs_plot_format_from_string  (const char          *str,
                                      CsPlotFormat        *out_format);

typedef void (*CsPlotDrawFunc) (cairo_t  *cr,
                                double    width,
                                double    height,
                                gpointer  user_data);

/* Renders @draw into a PNG, SVG or PDF document of @width × @height points. */
GBytes  *cs_plot_render              (CsPlotFormat         format,
                                      double               width,
                                      double               height,
                                      CsPlotDrawFunc       draw,
                                      gpointer             user_data,
                                      GError             **error);

G_END_DECLS
