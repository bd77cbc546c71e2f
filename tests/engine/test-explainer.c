/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>

#include "copyscope-engine.h"

/* A copy at a steady pace, as the sampler would report it every 0.25 s. */
typedef struct {
  double  files_per_s;
  double  bytes_per_file;
  double  requests_per_file;
  double  request_ms;
  double  cpu;
  guint   threads;
  gboolean remote;
  double  process_cpu;    /* the copy's own, % of one processor; 0: not known */
} Pace;

typedef struct {
  CsExplainer *explainer;
  double       t;
  guint64      files;
  guint64      bytes;
} Feed;

static void
feed (Feed       *f,
      const Pace *pace,
      double      seconds)
{
  for (double end = f->t + seconds - 1e-9; f->t < end;)
    {
      CsSample s = { 0 };

      for (guint i = 0; i < CS_N_COUNTERS; i++)
        s.values[i] = NAN;
      f->t += 0.25;
      f->files += (guint64) llround (pace->files_per_s * 0.25);
      f->bytes += (guint64) llround (pace->files_per_s * 0.25 * pace->bytes_per_file);
      s.t = f->t;
      s.files_done = f->files;
      s.bytes_done = f->bytes;
      s.values[CS_COUNTER_REQUEST_RATE] = pace->files_per_s * pace->requests_per_file;
      s.values[CS_COUNTER_FILE_RATE] = pace->files_per_s;
      /* Reads from a local disk take next to nothing: the writes tell. */
      s.values[CS_COUNTER_AVG_READ_REQUEST_TIME] = 0.05;
      s.values[CS_COUNTER_AVG_WRITE_REQUEST_TIME] = pace->request_ms;
      s.values[CS_COUNTER_AVG_REQUEST_TIME] = (0.05 + pace->request_ms) / 2;
      s.values[CS_COUNTER_CPU_USAGE] = pace->cpu;
      s.values[CS_COUNTER_PROCESS_CPU_USAGE] = pace->process_cpu > 0 ? pace->process_cpu : NAN;
      s.values[CS_COUNTER_THREADS] = pace->threads;
      cs_explainer_push (f->explainer, &s);
    }
}

static void
assert_limit (CsExplainer *explainer,
              const char  *expected)
{
  g_autofree char *text = cs_explainer_dup_limit (explainer);

  g_assert_cmpstr (text, ==, expected);
}

static void
assert_change (CsExplainer *explainer,
               const char  *expected)
{
  g_autofree char *text = cs_explainer_dup_change (explainer);

  g_assert_cmpstr (text, ==, expected);
}

/* What limits the copy is said from what the samples show, not from the size
 * of the files alone: "more threads help" only where requests wait. */
