/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n.h>

#include "cs-format.h"

/* Decimal units by default, as every Copyscope report states: MB = 10^6 bytes.
 * The preferences can switch the screen (never a file) to MiB. Main thread. */
static gboolean binary_units;

void
_cs_format_set_binary_units (gboolean binary)
{
  binary_units = !!binary;
}

char *
_cs_format_bytes (guint64 bytes)
{
  return g_format_size_full (bytes, binary_units ? G_FORMAT_SIZE_IEC_UNITS : G_FORMAT_SIZE_DEFAULT);
}

char *
_cs_format_count (guint64 count)
{
  /* %' groups digits the way the user's locale does. */
  return g_strdup_printf ("%'" G_GUINT64_FORMAT, count);
}

char *
_cs_format_rate (double bytes_per_second)
{
  g_autofree char *size = NULL;

  if (!(bytes_per_second > 0))
    bytes_per_second = 0;

  size = _cs_format_bytes ((guint64) llround (bytes_per_second));

  /* Translators: a transfer rate, like "12.5 MB/s" */
  return g_strdup_printf (_("%s/s"), size);
}

char *
_cs_format_duration (double seconds)
{
  guint64 s;

  if (!(seconds > 0))
    seconds = 0;

  if (seconds < 1)
    return g_strdup (_("less than a second"));

  s = (guint64) llround (seconds);

  if (s < 60)
    return g_strdup_printf (ngettext ("%u second", "%u seconds", (gulong) s), (guint) s);

  if (s < 3600)
    {
      guint m = (guint) (s / 60);
      guint sec = (guint) (s % 60);

      if (m >= 10 || sec == 0)
        return g_strdup_printf (ngettext ("%u minute", "%u minutes", m), m);
      /* Translators: minutes and seconds, like "3 min 20 s" */
      return g_strdup_printf (_("%u min %u s"), m, sec);
    }

  {
    guint h = (guint) (s / 3600);
    guint m = (guint) ((s % 3600) / 60);

    if (m == 0)
      return g_strdup_printf (ngettext ("%u hour", "%u hours", h), h);
    /* Translators: hours and minutes, like "2 h 05 min" */
    return g_strdup_printf (_("%u h %02u min"), h, m);
  }
}

char *
_cs_format_figures_threads (const CsFigures *figures)
{
  g_autofree char *mean = NULL;

  if (!cs_figures_threads_changed (figures))
    return g_strdup_printf (ngettext ("%u thread", "%u threads", figures->threads), figures->threads);

  mean = cs_figure_format_number (CS_FIGURE_THREADS_MEAN, figures->threads_mean, TRUE);
  /* Translators: a thread count that changed during a run: the lowest, the
   * highest and the mean over the run's time, like "1–16 threads, mean 8.4" */
  return g_strdup_printf (_("%u–%u threads, mean %s"), figures->threads_min, figures->threads_max, mean);
}

/* Three significant digits are what a counter can honestly claim. */
char *
_cs_format_value (double value)
{
  double a = fabs (value);

  if (isnan (value))
    return g_strdup ("—");
  if (a >= 1000)
    return g_strdup_printf ("%'.0f", value);
  if (a >= 100)
    return g_strdup_printf ("%.0f", value);
  if (a >= 10)
    return g_strdup_printf ("%.1f", value);
  return g_strdup_printf ("%.2f", value);
}

/* A counter's value as its rows show it: threads are a count. */
char *
_cs_format_counter_value (CsCounter counter,
                          double    value)
{
  if (counter == CS_COUNTER_THREADS && !isnan (value) && value == floor (value))
    return g_strdup_printf ("%.0f", value);
  if (counter == CS_COUNTER_THREADS && !isnan (value))
    return g_strdup_printf ("%.1f", value);

  return _cs_format_value (value);
}

/* The unit of @info in the user's language; "" for a counter without one. */
const char *
_cs_counter_unit (const CsCounterInfo *info)
{
  g_return_val_if_fail (info != NULL, "");

  /* gettext ("") would be the catalogue's header. */
  return info->unit[0] != '\0' ? _(info->unit) : "";
}

/* Names may hold any byte but "/" and NUL; newlines and other controls are shown
 * as visible symbols so one name never looks like two. */
char *
_cs_display_path (const char *path)
{
  g_autofree char *display = NULL;
  GString *out;

  g_return_val_if_fail (path != NULL, NULL);

  display = g_filename_display_name (path);
  out = g_string_sized_new (strlen (display));

  for (const char *p = display; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (c < 0x20)
        g_string_append_unichar (out, 0x2400 + c);   /* SYMBOL FOR NULL … UNIT SEPARATOR */
      else if (c == 0x7f)
        g_string_append_unichar (out, 0x2421);
      else
        g_string_append_unichar (out, c);
    }

  return g_string_free (out, FALSE);
}

/* A moment in the user's language and time zone, to the minute: when a run
 * started, when a file was last changed. */
char *
_cs_format_time (gint64 unix_us)
{
  g_autoptr(GDateTime) date = g_date_time_new_from_unix_local (unix_us / G_USEC_PER_SEC);

  if (date == NULL)
    return g_strdup ("?");

  /* Translators: a date and time, like "1 Dec 2026, 17:57"; see g_date_time_format() */
  return g_date_time_format (date, _("%e %b %Y, %H:%M"));
}

char *
_cs_display_name (GFile *file)
{
  g_autofree char *basename = NULL;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  basename = g_file_get_basename (file);
  if (basename == NULL)
    return g_file_get_parse_name (file);

  return _cs_display_path (basename);
}

char *
_cs_format_sources (const char * const *sources)
{
  guint n = sources != NULL ? g_strv_length ((char **) sources) : 0;
  g_autofree char *first = NULL;
  g_autofree char *base = NULL;

  if (n == 0)
    return g_strdup ("?");

  base = g_path_get_basename (sources[0]);
  first = g_filename_display_name (base);
  if (n == 1)
    return g_steal_pointer (&first);

  /* Translators: several sources, like "Photos and 3 more" */
  return g_strdup_printf (ngettext ("%s and %u more", "%s and %u more", n - 1), first, n - 1);
}
