/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "cs-history-row.h"
#include "cs-run.h"
#include "cs-sweep.h"

G_BEGIN_DECLS

#define CS_TYPE_HISTORY_PAGE (cs_history_page_get_type ())
G_DECLARE_FINAL_TYPE (CsHistoryPage, cs_history_page, CS, HISTORY_PAGE, GtkWidget)

void          cs_history_page_reload       (CsHistoryPage *self);
guint         cs_history_page_get_n_runs   (CsHistoryPage *self);
guint         cs_history_page_get_n_sweeps (CsHistoryPage *self);
CsHistoryRow *cs_history_page_get_run_row  (CsHistoryPage *self,
                                            guint          index);
GPtrArray    *cs_history_page_dup_chosen   (CsHistoryPage *self);
void          cs_history_page_compare      (CsHistoryPage *self);

G_END_DECLS
