/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-job"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>

#include "cs-auto-memory-private.h"
#include "cs-conflict-private.h"
#include "cs-copy-private.h"
#include "cs-count-ahead-private.h"
#include "cs-deletions-private.h"
#include "cs-dest-fs-private.h"
#include "cs-mirror-private.h"
#include "cs-dir-private.h"
#include "cs-env-private.h"
#include "cs-errno-private.h"
#include "cs-io-private.h"
#include "cs-job-private.h"
#include "cs-links-private.h"
#include "cs-move-private.h"
#include "cs-names-private.h"
#include "cs-sampler-private.h"
#include "cs-scanner-private.h"
#include "cs-smb.h"
#include "cs-stage-private.h"


/* Totals and reports, from any thread: the atomic tallies and the run's
 * error list and per-file log. */

/* ---- Totals and reports (any thread) ------------------------------------- */

void
_cs_job_account (CsJob      *job,
                 CsDir      *dir,
                 const char *name,
                 const char *dst_name,
                 CsAction    action,
                 guint64     size)
{
  /* A move leaves what it does not take in the source. */
  gboolean move = job->setup.settings.operation == CS_OPERATION_MOVE;
  const char *skipped = move ? "kept" : "skipped";

  switch (action)
    {
    case CS_ACTION_SKIP_NEWER:
      _cs_job_report_destination (job, dir, dst_name, "skip",
                                  move ? "Left in the source: the file at the destination is newer"
                                       : "Skipped: the file at the destination is newer");
      _cs_job_log (job, dir, name, skipped, size, "the file at the destination is newer");
      _cs_job_add_total (job, CS_CLASS_SKIPPED, 1, size);
      _cs_job_add_skip (job, FALSE, size);
      break;
    case CS_ACTION_SKIP:
      _cs_job_log (job, dir, name, skipped, size, "identical");
      _cs_job_add_total (job, CS_CLASS_SKIPPED, 1, size);
      _cs_job_add_skip (job, TRUE, size);
      break;
    case CS_ACTION_SKIP_KEPT:
      if (move)
        _cs_job_note (job, dir, dst_name, "skip", 0,
                      "Left in the source: a different file of that name is at the destination");
      _cs_job_log (job, dir, name, skipped, size, "the file at the destination differs and was kept");
      _cs_job_add_total (job, CS_CLASS_SKIPPED, 1, size);
      _cs_job_add_skip (job, FALSE, size);
      break;
    case CS_ACTION_FAIL:
      _cs_job_add_total (job, CS_CLASS_FAILED, 1, size);
      break;
    case CS_ACTION_COPY:
    case CS_ACTION_REPLACE:
    case CS_ACTION_KEEP_BOTH:
    default:
      return;
    }
  if (move && !job->setup.settings.dry_run)
    atomic_fetch_add (&job->tally.kept_files, 1);
  atomic_fetch_add_explicit (&job->counters.files_done, 1, memory_order_relaxed);
  atomic_fetch_add_explicit (&job->counters.bytes_done, size, memory_order_relaxed);
}

void
_cs_job_count_decided (CsJob    *job,
                       CsAction  action)
{
  atomic_fetch_add_explicit (&job->tally.files_checked, 1, memory_order_relaxed);
  if (action <= CS_ACTION_KEEP_BOTH)
    atomic_fetch_add_explicit (&job->tally.files_to_copy, 1, memory_order_relaxed);
}

void
_cs_job_count_done (CsJob   *job,
                    CsClass  klass,
                    guint64  size)
{
  _cs_job_add_total (job, klass, 1, size);
  atomic_fetch_add_explicit (&job->counters.files_done, 1, memory_order_relaxed);
  atomic_fetch_add_explicit (&job->counters.bytes_done, size, memory_order_relaxed);
}

void
_cs_job_add_total (CsJob   *job,
                   CsClass  klass,
                   guint64  files,
                   guint64  bytes)
{
  atomic_fetch_add_explicit (&job->tally.totals[klass][CS_KIND_FILES], files, memory_order_relaxed);
  atomic_fetch_add_explicit (&job->tally.totals[klass][CS_KIND_BYTES], bytes, memory_order_relaxed);
}

