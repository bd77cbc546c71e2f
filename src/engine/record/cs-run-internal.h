/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * What the files of the run record share, and nothing outside them may
 * include: the job records through cs-run-private.h, everyone else reads
 * through cs-run.h. One job a file:
 *
 *   cs-run.c               the type: its names, getters, copies and lifetime
 *   cs-run-recording.c     what the job records (cs-run-private.h), from any thread
 *   cs-run-samples.c       the sample store: recent samples, buckets, statistics
 *   cs-run-write.c         the record as JSON, and saving it
 *   cs-run-reader.c        one JSON value read and checked, or the message naming it
 *   cs-run-read-columns.c  the samples' columns, from the tree or from their text
 *   cs-run-read.c          the record read back: its fields, limits, old records
 *   cs-run-summary.c       the typed summary the history's index keeps
 *   cs-run-phases.c        where the workers' time went (cs-phases.h): its
 *                          store, its writers and getters, its JSON both ways
 *
 * Calls go down this list's dependencies only (tools/engine-calls checks
 * there is no circle): the readers and writers use the store and the type,
 * never the other way round.
 */

#include <json-glib/json-glib.h>

#include "cs-run.h"

G_BEGIN_DECLS

/* Samples are kept whole for this long back from the newest; older ones are
 * merged into buckets. */
#define RECENT_SECONDS    600.0
/* The whole run in at most this many buckets: when they are more, neighbours
 * are merged in pairs and the width doubles. A 24-hour run ends in buckets of
 * 128 s, 675 of them. */
#define MAX_BUCKETS       1024

/* What a record may hold; a value beyond these is a corrupt file. */
#define MAX_SAMPLES       (10 * 1000 * 1000)
#define MAX_COUNT         1e15
#define MAX_BYTES         1e18
#define MAX_DURATION      (10.0 * 365.25 * 24 * 3600)
#define MAX_COUNTER_VALUE 1e15
/* 1970 … 2200: a start time outside this range is a corrupt file. */
#define MAX_STARTED_USEC  G_GINT64_CONSTANT (7258118400000000)

/* The whole run in buckets this wide at first (cs-run-samples.c). */
#define FIRST_BUCKET_WIDTH 1.0

/* Where the workers' time went (cs-run-phases.c): by phase per sample, at
 * the samples' two resolutions, and the lanes of the last seconds. */
typedef struct {
  GArray  *recent;                      /* of CsPhaseBucket, whole samples */
  guint    recent_first;
  GArray  *buckets;                     /* of CsPhaseBucket, sums */
  double   bucket_width;
  double   totals[CS_PHASE_N];          /* exact, whatever the buckets merge */
  /* Waiting for a processor (CsPhaseBucket.runnable), exact like the
   * totals; FALSE: not measured (the samples' runnable are all 0). */
  gboolean runnable_measured;
  double   runnable_total;
  GArray  *lanes[CS_PHASE_MAX_WORKERS]; /* of CsPhaseChange; NULL: none */
  double   lanes_newest;
} CsRunPhases;

typedef struct {
  double  sum;
  guint64 n;
  double  min;
  double  max;
} StatSum;

struct _CsRun
{
  gatomicrefcount   ref_count;
  GMutex            mutex;

  char             *id;
  const char       *kind;         /* interned */
  char             *label;
  gint64            started;
  double            duration;
  double            held;         /* seconds the clock stood still */
  char            **sources;
  char             *destination;
  CsRunSettings     settings;
  CsRunEnvironment  environment;
  CsTotals          totals;
  CsRemovals        removals;
  CsSkips           skips;
  gboolean          skips_known;
  CsRunManifest     manifest;     /* its strings owned; path NULL: none */
  const char       *outcome;      /* interned */
  char             *fatal_error;
  /* The last RECENT_SECONDS of samples in full, from recent_first on, and
   * everything before them in buckets of at most bucket_width seconds (the
   * last one still filling). */
  GArray           *recent;       /* of CsSample */
  guint             recent_first;
  GArray           *buckets;      /* of CsBucket */
  double            bucket_width;
  /* Each counter's statistics over every sample, kept as they come so they
   * stay exact whatever the buckets merge. The newest sample is not in them
   * yet while pending: the sampler may make it again at the end. */
  StatSum           sums[CS_N_COUNTERS];
  gboolean          pending;
  /* Read from a header (cs_run_to_header_json ()): no samples, no errors,
   * only their numbers. */
  gboolean          header;
  guint             header_samples;
  GArray           *timeline;     /* of CsThreadChange */
  GArray           *events;       /* of CsRunEvent */
  GPtrArray        *errors;       /* of CsRunError, failures and notes */
  guint             n_errors;     /* its failures, read without the lock */
  guint             n_notes;      /* its notes, likewise */
  guint64           errors_omitted;
  guint64           events_omitted;
  CsRunPhases      *phases;       /* NULL: no phase data */
  CsLatencyHistogram *latency[CS_LATENCY_N];  /* NULL: none of that kind */
};

