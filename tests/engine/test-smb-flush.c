/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "copyscope-engine.h"
#include "cs-fake-smb.h"
#include "cs-test-tree.h"

/*
 * libsmbclient 4.17 has no flush: the smb:// backend's fsync and syncfs
 * succeed without asking the server for anything. A job that asked for a
 * flush onto such a share (--durable, a move's before it removes sources,
 * the one at the end) says so in one note, once per run, which the CLI
 * prints and the window lists; one that asked for none says nothing, and
 * neither does a local destination. Against the fake server of
 * tests/common/cs-fake-smb.c, whose table says it cannot flush as the real
 * one does; tests/labnas/test-smb-native.sh checks the CLI's line.
 */

#define PASSWORD  "s3cret pass"
#define USER      "lab"
#define URL       "smb://" USER "@" CS_FAKE_SMB_SERVER "/" CS_FAKE_SMB_SHARE

/* A source of three files in two folders. */
static char *
make_source (const char *top)
{
  char *src = g_build_filename (top, "src", NULL);
  g_autofree char *sub = g_build_filename (src, "sub", NULL);
  const char *names[] = { "a.txt", "b.txt", "sub/c.txt" };

  g_assert_cmpint (g_mkdir_with_parents (sub, 0755), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (src, names[i], NULL);
      GError *error = NULL;

      g_file_set_contents (path, names[i], -1, &error);
      g_assert_no_error (error);
    }
  return src;
}

/* The run's notes about flushing, and that nothing failed. */
static guint
flush_notes (CsJob       *job,
             const char **message)
{
  g_autoptr(GPtrArray) errors = cs_run_dup_errors (cs_job_get_run (job));
  guint n = 0;

  for (guint i = 0; i < errors->len; i++)
    {
      const CsRunError *e = g_ptr_array_index (errors, i);

      g_test_message ("%s: %s: %s", e->path, e->operation, e->message);
      g_assert_true (e->note);
      if (g_strcmp0 (e->operation, "flush") != 0)
        continue;
      n++;
      if (message != NULL)
        *message = g_intern_string (e->message);
    }
  return n;
}

static void
run (CsJob      *job,
     const char *source,
     const char *destination)
{
  GError *error = NULL;

  cs_job_add_source (job, source);
  cs_job_set_destination (job, destination);
  cs_job_set_into (job, TRUE);
  cs_job_set_threads (job, 4, NULL);
  g_assert_true (cs_job_run_sync (job, NULL, &error));
  g_assert_no_error (error);
}

static void
test_no_flush_said (void)
{
  g_autofree char *backing = cs_test_tree_make_tmp ();
  g_autofree char *top = cs_test_tree_make_tmp ();
  g_autofree char *local = cs_test_tree_make_tmp ();
  g_autofree char *src = make_source (top);
  g_autofree char *arrived = g_build_filename (backing, "src", NULL);
  const char *message = NULL;

  cs_fake_smb_install (backing, USER, PASSWORD);
  cs_smb_set_credentials (NULL, PASSWORD);

  /* --durable (and the flush at the end, on by default): one note, for the
   * destination, with what really happens. */
  {
    g_autoptr(CsJob) job = cs_job_new ();

    cs_job_set_durable (job, TRUE);
    run (job, src, URL);
    cs_test_tree_assert_equal (src, arrived);
    g_assert_cmpuint (flush_notes (job, &message), ==, 1);
    g_assert_nonnull (strstr (message, "libsmbclient offers no flush"));
    g_assert_nonnull (strstr (message, "The server has each byte once its write returns"));
    cs_test_tree_remove (arrived);
  }

  /* No flush asked for: nothing said. */
  {
    g_autoptr(CsJob) job = cs_job_new ();

    cs_job_set_flush (job, FALSE);
    run (job, src, URL);
    cs_test_tree_assert_equal (src, arrived);
    g_assert_cmpuint (flush_notes (job, NULL), ==, 0);
    cs_test_tree_remove (arrived);
  }

  /* The flush at the end alone (a copy's default) is one too. */
  {
    g_autoptr(CsJob) job = cs_job_new ();

    run (job, src, URL);
    g_assert_cmpuint (flush_notes (job, NULL), ==, 1);
    cs_test_tree_remove (arrived);
  }

  /* A local destination flushes for real: nothing said. */
  {
    g_autoptr(CsJob) job = cs_job_new ();

    cs_job_set_durable (job, TRUE);
    run (job, src, local);
    g_assert_cmpuint (flush_notes (job, NULL), ==, 0);
  }

  /* A move, which removes each source once "its copy is published and
   * flushed", with no other flush asked for: one note. */
  {
    g_autoptr(CsJob) job = cs_job_new ();
    g_autofree char *moved = g_build_filename (top, "moved", NULL);
    g_autofree char *cmd = g_strdup_printf ("cp -a '%s' '%s'", src, moved);
    g_autofree char *arrived_moved = g_build_filename (backing, "moved", NULL);

    g_assert_cmpint (system (cmd), ==, 0);
    cs_job_set_operation (job, CS_OPERATION_MOVE);
    cs_job_set_flush (job, FALSE);
    run (job, moved, URL);
    cs_test_tree_assert_equal (src, arrived_moved);
    g_assert_false (g_file_test (moved, G_FILE_TEST_EXISTS));
    g_assert_cmpuint (flush_notes (job, NULL), ==, 1);
  }

  cs_smb_set_credentials (NULL, NULL);
  cs_test_tree_remove (backing);
  cs_test_tree_remove (top);
  cs_test_tree_remove (local);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *runtime = cs_test_tree_make_tmp ();
  int status;

  cs_fake_smb_hide_keyring (runtime);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/smb-flush/no-flush-said", test_no_flush_said);

  status = g_test_run ();
  cs_test_tree_remove (runtime);
  return status;
}
