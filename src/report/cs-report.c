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
#include "cs-report-csv.h"
#include "cs-report-phases.h"
#include "cs-report-trace.h"
#include "cs-compare.h"
#include "cs-figures.h"
#include "cs-chart.h"

#define CHART_WIDTH        960.0
#define CHART_HEIGHT       540.0
#define HTML_CHART_WIDTH   880.0
#define HTML_CHART_HEIGHT  495.0
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

static char *
format_fixed (const char *fmt,
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
format_seconds (double seconds)
{
  g_autofree char *num = format_fixed ("%.2f", seconds);

  return g_strdup_printf ("%s s", num);
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
      g_autofree char *at = format_seconds (change->t);

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
  g_autofree char *wait = format_seconds (s->wait);
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

static const char units_note[] =
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

/* Escapers */

static void
append_html (GString    *out,
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
append_md (GString    *out,
           const char *text)
{
  g_autofree char *valid = NULL;

  if (text == NULL)
    return;

  valid = g_utf8_make_valid (text, -1);
  for (const char *p = valid; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;

      /* Entities rather than backslashes for HTML's characters: every
       * renderer decodes them, and none lets them open a tag. */
      if (c == '<')
        g_string_append (out, "&lt;");
      else if (c == '>')
        g_string_append (out, "&gt;");
      else if (c == '&')
        g_string_append (out, "&amp;");
      else if (strchr ("\\`*_[]|~#!", c) != NULL)
        {
          g_string_append_c (out, '\\');
          g_string_append_c (out, c);
        }
      else if (c == '\n')
        g_string_append (out, "\\n");
      else if (c == '\r')
        g_string_append (out, "\\r");
      else if (c == '\t')
        g_string_append (out, "\\t");
      else if (c < 0x20 || c == 0x7f)
        g_string_append_printf (out, "\\x%02X", c);
      else
        g_string_append_c (out, c);
    }
}

/* Tables: each built once from the runs, written as Markdown or as HTML */

typedef enum {
  CELL_PLAIN  = 0,
  CELL_NUMBER = 1 << 0,   /* right-aligned */
  CELL_BEST   = 1 << 1,   /* the best of its row: bold */
  CELL_PATH   = 1 << 2,   /* a path: may break anywhere */
} CellFlags;

typedef struct {
  char      *text;
  CellFlags  flags;
} Cell;

/* The header row first, then the body, row by row. */
typedef struct {
  GArray   *cells;         /* Cell */
  guint     n_columns;     /* 0 until the header is complete */
  gboolean  row_headers;   /* the first cell of each body row names the row */
} Table;

static void
cell_clear (gpointer data)
{
  g_free (((Cell *) data)->text);
}

static Table *
table_new (gboolean row_headers)
{
  Table *table = g_new0 (Table, 1);

  table->cells = g_array_new (FALSE, FALSE, sizeof (Cell));
  g_array_set_clear_func (table->cells, cell_clear);
  table->row_headers = row_headers;
  return table;
}

static void
table_free (Table *table)
{
  g_array_unref (table->cells);
  g_free (table);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Table, table_free)

/* Takes @text. */
static void
table_take (Table     *table,
            CellFlags  flags,
            char      *text)
{
  Cell cell = { text, flags };

  g_array_append_val (table->cells, cell);
}

static void
table_add (Table      *table,
           CellFlags   flags,
           const char *text)
{
  table_take (table, flags, g_strdup (text));
}

static void
table_end_header (Table *table)
{
  table->n_columns = table->cells->len;
}

static gboolean
table_column_is_numeric (const Table *table,
                         guint        column)
{
  return table->cells->len > table->n_columns
         && (g_array_index (table->cells, Cell, table->n_columns + column).flags & CELL_NUMBER);
}

static void
md_table (GString     *out,
          const Table *table)
{
  for (guint i = 0; i < table->cells->len; i++)
    {
      const Cell *cell = &g_array_index (table->cells, Cell, i);
      guint column = i % table->n_columns;
      gboolean bold = (cell->flags & CELL_BEST) != 0;

      if (column == 0)
        g_string_append_c (out, '|');
      g_string_append (out, bold ? " **" : " ");
      append_md (out, cell->text);
      g_string_append (out, bold ? "** |" : " |");
      if (column + 1 < table->n_columns)
        continue;

      g_string_append_c (out, '\n');
      if (i + 1 == table->n_columns)
        {
          g_string_append_c (out, '|');
          for (guint c = 0; c < table->n_columns; c++)
            g_string_append (out, table_column_is_numeric (table, c) ? "--:|" : "---|");
          g_string_append_c (out, '\n');
        }
    }
}

static void
html_table (GString     *out,
            const Table *table)
{
  g_string_append (out, "<table>\n");
  for (guint i = 0; i < table->cells->len; i++)
    {
      const Cell *cell = &g_array_index (table->cells, Cell, i);
      guint column = i % table->n_columns;
      gboolean header = i < table->n_columns || (table->row_headers && column == 0);

      if (column == 0)
        g_string_append (out, "<tr>");
      if (header)
        {
          g_string_append (out, "<th>");
          append_html (out, cell->text);
          g_string_append (out, "</th>");
        }
      else
        {
          const char *classes[3];
          guint n = 0;

          if (cell->flags & CELL_NUMBER)
            classes[n++] = "n";
          if (cell->flags & CELL_BEST)
            classes[n++] = "best";
          if (cell->flags & CELL_PATH)
            classes[n++] = "path";
          classes[n] = NULL;
          if (n > 0)
            {
              g_autofree char *joined = g_strjoinv (" ", (char **) classes);

              g_string_append_printf (out, "<td class=\"%s\">", joined);
            }
          else
            g_string_append (out, "<td>");
          append_html (out, cell->text);
          g_string_append (out, "</td>");
        }
      if (column + 1 == table->n_columns)
        g_string_append (out, "</tr>\n");
    }
  g_string_append (out, "</table>\n");
}

static char *
format_stat_cell (CsCompare     *compare,
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
static Table *
info_table (CsCompare *compare)
{
  guint n = cs_compare_get_n_runs (compare);
  g_autofree GArray **infos = g_new0 (GArray *, n);
  Table *table = table_new (TRUE);

  for (guint i = 0; i < n; i++)
    infos[i] = collect_info (cs_compare_get_run (compare, i));

  table_add (table, CELL_PLAIN, n == 1 ? "Setting" : "");
  for (guint i = 0; i < n; i++)
    table_add (table, CELL_PLAIN, n == 1 ? "Value" : cs_compare_get_label (compare, i));
  table_end_header (table);

  for (guint r = 0; r < infos[0]->len; r++)
    {
      const char *key = g_array_index (infos[0], InfoRow, r).key;
      gboolean is_path = strcmp (key, "Sources") == 0 || strcmp (key, "Destination") == 0
                         || strcmp (key, "Checksum list") == 0;

      table_add (table, CELL_PLAIN, key);
      for (guint i = 0; i < n; i++)
        table_add (table, is_path ? CELL_PATH : CELL_PLAIN, g_array_index (infos[i], InfoRow, r).value);
    }

  for (guint i = 0; i < n; i++)
    g_array_unref (infos[i]);
  return table;
}

/* Why the skipped files were skipped, under the Skipped row: files only (a
 * folder is "skipped" when it existed). "–" for a run whose record does not
 * say; no rows when none does. */
static void
skips_rows (Table     *table,
            CsCompare *compare)
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
      table_add (table, CELL_PLAIN, row == 0 ? "Skipped (identical)" : "Skipped (your choice)");
      for (guint i = 0; i < n; i++)
        {
          guint64 files = row == 0 ? skips[i].identical_files : skips[i].chosen_files;
          guint64 bytes = row == 0 ? skips[i].identical_bytes : skips[i].chosen_bytes;

          table_add (table, CELL_NUMBER, "");
          table_take (table, CELL_NUMBER, known[i] ? g_strdup_printf ("%" G_GUINT64_FORMAT, files) : g_strdup ("–"));
          table_take (table, CELL_NUMBER, known[i] ? g_strdup_printf ("%" G_GUINT64_FORMAT, bytes) : g_strdup ("–"));
        }
    }
}

static Table *
totals_table (CsCompare *compare)
{
  guint n = cs_compare_get_n_runs (compare);
  g_autofree CsTotals *totals = g_new0 (CsTotals, n);
  Table *table = table_new (TRUE);

  for (guint i = 0; i < n; i++)
    cs_run_get_totals (cs_compare_get_run (compare, i), &totals[i]);

  table_add (table, CELL_PLAIN, "");
  for (guint i = 0; i < n; i++)
    for (guint k = 0; k < CS_N_KINDS; k++)
      table_take (table, CELL_PLAIN, n > 1 ? g_strdup_printf ("%s %s", cs_compare_get_label (compare, i), kind_labels[k])
                                           : g_strdup (kind_labels[k]));
  table_end_header (table);

  for (guint c = 0; c < CS_N_CLASSES; c++)
    {
      table_add (table, CELL_PLAIN, class_labels[c]);
      for (guint i = 0; i < n; i++)
        for (guint k = 0; k < CS_N_KINDS; k++)
          table_take (table, CELL_NUMBER, g_strdup_printf ("%" G_GUINT64_FORMAT, totals[i].v[c][k]));
      if (c == CS_CLASS_SKIPPED)
        skips_rows (table, compare);
    }
  return table;
}

/* The first MAX_LISTED_FAILURES failures of all runs, or with @notes their
 * notes (CsRunError.note: what the destination did not keep, what was left
 * out on purpose); NULL when there are none. @out_more: how many are left
 * out. */
static Table *
failures_table (CsCompare *compare,
                gboolean   notes,
                guint     *out_more)
{
  guint n = cs_compare_get_n_runs (compare);
  guint listed = 0, total = 0;
  Table *table;

  for (guint i = 0; i < n; i++)
    {
      CsRun *run = cs_compare_get_run (compare, i);

      total += notes ? cs_run_get_n_notes (run) : cs_run_get_n_errors (run);
    }
  *out_more = 0;
  if (total == 0)
    return NULL;

  table = table_new (FALSE);
  if (n > 1)
    table_add (table, CELL_PLAIN, "Run");
  table_add (table, CELL_PLAIN, "Path");
  table_add (table, CELL_PLAIN, "Operation");
  table_add (table, CELL_PLAIN, notes ? "Note" : "Error");
  if (!notes)
    table_add (table, CELL_PLAIN, "Attempts");
  table_end_header (table);

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
            table_add (table, CELL_PLAIN, cs_compare_get_label (compare, i));
          table_add (table, CELL_PATH, error->path);
          table_add (table, CELL_PLAIN, error->operation);
          table_take (table, CELL_PLAIN, error_text (error));
          if (!notes)
            table_take (table, CELL_NUMBER, g_strdup_printf ("%u", error->attempts));
        }
    }

  *out_more = total - listed;
  return table;
}

