/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-generate"

#include "config.h"

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "cs-generate.h"
#include "cs-test-async.h"

/* What a walk over a generated tree found, per file, by relative path. */
typedef struct {
  guint64 size;
  gint64  mtime;
  gint64  mtime_nsec;
  char   *contents;
} FileInfo;

static void
file_info_free (gpointer data)
{
  FileInfo *info = data;

  g_free (info->contents);
  g_free (info);
}

static GHashTable *walk_table;
static gsize walk_root_len;
static guint walk_max_depth;

static int
walk_cb (const char        *path,
         const struct stat *st,
         int                type,
         struct FTW        *ftw)
{
  FileInfo *info;
  GError *error = NULL;
  gsize len = 0;

  if (type == FTW_D || type == FTW_DP)
    return 0;

  g_assert_cmpint (type, ==, FTW_F);
  g_assert_true (S_ISREG (st->st_mode));

  info = g_new0 (FileInfo, 1);
  info->size = (guint64) st->st_size;
  info->mtime = st->st_mtim.tv_sec;
  info->mtime_nsec = st->st_mtim.tv_nsec;
  g_file_get_contents (path, &info->contents, &len, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (len, ==, info->size);

  /* Depth 1 is a file right in the top folder. */
  walk_max_depth = MAX (walk_max_depth, (guint) ftw->level);
  g_hash_table_insert (walk_table, g_strdup (path + walk_root_len + 1), info);

  return 0;
}

static GHashTable *
walk_tree (const char *root)
{
  GHashTable *table = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, file_info_free);

  walk_table = table;
  walk_root_len = strlen (root);
  walk_max_depth = 0;
  g_assert_cmpint (nftw (root, walk_cb, 16, FTW_PHYS), ==, 0);
  walk_table = NULL;

  return table;
}

static int
remove_cb (const char        *path,
           const struct stat *st,
           int                type,
           struct FTW        *ftw)
{
  return remove (path);
}

static void
remove_tree (const char *root)
{
  g_assert_cmpint (nftw (root, remove_cb, 16, FTW_DEPTH | FTW_PHYS), ==, 0);
}

typedef struct {
  char *tmp;
} Fixture;

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  GError *error = NULL;

  fixture->tmp = g_dir_make_tmp ("test-generate-XXXXXX", &error);
  g_assert_no_error (error);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  remove_tree (fixture->tmp);
  g_free (fixture->tmp);
}

static char *
fixture_path (Fixture    *fixture,
              const char *name)
{
  return g_build_filename (fixture->tmp, name, NULL);
}

