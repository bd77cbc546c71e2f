/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include "test-fault-cli.h"

/* What the CLI says: -q still listing failures, names exact to the byte,
 * files whose size says nothing (/proc, /sys). */

/* -q hides the progress line and the summary, never a failure: the README
 * promises every failure on stderr. */
void
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
void
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
void
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
