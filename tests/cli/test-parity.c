/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "cs-test-tree.h"

/*
 * Metadata parity with cp -a: the same tree copied by `cp -a` and by
 * `copyscope-cli copy` must read the same to getfacl -R, getfattr -Rd and
 * stat — ACLs and extended attributes on folders as on files, hard links kept
 * as links (within and across folders), FIFOs and, as root, device nodes
 * recreated. The one difference on purpose: a socket belongs to the program
 * listening on it and is skipped with a note (cp -a makes a dead node).
 */

static const char *cli;

typedef struct {
  char *root;
  char *src;
  char *by_cp;
  char *by_us;
  char *json;
  int   socket_fd;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->root = cs_test_tree_make_tmp ();
  f->src = g_build_filename (f->root, "src", NULL);
  f->by_cp = g_build_filename (f->root, "by-cp", NULL);
  f->by_us = g_build_filename (f->root, "by-copyscope", NULL);
  f->json = g_build_filename (f->root, "run.json", NULL);
  f->socket_fd = -1;
  g_assert_cmpint (g_mkdir (f->src, 0755), ==, 0);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  if (f->socket_fd >= 0)
    close (f->socket_fd);
  cs_test_tree_remove (f->root);
  g_free (f->root);
  g_free (f->src);
  g_free (f->by_cp);
  g_free (f->by_us);
  g_free (f->json);
}

/* Runs @argv in @cwd (NULL: here); returns stdout, fails the test on a
 * non-zero exit unless @may_fail. */
static char *
run (const char  *cwd,
     const char **argv,
     gboolean     may_fail,
     int         *out_status)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *command = g_strjoinv (" ", (char **) argv);
  g_autofree char *err = NULL;
  char *out = NULL;
  int status = 0;

  g_spawn_sync (cwd, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err,
                &status, &error);
  g_assert_no_error (error);
  g_test_message ("%s: wait status %d%s%s", command, status, err != NULL && *err ? "; stderr: " : "",
                  err != NULL ? err : "");
  if (out_status != NULL)
    *out_status = WIFEXITED (status) ? WEXITSTATUS (status) : -1;
  if (!may_fail)
    g_assert_true (g_spawn_check_wait_status (status, NULL));
  return out;
}

static gboolean
have_program (const char *name)
{
  g_autofree char *path = g_find_program_in_path (name);

  return path != NULL;
}

static void
write_file (const char *path,
            const char *text,
            mode_t      mode,
            gint64      mtime)
{
  struct timespec ts[2] = { { mtime, 123456789 }, { mtime, 123456789 } };

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  g_assert_cmpint (g_chmod (path, mode), ==, 0);
  g_assert_cmpint (utimensat (AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW), ==, 0);
}

static void
set_times (const char *path,
           gint64      mtime)
{
  struct timespec ts[2] = { { mtime, 987654321 }, { mtime, 987654321 } };

  g_assert_cmpint (utimensat (AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW), ==, 0);
}

static void
setfacl (const char *spec,
         const char *path,
         gboolean    default_acl)
{
  const char *access_argv[] = { "setfacl", "-m", spec, path, NULL };
  const char *default_argv[] = { "setfacl", "-d", "-m", spec, path, NULL };

  g_free (run (NULL, default_acl ? default_argv : access_argv, FALSE, NULL));
}

static char *
sub (Fixture    *f,
     const char *rel)
{
  return g_build_filename (f->src, rel, NULL);
}

/*
 * top-a/ (0750, ACL with a named user and a default ACL, user.* xattr)
 *   one.txt (ACL, xattr), pair-1, triple-1
 *   inner/ (0700, xattr) pair-2 (a link of top-a/pair-1), fifo
 * top-b/ (0755)
 *   triple-2, triple-3 (links of top-a/triple-1), lone.txt, cross (a link of top-a/one.txt)
 *   link -> ../top-a/one.txt, char-device, block-device (as root)
 * socket (skipped)
 */
