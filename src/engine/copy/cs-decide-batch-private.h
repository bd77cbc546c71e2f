/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * A rerun onto a local disk: the files the destination's listing already
 * holds are handed to the pool in batches of one queue trip each, and a
 * worker decides every one of them by the same decision as any other file
 * (_cs_copy_decide: placeholders, claims, newer, changed-since, --overwrite,
 * metadata-only changes), skipping the identical and copying the rest
 * through the usual publishing, which never overwrites what appeared or
 * changed meanwhile. The scanner then reads only the source (its listing and
 * a stat per file) while the workers stat the destination beside it, two
 * sides at once as rsync's two processes do; a file decided in the scanner
 * thread cost it a second stat per file, and one handed over alone a queue
 * trip (futex wake-ups) per file.
 *
 * Only names the destination folder was listed with: a fresh copy (and a new
 * file of a rerun) keeps the scanner's own batching (queue_item), which a
 * batch of fixed size slowed.
 */

#include <sys/stat.h>

#include "cs-items-private.h"
#include "cs-job-private.h"

G_BEGIN_DECLS

/* scanner thread: whether files of @dir the destination listing holds go
 * in decision batches (a local destination, not a dry run). */
gboolean  _cs_decide_batch_wanted  (CsJob             *job,
                                    CsDir             *dir);

/* scanner thread: @name of @dir (@dst_name or NULL when the same), found
 * with @st, goes to the pool in the current decision batch. */
void      _cs_decide_batch_add     (CsJob             *job,
                                    CsDir             *dir,
                                    const char        *name,
                                    const char        *dst_name,
                                    const struct stat *st);

/* scanner thread: hands the current decision batch, if any, to the pool. */
void      _cs_decide_batch_flush   (CsJob             *job);

G_END_DECLS
