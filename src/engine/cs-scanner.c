/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-scanner"


#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "cs-copy-private.h"
#include "cs-dest-fs-private.h"
#include "cs-dir-private.h"
#include "cs-errno-private.h"
#include "cs-job-private.h"
#include "cs-links-private.h"
#include "cs-mirror-private.h"
#include "cs-move-private.h"
#include "cs-names-private.h"
#include "cs-resume-private.h"
#include "cs-scanner-private.h"
#include "cs-stage-private.h"

/*
 * The scanner walks the sources depth first with directory descriptors and
 * *at() calls only, so paths of any length work and nothing is resolved twice.
 * It creates destination folders as it goes and hands files to the pool through
 * the job's bounded queue: it blocks when the queue is full, so memory does not
 * grow with the number of files.
 */

#define DENTS_BUFFER_SIZE      (32 * 1024)
#define DENTS_BUFFER_SIZE_DEEP (4 * 1024)

static void
plan (CsJob      *job,
      const char *action,
      CsDir      *dir,
      const char *name,
      const char *dst_name)
{
  g_autofree char *src = NULL;
  g_autofree char *dst = NULL;

  if (job->plan_func == NULL)
    return;
  src = _cs_dir_dup_path (dir, name, FALSE);
  dst = _cs_dir_dup_path (dir, dst_name, TRUE);
  job->plan_func (action, src, dst, job->plan_data);
}

/* A leftover of ours in @dir's destination folder, found by its name: removed
 * when the run that left it is gone and it is ours to remove. A claim's
 * temporary first says which final name it claimed (see publish_claimed). */
