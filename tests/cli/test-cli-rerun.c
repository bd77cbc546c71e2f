/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include "test-cli.h"

/* Dry runs and reruns under each overwrite policy. */

/* Dry runs */

static gboolean
has_plan_line (const char *out,
               const char *action,
               const char *destination)
{
  g_auto(GStrv) lines = g_strsplit (out, "\n", -1);
  g_autofree char *suffix = g_strdup_printf (" -> %s", destination);

  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], action) && lines[i][strlen (action)] == ' '
        && g_str_has_suffix (lines[i], suffix))
      return TRUE;
  return FALSE;
}

void
test_dry_run_new (Fixture       *f,
                  gconstpointer  data)
{
  static const char *files[] = {
    "alpha.txt", "with space.txt", "run.sh", "sub/beta.bin", "sub/deeper/empty"
  };
  g_autofree char *src = fixture_path (f, "src");
  g_autofree char *dst = fixture_path (f, "dst");
  g_autoptr(GHashTable) before = NULL;
  g_auto(CliResult) r = { 0 };

  make_sample_tree (src);
  before = cs_test_tree_snapshot (f->tmp);

  run_cli (&r, "copy", "--dry-run", src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *target = g_build_filename (dst, files[i], NULL);

      if (!has_plan_line (r.out, "copy", target))
        g_test_message ("no “copy … -> %s” line", target);
      g_assert_true (has_plan_line (r.out, "copy", target));
    }
  g_assert_true (has_plan_line (r.out, "mkdir", dst));
  cs_test_tree_assert_snapshot (f->tmp, before);
}