void
_cs_job_add_skip (CsJob    *job,
                  gboolean  identical,
                  guint64   bytes)
{
  atomic_fetch_add_explicit (identical ? &job->tally.identical_files : &job->tally.chosen_files, 1, memory_order_relaxed);
  atomic_fetch_add_explicit (identical ? &job->tally.identical_bytes : &job->tally.chosen_bytes, bytes, memory_order_relaxed);
}

void
_cs_job_correct_found_bytes (CsJob   *job,
                             guint64  found,
                             guint64  actual)
{
  atomic_fetch_add_explicit (&job->tally.totals[CS_CLASS_TOTAL][CS_KIND_BYTES], actual, memory_order_relaxed);
  atomic_fetch_sub_explicit (&job->tally.totals[CS_CLASS_TOTAL][CS_KIND_BYTES], found, memory_order_relaxed);
  atomic_fetch_add_explicit (&job->tally.bytes_found, actual, memory_order_relaxed);
  atomic_fetch_sub_explicit (&job->tally.bytes_found, found, memory_order_relaxed);
}

void
_cs_job_add_dir_total (CsJob   *job,
                       CsClass  klass)
{
  atomic_fetch_add_explicit (&job->tally.totals[klass][CS_KIND_DIRS], 1, memory_order_relaxed);
}

void
_cs_job_report (CsJob      *job,
                CsDir      *dir,
                const char *name,
                const char *operation,
                int         error_code,
                const char *message,
                guint       attempts)
{
  g_autofree char *path = NULL;

  /* Once the destination is gone, every folder still open fails the same way
   * with the bare errno text; the report that carries the fatal message says
   * it all. */
  if (message == NULL && error_code > 0 && _cs_is_fatal_errno (error_code)
      && atomic_load (&job->gate.stop) == CS_STOP_FATAL)
    return;

  path = _cs_dir_dup_path (dir, name, FALSE);
  _cs_run_add_error (job->life.run, path, operation, error_code,
                     message != NULL ? message : g_strerror (error_code), attempts);

  _cs_job_mark_progress (job);
}

void
_cs_job_note (CsJob      *job,
              CsDir      *dir,
              const char *name,
              const char *operation,
              int         error_code,
              const char *message)
{
  g_autofree char *path = _cs_dir_dup_path (dir, name, FALSE);

  _cs_run_add_note (job->life.run, path, operation, error_code,
                    message != NULL ? message : g_strerror (error_code));
  _cs_job_mark_progress (job);
}

void
_cs_job_report_item (CsJob      *job,
                     CsDir      *dir,
                     const char *name,
                     const char *dst_name,
                     guint64     size,
                     gboolean    folder,
                     const char *operation,
                     int         error_code,
                     const char *message,
                     guint       attempts)
{
  _cs_job_report (job, dir, dst_name != NULL ? dst_name : name, operation, error_code, message, attempts);
  if (job->lists.log != NULL)
    {
      g_autofree char *path = _cs_dir_dup_path (dir, name, FALSE);
      g_autofree char *why = g_strdup_printf ("%s: %s", operation,
                                              message != NULL ? message : g_strerror (error_code));

      _cs_log_item (job->lists.log, "failed", size, path, folder, why);
    }
}

void
_cs_job_log (CsJob      *job,
             CsDir      *dir,
             const char *name,
             const char *action,
             guint64     bytes,
             const char *why)
{
  g_autofree char *path = NULL;

  if (job->lists.log == NULL)
    return;
  path = _cs_dir_dup_path (dir, name, FALSE);
  _cs_log_item (job->lists.log, action, bytes, path, FALSE, why);
}

void
_cs_job_log_path (CsJob      *job,
                  const char *path,
                  gboolean    folder,
                  const char *action,
                  guint64     bytes,
                  const char *why)
{
  _cs_log_item (job->lists.log, action, bytes, path, folder, why);
}

void
_cs_job_report_destination (CsJob      *job,
                            CsDir      *dir,
                            const char *name,
                            const char *operation,
                            const char *message)
{
  g_autofree char *path = _cs_dir_dup_path (dir, name, TRUE);

  _cs_run_add_note (job->life.run, path, operation, 0, message);
  _cs_job_mark_progress (job);
}

