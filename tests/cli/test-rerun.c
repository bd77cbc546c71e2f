/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "cs-test-tree.h"

/*
 * A rerun converges: after it the destination is what the source is, as
 * after rsync -aHAX --delete. Each case is a short shell script run in a
 * fresh folder with $CLI the copyscope-cli under test; the test then looks
 * at the destination itself.
 */

static const char *cli;

typedef struct {
  char *root;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->root = cs_test_tree_make_tmp ();
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  cs_test_tree_remove (f->root);
  g_free (f->root);
}

/* Runs @script with bash -e in @f's folder; its exit status, and its
 * output in @out (stdout and stderr together) when asked for. */
static int
sh (Fixture     *f,
    char       **out,
    const char  *script)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *output = NULL;
  g_auto(GStrv) env = g_environ_setenv (g_get_environ (), "CLI", cli, TRUE);
  const char *argv[] = { "bash", "-ec", script, NULL };
  int wait_status = 0;

  g_spawn_sync (f->root, (char **) argv, env, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                NULL, NULL, &output, NULL, &wait_status, &error);
  g_assert_no_error (error);
  g_test_message ("%s\n→ exit %d\n%s", script, WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : -1,
                  output);
  if (out != NULL)
    *out = g_steal_pointer (&output);
  return WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : -1;
}

/* The same, with stderr folded into the output. */
static int
sh_all (Fixture     *f,
        char       **out,
        const char  *script)
{
  g_autofree char *wrapped = g_strdup_printf ("exec 2>&1\n%s", script);

  return sh (f, out, wrapped);
}

static struct stat
lstat_in (Fixture    *f,
          const char *rel)
{
  g_autofree char *path = g_build_filename (f->root, rel, NULL);
  struct stat st;

  g_assert_cmpint (lstat (path, &st), ==, 0);
  return st;
}

static char *
xattr_in (Fixture    *f,
          const char *rel,
          const char *name)
{
  g_autofree char *path = g_build_filename (f->root, rel, NULL);
  char value[256];
  ssize_t n = lgetxattr (path, name, value, sizeof value - 1);

  if (n < 0)
    return NULL;
  value[n] = '\0';
  return g_strdup (value);
}

static gboolean
has_tool (const char *tool)
{
  g_autofree char *path = g_find_program_in_path (tool);

  return path != NULL;
}

/* Whether the test folder's filesystem keeps user attributes. */
static gboolean
keeps_xattrs (Fixture *f)
{
  g_autofree char *path = g_build_filename (f->root, "probe", NULL);
  gboolean ok;

  g_assert_true (g_file_set_contents (path, "", 0, NULL));
  ok = setxattr (path, "user.probe", "1", 1, 0) == 0;
  g_unlink (path);
  return ok;
}

/* Metadata-only changes */

static const char *commands[] = { "mirror", "copy" };

/* The destination is what the source is. */
static void
assert_mirrored (Fixture *f)
{
  g_autofree char *s = g_build_filename (f->root, "s", NULL);
  g_autofree char *d = g_build_filename (f->root, "d", NULL);

  cs_test_tree_assert_equal (s, d);
}

static void
test_mode (Fixture       *f,
           gconstpointer  data)
{
  const char *command = commands[GPOINTER_TO_INT (data)];
  g_autofree char *script = g_strdup_printf (
    "mkdir s; echo x > s/f; chmod 440 s/f\n"
    "$CLI %s -q --no-history s/. d\n"
    "chmod 600 s/f\n"
    "$CLI %s -q --no-history s/. d\n", command, command);

  g_assert_cmpint (sh (f, NULL, script), ==, 0);
  g_assert_cmpint (lstat_in (f, "d/f").st_mode & 07777, ==, 0600);
}

