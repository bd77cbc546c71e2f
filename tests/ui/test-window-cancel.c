/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-window"

#include "config.h"

#include "test-window.h"

/* Stopping a copy, keeping or not a big file's partial copy, conflicts and
 * retrying failed files. */

/* Opening a source whose name starts with "bad-" fails, as an unreadable file
 * would for anyone but root, who runs CI. */
static CsIoTable fault_table;

static int
fault_openat (int         dirfd,
              const char *path,
              int         flags,
              mode_t      mode)
{
  const char *name = strrchr (path, '/');

  name = name != NULL ? name + 1 : path;
  if ((flags & O_ACCMODE) == O_RDONLY && !(flags & O_DIRECTORY) && g_str_has_prefix (name, "bad-"))
    {
      errno = EIO;
      return -1;
    }

  return openat (dirfd, path, flags, mode);
}

static void
assert_same_bytes (const char *a,
                   const char *b)
{
  g_autofree char *data_a = NULL;
  g_autofree char *data_b = NULL;
  gsize len_a, len_b;

  g_assert_true (g_file_get_contents (a, &data_a, &len_a, NULL));
  if (!g_file_get_contents (b, &data_b, &len_b, NULL))
    g_error ("%s was not copied to %s", a, b);
  g_assert_cmpmem (data_a, len_a, data_b, len_b);
}

/* Failures in two folders, retried from the summary and then from the retry's
 * own summary: exactly those files are copied again, each into its own folder,
 * and nothing else is touched. */
void
test_retry_failed (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "source", NULL);
  g_autofree char *destination = g_build_filename (root, "destination", NULL);
  g_autofree char *src_a = g_build_filename (source, "a", NULL);
  g_autofree char *src_c = g_build_filename (source, "b", "c", NULL);
  const char *files[] = { "a/ok-1.bin", "a/bad-1.bin", "b/c/ok-2.bin", "b/c/bad-2.bin", "top.bin" };
  g_autoptr(GSettings) settings = g_settings_new ("io.github.copyscope.Copyscope");
  g_autofree char *changed = g_build_filename (destination, "source", "a", "ok-1.bin", NULL);
  struct timespec old_times[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
  CsWindow *window;
  CsRun *run;
  CsTotals totals;

  g_assert_cmpint (g_mkdir_with_parents (src_a, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (src_c, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (destination, 0755), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_build_filename (source, files[i], NULL);

      write_file (path, 3000 + i * 1000, 30 + i);
    }

  window = window_with_copy (source, destination, 2);
  /* Failures are final at once; waiting out retries proves nothing here. */
  g_settings_set_uint (settings, "retries", 0);
  fault_table = *_cs_io_get_default ();
  fault_table.openat = fault_openat;
  _cs_io_set (&fault_table);

  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));

  run = cs_summary_page_get_run (summary_page (window));
  cs_run_get_totals (run, &totals);
  g_assert_cmpuint (totals.v[CS_CLASS_FAILED][CS_KIND_FILES], ==, 2);
  g_assert_cmpuint (totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, 3);

  /* A copy that is older than its source and differs from it: going over the
   * sources again would replace it; retrying only the failures leaves it. */
  write_file (changed, 10, 99);
  g_assert_cmpint (utimensat (AT_FDCWD, changed, old_times, 0), ==, 0);

  /* The first retry fails the same two files again; the retry's own summary
   * retries them once more, still each into its own folder. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.retry-failed", NULL);
  g_assert_nonnull (cs_window_get_job (window));
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  _cs_io_set (NULL);

  run = cs_summary_page_get_run (summary_page (window));
  cs_run_get_totals (run, &totals);
  g_assert_cmpuint (totals.v[CS_CLASS_FAILED][CS_KIND_FILES], ==, 2);
  g_assert_cmpuint (totals.v[CS_CLASS_TOTAL][CS_KIND_FILES], ==, 2);

  gtk_widget_activate_action (GTK_WIDGET (window), "win.retry-failed", NULL);
  g_assert_nonnull (cs_window_get_job (window));
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));

  run = cs_summary_page_get_run (summary_page (window));
  g_assert_cmpstr (cs_run_get_outcome (run), ==, "completed");
  cs_run_get_totals (run, &totals);
  g_assert_cmpuint (totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, 2);
  g_assert_cmpuint (totals.v[CS_CLASS_TOTAL][CS_KIND_FILES], ==, 2);
  g_assert_cmpuint (totals.v[CS_CLASS_FAILED][CS_KIND_FILES], ==, 0);

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *src = g_build_filename (source, files[i], NULL);
      g_autofree char *dst = g_build_filename (destination, "source", files[i], NULL);

      if (g_str_equal (files[i], "a/ok-1.bin"))
        {
          g_autofree char *data = NULL;
          gsize len;

          g_assert_true (g_file_get_contents (dst, &data, &len, NULL));
          g_assert_cmpuint (len, ==, 10);
        }
      else
        assert_same_bytes (src, dst);
    }
  /* Nothing landed at the top under the failed files' own names. */
  {
    g_autofree char *stray_1 = g_build_filename (destination, "bad-1.bin", NULL);
    g_autofree char *stray_2 = g_build_filename (destination, "source", "bad-2.bin", NULL);

    g_assert_false (g_file_test (stray_1, G_FILE_TEST_EXISTS));
    g_assert_false (g_file_test (stray_2, G_FILE_TEST_EXISTS));
  }
  g_assert_cmpuint (count_temporaries (destination), ==, 0);

  g_settings_reset (settings, "retries");
  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
}

