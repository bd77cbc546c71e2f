/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "cs-copy-queue.h"

G_BEGIN_DECLS

#define CS_TYPE_APPLICATION (cs_application_get_type ())
G_DECLARE_FINAL_TYPE (CsApplication, cs_application, CS, APPLICATION, AdwApplication)

CsApplication *cs_application_new          (void);
GSettings     *cs_application_get_settings (CsApplication *self);
CsCopyQueue   *cs_application_get_copy_queue (CsApplication *self);

G_END_DECLS
