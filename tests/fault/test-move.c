/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "copyscope-engine.h"
#include "cs-io-private.h"
#include "cs-kill-plan.h"
#include "cs-oracle.h"
#include "cs-test-tree.h"

/*
 * Moving never loses a file (RELIABILITY.md, rule 15). Each test ends with the
 * oracle in its move mode: every source entry is still in the source,
 * untouched, or gone with a COMPLETE copy — never neither. Moves within one
 * filesystem rename; across filesystems (a tmpfs mounted for the test) the
 * source goes only after its copy is published and flushed, which faults in
 * the flush, the removal and the source itself try to break; SIGKILL at
 * spread moments of a move through the CLI, then a rerun, must converge with
 * nothing lost.
 */

static const char *cli;       /* $CS_CLI */
static const char *shim;      /* $CS_PRELOAD */

typedef struct {
  char     *root;
  char     *src;          /* root/src */
  char     *out;          /* where the move goes: root/out, or a tmpfs */
  char     *copy;         /* out/src */
  char     *mnt;          /* the tmpfs, when the test is across filesystems */
  CsOracle *oracle;
} Fixture;

static void
write_pattern (const char *path,
               gsize       size,
               guint       seed,
               mode_t      mode)
{
  g_autofree guint8 *data = g_malloc (MAX (size, 1));
  g_autoptr(GError) error = NULL;
  struct timespec ts[2] = { { 1600000000 + seed, 123456789 }, { 1600000000 + seed, 123456789 } };

  for (gsize i = 0; i < size; i++)
    data[i] = (guint8) ((i * 2654435761u + seed * 7919u) >> 11);
  g_file_set_contents (path, (const char *) data, (gssize) size, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_chmod (path, mode), ==, 0);
  g_assert_cmpint (utimensat (AT_FDCWD, path, ts, 0), ==, 0);
}

static char *
path_in (const char *dir,
         const char *rel)
{
  return g_build_filename (dir, rel, NULL);
}

/* a.txt, b.bin, c.dat, sub/d.txt, sub/deeper/e, sub/empty-dir/, link -> a.txt,
 * and @n_more files f00 … in many/. */
static void
make_source (Fixture *f,
             guint    n_more)
{
  g_autofree char *p = NULL;

#define P(rel) (g_free (p), p = path_in (f->src, rel))
  g_assert_cmpint (g_mkdir (f->src, 0755), ==, 0);
  write_pattern (P ("a.txt"), 10000, 1, 0644);
  write_pattern (P ("b.bin"), 3 * 1024 * 1024 + 17, 2, 0640);
  write_pattern (P ("c.dat"), 200000, 3, 0600);
  g_assert_cmpint (g_mkdir (P ("sub"), 0750), ==, 0);
  write_pattern (P ("sub/d.txt"), 4321, 4, 0644);
  g_assert_cmpint (g_mkdir (P ("sub/deeper"), 0755), ==, 0);
  write_pattern (P ("sub/deeper/e"), 0, 5, 0444);
  g_assert_cmpint (g_mkdir (P ("sub/empty-dir"), 0700), ==, 0);
  g_assert_cmpint (symlink ("a.txt", P ("link")), ==, 0);
  if (n_more > 0)
    g_assert_cmpint (g_mkdir (P ("many"), 0755), ==, 0);
  for (guint i = 0; i < n_more; i++)
    {
      g_autofree char *rel = g_strdup_printf ("many/f%02u", i);

      write_pattern (P (rel), 20000 + i * 1500, 10 + i, 0644);
    }
#undef P
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->root = cs_test_tree_make_tmp ();
  f->src = path_in (f->root, "src");
  f->out = path_in (f->root, "out");
  f->copy = path_in (f->out, "src");
  g_assert_cmpint (g_mkdir (f->out, 0755), ==, 0);
}

/* The destination on a filesystem of its own: FALSE (the test skipped) when
 * this cannot mount one. */
