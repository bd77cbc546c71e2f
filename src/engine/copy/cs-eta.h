/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "cs-job.h"

G_BEGIN_DECLS

/*
 * The live speed and the time left of a copy, from its progress snapshots: the
 * one estimate the window and the CLI both show. Pure: it keeps what it was
 * given and reads no clock of its own, so any sequence of snapshots gives the
 * same answers (tests feed it tables).
 *
 * Everything is measured on the job's clock (CsProgress.elapsed), which stops
 * while the copy is paused or waits for an answer, so a pause neither drags the
 * speed down nor stretches the time left.
 *
 * The speed is data copied per second (published, or being written) over the
 * last CS_ETA_SPEED_WINDOW seconds. The time left is the files and bytes left
 * at a price per file plus a price per megabyte: what a file costs against a
 * megabyte as the clock's steps tell it best (least squares), scaled so that
 * the steps add up to the time they took, once over the whole copy and once
 * over the last seconds (steps weighed down with CS_ETA_WINDOW seconds' time
 * constant); the two give the range. A tree is copied folder by folder, so the
 * files of the last seconds are seldom like those left: rates of the last
 * seconds alone, by bytes or by files, miss by the difference. While few files
 * are done (large ones first), the price of a file is not known, and when the
 * files left at the pace files went lately would take more than
 * CS_ETA_MAX_SPREAD times as long, only the lower figure is given, as "at
 * least". There is none while the total is not known (the sources are still
 * being scanned and not yet counted ahead), before CS_ETA_MIN_SPAN seconds of
 * copying, or while nothing moved in the last CS_ETA_WINDOW seconds.
 */

#define CS_ETA_SPEED_WINDOW 5.0
#define CS_ETA_WINDOW       10.0
#define CS_ETA_MIN_SPAN     2.0
#define CS_ETA_MAX_SPREAD   4.0

typedef struct _CsEta CsEta;

CsEta   *cs_eta_new        (void);
void     cs_eta_free       (CsEta            *eta);
void     cs_eta_reset      (CsEta            *eta);

/* Feeds one snapshot; snapshots whose clock did not move are ignored. */
void     cs_eta_push       (CsEta            *eta,
                            const CsProgress *progress);

/* Bytes copied per second lately; 0 until the clock has run a moment. */
double   cs_eta_get_speed  (CsEta            *eta);

/* The time left in seconds of the job's clock, as a range; @out_high is
 * INFINITY when only @out_low can be said ("at least"). FALSE while there is
 * no estimate worth showing. */
gboolean cs_eta_get_left   (CsEta            *eta,
                            double           *out_low,
                            double           *out_high);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CsEta, cs_eta_free)

G_END_DECLS