static void
generate_ok (CsScenario  scenario,
             const char *dir,
             double      scale,
             guint64     seed)
{
  GError *error = NULL;

  g_assert_true (cs_generate_sync (scenario, dir, scale, seed, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
}

static void
test_scenario_names (void)
{
  static const char *names[] = { "big", "images", "text", "small", "many" };

  for (guint i = 0; i < CS_N_SCENARIOS; i++)
    {
      CsScenario scenario;

      g_assert_cmpstr (cs_scenario_to_string ((CsScenario) i), ==, names[i]);
      g_assert_true (cs_scenario_from_string (names[i], &scenario));
      g_assert_cmpint (scenario, ==, i);
      g_assert_nonnull (cs_scenario_describe ((CsScenario) i));
    }

  g_assert_true (cs_scenario_from_string ("Small", NULL));
  g_assert_false (cs_scenario_from_string ("huge", NULL));
  g_assert_false (cs_scenario_from_string ("", NULL));
}

static void
test_estimate_full_scale (void)
{
  guint64 files, bytes;

  cs_scenario_estimate (CS_SCENARIO_BIG, 1.0, &files, &bytes);
  g_assert_cmpuint (files, ==, 1);
  g_assert_cmpuint (bytes, ==, G_GUINT64_CONSTANT (2147483648));

  cs_scenario_estimate (CS_SCENARIO_IMAGES, 1.0, &files, &bytes);
  g_assert_cmpuint (files, ==, 270);
  g_assert_cmpuint (bytes, >=, 270 * G_GUINT64_CONSTANT (7340032));
  g_assert_cmpuint (bytes, <=, 270 * G_GUINT64_CONSTANT (8388608));

  cs_scenario_estimate (CS_SCENARIO_TEXT, 1.0, &files, &bytes);
  g_assert_cmpuint (files, ==, 4386);
  g_assert_cmpuint (bytes, >=, 4386 * G_GUINT64_CONSTANT (409600));
  g_assert_cmpuint (bytes, <=, 4386 * G_GUINT64_CONSTANT (614400));

  cs_scenario_estimate (CS_SCENARIO_SMALL, 1.0, &files, &bytes);
  g_assert_cmpuint (files, ==, 20000);
  g_assert_cmpuint (bytes, ==, 20000 * G_GUINT64_CONSTANT (12288));

  cs_scenario_estimate (CS_SCENARIO_MANY, 1.0, &files, &bytes);
  g_assert_cmpuint (files, ==, 100000);
  /* Uniform over 0–2048 bytes: the mean is close to 1 KiB. */
  g_assert_cmpuint (bytes, >, 100000 * G_GUINT64_CONSTANT (1000));
  g_assert_cmpuint (bytes, <, 100000 * G_GUINT64_CONSTANT (1048));
}

static void
test_estimate_scale (void)
{
  guint64 files, bytes;

  cs_scenario_estimate (CS_SCENARIO_SMALL, 0.1, &files, &bytes);
  g_assert_cmpuint (files, ==, 2000);
  g_assert_cmpuint (bytes, ==, 2000 * G_GUINT64_CONSTANT (12288));

  cs_scenario_estimate (CS_SCENARIO_MANY, 10.0, &files, NULL);
  g_assert_cmpuint (files, ==, 1000000);

  cs_scenario_estimate (CS_SCENARIO_TEXT, 0.01, &files, NULL);
  g_assert_cmpuint (files, ==, 44);

  /* big scales its size, not its count. */
  cs_scenario_estimate (CS_SCENARIO_BIG, 0.01, &files, &bytes);
  g_assert_cmpuint (files, ==, 1);
  g_assert_cmpuint (bytes, ==, 21474836);

  /* Never fewer than one file. */
  cs_scenario_estimate (CS_SCENARIO_IMAGES, 1e-9, &files, NULL);
  g_assert_cmpuint (files, ==, 1);
  cs_scenario_estimate (CS_SCENARIO_BIG, 1e-15, &files, &bytes);
  g_assert_cmpuint (files, ==, 1);
  g_assert_cmpuint (bytes, ==, 1);
}

static void
assert_content_sane (GHashTable *tree)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, tree);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      FileInfo *info = value;

      /* Not a single zero byte: nothing looks like a hole, no file is blank. */
      if (info->size > 0)
        g_assert_null (memchr (info->contents, 0, info->size));
      g_assert_cmpint (info->mtime, >=, 1704067200);
      g_assert_cmpint (info->mtime_nsec, ==, 0);
    }
}

typedef struct {
  CsScenario  scenario;
  double      scale;
  guint64     n_files;
  guint64     min_size;
  guint64     max_size;
  guint       depth;
  const char *sample;
} ScenarioCase;

static const ScenarioCase scenario_cases[] = {
  { CS_SCENARIO_BIG,    0.001, 1,    2147484, 2147484, 1, "big.bin" },
  { CS_SCENARIO_IMAGES, 0.01,  3,    7340032, 8388608, 2, "000/IMG_00002.jpg" },
  { CS_SCENARIO_TEXT,   0.01,  44,   409600,  614400,  1, "doc_00043.txt" },
  { CS_SCENARIO_SMALL,  0.01,  200,  12288,   12288,   1, "file_00199.dat" },
  { CS_SCENARIO_MANY,   0.01,  1000, 0,       2048,    4, "d00/d0/d9/f99.dat" },
};

static void
test_scenario_layout (Fixture       *fixture,
                      gconstpointer  data)
{
  const ScenarioCase *c = data;
  g_autofree char *dir = fixture_path (fixture, "tree");
  g_autoptr(GHashTable) tree = NULL;
  GHashTableIter iter;
  gpointer key, value;
  guint64 est_files, est_bytes, total = 0;
  gboolean sizes_vary = FALSE;
  guint64 first_size = G_MAXUINT64;

  generate_ok (c->scenario, dir, c->scale, 7);
  tree = walk_tree (dir);

  cs_scenario_estimate (c->scenario, c->scale, &est_files, &est_bytes);
  g_assert_cmpuint (g_hash_table_size (tree), ==, c->n_files);
  g_assert_cmpuint (est_files, ==, c->n_files);
  g_assert_cmpuint (walk_max_depth, ==, c->depth);
  g_assert_true (g_hash_table_contains (tree, c->sample));

  g_hash_table_iter_init (&iter, tree);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      FileInfo *info = value;

      g_assert_cmpuint (info->size, >=, c->min_size);
      g_assert_cmpuint (info->size, <=, c->max_size);
      total += info->size;
      if (first_size != G_MAXUINT64 && info->size != first_size)
        sizes_vary = TRUE;
      first_size = info->size;
    }

  g_assert_cmpuint (total, ==, est_bytes);
  g_assert_cmpint (sizes_vary, ==, c->min_size != c->max_size && c->n_files > 1);
  assert_content_sane (tree);
}

