/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * Which phase a worker is in (cs-phases.h), kept by the worker itself in
 * memory of its own, without locks: the copy's hot path changes phase at
 * every request, so a change costs one clock read and a few stores to a
 * cache line no other thread writes.
 *
 * A worker thread points _cs_worker_phase at its slot for the job it works
 * for; threads without one (the scanner, the controller) record nothing, and
 * the hooks cost them one thread-local load. The I/O seam (cs-io.c) changes
 * the phase by request kind before each request and leaves it there: the
 * work between two requests belongs with the request it follows. The copy
 * sets what no request says (waiting for work, the speed limit, a question,
 * a pause) and puts the phase back after it.
 *
 * The sampler reads a slot's totals under the slot's sequence number: odd
 * while its worker writes, so a read that saw it move is made again. The
 * recent changes go to a ring the sampler drains for the lanes; a sampler
 * that fell behind by a lap keeps only what was not overwritten.
 */

#include <stdatomic.h>
#include <time.h>

#include "cs-phases.h"

G_BEGIN_DECLS

#define CS_WORKER_PHASE_RING 256

/*
 * A thread's time ready to run but not running: the second field of its
 * /proc/self/task/TID/schedstat (run_delay, ns, kept by the scheduler).
 * The worker opens its own file as it takes a slot, before the slot is
 * published, so the descriptor is tied to that thread: once the thread
 * ends, reads fail (ESRCH) instead of showing a later thread that got
 * the same id. The sampler alone reads it afterwards, at offset 0, and
 * counts from @base, the value when it was opened: what the thread
 * waited before (for another job, another pool) is never counted.
 */
typedef struct {
  int     fd;       /* -1: not measured (no file, or the thread is gone) */
  guint64 base;     /* run_delay when opened */
  guint64 last;     /* the sampler's: the latest read, never below base */
} CsRunDelay;

typedef struct {
  guint64 ns;      /* CLOCK_MONOTONIC */
  CsPhase phase;
} CsWorkerPhaseChange;

/* A change in the ring: written by the worker while the sampler may read. */
typedef struct {
  atomic_uint_fast64_t ns;
  atomic_uint          phase;
} CsWorkerPhaseSlotChange;

typedef struct {
  /* Written by the worker only. */
  atomic_uint        seq;
  atomic_uint        phase;
  atomic_uint_fast64_t since_ns;
  atomic_uint_fast64_t ns[CS_PHASE_N];      /* time in each phase before since_ns */
  atomic_uint        ring_head;             /* changes written so far */
  CsWorkerPhaseSlotChange ring[CS_WORKER_PHASE_RING];
  /* Per request kind; read once the worker is done with the job. */
  CsLatencyHistogram latency[CS_LATENCY_N];
  /* The sampler's own: what it read last. */
  guint              ring_tail;
  /* Set by the worker before the slot is published; then the sampler's. */
  int                tid;
  CsRunDelay         run_delay;
} __attribute__ ((aligned (64))) CsWorkerPhase;

extern __thread CsWorkerPhase *_cs_worker_phase;

static inline guint64
_cs_worker_phase_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64) ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + (guint64) ts.tv_nsec;
}

/* The worker, at @now: from now on it is in @phase. Returns the phase it
 * was in. */
static inline CsPhase
_cs_worker_phase_set_at (CsWorkerPhase *w,
                         CsPhase        phase,
                         guint64        now)
{
  CsPhase old = atomic_load_explicit (&w->phase, memory_order_relaxed);
  guint64 since;
  guint seq, head;

  if (old == phase)
    return old;
  since = atomic_load_explicit (&w->since_ns, memory_order_relaxed);
  seq = atomic_load_explicit (&w->seq, memory_order_relaxed);
  atomic_store_explicit (&w->seq, seq + 1, memory_order_relaxed);
  atomic_thread_fence (memory_order_release);
  atomic_store_explicit (&w->ns[old],
                         atomic_load_explicit (&w->ns[old], memory_order_relaxed) + (now > since ? now - since : 0),
                         memory_order_relaxed);
  atomic_store_explicit (&w->since_ns, now > since ? now : since, memory_order_relaxed);
  atomic_store_explicit (&w->phase, phase, memory_order_relaxed);
  atomic_store_explicit (&w->seq, seq + 2, memory_order_release);

  head = atomic_load_explicit (&w->ring_head, memory_order_relaxed);
  atomic_store_explicit (&w->ring[head % CS_WORKER_PHASE_RING].ns, now, memory_order_relaxed);
  atomic_store_explicit (&w->ring[head % CS_WORKER_PHASE_RING].phase, phase, memory_order_relaxed);
  atomic_store_explicit (&w->ring_head, head + 1, memory_order_release);

  return old;
}

