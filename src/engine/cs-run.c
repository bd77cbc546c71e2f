/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-run"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "cs-figures.h"
#include "cs-json-io.h"
#include "cs-run.h"
#include "cs-run-private.h"
#include "cs-tsan-private.h"

/* A run file this big is not something we wrote: refuse it before parsing. */
#define MAX_FILE_SIZE     ((gsize) 256 * 1024 * 1024)
/* The parser builds the whole tree; bounding the number of values bounds memory. */
#define MAX_JSON_VALUES   (32 * 1000 * 1000)
#define MAX_JSON_DEPTH    32
#define MAX_SAMPLES       (10 * 1000 * 1000)
#define MAX_COUNT         1e15
#define MAX_BYTES         1e18
#define MAX_DURATION      (10.0 * 365.25 * 24 * 3600)
#define MAX_COUNTER_VALUE 1e15
#define MAX_THREADS       100000
/* 1970 … 2200: a start time outside this range is a corrupt file. */
#define MAX_STARTED_USEC  G_GINT64_CONSTANT (7258118400000000)

struct _CsRun
{
  gatomicrefcount   ref_count;
  GMutex            mutex;

  char             *id;
  const char       *kind;         /* interned */
  char             *label;
  gint64            started;
  double            duration;
  double            held;         /* seconds the clock stood still */
  char            **sources;
  char             *destination;
  CsRunSettings     settings;
  CsRunEnvironment  environment;
  CsTotals          totals;
  CsRemovals        removals;
  const char       *outcome;      /* interned */
  char             *fatal_error;
  GArray           *samples;      /* of CsSample */
  GArray           *timeline;     /* of CsThreadChange */
  GArray           *events;       /* of CsRunEvent */
  GPtrArray        *errors;       /* of CsRunError */
  guint             n_errors;     /* its length, read without the lock */
  guint64           errors_omitted;
};

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
};

const char *
cs_overwrite_to_string (CsOverwrite overwrite)
{
  g_return_val_if_fail (overwrite <= CS_OVERWRITE_ASK, NULL);

  return overwrite_names[overwrite];
}

gboolean
cs_overwrite_from_string (const char  *str,
                          CsOverwrite *out_overwrite)
{
  g_return_val_if_fail (str != NULL, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (overwrite_names); i++)
    {
      if (strcmp (overwrite_names[i], str) == 0)
        {
          if (out_overwrite != NULL)
            *out_overwrite = (CsOverwrite) i;
          return TRUE;
        }
    }

  return FALSE;
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
  g_return_val_if_fail (str != NULL, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (operation_names); i++)
    if (strcmp (operation_names[i], str) == 0)
      {
        if (out_operation != NULL)
          *out_operation = (CsOperation) i;
        return TRUE;
      }

  return FALSE;
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
  run->samples = g_array_new (FALSE, FALSE, sizeof (CsSample));
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
  g_array_unref (run->samples);
  g_array_unref (run->timeline);
  g_array_unref (run->events);
  g_ptr_array_unref (run->errors);
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

static void
not_copied (const CsTotals *totals,
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
  not_copied (&run->totals, out);
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

CsSample *
cs_run_dup_samples (CsRun *run,
                    guint *n_samples)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_val_if_fail (run != NULL, NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  if (n_samples != NULL)
    *n_samples = run->samples->len;
  if (run->samples->len == 0)
    return NULL;

  return g_memdup2 (run->samples->data, (gsize) run->samples->len * sizeof (CsSample));
}

guint
cs_run_get_n_samples (CsRun *run)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_val_if_fail (run != NULL, 0);

  locker = _cs_mutex_locker_new (&run->mutex);
  return run->samples->len;
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
cs_run_get_n_errors (CsRun *run)
{
  g_return_val_if_fail (run != NULL, 0);

  /* Without the lock: the window asks at every update, and a worker at nice
   * 19 holding it while reporting must not make the window wait. */
  return __atomic_load_n (&run->n_errors, __ATOMIC_RELAXED);
}

gboolean
cs_run_get_stat (CsRun     *run,
                 CsCounter  counter,
                 CsStat    *out_stat)
{
  g_autoptr(CsMutexLocker) locker = NULL;
  double sum = 0, min = INFINITY, max = -INFINITY;
  guint n = 0;

  g_return_val_if_fail (run != NULL, FALSE);
  g_return_val_if_fail (counter < CS_N_COUNTERS, FALSE);

  locker = _cs_mutex_locker_new (&run->mutex);

  /* A count, whose figure is its mean over the clock's time (cs-figures.h). */
  if (counter == CS_COUNTER_THREADS && run->samples->len > 0)
    {
      double until = run->duration > 0
                     ? run->duration : g_array_index (run->samples, CsSample, run->samples->len - 1).t;
      guint min, max;
      double mean;

      cs_figures_threads_over_time (run->settings.threads,
                                    (const CsThreadChange *) (gpointer) run->timeline->data,
                                    run->timeline->len, until, &min, &max, &mean);
      if (out_stat != NULL)
        {
          out_stat->avg = mean;
          out_stat->min = min;
          out_stat->max = max;
        }
      return TRUE;
    }

  for (guint i = 0; i < run->samples->len; i++)
    {
      double v = g_array_index (run->samples, CsSample, i).values[counter];

      /* NaN marks "no data in this interval" (no reads: no read latency). */
      if (isnan (v))
        continue;

      sum += v;
      min = MIN (min, v);
      max = MAX (max, v);
      n++;
    }

  if (n == 0)
    return FALSE;

  if (out_stat != NULL)
    {
      out_stat->avg = sum / n;
      out_stat->min = min;
      out_stat->max = max;
    }

  return TRUE;
}

/* Recording, from any thread. */

void
_cs_run_set_kind (CsRun      *run,
                  const char *kind)
{
  g_return_if_fail (run != NULL);
  g_return_if_fail (kind != NULL);

  g_atomic_pointer_set (&run->kind, g_intern_string (kind));
}

void
_cs_run_set_sources (CsRun              *run,
                     const char * const *sources)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  g_strfreev (run->sources);
  run->sources = sources != NULL ? g_strdupv ((char **) sources) : g_new0 (char *, 1);
}

void
_cs_run_set_destination (CsRun      *run,
                         const char *destination)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  g_free (run->destination);
  run->destination = g_strdup (destination);
}

