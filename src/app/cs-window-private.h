/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "cs-compare-page.h"
#include "cs-counter-view.h"
#include "cs-demo-page.h"
#include "cs-destination-row.h"
#include "cs-history-page.h"
#include "cs-limit-hint.h"
#include "cs-loop-probe.h"
#include "cs-options-group.h"
#include "cs-progress-view.h"
#include "cs-source-list.h"
#include "cs-summary-page.h"
#include "cs-sweep-page.h"
#include "cs-thread-slider.h"
#include "cs-throughput-graph.h"
#include "cs-window.h"

G_BEGIN_DECLS

struct _CsWindow
{
  AdwApplicationWindow  parent_instance;

  /* Template widgets */
  AdwWindowTitle       *window_title;
  GtkMenuButton        *add_button;
  GtkButton            *start_button;
  GtkButton            *cancel_button;
  GtkButton            *pause_button;
  AdwToastOverlay      *toast_overlay;
  GtkStack             *stack;
  CsSourceList         *source_list;
  CsDestinationRow     *destination_row;
  CsThreadSlider       *setup_thread_slider;
  CsOptionsGroup       *options_group;
  GtkLabel             *refusal_label;
  CsProgressView       *progress_view;
  GtkToggleButton      *show_all_button;
  CsThroughputGraph    *graph;
  CsThreadSlider       *thread_slider;
  AdwExpanderRow       *errors_row;
  CsCounterView        *counter_view;
  CsSummaryPage        *summary_page;
  GtkButton            *back_button;
  GtkButton            *history_button;
  CsHistoryPage        *history_page;
  CsComparePage        *compare_page;
  CsSweepPage          *sweep_page;
  CsDemoPage           *demo_page;
  CsLimitHint          *limit_hint;
  AdwActionRow         *remembered_row;
  GtkButton            *remembered_button;

  /* Owned */
  GSettings            *settings;
  CsJob                *job;             /* while a copy runs */
  CsCancellable        *cancellable;
  GQueue                conflicts;       /* of CsConflict, waiting for the dialog */
  GtkNativeDialog      *chooser;         /* the open file chooser, on GTK 4.8 */
  GPtrArray            *error_rows;      /* rows added to errors_row */
  guint                 threads_timeout_id;
  guint                 run_timeout_id;  /* the job waits for its page to be drawn */
  gulong                run_handler_id;
  GObject              *run_handler_instance;
  guint                 inhibit_cookie;
  guint                 n_errors_shown;
  CsJobState            last_state;
  GPtrArray            *back_stack;      /* of page names, for win.go-back */
  guint                 remembered_threads;
  CsLoopProbe          *loop_probe;      /* the last copy's, with COPYSCOPE_LOOP_PROBE */

  /* Borrowed: these dialogs destroy themselves when answered */
  AdwMessageDialog     *conflict_dialog;
  GtkCheckButton       *conflict_apply_all;
  CsConflict           *conflict;        /* the question on screen; owned */
  AdwMessageDialog     *cancel_dialog;
  /* Where each source of the last Retry Failed went (path → target), so that
   * its own summary can retry it again into the same folders; NULL after any
   * other copy. */
  GHashTable           *retry_targets;

  guint                 close_when_done : 1;
  guint                 close_if_clean : 1;  /* --close-when-done: a clean finish closes */
  guint                 job_running : 1;     /* run_async called for self->job */
  guint                 summary_from_history : 1;
};

/* What the window asks of the session: no suspend or logout while it copies,
 * and a notification when a copy ends unwatched. Tests replace these hooks. */
typedef struct {
  guint (*inhibit)           (GtkWindow     *window,
                              const char    *reason);   /* 0: refused */
  void  (*uninhibit)         (GtkWindow     *window,
                              guint          cookie);
  void  (*send_notification) (GtkWindow     *window,
                              const char    *id,
                              GNotification *notification);
} CsWindowSession;

/* cs-window-actions.c */
void     _cs_window_class_install_actions (GtkWidgetClass *widget_class);
void     _cs_window_actions_update        (CsWindow       *self);

/* cs-window.c */
gboolean _cs_window_start                 (CsWindow       *self,
                                           CsJob          *job);
void     _cs_window_configure_job         (CsWindow       *self,
                                           CsJob          *job);
void     _cs_window_ask_cancel            (CsWindow       *self);
void     _cs_window_show_toast            (CsWindow       *self,
                                           const char     *title);
void     _cs_window_set_session           (const CsWindowSession *hooks);

/* cs-window-pages.c */
void     _cs_window_class_install_page_actions (GtkWidgetClass *widget_class);
void     _cs_window_pages_init            (CsWindow       *self);
void     _cs_window_pages_finalize        (CsWindow       *self);
void     _cs_window_pages_update_actions  (CsWindow       *self);
void     _cs_window_save_run              (CsWindow       *self,
                                           CsRun          *run);
void     _cs_window_export_run            (CsWindow       *self,
                                           const char     *extension);

G_END_DECLS
