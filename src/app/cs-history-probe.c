/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include "cs-history-page.h"
#include "cs-history-probe.h"

typedef struct {
  GtkWidget *window;
  GtkWidget *page;
  gint64     opened;
  gulong     handler;
} Probe;

gboolean
_cs_history_probe_requested (void)
{
  const char *value = g_getenv ("COPYSCOPE_BENCH_HISTORY");

  return value != NULL && *value != '\0' && g_strcmp0 (value, "0") != 0;
}

static void
after_paint_cb (GdkFrameClock *clock,
                Probe         *probe)
{
  CsHistoryRow *row = cs_history_page_get_run_row (CS_HISTORY_PAGE (probe->page), 0);

  /* The frame that drew the page with its first row. */
  if (row == NULL || !gtk_widget_get_mapped (GTK_WIDGET (row)))
    return;

  g_printerr ("bench-history: first row after %.3f s (%u runs)\n",
              (g_get_monotonic_time () - probe->opened) / (double) G_USEC_PER_SEC,
              cs_history_page_get_n_runs (CS_HISTORY_PAGE (probe->page)));
  g_signal_handler_disconnect (clock, probe->handler);
  gtk_window_close (GTK_WINDOW (probe->window));
  g_free (probe);
}

static gboolean
open_cb (gpointer data)
{
  Probe *probe = data;
  GdkFrameClock *clock = gtk_widget_get_frame_clock (probe->window);

  probe->opened = g_get_monotonic_time ();
  probe->handler = g_signal_connect (clock, "after-paint", G_CALLBACK (after_paint_cb), probe);
  gtk_widget_activate_action (probe->window, "win.show-history", NULL);

  return G_SOURCE_REMOVE;
}

static void
mapped_cb (GtkWidget *window,
           Probe     *probe)
{
  g_signal_handlers_disconnect_by_func (window, mapped_cb, probe);
  /* Once the window is on screen and idle: what opening the page costs alone. */
  g_timeout_add (500, open_cb, probe);
}

void
_cs_history_probe_start (GtkWidget *window,
                         GtkWidget *history_page)
{
  Probe *probe = g_new0 (Probe, 1);

  probe->window = window;
  probe->page = history_page;
  g_signal_connect (window, "map", G_CALLBACK (mapped_cb), probe);
}
