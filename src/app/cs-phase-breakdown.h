/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "cs-run.h"

G_BEGIN_DECLS

#define CS_TYPE_PHASE_BREAKDOWN (cs_phase_breakdown_get_type ())
G_DECLARE_FINAL_TYPE (CsPhaseBreakdown, cs_phase_breakdown, CS, PHASE_BREAKDOWN, GtkWidget)

/* Shows @run's time by phase and its request latencies; hides itself when
 * the run has neither. NULL empties it. */
void cs_phase_breakdown_set_run (CsPhaseBreakdown *self,
                                 CsRun            *run);

/* For a duration in nanoseconds: "850 ns", "42 µs", "5.8 ms", "1.25 s". */
char *_cs_phase_breakdown_format_ns (double ns);

G_END_DECLS
