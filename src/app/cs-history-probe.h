/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/*
 * How soon the History page shows its list: with COPYSCOPE_BENCH_HISTORY=1
 * the window, once on screen, opens the History page and prints on stderr
 * the time from that to the first frame painted with a row
 * ("bench-history: first row after 0.123 s"), then closes. bench/long-copies
 * reads it.
 */

gboolean _cs_history_probe_requested (void);
/* @window: its "win.show-history" action opens the page, @history_page shows it */
void     _cs_history_probe_start     (GtkWidget *window,
                                      GtkWidget *history_page);

G_END_DECLS
