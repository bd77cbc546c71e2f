/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <json-glib/json-glib.h>

#include "cs-compare.h"
#include "cs-run.h"

G_BEGIN_DECLS

/*
 * Where the workers' time went, in the reports (cs-phases.h): the share of
 * worker-time and the worker-time per file by phase, and the latency
 * percentiles per request kind, computed once here and written by each
 * format's writer with one call. A run without phase data says so; it is
 * never shown as zeros.
 */

typedef struct {
  gboolean            known;                      /* FALSE: no phase data */
  double              seconds[CS_PHASE_N];        /* worker-seconds */
  double              total;
  double              share[CS_PHASE_N];          /* of total, 0 … 1 */
  guint64             files;                      /* files copied */
  double              per_file[CS_PHASE_N];       /* worker-seconds a file; NaN: no files */
  /* Ready to run but waiting for a processor (CsPhaseBucket.runnable): it
   * overlaps the phases, so it is a share of the same total, not a row of
   * them. FALSE: not measured, never shown as 0. */
  gboolean            runnable_known;
  double              runnable;                   /* worker-seconds */
  double              runnable_share;             /* of total, 0 … 1 */
  gboolean            latency_known[CS_LATENCY_N];
  CsLatencyHistogram  latency[CS_LATENCY_N];
} CsPhaseBreakdown;

/* The percentiles every export gives, as fio prints them. */
#define CS_REPORT_N_PERCENTILES 3
extern const double cs_report_percentiles[CS_REPORT_N_PERCENTILES];   /* 50, 90, 99 */

void      _cs_report_phase_breakdown (CsRun            *run,
                                      CsPhaseBreakdown *out);
/* The runnable share as the reports say it ("Waiting for a processor:
 * 41 % of worker time (3.25 worker-s)", or "…: not measured"); NULL for a
 * run without phase data. */
char     *_cs_report_runnable_sentence (const CsPhaseBreakdown *b);
/* Whether any run of @compare has phases or latencies to show. */
gboolean  _cs_report_phases_any      (CsCompare        *compare);

/* Each format's section; nothing when no run has phase data. */
void      _cs_report_phases_md       (GString          *out,
                                      CsCompare        *compare);
void      _cs_report_phases_html     (GString          *out,
                                      CsCompare        *compare);
/* The member "where_time_goes" of @object: per run, null or the breakdown. */
void      _cs_report_phases_json     (JsonObject       *object,
                                      CsCompare        *compare);

G_END_DECLS
