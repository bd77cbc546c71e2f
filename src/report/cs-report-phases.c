/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-report"

/*
 * Where the workers' time went, in the reports (cs-report-phases.h). The
 * CSV's rows are written by cs-report-csv.c from the same breakdown.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include <gio/gio.h>

#include "cs-plot.h"
#include "cs-report.h"
#include "cs-report-phases.h"
#include "cs-report-private.h"

#define PHASE_CHART_WIDTH  960.0
#define PHASE_CHART_HEIGHT 420.0

const double cs_report_percentiles[CS_REPORT_N_PERCENTILES] = { 50, 90, 99 };

void
_cs_report_phase_breakdown (CsRun            *run,
                            CsPhaseBreakdown *out)
{
  CsTotals totals;

  g_return_if_fail (run != NULL);
  g_return_if_fail (out != NULL);

  memset (out, 0, sizeof *out);
  cs_run_get_totals (run, &totals);
  out->files = totals.v[CS_CLASS_COPIED][CS_KIND_FILES];
  for (guint k = 0; k < CS_LATENCY_N; k++)
    out->latency_known[k] = cs_run_get_latency (run, k, &out->latency[k]);

  out->known = cs_run_get_phase_totals (run, out->seconds);
  if (!out->known)
    return;
  for (guint p = 0; p < CS_PHASE_N; p++)
    out->total += out->seconds[p];
  for (guint p = 0; p < CS_PHASE_N; p++)
    {
      out->share[p] = out->total > 0 ? out->seconds[p] / out->total : 0;
      out->per_file[p] = out->files > 0 ? out->seconds[p] / (double) out->files : NAN;
    }
  out->runnable_known = cs_run_get_runnable_total (run, &out->runnable);
  if (out->runnable_known)
    out->runnable_share = out->total > 0 ? MIN (out->runnable / out->total, 1.0) : 0;
}

static gboolean
breakdown_any (const CsPhaseBreakdown *b)
{
  if (b->known)
    return TRUE;
  for (guint k = 0; k < CS_LATENCY_N; k++)
    if (b->latency_known[k])
      return TRUE;
  return FALSE;
}

gboolean
_cs_report_phases_any (CsCompare *compare)
{
  for (guint i = 0; i < cs_compare_get_n_runs (compare); i++)
    {
      CsPhaseBreakdown b;

      _cs_report_phase_breakdown (cs_compare_get_run (compare, i), &b);
      if (breakdown_any (&b))
        return TRUE;
    }
  return FALSE;
}

static char *
format_fixed (const char *fmt,
              double      value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup (g_ascii_formatd (buf, sizeof buf, fmt, value));
}

/* A latency or a time per file, in the unit that keeps it short. */
static char *
format_ns (double ns)
{
  g_autofree char *number = NULL;

  if (!isfinite (ns))
    return g_strdup ("–");
  if (ns < 1e3)
    return g_strdup_printf ("%.0f ns", ns);
  if (ns < 1e6)
    number = format_fixed (ns < 1e4 ? "%.2f" : "%.1f", ns / 1e3);
  else if (ns < 1e9)
    number = format_fixed (ns < 1e7 ? "%.2f" : "%.1f", ns / 1e6);
  else
    number = format_fixed ("%.2f", ns / 1e9);

  return g_strdup_printf ("%s %s", number, ns < 1e6 ? "µs" : ns < 1e9 ? "ms" : "s");
}

static char *
format_share (double share)
{
  g_autofree char *number = format_fixed ("%.1f", share * 100);

  return g_strdup_printf ("%s %%", number);
}

/* "Waiting for a processor: 41 % of worker time (3.25 worker-s)", or that
 * it was not measured; NULL for a run without phase data. */
char *
_cs_report_runnable_sentence (const CsPhaseBreakdown *b)
{
  g_autofree char *share = NULL;
  g_autofree char *seconds = NULL;

  g_return_val_if_fail (b != NULL, NULL);

  if (!b->known)
    return NULL;
  if (!b->runnable_known)
    return g_strdup ("Waiting for a processor: not measured");
  share = format_fixed ("%.0f", b->runnable_share * 100);
  seconds = format_fixed ("%.2f", b->runnable);
  return g_strdup_printf ("Waiting for a processor: %s %% of worker time (%s worker-s)",
                          share, seconds);
}

