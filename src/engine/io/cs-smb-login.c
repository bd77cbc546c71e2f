/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-smb-login"

#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <libsecret/secret.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gi18n-lib.h>

#include "cs-smb.h"
#include "cs-smb-login-private.h"
#include "cs-io-private.h"
#include "cs-smb-credentials-private.h"
#include "cs-smb-url-private.h"

/*
 * Logging in to a share before a job copies there, or as a job would: a
 * login is tried by reading the share's root through the I/O table, and the
 * one that works is set in the credential store (cs-smb-credentials.c),
 * which every later connection to that server then uses. A share reached
 * through its GVfs path may log in as GVfs did, with the password GVfs keeps
 * in the secret service: the network-password schema of libgnome-keyring
 * ("org.gnome.keyring.NetworkPassword"), attributes user, server, domain,
 * protocol "smb" and port (where it is not the default), as gvfsd-smb
 * stores and looks them up.
 */

/* ---- The secret service ------------------------------------------------- */

/* libsecret is opened on the first share a job or the window logs in to,
 * not linked: a local copy never pays for it (nor for the D-Bus round
 * trips). */
static struct {
  __typeof__ (secret_get_schema) *get_schema;
  __typeof__ (secret_service_search_sync) *search_sync;
  __typeof__ (secret_item_get_attributes) *item_get_attributes;
  __typeof__ (secret_item_get_secret) *item_get_secret;
  __typeof__ (secret_item_get_modified) *item_get_modified;
  __typeof__ (secret_value_get_text) *value_get_text;
  __typeof__ (secret_value_unref) *value_unref;
  __typeof__ (secret_password_storev_sync) *password_storev_sync;
} secret;

static gpointer
load_libsecret (gpointer data)
{
  void *library = dlopen ("libsecret-1.so.0", RTLD_NOW | RTLD_LOCAL);

  if (library == NULL
      || (secret.get_schema = dlsym (library, "secret_get_schema")) == NULL
      || (secret.search_sync = dlsym (library, "secret_service_search_sync")) == NULL
      || (secret.item_get_attributes = dlsym (library, "secret_item_get_attributes")) == NULL
      || (secret.item_get_secret = dlsym (library, "secret_item_get_secret")) == NULL
      || (secret.item_get_modified = dlsym (library, "secret_item_get_modified")) == NULL
      || (secret.value_get_text = dlsym (library, "secret_value_get_text")) == NULL
      || (secret.value_unref = dlsym (library, "secret_value_unref")) == NULL
      || (secret.password_storev_sync = dlsym (library, "secret_password_storev_sync")) == NULL)
    {
      g_debug ("no passwords from the secret service: %s", library == NULL ? dlerror () : "a function is missing");
      return GINT_TO_POINTER (FALSE);
    }
  return GINT_TO_POINTER (TRUE);
}

/* The least specific item first, then the newest: gvfsd-smb's order, so the
 * password found is the one GVfs would use. */
static int
by_specificity (gconstpointer a,
                gconstpointer b)
{
  g_autoptr(GHashTable) attributes_a = secret.item_get_attributes ((SecretItem *) a);
  g_autoptr(GHashTable) attributes_b = secret.item_get_attributes ((SecretItem *) b);
  int by_size = (int) g_hash_table_size (attributes_a) - (int) g_hash_table_size (attributes_b);
  guint64 modified_a, modified_b;

  if (by_size != 0)
    return by_size;
  modified_a = secret.item_get_modified ((SecretItem *) a);
  modified_b = secret.item_get_modified ((SecretItem *) b);
  return modified_a < modified_b ? 1 : modified_a > modified_b ? -1 : 0;
}

/* Whether the secret service can be asked at all. The secret service is on
 * the session bus, which a GVfs mount needs too; without one GLib would
 * try to start a bus of its own. */
static gboolean
secret_service_reachable (void)
{
  static GOnce loaded = G_ONCE_INIT;

  if (g_getenv ("DBUS_SESSION_BUS_ADDRESS") == NULL)
    {
      g_autofree char *bus = g_build_filename (g_get_user_runtime_dir (), "bus", NULL);

      if (!g_file_test (bus, G_FILE_TEST_EXISTS))
        return FALSE;
    }
  return GPOINTER_TO_INT (g_once (&loaded, load_libsecret, NULL));
}

/* Sets the login GVfs keeps for @share as its server's; FALSE where there
 * is none. */
