/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-limiter"

#include "config.h"

#include "cs-limiter-private.h"
#include "cs-worker-phase-private.h"

/* The bucket's depth and the longest a taker sleeps before it looks again. */
#define BURST_SECONDS  0.1
#define MAX_WAIT_US    (G_USEC_PER_SEC / 10)

void
_cs_limiter_init (CsLimiter *limiter)
{
  g_mutex_init (&limiter->lock);
  g_cond_init (&limiter->cond);
  limiter->rate = 0;
  limiter->tokens = 0;
  limiter->refilled = 0;
  atomic_init (&limiter->on, 0);
  atomic_init (&limiter->stopped, 0);
  atomic_init (&limiter->last_wait, 0);
}

void
_cs_limiter_clear (CsLimiter *limiter)
{
  g_mutex_clear (&limiter->lock);
  g_cond_clear (&limiter->cond);
}

static double
burst (double rate)
{
  return MAX (rate * BURST_SECONDS, 1.0);
}

/* lock held */
static void
refill_locked (CsLimiter *limiter,
               gint64     now)
{
  if (limiter->refilled != 0 && limiter->rate > 0)
    limiter->tokens = MIN (limiter->tokens + (double) (now - limiter->refilled) / G_USEC_PER_SEC * limiter->rate,
                           burst (limiter->rate));
  limiter->refilled = now;
}

void
_cs_limiter_set (CsLimiter *limiter,
                 double     rate)
{
  gint64 now = g_get_monotonic_time ();

  _cs_mutex_lock (&limiter->lock);
  refill_locked (limiter, now);
  /* A new limit starts from an empty bucket: the first request goes at
   * once, the next waits for it. */
  if (limiter->rate <= 0 && rate > 0)
    limiter->tokens = 0;
  limiter->rate = MAX (rate, 0);
  /* A debt run up at a lower limit is not paid at the higher one, and a
   * lower limit starts from a full bucket of its own size, not the old one's. */
  if (limiter->rate > 0)
    limiter->tokens = CLAMP (limiter->tokens, -burst (limiter->rate), burst (limiter->rate));
  atomic_store (&limiter->on, limiter->rate > 0);
  g_cond_broadcast (&limiter->cond);
  _cs_mutex_unlock (&limiter->lock);
}

double
_cs_limiter_get (CsLimiter *limiter)
{
  g_autoptr(CsMutexLocker) locker = _cs_mutex_locker_new (&limiter->lock);

  return limiter->rate;
}

void
_cs_limiter_stop (CsLimiter *limiter)
{
  _cs_mutex_lock (&limiter->lock);
  atomic_store (&limiter->stopped, 1);
  g_cond_broadcast (&limiter->cond);
  _cs_mutex_unlock (&limiter->lock);
}

gboolean
_cs_limiter_take (CsLimiter *limiter,
                  double     amount)
{
  gboolean ok = TRUE;
  CsPhase was = CS_PHASE_N;

  if (!_cs_limiter_is_on (limiter))
    return !atomic_load (&limiter->stopped);

  _cs_mutex_lock (&limiter->lock);
  for (;;)
    {
      gint64 now = g_get_monotonic_time ();
      gint64 wait_us;

      if (atomic_load (&limiter->stopped))
        {
          ok = FALSE;
          break;
        }
      if (limiter->rate <= 0)
        break;
      refill_locked (limiter, now);
      if (limiter->tokens >= 0)
        {
          limiter->tokens -= amount;
          break;
        }
      wait_us = (gint64) (-limiter->tokens / limiter->rate * G_USEC_PER_SEC) + 1;
      atomic_store_explicit (&limiter->last_wait, now, memory_order_relaxed);
      if (was == CS_PHASE_N)
        was = _cs_worker_phase_set (CS_PHASE_LIMITED);
      _cs_cond_wait_until (&limiter->cond, &limiter->lock, now + MIN (wait_us, MAX_WAIT_US));
    }
  _cs_mutex_unlock (&limiter->lock);
  _cs_worker_phase_restore (was);

  return ok;
}

void
_cs_limiter_refund (CsLimiter *limiter,
                    double     amount)
{
  if (amount <= 0 || !_cs_limiter_is_on (limiter))
    return;
  _cs_mutex_lock (&limiter->lock);
  if (limiter->rate > 0)
    limiter->tokens = MIN (limiter->tokens + amount, burst (limiter->rate));
  g_cond_broadcast (&limiter->cond);
  _cs_mutex_unlock (&limiter->lock);
}

guint64
_cs_limiter_request_size (CsLimiter *limiter,
                          guint64    floor,
                          guint64    ceiling)
{
  double rate;

  if (!_cs_limiter_is_on (limiter))
    return ceiling;
  _cs_mutex_lock (&limiter->lock);
  rate = limiter->rate;
  _cs_mutex_unlock (&limiter->lock);
  if (rate <= 0)
    return ceiling;
  return CLAMP ((guint64) (rate * BURST_SECONDS), floor, ceiling);
}

gboolean
_cs_limiter_held_back (CsLimiter *limiter,
                       gint64     window_us)
{
  gint64 last = atomic_load_explicit (&limiter->last_wait, memory_order_relaxed);

  return last != 0 && g_get_monotonic_time () - last < window_us;
}
