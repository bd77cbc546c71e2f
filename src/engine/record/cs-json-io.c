/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-json"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "cs-json-io.h"

G_GNUC_PRINTF (3, 4)
static gboolean
fail (GError    **error,
      GIOErrorEnum code,
      const char  *format,
      ...)
{
  va_list args;

  va_start (args, format);
  g_propagate_error (error, g_error_new_valist (G_IO_ERROR, code, format, args));
  va_end (args);

  return FALSE;
}

static gboolean
fail_at (GError    **error,
         const char *what,
         gsize       offset)
{
  return fail (error, G_IO_ERROR_INVALID_DATA, "not valid JSON (%s at byte %" G_GSIZE_FORMAT ")",
               what, offset);
}

/* @i at the opening quote; moves past the closing one. */
static gboolean
skip_string (const char  *data,
             gsize        len,
             gsize       *i,
             GError     **error)
{
  gsize start = *i;

  for (gsize p = start + 1; p < len; p++)
    {
      guchar c = (guchar) data[p];

      if (c == '"')
        {
          *i = p + 1;
          return TRUE;
        }
      if (c < 0x20)
        return fail_at (error, "a control character in a string", p);
      if (c != '\\')
        continue;
      if (++p >= len)
        break;
      if (data[p] == 'u')
        {
          if (p + 4 >= len || !g_ascii_isxdigit (data[p + 1]) || !g_ascii_isxdigit (data[p + 2])
              || !g_ascii_isxdigit (data[p + 3]) || !g_ascii_isxdigit (data[p + 4]))
            return fail_at (error, "a bad \\u escape", p - 1);
          /* json-glib would cut the string there; no string of ours holds a NUL. */
          if (strncmp (data + p + 1, "0000", 4) == 0)
            return fail_at (error, "a NUL in a string", p - 1);
          p += 4;
        }
      else if (strchr ("\"\\/bfnrt", data[p]) == NULL || data[p] == '\0')
        return fail_at (error, "a bad escape", p - 1);
    }

  return fail_at (error, "a string without its end", start);
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? ; an integer must fit in 64
 * bits, which json-glib does not check. */
static gboolean
skip_number (const char  *data,
             gsize        len,
             gsize       *i,
             GError     **error)
{
  gsize start = *i, p = start;
  gboolean integer = TRUE;

  if (p < len && data[p] == '-')
    p++;
  if (p < len && data[p] == '0')
    p++;
  else if (p < len && data[p] >= '1' && data[p] <= '9')
    while (p < len && g_ascii_isdigit (data[p]))
      p++;
  else
    return fail_at (error, "a bad number", start);
  if (p < len && data[p] == '.')
    {
      integer = FALSE;
      if (++p >= len || !g_ascii_isdigit (data[p]))
        return fail_at (error, "a bad number", start);
      while (p < len && g_ascii_isdigit (data[p]))
        p++;
    }
  if (p < len && (data[p] == 'e' || data[p] == 'E'))
    {
      integer = FALSE;
      if (++p < len && (data[p] == '+' || data[p] == '-'))
        p++;
      if (p >= len || !g_ascii_isdigit (data[p]))
        return fail_at (error, "a bad number", start);
      while (p < len && g_ascii_isdigit (data[p]))
        p++;
    }
  if (integer)
    {
      /* The text is NUL-terminated, and the number ends at p. */
      errno = 0;
      g_ascii_strtoll (data + start, NULL, 10);
      if (errno == ERANGE)
        return fail_at (error, "an integer too large for 64 bits", start);
    }

  *i = p;
  return TRUE;
}

/*
 * One pass over the text before the parser sees it: the tokens of RFC 8259
 * and nothing else, one value, a bound on the nesting (json-glib's parser
 * would follow it until the stack runs out) and on the number of values,
 * counted as openings and commas (so a small file cannot make the tree
 * builder allocate gigabytes). The grammar is left to json-glib.
 */
static gboolean
check_text (const char          *data,
            gsize                len,
            const CsJsonLimits  *limits,
            GError             **error)
{
  guint64 values = 0;
  guint depth = 0;
  gboolean started = FALSE;
  gsize i = 0;

  if (!g_utf8_validate_len (data, len, NULL))
    return fail (error, G_IO_ERROR_INVALID_DATA, "not valid JSON (not UTF-8)");

  while (i < len)
    {
      char c = data[i];

      if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
        {
          i++;
          continue;
        }
      if (started && depth == 0)
        return fail_at (error, "text after the value", i);
      started = TRUE;

      switch (c)
        {
        case '{':
        case '[':
          if (++depth > limits->max_depth)
            return fail (error, G_IO_ERROR_INVALID_DATA, "nested more than %u levels deep",
                         limits->max_depth);
          G_GNUC_FALLTHROUGH;
        case ',':
          if (++values > limits->max_values)
            return fail (error, G_IO_ERROR_MESSAGE_TOO_LARGE,
                         "The file holds more than %" G_GUINT64_FORMAT " values", limits->max_values);
          i++;
          break;
        case '}':
        case ']':
          if (depth == 0)
            return fail_at (error, "a closing bracket without its opening", i);
          depth--;
          i++;
          break;
        case ':':
          i++;
          break;
        case '"':
          if (!skip_string (data, len, &i, error))
            return FALSE;
          break;
        case '-':
        case '0': case '1': case '2': case '3': case '4':
        case '5': case '6': case '7': case '8': case '9':
          if (!skip_number (data, len, &i, error))
            return FALSE;
          break;
        default:
          {
            static const char *const literals[] = { "true", "false", "null" };
            gsize n = 0;

            for (guint k = 0; k < G_N_ELEMENTS (literals) && n == 0; k++)
              if (strncmp (data + i, literals[k], strlen (literals[k])) == 0)
                n = strlen (literals[k]);
            if (n == 0 || g_ascii_isalnum (data[i + n]) || data[i + n] == '_')
              return fail_at (error, "an unexpected character", i);
            i += n;
          }
          break;
        }
    }

  if (!started)
    return fail (error, G_IO_ERROR_INVALID_DATA, "not valid JSON (no value)");
  return TRUE;
}

/* NUL-terminated. The file may grow after fstat: reads at most one byte past
 * the limit. */
static char *
read_bounded (const char          *path,
              const CsJsonLimits  *limits,
              gsize               *out_len,
              GError             **error)
{
  g_autofree char *data = NULL;
  struct stat st;
  gsize len = 0;
  gsize cap;
  int fd;

  /* O_NONBLOCK: a FIFO named like a record must not hang the caller. */
  fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0);
  if (fd < 0)
    {
      int saved = errno;

      g_set_error_literal (error, G_FILE_ERROR, g_file_error_from_errno (saved), g_strerror (saved));
      return NULL;
    }

  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      fail (error, G_IO_ERROR_NOT_REGULAR_FILE, "Not a regular file");
      return NULL;
    }

  if ((guint64) st.st_size > limits->max_size)
    {
      close (fd);
      fail (error, G_IO_ERROR_MESSAGE_TOO_LARGE,
            "The file is too large for a %s (%" G_GINT64_FORMAT " bytes; the limit is %"
            G_GSIZE_FORMAT " MiB)", limits->what, (gint64) st.st_size, limits->max_size / (1024 * 1024));
      return NULL;
    }

  cap = (gsize) st.st_size + 1;
  data = g_malloc (cap + 1);
  for (;;)
    {
      gssize n;

      if (len == cap)
        {
          if (cap > limits->max_size)
            {
              close (fd);
              fail (error, G_IO_ERROR_MESSAGE_TOO_LARGE,
                    "The file is too large for a %s (the limit is %" G_GSIZE_FORMAT " MiB)",
                    limits->what, limits->max_size / (1024 * 1024));
              return NULL;
            }
          cap = MIN (cap * 2, limits->max_size + 1);
          data = g_realloc (data, cap + 1);
        }

      n = read (fd, data + len, cap - len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;

          close (fd);
          g_set_error_literal (error, G_FILE_ERROR, g_file_error_from_errno (saved), g_strerror (saved));
          return NULL;
        }
      if (n == 0)
        break;
      len += (gsize) n;
    }
  close (fd);

  data[len] = '\0';
  *out_len = len;
  return g_steal_pointer (&data);
}