static gboolean
cancel_dialog_shown (gpointer data)
{
  CsWindow *window = data;

  return cs_ui_find_dialog (window) != NULL || cs_window_get_job (window) == NULL;
}

typedef struct
{
  CsWindow   *window;
  const char *destination;
} InFlight;

/* Files being written into @path by this process: a named temporary shows in
 * the folder, an unnamed one (O_TMPFILE, how a local disk starts a new file)
 * only as an open descriptor. */
static guint
count_in_flight (const char *path)
{
  g_autoptr(GDir) fds = g_dir_open ("/proc/self/fd", 0, NULL);
  g_autofree char *prefix = g_strconcat (path, "/", NULL);
  const char *name;
  guint n = count_temporaries (path);

  g_assert_nonnull (fds);
  while ((name = g_dir_read_name (fds)) != NULL)
    {
      g_autofree char *link = g_build_filename ("/proc/self/fd", name, NULL);
      g_autofree char *target = g_file_read_link (link, NULL);

      /* An unnamed temporary reads as "FOLDER/#INODE (deleted)". */
      if (target != NULL && g_str_has_prefix (target, prefix) && g_str_has_suffix (target, " (deleted)"))
        n++;
    }

  return n;
}

static gboolean
file_in_flight (gpointer data)
{
  InFlight *in_flight = data;

  return cs_window_get_job (in_flight->window) == NULL ||
         count_in_flight (in_flight->destination) > 0;
}

void
test_cancel (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "source", NULL);
  g_autofree char *destination = g_build_filename (root, "destination", NULL);
  InFlight in_flight;
  AdwMessageDialog *dialog;
  CsTotals totals;
  CsWindow *window;
  CsRun *run;

  generate (source, 24, 64 << 20);
  g_assert_cmpint (g_mkdir (destination, 0755), ==, 0);

  /* Limited, so that a warm copy of 1.5 GiB is still under way when paused. */
  window = window_with_copy (source, destination, 2);
  cs_speed_limit_set_max_rate (cs_setup_page_get_speed_limit (setup_page (window)), 300e6);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);

  /* Pause with files half-written, so cancelling has temporaries to clean.
   * A pause holds each worker before its next piece of a file, or before its
   * next file: on a loaded machine both workers can be between files at that
   * moment, having published the ones seen in flight. Then the copy goes on
   * and is paused again, until a pause finds files half-written. */
  in_flight.window = window;
  in_flight.destination = destination;
  for (guint attempt = 0;; attempt++)
    {
      g_assert_true (cs_ui_wait_until (file_in_flight, &in_flight, WAIT_SECONDS));
      g_assert_nonnull (cs_window_get_job (window));
      gtk_widget_activate_action (GTK_WIDGET (window), "win.pause", NULL);
      g_assert_true (cs_ui_wait_until (job_paused, window, WAIT_SECONDS));
      g_assert_nonnull (cs_window_get_job (window));
      if (count_in_flight (destination) > 0)
        break;
      g_test_message ("paused between files (attempt %u): going on", attempt + 1);
      g_assert_cmpuint (attempt, <, 20);
      gtk_widget_activate_action (GTK_WIDGET (window), "win.pause", NULL);
    }
  g_assert_cmpuint (count_in_flight (destination), >, 0);
  cs_ui_screenshot (window, "03-paused.png");

  gtk_widget_activate_action (GTK_WIDGET (window), "win.cancel", NULL);
  g_assert_true (cs_ui_wait_until (cancel_dialog_shown, window, WAIT_SECONDS));
  dialog = cs_ui_find_dialog (window);
  g_assert_nonnull (dialog);
  cs_ui_screenshot (dialog, "06-cancel-dialog.png");
  cs_ui_answer (dialog, "Cancel Copy");

  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  run = cs_summary_page_get_run (summary_page (window));
  g_assert_cmpstr (cs_run_get_outcome (run), ==, "cancelled");
  cs_run_get_totals (run, &totals);
  g_assert_cmpuint (totals.v[CS_CLASS_COPIED][CS_KIND_FILES], <, 24);
  g_assert_cmpuint (count_in_flight (destination), ==, 0);
  cs_ui_screenshot (window, "06-cancelled.png");

  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
}

