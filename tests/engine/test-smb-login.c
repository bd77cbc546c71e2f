/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "copyscope-engine.h"
#include "cs-fake-smb.h"
#include "cs-test-async.h"
#include "cs-test-tree.h"

/*
 * Names at the top of an smb:// location, taken unescaped. Logging in to
 * an SMB share before a job does, as the window does it (cs_smb_log_in_*):
 * refused, then the password a user typed, which the job's connections
 * then use; the route a job to an smb:// URL says; no password in the
 * record. Against the fake server of tests/common/cs-fake-smb.c: only
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

static void
test_location_parse (void)
{
  g_autoptr(CsSmbLocation) full = cs_smb_location_parse ("smb://LAB;me@nas:1445/photos/2024/a%20b%25");
  g_autoptr(CsSmbLocation) root = cs_smb_location_parse ("smb://nas/share/");
  g_autoptr(CsSmbLocation) typed = cs_smb_location_parse ("smb://nas/share/100%/x");

  g_assert_nonnull (full);
  g_assert_cmpstr (full->server, ==, "nas");
  g_assert_cmpuint (full->port, ==, 1445);
  g_assert_cmpstr (full->share, ==, "photos");
  g_assert_cmpstr (full->path, ==, "2024/a b%");
  g_assert_cmpstr (full->user, ==, "me");
  g_assert_cmpstr (full->domain, ==, "LAB");
  g_assert_true (full->url);

  g_assert_nonnull (root);
  g_assert_cmpstr (root->share, ==, "share");
  g_assert_cmpstr (root->path, ==, "");
  g_assert_null (root->user);
  g_assert_null (root->domain);
  g_assert_cmpuint (root->port, ==, 0);

  /* A "%" that starts no escape, as someone may type it, is a "%". */
  g_assert_nonnull (typed);
  g_assert_cmpstr (typed->path, ==, "100%/x");

  g_assert_null (cs_smb_location_parse ("smb://nas"));
  g_assert_null (cs_smb_location_parse ("smb://nas/"));
  g_assert_null (cs_smb_location_parse ("/tmp/smb-share:server=nas,share=share"));
  g_assert_null (cs_smb_location_parse ("sftp://nas/share"));
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

