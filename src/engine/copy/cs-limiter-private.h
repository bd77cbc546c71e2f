/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * A speed limit the workers honour: a token bucket refilled at the limit's
 * rate (bytes per second, or files per second), changeable while it runs.
 *
 * A worker takes what it is about to copy before each request and waits, on
 * the limiter's own condition with nothing else held, while the bucket is in
 * debt. The bucket holds at most a tenth of a second's worth, so a copy that
 * was held back (a pause, a slow file) does not rush ahead afterwards, and a
 * new limit shows within that tenth. A waiting worker looks again at least
 * ten times a second, so a stop or a change reaches it at once.
 */

#include <glib.h>
#include <stdatomic.h>

#include "cs-tsan-private.h"

G_BEGIN_DECLS

typedef struct {
  GMutex       lock;
  GCond        cond;
  double       rate;          /* units per second; 0: no limit */
  double       tokens;        /* may be negative: a debt the next taker waits out */
  gint64       refilled;      /* monotonic µs of the last refill */
  atomic_int   on;            /* rate > 0, read without the lock on the hot path */
  atomic_int   stopped;
  atomic_llong last_wait;     /* monotonic µs when a taker last had to wait; 0: never */
} CsLimiter;

void      _cs_limiter_init          (CsLimiter  *limiter);
void      _cs_limiter_clear         (CsLimiter  *limiter);
/* any thread: @rate units per second, 0 for none. Waiting takers see it at once. */
void      _cs_limiter_set           (CsLimiter  *limiter,
                                     double      rate);
double    _cs_limiter_get           (CsLimiter  *limiter);
/* any thread: wakes every taker for good; later takes return FALSE at once. */
void      _cs_limiter_stop          (CsLimiter  *limiter);
/* any thread: takes @amount, waiting while the bucket is in debt. FALSE when
 * the limiter was stopped meanwhile. Holds no lock of the caller's. */
gboolean  _cs_limiter_take          (CsLimiter  *limiter,
                                     double      amount);
/* Gives back what a request did not use (it moved less than it took). */
void      _cs_limiter_refund        (CsLimiter  *limiter,
                                     double      amount);
/* The most a request should move at once under the limit (a tenth of a
 * second's worth, at least @floor), or @ceiling when there is no limit. */
guint64   _cs_limiter_request_size  (CsLimiter  *limiter,
                                     guint64     floor,
                                     guint64     ceiling);
/* Whether a taker had to wait within the last @window_us. */
gboolean  _cs_limiter_held_back     (CsLimiter  *limiter,
                                     gint64      window_us);

static inline gboolean
_cs_limiter_is_on (CsLimiter *limiter)
{
  return atomic_load_explicit (&limiter->on, memory_order_relaxed) != 0;
}

G_END_DECLS