static void
test_limit (void)
{
  static const struct {
    Pace        pace;
    const char *expected;
  } cases[] = {
    /* A local disk, the processors doing the copying: threads cannot help. */
    { { 2000, 12288, 11, 0.05, 97, 8, FALSE, 185 }, "The processors are busy (97 %): more threads won't help" },
    { { 2000, 12288, 11, 0.05, 97, 8 }, "The processors are busy (97 %): more threads won't help" },
    /* A share on a desktop where other programs take the processors: the copy
     * itself uses a tenth of one, its requests wait for the server, and more
     * threads do overlap those waits (seen: +156 % from 2 to 8 threads). */
    { { 16, 12288, 17, 82.3, 100, 8, TRUE, 10.9 },
      "Small files on a share: 17 requests per file, 82.3 ms each — more threads overlap the waits" },
    /* The same on a local disk: what limits it is not this copy's processors. */
    { { 900, 12288, 11, 0.04, 100, 2, FALSE, 30 }, "Small files: 11 requests per file limit the copy" },
    /* A local disk, one thread, the processors half idle. */
    { { 900, 12288, 11, 0.04, 45, 1 }, "Small files: 11 requests per file limit the copy" },
    { { 900, 500, 1, 0.04, 45, 1 }, "Small files: 1 request per file limits the copy" },
    /* A share: each request a round trip. */
    { { 80, 12288, 25, 1.3, 20, 8, TRUE },
      "Small files on a share: 25 requests per file, 1.3 ms each — more threads overlap the waits" },
    /* A local disk on a busy machine: slow requests wait for a processor,
     * not for a server; more threads would not overlap anything. */
    { { 900, 12288, 11, 4.0, 70, 8 }, "Small files: 11 requests per file limit the copy" },
    { { 40, 7.5e6, 300, 2.0, 30, 4, TRUE }, "Large files: limited by bandwidth — more threads won't help" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(CsExplainer) explainer = cs_explainer_new ();
      Feed f = { explainer };

      assert_limit (explainer, NULL);
      cs_explainer_set_remote (explainer, cases[i].pace.remote);
      cs_explainer_set_processors (explainer, 2);
      feed (&f, &cases[i].pace, 5);
      assert_limit (explainer, cases[i].expected);
    }
}

/* Nothing moved in the last seconds: nothing to say; a pause (the clock
 * standing still) is not a stall. */
static void
test_limit_quiet (void)
{
  g_autoptr(CsExplainer) explainer = cs_explainer_new ();
  Pace moving = { 900, 12288, 11, 0.04, 45, 2 };
  Pace still = { 0, 12288, 0, NAN, 5, 2 };
  Feed f = { explainer };
  CsSample paused = { 0 };

  feed (&f, &moving, 2);
  /* The same clock again, with other counts: ignored. */
  paused.t = f.t;
  paused.files_done = f.files + 100000;
  for (guint i = 0; i < CS_N_COUNTERS; i++)
    paused.values[i] = NAN;
  cs_explainer_push (explainer, &paused);
  assert_limit (explainer, "Small files: 11 requests per file limit the copy");
  feed (&f, &still, CS_EXPLAINER_WINDOW + 0.5);
  assert_limit (explainer, NULL);
}

/* A thread change is judged once both counts ran long enough, after the new
 * one settled; by files for small files, by bytes for large ones. */
static void
test_change (void)
{
  g_autoptr(CsExplainer) explainer = cs_explainer_new ();
  Feed f = { explainer };
  Pace two = { 100, 12288, 25, 1.3, 20, 2 };
  Pace eight = { 140, 12288, 25, 1.3, 25, 8 };
  Pace sixteen = { 144, 12288, 25, 1.3, 25, 16 };
  Pace thirty_two = { 92, 12288, 25, 1.3, 25, 32 };

  feed (&f, &two, 3);
  assert_change (explainer, NULL);
  feed (&f, &eight, 2);
  /* One second settling, one counted: not yet. */
  assert_change (explainer, NULL);
  feed (&f, &eight, 1);
  assert_change (explainer, "2 → 8 threads: files/s +40 %");
  feed (&f, &sixteen, 3);
  assert_change (explainer, "8 → 16 threads: no faster (files/s +3 %)");
  /* A count left before it could be told is not what the next is held to. */
  feed (&f, &thirty_two, 1);
  feed (&f, &sixteen, 0.5);
  feed (&f, &thirty_two, 3);
  assert_change (explainer, "16 → 32 threads: files/s -36 %");

  {
    g_autoptr(CsExplainer) big = cs_explainer_new ();
    Feed g = { big };
    Pace one = { 20, 7.5e6, 10, 0.5, 30, 1 };
    Pace two_big = { 30, 7.5e6, 10, 0.5, 30, 2 };

    feed (&g, &one, 3);
    feed (&g, &two_big, 3);
    assert_change (big, "1 → 2 threads: MB/s +50 %");
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/explainer/limit", test_limit);
  g_test_add_func ("/explainer/limit-quiet", test_limit_quiet);
  g_test_add_func ("/explainer/change", test_change);

  return g_test_run ();
}
