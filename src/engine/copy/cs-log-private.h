/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * Writing the per-file log (see cs-log.h for its format) from any worker.
 * Lines are gathered under a lock and written in blocks, at most a fifth of a
 * second after they were made, so a log on a terminal follows the copy and a
 * copy of many small files does not pay a write per file.
 */

#include <glib.h>

G_BEGIN_DECLS

typedef struct _CsLog CsLog;

/* @fd is borrowed: it stays open at least until _cs_log_free. */
CsLog    *_cs_log_new              (int          fd);
/* any thread. @path is in the filename encoding; @why may be NULL. */
void      _cs_log_item             (CsLog       *log,
                                    const char  *action,
                                    guint64      bytes,
                                    const char  *path,
                                    gboolean     folder,
                                    const char  *why);
/* Writes what is gathered; FALSE with errno set when the log cannot be written. */
gboolean  _cs_log_flush            (CsLog       *log);
void      _cs_log_free             (CsLog       *log);

G_END_DECLS
