/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include "test-cli.h"

/*
 * copyscope-cli as users run it, one file per area, test-cli-*.c; this one
 * holds running the CLI, the fixture, the trees, the readers of its record,
 * and main () with the list of all their tests.
 */

/* The copyscope-cli under test, from $CS_CLI. */
const char *cli;

/* A generated tree shared by the slower tests, which only read it. */
char *shared_root;
char *shared_small;

void
cli_result_clear (CliResult *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}

int
status_from_wait (int wait_status)
{
  if (WIFEXITED (wait_status))
    return WEXITSTATUS (wait_status);
  if (WIFSIGNALED (wait_status))
    return 128 + WTERMSIG (wait_status);
  return -1;
}

void
log_output (const char *name,
            const char *text)
{
  gsize len = text != NULL ? strlen (text) : 0;

  if (len == 0)
    return;
  if (len > 3000)
    g_test_message ("%s (first 3000 of %" G_GSIZE_FORMAT " bytes):\n%.3000s", name, len, text);
  else
    g_test_message ("%s:\n%s", name, text);
}

/* Runs @argv (NULL-terminated) to its end in @cwd with @envp (NULL: this
 * process's), capturing both outputs. */
void
run_argv_at (CliResult   *r,
             const char  *cwd,
             char       **envp,
             const char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *command = g_strjoinv (" ", (char **) argv);
  gint64 start = g_get_monotonic_time ();
  int wait_status = 0;

  cli_result_clear (r);
  g_spawn_sync (cwd, (char **) argv, envp, G_SPAWN_SEARCH_PATH, NULL, NULL,
                &r->out, &r->err, &wait_status, &error);
  g_assert_no_error (error);
  r->seconds = (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
  r->status = status_from_wait (wait_status);

  g_test_message ("%s: exit %d after %.2f s", command, r->status, r->seconds);
  log_output ("stdout", r->out);
  log_output ("stderr", r->err);
}

void
run_argv (CliResult   *r,
          const char **argv)
{
  run_argv_at (r, NULL, NULL, argv);
}

void
run_cli (CliResult  *r,
         const char *first,
         ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  va_list args;

  g_ptr_array_add (argv, (gpointer) cli);
  va_start (args, first);
  for (const char *arg = first; arg != NULL; arg = va_arg (args, const char *))
    g_ptr_array_add (argv, (gpointer) arg);
  va_end (args);
  g_ptr_array_add (argv, NULL);

  run_argv (r, (const char **) argv->pdata);
}

void
run_cli_at (CliResult  *r,
            const char *cwd,
            const char *home,
            const char *first,
            ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *data = g_build_filename (home, "data", NULL);
  g_autofree char *cache = g_build_filename (home, "cache", NULL);
  g_auto(GStrv) envp = g_get_environ ();
  va_list args;

  envp = g_environ_setenv (envp, "XDG_DATA_HOME", data, TRUE);
  envp = g_environ_setenv (envp, "XDG_CACHE_HOME", cache, TRUE);
  g_ptr_array_add (argv, (gpointer) cli);
  va_start (args, first);
  for (const char *arg = first; arg != NULL; arg = va_arg (args, const char *))
    g_ptr_array_add (argv, (gpointer) arg);
  va_end (args);
  g_ptr_array_add (argv, NULL);

  run_argv_at (r, cwd, envp, (const char **) argv->pdata);
}

/* The run records in @home's history (see run_cli_at ()). */
GPtrArray *
history_records (const char *home)
{
  g_autofree char *runs = g_build_filename (home, "data", "copyscope", "runs", NULL);
  g_autoptr(GDir) dir = g_dir_open (runs, 0, NULL);
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_suffix (name, ".json") && !g_str_has_prefix (name, "sweep-"))
      g_ptr_array_add (paths, g_build_filename (runs, name, NULL));
  return paths;
}

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
  if (f->mount != NULL)
    {
      if (umount (f->mount) != 0 && umount2 (f->mount, MNT_DETACH) != 0)
        g_printerr ("cannot unmount %s: %s\n", f->mount, g_strerror (errno));
      g_clear_pointer (&f->mount, g_free);
    }
  cs_test_tree_remove (f->tmp);
  g_clear_pointer (&f->tmp, g_free);
}

