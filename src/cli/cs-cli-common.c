/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-cli"

#include "config.h"

#include <stdio.h>

#include <glib/gi18n.h>

#include "cs-cli.h"

void
cs_cli_usage_error (const char *command,
                    const char *format,
                    ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  g_printerr ("copyscope-cli %s: %s\n", command, message);
  g_printerr (_("Try “copyscope-cli %s --help”.\n"), command);
}

/* MB = 10^6 bytes, as in every report. */
char *
cs_cli_format_bytes (guint64 bytes)
{
  static const char *units[] = { "B", "kB", "MB", "GB", "TB", "PB" };
  double v = (double) bytes;
  guint u = 0;

  while (v >= 1000.0 && u < G_N_ELEMENTS (units) - 1)
    {
      v /= 1000.0;
      u++;
    }
  if (u == 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " B", bytes);
  return g_strdup_printf ("%.*f %s", v < 10 ? 2 : v < 100 ? 1 : 0, v, units[u]);
}

char *
cs_cli_format_duration (double seconds)
{
  guint64 s;

  if (seconds < 60)
    return g_strdup_printf ("%.2f s", seconds);
  s = (guint64) (seconds + 0.5);
  return g_strdup_printf ("%" G_GUINT64_FORMAT ":%02u:%02u", s / 3600, (guint) (s / 60 % 60), (guint) (s % 60));
}
