/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * The job's insides, shared by the job's own files (cs-job.c, cs-job-*.c),
 * the scanner, the copy workers and the sampler. Workers touch only their item, the atomic
 * counters and lock-protected plain fields — never a GObject the UI observes.
 */

#include <stdatomic.h>
#include <sys/stat.h>

#include "cs-auto-tuner.h"
#include "cs-conflict.h"
#include "cs-deletions.h"
#include "cs-dir-private.h"
#include "cs-io-private.h"
#include "cs-job.h"
#include "cs-limiter-private.h"
#include "cs-log-private.h"
#include "cs-manifest-private.h"
#include "cs-metadata-private.h"
#include "cs-run-private.h"
#include "cs-tsan-private.h"
#include "cs-worker-phase-private.h"

/* The count ahead holds a descriptor per level open: deeper trees are not
 * counted (cs-count-ahead.c). */
#define CS_COUNT_MAX_DEPTH 64
/* The count ahead begins after this much of the scan (cs-count-ahead.c). */
#define CS_COUNT_WAIT_US G_USEC_PER_SEC
/* ... or once the run read this many blocks (512 bytes) from a disk. */
#define CS_COUNT_DISK_BLOCKS 1024

G_BEGIN_DECLS

/* Large files are copied in chunks at explicit offsets so a change in the thread
 * count, a pause or a cancel takes effect within a chunk's time. */
#define CS_CHUNK_SIZE      (G_GUINT64_CONSTANT (32) << 20)
/* A big file: split into chunks where that is allowed, read with a
 * sequential hint either way. */
#define CS_BIG_FILE_MIN    (2 * CS_CHUNK_SIZE)
/* One request moves at most this much, so pause and cancel are checked often. */
#define CS_REQUEST_MAX     (G_GUINT64_CONSTANT (8) << 20)
#define CS_BUFFER_SIZE     (1u << 20)
/* A big file's data written to an SMB share moves in calls this large.
 * libsmbclient sends each call as writes (or reads) one after the other, at
 * most the size the server negotiated: 8 MiB is what Samba and Windows
 * Server offer, and the library splits a call above what this server
 * took. With the worker's 1 MiB, a 2 GiB file took 2,115 writes and 0.72 of
 * smbclient's speed; 8 MiB calls, 0.96 (bench/RESULTS.md). */
#define CS_BIG_BUFFER_SIZE (8u << 20)
/* One is lent at a time per this many threads (at least one); the other
 * workers copy through their own 1 MiB. The memory target is 32 MB + 2 MB
 * per thread, and a thread's connection and buffer measured about 1 MB
 * (a 2 GiB file to the lab Samba: 26.9 MB peak at 1 thread, 91.7 MB at
 * 64), so a big buffer (8.4 MB) fits in what 8 threads leave, and the
 * first one in the 32 MB. */
#define CS_BIG_BUFFER_THREADS 8
/* Locks taken by staged publications, one per destination folder by hash. */
#define CS_JOB_LINK_LOCKS 16
/* Phase slots (cs-worker-phase-private.h): one per worker thread the job
 * ever had; the slider's changes end threads and start others, so twice the
 * most it runs at once. A thread beyond them records no phases. */
#define CS_JOB_PHASE_SLOTS (2 * CS_JOB_MAX_THREADS)

/* Per-worker state, kept across items. */
typedef struct {
  guint8  *buffer;            /* CS_BUFFER_SIZE, the worker's own */
  guint8  *big_buffer;        /* CS_BIG_BUFFER_SIZE, lent by the job for one range, or NULL */
  guint64  partial;           /* bytes of the current item copied so far */
  guint    lost;              /* 1 << CsMetadata: what the destination did not keep of it */
  guint64  resumed;           /* bytes of the current item kept from an earlier run's partial */
  guint64  in_place;          /* of the last range copied, bytes the filesystem or the
                               * server copied itself (copy_file_range) */
  /* The published file's digest for the manifest, from --verify's pass */
  guint8   digest[CS_MANIFEST_MAX_DIGEST];
  gboolean has_digest;
  /* Its phases (cs-job-queue.c): the slot it keeps for @phase_job, or NULL */
  CsWorkerPhase *phase;
  guint64        phase_run;     /* the job run's number (phases.run), not its address: one
                                 * job may be freed and the next made at the same */
} CsWorker;

