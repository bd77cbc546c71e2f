/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-report"

#include "config.h"

#include <string.h>

#include <glib.h>

#include "cs-report-private.h"
#include "cs-report-phases.h"
#include "cs-text.h"

/* Markdown as GitHub, GitLab and wikis render it: tables in pipes, every
 * name and label escaped so it can open no link, emphasis or tag. */

void
_cs_report_append_md (GString    *out,
                      const char *text)
{
  g_autofree char *line = NULL;

  if (text == NULL)
    return;

  /* First as one line of plain text (cs-text.h): control characters, line
   * breaks and stray bytes as "\n", "\xHH", a backslash doubled. Those
   * backslashes stay as they are: Markdown shows "\\" as one, and one before
   * a letter as it is, so a name reads as in the log and the terminal. */
  line = cs_text_escape (text, -1, CS_TEXT_ESCAPE_LINE);
  for (const char *p = line; *p != '\0'; p++)
    {
      char c = *p;

      /* Entities rather than backslashes for HTML's characters: every
       * renderer decodes them, and none lets them open a tag. */
      if (c == '<')
        g_string_append (out, "&lt;");
      else if (c == '>')
        g_string_append (out, "&gt;");
      else if (c == '&')
        g_string_append (out, "&amp;");
      else if (strchr ("`*_[]|~#!", c) != NULL)
        {
          g_string_append_c (out, '\\');
          g_string_append_c (out, c);
        }
      else
        g_string_append_c (out, c);
    }
}

static void
md_table (GString     *out,
          const CsReportTable *table)
{
  for (guint i = 0; i < table->cells->len; i++)
    {
      const CsReportCell *cell = &g_array_index (table->cells, CsReportCell, i);
      guint column = i % table->n_columns;
      gboolean bold = (cell->flags & CS_CELL_BEST) != 0;

      if (column == 0)
        g_string_append_c (out, '|');
      g_string_append (out, bold ? " **" : " ");
      _cs_report_append_md (out, cell->text);
      g_string_append (out, bold ? "** |" : " |");
      if (column + 1 < table->n_columns)
        continue;

      g_string_append_c (out, '\n');
      if (i + 1 == table->n_columns)
        {
          g_string_append_c (out, '|');
          for (guint c = 0; c < table->n_columns; c++)
            g_string_append (out, _cs_report_table_column_is_numeric (table, c) ? "--:|" : "---|");
          g_string_append_c (out, '\n');
        }
    }
}

static void
md_failures (GString   *out,
             CsCompare *compare)
{
  guint more = 0;
  g_autoptr(CsReportTable) table = _cs_report_failures_table (compare, FALSE, &more);
  g_autoptr(CsReportTable) notes = NULL;

  g_string_append (out, "## Failures\n\n");
  if (table == NULL)
    g_string_append (out, "No failures.\n\n");
  else
    {
      md_table (out, table);
      if (more > 0)
        g_string_append_printf (out, "\n%u more failures are in the CSV and JSON exports.\n", more);
      g_string_append_c (out, '\n');
    }

  /* Not failures, and only when there are some. */
  notes = _cs_report_failures_table (compare, TRUE, &more);
  if (notes == NULL)
    return;
  g_string_append (out, "## Notes\n\n"
                        "Not failures: what the destination did not keep, or what was left out "
                        "on purpose.\n\n");
  md_table (out, notes);
  if (more > 0)
    g_string_append_printf (out, "\n%u more notes are in the CSV and JSON exports.\n", more);
  g_string_append_c (out, '\n');
}

static void
md_title (GString   *out,
          CsCompare *compare)
{
  guint n = cs_compare_get_n_runs (compare);

  if (n == 1)
    {
      g_string_append (out, "# Copyscope run report: ");
      _cs_report_append_md (out, cs_compare_get_label (compare, 0));
      g_string_append (out, "\n\n");
      return;
    }

  g_string_append (out, "# Copyscope comparison: ");
  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append (out, " vs. ");
      _cs_report_append_md (out, cs_compare_get_label (compare, i));
    }
  g_string_append (out, "\n\n");
}

