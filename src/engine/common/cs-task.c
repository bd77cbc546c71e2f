/* SPDX-License-Identifier: GPL-3.0-or-later */

#include "config.h"

#include <stdatomic.h>

#include "cs-task-private.h"
#include "cs-tsan-private.h"

typedef struct {
  gpointer       data;
  GDestroyNotify free_data;
  CsTaskFunc     func;
  GCancellable  *cancellable;
  GMainContext  *context;     /* the caller's, the worker's own reference */
  /* What the work returned, set by the worker before @done */
  gboolean       ok;
  GError        *error;
  atomic_int     done;
  /* A call the worker waits for on the caller's thread, under @lock */
  GMutex         lock;
  GCond          cond;
  CsTaskCallFunc call;
  gpointer       call_data;
} CsTask;

/* The task the thread runs, for _cs_task_call_in_caller () */
static GPrivate current_task = G_PRIVATE_INIT (NULL);

/* The caller's side: a source made on the caller's thread that returns the
 * task there once the worker is done. */
typedef struct {
  GSource  source;
  GTask   *task;
  CsTask  *t;
} CsTaskSource;

static void
cs_task_free (gpointer p)
{
  CsTask *t = p;

  /* The last reference may be taken anywhere the result went: after the
   * worker's last use of the data (@done) and after _finish. */
  CS_TSAN_ACQUIRE (t);
  if (t->free_data != NULL)
    t->free_data (t->data);
  g_clear_error (&t->error);
  g_clear_object (&t->cancellable);
  g_mutex_clear (&t->lock);
  g_cond_clear (&t->cond);
  g_free (t);
}

/* the worker thread */
static gpointer
cs_task_thread (gpointer p)
{
  CsTask *t = p;
  GMainContext *context = t->context;
  GError *error = NULL;
  gboolean ok;

  CS_TSAN_ACQUIRE (t);
  g_private_set (&current_task, t);
  ok = t->func (t->data, t->cancellable, &error);
  g_private_set (&current_task, NULL);
  /* What GTask's own check of the cancellable would have said. */
  if (ok && g_cancellable_set_error_if_cancelled (t->cancellable, &error))
    ok = FALSE;
  t->ok = ok;
  t->error = error;
  CS_TSAN_RELEASE (t);
  /* From here the caller may free @t: only the context, ours, is used. */
  atomic_store_explicit (&t->done, 1, memory_order_release);
  g_main_context_wakeup (context);
  g_main_context_unref (context);
  return NULL;
}

/* the caller's thread: a call waits, or the work is done */
static gboolean
cs_task_ready (CsTask *t)
{
  gboolean call;

  _cs_mutex_lock (&t->lock);
  call = t->call != NULL;
  _cs_mutex_unlock (&t->lock);

  return call || atomic_load_explicit (&t->done, memory_order_acquire) != 0;
}

static gboolean
cs_task_source_prepare (GSource *source,
                        gint    *timeout)
{
  CsTaskSource *s = (CsTaskSource *) source;

  *timeout = -1;
  return cs_task_ready (s->t);
}

static gboolean
cs_task_source_check (GSource *source)
{
  CsTaskSource *s = (CsTaskSource *) source;

  return cs_task_ready (s->t);
}

/* the caller's thread: runs the call the worker waits for, if any */
static gboolean
cs_task_run_call (CsTask *t)
{
  CsTaskCallFunc call;
  gpointer call_data;

  _cs_mutex_lock (&t->lock);
  call = t->call;
  call_data = t->call_data;
  _cs_mutex_unlock (&t->lock);
  if (call == NULL)
    return FALSE;

  call (call_data);

  _cs_mutex_lock (&t->lock);
  t->call = NULL;
  t->call_data = NULL;
  g_cond_signal (&t->cond);
  _cs_mutex_unlock (&t->lock);
  return TRUE;
}

/* the caller's thread: hands the result to GTask, which calls back */
static gboolean
cs_task_source_dispatch (GSource     *source,
                         GSourceFunc  callback,
                         gpointer     user_data)
{
  CsTaskSource *s = (CsTaskSource *) source;
  CsTask *t = s->t;

  /* The worker waits for its call and is done only after it. */
  if (cs_task_run_call (t))
    return G_SOURCE_CONTINUE;

  CS_TSAN_ACQUIRE (t);
  if (t->ok)
    g_task_return_boolean (s->task, TRUE);
  else
    g_task_return_error (s->task, g_steal_pointer (&t->error));
  return G_SOURCE_REMOVE;
}

