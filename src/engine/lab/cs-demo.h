/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "cs-job.h"

G_BEGIN_DECLS

/*
 * The help-desk demonstration: the same number of bytes as one big file and as
 * many small ones, copied one after the other, and what it shows in plain words.
 * Optionally the small set again with 1 and with 2 threads (the T1/T2 experiment).
 */

typedef enum {
  CS_DEMO_BIG,
  CS_DEMO_SMALL,
  CS_DEMO_SMALL_T1,
  CS_DEMO_SMALL_T2,
  CS_DEMO_N_RUNS
} CsDemoRun;

typedef struct _CsDemo CsDemo;

#define CS_TYPE_DEMO (cs_demo_get_type ())
GType       cs_demo_get_type        (void) G_GNUC_CONST;

/* @total_bytes in each set (default 64 MB); small files of 12 KiB. */
CsDemo     *cs_demo_new             (guint64      total_bytes);
CsDemo     *cs_demo_ref             (CsDemo      *demo);
void        cs_demo_unref           (CsDemo      *demo);
void        cs_demo_set_threads     (CsDemo      *demo,
                                     guint        threads);   /* for the race; default 1 */
void        cs_demo_set_t1_t2       (CsDemo      *demo,
                                     gboolean     enabled);
/* Keep the generated sets after the run, so the next demonstration of the
 * same size starts at once; by default they are removed. */
void        cs_demo_set_keep_sets   (CsDemo      *demo,
                                     gboolean     keep);

typedef void (*CsDemoRunFunc) (CsDemo    *demo,
                               CsDemoRun  which,
                               CsJob     *job,
                               gpointer   user_data);

/* Generates both sets under @work_dir (unless kept from before) and copies
 * them into fresh folders under @destination; the copies are removed
 * afterwards, and the sets too unless kept. Blocks: run it in a thread.
 * Cancelled, it fails with G_IO_ERROR_CANCELLED. */
gboolean    cs_demo_run_sync        (CsDemo        *demo,
                                     const char    *work_dir,
                                     const char    *destination,
                                     CsDemoRunFunc  func,
                                     gpointer       user_data,
                                     GCancellable  *cancellable,
                                     GError       **error);

/* The same on a thread of its own; @func and @callback are called on the
 * caller's thread-default main context, @func before each copy starts (the
 * copy waits for it), so a window can follow the job it is given. */
void        cs_demo_run_async       (CsDemo              *demo,
                                     const char          *work_dir,
                                     const char          *destination,
                                     CsDemoRunFunc        func,
                                     gpointer             func_data,
                                     GCancellable        *cancellable,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data);
gboolean    cs_demo_run_finish      (CsDemo              *demo,
                                     GAsyncResult        *result,
                                     GError             **error);

/* The run record of one copy; NULL if it did not run. */
CsRun      *cs_demo_get_run         (CsDemo      *demo,
                                     CsDemoRun    which);
/* "Same 64 MB: one file took 0.3 s, 5,461 small files took 12 s — 40× slower. …" */
char       *cs_demo_explain         (CsDemo      *demo);

/* Where the workers' busy time went in each copy (cs_run_get_phase_totals),
 * its top phases: "The workers' busy time — one big file: Writing 97 %;
 * 5,461 small files: Opening and creating 31 %, Setting metadata 22 %,
 * Publishing 18 %." Waiting for work, for an answer and paused are left out;
 * a phase is named from 10 % on, at most three. NULL when either copy has
 * no working time. Part of cs_demo_explain () when both runs have phases. */
char       *cs_demo_explain_phases  (const double  big[CS_PHASE_N],
                                     const double  small[CS_PHASE_N],
                                     guint64       small_files);

/* What limits a copy now, from the mean size of the files it completes:
 * "Small files: limited by requests — more threads help" or the large-file line. */
const char *cs_demo_explain_limit   (double       bytes_per_file);

/* Requests per file over a whole run, from its samples. */
double      cs_demo_requests_per_file (CsRun     *run);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CsDemo, cs_demo_unref)

G_END_DECLS
