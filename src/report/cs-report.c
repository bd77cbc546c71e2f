/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-report"

#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <gio/gio.h>

#include "cs-json-io.h"

#include "cs-report.h"
#include "cs-report-private.h"
#include "cs-report-csv.h"
#include "cs-report-trace.h"
#include "cs-compare.h"
#include "cs-figures.h"
#include "cs-chart.h"

#define CHART_WIDTH        960.0
#define CHART_HEIGHT       540.0
/* Beyond this, a human-readable report points to the CSV and JSON exports. */
#define MAX_LISTED_FAILURES 1000

static const char * const class_labels[CS_N_CLASSES] = {
  "Total", "Copied", "Skipped", "Mismatch", "Failed", "Extras",
};

static const char * const kind_labels[CS_N_KINDS] = {
  "Dirs", "Files", "Bytes",
};

static const struct {
  const char     *name;
  CsReportFormat  format;
} format_names[] = {
  { "md", CS_REPORT_FORMAT_MARKDOWN },
  { "markdown", CS_REPORT_FORMAT_MARKDOWN },
  { "html", CS_REPORT_FORMAT_HTML },
  { "htm", CS_REPORT_FORMAT_HTML },
  { "csv", CS_REPORT_FORMAT_CSV },
  { "json", CS_REPORT_FORMAT_JSON },
  { "png", CS_REPORT_FORMAT_PNG },
  { "svg", CS_REPORT_FORMAT_SVG },
  { "pdf", CS_REPORT_FORMAT_PDF },
  { "trace", CS_REPORT_FORMAT_TRACE },
  { "sysprof", CS_REPORT_FORMAT_SYSPROF },
  { "syscap", CS_REPORT_FORMAT_SYSPROF },
};

gboolean
cs_report_format_from_string (const char     *str,
                              CsReportFormat *out_format)
{
  g_return_val_if_fail (str != NULL, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (format_names); i++)
    {
      if (g_ascii_strcasecmp (str, format_names[i].name) == 0)
        {
          if (out_format != NULL)
            *out_format = format_names[i].format;
          return TRUE;
        }
    }

  return FALSE;
}

const char *
cs_report_format_get_extension (CsReportFormat format)
{
  switch (format)
    {
    case CS_REPORT_FORMAT_MARKDOWN:
      return "md";
    case CS_REPORT_FORMAT_HTML:
      return "html";
    case CS_REPORT_FORMAT_CSV:
      return "csv";
    case CS_REPORT_FORMAT_JSON:
      return "json";
    case CS_REPORT_FORMAT_PNG:
      return "png";
    case CS_REPORT_FORMAT_SVG:
      return "svg";
    case CS_REPORT_FORMAT_PDF:
      return "pdf";
    case CS_REPORT_FORMAT_TRACE:
      return "json";
    case CS_REPORT_FORMAT_SYSPROF:
      return "syscap";
    default:
      g_return_val_if_reached (NULL);
    }
}

const char *
cs_report_format_get_content_type (CsReportFormat format)
{
  switch (format)
    {
    case CS_REPORT_FORMAT_MARKDOWN:
      return "text/markdown";
    case CS_REPORT_FORMAT_HTML:
      return "text/html";
    case CS_REPORT_FORMAT_CSV:
      return "text/csv";
    case CS_REPORT_FORMAT_JSON:
      return "application/json";
    case CS_REPORT_FORMAT_PNG:
      return "image/png";
    case CS_REPORT_FORMAT_SVG:
      return "image/svg+xml";
    case CS_REPORT_FORMAT_PDF:
      return "application/pdf";
    case CS_REPORT_FORMAT_TRACE:
      return "application/json";
    case CS_REPORT_FORMAT_SYSPROF:
      return "application/octet-stream";
    default:
      g_return_val_if_reached (NULL);
    }
}

