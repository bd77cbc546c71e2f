/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-cli"

#include "config.h"

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib-unix.h>
#include <glib/gi18n.h>

#include "copyscope-engine.h"
#include "cs-history.h"
#include "cs-report-csv.h"
#include "cs-cli.h"

typedef struct {
  CsJob      *job;
  GMainLoop  *loop;
  gboolean    ok;
  GError     *error;
  gboolean    interrupted;
  gboolean    tty;
  gboolean    quiet;
  gint64      last_line;
  CsEta      *eta;
  double      last_requests;
  guint       line_len;
  gboolean    checking;
  CsHistorySlot *history;
} CopyState;

/* main thread, idle while the copy runs: the history file is made ready now
 * rather than after the copy (see cs_history_reserve ()). */
static gboolean
reserve_history (gpointer user_data)
{
  CopyState *state = user_data;

  state->history = cs_history_reserve (cs_job_get_run (state->job));
  return G_SOURCE_REMOVE;
}

static void
on_sample (CsJob    *job,
           gpointer  sample_ptr,
           gpointer  user_data)
{
  CopyState *state = user_data;
  const CsSample *sample = sample_ptr;

  state->last_requests = sample->values[CS_COUNTER_REQUEST_RATE];
}

/* A rerun reads as checking while most files decided so far were skipped,
 * by counts of files; @was: whether it read so a moment ago, which holds it
 * until a third of them (not a half) were to copy, so the line does not
 * flicker between the two. The window's rule (cs_progress_reads_as_checking
 * in the window, which the CLI does not link): both say the same. */
static gboolean
reads_as_checking (guint64  checked,
                   guint64  skipped,
                   gboolean was)
{
  if (checked == 0)
    return FALSE;
  skipped = MIN (skipped, checked);
  return was ? skipped * 3 > checked : skipped * 2 > checked;
}

/* "Checking 48000 of 100000 files — 312 to copy so far": the window's
 * words for a rerun deciding which files changed (its translations too). */
static char *
checking_text (const CsProgress *p)
{
  g_autofree char *checked = g_strdup_printf ("%" G_GUINT64_FORMAT, p->files_checked);
  g_autofree char *total = g_strdup_printf ("%" G_GUINT64_FORMAT, p->files_total);
  g_autofree char *to_copy = g_strdup_printf ("%" G_GUINT64_FORMAT, p->files_to_copy);

  if (!p->total_known)
    /* Translators: a rerun deciding which files changed while the
     * sources are still scanned, like "Checking 48,000 of 60,000 files
     * found so far — 312 to copy so far" */
    return g_strdup_printf (ngettext ("Checking %s of %s file found so far — %s to copy so far",
                                      "Checking %s of %s files found so far — %s to copy so far",
                                      (gulong) p->files_total),
                            checked, total, to_copy);
  /* Translators: a rerun deciding which files changed, like
   * "Checking 48,000 of 100,000 files — 312 to copy so far" */
  return g_strdup_printf (ngettext ("Checking %s of %s file — %s to copy so far",
                                    "Checking %s of %s files — %s to copy so far",
                                    (gulong) p->files_total),
                          checked, total, to_copy);
}

/* One line on stderr, redrawn at most five times a second: what is done of
 * what is known, the copy speed and the time left (cs-eta.h, as the window
 * shows them). While the sources are scanned there is no total, so no
 * percentage and no time left. */
static void
on_progress (CsJob    *job,
             gpointer  user_data)
{
  CopyState *state = user_data;
  gint64 now = g_get_monotonic_time ();
  CsProgress p;
  g_autofree char *done = NULL;
  g_autofree char *total = NULL;
  g_autofree char *speed = NULL;
  g_autoptr(GString) line = g_string_new (NULL);
  double low, high;

  cs_job_get_progress (job, &p);
  cs_eta_push (state->eta, &p);
  state->checking = reads_as_checking (p.files_checked, p.files_skipped, state->checking);

  if (!state->tty || state->quiet || now - state->last_line < G_USEC_PER_SEC / 5)
    return;
  state->last_line = now;

  done = g_format_size (p.bytes_done);
  total = g_format_size (p.bytes_total);
  speed = cs_figure_format (CS_FIGURE_SPEED, cs_eta_get_speed (state->eta) / 1e6);
  if (state->checking && p.state == CS_JOB_STATE_RUNNING && !p.flushing)
    {
      g_autofree char *checking = checking_text (&p);

      /* What a rerun waits for is a decision per file, not bytes: the
       * bytes' share and time left would read as a stalled copy. */
      g_string_append_printf (line, "%s  %s  %.0f req/s  %u threads", checking, speed,
                              state->last_requests, p.threads);
    }
  else if (!p.total_known)
    g_string_append_printf (line, "scanning  %" G_GUINT64_FORMAT " files, %s found  %" G_GUINT64_FORMAT
                            " done  %s  %.0f req/s  %u threads",
                            p.files_found, total, p.files_done, speed, state->last_requests, p.threads);
  else
    {
      double fraction = p.bytes_total > 0 ? (double) p.bytes_done / (double) p.bytes_total
                        : p.files_total > 0 ? (double) p.files_done / (double) p.files_total : 1.0;

      g_string_append_printf (line, "%3.0f%%  %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT
                              " files  %s/%s  %s  %.0f req/s  %u threads",
                              100.0 * MIN (fraction, 1.0), p.files_done, p.files_total, done, total,
                              speed, state->last_requests, p.threads);
      if (p.state == CS_JOB_STATE_RUNNING && p.flushing)
        g_string_append_printf (line, "  %s", _("writing to the disk"));
      else if (p.state == CS_JOB_STATE_RUNNING && cs_eta_get_left (state->eta, &low, &high))
        {
          g_autofree char *low_text = cs_format_duration (low, CS_DURATION_CLOCK, FALSE);

          if (isinf (high))
            g_string_append_printf (line, "  ETA ≥%s", low_text);
          else
            {
              g_autofree char *high_text = cs_format_duration (high, CS_DURATION_CLOCK, FALSE);

              if (g_strcmp0 (low_text, high_text) == 0)
                g_string_append_printf (line, "  ETA %s", low_text);
              else
                g_string_append_printf (line, "  ETA %s–%s", low_text, high_text);
            }
        }
    }
  if (p.state == CS_JOB_STATE_PAUSED)
    g_string_append (line, "  (paused)");
  else if (cs_job_get_limited (job))
    g_string_append_printf (line, "  (%s)", _("limited by your setting"));
  if (p.n_errors > 0)
    g_string_append_printf (line, "  %u errors", p.n_errors);

  g_printerr ("\r%s%*s", line->str, (int) (state->line_len > line->len ? state->line_len - line->len : 0), "");
  state->line_len = (guint) line->len;
}

