/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-report"

#include "config.h"

#include <math.h>
#include <string.h>

#include "cs-compare.h"

struct _CsCompare
{
  guint             n_runs;
  CsRun           **runs;
  char            **labels;
  CsCompareCounter  counters[CS_N_COUNTERS];
  CsFigures        *figures;
  guint            *wins;
  guint             n_tests;
  guint             n_ties;
};

static const char * const stat_names[CS_COMPARE_N_STATS] = { "average", "minimum", "maximum" };

static double
stat_value (const CsStat  *stat,
            CsCompareStat  which)
{
  switch (which)
    {
    case CS_COMPARE_AVG:
      return stat->avg;
    case CS_COMPARE_MIN:
      return stat->min;
    case CS_COMPARE_MAX:
      return stat->max;
    case CS_COMPARE_N_STATS:
    default:
      g_assert_not_reached ();
    }
}

char *
cs_compare_format_value (CsCounter counter,
                         double    value)
{
  const CsCounterInfo *info = cs_counter_get_info (counter);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_return_val_if_fail (info != NULL, NULL);

  /* A count is whole; only its mean has a fraction (cs-figures.h). */
  if (counter == CS_COUNTER_THREADS)
    g_ascii_formatd (buf, sizeof buf, value == floor (value) ? "%.0f" : "%.1f", value);
  else
    g_ascii_formatd (buf, sizeof buf, "%.2f", value);
  /* "-0.00" would read as a negative figure. */
  if (strcmp (buf, "-0.00") == 0)
    strcpy (buf, "0.00");

  if (info->unit[0] == '\0')
    return g_strdup (buf);

  return g_strdup_printf ("%s %s", buf, info->unit);
}

/* Values that print the same, or differ by less than the tolerance, are a tie:
 * the Robocopy reviews (docs/ARCHITECTURE.md) call 0.00 vs. 0.00 "identical",
 * and a 0.3 % gap is measurement noise. */
static gboolean
values_tie (CsCounter counter,
            double    a,
            double    b)
{
  g_autofree char *fa = cs_compare_format_value (counter, a);
  g_autofree char *fb = cs_compare_format_value (counter, b);
  double scale = MAX (fabs (a), fabs (b));

  if (strcmp (fa, fb) == 0)
    return TRUE;

  return fabs (a - b) <= CS_COMPARE_TIE_TOLERANCE * scale;
}

static gboolean
is_better (CsDirection direction,
           double      a,
           double      b)
{
  return direction == CS_DIRECTION_LESS_IS_BETTER ? a < b : a > b;
}

static int
find_best (CsCompareCounter *row,
           CsDirection       direction,
           CsCompareStat     which)
{
  int best = -1;

  if (direction == CS_DIRECTION_NONE)
    return CS_COMPARE_NONE;

  for (guint i = 0; i < row->n_runs; i++)
    {
      if (!row->valid[i])
        return CS_COMPARE_NONE;
      if (best < 0 || is_better (direction, stat_value (&row->stats[i], which),
                                 stat_value (&row->stats[best], which)))
        best = (int) i;
    }

  if (best < 0)
    return CS_COMPARE_NONE;

  for (guint i = 0; i < row->n_runs; i++)
    {
      if ((int) i != best &&
          values_tie (row->counter, stat_value (&row->stats[i], which),
                      stat_value (&row->stats[best], which)))
        return CS_COMPARE_TIE;
    }

  return best;
}