static void
assert_trees_equal (GHashTable *a,
                    GHashTable *b)
{
  GHashTableIter iter;
  gpointer key, value;

  g_assert_cmpuint (g_hash_table_size (a), ==, g_hash_table_size (b));

  g_hash_table_iter_init (&iter, a);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      FileInfo *fa = value;
      FileInfo *fb = g_hash_table_lookup (b, key);

      g_assert_nonnull (fb);
      g_assert_cmpuint (fa->size, ==, fb->size);
      g_assert_cmpint (fa->mtime, ==, fb->mtime);
      g_assert_cmpmem (fa->contents, fa->size, fb->contents, fb->size);
    }
}

static void
test_determinism (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autofree char *one = fixture_path (fixture, "one");
  g_autofree char *two = fixture_path (fixture, "two");
  g_autofree char *other = fixture_path (fixture, "other");
  g_autoptr(GHashTable) tree_one = NULL;
  g_autoptr(GHashTable) tree_two = NULL;
  g_autoptr(GHashTable) tree_other = NULL;
  g_autoptr(GHashTable) tree_again = NULL;
  GHashTableIter iter;
  gpointer key, value;
  GStatBuf st_one, st_two;

  generate_ok (CS_SCENARIO_MANY, one, 0.005, 42);
  generate_ok (CS_SCENARIO_MANY, two, 0.005, 42);
  generate_ok (CS_SCENARIO_MANY, other, 0.005, 43);

  tree_one = walk_tree (one);
  tree_two = walk_tree (two);
  tree_other = walk_tree (other);

  assert_trees_equal (tree_one, tree_two);

  /* Folder times are part of the tree a copy has to reproduce. */
  g_assert_cmpint (g_stat (one, &st_one), ==, 0);
  g_assert_cmpint (g_stat (two, &st_two), ==, 0);
  g_assert_cmpint (st_one.st_mtime, ==, st_two.st_mtime);

  /* Another seed: the same names and sizes, every non-empty file different. */
  g_assert_cmpuint (g_hash_table_size (tree_one), ==, g_hash_table_size (tree_other));
  g_hash_table_iter_init (&iter, tree_one);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      FileInfo *fa = value;
      FileInfo *fb = g_hash_table_lookup (tree_other, key);

      g_assert_nonnull (fb);
      g_assert_cmpuint (fa->size, ==, fb->size);
      if (fa->size > 0)
        g_assert_true (memcmp (fa->contents, fb->contents, fa->size) != 0);
    }

  /* Regenerating over an existing tree gives the same tree again. */
  generate_ok (CS_SCENARIO_MANY, one, 0.005, 42);
  tree_again = walk_tree (one);
  assert_trees_equal (tree_one, tree_again);
}

static void
test_big_chunks_differ (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autofree char *dir = fixture_path (fixture, "big");
  g_autoptr(GHashTable) tree = NULL;
  FileInfo *info;
  const gsize mib = 1024 * 1024;

  /* 5 MiB: more than one 1 MiB write and more than the 4 MiB random block. */
  generate_ok (CS_SCENARIO_BIG, dir, 5.0 / 2048.0, 1);
  tree = walk_tree (dir);
  info = g_hash_table_lookup (tree, "big.bin");
  g_assert_nonnull (info);
  g_assert_cmpuint (info->size, ==, 5 * mib);

  for (gsize i = 1; i < 5; i++)
    g_assert_true (memcmp (info->contents, info->contents + i * mib, mib) != 0);
  assert_content_sane (tree);
}

