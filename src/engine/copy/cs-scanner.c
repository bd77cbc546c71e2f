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
                      GHashTable *names,
                      GHashTable *types)
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
            {
              g_hash_table_insert (names, dest_key (dir, name), g_strdup (name));
              if (types != NULL && d->d_type != DT_UNKNOWN)
                g_hash_table_insert (types, g_strdup (name), GUINT_TO_POINTER ((guint) d->d_type));
            }
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

/*
 * Sources that land on one name (cp -r a/d b/d c) are decided by the order
 * they were named in, never by which worker gets there first: the first keeps
 * the name; a later folder merges into an earlier folder of that name, and in
 * the merged folder a name met again (IMG_0001.JPG in two cameras' DCIM) is
 * the first's; anything else of a later source that would land on a taken
 * name is not copied and is reported naming both. The scanner alone decides,
 * while it reads the folders one after the other, so a move never removes
 * the later one; it keeps the names of a merged folder's one level only.
 */

/* A later source's folder to merge into the folder of its name being entered. */
typedef struct {
  CsDir    *parent;   /* a reference */
  char     *name;     /* in @parent */
  gboolean  entered;  /* merged (or reported) by enter_dir */
} Later;

static Later *
later_new (CsDir      *parent,
           const char *name)
{
  Later *later = g_new0 (Later, 1);

  later->parent = _cs_dir_ref (parent);
  later->name = g_strdup (name);
  return later;
}

static void
later_free (gpointer data)
{
  Later *later = data;

  _cs_dir_unref (later->parent);
  g_free (later->name);
  g_free (later);
}

static void walk_dir (CsJob *job, CsDir *dir, guint depth, GPtrArray *members);
static void count_unreadable (CsJob *job, gboolean folder);

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

/* Opens @later's folder as one merged into @into, whose destination folder
 * it shares. NULL, reported, if it cannot be read. */
