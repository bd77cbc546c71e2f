/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-dest-fs"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cs-dest-fs-private.h"
#include "cs-env-private.h"
#include "cs-job-private.h"
#include "cs-names-private.h"

#define DENTS_BUFFER_SIZE 4096

/* What SMB shares, Windows and FAT refuse in a name (Samba answers
 * NT_STATUS_OBJECT_NAME_INVALID; libsmbclient takes "\" for a separator),
 * and the endings they cannot hold as they are: Samba creates "name." but
 * lists it under a mangled 8.3 name. Each is probed as a folder named "p"
 * and the character. */
static const struct {
  char        c;
  gboolean    ending;       /* only at the end of a name */
  const char *worded;
} name_traits[] = {
  { ':', FALSE, "names with “:”" },
  { '?', FALSE, "names with “?”" },
  { '*', FALSE, "names with “*”" },
  { '|', FALSE, "names with “|”" },
  { '<', FALSE, "names with “<”" },
  { '>', FALSE, "names with “>”" },
  { '"', FALSE, "names with “\"”" },
  { '\\', FALSE, "names with “\\”" },
  { '.', TRUE, "names ending in a dot" },
  { ' ', TRUE, "names ending in a space" },
};

/* The bits of name_traits[] that @name has. */
static guint
traits_of (const char *name)
{
  gsize len = strlen (name);
  guint bits = 0;

  for (guint i = 0; i < G_N_ELEMENTS (name_traits); i++)
    {
      if (name_traits[i].ending)
        {
          if (len > 0 && name[len - 1] == name_traits[i].c)
            bits |= 1u << i;
        }
      else if (strchr (name, name_traits[i].c) != NULL)
        bits |= 1u << i;
    }
  return bits;
}

/* A folder of ours to probe in, named like a staging folder so that a run
 * killed meanwhile leaves nothing a later run would not remove. */
