/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "cs-conflict.h"
#include "cs-deletions.h"
#include "cs-manifest.h"
#include "cs-limits.h"
#include "cs-run.h"

G_BEGIN_DECLS

/* A mirror that would delete more files and folders than this deletes none. */
#define CS_JOB_DEFAULT_MAX_DELETE 1000

typedef enum {
  CS_JOB_STATE_READY,
  CS_JOB_STATE_RUNNING,
  CS_JOB_STATE_PAUSED,
  CS_JOB_STATE_FINISHED,
} CsJobState;

/* A consistent snapshot of a job's progress; any thread. */
typedef struct {
  CsJobState state;
  gboolean   scanning;        /* the scanner is still finding files */
  gboolean   total_known;     /* the scan ended, or the count ahead saw everything */
  gboolean   flushing;        /* all copied; the last data is being written to the disk */
  guint      threads;         /* allowed now */
  guint      active;          /* workers busy now */
  guint64    dirs_found;
  guint64    files_found;
  guint64    bytes_found;
  guint64    files_total;     /* what there is to do once total_known, else files_found */
  guint64    bytes_total;
  guint64    files_done;      /* copied + skipped + failed + mismatched */
  guint64    bytes_done;      /* source bytes handled, parts of files in flight included */
  guint64    files_copied;
  guint64    bytes_copied;    /* published */
  guint64    bytes_copying;   /* written so far of files not published yet */
  guint64    files_skipped;
  guint64    files_failed;
  guint64    files_checked;   /* decided so far: left as they are, to copy, or failed to decide */
  guint64    files_to_copy;   /* decided to copy (or replace) so far, in flight included */
  guint      n_errors;        /* failures listed */
  guint      n_notes;         /* notes listed (CsRunError.note): nothing failed */
  double     elapsed;         /* seconds, not counting pauses and open questions */
} CsProgress;

#define CS_JOB_ERROR (cs_job_error_quark ())
GQuark cs_job_error_quark (void);

typedef enum {
  CS_JOB_ERROR_INVALID,          /* bad settings: no source, threads out of range */
  CS_JOB_ERROR_MISSING_SOURCE,
  CS_JOB_ERROR_SAME_FILE,        /* a source is the destination (path, hard link, symlink) */
  CS_JOB_ERROR_INSIDE_SOURCE,    /* the destination lies inside a source */
  CS_JOB_ERROR_DUPLICATE_SOURCE,
  CS_JOB_ERROR_DESTINATION,      /* destination unusable: not a folder, unwritable, full, vanished */
  CS_JOB_ERROR_SOURCE_INSIDE,    /* mirror: a source lies inside the destination, which it would delete */
} CsJobErrorCode;

/* Where small files are written before they are published. */
typedef enum {
  CS_STAGING_AUTO,    /* in staging folders on network shares, else beside each file */
  CS_STAGING_ALWAYS,
  CS_STAGING_NEVER,
} CsStaging;

/* Whether a big file's chunks are copied by several workers at once. On a local
 * disk their writes only queue for the file's lock: a 2 GiB file, cold, 8 workers,
 * took no less time in chunks than whole (medians 0.80 against 0.66 s in 4 runs,
 * 0.67 against 0.68 s in 5 more) and twice the CPU or more (0.73–1.38 s against
 * 0.36–0.51 s). Across a network each worker keeps another request in flight. */
typedef enum {
  CS_CHUNKING_AUTO,    /* when the source or the destination is a network share */
  CS_CHUNKING_ALWAYS,
  CS_CHUNKING_NEVER,
} CsChunking;

/* Called on the scanning thread for every planned action when dry_run is set;
 * a mirror's deletions ("delete", "delete folder") come on the controller
 * thread at the end, with @source NULL. */
typedef void (*CsJobPlanFunc) (const char *action,      /* "copy", "replace", "skip", "mkdir", "move", … */
                               const char *source,
                               const char *destination,
                               gpointer    user_data);

#define CS_TYPE_JOB (cs_job_get_type ())
G_DECLARE_FINAL_TYPE (CsJob, cs_job, CS, JOB, GObject)

CsJob      *cs_job_new              (void);

/* Setup: main thread, before running. Paths are in the filename encoding. */
void        cs_job_add_source       (CsJob          *self,
                                     const char     *path);