gboolean
cs_report_format_is_text (CsReportFormat format)
{
  switch (format)
    {
    case CS_REPORT_FORMAT_MARKDOWN:
    case CS_REPORT_FORMAT_HTML:
    case CS_REPORT_FORMAT_CSV:
    case CS_REPORT_FORMAT_JSON:
    case CS_REPORT_FORMAT_TRACE:
      return TRUE;
    case CS_REPORT_FORMAT_PNG:
    case CS_REPORT_FORMAT_SVG:
    case CS_REPORT_FORMAT_PDF:
    case CS_REPORT_FORMAT_SYSPROF:
    default:
      return FALSE;
    }
}

/* Numbers and plain text */

char *
_cs_report_format_fixed (const char *fmt,
                         double      value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup (g_ascii_formatd (buf, sizeof buf, fmt, value));
}

static char *
format_started (gint64 unix_usec)
{
  g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc (unix_usec / G_USEC_PER_SEC);

  if (dt == NULL)
    return g_strdup ("unknown");

  /* Digits only: the C-locale format needs no translation tables. */
  return g_date_time_format (dt, "%Y-%m-%d %H:%M:%S UTC");
}

static char *
describe_threads (CsRun *run)
{
  g_autoptr(GArray) timeline = cs_run_dup_timeline (run);
  g_autofree char *figure = NULL;
  GString *out = g_string_new (NULL);
  CsFigures figures;

  cs_run_get_figures (run, &figures);
  if (timeline->len == 0)
    {
      g_string_append_printf (out, "%u throughout", figures.threads);
      return g_string_free (out, FALSE);
    }

  figure = cs_figures_format_threads (&figures);
  g_string_append_printf (out, "%s: %u at the start", figure, figures.threads);
  for (guint i = 0; i < timeline->len; i++)
    {
      const CsThreadChange *change = &g_array_index (timeline, CsThreadChange, i);
      g_autofree char *at = cs_format_duration (change->t, CS_DURATION_MEASURED, FALSE);

      g_string_append_printf (out, "; %u → %u at %s", change->from, change->to, at);
      if (change->reason != NULL)
        g_string_append_printf (out, " (%s)", change->reason);
    }

  return g_string_free (out, FALSE);
}

static char *
describe_sources (CsRun *run)
{
  const char * const *sources = cs_run_get_sources (run);
  GString *out = g_string_new (NULL);

  for (guint i = 0; sources != NULL && sources[i] != NULL; i++)
    {
      g_autofree char *display = g_filename_display_name (sources[i]);

      if (i > 0)
        g_string_append (out, ", ");
      g_string_append (out, display);
    }

  return g_string_free (out, FALSE);
}

static char *
describe_destination (CsRun *run)
{
  const char *destination = cs_run_get_destination (run);

  return destination != NULL ? g_filename_display_name (destination) : g_strdup ("");
}

static const char *
or_unknown (const char *value)
{
  return value != NULL && value[0] != '\0' ? value : "unknown";
}

static const char *
yes_no (gboolean value)
{
  return value ? "yes" : "no";
}

typedef struct {
  const char *key;
  char       *value;
} InfoRow;

static void
info_row_clear (gpointer data)
{
  InfoRow *row = data;

  g_free (row->value);
}

static void
add_info (GArray     *rows,
          const char *key,
          char       *value)
{
  InfoRow row = { key, NULL };

  /* Everything shown goes through a UTF-8 escaper; make sure it is UTF-8. */
  row.value = g_utf8_make_valid (value, -1);
  g_free (value);
  g_array_append_val (rows, row);
}

/* Where the run's checksum list is, its algorithm, how many files it
 * lists and where their sums came from: the copy's own reading, or the
 * destination read once more (copied files without --verify, skipped
 * files); "none". */
static char *
describe_manifest (CsRun *run)
{
  g_autofree char *display = NULL;
  CsRunManifest m;

  if (!cs_run_get_manifest (run, &m))
    return g_strdup ("none");
  display = g_filename_display_name (m.path);
  return g_strdup_printf ("%s (%s, %" G_GUINT64_FORMAT " files: %" G_GUINT64_FORMAT " from the copy; "
                          "read again: %" G_GUINT64_FORMAT " copied, %" G_GUINT64_FORMAT " already there)",
                          display, m.algo, m.files, m.from_copy, m.read_copied, m.read_kept);
}

