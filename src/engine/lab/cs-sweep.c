/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-sweep"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>

#include "cs-io-quiet-private.h"
#include "cs-json-io.h"
#include "cs-run.h"
#include "cs-smb.h"
#include "cs-sweep.h"
#include "cs-task-private.h"
#include "cs-tsan-private.h"

/*
 * A thread sweep: the same copy timed at several thread counts, repeated, as
 * seed 001 (docs/ARCHITECTURE.md) did by hand with Robocopy. The
 * recommendation is the knee, not the peak: the fewest threads that get within
 * a few percent of the best.
 */

struct _CsSweep {
  gatomicrefcount ref;
  char     *id;
  char     *source;
  char     *destination;
  GArray   *threads;      /* guint */
  guint     repeats;
  gboolean  cold;
  char     *cache_mode;
  gint64    started;
  GArray   *runs;         /* CsSweepRun */
};

static const guint default_threads[] = { 1, 2, 4, 8, 16, 32, 64, 128 };

G_DEFINE_BOXED_TYPE (CsSweep, cs_sweep, cs_sweep_ref, cs_sweep_unref)

CsSweep *
cs_sweep_new (const char *source,
              const char *destination)
{
  CsSweep *self = g_new0 (CsSweep, 1);

  g_atomic_ref_count_init (&self->ref);
  self->id = g_uuid_string_random ();
  /* A password in a URL to the login, not into the sweep's record. */
  self->source = cs_smb_location_take_password (source, NULL);
  self->destination = cs_smb_location_take_password (destination, NULL);
  self->threads = g_array_new (FALSE, FALSE, sizeof (guint));
  g_array_append_vals (self->threads, default_threads, G_N_ELEMENTS (default_threads));
  self->repeats = 3;
  self->cold = TRUE;
  self->cache_mode = g_strdup ("not run");
  self->runs = g_array_new (FALSE, TRUE, sizeof (CsSweepRun));

  return self;
}

CsSweep *
cs_sweep_ref (CsSweep *sweep)
{
  g_return_val_if_fail (sweep != NULL, NULL);
  g_atomic_ref_count_inc (&sweep->ref);
  return sweep;
}

void
cs_sweep_unref (CsSweep *sweep)
{
  g_return_if_fail (sweep != NULL);

  if (!g_atomic_ref_count_dec (&sweep->ref))
    return;
  g_free (sweep->id);
  g_free (sweep->source);
  g_free (sweep->destination);
  g_array_unref (sweep->threads);
  g_free (sweep->cache_mode);
  g_array_unref (sweep->runs);
  g_free (sweep);
}

void
cs_sweep_set_threads (CsSweep     *sweep,
                      const guint *threads,
                      guint        n_threads)
{
  g_return_if_fail (sweep != NULL);
  g_return_if_fail (threads != NULL && n_threads > 0);

  g_array_set_size (sweep->threads, 0);
  for (guint i = 0; i < n_threads; i++)
    {
      g_return_if_fail (threads[i] >= CS_JOB_MIN_THREADS && threads[i] <= CS_JOB_MAX_THREADS);
      g_array_append_val (sweep->threads, threads[i]);
    }
}

void
cs_sweep_set_repeats (CsSweep *sweep,
                      guint    repeats)
{
  g_return_if_fail (sweep != NULL);
  g_return_if_fail (repeats >= 1 && repeats <= 100);
  sweep->repeats = repeats;
}

void
cs_sweep_set_cold (CsSweep  *sweep,
                   gboolean  cold)
{
  g_return_if_fail (sweep != NULL);
  sweep->cold = !!cold;
}

const char *
cs_sweep_get_source (CsSweep *sweep)
{
  return sweep->source;
}

const char *
cs_sweep_get_destination (CsSweep *sweep)
{
  return sweep->destination;
}

const char *
cs_sweep_get_cache_mode (CsSweep *sweep)
{
  return sweep->cache_mode;
}

gint64
cs_sweep_get_started (CsSweep *sweep)
{
  return sweep->started;
}

