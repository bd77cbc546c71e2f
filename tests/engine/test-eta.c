/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>

#include "copyscope-engine.h"

/*
 * A copy as snapshots every 0.25 s of the clock: @n_files files, the first
 * @n_big of @big_size bytes, the rest of @small_size; each file costs @per_file
 * seconds plus @per_byte per byte, one after the other. The scan finds files
 * at @scan_rate per second until all are found. A pause of @pause_pushes
 * snapshots at @pause_at repeats the clock's time. With @jitter, each quarter
 * second does a random share of a quarter second's work, between 1 - @jitter
 * and 1 + @jitter of it (drawn from @seed): a disk and a machine that others
 * use.
 */
/* A folder of @n_files files of @size bytes each. */
typedef struct {
  guint   n_files;
  guint64 size;
} Folder;

typedef struct {
  const char *name;
  guint       n_files;
  guint       n_big;
  guint64     big_size;
  guint64     small_size;
  double      per_file;
  double      per_byte;
  double      scan_rate;
  double      pause_at;
  guint       pause_pushes;
  double      stall_from;   /* nothing moves from here to the end (0: never) */
  const Folder *folders;    /* when set, the files instead of @n_big and the sizes */
  double      jitter;
  guint32     seed;
} Copy;

typedef struct {
  double     t;
  CsProgress progress;
  double     left;          /* the truth */
} Snapshot;

static guint64
size_of (const Copy *c,
         guint       i)
{
  if (c->folders != NULL)
    {
      for (const Folder *f = c->folders; f->n_files > 0; f++)
        {
          if (i < f->n_files)
            return f->size;
          i -= f->n_files;
        }
      g_assert_not_reached ();
    }
  return i < c->n_big ? c->big_size : c->small_size;
}

static double
cost_of (const Copy *c,
         guint       i)
{
  return c->per_file + c->per_byte * (double) size_of (c, i);
}

static GArray *
simulate (const Copy *c)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (Snapshot));
  g_autoptr(GRand) rand = g_rand_new_with_seed (c->seed);
  double total = 0, work = 0, end = 0;
  gboolean paused = FALSE;

  for (guint i = 0; i < c->n_files; i++)
    total += cost_of (c, i);

  for (double t = 0.25; work <= total; t += 0.25)
    {
      double pace = c->jitter > 0 ? g_rand_double_range (rand, 1 - c->jitter, 1 + c->jitter) : 1;
      double spent = 0, clock;
      Snapshot s = { t, { 0 } };
      guint found = c->scan_rate > 0 ? (guint) MIN ((double) c->n_files, c->scan_rate * t) : c->n_files;
      guint i;

      if (work < total && work + 0.25 * pace >= total)
        end = t - 0.25 + (total - work) / pace;
      work += 0.25 * pace;
      clock = c->stall_from > 0 ? MIN (work, c->stall_from) : work;

      if (!paused && c->pause_pushes > 0 && t >= c->pause_at)
        {
          /* The clock stands still: the same snapshot, again and again. */
          Snapshot last = g_array_index (out, Snapshot, out->len - 1);

          for (guint k = 0; k < c->pause_pushes; k++)
            g_array_append_val (out, last);
          paused = TRUE;
        }

      s.progress.state = CS_JOB_STATE_RUNNING;
      s.progress.scanning = found < c->n_files;
      s.progress.elapsed = t;
      for (i = 0; i < c->n_files && spent + cost_of (c, i) <= clock; i++)
        {
          spent += cost_of (c, i);
          s.progress.files_done++;
          s.progress.bytes_done += size_of (c, i);
        }
      s.progress.files_copied = s.progress.files_done;
      s.progress.bytes_copied = s.progress.bytes_done;
      /* The file being written, by the share of its cost spent. */
      if (i < c->n_files)
        s.progress.bytes_copying = (guint64) ((double) size_of (c, i) * (clock - spent) / cost_of (c, i));
      s.progress.bytes_done += s.progress.bytes_copying;
      for (guint k = 0; k < found; k++)
        s.progress.bytes_found += size_of (c, k);
      s.progress.files_found = found;
      s.progress.total_known = !s.progress.scanning;
      s.progress.files_total = s.progress.files_found;
      s.progress.bytes_total = s.progress.bytes_found;
      g_array_append_val (out, s);
    }

  /* The truth: when the work really ended, at the pace each second had. */
  for (guint k = 0; k < out->len; k++)
    {
      Snapshot *s = &g_array_index (out, Snapshot, k);

      s->left = end - s->t;
    }

  return out;
}

