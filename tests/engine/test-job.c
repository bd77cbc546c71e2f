/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <glib/gstdio.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "copyscope-engine.h"
#include "cs-count-ahead-private.h"
#include "cs-io-private.h"
#include "cs-job-private.h"
#include "cs-test-tree.h"

/* ---- Trees ---------------------------------------------------------------- */

static void
write_file (const char *path,
            gsize       size,
            guint       seed)
{
  g_autofree guint8 *data = g_malloc (size > 0 ? size : 1);
  GError *error = NULL;

  for (gsize i = 0; i < size; i++)
    data[i] = (guint8) ((i * 2654435761u + seed) >> 7);
  g_file_set_contents (path, (const char *) data, (gssize) size, &error);
  g_assert_no_error (error);
}

static char *
tmp_dir (void)
{
  GError *error = NULL;
  char *dir = g_dir_make_tmp ("cs-test-XXXXXX", &error);

  g_assert_no_error (error);
  g_chmod (dir, 0755);
  return dir;
}

static void
set_mtime (const char *path,
           time_t      sec,
           long        nsec)
{
  struct timespec ts[2] = { { sec, nsec }, { sec, nsec } };

  g_assert_cmpint (utimensat (AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW), ==, 0);
}

/* A tree with the awkward cases: modes, nanosecond times, symlinks, empty
 * folders, holes, and names with spaces, newlines and invalid UTF-8. */
static char *
make_tree (void)
{
  char *root = tmp_dir ();
  g_autofree char *src = g_build_filename (root, "src", NULL);
  g_autofree char *p = NULL;
  int fd;

  g_mkdir (src, 0755);
#define PATH(...) (g_free (p), p = g_build_filename (src, __VA_ARGS__, NULL))
  write_file (PATH ("plain.txt"), 12345, 1);
  write_file (PATH ("empty"), 0, 0);
  write_file (PATH ("name with spaces"), 100, 2);
  write_file (PATH ("new\nline"), 200, 3);
  write_file (PATH ("bad-\xff\xfe-utf8"), 300, 4);
  g_mkdir (PATH ("sub"), 0750);
  g_mkdir (PATH ("sub", "deeper"), 0700);
  g_mkdir (PATH ("empty-dir"), 0755);
  write_file (PATH ("sub", "deeper", "x.bin"), 3 * 1024 * 1024 + 7, 5);
  write_file (PATH ("sub", "ro"), 10, 6);
  g_chmod (PATH ("sub", "ro"), 0444);
  write_file (PATH ("sub", "exec"), 10, 7);
  g_chmod (PATH ("sub", "exec"), 0751);
  g_assert_cmpint (symlink ("plain.txt", PATH ("link")), ==, 0);
  g_assert_cmpint (symlink ("does/not/exist", PATH ("dangling")), ==, 0);
  /* 1 MiB of data, an 8 MiB hole, 1 MiB of data. */
  fd = open (PATH ("sparse"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  {
    g_autofree char *block = g_malloc (1 << 20);
    memset (block, 'x', 1 << 20);
    g_assert_cmpint (pwrite (fd, block, 1 << 20, 0), ==, 1 << 20);
    g_assert_cmpint (pwrite (fd, block, 1 << 20, 9 << 20), ==, 1 << 20);
  }
  close (fd);
  set_mtime (PATH ("plain.txt"), 1600000000, 123456789);
  set_mtime (PATH ("link"), 1500000000, 987654321);
  set_mtime (PATH ("sub", "deeper"), 1400000000, 5);
  set_mtime (PATH ("empty-dir"), 1300000000, 42);
#undef PATH
  return root;
}

static void
assert_same_file (const char *a,
                  const char *b)
{
  g_autofree char *ca = NULL;
  g_autofree char *cb = NULL;
  gsize la, lb;

  g_assert_true (g_file_get_contents (a, &ca, &la, NULL));
  g_assert_true (g_file_get_contents (b, &cb, &lb, NULL));
  g_assert_cmpuint (la, ==, lb);
  g_assert_true (memcmp (ca, cb, la) == 0);
}





static CsJob *
job_for (const char *src,
         const char *dst,
         guint       threads)
{
  CsJob *job = cs_job_new ();

  cs_job_add_source (job, src);
  cs_job_set_destination (job, dst);
  cs_job_set_threads (job, threads, NULL);
  cs_job_set_interval (job, 100);
  cs_job_set_flush (job, FALSE);
  return job;
}

/* ---- Fault injection through the engine's I/O table ----------------------- */

static CsIoTable fault_table;
static atomic_int fault_reads_to_fail;      /* fail this many reads with EIO */
static atomic_int fault_delay_us;           /* sleep in every data request */

static ssize_t
fault_pread (int fd, void *buf, size_t count, off_t offset)
{
  int us = atomic_load (&fault_delay_us);

  if (us > 0)
    g_usleep (us);
  if (atomic_load (&fault_reads_to_fail) > 0 && atomic_fetch_sub (&fault_reads_to_fail, 1) > 0)
    {
      errno = EIO;
      return -1;
    }
  return pread (fd, buf, count, offset);
}

static ssize_t
fault_copy_range (int fd_in, off_t *off_in, int fd_out, off_t *off_out, size_t len, unsigned int flags)
{
  /* Force the read/write path so reads can be failed and slowed. */
  errno = EXDEV;
  return -1;
}

/* The highest nice value a data read ran at, and how many reads ran under
 * another policy than the test's own, for test_worker_priority. */
static atomic_int highest_reader_nice;
static atomic_int other_policy_reads;
static int test_policy;

static void
note_priority (void)
{
  int nice;

  errno = 0;
  nice = getpriority (PRIO_PROCESS, (id_t) gettid ());
  g_assert_cmpint (errno, ==, 0);
  for (int seen = atomic_load (&highest_reader_nice);
       nice > seen && !atomic_compare_exchange_weak (&highest_reader_nice, &seen, nice);)
    ;
  if (sched_getscheduler (0) != test_policy)
    atomic_fetch_add (&other_policy_reads, 1);
}

static ssize_t
priority_pread (int fd, void *buf, size_t count, off_t offset)
{
  note_priority ();
  return pread (fd, buf, count, offset);
}

static void
shared_pool_task (gpointer data,
                  gpointer user_data)
{
  note_priority ();
}

static void
install_faults (void)
{
  fault_table = *_cs_io_get_default ();
  fault_table.pread = fault_pread;
  fault_table.copy_file_range = fault_copy_range;
  atomic_store (&fault_reads_to_fail, 0);
  atomic_store (&fault_delay_us, 0);
  _cs_io_set (&fault_table);
}

static void
remove_faults (void)
{
  _cs_io_set (NULL);
}

/* ---- Tests ---------------------------------------------------------------- */

static void
test_copy_tree (void)
{
  g_autofree char *root = make_tree ();
  g_autofree char *src = g_build_filename (root, "src", NULL);
  g_autofree char *dst = g_build_filename (root, "dst", NULL);
  g_autofree char *sparse = g_build_filename (dst, "sparse", NULL);
  g_autoptr(CsJob) job = job_for (src, dst, 4);
  g_autoptr(GError) error = NULL;
  CsTotals totals;
  struct stat st;

  g_assert_true (cs_job_run_sync (job, NULL, &error));
  g_assert_no_error (error);

  cs_test_tree_assert_equal (src, dst);
  g_assert_cmpuint (cs_test_tree_find_temporaries (dst), ==, 0);

  /* The hole stayed a hole. */
  g_assert_cmpint (stat (sparse, &st), ==, 0);
  g_assert_cmpint ((gint64) st.st_blocks * 512, <, 4 << 20);

  cs_run_get_totals (cs_job_get_run (job), &totals);
  g_assert_cmpuint (totals.v[CS_CLASS_COPIED][CS_KIND_BYTES], ==, cs_test_tree_sum_file_sizes (src));
  g_assert_cmpuint (totals.v[CS_CLASS_FAILED][CS_KIND_FILES], ==, 0);
  g_assert_cmpstr (cs_run_get_outcome (cs_job_get_run (job)), ==, "completed");
  g_assert_cmpuint (cs_run_get_n_samples (cs_job_get_run (job)), >=, 1);

  cs_test_tree_remove (root);
}

static void
test_cp_semantics (void)
{
  g_autofree char *root = make_tree ();
  g_autofree char *src = g_build_filename (root, "src", NULL);
  g_autofree char *file = g_build_filename (src, "plain.txt", NULL);
  g_autofree char *existing = g_build_filename (root, "existing", NULL);
  g_autofree char *into = g_build_filename (existing, "src", NULL);
  g_autofree char *as_file = g_build_filename (root, "renamed.txt", NULL);
  g_autofree char *multi = g_build_filename (root, "multi", NULL);
  g_autofree char *multi_a = g_build_filename (multi, "src", NULL);
  g_autofree char *multi_b = g_build_filename (multi, "plain.txt", NULL);
  g_autoptr(CsJob) j1 = NULL;
  g_autoptr(CsJob) j2 = NULL;
  g_autoptr(CsJob) j3 = NULL;

  /* An existing folder receives the source by its name. */
  g_mkdir (existing, 0755);
  j1 = job_for (src, existing, 2);
  g_assert_true (cs_job_run_sync (j1, NULL, NULL));
  cs_test_tree_assert_equal (src, into);

  /* A single file to a path that does not exist becomes that path. */
  j2 = job_for (file, as_file, 1);
  g_assert_true (cs_job_run_sync (j2, NULL, NULL));
  cs_test_tree_assert_equal (file, as_file);

  /* Several sources go into one folder. */
  j3 = job_for (src, multi, 2);
  cs_job_add_source (j3, file);
  g_assert_true (cs_job_run_sync (j3, NULL, NULL));
  cs_test_tree_assert_equal (src, multi_a);
  cs_test_tree_assert_equal (file, multi_b);

  cs_test_tree_remove (root);
}

/* Copy Into: each source at DESTINATION/NAME, whether the destination exists
 * or not; a missing one is made as a folder, a file is refused. */
static void
test_into (void)
{
  g_autofree char *root = make_tree ();
  g_autofree char *src = g_build_filename (root, "src", NULL);
  g_autofree char *file = g_build_filename (src, "plain.txt", NULL);
  g_autofree char *missing = g_build_filename (root, "nas1", NULL);
  g_autofree char *missing_src = g_build_filename (missing, "src", NULL);
  g_autofree char *existing = g_build_filename (root, "existing", NULL);
  g_autofree char *existing_src = g_build_filename (existing, "src", NULL);
  g_autofree char *for_file = g_build_filename (root, "for-file", NULL);
  g_autofree char *for_file_copy = g_build_filename (for_file, "plain.txt", NULL);
  g_autoptr(CsJob) j1 = NULL;
  g_autoptr(CsJob) j2 = NULL;
  g_autoptr(CsJob) j3 = NULL;
  g_autoptr(CsJob) j4 = NULL;
  g_autoptr(GError) error = NULL;

  /* A folder into a destination that does not exist yet: nas1/src, not nas1. */
  j1 = job_for (src, missing, 2);
  cs_job_set_into (j1, TRUE);
  g_assert_true (cs_job_run_sync (j1, NULL, NULL));
  g_assert_true (g_file_test (missing, G_FILE_TEST_IS_DIR));
  cs_test_tree_assert_equal (src, missing_src);

  /* The same into one that exists. */
  g_assert_cmpint (g_mkdir (existing, 0755), ==, 0);
  j2 = job_for (src, existing, 2);
  cs_job_set_into (j2, TRUE);
  g_assert_true (cs_job_run_sync (j2, NULL, NULL));
  cs_test_tree_assert_equal (src, existing_src);

  /* A single file into a missing folder lands inside it under its name. */
  j3 = job_for (file, for_file, 1);
  cs_job_set_into (j3, TRUE);
  g_assert_true (cs_job_run_sync (j3, NULL, NULL));
  cs_test_tree_assert_equal (file, for_file_copy);

  /* A file is no folder to copy into. */
  j4 = job_for (src, for_file_copy, 1);
  cs_job_set_into (j4, TRUE);
  g_assert_false (cs_job_check (j4, &error));
  g_assert_error (error, CS_JOB_ERROR, CS_JOB_ERROR_DESTINATION);

  cs_test_tree_remove (root);
}

static void
test_refusals (void)
{
  g_autofree char *root = make_tree ();
  g_autofree char *src = g_build_filename (root, "src", NULL);
  g_autofree char *file = g_build_filename (src, "plain.txt", NULL);
  g_autofree char *hardlink = g_build_filename (root, "hard.txt", NULL);
  g_autofree char *symlink_path = g_build_filename (root, "soft.txt", NULL);
  g_autofree char *inside = g_build_filename (src, "sub", "copy", NULL);
  g_autofree char *missing = g_build_filename (root, "missing", NULL);
  struct {
    const char *src;
    const char *src2;
    const char *dst;
    CsJobErrorCode code;
  } cases[] = {
    { file, NULL, file, CS_JOB_ERROR_SAME_FILE },
    { file, NULL, hardlink, CS_JOB_ERROR_SAME_FILE },
    { file, NULL, symlink_path, CS_JOB_ERROR_SAME_FILE },
    { src, NULL, inside, CS_JOB_ERROR_INSIDE_SOURCE },
    { src, NULL, src, CS_JOB_ERROR_INSIDE_SOURCE },
    { missing, NULL, root, CS_JOB_ERROR_MISSING_SOURCE },
    { file, file, root, CS_JOB_ERROR_DUPLICATE_SOURCE },
  };

  g_assert_cmpint (link (file, hardlink), ==, 0);
  g_assert_cmpint (symlink (file, symlink_path), ==, 0);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(CsJob) job = job_for (cases[i].src, cases[i].dst, 2);
      g_autoptr(GError) error = NULL;
      struct stat before, after;

      g_autoptr(GPtrArray) errors = NULL;
      const CsRunError *e;
      CsTotals totals;

      if (cases[i].src2 != NULL)
        cs_job_add_source (job, cases[i].src2);
      /* Asked before Start (the window): the request is refused whole. */
      g_assert_false (cs_job_check (job, &error));
      g_assert_error (error, CS_JOB_ERROR, (int) cases[i].code);
      g_clear_error (&error);

      /* Run (the CLI, as cp): the refused source is a failed item and the
       * others are copied; here the second of a source given twice. */
      g_assert_cmpint (lstat (root, &before), ==, 0);
      g_assert_true (cs_job_run_sync (job, NULL, &error));
      g_assert_no_error (error);
      cs_run_get_totals (cs_job_get_run (job), &totals);
      g_assert_cmpuint (totals.v[CS_CLASS_FAILED][CS_KIND_FILES] + totals.v[CS_CLASS_FAILED][CS_KIND_DIRS], ==, 1);
      errors = cs_run_dup_errors (cs_job_get_run (job));
      g_assert_cmpuint (errors->len, ==, 1);
      e = g_ptr_array_index (errors, 0);
      g_assert_cmpstr (e->operation, ==, "check");
      g_assert_cmpint (lstat (root, &after), ==, 0);
      if (cases[i].code == CS_JOB_ERROR_DUPLICATE_SOURCE)
        {
          g_autofree char *copied = g_build_filename (root, "plain.txt", NULL);

          g_assert_cmpuint (totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, 1);
          g_assert_true (g_file_test (copied, G_FILE_TEST_IS_REGULAR));
          g_assert_cmpint (g_unlink (copied), ==, 0);
        }
      else
        {
          g_assert_cmpuint (totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, 0);
          g_assert_cmpint (before.st_mtim.tv_nsec, ==, after.st_mtim.tv_nsec);
        }
      g_assert_false (g_file_test (inside, G_FILE_TEST_EXISTS));
    }

  cs_test_tree_remove (root);
}

typedef struct {
  CsJob   *job;
  guint    changes_seen;
  gboolean changed;
  gboolean cancelled;
  guint    max_active_after;
  guint    samples;
} LiveState;

static void
on_sample_change_threads (CsJob    *job,
                          gpointer  sample,
                          gpointer  user_data)
{
  LiveState *state = user_data;
  CsProgress p;

  state->samples++;
  cs_job_get_progress (job, &p);
  if (!state->changed && p.files_done > 5)
    {
      cs_job_set_threads (job, 1, "test");
      state->changed = TRUE;
    }
  else if (state->changed && state->samples > 20)
    state->max_active_after = MAX (state->max_active_after, p.active);
}

static void
on_threads_changed (CsJob   *job,
                    guint    from,
                    guint    to,
                    gpointer user_data)
{
  ((LiveState *) user_data)->changes_seen++;
}

static char *
make_many_files (const char *root,
                 guint       n,
                 gsize       size)
{
  char *src = g_build_filename (root, "many", NULL);

  g_mkdir (src, 0755);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = g_strdup_printf ("%s/f%04u", src, i);
      write_file (name, size, i);
    }
  return src;
}

