/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define CS_TYPE_RESUME_HINT (cs_resume_hint_get_type ())
G_DECLARE_FINAL_TYPE (CsResumeHint, cs_resume_hint, CS, RESUME_HINT, AdwActionRow)

void     cs_resume_hint_refresh         (CsResumeHint *self);
void     cs_resume_hint_set_sources     (CsResumeHint *self,
                                         GListModel   *sources);
GFile   *cs_resume_hint_get_destination (CsResumeHint *self);
void     cs_resume_hint_set_destination (CsResumeHint *self,
                                         GFile        *destination);

G_END_DECLS
