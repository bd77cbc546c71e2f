/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <math.h>
#include <string.h>

#include <adwaita.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "cs-export.h"
#include "cs-fold-box.h"
#include "cs-format.h"
#include "cs-history.h"
#include "cs-progress-view.h"
#include "cs-summary-page.h"
#include "cs-phase-breakdown.h"
#include "cs-phase-view.h"
#include "cs-throughput-graph.h"
#include "cs-toast.h"
#include "cs-totals-view.h"

/*
 * After a copy: how it went and where the files are, Robocopy's totals
 * table, the whole-run graph, the failures with their reasons and the notes
 * (what the destination did not keep, what was left out on purpose: not
 * failures, and nothing a retry would change), and each
 * counter's average, minimum and maximum. Export is the page's own action
 * (summary.export, the format as its parameter); New Copy, Retry Failed and
 * Open Destination are the window's, which starts copies and launches
 * applications. A toast in the window says how an export went.
 */

#define MAX_FAILURE_ROWS 500
#define MAX_RESUME_LINES 5
#define STAT_ROW_RESOURCE "/io/github/copyscope/Copyscope/ui/cs-counter-stat-row.ui"

/* The labels of one counter's row in the statistics grid. */
typedef struct
{
  GtkLabel *average;
  GtkLabel *minimum;
  GtkLabel *maximum;
} StatRow;

struct _CsSummaryPage
{
  GtkWidget          parent_instance;

  /* Template widgets */
  GtkImage          *outcome_icon;
  GtkButton         *open_button;
  GtkLabel          *title_label;
  GtkLabel          *description_label;
  GtkLabel          *resume_label;
  AdwActionRow      *where_row;
  AdwActionRow      *log_row;
  AdwActionRow      *manifest_row;
  CsTotalsView      *totals_view;
  GtkLabel          *skips_label;
  GtkGrid           *stats_grid;
  CsThroughputGraph *graph;
  CsPhaseView       *phase_view;
  CsPhaseBreakdown  *phase_breakdown;
  AdwPreferencesGroup *failures_group;
  GtkListBox        *failures_list;
  AdwPreferencesGroup *notes_group;
  GtkListBox        *notes_list;
  GtkLabel          *environment_label;
  GtkWidget         *new_copy_button;
  GtkButton         *retry_button;

  /* Borrowed: the statistics grid's value labels */
  StatRow            stat_rows[CS_N_COUNTERS];

  /* Owned */
  CsRun             *run;
  char              *log_path;      /* the run's log in History, or NULL */
  GCancellable      *cancellable;   /* the exports under way */
};

G_DEFINE_FINAL_TYPE (CsSummaryPage, cs_summary_page, GTK_TYPE_WIDGET)

static GBytes *
render_run (GtkWidget   *widget,
            const char  *extension,
            GError     **error)
{
  CsSummaryPage *self = CS_SUMMARY_PAGE (widget);

  return _cs_export_render_runs (&self->run, self->run != NULL ? 1 : 0, NULL, extension, error);
}

static void
exported_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  CsSummaryPage *self = user_data;   /* alive unless the export was cancelled */
  g_autofree char *message = _cs_export_finish (result);

  if (message != NULL)
    {
      g_autoptr(AdwToast) toast = adw_toast_new (message);

      _cs_toast_show (GTK_WIDGET (self), toast);
    }
}

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  CsSummaryPage *self = CS_SUMMARY_PAGE (widget);
  const char *extension = g_variant_get_string (parameter, NULL);
  g_autofree char *name = NULL;

  if (self->run == NULL)
    return;

  name = _cs_export_name ("copyscope", cs_run_get_started (self->run), extension);
  _cs_export_async (widget, name, extension, render_run, self->cancellable, exported_cb, self);
}

/* A check against a checksum list (cs-manifest.h) rather than a copy: its
 * totals count matches, changed, missing and extra files. */
static gboolean
is_check (CsSummaryPage *self)
{
  return g_strcmp0 (cs_run_get_kind (self->run), "check") == 0;
}

