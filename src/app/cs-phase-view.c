/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "cs-figures.h"
#include "cs-graph-style.h"
#include "cs-phase-view.h"
#include "cs-plot.h"

/*
 * "Where the time goes": the workers' time by phase over the copy, a
 * stacked area drawn by the same code as the exports' phase chart (the
 * thread changes marked as in the throughput graph), and under it the
 * lanes: one row per worker, coloured by phase, for the last seconds the
 * record keeps. The legend is made of widgets, so its labels are
 * translated text a screen reader reads.
 *
 * Where the record has the workers' run_delay, a dashed line over the
 * stack shows the workers ready to run but waiting for a processor (the
 * processors' limit: on `many` at 64 threads the stack says "writing" and
 * the line says most of that was waiting to run), with its share of the
 * worker time in a line above the chart; where it was not measured,
 * neither is shown.
 *
 * The view reads the run record, never the job: the same for a copy
 * running and one opened from History. A record without phase data (any
 * made before the engine kept phases) shows a sentence, not zeros.
 */

#define REFRESH_US      (G_USEC_PER_SEC / 2)
#define LANE_MAX_HEIGHT 10.0
#define LANE_GAP        1.0
#define LANES_MAX_AREA  128.0   /* 64 workers get 2 px rows, not a tall page */

struct _CsPhaseView
{
  GtkWidget      parent_instance;

  GtkStack      *stack;
  GtkDrawingArea *chart;
  GtkLabel      *runnable_label;
  GtkWidget     *lanes_box;
  GtkLabel      *lanes_label;
  GtkDrawingArea *lanes;
  GtkFlowBox    *legend;

  /* Owned */
  CsRun         *run;
  GArray        *series;       /* of CsPhaseBucket; NULL: no phase data */
  GArray        *lanes_data;   /* of CsPhaseLane; NULL: none */
  GArray        *changes;      /* of CsThreadChange */
  CsPlotPalette  palette;
  gint64         read_at;
  guint          legend_shown; /* bit per phase in the legend; bit CS_PHASE_N: the runnable line */
};

G_DEFINE_FINAL_TYPE (CsPhaseView, cs_phase_view, GTK_TYPE_WIDGET)

static void
draw_chart (GtkDrawingArea *area,
            cairo_t        *cr,
            int             width,
            int             height,
            gpointer        user_data)
{
  CsPhaseView *self = user_data;

  if (self->series == NULL)
    return;

  cs_plot_draw_phases_area (cr, width, height, &self->palette,
                            (const CsPhaseBucket *) (gpointer) self->series->data,
                            self->series->len,
                            (const CsThreadChange *) (gpointer) self->changes->data,
                            self->changes->len);
}

/*
 * The lanes' time span: up to the newest change or sample, whichever is
 * later, back CS_PHASE_LANE_SECONDS or to where the latest-starting lane
 * begins, whichever is nearer. A busy worker's lane keeps only its newest
 * CS_PHASE_LANE_MAX_CHANGES (at 64 workers on small files, the last two
 * or three seconds): drawn over the whole window, each row would start
 * somewhere else and the blank before it would read as idle time.
 */
static void
lanes_time_range (CsPhaseView *self,
                  double      *out_lo,
                  double      *out_hi)
{
  double hi = 0, first = 0;
  guint n = cs_phase_view_get_n_lanes (self);

  for (guint i = 0; i < self->lanes_data->len; i++)
    {
      const CsPhaseLane *lane = &g_array_index (self->lanes_data, CsPhaseLane, i);

      if (lane->changes->len > 0)
        hi = MAX (hi, g_array_index (lane->changes, CsPhaseChange, lane->changes->len - 1).t);
    }
  if (self->series != NULL && self->series->len > 0)
    hi = MAX (hi, g_array_index (self->series, CsPhaseBucket, self->series->len - 1).t);
  /* Only the lanes drawn: with more workers than rows, none are. */
  for (guint i = 0; i < n; i++)
    {
      const CsPhaseLane *lane = &g_array_index (self->lanes_data, CsPhaseLane, i);

      if (lane->changes->len > 0)
        first = MAX (first, g_array_index (lane->changes, CsPhaseChange, 0).t);
    }

  *out_hi = MAX (hi, 0.1);
  *out_lo = MAX (*out_hi - CS_PHASE_LANE_SECONDS, 0);
  /* A worker that started a moment ago does not shrink the span to
   * nothing: before its first change it was not there, and its row is
   * blank for that. */
  if (first < *out_hi - 0.05)
    *out_lo = MAX (*out_lo, first);
}

