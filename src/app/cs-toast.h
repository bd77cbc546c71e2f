/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

/* Shows @toast in the toast overlay that holds @widget, the window's; a page
 * shown on its own, as in a test, has none and the toast goes unseen. */
void _cs_toast_show (GtkWidget *widget,
                     AdwToast  *toast);

G_END_DECLS
