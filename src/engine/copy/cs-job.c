/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-job"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>

#include "cs-auto-memory-private.h"
#include "cs-conflict-private.h"
#include "cs-copy-private.h"
#include "cs-count-ahead-private.h"
#include "cs-deletions-private.h"
#include "cs-dest-fs-private.h"
#include "cs-mirror-private.h"
#include "cs-dir-private.h"
#include "cs-env-private.h"
#include "cs-errno-private.h"
#include "cs-io-private.h"
#include "cs-job-private.h"
#include "cs-links-private.h"
#include "cs-move-private.h"
#include "cs-names-private.h"
#include "cs-sampler-private.h"
#include "cs-scanner-private.h"
#include "cs-smb.h"
#include "cs-stage-private.h"

/*
 * A copy job. The main thread sets it up and controls it; a controller thread
 * runs the scanner and waits for the pool; the pool's workers copy; a sampler
 * thread turns the counters into samples. Everything that reaches the main
 * context goes through one coalescing channel (dirty flags under a lock, at most
 * one pending source), never one callback per file.
 */

G_DEFINE_FINAL_TYPE (CsJob, cs_job, G_TYPE_OBJECT)
G_DEFINE_QUARK (cs-job-error-quark, cs_job_error)

enum {
  SIGNAL_PROGRESS,
  SIGNAL_SAMPLE,
  SIGNAL_THREADS_CHANGED,
  SIGNAL_CONFLICT,
  SIGNAL_DELETIONS,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
worker_free (gpointer data)
{
  CsWorker *worker = data;

  free (worker->buffer);
  g_free (worker);
}

static GPrivate worker_private = G_PRIVATE_INIT (worker_free);

/* Once no worker is left: every big buffer is back in the free list. */
static void
free_big_buffers (CsJob *job)
{
  _cs_mutex_lock (&job->big_lock);
  g_assert (job->free_big_buffers->len == job->big_buffers);
  for (guint i = 0; i < job->free_big_buffers->len; i++)
    free (g_ptr_array_index (job->free_big_buffers, i));
  g_ptr_array_set_size (job->free_big_buffers, 0);
  job->big_buffers = 0;
  _cs_mutex_unlock (&job->big_lock);
}

/* any thread */
guint8 *
_cs_job_lend_big_buffer (CsJob *job)
{
  guint allowed = MAX (1, atomic_load_explicit (&job->threads, memory_order_relaxed) / CS_BIG_BUFFER_THREADS);
  guint8 *buffer = NULL;

  _cs_mutex_lock (&job->big_lock);
  if (job->free_big_buffers->len > 0)
    buffer = g_ptr_array_steal_index_fast (job->free_big_buffers, job->free_big_buffers->len - 1);
  else if (job->big_buffers < allowed)
    {
      if (posix_memalign ((void **) &buffer, 4096, CS_BIG_BUFFER_SIZE) != 0)
        g_error ("Out of memory");
      job->big_buffers++;
    }
  _cs_mutex_unlock (&job->big_lock);

  return buffer;
}

/* any thread */
void
_cs_job_return_big_buffer (CsJob  *job,
                           guint8 *buffer)
{
  g_assert (buffer != NULL);
  _cs_mutex_lock (&job->big_lock);
  g_ptr_array_add (job->free_big_buffers, buffer);
  _cs_mutex_unlock (&job->big_lock);
}

static void
cs_job_dispose (GObject *object)
{
  CsJob *self = CS_JOB (object);

  /* A running job keeps itself alive through its threads; see run_async. */
  g_clear_object (&self->task);
  if (self->cancellable != NULL && self->cancelled_id != 0)
    g_cancellable_disconnect (self->cancellable, self->cancelled_id);
  self->cancelled_id = 0;
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (cs_job_parent_class)->dispose (object);
}

static void
cs_job_finalize (GObject *object)
{
  CsJob *self = CS_JOB (object);

  g_ptr_array_unref (self->sources);
  g_ptr_array_unref (self->source_targets);
  g_free (self->destination);
  g_clear_pointer (&self->given_sources, g_ptr_array_unref);
  g_clear_pointer (&self->refusals, g_ptr_array_unref);
  g_clear_pointer (&self->read_paths, g_ptr_array_unref);
  g_free (self->given_destination);
  g_free (self->route);
  _cs_run_settings_clear (&self->settings);
  g_clear_pointer (&self->excludes, g_ptr_array_unref);
  g_free (self->cache_mode);
  g_clear_pointer (&self->run, cs_run_unref);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_clear_pointer (&self->pending_samples, g_array_unref);
  g_clear_pointer (&self->pending_conflicts, g_ptr_array_unref);
  g_clear_object (&self->pending_deletions);
  g_clear_object (&self->deletions);
  g_clear_pointer (&self->mirror_replaced, g_ptr_array_unref);
  g_clear_pointer (&self->pending_thread_changes, g_array_unref);
  g_clear_error (&self->run_error);
  g_free (self->fatal_message);
  g_clear_pointer (&self->log, _cs_log_free);
  g_clear_pointer (&self->manifest, _cs_manifest_free);
  g_free (self->manifest_path);
  g_mutex_clear (&self->lock);
  g_mutex_clear (&self->ask_lock);
  g_mutex_clear (&self->notify_lock);
  g_mutex_clear (&self->stage_lock);
  g_mutex_clear (&self->link_lock);
  g_mutex_clear (&self->move_lock);
  for (guint i = 0; i < CS_JOB_LINK_LOCKS; i++)
    g_mutex_clear (&self->link_locks[i]);
  g_ptr_array_unref (self->free_stages);
  g_ptr_array_unref (self->stages);
  free_big_buffers (self);
  g_ptr_array_unref (self->free_big_buffers);
  g_mutex_clear (&self->big_lock);
  g_cond_clear (&self->cond);
  g_cond_clear (&self->sampler_cond);
  _cs_limiter_clear (&self->byte_limit);
  _cs_limiter_clear (&self->file_limit);
  _cs_metadata_clear (&self->metadata);
  g_ptr_array_unref (self->dest_filesystems);

  G_OBJECT_CLASS (cs_job_parent_class)->finalize (object);
}

static void
cs_job_class_init (CsJobClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = cs_job_dispose;
  object_class->finalize = cs_job_finalize;

  signals[SIGNAL_PROGRESS] =
    g_signal_new ("progress", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_SAMPLE] =
    g_signal_new ("sample", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_POINTER);
  signals[SIGNAL_THREADS_CHANGED] =
    g_signal_new ("threads-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_UINT, G_TYPE_UINT);
  signals[SIGNAL_CONFLICT] =
    g_signal_new ("conflict", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, CS_TYPE_CONFLICT);
  signals[SIGNAL_DELETIONS] =
    g_signal_new ("deletions", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, CS_TYPE_DELETIONS);
}

static void
cs_job_init (CsJob *self)
{
  self->sources = g_ptr_array_new_with_free_func (g_free);
  self->source_targets = g_ptr_array_new_with_free_func (g_free);
  self->settings.threads = CS_JOB_DEFAULT_THREADS;
  self->settings.overwrite = CS_OVERWRITE_NEWER;
  self->settings.retries = 2;
  self->settings.wait = 1.0;
  self->settings.interval_ms = 250;
  self->settings.flush = TRUE;
  self->settings.max_delete = CS_JOB_DEFAULT_MAX_DELETE;
  atomic_init (&self->threads, CS_JOB_DEFAULT_THREADS);
  self->run = cs_run_new ();
  self->state = CS_JOB_STATE_READY;
  g_mutex_init (&self->lock);
  g_mutex_init (&self->ask_lock);
  g_mutex_init (&self->notify_lock);
  g_mutex_init (&self->stage_lock);
  g_mutex_init (&self->link_lock);
  g_mutex_init (&self->move_lock);
  for (guint i = 0; i < CS_JOB_LINK_LOCKS; i++)
    g_mutex_init (&self->link_locks[i]);
  self->stage_root_fd = -1;
  self->log_fd = -1;
  self->presence_fd = -1;
  self->stages = g_ptr_array_new_with_free_func (g_free);
  self->free_stages = g_ptr_array_new ();
  g_mutex_init (&self->big_lock);
  self->free_big_buffers = g_ptr_array_new ();
  g_cond_init (&self->cond);
  g_cond_init (&self->sampler_cond);
  _cs_limiter_init (&self->byte_limit);
  _cs_limiter_init (&self->file_limit);
  _cs_metadata_init (&self->metadata);
  self->dest_filesystems = g_ptr_array_new_with_free_func ((GDestroyNotify) _cs_dest_fs_free);
  self->pending_samples = g_array_new (FALSE, FALSE, sizeof (CsSample));
  self->pending_conflicts = g_ptr_array_new_with_free_func (g_object_unref);
  self->pending_thread_changes = g_array_new (FALSE, FALSE, sizeof (guint));
}

CsJob *
cs_job_new (void)
{
  return g_object_new (CS_TYPE_JOB, NULL);
}

#define RETURN_IF_STARTED(self) \
  g_return_if_fail (CS_IS_JOB (self)); \
  g_return_if_fail ((self)->state == CS_JOB_STATE_READY)

void
cs_job_add_source (CsJob      *self,
                   const char *path)
{
  RETURN_IF_STARTED (self);
  g_return_if_fail (path != NULL && *path != '\0');

  /* A password in an smb:// URL goes to the login, never into the job,
   * whose locations every record, log and message shows. */
  g_ptr_array_add (self->sources, cs_smb_location_take_password (path, NULL));
  g_ptr_array_add (self->source_targets, NULL);
}

void
cs_job_add_source_as (CsJob      *self,
                      const char *path,
                      const char *destination_path)
{
  RETURN_IF_STARTED (self);
  g_return_if_fail (path != NULL && *path != '\0');
  g_return_if_fail (destination_path != NULL && *destination_path != '\0');

  g_ptr_array_add (self->sources, cs_smb_location_take_password (path, NULL));
  g_ptr_array_add (self->source_targets, cs_smb_location_take_password (destination_path, NULL));
}

void
cs_job_set_destination (CsJob      *self,
                        const char *path)
{
  RETURN_IF_STARTED (self);
  g_return_if_fail (path != NULL && *path != '\0');

  g_free (self->destination);
  self->destination = cs_smb_location_take_password (path, NULL);
}

void
cs_job_set_operation (CsJob       *self,
                      CsOperation  operation)
{
  RETURN_IF_STARTED (self);
  g_return_if_fail (operation <= CS_OPERATION_MIRROR);
  self->settings.operation = operation;
}

void
cs_job_set_max_delete (CsJob  *self,
                       gint64  max)
{
  RETURN_IF_STARTED (self);
  g_return_if_fail (max >= -1);
  self->settings.max_delete = max;
}

void
cs_job_set_confirm_deletions (CsJob    *self,
                              gboolean  confirm)
{
  RETURN_IF_STARTED (self);
  self->confirm_deletions = !!confirm;
}

CsDeletions *
cs_job_get_deletions (CsJob *self)
{
  g_return_val_if_fail (CS_IS_JOB (self), NULL);
  return self->deletions;
}

CsOperation
cs_job_get_operation (CsJob *self)
{
  g_return_val_if_fail (CS_IS_JOB (self), CS_OPERATION_COPY);
  return self->settings.operation;
}

void
cs_job_set_overwrite (CsJob       *self,
                      CsOverwrite  overwrite)
{
  RETURN_IF_STARTED (self);
  g_return_if_fail (overwrite <= CS_OVERWRITE_DIFFERENT);
  self->settings.overwrite = overwrite;
}

void
cs_job_set_verify (CsJob    *self,
                   gboolean  verify)
{
  RETURN_IF_STARTED (self);
  self->settings.verify = !!verify;
}

void
cs_job_set_durable (CsJob    *self,
                    gboolean  durable)
{
  RETURN_IF_STARTED (self);
  self->settings.durable = !!durable;
}

void
cs_job_set_staging (CsJob     *self,
                    CsStaging  staging)
{
  RETURN_IF_STARTED (self);
  g_return_if_fail (staging <= CS_STAGING_NEVER);
  self->staging = staging;
}

void
cs_job_set_chunking (CsJob      *self,
                     CsChunking  chunking)
{
  RETURN_IF_STARTED (self);
  g_return_if_fail (chunking <= CS_CHUNKING_NEVER);
  self->chunking = chunking;
}

void
cs_job_set_into (CsJob    *self,
                 gboolean  into)
{
  RETURN_IF_STARTED (self);
  self->into = !!into;
}

void
cs_job_set_flush (CsJob    *self,
                  gboolean  flush)
{
  RETURN_IF_STARTED (self);
  self->settings.flush = !!flush;
}

void
cs_job_set_dry_run (CsJob         *self,
                    gboolean       dry_run,
                    CsJobPlanFunc  func,
                    gpointer       user_data)
{
  RETURN_IF_STARTED (self);
  self->settings.dry_run = !!dry_run;
  self->plan_func = func;
  self->plan_data = user_data;
}

void
cs_job_set_retries (CsJob *self,
                    guint  retries)
{
  RETURN_IF_STARTED (self);
  self->settings.retries = MIN (retries, 1000);
}

void
cs_job_set_wait (CsJob  *self,
                 double  seconds)
{
  RETURN_IF_STARTED (self);
  g_return_if_fail (seconds >= 0 && seconds <= 3600);
  self->settings.wait = seconds;
}

void
cs_job_set_interval (CsJob *self,
                     guint  interval_ms)
{
  RETURN_IF_STARTED (self);
  g_return_if_fail (interval_ms == 0 || (interval_ms >= 100 && interval_ms <= 10000));
  self->settings.interval_ms = interval_ms;
}

void
cs_job_add_exclude (CsJob      *self,
                    const char *glob)
{
  g_auto(GStrv) old = NULL;
  guint n;

  RETURN_IF_STARTED (self);
  g_return_if_fail (glob != NULL);

  if (self->excludes == NULL)
    self->excludes = g_ptr_array_new_with_free_func ((GDestroyNotify) g_pattern_spec_free);
  g_ptr_array_add (self->excludes, g_pattern_spec_new (glob));

  old = self->settings.excludes;
  n = old != NULL ? g_strv_length (old) : 0;
  self->settings.excludes = g_new0 (char *, n + 2);
  for (guint i = 0; i < n; i++)
    self->settings.excludes[i] = g_strdup (old[i]);
  self->settings.excludes[n] = g_strdup (glob);
}

void
cs_job_set_log_fd (CsJob *self,
                   int    fd)
{
  RETURN_IF_STARTED (self);
  g_return_if_fail (fd >= -1);

  self->log_fd = fd;
}

void
cs_job_set_cache_mode (CsJob      *self,
                       const char *cache_mode)
{
  RETURN_IF_STARTED (self);
  g_free (self->cache_mode);
  self->cache_mode = g_strdup (cache_mode);
}

CsRun *
cs_job_get_run (CsJob *self)
{
  g_return_val_if_fail (CS_IS_JOB (self), NULL);
  return self->run;
}

/* ---- Checks before anything is written ---------------------------------- */

static gboolean
set_error (GError         **error,
           CsJobErrorCode   code,
           const char      *path,
           const char      *format,
           ...) G_GNUC_PRINTF (4, 5);

static gboolean
set_error (GError         **error,
           CsJobErrorCode   code,
           const char      *path,
           const char      *format,
           ...)
{
  g_autofree char *display = path != NULL ? g_filename_display_name (path) : NULL;
  g_autofree char *reason = NULL;
  va_list args;

  va_start (args, format);
  reason = g_strdup_vprintf (format, args);
  va_end (args);

  if (display != NULL)
    g_set_error (error, CS_JOB_ERROR, code, "%s: %s", display, reason);
  else
    g_set_error_literal (error, CS_JOB_ERROR, code, reason);
  return FALSE;
}

static char *
trim_slashes (const char *path)
{
  char *copy = g_strdup (path);
  gsize len = strlen (copy);

  while (len > 1 && copy[len - 1] == '/')
    copy[--len] = '\0';
  return copy;
}

/* Is the folder @dir (dev, ino) @path itself or one of its ancestors? */
static gboolean
is_ancestor_or_self (const struct stat *dir,
                     const char        *path)
{
  g_autofree char *real = realpath (path, NULL);
  g_autofree char *cur = NULL;

  if (real == NULL)
    return FALSE;
  cur = g_steal_pointer (&real);
  for (;;)
    {
      struct stat st;
      char *parent;

      if (stat (cur, &st) == 0 && st.st_dev == dir->st_dev && st.st_ino == dir->st_ino)
        return TRUE;
      if (strcmp (cur, "/") == 0)
        return FALSE;
      parent = g_path_get_dirname (cur);
      g_free (cur);
      cur = parent;
    }
}

/*
 * What a source names, as POSIX path resolution reads it: a trailing slash
 * asks for a folder. On a symlink it names the folder the link points to
 * (cp -a p/cur/ bk copies that folder as bk/cur); on a file it is ENOTDIR,
 * as with cp. Returns the path to read (the source without its trailing
 * slashes, or the folder its link points to) and fills @st with what is
 * read there, not followed; NULL with errno set when there is nothing.
 */
static char *
resolve_source (const char  *source,
                struct stat *st)
{
  g_autofree char *trimmed = trim_slashes (source);
  gboolean slash = strlen (trimmed) < strlen (source);
  g_autofree char *real = NULL;

  if (_cs_io_stat_location (trimmed, FALSE, st) != 0)
    return NULL;
  if (!slash || S_ISDIR (st->st_mode))
    return g_steal_pointer (&trimmed);
  if (!S_ISLNK (st->st_mode) || !_cs_io_is_path (trimmed))
    {
      errno = ENOTDIR;
      return NULL;
    }
  /* ENOENT for a dangling link, ELOOP for a loop, as cp says them. */
  if (stat (trimmed, st) != 0)
    return NULL;
  if (!S_ISDIR (st->st_mode))
    {
      errno = ENOTDIR;
      return NULL;
    }
  real = realpath (trimmed, NULL);
  if (real == NULL)
    return NULL;
  /* The root has no name to be read by in its parent. */
  if (strcmp (real, "/") == 0)
    {
      errno = EINVAL;
      return NULL;
    }
  return g_steal_pointer (&real);
}

/* Whether @location ends in "." or "..". */
static gboolean
is_dot_name (const char *location)
{
  g_autofree char *name = _cs_io_location_name (location);

  return strcmp (name, ".") == 0 || strcmp (name, "..") == 0;
}

char *
_cs_landing_name (const char *source)
{
  /* "dir/." and ".." name a folder whose contents land in the destination
   * folder itself, as with cp -a; "dir/.." under its own name would land
   * beside the destination, outside it. */
  if (is_dot_name (source))
    return g_strdup (".");
  return _cs_io_location_name (source);
}

/* A source the check let through, to tell the same path given twice. */
typedef struct {
  struct stat st;         /* what is read */
  struct stat parent;     /* the folder it is read in (st_ino 0: none known) */
  char       *name;       /* its name there */
} Seen;

static void
seen_clear (gpointer data)
{
  Seen *seen = data;

  g_free (seen->name);
}

/* The same path twice ("a" and "./a", "dir" and "dir/"), or one folder by two
 * names: the same source. Two names of one hard-linked file are not: both are
 * copied and stay linked, as with cp -a. */
static gboolean
is_duplicate (const Seen *a,
              const Seen *b)
{
  if (a->st.st_dev != b->st.st_dev || a->st.st_ino != b->st.st_ino)
    return FALSE;
  if (!S_ISREG (a->st.st_mode))
    return TRUE;
  return a->parent.st_ino != 0 && a->parent.st_dev == b->parent.st_dev && a->parent.st_ino == b->parent.st_ino
         && strcmp (a->name, b->name) == 0;
}

/* The refusals that concern one source: the others are still copied, and the
 * refused one is a failed item, as cp reports it. */
static gboolean
is_per_item (CsJobErrorCode code)
{
  switch (code)
    {
    case CS_JOB_ERROR_MISSING_SOURCE:
    case CS_JOB_ERROR_SAME_FILE:
    case CS_JOB_ERROR_INSIDE_SOURCE:
    case CS_JOB_ERROR_DUPLICATE_SOURCE:
      return TRUE;
    case CS_JOB_ERROR_INVALID:
    case CS_JOB_ERROR_DESTINATION:
    case CS_JOB_ERROR_CANCELLED:
    case CS_JOB_ERROR_SOURCE_INSIDE:
    default:
      return FALSE;
    }
}

/*
 * Why source @i cannot be copied, with @out_code, or NULL (then @out_read is
 * where it is read, and it joins @seen). @out_path is the path the reason is
 * about when it is not the source's (the destination's).
 */
static char *
check_source (CsJob           *self,
              guint            i,
              gboolean         dest_exists,
              gboolean         dest_is_dir,
              GArray          *seen,
              CsJobErrorCode  *out_code,
              char           **out_path,
              char           **out_read)
{
  const char *source = g_ptr_array_index (self->sources, i);
  const char *explicit_target = g_ptr_array_index (self->source_targets, i);
  g_autofree char *trimmed = trim_slashes (source);
  g_autofree char *read_path = NULL;
  g_autofree char *target = NULL;
  g_autofree char *read_parent = NULL;
  Seen entry = { 0 };
  struct stat st, lst, tst;

  *out_code = CS_JOB_ERROR_MISSING_SOURCE;
  read_path = resolve_source (source, &st);
  if (read_path == NULL)
    {
      int err = errno;
      g_autofree char *why = NULL;

      if (err == ENOENT && (why = _cs_io_explain_missing (trimmed)) != NULL)
        return g_steal_pointer (&why);
      if (err == ENOENT)
        return g_strdup ("No such file or folder");
      return g_strdup (g_strerror (err));
    }
  /* mv cannot rename "." or "..": their contents would go, the folder stay. */
  if (self->settings.operation == CS_OPERATION_MOVE && is_dot_name (trimmed))
    return g_strdup (_("A move cannot take “.” or “..”: name the folder itself"));
  /* mv renames the link itself, and refuses "link/", which would move the
   * folder it points to away from its other name. */
  if (self->settings.operation == CS_OPERATION_MOVE && strcmp (read_path, trimmed) != 0)
    return g_strdup (_("Not a folder: a move takes the link itself; name it without the "
                       "trailing slash, or name the folder it points to"));

  read_parent = g_path_get_dirname (read_path);
  entry.st = st;
  if (_cs_io_stat_location (read_parent, TRUE, &entry.parent) != 0)
    entry.parent.st_ino = 0;
  entry.name = _cs_io_location_name (read_path);
  for (guint j = 0; j < seen->len; j++)
    if (is_duplicate (&g_array_index (seen, Seen, j), &entry))
      {
        g_free (entry.name);
        *out_code = CS_JOB_ERROR_DUPLICATE_SOURCE;
        return g_strdup ("This source is given more than once");
      }

  if (explicit_target != NULL)
    {
      g_autofree char *trimmed_target = trim_slashes (explicit_target);
      g_autofree char *parent = g_path_get_dirname (trimmed_target);
      struct stat pst;

      if (_cs_io_stat_location (parent, TRUE, &pst) != 0 || !S_ISDIR (pst.st_mode))
        {
          g_free (entry.name);
          *out_code = CS_JOB_ERROR_DESTINATION;
          *out_path = g_strdup (explicit_target);
          return g_strdup (_("The folder that should contain the destination does not exist"));
        }
      target = g_steal_pointer (&trimmed_target);
    }
  else if (dest_is_dir || self->into)
    {
      g_autofree char *base = _cs_landing_name (trimmed);
      target = _cs_io_location_child (self->destination, base);
    }
  else
    target = g_strdup (self->destination);

  g_array_append_val (seen, entry);

  /* Same file by any name: path, hard link, symlink or bind mount. */
  *out_code = CS_JOB_ERROR_SAME_FILE;
  if (_cs_io_stat_location (target, FALSE, &tst) == 0 && tst.st_dev == st.st_dev && tst.st_ino == st.st_ino)
    return g_strdup ("The source and the destination are the same file");
  if (_cs_io_stat_location (target, TRUE, &tst) == 0 && S_ISREG (st.st_mode)
      && tst.st_dev == st.st_dev && tst.st_ino == st.st_ino)
    return g_strdup ("The source and the destination are the same file");
  /* A symlink put in place of the file it points to would point to itself,
   * and the file would be gone. */
  if (S_ISLNK (st.st_mode) && _cs_io_stat_location (read_path, TRUE, &lst) == 0
      && _cs_io_stat_location (target, FALSE, &tst) == 0 && tst.st_dev == lst.st_dev && tst.st_ino == lst.st_ino)
    {
      g_autofree char *display = g_filename_display_name (target);

      return g_strdup_printf (_("The source and the destination are the same file: "
                                "the link points to %s"), display);
    }

  if (self->settings.operation == CS_OPERATION_MIRROR && !S_ISDIR (st.st_mode))
    {
      *out_code = CS_JOB_ERROR_INVALID;
      return g_strdup ("A mirror makes a folder match a folder, and this is not a folder");
    }
  /* Everything in a mirror's destination that its source lacks goes: the
   * source itself, if it lay there. */
  if (self->settings.operation == CS_OPERATION_MIRROR && _cs_io_stat_location (target, TRUE, &tst) == 0
      && S_ISDIR (tst.st_mode) && is_ancestor_or_self (&tst, read_path))
    {
      *out_code = CS_JOB_ERROR_SOURCE_INSIDE;
      return g_strdup_printf ("The source lies inside the mirror's destination %s, which would delete it",
                              target);
    }

  if (S_ISDIR (st.st_mode))
    {
      g_autofree char *existing = NULL;

      /* The destination, or the nearest part of it that exists. */
      if (explicit_target != NULL)
        existing = g_path_get_dirname (target);
      else if (dest_exists)
        existing = g_strdup (self->destination);
      else
        {
          g_autofree char *dest = trim_slashes (self->destination);

          existing = g_path_get_dirname (dest);
        }
      if (is_ancestor_or_self (&st, existing))
        {
          *out_code = CS_JOB_ERROR_INSIDE_SOURCE;
          *out_path = g_strdup (explicit_target != NULL ? target : self->destination);
          return g_strdup_printf ("The destination is inside the source folder %s; the copy would never end",
                                  trimmed);
        }
    }

  *out_read = strcmp (read_path, trimmed) != 0 ? g_steal_pointer (&read_path) : NULL;
  return NULL;
}

/* @per_item: a source's own refusal is kept for the run to report, and the
 * other sources go on. */
static gboolean
check (CsJob     *self,
       gboolean   per_item,
       GError   **error)
{
  struct stat dst_st;
  gboolean dest_exists, dest_is_dir;
  int dest_errno;
  g_autoptr(GArray) seen = NULL;

  if (self->sources->len == 0)
    return set_error (error, CS_JOB_ERROR_INVALID, NULL, "No source was given");
  if (self->destination == NULL)
    return set_error (error, CS_JOB_ERROR_INVALID, NULL, "No destination was given");
  if (self->settings.threads < CS_JOB_MIN_THREADS || self->settings.threads > CS_JOB_MAX_THREADS)
    return set_error (error, CS_JOB_ERROR_INVALID, NULL, "The thread count must be between %d and %d",
                      CS_JOB_MIN_THREADS, CS_JOB_MAX_THREADS);

  dest_exists = _cs_io_stat_location (self->destination, TRUE, &dst_st) == 0;
  dest_errno = errno;
  dest_is_dir = dest_exists && S_ISDIR (dst_st.st_mode);

  if (!dest_exists)
    {
      g_autofree char *trimmed = trim_slashes (self->destination);
      g_autofree char *parent = g_path_get_dirname (trimmed);
      g_autofree char *why = NULL;
      struct stat pst;

      /* ENOTDIR: a file stands where one of its folders should be, said below. */
      if (dest_errno != ENOENT && !(self->into && dest_errno == ENOTDIR))
        return set_error (error, CS_JOB_ERROR_DESTINATION, self->destination, "%s", g_strerror (dest_errno));
      if (dest_errno == ENOENT && (why = _cs_io_explain_missing (self->destination)) != NULL)
        return set_error (error, CS_JOB_ERROR_DESTINATION, self->destination, "%s", why);
      /* Copy Into makes the folders above it that are missing too (the
       * window says so under the destination); the nearest one there must
       * be a folder. */
      while (self->into && _cs_io_stat_location (parent, TRUE, &pst) != 0 && (errno == ENOENT || errno == ENOTDIR)
             && strcmp (parent, "/") != 0 && strcmp (parent, ".") != 0)
        {
          char *up = g_path_get_dirname (parent);

          g_free (parent);
          parent = up;
        }
      if (self->into && _cs_io_stat_location (parent, TRUE, &pst) == 0 && !S_ISDIR (pst.st_mode))
        return set_error (error, CS_JOB_ERROR_DESTINATION, self->destination,
                          _("%s is a file, so no folder can be made in it"), parent);
      if (self->into && _cs_io_is_path (parent) && _cs_io_stat_location (parent, TRUE, &pst) == 0
          && access (parent, W_OK | X_OK) != 0)
        return set_error (error, CS_JOB_ERROR_DESTINATION, self->destination,
                          _("No folder can be made in %s: %s"), parent, g_strerror (errno));
      if (_cs_io_stat_location (parent, TRUE, &pst) != 0 || !S_ISDIR (pst.st_mode))
        return set_error (error, CS_JOB_ERROR_DESTINATION, self->destination,
                          _("The folder that should contain the destination does not exist"));
    }
  else if (!dest_is_dir && self->sources->len > 1)
    return set_error (error, CS_JOB_ERROR_DESTINATION, self->destination,
                      "Several sources need a destination folder, and this is a file");
  else if (!dest_is_dir && self->into)
    return set_error (error, CS_JOB_ERROR_DESTINATION, self->destination,
                      "The destination is a file, not a folder to copy into");

  seen = g_array_new (FALSE, FALSE, sizeof (Seen));
  g_array_set_clear_func (seen, seen_clear);
  g_clear_pointer (&self->refusals, g_ptr_array_unref);
  g_clear_pointer (&self->read_paths, g_ptr_array_unref);
  self->refusals = g_ptr_array_new_full (self->sources->len, g_free);
  self->read_paths = g_ptr_array_new_full (self->sources->len, g_free);

  for (guint i = 0; i < self->sources->len; i++)
    {
      g_autofree char *path = NULL;
      char *read_path = NULL;
      CsJobErrorCode code;
      g_autofree char *why = check_source (self, i, dest_exists, dest_is_dir, seen, &code, &path, &read_path);

      g_ptr_array_add (self->read_paths, read_path);
      if (why != NULL && (!per_item || !is_per_item (code)))
        return set_error (error, code, path != NULL ? path : g_ptr_array_index (self->sources, i), "%s", why);
      g_ptr_array_add (self->refusals, g_steal_pointer (&why));
    }

  return TRUE;
}

gboolean
cs_job_check (CsJob   *self,
              GError **error)
{
  g_return_val_if_fail (CS_IS_JOB (self), FALSE);
  return check (self, FALSE, error);
}

gboolean
cs_job_check_start (CsJob   *self,
                    GError **error)
{
  g_return_val_if_fail (CS_IS_JOB (self), FALSE);
  return check (self, TRUE, error);
}

/* ---- The clock ----------------------------------------------------------- */

double
_cs_job_elapsed (CsJob *job)
{
  gint64 frozen;

  if (job->start_mono == 0)
    return 0;
  frozen = __atomic_load_n (&job->clock_frozen, __ATOMIC_ACQUIRE);
  if (frozen >= 0)
    return (double) frozen / G_USEC_PER_SEC;
  return (double) (g_get_monotonic_time () - __atomic_load_n (&job->clock_origin, __ATOMIC_RELAXED))
         / G_USEC_PER_SEC;
}

/* job->lock held; @paused: the user's pause, else a question */
static void
hold_locked (CsJob    *job,
             gboolean  paused)
{
  if (job->holds++ == 0)
    {
      job->held_since = g_get_monotonic_time ();
      job->hold_paused = FALSE;
      __atomic_store_n (&job->clock_frozen, job->held_since - job->clock_origin, __ATOMIC_RELEASE);
    }
  job->hold_paused |= paused;
}

/* job->lock held; the origin moves before the clock thaws, so a reader that
 * sees it running also sees the new origin. When the clock runs again,
 * @out_event is the hold for the graph to mark, at the clock's time it
 * stood still at: "pause" (the user paused during it, perhaps while a
 * question was open too) or "question", and its seconds; the caller adds it
 * once the lock is released. */
static gboolean
release_locked (CsJob      *job,
                CsRunEvent *out_event)
{
  gint64 held;

  g_assert (job->holds > 0);
  if (--job->holds > 0)
    return FALSE;

  held = g_get_monotonic_time () - job->held_since;
  *out_event = (CsRunEvent) {
    .t = (double) job->clock_frozen / G_USEC_PER_SEC,
    .kind = job->hold_paused ? "pause" : "question",
    .value = (double) held / G_USEC_PER_SEC,
  };
  __atomic_store_n (&job->clock_origin, job->clock_origin + held, __ATOMIC_RELAXED);
  __atomic_store_n (&job->clock_frozen, -1, __ATOMIC_RELEASE);

  return TRUE;
}

/* ---- Stopping, pausing, the bounded queue -------------------------------- */

gboolean
_cs_job_is_excluded (CsJob      *job,
                     const char *name)
{
  if (job->excludes == NULL)
    return FALSE;
  for (guint i = 0; i < job->excludes->len; i++)
    {
      GPatternSpec *spec = g_ptr_array_index (job->excludes, i);

      if (g_pattern_spec_match_string (spec, name))
        return TRUE;
    }
  return FALSE;
}

gboolean
_cs_job_stopping (CsJob *job)
{
  return atomic_load_explicit (&job->stop, memory_order_relaxed) != CS_STOP_NONE;
}

/* job->lock held */
static void
update_gate_locked (CsJob *job)
{
  atomic_store (&job->gate_closed, job->paused || job->asking > 0);
}

/* A question holds the whole copy, not only the worker that asked: the clock
 * stands still meanwhile, and bytes the others copied then would be counted
 * against no time at all (a rate of 334.6 GB/s was shown during a prompt). */
gboolean
_cs_job_wait_if_paused (CsJob *job)
{
  if (_cs_job_stopping (job))
    return FALSE;
  if (G_LIKELY (!atomic_load_explicit (&job->gate_closed, memory_order_relaxed)))
    return TRUE;

  _cs_mutex_lock (&job->lock);
  while ((job->paused || job->asking > 0) && !_cs_job_stopping (job))
    _cs_cond_wait (&job->cond, &job->lock);
  _cs_mutex_unlock (&job->lock);

  return !_cs_job_stopping (job);
}

gboolean
_cs_job_sleep (CsJob  *job,
               double  seconds)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) (seconds * G_USEC_PER_SEC);