/* A check's outcome: what it read, and what differs. */
static void
cs_summary_page_show_check_outcome (CsSummaryPage  *self,
                                    const CsTotals *totals)
{
  const char *outcome = cs_run_get_outcome (self->run);
  guint64 files = totals->v[CS_CLASS_TOTAL][CS_KIND_FILES];
  guint64 differences = totals->v[CS_CLASS_MISMATCH][CS_KIND_FILES] + totals->v[CS_CLASS_FAILED][CS_KIND_FILES]
                        + totals->v[CS_CLASS_EXTRAS][CS_KIND_FILES];
  g_autofree char *count = _cs_format_count (files);
  g_autofree char *bytes = _cs_format_bytes (totals->v[CS_CLASS_TOTAL][CS_KIND_BYTES]);
  g_autofree char *duration = NULL;
  g_autofree char *speed = NULL;
  g_autofree char *file_rate = NULL;
  g_autofree char *checked = NULL;
  g_autofree char *found = NULL;
  CsFigures figures;
  const char *icon = "emblem-ok-symbolic";
  const char *style = "success";
  const char *title;

  if (g_strcmp0 (outcome, "cancelled") == 0)
    {
      title = _("Check Cancelled");
      icon = "process-stop-symbolic";
      style = "warning";
    }
  else if (g_strcmp0 (outcome, "failed") == 0)
    {
      title = _("Check Failed");
      icon = "dialog-error-symbolic";
      style = "error";
    }
  else if (differences > 0)
    {
      title = _("Differences Found");
      icon = "dialog-warning-symbolic";
      style = "warning";
    }
  else
    title = _("Every File Matches");

  gtk_label_set_label (self->title_label, title);
  gtk_image_set_from_icon_name (self->outcome_icon, icon);
  gtk_widget_remove_css_class (GTK_WIDGET (self->outcome_icon), "success");
  gtk_widget_remove_css_class (GTK_WIDGET (self->outcome_icon), "warning");
  gtk_widget_remove_css_class (GTK_WIDGET (self->outcome_icon), "error");
  gtk_widget_add_css_class (GTK_WIDGET (self->outcome_icon), style);

  cs_run_get_figures (self->run, &figures);
  duration = cs_figure_format_localized (CS_FIGURE_DURATION, figures.duration);
  speed = cs_figure_format_localized (CS_FIGURE_SPEED,
                                      figures.duration > 0 ? (double) totals->v[CS_CLASS_TOTAL][CS_KIND_BYTES]
                                                             / 1e6 / figures.duration : 0);
  file_rate = cs_figure_format_localized (CS_FIGURE_FILE_RATE,
                                          figures.duration > 0 ? (double) files / figures.duration : 0);
  /* Translators: like "Checked 6,154 files (1.2 GB) in 3.20 s · 375.0 MB/s · 1,923 files/s" */
  checked = g_strdup_printf (ngettext ("Checked %s file (%s) in %s · %s · %s",
                                       "Checked %s files (%s) in %s · %s · %s", (gulong) files),
                             count, bytes, duration, speed, file_rate);
  if (cs_run_get_fatal_error (self->run) != NULL)
    found = g_strdup (cs_run_get_fatal_error (self->run));
  else if (differences > 0)
    /* Translators: under a check's figures */
    found = g_strdup_printf (ngettext ("%u difference, listed below", "%u differences, listed below",
                                       (gulong) differences),
                             (guint) differences);
  else if (g_strcmp0 (outcome, "completed") == 0)
    found = g_strdup (_("Every file holds what the checksum list says, and no file was added."));
  if (found != NULL)
    {
      char *both = g_strdup_printf ("%s\n%s", checked, found);

      g_free (checked);
      checked = both;
    }
  gtk_label_set_label (self->description_label, checked);
}


/* The files a run decided: copied, left as they were, failed. */
static guint64
run_checked (const CsTotals *totals)
{
  return totals->v[CS_CLASS_COPIED][CS_KIND_FILES] + totals->v[CS_CLASS_SKIPPED][CS_KIND_FILES]
         + totals->v[CS_CLASS_MISMATCH][CS_KIND_FILES] + totals->v[CS_CLASS_FAILED][CS_KIND_FILES];
}

/* A rerun that found most files unchanged, by the rule the copy's progress
 * read by (cs_progress_reads_as_checking ()). */
static gboolean
run_was_checking (const CsTotals *totals)
{
  return cs_progress_reads_as_checking (run_checked (totals), totals->v[CS_CLASS_SKIPPED][CS_KIND_FILES],
                                        FALSE);
}

