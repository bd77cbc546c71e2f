/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define CS_TYPE_FOLD_BOX (cs_fold_box_get_type ())
G_DECLARE_FINAL_TYPE (CsFoldBox, cs_fold_box, CS, FOLD_BOX, GtkWidget)

gboolean cs_fold_box_get_folded (CsFoldBox *self);

G_END_DECLS
