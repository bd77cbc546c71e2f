/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "cs-run.h"

G_BEGIN_DECLS

#define CS_TYPE_SUMMARY_PAGE (cs_summary_page_get_type ())
G_DECLARE_FINAL_TYPE (CsSummaryPage, cs_summary_page, CS, SUMMARY_PAGE, GtkWidget)

void        cs_summary_page_set_run      (CsSummaryPage *self,
                                          CsRun         *run);
CsRun      *cs_summary_page_get_run      (CsSummaryPage *self);
const char *cs_summary_page_get_log_path (CsSummaryPage *self);

G_END_DECLS
