/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include "cs-copy-queue.h"
#include "cs-queued-job.h"

/*
 * The copies of the application, apart from any window: the one shown (its
 * job, run once its window is ready for it), the ones waiting their turn and
 * the ones running side by side, each a CsQueuedJob in one list model. Copies
 * to one destination device (a filesystem, or a server for shares) run one
 * after the other; with the "queue-side-by-side" setting, those to other
 * devices start at once beside the one shown.
 *
 * A window shows the queue and asks its questions: "job-shown" when a copy
 * becomes the one shown, "side-job-started" when one starts beside it,
 * "job-finished" and "side-job-finished" when one has ended and left the
 * queue, "refused" when a
 * waiting copy can no longer start. After a copy ends the next one starts,
 * with no window too; a window that must know whether one did before it
 * shows the end calls cs_copy_queue_advance () in its handler itself.
 */

struct _CsCopyQueue
{
  GObject       parent_instance;

  /* Owned */
  GSettings    *settings;
  CsJob        *job;            /* the copy shown, from its start to its end */
  char         *job_device;     /* its destination device */
  GCancellable *cancellable;    /* its run's */
  GListStore   *queue;          /* of CsQueuedJob: waiting, and running side by side */
  GPtrArray    *side_jobs;      /* of CsQueuedJob in the queue, running beside it */

  guint         job_running : 1;  /* cs_job_run_async called for @job */
};

G_DEFINE_FINAL_TYPE (CsCopyQueue, cs_copy_queue, G_TYPE_OBJECT)

