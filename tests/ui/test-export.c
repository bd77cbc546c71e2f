/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-export"

#include "config.h"

#include <string.h>

#include <json-glib/json-glib.h>

#include "cs-export.h"
#include "cs-run-private.h"
#include "cs-ui-test.h"

/* What the window's Export writes, by the name the user keeps: the
 * workers' timeline (Trace Event JSON) next to the run's own JSON. */

/* A run of two workers with phases: what a trace is drawn from. */
static CsRun *
run_with_lanes (void)
{
  CsRun *run = cs_run_new ();

  for (guint i = 1; i <= 8; i++)
    {
      CsSample sample = { 0 };
      double seconds[CS_PHASE_N] = { 0 };

      sample.t = i * 0.25;
      sample.values[CS_COUNTER_THREADS] = 2;
      _cs_run_add_sample (run, &sample);
      seconds[CS_PHASE_WRITING] = 0.3;
      seconds[CS_PHASE_OPENING] = 0.2;
      _cs_run_add_phase_sample (run, sample.t, seconds);
    }
  for (guint w = 0; w < 2; w++)
    {
      CsPhaseChange changes[] = { { 0.0, CS_PHASE_OPENING }, { 0.5, CS_PHASE_WRITING }, { 1.5, CS_PHASE_WAITING } };

      _cs_run_add_phase_changes (run, w, changes, G_N_ELEMENTS (changes));
    }
  _cs_run_set_duration (run, 2.0);
  return run;
}

/* The suggested name tells the two JSONs apart, and so does a name the user
 * keeps: "….trace.json" is the timeline, any other ".json" the run. */
static void
test_trace_name (void)
{
  g_autofree char *trace = _cs_export_name ("copyscope", 0, "trace");
  g_autofree char *json = _cs_export_name ("copyscope", 0, "json");
  g_autofree char *from_trace = _cs_export_format_of_name (trace, "json");
  g_autofree char *from_json = _cs_export_format_of_name (json, "trace");
  g_autofree char *upper = _cs_export_format_of_name ("Copy.TRACE.JSON", "md");
  g_autofree char *none = _cs_export_format_of_name ("run 1", "trace");

  g_assert_true (g_str_has_suffix (trace, ".trace.json"));
  g_assert_true (g_str_has_suffix (json, ".json") && !g_str_has_suffix (json, ".trace.json"));
  g_assert_cmpstr (from_trace, ==, "trace");
  g_assert_cmpstr (from_json, ==, "json");
  g_assert_cmpstr (upper, ==, "trace");
  g_assert_cmpstr (none, ==, "trace");
}

/* Rendered by that name: Trace Event JSON with a lane per worker. */
static void
test_trace_render (void)
{
  g_autoptr(CsRun) run = run_with_lanes ();
  CsRun *runs[] = { run };
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = _cs_export_render_runs (runs, 1, NULL, "trace", &error);
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *root;
  JsonArray *events;
  guint complete = 0;

  g_assert_no_error (error);
  g_assert_nonnull (bytes);
  g_assert_true (json_parser_load_from_data (parser, g_bytes_get_data (bytes, NULL),
                                             (gssize) g_bytes_get_size (bytes), &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  events = json_object_get_array_member (root, "traceEvents");
  g_assert_nonnull (events);
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *event = json_array_get_object_element (events, i);

      if (g_strcmp0 (json_object_get_string_member_with_default (event, "ph", ""), "X") == 0)
        complete++;
    }
  /* Each worker's three phases, "waiting" at the end included or not. */
  g_assert_cmpuint (complete, >=, 4);
}

int
main (int    argc,
      char **argv)
{
  cs_ui_test_init (&argc, &argv);

  g_test_add_func ("/export/trace-name", test_trace_name);
  g_test_add_func ("/export/trace-render", test_trace_render);

  return g_test_run ();
}
