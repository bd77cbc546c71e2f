/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * The oracle every fault test ends with (docs/RELIABILITY.md). Before a run it
 * snapshots each source tree, what already exists where its copy goes, and any
 * bystander paths outside the job. After the run it classifies every path of
 * each copy:
 *
 *   ABSENT    in the source, not (yet) in the copy;
 *   COMPLETE  identical to the source: type, size, mode, owner, mtime to the
 *             nanosecond, contents (XXH3), symlink target, device numbers,
 *             xattrs (ACLs included);
 *   OLD       the previous file at that path, untouched;
 *   TEMP      a temporary of ours, ".copyscope-<16 hex>-<digits>.part" (or
 *             ".claim-<16 hex>" for one about to claim its final name);
 *
 * and fails the test on anything else — a partial or mixed file under a final
 * name above all — on any change to a source or a bystander, and on a previous
 * file that vanished. Folders in the copy must be folders; their own metadata
 * (xattrs and ACLs included) is compared only when everything must be
 * COMPLETE, and so are hard links: names that are one file in the source must
 * be one file in the copy.
 *
 * Walks use *at() calls from descriptors, so trees deeper than PATH_MAX work.
 */

typedef enum {
  CS_ORACLE_ABSENT,
  CS_ORACLE_COMPLETE,
  CS_ORACLE_OLD,
  CS_ORACLE_TEMP,
  CS_ORACLE_N_STATES
} CsOracleState;

typedef enum {
  CS_ORACLE_NONE          = 0,
  CS_ORACLE_ALLOW_TEMP    = 1 << 0,   /* right after a kill */
  CS_ORACLE_ALL_COMPLETE  = 1 << 1,   /* after a successful rerun */
  /* Right after a kill on a share with neither RENAME_NOREPLACE nor hard
   * links: an empty file where nothing was, the claim on a final name caught
   * before its text was written. Never allowed with ALL_COMPLETE. */
  CS_ORACLE_ALLOW_CLAIM   = 1 << 2,
  /* A destination without hard links: linked source files may be separate
   * copies. Otherwise, with ALL_COMPLETE, files that are hard links of each
   * other in the source must be one file in the copy too. */
  CS_ORACLE_NO_LINKS      = 1 << 3,
} CsOracleFlags;

typedef struct {
  guint n[CS_ORACLE_N_STATES];        /* files and symlinks by state; folders are not counted */
  guint n_new_complete;               /* COMPLETE now but not before the run */
} CsOracleCounts;

typedef struct _CsOracle CsOracle;

CsOracle     *cs_oracle_new            (void);
void          cs_oracle_free           (CsOracle    *oracle);

/* @source is copied to @copy (the path the source itself lands on, as with
 * cp -r: "dst/src" for "copy src dst" into an existing "dst"). */
void          cs_oracle_add_pair       (CsOracle    *oracle,
                                        const char  *source,
                                        const char  *copy);
/* A path the job must not touch at all; snapshotted now. */
void          cs_oracle_add_bystander  (CsOracle    *oracle,
                                        const char  *path);
/* A source path (relative to the pair's source) that is never copied — a fifo,
 * an unreadable file: its copy must stay ABSENT, even after a rerun. */
void          cs_oracle_never_copied   (CsOracle    *oracle,
                                        guint        pair,
                                        const char  *relative);
/* Owners are compared when the test runs as root, unless turned off here
 * (a copy made by an unprivileged user belongs to that user). */
void          cs_oracle_set_compare_owner (CsOracle *oracle,
                                           gboolean  compare);
/* The job moves (CS_OPERATION_MOVE): a source entry may be gone from the
 * source, but only if its copy is COMPLETE — every file in the source, the
 * copy or both, never neither — and the source gains nothing. */
void          cs_oracle_set_move       (CsOracle    *oracle,
                                        gboolean     move);
/* The test changed a source entry on purpose: take its new state as the truth. */
void          cs_oracle_update_source  (CsOracle    *oracle,
                                        guint        pair,
                                        const char  *relative);

/* Another program put something at @relative of the copy on purpose (a test
 * playing that program): take it as the previous state, so it must stay OLD. */
void          cs_oracle_update_before  (CsOracle    *oracle,
                                        guint        pair,
                                        const char  *relative);

/* Classifies everything; any violation is a GTest assertion failure naming the
 * path. Returns the counts, for comparing with what the tool reported. */
CsOracleCounts cs_oracle_check         (CsOracle    *oracle,
                                        CsOracleFlags flags);
/* The state of one path of pair @pair's copy; fails the test if it is none of
 * the four. */
CsOracleState cs_oracle_state          (CsOracle    *oracle,
                                        guint        pair,
                                        const char  *relative);

const char   *cs_oracle_state_name     (CsOracleState state);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CsOracle, cs_oracle_free)

G_END_DECLS