/* Settings, environment and method: the same keys for every run, in the same
 * order, so comparisons can line the runs up in columns. */
static GArray *
collect_info (CsRun *run)
{
  GArray *rows = g_array_new (FALSE, TRUE, sizeof (InfoRow));
  const CsRunSettings *s = cs_run_get_settings (run);
  const CsRunEnvironment *e = cs_run_get_environment (run);
  const char *fatal = cs_run_get_fatal_error (run);
  g_autofree char *wait = cs_format_duration (s->wait, CS_DURATION_MEASURED, FALSE);
  CsFigures figures;

  g_array_set_clear_func (rows, info_row_clear);

  add_info (rows, "Run id", g_strdup (cs_run_get_id (run)));
  add_info (rows, "Kind", g_strdup (cs_run_get_kind (run)));
  add_info (rows, "Started", format_started (cs_run_get_started (run)));
  cs_run_get_figures (run, &figures);
  add_info (rows, "Duration", cs_figure_format (CS_FIGURE_DURATION, figures.duration));
  add_info (rows, "Paused or waiting for an answer", cs_figure_format (CS_FIGURE_DURATION, figures.held));
  add_info (rows, "Copy speed", cs_figure_format (CS_FIGURE_SPEED, figures.speed));
  add_info (rows, "Files copied per second", cs_figure_format (CS_FIGURE_FILE_RATE, figures.file_rate));
  add_info (rows, "Outcome", fatal != NULL
                             ? g_strdup_printf ("%s: %s", cs_run_get_outcome (run), fatal)
                             : g_strdup (cs_run_get_outcome (run)));
  add_info (rows, "Sources", describe_sources (run));
  add_info (rows, "Destination", describe_destination (run));
  add_info (rows, "Threads", describe_threads (run));
  add_info (rows, "When the destination exists",
            g_strdup (s->overwrite <= CS_OVERWRITE_DIFFERENT ? cs_overwrite_to_string (s->overwrite) : "newer"));
  add_info (rows, "Verify after copy", g_strdup (yes_no (s->verify)));
  add_info (rows, "Checksum list", describe_manifest (run));
  add_info (rows, "Durable (fsync)", g_strdup (yes_no (s->durable)));
  add_info (rows, "Flush caches", g_strdup (yes_no (s->flush)));
  add_info (rows, "Dry run", g_strdup (yes_no (s->dry_run)));
  add_info (rows, "Retries", g_strdup_printf ("%u, waiting %s", s->retries, wait));
  add_info (rows, "Excludes", s->excludes != NULL && s->excludes[0] != NULL
                              ? g_strjoinv (", ", s->excludes) : g_strdup ("none"));
  add_info (rows, "Cache", g_strdup (or_unknown (e->cache_mode)));
  add_info (rows, "Source filesystem", g_strdup (or_unknown (e->source_fs)));
  add_info (rows, "Destination filesystem", g_strdup (or_unknown (e->destination_fs)));
  add_info (rows, "Kernel", g_strdup (or_unknown (e->kernel)));
  add_info (rows, "Host", g_strdup (or_unknown (e->hostname)));
  add_info (rows, "CPUs", e->cpus > 0 ? g_strdup_printf ("%u", e->cpus) : g_strdup ("unknown"));
  add_info (rows, "Copyscope version", g_strdup (or_unknown (e->tool_version)));
  add_info (rows, "Sampling", g_strdup_printf ("%u samples, one every %u ms",
                                               cs_run_get_n_samples (run), s->interval_ms));

  return rows;
}

const char _cs_report_units_note[] =
  "Units: MB = 10^6 bytes, KB = 10^3 bytes. Rates are per second of the run's clock, which "
  "stops while the copy is paused or waits for an answer. Copy speed is the bytes copied "
  "to the destination per second; the Data Transfer Rate counter adds the bytes read to "
  "the bytes written. Counters' average, minimum and maximum are taken over the samples "
  "of each run.";

