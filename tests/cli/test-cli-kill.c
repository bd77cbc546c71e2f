/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include "test-cli.h"

/* Kills, signals and full destinations: no partial file under a final name,
 * bystanders unchanged, a rerun that converges. */

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

void
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

void
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

void
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

void
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