void
_cs_run_set_settings (CsRun               *run,
                      const CsRunSettings *settings)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);
  g_return_if_fail (settings != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  _cs_run_settings_clear (&run->settings);
  _cs_run_settings_copy (&run->settings, settings);
}

void
_cs_run_set_environment (CsRun                  *run,
                         const CsRunEnvironment *environment)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);
  g_return_if_fail (environment != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  _cs_run_environment_clear (&run->environment);
  _cs_run_environment_copy (&run->environment, environment);
}

void
_cs_run_set_started (CsRun  *run,
                     gint64  unix_usec)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  run->started = unix_usec;
}

void
_cs_run_set_duration (CsRun  *run,
                      double  seconds)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  run->duration = seconds;
}

void
_cs_run_set_held (CsRun  *run,
                  double  seconds)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  run->held = MAX (seconds, 0);
}

void
_cs_run_replace_last_sample (CsRun          *run,
                             const CsSample *sample)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);
  g_return_if_fail (sample != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  if (run->samples->len == 0)
    g_array_append_vals (run->samples, sample, 1);
  else
    g_array_index (run->samples, CsSample, run->samples->len - 1) = *sample;
}

void
_cs_run_add_sample (CsRun          *run,
                    const CsSample *sample)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);
  g_return_if_fail (sample != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  g_array_append_vals (run->samples, sample, 1);
}

void
_cs_run_add_thread_change (CsRun      *run,
                           double      t,
                           guint       from,
                           guint       to,
                           const char *reason)
{
  g_autoptr(CsMutexLocker) locker = NULL;
  CsThreadChange change = { t, from, to, NULL };

  g_return_if_fail (run != NULL);

  change.reason = reason != NULL ? g_utf8_make_valid (reason, -1) : NULL;
  locker = _cs_mutex_locker_new (&run->mutex);
  g_array_append_val (run->timeline, change);
}

/* A path as UTF-8 that still tells it apart: bytes that are not UTF-8 as
 * "\xHH" rather than one U+FFFD for all (two names differing in one such
 * byte read alike otherwise). The exact bytes go beside it, in path_raw. */
static char *
display_exact (const char *path)
{
  GString *out;
  const char *p = path;

  if (g_utf8_validate (path, -1, NULL))
    return g_strdup (path);
  out = g_string_new (NULL);
  while (*p != '\0')
    {
      gunichar c = g_utf8_get_char_validated (p, -1);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          g_string_append_printf (out, "\\x%02x", (guchar) *p++);
          continue;
        }
      g_string_append_unichar (out, c);
      p = g_utf8_next_char (p);
    }
  return g_string_free (out, FALSE);
}

void
_cs_run_add_event (CsRun            *run,
                   const CsRunEvent *event)
{
  g_autoptr(CsMutexLocker) locker = NULL;
  CsRunEvent copy;

  g_return_if_fail (run != NULL);
  g_return_if_fail (event != NULL && event->kind != NULL);

  copy = *event;
  copy.kind = g_strdup (event->kind);
  copy.path = event->path != NULL ? g_filename_display_name (event->path) : NULL;
  locker = _cs_mutex_locker_new (&run->mutex);
  g_array_append_val (run->events, copy);
}

