/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

/*
 * A worker's time ready to run but not running (run_delay, from its
 * schedstat file): the line read, the deltas counted from when a slot was
 * taken, never going down, and a thread that ended or a missing file.
 */

#include "config.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdatomic.h>
#include <unistd.h>

#include "cs-worker-phase-private.h"

static void
test_parse (void)
{
  guint64 delay = 0, slices = 0;

  g_assert_true (_cs_run_delay_parse ("238114013 398610185 93\n", 23, &delay, &slices));
  g_assert_cmpuint (delay, ==, 398610185);
  g_assert_cmpuint (slices, ==, 93);
  /* A kernel without scheduler statistics. */
  g_assert_false (_cs_run_delay_parse ("0 0 0\n", 6, &delay, NULL));
  g_assert_false (_cs_run_delay_parse ("", 0, &delay, NULL));
  g_assert_false (_cs_run_delay_parse ("12 x 3\n", 7, &delay, NULL));
  g_assert_false (_cs_run_delay_parse ("12 34\n", 6, &delay, NULL));
  g_assert_false (_cs_run_delay_parse ("-1 5 3\n", 7, &delay, NULL));
}

/* Writes @line over @path's contents in place: the same file, as the
 * kernel's stays the same file while its numbers move. */
static void
rewrite (const char *path,
         const char *line)
{
  int fd = open (path, O_WRONLY | O_TRUNC);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, line, strlen (line)), ==, (gssize) strlen (line));
  close (fd);
}

