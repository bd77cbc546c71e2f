/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "cs-kill-plan.h"
#include "cs-oracle.h"
#include "cs-test-tree.h"

/*
 * The CLI binary under faults (through the LD_PRELOAD shim), kills, and the
 * bad-input catalogue of docs/RELIABILITY.md, each ending with the oracle. Every
 * run of the CLI is bounded by timeout(1), so a hang fails instead of
 * blocking the suite.
 */

static const char *cli;       /* $CS_CLI */
static const char *shim;      /* $CS_PRELOAD */

#define RUN_TIMEOUT "60"

typedef struct {
  char *root;
  char *src;
  char *out;
  char *copy;
  char *json;
  char *mnt;
  GPtrArray *mounts;    /* further mount points, unmounted in teardown */
  CsOracle *oracle;
} Fixture;

typedef struct {
  int       status;
  char     *out;
  char     *err;
  double    seconds;
  JsonNode *report;
} Result;

static void
result_clear (Result *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
  g_clear_pointer (&r->report, json_node_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Result, result_clear)

/* ---- Trees ------------------------------------------------------------------ */

static void
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

static char *
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
static void
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
static CsOracle *
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

/* ---- Running the CLI ---------------------------------------------------------- */

typedef struct {
  const char * const *env;      /* extra NAME=VALUE pairs */
  gboolean            preload;
  gboolean            as_nobody;
  rlim_t              nofile;   /* 0: unchanged */
} How;

static rlim_t child_nofile;

/* Under AddressSanitizer the shim comes before the runtime in the load order,
 * which it refuses unless told. */
static char *
asan_options_for_preload (void)
{
  const char *asan = g_getenv ("ASAN_OPTIONS");

  return g_strconcat (asan != NULL ? asan : "", asan != NULL ? ":" : "", "verify_asan_link_order=0", NULL);
}

static void
child_setup (gpointer data)
{
  setsid ();
  if (child_nofile > 0)
    {
      struct rlimit rl = { child_nofile, child_nofile };
      setrlimit (RLIMIT_NOFILE, &rl);
    }
}

/* Runs "copyscope-cli copy --no-history --json FILE ARGS…"; the record is loaded
 * into r->report when the CLI wrote one. */
static void
run_copy (Fixture    *f,
          const How  *how,
          Result     *r,
          const char *first,
          ...) G_GNUC_NULL_TERMINATED;

static void
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

static gint64
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
static JsonObject *
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

static guint
report_n_errors (Result *r)
{
  g_assert_nonnull (r->report);
  return json_array_get_length (json_object_get_array_member (json_node_get_object (r->report), "errors"));
}

/* Without faults, again: everything COMPLETE, no temporaries. */
static void
rerun_converges (Fixture *f)
{
  g_auto(Result) r = { 0 };

  run_copy (f, NULL, &r, f->src, f->out, NULL);
  g_assert_cmpint (r.status, ==, 0);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
}

static guint
count_lines (const char *path)
{
  g_autofree char *text = NULL;
  guint n = 0;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return 0;
  for (const char *p = text; *p != '\0'; p++)
    n += *p == '\n';
  return n;
}

static gboolean
need_shim (void)
{
  if (shim == NULL || !g_file_test (shim, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the preload shim was not built (CS_PRELOAD)");
      return FALSE;
    }
  return TRUE;
}

/* ---- Faults through the shim ------------------------------------------------------ */

typedef struct {
  const char *op;
  const char *target;       /* appended to the fixture root as the path pattern */
  const char *error;        /* NULL: short counts */
  gboolean    replace;      /* an older b.bin exists at the destination */
  gboolean    durable;
  int         exit_status;
  CsOracleState b_state;    /* b.bin after the run */
  int         failed;       /* files the record lists as failed */
} ShimCase;

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

/* The shim's patterns: each of @target's alternatives under @root. */
static char *
shim_pattern (const char *root,
              const char *target)
{
  g_auto(GStrv) parts = g_strsplit (target, "|", -1);

  for (guint i = 0; parts[i] != NULL; i++)
    {
      char *rooted = g_strconcat (root, parts[i], NULL);

      g_free (parts[i]);
      parts[i] = rooted;
    }
  return g_strjoinv ("|", parts);
}

static void
test_shim (Fixture       *f,
           gconstpointer  data)
{
  const ShimCase *c = data;
  g_autofree char *pattern = shim_pattern (f->root, c->target);
  g_autofree char *log = path_in (f, "faults.log");
  g_autofree char *env_path = g_strconcat ("CSFAULT_PATH=", pattern, NULL);
  g_autofree char *env_op = g_strconcat ("CSFAULT_OP=", c->op, NULL);
  g_autofree char *env_errno = g_strconcat ("CSFAULT_ERRNO=", c->error != NULL ? c->error : "", NULL);
  g_autofree char *env_log = g_strconcat ("CSFAULT_LOG=", log, NULL);
  const char *env[] = { env_path, env_op, c->error != NULL ? env_errno : "CSFAULT_SHORT=1", env_log, NULL };
  How how = { env, TRUE };
  g_auto(Result) r = { 0 };
  CsOracleCounts counts;

  if (!need_shim ())
    return;
  make_small_tree (f);
  if (c->replace)
    {
      g_autofree char *old = g_build_filename (f->copy, "b.bin", NULL);

      g_assert_cmpint (g_mkdir (f->copy, 0755), ==, 0);
      write_pattern (old, 5000, 0, 0600);
    }
  watch (f);
  if (c->durable)
    run_copy (f, &how, &r, "--durable", "--verify", "--threads=3", f->src, f->out, NULL);
  else
    run_copy (f, &how, &r, "--threads=3", f->src, f->out, NULL);

  g_test_message ("%u faults injected", count_lines (log));
  g_assert_cmpuint (count_lines (log), >=, 1);
  g_assert_cmpint (r.status, ==, c->exit_status);
  counts = cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "b.bin"), ==, c->b_state);
  if (c->exit_status == 1)
    {
      g_assert_nonnull (report_error (&r, "b.bin"));
      g_assert_cmpint (report_total (&r, "failed", "files"), ==, c->failed);
    }
  if (c->exit_status != 3)
    g_assert_cmpint (report_total (&r, "copied", "files"), ==, counts.n_new_complete);
  else
    g_assert_cmpuint (report_n_errors (&r), <=, 4);
  rerun_converges (f);
}

