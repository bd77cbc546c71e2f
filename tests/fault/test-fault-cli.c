/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include "test-fault-cli.h"

/*
 * The CLI binary under faults (through the LD_PRELOAD shim), kills, and the
 * bad-input catalogue of docs/RELIABILITY.md, each ending with the oracle. Every
 * run of the CLI is bounded by timeout(1), so a hang fails instead of
 * blocking the suite. One file for each kind, test-fault-cli-*.c; this one
 * holds the fixture, the running of the CLI and the reading of its record,
 * and main () with the list of all their tests.
 */

const char *cli;       /* $CS_CLI */
const char *shim;      /* $CS_PRELOAD */

void
result_clear (Result *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
  g_clear_pointer (&r->report, json_node_unref);
}

/* ---- Trees ------------------------------------------------------------------ */

void
write_pattern (const char *path,
               gsize       size,
               guint       seed,
               mode_t      mode)
{
  g_autofree guint8 *data = g_malloc (MAX (size, 1));
  g_autoptr(GError) error = NULL;
  struct timespec ts[2] = { { 1600000000 + seed, 5000 + seed }, { 1600000000 + seed, 5000 + seed } };

  for (gsize i = 0; i < size; i++)
    data[i] = (guint8) ((i * 2654435761u + seed * 7919u) >> 11);
  g_file_set_contents (path, (const char *) data, (gssize) size, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_chmod (path, mode), ==, 0);
  g_assert_cmpint (utimensat (AT_FDCWD, path, ts, 0), ==, 0);
}

char *
path_in (Fixture    *f,
         const char *rel)
{
  return g_build_filename (f->root, rel, NULL);
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->root = cs_test_tree_make_tmp ();
  f->src = path_in (f, "src");
  f->out = path_in (f, "out");
  f->copy = path_in (f, "out/src");
  f->json = path_in (f, "report/run.json");
  f->mounts = g_ptr_array_new_with_free_func (g_free);
  g_assert_cmpint (g_mkdir (f->src, 0755), ==, 0);
  /* Writable by nobody too, for the runs that drop privileges. */
  {
    g_autofree char *report = path_in (f, "report");
    g_assert_cmpint (g_mkdir (report, 0777), ==, 0);
    g_assert_cmpint (g_chmod (report, 0777), ==, 0);
  }
  g_assert_cmpint (g_mkdir (f->out, 0755), ==, 0);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  if (f->mnt != NULL)
    {
      if (umount (f->mnt) != 0 && umount2 (f->mnt, MNT_DETACH) != 0)
        g_printerr ("cannot unmount %s: %s\n", f->mnt, g_strerror (errno));
      g_free (f->mnt);
    }
  for (guint i = 0; i < f->mounts->len; i++)
    umount2 (g_ptr_array_index (f->mounts, i), MNT_DETACH);
  g_ptr_array_unref (f->mounts);
  g_clear_pointer (&f->oracle, cs_oracle_free);
  /* rm(1) walks with *at() calls: the trees longer than PATH_MAX go too. */
  {
    const char *argv[] = { "rm", "-rf", "--one-file-system", f->root, NULL };
    int status = 0;

    g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status, NULL);
  }
  g_free (f->root);
  g_free (f->src);
  g_free (f->out);
  g_free (f->copy);
  g_free (f->json);
}

/* a.txt, b.bin (the target of faults), c.dat, sub/d.txt, sub/empty. */
void
make_small_tree (Fixture *f)
{
  g_autofree char *sub = g_build_filename (f->src, "sub", NULL);
  const struct { const char *name; gsize size; } files[] = {
    { "a.txt", 10000 }, { "b.bin", 2 * 1024 * 1024 + 3 }, { "c.dat", 300000 },
    { "sub/d.txt", 4096 }, { "sub/empty", 0 },
  };

  g_assert_cmpint (g_mkdir (sub, 0750), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *p = g_build_filename (f->src, files[i].name, NULL);
      write_pattern (p, files[i].size, i + 1, 0644);
    }
}

