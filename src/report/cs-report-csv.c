/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-report"

/*
 * The CSV exports (cs-report-csv.h). The run record has no CSV of its own:
 * what it holds is read through cs-run.h and written here, once.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "cs-report.h"
#include "cs-report-csv.h"
#include "cs-report-phases.h"
#include "cs-compare.h"
#include "cs-figures.h"

/* The shortest text that reads back as the same double ("0.1", not
 * "0.10000000000000001"), whatever the locale; nothing for NaN or infinity. */
static void
append_double (GString *out,
               double   value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (value))
    return;

  g_ascii_formatd (buf, sizeof buf, "%.15g", value);
  if (g_ascii_strtod (buf, NULL) != value)
    g_ascii_formatd (buf, sizeof buf, "%.17g", value);
  g_string_append (out, buf);
}

void
cs_report_append_csv_text (GString    *out,
                           const char *text)
{
  g_autofree char *valid = NULL;
  gboolean defuse;
  gboolean quote;

  g_return_if_fail (out != NULL);

  if (text == NULL)
    return;

  valid = g_utf8_make_valid (text, -1);
  defuse = strchr ("=+-@\t\r", valid[0]) != NULL && valid[0] != '\0';
  quote = defuse || strpbrk (valid, ",\"\r\n") != NULL;

  if (quote)
    g_string_append_c (out, '"');
  if (defuse)
    g_string_append_c (out, '\'');
  for (const char *p = valid; *p != '\0'; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  if (quote)
    g_string_append_c (out, '"');
}

/* Samples */

static void
append_samples_header (GString *out)
{
  g_string_append (out, "t,threads,files_done,bytes_done");
  for (guint c = 0; c < CS_N_COUNTERS; c++)
    {
      if (c == CS_COUNTER_THREADS)
        continue;
      g_string_append_c (out, ',');
      g_string_append (out, cs_counter_get_info (c)->key);
    }
  g_string_append (out, "\r\n");
}

/* @run_cell: NULL, or the cell (with its comma) each row starts with. */
static void
append_samples_rows (GString    *out,
                     CsRun      *run,
                     const char *run_cell)
{
  g_autofree CsSample *samples = NULL;
  guint n = 0;

  samples = cs_run_dup_samples (run, &n);
  for (guint i = 0; i < n; i++)
    {
      const CsSample *s = &samples[i];

      if (run_cell != NULL)
        g_string_append (out, run_cell);
      append_double (out, s->t);
      g_string_append_c (out, ',');
      append_double (out, s->values[CS_COUNTER_THREADS]);
      g_string_append_printf (out, ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT,
                              s->files_done, s->bytes_done);
      for (guint c = 0; c < CS_N_COUNTERS; c++)
        {
          if (c == CS_COUNTER_THREADS)
            continue;
          g_string_append_c (out, ',');
          append_double (out, s->values[c]);
        }
      g_string_append (out, "\r\n");
    }
}

char *
cs_report_samples_to_csv (CsRun *run)
{
  GString *out;

  g_return_val_if_fail (run != NULL, NULL);

  out = g_string_new (NULL);
  append_samples_header (out);
  append_samples_rows (out, run, NULL);

  return g_string_free (out, FALSE);
}

/* The report */

static void
csv_summary (GString   *out,
             CsCompare *compare)
{
  guint n = cs_compare_get_n_runs (compare);
  static const char * const stat_words[] = { "average", "minimum", "maximum" };

  g_string_append (out, "counter,label,unit,direction");
  for (guint i = 0; i < n; i++)
    for (guint s = 0; s < CS_COMPARE_N_STATS; s++)
      {
        g_autofree char *head = n > 1
          ? g_strdup_printf ("%s %s", cs_compare_get_label (compare, i), stat_words[s])
          : g_strdup (stat_words[s]);

        g_string_append_c (out, ',');
        cs_report_append_csv_text (out, head);
      }
  if (n > 1)
    g_string_append (out, ",best");
  g_string_append (out, "\r\n");

  for (guint c = 0; c < CS_N_COUNTERS; c++)
    {
      const CsCounterInfo *info = cs_counter_get_info (c);
      const CsCompareCounter *row = cs_compare_get_counter (compare, c);

      cs_report_append_csv_text (out, info->key);
      g_string_append_c (out, ',');
      cs_report_append_csv_text (out, info->label);
      g_string_append_c (out, ',');
      cs_report_append_csv_text (out, info->unit);
      g_string_append_c (out, ',');
      cs_report_append_csv_text (out, info->direction == CS_DIRECTION_MORE_IS_BETTER ? "more"
                                      : info->direction == CS_DIRECTION_LESS_IS_BETTER ? "less" : "");
      for (guint i = 0; i < n; i++)
        {
          g_string_append_c (out, ',');
          if (row->valid[i])
            append_double (out, row->stats[i].avg);
          g_string_append_c (out, ',');
          if (row->valid[i])
            append_double (out, row->stats[i].min);
          g_string_append_c (out, ',');
          if (row->valid[i])
            append_double (out, row->stats[i].max);
        }
      if (n > 1)
        {
          g_string_append_c (out, ',');
          if (row->best[CS_COMPARE_AVG] == CS_COMPARE_TIE)
            g_string_append (out, "tie");
          else if (row->best[CS_COMPARE_AVG] >= 0)
            cs_report_append_csv_text (out, cs_compare_get_label (compare, row->best[CS_COMPARE_AVG]));
        }
      g_string_append (out, "\r\n");
    }
}

/* The figures every view shows (cs-figures.h), at full precision. */
static void
csv_figures (GString   *out,
             CsCompare *compare)
{
  static const struct {
    const char *key;
    const char *unit;
  } rows[] = {
    { "duration", "s" }, { "held", "s" }, { "files", "" }, { "bytes", "" },
    { "mb_per_second", "MB/s" }, { "files_per_second", "files/s" }, { "threads", "" },
    { "threads_min", "" }, { "threads_max", "" }, { "threads_mean", "" },
  };
  guint n = cs_compare_get_n_runs (compare);

  g_string_append (out, "figure,unit");
  for (guint i = 0; i < n; i++)
    {
      g_string_append_c (out, ',');
      cs_report_append_csv_text (out, n > 1 ? cs_compare_get_label (compare, i) : "value");
    }
  g_string_append (out, "\r\n");

  for (guint r = 0; r < G_N_ELEMENTS (rows); r++)
    {
      g_string_append_printf (out, "%s,%s", rows[r].key, rows[r].unit);
      for (guint i = 0; i < n; i++)
        {
          const CsFigures *f = cs_compare_get_figures (compare, i);
          const double values[] = {
            f->duration, f->held, (double) f->files, (double) f->bytes, f->speed, f->file_rate,
            f->threads, f->threads_min, f->threads_max, f->threads_mean,
          };

          g_string_append_c (out, ',');
          append_double (out, values[r]);
        }
      g_string_append (out, "\r\n");
    }

  /* Empty for a run whose record does not say. */
  for (guint r = 0; r < 4; r++)
    {
      static const char *keys[] = {
        "skipped_identical_files", "skipped_identical_bytes", "skipped_chosen_files", "skipped_chosen_bytes",
      };

      g_string_append_printf (out, "%s,", keys[r]);
      for (guint i = 0; i < n; i++)
        {
          CsSkips s;
          const guint64 *values[] = { &s.identical_files, &s.identical_bytes, &s.chosen_files, &s.chosen_bytes };

          g_string_append_c (out, ',');
          if (cs_run_get_skips (cs_compare_get_run (compare, i), &s))
            g_string_append_printf (out, "%" G_GUINT64_FORMAT, *values[r]);
        }
      g_string_append (out, "\r\n");
    }
}

/* One header for all runs; a comparison starts each row with its run. */
static void
csv_samples (GString   *out,
             CsCompare *compare)
{
  guint n = cs_compare_get_n_runs (compare);

  if (n > 1)
    g_string_append (out, "run,");
  append_samples_header (out);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GString) run = NULL;

      if (n > 1)
        {
          run = g_string_new (NULL);
          cs_report_append_csv_text (run, cs_compare_get_label (compare, i));
          g_string_append_c (run, ',');
        }
      append_samples_rows (out, cs_compare_get_run (compare, i), run != NULL ? run->str : NULL);
    }
}