/* ---- Kills ------------------------------------------------------------------------- */

/* SIGKILL at @n evenly spread moments of a copy slowed by the shim, then a
 * rerun: nothing partial under a final name, the rerun converges and removes
 * every temporary. */
static void
test_kill (Fixture       *f,
           gconstpointer  data)
{
  guint n = GPOINTER_TO_UINT (data);
  g_autofree char *pattern = g_strconcat ("CSFAULT_PATH=", f->root, "/out/*", NULL);
  const char *env[] = { pattern, "CSFAULT_OP=write,copy_file_range", "CSFAULT_DELAY_US=3000", NULL };
  CsKillPlan plan;
  guint delay_ms;
  double total_ms;

  if (!need_shim ())
    return;
  for (guint i = 0; i < 60; i++)
    {
      g_autofree char *p = g_strdup_printf ("%s/f%02u", f->src, i);
      write_pattern (p, 20000 + i * 1000, i, 0644);
    }
  watch (f);

  /* A timed run under the same delays first: the kills spread over its length. */
  {
    How how = { env, TRUE };
    g_auto(Result) r = { 0 };

    run_copy (f, &how, &r, "--threads=4", f->src, f->out, NULL);
    g_assert_cmpint (r.status, ==, 0);
    cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
    total_ms = r.seconds * 1000.0;
    cs_test_tree_remove (f->copy);
  }

  /* @n kills spread over the timed run, then closing in (cs-kill-plan.h). */
  cs_kill_plan_init (&plan, n);
  while (cs_kill_plan_next (&plan, (guint) (total_ms * (plan.k + 1) / (n + 1)), &delay_ms))
    {
      g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_SILENCE);
      g_autoptr(GSubprocess) process = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *asan_options = asan_options_for_preload ();
      CsOracleCounts c;
      GPid pid;

      for (guint e = 0; env[e] != NULL; e++)
        {
          g_auto(GStrv) kv = g_strsplit (env[e], "=", 2);
          g_subprocess_launcher_setenv (launcher, kv[0], kv[1], TRUE);
        }
      g_subprocess_launcher_setenv (launcher, "LD_PRELOAD", shim, TRUE);
      g_subprocess_launcher_setenv (launcher, "ASAN_OPTIONS", asan_options, TRUE);
      g_subprocess_launcher_set_child_setup (launcher, child_setup, NULL, NULL);
      child_nofile = 0;
      process = g_subprocess_launcher_spawn (launcher, &error, cli, "copy", "-q", "--no-history",
                                             "--no-flush", "--threads=4", f->src, f->out, NULL);
      g_assert_no_error (error);
      pid = (GPid) g_ascii_strtoll (g_subprocess_get_identifier (process), NULL, 10);
      g_usleep (delay_ms * 1000);
      kill (-pid, SIGKILL);
      g_assert_true (g_subprocess_wait (process, NULL, NULL));

      c = cs_oracle_check (f->oracle, CS_ORACLE_ALLOW_TEMP);
      g_test_message ("SIGKILL after %u ms: %u COMPLETE, %u TEMP, %u ABSENT", delay_ms,
                      c.n[CS_ORACLE_COMPLETE], c.n[CS_ORACLE_TEMP], c.n[CS_ORACLE_ABSENT]);
      cs_kill_plan_landed (&plan, delay_ms,
                           g_subprocess_get_if_signaled (process)
                           && (c.n[CS_ORACLE_TEMP] > 0
                               || (c.n[CS_ORACLE_COMPLETE] > 0 && c.n[CS_ORACLE_ABSENT] > 0))
                           ? CS_KILL_MID
                           : !g_subprocess_get_if_signaled (process) || c.n[CS_ORACLE_ABSENT] == 0
                           ? CS_KILL_TOO_LATE : CS_KILL_TOO_EARLY);
      rerun_converges (f);
      cs_test_tree_remove (f->copy);
    }
  /* Otherwise the kills proved nothing: every one came before or after the copy. */
  g_test_message ("%u of %u kills landed mid-copy", plan.mid, plan.k);
  g_assert_cmpuint (plan.mid, >=, 1);
}

