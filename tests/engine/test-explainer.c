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
  /* The workers' time by phase, shares that add up to 1; NULL: no phases fed */
  const double *shares;
  double  runnable;       /* share of the workers' time waiting for a processor; 0: not measured */
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

      if (pace->shares != NULL)
        {
          CsPhaseBucket b = { .t_start = f->t - 0.25, .t = f->t, .n = 1 };

          for (guint p = 0; p < CS_PHASE_N; p++)
            b.seconds[p] = pace->shares[p] * pace->threads * 0.25;
          b.runnable = pace->runnable * pace->threads * 0.25;
          cs_explainer_push_phases (f->explainer, &b);
        }
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

/* Small files to a share: nine tenths of the workers' time in requests. */
static const double share_shares[CS_PHASE_N] = {
  [CS_PHASE_WAITING] = 0.10, [CS_PHASE_OPENING] = 0.25, [CS_PHASE_READING] = 0.05,
  [CS_PHASE_WRITING] = 0.30, [CS_PHASE_METADATA] = 0.15, [CS_PHASE_PUBLISHING] = 0.15,
};
/* The scanner cannot keep up: workers idle 60 % of their time. */
static const double idle_shares[CS_PHASE_N] = {
  [CS_PHASE_WAITING] = 0.60, [CS_PHASE_OPENING] = 0.15, [CS_PHASE_WRITING] = 0.15,
  [CS_PHASE_METADATA] = 0.10,
};
/* Large files: reading and writing. */
static const double large_shares[CS_PHASE_N] = {
  [CS_PHASE_WAITING] = 0.02, [CS_PHASE_OPENING] = 0.01, [CS_PHASE_READING] = 0.26,
  [CS_PHASE_WRITING] = 0.70, [CS_PHASE_FLUSHING] = 0.01,
};
/* One big file, eight workers: one copies, seven have nothing to do. */
static const double one_big_shares[CS_PHASE_N] = {
  [CS_PHASE_WAITING] = 0.875, [CS_PHASE_READING] = 0.025, [CS_PHASE_WRITING] = 0.10,
};
/* To a share from a local disk, the processors taken by other programs:
 * were the workers to sit in the source's reads, those are not the
 * server's requests. */
static const double reading_shares[CS_PHASE_N] = {
  [CS_PHASE_OPENING] = 0.10, [CS_PHASE_READING] = 0.70, [CS_PHASE_WRITING] = 0.05,
  [CS_PHASE_FLUSHING] = 0.05, [CS_PHASE_PUBLISHING] = 0.10,
};
/* Half the copy paused: the paused time is not the workers' to share. */
static const double paused_shares[CS_PHASE_N] = {
  [CS_PHASE_PAUSED] = 0.50, [CS_PHASE_WAITING] = 0.05, [CS_PHASE_OPENING] = 0.15,
  [CS_PHASE_WRITING] = 0.20, [CS_PHASE_METADATA] = 0.10,
};