static void
cs_summary_page_show_outcome (CsSummaryPage  *self,
                              const CsTotals *totals)
{
  const char *outcome = cs_run_get_outcome (self->run);
  guint n_errors = cs_run_get_n_errors (self->run);
  guint n_notes = cs_run_get_n_notes (self->run);
  guint64 files = totals->v[CS_CLASS_COPIED][CS_KIND_FILES];
  g_autofree char *bytes = _cs_format_bytes (totals->v[CS_CLASS_COPIED][CS_KIND_BYTES]);
  g_autofree char *count = _cs_format_count (files);
  g_autofree char *duration = NULL;
  g_autofree char *speed = NULL;
  g_autofree char *file_rate = NULL;
  g_autofree char *threads = NULL;
  g_autofree char *figures_line = NULL;
  g_autofree char *copied = NULL;
  CsFigures figures;
  g_autofree char *description = NULL;
  const char *icon = "emblem-ok-symbolic";
  const char *style = "success";
  const char *title;

  if (g_strcmp0 (outcome, "cancelled") == 0)
    {
      title = _("Copy Cancelled");
      icon = "process-stop-symbolic";
      style = "warning";
    }
  else if (g_strcmp0 (outcome, "failed") == 0)
    {
      title = _("Copy Failed");
      icon = "dialog-error-symbolic";
      style = "error";
    }
  else if (n_errors > 0 || totals->v[CS_CLASS_FAILED][CS_KIND_FILES] > 0)
    {
      title = _("Copy Finished with Problems");
      icon = "dialog-warning-symbolic";
      style = "warning";
    }
  else
    title = _("Copy Complete");

  gtk_label_set_label (self->title_label, title);
  gtk_image_set_from_icon_name (self->outcome_icon, icon);
  gtk_widget_remove_css_class (GTK_WIDGET (self->outcome_icon), "success");
  gtk_widget_remove_css_class (GTK_WIDGET (self->outcome_icon), "warning");
  gtk_widget_remove_css_class (GTK_WIDGET (self->outcome_icon), "error");
  gtk_widget_add_css_class (GTK_WIDGET (self->outcome_icon), style);

  cs_run_get_figures (self->run, &figures);
  duration = cs_figure_format_localized (CS_FIGURE_DURATION, figures.duration);
  speed = cs_figure_format_localized (CS_FIGURE_SPEED, figures.speed);
  file_rate = cs_figure_format_localized (CS_FIGURE_FILE_RATE, figures.file_rate);
  threads = _cs_format_figures_threads (&figures);

  if (run_was_checking (totals))
    {
      g_autofree char *checked = _cs_format_count (run_checked (totals));

      /* Translators: a rerun that found most files unchanged, like "Checked
       * 20,000 files, copied 12 (1.2 MB) in 0.87 s" */
      copied = g_strdup_printf (ngettext ("Checked %s file, copied %s (%s) in %s",
                                          "Checked %s files, copied %s (%s) in %s",
                                          (gulong) run_checked (totals)),
                                checked, count, bytes, duration);
    }
  else
    /* Translators: like "Copied 345 files (1.2 GB) in 12.47 s" */
    copied = g_strdup_printf (ngettext ("Copied %s file (%s) in %s", "Copied %s files (%s) in %s",
                                        (gulong) files),
                              count, bytes, duration);
  /* A rerun's files per second are the ones it checked: its copied ones,
   * few or none, would read as a stall. */
  if (run_was_checking (totals) && figures.duration > 0)
    {
      g_autofree char *checks = _cs_format_count ((guint64) round ((double) run_checked (totals)
                                                                   / figures.duration));

      g_free (file_rate);
      /* Translators: a rerun's files checked per second, like "12,345 files checked/s" */
      file_rate = g_strdup_printf (_("%s files checked/s"), checks);
    }
  if (figures.held > 0.005)
    {
      g_autofree char *held = cs_figure_format_localized (CS_FIGURE_DURATION, figures.held);

      /* Translators: the copy's speed, files per second and threads, then the
       * time it stood still, like "168.3 MB/s · 10,719 files/s · 8 threads ·
       * paused or waiting for an answer for 30.00 s" */
      figures_line = g_strdup_printf (_("%s · %s · %s · paused or waiting for an answer for %s"),
                                      speed, file_rate, threads, held);
    }
  else
    /* Translators: the copy's speed, files per second and threads, like
     * "168.3 MB/s · 10,719 files/s · 8 threads" */
    figures_line = g_strdup_printf (_("%s · %s · %s"), speed, file_rate, threads);
  {
    char *both = g_strdup_printf ("%s\n%s", copied, figures_line);

    g_free (copied);
    copied = both;
  }

  if (cs_run_get_fatal_error (self->run) != NULL)
    description = g_strdup_printf ("%s\n%s", copied, cs_run_get_fatal_error (self->run));
  else if (n_errors > 0)
    description = g_strdup_printf (ngettext ("%s\n%u problem, listed below",
                                             "%s\n%u problems, listed below", n_errors),
                                   copied, n_errors);
  else if (n_notes > 0)
    /* Translators: a note is not a failure: what the destination did not
     * keep (permissions, owners, times), or a socket left out */
    description = g_strdup_printf (ngettext ("%s\n%u note, listed below",
                                             "%s\n%u notes, listed below", n_notes),
                                   copied, n_notes);
  else
    description = g_steal_pointer (&copied);

  gtk_label_set_label (self->description_label, description);
}

/* @path, a file the copy wrote, as the user knows it: inside the
 * destination folder when it is there. */
static const char *
path_in_destination (CsRun      *run,
                     const char *path)
{
  const char *destination = cs_run_get_destination (run);
  gsize len = destination != NULL ? strlen (destination) : 0;

  if (len > 0 && strncmp (path, destination, len) == 0 && path[len] == G_DIR_SEPARATOR)
    return path + len + 1;
  return path;
}

/* The big files that went on from an earlier run's partial copies ("resume"
 * events), or those this run kept for a later one ("kept"): one line each,
 * or a total when there are many. */
