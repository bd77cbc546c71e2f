/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "copyscope-engine.h"
#include "cs-io-private.h"
#include "cs-test-tree.h"

/*
 * Resuming a big file (RELIABILITY.md, rule 17). A copy cut short — a
 * SIGKILL of the CLI at spread moments, a cancel that keeps partials — and
 * then run again publishes a file identical to its source, and the second
 * run reads from the source no more than what the partial lacked plus one
 * block; an I/O table counts the bytes read from the source and from the
 * destination. A source changed between the runs, or a partial with a
 * damaged block, is copied again where needed; a partial no run copies to is
 * removed, unless another run holds it.
 */

#define BLOCK (G_GUINT64_CONSTANT (32) << 20)
#define MIB   (G_GUINT64_CONSTANT (1) << 20)

static const char *cli;       /* $CS_CLI */

typedef struct {
  char *root;
  char *src;                  /* root/src: the folder copied */
  char *out;                  /* root/out */
  char *copy;                 /* out/src */
  char *mnt;                  /* a tmpfs for the big slow test, or NULL */
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->root = cs_test_tree_make_tmp ();
  f->src = g_build_filename (f->root, "src", NULL);
  f->out = g_build_filename (f->root, "out", NULL);
  f->copy = g_build_filename (f->out, "src", NULL);
  g_assert_cmpint (g_mkdir (f->src, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (f->out, 0755), ==, 0);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  _cs_io_set (NULL);
  cs_test_tree_remove (f->root);
  if (f->mnt != NULL && umount (f->mnt) != 0 && umount2 (f->mnt, MNT_DETACH) != 0)
    g_printerr ("cannot unmount %s: %s\n", f->mnt, g_strerror (errno));
  if (f->mnt != NULL)
    g_rmdir (f->mnt);
  g_free (f->root);
  g_free (f->src);
  g_free (f->out);
  g_free (f->copy);
  g_free (f->mnt);
}

/* @size pseudo-random bytes from @seed at @path. */
static void
write_big (const char *path,
           guint64     size,
           guint32     seed)
{
  g_autofree guint32 *buf = g_malloc (MIB);
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  guint32 x = seed | 1;

  g_assert_cmpint (fd, >=, 0);
  for (guint64 done = 0; done < size; done += MIB)
    {
      for (guint i = 0; i < MIB / 4; i++)
        {
          x ^= x << 13;
          x ^= x >> 17;
          x ^= x << 5;
          buf[i] = x;
        }
      g_assert_cmpint (write (fd, buf, MIN (MIB, size - done)), ==, (ssize_t) MIN (MIB, size - done));
    }
  close (fd);
}

static gboolean
same_bytes (const char *a,
            const char *b)
{
  const char *argv[] = { "cmp", "-s", a, b, NULL };
  int status = -1;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status, NULL);
  return status == 0;
}

/* Files whose names start with ".copyscope-resume-" in @dir. */
static guint
count_partials (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    n += g_str_has_prefix (name, ".copyscope-resume-");
  return n;
}

static gint
compare_lines (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(char * const *) a, *(char * const *) b);
}

/* What a copy of @source into @destination would go on from, before it
 * starts: "path kept size" lines, sorted. */
static char *
kept_found (const char *source,
            const char *destination)
{
  const char *sources[] = { source, NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) found = cs_kept_partials_find_sync (sources, destination, NULL, &error);
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  GString *out = g_string_new (NULL);

  g_assert_no_error (error);
  g_assert_nonnull (found);
  for (guint i = 0; i < found->len; i++)
    {
      CsKeptPartial *p = g_ptr_array_index (found, i);

      g_ptr_array_add (lines, g_strdup_printf ("%s %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT,
                                               cs_kept_partial_get_path (p), cs_kept_partial_get_kept (p),
                                               cs_kept_partial_get_size (p)));
    }
  g_ptr_array_sort (lines, compare_lines);
  for (guint i = 0; i < lines->len; i++)
    g_string_append_printf (out, "%s%s", i > 0 ? "\n" : "", (char *) g_ptr_array_index (lines, i));
  return g_string_free (out, FALSE);
}

/* ---- Counting what is read --------------------------------------------- */

static CsIoTable table;
static atomic_uint_fast64_t read_from_source, read_from_destination;
static const char *source_root;     /* paths under it are the source's */