char *
fixture_path (Fixture    *f,
              const char *rel)
{
  return g_build_filename (f->tmp, rel, NULL);
}

void
make_dir (const char *path,
          guint       mode)
{
  g_assert_cmpint (g_mkdir_with_parents (path, 0755), ==, 0);
  g_assert_cmpint (g_chmod (path, mode), ==, 0);
}

void
write_file (const char *path,
            const char *contents,
            gssize      len,
            guint       mode)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *parent = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  g_file_set_contents_full (path, contents, len, G_FILE_SET_CONTENTS_NONE, 0644, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_chmod (path, mode), ==, 0);
}

void
write_random_file (const char *path,
                   gsize       size,
                   guint32     seed)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  g_autofree guint32 *data = g_new (guint32, size / 4 + 1);

  for (gsize i = 0; i < size / 4 + 1; i++)
    data[i] = g_rand_int (rand);
  write_file (path, (const char *) data, (gssize) size, 0644);
}

char *
read_file (const char *path)
{
  g_autoptr(GError) error = NULL;
  char *contents = NULL;

  g_file_get_contents (path, &contents, NULL, &error);
  g_assert_no_error (error);
  return contents;
}

void
set_mtime (const char *path,
           gint64      seconds,
           long        nanoseconds)
{
  struct timespec times[2] = {
    { 0, UTIME_OMIT },
    { (time_t) seconds, nanoseconds },
  };

  g_assert_cmpint (utimensat (AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW), ==, 0);
}

void
make_symlink (const char *target,
              const char *path)
{
  g_assert_cmpint (symlink (target, path), ==, 0);
}

/*
 * A small tree with what a copy must get right: nanosecond mtimes, modes,
 * an empty file and folder, names with a space, a newline and invalid UTF-8,
 * a relative symlink and a dangling one.
 */
void
make_sample_tree (const char *root)
{
  g_autofree char *alpha = g_build_filename (root, "alpha.txt", NULL);
  g_autofree char *space = g_build_filename (root, "with space.txt", NULL);
  g_autofree char *exec = g_build_filename (root, "run.sh", NULL);
  g_autofree char *sub = g_build_filename (root, "sub", NULL);
  g_autofree char *beta = g_build_filename (root, "sub", "beta.bin", NULL);
  g_autofree char *deeper = g_build_filename (root, "sub", "deeper", NULL);
  g_autofree char *empty = g_build_filename (root, "sub", "deeper", "empty", NULL);
  g_autofree char *empty_dir = g_build_filename (root, "empty dir", NULL);
  g_autofree char *newline = g_build_filename (root, "new\nline", NULL);
  g_autofree char *bad = g_build_filename (root, "bad\xff" "name", NULL);
  g_autofree char *link = g_build_filename (root, "link", NULL);
  g_autofree char *dangling = g_build_filename (root, "dangling", NULL);

  make_dir (root, 0755);
  write_file (alpha, "alpha\n", -1, 0644);
  write_file (space, "space\n", -1, 0640);
  write_file (exec, "#!/bin/sh\nexit 0\n", -1, 0755);
  write_random_file (beta, 300000, 1);
  write_file (empty, "", 0, 0600);
  write_file (newline, "newline\n", -1, 0644);
  write_file (bad, "invalid UTF-8\n", -1, 0644);
  make_dir (empty_dir, 0750);
  make_symlink ("alpha.txt", link);
  make_symlink ("does/not/exist", dangling);

  set_mtime (alpha, 1600000000, 123456789);
  set_mtime (space, 1500000000, 1);
  set_mtime (beta, 1650000000, 999999999);
  set_mtime (empty, 1000000000, 500000000);
  set_mtime (link, 1400000000, 42);
  set_mtime (deeper, 1610000000, 7);
  set_mtime (sub, 1620000000, 8);
  set_mtime (empty_dir, 1630000000, 9);
}