static void
append_partials (CsSummaryPage *self,
                 GString       *text,
                 GArray        *events,
                 const char    *kind)
{
  guint64 bytes = 0, size = 0;
  guint n = 0;

  for (guint i = 0; i < events->len; i++)
    {
      const CsRunEvent *e = &g_array_index (events, CsRunEvent, i);

      if (g_strcmp0 (e->kind, kind) != 0)
        continue;
      n++;
      bytes += (guint64) e->value;
      size += e->size;
    }
  if (n == 0)
    return;

  if (n > MAX_RESUME_LINES)
    {
      g_autofree char *bytes_text = _cs_format_bytes (bytes);
      g_autofree char *size_text = _cs_format_bytes (size);

      if (text->len > 0)
        g_string_append_c (text, '\n');
      if (g_str_equal (kind, "resume"))
        /* Translators: like "Resumed 12 big files at 17.9 GB of 20.0 GB in all" */
        g_string_append_printf (text, ngettext ("Resumed %u big file at %s of %s in all",
                                                "Resumed %u big files at %s of %s in all", n),
                                n, bytes_text, size_text);
      else
        /* Translators: like "Kept to resume: 12 big files, 17.9 GB of 20.0 GB in all" */
        g_string_append_printf (text, ngettext ("Kept to resume: %u big file, %s of %s in all",
                                                "Kept to resume: %u big files, %s of %s in all", n),
                                n, bytes_text, size_text);
    }
  else
    for (guint i = 0; i < events->len; i++)
      {
        const CsRunEvent *e = &g_array_index (events, CsRunEvent, i);
        g_autofree char *bytes_text = NULL;
        g_autofree char *size_text = NULL;
        const char *path;

        if (g_strcmp0 (e->kind, kind) != 0)
          continue;
        bytes_text = _cs_format_bytes ((guint64) e->value);
        size_text = _cs_format_bytes (e->size);
        path = path_in_destination (self->run, e->path != NULL ? e->path : "");
        if (text->len > 0)
          g_string_append_c (text, '\n');
        if (g_str_equal (kind, "resume"))
          /* Translators: a big file the copy went on with from an earlier
           * copy's partial one, like "Resumed video.mkv at 17.9 GB of 20.0 GB" */
          g_string_append_printf (text, _("Resumed %s at %s of %s"), path, bytes_text, size_text);
        else
          /* Translators: a big file's partial copy kept when the copy was
           * cancelled, like "Kept to resume: video.mkv, 17.9 GB of 20.0 GB" */
          g_string_append_printf (text, _("Kept to resume: %s, %s of %s"), path, bytes_text, size_text);
      }

  if (g_str_equal (kind, "kept"))
    {
      g_string_append_c (text, '\n');
      /* Translators: after the lines of the big files kept to resume */
      g_string_append (text, ngettext ("Copying the same files into the same folder again goes on from it.",
                                       "Copying the same files into the same folder again goes on from them.",
                                       n));
    }
}

static void
cs_summary_page_show_partials (CsSummaryPage *self)
{
  g_autoptr(GArray) events = cs_run_dup_events (self->run);
  g_autoptr(GString) text = g_string_new (NULL);

  append_partials (self, text, events, "resume");
  append_partials (self, text, events, "kept");
  gtk_label_set_label (self->resume_label, text->str);
  gtk_widget_set_visible (GTK_WIDGET (self->resume_label), text->len > 0);
}

/* Where the files are: the folder the copy went into, and for a share GVfs
 * mounted, how it was reached ("SMB directly to nas/photos"): the one thing
 * that explains a speed unlike the last copy there. */
static void
cs_summary_page_show_where (CsSummaryPage *self)
{
  const char *destination = cs_run_get_destination (self->run);
  const CsRunEnvironment *env = cs_run_get_environment (self->run);
  g_autofree char *display = destination != NULL ? _cs_display_path (destination) : NULL;

  gtk_widget_set_visible (GTK_WIDGET (self->where_row), display != NULL);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->where_row),
                                 is_check (self) ? _("Folder Checked") : _("Copied Into"));
  gtk_button_set_label (self->open_button, is_check (self) ? _("_Open Folder") : _("_Open Destination"));
  if (display != NULL && env != NULL && env->route != NULL)
    {
      g_autofree char *subtitle = g_strdup_printf ("%s\n%s", display, env->route);

      adw_action_row_set_subtitle (self->where_row, subtitle);
    }
  else if (display != NULL)
    adw_action_row_set_subtitle (self->where_row, display);
}

/* The run's per-file log, when History keeps one beside its record: where it
 * is and how big, for an admin about to open a million lines. */
