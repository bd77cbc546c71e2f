/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* The CLI's tests, one file per area (test-cli-*.c), built into one
 * executable whose main () is in test-cli.c: running the CLI, the fixture,
 * the trees and the record's readers more than one file uses, and each
 * file's tests for main's list. */

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "cs-run.h"

#include "cs-test-tree.h"

/* ---- In test-cli.c, used by more than one test file ---- */

extern const char *cli;

extern char *shared_root;

extern char *shared_small;

/* Running the CLI */

typedef struct {
  int     status;     /* exit code, or 128 + the signal that ended it */
  char   *out;
  char   *err;
  double  seconds;
} CliResult;

void cli_result_clear (CliResult *r);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (CliResult, cli_result_clear)

int status_from_wait (int wait_status);

void log_output (const char *name,
                 const char *text);

void run_argv_at (CliResult   *r,
                  const char  *cwd,
                  char       **envp,
                  const char **argv);

void run_argv (CliResult   *r,
               const char **argv);

void
run_cli (CliResult  *r,
         const char *first,
         ...) G_GNUC_NULL_TERMINATED;

/* The CLI as a user runs it: from @cwd, with its own user folders under
 * @home (XDG_DATA_HOME = @home/data, XDG_CACHE_HOME = @home/cache). */
void
run_cli_at (CliResult  *r,
            const char *cwd,
            const char *home,
            const char *first,
            ...) G_GNUC_NULL_TERMINATED;

GPtrArray *history_records (const char *home);

/* Files and trees */

typedef struct {
  char *tmp;
  char *mount;        /* mounted by the test, unmounted in teardown */
} Fixture;

char *fixture_path (Fixture    *f,
                    const char *rel);

void make_dir (const char *path,
               guint       mode);

void write_file (const char *path,
                 const char *contents,
                 gssize      len,
                 guint       mode);

void write_random_file (const char *path,
                        gsize       size,
                        guint32     seed);

char *read_file (const char *path);

void set_mtime (const char *path,
                gint64      seconds,
                long        nanoseconds);

void make_symlink (const char *target,
                   const char *path);

void make_sample_tree (const char *root);

guint count_items (const char *dir);

const char *get_shared_small (void);

JsonNode *load_json (const char *path);

gint64 json_total (JsonNode   *root,
                   const char *klass,
                   const char *kind);

const char *json_string (JsonNode   *root,
                         const char *member);

gboolean json_has_error (JsonNode   *root,
                         const char *suffix,
                         const char *operation);

guint json_n_errors (JsonNode *root);

guint64 summary_value (const char *text,
                       const char *row,
                       guint       column);

guint count_lines (const char *text);

typedef enum {
  FATAL_MISSING_SOURCE,
  FATAL_SAME_PATH,
  FATAL_SAME_FOLDER,
  FATAL_HARD_LINK,
  FATAL_SYMLINK,
  FATAL_SYMLINK_FOLDER,
  FATAL_INSIDE_NEW,
  FATAL_INSIDE_EXISTING,
  FATAL_DUPLICATE_SOURCE,
} FatalCase;

/* data: the number of kills; with KILL_STAGED, the temporaries are written in
 * staging folders next to the copy, as on a network share. */
#define KILL_STAGED (1u << 16)

/* ---- The tests, by file: test-cli.c registers them ---- */

/* test-cli-exit.c */
void test_exit_ok (Fixture       *f,
                   gconstpointer  data);
void test_exit_usage (Fixture       *f,
                      gconstpointer  data);
void test_exit_refused (Fixture       *f,
                        gconstpointer  data);
void test_exit_item_failed (Fixture       *f,
                            gconstpointer  data);
void test_startup_libraries (Fixture       *f,
                             gconstpointer  data);

/* test-cli-record.c */
void test_json_file (Fixture       *f,
                     gconstpointer  data);
void test_json_stdout (Fixture       *f,
                       gconstpointer  data);
void test_csv (Fixture       *f,
               gconstpointer  data);
void test_report_trace (Fixture       *f,
                        gconstpointer  data);
void test_report_charts (Fixture       *f,
                         gconstpointer  data);
void test_record_absolute_paths (Fixture       *f,
                                 gconstpointer  data);
void test_log_and_limits (Fixture       *f,
                          gconstpointer  data);

/* test-cli-semantics.c */
void test_semantics_into_existing (Fixture       *f,
                                   gconstpointer  data);
void test_semantics_new_path (Fixture       *f,
                              gconstpointer  data);
void test_semantics_several_sources (Fixture       *f,
                                     gconstpointer  data);
void test_semantics_new_folder (Fixture       *f,
                                gconstpointer  data);
void test_system_tree (Fixture       *f,
                       gconstpointer  data);
void test_move (Fixture       *f,
                gconstpointer  data);
void test_mirror (Fixture       *f,
                  gconstpointer  data);
void test_demo_clean (Fixture       *f,
                      gconstpointer  data);

/* test-cli-kill.c */
void test_kill (Fixture       *f,
                gconstpointer  data);
void test_signal (Fixture       *f,
                  gconstpointer  data);
void test_full_new_files (Fixture       *f,
                          gconstpointer  data);
void test_full_replace (Fixture       *f,
                        gconstpointer  data);

/* test-cli-rerun.c */
void test_dry_run_new (Fixture       *f,
                       gconstpointer  data);
void test_dry_run_existing (Fixture       *f,
                            gconstpointer  data);
void test_rerun_check_rate (Fixture       *f,
                            gconstpointer  data);
void test_rerun_skip_all (Fixture       *f,
                          gconstpointer  data);
void test_rerun_source_newer (Fixture       *f,
                              gconstpointer  data);
void test_rerun_destination_newer (Fixture       *f,
                                   gconstpointer  data);
void test_rerun_always (Fixture       *f,
                        gconstpointer  data);
void test_rerun_never (Fixture       *f,
                       gconstpointer  data);
void test_rerun_checking_line (Fixture       *f,
                               gconstpointer  data);
