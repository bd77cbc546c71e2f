/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-cli"

#include "config.h"

#include <stdio.h>
#include <string.h>

#include <glib/gi18n.h>

#include "copyscope-engine.h"
#include "cs-cli.h"

typedef struct {
  gboolean quiet;
} CheckState;

static void
on_difference (const char *what,
               const char *path,
               const char *message,
               gpointer    user_data)
{
  CheckState *state = user_data;
  g_autofree char *shown = cs_text_escape (path, -1, CS_TEXT_ESCAPE_LINE);

  if (state->quiet)
    return;
  /* One line per difference, the name escaped as the per-file log does,
   * so a name with a newline stays on its line. */
  if (message != NULL)
    g_print ("%-10s %s: %s\n", what, shown, message);
  else
    g_print ("%-10s %s\n", what, shown);
}

int
cs_cli_check (int    argc,
              char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(CsRun) run = NULL;
  g_auto(GStrv) paths = NULL;
  g_autofree char *json_path = NULL;
  g_autofree char *folder = NULL;
  g_autofree char *bytes = NULL;
  g_autofree char *time = NULL;
  int threads = CS_JOB_DEFAULT_THREADS;
  CheckState state = { 0 };
  CsManifestCheck result = { 0 };
  guint n_paths;
  gint64 started;
  const GOptionEntry entries[] = {
    { "threads", 't', 0, G_OPTION_ARG_INT, &threads, N_("Files read at once, 1–128 (default 8)"), "N" },
    { "json", 0, 0, G_OPTION_ARG_FILENAME, &json_path, N_("Write the run record as JSON to FILE, or - for stdout"), "FILE" },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &state.quiet, N_("No list of differences and no summary"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &paths, NULL, NULL },
    { NULL }
  };

  context = g_option_context_new (_("MANIFEST [DIR] — check a folder against a checksum list"));
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_description (context,
    _("Reads every file MANIFEST lists in DIR (default: the folder MANIFEST is in) and\n"
      "compares it with its checksum, then lists the files DIR holds that MANIFEST does\n"
      "not (MANIFEST itself excepted). MANIFEST is in xxhsum -H2's format (XXH128) or\n"
      "sha256sum's, told apart by the length of the sums, names escaped as coreutils\n"
      "escapes them; “copy --manifest” writes such a list.\n\n"
      "Exit status: 0 every file matches, 4 differences (changed, missing or extra files),\n"
      "1 some files could not be read, 2 usage error, 3 the check could not run."));

  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      cs_cli_usage_error ("check", "%s", error->message);
      return CS_EXIT_USAGE;
    }
  n_paths = paths != NULL ? g_strv_length (paths) : 0;
  if (n_paths < 1 || n_paths > 2)
    {
      cs_cli_usage_error ("check", _("Give a checksum list and, if it is not in the folder it lists, the folder"));
      return CS_EXIT_USAGE;
    }
  if (threads < CS_JOB_MIN_THREADS || threads > CS_JOB_MAX_THREADS)
    {
      cs_cli_usage_error ("check", _("--threads must be between %d and %d"), CS_JOB_MIN_THREADS, CS_JOB_MAX_THREADS);
      return CS_EXIT_USAGE;
    }
  folder = n_paths == 2 ? g_strdup (paths[1]) : g_path_get_dirname (paths[0]);

  run = cs_run_new ();
  started = g_get_monotonic_time ();
  if (!cs_manifest_check_sync (paths[0], folder, (guint) threads, on_difference, &state, run, &result, &error))
    {
      g_printerr ("copyscope-cli: %s\n", error->message);
      return CS_EXIT_FATAL;
    }

  if (!state.quiet)
    {
      bytes = g_format_size (result.bytes);
      time = cs_figure_format (CS_FIGURE_DURATION, (double) (g_get_monotonic_time () - started) / G_USEC_PER_SEC);
      g_print ("\n");
      {
        g_autofree char *listed = g_strdup_printf ("%" G_GUINT64_FORMAT, result.listed);
        g_autofree char *matched = g_strdup_printf ("%" G_GUINT64_FORMAT, result.matched);
        g_autofree char *changed = g_strdup_printf ("%" G_GUINT64_FORMAT, result.changed);
        g_autofree char *missing = g_strdup_printf ("%" G_GUINT64_FORMAT, result.missing);
        g_autofree char *extra = g_strdup_printf ("%" G_GUINT64_FORMAT, result.extra);
        g_autofree char *unreadable = g_strdup_printf ("%" G_GUINT64_FORMAT, result.unreadable);

        /* Translators: the end of a check, "120 listed: 117 match, 1 changed, 1 missing, 2 extra, 0 unreadable" */
        g_print (_("%s listed: %s match, %s changed, %s missing, %s extra, %s unreadable"),
                 listed, matched, changed, missing, extra, unreadable);
      }
      g_print ("\n");
      /* Translators: "2.1 GB read in 3.20 s" */
      g_print (_("%s read in %s"), bytes, time);
      g_print ("\n");
    }

  if (json_path != NULL)
    {
      g_autofree char *text = cs_run_to_json_string (run, TRUE);
      g_autoptr(GError) werror = NULL;

      if (g_strcmp0 (json_path, "-") == 0)
        fputs (text, stdout);
      else if (!g_file_set_contents_full (json_path, text, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0644, &werror))
        g_printerr ("copyscope-cli: %s\n", werror->message);
    }

  if (result.changed > 0 || result.missing > 0 || result.extra > 0)
    return CS_EXIT_MISMATCH;
  if (result.unreadable > 0)
    return CS_EXIT_FAILED;
  return CS_EXIT_OK;
}
