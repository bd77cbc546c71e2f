/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * What the job uses to record a run. Every function is safe from any thread:
 * the run holds its own lock. Strings are copied.
 */

#include "cs-run.h"

G_BEGIN_DECLS

/* Errors beyond this many are counted, not kept, so a run record stays bounded. */
#define CS_RUN_MAX_ERRORS 10000
/* Events too (pauses, questions, limit changes, resumed files): the reader
 * takes no more, so the record keeps what it can read back. */
#define CS_RUN_MAX_EVENTS 10000

void _cs_run_set_kind          (CsRun                  *run,
                                const char             *kind);
void _cs_run_set_sources       (CsRun                  *run,
                                const char * const     *sources);
void _cs_run_set_destination   (CsRun                  *run,
                                const char             *destination);
void _cs_run_set_settings      (CsRun                  *run,
                                const CsRunSettings    *settings);
void _cs_run_set_environment   (CsRun                  *run,
                                const CsRunEnvironment *environment);
void _cs_run_set_started       (CsRun                  *run,
                                gint64                  unix_usec);
void _cs_run_set_duration      (CsRun                  *run,
                                double                  seconds);
void _cs_run_set_held          (CsRun                  *run,
                                double                  seconds);
void _cs_run_add_sample        (CsRun                  *run,
                                const CsSample         *sample);
/* The closing sample, made again over a short last piece and the one before. */
void _cs_run_replace_last_sample (CsRun                *run,
                                  const CsSample       *sample);
void _cs_run_add_thread_change (CsRun                  *run,
                                double                  t,
                                guint                   from,
                                guint                   to,
                                const char             *reason);
/* @event's strings are copied; its path is in the filename encoding. */
void _cs_run_add_event         (CsRun                  *run,
                                const CsRunEvent       *event);
/* @path is in the filename encoding; the run stores a display form and, when
 * it is not valid UTF-8, the exact bytes in base64. */
void _cs_run_add_error         (CsRun                  *run,
                                const char             *path,
                                const char             *operation,
                                int                     error_code,
                                const char             *message,
                                guint                   attempts);
/* As _cs_run_add_error (), for a note (CsRunError.note). */
void _cs_run_add_note          (CsRun                  *run,
                                const char             *path,
                                const char             *operation,
                                int                     error_code,
                                const char             *message);
void _cs_run_set_totals        (CsRun                  *run,
                                const CsTotals         *totals);
void _cs_run_set_removals      (CsRun                  *run,
                                const CsRemovals       *removals);
void _cs_run_set_skips         (CsRun                  *run,
                                const CsSkips          *skips);
void _cs_run_set_manifest      (CsRun                  *run,
                                const CsRunManifest    *manifest);
void _cs_run_set_outcome       (CsRun                  *run,
                                const char             *outcome,
                                const char             *fatal_error);

/*
 * Where the workers' time went (cs-phases.h). The sampler calls these; the
 * workers never do (they keep their phase changes in their own memory and
 * the sampler hands them over).
 *
 * The worker-seconds each phase took in (previous phase sample's t, @t],
 * called after _cs_run_add_sample () with the same t. @t must grow.
 */
void _cs_run_add_phase_sample  (CsRun                  *run,
                                double                  t,
                                const double            seconds[CS_PHASE_N]);
/* After _cs_run_replace_last_sample (): the closing piece made again. */
void _cs_run_replace_last_phase_sample (CsRun          *run,
                                        double          t,
                                        const double    seconds[CS_PHASE_N]);
/* After either of those, when the kernel keeps run_delay: the
 * worker-seconds the workers were ready to run but waited for a processor
 * over the same interval (CsPhaseBucket.runnable). The run then counts as
 * measured; one that never calls this reads "not measured", not 0. */
void _cs_run_set_phase_runnable (CsRun                 *run,
                                 double                 runnable);
/* Worker @worker (< CS_PHASE_MAX_WORKERS) changed phase at each of
 * @changes' times (seconds since the run started, growing). The lane keeps
 * the last CS_PHASE_LANE_SECONDS, at most CS_PHASE_LANE_MAX_CHANGES. */
void _cs_run_add_phase_changes (CsRun                  *run,
                                guint                   worker,
                                const CsPhaseChange    *changes,
                                guint                   n_changes);
/* A worker's (or the job's) latencies of one request kind, added to the
 * run's: call once per worker at the end, or whenever, as they add up. */
void _cs_run_add_latency       (CsRun                  *run,
                                CsLatencyKind           kind,
                                const CsLatencyHistogram *histogram);

void _cs_run_settings_copy     (CsRunSettings          *dest,
                                const CsRunSettings    *src);
void _cs_run_settings_clear    (CsRunSettings          *settings);
void _cs_run_environment_copy  (CsRunEnvironment       *dest,
                                const CsRunEnvironment *src);
void _cs_run_environment_clear (CsRunEnvironment       *environment);

G_END_DECLS