static gboolean
across_filesystems (Fixture *f)
{
  f->mnt = path_in (f->root, "other-fs");
  g_assert_cmpint (g_mkdir (f->mnt, 0755), ==, 0);
  if (mount ("cs-test-move", f->mnt, "tmpfs", 0, "size=256m") != 0)
    {
      g_test_skip_printf ("cannot mount a tmpfs (%s): needs root", g_strerror (errno));
      g_clear_pointer (&f->mnt, g_free);
      return FALSE;
    }
  g_free (f->out);
  g_free (f->copy);
  f->out = path_in (f->mnt, "out");
  f->copy = path_in (f->out, "src");
  g_assert_cmpint (g_mkdir (f->out, 0755), ==, 0);
  return TRUE;
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  _cs_io_set (NULL);
  if (f->mnt != NULL && umount (f->mnt) != 0 && umount2 (f->mnt, MNT_DETACH) != 0)
    g_printerr ("cannot unmount %s: %s\n", f->mnt, g_strerror (errno));
  g_clear_pointer (&f->oracle, cs_oracle_free);
  cs_test_tree_remove (f->root);
  g_free (f->root);
  g_free (f->src);
  g_free (f->out);
  g_free (f->copy);
  g_free (f->mnt);
}

static CsOracle *
watch (Fixture *f)
{
  g_clear_pointer (&f->oracle, cs_oracle_free);
  f->oracle = cs_oracle_new ();
  cs_oracle_set_move (f->oracle, TRUE);
  cs_oracle_add_pair (f->oracle, f->src, f->copy);
  return f->oracle;
}

typedef struct {
  gboolean   ok;
  GError    *error;
  CsTotals   totals;
  CsRemovals removals;
  GPtrArray *errors;
} Outcome;

static void
outcome_clear (Outcome *o)
{
  g_clear_error (&o->error);
  g_clear_pointer (&o->errors, g_ptr_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Outcome, outcome_clear)

typedef struct {
  gboolean    dry_run;
  gboolean    verify;
  double      max_rate;
  guint       cancel_after_ms;
} Options;

static gpointer
cancel_later (gpointer data)
{
  CsJob *job = data;
  guint ms = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (job), "cancel-after"));

  g_usleep (ms * 1000);
  cs_job_cancel (job);
  return NULL;
}

static void
plan_line (const char *action,
           const char *source,
           const char *destination,
           gpointer    user_data)
{
  g_ptr_array_add (user_data, g_strdup (action));
}

static void
run_move (Fixture *f,
          Options  opt,
          Outcome *o,
          GPtrArray *plan)
{
  g_autoptr(CsJob) job = cs_job_new ();
  GThread *canceller = NULL;
  CsRun *run;

  outcome_clear (o);
  cs_job_set_operation (job, CS_OPERATION_MOVE);
  cs_job_add_source (job, f->src);
  cs_job_set_destination (job, f->out);
  cs_job_set_threads (job, 3, NULL);
  cs_job_set_verify (job, opt.verify);
  cs_job_set_wait (job, 0.01);
  cs_job_set_interval (job, 0);
  cs_job_set_flush (job, FALSE);
  cs_job_set_max_rate (job, opt.max_rate);
  if (opt.dry_run)
    cs_job_set_dry_run (job, TRUE, plan_line, plan);
  if (opt.cancel_after_ms > 0)
    {
      g_object_set_data (G_OBJECT (job), "cancel-after", GUINT_TO_POINTER (opt.cancel_after_ms));
      canceller = g_thread_new ("canceller", cancel_later, job);
    }

  o->ok = cs_job_run_sync (job, NULL, &o->error);
  if (canceller != NULL)
    g_thread_join (canceller);
  run = cs_job_get_run (job);
  cs_run_get_totals (run, &o->totals);
  cs_run_get_removals (run, &o->removals);
  o->errors = cs_run_dup_errors (run);
  g_test_message ("move: %s; moved %" G_GUINT64_FORMAT " files, %" G_GUINT64_FORMAT " folders, kept %"
                  G_GUINT64_FORMAT ", %u errors%s%s", o->ok ? "ok" : "failed",
                  o->removals.moved_files, o->removals.moved_dirs, o->removals.kept_files,
                  o->errors->len, o->error != NULL ? ": " : "", o->error != NULL ? o->error->message : "");
  for (guint i = 0; i < o->errors->len; i++)
    {
      const CsRunError *e = g_ptr_array_index (o->errors, i);
      g_test_message ("  %s: %s: %s", e->path, e->operation, e->message);
    }
}