guint
cs_sweep_get_repeats (CsSweep *sweep)
{
  return sweep->repeats;
}

const CsSweepRun *
cs_sweep_get_runs (CsSweep *sweep,
                   guint   *n_runs)
{
  *n_runs = sweep->runs->len;
  return (const CsSweepRun *) (gpointer) sweep->runs->data;
}

/* ---- Statistics and the knee --------------------------------------------- */

static int
compare_double (gconstpointer a,
                gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static int
compare_uint (gconstpointer a,
              gconstpointer b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;
  return (x > y) - (x < y);
}

static void
summarize (double *values,
           guint   n,
           double  out[3])
{
  qsort (values, n, sizeof (double), compare_double);
  out[0] = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
  out[1] = values[0];
  out[2] = values[n - 1];
}

CsSweepStat *
cs_sweep_dup_stats (CsSweep *sweep,
                    guint   *n_stats)
{
  g_autoptr(GArray) stats = g_array_new (FALSE, TRUE, sizeof (CsSweepStat));
  g_autoptr(GArray) counts = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint i = 0; i < sweep->runs->len; i++)
    {
      guint t = g_array_index (sweep->runs, CsSweepRun, i).threads;
      gboolean seen = FALSE;

      for (guint j = 0; j < counts->len; j++)
        seen |= g_array_index (counts, guint, j) == t;
      if (!seen)
        g_array_append_val (counts, t);
    }
  g_array_sort (counts, compare_uint);

  for (guint j = 0; j < counts->len; j++)
    {
      guint t = g_array_index (counts, guint, j);
      g_autofree double *secs = g_new (double, sweep->runs->len);
      g_autofree double *bytes = g_new (double, sweep->runs->len);
      g_autofree double *files = g_new (double, sweep->runs->len);
      double amount[3];
      CsSweepStat stat = { t, 0 };

      for (guint i = 0; i < sweep->runs->len; i++)
        {
          const CsSweepRun *run = &g_array_index (sweep->runs, CsSweepRun, i);

          if (run->threads != t || !run->ok)
            continue;
          secs[stat.n] = run->seconds;
          bytes[stat.n] = (double) run->bytes;
          files[stat.n] = (double) run->files;
          stat.n++;
        }
      if (stat.n == 0)
        continue;
      summarize (secs, stat.n, stat.seconds);
      /* The rates are the data over the median time (and over the longest and
       * the shortest), not medians of their own: a chart beside the
       * recommendation then tells the same story in other units. */
      summarize (bytes, stat.n, amount);
      for (guint k = 0; k < 3; k++)
        stat.mb_per_second[k] = amount[0] / 1e6 / stat.seconds[k == 0 ? 0 : k == 1 ? 2 : 1];
      summarize (files, stat.n, amount);
      for (guint k = 0; k < 3; k++)
        stat.files_per_second[k] = amount[0] / stat.seconds[k == 0 ? 0 : k == 1 ? 2 : 1];
      g_array_append_val (stats, stat);
    }

  *n_stats = stats->len;
  return (CsSweepStat *) (gpointer) g_array_free (g_steal_pointer (&stats), FALSE);
}

/* "2.1 %", "12 %": a gap of a few percent keeps a decimal. */
static char *
percent_text (double percent)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strconcat (g_ascii_formatd (buf, sizeof buf, fabs (percent) < 9.95 ? "%.1f" : "%.0f", percent),
                      " %", NULL);
}