CsCompare *
cs_compare_new (CsRun              **runs,
                guint                n_runs,
                const char * const  *labels)
{
  CsCompare *compare;

  g_return_val_if_fail (runs != NULL, NULL);
  g_return_val_if_fail (n_runs > 0, NULL);

  compare = g_new0 (CsCompare, 1);
  compare->n_runs = n_runs;
  compare->runs = g_new0 (CsRun *, n_runs);
  compare->labels = g_new0 (char *, n_runs + 1);
  compare->wins = g_new0 (guint, n_runs);
  compare->figures = g_new0 (CsFigures, n_runs);

  for (guint i = 0; i < n_runs; i++)
    {
      g_autofree char *own = cs_run_dup_label (runs[i]);

      compare->runs[i] = cs_run_ref (runs[i]);
      cs_run_get_figures (runs[i], &compare->figures[i]);
      if (labels != NULL && labels[i] != NULL && labels[i][0] != '\0')
        compare->labels[i] = g_utf8_make_valid (labels[i], -1);
      else if (own != NULL)
        compare->labels[i] = g_steal_pointer (&own);
      else
        compare->labels[i] = g_strdup_printf ("Run %u", i + 1);
    }

  for (guint c = 0; c < CS_N_COUNTERS; c++)
    {
      CsCompareCounter *row = &compare->counters[c];
      CsDirection direction = cs_counter_get_info (c)->direction;

      row->counter = c;
      row->n_runs = n_runs;
      row->stats = g_new0 (CsStat, n_runs);
      row->valid = g_new0 (gboolean, n_runs);
      for (guint i = 0; i < n_runs; i++)
        row->valid[i] = cs_run_get_stat (runs[i], c, &row->stats[i]);

      for (guint s = 0; s < CS_COMPARE_N_STATS; s++)
        row->best[s] = find_best (row, direction, s);

      row->is_test = row->best[CS_COMPARE_AVG] != CS_COMPARE_NONE;
      if (!row->is_test)
        continue;

      compare->n_tests++;
      if (row->best[CS_COMPARE_AVG] == CS_COMPARE_TIE)
        compare->n_ties++;
      else
        compare->wins[row->best[CS_COMPARE_AVG]]++;
    }

  return compare;
}

void
cs_compare_free (CsCompare *compare)
{
  if (compare == NULL)
    return;

  for (guint c = 0; c < CS_N_COUNTERS; c++)
    {
      g_free (compare->counters[c].stats);
      g_free (compare->counters[c].valid);
    }
  for (guint i = 0; i < compare->n_runs; i++)
    cs_run_unref (compare->runs[i]);
  g_free (compare->runs);
  g_strfreev (compare->labels);
  g_free (compare->wins);
  g_free (compare->figures);
  g_free (compare);
}

guint
cs_compare_get_n_runs (CsCompare *compare)
{
  g_return_val_if_fail (compare != NULL, 0);

  return compare->n_runs;
}

CsRun *
cs_compare_get_run (CsCompare *compare,
                    guint      run)
{
  g_return_val_if_fail (compare != NULL, NULL);
  g_return_val_if_fail (run < compare->n_runs, NULL);

  return compare->runs[run];
}

const char *
cs_compare_get_label (CsCompare *compare,
                      guint      run)
{
  g_return_val_if_fail (compare != NULL, NULL);
  g_return_val_if_fail (run < compare->n_runs, NULL);

  return compare->labels[run];
}

const CsCompareCounter *
cs_compare_get_counter (CsCompare *compare,
                        CsCounter  counter)
{
  g_return_val_if_fail (compare != NULL, NULL);
  g_return_val_if_fail (counter < CS_N_COUNTERS, NULL);

  return &compare->counters[counter];
}

guint
cs_compare_get_n_tests (CsCompare *compare)
{
  g_return_val_if_fail (compare != NULL, 0);

  return compare->n_tests;
}

guint
cs_compare_get_wins (CsCompare *compare,
                     guint      run)
{
  g_return_val_if_fail (compare != NULL, 0);
  g_return_val_if_fail (run < compare->n_runs, 0);

  return compare->wins[run];
}

guint
cs_compare_get_n_ties (CsCompare *compare)
{
  g_return_val_if_fail (compare != NULL, 0);

  return compare->n_ties;
}