/* Table cells as the format wants them. */
typedef enum {
  OUT_MD,
  OUT_HTML,
} OutFormat;

static void
append_text (GString    *out,
             OutFormat   format,
             const char *text)
{
  /* Each format's own escaping, as its writer escapes every other cell. */
  if (format == OUT_HTML)
    _cs_report_append_html (out, text != NULL ? text : "");
  else
    _cs_report_append_md (out, text != NULL ? text : "");
}

static void
row_begin (GString  *out,
           OutFormat format)
{
  g_string_append (out, format == OUT_HTML ? "<tr>" : "|");
}

static void
row_end (GString  *out,
         OutFormat format)
{
  g_string_append (out, format == OUT_HTML ? "</tr>\n" : "\n");
}

static void
cell (GString    *out,
      OutFormat   format,
      gboolean    header,
      gboolean    number,
      const char *text)
{
  if (format == OUT_HTML)
    g_string_append (out, header ? "<th>" : number ? "<td class=\"n\">" : "<td>");
  else
    g_string_append_c (out, ' ');
  append_text (out, format, text);
  if (format == OUT_HTML)
    g_string_append (out, header ? "</th>" : "</td>");
  else
    g_string_append (out, " |");
}

/* Markdown's line under the header: @numbers columns right-aligned after
 * the first. */
static void
header_end (GString  *out,
            OutFormat format,
            guint     n_columns)
{
  if (format == OUT_HTML)
    return;
  g_string_append (out, "|---|");
  for (guint i = 1; i < n_columns; i++)
    g_string_append (out, "--:|");
  g_string_append_c (out, '\n');
}

static char *
column_name (CsCompare  *compare,
             guint       i,
             const char *what)
{
  if (cs_compare_get_n_runs (compare) == 1)
    return g_strdup (what);
  return g_strdup_printf ("%s: %s", cs_compare_get_label (compare, i), what);
}

static void
phases_table (GString          *out,
              OutFormat         format,
              CsCompare        *compare,
              CsPhaseBreakdown *b)
{
  guint n = cs_compare_get_n_runs (compare);

  if (format == OUT_HTML)
    g_string_append (out, "<table>\n");
  row_begin (out, format);
  cell (out, format, TRUE, FALSE, "Phase");
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *share = column_name (compare, i, "Share");
      g_autofree char *per_file = column_name (compare, i, "Per file");

      cell (out, format, TRUE, FALSE, share);
      cell (out, format, TRUE, FALSE, per_file);
    }
  row_end (out, format);
  header_end (out, format, 1 + 2 * n);

  for (guint p = 0; p < CS_PHASE_N; p++)
    {
      row_begin (out, format);
      cell (out, format, FALSE, FALSE, cs_phase_get_label (p));
      for (guint i = 0; i < n; i++)
        {
          g_autofree char *share = b[i].known ? format_share (b[i].share[p]) : g_strdup ("no data");
          g_autofree char *per_file = b[i].known ? format_ns (b[i].per_file[p] * 1e9) : g_strdup ("no data");

          cell (out, format, FALSE, TRUE, share);
          cell (out, format, FALSE, TRUE, per_file);
        }
      row_end (out, format);
    }

  row_begin (out, format);
  cell (out, format, FALSE, FALSE, "Worker-time");
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *seconds = format_fixed ("%.2f", b[i].total);
      g_autofree char *total = b[i].known ? g_strdup_printf ("%s worker-s", seconds) : g_strdup ("no data");
      g_autofree char *files = b[i].known ? g_strdup_printf ("%" G_GUINT64_FORMAT " files", b[i].files)
                                          : g_strdup ("no data");

      cell (out, format, FALSE, TRUE, total);
      cell (out, format, FALSE, TRUE, files);
    }
  row_end (out, format);
  if (format == OUT_HTML)
    g_string_append (out, "</table>\n");
}

