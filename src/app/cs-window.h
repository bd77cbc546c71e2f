/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "cs-application.h"
#include "cs-job.h"

G_BEGIN_DECLS

#define CS_TYPE_WINDOW (cs_window_get_type ())
G_DECLARE_FINAL_TYPE (CsWindow, cs_window, CS, WINDOW, AdwApplicationWindow)

CsWindow *cs_window_new          (CsApplication *application);
void      cs_window_add_sources  (CsWindow      *self,
                                  GFile        **files,
                                  guint          n_files);
void      cs_window_set_destination (CsWindow   *self,
                                  GFile         *destination);
void      cs_window_set_operation (CsWindow     *self,
                                  CsOperation    operation);
void      cs_window_set_threads  (CsWindow      *self,
                                  guint          threads,
                                  gboolean       auto_threads);
gboolean  cs_window_start_copy   (CsWindow      *self,
                                  gboolean       close_when_done);
gboolean  cs_window_queue_copy   (CsWindow      *self,
                                  GFile        **files,
                                  guint          n_files,
                                  GFile         *destination);
CsJob    *cs_window_get_job      (CsWindow      *self);
GListModel *cs_window_get_queue  (CsWindow      *self);

G_END_DECLS
