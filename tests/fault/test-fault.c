/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "copyscope-engine.h"
#include "cs-fault-table.h"
#include "cs-oracle.h"
#include "cs-test-tree.h"

/*
 * Engine-level fault injection: every filesystem call of the engine goes
 * through a CsIoTable, so a fault lands on exactly the call and the file we
 * name, in-process and deterministically. Every test ends with the oracle, and
 * the ones that leave work undone run again without faults and end with
 * "everything COMPLETE, no temporaries".
 */

typedef struct {
  char     *root;
  char     *src;          /* root/src */
  char     *out;          /* root/out, the destination folder */
  char     *copy;         /* root/out/src */
  char     *mnt;          /* mounted by the test, unmounted in teardown */
  CsOracle *oracle;
} Fixture;

/* ---- Trees ----------------------------------------------------------------- */

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
fixture_path (Fixture    *f,
              const char *rel)
{
  return g_build_filename (f->root, rel, NULL);
}

/* src: a.txt (10 kB), b.bin (3 MiB, the one faults aim at), c.dat (200 kB),
 * sub/d.txt, sub/e (empty), link -> a.txt. */
static void
make_source (Fixture *f)
{
  g_autofree char *p = NULL;

#define P(rel) (g_free (p), p = g_build_filename (f->src, rel, NULL))
  g_assert_cmpint (g_mkdir (f->src, 0755), ==, 0);
  write_pattern (P ("a.txt"), 10000, 1, 0644);
  write_pattern (P ("b.bin"), 3 * 1024 * 1024 + 17, 2, 0640);
  write_pattern (P ("c.dat"), 200000, 3, 0600);
  g_assert_cmpint (g_mkdir (P ("sub"), 0750), ==, 0);
  write_pattern (P ("sub/d.txt"), 4321, 4, 0644);
  write_pattern (P ("sub/e"), 0, 5, 0444);
  g_assert_cmpint (symlink ("a.txt", P ("link")), ==, 0);
#undef P
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *bystander = NULL;
  g_autofree char *neighbour = NULL;

  f->root = cs_test_tree_make_tmp ();
  f->src = fixture_path (f, "src");
  f->out = fixture_path (f, "out");
  f->copy = fixture_path (f, "out/src");
  make_source (f);
  g_assert_cmpint (g_mkdir (f->out, 0755), ==, 0);

  /* Outside the job: a folder next to it, and a file next to the copy. */
  bystander = fixture_path (f, "bystander");
  neighbour = fixture_path (f, "out/neighbour.txt");
  g_assert_cmpint (g_mkdir (bystander, 0755), ==, 0);
  {
    g_autofree char *inside = g_build_filename (bystander, "keep.txt", NULL);
    write_pattern (inside, 5000, 9, 0644);
  }
  write_pattern (neighbour, 777, 8, 0644);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  cs_fault_remove ();
  if (f->mnt != NULL)
    {
      if (umount (f->mnt) != 0 && umount2 (f->mnt, MNT_DETACH) != 0)
        g_printerr ("cannot unmount %s: %s\n", f->mnt, g_strerror (errno));
      g_free (f->mnt);
    }
  g_clear_pointer (&f->oracle, cs_oracle_free);
  cs_test_tree_remove (f->root);
  g_free (f->root);
  g_free (f->src);
  g_free (f->out);
  g_free (f->copy);
}

/* Snapshots everything; call after preparing the destination. */
static CsOracle *
watch (Fixture *f)
{
  g_autofree char *bystander = fixture_path (f, "bystander");
  g_autofree char *neighbour = fixture_path (f, "out/neighbour.txt");

  g_clear_pointer (&f->oracle, cs_oracle_free);
  f->oracle = cs_oracle_new ();
  cs_oracle_add_pair (f->oracle, f->src, f->copy);
  cs_oracle_add_bystander (f->oracle, bystander);
  cs_oracle_add_bystander (f->oracle, neighbour);
  return f->oracle;
}

/* A previous version of b.bin in the copy, older than the source. */
static void
make_old_copy (Fixture *f)
{
  g_autofree char *b = fixture_path (f, "out/src/b.bin");

  g_assert_cmpint (g_mkdir (f->copy, 0755), ==, 0);
  write_pattern (b, 1024 * 1024, 0, 0644);   /* older than the source */
}

/* ---- Running ---------------------------------------------------------------- */

typedef struct {
  gboolean  ok;
  GError   *error;
  CsTotals  totals;
  GPtrArray *errors;
  guint     n_failures;   /* cs_run_get_n_errors () */
  guint     n_notes;
  double    seconds;
} Outcome;

static void
outcome_clear (Outcome *o)
{
  g_clear_error (&o->error);
  g_clear_pointer (&o->errors, g_ptr_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Outcome, outcome_clear)

typedef struct {
  guint       threads;
  gboolean    durable;
  gboolean    verify;
  CsOverwrite overwrite;
  guint       retries;
} Options;

#define DEFAULTS ((Options) { 2, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 })

/* Where the jobs write their temporaries; the staged variants set it. */
static CsStaging staging = CS_STAGING_AUTO;
/* Whether big files go in chunks; the chunked variants set it (a local disk
 * otherwise copies them whole). */
static CsChunking chunking = CS_CHUNKING_AUTO;

static void
run_job (const char    *src,
         const char    *dst,
         Options        opt,
         Outcome       *o)
{
  g_autoptr(CsJob) job = cs_job_new ();
  gint64 start = g_get_monotonic_time ();
  CsRun *run;

  outcome_clear (o);
  cs_job_add_source (job, src);
  cs_job_set_destination (job, dst);
  cs_job_set_threads (job, opt.threads, NULL);
  cs_job_set_durable (job, opt.durable);
  cs_job_set_verify (job, opt.verify);
  cs_job_set_overwrite (job, opt.overwrite);
  cs_job_set_retries (job, opt.retries);
  cs_job_set_wait (job, 0.01);
  cs_job_set_interval (job, 0);
  cs_job_set_flush (job, FALSE);
  cs_job_set_staging (job, staging);
  cs_job_set_chunking (job, chunking);

  o->ok = cs_job_run_sync (job, NULL, &o->error);
  o->seconds = (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
  run = cs_job_get_run (job);
  cs_run_get_totals (run, &o->totals);
  o->errors = cs_run_dup_errors (run);
  o->n_failures = cs_run_get_n_errors (run);
  o->n_notes = cs_run_get_n_notes (run);

  g_test_message ("run: %s after %.3f s; copied %" G_GUINT64_FORMAT ", failed %" G_GUINT64_FORMAT
                  ", %u errors%s%s", o->ok ? "ok" : "failed", o->seconds,
                  o->totals.v[CS_CLASS_COPIED][CS_KIND_FILES],
                  o->totals.v[CS_CLASS_FAILED][CS_KIND_FILES], o->errors->len,
                  o->error != NULL ? ": " : "", o->error != NULL ? o->error->message : "");
  for (guint i = 0; i < o->errors->len; i++)
    {
      const CsRunError *e = g_ptr_array_index (o->errors, i);
      g_test_message ("  %s: %s: %s (errno %d, %u attempts)", e->path, e->operation, e->message,
                      e->error_code, e->attempts);
    }
}

static const CsRunError *
find_error (Outcome    *o,
            const char *name)
{
  for (guint i = 0; i < o->errors->len; i++)
    {
      const CsRunError *e = g_ptr_array_index (o->errors, i);

      if (g_str_has_suffix (e->path, name))
        return e;
    }
  return NULL;
}

/* The fixture's own job: src into out. */
static void
run (Fixture *f,
     Options  opt,
     Outcome *o)
{
  run_job (f->src, f->out, opt, o);
}

/* Without faults, again: converges, everything COMPLETE, nothing left over. */
static void
rerun_converges (Fixture *f)
{
  g_auto(Outcome) o = { 0 };

  cs_fault_remove ();
  run (f, (Options) { 2, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);
  g_assert_true (o.ok);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
}

/* The copy-range path is tried first; a rule can force the read/write path. */
static void
force_read_write (void)
{
  cs_fault_add (&(CsFaultRule) { CS_FAULT_COPY_RANGE, NULL, 1, -1, CS_FAULT_ERRNO, EXDEV });
}

/* ---- Read and write errors ------------------------------------------------- */

static void
test_read_transient (Fixture       *f,
                     gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };
  CsOracleCounts c;

  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_READ, "b.bin", 2, 1, CS_FAULT_ERRNO, EIO });
  force_read_write ();
  run (f, DEFAULTS, &o);

  g_assert_cmpuint (cs_fault_hits (0), ==, 1);
  g_assert_true (o.ok);
  g_assert_cmpuint (o.totals.v[CS_CLASS_FAILED][CS_KIND_FILES], ==, 0);
  c = cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
  g_assert_cmpuint (c.n_new_complete, ==, o.totals.v[CS_CLASS_COPIED][CS_KIND_FILES]);
}

/* Sticky: that file fails after its retries, the rest is copied, and the
 * report says which file, which call and which error. */
static void
test_read_sticky (Fixture       *f,
                  gconstpointer  data)
{
  gboolean replace = GPOINTER_TO_INT (data);
  g_auto(Outcome) o = { 0 };
  const CsRunError *e;
  CsOracleCounts c;

  if (replace)
    make_old_copy (f);
  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_READ, "b.bin", 1, -1, CS_FAULT_ERRNO, EIO });
  force_read_write ();
  run (f, (Options) { 2, FALSE, FALSE, CS_OVERWRITE_ALWAYS, 2 }, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (0), ==, 3);
  g_assert_cmpuint (o.totals.v[CS_CLASS_FAILED][CS_KIND_FILES], ==, 1);
  g_assert_cmpuint (o.errors->len, ==, 1);
  e = find_error (&o, "/b.bin");
  g_assert_nonnull (e);
  g_assert_cmpstr (e->operation, ==, "read");
  g_assert_cmpint (e->error_code, ==, EIO);
  g_assert_cmpuint (e->attempts, ==, 3);

  c = cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "b.bin"), ==, replace ? CS_ORACLE_OLD : CS_ORACLE_ABSENT);
  g_assert_cmpuint (c.n[CS_ORACLE_ABSENT] + c.n[CS_ORACLE_OLD], ==, 1);
  g_assert_cmpuint (c.n_new_complete, ==, o.totals.v[CS_CLASS_COPIED][CS_KIND_FILES]);
  rerun_converges (f);
}

/* A call that fails on the way out of the file: never published, and an old
 * file stays whole. @data: the op, ×2 + 1 when replacing. */
