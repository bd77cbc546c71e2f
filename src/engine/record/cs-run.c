/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-run"

/*
 * CsRun, the record of one run: its names for the enums a record holds, its
 * lifetime and the getters. What fills it lives beside it (cs-run-internal.h
 * lists the files): the job's recording calls, the sample store, the JSON
 * writer and reader, and the history's summary.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "cs-run.h"
#include "cs-run-internal.h"
#include "cs-run-private.h"
#include "cs-tsan-private.h"

G_DEFINE_BOXED_TYPE (CsRun, cs_run, cs_run_ref, cs_run_unref)

G_DEFINE_QUARK (cs-run-error-quark, cs_run_error)

static const char * const class_names[CS_N_CLASSES] = {
  "total", "copied", "skipped", "mismatch", "failed", "extras",
};

static const char * const kind_names[CS_N_KINDS] = {
  "dirs", "files", "bytes",
};

static const char * const overwrite_names[] = {
  [CS_OVERWRITE_NEWER] = "newer",
  [CS_OVERWRITE_NEVER] = "never",
  [CS_OVERWRITE_ALWAYS] = "always",
  [CS_OVERWRITE_ASK] = "ask",
  [CS_OVERWRITE_DIFFERENT] = "different",
};

const char *
cs_overwrite_to_string (CsOverwrite overwrite)
{
  g_return_val_if_fail (overwrite <= CS_OVERWRITE_DIFFERENT, NULL);

  return overwrite_names[overwrite];
}

/* The index of @str in @names, for the enums a record names by strings. */
static gboolean
index_of_name (const char * const *names,
               guint               n_names,
               const char         *str,
               guint              *out_index)
{
  for (guint i = 0; i < n_names; i++)
    if (strcmp (names[i], str) == 0)
      {
        *out_index = i;
        return TRUE;
      }

  return FALSE;
}

gboolean
cs_overwrite_from_string (const char  *str,
                          CsOverwrite *out_overwrite)
{
  guint i;

  g_return_val_if_fail (str != NULL, FALSE);

  if (!index_of_name (overwrite_names, G_N_ELEMENTS (overwrite_names), str, &i))
    return FALSE;
  if (out_overwrite != NULL)
    *out_overwrite = (CsOverwrite) i;
  return TRUE;
}

static const char * const operation_names[] = {
  [CS_OPERATION_COPY] = "copy",
  [CS_OPERATION_MOVE] = "move",
  [CS_OPERATION_MIRROR] = "mirror",
};

const char *
cs_operation_to_string (CsOperation operation)
{
  g_return_val_if_fail (operation <= CS_OPERATION_MIRROR, NULL);

  return operation_names[operation];
}

gboolean
cs_operation_from_string (const char  *str,
                          CsOperation *out_operation)
{
  guint i;

  g_return_val_if_fail (str != NULL, FALSE);

  if (!index_of_name (operation_names, G_N_ELEMENTS (operation_names), str, &i))
    return FALSE;
  if (out_operation != NULL)
    *out_operation = (CsOperation) i;
  return TRUE;
}

const char *
cs_class_to_string (CsClass klass)
{
  g_return_val_if_fail (klass < CS_N_CLASSES, NULL);

  return class_names[klass];
}

const char *
cs_kind_to_string (CsKind kind)
{
  g_return_val_if_fail (kind < CS_N_KINDS, NULL);

  return kind_names[kind];
}

void
cs_run_error_clear (CsRunError *error)
{
  g_return_if_fail (error != NULL);

  g_clear_pointer (&error->path, g_free);
  g_clear_pointer (&error->path_raw, g_free);
  g_clear_pointer (&error->operation, g_free);
  g_clear_pointer (&error->message, g_free);
}

static void
run_error_free (gpointer data)
{
  CsRunError *error = data;

  cs_run_error_clear (error);
  g_free (error);
}

static CsRunError *
run_error_copy (const CsRunError *src)
{
  CsRunError *dest = g_new0 (CsRunError, 1);

  dest->path = g_strdup (src->path);
  dest->path_raw = g_strdup (src->path_raw);
  dest->operation = g_strdup (src->operation);
  dest->error_code = src->error_code;
  dest->message = g_strdup (src->message);
  dest->attempts = src->attempts;
  dest->note = src->note;

  return dest;
}

void
cs_thread_change_clear (CsThreadChange *change)
{
  g_return_if_fail (change != NULL);

  g_clear_pointer (&change->reason, g_free);
}

static void
thread_change_clear_func (gpointer data)
{
  cs_thread_change_clear (data);
}

