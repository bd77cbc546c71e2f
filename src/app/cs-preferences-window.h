/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "cs-plot.h"

G_BEGIN_DECLS

#define CS_TYPE_PREFERENCES_WINDOW (cs_preferences_window_get_type ())

G_DECLARE_FINAL_TYPE (CsPreferencesWindow, cs_preferences_window, CS, PREFERENCES_WINDOW,
                      AdwPreferencesWindow)

CsPreferencesWindow *cs_preferences_window_new             (GtkWindow     *parent,
                                                            GSettings     *settings);

void                 cs_preferences_get_export_palette     (GSettings     *settings,
                                                            CsPlotPalette *palette);

G_END_DECLS
