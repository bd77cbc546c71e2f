/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * When to kill a process that copies, so that a kill test proves something.
 *
 * The test times one whole run first and spreads @n kills over it. On a busy
 * machine a run's start and length drift from the timed one, so every kill
 * may land before the copy writes or after it has finished; while none has
 * landed in the middle, up to ten more close in between the latest kill that
 * came too early and the earliest that came too late.
 *
 *   CsKillPlan plan;
 *   guint delay_ms;
 *
 *   cs_kill_plan_init (&plan, n);
 *   while (cs_kill_plan_next (&plan, spread_ms_for (plan.k), &delay_ms))
 *     { …spawn, sleep delay_ms, kill, look… cs_kill_plan_landed (&plan, delay_ms, where); }
 *   g_assert_cmpuint (plan.mid, >=, 1);
 */

typedef enum {
  CS_KILL_TOO_EARLY,    /* nothing was written yet */
  CS_KILL_MID,          /* it landed while the copy was under way */
  CS_KILL_TOO_LATE,     /* the copy had finished, or the process had exited */
} CsKillLanding;

typedef struct {
  guint n;              /* kills spread over the timed run */
  guint k;              /* kills made so far */
  guint mid;            /* of them, landed mid-copy */
  guint too_early;      /* the latest delay that came too early, ms */
  guint too_late;       /* the earliest that came too late, G_MAXUINT for none */
} CsKillPlan;

void      cs_kill_plan_init    (CsKillPlan    *plan,
                                guint          n);
/* Whether to kill once more, and after how long: @spread_ms, the caller's
 * moment for kill number plan->k of the @n, or one closing in. */
gboolean  cs_kill_plan_next    (CsKillPlan    *plan,
                                guint          spread_ms,
                                guint         *out_delay_ms);
void      cs_kill_plan_landed  (CsKillPlan    *plan,
                                guint          delay_ms,
                                CsKillLanding  landing);

G_END_DECLS