/* ---- Waiting for a processor (run_delay) --------------------------------- */

#define RUNNABLE_FILES   5000
#define RUNNABLE_THREADS 16

static atomic_bool runnable_burning;

static gpointer
runnable_burn (gpointer data)
{
  while (atomic_load (&runnable_burning))
    ;
  return NULL;
}

/* A folder on tmpfs where there is one: the copy then spends its time on
 * the processors, not on a disk. */
static char *
tmpfs_dir (void)
{
  g_autofree char *template = g_build_filename ("/dev/shm", "cs-test-XXXXXX", NULL);

  if (g_file_test ("/dev/shm", G_FILE_TEST_IS_DIR) && g_mkdtemp (template) != NULL)
    return g_steal_pointer (&template);
  return tmp_dir ();
}

static CsRun *
run_small_files (guint threads)
{
  g_autofree char *root = tmpfs_dir ();
  g_autofree char *src = make_many_files (root, RUNNABLE_FILES, 2048);
  g_autofree char *dst = g_build_filename (root, "dst", NULL);
  g_autoptr(CsJob) job = job_for (src, dst, threads);
  CsRun *run;

  g_assert_true (cs_job_run_sync (job, NULL, NULL));
  cs_test_tree_assert_equal (src, dst);
  run = cs_run_ref (cs_job_get_run (job));
  cs_test_tree_remove (root);
  return run;
}

/* Sixteen workers on small files beside a thread burning each processor:
 * they wait for one, and the record says how long, in its samples and in
 * its exact total. */
static void
test_runnable (void)
{
  g_autoptr(GPtrArray) burners = g_ptr_array_new ();
  g_autoptr(CsRun) run = NULL;
  g_autoptr(CsRun) copy = NULL;
  g_autoptr(GArray) series = NULL;
  g_autofree char *json = NULL;
  g_autoptr(JsonNode) root = NULL;
  double runnable = 0, sum = 0, phases[CS_PHASE_N], worker_seconds = 0, back;

  atomic_store (&runnable_burning, TRUE);
  for (guint i = 0; i < g_get_num_processors (); i++)
    g_ptr_array_add (burners, g_thread_new ("burn", runnable_burn, NULL));
  run = run_small_files (RUNNABLE_THREADS);
  atomic_store (&runnable_burning, FALSE);
  for (guint i = 0; i < burners->len; i++)
    g_thread_join (burners->pdata[i]);

  g_assert_true (cs_run_get_phase_totals (run, phases));
  for (guint p = 0; p < CS_PHASE_N; p++)
    worker_seconds += phases[p];
  g_assert_true (cs_run_get_runnable_total (run, &runnable));
  g_test_message ("runnable %.3f of %.3f worker-s", runnable, worker_seconds);
  g_assert_cmpfloat (runnable, >, 0);
  /* A share of the workers' time, never more than all of it (the
   * threads' counts and the sampler's clock are read a moment apart). */
  g_assert_cmpfloat (runnable, <=, 1.05 * worker_seconds);

  series = cs_run_dup_phase_series (run);
  for (guint i = 0; i < series->len; i++)
    {
      const CsPhaseBucket *b = &g_array_index (series, CsPhaseBucket, i);
      double workers = 0;

      for (guint p = 0; p < CS_PHASE_N; p++)
        workers += b->seconds[p];
      /* The kernel counts a wait when it ends, perhaps a sample later;
       * no sample but the closing one shows more than its workers could
       * have waited in it. */
      if (i + 1 < series->len)
        g_assert_cmpfloat (b->runnable, <=, workers * 1.01 + 1e-3);
      sum += b->runnable;
    }
  g_assert_cmpfloat (fabs (sum - runnable), <=, 1e-6 * MAX (runnable, 1.0));

  /* And so the record read back: the total exact, the samples to the ms. */
  json = cs_run_to_json_string (run, FALSE);
  root = json_from_string (json, NULL);
  copy = cs_run_new_from_json (root, NULL);
  g_assert_nonnull (copy);
  g_assert_true (cs_run_get_runnable_total (copy, &back));
  g_assert_cmpfloat (back, ==, runnable);
}

/* On a machine without the files: not measured, not zero. */
static void
test_runnable_not_measured (void)
{
  g_autoptr(CsRun) run = NULL;
  g_autoptr(GArray) series = NULL;
  g_autofree char *json = NULL;
  double runnable = -1;

  _cs_run_delay_set_task_dir ("/nonexistent-copyscope-task");
  run = run_small_files (4);
  _cs_run_delay_set_task_dir ("/proc/self/task");

  g_assert_true (cs_run_get_phase_totals (run, NULL));
  g_assert_false (cs_run_get_runnable_total (run, &runnable));
  g_assert_cmpfloat (runnable, ==, -1);
  series = cs_run_dup_phase_series (run);
  g_assert_nonnull (series);
  for (guint i = 0; i < series->len; i++)
    g_assert_cmpfloat (g_array_index (series, CsPhaseBucket, i).runnable, ==, 0);
  json = cs_run_to_json_string (run, FALSE);
  g_assert_null (strstr (json, "runnable"));
}

/* A thread that opens its file and waits; told apart with atomics, which
 * ThreadSanitizer sees (GLib's locks are futexes it does not). */
typedef struct {
  CsRunDelay  delay;
  atomic_bool opened, done;
} CostWorker;

static gpointer
cost_worker (gpointer data)
{
  CostWorker *w = data;

  _cs_run_delay_open_thread (&w->delay, _cs_run_delay_tid ());
  atomic_store_explicit (&w->opened, TRUE, memory_order_release);
  while (!atomic_load (&w->done))
    g_usleep (10000);
  return NULL;
}

/* What reading 64 workers' files costs the sampler at each sample. */
static void
test_runnable_cost (void)
{
  enum { WORKERS = 64, ROUNDS = 200 };
  CostWorker *workers = g_new0 (CostWorker, WORKERS);
  GThread *threads[WORKERS];
  gint64 start, elapsed, worst = 0;
  guint64 total = 0;

  for (guint i = 0; i < WORKERS; i++)
    {
      threads[i] = g_thread_new ("cost", cost_worker, &workers[i]);
      while (!atomic_load_explicit (&workers[i].opened, memory_order_acquire))
        g_usleep (100);
      g_assert_cmpint (workers[i].delay.fd, >=, 0);
    }

  start = g_get_monotonic_time ();
  for (guint r = 0; r < ROUNDS; r++)
    {
      gint64 round = g_get_monotonic_time ();

      for (guint i = 0; i < WORKERS; i++)
        total += _cs_run_delay_read (&workers[i].delay);
      worst = MAX (worst, g_get_monotonic_time () - round);
    }
  elapsed = g_get_monotonic_time () - start;
  g_test_message ("reading %d workers' run_delay: %.1f µs a sample (worst %" G_GINT64_FORMAT
                  " µs), %.2f µs a file, %" G_GUINT64_FORMAT " ns seen",
                  WORKERS, (double) elapsed / ROUNDS, worst,
                  (double) elapsed / ROUNDS / WORKERS, total);
  /* The brief's bound is 1 ms; this machine may be loaded, so only an
   * order of magnitude past it fails. */
  g_assert_cmpfloat ((double) elapsed / ROUNDS, <, 10000);

  for (guint i = 0; i < WORKERS; i++)
    {
      atomic_store (&workers[i].done, TRUE);
      g_thread_join (threads[i]);
      _cs_run_delay_close (&workers[i].delay);
    }
  g_free (workers);
}

