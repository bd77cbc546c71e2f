/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include "test-fault-cli.h"

/* A destination folder removed mid-copy, SIGHUP, and the counts after each
 * way a run stops or skips. */

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
void
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
void
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
void
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
  /* At 4 MB/s the disk fills after about a quarter of a second, by when the
   * scanner has found all 40 files even under ASan on a busy machine (once
   * it found only 6, all of them reached, and none was left "not copied"). */
  run_copy (f, NULL, &r, "--threads=1", "--max-rate=4M", f->src, mnt, NULL);

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
  g_assert_cmpint (total, ==, 40);
  g_assert_cmpint (accounted, ==, total);
  g_assert_cmpint (json_object_get_int_member (stopped, "files"), >, 0);
}

/* A folder source that cannot be entered fails as a folder, not as a file. */
void
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
void
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
void
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
void
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