/* ---- Refusals: nothing is written ------------------------------------------------ */

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

static void
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

/* ---- Permissions, as nobody ------------------------------------------------------- */

static gboolean
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

static void
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

static void
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

static void
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
static void
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

static void
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
static void
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

static void
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

static void
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

static void
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
static void
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
static void
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
static void
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

/* Starts "copyscope-cli copy --no-history --no-flush ARGS…" in a session of
 * its own, under the shim with @env when given; stdout and stderr go to
 * @out and @err. */
static GSubprocess *
launch_copy (const char * const *env,
             const char         *out,
             const char         *err,
             GPid               *out_pid,
             const char         *first,
             ...) G_GNUC_NULL_TERMINATED;

static GSubprocess *
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

static void
on_waited (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_subprocess_wait_finish (G_SUBPROCESS (object), result, NULL);
  *(gboolean *) user_data = TRUE;
}

static gboolean
on_wait_timeout (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Waits for @process at most @seconds, then kills its group: a hang fails. */
static int
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

static char *
read_text (const char *path)
{
  char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return g_strdup ("");
  return text;
}

/* Lines of @text (the last one may lack its newline). */
static guint
text_lines (const char *text)
{
  guint n = 0;

  for (const char *p = text; *p != '\0'; p++)
    n += *p == '\n';
  return n + (text[0] != '\0' && text[strlen (text) - 1] != '\n');
}

/* 400 files of 20 kB in four folders: enough to be caught mid-copy. */
static void
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

/* ---- What -q and the failure list say --------------------------------------------- */

/* -q hides the progress line and the summary, never a failure: the README
 * promises every failure on stderr. */
static void
test_quiet_lists_failures (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *pattern = g_strconcat ("CSFAULT_PATH=", f->src, "/b.bin", NULL);
  const char *env[] = { pattern, "CSFAULT_OP=openat", "CSFAULT_ERRNO=EACCES", NULL };
  How how = { env, TRUE };
  g_auto(Result) r = { 0 };

  if (!need_shim ())
    return;
  make_small_tree (f);
  watch (f);
  run_copy (f, &how, &r, "-q", f->src, f->out, NULL);

  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (report_error (&r, "b.bin"));
  g_assert_nonnull (strstr (r.err, "b.bin"));
  g_assert_nonnull (strstr (r.err, "Permission denied"));
  /* Nothing else: no summary. */
  g_assert_cmpuint (text_lines (r.err), ==, 1);
  g_assert_null (strstr (r.out, "Files :"));
  g_assert_null (strstr (r.err, "Files :"));
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
}

/* How a name is written in the failure list on stderr: bytes that are not
 * UTF-8 and control characters as \xHH (a newline as \n, a backslash as \\),
 * so every name takes one line and two names never read alike. */
static char *
escaped (const char *name)
{
  GString *out = g_string_new (NULL);
  const char *p = name;

  while (*p != '\0')
    {
      gunichar c = g_utf8_get_char_validated (p, -1);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          g_string_append_printf (out, "\\x%02x", (guchar) *p);
          p++;
          continue;
        }
      if (c == '\\')
        g_string_append (out, "\\\\");
      else if (c == '\n')
        g_string_append (out, "\\n");
      else if (c == '\t')
        g_string_append (out, "\\t");
      else if (c < 0x20 || c == 0x7f)
        g_string_append_printf (out, "\\x%02x", c);
      else
        g_string_append_unichar (out, c);
      p = g_utf8_next_char (p);
    }
  return g_string_free (out, FALSE);
}

