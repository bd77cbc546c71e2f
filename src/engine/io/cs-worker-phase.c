/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-worker-phase"

#include "config.h"

#include <string.h>

#include "cs-worker-phase-private.h"

__thread CsWorkerPhase *_cs_worker_phase;

void
_cs_worker_phase_init (CsWorkerPhase *w,
                       CsPhase        phase,
                       guint64        now)
{
  memset (w, 0, sizeof *w);
  atomic_store_explicit (&w->phase, phase, memory_order_relaxed);
  atomic_store_explicit (&w->since_ns, now, memory_order_relaxed);
  atomic_store_explicit (&w->ring[0].ns, now, memory_order_relaxed);
  atomic_store_explicit (&w->ring[0].phase, phase, memory_order_relaxed);
  atomic_store_explicit (&w->ring_head, 1, memory_order_release);
}

void
_cs_worker_phase_read (CsWorkerPhase *w,
                       guint64        now,
                       guint64        out_ns[CS_PHASE_N])
{
  for (;;)
    {
      guint seq = atomic_load_explicit (&w->seq, memory_order_acquire);
      CsPhase phase;
      guint64 since;

      /* Its worker is between the two stores; it may have been preempted
       * there, on a machine with fewer cores than workers. */
      if (seq & 1)
        {
          g_thread_yield ();
          continue;
        }
      for (guint p = 0; p < CS_PHASE_N; p++)
        out_ns[p] = atomic_load_explicit (&w->ns[p], memory_order_relaxed);
      phase = atomic_load_explicit (&w->phase, memory_order_relaxed);
      since = atomic_load_explicit (&w->since_ns, memory_order_relaxed);
      atomic_thread_fence (memory_order_acquire);
      if (atomic_load_explicit (&w->seq, memory_order_relaxed) != seq)
        continue;
      /* The phase it is in now counts up to @now, read after the worker's
       * own clock: a change a moment later is in the next read. */
      if (phase < CS_PHASE_N && now > since)
        out_ns[phase] += now - since;
      return;
    }
}

guint
_cs_worker_phase_drain (CsWorkerPhase       *w,
                        CsWorkerPhaseChange *out,
                        guint                max_changes)
{
  guint head = atomic_load_explicit (&w->ring_head, memory_order_acquire);
  guint tail = w->ring_tail;
  guint n = 0;

  if (head - tail > CS_WORKER_PHASE_RING)
    tail = head - CS_WORKER_PHASE_RING;
  if (head - tail > max_changes)
    tail = head - max_changes;
  for (guint i = tail; i != head; i++)
    {
      out[n].ns = atomic_load_explicit (&w->ring[i % CS_WORKER_PHASE_RING].ns, memory_order_relaxed);
      out[n].phase = atomic_load_explicit (&w->ring[i % CS_WORKER_PHASE_RING].phase, memory_order_relaxed);
      n++;
    }
  /* What the worker overwrote while it was read (it lapped the ring) is
   * dropped: the entries before the new head's lap. */
  atomic_thread_fence (memory_order_acquire);
  {
    guint now_head = atomic_load_explicit (&w->ring_head, memory_order_relaxed);
    guint lost = now_head - tail > CS_WORKER_PHASE_RING ? now_head - tail - CS_WORKER_PHASE_RING : 0;

    lost = MIN (lost, n);
    memmove (out, out + lost, (n - lost) * sizeof *out);
    n -= lost;
  }
  w->ring_tail = head;

  return n;
}
