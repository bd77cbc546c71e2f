/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-kept"

#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "cs-io-private.h"
#include "cs-kept.h"
#include "cs-names-private.h"
#include "cs-resume-private.h"
#include "cs-task-private.h"

/*
 * A copy's kept partials, found before it starts: a partial lies beside the
 * final name it is for, named after that name's hash
 * (cs-resume-private.h), so this walks the destination's side of the copy —
 * only folders that exist in the source too — and reads a folder's source
 * side only where a journal lies. A destination the copy has not reached
 * costs one open; a rerun onto a tree that is there, one listing per folder
 * up to CS_KEPT_MAX_FOLDERS, after which the window says nothing more rather
 * than keep a share busy for a hint. Each journal found is read (its header
 * against the source file's identity, its records), none of the partial's
 * bytes: the run proves those when it goes on.
 */

#define DENTS_BUFFER_SIZE (32 * 1024)
/* Two handles held per level. */
#define MAX_DEPTH         64

struct _CsKeptPartial {
  gatomicrefcount  ref;
  char            *path;
  guint64          kept;
  guint64          size;
};

G_DEFINE_BOXED_TYPE (CsKeptPartial, cs_kept_partial, cs_kept_partial_ref, cs_kept_partial_unref)

static CsKeptPartial *
kept_partial_new (const char *path,
                  guint64     kept,
                  guint64     size)
{
  CsKeptPartial *p = g_new0 (CsKeptPartial, 1);

  g_atomic_ref_count_init (&p->ref);
  p->path = g_strdup (path);
  p->kept = kept;
  p->size = size;
  return p;
}

CsKeptPartial *
cs_kept_partial_ref (CsKeptPartial *partial)
{
  g_return_val_if_fail (partial != NULL, NULL);

  g_atomic_ref_count_inc (&partial->ref);
  return partial;
}

void
cs_kept_partial_unref (CsKeptPartial *partial)
{
  g_return_if_fail (partial != NULL);

  if (!g_atomic_ref_count_dec (&partial->ref))
    return;
  g_free (partial->path);
  g_free (partial);
}

const char *
cs_kept_partial_get_path (CsKeptPartial *partial)
{
  g_return_val_if_fail (partial != NULL, NULL);

  return partial->path;
}

guint64
cs_kept_partial_get_kept (CsKeptPartial *partial)
{
  g_return_val_if_fail (partial != NULL, 0);

  return partial->kept;
}

guint64
cs_kept_partial_get_size (CsKeptPartial *partial)
{
  g_return_val_if_fail (partial != NULL, 0);

  return partial->size;
}

typedef struct {
  CsCounters    counters;     /* the I/O table wants them; nobody reads them */
  GCancellable *cancellable;
  guint         folders;
  guint8       *buffer;
  GPtrArray    *found;
} Walk;

static gboolean
walk_stopped (Walk *w)
{
  return g_cancellable_is_cancelled (w->cancellable) || w->folders >= CS_KEPT_MAX_FOLDERS;
}

