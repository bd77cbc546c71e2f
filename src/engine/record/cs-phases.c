/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-phases"

/*
 * The phases' names and the latency histograms' arithmetic: pure functions,
 * no run, no lock (cs-phases.h).
 */

#include "config.h"

#include <math.h>

#include "cs-phases.h"

#define N_(s) (s)

static const struct {
  const char *id;
  const char *label;
  guint       colour;
} phases[CS_PHASE_N] = {
  [CS_PHASE_WAITING]    = { "waiting",    N_("Waiting for work"),    0 },
  [CS_PHASE_LISTING]    = { "listing",    N_("Listing folders"),     1 },
  [CS_PHASE_OPENING]    = { "opening",    N_("Opening and creating"), 2 },
  [CS_PHASE_READING]    = { "reading",    N_("Reading"),             3 },
  [CS_PHASE_WRITING]    = { "writing",    N_("Writing"),             4 },
  [CS_PHASE_FLUSHING]   = { "flushing",   N_("Flushing"),            5 },
  [CS_PHASE_METADATA]   = { "metadata",   N_("Setting metadata"),    6 },
  [CS_PHASE_PUBLISHING] = { "publishing", N_("Publishing"),          7 },
  [CS_PHASE_DELETING]   = { "deleting",   N_("Deleting"),            8 },
  [CS_PHASE_LIMITED]    = { "limited",    N_("Held by the speed limit"), 9 },
  [CS_PHASE_QUESTION]   = { "question",   N_("Waiting for an answer"), 10 },
  [CS_PHASE_PAUSED]     = { "paused",     N_("Paused"),              11 },
};

static const struct {
  const char *id;
  const char *label;
} requests[CS_LATENCY_N] = {
  [CS_LATENCY_OPEN]      = { "open",      N_("Open") },
  [CS_LATENCY_READ]      = { "read",      N_("Read") },
  [CS_LATENCY_WRITE]     = { "write",     N_("Write") },
  [CS_LATENCY_CLOSE]     = { "close",     N_("Close") },
  [CS_LATENCY_SET_TIMES] = { "set_times", N_("Set times") },
  [CS_LATENCY_RENAME]    = { "rename",    N_("Rename") },
  [CS_LATENCY_LIST]      = { "list",      N_("List") },
};

const char *
cs_phase_get_id (CsPhase phase)
{
  g_return_val_if_fail (phase < CS_PHASE_N, NULL);

  return phases[phase].id;
}

const char *
cs_phase_get_label (CsPhase phase)
{
  g_return_val_if_fail (phase < CS_PHASE_N, NULL);

  return phases[phase].label;
}

guint
cs_phase_get_colour (CsPhase phase)
{
  g_return_val_if_fail (phase < CS_PHASE_N, 0);

  return phases[phase].colour;
}

gboolean
cs_phase_from_id (const char *id,
                  CsPhase    *out_phase)
{
  g_return_val_if_fail (id != NULL, FALSE);

  for (guint p = 0; p < CS_PHASE_N; p++)
    {
      if (g_str_equal (id, phases[p].id))
        {
          if (out_phase != NULL)
            *out_phase = p;
          return TRUE;
        }
    }

  return FALSE;
}

const char *
cs_latency_kind_get_id (CsLatencyKind kind)
{
  g_return_val_if_fail (kind < CS_LATENCY_N, NULL);

  return requests[kind].id;
}

const char *
cs_latency_kind_get_label (CsLatencyKind kind)
{
  g_return_val_if_fail (kind < CS_LATENCY_N, NULL);

  return requests[kind].label;
}

gboolean
cs_latency_kind_from_id (const char    *id,
                         CsLatencyKind *out_kind)
{
  g_return_val_if_fail (id != NULL, FALSE);

  for (guint k = 0; k < CS_LATENCY_N; k++)
    {
      if (g_str_equal (id, requests[k].id))
        {
          if (out_kind != NULL)
            *out_kind = k;
          return TRUE;
        }
    }

  return FALSE;
}

guint
cs_latency_bucket_of (guint64 ns)
{
  guint bucket = ns < 2 ? 0 : (guint) g_bit_storage (ns) - 1;

  return MIN (bucket, CS_LATENCY_BUCKETS - 1);
}

void
cs_latency_histogram_add (CsLatencyHistogram *histogram,
                          guint64             ns)
{
  g_return_if_fail (histogram != NULL);

  histogram->buckets[cs_latency_bucket_of (ns)]++;
  histogram->count++;
  histogram->max_ns = MAX (histogram->max_ns, ns);
  histogram->sum_ns += (double) ns;
}

void
cs_latency_histogram_merge (CsLatencyHistogram       *into,
                            const CsLatencyHistogram *other)
{
  g_return_if_fail (into != NULL);
  g_return_if_fail (other != NULL);

  for (guint i = 0; i < CS_LATENCY_BUCKETS; i++)
    into->buckets[i] += other->buckets[i];
  into->count += other->count;
  into->max_ns = MAX (into->max_ns, other->max_ns);
  into->sum_ns += other->sum_ns;
}

double
cs_latency_histogram_percentile (const CsLatencyHistogram *histogram,
                                 double                    percent)
{
  guint64 total = 0, running = 0;

  g_return_val_if_fail (histogram != NULL, 0);

  /* The buckets, not count: a histogram read from a file is checked to
   * agree, but the buckets are what the percentile is of. */
  for (guint i = 0; i < CS_LATENCY_BUCKETS; i++)
    total += histogram->buckets[i];
  if (total == 0)
    return 0;

  for (guint i = 0; i < CS_LATENCY_BUCKETS; i++)
    {
      running += histogram->buckets[i];
      /* fio's calc_clat_percentiles (): the first bucket whose running
       * count reaches the share, its value the bucket's middle. */
      if ((double) running >= percent / 100.0 * (double) total && histogram->buckets[i] > 0)
        {
          double low = i == 0 ? 0 : ldexp (1, (int) i);
          double high = ldexp (1, (int) i + 1);
          double middle = (low + high) / 2;

          /* The maximum is exact; a bucket's middle may lie beyond it. */
          return histogram->max_ns > 0 ? MIN (middle, (double) histogram->max_ns) : middle;
        }
    }

  return (double) histogram->max_ns;
}

double
cs_latency_histogram_mean (const CsLatencyHistogram *histogram)
{
  g_return_val_if_fail (histogram != NULL, 0);

  return histogram->count > 0 ? histogram->sum_ns / (double) histogram->count : 0;
}

void
cs_phase_lane_clear (CsPhaseLane *lane)
{
  if (lane == NULL)
    return;
  g_clear_pointer (&lane->changes, g_array_unref);
}
