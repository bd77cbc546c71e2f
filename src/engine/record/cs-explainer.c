/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-explainer"

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "cs-explainer.h"

/* Enough for the window at the sampler's fastest pace (100 ms), with room. */
#define HISTORY 64
/* Files of this size and more are limited by bandwidth, smaller ones by requests. */
#define LARGE_FILE 1e6

typedef struct {
  double  t;
  guint64 files_done;
  guint64 bytes_done;
  double  requests;       /* all requests made in the interval this sample ends */
  double  request_ms;     /* the mean write's time (the destination's); NaN when none */
  double  cpu;            /* the whole machine's, %; NaN when unknown */
  double  own_cpu;        /* this process's, % of the whole machine; NaN when unknown */
} Point;

/* A stretch of the copy at one thread count: what it did once settled. */
typedef struct {
  guint   threads;
  double  start;          /* the end of the last sample at the count before */
  double  time;           /* settled seconds */
  double  files;
  double  bytes;
} Stretch;

struct _CsExplainer {
  Point    points[HISTORY];
  guint    head;
  guint    len;
  Stretch  now;
  Stretch  before;        /* the last stretch that ran long enough to tell */
  gboolean have_before;
  gboolean remote;
  guint    processors;
};

CsExplainer *
cs_explainer_new (void)
{
  CsExplainer *explainer = g_new0 (CsExplainer, 1);

  cs_explainer_reset (explainer);
  return explainer;
}

void
cs_explainer_free (CsExplainer *explainer)
{
  g_free (explainer);
}

void
cs_explainer_reset (CsExplainer *explainer)
{
  g_return_if_fail (explainer != NULL);

  memset (explainer, 0, sizeof *explainer);
  explainer->processors = g_get_num_processors ();
}

void
cs_explainer_set_processors (CsExplainer *explainer,
                             guint        processors)
{
  g_return_if_fail (explainer != NULL);

  explainer->processors = MAX (processors, 1);
}

void
cs_explainer_set_remote (CsExplainer *explainer,
                         gboolean     remote)
{
  g_return_if_fail (explainer != NULL);

  explainer->remote = !!remote;
}

/* 0 = the newest */
static const Point *
point_at (CsExplainer *explainer,
          guint        age)
{
  g_assert (age < explainer->len);

  return &explainer->points[(explainer->head + HISTORY - 1 - age) % HISTORY];
}

static gboolean
told (const Stretch *stretch)
{
  return stretch->time >= CS_EXPLAINER_SETTLED;
}

void
cs_explainer_push (CsExplainer    *explainer,
                   const CsSample *sample)
{
  Point point = { 0 };
  guint threads;

  g_return_if_fail (explainer != NULL);
  g_return_if_fail (sample != NULL);

  threads = isfinite (sample->values[CS_COUNTER_THREADS]) && sample->values[CS_COUNTER_THREADS] >= 1
            ? (guint) lround (sample->values[CS_COUNTER_THREADS]) : 0;
  point.t = sample->t;
  point.files_done = sample->files_done;
  point.bytes_done = sample->bytes_done;
  /* The destination's side: its writes (a copy within one share has none). */
  point.request_ms = isfinite (sample->values[CS_COUNTER_AVG_WRITE_REQUEST_TIME])
                     ? sample->values[CS_COUNTER_AVG_WRITE_REQUEST_TIME]
                     : sample->values[CS_COUNTER_AVG_REQUEST_TIME];
  point.cpu = sample->values[CS_COUNTER_CPU_USAGE];
  point.own_cpu = sample->values[CS_COUNTER_PROCESS_CPU_USAGE] / explainer->processors;

  if (explainer->len > 0)
    {
      const Point *last = point_at (explainer, 0);
      double dt = point.t - last->t;

      /* A sample whose clock did not move (paused) tells nothing. */
      if (!(dt > 0))
        return;
      point.requests = isfinite (sample->values[CS_COUNTER_REQUEST_RATE])
                       ? sample->values[CS_COUNTER_REQUEST_RATE] * dt : 0;

      if (threads != 0 && threads != explainer->now.threads)
        {
          if (explainer->now.threads != 0 && told (&explainer->now))
            {
              explainer->before = explainer->now;
              explainer->have_before = TRUE;
            }
          explainer->now = (Stretch) { threads, last->t, 0, 0, 0 };
        }
      else if (point.t - explainer->now.start > CS_EXPLAINER_SETTLE)
        {
          explainer->now.time += dt;
          explainer->now.files += (double) (point.files_done - MIN (last->files_done, point.files_done));
          explainer->now.bytes += (double) (point.bytes_done - MIN (last->bytes_done, point.bytes_done));
        }
    }
  else
    explainer->now = (Stretch) { threads, 0, 0, 0, 0 };

  explainer->points[explainer->head] = point;
  explainer->head = (explainer->head + 1) % HISTORY;
  explainer->len = MIN (explainer->len + 1, HISTORY);
}

