/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "cs-test-tree.h"

/*
 * Checksum manifests (copy --manifest, copyscope-cli check) against the
 * standard tools that must read them: xxhsum -c --strict (a line it cannot
 * read fails it) and sha256sum -c --strict.
 */

static const char *cli;

typedef struct {
  int   status;
  char *out;
  char *err;
} Result;

static void
result_clear (Result *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Result, result_clear)

/* Runs @argv in @cwd (NULL: here) to its end. */
static void
run_at (Result      *r,
        const char  *cwd,
        const char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *command = g_strjoinv (" ", (char **) argv);
  int wait_status = 0;

  result_clear (r);
  g_spawn_sync (cwd, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &r->out, &r->err,
                &wait_status, &error);
  g_assert_no_error (error);
  r->status = WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : 128 + WTERMSIG (wait_status);
  {
    /* The TAP reader takes only UTF-8: names that are not are made so. */
    g_autofree char *shown_command = g_utf8_make_valid (command, -1);
    g_autofree char *shown_out = g_utf8_make_valid (r->out, MIN (strlen (r->out), 4000));
    g_autofree char *shown_err = g_utf8_make_valid (r->err, MIN (strlen (r->err), 4000));

    g_test_message ("%s: exit %d\nstdout:\n%s\nstderr:\n%s", shown_command, r->status, shown_out, shown_err);
  }
}

static void
run_cli (Result     *r,
         const char *first,
         ...) G_GNUC_NULL_TERMINATED;

static void
run_cli (Result     *r,
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
  run_at (r, NULL, (const char **) argv->pdata);
}

typedef struct {
  char *tmp;
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
  cs_test_tree_remove (f->tmp);
  g_free (f->tmp);
}

static char *
path_in (Fixture    *f,
         const char *rel)
{
  return g_build_filename (f->tmp, rel, NULL);
}

static void
write_bytes (const char *path,
             gsize       size,
             guint32     seed)
{
  g_autofree guint8 *data = g_malloc (MAX (size, 1));
  g_autoptr(GError) error = NULL;
  GRand *rand = g_rand_new_with_seed (seed);

  for (gsize i = 0; i < size; i++)
    data[i] = (guint8) g_rand_int (rand);
  g_rand_free (rand);
  g_file_set_contents (path, (const char *) data, (gssize) size, &error);
  g_assert_no_error (error);
}

/* @n files in nested folders, 0 to 200 kB, and a few empty ones. */
static void
make_tree (const char *root,
           guint       n)
{
  g_assert_cmpint (g_mkdir_with_parents (root, 0755), ==, 0);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *folder = g_strdup_printf ("%s/d%u/e%u", root, i % 7, i % 3);
      g_autofree char *file = g_strdup_printf ("%s/f%u.bin", folder, i);

      g_assert_cmpint (g_mkdir_with_parents (folder, 0755), ==, 0);
      write_bytes (file, i % 10 == 0 ? 0 : (gsize) g_random_int_range (1, 200000), i + 1);
    }
}

/* Lines of @path (its final newline not counted as an empty line). */
static guint
count_lines (const char *path)
{
  g_autofree char *text = NULL;
  guint n = 0;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  for (const char *p = text; *p != '\0'; p++)
    n += *p == '\n';
  return n;
}

static JsonObject *
manifest_record (JsonParser *parser,
                 const char *json_path)
{
  g_autoptr(GError) error = NULL;
  JsonObject *root;

  json_parser_load_from_file (parser, json_path, &error);
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_true (json_object_has_member (root, "manifest"));
  return json_object_get_object_member (root, "manifest");
}

/* A copy of a few hundred files at 8 threads: xxhsum -c --strict in the
 * destination says every file is OK, and so does check; the manifest
 * lists every file but itself. */