static const CsRunError *
find_error (Outcome    *o,
            const char *suffix)
{
  for (guint i = 0; i < o->errors->len; i++)
    {
      const CsRunError *e = g_ptr_array_index (o->errors, i);

      if (g_str_has_suffix (e->path, suffix))
        return e;
    }
  return NULL;
}

static gboolean
exists (const char *dir,
        const char *rel)
{
  g_autofree char *p = path_in (dir, rel);
  struct stat st;

  return lstat (p, &st) == 0;
}

static void
refresh_folders (CsOracle   *oracle,
                 const char *root,
                 const char *rel)
{
  g_autofree char *path = g_strcmp0 (rel, ".") == 0 ? g_strdup (root) : path_in (root, rel);
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  if (dir == NULL)
    return;
  cs_oracle_update_source (oracle, 0, rel);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_strcmp0 (rel, ".") == 0 ? g_strdup (name) : g_build_filename (rel, name, NULL);
      g_autofree char *full = path_in (root, child);

      if (g_file_test (full, G_FILE_TEST_IS_DIR) && !g_file_test (full, G_FILE_TEST_IS_SYMLINK))
        refresh_folders (oracle, root, child);
    }
}

/* An interrupted move took entries out of source folders, whose times the
 * rerun then copies: those folders' present state is the truth now. */
static void
refresh_source_folders (Fixture *f)
{
  refresh_folders (f->oracle, f->src, ".");
}

/* Everything moved: the copy COMPLETE, nothing left of the source. */
static void
assert_all_moved (Fixture *f)
{
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
  g_assert_false (exists (f->root, "src"));
  g_assert_cmpuint (cs_test_tree_find_temporaries (f->out), ==, 0);
}

/* ---- Within one filesystem ------------------------------------------------ */

static void
test_same_fs_whole (Fixture       *f,
                    gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };
  struct stat before, after;
  g_autofree char *b_src = path_in (f->src, "b.bin");
  g_autofree char *b_copy = NULL;

  make_source (f, 0);
  g_assert_cmpint (lstat (b_src, &before), ==, 0);
  watch (f);
  run_move (f, (Options) { 0 }, &o, NULL);
  g_assert_true (o.ok);
  assert_all_moved (f);
  /* One rename: the same inode, no data copied. */
  b_copy = path_in (f->copy, "b.bin");
  g_assert_cmpint (lstat (b_copy, &after), ==, 0);
  g_assert_cmpuint (before.st_ino, ==, after.st_ino);
  g_assert_cmpuint (o.removals.moved_dirs, ==, 1);
}

/* Into an existing copy, under the default policy: an older file is
 * replaced, a newer one stays in the source, an identical one's source is
 * removed, one of the same size and time but other bytes stays. */
static void
test_merge (Fixture       *f,
            gconstpointer  data)
{
  gboolean cross = GPOINTER_TO_INT (data);
  g_auto(Outcome) o = { 0 };
  g_autofree char *p = NULL;

  if (cross && !across_filesystems (f))
    return;
  make_source (f, 0);
#define C(rel) (g_free (p), p = path_in (f->copy, rel))
  g_assert_cmpint (g_mkdir (f->copy, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (C ("sub"), 0755), ==, 0);
  write_pattern (C ("b.bin"), 5000, 0, 0644);                 /* older: replaced */
  write_pattern (C ("c.dat"), 7000, 90, 0644);                /* newer: kept */
  write_pattern (C ("a.txt"), 10000, 1, 0644);                /* identical */
  write_pattern (C ("sub/d.txt"), 4321, 4, 0644);             /* same size and time … */
  {
    int fd = open (p, O_WRONLY);
    struct timespec ts[2] = { { 1600000004, 123456789 }, { 1600000004, 123456789 } };

    g_assert_cmpint (pwrite (fd, "XYZ", 3, 100), ==, 3);      /* … other bytes */
    g_assert_cmpint (futimens (fd, ts), ==, 0);
    close (fd);
  }
#undef C
  watch (f);
  run_move (f, (Options) { 0 }, &o, NULL);
  g_assert_true (o.ok);
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);

  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "b.bin"), ==, CS_ORACLE_COMPLETE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "a.txt"), ==, CS_ORACLE_COMPLETE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "c.dat"), ==, CS_ORACLE_OLD);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "sub/d.txt"), ==, CS_ORACLE_OLD);
  g_assert_false (exists (f->src, "a.txt"));
  g_assert_false (exists (f->src, "b.bin"));
  g_assert_true (exists (f->src, "c.dat"));
  g_assert_true (exists (f->src, "sub/d.txt"));
  g_assert_false (exists (f->src, "sub/deeper"));
  g_assert_nonnull (find_error (&o, "c.dat"));
  g_assert_nonnull (find_error (&o, "d.txt"));
  g_assert_cmpuint (o.removals.kept_files, ==, 2);
  /* a.txt, b.bin, link, sub/deeper/e */
  g_assert_cmpuint (o.removals.moved_files, >=, 3);
}

