/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "cs-window.h"

G_BEGIN_DECLS

/*
 * What the window tests share. They find widgets the way a user or a screen
 * reader does, by what they are and what they are called, and use only the
 * widgets' public API.
 */

typedef gboolean (*CsUiCondition) (gpointer data);

void        cs_ui_test_init        (int            *argc,
                                    char         ***argv);
gboolean    cs_ui_wait_until       (CsUiCondition   condition,
                                    gpointer        data,
                                    guint           seconds);
void        cs_ui_iterate          (void);
void        cs_ui_screenshot       (gpointer        widget,
                                    const char     *name);

CsWindow   *cs_ui_window_new       (void);
void        cs_ui_window_destroy   (CsWindow       *window);
gboolean    cs_ui_job_done         (gpointer        window);

GtkWidget  *cs_ui_find             (gpointer        root,
                                    GType           type);
GtkWidget  *cs_ui_find_labelled    (gpointer        root,
                                    GType           type,
                                    const char     *accessible_label);
GtkWidget  *cs_ui_find_button      (gpointer        root,
                                    const char     *label);
GtkWidget  *cs_ui_find_label       (gpointer        root,
                                    const char     *contains);
GtkStack   *cs_ui_page_stack       (CsWindow       *window);
const char *cs_ui_visible_page     (CsWindow       *window);
AdwMessageDialog *cs_ui_find_dialog (CsWindow      *window);
void        cs_ui_answer           (AdwMessageDialog *dialog,
                                    const char     *label);

G_END_DECLS
