/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <math.h>
#include <string.h>

#include <adwaita.h>
#include <glib/gi18n.h>

#include "cs-graph-style.h"
#include "cs-plot.h"
#include "cs-throughput-graph.h"

/*
 * The live chart. Samples arrive on the main thread from the job's "sample"
 * signal into a ring buffer; each one rebuilds the small array snapshot() draws
 * and queues one draw. snapshot() only reads what is already there.
 *
 * The ring holds the recent past (enough for the 60 s window at any sample
 * interval); the whole-run view reads the run record's series instead, at
 * most once a second: a few thousand entries however long the copy, the
 * older part in buckets the chart draws with their band.
 */

#define RING_SIZE          4096
#define WINDOW_SECONDS     60.0
#define RECORD_REFRESH_US  G_USEC_PER_SEC
#define A11Y_REFRESH_US    G_USEC_PER_SEC

struct _CsThroughputGraph
{
  GtkWidget        parent_instance;

  /* Owned */
  CsRun           *run;
  CsSample        *ring;
  guint            ring_head;       /* next slot to write */
  guint            ring_len;
  guint64          n_pushed;
  GArray          *view;            /* of CsSample: what snapshot() draws */
  GArray          *view_buckets;    /* of CsBucket: the whole run read from its
                                     * record, drawn instead of view when set */
  GArray          *changes;         /* of CsThreadChange */
  GArray          *events;          /* of CsRunEvent: the pauses, questions and limit changes */
  CsPlotPalette    palette;
  CsPlotAxisState  axes;

  double           hover_t;
  gint64           record_read_at;
  gint64           a11y_updated_at;
  gboolean         show_all;
  gboolean         show_checks;     /* a third chart: files checked/s */
  double           time_span;       /* of the whole-run view; 0: the run's length */
  guint            n_run_events;    /* the run's events, all kinds, when last read */
};