static void
latency_table (GString          *out,
               OutFormat         format,
               CsCompare        *compare,
               CsPhaseBreakdown *b)
{
  static const char * const heads[] = { "Request", "Requests", "Mean", "p50", "p90", "p99", "Max" };
  guint n = cs_compare_get_n_runs (compare);

  if (format == OUT_HTML)
    g_string_append (out, "<table>\n");
  row_begin (out, format);
  if (n > 1)
    cell (out, format, TRUE, FALSE, "Run");
  for (guint h = 0; h < G_N_ELEMENTS (heads); h++)
    cell (out, format, TRUE, FALSE, heads[h]);
  row_end (out, format);
  if (format == OUT_MD)
    {
      g_string_append (out, n > 1 ? "|---|---|" : "|---|");
      for (guint h = 1; h < G_N_ELEMENTS (heads); h++)
        g_string_append (out, "--:|");
      g_string_append_c (out, '\n');
    }

  /* Kind by kind, the runs side by side. */
  for (guint k = 0; k < CS_LATENCY_N; k++)
    for (guint i = 0; i < n; i++)
      {
        const CsLatencyHistogram *h = &b[i].latency[k];
        g_autofree char *count = NULL;
        g_autofree char *mean = NULL;
        g_autofree char *max = NULL;

        if (!b[i].latency_known[k])
          continue;
        row_begin (out, format);
        if (n > 1)
          cell (out, format, FALSE, FALSE, cs_compare_get_label (compare, i));
        cell (out, format, FALSE, FALSE, cs_latency_kind_get_label (k));
        count = g_strdup_printf ("%" G_GUINT64_FORMAT, h->count);
        cell (out, format, FALSE, TRUE, count);
        mean = format_ns (cs_latency_histogram_mean (h));
        cell (out, format, FALSE, TRUE, mean);
        for (guint q = 0; q < CS_REPORT_N_PERCENTILES; q++)
          {
            g_autofree char *v = format_ns (cs_latency_histogram_percentile (h, cs_report_percentiles[q]));

            cell (out, format, FALSE, TRUE, v);
          }
        max = format_ns ((double) h->max_ns);
        cell (out, format, FALSE, TRUE, max);
        row_end (out, format);
      }
  if (format == OUT_HTML)
    g_string_append (out, "</table>\n");
}

typedef struct {
  GArray *series;
  GArray *timeline;
} PhaseChart;

static void
draw_phase_chart (cairo_t  *cr,
                  double    width,
                  double    height,
                  gpointer  user_data)
{
  PhaseChart *chart = user_data;

  cs_plot_draw_phases (cr, width, height, NULL,
                       (const CsPhaseBucket *) (gpointer) chart->series->data, chart->series->len,
                       (const CsThreadChange *) (gpointer) chart->timeline->data, chart->timeline->len);
}

static GBytes *
render_phase_chart (CsRun         *run,
                    CsPlotFormat   format,
                    double         width,
                    double         height,
                    GError       **error)
{
  g_autoptr(GArray) series = cs_run_dup_phase_series (run);
  g_autoptr(GArray) timeline = NULL;
  PhaseChart chart;

  if (series == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           "The run has no phase data to chart");
      return NULL;
    }
  timeline = cs_run_dup_timeline (run);
  chart.series = series;
  chart.timeline = timeline;

  return cs_plot_render (format, width, height, draw_phase_chart, &chart, error);
}

GBytes *
cs_report_render_phase_chart (CsRun           *run,
                              CsReportFormat   format,
                              GError         **error)
{
  CsPlotFormat plot_format;

  g_return_val_if_fail (run != NULL, NULL);

  switch (format)
    {
    case CS_REPORT_FORMAT_PNG:
      plot_format = CS_PLOT_FORMAT_PNG;
      break;
    case CS_REPORT_FORMAT_SVG:
      plot_format = CS_PLOT_FORMAT_SVG;
      break;
    case CS_REPORT_FORMAT_PDF:
      plot_format = CS_PLOT_FORMAT_PDF;
      break;
    case CS_REPORT_FORMAT_MARKDOWN:
    case CS_REPORT_FORMAT_HTML:
    case CS_REPORT_FORMAT_CSV:
    case CS_REPORT_FORMAT_JSON:
    case CS_REPORT_FORMAT_TRACE:
    case CS_REPORT_FORMAT_SYSPROF:
    default:
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           "The phase chart is written as PNG, SVG or PDF");
      return NULL;
    }

  return render_phase_chart (run, plot_format, PHASE_CHART_WIDTH, PHASE_CHART_HEIGHT, error);
}

