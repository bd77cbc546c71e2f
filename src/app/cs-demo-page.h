/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "cs-demo.h"

G_BEGIN_DECLS

#define CS_TYPE_DEMO_PAGE (cs_demo_page_get_type ())
G_DECLARE_FINAL_TYPE (CsDemoPage, cs_demo_page, CS, DEMO_PAGE, GtkWidget)

void        cs_demo_page_set_size_mb      (CsDemoPage *self,
                                           guint       megabytes);
void        cs_demo_page_set_t1_t2        (CsDemoPage *self,
                                           gboolean    enabled);
void        cs_demo_page_set_destination  (CsDemoPage *self,
                                           GFile      *destination);
gboolean    cs_demo_page_start            (CsDemoPage *self);
void        cs_demo_page_cancel           (CsDemoPage *self);
gboolean    cs_demo_page_is_running       (CsDemoPage *self);
CsDemo     *cs_demo_page_get_demo         (CsDemoPage *self);
const char *cs_demo_page_get_explanation  (CsDemoPage *self);
void        cs_demo_page_compare          (CsDemoPage *self);

G_END_DECLS