/* Files whose names start with ".copyscope-resume-" in @dir. */
static guint
count_partials (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    n += g_str_has_prefix (name, ".copyscope-resume-");
  return n;
}

/* Whether a partial copy in @data (a folder) has a block journaled: a
 * journal longer than its header. */
static gboolean
block_journaled (gpointer data)
{
  g_autoptr(GDir) d = g_dir_open (data, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, ".copyscope-resume-") && g_str_has_suffix (name, ".journal"))
      {
        g_autofree char *path = g_build_filename (data, name, NULL);
        struct stat st;

        if (stat (path, &st) == 0 && st.st_size > 80)
          return TRUE;
      }
  return FALSE;
}

/* The check box of the cancel dialog, when it shows. */
static GtkCheckButton *
shown_keep_box (AdwMessageDialog *dialog)
{
  GtkWidget *keep = cs_ui_find (dialog, GTK_TYPE_CHECK_BUTTON);

  return keep != NULL && gtk_widget_get_visible (keep) ? GTK_CHECK_BUTTON (keep) : NULL;
}

/* Without a big file in flight, the cancel dialog offers nothing to keep. */
void
test_cancel_small (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "source", NULL);
  g_autofree char *destination = g_build_filename (root, "destination", NULL);
  AdwMessageDialog *dialog;
  CsWindow *window;

  generate (source, 200, 1 << 20);
  g_assert_cmpint (g_mkdir (destination, 0755), ==, 0);

  window = window_with_copy (source, destination, 2);
  cs_speed_limit_set_max_rate (cs_setup_page_get_speed_limit (setup_page (window)), 20e6);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (cs_ui_wait_until (job_running, window, WAIT_SECONDS));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.cancel", NULL);
  g_assert_true (cs_ui_wait_until (cancel_dialog_shown, window, WAIT_SECONDS));
  dialog = cs_ui_find_dialog (window);
  g_assert_nonnull (dialog);
  g_assert_null (shown_keep_box (dialog));
  cs_ui_answer (dialog, "Cancel Copy");
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  g_assert_cmpuint (count_partials (destination), ==, 0);

  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
}

/* The bytes of @run's events of @kind ("resume": gone on with from earlier
 * partial copies; "kept": left for a later run). */
static guint64
event_bytes (CsRun      *run,
             const char *kind)
{
  g_autoptr(GArray) events = cs_run_dup_events (run);
  guint64 bytes = 0;

  for (guint i = 0; i < events->len; i++)
    if (g_strcmp0 (g_array_index (events, CsRunEvent, i).kind, kind) == 0)
      bytes += (guint64) g_array_index (events, CsRunEvent, i).value;
  return bytes;
}

/* Whether @window shows the sentence @format, with @bytes and the size of
 * big.bin in it. */
static gboolean
shows_partial (CsWindow   *window,
               const char *format,
               guint64     bytes)
{
  g_autofree char *bytes_text = g_format_size (bytes);
  g_autofree char *size_text = g_format_size (256 << 20);
  g_autofree char *sentence = g_strdup_printf (format, bytes_text, size_text);

  return cs_ui_find_label (window, sentence) != NULL;
}

typedef struct {
  CsWindow   *window;
  const char *title;          /* NULL: any */
} HintWait;

/* Whether the setup page says, under the destination, that a partial will
 * be gone on from, in the words @data (a HintWait) gives. */