  _cs_mutex_lock (&job->lock);
  while (!_cs_job_stopping (job) && g_get_monotonic_time () < deadline)
    _cs_cond_wait_until (&job->cond, &job->lock, deadline);
  _cs_mutex_unlock (&job->lock);

  return !_cs_job_stopping (job);
}

static gboolean
stop (CsJob        *job,
      CsStopReason  reason,
      const char   *message)
{
  gboolean first = FALSE;
  gboolean released = FALSE;
  CsRunEvent hold;

  _cs_mutex_lock (&job->lock);
  if (atomic_load (&job->stop) == CS_STOP_NONE)
    {
      atomic_store (&job->stop, reason);
      if (message != NULL)
        job->fatal_message = g_strdup (message);
      first = TRUE;
    }
  if (job->paused)
    {
      job->paused = FALSE;
      released = release_locked (job, &hold);
    }
  update_gate_locked (job);
  g_cond_broadcast (&job->cond);
  _cs_mutex_unlock (&job->lock);
  if (released)
    _cs_run_add_event (job->run, &hold);
  /* Workers waiting for a speed limit stop waiting. */
  _cs_limiter_stop (&job->byte_limit);
  _cs_limiter_stop (&job->file_limit);

  return first;
}

gboolean
_cs_job_fatal (CsJob      *job,
               const char *message)
{
  return stop (job, CS_STOP_FATAL, message);
}

