/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-report"

#include "config.h"

#include <string.h>

#include <glib.h>

#include "cs-report-private.h"
#include "cs-report-phases.h"

#define HTML_CHART_WIDTH   880.0
#define HTML_CHART_HEIGHT  495.0

/* One self-contained page: the style and the chart inline, no script, and
 * every name escaped for text and attributes alike. */

void
_cs_report_append_html (GString    *out,
                        const char *text)
{
  g_autofree char *valid = NULL;
  g_autofree char *escaped = NULL;

  if (text == NULL)
    return;

  valid = g_utf8_make_valid (text, -1);
  /* Escapes & < > ' and ", so the result is safe in text and in quoted
   * attribute values alike. */
  escaped = g_markup_escape_text (valid, -1);
  g_string_append (out, escaped);
}

static void
html_table (GString     *out,
            const CsReportTable *table)
{
  g_string_append (out, "<table>\n");
  for (guint i = 0; i < table->cells->len; i++)
    {
      const CsReportCell *cell = &g_array_index (table->cells, CsReportCell, i);
      guint column = i % table->n_columns;
      gboolean header = i < table->n_columns || (table->row_headers && column == 0);

      if (column == 0)
        g_string_append (out, "<tr>");
      if (header)
        {
          g_string_append (out, "<th>");
          _cs_report_append_html (out, cell->text);
          g_string_append (out, "</th>");
        }
      else
        {
          const char *classes[3];
          guint n = 0;

          if (cell->flags & CS_CELL_NUMBER)
            classes[n++] = "n";
          if (cell->flags & CS_CELL_BEST)
            classes[n++] = "best";
          if (cell->flags & CS_CELL_PATH)
            classes[n++] = "path";
          classes[n] = NULL;
          if (n > 0)
            {
              g_autofree char *joined = g_strjoinv (" ", (char **) classes);

              g_string_append_printf (out, "<td class=\"%s\">", joined);
            }
          else
            g_string_append (out, "<td>");
          _cs_report_append_html (out, cell->text);
          g_string_append (out, "</td>");
        }
      if (column + 1 == table->n_columns)
        g_string_append (out, "</tr>\n");
    }
  g_string_append (out, "</table>\n");
}

static const char html_style[] =
  "body{font-family:system-ui,-apple-system,'Segoe UI',Cantarell,sans-serif;color:#1e1e1e;"
  "background:#fafafa;margin:0;line-height:1.45}"
  "main{max-width:60rem;margin:0 auto;padding:1.5rem}"
  "h1{font-size:1.6rem}h2{font-size:1.25rem;margin-top:2rem;border-bottom:1px solid #ddd}"
  "h3{font-size:1.05rem;margin-bottom:.4rem}"
  "table{border-collapse:collapse;margin:.6rem 0;font-variant-numeric:tabular-nums}"
  "th,td{border:1px solid #d0d0d0;padding:.25rem .6rem;text-align:left;vertical-align:top}"
  "td.n{text-align:right;white-space:nowrap}th{background:#eee}"
  "td.best{font-weight:bold;background:#e3f4e1}"
  ".path{word-break:break-all;white-space:pre-wrap}"
  ".verdict{font-size:1.05rem;background:#fff;border-left:4px solid #3584e4;padding:.6rem 1rem}"
  ".bars td{border:none;padding:.15rem .4rem}.bar{background:#3584e4;height:.9rem;min-width:1px}"
  ".bar.best{background:#26a269}.note{color:#555;font-size:.9rem}"
  ".chart svg{max-width:100%;height:auto}figure{margin:1rem 0}"
  "@media (prefers-color-scheme:dark){body{background:#242424;color:#eee}th{background:#333}"
  "th,td{border-color:#555}td.best{background:#1f4a24}.verdict{background:#303030}.note{color:#bbb}"
  ".chart svg{background:#fff}}";

/* cairo names its SVG definitions glyph0-1, clip1, …: prefix them so charts
 * from several documents can share one HTML page without clashing. */
