/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "copyscope-engine.h"
#include "cs-io-private.h"
#include "cs-names-private.h"
#include "cs-test-tree.h"

/*
 * A mirror deletes only extras, only inside its destination (RELIABILITY.md,
 * rule 16): the list of deletions is exactly the extras, symbolic links are
 * removed as links and never followed, a folder that could not be read whole
 * deletes nothing, the maximum stops a mirror before it deletes anything,
 * excluded names, a running copy's temporaries and whatever lies across a
 * mount point stay, and an extra that changed after it was listed stays.
 * After a mirror that could delete everything, the destination equals the
 * source exactly; the source and everything outside are never touched.
 */

typedef struct {
  char       *root;
  char       *src;
  char       *dst;
  char       *outside;    /* a folder next to both, reached by links from the destination */
  char       *mnt;
  GHashTable *src_before;
  GHashTable *outside_before;
} Fixture;

static void
write_file (const char *path,
            gsize       size,
            guint       seed)
{
  g_autofree guint8 *data = g_malloc (MAX (size, 1));
  g_autoptr(GError) error = NULL;
  struct timespec ts[2] = { { 1600000000 + seed, 5 }, { 1600000000 + seed, 5 } };

  for (gsize i = 0; i < size; i++)
    data[i] = (guint8) ((i * 2654435761u + seed * 7919u) >> 11);
  g_file_set_contents (path, (const char *) data, (gssize) size, &error);
  g_assert_no_error (error);
  g_assert_cmpint (utimensat (AT_FDCWD, path, ts, 0), ==, 0);
}

static char *
in (const char *dir,
    const char *rel)
{
  return g_build_filename (dir, rel, NULL);
}

#define FILE_IN(dir, rel, size, seed) G_STMT_START { \
    g_autofree char *p_ = in (dir, rel); write_file (p_, size, seed); } G_STMT_END
#define DIR_IN(dir, rel) G_STMT_START { \
    g_autofree char *p_ = in (dir, rel); g_assert_cmpint (g_mkdir_with_parents (p_, 0755), ==, 0); } G_STMT_END
#define LINK_IN(dir, rel, target) G_STMT_START { \
    g_autofree char *p_ = in (dir, rel); g_assert_cmpint (symlink (target, p_), ==, 0); } G_STMT_END

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->root = cs_test_tree_make_tmp ();
  f->src = in (f->root, "src");
  f->dst = in (f->root, "dst");
  f->outside = in (f->root, "outside");

  /* The source */
  DIR_IN (f->src, "sub/deeper");
  FILE_IN (f->src, "a.txt", 1000, 1);
  FILE_IN (f->src, "changed.bin", 50000, 2);
  FILE_IN (f->src, "sub/b.txt", 2000, 3);
  FILE_IN (f->src, "sub/deeper/c.txt", 3000, 4);
  LINK_IN (f->src, "link", "a.txt");

  /* Outside both: what the destination's links point to. */
  DIR_IN (f->outside, "folder");
  FILE_IN (f->outside, "folder/precious.txt", 777, 9);
  FILE_IN (f->outside, "file.txt", 555, 8);

  /* The destination: a copy of part of the source, and extras. */
  DIR_IN (f->dst, "sub/deeper");
  FILE_IN (f->dst, "a.txt", 1000, 1);                     /* identical */
  FILE_IN (f->dst, "changed.bin", 40000, 0);              /* older: replaced */
  FILE_IN (f->dst, "extra.txt", 100, 20);                 /* extras from here on */
  FILE_IN (f->dst, "sub/extra2.txt", 200, 21);
  DIR_IN (f->dst, "gone/inner");
  FILE_IN (f->dst, "gone/x", 300, 22);
  FILE_IN (f->dst, "gone/inner/y", 400, 23);
  LINK_IN (f->dst, "folder-link", "../outside/folder");   /* a symlinked folder */
  LINK_IN (f->dst, "sub/file-link", "../../outside/file.txt");

  f->src_before = cs_test_tree_snapshot (f->src);
  f->outside_before = cs_test_tree_snapshot (f->outside);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  _cs_io_set (NULL);
  if (f->mnt != NULL && umount (f->mnt) != 0 && umount2 (f->mnt, MNT_DETACH) != 0)
    g_printerr ("cannot unmount %s: %s\n", f->mnt, g_strerror (errno));
  cs_test_tree_remove (f->root);
  g_hash_table_unref (f->src_before);
  g_hash_table_unref (f->outside_before);
  g_free (f->root);
  g_free (f->src);
  g_free (f->dst);
  g_free (f->outside);
  g_free (f->mnt);
}