static char *
error_text (const CsRunError *error)
{
  const char *message = error->message != NULL ? error->message : "";

  if (error->error_code != 0)
    return g_strdup_printf ("%s (errno %d)", message, error->error_code);

  return g_strdup (message);
}

/* Tables: each built once from the runs, written as Markdown or as HTML */

static void
cell_clear (gpointer data)
{
  g_free (((CsReportCell *) data)->text);
}

CsReportTable *
_cs_report_table_new (gboolean row_headers)
{
  CsReportTable *table = g_new0 (CsReportTable, 1);

  table->cells = g_array_new (FALSE, FALSE, sizeof (CsReportCell));
  g_array_set_clear_func (table->cells, cell_clear);
  table->row_headers = row_headers;
  return table;
}

void
_cs_report_table_free (CsReportTable *table)
{
  g_array_unref (table->cells);
  g_free (table);
}

/* Takes @text. */
void
_cs_report_table_take (CsReportTable *table,
                       CsCellFlags    flags,
                       char          *text)
{
  CsReportCell cell = { text, flags };

  g_array_append_val (table->cells, cell);
}

void
_cs_report_table_add (CsReportTable *table,
                      CsCellFlags    flags,
                      const char    *text)
{
  _cs_report_table_take (table, flags, g_strdup (text));
}

void
_cs_report_table_end_header (CsReportTable *table)
{
  table->n_columns = table->cells->len;
}

gboolean
_cs_report_table_column_is_numeric (const CsReportTable *table,
                                    guint                column)
{
  return table->cells->len > table->n_columns
         && (g_array_index (table->cells, CsReportCell, table->n_columns + column).flags & CS_CELL_NUMBER);
}

char *
_cs_report_stat_cell (CsCompare     *compare,
                      CsCounter      counter,
                      CsCompareStat  which,
                      guint          run)
{
  const CsCompareCounter *row = cs_compare_get_counter (compare, counter);
  double v;

  if (!row->valid[run])
    return g_strdup ("—");

  v = which == CS_COMPARE_AVG ? row->stats[run].avg
    : which == CS_COMPARE_MIN ? row->stats[run].min
    : row->stats[run].max;

  return cs_compare_format_value (counter, v);
}

static const char *
direction_text (const CsCounterInfo *info)
{
  return info->direction == CS_DIRECTION_NONE ? "—" : cs_direction_to_string (info->direction);
}

/* Settings, environment and method: one column per run. */
CsReportTable *
_cs_report_info_table (CsCompare *compare)
{
  guint n = cs_compare_get_n_runs (compare);
  g_autofree GArray **infos = g_new0 (GArray *, n);
  CsReportTable *table = _cs_report_table_new (TRUE);

  for (guint i = 0; i < n; i++)
    infos[i] = collect_info (cs_compare_get_run (compare, i));

  _cs_report_table_add (table, CS_CELL_PLAIN, n == 1 ? "Setting" : "");
  for (guint i = 0; i < n; i++)
    _cs_report_table_add (table, CS_CELL_PLAIN, n == 1 ? "Value" : cs_compare_get_label (compare, i));
  _cs_report_table_end_header (table);

  for (guint r = 0; r < infos[0]->len; r++)
    {
      const char *key = g_array_index (infos[0], InfoRow, r).key;
      gboolean is_path = strcmp (key, "Sources") == 0 || strcmp (key, "Destination") == 0
                         || strcmp (key, "Checksum list") == 0;

      _cs_report_table_add (table, CS_CELL_PLAIN, key);
      for (guint i = 0; i < n; i++)
        _cs_report_table_add (table, is_path ? CS_CELL_PATH : CS_CELL_PLAIN, g_array_index (infos[i], InfoRow, r).value);
    }

  for (guint i = 0; i < n; i++)
    g_array_unref (infos[i]);
  return table;
}

