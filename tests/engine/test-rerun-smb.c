/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#include "copyscope-engine.h"
#include "cs-fake-smb.h"
#include "cs-test-tree.h"

/*
 * A rerun onto an SMB share decided from folder listings (issue 40): the
 * scanner lists each destination folder once with every entry's stat, as
 * libsmbclient's readdirplus2 gives them, and decides from it what needs
 * no work. Each case runs twice against the fake server of
 * tests/common/cs-fake-smb.c, listing with stats and by names only (every
 * file asked about by name, as before), and both must end the same:
 * placeholders, --overwrite never/newer/different, another type there,
 * names that differ in case on a share that ignores it. A file changed
 * at the destination after its folder was listed is never overwritten on
 * the listing's word. A folder whose listing shows the source folder's
 * mode and times, and in which the rerun writes nothing, keeps them
 * without a request; one whose source changed, or in which a file is
 * written or deleted, gets the source folder's times again.
 */

#define PASSWORD "s3cret pass"
#define USER     "lab"
#define URL      "smb://" USER "@" CS_FAKE_SMB_SERVER "/" CS_FAKE_SMB_SHARE

#define N_SAME 120
#define T_OLD  1600000000
#define T_NEW  1700000000
#define T_LATE 1750000000

static void
write_at (const char *dir,
          const char *rel,
          const char *text,
          gint64      mtime)
{
  g_autofree char *path = g_build_filename (dir, rel, NULL);
  g_autofree char *parent = g_path_get_dirname (path);
  struct timespec ts[2] = { { mtime, 250000000 }, { mtime, 250000000 } };
  GError *error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (utimensat (AT_FDCWD, path, ts, 0), ==, 0);
}

static char *
read_at (const char *dir,
         const char *rel)
{
  g_autofree char *path = g_build_filename (dir, rel, NULL);
  char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return g_strdup ("(absent)");
  return text;
}

typedef struct {
  CsOperation operation;
  CsOverwrite overwrite;
  gboolean    ignore_case;
} Case;

/* The source, and a destination "out" a run made before, changed since. */
static void
make_trees (const char *src,
            const char *out,
            gboolean    ignore_case)
{
  /* The source first: the destination's files change after it, as a
   * copy's do. */
  for (guint i = 0; i < N_SAME; i++)
    {
      g_autofree char *rel = g_strdup_printf ("a/same%03u.txt", i);

      write_at (src, rel, "the same bytes\n", T_OLD);
    }
  write_at (src, "a/older.txt", "the source, newer\n", T_NEW);
  write_at (src, "a/newer.txt", "the source, older\n", T_OLD);
  write_at (src, "a/placeholder.txt", "the real file\n", T_OLD);
  write_at (src, "a/new.txt", "only in the source\n", T_OLD);
  write_at (src, "a/typed", "a file in the source\n", T_OLD);
  write_at (src, "b/deeper.txt", "one level down\n", T_OLD);
  if (ignore_case)
    {
      write_at (src, "a/Photo.JPG", "a photo\n", T_OLD);
      write_at (src, "a/Edited.TXT", "the source, older\n", T_OLD);
    }

  for (guint i = 0; i < N_SAME; i++)
    {
      g_autofree char *rel = g_strdup_printf ("a/same%03u.txt", i);

      write_at (out, rel, "the same bytes\n", T_OLD);
    }
  write_at (out, "a/older.txt", "the destination, older\n", T_OLD);
  write_at (out, "a/newer.txt", "edited at the destination\n", T_NEW);
  /* What a killed run's claim holds: ours, replaced whatever the policy. */
  write_at (out, "a/placeholder.txt", "copyscope placeholder 0123456789abcdef\n", T_LATE);
  {
    g_autofree char *typed = g_build_filename (out, "a", "typed", NULL);

    g_assert_cmpint (g_mkdir (typed, 0755), ==, 0);
  }
  write_at (out, "b/deeper.txt", "one level down\n", T_OLD);
  write_at (out, "a/extra.txt", "only at the destination\n", T_OLD);
  if (ignore_case)
    {
      write_at (out, "a/photo.jpg", "a photo\n", T_OLD);
      write_at (out, "a/edited.txt", "edited at the destination\n", T_NEW);
    }
}

/* What a run left: each name's text, the totals and the skips' reasons. */
static char *
outcome (CsJob      *job,
         const char *out)
{
  static const char *names[] = { "a/same000.txt", "a/same119.txt", "a/older.txt", "a/newer.txt",
                                 "a/placeholder.txt", "a/new.txt", "b/deeper.txt", "a/extra.txt",
                                 "a/photo.jpg", "a/Photo.JPG", "a/edited.txt", "a/Edited.TXT" };
  GString *s = g_string_new (NULL);
  CsTotals totals;
  CsSkips skips;

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *text = read_at (out, names[i]);

      g_string_append_printf (s, "%s: %s", names[i], text);
      if (!g_str_has_suffix (text, "\n"))
        g_string_append_c (s, '\n');
    }
  cs_run_get_totals (cs_job_get_run (job), &totals);
  for (guint c = 0; c < CS_N_CLASSES; c++)
    g_string_append_printf (s, "%s: %" G_GUINT64_FORMAT " files, %" G_GUINT64_FORMAT " bytes\n",
                            cs_class_to_string (c), totals.v[c][CS_KIND_FILES], totals.v[c][CS_KIND_BYTES]);
  memset (&skips, 0, sizeof skips);
  g_assert_true (cs_run_get_skips (cs_job_get_run (job), &skips));
  g_string_append_printf (s, "skips: %" G_GUINT64_FORMAT " identical, %" G_GUINT64_FORMAT " chosen\n",
                          skips.identical_files, skips.chosen_files);
  g_string_append_printf (s, "errors: %u\n", cs_run_get_n_errors (cs_job_get_run (job)));
  return g_string_free (s, FALSE);
}