int
cs_sweep_find_knee (const CsSweepStat *stats,
                    guint              n_stats,
                    double             tolerance,
                    char             **out_sentence)
{
  double best = INFINITY;
  int knee = -1;

  if (out_sentence != NULL)
    *out_sentence = NULL;
  for (guint i = 0; i < n_stats; i++)
    if (stats[i].n > 0 && isfinite (stats[i].seconds[0]) && stats[i].seconds[0] > 0)
      best = MIN (best, stats[i].seconds[0]);
  if (!isfinite (best))
    return -1;

  /* Stats come sorted by thread count: the first within tolerance is the knee. */
  for (guint i = 0; i < n_stats; i++)
    if (stats[i].n > 0 && stats[i].seconds[0] > 0 && stats[i].seconds[0] <= best * (1.0 + tolerance))
      {
        knee = (int) i;
        break;
      }

  if (out_sentence != NULL)
    {
      const CsSweepStat *k = &stats[knee];
      g_autofree char *knee_s = cs_format_duration (k->seconds[0], CS_DURATION_MEASURED, FALSE);
      int fastest = -1, next = -1;

      for (guint i = 0; i < n_stats; i++)
        if (stats[i].n > 0 && stats[i].seconds[0] == best && fastest < 0)
          fastest = (int) i;
      for (guint i = (guint) knee + 1; i < n_stats; i++)
        if (stats[i].n > 0 && stats[i].seconds[0] > 0)
          {
            next = (int) i;
            break;
          }

      if (fastest != knee)
        {
          g_autofree char *best_s = cs_format_duration (best, CS_DURATION_MEASURED, FALSE);
          g_autofree char *gap = percent_text (100.0 * (k->seconds[0] / best - 1.0));

          /* The gap as a ratio of times is the same as of rates, so each
           * chart shows this number too. */
          *out_sentence = g_strdup_printf ("%u %s: %s, within %.0f %% of the best: %s longer than "
                                           "%u threads' %s.",
                                           k->threads, k->threads == 1 ? "thread" : "threads", knee_s,
                                           tolerance * 100, gap, stats[fastest].threads, best_s);
        }
      else if (next < 0)
        *out_sentence = g_strdup_printf ("%u %s: %s, the fastest of the counts tried.",
                                         k->threads, k->threads == 1 ? "thread" : "threads", knee_s);
      else
        {
          g_autofree char *next_s = cs_format_duration (stats[next].seconds[0], CS_DURATION_MEASURED, FALSE);
          g_autofree char *gap = percent_text (100.0 * (stats[next].seconds[0] / k->seconds[0] - 1.0));

          *out_sentence = g_strdup_printf ("%u %s: %s, the fastest of the counts tried; "
                                           "%u threads took %s, %s longer.",
                                           k->threads, k->threads == 1 ? "thread" : "threads", knee_s,
                                           stats[next].threads, next_s, gap);
        }
    }

  return knee;
}

guint
cs_sweep_get_recommended (CsSweep  *sweep,
                          char    **out_sentence)
{
  g_autofree CsSweepStat *stats = NULL;
  guint n = 0;
  int knee;

  stats = cs_sweep_dup_stats (sweep, &n);
  knee = cs_sweep_find_knee (stats, n, CS_SWEEP_TOLERANCE, out_sentence);
  return knee >= 0 ? stats[knee].threads : 0;
}

/* ---- Running ------------------------------------------------------------- */

