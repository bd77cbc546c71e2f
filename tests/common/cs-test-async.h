/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/*
 * Waiting for an _async call in a test: pass cs_test_async_store as its
 * callback with a GAsyncResult * set to NULL, then cs_test_async_wait on it.
 * The callback asserts that it runs on the default main context, as an
 * _async call of the engine promises.
 */
void          cs_test_async_store (GObject       *source_object,
                                   GAsyncResult  *result,
                                   gpointer       result_slot);
/* Iterates the default main context until the slot is filled; returns it. */
GAsyncResult *cs_test_async_wait  (GAsyncResult **result_slot);

G_END_DECLS
