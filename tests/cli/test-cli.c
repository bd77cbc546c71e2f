/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "cs-run.h"

#include "cs-test-tree.h"

/* The copyscope-cli under test, from $CS_CLI. */
static const char *cli;

/* A generated tree shared by the slower tests, which only read it. */
static char *shared_root;
static char *shared_small;

/* Running the CLI */

typedef struct {
  int     status;     /* exit code, or 128 + the signal that ended it */
  char   *out;
  char   *err;
  double  seconds;
} CliResult;

static void
cli_result_clear (CliResult *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (CliResult, cli_result_clear)

static int
status_from_wait (int wait_status)
{
  if (WIFEXITED (wait_status))
    return WEXITSTATUS (wait_status);
  if (WIFSIGNALED (wait_status))
    return 128 + WTERMSIG (wait_status);
  return -1;
}

static void
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
static void
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

static void
run_argv (CliResult   *r,
          const char **argv)
{
  run_argv_at (r, NULL, NULL, argv);
}

static void
run_cli (CliResult  *r,
         const char *first,
         ...) G_GNUC_NULL_TERMINATED;

static void
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

/* The CLI as a user runs it: from @cwd, with its own user folders under
 * @home (XDG_DATA_HOME = @home/data, XDG_CACHE_HOME = @home/cache). */
static void
run_cli_at (CliResult  *r,
            const char *cwd,
            const char *home,
            const char *first,
            ...) G_GNUC_NULL_TERMINATED;

static void
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
static GPtrArray *
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
new_session (gpointer user_data)
{
  setsid ();
}

/* Starts the CLI in a session and process group of its own, so a signal to
 * the group reaches everything it started. */
static GSubprocess *
launch_cli (const char *out_path,
            const char *err_path,
            GPid       *out_pid,
            const char *first,
            ...) G_GNUC_NULL_TERMINATED;

static GSubprocess *
launch_cli (const char *out_path,
            const char *err_path,
            GPid       *out_pid,
            const char *first,
            ...)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  GSubprocess *process;
  va_list args;

  g_ptr_array_add (argv, (gpointer) cli);
  va_start (args, first);
  for (const char *arg = first; arg != NULL; arg = va_arg (args, const char *))
    g_ptr_array_add (argv, (gpointer) arg);
  va_end (args);
  g_ptr_array_add (argv, NULL);

  g_subprocess_launcher_set_stdout_file_path (launcher, out_path);
  g_subprocess_launcher_set_stderr_file_path (launcher, err_path);
  g_subprocess_launcher_set_child_setup (launcher, new_session, NULL, NULL);
  process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  g_assert_no_error (error);
  *out_pid = (GPid) g_ascii_strtoll (g_subprocess_get_identifier (process), NULL, 10);
  g_assert_cmpint (*out_pid, >, 0);

  return process;
}

static void
on_waited (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  gboolean *done = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (object), result, NULL);
  *done = TRUE;
}

static gboolean
on_wait_timeout (gpointer user_data)
{
  gboolean *timed_out = user_data;

  *timed_out = TRUE;
  return G_SOURCE_REMOVE;
}

/* Waits for @process to end; after @timeout_ms its group is killed and FALSE
 * returned. Either way the process has been reaped on return. */