static char *
run_case (const Case  *c,
          gboolean     listing,
          CsFakeSmbIo *io)
{
  g_autofree char *backing = cs_test_tree_make_tmp ();
  g_autofree char *top = cs_test_tree_make_tmp ();
  g_autofree char *src = g_build_filename (top, "src", NULL);
  g_autofree char *out = g_build_filename (backing, "out", NULL);
  g_autofree char *dot = g_build_filename (src, ".", NULL);
  g_autoptr(CsJob) job = cs_job_new ();
  GError *error = NULL;
  char *result;

  make_trees (src, out, c->ignore_case);
  cs_fake_smb_install (backing, USER, PASSWORD);
  cs_fake_smb_set_listing (listing);
  cs_fake_smb_set_ignore_case (c->ignore_case);
  cs_smb_set_credentials (NULL, PASSWORD);

  cs_job_add_source (job, dot);
  cs_job_set_destination (job, URL "/out");
  cs_job_set_operation (job, c->operation);
  cs_job_set_overwrite (job, c->overwrite);
  cs_job_set_threads (job, 4, NULL);
  cs_job_run_sync (job, NULL, &error);
  /* Another type under a name fails that item, not the run. */
  g_clear_error (&error);

  cs_fake_smb_io (io);
  result = outcome (job, out);
  cs_smb_set_credentials (NULL, NULL);
  cs_test_tree_remove (top);
  cs_test_tree_remove (backing);
  return result;
}

static void
test_same_decisions (gconstpointer data)
{
  const Case *c = data;
  CsFakeSmbIo listed, by_name;
  g_autofree char *from_listing = run_case (c, TRUE, &listed);
  g_autofree char *from_names = run_case (c, FALSE, &by_name);

  g_test_message ("from the listing:\n%s", from_listing);
  g_assert_cmpstr (from_listing, ==, from_names);

  /* The decisions that are the point of each case, on either path. */
  g_assert_nonnull (strstr (from_listing, "a/placeholder.txt: the real file\n"));
  g_assert_nonnull (strstr (from_listing, "a/new.txt: only in the source\n"));
  if (c->overwrite == CS_OVERWRITE_NEVER)
    g_assert_nonnull (strstr (from_listing, "a/older.txt: the destination, older\n"));
  else
    g_assert_nonnull (strstr (from_listing, "a/older.txt: the source, newer\n"));
  if (c->overwrite == CS_OVERWRITE_DIFFERENT)
    g_assert_nonnull (strstr (from_listing, "a/newer.txt: the source, older\n"));
  else
    g_assert_nonnull (strstr (from_listing, "a/newer.txt: edited at the destination\n"));
  if (c->ignore_case)
    {
      g_assert_nonnull (strstr (from_listing, "a/photo.jpg: a photo\n"));
      g_assert_nonnull (strstr (from_listing, "a/Photo.JPG: (absent)"));
    }

  /* Asked by name: about every file; from the listing: the few that need
   * work (and the first, which finds out the share keeps no extended
   * attributes), with one listing per folder. */
  g_test_message ("stats by name: %u from the listing (%u listings), %u by names", listed.stats,
                  listed.listings, by_name.stats);
  g_assert_cmpuint (by_name.listings, ==, 0);
  g_assert_cmpuint (by_name.stats, >=, N_SAME);
  g_assert_cmpuint (listed.listings, >=, 2);
  g_assert_cmpuint (listed.stats, <, 30);
}

/* The destination changes behind the listing: a file the source has
 * appears, newer, and one listed as older is edited. */
static void
change_behind (const char *folder,
               gpointer    data)
{
  if (!g_str_has_suffix (folder, "/out/a"))
    return;
  write_at (folder, "new.txt", "appeared after the listing\n", T_LATE);
  write_at (folder, "older.txt", "edited after the listing\n", T_LATE);
}