static void
make_tree (Fixture *f,
           gboolean devices)
{
  g_autofree char *top_a = sub (f, "top-a");
  g_autofree char *inner = sub (f, "top-a/inner");
  g_autofree char *top_b = sub (f, "top-b");
  g_autofree char *one = sub (f, "top-a/one.txt");
  g_autofree char *pair1 = sub (f, "top-a/pair-1");
  g_autofree char *pair2 = sub (f, "top-a/inner/pair-2");
  g_autofree char *triple1 = sub (f, "top-a/triple-1");
  g_autofree char *triple2 = sub (f, "top-b/triple-2");
  g_autofree char *triple3 = sub (f, "top-b/triple-3");
  g_autofree char *cross = sub (f, "top-b/cross");
  g_autofree char *lone = sub (f, "top-b/lone.txt");
  g_autofree char *symbolic = sub (f, "top-b/link");
  g_autofree char *fifo = sub (f, "top-a/inner/fifo");
  g_autofree char *chr = sub (f, "top-b/char-device");
  g_autofree char *blk = sub (f, "top-b/block-device");
  g_autofree char *sock = sub (f, "socket");
  struct sockaddr_un addr = { AF_UNIX };

  g_assert_cmpint (g_mkdir (top_a, 0750), ==, 0);
  g_assert_cmpint (g_mkdir (inner, 0700), ==, 0);
  g_assert_cmpint (g_mkdir (top_b, 0755), ==, 0);

  write_file (one, "one\n", 0640, 1500000001);
  write_file (pair1, "a pair\n", 0644, 1500000002);
  g_assert_cmpint (link (pair1, pair2), ==, 0);
  write_file (triple1, "three names\n", 0600, 1500000003);
  g_assert_cmpint (link (triple1, triple2), ==, 0);
  g_assert_cmpint (link (triple1, triple3), ==, 0);
  g_assert_cmpint (link (one, cross), ==, 0);
  write_file (lone, "alone\n", 0444, 1500000004);
  g_assert_cmpint (symlink ("../top-a/one.txt", symbolic), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0620), ==, 0);
  set_times (fifo, 1500000005);
  if (devices)
    {
      /* /dev/null's and loop0's numbers: recreated, never opened. */
      g_assert_cmpint (mknod (chr, S_IFCHR | 0666, makedev (1, 3)), ==, 0);
      g_assert_cmpint (mknod (blk, S_IFBLK | 0600, makedev (7, 0)), ==, 0);
      set_times (chr, 1500000006);
      set_times (blk, 1500000007);
    }

  /* ACLs: on a file, on a folder (access and default); the mask of a folder's
   * ACL is what its group bits show. */
  setfacl ("u:nobody:r", one, FALSE);
  setfacl ("u:nobody:rwx", top_a, FALSE);
  setfacl ("g:nogroup:rx", top_a, TRUE);
  g_assert_cmpint (lsetxattr (one, "user.kind", "file", 4, 0), ==, 0);
  g_assert_cmpint (lsetxattr (top_a, "user.kind", "folder", 6, 0), ==, 0);
  g_assert_cmpint (lsetxattr (inner, "user.note", "inner folder", 12, 0), ==, 0);

  f->socket_fd = socket (AF_UNIX, SOCK_STREAM, 0);
  g_assert_cmpint (f->socket_fd, >=, 0);
  g_strlcpy (addr.sun_path, sock, sizeof addr.sun_path);
  g_assert_cmpint (bind (f->socket_fd, (struct sockaddr *) &addr, sizeof addr), ==, 0);

  /* Folder times last, after their contents changed them. */
  set_times (inner, 1400000001);
  set_times (top_a, 1400000002);
  set_times (top_b, 1400000003);
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* What stat says of every entry below @root: type, mode, owner, size of
 * files, mtime to the nanosecond, device numbers, link count and which name
 * it shares its file with. Sockets are left out. */