void
cs_run_event_clear (CsRunEvent *event)
{
  g_return_if_fail (event != NULL);

  g_clear_pointer (&event->kind, g_free);
  g_clear_pointer (&event->path, g_free);
}

static void
event_clear_func (gpointer data)
{
  cs_run_event_clear (data);
}

static GArray *
events_new (void)
{
  GArray *events = g_array_new (FALSE, TRUE, sizeof (CsRunEvent));

  g_array_set_clear_func (events, event_clear_func);

  return events;
}

static GArray *
timeline_new (void)
{
  GArray *timeline = g_array_new (FALSE, TRUE, sizeof (CsThreadChange));

  g_array_set_clear_func (timeline, thread_change_clear_func);

  return timeline;
}

void
_cs_run_settings_copy (CsRunSettings       *dest,
                       const CsRunSettings *src)
{
  g_return_if_fail (dest != NULL);
  g_return_if_fail (src != NULL);

  *dest = *src;
  dest->excludes = g_strdupv (src->excludes);
}

void
_cs_run_settings_clear (CsRunSettings *settings)
{
  g_return_if_fail (settings != NULL);

  g_clear_pointer (&settings->excludes, g_strfreev);
}

void
_cs_run_environment_copy (CsRunEnvironment       *dest,
                          const CsRunEnvironment *src)
{
  g_return_if_fail (dest != NULL);
  g_return_if_fail (src != NULL);

  dest->kernel = g_strdup (src->kernel);
  dest->hostname = g_strdup (src->hostname);
  dest->cpus = src->cpus;
  dest->source_fs = g_strdup (src->source_fs);
  dest->destination_fs = g_strdup (src->destination_fs);
  dest->route = g_strdup (src->route);
  dest->cache_mode = g_strdup (src->cache_mode);
  dest->tool_version = g_strdup (src->tool_version);
}

void
_cs_run_environment_clear (CsRunEnvironment *environment)
{
  g_return_if_fail (environment != NULL);

  g_clear_pointer (&environment->kernel, g_free);
  g_clear_pointer (&environment->hostname, g_free);
  g_clear_pointer (&environment->source_fs, g_free);
  g_clear_pointer (&environment->destination_fs, g_free);
  g_clear_pointer (&environment->route, g_free);
  g_clear_pointer (&environment->cache_mode, g_free);
  g_clear_pointer (&environment->tool_version, g_free);
}

CsRun *
cs_run_new (void)
{
  CsRun *run = g_new0 (CsRun, 1);

  g_atomic_ref_count_init (&run->ref_count);
  g_mutex_init (&run->mutex);
  run->id = g_uuid_string_random ();
  run->kind = g_intern_static_string ("copy");
  run->outcome = g_intern_static_string ("running");
  run->sources = g_new0 (char *, 1);
  run->settings.overwrite = CS_OVERWRITE_NEWER;
  run->recent = g_array_new (FALSE, FALSE, sizeof (CsSample));
  run->buckets = g_array_new (FALSE, FALSE, sizeof (CsBucket));
  run->bucket_width = FIRST_BUCKET_WIDTH;
  for (guint c = 0; c < CS_N_COUNTERS; c++)
    run->sums[c] = (StatSum) { 0, 0, INFINITY, -INFINITY };
  run->timeline = timeline_new ();
  run->events = events_new ();
  run->errors = g_ptr_array_new_with_free_func (run_error_free);

  return run;
}

CsRun *
cs_run_ref (CsRun *run)
{
  g_return_val_if_fail (run != NULL, NULL);

  g_atomic_ref_count_inc (&run->ref_count);

  return run;
}

void
cs_run_unref (CsRun *run)
{
  g_return_if_fail (run != NULL);

  if (!g_atomic_ref_count_dec (&run->ref_count))
    return;

  g_free (run->id);
  g_free (run->label);
  g_strfreev (run->sources);
  g_free (run->destination);
  _cs_run_settings_clear (&run->settings);
  _cs_run_environment_clear (&run->environment);
  g_free (run->fatal_error);
  g_free ((char *) run->manifest.path);
  g_free ((char *) run->manifest.algo);
  g_array_unref (run->recent);
  g_array_unref (run->buckets);
  g_array_unref (run->timeline);
  g_array_unref (run->events);
  g_ptr_array_unref (run->errors);
  _cs_run_phases_free (run);
  g_mutex_clear (&run->mutex);
  g_free (run);
}

/* Getters. Strings handed out as const are set before the job starts (sources,
 * destination, settings, environment) or interned (kind, outcome), so a pointer
 * read on one thread stays valid while another thread records. */

const char *
cs_run_get_id (CsRun *run)
{
  g_return_val_if_fail (run != NULL, NULL);

  return run->id;
}