static void
remove_leftover (CsJob      *job,
                 CsDir      *dir,
                 const char *name)
{
  struct stat st;
  guint64 hash;

  if (job->settings.dry_run || _cs_name_run_alive (name))
    return;
  if (_cs_name_is_our_stage (name))
    {
      _cs_stage_remove_leftover (job, dir->dst_fd, name);
      return;
    }
  if (_cs_io_fstatat (&job->counters, dir->dst_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0
      || S_ISDIR (st.st_mode) || st.st_uid != job->euid)
    return;
  if (_cs_name_claim_hash (name, &hash))
    _cs_dir_add_claim (dir, hash, &st.st_ctim);
  _cs_io_unlinkat (&job->counters, dir->dst_fd, name, 0);
}

/* A name as the destination folder's filesystem compares names: folded
 * where it ignores case. */
static char *
dest_key (CsDir      *dir,
          const char *name)
{
  return dir->fs != NULL && dir->fs->case_insensitive ? _cs_dest_fs_fold (name) : g_strdup (name);
}

/*
 * Lists an existing destination folder before we write into it: removes the
 * temporaries (files, and the symlinks written for links) and staging folders
 * that earlier runs of ours left after a crash (the pattern is ours, so is the
 * owner, and the run is gone), and, when @names is given, remembers the other
 * names so what is left once the source folder is read counts as Extras.
 */
static void
prepare_existing_dir (CsJob      *job,
                      CsDir      *dir,
                      GHashTable *names)
{
  g_autofree guint8 *buf = g_malloc (DENTS_BUFFER_SIZE);
  int fd;
  ssize_t n;

  /* A separate descriptor: the directory offset is shared by duplicates. */
  fd = _cs_io_openat (&job->counters, dir->dst_fd, ".", O_RDONLY | O_DIRECTORY, 0);
  if (fd < 0)
    return;

  while ((n = _cs_io_getdents (&job->counters, fd, buf, DENTS_BUFFER_SIZE)) > 0)
    {
      for (ssize_t off = 0; off < n;)
        {
          struct linux_dirent64 *d = (struct linux_dirent64 *) (buf + off);
          const char *name = d->d_name;

          off += d->d_reclen;
          if (strcmp (name, ".") == 0 || strcmp (name, "..") == 0)
            continue;
          if (_cs_name_is_our_temp (name) || _cs_name_is_our_stage (name))
            remove_leftover (job, dir, name);
          else if (_cs_name_is_resume (name, NULL))
            {
              if (job->settings.dry_run)
                continue;
              /* Kept for the file it belongs to; swept once the folder is read. */
              if (dir->resumes == NULL)
                dir->resumes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
              g_hash_table_add (dir->resumes, g_strdup (name));
            }
          else if (names != NULL)
            g_hash_table_insert (names, dest_key (dir, name), g_strdup (name));
        }
    }
  _cs_io_close (&job->counters, fd);
}

static void
count_extras (CsJob      *job,
              CsDir      *dir,
              GHashTable *names)
{
  GHashTableIter iter;
  gpointer listed;

  g_hash_table_iter_init (&iter, names);
  while (g_hash_table_iter_next (&iter, NULL, &listed))
    {
      struct stat st;

      if (_cs_io_fstatat (&job->counters, dir->dst_fd, listed, &st, AT_SYMLINK_NOFOLLOW) != 0)
        continue;
      if (S_ISDIR (st.st_mode))
        _cs_job_add_dir_total (job, CS_CLASS_EXTRAS);
      else
        _cs_job_add_total (job, CS_CLASS_EXTRAS, 1, (guint64) st.st_size);
    }
}

static void walk_dir (CsJob *job, CsDir *dir, guint depth);

/* A batch goes out at this many files or bytes, whichever comes first. */
#define BATCH_FILES 16
#define BATCH_BYTES (G_GUINT64_CONSTANT (1) << 20)

static void
flush_batch (CsJob *job)
{
  CsItem *batch = g_steal_pointer (&job->batch);

  if (batch != NULL)
    batch->n_files = job->batch_n;
  job->batch_n = 0;
  job->batch_bytes = 0;
  if (batch != NULL)
    _cs_job_push (job, batch);
}

/*
 * Small files travel in batches while the pool has plenty queued: a queue trip
 * per file costs futex wake-ups that dominate when files take microseconds. When
 * the queue runs low (the start, small trees) each file goes alone, so no worker
 * idles while another holds a batch.
 */
static void
queue_item (CsJob  *job,
            CsItem *item)
{
  guint threads = atomic_load (&job->threads);
  guint pending = __atomic_load_n (&job->pending, __ATOMIC_RELAXED);
  guint64 size = item->kind == CS_ITEM_FILE ? (guint64) item->st.st_size : 0;

  atomic_fetch_add_explicit (&item->dir->n_files, 1, memory_order_relaxed);
  if (size >= BATCH_BYTES || pending < 2 * threads)
    {
      flush_batch (job);
      _cs_job_push (job, item);
      return;
    }

  if (job->batch == NULL)
    {
      job->batch = g_new0 (CsItem, 1);
      job->batch->kind = CS_ITEM_BATCH;
    }
  item->next = job->batch->next;
  job->batch->next = item;
  job->batch_n++;
  job->batch_bytes += size;
  if (job->batch_n >= BATCH_FILES || job->batch_bytes >= BATCH_BYTES)
    flush_batch (job);
}

/* Creates (or opens) the destination folder for @name and walks it. */
static void
enter_dir (CsJob             *job,
           CsDir             *parent,
           const char        *name,
           const char        *dst_name,
           const struct stat *st,
           guint              depth)
{
  CsDir *dir;
  int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;

  atomic_fetch_add (&job->dirs_found, 1);
  _cs_job_add_dir_total (job, CS_CLASS_TOTAL);

  dir = _cs_dir_new (job, parent, name, dst_name);
  dir->st = *st;

  dir->src_fd = _cs_io_openat (&job->counters, parent->src_fd, name, flags, 0);
  if (dir->src_fd < 0)
    {
      _cs_job_report_item (job, parent, name, NULL, 0, TRUE, "open folder", errno, NULL, 1);
      _cs_job_add_dir_total (job, CS_CLASS_FAILED);
      _cs_dir_unref (dir);
      return;
    }
  _cs_dir_note_source (job, dir, parent);

  if (job->settings.dry_run)
    {
      if (parent->dst_fd >= 0)
        dir->dst_fd = _cs_io_openat (&job->counters, parent->dst_fd, dir->dst_name, flags, 0);
      dir->dst_new = dir->dst_fd < 0;
      plan (job, dir->dst_new ? "mkdir" : "enter", parent, name, dir->dst_name);
      _cs_job_add_dir_total (job, dir->dst_new ? CS_CLASS_COPIED : CS_CLASS_SKIPPED);
    }
  else if (_cs_io_mkdirat (&job->counters, parent->dst_fd, dir->dst_name, 0700) == 0)
    {
      dir->dst_new = TRUE;
      _cs_job_add_dir_total (job, CS_CLASS_COPIED);
    }
  else if (errno == EEXIST)
    {
      dir->dst_new = FALSE;
      _cs_job_add_dir_total (job, CS_CLASS_SKIPPED);
    }
  else
    {
      int saved = errno;

      if (_cs_is_fatal_errno (saved))
        _cs_job_fatal (job, _cs_fatal_message (saved));
      else if (saved == ENOENT && _cs_dir_dst_removed (job, parent))
        _cs_job_fatal (job, CS_DEST_REMOVED_MESSAGE);
      else
        {
          _cs_job_report_item (job, parent, name, dir->dst_name, 0, TRUE, "create folder", saved, NULL, 1);
          _cs_job_add_dir_total (job, CS_CLASS_FAILED);
        }
      _cs_dir_unref (dir);
      return;
    }

  if (!job->settings.dry_run)
    {
      /* O_NOFOLLOW: a symlink planted where a folder should be is never written through. */
      dir->dst_fd = _cs_io_openat (&job->counters, parent->dst_fd, dir->dst_name, flags, 0);
      if (dir->dst_fd < 0)
        {
          int saved = errno;

          /* Made a moment ago: gone with the folder around it, or in a copy
           * that stopped meanwhile. */
          if (saved == ENOENT && _cs_dir_dst_removed (job, parent))
            _cs_job_fatal (job, CS_DEST_REMOVED_MESSAGE);
          else if (!_cs_job_stopping (job))
            {
              _cs_job_report_item (job, parent, name, dir->dst_name, 0, TRUE, "open folder", saved,
                                   saved == ELOOP || saved == ENOTDIR
                                   ? "The destination exists and is not a folder; nothing was written through it"
                                   : NULL, 1);
              _cs_job_add_dir_total (job, CS_CLASS_FAILED);
            }
          _cs_dir_unref (dir);
          return;
        }
    }
  dir->fs = _cs_dest_fs_for (job, dir->dst_fd, parent->fs);

  if (job->settings.operation == CS_OPERATION_MOVE)
    _cs_move_probe_dir (job, dir);
  if (job->settings.operation == CS_OPERATION_MIRROR && parent->parent == NULL)
    _cs_mirror_add_root (job, dir);
  walk_dir (job, dir, depth + 1);
  _cs_dir_unref (dir);
}

/* Something found that could not even be looked at or opened: failed, and
 * found, so the classes still add up to the total; a folder as a folder. */
static void
count_unreadable (CsJob    *job,
                  gboolean  folder)
{
  if (folder)
    {
      _cs_job_add_dir_total (job, CS_CLASS_TOTAL);
      _cs_job_add_dir_total (job, CS_CLASS_FAILED);
      return;
    }
  atomic_fetch_add (&job->files_found, 1);
  _cs_job_add_total (job, CS_CLASS_TOTAL, 1, 0);
  _cs_job_add_total (job, CS_CLASS_FAILED, 1, 0);
}

/* @d_type: what the folder listing said @name is (DT_UNKNOWN if it did not). */
/* What the scanner keeps while it reads one source folder. */
typedef struct {
  GHashTable *existing;     /* the destination folder's names not met yet, for Extras */
  GHashTable *taken;        /* on a case-insensitive destination: folded name → source name */
} FolderScan;

/* Counts an entry that is not copied because the destination cannot hold
 * it, and says why. */
static void
not_held (CsJob             *job,
          CsDir             *dir,
          const char        *name,
          const char        *dst_name,
          const struct stat *st,
          const char        *message)
{
  gboolean folder = S_ISDIR (st->st_mode);
  guint64 size = S_ISREG (st->st_mode) ? (guint64) st->st_size : 0;

  if (folder)
    {
      atomic_fetch_add (&job->dirs_found, 1);
      _cs_job_add_dir_total (job, CS_CLASS_TOTAL);
      _cs_job_add_dir_total (job, CS_CLASS_FAILED);
    }
  else
    {
      atomic_fetch_add (&job->files_found, 1);
      atomic_fetch_add (&job->bytes_found, size);
      _cs_job_add_total (job, CS_CLASS_TOTAL, 1, size);
      _cs_job_add_total (job, CS_CLASS_FAILED, 1, size);
      atomic_fetch_add (&job->counters.files_done, 1);
      atomic_fetch_add (&job->counters.bytes_done, size);
    }
  _cs_job_report_item (job, dir, name, dst_name, size, folder, "name", 0, message, 1);
}

/*
 * Whether the destination can hold @name as it is, decided before anything of
 * it is written: a name with a character the destination refuses, and on a
 * destination that ignores case a second name that folds to one already met
 * in this folder, are reported once each and not copied. Of two such names
 * the one the destination already holds (@listed: the name it lists for
 * this one, or NULL) keeps its place, else the first met; the other never
 * overwrites it, run after run.
 */
static gboolean
holdable (CsJob             *job,
          CsDir             *dir,
          const char        *name,
          const char        *dst_name,
          const struct stat *st,
          FolderScan        *scan,
          const char        *listed)
{
  const char *final = dst_name != NULL ? dst_name : name;
  const char *refused;

  if (dir->fs == NULL)
    return TRUE;
  refused = _cs_dest_fs_refused_in (job, dir->fs, dir->dst_fd, final);
  if (refused != NULL)
    {
      g_autofree char *message = g_strdup_printf ("Not copied: the destination cannot hold %s",
                                                  refused);

      not_held (job, dir, name, dst_name, st, message);
      return FALSE;
    }
  if (scan != NULL && scan->taken != NULL)
    {
      g_autofree char *key = _cs_dest_fs_fold (final);
      const char *first = g_hash_table_lookup (scan->taken, key);
      struct stat other;

      /* The destination holds the pair's other name, which the source has
       * too: that one stays, whichever the folder lists first. */
      if (first == NULL && listed != NULL && dst_name == NULL && strcmp (listed, final) != 0
          && _cs_io_fstatat (&job->counters, dir->src_fd, listed, &other, AT_SYMLINK_NOFOLLOW) == 0)
        {
          g_hash_table_insert (scan->taken, g_strdup (key), g_strdup (listed));
          first = listed;
        }
      if (first != NULL && strcmp (first, final) != 0)
        {
          g_autofree char *a = g_filename_display_name (final);
          g_autofree char *b = g_filename_display_name (first);
          g_autofree char *message =
            g_strdup_printf ("Not copied: “%s” and “%s” differ only in case, which the destination "
                             "does not tell apart; it keeps “%s”", a, b, b);

          not_held (job, dir, name, dst_name, st, message);
          return FALSE;
        }
      g_hash_table_insert (scan->taken, g_steal_pointer (&key), g_strdup (final));
    }
  return TRUE;
}

static void
handle_entry (CsJob         *job,
              CsDir         *dir,
              const char    *name,
              const char    *dst_name,
              unsigned char  d_type,
              FolderScan    *scan,
              guint          depth)
{
  g_autofree char *listed = NULL;
  struct stat st;

  if (_cs_job_is_excluded (job, name))
    return;
  if (scan != NULL && scan->existing != NULL)
    {
      g_autofree char *key = dest_key (dir, dst_name != NULL ? dst_name : name);

      listed = g_strdup (g_hash_table_lookup (scan->existing, key));
      g_hash_table_remove (scan->existing, key);
    }

  if (_cs_io_fstatat (&job->counters, dir->src_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    {
      _cs_job_report_item (job, dir, name, NULL, 0, d_type == DT_DIR, "stat", errno, NULL, 1);
      count_unreadable (job, d_type == DT_DIR);
      return;
    }
  if (!holdable (job, dir, name, dst_name, &st, scan, listed))
    return;

  if (S_ISDIR (st.st_mode))
    {
      /* A move takes a whole folder by one rename when its name is free;
       * not with a manifest, whose workers must meet every file. */
      if (job->settings.operation == CS_OPERATION_MOVE && !job->settings.dry_run && job->manifest == NULL
          && _cs_move_rename_whole (job, dir, name, dst_name != NULL ? dst_name : name, &st))
        return;
      enter_dir (job, dir, name, dst_name != NULL ? dst_name : name, &st, depth);
      return;
    }

  /* FIFOs and devices are recreated, never opened (a read could block for ever
   * or consume someone's data), as cp -a does. */
  if (S_ISREG (st.st_mode) || S_ISLNK (st.st_mode) || S_ISFIFO (st.st_mode)
      || S_ISCHR (st.st_mode) || S_ISBLK (st.st_mode))
    {
      guint64 size = S_ISREG (st.st_mode) ? (guint64) st.st_size : 0;
      const char *final = dst_name != NULL ? dst_name : name;
      CsLink *link = NULL;
      gboolean first = TRUE;

      atomic_fetch_add (&job->files_found, 1);
      atomic_fetch_add (&job->bytes_found, size);
      _cs_job_add_total (job, CS_CLASS_TOTAL, 1, size);

      if (S_ISREG (st.st_mode) && st.st_nlink > 1)
        link = _cs_links_meet (job, dir, final, &st, &first);
      if (dir->resumes != NULL && _cs_resume_wanted (job, &st))
        {
          guint64 hash = _cs_name_hash (final);

          if (dir->resumes_wanted == NULL)
            dir->resumes_wanted = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
          g_hash_table_add (dir->resumes_wanted, g_memdup2 (&hash, sizeof hash));
        }

      if (job->settings.dry_run)
        {
          CsAction action = dir->dst_fd >= 0
            ? _cs_copy_decide (job, dir, name, final, &st)
            : CS_ACTION_COPY;
          static const char *names[] = { "copy", "replace", "keep both", "skip", "skip (destination is newer)",
                                         "skip (kept)", "fail" };
          static const char *move_names[] = { "move", "move (replace)", "move (keep both)",
                                              "remove source (identical)", "keep (destination is newer)",
                                              "keep", "fail" };

          _cs_link_unref (link);
          plan (job, job->settings.operation == CS_OPERATION_MOVE ? move_names[action]
                     : action <= CS_ACTION_REPLACE && !first ? "hard link" : names[action],
                dir, name, final);
          if (action <= CS_ACTION_KEEP_BOTH)
            {
              _cs_job_add_total (job, CS_CLASS_COPIED, 1, size);
              atomic_fetch_add (&job->counters.files_done, 1);
              atomic_fetch_add (&job->counters.bytes_done, size);
            }
          else
            _cs_job_account (job, dir, name, dst_name != NULL ? dst_name : name, action, size);
          return;
        }

      if (S_ISREG (st.st_mode))
        _cs_job_size_up (job, size);

      /* A later name of a file is linked, not copied, whatever its size. */
      if (S_ISREG (st.st_mode) && size >= CS_BIG_FILE_MIN && job->split_big && first)
        {
          /* Decided here, once, so every chunk agrees on what to do. */
          CsAction action = _cs_copy_decide (job, dir, name, final, &st);
          CsBig *big;
          guint64 off;

          /* A move decides for itself in the worker (renaming, or comparing
           * before removing the source). */
          if (job->settings.operation == CS_OPERATION_MOVE
              && (action >= CS_ACTION_SKIP || atomic_load (&dir->same_fs)))
            goto whole;
          /* A file already there is read for the manifest by a worker. */
          if (job->manifest != NULL && action >= CS_ACTION_SKIP && action != CS_ACTION_FAIL)
            goto whole;
          if (action >= CS_ACTION_SKIP)
            {
              if (link != NULL)
                {
                  /* No name can wait for it yet: it is the first met; only an
                   * identical file there is one the later names may share. */
                  _cs_link_settle (job, link, action == CS_ACTION_SKIP);
                  _cs_link_unref (link);
                }
              _cs_job_account (job, dir, name, final, action, size);
              return;
            }

          big = _cs_big_new ((int) ((size + CS_CHUNK_SIZE - 1) / CS_CHUNK_SIZE));
          big->link = link;

          for (off = 0; off < size; off += CS_CHUNK_SIZE)
            {
              CsItem *item = g_new0 (CsItem, 1);

              item->kind = CS_ITEM_CHUNK;
              item->dir = _cs_dir_ref (dir);
              item->name = g_strdup (name);
              item->dst_name = g_strdup (dst_name);
              item->st = st;
              item->big = big;
              atomic_fetch_add (&big->ref, 1);
              item->offset = off;
              item->length = MIN (CS_CHUNK_SIZE, size - off);
              item->replace = action == CS_ACTION_REPLACE;
              item->keep_both = action == CS_ACTION_KEEP_BOTH;
              if (_cs_job_stopping (job) && off + CS_CHUNK_SIZE < size)
                {
                  /* The job stopped: this chunk is the last one queued. The
                   * ones after it count as done before it goes, so one queued
                   * chunk is always left to finish the file — discard it and
                   * record the error that stopped it (copy_chunk). Counted
                   * after the push, they could be the last to count, and the
                   * file would end with nobody recording its error. */
                  int left = (int) ((size - off - CS_CHUNK_SIZE + CS_CHUNK_SIZE - 1) / CS_CHUNK_SIZE);

                  atomic_fetch_sub (&big->remaining, left);
                  _cs_job_push (job, item);
                  break;
                }
              _cs_job_push (job, item);
            }
          _cs_big_unref (job, big);
          return;
        }

    whole:
      {
        CsItem *item = g_new0 (CsItem, 1);

        item->kind = S_ISREG (st.st_mode) ? CS_ITEM_FILE : S_ISLNK (st.st_mode) ? CS_ITEM_SYMLINK
                   : CS_ITEM_SPECIAL;
        item->dir = _cs_dir_ref (dir);
        item->name = g_strdup (name);
        item->dst_name = g_strdup (dst_name);
        item->st = st;
        item->link = link;
        item->link_first = first;
        queue_item (job, item);
      }
      return;
    }

  /* A socket belongs to the program listening on it, and a node made in its
   * place would answer nobody: skipped, with a note. */
  {
    const char *message = S_ISSOCK (st.st_mode) ? "Not copied: a socket belongs to the program that listens on it"
                                                : "Not copied: not a file, folder, link, FIFO or device";

    atomic_fetch_add (&job->files_found, 1);
    _cs_job_add_total (job, CS_CLASS_TOTAL, 1, 0);
    _cs_job_add_total (job, CS_CLASS_SKIPPED, 1, 0);
    _cs_job_note (job, dir, name, "special file", 0, message);
    _cs_job_log (job, dir, name, "skipped", 0, message + strlen ("Not copied: "));
  }
}

static void
walk_dir (CsJob *job,
          CsDir *dir,
          guint  depth)
{
  gsize bufsize = depth < 64 ? DENTS_BUFFER_SIZE : DENTS_BUFFER_SIZE_DEEP;
  g_autofree guint8 *buf = g_malloc (bufsize);
  g_autoptr(GHashTable) existing = NULL;
  g_autoptr(GHashTable) taken = NULL;
  FolderScan scan;
  ssize_t n;

  if (!dir->dst_new && dir->dst_fd >= 0)
    {
      existing = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      prepare_existing_dir (job, dir, existing);
    }
  /* Only where case is ignored: a name per entry of the folder, freed with it. */
  if (dir->fs != NULL && dir->fs->case_insensitive)
    taken = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  scan = (FolderScan) { existing, taken };

  while ((n = _cs_io_getdents (&job->counters, dir->src_fd, buf, bufsize)) > 0)
    {
      for (ssize_t off = 0; off < n;)
        {
          struct linux_dirent64 *d = (struct linux_dirent64 *) (buf + off);

          off += d->d_reclen;
          if (strcmp (d->d_name, ".") == 0 || strcmp (d->d_name, "..") == 0)
            continue;
          if (!_cs_job_wait_if_paused (job))
            return;
          handle_entry (job, dir, d->d_name, NULL, d->d_type, &scan, depth);
        }
    }
  if (n < 0)
    _cs_job_report_item (job, dir->parent, dir->name, NULL, 0, TRUE, "read folder", errno, NULL, 1);

  /* Hand over what this folder left in the batch before the scan moves on. */
  flush_batch (job);

  /* Partials no file of this run goes to are stale once the folder is read. */
  if (n == 0 && dir->resumes != NULL && !_cs_job_stopping (job))
    _cs_resume_sweep (job, dir, dir->resumes, dir->resumes_wanted);

  if (existing != NULL && !_cs_job_stopping (job))
    {
      count_extras (job, dir, existing);
      /* Only a folder read to its end tells what its source no longer has. */
      if (n == 0 && job->settings.operation == CS_OPERATION_MIRROR)
        _cs_mirror_note_extras (job, dir, existing);
    }
}

/* Opens @path's parent folder as a pseudo folder whose attributes are left alone. */
static CsDir *
open_container (CsJob      *job,
                const char *src_parent,
                const char *dst_parent)
{
  CsDir *dir = _cs_dir_new (job, NULL, src_parent, dst_parent);

  dir->apply_attrs = FALSE;
  dir->src_fd = _cs_io_openat (&job->counters, CS_IO_AT_LOCATION, src_parent, O_RDONLY | O_DIRECTORY, 0);
  dir->dst_fd = _cs_io_openat (&job->counters, CS_IO_AT_LOCATION, dst_parent, O_RDONLY | O_DIRECTORY, 0);
  if (dir->src_fd < 0 || (dir->dst_fd < 0 && !job->settings.dry_run))
    {
      _cs_dir_unref (dir);
      return NULL;
    }
  _cs_dir_note_source (job, dir, NULL);
  if (job->settings.operation == CS_OPERATION_MOVE)
    _cs_move_probe_dir (job, dir);
  dir->fs = _cs_dest_fs_for (job, dir->dst_fd, NULL);

  return dir;
}

/* The destination folder; for Copy Into the folders above it that are
 * missing too. 0, or -1 with errno set. */
static int
make_destination (CsJob      *job,
                  const char *path)
{
  g_autofree char *trimmed = NULL;
  g_autofree char *parent = NULL;

  if (_cs_io_mkdirat (&job->counters, CS_IO_AT_LOCATION, path, 0755) == 0 || errno == EEXIST)
    return 0;
  if (errno != ENOENT || !job->into)
    return -1;
  trimmed = g_strdup (path);
  while (strlen (trimmed) > 1 && g_str_has_suffix (trimmed, "/"))
    trimmed[strlen (trimmed) - 1] = '\0';
  parent = g_path_get_dirname (trimmed);
  if (strcmp (parent, trimmed) == 0 || make_destination (job, parent) != 0)
    return -1;
  if (_cs_io_mkdirat (&job->counters, CS_IO_AT_LOCATION, path, 0755) == 0 || errno == EEXIST)
    return 0;
  return -1;
}

/* scanner thread */
void
_cs_scanner_run (CsJob *job)
{
  const char *dest = job->destination;
  struct stat dst_st;
  gboolean dest_is_dir;

  dest_is_dir = _cs_io_stat_location (dest, TRUE, &dst_st) == 0 && S_ISDIR (dst_st.st_mode);

  /* cp -r: several sources into a folder that does not exist yet make that
   * folder; so does one when it is copied into the destination. */
  if (!dest_is_dir && (job->sources->len > 1 || job->into) && !job->settings.dry_run)
    {
      if (make_destination (job, dest) != 0)
        {
          g_autofree char *message = g_strdup_printf ("Cannot create the destination folder: %s",
                                                      g_strerror (errno));
          _cs_job_fatal (job, message);
          return;
        }
      dest_is_dir = TRUE;
    }
  else if (!dest_is_dir && (job->sources->len > 1 || job->into))
    dest_is_dir = TRUE;

  for (guint i = 0; i < job->sources->len && !_cs_job_stopping (job); i++)
    {
      const char *source = g_ptr_array_index (job->sources, i);
      const char *explicit_target = g_ptr_array_index (job->source_targets, i);
      g_autofree char *trimmed = g_strdup (source);
      g_autofree char *src_parent = NULL;
      g_autofree char *src_name = NULL;
      g_autofree char *dst_parent = NULL;
      g_autofree char *dst_name = NULL;
      CsDir *container;
      struct stat src_st;

      /* "folder/" names the folder itself, as with cp. */
      while (strlen (trimmed) > 1 && g_str_has_suffix (trimmed, "/"))
        trimmed[strlen (trimmed) - 1] = '\0';

      src_parent = g_path_get_dirname (trimmed);
      src_name = _cs_io_location_name (trimmed);
      if (explicit_target != NULL)
        {
          g_autofree char *target = g_strdup (explicit_target);

          while (strlen (target) > 1 && g_str_has_suffix (target, "/"))
            target[strlen (target) - 1] = '\0';
          dst_parent = g_path_get_dirname (target);
          dst_name = _cs_io_location_name (target);
        }
      else if (dest_is_dir)
        {
          dst_parent = g_strdup (dest);
          dst_name = g_strdup (src_name);
        }
      else
        {
          /* "copy DIR new/": the new folder is "new", as with cp -r. */
          g_autofree char *target = g_strdup (dest);

          while (strlen (target) > 1 && g_str_has_suffix (target, "/"))
            target[strlen (target) - 1] = '\0';
          dst_parent = g_path_get_dirname (target);
          dst_name = _cs_io_location_name (target);
        }

      container = open_container (job, src_parent, dst_parent);
      if (container == NULL)
        {
          int saved = errno;
          gboolean folder = _cs_io_stat_location (trimmed, FALSE, &src_st) == 0 && S_ISDIR (src_st.st_mode);

          _cs_job_report_item (job, NULL, trimmed, NULL, 0, folder, "open", saved, NULL, 1);
          count_unreadable (job, folder);
          continue;
        }
      if (job->settings.dry_run && container->dst_fd < 0)
        container->dst_new = TRUE;
      /* A folder source's own folder is swept when it is entered; what a
       * killed copy of a file left lies beside it, in the container. */
      if (container->dst_fd >= 0 && !job->settings.dry_run
          && _cs_io_fstatat (&job->counters, container->src_fd, src_name, &src_st, AT_SYMLINK_NOFOLLOW) == 0
          && !S_ISDIR (src_st.st_mode))
        prepare_existing_dir (job, container, NULL);
      /* Every source is copied into the same folder: staging goes there. */
      _cs_stage_setup (job, container->dst_fd);
      if (container->dst_fd >= 0 && _cs_is_remote_filesystem (container->dst_fd))
        atomic_store (&job->dst_remote, 1);
      job->split_big = job->chunking == CS_CHUNKING_ALWAYS
                       || (job->chunking == CS_CHUNKING_AUTO
                           && (_cs_is_remote_filesystem (container->src_fd)
                               || atomic_load (&job->dst_remote)));
      handle_entry (job, container, src_name, strcmp (src_name, dst_name) != 0 ? dst_name : NULL,
                    DT_UNKNOWN, NULL, 0);
      _cs_dir_unref (container);
    }
  flush_batch (job);
}
