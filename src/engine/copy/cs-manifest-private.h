/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * Writing a copy's checksum manifest (cs-manifest.h) from the workers.
 *
 * Lines are gathered under a lock and written in blocks to a temporary
 * beside the manifest's final name (named like the copy's own temporaries),
 * so memory stays bounded whatever the number of files; at the end of a run
 * that was not stopped the temporary is flushed and renamed over the final
 * name, so a manifest under its name is always complete. A cancel or an
 * error that stops the job removes it; a kill leaves only the temporary,
 * which the next run into that folder removes.
 *
 * The digest of a copied file comes from --verify's read-back pass where
 * there is one (finish_temp); otherwise the published file, or the file the
 * copy skipped as already there, is read once from the destination.
 */

#include <glib.h>
#include <xxhash.h>

#include "cs-manifest.h"

G_BEGIN_DECLS

typedef struct _CsJob    CsJob;
typedef struct _CsDir    CsDir;
typedef struct _CsItem   CsItem;
typedef struct _CsManifest CsManifest;

/* Hashes a file's bytes for --verify (XXH3-128) and, when asked, for a
 * SHA-256 manifest in the same pass. */
typedef struct {
  XXH3_state_t *xxh;
  GChecksum    *sha;            /* NULL: not wanted */
} CsHasher;

void      _cs_hasher_init          (CsHasher       *hasher,
                                    gboolean        sha256);
void      _cs_hasher_update        (CsHasher       *hasher,
                                    const void     *data,
                                    gsize           length);
/* @xxh: 16 bytes, XXH128's canonical form (as xxhsum prints it); @sha: 32
 * bytes or NULL. Clears @hasher. */
void      _cs_hasher_finish        (CsHasher       *hasher,
                                    guint8         *xxh,
                                    guint8         *sha);
void      _cs_hasher_clear         (CsHasher       *hasher);

/* main thread, at the start of a run with a manifest set: the temporary is
 * created now, so a manifest that cannot be written stops the run before
 * anything is copied. FALSE with @error. */
gboolean  _cs_manifest_open        (CsJob          *job,
                                    GError        **error);
/* any thread: whether --verify's pass should hash SHA-256 too */
gboolean  _cs_manifest_wants_sha256 (CsJob         *job);

/* worker thread: @item's file is published under @final in its folder;
 * the worker's digest (CsWorker.has_digest) is used when it has one, else
 * the file is read from the destination. */
void      _cs_manifest_copied      (CsJob          *job,
                                    gpointer        worker,
                                    CsItem         *item);
/* worker thread: @item was not copied because the destination holds it
 * (or a file the overwrite rule kept): that file is read and listed. */
void      _cs_manifest_kept        (CsJob          *job,
                                    gpointer        worker,
                                    CsItem         *item);
/* worker thread: a move handled @item itself (a rename, or a skip); what is
 * now under its name at the destination is listed if it is the source's. */
void      _cs_manifest_moved       (CsJob          *job,
                                    gpointer        worker,
                                    CsItem         *item,
                                    int             action);
/* any thread: whether @name in @dir's destination folder is the manifest
 * being written (a mirror does not count it as an extra). */
gboolean  _cs_manifest_is_self     (CsJob          *job,
                                    CsDir          *dir,
                                    const char     *name);
/* controller thread, once everything is copied and flushed: publishes the
 * manifest when the job was not stopped, else removes its temporary; the
 * run record says where it is. */
void      _cs_manifest_finish      (CsJob          *job);
void      _cs_manifest_free        (CsManifest     *manifest);

G_END_DECLS