/* Why the skipped files were skipped, under the Skipped row: files only (a
 * folder is "skipped" when it existed). "–" for a run whose record does not
 * say; no rows when none does. */
static void
skips_rows (CsReportTable *table,
            CsCompare     *compare)
{
  guint n = cs_compare_get_n_runs (compare);
  g_autofree CsSkips *skips = g_new0 (CsSkips, n);
  g_autofree gboolean *known = g_new0 (gboolean, n);
  gboolean any = FALSE;

  for (guint i = 0; i < n; i++)
    any |= known[i] = cs_run_get_skips (cs_compare_get_run (compare, i), &skips[i]);
  if (!any)
    return;

  for (guint row = 0; row < 2; row++)
    {
      _cs_report_table_add (table, CS_CELL_PLAIN, row == 0 ? "Skipped (identical)" : "Skipped (your choice)");
      for (guint i = 0; i < n; i++)
        {
          guint64 files = row == 0 ? skips[i].identical_files : skips[i].chosen_files;
          guint64 bytes = row == 0 ? skips[i].identical_bytes : skips[i].chosen_bytes;

          _cs_report_table_add (table, CS_CELL_NUMBER, "");
          _cs_report_table_take (table, CS_CELL_NUMBER, known[i] ? g_strdup_printf ("%" G_GUINT64_FORMAT, files) : g_strdup ("–"));
          _cs_report_table_take (table, CS_CELL_NUMBER, known[i] ? g_strdup_printf ("%" G_GUINT64_FORMAT, bytes) : g_strdup ("–"));
        }
    }
}

CsReportTable *
_cs_report_totals_table (CsCompare *compare)
{
  guint n = cs_compare_get_n_runs (compare);
  g_autofree CsTotals *totals = g_new0 (CsTotals, n);
  CsReportTable *table = _cs_report_table_new (TRUE);

  for (guint i = 0; i < n; i++)
    cs_run_get_totals (cs_compare_get_run (compare, i), &totals[i]);

  _cs_report_table_add (table, CS_CELL_PLAIN, "");
  for (guint i = 0; i < n; i++)
    for (guint k = 0; k < CS_N_KINDS; k++)
      _cs_report_table_take (table, CS_CELL_PLAIN, n > 1 ? g_strdup_printf ("%s %s", cs_compare_get_label (compare, i), kind_labels[k])
                                           : g_strdup (kind_labels[k]));
  _cs_report_table_end_header (table);

  for (guint c = 0; c < CS_N_CLASSES; c++)
    {
      _cs_report_table_add (table, CS_CELL_PLAIN, class_labels[c]);
      for (guint i = 0; i < n; i++)
        for (guint k = 0; k < CS_N_KINDS; k++)
          _cs_report_table_take (table, CS_CELL_NUMBER, g_strdup_printf ("%" G_GUINT64_FORMAT, totals[i].v[c][k]));
      if (c == CS_CLASS_SKIPPED)
        skips_rows (table, compare);
    }
  return table;
}

/* The first MAX_LISTED_FAILURES failures of all runs, or with @notes their
 * notes (CsRunError.note: what the destination did not keep, what was left
 * out on purpose); NULL when there are none. @out_more: how many are left
 * out. */
