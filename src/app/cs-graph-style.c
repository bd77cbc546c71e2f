/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <adwaita.h>

#include "cs-graph-style.h"

typedef struct
{
  double            *hover_t;
  CsGraphTimeAtFunc  time_at;
} Hover;

/*
 * Sets @palette from the style @widget is drawn in: the light, dark or high
 * contrast series colours, text and axes in the widget's own colour, and no
 * background, so the frame behind shows through. Call from css_changed.
 */
void
_cs_graph_style_update_palette (GtkWidget     *widget,
                                CsPlotPalette *palette)
{
  AdwStyleManager *style_manager = adw_style_manager_get_default ();
  GdkRGBA fg;

  g_return_if_fail (GTK_IS_WIDGET (widget));
  g_return_if_fail (palette != NULL);

  if (adw_style_manager_get_high_contrast (style_manager))
    cs_plot_palette_init_high_contrast (palette);
  else if (adw_style_manager_get_dark (style_manager))
    cs_plot_palette_init_dark (palette);
  else
    cs_plot_palette_init_light (palette);

#if GTK_CHECK_VERSION (4, 10, 0)
  gtk_widget_get_color (widget, &fg);
#else
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &fg);
#endif
  palette->foreground.r = fg.red;
  palette->foreground.g = fg.green;
  palette->foreground.b = fg.blue;
  palette->foreground.a = fg.alpha;
  palette->background.a = 0;
}

static void
hover_motion_cb (GtkEventControllerMotion *motion,
                 double                    x,
                 double                    y,
                 Hover                    *hover)
{
  GtkWidget *widget = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (motion));
  double t;

  if (!hover->time_at (widget, x, &t))
    t = -1;

  if (t != *hover->hover_t)
    {
      *hover->hover_t = t;
      gtk_widget_queue_draw (widget);
    }
}

static void
hover_leave_cb (GtkEventControllerMotion *motion,
                Hover                    *hover)
{
  if (*hover->hover_t >= 0)
    {
      *hover->hover_t = -1;
      gtk_widget_queue_draw (gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (motion)));
    }
}

/*
 * Keeps *@hover_t at the time under the pointer, -1 while the pointer is off
 * the plot or away, and redraws @widget when it changes. @hover_t is a field
 * of @widget's instance; the controller that writes it goes with the widget.
 */
void
_cs_graph_style_track_hover (GtkWidget         *widget,
                             double            *hover_t,
                             CsGraphTimeAtFunc  time_at)
{
  GtkEventController *motion;
  Hover *hover;

  g_return_if_fail (GTK_IS_WIDGET (widget));
  g_return_if_fail (hover_t != NULL);
  g_return_if_fail (time_at != NULL);

  hover = g_new0 (Hover, 1);
  hover->hover_t = hover_t;
  hover->time_at = time_at;

  motion = gtk_event_controller_motion_new ();
  g_object_set_data_full (G_OBJECT (motion), "cs-hover", hover, g_free);
  g_signal_connect (motion, "motion", G_CALLBACK (hover_motion_cb), hover);
  g_signal_connect (motion, "leave", G_CALLBACK (hover_leave_cb), hover);
  gtk_widget_add_controller (widget, motion);
}