static void
test_changed_after_listing (void)
{
  g_autofree char *backing = cs_test_tree_make_tmp ();
  g_autofree char *top = cs_test_tree_make_tmp ();
  g_autofree char *src = g_build_filename (top, "src", NULL);
  g_autofree char *out = g_build_filename (backing, "out", NULL);
  g_autofree char *dot = g_build_filename (src, ".", NULL);
  g_autofree char *appeared = NULL;
  g_autofree char *edited = NULL;
  g_autoptr(CsJob) job = cs_job_new ();
  GError *error = NULL;
  CsFakeSmbIo io;

  make_trees (src, out, FALSE);
  cs_fake_smb_install (backing, USER, PASSWORD);
  cs_fake_smb_on_listed (change_behind, NULL);
  cs_smb_set_credentials (NULL, PASSWORD);

  cs_job_add_source (job, dot);
  cs_job_set_destination (job, URL "/out");
  cs_job_set_overwrite (job, CS_OVERWRITE_NEWER);
  cs_job_set_threads (job, 4, NULL);
  cs_job_run_sync (job, NULL, &error);
  g_clear_error (&error);
  cs_fake_smb_io (&io);
  g_assert_cmpuint (io.listings, >=, 1);

  /* The listing said "absent" and "older"; both are newer now, and kept. */
  appeared = read_at (out, "a/new.txt");
  edited = read_at (out, "a/older.txt");
  g_assert_cmpstr (appeared, ==, "appeared after the listing\n");
  g_assert_cmpstr (edited, ==, "edited after the listing\n");

  cs_fake_smb_on_listed (NULL, NULL);
  cs_smb_set_credentials (NULL, NULL);
  cs_test_tree_remove (top);
  cs_test_tree_remove (backing);
}

/* ---- Folders' times ------------------------------------------------------ */

#define N_FOLDERS 6

static void
set_folder (const char *top,
            const char *rel,
            gint64      mtime,
            mode_t      mode)
{
  g_autofree char *path = g_build_filename (top, rel, NULL);
  struct timespec ts[2] = { { mtime, 250000000 }, { mtime, 250000000 } };

  g_assert_cmpint (g_chmod (path, mode), ==, 0);
  g_assert_cmpint (utimensat (AT_FDCWD, path, ts, 0), ==, 0);
}

/* f0 … f5 of a few files each, f0/sub inside f0: folders of T_OLD, 0755. */
static void
make_folders (const char *src)
{
  for (guint f = 0; f < N_FOLDERS; f++)
    for (guint i = 0; i < 3; i++)
      {
        g_autofree char *rel = g_strdup_printf ("f%u/file%u.txt", f, i);

        write_at (src, rel, "in a folder\n", T_OLD);
      }
  write_at (src, "f0/sub/deeper.txt", "one level down\n", T_OLD);
  set_folder (src, "f0/sub", T_OLD, 0755);
  for (guint f = 0; f < N_FOLDERS; f++)
    {
      g_autofree char *rel = g_strdup_printf ("f%u", f);

      set_folder (src, rel, T_OLD, 0755);
    }
  set_folder (src, ".", T_OLD, 0755);
}

/* Each folder under @top as "rel mode mtime", a line each. */
static char *
folders_of (const char *top)
{
  static const char *rels[] = { ".", "f0", "f0/sub", "f1", "f2", "f3", "f4", "f5" };
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (rels); i++)
    {
      g_autofree char *path = g_build_filename (top, rels[i], NULL);
      struct stat st;

      g_assert_cmpint (stat (path, &st), ==, 0);
      g_string_append_printf (s, "%s %o %" G_GINT64_FORMAT ".%09ld\n", rels[i],
                              (unsigned) (st.st_mode & 07777), (gint64) st.st_mtim.tv_sec,
                              st.st_mtim.tv_nsec);
    }
  return g_string_free (s, FALSE);
}

static void
run_into_share (const char  *src,
                CsOperation  operation)
{
  g_autofree char *dot = g_build_filename (src, ".", NULL);
  g_autoptr(CsJob) job = cs_job_new ();
  GError *error = NULL;

  cs_job_add_source (job, dot);
  cs_job_set_destination (job, URL "/out");
  cs_job_set_operation (job, operation);
  cs_job_set_threads (job, 4, NULL);
  cs_job_run_sync (job, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cs_run_get_n_errors (cs_job_get_run (job)), ==, 0);
}

/* "copy SRC smb://…/out": the folder itself lands in out/src. */
static void
run_folder_into_share (const char *src)
{
  g_autoptr(CsJob) job = cs_job_new ();
  GError *error = NULL;

  cs_job_add_source (job, src);
  cs_job_set_destination (job, URL "/out");
  cs_job_set_threads (job, 4, NULL);
  cs_job_run_sync (job, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cs_run_get_n_errors (cs_job_get_run (job)), ==, 0);
}

/* A rerun that changes nothing sets no folder's times but the
 * destination's own (which no listing showed), and stats no folder it
 * enters but that one and the folder it is in (a mirror its root once
 * more): the parent's listing told both of every other. */