CsReportTable *
_cs_report_failures_table (CsCompare *compare,
                           gboolean   notes,
                           guint     *out_more)
{
  guint n = cs_compare_get_n_runs (compare);
  guint listed = 0, total = 0;
  CsReportTable *table;

  for (guint i = 0; i < n; i++)
    {
      CsRun *run = cs_compare_get_run (compare, i);

      total += notes ? cs_run_get_n_notes (run) : cs_run_get_n_errors (run);
    }
  *out_more = 0;
  if (total == 0)
    return NULL;

  table = _cs_report_table_new (FALSE);
  if (n > 1)
    _cs_report_table_add (table, CS_CELL_PLAIN, "Run");
  _cs_report_table_add (table, CS_CELL_PLAIN, "Path");
  _cs_report_table_add (table, CS_CELL_PLAIN, "Operation");
  _cs_report_table_add (table, CS_CELL_PLAIN, notes ? "Note" : "Error");
  if (!notes)
    _cs_report_table_add (table, CS_CELL_PLAIN, "Attempts");
  _cs_report_table_end_header (table);

  for (guint i = 0; i < n && listed < MAX_LISTED_FAILURES; i++)
    {
      g_autoptr(GPtrArray) errors = cs_run_dup_errors (cs_compare_get_run (compare, i));

      for (guint j = 0; j < errors->len && listed < MAX_LISTED_FAILURES; j++)
        {
          const CsRunError *error = g_ptr_array_index (errors, j);

          if (error->note != notes)
            continue;
          listed++;
          if (n > 1)
            _cs_report_table_add (table, CS_CELL_PLAIN, cs_compare_get_label (compare, i));
          _cs_report_table_add (table, CS_CELL_PATH, error->path);
          _cs_report_table_add (table, CS_CELL_PLAIN, error->operation);
          _cs_report_table_take (table, CS_CELL_PLAIN, error_text (error));
          if (!notes)
            _cs_report_table_take (table, CS_CELL_NUMBER, g_strdup_printf ("%u", error->attempts));
        }
    }

  *out_more = total - listed;
  return table;
}

/* Every counter: average, minimum and maximum of one run, or the averages of
 * several side by side with the best marked. */
CsReportTable *
_cs_report_counters_table (CsCompare *compare)
{
  guint n = cs_compare_get_n_runs (compare);
  CsReportTable *table = _cs_report_table_new (TRUE);

  _cs_report_table_add (table, CS_CELL_PLAIN, "Performance Counter");
  if (n == 1)
    {
      _cs_report_table_add (table, CS_CELL_PLAIN, "Average");
      _cs_report_table_add (table, CS_CELL_PLAIN, "Min");
      _cs_report_table_add (table, CS_CELL_PLAIN, "Max");
    }
  else
    {
      for (guint i = 0; i < n; i++)
        _cs_report_table_add (table, CS_CELL_PLAIN, cs_compare_get_label (compare, i));
    }
  _cs_report_table_add (table, CS_CELL_PLAIN, "Direction");
  _cs_report_table_end_header (table);

  for (guint c = 0; c < CS_N_COUNTERS; c++)
    {
      const CsCounterInfo *info = cs_counter_get_info (c);

      _cs_report_table_add (table, CS_CELL_PLAIN, info->label);
      if (n == 1)
        {
          for (guint s = 0; s < CS_COMPARE_N_STATS; s++)
            _cs_report_table_take (table, CS_CELL_NUMBER, _cs_report_stat_cell (compare, c, s, 0));
        }
      else
        {
          for (guint i = 0; i < n; i++)
            _cs_report_table_take (table, CS_CELL_NUMBER | (cs_compare_is_best (compare, c, CS_COMPARE_AVG, i) ? CS_CELL_BEST : 0),
                        _cs_report_stat_cell (compare, c, CS_COMPARE_AVG, i));
        }
      _cs_report_table_add (table, CS_CELL_PLAIN, direction_text (info));
    }
  return table;
}

/* Charts */

typedef struct {
  CsPlotRun     *runs;
  guint          n_runs;
  GArray       **series;      /* of CsBucket */
  GArray       **timelines;
  GArray       **events;
} Chart;

static void
chart_free (Chart *chart)
{
  for (guint i = 0; i < chart->n_runs; i++)
    {
      g_clear_pointer (&chart->series[i], g_array_unref);
      g_clear_pointer (&chart->timelines[i], g_array_unref);
      g_clear_pointer (&chart->events[i], g_array_unref);
    }
  g_free (chart->series);
  g_free (chart->timelines);
  g_free (chart->events);
  g_free (chart->runs);
  g_free (chart);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Chart, chart_free)

