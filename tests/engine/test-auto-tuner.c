/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "cs-auto-tuner.h"

/*
 * The controller against simulated copies: throughput as a function of the
 * thread count (with noise), fed one sample at a time as the engine would.
 */

typedef double (*Model) (guint threads);

/* A NAS with 1 ms round trips: gains until ~8 threads, then flat. */
static double
model_nas (guint n)
{
  /* Requests in flight limit it until the share saturates at 8. */
  return 1000.0 * MIN (n, 8) / 8.0 * (n <= 8 ? 1.0 : 1.0 + 0.01 * log2 (n / 8.0));
}

/* A local disk where more threads hurt past 4. */
static double
model_peak4 (guint n)
{
  static const double v[] = { 0, 300, 520, 600, 640, 630, 600, 560, 500 };
  guint i = 0;

  while ((1u << i) < n)
    i++;
  return v[MIN (i + 1, G_N_ELEMENTS (v) - 1)];
}

/* A NAS where 4 threads already keep it busy and 2 do not. */
static double
model_knee4 (guint n)
{
  return n >= 4 ? 1000.0 : 1000.0 * n / 4.0;
}

/* Bandwidth-bound: threads don't matter. */
static double
model_flat (guint n)
{
  return 400.0;
}

static double
noise (GRand *rand,
       double amplitude)
{
  return 1.0 + amplitude * (g_rand_double (rand) * 2.0 - 1.0);
}

typedef struct {
  guint final;
  guint changes;
  guint changes_late;   /* in the second half: oscillation shows up here */
  guint step_settled;   /* the sample at which the first probe ended */
  guint first_hold;     /* the count it then held */
} Outcome;

static Outcome
simulate (Model  model,
          guint  start,
          double bytes_per_file,
          double noise_amplitude,
          guint  n_samples)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  CsAutoTuner tuner;
  Outcome out = { 0 };

  cs_auto_tuner_init (&tuner, start, 1, 128);
  out.final = start;
  for (guint i = 0; i < n_samples; i++)
    {
      g_autofree char *reason = NULL;
      double rate = model (out.final) * noise (rand, noise_amplitude);
      guint next = cs_auto_tuner_feed (&tuner, rate, rate * bytes_per_file / 1e6, bytes_per_file, &reason);

      if (next != 0)
        {
          g_assert_nonnull (reason);
          g_assert_true (g_str_has_prefix (reason, "auto: "));
          out.changes++;
          if (i > n_samples / 2)
            out.changes_late++;
          out.final = next;
        }
      if (tuner.phase == CS_AUTO_HOLDING && out.first_hold == 0)
        {
          out.first_hold = out.final;
          out.step_settled = i;
        }
    }
  return out;
}

static void
test_converges_on_nas (void)
{
  Outcome o = simulate (model_nas, 4, 12000, 0.02, 400);

  /* 4 → 8 (+), 8 → 16 (flat) → back to 8. */
  g_assert_cmpuint (o.first_hold, ==, 8);
  g_assert_cmpuint (o.final, ==, 8);
  g_assert_cmpuint (o.step_settled, <, 30);
}

static void
test_backs_off_when_more_hurts (void)
{
  Outcome o = simulate (model_peak4, 16, 12000, 0.02, 400);

  g_assert_cmpuint (o.final, >=, 4);
  g_assert_cmpuint (o.final, <=, 8);
}

static void
test_prefers_fewer_when_flat (void)
{
  Outcome o = simulate (model_flat, 8, 8e6, 0.02, 400);

  g_assert_cmpuint (o.first_hold, <=, 2);
  g_assert_cmpuint (o.step_settled, <, 60);
}

static void
test_no_oscillation_with_noise (void)
{
  /* With 4 % noise, re-probes happen every ~10 s but never flap. */
  Outcome o = simulate (model_nas, 8, 12000, 0.04, 2000);

  g_assert_cmpuint (o.final, >=, 4);
  g_assert_cmpuint (o.final, <=, 16);
  /* A re-probe costs at most 2 changes; 2000 samples hold at most ~45 of them. */
  g_assert_cmpuint (o.changes, <=, 2 + 2 * (2000 / 45));
}