static void
test_folders_unchanged (gconstpointer data)
{
  const Case *c = data;
  g_autofree char *backing = cs_test_tree_make_tmp ();
  g_autofree char *top = cs_test_tree_make_tmp ();
  g_autofree char *src = g_build_filename (top, "src", NULL);
  g_autofree char *out = g_build_filename (backing, "out", NULL);
  g_autofree char *first = NULL;
  g_autofree char *set = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *wanted = NULL;
  CsFakeSmbIo io;

  make_folders (src);
  cs_fake_smb_install (backing, USER, PASSWORD);
  cs_smb_set_credentials (NULL, PASSWORD);
  run_into_share (src, c->operation);
  first = cs_fake_smb_dup_folder_times ();
  g_assert_cmpstr (first, ==, "out\nout/f0\nout/f0/sub\nout/f1\nout/f2\nout/f3\nout/f4\nout/f5\n");
  wanted = folders_of (src);
  before = folders_of (out);
  g_assert_cmpstr (before, ==, wanted);

  cs_fake_smb_install (backing, USER, PASSWORD);
  run_into_share (src, c->operation);
  set = cs_fake_smb_dup_folder_times ();
  cs_fake_smb_io (&io);
  after = folders_of (out);
  g_test_message ("folders' times set: %s; folders stat-ed: %u", set, io.folder_stats);
  g_assert_cmpstr (after, ==, wanted);
  g_assert_cmpstr (set, ==, "out\n");
  g_assert_cmpuint (io.folder_stats, <=, c->operation == CS_OPERATION_MIRROR ? 3 : 2);

  cs_smb_set_credentials (NULL, NULL);
  cs_test_tree_remove (top);
  cs_test_tree_remove (backing);
}

/* A rerun after the source changed: f1's times and f3's mode changed, a
 * file appeared in f2 and in f0/sub (their times put back, so only the
 * write tells), one is gone from f5 (a mirror deletes it at the
 * destination, a copy leaves it). Each such folder ends with its source
 * folder's mode and times; f0 and f4, which nothing touched, are left
 * alone. */
static void
test_folders_changed (gconstpointer data)
{
  const Case *c = data;
  gboolean mirror = c->operation == CS_OPERATION_MIRROR;
  g_autofree char *backing = cs_test_tree_make_tmp ();
  g_autofree char *top = cs_test_tree_make_tmp ();
  g_autofree char *src = g_build_filename (top, "src", NULL);
  g_autofree char *out = g_build_filename (backing, "out", NULL);
  g_autofree char *gone = g_build_filename (src, "f5", "file1.txt", NULL);
  g_autofree char *set = NULL;
  g_autofree char *after = NULL;
  g_autofree char *wanted = NULL;

  make_folders (src);
  cs_fake_smb_install (backing, USER, PASSWORD);
  cs_smb_set_credentials (NULL, PASSWORD);
  run_into_share (src, c->operation);

  set_folder (src, "f1", T_NEW, 0755);
  set_folder (src, "f3", T_OLD, 0700);
  write_at (src, "f2/new.txt", "new in f2\n", T_OLD);
  set_folder (src, "f2", T_OLD, 0755);
  write_at (src, "f0/sub/new.txt", "new in f0/sub\n", T_OLD);
  set_folder (src, "f0/sub", T_OLD, 0755);
  g_assert_cmpint (g_unlink (gone), ==, 0);
  set_folder (src, "f5", T_OLD, 0755);

  cs_fake_smb_install (backing, USER, PASSWORD);
  run_into_share (src, c->operation);
  set = cs_fake_smb_dup_folder_times ();
  g_test_message ("folders' times set: %s", set);
  wanted = folders_of (src);
  after = folders_of (out);
  g_assert_cmpstr (after, ==, wanted);
  g_assert_cmpstr (set, ==, mirror ? "out\nout/f0/sub\nout/f1\nout/f2\nout/f3\nout/f5\n"
                                   : "out\nout/f0/sub\nout/f1\nout/f2\nout/f3\n");

  cs_smb_set_credentials (NULL, NULL);
  cs_test_tree_remove (top);
  cs_test_tree_remove (backing);
}

/* Listings overlapping on a share: how many the listing threads had under
 * way at once, each held for a while as a slow server would. */
typedef struct {
  atomic_int now;
  atomic_int most;
  gulong     hold_ms;
} Overlap;

static void
slow_listing (const char *folder,
              gpointer    data)
{
  Overlap *o = data;
  int now = atomic_fetch_add (&o->now, 1) + 1;

  for (int most = atomic_load (&o->most); now > most && !atomic_compare_exchange_weak (&o->most, &most, now);)
    ;
  g_usleep (o->hold_ms * G_TIME_SPAN_MILLISECOND);
  atomic_fetch_sub (&o->now, 1);
}

/* A rerun of @folders folders of @files files each, whose listings the
 * share holds @hold_ms each: how many were under way at once at most. */
static int
most_listings_at_once (guint  folders,
                       guint  files,
                       gulong hold_ms)
{
  g_autofree char *backing = cs_test_tree_make_tmp ();
  g_autofree char *top = cs_test_tree_make_tmp ();
  g_autofree char *src = g_build_filename (top, "src", NULL);
  Overlap overlap = { 0, 0, hold_ms };
  CsFakeSmbIo io;

  for (guint f = 0; f < folders; f++)
    for (guint i = 0; i < files; i++)
      {
        g_autofree char *rel = g_strdup_printf ("d%02u/file%u.txt", f, i);

        write_at (src, rel, "one\n", T_OLD);
      }
  cs_fake_smb_install (backing, USER, PASSWORD);
  cs_smb_set_credentials (NULL, PASSWORD);
  run_into_share (src, CS_OPERATION_COPY);

  cs_fake_smb_install (backing, USER, PASSWORD);
  cs_fake_smb_on_listed (slow_listing, &overlap);
  run_into_share (src, CS_OPERATION_COPY);
  cs_fake_smb_on_listed (NULL, NULL);
  cs_fake_smb_io (&io);
  g_test_message ("listings held %lu ms: %u, at most %d at once", hold_ms, io.listings,
                  atomic_load (&overlap.most));
  g_assert_cmpuint (io.listings, ==, folders + 1);

  cs_smb_set_credentials (NULL, NULL);
  cs_test_tree_remove (top);
  cs_test_tree_remove (backing);
  return atomic_load (&overlap.most);
}

