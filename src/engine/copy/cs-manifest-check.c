/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-manifest"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n.h>

#include "cs-manifest.h"
#include "cs-manifest-private.h"
#include "cs-env-private.h"
#include "cs-io-private.h"
#include "cs-io-table-private.h"
#include "cs-names-private.h"
#include "cs-resume-private.h"
#include "cs-run-private.h"
#include "cs-task-private.h"
#include "cs-tsan-private.h"

/*
 * Checking a folder against a manifest: the lines are read one at a time
 * and handed to a pool of workers of our own (exclusive, as the job's), each
 * with its own buffer, through the engine's I/O calls, so a share is read as
 * a copy reads it. At most MAX_QUEUED lines wait for a worker; the paths
 * listed are kept, to tell the extras when the folder is walked.
 */

#define BUFFER_SIZE  (1u << 20)
#define MAX_QUEUED   1024     /* batches */
#define DENTS_SIZE   (64 * 1024)
/* A sample of the counters this often, for the record's graph. */
#define SAMPLE_US    (G_USEC_PER_SEC / 4)

typedef struct {
  char           *path;       /* below the folder, filename encoding */
  CsManifestAlgo  algo;
  guint8          digest[CS_MANIFEST_MAX_DIGEST];
} Task;

/*
 * Lines go to the workers in batches, so a list of small files does not pay
 * a hand-over between threads for each: as many as hold about BATCH_BYTES
 * by the files read so far, at most MAX_BATCH; one at a time until the
 * sizes are known, so a list of big files keeps every worker busy.
 */
#define BATCH_BYTES  (256 * 1024)
#define MAX_BATCH    64

typedef struct {
  guint n;
  Task  tasks[MAX_BATCH];
} Batch;

typedef struct {
  char *what;                 /* static */
  char *path;
  char *message;
  int   code;
} Difference;

/* The counters at one moment, for a sample. */
typedef struct {
  gint64  mono;
  guint64 requests, reads, bytes_read, read_ns, files;
  guint64 process_cpu;
} Mark;

typedef struct {
  CsCounters       counters;
  guint            threads;
  CsRun           *run;         /* or NULL */
  CsManifestProgressFunc progress;  /* or NULL; called on the calling thread */
  gpointer         progress_data;
  GCancellable    *cancellable; /* or NULL */
  gint64           started;     /* monotonic µs */
  Mark             last;        /* at the last sample */
  GMutex           lock;
  GCond            cond;
  guint            queued;      /* tasks not finished */
  GQueue           differences; /* Difference*, not told yet */
  CsManifestCheck  totals;
  guint64          matched_bytes;
  int              root_fd;
} Check;

static GPrivate buffer_key = G_PRIVATE_INIT (g_free);

static void
difference_free (Difference *d)
{
  g_free (d->path);
  g_free (d->message);
  g_free (d);
}

/* lock held */
static void
add_difference_locked (Check      *check,
                       const char *what,
                       const char *path,
                       int         code)
{
  Difference *d = g_new0 (Difference, 1);

  d->what = (char *) what;
  d->path = g_strdup (path);
  d->code = code;
  d->message = code != 0 ? g_strdup (g_strerror (code)) : NULL;
  g_queue_push_tail (&check->differences, d);
}

