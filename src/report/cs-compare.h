/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "cs-counters.h"
#include "cs-figures.h"
#include "cs-run.h"

G_BEGIN_DECLS

/*
 * The comparison of two or more runs, counter by counter, in the terms of the
 * Robocopy reviews: each run's average, minimum and maximum, the best run by the
 * counter's direction, and the verdict ("T2 achieves better results in 10 out of
 * 18 tests including …"). Values within 0.5 % of each other are a tie.
 */

typedef enum {
  CS_COMPARE_AVG,
  CS_COMPARE_MIN,
  CS_COMPARE_MAX,
  CS_COMPARE_N_STATS
} CsCompareStat;

#define CS_COMPARE_TIE  (-1)   /* two or more runs share the best value */
#define CS_COMPARE_NONE (-2)   /* no direction, or a run has no data */

/* Relative difference below which two values are reported as a tie. */
#define CS_COMPARE_TIE_TOLERANCE 0.005

typedef struct {
  CsCounter  counter;
  guint      n_runs;
  CsStat    *stats;                        /* n_runs entries */
  gboolean  *valid;                        /* n_runs entries: the run has data */
  int        best[CS_COMPARE_N_STATS];     /* run index, CS_COMPARE_TIE or CS_COMPARE_NONE */
  gboolean   is_test;                      /* counted in the verdict */
} CsCompareCounter;

/*
 * Copyscope's own verdict, which a comparison gives first: which run finished
 * faster and by how much, from each run's figures (cs-figures.h). Runs that
 * copied different amounts cannot be told apart by their durations: they are
 * judged by their speed (MB/s). No counter counts here, so none without a
 * "better" for this question (threads, request size) wins anything.
 */
typedef struct {
  int      fastest;     /* run index, CS_COMPARE_TIE or CS_COMPARE_NONE (nothing ran) */
  gboolean by_speed;    /* the runs copied different amounts */
  double   factor;      /* the slowest run's duration (or the fastest's speed) over
                         * the fastest's (the slowest's): 3.0 is "3.0 times as fast" */
} CsCompareOutcome;

/* Runs whose copied files and bytes differ by less than this copied the same. */
#define CS_COMPARE_SAME_WORK_TOLERANCE 0.01

typedef struct _CsCompare CsCompare;

/* @labels: one per run, or NULL to use each run's label or "Run N". */
CsCompare              *cs_compare_new                  (CsRun              **runs,
                                                         guint                n_runs,
                                                         const char * const  *labels);
void                    cs_compare_free                 (CsCompare           *compare);

guint                   cs_compare_get_n_runs           (CsCompare           *compare);
CsRun                  *cs_compare_get_run              (CsCompare           *compare,
                                                         guint                run);
const char             *cs_compare_get_label            (CsCompare           *compare,
                                                         guint                run);
/* Every counter, in CsCounter order. */
const CsCompareCounter *cs_compare_get_counter          (CsCompare           *compare,
                                                         CsCounter            counter);
/* M: counters with a direction and data in every run. */
guint                   cs_compare_get_n_tests          (CsCompare           *compare);
/* How many tests @run wins on average; ties count for nobody. */
guint                   cs_compare_get_wins             (CsCompare           *compare,
                                                         guint                run);
guint                   cs_compare_get_n_ties           (CsCompare           *compare);
/* Whether @run has the best value of @stat for @counter, alone or in a tie. */
gboolean                cs_compare_is_best              (CsCompare           *compare,
                                                         CsCounter            counter,
                                                         CsCompareStat        stat,
                                                         guint                run);

/* The figures of @run, as every view shows them. */
const CsFigures        *cs_compare_get_figures          (CsCompare           *compare,
                                                         guint                run);
void                    cs_compare_get_outcome          (CsCompare           *compare,
                                                         CsCompareOutcome    *out_outcome);
/* The outcome in words, then each run's duration, speed, file rate and
 * threads: "T2 finished faster: 2.35 s against 7.12 s, 3.03 times as fast. …" */
char                   *cs_compare_dup_outcome          (CsCompare           *compare);

/* "12.34 MB/s": two decimals, locale-independent, with the counter's unit. */
char                   *cs_compare_format_value         (CsCounter            counter,
                                                         double               value);
/* The verdict paragraph, runs with the most wins first. */
char                   *cs_compare_dup_verdict          (CsCompare           *compare);
/* "The average X is better for T2 (a vs. b), the minimum … and the maximum …";
 * NULL when the counter has no direction or lacks data. */
char                   *cs_compare_dup_counter_sentence (CsCompare           *compare,
                                                         CsCounter            counter);
/* The pooled figures printed under each counter's heading in the reviews:
 * the mean of the averages, the lowest minimum and the highest maximum. */
gboolean                cs_compare_get_pooled           (CsCompare           *compare,
                                                         CsCounter            counter,
                                                         CsStat              *out_stat);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CsCompare, cs_compare_free)

G_END_DECLS