/* The parser quotes the offending input, which may hold control characters
 * or a megabyte of text; errors must stay one short line. */
static char *
one_line (const char *message)
{
  g_autofree char *valid = g_utf8_make_valid (message, -1);
  GString *out = g_string_new (NULL);
  guint n = 0;

  for (const char *p = valid; *p != '\0' && n < 160; p = g_utf8_next_char (p), n++)
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_iscntrl (c))
        g_string_append_c (out, ' ');
      else
        g_string_append_unichar (out, c);
    }
  if (n == 160 && *g_utf8_offset_to_pointer (valid, n) != '\0')
    g_string_append (out, "…");

  return g_string_free (out, FALSE);
}

static JsonNode *
parse (const char  *data,
       gsize        len,
       GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GError) local_error = NULL;

  if (!json_parser_load_from_data (parser, data, (gssize) len, &local_error))
    {
      g_autofree char *reason = one_line (local_error->message);

      fail (error, G_IO_ERROR_INVALID_DATA, "not valid JSON (%s)", reason);
      return NULL;
    }

  return json_node_ref (json_parser_get_root (parser));
}

JsonNode *
cs_json_load_file (const char          *path,
                   const CsJsonLimits  *limits,
                   GError             **error)
{
  g_autofree char *data = NULL;
  gsize len = 0;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (limits != NULL && limits->what != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  data = read_bounded (path, limits, &len, error);
  if (data == NULL)
    return NULL;
  if (len == 0)
    {
      fail (error, G_IO_ERROR_INVALID_DATA, "the file is empty");
      return NULL;
    }
  if (!check_text (data, len, limits, error))
    return NULL;

  return parse (data, len, error);
}

/* Past the value at @i, in text check_text () passed: brackets balanced,
 * strings whole. */
static gsize
value_end (const char *data,
           gsize       len,
           gsize       i)
{
  guint depth = 0;

  for (; i < len; i++)
    {
      char c = data[i];

      if (c == '"')
        {
          for (i++; i < len && data[i] != '"'; i++)
            if (data[i] == '\\')
              i++;
          if (depth == 0)
            return i + 1;
        }
      else if (c == '{' || c == '[')
        depth++;
      else if (c == '}' || c == ']')
        {
          if (depth == 0)
            return i;
          if (--depth == 0)
            return i + 1;
        }
      else if (depth == 0 && (c == ',' || c == ' ' || c == '\n' || c == '\r' || c == '\t'))
        return i;
    }

  return len;
}

/* Where the value of @member of the top-level object starts and ends; FALSE
 * when it is not there. */
static gboolean
find_member (const char *data,
             gsize       len,
             const char *member,
             gsize      *out_start,
             gsize      *out_end)
{
  g_autofree char *quoted = g_strdup_printf ("\"%s\"", member);
  gsize quoted_len = strlen (quoted);
  guint depth = 0;
  gboolean found = FALSE;

  for (gsize i = 0; i < len; i++)
    {
      char c = data[i];

      if (c == '{' || c == '[')
        depth++;
      else if (c == '}' || c == ']')
        depth--;
      else if (c == '"')
        {
          gsize start = i, j;

          i = value_end (data, len, i) - 1;
          if (depth != 1 || i + 1 - start != quoted_len || memcmp (data + start, quoted, quoted_len) != 0)
            continue;
          /* A key when a colon follows; the last one counts, as for json-glib. */
          for (j = i + 1; j < len && strchr (" \t\r\n", data[j]) != NULL; j++)
            ;
          if (j >= len || data[j] != ':')
            continue;
          for (j++; j < len && strchr (" \t\r\n", data[j]) != NULL; j++)
            ;
          *out_start = j;
          *out_end = value_end (data, len, j);
          found = TRUE;
          i = *out_end - 1;
          /* The value is skipped whole: its brackets do not count. */
        }
    }

  return found;
}

JsonNode *
cs_json_load_file_apart (const char          *path,
                         const CsJsonLimits  *limits,
                         const char          *member,
                         GBytes             **out_member,
                         GError             **error)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GString) rest = NULL;
  char *data;
  gsize len = 0, start, end;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (limits != NULL && limits->what != NULL, NULL);
  g_return_val_if_fail (member != NULL && out_member != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  *out_member = NULL;
  data = read_bounded (path, limits, &len, error);
  if (data == NULL)
    return NULL;
  bytes = g_bytes_new_take (data, len + 1);
  if (len == 0)
    {
      fail (error, G_IO_ERROR_INVALID_DATA, "the file is empty");
      return NULL;
    }
  if (!check_text (data, len, limits, error))
    return NULL;
  if (!find_member (data, len, member, &start, &end))
    return parse (data, len, error);

  rest = g_string_sized_new (len - (end - start) + 3);
  g_string_append_len (rest, data, (gssize) start);
  g_string_append (rest, "{}");
  g_string_append_len (rest, data + end, (gssize) (len - end));
  *out_member = g_bytes_new_from_bytes (bytes, start, end - start);

  return parse (rest->str, rest->len, error);
}

