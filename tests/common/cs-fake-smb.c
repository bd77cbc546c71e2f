/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-fake-smb"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "cs-fake-smb.h"
#include "cs-io-private.h"
#include "cs-smb-credentials-private.h"

static GMutex lock;
static char *fake_folder;
static char *fake_user;
static char *fake_password;
static guint refusals;
static char *last_user;
static CsIoTable fake_table;

/* The local path of an smb:// location on the fake server, or NULL with
 * errno set: EACCES for a login the share refuses, ENOENT for another
 * share or server. Every part is unescaped, as libsmbclient does. */
static char *
local_path (const char *location)
{
  g_autofree char *userinfo = NULL;
  g_autofree char *host = NULL;
  g_autofree char *path = NULL;
  g_auto(GStrv) segments = NULL;
  g_autoptr(GString) local = NULL;
  char workgroup[256] = "";
  char user[256] = "";
  char password[256] = "";
  gboolean share_seen = FALSE;
  gboolean allowed;

  if (!g_uri_split (location, G_URI_FLAGS_NON_DNS | G_URI_FLAGS_ENCODED, NULL, &userinfo, &host,
                    NULL, &path, NULL, NULL, NULL)
      || g_strcmp0 (host, CS_FAKE_SMB_SERVER) != 0)
    {
      errno = ENOENT;
      return NULL;
    }

  /* The user of the URL is the hint libsmbclient hands its callback; a
   * URL with a user and a password logs in with them, the callback not
   * asked (libsmbclient's SMBC_find_server ()). */
  if (userinfo != NULL)
    {
      char *colon = strchr (userinfo, ':');
      g_autofree char *plain = NULL;
      const char *name;

      if (colon != NULL)
        {
          g_autofree char *given = g_uri_unescape_string (colon + 1, NULL);

          *colon = '\0';
          g_strlcpy (password, given != NULL ? given : colon + 1, sizeof password);
          if (given != NULL)
            explicit_bzero (given, strlen (given));
          explicit_bzero (colon + 1, strlen (colon + 1));
        }
      plain = g_uri_unescape_string (userinfo, NULL);
      name = strchr (plain, ';') != NULL ? strchr (plain, ';') + 1 : plain;
      g_strlcpy (user, name, sizeof user);
    }
  if (user[0] == '\0' || password[0] == '\0')
    _cs_smb_credentials_fill (host, workgroup, sizeof workgroup, user, sizeof user, password,
                              sizeof password);

  g_mutex_lock (&lock);
  g_free (last_user);
  last_user = g_strdup (user);
  allowed = g_strcmp0 (password, fake_password) == 0
            && (fake_user == NULL || g_strcmp0 (user, fake_user) == 0);
  if (!allowed)
    refusals++;
  local = g_string_new (fake_folder);
  g_mutex_unlock (&lock);
  explicit_bzero (password, sizeof password);
  if (!allowed)
    {
      errno = EACCES;
      return NULL;
    }

  segments = g_strsplit (path, "/", -1);
  for (guint i = 0; segments[i] != NULL; i++)
    {
      g_autofree char *name = g_uri_unescape_string (segments[i], "/");

      if (segments[i][0] == '\0' || name == NULL)
        continue;
      if (!share_seen)
        {
          share_seen = TRUE;
          if (strcmp (name, CS_FAKE_SMB_SHARE) != 0)
            {
              errno = ENOENT;
              return NULL;
            }
          continue;
        }
      g_string_append_c (local, '/');
      g_string_append (local, name);
    }
  if (!share_seen)
    {
      errno = ENOENT;
      return NULL;
    }
  return g_string_free (g_steal_pointer (&local), FALSE);
}

/* Each call that takes a location: the location's path on the local disk,
 * the rest to the POSIX backend. */
