/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "cs-counters.h"
#include "cs-figures.h"
#include "cs-phases.h"

G_BEGIN_DECLS

/* 2: samples at two resolutions (the last minutes whole, the rest in
 * buckets) and statistics that count their samples. Version 1 records, every
 * sample whole, still load: they are reduced as they are read. */
#define CS_RUN_SCHEMA_VERSION 2

typedef enum {
  CS_OVERWRITE_NEWER,   /* replace older files; skip and report newer ones (default) */
  CS_OVERWRITE_NEVER,   /* never replace an existing file */
  CS_OVERWRITE_ALWAYS,  /* replace every existing file, identical ones included */
  CS_OVERWRITE_ASK,     /* ask through the job's "conflict" signal */
  CS_OVERWRITE_DIFFERENT, /* replace every file that differs, newer or not (a mirror's default) */
} CsOverwrite;

const char *cs_overwrite_to_string   (CsOverwrite  overwrite);
gboolean    cs_overwrite_from_string (const char  *str,
                                      CsOverwrite *out_overwrite);

/* What a job does with its sources (cs_job_set_operation). */
typedef enum {
  CS_OPERATION_COPY,
  CS_OPERATION_MOVE,    /* each source file removed once its copy is published and flushed */
  CS_OPERATION_MIRROR,  /* the destination made to match: copies, then deletes the extras */
} CsOperation;

const char *cs_operation_to_string   (CsOperation  operation);   /* "copy", "move", "mirror" */
gboolean    cs_operation_from_string (const char  *str,
                                      CsOperation *out_operation);

/* Robocopy's summary classes. */
typedef enum {
  CS_CLASS_TOTAL,
  CS_CLASS_COPIED,
  CS_CLASS_SKIPPED,
  CS_CLASS_MISMATCH,
  CS_CLASS_FAILED,
  CS_CLASS_EXTRAS,
  CS_N_CLASSES
} CsClass;

typedef enum {
  CS_KIND_DIRS,
  CS_KIND_FILES,
  CS_KIND_BYTES,
  CS_N_KINDS
} CsKind;

const char *cs_class_to_string (CsClass klass);  /* "total", "copied", … */
const char *cs_kind_to_string  (CsKind  kind);   /* "dirs", "files", "bytes" */

typedef struct {
  guint64 v[CS_N_CLASSES][CS_N_KINDS];
} CsTotals;

/* What a move took out of the source and a mirror out of the destination;
 * all zero for a copy. */
typedef struct {
  guint64 moved_files;      /* move: source files gone to the destination (renamed, or
                             * removed once their copy was published and flushed) */
  guint64 moved_bytes;
  guint64 moved_dirs;       /* move: source folders renamed whole or removed once empty */
  guint64 kept_files;       /* move: files left in the source (newer or different at the
                             * destination, failed, changed meanwhile) */
  guint64 deleted_files;    /* mirror: extras deleted from the destination */
  guint64 deleted_dirs;
  guint64 deleted_bytes;
  guint64 not_deleted;      /* mirror: extras listed but not deleted (over the maximum,
                             * changed since they were listed, or refused) */
} CsRemovals;

/* Why the files counted as skipped were not copied. The rest of the Skipped
 * class, if any, could not be copied at all (a socket; a device node, made
 * only by root) and is listed among the run's errors. */
typedef struct {
  guint64 identical_files;          /* the same size, time and type already at the destination */
  guint64 identical_bytes;
  guint64 chosen_files;             /* kept by the user's answer or the overwrite rule they set
                                     * (never; newer, with the destination's copy newer) */
  guint64 chosen_bytes;
} CsSkips;

/* The checksum manifest a run published (cs-manifest.h). */
typedef struct {
  const char *path;                 /* absolute, filename encoding */
  const char *algo;                 /* "xxh128" or "sha256" */
  guint64     files;                /* lines: files listed */
  guint64     from_copy;            /* copied files hashed from --verify's read-back */
  guint64     read_copied;          /* copied (or moved) files read again from the destination */
  guint64     read_kept;            /* files already there (skipped) read from the destination */
  guint64     bytes_read;           /* read for the manifest alone */
} CsRunManifest;

