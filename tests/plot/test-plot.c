/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-plot"

#include "config.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include <gio/gio.h>

#include "cs-plot.h"
#include "cs-run-private.h"

#define CHART_WIDTH  800.0
#define CHART_HEIGHT 480.0

/* The drawing's fixed horizontal layout: plot area from here to width - this. */
#define PLOT_LEFT    54.0
#define PLOT_RIGHT   22.0

typedef struct {
  CsSample       *samples;
  guint           n_samples;
  CsThreadChange  changes[2];
  guint           n_changes;
} SyntheticRun;

/* 100 samples, 250 ms apart; threads go 4 → 8 at 8 s and 8 → 16 at 16 s,
 * and the rates step up with them, with some noise. */
static void
synthetic_run_init (SyntheticRun *run,
                    guint         n_samples,
                    guint32       seed,
                    double        scale)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);

  run->n_samples = n_samples;
  run->samples = g_new0 (CsSample, n_samples);

  run->changes[0] = (CsThreadChange) { 8.0, 4, 8, NULL };
  run->changes[1] = (CsThreadChange) { 16.0, 8, 16, NULL };
  run->n_changes = 2;

  for (guint i = 0; i < n_samples; i++)
    {
      CsSample *sample = &run->samples[i];
      double t = 0.25 * (i + 1);
      double level = t < 8.0 ? 1.0 : t < 16.0 ? 1.7 : 2.1;
      double ramp = MIN (1.0, t / 1.5);
      double read = scale * ramp * level * (110.0 + g_rand_double_range (rand, -12.0, 12.0));
      double write = scale * ramp * level * (98.0 + g_rand_double_range (rand, -15.0, 10.0));
      double data_requests = (read + write) * 1e6 / 131072.0;

      sample->t = t;
      sample->values[CS_COUNTER_READ_TRANSFER_RATE] = read;
      sample->values[CS_COUNTER_WRITE_TRANSFER_RATE] = write;
      sample->values[CS_COUNTER_DATA_TRANSFER_RATE] = read + write;
      sample->values[CS_COUNTER_DATA_REQUEST_RATE] = data_requests;
      sample->values[CS_COUNTER_REQUEST_RATE] =
        data_requests * (1.35 + g_rand_double_range (rand, -0.05, 0.05));
      sample->values[CS_COUNTER_THREADS] = t < 8.0 ? 4 : t < 16.0 ? 8 : 16;
      sample->files_done = i * 3;
      sample->bytes_done = (guint64) (t * 2e8);
    }
}

static void
synthetic_run_clear (SyntheticRun *run)
{
  g_clear_pointer (&run->samples, g_free);
}

static CsPlotRun
synthetic_run_plot (const SyntheticRun *run,
                    const char         *label)
{
  return (CsPlotRun) {
    .samples = run->samples,
    .n_samples = run->n_samples,
    .changes = run->changes,
    .n_changes = run->n_changes,
    .label = label,
  };
}

typedef struct {
  CsPlotPalette    palette;
  const CsPlotRun *runs;
  guint            n_runs;
  CsPlotOptions    options;
} ThroughputData;

static void
throughput_data_init (ThroughputData  *data,
                      const CsPlotRun *runs,
                      guint            n_runs)
{
  cs_plot_palette_init_light (&data->palette);
  data->runs = runs;
  data->n_runs = n_runs;
  data->options = (CsPlotOptions) {
    .t_min = 0.0,
    .t_max = 0.0,
    .hover_t = -1.0,
    .show_markers = TRUE,
    .axes = NULL,
  };
}

static void
draw_throughput (cairo_t  *cr,
                 double    width,
                 double    height,
                 gpointer  user_data)
{
  ThroughputData *data = user_data;

  cs_plot_draw_throughput (cr, width, height, &data->palette, data->runs, data->n_runs,
                           &data->options);
}

static void
draw_throughput_defaults (cairo_t  *cr,
                          double    width,
                          double    height,
                          gpointer  user_data)
{
  cs_plot_draw_throughput (cr, width, height, NULL, user_data, 1, NULL);
}

typedef struct {
  CsPlotPalette           palette;
  const char             *title;
  const char             *unit;
  const CsPlotSweepPoint *points;
  guint                   n_points;
  guint                   recommended;
} SweepData;

static void
draw_sweep (cairo_t  *cr,
            double    width,
            double    height,
            gpointer  user_data)
{
  SweepData *data = user_data;

  cs_plot_draw_sweep (cr, width, height, &data->palette, data->title, data->unit,
                      data->points, data->n_points, data->recommended, NULL);
}

/* Keeps a copy beside the test binary, for a person to look at. */
static void
save_for_inspection (GBytes     *bytes,
                     const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (g_test_get_dir (G_TEST_BUILT), name, NULL);
  gsize size;
  const char *contents = g_bytes_get_data (bytes, &size);

  if (!g_file_set_contents (path, contents, size, &error))
    g_test_message ("could not save %s: %s", path, error->message);
  else
    g_test_message ("saved %s", path);
}

typedef struct {
  const guchar *data;
  gsize         size;
  gsize         offset;
} ReadCursor;

static cairo_status_t
read_from_cursor (void          *closure,
                  unsigned char *data,
                  unsigned int   length)
{
  ReadCursor *cursor = closure;

  if (cursor->offset + length > cursor->size)
    return CAIRO_STATUS_READ_ERROR;

  memcpy (data, cursor->data + cursor->offset, length);
  cursor->offset += length;

  return CAIRO_STATUS_SUCCESS;
}

static void
assert_png (GBytes *bytes,
            int     width,
            int     height)
{
  static const guchar signature[] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
  ReadCursor cursor = { 0 };
  cairo_surface_t *surface;

  cursor.data = g_bytes_get_data (bytes, &cursor.size);
  g_assert_cmpuint (cursor.size, >, sizeof signature);
  g_assert_cmpmem (cursor.data, sizeof signature, signature, sizeof signature);

  surface = cairo_image_surface_create_from_png_stream (read_from_cursor, &cursor);
  g_assert_cmpint (cairo_surface_status (surface), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (surface), ==, width);
  g_assert_cmpint (cairo_image_surface_get_height (surface), ==, height);
  cairo_surface_destroy (surface);
}

static void
assert_svg (GBytes *bytes)
{
  gsize size;
  const char *data = g_bytes_get_data (bytes, &size);
  g_autofree char *text = g_strndup (data, size);

  g_assert_true (g_str_has_prefix (text, "<?xml"));
  g_assert_nonnull (strstr (text, "<svg"));
  g_assert_nonnull (strstr (text, "<path"));
  g_assert_nonnull (strstr (text, "</svg>"));
}