static void
draw_lanes (GtkDrawingArea *area,
            cairo_t        *cr,
            int             width,
            int             height,
            gpointer        user_data)
{
  CsPhaseView *self = user_data;
  guint n = cs_phase_view_get_n_lanes (self);
  double t_lo, t_hi, row;

  if (n == 0 || width <= 0)
    return;

  lanes_time_range (self, &t_lo, &t_hi);
  row = MIN ((double) height / n, LANE_MAX_HEIGHT + LANE_GAP);

  for (guint i = 0; i < n; i++)
    {
      const CsPhaseLane *lane = &g_array_index (self->lanes_data, CsPhaseLane, i);
      double y = i * row;

      for (guint c = 0; c < lane->changes->len; c++)
        {
          const CsPhaseChange *change = &g_array_index (lane->changes, CsPhaseChange, c);
          double start = MAX (change->t, t_lo);
          double end = c + 1 < lane->changes->len
                       ? g_array_index (lane->changes, CsPhaseChange, c + 1).t
                       : t_hi;
          CsPlotColor colour;
          double x0, x1;

          if (end <= t_lo || change->phase >= CS_PHASE_N)
            continue;
          x0 = (start - t_lo) / (t_hi - t_lo) * width;
          x1 = (MIN (end, t_hi) - t_lo) / (t_hi - t_lo) * width;
          cs_plot_phase_colour (change->phase, &colour);
          cairo_set_source_rgba (cr, colour.r, colour.g, colour.b, colour.a);
          /* A change shorter than a pixel still shows. */
          cairo_rectangle (cr, x0, y, MAX (x1 - x0, 1.0),
                           row >= 4 ? row - LANE_GAP : row);
          cairo_fill (cr);
        }
    }
}

static void
swatch_draw (GtkDrawingArea *area,
             cairo_t        *cr,
             int             width,
             int             height,
             gpointer        user_data)
{
  CsPlotColor colour;

  cs_plot_phase_colour (GPOINTER_TO_UINT (user_data), &colour);
  cairo_set_source_rgba (cr, colour.r, colour.g, colour.b, colour.a);
  cairo_rectangle (cr, 0, 0, width, height);
  cairo_fill (cr);
}

static void
runnable_swatch_draw (GtkDrawingArea *area,
                      cairo_t        *cr,
                      int             width,
                      int             height,
                      gpointer        user_data)
{
  CsPhaseView *self = user_data;

  cs_plot_draw_runnable_swatch (cr, 0, height / 2.0, width, &self->palette);
}

static GtkWidget *
legend_item (GtkWidget  *swatch,
             const char *text)
{
  GtkWidget *item = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *label = gtk_label_new (text);

  gtk_widget_set_valign (swatch, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (label, "caption");
  gtk_box_append (GTK_BOX (item), swatch);
  gtk_box_append (GTK_BOX (item), label);
  return item;
}

/* The legend lists the phases that took any time, in the stack's order,
 * then the runnable line where it is drawn (@runnable > 0). */
static void
cs_phase_view_update_legend (CsPhaseView *self,
                             const double totals[CS_PHASE_N],
                             double       runnable)
{
  guint shown = 0;

  for (guint ph = 0; ph < CS_PHASE_N; ph++)
    if (totals != NULL && totals[ph] > 0)
      shown |= 1u << ph;
  if (totals != NULL && runnable > 0)
    shown |= 1u << CS_PHASE_N;

  if (shown == self->legend_shown)
    return;
  self->legend_shown = shown;

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->legend));
       child != NULL;
       child = gtk_widget_get_first_child (GTK_WIDGET (self->legend)))
    gtk_flow_box_remove (self->legend, child);
  for (guint ph = 0; ph <= CS_PHASE_N; ph++)
    {
      GtkWidget *swatch;

      if (!(shown & (1u << ph)))
        continue;

      /* A colour or a dash, not something a screen reader reads. */
      swatch = g_object_new (GTK_TYPE_DRAWING_AREA,
                             "accessible-role", GTK_ACCESSIBLE_ROLE_PRESENTATION,
                             NULL);
      gtk_drawing_area_set_content_width (GTK_DRAWING_AREA (swatch), ph < CS_PHASE_N ? 10 : 20);
      gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (swatch), 10);
      if (ph < CS_PHASE_N)
        gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (swatch), swatch_draw,
                                        GUINT_TO_POINTER (ph), NULL);
      else
        gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (swatch), runnable_swatch_draw,
                                        self, NULL);
      gtk_flow_box_append (self->legend,
                           legend_item (swatch,
                                        ph < CS_PHASE_N ? _(cs_phase_get_label (ph))
                                                        : _("Ready, waiting for a processor")));
    }
}

