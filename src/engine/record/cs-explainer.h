/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "cs-run.h"

G_BEGIN_DECLS

/*
 * What limits a copy now, in one sentence, and what the last change of the
 * thread count did, from the samples the copy takes: the window's line under
 * its live graph. Pure: it keeps what it was given and reads no clock, so a
 * table of samples gives the same sentences every time (tests feed them).
 *
 * The sentence says only what the samples show. The processors busy at
 * CS_EXPLAINER_BUSY_CPU % and more, and the copy itself using at least
 * CS_EXPLAINER_OWN_CPU % of them (where its own share is known): more threads
 * cannot help. Processors kept busy by other programs say nothing of what
 * more threads do for the copy: a share's round trips still overlap. Files of a
 * megabyte and more: bandwidth. Smaller files: the requests each costs, and
 * on a network share where a request takes CS_EXPLAINER_ROUND_TRIP_MS or
 * more (a round trip each), that more threads overlap those waits. (On a
 * local disk a request that long is one waiting for a processor.) The effect of a
 * thread change is told once each side of it has run
 * CS_EXPLAINER_SETTLED seconds at its count (after the first
 * CS_EXPLAINER_SETTLE seconds of the new one): files per second before and
 * after, or megabytes per second for large files.
 *
 * Given the workers' time by phase too (cs_explainer_push_phases), it says
 * what that time shows, first match wins: workers waiting for a processor
 * CS_EXPLAINER_RUNNABLE of their time or more (where that is measured; the
 * CPU % rule above where it is not); for large files, reading and writing
 * CS_EXPLAINER_DATA of it; waiting for work CS_EXPLAINER_WAITING of it (the
 * folder listing feeds them too slowly, or once the scan has ended, the last
 * files are on their way); on a share, in requests (each a
 * round trip: every phase of a request but reading, which is the source's)
 * CS_EXPLAINER_SERVER of it. Without phases, the rules above.
 *
 * It never contradicts the thread change shown beside it (the latest one
 * measured): while that says more threads made the copy faster by
 * CS_EXPLAINER_SAME or more, "more threads won't help" becomes "more than N
 * threads won't help", N the most threads measured; while it says they did
 * not, "more threads overlap the waits" becomes "the server is the limit".
 */

#define CS_EXPLAINER_WINDOW        3.0
#define CS_EXPLAINER_BUSY_CPU      90.0
#define CS_EXPLAINER_OWN_CPU       50.0
#define CS_EXPLAINER_ROUND_TRIP_MS 0.5
#define CS_EXPLAINER_SETTLE        1.0
#define CS_EXPLAINER_SETTLED       1.5
/* Within this share of each other, two rates are "no faster". */
#define CS_EXPLAINER_SAME          0.05
/* Shares of the workers' time (paused excluded) that name the limit. */
#define CS_EXPLAINER_RUNNABLE      0.30
#define CS_EXPLAINER_DATA          0.50
#define CS_EXPLAINER_WAITING       0.50
#define CS_EXPLAINER_SERVER        0.50

typedef struct _CsExplainer CsExplainer;

CsExplainer *cs_explainer_new          (void);
void         cs_explainer_free         (CsExplainer    *explainer);
void         cs_explainer_reset        (CsExplainer    *explainer);

void         cs_explainer_push         (CsExplainer    *explainer,
                                        const CsSample *sample);
/* The workers' time by phase over a sample's interval (cs_run_dup_phase_series
 * gives them, one per sample, with the sample's t); in any order with
 * cs_explainer_push (), each bucket once, oldest first. */
void         cs_explainer_push_phases  (CsExplainer         *explainer,
                                        const CsPhaseBucket *bucket);
/* Whether the destination is a network share (cs_job_get_destination_remote). */
void         cs_explainer_set_remote   (CsExplainer    *explainer,
                                        gboolean        remote);

/* Whether the scan has ended (CsProgress.scanning no longer): workers then
 * wait for work because the last files are on their way, not because the
 * folder listing is slow. Not ended unless set. */
void         cs_explainer_set_scan_ended (CsExplainer *explainer,
                                          gboolean     scan_ended);

/* How many processors the machine has (the process's CPU counter is in % of
 * one); g_get_num_processors () unless set. */
void         cs_explainer_set_processors (CsExplainer *explainer,
                                          guint        processors);

/* What limits the copy over the last CS_EXPLAINER_WINDOW seconds; NULL
 * while nothing moved. Free it. */
char        *cs_explainer_dup_limit    (CsExplainer    *explainer);

/* What the latest thread change did, like "8 → 16 threads: files/s +35 %";
 * NULL until both sides of it have been measured. Free it. */
char        *cs_explainer_dup_change   (CsExplainer    *explainer);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CsExplainer, cs_explainer_free)

G_END_DECLS
