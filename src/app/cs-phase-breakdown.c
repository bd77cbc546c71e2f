/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "cs-phase-breakdown.h"

/*
 * The summary's figures of where the workers' time went: each phase's share
 * of the worker-time and its time per file copied, and per request kind the
 * latencies as fio reports them (p50, p90, p99, max). Built from the record
 * alone; a record without them hides the whole table rather than show
 * zeros.
 */

struct _CsPhaseBreakdown
{
  GtkWidget  parent_instance;

  GtkWidget *phases_box;
  GtkGrid   *phases_grid;
  GtkWidget *latency_box;
  GtkGrid   *latency_grid;
};

G_DEFINE_FINAL_TYPE (CsPhaseBreakdown, cs_phase_breakdown, GTK_TYPE_WIDGET)

char *
_cs_phase_breakdown_format_ns (double ns)
{
  if (!(ns >= 0))
    return g_strdup ("—");
  /* Translators: durations of requests; keep the units as your locale writes them */
  if (ns < 1e3)
    return g_strdup_printf (_("%.0f ns"), ns);
  if (ns < 1e5)
    return g_strdup_printf (_("%.1f µs"), ns / 1e3);
  if (ns < 1e6)
    return g_strdup_printf (_("%.0f µs"), ns / 1e3);
  if (ns < 1e8)
    return g_strdup_printf (_("%.1f ms"), ns / 1e6);
  if (ns < 1e9)
    return g_strdup_printf (_("%.0f ms"), ns / 1e6);
  return g_strdup_printf (_("%.2f s"), ns / 1e9);
}

static void
clear_grid (GtkGrid *grid)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (grid))) != NULL)
    gtk_grid_remove (grid, child);
}

static void
grid_add (GtkGrid    *grid,
          const char *text,
          int         column,
          int         row,
          gboolean    numeric)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), numeric ? 1.0 : 0.0);
  if (numeric)
    gtk_widget_add_css_class (label, "numeric");
  if (row == 0)
    gtk_widget_add_css_class (label, "dim-label");
  if (column == 0 && !numeric)
    {
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_widget_set_hexpand (label, TRUE);
    }
  gtk_grid_attach (grid, label, column, row, 1, 1);
}

static gboolean
show_phases (CsPhaseBreakdown *self,
             CsRun            *run)
{
  double totals[CS_PHASE_N], sum = 0;
  CsTotals run_totals;
  guint64 files;
  int row = 1;

  clear_grid (self->phases_grid);
  if (run == NULL || !cs_run_get_phase_totals (run, totals))
    return FALSE;

  for (guint ph = 0; ph < CS_PHASE_N; ph++)
    sum += totals[ph];
  if (!(sum > 0))
    return FALSE;

  cs_run_get_totals (run, &run_totals);
  files = run_totals.v[CS_CLASS_COPIED][CS_KIND_FILES];

  grid_add (self->phases_grid, _("Phase"), 0, 0, FALSE);
  grid_add (self->phases_grid, _("Share"), 1, 0, TRUE);
  /* Translators: a column: worker-time in a phase per file copied */
  grid_add (self->phases_grid, _("Per file"), 2, 0, TRUE);

  /* Largest first: what the workers did most is read first. */
  for (guint n = 0; n < CS_PHASE_N; n++)
    {
      g_autofree char *share = NULL;
      g_autofree char *per_file = NULL;
      double share_pct;
      int best = -1;

      for (guint ph = 0; ph < CS_PHASE_N; ph++)
        if (totals[ph] > 0 && (best < 0 || totals[ph] > totals[best]))
          best = ph;
      if (best < 0)
        break;

      share_pct = 100.0 * totals[best] / sum;
      /* Translators: a share of the workers' time */
      share = share_pct < 10 ? g_strdup_printf (_("%.1f %%"), share_pct)
                             : g_strdup_printf (_("%.0f %%"), share_pct);
      per_file = files > 0 ? _cs_phase_breakdown_format_ns (totals[best] * 1e9 / files)
                           : g_strdup ("—");
      grid_add (self->phases_grid, _(cs_phase_get_label (best)), 0, row, FALSE);
      grid_add (self->phases_grid, share, 1, row, TRUE);
      grid_add (self->phases_grid, per_file, 2, row, TRUE);
      totals[best] = 0;
      row++;
    }

  return TRUE;
}

