/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-deletions"

#include "config.h"

#include <string.h>

#include "cs-deletions-private.h"
#include "cs-job-private.h"

typedef struct {
  char        *path;
  struct stat  st;
} Root;

typedef struct {
  guint            root;
  char            *rel;
  struct timespec  times[2];
} Folder;

struct _CsDeletions {
  GObject   parent_instance;

  GMutex    lock;       /* the scanner adds while the main thread may read */
  GArray   *extras;     /* CsExtra */
  GArray   *roots;      /* Root */
  GArray   *folders;    /* Folder: where extras are, whose times the deletions change */
  gint64    max;
  guint64   n_files;
  guint64   n_dirs;
  guint64   bytes;

  GCond     cond;
  gboolean  answered;
  gboolean  answer;
};

G_DEFINE_FINAL_TYPE (CsDeletions, cs_deletions, G_TYPE_OBJECT)

static gboolean entry (CsDeletions *self, guint index, CsExtra *out);

static void
extra_clear (gpointer data)
{
  CsExtra *e = data;

  g_free (e->path);
}

static void
root_clear (gpointer data)
{
  Root *r = data;

  g_free (r->path);
}

static void
folder_clear (gpointer data)
{
  Folder *f = data;

  g_free (f->rel);
}

static void
cs_deletions_finalize (GObject *object)
{
  CsDeletions *self = CS_DELETIONS (object);

  g_array_unref (self->extras);
  g_array_unref (self->roots);
  g_array_unref (self->folders);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);

  G_OBJECT_CLASS (cs_deletions_parent_class)->finalize (object);
}

static void
cs_deletions_class_init (CsDeletionsClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = cs_deletions_finalize;
}

static void
cs_deletions_init (CsDeletions *self)
{
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  self->extras = g_array_new (FALSE, TRUE, sizeof (CsExtra));
  g_array_set_clear_func (self->extras, extra_clear);
  self->roots = g_array_new (FALSE, TRUE, sizeof (Root));
  g_array_set_clear_func (self->roots, root_clear);
  self->folders = g_array_new (FALSE, TRUE, sizeof (Folder));
  g_array_set_clear_func (self->folders, folder_clear);
}

CsDeletions *
_cs_deletions_new (gint64 max)
{
  CsDeletions *self = g_object_new (CS_TYPE_DELETIONS, NULL);

  self->max = max;
  return self;
}

guint
_cs_deletions_add_root (CsDeletions       *self,
                        const char        *path,
                        const struct stat *st)
{
  g_autoptr(CsMutexLocker) locker = _cs_mutex_locker_new (&self->lock);
  Root r = { g_strdup (path), *st };

  g_array_append_val (self->roots, r);
  return self->roots->len - 1;
}

const char *
_cs_deletions_get_root (CsDeletions *self,
                        guint        root,
                        struct stat *out_st)
{
  g_autoptr(CsMutexLocker) locker = _cs_mutex_locker_new (&self->lock);
  const Root *r = &g_array_index (self->roots, Root, root);

  if (out_st != NULL)
    *out_st = r->st;
  return r->path;
}

static gboolean
over_locked (CsDeletions *self)
{
  return self->max >= 0 && self->n_files + self->n_dirs > (guint64) self->max;
}

void
_cs_deletions_add (CsDeletions       *self,
                   guint              root,
                   const char        *rel,
                   const struct stat *st)
{
  g_autoptr(CsMutexLocker) locker = _cs_mutex_locker_new (&self->lock);
  const char *root_path = g_array_index (self->roots, Root, root).path;
  CsExtra e = { 0 };

  if (S_ISDIR (st->st_mode))
    self->n_dirs++;
  else
    self->n_files++;
  if (S_ISREG (st->st_mode))
    self->bytes += (guint64) st->st_size;
  /* Past the maximum nothing is deleted: the counts are all that matter,
   * and a wrong source cannot make the list take all memory. */
  if (over_locked (self) && self->extras->len >= MAX (self->max, 0) + 1)
    return;

  e.path = g_build_filename (root_path, rel, NULL);
  e.rel = (guint) strlen (root_path) + (g_str_has_suffix (root_path, "/") ? 0 : 1);
  e.root = root;
  e.type = st->st_mode & S_IFMT;
  e.size = S_ISREG (st->st_mode) ? (guint64) st->st_size : 0;
  e.dev = st->st_dev;
  e.ino = st->st_ino;
  e.mtime = st->st_mtim;
  g_array_append_val (self->extras, e);
}

