/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "cs-plot.h"
#include "cs-run.h"

G_BEGIN_DECLS

/*
 * Exports from the pages: ask where, render, write, and say how it went. The
 * page renders; @extension names the format. main thread.
 */
typedef GBytes *(*CsExportRenderFunc) (GtkWidget   *widget,
                                       const char  *extension,
                                       GError     **error);

char *_cs_export_name          (const char          *prefix,
                                gint64               started_usec,
                                const char          *extension);
void  _cs_export_palette_init  (CsPlotPalette       *palette);
char *_cs_export_format_of_name (const char         *basename,
                                 const char         *fallback);
GBytes *_cs_export_render_runs (CsRun              **runs,
                                guint                n_runs,
                                const char * const  *labels,
                                const char          *extension,
                                GError             **error);
void  _cs_export_async         (GtkWidget           *widget,
                                const char          *name,
                                const char          *extension,
                                CsExportRenderFunc   render,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data);
char *_cs_export_finish        (GAsyncResult        *result);

G_END_DECLS