/* Snapshots the pair src → out/src, plus everything else under root as a bystander. */
CsOracle *
watch (Fixture *f)
{
  g_autofree char *outside = path_in (f, "outside");
  g_autofree char *neighbour = path_in (f, "out/neighbour");

  if (!g_file_test (outside, G_FILE_TEST_EXISTS))
    {
      g_autofree char *keep = g_build_filename (outside, "keep.txt", NULL);

      g_assert_cmpint (g_mkdir (outside, 0755), ==, 0);
      write_pattern (keep, 3333, 42, 0644);
      write_pattern (neighbour, 100, 43, 0644);
    }
  g_clear_pointer (&f->oracle, cs_oracle_free);
  f->oracle = cs_oracle_new ();
  cs_oracle_add_pair (f->oracle, f->src, f->copy);
  cs_oracle_add_bystander (f->oracle, outside);
  cs_oracle_add_bystander (f->oracle, neighbour);
  return f->oracle;
}

rlim_t child_nofile;

/* Under AddressSanitizer the shim comes before the runtime in the load order,
 * which it refuses unless told. */
char *
asan_options_for_preload (void)
{
  const char *asan = g_getenv ("ASAN_OPTIONS");

  return g_strconcat (asan != NULL ? asan : "", asan != NULL ? ":" : "", "verify_asan_link_order=0", NULL);
}

void
child_setup (gpointer data)
{
  setsid ();
  if (child_nofile > 0)
    {
      struct rlimit rl = { child_nofile, child_nofile };
      setrlimit (RLIMIT_NOFILE, &rl);
    }
}