gboolean
cs_compare_get_pooled (CsCompare *compare,
                       CsCounter  counter,
                       CsStat    *out_stat)
{
  const CsCompareCounter *row;
  CsStat pooled = { 0, INFINITY, -INFINITY };
  guint n = 0;

  g_return_val_if_fail (compare != NULL, FALSE);
  g_return_val_if_fail (counter < CS_N_COUNTERS, FALSE);

  row = &compare->counters[counter];
  for (guint i = 0; i < row->n_runs; i++)
    {
      if (!row->valid[i])
        continue;
      pooled.avg += row->stats[i].avg;
      pooled.min = MIN (pooled.min, row->stats[i].min);
      pooled.max = MAX (pooled.max, row->stats[i].max);
      n++;
    }

  if (n == 0)
    return FALSE;

  pooled.avg /= n;
  if (out_stat != NULL)
    *out_stat = pooled;

  return TRUE;
}

gboolean
cs_compare_is_best (CsCompare     *compare,
                    CsCounter      counter,
                    CsCompareStat  stat,
                    guint          run)
{
  const CsCompareCounter *row;
  CsDirection direction;
  int best = -1;

  g_return_val_if_fail (compare != NULL, FALSE);
  g_return_val_if_fail (counter < CS_N_COUNTERS, FALSE);
  g_return_val_if_fail (stat < CS_COMPARE_N_STATS, FALSE);
  g_return_val_if_fail (run < compare->n_runs, FALSE);

  row = &compare->counters[counter];
  if (row->best[stat] == CS_COMPARE_NONE)
    return FALSE;
  if (row->best[stat] >= 0)
    return row->best[stat] == (int) run;

  direction = cs_counter_get_info (counter)->direction;
  for (guint i = 0; i < row->n_runs; i++)
    if (best < 0 || is_better (direction, stat_value (&row->stats[i], stat),
                               stat_value (&row->stats[best], stat)))
      best = (int) i;

  return values_tie (counter, stat_value (&row->stats[run], stat),
                     stat_value (&row->stats[best], stat));
}

/* "A", "A and B", "A, B and C" */
static void
append_list (GString           *out,
             const char * const *items,
             guint               n)
{
  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append (out, i + 1 == n ? " and " : ", ");
      g_string_append (out, items[i]);
    }
}

static const char *
tests_word (guint n)
{
  return n == 1 ? "test" : "tests";
}

char *
cs_compare_dup_verdict (CsCompare *compare)
{
  g_autofree guint *order = NULL;
  GString *out;
  guint n_sentences = 0;

  g_return_val_if_fail (compare != NULL, NULL);

  out = g_string_new (NULL);
  if (compare->n_tests == 0)
    {
      g_string_append (out, "There is no test to compare: the runs have no counter data in common.");
      return g_string_free (out, FALSE);
    }

  /* Most wins first; equal wins keep the order the runs were given in. */
  order = g_new (guint, compare->n_runs);
  for (guint i = 0; i < compare->n_runs; i++)
    order[i] = i;
  for (guint i = 1; i < compare->n_runs; i++)
    for (guint j = i; j > 0 && compare->wins[order[j]] > compare->wins[order[j - 1]]; j--)
      {
        guint tmp = order[j];

        order[j] = order[j - 1];
        order[j - 1] = tmp;
      }

  for (guint k = 0; k < compare->n_runs; k++)
    {
      guint run = order[k];
      g_autoptr(GPtrArray) names = g_ptr_array_new ();

      if (compare->wins[run] == 0)
        continue;

      for (guint c = 0; c < CS_N_COUNTERS; c++)
        if (compare->counters[c].is_test && compare->counters[c].best[CS_COMPARE_AVG] == (int) run)
          g_ptr_array_add (names, (gpointer) cs_counter_get_info (c)->label);

      if (n_sentences == 0)
        g_string_append (out, "According to the performance results, ");
      else if (n_sentences == 1)
        g_string_append (out, " On the other hand, ");
      else
        g_string_append (out, " ");

      g_string_append_printf (out, "%s achieves better results in %u out of %u %s including: ",
                              compare->labels[run], compare->wins[run], compare->n_tests,
                              tests_word (compare->n_tests));
      append_list (out, (const char * const *) names->pdata, names->len);
      g_string_append_c (out, '.');
      n_sentences++;
    }

  if (compare->n_ties > 0)
    {
      g_autoptr(GPtrArray) names = g_ptr_array_new ();

      for (guint c = 0; c < CS_N_COUNTERS; c++)
        if (compare->counters[c].is_test && compare->counters[c].best[CS_COMPARE_AVG] == CS_COMPARE_TIE)
          g_ptr_array_add (names, (gpointer) cs_counter_get_info (c)->label);

      g_string_append (out, n_sentences == 0 ? "According to the performance results, the" : " The");
      g_string_append_printf (out, " runs are tied (within %.1f %%) in %u out of %u %s: ",
                              CS_COMPARE_TIE_TOLERANCE * 100, compare->n_ties, compare->n_tests,
                              tests_word (compare->n_tests));
      append_list (out, (const char * const *) names->pdata, names->len);
      g_string_append_c (out, '.');
    }

  return g_string_free (out, FALSE);
}