/* cs-run.c */
void         _cs_run_threads_over_time   (guint                 start,
                                          const CsThreadChange *changes,
                                          guint                 n_changes,
                                          double                duration,
                                          guint                *out_min,
                                          guint                *out_max,
                                          double               *out_mean);
void         _cs_run_not_copied          (const CsTotals       *totals,
                                          guint64               out[CS_N_KINDS]);
gboolean     _cs_run_outcome_is_known    (const char           *outcome);
const char  *_cs_run_manifest_algo_known (const char           *algo);

/* cs-run-samples.c; every one called with the run's lock held. */
guint           _cs_run_recent_len         (CsRun          *run);
const CsSample *_cs_run_recent_at          (CsRun          *run,
                                            guint           i);
void            _cs_run_store_sample       (CsRun          *run,
                                            const CsSample *sample,
                                            gboolean        count);
void            _cs_run_settle_pending     (CsRun          *run);
guint           _cs_run_n_samples_locked   (CsRun          *run);
double          _cs_run_stat_sum_locked    (CsRun          *run,
                                            CsCounter       counter);
guint64         _cs_run_stat_count_locked  (CsRun          *run,
                                            CsCounter       counter);

/* cs-run-phases.c; every one called with the run's lock held. */
void _cs_run_phases_free  (CsRun       *run);
void _cs_run_build_phases (JsonBuilder *builder,
                           CsRun       *run);

/* cs-run-reader.c: every field is checked for presence, type and range; the
 * first problem ends the import with a message naming the field, and every
 * later call does nothing. */
typedef struct {
  GError **error;
  gboolean failed;
} CsRunReader;

void        _cs_run_reader_fail     (CsRunReader *r,
                                     const char  *format,
                                     ...) G_GNUC_PRINTF (2, 3);
void        _cs_run_fail_field      (CsRunReader *r,
                                     const char  *where,
                                     const char  *name,
                                     const char  *what);
JsonNode   *_cs_run_get_member      (CsRunReader *r,
                                     JsonObject  *object,
                                     const char  *where,
                                     const char  *name,
                                     gboolean     required);
JsonObject *_cs_run_read_object     (CsRunReader *r,
                                     JsonObject  *object,
                                     const char  *where,
                                     const char  *name);
JsonArray  *_cs_run_read_array      (CsRunReader *r,
                                     JsonObject  *object,
                                     const char  *where,
                                     const char  *name,
                                     gboolean     required);
/* Returns a new string, or NULL for null (when allowed) and on failure. */
char       *_cs_run_read_string_node (CsRunReader *r,
                                      JsonNode    *node,
                                      const char  *where,
                                      const char  *name,
                                      gboolean     nullable);
char       *_cs_run_read_string     (CsRunReader *r,
                                     JsonObject  *object,
                                     const char  *where,
                                     const char  *name,
                                     gboolean     nullable);
gint64      _cs_run_read_int_node   (CsRunReader *r,
                                     JsonNode    *node,
                                     const char  *where,
                                     const char  *name,
                                     gint64       min,
                                     double       max);
gint64      _cs_run_read_int        (CsRunReader *r,
                                     JsonObject  *object,
                                     const char  *where,
                                     const char  *name,
                                     gint64       min,
                                     double       max);
/* Numbers are accepted as integers or doubles; null reads as NaN when allowed. */
double      _cs_run_read_double_node (CsRunReader *r,
                                      JsonNode    *node,
                                      const char  *where,
                                      const char  *name,
                                      double       min,
                                      double       max,
                                      gboolean     nullable);
double      _cs_run_read_double     (CsRunReader *r,
                                     JsonObject  *object,
                                     const char  *where,
                                     const char  *name,
                                     double       min,
                                     double       max);
gboolean    _cs_run_read_bool       (CsRunReader *r,
                                     JsonObject  *object,
                                     const char  *where,
                                     const char  *name);

/* cs-run-read-columns.c: the samples' columns, read whole before any sample
 * is made of them. */
typedef struct {
  guint    n;
  double  *t;
  guint64 *files;
  guint64 *bytes;
  double  *values[CS_N_COUNTERS];   /* NULL: the column is absent */
} CsRunColumns;

void _cs_run_columns_clear     (CsRunColumns *columns);
/* From the tree (cs_run_new_from_json ()). */
void _cs_run_read_columns_tree (CsRunReader  *r,
                                JsonObject   *root,
                                CsRunColumns *columns);
/* From their text, left out of the tree by cs_json_load_file_apart (). */
void _cs_run_read_columns_text (CsRunReader  *r,
                                GBytes       *text,
                                CsRunColumns *columns);
/* Each sample of the columns, as the sampler would have added it. @count:
 * into the statistics (a version 1 record keeps none to read back). */
void _cs_run_store_columns     (CsRun        *run,
                                CsRunColumns *columns,
                                gboolean      count);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (CsRunColumns, _cs_run_columns_clear)

/* cs-run-phases.c: the "phases" and "latency" members, when there; a record
 * without them has no phase data. */
void _cs_run_read_phases (CsRunReader *r,
                          JsonObject  *root,
                          CsRun       *run);

G_END_DECLS
