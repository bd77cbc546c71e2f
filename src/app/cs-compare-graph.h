/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "cs-run.h"

G_BEGIN_DECLS

#define CS_TYPE_COMPARE_GRAPH (cs_compare_graph_get_type ())
G_DECLARE_FINAL_TYPE (CsCompareGraph, cs_compare_graph, CS, COMPARE_GRAPH, GtkWidget)

void  cs_compare_graph_set_runs  (CsCompareGraph     *self,
                                  CsRun             **runs,
                                  guint               n_runs,
                                  const char * const *labels);
guint cs_compare_graph_get_n_runs (CsCompareGraph    *self);

G_END_DECLS