/* Labels of the runs tied with the best one, in run order. */
static GPtrArray *
tied_labels (CsCompare              *compare,
             const CsCompareCounter *row,
             CsCompareStat           which,
             CsDirection             direction)
{
  GPtrArray *labels = g_ptr_array_new ();
  int best = -1;

  for (guint i = 0; i < row->n_runs; i++)
    if (best < 0 || is_better (direction, stat_value (&row->stats[i], which),
                               stat_value (&row->stats[best], which)))
      best = (int) i;

  for (guint i = 0; i < row->n_runs; i++)
    if ((int) i == best || values_tie (row->counter, stat_value (&row->stats[i], which),
                                       stat_value (&row->stats[best], which)))
      g_ptr_array_add (labels, compare->labels[i]);

  return labels;
}

static void
append_clause (GString                *out,
               CsCompare              *compare,
               const CsCompareCounter *row,
               CsCompareStat           which)
{
  const CsCounterInfo *info = cs_counter_get_info (row->counter);
  int best = row->best[which];

  g_string_append_printf (out, "the %s %s is ", stat_names[which], info->label);

  if (best == CS_COMPARE_TIE)
    {
      g_autoptr(GPtrArray) tied = tied_labels (compare, row, which, info->direction);
      g_autoptr(GPtrArray) values = g_ptr_array_new_with_free_func (g_free);
      gboolean identical = TRUE;

      for (guint i = 0; i < row->n_runs; i++)
        {
          g_autofree char *v = cs_compare_format_value (row->counter, stat_value (&row->stats[i], which));

          if (values->len > 0 && strcmp (v, g_ptr_array_index (values, 0)) != 0)
            identical = FALSE;
          g_ptr_array_add (values, g_steal_pointer (&v));
        }

      g_string_append (out, identical ? "identical for " : "about the same for ");
      if (tied->len == 2 && row->n_runs == 2)
        g_string_append (out, "both ");
      append_list (out, (const char * const *) tied->pdata, tied->len);
      g_string_append (out, " (");
      if (identical)
        {
          g_string_append (out, g_ptr_array_index (values, 0));
        }
      else
        {
          for (guint i = 0; i < values->len; i++)
            {
              if (i > 0)
                g_string_append (out, " vs. ");
              g_string_append (out, g_ptr_array_index (values, i));
            }
        }
      g_string_append_c (out, ')');
      return;
    }

  g_string_append_printf (out, "better for %s (", compare->labels[best]);
  {
    g_autofree char *v = cs_compare_format_value (row->counter, stat_value (&row->stats[best], which));

    g_string_append (out, v);
  }

  if (row->n_runs == 2)
    {
      g_autofree char *v = cs_compare_format_value (row->counter,
                                                    stat_value (&row->stats[1 - best], which));

      g_string_append_printf (out, " vs. %s", v);
    }
  else
    {
      gboolean first = TRUE;

      g_string_append (out, ", vs. ");
      for (guint i = 0; i < row->n_runs; i++)
        {
          g_autofree char *v = NULL;

          if ((int) i == best)
            continue;
          v = cs_compare_format_value (row->counter, stat_value (&row->stats[i], which));
          g_string_append_printf (out, "%s%s for %s", first ? "" : ", ", v, compare->labels[i]);
          first = FALSE;
        }
    }
  g_string_append_c (out, ')');
}

