/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * The counters a run reports, one value per sample. Names and directions follow
 * the counters of the Robocopy reviews the product grew from, so a Copyscope
 * comparison can be read beside them.
 *
 * Units: MB = 10^6 bytes, KB = 10^3 bytes. An in-kernel copy (copy_file_range,
 * reflink) counts as one read and one write request in the read and write rates,
 * and once in the data request rate.
 */
typedef enum {
  CS_COUNTER_REQUEST_RATE,          /* all requests/s */
  CS_COUNTER_DATA_REQUEST_RATE,     /* read + write + copy requests/s */
  CS_COUNTER_READ_REQUEST_RATE,
  CS_COUNTER_WRITE_REQUEST_RATE,
  CS_COUNTER_DATA_TRANSFER_RATE,    /* read + written MB/s */
  CS_COUNTER_READ_TRANSFER_RATE,
  CS_COUNTER_WRITE_TRANSFER_RATE,
  CS_COUNTER_FILE_RATE,             /* files completed/s */
  CS_COUNTER_AVG_REQUEST_SIZE,      /* KB */
  CS_COUNTER_AVG_READ_REQUEST_SIZE,
  CS_COUNTER_AVG_WRITE_REQUEST_SIZE,
  CS_COUNTER_AVG_REQUEST_TIME,      /* ms */
  CS_COUNTER_AVG_READ_REQUEST_TIME,
  CS_COUNTER_AVG_WRITE_REQUEST_TIME,
  CS_COUNTER_CPU_USAGE,             /* whole machine, % */
  CS_COUNTER_CPU_USAGE_SYSTEM,      /* whole machine, kernel time, % */
  CS_COUNTER_PROCESS_CPU_USAGE,     /* this process, % of one CPU */
  CS_COUNTER_PROCESS_MEMORY,        /* resident set size, MB */
  CS_COUNTER_THREADS,               /* workers allowed */
  /* Added after the seed reviews' counters, so their order stays theirs */
  CS_COUNTER_CHECK_RATE,            /* files checked/s: decided, skipped or to copy */
  CS_N_COUNTERS
} CsCounter;

typedef enum {
  CS_DIRECTION_NONE,
  CS_DIRECTION_MORE_IS_BETTER,
  CS_DIRECTION_LESS_IS_BETTER,
} CsDirection;

typedef struct {
  CsCounter    id;
  const char  *key;     /* stable, for files: "request_rate" */
  const char  *label;   /* English, translatable with N_(): "Request Rate" */
  const char  *unit;    /* "req/s", "MB/s", "files/s", "KB", "ms", "%", …; translatable with N_() */
  CsDirection  direction;
} CsCounterInfo;

const CsCounterInfo *cs_counter_get_info        (CsCounter    counter);
gboolean             cs_counter_from_key        (const char  *key,
                                                 CsCounter   *out_counter);
const char          *cs_direction_to_string     (CsDirection  direction);

G_END_DECLS
