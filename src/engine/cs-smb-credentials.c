/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-smb-credentials"

#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <libsecret/secret.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gi18n-lib.h>

#include "cs-io-private.h"
#include "cs-smb.h"
#include "cs-smb-credentials-private.h"

/*
 * Who the SMB backend logs in as. The process may be given one password
 * (and a user) for every smb:// location; a share reached through its GVfs
 * path may log in as GVfs did, with the password GVfs keeps in the secret
 * service: the network-password schema of libgnome-keyring
 * ("org.gnome.keyring.NetworkPassword"), attributes user, server, domain,
 * protocol "smb" and port (where it is not the default), as gvfsd-smb
 * stores and looks them up. Passwords live in memory only, wiped when
 * replaced; never logged, never in a run record.
 */

typedef struct {
  char *server;
  char *domain;     /* NULL: what the URL or the library says */
  char *user;       /* NULL: likewise */
  char *password;
} Login;

static GMutex lock;
static char *default_user;
static char *default_password;
static GPtrArray *logins;    /* Login*, one per server */

static void
wipe (char *secret)
{
  if (secret != NULL)
    explicit_bzero (secret, strlen (secret));
  g_free (secret);
}

static void
login_free (gpointer data)
{
  Login *login = data;

  g_free (login->server);
  g_free (login->domain);
  g_free (login->user);
  wipe (login->password);
  g_free (login);
}

void
cs_smb_set_credentials (const char *user,
                        const char *password)
{
  g_mutex_lock (&lock);
  wipe (default_password);
  default_password = g_strdup (password);
  g_free (default_user);
  default_user = g_strdup (user);
  g_mutex_unlock (&lock);
}

char *
_cs_smb_credentials_dup_default_user (void)
{
  char *user;

  g_mutex_lock (&lock);
  user = g_strdup (default_user);
  g_mutex_unlock (&lock);
  return user;
}

/* Called with the lock held. */
static Login *
login_of (const char *server,
          guint      *index)
{
  for (guint i = 0; logins != NULL && i < logins->len; i++)
    {
      Login *login = g_ptr_array_index (logins, i);

      if (g_ascii_strcasecmp (login->server, server) == 0)
        {
          if (index != NULL)
            *index = i;
          return login;
        }
    }
  return NULL;
}

gboolean
_cs_smb_credentials_fill (const char *server,
                          char       *workgroup,
                          int         workgroup_len,
                          char       *user,
                          int         user_len,
                          char       *password,
                          int         password_len)
{
  Login *login;
  gboolean known = FALSE;

  g_mutex_lock (&lock);
  if (server != NULL && (login = login_of (server, NULL)) != NULL)
    {
      if (login->domain != NULL)
        g_strlcpy (workgroup, login->domain, (gsize) workgroup_len);
      if (login->user != NULL)
        g_strlcpy (user, login->user, (gsize) user_len);
      g_strlcpy (password, login->password, (gsize) password_len);
      known = TRUE;
    }
  else if (default_password != NULL)
    {
      g_strlcpy (password, default_password, (gsize) password_len);
      known = TRUE;
    }
  g_mutex_unlock (&lock);
  return known;
}

/* Takes @login's strings. */
static void
set_login (Login *login)
{
  guint i;

  g_mutex_lock (&lock);
  if (logins == NULL)
    logins = g_ptr_array_new_with_free_func (login_free);
  if (login_of (login->server, &i) != NULL)
    g_ptr_array_remove_index (logins, i);
  g_ptr_array_add (logins, login);
  g_mutex_unlock (&lock);
}

static void
forget_login (const char *server)
{
  guint i;

  g_mutex_lock (&lock);
  if (login_of (server, &i) != NULL)
    g_ptr_array_remove_index (logins, i);
  g_mutex_unlock (&lock);
}

/* ---- The secret service ------------------------------------------------- */

/* libsecret is opened on the first share reached through GVfs's path, not
 * linked: a local copy never pays for it (nor for the D-Bus round trips). */
static struct {
  __typeof__ (secret_get_schema) *get_schema;
  __typeof__ (secret_service_search_sync) *search_sync;
  __typeof__ (secret_item_get_attributes) *item_get_attributes;
  __typeof__ (secret_item_get_secret) *item_get_secret;
  __typeof__ (secret_item_get_modified) *item_get_modified;
  __typeof__ (secret_value_get_text) *value_get_text;
  __typeof__ (secret_value_unref) *value_unref;
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
      || (secret.value_unref = dlsym (library, "secret_value_unref")) == NULL)
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

/* The login GVfs keeps for @share, or NULL. */
static Login *
keyring_login (const CsGvfsShare *share)
{
  static GOnce loaded = G_ONCE_INIT;
  g_autoptr(GHashTable) attributes = NULL;
  g_autoptr(GHashTable) found = NULL;
  g_autoptr(GError) error = NULL;
  GList *items;
  SecretValue *value;
  Login *login = NULL;

  /* The secret service is on the session bus, which a GVfs mount needs too;
   * without one GLib would try to start a bus of its own. */
  if (g_getenv ("DBUS_SESSION_BUS_ADDRESS") == NULL)
    {
      g_autofree char *bus = g_build_filename (g_get_user_runtime_dir (), "bus", NULL);

      if (!g_file_test (bus, G_FILE_TEST_EXISTS))
        return NULL;
    }
  if (!GPOINTER_TO_INT (g_once (&loaded, load_libsecret, NULL)))
    return NULL;

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
      return NULL;
    }
  if (items == NULL)
    return NULL;
  items = g_list_sort (items, by_specificity);
  value = secret.item_get_secret (items->data);
  found = secret.item_get_attributes (items->data);
  if (value != NULL && secret.value_get_text (value) != NULL)
    {
      login = g_new0 (Login, 1);
      login->server = g_strdup (share->server);
      login->user = g_strdup (g_hash_table_lookup (found, "user"));
      login->domain = g_strdup (g_hash_table_lookup (found, "domain"));
      login->password = g_strdup (secret.value_get_text (value));
    }
  if (value != NULL)
    secret.value_unref (value);
  g_list_free_full (items, g_object_unref);
  return login;
}

/* ---- Logging in --------------------------------------------------------- */

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

gboolean
_cs_smb_credentials_connect (const CsGvfsShare *share,
                             char             **why)
{
  gboolean given, from_keyring = FALSE;
  Login *login;
  int error_code = 0;

  g_mutex_lock (&lock);
  given = default_password != NULL;
  g_mutex_unlock (&lock);

  forget_login (share->server);
  if (given && share_answers (share, &error_code))
    return TRUE;

  if ((login = keyring_login (share)) != NULL)
    {
      from_keyring = TRUE;
      set_login (login);
      if (share_answers (share, &error_code))
        return TRUE;
    }

  login = g_new0 (Login, 1);
  login->server = g_strdup (share->server);
  login->user = g_strdup (share->user != NULL ? share->user : "guest");
  login->password = g_strdup ("");
  set_login (login);
  if (share_answers (share, &error_code))
    return TRUE;

  forget_login (share->server);
  if (why == NULL)
    return FALSE;
  /* Where no password was there to try, the guest's refusal says little. */
  if (!given && !from_keyring)
    *why = g_strdup (_("no password given, and none kept for it in the keyring"));
  else
    *why = g_strdup (g_strerror (error_code != 0 ? error_code : EACCES));
  return FALSE;
}