G_DEFINE_FINAL_TYPE (CsThroughputGraph, cs_throughput_graph, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_SHOW_ALL,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static const CsSample *
ring_get (CsThroughputGraph *self,
          guint              i)
{
  guint first = (self->ring_head + RING_SIZE - self->ring_len) % RING_SIZE;

  g_assert (i < self->ring_len);

  return &self->ring[(first + i) % RING_SIZE];
}

static void
cs_throughput_graph_get_options (CsThroughputGraph *self,
                                 CsPlotOptions     *options)
{
  double last_t = 0;

  if (self->view->len > 0)
    last_t = g_array_index (self->view, CsSample, self->view->len - 1).t;

  options->show_markers = TRUE;
  options->hover_t = self->hover_t;
  options->axes = &self->axes;
  options->show_checks = self->show_checks;

  if (self->show_all)
    {
      /* The run's own length, or the span it shares with other graphs. */
      options->t_min = 0;
      options->t_max = self->time_span > last_t ? self->time_span : 0;
    }
  else
    cs_plot_live_time_range (last_t, WINDOW_SECONDS, &options->t_min, &options->t_max);
}

static void
cs_throughput_graph_get_plot_run (CsThroughputGraph *self,
                                  CsPlotRun         *plot_run)
{
  plot_run->samples = (const CsSample *) (gpointer) self->view->data;
  plot_run->n_samples = self->view->len;
  plot_run->buckets = NULL;
  plot_run->n_buckets = 0;
  if (self->show_all && self->view_buckets->len > 0)
    {
      plot_run->buckets = (const CsBucket *) (gpointer) self->view_buckets->data;
      plot_run->n_buckets = self->view_buckets->len;
    }
  plot_run->changes = (const CsThreadChange *) (gpointer) self->changes->data;
  plot_run->n_changes = self->changes->len;
  plot_run->events = (const CsRunEvent *) (gpointer) self->events->data;
  plot_run->n_events = self->events->len;
  plot_run->label = NULL;
  plot_run->max_rate = self->run != NULL ? cs_run_get_settings (self->run)->max_rate : 0;
}

/* A sample as a bucket of one, for the record's view between its reads. */
static void
append_sample_bucket (GArray         *buckets,
                      const CsSample *sample)
{
  CsBucket bucket = { 0 };

  bucket.sample = *sample;
  bucket.t_start = buckets->len > 0 ? g_array_index (buckets, CsBucket, buckets->len - 1).sample.t : 0;
  memcpy (bucket.min, sample->values, sizeof bucket.min);
  memcpy (bucket.max, sample->values, sizeof bucket.max);
  bucket.n = 1;
  g_array_append_val (buckets, bucket);
}

/* Rebuilds the drawn array from the ring, or, for the whole run, from the
 * run record: its series, a few thousand entries however long the copy (the
 * older part in buckets, drawn with their band). */
static void
cs_throughput_graph_rebuild_view (CsThroughputGraph *self,
                                  gboolean           force)
{
  if (self->show_all && self->run != NULL)
    {
      gint64 now = g_get_monotonic_time ();
      g_autoptr(GArray) series = NULL;

      if (!force && now - self->record_read_at < RECORD_REFRESH_US && self->ring_len > 0)
        {
          /* Between reads of the record, the newest sample is appended. */
          g_array_append_vals (self->view, ring_get (self, self->ring_len - 1), 1);
          append_sample_bucket (self->view_buckets, ring_get (self, self->ring_len - 1));
          return;
        }

      series = cs_run_dup_series (self->run);
      /* A run that records nothing (samples pushed from elsewhere) draws the ring. */
      if (series->len > 0)
        {
          self->record_read_at = now;
          g_array_set_size (self->view, 0);
          g_array_set_size (self->view_buckets, 0);
          for (guint i = 0; i < series->len; i++)
            g_array_append_vals (self->view, &g_array_index (series, CsBucket, i).sample, 1);
          g_array_append_vals (self->view_buckets, series->data, series->len);
          return;
        }
    }

  g_array_set_size (self->view_buckets, 0);
  g_array_set_size (self->view, 0);

  if (self->ring_len == 0)
    return;

  {
    guint first = 0;

    if (!self->show_all)
      {
        double last_t = ring_get (self, self->ring_len - 1)->t;
        double t_min, t_max;

        cs_plot_live_time_range (last_t, WINDOW_SECONDS, &t_min, &t_max);

        /* Keep one sample left of the window so the line enters from the edge. */
        while (first + 1 < self->ring_len && ring_get (self, first + 1)->t < t_min)
          first++;
      }

    for (guint i = first; i < self->ring_len; i++)
      g_array_append_vals (self->view, ring_get (self, i), 1);
  }
}

static void
cs_throughput_graph_update_description (CsThroughputGraph *self,
                                       gboolean           force)
{
  gint64 now = g_get_monotonic_time ();
  g_autofree char *text = NULL;
  const CsSample *s;

  if (!force && now - self->a11y_updated_at < A11Y_REFRESH_US)
    return;

  self->a11y_updated_at = now;

  if (self->view->len == 0)
    {
      gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                      GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, _("No data yet"),
                                      -1);
      return;
    }

  s = &g_array_index (self->view, CsSample, self->view->len - 1);
  /* Translators: the graph's accessible description, read by screen readers */
  text = g_strdup_printf (_("At %.0f seconds: reading %.1f MB/s, writing %.1f MB/s, "
                            "%.0f data requests per second, %.0f requests per second, %.0f threads"),
                          s->t,
                          s->values[CS_COUNTER_READ_TRANSFER_RATE],
                          s->values[CS_COUNTER_WRITE_TRANSFER_RATE],
                          s->values[CS_COUNTER_DATA_REQUEST_RATE],
                          s->values[CS_COUNTER_REQUEST_RATE],
                          s->values[CS_COUNTER_THREADS]);
  if (self->show_checks && !isnan (s->values[CS_COUNTER_CHECK_RATE]))
    {
      /* Translators: added to the graph's accessible description on a rerun */
      char *more = g_strdup_printf (_("%s, %.0f files checked per second"), text,
                                    s->values[CS_COUNTER_CHECK_RATE]);

      g_free (text);
      text = more;
    }
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text,
                                  -1);
}

static gboolean
cs_throughput_graph_time_at (GtkWidget *widget,
                             double     x,
                             double    *out_t)
{
  CsThroughputGraph *self = CS_THROUGHPUT_GRAPH (widget);
  CsPlotOptions options = { 0 };
  CsPlotRun plot_run;

  if (self->view->len == 0)
    return FALSE;

  cs_throughput_graph_get_options (self, &options);
  cs_throughput_graph_get_plot_run (self, &plot_run);

  return cs_plot_throughput_time_at (gtk_widget_get_width (GTK_WIDGET (self)),
                                     gtk_widget_get_height (GTK_WIDGET (self)),
                                     &plot_run, 1, &options, x, out_t);
}

