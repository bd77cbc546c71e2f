/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-move"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cs-move-private.h"
#include "cs-names-private.h"

/* A source file whose copy is published and waits for the flush. */
typedef struct {
  CsDir       *dir;           /* a reference: its descriptors stay open until then */
  char        *name;          /* in the source folder */
  struct stat  st;            /* the source as it was copied */
  gboolean     folder;        /* an emptied source folder, removed if still empty */
} Removal;

static void
removal_free (gpointer data)
{
  Removal *r = data;

  _cs_dir_unref (r->dir);
  g_free (r->name);
  g_free (r);
}

/* Whether @now is still the file @then was copied from. Removing another of
 * its names (as this move does with hard links) changes its ctime, so a
 * ctime that moved is only accepted along with a link count that fell. */
static gboolean
same_file (const struct stat *now,
           const struct stat *then)
{
  return now->st_dev == then->st_dev && now->st_ino == then->st_ino && now->st_size == then->st_size
         && (now->st_mode & S_IFMT) == (then->st_mode & S_IFMT)
         && now->st_mtim.tv_sec == then->st_mtim.tv_sec && now->st_mtim.tv_nsec == then->st_mtim.tv_nsec
         && ((now->st_ctim.tv_sec == then->st_ctim.tv_sec && now->st_ctim.tv_nsec == then->st_ctim.tv_nsec)
             || now->st_nlink < then->st_nlink);
}

void
_cs_move_probe_dir (CsJob *job,
                    CsDir *dir)
{
  struct stat src, dst;

  atomic_store (&dir->same_fs, dir->src_fd >= 0 && dir->dst_fd >= 0
                && _cs_io_fstat (&job->counters, dir->src_fd, &src) == 0
                && _cs_io_fstat (&job->counters, dir->dst_fd, &dst) == 0
                && src.st_dev == dst.st_dev);
}

static void
log_moved (CsJob      *job,
           CsDir      *dir,
           const char *name,
           gboolean    folder,
           guint64     size,
           const char *why)
{
  g_autofree char *path = NULL;

  if (job->lists.log == NULL)
    return;
  path = _cs_dir_dup_path (dir, name, FALSE);
  _cs_job_log_path (job, path, folder, "moved", size, why);
}

gboolean
_cs_move_rename_whole (CsJob             *job,
                       CsDir             *parent,
                       const char        *name,
                       const char        *dst_name,
                       const struct stat *st)
{
  gboolean folder = S_ISDIR (st->st_mode);
  guint64 size = S_ISREG (st->st_mode) ? (guint64) st->st_size : 0;

  if (!atomic_load (&parent->same_fs) || parent->dst_fd < 0)
    return FALSE;
  if (!_cs_limiter_take (&job->limits.file_limit, 1))
    return TRUE;    /* stopping: nothing more happens to it */

  if (_cs_io_renameat2 (&job->counters, parent->src_fd, name, parent->dst_fd, dst_name,
                        RENAME_NOREPLACE) != 0)
    {
      /* A bind mount of the same filesystem answers EXDEV: copy from here. */
      if (errno == EXDEV)
        atomic_store (&parent->same_fs, 0);
      return FALSE;
    }

  if (folder)
    {
      atomic_fetch_add (&job->tally.dirs_found, 1);
      _cs_job_add_dir_total (job, CS_CLASS_TOTAL);
      _cs_job_add_dir_total (job, CS_CLASS_COPIED);
      atomic_fetch_add (&job->tally.moved_dirs, 1);
    }
  else
    {
      atomic_fetch_add (&job->tally.files_found, 1);
      atomic_fetch_add (&job->tally.bytes_found, size);
      _cs_job_add_total (job, CS_CLASS_TOTAL, 1, size);
      _cs_job_count_done (job, CS_CLASS_COPIED, size);
      atomic_fetch_add (&job->tally.moved_files, 1);
      atomic_fetch_add (&job->tally.moved_bytes, size);
    }
  log_moved (job, parent, name, folder, size, NULL);
  return TRUE;
}

