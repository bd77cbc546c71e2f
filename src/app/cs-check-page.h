/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "cs-manifest.h"

G_BEGIN_DECLS

#define CS_TYPE_CHECK_PAGE (cs_check_page_get_type ())

G_DECLARE_FINAL_TYPE (CsCheckPage, cs_check_page, CS, CHECK_PAGE, GtkWidget)

/* A new check of @folder against @manifest: the page empty, the graph too. */
void cs_check_page_start  (CsCheckPage           *self,
                           const char            *manifest,
                           const char            *folder);
/* main thread: what the check has done so far, and its newest sample. */
void cs_check_page_update (CsCheckPage           *self,
                           const CsSample        *sample,
                           const CsManifestCheck *so_far);

G_END_DECLS