static void
test_deltas (void)
{
  g_autofree char *dir = g_dir_make_tmp ("cs-run-delay-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "schedstat", NULL);
  CsRunDelay d;

  g_assert_true (g_file_set_contents (path, "5 100 1\n", -1, NULL));
  _cs_run_delay_open (&d, path);
  g_assert_cmpint (d.fd, >=, 0);
  /* Counted from when it was opened: the 100 before are not the job's. */
  g_assert_cmpuint (_cs_run_delay_read (&d), ==, 0);

  rewrite (path, "9 350 2\n");
  g_assert_cmpuint (_cs_run_delay_read (&d), ==, 250);
  /* Less than before: never a negative delta, the 250 stay. */
  rewrite (path, "9 120 3\n");
  g_assert_cmpuint (_cs_run_delay_read (&d), ==, 250);
  rewrite (path, "9 400 4\n");
  g_assert_cmpuint (_cs_run_delay_read (&d), ==, 300);
  /* The file no longer says anything: what was counted stays, and it is
   * read no more. */
  rewrite (path, "0 0 0\n");
  g_assert_cmpuint (_cs_run_delay_read (&d), ==, 300);
  g_assert_cmpint (d.fd, ==, -1);
  rewrite (path, "9 900 5\n");
  g_assert_cmpuint (_cs_run_delay_read (&d), ==, 300);
  _cs_run_delay_close (&d);

  g_unlink (path);
  g_rmdir (dir);
}

static void
test_missing (void)
{
  CsRunDelay d;
  CsWorkerPhase *w = g_new (CsWorkerPhase, 1);

  _cs_run_delay_open (&d, "/nonexistent-copyscope/schedstat");
  g_assert_cmpint (d.fd, ==, -1);
  g_assert_cmpuint (_cs_run_delay_read (&d), ==, 0);
  _cs_run_delay_close (&d);

  /* A slot on a machine without the files: not measured, and reads 0. */
  _cs_run_delay_set_task_dir ("/nonexistent-copyscope");
  _cs_worker_phase_init (w, CS_PHASE_WAITING, _cs_worker_phase_now ());
  _cs_run_delay_set_task_dir ("/proc/self/task");
  g_assert_cmpint (w->tid, ==, _cs_run_delay_tid ());
  g_assert_cmpint (w->run_delay.fd, ==, -1);
  g_assert_cmpuint (_cs_run_delay_read (&w->run_delay), ==, 0);
  _cs_worker_phase_clear (w);
  g_free (w);
}

/* A wait counted when it ends lands in a later sample: what is past the
 * sample's workers moves on to the next ones, the total kept. */
static void
test_spread (void)
{
  /* Four workers, samples of 0.25 s: at most 1 worker-s each. */
  const double raw[] = { 0.25, 0.0, 2.5, 0.0, 0.5, 1.75 };
  const double expected[] = { 0.25, 0.0, 1.0, 1.0, 1.0, 1.75 };
  double carry = 0, in = 0, out = 0;

  for (guint i = 0; i < G_N_ELEMENTS (raw); i++)
    {
      gboolean final = i + 1 == G_N_ELEMENTS (raw);
      double got = _cs_run_delay_spread (&carry, raw[i], 1.0, final);

      g_assert_cmpfloat_with_epsilon (got, expected[i], 1e-12);
      if (!final)
        g_assert_cmpfloat (got, <=, 1.0);
      in += raw[i];
      out += got;
    }
  g_assert_cmpfloat (carry, ==, 0);
  g_assert_cmpfloat_with_epsilon (out, in, 1e-12);

  /* No room (no workers yet): all of it waits for the next sample. */
  carry = 0;
  g_assert_cmpfloat (_cs_run_delay_spread (&carry, 0.5, 0.0, FALSE), ==, 0);
  g_assert_cmpfloat (_cs_run_delay_spread (&carry, 0.0, 1.0, FALSE), ==, 0.5);
  g_assert_cmpfloat (carry, ==, 0);
}

static atomic_bool burning;

static gpointer
burn_func (gpointer data)
{
  while (atomic_load (&burning))
    ;
  return NULL;
}

typedef struct {
  CsRunDelay first, second;
  guint64    first_total, second_total;
} ThreadState;

static void
spin (double seconds)
{
  gint64 until = g_get_monotonic_time () + (gint64) (seconds * G_USEC_PER_SEC);

  while (g_get_monotonic_time () < until)
    ;
}

/* One thread, two jobs' slots one after the other, then it ends. */
static gpointer
worker_func (gpointer data)
{
  ThreadState *state = data;

  _cs_run_delay_open_thread (&state->first, _cs_run_delay_tid ());
  spin (0.3);
  state->first_total = _cs_run_delay_read (&state->first);
  /* The thread taken up by the next job: its slot starts where the
   * thread's count is now. */
  _cs_run_delay_open_thread (&state->second, _cs_run_delay_tid ());
  spin (0.3);
  state->second_total = _cs_run_delay_read (&state->second);
  return NULL;
}

static void
test_thread_ends (void)
{
  guint n_burners = g_get_num_processors () + 1;
  g_autoptr(GPtrArray) burners = g_ptr_array_new ();
  ThreadState state = { { -1 }, { -1 } };
  GThread *thread;
  guint64 first, second;

  /* More threads than processors, so the worker waits for one. */
  atomic_store (&burning, TRUE);
  for (guint i = 0; i < n_burners; i++)
    g_ptr_array_add (burners, g_thread_new ("burn", burn_func, NULL));
  thread = g_thread_new ("worker", worker_func, &state);
  g_thread_join (thread);
  atomic_store (&burning, FALSE);
  for (guint i = 0; i < burners->len; i++)
    g_thread_join (burners->pdata[i]);

  g_assert_cmpint (state.first.fd, >=, 0);
  g_assert_cmpint (state.second.fd, >=, 0);
  g_test_message ("waited %.1f ms, then %.1f ms",
                  state.first_total / 1e6, state.second_total / 1e6);
  g_assert_cmpuint (state.first_total, >, 0);
  /* The second slot never counts what the first did. */
  g_assert_cmpuint (state.second.base, >=, state.first.base + state.first_total);

  /* The thread has ended: its files read no more, what was counted stays
   * (the sampler's last read of it, here the whole run's), never less. */
  first = _cs_run_delay_read (&state.first);
  second = _cs_run_delay_read (&state.second);
  g_assert_cmpint (state.first.fd, ==, -1);
  g_assert_cmpint (state.second.fd, ==, -1);
  g_assert_cmpuint (first, ==, state.first_total);
  g_assert_cmpuint (second, ==, state.second_total);
  g_assert_cmpuint (_cs_run_delay_read (&state.first), ==, first);
  g_assert_cmpuint (_cs_run_delay_read (&state.second), ==, second);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/run-delay/parse", test_parse);
  g_test_add_func ("/run-delay/deltas", test_deltas);
  g_test_add_func ("/run-delay/missing", test_missing);
  g_test_add_func ("/run-delay/thread-ends", test_thread_ends);
  g_test_add_func ("/run-delay/spread", test_spread);

  return g_test_run ();
}
