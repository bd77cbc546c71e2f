/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include "test-fault.h"

/*
 * Engine-level fault injection: every filesystem call of the engine goes
 * through a CsIoTable, so a fault lands on exactly the call and the file we
 * name, in-process and deterministically. Every test ends with the oracle, and
 * the ones that leave work undone run again without faults and end with
 * "everything COMPLETE, no temporaries". One file for each kind of fault,
 * test-fault-*.c; this one holds the fixture, the running of a job, and
 * main () with the list of all their tests.
 */

/* ---- Trees ----------------------------------------------------------------- */

void
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

char *
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
CsOracle *
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
void
make_old_copy (Fixture *f)
{
  g_autofree char *b = fixture_path (f, "out/src/b.bin");

  g_assert_cmpint (g_mkdir (f->copy, 0755), ==, 0);
  write_pattern (b, 1024 * 1024, 0, 0644);   /* older than the source */
}

void
outcome_clear (Outcome *o)
{
  g_clear_error (&o->error);
  g_clear_pointer (&o->errors, g_ptr_array_unref);
}

/* Where the jobs write their temporaries; the staged variants set it. */
CsStaging staging = CS_STAGING_AUTO;

/* Whether big files go in chunks; the chunked variants set it (a local disk
 * otherwise copies them whole). */
CsChunking chunking = CS_CHUNKING_AUTO;

void
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

const CsRunError *
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
void
run (Fixture *f,
     Options  opt,
     Outcome *o)
{
  run_job (f->src, f->out, opt, o);
}

/* Without faults, again: converges, everything COMPLETE, nothing left over. */
void
rerun_converges (Fixture *f)
{
  g_auto(Outcome) o = { 0 };

  cs_fault_remove ();
  run (f, (Options) { 2, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);
  g_assert_true (o.ok);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
}

/* The copy-range path is tried first; a rule can force the read/write path. */
void
force_read_write (void)
{
  cs_fault_add (&(CsFaultRule) { CS_FAULT_COPY_RANGE, NULL, 1, -1, CS_FAULT_ERRNO, EXDEV });
}

/* Another program writes the final name while our copy is in flight. */
void
plant_file (const char *name,
            gpointer    data)
{
  Plant *plant = data;

  g_assert_true (g_file_set_contents (plant->path, "theirs, not ours\n", -1, NULL));
  cs_oracle_update_before (plant->f->oracle, 0, "b.bin");
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
  ADD ("rerun/decided-in-pool", test_rerun_decided_in_pool, 0);
  ADD ("rerun/changed-after-listing-newer", test_rerun_changed_after_listing, CS_OVERWRITE_NEWER);
  ADD ("rerun/changed-after-listing-never", test_rerun_changed_after_listing, CS_OVERWRITE_NEVER);
  ADD ("rerun/changed-after-listing-different", test_rerun_changed_after_listing, CS_OVERWRITE_DIFFERENT);
  ADD ("rerun/appeared-before-publish", test_rerun_appeared_before_publish, 0);
  ADD ("rerun/placeholder-replaced", test_rerun_placeholder_replaced, 0);
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
  ADD ("times/fresh-trusted", test_times_fresh_trusted, 0);
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
