/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-log"

#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cs-log.h"
#include "cs-log-private.h"
#include "cs-tsan-private.h"

#define FLUSH_BYTES     (64 * 1024)
#define FLUSH_AFTER_US  (G_USEC_PER_SEC / 5)

struct _CsLog {
  int      fd;
  GMutex   lock;
  GString *pending;
  gint64   flushed;       /* monotonic µs of the last write */
  gboolean broken;        /* a write failed: said once, then given up */
};

static void
append_escaped (GString    *out,
                const char *bytes)
{
  const char *p = bytes;
  const char *end = bytes + strlen (bytes);

  while (p < end)
    {
      guchar c = (guchar) *p;

      if (c == '\\')
        g_string_append (out, "\\\\");
      else if (c == '\t')
        g_string_append (out, "\\t");
      else if (c == '\n')
        g_string_append (out, "\\n");
      else if (c == '\r')
        g_string_append (out, "\\r");
      else if (c < 0x20 || c == 0x7f)
        g_string_append_printf (out, "\\x%02x", c);
      else if (c < 0x80)
        g_string_append_c (out, (char) c);
      else
        {
          /* A whole valid character as it is; a stray byte escaped. */
          if (g_utf8_get_char_validated (p, end - p) < (gunichar) -2)
            {
              const char *next = g_utf8_next_char (p);

              g_string_append_len (out, p, next - p);
              p = next;
              continue;
            }
          g_string_append_printf (out, "\\x%02x", c);
        }
      p++;
    }
}

char *
cs_log_escape (const char *bytes)
{
  GString *out;

  g_return_val_if_fail (bytes != NULL, NULL);

  out = g_string_sized_new (strlen (bytes) + 8);
  append_escaped (out, bytes);
  return g_string_free (out, FALSE);
}

char *
cs_log_unescape (const char  *text,
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
               "Not an escaped name from the per-file log: “%s”", text);
  return NULL;
}

CsLog *
_cs_log_new (int fd)
{
  CsLog *log = g_new0 (CsLog, 1);

  log->fd = fd;
  g_mutex_init (&log->lock);
  log->pending = g_string_sized_new (FLUSH_BYTES + 4096);
  log->flushed = g_get_monotonic_time ();
  return log;
}

/* lock held */
static gboolean
flush_locked (CsLog *log)
{
  gsize done = 0;

  while (done < log->pending->len && !log->broken)
    {
      ssize_t n = write (log->fd, log->pending->str + done, log->pending->len - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          int saved = n < 0 ? errno : EIO;

          g_warning ("The per-file log cannot be written: %s", g_strerror (saved));
          log->broken = TRUE;
          errno = saved;
          break;
        }
      done += (gsize) n;
    }
  g_string_truncate (log->pending, 0);
  log->flushed = g_get_monotonic_time ();
  return !log->broken;
}

void
_cs_log_item (CsLog      *log,
              const char *action,
              guint64     bytes,
              const char *path,
              gboolean    folder,
              const char *why)
{
  gint64 now;

  if (log == NULL)
    return;

  _cs_mutex_lock (&log->lock);
  g_string_append_printf (log->pending, "%s\t%" G_GUINT64_FORMAT "\t", action, bytes);
  append_escaped (log->pending, path);
  if (folder && (log->pending->len == 0 || log->pending->str[log->pending->len - 1] != '/'))
    g_string_append_c (log->pending, '/');
  if (why != NULL)
    {
      g_string_append_c (log->pending, '\t');
      append_escaped (log->pending, why);
    }
  g_string_append_c (log->pending, '\n');
  now = g_get_monotonic_time ();
  if (log->pending->len >= FLUSH_BYTES || now - log->flushed >= FLUSH_AFTER_US)
    flush_locked (log);
  _cs_mutex_unlock (&log->lock);
}

gboolean
_cs_log_flush (CsLog *log)
{
  g_autoptr(CsMutexLocker) locker = NULL;

  if (log == NULL)
    return TRUE;
  locker = _cs_mutex_locker_new (&log->lock);
  return flush_locked (log);
}

void
_cs_log_free (CsLog *log)
{
  if (log == NULL)
    return;
  _cs_log_flush (log);
  g_string_free (log->pending, TRUE);
  g_mutex_clear (&log->lock);
  g_free (log);
}
