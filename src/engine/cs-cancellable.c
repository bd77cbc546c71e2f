/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-cancellable"

#include "config.h"

#include "cs-cancellable.h"
#include "cs-io-error.h"

typedef struct {
  gulong            id;
  CsCancellableFunc func;
  gpointer          user_data;
} Handler;

struct _CsCancellable {
  GObject  parent_instance;

  GMutex   lock;
  GCond    cond;
  int      cancelled;  /* atomic: read without the lock on hot paths */
  gboolean running;    /* the callbacks are being called */
  gulong   last_id;
  GArray  *handlers;   /* of Handler */
};

G_DEFINE_FINAL_TYPE (CsCancellable, cs_cancellable, G_TYPE_OBJECT)

static void
cs_cancellable_finalize (GObject *object)
{
  CsCancellable *self = CS_CANCELLABLE (object);

  g_array_unref (self->handlers);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);

  G_OBJECT_CLASS (cs_cancellable_parent_class)->finalize (object);
}

static void
cs_cancellable_class_init (CsCancellableClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = cs_cancellable_finalize;
}

static void
cs_cancellable_init (CsCancellable *self)
{
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  self->handlers = g_array_new (FALSE, FALSE, sizeof (Handler));
}

CsCancellable *
cs_cancellable_new (void)
{
  return g_object_new (CS_TYPE_CANCELLABLE, NULL);
}

void
cs_cancellable_cancel (CsCancellable *self)
{
  g_autoptr(GArray) handlers = NULL;

  g_return_if_fail (self == NULL || CS_IS_CANCELLABLE (self));

  if (self == NULL)
    return;

  g_mutex_lock (&self->lock);
  if (g_atomic_int_get (&self->cancelled))
    {
      g_mutex_unlock (&self->lock);
      return;
    }
  g_atomic_int_set (&self->cancelled, TRUE);
  self->running = TRUE;
  /* A copy, so a callback may connect or disconnect without deadlocking on
   * the list it is called from. */
  handlers = g_array_copy (self->handlers);
  g_mutex_unlock (&self->lock);

  g_object_ref (self);
  for (guint i = 0; i < handlers->len; i++)
    {
      Handler *h = &g_array_index (handlers, Handler, i);

      h->func (self, h->user_data);
    }

  g_mutex_lock (&self->lock);
  self->running = FALSE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  g_object_unref (self);
}

gboolean
cs_cancellable_is_cancelled (CsCancellable *self)
{
  g_return_val_if_fail (self == NULL || CS_IS_CANCELLABLE (self), FALSE);

  return self != NULL && g_atomic_int_get (&self->cancelled);
}

gboolean
cs_cancellable_set_error_if_cancelled (CsCancellable  *self,
                                       GError        **error)
{
  if (!cs_cancellable_is_cancelled (self))
    return FALSE;

  g_set_error_literal (error, CS_IO_ERROR, CS_IO_ERROR_CANCELLED, "Operation was cancelled");
  return TRUE;
}

gulong
cs_cancellable_connect (CsCancellable     *self,
                        CsCancellableFunc  func,
                        gpointer           user_data)
{
  Handler h = { 0, func, user_data };

  g_return_val_if_fail (CS_IS_CANCELLABLE (self), 0);
  g_return_val_if_fail (func != NULL, 0);

  g_mutex_lock (&self->lock);
  if (g_atomic_int_get (&self->cancelled))
    {
      g_mutex_unlock (&self->lock);
      func (self, user_data);
      return 0;
    }
  h.id = ++self->last_id;
  g_array_append_val (self->handlers, h);
  g_mutex_unlock (&self->lock);

  return h.id;
}

void
cs_cancellable_disconnect (CsCancellable *self,
                           gulong         id)
{
  g_return_if_fail (self == NULL || CS_IS_CANCELLABLE (self));

  if (self == NULL || id == 0)
    return;

  g_mutex_lock (&self->lock);
  for (guint i = 0; i < self->handlers->len; i++)
    {
      if (g_array_index (self->handlers, Handler, i).id == id)
        {
          g_array_remove_index (self->handlers, i);
          break;
        }
    }
  /* The cancelling thread may be inside this very callback. Waiting on a
   * callback from itself would never end: GCancellable has the same rule
   * (do not disconnect from inside the callback). */
  while (self->running)
    g_cond_wait (&self->cond, &self->lock);
  g_mutex_unlock (&self->lock);
}
