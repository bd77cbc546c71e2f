/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-run"

/*
 * The record as JSON, through json-glib's JsonBuilder, and saved. A path that
 * is not valid UTF-8 is written as its display form plus the exact bytes in
 * base64, since JSON strings must be UTF-8. Numbers are written independently
 * of the locale (json-glib's own), and doubles through cs_json_to_string ().
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "cs-figures.h"
#include "cs-json-io.h"
#include "cs-run.h"
#include "cs-run-internal.h"
#include "cs-tsan-private.h"

static void
add_string_or_null (JsonBuilder *builder,
                    const char  *member,
                    const char  *value)
{
  json_builder_set_member_name (builder, member);
  if (value == NULL)
    {
      json_builder_add_null_value (builder);
    }
  else
    {
      g_autofree char *valid = g_utf8_make_valid (value, -1);

      json_builder_add_string_value (builder, valid);
    }
}

static char *
path_raw_or_null (const char *path)
{
  if (path == NULL || g_utf8_validate (path, -1, NULL))
    return NULL;

  return g_base64_encode ((const guchar *) path, strlen (path));
}

static void
add_double_or_null (JsonBuilder *builder,
                    double       value)
{
  /* JSON has no NaN or infinity; null stands for "no value". */
  if (isfinite (value))
    json_builder_add_double_value (builder, value);
  else
    json_builder_add_null_value (builder);
}

static void
add_member_double (JsonBuilder *builder,
                   const char  *member,
                   double       value)
{
  json_builder_set_member_name (builder, member);
  add_double_or_null (builder, value);
}

static void
add_member_int (JsonBuilder *builder,
                const char  *member,
                gint64       value)
{
  json_builder_set_member_name (builder, member);
  json_builder_add_int_value (builder, value);
}

static void
add_member_bool (JsonBuilder *builder,
                 const char  *member,
                 gboolean     value)
{
  json_builder_set_member_name (builder, member);
  json_builder_add_boolean_value (builder, value);
}

static gint64
clamp_u64 (guint64 value)
{
  return value > G_MAXINT64 ? G_MAXINT64 : (gint64) value;
}

static char *
format_iso8601 (gint64 unix_usec)
{
  g_autoptr(GDateTime) seconds = NULL;
  g_autoptr(GDateTime) dt = NULL;

  seconds = g_date_time_new_from_unix_utc (unix_usec / G_USEC_PER_SEC);
  if (seconds == NULL)
    return g_strdup ("");
  dt = g_date_time_add (seconds, unix_usec % G_USEC_PER_SEC);

  return g_date_time_format_iso8601 (dt);
}

static void
build_settings (JsonBuilder         *builder,
                const CsRunSettings *s)
{
  json_builder_set_member_name (builder, "settings");
  json_builder_begin_object (builder);
  add_member_int (builder, "threads", s->threads);
  json_builder_set_member_name (builder, "overwrite");
  json_builder_add_string_value (builder, s->overwrite <= CS_OVERWRITE_DIFFERENT
                                          ? cs_overwrite_to_string (s->overwrite)
                                          : "newer");
  add_member_bool (builder, "verify", s->verify);
  add_member_bool (builder, "durable", s->durable);
  add_member_bool (builder, "flush", s->flush);
  add_member_bool (builder, "dry_run", s->dry_run);
  add_member_int (builder, "retries", s->retries);
  add_member_double (builder, "wait", s->wait);
  add_member_int (builder, "interval_ms", s->interval_ms);
  json_builder_set_member_name (builder, "excludes");
  json_builder_begin_array (builder);
  for (guint i = 0; s->excludes != NULL && s->excludes[i] != NULL; i++)
    {
      g_autofree char *valid = g_utf8_make_valid (s->excludes[i], -1);

      json_builder_add_string_value (builder, valid);
    }
  json_builder_end_array (builder);
  add_string_or_null (builder, "operation", cs_operation_to_string (MIN (s->operation, CS_OPERATION_MIRROR)));
  add_member_double (builder, "max_rate", s->max_rate);
  add_member_double (builder, "max_files", s->max_files);
  if (s->operation == CS_OPERATION_MIRROR)
    add_member_int (builder, "max_delete", s->max_delete);
  json_builder_end_object (builder);
}

