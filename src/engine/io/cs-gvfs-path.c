/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-gvfs-path"

#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cs-env-private.h"
#include "cs-gvfs-path-private.h"

/*
 * GNOME Files hands applications a share GVfs mounted as a path on
 * gvfsd-fuse's mount, $XDG_RUNTIME_DIR/gvfs/<mount>/…, where <mount> is the
 * mount's spec as GVfs writes it (g_mount_spec_to_string): the type, ':',
 * then key=value pairs joined by ',', sorted by key, each value URI-escaped
 * with only "$&'()*+" left as they are, and ",prefix=…" last where the mount
 * starts below the share's root. Everything in such a path can be reached
 * at the server itself, which is what the engine's SMB client does: the
 * name is read here, and the folder must really be on gvfsd-fuse's mount
 * (a folder of that name anywhere else is just a folder).
 */

#define SMB_SHARE_TYPE "smb-share:"

void
_cs_gvfs_share_free (CsGvfsShare *share)
{
  if (share == NULL)
    return;
  g_free (share->server);
  g_free (share->share);
  g_free (share->user);
  g_free (share->domain);
  g_free (share->root_url);
  g_free (share->url);
  g_free (share->path);
  g_free (share);
}

/* @folder is gvfsd-fuse's mount itself, not a folder in one of its shares
 * (an SFTP share's folder may have any name). */
static gboolean
is_gvfs_mount (const char *folder)
{
  g_autofree char *type = NULL;
  g_autofree char *parent = g_build_filename (folder, "..", NULL);
  struct stat st, pst;

  if (stat (folder, &st) != 0 || !S_ISDIR (st.st_mode) || stat (parent, &pst) != 0
      || pst.st_dev == st.st_dev)
    return FALSE;
  type = _cs_env_filesystem_type_of_dev (st.st_dev);
  return g_strcmp0 (type, "fuse.gvfsd-fuse") == 0;
}

/* The keys of a mount name, or FALSE where it is not an SMB share's or has a
 * key this reading does not know (a prefix, say): such a path stays a path. */
static gboolean
parse_mount_name (const char  *name,
                  CsGvfsShare *share)
{
  g_auto(GStrv) pairs = g_strsplit (name + strlen (SMB_SHARE_TYPE), ",", -1);

  for (guint i = 0; pairs[i] != NULL; i++)
    {
      char *eq = strchr (pairs[i], '=');
      char *value;

      if (eq == NULL)
        return FALSE;
      *eq = '\0';
      if ((value = g_uri_unescape_string (eq + 1, NULL)) == NULL || value[0] == '\0')
        {
          g_free (value);
          return FALSE;
        }
      if (strcmp (pairs[i], "server") == 0 && share->server == NULL)
        share->server = value;
      else if (strcmp (pairs[i], "share") == 0 && share->share == NULL)
        share->share = value;
      else if (strcmp (pairs[i], "user") == 0 && share->user == NULL)
        share->user = value;
      else if (strcmp (pairs[i], "domain") == 0 && share->domain == NULL)
        share->domain = value;
      else if (strcmp (pairs[i], "port") == 0 && share->port == 0)
        {
          char *end;
          guint64 port = g_ascii_strtoull (value, &end, 10);
          gboolean whole = *end == '\0';

          g_free (value);
          if (!whole || port == 0 || port > 65535)
            return FALSE;
          share->port = (guint) port;
        }
      else
        {
          g_free (value);
          return FALSE;
        }
    }
  return share->server != NULL && share->share != NULL;
}

static void
append_escaped (GString    *url,
                const char *part,
                const char *allowed)
{
  g_autofree char *escaped = g_uri_escape_string (part, allowed, TRUE);

  g_string_append (url, escaped);
}

/* libsmbclient's form, smb://[domain;user@]server[:port]/share/path, with
 * every part escaped: it decodes %XX in each. */
static char *
share_url (const CsGvfsShare *share)
{
  GString *url = g_string_new ("smb://");

  if (share->user != NULL)
    {
      if (share->domain != NULL)
        {
          append_escaped (url, share->domain, NULL);
          g_string_append_c (url, ';');
        }
      append_escaped (url, share->user, NULL);
      g_string_append_c (url, '@');
    }
  append_escaped (url, share->server, ":[]");
  if (share->port != 0)
    g_string_append_printf (url, ":%u", share->port);
  g_string_append_c (url, '/');
  append_escaped (url, share->share, NULL);
  return g_string_free (url, FALSE);
}

static char *
folder_url (const char   *root,
            char * const *below)
{
  GString *url = g_string_new (root);

  for (guint i = 0; below[i] != NULL; i++)
    if (below[i][0] != '\0')
      {
        g_string_append_c (url, '/');
        append_escaped (url, below[i], NULL);
      }
  return g_string_free (url, FALSE);
}

/* The folders below a share, unescaped, as "sub/folder". */
static char *
join_below (char * const *below)
{
  GString *path = g_string_new (NULL);

  for (guint i = 0; below[i] != NULL; i++)
    if (below[i][0] != '\0')
      {
        if (path->len > 0)
          g_string_append_c (path, '/');
        g_string_append (path, below[i]);
      }
  return g_string_free (path, FALSE);
}

