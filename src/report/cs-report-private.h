/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "cs-chart.h"
#include "cs-compare.h"

G_BEGIN_DECLS

/*
 * What the report's writers share: the tables, built once from the runs by
 * cs-report.c and written by each format's file (cs-report-md.c,
 * cs-report-html.c), the chart, and one writer per text format. Main thread
 * or any one thread at a time: nothing here is shared between threads.
 */

typedef enum {
  CS_CELL_PLAIN  = 0,
  CS_CELL_NUMBER = 1 << 0,   /* right-aligned */
  CS_CELL_BEST   = 1 << 1,   /* the best of its row: bold */
  CS_CELL_PATH   = 1 << 2,   /* a path: may break anywhere */
} CsCellFlags;

typedef struct {
  char        *text;
  CsCellFlags  flags;
} CsReportCell;

/* The header row first, then the body, row by row. */
typedef struct {
  GArray   *cells;         /* CsReportCell */
  guint     n_columns;     /* 0 until the header is complete */
  gboolean  row_headers;   /* the first cell of each body row names the row */
} CsReportTable;

CsReportTable *_cs_report_table_new               (gboolean             row_headers);
void           _cs_report_table_free              (CsReportTable       *table);
/* Takes @text. */
void           _cs_report_table_take              (CsReportTable       *table,
                                                   CsCellFlags          flags,
                                                   char                *text);
void           _cs_report_table_add               (CsReportTable       *table,
                                                   CsCellFlags          flags,
                                                   const char          *text);
void           _cs_report_table_end_header        (CsReportTable       *table);
gboolean       _cs_report_table_column_is_numeric (const CsReportTable *table,
                                                   guint                column);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CsReportTable, _cs_report_table_free)

/* Settings, environment and method: one column per run. */
CsReportTable *_cs_report_info_table              (CsCompare           *compare);
CsReportTable *_cs_report_totals_table            (CsCompare           *compare);
/* The first failures of all runs (a human-readable report lists at most
 * 1,000), or with @notes their notes; NULL when there are none. @out_more:
 * how many are left out. */
CsReportTable *_cs_report_failures_table          (CsCompare           *compare,
                                                   gboolean             notes,
                                                   guint               *out_more);
/* Every counter: average, minimum and maximum of one run, or the averages of
 * several side by side with the best marked. */
CsReportTable *_cs_report_counters_table          (CsCompare           *compare);
/* One statistic of one run's counter with its precision; "—" when the run
 * has none. */
char          *_cs_report_stat_cell               (CsCompare           *compare,
                                                   CsCounter            counter,
                                                   CsCompareStat        which,
                                                   guint                run);

/* @value with printf's @fmt in the C locale. */
char          *_cs_report_format_fixed            (const char          *fmt,
                                                   double               value);
/* What the units mean, under the settings of every human-readable report. */
extern const char _cs_report_units_note[];

/* The throughput chart of every run. */
GBytes        *_cs_report_render_chart            (CsCompare           *compare,
                                                   CsPlotFormat         format,
                                                   double               width,
                                                   double               height,
                                                   GError             **error);

char          *_cs_report_render_markdown         (CsCompare           *compare);
char          *_cs_report_render_html             (CsCompare           *compare,
                                                   GError             **error);
char          *_cs_report_render_json             (CsCompare           *compare);

/* A name or label in a table cell: Markdown's escaping (cs-report-md.c),
 * HTML's (cs-report-html.c); every section of those reports uses them. */
void   _cs_report_append_md   (GString    *out,
                               const char *text);
void   _cs_report_append_html (GString    *out,
                               const char *text);

G_END_DECLS