/* The failures, or with @notes the notes, as a section of their own; the
 * notes' header ("…,note") tells them apart. */
static void
csv_failures (GString   *out,
              CsCompare *compare,
              gboolean   notes)
{
  guint n = cs_compare_get_n_runs (compare);
  guint total = 0;

  for (guint i = 0; i < n; i++)
    {
      CsRun *run = cs_compare_get_run (compare, i);

      total += notes ? cs_run_get_n_notes (run) : cs_run_get_n_errors (run);
    }
  if (total == 0)
    return;

  g_string_append (out, "\r\n");
  if (n > 1)
    g_string_append (out, "run,");
  g_string_append (out, notes ? "path,operation,error_code,note\r\n"
                              : "path,operation,error_code,message,attempts\r\n");

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GPtrArray) errors = cs_run_dup_errors (cs_compare_get_run (compare, i));

      for (guint j = 0; j < errors->len; j++)
        {
          const CsRunError *error = g_ptr_array_index (errors, j);

          if (error->note != notes)
            continue;
          if (n > 1)
            {
              cs_report_append_csv_text (out, cs_compare_get_label (compare, i));
              g_string_append_c (out, ',');
            }
          cs_report_append_csv_text (out, error->path);
          g_string_append_c (out, ',');
          cs_report_append_csv_text (out, error->operation);
          g_string_append_printf (out, ",%d,", error->error_code);
          cs_report_append_csv_text (out, error->message);
          if (notes)
            g_string_append (out, "\r\n");
          else
            g_string_append_printf (out, ",%u\r\n", error->attempts);
        }
    }
}