/* The extras of the fixture, as the list names them, children first. */
static const char *const fixture_extras[] = {
  "extra.txt", "sub/extra2.txt", "gone/x", "gone/inner/y", "gone/inner", "gone", "folder-link",
  "sub/file-link", NULL
};

typedef struct {
  gboolean   dry_run;
  gint64     max_delete;
  const char *exclude;
  gboolean   confirm;
  gboolean   answer;
  void     (*meanwhile) (Fixture *f);   /* in the "deletions" handler, before the answer */
} Options;

typedef struct {
  gboolean      ok;
  GError       *error;
  CsRemovals    removals;
  GPtrArray    *errors;
  GPtrArray    *listed;   /* paths relative to dst, in the list's order */
  gboolean      over_max;
  guint64       n_files, n_dirs, bytes;
  guint         asked;
} Outcome;

static void
outcome_clear (Outcome *o)
{
  g_clear_error (&o->error);
  g_clear_pointer (&o->errors, g_ptr_array_unref);
  g_clear_pointer (&o->listed, g_ptr_array_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Outcome, outcome_clear)

typedef struct {
  Fixture *f;
  Options *opt;
  Outcome *o;
} Ask;

static void
read_list (Fixture     *f,
           CsDeletions *d,
           Outcome     *o)
{
  g_clear_pointer (&o->listed, g_ptr_array_unref);
  o->listed = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < cs_deletions_get_n_listed (d); i++)
    {
      const char *path = cs_deletions_get_path (d, i);

      g_assert_true (g_str_has_prefix (path, f->dst));
      g_ptr_array_add (o->listed, g_strdup (path + strlen (f->dst) + 1));
    }
  o->over_max = cs_deletions_get_over_max (d);
  o->n_files = cs_deletions_get_n_files (d);
  o->n_dirs = cs_deletions_get_n_dirs (d);
  o->bytes = cs_deletions_get_bytes (d);
}

static void
on_deletions (CsJob       *job,
              CsDeletions *d,
              gpointer     user_data)
{
  Ask *ask = user_data;

  ask->o->asked++;
  read_list (ask->f, d, ask->o);
  if (ask->opt->meanwhile != NULL)
    ask->opt->meanwhile (ask->f);
  cs_deletions_answer (d, ask->opt->answer);
}

static void
run_mirror (Fixture *f,
            Options  opt,
            Outcome *o)
{
  g_autoptr(CsJob) job = cs_job_new ();
  Ask ask = { f, &opt, o };
  CsRun *run;

  outcome_clear (o);
  o->asked = 0;
  cs_job_set_operation (job, CS_OPERATION_MIRROR);
  cs_job_add_source_as (job, f->src, f->dst);
  cs_job_set_destination (job, f->dst);
  cs_job_set_threads (job, 2, NULL);
  cs_job_set_interval (job, 0);
  cs_job_set_flush (job, FALSE);
  cs_job_set_max_delete (job, opt.max_delete);
  if (opt.exclude != NULL)
    cs_job_add_exclude (job, opt.exclude);
  if (opt.dry_run)
    cs_job_set_dry_run (job, TRUE, NULL, NULL);
  if (opt.confirm)
    {
      cs_job_set_confirm_deletions (job, TRUE);
      g_signal_connect (job, "deletions", G_CALLBACK (on_deletions), &ask);
    }

  o->ok = cs_job_run_sync (job, NULL, &o->error);
  run = cs_job_get_run (job);
  cs_run_get_removals (run, &o->removals);
  o->errors = cs_run_dup_errors (run);
  if (o->listed == NULL && cs_job_get_deletions (job) != NULL)
    read_list (f, cs_job_get_deletions (job), o);
  g_test_message ("mirror: %s; deleted %" G_GUINT64_FORMAT " files, %" G_GUINT64_FORMAT
                  " folders, %" G_GUINT64_FORMAT " not deleted; %u listed; %u errors",
                  o->ok ? "ok" : "failed", o->removals.deleted_files, o->removals.deleted_dirs,
                  o->removals.not_deleted, o->listed != NULL ? o->listed->len : 0, o->errors->len);
  for (guint i = 0; i < o->errors->len; i++)
    {
      const CsRunError *e = g_ptr_array_index (o->errors, i);
      g_test_message ("  %s: %s: %s", e->path, e->operation, e->message);
    }
}