/* What an item counts against the queue bound. A batch counts its files: the
 * bound is what keeps memory flat, and counting a batch of sixteen as one let
 * the queue hold sixteen times as many files (25 MB at 100,000 files). */
static guint
item_weight (CsItem *item)
{
  return item->kind == CS_ITEM_BATCH ? MAX (item->n_files, 1) : 1;
}

void
_cs_job_push (CsJob  *job,
              CsItem *item)
{
  guint weight = item_weight (item);

  _cs_mutex_lock (&job->lock);
  while (job->pending >= job->max_pending && !_cs_job_stopping (job))
    _cs_cond_wait (&job->cond, &job->lock);
  /* Written atomically although under the lock: the scanner peeks at it without
   * the lock to decide on batching (queue_item). */
  __atomic_fetch_add (&job->pending, weight, __ATOMIC_RELAXED);
  _cs_mutex_unlock (&job->lock);

  /* The pool's queue is GLib's own lock; the worker acquires this in worker_func. */
  CS_TSAN_RELEASE (item);
  g_thread_pool_push (job->pool, item, NULL);
}

/* Many threads each holding a few descriptors need more than the usual 1024;
 * when even the hard limit is low, the job budgets what it has. */
static void
plan_fd_budget (CsJob *job)
{
  struct rlimit rl;
  guint64 avail;

  if (getrlimit (RLIMIT_NOFILE, &rl) != 0)
    return;
  if (rl.rlim_cur < rl.rlim_max)
    {
      rl.rlim_cur = rl.rlim_max;
      setrlimit (RLIMIT_NOFILE, &rl);
      getrlimit (RLIMIT_NOFILE, &rl);
    }

  /* Some for stdio, /proc reads, flushing and the listing of existing folders. */
  avail = rl.rlim_cur > 40 ? rl.rlim_cur - 24 : 16;
  job->max_dir_fds = (guint) MIN (avail / 2, G_MAXUINT / 2);
  /* An item holds a source and a temporary; a chunk one more. */
  job->max_items = (guint) MAX (1, MIN ((avail - avail / 2) / 3, G_MAXUINT / 2));
}

