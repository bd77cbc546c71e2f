/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* What the SMB backend's connections log in with, for a server: the login
 * set for it (_cs_smb_credentials_set_login), else the process's
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

/* What there is to try for @server, read at one moment: whether the
 * process was given a password (@process_password), and whether the login
 * kept for @server is one the user typed (@typed_login). */
void     _cs_smb_credentials_peek (const char *server,
                                   gboolean   *process_password,
                                   gboolean   *typed_login);

/* Every later connection to @server logs in as @user (NULL: the URL's, else
 * the default) of @domain (NULL: likewise) with @password, in place of the
 * login it had; @given when the user typed it (cs_smb_log_in_sync), which
 * is then tried first and kept while the server takes it. Copies all. */
void     _cs_smb_credentials_set_login    (const char *server,
                                           const char *domain,
                                           const char *user,
                                           const char *password,
                                           gboolean    given);
/* A number that changes whenever a login does (a password given or typed,
 * one forgotten): a share that refused may take the new one. */
guint    _cs_smb_credentials_generation (void);

/* Connections to @server log in as the process's again. */
void     _cs_smb_credentials_forget_login (const char *server);

G_END_DECLS