/* With the workers' time by phase, the sentence says what it shows. */
static void
test_limit_phases (void)
{
  static const struct {
    Pace        pace;
    const char *expected;
  } cases[] = {
    /* A share: seven of eight workers are in a request, each a round trip. */
    { { 80, 12288, 25, 1.3, 20, 8, TRUE, 0, share_shares },
      "7 of 8 workers are waiting for the server: more threads overlap the waits" },
    { { 40, 12288, 25, 1.3, 20, 1, TRUE, 0, share_shares },
      "1 of 1 worker is waiting for the server: more threads overlap the waits" },
    /* The same time on a local disk is not a server's. */
    { { 900, 12288, 11, 0.04, 45, 8, FALSE, 0, share_shares }, "Small files: 11 requests per file limit the copy" },
    { { 900, 12288, 11, 0.04, 45, 8, TRUE, 0, idle_shares },
      "Workers wait for work 60 % of the time: the folder listing is the limit" },
    /* Measured: workers ready to run with no processor. */
    { { 2000, 12288, 11, 0.05, 100, 8, FALSE, 190, share_shares, 0.45 },
      "Workers wait for a processor 45 % of the time: the processors are the limit" },
    /* Measured and low: the processors, busy as they are, do not hold the
     * workers back, so the CPU % says nothing. */
    { { 900, 12288, 11, 0.04, 100, 8, FALSE, 190, share_shares, 0.05 },
      "Small files: 11 requests per file limit the copy" },
    /* Not measured: the CPU % rule. */
    { { 2000, 12288, 11, 0.05, 97, 8, FALSE, 185, share_shares, 0 },
      "The processors are busy (97 %): more threads won't help" },
    { { 40, 7.5e6, 300, 2.0, 30, 4, TRUE, 0, large_shares },
      "Large files: the workers read and write 96 % of the time — limited by bandwidth" },
    { { 40, 7.5e6, 300, 2.0, 30, 8, FALSE, 0, one_big_shares },
      "Large files: limited by bandwidth — more threads won't help" },
    { { 80, 12288, 25, 1.3, 20, 8, FALSE, 0, paused_shares }, "Small files: 25 requests per file limit the copy" },
    { { 2100, 1024, 13, 0.67, 100, 32, TRUE, 85, reading_shares },
      "Small files on a share: 13 requests per file, 0.7 ms each — more threads overlap the waits" },
    { { 80, 12288, 25, 1.3, 20, 8, TRUE, 0, paused_shares },
      "7 of 8 workers are waiting for the server: more threads overlap the waits" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(CsExplainer) explainer = cs_explainer_new ();
      Feed f = { explainer };

      g_test_message ("case %u", i);
      cs_explainer_set_remote (explainer, cases[i].pace.remote);
      cs_explainer_set_processors (explainer, 2);
      feed (&f, &cases[i].pace, 5);
      assert_limit (explainer, cases[i].expected);
    }
}

/* Waiting for work while the scan goes on: the listing is the limit; once
 * it has ended, the queue has run dry and the last files are on their way. */
static void
test_limit_scan_ended (void)
{
  g_autoptr(CsExplainer) explainer = cs_explainer_new ();
  Pace idle = { 900, 12288, 11, 0.04, 45, 8, TRUE, 0, idle_shares };
  Feed f = { explainer };

  feed (&f, &idle, 4);
  assert_limit (explainer, "Workers wait for work 60 % of the time: the folder listing is the limit");
  cs_explainer_set_scan_ended (explainer, TRUE);
  assert_limit (explainer, "Workers wait for work 60 % of the time: the last files are on their way");
}

/* data/screenshots/many-copying.png read "The processors are busy (100 %):
 * more threads won't help" right above "2 → 32 threads: files/s +475 %".
 * The sentence is held to the measurement beside it, whichever way it went. */
static void
test_limit_agrees_with_change (void)
{
  g_autoptr(CsExplainer) explainer = cs_explainer_new ();
  Feed f = { explainer };
  Pace two = { 1000, 12288, 11, 0.05, 100, 2, FALSE, 190 };
  Pace thirty_two = { 5750, 12288, 11, 0.05, 100, 32, FALSE, 190 };
  Pace sixty_four = { 5800, 12288, 11, 0.05, 100, 64, FALSE, 190 };
  Pace back_to_two = { 1000, 12288, 11, 0.05, 100, 2, FALSE, 190 };

  cs_explainer_set_processors (explainer, 2);
  feed (&f, &two, 3);
  assert_limit (explainer, "The processors are busy (100 %): more threads won't help");
  feed (&f, &thirty_two, 3);
  assert_change (explainer, "2 → 32 threads: files/s +475 %");
  assert_limit (explainer, "The processors are busy (100 %): more than 32 threads won't help");
  /* While the next count settles, the change shown is still the last one. */
  feed (&f, &sixty_four, 1);
  assert_change (explainer, NULL);
  assert_limit (explainer, "The processors are busy (100 %): more than 64 threads won't help");
  feed (&f, &sixty_four, 2);
  assert_change (explainer, "32 → 64 threads: no faster (files/s +1 %)");
  assert_limit (explainer, "The processors are busy (100 %): more threads won't help");
  /* Fewer threads, slower: more threads did help, up to 64. */
  feed (&f, &back_to_two, 3);
  assert_change (explainer, "64 → 2 threads: files/s -83 %");
  assert_limit (explainer, "The processors are busy (100 %): more than 64 threads won't help");

  {
    g_autoptr(CsExplainer) share = cs_explainer_new ();
    Feed g = { share };
    Pace eight = { 140, 12288, 25, 1.3, 25, 8, TRUE, 0, share_shares };
    Pace sixteen = { 142, 12288, 25, 1.3, 25, 16, TRUE, 0, share_shares };

    cs_explainer_set_remote (share, TRUE);
    feed (&g, &eight, 3);
    feed (&g, &sixteen, 3);
    assert_change (share, "8 → 16 threads: no faster (files/s +3 %)");
    /* "More threads overlap the waits" would say what the line below denies. */
    assert_limit (share, "14 of 16 workers are waiting for the server: the server is the limit");
  }
  {
    g_autoptr(CsExplainer) share = cs_explainer_new ();
    Feed g = { share };
    Pace eight = { 140, 12288, 25, 1.3, 25, 8, TRUE };
    Pace sixteen = { 142, 12288, 25, 1.3, 25, 16, TRUE };

    cs_explainer_set_remote (share, TRUE);
    feed (&g, &eight, 3);
    feed (&g, &sixteen, 3);
    assert_limit (share, "Small files on a share: 25 requests per file, 1.3 ms each — the server is the limit");
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
  g_test_add_func ("/explainer/limit-phases", test_limit_phases);
  g_test_add_func ("/explainer/limit-agrees-with-change", test_limit_agrees_with_change);
  g_test_add_func ("/explainer/limit-scan-ended", test_limit_scan_ended);

  return g_test_run ();
}
