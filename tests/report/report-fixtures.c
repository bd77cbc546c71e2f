/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-report"

#include "config.h"

#include <errno.h>
#include <math.h>

#include <json-glib/json-glib.h>

#include "report-fixtures.h"
#include "cs-run-private.h"

CsRun *
fixture_run_set_id (CsRun      *run,
                    const char *id)
{
  g_autofree char *text = cs_run_to_json_string (run, FALSE);
  g_autoptr(JsonNode) node = json_from_string (text, NULL);
  g_autoptr(GError) error = NULL;
  CsRun *copy;

  json_object_set_string_member (json_node_get_object (node), "id", id);
  copy = cs_run_new_from_json (node, &error);
  g_assert_no_error (error);
  cs_run_unref (run);

  return copy;
}

CsRun *
fixture_run (const char *label,
             const char *id,
             guint       threads,
             double      scale)
{
  const char * const sources[] = { "/data/photos", "/data/docs", NULL };
  char *excludes[] = { (char *) "*.tmp", NULL };
  CsRunSettings settings = { 0 };
  CsRunEnvironment environment = { 0 };
  CsTotals totals = { { { 0 } } };
  CsRun *run = cs_run_new ();

  cs_run_set_label (run, label);
  _cs_run_set_sources (run, sources);
  _cs_run_set_destination (run, "/mnt/nas/backup");

  settings.threads = threads;
  settings.overwrite = CS_OVERWRITE_NEWER;
  settings.durable = TRUE;
  settings.retries = 3;
  settings.wait = 1.5;
  settings.interval_ms = 250;
  settings.excludes = excludes;
  _cs_run_set_settings (run, &settings);

  environment.kernel = (char *) "6.1.0-18-amd64";
  environment.hostname = (char *) "lab";
  environment.cpus = 4;
  environment.source_fs = (char *) "ext4";
  environment.destination_fs = (char *) "nfs4";
  environment.cache_mode = (char *) "cold (drop_caches)";
  environment.tool_version = (char *) "0.1.0";
  _cs_run_set_environment (run, &environment);

  _cs_run_set_started (run, G_GINT64_CONSTANT (1700000000) * G_USEC_PER_SEC + 250000);
  _cs_run_set_duration (run, 2.0 * scale);

  for (guint i = 0; i < 8; i++)
    {
      CsSample sample = { 0 };

      sample.t = 0.25 * (i + 1);
      for (guint c = 0; c < CS_N_COUNTERS; c++)
        sample.values[c] = scale * (c + 1) * (1.0 + (i % 3) * 0.125);
      sample.values[CS_COUNTER_THREADS] = i < 4 ? threads : threads * 2;
      /* No reads finished in this interval: no read latency. */
      if (i == 2)
        sample.values[CS_COUNTER_AVG_READ_REQUEST_TIME] = NAN;
      sample.files_done = 10 * (i + 1);
      sample.bytes_done = G_GUINT64_CONSTANT (1000000) * (i + 1);
      _cs_run_add_sample (run, &sample);
    }
  _cs_run_add_thread_change (run, 1.0, threads, threads * 2, "user");

  totals.v[CS_CLASS_TOTAL][CS_KIND_DIRS] = 3;
  totals.v[CS_CLASS_TOTAL][CS_KIND_FILES] = 86;
  totals.v[CS_CLASS_TOTAL][CS_KIND_BYTES] = 8000600;
  totals.v[CS_CLASS_COPIED][CS_KIND_DIRS] = 3;
  totals.v[CS_CLASS_COPIED][CS_KIND_FILES] = 80;
  totals.v[CS_CLASS_COPIED][CS_KIND_BYTES] = 8000000;
  totals.v[CS_CLASS_SKIPPED][CS_KIND_FILES] = 5;
  totals.v[CS_CLASS_SKIPPED][CS_KIND_BYTES] = 500;
  totals.v[CS_CLASS_FAILED][CS_KIND_FILES] = 1;
  totals.v[CS_CLASS_FAILED][CS_KIND_BYTES] = 100;
  _cs_run_set_totals (run, &totals);
  {
    /* Three already there, two kept by the rule for existing files. */
    const CsSkips skips = { 3, 300, 2, 200 };

    _cs_run_set_skips (run, &skips);
  }

  _cs_run_add_error (run, "/data/docs/locked|report`.txt", "open", EACCES, "Permission denied", 1);
  _cs_run_set_outcome (run, "completed", NULL);

  return fixture_run_set_id (run, id);
}

CsRun *
fixture_run_with_stats (const char   *label,
                        const double  avg[CS_N_COUNTERS],
                        const double  min[CS_N_COUNTERS],
                        const double  max[CS_N_COUNTERS])
{
  const guint n = 100;
  CsRun *run = cs_run_new ();

  cs_run_set_label (run, label);
  _cs_run_set_duration (run, n * 0.25);

  /* One sample at the minimum, one at the maximum, the rest at the value that
   * makes the mean come out at @avg. */
  for (guint i = 0; i < n; i++)
    {
      CsSample sample = { 0 };

      sample.t = 0.25 * (i + 1);
      for (guint c = 0; c < CS_N_COUNTERS; c++)
        {
          if (isnan (avg[c]))
            sample.values[c] = NAN;
          else if (i == 0)
            sample.values[c] = min[c];
          else if (i == 1)
            sample.values[c] = max[c];
          else
            sample.values[c] = (n * avg[c] - min[c] - max[c]) / (n - 2);
        }
      _cs_run_add_sample (run, &sample);
    }
  _cs_run_set_outcome (run, "completed", NULL);

  return run;
}

void
fixture_add_phases (CsRun *run,
                    guint  workers)
{
  CsLatencyHistogram open = { { 0 } }, write = { { 0 } };

  for (guint i = 1; i <= 8; i++)
    {
      double seconds[CS_PHASE_N] = { 0 };

      /* Each sample a quarter second of every worker. */
      seconds[CS_PHASE_OPENING] = 0.0625 * workers;
      seconds[CS_PHASE_WRITING] = (0.125 + (i % 2) * 0.03125) * workers;
      seconds[CS_PHASE_WAITING] = (0.0625 - (i % 2) * 0.03125) * workers;
      _cs_run_add_phase_sample (run, i * 0.25, seconds);
    }

  for (guint w = 0; w < workers; w++)
    {
      const CsPhaseChange changes[] = {
        { 0.0, CS_PHASE_WAITING },
        { 0.001 + w * 0.0005, CS_PHASE_OPENING },
        { 0.25, CS_PHASE_WRITING },
        { 1.5, CS_PHASE_PUBLISHING },
        { 1.75, CS_PHASE_WAITING },
      };

      _cs_run_add_phase_changes (run, w, changes, G_N_ELEMENTS (changes));
    }

  for (guint i = 0; i < 10; i++)
    cs_latency_histogram_add (&open, 20000 + i * 1000);
  cs_latency_histogram_add (&write, 3000000);
  _cs_run_add_latency (run, CS_LATENCY_OPEN, &open);
  _cs_run_add_latency (run, CS_LATENCY_WRITE, &write);
}