enum {
  JOB_SHOWN,
  SIDE_JOB_STARTED,
  JOB_FINISHED,
  SIDE_JOB_FINISHED,
  REFUSED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
cs_copy_queue_dispose (GObject *object)
{
  CsCopyQueue *self = CS_COPY_QUEUE (object);

  cs_copy_queue_cancel_all (self);
  g_clear_object (&self->settings);

  G_OBJECT_CLASS (cs_copy_queue_parent_class)->dispose (object);
}

static void
cs_copy_queue_finalize (GObject *object)
{
  CsCopyQueue *self = CS_COPY_QUEUE (object);

  g_clear_object (&self->queue);
  g_clear_pointer (&self->side_jobs, g_ptr_array_unref);
  g_free (self->job_device);

  G_OBJECT_CLASS (cs_copy_queue_parent_class)->finalize (object);
}

static void
cs_copy_queue_class_init (CsCopyQueueClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = cs_copy_queue_dispose;
  object_class->finalize = cs_copy_queue_finalize;

  /* @job is the copy shown now; @running when it already runs (it ran side
   * by side until now), else it waits for cs_copy_queue_run (). */
  signals[JOB_SHOWN] =
    g_signal_new ("job-shown", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, CS_TYPE_JOB, G_TYPE_BOOLEAN);
  signals[SIDE_JOB_STARTED] =
    g_signal_new ("side-job-started", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 1, CS_TYPE_JOB);
  /* The copy shown, @job, has ended and is no longer the queue's. */
  signals[JOB_FINISHED] =
    g_signal_new ("job-finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, CS_TYPE_JOB);
  /* @queued, which ran side by side, has ended and left the queue. */
  signals[SIDE_JOB_FINISHED] =
    g_signal_new ("side-job-finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 1, CS_TYPE_QUEUED_JOB);
  /* A waiting @job that cannot start any more (a source gone meanwhile). */
  signals[REFUSED] =
    g_signal_new ("refused", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, CS_TYPE_JOB, G_TYPE_ERROR);
}

static void
cs_copy_queue_init (CsCopyQueue *self)
{
  self->queue = g_list_store_new (CS_TYPE_QUEUED_JOB);
  self->side_jobs = g_ptr_array_new_with_free_func (g_object_unref);
}

/* @settings gives "queue-side-by-side"; turned on while copies wait, the
 * ones to other devices start at once. */
CsCopyQueue *
cs_copy_queue_new (GSettings *settings)
{
  CsCopyQueue *self;

  g_return_val_if_fail (G_IS_SETTINGS (settings), NULL);

  self = g_object_new (CS_TYPE_COPY_QUEUE, NULL);
  self->settings = g_object_ref (settings);
  g_signal_connect_object (settings, "changed::queue-side-by-side",
                           G_CALLBACK (cs_copy_queue_advance), self, G_CONNECT_SWAPPED);

  return self;
}

/* The copy shown, from its start to its end, or NULL. */
CsJob *
cs_copy_queue_get_job (CsCopyQueue *self)
{
  g_return_val_if_fail (CS_IS_COPY_QUEUE (self), NULL);

  return self->job;
}

/* Whether the copy shown has been run (cs_copy_queue_run ()). */
gboolean
cs_copy_queue_get_job_running (CsCopyQueue *self)
{
  g_return_val_if_fail (CS_IS_COPY_QUEUE (self), FALSE);

  return self->job_running;
}

/* The copies waiting behind the one shown and those running beside it: a
 * model of CsQueuedJob. */
GListModel *
cs_copy_queue_get_model (CsCopyQueue *self)
{
  g_return_val_if_fail (CS_IS_COPY_QUEUE (self), NULL);

  return G_LIST_MODEL (self->queue);
}

static void
cs_copy_queue_take_out (CsCopyQueue *self,
                        CsQueuedJob *queued)
{
  guint position;

  if (g_list_store_find (self->queue, queued, &position))
    g_list_store_remove (self->queue, position);
}

/* A copy that ran side by side has ended: it leaves the queue, and its
 * device is free for the next. */
static void
cs_copy_queue_side_job_done (CsCopyQueue *self,
                             CsJob       *job)
{
  g_autoptr(CsQueuedJob) queued = NULL;

  for (guint i = 0; i < self->side_jobs->len; i++)
    if (cs_queued_job_get_job (g_ptr_array_index (self->side_jobs, i)) == job)
      queued = g_ptr_array_steal_index (self->side_jobs, i);
  if (queued == NULL)
    return;

  cs_copy_queue_take_out (self, queued);
  g_signal_emit (self, signals[SIDE_JOB_FINISHED], 0, queued);
  cs_copy_queue_advance (self);
}

static void
run_done_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(CsCopyQueue) self = user_data;
  CsJob *job = CS_JOB (object);
  g_autoptr(GError) error = NULL;
  g_autoptr(CsJob) finished = NULL;

  if (!cs_job_run_finish (job, result, &error)
      && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_message ("Copy stopped: %s", error->message);

  /* A copy that ran side by side ends apart from the one shown. */
  if (self->job != job)
    {
      cs_copy_queue_side_job_done (self, job);
      return;
    }

  finished = g_steal_pointer (&self->job);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->job_device, g_free);
  self->job_running = FALSE;
  g_signal_emit (self, signals[JOB_FINISHED], 0, finished);
  cs_copy_queue_advance (self);
}

/* Runs the copy shown, once; a cancelled one too, since only a run reports
 * the end, even of a job cancelled before it began. */
void
cs_copy_queue_run (CsCopyQueue *self)
{
  g_return_if_fail (CS_IS_COPY_QUEUE (self));

  if (self->job == NULL || self->job_running)
    return;

  self->job_running = TRUE;
  cs_job_run_async (self->job, self->cancellable, run_done_cb, g_object_ref (self));
}

/*
 * Checks @job, whose destination is @destination, and makes it the copy
 * shown ("job-shown"); it runs on cs_copy_queue_run (). FALSE with @error
 * when it cannot start; nothing changes then.
 */
gboolean
cs_copy_queue_start (CsCopyQueue  *self,
                     CsJob        *job,
                     const char   *destination,
                     GError      **error)
{
  g_return_val_if_fail (CS_IS_COPY_QUEUE (self), FALSE);
  g_return_val_if_fail (CS_IS_JOB (job), FALSE);
  g_return_val_if_fail (self->job == NULL, FALSE);

  if (!cs_job_check (job, error))
    return FALSE;

  self->job = g_object_ref (job);
  self->job_device = cs_queued_job_device_of (destination);
  self->cancellable = g_cancellable_new ();
  self->job_running = FALSE;
  g_signal_emit (self, signals[JOB_SHOWN], 0, job, FALSE);

  return TRUE;
}

/*
 * @job (checked here) waits in the queue until the copies to its destination
 * device queued before it have run, so two never share a disk or a server;
 * with "queue-side-by-side", one to another device starts at once beside the
 * running copy. FALSE with @error when it cannot run.
 */
gboolean
cs_copy_queue_add (CsCopyQueue        *self,
                   CsJob              *job,
                   const char * const *sources,
                   const char         *destination,
                   GError            **error)
{
  g_autoptr(CsQueuedJob) queued = NULL;

  g_return_val_if_fail (CS_IS_COPY_QUEUE (self), FALSE);
  g_return_val_if_fail (CS_IS_JOB (job), FALSE);

  if (!cs_job_check (job, error))
    return FALSE;

  queued = cs_queued_job_new (job, sources, destination);
  g_list_store_append (self->queue, queued);
  cs_copy_queue_advance (self);
  return TRUE;
}

/* Whether a copy runs to @device: a second one waits for it. */
static gboolean
cs_copy_queue_device_busy (CsCopyQueue *self,
                           const char  *device)
{
  if (self->job != NULL && g_strcmp0 (self->job_device, device) == 0)
    return TRUE;
  for (guint i = 0; i < self->side_jobs->len; i++)
    if (g_strcmp0 (cs_queued_job_get_device (g_ptr_array_index (self->side_jobs, i)), device) == 0)
      return TRUE;

  return FALSE;
}

/* The first queued copy that may start: not held, not running, its device free. */
static CsQueuedJob *
cs_copy_queue_next (CsCopyQueue *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->queue));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(CsQueuedJob) candidate = g_list_model_get_item (G_LIST_MODEL (self->queue), i);

