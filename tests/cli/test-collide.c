/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "cs-test-tree.h"

/*
 * Sources that land on one name (issue 37, case 3): cp -r a/x b/x c says
 * "will not overwrite just-created 'c/x' with 'b/x'" and exits 1. The first
 * named keeps its place, whatever the thread count; the later one is not
 * copied (a move leaves it where it is) and is reported naming both; folders
 * of one name merge, and in them the same rule holds name by name.
 */

/* The copyscope-cli under test, from $CS_CLI. */
static const char *cli;

typedef struct {
  char *tmp;
} Fixture;

typedef struct {
  const char *operation;
  const char *threads;
} Params;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->tmp = cs_test_tree_make_tmp ();
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  cs_test_tree_remove (f->tmp);
  g_clear_pointer (&f->tmp, g_free);
}

static char *
path (Fixture    *f,
      const char *rel)
{
  return g_build_filename (f->tmp, rel, NULL);
}

static int
mkdir_at (Fixture    *f,
          const char *rel)
{
  g_autofree char *p = path (f, rel);

  return g_mkdir (p, 0755);
}

static int
lstat_at (Fixture     *f,
          const char  *rel,
          struct stat *st)
{
  g_autofree char *p = path (f, rel);

  return lstat (p, st);
}

static void
write_at (Fixture    *f,
          const char *rel,
          const char *contents)
{
  g_autofree char *p = path (f, rel);
  g_autofree char *parent = g_path_get_dirname (p);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  g_file_set_contents (p, contents, -1, &error);
  g_assert_no_error (error);
}

static char *
read_at (Fixture    *f,
         const char *rel)
{
  g_autofree char *p = path (f, rel);
  g_autoptr(GError) error = NULL;
  char *contents = NULL;

  g_file_get_contents (p, &contents, NULL, &error);
  g_assert_no_error (error);
  return contents;
}

static gboolean
exists_at (Fixture    *f,
           const char *rel)
{
  g_autofree char *p = path (f, rel);

  return g_file_test (p, G_FILE_TEST_EXISTS | G_FILE_TEST_IS_SYMLINK);
}

/* Gives @rel the same mtime as @like: what made the old code skip the later
 * file as "identical". */
static void
same_time (Fixture    *f,
           const char *rel,
           const char *like)
{
  g_autofree char *p = path (f, rel);
  g_autofree char *q = path (f, like);
  struct stat st;
  struct timespec times[2];

  g_assert_cmpint (lstat (q, &st), ==, 0);
  times[0] = st.st_atim;
  times[1] = st.st_mtim;
  g_assert_cmpint (utimensat (AT_FDCWD, p, times, AT_SYMLINK_NOFOLLOW), ==, 0);
}

/* Runs the CLI in the fixture's folder; returns its exit status, @err its
 * standard error. */
static int
run (Fixture     *f,
     char       **err,
     const char  *first,
     ...) G_GNUC_NULL_TERMINATED;

static int
run (Fixture     *f,
     char       **err,
     const char  *first,
     ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *command = NULL;
  int wait_status = 0;
  va_list args;

  g_ptr_array_add (argv, (gpointer) cli);
  va_start (args, first);
  for (const char *arg = first; arg != NULL; arg = va_arg (args, const char *))
    g_ptr_array_add (argv, (gpointer) arg);
  va_end (args);
  g_ptr_array_add (argv, NULL);

  command = g_strjoinv (" ", (char **) argv->pdata);
  g_spawn_sync (f->tmp, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                &out, err, &wait_status, &error);
  g_assert_no_error (error);
  g_test_message ("%s: exit %d\nstderr:\n%s", command, WEXITSTATUS (wait_status), *err);
  g_assert_true (WIFEXITED (wait_status));
  return WEXITSTATUS (wait_status);
}

/* The line of @err about @item names @first and @target. */
static void
assert_reported (const char *err,
                 const char *item,
                 const char *first,
                 const char *target)
{
  g_auto(GStrv) lines = g_strsplit (err, "\n", -1);
  g_autofree char *prefix = g_strconcat (item, ":", NULL);
  g_autofree char *quoted_first = g_strconcat ("“", first, "”", NULL);
  g_autofree char *quoted_target = g_strconcat ("“", target, "”", NULL);

  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], prefix))
      {
        g_assert_nonnull (strstr (lines[i], quoted_first));
        g_assert_nonnull (strstr (lines[i], quoted_target));
        return;
      }
  g_error ("no line about %s in:\n%s", item, err);
}

