/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* The window's tests, one file per part of the window (test-window-*.c),
 * built into one executable whose main () is in test-window.c: the helpers
 * more than one file uses, and each file's tests for main's list. */

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <string.h>
#include <utime.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include <adwaita.h>

#include "copyscope-engine.h"
#include "cs-copy-page.h"
#include "cs-fold-box.h"
#include "cs-history.h"
#include "cs-history-page.h"
#include "cs-history-row.h"
#include "cs-progress-view.h"
#include "cs-io-private.h"
#include "cs-queued-job.h"
#include "cs-resume-hint.h"
#include "cs-setup-page.h"
#include "cs-source-list.h"
#include "cs-source-row.h"
#include "cs-summary-page.h"
#include "cs-test-tree.h"
#include "cs-throughput-graph.h"
#include "cs-ui-test.h"
#include "cs-window-session.h"

/* ---- In test-window.c, used by more than one test file ---- */

#define WAIT_SECONDS 60

CsSetupPage *setup_page (CsWindow *window);

CsThreadSlider *setup_slider (CsWindow *window);

CsThreadSlider *live_slider (CsWindow *window);

CsSummaryPage *summary_page (CsWindow *window);

GtkWidget *graph (CsWindow *window);

void write_file (const char *path,
                 gsize       size,
                 guint       seed);

guint count_temporaries (const char *path);

GtkDropTarget *find_drop_target (GtkWidget *widget);

CsWindow *window_with_copy (const char *source,
                            const char *destination,
                            guint       threads);

void generate (const char *dir,
               guint64     n_files,
               guint64     size);

gboolean has_progress (gpointer data);

/* What the window asked of the session, seen through its hooks. */
typedef struct
{
  guint          n_inhibits;
  guint          held;            /* the cookie given out and not yet returned */
  guint          returned;
  GNotification *notification;
  char          *notification_id;
  char          *shown_uri;
} Session;

extern Session session;

guint fake_inhibit (GtkWindow  *window,
                    const char *reason);

void fake_uninhibit (GtkWindow *window,
                     guint      cookie);

void fake_send_notification (GtkWindow     *window,
                             const char    *id,
                             GNotification *notification);

void fake_show_uri (GtkWindow  *window,
                    const char *uri);

extern const CsWindowSession fake_session;

void session_reset (void);

gboolean job_paused (gpointer data);

gboolean job_running (gpointer data);

gboolean conflict_shown (gpointer data);

void assert_file_bytes (const char *path,
                        gsize       size,
                        guint       seed);

/* ---- The tests, by file: test-window.c registers them ---- */

/* test-window-setup.c */
void test_drop (void);
void test_refusal (void);
void test_accessibility (void);
void test_choose_destination (void);
void test_copy_into (void);
void test_copy_into_parents (void);

/* test-window-slider.c */
void test_slider (void);
void test_loop_probe (void);
void test_thread_slider (void);
void test_time_left (void);
void test_slider_scroll (void);

/* test-window-narrow.c */
void test_narrow (void);
void test_progress_narrow (void);
void test_totals_narrow (void);

/* test-window-copy.c */
void test_copy (void);
void test_rerun_checking (void);
void test_log (void);
void test_manifest (void);
void test_move (void);
void test_mirror (void);

/* test-window-queue.c */
void test_queue (void);
void test_queue_devices (void);
void test_speed_limit (void);

/* test-window-cancel.c */
void test_retry_failed (void);
void test_cancel (void);
void test_cancel_small (void);
void test_cancel_keep (void);
void test_conflict (void);

/* test-window-session.c */
void test_inhibit (void);
void test_notification (void);