void
_cs_run_add_error (CsRun      *run,
                   const char *path,
                   const char *operation,
                   int         error_code,
                   const char *message,
                   guint       attempts)
{
  g_autoptr(CsMutexLocker) locker = NULL;
  CsRunError *error;

  g_return_if_fail (run != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  if (run->errors->len >= CS_RUN_MAX_ERRORS)
    {
      run->errors_omitted++;
      return;
    }

  error = g_new0 (CsRunError, 1);
  if (path != NULL)
    {
      error->path = display_exact (path);
      if (!g_utf8_validate (path, -1, NULL))
        error->path_raw = g_base64_encode ((const guchar *) path, strlen (path));
    }
  error->operation = operation != NULL ? g_utf8_make_valid (operation, -1) : NULL;
  error->error_code = error_code;
  error->message = message != NULL ? g_utf8_make_valid (message, -1) : NULL;
  error->attempts = attempts;
  g_ptr_array_add (run->errors, error);
  __atomic_store_n (&run->n_errors, run->errors->len, __ATOMIC_RELAXED);
}

void
_cs_run_set_totals (CsRun          *run,
                    const CsTotals *totals)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);
  g_return_if_fail (totals != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  run->totals = *totals;
}

void
_cs_run_set_removals (CsRun            *run,
                      const CsRemovals *removals)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);
  g_return_if_fail (removals != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  run->removals = *removals;
}

void
_cs_run_set_outcome (CsRun      *run,
                     const char *outcome,
                     const char *fatal_error)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);
  g_return_if_fail (outcome != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  g_atomic_pointer_set (&run->outcome, g_intern_string (outcome));
  /* Set once when the job ends; readers of the old pointer are not expected. */
  g_free (run->fatal_error);
  run->fatal_error = fatal_error != NULL ? g_utf8_make_valid (fatal_error, -1) : NULL;
}

/* Writing JSON. A path that is not valid UTF-8 is written as its display form
 * plus the exact bytes in base64, since JSON strings must be UTF-8. */

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
  json_builder_add_string_value (builder, s->overwrite <= CS_OVERWRITE_ASK
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
  add_string_or_null (builder, "cache_mode", e->cache_mode);
  add_string_or_null (builder, "tool_version", e->tool_version);
  json_builder_end_object (builder);
}

/* Called with the lock held. */
static void
build_samples (JsonBuilder *builder,
               GArray      *samples)
{
  json_builder_set_member_name (builder, "samples");
  json_builder_begin_object (builder);

  json_builder_set_member_name (builder, "t");
  json_builder_begin_array (builder);
  for (guint i = 0; i < samples->len; i++)
    add_double_or_null (builder, g_array_index (samples, CsSample, i).t);
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "files_done");
  json_builder_begin_array (builder);
  for (guint i = 0; i < samples->len; i++)
    json_builder_add_int_value (builder, clamp_u64 (g_array_index (samples, CsSample, i).files_done));
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "bytes_done");
  json_builder_begin_array (builder);
  for (guint i = 0; i < samples->len; i++)
    json_builder_add_int_value (builder, clamp_u64 (g_array_index (samples, CsSample, i).bytes_done));
  json_builder_end_array (builder);

  for (guint c = 0; c < CS_N_COUNTERS; c++)
    {
      json_builder_set_member_name (builder, cs_counter_get_info (c)->key);
      json_builder_begin_array (builder);
      for (guint i = 0; i < samples->len; i++)
        add_double_or_null (builder, g_array_index (samples, CsSample, i).values[c]);
      json_builder_end_array (builder);
    }

  json_builder_end_object (builder);
}

JsonNode *
cs_run_to_json (CsRun *run)
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
  cs_figures_from_run (&figures, run);

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
      json_builder_set_member_name (builder, class_names[k]);
      json_builder_begin_object (builder);
      for (guint j = 0; j < CS_N_KINDS; j++)
        add_member_int (builder, kind_names[j], clamp_u64 (run->totals.v[k][j]));
      json_builder_end_object (builder);
    }
  {
    guint64 left[CS_N_KINDS];

    /* Derived, so the classes add up to the total for a reader; not read back. */
    not_copied (&run->totals, left);
    json_builder_set_member_name (builder, "not_copied");
    json_builder_begin_object (builder);
    for (guint j = 0; j < CS_N_KINDS; j++)
      add_member_int (builder, kind_names[j], clamp_u64 (left[j]));
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

  json_builder_set_member_name (builder, "errors");
  json_builder_begin_array (builder);
  for (guint i = 0; i < run->errors->len; i++)
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
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  add_member_int (builder, "errors_omitted", clamp_u64 (run->errors_omitted));

  /* What the figures of the run are (cs-figures.h), for readers of the file
   * alone; derived from the rest, so the reader does not read them back. */
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
      json_builder_set_member_name (builder, "direction");
      json_builder_add_string_value (builder,
                                     info->direction == CS_DIRECTION_MORE_IS_BETTER ? "more" :
                                     info->direction == CS_DIRECTION_LESS_IS_BETTER ? "less" : "none");
      json_builder_set_member_name (builder, "unit");
      json_builder_add_string_value (builder, info->unit);
      json_builder_end_object (builder);
    }
  json_builder_end_object (builder);

  build_samples (builder, run->samples);

  json_builder_end_object (builder);

  return json_builder_get_root (builder);
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

/* Reading JSON. Every field is checked for presence, type and range; the first
 * problem ends the import with a message naming the field. */

typedef struct {
  GError **error;
  gboolean failed;
} Reader;

