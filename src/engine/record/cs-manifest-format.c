/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-manifest"

#include "config.h"

#include <string.h>

#include <gio/gio.h>
#include <glib/gi18n.h>

#include "cs-manifest-format.h"

/*
 * The checksum list's line format, apart from the copy that writes it: the
 * record names the list of a run, and History and the reports read it, and
 * those sit below the copy.
 */

const char *
cs_manifest_algo_to_string (CsManifestAlgo algo)
{
  return algo == CS_MANIFEST_SHA256 ? "sha256" : "xxh128";
}

gboolean
cs_manifest_algo_from_string (const char     *text,
                              CsManifestAlgo *out_algo)
{
  g_return_val_if_fail (out_algo != NULL, FALSE);

  if (g_strcmp0 (text, "xxh128") == 0)
    *out_algo = CS_MANIFEST_XXH128;
  else if (g_strcmp0 (text, "sha256") == 0)
    *out_algo = CS_MANIFEST_SHA256;
  else
    return FALSE;
  return TRUE;
}

gsize
cs_manifest_digest_size (CsManifestAlgo algo)
{
  return algo == CS_MANIFEST_SHA256 ? 32 : 16;
}

void
cs_manifest_append_line (GString        *out,
                         CsManifestAlgo  algo,
                         const guint8   *digest,
                         const char     *path)
{
  static const char hex[] = "0123456789abcdef";
  gsize n = cs_manifest_digest_size (algo);
  /* GNU coreutils' rule: only these three bytes are escaped, and then the
   * line says so by its first character. */
  gboolean escaped = strpbrk (path, "\\\n\r") != NULL;

  g_return_if_fail (out != NULL && digest != NULL && path != NULL);

  if (escaped)
    g_string_append_c (out, '\\');
  for (gsize i = 0; i < n; i++)
    {
      g_string_append_c (out, hex[digest[i] >> 4]);
      g_string_append_c (out, hex[digest[i] & 0xf]);
    }
  g_string_append (out, "  ");
  if (!escaped)
    g_string_append (out, path);
  else
    for (const char *p = path; *p != '\0'; p++)
      {
        if (*p == '\\')
          g_string_append (out, "\\\\");
        else if (*p == '\n')
          g_string_append (out, "\\n");
        else if (*p == '\r')
          g_string_append (out, "\\r");
        else
          g_string_append_c (out, *p);
      }
  g_string_append_c (out, '\n');
}

gboolean
cs_manifest_parse_line (const char     *line,
                        gsize           length,
                        CsManifestAlgo *out_algo,
                        guint8         *out_digest,
                        char          **out_path,
                        GError        **error)
{
  const char *p = line;
  const char *end = line + length;
  gboolean escaped = FALSE;
  const char *hex_start;
  gsize digits;
  GString *path;

  g_return_val_if_fail (line != NULL && out_algo != NULL && out_digest != NULL && out_path != NULL, FALSE);

  if (p < end && *p == '\\')
    {
      escaped = TRUE;
      p++;
    }
  hex_start = p;
  while (p < end && g_ascii_isxdigit (*p))
    p++;
  digits = (gsize) (p - hex_start);
  if (digits == 32)
    *out_algo = CS_MANIFEST_XXH128;
  else if (digits == 64)
    *out_algo = CS_MANIFEST_SHA256;
  else
    goto malformed;
  /* "  name", or " *name" from a tool in binary mode: the same bytes here. */
  if (end - p < 3 || p[0] != ' ' || (p[1] != ' ' && p[1] != '*'))
    goto malformed;
  for (gsize i = 0; i < digits / 2; i++)
    out_digest[i] = (guint8) (g_ascii_xdigit_value (hex_start[2 * i]) << 4
                              | g_ascii_xdigit_value (hex_start[2 * i + 1]));
  p += 2;

  path = g_string_sized_new ((gsize) (end - p));
  for (; p < end; p++)
    {
      if (*p == '\0')
        {
          g_string_free (path, TRUE);
          goto malformed;
        }
      if (!escaped || *p != '\\')
        {
          g_string_append_c (path, *p);
          continue;
        }
      if (++p == end)
        {
          g_string_free (path, TRUE);
          goto malformed;
        }
      if (*p == '\\')
        g_string_append_c (path, '\\');
      else if (*p == 'n')
        g_string_append_c (path, '\n');
      else if (*p == 'r')
        g_string_append_c (path, '\r');
      else
        {
          g_string_free (path, TRUE);
          goto malformed;
        }
    }
  *out_path = g_string_free (path, FALSE);
  return TRUE;

malformed:
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("Not a checksum line (xxhsum -H2 or sha256sum format)"));
  return FALSE;
}

