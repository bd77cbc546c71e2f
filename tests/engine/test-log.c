/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "copyscope-engine.h"
#include "cs-test-tree.h"

/*
 * The per-file log: one line per item with the right action and reason, and
 * names written so that any bytes come back exactly (the escaping itself:
 * test-text.c).
 */

typedef struct {
  char    *action;
  guint64  bytes;
  char    *path;          /* unescaped */
  char    *why;
} Line;

static void
line_free (gpointer data)
{
  Line *l = data;

  g_free (l->action);
  g_free (l->path);
  g_free (l->why);
  g_free (l);
}

/* The log's lines keyed by base name; each name must appear once. */
static GHashTable *
read_log (const char *path)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  GHashTable *out = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, line_free);

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_true (g_utf8_validate (text, -1, NULL));
  g_assert_true (text[0] == '\0' || g_str_has_suffix (text, "\n"));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++)
    {
      g_auto(GStrv) f = g_strsplit (lines[i], "\t", -1);
      g_autoptr(GError) error = NULL;
      Line *l = g_new0 (Line, 1);
      g_autofree char *base = NULL;
      guint n = g_strv_length (f);

      g_assert_cmpuint (n, >=, 3);
      g_assert_cmpuint (n, <=, 4);
      l->action = g_strdup (f[0]);
      g_assert_true (g_ascii_string_to_unsigned (f[1], 10, 0, G_MAXUINT64, &l->bytes, NULL));
      l->path = cs_text_unescape (f[2], &error);
      g_assert_no_error (error);
      l->why = n == 4 ? cs_text_unescape (f[3], &error) : NULL;
      g_assert_no_error (error);
      base = g_path_get_basename (l->path);
      g_assert_false (g_hash_table_contains (out, base));
      g_hash_table_insert (out, g_steal_pointer (&base), l);
    }
  return out;
}

static void
write_file (const char *path,
            gsize       size,
            time_t      mtime)
{
  g_autofree char *data = g_malloc0 (MAX (size, 1));
  g_autoptr(GError) error = NULL;
  struct timespec ts[2] = { { mtime, 0 }, { mtime, 0 } };

  memset (data, 'x', size);
  g_file_set_contents (path, data, (gssize) size, &error);
  g_assert_no_error (error);
  g_assert_cmpint (utimensat (AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW), ==, 0);
}

static GHashTable *
copy_with_log (const char *src,
               const char *out,
               const char *log_path)
{
  g_autoptr(CsJob) job = cs_job_new ();
  g_autoptr(GError) error = NULL;
  int fd = open (log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

  g_assert_cmpint (fd, >=, 0);
  cs_job_add_source (job, src);
  cs_job_set_destination (job, out);
  cs_job_set_threads (job, 3, NULL);
  cs_job_set_interval (job, 0);
  cs_job_set_flush (job, FALSE);
  cs_job_set_log_fd (job, fd);
  cs_job_run_sync (job, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (close (fd), ==, 0);
  return read_log (log_path);
}

static void
assert_line (GHashTable *log,
             const char *base,
             const char *action,
             guint64     bytes,
             const char *why_part)
{
  Line *l = g_hash_table_lookup (log, base);

  if (l == NULL)
    g_error ("no line for “%s”", base);
  g_assert_cmpstr (l->action, ==, action);
  g_assert_cmpuint (l->bytes, ==, bytes);
  if (why_part == NULL)
    g_assert_null (l->why);
  else
    {
      g_assert_nonnull (l->why);
      if (strstr (l->why, why_part) == NULL)
        g_error ("“%s”: “%s” does not say “%s”", base, l->why, why_part);
    }
}

static void
test_lines (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *src = g_build_filename (root, "src", NULL);
  g_autofree char *out = g_build_filename (root, "out", NULL);
  g_autofree char *log_path = g_build_filename (root, "log.txt", NULL);
  const char *names[] = { "plain.txt", "tab\there", "new\nline", "bad-\xff\xfe-utf8", "back\\slash" };
  g_autoptr(GHashTable) first = NULL;
  g_autoptr(GHashTable) second = NULL;
  g_autofree char *p = NULL;

#define SRC(rel) (g_free (p), p = g_build_filename (src, rel, NULL))
#define OUT(rel) (g_free (p), p = g_build_filename (out, "src", rel, NULL))
  g_assert_cmpint (g_mkdir (src, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (out, 0755), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    write_file (SRC (names[i]), 100 + i, 1600000000);
  write_file (SRC ("newer-there"), 50, 1600000000);
  write_file (SRC ("folder-there"), 60, 1600000000);
  g_assert_cmpint (symlink ("plain.txt", SRC ("link")), ==, 0);
  g_assert_cmpint (mkfifo (SRC ("fifo"), 0644), ==, 0);

  first = copy_with_log (src, out, log_path);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      Line *l = g_hash_table_lookup (first, names[i]);
      g_autofree char *expected = g_build_filename (src, names[i], NULL);

      assert_line (first, names[i], "copied", 100 + i, NULL);
      /* The exact bytes of the name, whatever they are. */
      g_assert_true (g_str_has_suffix (l->path, expected + strlen (root)));
    }
  assert_line (first, "link", "copied", 0, NULL);
  /* FIFOs are recreated, as cp -a does. */
  assert_line (first, "fifo", "copied", 0, NULL);

  /* Again, after making the destination differ in two ways. */
  write_file (OUT ("newer-there"), 51, 1700000000);
  g_assert_cmpint (g_unlink (OUT ("folder-there")), ==, 0);
  g_assert_cmpint (g_mkdir (OUT ("folder-there"), 0755), ==, 0);
  write_file (SRC ("plain.txt"), 200, 1650000000);
  second = copy_with_log (src, out, log_path);
  assert_line (second, "plain.txt", "replaced", 200, NULL);
  assert_line (second, "tab\there", "skipped", 101, "identical");
  assert_line (second, "newer-there", "skipped", 50, "newer");
  assert_line (second, "folder-there", "failed", 60, "folder");
  g_assert_cmpuint (g_hash_table_size (second), ==, g_hash_table_size (first));
#undef SRC
#undef OUT

  cs_test_tree_remove (root);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/log/lines", test_lines);

  return g_test_run ();
}
