/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "cs-compare-graph.h"
#include "cs-compare-page.h"
#include "cs-compare.h"
#include "cs-export.h"
#include "cs-format.h"
#include "cs-toast.h"

/*
 * Two or more runs side by side: which finished faster and by how much, then,
 * in the terms of the Robocopy reviews, the tally of counters, the overlaid
 * graphs and every counter's average, minimum and maximum per run with the
 * best marked, and their export in the chosen format. A toast in the
 * window says how the export went.
 */

struct _CsComparePage
{
  GtkWidget       parent_instance;

  /* Template widgets */
  GtkLabel       *title_label;
  GtkLabel       *subtitle_label;
  GtkLabel       *verdict_label;
  GtkDropDown    *format_dropdown;
  CsCompareGraph *graph;
  GtkColumnView  *table;

  /* Owned */
  GPtrArray      *runs;      /* of CsRun */
  GStrv           labels;    /* one per run, as the comparison names them */
  CsCompare      *compare;
  char           *verdict;
  GCancellable   *cancellable;   /* the exports under way */
};

G_DEFINE_FINAL_TYPE (CsComparePage, cs_compare_page, GTK_TYPE_WIDGET)

/* Each run's figures, in the user's language: " T1: 7.12 s, 55.6 MB/s, 3,540 files/s, 1 thread." */
static void
append_run_figures (GString         *out,
                    const char      *label,
                    const CsFigures *f)
{
  g_autofree char *duration = cs_figure_format_localized (CS_FIGURE_DURATION, f->duration);
  g_autofree char *speed = cs_figure_format_localized (CS_FIGURE_SPEED, f->speed);
  g_autofree char *file_rate = cs_figure_format_localized (CS_FIGURE_FILE_RATE, f->file_rate);
  g_autofree char *threads = _cs_format_figures_threads (f);

  g_string_append_c (out, '\n');
  /* Translators: one run's figures in a comparison, like "T1: 7.12 s, 55.6 MB/s, 3,540 files/s, 1 thread" */
  g_string_append_printf (out, _("%s: %s, %s, %s, %s"), label, duration, speed, file_rate, threads);
}

/*
 * What the comparison says first (cs_compare_get_outcome): which run finished
 * faster and by how much; the reports say the same in English
 * (cs_compare_dup_outcome).
 */
static char *
outcome_text (CsCompare *compare)
{
  guint n = cs_compare_get_n_runs (compare);
  CsCompareOutcome outcome;
  GString *out = g_string_new (NULL);

  cs_compare_get_outcome (compare, &outcome);

  if (outcome.fastest == CS_COMPARE_NONE)
    g_string_append (out, _("None of the runs copied anything in a measurable time."));
  else if (outcome.fastest == CS_COMPARE_TIE)
    g_string_append (out, outcome.by_speed
                          ? _("The runs copied at the same speed, within 0.5 %.")
                          : _("The runs finished in the same time, within 0.5 %."));
  else
    {
      const CsFigures *fast = cs_compare_get_figures (compare, outcome.fastest);
      const char *label = cs_compare_get_label (compare, outcome.fastest);
      g_autofree char *factor = g_strdup_printf ("%.2f", outcome.factor);

      if (outcome.by_speed)
        {
          g_autofree char *speed = cs_figure_format_localized (CS_FIGURE_SPEED, fast->speed);

          /* Translators: runs that copied different amounts, like "T2 copied fastest, at
           * 168.3 MB/s: up to 3.03 times the speed of the others" */
          g_string_append_printf (out, ngettext ("%s copied faster, at %s: %s times the speed of the other.",
                                                 "%s copied fastest, at %s: up to %s times the speed of the others.",
                                                 n - 1),
                                  label, speed, factor);
          g_string_append_c (out, ' ');
          g_string_append (out, _("The runs copied different amounts, so their speeds are compared "
                                  "rather than their durations."));
        }
      else
        {
          g_autofree char *duration = cs_figure_format_localized (CS_FIGURE_DURATION, fast->duration);

          /* Translators: like "T2 finished faster, in 2.35 s: 3.03 times as fast as the other" */
          g_string_append_printf (out, ngettext ("%s finished faster, in %s: %s times as fast as the other.",
                                                 "%s finished fastest, in %s: up to %s times as fast as the others.",
                                                 n - 1),
                                  label, duration, factor);
        }
    }

  for (guint i = 0; i < n; i++)
    append_run_figures (out, cs_compare_get_label (compare, i), cs_compare_get_figures (compare, i));

  return g_string_free (out, FALSE);
}