static void
on_plan (const char *action,
         const char *source,
         const char *destination,
         gpointer    user_data)
{
  g_autofree char *dst = g_filename_display_name (destination);
  g_autofree char *src = NULL;

  /* A mirror's deletions name the destination alone. */
  if (source == NULL)
    {
      g_print ("%-12s %s\n", action, dst);
      return;
    }
  src = g_filename_display_name (source);
  g_print ("%-12s %s -> %s\n", action, src, dst);
}

static gboolean
on_signal (gpointer user_data)
{
  CopyState *state = user_data;

  state->interrupted = TRUE;
  if (state->job != NULL)
    cs_job_cancel (state->job);
  return G_SOURCE_CONTINUE;
}

static void
on_done (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  CopyState *state = user_data;

  state->ok = cs_job_run_finish (CS_JOB (object), result, &state->error);
  g_main_loop_quit (state->loop);
}

static char *
format_limit (const char *kind,
              double      value)
{
  g_autofree char *bytes = NULL;

  if (value <= 0)
    return g_strdup (_("none"));
  if (g_str_equal (kind, "max-files"))
    return g_strdup_printf ("%g files/s", value);
  bytes = g_format_size ((guint64) value);
  return g_strdup_printf ("%s/s", bytes);
}

/* The speed limits at the start and each change, as the graph marks them. */
static void
print_limits (FILE  *out,
              CsRun *run)
{
  const CsRunSettings *settings = cs_run_get_settings (run);
  g_autoptr(GArray) events = cs_run_dup_events (run);
  g_autoptr(GString) line = g_string_new (NULL);
  gboolean any = settings->max_rate > 0 || settings->max_files > 0;

  if (settings->max_rate > 0)
    {
      g_autofree char *v = format_limit ("max-rate", settings->max_rate);
      g_string_append (line, v);
    }
  if (settings->max_files > 0)
    {
      g_autofree char *v = format_limit ("max-files", settings->max_files);
      g_string_append_printf (line, "%s%s", line->len > 0 ? ", " : "", v);
    }
  for (guint i = 0; i < events->len; i++)
    {
      const CsRunEvent *e = &g_array_index (events, CsRunEvent, i);
      g_autofree char *v = NULL;

      if (!g_str_equal (e->kind, "max-rate") && !g_str_equal (e->kind, "max-files"))
        continue;
      v = format_limit (e->kind, e->value);
      g_string_append_printf (line, "%s", line->len > 0 ? ", " : "");
      if (g_str_equal (e->kind, "max-files"))
        /* Translators: a files/s limit set while copying: "files 20 files/s from 3.5 s" */
        g_string_append_printf (line, _("files %s from %.1f s"), v, e->t);
      else
        /* Translators: a data limit set while copying: "data 10.0 MB/s from 3.5 s" */
        g_string_append_printf (line, _("data %s from %.1f s"), v, e->t);
      any = TRUE;
    }
  if (any)
    fprintf (out, "%8s : %s\n", _("Limits"), line->str);
}

/* What a move took from the source, a mirror from the destination. */
static void
print_removals (FILE  *out,
                CsJob *job,
                CsRun *run)
{
  CsOperation operation = cs_run_get_settings (run)->operation;
  g_autofree char *files = NULL;
  g_autofree char *bytes = NULL;
  g_autofree char *dirs = NULL;
  g_autofree char *left = NULL;
  CsRemovals m;

  cs_run_get_removals (run, &m);
  if (operation == CS_OPERATION_MOVE)
    {
      files = g_strdup_printf ("%" G_GUINT64_FORMAT, m.moved_files);
      bytes = g_format_size (m.moved_bytes);
      dirs = g_strdup_printf ("%" G_GUINT64_FORMAT, m.moved_dirs);
      left = g_strdup_printf ("%" G_GUINT64_FORMAT, m.kept_files);
      fprintf (out, "%8s : ", _("Moved"));
      /* Translators: "46 files (1.2 MB), 3 folders; 2 files left in the source" */
      fprintf (out, _("%s files (%s), %s folders; %s files left in the source"), files, bytes, dirs, left);
      fprintf (out, "\n");
    }
  else if (operation == CS_OPERATION_MIRROR && cs_run_get_settings (run)->dry_run)
    {
      CsDeletions *deletions = cs_job_get_deletions (job);

      files = g_strdup_printf ("%" G_GUINT64_FORMAT, cs_deletions_get_n_files (deletions));
      bytes = g_format_size (cs_deletions_get_bytes (deletions));
      dirs = g_strdup_printf ("%" G_GUINT64_FORMAT, cs_deletions_get_n_dirs (deletions));
      fprintf (out, "%8s : ", _("Extras"));
      /* Translators: a mirror's dry run, "would delete 10 files (5.0 MB), 2 folders" */
      fprintf (out, _("would delete %s files (%s), %s folders"), files, bytes, dirs);
      if (cs_deletions_get_over_max (deletions))
        fprintf (out, _(" — more than --max-delete allows, so a mirror would delete none"));
      fprintf (out, "\n");
    }
  else if (operation == CS_OPERATION_MIRROR)
    {
      files = g_strdup_printf ("%" G_GUINT64_FORMAT, m.deleted_files);
      bytes = g_format_size (m.deleted_bytes);
      dirs = g_strdup_printf ("%" G_GUINT64_FORMAT, m.deleted_dirs);
      left = g_strdup_printf ("%" G_GUINT64_FORMAT, m.not_deleted);
      fprintf (out, "%8s : ", _("Deleted"));
      /* Translators: "10 files (5.0 MB), 2 folders; 0 extras not deleted" */
      fprintf (out, _("%s files (%s), %s folders; %s extras not deleted"), files, bytes, dirs, left);
      fprintf (out, "\n");
    }
}