static gboolean
is_source_fd (int fd)
{
  char link[64], target[4096];
  ssize_t n;

  g_snprintf (link, sizeof link, "/proc/self/fd/%d", fd);
  n = readlink (link, target, sizeof target - 1);
  if (n < 0)
    return FALSE;
  target[n] = '\0';
  return g_str_has_prefix (target, source_root);
}

static void
count_read (int     fd,
            ssize_t n)
{
  if (n <= 0)
    return;
  if (is_source_fd (fd))
    atomic_fetch_add (&read_from_source, (guint64) n);
  else
    atomic_fetch_add (&read_from_destination, (guint64) n);
}

static ssize_t
t_pread (int fd, void *buf, size_t count, off_t offset)
{
  ssize_t n = _cs_io_get_default ()->pread (fd, buf, count, offset);

  count_read (fd, n);
  return n;
}

static ssize_t
t_copy_file_range (int fd_in, off_t *off_in, int fd_out, off_t *off_out, size_t len, unsigned int flags)
{
  ssize_t n = _cs_io_get_default ()->copy_file_range (fd_in, off_in, fd_out, off_out, len, flags);

  count_read (fd_in, n);
  return n;
}

static void
count_reads (Fixture *f)
{
  g_autofree char *prefix = g_strconcat (f->src, "/", NULL);
  static char root[4096];

  g_strlcpy (root, prefix, sizeof root);
  source_root = root;
  table = *_cs_io_get_default ();
  table.pread = t_pread;
  table.copy_file_range = t_copy_file_range;
  /* A clone would read nothing at all; the tests measure a copy. */
  table.clone = NULL;
  atomic_store (&read_from_source, 0);
  atomic_store (&read_from_destination, 0);
  _cs_io_set (&table);
}

/* ---- Runs ------------------------------------------------------------------ */

typedef struct {
  gboolean  ok;
  guint64   copied_files;
  guint64   resumed;        /* kept bytes, from the "resume" event; 0 without one */
  guint64   checked;        /* destination bytes read back to prove them */
  guint     n_resumes;
  guint64   kept;           /* proven bytes left for a later run, from the "kept" events */
  guint     n_kept;
  guint     open_at_cancel; /* partials being written when the cancel came */
} Outcome;

typedef struct {
  CsChunking chunking;
  double     max_rate;
  guint      cancel_at_mib; /* cancel once this much is written; 0: never */
  gboolean   keep_partial;
} Options;

static gpointer
cancel_when_written (gpointer data)
{
  CsJob *job = data;
  guint at = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (job), "cancel-at"));

  for (;;)
    {
      CsProgress progress;

      cs_job_get_progress (job, &progress);
      if (progress.state == CS_JOB_STATE_FINISHED)
        break;
      if (progress.bytes_done >= (guint64) at * MIB)
        {
          guint open = cs_job_get_partials (job, NULL);

          g_object_set_data (G_OBJECT (job), "open-at-cancel", GUINT_TO_POINTER (open));
          cs_job_cancel (job);
          break;
        }
      g_usleep (5000);
    }
  return NULL;
}

static void
run_copy (Fixture *f,
          Options  opt,
          Outcome *o)
{
  g_autoptr(CsJob) job = cs_job_new ();
  g_autoptr(GArray) events = NULL;
  GThread *canceller = NULL;
  CsTotals totals;
  CsRun *run;

  memset (o, 0, sizeof *o);
  cs_job_add_source (job, f->src);
  cs_job_set_destination (job, f->out);
  cs_job_set_threads (job, 4, NULL);
  cs_job_set_chunking (job, opt.chunking);
  cs_job_set_interval (job, 0);
  cs_job_set_flush (job, FALSE);
  cs_job_set_max_rate (job, opt.max_rate);
  cs_job_set_keep_partial (job, opt.keep_partial);
  if (opt.cancel_at_mib > 0)
    {
      g_object_set_data (G_OBJECT (job), "cancel-at", GUINT_TO_POINTER (opt.cancel_at_mib));
      canceller = g_thread_new ("canceller", cancel_when_written, job);
    }
  o->ok = cs_job_run_sync (job, NULL, NULL);
  if (canceller != NULL)
    g_thread_join (canceller);
  o->open_at_cancel = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (job), "open-at-cancel"));
  /* Each partial counted open is closed again, kept or not. */
  g_assert_cmpuint (cs_job_get_partials (job, NULL), ==, 0);

  run = cs_job_get_run (job);
  cs_run_get_totals (run, &totals);
  o->copied_files = totals.v[CS_CLASS_COPIED][CS_KIND_FILES];
  events = cs_run_dup_events (run);
  for (guint i = 0; i < events->len; i++)
    {
      const CsRunEvent *e = &g_array_index (events, CsRunEvent, i);

      if (g_strcmp0 (e->kind, "kept") == 0)
        {
          o->n_kept++;
          o->kept += (guint64) e->value;
          g_assert_cmpuint (e->size, >, 0);
          g_assert_nonnull (e->path);
        }
      if (g_strcmp0 (e->kind, "resume") != 0)
        continue;
      o->n_resumes++;
      o->resumed = (guint64) e->value;
      o->checked = e->checked;
    }
  g_test_message ("run: %s, %" G_GUINT64_FORMAT " copied; resumed at %" G_GUINT64_FORMAT
                  " (%" G_GUINT64_FORMAT " checked); read %" G_GUINT64_FORMAT " from the source, %"
                  G_GUINT64_FORMAT " from the destination", o->ok ? "ok" : "stopped", o->copied_files,
                  o->resumed, o->checked, (guint64) atomic_load (&read_from_source),
                  (guint64) atomic_load (&read_from_destination));
}

