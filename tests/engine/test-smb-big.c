/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "copyscope-engine.h"
#include "cs-fake-smb.h"
#include "cs-test-tree.h"

/*
 * A big file written to an SMB share moves in 8 MiB calls, which
 * libsmbclient sends as one request each, where 1 MiB ones cost the server
 * eight: a 70 MiB file takes at most 70/4 + a few writes (journal and claims
 * included), verified or not, and the copy is whole. Read back from the
 * share it moves in 1 MiB calls, as libsmbclient allocates each reply in
 * full. The big buffers are lent to one worker per 8 threads at most, so
 * many threads copying many big files stay within the memory target.
 * Against the fake server of tests/common/cs-fake-smb.c, which counts the
 * share's reads and writes; tests/labnas/test-smb-big.sh counts a real
 * smbd's.
 */

#define PASSWORD  "s3cret pass"
#define USER      "lab"
#define URL       "smb://" USER "@" CS_FAKE_SMB_SERVER "/" CS_FAKE_SMB_SHARE
#define MIB       (1024 * 1024)
/* A whole number of 8 MiB calls in every 32 MiB chunk and in the tail
 * (72 = 32 + 32 + 8): whichever chunk gets the big buffer writes 8 MiB
 * calls. With 70 MiB, a worker given the buffer for the 6 MiB tails only
 * wrote 6 MiB at most (an ASan run of test_budget). */
#define BIG_SIZE  (72 * MIB)
#define BIG_CALL  (8 * MIB)
/* A 70 MiB file in 4 MiB calls, and room for the journal and the claims. */
#define MAX_CALLS (BIG_SIZE / (4 * MIB) + 16)

/* @n files of BIG_SIZE pseudo-random bytes, none alike, none sparse. */
static void
write_big_files (const char *dir,
                 guint       n)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (28);
  g_autofree guint32 *data = g_malloc (BIG_SIZE);

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = g_strdup_printf ("big%u.bin", i);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      GError *error = NULL;

      for (gsize k = 0; k < BIG_SIZE / sizeof *data; k++)
        data[k] = g_rand_int (rand) | 1;
      g_file_set_contents (path, (const char *) data, BIG_SIZE, &error);
      g_assert_no_error (error);
    }
}

static void
run (CsJob      *job,
     const char *source,
     const char *destination,
     guint       threads)
{
  GError *error = NULL;

  cs_job_add_source (job, source);
  cs_job_set_destination (job, destination);
  cs_job_set_into (job, TRUE);
  cs_job_set_threads (job, threads, NULL);
  /* In chunks, as every big file to or from a share (a network
   * filesystem) is; the fake's folder is a local disk. */
  cs_job_set_chunking (job, CS_CHUNKING_ALWAYS);
  g_assert_true (cs_job_run_sync (job, NULL, &error));
  g_assert_no_error (error);
}

static void
test_calls (void)
{
  g_autofree char *backing = cs_test_tree_make_tmp ();
  g_autofree char *top = cs_test_tree_make_tmp ();
  g_autofree char *back = cs_test_tree_make_tmp ();
  g_autofree char *src = g_build_filename (top, "src", NULL);
  g_autofree char *arrived = g_build_filename (backing, "src", NULL);
  g_autofree char *returned = g_build_filename (back, "src", NULL);
  g_autoptr(CsJob) to_share = cs_job_new ();
  g_autoptr(CsJob) from_share = cs_job_new ();
  g_autoptr(CsJob) verified = cs_job_new ();
  CsFakeSmbIo io;

  g_assert_cmpint (g_mkdir (src, 0755), ==, 0);
  write_big_files (src, 1);
  cs_fake_smb_install (backing, USER, PASSWORD);
  cs_smb_set_credentials (NULL, PASSWORD);

  /* Onto the share: 9 writes of the data, not 70. */
  run (to_share, src, URL, 1);
  cs_test_tree_assert_equal (src, arrived);
  cs_fake_smb_io (&io);
  g_test_message ("to the share: %u writes, %u reads, the largest %" G_GSIZE_FORMAT " bytes",
                  io.writes, io.reads, io.largest);
  g_assert_cmpuint (io.writes, >=, BIG_SIZE / BIG_CALL);
  g_assert_cmpuint (io.writes, <=, MAX_CALLS);
  g_assert_cmpuint (io.largest, ==, BIG_CALL);
  g_assert_cmpuint (io.big_buffers, ==, 1);

  /* Back from it: 1 MiB reads, no big buffer. */
  cs_fake_smb_install (backing, USER, PASSWORD);
  run (from_share, URL "/src", back, 1);
  cs_test_tree_assert_equal (src, returned);
  cs_fake_smb_io (&io);
  g_test_message ("from the share: %u reads, the largest %" G_GSIZE_FORMAT " bytes", io.reads, io.largest);
  g_assert_cmpuint (io.largest, ==, MIB);
  g_assert_cmpuint (io.big_buffers, ==, 0);

  /* Verified: the copy on the share is read back, and written as before. */
  cs_test_tree_remove (arrived);
  cs_fake_smb_install (backing, USER, PASSWORD);
  cs_job_set_verify (verified, TRUE);
  run (verified, src, URL, 1);
  cs_test_tree_assert_equal (src, arrived);
  cs_fake_smb_io (&io);
  g_test_message ("verified: %u writes, %u reads", io.writes, io.reads);
  g_assert_cmpuint (io.writes, <=, MAX_CALLS);
  g_assert_cmpuint (io.reads, >=, BIG_SIZE / MIB);
  g_assert_cmpuint (io.largest, ==, BIG_CALL);

  cs_smb_set_credentials (NULL, NULL);
  cs_test_tree_remove (backing);
  cs_test_tree_remove (top);
  cs_test_tree_remove (back);
}

/* Many workers on many big files: at most one big buffer per 8 threads. */
static void
test_budget (void)
{
  const guint threads[] = { 8, 16 };
  g_autofree char *top = cs_test_tree_make_tmp ();
  g_autofree char *src = g_build_filename (top, "src", NULL);

  g_assert_cmpint (g_mkdir (src, 0755), ==, 0);
  write_big_files (src, 3);
  cs_smb_set_credentials (NULL, PASSWORD);

  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    {
      g_autofree char *backing = cs_test_tree_make_tmp ();
      g_autofree char *arrived = g_build_filename (backing, "src", NULL);
      g_autoptr(CsJob) job = cs_job_new ();
      CsFakeSmbIo io;

      cs_fake_smb_install (backing, USER, PASSWORD);
      run (job, src, URL, threads[i]);
      cs_test_tree_assert_equal (src, arrived);
      cs_fake_smb_io (&io);
      g_test_message ("%u threads: %u writes through %u big buffers", threads[i], io.writes,
                      io.big_buffers);
      g_assert_cmpuint (io.big_buffers, >=, 1);
      g_assert_cmpuint (io.big_buffers, <=, threads[i] / 8);
      g_assert_cmpuint (io.largest, ==, BIG_CALL);
      cs_test_tree_remove (backing);
    }

  cs_smb_set_credentials (NULL, NULL);
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

  g_test_add_func ("/smb-big/calls", test_calls);
  g_test_add_func ("/smb-big/budget", test_budget);

  status = g_test_run ();
  cs_test_tree_remove (runtime);
  return status;
}
