/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <string.h>

#include "copyscope-engine.h"
#include "cs-env-private.h"
#include "cs-io-private.h"
#include "cs-test-async.h"

/* Seconds per thread count, as a sweep would measure them (median, min, max). */
static CsSweepStat
stat_of (guint  threads,
         double median,
         double spread)
{
  CsSweepStat s = { threads, 3, { median, median - spread, median + spread } };
  return s;
}

static void
test_knee_table (void)
{
  struct {
    const char *name;
    double      seconds[8];
    guint       expected;
  } cases[] = {
    /* Seed 001's text files: steep gains, then flat from 8 on. */
    { "nas", { 1314, 700, 450, 300, 290, 288, 287, 286 }, 8 },
    /* More threads hurt after 4. */
    { "peak", { 10, 6, 4, 4.5, 5, 6, 7, 8 }, 4 },
    /* Bandwidth-bound: nothing helps, so one thread it is. */
    { "flat", { 5.0, 5.1, 4.98, 5.02, 5.05, 4.99, 5.1, 5.0 }, 1 },
    /* Noisy: within 5 % of the best counts as as good. */
    { "noisy", { 8, 4.3, 4.05, 4.2, 4.0, 4.25, 4.1, 4.3 }, 4 },
    /* The best is the last. */
    { "rising", { 128, 64, 32, 16, 8, 4, 2, 1 }, 128 },
  };
  static const guint threads[] = { 1, 2, 4, 8, 16, 32, 64, 128 };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      CsSweepStat stats[8];
      g_autofree char *sentence = NULL;
      int knee;

      for (guint i = 0; i < 8; i++)
        stats[i] = stat_of (threads[i], cases[c].seconds[i], 0.01);
      knee = cs_sweep_find_knee (stats, 8, 0.05, &sentence);
      g_test_message ("%s: %s", cases[c].name, sentence);
      g_assert_cmpint (knee, >=, 0);
      g_assert_cmpuint (stats[knee].threads, ==, cases[c].expected);
      g_assert_nonnull (sentence);
      g_assert_true (g_str_has_prefix (sentence, cases[c].expected == 1 ? "1 thread:" : ""));
    }
}

static void
test_knee_sentence (void)
{
  CsSweepStat stats[] = { stat_of (4, 10.0, 0), stat_of (8, 9.6, 0), stat_of (16, 9.4, 0) };
  g_autofree char *sentence = NULL;
  int knee = cs_sweep_find_knee (stats, 3, 0.05, &sentence);

  /* 8 is within 5 % of 16's 9.4 s, in the numbers the charts show. */
  g_assert_cmpint (knee, ==, 1);
  g_assert_cmpstr (sentence, ==, "8 threads: 9.60 s, within 5 % of the best: 2.1 % longer than 16 threads' 9.40 s.");
}

static void
test_knee_empty (void)
{
  g_autofree char *sentence = NULL;

  g_assert_cmpint (cs_sweep_find_knee (NULL, 0, 0.05, &sentence), ==, -1);
  g_assert_null (sentence);
}

/* A sweep as the file has it: 1 thread took 3 s twice, 8 threads 0.99 s twice,
 * 16 threads 0.5 s once and 1.5 s once, over 10 MB and 1000 files. */
static CsSweep *
load_spread_sweep (void)
{
  static const struct { guint threads; double seconds; } runs[] = {
    { 1, 3.0 }, { 8, 0.99 }, { 16, 0.5 }, { 1, 3.0 }, { 8, 0.99 }, { 16, 1.5 },
  };
  g_autoptr(GString) json = g_string_new ("{\"schema_version\":1,\"kind\":\"sweep\",\"source\":\"a\","
                                          "\"destination\":\"b\",\"cache_mode\":\"warm\",\"repeats\":2,"
                                          "\"started_us\":0,\"runs\":[");
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  CsSweep *sweep;
  int fd;

  for (guint i = 0; i < G_N_ELEMENTS (runs); i++)
    {
      char secs[G_ASCII_DTOSTR_BUF_SIZE], mbs[G_ASCII_DTOSTR_BUF_SIZE], fps[G_ASCII_DTOSTR_BUF_SIZE];

      g_string_append_printf (json, "%s{\"threads\":%u,\"repeat\":%u,\"seconds\":%s,"
                              "\"mb_per_second\":%s,\"files_per_second\":%s,\"files\":1000,"
                              "\"bytes\":10000000,\"ok\":true}",
                              i > 0 ? "," : "", runs[i].threads, i / 3 + 1,
                              g_ascii_dtostr (secs, sizeof secs, runs[i].seconds),
                              g_ascii_dtostr (mbs, sizeof mbs, 10.0 / runs[i].seconds),
                              g_ascii_dtostr (fps, sizeof fps, 1000.0 / runs[i].seconds));
    }
  g_string_append (json, "]}");

  fd = g_file_open_tmp ("cs-sweep-XXXXXX.json", &path, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, json->str, -1, &error));
  sweep = cs_sweep_load (path, &error);
  g_assert_no_error (error);
  g_unlink (path);

  return sweep;
}

