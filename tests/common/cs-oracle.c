/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-oracle"

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <xxhash.h>

#include "cs-oracle.h"

#define BLOCK   4096
#define BUFSIZE (1 << 20)

typedef struct {
  mode_t          mode;
  uid_t           uid;
  gid_t           gid;
  off_t           size;
  blkcnt_t        blocks;
  ino_t           ino;
  dev_t           dev;
  dev_t           rdev;       /* devices */
  nlink_t         nlink;
  struct timespec mtime;
  struct timespec ctime;
  guint64         hash;       /* regular files: the non-zero 4 KiB blocks and their offsets */
  char           *target;     /* symlinks */
  char           *xattrs;     /* "name=hash;" sorted, or "" */
  char           *error;      /* why the entry could not be read, or NULL */
} Entry;

typedef struct {
  char       *source;
  char       *copy;
  GHashTable *src;            /* relative path → Entry */
  GHashTable *before;         /* the copy's paths before the run */
  GPtrArray  *never;          /* relative paths */
} Pair;

typedef struct {
  char       *path;
  GHashTable *snapshot;
} Bystander;

struct _CsOracle {
  GPtrArray *pairs;
  GPtrArray *bystanders;
  gboolean   compare_owner;
  gboolean   move;
  guint8    *buffer;
};

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

  message = g_strdup_printf ("oracle: %s: %s", display, reason);
  g_assertion_message (G_LOG_DOMAIN, __FILE__, __LINE__, G_STRFUNC, message);
}

static void
entry_free (gpointer data)
{
  Entry *e = data;

  g_free (e->target);
  g_free (e->xattrs);
  g_free (e->error);
  g_free (e);
}

static gboolean
is_zero (const guint8 *p,
         gsize         len)
{
  for (gsize i = 0; i < len; i++)
    if (p[i] != 0)
      return FALSE;
  return TRUE;
}

/*
 * Hashes what the file reads as, independent of how it is stored: only the data
 * extents are read (a 100 GiB sparse file costs what its data costs), and
 * all-zero blocks are left out, so a hole and written zeros hash alike.
 */