/* Names that are not UTF-8, or hold a newline, fail: stderr lists each on a
 * line of its own, told apart, and the JSON record keeps them apart too. */
static void
test_failed_names_exact (Fixture       *f,
                         gconstpointer  data)
{
  const char *names[] = { "bad-\xff", "bad-\xfe", "new\nline", "back\\slash" };
  g_autofree char *pattern = g_strconcat ("CSFAULT_PATH=", f->src, "/bad-*|", f->src, "/new*|",
                                          f->src, "/back*", NULL);
  const char *env[] = { pattern, "CSFAULT_OP=openat", "CSFAULT_ERRNO=EACCES", NULL };
  How how = { env, TRUE };
  g_auto(Result) r = { 0 };
  g_autoptr(GHashTable) shown = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  JsonArray *errors;

  if (!need_shim ())
    return;
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *p = g_build_filename (f->src, names[i], NULL);
      write_pattern (p, 100 + i, i, 0644);
    }
  watch (f);
  run_copy (f, &how, &r, "-q", f->src, f->out, NULL);

  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpuint (text_lines (r.err), ==, G_N_ELEMENTS (names));
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *full = g_build_filename (f->src, names[i], NULL);
      g_autofree char *line = escaped (full);
      g_autofree char *prefix = g_strconcat (line, ": ", NULL);

      g_test_message ("expecting a line starting with %s", prefix);
      g_assert_true (g_str_has_prefix (r.err, prefix) || strstr (r.err, prefix) != NULL);
      g_assert_nonnull (report_error (&r, names[i]));
    }
  /* Two names that differ only in bytes that are not UTF-8 read apart in "path". */
  errors = json_object_get_array_member (json_node_get_object (r.report), "errors");
  for (guint i = 0; i < json_array_get_length (errors); i++)
    {
      JsonObject *e = json_array_get_object_element (errors, i);

      g_hash_table_add (shown, g_strdup (json_object_get_string_member (e, "path")));
    }
  g_assert_cmpuint (g_hash_table_size (shown), ==, G_N_ELEMENTS (names));
}

/* ---- Files whose size says nothing: /proc and /sys ------------------------------- */

/* A pseudo-filesystem's file reports size 0 (procfs) or a page (sysfs) and
 * holds what reading it gives. cp reads to the end; so must we, and say
 * nothing went wrong. */