/* The Skipped column holds files already there and files the overwrite rule
 * kept out: told apart. */
static void
print_skips (FILE           *out,
             CsRun          *run,
             const CsTotals *totals)
{
  guint64 skipped = totals->v[CS_CLASS_SKIPPED][CS_KIND_FILES];
  g_autofree char *identical = NULL, *identical_bytes = NULL;
  g_autofree char *chosen = NULL, *chosen_bytes = NULL;
  CsSkips s;

  if (skipped == 0 || !cs_run_get_skips (run, &s))
    return;
  identical = g_strdup_printf ("%" G_GUINT64_FORMAT, s.identical_files);
  identical_bytes = g_format_size (s.identical_bytes);
  chosen = g_strdup_printf ("%" G_GUINT64_FORMAT, s.chosen_files);
  chosen_bytes = g_format_size (s.chosen_bytes);
  fprintf (out, "%8s : ", _("Skipped"));
  /* Translators: why files were skipped, "12 identical (1.2 MB), 3 your choice (40.0 kB)";
   * "your choice": kept by the rule for existing files (--overwrite) */
  fprintf (out, _("%s identical (%s), %s your choice (%s)"), identical, identical_bytes, chosen, chosen_bytes);
  if (skipped > s.identical_files + s.chosen_files)
    {
      g_autofree char *other = g_strdup_printf ("%" G_GUINT64_FORMAT, skipped - s.identical_files - s.chosen_files);

      /* Translators: sockets and device nodes, which no copy can make */
      fprintf (out, _(", %s cannot be copied"), other);
    }
  fprintf (out, "\n");
}

/* Big files that went on from an earlier run's partial copy, and those
 * whose partial copies this run kept for a later one. */
static void
print_resumed (FILE  *out,
               CsRun *run)
{
  g_autoptr(GArray) events = cs_run_dup_events (run);

  for (guint i = 0; i < events->len; i++)
    {
      const CsRunEvent *e = &g_array_index (events, CsRunEvent, i);
      g_autofree char *kept = NULL, *size = NULL, *checked = NULL;

      if (g_strcmp0 (e->kind, "resume") != 0 && g_strcmp0 (e->kind, "kept") != 0)
        continue;
      kept = g_format_size ((guint64) e->value);
      size = g_format_size (e->size);
      if (g_str_equal (e->kind, "kept"))
        {
          fprintf (out, "%8s : ", _("Kept"));
          /* Translators: a partial copy left for the next run to go on from,
           * "photos.tar at 17.9 GB of 20.0 GB, for the next run" */
          fprintf (out, _("%s at %s of %s, for the next run"), e->path, kept, size);
          fprintf (out, "\n");
          continue;
        }
      checked = g_format_size (e->checked);
      fprintf (out, "%8s : ", _("Resumed"));
      /* Translators: "photos.tar at 17.9 GB of 20.0 GB (17.9 GB read back to check)" */
      fprintf (out, _("%s at %s of %s (%s read back to check)"), e->path, kept, size, checked);
      fprintf (out, "\n");
    }
}

/* "DEST/" that does not exist yet, in a folder that does: a folder by its
 * name, to be made. A file copied there goes into it, as rsync does, where cp
 * would refuse; a folder copied there becomes it, as with cp -r. */
static gboolean
names_new_folder (const char *path)
{
  g_autofree char *trimmed = g_strdup (path);
  g_autofree char *parent = NULL;

  if (!g_str_has_suffix (path, "/") || g_file_test (path, G_FILE_TEST_EXISTS))
    return FALSE;
  while (strlen (trimmed) > 1 && g_str_has_suffix (trimmed, "/"))
    trimmed[strlen (trimmed) - 1] = '\0';
  parent = g_path_get_dirname (trimmed);
  return g_file_test (parent, G_FILE_TEST_IS_DIR);
}

/* Where the checksum list is, and what it cost: which sums came from
 * --verify's pass and which files were read again for it. */
