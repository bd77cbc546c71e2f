/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define CS_TYPE_SOURCE_ROW (cs_source_row_get_type ())
G_DECLARE_FINAL_TYPE (CsSourceRow, cs_source_row, CS, SOURCE_ROW, AdwActionRow)

GtkWidget *cs_source_row_new          (GFile       *file);
GFile     *cs_source_row_get_file     (CsSourceRow *self);
gboolean   cs_source_row_get_scanned  (CsSourceRow *self);
gboolean   cs_source_row_get_missing  (CsSourceRow *self);
guint64    cs_source_row_get_n_files  (CsSourceRow *self);
guint64    cs_source_row_get_n_bytes  (CsSourceRow *self);
void       cs_source_row_set_clash    (CsSourceRow *self,
                                       const char  *message);
const char *cs_source_row_get_clash   (CsSourceRow *self);
void       cs_source_row_set_copy_as  (CsSourceRow *self,
                                       const char  *name);
const char *cs_source_row_get_copy_as (CsSourceRow *self);
const char *cs_source_row_get_link_target (CsSourceRow *self);

G_END_DECLS
