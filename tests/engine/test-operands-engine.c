/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "copyscope-engine.h"
#include "cs-fake-smb.h"
#include "cs-test-tree.h"

/*
 * What users name, where the engine's API is the better place than the CLI
 * (tests/cli/test-operands.c has the rest): locations on an SMB share,
 * against the fake server of tests/common/cs-fake-smb.c, and what
 * cs_job_check and cs_job_check_start each refuse.
 */

#define PASSWORD  "s3cret pass"
#define USER      "lab"
#define URL       "smb://" USER "@" CS_FAKE_SMB_SERVER "/" CS_FAKE_SMB_SHARE

static void
write_text (const char *path,
            const char *text)
{
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
}

/* src with a file and a folder. */
static char *
make_source (const char *top)
{
  g_autofree char *sub = g_build_filename (top, "src", "sub", NULL);
  g_autofree char *a = g_build_filename (top, "src", "a", NULL);
  g_autofree char *b = g_build_filename (sub, "b", NULL);

  g_assert_cmpint (g_mkdir_with_parents (sub, 0755), ==, 0);
  write_text (a, "a\n");
  write_text (b, "b\n");
  return g_build_filename (top, "src", NULL);
}

/* mirror src smb://…/share/mir/: a new folder named with a trailing slash,
 * as shell completion types it, works as without it. */
static void
test_mirror_smb_slash (void)
{
  g_autofree char *backing = cs_test_tree_make_tmp ();
  g_autofree char *top = cs_test_tree_make_tmp ();
  g_autofree char *src = make_source (top);
  g_autofree char *arrived = g_build_filename (backing, "mir", NULL);
  g_autoptr(CsJob) job = cs_job_new ();
  g_autoptr(GError) error = NULL;
  const char *destination = URL "/mir/";

  cs_fake_smb_install (backing, USER, PASSWORD);
  cs_smb_set_credentials (NULL, PASSWORD);

  cs_job_set_operation (job, CS_OPERATION_MIRROR);
  cs_job_add_source_as (job, src, destination);
  cs_job_set_destination (job, destination);
  cs_job_set_threads (job, 2, NULL);
  cs_job_set_interval (job, 0);
  g_assert_true (cs_job_check (job, &error));
  g_assert_no_error (error);
  g_assert_true (cs_job_run_sync (job, NULL, &error));
  g_assert_no_error (error);
  cs_test_tree_assert_equal (src, arrived);

  cs_smb_set_credentials (NULL, NULL);
  cs_test_tree_remove (backing);
  cs_test_tree_remove (top);
}

/* copy src smb://…/share/new/ into a folder that does not exist yet, the
 * slash included: the folder is made, as cp -r makes it. */
static void
test_copy_smb_slash (void)
{
  g_autofree char *backing = cs_test_tree_make_tmp ();
  g_autofree char *top = cs_test_tree_make_tmp ();
  g_autofree char *src = make_source (top);
  g_autofree char *arrived = g_build_filename (backing, "new", NULL);
  g_autoptr(CsJob) job = cs_job_new ();
  g_autoptr(GError) error = NULL;
  const char *destination = URL "/new/";

  cs_fake_smb_install (backing, USER, PASSWORD);
  cs_smb_set_credentials (NULL, PASSWORD);

  cs_job_add_source (job, src);
  cs_job_set_destination (job, destination);
  cs_job_set_threads (job, 2, NULL);
  cs_job_set_interval (job, 0);
  g_assert_true (cs_job_run_sync (job, NULL, &error));
  g_assert_no_error (error);
  cs_test_tree_assert_equal (src, arrived);

  cs_smb_set_credentials (NULL, NULL);
  cs_test_tree_remove (backing);
  cs_test_tree_remove (top);
}

/* The window asks cs_job_check before Start and shows the first refusal,
 * whatever it concerns; a run (and the CLI) fails only that source. Here a
 * symlink onto the file it points to beside a file that is copied. */
static void
test_check_and_start (void)
{
  g_autofree char *top = cs_test_tree_make_tmp ();
  g_autofree char *dst = g_build_filename (top, "dst", NULL);
  g_autofree char *foo = g_build_filename (dst, "foo", NULL);
  g_autofree char *link = g_build_filename (top, "foo", NULL);
  g_autofree char *other = g_build_filename (top, "other", NULL);
  g_autofree char *copied = g_build_filename (dst, "other", NULL);
  g_autoptr(CsJob) job = cs_job_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) errors = NULL;
  g_autofree char *contents = NULL;
  const CsRunError *e;
  CsTotals totals;

  g_assert_cmpint (g_mkdir (dst, 0755), ==, 0);
  write_text (foo, "hi\n");
  write_text (other, "other\n");
  g_assert_cmpint (symlink (foo, link), ==, 0);

  cs_job_add_source (job, link);
  cs_job_add_source (job, other);
  cs_job_set_destination (job, dst);
  cs_job_set_threads (job, 2, NULL);

  g_assert_false (cs_job_check (job, &error));
  g_assert_error (error, CS_JOB_ERROR, CS_JOB_ERROR_SAME_FILE);
  g_clear_error (&error);
  g_assert_true (cs_job_check_start (job, &error));
  g_assert_no_error (error);

  g_assert_true (cs_job_run_sync (job, NULL, &error));
  g_assert_no_error (error);
  cs_run_get_totals (cs_job_get_run (job), &totals);
  g_assert_cmpuint (totals.v[CS_CLASS_FAILED][CS_KIND_FILES], ==, 1);
  g_assert_cmpuint (totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, 1);
  errors = cs_run_dup_errors (cs_job_get_run (job));
  g_assert_cmpuint (errors->len, ==, 1);
  e = g_ptr_array_index (errors, 0);
  g_assert_cmpstr (e->path, ==, link);
  g_assert_cmpstr (e->operation, ==, "check");
  g_assert_nonnull (strstr (e->message, "same file"));

  g_assert_true (g_file_get_contents (foo, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "hi\n");
  g_assert_true (g_file_test (copied, G_FILE_TEST_IS_REGULAR));

  cs_test_tree_remove (top);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *runtime = cs_test_tree_make_tmp ();
  int status;

  cs_fake_smb_hide_keyring (runtime);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/operands/smb/mirror-trailing-slash-new", test_mirror_smb_slash);
  g_test_add_func ("/operands/smb/copy-trailing-slash-new", test_copy_smb_slash);
  g_test_add_func ("/operands/check-and-start", test_check_and_start);

  status = g_test_run ();
  cs_test_tree_remove (runtime);
  return status;
}