static void
assert_pdf (GBytes *bytes)
{
  gsize size;
  const char *data = g_bytes_get_data (bytes, &size);

  g_assert_cmpuint (size, >, 1000);
  g_assert_cmpmem (data, 5, "%PDF-", 5);
  g_assert_nonnull (g_strstr_len (data + size - MIN (size, 64), MIN (size, 64), "%%EOF"));
}

static GBytes *
render_ok (CsPlotFormat    format,
           CsPlotDrawFunc  draw,
           gpointer        user_data)
{
  g_autoptr(GError) error = NULL;
  GBytes *bytes;

  bytes = cs_plot_render (format, CHART_WIDTH, CHART_HEIGHT, draw, user_data, &error);
  g_assert_no_error (error);
  g_assert_nonnull (bytes);

  return bytes;
}

static void
assert_all_formats (CsPlotDrawFunc  draw,
                    gpointer        user_data,
                    const char     *png_name)
{
  g_autoptr(GBytes) png = render_ok (CS_PLOT_FORMAT_PNG, draw, user_data);
  g_autoptr(GBytes) svg = render_ok (CS_PLOT_FORMAT_SVG, draw, user_data);
  g_autoptr(GBytes) pdf = render_ok (CS_PLOT_FORMAT_PDF, draw, user_data);

  assert_png (png, (int) CHART_WIDTH, (int) CHART_HEIGHT);
  /* A chart, not a blank page: axes, labels and lines take room. */
  g_assert_cmpuint (g_bytes_get_size (png), >, 5000);
  assert_svg (svg);
  assert_pdf (pdf);

  if (png_name != NULL)
    save_for_inspection (png, png_name);
}

/* Pixels in the plot columns left of the legends that carry colour; the
 * backgrounds, grid and text of the light palette are all grey, so these
 * are the series and nothing else. */
static guint
count_colored_pixels (CsPlotDrawFunc draw,
                      gpointer       user_data)
{
  cairo_surface_t *surface;
  cairo_t *cr;
  const guchar *pixels;
  int stride;
  guint count = 0;

  surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) CHART_WIDTH,
                                        (int) CHART_HEIGHT);
  cr = cairo_create (surface);
  draw (cr, CHART_WIDTH, CHART_HEIGHT, user_data);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_flush (surface);

  pixels = cairo_image_surface_get_data (surface);
  stride = cairo_image_surface_get_stride (surface);

  for (int y = 0; y < (int) CHART_HEIGHT; y++)
    {
      const guint32 *row = (const guint32 *) (pixels + y * stride);

      for (int x = (int) PLOT_LEFT + 2; x < (int) (CHART_WIDTH / 2); x++)
        {
          int r = (row[x] >> 16) & 0xff;
          int g = (row[x] >> 8) & 0xff;
          int b = row[x] & 0xff;

          if (MAX (r, MAX (g, b)) - MIN (r, MIN (g, b)) > 60)
            count++;
        }
    }

  cairo_surface_destroy (surface);

  return count;
}

static void
test_throughput_render (void)
{
  SyntheticRun synthetic;
  CsPlotRun run;
  ThroughputData data;

  synthetic_run_init (&synthetic, 100, 42, 1.0);
  run = synthetic_run_plot (&synthetic, NULL);
  throughput_data_init (&data, &run, 1);

  assert_all_formats (draw_throughput, &data, "plot-throughput.png");

  cs_plot_palette_init_dark (&data.palette);
  data.options.hover_t = 12.3;
  assert_all_formats (draw_throughput, &data, "plot-throughput-dark.png");

  cs_plot_palette_init_high_contrast (&data.palette);
  data.options.hover_t = -1.0;
  data.options.t_min = 5.0;
  data.options.t_max = 20.0;
  assert_all_formats (draw_throughput, &data, "plot-throughput-window-hc.png");

  synthetic_run_clear (&synthetic);
}

static void
test_throughput_pixels (void)
{
  SyntheticRun synthetic;
  CsPlotRun run;
  ThroughputData data;
  ThroughputData empty;
  guint drawn;

  synthetic_run_init (&synthetic, 100, 7, 1.0);
  run = synthetic_run_plot (&synthetic, NULL);
  throughput_data_init (&data, &run, 1);
  throughput_data_init (&empty, NULL, 0);

  drawn = count_colored_pixels (draw_throughput, &data);
  g_test_message ("%u coloured pixels with data", drawn);
  /* Four lines across about half the plot width, in two charts. */
  g_assert_cmpuint (drawn, >, 4 * 300);

  g_assert_cmpuint (count_colored_pixels (draw_throughput, &empty), ==, 0);

  synthetic_run_clear (&synthetic);
}

/* Pixels close to @color: a series' line where no other series has it. */
static guint
count_pixels_of (CsPlotDrawFunc     draw,
                 gpointer           user_data,
                 const CsPlotColor *color)
{
  cairo_surface_t *surface;
  cairo_t *cr;
  const guchar *pixels;
  int stride;
  guint count = 0;

  surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) CHART_WIDTH,
                                        (int) CHART_HEIGHT);
  cr = cairo_create (surface);
  draw (cr, CHART_WIDTH, CHART_HEIGHT, user_data);
  g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
  cairo_destroy (cr);
  cairo_surface_flush (surface);

  pixels = cairo_image_surface_get_data (surface);
  stride = cairo_image_surface_get_stride (surface);
  for (int y = 0; y < (int) CHART_HEIGHT; y++)
    {
      const guint32 *row = (const guint32 *) (pixels + y * stride);

      for (int x = 0; x < (int) CHART_WIDTH; x++)
        if (ABS ((int) ((row[x] >> 16) & 0xff) - (int) (color->r * 255)) < 24
            && ABS ((int) ((row[x] >> 8) & 0xff) - (int) (color->g * 255)) < 24
            && ABS ((int) (row[x] & 0xff) - (int) (color->b * 255)) < 24)
          count++;
    }
  cairo_surface_destroy (surface);

  return count;
}

/* Files checked/s get a chart of their own, in a colour no other series
 * has, only when asked and only for one run; a record from before the
 * counter (no values) draws the chart empty. */
