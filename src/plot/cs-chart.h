/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * The throughput chart as a document (PNG, SVG or PDF), for exports and the
 * HTML report.
 *
 * Two implementations share this declaration, and each program links one:
 * cs-chart.c draws in-process (the window, which has cairo loaded anyway, and
 * the tests); cs-chart-loader.c loads the same drawing code from the
 * copyscope-charts module on first use (copyscope-cli). cairo, pango and their
 * twenty libraries then cost nothing to a copy that never draws: loading them
 * took 17 ms of a cold start, against 90 ms for the whole copy of 430 MB.
 */

#include <glib.h>

#include "cs-plot.h"

G_BEGIN_DECLS

GBytes *cs_chart_render_throughput (CsPlotFormat      format,
                                    double            width,
                                    double            height,
                                    const CsPlotRun  *runs,
                                    guint             n_runs,
                                    GError          **error);

/* The module's entry point and the version it must come from; the loader
 * looks both up by name. */
#define CS_CHART_MODULE_RENDER_SYMBOL  "cs_chart_module_render_throughput"
#define CS_CHART_MODULE_VERSION_SYMBOL "cs_chart_module_version"

typedef GBytes *(*CsChartRenderFunc) (CsPlotFormat      format,
                                      double            width,
                                      double            height,
                                      const CsPlotRun  *runs,
                                      guint             n_runs,
                                      GError          **error);

G_END_DECLS
