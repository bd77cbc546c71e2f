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

/* What the latest measured thread change did (cs_explainer_dup_change). */
typedef struct {
  guint    from;
  guint    to;
  double   change;        /* % of the rate before */
  gboolean large;         /* measured in bytes, not files */
} Change;

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
  Change   measured;
  gboolean have_measured;
  CsPhaseBucket phases[HISTORY];
  guint    phases_head;
  guint    phases_len;
  gboolean remote;
  gboolean scan_ended;
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
cs_explainer_set_scan_ended (CsExplainer *explainer,
                             gboolean     scan_ended)
{
  g_return_if_fail (explainer != NULL);

  explainer->scan_ended = !!scan_ended;
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

/* What the latest thread change did, once both sides of it are told. */
static gboolean
measure_change (CsExplainer *explainer,
                Change      *out_change)
{
  const Stretch *before = &explainer->before;
  const Stretch *now = &explainer->now;
  gboolean large;
  double rate_before, rate_now;

  if (!explainer->have_before || !told (now) || now->threads == before->threads)
    return FALSE;

  /* Large files are measured by the bytes they move, small ones by files. */
  large = now->files > 0 && now->bytes / now->files >= LARGE_FILE;
  rate_before = (large ? before->bytes : before->files) / before->time;
  rate_now = (large ? now->bytes : now->files) / now->time;
  if (!(rate_before > 0))
    return FALSE;

  *out_change = (Change) { before->threads, now->threads, 100.0 * (rate_now / rate_before - 1.0), large };
  return TRUE;
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

  /* What the window shows beside the limit is the latest change measured,
   * kept while the next count settles: the limit is held to it. */
  if (measure_change (explainer, &explainer->measured))
    explainer->have_measured = TRUE;
}

/* Mean of @field over the points of the window that have it; NaN when none. */

void
cs_explainer_push_phases (CsExplainer         *explainer,
                          const CsPhaseBucket *bucket)
{
  g_return_if_fail (explainer != NULL);
  g_return_if_fail (bucket != NULL);

  /* A bucket that ends no later than the last one (a paused clock, the
   * same sample fed twice) adds nothing to what the window shows. */
  if (explainer->phases_len > 0)
    {
      const CsPhaseBucket *last = &explainer->phases[(explainer->phases_head + HISTORY - 1) % HISTORY];

      if (!(bucket->t > last->t))
        return;
    }

  explainer->phases[explainer->phases_head] = *bucket;
  explainer->phases_head = (explainer->phases_head + 1) % HISTORY;
  explainer->phases_len = MIN (explainer->phases_len + 1, HISTORY);
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

/* The workers' time over a stretch of the copy's clock. */
typedef struct {
  double seconds[CS_PHASE_N];
  double worked;          /* worker-seconds in every phase but paused */
  double runnable;        /* 0: not measured */
  double span;            /* seconds of the clock the buckets cover */
} Phases;

/* The phases of the buckets that end within (start, end]; FALSE when they
 * hold no worker's time. */
static gboolean
window_phases (CsExplainer *explainer,
               double       start,
               double       end,
               Phases      *out)
{
  memset (out, 0, sizeof *out);

  for (guint age = 0; age < explainer->phases_len; age++)
    {
      const CsPhaseBucket *b = &explainer->phases[(explainer->phases_head + HISTORY - 1 - age) % HISTORY];

      if (b->t > end)
        continue;
      if (b->t <= start)
        break;
      for (guint p = 0; p < CS_PHASE_N; p++)
        out->seconds[p] += b->seconds[p];
      if (b->runnable > 0)
        out->runnable += b->runnable;
      out->span += b->t - b->t_start;
    }

  for (guint p = 0; p < CS_PHASE_N; p++)
    if (p != CS_PHASE_PAUSED)
      out->worked += out->seconds[p];

  return out->worked > 0 && out->span > 0;
}

/* The time workers spend in the destination's requests: on a share, each
 * one a round trip. Reading is the source's: from a local disk it waits for
 * no server, and a worker slow there on a busy machine waits for a
 * processor. (A copy within one share undercounts: then the sentence falls
 * back to the requests per file.) */
static double
request_seconds (const Phases *phases)
{
  static const CsPhase requests[] = {
    CS_PHASE_LISTING, CS_PHASE_OPENING, CS_PHASE_WRITING, CS_PHASE_FLUSHING,
    CS_PHASE_METADATA, CS_PHASE_PUBLISHING, CS_PHASE_DELETING,
  };
  double sum = 0;

  for (guint i = 0; i < G_N_ELEMENTS (requests); i++)
    sum += phases->seconds[requests[i]];
  return sum;
}

/* Whether the latest measured change shows more threads faster: a rise
 * that sped the copy up, or a fall that slowed it down. */
static gboolean
more_threads_helped (CsExplainer *explainer)
{
  const Change *c = &explainer->measured;

  if (!explainer->have_measured)
    return FALSE;
  return c->to > c->from ? c->change >= 100.0 * CS_EXPLAINER_SAME
                         : c->change <= -100.0 * CS_EXPLAINER_SAME;
}

/* Whether it shows more threads no faster: a rise that did not speed the
 * copy up, or a fall that did not slow it down. */
static gboolean
more_threads_did_not_help (CsExplainer *explainer)
{
  return explainer->have_measured && !more_threads_helped (explainer);
}

/* "more threads won't help", unless the measurement beside it says they
 * did: then it is about going past the most threads measured. */
static char *
dup_wont_help (CsExplainer *explainer)
{
  guint beyond;

  if (!more_threads_helped (explainer))
    return g_strdup (_("more threads won't help"));

  beyond = MAX (explainer->now.threads, MAX (explainer->measured.from, explainer->measured.to));
  /* Translators: the end of a sentence on what limits a copy, said just
   * after more threads made it faster, like "The processors are busy
   * (100 %): more than 32 threads won't help" */
  return g_strdup_printf (ngettext ("more than %u thread won't help",
                                    "more than %u threads won't help", beyond), beyond);
}

char *
cs_explainer_dup_limit (CsExplainer *explainer)
{
  const Point *now, *oldest;
  guint64 files, bytes;
  double requests = 0, cpu, own_cpu, request_ms;
  gboolean have_phases, large;
  Phases phases;
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
  have_phases = window_phases (explainer, oldest->t, now->t, &phases);
  /* Bytes moving while no file completes: one file larger than all of them. */
  large = (files > 0 ? (double) bytes / (double) files : (double) bytes) >= LARGE_FILE;

  /* Workers ready to run with no processor to run on: measured, that says
   * whether the processors limit this copy, whoever else keeps them busy. */
  if (have_phases && phases.runnable > 0)
    {
      double share = phases.runnable / phases.worked;

      if (share >= CS_EXPLAINER_RUNNABLE)
        /* Translators: what limits a copy, like "Workers wait for a processor 45 % of the
         * time: the processors are the limit" */
        return g_strdup_printf (_("Workers wait for a processor %.0f %% of the time: "
                                  "the processors are the limit"), 100.0 * MIN (share, 1.0));
    }
  /* Not measured: busy with this copy, not only with other programs. On a
   * desktop where something else takes the processors, a share's copy
   * still goes faster with more threads (2 → 8: +156 % at 100 % busy, the
   * copy using 11 % of one processor). */
  else if (cpu >= CS_EXPLAINER_BUSY_CPU && !(own_cpu < CS_EXPLAINER_OWN_CPU))
    {
      g_autofree char *wont = dup_wont_help (explainer);

      /* Translators: what limits a copy, like "The processors are busy (97 %): more
       * threads won't help"; %s is "more threads won't help" or "more than 32
       * threads won't help" */
      return g_strdup_printf (_("The processors are busy (%.0f %%): %s"), cpu, wont);
    }

  if (large)
    {
      double data = have_phases
                    ? (phases.seconds[CS_PHASE_READING] + phases.seconds[CS_PHASE_WRITING]) / phases.worked
                    : 0;

      if (data >= CS_EXPLAINER_DATA)
        /* Translators: what limits a copy of large files, like "Large files: the workers
         * read and write 96 % of the time — limited by bandwidth" */
        return g_strdup_printf (_("Large files: the workers read and write %.0f %% of the time — "
                                  "limited by bandwidth"), 100.0 * MIN (data, 1.0));
      {
        g_autofree char *wont = dup_wont_help (explainer);

        /* Translators: what limits a copy of large files; %s is "more threads won't
         * help" or "more than 32 threads won't help" */
        return g_strdup_printf (_("Large files: limited by bandwidth — %s"), wont);
      }
    }

  if (have_phases && phases.seconds[CS_PHASE_WAITING] / phases.worked >= CS_EXPLAINER_WAITING)
    {
      double waiting = 100.0 * phases.seconds[CS_PHASE_WAITING] / phases.worked;

      /* Once the scan has ended, no listing holds them back: the queue
       * has run dry and the last files are being copied. */
      if (explainer->scan_ended)
        /* Translators: said near the end of a copy, like "Workers wait for work 60 % of
         * the time: the last files are on their way" */
        return g_strdup_printf (_("Workers wait for work %.0f %% of the time: the last files are on their way"),
                                waiting);
      /* Translators: what limits a copy, like "Workers wait for work 60 % of the time: the
       * folder listing is the limit" */
      return g_strdup_printf (_("Workers wait for work %.0f %% of the time: the folder listing is the limit"),
                              waiting);
    }

  if (files == 0)
    return NULL;

  if (explainer->remote && have_phases && request_seconds (&phases) / phases.worked >= CS_EXPLAINER_SERVER)
    {
      /* The workers now, and of them the share of the window's time in
       * requests (a pause's time is no one's: the clock stands still). */
      guint workers = explainer->now.threads > 0 ? explainer->now.threads
                      : (guint) MAX (1, lround (phases.worked / phases.span));
      guint waiting = (guint) CLAMP (lround (workers * request_seconds (&phases) / phases.worked), 1, workers);

      if (more_threads_did_not_help (explainer))
        /* Translators: what limits a copy to a network share, said when more threads
         * did not make it faster, like "15 of 16 workers are waiting for the server:
         * the server is the limit" */
        return g_strdup_printf (ngettext ("%u of %u worker is waiting for the server: the server is the limit",
                                          "%u of %u workers are waiting for the server: the server is the limit",
                                          workers),
                                waiting, workers);
      /* Translators: what limits a copy to a network share, like "7 of 8 workers are
       * waiting for the server: more threads overlap the waits" */
      return g_strdup_printf (ngettext ("%u of %u worker is waiting for the server: more threads overlap the waits",
                                        "%u of %u workers are waiting for the server: more threads overlap the waits",
                                        workers),
                              waiting, workers);
    }

  {
    gulong per_file = (gulong) MAX (1, lround (requests / (double) files));

    if (explainer->remote && request_ms >= CS_EXPLAINER_ROUND_TRIP_MS)
      {
        if (more_threads_did_not_help (explainer))
          /* Translators: what limits a copy of small files to a network share, said when
           * more threads did not make it faster, like "Small files on a share: 25
           * requests per file, 1.3 ms each — the server is the limit" */
          return g_strdup_printf (ngettext ("Small files on a share: %lu request per file, %.1f ms each — "
                                            "the server is the limit",
                                            "Small files on a share: %lu requests per file, %.1f ms each — "
                                            "the server is the limit", per_file),
                                  per_file, request_ms);
        /* Translators: what limits a copy of small files to a network share, like
         * "Small files on a share: 25 requests per file, 1.3 ms each — more threads
         * overlap the waits" */
        return g_strdup_printf (ngettext ("Small files on a share: %lu request per file, %.1f ms each — "
                                          "more threads overlap the waits",
                                          "Small files on a share: %lu requests per file, %.1f ms each — "
                                          "more threads overlap the waits", per_file),
                                per_file, request_ms);
      }
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
  Change c;

  g_return_val_if_fail (explainer != NULL, NULL);

  if (!measure_change (explainer, &c))
    return NULL;

  if (fabs (c.change) < 100.0 * CS_EXPLAINER_SAME)
    return g_strdup_printf (c.large
                            /* Translators: what a thread change did, like "8 → 16 threads:
                             * no faster (MB/s +2 %)" */
                            ? _("%u → %u threads: no faster (MB/s %+.0f %%)")
                            /* Translators: like "8 → 16 threads: no faster (files/s +2 %)" */
                            : _("%u → %u threads: no faster (files/s %+.0f %%)"),
                            c.from, c.to, c.change);
  return g_strdup_printf (c.large
                          /* Translators: what a thread change did, like "2 → 8 threads: MB/s +40 %" */
                          ? _("%u → %u threads: MB/s %+.0f %%")
                          /* Translators: like "2 → 8 threads: files/s +40 %" */
                          : _("%u → %u threads: files/s %+.0f %%"),
                          c.from, c.to, c.change);
}
