/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cs-loop-probe.h"

/*
 * A plain timeout rather than the frame clock: the frame clock only ticks while
 * something animates, and a stall matters to input events just as much. The
 * source runs at the default priority, the job's channel's own, so it is
 * dispatched between the job's updates rather than starved by them; what it
 * sees late is the longest piece of work the loop did without a break, or
 * the time its thread waited for a CPU. The scheduler's accounting of the
 * thread's CPU time tells the two apart: the CPU time between two ticks is the
 * work alone, whatever else the machine runs.
 */

struct _CsLoopProbe
{
  GSource *source;
  gint64   started;
  gint64   stopped;
  gint64   expected;   /* when the next tick is due */
  gint64   run_ns;     /* the thread's CPU time and its wait for a CPU, at the start */
  gint64   wait_ns;
  GArray  *lateness;   /* of gint64, microseconds */
  GArray  *busy;       /* of gint64: CPU microseconds between two ticks */
  gint64   tick_run_ns;
  gint64   tick_wait_ns;
  gint64   worst_late;  /* the latest tick: how late, and its CPU and wait, µs */
  gint64   worst_busy;
  gint64   worst_wait;
};

/* The calling thread's time on a CPU and time runnable but waiting for one,
 * from the scheduler's own accounting; FALSE where there is none. */
static gboolean
read_schedstat (gint64 *out_run_ns,
                gint64 *out_wait_ns)
{
  g_autofree char *text = NULL;
  gint64 run_ns, wait_ns;

  if (!g_file_get_contents ("/proc/thread-self/schedstat", &text, NULL, NULL))
    return FALSE;
  if (sscanf (text, "%" G_GINT64_FORMAT " %" G_GINT64_FORMAT, &run_ns, &wait_ns) != 2)
    return FALSE;

  *out_run_ns = run_ns;
  *out_wait_ns = wait_ns;
  return TRUE;
}

gboolean
cs_loop_probe_requested (void)
{
  const char *value = g_getenv ("COPYSCOPE_LOOP_PROBE");

  return value != NULL && *value != '\0' && g_strcmp0 (value, "0") != 0;
}

static gboolean
tick_cb (gpointer data)
{
  CsLoopProbe *self = data;
  gint64 now = g_get_monotonic_time ();

  gint64 run_ns, wait_ns;
  gboolean have_schedstat = self->run_ns >= 0 && read_schedstat (&run_ns, &wait_ns);

  if (self->expected > 0)
    {
      gint64 late = MAX (now - self->expected, 0);

      g_array_append_val (self->lateness, late);
      if (have_schedstat && self->tick_run_ns > 0)
        {
          gint64 busy = (run_ns - self->tick_run_ns) / 1000;

          g_array_append_val (self->busy, busy);
          /* The rest of the worst tick, neither work nor a wait for a CPU,
           * was the thread blocked: in a lock, a read, a round trip. */
          if (late > self->worst_late)
            {
              self->worst_late = late;
              self->worst_busy = busy;
              self->worst_wait = (wait_ns - self->tick_wait_ns) / 1000;
            }
        }
    }
  self->expected = now + CS_LOOP_PROBE_INTERVAL_MS * 1000;
  if (have_schedstat)
    {
      self->tick_run_ns = run_ns;
      self->tick_wait_ns = wait_ns;
    }

  return G_SOURCE_CONTINUE;
}

CsLoopProbe *
cs_loop_probe_new (void)
{
  CsLoopProbe *self = g_new0 (CsLoopProbe, 1);

  self->lateness = g_array_new (FALSE, FALSE, sizeof (gint64));
  self->busy = g_array_new (FALSE, FALSE, sizeof (gint64));
  self->started = g_get_monotonic_time ();
  if (!read_schedstat (&self->run_ns, &self->wait_ns))
    self->run_ns = self->wait_ns = -1;
  self->source = g_timeout_source_new (CS_LOOP_PROBE_INTERVAL_MS);
  g_source_set_priority (self->source, G_PRIORITY_DEFAULT);
  g_source_set_callback (self->source, tick_cb, self, NULL);
  g_source_set_static_name (self->source, "[copyscope] loop probe");
  g_source_attach (self->source, g_main_context_get_thread_default ());

  return self;
}

/* Keeps the figures, stops measuring. */
void
cs_loop_probe_stop (CsLoopProbe *self)
{
  g_return_if_fail (self != NULL);

  if (self->source == NULL)
    return;

  g_source_destroy (self->source);
  g_clear_pointer (&self->source, g_source_unref);
  self->stopped = g_get_monotonic_time ();

  if (self->run_ns >= 0)
    {
      gint64 run_ns, wait_ns;

      if (read_schedstat (&run_ns, &wait_ns))
        {
          self->run_ns = run_ns - self->run_ns;
          self->wait_ns = wait_ns - self->wait_ns;
        }
      else
        self->run_ns = self->wait_ns = -1;
    }
}