static char *
stat_listing (const char *root)
{
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GHashTable) first_name = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  g_autoptr(GPtrArray) queue = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  GString *out = g_string_new (NULL);

  /* Breadth first, in sorted order, so "first name" means the same in both trees. */
  g_ptr_array_add (queue, g_strdup ("."));
  for (guint q = 0; q < queue->len; q++)
    {
      const char *rel = g_ptr_array_index (queue, q);
      g_autofree char *dir = g_build_filename (root, rel, NULL);
      g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
      g_autoptr(GPtrArray) here = g_ptr_array_new_with_free_func (g_free);
      const char *name;

      g_assert_nonnull (d);
      while ((name = g_dir_read_name (d)) != NULL)
        g_ptr_array_add (here, g_strdup (name));
      g_ptr_array_sort (here, compare_names);
      for (guint i = 0; i < here->len; i++)
        {
          const char *n = g_ptr_array_index (here, i);
          char *child = strcmp (rel, ".") == 0 ? g_strdup (n) : g_strconcat (rel, "/", n, NULL);
          g_autofree char *path = g_build_filename (root, child, NULL);
          struct stat st;

          g_assert_cmpint (lstat (path, &st), ==, 0);
          if (S_ISDIR (st.st_mode))
            g_ptr_array_add (queue, g_strdup (child));
          g_ptr_array_add (names, child);
        }
    }

  for (guint i = 0; i < names->len; i++)
    {
      const char *rel = g_ptr_array_index (names, i);
      g_autofree char *path = g_build_filename (root, rel, NULL);
      g_autofree char *shares = NULL;
      struct stat st;
      gint64 key;
      char type;

      g_assert_cmpint (lstat (path, &st), ==, 0);
      if (S_ISSOCK (st.st_mode))
        continue;
      type = S_ISREG (st.st_mode) ? 'f' : S_ISDIR (st.st_mode) ? 'd' : S_ISLNK (st.st_mode) ? 'l'
           : S_ISFIFO (st.st_mode) ? 'p' : S_ISCHR (st.st_mode) ? 'c' : S_ISBLK (st.st_mode) ? 'b' : '?';
      key = (gint64) st.st_ino;
      if (!S_ISDIR (st.st_mode))
        {
          const char *first = g_hash_table_lookup (first_name, &key);

          if (first == NULL)
            g_hash_table_insert (first_name, g_memdup2 (&key, sizeof key), g_strdup (rel));
          else
            shares = g_strdup (first);
        }
      g_autofree char *size = S_ISREG (st.st_mode) || S_ISLNK (st.st_mode)
                              ? g_strdup_printf ("%" G_GINT64_FORMAT, (gint64) st.st_size) : g_strdup ("-");
      g_autofree char *links = S_ISDIR (st.st_mode) ? g_strdup ("-")
                               : g_strdup_printf ("%u", (guint) st.st_nlink);

      g_ptr_array_add (lines, g_strdup_printf (
        "%s %c mode %04o owner %u:%u size %s mtime %" G_GINT64_FORMAT ".%09ld rdev %u:%u links %s%s%s",
        rel, type, (guint) (st.st_mode & 07777), (guint) st.st_uid, (guint) st.st_gid, size,
        (gint64) st.st_mtim.tv_sec, st.st_mtim.tv_nsec, major (st.st_rdev), minor (st.st_rdev),
        links, shares != NULL ? " same file as " : "", shares != NULL ? shares : ""));
    }
  for (guint i = 0; i < lines->len; i++)
    g_string_append_printf (out, "%s\n", (const char *) g_ptr_array_index (lines, i));
  return g_string_free (out, FALSE);
}

/* getfacl and getfattr list in directory order, which two trees need not
 * share: their records (separated by blank lines), sorted. */
static char *
sorted_records (const char *text)
{
  g_auto(GStrv) records = g_strsplit (text, "\n\n", -1);
  guint n = g_strv_length (records);

  qsort (records, n, sizeof (char *), compare_names);
  return g_strjoinv ("\n\n", records);
}

static void
assert_same_text (const char *what,
                  const char *by_cp,
                  const char *by_us)
{
  if (g_strcmp0 (by_cp, by_us) != 0)
    {
      g_test_message ("%s of the cp -a copy:\n%s", what, by_cp);
      g_test_message ("%s of Copyscope's copy:\n%s", what, by_us);
    }
  g_assert_cmpstr (by_us, ==, by_cp);
}