char *
cs_run_dup_label (CsRun *run)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_val_if_fail (run != NULL, NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  return g_strdup (run->label);
}

void
cs_run_set_label (CsRun      *run,
                  const char *label)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  g_free (run->label);
  /* The label ends up in JSON, HTML and CSV, all of which need UTF-8. */
  run->label = (label != NULL && label[0] != '\0') ? g_utf8_make_valid (label, -1) : NULL;
}

const char *
cs_run_get_kind (CsRun *run)
{
  g_return_val_if_fail (run != NULL, NULL);

  return g_atomic_pointer_get (&run->kind);
}

gint64
cs_run_get_started (CsRun *run)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_val_if_fail (run != NULL, 0);

  locker = _cs_mutex_locker_new (&run->mutex);
  return run->started;
}

double
cs_run_get_duration (CsRun *run)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_val_if_fail (run != NULL, 0);

  locker = _cs_mutex_locker_new (&run->mutex);
  return run->duration;
}

double
cs_run_get_held (CsRun *run)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_val_if_fail (run != NULL, 0);

  locker = _cs_mutex_locker_new (&run->mutex);
  return run->held;
}

const char * const *
cs_run_get_sources (CsRun *run)
{
  g_return_val_if_fail (run != NULL, NULL);

  return (const char * const *) run->sources;
}

const char *
cs_run_get_destination (CsRun *run)
{
  g_return_val_if_fail (run != NULL, NULL);

  return run->destination;
}

const CsRunSettings *
cs_run_get_settings (CsRun *run)
{
  g_return_val_if_fail (run != NULL, NULL);

  return &run->settings;
}

const CsRunEnvironment *
cs_run_get_environment (CsRun *run)
{
  g_return_val_if_fail (run != NULL, NULL);

  return &run->environment;
}

void
cs_run_get_totals (CsRun    *run,
                   CsTotals *out_totals)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);
  g_return_if_fail (out_totals != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  *out_totals = run->totals;
}

/* The thread count over a run's clock: @start until the first change, each
 * change's count from its time on, to @duration. The Threads counter's
 * statistics are these too, so a run has one thread figure. */
void
_cs_run_threads_over_time (guint                 start,
                           const CsThreadChange *changes,
                           guint                 n_changes,
                           double                duration,
                           guint                *out_min,
                           guint                *out_max,
                           double               *out_mean)
{
  double weighted = 0, last_t = 0;
  guint count = start, min = start, max = start;

  /* Each count weighs as long as it lasted on the clock. */
  for (guint i = 0; i < n_changes; i++)
    {
      double t = CLAMP (changes[i].t, last_t, MAX (duration, last_t));

      weighted += count * (t - last_t);
      last_t = t;
      count = changes[i].to;
      min = MIN (min, count);
      max = MAX (max, count);
    }
  weighted += count * MAX (duration - last_t, 0);

  *out_min = min;
  *out_max = max;
  *out_mean = duration > 0 ? weighted / duration : start;
}

void
cs_run_get_figures (CsRun     *run,
                    CsFigures *figures)
{
  g_autoptr(GArray) timeline = NULL;
  CsTotals totals;

  g_return_if_fail (run != NULL);
  g_return_if_fail (figures != NULL);

  cs_run_get_totals (run, &totals);
  figures->duration = cs_run_get_duration (run);
  figures->held = cs_run_get_held (run);
  figures->files = totals.v[CS_CLASS_COPIED][CS_KIND_FILES];
  figures->bytes = totals.v[CS_CLASS_COPIED][CS_KIND_BYTES];
  figures->speed = figures->duration > 0 ? (double) figures->bytes / 1e6 / figures->duration : 0;
  figures->file_rate = figures->duration > 0 ? (double) figures->files / figures->duration : 0;

  figures->threads = cs_run_get_settings (run)->threads;
  timeline = cs_run_dup_timeline (run);
  _cs_run_threads_over_time (figures->threads, (const CsThreadChange *) (gpointer) timeline->data,
                             timeline->len, figures->duration, &figures->threads_min,
                             &figures->threads_max, &figures->threads_mean);
}

void
_cs_run_not_copied (const CsTotals *totals,
                    guint64         out[CS_N_KINDS])
{
  for (guint k = 0; k < CS_N_KINDS; k++)
    {
      guint64 left = totals->v[CS_CLASS_TOTAL][k];

      for (guint c = CS_CLASS_COPIED; c <= CS_CLASS_FAILED; c++)
        left -= MIN (left, totals->v[c][k]);
      out[k] = left;
    }
}