/* One sample of every counter, taken at a fixed interval. */
typedef struct {
  double  t;                        /* seconds since the run started */
  double  values[CS_N_COUNTERS];
  guint64 files_done;               /* cumulative */
  guint64 bytes_done;               /* cumulative source bytes published */
} CsSample;

/*
 * A stretch of the run in one: the mean, lowest and highest of each counter
 * over the samples it merged. Its sample holds the means, with the counts at
 * the stretch's end (files_done, bytes_done, and the Threads counter: the
 * count at the end, not a mean). A whole sample is a bucket of one.
 */
typedef struct {
  CsSample sample;                  /* sample.t: where it ends */
  double   t_start;                 /* where it begins: the end of the one before */
  double   min[CS_N_COUNTERS];      /* NaN where no sample had a value */
  double   max[CS_N_COUNTERS];
  guint    n;                       /* samples merged */
} CsBucket;

typedef struct {
  double  t;
  guint   from;
  guint   to;
  char   *reason;                   /* "user", "auto: …", may be NULL */
} CsThreadChange;

/*
 * Something that happened at a moment of the run, for the graph to mark and
 * the summary to tell: a speed limit changed, a big file resumed, the clock
 * stood still (a pause, a question) for a while.
 */
typedef struct {
  double  t;                        /* seconds since the run started */
  char   *kind;                     /* "max-rate", "max-files", "resume", "kept", "pause",
                                     * "question" */
  double  value;                    /* max-rate: bytes/s; max-files: files/s (0: no limit);
                                     * resume: the bytes kept, where the copy went on;
                                     * kept: the bytes of a partial copy left for a later
                                     * run, as far as its journal proves them;
                                     * pause, question: the seconds the clock stood still */
  guint64 size;                     /* resume, kept: the file's size */
  guint64 checked;                  /* resume: destination bytes read back to prove them */
  char   *path;                     /* resume, kept: the file (UTF-8 display form); else NULL */
} CsRunEvent;

/*
 * What the run lists: a failure (an item not copied, a request that went
 * wrong) or, with @note, information that is not a failure and that no retry
 * would change: what the destination does not keep (modes, owners, times,
 * attributes, hard links), a socket or a FIFO left out, a file kept because
 * the one at the destination is newer. Both come in one list, in the order
 * they happened.
 */
typedef struct {
  char     *path;                   /* UTF-8 display form */
  char     *path_raw;               /* exact bytes, base64; NULL when path is valid UTF-8 */
  char     *operation;              /* "open", "read", "write", "rename", … */
  int       error_code;             /* errno value, 0 when not from errno */
  char     *message;
  guint     attempts;               /* 0 for a note */
  gboolean  note;
} CsRunError;

typedef struct {
  guint        threads;             /* at the start */
  CsOverwrite  overwrite;
  gboolean     verify;
  gboolean     durable;
  gboolean     flush;
  gboolean     dry_run;
  guint        retries;
  double       wait;                /* seconds */
  guint        interval_ms;
  char       **excludes;
  CsOperation  operation;
  double       max_rate;            /* bytes/s at the start, 0: none; changes are events */
  double       max_files;           /* files/s at the start, 0: none */
  gint64       max_delete;          /* mirror: at most this many deletions, -1: no limit */
} CsRunSettings;

typedef struct {
  char  *kernel;
  char  *hostname;
  guint  cpus;
  char  *source_fs;
  char  *destination_fs;
  char  *route;                     /* how an SMB share was reached; NULL: none was */
  char  *cache_mode;                /* "cold (drop_caches)", "warm", "unknown", … */
  char  *tool_version;
} CsRunEnvironment;

typedef struct {
  double avg;
  double min;
  double max;
} CsStat;

typedef struct _CsRun CsRun;

#define CS_TYPE_RUN (cs_run_get_type ())