static void
test_live_threads (void)
{
  g_autofree char *root = tmp_dir ();
  g_autofree char *src = make_many_files (root, 300, 4096);
  g_autofree char *dst = g_build_filename (root, "dst", NULL);
  g_autoptr(CsJob) job = job_for (src, dst, 8);
  g_autoptr(GArray) timeline = NULL;
  LiveState state = { job };

  install_faults ();
  atomic_store (&fault_delay_us, 5000);
  g_signal_connect (job, "sample", G_CALLBACK (on_sample_change_threads), &state);
  g_signal_connect (job, "threads-changed", G_CALLBACK (on_threads_changed), &state);
  g_assert_true (cs_job_run_sync (job, NULL, NULL));
  remove_faults ();

  g_assert_true (state.changed);
  g_assert_cmpuint (state.changes_seen, ==, 1);
  g_assert_cmpuint (cs_job_get_threads (job), ==, 1);
  /* Within a couple of seconds the pool runs one worker at most. */
  g_assert_cmpuint (state.max_active_after, <=, 1);
  timeline = cs_run_dup_timeline (cs_job_get_run (job));
  g_assert_cmpuint (timeline->len, ==, 1);
  g_assert_cmpuint (g_array_index (timeline, CsThreadChange, 0).from, ==, 8);
  g_assert_cmpuint (g_array_index (timeline, CsThreadChange, 0).to, ==, 1);
  cs_test_tree_assert_equal (src, dst);

  cs_test_tree_remove (root);
}

/* ---- Where the workers' time goes ---------------------------------------- */

#define PHASE_FILES   400
#define PHASE_FROM    2
#define PHASE_TO      6
#define PHASE_HOLD_MS 300

typedef struct {
  CsJob   *job;
  gboolean changed;
  gboolean paused;
  gboolean resumed;
} PhaseState;

static gboolean
phase_resume_cb (gpointer user_data)
{
  PhaseState *state = user_data;

  cs_job_resume (state->job);
  state->resumed = TRUE;
  return G_SOURCE_REMOVE;
}

static void
on_sample_phases (CsJob    *job,
                  gpointer  sample,
                  gpointer  user_data)
{
  PhaseState *state = user_data;
  CsProgress p;

  cs_job_get_progress (job, &p);
  if (!state->changed && p.files_done >= 20)
    {
      cs_job_set_threads (job, PHASE_TO, "test");
      state->changed = TRUE;
    }
  else if (state->changed && !state->paused && p.files_done >= PHASE_FILES / 2)
    {
      cs_job_pause (job);
      state->paused = TRUE;
      {
        /* run_sync's own context, where this signal came */
        g_autoptr(GSource) source = g_timeout_source_new (PHASE_HOLD_MS);

        g_source_set_callback (source, phase_resume_cb, state, NULL);
        g_source_attach (source, g_main_context_get_thread_default ());
      }
    }
}

/* The workers' time by phase adds up to the thread count's integral over the
 * copy's wall time: the slider's change and the pause included. The integral
 * is the record's own, from its thread timeline, its clock and its holds,
 * not the sampler's. */
static void
test_phases_add_up (void)
{
  g_autofree char *root = tmp_dir ();
  g_autofree char *src = make_many_files (root, PHASE_FILES, 4096);
  g_autofree char *dst = g_build_filename (root, "dst", NULL);
  g_autoptr(CsJob) job = job_for (src, dst, PHASE_FROM);
  g_autoptr(GArray) timeline = NULL;
  g_autoptr(GArray) lanes = NULL;
  PhaseState state = { job };
  CsRun *run = cs_job_get_run (job);
  double seconds[CS_PHASE_N], sum = 0, integral, t_change, held;
  CsLatencyHistogram read_latency;

  install_faults ();
  atomic_store (&fault_delay_us, 3000);
  g_signal_connect (job, "sample", G_CALLBACK (on_sample_phases), &state);
  g_assert_true (cs_job_run_sync (job, NULL, NULL));
  remove_faults ();
  g_assert_true (state.resumed);
  cs_test_tree_assert_equal (src, dst);

  timeline = cs_run_dup_timeline (run);
  g_assert_cmpuint (timeline->len, ==, 1);
  g_assert_cmpuint (g_array_index (timeline, CsThreadChange, 0).from, ==, PHASE_FROM);
  g_assert_cmpuint (g_array_index (timeline, CsThreadChange, 0).to, ==, PHASE_TO);
  t_change = g_array_index (timeline, CsThreadChange, 0).t;
  held = cs_run_get_held (run);
  g_assert_cmpfloat (held, >=, PHASE_HOLD_MS / 1000.0 - 0.05);
  /* The pause came after the change: all of it at PHASE_TO threads. */
  integral = PHASE_FROM * t_change + PHASE_TO * (cs_run_get_duration (run) - t_change) + PHASE_TO * held;

  g_assert_true (cs_run_get_phase_totals (run, seconds));
  for (guint p = 0; p < CS_PHASE_N; p++)
    {
      g_test_message ("%s: %.3f worker-s", cs_phase_get_id (p), seconds[p]);
      sum += seconds[p];
    }
  g_test_message ("phases %.3f worker-s, integral %.3f", sum, integral);
  g_assert_cmpfloat (fabs (sum - integral), <=, 0.02 * integral);

  /* What the workers did is measured, not the remainder: every file's data
   * was read through the slowed read, and the pause held the workers. */
  g_assert_cmpfloat (seconds[CS_PHASE_READING], >=, 0.5 * PHASE_FILES * 0.003 / PHASE_TO);
  g_assert_cmpfloat (seconds[CS_PHASE_PAUSED], >=, 0.5 * PHASE_TO * held);
  g_assert_cmpfloat (seconds[CS_PHASE_LIMITED], ==, 0);
  g_assert_cmpfloat (seconds[CS_PHASE_QUESTION], <, 0.01);

  /* The lanes: one per worker, each starting waiting. */
  lanes = cs_run_dup_phase_lanes (run);
  g_assert_nonnull (lanes);
  g_assert_cmpuint (lanes->len, >=, PHASE_TO);
  g_assert_cmpuint (lanes->len, <=, 2 * PHASE_TO);
  for (guint i = 0; i < lanes->len; i++)
    g_assert_cmpuint (g_array_index (lanes, CsPhaseLane, i).changes->len, >, 0);

  /* A read per file at least, each slowed by the fault table's 3 ms. */
  g_assert_true (cs_run_get_latency (run, CS_LATENCY_READ, &read_latency));
  g_assert_cmpuint (read_latency.count, >=, PHASE_FILES);
  g_assert_cmpfloat (cs_latency_histogram_percentile (&read_latency, 90), >=, 2e6);

  cs_test_tree_remove (root);
}

/* A tree more than a queue's length of files (the scanner waits for the copy
 * behind that many), with what the count must take as the scanner does:
 * nested folders, a link, a FIFO, an excluded file and an excluded folder. */
#define COUNT_TREE_FILES 5000
#define COUNT_TREE_SIZE  100

