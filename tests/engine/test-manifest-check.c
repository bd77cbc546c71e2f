/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-manifest-check"

#include "config.h"

#include <glib/gstdio.h>

#include "copyscope-engine.h"
#include "cs-test-async.h"
#include "cs-test-tree.h"

/*
 * cs_manifest_check_async, as the window runs a check: its progress on the
 * check's thread, its record of kind "check", and Cancel. (The checking
 * itself is tested through copyscope-cli check in tests/cli/test-manifest.)
 */

static void
write_text (const char *path,
            const char *text)
{
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
}

/* A sha256sum line for @text at @path. */
static void
append_line (GString    *out,
             const char *path,
             const char *text)
{
  g_autoptr(GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  guint8 digest[32];
  gsize len = sizeof digest;

  g_checksum_update (sum, (const guchar *) text, -1);
  g_checksum_get_digest (sum, digest, &len);
  cs_manifest_append_line (out, CS_MANIFEST_SHA256, digest, path);
}

typedef struct {
  guint           calls;
  gboolean        off_main;
  CsManifestCheck last;
  guint64         files_done;
} Progress;

/* the check's thread */
static void
progress_cb (const CsSample        *sample,
             const CsManifestCheck *so_far,
             gpointer               user_data)
{
  Progress *p = user_data;

  p->calls++;
  p->off_main = !g_main_context_is_owner (g_main_context_default ());
  p->last = *so_far;
  p->files_done = sample->files_done;
}

/* A tree with a file changed, one gone and one added since its list. */
static char *
make_case (const char *root)
{
  g_autofree char *dir = g_build_filename (root, "dir", NULL);
  g_autofree char *sub = g_build_filename (dir, "sub", NULL);
  g_autofree char *a = g_build_filename (dir, "a.txt", NULL);
  g_autofree char *b = g_build_filename (dir, "b.txt", NULL);
  g_autofree char *c = g_build_filename (sub, "c.txt", NULL);
  g_autofree char *d = g_build_filename (dir, "d.txt", NULL);
  g_autofree char *list = g_build_filename (root, "SUMS.sha256", NULL);
  g_autoptr(GString) lines = g_string_new (NULL);

  g_assert_cmpint (g_mkdir_with_parents (sub, 0755), ==, 0);
  write_text (a, "alpha\n");
  write_text (b, "bravo, changed\n");
  write_text (c, "charlie\n");
  write_text (d, "delta, added\n");
  append_line (lines, "a.txt", "alpha\n");
  append_line (lines, "b.txt", "bravo\n");
  append_line (lines, "sub/c.txt", "charlie\n");
  append_line (lines, "gone.txt", "gone\n");
  write_text (list, lines->str);
  return g_steal_pointer (&dir);
}

static void
test_async (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *dir = make_case (root);
  g_autofree char *list = g_build_filename (root, "SUMS.sha256", NULL);
  g_autoptr(CsRun) run = cs_run_new ();
  g_autoptr(GError) error = NULL;
  GAsyncResult *result = NULL;
  CsManifestCheck out = { 0 };
  Progress p = { 0 };

  cs_manifest_check_async (list, dir, 2, run, progress_cb, &p, NULL, cs_test_async_store, &result);
  g_assert_true (cs_manifest_check_finish (cs_test_async_wait (&result), &out, &error));
  g_assert_no_error (error);
  g_object_unref (result);

  g_assert_cmpuint (out.listed, ==, 4);
  g_assert_cmpuint (out.matched, ==, 2);
  g_assert_cmpuint (out.changed, ==, 1);
  g_assert_cmpuint (out.missing, ==, 1);
  g_assert_cmpuint (out.extra, ==, 1);
  g_assert_cmpuint (out.unreadable, ==, 0);

  /* At least the final sample, on the check's thread, with every count. */
  g_assert_cmpuint (p.calls, >=, 1);
  g_assert_true (p.off_main);
  g_assert_cmpuint (p.last.listed, ==, 4);
  g_assert_cmpuint (p.last.changed, ==, 1);
  g_assert_cmpuint (p.files_done, ==, 4);

  g_assert_cmpstr (cs_run_get_kind (run), ==, "check");
  g_assert_cmpstr (cs_run_get_outcome (run), ==, "completed");
  g_assert_cmpuint (cs_run_get_n_errors (run), ==, 3);

  cs_test_tree_remove (root);
}

/* Cancelled, the check ends with G_IO_ERROR_CANCELLED and says so in its
 * record. */
static void
test_cancelled (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *dir = make_case (root);
  g_autofree char *list = g_build_filename (root, "SUMS.sha256", NULL);
  g_autoptr(CsRun) run = cs_run_new ();
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  GAsyncResult *result = NULL;
  CsManifestCheck out = { 0 };

  g_cancellable_cancel (cancellable);
  cs_manifest_check_async (list, dir, 2, run, NULL, NULL, cancellable, cs_test_async_store, &result);
  g_assert_false (cs_manifest_check_finish (cs_test_async_wait (&result), &out, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_object_unref (result);
  g_assert_cmpstr (cs_run_get_outcome (run), ==, "cancelled");
  /* Nothing read: the folder is not walked either. */
  g_assert_cmpuint (out.matched + out.changed + out.missing, ==, 0);
  g_assert_cmpuint (out.extra, ==, 0);

  cs_test_tree_remove (root);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/manifest-check/async", test_async);
  g_test_add_func ("/manifest-check/cancelled", test_cancelled);

  return g_test_run ();
}