static void
test_throughput_checks (void)
{
  SyntheticRun synthetic;
  SyntheticRun other;
  CsPlotRun runs[2];
  ThroughputData data;
  const CsPlotColor *color;
  guint with, without;

  synthetic_run_init (&synthetic, 100, 11, 1.0);
  synthetic_run_init (&other, 100, 12, 1.0);
  for (guint i = 0; i < synthetic.n_samples; i++)
    {
      synthetic.samples[i].values[CS_COUNTER_CHECK_RATE] = 4000.0 + 50.0 * (i % 7);
      other.samples[i].values[CS_COUNTER_CHECK_RATE] = 3000.0;
    }
  runs[0] = synthetic_run_plot (&synthetic, "A");
  runs[1] = synthetic_run_plot (&other, "B");
  throughput_data_init (&data, runs, 1);
  color = &data.palette.series[4];

  without = count_pixels_of (draw_throughput, &data, color);
  data.options.show_checks = TRUE;
  with = count_pixels_of (draw_throughput, &data, color);
  g_test_message ("check-rate colour: %u pixels without, %u with", without, with);
  g_assert_cmpuint (without, ==, 0);
  /* A line across the plot and its legend swatch. */
  g_assert_cmpuint (with, >, 300);

  /* Several runs overlaid keep their two charts (a few of their
   * blended pixels come near the colour, never a line's worth). */
  throughput_data_init (&data, runs, 2);
  data.options.show_checks = TRUE;
  g_assert_cmpuint (count_pixels_of (draw_throughput, &data, color), <, 100);

  /* No values: the chart and its legend, no line. */
  for (guint i = 0; i < synthetic.n_samples; i++)
    synthetic.samples[i].values[CS_COUNTER_CHECK_RATE] = NAN;
  throughput_data_init (&data, runs, 1);
  data.options.show_checks = TRUE;
  g_assert_cmpuint (count_pixels_of (draw_throughput, &data, color), <, 100);

  synthetic_run_clear (&synthetic);
  synthetic_run_clear (&other);
}

/* A day of samples in a chart 900 px wide: one point per pixel column, and
 * where columns merge many, their range as a band behind the mean. The band
 * shows a spike the mean line smooths away. */
static void
test_throughput_band (void)
{
  const guint n = 345600;
  g_autofree CsSample *samples = g_new0 (CsSample, n);
  g_autoptr(CsRun) record = cs_run_new ();
  g_autoptr(GArray) series = NULL;
  cairo_surface_t *surface;
  cairo_t *cr;
  CsPlotRun runs[2] = { { 0 }, { 0 } };
  CsPlotPalette palette;
  CsPlotOptions options = { 0, 0, -1, TRUE, NULL };
  guint band_pixels[2];

  for (guint i = 0; i < n; i++)
    {
      CsSample *s = &samples[i];

      s->t = (i + 1) * 0.25;
      for (guint c = 0; c < CS_N_COUNTERS; c++)
        s->values[c] = 100.0 + (i % 2 == 0 ? 20.0 : -20.0);
      _cs_run_add_sample (record, s);
    }
  series = cs_run_dup_series (record);
  g_assert_cmpuint (series->len, <, 4000);

  /* The same day twice: every sample, and the record's buckets. */
  runs[0].samples = samples;
  runs[0].n_samples = n;
  runs[1].buckets = (const CsBucket *) (gpointer) series->data;
  runs[1].n_buckets = series->len;
  cs_plot_palette_init_light (&palette);

  for (guint r = 0; r < 2; r++)
    {
      gint64 started = g_get_monotonic_time ();
      const guchar *data;
      int stride;

      surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 900, 480);
      cr = cairo_create (surface);
      cs_plot_draw_throughput (cr, 900, 480, &palette, &runs[r], 1, &options);
      cairo_destroy (cr);
      cairo_surface_flush (surface);
      g_test_message ("%s: drawn in %.1f ms", r == 0 ? "samples" : "buckets",
                      (g_get_monotonic_time () - started) / 1000.0);

      /* Between 105 and 115 on a 0–200 axis, the mean's line at 100 and the
       * band from 80 to 120: column by column, the band's colour. */
      data = cairo_image_surface_get_data (surface);
      stride = cairo_image_surface_get_stride (surface);
      band_pixels[r] = 0;
      for (int x = 100; x < 800; x++)
        {
          for (int y = 0; y < 480; y++)
            {
              const guint32 *px = (const guint32 *) (gconstpointer) (data + y * stride + 4 * x);

              band_pixels[r] += (*px & 0xffffff) != 0xffffff && (*px & 0xffffff) != 0;
            }
        }
      cairo_surface_destroy (surface);
    }

  g_test_message ("coloured pixels: %u from samples, %u from buckets", band_pixels[0], band_pixels[1]);
  /* A band 40 units high over 700 columns, in two charts: far more than lines. */
  g_assert_cmpuint (band_pixels[0], >, 700 * 20);
  g_assert_cmpuint (band_pixels[1], >, 700 * 20);
}

static void
test_throughput_compare (void)
{
  SyntheticRun synthetic[3];
  CsPlotRun runs[3];
  ThroughputData data;

  synthetic_run_init (&synthetic[0], 100, 1, 1.0);
  synthetic_run_init (&synthetic[1], 80, 2, 0.6);
  synthetic_run_init (&synthetic[2], 120, 3, 0.35);
  synthetic[2].n_changes = 0;
  runs[0] = synthetic_run_plot (&synthetic[0], "NVMe → NAS, 4 threads");
  runs[1] = synthetic_run_plot (&synthetic[1], "NVMe → NAS, 1 thread");
  runs[2] = synthetic_run_plot (&synthetic[2], NULL);
  throughput_data_init (&data, runs, G_N_ELEMENTS (runs));

  assert_all_formats (draw_throughput, &data, "plot-throughput-compare.png");
  g_assert_cmpuint (count_colored_pixels (draw_throughput, &data), >, 3 * 2 * 300);

  for (guint i = 0; i < G_N_ELEMENTS (synthetic); i++)
    synthetic_run_clear (&synthetic[i]);
}