/* "Ready, waiting for a processor: 41 % of worker time", or NULL where
 * it was not measured. */
static char *
runnable_sentence (const double totals[CS_PHASE_N],
                   gboolean     measured,
                   double       runnable)
{
  double sum = 0;

  if (totals == NULL || !measured)
    return NULL;
  for (guint ph = 0; ph < CS_PHASE_N; ph++)
    sum += totals[ph];
  /* Translators: the share of the workers' time they were ready to run
   * but no processor was free, as "…: 41 % of worker time" */
  return g_strdup_printf (_("Ready, waiting for a processor: %.0f %% of worker time"),
                          sum > 0 ? MIN (100.0 * runnable / sum, 100.0) : 0.0);
}

static void
cs_phase_view_update_description (CsPhaseView *self,
                                  const double totals[CS_PHASE_N],
                                  const char  *runnable)
{
  g_autoptr(GString) text = g_string_new (NULL);
  double sum = 0;

  if (totals == NULL)
    {
      gtk_accessible_update_property (GTK_ACCESSIBLE (self->chart),
                                      GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                      _("No phase data for this copy"), -1);
      return;
    }

  for (guint ph = 0; ph < CS_PHASE_N; ph++)
    sum += totals[ph];
  for (guint ph = 0; ph < CS_PHASE_N && sum > 0; ph++)
    {
      if (totals[ph] <= 0)
        continue;
      if (text->len > 0)
        g_string_append (text, ", ");
      /* Translators: a phase's share of the workers' time, as "Writing 62 %" */
      g_string_append_printf (text, _("%s %.0f %%"), _(cs_phase_get_label (ph)),
                              100.0 * totals[ph] / sum);
    }
  if (runnable != NULL)
    g_string_append_printf (text, "%s%s", text->len > 0 ? ". " : "", runnable);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->chart),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text->str, -1);
}

/* Reads the run's phases again; at most twice a second unless @force. */
void
cs_phase_view_refresh (CsPhaseView *self,
                       gboolean     force)
{
  gint64 now = g_get_monotonic_time ();
  double totals[CS_PHASE_N], runnable = 0;
  gboolean has_totals, has_runnable = FALSE;
  g_autoptr(GArray) timeline = NULL;
  g_autofree char *runnable_text = NULL;
  guint n_lanes;

  g_return_if_fail (CS_IS_PHASE_VIEW (self));

  if (!force && now - self->read_at < REFRESH_US)
    return;
  self->read_at = now;

  g_clear_pointer (&self->series, g_array_unref);
  g_clear_pointer (&self->lanes_data, g_array_unref);
  g_array_set_size (self->changes, 0);

  has_totals = self->run != NULL && cs_run_get_phase_totals (self->run, totals);
  if (has_totals)
    {
      self->series = cs_run_dup_phase_series (self->run);
      self->lanes_data = cs_run_dup_phase_lanes (self->run);
      timeline = cs_run_dup_timeline (self->run);
      has_runnable = cs_run_get_runnable_total (self->run, &runnable);
    }
  if (self->series != NULL && self->series->len == 0)
    g_clear_pointer (&self->series, g_array_unref);

  if (timeline != NULL)
    for (guint i = 0; i < timeline->len; i++)
      {
        CsThreadChange *change = &g_array_index (timeline, CsThreadChange, i);
        CsThreadChange copy = *change;

        /* Take the string over rather than duplicating it. */
        copy.reason = g_steal_pointer (&change->reason);
        g_array_append_val (self->changes, copy);
      }

  gtk_stack_set_visible_child_name (self->stack, self->series != NULL ? "phases" : "empty");

  n_lanes = cs_phase_view_get_n_lanes (self);
  gtk_widget_set_visible (self->lanes_box, self->lanes_data != NULL && self->lanes_data->len > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->lanes), n_lanes > 0);
  if (n_lanes > 0)
    {
      g_autofree char *text = NULL;

      gtk_drawing_area_set_content_height (self->lanes,
                                           (int) MIN (n_lanes * (LANE_MAX_HEIGHT + LANE_GAP),
                                                      LANES_MAX_AREA));
      double t_lo, t_hi;
      g_autofree char *span = NULL;

      lanes_time_range (self, &t_lo, &t_hi);
      span = cs_format_duration (t_hi - t_lo, CS_DURATION_MEASURED, TRUE);
      /* Translators: above the lanes; %s is how long they span, like
       * "30.0 s" or "2.56 s" */
      text = g_strdup_printf (_("One row per worker, the last %s"), span);
      gtk_label_set_text (self->lanes_label, text);
    }
  else if (self->lanes_data != NULL && self->lanes_data->len > 0)
    {
      g_autofree char *text = NULL;

      text = g_strdup_printf (_("Lanes are drawn for copies of up to %u workers"),
                              CS_PHASE_VIEW_MAX_LANES);
      gtk_label_set_text (self->lanes_label, text);
    }

  runnable_text = runnable_sentence (self->series != NULL ? totals : NULL, has_runnable, runnable);
  gtk_widget_set_visible (GTK_WIDGET (self->runnable_label), runnable_text != NULL);
  if (runnable_text != NULL)
    gtk_label_set_text (self->runnable_label, runnable_text);
  cs_phase_view_update_legend (self, has_totals ? totals : NULL, runnable);
  cs_phase_view_update_description (self, self->series != NULL ? totals : NULL, runnable_text);
  gtk_widget_queue_draw (GTK_WIDGET (self->chart));
  gtk_widget_queue_draw (GTK_WIDGET (self->lanes));
}