static void
test_output_error (Fixture       *f,
                   gconstpointer  data)
{
  CsFaultOp op = GPOINTER_TO_INT (data) / 2;
  gboolean replace = GPOINTER_TO_INT (data) % 2;
  g_auto(Outcome) o = { 0 };
  const CsRunError *e;

  if (replace)
    make_old_copy (f);
  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { op, "b.bin", 1, -1, CS_FAULT_ERRNO, EIO });
  if (op == CS_FAULT_WRITE)
    force_read_write ();
  run (f, (Options) { 2, op == CS_FAULT_FSYNC, FALSE, CS_OVERWRITE_ALWAYS, 1 }, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (0), >=, 1);
  e = find_error (&o, "/b.bin");
  g_assert_nonnull (e);
  g_assert_cmpint (e->error_code, ==, EIO);
  g_assert_cmpuint (o.totals.v[CS_CLASS_FAILED][CS_KIND_FILES], ==, 1);
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "b.bin"), ==, replace ? CS_ORACLE_OLD : CS_ORACLE_ABSENT);
  rerun_converges (f);
}

/* Short counts and EINTR are normal answers: the result must be exact. */
static void
test_short_and_eintr (Fixture       *f,
                      gconstpointer  data)
{
  CsFaultAction action = GPOINTER_TO_INT (data);
  g_auto(Outcome) o = { 0 };
  int times = action == CS_FAULT_EINTR ? 50 : -1;

  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_READ, NULL, 1, times, action });
  cs_fault_add (&(CsFaultRule) { CS_FAULT_WRITE, NULL, 1, times, action });
  if (action == CS_FAULT_EINTR)
    {
      cs_fault_add (&(CsFaultRule) { CS_FAULT_FSYNC, NULL, 1, 5, action });
      cs_fault_add (&(CsFaultRule) { CS_FAULT_COPY_RANGE, NULL, 1, 5, action });
    }
  else
    cs_fault_add (&(CsFaultRule) { CS_FAULT_COPY_RANGE, NULL, 1, -1, action });
  run (f, (Options) { 2, TRUE, TRUE, CS_OVERWRITE_NEWER, 0 }, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (0) + cs_fault_hits (1) + cs_fault_hits (2), >, 3);
  g_assert_cmpuint (o.errors->len, ==, 0);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
}

/* ---- Fast paths ------------------------------------------------------------- */

/* copy_file_range answering 0 early or "not supported": fall back to reads. */
static void
test_copy_range_fallback (Fixture       *f,
                          gconstpointer  data)
{
  int code = GPOINTER_TO_INT (data);
  g_auto(Outcome) o = { 0 };

  watch (f);
  cs_fault_install (f->out);
  if (code == 0)
    cs_fault_add (&(CsFaultRule) { CS_FAULT_COPY_RANGE, "b.bin", 1, -1, CS_FAULT_ZERO });
  else
    cs_fault_add (&(CsFaultRule) { CS_FAULT_COPY_RANGE, "b.bin", 1, -1, CS_FAULT_ERRNO, code });
  run (f, DEFAULTS, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (0), >=, 1);
  g_assert_cmpuint (cs_fault_calls (CS_FAULT_READ, "b.bin"), >=, 1);
  g_assert_cmpuint (o.errors->len, ==, 0);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
}

/* EIO from a fast path is a data error: no second method, the file fails. */
static void
test_fast_path_eio (Fixture       *f,
                    gconstpointer  data)
{
  CsFaultOp op = GPOINTER_TO_INT (data);
  g_auto(Outcome) o = { 0 };
  const CsRunError *e;

  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { op, "b.bin", 1, -1, CS_FAULT_ERRNO, EIO });
  if (op == CS_FAULT_CLONE)
    {
      /* Reflinks do not exist on most test filesystems: say yes to every other
       * file, so b.bin is sure to be tried. */
      g_autofree char *one = g_build_filename (f->src, "b.bin", NULL);
      g_autofree char *copy = g_build_filename (f->out, "b.bin", NULL);

      g_clear_pointer (&f->oracle, cs_oracle_free);
      f->oracle = cs_oracle_new ();
      cs_oracle_add_pair (f->oracle, one, copy);
      run_job (one, f->out, DEFAULTS, &o);
    }
  else
    run (f, DEFAULTS, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (0), ==, 3);
  g_assert_cmpuint (cs_fault_calls (CS_FAULT_READ, "b.bin"), ==, 0);
  if (op == CS_FAULT_CLONE)
    g_assert_cmpuint (cs_fault_calls (CS_FAULT_COPY_RANGE, "b.bin"), ==, 0);
  e = find_error (&o, "b.bin");
  g_assert_nonnull (e);
  g_assert_cmpint (e->error_code, ==, EIO);
  g_assert_cmpstr (e->operation, ==, op == CS_FAULT_CLONE ? "clone" : "copy");
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, op == CS_FAULT_CLONE ? "." : "b.bin"), ==, CS_ORACLE_ABSENT);
  if (op != CS_FAULT_CLONE)
    rerun_converges (f);
}

/* ---- Full and vanished destinations ----------------------------------------- */

/* ENOSPC while replacing: the job stops with one clear message; the old file
 * is byte for byte what it was. */
static void
test_enospc_replace (Fixture       *f,
                     gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };

  make_old_copy (f);
  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_COPY_RANGE, "b.bin", 1, -1, CS_FAULT_ERRNO, ENOSPC });
  cs_fault_add (&(CsFaultRule) { CS_FAULT_WRITE, "b.bin", 1, -1, CS_FAULT_ERRNO, ENOSPC });
  run (f, (Options) { 1, FALSE, FALSE, CS_OVERWRITE_ALWAYS, 2 }, &o);

  g_assert_false (o.ok);
  g_assert_error (o.error, CS_JOB_ERROR, CS_JOB_ERROR_DESTINATION);
  g_assert_nonnull (strstr (o.error->message, "full"));
  g_assert_cmpuint (cs_fault_hits (0) + cs_fault_hits (1), ==, 1);
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "b.bin"), ==, CS_ORACLE_OLD);
  rerun_converges (f);
}

/* Every call into the destination fails with ENOTCONN after a while, as on a
 * share whose server went away: one clear fatal error, fast. */
static void
test_destination_vanishes (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *many = g_build_filename (f->src, "many", NULL);
  g_auto(Outcome) o = { 0 };
  gint64 start;

  g_assert_cmpint (g_mkdir (many, 0755), ==, 0);
  for (guint i = 0; i < 400; i++)
    {
      g_autofree char *p = g_strdup_printf ("%s/f%03u", many, i);
      write_pattern (p, 2000 + i, i, 0644);
    }
  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_ANY_DEST, NULL, 300, -1, CS_FAULT_ERRNO, ENOTCONN });
  start = g_get_monotonic_time ();
  run (f, (Options) { 8, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);

  g_assert_cmpuint (cs_fault_hits (0), >=, 1);
  g_assert_false (o.ok);
  g_assert_error (o.error, CS_JOB_ERROR, CS_JOB_ERROR_DESTINATION);
  g_assert_nonnull (strstr (o.error->message, "no longer available"));
  g_assert_cmpint (g_get_monotonic_time () - start, <, 2 * G_USEC_PER_SEC);
  /* One message, not one per file: the fatal one plus at most a few from
   * calls already in flight. */
  g_assert_cmpuint (o.errors->len, <=, 4);
  /* Temporaries may stay: removing them failed as well. */
  cs_oracle_check (f->oracle, CS_ORACLE_ALLOW_TEMP);
  rerun_converges (f);
}

typedef struct {
  char *path;
  int   done;
} Removal;

/* Someone deletes the copy's folder while it is being written. */
static void
remove_destination (const char *name,
                    gpointer    data)
{
  Removal *removal = data;

  /* The other workers go on creating files while the tree is walked, so one
   * pass can meet a folder that is no longer empty: walk again until it is
   * gone, as a user's "rm -r" run twice would. */
  if (g_atomic_int_compare_and_exchange (&removal->done, 0, 1))
    for (guint pass = 0; pass < 100 && g_file_test (removal->path, G_FILE_TEST_EXISTS); pass++)
      cs_test_tree_remove (removal->path);
  g_assert_false (g_file_test (removal->path, G_FILE_TEST_EXISTS));
}

/* The folder being copied into is removed mid-copy: the destination is gone,
 * like a share that vanished, so one clear fatal error, not one "No such file
 * or directory" per file that was still to come. */
static void
test_destination_folder_removed (Fixture       *f,
                                 gconstpointer  data)
{
  Removal removal = { f->copy, 0 };
  g_auto(Outcome) o = { 0 };

  for (guint d = 0; d < 4; d++)
    for (guint i = 0; i < 100; i++)
      {
        g_autofree char *dir = g_strdup_printf ("%s/many%u", f->src, d);
        g_autofree char *p = g_strdup_printf ("%s/f%03u", dir, i);

        g_mkdir (dir, 0755);
        write_pattern (p, 2000 + i, i, 0644);
      }
  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_OPEN, NULL, 40, 1, CS_FAULT_HOOK, 0, remove_destination, &removal });
  run (f, (Options) { 4, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);

  g_assert_cmpuint (cs_fault_hits (0), ==, 1);
  g_assert_false (o.ok);
  g_assert_error (o.error, CS_JOB_ERROR, CS_JOB_ERROR_DESTINATION);
  g_assert_nonnull (strstr (o.error->message, "removed"));
  g_assert_cmpuint (o.errors->len, <=, 2);
  rerun_converges (f);
}

/* A single file's copy killed while it replaced an older one leaves its
 * temporary beside it; copying that file again removes it, as a folder's copy
 * does in the folders it enters. */
static void
test_single_file_leftover (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *one = g_build_filename (f->src, "a.txt", NULL);
  g_autofree char *copy = g_build_filename (f->out, "a.txt", NULL);
  g_autofree char *left = g_build_filename (f->out, ".copyscope-00c0ffee00c0ffee-0.part", NULL);
  g_autofree char *lookalike = g_build_filename (f->out, ".copyscope-notours.part", NULL);
  g_auto(Outcome) o = { 0 };

  write_pattern (left, 1 << 20, 3, 0600);
  write_pattern (lookalike, 10, 4, 0600);
  g_clear_pointer (&f->oracle, cs_oracle_free);
  f->oracle = cs_oracle_new ();
  cs_oracle_add_pair (f->oracle, one, copy);
  cs_oracle_add_bystander (f->oracle, lookalike);
  run_job (one, f->out, DEFAULTS, &o);

  g_assert_true (o.ok);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
  g_assert_false (g_file_test (left, G_FILE_TEST_EXISTS));
}

/* ---- Publishing ---------------------------------------------------------------- */

/* No RENAME_NOREPLACE (EINVAL, as on some shares): the hard-link fallback
 * publishes, and still never replaces. */
static void
test_noreplace_einval (Fixture       *f,
                       gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };

  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_RENAME_NOREPLACE, NULL, 1, -1, CS_FAULT_ERRNO, EINVAL });
  run (f, DEFAULTS, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (0), ==, 1);
  g_assert_cmpuint (cs_fault_calls (CS_FAULT_LINK, NULL), >=, 5);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
}

typedef struct {
  Fixture *f;
  char    *path;
} Plant;

/* Another program writes the final name while our copy is in flight. */
static void
plant_file (const char *name,
            gpointer    data)
{
  Plant *plant = data;

  g_assert_true (g_file_set_contents (plant->path, "theirs, not ours\n", -1, NULL));
  cs_oracle_update_before (plant->f->oracle, 0, "b.bin");
}

