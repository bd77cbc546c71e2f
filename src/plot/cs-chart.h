/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* The throughput chart as a document (PNG, SVG or PDF), for exports and the
 * HTML report. */

#include <glib.h>

#include "cs-plot.h"

G_BEGIN_DECLS

GBytes *cs_chart_render_throughput (CsPlotFormat      format,
                                    double            width,
                                    double            height,
                                    const CsPlotRun  *runs,
                                    guint             n_runs,
                                    GError          **error);

G_END_DECLS