static void
evict_at (int         parent_fd,
          const char *name)
{
  struct stat st;
  int fd;

  if (_cs_io_quiet_fstatat (parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return;
  if (S_ISREG (st.st_mode))
    {
      fd = _cs_io_quiet_openat (parent_fd, name, O_RDONLY | O_NOFOLLOW, 0);
      if (fd >= 0)
        {
          _cs_io_quiet_fadvise (fd, 0, 0, POSIX_FADV_DONTNEED);
          _cs_io_quiet_close (fd);
        }
    }
  else if (S_ISDIR (st.st_mode))
    {
      g_autofree char *buf = NULL;
      ssize_t n;

      fd = _cs_io_quiet_openat (parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
      if (fd < 0)
        return;
      buf = g_malloc (32 * 1024);
      while ((n = _cs_io_quiet_getdents (fd, buf, 32 * 1024)) > 0)
        for (ssize_t pos = 0; pos < n;)
          {
            struct linux_dirent64 *d = (struct linux_dirent64 *) (gpointer) (buf + pos);

            if (strcmp (d->d_name, ".") != 0 && strcmp (d->d_name, "..") != 0)
              evict_at (fd, d->d_name);
            pos += d->d_reclen;
          }
      _cs_io_quiet_close (fd);
    }
}

/* Cold cache: drop every cache as root; otherwise evict the source's pages. */
static const char *
prepare_cache (CsSweep *sweep)
{
  int fd;

  if (!sweep->cold)
    return "warm";

  sync ();
  fd = open ("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
  if (fd >= 0)
    {
      gboolean ok = write (fd, "3\n", 2) == 2;

      close (fd);
      if (ok)
        return "cold (drop_caches)";
    }
  evict_at (CS_IO_AT_LOCATION, sweep->source);
  return "cold (posix_fadvise)";
}

/* The destination folder, opened through its backend: a path, or a URL such
 * as smb://user@server/share/folder. */
static int
open_destination (CsSweep  *sweep,
                  GError  **error)
{
  int fd = _cs_io_quiet_openat (CS_IO_AT_LOCATION, sweep->destination, O_RDONLY | O_DIRECTORY, 0);
  int code = errno;
  g_autofree char *display = NULL;
  g_autofree char *why = NULL;

  if (fd >= 0)
    return fd;
  display = g_filename_display_name (sweep->destination);
  if (code == ENOENT)
    why = _cs_io_explain_missing (sweep->destination);
  if (why == NULL && (code == ENOENT || code == ENOTDIR))
    why = g_strdup (_("The destination must be an existing folder"));
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (code), "%s: %s", display,
               why != NULL ? why : g_strerror (code));
  return -1;
}

/* Every copy in turn, each into a new folder in @dest_fd, named for the
 * sweep, its thread count and its round: what is removed after it is
 * timed is only ever that folder. */
static gboolean
run_all (CsSweep         *sweep,
         int              dest_fd,
         CsSweepRunFunc   func,
         gpointer         user_data,
         GCancellable    *cancellable,
         GError         **error)
{
  guint total = sweep->threads->len * sweep->repeats, index = 0;

  for (guint r = 0; r < sweep->repeats; r++)
    for (guint i = 0; i < sweep->threads->len; i++, index++)
      {
        guint threads = g_array_index (sweep->threads, guint, i);
        g_autofree char *name = g_strdup_printf ("sweep-%s-%ut-%u", sweep->id, threads, r + 1);
        g_autofree char *target = g_build_filename (sweep->destination, name, NULL);
        g_autoptr(CsJob) job = NULL;
        g_autoptr(GError) local_error = NULL;
        CsSweepRun run = { threads, r + 1 };
        CsTotals totals;
        const char *mode;
        gboolean ok;

        if (g_cancellable_set_error_if_cancelled (cancellable, error))
          return FALSE;

        mode = prepare_cache (sweep);
        g_free (sweep->cache_mode);
        sweep->cache_mode = g_strdup (mode);

        job = cs_job_new ();
        cs_job_add_source (job, sweep->source);
        cs_job_set_destination (job, target);
        cs_job_set_threads (job, threads, NULL);
        cs_job_set_cache_mode (job, mode);
        if (func != NULL)
          func (sweep, job, index, total, user_data);

        ok = cs_job_run_sync (job, cancellable, &local_error);
        cs_run_get_totals (cs_job_get_run (job), &totals);
        run.seconds = cs_run_get_duration (cs_job_get_run (job));
        run.files = totals.v[CS_CLASS_COPIED][CS_KIND_FILES];
        run.bytes = totals.v[CS_CLASS_COPIED][CS_KIND_BYTES];
        run.ok = ok && totals.v[CS_CLASS_FAILED][CS_KIND_FILES] == 0 && run.seconds > 0;
        if (run.seconds > 0)
          {
            run.mb_per_second = (double) run.bytes / 1e6 / run.seconds;
            run.files_per_second = (double) run.files / run.seconds;
          }
        g_array_append_val (sweep->runs, run);

        /* Outside the timed region: the next run writes into a new folder. */
        _cs_io_quiet_remove_tree (dest_fd, name);
        sync ();

        if (!ok)
          {
            if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED)
                || g_cancellable_is_cancelled (cancellable))
              {
                g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "The sweep was cancelled");
                return FALSE;
              }
            g_propagate_error (error, g_steal_pointer (&local_error));
            return FALSE;
          }
      }

  return TRUE;
}

