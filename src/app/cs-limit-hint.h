/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "cs-run.h"

G_BEGIN_DECLS

#define CS_TYPE_LIMIT_HINT (cs_limit_hint_get_type ())
G_DECLARE_FINAL_TYPE (CsLimitHint, cs_limit_hint, CS, LIMIT_HINT, GtkWidget)

void        cs_limit_hint_reset        (CsLimitHint          *self);
void        cs_limit_hint_push_sample  (CsLimitHint          *self,
                                        const CsSample       *sample);
void        cs_limit_hint_push_phases  (CsLimitHint          *self,
                                        const CsPhaseBucket  *buckets,
                                        guint                 n_buckets);
void        cs_limit_hint_set_phases_link (CsLimitHint       *self,
                                           gboolean           phases_link);
gboolean    cs_limit_hint_get_phases_link (CsLimitHint       *self);
void        cs_limit_hint_set_limited  (CsLimitHint          *self,
                                        gboolean              limited);
void        cs_limit_hint_set_scan_ended (CsLimitHint        *self,
                                          gboolean            scan_ended);
void        cs_limit_hint_set_remote   (CsLimitHint          *self,
                                        gboolean              remote);
void        cs_limit_hint_set_change   (CsLimitHint          *self,
                                        const CsThreadChange *change);
const char *cs_limit_hint_get_text     (CsLimitHint          *self);

G_END_DECLS
