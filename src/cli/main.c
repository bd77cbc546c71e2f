/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-cli"

#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

#include <glib/gi18n.h>

#include "cs-cli.h"
#include "cs-cli-report.h"

typedef struct {
  const char *name;
  int (*run) (int argc, char **argv);
  const char *summary;
} Command;

static const Command commands[] = {
  { "copy", cs_cli_copy, N_("Copy files and folders") },
  { "move", cs_cli_move, N_("Move files and folders") },
  { "mirror", cs_cli_mirror, N_("Make a folder a mirror of another") },
  { "check", cs_cli_check, N_("Check a folder against a checksum list") },
  { "generate", cs_cli_generate, N_("Generate a benchmark data set") },
  { "demo", cs_cli_demo, N_("Race one big file against many small files") },
  { "sweep", cs_cli_sweep, N_("Time a copy at several thread counts and recommend one") },
  { "report", cs_cli_report, N_("Write a report of a saved run") },
  { "compare", cs_cli_compare, N_("Compare saved runs side by side") },
  { "history", cs_cli_history, N_("List saved runs") },
};

static void
print_usage (FILE *out)
{
  fprintf (out, "%s\n\n", _("Usage: copyscope-cli COMMAND [OPTION…]"));
  fprintf (out, "%s\n", _("Commands:"));
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-10s %s\n", commands[i].name, _(commands[i].summary));
  fprintf (out, "\n%s\n", _("“copyscope-cli COMMAND --help” describes a command and its options."));
  fprintf (out, "\n%s\n", _("Exit status: 0 all copied or skipped as asked, 1 some items failed, 2 usage error,\n"
                            "3 fatal (nothing could start, or the destination became unusable),\n"
                            "4 verification mismatch, 130 interrupted."));
}

int
main (int    argc,
      char **argv)
{
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  g_set_prgname ("copyscope-cli");

  if (argc < 2)
    {
      print_usage (stderr);
      return CS_EXIT_USAGE;
    }
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0 || strcmp (argv[1], "help") == 0)
    {
      print_usage (stdout);
      return CS_EXIT_OK;
    }
  if (strcmp (argv[1], "--version") == 0)
    {
      printf ("copyscope-cli %s\n", PACKAGE_VERSION);
      return CS_EXIT_OK;
    }

  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (argv[1], commands[i].name) == 0)
      {
        g_autofree char *name = g_strconcat ("copyscope-cli ", commands[i].name, NULL);

        /* "Usage: copyscope-cli copy [OPTION…]" in the command's --help. */
        g_set_prgname (name);
        return commands[i].run (argc - 1, argv + 1);
      }

  g_printerr (_("copyscope-cli: unknown command “%s”\n"), argv[1]);
  print_usage (stderr);
  return CS_EXIT_USAGE;
}
