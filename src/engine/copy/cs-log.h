/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "cs-text.h"

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
 * PATH and WHY are written exactly, whatever bytes they hold, as
 * cs_text_escape (CS_TEXT_ESCAPE_LINE) writes them (cs-text.h): a line is
 * valid UTF-8 and cs_text_unescape () gives the original bytes back.
 */

G_END_DECLS
