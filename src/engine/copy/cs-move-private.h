/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * Moving (CS_OPERATION_MOVE). Never a file lost: at every moment each source
 * file is in the source, in the destination, or in both.
 *
 * Within one filesystem a move is a rename: of each top-level item when its
 * name is free at the destination, else (merging into an existing folder)
 * of each folder whose name is free and each file the overwrite policy lets
 * through. A rename is atomic, so a crash leaves the item under one name or
 * the other.
 *
 * Across filesystems each file is copied as a copy would (temporary, checks,
 * --verify, publication) and its source is removed only after that: removals
 * wait in a batch until the destination's filesystem has been flushed
 * (syncfs) after the last publication in it, and each source is removed only
 * if it is still the file that was copied. A crash before the flush leaves
 * the source; after it, the published copy is on the disk.
 *
 * A source file whose destination is identical by size and time is compared
 * byte for byte before its source is removed; one kept because the
 * destination is newer or differs stays in the source and is reported.
 * Source folders are removed once empty, after everything inside them.
 */

#include "cs-dir-private.h"
#include "cs-job-private.h"

G_BEGIN_DECLS

/* Removals wait for a flush until this many are due, or the oldest is this old. */
#define CS_MOVE_BATCH      256
#define CS_MOVE_BATCH_US   (G_USEC_PER_SEC / 2)

/* scanner thread: whether @dir's source and destination folders lie on one
 * filesystem, so that its items can be renamed. */
void      _cs_move_probe_dir       (CsJob             *job,
                                    CsDir             *dir);
/* scanner thread: moves @name (a file or a whole folder) from @parent's
 * source into @dst_name in its destination by one rename; TRUE when it did,
 * and counted it. FALSE when it must be walked: another filesystem, a name
 * taken at the destination (a merge), or the rename refused. */
gboolean  _cs_move_rename_whole    (CsJob             *job,
                                    CsDir             *parent,
                                    const char        *name,
                                    const char        *dst_name,
                                    const struct stat *st);
/* worker thread: what a move does with a file or link @action decided on.
 * TRUE when that settled it (renamed, its source removed or kept, failed);
 * FALSE when it is to be copied, after which _cs_move_copied removes its
 * source. */
gboolean  _cs_move_item            (CsJob             *job,
                                    CsWorker          *worker,
                                    CsItem            *item,
                                    CsAction           action);
/* worker thread: @item was published at the destination; its source goes
 * once the destination is flushed. */
void      _cs_move_copied          (CsJob             *job,
                                    CsItem            *item);
/* Removes the sources whose copies wait for a flush. The controller calls it
 * with @all once no worker runs; workers call it when a batch is due. */
void      _cs_move_drain           (CsJob             *job,
                                    gboolean           all);
/* any thread, from the folder's last reference: removes the source folder if
 * it is empty now. */
void      _cs_move_finish_dir      (CsJob             *job,
                                    CsDir             *dir);

G_END_DECLS
