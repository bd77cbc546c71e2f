/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include <json-glib/json-glib.h>

#include "cs-job.h"

G_BEGIN_DECLS

#define CS_SWEEP_SCHEMA_VERSION 1

/* One timed copy of a sweep. */
typedef struct {
  guint  threads;
  guint  repeat;
  double seconds;
  double mb_per_second;      /* source bytes copied / seconds, MB = 10^6 */
  double files_per_second;
  guint64 files;
  guint64 bytes;
  gboolean ok;
} CsSweepRun;

/* Median, minimum and maximum over the repeats of one thread count. The rates
 * follow the time, the statistic the recommendation reads: the median data
 * over the median, the longest and the shortest time. */
typedef struct {
  guint  threads;
  guint  n;
  double seconds[3];         /* median, min, max */
  double mb_per_second[3];   /* at the median time, the lowest, the highest */
  double files_per_second[3];
} CsSweepStat;

/* How close to the best median time the recommended count must come. */
#define CS_SWEEP_TOLERANCE 0.05

/*
 * The recommendation: the knee, i.e. the smallest thread count whose median time
 * is within @tolerance (CS_SWEEP_TOLERANCE) of the best median. Returns its index in @stats,
 * or -1 without data; @out_sentence explains it in the charts' numbers ("8
 * threads: 0.99 s, within 5 % of the best: 16 threads took 0.96 s, 3 % less.").
 */
int   cs_sweep_find_knee (const CsSweepStat *stats,
                          guint              n_stats,
                          double             tolerance,
                          char             **out_sentence);

typedef struct _CsSweep CsSweep;

#define CS_TYPE_SWEEP (cs_sweep_get_type ())
GType       cs_sweep_get_type        (void) G_GNUC_CONST;

CsSweep    *cs_sweep_new             (const char  *source,
                                      const char  *destination);
CsSweep    *cs_sweep_ref             (CsSweep     *sweep);
void        cs_sweep_unref           (CsSweep     *sweep);

/* Setup, before running. Defaults: 1, 2, 4 … 128; 3 repeats; cold. */
void        cs_sweep_set_threads     (CsSweep     *sweep,
                                      const guint *threads,
                                      guint        n_threads);
void        cs_sweep_set_repeats     (CsSweep     *sweep,
                                      guint        repeats);
void        cs_sweep_set_cold        (CsSweep     *sweep,
                                      gboolean     cold);

/* Called on the running thread before each copy starts, with its job (to watch
 * it live), the run's index and the total. */
typedef void (*CsSweepRunFunc) (CsSweep  *sweep,
                                CsJob    *job,
                                guint     index,
                                guint     total,
                                gpointer  user_data);

/*
 * Runs every copy in turn, interleaving thread counts (1 2 4 … then again), each
 * into a fresh folder under the destination that is removed after it is timed,
 * through the destination's own backend: a folder's path, or a share's folder
 * as smb://[user@]host[:port]/share/folder. Fails at once, copying nothing,
 * when the destination is no folder. Blocks; run it in a thread from a GUI.
 * Cancel through @cancellable.
 */
gboolean    cs_sweep_run_sync        (CsSweep        *sweep,
                                      CsSweepRunFunc  func,
                                      gpointer        user_data,
                                      GCancellable   *cancellable,
                                      GError        **error);

/* The same on a thread of its own; @func and @callback are called on the
 * caller's thread-default main context, @func before each copy starts (the
 * copy waits for it), so a window can follow the job it is given. */
void        cs_sweep_run_async       (CsSweep             *sweep,
                                      CsSweepRunFunc       func,
                                      gpointer             func_data,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data);
gboolean    cs_sweep_run_finish      (CsSweep             *sweep,
                                      GAsyncResult        *result,
                                      GError             **error);

const char *cs_sweep_get_source      (CsSweep     *sweep);
const char *cs_sweep_get_destination (CsSweep     *sweep);
const char *cs_sweep_get_cache_mode  (CsSweep     *sweep);   /* what was really used */
gint64      cs_sweep_get_started     (CsSweep     *sweep);
guint       cs_sweep_get_repeats     (CsSweep     *sweep);
const CsSweepRun *cs_sweep_get_runs  (CsSweep     *sweep,
                                      guint       *n_runs);
/* Per thread count, ascending; free with g_free. */
CsSweepStat *cs_sweep_dup_stats      (CsSweep     *sweep,
                                      guint       *n_stats);
/* The recommended count and why; 0 without data. */
guint       cs_sweep_get_recommended (CsSweep     *sweep,
                                      char       **out_sentence);

JsonNode   *cs_sweep_to_json         (CsSweep     *sweep);
CsSweep    *cs_sweep_new_from_json   (JsonNode    *node,
                                      GError     **error);
gboolean    cs_sweep_save            (CsSweep     *sweep,
                                      const char  *path,
                                      GError     **error);
CsSweep    *cs_sweep_load            (const char  *path,
                                      GError     **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CsSweep, cs_sweep_unref)

G_END_DECLS