/* Per counter, for a comparison: every statistic of every run. */
static CsReportTable *
counter_runs_table (CsCompare *compare,
                    CsCounter  counter)
{
  guint n = cs_compare_get_n_runs (compare);
  CsReportTable *table = _cs_report_table_new (TRUE);

  _cs_report_table_add (table, CS_CELL_PLAIN, "Run");
  _cs_report_table_add (table, CS_CELL_PLAIN, "Average");
  _cs_report_table_add (table, CS_CELL_PLAIN, "Min");
  _cs_report_table_add (table, CS_CELL_PLAIN, "Max");
  _cs_report_table_end_header (table);
  for (guint i = 0; i < n; i++)
    {
      _cs_report_table_add (table, CS_CELL_PLAIN, cs_compare_get_label (compare, i));
      for (guint s = 0; s < CS_COMPARE_N_STATS; s++)
        _cs_report_table_take (table, CS_CELL_NUMBER | (cs_compare_is_best (compare, counter, s, i) ? CS_CELL_BEST : 0),
                    _cs_report_stat_cell (compare, counter, s, i));
    }
  return table;
}

static void
md_comparison_counters (GString   *out,
                        CsCompare *compare)
{
  guint n = cs_compare_get_n_runs (compare);
  g_autofree char *verdict = cs_compare_dup_verdict (compare);
  g_autofree char *outcome = cs_compare_dup_outcome (compare);
  g_autoptr(CsReportTable) results = _cs_report_counters_table (compare);

  g_string_append (out, "## Outcome\n\n");
  _cs_report_append_md (out, outcome);
  g_string_append (out, "\n\n## Results\n\nAverages; the best is in bold.\n\n");
  md_table (out, results);
  g_string_append_c (out, '\n');
  _cs_report_append_md (out, verdict);
  g_string_append (out, "\n\n");

  for (guint c = 0; c < CS_N_COUNTERS; c++)
    {
      const CsCounterInfo *info = cs_counter_get_info (c);
      g_autofree char *sentence = cs_compare_dup_counter_sentence (compare, c);
      g_autoptr(CsReportTable) runs = NULL;
      CsStat pooled;

      if (sentence == NULL)
        continue;

      g_string_append (out, "### ");
      for (guint i = 0; i < n; i++)
        {
          if (i > 0)
            g_string_append (out, " vs. ");
          _cs_report_append_md (out, cs_compare_get_label (compare, i));
        }
      g_string_append_printf (out, " - %s\n\n", info->label);
      runs = counter_runs_table (compare, c);
      md_table (out, runs);

      if (cs_compare_get_pooled (compare, c, &pooled))
        {
          g_autofree char *avg = cs_compare_format_value (c, pooled.avg);
          g_autofree char *min = cs_compare_format_value (c, pooled.min);
          g_autofree char *max = cs_compare_format_value (c, pooled.max);

          g_string_append_printf (out, "\n%s. Average: %s, Min: %s, Max: %s.\n",
                                  cs_direction_to_string (info->direction), avg, min, max);
        }
      g_string_append_c (out, '\n');
      _cs_report_append_md (out, sentence);
      g_string_append (out, "\n\n");
    }
}

char *
_cs_report_render_markdown (CsCompare *compare)
{
  GString *out = g_string_new (NULL);

  g_autoptr(CsReportTable) info = _cs_report_info_table (compare);
  g_autoptr(CsReportTable) totals = _cs_report_totals_table (compare);

  md_title (out, compare);
  if (cs_compare_get_n_runs (compare) > 1)
    md_comparison_counters (out, compare);
  g_string_append (out, "## Settings, environment and method\n\n");
  md_table (out, info);
  g_string_append_printf (out, "\n%s\n\n", _cs_report_units_note);
  g_string_append (out, "## Totals\n\n");
  md_table (out, totals);
  g_string_append_c (out, '\n');
  if (cs_compare_get_n_runs (compare) == 1)
    {
      g_autoptr(CsReportTable) counters = _cs_report_counters_table (compare);

      g_string_append (out, "## Performance counters\n\n");
      md_table (out, counters);
      g_string_append_c (out, '\n');
    }
  _cs_report_phases_md (out, compare);
  md_failures (out, compare);

  return g_string_free (out, FALSE);
}
