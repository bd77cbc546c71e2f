/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <sys/stat.h>

#include "cs-conflict.h"
#include "cs-job.h"

G_BEGIN_DECLS

CsConflict      *_cs_conflict_new  (const char        *source_path,
                                    const char        *destination_path,
                                    const struct stat *src,
                                    const struct stat *dst);
/* Blocks the calling worker until answered; FALSE if the job stops first. */
gboolean         _cs_conflict_wait (CsConflict        *self,
                                    CsJob             *job,
                                    CsConflictAnswer  *out_answer,
                                    gboolean          *out_apply_all);

G_END_DECLS