/* A single run's chart in the HTML report, as an image: the page's policy
 * lets data: images in, and an <img> keeps its SVG's ids to itself. */
static void
html_phase_chart (GString *out,
                  CsRun   *run)
{
  g_autoptr(GBytes) svg = render_phase_chart (run, CS_PLOT_FORMAT_SVG, 880.0, 385.0, NULL);
  g_autofree char *base64 = NULL;

  if (svg == NULL)
    return;
  base64 = g_base64_encode (g_bytes_get_data (svg, NULL), g_bytes_get_size (svg));
  g_string_append (out, "<figure class=\"chart\"><img alt=\"Workers by phase over the copy, "
                        "stacked\" style=\"max-width:100%;height:auto\" src=\"data:image/svg+xml;base64,");
  g_string_append (out, base64);
  g_string_append (out, "\"></figure>\n");
}

static const char runnable_note[] =
  "Waiting for a processor: the time the workers were ready to run but another thread had "
  "the processor (each worker thread's run_delay in /proc/self/task/TID/schedstat). It "
  "overlaps the phases, which say what a worker was doing, not whether it ran.";

static const char phases_note[] =
  "Worker-time is the sum over the workers of the time each spent in a phase: with 8 workers, "
  "a second of the copy is 8 worker-seconds. Per file: worker-time by phase divided by the "
  "files copied. Latency percentiles are taken from log2 buckets, as fio reports them: the "
  "middle of the bucket the percentile falls in.";

/* The runnable share, a line per run with phase data, once any run has it
 * measured: a record before it says nothing new. */
static void
runnable_lines (GString                *out,
                OutFormat               format,
                CsCompare              *compare,
                const CsPhaseBreakdown *b)
{
  guint n = cs_compare_get_n_runs (compare);
  gboolean any = FALSE;

  for (guint i = 0; i < n; i++)
    any |= b[i].runnable_known;
  if (!any)
    return;

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *sentence = _cs_report_runnable_sentence (&b[i]);

      if (sentence == NULL)
        continue;
      g_string_append (out, format == OUT_HTML ? "<p class=\"runnable\">" : "\n");
      if (n > 1)
        {
          append_text (out, format, cs_compare_get_label (compare, i));
          g_string_append (out, ": ");
        }
      append_text (out, format, sentence);
      g_string_append (out, format == OUT_HTML ? "</p>\n" : "\n");
    }
  g_string_append (out, format == OUT_HTML ? "<p class=\"note\">" : "\n");
  append_text (out, format, runnable_note);
  g_string_append (out, format == OUT_HTML ? "</p>\n" : "\n");
}

static void
write_section (GString   *out,
               OutFormat  format,
               CsCompare *compare)
{
  guint n = cs_compare_get_n_runs (compare);
  g_autofree CsPhaseBreakdown *b = g_new0 (CsPhaseBreakdown, n);
  gboolean any_phases = FALSE, any_latency = FALSE;

  for (guint i = 0; i < n; i++)
    {
      _cs_report_phase_breakdown (cs_compare_get_run (compare, i), &b[i]);
      any_phases |= b[i].known;
      for (guint k = 0; k < CS_LATENCY_N; k++)
        any_latency |= b[i].latency_known[k];
    }
  if (!any_phases && !any_latency)
    return;

  g_string_append (out, format == OUT_HTML ? "<h2>Where the time goes</h2>\n" : "## Where the time goes\n\n");
  if (any_phases)
    {
      if (format == OUT_HTML)
        for (guint i = 0; i < n; i++)
          if (b[i].known)
            html_phase_chart (out, cs_compare_get_run (compare, i));
      phases_table (out, format, compare, b);
      runnable_lines (out, format, compare, b);
      for (guint i = 0; i < n; i++)
        {
          if (b[i].known)
            continue;
          g_string_append (out, format == OUT_HTML ? "<p class=\"note\">" : "\n");
          append_text (out, format, cs_compare_get_label (compare, i));
          g_string_append (out, " has no phase data: its record was made before Copyscope kept it.");
          g_string_append (out, format == OUT_HTML ? "</p>\n" : "\n");
        }
    }
  if (any_latency)
    {
      g_string_append (out, format == OUT_HTML ? "<h3>Request latency</h3>\n" : "\n### Request latency\n\n");
      latency_table (out, format, compare, b);
    }
  g_string_append (out, format == OUT_HTML ? "<p class=\"note\">" : "\n");
  append_text (out, format, phases_note);
  g_string_append (out, format == OUT_HTML ? "</p>\n" : "\n\n");
}