static char *
make_count_tree (const char *root,
                 guint64    *out_files,
                 guint64    *out_bytes)
{
  char *src = g_build_filename (root, "counted", NULL);
  g_autofree char *sub = g_build_filename (src, "sub", NULL);
  g_autofree char *deeper = g_build_filename (sub, "deeper", NULL);
  g_autofree char *excluded = g_build_filename (src, "cache.tmp", NULL);
  char block[COUNT_TREE_SIZE];

  memset (block, 'c', sizeof block);
  g_assert_cmpint (g_mkdir_with_parents (deeper, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (excluded, 0755), ==, 0);
  for (guint i = 0; i < COUNT_TREE_FILES; i++)
    {
      g_autofree char *name = g_strdup_printf ("%s/f%05u", i % 2 ? sub : deeper, i);
      int fd = open (name, O_WRONLY | O_CREAT | O_EXCL, 0644);

      g_assert_cmpint (fd, >=, 0);
      g_assert_cmpint (write (fd, block, sizeof block), ==, sizeof block);
      close (fd);
    }
  {
    g_autofree char *link = g_build_filename (sub, "link", NULL);
    g_autofree char *fifo = g_build_filename (src, "fifo", NULL);
    g_autofree char *tmp = g_build_filename (src, "skip.tmp", NULL);
    g_autofree char *hidden = g_build_filename (excluded, "inside", NULL);

    g_assert_cmpint (symlink ("f00001", link), ==, 0);
    g_assert_cmpint (mkfifo (fifo, 0644), ==, 0);
    write_file (tmp, 4096, 1);
    write_file (hidden, 4096, 2);
  }
  *out_files = COUNT_TREE_FILES + 2;
  *out_bytes = (guint64) COUNT_TREE_FILES * COUNT_TREE_SIZE;
  return src;
}

typedef struct {
  guint    known_while_scanning;   /* samples with a total before the scan ended */
  guint    scanning;
  CsProgress first_known;
} CountState;

static void
on_sample_count (CsJob    *job,
                 gpointer  sample,
                 gpointer  user_data)
{
  CountState *state = user_data;
  CsProgress p;

  cs_job_get_progress (job, &p);
  /* The copy runs at full speed once the count has given its total. */
  if (p.total_known || !p.scanning)
    atomic_store (&fault_delay_us, 0);
  if (!p.scanning)
    return;
  state->scanning++;
  if (p.total_known && state->known_while_scanning++ == 0)
    state->first_known = p;
}

/* The progress has the whole tree's total while the scanner is still a
 * queue's length behind, and it is the total the scanner finds at the end. */
static void
test_count_ahead (void)
{
  g_autofree char *root = tmp_dir ();
  g_autofree char *dst = g_build_filename (root, "dst", NULL);
  g_autoptr(CsJob) job = NULL;
  g_autofree char *src = NULL;
  CountState state = { 0 };
  guint64 files, bytes;
  CsProgress p;

  src = make_count_tree (root, &files, &bytes);
  job = job_for (src, dst, 2);
  cs_job_add_exclude (job, "*.tmp");
  install_faults ();
  /* Two workers at 4 ms a file (500 files a second) hold the scanner a
   * queue's length ahead, or, slower than that itself, past the second after
   * which the count begins anyway: either way the scan outlasts the count's
   * start, even on a loaded machine under the sanitizers, where at 0.3 ms a
   * file the scanner could end first and no sample had a total. */
  atomic_store (&fault_delay_us, 4000);
  g_signal_connect (job, "sample", G_CALLBACK (on_sample_count), &state);
  g_assert_true (cs_job_run_sync (job, NULL, NULL));
  remove_faults ();

  g_assert_cmpuint (state.scanning, >, 0);
  g_assert_cmpuint (state.known_while_scanning, >, 0);
  g_assert_cmpuint (state.first_known.files_total, ==, files);
  g_assert_cmpuint (state.first_known.bytes_total, ==, bytes);
  /* Known long before the scanner got there. */
  g_assert_cmpuint (state.first_known.files_found, <, files);
  g_assert_cmpuint (state.first_known.files_done, <, files / 2);

  cs_job_get_progress (job, &p);
  g_assert_true (p.total_known);
  g_assert_false (p.scanning);
  g_assert_cmpuint (p.files_found, ==, files);
  g_assert_cmpuint (p.bytes_found, ==, bytes);
  g_assert_cmpuint (p.files_total, ==, files);
  cs_test_tree_remove (root);
}

/* A count held by a paused copy ends with the cancel, having claimed no
 * total; left alone, the same count finishes with the tree's. */
static void
test_count_ahead_cancel (void)
{
  g_autofree char *root = tmp_dir ();
  g_autofree char *dst = g_build_filename (root, "dst", NULL);
  g_autoptr(CsJob) held = NULL;
  g_autoptr(CsJob) free_running = NULL;
  g_autofree char *src = NULL;
  guint64 files, bytes;
  gint64 start;

  src = make_count_tree (root, &files, &bytes);

  held = job_for (src, dst, 2);
  atomic_store (&held->gate.gate_closed, 1);
  _cs_count_ahead_start (held);
  g_usleep (G_USEC_PER_SEC / 5);
  g_assert_false (atomic_load (&held->ahead.counted));
  start = g_get_monotonic_time ();
  cs_job_cancel (held);
  _cs_count_ahead_stop (held);
  g_assert_cmpint (g_get_monotonic_time () - start, <, G_USEC_PER_SEC);
  g_assert_false (atomic_load (&held->ahead.counted));
  g_assert_cmpuint (atomic_load (&held->ahead.files_counted), ==, 0);

  free_running = job_for (src, dst, 2);
  cs_job_add_exclude (free_running, "*.tmp");
  _cs_count_ahead_start (free_running);
  for (start = g_get_monotonic_time ();
       !atomic_load (&free_running->ahead.counted) && g_get_monotonic_time () - start < 30 * G_USEC_PER_SEC;)
    g_usleep (1000);
  _cs_count_ahead_stop (free_running);
  g_assert_true (atomic_load (&free_running->ahead.counted));
  g_assert_cmpuint (atomic_load (&free_running->ahead.files_counted), ==, files);
  g_assert_cmpuint (atomic_load (&free_running->ahead.bytes_counted), ==, bytes);

  /* A source it cannot see (as a share's URI would be) gives no total. */
  {
    g_autofree char *unseen = g_build_filename (root, "not-here", NULL);
    g_autoptr(CsJob) blind = job_for (unseen, dst, 2);

    _cs_count_ahead_start (blind);
    g_thread_join (g_steal_pointer (&blind->ahead.counter));
    g_assert_false (atomic_load (&blind->ahead.counted));
  }
  cs_test_tree_remove (root);
}

/* One entry as the scanner meets it: where it is, and what it counts. */
typedef struct {
  guint   depth;
  guint   index;
  gboolean file;        /* counted as a file: not a folder, not excluded */
  guint64 size;
} MetEntry;

/* The scanner's walk of @path, @depth levels down, in its listing's order. */
static void
list_as_scanner (CsJob      *job,
                 const char *path,
                 guint       depth,
                 GArray     *out)
{
  DIR *d = opendir (path);
  struct dirent *e;
  guint index = 0;

  g_assert_nonnull (d);
  while ((e = readdir (d)) != NULL)
    {
      g_autofree char *child = NULL;
      MetEntry entry = { depth, 0, FALSE, 0 };
      struct stat st;

      if (strcmp (e->d_name, ".") == 0 || strcmp (e->d_name, "..") == 0)
        continue;
      entry.index = index++;
      child = g_build_filename (path, e->d_name, NULL);
      g_assert_cmpint (lstat (child, &st), ==, 0);
      entry.file = !S_ISDIR (st.st_mode) && !_cs_job_is_excluded (job, e->d_name);
      entry.size = S_ISREG (st.st_mode) ? (guint64) st.st_size : 0;
      g_array_append_val (out, entry);
      if (S_ISDIR (st.st_mode) && !_cs_job_is_excluded (job, e->d_name))
        list_as_scanner (job, child, depth + 1, out);
    }
  closedir (d);
}

/* The scanner's step: says where it is, then counts what it found. */
static void
scan_step (CsJob          *job,
           const MetEntry *entry)
{
  _cs_count_ahead_at (job, entry->depth, entry->index);
  if (entry->file)
    {
      atomic_fetch_add (&job->tally.files_found, 1);
      atomic_fetch_add (&job->tally.bytes_found, entry->size);
    }
}

/* The count ahead walks from the end and stops where the scanner is: the
 * scanner (played here, step by step) has found half the files when the
 * count starts, the count takes the other half and ends at the scanner's
 * place, and the total comes when the scanner reaches the count's last
 * file: the whole tree's, each file counted by one of them. Before, the
 * count stat-ed every file the scanner stats, and its total was its own. */
static void
test_count_ahead_meets (void)
{
  g_autofree char *root = tmp_dir ();
  g_autofree char *dst = g_build_filename (root, "dst", NULL);
  g_autoptr(CsJob) job = NULL;
  g_autoptr(GArray) walk = g_array_new (FALSE, FALSE, sizeof (MetEntry));
  g_autofree char *src = NULL;
  guint64 files, bytes, found = 0, found_at_total = 0;
  guint step = 0;

  src = make_count_tree (root, &files, &bytes);
  job = job_for (src, dst, 2);
  cs_job_add_exclude (job, "*.tmp");
  list_as_scanner (job, src, 1, walk);

  /* Held at its start while the scanner finds half the files. */
  atomic_store (&job->gate.gate_closed, 1);
  _cs_count_ahead_start (job);
  for (; step < walk->len && found < files / 2; step++)
    {
      scan_step (job, &g_array_index (walk, MetEntry, step));
      found += g_array_index (walk, MetEntry, step).file;
    }
  atomic_store (&job->gate.gate_closed, 0);
  g_thread_join (g_steal_pointer (&job->ahead.counter));

  /* It stopped where the scanner was: its half, no total yet. */
  g_assert_false (atomic_load (&job->ahead.counted));
  g_assert_true (atomic_load (&job->ahead.meeting));
  g_assert_cmpuint (job->ahead.files_after, >, 0);
  g_assert_cmpuint (job->ahead.files_after, <=, files - found);

  for (; step < walk->len; step++)
    {
      scan_step (job, &g_array_index (walk, MetEntry, step));
      if (found_at_total == 0 && atomic_load (&job->ahead.counted))
        found_at_total = atomic_load (&job->tally.files_found);
    }
  g_assert_true (atomic_load (&job->ahead.counted));
  g_assert_cmpuint (atomic_load (&job->ahead.files_counted), ==, files);
  g_assert_cmpuint (atomic_load (&job->ahead.bytes_counted), ==, bytes);
  /* Known before the scanner's end, and the scanner's own walk agrees. */
  g_assert_cmpuint (found_at_total, <, files);
  g_assert_cmpuint (atomic_load (&job->tally.files_found), ==, files);
  g_assert_cmpuint (atomic_load (&job->tally.bytes_found), ==, bytes);
  _cs_count_ahead_stop (job);
  cs_test_tree_remove (root);
}

/* The count ahead begins only after a while of the scan, or once the
 * scanner waits for a queue of files to copy. A tree the scanner walks
 * within that while is counted by the scanner alone: before, the count
 * began with the scan and stat-ed, from the end, files the scanner stat-ed
 * too (on a warm no-op rerun of 100,000 files, 55-95 k of them). A copy
 * held by a queue of files to copy (not to check) gets the count at once:
 * the total is wanted early and the copy sets the pace, as does a run
 * that reads the disk (a cold one), where the count's stats read ahead. */
/* Whether the count ahead took a place to meet the scanner at: read under
 * its lock, as the count thread writes it under that lock. */
static gboolean
count_has_last (CsJob *job)
{
  gboolean has_last;

  _cs_mutex_lock (&job->ahead.meet_lock);
  has_last = job->ahead.has_last;
  _cs_mutex_unlock (&job->ahead.meet_lock);
  return has_last;
}

static void
test_count_ahead_waits (void)
{
  g_autofree char *root = tmp_dir ();
  g_autofree char *dst = g_build_filename (root, "dst", NULL);
  g_autoptr(CsJob) job = NULL;
  g_autoptr(CsJob) held = NULL;
  g_autoptr(GArray) walk = g_array_new (FALSE, FALSE, sizeof (MetEntry));
  g_autofree char *src = NULL;
  guint64 files, bytes;
  gint64 start;

  src = make_count_tree (root, &files, &bytes);

  /* The scanner (played, as in /job/count-ahead/meets) walks the tree
   * within the wait, taking its time in the middle: the count has not
   * begun when the scan ends, and the stop ends its wait at once. */
  job = job_for (src, dst, 2);
  cs_job_add_exclude (job, "*.tmp");
  job->ahead.wait_us = 30 * G_USEC_PER_SEC;
  list_as_scanner (job, src, 1, walk);
  _cs_count_ahead_start (job);
  for (guint step = 0; step < walk->len; step++)
    {
      if (step == walk->len / 2)
        g_usleep (G_USEC_PER_SEC / 5);
      scan_step (job, &g_array_index (walk, MetEntry, step));
    }
  start = g_get_monotonic_time ();
  _cs_count_ahead_stop (job);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 5 * G_USEC_PER_SEC);
  g_assert_false (job->ahead.has_last);
  g_assert_false (atomic_load (&job->ahead.counted));
  g_assert_cmpuint (atomic_load (&job->tally.files_found), ==, files);

  /* Still waiting after a while of a scan that is not held ... */
  held = job_for (src, dst, 2);
  cs_job_add_exclude (held, "*.tmp");
  held->ahead.wait_us = (gint64) 3600 * G_USEC_PER_SEC;
  _cs_count_ahead_start (held);
  g_usleep (G_USEC_PER_SEC / 5);
  g_assert_false (count_has_last (held));
  /* ... also when the scanner waits for a queue of files to check ... */
  atomic_store (&held->ahead.scan_held, 1);
  g_usleep (G_USEC_PER_SEC / 5);
  g_assert_false (count_has_last (held));
  /* ... or for one with a file in a hundred to copy ... */
  atomic_store (&held->tally.files_checked, 100);
  atomic_store (&held->tally.files_to_copy, 1);
  g_usleep (G_USEC_PER_SEC / 5);
  g_assert_false (count_has_last (held));
  g_assert_false (atomic_load (&held->ahead.counted));
  /* ... and counting at once when the queue holds files to copy. */
  atomic_store (&held->tally.files_to_copy, 50);
  for (start = g_get_monotonic_time ();
       !atomic_load (&held->ahead.counted) && g_get_monotonic_time () - start < 30 * G_USEC_PER_SEC;)
    g_usleep (1000);
  _cs_count_ahead_stop (held);
  g_assert_true (atomic_load (&held->ahead.counted));
  g_assert_cmpuint (atomic_load (&held->ahead.files_counted), ==, files);
  g_assert_cmpuint (atomic_load (&held->ahead.bytes_counted), ==, bytes);

  /* A run that reads the disk (here: any block at all) counts at once. */
  {
    g_autoptr(CsJob) cold = job_for (src, dst, 2);

    cs_job_add_exclude (cold, "*.tmp");
    cold->ahead.wait_us = (gint64) 3600 * G_USEC_PER_SEC;
    cold->ahead.disk_blocks = 0;
    _cs_count_ahead_start (cold);
    for (start = g_get_monotonic_time ();
         !atomic_load (&cold->ahead.counted) && g_get_monotonic_time () - start < 30 * G_USEC_PER_SEC;)
      g_usleep (1000);
    _cs_count_ahead_stop (cold);
    g_assert_true (atomic_load (&cold->ahead.counted));
    g_assert_cmpuint (atomic_load (&cold->ahead.files_counted), ==, files);
  }
  cs_test_tree_remove (root);
}

/* A table that refuses every request the count ahead makes, and counts them. */
static CsIoTable refusing_table;
static atomic_int refused_requests;

static int
refusing_openat (int dirfd, const char *path, int flags, mode_t mode)
{
  atomic_fetch_add (&refused_requests, 1);
  errno = EIO;
  return -1;
}

static int
refusing_fstatat (int dirfd, const char *path, struct stat *st, int flags)
{
  atomic_fetch_add (&refused_requests, 1);
  errno = EIO;
  return -1;
}

static ssize_t
refusing_getdents (int fd, void *buf, size_t size)
{
  atomic_fetch_add (&refused_requests, 1);
  errno = EIO;
  return -1;
}

/* The count ahead's requests are no copy's: a test's table (its faults)
 * never sees them, and the job's counters never count them. Through the
 * counted calls this count would claim no total, the table would have seen
 * its requests and the counters would not be zero. */