/* Every counter: average, minimum and maximum of one run, or the averages of
 * several side by side with the best marked. */
static Table *
counters_table (CsCompare *compare)
{
  guint n = cs_compare_get_n_runs (compare);
  Table *table = table_new (TRUE);

  table_add (table, CELL_PLAIN, "Performance Counter");
  if (n == 1)
    {
      table_add (table, CELL_PLAIN, "Average");
      table_add (table, CELL_PLAIN, "Min");
      table_add (table, CELL_PLAIN, "Max");
    }
  else
    {
      for (guint i = 0; i < n; i++)
        table_add (table, CELL_PLAIN, cs_compare_get_label (compare, i));
    }
  table_add (table, CELL_PLAIN, "Direction");
  table_end_header (table);

  for (guint c = 0; c < CS_N_COUNTERS; c++)
    {
      const CsCounterInfo *info = cs_counter_get_info (c);

      table_add (table, CELL_PLAIN, info->label);
      if (n == 1)
        {
          for (guint s = 0; s < CS_COMPARE_N_STATS; s++)
            table_take (table, CELL_NUMBER, format_stat_cell (compare, c, s, 0));
        }
      else
        {
          for (guint i = 0; i < n; i++)
            table_take (table, CELL_NUMBER | (cs_compare_is_best (compare, c, CS_COMPARE_AVG, i) ? CELL_BEST : 0),
                        format_stat_cell (compare, c, CS_COMPARE_AVG, i));
        }
      table_add (table, CELL_PLAIN, direction_text (info));
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

static GBytes *
render_chart (CsCompare     *compare,
              CsPlotFormat   format,
              double         width,
              double         height,
              GError       **error)
{
  g_autoptr(Chart) chart = chart_new (compare);

  return cs_chart_render_throughput (format, width, height, chart->runs, chart->n_runs, error);
}

/* Markdown */

static void
md_failures (GString   *out,
             CsCompare *compare)
{
  guint more = 0;
  g_autoptr(Table) table = failures_table (compare, FALSE, &more);
  g_autoptr(Table) notes = NULL;

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
  notes = failures_table (compare, TRUE, &more);
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
      append_md (out, cs_compare_get_label (compare, 0));
      g_string_append (out, "\n\n");
      return;
    }

  g_string_append (out, "# Copyscope comparison: ");
  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append (out, " vs. ");
      append_md (out, cs_compare_get_label (compare, i));
    }
  g_string_append (out, "\n\n");
}

