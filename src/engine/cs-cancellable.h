/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define CS_TYPE_CANCELLABLE (cs_cancellable_get_type ())
G_DECLARE_FINAL_TYPE (CsCancellable, cs_cancellable, CS, CANCELLABLE, GObject)

/*
 * A request to stop, shared between whoever asks (a Cancel button, Ctrl+C)
 * and the engine calls that honour it (a job, a sweep, the generator).
 *
 * GCancellable does this job in GIO, but the engine does not link GIO: GIO
 * and the libraries it loads are most of what copyscope-cli spent starting up
 * before its first copy request. This keeps GCancellable's rules: cancelling
 * is for good and may happen on any thread; a callback connected after the
 * fact runs at once; disconnect () returns only when the callback is not
 * running on another thread, so its data may be freed afterwards.
 */

typedef void (*CsCancellableFunc) (CsCancellable *cancellable,
                                   gpointer       user_data);

CsCancellable *cs_cancellable_new                    (void);
void           cs_cancellable_cancel                 (CsCancellable      *self);
gboolean       cs_cancellable_is_cancelled           (CsCancellable      *self);
/* CS_IO_ERROR_CANCELLED (GIO's G_IO_ERROR_CANCELLED) when cancelled; NULL is never cancelled */
gboolean       cs_cancellable_set_error_if_cancelled (CsCancellable      *self,
                                                      GError            **error);
/* Runs @func on the cancelling thread, or at once if already cancelled.
 * Returns 0 in that case, else an id for disconnect (). */
gulong         cs_cancellable_connect                (CsCancellable      *self,
                                                      CsCancellableFunc   func,
                                                      gpointer            user_data);
void           cs_cancellable_disconnect             (CsCancellable      *self,
                                                      gulong              id);

G_END_DECLS