static void
test_files (Fixture       *f,
            gconstpointer  data)
{
  const Params *p = data;
  gboolean move = strcmp (p->operation, "move") == 0;
  g_autofree char *err = NULL;
  g_autofree char *copied = NULL;
  g_autofree char *left = NULL;

  write_at (f, "a/x", "A\n");
  write_at (f, "b/x", "B\n");
  same_time (f, "b/x", "a/x");
  g_assert_cmpint (mkdir_at (f, "c"), ==, 0);

  g_assert_cmpint (run (f, &err, p->operation, "--no-history", "--threads", p->threads,
                        "a/x", "b/x", "c", NULL), ==, 1);
  copied = read_at (f, "c/x");
  g_assert_cmpstr (copied, ==, "A\n");
  assert_reported (err, "b/x", "a/x", "c/x");
  g_assert_null (strstr (err, "identical"));
  /* The later one is not moved: it stays where it was, whole. */
  left = read_at (f, "b/x");
  g_assert_cmpstr (left, ==, "B\n");
  g_assert_true (exists_at (f, "a/x") != move);

  /* Run after run: the same outcome, never the later one over the first. */
  if (!move)
    {
      g_clear_pointer (&err, g_free);
      g_clear_pointer (&copied, g_free);
      g_assert_cmpint (run (f, &err, p->operation, "--no-history", "--threads", p->threads,
                            "a/x", "b/x", "c", NULL), ==, 1);
      copied = read_at (f, "c/x");
      g_assert_cmpstr (copied, ==, "A\n");
      assert_reported (err, "b/x", "a/x", "c/x");
    }
}

/* A folder and a file of one name: whichever is named later is not copied. */
static void
test_folder_and_file (Fixture       *f,
                      gconstpointer  data)
{
  const Params *p = data;
  g_autofree char *err = NULL;
  g_autofree char *kept = NULL;

  write_at (f, "a/x/inside", "folder's\n");
  write_at (f, "b/x", "file\n");
  g_assert_cmpint (mkdir_at (f, "c"), ==, 0);

  g_assert_cmpint (run (f, &err, p->operation, "--no-history", "--threads", p->threads,
                        "b/x", "a/x", "c", NULL), ==, 1);
  kept = read_at (f, "c/x");
  g_assert_cmpstr (kept, ==, "file\n");
  assert_reported (err, "a/x", "b/x", "c/x");
  g_assert_true (exists_at (f, "a/x/inside"));
}

/* Two cameras' DCIM folders: merged; IMG_0001.JPG is the first camera's, the
 * second's is reported and (in a move) left where it is. */