/* A rerun over many folders lists them on more connections than a copy
 * has threads: Samba answers libsmbclient's directory query with each
 * entry's EA size, an extra filesystem call per entry that a client asking
 * less does not cost it, and one connection's requests are served one
 * after the other. 40 folders of 30 files, each listing held 15 ms (0.5 ms
 * per entry, a server not slow): more than 8 (the listing threads before)
 * must be under way at once, and no more than 16 besides the scanner's
 * own (the top folder's, while the first subfolders are listed early). */
static void
test_listings_overlap (void)
{
  int most = most_listings_at_once (40, 30, 15);

  g_assert_cmpint (most, >=, 12);
  g_assert_cmpint (most, <=, 17);
}

/* Listings of 150 ms for a file each, a share with 1 ms per filesystem
 * call: once one said so, 32 threads list (16 before). */
static void
test_listings_slow (void)
{
  g_assert_cmpint (most_listings_at_once (96, 1, 150), >, 16);
}

/* Holds the listing of the folder named @data until the job's threads
 * have set up a connection for each of its N_FOLDERS subfolders (5 s at
 * most), and says whether they had. */
typedef struct {
  const char *name;
  gboolean    seen;
  gboolean    connected;
} HeldListing;

static void
hold_for_connects (const char *folder,
                   gpointer    data)
{
  HeldListing *held = data;
  g_autofree char *name = g_path_get_basename (folder);
  gint64 deadline = g_get_monotonic_time () + 5 * G_TIME_SPAN_SECOND;
  CsFakeSmbIo io;

  if (strcmp (name, held->name) != 0)
    return;
  held->seen = TRUE;
  do
    cs_fake_smb_io (&io);
  while (io.connects < N_FOLDERS && g_get_monotonic_time () < deadline && (g_usleep (1000), TRUE));
  held->connected = io.connects >= N_FOLDERS;
}

/* A rerun's listing threads set their connections up while the scanner
 * lists the folder above (before, a thread's first subfolder also set its
 * connection up, after that listing: on the lab share behind 1 ms, 0.15 s
 * of each rerun), one for each of the source's subfolders, no more; given
 * as "SRC/." (the top listed by the staging sweep) and as "SRC" (the top
 * listed by the walk). A first copy, into a folder it makes, none. */
static void
test_connected_ahead (gconstpointer data)
{
  gboolean dot = GPOINTER_TO_INT (data);
  g_autofree char *backing = cs_test_tree_make_tmp ();
  g_autofree char *top = cs_test_tree_make_tmp ();
  g_autofree char *src = g_build_filename (top, "src", NULL);
  HeldListing held = { dot ? "out" : "src", FALSE, FALSE };
  CsFakeSmbIo io;

  make_folders (src);
  cs_fake_smb_install (backing, USER, PASSWORD);
  cs_smb_set_credentials (NULL, PASSWORD);
  if (dot)
    run_into_share (src, CS_OPERATION_COPY);
  else
    {
      g_autofree char *out = g_build_filename (backing, "out", NULL);

      /* There already, as cp -r wants it for "SRC" to land in out/src. */
      g_assert_cmpint (g_mkdir (out, 0755), ==, 0);
      run_folder_into_share (src);
    }
  /* A first copy lists nothing: no listing thread is set up, nor a worker
   * ahead of its first file. */
  cs_fake_smb_io (&io);
  g_assert_cmpuint (io.connects, ==, 0);

  cs_fake_smb_install (backing, USER, PASSWORD);
  cs_fake_smb_on_listed (hold_for_connects, &held);
  if (dot)
    run_into_share (src, CS_OPERATION_COPY);
  else
    run_folder_into_share (src);
  cs_fake_smb_on_listed (NULL, NULL);
  cs_fake_smb_io (&io);
  g_test_message ("connections set up ahead: %u", io.connects);
  g_assert_true (held.seen);
  g_assert_true (held.connected);
  /* Nothing to copy: no worker set up. */
  g_assert_cmpuint (io.connects, ==, N_FOLDERS);

  cs_smb_set_credentials (NULL, NULL);
  cs_test_tree_remove (top);
  cs_test_tree_remove (backing);
}

/* Holds the listing of the folder named @data until N_FOLDERS more
 * folders have been listed (5 s at most), and says whether they were. */