/* Whether @a and @b (files or links) hold the same bytes; FALSE on any error. */
static gboolean
same_contents (CsJob    *job,
               CsWorker *worker,
               CsItem   *item,
               const char *final)
{
  gsize half = CS_BUFFER_SIZE / 2;
  guint8 *a = worker->buffer;
  guint8 *b = worker->buffer + half;
  gboolean same = TRUE;
  guint64 pos = 0;
  int src_fd, dst_fd;
  struct stat dst;

  /* FIFOs and devices are never opened (cs-scanner.c): their kind and
   * numbers are all they hold. */
  if (!S_ISREG (item->st.st_mode) && !S_ISLNK (item->st.st_mode))
    return _cs_io_fstatat (&job->counters, item->dir->dst_fd, final, &dst, AT_SYMLINK_NOFOLLOW) == 0
           && (dst.st_mode & S_IFMT) == (item->st.st_mode & S_IFMT) && dst.st_rdev == item->st.st_rdev;

  if (S_ISLNK (item->st.st_mode))
    {
      ssize_t la = _cs_io_readlinkat (&job->counters, item->dir->src_fd, item->name, (char *) a, half);
      ssize_t lb = _cs_io_readlinkat (&job->counters, item->dir->dst_fd, final, (char *) b, half);

      return la >= 0 && la == lb && (gsize) la < half && memcmp (a, b, (gsize) la) == 0;
    }

  src_fd = _cs_io_openat (&job->counters, item->dir->src_fd, item->name, O_RDONLY | O_NOFOLLOW, 0);
  if (src_fd < 0)
    return FALSE;
  dst_fd = _cs_io_openat (&job->counters, item->dir->dst_fd, final, O_RDONLY | O_NOFOLLOW, 0);
  if (dst_fd < 0 || _cs_io_fstat (&job->counters, dst_fd, &dst) != 0 || dst.st_size != item->st.st_size)
    same = FALSE;
  while (same && pos < (guint64) item->st.st_size)
    {
      ssize_t na = _cs_io_pread (&job->counters, src_fd, a, half, (off_t) pos);
      ssize_t nb = na > 0 ? _cs_io_pread (&job->counters, dst_fd, b, (size_t) na, (off_t) pos) : -1;

      if (na <= 0 || nb != na || memcmp (a, b, (gsize) na) != 0)
        same = FALSE;
      pos += (guint64) MAX (na, 0);
    }
  if (dst_fd >= 0)
    _cs_io_close (&job->counters, dst_fd);
  _cs_io_close (&job->counters, src_fd);
  return same;
}

/* The file at the destination has the source's size and time: the source
 * goes once it is proven to hold the same bytes. */
static void
move_identical (CsJob      *job,
                CsWorker   *worker,
                CsItem     *item,
                const char *final,
                guint64     size)
{
  _cs_job_add_total (job, CS_CLASS_SKIPPED, 1, size);
  _cs_job_add_skip (job, TRUE, size);
  if (same_contents (job, worker, item, final))
    {
      atomic_fetch_add_explicit (&job->counters.files_done, 1, memory_order_relaxed);
      atomic_fetch_add_explicit (&job->counters.bytes_done, size, memory_order_relaxed);
      _cs_move_copied (job, item);
      return;
    }
  _cs_job_report (job, item->dir, final, "compare", 0,
                  "Left in the source: the file at the destination has the same size and time "
                  "but different contents", 1);
  _cs_job_log (job, item->dir, item->name, "kept", size,
               "the file at the destination has the same size and time but different contents");
  atomic_fetch_add (&job->tally.kept_files, 1);
  atomic_fetch_add_explicit (&job->counters.files_done, 1, memory_order_relaxed);
  atomic_fetch_add_explicit (&job->counters.bytes_done, size, memory_order_relaxed);
}

/* One rename from the source folder to @target; 0 or the errno. */
static int
rename_to (CsJob      *job,
           CsItem     *item,
           const char *target,
           guint       flags)
{
  return _cs_io_renameat2 (&job->counters, item->dir->src_fd, item->name, item->dir->dst_fd, target,
                           flags) == 0 ? 0 : errno;
}

