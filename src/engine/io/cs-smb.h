/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* What smb:// locations log in with, for the whole process: @user where the
 * URL names none (NULL: the login name), @password for every share. Kept in
 * memory only; never logged, never in a run record. */
void cs_smb_set_credentials (const char *user,
                             const char *password);

/* @location as it may be shown and kept: an smb:// URL without the
 * password it may carry ("smb://user:secret@nas/share" gives
 * "smb://user@nas/share"), anything else as it is. The password is not
 * lost: every later connection to that server, in this process, logs in
 * with it, as with one typed in the window's login dialog (and where the
 * server refuses it, as a job would without it). Records, logs, messages
 * and settings only ever see what this returns. @taken (may be NULL):
 * whether there was a password to take. */
char *cs_smb_location_take_password (const char *location,
                                     gboolean   *taken);

/* An SMB share's folder, as an smb:// URL or the path GVfs's FUSE mount
 * gives it names it, every part unescaped. */
typedef struct {
  char  *server;
  guint  port;     /* 0: the default */
  char  *share;
  char  *path;     /* below the share, "sub/folder"; "" at its root */
  char  *user;     /* NULL: the location names none */
  char  *domain;   /* NULL: likewise */
  gboolean url;    /* an smb:// URL, not a path on GVfs's mount */
} CsSmbLocation;

CsSmbLocation *cs_smb_location_parse (const char    *location);
void           cs_smb_location_free  (CsSmbLocation *location);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CsSmbLocation, cs_smb_location_free)

/*
 * Logs in to the share of @location (an smb:// URL, or a path on GVfs's
 * mount of an SMB share) before a job copies there, so a job is not the
 * first to learn that it cannot. With @password NULL, as a job would: the
 * password given to the process, the one GVfs keeps for the server in the
 * secret service, then as a guest. With @password, as @user (NULL: the
 * URL's, else the login name) of @domain (NULL: the URL's), which every
 * later connection to that server then uses, in this process only.
 * G_IO_ERROR_PERMISSION_DENIED when the server refused every login tried
 * (ask the user); G_IO_ERROR_NOT_FOUND when it has no such share; other
 * G_IO_ERRORs when it cannot be reached. Blocks: a network round trip or
 * several, and the secret service's; the async form runs in a thread.
 */
gboolean cs_smb_log_in_sync   (const char           *location,
                               const char           *domain,
                               const char           *user,
                               const char           *password,
                               GCancellable         *cancellable,
                               GError              **error);
void     cs_smb_log_in_async  (const char           *location,
                               const char           *domain,
                               const char           *user,
                               const char           *password,
                               GCancellable         *cancellable,
                               GAsyncReadyCallback   callback,
                               gpointer              user_data);
gboolean cs_smb_log_in_finish (GAsyncResult         *result,
                               GError              **error);

/*
 * Keeps @password for @user (of @domain, may be NULL) on the server of
 * @location in the secret service, as GVfs keeps one (libsecret's
 * network-password schema, "org.gnome.keyring.NetworkPassword", attributes
 * user, domain, server, protocol "smb" and port), so GNOME Files and
 * Copyscope find it for each other. Blocks on the secret service.
 */
gboolean cs_smb_remember_password_sync   (const char           *location,
                                          const char           *domain,
                                          const char           *user,
                                          const char           *password,
                                          GCancellable         *cancellable,
                                          GError              **error);
void     cs_smb_remember_password_async  (const char           *location,
                                          const char           *domain,
                                          const char           *user,
                                          const char           *password,
                                          GCancellable         *cancellable,
                                          GAsyncReadyCallback   callback,
                                          gpointer              user_data);
gboolean cs_smb_remember_password_finish (GAsyncResult         *result,
                                          GError              **error);

G_END_DECLS