/*
 * The recommendation and the charts speak of the same statistic, the median
 * time: a chart's MB/s and files/s are the data over that time, so a count
 * that is 1 % slower in the sentence is not 32 % faster beside it (the mean of
 * 20 and 6.7 MB/s, for 16 threads' 0.5 and 1.5 s, against 8 threads' 10.1).
 */
static void
test_stats_follow_the_median_time (void)
{
  g_autoptr(CsSweep) sweep = load_spread_sweep ();
  g_autofree CsSweepStat *stats = NULL;
  g_autofree char *sentence = NULL;
  guint n = 0;

  stats = cs_sweep_dup_stats (sweep, &n);
  g_assert_cmpuint (n, ==, 3);
  for (guint i = 0; i < n; i++)
    {
      /* median; lowest and highest rate from the longest and shortest time */
      g_assert_cmpfloat_with_epsilon (stats[i].mb_per_second[0], 10.0 / stats[i].seconds[0], 1e-9);
      g_assert_cmpfloat_with_epsilon (stats[i].mb_per_second[1], 10.0 / stats[i].seconds[2], 1e-9);
      g_assert_cmpfloat_with_epsilon (stats[i].mb_per_second[2], 10.0 / stats[i].seconds[1], 1e-9);
      g_assert_cmpfloat_with_epsilon (stats[i].files_per_second[0], 1000.0 / stats[i].seconds[0], 1e-9);
    }

  /* 8 threads' 0.99 s is the best median; 16 threads' is 1.0 s. */
  g_assert_cmpuint (cs_sweep_get_recommended (sweep, &sentence), ==, 8);
  g_assert_cmpstr (sentence, ==, "8 threads: 0.99 s, the fastest of the counts tried; "
                                 "16 threads took 1.00 s, 1.0 % longer.");
}