/* worker thread */
static void
check_one (Check  *check,
           Task   *task,
           guint8 *buffer)
{
  guint8 digest[CS_MANIFEST_MAX_DIGEST];
  CsHasher hasher;
  guint8 xxh[16];
  guint64 pos = 0;
  const char *what = NULL;
  struct stat st;
  int fd, code = 0;

  /* Non-blocking: a FIFO in a file's place would hold the open forever. */
  fd = _cs_io_openat (&check->counters, check->root_fd, task->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, 0);
  if (fd < 0)
    {
      code = errno;
      what = code == ENOENT || code == ENOTDIR || code == ELOOP ? "missing" : "unreadable";
    }
  else if (_cs_io_fstat (&check->counters, fd, &st) != 0)
    {
      code = errno;
      what = "unreadable";
    }
  else if (!S_ISREG (st.st_mode))
    what = "missing";
  else
    {
      _cs_hasher_init (&hasher, task->algo == CS_MANIFEST_SHA256);
      /* To the size it has now, without the read that would say "end": a
       * call less per file, which is most of the calls for small files. A
       * file that shrank meanwhile ends early and differs. */
      while (pos < (guint64) st.st_size)
        {
          ssize_t n = _cs_io_pread (&check->counters, fd, buffer, BUFFER_SIZE, (off_t) pos);

          if (n < 0)
            {
              code = errno;
              what = "unreadable";
              break;
            }
          if (n == 0)
            break;
          _cs_hasher_update (&hasher, buffer, (gsize) n);
          pos += (guint64) n;
        }
      if (what == NULL)
        {
          if (task->algo == CS_MANIFEST_SHA256)
            _cs_hasher_finish (&hasher, xxh, digest);
          else
            _cs_hasher_finish (&hasher, digest, NULL);
          if (memcmp (digest, task->digest, cs_manifest_digest_size (task->algo)) != 0)
            what = "changed";
        }
      else
        _cs_hasher_clear (&hasher);
    }
  if (fd >= 0)
    _cs_io_close (&check->counters, fd);
  atomic_fetch_add_explicit (&check->counters.files_done, 1, memory_order_relaxed);
  atomic_fetch_add_explicit (&check->counters.bytes_done, pos, memory_order_relaxed);

  _cs_mutex_lock (&check->lock);
  check->totals.bytes += pos;
  if (what == NULL)
    {
      check->totals.matched++;
      check->matched_bytes += pos;
    }
  else
    {
      if (g_str_equal (what, "missing"))
        {
          check->totals.missing++;
          code = 0;
        }
      else if (g_str_equal (what, "changed"))
        check->totals.changed++;
      else
        check->totals.unreadable++;
      add_difference_locked (check, what, task->path, code);
    }
  _cs_mutex_unlock (&check->lock);
}

/* worker thread: a batch of lines (the paths are the listed set's) */
static void
check_batch (gpointer data,
             gpointer user_data)
{
  Batch *batch = data;
  Check *check = user_data;
  guint8 *buffer = g_private_get (&buffer_key);

  if (buffer == NULL)
    {
      buffer = g_malloc (BUFFER_SIZE);
      g_private_set (&buffer_key, buffer);
    }
  /* Cancelled, the batches still queued are handed back unread. */
  for (guint i = 0; i < batch->n && !g_cancellable_is_cancelled (check->cancellable); i++)
    check_one (check, &batch->tasks[i], buffer);

  _cs_mutex_lock (&check->lock);
  check->queued--;
  g_cond_broadcast (&check->cond);
  _cs_mutex_unlock (&check->lock);
  g_free (batch);
}

static void
mark_now (Check *check,
          Mark  *m)
{
  CsCounters *c = &check->counters;

  m->mono = g_get_monotonic_time ();
  m->requests = 0;
  for (guint i = 0; i < CS_N_REQ; i++)
    m->requests += atomic_load_explicit (&c->requests[i], memory_order_relaxed);
  m->reads = atomic_load_explicit (&c->requests[CS_REQ_READ], memory_order_relaxed);
  m->bytes_read = atomic_load_explicit (&c->bytes_read, memory_order_relaxed);
  m->read_ns = atomic_load_explicit (&c->read_ns, memory_order_relaxed);
  m->files = atomic_load_explicit (&c->files_done, memory_order_relaxed);
  m->process_cpu = _cs_env_process_cpu_usec ();
}

/* calling thread: a sample for the record's graph once SAMPLE_US have
 * passed since the last (or at the end, @final, when any time has): the
 * counters a copy's samples have, for reading alone. */