void
test_dry_run_existing (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *src = fixture_path (f, "src");
  g_autofree char *alpha = fixture_path (f, "src/alpha.txt");
  g_autofree char *out = fixture_path (f, "out");
  g_autofree char *copy_alpha = fixture_path (f, "out/src/alpha.txt");
  g_autofree char *copy_beta = fixture_path (f, "out/src/sub/beta.bin");
  g_autoptr(GHashTable) before = NULL;
  g_auto(CliResult) r = { 0 };

  make_sample_tree (src);
  make_dir (out, 0755);
  run_cli (&r, "copy", "-q", src, out, NULL);
  g_assert_cmpint (r.status, ==, 0);

  write_file (alpha, "alpha, second version\n", -1, 0644);
  set_mtime (alpha, 1700000000, 0);
  before = cs_test_tree_snapshot (f->tmp);

  run_cli (&r, "copy", "--dry-run", src, out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (has_plan_line (r.out, "replace", copy_alpha));
  g_assert_true (has_plan_line (r.out, "skip", copy_beta));
  cs_test_tree_assert_snapshot (f->tmp, before);
}

/* Reruns over a finished copy */

typedef struct {
  char *src;
  char *out;
  char *copy;
  char *json;
  guint n_items;
} Rerun;

static void
rerun_setup (Fixture *f,
             Rerun   *rr)
{
  g_auto(CliResult) r = { 0 };

  rr->src = fixture_path (f, "src");
  rr->out = fixture_path (f, "out");
  rr->copy = fixture_path (f, "out/src");
  rr->json = fixture_path (f, "run.json");
  make_sample_tree (rr->src);
  make_dir (rr->out, 0755);
  rr->n_items = count_items (rr->src);

  run_cli (&r, "copy", "-q", rr->src, rr->out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cs_test_tree_assert_equal (rr->src, rr->copy);
}

static void
rerun_clear (Rerun *rr)
{
  g_clear_pointer (&rr->src, g_free);
  g_clear_pointer (&rr->out, g_free);
  g_clear_pointer (&rr->copy, g_free);
  g_clear_pointer (&rr->json, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Rerun, rerun_clear)

void
test_rerun_skip_all (Fixture       *f,
                     gconstpointer  data)
{
  g_auto(Rerun) rr = { 0 };
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GHashTable) before = NULL;
  g_auto(CliResult) r = { 0 };

  rerun_setup (f, &rr);
  before = cs_test_tree_snapshot (rr.copy);

  run_cli (&r, "copy", "--json", rr.json, rr.src, rr.out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpuint (summary_value (r.out, "Files", 2), ==, rr.n_items);
  g_assert_cmpuint (summary_value (r.out, "Files", 1), ==, 0);
  root = load_json (rr.json);
  g_assert_cmpint (json_total (root, "skipped", "files"), ==, rr.n_items);
  g_assert_cmpint (json_total (root, "copied", "files"), ==, 0);
  g_assert_cmpint (json_total (root, "copied", "bytes"), ==, 0);
  /* Nothing was rewritten. */
  cs_test_tree_assert_snapshot (rr.copy, before);
}

/* The record of a rerun holds the rate of files checked, a column of its
 * samples like the file rate, whose sum over the run's time is every file
 * checked: all of them, none copied. A fresh copy checks each file it
 * copies. */
static double
column_integral (JsonObject *samples,
                 const char *key,
                 guint      *out_len)
{
  JsonArray *t = json_object_get_array_member (samples, "t");
  JsonArray *column;
  double sum = 0, last_t = 0;

  g_assert_true (json_object_has_member (samples, key));
  column = json_object_get_array_member (samples, key);
  g_assert_cmpuint (json_array_get_length (column), ==, json_array_get_length (t));
  for (guint i = 0; i < json_array_get_length (t); i++)
    {
      double ti = json_array_get_double_element (t, i);

      sum += json_array_get_double_element (column, i) * (ti - last_t);
      last_t = ti;
    }
  *out_len = json_array_get_length (t);
  return sum;
}

void
test_rerun_check_rate (Fixture       *f,
                       gconstpointer  data)
{
  g_auto(Rerun) rr = { 0 };
  g_autoptr(JsonNode) root = NULL;
  g_auto(CliResult) r = { 0 };
  JsonObject *samples;
  guint n = 0;

  rerun_setup (f, &rr);
  run_cli (&r, "copy", "-q", "--no-flush", "--interval", "100", "--json", rr.json,
           rr.src, rr.out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = load_json (rr.json);
  g_assert_cmpint (json_total (root, "skipped", "files"), ==, rr.n_items);
  samples = json_object_get_object_member (json_node_get_object (root), "samples");
  g_assert_cmpfloat_with_epsilon (column_integral (samples, "check_rate", &n), rr.n_items, 0.01 * rr.n_items);
  g_assert_cmpuint (n, >=, 1);
  g_assert_true (json_object_has_member (json_object_get_object_member (json_node_get_object (root), "stats"),
                                         "check_rate"));
}

void
test_rerun_source_newer (Fixture       *f,
                         gconstpointer  data)
{
  g_auto(Rerun) rr = { 0 };
  g_autofree char *alpha = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_auto(CliResult) r = { 0 };

  rerun_setup (f, &rr);
  alpha = g_build_filename (rr.src, "alpha.txt", NULL);
  write_file (alpha, "alpha, second version\n", -1, 0644);
  set_mtime (alpha, 1700000000, 5);

  run_cli (&r, "copy", "--json", rr.json, rr.src, rr.out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = load_json (rr.json);
  g_assert_cmpint (json_total (root, "copied", "files"), ==, 1);
  g_assert_cmpint (json_total (root, "skipped", "files"), ==, rr.n_items - 1);
  cs_test_tree_assert_equal (rr.src, rr.copy);
}

void
test_rerun_destination_newer (Fixture       *f,
                              gconstpointer  data)
{
  g_auto(Rerun) rr = { 0 };
  g_autofree char *copy_alpha = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_auto(CliResult) r = { 0 };

  rerun_setup (f, &rr);
  copy_alpha = g_build_filename (rr.copy, "alpha.txt", NULL);
  write_file (copy_alpha, "edited at the destination\n", -1, 0644);
  set_mtime (copy_alpha, 1900000000, 0);

  run_cli (&r, "copy", "--json", rr.json, rr.src, rr.out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  contents = read_file (copy_alpha);
  g_assert_cmpstr (contents, ==, "edited at the destination\n");
  /* Skipped, and said so. */
  root = load_json (rr.json);
  g_assert_cmpint (json_total (root, "skipped", "files"), ==, rr.n_items);
  g_assert_cmpint (json_total (root, "copied", "files"), ==, 0);
  g_assert_true (json_has_error (root, "alpha.txt", "skip"));
  g_assert_nonnull (strstr (r.err, "alpha.txt"));
}

void
test_rerun_always (Fixture       *f,
                   gconstpointer  data)
{
  g_auto(Rerun) rr = { 0 };
  g_autofree char *copy_alpha = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_auto(CliResult) r = { 0 };
  struct stat before, after;

  rerun_setup (f, &rr);
  copy_alpha = g_build_filename (rr.copy, "alpha.txt", NULL);
  write_file (copy_alpha, "edited at the destination\n", -1, 0644);
  set_mtime (copy_alpha, 1900000000, 0);
  g_assert_cmpint (lstat (copy_alpha, &before), ==, 0);

  run_cli (&r, "copy", "--overwrite=always", "--json", rr.json, rr.src, rr.out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = load_json (rr.json);
  g_assert_cmpint (json_total (root, "copied", "files"), ==, rr.n_items);
  g_assert_cmpint (json_total (root, "copied", "bytes"), ==,
                   (gint64) cs_test_tree_sum_file_sizes (rr.src));
  g_assert_cmpint (json_total (root, "skipped", "files"), ==, 0);
  cs_test_tree_assert_equal (rr.src, rr.copy);
  /* Replaced through a rename, not rewritten in place. */
  g_assert_cmpint (lstat (copy_alpha, &after), ==, 0);
  g_assert_cmpuint (before.st_ino, !=, after.st_ino);
}

void
test_rerun_never (Fixture       *f,
                  gconstpointer  data)
{
  g_auto(Rerun) rr = { 0 };
  g_autofree char *alpha = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GHashTable) before = NULL;
  g_auto(CliResult) r = { 0 };

  rerun_setup (f, &rr);
  before = cs_test_tree_snapshot (rr.copy);
  alpha = g_build_filename (rr.src, "alpha.txt", NULL);
  write_file (alpha, "alpha, second version\n", -1, 0644);
  set_mtime (alpha, 1700000000, 5);

  run_cli (&r, "copy", "--overwrite=never", "--json", rr.json, rr.src, rr.out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = load_json (rr.json);
  g_assert_cmpint (json_total (root, "copied", "files"), ==, 0);
  g_assert_cmpint (json_total (root, "skipped", "files"), ==, rr.n_items);
  cs_test_tree_assert_snapshot (rr.copy, before);
}

/* The CLI run as a user runs it, with its stderr on a terminal (a pty) so
 * it draws its progress line; what it drew, and its exit code. */
static char *
run_cli_on_terminal (const char **args,
                     int         *out_status)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GString) drawn = g_string_new (NULL);
  char buf[4096];
  int master, slave, wait_status = 0;
  ssize_t n;
  pid_t pid;

  g_ptr_array_add (argv, (gpointer) cli);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);

  master = posix_openpt (O_RDWR | O_NOCTTY);
  g_assert_cmpint (master, >=, 0);
  g_assert_cmpint (grantpt (master), ==, 0);
  g_assert_cmpint (unlockpt (master), ==, 0);
  slave = open (ptsname (master), O_RDWR | O_NOCTTY);
  g_assert_cmpint (slave, >=, 0);

  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      int null = open ("/dev/null", O_WRONLY);

      dup2 (null, STDOUT_FILENO);
      dup2 (slave, STDERR_FILENO);
      close (master);
      execv (cli, (char **) argv->pdata);
      _exit (127);
    }
  close (slave);
  /* Until the CLI's end of the terminal closes: EIO then. */
  while ((n = read (master, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0)
      g_string_append_len (drawn, buf, n);
  close (master);
  g_assert_cmpint (waitpid (pid, &wait_status, 0), ==, pid);
  *out_status = status_from_wait (wait_status);
  log_output ("terminal", drawn->str);
  return g_string_free (g_steal_pointer (&drawn), FALSE);
}

/* A rerun's progress line says what the window says while it decides:
 * "Checking N of M files — K to copy so far". The few changed files are
 * written at 2 a second (the limit paces every file's turn), so the line
 * is drawn while most files are decided and skipped. Before, it read
 * "53%  53/100 files  53.0 kB/100.0 kB  0.00 MB/s": a copy that seemed
 * stalled. */
void
test_rerun_checking_line (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *src = fixture_path (f, "src");
  g_autofree char *out = fixture_path (f, "out");
  g_autofree char *drawn = NULL;
  g_auto(CliResult) r = { 0 };
  const guint n_files = 100;
  int status = -1;

  make_dir (src, 0755);
  make_dir (out, 0755);
  for (guint i = 0; i < n_files; i++)
    {
      g_autofree char *name = g_strdup_printf ("f%03u", i);
      g_autofree char *path = g_build_filename (src, name, NULL);

      write_random_file (path, 1000, i + 1);
      set_mtime (path, 1600000000, 0);
    }
  run_cli (&r, "copy", "-q", "--no-history", src, out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  /* Four changed: new bytes, a later time. */
  for (guint i = 0; i < n_files; i += n_files / 4)
    {
      g_autofree char *name = g_strdup_printf ("f%03u", i);
      g_autofree char *path = g_build_filename (src, name, NULL);

      write_random_file (path, 1000, 1000 + i);
      set_mtime (path, 1700000000, 0);
    }

  {
    const char *args[] = { "copy", "--no-history", "--max-files", "2/s", src, out, NULL };

    drawn = run_cli_on_terminal (args, &status);
  }
  g_assert_cmpint (status, ==, 0);
  /* The English words (the tests run untranslated), with the counts the
   * CLI prints: files checked of the hundred, at most the four to copy. */
  g_assert_true (g_regex_match_simple ("Checking [0-9]+ of 100 files — [0-4] to copy so far  ", drawn, 0, 0));
  g_assert_null (strstr (drawn, "Checking 0 of"));
}
