/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/*
 * Before a copy starts: the partial copies of big files that an earlier copy
 * kept (a kill, a lost share, a cancel that kept them) and that this copy of
 * the same sources into the same destination would go on from, each with
 * the bytes its journal says are written. What the window tells before Start.
 */

typedef struct _CsKeptPartial CsKeptPartial;

#define CS_TYPE_KEPT_PARTIAL (cs_kept_partial_get_type ())
GType          cs_kept_partial_get_type (void) G_GNUC_CONST;

CsKeptPartial *cs_kept_partial_ref      (CsKeptPartial *partial);
void           cs_kept_partial_unref    (CsKeptPartial *partial);
/* The file it becomes, relative to the destination: "photos/video.mkv". */
const char    *cs_kept_partial_get_path (CsKeptPartial *partial);
/* Bytes written and journaled, of the source's size. */
guint64        cs_kept_partial_get_kept (CsKeptPartial *partial);
guint64        cs_kept_partial_get_size (CsKeptPartial *partial);

/* The folders visited at most: a hint, not a scan (see cs-kept.c). */
#define CS_KEPT_MAX_FOLDERS 4096

/*
 * The kept partials for a copy of each of @sources into the folder
 * @destination (as "destination/NAME"), in the order found; an empty array
 * when there are none, or the destination does not exist. Paths, or URLs a
 * backend takes. Blocks; NULL with G_IO_ERROR_CANCELLED only when
 * @cancellable was cancelled.
 */
GPtrArray     *cs_kept_partials_find_sync   (const char * const   *sources,
                                             const char           *destination,
                                             GCancellable         *cancellable,
                                             GError              **error);
/* The same on a thread of GTask's. */
void           cs_kept_partials_find_async  (const char * const   *sources,
                                             const char           *destination,
                                             GCancellable         *cancellable,
                                             GAsyncReadyCallback   callback,
                                             gpointer              user_data);
/* An array of CsKeptPartial, or NULL with @error set. */
GPtrArray     *cs_kept_partials_find_finish (GAsyncResult         *result,
                                             GError              **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CsKeptPartial, cs_kept_partial_unref)

G_END_DECLS