      if (!cs_queued_job_get_held (candidate) && !cs_queued_job_get_running (candidate) &&
          !cs_copy_queue_device_busy (self, cs_queued_job_get_device (candidate)))
        return g_steal_pointer (&candidate);
    }

  return NULL;
}

/* A copy running side by side becomes the one shown, when that one ended and
 * none queued can take its place. */
static void
cs_copy_queue_show_side_job (CsCopyQueue *self)
{
  g_autoptr(CsQueuedJob) queued = g_ptr_array_steal_index (self->side_jobs, 0);
  CsJob *job = cs_queued_job_get_job (queued);

  cs_copy_queue_take_out (self, queued);
  cs_queued_job_set_running (queued, FALSE);

  self->job = g_object_ref (job);
  self->job_device = g_strdup (cs_queued_job_get_device (queued));
  self->cancellable = g_cancellable_new ();
  self->job_running = TRUE;
  g_signal_emit (self, signals[JOB_SHOWN], 0, job, TRUE);
}

/* @queued runs beside the copy shown and stays in the queue's list, marked
 * running, until it ends. */
static void
cs_copy_queue_start_side_job (CsCopyQueue *self,
                              CsQueuedJob *queued)
{
  CsJob *job = cs_queued_job_get_job (queued);

  cs_queued_job_set_running (queued, TRUE);
  g_ptr_array_add (self->side_jobs, g_object_ref (queued));
  g_signal_emit (self, signals[SIDE_JOB_STARTED], 0, job);
  cs_job_run_async (job, NULL, run_done_cb, g_object_ref (self));
}

/*
 * Starts what the queue allows. When nothing is shown, the first queued copy
 * whose device is free starts and is shown, or else one running side by side
 * is shown. With "queue-side-by-side", the queued copies to other devices
 * start beside it.
 */
