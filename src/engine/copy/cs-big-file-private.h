/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "cs-job-private.h"

G_BEGIN_DECLS

/* scanner thread: a big file to be copied in @n_chunks chunk items, each of
 * which holds a reference. */
CsBig    *_cs_big_new              (int           n_chunks);
/* any thread: the last reference closes the file and removes its temporary
 * unless it was published. */
void      _cs_big_unref            (CsJob        *job,
                                    CsBig        *big);
/* worker thread: copies chunk @item; the last chunk out finishes, publishes
 * and records the file. Returns the file's first-name link to settle
 * (@ready: its copy is at the destination), or NULL. */
CsLink   *_cs_big_copy_chunk       (CsJob        *job,
                                    CsWorker     *worker,
                                    CsItem       *item,
                                    gboolean     *ready);

G_END_DECLS