static char *
make_source (const char *root,
             guint       n)
{
  char *src = g_build_filename (root, "src", NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (cs_generate_files_sync (src, n, 12288, 3, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  return src;
}

static void
count_run (CsSweep *sweep,
           CsJob   *job,
           guint    index,
           guint    total,
           gpointer user_data)
{
  g_assert_cmpuint (total, ==, 4);
  g_assert_cmpuint (index, ==, *(guint *) user_data);
  (*(guint *) user_data)++;
}

/*
 * A backend of its own for "shift://" locations, reaching local folders: what
 * a sweep onto a share (smb://) needs, a destination no path names. Its
 * removals of folders are counted, by name.
 */
#define SHIFT "shift://"

static CsIoTable shift_table;
static GPtrArray *shift_removed;

static const char *
shift_path (int         dirfd,
            const char *path)
{
  if (dirfd == CS_IO_AT_LOCATION)
    {
      g_assert_true (g_str_has_prefix (path, SHIFT));
      return path + strlen (SHIFT);
    }
  return path;
}

static int
shift_openat (int dirfd, const char *path, int flags, mode_t mode)
{
  return _cs_io_get_default ()->openat (dirfd, shift_path (dirfd, path), flags, mode);
}

static int
shift_fstatat (int dirfd, const char *path, struct stat *st, int flags)
{
  return _cs_io_get_default ()->fstatat (dirfd, shift_path (dirfd, path), st, flags);
}

static int
shift_statx (int dirfd, const char *path, int flags, unsigned int mask, struct statx *stx)
{
  return _cs_io_get_default ()->statx (dirfd, shift_path (dirfd, path), flags, mask, stx);
}

static int
shift_mkdirat (int dirfd, const char *path, mode_t mode)
{
  return _cs_io_get_default ()->mkdirat (dirfd, shift_path (dirfd, path), mode);
}

static int
shift_unlinkat (int dirfd, const char *path, int flags)
{
  int r = _cs_io_get_default ()->unlinkat (dirfd, shift_path (dirfd, path), flags);

  if (r == 0 && (flags & AT_REMOVEDIR) && g_str_has_prefix (path, "sweep-"))
    g_ptr_array_add (shift_removed, g_strdup (path));
  return r;
}

static void
shift_backend (void)
{
  shift_table = *_cs_io_get_default ();
  shift_table.name = "shift";
  shift_table.scheme = SHIFT;
  shift_table.openat = shift_openat;
  shift_table.fstatat = shift_fstatat;
  shift_table.statx = shift_statx;
  shift_table.mkdirat = shift_mkdirat;
  shift_table.unlinkat = shift_unlinkat;
  g_assert_cmpint (_cs_io_register (&shift_table), >, 0);
}

/* A sweep onto another backend's location copies there and removes each
 * copy there too, through that backend, and nothing else in the folder. */
static void
test_sweep_other_backend (void)
{
  g_autofree char *root = g_dir_make_tmp ("cs-sweep-XXXXXX", NULL);
  g_autofree char *src = make_source (root, 30);
  g_autofree char *dst = g_build_filename (root, "dst", NULL);
  g_autofree char *location = g_strconcat (SHIFT, dst, NULL);
  g_autofree char *kept = g_build_filename (dst, "kept.txt", NULL);
  g_autofree char *outside = g_build_filename (root, "outside", NULL);
  g_autofree char *outside_file = g_build_filename (outside, "precious.txt", NULL);
  g_autofree char *link = g_build_filename (src, "to-outside", NULL);
  g_autoptr(CsSweep) sweep = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) dir = NULL;
  const CsSweepRun *runs;
  const char *name;
  guint threads[] = { 1, 2 }, n_runs, n_left = 0;

  shift_backend ();
  shift_removed = g_ptr_array_new_with_free_func (g_free);
  g_assert_cmpint (g_mkdir (dst, 0755), ==, 0);
  g_assert_true (g_file_set_contents (kept, "not the sweep's", -1, NULL));
  /* A link in the copy to a folder outside it: removed, never followed. */
  g_assert_cmpint (g_mkdir (outside, 0755), ==, 0);
  g_assert_true (g_file_set_contents (outside_file, "keep me", -1, NULL));
  g_assert_cmpint (symlink (outside, link), ==, 0);

  sweep = cs_sweep_new (src, location);
  cs_sweep_set_threads (sweep, threads, 2);
  cs_sweep_set_repeats (sweep, 1);
  cs_sweep_set_cold (sweep, FALSE);
  g_assert_true (cs_sweep_run_sync (sweep, NULL, NULL, NULL, &error));
  g_assert_no_error (error);

  runs = cs_sweep_get_runs (sweep, &n_runs);
  g_assert_cmpuint (n_runs, ==, 2);
  for (guint i = 0; i < n_runs; i++)
    {
      g_assert_true (runs[i].ok);
      g_assert_cmpuint (runs[i].files, ==, 31);   /* the link too */
    }

  /* Each copy's folder went, through the backend; what was there stays. */
  g_assert_cmpuint (shift_removed->len, ==, 2);
  dir = g_dir_open (dst, 0, NULL);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_test_message ("left in the destination: %s", name);
      n_left++;
    }
  g_assert_cmpuint (n_left, ==, 1);
  g_assert_true (g_file_test (kept, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (outside_file, G_FILE_TEST_IS_REGULAR));

  g_clear_pointer (&shift_removed, g_ptr_array_unref);
  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", root);
    g_assert_cmpint (system (cmd), ==, 0);
  }
}

static void
never_run (CsSweep *sweep,
           CsJob   *job,
           guint    index,
           guint    total,
           gpointer user_data)
{
  g_assert_not_reached ();
}

/* A destination that is no folder stops the sweep before any copy. */
static void
test_sweep_destination_not_folder (void)
{
  g_autofree char *root = g_dir_make_tmp ("cs-sweep-XXXXXX", NULL);
  g_autofree char *src = make_source (root, 3);
  g_autofree char *file = g_build_filename (root, "a-file", NULL);
  g_autofree char *missing = g_build_filename (root, "missing", NULL);
  const char *destinations[] = { file, missing };
  guint n_runs;

  g_assert_true (g_file_set_contents (file, "x", -1, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (destinations); i++)
    {
      g_autoptr(CsSweep) sweep = cs_sweep_new (src, destinations[i]);
      g_autoptr(GError) error = NULL;
      guint threads[] = { 1 };

      cs_sweep_set_threads (sweep, threads, 1);
      cs_sweep_set_repeats (sweep, 1);
      cs_sweep_set_cold (sweep, FALSE);
      g_assert_false (cs_sweep_run_sync (sweep, never_run, NULL, NULL, &error));
      g_assert_true (g_error_matches (error, G_IO_ERROR, i == 0 ? G_IO_ERROR_NOT_DIRECTORY
                                                               : G_IO_ERROR_NOT_FOUND));
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, "The destination must be an existing folder"));
      cs_sweep_get_runs (sweep, &n_runs);
      g_assert_cmpuint (n_runs, ==, 0);
    }
  g_assert_false (g_file_test (missing, G_FILE_TEST_EXISTS));

  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", root);
    g_assert_cmpint (system (cmd), ==, 0);
  }
}

/* Written on the main thread only: the async forms call there. */
typedef struct {
  guint    calls;
  gboolean off_main;
  gboolean started;     /* a job handed over had already begun */
} AsyncCalls;

