/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "cs-job.h"

G_BEGIN_DECLS

typedef struct _CsSampler CsSampler;

CsSampler *_cs_sampler_new         (CsJob        *job);
/* sampler thread; @final: the job has ended, this sample closes the record */
void       _cs_sampler_take        (CsSampler    *sampler,
                                    gboolean      record,
                                    gboolean      final);
void       _cs_sampler_free        (CsSampler    *sampler);

G_END_DECLS
