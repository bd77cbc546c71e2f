/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-plot"

#include "config.h"

#include <math.h>

#include <glib/gi18n-lib.h>

#include "cs-plot.h"
#include "cs-plot-private.h"

/*
 * What happened during a run, marked on the throughput chart's time axis:
 * thread changes and speed-limit changes (dashed, labelled), pauses and
 * questions (dotted, labelled with how long the clock stood still), and a
 * single run's MB/s limit as a step line.
 */

#define MAX_MARKER_LANES 4

typedef struct {
  double             t;
  char              *label;
  const CsPlotColor *color;
  gboolean           framed;
  gboolean           hold;       /* the clock stood still here: a pause, a question */
  gboolean           shown;      /* its label has a place (_cs_plot_layout_marker_labels) */
  double             label_x;    /* where its label's text starts */
  double             label_y;
} Marker;

static void
marker_clear (gpointer data)
{
  Marker *marker = data;

  g_free (marker->label);
}

static int
marker_compare (gconstpointer a,
                gconstpointer b)
{
  const Marker *ma = a;
  const Marker *mb = b;

  return (ma->t > mb->t) - (ma->t < mb->t);
}

static char *
thread_change_label (const CsThreadChange *change)
{
  const char *format = g_dngettext (GETTEXT_PACKAGE, "%u → %u thread", "%u → %u threads",
                                    change->to);

  return g_strdup_printf (format, change->from, change->to);
}

/* "paused 12 s", "question 4.5 s": how long the clock stood still at this point. */
static char *
hold_label (const CsRunEvent *event)
{
  int digits = event->value < 10.0 ? 1 : 0;

  if (g_str_equal (event->kind, "pause"))
    /* Translators: a mark on the graph where the copy was paused, like "paused 12 s" */
    return g_strdup_printf (_("paused %.*f s"), digits, event->value);
  /* Translators: a mark on the graph where the copy waited for an answer to a
   * question (a conflict), like "question 4.5 s" */
  return g_strdup_printf (_("question %.*f s"), digits, event->value);
}

static gboolean
event_is_hold (const CsRunEvent *event)
{
  return g_str_equal (event->kind, "pause") || g_str_equal (event->kind, "question");
}

static char *
limit_change_label (const CsRunEvent *event)
{
  if (g_strcmp0 (event->kind, "max-rate") == 0)
    return event->value > 0 ? g_strdup_printf (_("limit %.0f MB/s"), event->value / 1e6)
                            : g_strdup (_("no speed limit"));
  return event->value > 0 ? g_strdup_printf (_("limit %.0f files/s"), event->value)
                          : g_strdup (_("no file limit"));
}

static gboolean
is_limit_change (const CsRunEvent *event)
{
  return g_strcmp0 (event->kind, "max-rate") == 0 || g_strcmp0 (event->kind, "max-files") == 0;
}

/* The MB/s limit in force at @t, 0 for none. */
static double
rate_limit_at (const CsPlotRun *run,
               double           t)
{
  double limit = run->max_rate;

  for (guint i = 0; i < run->n_events; i++)
    if (g_strcmp0 (run->events[i].kind, "max-rate") == 0 && run->events[i].t <= t)
      limit = run->events[i].value;
  return limit / 1e6;
}

/* The highest MB/s limit in force between @t_lo and @t_hi, so the axis
 * shows it. */
double
_cs_plot_rate_limit_max (const CsPlotRun *run,
                         double           t_lo,
                         double           t_hi)
{
  double max = rate_limit_at (run, t_lo);

  for (guint i = 0; i < run->n_events; i++)
    if (g_strcmp0 (run->events[i].kind, "max-rate") == 0 && run->events[i].t > t_lo
        && run->events[i].t <= t_hi)
      max = MAX (max, run->events[i].value / 1e6);
  return max;
}