/* The pixels of two drawings that differ. */
static guint
count_differing_pixels (CsPlotDrawFunc draw,
                        gpointer       a,
                        gpointer       b)
{
  cairo_surface_t *surfaces[2];
  gpointer data[2] = { a, b };
  guint count = 0;

  for (guint i = 0; i < 2; i++)
    {
      cairo_t *cr;

      surfaces[i] = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) CHART_WIDTH,
                                                (int) CHART_HEIGHT);
      cr = cairo_create (surfaces[i]);
      draw (cr, CHART_WIDTH, CHART_HEIGHT, data[i]);
      g_assert_cmpint (cairo_status (cr), ==, CAIRO_STATUS_SUCCESS);
      cairo_destroy (cr);
      cairo_surface_flush (surfaces[i]);
    }

  for (int y = 0; y < (int) CHART_HEIGHT; y++)
    {
      const guint32 *row[2];

      for (guint i = 0; i < 2; i++)
        row[i] = (const guint32 *) (cairo_image_surface_get_data (surfaces[i])
                                    + y * cairo_image_surface_get_stride (surfaces[i]));
      for (int x = 0; x < (int) CHART_WIDTH; x++)
        count += (row[0][x] & 0xffffff) != (row[1][x] & 0xffffff);
    }

  for (guint i = 0; i < 2; i++)
    cairo_surface_destroy (surfaces[i]);

  return count;
}

/* Where the clock stood still (a pause, a question) the graph says so, and
 * where the speed limit changed; other events (a resume) are the summary's
 * to tell. */
static void
test_throughput_holds (void)
{
  CsRunEvent events[] = {
    { .t = 6.0, .kind = (char *) "pause", .value = 12.0 },
    { .t = 18.0, .kind = (char *) "question", .value = 4.5 },
  };
  CsRunEvent limit = { .t = 12.0, .kind = (char *) "max-rate", .value = 5e7 };
  CsRunEvent resume = { .t = 12.0, .kind = (char *) "resume", .value = 5e7 };
  SyntheticRun synthetic;
  CsPlotRun plain;
  CsPlotRun held;
  CsPlotRun limited;
  ThroughputData plain_data;
  ThroughputData held_data;
  ThroughputData limited_data;
  ThroughputData resumed_data;
  CsPlotRun resumed;
  guint differing;

  synthetic_run_init (&synthetic, 100, 11, 1.0);
  plain = synthetic_run_plot (&synthetic, NULL);
  held = plain;
  held.events = events;
  held.n_events = G_N_ELEMENTS (events);
  limited = plain;
  limited.events = &limit;
  limited.n_events = 1;
  throughput_data_init (&plain_data, &plain, 1);
  throughput_data_init (&held_data, &held, 1);
  throughput_data_init (&limited_data, &limited, 1);
  resumed = plain;
  resumed.events = &resume;
  resumed.n_events = 1;
  throughput_data_init (&resumed_data, &resumed, 1);

  differing = count_differing_pixels (draw_throughput, &plain_data, &held_data);
  g_test_message ("%u pixels mark a pause and a question", differing);
  /* Two dotted lines down both charts and their labels. */
  g_assert_cmpuint (differing, >, 2 * 200);
  /* A limit change: its marker, and the limit's line from there on. */
  g_assert_cmpuint (count_differing_pixels (draw_throughput, &plain_data, &limited_data), >, 200);
  g_assert_cmpuint (count_differing_pixels (draw_throughput, &plain_data, &resumed_data), ==, 0);

  /* Hidden with the other markers. */
  plain_data.options.show_markers = FALSE;
  held_data.options.show_markers = FALSE;
  g_assert_cmpuint (count_differing_pixels (draw_throughput, &plain_data, &held_data), ==, 0);

  held_data.options.show_markers = TRUE;
  assert_all_formats (draw_throughput, &held_data, "plot-throughput-holds.png");

  synthetic_run_clear (&synthetic);
}

static void
test_throughput_empty (void)
{
  CsPlotRun run = { 0 };
  ThroughputData data;

  throughput_data_init (&data, NULL, 0);
  assert_all_formats (draw_throughput, &data, "plot-throughput-empty.png");

  /* A run that has not produced a sample yet draws the same way. */
  throughput_data_init (&data, &run, 1);
  data.options.hover_t = 3.0;
  assert_all_formats (draw_throughput, &data, NULL);

  /* No options, no palette: defaults. */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GBytes) png = NULL;

    png = cs_plot_render (CS_PLOT_FORMAT_PNG, 300, 200, draw_throughput_defaults, &run, &error);
    g_assert_no_error (error);
    assert_png (png, 300, 200);
  }
}

static void
test_throughput_single_sample (void)
{
  SyntheticRun synthetic;
  CsPlotRun run;
  ThroughputData data;

  synthetic_run_init (&synthetic, 1, 5, 1.0);
  run = synthetic_run_plot (&synthetic, NULL);
  throughput_data_init (&data, &run, 1);
  data.options.hover_t = 0.25;

  assert_all_formats (draw_throughput, &data, "plot-throughput-single.png");
  /* A lone sample still shows, as a line across its interval. */
  g_assert_cmpuint (count_colored_pixels (draw_throughput, &data), >, 0);

  synthetic_run_clear (&synthetic);
}

/* The leftmost and rightmost columns of the plot with series colour, and how
 * many columns have any. */
static guint
colored_columns (CsPlotDrawFunc  draw,
                 gpointer        user_data,
                 int            *out_first,
                 int            *out_last)
{
  cairo_surface_t *surface;
  cairo_t *cr;
  const guchar *pixels;
  int stride;
  guint n = 0;

  surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) CHART_WIDTH,
                                        (int) CHART_HEIGHT);
  cr = cairo_create (surface);
  draw (cr, CHART_WIDTH, CHART_HEIGHT, user_data);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  pixels = cairo_image_surface_get_data (surface);
  stride = cairo_image_surface_get_stride (surface);

  *out_first = -1;
  *out_last = -1;
  for (int x = (int) PLOT_LEFT + 2; x < (int) CHART_WIDTH; x++)
    {
      gboolean colored = FALSE;

      /* The upper chart, below the legend. */
      for (int y = 40; y < (int) (CHART_HEIGHT / 2) && !colored; y++)
        {
          guint32 px = ((const guint32 *) (pixels + y * stride))[x];
          int r = (px >> 16) & 0xff, g = (px >> 8) & 0xff, b = px & 0xff;

          colored = MAX (r, MAX (g, b)) - MIN (r, MIN (g, b)) > 60;
        }
      if (!colored)
        continue;
      if (*out_first < 0)
        *out_first = x;
      *out_last = x;
      n++;
    }

  cairo_surface_destroy (surface);
  return n;
}

/* A sub-second copy: its time axis is its own length, and it draws lines
 * across it, not a dot per series; a copy of one sample too, since that
 * sample is the rate over the clock from 0. */
