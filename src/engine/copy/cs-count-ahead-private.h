/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "cs-job.h"

G_BEGIN_DECLS

/* controller thread: starts counting the sources' files and bytes ahead of the
 * scanner (nothing in a dry run), and stops and joins that count. */
void      _cs_count_ahead_start    (CsJob        *job);
void      _cs_count_ahead_stop     (CsJob        *job);

G_END_DECLS
