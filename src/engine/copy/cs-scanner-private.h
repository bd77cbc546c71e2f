/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "cs-job.h"

G_BEGIN_DECLS

/* controller thread: walks the sources, creates the destination folders and
 * hands the files to the job's bounded queue. */
void      _cs_scanner_run          (CsJob        *job);
/* controller thread, once a mirror's deletions are done: copies the entries
 * that replace ones of another type (cs-mirror-private.h), and frees them. */
void      _cs_scanner_run_replaced (CsJob        *job,
                                    GPtrArray    *replaced);

G_END_DECLS