static void
test_tree_xxh128 (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *src = path_in (f, "src");
  g_autofree char *dst = path_in (f, "dst");
  g_autofree char *sums = path_in (f, "dst/SUMS.xxh128");
  g_autofree char *json = path_in (f, "run.json");
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_auto(Result) r = { 0 };
  const char *xxhsum[] = { "xxhsum", "-c", "--strict", "SUMS.xxh128", NULL };
  JsonObject *m;

  make_tree (src, 300);
  run_cli (&r, "copy", "--no-history", "--threads", "8", "--manifest", sums, "--json", json, src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpuint (count_lines (sums), ==, 300);
  g_assert_null (strstr (r.out, "SUMS.xxh128  SUMS"));

  run_at (&r, dst, xxhsum);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strstr (r.out, "FAILED"));
  g_assert_null (strstr (r.err, "improperly formatted"));

  run_cli (&r, "check", sums, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "300 listed: 300 match, 0 changed, 0 missing, 0 extra, 0 unreadable"));

  m = manifest_record (parser, json);
  g_assert_cmpstr (json_object_get_string_member (m, "algo"), ==, "xxh128");
  g_assert_cmpint (json_object_get_int_member (m, "files"), ==, 300);
  /* Without --verify the copy moved the bytes in the kernel: read again. */
  g_assert_cmpint (json_object_get_int_member (m, "read_copied"), ==, 300);
  g_assert_cmpint (json_object_get_int_member (m, "from_copy"), ==, 0);
}

/* With --verify, every sum comes from its read-back, SHA-256 too;
 * sha256sum -c --strict agrees. */
static void
test_verify_sha256 (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *src = path_in (f, "src");
  g_autofree char *dst = path_in (f, "dst");
  g_autofree char *sums = path_in (f, "sums.sha256");
  g_autofree char *json = path_in (f, "run.json");
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_auto(Result) r = { 0 };
  const char *sha256sum[] = { "sha256sum", "-c", "--strict", sums, NULL };
  JsonObject *m;

  make_tree (src, 120);
  run_cli (&r, "copy", "--no-history", "--verify", "--manifest", sums, "--manifest-algo", "sha256",
           "--json", json, src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  run_at (&r, dst, sha256sum);
  g_assert_cmpint (r.status, ==, 0);
  m = manifest_record (parser, json);
  g_assert_cmpstr (json_object_get_string_member (m, "algo"), ==, "sha256");
  /* Empty files are not read back; they are read (as nothing) afterwards. */
  g_assert_cmpint (json_object_get_int_member (m, "from_copy"), ==, 108);
  g_assert_cmpint (json_object_get_int_member (m, "read_copied"), ==, 12);

  run_cli (&r, "check", sums, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
}

/* A flipped byte, a removed file and an added file: check reports each
 * (exit 4), and the standard tool the two it can know of. */
static void
test_differences (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *src = path_in (f, "src");
  g_autofree char *dst = path_in (f, "dst");
  g_autofree char *sums = path_in (f, "dst/SUMS");
  g_autofree char *flipped = path_in (f, "dst/d1/e1/f1.bin");
  g_autofree char *removed = path_in (f, "dst/d2/e2/f2.bin");
  g_autofree char *added = path_in (f, "dst/d3/new.txt");
  g_autofree char *json = path_in (f, "check.json");
  g_autofree char *contents = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *root, *totals;
  g_auto(Result) r = { 0 };
  const char *xxhsum[] = { "xxhsum", "-c", "--strict", "SUMS", NULL };
  gsize len;

  make_tree (src, 30);
  run_cli (&r, "copy", "--no-history", "--manifest", sums, src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);

  g_assert_true (g_file_get_contents (flipped, &contents, &len, NULL));
  g_assert_cmpuint (len, >, 0);
  contents[len / 2] ^= 0x01;
  g_assert_true (g_file_set_contents (flipped, contents, (gssize) len, NULL));
  g_assert_cmpint (g_unlink (removed), ==, 0);
  g_assert_true (g_file_set_contents (added, "new\n", -1, NULL));

  run_cli (&r, "check", "--json", json, sums, NULL);
  g_assert_cmpint (r.status, ==, 4);
  g_assert_nonnull (strstr (r.out, "changed    d1/e1/f1.bin\n"));
  g_assert_nonnull (strstr (r.out, "missing    d2/e2/f2.bin\n"));
  g_assert_nonnull (strstr (r.out, "extra      d3/new.txt\n"));
  g_assert_nonnull (strstr (r.out, "30 listed: 28 match, 1 changed, 1 missing, 1 extra, 0 unreadable"));

  /* The check's run record: its classes, each difference listed, samples. */
  json_parser_load_from_file (parser, json, &error);
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (root, "kind"), ==, "check");
  totals = json_object_get_object_member (root, "totals");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (totals, "total"), "files"), ==, 30);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (totals, "copied"), "files"), ==, 28);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (totals, "mismatch"), "files"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (totals, "failed"), "files"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (totals, "extras"), "files"), ==, 1);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (root, "errors")), ==, 3);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (json_object_get_object_member (root, "samples"), "t")), >=, 1);

  run_at (&r, dst, xxhsum);
  g_assert_cmpint (r.status, !=, 0);
  g_assert_nonnull (strstr (r.out, "d1/e1/f1.bin: FAILED"));
  g_assert_nonnull (strstr (r.out, "Could not open or read 'd2/e2/f2.bin'"));
}

