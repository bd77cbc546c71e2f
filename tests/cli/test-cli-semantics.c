/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include "test-cli.h"

/* Where a copy lands (cp -r's rules), a system tree copied whole, moves,
 * mirrors and the demonstration. */

/* cp -r semantics */

void
test_semantics_into_existing (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *src = fixture_path (f, "src");
  g_autofree char *file = fixture_path (f, "src/alpha.txt");
  g_autofree char *out = fixture_path (f, "out");
  g_autofree char *copy = fixture_path (f, "out/src");
  g_autofree char *copy_file = fixture_path (f, "out/alpha.txt");
  g_auto(CliResult) r = { 0 };

  make_sample_tree (src);
  make_dir (out, 0755);

  run_cli (&r, "copy", src, out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cs_test_tree_assert_equal (src, copy);

  run_cli (&r, "copy", file, out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cs_test_tree_assert_equal (file, copy_file);
}

void
test_semantics_new_path (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *src = fixture_path (f, "src");
  g_autofree char *file = fixture_path (f, "src/sub/beta.bin");
  g_autofree char *out = fixture_path (f, "out");
  g_autofree char *copy = fixture_path (f, "out/renamed");
  g_autofree char *copy_file = fixture_path (f, "out/renamed.bin");
  g_autoptr(GDir) dir = NULL;
  g_auto(CliResult) r = { 0 };
  guint n = 0;

  make_sample_tree (src);
  make_dir (out, 0755);

  run_cli (&r, "copy", src, copy, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cs_test_tree_assert_equal (src, copy);

  run_cli (&r, "copy", file, copy_file, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cs_test_tree_assert_equal (file, copy_file);

  dir = g_dir_open (out, 0, NULL);
  while (g_dir_read_name (dir) != NULL)
    n++;
  g_assert_cmpuint (n, ==, 2);
}

void
test_semantics_several_sources (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *one = fixture_path (f, "one");
  g_autofree char *two = fixture_path (f, "two");
  g_autofree char *file = fixture_path (f, "loose file.txt");
  g_autofree char *out = fixture_path (f, "out");
  g_autofree char *copy_one = fixture_path (f, "out/one");
  g_autofree char *copy_two = fixture_path (f, "out/two");
  g_autofree char *copy_file = fixture_path (f, "out/loose file.txt");
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *json = fixture_path (f, "run.json");
  g_auto(CliResult) r = { 0 };

  make_sample_tree (one);
  make_sample_tree (two);
  write_file (file, "loose\n", -1, 0644);
  set_mtime (file, 1234567890, 123);
  make_dir (out, 0755);

  run_cli (&r, "copy", "--json", json, one, two, file, out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cs_test_tree_assert_equal (one, copy_one);
  cs_test_tree_assert_equal (two, copy_two);
  cs_test_tree_assert_equal (file, copy_file);

  root = load_json (json);
  g_assert_cmpint (json_total (root, "copied", "files"), ==, 2 * count_items (one) + 1);
}

/* "DEST/" names a folder: a file copied to one that does not exist yet goes
 * into it; a folder copied there still becomes it, as with cp -r. */
void
test_semantics_new_folder (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *src = fixture_path (f, "src");
  g_autofree char *file = fixture_path (f, "src/alpha.txt");
  g_autofree char *q = fixture_path (f, "q/");
  g_autofree char *q_file = fixture_path (f, "q/alpha.txt");
  g_autofree char *r_dir = fixture_path (f, "r/");
  g_autofree char *r_copy = fixture_path (f, "r");
  g_autofree char *deep = fixture_path (f, "missing/q/");
  g_auto(CliResult) r = { 0 };

  make_sample_tree (src);

  run_cli (&r, "copy", "--quiet", "--no-history", file, q, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_file_test (q, G_FILE_TEST_IS_DIR));
  cs_test_tree_assert_equal (file, q_file);

  run_cli (&r, "copy", "--quiet", "--no-history", src, r_dir, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cs_test_tree_assert_equal (src, r_copy);

  /* Its parent missing too: the message names the destination, not the file. */
  run_cli (&r, "copy", "--quiet", "--no-history", file, deep, NULL);
  g_assert_cmpint (r.status, ==, 3);
  g_assert_nonnull (strstr (r.err, deep));
  g_assert_null (strstr (r.err, "alpha.txt"));
}

/* A real tree that no test wrote: @data is the path of one. */
void
test_system_tree (Fixture       *f,
                  gconstpointer  data)
{
  const char *src = data;
  g_autofree char *dst = fixture_path (f, "copy");
  g_autofree char *json = fixture_path (f, "run.json");
  g_autoptr(JsonNode) root = NULL;
  g_auto(CliResult) r = { 0 };

  if (!g_file_test (src, G_FILE_TEST_IS_DIR))
    {
      g_autofree char *why = g_strdup_printf ("no %s on this system", src);

      g_test_skip (why);
      return;
    }

  run_cli (&r, "copy", "-q", "--no-flush", "--threads", "16", "--json", json, src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cs_test_tree_assert_equal (src, dst);
  g_assert_cmpuint (cs_test_tree_find_temporaries (dst), ==, 0);

  root = load_json (json);
  g_assert_cmpint (json_total (root, "copied", "bytes"), ==,
                   (gint64) cs_test_tree_sum_file_sizes (src));
  g_assert_cmpint (json_total (root, "copied", "files"), ==, count_items (src));
  g_assert_cmpint (json_total (root, "failed", "files"), ==, 0);
}

/* move: the tree ends up where copy would put it, and the source is gone. */
void
test_move (Fixture       *f,
           gconstpointer  data)
{
  g_autofree char *src = fixture_path (f, "src");
  g_autofree char *ref = fixture_path (f, "ref");
  g_autofree char *dst = fixture_path (f, "dst");
  g_autofree char *moved = fixture_path (f, "dst/src");
  g_auto(CliResult) r = { 0 };
  g_auto(CliResult) c = { 0 };

  make_sample_tree (src);
  run_cli (&c, "copy", src, ref, NULL);
  g_assert_cmpint (c.status, ==, 0);
  make_dir (dst, 0755);
  run_cli (&r, "move", src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "Moved"));
  g_assert_false (g_file_test (src, G_FILE_TEST_EXISTS));
  cs_test_tree_assert_equal (ref, moved);
}

/* mirror: the dry run lists the deletions, --max-delete stops a larger one
 * with status 1, and the mirror makes DEST equal SOURCE. */
void
test_mirror (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *src = fixture_path (f, "src");
  g_autofree char *dst = fixture_path (f, "dst");
  g_autofree char *extra = fixture_path (f, "dst/only-here.txt");
  g_autofree char *extra_dir = fixture_path (f, "dst/old-folder");
  g_autofree char *extra_in = fixture_path (f, "dst/old-folder/x");
  g_auto(CliResult) r = { 0 };

  make_sample_tree (src);
  make_dir (dst, 0755);
  g_assert_true (g_file_set_contents (extra, "x", 1, NULL));
  make_dir (extra_dir, 0755);
  g_assert_true (g_file_set_contents (extra_in, "y", 1, NULL));

  run_cli (&r, "mirror", "--dry-run", src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "delete       "));
  g_assert_nonnull (strstr (r.out, "only-here.txt"));
  g_assert_nonnull (strstr (r.out, "delete folder"));
  g_assert_true (g_file_test (extra, G_FILE_TEST_EXISTS));

  run_cli (&r, "mirror", "--max-delete", "2", src, dst, NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "--max-delete"));
  g_assert_true (g_file_test (extra_in, G_FILE_TEST_EXISTS));

  run_cli (&r, "mirror", src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "Deleted"));
  cs_test_tree_assert_equal (src, dst);
}

/* The demonstration leaves nothing in the user's cache unless asked, and its
 * copies are in the history like any other run. */
void
test_demo_clean (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *home = fixture_path (f, "home");
  g_autofree char *dst = fixture_path (f, "dst");
  g_autofree char *sets = fixture_path (f, "home/cache/copyscope/demo");
  g_autoptr(GPtrArray) records = NULL;
  g_autoptr(GDir) dir = NULL;
  g_auto(CliResult) r = { 0 };

  make_dir (dst, 0755);
  run_cli_at (&r, f->tmp, home, "demo", "--size", "0.2", dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  /* Why small files are slower, in the workers' own time. */
  g_assert_nonnull (strstr (r.out, "The workers' busy time — one big file: "));
  g_assert_nonnull (strstr (r.out, " small files: "));
  g_assert_false (g_file_test (sets, G_FILE_TEST_EXISTS));
  dir = g_dir_open (dst, 0, NULL);
  g_assert_null (g_dir_read_name (dir));
  records = history_records (home);
  g_assert_cmpuint (records->len, ==, 2);

  run_cli_at (&r, f->tmp, home, "demo", "--size", "0.2", "--keep", "--no-history", dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_file_test (sets, G_FILE_TEST_IS_DIR));
  g_clear_pointer (&records, g_ptr_array_unref);
  records = history_records (home);
  g_assert_cmpuint (records->len, ==, 2);
}
