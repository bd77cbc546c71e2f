/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-scanner"

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "cs-scanner-walk-private.h"
#include "cs-big-file-private.h"
#include "cs-copy-attrs-private.h"
#include "cs-copy-data-private.h"
#include "cs-copy-private.h"
#include "cs-count-ahead-private.h"
#include "cs-decide-batch-private.h"
#include "cs-dest-fs-private.h"
#include "cs-dest-listing-private.h"
#include "cs-dir-private.h"
#include "cs-errno-private.h"
#include "cs-job-private.h"
#include "cs-links-private.h"
#include "cs-mirror-private.h"
#include "cs-move-private.h"
#include "cs-names-private.h"
#include "cs-resume-private.h"
#include "cs-scanner-claims-private.h"
#include "cs-scanner-leftovers-private.h"

/*
 * The walk: the sources depth first with directory descriptors and *at()
 * calls only, so paths of any length work and nothing is resolved twice. It
 * creates destination folders as it goes and hands files to the pool through
 * the job's bounded queue: it blocks when the queue is full, so memory does
 * not grow with the number of files.
 */

void
_cs_scanner_plan (CsJob      *job,
                  const char *action,
                  CsDir      *dir,
                  const char *name,
                  const char *dst_name)
{
  g_autofree char *src = NULL;
  g_autofree char *dst = NULL;

  if (job->setup.plan_func == NULL)
    return;
  src = _cs_dir_dup_path (dir, name, FALSE);
  dst = _cs_dir_dup_path (dir, dst_name, TRUE);
  job->setup.plan_func (action, src, dst, job->setup.plan_data);
}

static void walk_dir (CsJob *job, CsDir *dir, guint depth, GPtrArray *members);

/* A batch goes out at this many files or bytes, whichever comes first. */
#define BATCH_FILES 16
#define BATCH_BYTES (G_GUINT64_CONSTANT (1) << 20)

void
_cs_scanner_flush_batch (CsJob *job)
{
  CsItem *batch = g_steal_pointer (&job->scan.batch);

  if (batch != NULL)
    batch->n_files = job->scan.batch_n;
  job->scan.batch_n = 0;
  job->scan.batch_bytes = 0;
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
  guint threads = _cs_job_threads (job);
  guint pending = _cs_job_pending (job);
  guint64 size = item->kind == CS_ITEM_FILE ? (guint64) item->st.st_size : 0;

  /* Files decided in batches go first: they came first. */
  _cs_decide_batch_flush (job);
  atomic_fetch_add_explicit (&item->dir->n_files, 1, memory_order_relaxed);
  _cs_dir_note_written (item->dir);
  if (size >= BATCH_BYTES || pending < 2 * threads)
    {
      _cs_scanner_flush_batch (job);
      _cs_job_push (job, item);
      return;
    }

  if (job->scan.batch == NULL)
    {
      job->scan.batch = g_new0 (CsItem, 1);
      job->scan.batch->kind = CS_ITEM_BATCH;
    }
  item->next = job->scan.batch->next;
  job->scan.batch->next = item;
  job->scan.batch_n++;
  job->scan.batch_bytes += size;
  if (job->scan.batch_n >= BATCH_FILES || job->scan.batch_bytes >= BATCH_BYTES)
    _cs_scanner_flush_batch (job);
}

/* Opens @later's folder as one merged into @into, whose destination folder
 * it shares. NULL, reported, if it cannot be read. */
