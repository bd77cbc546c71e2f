/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-cli"

#include "config.h"

#include <unistd.h>

#include <glib/gi18n.h>

#include "copyscope-engine.h"
#include "cs-cli.h"

static void
on_run (CsSweep  *sweep,
        CsJob    *job,
        guint     index,
        guint     total,
        gpointer  user_data)
{
  if (*(gboolean *) user_data)
    g_printerr ("\r%s %u/%u: %u threads   ", _("run"), index + 1, total, cs_job_get_threads (job));
}

static gboolean
parse_threads (const char *arg,
               GArray     *out)
{
  g_auto(GStrv) parts = g_strsplit (arg, ",", -1);

  for (guint i = 0; parts[i] != NULL; i++)
    {
      guint64 v;

      if (!g_ascii_string_to_unsigned (g_strstrip (parts[i]), 10, CS_JOB_MIN_THREADS, CS_JOB_MAX_THREADS, &v, NULL))
        return FALSE;
      g_array_append_val (out, (guint) { v });
    }
  return out->len > 0;
}

int
cs_cli_sweep (int    argc,
              char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(CsSweep) sweep = NULL;
  g_autoptr(GArray) threads = g_array_new (FALSE, FALSE, sizeof (guint));
  g_auto(GStrv) paths = NULL;
  g_autofree char *threads_arg = NULL;
  g_autofree char *json_path = NULL;
  g_autofree char *auth_file = NULL;
  g_autofree CsSweepStat *stats = NULL;
  g_autofree char *sentence = NULL;
  gboolean cold = FALSE, warm = FALSE;
  gboolean tty = isatty (STDERR_FILENO);
  int repeats = 3;
  guint n_stats = 0, recommended;
  const GOptionEntry entries[] = {
    { "threads", 't', 0, G_OPTION_ARG_STRING, &threads_arg, N_("Thread counts to try (default 1,2,4,8,16,32,64,128)"), "N,N,…" },
    { "repeats", 'r', 0, G_OPTION_ARG_INT, &repeats, N_("Copies per thread count (default 3)"), "N" },
    { "cold", 0, 0, G_OPTION_ARG_NONE, &cold, N_("Empty the cache before every copy (default)"), NULL },
    { "warm", 0, 0, G_OPTION_ARG_NONE, &warm, N_("Leave the cache as it is"), NULL },
    { "json", 0, 0, G_OPTION_ARG_FILENAME, &json_path, N_("Write the sweep as JSON to FILE"), "FILE" },
    { "auth-file", 0, 0, G_OPTION_ARG_FILENAME, &auth_file, N_("Log in to smb:// locations with the password (and user) in FILE, as smbclient -A reads it; else the password is taken from COPYSCOPE_SMB_PASSWORD"), "FILE" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &paths, NULL, NULL },
    { NULL }
  };

  context = g_option_context_new (_("SOURCE DEST — time the same copy at several thread counts"));
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_description (context,
    /* xgettext:no-c-format */
    _("Each copy goes into a new folder under DEST, removed after it is timed. The\n"
      "recommendation is the knee: the fewest threads within 5 % of the best median time."));

  cs_cli_take_smb_passwords (argc, argv);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      cs_cli_usage_error ("sweep", "%s", error->message);
      return CS_EXIT_USAGE;
    }
  if (paths == NULL || g_strv_length (paths) != 2)
    {
      cs_cli_usage_error ("sweep", _("Give a source and a destination folder"));
      return CS_EXIT_USAGE;
    }
  if (cold && warm)
    {
      cs_cli_usage_error ("sweep", _("Choose --cold or --warm, not both"));
      return CS_EXIT_USAGE;
    }
  if (repeats < 1 || repeats > 100)
    {
      cs_cli_usage_error ("sweep", _("--repeats must be between 1 and 100"));
      return CS_EXIT_USAGE;
    }
  if (threads_arg != NULL && !parse_threads (threads_arg, threads))
    {
      cs_cli_usage_error ("sweep", _("--threads takes numbers from 1 to 128 separated by commas"));
      return CS_EXIT_USAGE;
    }
  if (!g_file_test (paths[0], G_FILE_TEST_EXISTS))
    {
      g_printerr ("copyscope-cli: %s: %s\n", paths[0], _("No such file or folder"));
      return CS_EXIT_FATAL;
    }
  /* The destination may be a share's folder, smb://user@server/share/folder:
   * the sweep itself checks that it is a folder, through its backend. */
  if (!cs_cli_load_smb_credentials (auth_file, &error))
    {
      cs_cli_usage_error ("sweep", "%s", error->message);
      return CS_EXIT_USAGE;
    }

  sweep = cs_sweep_new (paths[0], paths[1]);
  if (threads->len > 0)
    cs_sweep_set_threads (sweep, (const guint *) (gpointer) threads->data, threads->len);
  cs_sweep_set_repeats (sweep, (guint) repeats);
  cs_sweep_set_cold (sweep, !warm);

  if (!cs_sweep_run_sync (sweep, on_run, &tty, NULL, &error))
    {
      if (tty)
        g_printerr ("\n");
      g_printerr ("copyscope-cli: %s\n", error->message);
      return CS_EXIT_FATAL;
    }
  if (tty)
    g_printerr ("\r%40s\r", "");

  stats = cs_sweep_dup_stats (sweep, &n_stats);
  recommended = cs_sweep_get_recommended (sweep, &sentence);

  g_print ("%s → %s, %u %s, %s\n\n", paths[0], paths[1], (guint) repeats,
           repeats == 1 ? _("repeat") : _("repeats"), cs_sweep_get_cache_mode (sweep));
  g_print ("| threads | median s | min–max s | MB/s | files/s |\n|---:|---:|---:|---:|---:|\n");
  for (guint i = 0; i < n_stats; i++)
    g_print ("| %u%s | %.3f | %.3f–%.3f | %.1f | %.0f |\n", stats[i].threads,
             stats[i].threads == recommended ? " ◀" : "",
             stats[i].seconds[0], stats[i].seconds[1], stats[i].seconds[2],
             stats[i].mb_per_second[0], stats[i].files_per_second[0]);
  if (sentence != NULL)
    g_print ("\n%s %s\n", _("Recommended:"), sentence);

  if (json_path != NULL && !cs_sweep_save (sweep, json_path, &error))
    {
      g_printerr ("copyscope-cli: %s\n", error->message);
      return CS_EXIT_FATAL;
    }

  return CS_EXIT_OK;
}
