/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include "test-fault-cli.h"

/* Bad input: refused requests, unreadable files as nobody, symlink loops,
 * special files, awkward names, long paths, deep and wide trees, hard links,
 * sparse files, planted symlinks, extended attributes. */

static void
assert_refused (Fixture    *f,
                Result     *r,
                const char *reason)
{
  /* Refused on its own, a source is a failed item, as with cp: exit 1. */
  g_assert_cmpint (r->status, ==, 1);
  g_assert_nonnull (r->err);
  if (strstr (r->err, reason) == NULL)
    g_test_message ("stderr lacks “%s”", reason);
  g_assert_nonnull (strstr (r->err, reason));
}

void
test_refusals (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *file = g_build_filename (f->src, "a.txt", NULL);
  g_autofree char *hard = path_in (f, "out/hard.txt");
  g_autofree char *soft = path_in (f, "out/soft.txt");
  g_autofree char *bound = path_in (f, "out/bound.txt");
  g_autofree char *bound_dir = path_in (f, "out/src");
  g_autofree char *inside = g_build_filename (f->src, "sub", "inner", NULL);
  g_autofree char *missing = path_in (f, "missing");
  g_autofree char *dup = g_strconcat (f->src, "/", NULL);
  g_autofree char *dup2 = g_strconcat (f->root, "/./src", NULL);
  g_autoptr(GHashTable) before = NULL;
  g_autoptr(GHashTable) before_out = NULL;
  g_autofree char *root_parent = NULL;
  g_auto(Result) r = { 0 };
  gboolean mounted_file = FALSE, mounted_dir = FALSE;
  guint n = 0;

  make_small_tree (f);
  g_assert_cmpint (link (file, hard), ==, 0);
  g_assert_cmpint (symlink (file, soft), ==, 0);
  if (geteuid () == 0)
    {
      write_pattern (bound, 1, 0, 0644);
      mounted_file = mount (file, bound, NULL, MS_BIND, NULL) == 0;
      if (mounted_file)
        g_ptr_array_add (f->mounts, g_strdup (bound));
    }
  /* The run's record goes into report/: what the copy may touch is the
   * source and the destination. */
  before = cs_test_tree_snapshot (f->src);
  before_out = cs_test_tree_snapshot (f->out);

#define REFUSED(reason, ...) G_STMT_START {                   \
    run_copy (f, NULL, &r, __VA_ARGS__, NULL);                 \
    assert_refused (f, &r, reason);                            \
    cs_test_tree_assert_snapshot (f->src, before);             \
    cs_test_tree_assert_snapshot (f->out, before_out);         \
    n++;                                                       \
  } G_STMT_END

  REFUSED ("No such file", missing, f->out);
  REFUSED ("same file", file, file);
  REFUSED ("same file", file, hard);
  REFUSED ("same file", file, soft);
  if (mounted_file)
    REFUSED ("same file", file, bound);
  REFUSED ("inside the source", f->src, inside);
  REFUSED ("inside the source", f->src, f->src);
  /* The same path twice: the first is copied, the second refused. */
  {
    const char *twice[] = { f->src, dup, dup2 };
    g_autofree char *copy = g_build_filename (f->out, "src", NULL);

    for (guint i = 0; i < G_N_ELEMENTS (twice); i++)
      {
        run_copy (f, NULL, &r, f->src, twice[i], f->out, NULL);
        assert_refused (f, &r, "more than once");
        cs_test_tree_assert_equal (f->src, copy);
        cs_test_tree_remove (copy);
        n++;
      }
    g_hash_table_unref (before_out);
    before_out = cs_test_tree_snapshot (f->out);
  }

  if (geteuid () == 0)
    {
      g_assert_cmpint (g_mkdir (bound_dir, 0755), ==, 0);
      mounted_dir = mount (f->src, bound_dir, NULL, MS_BIND, NULL) == 0;
      if (mounted_dir)
        g_ptr_array_add (f->mounts, g_strdup (bound_dir));
    }
  if (mounted_dir)
    {
      /* Bind-mounted onto its own destination: the copy would read and write
       * the same files. */
      g_hash_table_unref (before_out);
      before_out = cs_test_tree_snapshot (f->out);
      run_copy (f, NULL, &r, f->src, f->out, NULL);
      g_test_message ("source bind-mounted on its destination: exit %d", r.status);
      assert_refused (f, &r, "same file");
      cs_test_tree_assert_snapshot (f->src, before);
      cs_test_tree_assert_snapshot (f->out, before_out);
      n++;
    }
  if (!mounted_file || !mounted_dir)
    g_test_message ("bind mounts not tried: needs root and mount(2)");
  g_test_message ("%u refusals, nothing written", n);
}

