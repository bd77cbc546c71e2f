/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "cs-plot.h"

G_BEGIN_DECLS

/* Room for any tick label, suffix and sign included. */
#define CS_PLOT_LABEL_SIZE 32

/* Sanity limit for plotted values: anything larger is treated as this, so the
 * axis maths never overflows and cairo never sees coordinates it cannot hold. */
#define CS_PLOT_VALUE_LIMIT 1e15

double _cs_plot_axis_step   (double  span,
                             guint   max_intervals);
guint  _cs_plot_axis_ticks  (double  lo,
                             double  hi,
                             guint   max_intervals,
                             double *out_step,
                             double *ticks,
                             guint   max_ticks);

void   _cs_plot_format_number (char   *buf,
                               gsize   size,
                               double  value,
                               double  step);
void   _cs_plot_format_tick   (char   *buf,
                               gsize   size,
                               double  value,
                               double  step);

G_END_DECLS