static void
test_count_ahead_quiet (void)
{
  g_autofree char *root = tmp_dir ();
  g_autofree char *dst = g_build_filename (root, "dst", NULL);
  g_autoptr(CsJob) job = NULL;
  g_autofree char *src = NULL;
  guint64 files, bytes;
  gint64 start;

  src = make_count_tree (root, &files, &bytes);
  refusing_table = *_cs_io_get_default ();
  refusing_table.openat = refusing_openat;
  refusing_table.fstatat = refusing_fstatat;
  refusing_table.getdents = refusing_getdents;
  atomic_store (&refused_requests, 0);
  _cs_io_set (&refusing_table);

  job = job_for (src, dst, 2);
  cs_job_add_exclude (job, "*.tmp");
  _cs_count_ahead_start (job);
  for (start = g_get_monotonic_time ();
       !atomic_load (&job->ahead.counted) && g_get_monotonic_time () - start < 30 * G_USEC_PER_SEC;)
    g_usleep (1000);
  _cs_count_ahead_stop (job);
  _cs_io_set (NULL);

  g_assert_true (atomic_load (&job->ahead.counted));
  g_assert_cmpuint (atomic_load (&job->ahead.files_counted), ==, files);
  g_assert_cmpuint (atomic_load (&job->ahead.bytes_counted), ==, bytes);
  g_assert_cmpint (atomic_load (&refused_requests), ==, 0);
  for (guint k = 0; k < CS_N_REQ; k++)
    g_assert_cmpuint (atomic_load (&job->counters.requests[k]), ==, 0);
  cs_test_tree_remove (root);
}

static void
on_sample_cancel (CsJob    *job,
                  gpointer  sample,
                  gpointer  user_data)
{
  LiveState *state = user_data;
  CsProgress p;

  cs_job_get_progress (job, &p);
  if (!state->cancelled && p.files_done > 3)
    {
      cs_job_cancel (job);
      state->cancelled = TRUE;
    }
}

static void
test_cancel (void)
{
  g_autofree char *root = tmp_dir ();
  g_autofree char *src = make_many_files (root, 200, 64 * 1024);
  g_autofree char *dst = g_build_filename (root, "dst", NULL);
  g_autoptr(CsJob) job = job_for (src, dst, 4);
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) dir = NULL;
  LiveState state = { job };
  const char *name;
  guint published = 0;
  gint64 start;

  install_faults ();
  atomic_store (&fault_delay_us, 3000);
  g_signal_connect (job, "sample", G_CALLBACK (on_sample_cancel), &state);
  start = g_get_monotonic_time ();
  g_assert_false (cs_job_run_sync (job, NULL, &error));
  remove_faults ();

  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 10 * G_USEC_PER_SEC);
  g_assert_cmpuint (cs_test_tree_find_temporaries (dst), ==, 0);
  g_assert_cmpstr (cs_run_get_outcome (cs_job_get_run (job)), ==, "cancelled");

  /* Whatever was published is complete. */
  dir = g_dir_open (dst, 0, NULL);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *a = g_build_filename (src, name, NULL);
      g_autofree char *b = g_build_filename (dst, name, NULL);
      assert_same_file (a, b);
      published++;
    }
  g_assert_cmpuint (published, <, 200);

  cs_test_tree_remove (root);
}

static void
on_sample_cancel_cancellable (CsJob    *job,
                              gpointer  sample,
                              gpointer  user_data)
{
  GCancellable *cancellable = user_data;
  CsProgress p;

  cs_job_get_progress (job, &p);
  if (p.files_done > 3)
    g_cancellable_cancel (cancellable);
}

static void
on_done_quit (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  GError **error = user_data;

  g_assert_false (cs_job_run_finish (CS_JOB (object), result, error));
}

/* While the destination's data is flushed, at the end of a copy, progress
 * says so (the window and the CLI say "writing to the disk" instead of a time
 * left of nothing), with every file done; not before, and not once it is over. */
/* Atomics, not a GMutex: ThreadSanitizer does not see GLib's futex locks. */
static atomic_int flush_entered, flush_release;

static int
held_syncfs (int fd)
{
  atomic_store (&flush_entered, 1);
  while (!atomic_load (&flush_release))
    g_usleep (1000);
  return _cs_io_get_default ()->syncfs (fd);
}

static gpointer
run_job_thread (gpointer data)
{
  return GINT_TO_POINTER (cs_job_run_sync (data, NULL, NULL));
}

static void
test_flushing (void)
{
  g_autofree char *root = tmp_dir ();
  g_autofree char *src = make_many_files (root, 50, 4096);
  g_autofree char *dst = g_build_filename (root, "dst", NULL);
  CsJob *job = job_for (src, dst, 4);
  CsIoTable table = *_cs_io_get_default ();
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  CsProgress p;
  GThread *thread;

  table.syncfs = held_syncfs;
  _cs_io_set (&table);
  cs_job_set_flush (job, TRUE);
  cs_job_get_progress (job, &p);
  g_assert_false (p.flushing);

  thread = g_thread_new ("job", run_job_thread, job);
  while (!atomic_load (&flush_entered))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_usleep (1000);
    }

  cs_job_get_progress (job, &p);
  g_assert_true (p.flushing);
  g_assert_cmpint (p.state, ==, CS_JOB_STATE_RUNNING);
  g_assert_true (p.total_known);
  g_assert_cmpuint (p.files_done, ==, p.files_total);
  g_assert_cmpuint (p.files_done, ==, 50);

  atomic_store (&flush_release, 1);
  g_assert_true (GPOINTER_TO_INT (g_thread_join (thread)));
  _cs_io_set (NULL);

  cs_job_get_progress (job, &p);
  g_assert_false (p.flushing);
  g_assert_cmpint (p.state, ==, CS_JOB_STATE_FINISHED);
  /* A local folder: no round trips for the window's explainer to speak of. */
  g_assert_false (cs_job_get_destination_remote (job));
  g_assert_finalize_object (job);
}

/* The cancellable given to run stops the job as cs_job_cancel () does, and
 * the job lets go of it at its end: cancelling it afterwards, with the job
 * gone, touches nothing. */
