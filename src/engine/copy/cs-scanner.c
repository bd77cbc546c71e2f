/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-scanner"

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "cs-scanner-private.h"
#include "cs-dest-fs-private.h"
#include "cs-decide-batch-private.h"
#include "cs-dest-listing-private.h"
#include "cs-dir-private.h"
#include "cs-job-private.h"
#include "cs-mirror-private.h"
#include "cs-move-private.h"
#include "cs-scanner-claims-private.h"
#include "cs-scanner-leftovers-private.h"
#include "cs-scanner-walk-private.h"
#include "cs-stage-private.h"

/*
 * The scanner: where each source lands (its folder and name at the
 * destination, and which earlier source a later one of the same name merges
 * into or gives way to), then the walk of each (cs-scanner-walk.c), which
 * asks cs-scanner-claims.c which names it may take and
 * cs-scanner-leftovers.c to clear what a killed run left.
 */

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
  if (dir->src_fd < 0 || (dir->dst_fd < 0 && !job->setup.settings.dry_run))
    {
      _cs_dir_unref (dir);
      return NULL;
    }
  _cs_dir_note_source (job, dir, NULL);
  if (job->setup.settings.operation == CS_OPERATION_MOVE)
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
  if (errno != ENOENT || !job->setup.into)
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
  for (guint i = 0; job->check.refusals != NULL && i < job->check.refusals->len; i++)
    if (g_ptr_array_index (job->check.refusals, i) == NULL)
      return TRUE;
  return job->check.refusals == NULL;
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
  const char *source = g_ptr_array_index (job->setup.sources, i);
  const char *explicit_target = g_ptr_array_index (job->setup.source_targets, i);
  const char *read_path = job->check.read_paths != NULL ? g_ptr_array_index (job->check.read_paths, i) : NULL;
  const char *dest = job->setup.destination;
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
  guint *first = g_new (guint, job->setup.sources->len);

  for (guint i = 0; i < job->setup.sources->len; i++)
    {
      Target t = { 0 };
      char *key;
      gpointer found;

      /* A source the check refused lands nowhere and takes no name. */
      if (job->check.refusals != NULL && g_ptr_array_index (job->check.refusals, i) != NULL)
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
      _cs_scanner_count_unreadable (job, FALSE);
      return;
    }
  source_target (job, first, dest_is_dir, &ft);
  message = _cs_scanner_taken_message (container, t->dst_name, ft.trimmed);
  _cs_scanner_not_held (job, container, t->src_name, dst_name, &st, message);
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
  for (guint k = i + 1; k < job->setup.sources->len; k++)
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
        later = g_ptr_array_new_with_free_func (_cs_scanner_later_free);
      g_ptr_array_add (later, _cs_scanner_later_new (other, kt.src_name));
      _cs_dir_unref (other);
      merged[k] = TRUE;
    }
  return later;
}

