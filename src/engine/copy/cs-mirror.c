/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-mirror"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "cs-deletions-private.h"
#include "cs-mirror-private.h"
#include "cs-names-private.h"

#define DENTS_BUFFER_SIZE (32 * 1024)

void
_cs_mirror_add_root (CsJob *job,
                     CsDir *dir)
{
  g_autofree char *path = NULL;
  struct stat st;

  if (job->mirror.deletions == NULL || dir->dst_fd < 0
      || _cs_io_fstat (&job->counters, dir->dst_fd, &st) != 0)
    return;
  path = _cs_dir_dup_path (dir, NULL, TRUE);
  dir->mirror_root = (int) _cs_deletions_add_root (job->mirror.deletions, path, &st);
  dir->is_mirror_root = TRUE;
}

/* @name in @dir's destination, relative to the mirror's root. */
static char *
rel_path (CsDir      *dir,
          const char *name)
{
  g_autoptr(GPtrArray) parts = g_ptr_array_new ();
  GString *out = g_string_new (NULL);

  for (CsDir *d = dir; d != NULL && !d->is_mirror_root; d = d->parent)
    g_ptr_array_insert (parts, 0, d->dst_name);
  for (guint i = 0; i < parts->len; i++)
    {
      g_string_append (out, g_ptr_array_index (parts, i));
      g_string_append_c (out, '/');
    }
  /* The folder itself: "." for the root, "a/b" below it. */
  if (name == NULL)
    {
      if (out->len == 0)
        g_string_append_c (out, '.');
      else
        g_string_truncate (out, out->len - 1);
    }
  else
    g_string_append (out, name);
  return g_string_free (out, FALSE);
}

static void
not_deleted (CsJob      *job,
             const char *path,
             gboolean    folder,
             int         code,
             const char *message)
{
  atomic_fetch_add (&job->tally.not_deleted, 1);
  _cs_run_add_error (job->life.run, path, "delete", code, message, 1);
  _cs_job_log_path (job, path, folder, "failed", 0, message);
}

/* A folder across which nothing is deleted: another filesystem, or a bind
 * mount, is mounted there. */
static gboolean
is_mount_point (CsJob      *job,
                int         parent_fd,
                const char *name)
{
  return _cs_io_mount_root (&job->counters, parent_fd, name) != 0;
}

/* Lists the extra folder @name in @parent_fd (@rel below the root) and
 * everything in it, its contents first; FALSE when something in it stays,
 * and so the folder and those above it. */