/* How the copy of b.bin is published while another program plants its own. */
enum {
  PUBLISH_UNNAMED,        /* an unnamed temporary, linked in (the default) */
  PUBLISH_NAMED,          /* no O_TMPFILE: a named one, RENAME_NOREPLACE */
  PUBLISH_LINK_FALLBACK,  /* no O_TMPFILE, no RENAME_NOREPLACE: a hard link */
};

static void
test_created_meanwhile (Fixture       *f,
                        gconstpointer  data)
{
  int how = GPOINTER_TO_INT (data);
  g_auto(Outcome) o = { 0 };
  g_autofree char *contents = NULL;
  Plant plant = { f, g_build_filename (f->copy, "b.bin", NULL) };
  const CsRunError *e;
  guint hook;

  watch (f);
  cs_fault_install (f->out);
  /* The first create is the first unnamed temporary: refused as by a
   * filesystem without them, the job writes named ones from then on. */
  if (how != PUBLISH_UNNAMED)
    cs_fault_add (&(CsFaultRule) { CS_FAULT_CREATE, NULL, 1, 1, CS_FAULT_ERRNO, EOPNOTSUPP });
  if (how == PUBLISH_LINK_FALLBACK)
    cs_fault_add (&(CsFaultRule) { CS_FAULT_RENAME_NOREPLACE, NULL, 1, -1, CS_FAULT_ERRNO, EINVAL });
  hook = how == PUBLISH_UNNAMED ? 0 : how == PUBLISH_NAMED ? 1 : 2;
  cs_fault_add (&(CsFaultRule) { how == PUBLISH_NAMED ? CS_FAULT_RENAME_NOREPLACE : CS_FAULT_LINK,
                                 "b.bin", 1, 1, CS_FAULT_HOOK, 0, plant_file, &plant });
  run (f, DEFAULTS, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (hook), ==, 1);
  if (how != PUBLISH_UNNAMED)
    g_assert_cmpuint (cs_fault_hits (0), ==, 1);
  g_assert_true (g_file_get_contents (plant.path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "theirs, not ours\n");
  e = find_error (&o, "b.bin");
  g_assert_nonnull (e);
  g_assert_nonnull (strstr (e->message, "Another program"));
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "b.bin"), ==, CS_ORACLE_OLD);
  g_free (plant.path);
}

/* Linking an unnamed temporary refused both ways (by descriptor and through
 * /proc), as where /proc is missing: that file and every later one are
 * written as named temporaries, and nothing is reported or lost. */
static void
test_unnamed_link_refused (Fixture       *f,
                           gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };

  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_LINK, NULL, 1, 2, CS_FAULT_ERRNO, EPERM });
  run (f, (Options) { 1, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (o.errors->len, ==, 0);
  g_assert_cmpuint (cs_fault_hits (0), ==, 2);
  g_assert_cmpuint (cs_fault_calls (CS_FAULT_RENAME_NOREPLACE, NULL), >=, 4);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
}

/* ---- Staging folders ------------------------------------------------------------ */

/* The staging folders sit in out/, which the oracle does not watch: nothing
 * of ours may be left there either. */
static void
assert_nothing_staged (Fixture *f)
{
  g_autoptr(GDir) dir = g_dir_open (f->out, 0, NULL);
  const char *name;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_prefix (name, ".copyscope-"))
      g_error ("left in the destination: %s", name);
}

/* A test run inside another that sets how the job writes. */
typedef struct {
  GTestFixtureFunc func;
  gconstpointer    data;
} WrappedTest;

/* Runs another test with every small file written in a staging folder, as on
 * a network share. */
static void
test_staged (Fixture       *f,
             gconstpointer  data)
{
  const WrappedTest *t = data;

  staging = CS_STAGING_ALWAYS;
  ((void (*) (Fixture *, gconstpointer)) t->func) (f, t->data);
  staging = CS_STAGING_AUTO;
  assert_nothing_staged (f);
}

/* Runs another test with big files copied in chunks by several workers, as on
 * a network share (a local disk copies them whole). */
static void
test_chunked (Fixture       *f,
              gconstpointer  data)
{
  const WrappedTest *t = data;

  chunking = CS_CHUNKING_ALWAYS;
  ((void (*) (Fixture *, gconstpointer)) t->func) (f, t->data);
  chunking = CS_CHUNKING_AUTO;
}

/* Registers @func to run inside @wrapper; the records live as long as the program. */
static void
add_wrapped (const char       *path,
             void            (*wrapper) (Fixture *, gconstpointer),
             GTestFixtureFunc  func,
             gconstpointer     data)
{
  static WrappedTest tests[32];
  static guint n;

  g_assert_cmpuint (n, <, G_N_ELEMENTS (tests));
  tests[n] = (WrappedTest) { func, data };
  g_test_add (path, Fixture, &tests[n++], fixture_setup, wrapper, fixture_teardown);
}

/* From a staging folder the hard link publishes first; another program's file
 * created under the final name meanwhile stays theirs. */
static void
test_staged_created_meanwhile (Fixture       *f,
                               gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };
  g_autofree char *contents = NULL;
  Plant plant = { f, g_build_filename (f->copy, "b.bin", NULL) };

  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_LINK, "b.bin", 1, 1, CS_FAULT_HOOK, 0, plant_file, &plant });
  run (f, DEFAULTS, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (0), ==, 1);
  g_assert_cmpuint (cs_fault_calls (CS_FAULT_RENAME, "b.bin"), ==, 0);
  g_assert_true (g_file_get_contents (plant.path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "theirs, not ours\n");
  g_assert_nonnull (find_error (&o, "b.bin"));
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "b.bin"), ==, CS_ORACLE_OLD);
  g_free (plant.path);
}

/* A share that refuses hard links (EPERM, as FAT-like shares do): published by
 * renameat2 (RENAME_NOREPLACE) from the staging folder instead. */
static void
test_staged_link_refused (Fixture       *f,
                          gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };

  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_LINK, NULL, 1, -1, CS_FAULT_ERRNO, EPERM });
  run (f, DEFAULTS, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (0), >=, 1);
  g_assert_cmpuint (cs_fault_calls (CS_FAULT_RENAME_NOREPLACE, NULL), >=, 4);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
}

/* A temporary nobody else can reach (unnamed, or in a staging folder) is
 * created with its final permissions, so only a mode the umask trims (or a
 * set-id bit) costs a chmod: on a share that is a round trip per file saved.
 * A named one beside the files is created 0600 and every other mode is set
 * afterwards.  With chmod refused, as on shares that keep no permissions, the
 * copy goes on and says so once, in a note: nothing failed. */
#define MODES_REFUSED 1
#define MODES_NAMED   2   /* no O_TMPFILE */