GType                    cs_run_get_type          (void) G_GNUC_CONST;
CsRun                   *cs_run_new               (void);
CsRun                   *cs_run_ref               (CsRun       *run);
void                     cs_run_unref             (CsRun       *run);

/* All getters are safe from any thread; a run being recorded is locked internally. */
const char              *cs_run_get_id            (CsRun       *run);
char                    *cs_run_dup_label         (CsRun       *run);
void                     cs_run_set_label         (CsRun       *run,
                                                   const char  *label);
const char              *cs_run_get_kind          (CsRun       *run);  /* "copy", "sweep", … */
gint64                   cs_run_get_started       (CsRun       *run);  /* unix µs */
double                   cs_run_get_duration      (CsRun       *run);  /* seconds the clock ran */
double                   cs_run_get_held          (CsRun       *run);  /* seconds paused or waiting for an answer */
const char * const      *cs_run_get_sources       (CsRun       *run);
const char              *cs_run_get_destination   (CsRun       *run);
const CsRunSettings     *cs_run_get_settings      (CsRun       *run);
const CsRunEnvironment  *cs_run_get_environment   (CsRun       *run);
void                     cs_run_get_totals        (CsRun       *run,
                                                   CsTotals    *out_totals);
/* The figures the run is judged by, as cs-figures.h defines them. */
void                     cs_run_get_figures       (CsRun       *run,
                                                   CsFigures   *figures);
/* What the totals leave unaccounted: found (Total) but neither copied,
 * skipped, mismatched nor failed, because the run stopped before reaching
 * it (a fatal error, a cancel). Zero for a run that completed. */
void                     cs_run_get_not_copied    (CsRun       *run,
                                                   guint64      out[CS_N_KINDS]);
void                     cs_run_get_removals      (CsRun       *run,
                                                   CsRemovals  *out_removals);
/* FALSE (and @out_skips zeroed) for a record written before the reasons were
 * kept: its Skipped class is then all that is known. */
gboolean                 cs_run_get_skips         (CsRun       *run,
                                                   CsSkips     *out_skips);
/* FALSE when the run published no manifest; the strings stay the run's. */
gboolean                 cs_run_get_manifest      (CsRun       *run,
                                                   CsRunManifest *out_manifest);
const char              *cs_run_get_outcome       (CsRun       *run);  /* "completed", "cancelled", "failed", "running" */
const char              *cs_run_get_fatal_error   (CsRun       *run);  /* NULL unless the job stopped on one */

/* Copies, so callers hold no lock: free with g_free / g_array_unref / g_ptr_array_unref. */
/*
 * The samples are kept at two resolutions, so that a run of any length stays
 * small: the last ten minutes whole, everything before in at most a thousand
 * buckets. The series is the whole run, oldest first: the buckets, then the
 * whole samples as buckets of one. dup_samples is the same series as
 * samples (the buckets' means): a few thousand at most, whatever the length.
 */
GArray                  *cs_run_dup_series        (CsRun       *run);  /* of CsBucket */
CsSample                *cs_run_dup_samples       (CsRun       *run,
                                                   guint       *n_samples);
/* The samples taken, merged ones included. */
guint                    cs_run_get_n_samples     (CsRun       *run);
GArray                  *cs_run_dup_timeline      (CsRun       *run);  /* of CsThreadChange, strings owned by array */
GPtrArray               *cs_run_dup_errors        (CsRun       *run);  /* of CsRunError: failures and notes */
GArray                  *cs_run_dup_events        (CsRun       *run);  /* of CsRunEvent, strings owned by array */
guint                    cs_run_get_n_events      (CsRun       *run);
/* The failures listed, and the notes: together the length of dup_errors. */
guint                    cs_run_get_n_errors      (CsRun       *run);
guint                    cs_run_get_n_notes       (CsRun       *run);

/* Statistics over all samples taken, exact however they were merged since;
 * FALSE when there are none. Threads, a count,
 * has the lowest, the highest and the mean of its timeline over the clock's
 * time instead (cs-figures.h). */
