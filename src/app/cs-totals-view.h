/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "cs-run.h"

G_BEGIN_DECLS

#define CS_TYPE_TOTALS_VIEW (cs_totals_view_get_type ())
G_DECLARE_FINAL_TYPE (CsTotalsView, cs_totals_view, CS, TOTALS_VIEW, GtkWidget)

/* Shows Robocopy's totals: folders, files and bytes by class. A check's
 * (@check) classes are the files that match, differ or are gone. */
void cs_totals_view_set_totals (CsTotalsView   *self,
                                const CsTotals *totals,
                                gboolean        check);

G_END_DECLS