void
_cs_report_phases_md (GString   *out,
                      CsCompare *compare)
{
  write_section (out, OUT_MD, compare);
}

void
_cs_report_phases_html (GString   *out,
                        CsCompare *compare)
{
  write_section (out, OUT_HTML, compare);
}

static JsonNode *
breakdown_to_json (const CsPhaseBreakdown *b)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  if (b->known)
    {
      json_builder_set_member_name (builder, "worker_seconds");
      json_builder_add_double_value (builder, b->total);
      json_builder_set_member_name (builder, "files");
      json_builder_add_int_value (builder, (gint64) MIN (b->files, (guint64) G_MAXINT64));
      json_builder_set_member_name (builder, "phases");
      json_builder_begin_array (builder);
      for (guint p = 0; p < CS_PHASE_N; p++)
        {
          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "id");
          json_builder_add_string_value (builder, cs_phase_get_id (p));
          json_builder_set_member_name (builder, "label");
          json_builder_add_string_value (builder, cs_phase_get_label (p));
          json_builder_set_member_name (builder, "seconds");
          json_builder_add_double_value (builder, b->seconds[p]);
          json_builder_set_member_name (builder, "share");
          json_builder_add_double_value (builder, b->share[p]);
          json_builder_set_member_name (builder, "seconds_per_file");
          if (isfinite (b->per_file[p]))
            json_builder_add_double_value (builder, b->per_file[p]);
          else
            json_builder_add_null_value (builder);
          json_builder_end_object (builder);
        }
      json_builder_end_array (builder);
      /* Null where not measured, as a run without phases is. */
      json_builder_set_member_name (builder, "runnable");
      if (b->runnable_known)
        {
          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "worker_seconds");
          json_builder_add_double_value (builder, b->runnable);
          json_builder_set_member_name (builder, "share");
          json_builder_add_double_value (builder, b->runnable_share);
          json_builder_end_object (builder);
        }
      else
        json_builder_add_null_value (builder);
    }

  json_builder_set_member_name (builder, "latency");
  json_builder_begin_array (builder);
  for (guint k = 0; k < CS_LATENCY_N; k++)
    {
      const CsLatencyHistogram *h = &b->latency[k];

      if (!b->latency_known[k])
        continue;
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "request");
      json_builder_add_string_value (builder, cs_latency_kind_get_id (k));
      json_builder_set_member_name (builder, "count");
      json_builder_add_int_value (builder, (gint64) MIN (h->count, (guint64) G_MAXINT64));
      json_builder_set_member_name (builder, "mean_ns");
      json_builder_add_double_value (builder, cs_latency_histogram_mean (h));
      for (guint q = 0; q < CS_REPORT_N_PERCENTILES; q++)
        {
          g_autofree char *name = g_strdup_printf ("p%.0f_ns", cs_report_percentiles[q]);

          json_builder_set_member_name (builder, name);
          json_builder_add_double_value (builder, cs_latency_histogram_percentile (h, cs_report_percentiles[q]));
        }
      json_builder_set_member_name (builder, "max_ns");
      json_builder_add_int_value (builder, (gint64) MIN (h->max_ns, (guint64) G_MAXINT64));
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

void
_cs_report_phases_json (JsonObject *object,
                        CsCompare  *compare)
{
  guint n = cs_compare_get_n_runs (compare);
  JsonArray *runs;

  if (!_cs_report_phases_any (compare))
    return;

  runs = json_array_sized_new (n);
  for (guint i = 0; i < n; i++)
    {
      CsPhaseBreakdown b;

      _cs_report_phase_breakdown (cs_compare_get_run (compare, i), &b);
      if (breakdown_any (&b))
        json_array_add_element (runs, breakdown_to_json (&b));
      else
        json_array_add_null_element (runs);
    }
  json_object_set_array_member (object, "where_time_goes", runs);
}