static void
test_folders (Fixture       *f,
              gconstpointer  data)
{
  const Params *p = data;
  gboolean move = strcmp (p->operation, "move") == 0;
  static const char *only_first[] = { "DCIM/IMG_0002.JPG", "DCIM/100/a.JPG" };
  static const char *only_second[] = { "DCIM/IMG_0003.JPG", "DCIM/100/b.JPG", "DCIM/200/c.JPG" };
  static const char *both[] = { "DCIM/IMG_0001.JPG", "DCIM/100/same.JPG" };
  g_autofree char *err = NULL;
  struct stat first_st, copy_st;

  for (guint i = 0; i < G_N_ELEMENTS (only_first); i++)
    {
      g_autofree char *rel = g_strconcat ("cam1/", only_first[i], NULL);
      write_at (f, rel, rel);
    }
  for (guint i = 0; i < G_N_ELEMENTS (only_second); i++)
    {
      g_autofree char *rel = g_strconcat ("cam2/", only_second[i], NULL);
      write_at (f, rel, rel);
    }
  for (guint i = 0; i < G_N_ELEMENTS (both); i++)
    {
      g_autofree char *one = g_strconcat ("cam1/", both[i], NULL);
      g_autofree char *two = g_strconcat ("cam2/", both[i], NULL);

      write_at (f, one, one);
      write_at (f, two, two);
      same_time (f, two, one);
    }
  /* In one a folder, in the other a file: the first's stays. */
  write_at (f, "cam1/DCIM/MISC/note", "folder\n");
  write_at (f, "cam2/DCIM/MISC", "file\n");
  g_assert_cmpint (lstat_at (f, "cam1/DCIM", &first_st), ==, 0);
  g_assert_cmpint (mkdir_at (f, "out"), ==, 0);

  g_assert_cmpint (run (f, &err, p->operation, "--no-history", "--threads", p->threads,
                        "cam1/DCIM", "cam2/DCIM", "out", NULL), ==, 1);

  for (guint i = 0; i < G_N_ELEMENTS (only_first); i++)
    {
      g_autofree char *src = g_strconcat ("cam1/", only_first[i], NULL);
      g_autofree char *dst = g_strconcat ("out/", only_first[i], NULL);
      g_autofree char *got = read_at (f, dst);

      g_assert_cmpstr (got, ==, src);
      g_assert_true (exists_at (f, src) != move);
    }
  for (guint i = 0; i < G_N_ELEMENTS (only_second); i++)
    {
      g_autofree char *src = g_strconcat ("cam2/", only_second[i], NULL);
      g_autofree char *dst = g_strconcat ("out/", only_second[i], NULL);
      g_autofree char *got = read_at (f, dst);

      g_assert_cmpstr (got, ==, src);
      g_assert_true (exists_at (f, src) != move);
    }
  for (guint i = 0; i < G_N_ELEMENTS (both); i++)
    {
      g_autofree char *one = g_strconcat ("cam1/", both[i], NULL);
      g_autofree char *two = g_strconcat ("cam2/", both[i], NULL);
      g_autofree char *dst = g_strconcat ("out/", both[i], NULL);
      g_autofree char *got = read_at (f, dst);
      g_autofree char *left = read_at (f, two);

      g_assert_cmpstr (got, ==, one);
      g_assert_cmpstr (left, ==, two);
      assert_reported (err, two, one, dst);
    }
  g_assert_true (exists_at (f, "out/DCIM/MISC/note"));
  g_assert_true (exists_at (f, "cam2/DCIM/MISC"));
  assert_reported (err, "cam2/DCIM/MISC", "cam1/DCIM/MISC", "out/DCIM/MISC");

  /* The merged folder has the first's times, however the workers finished. */
  if (!move)
    {
      g_assert_cmpint (lstat_at (f, "out/DCIM", &copy_st), ==, 0);
      g_assert_cmpint (copy_st.st_mtim.tv_sec, ==, first_st.st_mtim.tv_sec);
      g_assert_cmpint (copy_st.st_mtim.tv_nsec, ==, first_st.st_mtim.tv_nsec);
    }
}

/* Many files in two folders of one name, many threads: the outcome is the
 * operand order's every time. */
static void
test_many (Fixture       *f,
           gconstpointer  data)
{
  const Params *p = data;
  g_autofree char *err = NULL;

  for (guint i = 0; i < 200; i++)
    {
      g_autofree char *one = g_strdup_printf ("one/d/f%03u", i);
      g_autofree char *two = g_strdup_printf ("two/d/f%03u", i);

      write_at (f, one, "first\n");
      write_at (f, two, "second\n");
      same_time (f, two, one);
    }
  g_assert_cmpint (run (f, &err, p->operation, "--no-history", "--threads", p->threads,
                        "one/d", "two/d", "out", NULL), ==, 1);
  for (guint i = 0; i < 200; i++)
    {
      g_autofree char *dst = g_strdup_printf ("out/d/f%03u", i);
      g_autofree char *two = g_strdup_printf ("two/d/f%03u", i);
      g_autofree char *got = read_at (f, dst);
      g_autofree char *left = read_at (f, two);

      g_assert_cmpstr (got, ==, "first\n");
      g_assert_cmpstr (left, ==, "second\n");
    }
}

static void
add (const char *name,
     void (*func) (Fixture *, gconstpointer))
{
  static const Params params[] = {
    { "copy", "1" }, { "copy", "2" }, { "copy", "16" },
    { "move", "1" }, { "move", "2" }, { "move", "16" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (params); i++)
    {
      g_autofree char *test_path = g_strdup_printf ("/collide/%s/%s/threads-%s", name,
                                                    params[i].operation, params[i].threads);

      g_test_add (test_path, Fixture, &params[i], fixture_setup, func, fixture_teardown);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  cli = g_getenv ("CS_CLI");
  if (cli == NULL || !g_file_test (cli, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_printerr ("Set CS_CLI to the copyscope-cli to test (meson test does).\n");
      return 1;
    }

  add ("files", test_files);
  add ("folder-and-file", test_folder_and_file);
  add ("folders", test_folders);
  add ("many", test_many);

  return g_test_run ();
}
