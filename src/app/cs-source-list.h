/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define CS_TYPE_SOURCE_LIST (cs_source_list_get_type ())
G_DECLARE_FINAL_TYPE (CsSourceList, cs_source_list, CS, SOURCE_LIST, GtkWidget)

GListModel *cs_source_list_get_files    (CsSourceList  *self);
guint       cs_source_list_get_n_files  (CsSourceList  *self);
void        cs_source_list_add          (CsSourceList  *self,
                                         GFile        **files,
                                         guint          n_files);
void        cs_source_list_clear        (CsSourceList  *self);
gboolean    cs_source_list_get_missing  (CsSourceList  *self,
                                         GFile        **out_missing);
void        cs_source_list_set_copy_as  (CsSourceList  *self,
                                         GFile         *file,
                                         const char    *name);
const char *cs_source_list_get_copy_as  (CsSourceList  *self,
                                         GFile         *file);

G_END_DECLS