static void
test_xattr (Fixture       *f,
            gconstpointer  data)
{
  const char *command = commands[GPOINTER_TO_INT (data)];
  g_autofree char *script = NULL;
  g_autofree char *value = NULL;
  g_autofree char *gone = NULL;

  if (!has_tool ("setfattr") || !keeps_xattrs (f))
    {
      g_test_skip ("no setfattr, or the test folder keeps no user attributes");
      return;
    }
  script = g_strdup_printf (
    "mkdir s; echo x > s/f; setfattr -n user.a -v old s/f; setfattr -n user.b -v b s/f\n"
    "$CLI %s -q --no-history s/. d\n"
    /* Past the coarse clock's tick of the copy (docs/RELIABILITY.md,
     * "Not done yet": a change in that tick is not seen). */
    "sleep 0.05\n"
    "setfattr -n user.a -v new s/f; setfattr -x user.b s/f\n"
    "$CLI %s -q --no-history s/. d\n", command, command);
  g_assert_cmpint (sh (f, NULL, script), ==, 0);
  value = xattr_in (f, "d/f", "user.a");
  gone = xattr_in (f, "d/f", "user.b");
  g_assert_cmpstr (value, ==, "new");
  g_assert_null (gone);
}

static void
test_in_place (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *out = NULL;
  ino_t ino;

  g_assert_cmpint (sh (f, NULL, "mkdir s; echo x > s/f; chmod 440 s/f\n"
                                "$CLI mirror -q --no-history s d\n"), ==, 0);
  ino = lstat_in (f, "d/f").st_ino;
  g_assert_cmpint (sh (f, &out, "chmod 600 s/f\n"
                                "$CLI mirror --no-history s d | grep '^ *Files'\n"), ==, 0);
  /* Skipped as identical, and the same file: its data was not written. */
  g_assert_nonnull (strstr (out, "1           0           1"));
  g_assert_cmpint (lstat_in (f, "d/f").st_ino, ==, ino);
  g_assert_cmpint (lstat_in (f, "d/f").st_mode & 07777, ==, 0600);
}

static void
test_acl (Fixture       *f,
          gconstpointer  data)
{
  const char *command = commands[GPOINTER_TO_INT (data)];
  g_autofree char *script = NULL;
  g_autofree char *out = NULL;

  if (!has_tool ("setfacl") || !has_tool ("getfacl") || sh (f, NULL, "touch p; setfacl -m u:nobody:r-- p") != 0)
    {
      g_test_skip ("no setfacl, or the test folder keeps no ACLs");
      return;
    }
  script = g_strdup_printf (
    "mkdir s; echo x > s/f; chmod 640 s/f\n"
    "$CLI %s -q --no-history s/. d\n"
    "sleep 0.05\n"
    "setfacl -m u:nobody:rw- s/f\n"
    "$CLI %s -q --no-history s/. d\n"
    "getfacl -c d/f\n", command, command);
  g_assert_cmpint (sh (f, &out, script), ==, 0);
  g_assert_nonnull (strstr (out, "user:nobody:rw-"));
}

static void
test_owner (Fixture       *f,
            gconstpointer  data)
{
  const char *command = commands[GPOINTER_TO_INT (data)];
  g_autofree char *script = NULL;

  if (geteuid () != 0)
    {
      g_test_skip ("only root can give a file away");
      return;
    }
  script = g_strdup_printf (
    "mkdir s; echo x > s/f\n"
    "$CLI %s -q --no-history s/. d\n"
    "chown 65534:65534 s/f\n"
    "$CLI %s -q --no-history s/. d\n", command, command);
  g_assert_cmpint (sh (f, NULL, script), ==, 0);
  g_assert_cmpint (lstat_in (f, "d/f").st_uid, ==, 65534);
  g_assert_cmpint (lstat_in (f, "d/f").st_gid, ==, 65534);
}

/* Types that change */

static void
test_type_folder_over_file (Fixture       *f,
                            gconstpointer  data)
{
  g_assert_cmpint (sh (f, NULL, "mkdir -p s/x d; echo in > s/x/y; echo old > d/x\n"
                                "$CLI mirror -q --no-history s d\n"), ==, 0);
  g_assert_true (S_ISDIR (lstat_in (f, "d/x").st_mode));
  assert_mirrored (f);
}

static void
test_type_file_over_folder (Fixture       *f,
                            gconstpointer  data)
{
  g_assert_cmpint (sh (f, NULL, "mkdir -p s d/x/deeper; echo f > s/x; echo in > d/x/deeper/y\n"
                                "$CLI mirror -q --no-history s d\n"), ==, 0);
  g_assert_true (S_ISREG (lstat_in (f, "d/x").st_mode));
  assert_mirrored (f);
}