static void
hold_for_listings (const char *folder,
                   gpointer    data)
{
  HeldListing *held = data;
  g_autofree char *name = g_path_get_basename (folder);
  gint64 deadline = g_get_monotonic_time () + 5 * G_TIME_SPAN_SECOND;
  CsFakeSmbIo io;

  if (strcmp (name, held->name) != 0 || held->seen)
    return;
  held->seen = TRUE;
  do
    cs_fake_smb_io (&io);
  while (io.listings < 1 + N_FOLDERS && g_get_monotonic_time () < deadline && (g_usleep (1000), TRUE));
  held->connected = io.listings >= 1 + N_FOLDERS;
}

/* A rerun lists the subfolders it will enter first while the scanner
 * lists the folder above, by the source's names (before, only after that
 * listing was back: on the lab share behind 1 ms, 20,000 files in 200
 * folders, the top listing took 0.48 s and the first folder's 0.3 s more
 * before a file could be decided), and lists none of them again; given as
 * "SRC/." and as "SRC". */
static void
test_listed_early (gconstpointer data)
{
  gboolean dot = GPOINTER_TO_INT (data);
  g_autofree char *backing = cs_test_tree_make_tmp ();
  g_autofree char *top = cs_test_tree_make_tmp ();
  g_autofree char *src = g_build_filename (top, "src", NULL);
  HeldListing held = { dot ? "out" : "src", FALSE, FALSE };
  CsFakeSmbIo io;

  make_folders (src);
  cs_fake_smb_install (backing, USER, PASSWORD);
  cs_smb_set_credentials (NULL, PASSWORD);
  if (dot)
    run_into_share (src, CS_OPERATION_COPY);
  else
    {
      g_autofree char *out = g_build_filename (backing, "out", NULL);

      g_assert_cmpint (g_mkdir (out, 0755), ==, 0);
      run_folder_into_share (src);
    }
  write_at (src, "f2/file1.txt", "changed since\n", T_NEW);

  cs_fake_smb_install (backing, USER, PASSWORD);
  cs_fake_smb_on_listed (hold_for_listings, &held);
  if (dot)
    run_into_share (src, CS_OPERATION_COPY);
  else
    run_folder_into_share (src);
  cs_fake_smb_on_listed (NULL, NULL);
  cs_fake_smb_io (&io);
  g_test_message ("listings: %u", io.listings);
  g_assert_true (held.seen);
  g_assert_true (held.connected);
  /* The top, its N_FOLDERS subfolders and f0/sub, each once; as "SRC",
   * out too (the staging sweep's). */
  g_assert_cmpuint (io.listings, ==, N_FOLDERS + 2 + (dot ? 0 : 1));
  {
    g_autofree char *text = read_at (backing, dot ? "out/f2/file1.txt" : "out/src/f2/file1.txt");

    g_assert_cmpstr (text, ==, "changed since\n");
  }

  cs_smb_set_credentials (NULL, NULL);
  cs_test_tree_remove (top);
  cs_test_tree_remove (backing);
}

/* A rerun onto a slow share (each listing held 60 ms: 50 ms and a
 * millisecond per entry say slow) that has a file to replace in each
 * folder: with the first of them the 4 workers set their connections up
 * together, beside the 6 listing threads (before: each worker inside its
 * first file, one after another as the files came). */
static void
test_workers_connected_ahead (void)
{
  g_autofree char *backing = cs_test_tree_make_tmp ();
  g_autofree char *top = cs_test_tree_make_tmp ();
  g_autofree char *src = g_build_filename (top, "src", NULL);
  Overlap overlap = { 0, 0, 60 };
  CsFakeSmbIo io;

  make_folders (src);
  cs_fake_smb_install (backing, USER, PASSWORD);
  cs_smb_set_credentials (NULL, PASSWORD);
  run_into_share (src, CS_OPERATION_COPY);
  for (guint f = 0; f < N_FOLDERS; f++)
    {
      g_autofree char *rel = g_strdup_printf ("f%u/file0.txt", f);

      write_at (src, rel, "changed since\n", T_NEW);
    }

  cs_fake_smb_install (backing, USER, PASSWORD);
  cs_fake_smb_on_listed (slow_listing, &overlap);
  run_into_share (src, CS_OPERATION_COPY);
  cs_fake_smb_on_listed (NULL, NULL);
  cs_fake_smb_io (&io);
  g_test_message ("connections set up ahead: %u", io.connects);
  g_assert_cmpuint (io.connects, ==, N_FOLDERS + 4);
  for (guint f = 0; f < N_FOLDERS; f++)
    {
      g_autofree char *rel = g_strdup_printf ("out/f%u/file0.txt", f);
      g_autofree char *text = read_at (backing, rel);

      g_assert_cmpstr (text, ==, "changed since\n");
    }

  cs_smb_set_credentials (NULL, NULL);
  cs_test_tree_remove (top);
  cs_test_tree_remove (backing);
}

/* A rerun that replaces a file in each folder of a share (each write held
 * 150 ms: the scanner has left the folder when its file is written, so
 * the worker holds the folder's last reference): the folders' times are
 * set, but by none of the threads that write files (before, by the worker
 * that wrote each folder's last file, a CREATE, SETINFO and CLOSE on its
 * way to the next file). */
