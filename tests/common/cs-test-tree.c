/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "cs-test-tree.h"

#define TEMP_PREFIX ".copyscope-"
#define TEMP_SUFFIX ".part"
#define CHUNK       (128 * 1024)

/* Reused buffers: tests compare trees from one thread, and an allocation this
 * size per file would be a mapping per file. */
static char buffer_a[CHUNK];
static char buffer_b[CHUNK];

static void
fail (const char *path,
      const char *format,
      ...) G_GNUC_PRINTF (2, 3);

static void
fail (const char *path,
      const char *format,
      ...)
{
  g_autofree char *display = g_filename_display_name (path);
  g_autofree char *reason = NULL;
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  reason = g_strdup_vprintf (format, args);
  va_end (args);

  message = g_strdup_printf ("%s: %s", display, reason);
  g_assertion_message (G_LOG_DOMAIN, __FILE__, __LINE__, G_STRFUNC, message);
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* Relative paths of everything below @root, sorted per folder, parents first. */
static void
collect (const char *root,
         const char *rel,
         GPtrArray  *out)
{
  g_autofree char *path = rel != NULL ? g_build_filename (root, rel, NULL) : g_strdup (root);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  GDir *dir;
  const char *name;

  dir = g_dir_open (path, 0, &error);
  if (dir == NULL)
    {
      fail (path, "cannot list: %s", error->message);
      return;
    }
  while ((name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_dir_close (dir);
  g_ptr_array_sort (names, compare_names);

  for (guint i = 0; i < names->len; i++)
    {
      const char *child = g_ptr_array_index (names, i);
      char *child_rel = rel != NULL ? g_build_filename (rel, child, NULL) : g_strdup (child);
      g_autofree char *child_path = g_build_filename (root, child_rel, NULL);
      struct stat st;

      g_ptr_array_add (out, child_rel);
      if (lstat (child_path, &st) == 0 && S_ISDIR (st.st_mode))
        collect (root, child_rel, out);
    }
}

static GPtrArray *
list_tree (const char *root)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);

  collect (root, NULL, out);
  return out;
}

static const char *
type_name (mode_t mode)
{
  switch (mode & S_IFMT)
    {
    case S_IFREG: return "file";
    case S_IFDIR: return "folder";
    case S_IFLNK: return "symlink";
    case S_IFIFO: return "fifo";
    case S_IFSOCK: return "socket";
    case S_IFCHR: return "character device";
    case S_IFBLK: return "block device";
    default: return "unknown";
    }
}

static char *
read_link (const char *path)
{
  g_autoptr(GError) error = NULL;
  char *target = g_file_read_link (path, &error);

  if (target == NULL)
    fail (path, "cannot read the link: %s", error->message);
  return target;
}

static ssize_t
read_full (int     fd,
           char   *buf,
           size_t  len)
{
  size_t got = 0;

  while (got < len)
    {
      ssize_t n = read (fd, buf + got, len - got);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return -1;
      if (n == 0)
        break;
      got += (size_t) n;
    }
  return (ssize_t) got;
}

static gboolean
same_contents (const char *a,
               const char *b)
{
  char *buf_a = buffer_a;
  char *buf_b = buffer_b;
  gboolean same = FALSE;
  guint64 offset = 0;
  int fd_a, fd_b = -1;

  fd_a = open (a, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd_a < 0)
    {
      fail (a, "cannot open: %s", g_strerror (errno));
      goto out;
    }
  fd_b = open (b, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd_b < 0)
    {
      fail (b, "cannot open: %s", g_strerror (errno));
      goto out;
    }

  for (;;)
    {
      ssize_t n_a = read_full (fd_a, buf_a, CHUNK);
      ssize_t n_b = read_full (fd_b, buf_b, CHUNK);

      if (n_a < 0 || n_b < 0)
        {
          fail (n_a < 0 ? a : b, "read failed: %s", g_strerror (errno));
          goto out;
        }
      if (n_a != n_b)
        {
          fail (b, "differs in length from %s after byte %" G_GUINT64_FORMAT, a, offset);
          goto out;
        }
      if (memcmp (buf_a, buf_b, (size_t) n_a) != 0)
        {
          ssize_t at = 0;

          while (buf_a[at] == buf_b[at])
            at++;
          fail (b, "differs from %s at byte %" G_GUINT64_FORMAT, a, offset + (guint64) at);
          goto out;
        }
      if (n_a < CHUNK)
        break;
      offset += (guint64) n_a;
    }
  same = TRUE;

out:
  if (fd_a >= 0)
    close (fd_a);
  if (fd_b >= 0)
    close (fd_b);
  return same;
}

/* Compares one entry; @check_dir_meta says whether a folder's mode and mtime count. */
static gboolean
compare_entry (const char        *a,
               const char        *b,
               const struct stat *sa,
               const struct stat *sb,
               gboolean           check_dir_meta)
{
  if ((sa->st_mode & S_IFMT) != (sb->st_mode & S_IFMT))
    {
      fail (b, "is a %s, %s is a %s", type_name (sb->st_mode), a, type_name (sa->st_mode));
      return FALSE;
    }
  if (S_ISDIR (sa->st_mode) && !check_dir_meta)
    return TRUE;

  if (!S_ISLNK (sa->st_mode) && (sa->st_mode & 07777) != (sb->st_mode & 07777))
    {
      fail (b, "mode %04o, expected %04o",
            (guint) (sb->st_mode & 07777), (guint) (sa->st_mode & 07777));
      return FALSE;
    }
  if (geteuid () == 0 && (sa->st_uid != sb->st_uid || sa->st_gid != sb->st_gid))
    {
      fail (b, "owner %u:%u, expected %u:%u", (guint) sb->st_uid, (guint) sb->st_gid,
            (guint) sa->st_uid, (guint) sa->st_gid);
      return FALSE;
    }
  if (S_ISREG (sa->st_mode) && sa->st_size != sb->st_size)
    {
      fail (b, "size %" G_GINT64_FORMAT ", expected %" G_GINT64_FORMAT,
            (gint64) sb->st_size, (gint64) sa->st_size);
      return FALSE;
    }
  if (sa->st_mtim.tv_sec != sb->st_mtim.tv_sec || sa->st_mtim.tv_nsec != sb->st_mtim.tv_nsec)
    {
      fail (b, "%s mtime %" G_GINT64_FORMAT ".%09ld, expected %" G_GINT64_FORMAT ".%09ld",
            type_name (sa->st_mode), (gint64) sb->st_mtim.tv_sec, sb->st_mtim.tv_nsec,
            (gint64) sa->st_mtim.tv_sec, sa->st_mtim.tv_nsec);
      return FALSE;
    }
  if (S_ISLNK (sa->st_mode))
    {
      g_autofree char *ta = read_link (a);
      g_autofree char *tb = read_link (b);

      if (ta == NULL || tb == NULL)
        return FALSE;
      if (strcmp (ta, tb) != 0)
        {
          fail (b, "points to “%s”, expected “%s”", tb, ta);
          return FALSE;
        }
    }
  if (S_ISREG (sa->st_mode))
    return same_contents (a, b);

  return TRUE;
}

void
cs_test_tree_assert_equal (const char *a,
                           const char *b)
{
  g_autoptr(GPtrArray) list_a = NULL;
  g_autoptr(GPtrArray) list_b = NULL;
  g_autoptr(GHashTable) names_b = NULL;
  struct stat sa, sb;

  g_return_if_fail (a != NULL && b != NULL);

  if (lstat (a, &sa) != 0)
    {
      fail (a, "missing: %s", g_strerror (errno));
      return;
    }
  if (lstat (b, &sb) != 0)
    {
      fail (b, "missing: %s", g_strerror (errno));
      return;
    }
  if (!compare_entry (a, b, &sa, &sb, TRUE) || !S_ISDIR (sa.st_mode))
    return;

  list_a = list_tree (a);
  list_b = list_tree (b);
  names_b = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint j = 0; j < list_b->len; j++)
    g_hash_table_add (names_b, g_ptr_array_index (list_b, j));

  for (guint i = 0; i < list_a->len; i++)
    {
      const char *rel = g_ptr_array_index (list_a, i);
      g_autofree char *pa = g_build_filename (a, rel, NULL);
      g_autofree char *pb = g_build_filename (b, rel, NULL);

      if (!g_hash_table_remove (names_b, rel))
        {
          fail (pb, "missing from the copy of %s", a);
          return;
        }
      if (lstat (pa, &sa) != 0 || lstat (pb, &sb) != 0)
        {
          fail (pb, "vanished: %s", g_strerror (errno));
          return;
        }
      if (!compare_entry (pa, pb, &sa, &sb, TRUE))
        return;
    }
  for (guint j = 0; j < list_b->len; j++)
    {
      const char *rel = g_ptr_array_index (list_b, j);

      if (g_hash_table_contains (names_b, rel))
        {
          g_autofree char *pb = g_build_filename (b, rel, NULL);

          fail (pb, "exists only in the copy, not in %s", a);
          return;
        }
    }
}