static gboolean
budget_limits_items (CsJob *job)
{
  return job->max_items < CS_JOB_MAX_THREADS;
}

void
_cs_job_hold_item (CsJob *job)
{
  _cs_mutex_lock (&job->lock);
  __atomic_fetch_add (&job->pending, 1, __ATOMIC_RELAXED);
  _cs_mutex_unlock (&job->lock);
}

void
_cs_job_release_held (CsJob *job)
{
  _cs_mutex_lock (&job->lock);
  if (__atomic_sub_fetch (&job->pending, 1, __ATOMIC_RELAXED) == 0)
    g_cond_broadcast (&job->cond);
  _cs_mutex_unlock (&job->lock);
}

void
_cs_job_acquire_dir_fds (CsJob *job,
                         guint  n)
{
  _cs_mutex_lock (&job->lock);
  /* Wait only while finishing items can free folders; the folders on the
   * scanner's own path can't be given back, and waiting on them would hang. */
  while (job->dir_fds + n > job->max_dir_fds && job->pending > 0 && !_cs_job_stopping (job))
    _cs_cond_wait_until (&job->cond, &job->lock, g_get_monotonic_time () + G_USEC_PER_SEC / 20);
  job->dir_fds += n;
  _cs_mutex_unlock (&job->lock);
}

void
_cs_job_release_dir_fds (CsJob *job,
                         guint  n)
{
  _cs_mutex_lock (&job->lock);
  job->dir_fds -= MIN (n, job->dir_fds);
  _cs_mutex_unlock (&job->lock);
}

void
_cs_job_dir_finished (CsJob *job,
                      CsDir *dir)
{
  if (job->settings.operation == CS_OPERATION_MOVE && !job->settings.dry_run)
    _cs_move_finish_dir (job, dir);
}

static void
worker_func (gpointer data,
             gpointer user_data)
{
  CsItem *item = data;
  CsJob *job = user_data;
  CsWorker *worker;
  guint weight, before;

  CS_TSAN_ACQUIRE (item);
  weight = item_weight (item);
  worker = g_private_get (&worker_private);
  if (worker == NULL)
    {
      worker = g_new0 (CsWorker, 1);
      /* Aligned so the same buffer also suits O_DIRECT readers later. */
      if (posix_memalign ((void **) &worker->buffer, 4096, CS_BUFFER_SIZE) != 0)
        g_error ("Out of memory");
      g_private_set (&worker_private, worker);
    }

  if (budget_limits_items (job))
    {
      _cs_mutex_lock (&job->lock);
      while (job->items_active >= job->max_items)
        _cs_cond_wait (&job->cond, &job->lock);
      job->items_active++;
      _cs_mutex_unlock (&job->lock);
    }

  atomic_fetch_add (&job->active, 1);
  if (item->kind == CS_ITEM_BATCH)
    {
      CsItem *member;

      while ((member = item->next) != NULL)
        {
          item->next = member->next;
          member->next = NULL;
          /* A member put aside (see _cs_copy_item) is freed by whoever takes it up. */
          if (!_cs_job_wait_if_paused (job) || _cs_copy_item (job, worker, member))
            _cs_item_free (member);
        }
      _cs_item_free (item);
    }
  else if (!(_cs_job_wait_if_paused (job) || item->kind == CS_ITEM_CHUNK)
           || _cs_copy_item (job, worker, item))
    _cs_item_free (item);
  atomic_fetch_sub (&job->active, 1);

  /* Only a few waiters care: the scanner when the queue was full or it waits for
   * folder descriptors, and the controller when the queue empties. Waking them
   * for every file costs a futex each. */
  _cs_mutex_lock (&job->lock);
  before = __atomic_fetch_sub (&job->pending, weight, __ATOMIC_RELAXED);
  if (budget_limits_items (job))
    {
      job->items_active--;
      g_cond_broadcast (&job->cond);
    }
  else if (job->pending == 0 || (before >= job->max_pending && job->pending < job->max_pending)
           || job->dir_fds + 4 > job->max_dir_fds)
    g_cond_broadcast (&job->cond);
  _cs_mutex_unlock (&job->lock);
}

/* ---- Totals and reports (any thread) ------------------------------------- */

