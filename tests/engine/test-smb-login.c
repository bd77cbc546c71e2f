/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "copyscope-engine.h"
#include "cs-fake-smb.h"
#include "cs-test-tree.h"

/*
 * Names at the top of an smb:// location, taken unescaped, and the
 * location kept as given in the record. Against the fake server of tests/common/cs-fake-smb.c: only
 * libsmbclient is left out, the engine's logins and routes are its own.
 */

#define PASSWORD "s3cret pass"
#define USER     "lab"
#define URL      "smb://" USER "@" CS_FAKE_SMB_SERVER "/" CS_FAKE_SMB_SHARE

static void
write_file (const char *path,
            const char *text)
{
  GError *error = NULL;

  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
}

/* A copy to and from a share by URL, with the process's password as the
 * CLI gives it: a name with a space and a "%" at the top of a location
 * arrives as it is called, escaped in the URL as GIO writes it or not. */
static void
test_names (void)
{
  g_autofree char *backing = cs_test_tree_make_tmp ();
  g_autofree char *src = cs_test_tree_make_tmp ();
  g_autofree char *back = cs_test_tree_make_tmp ();
  g_autofree char *odd = g_build_filename (src, "a b%c", NULL);
  g_autofree char *odd_file = g_build_filename (odd, "x #1.txt", NULL);
  g_autofree char *arrived = g_build_filename (backing, "dst", "a b%c", NULL);
  g_autofree char *returned = g_build_filename (back, "a b%c", NULL);
  g_autofree char *file_back = g_build_filename (back, "x #1.txt", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(CsJob) to_share = cs_job_new ();
  g_autoptr(CsJob) from_share = cs_job_new ();
  g_autoptr(CsJob) one_file = cs_job_new ();
  g_autofree char *contents = NULL;

  cs_fake_smb_install (backing, USER, PASSWORD);
  cs_smb_set_credentials (NULL, PASSWORD);
  g_assert_cmpint (g_mkdir (odd, 0755), ==, 0);
  write_file (odd_file, "hello, share");

  cs_job_add_source (to_share, odd);
  cs_job_set_destination (to_share, URL "/dst");
  cs_job_set_into (to_share, TRUE);
  g_assert_true (cs_job_run_sync (to_share, NULL, &error));
  g_assert_no_error (error);
  cs_test_tree_assert_equal (odd, arrived);
  /* The record says where, as given: a URL is no path to make absolute. */
  g_assert_cmpstr (cs_run_get_destination (cs_job_get_run (to_share)), ==, URL "/dst");

  cs_job_add_source (from_share, URL "/dst/a%20b%25c");
  cs_job_set_destination (from_share, back);
  cs_job_set_into (from_share, TRUE);
  g_assert_true (cs_job_run_sync (from_share, NULL, &error));
  g_assert_no_error (error);
  cs_test_tree_assert_equal (odd, returned);
  g_assert_cmpstr (cs_run_get_sources (cs_job_get_run (from_share))[0], ==, URL "/dst/a%20b%25c");

  /* A file at the top, its name escaped: "#" and a space. */
  cs_job_add_source (one_file, URL "/dst/a%20b%25c/x%20%231.txt");
  cs_job_set_destination (one_file, back);
  cs_job_set_into (one_file, TRUE);
  g_assert_true (cs_job_run_sync (one_file, NULL, &error));
  g_assert_no_error (error);
  g_file_get_contents (file_back, &contents, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (contents, ==, "hello, share");

  cs_smb_set_credentials (NULL, NULL);
  cs_test_tree_remove (backing);
  cs_test_tree_remove (src);
  cs_test_tree_remove (back);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *runtime = cs_test_tree_make_tmp ();
  int status;

  /* No secret service: the keyring this machine may have is not the test's. */
  g_unsetenv ("DBUS_SESSION_BUS_ADDRESS");
  g_setenv ("XDG_RUNTIME_DIR", runtime, TRUE);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/smb-login/names", test_names);

  status = g_test_run ();
  cs_test_tree_remove (runtime);
  return status;
}