static void
test_pseudo_files (Fixture       *f,
                   gconstpointer  data)
{
  const char *candidates[] = {
    "/proc/version", "/proc/sys/kernel/ostype", "/sys/devices/system/cpu/possible",
    "/sys/kernel/mm/transparent_hugepage/enabled", "/sys/power/state",
  };
  g_auto(Result) r = { 0 };
  guint tried = 0;

  for (guint i = 0; i < G_N_ELEMENTS (candidates); i++)
    {
      g_autofree char *expected = NULL;
      g_autofree char *got = NULL;
      g_autofree char *base = g_path_get_basename (candidates[i]);
      g_autofree char *copy = g_build_filename (f->out, base, NULL);
      gsize expected_len = 0, got_len = 0;
      struct stat st;

      if (stat (candidates[i], &st) != 0 || !g_file_get_contents (candidates[i], &expected, &expected_len, NULL)
          || expected_len == 0)
        continue;
      g_test_message ("%s: size %" G_GINT64_FORMAT ", %" G_GSIZE_FORMAT " bytes read",
                      candidates[i], (gint64) st.st_size, expected_len);
      run_copy (f, NULL, &r, candidates[i], f->out, NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_assert_cmpuint (report_n_errors (&r), ==, 0);
      g_assert_true (g_file_get_contents (copy, &got, &got_len, NULL));
      g_assert_cmpmem (got, got_len, expected, expected_len);
      g_assert_cmpint (report_total (&r, "copied", "bytes"), ==, (gint64) expected_len);
      tried++;
    }
  if (tried == 0)
    g_test_skip ("no readable file in /proc or /sys here");
}

/* ---- The destination going away ------------------------------------------------------ */

/* Whether a folder of @copy holds an entry yet, within @seconds. */
static gboolean
wait_for_copy_started (const char *copy,
                       guint       seconds)
{
  gint64 deadline = g_get_monotonic_time () + seconds * G_USEC_PER_SEC;

  while (g_get_monotonic_time () < deadline)
    {
      GDir *top = g_dir_open (copy, 0, NULL);
      const char *name;
      gboolean started = FALSE;

      while (top != NULL && !started && (name = g_dir_read_name (top)) != NULL)
        {
          g_autofree char *sub = g_build_filename (copy, name, NULL);
          GDir *dir = g_dir_open (sub, 0, NULL);

          started = dir != NULL && g_dir_read_name (dir) != NULL;
          g_clear_pointer (&dir, g_dir_close);
        }
      g_clear_pointer (&top, g_dir_close);
      if (started)
        return TRUE;
      g_usleep (G_USEC_PER_SEC / 100);
    }

  return FALSE;
}

/* The copy's folder is deleted while it is written: exit 3, one clear error
 * (the README's promise for a destination that became unusable), not a line
 * per file still to come. */
static void
test_destination_folder_removed (Fixture       *f,
                                 gconstpointer  data)
{
  g_autofree char *pattern = g_strconcat ("CSFAULT_PATH=", f->root, "/out/*", NULL);
  const char *env[] = { pattern, "CSFAULT_OP=write,copy_file_range", "CSFAULT_DELAY_US=20000", NULL };
  g_autofree char *out = path_in (f, "stdout");
  g_autofree char *err = path_in (f, "stderr");
  g_autofree char *text = NULL;
  g_autoptr(GSubprocess) process = NULL;
  GPid pid;
  int status;

  if (!need_shim ())
    return;
  make_wide_tree (f);
  process = launch_copy (env, out, err, &pid, "--threads=4", f->src, f->out, NULL);
  /* Removed once the copy writes into it: a fixed wait came before the copy
   * had begun on a busy machine, and nothing was removed. */
  g_assert_true (wait_for_copy_started (f->copy, 30));
  cs_test_tree_remove (f->copy);
  status = wait_bounded (process, pid, 30);
  text = read_text (err);
  g_test_message ("exit %d, stderr:\n%.2000s", status, text);
  g_assert_cmpint (status, ==, 3);
  g_assert_cmpuint (text_lines (text), <=, 2);
  g_assert_nonnull (strstr (text, "removed"));
}

/* ---- Signals ---------------------------------------------------------------------- */

/* An ssh session that drops sends SIGHUP: a clean stop like SIGINT and
 * SIGTERM, with the summary and no temporary left. */
static void
test_sighup (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *pattern = g_strconcat ("CSFAULT_PATH=", f->root, "/out/*", NULL);
  const char *env[] = { pattern, "CSFAULT_OP=write,copy_file_range", "CSFAULT_DELAY_US=20000", NULL };
  g_autofree char *out = path_in (f, "stdout");
  g_autofree char *err = path_in (f, "stderr");
  g_autofree char *summary = NULL;
  g_autoptr(GSubprocess) process = NULL;
  CsOracleCounts c;
  GPid pid;
  int status;

  if (!need_shim ())
    return;
  make_wide_tree (f);
  /* Replacements are written to named temporaries: the ones a kill would leave. */
  g_assert_cmpint (g_mkdir (f->copy, 0755), ==, 0);
  for (guint d = 0; d < 4; d++)
    {
      g_autofree char *dir = g_strdup_printf ("%s/d%u", f->copy, d);

      g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
      for (guint i = 0; i < 100; i += 2)
        {
          g_autofree char *p = g_strdup_printf ("%s/f%03u", dir, i);
          struct timespec older[2] = { { 1500000000, 0 }, { 1500000000, 0 } };

          write_pattern (p, 100, 1000 + i, 0644);
          g_assert_cmpint (utimensat (AT_FDCWD, p, older, 0), ==, 0);
        }
    }
  watch (f);
  process = launch_copy (env, out, err, &pid, "--threads=4", f->src, f->out, NULL);
  /* Once it writes, its handlers are in place: a SIGHUP before them ends it
   * by the default action (exit 129, seen at load 19). */
  {
    gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

    while (cs_test_tree_find_temporaries (f->out) == 0 && g_get_monotonic_time () < deadline)
      g_usleep (G_USEC_PER_SEC / 100);
    g_assert_cmpuint (cs_test_tree_find_temporaries (f->out), >, 0);
  }
  g_assert_cmpint (kill (pid, SIGHUP), ==, 0);
  status = wait_bounded (process, pid, 10);
  summary = read_text (out);
  g_test_message ("exit %d after SIGHUP; stdout:\n%s", status, summary);
  g_assert_cmpint (status, ==, 130);
  g_assert_nonnull (strstr (summary, "Files :"));
  c = cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_cmpuint (c.n[CS_ORACLE_TEMP], ==, 0);
  g_assert_cmpuint (cs_test_tree_find_temporaries (f->out), ==, 0);
  rerun_converges (f);
}

/* ---- Counts ---------------------------------------------------------------------- */

/* A fatal stop: the summary says the copy stopped and why, and its counts add
 * up (the files not reached are counted as not copied). */
static void
test_counts_after_fatal_stop (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *mnt = path_in (f, "mnt");
  g_autofree char *copy = NULL;
  g_auto(Result) r = { 0 };
  JsonObject *totals, *stopped;
  gint64 total, accounted;

  if (geteuid () != 0)
    {
      g_test_skip ("needs root to mount a small tmpfs");
      return;
    }
  g_assert_cmpint (g_mkdir (mnt, 0755), ==, 0);
  if (mount ("tmpfs", mnt, "tmpfs", 0, "size=1m") != 0)
    {
      g_test_skip_printf ("cannot mount tmpfs: %s", g_strerror (errno));
      return;
    }
  f->mnt = g_strdup (mnt);
  for (guint i = 0; i < 40; i++)
    {
      g_autofree char *p = g_strdup_printf ("%s/f%02u", f->src, i);
      write_pattern (p, 200000, i, 0644);
    }
  copy = g_build_filename (mnt, "src", NULL);
  f->oracle = cs_oracle_new ();
  cs_oracle_add_pair (f->oracle, f->src, copy);
  run_copy (f, NULL, &r, "--threads=1", f->src, mnt, NULL);

  g_assert_cmpint (r.status, ==, 3);
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_nonnull (strstr (r.out, "Stopped"));
  g_assert_nonnull (strstr (r.out, "full"));
  totals = json_object_get_object_member (json_node_get_object (r.report), "totals");
  g_assert_true (json_object_has_member (totals, "not_copied"));
  stopped = json_object_get_object_member (totals, "not_copied");
  total = report_total (&r, "total", "files");
  accounted = report_total (&r, "copied", "files") + report_total (&r, "skipped", "files")
              + report_total (&r, "mismatch", "files") + report_total (&r, "failed", "files")
              + json_object_get_int_member (stopped, "files");
  g_test_message ("%" G_GINT64_FORMAT " found, %" G_GINT64_FORMAT " accounted for", total, accounted);
  /* The scan may not have listed every file when the disk filled (under
   * ASan, 35 of 40 were found): what it found is what the counts cover. */
  g_assert_cmpint (total, <=, 40);
  g_assert_cmpint (accounted, ==, total);
  g_assert_cmpint (json_object_get_int_member (stopped, "files"), >, 0);
}

/* A folder source that cannot be entered fails as a folder, not as a file. */
static void
test_counts_failed_folder (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *locked = path_in (f, "out/locked");
  g_autofree char *target = path_in (f, "out/locked/new");
  g_auto(Result) r = { 0 };
  How how = { NULL, FALSE, TRUE };
  uid_t uid;
  gid_t gid;

  if (!can_drop_privileges (&uid, &gid))
    return;
  make_small_tree (f);
  /* nobody may create in it, but not list it. */
  g_assert_cmpint (g_mkdir (locked, 0333), ==, 0);
  g_assert_cmpint (g_chmod (locked, 0333), ==, 0);
  run_copy (f, &how, &r, f->src, target, NULL);
  g_test_message ("failed: %" G_GINT64_FORMAT " dirs, %" G_GINT64_FORMAT " files",
                  report_total (&r, "failed", "dirs"), report_total (&r, "failed", "files"));
  g_assert_cmpint (r.status, !=, 0);
  if (r.status == 1)
    {
      g_assert_cmpint (report_total (&r, "failed", "files"), ==, 0);
      g_assert_cmpint (report_total (&r, "failed", "dirs"), ==, 1);
    }
}

/* A skip says where the newer file is: the destination's path, which exists. */
static void
test_counts_skip_names_destination (Fixture       *f,
                                    gconstpointer  data)
{
  g_autofree char *one = g_build_filename (f->src, "a.txt", NULL);
  g_autofree char *target = path_in (f, "out/renamed.txt");
  g_auto(Result) r = { 0 };
  JsonObject *e;
  struct timespec future[2] = { { 2000000000, 0 }, { 2000000000, 0 } };
  const char *path;

  make_small_tree (f);
  write_pattern (target, 10, 77, 0644);
  g_assert_cmpint (utimensat (AT_FDCWD, target, future, 0), ==, 0);
  run_copy (f, NULL, &r, one, target, NULL);
  g_assert_cmpint (r.status, ==, 0);
  e = report_error (&r, "renamed.txt");
  g_assert_nonnull (e);
  path = json_object_get_string_member (e, "path");
  g_test_message ("skip reported for %s", path);
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_cmpstr (path, ==, target);
}

/* Out of quota is not "full": the user can do something else about it. */
static void
test_counts_edquot_wording (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *pattern = g_strconcat ("CSFAULT_PATH=", f->root, "/out/*", NULL);
  const char *env[] = { pattern, "CSFAULT_OP=write,copy_file_range", "CSFAULT_ERRNO=EDQUOT", NULL };
  How how = { env, TRUE };
  g_auto(Result) r = { 0 };

  if (!need_shim ())
    return;
  make_small_tree (f);
  watch (f);
  run_copy (f, &how, &r, "-q", f->src, f->out, NULL);
  g_assert_cmpint (r.status, ==, 3);
  g_assert_nonnull (strstr (r.err, "quota"));
  g_assert_null (strstr (r.err, "full"));
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
}

/* The record and the samples cannot both go to stdout: nobody could read it. */
static void
test_counts_one_stdout (Fixture       *f,
                        gconstpointer  data)
{
  g_auto(Result) r = { 0 };

  make_small_tree (f);
  watch (f);
  run_copy (f, NULL, &r, "--json", "-", "--csv", "-", f->src, f->out, NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "stdout"));
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "a.txt"), ==, CS_ORACLE_ABSENT);
}