gboolean
cs_sweep_run_sync (CsSweep         *sweep,
                   CsSweepRunFunc   func,
                   gpointer         user_data,
                   GCancellable    *cancellable,
                   GError         **error)
{
  int dest_fd;
  gboolean ok;

  g_return_val_if_fail (sweep != NULL, FALSE);

  sweep->started = g_get_real_time ();
  g_array_set_size (sweep->runs, 0);

  /* Opened once, through its backend, before any copy: a destination that
   * is not a folder stops the sweep at once, and each copy's folder is
   * removed by its name in this one. The removals are no run's requests:
   * the seam's quiet door (cs-io-quiet-private.h) counts nothing. */
  dest_fd = open_destination (sweep, error);
  if (dest_fd < 0)
    return FALSE;
  ok = run_all (sweep, dest_fd, func, user_data, cancellable, error);
  _cs_io_quiet_close (dest_fd);
  return ok;
}

typedef struct {
  CsSweep        *sweep;
  CsSweepRunFunc  func;
  gpointer        func_data;
} SweepTask;

static void
sweep_task_free (gpointer data)
{
  SweepTask *t = data;

  cs_sweep_unref (t->sweep);
  g_free (t);
}

typedef struct {
  SweepTask *t;
  CsJob     *job;
  guint      index;
  guint      total;
} SweepCall;

/* the caller's thread, while the sweep's waits */
static void
sweep_task_call (gpointer data)
{
  SweepCall *c = data;

  c->t->func (c->t->sweep, c->job, c->index, c->total, c->t->func_data);
}

/* the sweep's thread: the caller hears of the copy before it starts */
static void
sweep_task_func (CsSweep  *sweep,
                 CsJob    *job,
                 guint     index,
                 guint     total,
                 gpointer  data)
{
  SweepCall c = { data, job, index, total };

  _cs_task_call_in_caller (sweep_task_call, &c);
}

static gboolean
sweep_task_run (gpointer       data,
                GCancellable  *cancellable,
                GError       **error)
{
  SweepTask *t = data;

  return cs_sweep_run_sync (t->sweep, t->func != NULL ? sweep_task_func : NULL, t,
                            cancellable, error);
}

