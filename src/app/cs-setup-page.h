/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "cs-job.h"
#include "cs-speed-limit.h"
#include "cs-thread-slider.h"

G_BEGIN_DECLS

#define CS_TYPE_SETUP_PAGE (cs_setup_page_get_type ())
G_DECLARE_FINAL_TYPE (CsSetupPage, cs_setup_page, CS, SETUP_PAGE, GtkWidget)

void            cs_setup_page_bind_settings     (CsSetupPage   *self,
                                                 GSettings     *settings);
GListModel     *cs_setup_page_get_sources       (CsSetupPage   *self);
void            cs_setup_page_add_sources       (CsSetupPage   *self,
                                                 GFile        **files,
                                                 guint          n_files);
void            cs_setup_page_clear_sources     (CsSetupPage   *self);
const char     *cs_setup_page_get_copy_as       (CsSetupPage   *self,
                                                 GFile         *file);
GFile          *cs_setup_page_get_destination   (CsSetupPage   *self);
void            cs_setup_page_set_destination   (CsSetupPage   *self,
                                                 GFile         *destination);
CsSpeedLimit   *cs_setup_page_get_speed_limit   (CsSetupPage *self);
CsThreadSlider *cs_setup_page_get_thread_slider (CsSetupPage   *self);
void            cs_setup_page_configure_job     (CsSetupPage   *self,
                                                 CsJob         *job);
CsOperation     cs_setup_page_get_operation     (CsSetupPage   *self);
gboolean        cs_setup_page_get_keep_log      (CsSetupPage   *self);
gboolean        cs_setup_page_get_keep_manifest (CsSetupPage   *self);
void            cs_setup_page_set_operation     (CsSetupPage   *self,
                                                 CsOperation    operation);
const char     *cs_setup_page_get_into_title    (CsSetupPage   *self);
void            cs_setup_page_set_overwrite     (CsSetupPage   *self,
                                                 CsOverwrite    overwrite);
void            cs_setup_page_show_refusal      (CsSetupPage   *self,
                                                 const char    *text);
const char     *cs_setup_page_get_refusal       (CsSetupPage   *self);

G_END_DECLS