void
run_copy (Fixture    *f,
          const How  *how,
          Result     *r,
          const char *first,
          ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_auto(GStrv) envp = g_get_environ ();
  g_autoptr(GError) error = NULL;
  g_autofree char *command = NULL;
  gint64 start = g_get_monotonic_time ();
  int wait_status = 0;
  va_list args;

  result_clear (r);
  g_remove (f->json);
  g_ptr_array_add (argv, (gpointer) "timeout");
  g_ptr_array_add (argv, (gpointer) "-s");
  g_ptr_array_add (argv, (gpointer) "KILL");
  g_ptr_array_add (argv, (gpointer) RUN_TIMEOUT);
  if (how != NULL && how->as_nobody)
    {
      g_ptr_array_add (argv, (gpointer) "setpriv");
      g_ptr_array_add (argv, (gpointer) "--reuid=nobody");
      g_ptr_array_add (argv, (gpointer) "--regid=nogroup");
      g_ptr_array_add (argv, (gpointer) "--clear-groups");
    }
  g_ptr_array_add (argv, (gpointer) cli);
  g_ptr_array_add (argv, (gpointer) "copy");
  g_ptr_array_add (argv, (gpointer) "--no-history");
  g_ptr_array_add (argv, (gpointer) "--no-flush");
  g_ptr_array_add (argv, (gpointer) "--wait=0.01");
  g_ptr_array_add (argv, (gpointer) "--interval=0");
  g_ptr_array_add (argv, (gpointer) "--json");
  g_ptr_array_add (argv, f->json);
  va_start (args, first);
  for (const char *arg = first; arg != NULL; arg = va_arg (args, const char *))
    g_ptr_array_add (argv, (gpointer) arg);
  va_end (args);
  g_ptr_array_add (argv, NULL);

  if (how != NULL && how->preload)
    {
      g_autofree char *options = asan_options_for_preload ();

      envp = g_environ_setenv (envp, "LD_PRELOAD", shim, TRUE);
      envp = g_environ_setenv (envp, "ASAN_OPTIONS", options, TRUE);
    }
  for (guint i = 0; how != NULL && how->env != NULL && how->env[i] != NULL; i++)
    {
      g_auto(GStrv) kv = g_strsplit (how->env[i], "=", 2);
      envp = g_environ_setenv (envp, kv[0], kv[1], TRUE);
    }
  child_nofile = how != NULL ? how->nofile : 0;

  command = g_strjoinv (" ", (char **) argv->pdata);
  g_spawn_sync (NULL, (char **) argv->pdata, envp, G_SPAWN_SEARCH_PATH, child_setup, NULL,
                &r->out, &r->err, &wait_status, &error);
  g_assert_no_error (error);
  r->seconds = (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
  r->status = WIFEXITED (wait_status) ? WEXITSTATUS (wait_status)
            : WIFSIGNALED (wait_status) ? 128 + WTERMSIG (wait_status) : -1;
  g_test_message ("%s: exit %d after %.2f s", command, r->status, r->seconds);
  if (r->err != NULL && r->err[0] != '\0')
    g_test_message ("stderr:\n%.3000s", r->err);
  /* 124/137: timeout(1) ended it — the CLI hung. */
  g_assert_cmpint (r->status, !=, 137);

  if (g_file_test (f->json, G_FILE_TEST_EXISTS))
    {
      g_autofree char *text = NULL;

      g_assert_true (g_file_get_contents (f->json, &text, NULL, NULL));
      r->report = json_from_string (text, &error);
      g_assert_no_error (error);
    }
}

gint64
report_total (Result     *r,
              const char *klass,
              const char *kind)
{
  JsonObject *totals;

  g_assert_nonnull (r->report);
  totals = json_object_get_object_member (json_node_get_object (r->report), "totals");
  return json_object_get_int_member (json_object_get_object_member (totals, klass), kind);
}

/* The error listed for a path ending in @suffix, or NULL. */
JsonObject *
report_error (Result     *r,
              const char *suffix)
{
  JsonArray *errors;

  g_assert_nonnull (r->report);
  errors = json_object_get_array_member (json_node_get_object (r->report), "errors");
  for (guint i = 0; i < json_array_get_length (errors); i++)
    {
      JsonObject *e = json_array_get_object_element (errors, i);
      const char *path = json_object_get_string_member (e, "path");
      const char *raw = json_object_has_member (e, "path_raw")
                        ? json_object_get_string_member (e, "path_raw") : NULL;

      if (raw != NULL)
        {
          gsize len;
          g_autofree guchar *bytes = g_base64_decode (raw, &len);
          g_autofree char *exact = g_strndup ((const char *) bytes, len);

          if (g_str_has_suffix (exact, suffix))
            return e;
        }
      else if (path != NULL && g_str_has_suffix (path, suffix))
        return e;
    }
  return NULL;
}

guint
report_n_errors (Result *r)
{
  g_assert_nonnull (r->report);
  return json_array_get_length (json_object_get_array_member (json_node_get_object (r->report), "errors"));
}

/* Without faults, again: everything COMPLETE, no temporaries. */
void
rerun_converges (Fixture *f)
{
  g_auto(Result) r = { 0 };

  run_copy (f, NULL, &r, f->src, f->out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
}

gboolean
need_shim (void)
{
  if (shim == NULL || !g_file_test (shim, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the preload shim was not built (CS_PRELOAD)");
      return FALSE;
    }
  return TRUE;
}

static const ShimCase shim_cases[] = {
  { "read", "/src/b.bin", "EIO", FALSE, FALSE, 1, CS_ORACLE_ABSENT, 1 },
  { "read", "/src/b.bin", "EIO", TRUE, FALSE, 1, CS_ORACLE_OLD, 1 },
  { "copy_file_range", "/src/b.bin", "EIO", FALSE, FALSE, 1, CS_ORACLE_ABSENT, 1 },
  { "copy_file_range", "/src/*", "EXDEV", FALSE, FALSE, 0, CS_ORACLE_COMPLETE, 0 },
  { "copy_file_range", "/src/*", "EOPNOTSUPP", FALSE, FALSE, 0, CS_ORACLE_COMPLETE, 0 },
  /* Temporaries, named (b.bin replaces a file) or unnamed (the new ones). */
  { "write", "/out/src/.copyscope-*|/out/src/#*", "ENOSPC", TRUE, FALSE, 3, CS_ORACLE_OLD, 0 },
  /* Every temporary in out/src fails: a.txt, b.bin and c.dat. */
  { "fsync", "/out/src/.copyscope-*|/out/src/#*", "EIO", TRUE, TRUE, 1, CS_ORACLE_OLD, 3 },
  { "read,write", "/*", NULL, FALSE, TRUE, 0, CS_ORACLE_COMPLETE, 0 },
  { "openat", "/src/b.bin", "EACCES", FALSE, FALSE, 1, CS_ORACLE_ABSENT, 1 },
  { "openat", "/out/src/.copyscope-*|/out/src/#*", "EIO", TRUE, FALSE, 1, CS_ORACLE_OLD, 3 },
};

/* ---- Permissions, as nobody ------------------------------------------------------- */

gboolean
can_drop_privileges (uid_t *uid,
                     gid_t *gid)
{
  g_autofree char *setpriv = g_find_program_in_path ("setpriv");
  struct passwd *pw;
  struct group *gr;

  if (geteuid () != 0)
    {
      g_test_skip ("needs root to run the CLI as nobody through setpriv");
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

GSubprocess *
launch_copy (const char * const *env,
             const char         *out,
             const char         *err,
             GPid               *out_pid,
             const char         *first,
             ...)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  GSubprocess *process;
  va_list args;

  g_ptr_array_add (argv, (gpointer) cli);
  g_ptr_array_add (argv, (gpointer) "copy");
  g_ptr_array_add (argv, (gpointer) "--no-history");
  g_ptr_array_add (argv, (gpointer) "--no-flush");
  va_start (args, first);
  for (const char *arg = first; arg != NULL; arg = va_arg (args, const char *))
    g_ptr_array_add (argv, (gpointer) arg);
  va_end (args);
  g_ptr_array_add (argv, NULL);

  if (env != NULL)
    {
      g_autofree char *asan_options = asan_options_for_preload ();

      for (guint e = 0; env[e] != NULL; e++)
        {
          g_auto(GStrv) kv = g_strsplit (env[e], "=", 2);
          g_subprocess_launcher_setenv (launcher, kv[0], kv[1], TRUE);
        }
      g_subprocess_launcher_setenv (launcher, "LD_PRELOAD", shim, TRUE);
      g_subprocess_launcher_setenv (launcher, "ASAN_OPTIONS", asan_options, TRUE);
    }
  g_subprocess_launcher_set_stdout_file_path (launcher, out);
  g_subprocess_launcher_set_stderr_file_path (launcher, err);
  child_nofile = 0;
  g_subprocess_launcher_set_child_setup (launcher, child_setup, NULL, NULL);
  process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  g_assert_no_error (error);
  *out_pid = (GPid) g_ascii_strtoll (g_subprocess_get_identifier (process), NULL, 10);
  return process;
}

void
on_waited (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_subprocess_wait_finish (G_SUBPROCESS (object), result, NULL);
  *(gboolean *) user_data = TRUE;
}

gboolean
on_wait_timeout (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Waits for @process at most @seconds, then kills its group: a hang fails. */
int
wait_bounded (GSubprocess *process,
              GPid         pid,
              double       seconds)
{
  gboolean done = FALSE, timed_out = FALSE;
  guint timeout_id;

  g_subprocess_wait_async (process, NULL, on_waited, &done);
  timeout_id = g_timeout_add ((guint) (seconds * 1000), on_wait_timeout, &timed_out);
  while (!done && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (!done)
    {
      kill (-pid, SIGKILL);
      while (!done)
        g_main_context_iteration (NULL, TRUE);
      g_assert_not_reached ();
    }
  g_source_remove (timeout_id);
  if (g_subprocess_get_if_exited (process))
    return g_subprocess_get_exit_status (process);
  return g_subprocess_get_if_signaled (process) ? 128 + g_subprocess_get_term_sig (process) : -1;
}

char *
read_text (const char *path)
{
  char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return g_strdup ("");
  return text;
}

/* Lines of @text (the last one may lack its newline). */
guint
text_lines (const char *text)
{
  guint n = 0;

  for (const char *p = text; *p != '\0'; p++)
    n += *p == '\n';
  return n + (text[0] != '\0' && text[strlen (text) - 1] != '\n');
}

/* 400 files of 20 kB in four folders: enough to be caught mid-copy. */
void
make_wide_tree (Fixture *f)
{
  for (guint d = 0; d < 4; d++)
    {
      g_autofree char *dir = g_strdup_printf ("%s/d%u", f->src, d);

      g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
      for (guint i = 0; i < 100; i++)
        {
          g_autofree char *p = g_strdup_printf ("%s/f%03u", dir, i);
          write_pattern (p, 20000, d * 100 + i, 0644);
        }
    }
}

int
main (int    argc,
      char **argv)
{
  struct rlimit rl;

  g_test_init (&argc, &argv, NULL);
  cli = g_getenv ("CS_CLI");
  shim = g_getenv ("CS_PRELOAD");
  g_assert_nonnull (cli);

  if (getrlimit (RLIMIT_NOFILE, &rl) == 0)
    {
      rl.rlim_cur = rl.rlim_max;
      setrlimit (RLIMIT_NOFILE, &rl);
    }

#define ADD(path, func, data) \
  g_test_add ("/fault-cli/" path, Fixture, (gconstpointer) (data), fixture_setup, func, fixture_teardown)

  for (guint i = 0; i < G_N_ELEMENTS (shim_cases); i++)
    {
      const ShimCase *c = &shim_cases[i];
      g_autofree char *name = g_strdup_printf ("shim/%s-%s%s%s", c->op, c->error != NULL ? c->error : "short",
                                               c->replace ? "-replacing" : "", c->durable ? "-durable" : "");

      g_autofree char *full = g_strconcat ("/fault-cli/", name, NULL);

      g_strdelimit (full, ",", '+');
      g_test_add (full, Fixture, c, fixture_setup, test_shim, fixture_teardown);
    }
  ADD ("kill/some", test_kill, GUINT_TO_POINTER (6));
  ADD ("kill/many", test_kill, GUINT_TO_POINTER (25));
  ADD ("bad/refusals", test_refusals, NULL);
  ADD ("bad/unreadable-as-nobody", test_unreadable, NULL);
  ADD ("bad/symlink-loops-and-dangling", test_symlinks, NULL);
  ADD ("bad/fifo-socket-device", test_special_files, NULL);
  ADD ("bad/device-as-nobody", test_device_as_nobody, NULL);
  ADD ("bad/pseudo-files", test_pseudo_files, NULL);
  ADD ("quiet/failures-listed", test_quiet_lists_failures, NULL);
  ADD ("quiet/names-exact", test_failed_names_exact, NULL);
  ADD ("destination/folder-removed", test_destination_folder_removed, NULL);
  ADD ("signal/hup", test_sighup, NULL);
  ADD ("counts/after-fatal-stop", test_counts_after_fatal_stop, NULL);
  ADD ("counts/failed-folder", test_counts_failed_folder, NULL);
  ADD ("counts/skip-names-destination", test_counts_skip_names_destination, NULL);
  ADD ("counts/edquot-wording", test_counts_edquot_wording, NULL);
  ADD ("counts/one-stdout", test_counts_one_stdout, NULL);
  ADD ("load/two-identical-runs", test_two_identical_runs, NULL);
  ADD ("bad/names", test_names, NULL);
  ADD ("bad/longer-than-path-max", test_long_path, NULL);
  ADD ("bad/1000-levels", test_deep_tree, GUINT_TO_POINTER (1000));
  ADD ("bad/hard-links-and-empty", test_hard_links_and_empty, NULL);
  ADD ("bad/sparse-huge", test_sparse, NULL);
  ADD ("bad/planted-symlinks", test_planted_symlinks, NULL);
  ADD ("bad/xattrs", test_xattrs, NULL);
  ADD ("bad/10000-in-one-folder", test_many_in_one_folder, GUINT_TO_POINTER (10000));
  ADD ("bad/100000-in-one-folder", test_many_in_one_folder, GUINT_TO_POINTER (100000));
  ADD ("load/ulimit-64-with-128-threads", test_few_descriptors, NULL);

  return g_test_run ();
}