/* Two identical copies started together into the same place: both succeed,
 * the tree is the source's, and neither reports the files the other copied
 * identically as failures. Some files are replacements and there are
 * symlinks, so named temporaries are in flight. */
static void
test_two_identical_runs (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *pattern = g_strconcat ("CSFAULT_PATH=", f->root, "/out/*", NULL);
  const char *env[] = { pattern, "CSFAULT_OP=write,copy_file_range", "CSFAULT_DELAY_US=4000", NULL };

  if (!need_shim ())
    return;
  for (guint round = 0; round < 3; round++)
    {
      g_autofree char *out_a = path_in (f, "a.out");
      g_autofree char *err_a = path_in (f, "a.err");
      g_autofree char *out_b = path_in (f, "b.out");
      g_autofree char *err_b = path_in (f, "b.err");
      g_autofree char *json_a = path_in (f, "report/a.json");
      g_autofree char *json_b = path_in (f, "report/b.json");
      g_autofree char *text_a = NULL;
      g_autofree char *text_b = NULL;
      g_autoptr(GSubprocess) a = NULL;
      g_autoptr(GSubprocess) b = NULL;
      GPid pid_a, pid_b;
      int status_a, status_b;

      if (round == 0)
        {
          make_wide_tree (f);
          for (guint i = 0; i < 50; i++)
            {
              g_autofree char *link = g_strdup_printf ("%s/d0/link%02u", f->src, i);
              g_autofree char *target = g_strdup_printf ("f%03u", i);
              g_assert_cmpint (symlink (target, link), ==, 0);
            }
        }
      cs_test_tree_remove (f->copy);
      if (round > 0)
        {
          /* Older versions of some files: replaced through named temporaries. */
          g_autofree char *d1 = g_build_filename (f->copy, "d1", NULL);

          g_assert_cmpint (g_mkdir_with_parents (d1, 0755), ==, 0);
          for (guint i = 0; i < 100; i += 3)
            {
              g_autofree char *p = g_strdup_printf ("%s/f%03u", d1, i);
              struct timespec older[2] = { { 1500000000, 0 }, { 1500000000, 0 } };

              write_pattern (p, 50, 5000 + i, 0644);
              g_assert_cmpint (utimensat (AT_FDCWD, p, older, 0), ==, 0);
            }
        }
      watch (f);
      /* Slowed, and the second started once the first is writing: it finds
       * the first one's temporaries in flight in the folders it enters. */
      a = launch_copy (env, out_a, err_a, &pid_a, "--threads=4", "--json", json_a, f->src, f->out, NULL);
      if (round > 0)
        g_usleep (G_USEC_PER_SEC / 4);
      b = launch_copy (env, out_b, err_b, &pid_b, "--threads=4", "--json", json_b, f->src, f->out, NULL);
      status_a = wait_bounded (a, pid_a, 60);
      status_b = wait_bounded (b, pid_b, 60);
      text_a = read_text (err_a);
      text_b = read_text (err_b);
      g_test_message ("round %u: exit %d and %d; stderr:\n%.1500s\n--\n%.1500s", round, status_a,
                      status_b, text_a, text_b);
      g_assert_cmpint (status_a, ==, 0);
      g_assert_cmpint (status_b, ==, 0);
      g_assert_null (strstr (text_a, "Another program"));
      g_assert_null (strstr (text_b, "Another program"));
      cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
    }
}