static void
print_manifest (FILE  *out,
                CsRun *run)
{
  g_autofree char *display = NULL;
  g_autofree char *bytes = NULL;
  g_autofree char *files = NULL, *from_copy = NULL, *read_copied = NULL, *read_kept = NULL;
  CsRunManifest m;

  if (!cs_run_get_manifest (run, &m))
    return;
  display = g_filename_display_name (m.path);
  bytes = g_format_size (m.bytes_read);
  files = g_strdup_printf ("%" G_GUINT64_FORMAT, m.files);
  from_copy = g_strdup_printf ("%" G_GUINT64_FORMAT, m.from_copy);
  read_copied = g_strdup_printf ("%" G_GUINT64_FORMAT, m.read_copied);
  read_kept = g_strdup_printf ("%" G_GUINT64_FORMAT, m.read_kept);
  fprintf (out, "%8s : ", _("Sums"));
  /* Translators: the checksum list, "/backup/sums.xxh128 (xxh128), 120 files:
   * 100 from the verify pass; read again: 0 copied, 20 already there (2.1 MB)" */
  fprintf (out, _("%s (%s), %s files: %s from the verify pass; read again: %s copied, %s already there (%s)"),
           display, m.algo, files, from_copy, read_copied, read_kept, bytes);
  fprintf (out, "\n");
}

static gboolean
is_folder (const char *path)
{
  return g_file_test (path, G_FILE_TEST_IS_DIR);
}

static void
print_summary (FILE     *out,
               CsJob    *job,
               CsRun    *run,
               gboolean  auto_threads)
{
  static const char *classes[] = { "Total", "Copied", "Skipped", "Mismatch", "FAILED", "Extras" };
  static const char *kinds[] = { "Dirs", "Files", "Bytes" };
  CsTotals totals;
  CsStat stat;
  CsFigures figures;
  g_autofree char *time = NULL;
  g_autofree char *speed = NULL;
  g_autofree char *file_rate = NULL;
  g_autofree char *threads = NULL;

  cs_run_get_totals (run, &totals);
  cs_run_get_figures (run, &figures);
  time = cs_figure_format (CS_FIGURE_DURATION, figures.duration);
  speed = cs_figure_format (CS_FIGURE_SPEED, figures.speed);
  file_rate = cs_figure_format (CS_FIGURE_FILE_RATE, figures.file_rate);
  threads = cs_figures_format_threads (&figures);

  fprintf (out, "\n%10s", "");
  for (guint c = 0; c < CS_N_CLASSES; c++)
    fprintf (out, "%12s", classes[c]);
  fprintf (out, "\n");
  for (guint k = 0; k < CS_N_KINDS; k++)
    {
      fprintf (out, "%8s :", kinds[k]);
      for (guint c = 0; c < CS_N_CLASSES; c++)
        {
          if (k == CS_KIND_BYTES)
            {
              g_autofree char *b = g_format_size (totals.v[c][k]);
              /* Padded by characters: "%12s" counts bytes, and the
               * no-break space g_format_size puts before the unit is two. */
              glong width = g_utf8_strlen (b, -1);

              fprintf (out, "%*s%s", (int) (width < 12 ? 12 - width : 0), "", b);
            }
          else
            fprintf (out, "%12" G_GUINT64_FORMAT, totals.v[c][k]);
        }
      fprintf (out, "\n");
    }
  print_skips (out, run, &totals);
  {
    const char *outcome = cs_run_get_outcome (run);

    /* Files found but never reached count in no class: said here, so the
     * summary adds up and says why. */
    if (g_strcmp0 (outcome, "failed") == 0 || g_strcmp0 (outcome, "cancelled") == 0)
      {
        const char *why = cs_run_get_fatal_error (run);
        guint64 left[CS_N_KINDS];
        g_autofree char *bytes = NULL;

        cs_run_get_not_copied (run, left);
        bytes = g_format_size (left[CS_KIND_BYTES]);
        fprintf (out, "%8s : %s; %" G_GUINT64_FORMAT " files (%s) not copied\n", "Stopped",
                 why != NULL ? why : "cancelled", left[CS_KIND_FILES], bytes);
      }
  }
  if (figures.held > 0.005)
    {
      g_autofree char *held = cs_figure_format (CS_FIGURE_DURATION, figures.held);

      fprintf (out, "%8s : %s, and %s paused or waiting for an answer\n", "Times", time, held);
    }
  else
    fprintf (out, "%8s : %s\n", "Times", time);
  fprintf (out, "%8s : %s, %s\n", "Speed", speed, file_rate);
  if (cs_run_get_stat (run, CS_COUNTER_REQUEST_RATE, &stat))
    fprintf (out, "%8s : %.0f req/s average (%.0f max)\n", "Requests", stat.avg, stat.max);
  {
    const CsRunEnvironment *env = cs_run_get_environment (run);

    /* Only where a location was a share GVfs mounted. */
    if (env != NULL && env->route != NULL)
      fprintf (out, "%8s : %s\n", "Route", env->route);
  }
  {
    g_autoptr(GArray) timeline = cs_run_dup_timeline (run);

    fprintf (out, "%8s : %s%s", "Threads", threads, auto_threads ? " (auto)" : "");
    if (timeline->len > 0)
      fprintf (out, ": %u", figures.threads);
    for (guint i = 0; i < timeline->len; i++)
      {
        const CsThreadChange *ch = &g_array_index (timeline, CsThreadChange, i);
        fprintf (out, ", %u from %.1f s", ch->to, ch->t);
      }
    fprintf (out, "\n");
  }
  print_limits (out, run);
  print_resumed (out, run);
  print_removals (out, job, run);
  print_manifest (out, run);
}

/* Every item not copied, with or without --quiet: the list is the answer to
 * "what went wrong", which quiet never hides. */
static void
print_errors (CsRun *run)
{
  g_autoptr(GPtrArray) errors = cs_run_dup_errors (run);

  for (guint i = 0; i < errors->len; i++)
    {
      const CsRunError *e = g_ptr_array_index (errors, i);
      g_autofree guchar *raw = NULL;
      g_autofree char *path = NULL;
      gsize len = 0;

      if (e->path_raw != NULL)
        raw = g_base64_decode (e->path_raw, &len);
      if (raw != NULL)
        path = cs_text_escape ((const char *) raw, (gssize) len, CS_TEXT_ESCAPE_LINE);
      else if (e->path != NULL)
        path = cs_text_escape (e->path, -1, CS_TEXT_ESCAPE_LINE);
      g_printerr ("%s: %s: %s\n", path != NULL ? path : "", e->operation, e->message);
    }
}