static void
chown_tree (const char *path,
            uid_t       uid,
            gid_t       gid)
{
  g_autofree char *cmd = g_strdup_printf ("chown -hR %u:%u '%s'", (guint) uid, (guint) gid, path);
  int status = 0;

  g_assert_true (g_spawn_command_line_sync (cmd, NULL, NULL, &status, NULL));
  g_assert_cmpint (status, ==, 0);
}

void
test_unreadable (Fixture       *f,
                 gconstpointer  data)
{
  const char secret_name[] = "secret-\xff\n.txt";
  g_autofree char *secret = g_build_filename (f->src, secret_name, NULL);
  g_autofree char *locked = g_build_filename (f->src, "locked", NULL);
  g_autofree char *locked_file = g_build_filename (locked, "inside.txt", NULL);
  g_autofree char *noexec = g_build_filename (f->src, "noexec", NULL);
  g_autofree char *noexec_file = g_build_filename (noexec, "x.txt", NULL);
  g_auto(Result) r = { 0 };
  How how = { NULL, FALSE, TRUE };
  JsonObject *e;
  uid_t uid;
  gid_t gid;

  if (!can_drop_privileges (&uid, &gid))
    return;
  make_small_tree (f);
  chown_tree (f->src, uid, gid);
  chown_tree (f->out, uid, gid);
  write_pattern (secret, 100, 7, 0600);         /* root's */
  g_assert_cmpint (g_mkdir (locked, 0700), ==, 0);
  write_pattern (locked_file, 100, 8, 0644);    /* behind root's folder */
  g_assert_cmpint (g_mkdir (noexec, 0755), ==, 0);
  write_pattern (noexec_file, 100, 9, 0644);
  chown_tree (noexec, uid, gid);
  g_assert_cmpint (g_chmod (noexec, 0644), ==, 0); /* listable, not traversable */

  watch (f);
  cs_oracle_never_copied (f->oracle, 0, secret_name);
  cs_oracle_never_copied (f->oracle, 0, "locked");
  cs_oracle_never_copied (f->oracle, 0, "noexec/x.txt");
  run_copy (f, &how, &r, f->src, f->out, NULL);

  g_assert_cmpint (r.status, ==, 1);
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "a.txt"), ==, CS_ORACLE_COMPLETE);
  /* Listed with its exact bytes, though they are not UTF-8. */
  e = report_error (&r, secret_name);
  g_assert_nonnull (e);
  g_assert_true (json_object_has_member (e, "path_raw"));
  g_assert_nonnull (report_error (&r, "/locked"));
  g_assert_cmpint (report_total (&r, "failed", "files") + report_total (&r, "failed", "dirs"), >=, 2);

  /* A second run as nobody changes nothing and converges on the rest. */
  run_copy (f, &how, &r, f->src, f->out, NULL);
  g_assert_cmpint (r.status, ==, 1);
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
}

/* ---- Odd entries ------------------------------------------------------------------- */