static gboolean
hint_shows (gpointer data)
{
  HintWait *w = data;
  GtkWidget *hint = cs_ui_find (w->window, CS_TYPE_RESUME_HINT);

  return hint != NULL && gtk_widget_is_visible (hint)
         && (w->title == NULL
             || g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (hint)), w->title) == 0);
}

/* A 256 MiB file cut short by a cancel that keeps it: the dialog offers it,
 * the summary says it is kept; set up again, the same copy says before
 * Start what it will go on from, goes on from it, says so, and leaves no
 * partial behind; set up once more, it says nothing of a partial. */
void
test_cancel_keep (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "source", NULL);
  g_autofree char *destination = g_build_filename (root, "destination", NULL);
  g_autofree char *copy = g_build_filename (destination, "source", NULL);
  g_autofree char *big = g_build_filename (source, "big.bin", NULL);
  AdwMessageDialog *dialog;
  GtkCheckButton *keep;
  CsWindow *window;
  guint64 kept;
  CsRun *run;

  g_assert_cmpint (g_mkdir (source, 0755), ==, 0);
  write_file (big, 256 << 20, 5);
  g_assert_cmpint (g_mkdir (destination, 0755), ==, 0);

  /* Limited, as a copy where resuming pays is slow: a block that copies
   * faster than 1 GB/s is not journaled (it costs less to copy again). */
  window = window_with_copy (source, destination, 2);
  cs_speed_limit_set_max_rate (cs_setup_page_get_speed_limit (setup_page (window)), 100e6);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (cs_ui_wait_until (block_journaled, copy, WAIT_SECONDS));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.pause", NULL);
  g_assert_true (cs_ui_wait_until (job_paused, window, WAIT_SECONDS));
  g_assert_nonnull (cs_window_get_job (window));

  gtk_widget_activate_action (GTK_WIDGET (window), "win.cancel", NULL);
  g_assert_true (cs_ui_wait_until (cancel_dialog_shown, window, WAIT_SECONDS));
  dialog = cs_ui_find_dialog (window);
  keep = shown_keep_box (dialog);
  g_assert_nonnull (keep);
  g_assert_nonnull (cs_ui_find_label (dialog, "partial copy of 1 big file ("));
  gtk_check_button_set_active (keep, TRUE);
  cs_ui_screenshot (dialog, "06-cancel-dialog-keep.png");
  cs_ui_answer (dialog, "Cancel Copy");
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  g_assert_cmpstr (cs_run_get_outcome (cs_summary_page_get_run (summary_page (window))), ==, "cancelled");
  g_assert_cmpuint (count_partials (copy), ==, 2);
  kept = event_bytes (cs_summary_page_get_run (summary_page (window)), "kept");
  g_assert_cmpuint (kept, >, 0);
  g_assert_true (shows_partial (window, "Kept to resume: source/big.bin, %s of %s\n", kept));
  cs_ui_screenshot (window, "06-cancelled-kept.png");

  /* The same copy set up again: before Start the page says how far it will
   * go on, every byte kept. */
  {
    g_autofree char *kept_text = g_format_size (kept);
    g_autofree char *size_text = g_format_size (256 << 20);
    g_autofree char *title = g_strdup_printf ("source/big.bin will go on from %s of %s, kept by an earlier copy",
                                              kept_text, size_text);
    HintWait wait = { window, title };
    g_autoptr(GFile) source_file = g_file_new_for_path (source);
    GFile *sources[] = { source_file };

    gtk_widget_activate_action (GTK_WIDGET (window), "win.new-copy", NULL);
    cs_window_add_sources (window, sources, 1);
    g_assert_true (cs_ui_wait_until (hint_shows, &wait, WAIT_SECONDS));
    cs_ui_screenshot (window, "07-resume-hint.png");
  }

  /* It goes on, and leaves no partial behind. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));
  run = cs_summary_page_get_run (summary_page (window));
  g_assert_cmpstr (cs_run_get_outcome (run), ==, "completed");
  /* From where the cancel left it, every byte it kept. */
  g_assert_cmpuint (event_bytes (run, "resume"), ==, kept);
  g_assert_cmpuint (count_partials (copy), ==, 0);
  cs_test_tree_assert_equal (source, copy);
  g_assert_true (shows_partial (window, "Resumed source/big.bin at %s of %s", kept));
  cs_ui_screenshot (window, "07-resumed.png");

  /* Set up once more: nothing is left to go on from, and nothing is said. */
  {
    HintWait wait = { window, NULL };
    g_autoptr(GFile) source_file = g_file_new_for_path (source);
    GFile *sources[] = { source_file };

    gtk_widget_activate_action (GTK_WIDGET (window), "win.new-copy", NULL);
    cs_window_add_sources (window, sources, 1);
    g_assert_false (cs_ui_wait_until (hint_shows, &wait, 2));
  }

  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
}

