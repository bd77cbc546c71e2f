/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-scanner"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "cs-scanner-leftovers-private.h"
#include "cs-dest-fs-private.h"
#include "cs-dest-listing-private.h"
#include "cs-dir-private.h"
#include "cs-job-private.h"
#include "cs-names-private.h"
#include "cs-resume-private.h"
#include "cs-stage-private.h"

/*
 * A destination folder that exists already, as the scanner finds it: what
 * earlier runs of ours left there after a crash (temporaries, claims' intents,
 * staging folders) removed once their run is gone, partials kept for the
 * files they belong to, and the other names remembered, so that what the
 * source no longer has counts as Extras once the source folder is read.
 */

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

  if (job->setup.settings.dry_run || _cs_name_run_alive (name))
    return;
  if (_cs_name_is_our_stage (name))
    {
      _cs_stage_remove_leftover (job, dir->dst_fd, name);
      return;
    }
  if (_cs_io_fstatat (&job->counters, dir->dst_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0
      || S_ISDIR (st.st_mode) || st.st_uid != job->life.euid)
    return;
  if (_cs_name_claim_hash (name, &hash))
    _cs_dir_add_claim (dir, hash, &st.st_ctim);
  _cs_io_unlinkat (&job->counters, dir->dst_fd, name, 0);
}

/* A name as the destination folder's filesystem compares names: folded
 * where it ignores case. */
char *
_cs_scanner_dest_key (CsDir      *dir,
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
/* One entry @name of @dir's existing destination folder (@d_type as listed). */
static void
note_existing (CsJob        *job,
               CsDir        *dir,
               const char   *name,
               unsigned char d_type,
               GHashTable   *names,
               GHashTable   *types)
{
  if (_cs_name_is_our_temp (name) || _cs_name_is_our_stage (name))
    {
      _cs_dir_note_written (dir);
      remove_leftover (job, dir, name);
    }
  else if (_cs_name_is_resume (name, NULL))
    {
      if (job->setup.settings.dry_run)
        return;
      /* Kept for the file it belongs to; swept once the folder is read. */
      if (dir->resumes == NULL)
        dir->resumes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_hash_table_add (dir->resumes, g_strdup (name));
    }
  else if (names != NULL)
    {
      g_hash_table_insert (names, _cs_scanner_dest_key (dir, name), g_strdup (name));
      if (types != NULL && d_type != DT_UNKNOWN)
        g_hash_table_insert (types, g_strdup (name), GUINT_TO_POINTER ((guint) d_type));
    }
}

/*
 * Lists an existing destination folder before we write into it: removes the
 * temporaries (files, and the symlinks written for links) and staging folders
 * that earlier runs of ours left after a crash (the pattern is ours, so is the
 * owner, and the run is gone), and, when @names is given, remembers the other
 * names so what is left once the source folder is read counts as Extras.
 */
void
_cs_scanner_prepare_existing_dir (CsJob      *job,
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

          off += d->d_reclen;
          if (strcmp (d->d_name, ".") != 0 && strcmp (d->d_name, "..") != 0)
            note_existing (job, dir, d->d_name, d->d_type, names, types);
        }
    }
  _cs_io_close (&job->counters, fd);
}

GHashTable *
_cs_scanner_prepare_listed_dir (CsJob      *job,
                                CsDir      *dir,
                                GHashTable *names,
                                GHashTable *types)
{
  g_autoptr(GPtrArray) entries = _cs_dest_listing_read (job, dir);
  GHashTable *stats;

  if (entries == NULL)
    return NULL;
  /* The listed name → its CsIoListed, which the table then owns. */
  stats = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_ptr_array_set_free_func (entries, NULL);
  for (guint i = 0; i < entries->len; i++)
    {
      CsIoListed *listed = g_ptr_array_index (entries, i);

      note_existing (job, dir, listed->name, IFTODT (listed->st.st_mode), names, types);
      g_hash_table_replace (stats, listed->name, listed);
    }
  return stats;
}

void
_cs_scanner_count_extras (CsJob      *job,
                          CsDir      *dir,
                          GHashTable *names,
                          GHashTable *stats)
{
  GHashTableIter iter;
  gpointer listed;

  g_hash_table_iter_init (&iter, names);
  while (g_hash_table_iter_next (&iter, NULL, &listed))
    {
      CsIoListed *known = stats != NULL ? g_hash_table_lookup (stats, listed) : NULL;
      struct stat st;

      /* Counted only: the listing's word is enough. */
      if (known != NULL)
        st = known->st;
      else if (_cs_io_fstatat (&job->counters, dir->dst_fd, listed, &st, AT_SYMLINK_NOFOLLOW) != 0)
        continue;
      if (S_ISDIR (st.st_mode))
        _cs_job_add_dir_total (job, CS_CLASS_EXTRAS);
      else
        _cs_job_add_total (job, CS_CLASS_EXTRAS, 1, (guint64) st.st_size);
    }
}
