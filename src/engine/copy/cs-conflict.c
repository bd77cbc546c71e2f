/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-conflict"

#include "config.h"

#include "cs-conflict-private.h"
#include "cs-job-private.h"

struct _CsConflict {
  GObject          parent_instance;

  char            *source_path;
  char            *destination_path;
  guint64          source_size;
  guint64          destination_size;
  gint64           source_mtime;
  gint64           destination_mtime;

  GMutex           lock;
  GCond            cond;
  gboolean         answered;
  CsConflictAnswer answer;
  gboolean         apply_to_all;
};

G_DEFINE_FINAL_TYPE (CsConflict, cs_conflict, G_TYPE_OBJECT)

static void
cs_conflict_finalize (GObject *object)
{
  CsConflict *self = CS_CONFLICT (object);

  g_free (self->source_path);
  g_free (self->destination_path);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);

  G_OBJECT_CLASS (cs_conflict_parent_class)->finalize (object);
}

static void
cs_conflict_class_init (CsConflictClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = cs_conflict_finalize;
}

static void
cs_conflict_init (CsConflict *self)
{
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
}

static gint64
mtime_usec (const struct stat *st)
{
  return (gint64) st->st_mtim.tv_sec * G_USEC_PER_SEC + st->st_mtim.tv_nsec / 1000;
}

/* any thread */
CsConflict *
_cs_conflict_new (const char        *source_path,
                  const char        *destination_path,
                  const struct stat *src,
                  const struct stat *dst)
{
  CsConflict *self = g_object_new (CS_TYPE_CONFLICT, NULL);

  self->source_path = g_strdup (source_path);
  self->destination_path = g_strdup (destination_path);
  self->source_size = (guint64) src->st_size;
  self->destination_size = (guint64) dst->st_size;
  self->source_mtime = mtime_usec (src);
  self->destination_mtime = mtime_usec (dst);

  return self;
}

/* worker thread */
gboolean
_cs_conflict_wait (CsConflict       *self,
                   CsJob            *job,
                   CsConflictAnswer *out_answer,
                   gboolean         *out_apply_all)
{
  gboolean answered;

  _cs_mutex_lock (&self->lock);
  /* Wake up now and then to notice a cancel without a second condition variable. */
  while (!self->answered && !_cs_job_stopping (job))
    _cs_cond_wait_until (&self->cond, &self->lock, g_get_monotonic_time () + G_USEC_PER_SEC / 10);
  answered = self->answered;
  *out_answer = self->answer;
  *out_apply_all = self->apply_to_all;
  _cs_mutex_unlock (&self->lock);

  return answered;
}

const char *
cs_conflict_get_source_path (CsConflict *self)
{
  g_return_val_if_fail (CS_IS_CONFLICT (self), NULL);
  return self->source_path;
}

const char *
cs_conflict_get_destination_path (CsConflict *self)
{
  g_return_val_if_fail (CS_IS_CONFLICT (self), NULL);
  return self->destination_path;
}

guint64
cs_conflict_get_source_size (CsConflict *self)
{
  g_return_val_if_fail (CS_IS_CONFLICT (self), 0);
  return self->source_size;
}

guint64
cs_conflict_get_destination_size (CsConflict *self)
{
  g_return_val_if_fail (CS_IS_CONFLICT (self), 0);
  return self->destination_size;
}

gint64
cs_conflict_get_source_mtime (CsConflict *self)
{
  g_return_val_if_fail (CS_IS_CONFLICT (self), 0);
  return self->source_mtime;
}

gint64
cs_conflict_get_destination_mtime (CsConflict *self)
{
  g_return_val_if_fail (CS_IS_CONFLICT (self), 0);
  return self->destination_mtime;
}

/* main thread */
void
cs_conflict_answer (CsConflict       *self,
                    CsConflictAnswer  answer,
                    gboolean          apply_to_all)
{
  g_return_if_fail (CS_IS_CONFLICT (self));
  g_return_if_fail (answer <= CS_CONFLICT_KEEP_BOTH);

  _cs_mutex_lock (&self->lock);
  if (!self->answered)
    {
      self->answered = TRUE;
      self->answer = answer;
      self->apply_to_all = apply_to_all;
      g_cond_broadcast (&self->cond);
    }
  _cs_mutex_unlock (&self->lock);
}
