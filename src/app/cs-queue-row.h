/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "cs-queued-job.h"

G_BEGIN_DECLS

#define CS_TYPE_QUEUE_ROW (cs_queue_row_get_type ())
G_DECLARE_FINAL_TYPE (CsQueueRow, cs_queue_row, CS, QUEUE_ROW, AdwActionRow)

GtkWidget   *cs_queue_row_new     (CsQueuedJob *queued);
CsQueuedJob *cs_queue_row_get_job (CsQueueRow  *self);

G_END_DECLS
