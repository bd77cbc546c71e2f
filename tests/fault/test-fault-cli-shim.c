/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include "test-fault-cli.h"

/* Faults injected into the unmodified CLI through the LD_PRELOAD shim, and
 * SIGKILL at random moments. */

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

void
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
void
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
