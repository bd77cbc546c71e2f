/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include "test-cli.h"

/* What the CLI loads, and its exit statuses: success, usage errors, each
 * refused request, a file that failed. */

/* Exit codes */

void
test_exit_ok (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *src = fixture_path (f, "src");
  g_autofree char *dst = fixture_path (f, "dst");
  g_auto(CliResult) r = { 0 };

  make_sample_tree (src);
  run_cli (&r, "copy", src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_nonnull (strstr (r.out, "Copied"));
  cs_test_tree_assert_equal (src, dst);
  g_assert_cmpuint (cs_test_tree_find_temporaries (dst), ==, 0);
}

void
test_exit_usage (Fixture       *f,
                 gconstpointer  data)
{
  /* SRC and DST stand for real paths; the last column is what stderr must name. */
  static const struct {
    const char *args[8];
    const char *named;
  } cases[] = {
    { { "copy", "--bogus", "SRC", "DST" }, "--bogus" },
    { { "copy", "SRC" }, "source" },
    { { "copy" }, "source" },
    { { "copy", "SRC", "DST", "--threads" }, "--threads" },
    { { "copy", "--threads", "0", "SRC", "DST" }, "“0”" },
    { { "copy", "--threads", "129", "SRC", "DST" }, "“129”" },
    { { "copy", "--threads", "abc", "SRC", "DST" }, "“abc”" },
    { { "copy", "--threads=-1", "SRC", "DST" }, "“-1”" },
    { { "copy", "--threads", "8x", "SRC", "DST" }, "“8x”" },
    { { "copy", "--overwrite=bogus", "SRC", "DST" }, "bogus" },
    { { "copy", "--overwrite=ask", "SRC", "DST" }, "ask" },
    { { "copy", "--retries", "-1", "SRC", "DST" }, "--retries" },
    { { "copy", "--interval", "50", "SRC", "DST" }, "--interval" },
    { { "copy", "--max-rate", "fast", "SRC", "DST" }, "“fast”" },
    { { "copy", "--max-rate", "-5M", "SRC", "DST" }, "“-5M”" },
    { { "copy", "--max-rate", "5Q", "SRC", "DST" }, "“5Q”" },
    { { "copy", "--max-files", "10/min", "SRC", "DST" }, "“10/min”" },
    { { "copy", "--log", "-", "--json", "-", "SRC", "DST" }, "--log" },
    { { "mirror", "SRC" }, "source" },
    { { "mirror", "SRC", "SRC", "DST" }, "one source" },
    { { "mirror", "--max-delete", "many", "SRC", "DST" }, "“many”" },
    { { "move", "--overwrite=ask", "SRC", "DST" }, "ask" },
    { { "frobnicate", "SRC", "DST" }, "frobnicate" },
  };
  g_autofree char *src = fixture_path (f, "src");
  g_autofree char *dst = fixture_path (f, "dst");
  g_autoptr(GHashTable) before = NULL;

  make_sample_tree (src);
  before = cs_test_tree_snapshot (f->tmp);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(CliResult) r = { 0 };
      const char *argv[10] = { cli };

      for (guint k = 0; k < G_N_ELEMENTS (cases[i].args) && cases[i].args[k] != NULL; k++)
        {
          const char *arg = cases[i].args[k];

          argv[k + 1] = g_str_equal (arg, "SRC") ? src : g_str_equal (arg, "DST") ? dst : arg;
        }
      run_argv (&r, argv);
      g_assert_cmpint (r.status, ==, 2);
      g_assert_cmpstr (r.out, ==, "");
      g_assert_nonnull (strstr (r.err, cases[i].named));
      cs_test_tree_assert_snapshot (f->tmp, before);
    }
}