static void
test_type_link_over_folder (Fixture       *f,
                            gconstpointer  data)
{
  g_assert_cmpint (sh (f, NULL, "mkdir -p s d/x; ln -s target s/x; echo in > d/x/y\n"
                                "$CLI mirror -q --no-history s d\n"), ==, 0);
  g_assert_true (S_ISLNK (lstat_in (f, "d/x").st_mode));
  assert_mirrored (f);
}

/* The link's time is later than the file's, and it was made after the
 * file last changed: times of two types say nothing. */
static void
test_type_file_over_newer_link (Fixture       *f,
                                gconstpointer  data)
{
  g_assert_cmpint (sh (f, NULL, "mkdir s d; echo f > s/l; touch -d 2020-01-01 s/l; sleep 0.01\n"
                                "ln -s nowhere d/l\n"
                                "$CLI mirror -q --no-history s d\n"), ==, 0);
  g_assert_true (S_ISREG (lstat_in (f, "d/l").st_mode));
  assert_mirrored (f);
}

/* Listed with the deletions before anything changes, and under --max-delete. */
static void
test_type_listed (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *out = NULL;

  g_assert_cmpint (sh_all (f, &out, "mkdir -p s/x d; echo old > d/x\n"
                                    "$CLI mirror --no-history --dry-run s d\n"), ==, 0);
  g_assert_nonnull (strstr (out, "delete       ./d/x"));
  g_assert_nonnull (strstr (out, "mkdir        ./s/x -> ./d/x"));
  g_assert_true (S_ISREG (lstat_in (f, "d/x").st_mode));

  g_clear_pointer (&out, g_free);
  g_assert_cmpint (sh_all (f, &out, "$CLI mirror --no-history --max-delete 0 s d\n"), ==, 1);
  g_assert_true (S_ISREG (lstat_in (f, "d/x").st_mode));
  g_assert_nonnull (strstr (out, "nothing was written through it"));
}

/* A copy deletes nothing: it says what stands there, and what the source has. */
static void
test_type_copy_fails (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *out = NULL;

  g_assert_cmpint (sh_all (f, &out, "mkdir -p s/y d/x; echo f > s/x; echo f > s/other; echo f > d/y\n"
                                    "$CLI copy -q --no-history s/. d\n"), ==, 1);
  g_assert_nonnull (strstr (out, "the destination is a folder, the source a file"));
  g_assert_nonnull (strstr (out, "the destination is a file, the source a folder"));
  g_assert_true (S_ISREG (lstat_in (f, "d/y").st_mode));
  g_assert_true (S_ISDIR (lstat_in (f, "d/x").st_mode));
  g_assert_true (S_ISREG (lstat_in (f, "d/other").st_mode));

  g_clear_pointer (&out, g_free);
  g_assert_cmpint (sh_all (f, &out, "ln -s nowhere d/l; echo f > s/l; touch -d 2020-01-01 s/l\n"
                                    "$CLI copy -q --no-history s/. d\n"), ==, 1);
  g_assert_nonnull (strstr (out, "the destination is a symbolic link, the source a file"));
  g_assert_true (S_ISLNK (lstat_in (f, "d/l").st_mode));
}

/* A mirror replaces a file that differs, newer or not */

static void
test_mirror_replaces_newer (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *out = NULL;
  g_autofree char *text = NULL;
  g_autofree char *path = g_build_filename (f->root, "d/f", NULL);

  g_assert_cmpint (sh (f, NULL, "mkdir s; echo source > s/f; touch -d 2020-01-01 s/f\n"
                                "$CLI mirror -q --no-history s d\n"
                                "echo edited > d/f\n"
                                "$CLI mirror -q --no-history --overwrite=newer s d\n"), ==, 0);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "edited\n");
  g_clear_pointer (&text, g_free);

  g_assert_cmpint (sh (f, &out, "$CLI mirror --no-history --dry-run s d\n"), ==, 0);
  g_assert_nonnull (strstr (out, "replace      ./s/f -> ./d/f"));
  g_assert_cmpint (sh (f, NULL, "$CLI mirror -q --no-history s d\n"), ==, 0);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "source\n");
  assert_mirrored (f);
}

/* Hard links */

static void
assert_linked (Fixture    *f,
               const char *a,
               const char *b)
{
  struct stat x = lstat_in (f, a), y = lstat_in (f, b);

  g_assert_cmpuint (x.st_dev, ==, y.st_dev);
  g_assert_cmpuint (x.st_ino, ==, y.st_ino);
}

