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

G_END_DECLS