static char *
hash_contents (int      fd,
               off_t    size,
               guint8  *buf,
               guint64 *out)
{
  XXH3_state_t *state = XXH3_createState ();
  off_t pos = 0, next_block = 0;

  XXH3_64bits_reset (state);
  while (pos < size)
    {
      off_t data = lseek (fd, pos, SEEK_DATA);
      off_t hole;

      if (data < 0 && errno == ENXIO)
        break;
      if (data < 0)
        data = pos;     /* no SEEK_DATA here: read everything */
      hole = lseek (fd, data, SEEK_HOLE);
      if (hole < 0 || hole > size)
        hole = size;

      for (off_t at = MAX (data - data % BLOCK, next_block); at < hole;)
        {
          size_t want = (size_t) MIN ((off_t) BUFSIZE, hole - at);
          ssize_t n = pread (fd, buf, want, at);

          if (n < 0 && errno == EINTR)
            continue;
          if (n < 0)
            {
              int saved = errno;
              XXH3_freeState (state);
              return g_strdup_printf ("read error (%s)", g_strerror (saved));
            }
          if (n == 0)
            break;
          for (ssize_t b = 0; b < n; b += BLOCK)
            {
              size_t len = (size_t) MIN ((ssize_t) BLOCK, n - b);
              guint64 offset = GUINT64_TO_LE ((guint64) (at + b));

              if (is_zero (buf + b, len))
                continue;
              XXH3_64bits_update (state, &offset, sizeof offset);
              XXH3_64bits_update (state, buf + b, len);
            }
          at += n;
          next_block = at;
        }
      pos = hole;
    }
  *out = XXH3_64bits_digest (state);
  XXH3_freeState (state);
  return NULL;
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static char *
describe_xattrs (const char *path)
{
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *names = NULL;
  GString *out = g_string_new (NULL);
  ssize_t len = llistxattr (path, NULL, 0);

  if (len <= 0)
    return g_string_free (out, FALSE);
  names = g_malloc (len + 1);
  len = llistxattr (path, names, len);
  if (len < 0)
    {
      g_string_append_printf (out, "(unlistable: %s)", g_strerror (errno));
      return g_string_free (out, FALSE);
    }
  for (ssize_t off = 0; off < len; off += strlen (names + off) + 1)
    {
      const char *name = names + off;
      ssize_t vlen = lgetxattr (path, name, NULL, 0);
      g_autofree char *value = vlen > 0 ? g_malloc (vlen) : NULL;

      if (vlen > 0)
        vlen = lgetxattr (path, name, value, vlen);
      g_ptr_array_add (items, g_strdup_printf ("%s=%016" G_GINT64_MODIFIER "x", name,
                                               vlen >= 0 ? (guint64) XXH3_64bits (value, vlen) : 0));
    }
  g_ptr_array_sort (items, compare_strings);
  for (guint i = 0; i < items->len; i++)
    g_string_append_printf (out, "%s;", (const char *) g_ptr_array_index (items, i));
  return g_string_free (out, FALSE);
}

/* @name in @dirfd; @dirfd may be AT_FDCWD with a whole path. */
static Entry *
describe (int         dirfd,
          const char *name,
          guint8     *buf)
{
  Entry *e = g_new0 (Entry, 1);
  g_autofree char *xpath = NULL;
  struct stat st;

  if (fstatat (dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    {
      e->error = g_strdup_printf ("cannot stat (%s)", g_strerror (errno));
      return e;
    }
  e->mode = st.st_mode;
  e->uid = st.st_uid;
  e->gid = st.st_gid;
  e->size = st.st_size;
  e->blocks = st.st_blocks;
  e->ino = st.st_ino;
  e->dev = st.st_dev;
  e->rdev = st.st_rdev;
  e->nlink = st.st_nlink;
  e->mtime = st.st_mtim;
  e->ctime = st.st_ctim;

  if (S_ISREG (st.st_mode))
    {
      int fd = openat (dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

      if (fd < 0)
        e->error = g_strdup_printf ("cannot open (%s)", g_strerror (errno));
      else
        {
          e->error = hash_contents (fd, st.st_size, buf, &e->hash);
          close (fd);
        }
    }
  else if (S_ISLNK (st.st_mode))
    {
      gsize size = (gsize) MAX (st.st_size + 1, 256);
      char *target = g_malloc (size);
      ssize_t n = readlinkat (dirfd, name, target, size - 1);

      target[MAX (n, 0)] = '\0';
      e->target = target;
      if (n < 0)
        e->error = g_strdup_printf ("cannot read the link (%s)", g_strerror (errno));
    }

  /* Through /proc, so a path of any length names the entry; the last part is
   * not followed. */
  xpath = dirfd == AT_FDCWD ? g_strdup (name) : g_strdup_printf ("/proc/self/fd/%d/%s", dirfd, name);
  e->xattrs = describe_xattrs (xpath);

  return e;
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
entry_to_string (const Entry *e)
{
  GString *s = g_string_new (NULL);

  if (e == NULL)
    return g_strdup ("nothing");
  if (e->error != NULL && e->mode == 0)
    return g_strdup (e->error);
  g_string_append_printf (s, "%s mode %04o owner %u:%u mtime %" G_GINT64_FORMAT ".%09ld",
                          type_name (e->mode), (guint) (e->mode & 07777), (guint) e->uid,
                          (guint) e->gid, (gint64) e->mtime.tv_sec, e->mtime.tv_nsec);
  if (S_ISREG (e->mode))
    g_string_append_printf (s, " size %" G_GINT64_FORMAT " hash %016" G_GINT64_MODIFIER "x",
                            (gint64) e->size, e->hash);
  if (e->target != NULL)
    g_string_append_printf (s, " -> %s", e->target);
  if (e->xattrs != NULL && e->xattrs[0] != '\0')
    g_string_append_printf (s, " xattrs %s", e->xattrs);
  if (e->error != NULL)
    g_string_append_printf (s, " (%s)", e->error);
  return g_string_free (s, FALSE);
}

static void walk (int dirfd, const char *rel, GHashTable *out, guint8 *buf);

static void
add_entry (int         dirfd,
           const char *name,
           const char *rel,
           GHashTable *out,
           guint8     *buf)
{
  Entry *e = describe (dirfd, name, buf);

  g_hash_table_insert (out, g_strdup (rel), e);
  if (S_ISDIR (e->mode))
    {
      int fd = openat (dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

      if (fd < 0)
        {
          g_free (e->error);
          e->error = g_strdup_printf ("cannot list (%s)", g_strerror (errno));
          return;
        }
      walk (fd, rel, out, buf);
    }
}

/* Takes @dirfd. */
static void
walk (int         dirfd,
      const char *rel,
      GHashTable *out,
      guint8     *buf)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  DIR *dir = fdopendir (dirfd);
  struct dirent *d;

  if (dir == NULL)
    {
      close (dirfd);
      return;
    }
  while ((d = readdir (dir)) != NULL)
    if (strcmp (d->d_name, ".") != 0 && strcmp (d->d_name, "..") != 0)
      g_ptr_array_add (names, g_strdup (d->d_name));

  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      g_autofree char *child = strcmp (rel, ".") == 0 ? g_strdup (name) : g_strconcat (rel, "/", name, NULL);

      add_entry (dirfd, name, child, out, buf);
    }
  closedir (dir);
}

/* Everything at and below @path, keyed by relative path ("." is @path); empty
 * when @path does not exist. */
static GHashTable *
snapshot (const char *path,
          guint8     *buf)
{
  GHashTable *out = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, entry_free);
  struct stat st;

  if (lstat (path, &st) != 0)
    return out;
  add_entry (AT_FDCWD, path, ".", out, buf);
  return out;
}

static gboolean
same_time (const struct timespec *a,
           const struct timespec *b)
{
  return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* What a copy must match: everything but identity (inode, ctime) and atime. */
static char *
copy_difference (CsOracle    *oracle,
                 const Entry *s,
                 const Entry *c,
                 gboolean     folder_metadata)
{
  if (s->error != NULL)
    return g_strdup_printf ("the source could not be read: %s", s->error);
  if (c->error != NULL)
    return g_strdup_printf ("could not be read: %s", c->error);
  if ((s->mode & S_IFMT) != (c->mode & S_IFMT))
    return g_strdup_printf ("is a %s where the source has a %s", type_name (c->mode), type_name (s->mode));
  if (S_ISDIR (s->mode) && !folder_metadata)
    return NULL;
  if (!S_ISLNK (s->mode) && (s->mode & 07777) != (c->mode & 07777))
    return g_strdup_printf ("mode %04o, the source has %04o", (guint) (c->mode & 07777), (guint) (s->mode & 07777));
  if (oracle->compare_owner && geteuid () == 0 && (s->uid != c->uid || s->gid != c->gid))
    return g_strdup_printf ("owner %u:%u, the source has %u:%u", (guint) c->uid, (guint) c->gid,
                            (guint) s->uid, (guint) s->gid);
  if (S_ISREG (s->mode) && s->size != c->size)
    return g_strdup_printf ("size %" G_GINT64_FORMAT ", the source has %" G_GINT64_FORMAT,
                            (gint64) c->size, (gint64) s->size);
  if (!same_time (&s->mtime, &c->mtime))
    return g_strdup_printf ("mtime %" G_GINT64_FORMAT ".%09ld, the source has %" G_GINT64_FORMAT ".%09ld",
                            (gint64) c->mtime.tv_sec, c->mtime.tv_nsec,
                            (gint64) s->mtime.tv_sec, s->mtime.tv_nsec);
  if (S_ISREG (s->mode) && s->hash != c->hash)
    return g_strdup ("different contents");
  if (g_strcmp0 (s->target, c->target) != 0)
    return g_strdup_printf ("points to “%s”, the source to “%s”", c->target, s->target);
  if ((S_ISCHR (s->mode) || S_ISBLK (s->mode)) && s->rdev != c->rdev)
    return g_strdup_printf ("device %u:%u, the source is device %u:%u", major (c->rdev),
                            minor (c->rdev), major (s->rdev), minor (s->rdev));
  if (g_strcmp0 (s->xattrs, c->xattrs) != 0)
    return g_strdup_printf ("xattrs “%s”, the source has “%s”", c->xattrs, s->xattrs);
  return NULL;
}

/* Untouched: a copy's match plus the same inode and change time. */
static gboolean
identical (CsOracle    *oracle,
           const Entry *a,
           const Entry *b)
{
  g_autofree char *diff = NULL;

  if (a->error != NULL || b->error != NULL)
    return g_strcmp0 (a->error, b->error) == 0 && a->mode == b->mode;
  diff = copy_difference (oracle, a, b, TRUE);
  return diff == NULL && a->ino == b->ino && a->dev == b->dev && a->uid == b->uid
         && a->gid == b->gid && same_time (&a->ctime, &b->ctime);
}

static gboolean
is_temporary_name (const char *name)
{
  const char *p;

  if (!g_str_has_prefix (name, ".copyscope-"))
    return FALSE;
  p = name + strlen (".copyscope-");
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
  return strcmp (p, ".part") == 0;
}

/* The claim the engine puts on a final name before renaming over it where a
 * share has neither RENAME_NOREPLACE nor hard links: a small file holding
 * "copyscope placeholder <16 hex>\n". Left by a kill, it is ours, like a
 * temporary. */
static gboolean
is_placeholder (const char  *path,
                const Entry *now)
{
  static const char prefix[] = "copyscope placeholder ";
  g_autofree char *contents = NULL;
  gsize len = 0;

  if (!S_ISREG (now->mode) || now->size != (off_t) (strlen (prefix) + 17))
    return FALSE;
  if (!g_file_get_contents (path, &contents, &len, NULL) || len != strlen (prefix) + 17
      || !g_str_has_prefix (contents, prefix) || contents[len - 1] != '\n')
    return FALSE;
  for (gsize i = strlen (prefix); i < len - 1; i++)
    if (!g_ascii_isxdigit (contents[i]))
      return FALSE;
  return TRUE;
}

static char *
full_path (const char *root,
           const char *rel)
{
  return strcmp (rel, ".") == 0 ? g_strdup (root) : g_build_filename (root, rel, NULL);
}

CsOracle *
cs_oracle_new (void)
{
  CsOracle *oracle = g_new0 (CsOracle, 1);

  oracle->pairs = g_ptr_array_new ();
  oracle->bystanders = g_ptr_array_new ();
  oracle->compare_owner = TRUE;
  oracle->buffer = g_malloc (BUFSIZE);
  return oracle;
}

void
cs_oracle_free (CsOracle *oracle)
{
  if (oracle == NULL)
    return;
  for (guint i = 0; i < oracle->pairs->len; i++)
    {
      Pair *p = g_ptr_array_index (oracle->pairs, i);

      g_free (p->source);
      g_free (p->copy);
      g_hash_table_unref (p->src);
      g_hash_table_unref (p->before);
      g_ptr_array_unref (p->never);
      g_free (p);
    }
  for (guint i = 0; i < oracle->bystanders->len; i++)
    {
      Bystander *b = g_ptr_array_index (oracle->bystanders, i);

      g_free (b->path);
      g_hash_table_unref (b->snapshot);
      g_free (b);
    }
  g_ptr_array_unref (oracle->pairs);
  g_ptr_array_unref (oracle->bystanders);
  g_free (oracle->buffer);
  g_free (oracle);
}

void
cs_oracle_add_pair (CsOracle   *oracle,
                    const char *source,
                    const char *copy)
{
  Pair *p = g_new0 (Pair, 1);

  p->source = g_strdup (source);
  p->copy = g_strdup (copy);
  p->src = snapshot (source, oracle->buffer);
  p->before = snapshot (copy, oracle->buffer);
  p->never = g_ptr_array_new_with_free_func (g_free);
  if (g_hash_table_size (p->src) == 0)
    fail (source, "the source does not exist");
  g_ptr_array_add (oracle->pairs, p);
}

void
cs_oracle_add_bystander (CsOracle   *oracle,
                         const char *path)
{
  Bystander *b = g_new0 (Bystander, 1);

  b->path = g_strdup (path);
  b->snapshot = snapshot (path, oracle->buffer);
  g_ptr_array_add (oracle->bystanders, b);
}

void
cs_oracle_never_copied (CsOracle   *oracle,
                        guint       pair,
                        const char *relative)
{
  Pair *p = g_ptr_array_index (oracle->pairs, pair);

  g_ptr_array_add (p->never, g_strdup (relative));
}

void
cs_oracle_set_compare_owner (CsOracle *oracle,
                             gboolean  compare)
{
  oracle->compare_owner = compare;
}

void
cs_oracle_set_move (CsOracle *oracle,
                    gboolean  move)
{
  oracle->move = move;
}

void
cs_oracle_update_source (CsOracle   *oracle,
                         guint       pair,
                         const char *relative)
{
  Pair *p = g_ptr_array_index (oracle->pairs, pair);
  g_autofree char *path = full_path (p->source, relative);

  g_hash_table_replace (p->src, g_strdup (relative), describe (AT_FDCWD, path, oracle->buffer));
}

void
cs_oracle_update_before (CsOracle   *oracle,
                         guint       pair,
                         const char *relative)
{
  Pair *p = g_ptr_array_index (oracle->pairs, pair);
  g_autofree char *path = full_path (p->copy, relative);

  g_hash_table_replace (p->before, g_strdup (relative), describe (AT_FDCWD, path, oracle->buffer));
}

static gboolean
is_never_copied (Pair       *p,
                 const char *rel)
{
  for (guint i = 0; i < p->never->len; i++)
    {
      const char *n = g_ptr_array_index (p->never, i);
      gsize len = strlen (n);

      if (strcmp (rel, n) == 0 || (strncmp (rel, n, len) == 0 && rel[len] == '/'))
        return TRUE;
    }
  return FALSE;
}

const char *
cs_oracle_state_name (CsOracleState state)
{
  static const char *names[] = { "ABSENT", "COMPLETE", "OLD", "TEMP" };

  return state < CS_ORACLE_N_STATES ? names[state] : "INVALID";
}

/* Classifies @rel of @p whose current entry is @now (NULL: not there). Returns
 * -1 after failing the test. Folders come back COMPLETE or OLD. */
static int
classify (CsOracle     *oracle,
          Pair         *p,
          const char   *rel,
          const Entry  *now,
          CsOracleFlags flags,
          gboolean     *out_new)
{
  g_autofree char *path = full_path (p->copy, rel);
  g_autofree char *base = g_path_get_basename (rel);
  const Entry *s = g_hash_table_lookup (p->src, rel);
  const Entry *old = g_hash_table_lookup (p->before, rel);
  gboolean final = (flags & CS_ORACLE_ALL_COMPLETE) != 0;
  g_autofree char *diff = NULL;

  *out_new = FALSE;
  if (now == NULL)
    {
      if (old != NULL && !is_temporary_name (base))
        {
          g_autofree char *was = entry_to_string (old);
          fail (path, "the previous entry vanished (it was: %s)", was);
          return -1;
        }
      if (s != NULL && final && !is_never_copied (p, rel))
        {
          fail (path, "still ABSENT after the rerun");
          return -1;
        }
      return CS_ORACLE_ABSENT;
    }

  /* Links are published through a temporary symlink, files through a file,
   * FIFOs and devices through a node of their own kind. */
  if ((s == NULL && is_temporary_name (base) && !S_ISDIR (now->mode))
      || (old == NULL && is_placeholder (path, now)))
    {
      if (!(flags & CS_ORACLE_ALLOW_TEMP))
        {
          fail (path, "a temporary was left behind");
          return -1;
        }
      return CS_ORACLE_TEMP;
    }
  /* An empty file where the source has data is a file cut short, unless the
   * caller allows claims. */
  if (old == NULL && s != NULL && S_ISREG (s->mode) && s->size > 0 && S_ISREG (now->mode)
      && now->size == 0)
    {
      if (!(flags & CS_ORACLE_ALLOW_CLAIM) || final)
        {
          fail (path, "an empty file under a final name (a claim caught before its text, "
                "or a file cut short)%s", final ? " after the rerun" : "");
          return -1;
        }
      return CS_ORACLE_TEMP;
    }

  if (s != NULL && !is_never_copied (p, rel))
    {
      diff = copy_difference (oracle, s, now, final);
      if (diff == NULL)
        {
          g_autofree char *was_different = old != NULL ? copy_difference (oracle, s, old, final) : NULL;

          *out_new = old == NULL || was_different != NULL;
          return CS_ORACLE_COMPLETE;
        }
      if (S_ISDIR (s->mode) && S_ISDIR (now->mode))
        {
          fail (path, "the folder was not finished: %s", diff);
          return -1;
        }
    }

  if (old != NULL && identical (oracle, old, now))
    {
      if (final && s != NULL && !is_never_copied (p, rel) && !S_ISDIR (old->mode))
        {
          fail (path, "still OLD after the rerun: %s", diff);
          return -1;
        }
      return CS_ORACLE_OLD;
    }
  if (old != NULL && S_ISDIR (old->mode) && S_ISDIR (now->mode) && (s == NULL || is_never_copied (p, rel)))
    return CS_ORACLE_OLD;     /* a folder of extras may gain or lose our temporaries */

  {
    g_autofree char *is = entry_to_string (now);
    g_autofree char *src = entry_to_string (s);
    g_autofree char *was = entry_to_string (old);

    if (s != NULL && is_never_copied (p, rel))
      fail (path, "must never be copied, but is %s", is);
    else if (s == NULL && old == NULL)
      fail (path, "is in neither the source nor the previous destination: %s", is);
    else
      fail (path, "is neither COMPLETE nor OLD — a partial or mixed entry under a final name: "
            "%s%s%s; the source is %s; before the run it was %s",
            is, diff != NULL ? "; " : "", diff != NULL ? diff : "", src, was);
  }
  return -1;
}

/* Names that are one file in the source are one file in the copy. */
static gboolean
check_links (Pair       *p,
             GHashTable *now)
{
  g_autoptr(GHashTable) first = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                                       (GDestroyNotify) g_bytes_unref, NULL);
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, p->src);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const Entry *s = value;
      struct { dev_t dev; ino_t ino; } id = { s->dev, s->ino };
      g_autoptr(GBytes) bytes = NULL;
      const char *other;
      const Entry *a, *b;

      if (!S_ISREG (s->mode) || s->nlink < 2 || is_never_copied (p, key))
        continue;
      bytes = g_bytes_new (&id, sizeof id);
      other = g_hash_table_lookup (first, bytes);
      if (other == NULL)
        {
          g_hash_table_insert (first, g_steal_pointer (&bytes), key);
          continue;
        }
      a = g_hash_table_lookup (now, other);
      b = g_hash_table_lookup (now, key);
      if (a != NULL && b != NULL && (a->dev != b->dev || a->ino != b->ino))
        {
          g_autofree char *path = full_path (p->copy, key);

          fail (path, "is a file of its own, where in the source it is a hard link of %s",
                (const char *) other);
          return FALSE;
        }
    }
  return TRUE;
}

static void
check_unchanged (CsOracle   *oracle,
                 const char *root,
                 GHashTable *then,
                 const char *what)
{
  g_autoptr(GHashTable) now = snapshot (root, oracle->buffer);
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, then);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const Entry *e = g_hash_table_lookup (now, key);
      g_autofree char *path = full_path (root, key);

      if (e == NULL || !identical (oracle, value, e))
        {
          g_autofree char *was = entry_to_string (value);
          g_autofree char *is = entry_to_string (e);

          fail (path, "%s changed: it was %s, now %s", what, was, is);
          return;
        }
    }
  g_hash_table_iter_init (&iter, now);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (!g_hash_table_contains (then, key))
      {
        g_autofree char *path = full_path (root, key);
        g_autofree char *is = entry_to_string (value);

        fail (path, "%s gained an entry: %s", what, is);
        return;
      }
}

