/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-dest-fs"

#include "config.h"

#include <sys/stat.h>

#include "cs-dest-fs-private.h"
#include "cs-env-private.h"
#include "cs-job-private.h"

CsDestFs *
_cs_dest_fs_for (CsJob    *job,
                 int       dst_fd,
                 CsDestFs *parent)
{
  struct stat st;
  CsDestFs *fs;

  if (dst_fd < 0 || _cs_io_fstat (&job->counters, dst_fd, &st) != 0)
    return parent;
  if (parent != NULL && parent->dev == st.st_dev)
    return parent;
  for (guint i = 0; i < job->dest_filesystems->len; i++)
    {
      fs = g_ptr_array_index (job->dest_filesystems, i);
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
  g_ptr_array_add (job->dest_filesystems, fs);

  return fs;
}

void
_cs_dest_fs_free (CsDestFs *fs)
{
  g_free (fs->type);
  g_free (fs);
}
