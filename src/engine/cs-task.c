/* SPDX-License-Identifier: GPL-3.0-or-later */

#include "config.h"
#include "cs-task-private.h"
#include "cs-tsan-private.h"

typedef struct {
  gpointer       data;
  GDestroyNotify free_data;
  CsTaskFunc     func;
  GCancellable  *cancellable;
} CsTask;

static void
cs_task_free (gpointer p)
{
  CsTask *t = p;

  /* The last reference may be the worker's or the caller's: either way after
   * the other thread's last use of the data (the end of the work, _finish). */
  CS_TSAN_ACQUIRE (t);
  if (t->free_data != NULL)
    t->free_data (t->data);
  g_clear_object (&t->cancellable);
  g_free (t);
}

/* a thread of GTask's */
static void
cs_task_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  CsTask *t = task_data;
  GError *error = NULL;
  gboolean ok;

  CS_TSAN_ACQUIRE (t);
  ok = t->func (t->data, t->cancellable, &error);
  /* What GTask's own check of the cancellable would have said. */
  if (ok && g_cancellable_set_error_if_cancelled (t->cancellable, &error))
    ok = FALSE;
  CS_TSAN_RELEASE (t);
  if (ok)
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

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
  CsTask *t;

  g_return_if_fail (func != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  t = g_new0 (CsTask, 1);
  *t = (CsTask) { data, free_data, func, cancellable ? g_object_ref (cancellable) : NULL };
  /* The cancellable is the work's, not GTask's: GTask would connect to it here
   * and disconnect in its worker, a hand-off inside GObject's signal lock that
   * ThreadSanitizer cannot see. The work stops on it and says so itself. */
  task = g_task_new (NULL, NULL, callback, user_data);
  /* The function, not GLib 2.74's macro of that name: the macro also names
   * the task after the tag, and GTask's worker reads that name to label its
   * completion while the caller may be dropping the task — ordered by GLib's
   * reference count, which ThreadSanitizer cannot see. Unnamed, GTask uses a
   * constant label. */
  (g_task_set_source_tag) (task, source_tag);
  g_task_set_task_data (task, t, cs_task_free);
  CS_TSAN_RELEASE (t);
  g_task_run_in_thread (task, cs_task_thread);
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
  /* Before a free in the worker, if it drops the task last. */
  CS_TSAN_RELEASE (t);
  return ok;
}
