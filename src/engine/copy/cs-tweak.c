/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-tweak"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "cs-dest-fs-private.h"
#include "cs-metadata-private.h"
#include "cs-tweak-private.h"
#include "cs-xattrs-private.h"

/* The source changed after the destination did: its change time is later.
 * A copy's destination is written after its source was read, so an
 * untouched source is never later; setfattr, setfacl, chmod and chown on it
 * are. Where the destination shows no change time, nothing is known. */
static gboolean
changed_after (const struct stat *src,
               const struct stat *dst)
{
  if (dst->st_ctim.tv_sec == 0 && dst->st_ctim.tv_nsec == 0)
    return FALSE;
  return src->st_ctim.tv_sec > dst->st_ctim.tv_sec
         || (src->st_ctim.tv_sec == dst->st_ctim.tv_sec && src->st_ctim.tv_nsec > dst->st_ctim.tv_nsec);
}

/* The attributes a copy carries; a security label (SELinux, Smack) is the
 * system's to set at the destination, not ours to remove. */
static gboolean
carried (const char *attr)
{
  return !g_str_has_prefix (attr, "security.");
}

static CsMetadata
kind_of (const char *attr)
{
  return g_str_has_prefix (attr, "system.posix_acl_") ? CS_METADATA_ACLS : CS_METADATA_XATTRS;
}

/* @fd's attribute names, or NULL when it has none or they cannot be read.
 * A destination that keeps none says so once (a share: ENOTSUP), and is
 * not asked again in the run. */
static GPtrArray *
list_names (CsJob    *job,
            int       fd,
            char     *buf,
            gboolean  destination)
{
  ssize_t n = _cs_io_flistxattr (&job->counters, fd, buf, CS_XATTRS_BUFFER_SIZE / 2);
  GPtrArray *names;

  if (n < 0 && destination && _cs_io_is_unsupported (errno))
    {
      _cs_metadata_refuse (job, CS_METADATA_XATTRS, errno);
      _cs_metadata_refuse (job, CS_METADATA_ACLS, errno);
    }
  if (n <= 0)
    return NULL;
  names = g_ptr_array_new_with_free_func (g_free);
  for (ssize_t off = 0; off < n; off += (ssize_t) strlen (buf + off) + 1)
    if (carried (buf + off))
      g_ptr_array_add (names, g_strdup (buf + off));
  return names;
}

static gboolean
has_name (GPtrArray  *names,
          const char *name)
{
  for (guint i = 0; names != NULL && i < names->len; i++)
    if (strcmp (g_ptr_array_index (names, i), name) == 0)
      return TRUE;
  return FALSE;
}

/* Makes @dst_fd's extended attributes and ACLs @src_fd's: each that differs
 * set, each the source no longer has removed. */
static void
sync_xattrs (CsJob *job,
             int    src_fd,
             int    dst_fd)
{
  g_autofree char *buf = g_malloc (2 * CS_XATTRS_BUFFER_SIZE);
  char *a = buf, *b = buf + CS_XATTRS_BUFFER_SIZE;
  g_autoptr(GPtrArray) src_names = list_names (job, src_fd, a, FALSE);
  g_autoptr(GPtrArray) dst_names = list_names (job, dst_fd, b, TRUE);

  for (guint i = 0; src_names != NULL && i < src_names->len; i++)
    {
      const char *attr = g_ptr_array_index (src_names, i);
      CsMetadata kind = kind_of (attr);
      ssize_t la, lb = -1;

      if (_cs_metadata_refused (job, kind))
        continue;
      la = _cs_io_fgetxattr (&job->counters, src_fd, attr, a, CS_XATTRS_BUFFER_SIZE);
      if (la < 0)
        continue;
      if (has_name (dst_names, attr))
        lb = _cs_io_fgetxattr (&job->counters, dst_fd, attr, b, CS_XATTRS_BUFFER_SIZE);
      if (la == lb && memcmp (a, b, (size_t) la) == 0)
        continue;
      if (_cs_io_fsetxattr (&job->counters, dst_fd, attr, a, (size_t) la) != 0)
        _cs_metadata_refuse (job, kind, errno);
    }
  for (guint i = 0; dst_names != NULL && i < dst_names->len; i++)
    {
      const char *attr = g_ptr_array_index (dst_names, i);

      if (!has_name (src_names, attr) && !_cs_metadata_refused (job, kind_of (attr)))
        _cs_io_fremovexattr (&job->counters, dst_fd, attr);
    }
}