void
_cs_job_account (CsJob      *job,
                 CsDir      *dir,
                 const char *name,
                 const char *dst_name,
                 CsAction    action,
                 guint64     size)
{
  /* A move leaves what it does not take in the source. */
  gboolean move = job->settings.operation == CS_OPERATION_MOVE;
  const char *skipped = move ? "kept" : "skipped";

  switch (action)
    {
    case CS_ACTION_SKIP_NEWER:
      _cs_job_report_destination (job, dir, dst_name, "skip",
                                  move ? "Left in the source: the file at the destination is newer"
                                       : "Skipped: the file at the destination is newer");
      _cs_job_log (job, dir, name, skipped, size, "the file at the destination is newer");
      _cs_job_add_total (job, CS_CLASS_SKIPPED, 1, size);
      _cs_job_add_skip (job, FALSE, size);
      break;
    case CS_ACTION_SKIP:
      _cs_job_log (job, dir, name, skipped, size, "identical");
      _cs_job_add_total (job, CS_CLASS_SKIPPED, 1, size);
      _cs_job_add_skip (job, TRUE, size);
      break;
    case CS_ACTION_SKIP_KEPT:
      if (move)
        _cs_job_note (job, dir, dst_name, "skip", 0,
                      "Left in the source: a different file of that name is at the destination");
      _cs_job_log (job, dir, name, skipped, size, "the file at the destination differs and was kept");
      _cs_job_add_total (job, CS_CLASS_SKIPPED, 1, size);
      _cs_job_add_skip (job, FALSE, size);
      break;
    case CS_ACTION_FAIL:
      _cs_job_add_total (job, CS_CLASS_FAILED, 1, size);
      break;
    case CS_ACTION_COPY:
    case CS_ACTION_REPLACE:
    case CS_ACTION_KEEP_BOTH:
    default:
      return;
    }
  if (move && !job->settings.dry_run)
    atomic_fetch_add (&job->kept_files, 1);
  atomic_fetch_add_explicit (&job->counters.files_done, 1, memory_order_relaxed);
  atomic_fetch_add_explicit (&job->counters.bytes_done, size, memory_order_relaxed);
}

void
_cs_job_count_decided (CsJob    *job,
                       CsAction  action)
{
  atomic_fetch_add_explicit (&job->files_checked, 1, memory_order_relaxed);
  if (action <= CS_ACTION_KEEP_BOTH)
    atomic_fetch_add_explicit (&job->files_to_copy, 1, memory_order_relaxed);
}

void
_cs_job_count_done (CsJob   *job,
                    CsClass  klass,
                    guint64  size)
{
  _cs_job_add_total (job, klass, 1, size);
  atomic_fetch_add_explicit (&job->counters.files_done, 1, memory_order_relaxed);
  atomic_fetch_add_explicit (&job->counters.bytes_done, size, memory_order_relaxed);
}

void
_cs_job_add_total (CsJob   *job,
                   CsClass  klass,
                   guint64  files,
                   guint64  bytes)
{
  atomic_fetch_add_explicit (&job->totals[klass][CS_KIND_FILES], files, memory_order_relaxed);
  atomic_fetch_add_explicit (&job->totals[klass][CS_KIND_BYTES], bytes, memory_order_relaxed);
}

void
_cs_job_add_skip (CsJob    *job,
                  gboolean  identical,
                  guint64   bytes)
{
  atomic_fetch_add_explicit (identical ? &job->identical_files : &job->chosen_files, 1, memory_order_relaxed);
  atomic_fetch_add_explicit (identical ? &job->identical_bytes : &job->chosen_bytes, bytes, memory_order_relaxed);
}

void
_cs_job_correct_found_bytes (CsJob   *job,
                             guint64  found,
                             guint64  actual)
{
  atomic_fetch_add_explicit (&job->totals[CS_CLASS_TOTAL][CS_KIND_BYTES], actual, memory_order_relaxed);
  atomic_fetch_sub_explicit (&job->totals[CS_CLASS_TOTAL][CS_KIND_BYTES], found, memory_order_relaxed);
  atomic_fetch_add_explicit (&job->bytes_found, actual, memory_order_relaxed);
  atomic_fetch_sub_explicit (&job->bytes_found, found, memory_order_relaxed);
}

void
_cs_job_add_dir_total (CsJob   *job,
                       CsClass  klass)
{
  atomic_fetch_add_explicit (&job->totals[klass][CS_KIND_DIRS], 1, memory_order_relaxed);
}

/* The next progress callback has news: a failure or a note in the record. */
static void
progress_changed (CsJob *job)
{
  _cs_mutex_lock (&job->notify_lock);
  job->progress_dirty = TRUE;
  _cs_mutex_unlock (&job->notify_lock);
}

void
_cs_job_report (CsJob      *job,
                CsDir      *dir,
                const char *name,
                const char *operation,
                int         error_code,
                const char *message,
                guint       attempts)
{
  g_autofree char *path = NULL;

  /* Once the destination is gone, every folder still open fails the same way
   * with the bare errno text; the report that carries the fatal message says
   * it all. */
  if (message == NULL && error_code > 0 && _cs_is_fatal_errno (error_code)
      && atomic_load (&job->stop) == CS_STOP_FATAL)
    return;

  path = _cs_dir_dup_path (dir, name, FALSE);
  _cs_run_add_error (job->run, path, operation, error_code,
                     message != NULL ? message : g_strerror (error_code), attempts);

  progress_changed (job);
}

void
_cs_job_note (CsJob      *job,
              CsDir      *dir,
              const char *name,
              const char *operation,
              int         error_code,
              const char *message)
{
  g_autofree char *path = _cs_dir_dup_path (dir, name, FALSE);

  _cs_run_add_note (job->run, path, operation, error_code,
                    message != NULL ? message : g_strerror (error_code));
  progress_changed (job);
}

void
_cs_job_report_item (CsJob      *job,
                     CsDir      *dir,
                     const char *name,
                     const char *dst_name,
                     guint64     size,
                     gboolean    folder,
                     const char *operation,
                     int         error_code,
                     const char *message,
                     guint       attempts)
{
  _cs_job_report (job, dir, dst_name != NULL ? dst_name : name, operation, error_code, message, attempts);
  if (job->log != NULL)
    {
      g_autofree char *path = _cs_dir_dup_path (dir, name, FALSE);
      g_autofree char *why = g_strdup_printf ("%s: %s", operation,
                                              message != NULL ? message : g_strerror (error_code));

      _cs_log_item (job->log, "failed", size, path, folder, why);
    }
}

void
_cs_job_log (CsJob      *job,
             CsDir      *dir,
             const char *name,
             const char *action,
             guint64     bytes,
             const char *why)
{
  g_autofree char *path = NULL;

  if (job->log == NULL)
    return;
  path = _cs_dir_dup_path (dir, name, FALSE);
  _cs_log_item (job->log, action, bytes, path, FALSE, why);
}

void
_cs_job_log_path (CsJob      *job,
                  const char *path,
                  gboolean    folder,
                  const char *action,
                  guint64     bytes,
                  const char *why)
{
  _cs_log_item (job->log, action, bytes, path, folder, why);
}

void
_cs_job_report_destination (CsJob      *job,
                            CsDir      *dir,
                            const char *name,
                            const char *operation,
                            const char *message)
{
  g_autofree char *path = _cs_dir_dup_path (dir, name, TRUE);

  _cs_run_add_note (job->run, path, operation, 0, message);
  progress_changed (job);
}

/* ---- The channel to the main context ------------------------------------- */

static void finish_on_main (CsJob *job);

static gboolean
dispatch (gpointer data)
{
  CsJob *job = data;
  g_autoptr(GArray) samples = NULL;
  g_autoptr(GPtrArray) conflicts = NULL;
  g_autoptr(GArray) changes = NULL;
  g_autoptr(CsDeletions) deletions = NULL;
  gboolean progress, done;

  _cs_mutex_lock (&job->notify_lock);
  samples = g_steal_pointer (&job->pending_samples);
  job->pending_samples = g_array_new (FALSE, FALSE, sizeof (CsSample));
  conflicts = g_steal_pointer (&job->pending_conflicts);
  job->pending_conflicts = g_ptr_array_new_with_free_func (g_object_unref);
  deletions = g_steal_pointer (&job->pending_deletions);
  changes = g_steal_pointer (&job->pending_thread_changes);
  job->pending_thread_changes = g_array_new (FALSE, FALSE, sizeof (guint));
  progress = job->progress_dirty;
  job->progress_dirty = FALSE;
  done = job->done_pending;
  job->done_pending = FALSE;
  g_clear_pointer (&job->notify_source, g_source_unref);
  _cs_mutex_unlock (&job->notify_lock);

  /* Signals are emitted outside the lock: handlers may call back into the job. */
  for (guint i = 0; i + 1 < changes->len; i += 2)
    g_signal_emit (job, signals[SIGNAL_THREADS_CHANGED], 0,
                   g_array_index (changes, guint, i), g_array_index (changes, guint, i + 1));
  for (guint i = 0; i < samples->len; i++)
    g_signal_emit (job, signals[SIGNAL_SAMPLE], 0, &g_array_index (samples, CsSample, i));
  if (progress || samples->len > 0 || done)
    g_signal_emit (job, signals[SIGNAL_PROGRESS], 0);
  for (guint i = 0; i < conflicts->len; i++)
    g_signal_emit (job, signals[SIGNAL_CONFLICT], 0, g_ptr_array_index (conflicts, i));
  if (deletions != NULL)
    g_signal_emit (job, signals[SIGNAL_DELETIONS], 0, deletions);
  if (done)
    finish_on_main (job);

  return G_SOURCE_REMOVE;
}

/* notify_lock held */
static void
schedule_locked (CsJob *job)
{
  if (job->notify_source != NULL || job->context == NULL)
    return;

  job->notify_source = g_idle_source_new ();
  g_source_set_priority (job->notify_source, G_PRIORITY_DEFAULT);
  g_source_set_callback (job->notify_source, dispatch, g_object_ref (job), g_object_unref);
  g_source_set_static_name (job->notify_source, "[copyscope] job progress");
  g_source_attach (job->notify_source, job->context);
}

void
_cs_job_post_sample (CsJob          *job,
                     const CsSample *sample)
{
  _cs_mutex_lock (&job->notify_lock);
  if (sample != NULL)
    g_array_append_val (job->pending_samples, *sample);
  job->progress_dirty = TRUE;
  schedule_locked (job);
  _cs_mutex_unlock (&job->notify_lock);
}

/* A question to the user, a conflict or the deletions of a mirror, holds
 * the clock and closes the gate until it is answered. */
static void
begin_question (CsJob *job)
{
  _cs_mutex_lock (&job->lock);
  hold_locked (job, FALSE);
  job->asking++;
  update_gate_locked (job);
  _cs_mutex_unlock (&job->lock);
}

