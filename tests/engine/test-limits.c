/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "copyscope-engine.h"
#include "cs-test-tree.h"

/*
 * Speed limits: a copy is never faster than its limit (the bucket holds a
 * tenth of a second's worth and lends one request more, so B bytes at R
 * bytes/s take at least (B - 2 R/10) / R), a limit changed while the job runs takes effect and is an
 * event in the run record, and a stop reaches workers waiting for the limit.
 * Only lower bounds on time are asserted, and upper bounds an order of
 * magnitude away: the machines are shared. How close the rate holds to its
 * limit is measured by bench/limits, not here.
 */

typedef struct {
  char *root;
  char *src;
  char *out;
} Fixture;

static void
write_file (const char *path,
            gsize       size,
            guint       seed)
{
  g_autofree guint8 *data = g_malloc (MAX (size, 1));
  g_autoptr(GError) error = NULL;

  for (gsize i = 0; i < size; i++)
    data[i] = (guint8) ((i * 2654435761u + seed * 7919u) >> 11);
  g_file_set_contents (path, (const char *) data, (gssize) size, &error);
  g_assert_no_error (error);
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->root = cs_test_tree_make_tmp ();
  f->src = g_build_filename (f->root, "src", NULL);
  f->out = g_build_filename (f->root, "out", NULL);
  g_assert_cmpint (g_mkdir (f->src, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (f->out, 0755), ==, 0);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  cs_test_tree_remove (f->root);
  g_free (f->root);
  g_free (f->src);
  g_free (f->out);
}

static void
make_files (Fixture *f,
            guint    n,
            gsize    size)
{
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = g_strdup_printf ("f%03u", i);
      g_autofree char *p = g_build_filename (f->src, name, NULL);

      write_file (p, size, i);
    }
}

static CsJob *
new_job (Fixture *f,
         guint    threads)
{
  CsJob *job = cs_job_new ();

  cs_job_add_source (job, f->src);
  cs_job_set_destination (job, f->out);
  cs_job_set_threads (job, threads, NULL);
  cs_job_set_interval (job, 100);
  cs_job_set_flush (job, FALSE);
  return job;
}

static double
run_timed (CsJob   *job,
           GError **error)
{
  gint64 start = g_get_monotonic_time ();

  cs_job_run_sync (job, NULL, error);
  return (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
}

static void
assert_copied (Fixture *f)
{
  g_autofree char *copy = g_build_filename (f->out, "src", NULL);

  cs_test_tree_assert_equal (f->src, copy);
  g_assert_cmpuint (cs_test_tree_find_temporaries (f->out), ==, 0);
}

/* 12 MB at 20 MB/s: at least 0.4 s, with 1 thread and with 8. */
static void
test_bytes (Fixture       *f,
            gconstpointer  data)
{
  guint threads = GPOINTER_TO_UINT (data);
  g_autoptr(CsJob) job = new_job (f, threads);
  g_autoptr(GError) error = NULL;
  double seconds;

  make_files (f, 6, 2 * 1000 * 1000);
  cs_job_set_max_rate (job, 20e6);
  g_assert_cmpfloat (cs_job_get_max_rate (job), ==, 20e6);
  seconds = run_timed (job, &error);
  g_assert_no_error (error);
  g_test_message ("12 MB at 20 MB/s, %u threads: %.2f s", threads, seconds);
  g_assert_cmpfloat (seconds, >=, (12e6 - 2 * 2e6) / 20e6);
  g_assert_cmpfloat (seconds, <, 30);
  g_assert_cmpfloat (cs_run_get_settings (cs_job_get_run (job))->max_rate, ==, 20e6);
  assert_copied (f);
}

/* 30 files at 20 files/s: at least 1.35 s. */
static void
test_files (Fixture       *f,
            gconstpointer  data)
{
  g_autoptr(CsJob) job = new_job (f, 8);
  g_autoptr(GError) error = NULL;
  double seconds;

  make_files (f, 30, 100);
  cs_job_set_max_files (job, 20);
  seconds = run_timed (job, &error);
  g_assert_no_error (error);
  g_test_message ("30 files at 20 files/s: %.2f s", seconds);
  g_assert_cmpfloat (seconds, >=, (30 - 3) / 20.0);
  g_assert_cmpfloat (cs_run_get_settings (cs_job_get_run (job))->max_files, ==, 20);
  assert_copied (f);
}

typedef struct {
  CsJob   *job;
  guint    progress;
  gboolean limited_seen;
  gboolean lifted;
} Live;

static void
on_progress_lift (CsJob    *job,
                  gpointer  user_data)
{
  Live *live = user_data;

  live->limited_seen |= cs_job_get_limited (job);
  /* Once a few updates have come in at 1 MB/s, lift the limit. */
  if (++live->progress == 3 && !live->lifted)
    {
      cs_job_set_max_rate (job, 0);
      live->lifted = TRUE;
    }
}

/* 40 MB at 1 MB/s would take 40 s; lifted after a moment, it ends long
 * before, and the run record has the change at its time. */
static void
test_live_change (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(CsJob) job = new_job (f, 4);
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) events = NULL;
  Live live = { job };
  const CsRunEvent *e;
  double seconds;

  make_files (f, 20, 2 * 1000 * 1000);
  cs_job_set_max_rate (job, 1e6);
  g_signal_connect (job, "progress", G_CALLBACK (on_progress_lift), &live);
  seconds = run_timed (job, &error);
  g_assert_no_error (error);
  g_test_message ("lifted after %u updates; %.2f s in all", live.progress, seconds);
  g_assert_true (live.lifted);
  g_assert_true (live.limited_seen);
  g_assert_cmpfloat (seconds, <, 20);
  g_assert_cmpfloat (cs_job_get_max_rate (job), ==, 0);

  events = cs_run_dup_events (cs_job_get_run (job));
  g_assert_cmpuint (events->len, ==, 1);
  e = &g_array_index (events, CsRunEvent, 0);
  g_assert_cmpstr (e->kind, ==, "max-rate");
  g_assert_cmpfloat (e->value, ==, 0);
  g_assert_cmpfloat (e->t, >, 0);
  g_assert_cmpfloat (e->t, <=, cs_run_get_duration (cs_job_get_run (job)));
  /* The record keeps the limit it started with; the change is the event. */
  g_assert_cmpfloat (cs_run_get_settings (cs_job_get_run (job))->max_rate, ==, 1e6);
  assert_copied (f);

  /* And the event survives the JSON round trip. */
  {
    g_autofree char *saved = g_build_filename (f->root, "run.json", NULL);
    g_autoptr(CsRun) back = NULL;
    g_autoptr(GArray) back_events = NULL;

    g_assert_true (cs_run_save (cs_job_get_run (job), saved, &error));
    back = cs_run_load (saved, &error);
    g_assert_no_error (error);
    back_events = cs_run_dup_events (back);
    g_assert_cmpuint (back_events->len, ==, 1);
    g_assert_cmpstr (g_array_index (back_events, CsRunEvent, 0).kind, ==, "max-rate");
    g_assert_cmpfloat (cs_run_get_settings (back)->max_rate, ==, 1e6);
  }
}

