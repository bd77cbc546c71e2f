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


/* The job's check before anything is written: each source against the
 * destination, the refusals kept for the run (cs-job-check.c). */

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
  const char *source = g_ptr_array_index (self->setup.sources, i);
  const char *explicit_target = g_ptr_array_index (self->setup.source_targets, i);
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
  if (self->setup.settings.operation == CS_OPERATION_MOVE && is_dot_name (trimmed))
    return g_strdup (_("A move cannot take “.” or “..”: name the folder itself"));
  /* mv renames the link itself, and refuses "link/", which would move the
   * folder it points to away from its other name. */
  if (self->setup.settings.operation == CS_OPERATION_MOVE && strcmp (read_path, trimmed) != 0)
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
  else if (dest_is_dir || self->setup.into)
    {
      g_autofree char *base = _cs_landing_name (trimmed);
      target = _cs_io_location_child (self->setup.destination, base);
    }
  else
    target = g_strdup (self->setup.destination);

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

  if (self->setup.settings.operation == CS_OPERATION_MIRROR && !S_ISDIR (st.st_mode))
    {
      *out_code = CS_JOB_ERROR_INVALID;
      return g_strdup ("A mirror makes a folder match a folder, and this is not a folder");
    }
  /* Everything in a mirror's destination that its source lacks goes: the
   * source itself, if it lay there. */
  if (self->setup.settings.operation == CS_OPERATION_MIRROR && _cs_io_stat_location (target, TRUE, &tst) == 0
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
        existing = g_strdup (self->setup.destination);
      else
        {
          g_autofree char *dest = trim_slashes (self->setup.destination);

          existing = g_path_get_dirname (dest);
        }
      if (is_ancestor_or_self (&st, existing))
        {
          *out_code = CS_JOB_ERROR_INSIDE_SOURCE;
          *out_path = g_strdup (explicit_target != NULL ? target : self->setup.destination);
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

  if (self->setup.sources->len == 0)
    return set_error (error, CS_JOB_ERROR_INVALID, NULL, "No source was given");
  if (self->setup.destination == NULL)
    return set_error (error, CS_JOB_ERROR_INVALID, NULL, "No destination was given");
  if (self->setup.settings.threads < CS_JOB_MIN_THREADS || self->setup.settings.threads > CS_JOB_MAX_THREADS)
    return set_error (error, CS_JOB_ERROR_INVALID, NULL, "The thread count must be between %d and %d",
                      CS_JOB_MIN_THREADS, CS_JOB_MAX_THREADS);

  dest_exists = _cs_io_stat_location (self->setup.destination, TRUE, &dst_st) == 0;
  dest_errno = errno;
  dest_is_dir = dest_exists && S_ISDIR (dst_st.st_mode);

  if (!dest_exists)
    {
      g_autofree char *trimmed = trim_slashes (self->setup.destination);
      g_autofree char *parent = g_path_get_dirname (trimmed);
      g_autofree char *why = NULL;
      struct stat pst;

      /* ENOTDIR: a file stands where one of its folders should be, said below. */
      if (dest_errno != ENOENT && !(self->setup.into && dest_errno == ENOTDIR))
        return set_error (error, CS_JOB_ERROR_DESTINATION, self->setup.destination, "%s", g_strerror (dest_errno));
      if (dest_errno == ENOENT && (why = _cs_io_explain_missing (self->setup.destination)) != NULL)
        return set_error (error, CS_JOB_ERROR_DESTINATION, self->setup.destination, "%s", why);
      /* Copy Into makes the folders above it that are missing too (the
       * window says so under the destination); the nearest one there must
       * be a folder. */
      while (self->setup.into && _cs_io_stat_location (parent, TRUE, &pst) != 0 && (errno == ENOENT || errno == ENOTDIR)
             && strcmp (parent, "/") != 0 && strcmp (parent, ".") != 0)
        {
          char *up = g_path_get_dirname (parent);

          g_free (parent);
          parent = up;
        }
      if (self->setup.into && _cs_io_stat_location (parent, TRUE, &pst) == 0 && !S_ISDIR (pst.st_mode))
        return set_error (error, CS_JOB_ERROR_DESTINATION, self->setup.destination,
                          _("%s is a file, so no folder can be made in it"), parent);
      if (self->setup.into && _cs_io_is_path (parent) && _cs_io_stat_location (parent, TRUE, &pst) == 0
          && access (parent, W_OK | X_OK) != 0)
        return set_error (error, CS_JOB_ERROR_DESTINATION, self->setup.destination,
                          _("No folder can be made in %s: %s"), parent, g_strerror (errno));
      if (_cs_io_stat_location (parent, TRUE, &pst) != 0 || !S_ISDIR (pst.st_mode))
        return set_error (error, CS_JOB_ERROR_DESTINATION, self->setup.destination,
                          _("The folder that should contain the destination does not exist"));
    }
  else if (!dest_is_dir && self->setup.sources->len > 1)
    return set_error (error, CS_JOB_ERROR_DESTINATION, self->setup.destination,
                      "Several sources need a destination folder, and this is a file");
  else if (!dest_is_dir && self->setup.into)
    return set_error (error, CS_JOB_ERROR_DESTINATION, self->setup.destination,
                      "The destination is a file, not a folder to copy into");

  seen = g_array_new (FALSE, FALSE, sizeof (Seen));
  g_array_set_clear_func (seen, seen_clear);
  g_clear_pointer (&self->check.refusals, g_ptr_array_unref);
  g_clear_pointer (&self->check.read_paths, g_ptr_array_unref);
  self->check.refusals = g_ptr_array_new_full (self->setup.sources->len, g_free);
  self->check.read_paths = g_ptr_array_new_full (self->setup.sources->len, g_free);

  for (guint i = 0; i < self->setup.sources->len; i++)
    {
      g_autofree char *path = NULL;
      char *read_path = NULL;
      CsJobErrorCode code;
      g_autofree char *why = check_source (self, i, dest_exists, dest_is_dir, seen, &code, &path, &read_path);

      g_ptr_array_add (self->check.read_paths, read_path);
      if (why != NULL && (!per_item || !is_per_item (code)))
        return set_error (error, code, path != NULL ? path : g_ptr_array_index (self->setup.sources, i), "%s", why);
      g_ptr_array_add (self->check.refusals, g_steal_pointer (&why));
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