/* Waiting for a processor: its own table, as it overlaps the phases (a row
 * among them would make their shares add up past 1); a row per run where
 * it was measured, none where not, nothing when no run has it. */
static void
csv_runnable (GString   *out,
              CsCompare *compare)
{
  guint n = cs_compare_get_n_runs (compare);
  gboolean header = FALSE;

  for (guint i = 0; i < n; i++)
    {
      CsPhaseBreakdown b;

      _cs_report_phase_breakdown (cs_compare_get_run (compare, i), &b);
      if (!b.known || !b.runnable_known)
        continue;
      if (!header)
        {
          g_string_append (out, "\r\n");
          if (n > 1)
            g_string_append (out, "run,");
          g_string_append (out, "runnable_worker_seconds,runnable_share\r\n");
          header = TRUE;
        }
      if (n > 1)
        {
          cs_report_append_csv_text (out, cs_compare_get_label (compare, i));
          g_string_append_c (out, ',');
        }
      append_double (out, b.runnable);
      g_string_append_c (out, ',');
      append_double (out, b.runnable_share);
      g_string_append (out, "\r\n");
    }
}

/* Where the time went: a row per run and phase, then per run and request
 * kind; nothing when no run has phase data. */
static void
csv_phases (GString   *out,
            CsCompare *compare)
{
  guint n = cs_compare_get_n_runs (compare);
  gboolean any_latency = FALSE;

  if (!_cs_report_phases_any (compare))
    return;

  g_string_append (out, "\r\n");
  if (n > 1)
    g_string_append (out, "run,");
  g_string_append (out, "phase,label,worker_seconds,share,seconds_per_file\r\n");
  for (guint i = 0; i < n; i++)
    {
      CsPhaseBreakdown b;

      _cs_report_phase_breakdown (cs_compare_get_run (compare, i), &b);
      for (guint k = 0; k < CS_LATENCY_N; k++)
        any_latency |= b.latency_known[k];
      /* A run without phase data has no rows: never zeros. */
      for (guint p = 0; b.known && p < CS_PHASE_N; p++)
        {
          if (n > 1)
            {
              cs_report_append_csv_text (out, cs_compare_get_label (compare, i));
              g_string_append_c (out, ',');
            }
          g_string_append_printf (out, "%s,", cs_phase_get_id (p));
          cs_report_append_csv_text (out, cs_phase_get_label (p));
          g_string_append_c (out, ',');
          append_double (out, b.seconds[p]);
          g_string_append_c (out, ',');
          append_double (out, b.share[p]);
          g_string_append_c (out, ',');
          append_double (out, b.per_file[p]);
          g_string_append (out, "\r\n");
        }
    }
  csv_runnable (out, compare);
  if (!any_latency)
    return;

  g_string_append (out, "\r\n");
  if (n > 1)
    g_string_append (out, "run,");
  g_string_append (out, "request,count,mean_ns");
  for (guint q = 0; q < CS_REPORT_N_PERCENTILES; q++)
    g_string_append_printf (out, ",p%.0f_ns", cs_report_percentiles[q]);
  g_string_append (out, ",max_ns\r\n");
  for (guint k = 0; k < CS_LATENCY_N; k++)
    for (guint i = 0; i < n; i++)
      {
        CsLatencyHistogram h;

        if (!cs_run_get_latency (cs_compare_get_run (compare, i), k, &h))
          continue;
        if (n > 1)
          {
            cs_report_append_csv_text (out, cs_compare_get_label (compare, i));
            g_string_append_c (out, ',');
          }
        g_string_append_printf (out, "%s,%" G_GUINT64_FORMAT ",", cs_latency_kind_get_id (k), h.count);
        append_double (out, cs_latency_histogram_mean (&h));
        for (guint q = 0; q < CS_REPORT_N_PERCENTILES; q++)
          {
            g_string_append_c (out, ',');
            append_double (out, cs_latency_histogram_percentile (&h, cs_report_percentiles[q]));
          }
        g_string_append_printf (out, ",%" G_GUINT64_FORMAT "\r\n", h.max_ns);
      }
}

char *
_cs_report_csv_render (CsCompare *compare)
{
  GString *out = g_string_new (NULL);

  csv_figures (out, compare);
  g_string_append (out, "\r\n");
  csv_summary (out, compare);
  g_string_append (out, "\r\n");
  csv_samples (out, compare);
  csv_failures (out, compare, FALSE);
  csv_failures (out, compare, TRUE);
  csv_phases (out, compare);

  return g_string_free (out, FALSE);
}