static void
async_run_cb (CsSweep *sweep,
              CsJob   *job,
              guint    index,
              guint    total,
              gpointer user_data)
{
  AsyncCalls *calls = user_data;
  CsProgress progress;

  calls->calls++;
  if (!g_main_context_is_owner (g_main_context_default ()))
    calls->off_main = TRUE;
  cs_job_get_progress (job, &progress);
  if (progress.state != CS_JOB_STATE_READY)
    calls->started = TRUE;
}

static void
async_demo_cb (CsDemo    *demo,
               CsDemoRun  which,
               CsJob     *job,
               gpointer   user_data)
{
  async_run_cb (NULL, job, 0, 0, user_data);
}

/* main thread: the first copy of the demonstration is cancelled as it starts */
static void
cancel_demo_cb (CsDemo    *demo,
                CsDemoRun  which,
                CsJob     *job,
                gpointer   user_data)
{
  g_cancellable_cancel (user_data);
}

/* The async forms run the copies off the main thread and answer on the
 * main context, with what the sync forms answer; each job is handed over
 * there too, before it starts, for a window to follow. */
static void
test_async (void)
{
  g_autofree char *root = g_dir_make_tmp ("cs-sweep-XXXXXX", NULL);
  g_autofree char *src = make_source (root, 20);
  g_autofree char *dst = g_build_filename (root, "dst", NULL);
  g_autofree char *work = g_build_filename (root, "work", NULL);
  g_autoptr(CsSweep) sweep = NULL;
  g_autoptr(CsDemo) demo = cs_demo_new (100 * 12288);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  GAsyncResult *result = NULL;
  AsyncCalls calls = { 0 };
  const CsSweepRun *runs;
  guint threads[] = { 1, 2 }, n_runs;

  g_mkdir (dst, 0755);
  sweep = cs_sweep_new (src, dst);
  cs_sweep_set_threads (sweep, threads, 2);
  cs_sweep_set_repeats (sweep, 1);
  cs_sweep_set_cold (sweep, FALSE);
  cs_sweep_run_async (sweep, async_run_cb, &calls, NULL, cs_test_async_store, &result);
  g_assert_true (cs_sweep_run_finish (sweep, cs_test_async_wait (&result), &error));
  g_assert_no_error (error);
  g_assert_cmpuint (calls.calls, ==, 2);
  g_assert_false (calls.off_main);
  g_assert_false (calls.started);
  runs = cs_sweep_get_runs (sweep, &n_runs);
  g_assert_cmpuint (n_runs, ==, 2);
  g_assert_true (runs[0].ok && runs[1].ok);
  g_clear_object (&result);

  calls = (AsyncCalls) { 0 };
  cs_demo_run_async (demo, work, dst, async_demo_cb, &calls, NULL, cs_test_async_store, &result);
  g_assert_true (cs_demo_run_finish (demo, cs_test_async_wait (&result), &error));
  g_assert_no_error (error);
  g_assert_cmpuint (calls.calls, ==, 2);
  g_assert_false (calls.off_main);
  g_assert_false (calls.started);
  g_assert_nonnull (cs_demo_get_run (demo, CS_DEMO_SMALL));
  g_clear_object (&result);

  /* Cancelled: the sweep stops before its first copy. */
  g_cancellable_cancel (cancellable);
  calls.calls = 0;
  cs_sweep_run_async (sweep, async_run_cb, &calls, cancellable, cs_test_async_store, &result);
  g_assert_false (cs_sweep_run_finish (sweep, cs_test_async_wait (&result), &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (calls.calls, ==, 0);
  g_clear_object (&result);
  g_clear_error (&error);

  /* Cancelled during its first copy, the demonstration says so in GIO's
   * words too, as the sweep does: a window checks one error. */
  g_clear_object (&cancellable);
  cancellable = g_cancellable_new ();
  cs_demo_run_async (demo, work, dst, cancel_demo_cb, cancellable, cancellable,
                     cs_test_async_store, &result);
  g_assert_false (cs_demo_run_finish (demo, cs_test_async_wait (&result), &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_object (&result);

  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", root);
    g_assert_cmpint (system (cmd), ==, 0);
  }
}

static void
test_sweep_end_to_end (void)
{
  g_autofree char *root = g_dir_make_tmp ("cs-sweep-XXXXXX", NULL);
  g_autofree char *src = make_source (root, 200);
  g_autofree char *dst = g_build_filename (root, "dst", NULL);
  g_autofree char *json = g_build_filename (root, "sweep.json", NULL);
  g_autoptr(CsSweep) sweep = NULL;
  g_autoptr(CsSweep) loaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) dir = NULL;
  g_autofree CsSweepStat *stats = NULL;
  g_autofree char *sentence = NULL;
  const CsSweepRun *runs;
  guint threads[] = { 1, 4 }, n_runs, n_stats, calls = 0, recommended;

  g_mkdir (dst, 0755);
  sweep = cs_sweep_new (src, dst);
  cs_sweep_set_threads (sweep, threads, 2);
  cs_sweep_set_repeats (sweep, 2);
  cs_sweep_set_cold (sweep, FALSE);
  g_assert_true (cs_sweep_run_sync (sweep, count_run, &calls, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (calls, ==, 4);
  g_assert_cmpstr (cs_sweep_get_cache_mode (sweep), ==, "warm");

  /* Interleaved: 1, 4, 1, 4; every copy complete; every folder removed after. */
  runs = cs_sweep_get_runs (sweep, &n_runs);
  g_assert_cmpuint (n_runs, ==, 4);
  g_assert_cmpuint (runs[0].threads, ==, 1);
  g_assert_cmpuint (runs[1].threads, ==, 4);
  g_assert_cmpuint (runs[2].threads, ==, 1);
  for (guint i = 0; i < n_runs; i++)
    {
      g_assert_true (runs[i].ok);
      g_assert_cmpuint (runs[i].files, ==, 200);
      g_assert_cmpuint (runs[i].bytes, ==, 200 * 12288);
    }
  dir = g_dir_open (dst, 0, NULL);
  g_assert_null (g_dir_read_name (dir));

  stats = cs_sweep_dup_stats (sweep, &n_stats);
  g_assert_cmpuint (n_stats, ==, 2);
  g_assert_cmpuint (stats[0].n, ==, 2);
  g_assert_cmpfloat (stats[0].seconds[1], <=, stats[0].seconds[0]);
  g_assert_cmpfloat (stats[0].seconds[0], <=, stats[0].seconds[2]);
  recommended = cs_sweep_get_recommended (sweep, &sentence);
  g_assert_true (recommended == 1 || recommended == 4);
  g_assert_nonnull (sentence);

  g_assert_true (cs_sweep_save (sweep, json, &error));
  loaded = cs_sweep_load (json, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cs_sweep_get_recommended (loaded, NULL), ==, recommended);
  runs = cs_sweep_get_runs (loaded, &n_runs);
  g_assert_cmpuint (n_runs, ==, 4);

  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", root);
    g_assert_cmpint (system (cmd), ==, 0);
  }
}

static void
test_sweep_bad_files (void)
{
  const char *bad[] = {
    "[]", "{}", "{\"schema_version\": 2}",
    "{\"schema_version\":1,\"kind\":\"sweep\",\"source\":\"a\",\"destination\":\"b\",\"cache_mode\":\"warm\",\"repeats\":1,\"started_us\":0,\"runs\":[{\"threads\":0}]}",
    "{\"schema_version\":1,\"kind\":\"sweep\",\"source\":\"a\",\"destination\":\"b\",\"cache_mode\":\"warm\",\"repeats\":1,\"started_us\":0,\"runs\":[{\"threads\":4,\"repeat\":1,\"seconds\":-1,\"mb_per_second\":1,\"files_per_second\":1,\"files\":1,\"bytes\":1}]}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(JsonNode) root = json_from_string (bad[i], NULL);
      g_autoptr(GError) error = NULL;
      CsSweep *sweep;

      g_assert_nonnull (root);
      sweep = cs_sweep_new_from_json (root, &error);
      g_assert_null (sweep);
      g_assert_nonnull (error);
    }
}

/* cs_sweep_load reads through the same bounded reader as run records: a FIFO
 * is refused without waiting for a writer, an oversized or deeply nested
 * file before it is parsed. */
static void
test_sweep_load_bounded (void)
{
  g_autofree char *root = g_dir_make_tmp ("cs-sweep-XXXXXX", NULL);
  g_autofree char *fifo = g_build_filename (root, "fifo.json", NULL);
  g_autofree char *big = g_build_filename (root, "big.json", NULL);
  g_autofree char *deep = g_build_filename (root, "deep.json", NULL);
  g_autofree char *comment = g_build_filename (root, "comment.json", NULL);
  g_autoptr(GString) nested = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  CsSweep *sweep;
  int fd;

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  sweep = cs_sweep_load (fifo, &error);
  g_assert_null (sweep);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
  g_clear_error (&error);

  /* Sparse: costs no disk space. */
  fd = g_open (big, O_WRONLY | O_CREAT, 0600);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, (off_t) 65 * 1024 * 1024), ==, 0);
  close (fd);
  sweep = cs_sweep_load (big, &error);
  g_assert_null (sweep);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE);
  g_clear_error (&error);

  for (guint i = 0; i < 100; i++)
    g_string_append_c (nested, '[');
  for (guint i = 0; i < 100; i++)
    g_string_append_c (nested, ']');
  g_assert_true (g_file_set_contents (deep, nested->str, -1, NULL));
  sweep = cs_sweep_load (deep, &error);
  g_assert_null (sweep);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "nested more than"));
  g_clear_error (&error);

  g_assert_true (g_file_set_contents (comment, "/* */ {}", -1, NULL));
  sweep = cs_sweep_load (comment, &error);
  g_assert_null (sweep);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "not valid JSON"));
  g_clear_error (&error);

  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", root);
    g_assert_cmpint (system (cmd), ==, 0);
  }
}

