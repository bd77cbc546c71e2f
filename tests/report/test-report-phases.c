/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-report"

/*
 * Where the workers' time went, in every export: the reports' sections and
 * comparison, Chrome's Trace Event JSON checked against the format, and the
 * Sysprof capture read back with the library's own reader.
 */

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#ifdef HAVE_SYSPROF
#include <sysprof-capture.h>
#endif

#include "cs-plot.h"
#include "cs-report.h"
#include "cs-run-private.h"
#include "report-fixtures.h"

#define ID_A "6f9619ff-8b86-4011-b42d-00c04fc964f1"
#define ID_B "6f9619ff-8b86-4011-b42d-00c04fc964f2"

static char *
render_text (CsRun          **runs,
             guint            n,
             CsReportFormat   format)
{
  const char *labels[] = { "T1", "T2", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = cs_report_render (runs, n, labels, format, &error);
  gsize len = 0;
  const char *data;

  g_assert_no_error (error);
  data = g_bytes_get_data (bytes, &len);
  return g_strndup (data, len);
}

static CsRun *
run_with_phases (const char *id)
{
  CsRun *run = fixture_run ("phases", id, 2, 1.0);

  fixture_add_phases (run, 2);
  return run;
}

static void
test_sections (void)
{
  g_autoptr(CsRun) run = run_with_phases (ID_A);
  g_autoptr(CsRun) plain = fixture_run ("plain", ID_B, 2, 1.0);
  g_autofree char *md = render_text (&run, 1, CS_REPORT_FORMAT_MARKDOWN);
  g_autofree char *html = render_text (&run, 1, CS_REPORT_FORMAT_HTML);
  g_autofree char *csv = render_text (&run, 1, CS_REPORT_FORMAT_CSV);
  g_autofree char *json = render_text (&run, 1, CS_REPORT_FORMAT_JSON);
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *breakdown;
  JsonArray *phases, *latency;
  double share_sum = 0;

  g_assert_nonnull (strstr (md, "## Where the time goes\n"));
  g_assert_nonnull (strstr (md, "| Opening and creating | 25.0 % |"));
  g_assert_nonnull (strstr (md, "| Worker-time | 4.00 worker-s |"));
  g_assert_nonnull (strstr (md, "### Request latency"));
  /* p50 of ten opens of 20 … 29 µs: the middle of [16384, 32768) ns. */
  g_assert_nonnull (strstr (md, "| Open | 10 | 24.5 µs | 24.6 µs | 24.6 µs | 24.6 µs | 29.0 µs |"));
  g_assert_nonnull (strstr (md, "| Write | 1 | 3.00 ms |"));

  g_assert_nonnull (strstr (html, "<h2>Where the time goes</h2>"));
  g_assert_nonnull (strstr (html, "<td>Writing</td>"));

  g_assert_nonnull (strstr (csv, "phase,label,worker_seconds,share,seconds_per_file\r\n"));
  g_assert_nonnull (strstr (csv, "\r\nopening,Opening and creating,1,0.25,"));
  g_assert_nonnull (strstr (csv, "\r\nwriting,Writing,2.25,0.5625,"));
  g_assert_nonnull (strstr (csv, "request,count,mean_ns,p50_ns,p90_ns,p99_ns,max_ns\r\n"));
  g_assert_nonnull (strstr (csv, "\r\nopen,10,24500,24576,24576,24576,29000\r\n"));

  /* The record whole, with the breakdown beside it; it still imports. */
  root = json_from_string (json, &error);
  g_assert_no_error (error);
  breakdown = json_array_get_object_element (json_object_get_array_member (json_node_get_object (root),
                                                                           "where_time_goes"), 0);
  g_assert_cmpfloat (json_object_get_double_member (breakdown, "worker_seconds"), ==, 4.0);
  phases = json_object_get_array_member (breakdown, "phases");
  g_assert_cmpuint (json_array_get_length (phases), ==, CS_PHASE_N);
  for (guint p = 0; p < CS_PHASE_N; p++)
    share_sum += json_object_get_double_member (json_array_get_object_element (phases, p), "share");
  g_assert_cmpfloat_with_epsilon (share_sum, 1.0, 1e-12);
  latency = json_object_get_array_member (breakdown, "latency");
  g_assert_cmpuint (json_array_get_length (latency), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (latency, 0), "request"), ==, "open");
  g_assert_cmpfloat (json_object_get_double_member (json_array_get_object_element (latency, 0), "p99_ns"), ==, 24576);
  {
    g_autoptr(CsRun) back = cs_run_new_from_json (root, &error);

    g_assert_no_error (error);
    g_assert_true (cs_run_get_phase_totals (back, NULL));
  }
  /* Its run_delay was not measured: said nowhere, null in the JSON. */
  g_assert_null (strstr (md, "Waiting for a processor"));
  g_assert_null (strstr (csv, "runnable"));
  g_assert_true (json_object_has_member (breakdown, "runnable"));
  g_assert_true (json_object_get_null_member (breakdown, "runnable"));

  /* No phase data: no section, no rows, no member: never zeros. */
  g_clear_pointer (&md, g_free);
  g_clear_pointer (&csv, g_free);
  g_clear_pointer (&json, g_free);
  g_clear_pointer (&html, g_free);
  md = render_text (&plain, 1, CS_REPORT_FORMAT_MARKDOWN);
  csv = render_text (&plain, 1, CS_REPORT_FORMAT_CSV);
  json = render_text (&plain, 1, CS_REPORT_FORMAT_JSON);
  html = render_text (&plain, 1, CS_REPORT_FORMAT_HTML);
  g_assert_null (strstr (md, "Where the time goes"));
  g_assert_null (strstr (html, "Where the time goes"));
  g_assert_null (strstr (csv, "worker_seconds"));
  g_assert_null (strstr (json, "where_time_goes"));
}

