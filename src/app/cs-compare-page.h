/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "cs-report.h"
#include "cs-run.h"

G_BEGIN_DECLS

#define CS_TYPE_COMPARE_PAGE (cs_compare_page_get_type ())
G_DECLARE_FINAL_TYPE (CsComparePage, cs_compare_page, CS, COMPARE_PAGE, GtkWidget)

void                cs_compare_page_set_runs    (CsComparePage      *self,
                                                 CsRun             **runs,
                                                 guint               n_runs,
                                                 const char * const *labels);
CsRun             **cs_compare_page_get_runs    (CsComparePage      *self,
                                                 guint              *n_runs);
const char * const *cs_compare_page_get_labels  (CsComparePage      *self);
const char         *cs_compare_page_get_verdict (CsComparePage      *self);
CsReportFormat      cs_compare_page_get_format  (CsComparePage      *self);

G_END_DECLS
