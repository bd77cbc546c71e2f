/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define CS_TYPE_THREAD_SLIDER (cs_thread_slider_get_type ())
G_DECLARE_FINAL_TYPE (CsThreadSlider, cs_thread_slider, CS, THREAD_SLIDER, GtkWidget)

guint      cs_thread_slider_get_threads (CsThreadSlider *self);
void       cs_thread_slider_set_threads (CsThreadSlider *self,
                                         guint           threads);
GtkWidget *cs_thread_slider_get_scale   (CsThreadSlider *self);
gboolean   cs_thread_slider_get_auto    (CsThreadSlider *self);
void       cs_thread_slider_set_auto    (CsThreadSlider *self,
                                         gboolean        auto_threads);

G_END_DECLS