static Chart *
chart_new (CsCompare *compare)
{
  Chart *chart = g_new0 (Chart, 1);
  guint n = cs_compare_get_n_runs (compare);

  chart->n_runs = n;
  chart->runs = g_new0 (CsPlotRun, n);
  chart->series = g_new0 (GArray *, n);
  chart->timelines = g_new0 (GArray *, n);
  chart->events = g_new0 (GArray *, n);

  for (guint i = 0; i < n; i++)
    {
      CsRun *run = cs_compare_get_run (compare, i);

      /* The series, drawn with the band of its buckets: a day's run is a few
       * thousand entries, not 345,600 samples. */
      chart->series[i] = cs_run_dup_series (run);
      chart->timelines[i] = cs_run_dup_timeline (run);
      chart->runs[i].buckets = (const CsBucket *) (gpointer) chart->series[i]->data;
      chart->runs[i].n_buckets = chart->series[i]->len;
      chart->runs[i].changes = (const CsThreadChange *) (gpointer) chart->timelines[i]->data;
      chart->runs[i].n_changes = chart->timelines[i]->len;
      chart->events[i] = cs_run_dup_events (run);
      chart->runs[i].events = (const CsRunEvent *) (gpointer) chart->events[i]->data;
      chart->runs[i].n_events = chart->events[i]->len;
      chart->runs[i].label = n > 1 ? cs_compare_get_label (compare, i) : NULL;
    }

  return chart;
}

GBytes *
_cs_report_render_chart (CsCompare     *compare,
                         CsPlotFormat   format,
                         double         width,
                         double         height,
                         GError       **error)
{
  g_autoptr(Chart) chart = chart_new (compare);

  return cs_chart_render_throughput (format, width, height, chart->runs, chart->n_runs, error);
}

GBytes *
cs_report_render (CsRun               **runs,
                  guint                 n_runs,
                  const char * const   *labels,
                  CsReportFormat        format,
                  GError              **error)
{
  g_autoptr(CsCompare) compare = NULL;
  char *text = NULL;

  g_return_val_if_fail (runs != NULL, NULL);
  g_return_val_if_fail (n_runs > 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  compare = cs_compare_new (runs, n_runs, labels);

  switch (format)
    {
    case CS_REPORT_FORMAT_MARKDOWN:
      text = _cs_report_render_markdown (compare);
      break;
    case CS_REPORT_FORMAT_HTML:
      text = _cs_report_render_html (compare, error);
      break;
    case CS_REPORT_FORMAT_CSV:
      text = _cs_report_csv_render (compare);
      break;
    case CS_REPORT_FORMAT_JSON:
      text = _cs_report_render_json (compare);
      break;
    case CS_REPORT_FORMAT_PNG:
      return _cs_report_render_chart (compare, CS_PLOT_FORMAT_PNG, CHART_WIDTH, CHART_HEIGHT, error);
    case CS_REPORT_FORMAT_SVG:
      return _cs_report_render_chart (compare, CS_PLOT_FORMAT_SVG, CHART_WIDTH, CHART_HEIGHT, error);
    case CS_REPORT_FORMAT_PDF:
      return _cs_report_render_chart (compare, CS_PLOT_FORMAT_PDF, CHART_WIDTH, CHART_HEIGHT, error);
    case CS_REPORT_FORMAT_TRACE:
    case CS_REPORT_FORMAT_SYSPROF:
      if (n_runs != 1)
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                               "A trace holds one run");
          return NULL;
        }
      return format == CS_REPORT_FORMAT_TRACE ? _cs_report_trace_render (runs[0], error)
                                              : _cs_report_sysprof_render (runs[0], error);
    default:
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "Unknown report format %d", format);
      return NULL;
    }

  if (text == NULL)
    return NULL;

  return g_bytes_new_take (text, strlen (text));
}

gboolean
cs_report_write_all (int         fd,
                     const void *data,
                     gsize       len)
{
  const guint8 *p = data;

  while (len > 0)
    {
      gssize n = write (fd, p, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      p += n;
      len -= (gsize) n;
    }

  return TRUE;
}