/* The second run read from the source what the partial lacked, plus the
 * block that proves the partial is this source's, and from the destination
 * only the partial's journaled blocks. */
static void
assert_resumed_reads (Outcome *o,
                      guint64  size)
{
  g_assert_cmpuint (o->n_resumes, ==, 1);
  g_assert_cmpuint (o->resumed, >, 0);
  /* Whole blocks, the file's short last one perhaps among them (chunks land
   * in any order). */
  g_assert_true (o->resumed % BLOCK == 0 || o->resumed % BLOCK == size % BLOCK);
  g_assert_cmpuint (atomic_load (&read_from_source), <=, size - o->resumed + BLOCK);
  g_assert_cmpuint (atomic_load (&read_from_source), >=, size - o->resumed);
  /* The journal itself besides (a header and one record per block), and,
   * written whole, each new block's hash from the partial's pages. */
  g_assert_cmpuint (atomic_load (&read_from_destination), >=, o->checked);
  g_assert_cmpuint (atomic_load (&read_from_destination), <=, o->checked + (size - o->resumed) + 4096);
  g_assert_cmpuint (o->checked, >=, o->resumed);
}

/* ---- Cancel, then again --------------------------------------------------- */

/* Cancelled with "keep for resume" halfway, whole or in chunks: the partial
 * stays, hidden; the next run goes on from it. */