/* Mean of @field over the points of the window that have it; NaN when none. */
static double
window_mean (CsExplainer *explainer,
             guint        n,
             gsize        offset)
{
  double sum = 0;
  guint count = 0;

  for (guint age = 0; age < n; age++)
    {
      double v = G_STRUCT_MEMBER (double, point_at (explainer, age), offset);

      if (isfinite (v))
        {
          sum += v;
          count++;
        }
    }
  return count > 0 ? sum / count : NAN;
}

char *
cs_explainer_dup_limit (CsExplainer *explainer)
{
  const Point *now, *oldest;
  guint64 files, bytes;
  double requests = 0, cpu, own_cpu, request_ms;
  guint n = 1;

  g_return_val_if_fail (explainer != NULL, NULL);

  if (explainer->len < 2)
    return NULL;
  now = point_at (explainer, 0);
  while (n < explainer->len && now->t - point_at (explainer, n)->t <= CS_EXPLAINER_WINDOW)
    n++;
  /* The window's points after the oldest; the oldest only marks its start. */
  oldest = point_at (explainer, n - 1);
  n--;
  if (n == 0)
    return NULL;
  files = now->files_done - MIN (oldest->files_done, now->files_done);
  bytes = now->bytes_done - MIN (oldest->bytes_done, now->bytes_done);
  if (files == 0 && bytes == 0)
    return NULL;
  for (guint age = 0; age < n; age++)
    requests += point_at (explainer, age)->requests;
  cpu = window_mean (explainer, n, G_STRUCT_OFFSET (Point, cpu));
  own_cpu = window_mean (explainer, n, G_STRUCT_OFFSET (Point, own_cpu));
  request_ms = window_mean (explainer, n, G_STRUCT_OFFSET (Point, request_ms));

  /* Busy with this copy, not only with other programs: on a desktop where
   * something else takes the processors, a share's copy still goes faster
   * with more threads (2 → 8: +156 % at 100 % busy, the copy using 11 % of
   * one processor). */
  if (cpu >= CS_EXPLAINER_BUSY_CPU && !(own_cpu < CS_EXPLAINER_OWN_CPU))
    /* Translators: what limits a copy, like "The processors are busy (97 %): more
     * threads won't help" */
    return g_strdup_printf (_("The processors are busy (%.0f %%): more threads won't help"), cpu);

  /* Bytes moving while no file completes: one file larger than all of them. */
  if ((files > 0 ? (double) bytes / (double) files : (double) bytes) >= LARGE_FILE)
    return g_strdup (_("Large files: limited by bandwidth — more threads won't help"));

  if (files == 0)
    return NULL;
  {
    gulong per_file = (gulong) MAX (1, lround (requests / (double) files));

    if (explainer->remote && request_ms >= CS_EXPLAINER_ROUND_TRIP_MS)
      /* Translators: what limits a copy of small files to a network share, like
       * "Small files on a share: 25 requests per file, 1.3 ms each — more threads
       * overlap the waits" */
      return g_strdup_printf (ngettext ("Small files on a share: %lu request per file, %.1f ms each — "
                                        "more threads overlap the waits",
                                        "Small files on a share: %lu requests per file, %.1f ms each — "
                                        "more threads overlap the waits", per_file),
                              per_file, request_ms);
    /* Translators: what limits a copy of small files on a local disk, like
     * "Small files: 11 requests per file limit the copy" */
    return g_strdup_printf (ngettext ("Small files: %lu request per file limits the copy",
                                      "Small files: %lu requests per file limit the copy", per_file),
                            per_file);
  }
}

char *
cs_explainer_dup_change (CsExplainer *explainer)
{
  const Stretch *before, *now;
  gboolean large;
  double rate_before, rate_now, change;

  g_return_val_if_fail (explainer != NULL, NULL);

  before = &explainer->before;
  now = &explainer->now;
  if (!explainer->have_before || !told (now) || now->threads == before->threads)
    return NULL;

  /* Large files are measured by the bytes they move, small ones by files. */
  large = now->files > 0 && now->bytes / now->files >= LARGE_FILE;
  rate_before = (large ? before->bytes : before->files) / before->time;
  rate_now = (large ? now->bytes : now->files) / now->time;
  if (!(rate_before > 0))
    return NULL;
  change = 100.0 * (rate_now / rate_before - 1.0);

  if (fabs (change) < 100.0 * CS_EXPLAINER_SAME)
    return g_strdup_printf (large
                            /* Translators: what a thread change did, like "8 → 16 threads:
                             * no faster (MB/s +2 %)" */
                            ? _("%u → %u threads: no faster (MB/s %+.0f %%)")
                            /* Translators: like "8 → 16 threads: no faster (files/s +2 %)" */
                            : _("%u → %u threads: no faster (files/s %+.0f %%)"),
                            before->threads, now->threads, change);
  return g_strdup_printf (large
                          /* Translators: what a thread change did, like "2 → 8 threads: MB/s +40 %" */
                          ? _("%u → %u threads: MB/s %+.0f %%")
                          /* Translators: like "2 → 8 threads: files/s +40 %" */
                          : _("%u → %u threads: files/s %+.0f %%"),
                          before->threads, now->threads, change);
}