/* The source file @name in @src_fd, if one a partial in @dst_fd is for. */
static void
look_at_file (Walk       *w,
              int         src_fd,
              int         dst_fd,
              const char *name,
              const char *rel)
{
  struct stat st;
  guint64 kept;

  if (_cs_io_fstatat (&w->counters, src_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return;
  kept = _cs_resume_peek (&w->counters, dst_fd, name, &st);
  if (kept > 0)
    {
      g_autofree char *path = g_build_filename (rel, name, NULL);

      g_ptr_array_add (w->found, kept_partial_new (path, kept, (guint64) st.st_size));
    }
}

static void walk_folder (Walk *w, int src_fd, int dst_fd, const char *rel, guint depth);

/* The folder @name, in the source's @src_fd and the destination's @dst_fd. */
static void
enter_folder (Walk       *w,
              int         src_fd,
              int         dst_fd,
              const char *name,
              const char *rel,
              guint       depth)
{
  g_autofree char *child = NULL;
  int sub_src, sub_dst;

  sub_dst = _cs_io_openat (&w->counters, dst_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
  if (sub_dst < 0)
    return;
  sub_src = _cs_io_openat (&w->counters, src_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
  if (sub_src >= 0)
    {
      child = rel[0] != '\0' ? g_build_filename (rel, name, NULL) : g_strdup (name);
      walk_folder (w, sub_src, sub_dst, child, depth + 1);
      _cs_io_close (&w->counters, sub_src);
    }
  _cs_io_close (&w->counters, sub_dst);
}

/* Lists the destination folder @dst_fd: each journal's file is looked up in
 * @src_fd, each folder entered. */
static void
walk_folder (Walk       *w,
             int         src_fd,
             int         dst_fd,
             const char *rel,
             guint       depth)
{
  g_autoptr(GHashTable) journals = NULL;
  g_autoptr(GPtrArray) folders = g_ptr_array_new_with_free_func (g_free);
  ssize_t n;

  if (walk_stopped (w) || depth > MAX_DEPTH)
    return;
  w->folders++;
  while ((n = _cs_io_getdents (&w->counters, dst_fd, w->buffer, DENTS_BUFFER_SIZE)) > 0)
    for (ssize_t off = 0; off < n;)
      {
        struct linux_dirent64 *d = (struct linux_dirent64 *) (w->buffer + off);
        guint64 hash;
        struct stat st;

        off += d->d_reclen;
        if (strcmp (d->d_name, ".") == 0 || strcmp (d->d_name, "..") == 0)
          continue;
        if (_cs_name_is_resume (d->d_name, &hash))
          {
            if (g_str_has_suffix (d->d_name, ".journal"))
              {
                if (journals == NULL)
                  journals = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
                g_hash_table_add (journals, g_memdup2 (&hash, sizeof hash));
              }
            continue;
          }
        if (g_str_has_prefix (d->d_name, CS_TEMP_PREFIX))
          continue;
        if (d->d_type == DT_DIR
            || (d->d_type == DT_UNKNOWN
                && _cs_io_fstatat (&w->counters, dst_fd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0
                && S_ISDIR (st.st_mode)))
          g_ptr_array_add (folders, g_strdup (d->d_name));
      }

  /* The source's names, hashed as the partials are named. */
  while (journals != NULL && (n = _cs_io_getdents (&w->counters, src_fd, w->buffer, DENTS_BUFFER_SIZE)) > 0)
    for (ssize_t off = 0; off < n;)
      {
        struct linux_dirent64 *d = (struct linux_dirent64 *) (w->buffer + off);
        guint64 hash;

        off += d->d_reclen;
        if (d->d_type != DT_REG && d->d_type != DT_UNKNOWN)
          continue;
        hash = _cs_name_hash (d->d_name);
        if (g_hash_table_contains (journals, &hash))
          look_at_file (w, src_fd, dst_fd, d->d_name, rel);
      }

  for (guint i = 0; i < folders->len && !walk_stopped (w); i++)
    enter_folder (w, src_fd, dst_fd, g_ptr_array_index (folders, i), rel, depth);
}

/* One source copied into @dest_fd as its own name. */
static void
walk_source (Walk       *w,
             const char *source,
             int         dest_fd)
{
  g_autofree char *trimmed = g_strdup (source);
  g_autofree char *parent = NULL;
  g_autofree char *name = NULL;
  struct stat st;
  int parent_fd;

  /* "folder/" names the folder itself, as the copy takes it. */
  while (strlen (trimmed) > 1 && g_str_has_suffix (trimmed, "/"))
    trimmed[strlen (trimmed) - 1] = '\0';
  parent = g_path_get_dirname (trimmed);
  name = g_path_get_basename (trimmed);
  if (_cs_io_stat_location (trimmed, FALSE, &st) != 0)
    return;
  parent_fd = _cs_io_openat (&w->counters, CS_IO_AT_LOCATION, parent, O_RDONLY | O_DIRECTORY, 0);
  if (parent_fd < 0)
    return;
  if (S_ISREG (st.st_mode))
    look_at_file (w, parent_fd, dest_fd, name, "");
  else if (S_ISDIR (st.st_mode))
    enter_folder (w, parent_fd, dest_fd, name, "", 0);
  _cs_io_close (&w->counters, parent_fd);
}

GPtrArray *
cs_kept_partials_find_sync (const char * const  *sources,
                            const char          *destination,
                            GCancellable        *cancellable,
                            GError             **error)
{
  g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func ((GDestroyNotify) cs_kept_partial_unref);
  g_autofree guint8 *buffer = g_malloc (DENTS_BUFFER_SIZE);
  Walk w = { .cancellable = cancellable, .buffer = buffer, .found = found };
  int dest_fd;

  g_return_val_if_fail (sources != NULL, NULL);
  g_return_val_if_fail (destination != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  dest_fd = _cs_io_openat (&w.counters, CS_IO_AT_LOCATION, destination, O_RDONLY | O_DIRECTORY, 0);
  for (guint i = 0; dest_fd >= 0 && sources[i] != NULL && !walk_stopped (&w); i++)
    walk_source (&w, sources[i], dest_fd);
  if (dest_fd >= 0)
    _cs_io_close (&w.counters, dest_fd);

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  return g_steal_pointer (&found);
}

typedef struct {
  GStrv      sources;
  char      *destination;
  GPtrArray *found;
} FindTask;

static void
find_task_free (gpointer data)
{
  FindTask *t = data;

  g_strfreev (t->sources);
  g_free (t->destination);
  g_clear_pointer (&t->found, g_ptr_array_unref);
  g_free (t);
}

/* a thread of GTask's */
static gboolean
find_task_run (gpointer       data,
               GCancellable  *cancellable,
               GError       **error)
{
  FindTask *t = data;

  t->found = cs_kept_partials_find_sync ((const char * const *) t->sources, t->destination,
                                         cancellable, error);
  return t->found != NULL;
}

void
cs_kept_partials_find_async (const char * const  *sources,
                             const char          *destination,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  FindTask *t;

  g_return_if_fail (sources != NULL);
  g_return_if_fail (destination != NULL);

  t = g_new0 (FindTask, 1);
  t->sources = g_strdupv ((char **) sources);
  t->destination = g_strdup (destination);
  _cs_task_run_in_thread (cs_kept_partials_find_async, t, find_task_free, find_task_run,
                          cancellable, callback, user_data);
}

GPtrArray *
cs_kept_partials_find_finish (GAsyncResult  *result,
                              GError       **error)
{
  FindTask *t = _cs_task_get_data (result, cs_kept_partials_find_async);

  g_return_val_if_fail (t != NULL, NULL);

  if (!_cs_task_finish (result, cs_kept_partials_find_async, error))
    return NULL;
  return g_ptr_array_ref (t->found);
}
