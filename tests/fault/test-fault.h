/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Engine-level fault injection, one file per kind of fault (test-fault-*.c),
 * built into one executable whose main () is in test-fault.c: the fixture,
 * the running of a job and the other helpers more than one file uses, and
 * each file's tests for main's list. */

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "copyscope-engine.h"
#include "cs-fault-table.h"
#include "cs-oracle.h"
#include "cs-test-tree.h"

/* ---- In test-fault.c, used by more than one test file ---- */

typedef struct {
  char     *root;
  char     *src;          /* root/src */
  char     *out;          /* root/out, the destination folder */
  char     *copy;         /* root/out/src */
  char     *mnt;          /* mounted by the test, unmounted in teardown */
  CsOracle *oracle;
} Fixture;

void write_pattern (const char *path,
                    gsize       size,
                    guint       seed,
                    mode_t      mode);

char *fixture_path (Fixture    *f,
                    const char *rel);

CsOracle *watch (Fixture *f);

void make_old_copy (Fixture *f);

/* ---- Running ---------------------------------------------------------------- */

typedef struct {
  gboolean  ok;
  GError   *error;
  CsTotals  totals;
  GPtrArray *errors;
  guint     n_failures;   /* cs_run_get_n_errors () */
  guint     n_notes;
  double    seconds;
} Outcome;

void outcome_clear (Outcome *o);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Outcome, outcome_clear)

typedef struct {
  guint       threads;
  gboolean    durable;
  gboolean    verify;
  CsOverwrite overwrite;
  guint       retries;
} Options;

#define DEFAULTS ((Options) { 2, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 })

extern CsStaging staging;

extern CsChunking chunking;

void run_job (const char    *src,
              const char    *dst,
              Options        opt,
              Outcome       *o);

const CsRunError *find_error (Outcome    *o,
                              const char *name);

void run (Fixture *f,
          Options  opt,
          Outcome *o);

void rerun_converges (Fixture *f);

void force_read_write (void);

typedef struct {
  Fixture *f;
  char    *path;
} Plant;

void plant_file (const char *name,
                 gpointer    data);

/* How the copy of b.bin is published while another program plants its own. */
enum {
  PUBLISH_UNNAMED,        /* an unnamed temporary, linked in (the default) */
  PUBLISH_NAMED,          /* no O_TMPFILE: a named one, RENAME_NOREPLACE */
  PUBLISH_LINK_FALLBACK,  /* no O_TMPFILE, no RENAME_NOREPLACE: a hard link */
};

/* A test run inside another that sets how the job writes. */
typedef struct {
  GTestFixtureFunc func;
  gconstpointer    data;
} WrappedTest;

/* test_modes's variants (test-fault-metadata.c). */
#define MODES_REFUSED 1
#define MODES_NAMED   2   /* no O_TMPFILE */

enum { GROW, SHRINK, REWRITE, REWRITE_KEEP_TIME };

/* ---- The tests, by file: test-fault.c registers them ---- */

/* test-fault-io.c */
void test_read_transient (Fixture       *f,
                          gconstpointer  data);
void test_read_sticky (Fixture       *f,
                       gconstpointer  data);
void test_output_error (Fixture       *f,
                        gconstpointer  data);
void test_short_and_eintr (Fixture       *f,
                           gconstpointer  data);
void test_copy_range_fallback (Fixture       *f,
                               gconstpointer  data);
void test_fast_path_eio (Fixture       *f,
                         gconstpointer  data);
void test_open_create_errors (Fixture       *f,
                              gconstpointer  data);

/* test-fault-destination.c */
void test_enospc_replace (Fixture       *f,
                          gconstpointer  data);
void test_destination_vanishes (Fixture       *f,
                                gconstpointer  data);
void test_destination_folder_removed (Fixture       *f,
                                      gconstpointer  data);
void test_ext4_full (Fixture       *f,
                     gconstpointer  data);
void test_inodes_exhausted (Fixture       *f,
                            gconstpointer  data);

/* test-fault-publish.c */
void test_noreplace_einval (Fixture       *f,
                            gconstpointer  data);
void test_created_meanwhile (Fixture       *f,
                             gconstpointer  data);
void test_unnamed_link_refused (Fixture       *f,
                                gconstpointer  data);
void test_created_after_check (Fixture       *f,
                               gconstpointer  data);
void test_killed_while_claimed (Fixture       *f,
                                gconstpointer  data);
void test_gone_while_claimed (Fixture       *f,
                              gconstpointer  data);
void test_killed_while_claiming (Fixture       *f,
                                 gconstpointer  data);
void test_claimed_renamed_once (Fixture       *f,
                                gconstpointer  data);
void test_empty_file_not_a_claim (Fixture       *f,
                                  gconstpointer  data);
void test_claim_lookalike_kept (Fixture       *f,
                                gconstpointer  data);

/* test-fault-staged.c */
void test_staged (Fixture       *f,
                  gconstpointer  data);
void test_staged_created_meanwhile (Fixture       *f,
                                    gconstpointer  data);
void test_staged_link_refused (Fixture       *f,
                               gconstpointer  data);
void test_staged_exdev (Fixture       *f,
                        gconstpointer  data);

/* test-fault-recovery.c */
void test_single_file_leftover (Fixture       *f,
                                gconstpointer  data);
void test_leftover_symlink_temp (Fixture       *f,
                                 gconstpointer  data);
void test_live_run_temporary_kept (Fixture       *f,
                                   gconstpointer  data);
void test_staged_leftovers (Fixture       *f,
                            gconstpointer  data);

/* test-fault-metadata.c */
void test_modes (Fixture       *f,
                 gconstpointer  data);
void test_times_fresh_trusted (Fixture       *f,
                               gconstpointer  data);
void test_times_stamped_at_close (Fixture       *f,
                                  gconstpointer  data);
void test_older_replacement (Fixture       *f,
                             gconstpointer  data);
void test_metadata_refused (Fixture       *f,
                            gconstpointer  data);
void test_metadata_refused_one (Fixture       *f,
                                gconstpointer  data);

/* test-fault-source.c */
void test_source_changes (Fixture       *f,
                          gconstpointer  data);

/* test-fault-big.c */
void test_chunked (Fixture       *f,
                   gconstpointer  data);
void test_big_file_read_error (Fixture       *f,
                               gconstpointer  data);
void test_big_file_full (Fixture       *f,
                         gconstpointer  data);
void test_big_file_opens (Fixture       *f,
                          gconstpointer  data);

/* test-fault-rerun.c */
void test_rerun_decided_in_pool (Fixture       *f,
                                 gconstpointer  data);
void test_rerun_changed_after_listing (Fixture       *f,
                                       gconstpointer  data);
void test_rerun_appeared_before_publish (Fixture       *f,
                                         gconstpointer  data);
void test_rerun_placeholder_replaced (Fixture       *f,
                                      gconstpointer  data);

/* test-fault-load.c */
void test_threads_agree (Fixture       *f,
                         gconstpointer  data);
void test_queue_bounded_in_files (Fixture       *f,
                                  gconstpointer  data);
void test_links_kept (Fixture       *f,
                      gconstpointer  data);
void test_links_refused (Fixture       *f,
                         gconstpointer  data);
void test_links_cancelled (Fixture       *f,
                           gconstpointer  data);