static void
sample_if_due (Check    *check,
               gboolean  final)
{
  CsSample sample = { 0 };
  Mark now;
  double dt;

  if (check->run == NULL && check->progress == NULL)
    return;
  mark_now (check, &now);
  if (now.mono - check->last.mono < (final ? 1 : SAMPLE_US))
    return;
  dt = (double) (now.mono - check->last.mono) / G_USEC_PER_SEC;
  sample.t = (double) (now.mono - check->started) / G_USEC_PER_SEC;
  sample.values[CS_COUNTER_REQUEST_RATE] = (double) (now.requests - check->last.requests) / dt;
  sample.values[CS_COUNTER_DATA_REQUEST_RATE] = (double) (now.reads - check->last.reads) / dt;
  sample.values[CS_COUNTER_READ_REQUEST_RATE] = sample.values[CS_COUNTER_DATA_REQUEST_RATE];
  sample.values[CS_COUNTER_DATA_TRANSFER_RATE] = (double) (now.bytes_read - check->last.bytes_read) / 1e6 / dt;
  sample.values[CS_COUNTER_READ_TRANSFER_RATE] = sample.values[CS_COUNTER_DATA_TRANSFER_RATE];
  sample.values[CS_COUNTER_FILE_RATE] = (double) (now.files - check->last.files) / dt;
  if (now.reads > check->last.reads)
    {
      double reads = (double) (now.reads - check->last.reads);

      sample.values[CS_COUNTER_AVG_READ_REQUEST_SIZE] = (double) (now.bytes_read - check->last.bytes_read) / reads / 1e3;
      sample.values[CS_COUNTER_AVG_REQUEST_SIZE] = sample.values[CS_COUNTER_AVG_READ_REQUEST_SIZE];
      sample.values[CS_COUNTER_AVG_READ_REQUEST_TIME] = (double) (now.read_ns - check->last.read_ns) / reads / 1e6;
      sample.values[CS_COUNTER_AVG_REQUEST_TIME] = sample.values[CS_COUNTER_AVG_READ_REQUEST_TIME];
    }
  sample.values[CS_COUNTER_PROCESS_CPU_USAGE] = 100.0 * (double) (now.process_cpu - check->last.process_cpu)
                                                / 1e6 / dt;
  sample.values[CS_COUNTER_PROCESS_MEMORY] = (double) _cs_env_process_rss () / 1e6;
  sample.values[CS_COUNTER_THREADS] = check->threads;
  sample.files_done = now.files;
  sample.bytes_done = now.bytes_read;
  if (check->run != NULL)
    _cs_run_add_sample (check->run, &sample);
  check->last = now;
  if (check->progress != NULL)
    {
      CsManifestCheck so_far;

      _cs_mutex_lock (&check->lock);
      so_far = check->totals;
      _cs_mutex_unlock (&check->lock);
      check->progress (&sample, &so_far, check->progress_data);
    }
}

/* calling thread: tells what the workers found so far, outside the lock */
static void
tell_differences (Check               *check,
                  CsManifestCheckFunc  func,
                  gpointer             user_data,
                  CsRun               *run,
                  const char          *folder)
{
  GQueue batch = G_QUEUE_INIT;
  Difference *d;

  _cs_mutex_lock (&check->lock);
  batch = check->differences;
  g_queue_init (&check->differences);
  _cs_mutex_unlock (&check->lock);

  sample_if_due (check, FALSE);
  while ((d = g_queue_pop_head (&batch)) != NULL)
    {
      if (func != NULL)
        func (d->what, d->path, d->message, user_data);
      if (run != NULL)
        {
          g_autofree char *full = g_build_filename (folder, d->path, NULL);

          _cs_run_add_error (run, full, d->what, d->code,
                             g_str_equal (d->what, "changed") ? "The contents differ from the checksum list"
                             : g_str_equal (d->what, "missing") ? "Listed in the checksum list, not found"
                             : g_str_equal (d->what, "extra") ? "Not in the checksum list"
                             : NULL, 1);
        }
      difference_free (d);
    }
}

/* Names a copy of ours may leave for a while: never extras. */
static gboolean
is_our_leftover (const char *name)
{
  return _cs_name_is_our_temp (name) || _cs_name_is_our_stage (name) || _cs_name_is_resume (name, NULL);
}

/* calling thread: the regular files below @fd (at @prefix) that @listed
 * lacks; @self is the manifest's (dev, ino), never an extra. */
