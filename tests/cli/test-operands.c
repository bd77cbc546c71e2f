/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "cs-test-tree.h"

/*
 * What users name: each rule of the operand contract (docs/RELIABILITY.md,
 * "What users name") run through copyscope-cli as a user types it, from the
 * folder the names are relative to, and where Copyscope does what cp -a or mv
 * does, against what they do on a twin of the same tree. Second filesystems
 * (tmpfs) and bind mounts need root, which CI has: a test that cannot make
 * one fails.
 */

/* The copyscope-cli under test, from $CS_CLI. */
static const char *cli;

typedef struct {
  char      *tmp;
  GPtrArray *mounts;      /* unmounted in teardown, last first */
} Fixture;

typedef struct {
  int   status;
  char *out;
  char *err;
} Result;

static void
result_clear (Result *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Result, result_clear)

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->tmp = cs_test_tree_make_tmp ();
  f->mounts = g_ptr_array_new_with_free_func (g_free);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  for (guint i = f->mounts->len; i > 0; i--)
    {
      const char *path = g_ptr_array_index (f->mounts, i - 1);

      if (umount (path) != 0 && umount2 (path, MNT_DETACH) != 0)
        g_printerr ("cannot unmount %s: %s\n", path, g_strerror (errno));
    }
  g_ptr_array_unref (f->mounts);
  cs_test_tree_remove (f->tmp);
  g_free (f->tmp);
}

static char *
path_in (Fixture    *f,
         const char *rel)
{
  return g_build_filename (f->tmp, rel, NULL);
}

/* Runs @argv (NULL-terminated) in @cwd to its end. */
static void
run_argv (Result      *r,
          const char  *cwd,
          const char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *command = g_strjoinv (" ", (char **) argv);
  int wait_status = 0;

  result_clear (r);
  g_spawn_sync (cwd, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &r->out, &r->err,
                &wait_status, &error);
  g_assert_no_error (error);
  r->status = WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : 128 + WTERMSIG (wait_status);
  g_test_message ("(in %s) %s: exit %d", cwd, command, r->status);
  if (r->err != NULL && r->err[0] != '\0')
    g_test_message ("stderr:\n%s", r->err);
}

static void
run_va (Result     *r,
        const char *cwd,
        const char *program,
        const char *command,
        va_list     args)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();

  g_ptr_array_add (argv, (gpointer) program);
  g_ptr_array_add (argv, (gpointer) command);
  if (program == cli)
    {
      g_ptr_array_add (argv, (gpointer) "--no-history");
      g_ptr_array_add (argv, (gpointer) "--threads");
      g_ptr_array_add (argv, (gpointer) "2");
      g_ptr_array_add (argv, (gpointer) "-q");
    }
  for (const char *arg = va_arg (args, const char *); arg != NULL; arg = va_arg (args, const char *))
    g_ptr_array_add (argv, (gpointer) arg);
  g_ptr_array_add (argv, NULL);
  run_argv (r, cwd, (const char **) argv->pdata);
}

/* copyscope-cli @command (copy, move, mirror) with the arguments, from @cwd. */
static void
run_cs (Result     *r,
        const char *cwd,
        const char *command,
        ...) G_GNUC_NULL_TERMINATED;

static void
run_cs (Result     *r,
        const char *cwd,
        const char *command,
        ...)
{
  va_list args;

  va_start (args, command);
  run_va (r, cwd, cli, command, args);
  va_end (args);
}

/* A coreutils command (cp, mv) with the arguments, from @cwd. */
static void
run_tool (Result     *r,
          const char *cwd,
          const char *tool,
          ...) G_GNUC_NULL_TERMINATED;

static void
run_tool (Result     *r,
          const char *cwd,
          const char *tool,
          ...)
{
  const char *first;
  va_list args;

  va_start (args, tool);
  first = va_arg (args, const char *);
  run_va (r, cwd, tool, first, args);
  va_end (args);
}

static void
assert_err_has (Result     *r,
                const char *text)
{
  if (r->err == NULL || strstr (r->err, text) == NULL)
    g_test_message ("stderr lacks “%s”", text);
  g_assert_nonnull (r->err);
  g_assert_nonnull (strstr (r->err, text));
}

/* ---- Building trees --------------------------------------------------------------- */

static void
make_dir (const char *path)
{
  g_assert_cmpint (g_mkdir_with_parents (path, 0755), ==, 0);
}

static void
write_text (const char *path,
            const char *text)
{
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
}