static void
test_throughput_short_run (void)
{
  for (guint n = 1; n <= 2; n++)
    {
      SyntheticRun synthetic;
      CsPlotRun run;
      ThroughputData data;
      double lo, hi, end;
      int first, last;
      guint columns;

      synthetic_run_init (&synthetic, n, 13, 1.0);
      end = synthetic.samples[n - 1].t;
      run = synthetic_run_plot (&synthetic, NULL);
      throughput_data_init (&data, &run, 1);

      g_assert_true (cs_plot_throughput_time_range (&run, 1, &data.options, &lo, &hi));
      g_assert_cmpfloat (lo, ==, 0.0);
      g_assert_cmpfloat (hi, ==, end);

      columns = colored_columns (draw_throughput, &data, &first, &last);
      g_test_message ("%u sample(s) to %.2f s: series in columns %d–%d (%u)", n, end, first,
                      last, columns);
      /* From the plot's left edge to its right, not a dot. */
      g_assert_cmpint (first, <=, (int) PLOT_LEFT + 4);
      g_assert_cmpint (last, >=, (int) (CHART_WIDTH - 2 * PLOT_LEFT));
      g_assert_cmpuint (columns, >, (guint) (CHART_WIDTH / 2));

      if (n == 2)
        assert_all_formats (draw_throughput, &data, "plot-throughput-short.png");
      synthetic_run_clear (&synthetic);
    }
}

static void
test_throughput_bad_values (void)
{
  SyntheticRun synthetic;
  CsPlotRun run;
  ThroughputData data;
  CsPlotAxisState axes = { 0 };

  synthetic_run_init (&synthetic, 100, 9, 1.0);
  for (guint i = 10; i < 20; i++)
    synthetic.samples[i].values[CS_COUNTER_READ_TRANSFER_RATE] = NAN;
  synthetic.samples[30].values[CS_COUNTER_WRITE_TRANSFER_RATE] = INFINITY;
  synthetic.samples[31].values[CS_COUNTER_WRITE_TRANSFER_RATE] = -INFINITY;
  synthetic.samples[40].values[CS_COUNTER_REQUEST_RATE] = DBL_MAX;
  synthetic.samples[41].values[CS_COUNTER_DATA_REQUEST_RATE] = -5.0;
  synthetic.samples[50].t = NAN;
  synthetic.samples[60].values[CS_COUNTER_READ_TRANSFER_RATE] = 1e300;

  run = synthetic_run_plot (&synthetic, NULL);
  throughput_data_init (&data, &run, 1);
  data.options.axes = &axes;
  data.options.hover_t = 10.0;

  assert_all_formats (draw_throughput, &data, "plot-throughput-bad-values.png");
  g_assert_true (isfinite (axes.rate_max));
  g_assert_true (isfinite (axes.request_max));
  g_assert_cmpfloat (axes.rate_max, >, 0.0);

  /* A huge chart and a tiny one. */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(GBytes) tiny = NULL;
    g_autoptr(GBytes) none = NULL;

    tiny = cs_plot_render (CS_PLOT_FORMAT_PNG, 20, 10, draw_throughput, &data, &error);
    g_assert_no_error (error);
    assert_png (tiny, 20, 10);

    none = cs_plot_render (CS_PLOT_FORMAT_PNG, 0, 10, draw_throughput, &data, &error);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
    g_assert_null (none);
  }

  synthetic_run_clear (&synthetic);
}

static void
test_throughput_axis_state (void)
{
  SyntheticRun synthetic;
  CsPlotRun run;
  ThroughputData data;
  CsPlotAxisState axes = { 0 };
  g_autoptr(GBytes) png = NULL;
  double rate_max;

  synthetic_run_init (&synthetic, 100, 11, 1.0);
  run = synthetic_run_plot (&synthetic, NULL);
  throughput_data_init (&data, &run, 1);
  data.options.axes = &axes;

  png = render_ok (CS_PLOT_FORMAT_PNG, draw_throughput, &data);
  /* Read peaks near 2.1 × 122 MB/s; request rates in the thousands. */
  g_assert_cmpfloat (axes.rate_max, ==, 500.0);
  g_assert_cmpfloat (axes.request_max, >=, 2000.0);
  rate_max = axes.rate_max;

  /* The first 8 seconds peak near 122 MB/s: below the 40 % mark of 500. */
  data.options.t_min = 0.0;
  data.options.t_max = 7.9;
  g_clear_pointer (&png, g_bytes_unref);
  png = render_ok (CS_PLOT_FORMAT_PNG, draw_throughput, &data);
  g_assert_cmpfloat (axes.rate_max, ==, 200.0);

  /* Between 8 and 16 s the peak is about 207 MB/s: the axis grows at once. */
  data.options.t_min = 8.0;
  data.options.t_max = 15.9;
  g_clear_pointer (&png, g_bytes_unref);
  png = render_ok (CS_PLOT_FORMAT_PNG, draw_throughput, &data);
  g_assert_cmpfloat (axes.rate_max, ==, rate_max);

  synthetic_run_clear (&synthetic);
}

/* Whether the pixel at (@x, @y) is the light palette's marker colour, drawn
 * at least half opaque. */
static gboolean
is_marker_pixel (const guchar *data,
                 int           stride,
                 int           x,
                 int           y)
{
  guint32 pixel = *(const guint32 *) (data + (gsize) y * stride + (gsize) x * 4);
  guint a = pixel >> 24;
  double r, g, b;

  if (a < 128)
    return FALSE;
  /* Premultiplied. */
  r = ((pixel >> 16) & 0xff) * 255.0 / a;
  g = ((pixel >> 8) & 0xff) * 255.0 / a;
  b = (pixel & 0xff) * 255.0 / a;
  return fabs (r - 0x77) < 24 && fabs (g - 0x76) < 24 && fabs (b - 0x7b) < 24;
}

/* A thread change's label lies on what is drawn under it, as on paper, also
 * with a palette whose ground is left transparent, as the window's is so
 * that its frame shows through: the dashed line of the next change, close
 * by, does not run through the label's text. */
