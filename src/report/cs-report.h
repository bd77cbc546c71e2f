/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "cs-run.h"

G_BEGIN_DECLS

/*
 * Reports on one run, or a comparison of two or more, in the formats people
 * paste into tickets, wikis and spreadsheets. Every number is written
 * independently of the locale; every file name and label is escaped for the
 * format (HTML, Markdown) or quoted and defused (CSV).
 */

typedef enum {
  CS_REPORT_FORMAT_MARKDOWN,
  CS_REPORT_FORMAT_HTML,
  CS_REPORT_FORMAT_CSV,
  CS_REPORT_FORMAT_JSON,
  CS_REPORT_FORMAT_PNG,
  CS_REPORT_FORMAT_SVG,
  CS_REPORT_FORMAT_PDF,
  CS_REPORT_FORMAT_TRACE,    /* Chrome's Trace Event JSON of the workers' phases, one run */
  CS_REPORT_FORMAT_SYSPROF,  /* a Sysprof capture of the same, one run */
} CsReportFormat;

/* "md" (or "markdown"), "html", "csv", "json", "png", "svg", "pdf", "trace",
 * "sysprof" (or "syscap"); case-insensitive. */
gboolean    cs_report_format_from_string      (const char           *str,
                                               CsReportFormat       *out_format);
/* The usual file name extension, without the dot: "md", "html", … */
const char *cs_report_format_get_extension    (CsReportFormat        format);
const char *cs_report_format_get_content_type (CsReportFormat        format);
/* Whether the output is text that can go to a terminal. */
gboolean    cs_report_format_is_text          (CsReportFormat        format);

/*
 * One run gives a single-run report; two or more a comparison in the given
 * order. @labels: NULL, or one per run (NULL entries fall back to the run's own
 * label, then "Run N"). PNG, SVG and PDF hold the throughput chart only.
 */
GBytes     *cs_report_render                  (CsRun               **runs,
                                               guint                 n_runs,
                                               const char * const   *labels,
                                               CsReportFormat        format,
                                               GError              **error);

/* The phase chart of one run (cs_plot_draw_phases ()): PNG, SVG or PDF; an
 * error for a run without phase data or another format. */
GBytes     *cs_report_render_phase_chart      (CsRun                *run,
                                               CsReportFormat        format,
                                               GError              **error);

/* One CSV cell per RFC 4180, with text starting with =, +, -, @, tab or CR
 * prefixed by a single quote so spreadsheets do not run it as a formula. */
void        cs_report_append_csv_text         (GString              *out,
                                               const char           *text);

/* Writes all of @data to @fd, through short writes and EINTR; errno is set
 * when it returns FALSE. For the report and history files. */
gboolean    cs_report_write_all               (int                   fd,
                                               const void           *data,
                                               gsize                 len);

G_END_DECLS
