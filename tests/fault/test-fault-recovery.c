/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include "test-fault.h"

/* What a killed run left behind, removed by the next run, and what a run
 * still alive keeps. */

/* A single file's copy killed while it replaced an older one leaves its
 * temporary beside it; copying that file again removes it, as a folder's copy
 * does in the folders it enters. */
void
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

/* A run killed while publishing a link left its temporary symlink: the next
 * run removes it like a temporary file. */
void
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
void
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
void
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