static gboolean
wait_for (GSubprocess *process,
          GPid         pid,
          guint        timeout_ms)
{
  gboolean done = FALSE, timed_out = FALSE;
  guint timeout_id;

  g_subprocess_wait_async (process, NULL, on_waited, &done);
  timeout_id = g_timeout_add (timeout_ms, on_wait_timeout, &timed_out);
  while (!done && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (!timed_out)
    {
      g_source_remove (timeout_id);
      return TRUE;
    }
  kill (-pid, SIGKILL);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
  return FALSE;
}

static int
process_status (GSubprocess *process)
{
  if (g_subprocess_get_if_exited (process))
    return g_subprocess_get_exit_status (process);
  if (g_subprocess_get_if_signaled (process))
    return 128 + g_subprocess_get_term_sig (process);
  return -1;
}

/* Files and trees */

typedef struct {
  char *tmp;
  char *mount;        /* mounted by the test, unmounted in teardown */
} Fixture;

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

static char *
fixture_path (Fixture    *f,
              const char *rel)
{
  return g_build_filename (f->tmp, rel, NULL);
}

static void
make_dir (const char *path,
          guint       mode)
{
  g_assert_cmpint (g_mkdir_with_parents (path, 0755), ==, 0);
  g_assert_cmpint (g_chmod (path, mode), ==, 0);
}

static void
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

static void
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

static char *
read_file (const char *path)
{
  g_autoptr(GError) error = NULL;
  char *contents = NULL;

  g_file_get_contents (path, &contents, NULL, &error);
  g_assert_no_error (error);
  return contents;
}

static void
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

static void
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
static void
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
static guint
count_items (const char *dir)
{
  return cs_test_tree_count_files (dir) + cs_test_tree_count_symlinks (dir);
}

static const char *
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

static JsonNode *
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

static gint64
json_total (JsonNode   *root,
            const char *klass,
            const char *kind)
{
  JsonObject *totals = json_object_get_object_member (json_node_get_object (root), "totals");

  g_assert_nonnull (totals);
  g_assert_true (json_object_has_member (totals, klass));
  return json_object_get_int_member (json_object_get_object_member (totals, klass), kind);
}

static const char *
json_string (JsonNode   *root,
             const char *member)
{
  return json_object_get_string_member (json_node_get_object (root), member);
}

/* Whether the record lists an error for a path ending in @suffix. */
static gboolean
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

static guint
json_n_errors (JsonNode *root)
{
  JsonObject *object = json_node_get_object (root);

  return json_array_get_length (json_object_get_array_member (object, "errors"));
}

/* A number from the summary table: @row is "Dirs", "Files" or "Bytes", @column
 * 0 for Total, 1 Copied, 2 Skipped, 3 Mismatch, 4 Failed, 5 Extras. */
static guint64
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

static guint
count_lines (const char *text)
{
  guint n = 0;

  for (const char *p = text; *p != '\0'; p++)
    if (*p == '\n')
      n++;
  return n;
}

/* Exit codes */

static void
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

static void
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

typedef enum {
  FATAL_MISSING_SOURCE,
  FATAL_SAME_PATH,
  FATAL_SAME_FOLDER,
  FATAL_HARD_LINK,
  FATAL_SYMLINK,
  FATAL_SYMLINK_FOLDER,
  FATAL_INSIDE_NEW,
  FATAL_INSIDE_EXISTING,
  FATAL_DUPLICATE_SOURCE,
} FatalCase;

static void
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

static void
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

/* Reports */

static void
test_json_file (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *src = fixture_path (f, "src");
  g_autofree char *dst = fixture_path (f, "dst");
  g_autofree char *json = fixture_path (f, "run.json");
  g_autoptr(JsonNode) root = NULL;
  g_auto(CliResult) r = { 0 };
  JsonObject *object;
  JsonObject *settings;
  JsonArray *sources;
  gint64 bytes;

  make_sample_tree (src);
  bytes = (gint64) cs_test_tree_sum_file_sizes (src);
  run_cli (&r, "copy", "--threads", "3", "--json", json, src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);

  root = load_json (json);
  object = json_node_get_object (root);
  g_assert_cmpint (json_object_get_int_member (object, "schema_version"), ==,
                   CS_RUN_SCHEMA_VERSION);
  g_assert_cmpstr (json_string (root, "outcome"), ==, "completed");
  g_assert_cmpstr (json_string (root, "destination"), ==, dst);
  sources = json_object_get_array_member (object, "sources");
  g_assert_cmpuint (json_array_get_length (sources), ==, 1);
  g_assert_cmpstr (json_array_get_string_element (sources, 0), ==, src);
  settings = json_object_get_object_member (object, "settings");
  g_assert_cmpint (json_object_get_int_member (settings, "threads"), ==, 3);

  g_assert_cmpint (json_total (root, "copied", "bytes"), ==, bytes);
  g_assert_cmpint (json_total (root, "total", "bytes"), ==, bytes);
  g_assert_cmpint (json_total (root, "copied", "files"), ==, count_items (src));
  g_assert_cmpint (json_total (root, "failed", "files"), ==, 0);
  g_assert_cmpuint (json_n_errors (root), ==, 0);

  /* The summary table says the same. */
  g_assert_cmpuint (summary_value (r.out, "Files", 1), ==, count_items (src));
  cs_test_tree_assert_equal (src, dst);
}

static void
test_json_stdout (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *src = fixture_path (f, "src");
  g_autofree char *dst = fixture_path (f, "dst");
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_auto(CliResult) r = { 0 };
  JsonNode *root;

  make_sample_tree (src);
  run_cli (&r, "copy", "--json", "-", src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);

  /* Only JSON on stdout: the whole of it parses as one object. */
  g_assert_true (r.out[0] == '{');
  json_parser_load_from_data (parser, r.out, -1, &error);
  g_assert_no_error (error);
  root = json_parser_get_root (parser);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (root), "schema_version"), ==,
                   CS_RUN_SCHEMA_VERSION);
  g_assert_cmpint (json_total (root, "copied", "bytes"), ==,
                   (gint64) cs_test_tree_sum_file_sizes (src));
  /* The summary moved to stderr. */
  g_assert_nonnull (strstr (r.err, "Copied"));
  cs_test_tree_assert_equal (src, dst);
}

