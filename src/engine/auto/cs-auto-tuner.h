/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * The Auto threads controller, as a pure state machine so it can be tested
 * against a model: fed one sample at a time, it answers with the thread count
 * to use next and why. It climbs in powers of two while throughput improves by
 * more than the hysteresis, backs off when it does not, prefers fewer threads
 * when two counts are as good, and probes again after a while or when the mix of
 * file sizes changes.
 */

typedef enum {
  CS_AUTO_PROBING_UP,
  CS_AUTO_PROBING_DOWN,
  CS_AUTO_HOLDING,
} CsAutoPhase;

typedef struct {
  guint       min_threads;
  guint       max_threads;
  guint       current;
  CsAutoPhase phase;
  guint       settle_left;     /* samples to ignore after a change */
  guint       window;          /* samples per measurement */
  double      acc_files;
  double      acc_mb;
  double      acc_bytes_per_file;
  guint       n_acc;
  gboolean    have_base;
  guint       base_threads;    /* the best count measured in this probe */
  double      base_metric;
  gboolean    metric_is_files; /* files/s for small files, MB/s for large */
  guint       held;            /* samples spent holding */
  guint       hold_for;        /* re-probe after this many */
  double      mix_at_hold;     /* bytes per file when the probe ended */
  double      hysteresis;      /* relative gain that counts as better */
  guint       decisions;
} CsAutoTuner;

void  cs_auto_tuner_init (CsAutoTuner *tuner,
                          guint        start_threads,
                          guint        min_threads,
                          guint        max_threads);

/*
 * Feeds one sample: files completed per second, MB per second, and the mean size
 * of the files completed in it (0 when none). Returns the new thread count when
 * it should change (and sets @out_reason, to free), or 0 to keep it.
 */
guint cs_auto_tuner_feed (CsAutoTuner *tuner,
                          double       files_per_second,
                          double       mb_per_second,
                          double       bytes_per_file,
                          char       **out_reason);

G_END_DECLS