static void
append_inline_svg (GString    *out,
                   GBytes     *svg,
                   const char *prefix)
{
  gsize len = 0;
  const char *data = g_bytes_get_data (svg, &len);
  g_autofree char *text = g_strndup (data, len);
  const char *start = strstr (text, "<svg");
  g_autoptr(GString) body = NULL;

  if (start == NULL)
    return;

  body = g_string_new (start);
  {
    g_autofree char *id = g_strdup_printf ("id=\"%s-", prefix);
    g_autofree char *href = g_strdup_printf ("href=\"#%s-", prefix);
    g_autofree char *url = g_strdup_printf ("url(#%s-", prefix);

    g_string_replace (body, "id=\"", id, 0);
    g_string_replace (body, "href=\"#", href, 0);
    g_string_replace (body, "url(#", url, 0);
  }
  g_string_append (out, body->str);
}

static void
html_cell (GString    *out,
           const char *klass,
           const char *text)
{
  if (klass != NULL)
    g_string_append_printf (out, "<td class=\"%s\">", klass);
  else
    g_string_append (out, "<td>");
  _cs_report_append_html (out, text);
  g_string_append (out, "</td>");
}

static void
html_failures (GString   *out,
               CsCompare *compare)
{
  guint more = 0;
  g_autoptr(CsReportTable) table = _cs_report_failures_table (compare, FALSE, &more);
  g_autoptr(CsReportTable) notes = NULL;

  g_string_append (out, "<h2>Failures</h2>\n");
  if (table == NULL)
    g_string_append (out, "<p>No failures.</p>\n");
  else
    {
      html_table (out, table);
      if (more > 0)
        g_string_append_printf (out, "<p class=\"note\">%u more failures are in the CSV and JSON exports.</p>\n", more);
    }

  /* Not failures, and only when there are some. */
  notes = _cs_report_failures_table (compare, TRUE, &more);
  if (notes == NULL)
    return;
  g_string_append (out, "<h2>Notes</h2>\n"
                        "<p>Not failures: what the destination did not keep, or what was left out "
                        "on purpose.</p>\n");
  html_table (out, notes);
  if (more > 0)
    g_string_append_printf (out, "<p class=\"note\">%u more notes are in the CSV and JSON exports.</p>\n", more);
}

static void
html_counter_sections (GString   *out,
                       CsCompare *compare)
{
  guint n = cs_compare_get_n_runs (compare);

  for (guint c = 0; c < CS_N_COUNTERS; c++)
    {
      const CsCounterInfo *info = cs_counter_get_info (c);
      const CsCompareCounter *row = cs_compare_get_counter (compare, c);
      g_autofree char *sentence = cs_compare_dup_counter_sentence (compare, c);
      double top = 0;
      CsStat pooled;

      if (sentence == NULL)
        continue;

      for (guint i = 0; i < n; i++)
        top = MAX (top, row->stats[i].avg);

      g_string_append_printf (out, "<section>\n<h3>");
      for (guint i = 0; i < n; i++)
        {
          if (i > 0)
            g_string_append (out, " vs. ");
          _cs_report_append_html (out, cs_compare_get_label (compare, i));
        }
      g_string_append_printf (out, " - %s</h3>\n<table class=\"bars\">\n", info->label);
      for (guint i = 0; i < n; i++)
        {
          g_autofree char *v = cs_compare_format_value (c, row->stats[i].avg);
          g_autofree char *width = _cs_report_format_fixed ("%.1f", top > 0 ? 100.0 * row->stats[i].avg / top : 0);
          gboolean best = cs_compare_is_best (compare, c, CS_COMPARE_AVG, i);

          g_string_append (out, "<tr>");
          html_cell (out, NULL, cs_compare_get_label (compare, i));
          g_string_append_printf (out, "<td style=\"width:20rem\"><div class=\"bar%s\" style=\"width:%s%%\"></div></td>",
                                  best ? " best" : "", width);
          html_cell (out, best ? "n best" : "n", v);
          g_string_append (out, "</tr>\n");
        }
      g_string_append (out, "</table>\n<p class=\"note\">");
      _cs_report_append_html (out, cs_direction_to_string (info->direction));
      if (cs_compare_get_pooled (compare, c, &pooled))
        {
          g_autofree char *avg = cs_compare_format_value (c, pooled.avg);
          g_autofree char *min = cs_compare_format_value (c, pooled.min);
          g_autofree char *max = cs_compare_format_value (c, pooled.max);

          g_string_append_printf (out, " · Average: %s · Min: %s · Max: %s", avg, min, max);
        }
      g_string_append (out, "</p>\n<p>");
      _cs_report_append_html (out, sentence);
      g_string_append (out, "</p>\n</section>\n");
    }
}