/* The demonstration's "why" from the phase totals of its two copies: the
 * top phases of the workers' busy time, their real shares. */
static void
test_demo_explain_phases (void)
{
  static const struct {
    double      big[CS_PHASE_N];
    double      small[CS_PHASE_N];
    guint64     files;
    const char *expected;
  } cases[] = {
    /* The help-desk's picture: one file all writing, small files in the
     * requests around their bytes. Waiting for work is no one's busy time. */
    { { [CS_PHASE_WAITING] = 5.0, [CS_PHASE_OPENING] = 0.01, [CS_PHASE_READING] = 0.02,
        [CS_PHASE_WRITING] = 0.97 },
      { [CS_PHASE_WAITING] = 9.0, [CS_PHASE_OPENING] = 3.1, [CS_PHASE_READING] = 0.6,
        [CS_PHASE_WRITING] = 1.2, [CS_PHASE_FLUSHING] = 0.3, [CS_PHASE_METADATA] = 2.2,
        [CS_PHASE_PUBLISHING] = 1.8, [CS_PHASE_LISTING] = 0.8 },
      4000,
      "The workers' busy time — one big file: Writing 97 %; 4,000 small files: "
      "Opening and creating 31 %, Setting metadata 22 %, Publishing 18 %." },
    /* Below a tenth, a phase is not named; the first always is. */
    { { [CS_PHASE_READING] = 0.45, [CS_PHASE_WRITING] = 0.55 },
      { [CS_PHASE_OPENING] = 0.2, [CS_PHASE_READING] = 0.09, [CS_PHASE_WRITING] = 0.71 },
      1,
      "The workers' busy time — one big file: Writing 55 %, Reading 45 %; 1 small file: "
      "Writing 71 %, Opening and creating 20 %." },
    /* A copy with no busy time says nothing rather than a share of nothing. */
    { { [CS_PHASE_WAITING] = 1.0, [CS_PHASE_PAUSED] = 2.0 },
      { [CS_PHASE_WRITING] = 1.0 },
      10, NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = cs_demo_explain_phases (cases[i].big, cases[i].small, cases[i].files);

      g_assert_cmpstr (text, ==, cases[i].expected);
    }
}

static void
test_demo_end_to_end (void)
{
  g_autofree char *root = g_dir_make_tmp ("cs-demo-XXXXXX", NULL);
  g_autofree char *work = g_build_filename (root, "work", NULL);
  g_autofree char *dst = g_build_filename (root, "dst", NULL);
  g_autoptr(CsDemo) demo = cs_demo_new (2 * 1000 * 1000);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GDir) dir = NULL;
  CsTotals totals;

  g_mkdir (dst, 0755);
  cs_demo_set_t1_t2 (demo, TRUE);
  g_assert_true (cs_demo_run_sync (demo, work, dst, NULL, NULL, NULL, &error));
  g_assert_no_error (error);

  cs_run_get_totals (cs_demo_get_run (demo, CS_DEMO_BIG), &totals);
  g_assert_cmpuint (totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, 1);
  cs_run_get_totals (cs_demo_get_run (demo, CS_DEMO_SMALL), &totals);
  g_assert_cmpuint (totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, 163);   /* 2 MB / 12 KiB */
  g_assert_cmpuint (totals.v[CS_CLASS_COPIED][CS_KIND_BYTES], ==, 163 * 12288);
  g_assert_nonnull (cs_demo_get_run (demo, CS_DEMO_SMALL_T2));
  g_assert_cmpfloat (cs_demo_requests_per_file (cs_demo_get_run (demo, CS_DEMO_SMALL)), >, 3);

  text = cs_demo_explain (demo);
  g_test_message ("%s", text);
  g_assert_true (g_str_has_prefix (text, "Same 2 MB: one file took "));
  g_assert_nonnull (strstr (text, "163 small files took"));
  g_assert_nonnull (strstr (text, "With 2 threads"));
  /* Why, from the runs' own phase totals. */
  {
    double big[CS_PHASE_N], small[CS_PHASE_N];
    g_autofree char *phases = NULL;

    g_assert_true (cs_run_get_phase_totals (cs_demo_get_run (demo, CS_DEMO_BIG), big));
    g_assert_true (cs_run_get_phase_totals (cs_demo_get_run (demo, CS_DEMO_SMALL), small));
    phases = cs_demo_explain_phases (big, small, 163);
    g_assert_nonnull (phases);
    g_assert_true (g_str_has_prefix (phases, "The workers' busy time — one big file: "));
    g_assert_nonnull (strstr (phases, "; 163 small files: "));
    g_assert_nonnull (strstr (text, phases));
  }

  /* The copies were removed, and the generated sets with them. */
  dir = g_dir_open (dst, 0, NULL);
  g_assert_null (g_dir_read_name (dir));
  g_assert_false (g_file_test (work, G_FILE_TEST_EXISTS));

  /* Kept when asked, for the next time. */
  {
    g_autoptr(CsDemo) again = cs_demo_new (2 * 1000 * 1000);
    g_autofree char *stamp = g_build_filename (work, "demo-small", "2000000.complete", NULL);

    cs_demo_set_keep_sets (again, TRUE);
    g_assert_true (cs_demo_run_sync (again, work, dst, NULL, NULL, NULL, &error));
    g_assert_no_error (error);
    g_assert_true (g_file_test (stamp, G_FILE_TEST_EXISTS));
  }

  g_assert_cmpstr (cs_demo_explain_limit (12288), ==, "Small files: limited by requests — more threads help");
  g_assert_cmpstr (cs_demo_explain_limit (50e6), ==, "Large files: limited by bandwidth — more threads won't help");

  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", root);
    g_assert_cmpint (system (cmd), ==, 0);
  }
}