static void
test_folder_times_off_workers (void)
{
  g_autofree char *backing = cs_test_tree_make_tmp ();
  g_autofree char *top = cs_test_tree_make_tmp ();
  g_autofree char *src = g_build_filename (top, "src", NULL);
  g_autofree char *out = g_build_filename (backing, "out", NULL);
  g_autofree char *set = NULL;
  g_autofree char *wanted = NULL;
  g_autofree char *after = NULL;
  CsFakeSmbIo io;

  make_folders (src);
  cs_fake_smb_install (backing, USER, PASSWORD);
  cs_smb_set_credentials (NULL, PASSWORD);
  run_into_share (src, CS_OPERATION_COPY);
  for (guint f = 0; f < N_FOLDERS; f++)
    {
      g_autofree char *rel = g_strdup_printf ("f%u/file0.txt", f);
      g_autofree char *folder = g_strdup_printf ("f%u", f);

      write_at (src, rel, "changed since\n", T_NEW);
      set_folder (src, folder, T_OLD, 0755);
    }

  cs_fake_smb_install (backing, USER, PASSWORD);
  cs_fake_smb_set_write_delay (150);
  run_into_share (src, CS_OPERATION_COPY);
  cs_fake_smb_io (&io);
  set = cs_fake_smb_dup_folder_times ();
  g_test_message ("folders' times set: %s; by writers: %u", set, io.folder_times_by_writers);
  g_assert_nonnull (strstr (set, "out/f5\n"));
  g_assert_cmpuint (io.folder_times_by_writers, ==, 0);
  /* And they hold: each folder has its source's time again. */
  wanted = folders_of (src);
  after = folders_of (out);
  g_assert_cmpstr (after, ==, wanted);

  cs_smb_set_credentials (NULL, NULL);
  cs_test_tree_remove (top);
  cs_test_tree_remove (backing);
}

/* The folders listed ahead, in the order their listings began (each held
 * a while, as a slow server would, so the threads take one each in turn). */
typedef struct {
  GMutex     lock;
  GPtrArray *names;
} ListedOrder;

static void
note_listed (const char *folder,
             gpointer    data)
{
  ListedOrder *o = data;
  g_autofree char *name = g_path_get_basename (folder);

  g_mutex_lock (&o->lock);
  g_ptr_array_add (o->names, g_steal_pointer (&name));
  g_mutex_unlock (&o->lock);
  /* Under 50 ms, which would say the server is slow: with 32 threads the
   * first 32 folders would begin in the order the threads happen to run. */
  g_usleep (40 * G_TIME_SPAN_MILLISECOND);
}

/* A rerun lists ahead the folders it will enter first: in the order the
 * scanner meets them in the source, not in the order of the destination's
 * table. The scanner waits for each folder it enters, so the first ones'
 * listings must not wait behind others' (the first file to replace
 * reached a worker 1.3 s into a 1 ms rerun of 50 folders). 40 folders on
 * 16 threads: the source's first 12 all among the first 16 listed. */
static void
test_listed_in_source_order (void)
{
  g_autofree char *backing = cs_test_tree_make_tmp ();
  g_autofree char *top = cs_test_tree_make_tmp ();
  g_autofree char *src = g_build_filename (top, "src", NULL);
  g_autoptr(GPtrArray) source_order = g_ptr_array_new_with_free_func (g_free);
  ListedOrder order;
  const char *entry;
  GDir *folder;

  for (guint f = 0; f < 40; f++)
    {
      g_autofree char *rel = g_strdup_printf ("d%02u/file.txt", f);

      write_at (src, rel, "one\n", T_OLD);
    }
  /* What the scanner meets first: the source's own order (readdir). */
  folder = g_dir_open (src, 0, NULL);
  g_assert_nonnull (folder);
  while ((entry = g_dir_read_name (folder)) != NULL)
    g_ptr_array_add (source_order, g_strdup (entry));
  g_dir_close (folder);

  cs_fake_smb_install (backing, USER, PASSWORD);
  cs_smb_set_credentials (NULL, PASSWORD);
  run_into_share (src, CS_OPERATION_COPY);

  g_mutex_init (&order.lock);
  order.names = g_ptr_array_new_with_free_func (g_free);
  cs_fake_smb_install (backing, USER, PASSWORD);
  cs_fake_smb_on_listed (note_listed, &order);
  run_into_share (src, CS_OPERATION_COPY);
  cs_fake_smb_on_listed (NULL, NULL);

  /* "out" itself is listed by the scanner, not ahead. */
  {
    guint out_at = 0;

    g_assert_true (g_ptr_array_find_with_equal_func (order.names, "out", g_str_equal, &out_at));
    g_ptr_array_remove_index (order.names, out_at);
  }
  g_assert_cmpuint (order.names->len, ==, 40);
  for (guint i = 0; i < 12; i++)
    {
      const char *name = g_ptr_array_index (source_order, i);
      guint at = 0;

      g_assert_true (g_ptr_array_find_with_equal_func (order.names, name, g_str_equal, &at));
      g_test_message ("the source's folder %u, %s, listed as %u of 40", i, name, at);
      g_assert_cmpuint (at, <, 16);
    }

  g_ptr_array_unref (order.names);
  g_mutex_clear (&order.lock);
  cs_smb_set_credentials (NULL, NULL);
  cs_test_tree_remove (top);
  cs_test_tree_remove (backing);
}

