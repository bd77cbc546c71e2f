/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-plot"

#include "config.h"

#include <math.h>

#include "cs-plot.h"
#include "cs-plot-private.h"

/*
 * A series from a run's entries to lines on screen. However many entries
 * there are, at most one point per pixel column is drawn (the entries of a
 * column merge), so a frame costs what its width does.
 */

#define SERIES_LINE_WIDTH 1.5

/* The lowest and highest value of @counter in entry @i; a sample's own value. */
static void
run_extremes (const CsPlotRun *run,
              guint            i,
              CsCounter        counter,
              double          *out_lo,
              double          *out_hi)
{
  if (run->buckets != NULL)
    {
      *out_lo = run->buckets[i].min[counter];
      *out_hi = run->buckets[i].max[counter];
      return;
    }
  *out_lo = *out_hi = run->samples[i].values[counter];
}

static guint
run_weight (const CsPlotRun *run,
            guint            i)
{
  return run->buckets != NULL ? MAX (run->buckets[i].n, 1) : 1;
}

double
_cs_plot_series_max (const CsPlotSeries *series,
                     guint               n_series,
                     double              t_lo,
                     double              t_hi)
{
  double max = 0.0;

  for (guint s = 0; s < n_series; s++)
    {
      const CsPlotRun *run = series[s].run;

      for (guint i = 0; i < _cs_plot_run_len (run); i++)
        {
          const CsSample *sample = _cs_plot_run_at (run, i);
          double lo, hi;

          if (!(sample->t >= t_lo && sample->t <= t_hi))
            continue;

          /* The band's top is in the chart too. */
          run_extremes (run, i, series[s].counter, &lo, &hi);
          hi = _cs_plot_sane_value (isnan (hi) ? sample->values[series[s].counter] : hi);
          if (!isnan (hi))
            max = MAX (max, hi);
        }
    }

  return max;
}

/* Index range of the samples to draw: those in the window plus one on either
 * side, so lines run to the edges instead of stopping short. */
static void
visible_range (const CsPlotRun *run,
               double           t_lo,
               double           t_hi,
               guint           *out_first,
               guint           *out_end)
{
  guint first = 0;
  guint end = _cs_plot_run_len (run);

  for (guint i = 0; i < _cs_plot_run_len (run); i++)
    {
      if (_cs_plot_run_at (run, i)->t < t_lo)
        first = i;
      else
        break;
    }

  for (guint i = first; i < _cs_plot_run_len (run); i++)
    {
      if (_cs_plot_run_at (run, i)->t > t_hi)
        {
          end = i + 1;
          break;
        }
    }

  *out_first = first;
  *out_end = end;
}

typedef struct {
  double x;
  double y;
  double y_lo;     /* the band, on screen: y of the lowest value */
  double y_hi;     /* and of the highest */
} Point;

/* The points of one pixel column, being merged. */
typedef struct {
  double   x_sum;
  double   v_sum;
  double   lo;
  double   hi;
  guint64  weight;
  guint    n;
  int      column;
} Column;

static double
value_to_y (const CsPlotRect *plot,
            double            y_max,
            double            v)
{
  /* Far outside values are clipped anyway; keep them just past the edge. */
  v = CLAMP (v, -0.1 * y_max, 1.1 * y_max);

  return plot->y + plot->height - v / y_max * plot->height;
}

static void
column_flush (Column           *column,
              const CsPlotRect *plot,
              double            y_max,
              GArray           *points)
{
  Point pt;

  if (column->n == 0)
    return;
  pt.x = column->x_sum / column->n;
  pt.y = value_to_y (plot, y_max, column->v_sum / column->weight);
  pt.y_lo = value_to_y (plot, y_max, column->lo);
  pt.y_hi = value_to_y (plot, y_max, column->hi);
  g_array_append_val (points, pt);
  column->n = 0;
}

/* One value at @x joins its pixel column; a new column flushes the last. */
static void
column_add (Column           *column,
            double            x,
            double            v,
            double            lo,
            double            hi,
            guint             weight,
            const CsPlotRect *plot,
            double            y_max,
            GArray           *points)
{
  int col = (int) floor (x);

  if (column->n > 0 && col != column->column)
    column_flush (column, plot, y_max, points);
  if (column->n == 0)
    *column = (Column) { 0, 0, lo, hi, 0, 0, col };
  column->x_sum += x;
  column->v_sum += v * weight;
  column->weight += weight;
  column->lo = MIN (column->lo, lo);
  column->hi = MAX (column->hi, hi);
  column->n++;
}

/* Collects the series as screen points, one per pixel column at most: the
 * entries falling in one column merge, their mean (weighted by the samples
 * each holds) for the line, their lowest and highest for the band. A NaN
 * point separates stretches where the data is missing. */