static void
on_progress_tighten (CsJob    *job,
                     gpointer  user_data)
{
  Live *live = user_data;

  if (++live->progress == 2)
    cs_job_set_max_rate (job, 2e6);
}

/* Started without a limit on a tree big enough to outlast the first
 * updates, limited from the second: the rest is held to it. */
static void
test_set_while_running (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(CsJob) job = new_job (f, 2);
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) events = NULL;
  Live live = { job };

  make_files (f, 8, 1000 * 1000);
  /* Slow enough from the start that the second update comes mid-copy. */
  cs_job_set_max_files (job, 10);
  g_signal_connect (job, "progress", G_CALLBACK (on_progress_tighten), &live);
  run_timed (job, &error);
  g_assert_no_error (error);
  events = cs_run_dup_events (cs_job_get_run (job));
  g_assert_cmpuint (events->len, ==, 1);
  g_assert_cmpstr (g_array_index (events, CsRunEvent, 0).kind, ==, "max-rate");
  g_assert_cmpfloat (g_array_index (events, CsRunEvent, 0).value, ==, 2e6);
  g_assert_cmpfloat (cs_run_get_settings (cs_job_get_run (job))->max_rate, ==, 0);
  assert_copied (f);
}

/* cs_job_cancel works from any thread; run_sync iterates a context of its own. */
static gpointer
cancel_soon (gpointer user_data)
{
  g_usleep (300 * 1000);
  cs_job_cancel (user_data);
  return NULL;
}

/* Workers waiting for a limit of 100 kB/s stop at a cancel within a second,
 * and leave nothing partial behind. */
static void
test_cancel_while_limited (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(CsJob) job = new_job (f, 4);
  g_autoptr(GError) error = NULL;
  g_autofree char *copy = g_build_filename (f->out, "src", NULL);
  GThread *canceller;
  gint64 start;
  double seconds;

  make_files (f, 4, 5 * 1000 * 1000);
  cs_job_set_max_rate (job, 100e3);
  start = g_get_monotonic_time ();
  canceller = g_thread_new ("canceller", cancel_soon, job);
  cs_job_run_sync (job, NULL, &error);
  g_thread_join (canceller);
  seconds = (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_test_message ("cancelled at 0.3 s, over at %.2f s", seconds);
  g_assert_cmpfloat (seconds, <, 0.3 + 1.0 + 1.0);
  cs_test_tree_assert_partial (f->src, copy, FALSE);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/limits/bytes/1-thread", Fixture, GUINT_TO_POINTER (1), fixture_setup, test_bytes, fixture_teardown);
  g_test_add ("/limits/bytes/8-threads", Fixture, GUINT_TO_POINTER (8), fixture_setup, test_bytes, fixture_teardown);
  g_test_add ("/limits/files", Fixture, NULL, fixture_setup, test_files, fixture_teardown);
  g_test_add ("/limits/live-change", Fixture, NULL, fixture_setup, test_live_change, fixture_teardown);
  g_test_add ("/limits/set-while-running", Fixture, NULL, fixture_setup, test_set_while_running, fixture_teardown);
  g_test_add ("/limits/cancel-while-limited", Fixture, NULL, fixture_setup, test_cancel_while_limited,
              fixture_teardown);

  return g_test_run ();
}