G_GNUC_PRINTF (2, 3)
static void
reader_fail (Reader     *r,
             const char *format,
             ...)
{
  g_autofree char *message = NULL;
  va_list args;

  if (r->failed)
    return;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  r->failed = TRUE;
  g_set_error (r->error, CS_RUN_ERROR, CS_RUN_ERROR_INVALID,
               "Invalid run file: %s", message);
}

static void
fail_field (Reader     *r,
            const char *where,
            const char *name,
            const char *what)
{
  if (where[0] == '\0')
    reader_fail (r, "“%s” %s", name, what);
  else if (name[0] == '\0')
    reader_fail (r, "“%s” %s", where, what);
  else
    reader_fail (r, "“%s.%s” %s", where, name, what);
}

static JsonNode *
get_member (Reader     *r,
            JsonObject *object,
            const char *where,
            const char *name,
            gboolean    required)
{
  JsonNode *node;

  if (r->failed)
    return NULL;

  node = json_object_get_member (object, name);
  if (node == NULL && required)
    fail_field (r, where, name, "is missing");

  return node;
}

static JsonObject *
read_object (Reader     *r,
             JsonObject *object,
             const char *where,
             const char *name)
{
  JsonNode *node = get_member (r, object, where, name, TRUE);

  if (node == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      fail_field (r, where, name, "must be an object");
      return NULL;
    }

  return json_node_get_object (node);
}

static JsonArray *
read_array (Reader     *r,
            JsonObject *object,
            const char *where,
            const char *name,
            gboolean    required)
{
  JsonNode *node = get_member (r, object, where, name, required);

  if (node == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      fail_field (r, where, name, "must be an array");
      return NULL;
    }

  return json_node_get_array (node);
}

/* Returns a new string, or NULL for null (when allowed) and on failure. */
static char *
read_string_node (Reader     *r,
                  JsonNode   *node,
                  const char *where,
                  const char *name,
                  gboolean    nullable)
{
  if (r->failed)
    return NULL;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    {
      if (!nullable)
        fail_field (r, where, name, "must be a string");
      return NULL;
    }
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    {
      fail_field (r, where, name, "must be a string");
      return NULL;
    }

  return g_strdup (json_node_get_string (node));
}

static char *
read_string (Reader     *r,
             JsonObject *object,
             const char *where,
             const char *name,
             gboolean    nullable)
{
  JsonNode *node = get_member (r, object, where, name, TRUE);

  return read_string_node (r, node, where, name, nullable);
}

static gint64
read_int_node (Reader     *r,
               JsonNode   *node,
               const char *where,
               const char *name,
               gint64      min,
               double      max)
{
  gint64 value;

  if (r->failed || node == NULL)
    return 0;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64)
    {
      fail_field (r, where, name, "must be a whole number");
      return 0;
    }

  value = json_node_get_int (node);
  if (value < min || (double) value > max)
    {
      g_autofree char *what = g_strdup_printf ("is out of range (%" G_GINT64_FORMAT ")", value);

      fail_field (r, where, name, what);
      return 0;
    }

  return value;
}

static gint64
read_int (Reader     *r,
          JsonObject *object,
          const char *where,
          const char *name,
          gint64      min,
          double      max)
{
  JsonNode *node = get_member (r, object, where, name, TRUE);

  return read_int_node (r, node, where, name, min, max);
}

/* Numbers are accepted as integers or doubles; null reads as NaN when allowed. */
static double
read_double_node (Reader     *r,
                  JsonNode   *node,
                  const char *where,
                  const char *name,
                  double      min,
                  double      max,
                  gboolean    nullable)
{
  GType type;
  double value;

  if (r->failed || node == NULL)
    return NAN;
  if (nullable && JSON_NODE_HOLDS_NULL (node))
    return NAN;

  type = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_INVALID;
  if (type != G_TYPE_INT64 && type != G_TYPE_DOUBLE)
    {
      fail_field (r, where, name, "must be a number");
      return NAN;
    }

  value = json_node_get_double (node);
  if (!isfinite (value) || value < min || value > max)
    {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      g_autofree char *what = g_strdup_printf ("is out of range (%s)",
                                               g_ascii_dtostr (buf, sizeof buf, value));

      fail_field (r, where, name, what);
      return NAN;
    }

  return value;
}

static double
read_double (Reader     *r,
             JsonObject *object,
             const char *where,
             const char *name,
             double      min,
             double      max)
{
  JsonNode *node = get_member (r, object, where, name, TRUE);

  return read_double_node (r, node, where, name, min, max, FALSE);
}

static gboolean
read_bool (Reader     *r,
           JsonObject *object,
           const char *where,
           const char *name)
{
  JsonNode *node = get_member (r, object, where, name, TRUE);

  if (node == NULL)
    return FALSE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    {
      fail_field (r, where, name, "must be true or false");
      return FALSE;
    }

  return json_node_get_boolean (node);
}

/* A display path plus, optionally, its exact bytes in base64. Returns the
 * bytes to store (filename encoding). */
