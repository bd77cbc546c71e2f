/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * One blocking engine call run in a thread of its own, for the _async/_finish
 * pairs of the sweep, the demonstration, the generator and the partials
 * finder, returned as a GTask on the caller's main context.
 *
 * Every hand-off is one ThreadSanitizer sees: the thread's start, an atomic
 * flag when the work is done, and sources made and freed on the caller's
 * thread only (cs-task.c says why not g_task_run_in_thread). The data is
 * freed by whichever thread drops the task last, after _finish.
 */

#include <gio/gio.h>

G_BEGIN_DECLS

/* Runs in the worker; returns FALSE with @error set on failure, and with
 * G_IO_ERROR_CANCELLED when it stopped because @cancellable was cancelled. */
typedef gboolean (*CsTaskFunc) (gpointer       data,
                                GCancellable  *cancellable,
                                GError       **error);

void     _cs_task_run_in_thread (gpointer             source_tag,
                                 gpointer             data,
                                 GDestroyNotify       free_data,
                                 CsTaskFunc           func,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data);

/* The data given to _cs_task_run_in_thread, or NULL when @result is not one of
 * @source_tag's tasks. */
gpointer _cs_task_get_data      (GAsyncResult        *result,
                                 gpointer             source_tag);

gboolean _cs_task_finish        (GAsyncResult        *result,
                                 gpointer             source_tag,
                                 GError             **error);

/* Runs on the caller's thread, while the worker waits for it. */
typedef void     (*CsTaskCallFunc) (gpointer          call_data);

/* Only from within a CsTaskFunc: @call on the caller's main context. */
void     _cs_task_call_in_caller (CsTaskCallFunc      call,
                                  gpointer            call_data);

G_END_DECLS