static gboolean
show_latency (CsPhaseBreakdown *self,
              CsRun            *run)
{
  int row = 1;

  clear_grid (self->latency_grid);
  if (run == NULL)
    return FALSE;

  for (guint kind = 0; kind < CS_LATENCY_N; kind++)
    {
      CsLatencyHistogram histogram;
      const double percents[] = { 50, 90, 99 };
      g_autofree char *count = NULL;
      g_autofree char *max = NULL;

      if (!cs_run_get_latency (run, kind, &histogram) || histogram.count == 0)
        continue;

      if (row == 1)
        {
          grid_add (self->latency_grid, _("Request"), 0, 0, FALSE);
          grid_add (self->latency_grid, _("Count"), 1, 0, TRUE);
          grid_add (self->latency_grid, "p50", 2, 0, TRUE);
          grid_add (self->latency_grid, "p90", 3, 0, TRUE);
          grid_add (self->latency_grid, "p99", 4, 0, TRUE);
          /* Translators: the column of the longest request */
          grid_add (self->latency_grid, _("Max"), 5, 0, TRUE);
        }

      count = g_strdup_printf ("%'" G_GUINT64_FORMAT, histogram.count);
      grid_add (self->latency_grid, _(cs_latency_kind_get_label (kind)), 0, row, FALSE);
      grid_add (self->latency_grid, count, 1, row, TRUE);
      for (guint i = 0; i < G_N_ELEMENTS (percents); i++)
        {
          g_autofree char *text =
            _cs_phase_breakdown_format_ns (cs_latency_histogram_percentile (&histogram, percents[i]));

          grid_add (self->latency_grid, text, 2 + i, row, TRUE);
        }
      max = _cs_phase_breakdown_format_ns (histogram.max_ns);
      grid_add (self->latency_grid, max, 5, row, TRUE);
      row++;
    }

  return row > 1;
}

void
cs_phase_breakdown_set_run (CsPhaseBreakdown *self,
                            CsRun            *run)
{
  gboolean phases, latency;

  g_return_if_fail (CS_IS_PHASE_BREAKDOWN (self));

  phases = show_phases (self, run);
  latency = show_latency (self, run);
  gtk_widget_set_visible (self->phases_box, phases);
  gtk_widget_set_visible (self->latency_box, latency);
  gtk_widget_set_visible (GTK_WIDGET (self), phases || latency);
}

static void
cs_phase_breakdown_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), CS_TYPE_PHASE_BREAKDOWN);
  /* The template's root is no child bound by name: unparent it too. */
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (object));
       child != NULL;
       child = gtk_widget_get_first_child (GTK_WIDGET (object)))
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (cs_phase_breakdown_parent_class)->dispose (object);
}

static void
cs_phase_breakdown_class_init (CsPhaseBreakdownClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cs_phase_breakdown_dispose;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-phase-breakdown.ui");
  gtk_widget_class_bind_template_child (widget_class, CsPhaseBreakdown, phases_box);
  gtk_widget_class_bind_template_child (widget_class, CsPhaseBreakdown, phases_grid);
  gtk_widget_class_bind_template_child (widget_class, CsPhaseBreakdown, latency_box);
  gtk_widget_class_bind_template_child (widget_class, CsPhaseBreakdown, latency_grid);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "phasebreakdown");
}

static void
cs_phase_breakdown_init (CsPhaseBreakdown *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  cs_phase_breakdown_set_run (self, NULL);
}