static void
test_csv (Fixture       *f,
          gconstpointer  data)
{
  const char *src = get_shared_small ();
  g_autofree char *dst = fixture_path (f, "dst");
  g_autofree char *json = fixture_path (f, "run.json");
  g_autofree char *csv = fixture_path (f, "run.csv");
  g_autofree char *text = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_auto(GStrv) lines = NULL;
  g_auto(GStrv) header = NULL;
  g_auto(CliResult) r = { 0 };
  JsonObject *samples;
  JsonArray *times;
  guint n_rows = 0;
  double last_t = -1;

  run_cli (&r, "copy", "-q", "--no-flush", "--interval", "100", "--json", json, "--csv", csv,
           src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);

  root = load_json (json);
  samples = json_object_get_object_member (json_node_get_object (root), "samples");
  times = json_object_get_array_member (samples, "t");
  g_assert_cmpuint (json_array_get_length (times), >=, 1);

  text = read_file (csv);
  g_assert_true (g_str_has_prefix (text, "t,"));
  lines = g_strsplit (text, "\n", -1);
  header = g_strsplit (g_strchomp (lines[0]), ",", -1);
  g_assert_cmpstr (header[0], ==, "t");
  g_assert_true (g_strv_contains ((const char * const *) header, "threads"));
  for (guint i = 1; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = NULL;
      char *end = NULL;
      double t;

      g_strchomp (lines[i]);
      if (lines[i][0] == '\0')
        continue;
      fields = g_strsplit (lines[i], ",", -1);
      g_assert_cmpuint (g_strv_length (fields), ==, g_strv_length (header));
      t = g_ascii_strtod (fields[0], &end);
      g_assert_true (end != fields[0] && *end == '\0');
      g_assert_cmpfloat (t, >=, last_t);
      last_t = t;
      n_rows++;
    }
  g_assert_cmpuint (n_rows, ==, json_array_get_length (times));
}

