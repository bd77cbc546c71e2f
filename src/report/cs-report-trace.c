/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-report"

/*
 * Chrome's Trace Event JSON of a run's phases (cs-report-trace.h), written
 * after the format's specification ("Trace Event Format", Google, the JSON
 * Object Format): every event has name, ph, ts (µs), pid and tid; "X"
 * events a dur; "M" and "C" events args.
 */

#include "config.h"

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "cs-json-io.h"
#include "cs-report-trace.h"

#define TRACE_PID 1

static void
event_begin (JsonBuilder *builder,
             const char  *name,
             const char  *ph,
             double       ts_us,
             gint64       tid)
{
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "name");
  json_builder_add_string_value (builder, name);
  json_builder_set_member_name (builder, "ph");
  json_builder_add_string_value (builder, ph);
  json_builder_set_member_name (builder, "ts");
  json_builder_add_double_value (builder, ts_us);
  json_builder_set_member_name (builder, "pid");
  json_builder_add_int_value (builder, TRACE_PID);
  json_builder_set_member_name (builder, "tid");
  json_builder_add_int_value (builder, tid);
}

static void
metadata_event (JsonBuilder *builder,
                const char  *name,
                gint64       tid,
                const char  *value)
{
  event_begin (builder, name, "M", 0, tid);
  json_builder_set_member_name (builder, "args");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "name");
  json_builder_add_string_value (builder, value);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
}

static void
counter_event (JsonBuilder  *builder,
               const char   *name,
               double        ts_us,
               const double  values[CS_PHASE_N])
{
  event_begin (builder, name, "C", ts_us, 0);
  json_builder_set_member_name (builder, "args");
  json_builder_begin_object (builder);
  for (guint p = 0; p < CS_PHASE_N; p++)
    {
      json_builder_set_member_name (builder, cs_phase_get_id (p));
      json_builder_add_double_value (builder, values[p]);
    }
  json_builder_end_object (builder);
  json_builder_end_object (builder);
}

/* One value under one name: a counter track of its own. */
static void
counter_event_1 (JsonBuilder *builder,
                 const char  *name,
                 double       ts_us,
                 const char  *arg,
                 double       value)
{
  event_begin (builder, name, "C", ts_us, 0);
  json_builder_set_member_name (builder, "args");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, arg);
  json_builder_add_double_value (builder, value);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
}

GBytes *
_cs_report_trace_render (CsRun   *run,
                         GError **error)
{
  g_autoptr(JsonBuilder) builder = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GArray) series = NULL;
  g_autoptr(GArray) lanes = NULL;
  g_autofree char *label = NULL;
  g_autofree char *process = NULL;
  double totals[CS_PHASE_N], running[CS_PHASE_N] = { 0 };
  double end = 0, runnable_total = 0, runnable_running = 0;
  gboolean runnable_known;
  char *text;

  g_return_val_if_fail (run != NULL, NULL);

  if (!cs_run_get_phase_totals (run, totals))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           "The run has no phase data to trace: it was recorded before "
                           "Copyscope kept where the workers' time went");
      return NULL;
    }
  series = cs_run_dup_phase_series (run);
  lanes = cs_run_dup_phase_lanes (run);
  runnable_known = cs_run_get_runnable_total (run, &runnable_total);
  label = cs_run_dup_label (run);
  process = g_strdup_printf ("Copyscope %s %s", cs_run_get_kind (run),
                             label != NULL ? label : cs_run_get_id (run));

  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "displayTimeUnit");
  json_builder_add_string_value (builder, "ms");
  json_builder_set_member_name (builder, "otherData");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "run_id");
  json_builder_add_string_value (builder, cs_run_get_id (run));
  json_builder_end_object (builder);

  json_builder_set_member_name (builder, "traceEvents");
  json_builder_begin_array (builder);
  metadata_event (builder, "process_name", 0, process);

  /* The lanes end where the newest change is: nothing is known after it. */
  for (guint l = 0; lanes != NULL && l < lanes->len; l++)
    {
      const CsPhaseLane *lane = &g_array_index (lanes, CsPhaseLane, l);

      if (lane->changes->len > 0)
        end = MAX (end, g_array_index (lane->changes, CsPhaseChange, lane->changes->len - 1).t);
    }
  for (guint l = 0; lanes != NULL && l < lanes->len; l++)
    {
      const CsPhaseLane *lane = &g_array_index (lanes, CsPhaseLane, l);
      g_autofree char *name = g_strdup_printf ("Worker %u", lane->worker);
      gint64 tid = lane->worker + 1;

      metadata_event (builder, "thread_name", tid, name);
      for (guint i = 0; i < lane->changes->len; i++)
        {
          const CsPhaseChange *change = &g_array_index (lane->changes, CsPhaseChange, i);
          double until = i + 1 < lane->changes->len
                         ? g_array_index (lane->changes, CsPhaseChange, i + 1).t : end;

          event_begin (builder, cs_phase_get_label (change->phase), "X",
                       round (change->t * 1e6 * 1000) / 1000, tid);
          json_builder_set_member_name (builder, "dur");
          json_builder_add_double_value (builder, round ((until - change->t) * 1e6 * 1000) / 1000);
          json_builder_set_member_name (builder, "cat");
          json_builder_add_string_value (builder, "phase");
          json_builder_set_member_name (builder, "args");
          json_builder_begin_object (builder);
          json_builder_set_member_name (builder, "phase");
          json_builder_add_string_value (builder, cs_phase_get_id (change->phase));
          json_builder_end_object (builder);
          json_builder_end_object (builder);
        }
    }

  for (guint i = 0; series != NULL && i < series->len; i++)
    {
      const CsPhaseBucket *b = &g_array_index (series, CsPhaseBucket, i);
      double workers[CS_PHASE_N];
      double width = b->t - b->t_start;

      for (guint p = 0; p < CS_PHASE_N; p++)
        {
          workers[p] = width > 0 ? b->seconds[p] / width : 0;
          running[p] += b->seconds[p];
        }
      counter_event (builder, "Workers by phase", b->t_start * 1e6, workers);
      /* The last one is the record's exact totals; the ones before, the sums
       * of its samples as the file keeps them. */
      counter_event (builder, "Worker-seconds by phase", b->t * 1e6,
                     i + 1 == series->len ? totals : running);
      /* Overlapping the phases, so a track of its own, and none where it
       * was not measured rather than a flat 0. */
      if (runnable_known)
        {
          runnable_running += b->runnable;
          counter_event_1 (builder, "Workers waiting for a processor", b->t_start * 1e6,
                           "runnable", width > 0 ? b->runnable / width : 0);
          counter_event_1 (builder, "Worker-seconds waiting for a processor", b->t * 1e6,
                           "runnable", i + 1 == series->len ? runnable_total : runnable_running);
        }
    }

  json_builder_end_array (builder);
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  text = cs_json_to_string (root, FALSE);

  return g_bytes_new_take (text, strlen (text));
}