static void
test_files_sync (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autofree char *dir = fixture_path (fixture, "demo");
  g_autoptr(GHashTable) tree = NULL;
  GError *error = NULL;
  FileInfo *first, *last;

  g_assert_true (cs_generate_files_sync (dir, 400, 12288, 3, NULL, NULL, NULL, &error));
  g_assert_no_error (error);

  tree = walk_tree (dir);
  g_assert_cmpuint (g_hash_table_size (tree), ==, 400);
  g_assert_cmpuint (walk_max_depth, ==, 1);
  first = g_hash_table_lookup (tree, "file-001.bin");
  last = g_hash_table_lookup (tree, "file-400.bin");
  g_assert_nonnull (first);
  g_assert_nonnull (last);
  g_assert_cmpuint (first->size, ==, 12288);
  g_assert_true (memcmp (first->contents, last->contents, 12288) != 0);
  assert_content_sane (tree);

  g_assert_false (cs_generate_files_sync (dir, 0, 12288, 3, NULL, NULL, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
}

static void
test_bad_scale (Fixture       *fixture,
                gconstpointer  data)
{
  g_autofree char *dir = fixture_path (fixture, "never");
  const double scales[] = { 0.0, -1.0, NAN, INFINITY };

  for (guint i = 0; i < G_N_ELEMENTS (scales); i++)
    {
      GError *error = NULL;

      g_assert_false (cs_generate_sync (CS_SCENARIO_SMALL, dir, scales[i], 1,
                                        NULL, NULL, NULL, &error));
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
      g_clear_error (&error);
    }

  g_assert_false (g_file_test (dir, G_FILE_TEST_EXISTS));
}

static void
test_error_names_path (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autofree char *blocker = fixture_path (fixture, "blocker");
  g_autofree char *dir = g_build_filename (blocker, "tree", NULL);
  GError *error = NULL;

  g_assert_true (g_file_set_contents (blocker, "x", 1, &error));
  g_assert_no_error (error);

  g_assert_false (cs_generate_sync (CS_SCENARIO_SMALL, dir, 0.001, 1, NULL, NULL, NULL, &error));
  g_assert_nonnull (error);
  g_assert_true (error->domain == G_IO_ERROR);
  g_assert_nonnull (strstr (error->message, "blocker"));
  g_clear_error (&error);
}

typedef struct {
  guint   calls;
  guint64 last_files;
  guint64 last_bytes;
  guint64 files_total;
  guint64 bytes_total;
  GCancellable  *cancel_on_first;
} ProgressLog;

static void
progress_cb (guint64  files_done,
             guint64  files_total,
             guint64  bytes_done,
             guint64  bytes_total,
             gpointer user_data)
{
  ProgressLog *log = user_data;

  g_assert_cmpuint (files_done, >=, log->last_files);
  g_assert_cmpuint (bytes_done, >=, log->last_bytes);
  g_assert_cmpuint (files_done, <=, files_total);
  g_assert_cmpuint (bytes_done, <=, bytes_total);

  log->calls++;
  log->last_files = files_done;
  log->last_bytes = bytes_done;
  log->files_total = files_total;
  log->bytes_total = bytes_total;

  if (log->cancel_on_first != NULL)
    g_cancellable_cancel (log->cancel_on_first);
}

static void
test_progress (Fixture       *fixture,
               gconstpointer  data)
{
  g_autofree char *dir = fixture_path (fixture, "tree");
  ProgressLog log = { 0, };
  GError *error = NULL;
  guint64 files, bytes;

  g_assert_true (cs_generate_sync (CS_SCENARIO_TEXT, dir, 0.01, 5, progress_cb, &log, NULL, &error));
  g_assert_no_error (error);

  cs_scenario_estimate (CS_SCENARIO_TEXT, 0.01, &files, &bytes);
  g_assert_cmpuint (log.calls, >=, 1);
  g_assert_cmpuint (log.files_total, ==, files);
  g_assert_cmpuint (log.bytes_total, ==, bytes);
  g_assert_cmpuint (log.last_files, ==, files);
  g_assert_cmpuint (log.last_bytes, ==, bytes);
}

static void
test_cancel (Fixture       *fixture,
             gconstpointer  data)
{
  g_autofree char *dir = fixture_path (fixture, "tree");
  g_autofree char *dir2 = fixture_path (fixture, "tree2");
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GCancellable) later = g_cancellable_new ();
  g_autofree char *big = NULL;
  ProgressLog log = { 0, };
  GError *error = NULL;

  g_cancellable_cancel (cancellable);
  g_assert_false (cs_generate_sync (CS_SCENARIO_SMALL, dir, 0.01, 1, NULL, NULL, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);

  /* Cancelled from the first progress report, while the file is being written:
   * 2 GiB take well over the 100 ms between reports. */
  log.cancel_on_first = later;
  g_assert_false (cs_generate_sync (CS_SCENARIO_BIG, dir2, 1.0, 1, progress_cb, &log, later, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  g_assert_cmpuint (log.calls, ==, 1);

  /* The half-written file is removed rather than left looking complete. */
  big = g_build_filename (dir2, "big.bin", NULL);
  g_assert_false (g_file_test (big, G_FILE_TEST_EXISTS));
}

static void
async_progress_cb (guint64  files_done,
                   guint64  files_total,
                   guint64  bytes_done,
                   guint64  bytes_total,
                   gpointer user_data)
{
  /* Only ever set: the main thread reads it after the task is over. */
  if (!g_main_context_is_owner (g_main_context_default ()))
    *(gboolean *) user_data = TRUE;
}

/* The async form writes what the sync one writes, off the main thread, and
 * answers on the main context; a cancelled one answers G_IO_ERROR_CANCELLED. */
static void
test_async (Fixture       *fixture,
            gconstpointer  data)
{
  g_autofree char *sync_dir = fixture_path (fixture, "sync");
  g_autofree char *async_dir = fixture_path (fixture, "async");
  g_autofree char *cancelled_dir = fixture_path (fixture, "cancelled");
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GHashTable) tree_sync = NULL;
  g_autoptr(GHashTable) tree_async = NULL;
  GAsyncResult *result = NULL;
  gboolean progress_off_main = FALSE;
  GError *error = NULL;

  generate_ok (CS_SCENARIO_TEXT, sync_dir, 0.01, 9);
  cs_generate_async (CS_SCENARIO_TEXT, async_dir, 0.01, 9, async_progress_cb, &progress_off_main,
                     NULL, cs_test_async_store, &result);
  g_assert_true (cs_generate_finish (cs_test_async_wait (&result), &error));
  g_assert_no_error (error);
  g_assert_true (progress_off_main);
  tree_sync = walk_tree (sync_dir);
  tree_async = walk_tree (async_dir);
  assert_trees_equal (tree_sync, tree_async);
  g_clear_object (&result);

  g_cancellable_cancel (cancellable);
  cs_generate_async (CS_SCENARIO_SMALL, cancelled_dir, 0.01, 1, NULL, NULL,
                     cancellable, cs_test_async_store, &result);
  g_assert_false (cs_generate_finish (cs_test_async_wait (&result), &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  g_clear_object (&result);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/generate/scenario-names", test_scenario_names);
  g_test_add_func ("/generate/estimate/full-scale", test_estimate_full_scale);
  g_test_add_func ("/generate/estimate/scale", test_estimate_scale);

  for (guint i = 0; i < G_N_ELEMENTS (scenario_cases); i++)
    {
      g_autofree char *name =
        g_strdup_printf ("/generate/layout/%s", cs_scenario_to_string (scenario_cases[i].scenario));

      g_test_add (name, Fixture, &scenario_cases[i],
                  fixture_setup, test_scenario_layout, fixture_teardown);
    }

  g_test_add ("/generate/determinism", Fixture, NULL,
              fixture_setup, test_determinism, fixture_teardown);
  g_test_add ("/generate/big-chunks-differ", Fixture, NULL,
              fixture_setup, test_big_chunks_differ, fixture_teardown);
  g_test_add ("/generate/files", Fixture, NULL,
              fixture_setup, test_files_sync, fixture_teardown);
  g_test_add ("/generate/bad-scale", Fixture, NULL,
              fixture_setup, test_bad_scale, fixture_teardown);
  g_test_add ("/generate/error-names-path", Fixture, NULL,
              fixture_setup, test_error_names_path, fixture_teardown);
  g_test_add ("/generate/progress", Fixture, NULL,
              fixture_setup, test_progress, fixture_teardown);
  g_test_add ("/generate/async", Fixture, NULL,
              fixture_setup, test_async, fixture_teardown);
  g_test_add ("/generate/cancel", Fixture, NULL,
              fixture_setup, test_cancel, fixture_teardown);

  return g_test_run ();
}