void
cs_run_get_not_copied (CsRun   *run,
                       guint64  out[CS_N_KINDS])
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);
  g_return_if_fail (out != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  _cs_run_not_copied (&run->totals, out);
}

void
cs_run_get_removals (CsRun      *run,
                     CsRemovals *out_removals)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);
  g_return_if_fail (out_removals != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  *out_removals = run->removals;
}

gboolean
cs_run_get_skips (CsRun   *run,
                  CsSkips *out_skips)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_val_if_fail (run != NULL, FALSE);
  g_return_val_if_fail (out_skips != NULL, FALSE);

  locker = _cs_mutex_locker_new (&run->mutex);
  *out_skips = run->skips;
  return run->skips_known;
}

const char *
cs_run_get_outcome (CsRun *run)
{
  g_return_val_if_fail (run != NULL, NULL);

  return g_atomic_pointer_get (&run->outcome);
}

const char *
cs_run_get_fatal_error (CsRun *run)
{
  g_return_val_if_fail (run != NULL, NULL);

  return run->fatal_error;
}

GArray *
cs_run_dup_timeline (CsRun *run)
{
  g_autoptr(CsMutexLocker) locker = NULL;
  GArray *copy;

  g_return_val_if_fail (run != NULL, NULL);

  copy = timeline_new ();
  locker = _cs_mutex_locker_new (&run->mutex);
  for (guint i = 0; i < run->timeline->len; i++)
    {
      CsThreadChange change = g_array_index (run->timeline, CsThreadChange, i);

      change.reason = g_strdup (change.reason);
      g_array_append_val (copy, change);
    }

  return copy;
}

GArray *
cs_run_dup_events (CsRun *run)
{
  g_autoptr(CsMutexLocker) locker = NULL;
  GArray *copy;

  g_return_val_if_fail (run != NULL, NULL);

  copy = events_new ();
  locker = _cs_mutex_locker_new (&run->mutex);
  for (guint i = 0; i < run->events->len; i++)
    {
      CsRunEvent event = g_array_index (run->events, CsRunEvent, i);

      event.kind = g_strdup (event.kind);
      event.path = g_strdup (event.path);
      g_array_append_val (copy, event);
    }

  return copy;
}

GPtrArray *
cs_run_dup_errors (CsRun *run)
{
  g_autoptr(CsMutexLocker) locker = NULL;
  GPtrArray *copy;

  g_return_val_if_fail (run != NULL, NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  copy = g_ptr_array_new_full (run->errors->len, run_error_free);
  for (guint i = 0; i < run->errors->len; i++)
    g_ptr_array_add (copy, run_error_copy (g_ptr_array_index (run->errors, i)));

  return copy;
}

guint
cs_run_get_n_events (CsRun *run)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_val_if_fail (run != NULL, 0);

  locker = _cs_mutex_locker_new (&run->mutex);
  return run->events->len;
}

guint
cs_run_get_n_errors (CsRun *run)
{
  g_return_val_if_fail (run != NULL, 0);

  /* Without the lock: the window asks at every update, and a worker at nice
   * 19 holding it while reporting must not make the window wait. */
  return __atomic_load_n (&run->n_errors, __ATOMIC_RELAXED);
}

guint
cs_run_get_n_notes (CsRun *run)
{
  g_return_val_if_fail (run != NULL, 0);

  return __atomic_load_n (&run->n_notes, __ATOMIC_RELAXED);
}

gboolean
cs_run_get_manifest (CsRun         *run,
                     CsRunManifest *out_manifest)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_val_if_fail (run != NULL, FALSE);
  g_return_val_if_fail (out_manifest != NULL, FALSE);

  locker = _cs_mutex_locker_new (&run->mutex);
  *out_manifest = run->manifest;
  return run->manifest.path != NULL;
}


gboolean
cs_run_is_header (CsRun *run)
{
  g_return_val_if_fail (run != NULL, FALSE);

  return run->header;
}


/* The algorithms a checksum list has (cs-manifest.h), which the record
 * names: the interned name, or NULL for another. */
const char *
_cs_run_manifest_algo_known (const char *algo)
{
  if (g_strcmp0 (algo, "xxh128") == 0)
    return "xxh128";
  if (g_strcmp0 (algo, "sha256") == 0)
    return "sha256";
  return NULL;
}


gboolean
_cs_run_outcome_is_known (const char *outcome)
{
  static const char * const known[] = { "completed", "cancelled", "failed", "running" };

  for (guint i = 0; i < G_N_ELEMENTS (known); i++)
    if (strcmp (outcome, known[i]) == 0)
      return TRUE;

  return FALSE;
}
