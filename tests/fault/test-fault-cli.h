/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* The CLI binary under faults, kills and bad input, one file per kind
 * (test-fault-cli-*.c), built into one executable whose main () is in
 * test-fault-cli.c: the fixture, running the CLI through the shim and
 * reading its record, and each file's tests for main's list. */

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "cs-kill-plan.h"
#include "cs-oracle.h"
#include "cs-test-tree.h"

/* ---- In test-fault-cli.c, used by more than one test file ---- */

extern const char *cli;       /* $CS_CLI */

extern const char *shim;      /* $CS_PRELOAD */

#define RUN_TIMEOUT "60"

typedef struct {
  char *root;
  char *src;
  char *out;
  char *copy;
  char *json;
  char *mnt;
  GPtrArray *mounts;    /* further mount points, unmounted in teardown */
  CsOracle *oracle;
} Fixture;

typedef struct {
  int       status;
  char     *out;
  char     *err;
  double    seconds;
  JsonNode *report;
} Result;

void result_clear (Result *r);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Result, result_clear)

void write_pattern (const char *path,
                    gsize       size,
                    guint       seed,
                    mode_t      mode);

char *path_in (Fixture    *f,
               const char *rel);

void make_small_tree (Fixture *f);

CsOracle *watch (Fixture *f);

/* ---- Running the CLI ---------------------------------------------------------- */

typedef struct {
  const char * const *env;      /* extra NAME=VALUE pairs */
  gboolean            preload;
  gboolean            as_nobody;
  rlim_t              nofile;   /* 0: unchanged */
} How;

extern rlim_t child_nofile;

char *asan_options_for_preload (void);

void child_setup (gpointer data);

/* Runs "copyscope-cli copy --no-history --json FILE ARGS…"; the record is loaded
 * into r->report when the CLI wrote one. */
void
run_copy (Fixture    *f,
          const How  *how,
          Result     *r,
          const char *first,
          ...) G_GNUC_NULL_TERMINATED;

gint64 report_total (Result     *r,
                     const char *klass,
                     const char *kind);

JsonObject *report_error (Result     *r,
                          const char *suffix);

guint report_n_errors (Result *r);

void rerun_converges (Fixture *f);

gboolean need_shim (void);

/* ---- Faults through the shim ------------------------------------------------------ */

typedef struct {
  const char *op;
  const char *target;       /* appended to the fixture root as the path pattern */
  const char *error;        /* NULL: short counts */
  gboolean    replace;      /* an older b.bin exists at the destination */
  gboolean    durable;
  int         exit_status;
  CsOracleState b_state;    /* b.bin after the run */
  int         failed;       /* files the record lists as failed */
} ShimCase;

gboolean can_drop_privileges (uid_t *uid,
                              gid_t *gid);

/* Starts "copyscope-cli copy --no-history --no-flush ARGS…" in a session of
 * its own, under the shim with @env when given; stdout and stderr go to
 * @out and @err. */
GSubprocess *
launch_copy (const char * const *env,
             const char         *out,
             const char         *err,
             GPid               *out_pid,
             const char         *first,
             ...) G_GNUC_NULL_TERMINATED;

void on_waited (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data);

gboolean on_wait_timeout (gpointer user_data);

int wait_bounded (GSubprocess *process,
                  GPid         pid,
                  double       seconds);

char *read_text (const char *path);

guint text_lines (const char *text);

void make_wide_tree (Fixture *f);

/* ---- The tests, by file: test-fault-cli.c registers them ---- */

/* test-fault-cli-shim.c */
void test_shim (Fixture       *f,
                gconstpointer  data);
void test_kill (Fixture       *f,
                gconstpointer  data);

/* test-fault-cli-bad.c */
void test_refusals (Fixture       *f,
                    gconstpointer  data);
void test_unreadable (Fixture       *f,
                      gconstpointer  data);
void test_symlinks (Fixture       *f,
                    gconstpointer  data);
void test_special_files (Fixture       *f,
                         gconstpointer  data);
void test_device_as_nobody (Fixture       *f,
                            gconstpointer  data);
void test_names (Fixture       *f,
                 gconstpointer  data);
void test_long_path (Fixture       *f,
                     gconstpointer  data);
void test_deep_tree (Fixture       *f,
                     gconstpointer  data);
void test_many_in_one_folder (Fixture       *f,
                              gconstpointer  data);
void test_hard_links_and_empty (Fixture       *f,
                                gconstpointer  data);
void test_sparse (Fixture       *f,
                  gconstpointer  data);
void test_planted_symlinks (Fixture       *f,
                            gconstpointer  data);
void test_xattrs (Fixture       *f,
                  gconstpointer  data);

/* test-fault-cli-output.c */
void test_quiet_lists_failures (Fixture       *f,
                                gconstpointer  data);
void test_failed_names_exact (Fixture       *f,
                              gconstpointer  data);
void test_pseudo_files (Fixture       *f,
                        gconstpointer  data);

/* test-fault-cli-stop.c */
void test_destination_folder_removed (Fixture       *f,
                                      gconstpointer  data);
void test_sighup (Fixture       *f,
                  gconstpointer  data);
void test_counts_after_fatal_stop (Fixture       *f,
                                   gconstpointer  data);
void test_counts_failed_folder (Fixture       *f,
                                gconstpointer  data);
void test_counts_skip_names_destination (Fixture       *f,
                                         gconstpointer  data);
void test_counts_edquot_wording (Fixture       *f,
                                 gconstpointer  data);
void test_counts_one_stdout (Fixture       *f,
                             gconstpointer  data);

/* test-fault-cli-load.c */
void test_two_identical_runs (Fixture       *f,
                              gconstpointer  data);
void test_few_descriptors (Fixture       *f,
                           gconstpointer  data);