static void
test_modes (Fixture       *f,
            gconstpointer  data)
{
  static const mode_t modes[] = { 0644, 0755, 0444, 0600, 0000, 0664, 0775, 04755 };
  gboolean refused = (GPOINTER_TO_INT (data) & MODES_REFUSED) != 0;
  gboolean named = (GPOINTER_TO_INT (data) & MODES_NAMED) != 0;
  gboolean private = named && staging != CS_STAGING_ALWAYS;
  g_autofree char *src = g_build_filename (f->root, "modes", NULL);
  g_autofree char *dst = g_build_filename (f->root, "modes-copy", NULL);
  g_auto(Outcome) o = { 0 };
  guint trimmed = 0, unlike_0600 = 0;
  mode_t old_umask = umask (022);

  g_assert_cmpint (g_mkdir (src, 0755), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    {
      g_autofree char *p = g_strdup_printf ("%s/m%04o", src, modes[i]);

      write_pattern (p, 100 + i, i, modes[i]);
      trimmed += (modes[i] & (022 | 07000)) != 0;
      unlike_0600 += modes[i] != 0600;
    }

  cs_fault_install (dst);
  if (refused)
    cs_fault_add (&(CsFaultRule) { CS_FAULT_CHMOD, NULL, 1, -1, CS_FAULT_ERRNO, EPERM });
  if (named)
    cs_fault_add (&(CsFaultRule) { CS_FAULT_CREATE, NULL, 1, 1, CS_FAULT_ERRNO, EOPNOTSUPP });
  run_job (src, dst, (Options) { 1, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);
  umask (old_umask);

  g_assert_true (o.ok);
  g_assert_cmpuint (o.totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, G_N_ELEMENTS (modes));
  /* A destination that refused a chmod is not asked again; otherwise one
   * more than the files: the folder's own mode, set after its contents. */
  g_assert_cmpuint (cs_fault_calls (CS_FAULT_CHMOD, NULL), ==,
                    refused ? 1 : (private ? unlike_0600 : trimmed) + 1);
  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    {
      g_autofree char *p = g_strdup_printf ("%s/m%04o", dst, modes[i]);
      gboolean chmod_needed = private ? modes[i] != 0600 : (modes[i] & (022 | 07000)) != 0;
      struct stat st;

      g_assert_cmpint (lstat (p, &st), ==, 0);
      if (!refused || !chmod_needed)
        g_assert_cmpint (st.st_mode & 07777, ==, modes[i]);
    }
  if (refused)
    {
      CsRunError *e;
      g_autofree char *count = g_strdup_printf (": %u files and 1 folder have other permissions",
                                                private ? unlike_0600 : trimmed);

      /* Once, with what was lost: the files that needed a chmod, and the folder.
       * A note, not a failure: the data is all there, and a retry would
       * lose the same. */
      g_assert_cmpuint (o.errors->len, ==, 1);
      e = g_ptr_array_index (o.errors, 0);
      g_assert_cmpstr (e->operation, ==, "chmod");
      g_assert_nonnull (strstr (e->message, count));
      g_assert_true (e->note);
      g_assert_cmpuint (e->attempts, ==, 0);
      g_assert_cmpuint (o.n_failures, ==, 0);
      g_assert_cmpuint (o.n_notes, ==, 1);
      g_assert_cmpuint (o.totals.v[CS_CLASS_FAILED][CS_KIND_FILES], ==, 0);

      /* A rerun writes nothing, so nothing was lost in it and nothing is said,
       * though the folder's mode is set again (and refused) after the scan.
       * (Into a folder holding the copy under the source's name, so that the
       * rerun lands on it.) */
      {
        g_autofree char *parent = g_build_filename (f->root, "rerun", NULL);
        g_autofree char *again = g_build_filename (parent, "modes", NULL);

        g_assert_cmpint (g_mkdir (parent, 0755), ==, 0);
        g_assert_cmpint (g_rename (dst, again), ==, 0);
        cs_fault_install (parent);
        cs_fault_add (&(CsFaultRule) { CS_FAULT_CHMOD, NULL, 1, -1, CS_FAULT_ERRNO, EPERM });
        run_job (src, parent, (Options) { 1, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);
        g_assert_cmpuint (cs_fault_calls (CS_FAULT_CHMOD, NULL), ==, 1);
      }
      g_assert_true (o.ok);
      g_assert_cmpuint (o.totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, 0);
      g_assert_cmpuint (o.totals.v[CS_CLASS_SKIPPED][CS_KIND_FILES], ==, G_N_ELEMENTS (modes));
      g_assert_cmpuint (o.errors->len, ==, 0);
    }
  else
    g_assert_cmpuint (o.errors->len, ==, 0);
}

/* A destination that stamps the time of the close on a file it was written
 * to (Samba behind GVfs): the first file's time is read back, found lost and
 * set again on its published name; every later file gets its time there, and
 * once that was read back it is trusted. Every file keeps its source's time,
 * nothing is reported, and a rerun skips every file silently. With @data,
 * files written just now, whose times prove nothing: each one is read back
 * and set again where it was lost. */
static void
test_times_stamped_at_close (Fixture       *f,
                             gconstpointer  data)
{
  gboolean fresh = GPOINTER_TO_INT (data);
  g_autofree char *src = g_build_filename (f->root, "times", NULL);
  g_autofree char *parent = g_build_filename (f->root, "times-out", NULL);
  g_auto(Outcome) o = { 0 };

  g_assert_cmpint (g_mkdir (src, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (parent, 0755), ==, 0);
  for (guint i = 0; i < 12; i++)
    {
      g_autofree char *p = g_strdup_printf ("%s/t%02u", src, i);

      /* Well before the run: a copy showing this time cannot have been
       * stamped with the clock. */
      struct timespec old[2] = { { 1500000000 + i, 0 }, { 1500000000 + i, 123456789 } };

      write_pattern (p, 1000 + i, i, 0644);
      if (!fresh)
        g_assert_cmpint (utimensat (AT_FDCWD, p, old, 0), ==, 0);
    }

  for (guint run = 0; run < 2; run++)
    {
      cs_fault_install (parent);
      /* Named temporaries, as on a share without O_TMPFILE. */
      cs_fault_add (&(CsFaultRule) { CS_FAULT_CREATE, NULL, 1, 1, CS_FAULT_ERRNO, EOPNOTSUPP });
      cs_fault_add (&(CsFaultRule) { CS_FAULT_CLOSE_STAMP, NULL, 1, -1, CS_FAULT_ERRNO, 0 });
      run_job (src, parent, (Options) { 1, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);

      g_assert_true (o.ok);
      g_assert_cmpuint (o.errors->len, ==, 0);
      g_assert_cmpuint (o.totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, run == 0 ? 12 : 0);
      g_assert_cmpuint (o.totals.v[CS_CLASS_SKIPPED][CS_KIND_FILES], ==, run == 0 ? 0 : 12);
      if (run == 0)
        g_assert_cmpuint (cs_fault_hits (1), >=, 12);
      for (guint i = 0; i < 12; i++)
        {
          g_autofree char *a = g_strdup_printf ("%s/t%02u", src, i);
          g_autofree char *b = g_strdup_printf ("%s/times/t%02u", parent, i);
          struct stat sa, sb;

          g_assert_cmpint (lstat (a, &sa), ==, 0);
          g_assert_cmpint (lstat (b, &sb), ==, 0);
          g_assert_cmpint (sb.st_mtim.tv_sec, ==, sa.st_mtim.tv_sec);
          g_assert_cmpint (sb.st_mtim.tv_nsec, ==, sa.st_mtim.tv_nsec);
        }
    }
}

static gboolean
same_bytes (const char *a,
            const char *b)
{
  g_autofree char *x = NULL;
  g_autofree char *y = NULL;
  gsize nx = 0, ny = 0;

  g_assert_true (g_file_get_contents (a, &x, &nx, NULL));
  g_assert_true (g_file_get_contents (b, &y, &ny, NULL));
  return nx == ny && memcmp (x, y, nx) == 0;
}

/* A source replaced by a file with an older modification time (a version
 * restored from a backup) changed after its copy was written: it is copied
 * again, where a destination file written after its source changed is kept
 * as newer. */
static void
test_older_replacement (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *a = g_build_filename (f->src, "a.txt", NULL);
  g_autofree char *copy_a = g_build_filename (f->copy, "a.txt", NULL);
  g_autofree char *c = g_build_filename (f->src, "c.dat", NULL);
  g_autofree char *copy_c = g_build_filename (f->copy, "c.dat", NULL);
  g_autofree char *restored = g_build_filename (f->root, "restored", NULL);
  g_auto(Outcome) o = { 0 };
  struct timespec older[2] = { { 1500000000, 0 }, { 1500000000, 0 } };
  struct timespec newest[2] = { { 1900000000, 0 }, { 1900000000, 0 } };
  struct stat st;

  run_job (f->src, f->out, DEFAULTS, &o);
  g_assert_true (o.ok);

  /* a.txt: replaced at the source by older-dated bytes of the same size,
   * later than the copy by more than the kernel's coarse clock tick. */
  g_usleep (50 * 1000);
  g_assert_cmpint (lstat (a, &st), ==, 0);
  write_pattern (restored, (gsize) st.st_size, 77, 0644);
  g_assert_cmpint (utimensat (AT_FDCWD, restored, older, 0), ==, 0);
  g_assert_cmpint (g_rename (restored, a), ==, 0);
  /* c.dat: the copy was edited after the source, and is newer. */
  sleep (1);
  write_pattern (copy_c, 200000, 78, 0600);
  g_assert_cmpint (utimensat (AT_FDCWD, copy_c, newest, 0), ==, 0);

  run_job (f->src, f->out, DEFAULTS, &o);
  g_assert_true (o.ok);
  g_assert_true (same_bytes (a, copy_a));
  g_assert_cmpuint (o.totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, 1);
  g_assert_false (same_bytes (c, copy_c));
  g_assert_cmpint (lstat (copy_c, &st), ==, 0);
  g_assert_cmpint (st.st_mtim.tv_sec, ==, newest[1].tv_sec);
}

/* A destination without extended attributes and without symbolic links is
 * asked once for each and never again in the run; what it did not keep is
 * said once per kind, with how many files and links lost it, and a rerun
 * that copies no file says nothing about attributes. */
static void
test_metadata_refused (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *src = g_build_filename (f->root, "meta", NULL);
  g_autofree char *parent = g_build_filename (f->root, "meta-out", NULL);
  g_auto(Outcome) o = { 0 };
  const char *xattr_msg = NULL, *link_msg = NULL;

  g_assert_cmpint (g_mkdir (src, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (parent, 0755), ==, 0);
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *p = g_strdup_printf ("%s/x%u", src, i);

      write_pattern (p, 1000 + i, i, 0644);
      if (setxattr (p, "user.copyscope-test", "v", 1, 0) != 0)
        {
          g_test_skip ("no user extended attributes where the tests run");
          return;
        }
    }
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *p = g_strdup_printf ("%s/link%u", src, i);

      g_assert_cmpint (symlink ("x0", p), ==, 0);
    }

  for (guint run = 0; run < 2; run++)
    {
      cs_fault_install (parent);
      cs_fault_add (&(CsFaultRule) { CS_FAULT_SETXATTR, NULL, 1, -1, CS_FAULT_ERRNO, ENOTSUP });
      cs_fault_add (&(CsFaultRule) { CS_FAULT_SYMLINK, NULL, 1, -1, CS_FAULT_ERRNO, EPERM });
      run_job (src, parent, DEFAULTS, &o);

      g_assert_cmpuint (o.totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, run == 0 ? 3 : 0);
      g_assert_cmpuint (o.totals.v[CS_CLASS_FAILED][CS_KIND_FILES], ==, 2);
      /* Asked once, then remembered; workers already past the question
       * when the first refusal came may each have asked too. */
      if (run == 0)
        {
          g_assert_cmpuint (cs_fault_calls (CS_FAULT_SETXATTR, NULL), >=, 1);
          g_assert_cmpuint (cs_fault_calls (CS_FAULT_SETXATTR, NULL), <=, 3);
        }
      else
        g_assert_cmpuint (cs_fault_calls (CS_FAULT_SETXATTR, NULL), ==, 0);
      /* The same for the two links, one per worker (seen at load 30). */
      g_assert_cmpuint (cs_fault_calls (CS_FAULT_SYMLINK, NULL), >=, 1);
      g_assert_cmpuint (cs_fault_calls (CS_FAULT_SYMLINK, NULL), <=, 2);
      xattr_msg = link_msg = NULL;
      for (guint i = 0; i < o.errors->len; i++)
        {
          CsRunError *e = g_ptr_array_index (o.errors, i);

          if (g_str_equal (e->operation, "set attributes"))
            xattr_msg = e->message;
          else if (g_str_equal (e->operation, "create link"))
            link_msg = e->message;
        }
      g_assert_cmpuint (o.errors->len, ==, run == 0 ? 2 : 1);
      g_assert_nonnull (link_msg);
      g_assert_nonnull (strstr (link_msg, "cannot hold symbolic links: 2 links were not copied"));
      if (run == 0)
        {
          g_assert_nonnull (xattr_msg);
          g_assert_nonnull (strstr (xattr_msg, "does not keep extended attributes: 3 files"));
        }
      else
        g_assert_null (xattr_msg);
    }
}

/* One item that lost something is spoken of in the singular: "1 link was
 * not copied", not "1 link were". */
static void
test_metadata_refused_one (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *src = g_build_filename (f->root, "meta", NULL);
  g_autofree char *parent = g_build_filename (f->root, "meta-out", NULL);
  g_autofree char *link = g_build_filename (src, "link", NULL);
  g_auto(Outcome) o = { 0 };
  CsRunError *e;

  g_assert_cmpint (g_mkdir (src, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (parent, 0755), ==, 0);
  g_assert_cmpint (symlink ("x0", link), ==, 0);
  cs_fault_install (parent);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_SYMLINK, NULL, 1, -1, CS_FAULT_ERRNO, EPERM });
  run_job (src, parent, DEFAULTS, &o);

  g_assert_cmpuint (o.errors->len, ==, 1);
  e = g_ptr_array_index (o.errors, 0);
  g_assert_cmpstr (e->operation, ==, "create link");
  g_assert_nonnull (strstr (e->message, "cannot hold symbolic links: 1 link was not copied"));
}

/* A folder on another filesystem than the staging folders (a share mounted
 * inside the destination) answers EXDEV: its files are written beside them,
 * the one that found out again, and nothing is reported. */
static void
test_staged_exdev (Fixture       *f,
                   gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };
  guint files = 5;     /* a.txt, b.bin, c.dat, sub/d.txt, sub/e */

  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_LINK, NULL, 1, -1, CS_FAULT_ERRNO, EXDEV });
  run (f, DEFAULTS, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (o.errors->len, ==, 0);
  g_assert_cmpuint (cs_fault_hits (0), >=, 1);
  g_assert_cmpuint (cs_fault_hits (0), <=, files);
  /* Beside: one rename per file (the symlink's too), none from a staging folder. */
  g_assert_cmpuint (cs_fault_calls (CS_FAULT_RENAME, NULL), ==, files + 1);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
}

/* A run killed while publishing a link left its temporary symlink: the next
 * run removes it like a temporary file. */
static void
test_leftover_symlink_temp (Fixture       *f,
                            gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };
  g_autofree char *temp = fixture_path (f, "out/src/.copyscope-0123456789abcdef-9.part");

  g_assert_cmpint (g_mkdir (f->copy, 0755), ==, 0);
  g_assert_cmpint (symlink ("a.txt", temp), ==, 0);
  watch (f);
  run (f, DEFAULTS, &o);

  g_assert_true (o.ok);
  g_assert_cmpint (access (temp, F_OK), !=, 0);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
}