static void
test_log_in (void)
{
  g_autofree char *backing = cs_test_tree_make_tmp ();
  g_autofree char *src = cs_test_tree_make_tmp ();
  g_autofree char *odd = g_build_filename (src, "a b%c", NULL);
  g_autofree char *odd_file = g_build_filename (odd, "x #1.txt", NULL);
  g_autofree char *arrived = NULL;
  g_autofree char *json = NULL;
  g_autofree char *last_user = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(CsJob) job = NULL;
  const CsRunEnvironment *env;

  cs_fake_smb_install (backing, USER, PASSWORD);
  g_assert_cmpint (g_mkdir (odd, 0755), ==, 0);
  write_file (odd_file, "hello, share");

  /* Nothing given and nothing kept: refused, so the window asks. */
  g_assert_false (cs_smb_log_in_sync (URL "/dst", NULL, NULL, NULL, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
  g_assert_nonnull (strstr (error->message, CS_FAKE_SMB_SERVER));
  g_clear_error (&error);

  /* A wrong password is refused, in the thread the window runs it in. */
  cs_smb_log_in_async (URL "/dst", NULL, NULL, "wrong", NULL, cs_test_async_store, &result);
  g_assert_false (cs_smb_log_in_finish (cs_test_async_wait (&result), &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
  g_clear_error (&error);
  g_clear_object (&result);

  /* A share the server has not. */
  g_assert_false (cs_smb_log_in_sync ("smb://" USER "@" CS_FAKE_SMB_SERVER "/other", NULL, NULL,
                                      PASSWORD, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "“other”"));
  g_clear_error (&error);

  /* The right one; the user is the URL's. */
  cs_smb_log_in_async (URL "/dst", NULL, NULL, PASSWORD, NULL, cs_test_async_store, &result);
  g_assert_true (cs_smb_log_in_finish (cs_test_async_wait (&result), &error));
  g_assert_no_error (error);
  last_user = cs_fake_smb_dup_last_user ();
  g_assert_cmpstr (last_user, ==, USER);

  /* A job's connections log in with it, and its route says how it went. */
  job = cs_job_new ();
  cs_job_add_source (job, odd);
  cs_job_set_destination (job, URL "/dst");
  cs_job_set_into (job, TRUE);
  g_assert_true (cs_job_run_sync (job, NULL, &error));
  g_assert_no_error (error);
  arrived = g_build_filename (backing, "dst", "a b%c", NULL);
  cs_test_tree_assert_equal (odd, arrived);
  env = cs_run_get_environment (cs_job_get_run (job));
  g_assert_nonnull (env);
  g_assert_cmpstr (env->route, ==, "SMB directly to " CS_FAKE_SMB_SERVER "/" CS_FAKE_SMB_SHARE);
  g_assert_cmpstr (cs_run_get_destination (cs_job_get_run (job)), ==, URL "/dst");
  json = cs_run_to_json_string (cs_job_get_run (job), FALSE);
  g_assert_null (strstr (json, PASSWORD));

  cs_test_tree_remove (backing);
  cs_test_tree_remove (src);
}

/* A password typed into the URL: taken out of it for the login, the
 * location kept without it; what GUri cannot split is cut where the SMB
 * backend would read a password. */
static void
test_take_password (void)
{
  static const struct {
    const char *given;
    const char *kept;
    const char *password;   /* NULL: none in it */
  } cases[] = {
    { "smb://user:secret@nas/share/dir/", "smb://user@nas/share/dir/", "secret" },
    { "smb://LAB;me:p%40ss@nas:1445/photos/a%20b", "smb://LAB;me@nas:1445/photos/a%20b", "p@ss" },
    { "smb://me:p@ss@nas/share", "smb://me@nas/share", "p@ss" },
    { "smb://me:a:b@[fe80::1]/share", "smb://me@[fe80::1]/share", "a:b" },
    { "smb://:pw@nas/share", "smb://@nas/share", "pw" },
    { "smb://me:@nas/share", "smb://me@nas/share", "" },
    { "smb://me:pw#1@nas/share/x", "smb://me@nas/share/x", "pw#1" },
    { "smb://me@nas/share/100%/a b", "smb://me@nas/share/100%/a b", NULL },
    { "smb://me:pw@nas/share/100%/a b", "smb://me@nas/share/100%/a b", "pw" },
    { "smb://me:p w@nas/share/a b", "smb://me@nas/share/a%20b", "p w" },
    { "smb://nas/share", "smb://nas/share", NULL },
    { "/tmp/user:secret@nas", "/tmp/user:secret@nas", NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gboolean taken = TRUE;
      g_autofree char *kept = cs_smb_location_take_password (cases[i].given, &taken);

      g_test_message ("%s", cases[i].given);
      g_assert_cmpstr (kept, ==, cases[i].kept);
      g_assert_cmpint (taken, ==, cases[i].password != NULL);
    }
}

/* A job to a URL with the password in it logs in with that password
 * (the fake server takes no other), and keeps it nowhere: not in its
 * locations, its record or its messages. */
static void
test_password_in_url (void)
{
  g_autofree char *backing = cs_test_tree_make_tmp ();
  g_autofree char *src = cs_test_tree_make_tmp ();
  g_autofree char *file = g_build_filename (src, "a.txt", NULL);
  g_autofree char *dst = g_build_filename (backing, "dst", NULL);
  g_autofree char *arrived = g_build_filename (dst, "a.txt", NULL);
  g_autofree char *json = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(CsJob) job = cs_job_new ();
  g_autoptr(CsJob) nowhere = cs_job_new ();

  cs_fake_smb_install (backing, USER, "in the URL");
  cs_smb_set_credentials (NULL, NULL);
  write_file (file, "hello, share");
  g_assert_cmpint (g_mkdir (dst, 0755), ==, 0);

  cs_job_add_source (job, file);
  cs_job_set_destination (job, "smb://" USER ":in%20the%20URL@" CS_FAKE_SMB_SERVER "/"
                               CS_FAKE_SMB_SHARE "/dst/");
  g_assert_true (cs_job_run_sync (job, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (arrived, G_FILE_TEST_IS_REGULAR));
  g_assert_cmpstr (cs_run_get_destination (cs_job_get_run (job)), ==, URL "/dst/");
  json = cs_run_to_json_string (cs_job_get_run (job), FALSE);
  g_assert_null (strstr (json, "in the URL"));
  g_assert_null (strstr (json, "in%20the%20URL"));

  /* A destination that cannot be is named without it. */
  cs_job_add_source (nowhere, file);
  cs_job_set_destination (nowhere, "smb://" USER ":in%20the%20URL@" CS_FAKE_SMB_SERVER "/"
                                   CS_FAKE_SMB_SHARE "/no/such/dst");
  g_assert_false (cs_job_run_sync (nowhere, NULL, &error));
  g_assert_nonnull (error);
  g_assert_null (strstr (error->message, "in%20the%20URL"));
  g_assert_nonnull (strstr (error->message, URL "/no/such/dst"));

  cs_test_tree_remove (backing);
  cs_test_tree_remove (src);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *runtime = cs_test_tree_make_tmp ();
  int status;

  cs_fake_smb_hide_keyring (runtime);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/smb-login/location-parse", test_location_parse);
  g_test_add_func ("/smb-login/names", test_names);
  g_test_add_func ("/smb-login/log-in", test_log_in);
  g_test_add_func ("/smb-login/take-password", test_take_password);
  g_test_add_func ("/smb-login/password-in-url", test_password_in_url);

  status = g_test_run ();
  cs_test_tree_remove (runtime);
  return status;
}
