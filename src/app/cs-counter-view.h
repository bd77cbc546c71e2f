/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "cs-run.h"

G_BEGIN_DECLS

#define CS_TYPE_COUNTER_VIEW (cs_counter_view_get_type ())
G_DECLARE_FINAL_TYPE (CsCounterView, cs_counter_view, CS, COUNTER_VIEW, GtkWidget)

void cs_counter_view_set_sample (CsCounterView  *self,
                                 const CsSample *sample);

G_END_DECLS