/* Per counter, for a comparison: every statistic of every run. */
static Table *
counter_runs_table (CsCompare *compare,
                    CsCounter  counter)
{
  guint n = cs_compare_get_n_runs (compare);
  Table *table = table_new (TRUE);

  table_add (table, CELL_PLAIN, "Run");
  table_add (table, CELL_PLAIN, "Average");
  table_add (table, CELL_PLAIN, "Min");
  table_add (table, CELL_PLAIN, "Max");
  table_end_header (table);
  for (guint i = 0; i < n; i++)
    {
      table_add (table, CELL_PLAIN, cs_compare_get_label (compare, i));
      for (guint s = 0; s < CS_COMPARE_N_STATS; s++)
        table_take (table, CELL_NUMBER | (cs_compare_is_best (compare, counter, s, i) ? CELL_BEST : 0),
                    format_stat_cell (compare, counter, s, i));
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
  g_autoptr(Table) results = counters_table (compare);

  g_string_append (out, "## Outcome\n\n");
  append_md (out, outcome);
  g_string_append (out, "\n\n## Results\n\nAverages; the best is in bold.\n\n");
  md_table (out, results);
  g_string_append_c (out, '\n');
  append_md (out, verdict);
  g_string_append (out, "\n\n");

  for (guint c = 0; c < CS_N_COUNTERS; c++)
    {
      const CsCounterInfo *info = cs_counter_get_info (c);
      g_autofree char *sentence = cs_compare_dup_counter_sentence (compare, c);
      g_autoptr(Table) runs = NULL;
      CsStat pooled;

      if (sentence == NULL)
        continue;

      g_string_append (out, "### ");
      for (guint i = 0; i < n; i++)
        {
          if (i > 0)
            g_string_append (out, " vs. ");
          append_md (out, cs_compare_get_label (compare, i));
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
      append_md (out, sentence);
      g_string_append (out, "\n\n");
    }
}

static char *
render_markdown (CsCompare *compare)
{
  GString *out = g_string_new (NULL);

  g_autoptr(Table) info = info_table (compare);
  g_autoptr(Table) totals = totals_table (compare);

  md_title (out, compare);
  if (cs_compare_get_n_runs (compare) > 1)
    md_comparison_counters (out, compare);
  g_string_append (out, "## Settings, environment and method\n\n");
  md_table (out, info);
  g_string_append_printf (out, "\n%s\n\n", units_note);
  g_string_append (out, "## Totals\n\n");
  md_table (out, totals);
  g_string_append_c (out, '\n');
  if (cs_compare_get_n_runs (compare) == 1)
    {
      g_autoptr(Table) counters = counters_table (compare);

      g_string_append (out, "## Performance counters\n\n");
      md_table (out, counters);
      g_string_append_c (out, '\n');
    }
  _cs_report_phases_md (out, compare);
  md_failures (out, compare);

  return g_string_free (out, FALSE);
}

/* JSON */

static char *
render_json (CsCompare *compare)
{
  g_autoptr(JsonBuilder) builder = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *verdict = NULL;
  g_autofree char *outcome = NULL;
  guint n = cs_compare_get_n_runs (compare);

  if (n == 1)
    {
      root = cs_run_to_json (cs_compare_get_run (compare, 0));
      _cs_report_phases_json (json_node_get_object (root), compare);
      return cs_json_to_string (root, TRUE);
    }

  /* A comparison keeps every run whole, so it can be imported again. */
  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "schema_version");
  json_builder_add_int_value (builder, CS_RUN_SCHEMA_VERSION);
  json_builder_set_member_name (builder, "kind");
  json_builder_add_string_value (builder, "comparison");

  json_builder_set_member_name (builder, "labels");
  json_builder_begin_array (builder);
  for (guint i = 0; i < n; i++)
    json_builder_add_string_value (builder, cs_compare_get_label (compare, i));
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "tests");
  json_builder_add_int_value (builder, cs_compare_get_n_tests (compare));
  json_builder_set_member_name (builder, "ties");
  json_builder_add_int_value (builder, cs_compare_get_n_ties (compare));
  json_builder_set_member_name (builder, "wins");
  json_builder_begin_array (builder);
  for (guint i = 0; i < n; i++)
    json_builder_add_int_value (builder, cs_compare_get_wins (compare, i));
  json_builder_end_array (builder);
  outcome = cs_compare_dup_outcome (compare);
  json_builder_set_member_name (builder, "outcome");
  json_builder_add_string_value (builder, outcome);
  verdict = cs_compare_dup_verdict (compare);
  json_builder_set_member_name (builder, "verdict");
  json_builder_add_string_value (builder, verdict);

  json_builder_set_member_name (builder, "counters");
  json_builder_begin_array (builder);
  for (guint c = 0; c < CS_N_COUNTERS; c++)
    {
      const CsCounterInfo *info = cs_counter_get_info (c);
      const CsCompareCounter *row = cs_compare_get_counter (compare, c);
      static const char * const stat_keys[] = { "avg", "min", "max" };

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "key");
      json_builder_add_string_value (builder, info->key);
      json_builder_set_member_name (builder, "label");
      json_builder_add_string_value (builder, info->label);
      json_builder_set_member_name (builder, "unit");
      json_builder_add_string_value (builder, info->unit);
      json_builder_set_member_name (builder, "direction");
      json_builder_add_string_value (builder, info->direction == CS_DIRECTION_MORE_IS_BETTER ? "more"
                                              : info->direction == CS_DIRECTION_LESS_IS_BETTER ? "less" : "none");
      json_builder_set_member_name (builder, "runs");
      json_builder_begin_array (builder);
      for (guint i = 0; i < n; i++)
        {
          if (!row->valid[i])
            {
              json_builder_add_null_value (builder);
              continue;
            }
          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "avg");
          json_builder_add_double_value (builder, row->stats[i].avg);
          json_builder_set_member_name (builder, "min");
          json_builder_add_double_value (builder, row->stats[i].min);
          json_builder_set_member_name (builder, "max");
          json_builder_add_double_value (builder, row->stats[i].max);
          json_builder_end_object (builder);
        }
      json_builder_end_array (builder);

      json_builder_set_member_name (builder, "best");
      json_builder_begin_object (builder);
      for (guint s = 0; s < CS_COMPARE_N_STATS; s++)
        {
          json_builder_set_member_name (builder, stat_keys[s]);
          if (row->best[s] >= 0)
            json_builder_add_int_value (builder, row->best[s]);
          else if (row->best[s] == CS_COMPARE_TIE)
            json_builder_add_string_value (builder, "tie");
          else
            json_builder_add_null_value (builder);
        }
      json_builder_end_object (builder);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "runs");
  json_builder_begin_array (builder);
  for (guint i = 0; i < n; i++)
    json_builder_add_value (builder, cs_run_to_json (cs_compare_get_run (compare, i)));
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  _cs_report_phases_json (json_node_get_object (root), compare);

  return cs_json_to_string (root, TRUE);
}

