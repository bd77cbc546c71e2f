/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * What a run of ours leaves on disk and nobody else does: temporaries and
 * staging folders named ".copyscope-<16 hex>-<digits><suffix>", and claims on
 * final names. A later run removes them after a crash only when the name (and
 * the owner) says they are ours.
 */

#include <glib.h>

G_BEGIN_DECLS

#define CS_TEMP_PREFIX     ".copyscope-"
#define CS_TEMP_SUFFIX     ".part"
#define CS_STAGE_SUFFIX    ".stage"
/* A finished temporary about to claim a final name, renamed first to say
 * which: ".copyscope-<16 hex>-<digits>.claim-<16 hex of the final name>". */
#define CS_CLAIM_SUFFIX    ".claim-"


/* The claim on a final name where a share can neither rename without replacing
 * nor hard-link: this, the job tag and a newline (cs-copy.c, publish_claimed). */
#define CS_PLACEHOLDER_PREFIX "copyscope placeholder "
#define CS_PLACEHOLDER_SIZE   (sizeof CS_PLACEHOLDER_PREFIX - 1 + 16 + 1)

/* ".copyscope-<16 hex>-<digits><suffix>": named by a run of ours */
gboolean  _cs_name_is_ours         (const char   *name,
                                    const char   *suffix);
/* The temporaries of any run of ours, claims' included. */
gboolean  _cs_name_is_our_temp     (const char   *name);
/* The hash of a final name as a claim's temporary carries it. */
guint64   _cs_name_hash            (const char   *final);
/* Whether @name is a claim's temporary; @out_hash gets the final name's hash. */
gboolean  _cs_name_claim_hash      (const char   *name,
                                    guint64      *out_hash);

/*
 * Whether the run that named a file is still running. Two runs into the same
 * destination at once must not take each other's temporaries for a killed
 * run's: each run, while it lasts, holds an abstract UNIX socket named after
 * its job tag, which the kernel drops when the process ends, a SIGKILL
 * included. A run on another machine is not seen: its files count as
 * left behind, as before.
 */
/* The run's own: a descriptor to keep open while it runs, or -1. */
int       _cs_names_announce       (const char   *tag);
/* For a name of ours: TRUE while the run of its tag is alive here. */
gboolean  _cs_name_run_alive       (const char   *name);
/* ".copyscope-<16 hex>-<digits>.stage" */
gboolean  _cs_name_is_our_stage    (const char   *name);

/* How many numbered names "keep both" tries. */
#define CS_KEEP_BOTH_MAX 10000

/* "name (@n).ext": where "keep both" puts a file. */
char     *_cs_name_numbered        (const char   *final,
                                    guint         n);

typedef struct _CsDir CsDir;

/* any thread: @name in @dir, as a path in the source or the destination; for
 * messages, conflicts and dry runs only — never on the hot path */
char     *_cs_dir_dup_path         (CsDir        *dir,
                                    const char   *name,
                                    gboolean      destination);

G_END_DECLS
