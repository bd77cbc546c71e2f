/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "cs-check-page.h"
#include "cs-compare-page.h"
#include "cs-copy-page.h"
#include "cs-copy-queue.h"
#include "cs-demo-page.h"
#include "cs-history-page.h"
#include "cs-loop-probe.h"
#include "cs-queued-job.h"
#include "cs-setup-page.h"
#include "cs-summary-page.h"
#include "cs-sweep-page.h"
#include "cs-window.h"
#include "cs-window-session.h"

G_BEGIN_DECLS

typedef struct _CsWindowLogin CsWindowLogin;

struct _CsWindow
{
  AdwApplicationWindow  parent_instance;

  /* Template widgets */
  AdwWindowTitle       *window_title;
  GtkButton            *back_button;
  GtkMenuButton        *add_button;
  GtkButton            *history_button;
  GtkButton            *start_button;
  GtkButton            *cancel_button;
  GtkButton            *pause_button;
  AdwToastOverlay      *toast_overlay;
  GtkStack             *stack;
  CsSetupPage          *setup_page;
  CsCopyPage           *copy_page;
  CsCheckPage          *check_page;
  CsSummaryPage        *summary_page;
  CsHistoryPage        *history_page;
  CsComparePage        *compare_page;
  CsSweepPage          *sweep_page;
  CsDemoPage           *demo_page;

  /* Owned */
  GSettings            *settings;
  CsCopyQueue          *copy_queue;      /* the application's, or its own without one */
  GCancellable         *choosers;        /* the file choosers open, until the window goes */
  GQueue                conflicts;       /* of CsConflict, waiting for the dialog */
  guint                 run_timeout_id;  /* the job waits for its page to be drawn */
  gulong                run_handler_id;
  GObject              *run_handler_instance;
  guint                 inhibit_cookie;
  CsJobState            last_state;
  GPtrArray            *back_stack;      /* of page names, for win.go-back */
  CsRun                *copy_run;        /* the last copy's, for its summary */
  CsLoopProbe          *loop_probe;      /* the last copy's, with COPYSCOPE_LOOP_PROBE */
  struct _CsWindowCheck *check;          /* a check against a checksum list, while it runs */

  /* Borrowed: these dialogs destroy themselves when answered */
  AdwMessageDialog     *conflict_dialog;
  GtkCheckButton       *conflict_apply_all;
  CsConflict           *conflict;        /* the question on screen; owned */
  AdwMessageDialog     *cancel_dialog;
  AdwMessageDialog     *deletions_dialog; /* a mirror's question, answering itself */
  CsJob                *deletions_job;    /* whose question it is */
  /* Where each source of the last Retry Failed went (path → target), so that
   * its own summary can retry it again into the same folders; NULL after any
   * other copy. */
  GHashTable           *retry_targets;
  GQueue                deletions_waiting; /* of CsDeletions, while another is asked */
  CsWindowLogin        *login;           /* a copy waiting for its SMB logins (cs-window-login.c) */

  guint                 close_when_done : 1;
  guint                 close_if_clean : 1;  /* --close-when-done: a clean finish closes */
  guint                 summary_from_history : 1;
};

/* cs-window-actions.c */
void     _cs_window_class_install_actions (GtkWidgetClass *widget_class);
void     _cs_window_actions_update        (CsWindow       *self);
void     _cs_window_setup_started         (CsWindow       *self,
                                           CsJob          *job,
                                           gboolean        queued);

/* cs-window-check.c */
void     _cs_window_check_install_actions (GtkWidgetClass *widget_class);
void     _cs_window_check_update          (CsWindow       *self,
                                           gboolean        summary);
/* Stops the check running, if any, when the window goes. */
void     _cs_window_check_cancel          (CsWindow       *self);

/* cs-window-login.c */
gboolean _cs_window_submit                (CsWindow           *self,
                                           CsJob              *job,
                                           const char * const *sources,
                                           const char         *destination,
                                           gboolean            from_setup);
void     _cs_window_login_cancel          (CsWindow           *self);

/* cs-window-questions.c */
void     _cs_window_watch_questions       (CsWindow       *self,
                                           CsJob          *job);
void     _cs_window_drop_questions        (CsWindow       *self,
                                           CsJob          *job);
void     _cs_window_clear_questions       (CsWindow       *self);

/* cs-window-run.c */
void     _cs_window_run_init              (CsWindow       *self);
void     _cs_window_run_dispose           (CsWindow       *self);
gboolean _cs_window_start                 (CsWindow       *self,
                                           CsJob          *job,
                                           const char     *destination);
gboolean _cs_window_queue                 (CsWindow       *self,
                                           CsJob          *job,
                                           GStrv           sources,
                                           const char     *destination);
void     _cs_window_configure_job         (CsWindow       *self,
                                           CsJob          *job);
void     _cs_window_ask_cancel            (CsWindow       *self);

/* cs-window.c */
const CsWindowSession *_cs_window_get_session (void);
CsJob   *_cs_window_build_job             (CsWindow       *self,
                                           GFile         **files,
                                           guint           n_files,
                                           GFile          *destination,
                                           gboolean        setup_names,
                                           GStrv          *out_sources,
                                           char          **out_destination);
void     _cs_window_update_start_button   (CsWindow       *self);
void     _cs_window_show_toast            (CsWindow       *self,
                                           const char     *title);
void     _cs_window_show_home             (CsWindow       *self,
                                           const char     *page);
void     _cs_window_navigate              (CsWindow       *self,
                                           const char     *page);
void     _cs_window_show_section          (CsWindow       *self,
                                           const char     *page);
gboolean _cs_window_go_back               (CsWindow       *self);
void     _cs_window_open_folder           (CsWindow       *self,
                                           const char     *path);
void     _cs_window_open_file             (CsWindow       *self,
                                           const char     *path);

G_END_DECLS