static gboolean
use_keyring_login (const CsGvfsShare *share)
{
  g_autoptr(GHashTable) attributes = NULL;
  g_autoptr(GHashTable) found = NULL;
  g_autoptr(GError) error = NULL;
  GList *items;
  SecretValue *value;
  gboolean found_one = FALSE;

  if (!secret_service_reachable ())
    return FALSE;

  attributes = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  if (share->user != NULL)
    g_hash_table_insert (attributes, "user", g_strdup (share->user));
  g_hash_table_insert (attributes, "server", g_strdup (share->server));
  if (share->domain != NULL)
    g_hash_table_insert (attributes, "domain", g_strdup (share->domain));
  g_hash_table_insert (attributes, "protocol", g_strdup ("smb"));
  if (share->port != 0)
    g_hash_table_insert (attributes, "port", g_strdup_printf ("%u", share->port));

  items = secret.search_sync (NULL, secret.get_schema (SECRET_SCHEMA_TYPE_COMPAT_NETWORK), attributes,
                              SECRET_SEARCH_ALL | SECRET_SEARCH_UNLOCK | SECRET_SEARCH_LOAD_SECRETS,
                              NULL, &error);
  if (error != NULL)
    {
      g_debug ("no password from the secret service: %s", error->message);
      return FALSE;
    }
  if (items == NULL)
    return FALSE;
  items = g_list_sort (items, by_specificity);
  value = secret.item_get_secret (items->data);
  found = secret.item_get_attributes (items->data);
  if (value != NULL && secret.value_get_text (value) != NULL)
    {
      _cs_smb_credentials_set_login (share->server, g_hash_table_lookup (found, "domain"),
                                     g_hash_table_lookup (found, "user"),
                                     secret.value_get_text (value), FALSE);
      found_one = TRUE;
    }
  if (value != NULL)
    secret.value_unref (value);
  g_list_free_full (items, g_object_unref);
  return found_one;
}

/* Stores a password as gvfsd-smb does (g_vfs_keyring_save_password):
 * the attributes it looks up, labelled "user@server[:port]", in the
 * default collection, the one kept across sessions. */
static gboolean
keyring_store (const CsGvfsShare  *share,
               const char         *domain,
               const char         *user,
               const char         *password,
               GCancellable       *cancellable,
               GError            **error)
{
  g_autoptr(GHashTable) attributes = NULL;
  g_autoptr(GString) label = g_string_new (NULL);

  if (!secret_service_reachable ())
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           _("No keyring can be reached in this session"));
      return FALSE;
    }

  attributes = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_hash_table_insert (attributes, "user", g_strdup (user));
  g_hash_table_insert (attributes, "server", g_strdup (share->server));
  if (domain != NULL && domain[0] != '\0')
    g_hash_table_insert (attributes, "domain", g_strdup (domain));
  g_hash_table_insert (attributes, "protocol", g_strdup ("smb"));
  if (share->port != 0)
    g_hash_table_insert (attributes, "port", g_strdup_printf ("%u", share->port));

  g_string_append_uri_escaped (label, user, G_URI_RESERVED_CHARS_ALLOWED_IN_USERINFO, TRUE);
  g_string_append_printf (label, "@%s", share->server);
  if (share->port != 0)
    g_string_append_printf (label, ":%u", share->port);

  return secret.password_storev_sync (secret.get_schema (SECRET_SCHEMA_TYPE_COMPAT_NETWORK), attributes,
                                      SECRET_COLLECTION_DEFAULT, label->str, password, cancellable,
                                      error);
}

/* ---- Logging in --------------------------------------------------------- */

/* What libsmbclient makes of a server's "logon failure" and "access denied". */
static gboolean
is_refusal (int error_code)
{
  return error_code == EACCES || error_code == EPERM;
}

/* libsmbclient 4.17 answers a login with an empty password, anonymous
 * logins being off (smbc_setOptionNoAutoAnonymousLogin), with EINVAL
 * before it asks the server: for a user, that is a refusal. */
static int
empty_password_error (int error_code)
{
  return error_code == EINVAL ? EACCES : error_code;
}

/* @error_code keeps the first refusal: the one for the login the user gave,
 * or GVfs's, says more than the guest's that follows. */
static gboolean
share_answers (const CsGvfsShare *share,
               int               *error_code)
{
  struct stat st;

  if (_cs_io_stat_location (share->root_url, TRUE, &st) == 0 && S_ISDIR (st.st_mode))
    return TRUE;
  if (*error_code == 0)
    *error_code = errno != 0 ? errno : ENOTDIR;
  return FALSE;
}

/* 0 when a login let @share be read, else the server's first refusal;
 * @tried says whether a password was there to try. */
