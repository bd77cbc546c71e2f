/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-cli"

#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gi18n.h>

#include "cs-cli-report.h"
#include "cs-compare.h"
#include "cs-figures.h"
#include "cs-history.h"
#include "cs-report.h"
#include "cs-run.h"
#include "cs-text.h"

#define EXIT_OK     0
#define EXIT_USAGE  2
#define EXIT_FATAL  3

static int
usage_error (GOptionContext *context,
             const char     *command,
             const char     *message)
{
  g_printerr ("copyscope-cli %s: %s\n", command, message);
  g_printerr (_("Try “copyscope-cli %s --help”.\n"), command);
  return EXIT_USAGE;
}

/* Picks the format from --format, else from the output's extension, else Markdown. */
static gboolean
resolve_format (const char     *format_name,
                const char     *output,
                CsReportFormat *out_format)
{
  if (format_name != NULL)
    return cs_report_format_from_string (format_name, out_format);

  if (output != NULL && strcmp (output, "-") != 0)
    {
      const char *dot = strrchr (output, '.');

      if (dot != NULL && cs_report_format_from_string (dot + 1, out_format))
        return TRUE;
    }

  *out_format = CS_REPORT_FORMAT_MARKDOWN;
  return TRUE;
}

static int
write_output (const char     *command,
              const char     *output,
              CsReportFormat  format,
              GBytes         *bytes)
{
  g_autoptr(GError) error = NULL;
  gsize len = 0;
  const guint8 *data = g_bytes_get_data (bytes, &len);

  if (output == NULL || strcmp (output, "-") == 0)
    {
      if (!cs_report_write_all (STDOUT_FILENO, data, len))
        {
          int saved = errno;

          g_printerr ("copyscope-cli %s: cannot write to standard output: %s\n",
                      command, g_strerror (saved));
          return EXIT_FATAL;
        }
      return EXIT_OK;
    }

  if (!g_file_set_contents_full (output, (const char *) data, (gssize) len,
                                 G_FILE_SET_CONTENTS_CONSISTENT, 0644, &error))
    {
      g_autofree char *display = g_filename_display_name (output);

      g_printerr ("copyscope-cli %s: %s: %s\n", command, display, error->message);
      return EXIT_FATAL;
    }

  return EXIT_OK;
}

static CsRun *
load_run (const char *command,
          const char *path)
{
  g_autoptr(GError) error = NULL;
  CsRun *run = cs_run_load (path, &error);

  if (run == NULL)
    {
      g_autofree char *display = g_filename_display_name (path);

      g_printerr ("copyscope-cli %s: %s: %s\n", command, display, error->message);
    }

  return run;
}

/* Shared by report and compare: they differ only in how many runs they take. */
static int
run_report_command (int      argc,
                    char   **argv,
                    gboolean compare)
{
  const char *command = compare ? "compare" : "report";
  g_autofree char *format_name = NULL;
  g_autofree char *output = NULL;
  g_autofree char *chart = NULL;
  g_auto(GStrv) labels = NULL;
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GPtrArray) runs = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  CsReportFormat format;
  guint n_paths;
  GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name,
      N_("Output format: md, html, csv, json, png, svg, pdf, trace or sysprof (default: from the output name, else md)"), "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      N_("Write to FILE (“-”: standard output, text formats only)"), "FILE" },
    { "chart", 'c', 0, G_OPTION_ARG_STRING, &chart,
      N_("The chart png, svg and pdf hold: throughput (default) or phases, where the workers' time went"),
      "CHART" },
    { "label", 'l', 0, G_OPTION_ARG_STRING_ARRAY, &labels,
      compare ? N_("Name a run in the report, once per run in order (e.g. --label T1 --label T2)")
              : N_("Name the run in the report"), "LABEL" },
    { NULL }
  };

  context = g_option_context_new (compare ? "RUN.json RUN.json [RUN.json…]" : "RUN.json");
  g_option_context_set_summary (context, compare
                                ? _("Compare two or more saved runs, counter by counter.")
                                : _("Write a report on one saved run."));
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_description (context,
                                    _("Exit status: 0 success, 2 usage error, 3 unreadable or invalid run file."));

  if (!g_option_context_parse (context, &argc, &argv, &error))
    return usage_error (context, command, error->message);

  n_paths = argc > 1 ? (guint) argc - 1 : 0;
  if (!compare && n_paths != 1)
    return usage_error (context, command, _("expected exactly one run file"));
  if (compare && n_paths < 2)
    return usage_error (context, command, _("expected two or more run files"));
  if (labels != NULL && g_strv_length (labels) > n_paths)
    return usage_error (context, command, _("more --label options than run files"));

  if (!resolve_format (format_name, output, &format))
    return usage_error (context, command, _("unknown format; use md, html, csv, json, png, svg, pdf, trace or sysprof"));

  if ((output == NULL || strcmp (output, "-") == 0) && !cs_report_format_is_text (format))
    return usage_error (context, command, _("binary formats (png, svg, pdf, sysprof) need --output FILE"));

  if (chart != NULL && !g_str_equal (chart, "throughput") && !g_str_equal (chart, "phases"))
    return usage_error (context, command, _("unknown chart; use throughput or phases"));
  if (chart != NULL && g_str_equal (chart, "phases") &&
      (compare || (format != CS_REPORT_FORMAT_PNG && format != CS_REPORT_FORMAT_SVG &&
                   format != CS_REPORT_FORMAT_PDF)))
    return usage_error (context, command, _("--chart phases draws one run as png, svg or pdf"));

  runs = g_ptr_array_new_with_free_func ((GDestroyNotify) cs_run_unref);
  for (guint i = 0; i < n_paths; i++)
    {
      CsRun *run = load_run (command, argv[i + 1]);

      if (run == NULL)
        return EXIT_FATAL;
      g_ptr_array_add (runs, run);
    }

  /* Unnamed runs take their own label, else the file name, so a comparison of
   * t1.json and t2.json reads "t1 vs. t2". */
  {
    g_autofree char **names = g_new0 (char *, n_paths + 1);
    g_autoptr(GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);

    for (guint i = 0; i < n_paths; i++)
      {
        g_autofree char *own = cs_run_dup_label (g_ptr_array_index (runs, i));

        if (labels != NULL && i < g_strv_length (labels))
          {
            names[i] = labels[i];
          }
        else if (own == NULL)
          {
            g_autofree char *base = g_path_get_basename (argv[i + 1]);
            g_autofree char *display = g_filename_display_name (base);

            if (g_str_has_suffix (display, ".json"))
              display[strlen (display) - 5] = '\0';
            names[i] = g_steal_pointer (&display);
            g_ptr_array_add (owned, names[i]);
          }
      }

    if (chart != NULL && g_str_equal (chart, "phases"))
      bytes = cs_report_render_phase_chart (g_ptr_array_index (runs, 0), format, &error);
    else
      bytes = cs_report_render ((CsRun **) runs->pdata, runs->len,
                                (const char * const *) names, format, &error);
  }

  if (bytes == NULL)
    {
      g_printerr ("copyscope-cli %s: %s\n", command, error->message);
      return EXIT_FATAL;
    }

  return write_output (command, output, format, bytes);
}