/*
 * A destination as slow as one device: every file opened for writing waits
 * SLOW_OPEN_US, one at a time whatever the thread count, so 2,000 files take
 * at least 1.5 s on any machine, long enough for Auto's first measurement
 * (a settling sample and a window of 4 at 100 ms). A fast machine no longer
 * ends the copy before Auto measured anything.
 */
#define SLOW_OPEN_US 750

static CsIoTable slow_table;
static GMutex slow_lock;      /* held only to wait: the lock guards no data */
static gint slow_opens;       /* atomic */

static int
slow_openat (int dirfd, const char *path, int flags, mode_t mode)
{
  if ((flags & O_ACCMODE) != O_RDONLY)
    {
      g_mutex_lock (&slow_lock);
      g_usleep (SLOW_OPEN_US);
      g_mutex_unlock (&slow_lock);
      g_atomic_int_inc (&slow_opens);
    }
  return _cs_io_get_default ()->openat (dirfd, path, flags, mode);
}

static void
test_remembered_threads (void)
{
  g_autofree char *root = g_dir_make_tmp ("cs-auto-XXXXXX", NULL);
  g_autofree char *src = make_source (root, 2000);
  g_autofree char *dst = g_build_filename (root, "dst", NULL);
  g_autoptr(CsJob) job = cs_job_new ();
  g_autofree char *fs = NULL;
  guint remembered;

  /* A fresh configuration folder: nothing remembered yet. */
  g_assert_cmpuint (cs_job_get_remembered_threads (root, NULL), ==, 0);

  slow_table = *_cs_io_get_default ();
  slow_table.openat = slow_openat;
  g_atomic_int_set (&slow_opens, 0);
  _cs_io_set (&slow_table);

  cs_job_add_source (job, src);
  cs_job_set_destination (job, dst);
  cs_job_set_threads (job, 4, NULL);
  cs_job_set_auto_threads (job, TRUE);
  cs_job_set_interval (job, 100);
  g_assert_true (cs_job_run_sync (job, NULL, NULL));
  _cs_io_set (NULL);

  /* The seam held every file: the copy lasted long enough to measure. */
  g_assert_cmpint (g_atomic_int_get (&slow_opens), >=, 2000);
  g_test_message ("the slowed copy took %.2f s", cs_run_get_duration (cs_job_get_run (job)));
  g_assert_cmpfloat (cs_run_get_duration (cs_job_get_run (job)), >=, 2000 * SLOW_OPEN_US / 1e6);

  remembered = cs_job_get_remembered_threads (root, &fs);
  g_assert_cmpuint (remembered, >=, 1);
  g_assert_cmpuint (remembered, <=, 128);
  g_assert_nonnull (fs);

  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", root);
    g_assert_cmpint (system (cmd), ==, 0);
  }
}

