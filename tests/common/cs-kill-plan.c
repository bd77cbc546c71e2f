/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cs-kill-plan.h"

/* Kills after the @n spread ones, looking for one in the middle. */
#define CLOSING_IN 10

void
cs_kill_plan_init (CsKillPlan *plan,
                   guint       n)
{
  *plan = (CsKillPlan) { .n = n, .too_late = G_MAXUINT };
}

gboolean
cs_kill_plan_next (CsKillPlan *plan,
                   guint       spread_ms,
                   guint      *out_delay_ms)
{
  if (plan->k < plan->n)
    *out_delay_ms = spread_ms;
  else if (plan->mid > 0 || plan->k >= plan->n + CLOSING_IN)
    return FALSE;
  else if (plan->too_late == G_MAXUINT)
    *out_delay_ms = plan->too_early * 2 + 10;
  else
    *out_delay_ms = (plan->too_early + plan->too_late) / 2;
  return TRUE;
}

void
cs_kill_plan_landed (CsKillPlan    *plan,
                     guint          delay_ms,
                     CsKillLanding  landing)
{
  plan->k++;
  if (landing == CS_KILL_MID)
    plan->mid++;
  else if (landing == CS_KILL_TOO_LATE)
    plan->too_late = MIN (plan->too_late, delay_ms);
  else
    plan->too_early = MAX (plan->too_early, delay_ms);
}