static void
series_points (const CsPlotSeries *series,
               const CsPlotRect   *plot,
               double              t_lo,
               double              t_hi,
               double              y_max,
               GArray             *points)
{
  const CsPlotRun *run = series->run;
  const Point gap = { NAN, NAN, NAN, NAN };
  Column column = { 0 };
  guint first, end;

  g_array_set_size (points, 0);
  visible_range (run, t_lo, t_hi, &first, &end);

  for (guint i = first; i < end; i++)
    {
      const CsSample *sample = _cs_plot_run_at (run, i);
      double v = _cs_plot_sane_value (sample->values[series->counter]);
      double lo, hi, x;
      guint weight = run_weight (run, i);

      if (!isfinite (sample->t) || isnan (v))
        {
          column_flush (&column, plot, y_max, points);
          g_array_append_val (points, gap);
          continue;
        }

      run_extremes (run, i, series->counter, &lo, &hi);
      lo = isnan (lo) ? v : _cs_plot_sane_value (lo);
      hi = isnan (hi) ? v : _cs_plot_sane_value (hi);

      /* A run's first sample is its rate over the clock's first interval,
       * from 0: drawn across it, so a copy of one sample is a line. */
      if (i == 0 && sample->t > 0.0)
        column_add (&column, _cs_plot_time_to_x (plot, t_lo, t_hi, MAX (0.0, t_lo - (t_hi - t_lo))),
                    v, lo, hi, weight, plot, y_max, points);

      x = _cs_plot_time_to_x (plot, t_lo, t_hi,
                              CLAMP (sample->t, t_lo - (t_hi - t_lo), t_hi + (t_hi - t_lo)));
      column_add (&column, x, v, lo, hi, weight, plot, y_max, points);
    }
  column_flush (&column, plot, y_max, points);
}

typedef enum {
  SEGMENTS_FILL,
  SEGMENTS_BAND,
  SEGMENTS_STROKE,
  SEGMENTS_DOTS,
} SegmentsPass;

/* Whether a stretch has a band to show: merged values that differ by more
 * than half a pixel somewhere. */
static gboolean
segment_has_band (const Point *pts,
                  guint        start,
                  guint        end)
{
  for (guint j = start; j < end; j++)
    if (pts[j].y_lo - pts[j].y_hi > 0.5)
      return TRUE;

  return FALSE;
}

static void
series_draw_segments (cairo_t      *cr,
                      GArray       *points,
                      double        baseline,
                      SegmentsPass  pass)
{
  guint i = 0;

  while (i < points->len)
    {
      const Point *pts = &g_array_index (points, Point, 0);
      guint start, end;

      while (i < points->len && isnan (pts[i].x))
        i++;
      start = i;
      while (i < points->len && !isnan (pts[i].x))
        i++;
      end = i;

      if (end == start)
        continue;

      switch (pass)
        {
        case SEGMENTS_FILL:
          if (end - start < 2)
            break;
          cairo_move_to (cr, pts[start].x, baseline);
          for (guint j = start; j < end; j++)
            cairo_line_to (cr, pts[j].x, pts[j].y);
          cairo_line_to (cr, pts[end - 1].x, baseline);
          cairo_close_path (cr);
          break;

        case SEGMENTS_BAND:
          if (end - start < 2 || !segment_has_band (pts, start, end))
            break;
          cairo_move_to (cr, pts[start].x, pts[start].y_hi);
          for (guint j = start + 1; j < end; j++)
            cairo_line_to (cr, pts[j].x, pts[j].y_hi);
          for (guint j = end; j-- > start;)
            cairo_line_to (cr, pts[j].x, pts[j].y_lo);
          cairo_close_path (cr);
          break;

        case SEGMENTS_STROKE:
          if (end - start < 2)
            break;
          cairo_move_to (cr, pts[start].x, pts[start].y);
          for (guint j = start + 1; j < end; j++)
            cairo_line_to (cr, pts[j].x, pts[j].y);
          break;

        case SEGMENTS_DOTS:
          /* A lone sample has no line to show it: give it a dot. */
          if (end - start != 1)
            break;
          cairo_new_sub_path (cr);
          cairo_arc (cr, pts[start].x, pts[start].y, 2.5, 0.0, 2.0 * G_PI);
          break;

        default:
          g_assert_not_reached ();
        }
    }
}

void
_cs_plot_draw_series (CsPlotPainter      *p,
                      const CsPlotSeries *series,
                      guint               n_series,
                      const CsPlotRect   *plot,
                      double              t_lo,
                      double              t_hi,
                      double              y_max,
                      gboolean            fill)
{
  g_autoptr(GArray) points = g_array_new (FALSE, FALSE, sizeof (Point));
  cairo_t *cr = p->cr;
  double baseline = plot->y + plot->height;

  /* The clip reaches a line's width past the top and bottom, so a series at
   * the axis maximum or at zero shows in full instead of half. */
  cairo_save (cr);
  cairo_rectangle (cr, plot->x, plot->y - SERIES_LINE_WIDTH,
                   plot->width, plot->height + 2.0 * SERIES_LINE_WIDTH);
  cairo_clip (cr);

  for (guint s = 0; s < n_series; s++)
    {
      const CsPlotColor *color = &p->palette->series[series[s].style % CS_PLOT_N_SERIES_COLORS];

      series_points (&series[s], plot, t_lo, t_hi, y_max, points);

      /* Only the first series is shaded: two translucent fills on top of
       * each other turn into a muddy grey. */
      if (fill && s == 0)
        {
          series_draw_segments (cr, points, baseline, SEGMENTS_FILL);
          _cs_plot_set_color (cr, color, 0.10);
          cairo_fill (cr);
        }

      /* Where columns merged several values, their range behind the mean. */
      series_draw_segments (cr, points, baseline, SEGMENTS_BAND);
      _cs_plot_set_color (cr, color, 0.22);
      cairo_fill (cr);

      series_draw_segments (cr, points, baseline, SEGMENTS_STROKE);
      _cs_plot_set_series_style (cr, p->palette, series[s].style, SERIES_LINE_WIDTH);
      cairo_stroke (cr);

      series_draw_segments (cr, points, baseline, SEGMENTS_DOTS);
      _cs_plot_set_color (cr, color, 1.0);
      cairo_fill (cr);
    }

  cairo_restore (cr);
}