/* The MB/s limit as a step line: level from each change to the next. */
void
_cs_plot_draw_rate_limit (CsPlotPainter    *p,
                          const CsPlotRun  *run,
                          const CsPlotRect *plot,
                          double            t_lo,
                          double            t_hi,
                          double            y_max)
{
  static const double dash[] = { 8.0, 4.0 };
  cairo_t *cr = p->cr;
  double t = t_lo;

  cairo_save (cr);
  cairo_rectangle (cr, plot->x, plot->y, plot->width, plot->height);
  cairo_clip (cr);
  cairo_set_line_width (cr, 1.5);
  cairo_set_dash (cr, dash, G_N_ELEMENTS (dash), 0.0);
  _cs_plot_set_color (cr, &p->palette->marker, 0.9);
  while (t < t_hi)
    {
      double limit = rate_limit_at (run, t);
      double next = t_hi;

      for (guint i = 0; i < run->n_events; i++)
        if (g_strcmp0 (run->events[i].kind, "max-rate") == 0 && run->events[i].t > t
            && run->events[i].t < next)
          next = run->events[i].t;
      if (limit > 0 && y_max > 0)
        {
          double y = plot->y + plot->height * (1.0 - MIN (limit / y_max, 1.0));

          cairo_move_to (cr, _cs_plot_time_to_x (plot, t_lo, t_hi, t), _cs_plot_crisp (y));
          cairo_line_to (cr, _cs_plot_time_to_x (plot, t_lo, t_hi, next), _cs_plot_crisp (y));
          cairo_stroke (cr);
        }
      t = next;
    }
  cairo_restore (cr);
}

GArray *
_cs_plot_collect_markers (const CsPlotPalette *palette,
                          const CsPlotRun     *runs,
                          guint                n_runs,
                          double               t_lo,
                          double               t_hi)
{
  GArray *markers = g_array_new (FALSE, FALSE, sizeof (Marker));

  g_array_set_clear_func (markers, marker_clear);

  for (guint r = 0; r < n_runs; r++)
    {
      for (guint i = 0; i < runs[r].n_changes; i++)
        {
          const CsThreadChange *change = &runs[r].changes[i];
          Marker marker;

          if (!(change->t >= t_lo && change->t <= t_hi))
            continue;

          marker.t = change->t;
          marker.label = thread_change_label (change);
          /* Overlaid runs each have their own changes: tell them apart. */
          marker.color = n_runs > 1 ? &palette->series[r % CS_PLOT_N_SERIES_COLORS]
                                    : &palette->marker;
          marker.framed = n_runs > 1;
          marker.hold = FALSE;
          g_array_append_val (markers, marker);
        }

      for (guint i = 0; i < runs[r].n_events; i++)
        {
          const CsRunEvent *event = &runs[r].events[i];
          Marker marker;

          if (!event_is_hold (event) || !(event->t >= t_lo && event->t <= t_hi))
            continue;

          marker.t = event->t;
          marker.label = hold_label (event);
          marker.color = n_runs > 1 ? &palette->series[r % CS_PLOT_N_SERIES_COLORS]
                                    : &palette->foreground;
          marker.framed = TRUE;
          marker.hold = TRUE;
          g_array_append_val (markers, marker);
        }

      for (guint i = 0; i < runs[r].n_events; i++)
        {
          const CsRunEvent *event = &runs[r].events[i];
          Marker marker;

          if (!is_limit_change (event) || !(event->t >= t_lo && event->t <= t_hi))
            continue;

          marker.t = event->t;
          marker.label = limit_change_label (event);
          marker.color = n_runs > 1 ? &palette->series[r % CS_PLOT_N_SERIES_COLORS]
                                    : &palette->marker;
          marker.framed = n_runs > 1;
          marker.hold = FALSE;
          g_array_append_val (markers, marker);
        }
    }

  g_array_sort (markers, marker_compare);

  return markers;
}

void
_cs_plot_draw_marker_lines (CsPlotPainter    *p,
                            GArray           *markers,
                            const CsPlotRect *plot,
                            double            t_lo,
                            double            t_hi)
{
  static const double dash[] = { 4.0, 3.0 };
  static const double hold_dash[] = { 1.0, 2.0 };
  cairo_t *cr = p->cr;

  cairo_save (cr);
  cairo_rectangle (cr, plot->x, plot->y, plot->width, plot->height);
  cairo_clip (cr);
  cairo_set_line_width (cr, 1.0);

  for (guint i = 0; i < markers->len; i++)
    {
      const Marker *marker = &g_array_index (markers, Marker, i);

      if (marker->hold)
        cairo_set_dash (cr, hold_dash, G_N_ELEMENTS (hold_dash), 0.0);
      else
        cairo_set_dash (cr, dash, G_N_ELEMENTS (dash), 0.0);
      _cs_plot_crisp_vline (cr, _cs_plot_time_to_x (plot, t_lo, t_hi, marker->t),
                            plot->y, plot->y + plot->height);
      _cs_plot_set_color (cr, marker->color, 0.85);
      cairo_stroke (cr);
    }

  cairo_restore (cr);
}

