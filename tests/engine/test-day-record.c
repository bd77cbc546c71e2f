/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "copyscope-engine.h"
#include "cs-job-private.h"
#include "cs-run-private.h"
#include "cs-sampler-private.h"

/*
 * A day of copying through the engine's sampler, on a simulated clock: the
 * job's clock is held at each tick's time (as a pause holds it), and the
 * counters move as workers would move them. 345,600 ticks at 250 ms. The
 * record stays small and keeps every event and the exact statistics.
 */

#define TICKS        345600
#define TICK_US      250000
#define N_CHANGES    200
#define N_EVENTS     300

/* Files published in tick @i: a pattern with a known mean, lowest and highest. */
static guint
files_in_tick (guint i)
{
  return (i * 7) % 41;
}

static void
test_day_record (void)
{
  g_autoptr(CsJob) job = cs_job_new ();
  g_autoptr(CsRun) loaded = NULL;
  g_autoptr(GArray) timeline = NULL;
  g_autoptr(GArray) events = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  g_autofree char *path = NULL;
  CsRun *run = job->life.run;
  CsSampler *sampler;
  double sum = 0, min = INFINITY, max = -INFINITY;
  double first_part = 0, last_part = 0;
  guint threads = 4;
  CsRunSettings settings = { 0 };
  CsStat stat;
  int fd;

  settings.threads = threads;
  settings.interval_ms = TICK_US / 1000;
  _cs_run_set_settings (run, &settings);

  /* Started, its clock held: the sampler reads the time the test sets. */
  job->clock.start_mono = 1;
  job->clock.clock_origin = 1;
  atomic_store (&job->tune.threads, threads);
  __atomic_store_n (&job->clock.clock_frozen, 0, __ATOMIC_RELEASE);
  sampler = _cs_sampler_new (job);

  for (guint i = 1; i <= TICKS; i++)
    {
      guint files = files_in_tick (i);
      gint64 started = g_get_monotonic_time ();

      __atomic_store_n (&job->clock.clock_frozen, (gint64) i * TICK_US, __ATOMIC_RELEASE);
      atomic_fetch_add (&job->counters.files_done, files);
      atomic_fetch_add (&job->counters.bytes_done, (guint64) files * 1000000);
      atomic_fetch_add (&job->counters.bytes_written, (guint64) files * 1000000);
      atomic_fetch_add (&job->counters.requests[CS_REQ_WRITE], files * 8);
      if (i % (TICKS / N_CHANGES) == 0)
        {
          guint to = threads == 4 ? 16 : 4;

          _cs_run_add_thread_change (run, i * 0.25, threads, to, "user");
          atomic_store (&job->tune.threads, to);
          threads = to;
        }
      if (i % (TICKS / N_EVENTS) == 0)
        {
          CsRunEvent event = { i * 0.25, (char *) "max-rate", (double) i, 0, 0, NULL };

          _cs_run_add_event (run, &event);
        }

      _cs_sampler_take (sampler, TRUE, i == TICKS);

      if (i <= TICKS / 10)
        first_part += g_get_monotonic_time () - started;
      else if (i > TICKS - TICKS / 10)
        last_part += g_get_monotonic_time () - started;

      /* The samples the window would be sent; nobody listens here. */
      if (i % 10000 == 0)
        {
          _cs_mutex_lock (&job->channel.notify_lock);
          g_array_set_size (job->channel.pending_samples, 0);
          _cs_mutex_unlock (&job->channel.notify_lock);
        }

      sum += files / 0.25;
      min = MIN (min, files / 0.25);
      max = MAX (max, files / 0.25);
    }
  _cs_sampler_free (sampler);
  _cs_run_set_duration (run, TICKS * 0.25);
  _cs_run_set_outcome (run, "completed", NULL);

  /* Timing is no assertion here (bench/ measures); the figures are for the log. */
  g_test_message ("sampler: %.1f us a tick in the first tenth of the day, %.1f us in the last",
                  first_part / (TICKS / 10), last_part / (TICKS / 10));

  g_assert_cmpuint (cs_run_get_n_samples (run), ==, TICKS);
  g_assert_true (cs_run_get_stat (run, CS_COUNTER_FILE_RATE, &stat));
  g_assert_cmpfloat (stat.avg, ==, sum / TICKS);
  g_assert_cmpfloat (stat.min, ==, min);
  g_assert_cmpfloat (stat.max, ==, max);

  json = cs_run_to_json_string (run, TRUE);
  g_test_message ("a day's record: %zu bytes", strlen (json));
  g_assert_cmpuint (strlen (json), <=, 5 * 1000 * 1000);

  fd = g_file_open_tmp ("cs-day-XXXXXX.json", &path, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (cs_run_save (run, path, &error));
  g_assert_no_error (error);
  loaded = cs_run_load (path, &error);
  g_assert_no_error (error);
  g_unlink (path);

  g_assert_cmpuint (cs_run_get_n_samples (loaded), ==, TICKS);
  g_assert_true (cs_run_get_stat (loaded, CS_COUNTER_FILE_RATE, &stat));
  g_assert_cmpfloat (stat.avg, ==, sum / TICKS);
  g_assert_cmpfloat (stat.min, ==, min);
  g_assert_cmpfloat (stat.max, ==, max);
  g_assert_true (cs_run_get_stat (loaded, CS_COUNTER_THREADS, &stat));
  g_assert_cmpfloat (stat.min, ==, 4);
  g_assert_cmpfloat (stat.max, ==, 16);

  /* Every event, at its time, never merged. */
  timeline = cs_run_dup_timeline (loaded);
  g_assert_cmpuint (timeline->len, ==, N_CHANGES);
  for (guint k = 0; k < timeline->len; k++)
    {
      const CsThreadChange *change = &g_array_index (timeline, CsThreadChange, k);

      g_assert_cmpfloat (change->t, ==, (k + 1) * (TICKS / N_CHANGES) * 0.25);
      g_assert_cmpuint (change->to, ==, k % 2 == 0 ? 16 : 4);
    }
  events = cs_run_dup_events (loaded);
  g_assert_cmpuint (events->len, ==, N_EVENTS);
  for (guint k = 0; k < events->len; k++)
    g_assert_cmpfloat (g_array_index (events, CsRunEvent, k).t, ==, (k + 1) * (TICKS / N_EVENTS) * 0.25);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/day-record/engine", test_day_record);

  return g_test_run ();
}