typedef enum {
  CS_STOP_NONE,
  CS_STOP_CANCEL,
  CS_STOP_FATAL,
} CsStopReason;

/*
 * The job's state, grouped by the room that owns it. Each group names its
 * owning file and which thread writes it, under which lock or atomically.
 * Another room reads a field that moves while the job runs through its
 * owner's function (the inline accessors below), not the field itself.
 */
struct _CsJob {
  GObject       parent_instance;

  /* Settings (cs-job.c; cs-route.c maps the locations): written by the main
   * thread before the run starts, read-only by every thread once it runs. */
  struct {
    GPtrArray    *sources;          /* char*, filename encoding */
    GPtrArray    *source_targets;   /* char* or NULL, one per source: its exact destination path */
    char         *destination;
    gboolean      into;             /* each source to destination/NAME, the folder made if missing */
    /* Where a location was a GVfs path the job reaches at the server itself
     * (cs-route.c): the locations as given, for the record; else NULL. */
    GPtrArray    *given_sources;
    char         *given_destination;
    char         *route;            /* how an SMB share is reached, for the record; or NULL */
    CsRunSettings settings;
    GPtrArray    *excludes;         /* GPatternSpec* */
    char         *cache_mode;
    CsJobPlanFunc plan_func;
    gpointer      plan_data;
    gboolean      confirm_deletions;
    CsStaging     staging;
    CsChunking    chunking;
    int           log_fd;
    char         *manifest_path;    /* the checksum list asked for (cs-manifest.c), or NULL */
    CsManifestAlgo manifest_algo;
  } setup;

  /* The check (cs-job-check.c): main thread before the run starts, then
   * read-only (scanner, count-ahead). One per source: why it is not copied
   * (char*, or NULL: it is), and where it is read (char*, or NULL: the
   * source as given, its trailing slashes trimmed; "link/" names the folder
   * the link points to). */
  struct {
    GPtrArray    *refusals;
    GPtrArray    *read_paths;
  } check;

  /* The run's identity and lifetime (cs-job.c): main thread, as the run
   * starts and ends; read-only by the threads in between. */
  struct {
    CsRun        *run;              /* locks itself: any thread adds to it */
    GTask        *task;             /* run_async's, returned in _cs_job_finish_on_main */
    GCancellable *cancellable;
    gulong        cancelled_id;
    char          job_tag[17];      /* 16 hex digits in temporary names: ours, from this run */
    int           presence_fd;      /* says this tag's run is alive (cs-names.c), or -1; the
                                     * controller closes it */
    uid_t         euid;
    gid_t         egid;
  } life;

  /* The record's counters (cs-counters.h): atomics, bumped by any thread. */
  CsCounters    counters;

  /* Control and the job's own threads (cs-job-control.c). */
  struct {
    GThread      *controller;       /* main thread: started and joined */
    GThread      *sampler;          /* started by the main thread, joined by the controller */
    struct _CsSampler *sampler_state; /* handed to the sampler thread */
    /* The sampler's own, with gate.lock: it waits only for the end, and on
     * gate.cond it woke with every broadcast the workers make for the scanner. */
    GCond         sampler_cond;
    gboolean      finished;         /* controller thread, under gate.lock */
    atomic_int    scanning;         /* main thread sets, controller clears */
    /* Everything is copied; the destination's data is being flushed to its
     * disk (controller thread, atomic) */
    atomic_int    flushing;
    GError       *run_error;        /* controller thread; read once it is joined */
  } control;

