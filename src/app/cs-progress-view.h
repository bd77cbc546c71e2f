/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "cs-job.h"

G_BEGIN_DECLS

#define CS_TYPE_PROGRESS_VIEW (cs_progress_view_get_type ())
G_DECLARE_FINAL_TYPE (CsProgressView, cs_progress_view, CS, PROGRESS_VIEW, GtkWidget)

void     cs_progress_view_reset    (CsProgressView   *self);
void     cs_progress_view_update   (CsProgressView   *self,
                                    const CsProgress *progress);
double   cs_progress_view_get_rate (CsProgressView   *self);
gboolean cs_progress_view_get_checking (CsProgressView *self);

/* Whether a copy of which @checked files were decided, @skipped of them left
 * as they are, reads as checking rather than copying. @was: it read so
 * before, which holds it there until a third are left, so the headline does
 * not flicker around the half. */
gboolean cs_progress_reads_as_checking (guint64 checked,
                                        guint64 skipped,
                                        gboolean was);

G_END_DECLS