static const CsCompareCounter *
counter_of_item (CsComparePage *self,
                 GtkListItem   *item)
{
  GtkStringObject *key = gtk_list_item_get_item (item);
  CsCounter counter;

  if (self->compare == NULL || key == NULL ||
      !cs_counter_from_key (gtk_string_object_get_string (key), &counter))
    return NULL;

  return cs_compare_get_counter (self->compare, counter);
}

static void
setup_label_cb (GtkSignalListItemFactory *factory,
                GtkListItem              *item,
                gpointer                  user_data)
{
  gboolean numeric = GPOINTER_TO_INT (user_data);
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), numeric ? 1.0f : 0.0f);
  gtk_label_set_use_markup (GTK_LABEL (label), TRUE);
  gtk_widget_set_margin_start (label, 6);
  gtk_widget_set_margin_end (label, 6);
  if (numeric)
    gtk_widget_add_css_class (label, "numeric");
  gtk_list_item_set_child (item, label);
}

static void
bind_counter_cb (CsComparePage            *self,
                 GtkListItem              *item,
                 GtkSignalListItemFactory *factory)
{
  const CsCompareCounter *counter = counter_of_item (self, item);
  GtkLabel *label = GTK_LABEL (gtk_list_item_get_child (item));
  const CsCounterInfo *info;
  g_autofree char *markup = NULL;

  if (counter == NULL)
    return;

  info = cs_counter_get_info (counter->counter);
  markup = g_markup_printf_escaped ("%s\n<small>%s</small>", _(info->label), info->unit);
  gtk_label_set_markup (label, markup);
}

static void
bind_direction_cb (CsComparePage            *self,
                   GtkListItem              *item,
                   GtkSignalListItemFactory *factory)
{
  const CsCompareCounter *counter = counter_of_item (self, item);
  GtkLabel *label = GTK_LABEL (gtk_list_item_get_child (item));
  const CsCounterInfo *info;

  if (counter == NULL)
    return;

  info = cs_counter_get_info (counter->counter);
  if (info->direction == CS_DIRECTION_NONE)
    gtk_label_set_label (label, "");
  else
    gtk_label_set_label (label, _(cs_direction_to_string (info->direction)));
  gtk_widget_add_css_class (GTK_WIDGET (label), "dim-label");
}

static void
bind_run_cb (CsComparePage            *self,
             GtkListItem              *item,
             GtkSignalListItemFactory *factory)
{
  const CsCompareCounter *counter = counter_of_item (self, item);
  GtkWidget *label = gtk_list_item_get_child (item);
  guint run = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (factory), "cs-run-index"));
  g_autofree char *avg = NULL;
  g_autofree char *min = NULL;
  g_autofree char *max = NULL;
  g_autofree char *markup = NULL;
  gboolean best;

  gtk_widget_remove_css_class (label, "compare-best");
  gtk_widget_set_tooltip_text (label, NULL);

  if (counter == NULL || run >= counter->n_runs || !counter->valid[run])
    {
      gtk_label_set_label (GTK_LABEL (label), "—");
      return;
    }

  avg = cs_compare_format_value (counter->counter, counter->stats[run].avg);
  min = cs_compare_format_value (counter->counter, counter->stats[run].min);
  max = cs_compare_format_value (counter->counter, counter->stats[run].max);
  best = counter->best[CS_COMPARE_AVG] != CS_COMPARE_NONE &&
         cs_compare_is_best (self->compare, counter->counter, CS_COMPARE_AVG, run);

  markup = g_markup_printf_escaped ("%s%s\n<small>%s – %s</small>",
                                    best ? "★ " : "", avg, min, max);
  gtk_label_set_markup (GTK_LABEL (label), markup);

  if (best)
    {
      gtk_widget_add_css_class (label, "compare-best");
      gtk_widget_set_tooltip_text (label, counter->best[CS_COMPARE_AVG] == CS_COMPARE_TIE
                                          ? _("Best average, tied") : _("Best average"));
    }
}

