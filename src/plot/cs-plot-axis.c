/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-plot"

#include "config.h"

#include <math.h>
#include <string.h>

#include "cs-plot.h"
#include "cs-plot-private.h"

/* Relative slack for values that are nice numbers apart from rounding noise,
 * such as 0.30000000000000004. */
#define NICE_EPSILON 1e-9

/* The shortest time axis a live chart starts with. */
#define LIVE_MIN_SPAN 0.5

/* The axis keeps its maximum until the data uses less than this share of it. */
#define SHRINK_FRACTION 0.4

static double
power_of_ten (int exponent)
{
  /* Dividing by an exact power gives 0.1, 0.01 … correctly rounded;
   * pow (10, -n) and repeated multiplication do not always. */
  if (exponent < 0)
    return 1.0 / pow (10.0, -exponent);

  return pow (10.0, exponent);
}

double
cs_plot_nice_ceiling (double value)
{
  static const double steps[] = { 1.0, 2.0, 5.0, 10.0 };
  double base;
  double fraction;
  int exponent;

  if (isnan (value) || value <= 0.0)
    return 1.0;
  if (isinf (value))
    return G_MAXDOUBLE;

  exponent = (int) floor (log10 (value));
  base = power_of_ten (exponent);
  fraction = value / base;

  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    {
      if (fraction <= steps[i] * (1.0 + NICE_EPSILON))
        {
          double nice;

          if (exponent < 0)
            nice = steps[i] / pow (10.0, -exponent);
          else
            nice = steps[i] * base;

          return isfinite (nice) ? nice : G_MAXDOUBLE;
        }
    }

  /* Only reached when log10 rounded down by a whole decade. */
  return isfinite (10.0 * base) ? 10.0 * base : G_MAXDOUBLE;
}

double
cs_plot_axis_update (double current_max,
                     double data_max)
{
  if (isnan (data_max) || data_max < 0.0)
    data_max = 0.0;

  if (isnan (current_max) || current_max <= 0.0 || isinf (current_max))
    return cs_plot_nice_ceiling (data_max);

  if (data_max > current_max || data_max < SHRINK_FRACTION * current_max)
    return cs_plot_nice_ceiling (data_max);

  return current_max;
}

void
cs_plot_live_time_range (double  t_end,
                         double  window,
                         double *out_lo,
                         double *out_hi)
{
  if (!isfinite (t_end) || t_end < 0.0)
    t_end = 0.0;

  if (t_end >= window)
    {
      *out_lo = t_end - window;
      *out_hi = t_end;
      return;
    }

  *out_lo = 0.0;
  *out_hi = MIN (window, cs_plot_nice_ceiling (MAX (t_end, LIVE_MIN_SPAN)));
}

/* The nice step that cuts @span into at most @max_intervals pieces. */
double
_cs_plot_axis_step (double span,
                    guint  max_intervals)
{
  if (max_intervals == 0)
    max_intervals = 1;

  if (!isfinite (span) || span <= 0.0)
    return 1.0;

  return cs_plot_nice_ceiling (span / max_intervals);
}

/* Fills @ticks with the multiples of a nice step that lie in [@lo, @hi] and
 * returns how many there are. */
guint
_cs_plot_axis_ticks (double  lo,
                     double  hi,
                     guint   max_intervals,
                     double *out_step,
                     double *ticks,
                     guint   max_ticks)
{
  double step;
  double first;
  double last;
  guint n = 0;

  if (out_step != NULL)
    *out_step = 0.0;

  if (!isfinite (lo) || !isfinite (hi) || hi < lo)
    return 0;

  step = _cs_plot_axis_step (hi - lo, max_intervals);
  if (out_step != NULL)
    *out_step = step;

  first = ceil (lo / step - NICE_EPSILON);
  last = floor (hi / step + NICE_EPSILON);

  for (double i = first; i <= last && n < max_ticks; i++)
    {
      double tick = i * step;

      /* Keep "-0" and 1e-17 out of the labels. */
      if (fabs (tick) < step * NICE_EPSILON)
        tick = 0.0;

      ticks[n++] = tick;
    }

  return n;
}

static void
strip_trailing_zeros (char *buf)
{
  char *end;

  if (strchr (buf, '.') == NULL)
    return;

  end = buf + strlen (buf);
  while (end > buf && end[-1] == '0')
    *--end = '\0';
  if (end > buf && end[-1] == '.')
    *--end = '\0';

  if (strcmp (buf, "-0") == 0)
    strcpy (buf, "0");
}

static void
format_fixed (char   *buf,
              gsize   size,
              double  value,
              int     decimals)
{
  char format[16];

  g_snprintf (format, sizeof format, "%%.%df", decimals);
  g_ascii_formatd (buf, size, format, value);
}

/* Formats @value with as many decimals as ticks @step apart need, so that
 * 0, 0.5, 1, 1.5 read as such; a @step of 0 asks for three significant
 * digits. Always '.' as the decimal point: the same text goes into files. */
void
_cs_plot_format_number (char   *buf,
                        gsize   size,
                        double  value,
                        double  step)
{
  gboolean on_grid = TRUE;
  int decimals;

  g_assert (buf != NULL);
  g_assert (size >= CS_PLOT_LABEL_SIZE);

  if (isnan (value))
    {
      g_strlcpy (buf, "–", size);
      return;
    }
  if (isinf (value))
    {
      g_strlcpy (buf, value > 0 ? "∞" : "-∞", size);
      return;
    }
  if (value == 0.0)
    {
      g_strlcpy (buf, "0", size);
      return;
    }

  if (!isfinite (step) || step <= 0.0)
    {
      step = power_of_ten ((int) floor (log10 (fabs (value))) - 2);
      on_grid = FALSE;
    }

  decimals = step >= 1.0 ? 0 : (int) ceil (-log10 (step) - NICE_EPSILON);
  decimals = CLAMP (decimals, 0, 12);

  format_fixed (buf, size, value, decimals);

  /* A step like 0.25 needs one digit more than its magnitude suggests. */
  if (on_grid)
    {
      for (int extra = 0; extra < 3; extra++)
        {
          if (fabs (g_ascii_strtod (buf, NULL) - value) <= step * 1e-3)
            break;
          format_fixed (buf, size, value, decimals + extra + 1);
        }
    }

  strip_trailing_zeros (buf);
}

/* Like _cs_plot_format_number() with an SI suffix, so labels stay short:
 * "250", "1.5k", "20M". */
void
_cs_plot_format_tick (char   *buf,
                      gsize   size,
                      double  value,
                      double  step)
{
  static const struct {
    double      factor;
    const char *suffix;
  } prefixes[] = {
    { 1e12, "T" },
    { 1e9, "G" },
    { 1e6, "M" },
    { 1e3, "k" },
  };
  double magnitude = fabs (value);

  g_assert (buf != NULL);
  g_assert (size >= CS_PLOT_LABEL_SIZE);

  if (isfinite (value))
    {
      for (guint i = 0; i < G_N_ELEMENTS (prefixes); i++)
        {
          if (magnitude >= prefixes[i].factor)
            {
              gsize len;

              _cs_plot_format_number (buf, size, value / prefixes[i].factor,
                                      step > 0.0 ? step / prefixes[i].factor : 0.0);
              len = strlen (buf);
              g_strlcpy (buf + len, prefixes[i].suffix, size - len);
              return;
            }
        }
    }

  _cs_plot_format_number (buf, size, value, step);
}
