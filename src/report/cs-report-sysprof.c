/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-report"

/*
 * A Sysprof capture of a run's phases (cs-report-trace.h), written by
 * libsysprof-capture's own writer so GNOME's profiler opens it like any
 * recording: the process "copyscope", a mark per lane change in the group
 * "Worker N", and two groups of counters by phase.
 */

#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <errno.h>
#include <math.h>
#include <unistd.h>

#ifdef HAVE_SYSPROF
#include <sysprof-capture.h>
#endif

#include "cs-report-trace.h"

#ifdef HAVE_SYSPROF

#define CAPTURE_PID 1

/* Capture times are monotonic ns; the run's seconds count from its start. */
static gint64
capture_time (gint64 base,
              double seconds)
{
  return base + (gint64) llround (seconds * 1e9);
}

static void
define_counters (SysprofCaptureWriter *writer,
                 gint64                time,
                 const char           *category,
                 guint                 first_id)
{
  SysprofCaptureCounter counters[CS_PHASE_N] = { { { 0 } } };

  for (guint p = 0; p < CS_PHASE_N; p++)
    {
      g_strlcpy (counters[p].category, category, sizeof counters[p].category);
      g_strlcpy (counters[p].name, cs_phase_get_id (p), sizeof counters[p].name);
      g_strlcpy (counters[p].description, cs_phase_get_label (p), sizeof counters[p].description);
      counters[p].id = first_id + p;
      counters[p].type = SYSPROF_CAPTURE_COUNTER_DOUBLE;
      counters[p].value.vdbl = 0;
    }
  sysprof_capture_writer_define_counters (writer, time, -1, CAPTURE_PID, counters, CS_PHASE_N);
}

static void
set_counters (SysprofCaptureWriter *writer,
              gint64                time,
              guint                 first_id,
              const double          values[CS_PHASE_N])
{
  unsigned int ids[CS_PHASE_N];
  SysprofCaptureCounterValue v[CS_PHASE_N];

  for (guint p = 0; p < CS_PHASE_N; p++)
    {
      ids[p] = first_id + p;
      v[p].vdbl = values[p];
    }
  sysprof_capture_writer_set_counters (writer, time, -1, CAPTURE_PID, ids, v, CS_PHASE_N);
}

GBytes *
_cs_report_sysprof_render (CsRun   *run,
                           GError **error)
{
  g_autoptr(GArray) series = NULL;
  g_autoptr(GArray) lanes = NULL;
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *cmdline = NULL;
  SysprofCaptureWriter *writer;
  double totals[CS_PHASE_N], running[CS_PHASE_N] = { 0 };
  double end = 0;
  guint workers_id, seconds_id;
  gsize len = 0;
  gint64 base;
  gboolean ok;
  int fd;

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

  /* The writer maps a file; the capture is read back whole from it. */
  fd = g_file_open_tmp ("copyscope-XXXXXX.syscap", &path, error);
  if (fd < 0)
    return NULL;
  close (fd);
  writer = sysprof_capture_writer_new (path, 0);
  if (writer == NULL)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Cannot write a Sysprof capture: %s", g_strerror (saved));
      g_unlink (path);
      return NULL;
    }
  base = SYSPROF_CAPTURE_CURRENT_TIME;

  cmdline = g_strdup_printf ("copyscope %s %s", cs_run_get_kind (run), cs_run_get_id (run));
  sysprof_capture_writer_add_process (writer, base, -1, CAPTURE_PID, cmdline);

  for (guint l = 0; lanes != NULL && l < lanes->len; l++)
    {
      const CsPhaseLane *lane = &g_array_index (lanes, CsPhaseLane, l);

      if (lane->changes->len > 0)
        end = MAX (end, g_array_index (lane->changes, CsPhaseChange, lane->changes->len - 1).t);
    }
  for (guint l = 0; lanes != NULL && l < lanes->len; l++)
    {
      const CsPhaseLane *lane = &g_array_index (lanes, CsPhaseLane, l);
      g_autofree char *group = g_strdup_printf ("Worker %u", lane->worker);

      for (guint i = 0; i < lane->changes->len; i++)
        {
          const CsPhaseChange *change = &g_array_index (lane->changes, CsPhaseChange, i);
          double until = i + 1 < lane->changes->len
                         ? g_array_index (lane->changes, CsPhaseChange, i + 1).t : end;

          sysprof_capture_writer_add_mark (writer, capture_time (base, change->t), -1, CAPTURE_PID,
                                           (guint64) llround (MAX (0, until - change->t) * 1e9),
                                           group, cs_phase_get_label (change->phase),
                                           cs_phase_get_id (change->phase));
        }
    }

  workers_id = sysprof_capture_writer_request_counter (writer, CS_PHASE_N);
  seconds_id = sysprof_capture_writer_request_counter (writer, CS_PHASE_N);
  define_counters (writer, base, "Workers by phase", workers_id);
  define_counters (writer, base, "Worker-seconds by phase", seconds_id);
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
      set_counters (writer, capture_time (base, b->t_start), workers_id, workers);
      /* As the trace: the last values are the record's exact totals. */
      set_counters (writer, capture_time (base, b->t), seconds_id,
                    i + 1 == series->len ? totals : running);
    }

  ok = sysprof_capture_writer_flush (writer);
  sysprof_capture_writer_unref (writer);
  if (!ok)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, "Cannot write a Sysprof capture");
      g_unlink (path);
      return NULL;
    }
  ok = g_file_get_contents (path, &contents, &len, error);
  g_unlink (path);
  if (!ok)
    return NULL;

  return g_bytes_new_take (g_steal_pointer (&contents), len);
}

#else /* !HAVE_SYSPROF */

GBytes *
_cs_report_sysprof_render (CsRun   *run,
                           GError **error)
{
  g_return_val_if_fail (run != NULL, NULL);

  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                       "This Copyscope was built without Sysprof captures (meson -Dsysprof)");
  return NULL;
}

#endif
