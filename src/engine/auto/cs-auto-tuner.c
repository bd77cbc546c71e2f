/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-auto"

#include "config.h"

#include <math.h>

#include "cs-auto-tuner.h"

/* Files above this size are limited by bandwidth, below it by requests. */
#define LARGE_FILE_BYTES 1e6

void
cs_auto_tuner_init (CsAutoTuner *tuner,
                    guint        start_threads,
                    guint        min_threads,
                    guint        max_threads)
{
  g_return_if_fail (tuner != NULL);
  g_return_if_fail (min_threads >= 1 && min_threads <= max_threads);

  *tuner = (CsAutoTuner) { 0 };
  tuner->min_threads = min_threads;
  tuner->max_threads = max_threads;
  tuner->current = CLAMP (start_threads, min_threads, max_threads);
  tuner->phase = CS_AUTO_PROBING_UP;
  tuner->settle_left = 1;
  tuner->window = 4;
  tuner->hold_for = 40;
  tuner->hysteresis = 0.05;
}

static guint
change_to (CsAutoTuner *tuner,
           guint        threads)
{
  tuner->current = threads;
  tuner->settle_left = 1;
  tuner->n_acc = 0;
  tuner->acc_files = tuner->acc_mb = tuner->acc_bytes_per_file = 0;
  tuner->decisions++;
  return threads;
}

static void
hold (CsAutoTuner *tuner,
      double       mix)
{
  tuner->phase = CS_AUTO_HOLDING;
  tuner->held = 0;
  tuner->mix_at_hold = mix;
  tuner->have_base = FALSE;
}

static const char *
unit (const CsAutoTuner *tuner)
{
  return tuner->metric_is_files ? "files/s" : "MB/s";
}

/* The mean of the samples taken at the current count. */
static double
window_metric (const CsAutoTuner *tuner)
{
  return (tuner->metric_is_files ? tuner->acc_files : tuner->acc_mb) / tuner->n_acc;
}

/* The count measured did no better than the base: hold the base again. */
static guint
back_to_base (CsAutoTuner *tuner,
              double       mix,
              double       gain,
              char       **out_reason)
{
  guint measured = tuner->current;

  hold (tuner, mix);
  *out_reason = g_strdup_printf ("auto: %s %+.0f %% at %u threads, back to %u",
                                 unit (tuner), gain * 100, measured, tuner->base_threads);
  return change_to (tuner, tuner->base_threads);
}

