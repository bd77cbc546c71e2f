/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-plot"

#include "config.h"

#include <locale.h>
#include <math.h>

#include "cs-plot.h"
#include "cs-plot-private.h"

static void
test_nice_ceiling (void)
{
  static const struct {
    double value;
    double expected;
  } cases[] = {
    { 1.0, 1.0 },
    { 0.9, 1.0 },
    { 1.01, 2.0 },
    { 2.0, 2.0 },
    { 2.5, 5.0 },
    { 5.0, 5.0 },
    { 5.1, 10.0 },
    { 7.0, 10.0 },
    { 10.0, 10.0 },
    { 73.0, 100.0 },
    { 100.0, 100.0 },
    { 101.0, 200.0 },
    { 430.0, 500.0 },
    { 1234.0, 2000.0 },
    { 48000.0, 50000.0 },
    { 0.3, 0.5 },
    { 0.30000000000000004, 0.5 },
    { 0.2, 0.2 },
    { 0.15, 0.2 },
    { 0.05, 0.05 },
    { 0.0012, 0.002 },
    { 1e-9, 1e-9 },
    { 3e12, 5e12 },
    { 1e300, 1e300 },
    /* Not a magnitude: the smallest axis there is. */
    { 0.0, 1.0 },
    { -5.0, 1.0 },
    { NAN, 1.0 },
    { INFINITY, G_MAXDOUBLE },
    { 1.7e308, G_MAXDOUBLE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      double got = cs_plot_nice_ceiling (cases[i].value);

      g_test_message ("nice_ceiling (%g) = %g, expected %g", cases[i].value, got,
                      cases[i].expected);
      g_assert_true (isfinite (got));
      g_assert_cmpfloat_with_epsilon (got, cases[i].expected, fabs (cases[i].expected) * 1e-12);
    }
}

static void
test_nice_ceiling_is_ceiling (void)
{
  /* Over many magnitudes the result is never below the value and never more
   * than two and a half times it (the 2 → 5 jump). */
  for (double v = 1e-6; v < 1e12; v *= 1.37)
    {
      double nice = cs_plot_nice_ceiling (v);

      g_assert_cmpfloat (nice, >=, v * (1.0 - 1e-9));
      g_assert_cmpfloat (nice, <=, v * 2.5 + 1e-18);
    }
}

static void
test_axis_update (void)
{
  static const struct {
    double current;
    double data;
    double expected;
  } cases[] = {
    /* Not set yet: the nice ceiling of the data. */
    { 0.0, 73.0, 100.0 },
    { 0.0, 0.0, 1.0 },
    { NAN, 12.0, 20.0 },
    { -1.0, 12.0, 20.0 },
    /* Grows at once. */
    { 100.0, 100.5, 200.0 },
    { 100.0, 120.0, 200.0 },
    { 100.0, 5000.0, 5000.0 },
    /* Holds while the data uses at least 40 %. */
    { 100.0, 100.0, 100.0 },
    { 100.0, 99.0, 100.0 },
    { 100.0, 45.0, 100.0 },
    { 100.0, 40.0, 100.0 },
    /* Shrinks below 40 %. */
    { 100.0, 39.9, 50.0 },
    { 100.0, 12.0, 20.0 },
    { 100.0, 0.0, 1.0 },
    /* Bad data counts as none. */
    { 100.0, NAN, 1.0 },
    { 100.0, -3.0, 1.0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      double got = cs_plot_axis_update (cases[i].current, cases[i].data);

      g_test_message ("axis_update (%g, %g) = %g, expected %g",
                      cases[i].current, cases[i].data, got, cases[i].expected);
      g_assert_cmpfloat_with_epsilon (got, cases[i].expected, cases[i].expected * 1e-12);
    }
}

static void
test_axis_hysteresis_sequence (void)
{
  /* A rate that wobbles around 60 keeps its axis; a collapse moves it. */
  static const double data[] = { 61, 58, 72, 64, 49, 55, 70, 41, 66 };
  double axis = 0.0;

  for (guint i = 0; i < G_N_ELEMENTS (data); i++)
    {
      axis = cs_plot_axis_update (axis, data[i]);
      g_assert_cmpfloat (axis, ==, 100.0);
    }

  axis = cs_plot_axis_update (axis, 30.0);
  g_assert_cmpfloat (axis, ==, 50.0);
  axis = cs_plot_axis_update (axis, 140.0);
  g_assert_cmpfloat (axis, ==, 200.0);
}

/* A live chart's time axis fits the copy so far: a sub-second copy fills a
 * 0.5 s or 1 s axis, not a sliver of a minute's; past the window, the last
 * minute scrolls. */
static void
test_live_time_range (void)
{
  static const struct {
    double t_end, lo, hi;
  } cases[] = {
    { 0.0, 0.0, 0.5 },
    { 0.25, 0.0, 0.5 },
    { 0.5, 0.0, 0.5 },
    { 0.75, 0.0, 1.0 },
    { 3.2, 0.0, 5.0 },
    { 12.0, 0.0, 20.0 },
    { 45.0, 0.0, 50.0 },
    { 55.0, 0.0, 60.0 },
    { 60.0, 0.0, 60.0 },
    { 75.0, 15.0, 75.0 },
    { NAN, 0.0, 0.5 },
    { -1.0, 0.0, 0.5 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      double lo = -1, hi = -1;

      cs_plot_live_time_range (cases[i].t_end, 60.0, &lo, &hi);
      g_test_message ("%g s: %g–%g", cases[i].t_end, lo, hi);
      g_assert_cmpfloat_with_epsilon (lo, cases[i].lo, 1e-9);
      g_assert_cmpfloat_with_epsilon (hi, cases[i].hi, 1e-9);
    }
}

static void
test_axis_step (void)
{
  static const struct {
    double span;
    guint  intervals;
    double expected;
  } cases[] = {
    { 100.0, 5, 20.0 },
    { 200.0, 5, 50.0 },
    { 500.0, 5, 100.0 },
    { 1.0, 5, 0.2 },
    { 1.0, 4, 0.5 },
    { 60.0, 6, 10.0 },
    { 3600.0, 8, 500.0 },
    { 10.0, 1, 10.0 },
    { 10.0, 0, 10.0 },
    { 0.0, 5, 1.0 },
    { -4.0, 5, 1.0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      double got = _cs_plot_axis_step (cases[i].span, cases[i].intervals);

      g_assert_cmpfloat_with_epsilon (got, cases[i].expected, cases[i].expected * 1e-12);
    }
}

static void
test_axis_ticks (void)
{
  static const struct {
    double lo;
    double hi;
    guint  intervals;
    double step;
    guint  n_ticks;
    double first;
    double last;
  } cases[] = {
    { 0.0, 100.0, 5, 20.0, 6, 0.0, 100.0 },
    { 0.0, 200.0, 5, 50.0, 5, 0.0, 200.0 },
    { 0.0, 1.0, 5, 0.2, 6, 0.0, 1.0 },
    { 0.0, 0.5, 5, 0.1, 6, 0.0, 0.5 },
    /* A window that does not start at a tick. */
    { 12.5, 72.5, 6, 10.0, 6, 20.0, 70.0 },
    { 0.0, 37.0, 4, 10.0, 4, 0.0, 30.0 },
    { -1.0, 1.0, 4, 0.5, 5, -1.0, 1.0 },
    /* Degenerate spans. */
    { 5.0, 5.0, 4, 1.0, 1, 5.0, 5.0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      double ticks[32];
      double step = 0.0;
      guint n;

      n = _cs_plot_axis_ticks (cases[i].lo, cases[i].hi, cases[i].intervals, &step,
                               ticks, G_N_ELEMENTS (ticks));

      g_test_message ("ticks [%g, %g] / %u: %u ticks of %g",
                      cases[i].lo, cases[i].hi, cases[i].intervals, n, step);
      g_assert_cmpfloat_with_epsilon (step, cases[i].step, cases[i].step * 1e-12);
      g_assert_cmpuint (n, ==, cases[i].n_ticks);
      g_assert_cmpfloat_with_epsilon (ticks[0], cases[i].first, 1e-9);
      g_assert_cmpfloat_with_epsilon (ticks[n - 1], cases[i].last, 1e-9);
      g_assert_cmpuint (n - 1, <=, MAX (cases[i].intervals, 1));

      for (guint t = 1; t < n; t++)
        g_assert_cmpfloat_with_epsilon (ticks[t] - ticks[t - 1], step, step * 1e-9);
    }
}

static void
test_axis_ticks_bounds (void)
{
  double ticks[4];
  double step = -1.0;

  /* Never more than asked for, whatever the span. */
  g_assert_cmpuint (_cs_plot_axis_ticks (0.0, 1e6, 1000, &step, ticks, 4), ==, 4);

  /* Nothing sensible to show. */
  g_assert_cmpuint (_cs_plot_axis_ticks (NAN, 1.0, 4, &step, ticks, 4), ==, 0);
  g_assert_cmpfloat (step, ==, 0.0);
  g_assert_cmpuint (_cs_plot_axis_ticks (0.0, INFINITY, 4, NULL, ticks, 4), ==, 0);
  g_assert_cmpuint (_cs_plot_axis_ticks (3.0, 1.0, 4, NULL, ticks, 4), ==, 0);

  /* No "-0" or rounding dust at zero. */
  g_assert_cmpuint (_cs_plot_axis_ticks (-0.3, 0.3, 6, &step, ticks, 4), ==, 4);
  g_assert_cmpfloat (ticks[3], ==, 0.0);
  g_assert_false (signbit (ticks[3]));
}

static void
test_format_number (void)
{
  static const struct {
    double      value;
    double      step;
    const char *expected;
  } cases[] = {
    { 0.0, 1.0, "0" },
    { -0.0, 1.0, "0" },
    { 5.0, 1.0, "5" },
    { 250.0, 50.0, "250" },
    { 0.5, 0.1, "0.5" },
    { 0.30000000000000004, 0.1, "0.3" },
    { 1.5, 0.5, "1.5" },
    { 2.0, 0.5, "2" },
    { 0.05, 0.05, "0.05" },
    { 0.25, 0.05, "0.25" },
    /* Not a 1-2-5 step: the extra digit is found. */
    { 2.25, 0.25, "2.25" },
    { 3600.0, 500.0, "3600" },
    { -1.5, 0.5, "-1.5" },
    /* No step: three significant digits. */
    { 12.345, 0.0, "12.3" },
    { 0.5, 0.0, "0.5" },
    { 1234.5678, 0.0, "1235" },
    { 0.012345, 0.0, "0.0123" },
    { NAN, 1.0, "–" },
    { INFINITY, 1.0, "∞" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      char buf[CS_PLOT_LABEL_SIZE];

      _cs_plot_format_number (buf, sizeof buf, cases[i].value, cases[i].step);
      g_test_message ("format_number (%g, %g) = %s", cases[i].value, cases[i].step, buf);
      g_assert_cmpstr (buf, ==, cases[i].expected);
    }
}

static void
test_format_tick (void)
{
  static const struct {
    double      value;
    double      step;
    const char *expected;
  } cases[] = {
    { 0.0, 500.0, "0" },
    { 250.0, 50.0, "250" },
    { 500.0, 500.0, "500" },
    { 999.0, 1.0, "999" },
    { 1000.0, 500.0, "1k" },
    { 1500.0, 500.0, "1.5k" },
    { 2500.0, 500.0, "2.5k" },
    { 20000.0, 5000.0, "20k" },
    { 12500.0, 2500.0, "12.5k" },
    { 1e6, 2e5, "1M" },
    { 1.2e6, 2e5, "1.2M" },
    { 5e9, 1e9, "5G" },
    { 2e12, 1e12, "2T" },
    { 0.5, 0.1, "0.5" },
    { 0.2, 0.2, "0.2" },
    { -1500.0, 500.0, "-1.5k" },
    /* Read-outs pass no step. */
    { 123456.0, 0.0, "123k" },
    { 1875.25, 0.0, "1.88k" },
    { 42.0, 0.0, "42" },
    { NAN, 0.0, "–" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      char buf[CS_PLOT_LABEL_SIZE];

      _cs_plot_format_tick (buf, sizeof buf, cases[i].value, cases[i].step);
      g_test_message ("format_tick (%g, %g) = %s", cases[i].value, cases[i].step, buf);
      g_assert_cmpstr (buf, ==, cases[i].expected);
    }
}

static void
test_format_locale_independent (void)
{
  char buf[CS_PLOT_LABEL_SIZE];

  /* Labels go into exported files: always a full stop, whatever LC_NUMERIC. */
  if (setlocale (LC_NUMERIC, "nl_NL.UTF-8") == NULL &&
      setlocale (LC_NUMERIC, "de_DE.UTF-8") == NULL)
    {
      g_test_skip ("no locale with a decimal comma installed");
      return;
    }

  _cs_plot_format_tick (buf, sizeof buf, 1500.0, 500.0);
  g_assert_cmpstr (buf, ==, "1.5k");
  _cs_plot_format_number (buf, sizeof buf, 0.25, 0.05);
  g_assert_cmpstr (buf, ==, "0.25");

  setlocale (LC_NUMERIC, "C");
}

static void
test_format_from_string (void)
{
  CsPlotFormat format = CS_PLOT_FORMAT_PNG;

  g_assert_true (cs_plot_format_from_string ("svg", &format));
  g_assert_cmpint (format, ==, CS_PLOT_FORMAT_SVG);
  g_assert_true (cs_plot_format_from_string ("PDF", &format));
  g_assert_cmpint (format, ==, CS_PLOT_FORMAT_PDF);
  g_assert_true (cs_plot_format_from_string ("png", &format));
  g_assert_cmpint (format, ==, CS_PLOT_FORMAT_PNG);
  g_assert_true (cs_plot_format_from_string ("png", NULL));
  g_assert_false (cs_plot_format_from_string ("jpeg", &format));
  g_assert_false (cs_plot_format_from_string ("", &format));
  g_assert_cmpint (format, ==, CS_PLOT_FORMAT_PNG);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/plot/axis/nice-ceiling", test_nice_ceiling);
  g_test_add_func ("/plot/axis/nice-ceiling-is-ceiling", test_nice_ceiling_is_ceiling);
  g_test_add_func ("/plot/axis/update", test_axis_update);
  g_test_add_func ("/plot/axis/hysteresis-sequence", test_axis_hysteresis_sequence);
  g_test_add_func ("/plot/axis/live-time-range", test_live_time_range);
  g_test_add_func ("/plot/axis/step", test_axis_step);
  g_test_add_func ("/plot/axis/ticks", test_axis_ticks);
  g_test_add_func ("/plot/axis/ticks-bounds", test_axis_ticks_bounds);
  g_test_add_func ("/plot/format/number", test_format_number);
  g_test_add_func ("/plot/format/tick", test_format_tick);
  g_test_add_func ("/plot/format/locale-independent", test_format_locale_independent);
  g_test_add_func ("/plot/format/from-string", test_format_from_string);

  return g_test_run ();
}