void
cs_loop_probe_free (CsLoopProbe *self)
{
  if (self == NULL)
    return;

  cs_loop_probe_stop (self);
  g_array_unref (self->lateness);
  g_array_unref (self->busy);
  g_free (self);
}

guint
cs_loop_probe_get_n_ticks (CsLoopProbe *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->lateness->len;
}

static GArray *
series (CsLoopProbe       *self,
        CsLoopProbeSeries  which)
{
  return which == CS_LOOP_PROBE_BUSY ? self->busy : self->lateness;
}

gint64
cs_loop_probe_get_max (CsLoopProbe       *self,
                       CsLoopProbeSeries  which)
{
  GArray *values;
  gint64 max = 0;

  g_return_val_if_fail (self != NULL, 0);

  values = series (self, which);
  for (guint i = 0; i < values->len; i++)
    max = MAX (max, g_array_index (values, gint64, i));

  return max;
}

static int
compare_gint64 (gconstpointer a,
                gconstpointer b)
{
  gint64 x = *(const gint64 *) a;
  gint64 y = *(const gint64 *) b;

  return (x > y) - (x < y);
}

/* Nearest rank: the smallest tick at or above @percentile % of them all. */
gint64
cs_loop_probe_get_percentile (CsLoopProbe       *self,
                              CsLoopProbeSeries  which,
                              double             percentile)
{
  g_autofree gint64 *sorted = NULL;
  GArray *values;
  guint n, rank;

  g_return_val_if_fail (self != NULL, 0);
  g_return_val_if_fail (percentile >= 0 && percentile <= 100, 0);

  values = series (self, which);
  n = values->len;
  if (n == 0)
    return 0;

  sorted = g_memdup2 (values->data, n * sizeof (gint64));
  qsort (sorted, n, sizeof (gint64), compare_gint64);
  rank = (guint) ceil (percentile / 100.0 * n);

  return sorted[CLAMP (rank, 1, n) - 1];
}

static const char *
ms (char   buffer[G_ASCII_DTOSTR_BUF_SIZE],
    gint64 microseconds)
{
  return g_ascii_formatd (buffer, G_ASCII_DTOSTR_BUF_SIZE, "%.1f", microseconds / 1000.0);
}

char *
cs_loop_probe_describe (CsLoopProbe *self)
{
  char max[G_ASCII_DTOSTR_BUF_SIZE];
  char p99[G_ASCII_DTOSTR_BUF_SIZE];
  char p50[G_ASCII_DTOSTR_BUF_SIZE];
  char seconds[G_ASCII_DTOSTR_BUF_SIZE];
  GString *line;
  gint64 end;

  g_return_val_if_fail (self != NULL, NULL);

  end = self->stopped > 0 ? self->stopped : g_get_monotonic_time ();

  /* Numbers for scripts: the C locale's decimal point, whatever the user's. */
  line = g_string_new (NULL);
  g_string_append_printf (line, "loop-probe: ticks=%u max_ms=%s p99_ms=%s p50_ms=%s seconds=%s",
                          self->lateness->len,
                          ms (max, cs_loop_probe_get_max (self, CS_LOOP_PROBE_LATENESS)),
                          ms (p99, cs_loop_probe_get_percentile (self, CS_LOOP_PROBE_LATENESS, 99)),
                          ms (p50, cs_loop_probe_get_percentile (self, CS_LOOP_PROBE_LATENESS, 50)),
                          g_ascii_formatd (seconds, sizeof seconds, "%.2f",
                                           (end - self->started) / (double) G_USEC_PER_SEC));

  /* A loop can be late because it was busy or because its thread waited for a
   * CPU behind the workers; the scheduler's accounting tells which. */
  if (self->busy->len > 0)
    g_string_append_printf (line, " busy_max_ms=%s busy_p99_ms=%s",
                            ms (max, cs_loop_probe_get_max (self, CS_LOOP_PROBE_BUSY)),
                            ms (p99, cs_loop_probe_get_percentile (self, CS_LOOP_PROBE_BUSY, 99)));
  if (self->busy->len > 0)
    {
      char busy[G_ASCII_DTOSTR_BUF_SIZE];
      char wait[G_ASCII_DTOSTR_BUF_SIZE];

      g_string_append_printf (line, " worst_ms=%s worst_busy_ms=%s worst_cpu_wait_ms=%s",
                              ms (max, self->worst_late), ms (busy, self->worst_busy),
                              ms (wait, self->worst_wait));
    }
  if (self->stopped > 0 && self->run_ns >= 0)
    g_string_append_printf (line, " cpu_ms=%" G_GINT64_FORMAT " cpu_wait_ms=%" G_GINT64_FORMAT,
                            self->run_ns / 1000000, self->wait_ns / 1000000);

  return g_string_free (line, FALSE);
}