static void
test_dry_run (Fixture       *f,
              gconstpointer  data)
{
  g_autoptr(GPtrArray) plan = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GHashTable) before = NULL;
  g_auto(Outcome) o = { 0 };

  make_source (f, 0);
  before = cs_test_tree_snapshot (f->root);
  run_move (f, (Options) { .dry_run = TRUE }, &o, plan);
  g_assert_true (o.ok);
  cs_test_tree_assert_snapshot (f->root, before);
  g_assert_cmpuint (plan->len, >, 0);
  g_assert_true (g_ptr_array_find_with_equal_func (plan, "move", g_str_equal, NULL));
}

/* ---- Across filesystems ----------------------------------------------------- */

static void
test_cross_fs (Fixture       *f,
               gconstpointer  data)
{
  gboolean verify = GPOINTER_TO_INT (data);
  g_auto(Outcome) o = { 0 };

  if (!across_filesystems (f))
    return;
  make_source (f, 20);
  watch (f);
  run_move (f, (Options) { .verify = verify }, &o, NULL);
  g_assert_true (o.ok);
  assert_all_moved (f);
  g_assert_cmpuint (o.removals.moved_files, ==, 26);
  g_assert_cmpuint (o.removals.kept_files, ==, 0);
}

/* Two names of one file in different folders and a FIFO: moved, the names
 * are still one file at the destination (renamed within a filesystem,
 * linked to the first name's copy across one), and the FIFO is made again,
 * never opened. */
static void
test_links_and_fifo (Fixture       *f,
                     gconstpointer  data)
{
  gboolean cross = GPOINTER_TO_INT (data);
  g_auto(Outcome) o = { 0 };
  g_autofree char *h1 = NULL, *h2 = NULL, *fifo = NULL;
  g_autofree char *c1 = NULL, *c2 = NULL, *cfifo = NULL;
  struct stat s1, s2, sf;

  if (cross && !across_filesystems (f))
    return;
  make_source (f, 0);
  h1 = path_in (f->src, "h1");
  h2 = path_in (f->src, "sub/h2");
  fifo = path_in (f->src, "pipe");
  write_pattern (h1, 50000, 7, 0644);
  g_assert_cmpint (link (h1, h2), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0640), ==, 0);

  run_move (f, (Options) { 0 }, &o, NULL);
  g_assert_true (o.ok);
  g_assert_cmpuint (o.errors->len, ==, 0);
  g_assert_false (exists (f->root, "src"));
  c1 = path_in (f->copy, "h1");
  c2 = path_in (f->copy, "sub/h2");
  cfifo = path_in (f->copy, "pipe");
  g_assert_cmpint (lstat (c1, &s1), ==, 0);
  g_assert_cmpint (lstat (c2, &s2), ==, 0);
  g_assert_cmpuint (s1.st_ino, ==, s2.st_ino);
  g_assert_cmpuint (s1.st_nlink, ==, 2);
  g_assert_cmpint (s1.st_size, ==, 50000);
  g_assert_cmpint (lstat (cfifo, &sf), ==, 0);
  g_assert_true (S_ISFIFO (sf.st_mode));
  g_assert_cmpuint (cs_test_tree_find_temporaries (f->out), ==, 0);
}

/* A table whose syncfs, unlinkat or source opens a test controls. */
static CsIoTable table;
static atomic_int syncfs_errno;
static const char *refuse_unlink;      /* base name */
static const char *change_on_flush;    /* path, appended to at the first flush */
static atomic_int flushes;

