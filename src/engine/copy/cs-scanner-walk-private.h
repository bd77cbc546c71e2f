/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "cs-job-private.h"
#include "cs-scanner-claims-private.h"

G_BEGIN_DECLS

/* scanner thread, dry runs: tells the job's plan what would be done. */
void      _cs_scanner_plan         (CsJob        *job,
                                    const char   *action,
                                    CsDir        *dir,
                                    const char   *name,
                                    const char   *dst_name);
/* scanner thread: hands over the files gathered in a batch. */
void      _cs_scanner_flush_batch  (CsJob        *job);
/* scanner thread: one entry @name of @dir (@d_type as listed, or
 * DT_UNKNOWN): a file queued, a folder created and walked, with the later
 * sources' folders in @later (CsLater, or NULL) merged into it. */
void      _cs_scanner_handle_entry (CsJob        *job,
                                    CsDir        *dir,
                                    const char   *name,
                                    const char   *dst_name,
                                    unsigned char d_type,
                                    CsFolderScan *scan,
                                    guint         depth,
                                    GPtrArray    *later);

G_END_DECLS