static void
cs_summary_page_show_log (CsSummaryPage *self)
{
  g_autofree char *display = NULL;
  g_autofree char *size = NULL;
  g_autofree char *subtitle = NULL;
  GStatBuf st;

  g_clear_pointer (&self->log_path, g_free);
  self->log_path = cs_history_find_log (self->run);
  gtk_widget_set_visible (GTK_WIDGET (self->log_row), self->log_path != NULL);
  if (self->log_path == NULL)
    return;

  display = _cs_display_path (self->log_path);
  if (g_stat (self->log_path, &st) != 0)
    {
      adw_action_row_set_subtitle (self->log_row, display);
      return;
    }
  size = _cs_format_bytes ((guint64) st.st_size);
  /* Translators: where the log of every file is, and its size, like "~/.local/share/copyscope/runs/….log · 1.2 MB" */
  subtitle = g_strdup_printf (_("%s · %s"), display, size);
  adw_action_row_set_subtitle (self->log_row, subtitle);
}

/* The run's checksum list, where it is and what it lists; hidden when the
 * run wrote none or it is gone. */
static void
cs_summary_page_show_manifest (CsSummaryPage *self)
{
  g_autofree char *display = NULL;
  g_autofree char *subtitle = NULL;
  g_autofree char *files = NULL;
  g_autofree char *from_copy = NULL;
  g_autofree char *read_again = NULL;
  CsRunManifest m;
  gboolean has = cs_run_get_manifest (self->run, &m) && g_file_test (m.path, G_FILE_TEST_IS_REGULAR);

  gtk_widget_set_visible (GTK_WIDGET (self->manifest_row), has);
  if (!has)
    return;
  display = _cs_display_path (m.path);
  files = _cs_format_count (m.files);
  from_copy = _cs_format_count (m.from_copy);
  /* Files the copy did not read itself (skipped ones, or copies made by
   * reflink or copy_file_range without --verify) cost a second read. */
  read_again = _cs_format_count (m.read_copied + m.read_kept);
  /* Translators: the checksum list's place, algorithm and files, then where
   * the sums came from, like "~/.local/share/copyscope/runs/….xxh128 ·
   * XXH128 of 1,204 files\n1,000 summed as they were copied · 204 read
   * again from the destination" */
  subtitle = g_strdup_printf (_("%s · %s of %s files\n%s summed as they were copied · %s read again from the destination"),
                              display, g_str_equal (m.algo, "sha256") ? "SHA-256" : "XXH128", files,
                              from_copy, read_again);
  adw_action_row_set_subtitle (self->manifest_row, subtitle);
}

/* "12 files (1.2 MB)" */
static char *
format_files_bytes (guint64 files,
                    guint64 bytes)
{
  g_autofree char *count = _cs_format_count (files);
  g_autofree char *size = _cs_format_bytes (bytes);

  /* Translators: a number of files and their size, like "12 files (1.2 MB)" */
  return g_strdup_printf (ngettext ("%s file (%s)", "%s files (%s)", (gulong) files), count, size);
}

/* The Skipped column holds files that were already there and files the
 * user's answer or rule kept out: told apart here. */
static void
cs_summary_page_show_skips (CsSummaryPage  *self,
                            const CsTotals *totals)
{
  guint64 skipped = totals->v[CS_CLASS_SKIPPED][CS_KIND_FILES];
  g_autoptr(GString) text = g_string_new (NULL);
  CsSkips skips;

  if (skipped == 0 || !cs_run_get_skips (self->run, &skips))
    {
      gtk_widget_set_visible (GTK_WIDGET (self->skips_label), FALSE);
      return;
    }

  if (skips.identical_files > 0)
    {
      g_autofree char *part = format_files_bytes (skips.identical_files, skips.identical_bytes);

      /* Translators: files not copied because the same file was already at the destination */
      g_string_append_printf (text, _("Skipped (identical): %s"), part);
    }
  if (skips.chosen_files > 0)
    {
      g_autofree char *part = format_files_bytes (skips.chosen_files, skips.chosen_bytes);

      if (text->len > 0)
        g_string_append (text, " · ");
      /* Translators: files not copied because the user said so, in the conflict
       * dialog or with the rule for existing files */
      g_string_append_printf (text, _("Skipped (your choice): %s"), part);
    }
  if (skipped > skips.identical_files + skips.chosen_files)
    {
      g_autofree char *count = _cs_format_count (skipped - skips.identical_files - skips.chosen_files);

      if (text->len > 0)
        g_string_append (text, " · ");
      /* Translators: sockets and device nodes, which no copy can make */
      g_string_append_printf (text, _("Skipped (cannot be copied): %s"), count);
    }

  gtk_label_set_label (self->skips_label, text->str);
  gtk_widget_set_visible (GTK_WIDGET (self->skips_label), TRUE);
}

