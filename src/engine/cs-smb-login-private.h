/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "cs-gvfs-path-private.h"

G_BEGIN_DECLS

/* Logs in to @share's root as its user would, in this order: the password
 * given to the process (COPYSCOPE_SMB_PASSWORD, --auth-file), the one GVfs
 * keeps for the server in the secret service, then as a guest. TRUE when
 * one let the share be read, which every later connection to that server
 * uses; else FALSE, with @why saying what the server answered the last. */
gboolean _cs_smb_login_connect (const CsGvfsShare *share,
                                char             **why);

/* @location without a password an smb:// URL may carry, which is dropped:
 * for what was kept before cs_smb_location_take_password () kept nothing
 * else (a record from an older version). */
char    *_cs_smb_location_redact (const char *location);

G_END_DECLS