void
cs_copy_queue_advance (CsCopyQueue *self)
{
  CsQueuedJob *next;

  g_return_if_fail (CS_IS_COPY_QUEUE (self));

  while (self->job == NULL && (next = cs_copy_queue_next (self)) != NULL)
    {
      g_autoptr(CsQueuedJob) queued = next;
      CsJob *job = cs_queued_job_get_job (queued);
      g_autoptr(GError) error = NULL;

      cs_copy_queue_take_out (self, queued);
      /* One that cannot start any more (a source gone meanwhile) is told;
       * the next one gets its turn. */
      if (!cs_copy_queue_start (self, job, cs_queued_job_get_destination (queued), &error))
        g_signal_emit (self, signals[REFUSED], 0, job, error);
    }
  if (self->job == NULL && self->side_jobs->len > 0)
    cs_copy_queue_show_side_job (self);

  if (self->job == NULL || !g_settings_get_boolean (self->settings, "queue-side-by-side"))
    return;
  while ((next = cs_copy_queue_next (self)) != NULL)
    {
      g_autoptr(CsQueuedJob) queued = next;

      cs_copy_queue_start_side_job (self, queued);
    }
}

/* A waiting copy one place to @to; those running side by side stay. */
void
cs_copy_queue_move (CsCopyQueue *self,
                    guint        from,
                    guint        to)
{
  g_autoptr(CsQueuedJob) queued = NULL;

  g_return_if_fail (CS_IS_COPY_QUEUE (self));

  queued = g_list_model_get_item (G_LIST_MODEL (self->queue), from);
  if (queued == NULL || to >= g_list_model_get_n_items (G_LIST_MODEL (self->queue)) ||
      cs_queued_job_get_running (queued))
    return;
  g_list_store_remove (self->queue, from);
  g_list_store_insert (self->queue, to, queued);
}

/* Holds the waiting copy at @position, or lets it go: its turn may be now. */
void
cs_copy_queue_toggle_held (CsCopyQueue *self,
                           guint        position)
{
  g_autoptr(CsQueuedJob) queued = NULL;

  g_return_if_fail (CS_IS_COPY_QUEUE (self));

  queued = g_list_model_get_item (G_LIST_MODEL (self->queue), position);
  if (queued == NULL || cs_queued_job_get_running (queued))
    return;
  cs_queued_job_set_held (queued, !cs_queued_job_get_held (queued));
  cs_copy_queue_advance (self);
}

/* A waiting copy leaves the queue; one running side by side is cancelled on
 * its own page, once shown. */
void
cs_copy_queue_remove (CsCopyQueue *self,
                      guint        position)
{
  g_autoptr(CsQueuedJob) queued = NULL;

  g_return_if_fail (CS_IS_COPY_QUEUE (self));

  queued = g_list_model_get_item (G_LIST_MODEL (self->queue), position);
  if (queued != NULL && !cs_queued_job_get_running (queued))
    g_list_store_remove (self->queue, position);
}

/* Every copy waiting leaves the queue. */
void
cs_copy_queue_clear (CsCopyQueue *self)
{
  g_return_if_fail (CS_IS_COPY_QUEUE (self));

  g_list_store_remove_all (self->queue);
}

/*
 * Cancels every copy, shown or side by side, and empties the queue: its
 * window is going. What runs ends on its own, told to nobody the queue
 * still signals; a copy shown but not yet run is let go at once.
 */
void
cs_copy_queue_cancel_all (CsCopyQueue *self)
{
  g_return_if_fail (CS_IS_COPY_QUEUE (self));

  if (self->job != NULL)
    {
      cs_job_cancel (self->job);
      if (!self->job_running)
        {
          g_clear_object (&self->job);
          g_clear_pointer (&self->job_device, g_free);
        }
      g_cancellable_cancel (self->cancellable);
      if (!self->job_running)
        g_clear_object (&self->cancellable);
    }
  for (guint i = 0; i < self->side_jobs->len; i++)
    cs_job_cancel (cs_queued_job_get_job (g_ptr_array_index (self->side_jobs, i)));
  cs_copy_queue_clear (self);
}
