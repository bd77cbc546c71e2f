/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-cli"

#include "config.h"

#include <unistd.h>

#include <glib/gi18n.h>

#include "copyscope-engine.h"
#include "cs-cli.h"

static void
on_progress (guint64  files_done,
             guint64  files_total,
             guint64  bytes_done,
             guint64  bytes_total,
             gpointer user_data)
{
  g_autofree char *done = g_format_size (bytes_done);
  g_autofree char *total = g_format_size (bytes_total);

  g_printerr ("\r%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " files  %s/%s   ",
              files_done, files_total, done, total);
}

int
cs_cli_generate (int    argc,
                 char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) args = NULL;
  double scale = 1.0;
  gint64 seed = 1;
  gboolean tty = isatty (STDERR_FILENO);
  CsScenario scenario;
  guint64 files = 0, bytes = 0;
  const GOptionEntry entries[] = {
    { "scale", 's', 0, G_OPTION_ARG_DOUBLE, &scale, N_("Multiply the number of files (for big: the size) by F (default 1)"), "F" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, N_("Seed of the pseudo-random contents (default 1)"), "N" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &args, NULL, NULL },
    { NULL }
  };
  g_autoptr(GString) description = g_string_new (_("Scenarios:\n"));

  for (guint i = 0; i < CS_N_SCENARIOS; i++)
    g_string_append_printf (description, "  %-8s %s\n", cs_scenario_to_string (i), _(cs_scenario_describe (i)));

  context = g_option_context_new (_("SCENARIO DIR — generate a benchmark data set"));
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_description (context, description->str);

  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      cs_cli_usage_error ("generate", "%s", error->message);
      return CS_EXIT_USAGE;
    }
  if (args == NULL || g_strv_length (args) != 2)
    {
      cs_cli_usage_error ("generate", _("Give a scenario and a folder"));
      return CS_EXIT_USAGE;
    }
  if (!cs_scenario_from_string (args[0], &scenario))
    {
      cs_cli_usage_error ("generate", _("Unknown scenario “%s”"), args[0]);
      return CS_EXIT_USAGE;
    }
  if (!(scale > 0 && scale <= 100) || seed < 0)
    {
      cs_cli_usage_error ("generate", _("--scale must be above 0 and at most 100, --seed not negative"));
      return CS_EXIT_USAGE;
    }

  if (!cs_generate_sync (scenario, args[1], scale, (guint64) seed, tty ? on_progress : NULL, NULL, NULL, &error))
    {
      if (tty)
        g_printerr ("\n");
      g_printerr ("copyscope-cli: %s\n", error->message);
      return CS_EXIT_FATAL;
    }
  if (tty)
    g_printerr ("\n");

  cs_scenario_estimate (scenario, scale, &files, &bytes);
  {
    g_autofree char *size = g_format_size (bytes);
    g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, files);

    /* Translators: scenario, number of files, total size and folder, like
     * "small: 20000 files, 245 MB in /tmp/set" */
    g_print (ngettext ("%s: %s file, %s in %s\n", "%s: %s files, %s in %s\n", (gulong) files),
             args[0], count, size, args[1]);
  }

  return CS_EXIT_OK;
}