char *
cs_compare_dup_counter_sentence (CsCompare *compare,
                                 CsCounter  counter)
{
  const CsCompareCounter *row;
  GString *out;

  g_return_val_if_fail (compare != NULL, NULL);
  g_return_val_if_fail (counter < CS_N_COUNTERS, NULL);

  row = &compare->counters[counter];
  if (!row->is_test)
    return NULL;

  out = g_string_new (NULL);
  append_clause (out, compare, row, CS_COMPARE_AVG);
  g_string_append (out, ", ");
  append_clause (out, compare, row, CS_COMPARE_MIN);
  g_string_append (out, " and ");
  append_clause (out, compare, row, CS_COMPARE_MAX);
  g_string_append_c (out, '.');
  out->str[0] = g_ascii_toupper (out->str[0]);

  return g_string_free (out, FALSE);
}

/* ---- Copyscope's own verdict ---------------------------------------------- */

const CsFigures *
cs_compare_get_figures (CsCompare *compare,
                        guint      run)
{
  g_return_val_if_fail (compare != NULL, NULL);
  g_return_val_if_fail (run < compare->n_runs, NULL);

  return &compare->figures[run];
}

static gboolean
close_enough (double a,
              double b,
              double tolerance)
{
  return fabs (a - b) <= tolerance * MAX (fabs (a), fabs (b));
}

static gboolean
same_work (CsCompare *compare)
{
  for (guint i = 1; i < compare->n_runs; i++)
    if (!close_enough ((double) compare->figures[i].files, (double) compare->figures[0].files,
                       CS_COMPARE_SAME_WORK_TOLERANCE) ||
        !close_enough ((double) compare->figures[i].bytes, (double) compare->figures[0].bytes,
                       CS_COMPARE_SAME_WORK_TOLERANCE))
      return FALSE;

  return TRUE;
}

/* Duration, or speed for different amounts: which is better, and the ratio. */
static double
outcome_value (const CsFigures *f,
               gboolean         by_speed)
{
  return by_speed ? f->speed : f->duration;
}

void
cs_compare_get_outcome (CsCompare        *compare,
                        CsCompareOutcome *out)
{
  int best = -1, worst = -1;

  g_return_if_fail (compare != NULL);
  g_return_if_fail (out != NULL);

  out->by_speed = !same_work (compare);
  out->fastest = CS_COMPARE_NONE;
  out->factor = 0;

  for (guint i = 0; i < compare->n_runs; i++)
    {
      double v = outcome_value (&compare->figures[i], out->by_speed);

      if (!(compare->figures[i].duration > 0) || !(v > 0))
        continue;
      if (best < 0 || (out->by_speed ? v > outcome_value (&compare->figures[best], TRUE)
                                     : v < outcome_value (&compare->figures[best], FALSE)))
        best = (int) i;
      if (worst < 0 || (out->by_speed ? v < outcome_value (&compare->figures[worst], TRUE)
                                      : v > outcome_value (&compare->figures[worst], FALSE)))
        worst = (int) i;
    }
  if (best < 0)
    return;

  out->fastest = best;
  out->factor = out->by_speed
                ? compare->figures[best].speed / compare->figures[worst].speed
                : compare->figures[worst].duration / compare->figures[best].duration;

  /* Another run as fast within the tolerance: a tie, as for the counters. */
  for (guint i = 0; i < compare->n_runs; i++)
    if ((int) i != best && compare->figures[i].duration > 0 &&
        close_enough (outcome_value (&compare->figures[i], out->by_speed),
                      outcome_value (&compare->figures[best], out->by_speed),
                      CS_COMPARE_TIE_TOLERANCE))
      out->fastest = CS_COMPARE_TIE;
}