static void
build_environment (JsonBuilder            *builder,
                   const CsRunEnvironment *e)
{
  json_builder_set_member_name (builder, "environment");
  json_builder_begin_object (builder);
  add_string_or_null (builder, "kernel", e->kernel);
  add_string_or_null (builder, "hostname", e->hostname);
  add_member_int (builder, "cpus", e->cpus);
  add_string_or_null (builder, "source_fs", e->source_fs);
  add_string_or_null (builder, "destination_fs", e->destination_fs);
  if (e->route != NULL)
    add_string_or_null (builder, "route", e->route);
  add_string_or_null (builder, "cache_mode", e->cache_mode);
  add_string_or_null (builder, "tool_version", e->tool_version);
  json_builder_end_object (builder);
}

/* Called with the lock held. */
static void
build_samples (JsonBuilder *builder,
               CsRun       *run)
{
  guint n = _cs_run_recent_len (run);

  json_builder_set_member_name (builder, "samples");
  json_builder_begin_object (builder);

  json_builder_set_member_name (builder, "t");
  json_builder_begin_array (builder);
  for (guint i = 0; i < n; i++)
    add_double_or_null (builder, _cs_run_recent_at (run, i)->t);
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "files_done");
  json_builder_begin_array (builder);
  for (guint i = 0; i < n; i++)
    json_builder_add_int_value (builder, clamp_u64 (_cs_run_recent_at (run, i)->files_done));
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "bytes_done");
  json_builder_begin_array (builder);
  for (guint i = 0; i < n; i++)
    json_builder_add_int_value (builder, clamp_u64 (_cs_run_recent_at (run, i)->bytes_done));
  json_builder_end_array (builder);

  for (guint c = 0; c < CS_N_COUNTERS; c++)
    {
      json_builder_set_member_name (builder, cs_counter_get_info (c)->key);
      json_builder_begin_array (builder);
      for (guint i = 0; i < n; i++)
        add_double_or_null (builder, _cs_run_recent_at (run, i)->values[c]);
      json_builder_end_array (builder);
    }

  json_builder_end_object (builder);
}

static void
add_bucket_column (JsonBuilder *builder,
                   GArray      *buckets,
                   const char  *name,
                   gsize        offset)
{
  json_builder_set_member_name (builder, name);
  json_builder_begin_array (builder);
  for (guint i = 0; i < buckets->len; i++)
    {
      const char *bucket = (const char *) &g_array_index (buckets, CsBucket, i);

      add_double_or_null (builder, *(const double *) (gconstpointer) (bucket + offset));
    }
  json_builder_end_array (builder);
}

/* Called with the lock held. Columns like the samples': "t" where each ends,
 * "t_start", "n", the counts at the end, each counter's mean under its key
 * and its extremes under "<key>_min" and "<key>_max". */
static void
build_buckets (JsonBuilder *builder,
               CsRun       *run)
{
  GArray *buckets = run->buckets;

  json_builder_set_member_name (builder, "buckets");
  json_builder_begin_object (builder);
  add_member_double (builder, "width", run->bucket_width);
  add_bucket_column (builder, buckets, "t", G_STRUCT_OFFSET (CsBucket, sample.t));
  add_bucket_column (builder, buckets, "t_start", G_STRUCT_OFFSET (CsBucket, t_start));

  json_builder_set_member_name (builder, "n");
  json_builder_begin_array (builder);
  for (guint i = 0; i < buckets->len; i++)
    json_builder_add_int_value (builder, g_array_index (buckets, CsBucket, i).n);
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "files_done");
  json_builder_begin_array (builder);
  for (guint i = 0; i < buckets->len; i++)
    json_builder_add_int_value (builder, clamp_u64 (g_array_index (buckets, CsBucket, i).sample.files_done));
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "bytes_done");
  json_builder_begin_array (builder);
  for (guint i = 0; i < buckets->len; i++)
    json_builder_add_int_value (builder, clamp_u64 (g_array_index (buckets, CsBucket, i).sample.bytes_done));
  json_builder_end_array (builder);

  for (guint c = 0; c < CS_N_COUNTERS; c++)
    {
      const char *key = cs_counter_get_info (c)->key;
      g_autofree char *min = g_strconcat (key, "_min", NULL);
      g_autofree char *max = g_strconcat (key, "_max", NULL);

      add_bucket_column (builder, buckets, key,
                         G_STRUCT_OFFSET (CsBucket, sample.values) + c * sizeof (double));
      add_bucket_column (builder, buckets, min, G_STRUCT_OFFSET (CsBucket, min) + c * sizeof (double));
      add_bucket_column (builder, buckets, max, G_STRUCT_OFFSET (CsBucket, max) + c * sizeof (double));
    }

  json_builder_end_object (builder);
}


