/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-figures"

#include "config.h"

#include <math.h>

#include <glib/gi18n-lib.h>

#include "cs-figures.h"

gboolean
cs_figures_threads_changed (const CsFigures *figures)
{
  g_return_val_if_fail (figures != NULL, FALSE);

  return figures->threads_min != figures->threads_max;
}

static char *
format_double (const char *format,
               double      value,
               gboolean    localized)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (localized)
    return g_strdup_printf (format, value);
  return g_strdup (g_ascii_formatd (buf, sizeof buf, format, value));
}

/* The text, translated for a person's window or kept as it is. */
G_GNUC_FORMAT (1)
static const char *
translated (const char *msgid,
            gboolean    localized)
{
  return localized ? _(msgid) : msgid;
}

/* An estimate no finer than it can be: words for what is under a minute or
 * a round number of minutes or hours, "3 min 20 s" only under ten minutes.
 * The plurals are written out twice, so that xgettext sees each as one. */
static char *
format_estimate (double   seconds,
                 gboolean localized)
{
  guint64 s;
  guint h, m, sec;

  if (seconds < 1)
    return g_strdup (translated (N_("less than a second"), localized));

  s = (guint64) llround (seconds);
  if (s < 60)
    return g_strdup_printf (localized ? g_dngettext (GETTEXT_PACKAGE, "%u second", "%u seconds", (gulong) s)
                                      : s == 1 ? "%u second" : "%u seconds",
                            (guint) s);

  if (s < 3600)
    {
      m = (guint) (s / 60);
      sec = (guint) (s % 60);
      if (m >= 10 || sec == 0)
        return g_strdup_printf (localized ? g_dngettext (GETTEXT_PACKAGE, "%u minute", "%u minutes", m)
                                          : m == 1 ? "%u minute" : "%u minutes",
                                m);
      /* Translators: minutes and seconds, like "3 min 20 s" */
      return g_strdup_printf (translated (N_("%u min %u s"), localized), m, sec);
    }

  h = (guint) (s / 3600);
  m = (guint) ((s % 3600) / 60);
  if (m == 0)
    return g_strdup_printf (localized ? g_dngettext (GETTEXT_PACKAGE, "%u hour", "%u hours", h)
                                      : h == 1 ? "%u hour" : "%u hours",
                            h);
  /* Translators: hours and minutes, like "2 h 05 min" */
  return g_strdup_printf (translated (N_("%u h %02u min"), localized), h, m);
}

char *
cs_format_duration (double          seconds,
                    CsDurationStyle style,
                    gboolean        localized)
{
  guint64 whole;

  if (!isfinite (seconds) || seconds < 0)
    seconds = 0;
  if (style == CS_DURATION_ESTIMATE)
    return format_estimate (seconds, localized);
  if (style == CS_DURATION_CLOCK)
    {
      whole = (guint64) llround (seconds);
      if (whole < 3600)
        return g_strdup_printf ("%u:%02u", (guint) (whole / 60), (guint) (whole % 60));
      return g_strdup_printf ("%u:%02u:%02u", (guint) (whole / 3600), (guint) (whole / 60 % 60),
                              (guint) (whole % 60));
    }

  /* Each form from the value rounded to its own precision, so that 59.96 s
   * reads "1 min 0 s", never "60.0 s". */
  if (seconds < 9.995)
    {
      g_autofree char *number = format_double ("%.2f", seconds, localized);

      /* Translators: a duration under a minute, like "0.47 s" or "42.5 s" */
      return g_strdup_printf (translated (N_("%s s"), localized), number);
    }
  if (seconds < 59.95)
    {
      g_autofree char *number = format_double ("%.1f", seconds, localized);

      return g_strdup_printf (translated (N_("%s s"), localized), number);
    }

  whole = (guint64) llround (seconds);
  if (whole < 3600)
    /* Translators: a duration under an hour, like "3 min 5 s" */
    return g_strdup_printf (translated (N_("%u min %u s"), localized),
                            (guint) (whole / 60), (guint) (whole % 60));

  whole = (guint64) llround (seconds / 60);
  /* Translators: a duration of an hour or more, like "10 h 2 min" */
  return g_strdup_printf (translated (N_("%u h %u min"), localized),
                          (guint) (whole / 60), (guint) (whole % 60));
}

char *
cs_figure_format_number (CsFigure  figure,
                         double    value,
                         gboolean  localized)
{
  if (!isfinite (value) || value < 0)
    value = 0;

  switch (figure)
    {
    case CS_FIGURE_DURATION:
      return format_double ("%.2f", value, localized);

    case CS_FIGURE_SPEED:
      return format_double (value >= 1 ? "%.1f" : "%.2f", value, localized);

    case CS_FIGURE_FILE_RATE:
      if (value >= 99.5)
        return localized ? g_strdup_printf ("%'.0f", value) : format_double ("%.0f", value, FALSE);
      return format_double (value >= 1 ? "%.1f" : "%.2f", value, localized);

    case CS_FIGURE_THREADS_MEAN:
      return format_double ("%.1f", value, localized);

    default:
      g_return_val_if_reached (NULL);
    }
}

/* The number and its unit; translated, in the user's numbers, for a person's
 * window when @localized. */
static char *
format_figure (CsFigure  figure,
               double    value,
               gboolean  localized)
{
  g_autofree char *number = cs_figure_format_number (figure, value, localized);

  switch (figure)
    {
    case CS_FIGURE_DURATION:
      return cs_format_duration (value, CS_DURATION_MEASURED, localized);
    case CS_FIGURE_SPEED:
      /* Translators: data copied per second, like "168.3 MB/s" (MB = 10^6 bytes) */
      return g_strdup_printf (translated (N_("%s MB/s"), localized), number);
    case CS_FIGURE_FILE_RATE:
      /* Translators: files copied per second, like "10,719 files/s" */
      return g_strdup_printf (translated (N_("%s files/s"), localized), number);
    case CS_FIGURE_THREADS_MEAN:
      return g_steal_pointer (&number);
    default:
      g_return_val_if_reached (NULL);
    }
}

char *
cs_figure_format (CsFigure figure,
                  double   value)
{
  return format_figure (figure, value, FALSE);
}

char *
cs_figure_format_localized (CsFigure figure,
                            double   value)
{
  return format_figure (figure, value, TRUE);
}

char *
cs_figures_format_threads (const CsFigures *figures)
{
  g_autofree char *mean = NULL;

  g_return_val_if_fail (figures != NULL, NULL);

  if (!cs_figures_threads_changed (figures))
    return g_strdup_printf ("%u", figures->threads);

  mean = cs_figure_format_number (CS_FIGURE_THREADS_MEAN, figures->threads_mean, FALSE);
  return g_strdup_printf ("%u–%u (mean %s)", figures->threads_min, figures->threads_max, mean);
}