  /* Found and done (cs-job-account.c): atomics, bumped by the scanner and
   * the workers (moved_* by cs-move.c, deleted_* by cs-mirror.c). */
  struct {
    atomic_uint_fast64_t dirs_found, files_found, bytes_found;
    atomic_uint_fast64_t totals[CS_N_CLASSES][CS_N_KINDS];
    atomic_uint_fast64_t bytes_partial;  /* of files still being copied */
    /* Files decided so far (_cs_job_count_decided), and those of them to be
     * copied, in flight included: a rerun's progress is deciding, not copying */
    atomic_uint_fast64_t files_checked, files_to_copy;
    /* What a move took out of the source and a mirror out of the
     * destination (CsRemovals) */
    atomic_uint_fast64_t moved_files, moved_bytes, moved_dirs, kept_files;
    atomic_uint_fast64_t deleted_files, deleted_dirs, deleted_bytes, not_deleted;
    /* Why skipped files were skipped (CsSkips) */
    atomic_uint_fast64_t identical_files, identical_bytes, chosen_files, chosen_bytes;
  } tally;

  /* The count ahead (cs-count-ahead.c): what the scanner will find, once
   * counted is set. Its thread writes the atomics; the controller starts and
   * stops it. */
  struct {
    GThread      *counter;
    atomic_int    count_stop;
    atomic_int    counted;
    atomic_uint_fast64_t files_counted, bytes_counted;
    /* Where it meets the scanner (cs-count-ahead.c): set while the
     * scanner says where it is; the rest under meet_lock. */
    atomic_int    meeting;
    GMutex        meet_lock;
    guint         scan_at[CS_COUNT_MAX_DEPTH + 1], scan_depth;
    guint         last_at[CS_COUNT_MAX_DEPTH + 1], last_depth;
    gboolean      has_last, pending;
    atomic_int    crossed;
    guint64       files_before, bytes_before, files_after, bytes_after;
    /* When it begins (cs-count-ahead.c): after wait_us of the scan, once
     * the scanner waited for room in a queue with files to copy (scan_held,
     * set by _cs_job_push), or once the process read disk_blocks from a
     * disk. wake, with meet_lock, ends the wait at the stop. */
    gint64        wait_us;
    guint64       disk_blocks;
    atomic_int    scan_held;
    GCond         wake;
  } ahead;

  /* What the filesystems refused once, so no worker asks again (cs-copy.c;
   * no_xattr cs-xattrs.c): atomics, set by any worker. */
  struct {
    atomic_int    no_clone;         /* the fast paths answered "not supported" once */
    atomic_int    no_copy_range;
    atomic_int    no_noreplace;
    atomic_int    no_link;          /* hard links refused (EPERM) or not supported */
    atomic_int    no_unnamed;       /* no O_TMPFILE, or no way to link one in */
    atomic_int    unnamed_via_proc; /* linkat AT_EMPTY_PATH refused: link /proc/self/fd/N */
    atomic_int    no_noatime;
    atomic_int    no_xattr;         /* a source filesystem without extended attributes */
    atomic_uint_fast64_t temp_seq;  /* temporary names, any thread */
  } caps;

  /* The destination's filesystems (cs-dest-fs.c, cs-scanner.c): the scanner
   * thread writes; workers read the atomics. */
  struct {
    GPtrArray    *dest_filesystems; /* CsDestFs*, each met once (scanner thread) */
    CsMetadataLoss metadata;        /* what the destination did not keep (cs-metadata.c; atomics) */
    atomic_int    dst_remote;       /* the destination is a network share */
    atomic_int    dst_cannot_flush; /* its backend has no flush, smb:// */
  } dest;

