/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <locale.h>
#include <math.h>

#include <glib/gi18n-lib.h>

#include "copyscope-engine.h"
#include "cs-run-private.h"

typedef struct {
  double t;
  guint  to;
} Change;

static CsRun *
make_run (double        duration,
          double        held,
          guint64       files_copied,
          guint64       bytes_copied,
          guint64       bytes_skipped,
          guint         threads,
          const Change *changes,
          guint         n_changes)
{
  CsRun *run = cs_run_new ();
  CsRunSettings settings = { 0 };
  CsTotals totals = { { { 0 } } };
  guint from = threads;

  settings.threads = threads;
  settings.interval_ms = 250;
  _cs_run_set_settings (run, &settings);
  _cs_run_set_duration (run, duration);
  _cs_run_set_held (run, held);
  totals.v[CS_CLASS_COPIED][CS_KIND_FILES] = files_copied;
  totals.v[CS_CLASS_COPIED][CS_KIND_BYTES] = bytes_copied;
  totals.v[CS_CLASS_SKIPPED][CS_KIND_FILES] = bytes_skipped > 0 ? 7 : 0;
  totals.v[CS_CLASS_SKIPPED][CS_KIND_BYTES] = bytes_skipped;
  _cs_run_set_totals (run, &totals);
  for (guint i = 0; i < n_changes; i++)
    {
      _cs_run_add_thread_change (run, changes[i].t, from, changes[i].to, "test");
      from = changes[i].to;
    }

  return run;
}

/* Speed and file rate count what was published over the clock's time: skipped
 * bytes and held time are in neither. The thread mean weighs each count by how
 * long it lasted. */
