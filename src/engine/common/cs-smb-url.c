/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-smb-url"

#include "config.h"

#include <string.h>

#include "cs-smb-url-private.h"

/*
 * A password typed into an smb:// location, taken out of it. GLib only, so
 * that the run record (which redacts what older versions kept) can use it
 * without reaching into the SMB backend or its log-in.
 */

/* @location split by GUri as given ("smb://dom;user:pass@host/…": user
 * "dom;user", password "pass", both as written), relaxed as libsmbclient
 * is (a space, a "%" that starts no escape, the last "@" ending the
 * userinfo); FALSE where it is no smb:// URL or carries no password. */
void
_cs_smb_password_wipe (char *secret)
{
  if (secret != NULL)
    explicit_bzero (secret, strlen (secret));
  g_free (secret);
}

static gboolean
split_password (const char  *location,
                char       **out_scheme,
                char       **out_user,
                char       **out_password,
                char       **out_host,
                int         *out_port,
                char       **out_path,
                char       **out_query,
                char       **out_fragment)
{
  const GUriFlags flags = G_URI_FLAGS_HAS_PASSWORD | G_URI_FLAGS_ENCODED | G_URI_FLAGS_NON_DNS
                          | G_URI_FLAGS_PARSE_RELAXED;

  if (!g_str_has_prefix (location, "smb://"))
    return FALSE;
  if (!g_uri_split_with_user (location, flags, out_scheme, out_user, out_password, NULL, out_host,
                              out_port, out_path, out_query, out_fragment, NULL))
    return FALSE;
  return *out_password != NULL;
}

/* What GUri cannot split (a "#" or "?" in the password: "smb://u:a#b@nas/s")
 * the engine's SMB backend still reads, as cs-gvfs-path.c does: the
 * authority up to the first "/", the userinfo up to its last "@", the
 * password after the userinfo's first ":". Cut there too, so that no
 * reading of the URL finds a password left in it. */
static char *
cut_unsplit_password (const char  *location,
                      char       **out_password)
{
  const char *authority = location + strlen ("smb://");
  const char *end = strchrnul (authority, '/');
  const char *at = NULL, *colon;

  for (const char *p = authority; p < end; p++)
    if (*p == '@')
      at = p;
  if (at == NULL || (colon = memchr (authority, ':', (gsize) (at - authority))) == NULL)
    return NULL;
  *out_password = g_strndup (colon + 1, (gsize) (at - colon - 1));
  return g_strdup_printf ("smb://%.*s%s", (int) (colon - authority), authority, at);
}

/* @location without its password, which goes to @out_password, unescaped
 * (NULL: it had none). */
char *
_cs_smb_url_take (const char  *location,
                  char       **out_password)
{
  g_autofree char *scheme = NULL;
  g_autofree char *user = NULL;
  g_autofree char *password = NULL;
  g_autofree char *host = NULL;
  g_autofree char *path = NULL;
  g_autofree char *query = NULL;
  g_autofree char *fragment = NULL;
  char *redacted;
  int port = -1;

  *out_password = NULL;
  if (!g_str_has_prefix (location, "smb://"))
    return g_strdup (location);
  if (!split_password (location, &scheme, &user, &password, &host, &port, &path, &query,
                       &fragment))
    {
      g_autoptr(GUri) plain = g_uri_parse (location, G_URI_FLAGS_ENCODED | G_URI_FLAGS_NON_DNS
                                                     | G_URI_FLAGS_PARSE_RELAXED, NULL);

      /* GUri read it, and found no password: as it is. */
      if (plain != NULL || (redacted = cut_unsplit_password (location, &password)) == NULL)
        return g_strdup (location);
    }
  else
    {
      g_autofree char *userinfo = g_strdup_printf ("smb://%s:%s@", user, password);

      /* The rest as it was written, where GUri left the userinfo as it
       * was; else as GUri reads it (a space escaped: the same location). */
      if (g_str_has_prefix (location, userinfo))
        redacted = g_strdup_printf ("smb://%s@%s", user, location + strlen (userinfo));
      else
        redacted = g_uri_join_with_user (G_URI_FLAGS_ENCODED | G_URI_FLAGS_NON_DNS, scheme, user,
                                         NULL, NULL, host, port, path, query, fragment);
      explicit_bzero (userinfo, strlen (userinfo));
    }

  /* As libsmbclient reads it: escapes decoded, a stray "%" kept. */
  *out_password = g_uri_unescape_string (password, NULL);
  if (*out_password == NULL)
    *out_password = g_strdup (password);
  explicit_bzero (password, strlen (password));
  return redacted;
}

char *
_cs_smb_location_redact (const char *location)
{
  char *password = NULL;
  char *redacted;

  g_return_val_if_fail (location != NULL, NULL);

  redacted = _cs_smb_url_take (location, &password);
  _cs_smb_password_wipe (password);
  return redacted;
}