  /* The thread count and Auto (cs-job-control.c) */
  struct {
    atomic_uint   threads;          /* any thread through _cs_job_apply_threads; read with _cs_job_threads */
    atomic_int    auto_threads;     /* main thread sets, sampler thread restarts the tuner on 2 */
    CsAutoTuner   tuner;            /* sampler thread only */
    guint         auto_settled;     /* sampler thread; the controller reads it after the sampler is joined */
    /* Auto's first look at the work (scanner thread): the mean size of the
     * first files picks the count to start from, so a copy too short to
     * measure runs at a count that suits it. */
    guint         sized_files;
    guint64       sized_bytes;
    gboolean      sized;
    atomic_int    size_class;       /* CsSizeClass + 1; 0 before the first look */
  } tune;

  /* Speed limits (cs-limiter.c): set from the main thread at any time; each
   * limiter locks itself. */
  struct {
    CsLimiter     byte_limit;       /* data copied, bytes per second */
    CsLimiter     file_limit;       /* files written, moved or deleted per second */
  } limits;

  /* A move (cs-move.c): sources waiting for a flush of the destination,
   * under move_lock, from the workers and the controller. */
  struct {
    GMutex        move_lock;
    GPtrArray    *removals;
    gint64        removals_since;
    gboolean      draining;
  } move;

  /* A mirror (cs-mirror.c) */
  struct {
    CsDeletions  *deletions;        /* the extras, listed by the scanner (locks itself) */
    GPtrArray    *mirror_replaced;  /* scanner, then controller: CsReplaced, entries of another type */
  } mirror;

  /* Partials kept for a later run (cs-resume.c): atomics, any thread. */
  struct {
    atomic_int    keep_partial;     /* a cancel keeps big files' partials for a later run */
    atomic_uint   partials_open;    /* big files being written to a partial now */
    atomic_uint_fast64_t partials_proven;  /* their bytes the journals prove */
  } resume;

  /* The per-file log (cs-log.c) and the checksum list (cs-manifest.c), or
   * NULL: made by the main thread as the run starts, each locks itself; the
   * controller frees the log after the sampler is joined. */
  struct {
    CsLog        *log;
    CsManifest   *manifest;
  } lists;

  /* Staging folders (cs-stage.c) */
  struct {
    int           stage_root_fd;    /* scanner sets, controller closes; -1: temporaries go beside */
    gboolean      stage_swept;      /* scanner: the container's leftover ones removed */
    GMutex        stage_lock;
    GPtrArray    *stages;           /* CsStage*, every one created; under stage_lock */
    GPtrArray    *free_stages;      /* CsStage*, not in use by a worker; under stage_lock */
    atomic_uint   stage_seq;
    atomic_int    no_staging;       /* creating one failed: beside from now on */
    GMutex        link_locks[CS_JOB_LINK_LOCKS];  /* see publish_link in cs-copy.c */
  } stage;

  /* Big buffers (CS_BIG_BUFFER_SIZE) for big files on a share, made when
   * first asked for and freed when the workers are gone (cs-job-queue.c;
   * any worker, under big_lock). */
  struct {
    GMutex        big_lock;
    GPtrArray    *free_big_buffers; /* guint8*, not lent */
    guint         big_buffers;      /* made, lent or not */
  } bigbuf;

  /* Hard links (cs-links.c) */
  struct {
    GHashTable   *links;            /* scanner only: files with names not met yet */
    GMutex        link_lock;        /* every entry's state and waiters */
  } hardlinks;

  /* The scanner's own (cs-scanner.c): scanner thread only. */
  struct {
    CsItem       *batch;            /* small files not queued yet */
    guint         batch_n;
    guint64       batch_bytes;
    CsItem       *decide;           /* files of a rerun to decide in a worker (cs-decide-batch.c) */
    guint         decide_n;
    guint64       decide_bytes;
    gboolean      split_big;        /* this source's big files go in chunks */
    GThreadPool  *prefetch;         /* share folders listed ahead (cs-dest-listing.c), or NULL */
    atomic_int    listings_slow;    /* a listing said the server is slow: more threads list ahead */
    GHashTable   *early;            /* folders listed while their parent is (cs-dest-listing.c), or NULL */
    guint         connect_ahead;    /* listing threads set up before their first folder (cs-dest-listing.c) */
    atomic_int    prefetch_grown;   /* the listing threads grew to their slow count */
  } scan;