gboolean
cs_test_tree_is_temporary_name (const char *name)
{
  const char *p;

  g_return_val_if_fail (name != NULL, FALSE);

  if (!g_str_has_prefix (name, TEMP_PREFIX))
    return FALSE;
  p = name + strlen (TEMP_PREFIX);
  for (guint i = 0; i < 16; i++)
    if (!g_ascii_isxdigit (p[i]))
      return FALSE;
  p += 16;
  if (*p++ != '-' || !g_ascii_isdigit (*p))
    return FALSE;
  while (g_ascii_isdigit (*p))
    p++;
  if (g_str_has_prefix (p, ".claim-") && strlen (p) == strlen (".claim-") + 16)
    {
      /* A finished temporary about to claim a final name on a share without
       * RENAME_NOREPLACE or links: ".claim-<16 hex of that name>". */
      for (p += strlen (".claim-"); *p != '\0'; p++)
        if (!g_ascii_isxdigit (*p))
          return FALSE;
      return TRUE;
    }
  return strcmp (p, TEMP_SUFFIX) == 0;
}

void
cs_test_tree_assert_partial (const char *source,
                             const char *copy,
                             gboolean    allow_temporaries)
{
  g_autoptr(GPtrArray) list = NULL;
  struct stat ss, sc;

  g_return_if_fail (source != NULL && copy != NULL);

  if (lstat (copy, &sc) != 0)
    return;
  if (lstat (source, &ss) != 0)
    {
      fail (source, "missing: %s", g_strerror (errno));
      return;
    }
  if (!compare_entry (source, copy, &ss, &sc, FALSE) || !S_ISDIR (ss.st_mode))
    return;

  list = list_tree (copy);
  for (guint i = 0; i < list->len; i++)
    {
      const char *rel = g_ptr_array_index (list, i);
      g_autofree char *base = g_path_get_basename (rel);
      g_autofree char *ps = g_build_filename (source, rel, NULL);
      g_autofree char *pc = g_build_filename (copy, rel, NULL);

      if (lstat (pc, &sc) != 0)
        {
          fail (pc, "vanished: %s", g_strerror (errno));
          return;
        }
      if (g_str_has_prefix (base, TEMP_PREFIX) && lstat (ps, &ss) != 0)
        {
          if (!allow_temporaries)
            {
              fail (pc, "a temporary was left behind");
              return;
            }
          if (!cs_test_tree_is_temporary_name (base))
            {
              fail (pc, "a name that looks like ours but is not a temporary of ours");
              return;
            }
          if (!S_ISREG (sc.st_mode) && !S_ISLNK (sc.st_mode))
            {
              fail (pc, "a temporary that is a %s", type_name (sc.st_mode));
              return;
            }
          continue;
        }
      if (lstat (ps, &ss) != 0)
        {
          fail (pc, "is not in the source (%s)", g_strerror (errno));
          return;
        }
      if (!compare_entry (ps, pc, &ss, &sc, FALSE))
        return;
    }
}