void
test_exit_refused (Fixture       *f,
                   gconstpointer  data)
{
  FatalCase which = GPOINTER_TO_INT (data);
  g_autofree char *src = fixture_path (f, "src");
  g_autofree char *file = fixture_path (f, "src/alpha.txt");
  g_autofree char *hard = fixture_path (f, "hard link");
  g_autofree char *soft = fixture_path (f, "soft link");
  g_autofree char *soft_dir = fixture_path (f, "folder link");
  g_autofree char *missing = fixture_path (f, "no such source");
  g_autofree char *inside_new = fixture_path (f, "src/new sub");
  g_autofree char *inside_old = fixture_path (f, "src/sub/deeper");
  g_autofree char *dst = fixture_path (f, "dst");
  g_autoptr(GHashTable) before = NULL;
  g_auto(CliResult) r = { 0 };
  const char *named = NULL;
  const char *reasons = NULL;
  g_auto(GStrv) alternatives = NULL;
  gboolean found = FALSE;

  make_sample_tree (src);
  g_assert_cmpint (link (file, hard), ==, 0);
  make_symlink (file, soft);
  make_symlink (src, soft_dir);
  before = cs_test_tree_snapshot (f->tmp);

  switch (which)
    {
    case FATAL_MISSING_SOURCE:
      run_cli (&r, "copy", missing, dst, NULL);
      named = missing;
      reasons = "No such file";
      break;
    case FATAL_SAME_PATH:
      run_cli (&r, "copy", file, file, NULL);
      named = file;
      reasons = "same file";
      break;
    case FATAL_SAME_FOLDER:
      run_cli (&r, "copy", src, src, NULL);
      named = src;
      reasons = "same|inside";
      break;
    case FATAL_HARD_LINK:
      run_cli (&r, "copy", file, hard, NULL);
      named = file;
      reasons = "same file";
      break;
    case FATAL_SYMLINK:
      run_cli (&r, "copy", file, soft, NULL);
      named = file;
      reasons = "same file";
      break;
    case FATAL_SYMLINK_FOLDER:
      run_cli (&r, "copy", src, soft_dir, NULL);
      named = src;
      reasons = "same|inside";
      break;
    case FATAL_INSIDE_NEW:
      run_cli (&r, "copy", src, inside_new, NULL);
      named = src;
      reasons = "inside";
      break;
    case FATAL_INSIDE_EXISTING:
      run_cli (&r, "copy", src, inside_old, NULL);
      named = src;
      reasons = "inside";
      break;
    case FATAL_DUPLICATE_SOURCE:
      run_cli (&r, "copy", src, file, src, dst, NULL);
      named = src;
      reasons = "more than once";
      break;
    default:
      g_assert_not_reached ();
    }

  /* A source refused on its own is a failed item, as with cp: exit 1 (3 is
   * for a job that cannot start at all), the other sources copied. */
  g_assert_cmpint (r.status, ==, 1);
  /* Exactly one line, naming the path and the reason. */
  g_assert_cmpuint (count_lines (r.err), ==, 1);
  g_assert_true (g_str_has_suffix (r.err, "\n"));
  g_assert_nonnull (strstr (r.err, named));
  alternatives = g_strsplit (reasons, "|", -1);
  for (guint i = 0; alternatives[i] != NULL; i++)
    found |= strstr (r.err, alternatives[i]) != NULL;
  if (!found)
    g_test_message ("stderr gives none of the reasons “%s”", reasons);
  g_assert_true (found);
  if (which == FATAL_DUPLICATE_SOURCE)
    {
      g_autofree char *copy = fixture_path (f, "dst/src");

      /* The first time it is named, it is copied. */
      cs_test_tree_assert_equal (src, copy);
      return;
    }
  /* Nothing was written anywhere. */
  cs_test_tree_assert_snapshot (f->tmp, before);
}