gboolean                 cs_run_get_stat          (CsRun       *run,
                                                   CsCounter    counter,
                                                   CsStat      *out_stat);

/* Where the workers' time went (cs-phases.h). Each returns FALSE (or NULL)
 * for a run without phase data, never zeros. */
/* Worker-seconds in each phase over the whole run. */
gboolean                 cs_run_get_phase_totals  (CsRun       *run,
                                                   double       out_seconds[CS_PHASE_N]);
/* Worker-seconds the workers were ready to run but waited for a processor
 * over the whole run (CsPhaseBucket.runnable). FALSE for a run without
 * phase data and for one where it was not measured (a record before it, a
 * kernel without scheduler statistics): "not measured", never 0. */
gboolean                 cs_run_get_runnable_total (CsRun      *run,
                                                    double     *out_seconds);
/* By phase over time, oldest first: the buckets, then the whole samples.
 * Each bucket's runnable is 0 where not measured. */
GArray                  *cs_run_dup_phase_series  (CsRun       *run);  /* of CsPhaseBucket */
/* The newest @max of the same, oldest first; NULL where there are none. */
GArray                  *cs_run_dup_phase_series_newest (CsRun  *run,
                                                         guint   max);
/* The lanes, by worker number; each lane's changes within the last
 * CS_PHASE_LANE_SECONDS of the newest one. */
GArray                  *cs_run_dup_phase_lanes   (CsRun       *run);  /* of CsPhaseLane */
gboolean                 cs_run_get_latency       (CsRun       *run,
                                                   CsLatencyKind kind,
                                                   CsLatencyHistogram *out_histogram);

/* Files. Numbers are written independently of the locale. */
JsonNode                *cs_run_to_json           (CsRun       *run);
char                    *cs_run_to_json_string    (CsRun       *run,
                                                   gboolean     pretty);
/* The record without its samples and errors (their numbers only): what a
 * list of runs shows, a few kilobytes whatever the run's length. Read back by
 * cs_run_new_from_json () as a run that cs_run_is_header (): no samples, an
 * empty list of errors, cs_run_get_n_errors (), cs_run_get_n_notes () and the
 * statistics as saved. */
JsonNode                *cs_run_to_header_json    (CsRun       *run);
gboolean                 cs_run_is_header         (CsRun       *run);
/* Less than a header, for an index of runs read at every listing: what a list
 * shows (id, kind, label, start, duration, paths, totals, outcome, threads and
 * their timeline, the statistics, the numbers of failures, notes and samples), typed,
 * so a list of a thousand is read without parsing. cs_run_new_from_summary ()
 * makes a run that cs_run_is_header () of it; its other settings, environment
 * and events are the defaults of cs_run_new (). */
#define CS_RUN_SUMMARY_TYPE "(ssmsxddaaymayuatsmsa(duus)a(tddd)uuumaymst)"
GVariant                *cs_run_to_summary        (CsRun       *run);
CsRun                   *cs_run_new_from_summary  (GVariant    *summary,
                                                   GError     **error);
CsRun                   *cs_run_new_from_json     (JsonNode    *node,
                                                   GError     **error);
CsRun                   *cs_run_load              (const char  *path,
                                                   GError     **error);
gboolean                 cs_run_save              (CsRun       *run,
                                                   const char  *path,
                                                   GError     **error);

/* Helpers for other units (reports, the window): free the element contents. */
void                     cs_run_error_clear       (CsRunError  *error);
void                     cs_thread_change_clear   (CsThreadChange *change);
void                     cs_run_event_clear       (CsRunEvent  *event);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CsRun, cs_run_unref)

#define CS_RUN_ERROR (cs_run_error_quark ())
GQuark cs_run_error_quark (void);

typedef enum {
  CS_RUN_ERROR_INVALID,   /* malformed or unsupported run file */
  CS_RUN_ERROR_TOO_LARGE,
} CsRunErrorCode;

G_END_DECLS
