/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "cs-run.h"

G_BEGIN_DECLS

/*
 * Where the workers' time went, as a timeline the profilers open: Chrome's
 * Trace Event JSON (Perfetto, chrome://tracing) and a Sysprof capture. One
 * lane per worker from the record's lanes (its last seconds), and counters
 * from its time by phase over the whole run. A run without phase data has
 * nothing to trace: an error says so.
 */

/* Trace Event Format, JSON Object Format: {"traceEvents": […], …}. Each
 * lane a thread (tid = worker + 1) with a "thread_name" metadata event and
 * "X" complete events, ts and dur in µs; "C" counter events "Workers by
 * phase" (the mean workers in each phase over each sample) and
 * "Worker-seconds by phase" (running sums, ending at the record's totals). */
GBytes *_cs_report_trace_render   (CsRun   *run,
                                   GError **error);

/* A Sysprof capture: a mark per lane change (group "Worker N"), and the
 * counters above. Fails when built without libsysprof-capture. */
GBytes *_cs_report_sysprof_render (CsRun   *run,
                                   GError **error);

G_END_DECLS