static void
test_reprobes_on_mix_change (void)
{
  CsAutoTuner tuner;
  gboolean reprobed = FALSE;
  guint threads = 8;

  cs_auto_tuner_init (&tuner, threads, 1, 128);
  for (guint i = 0; i < 200; i++)
    {
      g_autofree char *reason = NULL;
      double size = i < 100 ? 12000 : 50e6;
      double rate = model_nas (threads);
      guint next = cs_auto_tuner_feed (&tuner, rate, rate * size / 1e6, size, &reason);

      if (reason != NULL && strstr (reason, "file sizes changed") != NULL)
        reprobed = TRUE;
      if (next != 0)
        threads = next;
    }
  g_assert_true (reprobed);
}

/* Feeds Auto 60 noiseless samples of @model from 4 threads; returns the count
 * it ends on and how many samples it spent at 2. */
static guint
probe_from_4 (Model  model,
              guint *samples_at_2)
{
  CsAutoTuner tuner;
  guint threads = 4;

  *samples_at_2 = 0;
  cs_auto_tuner_init (&tuner, threads, 1, 128);
  for (guint i = 0; i < 60; i++)
    {
      g_autofree char *reason = NULL;
      double rate = model (threads);
      guint next = cs_auto_tuner_feed (&tuner, rate, rate * 12000 / 1e6, 12000, &reason);

      if (threads == 2)
        (*samples_at_2)++;
      if (next != 0)
        threads = next;
    }
  return threads;
}

/* Started at a remembered 4 on a share where 4–32 are equally fast, Auto
 * probes 8 (no gain), then 2, which halves the rate: that probe must end
 * after one sample, not a whole window. */
static void
test_losing_probe_ends_early (void)
{
  guint samples_at_2;
  guint threads = probe_from_4 (model_knee4, &samples_at_2);

  /* One sample while workers settle, one to tell a loss of half. */
  g_assert_cmpuint (samples_at_2, >=, 1);
  g_assert_cmpuint (samples_at_2, <=, 2);
  g_assert_cmpuint (threads, >=, 4);
}

/* Two threads do 80 % of what four do: a loss one sample could show by chance. */
static double
model_mild_knee (guint n)
{
  return n >= 4 ? 1000.0 : 800.0;
}

static void
test_mild_loss_takes_two_samples (void)
{
  guint samples_at_2;
  guint threads = probe_from_4 (model_mild_knee, &samples_at_2);

  /* One sample while workers settle, two to tell, never the whole window. */
  g_assert_cmpuint (samples_at_2, ==, 3);
  g_assert_cmpuint (threads, >=, 4);
}

static void
test_bounds (void)
{
  CsAutoTuner tuner;

  cs_auto_tuner_init (&tuner, 500, 1, 128);
  g_assert_cmpuint (tuner.current, ==, 128);
  cs_auto_tuner_init (&tuner, 0, 1, 128);
  g_assert_cmpuint (tuner.current, ==, 1);
  {
    Outcome o = simulate (model_nas, 128, 12000, 0.0, 100);
    g_assert_cmpuint (o.final, >=, 1);
    g_assert_cmpuint (o.final, <=, 128);
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/auto-tuner/converges-on-nas", test_converges_on_nas);
  g_test_add_func ("/auto-tuner/backs-off", test_backs_off_when_more_hurts);
  g_test_add_func ("/auto-tuner/prefers-fewer-when-flat", test_prefers_fewer_when_flat);
  g_test_add_func ("/auto-tuner/no-oscillation", test_no_oscillation_with_noise);
  g_test_add_func ("/auto-tuner/reprobes-on-mix-change", test_reprobes_on_mix_change);
  g_test_add_func ("/auto-tuner/losing-probe-ends-early", test_losing_probe_ends_early);
  g_test_add_func ("/auto-tuner/mild-loss-takes-two-samples", test_mild_loss_takes_two_samples);
  g_test_add_func ("/auto-tuner/bounds", test_bounds);

  return g_test_run ();
}
