/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "cs-job.h"

G_BEGIN_DECLS

#define CS_TYPE_COPY_QUEUE (cs_copy_queue_get_type ())
G_DECLARE_FINAL_TYPE (CsCopyQueue, cs_copy_queue, CS, COPY_QUEUE, GObject)

CsCopyQueue *cs_copy_queue_new             (GSettings           *settings);

CsJob       *cs_copy_queue_get_job         (CsCopyQueue         *self);
gboolean     cs_copy_queue_get_job_running (CsCopyQueue         *self);
GListModel  *cs_copy_queue_get_model       (CsCopyQueue         *self);

gboolean     cs_copy_queue_start           (CsCopyQueue         *self,
                                            CsJob               *job,
                                            const char          *destination,
                                            GError             **error);
void         cs_copy_queue_run             (CsCopyQueue         *self);
gboolean     cs_copy_queue_add             (CsCopyQueue         *self,
                                            CsJob               *job,
                                            const char * const  *sources,
                                            const char          *destination,
                                            GError             **error);
void         cs_copy_queue_advance         (CsCopyQueue         *self);

void         cs_copy_queue_move            (CsCopyQueue         *self,
                                            guint                from,
                                            guint                to);
void         cs_copy_queue_toggle_held     (CsCopyQueue         *self,
                                            guint                position);
void         cs_copy_queue_remove          (CsCopyQueue         *self,
                                            guint                position);
void         cs_copy_queue_clear           (CsCopyQueue         *self);
void         cs_copy_queue_cancel_all      (CsCopyQueue         *self);

G_END_DECLS
