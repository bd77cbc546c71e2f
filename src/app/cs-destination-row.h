/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define CS_TYPE_DESTINATION_ROW (cs_destination_row_get_type ())
G_DECLARE_FINAL_TYPE (CsDestinationRow, cs_destination_row, CS, DESTINATION_ROW, AdwActionRow)

GFile    *cs_destination_row_get_file     (CsDestinationRow *self);
gboolean  cs_destination_row_get_missing  (CsDestinationRow *self);
void      cs_destination_row_set_file     (CsDestinationRow *self,
                                           GFile            *file);

G_END_DECLS