/* Two runs side by side; the one without phase data says so. */
static void
test_compare (void)
{
  g_autoptr(CsRun) a = run_with_phases (ID_A);
  g_autoptr(CsRun) b = fixture_run ("plain", ID_B, 4, 1.0);
  CsRun *runs[] = { a, b };
  g_autofree char *md = render_text (runs, 2, CS_REPORT_FORMAT_MARKDOWN);
  g_autofree char *csv = render_text (runs, 2, CS_REPORT_FORMAT_CSV);
  g_autofree char *json = render_text (runs, 2, CS_REPORT_FORMAT_JSON);
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  JsonArray *where;

  g_assert_nonnull (strstr (md, "| Phase | T1: Share | T1: Per file | T2: Share | T2: Per file |"));
  g_assert_nonnull (strstr (md, "| Writing | 56.2 % |"));
  g_assert_nonnull (strstr (md, "| no data | no data |"));
  g_assert_nonnull (strstr (md, "T2 has no phase data"));
  g_assert_nonnull (strstr (md, "| T1 | Open | 10 |"));

  g_assert_nonnull (strstr (csv, "run,phase,label,worker_seconds,share,seconds_per_file\r\n"));
  g_assert_nonnull (strstr (csv, "\r\nT1,writing,Writing,2.25,0.5625,"));
  g_assert_null (strstr (csv, "\r\nT2,writing"));

  root = json_from_string (json, &error);
  g_assert_no_error (error);
  where = json_object_get_array_member (json_node_get_object (root), "where_time_goes");
  g_assert_cmpuint (json_array_get_length (where), ==, 2);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_array_get_element (where, 0)));
  g_assert_true (JSON_NODE_HOLDS_NULL (json_array_get_element (where, 1)));
}

/* 1.64 of the fixture's 4 worker-s waiting for a processor. */
static CsRun *
run_with_runnable (const char *id)
{
  CsRun *run = run_with_phases (id);

  _cs_run_set_phase_runnable (run, 1.64);
  return run;
}

/* The runnable share in every report where measured; "not measured" in a
 * comparison beside one that was. */
