/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-log"

#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cs-log.h"
#include "cs-log-private.h"
#include "cs-text.h"
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
  g_autofree char *path_shown = NULL;
  g_autofree char *why_shown = NULL;
  gint64 now;

  if (log == NULL)
    return;

  /* Escaped before the lock, which the other workers wait on. */
  path_shown = cs_text_escape (path, -1, CS_TEXT_ESCAPE_LINE);
  if (why != NULL)
    why_shown = cs_text_escape (why, -1, CS_TEXT_ESCAPE_LINE);

  _cs_mutex_lock (&log->lock);
  g_string_append_printf (log->pending, "%s\t%" G_GUINT64_FORMAT "\t%s", action, bytes, path_shown);
  if (folder && !g_str_has_suffix (path_shown, "/"))
    g_string_append_c (log->pending, '/');
  if (why_shown != NULL)
    g_string_append_printf (log->pending, "\t%s", why_shown);
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
