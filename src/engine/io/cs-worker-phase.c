/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-worker-phase"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cs-worker-phase-private.h"

__thread CsWorkerPhase *_cs_worker_phase;

static const char *_Atomic task_dir;

void
_cs_run_delay_set_task_dir (const char *dir)
{
  /* Interned: a thread may still be formatting a path with the old one,
   * and none is ever freed. */
  atomic_store (&task_dir, g_intern_string (dir));
}

gboolean
_cs_run_delay_parse (const char *text,
                     gsize       len,
                     guint64    *out_run_delay,
                     guint64    *out_timeslices)
{
  char buf[96];
  char *end;
  const char *p;
  guint64 fields[3];

  if (len == 0 || len >= sizeof buf)
    return FALSE;
  memcpy (buf, text, len);
  buf[len] = '\0';
  p = buf;
  for (guint i = 0; i < 3; i++)
    {
      while (*p == ' ')
        p++;
      if (!g_ascii_isdigit (*p))
        return FALSE;
      errno = 0;
      fields[i] = g_ascii_strtoull (p, &end, 10);
      if (errno != 0 || end == p)
        return FALSE;
      p = end;
    }
  /* Every thread that could open the file has run at least once: no
   * timeslice at all is a kernel that keeps none of this. */
  if (fields[2] == 0)
    return FALSE;
  *out_run_delay = fields[1];
  if (out_timeslices != NULL)
    *out_timeslices = fields[2];
  return TRUE;
}

static gboolean
run_delay_pread (int      fd,
                 guint64 *out_run_delay)
{
  char buf[96];
  ssize_t n;

  do
    n = pread (fd, buf, sizeof buf - 1, 0);
  while (n < 0 && errno == EINTR);
  return n > 0 && _cs_run_delay_parse (buf, (gsize) n, out_run_delay, NULL);
}

void
_cs_run_delay_open (CsRunDelay *d,
                    const char *path)
{
  d->fd = open (path, O_RDONLY | O_CLOEXEC);
  d->base = d->last = 0;
  if (d->fd < 0)
    return;
  if (!run_delay_pread (d->fd, &d->base))
    {
      _cs_run_delay_close (d);
      return;
    }
  d->last = d->base;
}

int
_cs_run_delay_tid (void)
{
  return (int) syscall (SYS_gettid);
}

void
_cs_run_delay_open_thread (CsRunDelay *d,
                           int         tid)
{
  const char *dir = atomic_load (&task_dir);
  g_autofree char *path = g_strdup_printf ("%s/%d/schedstat",
                                           dir != NULL ? dir : "/proc/self/task", tid);

  _cs_run_delay_open (d, path);
}

guint64
_cs_run_delay_read (CsRunDelay *d)
{
  guint64 now;

  if (d->fd < 0)
    return d->last - d->base;
  /* The thread ended: what it waited up to its last read stays counted,
   * and its file is read no more. */
  if (!run_delay_pread (d->fd, &now))
    _cs_run_delay_close (d);
  else if (now > d->last)
    d->last = now;
  return d->last - d->base;
}

double
_cs_run_delay_spread (double   *carry,
                      double    runnable,
                      double    room,
                      gboolean  final)
{
  double value = MAX (runnable, 0.0) + *carry;
  double out = final ? value : MIN (value, MAX (room, 0.0));

  *carry = value - out;
  return out;
}

void
_cs_run_delay_close (CsRunDelay *d)
{
  if (d->fd >= 0)
    close (d->fd);
  d->fd = -1;
}

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
  w->tid = _cs_run_delay_tid ();
  _cs_run_delay_open_thread (&w->run_delay, w->tid);
}

void
_cs_worker_phase_clear (CsWorkerPhase *w)
{
  _cs_run_delay_close (&w->run_delay);
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