static void
test_runnable (void)
{
  g_autoptr(CsRun) run = run_with_runnable (ID_A);
  g_autoptr(CsRun) older = run_with_phases (ID_B);
  CsRun *runs[] = { run, older };
  g_autofree char *md = render_text (&run, 1, CS_REPORT_FORMAT_MARKDOWN);
  g_autofree char *html = render_text (&run, 1, CS_REPORT_FORMAT_HTML);
  g_autofree char *csv = render_text (&run, 1, CS_REPORT_FORMAT_CSV);
  g_autofree char *json = render_text (&run, 1, CS_REPORT_FORMAT_JSON);
  g_autofree char *md2 = render_text (runs, 2, CS_REPORT_FORMAT_MARKDOWN);
  g_autofree char *csv2 = render_text (runs, 2, CS_REPORT_FORMAT_CSV);
  g_autofree char *json2 = render_text (runs, 2, CS_REPORT_FORMAT_JSON);
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonNode) root2 = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *runnable;
  JsonArray *where;

  g_assert_nonnull (strstr (md, "\nWaiting for a processor: 41 % of worker time (1.64 worker-s)\n"));
  g_assert_nonnull (strstr (md, "schedstat"));
  g_assert_nonnull (strstr (html, "<p class=\"runnable\">Waiting for a processor: 41 % of worker time "
                                  "(1.64 worker-s)</p>"));
  g_assert_nonnull (strstr (csv, "\r\nrunnable_worker_seconds,runnable_share\r\n1.64,0.41\r\n"));

  root = json_from_string (json, &error);
  g_assert_no_error (error);
  runnable = json_object_get_object_member (
    json_array_get_object_element (json_object_get_array_member (json_node_get_object (root), "where_time_goes"), 0),
    "runnable");
  g_assert_nonnull (runnable);
  g_assert_cmpfloat (json_object_get_double_member (runnable, "worker_seconds"), ==, 1.64);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (runnable, "share"), 0.41, 1e-12);

  g_assert_nonnull (strstr (md2, "\nT1: Waiting for a processor: 41 % of worker time"));
  g_assert_nonnull (strstr (md2, "\nT2: Waiting for a processor: not measured\n"));
  g_assert_nonnull (strstr (csv2, "\r\nrun,runnable_worker_seconds,runnable_share\r\nT1,1.64,0.41\r\n"));
  /* The table ends after T1's row: no row for T2, not a 0. */
  g_assert_nonnull (strstr (csv2, "\r\nT1,1.64,0.41\r\n\r\n"));
  root2 = json_from_string (json2, &error);
  g_assert_no_error (error);
  where = json_object_get_array_member (json_node_get_object (root2), "where_time_goes");
  g_assert_true (json_object_get_null_member (json_array_get_object_element (where, 1), "runnable"));
}

/* The Trace Event Format's rules for the events we write: every event an
 * object with a string name, a one-letter ph, a numeric ts (µs) and integer
 * pid and tid; "X" a numeric dur ≥ 0; "M" a known metadata name and
 * args.name a string; "C" args of numbers only. */
static void
assert_trace_event (JsonObject *event)
{
  const char *ph;
  JsonNode *node;

  g_assert_true (JSON_NODE_HOLDS_VALUE (json_object_get_member (event, "name")));
  g_assert_cmpint (json_node_get_value_type (json_object_get_member (event, "name")), ==, G_TYPE_STRING);
  g_assert_cmpint (json_node_get_value_type (json_object_get_member (event, "ph")), ==, G_TYPE_STRING);
  ph = json_object_get_string_member (event, "ph");
  g_assert_cmpuint (strlen (ph), ==, 1);
  g_assert_nonnull (strchr ("XMC", ph[0]));
  node = json_object_get_member (event, "ts");
  g_assert_nonnull (node);
  g_assert_true (json_node_get_value_type (node) == G_TYPE_DOUBLE ||
                 json_node_get_value_type (node) == G_TYPE_INT64);
  g_assert_cmpfloat (json_node_get_double (node), >=, 0);
  g_assert_cmpint (json_node_get_value_type (json_object_get_member (event, "pid")), ==, G_TYPE_INT64);
  g_assert_cmpint (json_node_get_value_type (json_object_get_member (event, "tid")), ==, G_TYPE_INT64);

  switch (ph[0])
    {
    case 'X':
      node = json_object_get_member (event, "dur");
      g_assert_nonnull (node);
      g_assert_true (JSON_NODE_HOLDS_VALUE (node));
      g_assert_cmpfloat (json_node_get_double (node), >=, 0);
      break;
    case 'M':
      g_assert_true (g_str_equal (json_object_get_string_member (event, "name"), "process_name") ||
                     g_str_equal (json_object_get_string_member (event, "name"), "thread_name"));
      g_assert_cmpint (json_node_get_value_type (json_object_get_member (json_object_get_object_member (event, "args"),
                                                                         "name")), ==, G_TYPE_STRING);
      break;
    case 'C':
      {
        JsonObject *args = json_object_get_object_member (event, "args");
        g_autoptr(GList) members = json_object_get_members (args);

        g_assert_nonnull (members);
        for (GList *l = members; l != NULL; l = l->next)
          {
            GType type = json_node_get_value_type (json_object_get_member (args, l->data));

            g_assert_true (type == G_TYPE_DOUBLE || type == G_TYPE_INT64);
          }
      }
      break;
    default:
      g_assert_not_reached ();
    }
}

