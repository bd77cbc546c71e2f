/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "cs-run.h"

G_BEGIN_DECLS

/* A deterministic run: fixed id, start time, samples, thread change, totals
 * and one failure, so report output can be compared byte for byte. */
CsRun *fixture_run             (const char   *label,
                                const char   *id,
                                guint         threads,
                                double        scale);

/* A run whose statistics are exactly @avg, @min and @max for the counters
 * where they are not NaN; other counters have no data. */
CsRun *fixture_run_with_stats  (const char   *label,
                                const double  avg[CS_N_COUNTERS],
                                const double  min[CS_N_COUNTERS],
                                const double  max[CS_N_COUNTERS]);

/* Replaces the random id of @run (through its JSON form). */
CsRun *fixture_run_set_id      (CsRun        *run,
                                const char   *id);

/* Where the workers' time went, recorded as the sampler would (the engine
 * does not yet): @workers workers for 2 s in 8 samples, each worker's lane
 * with five changes, and open and write latencies. Totals: opening
 * workers/2 s, writing 9 workers/8 s, waiting 3 workers/8 s. */
void   fixture_add_phases      (CsRun        *run,
                                guint         workers);

G_END_DECLS