void
cs_sweep_run_async (CsSweep             *sweep,
                    CsSweepRunFunc       func,
                    gpointer             func_data,
                    GCancellable        *cancellable,
                    GAsyncReadyCallback  callback,
                    gpointer             user_data)
{
  SweepTask *t;

  g_return_if_fail (sweep != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  t = g_new0 (SweepTask, 1);
  *t = (SweepTask) { cs_sweep_ref (sweep), func, func_data };
  _cs_task_run_in_thread (cs_sweep_run_async, t, sweep_task_free, sweep_task_run,
                          cancellable, callback, user_data);
}

gboolean
cs_sweep_run_finish (CsSweep       *sweep,
                     GAsyncResult  *result,
                     GError       **error)
{
  SweepTask *t;

  g_return_val_if_fail (sweep != NULL, FALSE);
  t = _cs_task_get_data (result, cs_sweep_run_async);
  g_return_val_if_fail (t != NULL && t->sweep == sweep, FALSE);

  return _cs_task_finish (result, cs_sweep_run_async, error);
}

/* ---- Files --------------------------------------------------------------- */

JsonNode *
cs_sweep_to_json (CsSweep *sweep)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autofree char *sentence = NULL;
  g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc (sweep->started / G_USEC_PER_SEC);
  g_autofree char *iso = dt != NULL ? g_date_time_format_iso8601 (dt) : g_strdup ("");
  guint recommended = cs_sweep_get_recommended (sweep, &sentence);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "schema_version");
  json_builder_add_int_value (b, CS_SWEEP_SCHEMA_VERSION);
  json_builder_set_member_name (b, "kind");
  json_builder_add_string_value (b, "sweep");
  json_builder_set_member_name (b, "id");
  json_builder_add_string_value (b, sweep->id);
  json_builder_set_member_name (b, "source");
  json_builder_add_string_value (b, sweep->source);
  json_builder_set_member_name (b, "destination");
  json_builder_add_string_value (b, sweep->destination);
  json_builder_set_member_name (b, "started");
  json_builder_add_string_value (b, iso);
  json_builder_set_member_name (b, "started_us");
  json_builder_add_int_value (b, sweep->started);
  json_builder_set_member_name (b, "cache_mode");
  json_builder_add_string_value (b, sweep->cache_mode);
  json_builder_set_member_name (b, "repeats");
  json_builder_add_int_value (b, sweep->repeats);
  json_builder_set_member_name (b, "threads");
  json_builder_begin_array (b);
  for (guint i = 0; i < sweep->threads->len; i++)
    json_builder_add_int_value (b, g_array_index (sweep->threads, guint, i));
  json_builder_end_array (b);
  json_builder_set_member_name (b, "runs");
  json_builder_begin_array (b);
  for (guint i = 0; i < sweep->runs->len; i++)
    {
      const CsSweepRun *run = &g_array_index (sweep->runs, CsSweepRun, i);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "threads");
      json_builder_add_int_value (b, run->threads);
      json_builder_set_member_name (b, "repeat");
      json_builder_add_int_value (b, run->repeat);
      json_builder_set_member_name (b, "seconds");
      json_builder_add_double_value (b, run->seconds);
      json_builder_set_member_name (b, "mb_per_second");
      json_builder_add_double_value (b, run->mb_per_second);
      json_builder_set_member_name (b, "files_per_second");
      json_builder_add_double_value (b, run->files_per_second);
      json_builder_set_member_name (b, "files");
      json_builder_add_int_value (b, (gint64) run->files);
      json_builder_set_member_name (b, "bytes");
      json_builder_add_int_value (b, (gint64) run->bytes);
      json_builder_set_member_name (b, "ok");
      json_builder_add_boolean_value (b, run->ok);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "recommended_threads");
  json_builder_add_int_value (b, recommended);
  json_builder_set_member_name (b, "recommendation");
  json_builder_add_string_value (b, sentence != NULL ? sentence : "");
  json_builder_end_object (b);

  return json_builder_get_root (b);
}

static gboolean
invalid (GError    **error,
         const char *what)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "Not a valid sweep file: %s", what);
  return FALSE;
}

static gboolean
get_number (JsonObject *o,
            const char *name,
            double      max,
            double     *out,
            GError    **error)
{
  JsonNode *node = json_object_get_member (o, name);
  GType type = node != NULL && JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_INVALID;
  double v;

  if (type != G_TYPE_INT64 && type != G_TYPE_DOUBLE)
    return invalid (error, name);
  v = json_node_get_double (node);
  if (!isfinite (v) || v < 0 || v > max)
    return invalid (error, name);
  *out = v;
  return TRUE;
}

