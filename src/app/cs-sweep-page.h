/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "cs-sweep.h"

G_BEGIN_DECLS

#define CS_TYPE_SWEEP_PAGE (cs_sweep_page_get_type ())
G_DECLARE_FINAL_TYPE (CsSweepPage, cs_sweep_page, CS, SWEEP_PAGE, GtkWidget)

void        cs_sweep_page_set_source         (CsSweepPage *self,
                                              GFile       *source);
void        cs_sweep_page_set_destination    (CsSweepPage *self,
                                              GFile       *destination);
void        cs_sweep_page_set_threads        (CsSweepPage *self,
                                              const guint *threads,
                                              guint        n_threads);
void        cs_sweep_page_set_repeats        (CsSweepPage *self,
                                              guint        repeats);
void        cs_sweep_page_set_cold           (CsSweepPage *self,
                                              gboolean     cold);
gboolean    cs_sweep_page_start              (CsSweepPage *self);
void        cs_sweep_page_cancel             (CsSweepPage *self);
gboolean    cs_sweep_page_is_running         (CsSweepPage *self);
void        cs_sweep_page_show_sweep         (CsSweepPage *self,
                                              CsSweep     *sweep);
CsSweep    *cs_sweep_page_get_sweep          (CsSweepPage *self);
const char *cs_sweep_page_get_recommendation (CsSweepPage *self);

G_END_DECLS