/* HTML */

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
  append_html (out, text);
  g_string_append (out, "</td>");
}

static void
html_failures (GString   *out,
               CsCompare *compare)
{
  guint more = 0;
  g_autoptr(Table) table = failures_table (compare, FALSE, &more);
  g_autoptr(Table) notes = NULL;

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
  notes = failures_table (compare, TRUE, &more);
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
          append_html (out, cs_compare_get_label (compare, i));
        }
      g_string_append_printf (out, " - %s</h3>\n<table class=\"bars\">\n", info->label);
      for (guint i = 0; i < n; i++)
        {
          g_autofree char *v = cs_compare_format_value (c, row->stats[i].avg);
          g_autofree char *width = format_fixed ("%.1f", top > 0 ? 100.0 * row->stats[i].avg / top : 0);
          gboolean best = cs_compare_is_best (compare, c, CS_COMPARE_AVG, i);

          g_string_append (out, "<tr>");
          html_cell (out, NULL, cs_compare_get_label (compare, i));
          g_string_append_printf (out, "<td style=\"width:20rem\"><div class=\"bar%s\" style=\"width:%s%%\"></div></td>",
                                  best ? " best" : "", width);
          html_cell (out, best ? "n best" : "n", v);
          g_string_append (out, "</tr>\n");
        }
      g_string_append (out, "</table>\n<p class=\"note\">");
      append_html (out, cs_direction_to_string (info->direction));
      if (cs_compare_get_pooled (compare, c, &pooled))
        {
          g_autofree char *avg = cs_compare_format_value (c, pooled.avg);
          g_autofree char *min = cs_compare_format_value (c, pooled.min);
          g_autofree char *max = cs_compare_format_value (c, pooled.max);

          g_string_append_printf (out, " · Average: %s · Min: %s · Max: %s", avg, min, max);
        }
      g_string_append (out, "</p>\n<p>");
      append_html (out, sentence);
      g_string_append (out, "</p>\n</section>\n");
    }
}