/* Regular files and symlinks: what the record counts as files. */
guint
count_items (const char *dir)
{
  return cs_test_tree_count_files (dir) + cs_test_tree_count_symlinks (dir);
}

const char *
get_shared_small (void)
{
  g_auto(CliResult) r = { 0 };
  g_autofree char *link = NULL;
  g_autofree char *empty = NULL;

  if (shared_small != NULL)
    return shared_small;

  shared_root = cs_test_tree_make_tmp ();
  shared_small = g_build_filename (shared_root, "small", NULL);
  run_cli (&r, "generate", "small", shared_small, "--scale", "0.1", NULL);
  g_assert_cmpint (r.status, ==, 0);

  link = g_build_filename (shared_small, "a link", NULL);
  make_symlink ("does/not/exist", link);
  empty = g_build_filename (shared_small, "empty folder", NULL);
  make_dir (empty, 0700);

  return shared_small;
}

/* JSON records */

JsonNode *
load_json (const char *path)
{
  g_autofree char *text = read_file (path);
  g_autoptr(GError) error = NULL;
  JsonNode *root = json_from_string (text, &error);

  g_assert_no_error (error);
  g_assert_nonnull (root);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  return root;
}

gint64
json_total (JsonNode   *root,
            const char *klass,
            const char *kind)
{
  JsonObject *totals = json_object_get_object_member (json_node_get_object (root), "totals");

  g_assert_nonnull (totals);
  g_assert_true (json_object_has_member (totals, klass));
  return json_object_get_int_member (json_object_get_object_member (totals, klass), kind);
}

const char *
json_string (JsonNode   *root,
             const char *member)
{
  return json_object_get_string_member (json_node_get_object (root), member);
}

/* Whether the record lists an error for a path ending in @suffix. */
gboolean
json_has_error (JsonNode   *root,
                const char *suffix,
                const char *operation)
{
  JsonArray *errors = json_object_get_array_member (json_node_get_object (root), "errors");

  for (guint i = 0; i < json_array_get_length (errors); i++)
    {
      JsonObject *e = json_array_get_object_element (errors, i);

      if (g_str_has_suffix (json_object_get_string_member (e, "path"), suffix)
          && (operation == NULL
              || g_strcmp0 (json_object_get_string_member (e, "operation"), operation) == 0))
        return TRUE;
    }
  return FALSE;
}

guint
json_n_errors (JsonNode *root)
{
  JsonObject *object = json_node_get_object (root);

  return json_array_get_length (json_object_get_array_member (object, "errors"));
}

/* A number from the summary table: @row is "Dirs", "Files" or "Bytes", @column
 * 0 for Total, 1 Copied, 2 Skipped, 3 Mismatch, 4 Failed, 5 Extras. */
guint64
summary_value (const char *text,
               const char *row,
               guint       column)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  g_autofree char *prefix = g_strdup_printf ("%s :", row);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = NULL;
      guint n = 0;

      if (!g_str_has_prefix (g_strchug (lines[i]), prefix))
        continue;
      fields = g_strsplit_set (lines[i] + strlen (prefix), " ", -1);
      for (guint k = 0; fields[k] != NULL; k++)
        {
          if (fields[k][0] == '\0')
            continue;
          if (n++ == column)
            return g_ascii_strtoull (fields[k], NULL, 10);
        }
    }
  g_assert_not_reached ();
  return 0;
}