static int
t_syncfs (int fd)
{
  int code = atomic_load (&syncfs_errno);

  atomic_fetch_add (&flushes, 1);
  if (change_on_flush != NULL)
    {
      FILE *fp = fopen (change_on_flush, "a");

      fputs ("changed", fp);
      fclose (fp);
      change_on_flush = NULL;
    }
  if (code != 0)
    {
      errno = code;
      return -1;
    }
  return _cs_io_get_default ()->syncfs (fd);
}

static int
t_unlinkat (int dirfd, const char *path, int flags)
{
  if (refuse_unlink != NULL && strcmp (path, refuse_unlink) == 0 && flags == 0)
    {
      errno = EACCES;
      return -1;
    }
  return _cs_io_get_default ()->unlinkat (dirfd, path, flags);
}

static void
install_table (void)
{
  table = *_cs_io_get_default ();
  table.syncfs = t_syncfs;
  table.unlinkat = t_unlinkat;
  atomic_store (&flushes, 0);
  _cs_io_set (&table);
}

/* The flush fails: no source is removed; the rerun finds identical copies,
 * compares them and removes the sources then. */
static void
test_flush_fails (Fixture       *f,
                  gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };

  if (!across_filesystems (f))
    return;
  make_source (f, 5);
  watch (f);
  install_table ();
  atomic_store (&syncfs_errno, EIO);
  run_move (f, (Options) { 0 }, &o, NULL);
  _cs_io_set (NULL);
  atomic_store (&syncfs_errno, 0);
  g_assert_cmpint (atomic_load (&flushes), >=, 1);
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_cmpuint (o.removals.moved_files, ==, 0);
  g_assert_cmpuint (o.removals.kept_files, ==, 11);
  g_assert_true (exists (f->src, "a.txt"));
  g_assert_true (exists (f->src, "many/f04"));
  g_assert_nonnull (find_error (&o, "a.txt"));

  refresh_source_folders (f);
  run_move (f, (Options) { 0 }, &o, NULL);
  g_assert_true (o.ok);
  assert_all_moved (f);
  g_assert_cmpuint (o.removals.moved_files, ==, 11);
}

/* A source changed between its copy and the removal stays, reported; the
 * others go. */
static void
test_changed_before_removal (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *c = NULL;
  g_auto(Outcome) o = { 0 };

  if (!across_filesystems (f))
    return;
  make_source (f, 0);
  watch (f);
  c = path_in (f->src, "c.dat");
  change_on_flush = c;
  install_table ();
  run_move (f, (Options) { 0 }, &o, NULL);
  _cs_io_set (NULL);
  cs_oracle_update_source (f->oracle, 0, "c.dat");
  g_assert_true (exists (f->src, "c.dat"));
  g_assert_false (exists (f->src, "a.txt"));
  g_assert_nonnull (find_error (&o, "c.dat"));
  g_assert_cmpuint (o.removals.kept_files, ==, 1);
  /* The source changed on purpose; its old copy is now OLD to the truth. */
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "a.txt"), ==, CS_ORACLE_COMPLETE);
}

/* A source that cannot be removed stays, reported, with its copy complete. */
static void
test_removal_refused (Fixture       *f,
                      gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };

  if (!across_filesystems (f))
    return;
  make_source (f, 0);
  watch (f);
  refuse_unlink = "b.bin";
  install_table ();
  run_move (f, (Options) { 0 }, &o, NULL);
  _cs_io_set (NULL);
  refuse_unlink = NULL;
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_true (exists (f->src, "b.bin"));
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "b.bin"), ==, CS_ORACLE_COMPLETE);
  g_assert_nonnull (find_error (&o, "b.bin"));
  g_assert_cmpuint (o.removals.kept_files, ==, 1);
  /* The folder that holds it stays too. */
  g_assert_true (exists (f->root, "src"));
}

/* Cancelled while it moves, slowly: nothing lost; the rerun finishes. */
static void
test_cancel (Fixture       *f,
             gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };

  if (!across_filesystems (f))
    return;
  make_source (f, 30);
  watch (f);
  run_move (f, (Options) { .max_rate = 2e6, .cancel_after_ms = 600 }, &o, NULL);
  g_assert_error (o.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_true (exists (f->root, "src"));

  refresh_source_folders (f);
  run_move (f, (Options) { 0 }, &o, NULL);
  g_assert_true (o.ok);
  assert_all_moved (f);
}

