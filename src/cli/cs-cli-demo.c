/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-cli"

#include "config.h"

#include <string.h>
#include <unistd.h>

#include <glib/gi18n.h>

#include "copyscope-engine.h"
#include "cs-cli.h"
#include "cs-history.h"
#include "cs-report.h"

static void
on_run (CsDemo    *demo,
        CsDemoRun  which,
        CsJob     *job,
        gpointer   user_data)
{
  static const char *what[] = { N_("one big file"), N_("small files"), N_("small files, 1 thread"), N_("small files, 2 threads") };

  if (*(gboolean *) user_data)
    g_printerr (_("Copying %s…\n"), _(what[which]));
}

int
cs_cli_demo (int    argc,
             char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(CsDemo) demo = NULL;
  g_auto(GStrv) args = NULL;
  g_autofree char *work = NULL;
  g_autofree char *text = NULL;
  g_autofree char *report_path = NULL;
  double size_mb = 64;
  int threads = 1;
  gboolean t1_t2 = FALSE;
  gboolean keep = FALSE;
  gboolean no_history = FALSE;
  gboolean tty = isatty (STDERR_FILENO);
  const GOptionEntry entries[] = {
    { "size", 's', 0, G_OPTION_ARG_DOUBLE, &size_mb, N_("Megabytes in each set (default 64)"), "MB" },
    { "threads", 't', 0, G_OPTION_ARG_INT, &threads, N_("Threads for the race (default 1)"), "N" },
    { "t1-t2", 0, 0, G_OPTION_ARG_NONE, &t1_t2, N_("Then copy the small files with 1 and with 2 threads"), NULL },
    { "keep", 'k', 0, G_OPTION_ARG_NONE, &keep, N_("Keep the generated sets for the next demonstration"), NULL },
    { "no-history", 0, 0, G_OPTION_ARG_NONE, &no_history, N_("Do not save the runs in the history"), NULL },
    { "work", 'w', 0, G_OPTION_ARG_FILENAME, &work, N_("Where to keep the generated sets (default: the user cache)"), "DIR" },
    { "report", 'o', 0, G_OPTION_ARG_FILENAME, &report_path, N_("Write a comparison report (format from the extension)"), "FILE" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &args, NULL, NULL },
    { NULL }
  };

  context = g_option_context_new (_("DEST — race one big file against many small files"));
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_description (context,
    _("Generates two sets of the same size, one file and many 12 KiB files, copies each\n"
      "into DEST (removed afterwards) and says what the difference shows."));

  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      cs_cli_usage_error ("demo", "%s", error->message);
      return CS_EXIT_USAGE;
    }
  if (args == NULL || g_strv_length (args) != 1)
    {
      cs_cli_usage_error ("demo", _("Give a destination folder"));
      return CS_EXIT_USAGE;
    }
  if (!(size_mb >= 0.1 && size_mb <= 100000) || threads < CS_JOB_MIN_THREADS || threads > CS_JOB_MAX_THREADS)
    {
      cs_cli_usage_error ("demo", _("--size must be 0.1 to 100000 MB and --threads 1 to 128"));
      return CS_EXIT_USAGE;
    }
  if (!g_file_test (args[0], G_FILE_TEST_IS_DIR))
    {
      g_printerr ("copyscope-cli: %s: %s\n", args[0], _("The destination must be an existing folder"));
      return CS_EXIT_FATAL;
    }
  if (work == NULL)
    work = g_build_filename (g_get_user_cache_dir (), "copyscope", "demo", NULL);

  demo = cs_demo_new ((guint64) (size_mb * 1e6));
  cs_demo_set_threads (demo, (guint) threads);
  cs_demo_set_t1_t2 (demo, t1_t2);
  cs_demo_set_keep_sets (demo, keep);
  if (!cs_demo_run_sync (demo, work, args[0], on_run, &tty, NULL, &error))
    {
      g_printerr ("copyscope-cli: %s\n", error->message);
      return CS_EXIT_FATAL;
    }

  /* The demonstration's copies are runs like any other: in History, to open
   * and compare again later. */
  for (guint i = 0; i < CS_DEMO_N_RUNS && !no_history; i++)
    {
      CsRun *run = cs_demo_get_run (demo, i);
      g_autoptr(GError) herror = NULL;
      g_autofree char *saved = NULL;

      if (run != NULL && (saved = cs_history_save (run, &herror)) == NULL)
        {
          g_printerr ("copyscope-cli: %s\n", herror->message);
          break;
        }
    }

  text = cs_demo_explain (demo);
  g_print ("%s\n", text);

  if (report_path != NULL)
    {
      CsRun *runs[CS_DEMO_N_RUNS];
      const char *labels[CS_DEMO_N_RUNS];
      guint n = 0;
      CsReportFormat format;
      const char *dot = strrchr (report_path, '.');
      g_autoptr(GBytes) bytes = NULL;

      for (guint i = 0; i < CS_DEMO_N_RUNS; i++)
        if (cs_demo_get_run (demo, i) != NULL)
          {
            runs[n] = cs_demo_get_run (demo, i);
            labels[n] = NULL;
            n++;
          }
      if (dot == NULL || !cs_report_format_from_string (dot + 1, &format))
        format = CS_REPORT_FORMAT_MARKDOWN;
      bytes = cs_report_render (runs, n, labels, format, &error);
      if (bytes == NULL
          || !g_file_set_contents (report_path, g_bytes_get_data (bytes, NULL), (gssize) g_bytes_get_size (bytes), &error))
        {
          g_printerr ("copyscope-cli: %s\n", error->message);
          return CS_EXIT_FATAL;
        }
    }

  return CS_EXIT_OK;
}
