/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include "cs-toast.h"

/*
 * The pages say how an export or a deletion went where the user looks, in
 * the window's overlay, found by walking up from the page rather than by a
 * signal each page would declare and the window would connect.
 */

void
_cs_toast_show (GtkWidget *widget,
                AdwToast  *toast)
{
  GtkWidget *overlay;

  g_return_if_fail (GTK_IS_WIDGET (widget));
  g_return_if_fail (ADW_IS_TOAST (toast));

  overlay = gtk_widget_get_ancestor (widget, ADW_TYPE_TOAST_OVERLAY);
  if (overlay != NULL)
    adw_toast_overlay_add_toast (ADW_TOAST_OVERLAY (overlay), g_object_ref (toast));
}