typedef struct {
  guint   temporaries;
  guint   files;
  guint   symlinks;
  guint64 bytes;
} Counts;

static Counts
count_tree (const char *dir)
{
  Counts counts = { 0 };
  g_autoptr(GPtrArray) list = NULL;
  struct stat st;

  if (lstat (dir, &st) != 0 || !S_ISDIR (st.st_mode))
    return counts;

  list = list_tree (dir);
  for (guint i = 0; i < list->len; i++)
    {
      const char *rel = g_ptr_array_index (list, i);
      g_autofree char *base = g_path_get_basename (rel);
      g_autofree char *path = g_build_filename (dir, rel, NULL);

      if (g_str_has_prefix (base, TEMP_PREFIX))
        counts.temporaries++;
      if (lstat (path, &st) != 0)
        continue;
      if (S_ISREG (st.st_mode))
        {
          counts.files++;
          counts.bytes += (guint64) st.st_size;
        }
      else if (S_ISLNK (st.st_mode))
        counts.symlinks++;
    }
  return counts;
}

guint
cs_test_tree_find_temporaries (const char *dir)
{
  g_return_val_if_fail (dir != NULL, 0);

  return count_tree (dir).temporaries;
}

guint
cs_test_tree_count_files (const char *dir)
{
  g_return_val_if_fail (dir != NULL, 0);

  return count_tree (dir).files;
}

