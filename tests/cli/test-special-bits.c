/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include <grp.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "cs-test-tree.h"

/*
 * Setuid, setgid and sticky bits where the owner cannot be kept (issue 37,
 * case 4). cp -p, rsync and tar clear setuid and setgid when the copy cannot
 * have the source's owner and group, and cp -a as an ordinary user (coreutils
 * 9.1, as seen here) clears a file's sticky bit too but keeps a folder's. A
 * copy by nobody of root's setuid file must not be a setuid file of nobody's.
 * cp -a run as nobody beside the CLI is the oracle.
 */

static const char *cli;

typedef struct {
  char *tmp;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->tmp = cs_test_tree_make_tmp ();
  /* mktemp makes 0700: nobody must get through. */
  g_assert_cmpint (g_chmod (f->tmp, 0755), ==, 0);
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

/* Skips the test, visibly, unless it can run a command as nobody. */
static gboolean
can_drop_privileges (uid_t *uid,
                     gid_t *gid)
{
  g_autofree char *setpriv = g_find_program_in_path ("setpriv");
  struct passwd *pw;
  struct group *gr;

  if (geteuid () != 0)
    {
      g_test_skip ("needs root to make root's setuid files and to become nobody");
      return FALSE;
    }
  if (setpriv == NULL)
    {
      g_test_skip ("setpriv (util-linux) is not installed");
      return FALSE;
    }
  pw = getpwnam ("nobody");
  gr = getgrnam ("nogroup");
  if (pw == NULL || gr == NULL)
    {
      g_test_skip ("no user nobody or no group nogroup");
      return FALSE;
    }
  *uid = pw->pw_uid;
  *gid = gr->gr_gid;
  return TRUE;
}

/* Runs @argv in the fixture's folder, as nobody when @as_nobody; the exit
 * status, @err its standard error. */
static int
run (Fixture     *f,
     gboolean     as_nobody,
     char       **err,
     const char **argv)
{
  g_autoptr(GPtrArray) full = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *command = NULL;
  int wait_status = 0;

  if (as_nobody)
    {
      g_ptr_array_add (full, (gpointer) "setpriv");
      g_ptr_array_add (full, (gpointer) "--reuid=nobody");
      g_ptr_array_add (full, (gpointer) "--regid=nogroup");
      g_ptr_array_add (full, (gpointer) "--clear-groups");
    }
  for (guint i = 0; argv[i] != NULL; i++)
    g_ptr_array_add (full, (gpointer) argv[i]);
  g_ptr_array_add (full, NULL);

  command = g_strjoinv (" ", (char **) full->pdata);
  g_spawn_sync (f->tmp, (char **) full->pdata, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                &out, err, &wait_status, &error);
  g_assert_no_error (error);
  g_test_message ("%s: exit %d\nstderr:\n%s", command, WEXITSTATUS (wait_status), *err);
  g_assert_true (WIFEXITED (wait_status));
  return WEXITSTATUS (wait_status);
}

static void
make_file (Fixture    *f,
           const char *rel,
           mode_t      mode)
{
  g_autofree char *p = path (f, rel);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (p, "#!/bin/sh\nexit 0\n", -1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (chmod (p, mode), ==, 0);
}

static void
make_folder (Fixture    *f,
             const char *rel,
             mode_t      mode)
{
  g_autofree char *p = path (f, rel);

  g_assert_cmpint (g_mkdir (p, 0755), ==, 0);
  g_assert_cmpint (chmod (p, mode), ==, 0);
}

static struct stat
stat_at (Fixture    *f,
         const char *rel)
{
  g_autofree char *p = path (f, rel);
  struct stat st;

  g_assert_cmpint (lstat (p, &st), ==, 0);
  return st;
}

/* Root's tree: a setuid, a setgid and a sticky file, a setuid-and-setgid
 * one, a setgid folder, a sticky folder (like /tmp) and a plain file. */
static const struct {
  const char *name;
  mode_t      mode;
  gboolean    folder;
} entries[] = {
  { "suid", 04755, FALSE },
  { "sgid", 02755, FALSE },
  { "both", 06755, FALSE },
  { "sticky", 01755, FALSE },
  { "plain", 0755, FALSE },
  { "sgid-folder", 02775, TRUE },
  { "sticky-folder", 01777, TRUE },
};

static void
make_root_tree (Fixture *f)
{
  make_folder (f, "src", 0755);
  for (guint i = 0; i < G_N_ELEMENTS (entries); i++)
    {
      g_autofree char *rel = g_build_filename ("src", entries[i].name, NULL);

      if (entries[i].folder)
        make_folder (f, rel, entries[i].mode);
      else
        make_file (f, rel, entries[i].mode);
    }
  /* Where nobody may write, as /tmp. */
  make_folder (f, "scratch", 01777);
}

/* Nobody copies (or moves) root's tree: every entry has cp -a's mode, no
 * set-id bit belongs to nobody, and the loss is said once. */
static void
test_nobody (Fixture       *f,
             gconstpointer  data)
{
  const char *operation = data;
  g_autofree char *err = NULL;
  g_autofree char *cp_err = NULL;
  uid_t uid;
  gid_t gid;
  const char *cp_argv[] = { "cp", "-a", "src", "scratch/by-cp", NULL };
  const char *argv[] = { cli, operation, "--no-history", "src", "scratch/by-us", NULL };

  if (!can_drop_privileges (&uid, &gid))
    return;
  make_root_tree (f);

  g_assert_cmpint (run (f, TRUE, &cp_err, cp_argv), ==, 0);
  g_assert_cmpint (run (f, TRUE, &err, argv), ==, 0);

  for (guint i = 0; i < G_N_ELEMENTS (entries); i++)
    {
      g_autofree char *ours = g_build_filename ("scratch/by-us", entries[i].name, NULL);
      g_autofree char *theirs = g_build_filename ("scratch/by-cp", entries[i].name, NULL);
      struct stat us = stat_at (f, ours);
      struct stat cp = stat_at (f, theirs);

      g_test_message ("%s: ours %04o, cp -a %04o", entries[i].name,
                      (guint) (us.st_mode & 07777), (guint) (cp.st_mode & 07777));
      g_assert_cmpuint (us.st_uid, ==, uid);
      g_assert_cmpuint (us.st_mode & 07777, ==, cp.st_mode & 07777);
      g_assert_cmpuint (us.st_mode & (S_ISUID | S_ISGID), ==, 0);
    }
  /* What is kept is kept: the folder stays a shared one, the rest as it was. */
  g_assert_cmpuint (stat_at (f, "scratch/by-us/sticky-folder").st_mode & 07777, ==, 01777);
  g_assert_cmpuint (stat_at (f, "scratch/by-us/suid").st_mode & 07777, ==, 0755);
  g_assert_cmpuint (stat_at (f, "scratch/by-us/sgid-folder").st_mode & 07777, ==, 0775);
  /* Said once, as the other metadata a copy could not keep. */
  g_assert_nonnull (strstr (err, "Setuid, setgid and sticky bits"));
  g_assert_null (strstr (strstr (err, "Setuid, setgid and sticky bits") + 1,
                         "Setuid, setgid and sticky bits"));
}

/* A move to another filesystem is a copy and a removal: the same rule. Root's
 * files lie in folders nobody may write, so nobody can move them. */
static void
test_nobody_move (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *err = NULL;
  g_autofree char *other = NULL;
  g_autofree char *src = NULL;
  g_autofree char *dst = path (f, "scratch/moved");
  struct stat other_st, here_st;
  uid_t uid;
  gid_t gid;

  if (!can_drop_privileges (&uid, &gid))
    return;
  make_folder (f, "scratch", 01777);
  if (!g_file_test ("/dev/shm", G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("no /dev/shm to move from");
      return;
    }
  other = g_strdup ("/dev/shm/copyscope-bits-XXXXXX");
  g_assert_nonnull (g_mkdtemp (other));
  g_assert_cmpint (lstat (other, &other_st), ==, 0);
  g_assert_cmpint (lstat (f->tmp, &here_st), ==, 0);
  if (other_st.st_dev == here_st.st_dev)
    {
      cs_test_tree_remove (other);
      g_test_skip ("no second filesystem (/dev/shm) to move across");
      return;
    }
  g_assert_cmpint (g_chmod (other, 0777), ==, 0);
  src = g_build_filename (other, "src", NULL);
  g_assert_cmpint (g_mkdir (src, 0777), ==, 0);
  g_assert_cmpint (g_chmod (src, 0777), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (entries); i++)
    {
      g_autofree char *p = g_build_filename (src, entries[i].name, NULL);

      if (entries[i].folder)
        g_assert_cmpint (g_mkdir (p, 0755), ==, 0);
      else
        g_assert_true (g_file_set_contents (p, "#!/bin/sh\n", -1, NULL));
      /* Folders writable by all, or nobody could empty them. */
      g_assert_cmpint (chmod (p, entries[i].folder ? entries[i].mode | 0777 : entries[i].mode), ==, 0);
    }

  {
    const char *argv[] = { cli, "move", "--no-history", src, dst, NULL };

    g_assert_cmpint (run (f, TRUE, &err, argv), ==, 0);
  }
  for (guint i = 0; i < G_N_ELEMENTS (entries); i++)
    {
      g_autofree char *rel = g_build_filename ("scratch/moved", entries[i].name, NULL);
      g_autofree char *gone = g_build_filename (src, entries[i].name, NULL);
      struct stat st = stat_at (f, rel);

      g_assert_cmpuint (st.st_uid, ==, uid);
      g_assert_cmpuint (st.st_mode & (S_ISUID | S_ISGID), ==, 0);
      g_assert_false (g_file_test (gone, G_FILE_TEST_EXISTS));
    }
  g_assert_cmpuint (stat_at (f, "scratch/moved/sticky").st_mode & 07777, ==, 0755);
  g_assert_nonnull (strstr (err, "Setuid, setgid and sticky bits"));
  cs_test_tree_remove (other);
}

/* Nobody's own setuid file keeps its bit: the owner is kept. */
static void
test_nobody_own (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *err = NULL;
  g_autofree char *src = NULL;
  uid_t uid;
  gid_t gid;
  const char *argv[] = { cli, "copy", "--no-history", "mine", "scratch/copy", NULL };

  if (!can_drop_privileges (&uid, &gid))
    return;
  make_folder (f, "scratch", 01777);
  make_file (f, "mine", 0755);
  src = path (f, "mine");
  g_assert_cmpint (chown (src, uid, gid), ==, 0);
  g_assert_cmpint (chmod (src, 06755), ==, 0);

  g_assert_cmpint (run (f, TRUE, &err, argv), ==, 0);
  g_assert_cmpuint (stat_at (f, "scratch/copy").st_mode & 07777, ==, 06755);
  g_assert_cmpuint (stat_at (f, "scratch/copy").st_uid, ==, uid);
  g_assert_null (strstr (err, "Setuid"));
}

/* As root the owner is kept, and with it every bit. */
static void
test_root (Fixture       *f,
           gconstpointer  data)
{
  g_autofree char *err = NULL;
  uid_t uid;
  gid_t gid;
  const char *argv[] = { cli, "copy", "--no-history", "src", "scratch/by-root", NULL };

  if (!can_drop_privileges (&uid, &gid))
    return;
  make_root_tree (f);

  g_assert_cmpint (run (f, FALSE, &err, argv), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (entries); i++)
    {
      g_autofree char *rel = g_build_filename ("scratch/by-root", entries[i].name, NULL);
      struct stat st = stat_at (f, rel);

      g_assert_cmpuint (st.st_mode & 07777, ==, entries[i].mode);
      g_assert_cmpuint (st.st_uid, ==, 0);
    }
  g_assert_null (strstr (err, "Setuid"));
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

  g_test_add ("/special-bits/nobody/copy", Fixture, "copy", fixture_setup, test_nobody,
              fixture_teardown);
  g_test_add ("/special-bits/nobody/move", Fixture, NULL, fixture_setup, test_nobody_move,
              fixture_teardown);
  g_test_add ("/special-bits/nobody/own-file", Fixture, NULL, fixture_setup, test_nobody_own,
              fixture_teardown);
  g_test_add ("/special-bits/root/copy", Fixture, NULL, fixture_setup, test_root,
              fixture_teardown);

  return g_test_run ();
}