static char *
read_path (Reader     *r,
           JsonNode   *display_node,
           JsonNode   *raw_node,
           const char *where,
           gboolean    nullable)
{
  g_autofree char *display = read_string_node (r, display_node, where, "", nullable);
  g_autofree char *raw = NULL;
  g_autofree guchar *bytes = NULL;
  gsize len = 0;

  if (r->failed || raw_node == NULL || JSON_NODE_HOLDS_NULL (raw_node))
    return g_steal_pointer (&display);

  raw = read_string_node (r, raw_node, where, "(raw)", FALSE);
  if (raw == NULL)
    return NULL;

  bytes = g_base64_decode (raw, &len);
  if (len == 0 || memchr (bytes, '\0', len) != NULL)
    {
      reader_fail (r, "“%s” has an invalid raw path", where);
      return NULL;
    }

  return g_strndup ((const char *) bytes, len);
}

static void
read_settings (Reader        *r,
               JsonObject    *root,
               CsRunSettings *s)
{
  JsonObject *o = read_object (r, root, "", "settings");
  g_autofree char *overwrite = NULL;
  JsonArray *excludes;
  guint n;

  if (o == NULL)
    return;

  s->threads = read_int (r, o, "settings", "threads", 0, MAX_THREADS);
  overwrite = read_string (r, o, "settings", "overwrite", FALSE);
  if (overwrite != NULL && !cs_overwrite_from_string (overwrite, &s->overwrite))
    reader_fail (r, "“settings.overwrite” has an unknown value");
  s->verify = read_bool (r, o, "settings", "verify");
  s->durable = read_bool (r, o, "settings", "durable");
  s->flush = read_bool (r, o, "settings", "flush");
  s->dry_run = read_bool (r, o, "settings", "dry_run");
  s->retries = read_int (r, o, "settings", "retries", 0, 1000000);
  s->wait = read_double (r, o, "settings", "wait", 0, MAX_DURATION);
  s->interval_ms = read_int (r, o, "settings", "interval_ms", 0, 3600 * 1000);

  /* Written since jobs move and mirror; older records copied, unlimited. */
  if (json_object_get_member (o, "operation") != NULL)
    {
      g_autofree char *operation = read_string (r, o, "settings", "operation", FALSE);

      if (operation != NULL && !cs_operation_from_string (operation, &s->operation))
        reader_fail (r, "“settings.operation” has an unknown value");
    }
  if (json_object_get_member (o, "max_rate") != NULL)
    s->max_rate = read_double (r, o, "settings", "max_rate", 0, 1e15);
  if (json_object_get_member (o, "max_files") != NULL)
    s->max_files = read_double (r, o, "settings", "max_files", 0, 1e9);
  s->max_delete = -1;
  if (json_object_get_member (o, "max_delete") != NULL)
    s->max_delete = read_int (r, o, "settings", "max_delete", -1, (double) G_MAXINT64);

  excludes = read_array (r, o, "settings", "excludes", TRUE);
  if (excludes == NULL)
    return;
  n = json_array_get_length (excludes);
  s->excludes = g_new0 (char *, n + 1);
  for (guint i = 0; i < n && !r->failed; i++)
    s->excludes[i] = read_string_node (r, json_array_get_element (excludes, i),
                                       "settings", "excludes[]", FALSE);
}

static void
read_environment (Reader           *r,
                  JsonObject       *root,
                  CsRunEnvironment *e)
{
  JsonObject *o = read_object (r, root, "", "environment");

  if (o == NULL)
    return;

  e->kernel = read_string (r, o, "environment", "kernel", TRUE);
  e->hostname = read_string (r, o, "environment", "hostname", TRUE);
  e->cpus = read_int (r, o, "environment", "cpus", 0, 1000000);
  e->source_fs = read_string (r, o, "environment", "source_fs", TRUE);
  e->destination_fs = read_string (r, o, "environment", "destination_fs", TRUE);
  e->cache_mode = read_string (r, o, "environment", "cache_mode", TRUE);
  e->tool_version = read_string (r, o, "environment", "tool_version", TRUE);
}

static void
read_totals (Reader     *r,
             JsonObject *root,
             CsTotals   *totals)
{
  JsonObject *o = read_object (r, root, "", "totals");

  if (o == NULL)
    return;

  for (guint k = 0; k < CS_N_CLASSES && !r->failed; k++)
    {
      g_autofree char *where = g_strconcat ("totals.", class_names[k], NULL);
      JsonObject *c = read_object (r, o, "totals", class_names[k]);

      if (c == NULL)
        return;
      for (guint j = 0; j < CS_N_KINDS; j++)
        totals->v[k][j] = read_int (r, c, where, kind_names[j], 0,
                                    j == CS_KIND_BYTES ? MAX_BYTES : MAX_COUNT);
    }
}

