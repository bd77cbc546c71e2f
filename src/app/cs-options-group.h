/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "cs-run.h"

G_BEGIN_DECLS

#define CS_TYPE_OPTIONS_GROUP (cs_options_group_get_type ())
G_DECLARE_FINAL_TYPE (CsOptionsGroup, cs_options_group, CS, OPTIONS_GROUP, AdwPreferencesGroup)

void        cs_options_group_bind_settings  (CsOptionsGroup *self,
                                             GSettings      *settings);
CsOverwrite cs_options_group_get_overwrite  (CsOptionsGroup *self);
void        cs_options_group_set_overwrite  (CsOptionsGroup *self,
                                             CsOverwrite     overwrite);
gboolean    cs_options_group_get_verify     (CsOptionsGroup *self);
gboolean    cs_options_group_get_flush      (CsOptionsGroup *self);
gboolean    cs_options_group_get_keep_log   (CsOptionsGroup *self);
gboolean    cs_options_group_get_keep_manifest (CsOptionsGroup *self);
guint       cs_options_group_get_retries    (CsOptionsGroup *self);
double      cs_options_group_get_wait       (CsOptionsGroup *self);

G_END_DECLS