/* A rerun of "SRC/." lists the destination folder it copies into once: the
 * listing that looks for staging folders a killed run left there is the
 * one the scanner decides that folder's files from. Such a folder is still
 * removed, and not taken for an extra. */
static void
test_top_listed_once (void)
{
  g_autofree char *backing = cs_test_tree_make_tmp ();
  g_autofree char *top = cs_test_tree_make_tmp ();
  g_autofree char *src = g_build_filename (top, "src", NULL);
  g_autofree char *stale = g_build_filename (backing, "out", ".copyscope-0123456789abcdef-3.stage", NULL);
  CsFakeSmbIo io;

  make_folders (src);
  cs_fake_smb_install (backing, USER, PASSWORD);
  cs_smb_set_credentials (NULL, PASSWORD);
  run_into_share (src, CS_OPERATION_COPY);

  /* An empty staging folder of a run that is gone. */
  g_assert_cmpint (g_mkdir (stale, 0700), ==, 0);

  cs_fake_smb_install (backing, USER, PASSWORD);
  run_into_share (src, CS_OPERATION_COPY);
  cs_fake_smb_io (&io);
  g_test_message ("listed with stats: %u; read by names: %u", io.listings, io.name_reads);
  g_assert_false (g_file_test (stale, G_FILE_TEST_EXISTS));
  /* out, f0 … f5, f0/sub: each once, and by names never (the staging
   * folder, empty, gives no names). */
  g_assert_cmpuint (io.listings, ==, 1 + N_FOLDERS + 1);
  g_assert_cmpuint (io.name_reads, ==, 0);

  cs_smb_set_credentials (NULL, NULL);
  cs_test_tree_remove (top);
  cs_test_tree_remove (backing);
}

static const Case copy_newer = { CS_OPERATION_COPY, CS_OVERWRITE_NEWER, FALSE };
static const Case copy_never = { CS_OPERATION_COPY, CS_OVERWRITE_NEVER, FALSE };
static const Case copy_different = { CS_OPERATION_COPY, CS_OVERWRITE_DIFFERENT, FALSE };
static const Case mirror_newer = { CS_OPERATION_MIRROR, CS_OVERWRITE_NEWER, FALSE };
static const Case mirror_different = { CS_OPERATION_MIRROR, CS_OVERWRITE_DIFFERENT, FALSE };
static const Case copy_ignore_case = { CS_OPERATION_COPY, CS_OVERWRITE_NEWER, TRUE };

int
main (int   argc,
      char *argv[])
{
  g_autofree char *runtime = cs_test_tree_make_tmp ();
  int status;

  cs_fake_smb_hide_keyring (runtime);
  g_test_init (&argc, &argv, NULL);

  g_test_add_data_func ("/rerun-smb/copy-newer", &copy_newer, test_same_decisions);
  g_test_add_data_func ("/rerun-smb/copy-never", &copy_never, test_same_decisions);
  g_test_add_data_func ("/rerun-smb/copy-different", &copy_different, test_same_decisions);
  g_test_add_data_func ("/rerun-smb/mirror-newer", &mirror_newer, test_same_decisions);
  g_test_add_data_func ("/rerun-smb/mirror-different", &mirror_different, test_same_decisions);
  g_test_add_data_func ("/rerun-smb/ignore-case", &copy_ignore_case, test_same_decisions);
  g_test_add_func ("/rerun-smb/changed-after-listing", test_changed_after_listing);
  g_test_add_func ("/rerun-smb/listings-overlap", test_listings_overlap);
  g_test_add_func ("/rerun-smb/listings-slow", test_listings_slow);
  g_test_add_func ("/rerun-smb/top-listed-once", test_top_listed_once);
  g_test_add_func ("/rerun-smb/listed-in-source-order", test_listed_in_source_order);
  g_test_add_data_func ("/rerun-smb/connected-ahead/dot", GINT_TO_POINTER (TRUE), test_connected_ahead);
  g_test_add_data_func ("/rerun-smb/connected-ahead/folder", GINT_TO_POINTER (FALSE), test_connected_ahead);
  g_test_add_func ("/rerun-smb/connected-ahead/workers", test_workers_connected_ahead);
  g_test_add_data_func ("/rerun-smb/listed-early/dot", GINT_TO_POINTER (TRUE), test_listed_early);
  g_test_add_data_func ("/rerun-smb/listed-early/folder", GINT_TO_POINTER (FALSE), test_listed_early);
  g_test_add_func ("/rerun-smb/folder-times-off-workers", test_folder_times_off_workers);
  g_test_add_data_func ("/rerun-smb/folders-unchanged/copy", &copy_newer, test_folders_unchanged);
  g_test_add_data_func ("/rerun-smb/folders-unchanged/mirror", &mirror_newer, test_folders_unchanged);
  g_test_add_data_func ("/rerun-smb/folders-changed/copy", &copy_newer, test_folders_changed);
  g_test_add_data_func ("/rerun-smb/folders-changed/mirror", &mirror_newer, test_folders_changed);

  status = g_test_run ();
  cs_test_tree_remove (runtime);
  return status;
}