/* Written for moves and mirrors only. */
static void
read_removals (Reader       *r,
               JsonObject   *root,
               CsRemovals   *m)
{
  JsonObject *o;

  if (json_object_get_member (root, "removals") == NULL)
    return;
  o = read_object (r, root, "", "removals");
  if (o == NULL)
    return;
  m->moved_files = (guint64) read_int (r, o, "removals", "moved_files", 0, (double) G_MAXINT64);
  m->moved_bytes = (guint64) read_int (r, o, "removals", "moved_bytes", 0, (double) G_MAXINT64);
  m->moved_dirs = (guint64) read_int (r, o, "removals", "moved_dirs", 0, (double) G_MAXINT64);
  m->kept_files = (guint64) read_int (r, o, "removals", "kept_files", 0, (double) G_MAXINT64);
  m->deleted_files = (guint64) read_int (r, o, "removals", "deleted_files", 0, (double) G_MAXINT64);
  m->deleted_dirs = (guint64) read_int (r, o, "removals", "deleted_dirs", 0, (double) G_MAXINT64);
  m->deleted_bytes = (guint64) read_int (r, o, "removals", "deleted_bytes", 0, (double) G_MAXINT64);
  m->not_deleted = (guint64) read_int (r, o, "removals", "not_deleted", 0, (double) G_MAXINT64);
}

static void
read_timeline (Reader     *r,
               JsonObject *root,
               GArray     *timeline)
{
  JsonArray *a = read_array (r, root, "", "thread_timeline", TRUE);

  if (a == NULL)
    return;

  for (guint i = 0; i < json_array_get_length (a) && !r->failed; i++)
    {
      g_autofree char *where = g_strdup_printf ("thread_timeline[%u]", i);
      JsonNode *node = json_array_get_element (a, i);
      CsThreadChange change = { 0 };
      JsonObject *o;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          reader_fail (r, "“%s” must be an object", where);
          return;
        }
      o = json_node_get_object (node);
      change.t = read_double (r, o, where, "t", 0, MAX_DURATION);
      change.from = read_int (r, o, where, "from", 0, MAX_THREADS);
      change.to = read_int (r, o, where, "to", 0, MAX_THREADS);
      change.reason = read_string (r, o, where, "reason", TRUE);
      g_array_append_val (timeline, change);
    }
}

static gboolean
event_kind_is_known (const char *kind)
{
  return g_str_equal (kind, "max-rate") || g_str_equal (kind, "max-files") || g_str_equal (kind, "resume");
}

static void
read_events (Reader       *r,
             JsonObject *root,
             GArray       *events)
{
  JsonArray *a = read_array (r, root, "", "events", FALSE);

  if (a == NULL)
    return;
  if (json_array_get_length (a) > CS_RUN_MAX_ERRORS)
    {
      reader_fail (r, "“events” has more than %d entries", CS_RUN_MAX_ERRORS);
      return;
    }

  for (guint i = 0; i < json_array_get_length (a) && !r->failed; i++)
    {
      g_autofree char *where = g_strdup_printf ("events[%u]", i);
      JsonNode *node = json_array_get_element (a, i);
      CsRunEvent event = { 0 };
      JsonObject *o;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          reader_fail (r, "“%s” must be an object", where);
          return;
        }
      o = json_node_get_object (node);
      event.t = read_double (r, o, where, "t", 0, MAX_DURATION);
      event.kind = read_string (r, o, where, "kind", FALSE);
      if (event.kind != NULL && !event_kind_is_known (event.kind))
        reader_fail (r, "“%s.kind” has an unknown value", where);
      event.value = read_double (r, o, where, "value", 0, 1e18);
      if (json_object_get_member (o, "size") != NULL)
        event.size = (guint64) read_int (r, o, where, "size", 0, (double) G_MAXINT64);
      if (json_object_get_member (o, "checked") != NULL)
        event.checked = (guint64) read_int (r, o, where, "checked", 0, (double) G_MAXINT64);
      if (json_object_get_member (o, "path") != NULL)
        event.path = read_string (r, o, where, "path", TRUE);
      g_array_append_val (events, event);
    }
}

static void
read_errors (Reader     *r,
             JsonObject *root,
             GPtrArray  *errors,
             guint64    *omitted)
{
  JsonArray *a = read_array (r, root, "", "errors", TRUE);

  if (a == NULL)
    return;

  if (json_array_get_length (a) > CS_RUN_MAX_ERRORS)
    {
      reader_fail (r, "“errors” has more than %d entries", CS_RUN_MAX_ERRORS);
      return;
    }

  for (guint i = 0; i < json_array_get_length (a) && !r->failed; i++)
    {
      g_autofree char *where = g_strdup_printf ("errors[%u]", i);
      JsonNode *node = json_array_get_element (a, i);
      g_autofree guchar *bytes = NULL;
      CsRunError *error;
      JsonObject *o;
      gsize len;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          reader_fail (r, "“%s” must be an object", where);
          return;
        }
      o = json_node_get_object (node);

      error = g_new0 (CsRunError, 1);
      g_ptr_array_add (errors, error);
      error->path = read_string (r, o, where, "path", TRUE);
      if (json_object_has_member (o, "path_raw"))
        {
          error->path_raw = read_string (r, o, where, "path_raw", TRUE);
          if (error->path_raw != NULL)
            {
              bytes = g_base64_decode (error->path_raw, &len);
              if (len == 0 || memchr (bytes, '\0', len) != NULL)
                reader_fail (r, "“%s.path_raw” is not a valid raw path", where);
            }
        }
      error->operation = read_string (r, o, where, "operation", TRUE);
      error->error_code = read_int (r, o, where, "error_code", 0, 100000);
      error->message = read_string (r, o, where, "message", TRUE);
      error->attempts = read_int (r, o, where, "attempts", 0, G_MAXUINT);
    }

  if (json_object_has_member (root, "errors_omitted"))
    *omitted = read_int (r, root, "", "errors_omitted", 0, MAX_COUNT);
}

