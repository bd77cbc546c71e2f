/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "copyscope-engine.h"
#include "cs-fake-smb.h"
#include "cs-test-tree.h"

/*
 * Two cameras' DCIM folders copied (and moved) onto an SMB share at once
 * (issue 37, case 3): the folders merge; IMG_0001.JPG, in both, is the first
 * camera's however many workers write to the share; the second camera's is
 * reported naming both and, in a move, stays where it was. Against the fake
 * server of tests/common/cs-fake-smb.c; tests/cli/test-collide.c does the
 * same on local folders.
 */

#define PASSWORD "s3cret pass"
#define USER     "lab"
#define URL      "smb://" USER "@" CS_FAKE_SMB_SERVER "/" CS_FAKE_SMB_SHARE

static void
write_text (const char *dir,
            const char *rel,
            const char *text)
{
  g_autofree char *path = g_build_filename (dir, rel, NULL);
  g_autofree char *parent = g_path_get_dirname (path);
  GError *error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
}

static char *
read_text (const char *dir,
           const char *rel)
{
  g_autofree char *path = g_build_filename (dir, rel, NULL);
  GError *error = NULL;
  char *text = NULL;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  return text;
}

static void
test_merge (gconstpointer data)
{
  CsOperation operation = GPOINTER_TO_INT (data);
  g_autofree char *backing = cs_test_tree_make_tmp ();
  g_autofree char *top = cs_test_tree_make_tmp ();
  g_autofree char *one = g_build_filename (top, "cam1", "DCIM", NULL);
  g_autofree char *two = g_build_filename (top, "cam2", "DCIM", NULL);
  g_autoptr(CsJob) job = cs_job_new ();
  g_autoptr(GPtrArray) errors = NULL;
  g_autofree char *first = NULL;
  g_autofree char *only = NULL;
  g_autofree char *left = NULL;
  g_autofree char *out = NULL;
  GError *error = NULL;
  guint reported = 0;

  for (guint i = 0; i < 40; i++)
    {
      g_autofree char *rel = g_strdup_printf ("IMG_%04u.JPG", i);

      write_text (one, rel, "first camera\n");
      write_text (two, rel, "second camera\n");
    }
  write_text (two, "IMG_9999.JPG", "only in the second\n");
  out = g_build_filename (backing, "out", NULL);
  g_assert_cmpint (g_mkdir (out, 0755), ==, 0);
  cs_fake_smb_install (backing, USER, PASSWORD);
  cs_smb_set_credentials (NULL, PASSWORD);

  cs_job_add_source (job, one);
  cs_job_add_source (job, two);
  cs_job_set_destination (job, URL "/out");
  cs_job_set_operation (job, operation);
  cs_job_set_threads (job, 8, NULL);
  cs_job_run_sync (job, NULL, &error);
  g_assert_no_error (error);

  for (guint i = 0; i < 40; i++)
    {
      g_autofree char *rel = g_strdup_printf ("out/DCIM/IMG_%04u.JPG", i);
      g_autofree char *src = g_strdup_printf ("IMG_%04u.JPG", i);
      g_autofree char *got = read_text (backing, rel);
      g_autofree char *kept = read_text (two, src);

      g_assert_cmpstr (got, ==, "first camera\n");
      g_assert_cmpstr (kept, ==, "second camera\n");
    }
  only = read_text (backing, "out/DCIM/IMG_9999.JPG");
  g_assert_cmpstr (only, ==, "only in the second\n");
  first = g_build_filename (one, "IMG_0000.JPG", NULL);
  g_assert_true (g_file_test (first, G_FILE_TEST_EXISTS) == (operation == CS_OPERATION_COPY));
  left = g_build_filename (two, "IMG_9999.JPG", NULL);
  g_assert_true (g_file_test (left, G_FILE_TEST_EXISTS) == (operation == CS_OPERATION_COPY));

  errors = cs_run_dup_errors (cs_job_get_run (job));
  for (guint i = 0; i < errors->len; i++)
    {
      const CsRunError *e = g_ptr_array_index (errors, i);

      if (!e->note && strstr (e->path, "cam2/DCIM/IMG_") != NULL
          && strstr (e->message, "cam1/DCIM/IMG_") != NULL)
        reported++;
    }
  g_assert_cmpuint (reported, ==, 40);

  cs_smb_set_credentials (NULL, NULL);
  cs_test_tree_remove (top);
  cs_test_tree_remove (backing);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *runtime = cs_test_tree_make_tmp ();
  int status;

  cs_fake_smb_hide_keyring (runtime);
  g_test_init (&argc, &argv, NULL);

  g_test_add_data_func ("/collide-smb/copy", GINT_TO_POINTER (CS_OPERATION_COPY), test_merge);
  g_test_add_data_func ("/collide-smb/move", GINT_TO_POINTER (CS_OPERATION_MOVE), test_merge);

  status = g_test_run ();
  cs_test_tree_remove (runtime);
  return status;
}