#define DEFAULTS ((Options) { .max_delete = -1, .answer = TRUE })

static gboolean
exists (const char *dir,
        const char *rel)
{
  g_autofree char *p = in (dir, rel);
  struct stat st;

  return lstat (p, &st) == 0;
}

static void
assert_untouched (Fixture *f)
{
  cs_test_tree_assert_snapshot (f->src, f->src_before);
  cs_test_tree_assert_snapshot (f->outside, f->outside_before);
}

static void
assert_listed (Outcome            *o,
               const char * const *expected)
{
  guint n = g_strv_length ((char **) expected);

  for (guint i = 0; expected[i] != NULL; i++)
    if (!g_ptr_array_find_with_equal_func (o->listed, expected[i], g_str_equal, NULL))
      g_error ("“%s” is an extra and is not in the list", expected[i]);
  for (guint i = 0; i < o->listed->len; i++)
    if (!g_strv_contains (expected, g_ptr_array_index (o->listed, i)))
      g_error ("“%s” is in the list and is no extra", (char *) g_ptr_array_index (o->listed, i));
  g_assert_cmpuint (o->listed->len, ==, n);
  /* A folder comes after what it holds. */
  for (guint i = 0; i < o->listed->len; i++)
    for (guint j = i + 1; j < o->listed->len; j++)
      {
        const char *a = g_ptr_array_index (o->listed, i);
        const char *b = g_ptr_array_index (o->listed, j);

        g_assert_false (g_str_has_prefix (b, a) && b[strlen (a)] == '/');
      }
}

/* The dry run lists exactly the extras and changes nothing; the mirror
 * deletes exactly them: the destination then equals the source. */
static void
test_exact (Fixture       *f,
            gconstpointer  data)
{
  g_autoptr(GHashTable) dst_before = cs_test_tree_snapshot (f->dst);
  g_auto(Outcome) o = { 0 };
  Options dry = DEFAULTS;

  dry.dry_run = TRUE;
  run_mirror (f, dry, &o);
  g_assert_true (o.ok);
  assert_listed (&o, fixture_extras);
  g_assert_cmpuint (o.n_files, ==, 6);
  g_assert_cmpuint (o.n_dirs, ==, 2);
  g_assert_cmpuint (o.bytes, ==, 100 + 200 + 300 + 400);
  cs_test_tree_assert_snapshot (f->dst, dst_before);
  assert_untouched (f);

  run_mirror (f, DEFAULTS, &o);
  g_assert_true (o.ok);
  assert_listed (&o, fixture_extras);
  g_assert_cmpuint (o.removals.deleted_files, ==, 6);
  g_assert_cmpuint (o.removals.deleted_dirs, ==, 2);
  g_assert_cmpuint (o.removals.deleted_bytes, ==, 1000);
  g_assert_cmpuint (o.removals.not_deleted, ==, 0);
  cs_test_tree_assert_equal (f->src, f->dst);
  assert_untouched (f);

  /* Again: nothing is an extra any more. */
  run_mirror (f, DEFAULTS, &o);
  g_assert_true (o.ok);
  g_assert_cmpuint (o.listed->len, ==, 0);
  cs_test_tree_assert_equal (f->src, f->dst);
}

/* Where the source has a folder, the destination has a link to a folder
 * outside: it is never written through nor followed to delete. */
static void
test_symlinked_folder (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *sub = in (f->dst, "sub");
  g_auto(Outcome) o = { 0 };

  cs_test_tree_remove (sub);
  LINK_IN (f->dst, "sub", "../outside/folder");
  run_mirror (f, DEFAULTS, &o);
  assert_untouched (f);
  g_assert_true (exists (f->outside, "folder/precious.txt"));
  /* The other extras are gone all the same. */
  g_assert_false (exists (f->dst, "gone"));
  g_assert_false (exists (f->dst, "folder-link"));
  for (guint i = 0; i < o.listed->len; i++)
    g_assert_false (g_str_has_prefix (g_ptr_array_index (o.listed, i), "sub/"));
}