/* Outside strings, the only letters in generated JSON are in true, false,
 * null and number exponents; "e" followed by digits and ".0" is the
 * generator's broken double. */
static void
fix_exponents (char *text)
{
  gboolean in_string = FALSE;
  char *out = text;

  for (const char *p = text; *p != '\0'; p++)
    {
      *out++ = *p;

      if (in_string)
        {
          if (*p == '\\' && p[1] != '\0')
            *out++ = *++p;
          else if (*p == '"')
            in_string = FALSE;
          continue;
        }

      if (*p == '"')
        {
          in_string = TRUE;
        }
      else if ((*p == 'e' || *p == 'E') && p > text && g_ascii_isdigit (p[-1]))
        {
          const char *q = p + 1;

          if (*q == '+' || *q == '-')
            q++;
          while (g_ascii_isdigit (*q))
            q++;
          if (q[0] == '.' && q[1] == '0' && !g_ascii_isdigit (q[2]))
            {
              memmove (out, p + 1, (gsize) (q - p - 1));
              out += q - p - 1;
              p = q + 1;
            }
        }
    }
  *out = '\0';
}

char *
cs_json_to_string (JsonNode *node,
                   gboolean  pretty)
{
  g_autoptr(JsonGenerator) generator = NULL;
  char *text;

  g_return_val_if_fail (node != NULL, NULL);

  generator = json_generator_new ();
  json_generator_set_pretty (generator, pretty);
  json_generator_set_indent (generator, 2);
  json_generator_set_root (generator, node);
  text = json_generator_to_data (generator, NULL);
  fix_exponents (text);

  return text;
}