/* A counter track of the workers waiting for a processor, its running sum
 * ending at the record's exact total; none where not measured. */
static void
test_trace_runnable (void)
{
  g_autoptr(CsRun) run = run_with_runnable (ID_A);
  g_autoptr(CsRun) older = run_with_phases (ID_B);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = cs_report_render (&run, 1, NULL, CS_REPORT_FORMAT_TRACE, &error);
  g_autoptr(GBytes) older_bytes = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonArray *events;
  guint rate = 0, sums = 0;
  double last_sum = -1, peak = 0;

  g_assert_no_error (error);
  json_parser_load_from_data (parser, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), &error);
  g_assert_no_error (error);
  events = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "traceEvents");
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *event = json_array_get_object_element (events, i);
      const char *name = json_object_get_string_member (event, "name");

      assert_trace_event (event);
      if (g_str_equal (name, "Workers waiting for a processor"))
        {
          g_assert_cmpstr (json_object_get_string_member (event, "ph"), ==, "C");
          peak = MAX (peak, json_object_get_double_member (json_object_get_object_member (event, "args"), "runnable"));
          rate++;
        }
      else if (g_str_equal (name, "Worker-seconds waiting for a processor"))
        {
          last_sum = json_object_get_double_member (json_object_get_object_member (event, "args"), "runnable");
          sums++;
        }
    }
  g_assert_cmpuint (rate, ==, 8);
  g_assert_cmpuint (sums, ==, 8);
  /* The last sample's quarter second: 1.64 worker-s over 0.25 s. */
  g_assert_cmpfloat_with_epsilon (peak, 1.64 / 0.25, 1e-9);
  g_assert_cmpfloat (last_sum, ==, 1.64);

  older_bytes = cs_report_render (&older, 1, NULL, CS_REPORT_FORMAT_TRACE, &error);
  g_assert_no_error (error);
  g_assert_null (g_strstr_len (g_bytes_get_data (older_bytes, NULL), g_bytes_get_size (older_bytes),
                               "waiting for a processor"));
}

static void
test_trace (void)
{
  g_autoptr(CsRun) run = cs_run_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  const guint workers = 3;
  gboolean named[3] = { FALSE };
  guint complete[3] = { 0 };
  double totals[CS_PHASE_N];
  JsonObject *last_totals = NULL;
  JsonObject *root;
  JsonArray *events;

  fixture_add_phases (run, workers);
  g_assert_true (cs_run_get_phase_totals (run, totals));

  bytes = cs_report_render (&run, 1, NULL, CS_REPORT_FORMAT_TRACE, &error);
  g_assert_no_error (error);
  json_parser_load_from_data (parser, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), &error);
  g_assert_no_error (error);

  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (root, "displayTimeUnit"), ==, "ms");
  events = json_object_get_array_member (root, "traceEvents");
  g_assert_nonnull (events);

  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *event = json_array_get_object_element (events, i);
      const char *ph, *name;
      gint64 tid;

      g_assert_nonnull (event);
      assert_trace_event (event);
      ph = json_object_get_string_member (event, "ph");
      name = json_object_get_string_member (event, "name");
      tid = json_object_get_int_member (event, "tid");

      if (g_str_equal (ph, "M") && g_str_equal (name, "thread_name"))
        {
          g_autofree char *expected = g_strdup_printf ("Worker %" G_GINT64_FORMAT, tid - 1);

          g_assert_cmpint (tid, >=, 1);
          g_assert_cmpint (tid, <=, workers);
          g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (event, "args"), "name"),
                           ==, expected);
          named[tid - 1] = TRUE;
        }
      else if (g_str_equal (ph, "X"))
        {
          g_assert_true (named[tid - 1]);
          /* Worker 2's open starts at 2 ms and lasts until 250 ms. */
          if (tid == 3 && g_str_equal (name, "Opening and creating"))
            {
              g_assert_cmpfloat (json_object_get_double_member (event, "ts"), ==, 2000);
              g_assert_cmpfloat (json_object_get_double_member (event, "dur"), ==, 248000);
            }
          complete[tid - 1]++;
        }
      else if (g_str_equal (ph, "C") && g_str_equal (name, "Worker-seconds by phase"))
        {
          last_totals = json_object_get_object_member (event, "args");
        }
    }

  for (guint w = 0; w < workers; w++)
    {
      g_assert_true (named[w]);
      g_assert_cmpuint (complete[w], ==, 5);
    }
  g_assert_nonnull (last_totals);
  for (guint p = 0; p < CS_PHASE_N; p++)
    g_assert_cmpfloat (json_object_get_double_member (last_totals, cs_phase_get_id (p)), ==, totals[p]);
}

