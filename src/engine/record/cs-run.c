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
#include "cs-smb-url-private.h"
#include "cs-text.h"
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
#define MAX_BUCKETS_READ  100000

/* Samples are kept whole for this long back from the newest; older ones are
 * merged into buckets. */
#define RECENT_SECONDS    600.0
/* The whole run in at most this many buckets: when they are more, neighbours
 * are merged in pairs and the width doubles. A 24-hour run ends in buckets of
 * 128 s, 675 of them. */
#define MAX_BUCKETS       1024
#define FIRST_BUCKET_WIDTH 1.0
/* 1970 … 2200: a start time outside this range is a corrupt file. */
#define MAX_STARTED_USEC  G_GINT64_CONSTANT (7258118400000000)

typedef struct {
  double  sum;
  guint64 n;
  double  min;
  double  max;
} StatSum;

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
  CsSkips           skips;
  gboolean          skips_known;
  CsRunManifest     manifest;     /* its strings owned; path NULL: none */
  const char       *outcome;      /* interned */
  char             *fatal_error;
  /* The last RECENT_SECONDS of samples in full, from recent_first on, and
   * everything before them in buckets of at most bucket_width seconds (the
   * last one still filling). */
  GArray           *recent;       /* of CsSample */
  guint             recent_first;
  GArray           *buckets;      /* of CsBucket */
  double            bucket_width;
  /* Each counter's statistics over every sample, kept as they come so they
   * stay exact whatever the buckets merge. The newest sample is not in them
   * yet while pending: the sampler may make it again at the end. */
  StatSum           sums[CS_N_COUNTERS];
  gboolean          pending;
  /* Read from a header (cs_run_to_header_json ()): no samples, no errors,
   * only their numbers. */
  gboolean          header;
  guint             header_samples;
  GArray           *timeline;     /* of CsThreadChange */
  GArray           *events;       /* of CsRunEvent */
  GPtrArray        *errors;       /* of CsRunError, failures and notes */
  guint             n_errors;     /* its failures, read without the lock */
  guint             n_notes;      /* its notes, likewise */
  guint64           errors_omitted;
  guint64           events_omitted;
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
static void
threads_over_time (guint                 start,
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
  threads_over_time (figures->threads, (const CsThreadChange *) (gpointer) timeline->data,
                     timeline->len, figures->duration, &figures->threads_min,
                     &figures->threads_max, &figures->threads_mean);
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

/* Sample storage; every function here is called with the lock held. */

static guint
recent_len (CsRun *run)
{
  return run->recent->len - run->recent_first;
}

static const CsSample *
recent_at (CsRun *run,
           guint  i)
{
  return &g_array_index (run->recent, CsSample, run->recent_first + i);
}

static void
bucket_from_sample (CsBucket       *bucket,
                    const CsSample *sample,
                    double          t_start)
{
  bucket->sample = *sample;
  bucket->t_start = t_start;
  bucket->n = 1;
  memcpy (bucket->min, sample->values, sizeof bucket->min);
  memcpy (bucket->max, sample->values, sizeof bucket->max);
}

/* @into, then @next after it, become one. */
static void
bucket_merge (CsBucket       *into,
              const CsBucket *next)
{
  for (guint c = 0; c < CS_N_COUNTERS; c++)
    {
      double a = into->sample.values[c], b = next->sample.values[c];

      if (c == CS_COUNTER_THREADS)
        into->sample.values[c] = b;
      else if (isnan (a))
        into->sample.values[c] = b;
      else if (!isnan (b))
        into->sample.values[c] = (a * into->n + b * next->n) / (into->n + next->n);
      /* fmin and fmax take the number over a NaN. */
      into->min[c] = fmin (into->min[c], next->min[c]);
      into->max[c] = fmax (into->max[c], next->max[c]);
    }
  into->sample.t = next->sample.t;
  into->sample.files_done = next->sample.files_done;
  into->sample.bytes_done = next->sample.bytes_done;
  into->n += next->n;
}

static void
buckets_halve (CsRun *run)
{
  guint n = run->buckets->len, out = 0;

  for (guint i = 0; i < n; i += 2, out++)
    {
      CsBucket merged = g_array_index (run->buckets, CsBucket, i);

      if (i + 1 < n)
        bucket_merge (&merged, &g_array_index (run->buckets, CsBucket, i + 1));
      g_array_index (run->buckets, CsBucket, out) = merged;
    }
  g_array_set_size (run->buckets, out);
  run->bucket_width *= 2;
}

/* A sample, or a bucket read back, joins the older part of the run. */
static void
buckets_add (CsRun          *run,
             const CsBucket *bucket)
{
  CsBucket *last = run->buckets->len > 0
                   ? &g_array_index (run->buckets, CsBucket, run->buckets->len - 1) : NULL;

  if (last != NULL && bucket->sample.t - last->t_start <= run->bucket_width)
    {
      bucket_merge (last, bucket);
      return;
    }

  g_array_append_vals (run->buckets, bucket, 1);
  if (run->buckets->len > MAX_BUCKETS)
    buckets_halve (run);
}

/* Samples that fell out of the recent window go to the buckets. Each costs a
 * merge; the array is compacted once half of it is gone, so the cost per
 * sample stays flat. */
static void
recent_expire (CsRun *run)
{
  const CsSample *newest = recent_at (run, recent_len (run) - 1);

  while (recent_len (run) > 1 && recent_at (run, 0)->t < newest->t - RECENT_SECONDS)
    {
      double t_start = run->buckets->len > 0
                       ? g_array_index (run->buckets, CsBucket, run->buckets->len - 1).sample.t : 0;
      CsBucket bucket;

      bucket_from_sample (&bucket, recent_at (run, 0), t_start);
      buckets_add (run, &bucket);
      run->recent_first++;
    }

  if (run->recent_first > 0 && run->recent_first >= recent_len (run))
    {
      g_array_remove_range (run->recent, 0, run->recent_first);
      run->recent_first = 0;
    }
}

static void
sums_add (StatSum        *sums,
          const CsSample *sample)
{
  for (guint c = 0; c < CS_N_COUNTERS; c++)
    {
      double v = sample->values[c];

      /* NaN marks "no data in this interval" (no reads: no read latency). */
      if (isnan (v))
        continue;
      sums[c].sum += v;
      sums[c].n++;
      sums[c].min = MIN (sums[c].min, v);
      sums[c].max = MAX (sums[c].max, v);
    }
}

/* The pending sample is final now: into the statistics. */
static void
settle_pending (CsRun *run)
{
  if (run->pending && recent_len (run) > 0)
    sums_add (run->sums, recent_at (run, recent_len (run) - 1));
  run->pending = FALSE;
}

/* A sample at the end of the run. @count: into the statistics (a sample read
 * back from a record that keeps them has been counted already). */
static void
store_sample (CsRun          *run,
              const CsSample *sample,
              gboolean        count)
{
  settle_pending (run);
  g_array_append_vals (run->recent, sample, 1);
  run->pending = count;
  recent_expire (run);
}

static GArray *
series_locked (CsRun *run)
{
  guint n = recent_len (run);
  GArray *series = g_array_sized_new (FALSE, FALSE, sizeof (CsBucket), run->buckets->len + n);
  double t_start;

  g_array_append_vals (series, run->buckets->data, run->buckets->len);
  t_start = run->buckets->len > 0
            ? g_array_index (run->buckets, CsBucket, run->buckets->len - 1).sample.t : 0;
  for (guint i = 0; i < n; i++)
    {
      CsBucket bucket;

      bucket_from_sample (&bucket, recent_at (run, i), t_start);
      g_array_append_val (series, bucket);
      t_start = bucket.sample.t;
    }

  return series;
}

GArray *
cs_run_dup_series (CsRun *run)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_val_if_fail (run != NULL, NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  return series_locked (run);
}

CsSample *
cs_run_dup_samples (CsRun *run,
                    guint *n_samples)
{
  g_autoptr(CsMutexLocker) locker = NULL;
  guint n_buckets, n;
  CsSample *samples;

  g_return_val_if_fail (run != NULL, NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  n_buckets = run->buckets->len;
  n = n_buckets + recent_len (run);
  if (n_samples != NULL)
    *n_samples = n;
  if (n == 0)
    return NULL;

  samples = g_new (CsSample, n);
  for (guint i = 0; i < n_buckets; i++)
    samples[i] = g_array_index (run->buckets, CsBucket, i).sample;
  if (recent_len (run) > 0)
    memcpy (samples + n_buckets, recent_at (run, 0), recent_len (run) * sizeof (CsSample));

  return samples;
}

static guint
n_samples_locked (CsRun *run)
{
  guint n = recent_len (run);

  if (run->header)
    return run->header_samples;
  for (guint i = 0; i < run->buckets->len; i++)
    n += g_array_index (run->buckets, CsBucket, i).n;

  return n;
}

guint
cs_run_get_n_samples (CsRun *run)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_val_if_fail (run != NULL, 0);

  locker = _cs_mutex_locker_new (&run->mutex);
  return n_samples_locked (run);
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

static double
last_t_locked (CsRun *run)
{
  if (recent_len (run) > 0)
    return recent_at (run, recent_len (run) - 1)->t;
  if (run->buckets->len > 0)
    return g_array_index (run->buckets, CsBucket, run->buckets->len - 1).sample.t;
  return 0;
}

static gboolean
get_stat_locked (CsRun     *run,
                 CsCounter  counter,
                 CsStat    *out_stat)
{
  StatSum sum = run->sums[counter];

  /* A count, whose figure is its mean over the clock's time (cs-figures.h). */
  if (counter == CS_COUNTER_THREADS && (recent_len (run) > 0 || run->buckets->len > 0 || run->header))
    {
      double until = run->duration > 0 ? run->duration : last_t_locked (run);
      guint min, max;
      double mean;

      threads_over_time (run->settings.threads,
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

  if (run->pending && recent_len (run) > 0)
    {
      StatSum last[CS_N_COUNTERS] = { { 0 } };

      last[counter] = sum;
      sums_add (last, recent_at (run, recent_len (run) - 1));
      sum = last[counter];
    }

  if (sum.n == 0)
    return FALSE;

  if (out_stat != NULL)
    {
      out_stat->avg = sum.sum / sum.n;
      out_stat->min = sum.min;
      out_stat->max = sum.max;
    }

  return TRUE;
}

gboolean
cs_run_get_stat (CsRun     *run,
                 CsCounter  counter,
                 CsStat    *out_stat)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_val_if_fail (run != NULL, FALSE);
  g_return_val_if_fail (counter < CS_N_COUNTERS, FALSE);

  locker = _cs_mutex_locker_new (&run->mutex);
  return get_stat_locked (run, counter, out_stat);
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
  /* Only the pending sample may be made again; one already counted stays. */
  if (recent_len (run) == 0 || !run->pending)
    store_sample (run, sample, TRUE);
  else
    g_array_index (run->recent, CsSample, run->recent->len - 1) = *sample;
}

void
_cs_run_add_sample (CsRun          *run,
                    const CsSample *sample)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);
  g_return_if_fail (sample != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  store_sample (run, sample, TRUE);
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

void
_cs_run_add_event (CsRun            *run,
                   const CsRunEvent *event)
{
  g_autoptr(CsMutexLocker) locker = NULL;
  CsRunEvent copy;

  g_return_if_fail (run != NULL);
  g_return_if_fail (event != NULL && event->kind != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  if (run->events->len >= CS_RUN_MAX_EVENTS)
    {
      run->events_omitted++;
      return;
    }

  copy = *event;
  copy.kind = g_strdup (event->kind);
  copy.path = event->path != NULL ? g_filename_display_name (event->path) : NULL;
  g_array_append_val (run->events, copy);
}

static void
add_entry (CsRun      *run,
           const char *path,
           const char *operation,
           int         error_code,
           const char *message,
           guint       attempts,
           gboolean    note)
{
  g_autoptr(CsMutexLocker) locker = NULL;
  CsRunError *error;

  locker = _cs_mutex_locker_new (&run->mutex);
  if (run->errors->len >= CS_RUN_MAX_ERRORS)
    {
      run->errors_omitted++;
      return;
    }

  error = g_new0 (CsRunError, 1);
  if (path != NULL)
    {
      /* Bytes that are not UTF-8 as "\xHH" rather than one U+FFFD for
       * all; the exact bytes go beside them, in path_raw. */
      error->path = cs_text_escape (path, -1, CS_TEXT_ESCAPE_INVALID);
      if (!g_utf8_validate (path, -1, NULL))
        error->path_raw = g_base64_encode ((const guchar *) path, strlen (path));
    }
  error->operation = operation != NULL ? g_utf8_make_valid (operation, -1) : NULL;
  error->error_code = error_code;
  error->message = message != NULL ? g_utf8_make_valid (message, -1) : NULL;
  error->attempts = attempts;
  error->note = note;
  g_ptr_array_add (run->errors, error);
  if (note)
    __atomic_store_n (&run->n_notes, run->n_notes + 1, __ATOMIC_RELAXED);
  else
    __atomic_store_n (&run->n_errors, run->n_errors + 1, __ATOMIC_RELAXED);
}

void
_cs_run_add_error (CsRun      *run,
                   const char *path,
                   const char *operation,
                   int         error_code,
                   const char *message,
                   guint       attempts)
{
  g_return_if_fail (run != NULL);

  add_entry (run, path, operation, error_code, message, attempts, FALSE);
}

void
_cs_run_add_note (CsRun      *run,
                  const char *path,
                  const char *operation,
                  int         error_code,
                  const char *message)
{
  g_return_if_fail (run != NULL);

  add_entry (run, path, operation, error_code, message, 0, TRUE);
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
_cs_run_set_skips (CsRun         *run,
                   const CsSkips *skips)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);
  g_return_if_fail (skips != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  run->skips = *skips;
  run->skips_known = TRUE;
}

void
_cs_run_set_manifest (CsRun               *run,
                      const CsRunManifest *manifest)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);
  g_return_if_fail (manifest != NULL && manifest->path != NULL && manifest->algo != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  g_free ((char *) run->manifest.path);
  g_free ((char *) run->manifest.algo);
  run->manifest = *manifest;
  run->manifest.path = g_strdup (manifest->path);
  run->manifest.algo = g_strdup (manifest->algo);
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
  guint n = recent_len (run);

  json_builder_set_member_name (builder, "samples");
  json_builder_begin_object (builder);

  json_builder_set_member_name (builder, "t");
  json_builder_begin_array (builder);
  for (guint i = 0; i < n; i++)
    add_double_or_null (builder, recent_at (run, i)->t);
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "files_done");
  json_builder_begin_array (builder);
  for (guint i = 0; i < n; i++)
    json_builder_add_int_value (builder, clamp_u64 (recent_at (run, i)->files_done));
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "bytes_done");
  json_builder_begin_array (builder);
  for (guint i = 0; i < n; i++)
    json_builder_add_int_value (builder, clamp_u64 (recent_at (run, i)->bytes_done));
  json_builder_end_array (builder);

  for (guint c = 0; c < CS_N_COUNTERS; c++)
    {
      json_builder_set_member_name (builder, cs_counter_get_info (c)->key);
      json_builder_begin_array (builder);
      for (guint i = 0; i < n; i++)
        add_double_or_null (builder, recent_at (run, i)->values[c]);
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

/* The sum of a counter's values over its samples. */
static double
stat_sum_locked (CsRun     *run,
                 CsCounter  counter)
{
  double sum = run->sums[counter].sum;

  if (run->pending && recent_len (run) > 0 && !isnan (recent_at (run, recent_len (run) - 1)->values[counter]))
    sum += recent_at (run, recent_len (run) - 1)->values[counter];

  return sum;
}

/* How many samples a counter's statistics are over. */
static guint64
stat_count_locked (CsRun     *run,
                   CsCounter  counter)
{
  guint64 n = run->sums[counter].n;

  if (run->pending && recent_len (run) > 0 && !isnan (recent_at (run, recent_len (run) - 1)->values[counter]))
    n++;

  return n;
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
      add_member_int (builder, "n", clamp_u64 (stat_count_locked (run, c)));
      add_member_double (builder, "sum", stat_sum_locked (run, c));
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
      add_member_int (builder, "n_samples", n_samples_locked (run));
    }
  else
    {
      build_samples (builder, run);
      build_buckets (builder, run);
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

gboolean
cs_run_is_header (CsRun *run)
{
  g_return_val_if_fail (run != NULL, FALSE);

  return run->header;
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

  /* A record from before passwords were taken out of smb:// URLs may hold
   * one: shown and exported without it all the same. */
  if (r->failed || raw_node == NULL || JSON_NODE_HOLDS_NULL (raw_node))
    return display != NULL ? _cs_smb_location_redact (display) : NULL;

  raw = read_string_node (r, raw_node, where, "(raw)", FALSE);
  if (raw == NULL)
    return NULL;

  bytes = g_base64_decode (raw, &len);
  if (len == 0 || memchr (bytes, '\0', len) != NULL)
    {
      reader_fail (r, "“%s” has an invalid raw path", where);
      return NULL;
    }

  g_free (raw);
  raw = g_strndup ((const char *) bytes, len);
  return _cs_smb_location_redact (raw);
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
  /* Only in records of runs that met a share GVfs mounted. */
  e->route = read_string_node (r, json_object_get_member (o, "route"), "environment", "route", TRUE);
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

/* Absent from records written before the reasons were kept. */
static gboolean
read_skips (Reader     *r,
            JsonObject *root,
            CsSkips    *s)
{
  JsonObject *o;

  if (json_object_get_member (root, "skips") == NULL)
    return FALSE;
  o = read_object (r, root, "", "skips");
  if (o == NULL)
    return FALSE;
  s->identical_files = (guint64) read_int (r, o, "skips", "identical_files", 0, (double) G_MAXINT64);
  s->identical_bytes = (guint64) read_int (r, o, "skips", "identical_bytes", 0, (double) G_MAXINT64);
  s->chosen_files = (guint64) read_int (r, o, "skips", "chosen_files", 0, (double) G_MAXINT64);
  s->chosen_bytes = (guint64) read_int (r, o, "skips", "chosen_bytes", 0, (double) G_MAXINT64);
  return TRUE;
}

/* The algorithms a checksum list has (cs-manifest.h), which the record
 * names: the interned name, or NULL for another. */
static const char *
manifest_algo_known (const char *algo)
{
  if (g_strcmp0 (algo, "xxh128") == 0)
    return "xxh128";
  if (g_strcmp0 (algo, "sha256") == 0)
    return "sha256";
  return NULL;
}

/* Absent from records of runs that wrote no manifest. */
static void
read_manifest (Reader        *r,
               JsonObject    *root,
               CsRunManifest *m)
{
  g_autofree char *algo = NULL;
  JsonObject *o;

  if (json_object_get_member (root, "manifest") == NULL)
    return;
  o = read_object (r, root, "", "manifest");
  if (o == NULL)
    return;
  algo = read_string (r, o, "manifest", "algo", FALSE);
  if (r->failed)
    return;
  if (manifest_algo_known (algo) == NULL)
    {
      reader_fail (r, "“manifest.algo” has an unknown value");
      return;
    }
  m->path = read_path (r, get_member (r, o, "manifest", "path", TRUE),
                       json_object_get_member (o, "path_raw"), "manifest.path", FALSE);
  m->algo = g_strdup (manifest_algo_known (algo));
  m->files = (guint64) read_int (r, o, "manifest", "files", 0, (double) G_MAXINT64);
  m->from_copy = (guint64) read_int (r, o, "manifest", "from_copy", 0, (double) G_MAXINT64);
  m->read_copied = (guint64) read_int (r, o, "manifest", "read_copied", 0, (double) G_MAXINT64);
  m->read_kept = (guint64) read_int (r, o, "manifest", "read_kept", 0, (double) G_MAXINT64);
  m->bytes_read = (guint64) read_int (r, o, "manifest", "bytes_read", 0, (double) G_MAXINT64);
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
  return g_str_equal (kind, "max-rate") || g_str_equal (kind, "max-files") || g_str_equal (kind, "resume")
         || g_str_equal (kind, "kept") || g_str_equal (kind, "pause") || g_str_equal (kind, "question");
}

static void
read_events (Reader     *r,
             JsonObject *root,
             GArray     *events,
             guint64    *omitted)
{
  JsonArray *a = read_array (r, root, "", "events", FALSE);

  if (json_object_has_member (root, "events_omitted"))
    *omitted = read_int (r, root, "", "events_omitted", 0, MAX_COUNT);
  if (a == NULL)
    return;
  if (json_array_get_length (a) > CS_RUN_MAX_EVENTS)
    {
      reader_fail (r, "“events” has more than %d entries", CS_RUN_MAX_EVENTS);
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
      if (event.path != NULL && g_str_has_prefix (event.path, "smb://"))
        {
          char *kept = _cs_smb_location_redact (event.path);

          g_free (event.path);
          event.path = kept;
        }
      g_array_append_val (events, event);
    }
}

/* A record written before notes had their field: what the engine then listed
 * with no attempt made, and now lists as a note (cs-run.h, CsRunError). Every
 * failure was listed after at least one attempt; a symbolic link the
 * destination could not hold ("create link") failed, then as now. */
static gboolean
is_old_note (const CsRunError *error)
{
  static const char * const operations[] = {
    "chown", "chmod", "set times", "set attributes", "set ACL", "set link times", "link",
    "special file", "skip",
  };

  if (error->attempts != 0 || error->operation == NULL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (operations); i++)
    if (strcmp (error->operation, operations[i]) == 0)
      return TRUE;
  return FALSE;
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
              else if (len > 6 && memcmp (bytes, "smb://", 6) == 0)
                {
                  /* An old record's password in a message's location, as
                   * in read_path. */
                  g_autofree char *raw = g_strndup ((const char *) bytes, len);
                  g_autofree char *kept = _cs_smb_location_redact (raw);

                  g_free (error->path_raw);
                  error->path_raw = g_base64_encode ((const guchar *) kept, strlen (kept));
                }
            }
        }
      if (error->path != NULL && g_str_has_prefix (error->path, "smb://"))
        {
          char *kept = _cs_smb_location_redact (error->path);

          g_free (error->path);
          error->path = kept;
        }
      error->operation = read_string (r, o, where, "operation", TRUE);
      error->error_code = read_int (r, o, where, "error_code", 0, 100000);
      error->message = read_string (r, o, where, "message", TRUE);
      error->attempts = read_int (r, o, where, "attempts", 0, G_MAXUINT);
      if (json_object_has_member (o, "note"))
        error->note = read_bool (r, o, where, "note");
      else
        error->note = is_old_note (error);
    }

  if (json_object_has_member (root, "errors_omitted"))
    *omitted = read_int (r, root, "", "errors_omitted", 0, MAX_COUNT);
}

/* The samples' columns, read whole before any sample is made of them. */
typedef struct {
  guint    n;
  double  *t;
  guint64 *files;
  guint64 *bytes;
  double  *values[CS_N_COUNTERS];   /* NULL: the column is absent */
} Columns;

static void
columns_clear (Columns *columns)
{
  g_free (columns->t);
  g_free (columns->files);
  g_free (columns->bytes);
  for (guint c = 0; c < CS_N_COUNTERS; c++)
    g_free (columns->values[c]);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Columns, columns_clear)

/* What one value of a column must be. */
typedef enum {
  COLUMN_TIME,      /* a number of seconds */
  COLUMN_COUNT,     /* a whole number */
  COLUMN_COUNTER,   /* a number, or null for none */
} ColumnKind;

typedef enum {
  TOKEN_INTEGER,
  TOKEN_NUMBER,
  TOKEN_NULL,
  TOKEN_OTHER,
} TokenKind;

/* One value checked for its column, with the messages the tree reader gives. */
/* Where a sample's value failed, made only then: an old day-long record has
 * 7.6 million values, and formatting each one's place took a tenth of its
 * reading. */
static void
fail_sample (Reader     *r,
             guint       i,
             const char *name,
             const char *what)
{
  char where[32];

  g_snprintf (where, sizeof where, "samples[%u]", i);
  fail_field (r, where, name, what);
}

static void
column_value (Reader     *r,
              ColumnKind  kind,
              TokenKind   token,
              double      number,
              gint64      integer,
              guint       i,
              const char *name,
              double     *out_double,
              guint64    *out_count)
{
  double max;

  if (r->failed)
    return;

  if (kind == COLUMN_COUNT)
    {
      max = g_str_equal (name, "bytes_done") ? MAX_BYTES : MAX_COUNT;
      if (token != TOKEN_INTEGER)
        {
          fail_sample (r, i, name, "must be a whole number");
          return;
        }
      if (integer < 0 || (double) integer > max)
        {
          g_autofree char *what = g_strdup_printf ("is out of range (%" G_GINT64_FORMAT ")", integer);

          fail_sample (r, i, name, what);
          return;
        }
      *out_count = (guint64) integer;
      return;
    }

  if (kind == COLUMN_COUNTER && token == TOKEN_NULL)
    {
      *out_double = NAN;
      return;
    }
  if (token != TOKEN_INTEGER && token != TOKEN_NUMBER)
    {
      fail_sample (r, i, name, "must be a number");
      return;
    }
  if (token == TOKEN_INTEGER)
    number = (double) integer;
  max = kind == COLUMN_TIME ? MAX_DURATION : MAX_COUNTER_VALUE;
  if (!isfinite (number) || number < 0 || number > max)
    {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      g_autofree char *what = g_strdup_printf ("is out of range (%s)",
                                               g_ascii_dtostr (buf, sizeof buf, number));

      fail_sample (r, i, name, what);
      return;
    }
  *out_double = number;
}

/* Where a column goes, by its key: a slot for doubles or for counts, and
 * its place among the lengths; FALSE for a key not ours. */
static gboolean
column_slot (Columns     *columns,
             const char  *name,
             ColumnKind  *out_kind,
             double     ***out_doubles,
             guint64    ***out_counts,
             int         *out_index)
{
  CsCounter counter;

  *out_doubles = NULL;
  *out_counts = NULL;
  if (g_str_equal (name, "t"))
    {
      *out_kind = COLUMN_TIME;
      *out_doubles = &columns->t;
      *out_index = -1;
    }
  else if (g_str_equal (name, "files_done") || g_str_equal (name, "bytes_done"))
    {
      *out_kind = COLUMN_COUNT;
      *out_counts = name[0] == 'f' ? &columns->files : &columns->bytes;
      *out_index = name[0] == 'f' ? 0 : 1;
    }
  else if (cs_counter_from_key (name, &counter))
    {
      *out_kind = COLUMN_COUNTER;
      *out_doubles = &columns->values[counter];
      *out_index = 2 + (int) counter;
    }
  else
    {
      return FALSE;
    }

  return TRUE;
}

static const char *
column_name (guint k)
{
  return k == 0 ? "files_done" : k == 1 ? "bytes_done" : cs_counter_get_info (k - 2)->key;
}

static void
columns_check (Reader  *r,
               Columns *columns,
               guint    n_t,
               guint    lengths[CS_N_COUNTERS + 2])
{
  if (r->failed)
    return;
  if (columns->t == NULL)
    {
      fail_field (r, "samples", "t", "is missing");
      return;
    }
  for (guint k = 0; k < CS_N_COUNTERS + 2; k++)
    {
      gboolean present = k == 0 ? columns->files != NULL : k == 1 ? columns->bytes != NULL
                         : columns->values[k - 2] != NULL;

      /* A counter added in a later version is simply absent from older files. */
      if (!present && k >= 2)
        continue;
      if (!present)
        {
          fail_field (r, "samples", column_name (k), "is missing");
          return;
        }
      if (lengths[k] != n_t)
        {
          reader_fail (r, "“samples.%s” has %u values, “samples.t” has %u", column_name (k), lengths[k], n_t);
          return;
        }
    }
  columns->n = n_t;
}

static TokenKind
node_token (JsonNode *node,
            double   *number,
            gint64   *integer)
{
  GType type;

  if (JSON_NODE_HOLDS_NULL (node))
    return TOKEN_NULL;
  type = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_INVALID;
  if (type == G_TYPE_INT64)
    {
      *integer = json_node_get_int (node);
      return TOKEN_INTEGER;
    }
  if (type == G_TYPE_DOUBLE)
    {
      *number = json_node_get_double (node);
      return TOKEN_NUMBER;
    }

  return TOKEN_OTHER;
}

/* The samples' columns from a tree (cs_run_new_from_json ()). */
static void
read_columns_tree (Reader     *r,
                   JsonObject *root,
                   Columns    *columns)
{
  JsonObject *o = read_object (r, root, "", "samples");
  guint lengths[CS_N_COUNTERS + 2] = { 0 };
  JsonArray *arrays[CS_N_COUNTERS + 2] = { NULL };
  JsonArray *t;
  guint n_t;

  if (o == NULL)
    return;
  t = read_array (r, o, "samples", "t", TRUE);
  if (t == NULL)
    return;
  n_t = json_array_get_length (t);
  if (n_t > MAX_SAMPLES)
    {
      reader_fail (r, "more than %d samples", MAX_SAMPLES);
      return;
    }
  columns->t = g_new (double, MAX (n_t, 1));

  for (guint k = 0; k < CS_N_COUNTERS + 2 && !r->failed; k++)
    {
      arrays[k] = read_array (r, o, "samples", column_name (k), k < 2);
      if (arrays[k] == NULL)
        continue;
      lengths[k] = json_array_get_length (arrays[k]);
      if (lengths[k] != n_t)
        continue;
      if (k == 0)
        columns->files = g_new (guint64, MAX (n_t, 1));
      else if (k == 1)
        columns->bytes = g_new (guint64, MAX (n_t, 1));
      else
        columns->values[k - 2] = g_new (double, MAX (n_t, 1));
    }
  for (guint k = 0; k < CS_N_COUNTERS + 2 && !r->failed; k++)
    if (arrays[k] != NULL && lengths[k] != n_t)
      reader_fail (r, "“samples.%s” has %u values, “samples.t” has %u", column_name (k), lengths[k], n_t);

  /* In sample order, so the first bad value named is the earliest. */
  for (guint i = 0; i < n_t && !r->failed; i++)
    {
      double number = 0;
      gint64 integer = 0;
      TokenKind token;

      token = node_token (json_array_get_element (t, i), &number, &integer);
      column_value (r, COLUMN_TIME, token, number, integer, i, "t", &columns->t[i], NULL);
      for (guint k = 0; k < CS_N_COUNTERS + 2; k++)
        {
          if (arrays[k] == NULL)
            continue;
          token = node_token (json_array_get_element (arrays[k], i), &number, &integer);
          if (k < 2)
            column_value (r, COLUMN_COUNT, token, number, integer, i, column_name (k), NULL,
                          k == 0 ? &columns->files[i] : &columns->bytes[i]);
          else
            column_value (r, COLUMN_COUNTER, token, number, integer, i, column_name (k),
                          &columns->values[k - 2][i], NULL);
        }
    }
  columns_check (r, columns, n_t, lengths);
}

/*
 * The samples' columns from their text, without a tree: a record of version
 * 1 holds every sample, 345,600 of them in 120 MB for a day, and json-glib's
 * tree of that is over a gigabyte. The text has passed the checks of
 * cs-json-io (tokens, UTF-8, nesting); the shape is checked here:
 * { "key": [ number or null, … ], … }.
 */
typedef struct {
  const char *p;
  const char *end;
} Text;

static void
text_space (Text *x)
{
  while (x->p < x->end && (*x->p == ' ' || *x->p == '\n' || *x->p == '\r' || *x->p == '\t'))
    x->p++;
}

static gboolean
text_take (Text *x,
           char  c)
{
  text_space (x);
  if (x->p < x->end && *x->p == c)
    {
      x->p++;
      return TRUE;
    }
  return FALSE;
}

/* A key without escapes (ours have none); NULL for anything else. */
static char *
text_key (Text *x)
{
  const char *start;

  text_space (x);
  if (x->p >= x->end || *x->p != '"')
    return NULL;
  start = ++x->p;
  while (x->p < x->end && *x->p != '"' && *x->p != '\\')
    x->p++;
  if (x->p >= x->end || *x->p != '"')
    return NULL;

  return g_strndup (start, (gsize) (x->p++ - start));
}

/* One value of a column. The text is NUL-terminated after its end. */
static TokenKind
text_value (Text   *x,
            double *number,
            gint64 *integer)
{
  const char *start;
  gboolean whole = TRUE;

  text_space (x);
  start = x->p;
  if (x->end - x->p >= 4 && memcmp (x->p, "null", 4) == 0)
    {
      x->p += 4;
      return TOKEN_NULL;
    }
  while (x->p < x->end && (g_ascii_isdigit (*x->p) || *x->p == '-'))
    x->p++;
  /* A fraction or an exponent: a double, not a count. */
  while (x->p < x->end && (g_ascii_isdigit (*x->p) || *x->p == '.' || *x->p == 'e' ||
                           *x->p == 'E' || *x->p == '-' || *x->p == '+'))
    {
      whole = FALSE;
      x->p++;
    }
  if (x->p == start)
    return TOKEN_OTHER;
  if (whole)
    {
      *integer = g_ascii_strtoll (start, NULL, 10);
      return TOKEN_INTEGER;
    }
  *number = g_ascii_strtod (start, NULL);

  return TOKEN_NUMBER;
}

/* Past one value of any kind (a column not ours), brackets and strings balanced. */
static gboolean
text_skip_value (Text *x)
{
  guint depth = 0;

  text_space (x);
  do
    {
      if (x->p >= x->end)
        return FALSE;
      if (*x->p == '"')
        {
          for (x->p++; x->p < x->end && *x->p != '"'; x->p++)
            if (*x->p == '\\')
              x->p++;
        }
      else if (*x->p == '[' || *x->p == '{')
        depth++;
      else if (*x->p == ']' || *x->p == '}')
        {
          if (depth == 0)
            return TRUE;
          depth--;
        }
      else if (*x->p == ',' && depth == 0)
        return TRUE;
      x->p++;
    }
  while (depth > 0 || (x->p < x->end && *x->p != ',' && *x->p != '}' && *x->p != ']'));

  return TRUE;
}

static void
read_columns_text (Reader     *r,
                   GBytes     *text,
                   Columns    *columns)
{
  guint lengths[CS_N_COUNTERS + 2] = { 0 };
  gsize len = 0;
  Text x;
  guint n_t = 0;

  x.p = g_bytes_get_data (text, &len);
  x.end = x.p + len;

  if (!text_take (&x, '{'))
    {
      reader_fail (r, "“samples” must be an object");
      return;
    }
  if (!text_take (&x, '}'))
    {
      do
        {
          g_autofree char *name = text_key (&x);
          ColumnKind kind;
          double **doubles;
          guint64 **counts;
          int index;
          guint n = 0, cap = 0;

          if (name == NULL || !text_take (&x, ':'))
            {
              reader_fail (r, "“samples” is not made of columns");
              return;
            }
          if (!column_slot (columns, name, &kind, &doubles, &counts, &index))
            {
              if (!text_skip_value (&x))
                {
                  reader_fail (r, "“samples” is not made of columns");
                  return;
                }
              continue;
            }
          if (!text_take (&x, '['))
            {
              fail_field (r, "samples", name, "must be an array");
              return;
            }
          /* A key given twice counts once, its last values, as json-glib reads it. */
          if (doubles != NULL)
            g_clear_pointer (doubles, g_free);
          else
            g_clear_pointer (counts, g_free);
          if (!text_take (&x, ']'))
            {
              do
                {
                  double number = 0;
                  gint64 integer = 0;
                  TokenKind token = text_value (&x, &number, &integer);

                  if (n >= MAX_SAMPLES)
                    {
                      reader_fail (r, "more than %d samples", MAX_SAMPLES);
                      return;
                    }
                  if (n == cap)
                    {
                      cap = MAX (cap * 2, 4096);
                      if (doubles != NULL)
                        *doubles = g_renew (double, *doubles, cap);
                      else
                        *counts = g_renew (guint64, *counts, cap);
                    }
                  column_value (r, kind, token, number, integer, n, name,
                                doubles != NULL ? &(*doubles)[n] : NULL,
                                counts != NULL ? &(*counts)[n] : NULL);
                  n++;
                }
              while (!r->failed && text_take (&x, ','));
              if (r->failed)
                return;
              if (!text_take (&x, ']'))
                {
                  reader_fail (r, "“samples.%s” is not an array of numbers", name);
                  return;
                }
            }
          else if (doubles != NULL)
            {
              *doubles = g_new (double, 1);
            }
          else
            {
              *counts = g_new (guint64, 1);
            }
          if (index < 0)
            n_t = n;
          else
            lengths[index] = n;
        }
      while (text_take (&x, ','));

      if (!text_take (&x, '}'))
        {
          reader_fail (r, "“samples” is not made of columns");
          return;
        }
    }
  text_space (&x);
  if (x.p != x.end)
    {
      reader_fail (r, "“samples” is not made of columns");
      return;
    }

  columns_check (r, columns, n_t, lengths);
}

/* Each sample of the columns, as the sampler would have added it. @count:
 * into the statistics (a version 1 record keeps none to read back). */
static void
store_columns (CsRun   *run,
               Columns *columns,
               gboolean count)
{
  for (guint i = 0; i < columns->n; i++)
    {
      CsSample sample;

      sample.t = columns->t[i];
      sample.files_done = columns->files[i];
      sample.bytes_done = columns->bytes[i];
      for (guint c = 0; c < CS_N_COUNTERS; c++)
        sample.values[c] = columns->values[c] != NULL ? columns->values[c][i] : NAN;
      store_sample (run, &sample, count);
    }
  settle_pending (run);
}

/* Version 2: the buckets, in columns like the samples'. */
static void
read_buckets (Reader     *r,
              JsonObject *root,
              CsRun      *run)
{
  JsonObject *o;
  JsonArray *t;
  guint n;
  JsonArray *columns[4 + 3 * CS_N_COUNTERS];
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);

  if (json_object_get_member (root, "buckets") == NULL)
    return;
  o = read_object (r, root, "", "buckets");
  if (o == NULL)
    return;
  run->bucket_width = read_double (r, o, "buckets", "width", 1e-3, MAX_DURATION);
  t = read_array (r, o, "buckets", "t", TRUE);
  if (t == NULL)
    return;
  n = json_array_get_length (t);
  if (n > MAX_BUCKETS_READ)
    {
      reader_fail (r, "more than %d buckets", MAX_BUCKETS_READ);
      return;
    }

  g_ptr_array_add (names, g_strdup ("t_start"));
  g_ptr_array_add (names, g_strdup ("n"));
  g_ptr_array_add (names, g_strdup ("files_done"));
  g_ptr_array_add (names, g_strdup ("bytes_done"));
  for (guint c = 0; c < CS_N_COUNTERS; c++)
    {
      const char *key = cs_counter_get_info (c)->key;

      g_ptr_array_add (names, g_strdup (key));
      g_ptr_array_add (names, g_strconcat (key, "_min", NULL));
      g_ptr_array_add (names, g_strconcat (key, "_max", NULL));
    }
  for (guint k = 0; k < names->len && !r->failed; k++)
    {
      columns[k] = read_array (r, o, "buckets", names->pdata[k], k < 4);
      if (columns[k] != NULL && json_array_get_length (columns[k]) != n)
        reader_fail (r, "“buckets.%s” has %u values, “buckets.t” has %u",
                     (const char *) names->pdata[k], json_array_get_length (columns[k]), n);
    }

  for (guint i = 0; i < n && !r->failed; i++)
    {
      char where[32];
      CsBucket bucket = { 0 };

      g_snprintf (where, sizeof where, "buckets[%u]", i);
      bucket.sample.t = read_double_node (r, json_array_get_element (t, i), where, "t", 0, MAX_DURATION, FALSE);
      bucket.t_start = read_double_node (r, json_array_get_element (columns[0], i), where, "t_start",
                                         0, bucket.sample.t, FALSE);
      bucket.n = read_int_node (r, json_array_get_element (columns[1], i), where, "n", 1, MAX_SAMPLES);
      bucket.sample.files_done = read_int_node (r, json_array_get_element (columns[2], i), where,
                                                "files_done", 0, MAX_COUNT);
      bucket.sample.bytes_done = read_int_node (r, json_array_get_element (columns[3], i), where,
                                                "bytes_done", 0, MAX_BYTES);
      for (guint c = 0; c < CS_N_COUNTERS; c++)
        {
          double *into[3] = { &bucket.sample.values[c], &bucket.min[c], &bucket.max[c] };

          for (guint k = 0; k < 3; k++)
            {
              JsonArray *column = columns[4 + 3 * c + k];

              *into[k] = column == NULL ? NAN
                         : read_double_node (r, json_array_get_element (column, i), where,
                                             names->pdata[4 + 3 * c + k], 0, MAX_COUNTER_VALUE, TRUE);
            }
        }
      if (run->buckets->len > 0 &&
          bucket.t_start < g_array_index (run->buckets, CsBucket, run->buckets->len - 1).sample.t)
        reader_fail (r, "“%s” begins before the one before it ends", where);
      g_array_append_val (run->buckets, bucket);
    }
}

/* Version 2: the statistics, kept as the samples came, read back. */
static void
read_stats (Reader     *r,
            JsonObject *root,
            CsRun      *run)
{
  JsonObject *o = read_object (r, root, "", "stats");

  for (guint c = 0; o != NULL && c < CS_N_COUNTERS && !r->failed; c++)
    {
      const char *key = cs_counter_get_info (c)->key;
      g_autofree char *where = g_strconcat ("stats.", key, NULL);
      JsonObject *stat;

      if (json_object_get_member (o, key) == NULL)
        continue;
      stat = read_object (r, o, "stats", key);
      if (stat == NULL)
        return;
      run->sums[c].n = read_int (r, stat, where, "n", 0, MAX_SAMPLES);
      run->sums[c].min = read_double (r, stat, where, "min", 0, MAX_COUNTER_VALUE);
      run->sums[c].max = read_double (r, stat, where, "max", 0, MAX_COUNTER_VALUE);
      run->sums[c].sum = read_double (r, stat, where, "sum", 0, MAX_COUNTER_VALUE * MAX_SAMPLES);
      if (run->sums[c].n == 0)
        run->sums[c] = (StatSum) { 0, 0, INFINITY, -INFINITY };
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

/* @samples_text: the value of "samples", left out of the tree by the file
 * reader; NULL to read it from the tree. */
static CsRun *
run_from_json (JsonNode  *node,
               GBytes    *samples_text,
               GError   **error)
{
  g_autoptr(CsRun) run = NULL;
  g_auto(Columns) columns = { 0 };
  gint64 schema = 0;
  g_autofree char *id = NULL;
  g_autofree char *kind = NULL;
  g_autofree char *outcome = NULL;
  Reader r = { error, FALSE };
  JsonObject *root;
  JsonNode *version;
  JsonArray *sources;
  JsonArray *sources_raw;

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
  if (JSON_NODE_HOLDS_VALUE (version) && json_node_get_value_type (version) == G_TYPE_INT64)
    schema = json_node_get_int (version);
  if (schema < 1 || schema > CS_RUN_SCHEMA_VERSION)
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
  run->skips_known = read_skips (&r, root, &run->skips);
  read_manifest (&r, root, &run->manifest);

  outcome = read_string (&r, root, "", "outcome", FALSE);
  if (outcome != NULL && !outcome_is_known (outcome))
    reader_fail (&r, "“outcome” has an unknown value");
  if (outcome != NULL)
    run->outcome = g_intern_string (outcome);
  run->fatal_error = read_string (&r, root, "", "fatal_error", TRUE);

  read_timeline (&r, root, run->timeline);
  read_events (&r, root, run->events, &run->events_omitted);
  read_errors (&r, root, run->errors, &run->errors_omitted);
  for (guint i = 0; i < run->errors->len; i++)
    {
      if (((CsRunError *) g_ptr_array_index (run->errors, i))->note)
        run->n_notes++;
      else
        run->n_errors++;
    }
  if (schema >= 2 && json_object_get_member (root, "header") != NULL)
    {
      run->header = read_bool (&r, root, "", "header");
      /* A header written before notes counts them with the failures. */
      run->n_errors = read_int (&r, root, "", "n_errors", 0, CS_RUN_MAX_ERRORS);
      if (json_object_has_member (root, "n_notes"))
        run->n_notes = read_int (&r, root, "", "n_notes", 0, CS_RUN_MAX_ERRORS);
      run->header_samples = read_int (&r, root, "", "n_samples", 0, G_MAXUINT);
    }

  if (samples_text != NULL)
    read_columns_text (&r, samples_text, &columns);
  else
    read_columns_tree (&r, root, &columns);

  if (schema == 1)
    {
      /* Every sample whole, and statistics of them alone: the samples are
       * reduced as a recording run would, and counted as they come. */
      if (!r.failed && json_object_has_member (root, "stats"))
        read_object (&r, root, "", "stats");
      if (!r.failed)
        store_columns (run, &columns, TRUE);
    }
  else
    {
      read_buckets (&r, root, run);
      read_stats (&r, root, run);
      if (!r.failed)
        store_columns (run, &columns, FALSE);
    }

  if (r.failed)
    return NULL;

  return g_steal_pointer (&run);
}

CsRun *
cs_run_new_from_json (JsonNode  *node,
                      GError   **error)
{
  g_return_val_if_fail (node != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return run_from_json (node, NULL, error);
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
  g_autoptr(GBytes) samples = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* The samples are read from their text: see read_columns_text (). */
  root = cs_json_load_file_apart (path, &run_limits, "samples", &samples, &local_error);
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

  return run_from_json (root, samples, error);
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
                        n_samples_locked (run),
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
  if (!g_uuid_string_is_valid (id) || !outcome_is_known (outcome) ||
      n_values != CS_N_CLASSES * CS_N_KINDS || g_variant_n_children (stats) != CS_N_COUNTERS ||
      run->started < 0 || run->started > MAX_STARTED_USEC ||
      !(run->duration >= 0 && run->duration <= MAX_DURATION) ||
      !(run->held >= 0 && run->held <= MAX_DURATION) ||
      (manifest_algo != NULL && manifest_algo_known (manifest_algo) == NULL))
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
          run->manifest.algo = g_strdup (manifest_algo_known (manifest_algo));
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
