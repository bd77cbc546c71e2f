/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define CS_TYPE_SPEED_LIMIT (cs_speed_limit_get_type ())
G_DECLARE_FINAL_TYPE (CsSpeedLimit, cs_speed_limit, CS, SPEED_LIMIT, GtkWidget)

double cs_speed_limit_get_max_rate  (CsSpeedLimit *self);
void   cs_speed_limit_set_max_rate  (CsSpeedLimit *self,
                                     double        bytes_per_second);
double cs_speed_limit_get_max_files (CsSpeedLimit *self);
void   cs_speed_limit_set_max_files (CsSpeedLimit *self,
                                     double        files_per_second);

G_END_DECLS