/* @path goes to exactly @destination_path, whose folder must exist, rather
 * than into the destination by its name: how a retry puts files from many
 * folders back where each belongs. The job still needs a destination, which
 * its run record names. */
void        cs_job_add_source_as    (CsJob          *self,
                                     const char     *path,
                                     const char     *destination_path);
void        cs_job_set_destination  (CsJob          *self,
                                     const char     *path);
/* "Copy into": each source goes to DESTINATION/NAME, and a destination that
 * does not exist yet is made as a folder, whatever the number of sources.
 * Without it the rule is cp -r's: one source into a missing destination
 * becomes that destination. */
void        cs_job_set_into         (CsJob          *self,
                                     gboolean        into);
/* Copy (the default), move or mirror; see CsOperation, and cs-move-private.h
 * and cs-mirror-private.h for what each promises. */
void        cs_job_set_operation    (CsJob          *self,
                                     CsOperation     operation);
CsOperation cs_job_get_operation    (CsJob          *self);
/* Mirror: at most @max deletions (-1: no limit, 0: delete nothing, only
 * list). A mirror that would delete more deletes nothing and says so. */
void        cs_job_set_max_delete   (CsJob          *self,
                                     gint64          max);
/* Mirror: once everything is copied and before anything is deleted, emit
 * "deletions" with the list and wait for cs_deletions_answer (); without
 * this the job deletes what it listed (within the maximum). */
void        cs_job_set_confirm_deletions (CsJob     *self,
                                          gboolean   confirm);
/* Mirror: what it deletes (or would, in a dry run); complete once the
 * copying is done. NULL for a copy or a move, or before the job runs. */
CsDeletions *cs_job_get_deletions   (CsJob          *self);
void        cs_job_set_overwrite    (CsJob          *self,
                                     CsOverwrite     overwrite);
void        cs_job_set_verify       (CsJob          *self,
                                     gboolean        verify);
void        cs_job_set_durable      (CsJob          *self,
                                     gboolean        durable);
void        cs_job_set_flush        (CsJob          *self,
                                     gboolean        flush);
void        cs_job_set_dry_run      (CsJob          *self,
                                     gboolean        dry_run,
                                     CsJobPlanFunc   func,
                                     gpointer        user_data);
void        cs_job_set_retries      (CsJob          *self,
                                     guint           retries);
void        cs_job_set_wait         (CsJob          *self,
                                     double          seconds);
void        cs_job_set_interval     (CsJob          *self,
                                     guint           interval_ms);   /* 100 … 10000; 0 turns sampling off */
void        cs_job_add_exclude      (CsJob          *self,
                                     const char     *glob);
void        cs_job_set_cache_mode   (CsJob          *self,
                                     const char     *cache_mode);
void        cs_job_set_staging      (CsJob          *self,
                                     CsStaging       staging);
void        cs_job_set_chunking     (CsJob          *self,
                                     CsChunking      chunking);
/* The per-file log (cs-log.h): one line per item, copied, skipped, failed,
 * moved or deleted, written to @fd (-1: none) while the job runs and
 * complete when it finishes. @fd is borrowed; the job never closes it. The
 * window can open a file beside the run record and hand it here. */
void        cs_job_set_log_fd       (CsJob          *self,
                                     int             fd);
/* A checksum list of the destination (cs-manifest.h) written to @path
 * (NULL: none) as the job runs and published when it ends, unless it was
 * stopped. Not written by a dry run. */
void        cs_job_set_manifest     (CsJob          *self,
                                     const char     *path,
                                     CsManifestAlgo  algo);

/* Refuses dangerous or impossible requests before anything is written: the
 * first one found, whether it concerns the whole job or one source. The
 * window asks this before Start, so the list can be put right. */
gboolean    cs_job_check            (CsJob          *self,
                                     GError        **error);
/* Whether the job can start at all: FALSE only for what concerns the whole
 * job (settings, the destination). A source cs_job_check would refuse (missing,
 * the destination itself, a folder the destination lies in, given twice) is
 * then a failed item of the run, reported with its reason while the other
 * sources are copied, as cp does; the job runs so, whichever was asked. */
gboolean    cs_job_check_start      (CsJob          *self,
                                     GError        **error);