static CsDir *
open_merged (CsJob   *job,
             CsDir   *into,
             CsLater *later)
{
  CsDir *dir;
  struct stat st;

  later->entered = TRUE;
  if (_cs_io_fstatat (&job->counters, later->parent->src_fd, later->name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    {
      _cs_job_report_item (job, later->parent, later->name, NULL, 0, TRUE, "stat", errno, NULL, 1);
      _cs_scanner_count_unreadable (job, TRUE);
      return NULL;
    }
  atomic_fetch_add (&job->tally.dirs_found, 1);
  _cs_job_add_dir_total (job, CS_CLASS_TOTAL);
  dir = _cs_dir_new (job, later->parent, later->name, into->dst_name);
  dir->st = st;
  dir->src_fd = _cs_io_openat (&job->counters, later->parent->src_fd, later->name,
                               O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
  if (dir->src_fd < 0)
    {
      _cs_job_report_item (job, later->parent, later->name, NULL, 0, TRUE, "open folder", errno, NULL, 1);
      _cs_job_add_dir_total (job, CS_CLASS_FAILED);
      _cs_dir_unref (dir);
      return NULL;
    }
  _cs_dir_note_source (job, dir, later->parent);
  /* Its own descriptor: a directory's offset is shared by duplicates. */
  if (into->dst_fd >= 0)
    dir->dst_fd = _cs_io_openat (&job->counters, into->dst_fd, ".", O_RDONLY | O_DIRECTORY, 0);
  dir->dst_new = FALSE;
  dir->fs = into->fs;
  dir->merged_into = _cs_dir_ref (into);
  _cs_job_add_dir_total (job, CS_CLASS_SKIPPED);
  if (job->setup.settings.operation == CS_OPERATION_MOVE)
    _cs_move_probe_dir (job, dir);
  return dir;
}

/* Creates (or opens) the destination folder for @name and walks it, with
 * the folders of @later (or NULL) merged into it; @ahead (or NULL): the
 * folder there, opened and listed ahead (cs-dest-listing-private.h);
 * @seen (or NULL): its stat in @parent's destination listing. */
static void
enter_dir (CsJob             *job,
           CsDir             *parent,
           const char        *name,
           const char        *dst_name,
           const struct stat *st,
           guint              depth,
           GPtrArray         *later,
           CsPrefetch        *ahead,
           const struct stat *seen)
{
  g_autoptr(GPtrArray) members = NULL;
  g_autoptr(GPtrArray) listed = NULL;
  CsDir *dir;
  int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
  int opened = -1;
  struct stat opened_st;
  gboolean opened_st_known = FALSE;

  atomic_fetch_add (&job->tally.dirs_found, 1);
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
  /* A folder there already, opened as below: no create to be refused. */
  if (ahead != NULL && !job->setup.settings.dry_run)
    opened = _cs_dest_listing_take (ahead, &listed, &opened_st, &opened_st_known);

  if (job->setup.settings.dry_run)
    {
      if (parent->dst_fd >= 0)
        dir->dst_fd = _cs_io_openat (&job->counters, parent->dst_fd, dir->dst_name, flags, 0);
      dir->dst_new = dir->dst_fd < 0;
      _cs_scanner_plan (job, dir->dst_new ? "mkdir" : "enter", parent, name, dir->dst_name);
      _cs_job_add_dir_total (job, dir->dst_new ? CS_CLASS_COPIED : CS_CLASS_SKIPPED);
    }
  else if (opened >= 0)
    {
      dir->dst_new = FALSE;
      dir->dst_listed = g_steal_pointer (&listed);
      _cs_job_add_dir_total (job, CS_CLASS_SKIPPED);
    }
  else if (_cs_io_mkdirat (&job->counters, parent->dst_fd, dir->dst_name, 0700) == 0)
    {
      _cs_dir_note_written (parent);
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

  if (!job->setup.settings.dry_run)
    {
      /* O_NOFOLLOW: a symlink planted where a folder should be is never written through. */
      dir->dst_fd = opened >= 0 ? opened : _cs_io_openat (&job->counters, parent->dst_fd, dir->dst_name, flags, 0);
      if (dir->dst_fd < 0)
        {
          int saved = errno;

          /* Made a moment ago: gone with the folder around it, or in a copy
           * that stopped meanwhile. */
          if (saved == ENOENT && _cs_dir_dst_removed (job, parent))
            _cs_job_fatal (job, CS_DEST_REMOVED_MESSAGE);
          else if (!_cs_job_stopping (job))
            {
              g_autofree char *message = NULL;
              struct stat there;

              /* Named by what stands there, as a file's replacement is. */
              if ((saved == ELOOP || saved == ENOTDIR)
                  && _cs_io_fstatat (&job->counters, parent->dst_fd, dir->dst_name, &there,
                                     AT_SYMLINK_NOFOLLOW) == 0)
                message = g_strdup_printf ("The destination exists and is not a folder: the destination "
                                           "is %s, the source a folder; nothing was written through it",
                                           _cs_copy_type_name (there.st_mode));
              else if (saved == ELOOP || saved == ENOTDIR)
                message = g_strdup ("The destination exists and is not a folder; nothing was written through it");
              _cs_job_report_item (job, parent, name, dir->dst_name, 0, TRUE, "open folder", saved,
                                   message, 1);
              _cs_job_add_dir_total (job, CS_CLASS_FAILED);
            }
          _cs_dir_unref (dir);
          return;
        }
      /* The folder the sources are copied into, walked itself (a source
       * given as "SRC/."): listed a moment ago, where the staging folders
       * a killed run left were looked for (_cs_stage_setup). */
      if (!dir->dst_new && dir->dst_listed == NULL && parent->dst_listed != NULL
          && strcmp (dir->dst_name, ".") == 0)
        dir->dst_listed = g_steal_pointer (&parent->dst_listed);
    }
  /* What its end compares with (cs-dir.c): the folder met, not made. */
  if (!dir->dst_new && seen != NULL)
    {
      dir->dst_st = *seen;
      dir->dst_seen = TRUE;
      dir->dst_same_mtime = _cs_copy_same_mtime (seen, st);
    }
  dir->fs = opened >= 0 && opened_st_known ? _cs_dest_fs_for_stat (job, dir->dst_fd, &opened_st, parent->fs)
                                           : _cs_dest_fs_for (job, dir->dst_fd, parent->fs);

  if (job->setup.settings.operation == CS_OPERATION_MOVE)
    _cs_move_probe_dir (job, dir);
  if (job->setup.settings.operation == CS_OPERATION_MIRROR && parent->parent == NULL)
    _cs_mirror_add_root (job, dir);
  if (later != NULL && later->len > 0)
    {
      members = g_ptr_array_new_with_free_func ((GDestroyNotify) _cs_dir_unref);
      for (guint i = 0; i < later->len; i++)
        {
          CsDir *merged = open_merged (job, dir, g_ptr_array_index (later, i));

          if (merged != NULL)
            g_ptr_array_add (members, merged);
        }
    }
  walk_dir (job, dir, depth + 1, members);
  _cs_dir_unref (dir);
}

/* A mirror meets an entry of another type at the destination: the listing's
 * type tells, a stat only where it did not say. Listed with the extras and
 * copied once they are deleted (cs-mirror-private.h). */
static gboolean
replaced_by_mirror (CsJob             *job,
                    CsDir             *dir,
                    const char        *name,
                    const char        *dst_name,
                    const struct stat *st,
                    CsFolderScan      *scan,
                    const char        *listed,
                    guint              depth)
{
  guint listed_type;
  struct stat dst;

  if (scan == NULL || scan->types == NULL || listed == NULL)
    return FALSE;
  listed_type = GPOINTER_TO_UINT (g_hash_table_lookup (scan->types, listed));
  if (listed_type == IFTODT (st->st_mode))
    return FALSE;
  if (_cs_io_fstatat (&job->counters, dir->dst_fd, listed, &dst, AT_SYMLINK_NOFOLLOW) != 0
      || (dst.st_mode & S_IFMT) == (st->st_mode & S_IFMT))
    return FALSE;
  return _cs_mirror_replace (job, dir, name, dst_name, listed, &dst, depth);
}

/* @d_type: what the folder listing said @name is (DT_UNKNOWN if it did not). */
static void
handle_one (CsJob        *job,
            CsDir        *dir,
            const char   *name,
            const char   *dst_name,
            unsigned char d_type,
            CsFolderScan *scan,
            guint         depth,
            GPtrArray    *later)
{
  g_autofree char *listed = NULL;
  struct stat st;

  if (_cs_job_is_excluded (job, name))
    return;
  if (scan != NULL && scan->existing != NULL)
    {
      g_autofree char *key = _cs_scanner_dest_key (dir, dst_name != NULL ? dst_name : name);

      listed = g_strdup (g_hash_table_lookup (scan->existing, key));
      g_hash_table_remove (scan->existing, key);
    }

  if (_cs_io_fstatat (&job->counters, dir->src_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    {
      _cs_job_report_item (job, dir, name, NULL, 0, d_type == DT_DIR, "stat", errno, NULL, 1);
      _cs_scanner_count_unreadable (job, d_type == DT_DIR);
      return;
    }
  if (!_cs_scanner_holdable (job, dir, name, dst_name, &st, scan, listed))
    return;
  if (replaced_by_mirror (job, dir, name, dst_name, &st, scan, listed, depth))
    {
      _cs_dir_note_written (dir);
      return;
    }

  if (S_ISDIR (st.st_mode))
    {
      /* A move takes a whole folder by one rename when its name is free —
       * and no later source's folder merges into it; not with a manifest,
       * whose workers must meet every file. */
      if (job->setup.settings.operation == CS_OPERATION_MOVE && !job->setup.settings.dry_run && job->lists.manifest == NULL
          && (later == NULL || later->len == 0)
          && _cs_move_rename_whole (job, dir, name, dst_name != NULL ? dst_name : name, &st))
        return;
      {
        CsIoListed *seen = scan != NULL && scan->stats != NULL && listed != NULL
                           ? g_hash_table_lookup (scan->stats, listed) : NULL;

        enter_dir (job, dir, name, dst_name != NULL ? dst_name : name, &st, depth, later,
                   scan != NULL && scan->prefetches != NULL && listed != NULL
                   ? g_hash_table_lookup (scan->prefetches, listed) : NULL,
                   seen != NULL ? &seen->st : NULL);
      }
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

      atomic_fetch_add (&job->tally.files_found, 1);
      atomic_fetch_add (&job->tally.bytes_found, size);
      _cs_job_add_total (job, CS_CLASS_TOTAL, 1, size);

      /* Devices and FIFOs too: several names of one node stay one node. */
      if (!S_ISLNK (st.st_mode) && st.st_nlink > 1)
        link = _cs_links_meet (job, dir, final, &st, &first);
      if (dir->resumes != NULL && _cs_resume_wanted (job, &st))
        {
          guint64 hash = _cs_name_hash (final);

          if (dir->resumes_wanted == NULL)
            dir->resumes_wanted = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
          g_hash_table_add (dir->resumes_wanted, g_memdup2 (&hash, sizeof hash));
        }

      if (job->setup.settings.dry_run)
        {
          CsAction action = dir->dst_fd >= 0
            ? _cs_copy_decide (job, dir, name, final, &st)
            : CS_ACTION_COPY;
          static const char *names[] = { "copy", "replace", "keep both", "skip", "skip (destination is newer)",
                                         "skip (kept)", "fail" };
          static const char *move_names[] = { "move", "move (replace)", "move (keep both)",
                                              "remove source (identical)", "keep (destination is newer)",
                                              "keep", "fail" };

          _cs_job_count_decided (job, action);
          _cs_link_unref (link);
          _cs_scanner_plan (job, job->setup.settings.operation == CS_OPERATION_MOVE ? move_names[action]
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

      /* A rerun onto a local disk: a file the destination's listing holds
       * is decided by a worker in a batch of them (cs-decide-batch.c), so
       * the destination's stats run beside the scanner's and a queue trip
       * serves many files. Not a later name of a linked file, a move, a
       * checksum list's file or a big file in chunks: those keep their
       * own way below. */
      if (listed != NULL && link == NULL && job->setup.settings.operation != CS_OPERATION_MOVE
          && job->lists.manifest == NULL
          && (size < CS_BIG_FILE_MIN || !job->scan.split_big) && _cs_decide_batch_wanted (job, dir))
        {
          _cs_dir_note_written (dir);
          _cs_decide_batch_add (job, dir, name, dst_name, &st);
          return;
        }

      /* A rerun onto a share: decided from the folder's listing, which
       * gave every entry's stat (cs-dest-listing.c); what needs work goes
       * on to the pool. */
      if (listed != NULL && scan->stats != NULL && link == NULL
          && job->setup.settings.operation != CS_OPERATION_MOVE && job->lists.manifest == NULL
          && (size < CS_BIG_FILE_MIN || !job->scan.split_big))
        {
          CsIoListed *there = g_hash_table_lookup (scan->stats, listed);

          if (there != NULL && _cs_dest_listing_decide (job, dir, name, final, &st, &there->st))
            return;
        }

      /* A later name of a file is linked, not copied, whatever its size. */
      if (S_ISREG (st.st_mode) && size >= CS_BIG_FILE_MIN && job->scan.split_big && first)
        {
          /* Decided here, once, so every chunk agrees on what to do. */
          CsAction action = _cs_copy_decide (job, dir, name, final, &st);
          CsBig *big;
          guint64 off;

          /* A move decides for itself in the worker (renaming, or comparing
           * before removing the source). */
          if (job->setup.settings.operation == CS_OPERATION_MOVE
              && (action >= CS_ACTION_SKIP || atomic_load (&dir->same_fs)))
            goto whole;
          /* A file already there is read for the manifest by a worker. */
          if (job->lists.manifest != NULL && action >= CS_ACTION_SKIP && action != CS_ACTION_FAIL)
            goto whole;
          _cs_job_count_decided (job, action);
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

          _cs_dir_note_written (dir);
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

    atomic_fetch_add (&job->tally.files_found, 1);
    _cs_job_add_total (job, CS_CLASS_TOTAL, 1, 0);
    _cs_job_add_total (job, CS_CLASS_SKIPPED, 1, 0);
    _cs_job_note (job, dir, name, "special file", 0, message);
    _cs_job_log (job, dir, name, "skipped", 0, message + strlen ("Not copied: "));
  }
}

void
_cs_scanner_handle_entry (CsJob        *job,
                          CsDir        *dir,
                          const char   *name,
                          const char   *dst_name,
                          unsigned char d_type,
                          CsFolderScan *scan,
                          guint         depth,
                          GPtrArray    *later)
{
  g_autoptr(GPtrArray) found = NULL;

  if (scan != NULL && scan->claimed != NULL && !_cs_job_is_excluded (job, name)
      && !_cs_scanner_claim_name (job, dir, name, dst_name, scan, &found))
    return;
  if (found != NULL)
    later = found;
  handle_one (job, dir, name, dst_name, d_type, scan, depth, later);
  _cs_scanner_report_unmerged (job, dir, name, later);
}

/* Reads one source folder into @dir's destination folder (@scan->member of
 * a merged one). FALSE when the job stopped meanwhile. */
static gboolean
read_folder (CsJob        *job,
             CsDir        *dir,
             CsFolderScan *scan,
             guint         depth,
             ssize_t      *out_n)
{
  gsize bufsize = depth < 64 ? DENTS_BUFFER_SIZE : DENTS_BUFFER_SIZE_DEEP;
  g_autofree guint8 *buf = g_malloc (bufsize);
  guint index = 0;
  ssize_t n;

  while ((n = _cs_io_getdents (&job->counters, dir->src_fd, buf, bufsize)) > 0)
    {
      for (ssize_t off = 0; off < n;)
        {
          struct linux_dirent64 *d = (struct linux_dirent64 *) (buf + off);

          off += d->d_reclen;
          if (strcmp (d->d_name, ".") == 0 || strcmp (d->d_name, "..") == 0)
            continue;
          if (!_cs_job_wait_if_paused (job))
            return FALSE;
          /* Where the count ahead stops counting (cs-count-ahead.c). */
          _cs_count_ahead_at (job, depth, index++);
          _cs_scanner_handle_entry (job, dir, d->d_name, NULL, d->d_type, scan, depth, NULL);
        }
    }
  if (n < 0)
    _cs_job_report_item (job, dir->parent, dir->name, NULL, 0, TRUE, "read folder", errno, NULL, 1);

  /* Hand over what this folder left in the batches before the scan moves on. */
  _cs_scanner_flush_batch (job);
  _cs_decide_batch_flush (job);
  *out_n = n;
  return TRUE;
}

/* The listed names (@existing: _cs_scanner_dest_key's keys → the listed
 * names) of @dir's destination subfolders (@stats) in the order the
 * scanner will enter them: its source folder's, read again on a handle of
 * its own, so the scanner's keeps its place (a local folder, cached). The
 * folders are listed ahead in this order (_cs_dest_listing_prefetch). NULL
 * where the source is a share: a second listing there costs requests. */
static GPtrArray *
folders_in_source_order (CsJob      *job,
                         CsDir      *dir,
                         GHashTable *stats,
                         GHashTable *existing)
{
  g_autofree guint8 *buf = NULL;
  GPtrArray *names;
  ssize_t len;
  int fd;

  if (existing == NULL || dir->src_fd < 0 || _cs_copy_on_share (dir->src_fd))
    return NULL;
  fd = _cs_io_openat (&job->counters, dir->src_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
  if (fd < 0)
    return NULL;
  names = g_ptr_array_new_with_free_func (g_free);
  buf = g_malloc (DENTS_BUFFER_SIZE);
  while ((len = _cs_io_getdents (&job->counters, fd, buf, DENTS_BUFFER_SIZE)) > 0)
    for (ssize_t off = 0; off < len;)
      {
        struct linux_dirent64 *d = (struct linux_dirent64 *) (buf + off);
        g_autofree char *key = NULL;
        const char *listed;
        CsIoListed *seen;

        off += d->d_reclen;
        if ((d->d_type != DT_DIR && d->d_type != DT_UNKNOWN) || strcmp (d->d_name, ".") == 0
            || strcmp (d->d_name, "..") == 0)
          continue;
        key = _cs_scanner_dest_key (dir, d->d_name);
        listed = g_hash_table_lookup (existing, key);
        seen = listed != NULL ? g_hash_table_lookup (stats, listed) : NULL;
        if (seen != NULL && S_ISDIR (seen->st.st_mode))
          g_ptr_array_add (names, g_strdup (listed));
      }
  _cs_io_close (&job->counters, fd);
  return names;
}

/* Walks @dir, then the later sources' folders in @members (or NULL) that
 * merge into it. */
static void
walk_dir (CsJob     *job,
          CsDir     *dir,
          guint      depth,
          GPtrArray *members)
{
  g_autoptr(GHashTable) existing = NULL;
  g_autoptr(GHashTable) taken = NULL;
  g_autoptr(GHashTable) claimed = NULL;
  g_autoptr(GHashTable) types = NULL;
  g_autoptr(GHashTable) stats = NULL;
  g_autoptr(GHashTable) prefetches = NULL;
  g_autoptr(GPtrArray) first = NULL;
  g_autoptr(GPtrArray) all = NULL;
  CsFolderScan scan;
  ssize_t n = 0;

  if (!dir->dst_new && dir->dst_fd >= 0)
    {
      /* A source's own folder (entered at depth 0): before its listing. */
      if (depth == 1)
        _cs_dest_listing_start_early (job, dir);
      existing = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      if (job->setup.settings.operation == CS_OPERATION_MIRROR && dir->mirror_root >= 0)
        types = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      stats = _cs_scanner_prepare_listed_dir (job, dir, existing, types);
      if (stats == NULL)
        _cs_scanner_prepare_existing_dir (job, dir, existing, types);
    }
  /* Only where case is ignored: a name per entry of the folder, freed with it. */
  if (dir->fs != NULL && dir->fs->case_insensitive)
    taken = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  /* Declared after @stats: freed first, each waited for. */
  if (stats != NULL)
    first = folders_in_source_order (job, dir, stats, existing);
  prefetches = _cs_dest_listing_prefetch (job, dir, stats, first);
  scan = (CsFolderScan) { existing, taken, types, NULL, 0, NULL, stats, prefetches };
  if (members != NULL && members->len > 0)
    {
      /* Only where folders merge: a name per entry of this one level. */
      claimed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      all = g_ptr_array_new ();
      g_ptr_array_add (all, dir);
      for (guint m = 0; m < members->len; m++)
        g_ptr_array_add (all, g_ptr_array_index (members, m));
      scan.members = all;
      scan.claimed = claimed;
    }

  if (!read_folder (job, dir, &scan, depth, &n))
    return;

  /* Partials no file of this run goes to are stale once the folder is read. */
  if (n == 0 && dir->resumes != NULL && !_cs_job_stopping (job))
    _cs_resume_sweep (job, dir, dir->resumes, dir->resumes_wanted);

  for (guint m = 1; all != NULL && m < all->len && !_cs_job_stopping (job); m++)
    {
      ssize_t merged_n = 0;

      scan.member = m;
      if (!read_folder (job, g_ptr_array_index (all, m), &scan, depth, &merged_n))
        return;
    }

  if (existing != NULL && !_cs_job_stopping (job))
    {
      _cs_scanner_count_extras (job, dir, existing, stats);
      /* Only a folder read to its end tells what its source no longer has. */
      if (n == 0 && job->setup.settings.operation == CS_OPERATION_MIRROR)
        _cs_mirror_note_extras (job, dir, existing);
    }
}