/* Names with a newline, a backslash, a carriage return, spaces and bytes
 * that are not UTF-8 come back through check and sha256sum -c. */
static void
test_odd_names (Fixture       *f,
                gconstpointer  data)
{
  static const char *names[] = { "new\nline", "back\\slash", "cr\rname", "two  spaces ", "bad\xff\xfe.bin",
                                 "\\lead", "plain" };
  g_autofree char *src = path_in (f, "src");
  g_autofree char *dst = path_in (f, "dst");
  g_autofree char *sums = path_in (f, "dst/SUMS.sha256");
  g_autofree char *xsums = path_in (f, "SUMS.xxh128");
  g_autofree char *dst2 = path_in (f, "dst2");
  g_autofree char *odd = NULL;
  g_autofree char *text = NULL;
  g_auto(Result) r = { 0 };
  const char *sha256sum[] = { "sha256sum", "-c", "--strict", "SUMS.sha256", NULL };

  g_assert_cmpint (g_mkdir (src, 0755), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (src, names[i], NULL);

      write_bytes (path, 1000 + i, i + 7);
    }
  run_cli (&r, "copy", "--no-history", "--manifest", sums, "--manifest-algo", "sha256", src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_file_get_contents (sums, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "  new\\nline\n"));
  g_assert_nonnull (strstr (text, "  back\\\\slash\n"));
  g_assert_nonnull (strstr (text, "  bad\xff\xfe.bin\n"));

  run_at (&r, dst, sha256sum);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strstr (r.out, "FAILED"));
  run_cli (&r, "check", sums, NULL);
  g_assert_cmpint (r.status, ==, 0);

  /* The same names in XXH128, checked from outside the folder. */
  run_cli (&r, "copy", "--no-history", "--manifest", xsums, src, dst2, NULL);
  g_assert_cmpint (r.status, ==, 0);
  run_cli (&r, "check", xsums, dst2, NULL);
  g_assert_cmpint (r.status, ==, 0);

  /* A change under an escaped name is told under that name. */
  odd = g_build_filename (dst, "new\nline", NULL);
  write_bytes (odd, 1000, 99);
  run_cli (&r, "check", sums, NULL);
  g_assert_cmpint (r.status, ==, 4);
  g_assert_nonnull (strstr (r.out, "changed    new\\nline\n"));
}

/* A rerun with --manifest lists the files it skips, read from the
 * destination, and says how many. */
