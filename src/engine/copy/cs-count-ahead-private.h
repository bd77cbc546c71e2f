/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "cs-job-private.h"

G_BEGIN_DECLS

/* controller thread: starts counting the sources' files and bytes ahead of the
 * scanner (nothing in a dry run), and stops and joins that count. */
void      _cs_count_ahead_start    (CsJob        *job);
void      _cs_count_ahead_stop     (CsJob        *job);

void      _cs_count_ahead_at_slow  (CsJob        *job,
                                    guint         depth,
                                    guint         index);

/* scanner thread, before it handles an entry: it is at entry @index (in
 * its folder's listing, "." and ".." left out) of a folder @depth levels
 * down the source (1: the source folder's own entries). Where the count
 * ahead meets the scanner (cs-count-ahead.c); nothing once they met. */
static inline void
_cs_count_ahead_at (CsJob *job,
                    guint  depth,
                    guint  index)
{
  if (G_UNLIKELY (atomic_load_explicit (&job->ahead.meeting, memory_order_relaxed)))
    _cs_count_ahead_at_slow (job, depth, index);
}

G_END_DECLS