static GtkColumnViewColumn *
make_column (CsComparePage *self,
             const char    *title,
             GCallback      bind,
             gboolean       numeric,
             int            run)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
  GtkColumnViewColumn *column;

  g_signal_connect (factory, "setup", G_CALLBACK (setup_label_cb), GINT_TO_POINTER (numeric));
  g_signal_connect_object (factory, "bind", bind, self, G_CONNECT_SWAPPED);
  if (run >= 0)
    g_object_set_data (G_OBJECT (factory), "cs-run-index", GUINT_TO_POINTER ((guint) run));

  column = gtk_column_view_column_new (title, factory);
  gtk_column_view_column_set_expand (column, run >= 0);

  return column;
}

static void
cs_compare_page_rebuild_table (CsComparePage *self)
{
  GListModel *columns = gtk_column_view_get_columns (self->table);
  g_autoptr(GtkStringList) keys = gtk_string_list_new (NULL);
  GtkNoSelection *selection;
  GtkColumnViewColumn *column;

  while (g_list_model_get_n_items (columns) > 0)
    {
      g_autoptr(GtkColumnViewColumn) old = g_list_model_get_item (columns, 0);

      gtk_column_view_remove_column (self->table, old);
    }

  column = make_column (self, _("Counter"), G_CALLBACK (bind_counter_cb), FALSE, -1);
  gtk_column_view_append_column (self->table, column);
  g_object_unref (column);

  for (guint i = 0; i < self->runs->len; i++)
    {
      column = make_column (self, self->labels[i], G_CALLBACK (bind_run_cb), TRUE, (int) i);
      gtk_column_view_append_column (self->table, column);
      g_object_unref (column);
    }

  column = make_column (self, _("Direction"), G_CALLBACK (bind_direction_cb), FALSE, -1);
  gtk_column_view_append_column (self->table, column);
  g_object_unref (column);

  for (guint i = 0; i < CS_N_COUNTERS; i++)
    gtk_string_list_append (keys, cs_counter_get_info ((CsCounter) i)->key);

  selection = gtk_no_selection_new (G_LIST_MODEL (g_steal_pointer (&keys)));
  gtk_column_view_set_model (self->table, GTK_SELECTION_MODEL (selection));
  g_object_unref (selection);
}

static GBytes *
render_comparison (GtkWidget   *widget,
                   const char  *extension,
                   GError     **error)
{
  CsComparePage *self = CS_COMPARE_PAGE (widget);

  return _cs_export_render_runs ((CsRun **) self->runs->pdata, self->runs->len,
                                 (const char * const *) self->labels, extension, error);
}

static void
exported_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  CsComparePage *self = user_data;   /* alive unless the export was cancelled */
  g_autofree char *message = _cs_export_finish (result);

  if (message != NULL)
    {
      g_autoptr(AdwToast) toast = adw_toast_new (message);

      _cs_toast_show (GTK_WIDGET (self), toast);
    }
}

static void
export_clicked_cb (CsComparePage *self)
{
  CsReportFormat format = cs_compare_page_get_format (self);
  const char *extension = cs_report_format_get_extension (format);
  g_autofree char *name = NULL;

  if (self->runs->len < 2)
    return;

  name = _cs_export_name ("copyscope-comparison", 0, extension);
  _cs_export_async (GTK_WIDGET (self), name, extension, render_comparison, self->cancellable,
                    exported_cb, self);
}

static void
cs_compare_page_dispose (GObject *object)
{
  CsComparePage *self = CS_COMPARE_PAGE (object);
  GtkWidget *child;

  gtk_widget_dispose_template (GTK_WIDGET (self), CS_TYPE_COMPARE_PAGE);

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  g_clear_pointer (&self->compare, cs_compare_free);
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (cs_compare_page_parent_class)->dispose (object);
}

static void
cs_compare_page_finalize (GObject *object)
{
  CsComparePage *self = CS_COMPARE_PAGE (object);

  g_clear_pointer (&self->runs, g_ptr_array_unref);
  g_clear_pointer (&self->labels, g_strfreev);
  g_clear_pointer (&self->verdict, g_free);

  G_OBJECT_CLASS (cs_compare_page_parent_class)->finalize (object);
}