static const Copy copies[] = {
  /* 2,000 files of 500 kB to a NAS at 50 MB/s: 20 s */
  { "text", 2000, 0, 0, 500000, 0.002, 1.0 / 62.5e6, 20000, 0, 0, 0 },
  /* a scan of 100,000 small files that takes 8 s of a 40 s copy */
  { "long-scan", 100000, 0, 0, 1000, 0.0004, 0, 12500, 0, 0, 0 },
  /* 10 s paused (40 snapshots of the same clock) in the middle */
  { "paused", 1000, 0, 0, 1000000, 0.01, 0, 0, 5.0, 40, 0 },
  /* ten large files first, then many small: the range holds the truth */
  { "mixed", 1010, 10, 200000000, 10000, 0.005, 1.0 / 100e6, 0, 0, 0, 0 },
  /* one 2 GB file */
  { "one-big", 1, 1, 2000000000, 0, 0.001, 1.0 / 200e6, 0, 0, 0, 0 },
  /* empty files only */
  { "empty", 5000, 0, 0, 0, 0.002, 0, 0, 0, 0, 0 },
};

/* Within a few seconds of the total being known, on any copy longer than
 * about 5 s, a time left appears; it holds the truth (or comes within 25 %)
 * and is never absurd: not negative, not wider than the truth's own size. */
static void
test_table (void)
{
  for (guint c = 0; c < G_N_ELEMENTS (copies); c++)
    {
      g_autoptr(GArray) snapshots = simulate (&copies[c]);
      g_autoptr(CsEta) eta = cs_eta_new ();
      double scan_end = -1, first = -1;
      guint checked = 0;

      for (guint i = 0; i < snapshots->len; i++)
        {
          const Snapshot *s = &g_array_index (snapshots, Snapshot, i);
          double low, high;

          cs_eta_push (eta, &s->progress);
          if (!s->progress.scanning && scan_end < 0)
            scan_end = s->t;

          if (!cs_eta_get_left (eta, &low, &high))
            {
              /* None while the total grows; after that only briefly. */
              g_assert_true (s->progress.scanning || first < 0 || s->left < 1.0);
              continue;
            }

          g_assert_false (s->progress.scanning);
          if (first < 0)
            first = s->t;
          g_assert_cmpfloat (low, >=, 0);
          g_assert_cmpfloat (low, <=, high);
          if (s->left >= 2.0)
            {
              /* The truth is in the range, give or take a quarter of it; a
               * range is never wider than the truth itself, or it is an
               * "at least". */
              g_assert_cmpfloat (low, <=, s->left * 1.25);
              g_assert_cmpfloat (high, >=, s->left * 0.75);
              g_assert_true (isinf (high) || high - low <= s->left);
              checked++;
            }
        }

      g_test_message ("%s: total known at %.2f s, time left from %.2f s, %u checks",
                      copies[c].name, scan_end, first, checked);
      g_assert_cmpfloat (first, >=, 0);
      g_assert_cmpfloat (first - scan_end, <=, CS_ETA_MIN_SPAN + 0.25);
      g_assert_cmpuint (checked, >, 0);
    }
}

/* A tree like a system's shared data, copied folder by folder: icons, large
 * archives, translations, documents, fonts, one after the other, so the files
 * of the last seconds are seldom like the files left. */
static const Folder share_folders[] = {
  { 3000, 4000 },
  { 12, 40000000 },
  { 6000, 1000 },
  { 300, 2000000 },
  { 4000, 20000 },
  { 8, 80000000 },
  { 2500, 8000 },
  { 0, 0 },
};

