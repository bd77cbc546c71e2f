/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-run"

/*
 * The run's summary as a GVariant (CS_RUN_SUMMARY_TYPE): what the history's
 * index keeps of each record, typed, so a list of a thousand runs is read
 * in place without parsing (docs/ARCHITECTURE.md).
 */

#include "config.h"

#include <string.h>

#include "cs-run.h"
#include "cs-run-internal.h"
#include "cs-smb-url-private.h"
#include "cs-tsan-private.h"

GVariant *
cs_run_to_summary (CsRun *run)
{
  g_autoptr(CsMutexLocker) locker = NULL;
  GVariantBuilder sources, totals, timeline, stats;

  g_return_val_if_fail (run != NULL, NULL);

  locker = _cs_mutex_locker_new (&run->mutex);

  g_variant_builder_init (&sources, G_VARIANT_TYPE_BYTESTRING_ARRAY);
  for (guint i = 0; run->sources[i] != NULL; i++)
    g_variant_builder_add (&sources, "^ay", run->sources[i]);

  g_variant_builder_init (&totals, G_VARIANT_TYPE ("at"));
  for (guint c = 0; c < CS_N_CLASSES; c++)
    for (guint k = 0; k < CS_N_KINDS; k++)
      g_variant_builder_add (&totals, "t", run->totals.v[c][k]);

  g_variant_builder_init (&timeline, G_VARIANT_TYPE ("a(duus)"));
  for (guint i = 0; i < run->timeline->len; i++)
    {
      const CsThreadChange *change = &g_array_index (run->timeline, CsThreadChange, i);

      g_variant_builder_add (&timeline, "(duus)", change->t, change->from, change->to,
                             change->reason != NULL ? change->reason : "");
    }

  g_variant_builder_init (&stats, G_VARIANT_TYPE ("a(tddd)"));
  for (guint c = 0; c < CS_N_COUNTERS; c++)
    g_variant_builder_add (&stats, "(tddd)", run->sums[c].n, run->sums[c].min,
                           run->sums[c].max, run->sums[c].sum);

  return g_variant_new ("(ssmsxddaaym@ayuatsmsa(duus)a(tddd)uuum@aymst)",
                        run->id, run->kind, run->label, run->started, run->duration, run->held,
                        &sources,
                        run->destination != NULL ? g_variant_new_bytestring (run->destination) : NULL,
                        run->settings.threads, &totals, run->outcome, run->fatal_error,
                        &timeline, &stats, run->n_errors, run->n_notes,
                        _cs_run_n_samples_locked (run),
                        run->manifest.path != NULL ? g_variant_new_bytestring (run->manifest.path) : NULL,
                        run->manifest.algo, run->manifest.files);
}

CsRun *
cs_run_new_from_summary (GVariant  *summary,
                         GError   **error)
{
  g_autoptr(CsRun) run = cs_run_new ();
  g_autoptr(GVariant) sources = NULL;
  g_autoptr(GVariant) destination = NULL;
  g_autoptr(GVariant) totals = NULL;
  g_autoptr(GVariant) stats = NULL;
  g_autoptr(GVariant) manifest = NULL;
  g_autoptr(GVariantIter) timeline = NULL;
  const char *id, *kind, *outcome, *reason, *manifest_algo;
  char *label, *fatal_error;
  CsThreadChange change;
  const guint64 *values;
  gsize n_values;

  g_return_val_if_fail (summary != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!g_variant_is_of_type (summary, G_VARIANT_TYPE (CS_RUN_SUMMARY_TYPE)))
    {
      g_set_error (error, CS_RUN_ERROR, CS_RUN_ERROR_INVALID, "Invalid run summary: its type is %s",
                   g_variant_get_type_string (summary));
      return NULL;
    }

  g_variant_get (summary, "(&s&sms" "xdd@aay@may" "u@at&sms" "a(duus)@a(tddd)uuu" "@maym&st)",
                 &id, &kind, &label, &run->started, &run->duration, &run->held,
                 &sources, &destination, &run->settings.threads, &totals, &outcome,
                 &fatal_error, &timeline, &stats, &run->n_errors, &run->n_notes,
                 &run->header_samples, &manifest, &manifest_algo, &run->manifest.files);
  run->label = label;
  run->fatal_error = fatal_error;

  values = g_variant_get_fixed_array (totals, &n_values, sizeof (guint64));
  if (!g_uuid_string_is_valid (id) || !_cs_run_outcome_is_known (outcome) ||
      n_values != CS_N_CLASSES * CS_N_KINDS || g_variant_n_children (stats) != CS_N_COUNTERS ||
      run->started < 0 || run->started > MAX_STARTED_USEC ||
      !(run->duration >= 0 && run->duration <= MAX_DURATION) ||
      !(run->held >= 0 && run->held <= MAX_DURATION) ||
      (manifest_algo != NULL && _cs_run_manifest_algo_known (manifest_algo) == NULL))
    {
      g_set_error (error, CS_RUN_ERROR, CS_RUN_ERROR_INVALID, "Invalid run summary");
      return NULL;
    }
  if (manifest != NULL && manifest_algo != NULL)
    {
      g_autoptr(GVariant) bytes = g_variant_get_maybe (manifest);

      if (bytes != NULL)
        {
          run->manifest.path = g_variant_dup_bytestring (bytes, NULL);
          run->manifest.algo = g_strdup (_cs_run_manifest_algo_known (manifest_algo));
        }
    }

  g_free (run->id);
  run->id = g_strdup (id);
  run->kind = g_intern_string (kind);
  run->outcome = g_intern_string (outcome);
  if (run->label != NULL && run->label[0] == '\0')
    g_clear_pointer (&run->label, g_free);

  g_strfreev (run->sources);
  run->sources = g_variant_dup_bytestring_array (sources, NULL);
  /* An index from before passwords were taken out of smb:// URLs. */
  for (guint i = 0; run->sources != NULL && run->sources[i] != NULL; i++)
    {
      char *kept = _cs_smb_location_redact (run->sources[i]);

      g_free (run->sources[i]);
      run->sources[i] = kept;
    }
  if (destination != NULL)
    {
      g_autoptr(GVariant) bytes = g_variant_get_maybe (destination);
      g_autofree char *given = bytes != NULL ? g_variant_dup_bytestring (bytes, NULL) : NULL;

      if (given != NULL)
        run->destination = _cs_smb_location_redact (given);
    }

  memcpy (run->totals.v, values, sizeof run->totals.v);

  while (g_variant_iter_next (timeline, "(duu&s)", &change.t, &change.from, &change.to, &reason))
    {
      change.reason = reason[0] != '\0' ? g_strdup (reason) : NULL;
      g_array_append_val (run->timeline, change);
    }

  for (guint c = 0; c < CS_N_COUNTERS; c++)
    g_variant_get_child (stats, c, "(tddd)", &run->sums[c].n, &run->sums[c].min,
                         &run->sums[c].max, &run->sums[c].sum);

  run->header = TRUE;

  return g_steal_pointer (&run);
}