static void
walk_extras (Check       *check,
             int          fd,
             const char  *prefix,
             GHashTable  *listed,
             const struct stat *self)
{
  g_autofree guint8 *buf = NULL;
  ssize_t n;

  if (g_cancellable_is_cancelled (check->cancellable))
    return;
  buf = g_malloc (DENTS_SIZE);
  sample_if_due (check, FALSE);
  while ((n = _cs_io_getdents (&check->counters, fd, buf, DENTS_SIZE)) > 0)
    for (ssize_t off = 0; off < n;)
      {
        struct linux_dirent64 *d = (struct linux_dirent64 *) (buf + off);
        const char *name = d->d_name;
        g_autofree char *rel = NULL;
        unsigned char type = d->d_type;
        struct stat st;

        off += d->d_reclen;
        if (strcmp (name, ".") == 0 || strcmp (name, "..") == 0 || is_our_leftover (name))
          continue;
        rel = prefix != NULL ? g_strconcat (prefix, "/", name, NULL) : g_strdup (name);
        if (type == DT_UNKNOWN || (type == DT_REG && d->d_ino == self->st_ino))
          {
            if (_cs_io_fstatat (&check->counters, fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
              continue;
            type = S_ISDIR (st.st_mode) ? DT_DIR : S_ISREG (st.st_mode) ? DT_REG : DT_UNKNOWN;
            if (type == DT_REG && st.st_ino == self->st_ino && st.st_dev == self->st_dev)
              continue;
          }
        if (type == DT_DIR)
          {
            int child = _cs_io_openat (&check->counters, fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);

            if (child >= 0)
              {
                walk_extras (check, child, rel, listed, self);
                _cs_io_close (&check->counters, child);
              }
            else
              {
                _cs_mutex_lock (&check->lock);
                check->totals.unreadable++;
                add_difference_locked (check, "unreadable", rel, errno);
                _cs_mutex_unlock (&check->lock);
              }
          }
        else if (type == DT_REG && !g_hash_table_contains (listed, rel))
          {
            _cs_mutex_lock (&check->lock);
            check->totals.extra++;
            add_difference_locked (check, "extra", rel, 0);
            _cs_mutex_unlock (&check->lock);
          }
      }
}

/* Whether a listed path leads out of the folder: absolute, empty, or
 * through "..". The tools follow such lines unless told to be strict; a
 * check never does. */
static gboolean
leaves_folder (const char *path)
{
  g_auto(GStrv) parts = NULL;

  if (path[0] == '/' || path[0] == '\0')
    return TRUE;
  if (strstr (path, "..") == NULL)
    return FALSE;
  parts = g_strsplit (path, "/", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    if (strcmp (parts[i], "..") == 0)
      return TRUE;
  return FALSE;
}

/* How many lines the next batch takes (see BATCH_BYTES). */
static guint
batch_size (Check *check)
{
  guint64 files = atomic_load_explicit (&check->counters.files_done, memory_order_relaxed);
  guint64 bytes = atomic_load_explicit (&check->counters.bytes_done, memory_order_relaxed);

  if (files < check->threads)
    return 1;
  return (guint) CLAMP (BATCH_BYTES / MAX (bytes / files, 1), 1, MAX_BATCH);
}

/* calling thread: @batch to a worker, once fewer than MAX_QUEUED wait. */
static void
push_batch (Check       *check,
            GThreadPool *pool,
            Batch       *batch)
{
  _cs_mutex_lock (&check->lock);
  while (check->queued >= MAX_QUEUED)
    _cs_cond_wait (&check->cond, &check->lock);
  check->queued++;
  _cs_mutex_unlock (&check->lock);
  g_thread_pool_push (pool, batch, NULL);
}

static gboolean
check_run (const char              *manifest,
           const char              *folder,
           guint                    threads,
           CsManifestCheckFunc      func,
           gpointer                 user_data,
           CsRun                   *run,
           CsManifestProgressFunc   progress,
           gpointer                 progress_data,
           GCancellable            *cancellable,
           CsManifestCheck         *out,
           GError                 **error)
{
  g_autoptr(GHashTable) listed = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *line = NULL;
  GThreadPool *pool;
  Batch *batch = NULL;
  struct stat self_st;
  gsize line_size = 0;
  guint64 line_no = 0;
  gint64 started = g_get_monotonic_time ();
  Check check = { 0 };
  ssize_t len;
  FILE *in;

  g_assert (manifest != NULL && folder != NULL);
  g_assert (threads >= 1);

  if (run != NULL)
    {
      /* As a copy's record: absolute, wherever it is read later. */
      g_autofree char *manifest_abs = g_canonicalize_filename (manifest, NULL);
      g_autofree char *folder_abs = _cs_io_is_path (folder) ? g_canonicalize_filename (folder, NULL)
                                                              : g_strdup (folder);
      const char *sources[] = { manifest_abs, NULL };

      CsRunSettings settings = { 0 };

      settings.threads = threads;
      settings.interval_ms = SAMPLE_US / 1000;
      _cs_run_set_settings (run, &settings);
      _cs_run_set_kind (run, "check");
      _cs_run_set_sources (run, sources);
      _cs_run_set_destination (run, folder_abs);
      _cs_run_set_started (run, g_get_real_time ());
    }

  in = fopen (manifest, "re");
  if (in == NULL || fstat (fileno (in), &self_st) != 0)
    {
      int saved = errno;
      g_autofree char *display = g_filename_display_name (manifest);

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: %s", display, g_strerror (saved));
      if (in != NULL)
        fclose (in);
      if (run != NULL)
        _cs_run_set_outcome (run, "failed", (*error)->message);
      return FALSE;
    }
  check.root_fd = _cs_io_openat (&check.counters, CS_IO_AT_LOCATION, folder, O_RDONLY | O_DIRECTORY, 0);
  if (check.root_fd < 0)
    {
      int saved = errno;
      g_autofree char *display = g_filename_display_name (folder);

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: %s", display, g_strerror (saved));
      fclose (in);
      if (run != NULL)
        _cs_run_set_outcome (run, "failed", (*error)->message);
      return FALSE;
    }

  check.threads = threads;
  check.run = run;
  check.progress = progress;
  check.progress_data = progress_data;
  check.cancellable = cancellable;
  check.started = started;
  mark_now (&check, &check.last);
  g_mutex_init (&check.lock);
  g_cond_init (&check.cond);
  g_queue_init (&check.differences);
  listed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  pool = g_thread_pool_new (check_batch, &check, (int) threads, TRUE, NULL);

  while ((len = getline (&line, &line_size, in)) > 0)
    {
      Task task = { 0 };

      line_no++;
      if (line[len - 1] == '\n')
        len--;
      if (!cs_manifest_parse_line (line, (gsize) len, &task.algo, task.digest, &task.path, &local_error))
        {
          g_autofree char *display = g_filename_display_name (manifest);
          g_autofree char *number = g_strdup_printf ("%" G_GUINT64_FORMAT, line_no);

          g_clear_error (&local_error);
          /* Translators: a checksum list's file name and line number */
          g_set_error (&local_error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("%s, line %s: not a checksum line (xxhsum -H2 or sha256sum format)"),
                       display, number);
          break;
        }
      if (leaves_folder (task.path))
        {
          g_autofree char *display = g_filename_display_name (manifest);
          g_autofree char *number = g_strdup_printf ("%" G_GUINT64_FORMAT, line_no);

          g_free (task.path);
          /* Translators: a checksum list's file name and line number */
          g_set_error (&local_error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("%s, line %s: the path leaves the folder"), display, number);
          break;
        }
      check.totals.listed++;
      /* The set owns the path; the workers read it until the end. A path
       * listed twice is checked twice, under the first copy. */
      {
        char *kept = g_hash_table_lookup (listed, task.path);

        if (kept != NULL)
          {
            g_free (task.path);
            task.path = kept;
          }
        else
          g_hash_table_add (listed, task.path);
      }

      if (batch == NULL)
        {
          batch = g_new (Batch, 1);
          batch->n = 0;
        }
      batch->tasks[batch->n++] = task;
      if (batch->n >= batch_size (&check))
        push_batch (&check, pool, g_steal_pointer (&batch));
      if ((line_no & 1023) == 0)
        {
          tell_differences (&check, func, user_data, run, folder);
          if (g_cancellable_set_error_if_cancelled (cancellable, &local_error))
            break;
        }
    }
  if (batch != NULL)
    push_batch (&check, pool, g_steal_pointer (&batch));
  if (local_error == NULL && ferror (in))
    {
      g_autofree char *display = g_filename_display_name (manifest);

      g_set_error (&local_error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: %s", display, g_strerror (errno));
    }
  fclose (in);

  /* The folder is walked while the workers read. */
  if (local_error == NULL)
    {
      int fd = _cs_io_openat (&check.counters, check.root_fd, ".", O_RDONLY | O_DIRECTORY, 0);

      if (fd >= 0)
        {
          walk_extras (&check, fd, NULL, listed, &self_st);
          _cs_io_close (&check.counters, fd);
        }
    }

  _cs_mutex_lock (&check.lock);
  while (check.queued > 0)
    {
      _cs_mutex_unlock (&check.lock);
      tell_differences (&check, func, user_data, run, folder);
      _cs_mutex_lock (&check.lock);
      if (check.queued > 0)
        _cs_cond_wait_until (&check.cond, &check.lock, g_get_monotonic_time () + SAMPLE_US);
    }
  _cs_mutex_unlock (&check.lock);
  g_thread_pool_free (pool, FALSE, TRUE);
  tell_differences (&check, func, user_data, run, folder);
  sample_if_due (&check, TRUE);
  if (local_error == NULL)
    g_cancellable_set_error_if_cancelled (cancellable, &local_error);
  _cs_io_close (&check.counters, check.root_fd);
  g_mutex_clear (&check.lock);
  g_cond_clear (&check.cond);

  if (out != NULL)
    *out = check.totals;
  if (run != NULL)
    {
      CsTotals totals = { 0 };

      totals.v[CS_CLASS_TOTAL][CS_KIND_FILES] = check.totals.listed;
      totals.v[CS_CLASS_TOTAL][CS_KIND_BYTES] = check.totals.bytes;
      totals.v[CS_CLASS_COPIED][CS_KIND_FILES] = check.totals.matched;
      totals.v[CS_CLASS_COPIED][CS_KIND_BYTES] = check.matched_bytes;
      totals.v[CS_CLASS_MISMATCH][CS_KIND_FILES] = check.totals.changed;
      totals.v[CS_CLASS_FAILED][CS_KIND_FILES] = check.totals.missing + check.totals.unreadable;
      totals.v[CS_CLASS_EXTRAS][CS_KIND_FILES] = check.totals.extra;
      _cs_run_set_totals (run, &totals);
      _cs_run_set_duration (run, (double) (g_get_monotonic_time () - started) / G_USEC_PER_SEC);
      if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _cs_run_set_outcome (run, "cancelled", NULL);
      else
        _cs_run_set_outcome (run, local_error == NULL ? "completed" : "failed",
                             local_error != NULL ? local_error->message : NULL);
    }
  if (local_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  return TRUE;
}

gboolean
cs_manifest_check_sync (const char          *manifest,
                        const char          *folder,
                        guint                threads,
                        CsManifestCheckFunc  func,
                        gpointer             user_data,
                        CsRun               *run,
                        CsManifestCheck     *out,
                        GError             **error)
{
  g_return_val_if_fail (manifest != NULL && folder != NULL, FALSE);
  g_return_val_if_fail (threads >= 1, FALSE);

  return check_run (manifest, folder, threads, func, user_data, run, NULL, NULL, NULL, out, error);
}

typedef struct {
  char                   *manifest;
  char                   *folder;
  guint                   threads;
  CsRun                  *run;
  CsManifestProgressFunc  progress;
  gpointer                progress_data;
  CsManifestCheck         result;
} CheckTask;

static void
check_task_free (gpointer data)
{
  CheckTask *t = data;

  g_free (t->manifest);
  g_free (t->folder);
  cs_run_unref (t->run);
  g_free (t);
}

/* the check's own thread */
static gboolean
check_task_run (gpointer       data,
                GCancellable  *cancellable,
                GError       **error)
{
  CheckTask *t = data;

  return check_run (t->manifest, t->folder, t->threads, NULL, NULL, t->run, t->progress, t->progress_data,
                    cancellable, &t->result, error);
}

void
cs_manifest_check_async (const char              *manifest,
                         const char              *folder,
                         guint                    threads,
                         CsRun                   *run,
                         CsManifestProgressFunc   progress,
                         gpointer                 progress_data,
                         GCancellable            *cancellable,
                         GAsyncReadyCallback      callback,
                         gpointer                 user_data)
{
  CheckTask *t;

  g_return_if_fail (manifest != NULL && folder != NULL && run != NULL);
  g_return_if_fail (threads >= 1);

  t = g_new0 (CheckTask, 1);
  t->manifest = g_strdup (manifest);
  t->folder = g_strdup (folder);
  t->threads = threads;
  t->run = cs_run_ref (run);
  t->progress = progress;
  t->progress_data = progress_data;
  _cs_task_run_in_thread (cs_manifest_check_async, t, check_task_free, check_task_run,
                          cancellable, callback, user_data);
}

gboolean
cs_manifest_check_finish (GAsyncResult     *result,
                          CsManifestCheck  *out,
                          GError          **error)
{
  CheckTask *t = _cs_task_get_data (result, cs_manifest_check_async);

  g_return_val_if_fail (t != NULL, FALSE);

  if (out != NULL)
    *out = t->result;
  return _cs_task_finish (result, cs_manifest_check_async, error);
}
