/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-plot"

#include "config.h"

#include <gmodule.h>

#include "cs-chart.h"

/*
 * The copyscope-charts module: cs-plot and cs-chart.c behind one exported
 * function, for programs that load cairo and pango only when they draw
 * (cs-chart-loader.c). Everything else in the module is hidden, so its own
 * calls never bind to a same-named function of the program that loads it.
 */

G_MODULE_EXPORT const char cs_chart_module_version[] = PACKAGE_VERSION;

G_MODULE_EXPORT GBytes *cs_chart_module_render_throughput (CsPlotFormat      format,
                                                           double            width,
                                                           double            height,
                                                           const CsPlotRun  *runs,
                                                           guint             n_runs,
                                                           GError          **error);

GBytes *
cs_chart_module_render_throughput (CsPlotFormat      format,
                                   double            width,
                                   double            height,
                                   const CsPlotRun  *runs,
                                   guint             n_runs,
                                   GError          **error)
{
  return cs_chart_render_throughput (format, width, height, runs, n_runs, error);
}