static JsonArray *
read_column (Reader     *r,
             JsonObject *o,
             const char *name,
             gboolean    required,
             guint       n)
{
  JsonArray *a = read_array (r, o, "samples", name, required);

  if (a != NULL && json_array_get_length (a) != n)
    {
      reader_fail (r, "“samples.%s” has %u values, “samples.t” has %u",
                   name, json_array_get_length (a), n);
      return NULL;
    }

  return a;
}

static void
read_samples (Reader     *r,
              JsonObject *root,
              GArray     *samples)
{
  JsonObject *o = read_object (r, root, "", "samples");
  JsonArray *t, *files, *bytes;
  JsonArray *columns[CS_N_COUNTERS];
  guint n;

  if (o == NULL)
    return;

  t = read_array (r, o, "samples", "t", TRUE);
  if (t == NULL)
    return;
  n = json_array_get_length (t);
  if (n > MAX_SAMPLES)
    {
      reader_fail (r, "more than %d samples", MAX_SAMPLES);
      return;
    }

  files = read_column (r, o, "files_done", TRUE, n);
  bytes = read_column (r, o, "bytes_done", TRUE, n);
  /* A counter added in a later version is simply absent from older files. */
  for (guint c = 0; c < CS_N_COUNTERS; c++)
    columns[c] = read_column (r, o, cs_counter_get_info (c)->key, FALSE, n);
  if (r->failed)
    return;

  g_array_set_size (samples, n);
  for (guint i = 0; i < n && !r->failed; i++)
    {
      CsSample *s = &g_array_index (samples, CsSample, i);
      char where[32];

      g_snprintf (where, sizeof where, "samples[%u]", i);
      s->t = read_double_node (r, json_array_get_element (t, i), where, "t", 0, MAX_DURATION, FALSE);
      s->files_done = read_int_node (r, json_array_get_element (files, i), where, "files_done", 0, MAX_COUNT);
      s->bytes_done = read_int_node (r, json_array_get_element (bytes, i), where, "bytes_done", 0, MAX_BYTES);
      for (guint c = 0; c < CS_N_COUNTERS; c++)
        {
          if (columns[c] == NULL)
            s->values[c] = NAN;
          else
            s->values[c] = read_double_node (r, json_array_get_element (columns[c], i), where,
                                             cs_counter_get_info (c)->key,
                                             0, MAX_COUNTER_VALUE, TRUE);
        }
    }
}

static gboolean
outcome_is_known (const char *outcome)
{
  static const char * const known[] = { "completed", "cancelled", "failed", "running" };

  for (guint i = 0; i < G_N_ELEMENTS (known); i++)
    if (strcmp (outcome, known[i]) == 0)
      return TRUE;

  return FALSE;
}

