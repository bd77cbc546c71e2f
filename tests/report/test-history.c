/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-report"

#include "config.h"

#include <locale.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "cs-history.h"
#include "cs-run-private.h"
#include "cs-sweep.h"
#include "report-fixtures.h"

#define ID_OLD "11111111-1111-4111-8111-111111111111"
#define ID_NEW "22222222-2222-4222-8222-222222222222"

static CsRun *
run_started_at (const char *id,
                gint64      seconds)
{
  g_autoptr(CsRun) run = fixture_run ("T1", id, 2, 1.0);

  _cs_run_set_started (run, seconds * G_USEC_PER_SEC);
  return g_steal_pointer (&run);
}

static void
test_history_empty (void)
{
  g_autoptr(GPtrArray) entries = NULL;
  g_autoptr(GError) error = NULL;
  guint skipped = 99;

  /* No folder yet: an empty history, not an error. */
  entries = cs_history_list (&skipped, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (entries->len, ==, 0);
  g_assert_cmpuint (skipped, ==, 0);
}

static void
test_history_cycle (void)
{
  g_autoptr(CsRun) old_run = run_started_at (ID_OLD, 1600000000);
  g_autoptr(CsRun) new_run = run_started_at (ID_NEW, 1700000000);
  g_autoptr(GPtrArray) entries = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(CsRun) loaded = NULL;
  g_autofree char *dir = cs_history_get_dir ();
  g_autofree char *path = NULL;
  g_autofree char *junk = NULL;
  g_autofree char *label = NULL;
  g_autofree char *expected_dir = g_build_filename (g_get_user_data_dir (), "copyscope", "runs", NULL);
  struct stat st;
  guint skipped = 0;

  g_assert_cmpstr (dir, ==, expected_dir);

  path = cs_history_save (old_run, &error);
  g_assert_no_error (error);
  g_assert_true (g_str_has_suffix (path, "/20200913T122640Z-" ID_OLD ".json"));
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0644);
  g_clear_pointer (&path, g_free);

  path = cs_history_save (new_run, &error);
  g_assert_no_error (error);

  /* Saving a run again (the undo of a delete, a new label) replaces its own
   * file rather than adding a second one. */
  {
    g_autofree char *again = NULL;

    cs_run_set_label (new_run, "Second save");
    again = cs_history_save (new_run, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (again, ==, path);
  }

  /* Unreadable files are skipped and counted, never fatal. */
  junk = g_build_filename (dir, "broken.json", NULL);
  g_assert_true (g_file_set_contents (junk, "{\"schema_version\": 1", -1, NULL));

  entries = cs_history_list (&skipped, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (entries->len, ==, 2);
  g_assert_cmpuint (skipped, ==, 1);
  g_assert_cmpstr (cs_run_get_id (((CsHistoryEntry *) entries->pdata[0])->run), ==, ID_NEW);
  g_assert_cmpstr (cs_run_get_id (((CsHistoryEntry *) entries->pdata[1])->run), ==, ID_OLD);
  g_clear_pointer (&entries, g_ptr_array_unref);

  g_assert_true (cs_history_set_label (ID_OLD, "Baseline <1 thread>", &error));
  g_assert_no_error (error);
  loaded = cs_history_load (ID_OLD, &error);
  g_assert_no_error (error);
  label = cs_run_dup_label (loaded);
  g_assert_cmpstr (label, ==, "Baseline <1 thread>");

  /* Still one file per run after the rewrite, and no temporaries; the
   * index (hidden) beside them. */
  {
    g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
    const char *name;
    guint n = 0;

    while ((name = g_dir_read_name (d)) != NULL)
      n += name[0] != '.';
    g_assert_cmpuint (n, ==, 3);
  }

  g_assert_true (cs_history_delete (ID_OLD, &error));
  g_assert_no_error (error);
  g_assert_false (cs_history_delete (ID_OLD, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&error);

  g_assert_null (cs_history_load ("../../etc/passwd", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  entries = cs_history_list (NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (entries->len, ==, 1);
  g_assert_cmpstr (cs_run_get_id (((CsHistoryEntry *) entries->pdata[0])->run), ==, ID_NEW);

  g_unlink (junk);
}

static guint
count_labelled (GPtrArray  *entries,
                const char *label)
{
  guint n = 0;

  for (guint i = 0; i < entries->len; i++)
    {
      CsRun *run = ((CsHistoryEntry *) g_ptr_array_index (entries, i))->run;
      g_autofree char *l = cs_run_dup_label (run);

      g_assert_true (cs_run_is_header (run));
      g_assert_cmpuint (cs_run_get_n_samples (run), ==, 8);
      n += g_strcmp0 (l, label) == 0;
    }

  return n;
}

/* The list comes from the index, and stays true whoever writes the folder:
 * records added, rewritten or removed by another program, or broken. */
static void
test_history_index (void)
{
  g_autoptr(CsRun) a = run_started_at (ID_OLD, 1600000000);
  g_autoptr(CsRun) b = run_started_at (ID_NEW, 1700000000);
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = cs_history_get_dir ();
  g_autofree char *index = g_build_filename (dir, ".index", NULL);
  g_autofree char *path_a = NULL;
  g_autofree char *path_b = NULL;
  g_autofree char *text = NULL;
  char *label;
  gsize len = 0;
  guint skipped = 0;

  path_a = cs_history_save (a, &error);
  g_assert_no_error (error);

  {
    g_autoptr(GPtrArray) entries = cs_history_list (&skipped, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (entries->len, ==, 1);
    g_assert_true (g_file_test (index, G_FILE_TEST_IS_REGULAR));
  }

  /* Another program saves a record and rewrites the first (same size). */
  path_b = cs_history_save (b, &error);
  g_assert_no_error (error);
  cs_run_set_label (a, "T9");
  g_assert_true (cs_run_save (a, path_a, &error));
  {
    g_autoptr(GPtrArray) entries = cs_history_list (&skipped, &error);

    g_assert_cmpuint (entries->len, ==, 2);
    g_assert_cmpuint (count_labelled (entries, "T9"), ==, 1);
    g_assert_cmpuint (count_labelled (entries, "T1"), ==, 1);
    g_assert_cmpuint (skipped, ==, 0);
  }

  /* Listed from the index alone: a summary it holds is what the list shows.
   * (Made unreadable there, the record is read again.) */
  g_assert_true (g_file_get_contents (index, &text, &len, NULL));
  label = memmem (text, len, "T9", 3);
  g_assert_nonnull (label);
  label[1] = '8';
  g_assert_true (g_file_set_contents (index, text, len, NULL));
  {
    g_autoptr(GPtrArray) entries = cs_history_list (&skipped, &error);

    g_assert_cmpuint (count_labelled (entries, "T8"), ==, 1);
  }

  /* Removed by another program, and a broken one beside it. */
  g_assert_cmpint (g_unlink (path_b), ==, 0);
  g_free (path_b);
  path_b = g_build_filename (dir, "20240101T000000Z-33333333-3333-4333-8333-333333333333.json", NULL);
  g_assert_true (g_file_set_contents (path_b, "{\"schema_version\": 2}", -1, NULL));
  for (guint round = 0; round < 2; round++)
    {
      g_autoptr(GPtrArray) entries = cs_history_list (&skipped, &error);

      g_assert_cmpuint (entries->len, ==, 1);
      g_assert_cmpuint (skipped, ==, 1);
    }

  /* A broken index is built again. */
  g_assert_true (g_file_set_contents (index, "{\"version\": [", -1, NULL));
  {
    g_autoptr(GPtrArray) entries = cs_history_list (&skipped, &error);

    g_assert_cmpuint (entries->len, ==, 1);
    g_assert_cmpuint (count_labelled (entries, "T9"), ==, 1);
  }

  g_unlink (path_a);
  g_unlink (path_b);
  g_unlink (index);
}

static void
test_history_sweeps (void)
{
  g_autoptr(CsRun) run = run_started_at (ID_OLD, 1600000000);
  g_autoptr(GPtrArray) entries = NULL;
  g_autoptr(GPtrArray) sweeps = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = cs_history_get_dir ();
  g_autofree char *run_path = NULL;
  g_autofree char *old_sweep = g_build_filename (dir, "sweep-20200101T000000Z.json", NULL);
  g_autofree char *new_sweep = g_build_filename (dir, "sweep-20240101T000000Z.json", NULL);
  g_autofree char *temporary = g_build_filename (dir, "sweep-20240101T000000Z.json.XYZ123", NULL);
  guint skipped = 99;

  /* No folder yet: no sweeps. */
  sweeps = cs_history_list_sweeps ();
  g_assert_cmpuint (sweeps->len, ==, 0);
  g_clear_pointer (&sweeps, g_ptr_array_unref);

  run_path = cs_history_save (run, &error);
  g_assert_no_error (error);

  /* Real sweep files: their JSON would fail to load as a run. */
  {
    g_autoptr(CsSweep) sweep = cs_sweep_new ("/source", "/destination");
    const guint threads[] = { 1, 2 };

    cs_sweep_set_threads (sweep, threads, G_N_ELEMENTS (threads));
    g_assert_true (cs_sweep_save (sweep, old_sweep, &error));
    g_assert_no_error (error);
    g_assert_true (cs_sweep_save (sweep, new_sweep, &error));
    g_assert_no_error (error);
    g_assert_null (cs_run_load (new_sweep, &error));
    g_assert_nonnull (error);
    g_clear_error (&error);
  }
  g_assert_true (g_file_set_contents (temporary, "{", -1, NULL));

  entries = cs_history_list (&skipped, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (entries->len, ==, 1);
  g_assert_cmpstr (((CsHistoryEntry *) entries->pdata[0])->path, ==, run_path);
  g_assert_cmpuint (skipped, ==, 0);

  sweeps = cs_history_list_sweeps ();
  g_assert_cmpuint (sweeps->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (sweeps, 0), ==, new_sweep);
  g_assert_cmpstr (g_ptr_array_index (sweeps, 1), ==, old_sweep);

  g_unlink (temporary);
  g_unlink (new_sweep);
  g_unlink (old_sweep);
  g_unlink (run_path);
}

static guint
count_files (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;

  while (d != NULL && g_dir_read_name (d) != NULL)
    n++;
  return n;
}

/* A reserved file is the saved file, named only at commit; dropped, it
 * leaves nothing. */
static void
test_history_reserve (void)
{
  g_autoptr(CsRun) run = run_started_at (ID_OLD, 1600000000);
  g_autoptr(CsRun) moved = run_started_at (ID_NEW, 1700000000);
  g_autoptr(CsHistorySlot) slot = NULL;
  g_autoptr(CsHistorySlot) dropped = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = cs_history_get_dir ();
  g_autofree char *path = NULL;
  g_autofree char *reference = NULL;
  g_autofree char *saved = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *moved_path = NULL;
  g_autoptr(CsRun) loaded = NULL;

  /* the folder is made by the reservation, the file is not there yet */
  slot = cs_history_reserve (run);
  g_assert_true (g_file_test (dir, G_FILE_TEST_IS_DIR));
  g_assert_cmpuint (count_files (dir), ==, 0);

  path = cs_history_commit (slot, run, &error);
  g_assert_no_error (error);
  g_assert_nonnull (path);
  g_assert_true (g_str_has_prefix (path, dir));
  g_assert_cmpuint (count_files (dir), ==, 1);

  /* the same bytes cs_history_save () writes */
  g_assert_true (g_file_get_contents (path, &saved, NULL, NULL));
  reference = g_build_filename (g_get_tmp_dir (), "reference.json", NULL);
  g_assert_true (cs_run_save (run, reference, &error));
  g_assert_true (g_file_get_contents (reference, &expected, NULL, NULL));
  g_assert_cmpstr (saved, ==, expected);
  loaded = cs_history_load (ID_OLD, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (cs_run_get_id (loaded), ==, ID_OLD);

  /* a reservation never committed is no file */
  dropped = cs_history_reserve (moved);
  g_clear_pointer (&dropped, cs_history_slot_free);
  g_assert_cmpuint (count_files (dir), ==, 1);

  /* a run that is not the one reserved for is saved the ordinary way */
  dropped = cs_history_reserve (run);
  moved_path = cs_history_commit (dropped, moved, &error);
  g_assert_no_error (error);
  g_assert_nonnull (moved_path);
  g_assert_nonnull (strstr (moved_path, ID_NEW));
  g_assert_cmpuint (count_files (dir), ==, 2);

  /* no reservation at all */
  g_unlink (moved_path);
  g_clear_pointer (&moved_path, g_free);
  moved_path = cs_history_commit (NULL, moved, &error);
  g_assert_no_error (error);
  g_assert_true (g_file_test (moved_path, G_FILE_TEST_IS_REGULAR));

  g_unlink (moved_path);
  g_unlink (path);
  g_unlink (reference);
}

/* A run's per-file log: unnamed while written, then beside the record with
 * its name; never listed as a record; deleted with the run, or set aside for
 * an Undo and put back. */
static void
test_history_log (void)
{
  g_autoptr(CsRun) run = run_started_at (ID_OLD, 1600000000);
  g_autoptr(CsHistoryLog) log = NULL;
  g_autoptr(CsHistoryLog) dropped = NULL;
  g_autoptr(GPtrArray) entries = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = cs_history_get_dir ();
  g_autofree char *record = NULL;
  g_autofree char *path = NULL;
  g_autofree char *found = NULL;
  g_autofree char *text = NULL;
  g_autofree char *aside = NULL;
  g_autofree char *aside_base = NULL;
  const char line[] = "copied\t1\t/src/a\\nb\n";
  guint skipped = 99;

  g_assert_null (cs_history_find_log (run));
  log = cs_history_log_new (&error);
  g_assert_no_error (error);
  g_assert_cmpint (write (cs_history_log_get_fd (log), line, strlen (line)), ==, (gssize) strlen (line));
  g_assert_cmpuint (count_files (dir), ==, 0);
  /* a log dropped before its run ended leaves nothing */
  dropped = cs_history_log_new (&error);
  g_assert_no_error (error);
  g_clear_pointer (&dropped, cs_history_log_free);
  g_assert_cmpuint (count_files (dir), ==, 0);

  record = cs_history_save (run, &error);
  g_assert_no_error (error);
  path = cs_history_log_commit (log, run, &error);
  g_assert_no_error (error);
  g_assert_true (g_str_has_suffix (record, ".json"));
  g_assert_cmpint (strlen (path), ==, strlen (record) - 1);
  g_assert_true (strncmp (path, record, strlen (record) - strlen ("json")) == 0);
  g_assert_true (g_str_has_suffix (path, ".log"));
  found = cs_history_find_log (run);
  g_assert_cmpstr (found, ==, path);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, line);

  /* listed: the run alone, the log no unreadable record */
  entries = cs_history_list (&skipped, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (entries->len, ==, 1);
  g_assert_cmpuint (skipped, ==, 0);
  g_clear_pointer (&entries, g_ptr_array_unref);

  /* set aside for an Undo: hidden, kept by a listing, put back */
  g_assert_true (cs_history_delete_full (ID_OLD, &aside, &error));
  g_assert_no_error (error);
  g_assert_nonnull (aside);
  aside_base = g_path_get_basename (aside);
  g_assert_true (aside_base[0] == '.');
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (record, G_FILE_TEST_EXISTS));
  g_assert_null (cs_history_find_log (run));
  entries = cs_history_list (&skipped, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (entries->len, ==, 0);
  g_assert_cmpuint (skipped, ==, 0);
  g_clear_pointer (&entries, g_ptr_array_unref);
  g_assert_true (g_file_test (aside, G_FILE_TEST_IS_REGULAR));
  g_clear_pointer (&record, g_free);
  record = cs_history_save (run, &error);
  g_assert_no_error (error);
  g_assert_true (cs_history_restore_log (aside, run, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  g_assert_false (g_file_test (aside, G_FILE_TEST_EXISTS));

  /* deleted, the run takes its log along */
  g_assert_true (cs_history_delete (ID_OLD, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (record, G_FILE_TEST_EXISTS));

  /* a run without a log deletes as before */
  g_clear_pointer (&record, g_free);
  record = cs_history_save (run, &error);
  g_assert_no_error (error);
  g_clear_pointer (&aside, g_free);
  g_assert_true (cs_history_delete_full (ID_OLD, &aside, &error));
  g_assert_no_error (error);
  g_assert_null (aside);
  g_assert_false (g_file_test (record, G_FILE_TEST_EXISTS));
}

int
main (int   argc,
      char *argv[])
{
  setlocale (LC_ALL, "");
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/history/empty", test_history_empty);
  g_test_add_func ("/history/cycle", test_history_cycle);
  g_test_add_func ("/history/index", test_history_index);
  g_test_add_func ("/history/sweeps", test_history_sweeps);
  g_test_add_func ("/history/reserve", test_history_reserve);
  g_test_add_func ("/history/log", test_history_log);

  return g_test_run ();
}