gboolean
_cs_move_item (CsJob    *job,
               CsWorker *worker,
               CsItem   *item,
               CsAction  action)
{
  const char *final = item->dst_name != NULL ? item->dst_name : item->name;
  guint64 size = item->kind == CS_ITEM_SYMLINK ? 0 : (guint64) item->st.st_size;
  int code;

  switch (action)
    {
    case CS_ACTION_SKIP:
      move_identical (job, worker, item, final, size);
      return TRUE;
    case CS_ACTION_SKIP_NEWER:
    case CS_ACTION_SKIP_KEPT:
    case CS_ACTION_FAIL:
      _cs_job_account (job, item->dir, item->name, final, action, size);
      return TRUE;
    case CS_ACTION_COPY:
    case CS_ACTION_REPLACE:
    case CS_ACTION_KEEP_BOTH:
    default:
      break;
    }

  if (!atomic_load (&item->dir->same_fs))
    return FALSE;
  if (!_cs_limiter_take (&job->limits.file_limit, 1))
    return TRUE;

  /* rename () replaces atomically: the old file stays whole until this instant. */
  if (action == CS_ACTION_REPLACE)
    code = rename_to (job, item, final, 0);
  else if (action == CS_ACTION_COPY)
    code = rename_to (job, item, final, RENAME_NOREPLACE);
  else
    {
      code = EEXIST;
      for (guint n = 2; n < CS_KEEP_BOTH_MAX && code == EEXIST; n++)
        {
          g_autofree char *candidate = _cs_name_numbered (final, n);

          code = rename_to (job, item, candidate, RENAME_NOREPLACE);
        }
    }

  if (code == EXDEV || (code != 0 && _cs_io_is_unsupported (code)))
    {
      /* A bind mount, or no RENAME_NOREPLACE here: this folder is copied. */
      atomic_store (&item->dir->same_fs, 0);
      return FALSE;
    }
  if (code != 0)
    {
      _cs_job_report_item (job, item->dir, item->name, final, size, FALSE, "rename", code,
                           code == EEXIST ? "Another program created this file during the move; "
                                            "it was left untouched, and the source kept"
                                          : NULL, 1);
      _cs_job_count_done (job, CS_CLASS_FAILED, size);
      atomic_fetch_add (&job->tally.kept_files, 1);
      return TRUE;
    }

  _cs_job_count_done (job, CS_CLASS_COPIED, size);
  atomic_fetch_add (&job->tally.moved_files, 1);
  atomic_fetch_add (&job->tally.moved_bytes, size);
  log_moved (job, item->dir, item->name, FALSE, size, NULL);
  return TRUE;
}

/* Only an empty folder goes: whatever was kept keeps it. */
static void
remove_folder (CsJob      *job,
               CsDir      *parent,
               const char *name)
{
  if (_cs_io_unlinkat (&job->counters, parent->src_fd, name, AT_REMOVEDIR) != 0)
    {
      if (errno != ENOTEMPTY && errno != EEXIST && errno != ENOENT)
        _cs_job_report_item (job, parent, name, NULL, 0, TRUE, "remove source folder", errno, NULL, 1);
      return;
    }
  atomic_fetch_add (&job->tally.moved_dirs, 1);
  log_moved (job, parent, name, TRUE, 0, NULL);
}

/* Flushes each destination filesystem of @batch once, then removes each
 * source that is still the file that was copied. */
static void
remove_batch (CsJob     *job,
              GPtrArray *batch)
{
  g_autoptr(GArray) devs = g_array_new (FALSE, FALSE, sizeof (dev_t));
  g_autoptr(GArray) flushed = g_array_new (FALSE, FALSE, sizeof (int));

  for (guint i = 0; i < batch->len; i++)
    {
      Removal *r = g_ptr_array_index (batch, i);
      guint64 size = S_ISREG (r->st.st_mode) ? (guint64) r->st.st_size : 0;
      struct stat dst, now;
      int code = 0;
      guint d;

      if (_cs_io_fstat (&job->counters, r->dir->dst_fd, &dst) != 0)
        code = errno;
      for (d = 0; code == 0 && d < devs->len; d++)
        if (g_array_index (devs, dev_t, d) == dst.st_dev)
          break;
      if (code == 0 && d == devs->len)
        {
          int result = _cs_io_syncfs (&job->counters, r->dir->dst_fd) == 0 ? 0 : errno;

          g_array_append_val (devs, dst.st_dev);
          g_array_append_val (flushed, result);
        }
      if (code == 0)
        code = g_array_index (flushed, int, d);

      if (code != 0)
        {
          g_autofree char *message =
            g_strdup_printf ("Left in the source: the destination could not be flushed to disk (%s)",
                             g_strerror (code));

          _cs_job_report_item (job, r->dir, r->name, NULL, size, r->folder, "flush", code, message, 1);
          if (!r->folder)
            atomic_fetch_add (&job->tally.kept_files, 1);
          continue;
        }
      if (r->folder)
        {
          remove_folder (job, r->dir, r->name);
          continue;
        }
      if (_cs_io_fstatat (&job->counters, r->dir->src_fd, r->name, &now, AT_SYMLINK_NOFOLLOW) != 0)
        code = errno == ENOENT ? 0 : errno;     /* gone already: nothing to remove */
      else if (!same_file (&now, &r->st))
        {
          _cs_job_report (job, r->dir, r->name, "remove source", 0,
                          "Left in the source: it changed after it was copied", 1);
          _cs_job_log (job, r->dir, r->name, "kept", size, "it changed after it was copied");
          atomic_fetch_add (&job->tally.kept_files, 1);
          continue;
        }
      else if (_cs_io_unlinkat (&job->counters, r->dir->src_fd, r->name, 0) != 0)
        code = errno;

      if (code != 0)
        {
          _cs_job_report_item (job, r->dir, r->name, NULL, size, FALSE, "remove source", code,
                               "The copy is complete; the source could not be removed", 1);
          atomic_fetch_add (&job->tally.kept_files, 1);
          continue;
        }
      atomic_fetch_add (&job->tally.moved_files, 1);
      atomic_fetch_add (&job->tally.moved_bytes, size);
      log_moved (job, r->dir, r->name, FALSE, size, NULL);
    }
}