  /* Folders that end on a share, their attributes set by the job's own
   * threads (cs-dir.c: _cs_dir_finisher_start); pending under lock. */
  struct {
    GThreadPool  *finisher;
    GMutex        lock;
    GCond         cond;
    guint         pending;
  } dirs;

  /* The pause gate, the stop and the bounded queue (cs-job-queue.c): under
   * lock, which cs-job-control.c takes too for pause, resume and the state. */
  struct {
    GMutex        lock;
    GCond         cond;
    GThreadPool  *pool;             /* main thread makes it, the controller frees it; under lock */
    gboolean      paused;
    guint         asking;           /* questions open: the copy waits for the answer */
    atomic_int    gate_closed;      /* paused or asking: workers and scanner wait; read with
                                     * _cs_job_gate_closed */
    atomic_int    stop;             /* CsStopReason; read with _cs_job_stopping */
    atomic_int    active;           /* workers on an item (atomic) */
    guint         pending;          /* files queued or running (a batch counts its members);
                                     * written with atomics, read with _cs_job_pending */
    guint         max_pending;
    atomic_int    connected_ahead;  /* the workers were told to set their connections up */
    /* Descriptor budget, for when the limit is low (ulimit -n 64): at most this
     * many items in flight, and this many folder descriptors open. */
    guint         max_items;
    guint         items_active;
    guint         max_dir_fds;
    guint         dir_fds;          /* under lock, written with atomics: a move peeks */
    char         *fatal_message;
    gboolean      fatal_reported;   /* the file that hit it is in the error list (the worker
                                     * that won _cs_job_fatal; read after the workers end) */
    CsJobState    state;            /* written under the lock, read atomically */
  } gate;

  /* The clock (cs-job-queue.c): paused while the job is paused or a question
   * is open, and the copy with it (the gate), so every byte is counted
   * against time the clock ran. Holds are counted under gate.lock; the time
   * is read from two atomics without it, so the window never waits behind a
   * worker holding the lock. */
  struct {
    gint64        start_mono;       /* 0 until it runs */
    gint64        clock_origin;     /* start_mono plus every hold that ended */
    gint64        clock_frozen;     /* during a hold, the µs elapsed; else -1 */
    gint64        held_since;
    guint         holds;
    gboolean      hold_paused;      /* the user paused during the current hold */
    gint64        paused_us;        /* every ended hold the user paused in, µs of wall time */
  } clock;

  /* Where the workers' time goes (cs-job-queue.c claims, cs-sampler.c
   * reads). Each worker claims a slot as it takes its first item and alone
   * writes it; the sampler reads them. The thread-seconds integral is kept
   * under thread_lock by _cs_job_apply_threads and read by the sampler. */
  struct {
    CsWorkerPhase *_Atomic slots[CS_JOB_PHASE_SLOTS];
    atomic_uint   n_slots;          /* claimed, perhaps beyond CS_JOB_PHASE_SLOTS */
    guint64       run;              /* this run's number in the process, from 1 (main thread, at start) */
    GMutex        thread_lock;
    gint64        threads_since;    /* µs, monotonic: when the count last changed (0: not yet running) */
    double        thread_seconds;   /* the count's integral up to threads_since */
  } phases;

