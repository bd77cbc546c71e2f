/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "cs-job.h"
#include "cs-speed-limit.h"
#include "cs-thread-slider.h"

G_BEGIN_DECLS

#define CS_TYPE_COPY_PAGE (cs_copy_page_get_type ())
G_DECLARE_FINAL_TYPE (CsCopyPage, cs_copy_page, CS, COPY_PAGE, GtkWidget)

void            cs_copy_page_set_job            (CsCopyPage *self,
                                                 CsJob      *job);
CsJob          *cs_copy_page_get_job            (CsCopyPage *self);
CsThreadSlider *cs_copy_page_get_thread_slider  (CsCopyPage *self);
CsSpeedLimit   *cs_copy_page_get_speed_limit    (CsCopyPage *self);
void            cs_copy_page_bind_settings      (CsCopyPage *self,
                                                 GSettings  *settings);
void            cs_copy_page_set_queue          (CsCopyPage *self,
                                                 GListModel *queue);

G_END_DECLS
