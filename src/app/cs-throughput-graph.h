/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "cs-run.h"

G_BEGIN_DECLS

#define CS_TYPE_THROUGHPUT_GRAPH (cs_throughput_graph_get_type ())
G_DECLARE_FINAL_TYPE (CsThroughputGraph, cs_throughput_graph, CS, THROUGHPUT_GRAPH, GtkWidget)

void      cs_throughput_graph_set_run          (CsThroughputGraph *self,
                                                CsRun             *run);
void      cs_throughput_graph_push_sample      (CsThroughputGraph *self,
                                                const CsSample    *sample);
void      cs_throughput_graph_update_timeline  (CsThroughputGraph *self);
guint     cs_throughput_graph_get_n_samples    (CsThroughputGraph *self);
gboolean  cs_throughput_graph_get_show_all     (CsThroughputGraph *self);
void      cs_throughput_graph_set_show_all     (CsThroughputGraph *self,
                                                gboolean           show_all);
void      cs_throughput_graph_set_show_checks  (CsThroughputGraph *self,
                                                gboolean           show_checks);
gboolean  cs_throughput_graph_get_show_checks  (CsThroughputGraph *self);

void      cs_throughput_graph_set_time_span    (CsThroughputGraph *self,
                                                double             seconds);
gboolean  cs_throughput_graph_get_time_range   (CsThroughputGraph *self,
                                                double            *out_lo,
                                                double            *out_hi);

G_END_DECLS
