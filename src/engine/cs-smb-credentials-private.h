/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "cs-gvfs-path-private.h"

G_BEGIN_DECLS

/* What the SMB backend's connections log in with, for a server: the one
 * found for it by _cs_smb_credentials_connect(), else the process's
 * (cs_smb_set_credentials). Writes only what it knows; FALSE where nothing
 * is known. Called by libsmbclient, with the buffers it gives. */
gboolean _cs_smb_credentials_fill (const char *server,
                                   char       *workgroup,
                                   int         workgroup_len,
                                   char       *user,
                                   int         user_len,
                                   char       *password,
                                   int         password_len);

/* The user every connection starts with where its URL names none (NULL:
 * the login name); free it. */
char    *_cs_smb_credentials_dup_default_user (void);

/* Logs in to @share's root as its user would, in this order: the password
 * given to the process (COPYSCOPE_SMB_PASSWORD, --auth-file), the one GVfs
 * keeps for the server in the secret service, then as a guest. TRUE when
 * one let the share be read, which every later connection to that server
 * uses; else FALSE, with @why saying what the server answered the last. */
gboolean _cs_smb_credentials_connect (const CsGvfsShare *share,
                                      char             **why);

G_END_DECLS