/* ---- SIGKILL through the CLI -------------------------------------------------- */

static void
child_setup (gpointer data)
{
  setsid ();
}

/* The delays of the slowed runs: every write into the destination waits. */
static void
slow_down (GSubprocessLauncher *launcher,
           Fixture             *f)
{
  g_autofree char *pattern = g_strconcat (f->out, "/*", NULL);
  const char *given = g_getenv ("ASAN_OPTIONS");
  g_autofree char *asan = NULL;

  g_subprocess_launcher_setenv (launcher, "CSFAULT_PATH", pattern, TRUE);
  g_subprocess_launcher_setenv (launcher, "CSFAULT_OP", "write,copy_file_range", TRUE);
  g_subprocess_launcher_setenv (launcher, "CSFAULT_DELAY_US", "2000", TRUE);
  g_subprocess_launcher_setenv (launcher, "LD_PRELOAD", shim, TRUE);
  /* An ASan build of the CLI refuses a preload ahead of its runtime unless told. */
  asan = g_strconcat (given != NULL ? given : "", given != NULL ? ":" : "", "verify_asan_link_order=0", NULL);
  g_subprocess_launcher_setenv (launcher, "ASAN_OPTIONS", asan, TRUE);
  g_subprocess_launcher_set_child_setup (launcher, child_setup, NULL, NULL);
}

/* "move" of the fixture's source, slowed or not; @files_per_s spreads a
 * move that renames over time. */