/* The reason of the first change in @job's timeline to @to threads, or NULL. */
static char *
change_reason (CsJob *job,
               guint  to)
{
  g_autoptr(GArray) timeline = cs_run_dup_timeline (cs_job_get_run (job));

  for (guint i = 0; i < timeline->len; i++)
    {
      CsThreadChange *c = &g_array_index (timeline, CsThreadChange, i);

      if (c->to == to)
        return g_strdup (c->reason);
    }
  return NULL;
}

static CsJob *
auto_job (const char *src,
          const char *root,
          const char *name,
          gboolean    enabled)
{
  g_autofree char *dst = g_build_filename (root, name, NULL);
  CsJob *job = cs_job_new ();

  cs_job_add_source (job, src);
  cs_job_set_destination (job, dst);
  cs_job_set_threads (job, 2, NULL);
  cs_job_set_auto_threads (job, enabled);
  cs_job_set_interval (job, 100);
  return job;
}

/* Copies @src into @root/@name with Auto on and finds its first change: to
 * @threads, for @reason. */
static void
assert_auto_starts (const char *src,
                    const char *root,
                    const char *name,
                    guint       threads,
                    const char *reason)
{
  g_autoptr(CsJob) job = auto_job (src, root, name, TRUE);
  g_autofree char *said = NULL;

  g_assert_true (cs_job_run_sync (job, NULL, NULL));
  said = change_reason (job, threads);
  g_assert_nonnull (said);
  g_assert_true (g_str_has_prefix (said, reason));
}