typedef struct {
  Fixture *f;
  Outcome *second;
} Overlap;

/* While the first copy holds its finished temporary, a second copy of the
 * same tree into the same place runs from start to end. */
static void
run_second_copy (const char *name,
                 gpointer    data)
{
  Overlap *overlap = data;

  run (overlap->f, DEFAULTS, overlap->second);
}

/* Two copies into one destination at once: the second must not take the
 * first one's temporary for a killed run's leftover and remove it (the first
 * would then fail to publish), and both end with the source's tree. */
static void
test_live_run_temporary_kept (Fixture       *f,
                              gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };
  g_auto(Outcome) second = { 0 };
  Overlap overlap = { f, &second };

  make_old_copy (f);
  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_RENAME_REPLACE, "b.bin", 1, 1, CS_FAULT_HOOK, 0, run_second_copy, &overlap });
  run (f, DEFAULTS, &o);

  g_assert_cmpuint (cs_fault_hits (0), ==, 1);
  g_assert_true (second.ok);
  g_assert_cmpuint (second.errors->len, ==, 0);
  g_assert_true (o.ok);
  g_assert_cmpuint (o.errors->len, ==, 0);
  g_assert_cmpuint (o.totals.v[CS_CLASS_FAILED][CS_KIND_FILES], ==, 0);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
}

/* A run killed earlier left staging folders in the destination: ours with our
 * temporaries inside go, one with something else inside stays, untouched.
 * Also when this run writes beside each file: a run killed while it probed
 * the destination's names leaves an empty folder of that form, on any disk. */
static void
test_staged_leftovers (Fixture       *f,
                       gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };
  g_autofree char *ours = fixture_path (f, "out/.copyscope-0123456789abcdef-3.stage");
  g_autofree char *temp = g_build_filename (ours, ".copyscope-0123456789abcdef-17.part", NULL);
  g_autofree char *other = fixture_path (f, "out/.copyscope-0123456789abcdef-4.stage");
  g_autofree char *theirs = g_build_filename (other, "notes.txt", NULL);

  g_assert_cmpint (g_mkdir (ours, 0700), ==, 0);
  write_pattern (temp, 5000, 11, 0600);
  g_assert_cmpint (g_mkdir (other, 0700), ==, 0);
  write_pattern (theirs, 100, 12, 0644);

  watch (f);
  cs_oracle_add_bystander (f->oracle, other);
  run (f, DEFAULTS, &o);

  g_assert_true (o.ok);
  g_assert_false (g_file_test (ours, G_FILE_TEST_EXISTS));
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
  g_assert_true (g_file_test (theirs, G_FILE_TEST_IS_REGULAR));
  cs_test_tree_remove (other);
}

/* Shares with neither RENAME_NOREPLACE nor hard links (@data: what linkat
 * answers there). Another program creates the final name just after the
 * engine made sure it was free and just before the rename that may replace:
 * whatever it created must survive, or it must have been refused the name. */
typedef struct {
  Fixture  *f;
  char     *path;
  gboolean  created;
  int       refused;    /* errno of their create, 0 if it worked */
} Rival;

static void
rival_creates (const char *name,
               gpointer    data)
{
  Rival *rival = data;
  int fd = open (rival->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);

  if (fd < 0)
    {
      rival->refused = errno;
      return;
    }
  g_assert_cmpint (write (fd, "theirs, not ours\n", 17), ==, 17);
  close (fd);
  rival->created = TRUE;
  cs_oracle_update_before (rival->f->oracle, 0, "b.bin");
}

static void
no_noreplace_no_link (int link_error)
{
  cs_fault_add (&(CsFaultRule) { CS_FAULT_RENAME_NOREPLACE, NULL, 1, -1, CS_FAULT_ERRNO, EINVAL });
  cs_fault_add (&(CsFaultRule) { CS_FAULT_LINK, NULL, 1, -1, CS_FAULT_ERRNO, link_error });
}

static void
test_created_after_check (Fixture       *f,
                          gconstpointer  data)
{
  Rival rival = { f, g_build_filename (f->copy, "b.bin", NULL), FALSE, 0 };
  g_auto(Outcome) o = { 0 };
  g_autofree char *contents = NULL;
  gsize length = 0;

  watch (f);
  cs_fault_install (f->out);
  no_noreplace_no_link (GPOINTER_TO_INT (data));
  cs_fault_add (&(CsFaultRule) { CS_FAULT_RENAME_REPLACE, "b.bin", 1, 1, CS_FAULT_HOOK, 0, rival_creates, &rival });
  run (f, DEFAULTS, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (2), ==, 1);
  g_assert_true (g_file_get_contents (rival.path, &contents, &length, NULL));
  if (rival.created)
    {
      const CsRunError *e = find_error (&o, "b.bin");

      g_assert_cmpuint (length, ==, 17);
      g_assert_cmpstr (contents, ==, "theirs, not ours\n");
      g_assert_nonnull (e);
      g_assert_nonnull (strstr (e->message, "Another program"));
      cs_oracle_check (f->oracle, CS_ORACLE_NONE);
      g_assert_cmpint (cs_oracle_state (f->oracle, 0, "b.bin"), ==, CS_ORACLE_OLD);
    }
  else
    {
      /* The name was already claimed: they were told it exists, and nothing of
       * theirs was there to lose. */
      g_assert_cmpint (rival.refused, ==, EEXIST);
      g_assert_cmpuint (o.errors->len, ==, 0);
      cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
    }
  g_free (rival.path);
}

typedef struct {
  char *from;
  char *to;
} Freeze;

/* What a SIGKILL at this instant leaves on disk: the destination as it is now,
 * copied aside while the only worker waits in this hook. */
static void
freeze_destination (const char *name,
                    gpointer    data)
{
  Freeze *freeze = data;
  const char *argv[] = { "cp", "-a", "--", freeze->from, freeze->to, NULL };
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                               NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
}

/* Killed between claiming the final name and renaming over the claim: the
 * claim is classed as ours, and a rerun (on a share with the fast path or
 * without it) replaces it with the file and leaves nothing behind. */
static void
test_killed_while_claimed (Fixture       *f,
                           gconstpointer  data)
{
  gboolean rerun_without_link = GPOINTER_TO_INT (data);
  g_autofree char *killed = fixture_path (f, "killed");
  Freeze freeze = { f->copy, g_build_filename (killed, "src", NULL) };
  g_autoptr(CsOracle) after_kill = cs_oracle_new ();
  g_auto(Outcome) o = { 0 };
  g_auto(Outcome) again = { 0 };
  CsOracleCounts c;

  g_assert_cmpint (g_mkdir (killed, 0755), ==, 0);
  cs_oracle_add_pair (after_kill, f->src, freeze.to);
  watch (f);
  cs_fault_install (f->out);
  no_noreplace_no_link (EPERM);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_RENAME_REPLACE, "b.bin", 1, 1, CS_FAULT_HOOK, 0, freeze_destination, &freeze });
  run (f, (Options) { 1, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (2), ==, 1);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);

  c = cs_oracle_check (after_kill, CS_ORACLE_ALLOW_TEMP);
  g_assert_cmpint (cs_oracle_state (after_kill, 0, "b.bin"), ==, CS_ORACLE_TEMP);
  g_assert_cmpuint (c.n[CS_ORACLE_TEMP], >=, 2);   /* the claim and the finished temporary */

  cs_fault_remove ();
  if (rerun_without_link)
    {
      cs_fault_install (killed);
      no_noreplace_no_link (EPERM);
    }
  run_job (f->src, killed, DEFAULTS, &again);
  g_assert_true (again.ok);
  g_assert_cmpuint (again.errors->len, ==, 0);
  cs_oracle_check (after_kill, CS_ORACLE_ALL_COMPLETE);
  g_free (freeze.to);
}

/* The server goes away while a name is claimed: from the claim's check on,
 * every call into the destination fails with ENOTCONN. */
static void
server_goes_after_claim (const char *name,
                         gpointer    data)
{
  /* After the claim's text: its fstat passes, the check of the name fails. */
  cs_fault_add (&(CsFaultRule) { CS_FAULT_ANY_DEST, NULL, 2, -1, CS_FAULT_ERRNO, ENOTCONN });
}

/* A share that vanishes between the claim and its check is a share gone (one
 * fatal error), not a file "another program created": the check of the claim
 * could not be made, which says nothing about who holds the name. Seen on the
 * lab Samba, its server killed mid-copy (test-smb-native.sh, 1 run in 4 under
 * load). */
static void
test_gone_while_claimed (Fixture       *f,
                         gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };

  watch (f);
  cs_fault_install (f->out);
  no_noreplace_no_link (EPERM);
  /* b.bin's data goes by copy_file_range: its first write is the claim's text. */
  cs_fault_add (&(CsFaultRule) { CS_FAULT_WRITE, "b.bin", 1, 1, CS_FAULT_HOOK, 0, server_goes_after_claim, NULL });
  run (f, (Options) { 1, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);

  g_assert_cmpuint (cs_fault_hits (2), ==, 1);
  g_assert_cmpuint (cs_fault_hits (3), >=, 1);
  g_assert_false (o.ok);
  g_assert_error (o.error, CS_JOB_ERROR, CS_JOB_ERROR_DESTINATION);
  for (guint i = 0; i < o.errors->len; i++)
    {
      const CsRunError *e = g_ptr_array_index (o.errors, i);

      g_assert_null (strstr (e->message, "Another program"));
    }
  cs_oracle_check (f->oracle, CS_ORACLE_ALLOW_TEMP | CS_ORACLE_ALLOW_CLAIM);
  rerun_converges (f);
}

/* Killed between creating the claim and writing its text, as a SIGKILL on a
 * FAT share without RENAME_NOREPLACE or hard links can land: the final name
 * holds an empty file. The rerun must know it for its own claim and replace
 * it with the file; before, under the default policy, the empty file was
 * "newer" than the source and was skipped for ever. */
