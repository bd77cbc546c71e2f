/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "cs-manifest-format.h"
#include "cs-run.h"

G_BEGIN_DECLS

/* What a check of a folder against a manifest found (cs_manifest_check_sync). */
typedef struct {
  guint64 listed;       /* lines in the manifest */
  guint64 matched;      /* files that hold what the manifest says */
  guint64 changed;      /* files that hold something else */
  guint64 missing;      /* listed, not there (or no longer a regular file) */
  guint64 extra;        /* regular files there that the manifest does not list */
  guint64 unreadable;   /* there, but could not be read */
  guint64 bytes;        /* read to check */
} CsManifestCheck;

/* Called on the thread of cs_manifest_check_sync for each difference, in
 * no particular order: @what is "changed", "missing", "extra" or
 * "unreadable"; @path is relative to the folder, in the filename encoding;
 * @message says why for unreadable files, else NULL. */
typedef void (*CsManifestCheckFunc) (const char *what,
                                     const char *path,
                                     const char *message,
                                     gpointer    user_data);

/*
 * Reads every file @manifest lists in @folder with @threads workers and
 * compares it with its line; then walks @folder for regular files the
 * manifest does not list (the manifest itself, and Copyscope's own
 * temporaries, are not extras). FALSE with @error only when the check
 * cannot run (the manifest unreadable or malformed, @folder missing);
 * differences are counted in @out and told to @func. @run, if given, is
 * recorded as a run of kind "check": its totals (Total the files listed,
 * Copied the matches, Mismatch the changed, Failed the missing and
 * unreadable, Extras the extras), every difference in its error list,
 * samples of its reading every quarter second (the graph), its duration
 * and outcome.
 */
gboolean    cs_manifest_check_sync       (const char          *manifest,
                                          const char          *folder,
                                          guint                threads,
                                          CsManifestCheckFunc  func,
                                          gpointer             user_data,
                                          CsRun               *run,
                                          CsManifestCheck     *out,
                                          GError             **error);

/* Called on the check's thread about every quarter second while it runs,
 * and once at its end: @sample is the one the record gets (files and bytes
 * checked so far, the read rate), @so_far the counts so far (@listed grows
 * while the manifest is read). */
typedef void (*CsManifestProgressFunc) (const CsSample         *sample,
                                        const CsManifestCheck  *so_far,
                                        gpointer                user_data);

/*
 * cs_manifest_check_sync () on a thread of its own, for a window: @run (not
 * NULL) is recorded as there, and the differences are in its error list;
 * @progress, if given, is called on that thread; @callback on the caller's
 * thread-default main context. Cancelled, the check stops reading and the
 * record's outcome is "cancelled"; _finish then fails with
 * G_IO_ERROR_CANCELLED. The record is the caller's to read after _finish.
 */
void        cs_manifest_check_async      (const char              *manifest,
                                          const char              *folder,
                                          guint                    threads,
                                          CsRun                   *run,
                                          CsManifestProgressFunc   progress,
                                          gpointer                 progress_data,
                                          GCancellable            *cancellable,
                                          GAsyncReadyCallback      callback,
                                          gpointer                 user_data);
/* The counts into @out (even when it fails, what was counted). */
gboolean    cs_manifest_check_finish     (GAsyncResult            *result,
                                          CsManifestCheck         *out,
                                          GError                 **error);

G_END_DECLS