/* A move's source: each entry still there is untouched; each one gone has a
 * COMPLETE copy (a folder, a folder at the copy's path); nothing is new. */
static void
check_moved (CsOracle *oracle,
             Pair     *p)
{
  g_autoptr(GHashTable) now = snapshot (p->source, oracle->buffer);
  g_autoptr(GHashTable) copy = snapshot (p->copy, oracle->buffer);
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, p->src);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const Entry *then = value;
      const Entry *e = g_hash_table_lookup (now, key);
      const Entry *c = g_hash_table_lookup (copy, key);
      g_autofree char *path = full_path (p->source, key);

      if (e != NULL)
        {
          /* A folder being emptied changes; its entries are checked one by one. */
          if (!S_ISDIR (then->mode) && !identical (oracle, then, e))
            {
              g_autofree char *was = entry_to_string (then);
              g_autofree char *is = entry_to_string (e);

              fail (path, "the source changed: it was %s, now %s", was, is);
              return;
            }
          if (S_ISDIR (then->mode) && !S_ISDIR (e->mode))
            {
              fail (path, "the source folder is no longer a folder");
              return;
            }
          continue;
        }
      if (c == NULL)
        {
          g_autofree char *was = entry_to_string (then);

          fail (path, "LOST: gone from the source and not in the copy (it was %s)", was);
          return;
        }
      if (!S_ISDIR (then->mode))
        {
          g_autofree char *diff = copy_difference (oracle, then, c, FALSE);

          if (diff != NULL)
            {
              fail (path, "gone from the source, and its copy is not COMPLETE: %s", diff);
              return;
            }
        }
      else if (!S_ISDIR (c->mode))
        {
          fail (path, "a folder gone from the source, and its copy is no folder");
          return;
        }
    }
  g_hash_table_iter_init (&iter, now);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (!g_hash_table_contains (p->src, key))
      {
        g_autofree char *path = full_path (p->source, key);
        g_autofree char *is = entry_to_string (value);

        fail (path, "the source gained an entry: %s", is);
        return;
      }
}