static void
test_killed_while_claiming (Fixture       *f,
                            gconstpointer  data)
{
  gboolean rerun_without_link = GPOINTER_TO_INT (data);
  g_autofree char *killed = fixture_path (f, "killed");
  g_autofree char *claim = NULL;
  Freeze freeze = { f->copy, g_build_filename (killed, "src", NULL) };
  g_autoptr(CsOracle) after_kill = cs_oracle_new ();
  g_auto(Outcome) o = { 0 };
  g_auto(Outcome) again = { 0 };
  struct stat st;

  g_assert_cmpint (g_mkdir (killed, 0755), ==, 0);
  cs_oracle_add_pair (after_kill, f->src, freeze.to);
  watch (f);
  cs_fault_install (f->out);
  no_noreplace_no_link (EPERM);
  /* b.bin's data goes by copy_file_range: its first write is the claim's text. */
  cs_fault_add (&(CsFaultRule) { CS_FAULT_WRITE, "b.bin", 1, 1, CS_FAULT_HOOK, 0, freeze_destination, &freeze });
  run (f, (Options) { 1, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (2), ==, 1);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);

  claim = g_build_filename (freeze.to, "b.bin", NULL);
  g_assert_cmpint (lstat (claim, &st), ==, 0);
  g_assert_cmpint (st.st_size, ==, 0);
  cs_oracle_check (after_kill, CS_ORACLE_ALLOW_TEMP | CS_ORACLE_ALLOW_CLAIM);

  cs_fault_remove ();
  if (rerun_without_link)
    {
      cs_fault_install (killed);
      no_noreplace_no_link (EPERM);
    }
  run_job (f->src, killed, DEFAULTS, &again);
  g_assert_true (again.ok);
  g_assert_cmpuint (again.errors->len, ==, 0);
  cs_oracle_check (after_kill, CS_ORACLE_ALL_COMPLETE);
  g_assert_cmpuint (cs_test_tree_find_temporaries (killed), ==, 0);
  g_free (freeze.to);
}

/* Once the job knows it publishes by a claim, a new file's temporary is
 * created under the name that says which name it will claim, and is renamed
 * once, over its claim, not twice: on SMB each rename is three requests. Of
 * the five files here only the first is written under another name, and the
 * symbolic link has temporaries of its own. */
static void
test_claimed_renamed_once (Fixture       *f,
                           gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };
  guint renames;

  watch (f);
  cs_fault_install (f->out);
  no_noreplace_no_link (EPERM);
  run (f, (Options) { 1, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (o.errors->len, ==, 0);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
  g_assert_cmpuint (cs_test_tree_find_temporaries (f->copy), ==, 0);
  renames = cs_fault_calls (CS_FAULT_RENAME_REPLACE, NULL);
  g_test_message ("%u renames for 5 files and a link", renames);
  g_assert_cmpuint (renames, <=, 5 + 1 + 2);
}

/* An empty file under the final name that no claim of ours explains is
 * someone's file, and the policy decides: here it is newer than the source
 * and stays. */
static void
test_empty_file_not_a_claim (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->copy, "b.bin", NULL);
  g_auto(Outcome) o = { 0 };

  g_assert_cmpint (g_mkdir (f->copy, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, "", 0, NULL));
  watch (f);
  cs_fault_install (f->out);
  no_noreplace_no_link (EPERM);
  run (f, DEFAULTS, &o);

  g_assert_true (o.ok);
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "b.bin"), ==, CS_ORACLE_OLD);
  g_assert_nonnull (find_error (&o, "b.bin"));
}

/* A file that only looks like a claim (its size, its owner, the start of the
 * text) is someone's file: with "never overwrite" it stays as it was. */
static void
test_claim_lookalike_kept (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->copy, "a.txt", NULL);
  g_auto(Outcome) o = { 0 };

  g_assert_cmpint (g_mkdir (f->copy, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, "copyscope placeholder not-ours-at-all!\n", -1, NULL));
  watch (f);
  run (f, (Options) { 2, FALSE, FALSE, CS_OVERWRITE_NEVER, 2 }, &o);

  g_assert_true (o.ok);
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "a.txt"), ==, CS_ORACLE_OLD);
  g_assert_cmpuint (o.totals.v[CS_CLASS_SKIPPED][CS_KIND_FILES], ==, 1);
}

/* ---- The source changing underneath ------------------------------------------ */

typedef struct {
  Fixture *f;
  int      how;
} Change;

enum { GROW, SHRINK, REWRITE, REWRITE_KEEP_TIME };

static void
change_source (const char *name,
               gpointer    data)
{
  Change *change = data;
  g_autofree char *path = g_build_filename (change->f->src, "b.bin", NULL);
  int fd = open (path, O_WRONLY | O_CLOEXEC);
  struct stat before;

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (fstat (fd, &before), ==, 0);
  switch (change->how)
    {
    case GROW:
      g_assert_cmpint (pwrite (fd, "more", 4, 12 << 20), ==, 4);
      break;
    case SHRINK:
      g_assert_cmpint (ftruncate (fd, 1 << 20), ==, 0);
      break;
    case REWRITE_KEEP_TIME:
      {
        /* What a program that restores times does (tar, rsync, an editor's
         * backup): size, mtime and inode as they were; only ctime moves. */
        struct timespec times[2] = { before.st_atim, before.st_mtim };

        g_assert_cmpint (pwrite (fd, "XXXX", 4, 100), ==, 4);
        g_assert_cmpint (futimens (fd, times), ==, 0);
      }
      break;
    case REWRITE:
    default:
      g_assert_cmpint (pwrite (fd, "XXXX", 4, 100), ==, 4);
      break;
    }
  close (fd);
  cs_oracle_update_source (change->f->oracle, 0, "b.bin");
}

/* Growing, shrinking or rewritten while copied: retried, or reported — never a
 * silent mix under the final name. */
static void
test_source_changes (Fixture       *f,
                     gconstpointer  data)
{
  Change change = { f, GPOINTER_TO_INT (data) };
  g_autofree char *big = g_build_filename (f->src, "b.bin", NULL);
  g_auto(Outcome) o = { 0 };
  CsOracleState state;

  /* Over one request's worth, so the change can land between two of them. */
  write_pattern (big, 12 * 1024 * 1024, 2, 0640);
  watch (f);
  cs_fault_install (f->out);
  if (change.how == GROW)
    cs_fault_add (&(CsFaultRule) { CS_FAULT_FSTAT, "b.bin", 1, 1, CS_FAULT_HOOK, 0, change_source, &change });
  else
    cs_fault_add (&(CsFaultRule) { CS_FAULT_COPY_RANGE, "b.bin", 2, 1, CS_FAULT_HOOK, 0, change_source, &change });
  run (f, DEFAULTS, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (0), ==, 1);
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  state = cs_oracle_state (f->oracle, 0, "b.bin");
  g_test_message ("b.bin after the change: %s", cs_oracle_state_name (state));
  if (state == CS_ORACLE_ABSENT)
    {
      const CsRunError *e = find_error (&o, "b.bin");

      g_assert_nonnull (e);
      g_assert_nonnull (strstr (e->message, "changed"));
    }
  else
    g_assert_cmpint (state, ==, CS_ORACLE_COMPLETE);
  rerun_converges (f);
}

/* ---- Opening and creating ---------------------------------------------------- */

static void
test_open_create_errors (Fixture       *f,
                         gconstpointer  data)
{
  CsFaultOp op = GPOINTER_TO_INT (data);
  g_auto(Outcome) o = { 0 };
  const CsRunError *e;

  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { op, "b.bin", 1, -1, CS_FAULT_ERRNO, op == CS_FAULT_OPEN ? EACCES : EIO });
  run (f, DEFAULTS, &o);

  g_assert_true (o.ok);
  e = find_error (&o, "b.bin");
  g_assert_nonnull (e);
  g_assert_cmpstr (e->operation, ==, op == CS_FAULT_OPEN ? "open" : "create");
  /* Permission errors are not retried; I/O errors are. */
  g_assert_cmpuint (e->attempts, ==, op == CS_FAULT_OPEN ? 1 : 3);
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "b.bin"), ==, CS_ORACLE_ABSENT);
  rerun_converges (f);
}

/* ---- Big files, copied in chunks by several workers -------------------------- */

static void
make_big_sparse (const char *path)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  g_autofree char *block = g_malloc (1 << 20);
  struct timespec ts[2] = { { 1500000000, 1 }, { 1500000000, 1 } };

  g_assert_cmpint (fd, >=, 0);
  for (guint i = 0; i < 100; i += 9)
    {
      memset (block, 'A' + (int) i % 26, 1 << 20);
      g_assert_cmpint (pwrite (fd, block, 1 << 20, (off_t) i << 20), ==, 1 << 20);
    }
  g_assert_cmpint (ftruncate (fd, 100 << 20), ==, 0);
  g_assert_cmpint (futimens (fd, ts), ==, 0);
  close (fd);
}

/* A sparse 100 MiB "big" in the source, watched, and @rule armed. */
static void
big_file_with_fault (Fixture     *f,
                     CsFaultRule  rule)
{
  g_autofree char *big = g_build_filename (f->src, "big", NULL);

  make_big_sparse (big);
  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&rule);
}

static void
test_big_file_read_error (Fixture       *f,
                          gconstpointer  data)
{
  int times = GPOINTER_TO_INT (data);
  g_auto(Outcome) o = { 0 };

  big_file_with_fault (f, (CsFaultRule) { CS_FAULT_READ, "big", 3, times, CS_FAULT_ERRNO, EIO });
  force_read_write ();
  run (f, (Options) { 4, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (0), >=, 1);
  cs_oracle_check (f->oracle, times > 0 ? CS_ORACLE_ALL_COMPLETE : CS_ORACLE_NONE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "big"), ==, times > 0 ? CS_ORACLE_COMPLETE : CS_ORACLE_ABSENT);
  if (times < 0)
    {
      g_assert_nonnull (find_error (&o, "/big"));
      rerun_converges (f);
    }
}

/* The destination fills up under a big file: the job stops with one clear
 * error that names the file, and the file is counted as failed. In chunks it
 * used to vanish from the record: no error, counted nowhere. */
static void
test_big_file_full (Fixture       *f,
                    gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };
  const CsRunError *e;

  big_file_with_fault (f, (CsFaultRule) { CS_FAULT_COPY_RANGE, "big", 2, -1, CS_FAULT_ERRNO, ENOSPC });
  cs_fault_add (&(CsFaultRule) { CS_FAULT_WRITE, "big", 2, -1, CS_FAULT_ERRNO, ENOSPC });
  run (f, (Options) { 4, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);

  g_assert_false (o.ok);
  g_assert_error (o.error, CS_JOB_ERROR, CS_JOB_ERROR_DESTINATION);
  g_assert_nonnull (strstr (o.error->message, "full"));
  e = find_error (&o, "/big");
  g_assert_nonnull (e);
  g_assert_nonnull (strstr (e->message, "full"));
  g_assert_cmpuint (o.errors->len, <=, 2);
  g_assert_cmpuint (o.totals.v[CS_CLASS_FAILED][CS_KIND_FILES], ==, 1);
  cs_oracle_check (f->oracle, CS_ORACLE_ALLOW_TEMP);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "big"), ==, CS_ORACLE_ABSENT);
  rerun_converges (f);
}