/* Nothing to trace in a run without phase data, and one run a trace. */
static void
test_trace_refused (void)
{
  g_autoptr(CsRun) plain = fixture_run ("plain", ID_B, 2, 1.0);
  g_autoptr(CsRun) run = run_with_phases (ID_A);
  CsRun *runs[] = { run, run };
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;

  bytes = cs_report_render (&plain, 1, NULL, CS_REPORT_FORMAT_TRACE, &error);
  g_assert_null (bytes);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&error);
  bytes = cs_report_render (runs, 2, NULL, CS_REPORT_FORMAT_TRACE, &error);
  g_assert_null (bytes);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
}

/* The phase chart: every export format, the stack in the phase's colour,
 * and a time axis that reads in hours for a day's copy. */
static void
test_phase_chart (void)
{
  static const struct {
    CsReportFormat format;
    const char    *magic;
  } formats[] = {
    { CS_REPORT_FORMAT_PNG, "\x89PNG" },
    { CS_REPORT_FORMAT_SVG, "<?xml" },
    { CS_REPORT_FORMAT_PDF, "%PDF" },
  };
  static const struct {
    double      span;
    double      divisor;
  } units[] = {
    { 10, 1 }, { 120, 1 }, { 121, 60 }, { 7200, 60 }, { 7201, 3600 }, { 86400, 3600 },
  };
  g_autoptr(CsRun) run = run_with_phases (ID_A);
  g_autoptr(CsRun) plain = fixture_run ("plain", ID_B, 2, 1.0);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) none = NULL;
  CsPhaseBucket series[2] = { { 0 } };
  cairo_surface_t *surface;
  cairo_t *cr;
  CsPlotColor writing;
  guchar *pixel;

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_autoptr(GBytes) bytes = cs_report_render_phase_chart (run, formats[i].format, &error);

      g_assert_no_error (error);
      g_assert_true (g_str_has_prefix (g_bytes_get_data (bytes, NULL), formats[i].magic));
    }
  none = cs_report_render_phase_chart (plain, CS_REPORT_FORMAT_PNG, &error);
  g_assert_null (none);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);

  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    {
      double divisor;
      const char *label;

      cs_plot_time_unit (units[i].span, &divisor, &label);
      g_assert_cmpfloat (divisor, ==, units[i].divisor);
    }

  /* Four workers writing the whole time: the plot's lower part is green. */
  for (guint i = 0; i < 2; i++)
    {
      series[i].t_start = i * 43200.0;
      series[i].t = (i + 1) * 43200.0;
      series[i].seconds[CS_PHASE_WRITING] = 4 * 43200.0;
      series[i].n = 1;
    }
  surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 600, 300);
  cr = cairo_create (surface);
  cs_plot_draw_phases (cr, 600, 300, NULL, series, 2, NULL, 0);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  cs_plot_phase_colour (CS_PHASE_WRITING, &writing);
  pixel = cairo_image_surface_get_data (surface) + 240 * cairo_image_surface_get_stride (surface) + 300 * 4;
  /* BGRx; the fill is 85 % over the white background. */
  g_assert_cmpint (abs (pixel[1] - (int) round ((writing.g * 0.85 + 0.15) * 255)), <=, 2);
  g_assert_cmpint (abs (pixel[2] - (int) round ((writing.r * 0.85 + 0.15) * 255)), <=, 2);
  cairo_surface_destroy (surface);
}