static void
assert_text (const char *path,
             const char *text)
{
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  struct stat st;

  g_assert_cmpint (lstat (path, &st), ==, 0);
  g_assert_true (S_ISREG (st.st_mode));
  g_file_get_contents (path, &contents, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (contents, ==, text);
}

static void
make_symlink (const char *target,
              const char *path)
{
  g_assert_cmpint (symlink (target, path), ==, 0);
}

static void
assert_symlink (const char *path,
                const char *target)
{
  char buf[4096];
  ssize_t n = readlink (path, buf, sizeof buf - 1);

  g_assert_cmpint (n, >, 0);
  buf[n] = '\0';
  g_assert_cmpstr (buf, ==, target);
}

static void
assert_absent (const char *path)
{
  struct stat st;

  g_assert_cmpint (lstat (path, &st), !=, 0);
  g_assert_cmpint (errno, ==, ENOENT);
}

static void
assert_same_inode (const char *a,
                   const char *b)
{
  struct stat sa, sb;

  g_assert_cmpint (lstat (a, &sa), ==, 0);
  g_assert_cmpint (lstat (b, &sb), ==, 0);
  g_assert_cmpuint (sa.st_dev, ==, sb.st_dev);
  g_assert_cmpuint (sa.st_ino, ==, sb.st_ino);
}

/* A tmpfs at @path: a second filesystem. Fails the test when none can be made. */
static void
mount_tmpfs (Fixture    *f,
             const char *path)
{
  make_dir (path);
  if (mount ("tmpfs", path, "tmpfs", 0, "size=16m") != 0)
    g_error ("cannot mount a tmpfs on %s (needs root, as CI runs): %s", path, g_strerror (errno));
  g_ptr_array_add (f->mounts, g_strdup (path));
  g_assert_cmpint (chmod (path, 0755), ==, 0);
}

static void
mount_bind (Fixture    *f,
            const char *from,
            const char *path)
{
  make_dir (path);
  if (mount (from, path, NULL, MS_BIND, NULL) != 0)
    g_error ("cannot bind-mount %s on %s (needs root, as CI runs): %s", from, path, g_strerror (errno));
  g_ptr_array_add (f->mounts, g_strdup (path));
}

/* ---- A symlink onto the file it points to ----------------------------------------- */

/* foo, and link -> foo, in @dir. */
static void
make_link_and_target (const char *dir)
{
  g_autofree char *foo = g_build_filename (dir, "foo", NULL);
  g_autofree char *link = g_build_filename (dir, "link", NULL);

  make_dir (dir);
  write_text (foo, "hi\n");
  make_symlink ("foo", link);
}

static void
test_symlink_onto_target (Fixture       *f,
                          gconstpointer  data)
{
  const char *command = data;
  gboolean move = strcmp (command, "move") == 0;
  g_autofree char *dir = path_in (f, "cs");
  g_autofree char *twin = path_in (f, "cp");
  g_autofree char *foo = path_in (f, "cs/foo");
  g_autofree char *link = path_in (f, "cs/link");
  g_autoptr(GHashTable) before = NULL;
  g_auto(Result) r = { 0 };
  g_auto(Result) t = { 0 };

  make_link_and_target (dir);
  make_link_and_target (twin);
  before = cs_test_tree_snapshot (dir);

  /* cp and mv: "'link' and 'foo' are the same file", exit 1, nothing touched. */
  run_tool (&t, twin, move ? "mv" : "cp", move ? "link" : "-a", move ? "foo" : "link", move ? NULL : "foo", NULL);
  g_assert_cmpint (t.status, ==, 1);
  assert_err_has (&t, "same file");

  run_cs (&r, dir, command, "link", "foo", NULL);
  g_assert_cmpint (r.status, ==, 1);
  assert_err_has (&r, "same file");
  assert_text (foo, "hi\n");
  assert_symlink (link, "foo");
  cs_test_tree_assert_snapshot (dir, before);
}

/* The link on one filesystem, the file it points to on another. */
static void
test_symlink_onto_target_across (Fixture       *f,
                                 gconstpointer  data)
{
  g_autofree char *mnt = path_in (f, "mnt");
  g_autofree char *dir = path_in (f, "disk");
  g_autofree char *foo = path_in (f, "disk/foo");
  g_autofree char *link = path_in (f, "mnt/link");
  g_autoptr(GHashTable) before_mnt = NULL;
  g_autoptr(GHashTable) before_dir = NULL;
  g_auto(Result) r = { 0 };

  mount_tmpfs (f, mnt);
  make_dir (dir);
  write_text (foo, "hi\n");
  make_symlink (foo, link);
  before_mnt = cs_test_tree_snapshot (mnt);
  before_dir = cs_test_tree_snapshot (dir);

  run_cs (&r, f->tmp, "move", link, foo, NULL);
  g_assert_cmpint (r.status, ==, 1);
  assert_err_has (&r, "same file");
  assert_text (foo, "hi\n");
  cs_test_tree_assert_snapshot (mnt, before_mnt);
  cs_test_tree_assert_snapshot (dir, before_dir);
}

/* b/foo -> ../a/foo copied into a with another source: the link is refused
 * on its own, the other copied, exit 1, as cp does. */
static void
test_symlink_onto_target_rest (Fixture       *f,
                               gconstpointer  data)
{
  const char *roots[] = { "cs", "cp" };
  g_auto(Result) r = { 0 };
  g_auto(Result) t = { 0 };

  for (guint i = 0; i < G_N_ELEMENTS (roots); i++)
    {
      g_autofree char *a = g_build_filename (f->tmp, roots[i], "a", NULL);
      g_autofree char *b = g_build_filename (f->tmp, roots[i], "b", NULL);
      g_autofree char *foo = g_build_filename (a, "foo", NULL);
      g_autofree char *bfoo = g_build_filename (b, "foo", NULL);
      g_autofree char *other = g_build_filename (b, "other", NULL);

      make_dir (a);
      make_dir (b);
      write_text (foo, "hi\n");
      write_text (other, "other\n");
      make_symlink ("../a/foo", bfoo);
    }

  {
    g_autofree char *twin = path_in (f, "cp");

    run_tool (&t, twin, "cp", "-a", "b/foo", "b/other", "a", NULL);
    g_assert_cmpint (t.status, ==, 1);
  }
  {
    g_autofree char *dir = path_in (f, "cs");
    g_autofree char *foo = path_in (f, "cs/a/foo");
    g_autofree char *copied = path_in (f, "cs/a/other");

    run_cs (&r, dir, "copy", "b/foo", "b/other", "a", NULL);
    g_assert_cmpint (r.status, ==, 1);
    assert_err_has (&r, "b/foo: check: The source and the destination are the same file");
    assert_text (foo, "hi\n");
    assert_text (copied, "other\n");
  }
}

/* A file moved onto a link to itself: mv renames it over the link; move
 * refuses it as the same file, which loses nothing (a named difference). */
static void
test_file_onto_its_symlink (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *dir = path_in (f, "cs");
  g_autofree char *twin = path_in (f, "cp");
  g_autofree char *twin_link = path_in (f, "cp/link");
  g_autoptr(GHashTable) before = NULL;
  g_auto(Result) r = { 0 };
  g_auto(Result) t = { 0 };

  make_link_and_target (dir);
  make_link_and_target (twin);
  before = cs_test_tree_snapshot (dir);

  run_tool (&t, twin, "mv", "foo", "link", NULL);
  g_assert_cmpint (t.status, ==, 0);
  assert_text (twin_link, "hi\n");

  run_cs (&r, dir, "move", "foo", "link", NULL);
  g_assert_cmpint (r.status, ==, 1);
  assert_err_has (&r, "foo: check: The source and the destination are the same file");
  cs_test_tree_assert_snapshot (dir, before);
}

/* ---- Trailing slashes ------------------------------------------------------------- */

/* p/data/f, p/data/g/h, p/cur -> data, and an empty bk. */
static void
make_linked_folder (const char *root)
{
  g_autofree char *data = g_build_filename (root, "p", "data", NULL);
  g_autofree char *deeper = g_build_filename (data, "g", NULL);
  g_autofree char *f = g_build_filename (data, "f", NULL);
  g_autofree char *h = g_build_filename (deeper, "h", NULL);
  g_autofree char *cur = g_build_filename (root, "p", "cur", NULL);
  g_autofree char *bk = g_build_filename (root, "bk", NULL);

  make_dir (deeper);
  make_dir (bk);
  write_text (f, "x\n");
  write_text (h, "deep\n");
  make_symlink ("data", cur);
}

static void
test_slash_symlink_folder_copy (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *dir = path_in (f, "cs");
  g_autofree char *twin = path_in (f, "cp");
  g_autofree char *landed = path_in (f, "cs/bk/cur");
  g_autofree char *cp_landed = path_in (f, "cp/bk/cur");
  g_autofree char *source = path_in (f, "cs/p");
  g_autofree char *folder = path_in (f, "cs/p/data");
  g_autofree char *cp_data = path_in (f, "cp/p/data");
  g_autoptr(GHashTable) before = NULL;
  g_auto(Result) r = { 0 };
  g_auto(Result) t = { 0 };
  struct stat st;

  make_linked_folder (dir);
  make_linked_folder (twin);
  before = cs_test_tree_snapshot (source);

  run_tool (&t, twin, "cp", "-a", "p/cur/", "bk", NULL);
  g_assert_cmpint (t.status, ==, 0);

  run_cs (&r, dir, "copy", "p/cur/", "bk", NULL);
  g_assert_cmpint (r.status, ==, 0);
  /* The folder the link points to, under the link's name: what cp made. */
  g_assert_cmpint (lstat (landed, &st), ==, 0);
  g_assert_true (S_ISDIR (st.st_mode));
  cs_test_tree_assert_equal (cp_data, cp_landed);
  cs_test_tree_assert_equal (folder, landed);
  cs_test_tree_assert_snapshot (source, before);
}

/* mv refuses "link/" (the folder would leave its other name): so does move. */
static void
test_slash_symlink_folder_move (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *dir = path_in (f, "cs");
  g_autofree char *twin = path_in (f, "cp");
  g_autoptr(GHashTable) before = NULL;
  g_auto(Result) r = { 0 };
  g_auto(Result) t = { 0 };

  make_linked_folder (dir);
  make_linked_folder (twin);
  before = cs_test_tree_snapshot (dir);

  run_tool (&t, twin, "mv", "p/cur/", "bk", NULL);
  g_assert_cmpint (t.status, ==, 1);

  run_cs (&r, dir, "move", "p/cur/", "bk", NULL);
  g_assert_cmpint (r.status, ==, 1);
  assert_err_has (&r, "p/cur/: check: Not a folder");
  cs_test_tree_assert_snapshot (dir, before);

  /* Without the slash the link itself moves, as with mv. */
  run_cs (&r, dir, "move", "p/cur", "bk", NULL);
  g_assert_cmpint (r.status, ==, 0);
  {
    g_autofree char *moved = path_in (f, "cs/bk/cur");
    g_autofree char *gone = path_in (f, "cs/p/cur");

    assert_symlink (moved, "data");
    assert_absent (gone);
  }
}

/* "file/": ENOTDIR, as cp says it; nothing written. */
static void
test_slash_file (Fixture       *f,
                 gconstpointer  data)
{
  const char *command = data;
  g_autofree char *file = path_in (f, "file");
  g_autofree char *d = path_in (f, "d");
  g_autofree char *landed = path_in (f, "d/file");
  g_autoptr(GHashTable) before = NULL;
  g_auto(Result) r = { 0 };
  g_auto(Result) t = { 0 };

  write_text (file, "a\n");
  make_dir (d);
  before = cs_test_tree_snapshot (f->tmp);

  run_tool (&t, f->tmp, strcmp (command, "move") == 0 ? "mv" : "cp", "file/", "d", NULL);
  g_assert_cmpint (t.status, ==, 1);
  assert_err_has (&t, "Not a directory");

  run_cs (&r, f->tmp, command, "file/", "d", NULL);
  g_assert_cmpint (r.status, ==, 1);
  assert_err_has (&r, "file/: check: Not a directory");
  assert_absent (landed);
  cs_test_tree_assert_snapshot (f->tmp, before);
}

/* "dir/" names the folder: it lands as DEST/dir, copied or moved, as cp and
 * mv do (rsync would take its contents: a named difference). */
static void
test_slash_folder (Fixture       *f,
                   gconstpointer  data)
{
  const char *command = data;
  g_autofree char *src = path_in (f, "dir");
  g_autofree char *file = path_in (f, "dir/f");
  g_autofree char *d = path_in (f, "d");
  g_autofree char *landed = path_in (f, "d/dir/f");
  g_autofree char *not_contents = path_in (f, "d/f");
  g_auto(Result) r = { 0 };

  make_dir (src);
  write_text (file, "f\n");
  make_dir (d);

  run_cs (&r, f->tmp, command, "dir/", "d", NULL);
  g_assert_cmpint (r.status, ==, 0);
  assert_text (landed, "f\n");
  assert_absent (not_contents);
  if (strcmp (command, "move") == 0)
    assert_absent (src);
  else
    assert_text (file, "f\n");
}

/* A dangling "link/": nothing to read, exit 1, as cp. */
static void
test_slash_dangling (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *dang = path_in (f, "dang");
  g_autofree char *loop = path_in (f, "loop");
  g_autofree char *d = path_in (f, "d");
  g_autoptr(GHashTable) before = NULL;
  g_auto(Result) r = { 0 };
  g_auto(Result) t = { 0 };

  make_symlink ("nowhere", dang);
  make_symlink ("loop", loop);
  make_dir (d);
  before = cs_test_tree_snapshot (f->tmp);

  run_tool (&t, f->tmp, "cp", "-a", "dang/", "loop/", "d", NULL);
  g_assert_cmpint (t.status, ==, 1);

  run_cs (&r, f->tmp, "copy", "dang/", "loop/", "d", NULL);
  g_assert_cmpint (r.status, ==, 1);
  assert_err_has (&r, "dang/: check: No such file");
  assert_err_has (&r, "loop/: check: Too many levels of symbolic links");
  cs_test_tree_assert_snapshot (f->tmp, before);
}

/* ---- Hard links and the same path twice ------------------------------------------- */

static void
make_hard_links (const char *root)
{
  g_autofree char *p = g_build_filename (root, "p", NULL);
  g_autofree char *q = g_build_filename (root, "q", NULL);
  g_autofree char *y = g_build_filename (root, "y", NULL);

  make_dir (root);
  write_text (p, "1\n");
  g_assert_cmpint (link (p, q), ==, 0);
  make_dir (y);
}

/* p and q, two names of one file, into y: both copied (or moved), and linked
 * there, as cp -a and mv. @data: "copy", "move" or "move-across". */
static void
test_hard_links (Fixture       *f,
                 gconstpointer  data)
{
  const char *how = data;
  gboolean move = g_str_has_prefix (how, "move");
  gboolean across = strcmp (how, "move-across") == 0;
  g_autofree char *dir = path_in (f, "cs");
  g_autofree char *twin = path_in (f, "cp");
  g_autofree char *y = path_in (f, across ? "mnt" : "cs/y");
  g_autofree char *yp = g_build_filename (y, "p", NULL);
  g_autofree char *yq = g_build_filename (y, "q", NULL);
  g_autofree char *cp_p = path_in (f, "cp/y/p");
  g_autofree char *cp_q = path_in (f, "cp/y/q");
  g_autofree char *p = path_in (f, "cs/p");
  g_autofree char *q = path_in (f, "cs/q");
  g_auto(Result) r = { 0 };
  g_auto(Result) t = { 0 };

  make_hard_links (dir);
  make_hard_links (twin);
  if (across)
    mount_tmpfs (f, y);

  run_tool (&t, twin, move ? "mv" : "cp", move ? "p" : "-a", move ? "q" : "p", move ? "y" : "q", move ? NULL : "y", NULL);
  g_assert_cmpint (t.status, ==, 0);
  assert_same_inode (cp_p, cp_q);

  run_cs (&r, dir, move ? "move" : "copy", "p", "q", y, NULL);
  g_assert_cmpint (r.status, ==, 0);
  assert_text (yp, "1\n");
  assert_same_inode (yp, yq);
  if (move)
    {
      assert_absent (p);
      assert_absent (q);
    }
  else
    assert_same_inode (p, q);
}

/* The same path twice ("a" and "./a", "dir" and "dir/"): the first copied,
 * the second refused, exit 1 (cp copies once with a warning, exit 0). */
static void
test_same_path_twice (Fixture       *f,
                      gconstpointer  data)
{
  const char *command = data;
  g_autofree char *a = path_in (f, "a");
  g_autofree char *sub = path_in (f, "dir/sub");
  g_autofree char *inner = path_in (f, "dir/sub/x");
  g_autofree char *y = path_in (f, "y");
  g_autofree char *ya = path_in (f, "y/a");
  g_autofree char *yx = path_in (f, "y/dir/sub/x");
  g_auto(Result) r = { 0 };

  write_text (a, "a\n");
  make_dir (sub);
  write_text (inner, "x\n");
  make_dir (y);

  run_cs (&r, f->tmp, command, "a", "./a", "dir", "dir/", y, NULL);
  g_assert_cmpint (r.status, ==, 1);
  assert_err_has (&r, "./a: check: This source is given more than once");
  assert_err_has (&r, "dir/: check: This source is given more than once");
  assert_text (ya, "a\n");
  assert_text (yx, "x\n");
}

/* One folder by two names (data, and cur/ with cur -> data): the first
 * copied, the second refused, exit 1; cp would copy the tree twice. */
static void
test_same_folder_two_names (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *folder = path_in (f, "p/data");
  g_autofree char *landed = path_in (f, "bk/data");
  g_autofree char *twice = path_in (f, "bk/cur");
  g_auto(Result) r = { 0 };

  make_linked_folder (f->tmp);

  run_cs (&r, f->tmp, "copy", "p/data", "p/cur/", "bk", NULL);
  g_assert_cmpint (r.status, ==, 1);
  assert_err_has (&r, "p/cur/: check: This source is given more than once");
  cs_test_tree_assert_equal (folder, landed);
  assert_absent (twice);
}

/* ---- A move that fails part-way --------------------------------------------------- */

/* move e t/ where t/e is a file (or a symlink to a folder): exit 1, and e is
 * still there with its mode and times, as mv leaves it. */
static void
test_failed_move (Fixture       *f,
                  gconstpointer  data)
{
  const char *how = data;
  g_autofree char *e = path_in (f, "e");
  g_autofree char *kept = path_in (f, "e/kept");
  g_autofree char *t = path_in (f, strcmp (how, "across") == 0 ? "mnt" : "t");
  g_autofree char *te = g_build_filename (t, "e", NULL);
  g_autofree char *elsewhere = path_in (f, "elsewhere");
  g_autofree char *t_arg = g_strconcat (t, "/", NULL);
  g_autoptr(GHashTable) before = NULL;
  g_autoptr(GHashTable) before_elsewhere = NULL;
  struct timespec times[2] = { { 1000000000, 123456789 }, { 1000000000, 987654321 } };
  g_auto(Result) r = { 0 };

  make_dir (e);
  if (strcmp (how, "not-empty") == 0)
    write_text (kept, "kept\n");
  g_assert_cmpint (chmod (e, 0750), ==, 0);
  g_assert_cmpint (utimensat (AT_FDCWD, e, times, 0), ==, 0);
  if (strcmp (how, "across") == 0)
    mount_tmpfs (f, t);
  else
    make_dir (t);
  make_dir (elsewhere);
  if (strcmp (how, "symlink") == 0)
    make_symlink (elsewhere, te);
  else
    write_text (te, "");
  before = cs_test_tree_snapshot (e);
  before_elsewhere = cs_test_tree_snapshot (elsewhere);

  run_cs (&r, f->tmp, "move", "e", t_arg, NULL);
  g_assert_cmpint (r.status, ==, 1);
  assert_err_has (&r, "not a folder");
  cs_test_tree_assert_snapshot (e, before);
  cs_test_tree_assert_snapshot (elsewhere, before_elsewhere);
}

/* move src/e t/ as nobody, where t/e is root's folder: the times of the
 * copy cannot be set, so the copy is not the folder, and src/e stays with
 * its own. */
static void
test_failed_move_times (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *src = path_in (f, "src");
  g_autofree char *e = path_in (f, "src/e");
  g_autofree char *t = path_in (f, "t");
  g_autofree char *te = path_in (f, "t/e");
  g_autofree char *t_arg = g_strconcat (t, "/", NULL);
  struct timespec times[2] = { { 1000000000, 123456789 }, { 1000000000, 987654321 } };
  const char *argv[] = { "setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                         cli, "move", "--no-history", "--threads", "2", "-q", "src/e", t_arg, NULL };
  g_autoptr(GHashTable) before = NULL;
  g_auto(Result) r = { 0 };
  g_auto(Result) id = { 0 };

  /* Root in CI: nobody must exist, and be someone else. */
  {
    const char *probe[] = { "setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "id", "-u", NULL };

    run_argv (&id, f->tmp, probe);
    g_assert_cmpint (id.status, ==, 0);
    g_assert_cmpstr (id.out, !=, "0\n");
  }
  make_dir (src);
  make_dir (e);
  make_dir (te);
  g_assert_cmpint (chmod (te, 0777), ==, 0);
  g_assert_cmpint (chmod (t, 0777), ==, 0);
  g_assert_cmpint (chmod (src, 0777), ==, 0);
  g_assert_cmpint (chmod (e, 0755), ==, 0);
  g_assert_cmpint (utimensat (AT_FDCWD, e, times, 0), ==, 0);
  before = cs_test_tree_snapshot (e);

  run_argv (&r, f->tmp, argv);
  assert_err_has (&r, "set times");
  /* A failure said is a failure counted: exit 1, as with mv. */
  g_assert_cmpint (r.status, ==, 1);
  cs_test_tree_assert_snapshot (e, before);
}

/* move src/IMG dst as nobody, where src is root's: every file arrives, but
 * the emptied source folder cannot be removed. That is said, and exit 1, as
 * mv says "cannot remove" and exits 1. */
static void
test_failed_move_unremovable (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *src = path_in (f, "src");
  g_autofree char *img = path_in (f, "src/IMG");
  g_autofree char *file = path_in (f, "src/IMG/f");
  g_autofree char *dst = path_in (f, "dst");
  g_autofree char *moved = path_in (f, "dst/IMG/f");
  g_autofree char *text = NULL;
  const char *argv[] = { "setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                         cli, "move", "--no-history", "--threads", "2", "-q", "src/IMG", "dst", NULL };
  const char *own[] = { "chown", "-R", "nobody:nogroup", img, dst, NULL };
  g_auto(Result) r = { 0 };
  g_auto(Result) o = { 0 };

  make_dir (src);
  make_dir (img);
  make_dir (dst);
  write_text (file, "photo\n");
  run_argv (&o, f->tmp, own);
  g_assert_cmpint (o.status, ==, 0);
  g_assert_cmpint (chmod (src, 0755), ==, 0);

  run_argv (&r, f->tmp, argv);
  assert_err_has (&r, "remove source folder");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_true (g_file_get_contents (moved, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "photo\n");
  g_assert_true (g_file_test (img, G_FILE_TEST_IS_DIR));
}

/* ---- Mirror into a new folder named with a trailing slash ------------------------- */

static void
test_mirror_slash (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *src = path_in (f, "src");
  g_autofree char *z = path_in (f, "src/z");
  g_autofree char *lm = path_in (f, "lm");
  g_autofree char *x = path_in (f, "lm/x");
  g_auto(Result) r = { 0 };

  make_dir (src);
  write_text (z, "z\n");
  make_dir (lm);

  run_cs (&r, f->tmp, "mirror", "src", "lm/x/", NULL);
  g_assert_cmpint (r.status, ==, 0);
  cs_test_tree_assert_equal (src, x);
}

/* ---- The same file by other names ------------------------------------------------- */

/* dir/f and a link to dir: the file copied onto itself through the link,
 * on the source's side or the destination's. */
static void
test_same_file_symlinked_folder (Fixture       *f,
                                 gconstpointer  data)
{
  gboolean source_side = strcmp (data, "source") == 0;
  g_autofree char *dir = path_in (f, "dir");
  g_autofree char *file = path_in (f, "dir/f");
  g_autofree char *lnk = path_in (f, "lnk");
  g_autoptr(GHashTable) before = NULL;
  g_auto(Result) r = { 0 };
  g_auto(Result) t = { 0 };

  make_dir (dir);
  write_text (file, "f\n");
  make_symlink ("dir", lnk);
  before = cs_test_tree_snapshot (f->tmp);

  run_tool (&t, f->tmp, "cp", "-a", source_side ? "lnk/f" : "dir/f", source_side ? "dir" : "lnk", NULL);
  g_assert_cmpint (t.status, ==, 1);
  assert_err_has (&t, "same file");

  run_cs (&r, f->tmp, "copy", source_side ? "lnk/f" : "dir/f", source_side ? "dir" : "lnk", NULL);
  g_assert_cmpint (r.status, ==, 1);
  assert_err_has (&r, "same file");
  cs_test_tree_assert_snapshot (f->tmp, before);
}

/* "." and "..": the folder's contents land in the destination folder itself,
 * as cp -a puts them, never beside it; a move refuses them, as mv. */
static void
test_dots (Fixture       *f,
           gconstpointer  data)
{
  const char *name = data;
  g_autofree char *dd = path_in (f, "dd");
  g_autofree char *sub = path_in (f, "dd/sub");
  g_autofree char *q = path_in (f, "dd/sub/q");
  g_autofree char *cwd = path_in (f, strcmp (name, ".") == 0 ? "dd" : "dd/sub");
  g_autofree char *dst = path_in (f, "dst");
  g_autofree char *twin = path_in (f, "twin");
  g_autofree char *landed = path_in (f, "dst/sub/q");
  g_autofree char *twin_landed = path_in (f, "twin/sub/q");
  g_autofree char *beside = path_in (f, "sub");
  g_autoptr(GHashTable) before = NULL;
  g_auto(Result) r = { 0 };
  g_auto(Result) t = { 0 };

  make_dir (sub);
  write_text (q, "q\n");
  make_dir (dst);
  make_dir (twin);

  run_tool (&t, cwd, "cp", "-a", name, twin, NULL);
  g_assert_cmpint (t.status, ==, 0);
  assert_text (twin_landed, "q\n");

  run_cs (&r, cwd, "copy", name, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  assert_text (landed, "q\n");
  assert_absent (beside);

  before = cs_test_tree_snapshot (f->tmp);
  run_cs (&r, cwd, "move", name, dst, NULL);
  g_assert_cmpint (r.status, ==, 1);
  assert_err_has (&r, "A move cannot take");
  cs_test_tree_assert_snapshot (f->tmp, before);
  g_assert_true (g_file_test (dd, G_FILE_TEST_IS_DIR));
}

/* A folder into itself, through a link to it or a bind mount of it: refused,
 * nothing written, as cp. */
static void
test_into_itself (Fixture       *f,
                  gconstpointer  data)
{
  gboolean bind = strcmp (data, "bind-mount") == 0;
  g_autofree char *dir = path_in (f, "dir");
  g_autofree char *file = path_in (f, "dir/f");
  g_autofree char *other = path_in (f, "other");
  g_autofree char *target = path_in (f, "other/sub");
  g_autoptr(GHashTable) before = NULL;
  g_auto(Result) r = { 0 };
  g_auto(Result) t = { 0 };

  make_dir (dir);
  write_text (file, "f\n");
  if (bind)
    mount_bind (f, dir, other);
  else
    make_symlink ("dir", other);
  before = cs_test_tree_snapshot (dir);

  run_cs (&r, f->tmp, "copy", "dir", target, NULL);
  g_assert_cmpint (r.status, ==, 1);
  assert_err_has (&r, "inside the source folder");
  cs_test_tree_assert_snapshot (dir, before);

  /* cp refuses too, after it made other/sub (dir/sub): Copyscope makes
   * nothing, a safer difference. */
  run_tool (&t, f->tmp, "cp", "-a", "dir", "other/sub", NULL);
  g_assert_cmpint (t.status, ==, 1);
}

/* ---- Destination entries that are symlinks ---------------------------------------- */

/* A file copied where the destination has a symlink (to a file, dangling,
 * a loop): never written through. By default the link is kept and the file
 * fails naming both types (times are not compared across types); with
 * --overwrite=always the link itself is replaced by the file. cp -a writes
 * through a link to a file. */
static void
test_dest_symlink (Fixture       *f,
                   gconstpointer  data)
{
  const char *kind = data;
  g_autofree char *a = path_in (f, "a");
  g_autofree char *af = path_in (f, "a/f");
  g_autofree char *b = path_in (f, "b");
  g_autofree char *bf = path_in (f, "b/f");
  g_autofree char *elsewhere = path_in (f, "elsewhere");
  g_autofree char *nowhere = path_in (f, "nowhere");
  const char *target = strcmp (kind, "file") == 0 ? "../elsewhere" : strcmp (kind, "dangling") == 0 ? "nowhere" : "f";
  g_autoptr(GHashTable) before = NULL;
  struct timespec old[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
  g_auto(Result) r = { 0 };

  make_dir (a);
  make_dir (b);
  write_text (af, "new\n");
  g_assert_cmpint (utimensat (AT_FDCWD, af, old, 0), ==, 0);
  write_text (elsewhere, "other\n");
  make_symlink (target, bf);
  before = cs_test_tree_snapshot (a);

  run_cs (&r, f->tmp, "copy", "a/f", "b", NULL);
  g_assert_cmpint (r.status, ==, 1);
  assert_err_has (&r, "the destination is a symbolic link, the source a file");
  assert_symlink (bf, target);
  assert_text (elsewhere, "other\n");
  assert_absent (nowhere);
  cs_test_tree_assert_snapshot (a, before);

  run_cs (&r, f->tmp, "copy", "--overwrite=always", "a/f", "b", NULL);
  g_assert_cmpint (r.status, ==, 0);
  assert_text (bf, "new\n");
  assert_text (elsewhere, "other\n");
  assert_absent (nowhere);
}

/* A folder copied where the destination has a symlink to a folder, or a
 * file: not written through, not replaced, exit 1, as cp. */
static void
test_dest_not_folder (Fixture       *f,
                      gconstpointer  data)
{
  gboolean symlink_there = strcmp (data, "symlink") == 0;
  g_autofree char *d = path_in (f, "s/d");
  g_autofree char *x = path_in (f, "s/d/x");
  g_autofree char *t = path_in (f, "t");
  g_autofree char *td = path_in (f, "t/d");
  g_autofree char *other = path_in (f, "other");
  g_autoptr(GHashTable) before = NULL;
  g_autoptr(GHashTable) before_other = NULL;
  g_auto(Result) r = { 0 };
  g_auto(Result) c = { 0 };

  make_dir (d);
  write_text (x, "1\n");
  make_dir (t);
  make_dir (other);
  if (symlink_there)
    make_symlink ("../other", td);
  else
    write_text (td, "file\n");
  /* The destination folder itself is left out: the run asks its filesystem
   * what it can hold in a folder of its own there (rule 8). */
  before = cs_test_tree_snapshot (d);
  before_other = cs_test_tree_snapshot (other);

  run_cs (&r, f->tmp, "copy", "s/d", "t", NULL);
  g_assert_cmpint (r.status, ==, 1);
  assert_err_has (&r, "not a folder");
  assert_err_has (&r, "nothing was written through it");
  cs_test_tree_assert_snapshot (d, before);
  cs_test_tree_assert_snapshot (other, before_other);
  if (symlink_there)
    assert_symlink (td, "../other");
  else
    assert_text (td, "file\n");

  run_tool (&c, f->tmp, "cp", "-a", "s/d", "t", NULL);
  g_assert_cmpint (c.status, ==, 1);
  cs_test_tree_assert_snapshot (other, before_other);
}

/* A file copied where the destination has a folder: refused, exit 1, as cp. */
static void
test_dest_folder_for_file (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *a = path_in (f, "a");
  g_autofree char *af = path_in (f, "a/f");
  g_autofree char *tf = path_in (f, "t/f");
  g_autoptr(GHashTable) before = NULL;
  g_autoptr(GHashTable) before_tf = NULL;
  g_auto(Result) r = { 0 };
  g_auto(Result) c = { 0 };

  make_dir (a);
  write_text (af, "f\n");
  make_dir (tf);
  before = cs_test_tree_snapshot (a);
  before_tf = cs_test_tree_snapshot (tf);

  run_tool (&c, f->tmp, "cp", "-a", "a/f", "t", NULL);
  g_assert_cmpint (c.status, ==, 1);

  run_cs (&r, f->tmp, "copy", "--overwrite=always", "a/f", "t", NULL);
  g_assert_cmpint (r.status, ==, 1);
  assert_err_has (&r, "the destination is a folder, the source a file");
  cs_test_tree_assert_snapshot (a, before);
  cs_test_tree_assert_snapshot (tf, before_tf);
}

static void
add (const char    *path,
     gconstpointer  data,
     void (*func) (Fixture *, gconstpointer))
{
  g_test_add (path, Fixture, data, fixture_setup, func, fixture_teardown);
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

  add ("/operands/symlink-onto-target/copy", "copy", test_symlink_onto_target);
  add ("/operands/symlink-onto-target/move", "move", test_symlink_onto_target);
  add ("/operands/symlink-onto-target/move-across", NULL, test_symlink_onto_target_across);
  add ("/operands/symlink-onto-target/rest-copied", NULL, test_symlink_onto_target_rest);
  add ("/operands/file-onto-its-symlink/move", NULL, test_file_onto_its_symlink);
  add ("/operands/trailing-slash/symlink-to-folder/copy", NULL, test_slash_symlink_folder_copy);
  add ("/operands/trailing-slash/symlink-to-folder/move", NULL, test_slash_symlink_folder_move);
  add ("/operands/trailing-slash/file/copy", "copy", test_slash_file);
  add ("/operands/trailing-slash/file/move", "move", test_slash_file);
  add ("/operands/trailing-slash/folder/copy", "copy", test_slash_folder);
  add ("/operands/trailing-slash/folder/move", "move", test_slash_folder);
  add ("/operands/trailing-slash/dangling", NULL, test_slash_dangling);
  add ("/operands/hard-links/copy", "copy", test_hard_links);
  add ("/operands/hard-links/move", "move", test_hard_links);
  add ("/operands/hard-links/move-across", "move-across", test_hard_links);
  add ("/operands/same-path-twice/copy", "copy", test_same_path_twice);
  add ("/operands/same-path-twice/move", "move", test_same_path_twice);
  add ("/operands/same-folder-two-names", NULL, test_same_folder_two_names);
  add ("/operands/failed-move/folder-onto-file", "file", test_failed_move);
  add ("/operands/failed-move/folder-onto-symlink", "symlink", test_failed_move);
  add ("/operands/failed-move/not-empty", "not-empty", test_failed_move);
  add ("/operands/failed-move/across", "across", test_failed_move);
  add ("/operands/failed-move/times-refused", NULL, test_failed_move_times);
  add ("/operands/failed-move/source-unremovable", NULL, test_failed_move_unremovable);
  add ("/operands/mirror/trailing-slash-new", NULL, test_mirror_slash);
  add ("/operands/same-file/symlinked-folder-source", "source", test_same_file_symlinked_folder);
  add ("/operands/same-file/symlinked-folder-destination", "destination", test_same_file_symlinked_folder);
  add ("/operands/dots/dot", ".", test_dots);
  add ("/operands/dots/dotdot", "..", test_dots);
  add ("/operands/into-itself/symlink", "symlink", test_into_itself);
  add ("/operands/into-itself/bind-mount", "bind-mount", test_into_itself);
  add ("/operands/destination-symlink/to-file", "file", test_dest_symlink);
  add ("/operands/destination-symlink/dangling", "dangling", test_dest_symlink);
  add ("/operands/destination-symlink/loop", "loop", test_dest_symlink);
  add ("/operands/type-clash/folder-onto-symlink-to-folder", "symlink", test_dest_not_folder);
  add ("/operands/type-clash/folder-onto-file", "file", test_dest_not_folder);
  add ("/operands/type-clash/file-onto-folder", NULL, test_dest_folder_for_file);

  return g_test_run ();
}
