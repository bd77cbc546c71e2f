/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "cs-plot.h"

G_BEGIN_DECLS

/* main thread: the time under @x on the widget's plot; FALSE off the plot */
typedef gboolean (*CsGraphTimeAtFunc) (GtkWidget *widget,
                                       double     x,
                                       double    *out_t);

/* What the graph widgets share; main thread. */
void _cs_graph_style_update_palette (GtkWidget         *widget,
                                     CsPlotPalette     *palette);
void _cs_graph_style_track_hover    (GtkWidget         *widget,
                                     double            *hover_t,
                                     CsGraphTimeAtFunc  time_at);

G_END_DECLS