guint
cs_test_tree_count_symlinks (const char *dir)
{
  g_return_val_if_fail (dir != NULL, 0);

  return count_tree (dir).symlinks;
}

guint64
cs_test_tree_sum_file_sizes (const char *dir)
{
  g_return_val_if_fail (dir != NULL, 0);

  return count_tree (dir).bytes;
}

static char *
hash_file (const char *path)
{
  g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
  guchar *buf = (guchar *) buffer_a;
  ssize_t n;
  int fd;

  fd = open (path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return g_strdup_printf ("unreadable (%s)", g_strerror (errno));
  while ((n = read (fd, buf, CHUNK)) > 0)
    g_checksum_update (checksum, buf, n);
  close (fd);
  if (n < 0)
    return g_strdup_printf ("read error (%s)", g_strerror (errno));
  return g_strdup (g_checksum_get_string (checksum));
}

static char *
describe (const char *path)
{
  struct stat st;
  GString *s = g_string_new (NULL);

  if (lstat (path, &st) != 0)
    {
      g_string_append_printf (s, "missing (%s)", g_strerror (errno));
      return g_string_free (s, FALSE);
    }
  g_string_append_printf (s, "%s mode %04o owner %u:%u mtime %" G_GINT64_FORMAT ".%09ld",
                          type_name (st.st_mode), (guint) (st.st_mode & 07777),
                          (guint) st.st_uid, (guint) st.st_gid,
                          (gint64) st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
  if (S_ISREG (st.st_mode))
    {
      g_autofree char *hash = hash_file (path);

      g_string_append_printf (s, " size %" G_GINT64_FORMAT " sha256 %s", (gint64) st.st_size, hash);
    }
  else if (S_ISLNK (st.st_mode))
    {
      g_autofree char *target = g_file_read_link (path, NULL);

      g_string_append_printf (s, " -> %s", target != NULL ? target : "(unreadable)");
    }
  return g_string_free (s, FALSE);
}

GHashTable *
cs_test_tree_snapshot (const char *dir)
{
  GHashTable *snapshot = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GPtrArray) list = NULL;
  struct stat st;

  g_return_val_if_fail (dir != NULL, NULL);

  g_hash_table_insert (snapshot, g_strdup ("."), describe (dir));
  if (lstat (dir, &st) != 0 || !S_ISDIR (st.st_mode))
    return snapshot;

  list = list_tree (dir);
  for (guint i = 0; i < list->len; i++)
    {
      const char *rel = g_ptr_array_index (list, i);
      g_autofree char *path = g_build_filename (dir, rel, NULL);

      g_hash_table_insert (snapshot, g_strdup (rel), describe (path));
    }
  return snapshot;
}

void
cs_test_tree_assert_snapshot (const char *dir,
                              GHashTable *snapshot)
{
  g_autoptr(GHashTable) now = NULL;
  GHashTableIter iter;
  gpointer key, value;

  g_return_if_fail (dir != NULL && snapshot != NULL);

  now = cs_test_tree_snapshot (dir);
  g_hash_table_iter_init (&iter, snapshot);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const char *then = value;
      const char *current = g_hash_table_lookup (now, key);
      g_autofree char *path = g_build_filename (dir, key, NULL);

      if (current == NULL)
        {
          fail (path, "was removed (it was: %s)", then);
          return;
        }
      if (strcmp (then, current) != 0)
        {
          fail (path, "changed: was %s, now %s", then, current);
          return;
        }
    }
  g_hash_table_iter_init (&iter, now);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (!g_hash_table_contains (snapshot, key))
      {
        g_autofree char *path = g_build_filename (dir, key, NULL);

        fail (path, "was created: %s", (const char *) value);
        return;
      }
}

char *
cs_test_tree_make_tmp (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("copyscope-test-XXXXXX", &error);

  g_assert_no_error (error);
  g_assert_cmpint (g_chmod (dir, 0755), ==, 0);
  return dir;
}

static int
remove_entry (const char        *path,
              const struct stat *st,
              int                flag,
              struct FTW        *ftw)
{
  if (remove (path) != 0 && errno != ENOENT)
    g_printerr ("cannot remove %s: %s\n", path, g_strerror (errno));
  return 0;
}

void
cs_test_tree_remove (const char *path)
{
  struct stat st;

  g_return_if_fail (path != NULL);

  if (lstat (path, &st) != 0)
    return;
  nftw (path, remove_entry, 32, FTW_DEPTH | FTW_PHYS);
}
