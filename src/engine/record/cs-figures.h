/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>


G_BEGIN_DECLS

/*
 * The figures a copy is judged by, each defined here once; the window, the CLI
 * and every export show these and no figure of their own.
 *
 *   duration  seconds the run's clock ran, start to end; time paused or waiting
 *             for an answer is not in it (it is `held`)
 *   speed     "MB/s": bytes published to the destination (Copied) per second
 *             of the duration, MB = 10^6 bytes: what Robocopy's summary calls
 *             Speed. Not the Data Transfer Rate counter, which adds the bytes
 *             read to the bytes written (and the reads back of --verify).
 *   file rate "files/s": files published per second of the duration
 *   threads   the count at the start, the lowest and highest the run had, and
 *             their mean over the duration, weighted by how long each lasted
 *
 * Rates are over the clock's time, so none can exceed what the counters moved
 * while it ran.
 */
typedef struct {
  double  duration;
  double  held;
  guint64 files;
  guint64 bytes;
  double  speed;               /* MB/s */
  double  file_rate;           /* files/s */
  guint   threads;             /* at the start */
  guint   threads_min;
  guint   threads_max;
  double  threads_mean;
} CsFigures;

typedef enum {
  CS_FIGURE_DURATION,          /* seconds; with its unit as cs_format_duration () */
  CS_FIGURE_SPEED,             /* "168.3 MB/s" */
  CS_FIGURE_FILE_RATE,         /* "10719 files/s", "2.5 files/s" */
  CS_FIGURE_THREADS_MEAN,      /* "7.4" */
} CsFigure;

/* Whether the thread count changed during the run. */
gboolean cs_figures_threads_changed    (const CsFigures *figures);

/* The number alone, at the figure's one precision: in the C locale for files
 * and terminals that scripts read, or the user's (digit grouping, decimal
 * comma) for the window. A duration is seconds ("3723.40"). */
char  *cs_figure_format_number         (CsFigure         figure,
                                        double           value,
                                        gboolean         localized);
typedef enum {
  /* What a run took, a measured time: "0.47 s", "42.5 s", "3 min 5 s",
   * "10 h 2 min". */
  CS_DURATION_MEASURED,
  /* What is left, an estimate, in words and no finer than it can be:
   * "less than a second", "42 seconds", "3 min 20 s", "12 minutes",
   * "2 hours", "2 h 05 min". */
  CS_DURATION_ESTIMATE,
  /* A clock, for a line that redraws: "0:25", "12:05", "1:02:03"; the same
   * in every language. */
  CS_DURATION_CLOCK,
} CsDurationStyle;

/*
 * A duration as a person reads it, the one formatter everywhere one does
 * (window, CLI, reports, sweep and demo; JSON and CSV keep seconds).
 * @localized: translated, in the user's numbers, for the window; else
 * English and the C locale.
 */
char  *cs_format_duration              (double           seconds,
                                        CsDurationStyle  style,
                                        gboolean         localized);
/* The number and its unit at the figure's precision ("0.47 s", "168.3 MB/s",
 * "10719 files/s"): in English and the C locale for the CLI and the exports; */
char  *cs_figure_format                (CsFigure         figure,
                                        double           value);
/* for a person's window, translated and in the user's numbers ("10,719 files/s"). */
char  *cs_figure_format_localized      (CsFigure         figure,
                                        double           value);
/* "8", or "1–16 (mean 7.4)" for a count that changed; C locale. */
char  *cs_figures_format_threads       (const CsFigures *figures);

G_END_DECLS