/* The calling worker's phase from now on, if it keeps one; returns the one
 * it was in (CS_PHASE_N for a thread without a slot). */
static inline CsPhase
_cs_worker_phase_set (CsPhase phase)
{
  CsWorkerPhase *w = _cs_worker_phase;

  if (w == NULL)
    return CS_PHASE_N;
  return _cs_worker_phase_set_at (w, phase, _cs_worker_phase_now ());
}

/* Back to what _cs_worker_phase_set returned. */
static inline void
_cs_worker_phase_restore (CsPhase phase)
{
  if (phase < CS_PHASE_N)
    _cs_worker_phase_set (phase);
}

/* A new slot, in @phase since @now, with its ring's first change; on the
 * worker thread that takes it, whose id and run_delay it learns. */
void     _cs_worker_phase_init  (CsWorkerPhase *w,
                                 CsPhase        phase,
                                 guint64        now);
/* Frees what the slot holds besides its memory (the schedstat file). */
void     _cs_worker_phase_clear (CsWorkerPhase *w);
/* Sampler: the slot's time in each phase up to @now, read consistently. */
void     _cs_worker_phase_read  (CsWorkerPhase *w,
                                 guint64        now,
                                 guint64        out_ns[CS_PHASE_N]);
/* Sampler: the changes since the last drain, oldest first, at most
 * @max_changes; returns how many. */
guint    _cs_worker_phase_drain (CsWorkerPhase       *w,
                                 CsWorkerPhaseChange *out,
                                 guint                max_changes);

/*
 * run_delay, the pieces tested on their own. _cs_run_delay_parse reads a
 * schedstat line ("exec_ns run_delay_ns timeslices"); a kernel that keeps
 * no scheduler statistics writes "0 0 0", which is no measurement.
 */
gboolean _cs_run_delay_parse     (const char *text,
                                  gsize       len,
                                  guint64    *out_run_delay,
                                  guint64    *out_timeslices);
/* Opens @path and reads the base; d->fd stays -1 where it cannot. */
void     _cs_run_delay_open      (CsRunDelay *d,
                                  const char *path);
/* Sampler: ns waited since it was opened. Never goes down: a read that
 * fails (the thread ended) or shows less keeps the last value. */
guint64  _cs_run_delay_read      (CsRunDelay *d);
void     _cs_run_delay_close     (CsRunDelay *d);
/*
 * The kernel adds a wait to run_delay when it ends, as the thread gets a
 * processor: a worker that waited across a sample boundary has all of it
 * counted in the later sample, which so may get more than its workers
 * could have waited in it (at 64 workers on 2 loaded cores, 3× more).
 * So a sample gets at most @room (its thread count's integral) of
 * @runnable plus what *@carry holds from the ones before, and the rest
 * stays in *@carry for the next; the @final one takes everything left.
 * The run's total stays exact. Returns the sample's worker-seconds.
 */
double   _cs_run_delay_spread    (double     *carry,
                                  double      runnable,
                                  double      room,
                                  gboolean    final);
/* The calling thread's id, and thread @tid's file (in this process). */
int      _cs_run_delay_tid         (void);
void     _cs_run_delay_open_thread (CsRunDelay *d,
                                    int         tid);
/* Where the tasks' folders are, "/proc/self/task" unless a test points
 * it at a folder without them (a machine without schedstat). */
void     _cs_run_delay_set_task_dir (const char *dir);

G_END_DECLS