CsRun *
cs_run_new_from_json (JsonNode  *node,
                      GError   **error)
{
  g_autoptr(CsRun) run = NULL;
  g_autofree char *id = NULL;
  g_autofree char *kind = NULL;
  g_autofree char *outcome = NULL;
  Reader r = { error, FALSE };
  JsonObject *root;
  JsonNode *version;
  JsonArray *sources;
  JsonArray *sources_raw;

  g_return_val_if_fail (node != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      reader_fail (&r, "the top level must be an object");
      return NULL;
    }
  root = json_node_get_object (node);

  version = json_object_get_member (root, "schema_version");
  if (version == NULL)
    {
      reader_fail (&r, "“schema_version” is missing; this is not a Copyscope run");
      return NULL;
    }
  if (!JSON_NODE_HOLDS_VALUE (version) || json_node_get_value_type (version) != G_TYPE_INT64 ||
      json_node_get_int (version) != CS_RUN_SCHEMA_VERSION)
    {
      reader_fail (&r, "unsupported schema_version (this version reads %d)", CS_RUN_SCHEMA_VERSION);
      return NULL;
    }

  run = cs_run_new ();

  id = read_string (&r, root, "", "id", FALSE);
  if (id != NULL && !g_uuid_string_is_valid (id))
    reader_fail (&r, "“id” is not a UUID");
  if (id != NULL)
    {
      g_free (run->id);
      run->id = g_steal_pointer (&id);
    }

  kind = read_string (&r, root, "", "kind", FALSE);
  if (kind != NULL)
    run->kind = g_intern_string (kind);
  run->label = read_string (&r, root, "", "label", TRUE);
  if (run->label != NULL && run->label[0] == '\0')
    g_clear_pointer (&run->label, g_free);

  run->started = read_int (&r, root, "", "started_usec", 0, MAX_STARTED_USEC);
  g_free (read_string (&r, root, "", "started", FALSE));
  run->duration = read_double (&r, root, "", "duration", 0, MAX_DURATION);
  /* Records from before it was kept say nothing: no pause was counted. */
  if (json_object_get_member (root, "held") != NULL)
    run->held = read_double (&r, root, "", "held", 0, MAX_DURATION);

  sources = read_array (&r, root, "", "sources", TRUE);
  sources_raw = read_array (&r, root, "", "sources_raw", FALSE);
  if (sources != NULL)
    {
      guint n = json_array_get_length (sources);

      if (sources_raw != NULL && json_array_get_length (sources_raw) != n)
        reader_fail (&r, "“sources_raw” and “sources” differ in length");

      g_strfreev (run->sources);
      run->sources = g_new0 (char *, n + 1);
      for (guint i = 0; i < n && !r.failed; i++)
        run->sources[i] = read_path (&r, json_array_get_element (sources, i),
                                     sources_raw != NULL ? json_array_get_element (sources_raw, i) : NULL,
                                     "sources[]", FALSE);
    }

  run->destination = read_path (&r, get_member (&r, root, "", "destination", TRUE),
                                json_object_get_member (root, "destination_raw"),
                                "destination", TRUE);

  read_settings (&r, root, &run->settings);
  read_environment (&r, root, &run->environment);
  read_totals (&r, root, &run->totals);
  read_removals (&r, root, &run->removals);

  outcome = read_string (&r, root, "", "outcome", FALSE);
  if (outcome != NULL && !outcome_is_known (outcome))
    reader_fail (&r, "“outcome” has an unknown value");
  if (outcome != NULL)
    run->outcome = g_intern_string (outcome);
  run->fatal_error = read_string (&r, root, "", "fatal_error", TRUE);

  read_timeline (&r, root, run->timeline);
  read_events (&r, root, run->events);
  read_errors (&r, root, run->errors, &run->errors_omitted);
  run->n_errors = run->errors->len;
  read_samples (&r, root, run->samples);

  /* Statistics are derived from the samples; only their shape is checked. */
  if (!r.failed && json_object_has_member (root, "stats"))
    read_object (&r, root, "", "stats");

  if (r.failed)
    return NULL;

  return g_steal_pointer (&run);
}

static const CsJsonLimits run_limits = {
  .what = "run",
  .max_size = MAX_FILE_SIZE,
  .max_depth = MAX_JSON_DEPTH,
  .max_values = MAX_JSON_VALUES,
};

CsRun *
cs_run_load (const char  *path,
             GError     **error)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  root = cs_json_load_file (path, &run_limits, &local_error);
  if (root == NULL)
    {
      if (local_error->domain != G_IO_ERROR)
        g_propagate_error (error, g_steal_pointer (&local_error));
      else if (local_error->code == G_IO_ERROR_MESSAGE_TOO_LARGE)
        g_set_error_literal (error, CS_RUN_ERROR, CS_RUN_ERROR_TOO_LARGE, local_error->message);
      else if (local_error->code == G_IO_ERROR_INVALID_DATA)
        g_set_error (error, CS_RUN_ERROR, CS_RUN_ERROR_INVALID, "Invalid run file: %s", local_error->message);
      else
        g_set_error_literal (error, CS_RUN_ERROR, CS_RUN_ERROR_INVALID, local_error->message);
      return NULL;
    }

  return cs_run_new_from_json (root, error);
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

void
cs_string_append_double (GString *out,
                         double   value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_return_if_fail (out != NULL);

  if (!isfinite (value))
    return;

  g_ascii_formatd (buf, sizeof buf, "%.15g", value);
  if (g_ascii_strtod (buf, NULL) != value)
    g_ascii_formatd (buf, sizeof buf, "%.17g", value);
  g_string_append (out, buf);
}

char *
cs_run_samples_to_csv (CsRun *run)
{
  g_autofree CsSample *samples = NULL;
  GString *out;
  guint n = 0;

  g_return_val_if_fail (run != NULL, NULL);

  samples = cs_run_dup_samples (run, &n);

  out = g_string_new ("t,threads,files_done,bytes_done");
  for (guint c = 0; c < CS_N_COUNTERS; c++)
    {
      if (c == CS_COUNTER_THREADS)
        continue;
      g_string_append_c (out, ',');
      g_string_append (out, cs_counter_get_info (c)->key);
    }
  g_string_append (out, "\r\n");

  for (guint i = 0; i < n; i++)
    {
      const CsSample *s = &samples[i];

      cs_string_append_double (out, s->t);
      g_string_append_c (out, ',');
      cs_string_append_double (out, s->values[CS_COUNTER_THREADS]);
      g_string_append_printf (out, ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT,
                              s->files_done, s->bytes_done);
      for (guint c = 0; c < CS_N_COUNTERS; c++)
        {
          if (c == CS_COUNTER_THREADS)
            continue;
          g_string_append_c (out, ',');
          cs_string_append_double (out, s->values[c]);
        }
      g_string_append (out, "\r\n");
    }

  return g_string_free (out, FALSE);
}
