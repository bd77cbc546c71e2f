/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * How responsive the main loop stays: a timeout every CS_LOOP_PROBE_INTERVAL_MS
 * on the thread-default main context records how late it fires. The lateness
 * of a tick is the time the loop spent on something else: a handler, a layout,
 * a frame. Switched on for copies started from the window by the environment
 * variable COPYSCOPE_LOOP_PROBE=1; bench/window and the window tests read it.
 */

#define CS_LOOP_PROBE_INTERVAL_MS 10

typedef struct _CsLoopProbe CsLoopProbe;

typedef enum {
  CS_LOOP_PROBE_LATENESS,   /* how late each tick fired */
  CS_LOOP_PROBE_BUSY,       /* the main thread's CPU time between two ticks: the
                             * lateness that was work, not waiting for a CPU
                             * behind other threads and processes */
} CsLoopProbeSeries;

gboolean     cs_loop_probe_requested      (void);
CsLoopProbe *cs_loop_probe_new            (void);
void         cs_loop_probe_stop           (CsLoopProbe *self);
void         cs_loop_probe_free           (CsLoopProbe *self);
guint        cs_loop_probe_get_n_ticks    (CsLoopProbe *self);
/* In microseconds; 0 before the second tick. BUSY needs the scheduler's
 * per-thread accounting (/proc/thread-self/schedstat) and is 0 without it. */
gint64       cs_loop_probe_get_max        (CsLoopProbe       *self,
                                           CsLoopProbeSeries  which);
gint64       cs_loop_probe_get_percentile (CsLoopProbe       *self,
                                           CsLoopProbeSeries  which,
                                           double             percentile);
/* One line for logs and scripts: "loop-probe: ticks=N max_ms=X p99_ms=Y
 * p50_ms=Z seconds=S busy_max_ms=B busy_p99_ms=P", once stopped also
 * "cpu_ms=C cpu_wait_ms=W": the main thread's time on a CPU and waiting for one. */
char        *cs_loop_probe_describe       (CsLoopProbe *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CsLoopProbe, cs_loop_probe_free)

G_END_DECLS