static void
cs_summary_page_show_stats (CsSummaryPage *self)
{
  for (guint i = 0; i < CS_N_COUNTERS; i++)
    {
      StatRow *row = &self->stat_rows[i];
      CsStat stat;

      if (cs_run_get_stat (self->run, (CsCounter) i, &stat))
        {
          g_autofree char *avg = _cs_format_counter_value ((CsCounter) i, stat.avg);
          g_autofree char *min = _cs_format_counter_value ((CsCounter) i, stat.min);
          g_autofree char *max = _cs_format_counter_value ((CsCounter) i, stat.max);

          gtk_label_set_label (row->average, avg);
          gtk_label_set_label (row->minimum, min);
          gtk_label_set_label (row->maximum, max);
        }
      else
        {
          gtk_label_set_label (row->average, "—");
          gtk_label_set_label (row->minimum, "—");
          gtk_label_set_label (row->maximum, "—");
        }
    }
}

/* One row per counter, named as the engine names it. */
static void
cs_summary_page_build_stats (CsSummaryPage *self)
{
  for (guint i = 0; i < CS_N_COUNTERS; i++)
    {
      const CsCounterInfo *info = cs_counter_get_info ((CsCounter) i);
      g_autoptr(GtkBuilder) builder = gtk_builder_new_from_resource (STAT_ROW_RESOURCE);
      GtkWidget *name = GTK_WIDGET (gtk_builder_get_object (builder, "name"));
      GtkWidget *average = GTK_WIDGET (gtk_builder_get_object (builder, "average"));
      GtkWidget *minimum = GTK_WIDGET (gtk_builder_get_object (builder, "minimum"));
      GtkWidget *maximum = GTK_WIDGET (gtk_builder_get_object (builder, "maximum"));
      GtkWidget *direction = GTK_WIDGET (gtk_builder_get_object (builder, "direction"));
      g_autofree char *title = NULL;
      int row = (int) i + 1;

      if (info->unit[0] != '\0')
        /* Translators: a counter and its unit, like "Request Rate (req/s)" */
        title = g_strdup_printf (_("%s (%s)"), _(info->label), _cs_counter_unit (info));
      else
        title = g_strdup (_(info->label));

      gtk_label_set_label (GTK_LABEL (name), title);
      if (info->direction != CS_DIRECTION_NONE)
        gtk_label_set_label (GTK_LABEL (direction), _(cs_direction_to_string (info->direction)));

      gtk_grid_attach (self->stats_grid, name, 0, row, 1, 1);
      gtk_grid_attach (self->stats_grid, average, 1, row, 1, 1);
      gtk_grid_attach (self->stats_grid, minimum, 2, row, 1, 1);
      gtk_grid_attach (self->stats_grid, maximum, 3, row, 1, 1);
      gtk_grid_attach (self->stats_grid, direction, 4, row, 1, 1);

      self->stat_rows[i] = (StatRow) { GTK_LABEL (average), GTK_LABEL (minimum), GTK_LABEL (maximum) };
    }
}

/* The failures, or the notes, into @group's @list: the first
 * MAX_FAILURE_ROWS of them. */
/* Why a check named a file (cs-manifest-check.c records these operations). */
static const char *
check_difference (const char *operation)
{
  if (g_strcmp0 (operation, "changed") == 0)
    return _("Changed: the contents differ from the checksum list");
  if (g_strcmp0 (operation, "missing") == 0)
    return _("Missing: listed in the checksum list, not found");
  if (g_strcmp0 (operation, "extra") == 0)
    return _("Extra: not in the checksum list");
  return NULL;
}

/* @check: the run is a check (its differences are named inside the folder
 * it read, as its checksum list names them) */
static void
fill_list (CsSummaryPage       *self,
           AdwPreferencesGroup *group,
           GtkListBox          *list,
           GPtrArray           *errors,
           gboolean             notes,
           gboolean             check,
           guint                n)
{
  g_autofree char *title = NULL;
  GtkWidget *child;
  guint listed = 0;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (list))) != NULL)
    gtk_list_box_remove (list, child);

  gtk_widget_set_visible (GTK_WIDGET (group), n > 0);
  if (n == 0)
    return;

  if (notes)
    title = g_strdup_printf (ngettext ("%u Note", "%u Notes", n), n);
  else if (check)
    title = g_strdup_printf (ngettext ("%u Difference", "%u Differences", n), n);
  else
    title = g_strdup_printf (ngettext ("%u Failure", "%u Failures", n), n);
  adw_preferences_group_set_title (group, title);

  if (n > MAX_FAILURE_ROWS)
    {
      g_autofree char *more = g_strdup_printf (_("The first %u are shown; the export has them all."),
                                               MAX_FAILURE_ROWS);
      adw_preferences_group_set_description (group, more);
    }
  else
    adw_preferences_group_set_description (group, NULL);

  for (guint i = 0; errors != NULL && i < errors->len && listed < MAX_FAILURE_ROWS; i++)
    {
      const CsRunError *error = g_ptr_array_index (errors, i);
      g_autofree char *path = NULL;
      g_autofree char *reason = NULL;
      GtkWidget *row;

      if (error->note != notes)
        continue;
      listed++;
      if (check)
        path = _cs_display_path (path_in_destination (self->run, error->path != NULL ? error->path : ""));
      else
        path = _cs_display_path (error->path != NULL ? error->path : "");
      if (notes)
        /* A note says it all in its words; the request's name adds nothing. */
        reason = g_strdup (error->message != NULL ? error->message : "");
      else if (check && check_difference (error->operation) != NULL)
        reason = g_strdup (check_difference (error->operation));
      else if (check)
        /* Translators: a file a check could not read, and why */
        reason = g_strdup_printf (_("Unreadable: %s"), error->message);
      else if (error->attempts > 1)
        /* Translators: why a file failed, like "write: No space left on device (3 attempts)" */
        reason = g_strdup_printf (ngettext ("%s: %s (%u attempt)", "%s: %s (%u attempts)",
                                            error->attempts),
                                  error->operation, error->message, error->attempts);
      else
        reason = g_strdup_printf ("%s: %s", error->operation, error->message);

      /* A leaf row per entry, made from data; the layout is AdwActionRow's. */
      row = g_object_new (ADW_TYPE_ACTION_ROW,
                          "use-markup", FALSE,
                          "title", path,
                          "subtitle", reason,
                          "subtitle-lines", notes ? 4 : 2,
                          "title-lines", 1,
                          "tooltip-text", path,
                          NULL);
      gtk_list_box_append (list, row);
    }
}

