/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib-object.h>

#include "copyscope-engine.h"

G_BEGIN_DECLS

#define CS_TYPE_QUEUED_JOB (cs_queued_job_get_type ())
G_DECLARE_FINAL_TYPE (CsQueuedJob, cs_queued_job, CS, QUEUED_JOB, GObject)

CsQueuedJob *cs_queued_job_new             (CsJob              *job,
                                            const char * const *sources,
                                            const char         *destination);
CsJob       *cs_queued_job_get_job         (CsQueuedJob        *self);
const char * const *cs_queued_job_get_sources (CsQueuedJob     *self);
const char  *cs_queued_job_get_destination (CsQueuedJob        *self);
gboolean     cs_queued_job_get_held        (CsQueuedJob        *self);
void         cs_queued_job_set_held        (CsQueuedJob        *self,
                                            gboolean            held);
const char  *cs_queued_job_get_device      (CsQueuedJob        *self);
gboolean     cs_queued_job_get_running     (CsQueuedJob        *self);
void         cs_queued_job_set_running     (CsQueuedJob        *self,
                                            gboolean            running);
char        *cs_queued_job_device_of       (const char         *destination);

G_END_DECLS