static void
end_question (CsJob *job)
{
  gboolean released;
  CsRunEvent hold;

  _cs_mutex_lock (&job->lock);
  job->asking--;
  update_gate_locked (job);
  released = release_locked (job, &hold);
  g_cond_broadcast (&job->cond);
  _cs_mutex_unlock (&job->lock);
  if (released)
    _cs_run_add_event (job->run, &hold);
}

CsConflictAnswer
_cs_job_ask (CsJob             *job,
             CsDir             *dir,
             const char        *name,
             const struct stat *src,
             const struct stat *dst,
             gboolean          *out_apply_all)
{
  g_autoptr(CsConflict) conflict = NULL;
  g_autofree char *src_path = NULL;
  g_autofree char *dst_path = NULL;
  CsConflictAnswer answer = CS_CONFLICT_SKIP;
  gboolean all = FALSE;

  if (!job->has_conflict_handler)
    return CS_CONFLICT_SKIP;

  /* One question at a time; an "apply to all" answer ends the questions. */
  _cs_mutex_lock (&job->ask_lock);
  if (job->has_all_answer)
    {
      answer = job->all_answer;
      _cs_mutex_unlock (&job->ask_lock);
      *out_apply_all = TRUE;
      return answer;
    }

  src_path = _cs_dir_dup_path (dir, name, FALSE);
  dst_path = _cs_dir_dup_path (dir, name, TRUE);
  conflict = _cs_conflict_new (src_path, dst_path, src, dst);

  begin_question (job);
  _cs_mutex_lock (&job->notify_lock);
  g_ptr_array_add (job->pending_conflicts, g_object_ref (conflict));
  schedule_locked (job);
  _cs_mutex_unlock (&job->notify_lock);

  if (!_cs_conflict_wait (conflict, job, &answer, &all))
    answer = CS_CONFLICT_SKIP;
  end_question (job);

  if (all)
    {
      job->all_answer = answer;
      job->has_all_answer = TRUE;
    }
  _cs_mutex_unlock (&job->ask_lock);

  *out_apply_all = all;
  return answer;
}

gboolean
_cs_job_confirm_deletions (CsJob       *job,
                           CsDeletions *deletions)
{
  gboolean answer;

  begin_question (job);
  _cs_mutex_lock (&job->notify_lock);
  g_set_object (&job->pending_deletions, deletions);
  schedule_locked (job);
  _cs_mutex_unlock (&job->notify_lock);
  answer = _cs_deletions_wait (deletions, job);
  end_question (job);

  return answer;
}

/* ---- Control (main thread) ----------------------------------------------- */

/* any thread */
void
_cs_job_apply_threads (CsJob      *job,
                       guint       n_threads,
                       const char *reason)
{
  guint old = atomic_exchange (&job->threads, n_threads);

  if (old == n_threads)
    return;

  /* Under the lock: the controller frees the pool once the copy is over. */
  _cs_mutex_lock (&job->lock);
  if (job->pool != NULL)
    g_thread_pool_set_max_threads (job->pool, (int) n_threads, NULL);
  _cs_mutex_unlock (&job->lock);

  _cs_run_add_thread_change (job->run, _cs_job_elapsed (job), old, n_threads, reason);

  _cs_mutex_lock (&job->notify_lock);
  g_array_append_val (job->pending_thread_changes, old);
  g_array_append_val (job->pending_thread_changes, n_threads);
  job->progress_dirty = TRUE;
  schedule_locked (job);
  _cs_mutex_unlock (&job->notify_lock);
}

void
cs_job_set_threads (CsJob      *self,
                    guint       n_threads,
                    const char *reason)
{
  g_return_if_fail (CS_IS_JOB (self));
  g_return_if_fail (n_threads >= CS_JOB_MIN_THREADS && n_threads <= CS_JOB_MAX_THREADS);

  /* A count chosen by hand wins over Auto. */
  atomic_store (&self->auto_threads, 0);

  if (self->state == CS_JOB_STATE_READY)
    {
      atomic_store (&self->threads, n_threads);
      self->settings.threads = n_threads;
      return;
    }
  _cs_job_apply_threads (self, n_threads, reason != NULL ? reason : "user");
}

void
cs_job_set_auto_threads (CsJob    *self,
                         gboolean  enabled)
{
  g_return_if_fail (CS_IS_JOB (self));

  if (enabled && !atomic_load (&self->auto_threads))
    {
      /* The sampler thread owns the tuner once running; it restarts it on this flag. */
      atomic_store (&self->auto_threads, 2);
    }
  else if (!enabled)
    atomic_store (&self->auto_threads, 0);
}

gboolean
cs_job_get_auto_threads (CsJob *self)
{
  g_return_val_if_fail (CS_IS_JOB (self), FALSE);
  return atomic_load (&self->auto_threads) != 0;
}

/* sampler thread */
void
_cs_job_auto_feed (CsJob          *job,
                   const CsSample *sample,
                   double          bytes_per_file)
{
  int mode = atomic_load (&job->auto_threads);
  g_autofree char *reason = NULL;
  guint next;

  if (mode == 0)
    return;
  if (mode == 2)
    {
      cs_auto_tuner_init (&job->tuner, atomic_load (&job->threads), CS_JOB_MIN_THREADS, CS_JOB_MAX_THREADS);
      atomic_store (&job->auto_threads, 1);
    }

  next = cs_auto_tuner_feed (&job->tuner, sample->values[CS_COUNTER_FILE_RATE],
                             sample->values[CS_COUNTER_WRITE_TRANSFER_RATE], bytes_per_file, &reason);
  /* The best count measured so far, even if the copy ends mid-probe. */
  if (job->tuner.phase == CS_AUTO_HOLDING)
    job->auto_settled = job->tuner.current;
  else if (job->tuner.have_base)
    job->auto_settled = job->tuner.base_threads;
  if (next != 0 && atomic_load (&job->auto_threads) != 0)
    _cs_job_apply_threads (job, next, reason);
}

/* A limit set while the job runs is an event for the graph. */
static void
set_limit (CsJob      *self,
           CsLimiter  *limiter,
           double     *setting,
           const char *kind,
           double      value)
{
  CsJobState state = cs_job_get_state (self);

  if (state == CS_JOB_STATE_FINISHED || _cs_limiter_get (limiter) == value)
    return;
  _cs_limiter_set (limiter, value);
  if (state == CS_JOB_STATE_READY)
    *setting = value;
  else
    {
      CsRunEvent event = { _cs_job_elapsed (self), (char *) kind, value };

      _cs_run_add_event (self->run, &event);
      _cs_job_post_sample (self, NULL);
    }
}

void
cs_job_set_max_rate (CsJob  *self,
                     double  bytes_per_second)
{
  g_return_if_fail (CS_IS_JOB (self));
  g_return_if_fail (bytes_per_second >= 0);

  set_limit (self, &self->byte_limit, &self->settings.max_rate, "max-rate", bytes_per_second);
}

double
cs_job_get_max_rate (CsJob *self)
{
  g_return_val_if_fail (CS_IS_JOB (self), 0);

  return _cs_limiter_get (&self->byte_limit);
}

void
cs_job_set_max_files (CsJob  *self,
                      double  files_per_second)
{
  g_return_if_fail (CS_IS_JOB (self));
  g_return_if_fail (files_per_second >= 0);

  set_limit (self, &self->file_limit, &self->settings.max_files, "max-files", files_per_second);
}

double
cs_job_get_max_files (CsJob *self)
{
  g_return_val_if_fail (CS_IS_JOB (self), 0);

  return _cs_limiter_get (&self->file_limit);
}

gboolean
cs_job_get_limited (CsJob *self)
{
  g_return_val_if_fail (CS_IS_JOB (self), FALSE);

  return _cs_limiter_held_back (&self->byte_limit, G_USEC_PER_SEC)
         || _cs_limiter_held_back (&self->file_limit, G_USEC_PER_SEC);
}

/* any thread: whether the destination is a network share, where each
 * request is a round trip; FALSE until the scanner has opened it. */
gboolean
cs_job_get_destination_remote (CsJob *self)
{
  g_return_val_if_fail (CS_IS_JOB (self), FALSE);

  return atomic_load (&self->dst_remote) != 0;
}

guint
cs_job_get_threads (CsJob *self)
{
  g_return_val_if_fail (CS_IS_JOB (self), 0);
  return atomic_load (&self->threads);
}

void
cs_job_pause (CsJob *self)
{
  g_return_if_fail (CS_IS_JOB (self));

  _cs_mutex_lock (&self->lock);
  if (self->state == CS_JOB_STATE_RUNNING && !self->paused && !_cs_job_stopping (self))
    {
      self->paused = TRUE;
      __atomic_store_n (&self->state, CS_JOB_STATE_PAUSED, __ATOMIC_RELEASE);
      hold_locked (self, TRUE);
      update_gate_locked (self);
    }
  _cs_mutex_unlock (&self->lock);
  _cs_job_post_sample (self, NULL);
}

void
cs_job_resume (CsJob *self)
{
  gboolean released = FALSE;
  CsRunEvent hold;

  g_return_if_fail (CS_IS_JOB (self));

  _cs_mutex_lock (&self->lock);
  if (self->paused)
    {
      self->paused = FALSE;
      __atomic_store_n (&self->state, CS_JOB_STATE_RUNNING, __ATOMIC_RELEASE);
      released = release_locked (self, &hold);
      update_gate_locked (self);
      g_cond_broadcast (&self->cond);
    }
  _cs_mutex_unlock (&self->lock);
  if (released)
    _cs_run_add_event (self->run, &hold);
  _cs_job_post_sample (self, NULL);
}

/* any thread */
void
cs_job_set_keep_partial (CsJob    *self,
                         gboolean  keep)
{
  g_return_if_fail (CS_IS_JOB (self));

  atomic_store (&self->keep_partial, !!keep);
}

/* any thread */
guint
cs_job_get_partials (CsJob   *self,
                     guint64 *out_proven)
{
  g_return_val_if_fail (CS_IS_JOB (self), 0);

  if (out_proven != NULL)
    *out_proven = atomic_load (&self->partials_proven);
  return atomic_load (&self->partials_open);
}

/* any thread */
void
cs_job_cancel (CsJob *self)
{
  g_return_if_fail (CS_IS_JOB (self));

  stop (self, CS_STOP_CANCEL, NULL);
  _cs_mutex_lock (&self->lock);
  if (self->state == CS_JOB_STATE_PAUSED)
    __atomic_store_n (&self->state, CS_JOB_STATE_RUNNING, __ATOMIC_RELEASE);
  _cs_mutex_unlock (&self->lock);
}

CsJobState
cs_job_get_state (CsJob *self)
{
  g_return_val_if_fail (CS_IS_JOB (self), CS_JOB_STATE_READY);

  /* Without the lock: the window asks at every update, and a worker holding
   * the lock at nice 19 made it wait up to half a second. */
  return __atomic_load_n (&self->state, __ATOMIC_ACQUIRE);
}