static GSubprocess *
spawn_move (Fixture    *f,
            gboolean    slowed,
            const char *max_files)
{
  g_autoptr(GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autoptr(GError) error = NULL;
  GSubprocess *process;

  if (slowed)
    slow_down (launcher, f);
  process = g_subprocess_launcher_spawn (launcher, &error, cli, "move", "-q", "--no-history", "--no-flush",
                                         "--threads=4", "--wait=0.01",
                                         max_files != NULL ? "--max-files" : "--retries=2",
                                         max_files != NULL ? max_files : "--retries=2",
                                         f->src, f->out, NULL);
  g_assert_no_error (error);
  return process;
}

static int
run_cli_move (Fixture    *f,
              gboolean    slowed,
              const char *max_files)
{
  g_autoptr(GSubprocess) process = spawn_move (f, slowed, max_files);
  g_autoptr(GError) error = NULL;
  g_autofree char *err = NULL;

  g_assert_true (g_subprocess_communicate_utf8 (process, NULL, NULL, NULL, &err, &error));
  g_assert_no_error (error);
  if (err != NULL && err[0] != '\0')
    g_test_message ("stderr:\n%.2000s", err);
  return g_subprocess_get_if_exited (process) ? g_subprocess_get_exit_status (process)
                                              : 128 + g_subprocess_get_term_sig (process);
}

/* A copy made before, of part of the tree, so a move within the filesystem
 * merges and renames file by file. */
static void
make_partial_copy (Fixture *f)
{
  g_autofree char *many = path_in (f->copy, "many");
  g_autofree char *sub = path_in (f->copy, "sub");

  g_assert_cmpint (g_mkdir_with_parents (many, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (sub, 0755), ==, 0);
}

/*
 * SIGKILL at @n moments spread over a move slowed by the shim, each from the
 * same fresh source; after each: nothing lost (the oracle's move check, with
 * temporaries allowed), then a rerun moves everything and leaves nothing.
 */
static void
test_kill (Fixture       *f,
           gconstpointer  data)
{
  guint n = GPOINTER_TO_UINT (data) & 0xff;
  gboolean cross = (GPOINTER_TO_UINT (data) & 0x100) != 0;
  const char *max_files = "150/s";
  g_autoptr(GRand) rand = g_rand_new_with_seed (14);
  CsKillPlan plan;
  guint delay_ms;
  double total_ms;

  if (cli == NULL || shim == NULL || !g_file_test (shim, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("needs the CLI and the preload shim (CS_CLI, CS_PRELOAD)");
      return;
    }
  if (cross && !across_filesystems (f))
    return;

  /* A timed move first, under the same delays: the kills spread over it. */
  {
    gint64 start;

    make_source (f, 40);
    if (!cross)
      make_partial_copy (f);
    start = g_get_monotonic_time ();
    g_assert_cmpint (run_cli_move (f, TRUE, max_files), ==, 0);
    total_ms = (double) (g_get_monotonic_time () - start) / 1000.0;
    g_test_message ("the whole move took %.0f ms", total_ms);
    cs_test_tree_remove (f->copy);
  }

  /* @n kills at random moments of the timed move, then closing in
   * (cs-kill-plan.h). */
  cs_kill_plan_init (&plan, n);
  while (cs_kill_plan_next (&plan, (guint) g_rand_double_range (rand, 0.0, total_ms * 1.1), &delay_ms))
    {
      g_autoptr(GSubprocess) process = NULL;
      CsOracleCounts c;
      gboolean source_left;
      GPid pid;

      make_source (f, 40);
      if (!cross)
        make_partial_copy (f);
      watch (f);
      process = spawn_move (f, TRUE, max_files);
      pid = (GPid) g_ascii_strtoll (g_subprocess_get_identifier (process), NULL, 10);
      g_usleep (delay_ms * 1000);
      kill (-pid, SIGKILL);
      g_assert_true (g_subprocess_wait (process, NULL, NULL));

      c = cs_oracle_check (f->oracle, CS_ORACLE_ALLOW_TEMP);
      source_left = exists (f->root, "src");
      g_test_message ("SIGKILL after %u ms: %u COMPLETE, %u TEMP, %u ABSENT; source %s", delay_ms,
                      c.n[CS_ORACLE_COMPLETE], c.n[CS_ORACLE_TEMP], c.n[CS_ORACLE_ABSENT],
                      source_left ? "partly left" : "gone");
      cs_kill_plan_landed (&plan, delay_ms,
                           g_subprocess_get_if_signaled (process) && source_left
                           && c.n[CS_ORACLE_COMPLETE] > 0 ? CS_KILL_MID
                           : !g_subprocess_get_if_signaled (process) || !source_left
                           ? CS_KILL_TOO_LATE : CS_KILL_TOO_EARLY);

      /* The rerun moves the rest (a source gone entirely has nothing left). */
      if (source_left)
        {
          refresh_source_folders (f);
          g_assert_cmpint (run_cli_move (f, FALSE, NULL), ==, 0);
        }
      assert_all_moved (f);
      cs_test_tree_remove (f->copy);
    }
  g_test_message ("%u of %u kills landed mid-move", plan.mid, plan.k);
  g_assert_cmpuint (plan.mid, >=, 1);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  cli = g_getenv ("CS_CLI");
  shim = g_getenv ("CS_PRELOAD");

#define ADD(path, data, func) \
  g_test_add ("/move/" path, Fixture, GINT_TO_POINTER (data), fixture_setup, func, fixture_teardown)
  ADD ("same-fs/whole", 0, test_same_fs_whole);
  ADD ("same-fs/merge", 0, test_merge);
  ADD ("same-fs/dry-run", 0, test_dry_run);
  ADD ("same-fs/links-and-fifo", 0, test_links_and_fifo);
  ADD ("cross-fs/links-and-fifo", 1, test_links_and_fifo);
  ADD ("cross-fs/whole", 0, test_cross_fs);
  ADD ("cross-fs/verify", 1, test_cross_fs);
  ADD ("cross-fs/merge", 1, test_merge);
  ADD ("cross-fs/flush-fails", 0, test_flush_fails);
  ADD ("cross-fs/changed-before-removal", 0, test_changed_before_removal);
  ADD ("cross-fs/removal-refused", 0, test_removal_refused);
  ADD ("cross-fs/cancel", 0, test_cancel);
  ADD ("kill/same-fs", 5, test_kill);
  ADD ("kill/cross-fs", 5 | 0x100, test_kill);
  ADD ("slow/kill-same-fs", 20, test_kill);
  ADD ("slow/kill-cross-fs", 24 | 0x100, test_kill);
#undef ADD

  return g_test_run ();
}