static const CsSample *
cs_throughput_graph_sample_at (CsThroughputGraph *self,
                               double             t)
{
  guint lo = 0, hi = self->view->len;

  if (hi == 0)
    return NULL;

  while (hi - lo > 1)
    {
      guint mid = (lo + hi) / 2;

      if (g_array_index (self->view, CsSample, mid).t <= t)
        lo = mid;
      else
        hi = mid;
    }

  if (lo + 1 < self->view->len)
    {
      const CsSample *a = &g_array_index (self->view, CsSample, lo);
      const CsSample *b = &g_array_index (self->view, CsSample, lo + 1);

      if (b->t - t < t - a->t)
        return b;
    }

  return &g_array_index (self->view, CsSample, lo);
}

static gboolean
query_tooltip_cb (CsThroughputGraph *self,
                  int                x,
                  int                y,
                  gboolean           keyboard,
                  GtkTooltip        *tooltip)
{
  const CsSample *s;
  g_autofree char *text = NULL;
  double t;

  if (keyboard)
    {
      if (self->view->len == 0)
        return FALSE;
      t = g_array_index (self->view, CsSample, self->view->len - 1).t;
    }
  else if (!cs_throughput_graph_time_at (GTK_WIDGET (self), x, &t))
    return FALSE;

  s = cs_throughput_graph_sample_at (self, t);
  if (s == NULL)
    return FALSE;

  /* Translators: the graph's tooltip; keep the line breaks */
  text = g_strdup_printf (_("At %.1f s\n"
                            "Read %.1f MB/s · Write %.1f MB/s\n"
                            "%.0f data requests/s · %.0f requests/s\n"
                            "%.0f threads"),
                          s->t,
                          s->values[CS_COUNTER_READ_TRANSFER_RATE],
                          s->values[CS_COUNTER_WRITE_TRANSFER_RATE],
                          s->values[CS_COUNTER_DATA_REQUEST_RATE],
                          s->values[CS_COUNTER_REQUEST_RATE],
                          s->values[CS_COUNTER_THREADS]);
  gtk_tooltip_set_text (tooltip, text);

  return TRUE;
}

static void
cs_throughput_graph_snapshot (GtkWidget   *widget,
                              GtkSnapshot *snapshot)
{
  CsThroughputGraph *self = CS_THROUGHPUT_GRAPH (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  CsPlotOptions options = { 0 };
  CsPlotRun plot_run;
  cairo_t *cr;

  if (width <= 0 || height <= 0)
    return;

  cs_throughput_graph_get_options (self, &options);
  cs_throughput_graph_get_plot_run (self, &plot_run);

  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  cs_plot_draw_throughput (cr, width, height, &self->palette, &plot_run, 1, &options);
  cairo_destroy (cr);
}

static void
cs_throughput_graph_measure (GtkWidget      *widget,
                             GtkOrientation  orientation,
                             int             for_size,
                             int            *minimum,
                             int            *natural,
                             int            *minimum_baseline,
                             int            *natural_baseline)
{
  /* Two stacked charts need room for their axes and labels. A third, files
   * checked/s, shares theirs: asking for more height as a rerun starts
   * would make a narrow window widen itself rather than grow. */
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = 240;
      *natural = 640;
    }
  else
    {
      *minimum = 220;
      *natural = 340;
    }
}

static void
cs_throughput_graph_css_changed (GtkWidget         *widget,
                                 GtkCssStyleChange *change)
{
  CsThroughputGraph *self = CS_THROUGHPUT_GRAPH (widget);

  GTK_WIDGET_CLASS (cs_throughput_graph_parent_class)->css_changed (widget, change);

  _cs_graph_style_update_palette (widget, &self->palette);
  gtk_widget_queue_draw (widget);
}

static void
cs_throughput_graph_finalize (GObject *object)
{
  CsThroughputGraph *self = CS_THROUGHPUT_GRAPH (object);

  g_clear_pointer (&self->run, cs_run_unref);
  g_clear_pointer (&self->ring, g_free);
  g_clear_pointer (&self->view, g_array_unref);
  g_clear_pointer (&self->view_buckets, g_array_unref);
  g_clear_pointer (&self->changes, g_array_unref);
  g_clear_pointer (&self->events, g_array_unref);

  G_OBJECT_CLASS (cs_throughput_graph_parent_class)->finalize (object);
}