#define AT_LOCATION(dirfd, path, local)                                    \
  g_autofree char *local = NULL;                                           \
  if ((dirfd) == CS_IO_AT_LOCATION && g_str_has_prefix ((path), "smb://")) \
    {                                                                      \
      if ((local = local_path (path)) == NULL)                             \
        return -1;                                                         \
      (path) = local;                                                      \
    }

static char *entry_ignoring_case (int dirfd, const char *path);
static void count_folder_read (void);

static int
fake_openat (int dirfd, const char *path, int flags, mode_t mode)
{
  g_autofree char *other = NULL;
  int r;

  AT_LOCATION (dirfd, path, local);
  r = _cs_io_get_default ()->openat (dirfd, path, flags, mode);
  if (r < 0 && errno == ENOENT && !(flags & O_CREAT) && (other = entry_ignoring_case (dirfd, path)) != NULL)
    r = _cs_io_get_default ()->openat (dirfd, other, flags, mode);
  /* A folder opened as a file: libsmbclient's open fails on it and opens
   * it as a folder to list (smbc_opendir reads every name at once). */
  if (r >= 0 && !(flags & O_DIRECTORY))
    {
      struct stat st;

      if (_cs_io_get_default ()->fstat (r, &st) == 0 && S_ISDIR (st.st_mode))
        count_folder_read ();
    }
  return r;
}

static int
fake_statx (int dirfd, const char *path, int flags, unsigned int mask, struct statx *stx)
{
  AT_LOCATION (dirfd, path, local);
  return _cs_io_get_default ()->statx (dirfd, path, flags, mask, stx);
}

/* What the share's listings and stats did (cs_fake_smb_io), and the
 * switches a test sets. */
static CsFakeSmbIo io;
static GPtrArray *folder_times;
static gboolean no_listing;
static guint write_delay_ms;
static gboolean ignore_case;
static CsFakeSmbListed listed_func;
static gpointer listed_data;

/* A listing by names (a folder's names all read at once). */
static void
count_folder_read (void)
{
  g_mutex_lock (&lock);
  io.name_reads++;
  g_mutex_unlock (&lock);
}

static void
count_stat (void)
{
  g_mutex_lock (&lock);
  io.stats++;
  g_mutex_unlock (&lock);
}

/* On a share that ignores case: the entry of @dirfd whose name is @path
 * but for case, as Samba answers on a case-insensitive share. Single names
 * only; NULL if none. */