/* Shows @run's phases; NULL empties the view. */
void
cs_phase_view_set_run (CsPhaseView *self,
                       CsRun       *run)
{
  g_return_if_fail (CS_IS_PHASE_VIEW (self));

  if (run != NULL)
    cs_run_ref (run);
  g_clear_pointer (&self->run, cs_run_unref);
  self->run = run;

  cs_phase_view_refresh (self, TRUE);
}

gboolean
cs_phase_view_get_has_data (CsPhaseView *self)
{
  g_return_val_if_fail (CS_IS_PHASE_VIEW (self), FALSE);

  return self->series != NULL;
}

guint
cs_phase_view_get_n_lanes (CsPhaseView *self)
{
  g_return_val_if_fail (CS_IS_PHASE_VIEW (self), 0);

  if (self->lanes_data == NULL || self->lanes_data->len > CS_PHASE_VIEW_MAX_LANES)
    return 0;

  return self->lanes_data->len;
}

static void
cs_phase_view_css_changed (GtkWidget         *widget,
                           GtkCssStyleChange *change)
{
  CsPhaseView *self = CS_PHASE_VIEW (widget);

  GTK_WIDGET_CLASS (cs_phase_view_parent_class)->css_changed (widget, change);

  _cs_graph_style_update_palette (widget, &self->palette);
  gtk_widget_queue_draw (GTK_WIDGET (self->chart));
}

static void
cs_phase_view_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), CS_TYPE_PHASE_VIEW);
  /* The template's root is no child bound by name: unparent it too. */
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (object));
       child != NULL;
       child = gtk_widget_get_first_child (GTK_WIDGET (object)))
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (cs_phase_view_parent_class)->dispose (object);
}

static void
cs_phase_view_finalize (GObject *object)
{
  CsPhaseView *self = CS_PHASE_VIEW (object);

  g_clear_pointer (&self->run, cs_run_unref);
  g_clear_pointer (&self->series, g_array_unref);
  g_clear_pointer (&self->lanes_data, g_array_unref);
  g_clear_pointer (&self->changes, g_array_unref);

  G_OBJECT_CLASS (cs_phase_view_parent_class)->finalize (object);
}

static void
cs_phase_view_class_init (CsPhaseViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cs_phase_view_dispose;
  object_class->finalize = cs_phase_view_finalize;
  widget_class->css_changed = cs_phase_view_css_changed;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-phase-view.ui");
  gtk_widget_class_bind_template_child (widget_class, CsPhaseView, stack);
  gtk_widget_class_bind_template_child (widget_class, CsPhaseView, chart);
  gtk_widget_class_bind_template_child (widget_class, CsPhaseView, runnable_label);
  gtk_widget_class_bind_template_child (widget_class, CsPhaseView, lanes_box);
  gtk_widget_class_bind_template_child (widget_class, CsPhaseView, lanes_label);
  gtk_widget_class_bind_template_child (widget_class, CsPhaseView, lanes);
  gtk_widget_class_bind_template_child (widget_class, CsPhaseView, legend);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "phaseview");
}

static void
cs_phase_view_init (CsPhaseView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->changes = g_array_new (FALSE, TRUE, sizeof (CsThreadChange));
  g_array_set_clear_func (self->changes, (GDestroyNotify) cs_thread_change_clear);
  cs_plot_palette_init_light (&self->palette);
  self->legend_shown = G_MAXUINT;

  gtk_drawing_area_set_draw_func (self->chart, draw_chart, self, NULL);
  gtk_drawing_area_set_draw_func (self->lanes, draw_lanes, self, NULL);
  cs_phase_view_refresh (self, TRUE);
}