/* Labels go in lanes at the top of the plot; each takes the first lane where
 * it does not run into the previous label, so close changes stack instead of
 * overprinting. When every lane is taken there it goes without a label: the
 * dashed line alone marks it (its count is in the tooltip's thread count),
 * rather than labels over labels. */
void
_cs_plot_layout_marker_labels (CsPlotPainter    *p,
                               GArray           *markers,
                               const CsPlotRect *plot,
                               double            t_lo,
                               double            t_hi)
{
  double lane_end[MAX_MARKER_LANES];
  double lane_height = p->line_height + 6.0;
  guint n_lanes;

  n_lanes = (guint) CLAMP (floor (plot->height * 0.6 / lane_height), 1.0, MAX_MARKER_LANES);
  for (guint i = 0; i < n_lanes; i++)
    lane_end[i] = -G_MAXDOUBLE;

  for (guint i = 0; i < markers->len; i++)
    {
      Marker *marker = &g_array_index (markers, Marker, i);
      double x = _cs_plot_time_to_x (plot, t_lo, t_hi, marker->t);
      double label_width;
      double left;

      _cs_plot_painter_text_size (p, marker->label, FALSE, &label_width, NULL);

      left = x + 5.0;
      if (left + label_width + 3.0 > plot->x + plot->width)
        left = x - 5.0 - label_width;

      marker->shown = FALSE;
      for (guint l = 0; l < n_lanes && !marker->shown; l++)
        {
          if (lane_end[l] + 6.0 <= left)
            {
              lane_end[l] = MAX (lane_end[l], left + label_width);
              marker->shown = TRUE;
              marker->label_x = left;
              marker->label_y = plot->y + 4.0 + l * lane_height;
            }
        }
    }
}

/* The box _cs_plot_painter_boxed_text () draws around a marker's label. */
static void
marker_label_box (CsPlotPainter *p,
                  const Marker  *marker,
                  CsPlotRect    *box)
{
  double width, height;

  _cs_plot_painter_text_size (p, marker->label, FALSE, &width, &height);
  box->x = round (marker->label_x) - 4.0;
  box->y = round (marker->label_y) - 2.0;
  box->width = width + 8.0;
  box->height = height + 4.0;
}

/*
 * Keeps what is drawn next (grid, lines, series) off the labels' boxes, so
 * that a label lies on top of them as on paper, whatever the ground: the
 * window leaves it transparent for its frame to show through, and a box
 * filled with it would hide nothing. Undone by cairo_restore ().
 */
void
_cs_plot_clip_out_marker_labels (CsPlotPainter *p,
                                 GArray        *markers,
                                 double         width,
                                 double         height)
{
  cairo_t *cr = p->cr;

  cairo_save (cr);
  cairo_rectangle (cr, 0, 0, width, height);
  for (guint i = 0; i < markers->len; i++)
    {
      const Marker *marker = &g_array_index (markers, Marker, i);
      CsPlotRect box;

      if (!marker->shown)
        continue;
      marker_label_box (p, marker, &box);
      cairo_rectangle (cr, box.x, box.y, box.width, box.height);
    }
  cairo_set_fill_rule (cr, CAIRO_FILL_RULE_EVEN_ODD);
  cairo_clip (cr);
  cairo_set_fill_rule (cr, CAIRO_FILL_RULE_WINDING);
}

void
_cs_plot_draw_marker_labels (CsPlotPainter    *p,
                             GArray           *markers,
                             const CsPlotRect *plot)
{
  cairo_save (p->cr);
  cairo_rectangle (p->cr, plot->x, plot->y, plot->width, plot->height);
  cairo_clip (p->cr);

  for (guint i = 0; i < markers->len; i++)
    {
      const Marker *marker = &g_array_index (markers, Marker, i);

      if (marker->shown)
        _cs_plot_painter_boxed_text (p, marker->label, FALSE, &p->palette->foreground,
                                     marker->framed ? marker->color : NULL,
                                     marker->label_x, marker->label_y);
    }

  cairo_restore (p->cr);
}
