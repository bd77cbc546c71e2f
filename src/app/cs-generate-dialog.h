/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "cs-generate.h"

G_BEGIN_DECLS

#define CS_TYPE_GENERATE_DIALOG (cs_generate_dialog_get_type ())
G_DECLARE_FINAL_TYPE (CsGenerateDialog, cs_generate_dialog, CS, GENERATE_DIALOG, AdwWindow)

CsGenerateDialog *cs_generate_dialog_new          (GtkWindow        *parent);
void              cs_generate_dialog_set_scenario (CsGenerateDialog *self,
                                                   CsScenario        scenario);
void              cs_generate_dialog_set_scale    (CsGenerateDialog *self,
                                                   double            scale);
void              cs_generate_dialog_set_folder   (CsGenerateDialog *self,
                                                   GFile            *folder);
gboolean          cs_generate_dialog_start        (CsGenerateDialog *self);

G_END_DECLS