static const char *
get_string (JsonObject *o,
            const char *name)
{
  JsonNode *node = json_object_get_member (o, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

/* @default_value unless the member is true or false. */
static gboolean
get_boolean (JsonObject *o,
             const char *name,
             gboolean    default_value)
{
  JsonNode *node = json_object_get_member (o, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return default_value;
  return json_node_get_boolean (node);
}

CsSweep *
cs_sweep_new_from_json (JsonNode  *node,
                        GError   **error)
{
  g_autoptr(CsSweep) sweep = NULL;
  JsonObject *o;
  JsonArray *runs;
  const char *source, *destination, *kind, *cache;
  double version, repeats, started;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return invalid (error, "not an object"), NULL;
  o = json_node_get_object (node);
  if (!get_number (o, "schema_version", 1000, &version, error))
    return NULL;
  if ((int) version != CS_SWEEP_SCHEMA_VERSION)
    return invalid (error, "unsupported schema_version"), NULL;
  kind = get_string (o, "kind");
  source = get_string (o, "source");
  destination = get_string (o, "destination");
  cache = get_string (o, "cache_mode");
  if (g_strcmp0 (kind, "sweep") != 0 || source == NULL || destination == NULL || cache == NULL)
    return invalid (error, "kind, source, destination or cache_mode"), NULL;
  if (!get_number (o, "repeats", 100, &repeats, error) || !get_number (o, "started_us", 1e17, &started, error))
    return NULL;
  if (!json_object_has_member (o, "runs") || !JSON_NODE_HOLDS_ARRAY (json_object_get_member (o, "runs")))
    return invalid (error, "runs"), NULL;

  sweep = cs_sweep_new (source, destination);
  g_free (sweep->cache_mode);
  sweep->cache_mode = g_strdup (cache);
  sweep->repeats = MAX ((guint) repeats, 1);
  sweep->started = (gint64) started;
  if (get_string (o, "id") != NULL)
    {
      g_free (sweep->id);
      sweep->id = g_strdup (get_string (o, "id"));
    }

  runs = json_object_get_array_member (o, "runs");
  if (json_array_get_length (runs) > 100000)
    return invalid (error, "too many runs"), NULL;
  g_array_set_size (sweep->threads, 0);
  for (guint i = 0; i < json_array_get_length (runs); i++)
    {
      JsonNode *rn = json_array_get_element (runs, i);
      JsonObject *ro;
      CsSweepRun run = { 0 };
      double threads, repeat, files, bytes;
      gboolean seen = FALSE;

      if (!JSON_NODE_HOLDS_OBJECT (rn))
        return invalid (error, "a run is not an object"), NULL;
      ro = json_node_get_object (rn);
      if (!get_number (ro, "threads", CS_JOB_MAX_THREADS, &threads, error)
          || !get_number (ro, "repeat", 100, &repeat, error)
          || !get_number (ro, "seconds", 1e9, &run.seconds, error)
          || !get_number (ro, "mb_per_second", 1e9, &run.mb_per_second, error)
          || !get_number (ro, "files_per_second", 1e12, &run.files_per_second, error)
          || !get_number (ro, "files", 1e15, &files, error)
          || !get_number (ro, "bytes", 1e18, &bytes, error))
        return NULL;
      if (threads < 1)
        return invalid (error, "threads"), NULL;
      run.threads = (guint) threads;
      run.repeat = (guint) repeat;
      run.files = (guint64) files;
      run.bytes = (guint64) bytes;
      run.ok = get_boolean (ro, "ok", FALSE);
      g_array_append_val (sweep->runs, run);
      for (guint j = 0; j < sweep->threads->len; j++)
        seen |= g_array_index (sweep->threads, guint, j) == run.threads;
      if (!seen)
        g_array_append_val (sweep->threads, run.threads);
    }

  return g_steal_pointer (&sweep);
}

gboolean
cs_sweep_save (CsSweep     *sweep,
               const char  *path,
               GError     **error)
{
  g_autoptr(JsonNode) root = cs_sweep_to_json (sweep);
  g_autofree char *text = cs_json_to_string (root, TRUE);

  return g_file_set_contents_full (path, text, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0644, error);
}

/* A sweep file is three levels deep and holds at most 100,000 runs. */
static const CsJsonLimits sweep_limits = {
  .what = "sweep",
  .max_size = (gsize) 64 * 1024 * 1024,
  .max_depth = 16,
  .max_values = 4 * 1000 * 1000,
};

CsSweep *
cs_sweep_load (const char  *path,
               GError     **error)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  root = cs_json_load_file (path, &sweep_limits, &local_error);
  if (root == NULL)
    {
      if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA))
        invalid (error, local_error->message);
      else
        g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }
  return cs_sweep_new_from_json (root, error);
}