#ifdef HAVE_SYSPROF
static void
test_sysprof (void)
{
  g_autoptr(CsRun) run = cs_run_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *path = NULL;
  SysprofCaptureReader *reader;
  SysprofCaptureFrameType type;
  const guint workers = 4;
  guint marks[4] = { 0 };
  guint defined = 0, n_sets = 0;
  gboolean process = FALSE;
  double totals[CS_PHASE_N], last[CS_PHASE_N] = { 0 };
  guint seconds_first_id = G_MAXUINT;
  int fd;

  fixture_add_phases (run, workers);
  g_assert_true (cs_run_get_phase_totals (run, totals));
  bytes = cs_report_render (&run, 1, NULL, CS_REPORT_FORMAT_SYSPROF, &error);
  g_assert_no_error (error);
  g_assert_true (cs_report_format_from_string ("sysprof", NULL));
  g_assert_false (cs_report_format_is_text (CS_REPORT_FORMAT_SYSPROF));

  fd = g_file_open_tmp ("cs-capture-XXXXXX.syscap", &path, &error);
  g_assert_no_error (error);
  close (fd);
  g_file_set_contents (path, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), &error);
  g_assert_no_error (error);

  reader = sysprof_capture_reader_new (path);
  g_assert_nonnull (reader);
  while (sysprof_capture_reader_peek_type (reader, &type))
    {
      switch ((int) type)
        {
        case SYSPROF_CAPTURE_FRAME_PROCESS:
          {
            const SysprofCaptureProcess *p = sysprof_capture_reader_read_process (reader);

            g_assert_nonnull (p);
            g_assert_true (g_str_has_prefix (p->cmdline, "copyscope copy "));
            process = TRUE;
          }
          break;
        case SYSPROF_CAPTURE_FRAME_MARK:
          {
            const SysprofCaptureMark *mark = sysprof_capture_reader_read_mark (reader);
            guint w;
            CsPhase phase;

            g_assert_nonnull (mark);
            g_assert_true (g_str_has_prefix (mark->group, "Worker "));
            w = (guint) g_ascii_strtoull (mark->group + 7, NULL, 10);
            g_assert_cmpuint (w, <, workers);
            g_assert_true (cs_phase_from_id (mark->message, &phase));
            g_assert_cmpstr (mark->name, ==, cs_phase_get_label (phase));
            marks[w]++;
          }
          break;
        case SYSPROF_CAPTURE_FRAME_CTRDEF:
          {
            const SysprofCaptureCounterDefine *def = sysprof_capture_reader_read_counter_define (reader);

            g_assert_nonnull (def);
            g_assert_cmpuint (def->n_counters, ==, CS_PHASE_N);
            for (guint i = 0; i < def->n_counters; i++)
              if (g_str_equal (def->counters[i].category, "Worker-seconds by phase") &&
                  g_str_equal (def->counters[i].name, cs_phase_get_id (0)))
                seconds_first_id = def->counters[i].id;
            defined += def->n_counters;
          }
          break;
        case SYSPROF_CAPTURE_FRAME_CTRSET:
          {
            const SysprofCaptureCounterSet *set = sysprof_capture_reader_read_counter_set (reader);

            g_assert_nonnull (set);
            /* Groups of eight values a frame. */
            for (guint g = 0; g < set->n_values; g++)
              for (guint i = 0; i < G_N_ELEMENTS (set->values[g].ids); i++)
                {
                  guint id = set->values[g].ids[i];

                  if (id >= seconds_first_id && id < seconds_first_id + CS_PHASE_N)
                    last[id - seconds_first_id] = set->values[g].values[i].vdbl;
                }
            n_sets++;
          }
          break;
        default:
          g_assert_true (sysprof_capture_reader_skip (reader));
          break;
        }
    }
  sysprof_capture_reader_unref (reader);
  g_unlink (path);

  g_assert_true (process);
  for (guint w = 0; w < workers; w++)
    g_assert_cmpuint (marks[w], ==, 5);
  g_assert_cmpuint (defined, ==, 2 * CS_PHASE_N);
  g_assert_cmpuint (n_sets, ==, 2 * 8);
  for (guint p = 0; p < CS_PHASE_N; p++)
    g_assert_cmpfloat (last[p], ==, totals[p]);
}
#endif

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/report-phases/sections", test_sections);
  g_test_add_func ("/report-phases/compare", test_compare);
  g_test_add_func ("/report-phases/runnable", test_runnable);
  g_test_add_func ("/report-phases/trace", test_trace);
  g_test_add_func ("/report-phases/trace-runnable", test_trace_runnable);
  g_test_add_func ("/report-phases/trace-refused", test_trace_refused);
  g_test_add_func ("/report-phases/phase-chart", test_phase_chart);
#ifdef HAVE_SYSPROF
  g_test_add_func ("/report-phases/sysprof", test_sysprof);
#endif

  return g_test_run ();
}