CsOracleCounts
cs_oracle_check (CsOracle      *oracle,
                 CsOracleFlags  flags)
{
  CsOracleCounts counts = { { 0 } };

  for (guint i = 0; i < oracle->pairs->len; i++)
    {
      Pair *p = g_ptr_array_index (oracle->pairs, i);
      g_autoptr(GHashTable) now = NULL;
      GHashTableIter iter;
      gpointer key, value;

      if (oracle->move)
        check_moved (oracle, p);
      else
        check_unchanged (oracle, p->source, p->src, "the source");
      now = snapshot (p->copy, oracle->buffer);

      g_hash_table_iter_init (&iter, now);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          const Entry *e = value;
          gboolean is_new;
          int state = classify (oracle, p, key, e, flags, &is_new);

          if (state < 0)
            return counts;
          if (S_ISDIR (e->mode))
            continue;
          counts.n[state]++;
          if (is_new)
            counts.n_new_complete++;
        }
      /* What the source has and the copy lacks; what was there and is gone. */
      g_hash_table_iter_init (&iter, p->src);
      while (g_hash_table_iter_next (&iter, &key, &value))
        if (!g_hash_table_contains (now, key))
          {
            gboolean is_new;

            if (classify (oracle, p, key, NULL, flags, &is_new) < 0)
              return counts;
            if (!S_ISDIR (((Entry *) value)->mode))
              counts.n[CS_ORACLE_ABSENT]++;
          }
      g_hash_table_iter_init (&iter, p->before);
      while (g_hash_table_iter_next (&iter, &key, &value))
        if (!g_hash_table_contains (now, key) && !g_hash_table_contains (p->src, key))
          {
            gboolean is_new;

            if (classify (oracle, p, key, NULL, flags, &is_new) < 0)
              return counts;
          }
      if ((flags & CS_ORACLE_ALL_COMPLETE) && !(flags & CS_ORACLE_NO_LINKS) && !check_links (p, now))
        return counts;
    }

  for (guint i = 0; i < oracle->bystanders->len; i++)
    {
      Bystander *b = g_ptr_array_index (oracle->bystanders, i);

      check_unchanged (oracle, b->path, b->snapshot, "a path outside the job");
    }

  g_test_message ("oracle: %u COMPLETE (%u new), %u OLD, %u ABSENT, %u TEMP",
                  counts.n[CS_ORACLE_COMPLETE], counts.n_new_complete, counts.n[CS_ORACLE_OLD],
                  counts.n[CS_ORACLE_ABSENT], counts.n[CS_ORACLE_TEMP]);
  return counts;
}

CsOracleState
cs_oracle_state (CsOracle   *oracle,
                 guint       pair,
                 const char *relative)
{
  Pair *p = g_ptr_array_index (oracle->pairs, pair);
  g_autofree char *path = full_path (p->copy, relative);
  g_autoptr(GHashTable) one = snapshot (path, oracle->buffer);
  const Entry *e = g_hash_table_lookup (one, ".");
  gboolean is_new;
  int state;

  state = classify (oracle, p, relative, e, CS_ORACLE_ALLOW_TEMP, &is_new);
  return state < 0 ? CS_ORACLE_N_STATES : (CsOracleState) state;
}
