/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-io-smb"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "cs-io-smb-lock-private.h"

/*
 * A partial's lock on a share. libsmbclient 4.17's public API has no lock: no smbc_lock or byte-range
 * call, and smbc_open takes no share mode, so an open file cannot be held
 * against another client. The lock is therefore a file, @name, created with
 * O_EXCL (an exclusive create on the server: of two clients, one wins),
 * holding who took it: host name, boot id, PID namespace, PID and the
 * process's start time. unlock removes it. A holder killed with SIGKILL
 * cannot, so a lock is stale, and taken over, when it names this host,
 * boot and PID namespace and no process of that PID and start time runs.
 * A lock of another host, boot or namespace is never judged from here: it
 * is held, and that file is copied whole, until its own host's next run
 * takes it over, or someone removes it. One whose text is not a lock's
 * (its holder was killed between the create and the write) is held for
 * STALE_UNREADABLE_SEC after its last change, then stale. Taking a stale
 * lock over (read, judge, remove) is serialised among this host's
 * processes by flock(2) on a file in the user's runtime folder, so two of
 * them cannot both remove it and each create their own. The lock is made
 * of the backend's own calls, through the table it is given.
 */

#define LOCK_MAGIC "copyscope-lock 1\n"
#define STALE_UNREADABLE_SEC (10 * 60)

static char *
read_small (const char *path)
{
  char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return g_strdup ("");
  g_strstrip (text);
  return text;
}

/* The field after the command's closing parenthesis: field 22, starttime. */
static char *
start_time_of (const char *pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%s/stat", pid);
  g_autofree char *stat = NULL;
  g_auto(GStrv) fields = NULL;
  const char *after;

  if (!g_file_get_contents (path, &stat, NULL, NULL) || (after = strrchr (stat, ')')) == NULL)
    return NULL;
  fields = g_strsplit (after + 2, " ", 0);
  return g_strv_length (fields) > 19 ? g_strdup (fields[19]) : NULL;
}

/* "host H\nboot B\npidns N\n": the part of a holder's identity that says
 * whether this process can judge it. */
static char *
lock_place (void)
{
  g_autofree char *boot = read_small ("/proc/sys/kernel/random/boot_id");
  char ns[64] = "";
  ssize_t n = readlink ("/proc/self/ns/pid", ns, sizeof ns - 1);

  ns[MAX (n, 0)] = '\0';
  return g_strdup_printf ("host %s\nboot %s\npidns %s\n", g_get_host_name (), boot, ns);
}

static char *
lock_text (void)
{
  g_autofree char *place = lock_place ();
  g_autofree char *pid = g_strdup_printf ("%d", (int) getpid ());
  g_autofree char *start = start_time_of (pid);

  return g_strdup_printf (LOCK_MAGIC "%spid %s\nstart %s\n", place, pid, start != NULL ? start : "?");
}

/* Whether the lock @text, last changed at @mtime, is stale (see above). */
static gboolean
lock_is_stale (const char *text,
               time_t      mtime)
{
  g_autofree char *place = lock_place ();
  g_auto(GStrv) lines = NULL;
  g_autofree char *start = NULL;
  const char *pid = NULL, *their_start = NULL;

  if (!g_str_has_prefix (text, LOCK_MAGIC) || !g_str_has_prefix (text + strlen (LOCK_MAGIC), place))
    {
      /* Another place's lock, or no lock's text at all. */
      if (g_str_has_prefix (text, LOCK_MAGIC) && strstr (text, "\nstart ") != NULL)
        return FALSE;
      return time (NULL) - mtime > STALE_UNREADABLE_SEC;
    }
  lines = g_strsplit (text + strlen (LOCK_MAGIC) + strlen (place), "\n", 0);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "pid "))
      pid = lines[i] + 4;
    else if (g_str_has_prefix (lines[i], "start "))
      their_start = lines[i] + 6;
  if (pid == NULL || their_start == NULL || *pid == '\0' || strspn (pid, "0123456789") != strlen (pid))
    return time (NULL) - mtime > STALE_UNREADABLE_SEC;
  start = start_time_of (pid);
  return start == NULL || g_strcmp0 (start, their_start) != 0;
}

/* The lock's text and time, or FALSE with errno (ENOENT: gone meanwhile). */
static gboolean
read_lock (const CsIoTable *t,
           int              dirfd,
           const char      *name,
           char           **out_text,
           time_t          *out_mtime)
{
  char buf[1024];
  struct stat st;
  ssize_t n;
  int fd = t->openat (dirfd, name, O_RDONLY, 0), code;

  if (fd < 0)
    return FALSE;
  n = t->pread (fd, buf, sizeof buf - 1, 0);
  code = errno;
  if (n >= 0 && t->fstat (fd, &st) != 0)
    {
      code = errno;
      n = -1;
    }
  t->close (fd);
  if (n < 0)
    {
      errno = code;
      return FALSE;
    }
  buf[n] = '\0';
  *out_text = g_strdup (buf);
  *out_mtime = st.st_mtime;
  return TRUE;
}

/* Removes the lock if it still says @stale_text; with the host's takeover
 * lock held. */
static void
take_over (const CsIoTable *t,
           int              dirfd,
           const char      *name,
           const char      *stale_text)
{
  g_autofree char *path = g_build_filename (g_get_user_runtime_dir (), "copyscope-smb-lock-takeover", NULL);
  g_autofree char *text = NULL;
  time_t mtime;
  int local = open (path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

  if (local < 0 || flock (local, LOCK_EX) != 0)
    {
      if (local >= 0)
        close (local);
      return;
    }
  if (read_lock (t, dirfd, name, &text, &mtime) && strcmp (text, stale_text) == 0)
    t->unlinkat (dirfd, name, 0);
  close (local);
}

int
_cs_io_smb_lock (const CsIoTable *t, int fd, int dirfd, const char *name)
{
  g_autofree char *mine = lock_text ();

  /* Twice: a stale lock taken over leaves the name free for one create. */
  for (int attempt = 0; attempt < 2; attempt++)
    {
      g_autofree char *text = NULL;
      time_t mtime;
      int lock_fd = t->openat (dirfd, name, O_WRONLY | O_CREAT | O_EXCL, 0600);

      if (lock_fd >= 0)
        {
          ssize_t n = t->pwrite (lock_fd, mine, strlen (mine), 0);
          int code = errno;

          if (t->close (lock_fd) != 0 && n == (ssize_t) strlen (mine))
            {
              code = errno;
              n = -1;
            }
          if (n == (ssize_t) strlen (mine))
            return 1;
          t->unlinkat (dirfd, name, 0);
          errno = code != 0 ? code : EIO;
          return -1;
        }
      if (errno != EEXIST)
        return -1;
      if (!read_lock (t, dirfd, name, &text, &mtime))
        {
          if (errno == ENOENT)
            continue;
          return -1;
        }
      if (!lock_is_stale (text, mtime))
        break;
      take_over (t, dirfd, name, text);
    }
  errno = EBUSY;
  return -1;
}

int
_cs_io_smb_unlock (const CsIoTable *t, int fd, int dirfd, const char *name)
{
  return t->unlinkat (dirfd, name, 0);
}