CsGvfsShare *
_cs_gvfs_share_parse_path (const char  *path,
                           char       **out_mount)
{
  g_autoptr(CsGvfsShare) share = NULL;
  g_autofree char *absolute = NULL;
  g_auto(GStrv) below = NULL;
  const char *name, *end;
  g_autofree char *mount_name = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  if (strstr (path, SMB_SHARE_TYPE) == NULL)
    return NULL;
  absolute = g_canonicalize_filename (path, NULL);
  if ((name = strstr (absolute, "/" SMB_SHARE_TYPE)) == NULL)
    return NULL;
  name++;
  end = strchrnul (name, '/');
  mount_name = g_strndup (name, (gsize) (end - name));

  share = g_new0 (CsGvfsShare, 1);
  if (!parse_mount_name (mount_name, share))
    return NULL;
  below = g_strsplit (*end == '/' ? end + 1 : end, "/", -1);
  share->root_url = share_url (share);
  share->url = folder_url (share->root_url, below);
  share->path = join_below (below);
  if (out_mount != NULL)
    *out_mount = g_strndup (absolute, (gsize) (name - absolute));
  return g_steal_pointer (&share);
}

CsGvfsShare *
_cs_gvfs_share_of_path (const char *path)
{
  g_autoptr(CsGvfsShare) share = NULL;
  g_autofree char *mount = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  if ((share = _cs_gvfs_share_parse_path (path, &mount)) == NULL || !is_gvfs_mount (mount))
    return NULL;
  return g_steal_pointer (&share);
}

/* @start to @end unescaped; a "%" that starts no escape is a "%" (a URL
 * typed, or a name the engine joined unescaped), not the end of it. */
static char *
unescape_or_raw (const char *start,
                 const char *end)
{
  char *text = g_uri_unescape_segment (start, end, NULL);

  return text != NULL ? text : g_strndup (start, (gsize) (end - start));
}

/* "domain;user[:password]", escaped: the user and the domain, unescaped;
 * a password in the URL stays out of them. */
static void
parse_userinfo (const char  *userinfo,
                CsGvfsShare *share)
{
  const char *end = strchrnul (userinfo, ':');
  const char *semicolon = memchr (userinfo, ';', (gsize) (end - userinfo));
  const char *user = semicolon != NULL ? semicolon + 1 : userinfo;

  if (semicolon != NULL && semicolon > userinfo)
    share->domain = unescape_or_raw (userinfo, semicolon);
  if (end > user)
    share->user = unescape_or_raw (user, end);
}

/* Read by hand rather than by g_uri_split (), which refuses what
 * libsmbclient takes: a "%" that starts no escape, a space. */
CsGvfsShare *
_cs_gvfs_share_of_url (const char *url)
{
  g_autoptr(CsGvfsShare) share = NULL;
  g_autoptr(GPtrArray) below = g_ptr_array_new_with_free_func (g_free);
  const char *authority, *host, *host_end, *at, *p;

  g_return_val_if_fail (url != NULL, NULL);

  if (!g_str_has_prefix (url, "smb://"))
    return NULL;
  authority = url + strlen ("smb://");
  p = strchrnul (authority, '/');
  share = g_new0 (CsGvfsShare, 1);

  /* [userinfo@]host[:port], the host maybe an IPv6 address in brackets. */
  host = authority;
  for (at = authority; at < p; at++)
    if (*at == '@')
      host = at + 1;
  if (host > authority)
    {
      g_autofree char *userinfo = g_strndup (authority, (gsize) (host - 1 - authority));

      parse_userinfo (userinfo, share);
    }
  host_end = p;
  if (*host == '[')
    {
      const char *close = memchr (host, ']', (gsize) (p - host));

      /* Closed, then a port or the path: "[::1]x" is no host to guess at. */
      if (close == NULL || (close + 1 < p && close[1] != ':'))
        return NULL;
      host_end = close + 1;
    }
  else
    {
      const char *colon = memchr (host, ':', (gsize) (p - host));

      if (colon != NULL)
        host_end = colon;
    }
  if (host_end < p && *host_end == ':')
    {
      g_autofree char *digits = g_strndup (host_end + 1, (gsize) (p - host_end - 1));
      guint64 port;

      if (!g_ascii_string_to_unsigned (digits, 10, 1, 65535, &port, NULL))
        return NULL;
      share->port = (guint) port;
    }
  if (host_end == host)
    return NULL;
  share->server = unescape_or_raw (host, host_end);

  /* The share, then the folders below it. */
  while (*p == '/')
    {
      const char *segment = p + 1;

      p = strchrnul (segment, '/');
      if (p == segment || (p == segment + 1 && *segment == '.'))
        continue;
      if (share->share == NULL)
        share->share = unescape_or_raw (segment, p);
      else
        g_ptr_array_add (below, unescape_or_raw (segment, p));
    }
  if (share->share == NULL)
    return NULL;
  g_ptr_array_add (below, NULL);
  share->root_url = share_url (share);
  share->url = g_strdup (url);
  share->path = join_below ((char * const *) below->pdata);
  return g_steal_pointer (&share);
}
