/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "cs-run.h"

G_BEGIN_DECLS

#define CS_TYPE_PHASE_VIEW (cs_phase_view_get_type ())
G_DECLARE_FINAL_TYPE (CsPhaseView, cs_phase_view, CS, PHASE_VIEW, GtkWidget)

/* Copies with more workers show the stack but no lanes. */
#define CS_PHASE_VIEW_MAX_LANES 64

void      cs_phase_view_set_run        (CsPhaseView *self,
                                        CsRun       *run);
/* Reads the run's phases again (at most a few times a second unless
 * @force); call on the job's "sample" and "threads-changed". */
void      cs_phase_view_refresh        (CsPhaseView *self,
                                        gboolean     force);
/* Whether the run has phase data to show. */
gboolean  cs_phase_view_get_has_data   (CsPhaseView *self);
/* The workers' rows the lanes draw: 0 without lanes. */
guint     cs_phase_view_get_n_lanes    (CsPhaseView *self);

G_END_DECLS