/* On a local disk a big file is copied whole, its source opened once; in
 * chunks every chunk opens it again (here the second open fails once). */
static void
test_big_file_opens (Fixture       *f,
                     gconstpointer  data)
{
  gboolean chunks = chunking == CS_CHUNKING_ALWAYS;
  g_auto(Outcome) o = { 0 };

  big_file_with_fault (f, (CsFaultRule) { CS_FAULT_OPEN, "big", 2, 1, CS_FAULT_ERRNO, EIO });
  run (f, (Options) { 4, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (0), ==, chunks ? 1 : 0);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "big"), ==, CS_ORACLE_COMPLETE);
}

/* ---- Load ---------------------------------------------------------------------- */

/* 128 workers give the same tree as one, on many small files and on a few big
 * ones. */
static void
test_threads_agree (Fixture       *f,
                    gconstpointer  data)
{
  gboolean big = GPOINTER_TO_INT (data);
  g_autofree char *many = g_build_filename (f->root, "many", NULL);
  g_autofree char *d1 = g_build_filename (f->root, "d1", NULL);
  g_autofree char *d128 = g_build_filename (f->root, "d128", NULL);
  g_autoptr(CsOracle) oracle = cs_oracle_new ();
  g_auto(Outcome) o1 = { 0 };
  g_auto(Outcome) o128 = { 0 };
  CsOracleCounts c;

  g_assert_cmpint (g_mkdir (many, 0755), ==, 0);
  if (big)
    {
      for (guint i = 0; i < 3; i++)
        {
          g_autofree char *p = g_strdup_printf ("%s/big%u", many, i);
          write_pattern (p, (70u << 20) + i * 4099, i, 0644);
        }
    }
  else
    {
      for (guint i = 0; i < 2000; i++)
        {
          g_autofree char *p = g_strdup_printf ("%s/d%02u", many, i % 20);
          g_autofree char *q = g_strdup_printf ("%s/f%04u", p, i);

          g_mkdir (p, 0755);
          write_pattern (q, i * 13 % 5000, i, 0644);
        }
    }
  cs_oracle_add_pair (oracle, many, d1);
  cs_oracle_add_pair (oracle, many, d128);

  run_job (many, d1, (Options) { 1, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o1);
  run_job (many, d128, (Options) { 128, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o128);
  g_assert_true (o1.ok);
  g_assert_true (o128.ok);
  c = cs_oracle_check (oracle, CS_ORACLE_ALL_COMPLETE);
  g_assert_cmpuint (c.n_new_complete, ==, big ? 6 : 4000);
  cs_test_tree_assert_equal (d1, d128);
}

/* The queue's bound (CsJob's max_pending) is what keeps memory flat: the
 * scanner waits while this many files are queued or being copied. */
#define QUEUE_BOUND 4096

typedef struct {
  CsJob                *job;
  int                   measuring;
  int                   released;
  atomic_uint_fast64_t  stalled_at;
} Stall;

/* Holds every worker on its first file until the scanner stops finding files,
 * because the queue is full; one of them watches the count. */
static void
hold_workers (const char *name,
              gpointer    data)
{
  Stall *stall = data;
  guint64 last = G_MAXUINT64;
  guint stable = 0;

  if (!g_atomic_int_compare_and_exchange (&stall->measuring, 0, 1))
    {
      while (!g_atomic_int_get (&stall->released))
        g_usleep (10000);
      return;
    }
  while (!g_atomic_int_get (&stall->released))
    {
      CsProgress p;

      cs_job_get_progress (stall->job, &p);
      if (p.files_found != last)
        {
          last = p.files_found;
          stable = 0;
        }
      else if (++stable >= 25 || !p.scanning)
        {
          atomic_store (&stall->stalled_at, p.files_found);
          g_atomic_int_set (&stall->released, 1);
        }
      g_usleep (20000);
    }
}

/* Small files travel in batches of up to sixteen; the bound must count files,
 * not batches, or the queue holds sixteen times as many and memory grows with
 * the tree (25 MB at 100,000 files). */
static void
test_queue_bounded_in_files (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *many = g_build_filename (f->root, "many", NULL);
  g_autofree char *copy = g_build_filename (f->root, "copy", NULL);
  g_autoptr(CsOracle) oracle = cs_oracle_new ();
  g_autoptr(CsJob) job = cs_job_new ();
  g_autoptr(GError) error = NULL;
  Stall stall = { job, 0, 0, 0 };
  guint64 found;

  g_assert_cmpint (g_mkdir (many, 0755), ==, 0);
  for (guint d = 0; d < 20; d++)
    {
      g_autofree char *dir = g_strdup_printf ("%s/d%02u", many, d);

      g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
      for (guint i = 0; i < 1000; i++)
        {
          g_autofree char *p = g_strdup_printf ("%s/f%04u", dir, i);
          int fd = open (p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

          g_assert_cmpint (fd, >=, 0);
          close (fd);
        }
    }
  cs_oracle_add_pair (oracle, many, copy);

  cs_fault_install (f->root);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_OPEN, NULL, 1, -1, CS_FAULT_HOOK, 0, hold_workers, &stall });
  cs_job_add_source (job, many);
  cs_job_set_destination (job, copy);
  cs_job_set_threads (job, 2, NULL);
  cs_job_set_interval (job, 0);
  cs_job_set_flush (job, FALSE);
  g_assert_true (cs_job_run_sync (job, NULL, &error));
  g_assert_no_error (error);

  found = atomic_load (&stall.stalled_at);
  g_test_message ("the scanner stopped at %" G_GUINT64_FORMAT " files with the workers held", found);
  /* The bound, the last batch pushed over it, and the batch being filled. */
  g_assert_cmpuint (found, >=, QUEUE_BOUND);
  g_assert_cmpuint (found, <=, QUEUE_BOUND + 2 * 16);
  cs_oracle_check (oracle, CS_ORACLE_ALL_COMPLETE);
}

/* ---- Hard links ------------------------------------------------------------------ */

/* @n files in @dir, each with a second name: next to it (the two may travel
 * in one batch, later name first) and in a folder of its own. */
static void
make_linked_pairs (const char *dir,
                   guint       n)
{
  g_autofree char *other = g_strconcat (dir, "-links", NULL);

  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (other, 0755), ==, 0);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *p = g_strdup_printf ("%s/f%04u", dir, i);
      g_autofree char *q = g_strdup_printf ("%s/g%04u", dir, i);
      g_autofree char *r = g_strdup_printf ("%s/h%04u", other, i);

      write_pattern (p, 100 + i % 700, i, 0644);
      g_assert_cmpint (link (p, q), ==, 0);
      if (i % 3 == 0)
        g_assert_cmpint (link (p, r), ==, 0);
    }
}

/* Many linked names, some met before their first name is copied: all kept
 * as links, nothing lost, nothing waits for ever. */
static void
test_links_kept (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *pairs = g_build_filename (f->src, "pairs", NULL);
  g_auto(Outcome) o = { 0 };
  g_auto(Outcome) again = { 0 };

  make_linked_pairs (pairs, 600);
  watch (f);
  run (f, (Options) { 4, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (o.errors->len, ==, 0);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
  /* Copied once, linked the rest: the rerun finds everything in place. */
  run (f, DEFAULTS, &again);
  g_assert_true (again.ok);
  g_assert_cmpuint (again.totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, 0);
}

/* A destination without hard links (FAT, many shares): every name copied as
 * a file of its own, complete, and that said once. */
static void
test_links_refused (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *pairs = g_build_filename (f->src, "pairs", NULL);
  g_auto(Outcome) o = { 0 };
  guint notes = 0;

  make_linked_pairs (pairs, 50);
  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_LINK, NULL, 1, -1, CS_FAULT_ERRNO, EPERM });
  run (f, (Options) { 4, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);

  g_assert_true (o.ok);
  for (guint i = 0; i < o.errors->len; i++)
    {
      const CsRunError *e = g_ptr_array_index (o.errors, i);

      g_assert_cmpstr (e->operation, ==, "link");
      g_assert_nonnull (strstr (e->message, "hard links"));
      notes++;
    }
  g_assert_cmpuint (notes, ==, 1);
  g_assert_cmpuint (o.totals.v[CS_CLASS_FAILED][CS_KIND_FILES], ==, 0);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE | CS_ORACLE_NO_LINKS);
}

typedef struct {
  CsJob *job;
  int    cancelled;
} Canceller;

static void
cancel_job (const char *name,
            gpointer    data)
{
  Canceller *c = data;

  if (g_atomic_int_compare_and_exchange (&c->cancelled, 0, 1))
    cs_job_cancel (c->job);
}

/* Cancelled while later names wait for their first: the job ends, clean. */
static void
test_links_cancelled (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *pairs = g_build_filename (f->src, "pairs", NULL);
  g_autoptr(CsJob) job = cs_job_new ();
  g_autoptr(GError) error = NULL;
  Canceller canceller = { job, 0 };

  make_linked_pairs (pairs, 400);
  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_OPEN, NULL, 150, 1, CS_FAULT_HOOK, 0, cancel_job, &canceller });
  cs_job_add_source (job, f->src);
  cs_job_set_destination (job, f->out);
  cs_job_set_threads (job, 4, NULL);
  cs_job_set_interval (job, 0);
  cs_job_set_flush (job, FALSE);
  g_assert_false (cs_job_run_sync (job, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (cs_fault_hits (0), ==, 1);
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  rerun_converges (f);
}

/* ---- Real full filesystems (root) -------------------------------------------- */

static gboolean
mount_fs (Fixture    *f,
          const char *kind)
{
  g_autofree char *mnt = fixture_path (f, "mnt");
  g_autofree char *img = fixture_path (f, "img");
  g_autofree char *cmd = NULL;
  int status = 0;

  if (geteuid () != 0)
    {
      g_test_skip ("needs root to mount a small filesystem");
      return FALSE;
    }
  g_assert_cmpint (g_mkdir (mnt, 0755), ==, 0);
  if (strcmp (kind, "ext4") == 0)
    {
      cmd = g_strdup_printf ("sh -c 'truncate -s 16M %s && mkfs.ext4 -q -F -m 0 %s && mount -o loop %s %s' 2>&1",
                             img, img, img, mnt);
      if (!g_spawn_command_line_sync (cmd, NULL, NULL, &status, NULL) || status != 0)
        {
          g_test_skip ("cannot make and loop-mount an ext4 image here");
          return FALSE;
        }
    }
  else if (mount ("tmpfs", mnt, "tmpfs", 0, kind) != 0)
    {
      g_test_skip_printf ("cannot mount tmpfs -o %s here: %s", kind, g_strerror (errno));
      return FALSE;
    }
  f->mnt = g_steal_pointer (&mnt);
  return TRUE;
}

/* ext4 of 16 MiB: new files until it is full; then replacing a file with a
 * bigger version that does not fit. */
static void
test_ext4_full (Fixture       *f,
                gconstpointer  data)
{
  gboolean replace = GPOINTER_TO_INT (data);
  g_autofree char *big = g_build_filename (f->src, "b.bin", NULL);
  g_autofree char *old = NULL;
  g_autofree char *copy = NULL;
  g_auto(Outcome) o = { 0 };

  if (!mount_fs (f, "ext4"))
    return;
  copy = g_build_filename (f->mnt, "src", NULL);
  if (replace)
    {
      old = g_build_filename (copy, "b.bin", NULL);
      g_assert_cmpint (g_mkdir (copy, 0755), ==, 0);
      write_pattern (old, 9 << 20, 99, 0644);
      write_pattern (big, 10 << 20, 2, 0640);
    }
  else
    write_pattern (big, 20 << 20, 2, 0640);

  f->oracle = cs_oracle_new ();
  cs_oracle_add_pair (f->oracle, f->src, copy);
  run_job (f->src, f->mnt, (Options) { 2, FALSE, FALSE, CS_OVERWRITE_ALWAYS, 2 }, &o);

  g_assert_false (o.ok);
  g_assert_error (o.error, CS_JOB_ERROR, CS_JOB_ERROR_DESTINATION);
  g_assert_nonnull (strstr (o.error->message, "full"));
  g_assert_cmpfloat (o.seconds, <, 5.0);
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "b.bin"), ==, replace ? CS_ORACLE_OLD : CS_ORACLE_ABSENT);
}