static char *
entry_ignoring_case (int         dirfd,
                     const char *path)
{
  g_autofree char *folded = g_utf8_casefold (path, -1);
  g_autofree guint8 *buf = g_malloc (32 * 1024);
  char *found = NULL;
  ssize_t n;
  int fd;

  if (!ignore_case || dirfd == CS_IO_AT_LOCATION || strchr (path, '/') != NULL)
    return NULL;
  fd = _cs_io_get_default ()->openat (dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
  if (fd < 0)
    return NULL;
  while (found == NULL && (n = _cs_io_get_default ()->getdents (fd, buf, 32 * 1024)) > 0)
    for (ssize_t off = 0; off < n && found == NULL;)
      {
        struct linux_dirent64 *d = (struct linux_dirent64 *) (buf + off);
        g_autofree char *other = g_utf8_casefold (d->d_name, -1);

        off += d->d_reclen;
        if (strcmp (other, folded) == 0)
          found = g_strdup (d->d_name);
      }
  _cs_io_get_default ()->close (fd);
  return found;
}

static int
fake_fstatat (int dirfd, const char *path, struct stat *st, int flags)
{
  g_autofree char *other = NULL;
  int r;

  AT_LOCATION (dirfd, path, local);
  count_stat ();
  r = _cs_io_get_default ()->fstatat (dirfd, path, st, flags);
  if (r != 0 && errno == ENOENT && (other = entry_ignoring_case (dirfd, path)) != NULL)
    r = _cs_io_get_default ()->fstatat (dirfd, other, st, flags);
  return r;
}

/* A listing by names: on a real share the same directory query. */
static ssize_t
fake_getdents (int fd, void *buf, size_t size)
{
  ssize_t n = _cs_io_get_default ()->getdents (fd, buf, size);

  for (ssize_t off = 0; off < n;)
    {
      const struct linux_dirent64 *d = (const struct linux_dirent64 *) ((const guint8 *) buf + off);

      off += d->d_reclen;
      if (strcmp (d->d_name, ".") != 0 && strcmp (d->d_name, "..") != 0)
        {
          g_mutex_lock (&lock);
          io.name_reads++;
          g_mutex_unlock (&lock);
          break;
        }
    }
  return n;
}

/* SMB's directory query: every entry with its attributes, in one listing;
 * then the test's function, if any, may change the folder behind it. */
static int
fake_readdirplus (int fd, GPtrArray *entries)
{
  g_autofree guint8 *buf = g_malloc (32 * 1024);
  CsFakeSmbListed func;
  gpointer data;
  ssize_t n;
  int dup;

  if (no_listing)
    {
      errno = ENOTSUP;
      return -1;
    }
  dup = _cs_io_get_default ()->openat (fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
  if (dup < 0)
    return -1;
  while ((n = _cs_io_get_default ()->getdents (dup, buf, 32 * 1024)) > 0)
    for (ssize_t off = 0; off < n;)
      {
        struct linux_dirent64 *d = (struct linux_dirent64 *) (buf + off);
        struct stat st;

        off += d->d_reclen;
        if (strcmp (d->d_name, ".") == 0 || strcmp (d->d_name, "..") == 0
            || _cs_io_get_default ()->fstatat (dup, d->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
          continue;
        /* A listing numbers files its own way (never compared with a stat's). */
        st.st_ino ^= 0x5a5a5a;
        g_ptr_array_add (entries, _cs_io_listed_new (d->d_name, &st));
      }
  _cs_io_get_default ()->close (dup);
  g_mutex_lock (&lock);
  io.listings++;
  func = listed_func;
  data = listed_data;
  g_mutex_unlock (&lock);
  if (func != NULL)
    {
      char link[64];
      char target[4096];
      ssize_t len;

      g_snprintf (link, sizeof link, "/proc/self/fd/%d", fd);
      len = readlink (link, target, sizeof target - 1);
      if (len > 0)
        {
          target[len] = '\0';
          func (target, data);
        }
    }
  return n < 0 ? -1 : 0;
}

/* The local path @fd was opened at, or NULL. */
static char *
path_of_fd (int fd)
{
  char link[64];
  char target[4096];
  ssize_t len;

  g_snprintf (link, sizeof link, "/proc/self/fd/%d", fd);
  len = readlink (link, target, sizeof target - 1);
  if (len <= 0)
    return NULL;
  target[len] = '\0';
  return g_strdup (target);
}

/* A folder's times set at @path (local): remembered, relative to the share. */
/* Set in a thread once it wrote to a file: the install's number, as GLib
 * may hand a finished job's threads to the next job's pools. */
static GPrivate wrote_files;
static guint installs;

static void
note_folder_times (const char *path)
{
  g_autofree char *rel = NULL;

  g_mutex_lock (&lock);
  if (GPOINTER_TO_UINT (g_private_get (&wrote_files)) == installs)
    io.folder_times_by_writers++;
  if (fake_folder != NULL && g_str_has_prefix (path, fake_folder))
    {
      rel = g_strdup (path + strlen (fake_folder));
      while (rel[0] == '/')
        memmove (rel, rel + 1, strlen (rel));
    }
  if (folder_times == NULL)
    folder_times = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (folder_times, rel == NULL ? g_strdup (path) : rel[0] == '\0' ? g_strdup (".")
                                                                  : g_steal_pointer (&rel));
  g_mutex_unlock (&lock);
}

static int
fake_futimens (int fd, const struct timespec times[2])
{
  struct stat st;

  if (_cs_io_get_default ()->fstat (fd, &st) == 0 && S_ISDIR (st.st_mode))
    {
      g_autofree char *path = path_of_fd (fd);

      if (path != NULL)
        note_folder_times (path);
    }
  return _cs_io_get_default ()->futimens (fd, times);
}

/* A stat of an open handle: of a folder, a stat by name on a real share. */
static int
fake_fstat (int fd, struct stat *st)
{
  int r = _cs_io_get_default ()->fstat (fd, st);

  if (r == 0 && S_ISDIR (st->st_mode))
    {
      g_mutex_lock (&lock);
      io.folder_stats++;
      g_mutex_unlock (&lock);
    }
  return r;
}

static int
fake_mkdirat (int dirfd, const char *path, mode_t mode)
{
  AT_LOCATION (dirfd, path, local);
  return _cs_io_get_default ()->mkdirat (dirfd, path, mode);
}

static int
fake_unlinkat (int dirfd, const char *path, int flags)
{
  AT_LOCATION (dirfd, path, local);
  return _cs_io_get_default ()->unlinkat (dirfd, path, flags);
}

static int
fake_utimensat (int dirfd, const char *path, const struct timespec times[2], int flags)
{
  struct stat st;

  AT_LOCATION (dirfd, path, local);
  if ((path == NULL || path[0] == '\0') && dirfd != CS_IO_AT_LOCATION)
    return fake_futimens (dirfd, times);
  if (_cs_io_get_default ()->fstatat (dirfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR (st.st_mode))
    {
      g_autofree char *base = dirfd == CS_IO_AT_LOCATION || path[0] == '/' ? NULL : path_of_fd (dirfd);
      g_autofree char *full = base != NULL ? g_build_filename (base, path, NULL) : g_strdup (path);

      note_folder_times (full);
    }
  return _cs_io_get_default ()->utimensat (dirfd, path, times, flags);
}

static int
fake_mount_root (int dirfd, const char *path)
{
  AT_LOCATION (dirfd, path, local);
  return _cs_io_get_default ()->mount_root (dirfd, path);
}

/* What moved through the share's reads and writes (cs_fake_smb_io). */
static GPtrArray *big_buffers;

static void
count_call (gboolean    writing,
            const void *buf,
            size_t      count)
{
  g_mutex_lock (&lock);
  if (writing)
    io.writes++;
  else
    io.reads++;
  io.largest = MAX (io.largest, count);
  /* A call above 1 MiB is one of the job's big buffers: each met once. */
  if (count > 1024 * 1024)
    {
      if (big_buffers == NULL)
        big_buffers = g_ptr_array_new ();
      if (!g_ptr_array_find (big_buffers, buf, NULL))
        g_ptr_array_add (big_buffers, (gpointer) buf);
      io.big_buffers = big_buffers->len;
    }
  g_mutex_unlock (&lock);
}

static ssize_t
fake_pread (int fd, void *buf, size_t count, off_t offset)
{
  count_call (FALSE, buf, count);
  return _cs_io_get_default ()->pread (fd, buf, count, offset);
}

static ssize_t
fake_pwrite (int fd, const void *buf, size_t count, off_t offset)
{
  guint delay;

  g_mutex_lock (&lock);
  delay = write_delay_ms;
  g_private_set (&wrote_files, GUINT_TO_POINTER (installs));
  g_mutex_unlock (&lock);
  if (delay > 0)
    g_usleep (delay * G_TIME_SPAN_MILLISECOND);
  count_call (TRUE, buf, count);
  return _cs_io_get_default ()->pwrite (fd, buf, count, offset);
}

/* Counted, for a test to see the job's threads set their connections up
 * before they need them. */
static int
fake_connect (int dirfd, const char *path)
{
  g_mutex_lock (&lock);
  io.connects++;
  g_mutex_unlock (&lock);
  return 0;
}

static char *
fake_describe (const char *location)
{
  return g_strdup ("smb://" CS_FAKE_SMB_SERVER " (a fake server of the tests)");
}

void
cs_fake_smb_install (const char *folder,
                     const char *user,
                     const char *password)
{
  g_mutex_lock (&lock);
  g_free (fake_folder);
  fake_folder = g_strdup (folder);
  g_free (fake_user);
  fake_user = g_strdup (user);
  g_free (fake_password);
  fake_password = g_strdup (password);
  refusals = 0;
  no_listing = FALSE;
  write_delay_ms = 0;
  installs++;
  ignore_case = FALSE;
  listed_func = NULL;
  listed_data = NULL;
  g_clear_pointer (&last_user, g_free);
  memset (&io, 0, sizeof io);
  g_clear_pointer (&big_buffers, g_ptr_array_unref);
  g_clear_pointer (&folder_times, g_ptr_array_unref);
  g_mutex_unlock (&lock);

  if (fake_table.name == NULL)
    {
      fake_table = *_cs_io_get_default ();
      fake_table.name = "fake-smb";
      fake_table.scheme = "smb://";
      fake_table.cannot_flush = TRUE;  /* as the real one: no flush in libsmbclient */
      fake_table.openat = fake_openat;
      fake_table.statx = fake_statx;
      fake_table.fstatat = fake_fstatat;
      fake_table.mkdirat = fake_mkdirat;
      fake_table.unlinkat = fake_unlinkat;
      fake_table.utimensat = fake_utimensat;
      fake_table.mount_root = fake_mount_root;
      fake_table.describe = fake_describe;
      fake_table.connect = fake_connect;
      fake_table.pread = fake_pread;
      fake_table.pwrite = fake_pwrite;
      fake_table.readdirplus = fake_readdirplus;
      fake_table.getdents = fake_getdents;
      fake_table.futimens = fake_futimens;
      fake_table.fstat = fake_fstat;
    }
  /* The last backend registered for a scheme takes its locations. */
  _cs_io_register (&fake_table);
}

guint
cs_fake_smb_refusals (void)
{
  guint n;

  g_mutex_lock (&lock);
  n = refusals;
  g_mutex_unlock (&lock);
  return n;
}

char *
cs_fake_smb_dup_last_user (void)
{
  char *user;

  g_mutex_lock (&lock);
  user = g_strdup (last_user);
  g_mutex_unlock (&lock);
  return user;
}

void
cs_fake_smb_io (CsFakeSmbIo *out)
{
  g_mutex_lock (&lock);
  *out = io;
  g_mutex_unlock (&lock);
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

char *
cs_fake_smb_dup_folder_times (void)
{
  GString *s = g_string_new (NULL);

  g_mutex_lock (&lock);
  if (folder_times != NULL)
    {
      g_ptr_array_sort (folder_times, compare_strings);
      for (guint i = 0; i < folder_times->len; i++)
        g_string_append_printf (s, "%s\n", (const char *) g_ptr_array_index (folder_times, i));
    }
  g_mutex_unlock (&lock);
  return g_string_free (s, FALSE);
}

void
cs_fake_smb_set_listing (gboolean with_stats)
{
  g_mutex_lock (&lock);
  no_listing = !with_stats;
  g_mutex_unlock (&lock);
}

void
cs_fake_smb_set_write_delay (guint ms)
{
  g_mutex_lock (&lock);
  write_delay_ms = ms;
  g_mutex_unlock (&lock);
}

void
cs_fake_smb_set_ignore_case (gboolean ignore)
{
  g_mutex_lock (&lock);
  ignore_case = ignore;
  g_mutex_unlock (&lock);
}

void
cs_fake_smb_on_listed (CsFakeSmbListed func,
                       gpointer        data)
{
  g_mutex_lock (&lock);
  listed_func = func;
  listed_data = data;
  g_mutex_unlock (&lock);
}

void
cs_fake_smb_hide_keyring (const char *runtime)
{
  g_unsetenv ("DBUS_SESSION_BUS_ADDRESS");
  g_setenv ("XDG_RUNTIME_DIR", runtime, TRUE);
}
