/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <errno.h>

#include "cs-job-private.h"

G_BEGIN_DECLS

/* Our own error codes next to errno values; negative so they never collide. */
#define CS_ERR_SOURCE_CHANGED  (-1000)
#define CS_ERR_MISMATCH        (-1001)
#define CS_ERR_STOPPED         (-1002)
#define CS_ERR_APPEARED        (-1003)
#define CS_ERR_NO_UNNAMED      (-1004)  /* an unnamed temporary could not be linked: write a named one */
#define CS_ERR_NOT_HELD        (-1005)  /* the destination holds no such thing: said once, at the end */
#define CS_ERR_DEST_REMOVED    (-1006)  /* the destination folder was deleted meanwhile */
#define CS_ERR_CANNOT_MAKE     (-1007)  /* a device without root, or a node the destination cannot hold */
#define CS_ERR_NO_LINK         (-1008)  /* a later name cannot be linked here: copy it */
#define CS_ERR_NO_RESUME       (-1009)  /* no partial to write resumably: an ordinary temporary */

/* What came of one step of a copy: the error and the operation that met it. */
typedef struct {
  int         code;     /* errno or CS_ERR_*; 0 = success */
  const char *op;
} CsOutcome;

#define CS_OK ((CsOutcome) { 0, NULL })

static inline CsOutcome
_cs_fail (int         code,
          const char *op)
{
  /* When a FUSE server dies (sshfs killed, a share's daemon crashing), the
   * requests in flight get ECONNABORTED and every later one ENOTCONN: the same
   * vanished destination. A server spoken to directly (SMB) that dies refuses
   * the next connection or drops the one in use (a reset, or a broken pipe
   * to a request sent as it went): the same. No file the engine writes is a
   * pipe or a socket, so these come from a connection only. */
  if (code == ECONNABORTED || code == ECONNREFUSED || code == ENETRESET || code == ECONNRESET
      || code == EPIPE)
    code = ENOTCONN;
  return (CsOutcome) { code, op };
}

/* One attempt at @item, as _cs_copy_with_retries repeats it. */
typedef CsOutcome (*CsAttempt) (CsJob    *job,
                                CsWorker *worker,
                                CsItem   *item,
                                CsAction  action);

/* Whether @code stops the whole job. */
gboolean  _cs_copy_is_fatal        (int           code);
/* The first item to meet a fatal error names it and stops the job; later
 * ones become CS_ERR_STOPPED. */
void      _cs_copy_settle_fatal    (CsJob        *job,
                                    CsOutcome    *o);
/* @o, or CS_ERR_DEST_REMOVED when it failed because @dir's destination
 * folder was removed meanwhile. */
CsOutcome _cs_copy_check_removed   (CsJob        *job,
                                    CsDir        *dir,
                                    CsOutcome     o);
/* worker thread: runs @once until it succeeds, stops or fails for good, with
 * the job's waits between tries; the number of tries in @out_attempts. */
CsOutcome _cs_copy_with_retries    (CsJob        *job,
                                    CsAttempt     once,
                                    CsWorker     *worker,
                                    CsItem       *item,
                                    CsAction      action,
                                    guint        *out_attempts);
/* Whether a failed or stopped resumable copy keeps its partial. */
gboolean  _cs_copy_keeps_partial   (CsJob        *job,
                                    int           code);
/* @item failed with @o under @name: logged, reported, counted. */
void      _cs_copy_record_failure  (CsJob        *job,
                                    CsItem       *item,
                                    const char   *name,
                                    CsOutcome     o,
                                    guint         attempts,
                                    guint64       size);
/* @item is published: what the destination lost of it, logged, counted. */
void      _cs_copy_record_success  (CsJob        *job,
                                    CsWorker     *worker,
                                    CsItem       *item,
                                    CsAction      action,
                                    guint64       size);

G_END_DECLS