/* Names linked since the last run are linked at the destination too, which
 * ever of them the folder lists first. */
static void
test_links_later (Fixture       *f,
                  gconstpointer  data)
{
  g_assert_cmpint (sh (f, NULL, "mkdir s; echo a > s/a; echo z > s/z\n"
                                "$CLI mirror -q --no-history s d\n"
                                "ln s/a s/b; ln s/z s/y; ln s/z s/x\n"
                                "$CLI mirror -q --no-history s d\n"), ==, 0);
  assert_linked (f, "d/a", "d/b");
  assert_linked (f, "d/z", "d/y");
  assert_linked (f, "d/z", "d/x");
  g_assert_cmpint (lstat_in (f, "d/a").st_nlink, ==, 2);
  g_assert_cmpint (lstat_in (f, "d/z").st_nlink, ==, 3);
}

/* A device node or a FIFO of several names stays one node, on a first copy. */
static void
test_links_nodes (Fixture       *f,
                  gconstpointer  data)
{
  if (geteuid () != 0)
    {
      g_test_skip ("only root can make a device node");
      return;
    }
  g_assert_cmpint (sh (f, NULL, "mkdir s; mknod s/null c 1 3; ln s/null s/null2\n"
                                "mkfifo s/fifo; ln s/fifo s/fifo2\n"
                                "$CLI copy -q --no-history s/. d\n"), ==, 0);
  g_assert_true (S_ISCHR (lstat_in (f, "d/null").st_mode));
  assert_linked (f, "d/null", "d/null2");
  g_assert_true (S_ISFIFO (lstat_in (f, "d/fifo").st_mode));
  assert_linked (f, "d/fifo", "d/fifo2");
}

/* A folder gone from the source that holds excluded names stays, without an
 * error, with a note saying why; what else it held goes. */
static void
test_kept_for_excluded (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *out = NULL;
  g_autofree char *gone_x = g_build_filename (f->root, "d/gone/x", NULL);
  g_autofree char *gone_y = g_build_filename (f->root, "d/gone/sub/y", NULL);

  g_assert_cmpint (sh_all (f, &out, "mkdir -p s d/gone/sub; echo k > d/gone/sub/keep.tmp\n"
                                    "echo x > d/gone/x; echo y > d/gone/sub/y\n"
                                    "$CLI mirror -q --no-history -x '*.tmp' s d\n"), ==, 0);
  g_assert_true (S_ISREG (lstat_in (f, "d/gone/sub/keep.tmp").st_mode));
  g_assert_false (g_file_test (gone_x, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (gone_y, G_FILE_TEST_EXISTS));
  g_assert_nonnull (strstr (out, "holds names the mirror excludes"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  cli = g_getenv ("CS_CLI");
  if (cli == NULL)
    cli = "copyscope-cli";

#define ADD(path, func, data) \
  g_test_add ("/rerun/" path, Fixture, GINT_TO_POINTER (data), fixture_setup, func, fixture_teardown)
  ADD ("metadata/mode/mirror", test_mode, 0);
  ADD ("metadata/mode/copy", test_mode, 1);
  ADD ("metadata/in-place", test_in_place, 0);
  ADD ("metadata/xattr/mirror", test_xattr, 0);
  ADD ("metadata/xattr/copy", test_xattr, 1);
  ADD ("metadata/acl/mirror", test_acl, 0);
  ADD ("metadata/acl/copy", test_acl, 1);
  ADD ("metadata/owner/mirror", test_owner, 0);
  ADD ("metadata/owner/copy", test_owner, 1);
  ADD ("type/folder-over-file", test_type_folder_over_file, 0);
  ADD ("type/file-over-folder", test_type_file_over_folder, 0);
  ADD ("type/link-over-folder", test_type_link_over_folder, 0);
  ADD ("type/file-over-newer-link", test_type_file_over_newer_link, 0);
  ADD ("type/listed", test_type_listed, 0);
  ADD ("type/copy-fails", test_type_copy_fails, 0);
  ADD ("mirror-replaces-newer", test_mirror_replaces_newer, 0);
  ADD ("kept-for-excluded", test_kept_for_excluded, 0);
  ADD ("links/later", test_links_later, 0);
  ADD ("links/nodes", test_links_nodes, 0);
#undef ADD

  return g_test_run ();
}