  /* The channel to the main context (cs-job-channel.c): dirty flags under
   * notify_lock from any thread, one pending source; and the questions, one
   * at a time under ask_lock (workers, the controller). */
  struct {
    GMainContext *context;          /* where signals are emitted; main thread, at start */
    gboolean      has_conflict_handler;
    GMutex        notify_lock;
    GSource      *notify_source;
    GArray       *pending_samples;  /* CsSample */
    GPtrArray    *pending_conflicts;
    CsDeletions  *pending_deletions;
    GArray       *pending_thread_changes; /* guint pairs: from, to */
    gboolean      progress_dirty;
    gboolean      done_pending;
    GMutex        ask_lock;         /* one question at a time */
    CsConflictAnswer all_answer;
    gboolean      has_all_answer;
  } channel;
};

/* any thread: what other rooms read of the job while it runs */
static inline guint
_cs_job_threads (CsJob *job)
{
  return atomic_load_explicit (&job->tune.threads, memory_order_relaxed);
}

/* any thread: a peek without the lock (the scanner's batching) */
static inline guint
_cs_job_pending (CsJob *job)
{
  return __atomic_load_n (&job->gate.pending, __ATOMIC_RELAXED);
}

/* any thread: paused or a question open (a peek; _cs_job_wait_if_paused waits) */
static inline gboolean
_cs_job_gate_closed (CsJob *job)
{
  return atomic_load_explicit (&job->gate.gate_closed, memory_order_relaxed) != 0;
}

/* any thread: the job stops on a fatal error (the destination is gone) */
static inline gboolean
_cs_job_stopped_fatally (CsJob *job)
{
  return atomic_load (&job->gate.stop) == CS_STOP_FATAL;
}

/* any thread: fewer than @n folder descriptors left in the budget; a hint
 * read without the lock (a move flushes its batch early then) */
static inline gboolean
_cs_job_dir_fds_short (CsJob *job,
                       guint  n)
{
  return __atomic_load_n (&job->gate.dir_fds, __ATOMIC_RELAXED) + n > job->gate.max_dir_fds;
}

/* any thread: the destination is a network share (the scanner sets it) */
static inline gboolean
_cs_job_destination_remote (CsJob *job)
{
  return atomic_load (&job->dest.dst_remote) != 0;
}

/* cs-job-queue.c: the integral of the thread count over wall time, from
 * the start to @now_us (monotonic µs), in thread-seconds; any thread. */
double    _cs_job_thread_seconds   (CsJob        *job,
                                    gint64        now_us);
gint64    _cs_job_paused_us        (CsJob        *job,
                                    gint64        now_us);
/* cs-job.c */
double    _cs_job_elapsed          (CsJob        *job);
gboolean  _cs_job_wait_if_paused   (CsJob        *job);   /* FALSE when stopping */
gboolean  _cs_job_stopping         (CsJob        *job);
/* any thread: whether @name matches one of the job's excludes */
gboolean  _cs_job_is_excluded      (CsJob        *job,
                                    const char   *name);
/* What becomes of a file, as the copy decides (_cs_copy_decide). */
typedef enum {
  CS_ACTION_COPY,        /* nothing there yet */
  CS_ACTION_REPLACE,
  CS_ACTION_KEEP_BOTH,
  CS_ACTION_SKIP,        /* identical, or kept by the policy */
  CS_ACTION_SKIP_NEWER,  /* the destination is newer: skipped and reported */
  CS_ACTION_SKIP_KEPT,   /* it differs, and the policy (never) or the user kept it */
  CS_ACTION_FAIL,        /* reported already */
} CsAction;

/* Counts one file's decision, once, where it is made (scanner or worker):
 * checked, and to copy for a copy, a replacement or a kept-both copy. */
void      _cs_job_count_decided    (CsJob        *job,
                                    CsAction      action);
/* Counts and reports a file that is not copied (skip, skip-newer, fail). */
void      _cs_job_account          (CsJob        *job,
                                    CsDir        *dir,
                                    const char   *name,
                                    const char   *dst_name,
                                    CsAction      action,
                                    guint64       size);
/* Counts a file as done in @klass (totals and progress). */
void      _cs_job_count_done       (CsJob        *job,
                                    CsClass       klass,
                                    guint64       size);

