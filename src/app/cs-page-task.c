/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include "cs-page-task.h"

struct _CsPageTask
{
  /* Set before the thread starts; read-only after */
  gpointer            data;
  GDestroyNotify      data_free;
  GCancellable       *cancellable;
  CsPageTaskRunFunc   run;
  CsPageTaskPollFunc  poll;
  CsPageTaskDoneFunc  done;

  /* Under lock */
  GMutex              lock;
  CsJob              *job;
  guint               step;
  guint               n_steps;

  /* Main thread only */
  gpointer            owner;    /* NULL once abandoned */
  guint               poll_id;
};

static void
cs_page_task_free (CsPageTask *task)
{
  g_assert (task->poll_id == 0);

  g_mutex_clear (&task->lock);
  g_clear_object (&task->job);
  g_clear_object (&task->cancellable);
  if (task->data_free != NULL)
    g_clear_pointer (&task->data, task->data_free);
  g_free (task);
}

/* main thread: follows the job the call runs now */
static gboolean
poll_cb (gpointer user_data)
{
  CsPageTask *task = user_data;
  g_autoptr(CsJob) job = NULL;
  guint step, n_steps;

  g_mutex_lock (&task->lock);
  job = task->job != NULL ? g_object_ref (task->job) : NULL;
  step = task->step;
  n_steps = task->n_steps;
  g_mutex_unlock (&task->lock);

  if (job != NULL)
    task->poll (task->owner, job, step, n_steps);

  return G_SOURCE_CONTINUE;
}

/* main thread: the call returned */
static void
done_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  CsPageTask *task = user_data;
  g_autoptr(GError) error = NULL;

  g_task_propagate_boolean (G_TASK (result), &error);
  g_clear_handle_id (&task->poll_id, g_source_remove);

  /* A last poll first: a job shorter than the poll interval, or one that
   * ended since the last tick, has samples the page has not seen, and the
   * page would end with an empty live graph. */
  if (task->owner != NULL)
    poll_cb (task);
  if (task->owner != NULL)
    task->done (task->owner, task->data, error);

  cs_page_task_free (task);
}

/* a thread of GTask's */
static void
task_thread (GTask        *gtask,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  CsPageTask *task = task_data;
  GError *error = NULL;

  if (task->run (task, task->data, task->cancellable, &error))
    g_task_return_boolean (gtask, TRUE);
  else
    g_task_return_error (gtask, error);
}

/* main thread: runs @run with @data on a thread of GTask's; the task owns
 * @data until it is freed. @owner is passed to @poll and @done. */
CsPageTask *
_cs_page_task_start (const char         *thread_name,
                     gpointer            owner,
                     guint               poll_ms,
                     gpointer            data,
                     GDestroyNotify      data_free,
                     CsPageTaskRunFunc   run,
                     CsPageTaskPollFunc  poll,
                     CsPageTaskDoneFunc  done)
{
  g_autoptr(GTask) gtask = NULL;
  CsPageTask *task;

  g_return_val_if_fail (thread_name != NULL, NULL);
  g_return_val_if_fail (owner != NULL, NULL);
  g_return_val_if_fail (poll_ms > 0, NULL);
  g_return_val_if_fail (run != NULL && poll != NULL && done != NULL, NULL);

  task = g_new0 (CsPageTask, 1);
  g_mutex_init (&task->lock);
  task->data = data;
  task->data_free = data_free;
  task->cancellable = g_cancellable_new ();
  task->run = run;
  task->poll = poll;
  task->done = done;
  task->owner = owner;

  task->poll_id = g_timeout_add (poll_ms, poll_cb, task);
  /* The call stops on the task's own cancellable, so a cancelled call still
   * ends through @done with its own error. */
  gtask = g_task_new (NULL, NULL, done_cb, task);
  g_task_set_name (gtask, thread_name);
  g_task_set_task_data (gtask, task, NULL);
  g_task_run_in_thread (gtask, task_thread);

  return task;
}

/* any thread, in practice the task's: the job the call runs now */
void
_cs_page_task_set_job (CsPageTask *task,
                       CsJob      *job,
                       guint       step,
                       guint       n_steps)
{
  g_return_if_fail (task != NULL);
  g_return_if_fail (job == NULL || CS_IS_JOB (job));

  g_mutex_lock (&task->lock);
  g_set_object (&task->job, job);
  task->step = step;
  task->n_steps = n_steps;
  g_mutex_unlock (&task->lock);
}

/* main thread: @done still runs, with the call's error */
void
_cs_page_task_cancel (CsPageTask *task)
{
  g_return_if_fail (task != NULL);

  g_cancellable_cancel (task->cancellable);
}

/* main thread: the thread finishes on its own; the task no longer calls back */
void
_cs_page_task_abandon (CsPageTask *task)
{
  g_return_if_fail (task != NULL);

  g_cancellable_cancel (task->cancellable);
  g_clear_handle_id (&task->poll_id, g_source_remove);
  task->owner = NULL;
}