void
test_symlinks (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *p = NULL;
  g_auto(Result) r = { 0 };
  g_autofree char *loop = g_build_filename (f->src, "loop-a", NULL);
  g_autofree char *out2 = path_in (f, "out2");

#define P(rel) (g_free (p), p = g_build_filename (f->src, rel, NULL))
  make_small_tree (f);
  g_assert_cmpint (symlink ("loop-b", P ("loop-a")), ==, 0);
  g_assert_cmpint (symlink ("loop-a", P ("loop-b")), ==, 0);
  g_assert_cmpint (symlink ("self", P ("self")), ==, 0);
  g_assert_cmpint (symlink ("does/not/exist", P ("dangling")), ==, 0);
  g_assert_cmpint (symlink ("/nonexistent/absolute", P ("dangling-abs")), ==, 0);
  g_assert_cmpint (symlink ("..", P ("sub/up")), ==, 0);        /* a cycle if followed */
  g_assert_cmpint (symlink (".", P ("dot")), ==, 0);
#undef P
  watch (f);
  run_copy (f, NULL, &r, f->src, f->out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);

  /* A loop given as the source itself is copied as the link it is. */
  g_assert_cmpint (g_mkdir (out2, 0755), ==, 0);
  run_copy (f, NULL, &r, loop, out2, NULL);
  g_assert_cmpint (r.status, ==, 0);
  {
    g_autofree char *copied = g_build_filename (out2, "loop-a", NULL);
    g_autofree char *target = g_file_read_link (copied, NULL);
    g_assert_cmpstr (target, ==, "loop-b");
  }
}

void
test_special_files (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *fifo = g_build_filename (f->src, "fifo", NULL);
  g_autofree char *sock = g_build_filename (f->src, "socket", NULL);
  g_autofree char *dev = g_build_filename (f->src, "zero-device", NULL);
  g_auto(Result) r = { 0 };
  struct sockaddr_un addr = { AF_UNIX };
  gboolean have_dev = FALSE;
  int s;

  make_small_tree (f);
  g_assert_cmpint (mkfifo (fifo, 0644), ==, 0);
  s = socket (AF_UNIX, SOCK_STREAM, 0);
  g_assert_cmpint (s, >=, 0);
  g_strlcpy (addr.sun_path, sock, sizeof addr.sun_path);
  g_assert_cmpint (bind (s, (struct sockaddr *) &addr, sizeof addr), ==, 0);
  /* /dev/zero's numbers: read, it would never end. */
  if (geteuid () == 0)
    have_dev = mknod (dev, S_IFCHR | 0644, makedev (1, 5)) == 0;
  if (!have_dev)
    g_test_message ("no device node tried: mknod needs root");

  watch (f);
  /* A socket belongs to the program listening on it: skipped with a note, as
   * cp -a and rsync -a do. FIFOs and devices are recreated, never read. */
  cs_oracle_never_copied (f->oracle, 0, "socket");
  run_copy (f, NULL, &r, "--threads=2", f->src, f->out, NULL);

  g_assert_cmpfloat (r.seconds, <, 20.0);
  g_assert_cmpint (r.status, ==, 0);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "fifo"), ==, CS_ORACLE_COMPLETE);
  if (have_dev)
    g_assert_cmpint (cs_oracle_state (f->oracle, 0, "zero-device"), ==, CS_ORACLE_COMPLETE);
  g_assert_null (report_error (&r, "/fifo"));
  g_assert_null (report_error (&r, "/zero-device"));
  g_assert_nonnull (report_error (&r, "/socket"));
  g_assert_cmpint (report_total (&r, "skipped", "files"), ==, 1);
  g_assert_cmpint (report_total (&r, "copied", "files"), ==, have_dev ? 7 : 6);

  /* Again: the recreated ones are identical now, and skipped. */
  run_copy (f, NULL, &r, "--threads=2", f->src, f->out, NULL);
  close (s);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpint (report_total (&r, "copied", "files"), ==, 0);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
}

/* Without root a device cannot be made: skipped with a note, the rest copied. */
void
test_device_as_nobody (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *dev = g_build_filename (f->src, "null-device", NULL);
  g_auto(Result) r = { 0 };
  How how = { NULL, FALSE, TRUE };
  JsonObject *e;
  uid_t uid;
  gid_t gid;

  if (!can_drop_privileges (&uid, &gid))
    return;
  make_small_tree (f);
  g_assert_cmpint (mknod (dev, S_IFCHR | 0666, makedev (1, 3)), ==, 0);
  chown_tree (f->src, uid, gid);
  chown_tree (f->out, uid, gid);
  watch (f);
  cs_oracle_never_copied (f->oracle, 0, "null-device");
  run_copy (f, &how, &r, f->src, f->out, NULL);

  g_assert_cmpint (r.status, ==, 0);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
  e = report_error (&r, "/null-device");
  g_assert_nonnull (e);
  g_test_message ("reported: %s", json_object_get_string_member (e, "message"));
  g_assert_cmpint (report_total (&r, "skipped", "files"), ==, 1);
}