/* ---- Resources ---------------------------------------------------------------------- */

/* 64 descriptors, soft and hard, and 128 threads: the engine must fit. */
static void
test_few_descriptors (Fixture       *f,
                      gconstpointer  data)
{
  How how = { NULL, FALSE, FALSE, 64 };
  g_auto(Result) r = { 0 };

  for (guint d = 0; d < 8; d++)
    for (guint i = 0; i < 100; i++)
      {
        g_autofree char *dir = g_strdup_printf ("%s/d%u", f->src, d);
        g_autofree char *p = g_strdup_printf ("%s/f%03u", dir, i);

        g_mkdir (dir, 0755);
        write_pattern (p, 1000 + i * 37, i, 0644);
      }
  watch (f);
  run_copy (f, &how, &r, "--threads=128", f->src, f->out, NULL);
  if (r.report != NULL && report_n_errors (&r) > 0)
    {
      JsonArray *errors = json_object_get_array_member (json_node_get_object (r.report), "errors");
      JsonObject *first = json_array_get_object_element (errors, 0);

      g_test_message ("with 64 descriptors and 128 threads: %u errors, the first: %s: %s: %s",
                      report_n_errors (&r), json_object_get_string_member (first, "path"),
                      json_object_get_string_member (first, "operation"),
                      json_object_get_string_member (first, "message"));
    }
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  /* The engine budgets its descriptors: every folder and file makes it. */
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpuint (report_n_errors (&r), ==, 0);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
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
