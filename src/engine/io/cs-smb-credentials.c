/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-smb-credentials"

#include "config.h"

#include <stdatomic.h>

#include <string.h>

#include "cs-smb.h"
#include "cs-smb-credentials-private.h"
#include "cs-smb-url-private.h"

/*
 * Who the SMB backend logs in as: the password (and user) given to the
 * process for every smb:// location, and a login per server, which
 * cs-smb-login.c finds (the one the user typed, GVfs's in the secret
 * service, a guest's) and sets here. libsmbclient's auth callback reads it
 * on every connection, from any worker, so it is plain data under one lock
 * and knows nothing of servers or keyrings. Passwords live in memory only,
 * wiped when replaced; never logged, never in a run record.
 */

typedef struct {
  char *server;
  char *domain;     /* NULL: what the URL or the library says */
  char *user;       /* NULL: likewise */
  char *password;
  gboolean given;   /* typed by the user: tried first, kept while it works */
} Login;

static GMutex lock;
static char *default_user;
static char *default_password;
static GPtrArray *logins;    /* Login*, one per server */
static atomic_uint generation; /* one more at every change of a login */

static void
login_free (gpointer data)
{
  Login *login = data;

  g_free (login->server);
  g_free (login->domain);
  g_free (login->user);
  _cs_smb_password_wipe (login->password);
  g_free (login);
}

void
cs_smb_set_credentials (const char *user,
                        const char *password)
{
  g_mutex_lock (&lock);
  _cs_smb_password_wipe (default_password);
  default_password = g_strdup (password);
  g_free (default_user);
  default_user = g_strdup (user);
  atomic_fetch_add (&generation, 1);
  g_mutex_unlock (&lock);
}

guint
_cs_smb_credentials_generation (void)
{
  return atomic_load (&generation);
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

void
_cs_smb_credentials_peek (const char *server,
                          gboolean   *process_password,
                          gboolean   *typed_login)
{
  Login *login;

  g_assert (server != NULL);

  g_mutex_lock (&lock);
  *process_password = default_password != NULL;
  *typed_login = (login = login_of (server, NULL)) != NULL && login->given;
  g_mutex_unlock (&lock);
}

void
_cs_smb_credentials_set_login (const char *server,
                               const char *domain,
                               const char *user,
                               const char *password,
                               gboolean    given)
{
  Login *login;
  guint i;

  g_assert (server != NULL);
  g_assert (password != NULL);

  login = g_new0 (Login, 1);
  login->server = g_strdup (server);
  login->domain = g_strdup (domain);
  login->user = g_strdup (user);
  login->password = g_strdup (password);
  login->given = given;

  g_mutex_lock (&lock);
  if (logins == NULL)
    logins = g_ptr_array_new_with_free_func (login_free);
  if (login_of (login->server, &i) != NULL)
    g_ptr_array_remove_index (logins, i);
  g_ptr_array_add (logins, login);
  atomic_fetch_add (&generation, 1);
  g_mutex_unlock (&lock);
}

void
_cs_smb_credentials_forget_login (const char *server)
{
  guint i;

  g_assert (server != NULL);

  g_mutex_lock (&lock);
  if (login_of (server, &i) != NULL)
    g_ptr_array_remove_index (logins, i);
  atomic_fetch_add (&generation, 1);
  g_mutex_unlock (&lock);
}