void
test_conflict (void)
{
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "source", NULL);
  g_autofree char *destination = g_build_filename (root, "destination", NULL);
  g_autofree char *copied = g_build_filename (destination, "source", NULL);
  const char *names[] = { "keep.txt", "replace.txt" };
  gint64 dst_mtime = g_get_real_time () / G_USEC_PER_SEC - 60;
  gint64 src_mtime = dst_mtime - 3 * 24 * 3600;
  g_autoptr(GDateTime) src_date = NULL;
  g_autofree char *src_text = NULL;
  CsWindow *window;
  guint answered = 0;

  g_assert_cmpint (g_mkdir (source, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (copied, 0755), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *src = g_build_filename (source, names[i], NULL);
      g_autofree char *dst = g_build_filename (copied, names[i], NULL);

      write_file (src, 5000, 10 + i);
      write_file (dst, 700, 20 + i);
      /* The one being copied is larger, the one there newer. */
      g_assert_cmpint (g_utime (src, &(struct utimbuf) { src_mtime, src_mtime }), ==, 0);
      g_assert_cmpint (g_utime (dst, &(struct utimbuf) { dst_mtime, dst_mtime }), ==, 0);
    }
  /* And one already there, the same: skipped without a question. */
  {
    g_autofree char *src = g_build_filename (source, "same.txt", NULL);
    g_autofree char *dst = g_build_filename (copied, "same.txt", NULL);

    write_file (src, 300, 30);
    write_file (dst, 300, 30);
    g_assert_cmpint (g_utime (src, &(struct utimbuf) { src_mtime, src_mtime }), ==, 0);
    g_assert_cmpint (g_utime (dst, &(struct utimbuf) { src_mtime, src_mtime }), ==, 0);
  }
  src_date = g_date_time_new_from_unix_local (src_mtime);
  src_text = g_date_time_format (src_date, "%e %b %Y, %H:%M");

  window = window_with_copy (source, destination, 1);
  cs_setup_page_set_overwrite (setup_page (window), CS_OVERWRITE_ASK);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_nonnull (cs_window_get_job (window));

  while (answered < G_N_ELEMENTS (names))
    {
      AdwMessageDialog *dialog;
      const char *body;

      g_assert_true (cs_ui_wait_until (conflict_shown, window, WAIT_SECONDS));
      dialog = cs_ui_find_dialog (window);
      g_assert_nonnull (dialog);

      if (answered == 0)
        cs_ui_screenshot (dialog, "04-conflict.png");

      /* The dialog names the file it asks about. */
      body = adw_message_dialog_get_body (dialog);
      g_assert_true (strstr (body, "keep.txt") != NULL || strstr (body, "replace.txt") != NULL);
      /* In the user's words, which side is newer and which larger. */
      g_assert_nonnull (strstr (body, src_text));
      g_assert_nonnull (strstr (body, " — newer\nBeing copied: "));
      g_assert_nonnull (strstr (body, " — larger\n"));
      cs_ui_answer (dialog, strstr (body, "keep.txt") != NULL ? "Skip" : "Replace");
      answered++;
    }

  g_assert_true (cs_ui_wait_until (cs_ui_job_done, window, WAIT_SECONDS));

  {
    g_autofree char *keep = g_build_filename (copied, "keep.txt", NULL);
    g_autofree char *replace = g_build_filename (copied, "replace.txt", NULL);

    assert_file_bytes (keep, 700, 20);
    assert_file_bytes (replace, 5000, 11);
  }
  g_assert_cmpuint (count_temporaries (destination), ==, 0);

  /* The summary tells the file that was there from the one the user kept. */
  g_assert_cmpstr (cs_ui_visible_page (window), ==, "summary");
  g_assert_nonnull (cs_ui_find_label (window, "Skipped (identical): 1 file ("));
  g_assert_nonnull (cs_ui_find_label (window, " · Skipped (your choice): 1 file ("));

  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
}