static void
cs_compare_page_class_init (CsComparePageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cs_compare_page_dispose;
  object_class->finalize = cs_compare_page_finalize;

  /* Something to tell the user, such as how an export went. */
  g_type_ensure (CS_TYPE_COMPARE_GRAPH);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-compare-page.ui");
  gtk_widget_class_bind_template_child (widget_class, CsComparePage, title_label);
  gtk_widget_class_bind_template_child (widget_class, CsComparePage, subtitle_label);
  gtk_widget_class_bind_template_child (widget_class, CsComparePage, verdict_label);
  gtk_widget_class_bind_template_child (widget_class, CsComparePage, format_dropdown);
  gtk_widget_class_bind_template_child (widget_class, CsComparePage, graph);
  gtk_widget_class_bind_template_child (widget_class, CsComparePage, table);
  gtk_widget_class_bind_template_callback (widget_class, export_clicked_cb);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "comparepage");
}

static void
cs_compare_page_init (CsComparePage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->runs = g_ptr_array_new_with_free_func ((GDestroyNotify) cs_run_unref);
  self->cancellable = g_cancellable_new ();
}

/* Shows @runs in this order; @labels: one per run, or NULL for the runs' own. */
void
cs_compare_page_set_runs (CsComparePage      *self,
                          CsRun             **runs,
                          guint               n_runs,
                          const char * const *labels)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_autoptr(GString) title = g_string_new (NULL);
  g_autofree char *subtitle = NULL;
  guint n_tests;

  g_return_if_fail (CS_IS_COMPARE_PAGE (self));
  g_return_if_fail (runs != NULL && n_runs >= 2);

  g_ptr_array_set_size (self->runs, 0);
  for (guint i = 0; i < n_runs; i++)
    g_ptr_array_add (self->runs, cs_run_ref (runs[i]));

  g_clear_pointer (&self->compare, cs_compare_free);
  self->compare = cs_compare_new (runs, n_runs, labels);

  for (guint i = 0; i < n_runs; i++)
    {
      const char *label = cs_compare_get_label (self->compare, i);

      g_strv_builder_add (builder, label);
      if (i > 0)
        /* Translators: between the names of compared runs, like "T1 vs T2" */
        g_string_append (title, _(" vs "));
      g_string_append (title, label);
    }
  g_clear_pointer (&self->labels, g_strfreev);
  self->labels = g_strv_builder_end (builder);

  g_free (self->verdict);
  {
    g_autofree char *outcome = outcome_text (self->compare);
    g_autofree char *tally = cs_compare_dup_verdict (self->compare);

    /* The outcome first; the seed reviews' tally of counters is the detail. */
    self->verdict = g_strdup_printf ("%s\n\n%s", outcome, tally);
  }
  n_tests = cs_compare_get_n_tests (self->compare);

  /* Translators: under the comparison's title; MB = 10^6 bytes */
  subtitle = g_strdup_printf (ngettext ("%u runs compared on %u counter · MB = 10⁶ bytes",
                                        "%u runs compared on %u counters · MB = 10⁶ bytes",
                                        n_tests),
                              n_runs, n_tests);

  gtk_label_set_label (self->title_label, title->str);
  gtk_label_set_label (self->subtitle_label, subtitle);
  gtk_label_set_label (self->verdict_label, self->verdict);

  cs_compare_graph_set_runs (self->graph, runs, n_runs, (const char * const *) self->labels);
  cs_compare_page_rebuild_table (self);
}

/* The runs shown, in order; owned by the page. */
CsRun **
cs_compare_page_get_runs (CsComparePage *self,
                          guint         *n_runs)
{
  g_return_val_if_fail (CS_IS_COMPARE_PAGE (self), NULL);

  if (n_runs != NULL)
    *n_runs = self->runs->len;

  return (CsRun **) self->runs->pdata;
}

const char * const *
cs_compare_page_get_labels (CsComparePage *self)
{
  g_return_val_if_fail (CS_IS_COMPARE_PAGE (self), NULL);

  return (const char * const *) self->labels;
}

const char *
cs_compare_page_get_verdict (CsComparePage *self)
{
  g_return_val_if_fail (CS_IS_COMPARE_PAGE (self), NULL);

  return gtk_label_get_label (self->verdict_label);
}

CsReportFormat
cs_compare_page_get_format (CsComparePage *self)
{
  guint selected;

  g_return_val_if_fail (CS_IS_COMPARE_PAGE (self), CS_REPORT_FORMAT_HTML);

  selected = gtk_drop_down_get_selected (self->format_dropdown);
  if (selected > CS_REPORT_FORMAT_PDF)
    return CS_REPORT_FORMAT_HTML;

  return (CsReportFormat) selected;
}