static void
test_cancellable (void)
{
  g_autofree char *root = tmp_dir ();
  g_autofree char *src = make_many_files (root, 200, 64 * 1024);
  g_autofree char *dst = g_build_filename (root, "dst", NULL);
  g_autofree char *dst2 = g_build_filename (root, "dst2", NULL);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GCancellable) cancelled = g_cancellable_new ();
  g_autoptr(GCancellable) unused = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  CsJob *job = job_for (src, dst, 4);

  install_faults ();
  atomic_store (&fault_delay_us, 3000);
  g_signal_connect (job, "sample", G_CALLBACK (on_sample_cancel_cancellable), cancellable);
  cs_job_run_async (job, cancellable, on_done_quit, &error);
  while (error == NULL)
    g_main_context_iteration (NULL, TRUE);
  remove_faults ();
  /* The job's own error, once its record is complete; not GIO's. */
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpstr (cs_run_get_outcome (cs_job_get_run (job)), ==, "cancelled");
  g_assert_cmpuint (cs_test_tree_find_temporaries (dst), ==, 0);
  g_assert_finalize_object (job);
  g_clear_error (&error);

  /* Cancelled before it runs: stopped at once, nothing copied. */
  g_cancellable_cancel (cancelled);
  job = job_for (src, dst2, 4);
  g_assert_false (cs_job_run_sync (job, cancelled, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpstr (cs_run_get_outcome (cs_job_get_run (job)), ==, "cancelled");
  g_assert_finalize_object (job);
  g_clear_error (&error);

  /* Finished, then gone: its handler is no longer connected. */
  job = job_for (src, dst2, 4);
  g_assert_true (cs_job_run_sync (job, unused, &error));
  g_assert_no_error (error);
  g_assert_finalize_object (job);
  g_cancellable_cancel (unused);

  cs_test_tree_remove (root);
}

static void
test_transient_read_error (void)
{
  g_autofree char *root = tmp_dir ();
  g_autofree char *src = make_many_files (root, 3, 100000);
  g_autofree char *dst = g_build_filename (root, "dst", NULL);
  g_autoptr(CsJob) job = job_for (src, dst, 1);
  g_autoptr(GPtrArray) errors = NULL;
  CsTotals totals;

  install_faults ();
  atomic_store (&fault_reads_to_fail, 1);
  cs_job_set_wait (job, 0.01);
  g_assert_true (cs_job_run_sync (job, NULL, NULL));
  remove_faults ();

  cs_test_tree_assert_equal (src, dst);
  cs_run_get_totals (cs_job_get_run (job), &totals);
  g_assert_cmpuint (totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, 3);
  g_assert_cmpuint (totals.v[CS_CLASS_FAILED][CS_KIND_FILES], ==, 0);

  cs_test_tree_remove (root);
}

static void
test_sticky_read_error (void)
{
  g_autofree char *root = tmp_dir ();
  g_autofree char *src = make_many_files (root, 1, 100000);
  g_autofree char *dst = g_build_filename (root, "dst", NULL);
  g_autoptr(CsJob) job = job_for (src, dst, 1);
  g_autoptr(GPtrArray) errors = NULL;
  CsTotals totals;

  install_faults ();
  atomic_store (&fault_reads_to_fail, 1000);
  cs_job_set_wait (job, 0.01);
  cs_job_set_retries (job, 2);
  g_assert_true (cs_job_run_sync (job, NULL, NULL));
  remove_faults ();

  cs_run_get_totals (cs_job_get_run (job), &totals);
  g_assert_cmpuint (totals.v[CS_CLASS_FAILED][CS_KIND_FILES], ==, 1);
  errors = cs_run_dup_errors (cs_job_get_run (job));
  g_assert_cmpuint (errors->len, ==, 1);
  g_assert_cmpint (((CsRunError *) errors->pdata[0])->error_code, ==, EIO);
  g_assert_cmpuint (((CsRunError *) errors->pdata[0])->attempts, ==, 3);
  /* Nothing under the final name, no temporary. */
  {
    g_autofree char *final = g_build_filename (dst, "f0000", NULL);
    g_assert_false (g_file_test (final, G_FILE_TEST_EXISTS));
  }
  g_assert_cmpuint (cs_test_tree_find_temporaries (dst), ==, 0);

  cs_test_tree_remove (root);
}

static void
test_thread_counts_agree (void)
{
  g_autofree char *root = tmp_dir ();
  g_autofree char *src = make_many_files (root, 400, 3000);
  g_autofree char *d1 = g_build_filename (root, "d1", NULL);
  g_autofree char *d128 = g_build_filename (root, "d128", NULL);
  g_autoptr(CsJob) j1 = job_for (src, d1, 1);
  g_autoptr(CsJob) j128 = job_for (src, d128, 128);

  g_assert_true (cs_job_run_sync (j1, NULL, NULL));
  g_assert_true (cs_job_run_sync (j128, NULL, NULL));
  cs_test_tree_assert_equal (d1, d128);
  cs_test_tree_assert_equal (src, d128);

  cs_test_tree_remove (root);
}

static void
test_big_file_chunks (void)
{
  g_autofree char *root = tmp_dir ();
  g_autofree char *src = g_build_filename (root, "big", NULL);
  g_autofree char *dst = g_build_filename (root, "big-copy", NULL);
  int fd;
  g_autofree char *block = g_malloc (1 << 20);
  struct stat st;

  /* 100 MiB with holes between data runs: several chunks, some all hole. */
  fd = open (src, O_WRONLY | O_CREAT | O_TRUNC, 0640);
  for (guint i = 0; i < 100; i += 7)
    {
      memset (block, 'a' + (int) i % 26, 1 << 20);
      g_assert_cmpint (pwrite (fd, block, 1 << 20, (off_t) i << 20), ==, 1 << 20);
    }
  g_assert_cmpint (ftruncate (fd, 100 << 20), ==, 0);
  close (fd);

  /* In chunks, as to a network share, and whole, as a local disk copies it. */
  for (CsChunking chunking = CS_CHUNKING_ALWAYS; chunking <= CS_CHUNKING_NEVER; chunking++)
    {
      g_autoptr(CsJob) job = job_for (src, dst, 4);

      cs_job_set_chunking (job, chunking);
      g_assert_true (cs_job_run_sync (job, NULL, NULL));
      cs_test_tree_assert_equal (src, dst);
      g_assert_cmpint (stat (dst, &st), ==, 0);
      g_assert_cmpint ((gint64) st.st_blocks * 512, <, 40 << 20);
      g_assert_cmpuint (cs_test_tree_find_temporaries (root), ==, 0);
      g_assert_cmpint (unlink (dst), ==, 0);
    }

  cs_test_tree_remove (root);
}

/* "Skipped (identical)" and "Skipped (your choice)" apart (CsSkips). */
static void
assert_skips (CsRun   *run,
              guint64  identical,
              guint64  chosen)
{
  CsSkips skips;

  g_assert_true (cs_run_get_skips (run, &skips));
  g_assert_cmpuint (skips.identical_files, ==, identical);
  g_assert_cmpuint (skips.chosen_files, ==, chosen);
}

static void
test_policies (void)
{
  g_autofree char *root = tmp_dir ();
  g_autofree char *src = make_many_files (root, 4, 1000);
  g_autofree char *top = g_build_filename (root, "dst", NULL);
  g_autofree char *dst = g_build_filename (top, "many", NULL);
  g_autofree char *s0 = g_build_filename (src, "f0000", NULL);
  g_autofree char *d0 = g_build_filename (dst, "f0000", NULL);
  g_autofree char *d1 = g_build_filename (dst, "f0001", NULL);
  g_autofree char *stale = g_build_filename (dst, ".copyscope-0123456789abcdef-7.part", NULL);
  g_autofree char *extra = g_build_filename (dst, "extra", NULL);
  CsTotals totals;

  g_mkdir (top, 0755);
  {
    g_autoptr(CsJob) job = job_for (src, top, 2);
    g_assert_true (cs_job_run_sync (job, NULL, NULL));
  }

  /* Rerun: everything identical is skipped; a stale temporary is cleaned; extras counted. */
  write_file (stale, 10, 0);
  write_file (extra, 10, 0);
  {
    g_autoptr(CsJob) job = job_for (src, top, 2);
    g_assert_true (cs_job_run_sync (job, NULL, NULL));
    cs_run_get_totals (cs_job_get_run (job), &totals);
    g_assert_cmpuint (totals.v[CS_CLASS_SKIPPED][CS_KIND_FILES], ==, 4);
    g_assert_cmpuint (totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, 0);
    g_assert_cmpuint (totals.v[CS_CLASS_EXTRAS][CS_KIND_FILES], ==, 1);
    assert_skips (cs_job_get_run (job), 4, 0);
    g_assert_false (g_file_test (stale, G_FILE_TEST_EXISTS));
  }

  /* A newer source replaces; a newer destination is skipped and reported,
   * in a note: kept by the rule the user chose, nothing failed. */
  write_file (s0, 999, 9);
  set_mtime (s0, time (NULL) + 100, 0);
  write_file (d1, 5, 9);
  set_mtime (d1, time (NULL) + 200, 0);
  {
    g_autoptr(CsJob) job = job_for (src, top, 2);
    g_assert_true (cs_job_run_sync (job, NULL, NULL));
    cs_run_get_totals (cs_job_get_run (job), &totals);
    g_assert_cmpuint (totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, 1);
    g_assert_cmpuint (totals.v[CS_CLASS_SKIPPED][CS_KIND_FILES], ==, 3);
    g_assert_cmpuint (cs_run_get_n_errors (cs_job_get_run (job)), ==, 0);
    g_assert_cmpuint (cs_run_get_n_notes (cs_job_get_run (job)), ==, 1);
    {
      g_autoptr(GPtrArray) errors = cs_run_dup_errors (cs_job_get_run (job));
      const CsRunError *e = g_ptr_array_index (errors, 0);

      g_assert_cmpuint (errors->len, ==, 1);
      g_assert_cmpstr (e->operation, ==, "skip");
      g_assert_true (e->note);
    }
    /* The newer destination was kept by the rule the user chose. */
    assert_skips (cs_job_get_run (job), 2, 1);
    assert_same_file (s0, d0);
    g_assert_cmpuint (g_file_test (d1, G_FILE_TEST_EXISTS), ==, TRUE);
  }

  /* never keeps the newer destination; always replaces it. */
  {
    g_autoptr(CsJob) job = job_for (src, top, 2);
    struct stat st;

    cs_job_set_overwrite (job, CS_OVERWRITE_NEVER);
    g_assert_true (cs_job_run_sync (job, NULL, NULL));
    g_assert_cmpint (stat (d1, &st), ==, 0);
    g_assert_cmpint (st.st_size, ==, 5);
    assert_skips (cs_job_get_run (job), 3, 1);
  }
  {
    g_autoptr(CsJob) job = job_for (src, top, 2);

    cs_job_set_overwrite (job, CS_OVERWRITE_ALWAYS);
    g_remove (extra);
    g_assert_true (cs_job_run_sync (job, NULL, NULL));
    cs_run_get_totals (cs_job_get_run (job), &totals);
    g_assert_cmpuint (totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, 4);
    cs_test_tree_assert_equal (src, dst);
  }

  cs_test_tree_remove (root);
}

/* A share that keeps times to 2 s (FAT, many NAS appliances) rounds a stamp
 * down or up to an even second.  Those copies are identical; a destination
 * further off, or a whole-second stamp more than a second off, is not. */
static void
test_coarse_times (void)
{
  static const struct {
    time_t src_sec; long src_nsec;   /* the source's stamp */
    time_t dst_sec;                  /* what the share kept, whole seconds */
    gboolean copied;                 /* replaced on the rerun */
  } cases[] = {
    { 1000001, 500000000, 1000000, FALSE },  /* 2 s, rounded down */
    { 1000002, 700000000, 1000004, FALSE },  /* 2 s, rounded up */
    { 1000003, 500000000, 1000003, FALSE },  /* whole seconds */
    { 1000003, 500000000, 1000001, TRUE },   /* odd: whole seconds, 2.5 s off */
    { 1000005, 200000000, 1000002, TRUE },   /* even, but 3.2 s off */
  };
  g_autofree char *root = tmp_dir ();
  g_autofree char *src = make_many_files (root, G_N_ELEMENTS (cases), 100);
  g_autofree char *top = g_build_filename (root, "dst", NULL);
  CsTotals totals;

  g_mkdir (top, 0755);
  {
    g_autoptr(CsJob) job = job_for (src, top, 2);
    g_assert_true (cs_job_run_sync (job, NULL, NULL));
  }
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *s = g_strdup_printf ("%s/f%04u", src, i);
      g_autofree char *d = g_strdup_printf ("%s/many/f%04u", top, i);

      set_mtime (s, cases[i].src_sec, cases[i].src_nsec);
      set_mtime (d, cases[i].dst_sec, 0);
    }
  {
    g_autoptr(CsJob) job = job_for (src, top, 2);
    g_assert_true (cs_job_run_sync (job, NULL, NULL));
    cs_run_get_totals (cs_job_get_run (job), &totals);
  }
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *d = g_strdup_printf ("%s/many/f%04u", top, i);
      struct stat st;

      g_assert_cmpint (stat (d, &st), ==, 0);
      if (cases[i].copied)
        g_assert_cmpint (st.st_mtim.tv_nsec, ==, cases[i].src_nsec);
      else
        g_assert_cmpint (st.st_mtim.tv_sec, ==, cases[i].dst_sec);
    }
  g_assert_cmpuint (totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, 2);
  g_assert_cmpuint (totals.v[CS_CLASS_SKIPPED][CS_KIND_FILES], ==, 3);

  cs_test_tree_remove (root);
}

typedef struct {
  CsConflictAnswer answer;
  guint            asked;
} AskState;

static void
on_conflict (CsJob      *job,
             CsConflict *conflict,
             gpointer    user_data)
{
  AskState *state = user_data;

  g_assert_nonnull (cs_conflict_get_destination_path (conflict));
  state->asked++;
  cs_conflict_answer (conflict, state->answer, FALSE);
}

static void
test_conflict_prompt (void)
{
  g_autofree char *root = tmp_dir ();
  g_autofree char *src = make_many_files (root, 2, 1000);
  g_autofree char *dst = g_build_filename (root, "dst", NULL);
  g_autofree char *s0 = g_build_filename (src, "f0000", NULL);
  g_autofree char *d0 = g_build_filename (dst, "f0000", NULL);
  g_autofree char *both = g_build_filename (dst, "f0000 (2)", NULL);
  CsConflictAnswer answers[] = { CS_CONFLICT_SKIP, CS_CONFLICT_KEEP_BOTH, CS_CONFLICT_REPLACE };

  g_mkdir (dst, 0755);
  write_file (d0, 10, 42);
  set_mtime (d0, time (NULL) + 500, 0);

  for (guint i = 0; i < G_N_ELEMENTS (answers); i++)
    {
      g_autoptr(CsJob) job = job_for (s0, dst, 2);
      AskState state = { answers[i], 0 };
      struct stat st;

      cs_job_set_overwrite (job, CS_OVERWRITE_ASK);
      g_signal_connect (job, "conflict", G_CALLBACK (on_conflict), &state);
      g_assert_true (cs_job_run_sync (job, NULL, NULL));
      g_assert_cmpuint (state.asked, ==, 1);
      g_assert_cmpint (stat (d0, &st), ==, 0);
      switch (answers[i])
        {
        case CS_CONFLICT_SKIP:
          g_assert_cmpint (st.st_size, ==, 10);
          assert_skips (cs_job_get_run (job), 0, 1);
          break;
        case CS_CONFLICT_KEEP_BOTH:
          g_assert_cmpint (st.st_size, ==, 10);
          assert_same_file (s0, both);
          break;
        case CS_CONFLICT_REPLACE:
        default:
          assert_same_file (s0, d0);
          break;
        }
    }

  cs_test_tree_remove (root);
}

/* ---- Holds: a pause and an open question --------------------------------- */

#define HOLD_FILES     600
#define HOLD_FILE_SIZE 20000
#define HOLD_THREADS   4
#define HOLD_MS        500

typedef struct {
  CsJob      *job;
  CsConflict *conflict;        /* asked, not answered yet */
  gboolean    answered;
  gboolean    paused;
  gboolean    resumed;
  guint64     bytes_at_hold;   /* a little after a hold began */
  guint64     most_moved;      /* the most bytes done during one hold, after that */
  gint64      wall_start;     /* before the run */
} HoldState;

static void
note_hold_start (HoldState *state)
{
  CsProgress p;

  cs_job_get_progress (state->job, &p);
  state->bytes_at_hold = p.bytes_done;
}

static void
note_hold_end (HoldState *state)
{
  CsProgress p;

  cs_job_get_progress (state->job, &p);
  state->most_moved = MAX (state->most_moved, p.bytes_done - state->bytes_at_hold);
}

/* The hold began a moment ago: requests in flight then have landed. */
static gboolean
hold_settled_cb (gpointer user_data)
{
  note_hold_start (user_data);
  return G_SOURCE_REMOVE;
}

static gboolean
resume_cb (gpointer user_data)
{
  HoldState *state = user_data;

  note_hold_end (state);
  cs_job_resume (state->job);
  state->resumed = TRUE;
  return G_SOURCE_REMOVE;
}

static gboolean
answer_cb (gpointer user_data)
{
  HoldState *state = user_data;

  note_hold_end (state);
  cs_conflict_answer (state->conflict, CS_CONFLICT_REPLACE, FALSE);
  g_clear_object (&state->conflict);
  state->answered = TRUE;
  return G_SOURCE_REMOVE;
}

static void
after (guint        ms,
       GSourceFunc  func,
       gpointer     data)
{
  g_autoptr(GSource) source = g_timeout_source_new (ms);

  g_source_set_callback (source, func, data, NULL);
  g_source_attach (source, g_main_context_get_thread_default ());
}

static void
on_hold_progress (CsJob    *job,
                  gpointer  user_data)
{
  HoldState *state = user_data;
  CsProgress p;

  cs_job_get_progress (job, &p);
  /* The pause after the question, so the scan is done when it comes; and
   * after the question's hold has ended (its event is in the record), since
   * a pause that begins while the asking worker has not yet taken the answer
   * makes one hold of the two, marked once, as "pause". */
  if (!state->paused && state->answered && cs_run_get_n_events (cs_job_get_run (job)) >= 1
      && p.files_done < HOLD_FILES - 8 * HOLD_THREADS)
    {
      state->paused = TRUE;
      cs_job_pause (job);
      after (50, hold_settled_cb, state);
      after (HOLD_MS, resume_cb, state);
    }
}

