/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "cs-plot.h"
#include "cs-sweep.h"

G_BEGIN_DECLS

typedef enum {
  CS_SWEEP_METRIC_TIME,
  CS_SWEEP_METRIC_MB_PER_SECOND,
  CS_SWEEP_METRIC_FILES_PER_SECOND,
  CS_SWEEP_N_METRICS
} CsSweepMetric;

#define CS_TYPE_SWEEP_CHART (cs_sweep_chart_get_type ())
G_DECLARE_FINAL_TYPE (CsSweepChart, cs_sweep_chart, CS, SWEEP_CHART, GtkWidget)

void cs_sweep_chart_set_sweep (CsSweepChart        *self,
                               CsSweep             *sweep);
/* The count marked as recommended (0: none), and what its label says. */
guint       cs_sweep_chart_get_recommended (CsSweepChart *self);
const char *cs_sweep_chart_get_label       (CsSweepChart *self);

/* The three charts side by side, for exported files. */
void cs_sweep_chart_draw_all  (cairo_t             *cr,
                               double               width,
                               double               height,
                               const CsPlotPalette *palette,
                               CsSweep             *sweep);

G_END_DECLS