/* More extras than the maximum: nothing at all is deleted, the copying is
 * done, and the run says why. */
static void
test_max_delete (Fixture       *f,
                 gconstpointer  data)
{
  gint64 max = GPOINTER_TO_INT (data);
  g_autofree char *changed = in (f->dst, "changed.bin");
  g_auto(Outcome) o = { 0 };
  Options opt = DEFAULTS;

  opt.max_delete = max;
  run_mirror (f, opt, &o);
  g_assert_true (o.ok);
  g_assert_true (o.over_max);
  g_assert_cmpuint (o.n_files + o.n_dirs, ==, 8);
  g_assert_cmpuint (o.removals.deleted_files + o.removals.deleted_dirs, ==, 0);
  g_assert_cmpuint (o.removals.not_deleted, ==, 8);
  for (guint i = 0; fixture_extras[i] != NULL; i++)
    g_assert_true (exists (f->dst, fixture_extras[i]));
  /* The copying went on. */
  {
    struct stat st;

    g_assert_cmpint (lstat (changed, &st), ==, 0);
    g_assert_cmpint (st.st_size, ==, 50000);
  }
  g_assert_cmpuint (o.errors->len, ==, max > 0 ? 1 : 0);
  assert_untouched (f);

  /* Exactly at the maximum: all deleted. */
  opt.max_delete = 8;
  run_mirror (f, opt, &o);
  g_assert_false (o.over_max);
  cs_test_tree_assert_equal (f->src, f->dst);
}

static void
test_exclude_kept (Fixture       *f,
                   gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };
  Options opt = DEFAULTS;

  opt.exclude = "extra*.txt";
  run_mirror (f, opt, &o);
  g_assert_true (exists (f->dst, "extra.txt"));
  g_assert_true (exists (f->dst, "sub/extra2.txt"));
  g_assert_false (exists (f->dst, "gone"));
  g_assert_cmpuint (o.removals.deleted_files, ==, 4);
}

/* Another copy runs into the destination (its tag's presence is held): its
 * temporaries, beside files, inside an extra folder and in a staging folder,
 * stay, and so does the folder that holds one. */
static void
test_running_copy_kept (Fixture       *f,
                        gconstpointer  data)
{
  const char *tag = "00c0ffee00c0ffee";
  g_autofree char *t1 = g_strconcat (".copyscope-", tag, "-1.part", NULL);
  g_autofree char *t2 = g_strconcat ("gone/inner/.copyscope-", tag, "-2.part", NULL);
  g_autofree char *stage = g_strconcat (".copyscope-", tag, "-0.stage", NULL);
  g_autofree char *t3 = g_strconcat (stage, "/.copyscope-", tag, "-3.part", NULL);
  g_auto(Outcome) o = { 0 };
  int fd;

  fd = _cs_names_announce (tag);
  g_assert_cmpint (fd, >=, 0);
  FILE_IN (f->dst, t1, 10, 30);
  FILE_IN (f->dst, t2, 10, 31);
  DIR_IN (f->dst, stage);
  FILE_IN (f->dst, t3, 10, 32);

  run_mirror (f, DEFAULTS, &o);
  g_assert_true (exists (f->dst, t1));
  g_assert_true (exists (f->dst, t2));
  g_assert_true (exists (f->dst, t3));
  g_assert_true (exists (f->dst, "gone/inner"));
  g_assert_false (exists (f->dst, "gone/x"));
  g_assert_false (exists (f->dst, "extra.txt"));

  /* That copy ended without a trace (a kill): its leftovers go now, as any
   * crash's, and the extra folders with them. */
  close (fd);
  run_mirror (f, DEFAULTS, &o);
  g_assert_false (exists (f->dst, t1));
  g_assert_false (exists (f->dst, stage));
  g_assert_false (exists (f->dst, "gone"));
}

/* A table whose getdents fails, once the source folder "sub" was half read. */
static CsIoTable table;