static int
connect_share (const CsGvfsShare *share,
               gboolean          *tried)
{
  gboolean given, from_window;
  int error_code = 0, guest_error = 0;

  _cs_smb_credentials_peek (share->server, &given, &from_window);

  *tried = given || from_window;
  /* The login the user typed is kept while the server takes it: a share
   * it does not have is no reason to ask again for its others. */
  if (from_window && (share_answers (share, &error_code) || !is_refusal (error_code)))
    return error_code;
  _cs_smb_credentials_forget_login (share->server);
  if (given && share_answers (share, &error_code))
    return 0;

  if (use_keyring_login (share))
    {
      *tried = TRUE;
      if (share_answers (share, &error_code))
        return 0;
    }

  _cs_smb_credentials_set_login (share->server, NULL,
                                 share->user != NULL ? share->user : "guest", "", FALSE);
  if (share_answers (share, &guest_error))
    return 0;

  _cs_smb_credentials_forget_login (share->server);
  if (error_code == 0)
    error_code = empty_password_error (guest_error);
  return error_code != 0 ? error_code : EACCES;
}

gboolean
_cs_smb_login_connect (const CsGvfsShare *share,
                       char             **why)
{
  gboolean tried;
  int error_code = connect_share (share, &tried);

  if (error_code == 0)
    return TRUE;
  if (why == NULL)
    return FALSE;
  /* Where no password was there to try, the guest's refusal says little. */
  if (!tried && is_refusal (error_code))
    *why = g_strdup (_("no password given, and none kept for it in the keyring"));
  else
    *why = g_strdup (g_strerror (error_code));
  return FALSE;
}

/* ---- A password in the URL ---------------------------------------------- */

char *
cs_smb_location_take_password (const char *location,
                               gboolean   *taken)
{
  g_autoptr(CsGvfsShare) share = NULL;
  char *password = NULL;
  char *redacted;

  g_return_val_if_fail (location != NULL, NULL);

  redacted = _cs_smb_url_take (location, &password);
  if (taken != NULL)
    *taken = password != NULL;
  if (password == NULL)
    return redacted;

  /* Kept as a login the user typed: tried first, and kept while the
   * server takes it (connect_share ()). A URL naming no share is no
   * folder a job can use; its password has nowhere to go. An empty one
   * ("user:@") is none, as libsmbclient reads it: the usual logins. */
  if (password[0] != '\0' && (share = _cs_gvfs_share_of_url (redacted)) != NULL)
    _cs_smb_credentials_set_login (share->server, share->domain, share->user, password, TRUE);
  _cs_smb_password_wipe (password);
  return redacted;
}

/* ---- Logging in before a job -------------------------------------------- */

CsSmbLocation *
cs_smb_location_parse (const char *location)
{
  g_autoptr(CsGvfsShare) share = NULL;
  CsSmbLocation *parsed;
  gboolean url;

  g_return_val_if_fail (location != NULL, NULL);

  url = g_str_has_prefix (location, "smb://");
  share = url ? _cs_gvfs_share_of_url (location) : _cs_gvfs_share_of_path (location);
  if (share == NULL)
    return NULL;
  parsed = g_new0 (CsSmbLocation, 1);
  parsed->server = g_steal_pointer (&share->server);
  parsed->port = share->port;
  parsed->share = g_steal_pointer (&share->share);
  parsed->path = g_steal_pointer (&share->path);
  parsed->user = g_steal_pointer (&share->user);
  parsed->domain = g_steal_pointer (&share->domain);
  parsed->url = url;
  return parsed;
}

void
cs_smb_location_free (CsSmbLocation *location)
{
  if (location == NULL)
    return;
  g_free (location->server);
  g_free (location->share);
  g_free (location->path);
  g_free (location->user);
  g_free (location->domain);
  g_free (location);
}

static CsGvfsShare *
share_of_location (const char  *location,
                   GError     **error)
{
  CsGvfsShare *share = g_str_has_prefix (location, "smb://") ? _cs_gvfs_share_of_url (location)
                                                             : _cs_gvfs_share_of_path (location);

  if (share == NULL)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                 _("%s is no folder on an SMB share"), location);
  return share;
}

static gboolean
set_log_in_error (const CsGvfsShare  *share,
                  int                 error_code,
                  GError            **error)
{
  if (is_refusal (error_code))
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                 /* Translators: like "127.0.0.1 refused the login to the share “photos”" */
                 _("%s refused the login to the share “%s”"), share->server, share->share);
  else if (error_code == ENOENT)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                 _("The server %s has no share named “%s”"), share->server, share->share);
  else
    g_set_error (error, G_IO_ERROR, g_io_error_from_errno (error_code),
                 /* Translators: like "Cannot reach nas/photos: Connection refused" */
                 _("Cannot reach %s/%s: %s"), share->server, share->share,
                 g_strerror (error_code));
  return FALSE;
}