/* The mode, where it differs (or a chown just cleared its set-id bits:
 * @force) and the destination keeps modes. A share that
 * answers a chmod and keeps nothing (FAT behind FUSE) is found out by the
 * first one, looked at again once. */
static void
sync_mode (CsJob             *job,
           CsDir             *dir,
           const char        *dst_name,
           const struct stat *src,
           const struct stat *dst,
           gboolean           force)
{
  mode_t mode = src->st_mode & 07777;
  struct stat now;

  if ((!force && (dst->st_mode & 07777) == mode) || _cs_metadata_refused (job, CS_METADATA_MODES))
    return;
  if (_cs_io_fchmodat (&job->counters, dir->dst_fd, dst_name, mode) != 0)
    {
      _cs_metadata_refuse (job, CS_METADATA_MODES, errno);
      return;
    }
  if (dir->fs == NULL || atomic_exchange (&dir->fs->tweak_mode_checked, 1) != 0)
    return;
  if (_cs_io_fstatat (&job->counters, dir->dst_fd, dst_name, &now, AT_SYMLINK_NOFOLLOW) == 0
      && (now.st_mode & 07777) != mode)
    _cs_metadata_refuse (job, CS_METADATA_MODES, EOPNOTSUPP);
}

void
_cs_tweak_metadata (CsJob             *job,
                    CsDir             *dir,
                    const char        *name,
                    const char        *dst_name,
                    const struct stat *src,
                    const struct stat *dst)
{
  gboolean owner = job->life.euid == 0 && (dst->st_uid != src->st_uid || dst->st_gid != src->st_gid)
                   && !_cs_metadata_refused (job, CS_METADATA_OWNERS);
  gboolean xattrs = S_ISREG (src->st_mode) && changed_after (src, dst)
                    && !atomic_load_explicit (&job->caps.no_xattr, memory_order_relaxed)
                    && !(_cs_metadata_refused (job, CS_METADATA_XATTRS)
                         && _cs_metadata_refused (job, CS_METADATA_ACLS));
  int src_fd, dst_fd;

  if (job->setup.settings.dry_run || dir->src_pseudo || dir->dst_fd < 0
      || job->setup.settings.operation == CS_OPERATION_MOVE)
    return;

  /* Owner first: a chown clears the set-id bits the mode then puts back. */
  if (owner && _cs_io_fchownat (&job->counters, dir->dst_fd, dst_name, src->st_uid, src->st_gid,
                                AT_SYMLINK_NOFOLLOW) != 0)
    _cs_metadata_refuse (job, CS_METADATA_OWNERS, errno);
  /* A symbolic link has no mode of its own, and no user attributes. */
  if (S_ISLNK (src->st_mode))
    return;
  sync_mode (job, dir, dst_name, src, dst, owner && (src->st_mode & (S_ISUID | S_ISGID)) != 0);
  if (!xattrs)
    return;

  /* Opened without following, and only regular files: a device or a FIFO
   * could block or answer when opened. */
  src_fd = _cs_io_openat (&job->counters, dir->src_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, 0);
  if (src_fd < 0)
    return;
  dst_fd = _cs_io_openat (&job->counters, dir->dst_fd, dst_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, 0);
  if (dst_fd >= 0)
    {
      struct stat now;

      /* Still the file the decision looked at. */
      if (_cs_io_fstat (&job->counters, dst_fd, &now) == 0 && now.st_ino == dst->st_ino
          && now.st_dev == dst->st_dev && S_ISREG (now.st_mode))
        sync_xattrs (job, src_fd, dst_fd);
      _cs_io_close (&job->counters, dst_fd);
    }
  _cs_io_close (&job->counters, src_fd);
}