static void
test_rerun_lists_skipped (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *src = path_in (f, "src");
  g_autofree char *dst = path_in (f, "dst");
  g_autofree char *sums = path_in (f, "dst/SUMS");
  g_autofree char *json = path_in (f, "run.json");
  g_autofree char *changed = path_in (f, "src/d0/e0/f21.bin");
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_auto(Result) r = { 0 };
  const char *xxhsum[] = { "xxhsum", "-c", "--strict", "SUMS", NULL };
  JsonObject *m;

  make_tree (src, 40);
  /* Into an existing folder both times, as cp -r goes: dst/src. */
  g_assert_cmpint (g_mkdir (dst, 0755), ==, 0);
  run_cli (&r, "copy", "--no-history", src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  write_bytes (changed, 5000, 1234);
  run_cli (&r, "copy", "--no-history", "--manifest", sums, "--json", json, src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpuint (count_lines (sums), ==, 40);
  m = manifest_record (parser, json);
  g_assert_cmpint (json_object_get_int_member (m, "read_kept"), ==, 39);
  g_assert_cmpint (json_object_get_int_member (m, "read_copied"), ==, 1);
  g_assert_nonnull (strstr (r.out, "40 files: 0 from the verify pass; read again: 1 copied, 39 already there"));
  /* The report says it as well, from the record alone. */
  run_cli (&r, "report", "--format", "md", json, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "40 files: 0 from the copy; read again: 1 copied, 39 already there"));
  run_at (&r, dst, xxhsum);
  g_assert_cmpint (r.status, ==, 0);
}

/* A kill while the copy writes its manifest leaves none under its name
 * (an older one stays as it was); the rerun writes a complete one and
 * leaves no temporary behind. */
static void
test_kill (Fixture       *f,
           gconstpointer  data)
{
  g_autofree char *src = path_in (f, "src");
  g_autofree char *dst = path_in (f, "dst");
  g_autofree char *lists = path_in (f, "lists");
  g_autofree char *sums = path_in (f, "lists/SUMS");
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(Result) r = { 0 };
  const char *xxhsum[] = { "xxhsum", "-c", "--strict", sums, NULL };
  guint leftovers = 0;
  const char *name;
  GDir *dir;
  int pid;

  make_tree (src, 60);
  g_assert_cmpint (g_mkdir (lists, 0755), ==, 0);
  /* Slowed by a rate limit so the kill lands mid-copy: ~5 MB at 2 MB/s. */
  process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_SILENCE, &error,
                              cli, "copy", "--no-history", "-q", "--max-rate", "2M", "--manifest", sums,
                              src, dst, NULL);
  g_assert_no_error (error);
  /* Killed once the list is being written, however slow the machine. */
  for (guint waited = 0; cs_test_tree_find_temporaries (lists) == 0 && waited < 200; waited++)
    g_usleep (G_USEC_PER_SEC / 10);
  g_usleep (G_USEC_PER_SEC / 2);
  pid = (int) g_ascii_strtoll (g_subprocess_get_identifier (process), NULL, 10);
  g_assert_cmpint (kill (pid, SIGKILL), ==, 0);
  g_subprocess_wait (process, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_signaled (process));

  g_assert_false (g_file_test (sums, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (cs_test_tree_find_temporaries (lists), ==, 1);
  cs_test_tree_assert_partial (src, dst, TRUE);

  run_cli (&r, "copy", "--no-history", "-q", "--manifest", sums, src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpuint (count_lines (sums), ==, 60);
  run_at (&r, dst, xxhsum);
  g_assert_cmpint (r.status, ==, 0);
  dir = g_dir_open (lists, 0, NULL);
  while ((name = g_dir_read_name (dir)) != NULL)
    leftovers += g_str_has_prefix (name, ".copyscope-");
  g_dir_close (dir);
  g_assert_cmpuint (leftovers, ==, 0);
}

/* A move within one filesystem renames every file: each is read once from
 * the destination for the list, which xxhsum -c --strict then agrees with. */
static void
test_move (Fixture       *f,
           gconstpointer  data)
{
  g_autofree char *src = path_in (f, "src");
  g_autofree char *dst = path_in (f, "dst");
  g_autofree char *sums = path_in (f, "dst/SUMS");
  g_autofree char *json = path_in (f, "run.json");
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_auto(Result) r = { 0 };
  const char *xxhsum[] = { "xxhsum", "-c", "--strict", "SUMS", NULL };
  JsonObject *m;

  make_tree (src, 50);
  run_cli (&r, "move", "--no-history", "--manifest", sums, "--json", json, src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_false (g_file_test (src, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (count_lines (sums), ==, 50);
  m = manifest_record (parser, json);
  g_assert_cmpint (json_object_get_int_member (m, "read_copied"), ==, 50);
  run_at (&r, dst, xxhsum);
  g_assert_cmpint (r.status, ==, 0);
}

/* A source that holds a file where the list goes (a copy of a copy made
 * with its list): the list never names itself, and it is what is there at
 * the end. */
static void
test_self (Fixture       *f,
           gconstpointer  data)
{
  g_autofree char *src = path_in (f, "src");
  g_autofree char *old_sums = path_in (f, "src/SUMS");
  g_autofree char *dst = path_in (f, "dst");
  g_autofree char *sums = path_in (f, "dst/SUMS");
  g_autofree char *text = NULL;
  g_auto(Result) r = { 0 };
  const char *xxhsum[] = { "xxhsum", "-c", "--strict", "SUMS", NULL };

  make_tree (src, 20);
  g_assert_true (g_file_set_contents (old_sums, "an older list\n", -1, NULL));
  run_cli (&r, "copy", "--no-history", "--manifest", sums, src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpuint (count_lines (sums), ==, 20);
  g_assert_true (g_file_get_contents (sums, &text, NULL, NULL));
  g_assert_null (strstr (text, "  SUMS\n"));
  run_at (&r, dst, xxhsum);
  g_assert_cmpint (r.status, ==, 0);
}

/* A mirror with its manifest inside the destination: the list does not
 * name itself, and the rerun neither deletes it nor lists it. */
static void
test_mirror (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *src = path_in (f, "src");
  g_autofree char *dst = path_in (f, "dst");
  g_autofree char *sums = path_in (f, "dst/SUMS");
  g_autofree char *extra = path_in (f, "dst/extra.txt");
  g_autofree char *text = NULL;
  g_auto(Result) r = { 0 };
  const char *xxhsum[] = { "xxhsum", "-c", "--strict", "SUMS", NULL };

  make_tree (src, 25);
  run_cli (&r, "mirror", "--no-history", "--manifest", sums, src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_file_set_contents (extra, "extra\n", -1, NULL));
  run_cli (&r, "mirror", "--no-history", "--manifest", sums, src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_file_test (sums, G_FILE_TEST_IS_REGULAR));
  g_assert_false (g_file_test (extra, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (count_lines (sums), ==, 25);
  g_assert_true (g_file_get_contents (sums, &text, NULL, NULL));
  g_assert_null (strstr (text, "  SUMS\n"));
  run_at (&r, dst, xxhsum);
  g_assert_cmpint (r.status, ==, 0);
  run_cli (&r, "check", sums, NULL);
  g_assert_cmpint (r.status, ==, 0);
}

/* Bad requests: 2 for usage, 3 when the check cannot run. */
static void
test_refusals (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *src = path_in (f, "src");
  g_autofree char *dst = path_in (f, "dst");
  g_autofree char *bad = path_in (f, "bad.sums");
  g_autofree char *sums = path_in (f, "sums");
  g_auto(Result) r = { 0 };

  make_tree (src, 3);
  run_cli (&r, "copy", "--no-history", "--manifest", sums, "--manifest-algo", "md5", src, dst, NULL);
  g_assert_cmpint (r.status, ==, 2);
  run_cli (&r, "copy", "--no-history", "--manifest-algo", "sha256", src, dst, NULL);
  g_assert_cmpint (r.status, ==, 2);
  run_cli (&r, "check", NULL);
  g_assert_cmpint (r.status, ==, 2);
  run_cli (&r, "check", sums, NULL);
  g_assert_cmpint (r.status, ==, 3);
  g_assert_true (g_file_set_contents (bad, "0123  not a sum\n", -1, NULL));
  run_cli (&r, "check", bad, src, NULL);
  g_assert_cmpint (r.status, ==, 3);
  g_assert_nonnull (strstr (r.err, "line 1"));
  g_assert_true (g_file_set_contents (bad, "00000000000000000000000000000000  ../escape\n", -1, NULL));
  run_cli (&r, "check", bad, src, NULL);
  g_assert_cmpint (r.status, ==, 3);
  /* A dry run writes no list. */
  run_cli (&r, "copy", "--no-history", "-n", "--manifest", sums, src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_false (g_file_test (sums, G_FILE_TEST_EXISTS));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  cli = g_getenv ("CS_CLI");
  if (cli == NULL)
    {
      g_printerr ("CS_CLI is not set\n");
      return 77;
    }

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("/manifest/tree-xxh128", test_tree_xxh128);
  ADD ("/manifest/verify-sha256", test_verify_sha256);
  ADD ("/manifest/differences", test_differences);
  ADD ("/manifest/odd-names", test_odd_names);
  ADD ("/manifest/rerun-lists-skipped", test_rerun_lists_skipped);
  ADD ("/manifest/kill", test_kill);
  ADD ("/manifest/move", test_move);
  ADD ("/manifest/mirror", test_mirror);
  ADD ("/manifest/self", test_self);
  ADD ("/manifest/refusals", test_refusals);
#undef ADD

  return g_test_run ();
}