/* A saved run of a small copy, for the report tests. */
static char *
saved_run (Fixture *f)
{
  g_autofree char *src = fixture_path (f, "src");
  g_autofree char *dst = fixture_path (f, "dst");
  char *json = fixture_path (f, "run.json");
  g_auto(CliResult) r = { 0 };

  make_sample_tree (src);
  run_cli (&r, "copy", "--quiet", "--no-history", "--json", json, src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  return json;
}

static void
assert_file_starts_with (const char *path,
                         const char *magic,
                         gsize       magic_len)
{
  g_autofree char *contents = NULL;
  gsize len = 0;

  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  g_assert_cmpuint (len, >, magic_len);
  g_assert_cmpmem (contents, magic_len, magic, magic_len);
}

static void
test_report_charts (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *json = saved_run (f);
  static const struct {
    const char *name;
    const char *magic;
    gsize       magic_len;
  } outputs[] = {
    { "chart.png", "\x89PNG\r\n\x1a\n", 8 },
    { "chart.svg", "<?xml", 5 },
    { "chart.pdf", "%PDF-", 5 },
    { "report.html", "<!DOCTYPE html>", 15 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (outputs); i++)
    {
      g_autofree char *out = fixture_path (f, outputs[i].name);
      g_auto(CliResult) r = { 0 };

      run_cli (&r, "report", json, "-o", out, NULL);
      g_assert_cmpint (r.status, ==, 0);
      assert_file_starts_with (out, outputs[i].magic, outputs[i].magic_len);
    }

  /* The HTML report carries its chart inline. */
  {
    g_autofree char *html = fixture_path (f, "report.html");
    g_autofree char *contents = NULL;

    g_assert_true (g_file_get_contents (html, &contents, NULL, NULL));
    g_assert_nonnull (strstr (contents, "<svg"));
  }
}

/* cp -r semantics */

static void
test_semantics_into_existing (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *src = fixture_path (f, "src");
  g_autofree char *file = fixture_path (f, "src/alpha.txt");
  g_autofree char *out = fixture_path (f, "out");
  g_autofree char *copy = fixture_path (f, "out/src");
  g_autofree char *copy_file = fixture_path (f, "out/alpha.txt");
  g_auto(CliResult) r = { 0 };

  make_sample_tree (src);
  make_dir (out, 0755);

  run_cli (&r, "copy", src, out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cs_test_tree_assert_equal (src, copy);

  run_cli (&r, "copy", file, out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cs_test_tree_assert_equal (file, copy_file);
}

static void
test_semantics_new_path (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *src = fixture_path (f, "src");
  g_autofree char *file = fixture_path (f, "src/sub/beta.bin");
  g_autofree char *out = fixture_path (f, "out");
  g_autofree char *copy = fixture_path (f, "out/renamed");
  g_autofree char *copy_file = fixture_path (f, "out/renamed.bin");
  g_autoptr(GDir) dir = NULL;
  g_auto(CliResult) r = { 0 };
  guint n = 0;

  make_sample_tree (src);
  make_dir (out, 0755);

  run_cli (&r, "copy", src, copy, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cs_test_tree_assert_equal (src, copy);

  run_cli (&r, "copy", file, copy_file, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cs_test_tree_assert_equal (file, copy_file);

  dir = g_dir_open (out, 0, NULL);
  while (g_dir_read_name (dir) != NULL)
    n++;
  g_assert_cmpuint (n, ==, 2);
}

static void
test_semantics_several_sources (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *one = fixture_path (f, "one");
  g_autofree char *two = fixture_path (f, "two");
  g_autofree char *file = fixture_path (f, "loose file.txt");
  g_autofree char *out = fixture_path (f, "out");
  g_autofree char *copy_one = fixture_path (f, "out/one");
  g_autofree char *copy_two = fixture_path (f, "out/two");
  g_autofree char *copy_file = fixture_path (f, "out/loose file.txt");
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *json = fixture_path (f, "run.json");
  g_auto(CliResult) r = { 0 };

  make_sample_tree (one);
  make_sample_tree (two);
  write_file (file, "loose\n", -1, 0644);
  set_mtime (file, 1234567890, 123);
  make_dir (out, 0755);

  run_cli (&r, "copy", "--json", json, one, two, file, out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cs_test_tree_assert_equal (one, copy_one);
  cs_test_tree_assert_equal (two, copy_two);
  cs_test_tree_assert_equal (file, copy_file);

  root = load_json (json);
  g_assert_cmpint (json_total (root, "copied", "files"), ==, 2 * count_items (one) + 1);
}

/* "DEST/" names a folder: a file copied to one that does not exist yet goes
 * into it; a folder copied there still becomes it, as with cp -r. */
static void
test_semantics_new_folder (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *src = fixture_path (f, "src");
  g_autofree char *file = fixture_path (f, "src/alpha.txt");
  g_autofree char *q = fixture_path (f, "q/");
  g_autofree char *q_file = fixture_path (f, "q/alpha.txt");
  g_autofree char *r_dir = fixture_path (f, "r/");
  g_autofree char *r_copy = fixture_path (f, "r");
  g_autofree char *deep = fixture_path (f, "missing/q/");
  g_auto(CliResult) r = { 0 };

  make_sample_tree (src);

  run_cli (&r, "copy", "--quiet", "--no-history", file, q, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_file_test (q, G_FILE_TEST_IS_DIR));
  cs_test_tree_assert_equal (file, q_file);

  run_cli (&r, "copy", "--quiet", "--no-history", src, r_dir, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cs_test_tree_assert_equal (src, r_copy);

  /* Its parent missing too: the message names the destination, not the file. */
  run_cli (&r, "copy", "--quiet", "--no-history", file, deep, NULL);
  g_assert_cmpint (r.status, ==, 3);
  g_assert_nonnull (strstr (r.err, deep));
  g_assert_null (strstr (r.err, "alpha.txt"));
}

/* The record says where the files were and went, absolute, wherever the CLI
 * ran from; `history` shows the same. */
static void
test_record_absolute_paths (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *home = fixture_path (f, "home");
  g_autofree char *src = fixture_path (f, "work/src");
  g_autofree char *dst = fixture_path (f, "work/out");
  g_autofree char *work = fixture_path (f, "work");
  g_autofree char *json = fixture_path (f, "run.json");
  g_autofree char *shown = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GPtrArray) records = NULL;
  JsonObject *o;
  g_auto(CliResult) r = { 0 };

  make_sample_tree (src);
  make_dir (dst, 0755);

  run_cli_at (&r, work, home, "copy", "--quiet", "--json", json, "./src/", "../work/out", NULL);
  g_assert_cmpint (r.status, ==, 0);

  records = history_records (home);
  g_assert_cmpuint (records->len, ==, 1);
  for (guint i = 0; i < 2; i++)
    {
      g_clear_pointer (&root, json_node_unref);
      root = load_json (i == 0 ? json : g_ptr_array_index (records, 0));
      o = json_node_get_object (root);
      g_assert_cmpuint (json_array_get_length (json_object_get_array_member (o, "sources")), ==, 1);
      g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (o, "sources"), 0), ==, src);
      g_assert_cmpstr (json_object_get_string_member (o, "destination"), ==, dst);
    }

  run_cli_at (&r, "/", home, "history", NULL);
  g_assert_cmpint (r.status, ==, 0);
  shown = g_strdup_printf ("%s → %s", src, dst);
  g_assert_nonnull (strstr (r.out, shown));
}

/* A real tree that no test wrote: @data is the path of one. */
static void
test_system_tree (Fixture       *f,
                  gconstpointer  data)
{
  const char *src = data;
  g_autofree char *dst = fixture_path (f, "copy");
  g_autofree char *json = fixture_path (f, "run.json");
  g_autoptr(JsonNode) root = NULL;
  g_auto(CliResult) r = { 0 };

  if (!g_file_test (src, G_FILE_TEST_IS_DIR))
    {
      g_autofree char *why = g_strdup_printf ("no %s on this system", src);

      g_test_skip (why);
      return;
    }

  run_cli (&r, "copy", "-q", "--no-flush", "--threads", "16", "--json", json, src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cs_test_tree_assert_equal (src, dst);
  g_assert_cmpuint (cs_test_tree_find_temporaries (dst), ==, 0);

  root = load_json (json);
  g_assert_cmpint (json_total (root, "copied", "bytes"), ==,
                   (gint64) cs_test_tree_sum_file_sizes (src));
  g_assert_cmpint (json_total (root, "copied", "files"), ==, count_items (src));
  g_assert_cmpint (json_total (root, "failed", "files"), ==, 0);
}

/* Faults */

/* Files next to the copy that no run may touch, among them names close to our
 * temporaries' but not provably ours. */
static GPtrArray *
make_bystanders (const char *out)
{
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  char *path;

  path = g_build_filename (out, "bystander.txt", NULL);
  write_file (path, "not part of the copy\n", -1, 0644);
  g_ptr_array_add (paths, path);

  path = g_build_filename (out, ".copyscope-notes", NULL);
  write_file (path, "looks like ours, is not\n", -1, 0644);
  g_ptr_array_add (paths, path);

  if (geteuid () == 0)
    {
      struct passwd *pw = getpwnam ("nobody");

      path = g_build_filename (out, ".copyscope-0123456789abcdef-1.part", NULL);
      write_file (path, "our pattern, someone else's file\n", -1, 0600);
      if (pw != NULL)
        g_assert_cmpint (chown (path, pw->pw_uid, pw->pw_gid), ==, 0);
      g_ptr_array_add (paths, path);
    }
  return paths;
}

static GPtrArray *
snapshot_all (GPtrArray *paths)
{
  GPtrArray *snapshots = g_ptr_array_new_with_free_func ((GDestroyNotify) g_hash_table_unref);

  for (guint i = 0; i < paths->len; i++)
    g_ptr_array_add (snapshots, cs_test_tree_snapshot (g_ptr_array_index (paths, i)));
  return snapshots;
}

static void
assert_all_unchanged (GPtrArray *paths,
                      GPtrArray *snapshots)
{
  for (guint i = 0; i < paths->len; i++)
    cs_test_tree_assert_snapshot (g_ptr_array_index (paths, i), g_ptr_array_index (snapshots, i));
}

/* Staging folders of ours directly in @dir. */
static guint
count_staging_folders (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, ".copyscope-") && g_str_has_suffix (name, ".stage"))
      n++;
  return n;
}

/* data: the number of kills; with KILL_STAGED, the temporaries are written in
 * staging folders next to the copy, as on a network share. */
#define KILL_STAGED (1u << 16)

typedef enum {
  KILLED_BEFORE,   /* nothing written yet */
  KILLED_MID_COPY,
  KILLED_AFTER,    /* the copy was done */
} KillTiming;

/* Kills a copy of @src into @out after @delay_ms, checks the oracle, reruns and
 * checks that the rerun converges; says where in the copy the kill landed. */
static KillTiming
kill_once (Fixture    *f,
           const char *staging,
           const char *src,
           guint       delay_ms)
{
  g_autofree char *out = fixture_path (f, "out");
  g_autofree char *copy = fixture_path (f, "out/small");
  g_autofree char *out_log = fixture_path (f, "stdout");
  g_autofree char *err_log = fixture_path (f, "stderr");
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GPtrArray) bystanders = NULL;
  g_autoptr(GPtrArray) snapshots = NULL;
  g_auto(CliResult) r = { 0 };
  guint n_files = cs_test_tree_count_files (src);
  guint n_published, n_temporaries;
  KillTiming timing = KILLED_AFTER;
  GPid pid;
  int status;

  cs_test_tree_remove (out);
  make_dir (out, 0755);
  bystanders = make_bystanders (out);
  snapshots = snapshot_all (bystanders);

  process = launch_cli (out_log, err_log, &pid, "copy", "-q", "--no-flush", "--threads", "4",
                        staging, src, out, NULL);
  g_usleep (delay_ms * 1000);
  kill (-pid, SIGKILL);
  g_assert_true (wait_for (process, pid, 10000));
  status = process_status (process);

  n_published = cs_test_tree_count_files (copy);
  n_temporaries = cs_test_tree_find_temporaries (copy) + count_staging_folders (out);
  g_test_message ("SIGKILL after %u ms: exit %d, %u of %u files published, %u temporaries",
                  delay_ms, status, n_published, n_files, n_temporaries);
  if (status == 128 + SIGKILL)
    {
      if (n_published == 0 && n_temporaries == 0)
        timing = KILLED_BEFORE;
      else if (n_published < n_files)
        timing = KILLED_MID_COPY;
    }
  else
    g_assert_cmpint (status, ==, 0);

  /* Nothing partial under a final name; temporaries are allowed now. */
  cs_test_tree_assert_partial (src, copy, TRUE);
  assert_all_unchanged (bystanders, snapshots);

  /* The rerun converges and cleans up, staging folders included. */
  run_cli (&r, "copy", "-q", "--no-flush", "--threads", "4", staging, src, out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cs_test_tree_assert_equal (src, copy);
  g_assert_cmpuint (cs_test_tree_find_temporaries (copy), ==, 0);
  g_assert_cmpuint (count_staging_folders (out), ==, 0);
  assert_all_unchanged (bystanders, snapshots);

  return timing;
}

/* Narrows the window a kill can land in: the latest delay that came before
 * the copy, the earliest that came after it (0: none yet). */
static void
note_kill (KillTiming  timing,
           guint       delay_ms,
           guint      *early,
           guint      *late,
           guint      *mid_copy)
{
  switch (timing)
    {
    case KILLED_BEFORE:
      *early = MAX (*early, delay_ms);
      break;
    case KILLED_MID_COPY:
      (*mid_copy)++;
      break;
    case KILLED_AFTER:
      *late = *late == 0 ? delay_ms : MIN (*late, delay_ms);
      break;
    }
}

static void
test_kill (Fixture       *f,
           gconstpointer  data)
{
  guint n_delays = GPOINTER_TO_UINT (data) & (KILL_STAGED - 1);
  const char *staging = (GPOINTER_TO_UINT (data) & KILL_STAGED) ? "--staging=always" : "--staging=auto";
  const char *src = get_shared_small ();
  g_autofree char *out = fixture_path (f, "out");
  g_autofree char *copy = fixture_path (f, "out/small");
  g_auto(CliResult) r = { 0 };
  g_autoptr(GHashTable) source_before = cs_test_tree_snapshot (src);
  guint mid_copy = 0, early = 5, late = 0;
  double max_ms;

  /* A clean run first: it must work, and its time bounds the delays. */
  make_dir (out, 0755);
  run_cli (&r, "copy", "-q", "--no-flush", "--threads", "4", staging, src, out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cs_test_tree_assert_equal (src, copy);
  g_assert_cmpuint (count_staging_folders (out), ==, 0);
  max_ms = MIN (400.0, 900.0 * r.seconds);

  for (guint i = 0; i < n_delays; i++)
    {
      guint delay_ms = (guint) (5.0 + (max_ms - 5.0) * (i + 1) / n_delays);

      note_kill (kill_once (f, staging, src, delay_ms), delay_ms, &early, &late, &mid_copy);
    }

  /* The copies after the first run faster than it (a warm cache) and a few
   * delays can all miss the copy: look between the latest kill that came too
   * early and the earliest that came too late. */
  for (guint i = 0; mid_copy == 0 && i < 8; i++)
    {
      guint delay_ms = late > early ? early + (late - early) / 2 : early + 5;

      note_kill (kill_once (f, staging, src, delay_ms), delay_ms, &early, &late, &mid_copy);
    }

  /* Otherwise the test proved nothing: every kill came before the first file
   * or after the last. */
  g_assert_cmpuint (mid_copy, >=, 1);
  cs_test_tree_assert_snapshot (src, source_before);
}

static void
test_signal (Fixture       *f,
             gconstpointer  data)
{
  int signum = GPOINTER_TO_INT (data);
  const char *src = get_shared_small ();
  g_autofree char *out = fixture_path (f, "out");
  g_autofree char *copy = fixture_path (f, "out/small");
  g_autofree char *out_log = fixture_path (f, "stdout");
  g_autofree char *err_log = fixture_path (f, "stderr");
  g_autofree char *json = fixture_path (f, "run.json");
  g_autofree char *stdout_text = NULL;
  g_autofree char *stderr_text = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GHashTable) source_before = cs_test_tree_snapshot (src);
  g_auto(CliResult) r = { 0 };
  guint n_files = cs_test_tree_count_files (src);
  guint n_published;
  gint64 sent;
  double seconds;
  GPid pid;

  make_dir (out, 0755);
  /* Durable and two threads: slow enough that the signal comes mid-copy. */
  process = launch_cli (out_log, err_log, &pid, "copy", "--durable", "--threads", "2",
                        "--json", json, src, out, NULL);
  /* Signal once files are being published: by then the handlers are in place. */
  for (guint waited = 0; cs_test_tree_count_files (copy) < 20; waited += 10)
    {
      g_assert_cmpuint (waited, <, 10000);
      g_usleep (10 * 1000);
    }
  g_assert_cmpint (kill (pid, signum), ==, 0);
  sent = g_get_monotonic_time ();
  g_assert_true (wait_for (process, pid, 10000));
  seconds = (double) (g_get_monotonic_time () - sent) / G_USEC_PER_SEC;

  stdout_text = read_file (out_log);
  stderr_text = read_file (err_log);
  g_test_message ("%s: exit %d %.3f s after the signal", g_strsignal (signum),
                  process_status (process), seconds);
  log_output ("stdout", stdout_text);
  log_output ("stderr", stderr_text);

  g_assert_cmpint (process_status (process), ==, 130);
  g_assert_cmpfloat (seconds, <=, 1.0);
  g_assert_nonnull (strstr (stdout_text, "Copied"));
  g_assert_nonnull (strstr (stdout_text, "Skipped"));

  n_published = cs_test_tree_count_files (copy);
  g_test_message ("%u of %u files published", n_published, n_files);
  g_assert_cmpuint (n_published, <, n_files);
  g_assert_cmpuint (cs_test_tree_find_temporaries (out), ==, 0);
  cs_test_tree_assert_partial (src, copy, FALSE);

  root = load_json (json);
  g_assert_cmpstr (json_string (root, "outcome"), ==, "cancelled");
  /* What the record says matches what is on disk. */
  g_assert_cmpint (json_total (root, "copied", "files"), ==, count_items (copy));

  run_cli (&r, "copy", "-q", "--no-flush", src, out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cs_test_tree_assert_equal (src, copy);
  cs_test_tree_assert_snapshot (src, source_before);
}

static void
test_full_new_files (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *src = fixture_path (f, "src");
  g_autofree char *mnt = fixture_path (f, "mnt");
  g_autofree char *copy = fixture_path (f, "mnt/src");
  g_autofree char *json = fixture_path (f, "run.json");
  g_autoptr(JsonNode) root = NULL;
  g_auto(GStrv) lines = NULL;
  g_auto(CliResult) r = { 0 };

  if (geteuid () != 0)
    {
      g_test_skip ("needs root to mount a small tmpfs");
      return;
    }
  for (guint i = 0; i < 4; i++)
    {
      g_autofree char *name = g_strdup_printf ("part%u.bin", i);
      g_autofree char *path = g_build_filename (src, name, NULL);

      write_random_file (path, 1000 * 1000, i);
    }
  make_dir (mnt, 0755);
  if (mount ("tmpfs", mnt, "tmpfs", 0, "size=1m") != 0)
    {
      g_autofree char *why = g_strdup_printf ("cannot mount a tmpfs: %s", g_strerror (errno));

      g_test_skip (why);
      return;
    }
  f->mount = g_strdup (mnt);

  run_cli (&r, "copy", "--json", json, src, mnt, NULL);
  g_assert_cmpint (r.status, ==, 3);
  g_assert_cmpfloat (r.seconds, <, 3.0);

  /* One clear error: stderr repeats it at most once, after the list of errors. */
  g_assert_cmpuint (count_lines (r.err), >=, 1);
  g_assert_cmpuint (count_lines (r.err), <=, 2);
  lines = g_strsplit (g_strchomp (r.err), "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    g_assert_nonnull (strstr (lines[i], "full"));
  root = load_json (json);
  g_assert_cmpuint (json_n_errors (root), ==, 1);
  /* The file that met the full disk is counted as failed and named in that error. */
  {
    JsonObject *totals = json_object_get_object_member (json_node_get_object (root), "totals");
    JsonObject *failed = json_object_get_object_member (totals, "failed");

    g_assert_cmpint (json_object_get_int_member (failed, "files"), ==, 1);
  }
  g_assert_cmpstr (json_string (root, "outcome"), ==, "failed");
  g_assert_nonnull (strstr (json_string (root, "fatal_error"), "full"));

  g_assert_cmpuint (cs_test_tree_find_temporaries (mnt), ==, 0);
  cs_test_tree_assert_partial (src, copy, FALSE);
}

static void
test_full_replace (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *src = fixture_path (f, "src");
  g_autofree char *file = fixture_path (f, "src/photo.raw");
  g_autofree char *mnt = fixture_path (f, "mnt");
  g_autofree char *copy_file = fixture_path (f, "mnt/src/photo.raw");
  g_autofree char *old = fixture_path (f, "old.raw");
  g_auto(CliResult) r = { 0 };
  g_autoptr(GHashTable) before = NULL;

  if (geteuid () != 0)
    {
      g_test_skip ("needs root to mount a small tmpfs");
      return;
    }
  write_random_file (file, 700 * 1000, 1);
  set_mtime (file, 1600000000, 0);
  make_dir (mnt, 0755);
  if (mount ("tmpfs", mnt, "tmpfs", 0, "size=1m") != 0)
    {
      g_autofree char *why = g_strdup_printf ("cannot mount a tmpfs: %s", g_strerror (errno));

      g_test_skip (why);
      return;
    }
  f->mount = g_strdup (mnt);

  run_cli (&r, "copy", "-q", src, mnt, NULL);
  g_assert_cmpint (r.status, ==, 0);
  before = cs_test_tree_snapshot (copy_file);

  /* A newer version that does not fit next to the old one. */
  write_random_file (file, 700 * 1000, 2);
  set_mtime (file, 1700000000, 0);
  write_random_file (old, 700 * 1000, 1);

  run_cli (&r, "copy", src, mnt, NULL);
  g_assert_cmpint (r.status, ==, 3);
  g_assert_cmpfloat (r.seconds, <, 3.0);
  g_assert_nonnull (strstr (r.err, "full"));
  /* The old file is untouched, byte for byte. */
  cs_test_tree_assert_snapshot (copy_file, before);
  set_mtime (old, 1600000000, 0);
  g_assert_cmpint (g_chmod (old, 0644), ==, 0);
  cs_test_tree_assert_equal (old, copy_file);
  g_assert_cmpuint (cs_test_tree_find_temporaries (mnt), ==, 0);
}

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

static void
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

static void
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

static void
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

static void
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

static void
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

static void
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

static void
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

/* What the CLI loads before it does anything: GLib, and never GTK or
 * libadwaita, so it runs on a server without a display stack. The dynamic
 * loader lists the libraries instead of running the program, as ldd does. */
static void
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

/* --log writes a line per file; --max-rate and --max-files reach the record. */
static void
test_log_and_limits (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *src = fixture_path (f, "src");
  g_autofree char *dst = fixture_path (f, "dst");
  g_autofree char *log = fixture_path (f, "copy.log");
  g_autofree char *json = fixture_path (f, "run.json");
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;
  g_auto(CliResult) r = { 0 };
  JsonObject *settings;

  make_sample_tree (src);
  run_cli (&r, "copy", "--log", log, "--json", json, "--max-rate", "2.5G", "--max-files", "1e4/s",
           src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  text = read_file (log);
  g_assert_cmpuint (count_lines (text), ==, cs_test_tree_count_files (src) + cs_test_tree_count_symlinks (src));
  g_assert_true (g_str_has_prefix (text, "copied\t"));
  g_assert_nonnull (strstr (r.out, "Limits"));
  root = load_json (json);
  settings = json_object_get_object_member (json_node_get_object (root), "settings");
  g_assert_cmpfloat (json_object_get_double_member (settings, "max_rate"), ==, 2.5e9);
  g_assert_cmpfloat (json_object_get_double_member (settings, "max_files"), ==, 1e4);
  g_assert_cmpstr (json_object_get_string_member (settings, "operation"), ==, "copy");
}

/* move: the tree ends up where copy would put it, and the source is gone. */
static void
test_move (Fixture       *f,
           gconstpointer  data)
{
  g_autofree char *src = fixture_path (f, "src");
  g_autofree char *ref = fixture_path (f, "ref");
  g_autofree char *dst = fixture_path (f, "dst");
  g_autofree char *moved = fixture_path (f, "dst/src");
  g_auto(CliResult) r = { 0 };
  g_auto(CliResult) c = { 0 };

  make_sample_tree (src);
  run_cli (&c, "copy", src, ref, NULL);
  g_assert_cmpint (c.status, ==, 0);
  make_dir (dst, 0755);
  run_cli (&r, "move", src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "Moved"));
  g_assert_false (g_file_test (src, G_FILE_TEST_EXISTS));
  cs_test_tree_assert_equal (ref, moved);
}

/* mirror: the dry run lists the deletions, --max-delete stops a larger one
 * with status 1, and the mirror makes DEST equal SOURCE. */
static void
test_mirror (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *src = fixture_path (f, "src");
  g_autofree char *dst = fixture_path (f, "dst");
  g_autofree char *extra = fixture_path (f, "dst/only-here.txt");
  g_autofree char *extra_dir = fixture_path (f, "dst/old-folder");
  g_autofree char *extra_in = fixture_path (f, "dst/old-folder/x");
  g_auto(CliResult) r = { 0 };

  make_sample_tree (src);
  make_dir (dst, 0755);
  g_assert_true (g_file_set_contents (extra, "x", 1, NULL));
  make_dir (extra_dir, 0755);
  g_assert_true (g_file_set_contents (extra_in, "y", 1, NULL));

  run_cli (&r, "mirror", "--dry-run", src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "delete       "));
  g_assert_nonnull (strstr (r.out, "only-here.txt"));
  g_assert_nonnull (strstr (r.out, "delete folder"));
  g_assert_true (g_file_test (extra, G_FILE_TEST_EXISTS));

  run_cli (&r, "mirror", "--max-delete", "2", src, dst, NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "--max-delete"));
  g_assert_true (g_file_test (extra_in, G_FILE_TEST_EXISTS));

  run_cli (&r, "mirror", src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "Deleted"));
  cs_test_tree_assert_equal (src, dst);
}

/* The demonstration leaves nothing in the user's cache unless asked, and its
 * copies are in the history like any other run. */
static void
test_demo_clean (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *home = fixture_path (f, "home");
  g_autofree char *dst = fixture_path (f, "dst");
  g_autofree char *sets = fixture_path (f, "home/cache/copyscope/demo");
  g_autoptr(GPtrArray) records = NULL;
  g_autoptr(GDir) dir = NULL;
  g_auto(CliResult) r = { 0 };

  make_dir (dst, 0755);
  run_cli_at (&r, f->tmp, home, "demo", "--size", "0.2", dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_false (g_file_test (sets, G_FILE_TEST_EXISTS));
  dir = g_dir_open (dst, 0, NULL);
  g_assert_null (g_dir_read_name (dir));
  records = history_records (home);
  g_assert_cmpuint (records->len, ==, 2);

  run_cli_at (&r, f->tmp, home, "demo", "--size", "0.2", "--keep", "--no-history", dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_file_test (sets, G_FILE_TEST_IS_DIR));
  g_clear_pointer (&records, g_ptr_array_unref);
  records = history_records (home);
  g_assert_cmpuint (records->len, ==, 2);
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
  add ("/cli/rerun/source-newer", NULL, test_rerun_source_newer);
  add ("/cli/rerun/destination-newer", NULL, test_rerun_destination_newer);
  add ("/cli/rerun/overwrite-always", NULL, test_rerun_always);
  add ("/cli/rerun/overwrite-never", NULL, test_rerun_never);
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