static ssize_t
t_getdents (int fd, void *buf, size_t size)
{
  char link[64], target[4096];
  ssize_t n;

  g_snprintf (link, sizeof link, "/proc/self/fd/%d", fd);
  n = readlink (link, target, sizeof target - 1);
  target[MAX (n, 0)] = '\0';
  if (g_str_has_suffix (target, "/src/sub"))
    {
      errno = EIO;
      return -1;
    }
  return _cs_io_get_default ()->getdents (fd, buf, size);
}

/* The source folder sub cannot be read whole: nothing in its copy is an
 * extra, and the rest of the mirror goes on. */
static void
test_unreadable_source_folder (Fixture       *f,
                               gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };

  table = *_cs_io_get_default ();
  table.getdents = t_getdents;
  _cs_io_set (&table);
  run_mirror (f, DEFAULTS, &o);
  _cs_io_set (NULL);
  g_assert_true (exists (f->dst, "sub/extra2.txt"));
  g_assert_true (exists (f->dst, "sub/file-link"));
  g_assert_false (exists (f->dst, "gone"));
  g_assert_false (exists (f->dst, "extra.txt"));
  assert_untouched (f);
}

static void
change_extras (Fixture *f)
{
  g_autofree char *x = in (f->dst, "gone/x");
  FILE *fp = fopen (x, "a");

  fputs ("more", fp);
  fclose (fp);
  FILE_IN (f->dst, "gone/inner/new-file", 10, 40);
}

/* Between the list and the deletion an extra changed and a file was put
 * into a listed folder: those stay, reported; the rest goes. */
static void
test_changed_after_listing (Fixture       *f,
                            gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };
  Options opt = DEFAULTS;

  opt.confirm = TRUE;
  opt.meanwhile = change_extras;
  run_mirror (f, opt, &o);
  g_assert_cmpuint (o.asked, ==, 1);
  g_assert_true (exists (f->dst, "gone/x"));
  g_assert_true (exists (f->dst, "gone/inner/new-file"));
  g_assert_false (exists (f->dst, "gone/inner/y"));
  g_assert_false (exists (f->dst, "extra.txt"));
  /* gone/x, gone/inner, gone */
  g_assert_cmpuint (o.removals.not_deleted, ==, 3);
  assert_untouched (f);
}

static void
test_confirm_refused (Fixture       *f,
                      gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };
  Options opt = DEFAULTS;

  opt.confirm = TRUE;
  opt.answer = FALSE;
  run_mirror (f, opt, &o);
  g_assert_true (o.ok);
  g_assert_cmpuint (o.asked, ==, 1);
  assert_listed (&o, fixture_extras);
  for (guint i = 0; fixture_extras[i] != NULL; i++)
    g_assert_true (exists (f->dst, fixture_extras[i]));
  g_assert_cmpuint (o.removals.not_deleted, ==, 8);
}

/* Entries of another type than their source's: a file where the source has
 * a folder, a folder (with contents) where it has a file, a link where it
 * has a file. They are extras to replace: in the one list the window is
 * asked about, deleted with the extras and then copied from the source,
 * never written through. Refused, they stay as they are and each is
 * reported; nothing is written into or through them. */