/* What the window and the CLI show of the range, read as one figure, is its
 * middle: from a quarter of the bytes done on, it is within 25 % of the time
 * actually left, and the range is a range, not an "at least". */
static void
test_mixed_tree (void)
{
  Copy tree = { "share", 0, 0, 0, 0, 0.001, 1.0 / 100e6, 0, 0, 0, 0, share_folders };
  g_autoptr(GArray) snapshots = NULL;
  g_autoptr(CsEta) eta = cs_eta_new ();
  guint64 bytes_total = 0;
  guint checked = 0;
  double worst = 0;

  for (const Folder *f = share_folders; f->n_files > 0; f++)
    {
      tree.n_files += f->n_files;
      bytes_total += f->n_files * f->size;
    }
  snapshots = simulate (&tree);
  for (guint i = 0; i < snapshots->len; i++)
    {
      const Snapshot *s = &g_array_index (snapshots, Snapshot, i);
      double low, high, middle;

      cs_eta_push (eta, &s->progress);
      if (s->progress.bytes_done * 4 < bytes_total || s->left < 2.0)
        continue;

      g_assert_true (cs_eta_get_left (eta, &low, &high));
      g_assert_true (isfinite (high));
      middle = (low + high) / 2;
      if (fabs (middle - s->left) > fabs (worst) * s->left)
        worst = (middle - s->left) / s->left;
      g_assert_cmpfloat (middle, <=, s->left * 1.25);
      g_assert_cmpfloat (middle, >=, s->left * 0.75);
      checked++;
    }

  g_test_message ("%u checks, worst %+.1f %%", checked, 100 * worst);
  g_assert_cmpuint (checked, >, 20);
}

/* The same tree, and a copy of like files, at a pace that changes every
 * quarter second as a shared machine's does: the work of each step is noisy,
 * the clock's steps are not. What the future pace holds no estimate can know,
 * so over many such copies (seeds) the middle of the range is right on
 * average, within 5 %, and within 25 % of the time left at nine checks in
 * ten from a quarter of the bytes on. */
static void
test_noisy_pace (void)
{
  Copy tree = { "share", 0, 0, 0, 0, 0.001, 1.0 / 100e6, 0, 0, 0, 0, share_folders, 0.9 };
  Copy text = copies[0];
  Copy *noisy[] = { &tree, &text };

  for (const Folder *f = share_folders; f->n_files > 0; f++)
    tree.n_files += f->n_files;
  text.name = "noisy text";
  text.jitter = 0.9;

  for (guint c = 0; c < G_N_ELEMENTS (noisy); c++)
    {
      guint checked = 0, close = 0;
      double sum = 0;

      for (guint32 seed = 1; seed <= 16; seed++)
        {
          g_autoptr(GArray) snapshots = NULL;
          g_autoptr(CsEta) eta = cs_eta_new ();
          const CsProgress *last;

          noisy[c]->seed = seed;
          snapshots = simulate (noisy[c]);
          last = &g_array_index (snapshots, Snapshot, snapshots->len - 1).progress;
          for (guint i = 0; i < snapshots->len; i++)
            {
              const Snapshot *s = &g_array_index (snapshots, Snapshot, i);
              double low, high, error;

              cs_eta_push (eta, &s->progress);
              if (s->progress.bytes_done * 4 < last->bytes_total || s->left < 2.0)
                continue;

              g_assert_true (cs_eta_get_left (eta, &low, &high));
              g_assert_true (isfinite (high));
              error = ((low + high) / 2 - s->left) / s->left;
              sum += error;
              close += fabs (error) <= 0.25;
              checked++;
            }
        }

      g_test_message ("%s: %u checks, mean error %+.1f %%, %.0f %% within 25 %%",
                      noisy[c]->name, checked, 100 * sum / checked, 100.0 * close / checked);
      g_assert_cmpuint (checked, >, 16 * 20);
      g_assert_cmpfloat (fabs (sum / checked), <=, 0.05);
      g_assert_cmpuint (close * 10, >=, checked * 9);
    }
}