/* TRUE for the first fatal error of the job, which the caller then reports. */
gboolean  _cs_job_fatal            (CsJob        *job,
                                    const char   *message);
void      _cs_job_push             (CsJob        *job,
                                    CsItem       *item);
void      _cs_job_add_total        (CsJob        *job,
                                    CsClass       klass,
                                    guint64       files,
                                    guint64       bytes);
/* Why a file counted as skipped was: @identical, or kept by the user's answer
 * or overwrite rule (CsSkips). */
void      _cs_job_add_skip         (CsJob        *job,
                                    gboolean      identical,
                                    guint64       bytes);
/* A file found at @found bytes turned out to hold @actual (a pseudo-file). */
void      _cs_job_correct_found_bytes (CsJob     *job,
                                       guint64    found,
                                       guint64    actual);
void      _cs_job_add_dir_total    (CsJob        *job,
                                    CsClass       klass);
void      _cs_job_report           (CsJob        *job,
                                    CsDir        *dir,
                                    const char   *name,
                                    const char   *operation,
                                    int           error_code,
                                    const char   *message,
                                    guint         attempts);
/* A note (CsRunError.note), not a failure: what the destination did not
 * keep, or what was left out on purpose; no retry would change it. */
void      _cs_job_note             (CsJob        *job,
                                    CsDir        *dir,
                                    const char   *name,
                                    const char   *operation,
                                    int           error_code,
                                    const char   *message);
/* The name a source given as @source lands under in a destination folder:
 * its last part, or "." (the folder itself) for "." and "..". */
char     *_cs_landing_name         (const char   *source);
/* _cs_job_report for an item (@name in @dir, or @dst_name there when given)
 * that failed, which the per-file log lists too. */
void      _cs_job_report_item      (CsJob        *job,
                                    CsDir        *dir,
                                    const char   *name,
                                    const char   *dst_name,
                                    guint64       size,
                                    gboolean      folder,
                                    const char   *operation,
                                    int           error_code,
                                    const char   *message,
                                    guint         attempts);
/* A line of the per-file log for @name in @dir (its source path), when the
 * job keeps one; cs-log.h says what @action and @why hold. */
void      _cs_job_log              (CsJob        *job,
                                    CsDir        *dir,
                                    const char   *name,
                                    const char   *action,
                                    guint64       bytes,
                                    const char   *why);
void      _cs_job_log_path         (CsJob        *job,
                                    const char   *path,
                                    gboolean      folder,
                                    const char   *action,
                                    guint64       bytes,
                                    const char   *why);
/* A note naming @name's destination path: for what concerns the file
 * there (a newer one kept), which the source's path would not name. */
void      _cs_job_report_destination (CsJob      *job,
                                      CsDir      *dir,
                                      const char *name,
                                      const char *operation,
                                      const char *message);
void      _cs_job_post_sample      (CsJob        *job,
                                    const CsSample *sample);
CsConflictAnswer _cs_job_ask       (CsJob        *job,
                                    CsDir        *dir,
                                    const char   *name,
                                    const struct stat *src,
                                    const struct stat *dst,
                                    gboolean     *out_apply_all);
gboolean  _cs_job_sleep            (CsJob        *job,
                                    double        seconds);  /* FALSE when stopping */
/* controller thread: emits "deletions" on the main context and waits for the
 * answer, the clock held meanwhile; TRUE to delete. */
gboolean  _cs_job_confirm_deletions (CsJob       *job,
                                     CsDeletions *deletions);

/* any thread */
/* Scanner: each regular file found, and the end of the scan. */
void      _cs_job_size_up          (CsJob        *job,
                                    guint64       size);
void      _cs_job_size_up_end      (CsJob        *job);
void      _cs_job_apply_threads    (CsJob        *job,
                                    guint         n_threads,
                                    const char   *reason);
void      _cs_job_auto_feed        (CsJob        *job,
                                    const CsSample *sample,
                                    double        bytes_per_file);