void
_cs_deletions_add_folder (CsDeletions       *self,
                          guint              root,
                          const char        *rel,
                          const struct stat *src)
{
  g_autoptr(CsMutexLocker) locker = _cs_mutex_locker_new (&self->lock);
  Folder f = { root, g_strdup (rel), { src->st_atim, src->st_mtim } };

  g_array_append_val (self->folders, f);
}

gboolean
_cs_deletions_get_folder (CsDeletions      *self,
                          guint             index,
                          guint            *out_root,
                          const char      **out_rel,
                          struct timespec   out_times[2])
{
  g_autoptr(CsMutexLocker) locker = _cs_mutex_locker_new (&self->lock);
  const Folder *f;

  if (index >= self->folders->len)
    return FALSE;
  f = &g_array_index (self->folders, Folder, index);
  *out_root = f->root;
  *out_rel = f->rel;
  out_times[0] = f->times[0];
  out_times[1] = f->times[1];
  return TRUE;
}

guint64
_cs_deletions_count (CsDeletions *self)
{
  g_autoptr(CsMutexLocker) locker = _cs_mutex_locker_new (&self->lock);

  return self->n_files + self->n_dirs;
}

gboolean
_cs_deletions_get (CsDeletions *self,
                   guint        index,
                   CsExtra     *out)
{
  return entry (self, index, out);
}

gboolean
_cs_deletions_wait (CsDeletions *self,
                    CsJob       *job)
{
  gboolean answer;

  _cs_mutex_lock (&self->lock);
  while (!self->answered && !_cs_job_stopping (job))
    _cs_cond_wait_until (&self->cond, &self->lock, g_get_monotonic_time () + G_USEC_PER_SEC / 10);
  answer = self->answered && self->answer && !_cs_job_stopping (job);
  _cs_mutex_unlock (&self->lock);

  return answer;
}

#define LOCKED_GETTER(type, name, expr, fallback) \
  type \
  cs_deletions_get_##name (CsDeletions *self) \
  { \
    g_autoptr(CsMutexLocker) locker = NULL; \
    g_return_val_if_fail (CS_IS_DELETIONS (self), fallback); \
    locker = _cs_mutex_locker_new (&self->lock); \
    return (expr); \
  }

LOCKED_GETTER (guint64, n_files, self->n_files, 0)
LOCKED_GETTER (guint64, n_dirs, self->n_dirs, 0)
LOCKED_GETTER (guint64, bytes, self->bytes, 0)
LOCKED_GETTER (gint64, max, self->max, -1)
LOCKED_GETTER (gboolean, over_max, over_locked (self), FALSE)
LOCKED_GETTER (guint, n_listed, self->extras->len, 0)

/* The fields of entry @index, read under the lock: the scanner may still add. */
static gboolean
entry (CsDeletions  *self,
       guint         index,
       CsExtra      *out)
{
  g_autoptr(CsMutexLocker) locker = _cs_mutex_locker_new (&self->lock);

  if (index >= self->extras->len)
    return FALSE;
  *out = g_array_index (self->extras, CsExtra, index);
  return TRUE;
}

const char *
cs_deletions_get_path (CsDeletions *self,
                       guint        index)
{
  CsExtra e;

  g_return_val_if_fail (CS_IS_DELETIONS (self), NULL);
  g_return_val_if_fail (entry (self, index, &e), NULL);
  /* Each path is an allocation of its own, which the array never moves. */
  return e.path;
}

gboolean
cs_deletions_get_is_dir (CsDeletions *self,
                         guint        index)
{
  CsExtra e;

  g_return_val_if_fail (CS_IS_DELETIONS (self), FALSE);
  g_return_val_if_fail (entry (self, index, &e), FALSE);
  return e.type == S_IFDIR;
}

guint64
cs_deletions_get_size (CsDeletions *self,
                       guint        index)
{
  CsExtra e;

  g_return_val_if_fail (CS_IS_DELETIONS (self), 0);
  g_return_val_if_fail (entry (self, index, &e), 0);
  return e.size;
}

void
cs_deletions_answer (CsDeletions *self,
                     gboolean     delete_them)
{
  g_return_if_fail (CS_IS_DELETIONS (self));

  _cs_mutex_lock (&self->lock);
  if (!self->answered)
    {
      self->answered = TRUE;
      self->answer = !!delete_them;
      g_cond_broadcast (&self->cond);
    }
  _cs_mutex_unlock (&self->lock);
}