gboolean
cs_smb_log_in_sync (const char    *location,
                    const char    *domain,
                    const char    *user,
                    const char    *password,
                    GCancellable  *cancellable,
                    GError       **error)
{
  g_autoptr(CsGvfsShare) share = NULL;
  int error_code = 0;
  gboolean tried;

  g_return_val_if_fail (location != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if ((share = share_of_location (location, error)) == NULL)
    return FALSE;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;

  if (password == NULL)
    {
      error_code = connect_share (share, &tried);
      return error_code == 0 || set_log_in_error (share, error_code, error);
    }

  _cs_smb_credentials_set_login (share->server,
                                 domain != NULL && domain[0] != '\0' ? domain : share->domain,
                                 user != NULL && user[0] != '\0' ? user : share->user,
                                 password, TRUE);
  if (share_answers (share, &error_code))
    return TRUE;
  if (password[0] == '\0')
    error_code = empty_password_error (error_code);
  if (is_refusal (error_code))
    _cs_smb_credentials_forget_login (share->server);
  return set_log_in_error (share, error_code, error);
}

typedef gboolean (*LogInSync) (const char *, const char *, const char *, const char *,
                               GCancellable *, GError **);

/* A log-in or a password to remember, run in a thread of GTask's. */
typedef struct {
  LogInSync sync;
  char     *location;
  char     *domain;
  char     *user;
  char     *password;
} LogIn;

static void
log_in_free (gpointer data)
{
  LogIn *l = data;

  g_free (l->location);
  g_free (l->domain);
  g_free (l->user);
  _cs_smb_password_wipe (l->password);
  g_free (l);
}

static LogIn *
log_in_new (LogInSync   sync,
            const char *location,
            const char *domain,
            const char *user,
            const char *password)
{
  LogIn *l = g_new0 (LogIn, 1);

  l->sync = sync;
  l->location = g_strdup (location);
  l->domain = g_strdup (domain);
  l->user = g_strdup (user);
  l->password = g_strdup (password);
  return l;
}

/* a thread of GTask's */
static void
log_in_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  LogIn *l = task_data;
  GError *error = NULL;

  if (l->sync (l->location, l->domain, l->user, l->password, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/* libsmbclient's calls cannot be cancelled: the caller hears at once, and
 * the thread ends when the server answers. */
static void
log_in_start (gpointer             source_tag,
              LogInSync            sync,
              const char          *location,
              const char          *domain,
              const char          *user,
              const char          *password,
              GCancellable        *cancellable,
              GAsyncReadyCallback  callback,
              gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);

  g_task_set_source_tag (task, source_tag);
  g_task_set_task_data (task, log_in_new (sync, location, domain, user, password), log_in_free);
  g_task_set_return_on_cancel (task, TRUE);
  g_task_run_in_thread (task, log_in_thread);
}

void
cs_smb_log_in_async (const char          *location,
                     const char          *domain,
                     const char          *user,
                     const char          *password,
                     GCancellable        *cancellable,
                     GAsyncReadyCallback  callback,
                     gpointer             user_data)
{
  g_return_if_fail (location != NULL);

  log_in_start (cs_smb_log_in_async, cs_smb_log_in_sync, location, domain, user, password,
                cancellable, callback, user_data);
}

gboolean
cs_smb_log_in_finish (GAsyncResult  *result,
                      GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == cs_smb_log_in_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

gboolean
cs_smb_remember_password_sync (const char    *location,
                               const char    *domain,
                               const char    *user,
                               const char    *password,
                               GCancellable  *cancellable,
                               GError       **error)
{
  g_autoptr(CsGvfsShare) share = NULL;
  g_autofree char *login_name = NULL;

  g_return_val_if_fail (location != NULL, FALSE);
  g_return_val_if_fail (password != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if ((share = share_of_location (location, error)) == NULL)
    return FALSE;
  /* GVfs always stores a user: the one the login went as. */
  if (user == NULL || user[0] == '\0')
    user = share->user != NULL ? share->user : (login_name = _cs_smb_credentials_dup_default_user ());
  if (user == NULL)
    user = g_get_user_name ();
  return keyring_store (share, domain != NULL ? domain : share->domain, user, password,
                        cancellable, error);
}

void
cs_smb_remember_password_async (const char          *location,
                                const char          *domain,
                                const char          *user,
                                const char          *password,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_return_if_fail (location != NULL);
  g_return_if_fail (password != NULL);

  log_in_start (cs_smb_remember_password_async, cs_smb_remember_password_sync, location, domain,
                user, password, cancellable, callback, user_data);
}

gboolean
cs_smb_remember_password_finish (GAsyncResult  *result,
                                 GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == cs_smb_remember_password_async,
                        FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
