/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include "test-fault-cli.h"

/* Two identical runs at once, and 128 threads with 64 descriptors. */

/* Two identical copies started together into the same place: both succeed,
 * the tree is the source's, and neither reports the files the other copied
 * identically as failures. Some files are replacements and there are
 * symlinks, so named temporaries are in flight. */
void
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
void
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