static gboolean
write_text (const char  *path,
            const char  *text,
            GError     **error)
{
  if (g_strcmp0 (path, "-") == 0)
    {
      fputs (text, stdout);
      return fflush (stdout) == 0;
    }
  return g_file_set_contents_full (path, text, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0644, error);
}

static int
transfer (int          argc,
          char       **argv,
          CsOperation  operation)
{
  const char *command = cs_operation_to_string (operation);
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(CsJob) job = NULL;
  g_auto(GStrv) paths = NULL;
  g_auto(GStrv) excludes = NULL;
  g_autofree char *threads_arg = NULL;
  g_autofree char *overwrite_arg = NULL;
  g_autofree char *staging_arg = NULL;
  g_autofree char *json_path = NULL;
  g_autofree char *csv_path = NULL;
  g_autofree char *cache_mode = NULL;
  g_autofree char *max_rate_arg = NULL;
  g_autofree char *max_files_arg = NULL;
  g_autofree char *log_path = NULL;
  g_autofree char *auth_file = NULL;
  g_autofree char *manifest_path = NULL;
  g_autofree char *manifest_algo_arg = NULL;
  CsManifestAlgo manifest_algo = CS_MANIFEST_XXH128;
  double max_rate = 0, max_files = 0;
  int log_fd = -1;
  int retries = 2, interval = 250;
  double wait = 1.0;
  gboolean auto_threads = FALSE, no_history = FALSE;
  gboolean verify = FALSE, durable = FALSE, no_flush = FALSE, dry_run = FALSE, quiet = FALSE;
  gboolean keep_partial = FALSE;
  g_autofree char *full_description = NULL;
  g_autofree char *max_delete_arg = NULL;
  const char *description;
  gint64 max_delete = CS_JOB_DEFAULT_MAX_DELETE;
  CopyState state = { 0 };
  /* A mirror replaces every file that differs, as Robocopy /MIR and rsync
   * --delete do: a destination file edited after its source is not kept. */
  CsOverwrite overwrite = operation == CS_OPERATION_MIRROR ? CS_OVERWRITE_DIFFERENT : CS_OVERWRITE_NEWER;
  CsStaging staging = CS_STAGING_AUTO;
  guint threads = CS_JOB_DEFAULT_THREADS, n_paths;
  guint sigint_id, sigterm_id, sighup_id;
  CsTotals totals;
  CsRun *run;
  FILE *summary_out = stdout;
  const GOptionEntry entries[] = {
    { "threads", 't', 0, G_OPTION_ARG_STRING, &threads_arg, N_("Worker threads, 1–128 (default 8), or auto to let a controller tune them"), "N|auto" },
    { "retries", 'r', 0, G_OPTION_ARG_INT, &retries, N_("Retries of a failed file (default 2)"), "N" },
    { "wait", 'w', 0, G_OPTION_ARG_DOUBLE, &wait, N_("Seconds before the first retry, doubling up to 30 (default 1)"), "S" },
    { "overwrite", 0, 0, G_OPTION_ARG_STRING, &overwrite_arg, operation == CS_OPERATION_MIRROR
      ? N_("Existing files: different (default: replace every file that differs), newer, never or always")
      : N_("Existing files: newer (default), different, never or always"), "WHEN" },
    { "verify", 0, 0, G_OPTION_ARG_NONE, &verify, N_("Read every copy back and compare (XXH3-128) before publishing it"), NULL },
    { "manifest", 0, 0, G_OPTION_ARG_FILENAME, &manifest_path, N_("Write a checksum list of every file at the destination to FILE, paths relative to the destination, checkable with xxhsum -c or sha256sum -c and “copyscope-cli check”. With --verify the sums come from its read-back; without it, each copied file is read once more from the destination after it is published, and files already there are read once"), "FILE" },
    { "manifest-algo", 0, 0, G_OPTION_ARG_STRING, &manifest_algo_arg, N_("The checksum list's algorithm: xxh128 (default, xxhsum -H2's format) or sha256 (sha256sum's)"), "ALGO" },
    { "durable", 0, 0, G_OPTION_ARG_NONE, &durable, N_("Flush every file and folder to disk before publishing it (on smb://, where libsmbclient offers no flush, the server has each byte when its write returns, and no more)"), NULL },
    { "staging", 0, 0, G_OPTION_ARG_STRING, &staging_arg, N_("Write temporaries in staging folders: auto (on network shares, default), always or never"), "WHEN" },
    { "keep-partial", 0, 0, G_OPTION_ARG_NONE, &keep_partial, N_("When interrupted, keep the partial copies of big files (64 MiB and more) for the next run to resume"), NULL },
    { "no-flush", 0, 0, G_OPTION_ARG_NONE, &no_flush, N_("Do not flush the destination to disk at the end (on smb:// there is no flush to leave out)"), NULL },
    { "dry-run", 'n', 0, G_OPTION_ARG_NONE, &dry_run, N_("List what would be done; write nothing"), NULL },
    { "exclude", 'x', 0, G_OPTION_ARG_STRING_ARRAY, &excludes, N_("Skip names matching GLOB (repeatable)"), "GLOB" },
    { "max-rate", 0, 0, G_OPTION_ARG_STRING, &max_rate_arg, N_("Copy at most RATE bytes per second: 50M is 50 MB/s, 2G 2 GB/s (default: no limit)"), "RATE" },
    { "max-files", 0, 0, G_OPTION_ARG_STRING, &max_files_arg, N_("Write, move or delete at most N files per second, as 500/s (default: no limit)"), "N/s" },
    { "log", 0, 0, G_OPTION_ARG_FILENAME, &log_path, N_("Write one line per item (copied, skipped, failed …) to FILE, or - for stdout"), "FILE" },
    { "json", 0, 0, G_OPTION_ARG_FILENAME, &json_path, N_("Write the run record as JSON to FILE, or - for stdout"), "FILE" },
    { "csv", 0, 0, G_OPTION_ARG_FILENAME, &csv_path, N_("Write the samples as CSV to FILE, or - for stdout"), "FILE" },
    { "interval", 0, 0, G_OPTION_ARG_INT, &interval, N_("Sampling interval in ms, 100–10000, 0 for none (default 250)"), "MS" },
    { "cache-mode", 0, 0, G_OPTION_ARG_STRING, &cache_mode, N_("Say in the record how the cache was prepared (cold, warm)"), "TEXT" },
    { "no-history", 0, 0, G_OPTION_ARG_NONE, &no_history, N_("Do not save the run in the history"), NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, N_("No progress line and no summary"), NULL },
    { "auth-file", 0, 0, G_OPTION_ARG_FILENAME, &auth_file, N_("Log in to smb:// locations with the password (and user) in FILE, as smbclient -A reads it; else the password is taken from COPYSCOPE_SMB_PASSWORD"), "FILE" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &paths, NULL, NULL },
    { NULL }
  };
  const GOptionEntry mirror_entries[] = {
    { "max-delete", 0, 0, G_OPTION_ARG_STRING, &max_delete_arg, N_("Delete nothing if the mirror would delete more than N files and folders (default 1000; unlimited for no limit)"), "N" },
    { NULL }
  };

  /* First of all, so a signal in the first moments still ends in a clean stop.
   * SIGHUP is what a dropped ssh session or a closed terminal sends. */
  sigint_id = g_unix_signal_add (SIGINT, on_signal, &state);
  sigterm_id = g_unix_signal_add (SIGTERM, on_signal, &state);
  sighup_id = g_unix_signal_add (SIGHUP, on_signal, &state);
  /* With the terminal or the pipe gone, writing the summary must fail, not
   * end the process before the record and the history are saved. */
  signal (SIGPIPE, SIG_IGN);

  switch (operation)
    {
    case CS_OPERATION_MOVE:
      context = g_option_context_new (_("SOURCE… DEST — move files and folders"));
      description = _("Sources go where copy would put them (cp -r's rules). Within one filesystem each\n"
                      "item is renamed; across filesystems each file is copied, and its source is\n"
                      "removed only once the copy is published and flushed to disk (and verified with\n"
                      "--verify), so a crash never loses a file; on smb://, where libsmbclient offers no\n"
                      "flush, once the server has every byte. Into an existing folder, a move merges\n"
                      "under --overwrite: a source whose copy is identical is removed; one kept because\n"
                      "the destination is newer stays in the source and is reported. Source folders\n"
                      "are removed once empty.");
      break;
    case CS_OPERATION_MIRROR:
      context = g_option_context_new (_("SOURCE DEST — make the folder DEST a mirror of the folder SOURCE"));
      description = _("Copies what is new or changed into DEST, then deletes from DEST what SOURCE no longer\n"
                      "has (files and folders: the extras). Nothing is deleted before the copying is done,\n"
                      "never through a symbolic link, never outside DEST, never a temporary of a copy in\n"
                      "progress, and names matching --exclude are kept. --dry-run lists every deletion;\n"
                      "--max-delete stops a mirror that would delete more, before it deletes anything.");
      break;
    case CS_OPERATION_COPY:
    default:
      context = g_option_context_new (_("SOURCE… DEST — copy files and folders"));
      description = _("Folders are copied whole, with cp -r's rules: an existing destination folder receives\n"
                      "each source by its name; a single source copied to a path that does not exist\n"
                      "becomes that path, and a file copied to \"DEST/\" that does not exist goes into a new\n"
                      "folder DEST. Files are written to hidden temporaries and renamed into place\n"
                      "only when complete.");
      break;
    }
  full_description = g_strconcat (description, "\n\n",
    _("Exit status: 0 all copied or skipped as asked, 1 some items failed, 2 usage error,\n"
      "3 fatal (nothing could start, or the destination became unusable),\n"
      "4 verification mismatch, 130 interrupted (SIGINT, SIGTERM or SIGHUP)."), NULL);
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (operation == CS_OPERATION_MIRROR)
    g_option_context_add_main_entries (context, mirror_entries, GETTEXT_PACKAGE);
  g_option_context_set_description (context, full_description);

  cs_cli_take_smb_passwords (argc, argv);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      cs_cli_usage_error (command, "%s", error->message);
      return CS_EXIT_USAGE;
    }

  n_paths = paths != NULL ? g_strv_length (paths) : 0;
  if (n_paths < 2)
    {
      cs_cli_usage_error (command, _("Give at least one source and a destination"));
      return CS_EXIT_USAGE;
    }
  if (!cs_cli_load_smb_credentials (auth_file, &error))
    {
      cs_cli_usage_error (command, "%s", error->message);
      return CS_EXIT_USAGE;
    }
  if (operation == CS_OPERATION_MIRROR && n_paths != 2)
    {
      cs_cli_usage_error (command, _("A mirror takes one source folder and one destination folder"));
      return CS_EXIT_USAGE;
    }
  if (g_strcmp0 (max_delete_arg, "unlimited") == 0)
    max_delete = -1;
  else if (max_delete_arg != NULL)
    {
      guint64 v;

      if (!g_ascii_string_to_unsigned (max_delete_arg, 10, 0, G_MAXINT64, &v, NULL))
        {
          cs_cli_usage_error (command, _("--max-delete takes a number or unlimited, not “%s”"), max_delete_arg);
          return CS_EXIT_USAGE;
        }
      max_delete = (gint64) v;
    }
  for (guint i = 0; i < n_paths; i++)
    if (paths[i][0] == '\0')
      {
        cs_cli_usage_error (command, _("An empty path is neither a file nor a folder"));
        return CS_EXIT_USAGE;
      }
  if (g_strcmp0 (threads_arg, "auto") == 0)
    {
      guint remembered = cs_job_get_remembered_threads (paths[n_paths - 1], NULL);

      auto_threads = TRUE;
      if (remembered != 0)
        threads = remembered;
    }
  else if (threads_arg != NULL)
    {
      guint64 v;

      if (!g_ascii_string_to_unsigned (threads_arg, 10, CS_JOB_MIN_THREADS, CS_JOB_MAX_THREADS, &v, NULL))
        {
          cs_cli_usage_error (command, _("The thread count must be auto or a number from %d to %d, not “%s”"),
                              CS_JOB_MIN_THREADS, CS_JOB_MAX_THREADS, threads_arg);
          return CS_EXIT_USAGE;
        }
      threads = (guint) v;
    }
  if (overwrite_arg != NULL && !cs_overwrite_from_string (overwrite_arg, &overwrite))
    {
      cs_cli_usage_error (command, _("--overwrite takes newer, different, never or always, not “%s”"), overwrite_arg);
      return CS_EXIT_USAGE;
    }
  if (g_strcmp0 (staging_arg, "always") == 0)
    staging = CS_STAGING_ALWAYS;
  else if (g_strcmp0 (staging_arg, "never") == 0)
    staging = CS_STAGING_NEVER;
  else if (staging_arg != NULL && strcmp (staging_arg, "auto") != 0)
    {
      cs_cli_usage_error (command, _("--staging takes auto, always or never, not “%s”"), staging_arg);
      return CS_EXIT_USAGE;
    }
  if (overwrite == CS_OVERWRITE_ASK)
    {
      cs_cli_usage_error (command, _("--overwrite=ask needs the window; use newer, different, never or always"));
      return CS_EXIT_USAGE;
    }
  if (retries < 0 || retries > 1000)
    {
      cs_cli_usage_error (command, _("--retries must be between 0 and 1000"));
      return CS_EXIT_USAGE;
    }
  if (!(wait >= 0 && wait <= 3600))
    {
      cs_cli_usage_error (command, _("--wait must be between 0 and 3600 seconds"));
      return CS_EXIT_USAGE;
    }
  if (g_strcmp0 (json_path, "-") == 0 && g_strcmp0 (csv_path, "-") == 0)
    {
      cs_cli_usage_error (command, _("--json and --csv cannot both write to stdout; give one of them a file"));
      return CS_EXIT_USAGE;
    }
  if (interval != 0 && (interval < 100 || interval > 10000))
    {
      cs_cli_usage_error (command, _("--interval must be 0 or between 100 and 10000 ms"));
      return CS_EXIT_USAGE;
    }
  if (g_strcmp0 (log_path, "-") == 0 && (g_strcmp0 (json_path, "-") == 0 || g_strcmp0 (csv_path, "-") == 0))
    {
      cs_cli_usage_error (command, _("Only one of --log, --json and --csv can write to stdout"));
      return CS_EXIT_USAGE;
    }
  if (manifest_algo_arg != NULL && !cs_manifest_algo_from_string (manifest_algo_arg, &manifest_algo))
    {
      cs_cli_usage_error (command, _("--manifest-algo takes xxh128 or sha256, not “%s”"), manifest_algo_arg);
      return CS_EXIT_USAGE;
    }
  if (manifest_algo_arg != NULL && manifest_path == NULL)
    {
      cs_cli_usage_error (command, _("--manifest-algo needs --manifest FILE"));
      return CS_EXIT_USAGE;
    }
  if (max_rate_arg != NULL && !cs_cli_parse_rate (max_rate_arg, &max_rate))
    {
      cs_cli_usage_error (command, _("--max-rate takes bytes per second such as 50M or 1.5G, not “%s”"), max_rate_arg);
      return CS_EXIT_USAGE;
    }
  if (max_files_arg != NULL && !cs_cli_parse_files_rate (max_files_arg, &max_files))
    {
      cs_cli_usage_error (command, _("--max-files takes files per second such as 500/s, not “%s”"), max_files_arg);
      return CS_EXIT_USAGE;
    }

  job = cs_job_new ();
  cs_job_set_operation (job, operation);
  /* A mirror makes DEST itself match SOURCE, as Robocopy /MIR and rclone sync do. */
  if (operation == CS_OPERATION_MIRROR)
    {
      cs_job_add_source_as (job, paths[0], paths[1]);
      cs_job_set_max_delete (job, max_delete);
    }
  else
    for (guint i = 0; i + 1 < n_paths; i++)
      cs_job_add_source (job, paths[i]);
  cs_job_set_destination (job, paths[n_paths - 1]);
  if (operation != CS_OPERATION_MIRROR && n_paths == 2 && names_new_folder (paths[1]) && !is_folder (paths[0]))
    cs_job_set_into (job, TRUE);
  cs_job_set_threads (job, threads, NULL);
  cs_job_set_auto_threads (job, auto_threads);
  cs_job_set_retries (job, (guint) retries);
  cs_job_set_wait (job, wait);
  cs_job_set_overwrite (job, overwrite);
  cs_job_set_verify (job, verify);
  cs_job_set_keep_partial (job, keep_partial);
  cs_job_set_durable (job, durable);
  cs_job_set_flush (job, !no_flush);
  cs_job_set_staging (job, staging);
  cs_job_set_interval (job, (guint) interval);
  if (cache_mode != NULL)
    cs_job_set_cache_mode (job, cache_mode);
  if (dry_run)
    cs_job_set_dry_run (job, TRUE, on_plan, NULL);
  for (guint i = 0; excludes != NULL && excludes[i] != NULL; i++)
    cs_job_add_exclude (job, excludes[i]);
  cs_job_set_max_rate (job, max_rate);
  cs_job_set_max_files (job, max_files);
  if (manifest_path != NULL)
    cs_job_set_manifest (job, manifest_path, manifest_algo);

  /* A source of its own refused (missing, the destination itself, given
   * twice) is a failed item of the run, as with cp: the others are copied. */
  if (!cs_job_check_start (job, &error))
    {
      g_printerr ("copyscope-cli: %s\n", error->message);
      return g_error_matches (error, CS_JOB_ERROR, CS_JOB_ERROR_INVALID) ? CS_EXIT_USAGE : CS_EXIT_FATAL;
    }

  if (g_strcmp0 (log_path, "-") == 0)
    log_fd = STDOUT_FILENO;
  else if (log_path != NULL)
    {
      log_fd = open (log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (log_fd < 0)
        {
          g_autofree char *display = g_filename_display_name (log_path);

          g_printerr ("copyscope-cli: %s: %s\n", display, g_strerror (errno));
          return CS_EXIT_FATAL;
        }
    }
  cs_job_set_log_fd (job, log_fd);

  state.job = job;
  state.loop = g_main_loop_new (NULL, FALSE);
  state.tty = isatty (STDERR_FILENO);
  state.quiet = quiet;
  state.eta = cs_eta_new ();
  g_signal_connect (job, "progress", G_CALLBACK (on_progress), &state);
  g_signal_connect (job, "sample", G_CALLBACK (on_sample), &state);

  cs_job_run_async (job, NULL, on_done, &state);
  if (!no_history && !dry_run)
    g_idle_add_full (G_PRIORITY_LOW, reserve_history, &state, NULL);
  g_main_loop_run (state.loop);
  /* not run if the copy was over first */
  g_idle_remove_by_data (&state);
  g_source_remove (sigint_id);
  g_source_remove (sigterm_id);
  g_source_remove (sighup_id);
  g_main_loop_unref (state.loop);
  g_clear_pointer (&state.eta, cs_eta_free);

  if (state.line_len > 0)
    g_printerr ("\r%*s\r", (int) state.line_len, "");

  run = cs_job_get_run (job);
  if (log_fd > STDERR_FILENO && close (log_fd) != 0)
    g_printerr ("copyscope-cli: %s\n", g_strerror (errno));
  if (g_strcmp0 (json_path, "-") == 0 || g_strcmp0 (csv_path, "-") == 0 || log_fd == STDOUT_FILENO)
    summary_out = stderr;

  /* The error list names a fatal error too: the file that met it, or the
   * destination. */
  print_errors (run);
  if (!quiet)
    print_summary (summary_out, job, run, auto_threads);

  if (json_path != NULL)
    {
      g_autofree char *text = cs_run_to_json_string (run, TRUE);
      g_autoptr(GError) werror = NULL;

      if (!write_text (json_path, text, &werror))
        g_printerr ("copyscope-cli: %s\n", werror != NULL ? werror->message : g_strerror (errno));
    }
  if (csv_path != NULL)
    {
      g_autofree char *text = cs_report_samples_to_csv (run);
      g_autoptr(GError) werror = NULL;

      if (!write_text (csv_path, text, &werror))
        g_printerr ("copyscope-cli: %s\n", werror != NULL ? werror->message : g_strerror (errno));
    }

  if (!no_history && !dry_run)
    {
      g_autoptr(GError) herror = NULL;
      g_autofree char *saved = cs_history_commit (state.history, run, &herror);

      if (saved == NULL)
        g_printerr ("copyscope-cli: %s\n", herror->message);
    }
  g_clear_pointer (&state.history, cs_history_slot_free);

  cs_run_get_totals (run, &totals);
  if (state.interrupted)
    return CS_EXIT_INTERRUPTED;
  if (state.error != NULL)
    return g_error_matches (state.error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ? CS_EXIT_INTERRUPTED : CS_EXIT_FATAL;
  if (totals.v[CS_CLASS_MISMATCH][CS_KIND_FILES] > 0)
    return CS_EXIT_MISMATCH;
  /* A failure listed without a failed item (a folder's times, a moved
   * source folder that could not be removed) is a failure all the same. */
  if (totals.v[CS_CLASS_FAILED][CS_KIND_FILES] > 0 || totals.v[CS_CLASS_FAILED][CS_KIND_DIRS] > 0
      || cs_run_get_n_errors (run) > 0)
    return CS_EXIT_FAILED;
  /* Extras a mirror was to delete and did not (over --max-delete, changed
   * since listed); --max-delete 0 asked for none. */
  {
    CsRemovals removals;

    cs_run_get_removals (run, &removals);
    if (removals.not_deleted > 0 && cs_run_get_settings (run)->max_delete != 0)
      return CS_EXIT_FAILED;
  }
  return CS_EXIT_OK;
}

int
cs_cli_copy (int    argc,
             char **argv)
{
  return transfer (argc, argv, CS_OPERATION_COPY);
}

int
cs_cli_move (int    argc,
             char **argv)
{
  return transfer (argc, argv, CS_OPERATION_MOVE);
}

int
cs_cli_mirror (int    argc,
               char **argv)
{
  return transfer (argc, argv, CS_OPERATION_MIRROR);
}