guint
cs_auto_tuner_feed (CsAutoTuner *tuner,
                    double       files_per_second,
                    double       mb_per_second,
                    double       bytes_per_file,
                    char       **out_reason)
{
  double metric, mix, gain;
  guint measured;

  g_return_val_if_fail (tuner != NULL, 0);
  g_return_val_if_fail (out_reason != NULL, 0);
  *out_reason = NULL;

  if (tuner->settle_left > 0)
    {
      /* Workers start or finish their current file after a change. */
      tuner->settle_left--;
      return 0;
    }

  if (!isfinite (files_per_second) || !isfinite (mb_per_second))
    return 0;
  tuner->acc_files += files_per_second;
  tuner->acc_mb += mb_per_second;
  tuner->acc_bytes_per_file += isfinite (bytes_per_file) ? bytes_per_file : 0;
  tuner->n_acc++;

  if (tuner->phase == CS_AUTO_HOLDING)
    {
      tuner->held++;
      if (tuner->n_acc >= tuner->window)
        {
          mix = tuner->acc_bytes_per_file / tuner->n_acc;
          tuner->n_acc = 0;
          tuner->acc_files = tuner->acc_mb = tuner->acc_bytes_per_file = 0;
          /* A different mix of sizes may want a different count: probe again. */
          if (tuner->mix_at_hold > 0 && mix > 0
              && (mix > 4 * tuner->mix_at_hold || 4 * mix < tuner->mix_at_hold))
            {
              tuner->phase = CS_AUTO_PROBING_UP;
              *out_reason = g_strdup_printf ("auto: file sizes changed (%.0f kB → %.0f kB), probing again",
                                             tuner->mix_at_hold / 1e3, mix / 1e3);
              tuner->decisions++;
              return 0;
            }
        }
      if (tuner->held >= tuner->hold_for)
        {
          tuner->phase = CS_AUTO_PROBING_UP;
          tuner->n_acc = 0;
          tuner->acc_files = tuner->acc_mb = tuner->acc_bytes_per_file = 0;
        }
      return 0;
    }

  /* A probe down that already loses clearly ends early: below the knee a
   * share slows down a lot, and a whole window there cost a 4 s copy on the
   * lab NAS half a second (2 threads after 4–32 equally fast). A loss of 15 %
   * takes two samples to believe; one of 30 % or more, one (labnas small with
   * 4 remembered: the probe at 2 threads lost 50 % and still took 0.75 s). */
  if (tuner->phase == CS_AUTO_PROBING_DOWN && tuner->have_base && tuner->base_metric > 0)
    {
      gain = window_metric (tuner) / tuner->base_metric - 1.0;
      if (gain < -6 * tuner->hysteresis || (tuner->n_acc >= 2 && gain < -3 * tuner->hysteresis))
        return back_to_base (tuner, tuner->acc_bytes_per_file / tuner->n_acc, gain, out_reason);
    }

  if (tuner->n_acc < tuner->window)
    return 0;

  mix = tuner->acc_bytes_per_file / tuner->n_acc;
  if (!tuner->have_base)
    tuner->metric_is_files = mix > 0 && mix < LARGE_FILE_BYTES;
  metric = window_metric (tuner);
  measured = tuner->current;

  if (!tuner->have_base)
    {
      tuner->have_base = TRUE;
      tuner->base_threads = measured;
      tuner->base_metric = metric;
      if (measured < tuner->max_threads)
        {
          *out_reason = g_strdup_printf ("auto: %.0f %s at %u threads, trying %u",
                                         metric, unit (tuner), measured, measured * 2);
          tuner->phase = CS_AUTO_PROBING_UP;
          return change_to (tuner, MIN (measured * 2, tuner->max_threads));
        }
      tuner->phase = CS_AUTO_PROBING_DOWN;
      *out_reason = g_strdup_printf ("auto: %.0f %s at %u threads, trying %u",
                                     metric, unit (tuner), measured, measured / 2);
      return change_to (tuner, MAX (measured / 2, tuner->min_threads));
    }

  gain = tuner->base_metric > 0 ? metric / tuner->base_metric - 1.0 : (metric > 0 ? 1.0 : 0.0);

  if (tuner->phase == CS_AUTO_PROBING_UP)
    {
      if (gain > tuner->hysteresis)
        {
          tuner->base_threads = measured;
          tuner->base_metric = metric;
          if (measured < tuner->max_threads)
            {
              *out_reason = g_strdup_printf ("auto: %s %+.0f %% at %u threads, trying %u",
                                             unit (tuner), gain * 100, measured,
                                             MIN (measured * 2, tuner->max_threads));
              return change_to (tuner, MIN (measured * 2, tuner->max_threads));
            }
          hold (tuner, mix);
          *out_reason = g_strdup_printf ("auto: keeping %u threads, the most allowed", measured);
          tuner->decisions++;
          return 0;
        }

      /* No real gain from more threads. If the climb never got past its start,
       * fewer threads may do as well; otherwise settle on the last good count. */
      if (tuner->base_threads * 2 == measured && tuner->base_threads > tuner->min_threads
          && tuner->decisions <= 1)
        {
          tuner->phase = CS_AUTO_PROBING_DOWN;
          *out_reason = g_strdup_printf ("auto: %s %+.0f %% at %u threads, trying %u",
                                         unit (tuner), gain * 100, measured, tuner->base_threads / 2);
          return change_to (tuner, MAX (tuner->base_threads / 2, tuner->min_threads));
        }
      return back_to_base (tuner, mix, gain, out_reason);
    }

  /* Probing down: fewer threads that do as well are better. */
  if (gain >= -tuner->hysteresis)
    {
      tuner->base_threads = measured;
      tuner->base_metric = MAX (metric, tuner->base_metric);
      if (measured > tuner->min_threads)
        {
          *out_reason = g_strdup_printf ("auto: %s %+.0f %% at %u threads, trying %u",
                                         unit (tuner), gain * 100, measured, measured / 2);
          return change_to (tuner, MAX (measured / 2, tuner->min_threads));
        }
      hold (tuner, mix);
      *out_reason = g_strdup_printf ("auto: keeping %u thread", measured);
      tuner->decisions++;
      return 0;
    }

  return back_to_base (tuner, mix, gain, out_reason);
}