/* move_lock held: takes the batch when it is due and nobody removes one. */
static GPtrArray *
take_batch_locked (CsJob    *job,
                   gboolean  all)
{
  gboolean due;

  if (job->move.removals == NULL || job->move.removals->len == 0 || job->move.draining)
    return NULL;
  due = all || job->move.removals->len >= CS_MOVE_BATCH
        || g_get_monotonic_time () - job->move.removals_since >= CS_MOVE_BATCH_US
        || _cs_job_dir_fds_short (job, 8);
  if (!due)
    return NULL;
  job->move.draining = TRUE;
  return g_steal_pointer (&job->move.removals);
}

static void
drain_batch (CsJob     *job,
             GPtrArray *batch)
{
  remove_batch (job, batch);
  /* Dropping the folders may finish them: their source folders go if empty. */
  g_ptr_array_unref (batch);
  _cs_mutex_lock (&job->move.move_lock);
  job->move.draining = FALSE;
  _cs_mutex_unlock (&job->move.move_lock);
}

static void
remove_later (CsJob             *job,
              CsDir             *dir,
              const char        *name,
              const struct stat *st,
              gboolean           folder)
{
  Removal *r = g_new0 (Removal, 1);
  GPtrArray *batch;

  r->dir = _cs_dir_ref (dir);
  r->name = g_strdup (name);
  r->st = *st;
  r->folder = folder;

  _cs_mutex_lock (&job->move.move_lock);
  if (job->move.removals == NULL)
    {
      job->move.removals = g_ptr_array_new_with_free_func (removal_free);
      job->move.removals_since = g_get_monotonic_time ();
    }
  g_ptr_array_add (job->move.removals, r);
  batch = take_batch_locked (job, FALSE);
  _cs_mutex_unlock (&job->move.move_lock);

  if (batch != NULL)
    drain_batch (job, batch);
}

void
_cs_move_copied (CsJob  *job,
                 CsItem *item)
{
  remove_later (job, item->dir, item->name, &item->st, FALSE);
}

void
_cs_move_drain (CsJob    *job,
                gboolean  all)
{
  GPtrArray *batch;

  /* Removing a batch finishes folders, whose removals make another. */
  do
    {
      _cs_mutex_lock (&job->move.move_lock);
      batch = take_batch_locked (job, all);
      _cs_mutex_unlock (&job->move.move_lock);
      if (batch != NULL)
        drain_batch (job, batch);
    }
  while (batch != NULL && all);
}

void
_cs_move_finish_dir (CsJob *job,
                     CsDir *dir)
{
  if (dir->parent == NULL || dir->parent->src_fd < 0 || dir->src_fd < 0)
    return;
  /* No copy of it, or one without its mode and times (a file stood in its
   * place, the destination was full): the source folder stays, even empty. */
  if (!dir->dst_done)
    return;
  /* A folder whose copy was made in another filesystem waits for its flush
   * like the files; one whose contents were renamed has nothing to wait for. */
  if (atomic_load (&dir->same_fs))
    remove_folder (job, dir->parent, dir->name);
  else
    remove_later (job, dir->parent, dir->name, &dir->st, TRUE);
}