static void
test_type_replaced (Fixture       *f,
                    gconstpointer  data)
{
  gboolean answer = GPOINTER_TO_INT (data);
  static const char *const expected[] = {
    "extra.txt", "sub/extra2.txt", "gone/x", "gone/inner/y", "gone/inner", "gone", "folder-link",
    "sub/file-link", "now-folder", "now-file/kept", "now-file", "now-file2", NULL
  };
  g_autoptr(GHashTable) link_target_before = cs_test_tree_snapshot (f->outside);
  g_auto(Outcome) o = { 0 };
  Options opt = DEFAULTS;
  struct stat st;

  DIR_IN (f->src, "now-folder");
  FILE_IN (f->src, "now-folder/inside", 10, 30);
  FILE_IN (f->src, "now-file", 20, 31);
  FILE_IN (f->src, "now-file2", 30, 32);
  FILE_IN (f->dst, "now-folder", 10, 33);
  DIR_IN (f->dst, "now-file");
  FILE_IN (f->dst, "now-file/kept", 40, 34);
  /* Newer than its source's file: no time says which one wins. */
  LINK_IN (f->dst, "now-file2", "../outside/file.txt");
  g_hash_table_unref (f->src_before);
  f->src_before = cs_test_tree_snapshot (f->src);

  opt.confirm = TRUE;
  opt.answer = answer;
  run_mirror (f, opt, &o);
  g_assert_cmpuint (o.asked, ==, 1);
  assert_listed (&o, expected);
  assert_untouched (f);
  cs_test_tree_assert_snapshot (f->outside, link_target_before);
  if (answer)
    {
      g_assert_true (o.ok);
      g_assert_cmpuint (o.errors->len, ==, 0);
      cs_test_tree_assert_equal (f->src, f->dst);
      return;
    }

  {
    g_autofree char *a = in (f->dst, "now-folder");
    g_autofree char *b = in (f->dst, "now-file");
    g_autofree char *c = in (f->dst, "now-file2");

    g_assert_cmpint (lstat (a, &st), ==, 0);
    g_assert_true (S_ISREG (st.st_mode));
    g_assert_cmpint (lstat (b, &st), ==, 0);
    g_assert_true (S_ISDIR (st.st_mode));
    g_assert_true (exists (f->dst, "now-file/kept"));
    g_assert_cmpint (lstat (c, &st), ==, 0);
    g_assert_true (S_ISLNK (st.st_mode));
  }
  /* Each of the three reported, naming what stands there. */
  {
    guint named = 0;

    for (guint i = 0; i < o.errors->len; i++)
      {
        const CsRunError *e = g_ptr_array_index (o.errors, i);

        if (strstr (e->message, "the destination is a folder, the source a file") != NULL
            || strstr (e->message, "the destination is a symbolic link, the source a file") != NULL
            || strstr (e->message, "not a folder") != NULL)
          named++;
      }
    g_assert_cmpuint (named, ==, 3);
  }
}

/* A filesystem mounted on an extra folder: nothing across it is deleted. */
static void
test_mount_point (Fixture       *f,
                  gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };

  f->mnt = in (f->dst, "mounted");
  g_assert_cmpint (g_mkdir (f->mnt, 0755), ==, 0);
  if (mount ("cs-test-mirror", f->mnt, "tmpfs", 0, "size=4m") != 0)
    {
      g_test_skip_printf ("cannot mount a tmpfs (%s): needs root", g_strerror (errno));
      g_clear_pointer (&f->mnt, g_free);
      return;
    }
  FILE_IN (f->mnt, "on-another-fs.txt", 50, 50);
  run_mirror (f, DEFAULTS, &o);
  g_assert_true (exists (f->mnt, "on-another-fs.txt"));
  g_assert_false (exists (f->dst, "gone"));
  g_assert_cmpuint (o.removals.not_deleted, ==, 1);
}

static void
test_source_inside_refused (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(CsJob) job = cs_job_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *inner = in (f->dst, "sub");

  cs_job_set_operation (job, CS_OPERATION_MIRROR);
  cs_job_add_source_as (job, inner, f->dst);
  cs_job_set_destination (job, f->dst);
  g_assert_false (cs_job_check (job, &error));
  g_assert_error (error, CS_JOB_ERROR, CS_JOB_ERROR_SOURCE_INSIDE);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, data, func) \
  g_test_add ("/mirror/" path, Fixture, GINT_TO_POINTER (data), fixture_setup, func, fixture_teardown)
  ADD ("exact", 0, test_exact);
  ADD ("symlinked-folder", 0, test_symlinked_folder);
  ADD ("max-delete/over", 7, test_max_delete);
  ADD ("max-delete/zero", 0, test_max_delete);
  ADD ("exclude-kept", 0, test_exclude_kept);
  ADD ("running-copy-kept", 0, test_running_copy_kept);
  ADD ("unreadable-source-folder", 0, test_unreadable_source_folder);
  ADD ("changed-after-listing", 0, test_changed_after_listing);
  ADD ("confirm-refused", 0, test_confirm_refused);
  ADD ("type-replaced", TRUE, test_type_replaced);
  ADD ("type-refused", FALSE, test_type_replaced);
  ADD ("mount-point", 0, test_mount_point);
  ADD ("source-inside-refused", 0, test_source_inside_refused);
#undef ADD

  return g_test_run ();
}