static void
cs_summary_page_show_failures (CsSummaryPage *self)
{
  g_autoptr(GPtrArray) errors = cs_run_dup_errors (self->run);
  guint n_failures = 0, n_notes = 0;

  /* Counted from the list itself: a run from the history's index has only
   * the numbers, and then nothing to list. */
  for (guint i = 0; errors != NULL && i < errors->len; i++)
    {
      if (((const CsRunError *) g_ptr_array_index (errors, i))->note)
        n_notes++;
      else
        n_failures++;
    }

  fill_list (self, self->failures_group, self->failures_list, errors, FALSE, is_check (self), n_failures);
  fill_list (self, self->notes_group, self->notes_list, errors, TRUE, FALSE, n_notes);
  /* A note is nothing a retry could change, and a check copies nothing. */
  gtk_widget_set_visible (GTK_WIDGET (self->retry_button), n_failures > 0 && !is_check (self));
}

static void
cs_summary_page_show_environment (CsSummaryPage *self)
{
  const CsRunEnvironment *env = cs_run_get_environment (self->run);
  const CsRunSettings *settings = cs_run_get_settings (self->run);
  g_autofree char *text = NULL;
  g_autofree char *destination = NULL;

  if (env == NULL || settings == NULL)
    {
      gtk_label_set_label (self->environment_label, "");
      return;
    }

  /* A share GVfs mounted was reached through its mount or spoken to directly,
   * which changes every figure above: said beside the filesystem it names. */
  destination = g_strdup (env->destination_fs != NULL ? env->destination_fs : "?");
  if (env->route != NULL)
    {
      g_autofree char *plain = g_steal_pointer (&destination);

      destination = g_strdup_printf ("%s (%s)", plain, env->route);
    }

  /* Translators: how the run was measured; MB = 10^6 bytes */
  text = g_strdup_printf (_("%u threads at the start · %u CPUs · %s → %s · cache %s · "
                            "kernel %s · sampled every %u ms · MB = 10⁶ bytes"),
                          settings->threads, env->cpus,
                          env->source_fs != NULL ? env->source_fs : "?",
                          destination,
                          env->cache_mode != NULL ? env->cache_mode : "?",
                          env->kernel != NULL ? env->kernel : "?",
                          settings->interval_ms);
  gtk_label_set_label (self->environment_label, text);
}