void
test_names (Fixture       *f,
            gconstpointer  data)
{
  const char *names[] = {
    "new\nline", "bad-\xff\xfe-utf8", "  spaces  ", "tab\there", "-starts-with-dash",
    "quote'\"", "back\\slash", "*glob?[x]", "\xe2\x80\xae" "rtl", "emoji-\xf0\x9f\x93\xb7",
    "trailing.", ".hidden", "..dots", "x", "=cmd", "+x", "@at", "%s%n",
  };
  g_auto(Result) r = { 0 };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *p = g_build_filename (f->src, names[i], NULL);
      write_pattern (p, 100 + i, i, 0644);
    }
  {
    g_autofree char *d = g_build_filename (f->src, "dir\nwith\xff", NULL);
    g_autofree char *p = g_build_filename (d, "inner\n", NULL);
    g_assert_cmpint (g_mkdir (d, 0755), ==, 0);
    write_pattern (p, 10, 99, 0644);
  }
  watch (f);
  run_copy (f, NULL, &r, f->src, f->out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
  g_test_message ("%" G_GSIZE_FORMAT " awkward names copied", G_N_ELEMENTS (names) + 2);
}

/* Builds a chain of folders with *at() calls, longer than PATH_MAX in all. */
void
test_long_path (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *name = g_strnfill (200, 'L');
  g_auto(Result) r = { 0 };
  int fd = open (f->src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  guint levels = (PATH_MAX / 201) + 4, total;

  g_assert_cmpint (fd, >=, 0);
  for (guint i = 0; i < levels; i++)
    {
      int next;

      g_assert_cmpint (mkdirat (fd, name, 0755), ==, 0);
      next = openat (fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      g_assert_cmpint (next, >=, 0);
      close (fd);
      fd = next;
    }
  {
    int file = openat (fd, "deep.txt", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    g_assert_cmpint (file, >=, 0);
    g_assert_cmpint (write (file, "at the bottom\n", 14), ==, 14);
    close (file);
  }
  close (fd);
  total = strlen (f->copy) + levels * 201 + 9;
  g_test_message ("deepest copy path: %u bytes, PATH_MAX is %d", total, PATH_MAX);
  g_assert_cmpuint (total, >, PATH_MAX);

  watch (f);
  run_copy (f, NULL, &r, f->src, f->out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
}

void
test_deep_tree (Fixture       *f,
                gconstpointer  data)
{
  guint levels = GPOINTER_TO_UINT (data);
  g_auto(Result) r = { 0 };
  int fd = open (f->src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  for (guint i = 0; i < levels; i++)
    {
      int next;
      int file = openat (fd, "f", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

      g_assert_cmpint (file, >=, 0);
      g_assert_cmpint (write (file, "x", 1), ==, 1);
      close (file);
      g_assert_cmpint (mkdirat (fd, "d", 0755), ==, 0);
      next = openat (fd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      g_assert_cmpint (next, >=, 0);
      close (fd);
      fd = next;
    }
  close (fd);
  watch (f);
  run_copy (f, NULL, &r, f->src, f->out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpint (report_total (&r, "copied", "files"), ==, levels);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
}

void
test_many_in_one_folder (Fixture       *f,
                         gconstpointer  data)
{
  guint n = GPOINTER_TO_UINT (data);
  g_auto(Result) r = { 0 };
  int fd = open (f->src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  for (guint i = 0; i < n; i++)
    {
      char name[32];
      int file;

      g_snprintf (name, sizeof name, "file-%06u", i);
      file = openat (fd, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
      g_assert_cmpint (file, >=, 0);
      g_assert_cmpint (write (file, name, i % 12), ==, (gssize) (i % 12));
      close (file);
    }
  close (fd);
  watch (f);
  run_copy (f, NULL, &r, "--threads=16", f->src, f->out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpint (report_total (&r, "copied", "files"), ==, n);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
}

void
test_hard_links_and_empty (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *a = g_build_filename (f->src, "a.txt", NULL);
  g_autofree char *h1 = g_build_filename (f->src, "hard-1", NULL);
  g_autofree char *h2 = g_build_filename (f->src, "sub/hard-2", NULL);
  g_auto(Result) r = { 0 };
  struct stat st;

  make_small_tree (f);
  g_assert_cmpint (link (a, h1), ==, 0);
  g_assert_cmpint (link (a, h2), ==, 0);
  for (guint i = 0; i < 20; i++)
    {
      g_autofree char *p = g_strdup_printf ("%s/empty-%u", f->src, i);
      write_pattern (p, 0, i, 0600 + i % 8);
    }
  watch (f);
  run_copy (f, NULL, &r, f->src, f->out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  /* The three names are one file in the copy too, as with cp -a. */
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
  {
    g_autofree char *c = g_build_filename (f->copy, "hard-1", NULL);
    g_assert_cmpint (lstat (c, &st), ==, 0);
    g_test_message ("hard-linked source copied as %u link(s)", (guint) st.st_nlink);
    g_assert_cmpuint (st.st_nlink, ==, 3);
  }
  g_assert_cmpint (report_total (&r, "copied", "files"), ==, 27);
  g_assert_cmpuint (report_n_errors (&r), ==, 0);

  /* A rerun finds them all in place. */
  run_copy (f, NULL, &r, f->src, f->out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpint (report_total (&r, "copied", "files"), ==, 0);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
}

/* Sparse files keep their holes; a 100 GiB one with 1 MiB of data fits a
 * 64 MiB filesystem. */
void
test_sparse (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *mnt = path_in (f, "mnt");
  g_autofree char *huge = g_build_filename (f->src, "huge", NULL);
  g_autofree char *holes = g_build_filename (f->src, "holes", NULL);
  g_autofree char *copy = NULL;
  g_autofree char *block = g_malloc (1 << 19);
  g_auto(Result) r = { 0 };
  struct stat st;
  int fd;

  if (geteuid () != 0)
    {
      g_test_skip ("needs root to mount a small tmpfs");
      return;
    }
  g_assert_cmpint (g_mkdir (mnt, 0755), ==, 0);
  if (mount ("tmpfs", mnt, "tmpfs", 0, "size=64m") != 0)
    {
      g_test_skip_printf ("cannot mount tmpfs: %s", g_strerror (errno));
      return;
    }
  f->mnt = g_strdup (mnt);

  memset (block, 'S', 1 << 19);
  fd = open (huge, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  g_assert_cmpint (pwrite (fd, block, 1 << 19, 0), ==, 1 << 19);
  g_assert_cmpint (pwrite (fd, block, 1 << 19, (G_GINT64_CONSTANT (100) << 30) - (1 << 19)), ==, 1 << 19);
  close (fd);
  fd = open (holes, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  for (guint i = 0; i < 8; i++)
    g_assert_cmpint (pwrite (fd, block, 4096, (off_t) i << 20), ==, 4096);
  g_assert_cmpint (ftruncate (fd, 9 << 20), ==, 0);
  close (fd);

  copy = g_build_filename (mnt, "src", NULL);
  f->oracle = cs_oracle_new ();
  cs_oracle_add_pair (f->oracle, f->src, copy);
  run_copy (f, NULL, &r, "--threads=4", f->src, mnt, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
  {
    g_autofree char *h = g_build_filename (copy, "huge", NULL);
    g_autofree char *s = g_build_filename (copy, "holes", NULL);

    g_assert_cmpint (stat (h, &st), ==, 0);
    g_test_message ("100 GiB sparse copy allocates %" G_GINT64_FORMAT " bytes", (gint64) st.st_blocks * 512);
    g_assert_cmpint ((gint64) st.st_blocks * 512, <=, 4 << 20);
    g_assert_cmpint (stat (s, &st), ==, 0);
    g_assert_cmpint ((gint64) st.st_blocks * 512, <=, 1 << 20);
  }
}

/* A symlink planted in the destination where the copy wants a folder or a
 * file: never written through. */
void
test_planted_symlinks (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *elsewhere = path_in (f, "elsewhere");
  g_autofree char *target_file = path_in (f, "elsewhere/a.txt");
  g_autofree char *planted_dir = g_build_filename (f->copy, "sub", NULL);
  g_autofree char *planted_file = g_build_filename (f->copy, "a.txt", NULL);
  g_autofree char *planted_root = path_in (f, "out2/src");
  g_autofree char *out2 = path_in (f, "out2");
  g_auto(Result) r = { 0 };

  make_small_tree (f);
  g_assert_cmpint (g_mkdir (elsewhere, 0755), ==, 0);
  write_pattern (target_file, 50, 1, 0644);
  g_assert_cmpint (g_mkdir (f->copy, 0755), ==, 0);
  g_assert_cmpint (symlink (elsewhere, planted_dir), ==, 0);
  g_assert_cmpint (symlink (target_file, planted_file), ==, 0);
  g_assert_cmpint (g_mkdir (out2, 0755), ==, 0);
  g_assert_cmpint (symlink (elsewhere, planted_root), ==, 0);

  for (guint always = 0; always < 2; always++)
    {
      watch (f);
      cs_oracle_add_bystander (f->oracle, elsewhere);
      cs_oracle_never_copied (f->oracle, 0, "sub");
      run_copy (f, NULL, &r, always ? "--overwrite=always" : "--overwrite=newer", f->src, f->out, NULL);
      g_assert_cmpint (r.status, ==, 1);
      g_assert_nonnull (report_error (&r, "/sub"));
      cs_oracle_check (f->oracle, CS_ORACLE_NONE);
      /* A planted file link is replaced as a link (always) or left alone. */
      g_assert_cmpint (cs_oracle_state (f->oracle, 0, "a.txt"), ==, always ? CS_ORACLE_COMPLETE : CS_ORACLE_OLD);
    }

  /* The copy's own top folder is the planted link. */
  g_clear_pointer (&f->oracle, cs_oracle_free);
  f->oracle = cs_oracle_new ();
  cs_oracle_add_pair (f->oracle, f->src, planted_root);
  cs_oracle_never_copied (f->oracle, 0, ".");
  cs_oracle_add_bystander (f->oracle, elsewhere);
  run_copy (f, NULL, &r, f->src, out2, NULL);
  g_assert_cmpint (r.status, !=, 0);
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
}

/* Extended attributes are part of the contract (11): kept, or reported. */
void
test_xattrs (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *file = g_build_filename (f->src, "tagged", NULL);
  g_autofree char *copy = g_build_filename (f->copy, "tagged", NULL);
  g_autofree char *probe = NULL;
  g_auto(Result) r = { 0 };
  char value[64];
  gboolean dest_keeps;
  ssize_t n;

  write_pattern (file, 100, 1, 0644);
  if (lsetxattr (file, "user.copyscope-test", "kept?", 5, 0) != 0)
    {
      g_test_skip_printf ("no user xattrs here: %s", g_strerror (errno));
      return;
    }
  /* Whether the destination's filesystem takes one decides which half of
   * the contract applies: kept, or reported. */
  probe = g_build_filename (f->out, ".xattr-probe", NULL);
  write_pattern (probe, 1, 1, 0644);
  dest_keeps = lsetxattr (probe, "user.copyscope-test", "x", 1, 0) == 0;
  g_assert_no_errno (unlink (probe));

  watch (f);
  run_copy (f, NULL, &r, f->src, f->out, NULL);
  n = lgetxattr (copy, "user.copyscope-test", value, sizeof value);
  if (dest_keeps)
    {
      /* The engine copies them (cs-xattrs.c): the value arrives whole. */
      g_assert_cmpint (r.status, ==, 0);
      g_assert_cmpint (n, ==, 5);
      g_assert_cmpmem (value, n, "kept?", 5);
      cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
    }
  else
    {
      /* Dropped where the destination cannot hold them, but never silently. */
      g_assert_cmpint (n, <, 0);
      g_assert_cmpuint (report_n_errors (&r), >, 0);
    }
}