static gboolean
list_folder (CsJob             *job,
             guint              root,
             int                parent_fd,
             const char        *name,
             const char        *rel,
             const struct stat *st)
{
  g_autofree guint8 *buf = NULL;
  gboolean complete = TRUE;
  gboolean excluded = FALSE;
  ssize_t n;
  int fd;

  fd = _cs_io_openat (&job->counters, parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
  if (fd < 0)
    return FALSE;
  buf = g_malloc (DENTS_BUFFER_SIZE);
  while ((n = _cs_io_getdents (&job->counters, fd, buf, DENTS_BUFFER_SIZE)) > 0)
    for (ssize_t off = 0; off < n;)
      {
        struct linux_dirent64 *d = (struct linux_dirent64 *) (buf + off);
        g_autofree char *child = NULL;
        struct stat cst;

        off += d->d_reclen;
        if (strcmp (d->d_name, ".") == 0 || strcmp (d->d_name, "..") == 0)
          continue;
        if (_cs_job_is_excluded (job, d->d_name))
          {
            excluded = TRUE;
            complete = FALSE;
            continue;
          }
        if (_cs_io_fstatat (&job->counters, fd, d->d_name, &cst, AT_SYMLINK_NOFOLLOW) != 0)
          {
            complete = FALSE;
            continue;
          }
        /* A copy in progress writes here: its temporaries stay, and so the
         * folder. Those of a run that died are leftovers like any other. */
        if ((_cs_name_is_our_temp (d->d_name) || _cs_name_is_our_stage (d->d_name))
            && (cst.st_uid != job->life.euid || _cs_name_run_alive (d->d_name)))
          {
            complete = FALSE;
            continue;
          }
        child = g_build_filename (rel, d->d_name, NULL);
        if (S_ISDIR (cst.st_mode))
          {
            if (is_mount_point (job, fd, d->d_name))
              {
                g_autofree char *path = g_build_filename (_cs_deletions_get_root (job->mirror.deletions, root, NULL),
                                                          child, NULL);

                not_deleted (job, path, TRUE, 0,
                             "Not deleted: another filesystem is mounted here, and a mirror deletes "
                             "nothing across a mount point");
                complete = FALSE;
                continue;
              }
            /* A folder kept keeps the folders around it. */
            if (!list_folder (job, root, fd, d->d_name, child, &cst))
              complete = FALSE;
          }
        else
          _cs_deletions_add (job->mirror.deletions, root, child, &cst);
      }
  if (n < 0)
    complete = FALSE;
  _cs_io_close (&job->counters, fd);
  /* A folder that keeps something is not listed: it is never emptied. As
   * rsync does, it stays without an error, and the note says why. */
  if (complete)
    _cs_deletions_add (job->mirror.deletions, root, rel, st);
  else if (excluded)
    {
      g_autofree char *path = g_build_filename (_cs_deletions_get_root (job->mirror.deletions, root, NULL),
                                                rel, NULL);

      _cs_run_add_note (job->life.run, path, "delete", 0,
                        "Kept: its source folder is gone, but it holds names the mirror "
                        "excludes (--exclude), which a mirror never deletes");
    }
  return complete;
}

void
_cs_mirror_note_extras (CsJob      *job,
                        CsDir      *dir,
                        GHashTable *existing)
{
  GHashTableIter iter;
  gpointer key;
  guint64 before;

  if (job->mirror.deletions == NULL || dir->mirror_root < 0 || dir->dst_fd < 0)
    return;
  before = _cs_deletions_count (job->mirror.deletions);

  g_hash_table_iter_init (&iter, existing);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      const char *name = key;
      g_autofree char *rel = NULL;
      struct stat st;

      /* Excluded names are outside the mirror, at the destination too; the
       * manifest this run writes there is no extra either. */
      if (_cs_job_is_excluded (job, name) || _cs_manifest_is_self (job, dir, name)
          || _cs_io_fstatat (&job->counters, dir->dst_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        continue;
      rel = rel_path (dir, name);
      if (S_ISDIR (st.st_mode))
        {
          if (is_mount_point (job, dir->dst_fd, name))
            {
              g_autofree char *path = _cs_dir_dup_path (dir, name, TRUE);

              not_deleted (job, path, TRUE, 0,
                           "Not deleted: another filesystem is mounted here, and a mirror deletes "
                           "nothing across a mount point");
              continue;
            }
          list_folder (job, (guint) dir->mirror_root, dir->dst_fd, name, rel, &st);
        }
      else
        _cs_deletions_add (job->mirror.deletions, (guint) dir->mirror_root, rel, &st);
    }
  /* Deleting in it changes its times, which were its source folder's. */
  if (_cs_deletions_count (job->mirror.deletions) > before)
    {
      g_autofree char *self_rel = rel_path (dir, NULL);

      _cs_deletions_add_folder (job->mirror.deletions, (guint) dir->mirror_root, self_rel, &dir->st);
    }
}

/* Entries of another type kept for after the deletions: each holds its
 * folder open, so not without bound; the rest fail, named, until a rerun. */
#define REPLACED_MAX 1024

gboolean
_cs_mirror_replace (CsJob             *job,
                    CsDir             *dir,
                    const char        *name,
                    const char        *dst_name,
                    const char        *listed,
                    const struct stat *dst,
                    guint              depth)
{
  g_autofree char *rel = NULL;
  CsReplaced *r;

  if (job->mirror.deletions == NULL || dir->mirror_root < 0 || dir->dst_fd < 0
      || _cs_job_is_excluded (job, listed))
    return FALSE;
  if (job->mirror.mirror_replaced == NULL)
    job->mirror.mirror_replaced = g_ptr_array_new_with_free_func ((GDestroyNotify) _cs_mirror_replaced_free);
  if (job->mirror.mirror_replaced->len >= REPLACED_MAX)
    return FALSE;

  rel = rel_path (dir, listed);
  if (S_ISDIR (dst->st_mode))
    {
      if (is_mount_point (job, dir->dst_fd, listed))
        {
          g_autofree char *path = _cs_dir_dup_path (dir, listed, TRUE);

          not_deleted (job, path, TRUE, 0,
                       "Not deleted: another filesystem is mounted here, and a mirror deletes "
                       "nothing across a mount point");
          return FALSE;
        }
      list_folder (job, (guint) dir->mirror_root, dir->dst_fd, listed, rel, dst);
    }
  else
    _cs_deletions_add (job->mirror.deletions, (guint) dir->mirror_root, rel, dst);

  r = g_new0 (CsReplaced, 1);
  r->dir = _cs_dir_ref (dir);
  r->name = g_strdup (name);
  r->dst_name = g_strdup (dst_name);
  r->depth = depth;
  g_ptr_array_add (job->mirror.mirror_replaced, r);
  return TRUE;
}

GPtrArray *
_cs_mirror_take_replaced (CsJob *job)
{
  return g_steal_pointer (&job->mirror.mirror_replaced);
}

void
_cs_mirror_replaced_free (CsReplaced *replaced)
{
  _cs_dir_unref (replaced->dir);
  g_free (replaced->name);
  g_free (replaced->dst_name);
  g_free (replaced);
}

/* The folder @rel ("." for the root itself) below @root_fd, reached one
 * component at a time, none of them followed if it is a link. */
static int
open_below (CsJob      *job,
            int         root_fd,
            const char *rel)
{
  g_auto(GStrv) parts = g_strsplit (rel, "/", -1);
  int fd = _cs_io_openat (&job->counters, root_fd, ".", O_RDONLY | O_DIRECTORY, 0);

  for (guint i = 0; parts[i] != NULL && fd >= 0; i++)
    {
      int next;

      if (parts[i][0] == '\0' || strcmp (parts[i], ".") == 0)
        continue;
      next = _cs_io_openat (&job->counters, fd, parts[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
      _cs_io_close (&job->counters, fd);
      fd = next;
    }
  return fd;
}

static gboolean
still_listed (const CsExtra     *e,
              const struct stat *now)
{
  if ((now->st_mode & S_IFMT) != e->type || now->st_dev != e->dev || now->st_ino != e->ino)
    return FALSE;
  /* A folder's time moved as its contents went. */
  if (e->type == S_IFDIR)
    return TRUE;
  return (e->type != S_IFREG || (guint64) now->st_size == e->size)
         && now->st_mtim.tv_sec == e->mtime.tv_sec && now->st_mtim.tv_nsec == e->mtime.tv_nsec;
}

/* Deletes the listed extras, each only if it is still what was listed. */
static void
delete_listed (CsJob       *job,
               CsDeletions *deletions)
{
  g_autofree char *parent_rel = NULL;
  guint root = G_MAXUINT;
  int root_fd = -1, parent_fd = -1;
  CsExtra e;

  for (guint i = 0; _cs_deletions_get (deletions, i, &e) && !_cs_job_stopping (job); i++)
    {
      const char *rel = e.path + e.rel;
      g_autofree char *dir_rel = g_path_get_dirname (rel);
      g_autofree char *base = g_path_get_basename (rel);
      gboolean folder = e.type == S_IFDIR;
      struct stat now;

      if (!_cs_limiter_take (&job->limits.file_limit, 1))
        break;
      if (e.root != root)
        {
          struct stat listed, st;
          const char *root_path = _cs_deletions_get_root (deletions, e.root, &listed);

          if (root_fd >= 0)
            _cs_io_close (&job->counters, root_fd);
          root = e.root;
          root_fd = _cs_io_openat (&job->counters, CS_IO_AT_LOCATION, root_path, O_RDONLY | O_DIRECTORY, 0);
          /* The same folder the copy went into, or none at all. */
          if (root_fd >= 0 && (_cs_io_fstat (&job->counters, root_fd, &st) != 0
                               || st.st_dev != listed.st_dev || st.st_ino != listed.st_ino))
            {
              _cs_io_close (&job->counters, root_fd);
              root_fd = -1;
            }
          g_clear_pointer (&parent_rel, g_free);
        }
      if (root_fd < 0)
        {
          not_deleted (job, e.path, folder, errno, "Not deleted: the destination folder is no longer the one listed");
          continue;
        }
      if (g_strcmp0 (parent_rel, dir_rel) != 0)
        {
          if (parent_fd >= 0)
            _cs_io_close (&job->counters, parent_fd);
          parent_fd = open_below (job, root_fd, dir_rel);
          g_free (parent_rel);
          parent_rel = g_strdup (dir_rel);
        }
      if (parent_fd < 0)
        {
          not_deleted (job, e.path, folder, errno,
                       errno == ELOOP || errno == ENOTDIR
                       ? "Not deleted: a symbolic link now stands where a folder was listed; it was not followed"
                       : "Not deleted: its folder could not be opened");
          continue;
        }
      if (_cs_io_fstatat (&job->counters, parent_fd, base, &now, AT_SYMLINK_NOFOLLOW) != 0)
        {
          if (errno != ENOENT)
            not_deleted (job, e.path, folder, errno, "Not deleted: it could not be looked at");
          continue;
        }
      if (!still_listed (&e, &now) || (folder && is_mount_point (job, parent_fd, base)))
        {
          not_deleted (job, e.path, folder, 0, "Not deleted: it changed after it was listed");
          continue;
        }
      if (_cs_io_unlinkat (&job->counters, parent_fd, base, folder ? AT_REMOVEDIR : 0) != 0)
        {
          int code = errno;

          not_deleted (job, e.path, folder, code,
                       code == ENOTEMPTY || code == EEXIST
                       ? "Not deleted: something was put in this folder after it was listed"
                       : g_strerror (code));
          continue;
        }
      if (folder)
        atomic_fetch_add (&job->tally.deleted_dirs, 1);
      else
        {
          atomic_fetch_add (&job->tally.deleted_files, 1);
          atomic_fetch_add (&job->tally.deleted_bytes, e.size);
        }
      _cs_job_log_path (job, e.path, folder, "deleted", e.size, NULL);
    }
  if (parent_fd >= 0)
    _cs_io_close (&job->counters, parent_fd);
  if (root_fd >= 0)
    _cs_io_close (&job->counters, root_fd);
}

/* The folders the deletions changed get their source folders' times back. */
static void
retouch_folders (CsJob       *job,
                 CsDeletions *deletions)
{
  struct timespec times[2];
  const char *rel;
  guint root;

  for (guint i = 0; _cs_deletions_get_folder (deletions, i, &root, &rel, times); i++)
    {
      struct stat listed, st;
      const char *root_path = _cs_deletions_get_root (deletions, root, &listed);
      int root_fd = _cs_io_openat (&job->counters, CS_IO_AT_LOCATION, root_path, O_RDONLY | O_DIRECTORY, 0);
      int fd = -1;

      if (root_fd >= 0 && _cs_io_fstat (&job->counters, root_fd, &st) == 0
          && st.st_dev == listed.st_dev && st.st_ino == listed.st_ino)
        fd = open_below (job, root_fd, rel);
      if (fd >= 0 && _cs_io_futimens (&job->counters, fd, times) != 0)
        {
          g_autofree char *path = g_build_filename (root_path, rel, NULL);

          _cs_job_report (job, NULL, path, "set times", errno, NULL, 1);
        }
      if (fd >= 0)
        _cs_io_close (&job->counters, fd);
      if (root_fd >= 0)
        _cs_io_close (&job->counters, root_fd);
    }
}

void
_cs_mirror_finish (CsJob *job)
{
  CsDeletions *deletions = job->mirror.deletions;
  guint64 count;
  gint64 max;

  if (deletions == NULL)
    return;
  count = _cs_deletions_count (deletions);
  max = cs_deletions_get_max (deletions);

  if (job->setup.settings.dry_run)
    {
      CsExtra e;

      for (guint i = 0; job->setup.plan_func != NULL && _cs_deletions_get (deletions, i, &e); i++)
        job->setup.plan_func (e.type == S_IFDIR ? "delete folder" : "delete", NULL, e.path, job->setup.plan_data);
    }
  if (count == 0 || _cs_job_stopping (job))
    return;

  if (cs_deletions_get_over_max (deletions))
    {
      g_autofree char *message = NULL;

      if (max == 0)
        message = g_strdup_printf ("%" G_GUINT64_FORMAT " extras are listed; with a maximum of 0 "
                                   "deletions, none was deleted", count);
      else
        message = g_strdup_printf ("The mirror would delete %" G_GUINT64_FORMAT " files and folders, "
                                   "more than the maximum of %" G_GINT64_FORMAT " (--max-delete); "
                                   "nothing was deleted", count, max);
      atomic_fetch_add (&job->tally.not_deleted, count);
      if (max != 0)
        _cs_run_add_error (job->life.run, job->setup.destination, "delete", 0, message, 1);
      return;
    }
  if (job->setup.settings.dry_run)
    return;

  if (job->setup.confirm_deletions && !_cs_job_confirm_deletions (job, deletions))
    {
      atomic_fetch_add (&job->tally.not_deleted, count);
      return;
    }
  delete_listed (job, deletions);
  retouch_folders (job, deletions);
}
