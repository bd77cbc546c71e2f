/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n.h>

#include "cs-format.h"
#include "cs-smb.h"

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

/* "nas/photos/2024", with the server's port where it is not the default:
 * the share and folder as a person names them, without the URL's escapes
 * or the user it logs in as. */
static char *
display_smb (const char *location)
{
  g_autoptr(CsSmbLocation) smb = cs_smb_location_parse (location);
  GString *text;

  if (smb == NULL)
    return g_strdup (location);
  text = g_string_new (smb->server);
  if (smb->port != 0)
    g_string_append_printf (text, ":%u", smb->port);
  g_string_append_printf (text, "/%s", smb->share);
  if (smb->path[0] != '\0')
    g_string_append_printf (text, "/%s", smb->path);
  return g_string_free (text, FALSE);
}

/* Names may hold any byte but "/" and NUL; newlines and other controls are shown
 * as visible symbols so one name never looks like two. */
char *
_cs_display_path (const char *path)
{
  g_autofree char *display = NULL;
  GString *out;

  g_return_val_if_fail (path != NULL, NULL);

  if (g_str_has_prefix (path, "smb://"))
    {
      g_autofree char *smb = display_smb (path);

      display = g_utf8_make_valid (smb, -1);
    }
  else
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

  if (g_str_has_prefix (sources[0], "smb://"))
    {
      g_autofree char *shown = display_smb (sources[0]);

      base = g_path_get_basename (shown);
      first = g_utf8_make_valid (base, -1);
    }
  else
    {
      base = g_path_get_basename (sources[0]);
      first = g_filename_display_name (base);
    }
  if (n == 1)
    return g_steal_pointer (&first);

  /* Translators: several sources, like "Photos and 3 more" */
  return g_strdup_printf (ngettext ("%s and %u more", "%s and %u more", n - 1), first, n - 1);
}

gboolean
_cs_file_is_smb_url (GFile *file)
{
  g_autofree char *path = NULL;

  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  if (!g_file_has_uri_scheme (file, "smb"))
    return FALSE;
  path = g_file_get_path (file);
  return path == NULL;
}

/*
 * GNOME Files hands over smb:// URIs for shares it mounted too, and GIO
 * turns them into the path on GVfs's FUSE mount while gvfsd-fuse runs:
 * that path is what the engine gets, since it may go through the mount if
 * the engine cannot log in itself, and goes to the server directly when it
 * can (cs-route.c). A share nobody mounted has no path: its URL goes to
 * the engine's own SMB client, which logs in first (cs-window-login.c).
 */
char *
_cs_file_get_location (GFile *file)
{
  char *path;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  if ((path = g_file_get_path (file)) != NULL)
    return path;
  if (g_file_has_uri_scheme (file, "smb"))
    return g_file_get_uri (file);
  return NULL;
}

GFile *
_cs_file_take_password (GFile *file)
{
  g_autofree char *uri = NULL;
  g_autofree char *kept = NULL;
  gboolean taken = FALSE;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  if (!g_file_has_uri_scheme (file, "smb"))
    return g_object_ref (file);
  uri = g_file_get_uri (file);
  kept = cs_smb_location_take_password (uri, &taken);
  return taken ? g_file_new_for_uri (kept) : g_object_ref (file);
}

GFile *
_cs_file_new_for_location (const char *location)
{
  g_return_val_if_fail (location != NULL, NULL);

  if (g_uri_peek_scheme (location) != NULL)
    return g_file_new_for_uri (location);
  return g_file_new_for_path (location);
}

char *
_cs_display_file (GFile *file)
{
  g_autofree char *location = NULL;
  g_autofree char *parse_name = NULL;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  if ((location = _cs_file_get_location (file)) != NULL)
    return _cs_display_path (location);
  parse_name = g_file_get_parse_name (file);
  return _cs_display_path (parse_name);
}