static void
test_from_run (void)
{
  static const Change slider[] = { { 2.0, 16 }, { 6.0, 4 } };
  static const Change late[] = { { 12.0, 2 } };   /* after the end: lasted nothing */
  static const struct {
    double        duration, held;
    guint64       files, bytes, skipped;
    guint         threads;
    const Change *changes;
    guint         n_changes;
    double        speed, file_rate;
    guint         min, max;
    double        mean;
  } cases[] = {
    { 10.0, 0.0, 5000, 61440000, 0, 8, NULL, 0, 6.144, 500.0, 8, 8, 8.0 },
    /* a pause of 30 s does not slow the figures */
    { 10.0, 30.0, 5000, 61440000, 0, 8, NULL, 0, 6.144, 500.0, 8, 8, 8.0 },
    /* skipped bytes are not copied bytes */
    { 2.0, 0.0, 100, 1000000, 5000000, 4, NULL, 0, 0.5, 50.0, 4, 4, 4.0 },
    /* 8 for 2 s, 16 for 4 s, 4 for 4 s: (16 + 64 + 16) / 10 */
    { 10.0, 1.0, 10, 10000000, 0, 8, slider, G_N_ELEMENTS (slider), 1.0, 1.0, 4, 16, 9.6 },
    { 10.0, 0.0, 10, 10000000, 0, 8, late, G_N_ELEMENTS (late), 1.0, 1.0, 2, 8, 8.0 },
    /* a run that never ran */
    { 0.0, 0.0, 0, 0, 0, 8, NULL, 0, 0.0, 0.0, 8, 8, 8.0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(CsRun) run = make_run (cases[i].duration, cases[i].held, cases[i].files,
                                       cases[i].bytes, cases[i].skipped, cases[i].threads,
                                       cases[i].changes, cases[i].n_changes);
      CsFigures f;

      cs_run_get_figures (run, &f);
      g_assert_cmpfloat_with_epsilon (f.duration, cases[i].duration, 1e-9);
      g_assert_cmpfloat_with_epsilon (f.held, cases[i].held, 1e-9);
      g_assert_cmpuint (f.files, ==, cases[i].files);
      g_assert_cmpuint (f.bytes, ==, cases[i].bytes);
      g_assert_cmpfloat_with_epsilon (f.speed, cases[i].speed, 1e-9);
      g_assert_cmpfloat_with_epsilon (f.file_rate, cases[i].file_rate, 1e-9);
      g_assert_cmpuint (f.threads, ==, cases[i].threads);
      g_assert_cmpuint (f.threads_min, ==, cases[i].min);
      g_assert_cmpuint (f.threads_max, ==, cases[i].max);
      g_assert_cmpfloat_with_epsilon (f.threads_mean, cases[i].mean, 1e-9);
      g_assert_cmpint (cs_figures_threads_changed (&f), ==, cases[i].min != cases[i].max);
    }
}

/* One precision per figure, the same for every reader. */
static void
test_format (void)
{
  static const struct {
    CsFigure    figure;
    double      value;
    const char *number;
    const char *with_unit;
  } cases[] = {
    { CS_FIGURE_DURATION, 0.4712, "0.47", "0.47 s" },
    { CS_FIGURE_DURATION, 59.9, "59.90", "59.9 s" },
    { CS_FIGURE_DURATION, 3723.4, "3723.40", "1 h 2 min" },
    { CS_FIGURE_DURATION, -1, "0.00", "0.00 s" },
    { CS_FIGURE_SPEED, 168.2734, "168.3", "168.3 MB/s" },
    { CS_FIGURE_SPEED, 0.0449, "0.04", "0.04 MB/s" },
    { CS_FIGURE_SPEED, NAN, "0.00", "0.00 MB/s" },
    { CS_FIGURE_FILE_RATE, 10719.2, "10719", "10719 files/s" },
    { CS_FIGURE_FILE_RATE, 42.25, "42.2", "42.2 files/s" },
    { CS_FIGURE_FILE_RATE, 0.25, "0.25", "0.25 files/s" },
    { CS_FIGURE_THREADS_MEAN, 9.6, "9.6", "9.6" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *number = cs_figure_format_number (cases[i].figure, cases[i].value, FALSE);
      g_autofree char *with_unit = cs_figure_format (cases[i].figure, cases[i].value);

      g_assert_cmpstr (number, ==, cases[i].number);
      g_assert_cmpstr (with_unit, ==, cases[i].with_unit);
    }
}

/* Durations for people: each form rounded to its own precision. */
static void
test_format_duration (void)
{
  static const struct {
    double      seconds;
    const char *text;
  } cases[] = {
    { 0, "0.00 s" },
    { -3, "0.00 s" },
    { NAN, "0.00 s" },
    { INFINITY, "0.00 s" },
    { 0.004, "0.00 s" },
    { 0.8, "0.80 s" },
    { 0.4712, "0.47 s" },
    { 9.994, "9.99 s" },
    { 9.996, "10.0 s" },
    { 42.54, "42.5 s" },
    { 59.94, "59.9 s" },
    { 59.96, "1 min 0 s" },
    { 60, "1 min 0 s" },
    { 185, "3 min 5 s" },
    { 3599.4, "59 min 59 s" },
    { 3599.6, "1 h 0 min" },
    { 3723.4, "1 h 2 min" },
    { 36120, "10 h 2 min" },
    { 36149, "10 h 2 min" },
    { 86400, "24 h 0 min" },
    { 10.0 * 86400 + 59, "240 h 1 min" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *c_text = cs_format_duration (cases[i].seconds, CS_DURATION_MEASURED, FALSE);

      g_test_message ("%g s", cases[i].seconds);
      g_assert_cmpstr (c_text, ==, cases[i].text);
    }
}

/* The CLI's progress line: a clock. */
static void
test_format_duration_clock (void)
{
  static const struct {
    double      seconds;
    const char *text;
  } cases[] = {
    { 0, "0:00" }, { -3, "0:00" }, { NAN, "0:00" }, { 0.4, "0:00" }, { 25.5, "0:26" },
    { 59.6, "1:00" }, { 725, "12:05" }, { 3599.4, "59:59" }, { 3600, "1:00:00" },
    { 3723, "1:02:03" }, { 360000, "100:00:00" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = cs_format_duration (cases[i].seconds, CS_DURATION_CLOCK, FALSE);

      g_test_message ("%g s", cases[i].seconds);
      g_assert_cmpstr (text, ==, cases[i].text);
    }
}

/* A time left, in words and no finer than an estimate can be. */
static void
test_format_duration_estimate (void)
{
  static const struct {
    double      seconds;
    const char *text;
  } cases[] = {
    { 0, "less than a second" },
    { -3, "less than a second" },
    { NAN, "less than a second" },
    { INFINITY, "less than a second" },
    { 0.99, "less than a second" },
    { 1, "1 second" },
    { 1.4, "1 second" },
    { 1.5, "2 seconds" },
    { 59.4, "59 seconds" },
    { 59.6, "1 minute" },
    { 61, "1 min 1 s" },
    { 200, "3 min 20 s" },
    { 599, "9 min 59 s" },
    { 600, "10 minutes" },
    { 659, "10 minutes" },
    { 3599, "59 minutes" },
    { 3600, "1 hour" },
    { 7200, "2 hours" },
    { 7500, "2 h 05 min" },
    { 36120, "10 h 02 min" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = cs_format_duration (cases[i].seconds, CS_DURATION_ESTIMATE, FALSE);

      g_test_message ("%g s", cases[i].seconds);
      g_assert_cmpstr (text, ==, cases[i].text);
    }
}

/* The window's form: translated, in the user's numbers. */
static void
test_format_duration_localized (void)
{
  g_autofree char *old_numeric = g_strdup (setlocale (LC_NUMERIC, NULL));
  g_autofree char *old_messages = g_strdup (setlocale (LC_MESSAGES, NULL));
  g_autofree char *short_one = NULL;
  g_autofree char *long_one = NULL;
  char *estimates[4] = { NULL };
  g_autofree char *file_rate = NULL;
  g_autofree char *speed = NULL;

  if (setlocale (LC_NUMERIC, "de_DE.UTF-8") == NULL || setlocale (LC_MESSAGES, "de_DE.UTF-8") == NULL)
    {
      g_test_skip ("The de_DE.UTF-8 locale is not installed");
      return;
    }
  /* Dutch words, German numbers: each from its own setting. */
  g_setenv ("LANGUAGE", "nl", TRUE);
  bindtextdomain (GETTEXT_PACKAGE, BUILD_ROOT G_DIR_SEPARATOR_S "po");
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");

  short_one = cs_format_duration (0.47, CS_DURATION_MEASURED, TRUE);
  long_one = cs_format_duration (36120, CS_DURATION_MEASURED, TRUE);
  estimates[0] = cs_format_duration (0.5, CS_DURATION_ESTIMATE, TRUE);
  estimates[1] = cs_format_duration (1, CS_DURATION_ESTIMATE, TRUE);
  estimates[2] = cs_format_duration (1200, CS_DURATION_ESTIMATE, TRUE);
  estimates[3] = cs_format_duration (7500, CS_DURATION_ESTIMATE, TRUE);
  file_rate = cs_figure_format_localized (CS_FIGURE_FILE_RATE, 10719.4);
  speed = cs_figure_format_localized (CS_FIGURE_SPEED, 168.34);
  setlocale (LC_NUMERIC, old_numeric);
  setlocale (LC_MESSAGES, old_messages);
  g_unsetenv ("LANGUAGE");

  g_assert_cmpstr (short_one, ==, "0,47 s");
  g_assert_cmpstr (long_one, ==, "10 u 2 min");
  g_assert_cmpstr (estimates[0], ==, "minder dan een seconde");
  g_assert_cmpstr (estimates[1], ==, "1 seconde");
  g_assert_cmpstr (estimates[2], ==, "20 minuten");
  g_assert_cmpstr (estimates[3], ==, "2 u 05 min");
  for (guint i = 0; i < G_N_ELEMENTS (estimates); i++)
    g_free (estimates[i]);
  g_assert_cmpstr (file_rate, ==, "10.719 bestanden/s");
  g_assert_cmpstr (speed, ==, "168,3 MB/s");
}

static void
test_format_threads (void)
{
  static const Change slider[] = { { 2.0, 16 }, { 6.0, 1 } };
  g_autoptr(CsRun) fixed = make_run (10.0, 0, 1, 1, 0, 8, NULL, 0);
  g_autoptr(CsRun) moved = make_run (10.0, 0, 1, 1, 0, 8, slider, G_N_ELEMENTS (slider));
  g_autofree char *fixed_text = NULL;
  g_autofree char *moved_text = NULL;
  CsFigures f;

  cs_run_get_figures (fixed, &f);
  fixed_text = cs_figures_format_threads (&f);
  g_assert_cmpstr (fixed_text, ==, "8");

  /* 8 × 2 + 16 × 4 + 1 × 4 over 10 s */
  cs_run_get_figures (moved, &f);
  moved_text = cs_figures_format_threads (&f);
  g_assert_cmpstr (moved_text, ==, "1–16 (mean 8.4)");
}

int
main (int   argc,
      char *argv[])
{
  setlocale (LC_ALL, "");
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/figures/from-run", test_from_run);
  g_test_add_func ("/figures/format-duration", test_format_duration);
  g_test_add_func ("/figures/format-duration-estimate", test_format_duration_estimate);
  g_test_add_func ("/figures/format-duration-clock", test_format_duration_clock);
  g_test_add_func ("/figures/format-duration-localized", test_format_duration_localized);
  g_test_add_func ("/figures/format", test_format);
  g_test_add_func ("/figures/format-threads", test_format_threads);

  return g_test_run ();
}