void
cs_job_get_progress (CsJob      *self,
                     CsProgress *out)
{
  g_return_if_fail (CS_IS_JOB (self));
  g_return_if_fail (out != NULL);

  memset (out, 0, sizeof *out);
  out->state = cs_job_get_state (self);
  out->scanning = atomic_load (&self->scanning) != 0;
  out->flushing = atomic_load (&self->flushing) != 0;
  out->threads = atomic_load (&self->threads);
  out->active = (guint) atomic_load (&self->active);
  out->dirs_found = atomic_load (&self->dirs_found);
  out->files_found = atomic_load (&self->files_found);
  out->bytes_found = atomic_load (&self->bytes_found);
  out->files_total = out->files_found;
  out->bytes_total = out->bytes_found;
  out->total_known = !out->scanning;
  /* Counted ahead, the total is known before the scanner gets there; what it
   * found beyond the count (files added meanwhile) is not left out. */
  if (out->scanning && atomic_load_explicit (&self->counted, memory_order_acquire))
    {
      out->total_known = TRUE;
      out->files_total = MAX (out->files_found, atomic_load (&self->files_counted));
      out->bytes_total = MAX (out->bytes_found, atomic_load (&self->bytes_counted));
    }
  out->files_done = atomic_load (&self->counters.files_done);
  /* Bytes of files still in flight count too, or one big file would show 0 % until it ends. */
  out->bytes_done = atomic_load (&self->counters.bytes_done) + atomic_load (&self->bytes_partial);
  out->bytes_done = MIN (out->bytes_done, MAX (out->bytes_found, atomic_load (&self->counters.bytes_done)));
  out->files_copied = atomic_load (&self->totals[CS_CLASS_COPIED][CS_KIND_FILES]);
  out->bytes_copied = atomic_load (&self->totals[CS_CLASS_COPIED][CS_KIND_BYTES]);
  out->bytes_copying = atomic_load (&self->bytes_partial);
  out->files_skipped = atomic_load (&self->totals[CS_CLASS_SKIPPED][CS_KIND_FILES]);
  out->files_checked = atomic_load (&self->files_checked);
  out->files_to_copy = atomic_load (&self->files_to_copy);
  out->files_failed = atomic_load (&self->totals[CS_CLASS_FAILED][CS_KIND_FILES])
                      + atomic_load (&self->totals[CS_CLASS_MISMATCH][CS_KIND_FILES]);
  out->n_errors = cs_run_get_n_errors (self->run);
  out->n_notes = cs_run_get_n_notes (self->run);
  out->elapsed = _cs_job_elapsed (self);
}

/* ---- Running ------------------------------------------------------------- */

static gpointer
sampler_thread (gpointer data)
{
  CsJob *job = data;
  CsSampler *sampler = g_steal_pointer (&job->sampler_state);
  gboolean record = job->settings.interval_ms > 0;
  gint64 interval = (gint64) (record ? job->settings.interval_ms : 250) * 1000;
  gint64 next = g_get_monotonic_time () + interval;

  _cs_mutex_lock (&job->lock);
  while (!job->finished)
    {
      if (!_cs_cond_wait_until (&job->sampler_cond, &job->lock, next))
        {
          _cs_mutex_unlock (&job->lock);
          _cs_sampler_take (sampler, record, FALSE);
          /* Lines of files that finished a while ago reach the log now. */
          _cs_log_flush (job->log);
          _cs_mutex_lock (&job->lock);
          next += interval;
          /* After a long stall, sample again at the normal pace rather than catch up. */
          if (next < g_get_monotonic_time ())
            next = g_get_monotonic_time () + interval;
        }
    }
  _cs_mutex_unlock (&job->lock);

  /* The closing sample covers the last part interval, so short runs have one too. */
  _cs_sampler_take (sampler, record, TRUE);
  _cs_sampler_free (sampler);

  return NULL;
}

static void
flush_destination (CsJob *job)
{
  int fd = _cs_io_openat (&job->counters, CS_IO_AT_LOCATION, job->destination, O_RDONLY, 0);

  if (fd < 0)
    {
      g_autofree char *parent = g_path_get_dirname (job->destination);
      fd = _cs_io_openat (&job->counters, CS_IO_AT_LOCATION, parent, O_RDONLY | O_DIRECTORY, 0);
    }
  if (fd < 0)
    return;
  if (_cs_io_syncfs (&job->counters, fd) != 0)
    _cs_job_report (job, NULL, job->destination, "flush", errno, NULL, 1);
  _cs_io_close (&job->counters, fd);
}

guint
cs_job_get_remembered_threads (const char  *destination,
                               char       **out_filesystem)
{
  g_return_val_if_fail (destination != NULL, 0);

  return _cs_auto_memory_recall (destination, out_filesystem);
}

/* A job that asked for a flush (--durable, a move's before it removes
 * sources, the one at the end) onto a destination whose backend has none
 * (libsmbclient 4.17 offers no flush: fsync there succeeds and asks the
 * server for nothing) says so once, unless it ended on a fatal error, which
 * is then the one thing said. */
static void
note_no_flush (CsJob *job)
{
  if (!atomic_load (&job->dst_cannot_flush) || job->settings.dry_run
      || atomic_load (&job->stop) == CS_STOP_FATAL)
    return;
  if (!job->settings.durable && !job->settings.flush
      && job->settings.operation != CS_OPERATION_MOVE)
    return;
  _cs_job_note (job, NULL, job->destination, "flush", 0,
                _("The server has each byte once its write returns, but libsmbclient offers no "
                  "flush: no flush asked for here (of each file, before a moved source is "
                  "removed, or at the end) reaches the server's disk"));
}

/* Remembers what Auto settled on for this destination's filesystem, in
 * general (what the window offers) and for the size of the files copied. */
static void
remember_threads (CsJob *job)
{
  if (job->auto_settled == 0 || job->settings.dry_run)
    return;
  _cs_auto_memory_store (job->destination, atomic_load (&job->size_class) - 1, job->auto_settled);
}

/* scanner thread: the first look is taken; Auto starts from a count for it. */
static void
size_up_done (CsJob *job)
{
  double mean = job->sized_files > 0 ? (double) job->sized_bytes / job->sized_files : 0;
  CsSizeClass klass = _cs_size_class_for_mean (mean);
  g_autofree char *reason = NULL;
  guint remembered, start;
  int expected = 1;

  job->sized = TRUE;
  atomic_store (&job->size_class, (int) klass + 1);
  if (atomic_load (&job->auto_threads) == 0)
    return;

  remembered = _cs_auto_memory_recall_for (job->destination, klass);
  start = remembered != 0 ? remembered : _cs_size_class_start (klass);
  if (remembered != 0)
    reason = g_strdup_printf ("auto: %s files (%.0f kB on average); %u threads worked best last time",
                              _cs_size_class_name (klass), mean / 1e3, start);
  else
    reason = g_strdup_printf ("auto: %s files (%.0f kB on average); starting at %u threads",
                              _cs_size_class_name (klass), mean / 1e3, start);
  _cs_job_apply_threads (job, start, reason);
  /* The tuner measures from here; a switch turned off meanwhile stays off. */
  atomic_compare_exchange_strong (&job->auto_threads, &expected, 2);
}

void
_cs_job_size_up (CsJob   *job,
                 guint64  size)
{
  if (job->sized)
    return;
  job->sized_files++;
  job->sized_bytes += size;
  /* Enough to tell tiny files from large ones, early enough to matter. */
  if (job->sized_files >= 32 || job->sized_bytes >= (G_GUINT64_CONSTANT (64) << 20))
    size_up_done (job);
}

void
_cs_job_size_up_end (CsJob *job)
{
  if (!job->sized && job->sized_files > 0)
    size_up_done (job);
}

/* controller thread, once the work is done: the machine and the filesystems
 * for the record. Reading mountinfo, the host name and the like took about a
 * millisecond before the first request on a cold start, so not before the
 * copy; and not while it runs, as a share's backend counts its connections
 * (the most the copy had) until the last worker is done: read when the scan
 * ended, a copy changed from 2 to 8 threads meanwhile said 4. The record is
 * read only after the controller is joined. */
static void
record_environment (CsJob *self)
{
  CsRunEnvironment env = { 0 };
  g_autofree char *probe = NULL;

  _cs_env_init_environment (&env);
  env.source_fs = _cs_io_filesystem_type (g_ptr_array_index (self->sources, 0));
  probe = _cs_env_filesystem_probe (self->destination);
  env.destination_fs = _cs_io_filesystem_type (probe);
  env.cache_mode = g_strdup (self->cache_mode != NULL ? self->cache_mode : "unknown");
  env.route = g_strdup (self->route);
  _cs_run_set_environment (self->run, &env);
  _cs_run_environment_clear (&env);
}

/* Until every queued item is done. */
static void
wait_for_items (CsJob *job)
{
  _cs_mutex_lock (&job->lock);
  while (job->pending > 0)
    _cs_cond_wait (&job->cond, &job->lock);
  _cs_mutex_unlock (&job->lock);
}