/* Auto starts from a count for the size of the files it finds first: the one
 * remembered for this filesystem and that size, else a default per size. */
static void
test_auto_start_by_size (void)
{
  g_autofree char *root = g_dir_make_tmp ("cs-auto-XXXXXX", NULL);
  g_autofree char *tiny = make_source (root, 40);
  g_autofree char *large = g_build_filename (root, "large", NULL);
  g_autofree char *big = g_build_filename (large, "big.bin", NULL);
  g_autofree char *config = g_build_filename (g_get_user_config_dir (), "copyscope", NULL);
  g_autofree char *ini = g_build_filename (config, "auto-threads.ini", NULL);
  g_autofree char *fs_id = _cs_env_filesystem_id (root);
  g_autofree char *contents = NULL;
  int fd;

  /* A large file, sparse so it costs nothing to make or copy. */
  g_assert_cmpint (g_mkdir (large, 0755), ==, 0);
  fd = g_open (big, O_WRONLY | O_CREAT, 0644);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, 100 << 20), ==, 0);
  close (fd);

  /* Nothing remembered: tiny files start at 16, large ones at 8. */
  assert_auto_starts (tiny, root, "d1", 16, "auto: tiny files (12 kB on average); starting at 16 threads");
  assert_auto_starts (large, root, "d2", 8, "auto: large files (104858 kB on average); starting at 8 threads");

  /* Remembered for tiny files on this filesystem: 3, and only for them. */
  contents = g_strdup_printf ("[filesystem %s]\nthreads=5\nthreads-tiny-files=3\n", fs_id);
  g_assert_cmpint (g_mkdir_with_parents (config, 0700), ==, 0);
  g_assert_true (g_file_set_contents (ini, contents, -1, NULL));
  assert_auto_starts (tiny, root, "d3", 3, "auto: tiny files (12 kB on average); 3 threads worked best last time");
  assert_auto_starts (large, root, "d4", 8, "auto: large files (104858 kB on average); starting at 8 threads");

  /* Without Auto, the count set by hand stays. */
  {
    g_autoptr(CsJob) job = auto_job (tiny, root, "d5", FALSE);
    g_autoptr(GArray) timeline = NULL;

    g_assert_true (cs_job_run_sync (job, NULL, NULL));
    timeline = cs_run_dup_timeline (cs_job_get_run (job));
    g_assert_cmpuint (timeline->len, ==, 0);
    g_assert_cmpuint (cs_job_get_threads (job), ==, 2);
  }

  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", root);
    g_assert_cmpint (system (cmd), ==, 0);
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/sweep/knee-table", test_knee_table);
  g_test_add_func ("/sweep/knee-sentence", test_knee_sentence);
  g_test_add_func ("/sweep/knee-empty", test_knee_empty);
  g_test_add_func ("/sweep/stats-follow-the-median-time", test_stats_follow_the_median_time);
  g_test_add_func ("/sweep/end-to-end", test_sweep_end_to_end);
  g_test_add_func ("/sweep/other-backend", test_sweep_other_backend);
  g_test_add_func ("/sweep/destination-not-folder", test_sweep_destination_not_folder);
  g_test_add_func ("/sweep/bad-files", test_sweep_bad_files);
  g_test_add_func ("/sweep/load-bounded", test_sweep_load_bounded);
  g_test_add_func ("/demo/end-to-end", test_demo_end_to_end);
  g_test_add_func ("/demo/explain-phases", test_demo_explain_phases);
  g_test_add_func ("/sweep/async", test_async);
  g_test_add_func ("/auto/remembered", test_remembered_threads);
  g_test_add_func ("/auto/start-by-size", test_auto_start_by_size);

  return g_test_run ();
}
