/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-xattrs"

#include "config.h"

#include <errno.h>
#include <string.h>

#include "cs-job-private.h"
#include "cs-metadata-private.h"
#include "cs-xattrs-private.h"

#define SMALL 2048

/* POSIX ACLs travel as extended attributes, but a destination may keep one
 * and not the other, and users know them by their own name. */
static CsMetadata
xattr_kind (const char *attr)
{
  return g_str_has_prefix (attr, "system.posix_acl_") ? CS_METADATA_ACLS : CS_METADATA_XATTRS;
}

/* Lists and copies with @list and @value of @size bytes each, adding what
 * was not kept to @lost; FALSE when one of them was too small (ERANGE). */
static gboolean
copy_with (CsJob *job,
           int    src_fd,
           int    dst_fd,
           char  *list,
           char  *value,
           gsize  size,
           guint *lost)
{
  ssize_t n = _cs_io_flistxattr (&job->counters, src_fd, list, size);

  if (n < 0)
    {
      if (errno == ERANGE)
        return FALSE;
      /* A source filesystem without them says so once; nothing to copy. */
      if (errno == ENOTSUP || errno == ENOSYS)
        atomic_store (&job->caps.no_xattr, 1);
      return TRUE;
    }

  for (ssize_t off = 0; off < n; off += (ssize_t) strlen (list + off) + 1)
    {
      const char *attr = list + off;
      CsMetadata kind = xattr_kind (attr);
      ssize_t len;

      if (_cs_metadata_refused (job, kind))
        {
          *lost |= 1u << kind;
          continue;
        }
      len = _cs_io_fgetxattr (&job->counters, src_fd, attr, value, size);
      if (len < 0 && errno == ERANGE)
        return FALSE;
      if (len < 0)
        continue;
      if (_cs_io_fsetxattr (&job->counters, dst_fd, attr, value, (size_t) len) != 0)
        {
          _cs_metadata_refuse (job, kind, errno);
          *lost |= 1u << kind;
        }
    }
  return TRUE;
}

guint
_cs_xattrs_copy (CsJob *job,
                 int    src_fd,
                 int    dst_fd,
                 char  *buffer)
{
  char small[2 * SMALL];
  g_autofree char *big = NULL;
  guint lost = 0;

  if (atomic_load_explicit (&job->caps.no_xattr, memory_order_relaxed))
    return 0;
  if (buffer != NULL)
    {
      copy_with (job, src_fd, dst_fd, buffer, buffer + CS_XATTRS_BUFFER_SIZE / 2,
                 CS_XATTRS_BUFFER_SIZE / 2, &lost);
      return lost;
    }
  /* Most folders have none or a short ACL; a setter that ran before the
   * ERANGE is simply run again. */
  if (copy_with (job, src_fd, dst_fd, small, small + SMALL, SMALL, &lost))
    return lost;
  big = g_malloc (CS_XATTRS_BUFFER_SIZE);
  lost = 0;
  copy_with (job, src_fd, dst_fd, big, big + CS_XATTRS_BUFFER_SIZE / 2, CS_XATTRS_BUFFER_SIZE / 2,
             &lost);
  return lost;
}