static void
test_throughput_marker_labels (void)
{
  const int width = (int) CHART_WIDTH, height = (int) CHART_HEIGHT;
  SyntheticRun synthetic;
  CsPlotRun run;
  CsPlotPalette palette;
  CsPlotOptions options = { 0.0, 0.0, -1.0, TRUE, NULL };
  cairo_surface_t *surface;
  const guchar *data;
  cairo_t *cr;
  int stride;
  int top[2];
  int gap[2];

  /* 4 → 8 threads at 8 s, 8 → 16 at 10 s: about 58 px apart, closer than
   * the first label is wide. */
  synthetic_run_init (&synthetic, 100, 5, 1.0);
  synthetic.changes[1].t = 10.0;
  run = synthetic_run_plot (&synthetic, NULL);
  cs_plot_palette_init_light (&palette);
  palette.background.a = 0;

  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  cr = cairo_create (surface);
  cs_plot_draw_throughput (cr, width, height, &palette, &run, 1, &options);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  data = cairo_image_surface_get_data (surface);
  stride = cairo_image_surface_get_stride (surface);

  /* Each change's line: the column near its time with the most marker
   * pixels, and the first of them from the top. */
  for (guint i = 0; i < 2; i++)
    {
      int column = -1, best = 0;
      double t;
      int x;

      for (x = 0; x < width; x++)
        if (cs_plot_throughput_time_at (width, height, &run, 1, &options, x + 0.5, &t) &&
            t >= synthetic.changes[i].t)
          break;
      g_assert_cmpint (x, <, width);

      for (int c = x - 2; c <= x + 1; c++)
        {
          int n = 0;

          for (int y = 0; y < height; y++)
            n += is_marker_pixel (data, stride, c, y);
          if (n > best)
            {
              best = n;
              column = c;
            }
        }
      g_assert_cmpint (best, >, 50);

      for (top[i] = 0; !is_marker_pixel (data, stride, column, top[i]); top[i]++)
        ;
      /* The longest stretch without the line in the 40 px below its top:
       * the gaps of its dashes, or a label over it. */
      gap[i] = 0;
      for (int y = top[i], run = 0; y < top[i] + 40; y++)
        {
          run = is_marker_pixel (data, stride, column, y) ? 0 : run + 1;
          gap[i] = MAX (gap[i], run);
        }
      g_test_message ("change %u at %.1f s: column %d, %d marker pixels from y = %d, "
                      "longest gap near the top %d px",
                      i, synthetic.changes[i].t, column, best, top[i], gap[i]);
    }

  /* The first line is dashed all the way down; the second is hidden behind
   * the first label (one lane high), which it would otherwise cross. */
  g_assert_cmpint (gap[0], <=, 4);
  g_assert_cmpint (gap[1], >=, 10);

  cairo_surface_destroy (surface);
  synthetic_run_clear (&synthetic);
}

static void
test_throughput_time_at (void)
{
  SyntheticRun synthetic;
  CsPlotRun run;
  CsPlotOptions options = { 0.0, 0.0, -1.0, TRUE, NULL };
  double last_t = -1.0;
  double t;

  synthetic_run_init (&synthetic, 100, 13, 1.0);
  run = synthetic_run_plot (&synthetic, NULL);

  /* The whole run: 0 … 25 s across the plot. */
  g_assert_true (cs_plot_throughput_time_at (CHART_WIDTH, CHART_HEIGHT, &run, 1, &options,
                                             PLOT_LEFT, &t));
  g_assert_cmpfloat_with_epsilon (t, 0.0, 1e-9);
  g_assert_true (cs_plot_throughput_time_at (CHART_WIDTH, CHART_HEIGHT, &run, 1, &options,
                                             CHART_WIDTH - PLOT_RIGHT, &t));
  g_assert_cmpfloat_with_epsilon (t, 25.0, 1e-9);

  for (double x = PLOT_LEFT; x <= CHART_WIDTH - PLOT_RIGHT; x += 7.0)
    {
      g_assert_true (cs_plot_throughput_time_at (CHART_WIDTH, CHART_HEIGHT, &run, 1, &options,
                                                 x, &t));
      g_assert_cmpfloat (t, >, last_t);
      last_t = t;
    }

  /* Outside the plot area. */
  g_assert_false (cs_plot_throughput_time_at (CHART_WIDTH, CHART_HEIGHT, &run, 1, &options,
                                              PLOT_LEFT - 10.0, &t));
  g_assert_false (cs_plot_throughput_time_at (CHART_WIDTH, CHART_HEIGHT, &run, 1, &options,
                                              CHART_WIDTH - 5.0, &t));
  g_assert_false (cs_plot_throughput_time_at (10.0, CHART_HEIGHT, &run, 1, &options, 5.0, &t));

  /* A window. */
  options.t_min = 10.0;
  options.t_max = 20.0;
  g_assert_true (cs_plot_throughput_time_at (CHART_WIDTH, CHART_HEIGHT, &run, 1, &options,
                                             PLOT_LEFT + (CHART_WIDTH - PLOT_LEFT - PLOT_RIGHT) / 2,
                                             &t));
  g_assert_cmpfloat_with_epsilon (t, 15.0, 1e-9);

  synthetic_run_clear (&synthetic);
}

static const CsPlotSweepPoint sweep_points[] = {
  { 1, 142.0, 131.0, 150.0 },
  { 2, 251.0, 236.0, 262.0 },
  { 4, 388.0, 351.0, 402.0 },
  { 8, 452.0, 430.0, 471.0 },
  { 16, 468.0, 441.0, 489.0 },
  { 32, 471.0, 420.0, 495.0 },
  { 64, 463.0, 402.0, 490.0 },
  { 128, 441.0, 371.0, 486.0 },
};

static void
test_sweep_render (void)
{
  SweepData data = {
    .title = "Data transfer rate",
    .unit = "MB/s",
    .points = sweep_points,
    .n_points = G_N_ELEMENTS (sweep_points),
    .recommended = 8,
  };

  cs_plot_palette_init_light (&data.palette);
  assert_all_formats (draw_sweep, &data, "plot-sweep.png");
  g_assert_cmpuint (count_colored_pixels (draw_sweep, &data), >, 200);

  cs_plot_palette_init_dark (&data.palette);
  data.title = "Request rate";
  data.unit = "requests/s";
  assert_all_formats (draw_sweep, &data, "plot-sweep-dark.png");
}

static cairo_surface_t *
render_sweep_mark (const CsPlotPalette *palette,
                   const char          *label,
                   int                  width,
                   int                  height)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  cairo_t *cr = cairo_create (surface);

  cs_plot_draw_sweep (cr, width, height, palette, "Copy Speed", "MB/s", sweep_points,
                      G_N_ELEMENTS (sweep_points), 8, label);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  return surface;
}

/* The recommendation's label lies on the grid and its guide as on paper,
 * also with a palette whose ground is left transparent (the window's): no
 * grid line shows through it. */