static int
make_probe_dir (CsJob *job,
                int    dir_fd,
                char  *name,
                gsize  size)
{
  int fd;

  g_snprintf (name, size, CS_TEMP_PREFIX "%s-%u" CS_STAGE_SUFFIX, job->life.job_tag,
              atomic_fetch_add (&job->stage.stage_seq, 1));
  if (_cs_io_mkdirat (&job->counters, dir_fd, name, 0700) != 0)
    return -1;
  fd = _cs_io_openat (&job->counters, dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
  if (fd < 0)
    _cs_io_unlinkat (&job->counters, dir_fd, name, AT_REMOVEDIR);
  return fd;
}

/* Whether the filesystem tells names apart by case: the probe folder's name
 * in capitals names nothing on a case-sensitive one. */
static void
probe_case (CsJob    *job,
            CsDestFs *fs,
            int       dst_fd)
{
  char name[64];
  g_autofree char *upper = NULL;
  struct stat st;
  int fd;

  fd = make_probe_dir (job, dst_fd, name, sizeof name);
  if (fd < 0)
    return;
  _cs_io_close (&job->counters, fd);
  upper = g_ascii_strup (name, -1);
  fs->case_insensitive = _cs_io_fstatat (&job->counters, dst_fd, upper, &st,
                                         AT_SYMLINK_NOFOLLOW) == 0;
  fs->probed = TRUE;
  _cs_io_unlinkat (&job->counters, dst_fd, name, AT_REMOVEDIR);
}

CsDestFs *
_cs_dest_fs_for (CsJob    *job,
                 int       dst_fd,
                 CsDestFs *parent)
{
  struct stat st;

  if (dst_fd < 0 || _cs_io_fstat (&job->counters, dst_fd, &st) != 0)
    return parent;
  return _cs_dest_fs_for_stat (job, dst_fd, &st, parent);
}

CsDestFs *
_cs_dest_fs_for_stat (CsJob             *job,
                      int                dst_fd,
                      const struct stat *folder,
                      CsDestFs          *parent)
{
  struct stat st = *folder;
  CsDestFs *fs;

  if (parent != NULL && parent->dev == st.st_dev)
    return parent;
  for (guint i = 0; i < job->dest.dest_filesystems->len; i++)
    {
      fs = g_ptr_array_index (job->dest.dest_filesystems, i);
      if (fs->dev == st.st_dev)
        return fs;
    }

  fs = g_new0 (CsDestFs, 1);
  fs->dev = st.st_dev;
  fs->type = _cs_env_filesystem_type_of_dev (st.st_dev);
  /* gvfsd-fuse answers RENAME_NOREPLACE with a stat of the target and a
   * plain rename, and libsmbclient's rename deletes a target it finds and
   * renames again: a name another client creates in between is lost. */
  fs->noreplace_racy = g_str_equal (fs->type, "fuse.gvfsd-fuse");
  atomic_init (&fs->times, CS_TIMES_UNKNOWN);
  atomic_init (&fs->fresh_mode, 0);
  atomic_init (&fs->fresh_owner_known, 0);
  atomic_init (&fs->fresh_owner, 0);
  if (!job->setup.settings.dry_run)
    probe_case (job, fs, dst_fd);
  g_ptr_array_add (job->dest.dest_filesystems, fs);

  return fs;
}

void
_cs_dest_fs_free (CsDestFs *fs)
{
  g_free (fs->type);
  g_free (fs);
}

/* Tries every trait at once in a probe folder: a folder "p" and the
 * character must be created, and listed under that very name. */
static void
probe_names (CsJob    *job,
             CsDestFs *fs,
             int       dir_fd)
{
  g_autofree guint8 *buf = NULL;
  char name[64];
  guint created = 0, listed = 0;
  ssize_t n;
  int fd;

  fs->names_asked = (1u << G_N_ELEMENTS (name_traits)) - 1;
  fd = make_probe_dir (job, dir_fd, name, sizeof name);
  if (fd < 0)
    return;   /* nothing can be learnt here; each file finds out for itself */

  for (guint i = 0; i < G_N_ELEMENTS (name_traits); i++)
    {
      char probe[3] = { 'p', name_traits[i].c, '\0' };

      if (_cs_io_mkdirat (&job->counters, fd, probe, 0700) == 0)
        created |= 1u << i;
    }

  buf = g_malloc (DENTS_BUFFER_SIZE);
  while ((n = _cs_io_getdents (&job->counters, fd, buf, DENTS_BUFFER_SIZE)) > 0)
    for (ssize_t off = 0; off < n;)
      {
        struct linux_dirent64 *d = (struct linux_dirent64 *) (buf + off);

        off += d->d_reclen;
        if (strcmp (d->d_name, ".") == 0 || strcmp (d->d_name, "..") == 0)
          continue;
        for (guint i = 0; i < G_N_ELEMENTS (name_traits); i++)
          if (d->d_name[0] == 'p' && d->d_name[1] == name_traits[i].c && d->d_name[2] == '\0')
            listed |= 1u << i;
        /* Ours, empty, under whatever name the filesystem gave it. */
        _cs_io_unlinkat (&job->counters, fd, d->d_name, AT_REMOVEDIR);
      }
  _cs_io_close (&job->counters, fd);
  _cs_io_unlinkat (&job->counters, dir_fd, name, AT_REMOVEDIR);

  fs->names_refused = fs->names_asked & ~(created & listed);
}

const char *
_cs_dest_fs_refused_in (CsJob      *job,
                        CsDestFs   *fs,
                        int         dir_fd,
                        const char *name)
{
  guint bits;

  if (fs == NULL || job->setup.settings.dry_run)
    return NULL;
  /* "SRC/." copies the folder's contents into the destination folder, as
   * cp -r does: "." names that folder, which exists, and no entry the share
   * must create. Taken for a name ending in a dot, the whole copy was refused
   * on a share, and its no-op rerun looked 3.5 times as fast as "SRC". */
  if (strcmp (name, ".") == 0 || strcmp (name, "..") == 0)
    return NULL;
  bits = traits_of (name);
  if (bits == 0)
    return NULL;
  if ((fs->names_asked & bits) != bits)
    probe_names (job, fs, dir_fd);
  bits &= fs->names_refused;
  for (guint i = 0; i < G_N_ELEMENTS (name_traits); i++)
    if (bits & (1u << i))
      return name_traits[i].worded;
  return NULL;
}

char *
_cs_dest_fs_fold (const char *name)
{
  GString *out;
  const char *p;

  if (!g_utf8_validate (name, -1, NULL))
    return g_ascii_strup (name, -1);
  out = g_string_sized_new (strlen (name));
  for (p = name; *p != '\0'; p = g_utf8_next_char (p))
    g_string_append_unichar (out, g_unichar_toupper (g_utf8_get_char (p)));
  return g_string_free (out, FALSE);
}