static void
append_figures (GString         *out,
                const char      *label,
                const CsFigures *f)
{
  g_autofree char *duration = cs_figure_format (CS_FIGURE_DURATION, f->duration);
  g_autofree char *speed = cs_figure_format (CS_FIGURE_SPEED, f->speed);
  g_autofree char *file_rate = cs_figure_format (CS_FIGURE_FILE_RATE, f->file_rate);

  g_string_append_printf (out, " %s: %s, %s, %s, ", label, duration, speed, file_rate);
  if (cs_figures_threads_changed (f))
    {
      g_autofree char *mean = cs_figure_format_number (CS_FIGURE_THREADS_MEAN, f->threads_mean, FALSE);

      g_string_append_printf (out, "%u–%u threads (mean %s).", f->threads_min, f->threads_max, mean);
    }
  else
    g_string_append_printf (out, "%u %s.", f->threads, f->threads == 1 ? "thread" : "threads");
}

static char *
format_factor (double factor)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.2f", factor));
}

char *
cs_compare_dup_outcome (CsCompare *compare)
{
  CsCompareOutcome outcome;
  GString *out;
  const CsFigures *fast;

  g_return_val_if_fail (compare != NULL, NULL);

  cs_compare_get_outcome (compare, &outcome);
  out = g_string_new (NULL);

  if (outcome.fastest == CS_COMPARE_NONE)
    {
      g_string_append (out, "None of the runs copied anything in a measurable time.");
    }
  else if (outcome.fastest == CS_COMPARE_TIE)
    {
      char tolerance[G_ASCII_DTOSTR_BUF_SIZE];

      g_ascii_formatd (tolerance, sizeof tolerance, "%.1f", CS_COMPARE_TIE_TOLERANCE * 100);

      g_string_append_printf (out, outcome.by_speed
                              ? "The runs copied at the same speed, within %s %%:"
                              : "The runs finished in the same time, within %s %%:", tolerance);
      for (guint i = 0; i < compare->n_runs; i++)
        {
          g_autofree char *v = outcome.by_speed
                               ? cs_figure_format (CS_FIGURE_SPEED, compare->figures[i].speed)
                               : cs_figure_format (CS_FIGURE_DURATION, compare->figures[i].duration);

          g_string_append_printf (out, "%s%s for %s", i == 0 ? " " : i + 1 == compare->n_runs ? " and " : ", ",
                                  v, compare->labels[i]);
        }
      g_string_append_c (out, '.');
    }
  else
    {
      CsFigure figure = outcome.by_speed ? CS_FIGURE_SPEED : CS_FIGURE_DURATION;
      g_autofree char *best = NULL;
      gboolean first = TRUE;

      fast = &compare->figures[outcome.fastest];
      best = cs_figure_format (figure, outcome_value (fast, outcome.by_speed));
      g_string_append_printf (out, "%s %s %s: %s against ", compare->labels[outcome.fastest],
                              outcome.by_speed ? "copied" : "finished",
                              compare->n_runs > 2 ? "fastest" : "faster", best);
      for (guint i = 0; i < compare->n_runs; i++)
        {
          const CsFigures *f = &compare->figures[i];
          g_autofree char *v = NULL;
          g_autofree char *factor = NULL;
          double ratio;

          if ((int) i == outcome.fastest)
            continue;
          v = cs_figure_format (figure, outcome_value (f, outcome.by_speed));
          ratio = outcome.by_speed
                  ? (f->speed > 0 ? fast->speed / f->speed : 0)
                  : (fast->duration > 0 ? f->duration / fast->duration : 0);
          factor = format_factor (ratio);
          if (!first)
            g_string_append (out, ", ");
          g_string_append_printf (out, compare->n_runs == 2 ? "%s for %s, %s times %s" : "%s for %s (%s times %s)",
                                  v, compare->labels[i], factor, outcome.by_speed ? "the speed" : "as fast");
          first = FALSE;
        }
      g_string_append_c (out, '.');
      if (outcome.by_speed)
        g_string_append (out, " The runs copied different amounts, so their speeds are compared"
                         " rather than their durations.");
    }

  for (guint i = 0; i < compare->n_runs; i++)
    append_figures (out, compare->labels[i], &compare->figures[i]);

  return g_string_free (out, FALSE);
}