/* scanner thread */
void
_cs_scanner_run (CsJob *job)
{
  const char *dest = job->setup.destination;
  g_autofree guint *first = NULL;
  g_autofree gboolean *merged = NULL;
  g_autofree gboolean *has_later = NULL;
  g_autoptr(GHashTable) folded_seen = NULL;
  struct stat dst_st;
  gboolean dest_is_dir;
  gboolean dest_made = FALSE;

  dest_is_dir = _cs_io_stat_location (dest, TRUE, &dst_st) == 0 && S_ISDIR (dst_st.st_mode);

  /* cp -r: several sources into a folder that does not exist yet make that
   * folder; so does one when it is copied into the destination. Not when
   * every source was refused: nothing goes there. */
  if (!dest_is_dir && (job->setup.sources->len > 1 || job->setup.into) && !job->setup.settings.dry_run && any_accepted (job))
    {
      if (make_destination (job, dest) != 0)
        {
          g_autofree char *message = g_strdup_printf ("Cannot create the destination folder: %s",
                                                      g_strerror (errno));
          _cs_job_fatal (job, message);
          return;
        }
      dest_is_dir = TRUE;
      dest_made = TRUE;
    }
  else if (!dest_is_dir && (job->setup.sources->len > 1 || job->setup.into))
    dest_is_dir = TRUE;

  first = first_of_each (job, dest_is_dir);
  merged = g_new0 (gboolean, job->setup.sources->len);
  has_later = g_new0 (gboolean, job->setup.sources->len);
  for (guint k = 0; k < job->setup.sources->len; k++)
    if (first[k] != k)
      has_later[first[k]] = TRUE;

  for (guint i = 0; i < job->setup.sources->len && !_cs_job_stopping (job); i++)
    {
      const char *source = g_ptr_array_index (job->setup.sources, i);
      const char *refusal = job->check.refusals != NULL ? g_ptr_array_index (job->check.refusals, i) : NULL;
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
          _cs_scanner_count_unreadable (job, folder);
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
          _cs_scanner_count_unreadable (job, folder);
          continue;
        }
      if (job->setup.settings.dry_run && container->dst_fd < 0)
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
      if (container->dst_fd >= 0 && !job->setup.settings.dry_run
          && _cs_io_fstatat (&job->counters, container->src_fd, src_name, &src_st, AT_SYMLINK_NOFOLLOW) == 0
          && !S_ISDIR (src_st.st_mode))
        _cs_scanner_prepare_existing_dir (job, container, NULL, NULL);
      /* Every source is copied into the same folder: staging goes there.
       * Its listing, if the setup made one, is the container's: a source
       * given as "SRC/." walks this very folder (enter_dir). */
      /* "SRC/." is walked in the container itself, which the setup lists;
       * a folder this run made has nothing to list. */
      if (strcmp (dst_name, ".") == 0 && !dest_made)
        _cs_dest_listing_start_early (job, container);
      _cs_stage_setup (job, container->dst_fd, &container->dst_listed);
      if (container->dst_fd >= 0 && _cs_is_remote_filesystem (container->dst_fd))
        atomic_store (&job->dest.dst_remote, 1);
      /* A backend with no flush (smb://): the job says so at its end. One
       * that can neither rename without replacing nor link publishes by a
       * claim from the first file on: learnt from the first files' tries
       * instead, a rerun that only replaces files never learnt it, and
       * every file it wrote went through a staging folder of its worker
       * (a folder made, asked about and removed, a rename between folders:
       * on a share, requests each file and worker paid for nothing). */
      if (container->dst_fd >= 0)
        {
          const CsIoTable *backend = _cs_io_backend (container->dst_fd, NULL);

          if (backend != NULL && backend->cannot_flush)
            atomic_store (&job->dest.dst_cannot_flush, 1);
          if (backend != NULL && backend->replace_deletes_first)
            {
              atomic_store (&job->caps.no_noreplace, 1);
              atomic_store (&job->caps.no_link, 1);
            }
        }
      job->scan.split_big = job->setup.chunking == CS_CHUNKING_ALWAYS
                       || (job->setup.chunking == CS_CHUNKING_AUTO
                           && (_cs_is_remote_filesystem (container->src_fd)
                               || _cs_job_destination_remote (job)));
      _cs_scanner_handle_entry (job, container, src_name, strcmp (src_name, dst_name) != 0 ? dst_name : NULL,
                                DT_UNKNOWN, NULL, 0, later);
      /* Listed early in the container, where its walk did not keep them. */
      _cs_dest_listing_end_early (job);
      _cs_dir_unref (container);
    }
  _cs_scanner_flush_batch (job);
  _cs_decide_batch_flush (job);
  _cs_dest_listing_finish (job);
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
      if (job->setup.settings.dry_run
          && _cs_io_fstatat (&job->counters, r->dir->src_fd, r->name, &st, AT_SYMLINK_NOFOLLOW) == 0
          && !S_ISDIR (st.st_mode))
        {
          guint64 size = S_ISREG (st.st_mode) ? (guint64) st.st_size : 0;

          atomic_fetch_add (&job->tally.files_found, 1);
          atomic_fetch_add (&job->tally.bytes_found, size);
          _cs_job_add_total (job, CS_CLASS_TOTAL, 1, size);
          _cs_job_add_total (job, CS_CLASS_COPIED, 1, size);
          atomic_fetch_add (&job->counters.files_done, 1);
          atomic_fetch_add (&job->counters.bytes_done, size);
          _cs_scanner_plan (job, "copy", r->dir, r->name, r->dst_name != NULL ? r->dst_name : r->name);
          continue;
        }
      _cs_scanner_handle_entry (job, r->dir, r->name, r->dst_name, DT_UNKNOWN, NULL, r->depth, NULL);
    }
  _cs_scanner_flush_batch (job);
  _cs_decide_batch_flush (job);
  _cs_dest_listing_finish (job);
  g_clear_pointer (&replaced, g_ptr_array_unref);
}
