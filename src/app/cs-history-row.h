/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "cs-run.h"
#include "cs-sweep.h"

G_BEGIN_DECLS

#define CS_TYPE_HISTORY_ROW (cs_history_row_get_type ())
G_DECLARE_FINAL_TYPE (CsHistoryRow, cs_history_row, CS, HISTORY_ROW, AdwActionRow)

GtkWidget  *cs_history_row_new_for_run   (CsRun        *run);
GtkWidget  *cs_history_row_new_for_sweep (CsSweep      *sweep,
                                          const char   *path);
CsRun      *cs_history_row_get_run       (CsHistoryRow *self);
CsSweep    *cs_history_row_get_sweep     (CsHistoryRow *self);
const char *cs_history_row_get_path      (CsHistoryRow *self);
gboolean    cs_history_row_get_chosen    (CsHistoryRow *self);
void        cs_history_row_set_chosen    (CsHistoryRow *self,
                                          gboolean      chosen);
void        cs_history_row_rename        (CsHistoryRow *self,
                                          const char   *label);
void        cs_history_row_delete        (CsHistoryRow *self);

G_END_DECLS
