/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-text"

#include "config.h"

#include <string.h>

#include "cs-text.h"

char *
cs_text_escape (const char   *bytes,
                gssize        len,
                CsTextEscape  what)
{
  const char *p, *end;
  GString *out;

  g_return_val_if_fail (bytes != NULL, NULL);

  if (len < 0)
    len = (gssize) strlen (bytes);
  if (what == CS_TEXT_ESCAPE_INVALID && g_utf8_validate_len (bytes, (gsize) len, NULL))
    return g_strndup (bytes, (gsize) len);

  out = g_string_sized_new ((gsize) len + 8);
  p = bytes;
  end = bytes + len;
  while (p < end)
    {
      /* (gunichar) -2 for a NUL too: escaped like any stray byte. */
      gunichar c = g_utf8_get_char_validated (p, end - p);
      const char *next;

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          g_string_append_printf (out, "\\x%02x", (guchar) *p++);
          continue;
        }
      next = g_utf8_next_char (p);
      if (what == CS_TEXT_ESCAPE_INVALID)
        g_string_append_len (out, p, next - p);
      else if (c == '\\')
        g_string_append (out, "\\\\");
      else if (c == '\t')
        g_string_append (out, "\\t");
      else if (c == '\n')
        g_string_append (out, "\\n");
      else if (c == '\r')
        g_string_append (out, "\\r");
      else if (c < 0x20 || c == 0x7f)
        g_string_append_printf (out, "\\x%02x", c);
      else
        g_string_append_len (out, p, next - p);
      p = next;
    }
  return g_string_free (out, FALSE);
}

char *
cs_text_unescape (const char  *text,
                  GError     **error)
{
  g_autoptr(GString) out = NULL;

  g_return_val_if_fail (text != NULL, NULL);

  out = g_string_sized_new (strlen (text));
  for (const char *p = text; *p != '\0'; p++)
    {
      int hi, lo;

      if ((guchar) *p < 0x20 || *p == 0x7f)
        goto malformed;
      if (*p != '\\')
        {
          g_string_append_c (out, *p);
          continue;
        }
      switch (*++p)
        {
        case '\\': g_string_append_c (out, '\\'); break;
        case 't': g_string_append_c (out, '\t'); break;
        case 'n': g_string_append_c (out, '\n'); break;
        case 'r': g_string_append_c (out, '\r'); break;
        case 'x':
          hi = g_ascii_xdigit_value (p[1]);
          lo = hi >= 0 ? g_ascii_xdigit_value (p[2]) : -1;
          if (lo < 0 || (hi == 0 && lo == 0))
            goto malformed;
          g_string_append_c (out, (char) (hi << 4 | lo));
          p += 2;
          break;
        default:
          goto malformed;
        }
    }
  return g_string_free (g_steal_pointer (&out), FALSE);

malformed:
  g_set_error (error, G_CONVERT_ERROR, G_CONVERT_ERROR_ILLEGAL_SEQUENCE,
               "Not an escaped name: “%s”", text);
  return NULL;
}