int
cs_cli_report (int    argc,
               char **argv)
{
  return run_report_command (argc, argv, FALSE);
}

int
cs_cli_compare (int    argc,
                char **argv)
{
  return run_report_command (argc, argv, TRUE);
}

static char *
format_number (const char *fmt,
               double      value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup (g_ascii_formatd (buf, sizeof buf, fmt, value));
}

static char *
describe_paths (CsRun *run)
{
  const char * const *sources = cs_run_get_sources (run);
  const char *destination = cs_run_get_destination (run);
  GString *out = g_string_new (NULL);

  /* The bytes as they are: cs_text_escape () shows them exactly. */
  for (guint i = 0; sources[i] != NULL; i++)
    {
      if (i > 0)
        g_string_append (out, ", ");
      g_string_append (out, sources[i]);
    }
  g_string_append_printf (out, " → %s", destination != NULL ? destination : "?");

  return g_string_free (out, FALSE);
}

int
cs_cli_history (int    argc,
                char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GPtrArray) entries = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = cs_history_get_dir ();
  guint skipped = 0;
  GOptionEntry entries_spec[] = { { NULL } };

  context = g_option_context_new (NULL);
  g_option_context_set_summary (context, _("List the saved runs, newest first."));
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, entries_spec, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return usage_error (context, "history", error->message);
  if (argc > 1)
    return usage_error (context, "history", _("no arguments expected"));

  entries = cs_history_list (&skipped, &error);
  if (entries == NULL)
    {
      g_printerr ("copyscope-cli history: %s: %s\n", dir, error->message);
      return EXIT_FATAL;
    }

  if (entries->len == 0)
    {
      g_print (_("No saved runs in %s\n"), dir);
    }
  else
    {
      g_print ("%-20s  %-12s  %-16s  %11s  %9s  %10s  %9s  %10s  %s\n",
               "Date (UTC)", "Label", "Threads", "Duration", "Files", "MB/s", "files/s", "req/s",
               "Sources → Destination");
    }

  for (guint i = 0; i < entries->len; i++)
    {
      CsHistoryEntry *entry = g_ptr_array_index (entries, i);
      CsRun *run = entry->run;
      g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc (cs_run_get_started (run) / G_USEC_PER_SEC);
      g_autofree char *date = dt != NULL ? g_date_time_format (dt, "%Y-%m-%d %H:%M:%S") : g_strdup ("?");
      g_autofree char *label = cs_run_dup_label (run);
      g_autofree char *label_shown = cs_text_escape (label != NULL ? label : "-", -1, CS_TEXT_ESCAPE_LINE);
      g_autofree char *paths = describe_paths (run);
      g_autofree char *paths_shown = cs_text_escape (paths, -1, CS_TEXT_ESCAPE_LINE);
      g_autofree char *threads = NULL;
      g_autofree char *duration = NULL;
      g_autofree char *speed = NULL;
      g_autofree char *file_rate = NULL;
      g_autofree char *requests = NULL;
      CsFigures figures;
      CsStat stat;

      /* The figures every view shows (cs-figures.h); the unit is in the header. */
      cs_run_get_figures (run, &figures);
      threads = cs_figures_format_threads (&figures);
      duration = cs_figure_format (CS_FIGURE_DURATION, figures.duration);
      speed = cs_figure_format_number (CS_FIGURE_SPEED, figures.speed, FALSE);
      file_rate = cs_figure_format_number (CS_FIGURE_FILE_RATE, figures.file_rate, FALSE);
      requests = cs_run_get_stat (run, CS_COUNTER_REQUEST_RATE, &stat)
                 ? format_number ("%.0f", stat.avg) : g_strdup ("-");

      g_print ("%-20s  %-12s  %-16s  %11s  %9" G_GUINT64_FORMAT "  %10s  %9s  %10s  %s\n",
               date, label_shown, threads, duration, figures.files, speed, file_rate, requests,
               paths_shown);
    }

  if (skipped > 0)
    g_printerr ("copyscope-cli history: %u unreadable file(s) in %s skipped\n", skipped, dir);

  return EXIT_OK;
}
