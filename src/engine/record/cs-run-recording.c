/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-run"

/*
 * What the job records (cs-run-private.h), from any thread: every call takes
 * the run's lock, and strings are copied and made valid UTF-8 on the way in.
 * The samples go to the store (cs-run-samples.c).
 */

#include "config.h"

#include <string.h>

#include "cs-run.h"
#include "cs-run-internal.h"
#include "cs-run-private.h"
#include "cs-text.h"
#include "cs-tsan-private.h"

void
_cs_run_set_kind (CsRun      *run,
                  const char *kind)
{
  g_return_if_fail (run != NULL);
  g_return_if_fail (kind != NULL);

  g_atomic_pointer_set (&run->kind, g_intern_string (kind));
}

void
_cs_run_set_sources (CsRun              *run,
                     const char * const *sources)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  g_strfreev (run->sources);
  run->sources = sources != NULL ? g_strdupv ((char **) sources) : g_new0 (char *, 1);
}

void
_cs_run_set_destination (CsRun      *run,
                         const char *destination)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  g_free (run->destination);
  run->destination = g_strdup (destination);
}

void
_cs_run_set_settings (CsRun               *run,
                      const CsRunSettings *settings)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);
  g_return_if_fail (settings != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  _cs_run_settings_clear (&run->settings);
  _cs_run_settings_copy (&run->settings, settings);
}

void
_cs_run_set_environment (CsRun                  *run,
                         const CsRunEnvironment *environment)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);
  g_return_if_fail (environment != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  _cs_run_environment_clear (&run->environment);
  _cs_run_environment_copy (&run->environment, environment);
}

void
_cs_run_set_started (CsRun  *run,
                     gint64  unix_usec)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  run->started = unix_usec;
}

void
_cs_run_set_duration (CsRun  *run,
                      double  seconds)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  run->duration = seconds;
}

void
_cs_run_set_held (CsRun  *run,
                  double  seconds)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  run->held = MAX (seconds, 0);
}


void
_cs_run_add_thread_change (CsRun      *run,
                           double      t,
                           guint       from,
                           guint       to,
                           const char *reason)
{
  g_autoptr(CsMutexLocker) locker = NULL;
  CsThreadChange change = { t, from, to, NULL };

  g_return_if_fail (run != NULL);

  change.reason = reason != NULL ? g_utf8_make_valid (reason, -1) : NULL;
  locker = _cs_mutex_locker_new (&run->mutex);
  g_array_append_val (run->timeline, change);
}

void
_cs_run_add_event (CsRun            *run,
                   const CsRunEvent *event)
{
  g_autoptr(CsMutexLocker) locker = NULL;
  CsRunEvent copy;

  g_return_if_fail (run != NULL);
  g_return_if_fail (event != NULL && event->kind != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  if (run->events->len >= CS_RUN_MAX_EVENTS)
    {
      run->events_omitted++;
      return;
    }

  copy = *event;
  copy.kind = g_strdup (event->kind);
  copy.path = event->path != NULL ? g_filename_display_name (event->path) : NULL;
  g_array_append_val (run->events, copy);
}

static void
add_entry (CsRun      *run,
           const char *path,
           const char *operation,
           int         error_code,
           const char *message,
           guint       attempts,
           gboolean    note)
{
  g_autoptr(CsMutexLocker) locker = NULL;
  CsRunError *error;

  locker = _cs_mutex_locker_new (&run->mutex);
  if (run->errors->len >= CS_RUN_MAX_ERRORS)
    {
      run->errors_omitted++;
      return;
    }

  error = g_new0 (CsRunError, 1);
  if (path != NULL)
    {
      /* Bytes that are not UTF-8 as "\xHH" rather than one U+FFFD for
       * all; the exact bytes go beside them, in path_raw. */
      error->path = cs_text_escape (path, -1, CS_TEXT_ESCAPE_INVALID);
      if (!g_utf8_validate (path, -1, NULL))
        error->path_raw = g_base64_encode ((const guchar *) path, strlen (path));
    }
  error->operation = operation != NULL ? g_utf8_make_valid (operation, -1) : NULL;
  error->error_code = error_code;
  error->message = message != NULL ? g_utf8_make_valid (message, -1) : NULL;
  error->attempts = attempts;
  error->note = note;
  g_ptr_array_add (run->errors, error);
  if (note)
    __atomic_store_n (&run->n_notes, run->n_notes + 1, __ATOMIC_RELAXED);
  else
    __atomic_store_n (&run->n_errors, run->n_errors + 1, __ATOMIC_RELAXED);
}

void
_cs_run_add_error (CsRun      *run,
                   const char *path,
                   const char *operation,
                   int         error_code,
                   const char *message,
                   guint       attempts)
{
  g_return_if_fail (run != NULL);

  add_entry (run, path, operation, error_code, message, attempts, FALSE);
}

void
_cs_run_add_note (CsRun      *run,
                  const char *path,
                  const char *operation,
                  int         error_code,
                  const char *message)
{
  g_return_if_fail (run != NULL);

  add_entry (run, path, operation, error_code, message, 0, TRUE);
}

void
_cs_run_set_totals (CsRun          *run,
                    const CsTotals *totals)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);
  g_return_if_fail (totals != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  run->totals = *totals;
}

void
_cs_run_set_removals (CsRun            *run,
                      const CsRemovals *removals)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);
  g_return_if_fail (removals != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  run->removals = *removals;
}

void
_cs_run_set_skips (CsRun         *run,
                   const CsSkips *skips)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);
  g_return_if_fail (skips != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  run->skips = *skips;
  run->skips_known = TRUE;
}

void
_cs_run_set_manifest (CsRun               *run,
                      const CsRunManifest *manifest)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);
  g_return_if_fail (manifest != NULL && manifest->path != NULL && manifest->algo != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  g_free ((char *) run->manifest.path);
  g_free ((char *) run->manifest.algo);
  run->manifest = *manifest;
  run->manifest.path = g_strdup (manifest->path);
  run->manifest.algo = g_strdup (manifest->algo);
}

void
_cs_run_set_outcome (CsRun      *run,
                     const char *outcome,
                     const char *fatal_error)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  g_return_if_fail (run != NULL);
  g_return_if_fail (outcome != NULL);

  locker = _cs_mutex_locker_new (&run->mutex);
  g_atomic_pointer_set (&run->outcome, g_intern_string (outcome));
  /* Set once when the job ends; readers of the old pointer are not expected. */
  g_free (run->fatal_error);
  run->fatal_error = fatal_error != NULL ? g_utf8_make_valid (fatal_error, -1) : NULL;
}