static CsDir *
open_merged (CsJob *job,
             CsDir *into,
             Later *later)
{
  CsDir *dir;
  struct stat st;

  later->entered = TRUE;
  if (_cs_io_fstatat (&job->counters, later->parent->src_fd, later->name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    {
      _cs_job_report_item (job, later->parent, later->name, NULL, 0, TRUE, "stat", errno, NULL, 1);
      count_unreadable (job, TRUE);
      return NULL;
    }
  atomic_fetch_add (&job->dirs_found, 1);
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
  if (job->settings.operation == CS_OPERATION_MOVE)
    _cs_move_probe_dir (job, dir);
  return dir;
}

/* Creates (or opens) the destination folder for @name and walks it, with
 * the folders of @later (or NULL) merged into it. */
static void
enter_dir (CsJob             *job,
           CsDir             *parent,
           const char        *name,
           const char        *dst_name,
           const struct stat *st,
           guint              depth,
           GPtrArray         *later)
{
  g_autoptr(GPtrArray) members = NULL;
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
    }
  dir->fs = _cs_dest_fs_for (job, dir->dst_fd, parent->fs);

  if (job->settings.operation == CS_OPERATION_MOVE)
    _cs_move_probe_dir (job, dir);
  if (job->settings.operation == CS_OPERATION_MIRROR && parent->parent == NULL)
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
  GHashTable *types;        /* mirror: the destination's names → their d_type, where listed */
  /* Where several sources' folders merge: the folders (the first, then the
   * later ones in operand order), the one being read, and the names met so
   * far (as the destination compares them) → Claim. Else NULL. */
  GPtrArray  *members;
  guint       member;
  GHashTable *claimed;
} FolderScan;

/* Which member of a merged folder met a name first, and whether it was a
 * folder the later members' folders of that name merged into. */
typedef struct {
  guint     member;
  gboolean  merged;
  char      name[];
} Claim;

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

/* A mirror meets an entry of another type at the destination: the listing's
 * type tells, a stat only where it did not say. Listed with the extras and
 * copied once they are deleted (cs-mirror-private.h). */
static gboolean
replaced_by_mirror (CsJob             *job,
                    CsDir             *dir,
                    const char        *name,
                    const char        *dst_name,
                    const struct stat *st,
                    FolderScan        *scan,
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

static void
handle_one (CsJob         *job,
            CsDir         *dir,
            const char    *name,
            const char    *dst_name,
            unsigned char  d_type,
            FolderScan    *scan,
            guint          depth,
            GPtrArray     *later)
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
  if (replaced_by_mirror (job, dir, name, dst_name, &st, scan, listed, depth))
    return;

  if (S_ISDIR (st.st_mode))
    {
      /* A move takes a whole folder by one rename when its name is free —
       * and no later source's folder merges into it; not with a manifest,
       * whose workers must meet every file. */
      if (job->settings.operation == CS_OPERATION_MOVE && !job->settings.dry_run && job->manifest == NULL
          && (later == NULL || later->len == 0)
          && _cs_move_rename_whole (job, dir, name, dst_name != NULL ? dst_name : name, &st))
        return;
      enter_dir (job, dir, name, dst_name != NULL ? dst_name : name, &st, depth, later);
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

          _cs_job_count_decided (job, action);
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

      /* A rerun onto a local disk: a file the destination's listing holds
       * is decided here when it is there unchanged, not handed to a worker
       * and back (at 8 threads the hand-off made the no-op of 100,000
       * files 2.4 times as slow as at 1). Only the identical ones, which a
       * worker would skip without a word; every other decision, and every
       * share (where the workers' stats overlap their round trips), stays
       * with the pool, and so does every file a checksum list must read. */
      if (listed != NULL && link == NULL && job->settings.operation != CS_OPERATION_MOVE
          && job->manifest == NULL
          && (size < CS_BIG_FILE_MIN || !job->split_big) && _cs_copy_dest_is_local (job, dir)
          && _cs_copy_decide_identical (job, dir, name, final, &st))
        {
          _cs_job_count_decided (job, CS_ACTION_SKIP);
          _cs_job_account (job, dir, name, final, CS_ACTION_SKIP, size);
          return;
        }

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

/* The message for a later source's @final in @dir, which lands where @first
 * (an earlier source's path) goes. */
static char *
taken_message (CsDir      *dir,
               const char *final,
               const char *first)
{
  g_autofree char *target = _cs_dir_dup_path (dir, final, TRUE);
  g_autofree char *a = g_filename_display_name (first);
  g_autofree char *b = g_filename_display_name (target);

  return g_strdup_printf ("Not copied: “%s” goes to “%s” too, and was named first", a, b);
}

/* In a merged folder: whether @name is the first of its name, and if it is a
 * folder, the later members' folders of that name that merge into it. A name
 * met again is reported and not copied, or, for a folder merged already,
 * passed over. */
static gboolean
claim_name (CsJob       *job,
            CsDir       *dir,
            const char  *name,
            const char  *dst_name,
            FolderScan  *scan,
            GPtrArray  **out_later)
{
  const char *final = dst_name != NULL ? dst_name : name;
  g_autofree char *key = dest_key (dir, final);
  Claim *claim = g_hash_table_lookup (scan->claimed, key);
  struct stat st;
  gboolean folder;

  if (_cs_io_fstatat (&job->counters, dir->src_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return TRUE;  /* handle_one reports it */
  folder = S_ISDIR (st.st_mode);

  if (claim != NULL)
    {
      g_autofree char *first = NULL;
      g_autofree char *message = NULL;

      if (claim->merged && folder)
        return FALSE;
      first = _cs_dir_dup_path (g_ptr_array_index (scan->members, claim->member), claim->name, FALSE);
      message = taken_message (dir, final, first);
      not_held (job, dir, name, dst_name, &st, message);
      return FALSE;
    }

  claim = g_malloc (sizeof (Claim) + strlen (name) + 1);
  claim->member = scan->member;
  claim->merged = FALSE;
  strcpy (claim->name, name);
  if (folder)
    for (guint m = scan->member + 1; m < scan->members->len; m++)
      {
        CsDir *other = g_ptr_array_index (scan->members, m);
        struct stat ost;

        if (_cs_io_fstatat (&job->counters, other->src_fd, name, &ost, AT_SYMLINK_NOFOLLOW) != 0
            || !S_ISDIR (ost.st_mode) || _cs_job_is_excluded (job, name))
          continue;
        if (*out_later == NULL)
          *out_later = g_ptr_array_new_with_free_func (later_free);
        g_ptr_array_add (*out_later, later_new (other, name));
        claim->merged = TRUE;
      }
  g_hash_table_insert (scan->claimed, g_steal_pointer (&key), claim);
  return TRUE;
}

/* Later folders that were to merge into one that could not be entered are
 * reported, never dropped silently. */
static void
report_unmerged (CsJob      *job,
                 CsDir      *dir,
                 const char *name,
                 GPtrArray  *later)
{
  for (guint i = 0; later != NULL && i < later->len; i++)
    {
      Later *l = g_ptr_array_index (later, i);
      g_autofree char *path = NULL;
      g_autofree char *first = NULL;
      g_autofree char *message = NULL;

      if (l->entered)
        continue;
      path = _cs_dir_dup_path (dir, name, FALSE);
      first = g_filename_display_name (path);
      message = g_strdup_printf ("Not copied: it merges into the folder “%s”, which was not copied",
                                 first);
      _cs_job_report_item (job, l->parent, l->name, NULL, 0, TRUE, "name", 0, message, 1);
      count_unreadable (job, TRUE);
    }
}

static void
handle_entry (CsJob         *job,
              CsDir         *dir,
              const char    *name,
              const char    *dst_name,
              unsigned char  d_type,
              FolderScan    *scan,
              guint          depth,
              GPtrArray     *later)
{
  g_autoptr(GPtrArray) found = NULL;

  if (scan != NULL && scan->claimed != NULL && !_cs_job_is_excluded (job, name)
      && !claim_name (job, dir, name, dst_name, scan, &found))
    return;
  if (found != NULL)
    later = found;
  handle_one (job, dir, name, dst_name, d_type, scan, depth, later);
  report_unmerged (job, dir, name, later);
}

/* Reads one source folder into @dir's destination folder (@scan->member of
 * a merged one). FALSE when the job stopped meanwhile. */
static gboolean
read_folder (CsJob      *job,
             CsDir      *dir,
             FolderScan *scan,
             guint       depth,
             ssize_t    *out_n)
{
  gsize bufsize = depth < 64 ? DENTS_BUFFER_SIZE : DENTS_BUFFER_SIZE_DEEP;
  g_autofree guint8 *buf = g_malloc (bufsize);
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
          handle_entry (job, dir, d->d_name, NULL, d->d_type, scan, depth, NULL);
        }
    }
  if (n < 0)
    _cs_job_report_item (job, dir->parent, dir->name, NULL, 0, TRUE, "read folder", errno, NULL, 1);

  /* Hand over what this folder left in the batch before the scan moves on. */
  flush_batch (job);
  *out_n = n;
  return TRUE;
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
  g_autoptr(GPtrArray) all = NULL;
  FolderScan scan;
  ssize_t n = 0;

  if (!dir->dst_new && dir->dst_fd >= 0)
    {
      existing = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      if (job->settings.operation == CS_OPERATION_MIRROR && dir->mirror_root >= 0)
        types = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      prepare_existing_dir (job, dir, existing, types);
    }
  /* Only where case is ignored: a name per entry of the folder, freed with it. */
  if (dir->fs != NULL && dir->fs->case_insensitive)
    taken = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  scan = (FolderScan) { existing, taken, types, NULL, 0, NULL };
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

/* Whether the check let any source through. */
static gboolean
any_accepted (CsJob *job)
{
  for (guint i = 0; job->refusals != NULL && i < job->refusals->len; i++)
    if (g_ptr_array_index (job->refusals, i) == NULL)
      return TRUE;
  return job->refusals == NULL;
}

/* Where source @i goes: the path it is read from (without trailing slashes;
 * for "link/" the folder the link points to), its folder and name, and the
 * destination's folder and name (the name it was given: "link/" lands under
 * the link's name, "." and ".." under their folder's). */
typedef struct {
  char *trimmed;
  char *src_parent;
  char *src_name;
  char *dst_parent;
  char *dst_name;
} Target;

static void
target_clear (Target *t)
{
  g_free (t->trimmed);
  g_free (t->src_parent);
  g_free (t->src_name);
  g_free (t->dst_parent);
  g_free (t->dst_name);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Target, target_clear)

static void
source_target (CsJob    *job,
               guint     i,
               gboolean  dest_is_dir,
               Target   *t)
{
  const char *source = g_ptr_array_index (job->sources, i);
  const char *explicit_target = g_ptr_array_index (job->source_targets, i);
  const char *read_path = job->read_paths != NULL ? g_ptr_array_index (job->read_paths, i) : NULL;
  const char *dest = job->destination;
  g_autofree char *given_name = NULL;

  t->trimmed = g_strdup (source);
  /* "folder/" names the folder itself, as with cp. */
  while (strlen (t->trimmed) > 1 && g_str_has_suffix (t->trimmed, "/"))
    t->trimmed[strlen (t->trimmed) - 1] = '\0';

  given_name = _cs_landing_name (t->trimmed);
  if (read_path != NULL)
    {
      g_free (t->trimmed);
      t->trimmed = g_strdup (read_path);
    }
  t->src_parent = g_path_get_dirname (t->trimmed);
  t->src_name = _cs_io_location_name (t->trimmed);
  if (explicit_target != NULL)
    {
      g_autofree char *target = g_strdup (explicit_target);

      while (strlen (target) > 1 && g_str_has_suffix (target, "/"))
        target[strlen (target) - 1] = '\0';
      t->dst_parent = g_path_get_dirname (target);
      t->dst_name = _cs_io_location_name (target);
    }
  else if (dest_is_dir)
    {
      t->dst_parent = g_strdup (dest);
      t->dst_name = g_steal_pointer (&given_name);
    }
  else
    {
      /* "copy DIR new/": the new folder is "new", as with cp -r. */
      g_autofree char *target = g_strdup (dest);

      while (strlen (target) > 1 && g_str_has_suffix (target, "/"))
        target[strlen (target) - 1] = '\0';
      t->dst_parent = g_path_get_dirname (target);
      t->dst_name = _cs_io_location_name (target);
    }
}

/* For each source, the first source that lands on the same destination path
 * (itself when none does): one string per source, as the sources are. */
static guint *
first_of_each (CsJob    *job,
               gboolean  dest_is_dir)
{
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint *first = g_new (guint, job->sources->len);

  for (guint i = 0; i < job->sources->len; i++)
    {
      Target t = { 0 };
      char *key;
      gpointer found;

      /* A source the check refused lands nowhere and takes no name. */
      if (job->refusals != NULL && g_ptr_array_index (job->refusals, i) != NULL)
        {
          first[i] = i;
          continue;
        }
      source_target (job, i, dest_is_dir, &t);
      key = g_strconcat (t.dst_parent, "/", t.dst_name, NULL);
      target_clear (&t);
      if (g_hash_table_lookup_extended (seen, key, NULL, &found))
        {
          first[i] = GPOINTER_TO_UINT (found);
          g_free (key);
        }
      else
        {
          first[i] = i;
          g_hash_table_insert (seen, key, GUINT_TO_POINTER (i));
        }
    }
  return first;
}

/* Source @t (in @container) lands where the earlier source @first goes, and
 * one of them is not a folder: it is not copied, and said so. */
static void
land_taken (CsJob     *job,
            CsDir     *container,
            Target    *t,
            guint      first,
            gboolean   dest_is_dir)
{
  g_auto(Target) ft = { 0 };
  g_autofree char *message = NULL;
  const char *dst_name = strcmp (t->src_name, t->dst_name) != 0 ? t->dst_name : NULL;
  struct stat st;

  if (_cs_io_fstatat (&job->counters, container->src_fd, t->src_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    {
      _cs_job_report_item (job, NULL, t->trimmed, NULL, 0, FALSE, "open", errno, NULL, 1);
      count_unreadable (job, FALSE);
      return;
    }
  source_target (job, first, dest_is_dir, &ft);
  message = taken_message (container, t->dst_name, ft.trimmed);
  not_held (job, container, t->src_name, dst_name, &st, message);
}

/* When source @i is a folder: the later sources' folders of its destination
 * name, to merge into it (marked in @merged), or NULL. */
static GPtrArray *
merging_sources (CsJob       *job,
                 CsDir       *container,
                 Target      *t,
                 guint        i,
                 const guint *first,
                 gboolean    *merged,
                 gboolean     dest_is_dir)
{
  GPtrArray *later = NULL;
  struct stat st;

  if (_cs_io_fstatat (&job->counters, container->src_fd, t->src_name, &st, AT_SYMLINK_NOFOLLOW) != 0
      || !S_ISDIR (st.st_mode))
    return NULL;
  for (guint k = i + 1; k < job->sources->len; k++)
    {
      g_auto(Target) kt = { 0 };
      CsDir *other;

      if (first[k] != i)
        continue;
      source_target (job, k, dest_is_dir, &kt);
      if (_cs_io_stat_location (kt.trimmed, FALSE, &st) != 0 || !S_ISDIR (st.st_mode))
        continue;
      other = open_container (job, kt.src_parent, kt.dst_parent);
      if (other == NULL)
        continue;
      if (later == NULL)
        later = g_ptr_array_new_with_free_func (later_free);
      g_ptr_array_add (later, later_new (other, kt.src_name));
      _cs_dir_unref (other);
      merged[k] = TRUE;
    }
  return later;
}

/* scanner thread */
void
_cs_scanner_run (CsJob *job)
{
  const char *dest = job->destination;
  g_autofree guint *first = NULL;
  g_autofree gboolean *merged = NULL;
  g_autofree gboolean *has_later = NULL;
  g_autoptr(GHashTable) folded_seen = NULL;
  struct stat dst_st;
  gboolean dest_is_dir;

  dest_is_dir = _cs_io_stat_location (dest, TRUE, &dst_st) == 0 && S_ISDIR (dst_st.st_mode);

  /* cp -r: several sources into a folder that does not exist yet make that
   * folder; so does one when it is copied into the destination. Not when
   * every source was refused: nothing goes there. */
  if (!dest_is_dir && (job->sources->len > 1 || job->into) && !job->settings.dry_run && any_accepted (job))
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

  first = first_of_each (job, dest_is_dir);
  merged = g_new0 (gboolean, job->sources->len);
  has_later = g_new0 (gboolean, job->sources->len);
  for (guint k = 0; k < job->sources->len; k++)
    if (first[k] != k)
      has_later[first[k]] = TRUE;

  for (guint i = 0; i < job->sources->len && !_cs_job_stopping (job); i++)
    {
      const char *source = g_ptr_array_index (job->sources, i);
      const char *refusal = job->refusals != NULL ? g_ptr_array_index (job->refusals, i) : NULL;
      g_auto(Target) t = { 0 };
      g_autoptr(GPtrArray) later = NULL;
      const char *trimmed, *src_parent, *src_name, *dst_parent, *dst_name;
      CsDir *container;
      struct stat src_st;

      /* Refused by the check (cs_job_check_start): this source alone fails. */
      if (refusal != NULL)
        {
          g_autofree char *path = g_strdup (source);
          gboolean folder;

          while (strlen (path) > 1 && g_str_has_suffix (path, "/"))
            path[strlen (path) - 1] = '\0';
          folder = _cs_io_stat_location (path, FALSE, &src_st) == 0 && S_ISDIR (src_st.st_mode);
          _cs_job_report_item (job, NULL, source, NULL, 0, folder, "check", 0, refusal, 1);
          count_unreadable (job, folder);
          continue;
        }
      /* Merged into the folder of an earlier source of its name. */
      if (merged[i])
        continue;
      source_target (job, i, dest_is_dir, &t);
      trimmed = t.trimmed;
      src_parent = t.src_parent;
      src_name = t.src_name;
      dst_parent = t.dst_parent;
      dst_name = t.dst_name;

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
      if (first[i] != i)
        {
          land_taken (job, container, &t, first[i], dest_is_dir);
          _cs_dir_unref (container);
          continue;
        }
      /* Where the destination ignores case, "X" lands on "x" too: the same
       * rule, by the folded name (rule 17's, as inside folders). */
      if (container->fs != NULL && container->fs->case_insensitive)
        {
          g_autofree char *folded = _cs_dest_fs_fold (dst_name);
          char *key = g_strconcat (dst_parent, "/", folded, NULL);
          gpointer earlier;

          if (folded_seen == NULL)
            folded_seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
          if (g_hash_table_lookup_extended (folded_seen, key, NULL, &earlier))
            {
              g_free (key);
              land_taken (job, container, &t, GPOINTER_TO_UINT (earlier), dest_is_dir);
              _cs_dir_unref (container);
              continue;
            }
          g_hash_table_insert (folded_seen, key, GUINT_TO_POINTER (i));
        }
      if (has_later[i])
        later = merging_sources (job, container, &t, i, first, merged, dest_is_dir);
      /* A folder source's own folder is swept when it is entered; what a
       * killed copy of a file left lies beside it, in the container. */
      if (container->dst_fd >= 0 && !job->settings.dry_run
          && _cs_io_fstatat (&job->counters, container->src_fd, src_name, &src_st, AT_SYMLINK_NOFOLLOW) == 0
          && !S_ISDIR (src_st.st_mode))
        prepare_existing_dir (job, container, NULL, NULL);
      /* Every source is copied into the same folder: staging goes there. */
      _cs_stage_setup (job, container->dst_fd);
      if (container->dst_fd >= 0 && _cs_is_remote_filesystem (container->dst_fd))
        atomic_store (&job->dst_remote, 1);
      /* A backend with no flush (smb://): the job says so at its end. */
      if (container->dst_fd >= 0)
        {
          const CsIoTable *backend = _cs_io_backend (container->dst_fd, NULL);

          if (backend != NULL && backend->cannot_flush)
            atomic_store (&job->dst_cannot_flush, 1);
        }
      job->split_big = job->chunking == CS_CHUNKING_ALWAYS
                       || (job->chunking == CS_CHUNKING_AUTO
                           && (_cs_is_remote_filesystem (container->src_fd)
                               || atomic_load (&job->dst_remote)));
      handle_entry (job, container, src_name, strcmp (src_name, dst_name) != 0 ? dst_name : NULL,
                    DT_UNKNOWN, NULL, 0, later);
      _cs_dir_unref (container);
    }
  flush_batch (job);
}

void
_cs_scanner_run_replaced (CsJob     *job,
                          GPtrArray *replaced)
{
  for (guint i = 0; replaced != NULL && i < replaced->len && !_cs_job_stopping (job); i++)
    {
      CsReplaced *r = g_ptr_array_index (replaced, i);
      struct stat st;

      /* A dry run deleted nothing: what it would copy is planned as new. */
      if (job->settings.dry_run
          && _cs_io_fstatat (&job->counters, r->dir->src_fd, r->name, &st, AT_SYMLINK_NOFOLLOW) == 0
          && !S_ISDIR (st.st_mode))
        {
          guint64 size = S_ISREG (st.st_mode) ? (guint64) st.st_size : 0;

          atomic_fetch_add (&job->files_found, 1);
          atomic_fetch_add (&job->bytes_found, size);
          _cs_job_add_total (job, CS_CLASS_TOTAL, 1, size);
          _cs_job_add_total (job, CS_CLASS_COPIED, 1, size);
          atomic_fetch_add (&job->counters.files_done, 1);
          atomic_fetch_add (&job->counters.bytes_done, size);
          plan (job, "copy", r->dir, r->name, r->dst_name != NULL ? r->dst_name : r->name);
          continue;
        }
      handle_entry (job, r->dir, r->name, r->dst_name, DT_UNKNOWN, NULL, r->depth, NULL);
    }
  flush_batch (job);
  g_clear_pointer (&replaced, g_ptr_array_unref);
}
