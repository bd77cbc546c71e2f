/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * What an errno means beyond the one file that got it: the destination is
 * gone or full (the whole copy stops), or the share keeps no owners or modes
 * at all (said once for the run, not per file).
 */

#include <glib.h>

G_BEGIN_DECLS

gboolean    _cs_is_fatal_errno     (int           error_code);
/* A folder of the copy was deleted while it was written into: the destination
 * is gone as surely as a share that vanished, and stops the job the same way. */
#define CS_DEST_REMOVED_MESSAGE "A destination folder was removed during the copy"

/* The run's message for a fatal @error_code. */
const char *_cs_fatal_message      (int           error_code);
/* What a share answers when it does not keep owners or modes at all (root
 * squash, SFTP as another user, SMB without Unix extensions), as opposed to
 * an error with this one file. */
gboolean    _cs_share_refuses      (int           error_code);

G_END_DECLS