static void
test_cancel_kept (Fixture       *f,
                  gconstpointer  data)
{
  CsChunking chunking = GPOINTER_TO_INT (data);
  g_autofree char *big = g_build_filename (f->src, "big.bin", NULL);
  g_autofree char *copy = g_build_filename (f->copy, "big.bin", NULL);
  guint64 size = 6 * BLOCK + 12345;
  guint64 kept;
  Outcome o;

  write_big (big, size, 7);
  run_copy (f, (Options) { chunking, 400e6, 120, TRUE }, &o);
  g_assert_false (o.ok);
  g_assert_false (g_file_test (copy, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (count_partials (f->copy), ==, 2);
  /* The cancel knew there was one to keep, and the record says how much. */
  g_assert_cmpuint (o.open_at_cancel, ==, 1);
  g_assert_cmpuint (o.n_kept, ==, 1);
  g_assert_cmpuint (o.kept, >, 0);
  kept = o.kept;
  /* Told before the next run starts, as much as it will go on from. */
  {
    g_autofree char *want = g_strdup_printf ("src/big.bin %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT, kept, size);
    g_autofree char *found = kept_found (f->src, f->out);

    g_assert_cmpstr (found, ==, want);
  }

  count_reads (f);
  run_copy (f, (Options) { chunking, 0, 0, FALSE }, &o);
  g_assert_true (o.ok);
  g_assert_true (same_bytes (big, copy));
  assert_resumed_reads (&o, size);
  g_assert_cmpuint (o.resumed, ==, kept);
  g_assert_cmpuint (o.n_kept, ==, 0);
  g_assert_cmpuint (count_partials (f->copy), ==, 0);
  {
    g_autofree char *found = kept_found (f->src, f->out);

    g_assert_cmpstr (found, ==, "");
  }
}

/* Found before a copy starts, deep in a folder or as a file given alone,
 * and only for that copy: not into another destination, not once the
 * source changed. */
static void
test_kept_found (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *deep = g_build_filename (f->src, "deep", "er", NULL);
  g_autofree char *big = g_build_filename (deep, "big.bin", NULL);
  g_autofree char *deep_copy = g_build_filename (f->copy, "deep", "er", NULL);
  g_autofree char *other = g_build_filename (f->root, "other", NULL);
  g_autofree char *want = NULL;
  g_autofree char *found = NULL;
  guint64 size = 4 * BLOCK + 99;
  struct timespec times[2] = { { 0, UTIME_OMIT }, { 0, UTIME_NOW } };
  Outcome o;

  g_assert_cmpint (g_mkdir_with_parents (deep, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (other, 0755), ==, 0);
  write_big (big, size, 14);
  /* Nothing kept yet: nothing found, the destination's folder not even there. */
  found = kept_found (f->src, f->out);
  g_assert_cmpstr (found, ==, "");
  g_clear_pointer (&found, g_free);

  run_copy (f, (Options) { CS_CHUNKING_NEVER, 400e6, 70, TRUE }, &o);
  g_assert_cmpuint (o.n_kept, ==, 1);
  g_assert_cmpuint (o.kept, >, 0);

  want = g_strdup_printf ("src/deep/er/big.bin %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT, o.kept, size);
  found = kept_found (f->src, f->out);
  g_assert_cmpstr (found, ==, want);
  g_clear_pointer (&found, g_free);
  g_clear_pointer (&want, g_free);
  /* The file alone, into the folder its partial is in. */
  want = g_strdup_printf ("big.bin %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT, o.kept, size);
  found = kept_found (big, deep_copy);
  g_assert_cmpstr (found, ==, want);
  g_clear_pointer (&found, g_free);
  found = kept_found (f->src, other);
  g_assert_cmpstr (found, ==, "");
  g_clear_pointer (&found, g_free);

  /* Its bytes as they were, its time now: another file to the journal. */
  g_assert_cmpint (utimensat (AT_FDCWD, big, times, 0), ==, 0);
  found = kept_found (f->src, f->out);
  g_assert_cmpstr (found, ==, "");
}

/* Cancelled without it: nothing is left, and the next run starts over. */
static void
test_cancel_removed (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *big = g_build_filename (f->src, "big.bin", NULL);
  g_autofree char *copy = g_build_filename (f->copy, "big.bin", NULL);
  Outcome o;

  write_big (big, 4 * BLOCK, 8);
  run_copy (f, (Options) { CS_CHUNKING_NEVER, 400e6, 70, FALSE }, &o);
  g_assert_false (o.ok);
  g_assert_cmpuint (count_partials (f->copy), ==, 0);
  g_assert_cmpuint (cs_test_tree_find_temporaries (f->out), ==, 0);
  run_copy (f, (Options) { CS_CHUNKING_NEVER, 0, 0, FALSE }, &o);
  g_assert_true (o.ok);
  g_assert_cmpuint (o.n_resumes, ==, 0);
  g_assert_true (same_bytes (big, copy));
}

/* The source changed between the runs (its ctime, at least): the partial
 * starts over and the copy is of the source as it is now. */
static void
test_source_changed (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *big = g_build_filename (f->src, "big.bin", NULL);
  g_autofree char *copy = g_build_filename (f->copy, "big.bin", NULL);
  struct stat before;
  struct timespec times[2];
  Outcome o;
  int fd;

  write_big (big, 4 * BLOCK, 9);
  run_copy (f, (Options) { CS_CHUNKING_NEVER, 400e6, 70, TRUE }, &o);
  g_assert_cmpuint (count_partials (f->copy), ==, 2);

  /* Rewritten at its first block, size and mtime put back. */
  g_assert_cmpint (stat (big, &before), ==, 0);
  fd = open (big, O_WRONLY);
  g_assert_cmpint (pwrite (fd, "changed", 7, 100), ==, 7);
  times[0] = before.st_atim;
  times[1] = before.st_mtim;
  g_assert_cmpint (futimens (fd, times), ==, 0);
  close (fd);

  run_copy (f, (Options) { CS_CHUNKING_NEVER, 0, 0, FALSE }, &o);
  g_assert_true (o.ok);
  g_assert_cmpuint (o.n_resumes, ==, 0);
  g_assert_true (same_bytes (big, copy));
  g_assert_cmpuint (count_partials (f->copy), ==, 0);
}

/* A journaled block the partial no longer holds (a lost write, a bad disk)
 * is copied again; the others are kept. */
static void
test_damaged_block (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *big = g_build_filename (f->src, "big.bin", NULL);
  g_autofree char *copy = g_build_filename (f->copy, "big.bin", NULL);
  g_autofree char *part = NULL;
  g_autoptr(GDir) d = NULL;
  const char *name;
  guint64 kept_before;
  Outcome o;
  int fd;

  write_big (big, 5 * BLOCK, 10);
  run_copy (f, (Options) { CS_CHUNKING_NEVER, 400e6, 110, TRUE }, &o);
  d = g_dir_open (f->copy, 0, NULL);
  while ((name = g_dir_read_name (d)) != NULL)
    if (g_str_has_suffix (name, ".part") && g_str_has_prefix (name, ".copyscope-resume-"))
      part = g_build_filename (f->copy, name, NULL);
  g_assert_nonnull (part);
  {
    struct stat st;

    g_assert_cmpint (stat (part, &st), ==, 0);
    kept_before = (guint64) st.st_size / BLOCK * BLOCK;
    g_assert_cmpuint (kept_before, >=, 2 * BLOCK);
  }
  fd = open (part, O_WRONLY);
  g_assert_cmpint (pwrite (fd, "XXXX", 4, (off_t) BLOCK + 5), ==, 4);
  close (fd);

  count_reads (f);
  run_copy (f, (Options) { CS_CHUNKING_NEVER, 0, 0, FALSE }, &o);
  g_assert_true (o.ok);
  g_assert_true (same_bytes (big, copy));
  g_assert_cmpuint (o.n_resumes, ==, 1);
  g_assert_cmpuint (o.resumed, <, kept_before);
  g_assert_cmpuint (o.resumed, >=, BLOCK);
}

/* A partial of a file the source no longer has goes once its folder is read;
 * one another run holds stays. */
static void
test_stale_swept (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *big = g_build_filename (f->src, "big.bin", NULL);
  g_autofree char *small = g_build_filename (f->src, "small.txt", NULL);
  g_autofree char *held = g_build_filename (f->copy, ".copyscope-resume-00000000000000aa.part", NULL);
  Outcome o;
  int fd;

  write_big (big, 3 * BLOCK, 11);
  run_copy (f, (Options) { CS_CHUNKING_NEVER, 400e6, 40, TRUE }, &o);
  g_assert_cmpuint (count_partials (f->copy), ==, 2);
  g_assert_cmpint (g_unlink (big), ==, 0);
  write_big (small, 1000, 12);
  write_big (held, 1000, 13);
  fd = open (held, O_RDONLY);
  g_assert_cmpint (flock (fd, LOCK_EX), ==, 0);

  run_copy (f, (Options) { CS_CHUNKING_NEVER, 0, 0, FALSE }, &o);
  g_assert_true (o.ok);
  g_assert_cmpuint (count_partials (f->copy), ==, 1);
  g_assert_true (g_file_test (held, G_FILE_TEST_EXISTS));
  close (fd);
  run_copy (f, (Options) { CS_CHUNKING_NEVER, 0, 0, FALSE }, &o);
  g_assert_cmpuint (count_partials (f->copy), ==, 0);
}

/* ---- SIGKILL ----------------------------------------------------------------- */

static GSubprocess *
spawn_cli_copy (Fixture    *f,
                const char *rate)
{
  g_autoptr(GError) error = NULL;
  GSubprocess *p = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_SILENCE,
                                     &error, cli, "copy", "-q", "--no-history", "--no-flush",
                                     "--interval", "0", "--max-rate", rate, f->src, f->out, NULL);

  g_assert_no_error (error);
  return p;
}

/*
 * A copy of one file of @size through the CLI, killed at @n moments spread
 * over its time (the rate is limited so the moments are known), each
 * followed by a run that must publish a byte-identical file and read no
 * more from the source than the partial lacked plus one block.
 */
static void
kill_loop (Fixture *f,
           guint64  size,
           guint    n,
           double   rate)
{
  g_autofree char *big = g_build_filename (f->src, "big.bin", NULL);
  g_autofree char *copy = g_build_filename (f->copy, "big.bin", NULL);
  g_autofree char *rate_text = g_strdup_printf ("%.0f", rate);
  double seconds = (double) size / rate;
  guint resumed = 0;

  write_big (big, size, 21);
  for (guint i = 0; i < n; i++)
    {
      GSubprocess *p = spawn_cli_copy (f, rate_text);
      double at = seconds * (i + 1) / (n + 1);
      Outcome o;

      g_usleep ((gulong) (at * G_USEC_PER_SEC));
      g_subprocess_send_signal (p, SIGKILL);
      g_subprocess_wait (p, NULL, NULL);
      g_clear_object (&p);
      g_assert_false (g_file_test (copy, G_FILE_TEST_EXISTS));

      count_reads (f);
      run_copy (f, (Options) { CS_CHUNKING_NEVER, 0, 0, FALSE }, &o);
      _cs_io_set (NULL);
      g_assert_true (o.ok);
      g_assert_true (same_bytes (big, copy));
      g_assert_cmpuint (count_partials (f->copy), ==, 0);
      g_assert_cmpuint (cs_test_tree_find_temporaries (f->out), ==, 0);
      /* A kill before the first block was journaled leaves nothing to go on from. */
      if (o.n_resumes > 0)
        {
          assert_resumed_reads (&o, size);
          resumed++;
        }
      else
        g_assert_cmpuint (atomic_load (&read_from_source), ==, size);
      g_test_message ("kill %u at %.2f s: resumed at %" G_GUINT64_FORMAT " MiB, %" G_GUINT64_FORMAT
                      " MiB read back, %" G_GUINT64_FORMAT " MiB read from the source", i + 1, at,
                      o.resumed / MIB, o.checked / MIB, (guint64) atomic_load (&read_from_source) / MIB);
      g_assert_cmpint (g_unlink (copy), ==, 0);
    }
  /* Most kills land after a block or more was written. */
  g_assert_cmpuint (resumed, >=, n * 2 / 3);
}

static void
test_kill (Fixture       *f,
           gconstpointer  data)
{
  kill_loop (f, 8 * BLOCK, 3, 200e6);
}

/* 1 GiB, ten kills, on a tmpfs so the machine's disk is not the clock. */
static void
test_kill_slow (Fixture       *f,
                gconstpointer  data)
{
  f->mnt = g_build_filename (g_get_tmp_dir (), "cs-test-resume-XXXXXX", NULL);
  g_assert_nonnull (g_mkdtemp (f->mnt));
  if (mount ("cs-test-resume", f->mnt, "tmpfs", 0, "size=2560m") != 0)
    {
      g_test_skip_printf ("cannot mount a tmpfs (%s): needs root", g_strerror (errno));
      g_rmdir (f->mnt);
      g_clear_pointer (&f->mnt, g_free);
      return;
    }
  cs_test_tree_remove (f->root);
  g_free (f->root);
  g_free (f->src);
  g_free (f->out);
  g_free (f->copy);
  f->root = g_build_filename (f->mnt, "t", NULL);
  f->src = g_build_filename (f->root, "src", NULL);
  f->out = g_build_filename (f->root, "out", NULL);
  f->copy = g_build_filename (f->out, "src", NULL);
  g_assert_cmpint (g_mkdir_with_parents (f->src, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (f->out, 0755), ==, 0);
  kill_loop (f, G_GUINT64_CONSTANT (1) << 30, 10, 400e6);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  cli = g_getenv ("CS_CLI");

#define ADD(path, data, func) \
  g_test_add ("/resume/" path, Fixture, GINT_TO_POINTER (data), fixture_setup, func, fixture_teardown)
  ADD ("cancel-kept/whole", CS_CHUNKING_NEVER, test_cancel_kept);
  ADD ("cancel-kept/chunks", CS_CHUNKING_ALWAYS, test_cancel_kept);
  ADD ("cancel-removed", 0, test_cancel_removed);
  ADD ("source-changed", 0, test_source_changed);
  ADD ("damaged-block", 0, test_damaged_block);
  ADD ("stale-swept", 0, test_stale_swept);
  ADD ("kept-found", 0, test_kept_found);
  if (cli != NULL)
    {
      ADD ("kill", 0, test_kill);
      ADD ("slow/kill-1gib", 0, test_kill_slow);
    }

  return g_test_run ();
}
