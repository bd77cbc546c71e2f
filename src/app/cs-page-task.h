/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "cs-job.h"

G_BEGIN_DECLS

/*
 * A blocking engine call (a sweep, the demonstration) on a thread of GTask's,
 * for a page that follows it. The jobs the call starts report on that thread,
 * so the page does not connect to them: the call names its current job with
 * _cs_page_task_set_job () and a main-thread timeout hands that job to @poll.
 * @done runs once on the main thread when the call returns, after a last
 * @poll of the job the call named last, as it ended; the task frees itself
 * after it. A page that goes away abandons the
 * task: the call is cancelled and neither callback runs again.
 */

typedef struct _CsPageTask CsPageTask;

/* the task's thread */
typedef gboolean (*CsPageTaskRunFunc)  (CsPageTask    *task,
                                        gpointer       data,
                                        GCancellable  *cancellable,
                                        GError       **error);
/* main thread: @step of @n_steps, as the call last set them */
typedef void     (*CsPageTaskPollFunc) (gpointer       owner,
                                        CsJob         *job,
                                        guint          step,
                                        guint          n_steps);
/* main thread: @error is NULL when the call succeeded */
typedef void     (*CsPageTaskDoneFunc) (gpointer       owner,
                                        gpointer       data,
                                        const GError  *error);

CsPageTask *_cs_page_task_start   (const char         *thread_name,
                                   gpointer            owner,
                                   guint               poll_ms,
                                   gpointer            data,
                                   GDestroyNotify      data_free,
                                   CsPageTaskRunFunc   run,
                                   CsPageTaskPollFunc  poll,
                                   CsPageTaskDoneFunc  done);
void        _cs_page_task_set_job (CsPageTask         *task,
                                   CsJob              *job,
                                   guint               step,
                                   guint               n_steps);
void        _cs_page_task_cancel  (CsPageTask         *task);
void        _cs_page_task_abandon (CsPageTask         *task);

G_END_DECLS
