/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * One blocking engine call run in a thread of GTask's, for the _async/_finish
 * pairs of the sweep, the demonstration and the generator.
 *
 * GTask hands its data from the caller's thread to a worker and back through
 * GLib's own queues and reference counts, which ThreadSanitizer cannot see
 * (src/engine/cs-tsan-private.h). The data is then freed by whichever thread
 * drops the task last — sometimes the worker, after the caller has read it in
 * _finish. Every hand-off is annotated here once, for all three callers.
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

G_END_DECLS