static char *
render_html (CsCompare  *compare,
             GError    **error)
{
  guint n = cs_compare_get_n_runs (compare);
  g_autoptr(GString) title = g_string_new (NULL);
  g_autoptr(GBytes) svg = NULL;
  g_autoptr(Table) info = NULL;
  g_autoptr(Table) totals = NULL;
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

  svg = render_chart (compare, CS_PLOT_FORMAT_SVG, HTML_CHART_WIDTH, HTML_CHART_HEIGHT, error);
  if (svg == NULL)
    return NULL;
  info = info_table (compare);
  totals = totals_table (compare);

  out = g_string_new ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
  /* Defence in depth: even a name that slipped past escaping could not run script. */
  g_string_append (out, "<meta http-equiv=\"Content-Security-Policy\" "
                        "content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n"
                        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                        "<meta name=\"generator\" content=\"Copyscope\">\n<title>");
  append_html (out, title->str);
  g_string_append_printf (out, "</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n<h1>", html_style);
  append_html (out, title->str);
  g_string_append (out, "</h1>\n");

  if (n > 1)
    {
      g_autofree char *verdict = cs_compare_dup_verdict (compare);
      g_autofree char *outcome = cs_compare_dup_outcome (compare);
      g_autoptr(Table) results = counters_table (compare);

      g_string_append (out, "<h2>Outcome</h2>\n<p class=\"verdict\">");
      append_html (out, outcome);
      g_string_append (out, "</p>\n<h2>Results</h2>\n");
      html_table (out, results);
      g_string_append (out, "<p class=\"verdict\">");
      append_html (out, verdict);
      g_string_append (out, "</p>\n");
    }

  g_string_append (out, "<h2>Throughput</h2>\n<figure class=\"chart\" role=\"img\" aria-label=\"");
  append_html (out, n > 1 ? "Transfer rate and request rate of each run over time, aligned at the start"
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
      g_autoptr(Table) counters = counters_table (compare);

      g_string_append (out, "<h2>Performance counters</h2>\n");
      html_table (out, counters);
    }
  _cs_report_phases_html (out, compare);

  g_string_append (out, "<h2>Settings, environment and method</h2>\n");
  html_table (out, info);
  g_string_append (out, "<p class=\"note\">");
  append_html (out, units_note);
  g_string_append (out, "</p>\n<h2>Totals</h2>\n");
  html_table (out, totals);
  html_failures (out, compare);
  g_string_append (out, "</main>\n</body>\n</html>\n");

  return g_string_free (out, FALSE);
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
      text = render_markdown (compare);
      break;
    case CS_REPORT_FORMAT_HTML:
      text = render_html (compare, error);
      break;
    case CS_REPORT_FORMAT_CSV:
      text = _cs_report_csv_render (compare);
      break;
    case CS_REPORT_FORMAT_JSON:
      text = render_json (compare);
      break;
    case CS_REPORT_FORMAT_PNG:
      return render_chart (compare, CS_PLOT_FORMAT_PNG, CHART_WIDTH, CHART_HEIGHT, error);
    case CS_REPORT_FORMAT_SVG:
      return render_chart (compare, CS_PLOT_FORMAT_SVG, CHART_WIDTH, CHART_HEIGHT, error);
    case CS_REPORT_FORMAT_PDF:
      return render_chart (compare, CS_PLOT_FORMAT_PDF, CHART_WIDTH, CHART_HEIGHT, error);
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
