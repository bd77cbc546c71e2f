/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-names"

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <xxhash.h>

#include "cs-items-private.h"
#include "cs-names-private.h"

gboolean
_cs_name_is_ours (const char *name,
                  const char *suffix)
{
  const char *p;
  guint i;

  if (!g_str_has_prefix (name, CS_TEMP_PREFIX))
    return FALSE;
  p = name + strlen (CS_TEMP_PREFIX);
  for (i = 0; i < 16; i++)
    if (!g_ascii_isxdigit (p[i]))
      return FALSE;
  p += 16;
  if (*p++ != '-' || !g_ascii_isdigit (*p))
    return FALSE;
  while (g_ascii_isdigit (*p))
    p++;

  return strcmp (p, suffix) == 0;
}

gboolean
_cs_name_is_our_temp (const char *name)
{
  return _cs_name_is_ours (name, CS_TEMP_SUFFIX) || _cs_name_claim_hash (name, NULL);
}

guint64
_cs_name_hash (const char *final)
{
  return XXH3_64bits (final, strlen (final));
}

gboolean
_cs_name_claim_hash (const char *name,
                     guint64    *out_hash)
{
  const char *suffix = strstr (name, CS_CLAIM_SUFFIX);
  g_autofree char *stem = NULL;
  const char *hex;

  if (suffix == NULL)
    return FALSE;
  hex = suffix + strlen (CS_CLAIM_SUFFIX);
  if (strlen (hex) != 16)
    return FALSE;
  for (guint i = 0; i < 16; i++)
    if (!g_ascii_isxdigit (hex[i]))
      return FALSE;
  stem = g_strndup (name, (gsize) (suffix - name));
  if (!_cs_name_is_ours (stem, ""))
    return FALSE;
  if (out_hash != NULL)
    *out_hash = g_ascii_strtoull (hex, NULL, 16);
  return TRUE;
}

/* "\0copyscope/<tag>": in the abstract namespace, which the kernel empties of a
 * process's names when it ends, however it ends. */
static socklen_t
presence_address (const char         *tag,
                  struct sockaddr_un *addr)
{
  int len;

  memset (addr, 0, sizeof *addr);
  addr->sun_family = AF_UNIX;
  len = g_snprintf (addr->sun_path + 1, sizeof addr->sun_path - 1, "copyscope/%.16s", tag);
  return (socklen_t) (offsetof (struct sockaddr_un, sun_path) + 1 + (gsize) len);
}

int
_cs_names_announce (const char *tag)
{
  struct sockaddr_un addr;
  socklen_t len = presence_address (tag, &addr);
  int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

  if (fd >= 0 && bind (fd, (struct sockaddr *) &addr, len) != 0)
    {
      close (fd);
      fd = -1;
    }
  return fd;
}

gboolean
_cs_name_run_alive (const char *name)
{
  struct sockaddr_un addr;
  socklen_t len;
  gboolean alive;
  int fd;

  if (!g_str_has_prefix (name, CS_TEMP_PREFIX))
    return FALSE;
  len = presence_address (name + strlen (CS_TEMP_PREFIX), &addr);
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  /* Without a socket nothing can be told: keep the file, the safe side. */
  if (fd < 0)
    return TRUE;
  alive = bind (fd, (struct sockaddr *) &addr, len) != 0 && errno == EADDRINUSE;
  close (fd);
  return alive;
}

gboolean
_cs_name_is_our_stage (const char *name)
{
  return _cs_name_is_ours (name, CS_STAGE_SUFFIX);
}

/* ---- A folder's path -------------------------------------------------- */

static void
append_dir_path (GString *out,
                 CsDir   *dir,
                 gboolean destination)
{
  if (dir->parent != NULL)
    {
      append_dir_path (out, dir->parent, destination);
      if (out->len > 0 && out->str[out->len - 1] != '/')
        g_string_append_c (out, '/');
    }
  g_string_append (out, destination ? dir->dst_name : dir->name);
}

char *
_cs_dir_dup_path (CsDir      *dir,
                  const char *name,
                  gboolean    destination)
{
  GString *out = g_string_new (NULL);

  if (dir != NULL)
    append_dir_path (out, dir, destination);
  if (name != NULL)
    {
      if (out->len > 0 && out->str[out->len - 1] != '/')
        g_string_append_c (out, '/');
      g_string_append (out, name);
    }

  return g_string_free (out, FALSE);
}

/* ---- Keep both --------------------------------------------------------- */

char *
_cs_name_numbered (const char *final,
                   guint       n)
{
  const char *dot = strrchr (final, '.');
  g_autofree char *stem = (dot != NULL && dot != final) ? g_strndup (final, (gsize) (dot - final)) : g_strdup (final);
  const char *ext = (dot != NULL && dot != final) ? dot : "";

  return g_strdup_printf ("%s (%u)%s", stem, n, ext);
}