static void
test_sweep_marked_label (void)
{
  const int width = 640, height = 300;
  const char *label = "recommended: 8, within 5 % of the best";
  CsPlotPalette palette;
  cairo_surface_t *short_mark, *long_mark, *see_through;
  const guchar *a, *b, *c;
  int stride;
  int x0 = width, x1 = -1, y0 = height, y1 = -1;
  guint grid_pixels = 0;

  /* Where the label's box is: where a long label's chart differs from a
   * short one's. */
  cs_plot_palette_init_light (&palette);
  short_mark = render_sweep_mark (&palette, "x", width, height);
  long_mark = render_sweep_mark (&palette, label, width, height);
  a = cairo_image_surface_get_data (short_mark);
  b = cairo_image_surface_get_data (long_mark);
  stride = cairo_image_surface_get_stride (long_mark);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      if (*(const guint32 *) (a + y * stride + x * 4) != *(const guint32 *) (b + y * stride + x * 4))
        {
          x0 = MIN (x0, x);
          x1 = MAX (x1, x);
          y0 = MIN (y0, y);
          y1 = MAX (y1, y);
        }
  g_test_message ("the label's box: x %d–%d, y %d–%d", x0, x1, y0, y1);
  g_assert_cmpint (x1 - x0, >, 150);
  g_assert_cmpint (y1 - y0, >, 8);

  /* Inside its border, on a transparent ground: no pixel of the grid. */
  palette.background.a = 0;
  see_through = render_sweep_mark (&palette, label, width, height);
  c = cairo_image_surface_get_data (see_through);
  for (int y = y0 + 3; y <= y1 - 3; y++)
    for (int x = x0 + 3; x <= x1 - 3; x++)
      {
        guint32 pixel = *(const guint32 *) (c + y * stride + x * 4);
        guint alpha = pixel >> 24;

        if (alpha >= 128 &&
            abs ((int) (((pixel >> 16) & 0xff) * 255 / alpha) - 0xe6) < 12 &&
            abs ((int) (((pixel >> 8) & 0xff) * 255 / alpha) - 0xe5) < 12 &&
            abs ((int) ((pixel & 0xff) * 255 / alpha) - 0xe2) < 12)
          grid_pixels++;
      }
  g_test_message ("%u grid pixels inside the label", grid_pixels);
  g_assert_cmpuint (grid_pixels, ==, 0);

  cairo_surface_destroy (short_mark);
  cairo_surface_destroy (long_mark);
  cairo_surface_destroy (see_through);
}

/* The box of @label on a sweep chart @width wide: where the chart differs
 * from one with a one-letter label. */
static void
sweep_label_box (int         width,
                 int         height,
                 const char *label,
                 int        *x0,
                 int        *x1)
{
  CsPlotPalette palette;
  cairo_surface_t *short_mark, *long_mark;
  const guchar *a, *b;
  int stride;

  cs_plot_palette_init_light (&palette);
  short_mark = render_sweep_mark (&palette, "x", width, height);
  long_mark = render_sweep_mark (&palette, label, width, height);
  a = cairo_image_surface_get_data (short_mark);
  b = cairo_image_surface_get_data (long_mark);
  stride = cairo_image_surface_get_stride (long_mark);
  *x0 = width;
  *x1 = -1;
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      if (*(const guint32 *) (a + y * stride + x * 4) != *(const guint32 *) (b + y * stride + x * 4))
        {
          *x0 = MIN (*x0, x);
          *x1 = MAX (*x1, x);
        }
  cairo_surface_destroy (short_mark);
  cairo_surface_destroy (long_mark);
}

/* A chart as narrow as cs_plot_sweep_min_width () says still has the
 * recommendation's label inside its plot (from PLOT_LEFT to PLOT_RIGHT of
 * the edge); one of 200 px, a window's old minimum, does not. */
static void
test_sweep_min_width (void)
{
  const char *label = "aanbevolen: 8, binnen 5 % van de beste";
  int width = (int) cs_plot_sweep_min_width (NULL, 8, label);
  int x0, x1;

  g_assert_cmpfloat (cs_plot_sweep_min_width (NULL, 0, label), ==, 0.0);
  g_assert_cmpfloat (cs_plot_sweep_min_width (NULL, 8, NULL), <, width);

  sweep_label_box (width, 300, label, &x0, &x1);
  g_test_message ("at %d px the label's box: x %d–%d", width, x0, x1);
  /* The box's 1 px border is stroked across its edge. */
  g_assert_cmpint (x0, >=, (int) PLOT_LEFT - 1);
  g_assert_cmpint (x1, <=, width - (int) PLOT_RIGHT);

  sweep_label_box (200, 300, label, &x0, &x1);
  g_test_message ("at 200 px: x %d–%d", x0, x1);
  g_assert_true (x0 < (int) PLOT_LEFT - 1 || x1 > 200 - (int) PLOT_RIGHT);
}

static void
test_sweep_edge_cases (void)
{
  CsPlotSweepPoint odd[] = {
    { 64, 20.0, 18.0, 23.0 },
    { 0, 9.0, 8.5, 9.5 },
    { 4, NAN, NAN, NAN },
    { 16, 1e300, 0.0, INFINITY },
    { 1, 10.0, 9.0, 11.0 },
  };
  SweepData data = { .title = NULL, .unit = NULL, .points = NULL, .n_points = 0 };

  cs_plot_palette_init_high_contrast (&data.palette);

  /* Nothing measured yet: "No data" in grey, and no series drawn. */
  assert_all_formats (draw_sweep, &data, "plot-sweep-empty.png");
  cs_plot_palette_init_light (&data.palette);
  g_assert_cmpuint (count_colored_pixels (draw_sweep, &data), ==, 0);
  cs_plot_palette_init_high_contrast (&data.palette);

  /* One point, recommended. */
  data.title = "File rate";
  data.unit = "files/s";
  data.points = sweep_points;
  data.n_points = 1;
  data.recommended = 1;
  assert_all_formats (draw_sweep, &data, NULL);
  cs_plot_palette_init_light (&data.palette);
  g_assert_cmpuint (count_colored_pixels (draw_sweep, &data), >, 20);
  cs_plot_palette_init_high_contrast (&data.palette);

  /* Unsorted, a 0-thread baseline, missing and absurd values, and a
   * recommendation that was not measured. */
  data.points = odd;
  data.n_points = G_N_ELEMENTS (odd);
  data.recommended = 3;
  assert_all_formats (draw_sweep, &data, "plot-sweep-odd.png");
  /* The finite points are still drawn: the missing ones break the line, the
   * absurd one is clamped, neither blanks the chart. */
  cs_plot_palette_init_light (&data.palette);
  g_assert_cmpuint (count_colored_pixels (draw_sweep, &data), >, 20);
}