static void
cs_summary_page_dispose (GObject *object)
{
  CsSummaryPage *self = CS_SUMMARY_PAGE (object);
  GtkWidget *child;

  memset (self->stat_rows, 0, sizeof self->stat_rows);
  gtk_widget_dispose_template (GTK_WIDGET (self), CS_TYPE_SUMMARY_PAGE);

  /* Unnamed template children too: the widget is their only parent. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  g_clear_pointer (&self->run, cs_run_unref);
  g_clear_pointer (&self->log_path, g_free);
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (cs_summary_page_parent_class)->dispose (object);
}

/*
 * The focus that comes into the page (the page shown after the one that had
 * it, or Tab from the header bar) goes to New Copy, never to the sentences
 * above it: a selectable label given the focus selects all its text, and the
 * summary would open with its figures highlighted.
 */
static gboolean
cs_summary_page_focus (GtkWidget        *widget,
                       GtkDirectionType  direction)
{
  CsSummaryPage *self = CS_SUMMARY_PAGE (widget);

  if (gtk_widget_get_focus_child (widget) == NULL && direction == GTK_DIR_TAB_FORWARD &&
      gtk_widget_is_visible (self->new_copy_button) &&
      gtk_widget_grab_focus (self->new_copy_button))
    return TRUE;
  return GTK_WIDGET_CLASS (cs_summary_page_parent_class)->focus (widget, direction);
}

static void
cs_summary_page_class_init (CsSummaryPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cs_summary_page_dispose;
  widget_class->focus = cs_summary_page_focus;

  /* Something to tell the user, such as how an export went. */
  g_type_ensure (CS_TYPE_FOLD_BOX);
  g_type_ensure (CS_TYPE_THROUGHPUT_GRAPH);
  g_type_ensure (CS_TYPE_PHASE_VIEW);
  g_type_ensure (CS_TYPE_PHASE_BREAKDOWN);
  g_type_ensure (CS_TYPE_TOTALS_VIEW);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-summary-page.ui");
  gtk_widget_class_bind_template_child (widget_class, CsSummaryPage, outcome_icon);
  gtk_widget_class_bind_template_child (widget_class, CsSummaryPage, open_button);
  gtk_widget_class_bind_template_child (widget_class, CsSummaryPage, title_label);
  gtk_widget_class_bind_template_child (widget_class, CsSummaryPage, description_label);
  gtk_widget_class_bind_template_child (widget_class, CsSummaryPage, resume_label);
  gtk_widget_class_bind_template_child (widget_class, CsSummaryPage, where_row);
  gtk_widget_class_bind_template_child (widget_class, CsSummaryPage, log_row);
  gtk_widget_class_bind_template_child (widget_class, CsSummaryPage, manifest_row);
  gtk_widget_class_bind_template_child (widget_class, CsSummaryPage, totals_view);
  gtk_widget_class_bind_template_child (widget_class, CsSummaryPage, skips_label);
  gtk_widget_class_bind_template_child (widget_class, CsSummaryPage, stats_grid);
  gtk_widget_class_bind_template_child (widget_class, CsSummaryPage, graph);
  gtk_widget_class_bind_template_child (widget_class, CsSummaryPage, phase_view);
  gtk_widget_class_bind_template_child (widget_class, CsSummaryPage, phase_breakdown);
  gtk_widget_class_bind_template_child (widget_class, CsSummaryPage, failures_group);
  gtk_widget_class_bind_template_child (widget_class, CsSummaryPage, failures_list);
  gtk_widget_class_bind_template_child (widget_class, CsSummaryPage, notes_group);
  gtk_widget_class_bind_template_child (widget_class, CsSummaryPage, notes_list);
  gtk_widget_class_bind_template_child (widget_class, CsSummaryPage, environment_label);
  gtk_widget_class_bind_template_child (widget_class, CsSummaryPage, new_copy_button);
  gtk_widget_class_bind_template_child (widget_class, CsSummaryPage, retry_button);

  gtk_widget_class_install_action (widget_class, "summary.export", "s", export_action);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "summarypage");
}

static void
cs_summary_page_init (CsSummaryPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  cs_summary_page_build_stats (self);

  self->cancellable = g_cancellable_new ();
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "summary.export", FALSE);
}

void
cs_summary_page_set_run (CsSummaryPage *self,
                         CsRun         *run)
{
  CsTotals totals;

  g_return_if_fail (CS_IS_SUMMARY_PAGE (self));
  g_return_if_fail (run != NULL);

  cs_run_ref (run);
  g_clear_pointer (&self->run, cs_run_unref);
  self->run = run;

  cs_run_get_totals (run, &totals);

  if (is_check (self))
    cs_summary_page_show_check_outcome (self, &totals);
  else
    cs_summary_page_show_outcome (self, &totals);
  cs_summary_page_show_partials (self);
  cs_summary_page_show_where (self);
  cs_summary_page_show_log (self);
  cs_summary_page_show_manifest (self);
  cs_totals_view_set_totals (self->totals_view, &totals, is_check (self));
  cs_summary_page_show_skips (self, &totals);
  cs_summary_page_show_stats (self);
  cs_summary_page_show_failures (self);
  cs_summary_page_show_environment (self);
  cs_throughput_graph_set_run (self->graph, run);
  cs_throughput_graph_set_show_checks (self->graph, !is_check (self) && run_was_checking (&totals));
  cs_phase_view_set_run (self->phase_view, run);
  cs_phase_breakdown_set_run (self->phase_breakdown, run);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "summary.export", TRUE);
}

CsRun *
cs_summary_page_get_run (CsSummaryPage *self)
{
  g_return_val_if_fail (CS_IS_SUMMARY_PAGE (self), NULL);

  return self->run;
}

/* The shown run's per-file log, or NULL when it has none. */
const char *
cs_summary_page_get_log_path (CsSummaryPage *self)
{
  g_return_val_if_fail (CS_IS_SUMMARY_PAGE (self), NULL);

  return self->log_path;
}
