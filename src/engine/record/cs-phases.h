/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * Where the workers' time goes (issue 42): the phases a worker is in, and
 * how long each kind of request took. The record keeps three things of them,
 * each bounded whatever the run's length:
 *
 *  - Per sample, the worker-seconds spent in each phase over the sample's
 *    interval, (previous t, t]. They follow the samples' rules (cs-run.h):
 *    the last ten minutes whole, everything before in at most 1024 buckets,
 *    where a bucket holds the SUM of what it merged (worker-seconds add up;
 *    divide by the bucket's width for "workers in this phase"). The totals
 *    over the whole run are kept exactly beside them.
 *
 *  - Lanes: per worker (at most CS_PHASE_MAX_WORKERS), the phase changes of
 *    the last CS_PHASE_LANE_SECONDS, at most CS_PHASE_LANE_MAX_CHANGES each,
 *    so an export can draw one row per worker coloured by phase.
 *
 *  - Per request kind, a histogram of latencies in log2 buckets of
 *    nanoseconds, merged by addition; percentiles as fio computes them.
 *
 * A record without phase data (every record before issue 42, and one of a
 * run without samples) reads as "no phase data": the getters return FALSE
 * or NULL, never zeros.
 */

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  CS_PHASE_WAITING,     /* waiting for work: the queue was empty */
  CS_PHASE_LISTING,     /* listing a folder */
  CS_PHASE_OPENING,     /* opening the source, creating the destination */
  CS_PHASE_READING,
  CS_PHASE_WRITING,
  CS_PHASE_FLUSHING,    /* fsync, close of a durable copy */
  CS_PHASE_METADATA,    /* setting times, modes, owners, attributes */
  CS_PHASE_PUBLISHING,  /* claiming the name: the rename into place */
  CS_PHASE_DELETING,    /* a move's source, a mirror's extras */
  CS_PHASE_LIMITED,     /* held by the speed limit */
  CS_PHASE_QUESTION,    /* waiting for an answer to a question */
  CS_PHASE_PAUSED,
  CS_PHASE_N
} CsPhase;

/* A stable id for files ("waiting", "listing", "opening", "reading",
 * "writing", "flushing", "metadata", "publishing", "deleting", "limited",
 * "question", "paused"); never changes once written. */
const char *cs_phase_get_id     (CsPhase     phase);
/* English, marked with N_(): translate with _() where shown. */
const char *cs_phase_get_label  (CsPhase     phase);
/* Which of the chart palette's colours (cs_plot_phase_colour ()) draws it;
 * neighbours in the stack get different hues. */
guint       cs_phase_get_colour (CsPhase     phase);
gboolean    cs_phase_from_id    (const char *id,
                                 CsPhase    *out_phase);

typedef enum {
  CS_LATENCY_OPEN,
  CS_LATENCY_READ,
  CS_LATENCY_WRITE,
  CS_LATENCY_CLOSE,
  CS_LATENCY_SET_TIMES,
  CS_LATENCY_RENAME,
  CS_LATENCY_LIST,
  CS_LATENCY_N
} CsLatencyKind;

/* "open", "read", "write", "close", "set_times", "rename", "list" */
const char *cs_latency_kind_get_id    (CsLatencyKind  kind);
const char *cs_latency_kind_get_label (CsLatencyKind  kind);  /* N_() */
gboolean    cs_latency_kind_from_id   (const char    *id,
                                       CsLatencyKind *out_kind);

/*
 * Latencies in log2 buckets: bucket 0 counts requests under 2 ns, bucket i
 * (i ≥ 1) those in [2^i, 2^(i+1)) ns; the last one everything from 2^47 ns
 * (39 hours) on. Two histograms merge by adding their buckets. A plain value:
 * a worker keeps its own and hands it over whole at the end.
 */
#define CS_LATENCY_BUCKETS 48

typedef struct {
  guint64 buckets[CS_LATENCY_BUCKETS];
  guint64 count;
  guint64 max_ns;
  double  sum_ns;
} CsLatencyHistogram;

void    cs_latency_histogram_add        (CsLatencyHistogram       *histogram,
                                         guint64                   ns);
void    cs_latency_histogram_merge      (CsLatencyHistogram       *into,
                                         const CsLatencyHistogram *other);
guint   cs_latency_bucket_of            (guint64                   ns);
/*
 * The latency under which @percent % of the requests fell, in ns, by fio's
 * method: the first bucket where the running count reaches percent/100 of
 * the total, reported as that bucket's middle (never above the maximum).
 * 0 for an empty histogram.
 */
double  cs_latency_histogram_percentile (const CsLatencyHistogram *histogram,
                                         double                    percent);
double  cs_latency_histogram_mean       (const CsLatencyHistogram *histogram);

/* The lanes' bounds (see above). */
#define CS_PHASE_MAX_WORKERS      128
#define CS_PHASE_LANE_SECONDS     30.0
#define CS_PHASE_LANE_MAX_CHANGES 1024
/* What a record writes of all lanes together, the newest of each lane
 * kept; so a 24-hour record stays within its budget. */
#define CS_PHASE_LANES_WRITTEN    8192

/* From @t on (seconds since the run started), the worker was in @phase. */
typedef struct {
  double  t;
  CsPhase phase;
} CsPhaseChange;

/* One worker's lane: its changes, oldest first. */
typedef struct {
  guint   worker;
  GArray *changes;   /* of CsPhaseChange, owned */
} CsPhaseLane;

void cs_phase_lane_clear (CsPhaseLane *lane);

/* A sample's, or a bucket's, time by phase: worker-seconds spent in each
 * phase from t_start to t. */
typedef struct {
  double t_start;
  double t;
  double seconds[CS_PHASE_N];
  guint  n;          /* samples merged: 1 for a whole one */
  /* Worker-seconds the workers were ready to run but waited for a
   * processor (each worker thread's run_delay in
   * /proc/self/task/TID/schedstat). It overlaps the phases above, which
   * say what a worker was doing, not whether it ran: a worker "reading"
   * may be waiting for a processor all the same. 0 where not measured
   * (records before it, machines without schedstat). */
  double runnable;
} CsPhaseBucket;

G_END_DECLS
