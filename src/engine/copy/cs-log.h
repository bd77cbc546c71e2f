/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * The per-file log (cs_job_set_log_fd): one line per item, fields separated
 * by a tab:
 *
 *   ACTION <tab> BYTES <tab> PATH [<tab> WHY]
 *
 * ACTION is copied, replaced, skipped, failed, moved, kept (a move left the
 * file in the source), deleted (by a mirror) or resumed; BYTES the item's
 * size; PATH the source path (for deleted: the destination path), with a
 * trailing "/" for a folder; WHY says why an item was skipped, kept or failed.
 *
 * Names are written exactly, whatever bytes they hold: a backslash is
 * written "\\", a tab "\t", a newline "\n", a carriage return "\r", and any
 * other byte below 0x20, the byte 0x7f and every byte that is not part of
 * valid UTF-8 as "\xHH" (two lowercase hex digits). Everything else is
 * written as it is, so a line is valid UTF-8 and the original bytes come
 * back by undoing exactly these escapes (cs_log_unescape).
 */

/* The escaped form of @bytes (filename encoding); never NULL. */
char     *cs_log_escape            (const char  *bytes);
/* The bytes @text stands for, or NULL (with @error) when it is not a
 * well-formed escaped field. */
char     *cs_log_unescape          (const char  *text,
                                    GError     **error);

G_END_DECLS