static gpointer
controller_thread (gpointer data)
{
  CsJob *job = data;
  CsTotals totals;
  CsStopReason reason;

  _cs_count_ahead_start (job);
  _cs_scanner_run (job);
  _cs_count_ahead_stop (job);
  _cs_job_size_up_end (job);
  atomic_store (&job->scanning, 0);

  wait_for_items (job);
  /* A mirror deletes its extras only once everything is copied; then the
   * entries that replace extras of another type are copied in their place. */
  if (job->settings.operation == CS_OPERATION_MIRROR)
    {
      _cs_mirror_finish (job);
      _cs_scanner_run_replaced (job, _cs_mirror_take_replaced (job));
      wait_for_items (job);
    }
  /* After the replacements: a name among them links to its file's others. */
  _cs_links_clear (job);
  record_environment (job);

  {
    GThreadPool *pool;

    _cs_mutex_lock (&job->lock);
    pool = g_steal_pointer (&job->pool);
    _cs_mutex_unlock (&job->lock);
    g_thread_pool_free (pool, FALSE, TRUE);
  }
  /* The copy's big buffers are not kept for the flush and the summary. */
  free_big_buffers (job);
  /* A move's last sources go once their copies are flushed; after a cancel
   * too, since their copies are complete. */
  if (job->settings.operation == CS_OPERATION_MOVE)
    _cs_move_drain (job, TRUE);
  _cs_stage_teardown (job);
  _cs_metadata_report (job);
  note_no_flush (job);
  /* Nothing of this run is left to be taken for a live one's. */
  if (job->presence_fd >= 0)
    close (job->presence_fd);
  job->presence_fd = -1;

  if (job->settings.flush && !job->settings.dry_run && !_cs_job_stopping (job))
    {
      /* Seconds on a local disk (a copy that fits in memory is written back
       * only now), during which nothing else moves: said, not left to look
       * like a copy that hangs at its end. */
      atomic_store (&job->flushing, 1);
      _cs_job_post_sample (job, NULL);
      flush_destination (job);
      atomic_store (&job->flushing, 0);
    }
  _cs_manifest_finish (job);

  _cs_mutex_lock (&job->lock);
  job->finished = TRUE;
  g_cond_broadcast (&job->cond);
  g_cond_signal (&job->sampler_cond);
  _cs_mutex_unlock (&job->lock);
  if (job->sampler != NULL)
    g_thread_join (g_steal_pointer (&job->sampler));
  g_clear_pointer (&job->log, _cs_log_free);

  for (guint c = 0; c < CS_N_CLASSES; c++)
    for (guint k = 0; k < CS_N_KINDS; k++)
      totals.v[c][k] = atomic_load (&job->totals[c][k]);
  _cs_run_set_totals (job->run, &totals);
  {
    CsRemovals removals = {
      atomic_load (&job->moved_files), atomic_load (&job->moved_bytes),
      atomic_load (&job->moved_dirs), atomic_load (&job->kept_files),
      atomic_load (&job->deleted_files), atomic_load (&job->deleted_dirs),
      atomic_load (&job->deleted_bytes), atomic_load (&job->not_deleted),
    };

    _cs_run_set_removals (job->run, &removals);
  }
  {
    CsSkips skips = {
      atomic_load (&job->identical_files), atomic_load (&job->identical_bytes),
      atomic_load (&job->chosen_files), atomic_load (&job->chosen_bytes),
    };

    _cs_run_set_skips (job->run, &skips);
  }
  /* The clock stops with the copy, so what is read of it later (the window's
   * last progress) is the run's duration, and the two add up to the wall's. */
  {
    gint64 now = g_get_monotonic_time ();
    gint64 frozen = __atomic_load_n (&job->clock_frozen, __ATOMIC_ACQUIRE);

    if (frozen < 0)
      frozen = now - __atomic_load_n (&job->clock_origin, __ATOMIC_RELAXED);
    __atomic_store_n (&job->clock_frozen, frozen, __ATOMIC_RELEASE);
    _cs_run_set_duration (job->run, (double) frozen / G_USEC_PER_SEC);
    _cs_run_set_held (job->run, (double) (now - job->start_mono - frozen) / G_USEC_PER_SEC);
  }

  reason = atomic_load (&job->stop);
  if (reason == CS_STOP_NONE)
    remember_threads (job);
  if (reason == CS_STOP_FATAL)
    {
      if (!job->fatal_reported)
        _cs_run_add_error (job->run, job->destination, "copy", 0, job->fatal_message, 1);
      _cs_run_set_outcome (job->run, "failed", job->fatal_message);
      job->run_error = g_error_new_literal (CS_JOB_ERROR, CS_JOB_ERROR_DESTINATION, job->fatal_message);
    }
  else if (reason == CS_STOP_CANCEL)
    {
      _cs_run_set_outcome (job->run, "cancelled", NULL);
      job->run_error = g_error_new_literal (CS_JOB_ERROR, CS_JOB_ERROR_CANCELLED, "The copy was cancelled");
    }
  else
    _cs_run_set_outcome (job->run, "completed", NULL);

  _cs_mutex_lock (&job->notify_lock);
  job->done_pending = TRUE;
  schedule_locked (job);
  _cs_mutex_unlock (&job->notify_lock);

  return NULL;
}


static void
on_cancelled (GCancellable *cancellable,
              gpointer      user_data)
{
  cs_job_cancel (CS_JOB (user_data));
}

/* A path as the record keeps it: absolute and canonical, so the record says
 * where the files were wherever it is read (History, `copyscope-cli history`)
 * and not relative to the folder the copy was started from. Only the record's:
 * the copy itself goes by the names as they were given. */
static char *
record_path (const char *path)
{
  g_autofree char *absolute = NULL;

  /* A URL is no relative path: it was "<cwd>/smb:/…" in the record. */
  if (!_cs_io_is_path (path))
    return g_utf8_make_valid (path, -1);
  absolute = g_canonicalize_filename (path, NULL);
  return g_filename_display_name (absolute);
}

static void
record_start (CsJob *self)
{
  GPtrArray *sources = self->given_sources != NULL ? self->given_sources : self->sources;
  g_autoptr(GPtrArray) display = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *dst_display = record_path (self->given_destination != NULL ? self->given_destination
                                                                             : self->destination);

  for (guint i = 0; i < sources->len; i++)
    g_ptr_array_add (display, record_path (g_ptr_array_index (sources, i)));
  g_ptr_array_add (display, NULL);

  self->settings.threads = atomic_load (&self->threads);
  _cs_run_set_sources (self->run, (const char * const *) display->pdata);
  _cs_run_set_destination (self->run, dst_display);
  _cs_run_set_settings (self->run, &self->settings);
  _cs_run_set_started (self->run, g_get_real_time ());
}

/* @context: where the job's signals and its end are delivered. Nothing of a
 * job that runs is touched before the state check: a second call is refused
 * while the threads of the first read these fields. */
static gboolean
start (CsJob         *self,
       GMainContext  *context,
       GCancellable  *cancellable,
       GError       **error)
{
  guint64 tag = ((guint64) g_random_int () << 32) | g_random_int ();

  if (self->state != CS_JOB_STATE_READY)
    return set_error (error, CS_JOB_ERROR_INVALID, NULL, "A job runs only once");
  _cs_route_choose (self);
  if (!check (self, TRUE, error))
    {
      _cs_run_set_outcome (self->run, "failed", (*error)->message);
      return FALSE;
    }

  self->has_conflict_handler = g_signal_has_handler_pending (self, signals[SIGNAL_CONFLICT], 0, TRUE);
  self->context = g_main_context_ref (context);

  g_snprintf (self->job_tag, sizeof self->job_tag, "%016" G_GINT64_MODIFIER "x", tag);
  self->presence_fd = _cs_names_announce (self->job_tag);
  if (!_cs_manifest_open (self, error))
    {
      _cs_run_set_outcome (self->run, "failed", (*error)->message);
      return FALSE;
    }
  self->euid = geteuid ();
  self->egid = getegid ();
  self->max_pending = 4096;
  if (self->log_fd >= 0)
    self->log = _cs_log_new (self->log_fd);
  if (self->settings.operation == CS_OPERATION_MIRROR)
    self->deletions = _cs_deletions_new (self->settings.max_delete);
  plan_fd_budget (self);
  record_start (self);

#ifdef CS_TSAN
  /* GLib hands a finished pool's idle threads to the next pool through its own
   * queue, out of TSan's sight; here every pool starts threads of its own. */
  g_thread_pool_set_max_unused_threads (0);
#endif
  /* Exclusive: the job's own threads, not the process's shared ones that GTask and
   * GIO take theirs from, so a worker keeps nothing of another pool's and leaves
   * nothing for one. */
  self->pool = g_thread_pool_new (worker_func, self, (int) atomic_load (&self->threads), TRUE, NULL);
  __atomic_store_n (&self->state, CS_JOB_STATE_RUNNING, __ATOMIC_RELEASE);
  atomic_store (&self->scanning, 1);
  self->start_mono = g_get_monotonic_time ();
  self->clock_origin = self->start_mono;
  self->clock_frozen = -1;

  if (cancellable != NULL)
    {
      self->cancellable = g_object_ref (cancellable);
      self->cancelled_id = g_cancellable_connect (cancellable, G_CALLBACK (on_cancelled), self, NULL);
    }

  /* The threads hold a reference until finish_on_main() joins them. */
  g_object_ref (self);
  /* The baseline is taken before any worker can count a byte. */
  self->sampler_state = _cs_sampler_new (self);
  self->sampler = g_thread_new ("cs-sampler", sampler_thread, self);
  self->controller = g_thread_new ("cs-controller", controller_thread, self);

  return TRUE;
}

static void
finish_on_main (CsJob *self)
{
  if (self->controller != NULL)
    g_thread_join (g_steal_pointer (&self->controller));

  _cs_mutex_lock (&self->lock);
  __atomic_store_n (&self->state, CS_JOB_STATE_FINISHED, __ATOMIC_RELEASE);
  _cs_mutex_unlock (&self->lock);

  if (self->cancellable != NULL && self->cancelled_id != 0)
    {
      g_cancellable_disconnect (self->cancellable, self->cancelled_id);
      self->cancelled_id = 0;
    }

  if (self->task != NULL)
    {
      g_autoptr(GTask) task = g_steal_pointer (&self->task);

      if (self->run_error != NULL)
        g_task_return_error (task, g_error_copy (self->run_error));
      else
        g_task_return_boolean (task, TRUE);
    }

  g_object_unref (self);
}

gboolean
cs_job_run_sync (CsJob         *self,
                 GCancellable  *cancellable,
                 GError       **error)
{
  g_autoptr(GMainContext) context = g_main_context_new ();

  g_return_val_if_fail (CS_IS_JOB (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  g_main_context_push_thread_default (context);

  if (!start (self, context, cancellable, error))
    {
      g_main_context_pop_thread_default (context);
      return FALSE;
    }

  while (cs_job_get_state (self) != CS_JOB_STATE_FINISHED)
    g_main_context_iteration (context, TRUE);
  /* Anything posted after the last dispatch. */
  while (g_main_context_iteration (context, FALSE))
    ;
  g_main_context_pop_thread_default (context);

  if (self->run_error != NULL)
    {
      g_propagate_error (error, g_error_copy (self->run_error));
      return FALSE;
    }
  return TRUE;
}

void
cs_job_run_async (CsJob               *self,
                  GCancellable        *cancellable,
                  GAsyncReadyCallback  callback,
                  gpointer             user_data)
{
  g_autoptr(GMainContext) context = g_main_context_ref_thread_default ();
  g_autoptr(GTask) task = NULL;
  GError *error = NULL;

  g_return_if_fail (CS_IS_JOB (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, cs_job_run_async);
  /* A cancelled run answers CS_JOB_ERROR_CANCELLED once its record is
   * complete, not GIO's error the moment the cancellable fires. */
  g_task_set_check_cancellable (task, FALSE);

  if (!start (self, context, cancellable, &error))
    {
      /* This call's own task: a job asked to run twice still reports its
       * first run to the first caller. GTask answers from the main context,
       * never from inside this call. */
      g_task_return_error (task, error);
      return;
    }
  self->task = g_steal_pointer (&task);
}

gboolean
cs_job_run_finish (CsJob         *self,
                   GAsyncResult  *result,
                   GError       **error)
{
  g_return_val_if_fail (CS_IS_JOB (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == cs_job_run_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