static void
cs_throughput_graph_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  CsThroughputGraph *self = CS_THROUGHPUT_GRAPH (object);

  switch (prop_id)
    {
    case PROP_SHOW_ALL:
      g_value_set_boolean (value, self->show_all);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cs_throughput_graph_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  CsThroughputGraph *self = CS_THROUGHPUT_GRAPH (object);

  switch (prop_id)
    {
    case PROP_SHOW_ALL:
      cs_throughput_graph_set_show_all (self, g_value_get_boolean (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cs_throughput_graph_class_init (CsThroughputGraphClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = cs_throughput_graph_finalize;
  object_class->get_property = cs_throughput_graph_get_property;
  object_class->set_property = cs_throughput_graph_set_property;

  widget_class->snapshot = cs_throughput_graph_snapshot;
  widget_class->measure = cs_throughput_graph_measure;
  widget_class->css_changed = cs_throughput_graph_css_changed;

  properties[PROP_SHOW_ALL] =
    g_param_spec_boolean ("show-all", NULL, NULL,
                          FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-throughput-graph.ui");
  gtk_widget_class_set_css_name (widget_class, "throughputgraph");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
cs_throughput_graph_init (CsThroughputGraph *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->ring = g_new0 (CsSample, RING_SIZE);
  self->view = g_array_sized_new (FALSE, FALSE, sizeof (CsSample), 256);
  self->view_buckets = g_array_new (FALSE, FALSE, sizeof (CsBucket));
  self->changes = g_array_new (FALSE, TRUE, sizeof (CsThreadChange));
  g_array_set_clear_func (self->changes, (GDestroyNotify) cs_thread_change_clear);
  self->events = g_array_new (FALSE, TRUE, sizeof (CsRunEvent));
  g_array_set_clear_func (self->events, (GDestroyNotify) cs_run_event_clear);
  self->hover_t = -1;
  cs_plot_palette_init_light (&self->palette);

  g_signal_connect (self, "query-tooltip", G_CALLBACK (query_tooltip_cb), NULL);
  _cs_graph_style_track_hover (GTK_WIDGET (self), &self->hover_t, cs_throughput_graph_time_at);
}

static void
cs_throughput_graph_update_events (CsThroughputGraph *self)
{
  g_autoptr(GArray) events = NULL;

  g_array_set_size (self->events, 0);
  self->n_run_events = 0;
  if (self->run == NULL)
    return;

  events = cs_run_dup_events (self->run);
  self->n_run_events = events->len;
  for (guint i = 0; i < events->len; i++)
    {
      CsRunEvent *event = &g_array_index (events, CsRunEvent, i);
      CsRunEvent copy = *event;

      if (!g_str_equal (event->kind, "pause") && !g_str_equal (event->kind, "question")
          && !g_str_equal (event->kind, "max-rate") && !g_str_equal (event->kind, "max-files"))
        continue;
      /* Take the strings over, as the thread changes' below. */
      event->kind = NULL;
      event->path = NULL;
      g_array_append_val (self->events, copy);
    }
}

/* The whole-run view's time axis spans @seconds when its run is shorter, so
 * graphs side by side share one axis; 0: each run's own length. */
void
cs_throughput_graph_set_time_span (CsThroughputGraph *self,
                                   double             seconds)
{
  g_return_if_fail (CS_IS_THROUGHPUT_GRAPH (self));

  self->time_span = MAX (seconds, 0);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* The time axis drawn now, in seconds of the run's clock; FALSE with no data. */
gboolean
cs_throughput_graph_get_time_range (CsThroughputGraph *self,
                                    double            *out_lo,
                                    double            *out_hi)
{
  CsPlotOptions options = { 0 };
  CsPlotRun plot_run;

  g_return_val_if_fail (CS_IS_THROUGHPUT_GRAPH (self), FALSE);

  if (self->view->len == 0)
    return FALSE;

  cs_throughput_graph_get_options (self, &options);
  cs_throughput_graph_get_plot_run (self, &plot_run);
  return cs_plot_throughput_time_range (&plot_run, 1, &options, out_lo, out_hi);
}

/* Shows @run: its samples so far, its thread changes, pauses and questions.
 * NULL empties the graph. */
void
cs_throughput_graph_set_run (CsThroughputGraph *self,
                             CsRun             *run)
{
  g_return_if_fail (CS_IS_THROUGHPUT_GRAPH (self));

  if (run != NULL)
    cs_run_ref (run);
  g_clear_pointer (&self->run, cs_run_unref);
  self->run = run;

  self->ring_head = 0;
  self->ring_len = 0;
  self->n_pushed = 0;
  self->record_read_at = 0;
  self->hover_t = -1;
  memset (&self->axes, 0, sizeof self->axes);
  g_array_set_size (self->changes, 0);
  g_array_set_size (self->events, 0);

  if (run != NULL)
    {
      g_autofree CsSample *samples = NULL;
      guint n_samples = 0;

      samples = cs_run_dup_samples (run, &n_samples);
      for (guint i = 0; i < n_samples; i++)
        {
          self->ring[self->ring_head] = samples[i];
          self->ring_head = (self->ring_head + 1) % RING_SIZE;
          self->ring_len = MIN (self->ring_len + 1, RING_SIZE);
        }
      self->n_pushed = n_samples;
    }

  cs_throughput_graph_update_timeline (self);
  cs_throughput_graph_update_events (self);
  cs_throughput_graph_rebuild_view (self, TRUE);
  cs_throughput_graph_update_description (self, TRUE);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* main thread */
void
cs_throughput_graph_push_sample (CsThroughputGraph *self,
                                 const CsSample    *sample)
{
  g_return_if_fail (CS_IS_THROUGHPUT_GRAPH (self));
  g_return_if_fail (sample != NULL);

  self->ring[self->ring_head] = *sample;
  self->ring_head = (self->ring_head + 1) % RING_SIZE;
  self->ring_len = MIN (self->ring_len + 1, RING_SIZE);
  self->n_pushed++;

  /* A pause or a question has ended, or the speed limit changed: the job
   * adds it before the sample that follows it. */
  if (self->run != NULL && cs_run_get_n_events (self->run) != self->n_run_events)
    cs_throughput_graph_update_events (self);

  cs_throughput_graph_rebuild_view (self, FALSE);
  cs_throughput_graph_update_description (self, FALSE);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Reads the thread changes again; call when the job reports one. */
void
cs_throughput_graph_update_timeline (CsThroughputGraph *self)
{
  g_autoptr(GArray) timeline = NULL;

  g_return_if_fail (CS_IS_THROUGHPUT_GRAPH (self));

  g_array_set_size (self->changes, 0);

  if (self->run == NULL)
    return;

  timeline = cs_run_dup_timeline (self->run);
  if (timeline == NULL)
    return;

  /* The copy owns its strings; take them over rather than duplicating. */
  for (guint i = 0; i < timeline->len; i++)
    {
      CsThreadChange *change = &g_array_index (timeline, CsThreadChange, i);
      CsThreadChange copy = *change;

      copy.reason = g_steal_pointer (&change->reason);
      g_array_append_val (self->changes, copy);
    }

  gtk_widget_queue_draw (GTK_WIDGET (self));
}

guint
cs_throughput_graph_get_n_samples (CsThroughputGraph *self)
{
  g_return_val_if_fail (CS_IS_THROUGHPUT_GRAPH (self), 0);

  return (guint) MIN (self->n_pushed, G_MAXUINT);
}

gboolean
cs_throughput_graph_get_show_all (CsThroughputGraph *self)
{
  g_return_val_if_fail (CS_IS_THROUGHPUT_GRAPH (self), FALSE);

  return self->show_all;
}

void
cs_throughput_graph_set_show_all (CsThroughputGraph *self,
                                  gboolean           show_all)
{
  g_return_if_fail (CS_IS_THROUGHPUT_GRAPH (self));

  show_all = !!show_all;
  if (show_all == self->show_all)
    return;

  self->show_all = show_all;
  /* The time axis changes scale; the value axes may settle afresh. */
  memset (&self->axes, 0, sizeof self->axes);
  cs_throughput_graph_rebuild_view (self, TRUE);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_ALL]);
}

/* Whether files checked/s get a chart of their own: while a rerun finds most
 * files unchanged (cs_progress_view_get_checking ()), or on the summary of
 * such a run. */
void
cs_throughput_graph_set_show_checks (CsThroughputGraph *self,
                                     gboolean           show_checks)
{
  g_return_if_fail (CS_IS_THROUGHPUT_GRAPH (self));

  show_checks = !!show_checks;
  if (show_checks == self->show_checks)
    return;

  self->show_checks = show_checks;
  self->axes.check_max = 0;
  cs_throughput_graph_update_description (self, TRUE);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gboolean
cs_throughput_graph_get_show_checks (CsThroughputGraph *self)
{
  g_return_val_if_fail (CS_IS_THROUGHPUT_GRAPH (self), FALSE);

  return self->show_checks;
}