/*
 * Speed limits: main thread, before the job runs or while it runs; a change
 * takes effect within a tenth of a second and is an event in the run record
 * ("max-rate", "max-files"), which the graph can mark. 0 lifts a limit.
 *
 * @bytes_per_second bounds the data copied (what the workers read from the
 * sources and write to the destination; a reflink moves no data and is not
 * slowed). @files_per_second bounds the files written, moved by a rename or
 * deleted by a mirror: what a NAS's metadata path suffers from. Workers wait
 * for the limit holding nothing another worker needs.
 */
void        cs_job_set_max_rate     (CsJob          *self,
                                     double          bytes_per_second);
double      cs_job_get_max_rate     (CsJob          *self);
void        cs_job_set_max_files    (CsJob          *self,
                                     double          files_per_second);
double      cs_job_get_max_files    (CsJob          *self);
/* any thread: whether a limit held the copy back within the last second —
 * what the window's explainer says as "limited by your setting". */
gboolean    cs_job_get_limited      (CsJob          *self);
gboolean    cs_job_get_destination_remote (CsJob    *self);

/* Control: main thread, any time. */
void        cs_job_set_threads      (CsJob          *self,
                                     guint           n_threads,
                                     const char     *reason);
guint       cs_job_get_threads      (CsJob          *self);
/* Auto threads: a controller adjusts the pool while it runs. Setting a count by
 * hand turns it off. */
void        cs_job_set_auto_threads (CsJob          *self,
                                     gboolean        enabled);
gboolean    cs_job_get_auto_threads (CsJob          *self);
void        cs_job_pause            (CsJob          *self);
void        cs_job_resume           (CsJob          *self);
void        cs_job_cancel           (CsJob          *self);
/* Any time, a cancel included: whether the partial copies of big files that a
 * cancel cuts short stay (hidden, beside their final names) for a later run
 * of the same copy to resume, rather than being removed. A kill, a lost
 * destination or an error keeps them anyway. Default: FALSE. */
void        cs_job_set_keep_partial (CsJob          *self,
                                     gboolean        keep);
/* Any thread: how many big files are being written to partial copies now,
 * which a cancel could keep, and in @out_proven (if given) how many of their
 * bytes the journals prove so far: what a later run would go on from. */
guint       cs_job_get_partials     (CsJob          *self,
                                     guint64        *out_proven);
CsJobState  cs_job_get_state        (CsJob          *self);
void        cs_job_get_progress     (CsJob          *self,
                                     CsProgress     *out_progress);

/* The count Auto threads settled on last time for the filesystem holding
 * @destination (0: none yet); @out_filesystem, if given, names it ("nfs4"). */
guint       cs_job_get_remembered_threads (const char *destination,
                                           char      **out_filesystem);

/* The run record, live while the job runs. */
CsRun      *cs_job_get_run          (CsJob          *self);

/*
 * Running. The job emits its signals on the thread-default main context of the
 * caller of run_async/run_sync:
 *   "progress"        ()                   — coalesced, at most once per sample interval
 *   "sample"          (gpointer CsSample*) — each new sample, in order
 *   "threads-changed" (guint from, guint to)
 *   "conflict"        (CsConflict*)        — only with CS_OVERWRITE_ASK
 *   "deletions"       (CsDeletions*)       — a mirror's, with cs_job_set_confirm_deletions
 * run_sync iterates its own main context, so these are delivered on its thread.
 * The result is TRUE when the job ran to its end (failed files do not count as
 * an error); FALSE with CS_JOB_ERROR for refusals and fatal destination
 * errors, and with G_IO_ERROR_CANCELLED, the one cancellation error of the
 * engine, once cancelled (cancelling @cancellable cancels the job, as
 * cs_job_cancel() does). The run record is complete either way.
 */
gboolean    cs_job_run_sync         (CsJob          *self,
                                     GCancellable   *cancellable,
                                     GError        **error);
/* @callback runs once, on the caller's thread-default main context, never
 * from inside this call; a job asked to run a second time answers that call
 * with CS_JOB_ERROR_INVALID and goes on with its first run. */
void        cs_job_run_async        (CsJob          *self,
                                     GCancellable   *cancellable,
                                     GAsyncReadyCallback callback,
                                     gpointer        user_data);
gboolean    cs_job_run_finish       (CsJob          *self,
                                     GAsyncResult   *result,
                                     GError        **error);

G_END_DECLS