char *
_cs_report_render_html (CsCompare  *compare,
                        GError    **error)
{
  guint n = cs_compare_get_n_runs (compare);
  g_autoptr(GString) title = g_string_new (NULL);
  g_autoptr(GBytes) svg = NULL;
  g_autoptr(CsReportTable) info = NULL;
  g_autoptr(CsReportTable) totals = NULL;
  GString *out;

  if (n == 1)
    {
      g_string_append (title, "Copyscope run report: ");
      g_string_append (title, cs_compare_get_label (compare, 0));
    }
  else
    {
      g_string_append (title, "Copyscope comparison: ");
      for (guint i = 0; i < n; i++)
        {
          if (i > 0)
            g_string_append (title, " vs. ");
          g_string_append (title, cs_compare_get_label (compare, i));
        }
    }

  svg = _cs_report_render_chart (compare, CS_PLOT_FORMAT_SVG, HTML_CHART_WIDTH, HTML_CHART_HEIGHT, error);
  if (svg == NULL)
    return NULL;
  info = _cs_report_info_table (compare);
  totals = _cs_report_totals_table (compare);

  out = g_string_new ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
  /* Defence in depth: even a name that slipped past escaping could not run script. */
  g_string_append (out, "<meta http-equiv=\"Content-Security-Policy\" "
                        "content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n"
                        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                        "<meta name=\"generator\" content=\"Copyscope\">\n<title>");
  _cs_report_append_html (out, title->str);
  g_string_append_printf (out, "</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n<h1>", html_style);
  _cs_report_append_html (out, title->str);
  g_string_append (out, "</h1>\n");

  if (n > 1)
    {
      g_autofree char *verdict = cs_compare_dup_verdict (compare);
      g_autofree char *outcome = cs_compare_dup_outcome (compare);
      g_autoptr(CsReportTable) results = _cs_report_counters_table (compare);

      g_string_append (out, "<h2>Outcome</h2>\n<p class=\"verdict\">");
      _cs_report_append_html (out, outcome);
      g_string_append (out, "</p>\n<h2>Results</h2>\n");
      html_table (out, results);
      g_string_append (out, "<p class=\"verdict\">");
      _cs_report_append_html (out, verdict);
      g_string_append (out, "</p>\n");
    }

  g_string_append (out, "<h2>Throughput</h2>\n<figure class=\"chart\" role=\"img\" aria-label=\"");
  _cs_report_append_html (out, n > 1 ? "Transfer rate and request rate of each run over time, aligned at the start"
                          : "Transfer rate and request rate over time, with thread changes marked");
  g_string_append (out, "\">\n");
  append_inline_svg (out, svg, "cs-chart");
  g_string_append_printf (out, "\n<figcaption class=\"note\">Top: MB/s %s; bottom: requests/s. "
                          "Vertical markers show thread-count changes.</figcaption>\n</figure>\n",
                          n > 1 ? "written" : "read and written");

  if (n > 1)
    html_counter_sections (out, compare);
  else
    {
      g_autoptr(CsReportTable) counters = _cs_report_counters_table (compare);

      g_string_append (out, "<h2>Performance counters</h2>\n");
      html_table (out, counters);
    }
  _cs_report_phases_html (out, compare);

  g_string_append (out, "<h2>Settings, environment and method</h2>\n");
  html_table (out, info);
  g_string_append (out, "<p class=\"note\">");
  _cs_report_append_html (out, _cs_report_units_note);
  g_string_append (out, "</p>\n<h2>Totals</h2>\n");
  html_table (out, totals);
  html_failures (out, compare);
  g_string_append (out, "</main>\n</body>\n</html>\n");

  return g_string_free (out, FALSE);
}