/* Skips the test, visibly, unless it can run a command as nobody; fills the ids. */
static gboolean
can_drop_privileges (uid_t *uid,
                     gid_t *gid)
{
  g_autofree char *setpriv = g_find_program_in_path ("setpriv");
  struct passwd *pw;
  struct group *gr;

  if (geteuid () != 0)
    {
      g_test_skip ("needs root to drop privileges to nobody with setpriv");
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

void
test_exit_item_failed (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *src = fixture_path (f, "src");
  g_autofree char *ok = fixture_path (f, "src/ok.txt");
  g_autofree char *ok2 = fixture_path (f, "src/sub/ok2.txt");
  g_autofree char *sub = fixture_path (f, "src/sub");
  g_autofree char *secret = fixture_path (f, "src/secret.txt");
  g_autofree char *locked = fixture_path (f, "src/locked");
  g_autofree char *locked_file = fixture_path (f, "src/locked/inside.txt");
  g_autofree char *out = fixture_path (f, "out");
  g_autofree char *copy = fixture_path (f, "out/copy");
  g_autofree char *copy_ok = fixture_path (f, "out/copy/ok.txt");
  g_autofree char *copy_ok2 = fixture_path (f, "out/copy/sub/ok2.txt");
  g_autofree char *copy_secret = fixture_path (f, "out/copy/secret.txt");
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(CliResult) r = { 0 };
  uid_t uid;
  gid_t gid;
  const char *argv[] = {
    "setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
    cli, "copy", "--json", "-", src, copy, NULL
  };

  if (!can_drop_privileges (&uid, &gid))
    return;

  /* What nobody may read belongs to nobody, so the copy's owners match. */
  write_file (ok, "readable\n", -1, 0644);
  write_file (ok2, "readable too\n", -1, 0644);
  g_assert_cmpint (chown (ok, uid, gid), ==, 0);
  g_assert_cmpint (chown (ok2, uid, gid), ==, 0);
  g_assert_cmpint (chown (sub, uid, gid), ==, 0);
  write_file (secret, "root only\n", -1, 0600);
  write_file (locked_file, "behind a locked folder\n", -1, 0644);
  g_assert_cmpint (g_chmod (locked, 0700), ==, 0);
  make_dir (out, 0755);
  g_assert_cmpint (chown (out, uid, gid), ==, 0);

  run_argv (&r, argv);
  g_assert_cmpint (r.status, ==, 1);

  /* The rest of the tree was copied. */
  cs_test_tree_assert_equal (ok, copy_ok);
  cs_test_tree_assert_partial (src, copy, FALSE);
  cs_test_tree_assert_equal (ok2, copy_ok2);
  g_assert_false (g_file_test (copy_secret, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (cs_test_tree_find_temporaries (out), ==, 0);

  /* Every failure is listed, on stderr and in the record. */
  g_assert_nonnull (strstr (r.err, "secret.txt"));
  g_assert_nonnull (strstr (r.err, "locked"));
  root = json_from_string (r.out, &error);
  g_assert_no_error (error);
  g_assert_true (json_has_error (root, "secret.txt", NULL));
  g_assert_true (json_has_error (root, "locked", NULL));
  g_assert_cmpint (json_total (root, "failed", "files"), ==, 1);
  g_assert_cmpint (json_total (root, "failed", "dirs"), ==, 1);
  g_assert_cmpint (json_total (root, "copied", "files"), ==, 2);
}

/* What the CLI loads before it does anything: GLib, and never GTK or
 * libadwaita, so it runs on a server without a display stack. The dynamic
 * loader lists the libraries instead of running the program, as ldd does. */
void
test_startup_libraries (Fixture       *f,
                        gconstpointer  data)
{
  static const char *unwanted[] = { "libgtk", "libadwaita", "libgdk" };
  const char *argv[] = { cli, "--version", NULL };
  g_auto(GStrv) envp = g_environ_setenv (g_get_environ (), "LD_TRACE_LOADED_OBJECTS", "1", TRUE);
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  int wait_status = 0;

  g_spawn_sync (NULL, (char **) argv, envp, 0, NULL, NULL, &out, NULL, &wait_status, &error);
  g_assert_no_error (error);
  g_test_message ("%s", out);
  g_assert_cmpint (status_from_wait (wait_status), ==, 0);
  g_assert_nonnull (strstr (out, "libglib-2.0"));
  for (guint i = 0; i < G_N_ELEMENTS (unwanted); i++)
    if (strstr (out, unwanted[i]) != NULL)
      g_error ("copyscope-cli loads %s at start-up:\n%s", unwanted[i], out);
}