/* Paused, the speed and the time left stay as they were. */
static void
test_pause_keeps_estimate (void)
{
  g_autoptr(GArray) snapshots = simulate (&copies[2]);
  g_autoptr(CsEta) eta = cs_eta_new ();
  double before_low = -1, before_high = -1, before_speed = -1;

  for (guint i = 0; i < snapshots->len; i++)
    {
      const Snapshot *s = &g_array_index (snapshots, Snapshot, i);
      double low, high;

      cs_eta_push (eta, &s->progress);
      if (i > 0 && s->t == g_array_index (snapshots, Snapshot, i - 1).t)
        {
          g_assert_true (cs_eta_get_left (eta, &low, &high));
          g_assert_cmpfloat (low, ==, before_low);
          g_assert_cmpfloat (high, ==, before_high);
          g_assert_cmpfloat (cs_eta_get_speed (eta), ==, before_speed);
        }
      else if (cs_eta_get_left (eta, &before_low, &before_high))
        before_speed = cs_eta_get_speed (eta);
    }
}

/* Nothing moving is not a copy about to end, nor one that never will. */
static void
test_stall (void)
{
  Copy stalled = copies[0];
  g_autoptr(GArray) snapshots = NULL;
  g_autoptr(CsEta) eta = cs_eta_new ();

  stalled.stall_from = 6.0;
  snapshots = simulate (&stalled);
  for (guint i = 0; i < snapshots->len; i++)
    {
      const Snapshot *s = &g_array_index (snapshots, Snapshot, i);

      cs_eta_push (eta, &s->progress);
      if (s->t > stalled.stall_from + CS_ETA_WINDOW + 0.5)
        {
          g_assert_false (cs_eta_get_left (eta, NULL, NULL));
          g_assert_cmpfloat (cs_eta_get_speed (eta), ==, 0);
        }
    }
}

/* The speed is data copied over at least half a second of the clock: a first
 * request's 8 MB landing 10 ms in is not 800 MB/s. */
static void
test_speed (void)
{
  g_autoptr(CsEta) eta = cs_eta_new ();
  CsProgress p = { 0 };

  p.elapsed = 0.01;
  p.bytes_copying = 8000000;
  cs_eta_push (eta, &p);
  g_assert_cmpfloat (cs_eta_get_speed (eta), ==, 0);

  p.elapsed = 1.0;
  p.bytes_copying = 0;
  p.bytes_copied = 20000000;
  cs_eta_push (eta, &p);
  g_assert_cmpfloat_with_epsilon (cs_eta_get_speed (eta), 20e6, 1);

  /* A file that failed takes its bytes back: no negative speed. */
  p.elapsed = 1.5;
  cs_eta_push (eta, &p);
  p.elapsed = 6.2;
  p.bytes_copied = 1000;
  cs_eta_push (eta, &p);
  g_assert_cmpfloat (cs_eta_get_speed (eta), ==, 0);

  /* Only the last few seconds count. */
  cs_eta_reset (eta);
  for (guint i = 1; i <= 40; i++)
    {
      p.elapsed = 0.25 * i;
      p.bytes_copying = 0;
      p.bytes_copied = i <= 20 ? 1000000 * (guint64) i : 20000000 + 4000000 * (guint64) (i - 20);
      cs_eta_push (eta, &p);
    }
  /* 4 MB a quarter second over the last 5 s */
  g_assert_cmpfloat_with_epsilon (cs_eta_get_speed (eta), 16e6, 1);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/eta/table", test_table);
  g_test_add_func ("/eta/mixed-tree", test_mixed_tree);
  g_test_add_func ("/eta/noisy-pace", test_noisy_pace);
  g_test_add_func ("/eta/pause-keeps-estimate", test_pause_keeps_estimate);
  g_test_add_func ("/eta/stall", test_stall);
  g_test_add_func ("/eta/speed", test_speed);

  return g_test_run ();
}