guint
count_lines (const char *text)
{
  guint n = 0;

  for (const char *p = text; *p != '\0'; p++)
    if (*p == '\n')
      n++;
  return n;
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
  static const struct {
    const char *name;
    FatalCase   which;
  } fatal_cases[] = {
    { "missing-source", FATAL_MISSING_SOURCE },
    { "same-path", FATAL_SAME_PATH },
    { "same-folder", FATAL_SAME_FOLDER },
    { "hard-link", FATAL_HARD_LINK },
    { "symlink", FATAL_SYMLINK },
    { "symlink-to-folder", FATAL_SYMLINK_FOLDER },
    { "inside-source-new", FATAL_INSIDE_NEW },
    { "inside-source-existing", FATAL_INSIDE_EXISTING },
    { "duplicate-source", FATAL_DUPLICATE_SOURCE },
  };
  int status;

  g_test_init (&argc, &argv, NULL);

  cli = g_getenv ("CS_CLI");
  if (cli == NULL || !g_file_test (cli, G_FILE_TEST_IS_EXECUTABLE))
    {
      g_printerr ("Set CS_CLI to the copyscope-cli to test (meson test does).\n");
      return 1;
    }

  add ("/cli/startup/libraries", NULL, test_startup_libraries);
  add ("/cli/exit/ok", NULL, test_exit_ok);
  add ("/cli/exit/usage", NULL, test_exit_usage);
  for (guint i = 0; i < G_N_ELEMENTS (fatal_cases); i++)
    {
      g_autofree char *path = g_strconcat ("/cli/exit/refused/", fatal_cases[i].name, NULL);

      add (path, GINT_TO_POINTER (fatal_cases[i].which), test_exit_refused);
    }
  add ("/cli/exit/item-failed", NULL, test_exit_item_failed);
  add ("/cli/json/file", NULL, test_json_file);
  add ("/cli/json/stdout", NULL, test_json_stdout);
  add ("/cli/csv", NULL, test_csv);
  add ("/cli/report/charts", NULL, test_report_charts);
  add ("/cli/report/trace", NULL, test_report_trace);
  add ("/cli/semantics/into-existing", NULL, test_semantics_into_existing);
  add ("/cli/semantics/new-path", NULL, test_semantics_new_path);
  add ("/cli/semantics/several-sources", NULL, test_semantics_several_sources);
  add ("/cli/semantics/new-folder", NULL, test_semantics_new_folder);
  add ("/cli/record/absolute-paths", NULL, test_record_absolute_paths);
  add ("/cli/system-tree/linux-headers", "/usr/include/linux", test_system_tree);
  add ("/cli/slow/system-tree-all-headers", "/usr/include", test_system_tree);
  add ("/cli/kill/few", GUINT_TO_POINTER (3), test_kill);
  add ("/cli/kill/few-staged", GUINT_TO_POINTER (3 | KILL_STAGED), test_kill);
  add ("/cli/slow/kill-many", GUINT_TO_POINTER (20), test_kill);
  add ("/cli/slow/kill-many-staged", GUINT_TO_POINTER (10 | KILL_STAGED), test_kill);
  add ("/cli/signal/int", GINT_TO_POINTER (SIGINT), test_signal);
  add ("/cli/signal/term", GINT_TO_POINTER (SIGTERM), test_signal);
  add ("/cli/full/new-files", NULL, test_full_new_files);
  add ("/cli/full/replace", NULL, test_full_replace);
  add ("/cli/dry-run/new", NULL, test_dry_run_new);
  add ("/cli/dry-run/existing", NULL, test_dry_run_existing);
  add ("/cli/rerun/skip-all", NULL, test_rerun_skip_all);
  add ("/cli/rerun/check-rate", NULL, test_rerun_check_rate);
  add ("/cli/rerun/source-newer", NULL, test_rerun_source_newer);
  add ("/cli/rerun/destination-newer", NULL, test_rerun_destination_newer);
  add ("/cli/rerun/overwrite-always", NULL, test_rerun_always);
  add ("/cli/rerun/overwrite-never", NULL, test_rerun_never);
  add ("/cli/rerun/checking-line", NULL, test_rerun_checking_line);
  add ("/cli/log-and-limits", NULL, test_log_and_limits);
  add ("/cli/move", NULL, test_move);
  add ("/cli/mirror", NULL, test_mirror);
  add ("/cli/demo/clean", NULL, test_demo_clean);

  status = g_test_run ();

  if (shared_root != NULL)
    cs_test_tree_remove (shared_root);
  g_free (shared_root);
  g_free (shared_small);
  return status;
}