/* tmpfs with 64 inodes: out of inodes is "full" too, and stops the job. */
static void
test_inodes_exhausted (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *many = g_build_filename (f->src, "many", NULL);
  g_autofree char *copy = NULL;
  g_auto(Outcome) o = { 0 };
  CsOracleCounts c;

  if (!mount_fs (f, "size=64m,nr_inodes=64"))
    return;
  g_assert_cmpint (g_mkdir (many, 0755), ==, 0);
  for (guint i = 0; i < 200; i++)
    {
      g_autofree char *p = g_strdup_printf ("%s/f%03u", many, i);
      write_pattern (p, 100, i, 0644);
    }
  copy = g_build_filename (f->mnt, "src", NULL);
  f->oracle = cs_oracle_new ();
  cs_oracle_add_pair (f->oracle, f->src, copy);
  run_job (f->src, f->mnt, (Options) { 4, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);

  g_assert_false (o.ok);
  g_assert_error (o.error, CS_JOB_ERROR, CS_JOB_ERROR_DESTINATION);
  g_assert_nonnull (strstr (o.error->message, "full"));
  g_assert_cmpuint (o.errors->len, <=, 4);
  c = cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_cmpuint (c.n[CS_ORACLE_COMPLETE], <, 64);
  g_assert_cmpuint (c.n[CS_ORACLE_ABSENT], >, 140);
}

int
main (int    argc,
      char **argv)
{
  struct rlimit rl;

  g_test_init (&argc, &argv, NULL);

  /* The oracle walks deep trees with one descriptor per level. */
  if (getrlimit (RLIMIT_NOFILE, &rl) == 0)
    {
      rl.rlim_cur = rl.rlim_max;
      setrlimit (RLIMIT_NOFILE, &rl);
    }

#define ADD(path, func, data) \
  g_test_add ("/fault/" path, Fixture, GINT_TO_POINTER (data), fixture_setup, func, fixture_teardown)
#define ADD_CHUNKED(path, func, data) \
  add_wrapped ("/fault/" path, test_chunked, (GTestFixtureFunc) func, \
               GINT_TO_POINTER (data))

  ADD ("read/transient", test_read_transient, 0);
  ADD ("read/sticky", test_read_sticky, FALSE);
  ADD ("read/sticky-replacing", test_read_sticky, TRUE);
  ADD ("write/eio", test_output_error, CS_FAULT_WRITE * 2);
  ADD ("write/eio-replacing", test_output_error, CS_FAULT_WRITE * 2 + 1);
  ADD ("fsync/eio-durable", test_output_error, CS_FAULT_FSYNC * 2);
  ADD ("fsync/eio-durable-replacing", test_output_error, CS_FAULT_FSYNC * 2 + 1);
  ADD ("short/reads-writes", test_short_and_eintr, CS_FAULT_SHORT);
  ADD ("short/eintr", test_short_and_eintr, CS_FAULT_EINTR);
  ADD ("copy-range/zero-early", test_copy_range_fallback, 0);
  ADD ("copy-range/exdev", test_copy_range_fallback, EXDEV);
  ADD ("copy-range/eopnotsupp", test_copy_range_fallback, EOPNOTSUPP);
  ADD ("copy-range/eio-no-fallback", test_fast_path_eio, CS_FAULT_COPY_RANGE);
  ADD ("clone/eio-no-fallback", test_fast_path_eio, CS_FAULT_CLONE);
  ADD ("enospc/replacing", test_enospc_replace, 0);
  ADD ("destination/vanishes", test_destination_vanishes, 0);
  ADD ("destination/folder-removed", test_destination_folder_removed, 0);
  ADD ("publish/noreplace-einval", test_noreplace_einval, 0);
  ADD ("publish/created-meanwhile", test_created_meanwhile, PUBLISH_UNNAMED);
  ADD ("publish/created-meanwhile-named", test_created_meanwhile, PUBLISH_NAMED);
  ADD ("publish/unnamed-link-refused", test_unnamed_link_refused, 0);
  ADD ("publish/created-meanwhile-link-fallback", test_created_meanwhile, PUBLISH_LINK_FALLBACK);
  ADD ("publish/created-after-check-link-eperm", test_created_after_check, EPERM);
  ADD ("publish/created-after-check-link-enotsup", test_created_after_check, ENOTSUP);
  ADD ("publish/killed-while-claimed", test_killed_while_claimed, FALSE);
  ADD ("publish/killed-while-claimed-rerun-without-link", test_killed_while_claimed, TRUE);
  ADD ("publish/claim-lookalike-kept", test_claim_lookalike_kept, 0);
  ADD ("publish/gone-while-claimed", test_gone_while_claimed, 0);
  ADD ("publish/killed-while-claiming", test_killed_while_claiming, FALSE);
  ADD ("publish/killed-while-claiming-rerun-without-link", test_killed_while_claiming, TRUE);
  ADD ("publish/empty-file-not-a-claim", test_empty_file_not_a_claim, 0);
  ADD ("publish/claimed-renamed-once", test_claimed_renamed_once, 0);
  ADD ("source/grows", test_source_changes, GROW);
  ADD ("source/shrinks", test_source_changes, SHRINK);
  ADD ("source/rewritten", test_source_changes, REWRITE);
  ADD ("source/rewritten-time-restored", test_source_changes, REWRITE_KEEP_TIME);
  ADD ("open/eacces", test_open_create_errors, CS_FAULT_OPEN);
  ADD ("create/eio", test_open_create_errors, CS_FAULT_CREATE);
  ADD_CHUNKED ("big/read-transient", test_big_file_read_error, 1);
  ADD_CHUNKED ("big/read-sticky", test_big_file_read_error, -1);
  ADD ("big/whole-read-transient", test_big_file_read_error, 1);
  ADD ("big/whole-read-sticky", test_big_file_read_error, -1);
  ADD ("big/whole-opens-once", test_big_file_opens, 0);
  ADD_CHUNKED ("big/full", test_big_file_full, 0);
  ADD ("big/whole-full", test_big_file_full, 0);
  ADD_CHUNKED ("big/chunks-open-again", test_big_file_opens, 0);
  ADD ("load/threads-agree-small", test_threads_agree, FALSE);
  ADD_CHUNKED ("load/threads-agree-big", test_threads_agree, TRUE);
  ADD ("load/threads-agree-big-whole", test_threads_agree, TRUE);
  ADD ("load/queue-bounded-in-files", test_queue_bounded_in_files, 0);
  ADD ("links/kept", test_links_kept, 0);
  ADD ("links/refused", test_links_refused, 0);
  ADD ("links/cancelled-while-waiting", test_links_cancelled, 0);
  ADD ("root/ext4-full-new", test_ext4_full, FALSE);
  ADD ("root/ext4-full-replacing", test_ext4_full, TRUE);
  ADD ("root/inodes-exhausted", test_inodes_exhausted, 0);
  ADD ("recovery/symlink-temporary", test_leftover_symlink_temp, 0);
  ADD ("recovery/single-file-temporary", test_single_file_leftover, 0);
  ADD ("recovery/staging-folders", test_staged_leftovers, 0);
  ADD ("recovery/live-run-temporary-kept", test_live_run_temporary_kept, 0);
  ADD ("modes/kept", test_modes, 0);
  ADD ("modes/chmod-refused", test_modes, MODES_REFUSED);
  ADD ("modes/kept-named", test_modes, MODES_NAMED);
  ADD ("modes/chmod-refused-named", test_modes, MODES_REFUSED | MODES_NAMED);
  ADD ("metadata/xattrs-and-links-refused", test_metadata_refused, 0);
  ADD ("metadata/one-link-refused", test_metadata_refused_one, 0);
  ADD ("times/stamped-at-close", test_times_stamped_at_close, 0);
  ADD ("times/stamped-at-close-fresh", test_times_stamped_at_close, 1);
  ADD ("policy/older-replacement-copied", test_older_replacement, 0);

#define ADD_STAGED(path, func, data) \
  add_wrapped ("/fault/staged/" path, test_staged, (GTestFixtureFunc) func, \
               GINT_TO_POINTER (data))

  /* The same faults with the temporaries in staging folders (network shares). */
  ADD_STAGED ("read/sticky", test_read_sticky, FALSE);
  ADD_STAGED ("read/sticky-replacing", test_read_sticky, TRUE);
  ADD_STAGED ("write/eio", test_output_error, CS_FAULT_WRITE * 2);
  ADD_STAGED ("write/eio-replacing", test_output_error, CS_FAULT_WRITE * 2 + 1);
  ADD_STAGED ("fsync/eio-durable", test_output_error, CS_FAULT_FSYNC * 2);
  ADD_STAGED ("create/eio", test_open_create_errors, CS_FAULT_CREATE);
  ADD_STAGED ("source/grows", test_source_changes, GROW);
  ADD_STAGED ("destination/vanishes", test_destination_vanishes, 0);
  ADD_STAGED ("enospc/replacing", test_enospc_replace, 0);
  ADD_STAGED ("load/threads-agree-small", test_threads_agree, FALSE);
  ADD_STAGED ("publish/created-meanwhile", test_staged_created_meanwhile, 0);
  ADD_STAGED ("publish/link-refused", test_staged_link_refused, 0);
  ADD_STAGED ("publish/exdev", test_staged_exdev, 0);
  ADD_STAGED ("publish/created-after-check-link-eperm", test_created_after_check, EPERM);
  ADD_STAGED ("leftovers", test_staged_leftovers, 0);
  ADD_STAGED ("modes/kept", test_modes, 0);
  ADD_STAGED ("modes/chmod-refused", test_modes, MODES_REFUSED);

  return g_test_run ();
}