static void
cs_task_source_finalize (GSource *source)
{
  CsTaskSource *s = (CsTaskSource *) source;

  g_clear_object (&s->task);
}

static GSourceFuncs cs_task_source_funcs = {
  .prepare = cs_task_source_prepare,
  .check = cs_task_source_check,
  .dispatch = cs_task_source_dispatch,
  .finalize = cs_task_source_finalize,
};

/*
 * Not g_task_run_in_thread: GTask's worker makes the source that completes
 * the task (g_task_return from the thread pool), and the caller's main
 * context frees it after calling back; GMainContext's lock orders the two,
 * which ThreadSanitizer cannot see, and the frames are GLib's static
 * g_source_unref_internal and g_source_callback_unref, which TSan cannot name
 * (tests/tsan.supp had to name the tests' test_async instead). Here every
 * source is made and freed on the caller's thread; the worker only sets
 * @done (an atomic TSan sees) and wakes the context.
 */
void
_cs_task_run_in_thread (gpointer             source_tag,
                        gpointer             data,
                        GDestroyNotify       free_data,
                        CsTaskFunc           func,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  CsTaskSource *source;
  GThread *thread;
  CsTask *t;

  g_return_if_fail (func != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  t = g_new0 (CsTask, 1);
  g_mutex_init (&t->lock);
  g_cond_init (&t->cond);
  t->data = data;
  t->free_data = free_data;
  t->func = func;
  t->cancellable = cancellable ? g_object_ref (cancellable) : NULL;
  /* The cancellable is the work's, not GTask's: the work stops on it and
   * says so itself. */
  task = g_task_new (NULL, NULL, callback, user_data);
  /* The function, not GLib 2.74's macro of that name: the macro also names
   * the task after the tag. */
  (g_task_set_source_tag) (task, source_tag);
  g_task_set_task_data (task, t, cs_task_free);
  t->context = g_main_context_ref (g_task_get_context (task));

  source = (CsTaskSource *) g_source_new (&cs_task_source_funcs, sizeof (CsTaskSource));
  source->task = g_object_ref (task);
  source->t = t;
  g_source_set_priority (&source->source, G_PRIORITY_DEFAULT);
  g_source_set_static_name (&source->source, "[copyscope] task done");
  g_source_attach (&source->source, t->context);
  g_source_unref (&source->source);

  CS_TSAN_RELEASE (t);
  thread = g_thread_try_new ("cs-task", cs_task_thread, t, &error);
  if (thread != NULL)
    {
      g_thread_unref (thread);
      return;
    }
  /* No thread: the caller hears it as the work's error. */
  g_main_context_unref (t->context);
  t->ok = FALSE;
  t->error = g_steal_pointer (&error);
  atomic_store_explicit (&t->done, 1, memory_order_release);
  g_main_context_wakeup (g_task_get_context (task));
}

gpointer
_cs_task_get_data (GAsyncResult *result,
                   gpointer      source_tag)
{
  CsTask *t;

  if (!g_task_is_valid (result, NULL) || g_task_get_source_tag (G_TASK (result)) != source_tag)
    return NULL;
  t = g_task_get_task_data (G_TASK (result));
  CS_TSAN_ACQUIRE (t);
  return t->data;
}

gboolean
_cs_task_finish (GAsyncResult  *result,
                 gpointer       source_tag,
                 GError       **error)
{
  CsTask *t;
  gboolean ok;

  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == source_tag, FALSE);

  t = g_task_get_task_data (G_TASK (result));
  CS_TSAN_ACQUIRE (t);
  ok = g_task_propagate_boolean (G_TASK (result), error);
  /* Before the free, if another thread drops the task last. */
  CS_TSAN_RELEASE (t);
  return ok;
}

/*
 * the worker, inside its CsTaskFunc: runs @call (@call_data) on the caller's
 * main context, the one the task returns to, and returns after it ran. The
 * worker waits meanwhile, so what it hands over stays as it was, and the
 * calls come in order, all before the task's callback.
 */
void
_cs_task_call_in_caller (CsTaskCallFunc call,
                         gpointer       call_data)
{
  CsTask *t = g_private_get (&current_task);

  g_return_if_fail (t != NULL);
  g_return_if_fail (call != NULL);

  _cs_mutex_lock (&t->lock);
  g_assert (t->call == NULL);
  t->call = call;
  t->call_data = call_data;
  _cs_mutex_unlock (&t->lock);
  g_main_context_wakeup (t->context);

  _cs_mutex_lock (&t->lock);
  while (t->call != NULL)
    _cs_cond_wait (&t->cond, &t->lock);
  _cs_mutex_unlock (&t->lock);
}