/* @header: without samples and errors, what a list of runs shows. */
static JsonNode *
run_to_json (CsRun    *run,
             gboolean  header)
{
  g_autoptr(JsonBuilder) builder = NULL;
  g_autoptr(CsMutexLocker) locker = NULL;
  g_autofree char *started = NULL;
  g_autofree char *destination_raw = NULL;
  CsStat stats[CS_N_COUNTERS];
  gboolean have_stat[CS_N_COUNTERS];
  gboolean any_raw = FALSE;
  CsFigures figures;

  g_return_val_if_fail (run != NULL, NULL);

  /* Statistics and figures take the lock themselves: compute them before taking it. */
  for (guint c = 0; c < CS_N_COUNTERS; c++)
    have_stat[c] = cs_run_get_stat (run, c, &stats[c]);
  cs_run_get_figures (run, &figures);

  builder = json_builder_new ();
  json_builder_begin_object (builder);
  add_member_int (builder, "schema_version", CS_RUN_SCHEMA_VERSION);

  locker = _cs_mutex_locker_new (&run->mutex);

  json_builder_set_member_name (builder, "id");
  json_builder_add_string_value (builder, run->id);
  add_string_or_null (builder, "kind", run->kind);
  add_string_or_null (builder, "label", run->label);

  started = format_iso8601 (run->started);
  add_string_or_null (builder, "started", started);
  add_member_int (builder, "started_usec", run->started);
  add_member_double (builder, "duration", run->duration);
  add_member_double (builder, "held", run->held);

  json_builder_set_member_name (builder, "sources");
  json_builder_begin_array (builder);
  for (guint i = 0; run->sources[i] != NULL; i++)
    {
      g_autofree char *display = g_filename_display_name (run->sources[i]);

      json_builder_add_string_value (builder, display);
      any_raw |= !g_utf8_validate (run->sources[i], -1, NULL);
    }
  json_builder_end_array (builder);
  if (any_raw)
    {
      json_builder_set_member_name (builder, "sources_raw");
      json_builder_begin_array (builder);
      for (guint i = 0; run->sources[i] != NULL; i++)
        {
          g_autofree char *raw = path_raw_or_null (run->sources[i]);

          if (raw != NULL)
            json_builder_add_string_value (builder, raw);
          else
            json_builder_add_null_value (builder);
        }
      json_builder_end_array (builder);
    }

  json_builder_set_member_name (builder, "destination");
  if (run->destination != NULL)
    {
      g_autofree char *display = g_filename_display_name (run->destination);

      json_builder_add_string_value (builder, display);
    }
  else
    {
      json_builder_add_null_value (builder);
    }
  destination_raw = path_raw_or_null (run->destination);
  if (destination_raw != NULL)
    {
      json_builder_set_member_name (builder, "destination_raw");
      json_builder_add_string_value (builder, destination_raw);
    }

  build_settings (builder, &run->settings);
  build_environment (builder, &run->environment);

  json_builder_set_member_name (builder, "totals");
  json_builder_begin_object (builder);
  for (guint k = 0; k < CS_N_CLASSES; k++)
    {
      json_builder_set_member_name (builder, cs_class_to_string (k));
      json_builder_begin_object (builder);
      for (guint j = 0; j < CS_N_KINDS; j++)
        add_member_int (builder, cs_kind_to_string (j), clamp_u64 (run->totals.v[k][j]));
      json_builder_end_object (builder);
    }
  {
    guint64 left[CS_N_KINDS];

    /* Derived, so the classes add up to the total for a reader; not read back. */
    _cs_run_not_copied (&run->totals, left);
    json_builder_set_member_name (builder, "not_copied");
    json_builder_begin_object (builder);
    for (guint j = 0; j < CS_N_KINDS; j++)
      add_member_int (builder, cs_kind_to_string (j), clamp_u64 (left[j]));
    json_builder_end_object (builder);
  }
  json_builder_end_object (builder);

  if (run->settings.operation != CS_OPERATION_COPY)
    {
      const CsRemovals *m = &run->removals;

      json_builder_set_member_name (builder, "removals");
      json_builder_begin_object (builder);
      add_member_int (builder, "moved_files", clamp_u64 (m->moved_files));
      add_member_int (builder, "moved_bytes", clamp_u64 (m->moved_bytes));
      add_member_int (builder, "moved_dirs", clamp_u64 (m->moved_dirs));
      add_member_int (builder, "kept_files", clamp_u64 (m->kept_files));
      add_member_int (builder, "deleted_files", clamp_u64 (m->deleted_files));
      add_member_int (builder, "deleted_dirs", clamp_u64 (m->deleted_dirs));
      add_member_int (builder, "deleted_bytes", clamp_u64 (m->deleted_bytes));
      add_member_int (builder, "not_deleted", clamp_u64 (m->not_deleted));
      json_builder_end_object (builder);
    }

  if (run->skips_known)
    {
      json_builder_set_member_name (builder, "skips");
      json_builder_begin_object (builder);
      add_member_int (builder, "identical_files", clamp_u64 (run->skips.identical_files));
      add_member_int (builder, "identical_bytes", clamp_u64 (run->skips.identical_bytes));
      add_member_int (builder, "chosen_files", clamp_u64 (run->skips.chosen_files));
      add_member_int (builder, "chosen_bytes", clamp_u64 (run->skips.chosen_bytes));
      json_builder_end_object (builder);
    }

  if (run->manifest.path != NULL)
    {
      g_autofree char *display = g_filename_display_name (run->manifest.path);
      g_autofree char *raw = path_raw_or_null (run->manifest.path);

      json_builder_set_member_name (builder, "manifest");
      json_builder_begin_object (builder);
      add_string_or_null (builder, "path", display);
      if (raw != NULL)
        add_string_or_null (builder, "path_raw", raw);
      add_string_or_null (builder, "algo", run->manifest.algo);
      add_member_int (builder, "files", clamp_u64 (run->manifest.files));
      add_member_int (builder, "from_copy", clamp_u64 (run->manifest.from_copy));
      add_member_int (builder, "read_copied", clamp_u64 (run->manifest.read_copied));
      add_member_int (builder, "read_kept", clamp_u64 (run->manifest.read_kept));
      add_member_int (builder, "bytes_read", clamp_u64 (run->manifest.bytes_read));
      json_builder_end_object (builder);
    }

  add_string_or_null (builder, "outcome", run->outcome);
  add_string_or_null (builder, "fatal_error", run->fatal_error);

  json_builder_set_member_name (builder, "thread_timeline");
  json_builder_begin_array (builder);
  for (guint i = 0; i < run->timeline->len; i++)
    {
      const CsThreadChange *change = &g_array_index (run->timeline, CsThreadChange, i);

      json_builder_begin_object (builder);
      add_member_double (builder, "t", change->t);
      add_member_int (builder, "from", change->from);
      add_member_int (builder, "to", change->to);
      add_string_or_null (builder, "reason", change->reason);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "events");
  json_builder_begin_array (builder);
  for (guint i = 0; i < run->events->len; i++)
    {
      const CsRunEvent *event = &g_array_index (run->events, CsRunEvent, i);

      json_builder_begin_object (builder);
      add_member_double (builder, "t", event->t);
      add_string_or_null (builder, "kind", event->kind);
      add_member_double (builder, "value", event->value);
      if (event->size > 0)
        add_member_int (builder, "size", clamp_u64 (event->size));
      if (event->checked > 0)
        add_member_int (builder, "checked", clamp_u64 (event->checked));
      if (event->path != NULL)
        add_string_or_null (builder, "path", event->path);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  /* Written only when some were left out, as records before the cap have none. */
  if (run->events_omitted > 0)
    add_member_int (builder, "events_omitted", clamp_u64 (run->events_omitted));

  json_builder_set_member_name (builder, "errors");
  json_builder_begin_array (builder);
  for (guint i = 0; !header && i < run->errors->len; i++)
    {
      const CsRunError *error = g_ptr_array_index (run->errors, i);

      json_builder_begin_object (builder);
      add_string_or_null (builder, "path", error->path);
      if (error->path_raw != NULL)
        add_string_or_null (builder, "path_raw", error->path_raw);
      add_string_or_null (builder, "operation", error->operation);
      add_member_int (builder, "error_code", error->error_code);
      add_string_or_null (builder, "message", error->message);
      add_member_int (builder, "attempts", error->attempts);
      add_member_bool (builder, "note", error->note);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  add_member_int (builder, "errors_omitted", clamp_u64 (run->errors_omitted));

  /* What the figures of the run are (cs-figures.h), for readers of the file
   * alone; derived from the rest, so the reader does not read them back, and
   * a header, read only by us, goes without them. */
  if (!header)
    {
      json_builder_set_member_name (builder, "figures");
      json_builder_begin_object (builder);
      add_member_double (builder, "duration", figures.duration);
      add_member_double (builder, "held", figures.held);
      add_member_int (builder, "files", clamp_u64 (figures.files));
      add_member_int (builder, "bytes", clamp_u64 (figures.bytes));
      add_member_double (builder, "mb_per_second", figures.speed);
      add_member_double (builder, "files_per_second", figures.file_rate);
      add_member_int (builder, "threads", figures.threads);
      add_member_int (builder, "threads_min", figures.threads_min);
      add_member_int (builder, "threads_max", figures.threads_max);
      add_member_double (builder, "threads_mean", figures.threads_mean);
      json_builder_end_object (builder);
    }

  json_builder_set_member_name (builder, "stats");
  json_builder_begin_object (builder);
  for (guint c = 0; c < CS_N_COUNTERS; c++)
    {
      const CsCounterInfo *info = cs_counter_get_info (c);

      if (!have_stat[c])
        continue;

      json_builder_set_member_name (builder, info->key);
      json_builder_begin_object (builder);
      add_member_double (builder, "avg", stats[c].avg);
      add_member_double (builder, "min", stats[c].min);
      add_member_double (builder, "max", stats[c].max);
      /* What the statistics continue from when read back: avg is sum / n. */
      add_member_int (builder, "n", clamp_u64 (_cs_run_stat_count_locked (run, c)));
      add_member_double (builder, "sum", _cs_run_stat_sum_locked (run, c));
      if (header)
        {
          json_builder_end_object (builder);
          continue;
        }
      json_builder_set_member_name (builder, "direction");
      json_builder_add_string_value (builder,
                                     info->direction == CS_DIRECTION_MORE_IS_BETTER ? "more" :
                                     info->direction == CS_DIRECTION_LESS_IS_BETTER ? "less" : "none");
      json_builder_set_member_name (builder, "unit");
      json_builder_add_string_value (builder, info->unit);
      json_builder_end_object (builder);
    }
  json_builder_end_object (builder);

  if (header)
    {
      /* The samples' columns, empty, so the record's reader takes it. */
      json_builder_set_member_name (builder, "samples");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "t");
      json_builder_begin_array (builder);
      json_builder_end_array (builder);
      json_builder_set_member_name (builder, "files_done");
      json_builder_begin_array (builder);
      json_builder_end_array (builder);
      json_builder_set_member_name (builder, "bytes_done");
      json_builder_begin_array (builder);
      json_builder_end_array (builder);
      json_builder_end_object (builder);
      add_member_bool (builder, "header", TRUE);
      add_member_int (builder, "n_errors", run->n_errors);
      add_member_int (builder, "n_notes", run->n_notes);
      add_member_int (builder, "n_samples", _cs_run_n_samples_locked (run));
    }
  else
    {
      build_samples (builder, run);
      build_buckets (builder, run);
      _cs_run_build_phases (builder, run);
    }

  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

JsonNode *
cs_run_to_json (CsRun *run)
{
  g_return_val_if_fail (run != NULL, NULL);

  return run_to_json (run, FALSE);
}

JsonNode *
cs_run_to_header_json (CsRun *run)
{
  g_return_val_if_fail (run != NULL, NULL);

  return run_to_json (run, TRUE);
}


char *
cs_run_to_json_string (CsRun    *run,
                       gboolean  pretty)
{
  g_autoptr(JsonNode) root = NULL;

  g_return_val_if_fail (run != NULL, NULL);

  root = cs_run_to_json (run);

  return cs_json_to_string (root, pretty);
}

gboolean
cs_run_save (CsRun       *run,
             const char  *path,
             GError     **error)
{
  g_autofree char *data = NULL;

  g_return_val_if_fail (run != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* A header in place of its record would lose the samples and errors. */
  if (run->header)
    {
      g_set_error_literal (error, CS_RUN_ERROR, CS_RUN_ERROR_INVALID,
                           "A run read from the history's index has no samples to save");
      return FALSE;
    }

  data = cs_run_to_json_string (run, TRUE);

  /* Written whole under a temporary name and renamed, like
   * g_file_set_contents(): flushed to disk only when it replaces a file. A
   * summary is a record of the copy, not the copy; the two flushes of a new
   * one took 3.5 ms of a 130 ms copy, and a power cut in the moment after a
   * run at worst leaves a file the history counts as unreadable. */
  return g_file_set_contents_full (path, data, -1,
                                   G_FILE_SET_CONTENTS_CONSISTENT |
                                   G_FILE_SET_CONTENTS_ONLY_EXISTING,
                                   0644, error);
}