static void
on_hold_conflict (CsJob      *job,
                  CsConflict *conflict,
                  gpointer    user_data)
{
  HoldState *state = user_data;

  state->conflict = g_object_ref (conflict);
  after (50, hold_settled_cb, state);
  after (HOLD_MS, answer_cb, state);
}

/* While the copy is paused, or waits for an answer, its clock stands still and
 * so does the copy: no rate then divides bytes by time the clock did not run
 * (334.6 GB/s was shown during a conflict prompt). */
static void
test_rates_bounded_while_held (void)
{
  g_autofree char *root = tmp_dir ();
  g_autofree char *src = make_many_files (root, HOLD_FILES, HOLD_FILE_SIZE);
  g_autofree char *dst = g_build_filename (root, "dst", NULL);
  g_autofree char *dst_many = g_build_filename (dst, "many", NULL);
  g_autofree char *asked = NULL;
  g_autoptr(CsJob) job = job_for (src, dst, HOLD_THREADS);
  g_autoptr(GDir) dir = g_dir_open (src, 0, NULL);
  const char *name;
  g_autofree CsSample *samples = NULL;
  HoldState state = { job };
  CsRun *run = cs_job_get_run (job);
  double moved = 0, min_dt = G_MAXDOUBLE, max_rate = 0, total, interval = 0.1, wall;
  guint n = 0;

  /* The file the scan meets first is newer at the destination: the worker
   * that copies it asks, while the others have the rest of the tree to do. */
  name = g_dir_read_name (dir);
  asked = g_build_filename (dst_many, name, NULL);
  g_mkdir_with_parents (dst_many, 0755);
  write_file (asked, 10, 1);
  set_mtime (asked, time (NULL) + 500, 0);

  install_faults ();
  atomic_store (&fault_delay_us, 8000);
  cs_job_set_overwrite (job, CS_OVERWRITE_ASK);
  g_signal_connect (job, "progress", G_CALLBACK (on_hold_progress), &state);
  g_signal_connect (job, "conflict", G_CALLBACK (on_hold_conflict), &state);
  state.wall_start = g_get_monotonic_time ();
  g_assert_true (cs_job_run_sync (job, NULL, NULL));
  wall = (double) (g_get_monotonic_time () - state.wall_start) / G_USEC_PER_SEC;
  remove_faults ();
  g_assert_true (state.answered);
  g_assert_true (state.resumed);
  g_assert_null (state.conflict);
  cs_test_tree_assert_equal (src, dst_many);

  /* Nothing but the requests in flight when each hold began moved during it. */
  g_assert_cmpuint (state.most_moved, <=, HOLD_THREADS * HOLD_FILE_SIZE);

  /* The record says how long the clock stood still, and the two add up. */
  g_assert_cmpfloat (cs_run_get_held (run), >=, 2 * HOLD_MS / 1000.0 - 0.05);
  g_assert_cmpfloat (cs_run_get_duration (run) + cs_run_get_held (run), <=, wall);
  g_assert_cmpfloat (cs_run_get_duration (run) + cs_run_get_held (run), >=, wall - 0.5);

  /* Each hold is an event for the graph to mark, at the clock's time it
   * stood still at, with its seconds; they make up the time held, and a
   * record read back has them. */
  {
    g_autoptr(GArray) events = cs_run_dup_events (run);
    g_autofree char *record = g_build_filename (root, "run.json", NULL);
    g_autoptr(CsRun) loaded = NULL;
    g_autoptr(GArray) loaded_events = NULL;
    const char *kinds[] = { "question", "pause" };
    double sum = 0;

    g_assert_cmpuint (events->len, ==, G_N_ELEMENTS (kinds));
    for (guint i = 0; i < events->len; i++)
      {
        const CsRunEvent *event = &g_array_index (events, CsRunEvent, i);

        g_assert_cmpstr (event->kind, ==, kinds[i]);
        g_assert_cmpfloat (event->value, >=, HOLD_MS / 1000.0 - 0.05);
        g_assert_cmpfloat (event->t, >, 0);
        g_assert_cmpfloat (event->t, <, cs_run_get_duration (run));
        sum += event->value;
      }
    g_assert_cmpfloat (fabs (sum - cs_run_get_held (run)), <, 0.05);

    g_assert_true (cs_run_save (run, record, NULL));
    loaded = cs_run_load (record, NULL);
    g_assert_nonnull (loaded);
    loaded_events = cs_run_dup_events (loaded);
    g_assert_cmpuint (loaded_events->len, ==, events->len);
    g_assert_cmpstr (g_array_index (loaded_events, CsRunEvent, 1).kind, ==, "pause");
  }

  /* Every sample covers at least half an interval of the clock, and its rates
   * are what the counters moved in it: together they add up to the bytes. */
  samples = cs_run_dup_samples (run, &n);
  g_assert_cmpuint (n, >=, 2);
  for (guint i = 0; i < n; i++)
    {
      double dt = samples[i].t - (i > 0 ? samples[i - 1].t : 0);
      double rate = samples[i].values[CS_COUNTER_DATA_TRANSFER_RATE];

      min_dt = MIN (min_dt, dt);
      max_rate = MAX (max_rate, rate);
      moved += rate * 1e6 * dt;
    }
  total = 2.0 * HOLD_FILES * HOLD_FILE_SIZE;
  g_assert_cmpfloat (min_dt, >=, interval / 2 - 1e-3);
  g_assert_cmpfloat (fabs (moved - total), <, 0.01 * total);
  g_assert_cmpfloat (max_rate * 1e6 * (interval / 2), <=, total);

  cs_test_tree_remove (root);
}

static void
count_plan (const char *action,
            const char *source,
            const char *destination,
            gpointer    user_data)
{
  g_assert_nonnull (strstr (destination, "/dst"));
  (*(guint *) user_data)++;
}

static void
test_dry_run (void)
{
  g_autofree char *root = make_tree ();
  g_autofree char *src = g_build_filename (root, "src", NULL);
  g_autofree char *dst = g_build_filename (root, "dst", NULL);
  g_autoptr(CsJob) job = job_for (src, dst, 2);
  guint planned = 0;

  cs_job_set_dry_run (job, TRUE, count_plan, &planned);
  g_assert_true (cs_job_run_sync (job, NULL, NULL));
  g_assert_false (g_file_test (dst, G_FILE_TEST_EXISTS));
  /* 4 folders and 11 files and links. */
  g_assert_cmpuint (planned, ==, 15);

  cs_test_tree_remove (root);
}