/* any thread: a big buffer (CS_BIG_BUFFER_SIZE) for a worker's range, NULL
 * when as many as the job may have are lent; given back before the worker
 * takes another item. */
guint8   *_cs_job_lend_big_buffer  (CsJob        *job);
void      _cs_job_return_big_buffer (CsJob       *job,
                                     guint8      *buffer);

/* A queued item a worker put aside (a later name of a file whose first name
 * is being copied): the job counts it as in flight until it is released. */
void      _cs_job_hold_item        (CsJob        *job);
void      _cs_job_release_held     (CsJob        *job);

/* Folder descriptors against the budget; the scanner may wait for one. */
void      _cs_job_acquire_dir_fds  (CsJob        *job,
                                    guint         n);
void      _cs_job_release_dir_fds  (CsJob        *job,
                                    guint         n);
/* any thread, from a folder's last reference while its descriptors are open:
 * what the operation does with a finished folder (a move removes the emptied
 * source folder). The job dispatches, so the folder's room calls no
 * operation's room. */
void      _cs_job_dir_finished     (CsJob        *job,
                                    CsDir        *dir);

/*
 * Among the job's own files only (cs-job*.c, one room for tools/engine-calls):
 * the lifecycle (cs-job.c), the check (cs-job-check.c), the gate and queue
 * (cs-job-queue.c), the tallies (cs-job-account.c), the channel
 * (cs-job-channel.c), control and the job's threads (cs-job-control.c).
 */
/* cs-job-queue.c: the clock and the gate, under job->gate.lock */
void      _cs_job_clock_start      (CsJob        *job);
void      _cs_job_hold_locked      (CsJob        *job,
                                    gboolean      paused);
gboolean  _cs_job_release_locked   (CsJob        *job,
                                    CsRunEvent   *out_event);
void      _cs_job_update_gate_locked (CsJob      *job);
/* TRUE for the first stop of the job */
gboolean  _cs_job_stop             (CsJob        *job,
                                    CsStopReason  reason,
                                    const char   *message);
void      _cs_job_queue_open       (CsJob        *job);
void      _cs_job_queue_resize     (CsJob        *job,
                                    guint         n_threads);
void      _cs_job_queue_close      (CsJob        *job);
void      _cs_job_wait_for_items   (CsJob        *job);
void      _cs_job_free_big_buffers (CsJob        *job);
/* cs-job-channel.c */
void      _cs_job_channel_class_init (CsJobClass *klass);
void      _cs_job_channel_open     (CsJob        *job,
                                    GMainContext *context);
void      _cs_job_mark_progress    (CsJob        *job);
void      _cs_job_post_thread_change (CsJob      *job,
                                      guint       from,
                                      guint       to);
void      _cs_job_post_done        (CsJob        *job);
/* cs-job-control.c */
void      _cs_job_start_threads    (CsJob        *job);
/* cs-job.c */
void      _cs_job_finish_on_main   (CsJob        *job);

/* main thread, before the check: the route to SMB shares, mounted by GVfs
 * or by URL (cs-route.c). */
void      _cs_route_choose         (CsJob        *job);

/* Whether a destination listing of @entries entries that took @took_us
 * says the server is slow: 50 ms or more, and a millisecond or more per
 * entry (behind 1 ms per filesystem call under Samba, 50 entries took
 * 0.1–0.15 s, 100 entries 0.2–0.35 s; at 0 µs, 3 ms, but a folder of 8
 * took 20 ms now and then on two busy cores). A real NAS answers a folder
 * of 100 in a few requests, a few milliseconds behind 1 ms of network. */
static inline gboolean
_cs_job_listing_slow (gint64 took_us,
                      guint  entries)
{
  return took_us >= 50 * G_TIME_SPAN_MILLISECOND && took_us >= (gint64) (entries + 2) * 1000;
}

G_END_DECLS