static double
relative_luminance (const CsPlotColor *color)
{
  double c[3] = { color->r, color->g, color->b };

  for (guint i = 0; i < 3; i++)
    c[i] = c[i] <= 0.03928 ? c[i] / 12.92 : pow ((c[i] + 0.055) / 1.055, 2.4);

  return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
}

static double
contrast (const CsPlotColor *a,
          const CsPlotColor *b)
{
  double la = relative_luminance (a);
  double lb = relative_luminance (b);

  return (MAX (la, lb) + 0.05) / (MIN (la, lb) + 0.05);
}

static void
test_palettes (void)
{
  void (*inits[]) (CsPlotPalette *) = {
    cs_plot_palette_init_light,
    cs_plot_palette_init_dark,
    cs_plot_palette_init_high_contrast,
  };

  for (guint p = 0; p < G_N_ELEMENTS (inits); p++)
    {
      CsPlotPalette palette;

      memset (&palette, 0xff, sizeof palette);
      inits[p] (&palette);

      g_assert_null (palette.font_family);
      g_assert_cmpfloat (palette.font_size, ==, 0.0);

      /* WCAG: 4.5:1 for text, 3:1 for graphics. */
      g_assert_cmpfloat (contrast (&palette.foreground, &palette.background), >=, 4.5);
      g_assert_cmpfloat (contrast (&palette.marker, &palette.background), >=, 3.0);
      for (guint i = 0; i < CS_PLOT_N_SERIES_COLORS; i++)
        {
          g_test_message ("palette %u, series %u: contrast %.2f", p, i,
                          contrast (&palette.series[i], &palette.background));
          g_assert_cmpfloat (contrast (&palette.series[i], &palette.background), >=, 3.0);
          g_assert_cmpfloat (palette.series[i].a, ==, 1.0);

          for (guint j = 0; j < i; j++)
            g_assert_false (palette.series[i].r == palette.series[j].r &&
                            palette.series[i].g == palette.series[j].g &&
                            palette.series[i].b == palette.series[j].b);
        }
    }
}

/* The ink extent, in columns, of the chart's lowest line of text: the time
 * axis's unit, alone and centred under the plot. */
static int
time_unit_ink_width (double duration)
{
  const int width = (int) CHART_WIDTH, height = (int) CHART_HEIGHT;
  CsSample samples[2] = { { 0 } };
  CsPlotRun run = { 0 };
  CsPlotPalette palette;
  CsPlotOptions options = { 0.0, 0.0, -1.0, FALSE, NULL };
  cairo_surface_t *surface;
  const guchar *data;
  cairo_t *cr;
  int stride, bottom = -1, lo = width, hi = -1;

  samples[0].t = duration / 2;
  samples[1].t = duration;
  run.samples = samples;
  run.n_samples = 2;
  cs_plot_palette_init_light (&palette);
  palette.background.a = 0;

  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  cr = cairo_create (surface);
  cs_plot_draw_throughput (cr, width, height, &palette, &run, 1, &options);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  data = cairo_image_surface_get_data (surface);
  stride = cairo_image_surface_get_stride (surface);

  for (int y = height - 1; y >= 0 && bottom < 0; y--)
    for (int x = 0; x < width && bottom < 0; x++)
      if (data[y * stride + x * 4 + 3] > 64)
        bottom = y;
  g_assert_cmpint (bottom, >, height / 2);

  /* The letters' x-height: every letter of the unit has ink there, and the
   * tick labels above end well before it. */
  for (int y = bottom - 5; y <= bottom; y++)
    for (int x = 0; x < width; x++)
      if (data[y * stride + x * 4 + 3] > 64)
        {
          lo = MIN (lo, x);
          hi = MAX (hi, x);
        }
  cairo_surface_destroy (surface);
  g_assert_cmpint (hi, >=, lo);

  return hi - lo + 1;
}

/* A day's copy reads in hours, not in 80,000 seconds: the unit under the
 * axis is shorter ("hours") than a minute's ("seconds"). */
static void
test_throughput_time_unit (void)
{
  int day = time_unit_ink_width (86400.0);
  int minute = time_unit_ink_width (60.0);
  int hour = time_unit_ink_width (3600.0);
  double divisor;
  const char *label;

  g_test_message ("unit ink: day %d px, hour %d px, minute %d px", day, hour, minute);
  g_assert_cmpint (day, <, minute - 8);
  /* "minutes" and "seconds" are near in width, but not both "hours". */
  g_assert_cmpint (hour, >, day + 8);

  cs_plot_time_unit (86400.0, &divisor, &label);
  g_assert_cmpfloat (divisor, ==, 3600.0);
  cs_plot_time_unit (3600.0, &divisor, &label);
  g_assert_cmpfloat (divisor, ==, 60.0);
  cs_plot_time_unit (60.0, &divisor, &label);
  g_assert_cmpfloat (divisor, ==, 1.0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/plot/throughput/render", test_throughput_render);
  g_test_add_func ("/plot/throughput/pixels", test_throughput_pixels);
  g_test_add_func ("/plot/throughput/checks", test_throughput_checks);
  g_test_add_func ("/plot/throughput/band", test_throughput_band);
  g_test_add_func ("/plot/throughput/compare", test_throughput_compare);
  g_test_add_func ("/plot/throughput/holds", test_throughput_holds);
  g_test_add_func ("/plot/throughput/empty", test_throughput_empty);
  g_test_add_func ("/plot/throughput/single-sample", test_throughput_single_sample);
  g_test_add_func ("/plot/throughput/short-run", test_throughput_short_run);
  g_test_add_func ("/plot/throughput/bad-values", test_throughput_bad_values);
  g_test_add_func ("/plot/throughput/axis-state", test_throughput_axis_state);
  g_test_add_func ("/plot/throughput/time-at", test_throughput_time_at);
  g_test_add_func ("/plot/throughput/marker-labels", test_throughput_marker_labels);
  g_test_add_func ("/plot/throughput/time-unit", test_throughput_time_unit);
  g_test_add_func ("/plot/sweep/render", test_sweep_render);
  g_test_add_func ("/plot/sweep/marked-label", test_sweep_marked_label);
  g_test_add_func ("/plot/sweep/min-width", test_sweep_min_width);
  g_test_add_func ("/plot/sweep/edge-cases", test_sweep_edge_cases);
  g_test_add_func ("/plot/palettes", test_palettes);

  return g_test_run ();
}