static void
test_full_destination (void)
{
  g_autofree char *root = tmp_dir ();
  g_autofree char *src = make_many_files (root, 8, 512 * 1024);
  g_autofree char *mnt = g_build_filename (root, "mnt", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(CsJob) job = NULL;
  gint64 start;

  if (geteuid () != 0)
    {
      g_test_skip ("needs root to mount a small tmpfs");
      cs_test_tree_remove (root);
      return;
    }
  g_mkdir (mnt, 0755);
  if (mount ("tmpfs", mnt, "tmpfs", 0, "size=1m") != 0)
    {
      g_test_skip ("cannot mount tmpfs here");
      cs_test_tree_remove (root);
      return;
    }

  job = job_for (src, mnt, 4);
  start = g_get_monotonic_time ();
  g_assert_false (cs_job_run_sync (job, NULL, &error));
  g_assert_error (error, CS_JOB_ERROR, CS_JOB_ERROR_DESTINATION);
  g_assert_nonnull (strstr (error->message, "full"));
  g_assert_cmpint (g_get_monotonic_time () - start, <, 5 * G_USEC_PER_SEC);
  g_assert_cmpuint (cs_test_tree_find_temporaries (mnt), ==, 0);
  /* Whatever made it is complete. */
  {
    g_autofree char *dir = g_build_filename (mnt, "many", NULL);
    g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
    const char *name;

    while (d != NULL && (name = g_dir_read_name (d)) != NULL)
      {
        g_autofree char *a = g_build_filename (src, name, NULL);
        g_autofree char *b = g_build_filename (dir, name, NULL);
        assert_same_file (a, b);
      }
  }

  umount2 (mnt, MNT_DETACH);
  cs_test_tree_remove (root);
}

/* Sources from several folders, each to its own exact path: the files land
 * there and nowhere else, and a path whose folder is missing is refused. */
static void
test_source_as (void)
{
  g_autofree char *root = tmp_dir ();
  g_autofree char *src_a = g_build_filename (root, "src", "a", NULL);
  g_autofree char *src_b = g_build_filename (root, "src", "b", "deeper", NULL);
  g_autofree char *file_a = g_build_filename (src_a, "one.bin", NULL);
  g_autofree char *file_b = g_build_filename (src_b, "two.bin", NULL);
  g_autofree char *dst = g_build_filename (root, "dst", NULL);
  g_autofree char *dst_a = g_build_filename (dst, "a", NULL);
  g_autofree char *dst_b = g_build_filename (dst, "b", "deeper", NULL);
  g_autofree char *target_a = g_build_filename (dst_a, "one.bin", NULL);
  g_autofree char *target_b = g_build_filename (dst_b, "renamed.bin", NULL);
  g_autofree char *nowhere = g_build_filename (dst, "missing", "one.bin", NULL);
  g_autofree char *by_name_b = g_build_filename (dst_b, "two.bin", NULL);
  g_autofree char *top_a = g_build_filename (dst, "one.bin", NULL);
  g_autofree char *top_b = g_build_filename (dst, "two.bin", NULL);
  g_autoptr(CsJob) job = NULL;
  g_autoptr(CsJob) refused = NULL;
  g_autoptr(GError) error = NULL;
  CsTotals totals;

  g_assert_cmpint (g_mkdir_with_parents (src_a, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (src_b, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (dst_a, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (dst_b, 0755), ==, 0);
  write_file (file_a, 5000, 1);
  write_file (file_b, 70000, 2);

  job = cs_job_new ();
  cs_job_add_source_as (job, file_a, target_a);
  cs_job_add_source_as (job, file_b, target_b);
  cs_job_set_destination (job, dst);
  cs_job_set_flush (job, FALSE);
  g_assert_true (cs_job_run_sync (job, NULL, &error));
  g_assert_no_error (error);

  assert_same_file (file_a, target_a);
  assert_same_file (file_b, target_b);
  /* Nothing under the sources' own names, nothing at the destination's top. */
  g_assert_false (g_file_test (by_name_b, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (top_a, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (top_b, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (cs_test_tree_find_temporaries (dst), ==, 0);
  cs_run_get_totals (cs_job_get_run (job), &totals);
  g_assert_cmpuint (totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, 2);
  g_assert_cmpuint (totals.v[CS_CLASS_COPIED][CS_KIND_BYTES], ==, 75000);

  refused = cs_job_new ();
  cs_job_add_source_as (refused, file_a, nowhere);
  cs_job_set_destination (refused, dst);
  g_assert_false (cs_job_check (refused, &error));
  g_assert_error (error, CS_JOB_ERROR, CS_JOB_ERROR_DESTINATION);

  cs_test_tree_remove (root);
}

/* Workers copy at the priority of the process that runs them, the window's as
 * the CLI's: yielding to everything else made a window copy crawl as soon as
 * anything used the CPU. Nothing set on them reaches the threads GLib shares
 * between its other pools either. */
static void
test_worker_priority (void)
{
  g_autofree char *root = tmp_dir ();
  g_autofree char *src = make_many_files (root, 200, 3000);
  g_autofree char *dst = g_build_filename (root, "dst", NULL);
  g_autoptr(CsJob) job = job_for (src, dst, 8);
  g_autoptr(GError) error = NULL;
  GThreadPool *shared;
  int own_nice;

  errno = 0;
  own_nice = getpriority (PRIO_PROCESS, (id_t) gettid ());
  g_assert_cmpint (errno, ==, 0);
  test_policy = sched_getscheduler (0);

  install_faults ();
  fault_table.pread = priority_pread;
  atomic_store (&highest_reader_nice, -21);
  atomic_store (&other_policy_reads, 0);

  g_assert_true (cs_job_run_sync (job, NULL, &error));
  g_assert_no_error (error);
  remove_faults ();

  g_assert_cmpint (atomic_load (&highest_reader_nice), ==, own_nice);
  g_assert_cmpint (atomic_load (&other_policy_reads), ==, 0);
  cs_test_tree_assert_equal (src, dst);

  /* GTask's and GIO's kind of pool, which takes idle threads from GLib's shared set. */
  atomic_store (&highest_reader_nice, -21);
  shared = g_thread_pool_new (shared_pool_task, NULL, 8, FALSE, NULL);
  for (guint i = 0; i < 64; i++)
    g_thread_pool_push (shared, GUINT_TO_POINTER (i + 1), NULL);
  g_thread_pool_free (shared, FALSE, TRUE);
  g_assert_cmpint (atomic_load (&highest_reader_nice), ==, own_nice);
  g_assert_cmpint (atomic_load (&other_policy_reads), ==, 0);

  cs_test_tree_remove (root);
}

static void
test_counters (void)
{
  g_autofree char *root = tmp_dir ();
  g_autofree char *src = make_many_files (root, 50, 20000);
  g_autofree char *dst = g_build_filename (root, "dst", NULL);
  g_autoptr(CsJob) job = job_for (src, dst, 2);
  g_autoptr(CsRun) run = NULL;
  g_autofree CsSample *samples = NULL;
  guint n = 0;
  CsStat stat;
  double bytes = 0, prev_t = -1;
  CsProgress p;

  g_assert_true (cs_job_run_sync (job, NULL, NULL));
  run = cs_run_ref (cs_job_get_run (job));
  samples = cs_run_dup_samples (run, &n);
  g_assert_cmpuint (n, >=, 1);

  /* Integrating the write rate over the samples gives the bytes written. */
  for (guint i = 0; i < n; i++)
    {
      double dt = samples[i].t - (i > 0 ? samples[i - 1].t : 0);

      g_assert_cmpfloat (samples[i].t, >, prev_t);
      prev_t = samples[i].t;
      bytes += samples[i].values[CS_COUNTER_WRITE_TRANSFER_RATE] * 1e6 * dt;
    }
  g_assert_cmpfloat (fabs (bytes - 50.0 * 20000), <, 1.0);
  g_assert_cmpuint (samples[n - 1].files_done, ==, 50);
  g_assert_cmpuint (samples[n - 1].bytes_done, ==, 50 * 20000);
  g_assert_true (cs_run_get_stat (run, CS_COUNTER_REQUEST_RATE, &stat));
  g_assert_cmpfloat (stat.max, >=, stat.avg);
  g_assert_cmpfloat (stat.avg, >=, stat.min);
  g_assert_cmpfloat (stat.max, >, 0);

  cs_job_get_progress (job, &p);
  g_assert_cmpuint (p.bytes_done, ==, p.bytes_found);
  g_assert_cmpuint (p.files_done, ==, p.files_found);
  g_assert_false (p.scanning);

  cs_test_tree_remove (root);
}

typedef struct {
  guint   calls;
  GError *error;
} Done;

static void
on_done (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Done *d = user_data;
  gboolean ok;

  d->calls++;
  ok = cs_job_run_finish (CS_JOB (object), result, &d->error);
  g_assert_true (ok == (d->error == NULL));
}

/* run_async answers once, from the main context: after a copy, and also
 * when the job cannot start at all. */
static void
test_run_async (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *src = g_build_filename (root, "src", NULL);
  g_autofree char *missing = g_build_filename (root, "missing", NULL);
  g_autofree char *dst = g_build_filename (root, "dst", NULL);
  g_autofree char *dst2 = g_build_filename (missing, "dst2", NULL);
  g_autoptr(CsJob) job = NULL;
  g_autoptr(CsJob) refused = NULL;
  Done ok = { 0 }, failed = { 0 }, twice = { 0 };

  g_assert_cmpint (g_mkdir (src, 0755), ==, 0);
  {
    g_autofree char *a = g_build_filename (src, "a", NULL);

    write_file (a, 1000, 1);
  }

  job = job_for (src, dst, 2);
  cs_job_run_async (job, NULL, on_done, &ok);
  /* Refused, and the run under way still reports to its own callback. */
  cs_job_run_async (job, NULL, on_done, &twice);
  g_assert_cmpuint (ok.calls, ==, 0);
  g_assert_cmpuint (twice.calls, ==, 0);
  while (ok.calls + twice.calls < 2)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (ok.calls, ==, 1);
  g_assert_no_error (ok.error);
  g_assert_cmpuint (twice.calls, ==, 1);
  g_assert_error (twice.error, CS_JOB_ERROR, CS_JOB_ERROR_INVALID);
  g_clear_error (&twice.error);
  g_assert_cmpint (cs_job_get_state (job), ==, CS_JOB_STATE_FINISHED);
  cs_test_tree_assert_equal (src, dst);

  /* A destination that cannot be used refuses the whole job; a missing
   * source is a failed item of a run (test_refusals). */
  refused = job_for (src, dst2, 2);
  cs_job_run_async (refused, NULL, on_done, &failed);
  g_assert_cmpuint (failed.calls, ==, 0);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_cmpuint (failed.calls, ==, 1);
  g_assert_nonnull (failed.error);
  g_assert_true (failed.error->domain == CS_JOB_ERROR);
  g_clear_error (&failed.error);

  cs_test_tree_remove (root);
}

/* A rerun counts what it decided: every file checked once, whichever
 * thread decided it (the scanner's own look at an unchanged local file, a
 * worker, the scanner for a big file in chunks, a dry run), and as "to
 * copy" only the changed and new ones; the record's samples hold the rate
 * of those decisions (issue 40, "the window shows the phase"). */
static void
rerun_and_check (const char *src,
                 const char *dst,
                 guint       threads,
                 gboolean    dry_run,
                 guint64     n_files,
                 guint64     n_changed)
{
  g_autoptr(CsJob) job = job_for (src, dst, threads);
  CsProgress p;
  CsStat stat;

  cs_job_set_into (job, TRUE);
  cs_job_set_chunking (job, CS_CHUNKING_ALWAYS);
  cs_job_set_dry_run (job, dry_run, NULL, NULL);
  g_assert_true (cs_job_run_sync (job, NULL, NULL));
  cs_job_get_progress (job, &p);
  g_assert_cmpuint (p.files_total, ==, n_files);
  g_assert_cmpuint (p.files_checked, ==, n_files);
  g_assert_cmpuint (p.files_to_copy, ==, n_changed);
  g_assert_cmpuint (p.files_skipped, ==, n_files - n_changed);
  g_assert_cmpuint (p.files_failed, ==, 0);
  if (!dry_run)
    g_assert_cmpuint (p.files_copied, ==, n_changed);

  /* The checks' rate is a column of the samples, and counts them all. */
  g_assert_true (cs_run_get_stat (cs_job_get_run (job), CS_COUNTER_CHECK_RATE, &stat));
  g_assert_cmpfloat (stat.max, >, 0);
}

static void
test_rerun_counts_checks (void)
{
  g_autofree char *root = tmp_dir ();
  g_autofree char *src = g_build_filename (root, "src", NULL);
  g_autofree char *dst = g_build_filename (root, "dst", NULL);
  g_autofree char *big = g_build_filename (src, "big.img", NULL);
  g_autofree char *link = g_build_filename (src, "link", NULL);
  guint64 n_files = 0;
  CsProgress first;
  int fd;

  g_mkdir (src, 0755);
  g_mkdir (dst, 0755);
  for (guint d = 0; d < 4; d++)
    {
      g_autofree char *dir = g_strdup_printf ("%s/d%u", src, d);

      g_mkdir (dir, 0755);
      for (guint i = 0; i < 50; i++)
        {
          g_autofree char *path = g_strdup_printf ("%s/f%02u", dir, i);

          write_file (path, 100 + i, d * 100 + i);
          n_files++;
        }
    }
  /* A big file copied in chunks, decided by the scanner; sparse, so cheap. */
  fd = open (big, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, (off_t) CS_BIG_FILE_MIN + 4096), ==, 0);
  close (fd);
  n_files++;
  g_assert_cmpint (symlink ("d0/f00", link), ==, 0);
  n_files++;

  {
    g_autoptr(CsJob) job = job_for (src, dst, 4);

    cs_job_set_into (job, TRUE);
    cs_job_set_chunking (job, CS_CHUNKING_ALWAYS);
    g_assert_true (cs_job_run_sync (job, NULL, NULL));
    cs_job_get_progress (job, &first);
  }
  /* A fresh copy decides every file, all of them to copy. */
  g_assert_cmpuint (first.files_checked, ==, n_files);
  g_assert_cmpuint (first.files_to_copy, ==, n_files);
  g_assert_cmpuint (first.files_skipped, ==, 0);

  /* Unchanged: all checked, none to copy, at 1 thread and at 8. */
  rerun_and_check (src, dst, 1, FALSE, n_files, 0);
  rerun_and_check (src, dst, 8, FALSE, n_files, 0);

  /* Changed: five files grow, two are new, the big one is newer. */
  for (guint i = 0; i < 5; i++)
    {
      g_autofree char *path = g_strdup_printf ("%s/d%u/f%02u", src, i % 4, i * 7);

      write_file (path, 1000 + i, i);
    }
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *path = g_strdup_printf ("%s/d3/new%u", src, i);

      write_file (path, 10, i);
      n_files++;
    }
  set_mtime (big, time (NULL) + 100, 0);
  rerun_and_check (src, dst, 8, TRUE, n_files, 8);
  rerun_and_check (src, dst, 8, FALSE, n_files, 8);
  rerun_and_check (src, dst, 8, FALSE, n_files, 0);

  cs_test_tree_remove (root);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/job/copy-tree", test_copy_tree);
  g_test_add_func ("/job/cp-semantics", test_cp_semantics);
  g_test_add_func ("/job/into", test_into);
  g_test_add_func ("/job/rerun-counts-checks", test_rerun_counts_checks);
  g_test_add_func ("/job/refusals", test_refusals);
  g_test_add_func ("/job/live-threads", test_live_threads);
  g_test_add_func ("/job/phases-add-up", test_phases_add_up);
  g_test_add_func ("/job/runnable", test_runnable);
  g_test_add_func ("/job/runnable/not-measured", test_runnable_not_measured);
  g_test_add_func ("/job/runnable/cost", test_runnable_cost);
  g_test_add_func ("/job/cancel", test_cancel);
  g_test_add_func ("/job/count-ahead", test_count_ahead);
  g_test_add_func ("/job/count-ahead/cancel", test_count_ahead_cancel);
  g_test_add_func ("/job/count-ahead/quiet", test_count_ahead_quiet);
  g_test_add_func ("/job/count-ahead/meets", test_count_ahead_meets);
  g_test_add_func ("/job/count-ahead/waits", test_count_ahead_waits);
  g_test_add_func ("/job/cancellable", test_cancellable);
  g_test_add_func ("/job/transient-read-error", test_transient_read_error);
  g_test_add_func ("/job/sticky-read-error", test_sticky_read_error);
  g_test_add_func ("/job/thread-counts-agree", test_thread_counts_agree);
  g_test_add_func ("/job/big-file-chunks", test_big_file_chunks);
  g_test_add_func ("/job/policies", test_policies);
  g_test_add_func ("/job/coarse-times", test_coarse_times);
  g_test_add_func ("/job/conflict-prompt", test_conflict_prompt);
  g_test_add_func ("/job/rates-bounded-while-held", test_rates_bounded_while_held);
  g_test_add_func ("/job/dry-run", test_dry_run);
  g_test_add_func ("/job/full-destination", test_full_destination);
  g_test_add_func ("/job/counters", test_counters);
  g_test_add_func ("/job/worker-priority", test_worker_priority);
  g_test_add_func ("/job/source-as", test_source_as);
  g_test_add_func ("/job/run-async", test_run_async);
  g_test_add_func ("/job/flushing", test_flushing);

  return g_test_run ();
}