static void
test_cp_a (Fixture       *f,
           gconstpointer  data)
{
  gboolean devices = geteuid () == 0;
  const char *cp_argv[] = { "cp", "-a", f->src, f->by_cp, NULL };
  const char *us_argv[] = { cli, "copy", "--no-history", "--no-flush", "-q", "--json", f->json,
                            f->src, f->by_us, NULL };
  const char *acl_argv[] = { "getfacl", "-R", "-P", "-p", ".", NULL };
  const char *attr_argv[] = { "getfattr", "-R", "-d", "-h", "-m", "-", ".", NULL };
  g_autofree char *out = NULL;
  g_autofree char *record = NULL;
  g_autoptr(JsonNode) report = NULL;
  g_autoptr(GError) error = NULL;
  JsonArray *errors;
  int status = 0;

  if (!have_program ("getfacl") || !have_program ("setfacl") || !have_program ("getfattr"))
    {
      g_test_skip ("getfacl, setfacl or getfattr is missing (Debian: acl, attr)");
      return;
    }
  if (lsetxattr (f->src, "user.probe", "1", 1, 0) != 0)
    {
      g_test_skip_printf ("no user xattrs here: %s", g_strerror (errno));
      return;
    }
  g_assert_cmpint (lremovexattr (f->src, "user.probe"), ==, 0);
  if (!devices)
    g_test_message ("not root: no device nodes tried");
  make_tree (f, devices);

  g_free (run (NULL, cp_argv, FALSE, NULL));
  {
    g_autofree char *cp_socket = g_build_filename (f->by_cp, "socket", NULL);

    g_assert_cmpint (g_remove (cp_socket), ==, 0);
  }
  out = run (NULL, us_argv, TRUE, &status);
  g_assert_cmpint (status, ==, 0);

  {
    g_autofree char *cp_acl_raw = run (f->by_cp, acl_argv, FALSE, NULL);
    g_autofree char *us_acl_raw = run (f->by_us, acl_argv, FALSE, NULL);
    g_autofree char *cp_attr_raw = run (f->by_cp, attr_argv, FALSE, NULL);
    g_autofree char *us_attr_raw = run (f->by_us, attr_argv, FALSE, NULL);
    g_autofree char *cp_acl = sorted_records (cp_acl_raw);
    g_autofree char *us_acl = sorted_records (us_acl_raw);
    g_autofree char *cp_attr = sorted_records (cp_attr_raw);
    g_autofree char *us_attr = sorted_records (us_attr_raw);
    g_autofree char *cp_stat = stat_listing (f->by_cp);
    g_autofree char *us_stat = stat_listing (f->by_us);

    g_test_message ("getfacl -R of the copies:\n%s", us_acl);
    assert_same_text ("getfacl -R", cp_acl, us_acl);
    assert_same_text ("getfattr -Rd", cp_attr, us_attr);
    assert_same_text ("stat", cp_stat, us_stat);
  }

  /* The socket is the one thing not copied, and the run says so, in a note:
   * left out on purpose, not a failure (the exit status above is 0). */
  g_assert_true (g_file_get_contents (f->json, &record, NULL, NULL));
  report = json_from_string (record, &error);
  g_assert_no_error (error);
  errors = json_object_get_array_member (json_node_get_object (report), "errors");
  g_assert_cmpuint (json_array_get_length (errors), ==, 1);
  g_assert_true (g_str_has_suffix (json_object_get_string_member (json_array_get_object_element (errors, 0), "path"),
                                   "/socket"));
  g_assert_true (json_object_get_boolean_member (json_array_get_object_element (errors, 0), "note"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  cli = g_getenv ("CS_CLI");
  g_assert_nonnull (cli);

  g_test_add ("/parity/cp-a", Fixture, NULL, fixture_setup, test_cp_a, fixture_teardown);

  return g_test_run ();
}
