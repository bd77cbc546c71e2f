/* SPDX-License-Identifier: GPL-3.0-or-later */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "cs-copy-data-private.h"
#include "cs-job-private.h"
#include "cs-names-private.h"
#include "cs-stage-private.h"

#define DENTS_BUFFER_SIZE (32 * 1024)

/* Filesystems whose creates and renames are round trips to another machine
 * (or to a daemon, for FUSE). Ceph and kAFS are missing from linux/magic.h. */
gboolean
_cs_is_remote_filesystem (int fd)
{
  struct statfs sfs;

  if (_cs_io_fstatfs (fd, &sfs) != 0)
    return FALSE;

  switch ((unsigned long) sfs.f_type)
    {
    case NFS_SUPER_MAGIC:
    case SMB_SUPER_MAGIC:
    case CIFS_SUPER_MAGIC:
    case SMB2_SUPER_MAGIC:
    case FUSE_SUPER_MAGIC:  /* sshfs, rclone mount, the lab NAS … */
    case V9FS_MAGIC:
    case 0x00c36400UL:      /* Ceph */
    case AFS_SUPER_MAGIC:
    case 0x6b414653UL:      /* kAFS */
    case CODA_SUPER_MAGIC:
    case NCP_SUPER_MAGIC:
      return TRUE;
    default:
      return FALSE;
    }
}

/* Staging folders of runs that are gone, in the folder every source is
 * copied into. They lie outside the folders the scanner lists, so they are
 * looked for once, here; whether this run stages or not, since the probe of a
 * destination's names (cs-dest-fs.c) makes its folder in the same form. A
 * separate descriptor: the directory offset is shared by duplicates. */
static void
remove_leftover_stages (CsJob      *job,
                        int         root_fd,
                        GPtrArray **out_listed)
{
  g_autofree guint8 *buf = NULL;
  ssize_t n;
  int fd;

  /* On a share a listing by names is the same directory query as one with
   * every entry's stat (a few tenths of a second for a folder of 50 behind
   * 1 ms per filesystem call under Samba): asked with the stats, it is the
   * listing the scanner decides from when it walks this very folder (a
   * source given as "SRC/."), not asked twice. */
  if (out_listed != NULL && _cs_copy_on_share (root_fd))
    {
      g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func (g_free);
      gint64 start = g_get_monotonic_time ();

      if (_cs_io_readdirplus (&job->counters, root_fd, entries) == 0)
        {
          /* The threads that list ahead (cs-dest-listing.c) start more. */
          if (_cs_job_listing_slow (g_get_monotonic_time () - start, entries->len))
            atomic_store (&job->scan.listings_slow, TRUE);
          for (guint i = entries->len; i-- > 0;)
            {
              const CsIoListed *listed = g_ptr_array_index (entries, i);

              if (_cs_name_is_our_stage (listed->name) && !_cs_name_run_alive (listed->name))
                {
                  _cs_stage_remove_leftover (job, root_fd, listed->name);
                  g_ptr_array_remove_index (entries, i);
                }
            }
          *out_listed = g_steal_pointer (&entries);
          return;
        }
    }

  fd = _cs_io_openat (&job->counters, root_fd, ".", O_RDONLY | O_DIRECTORY, 0);
  if (fd < 0)
    return;
  buf = g_malloc (DENTS_BUFFER_SIZE);
  while ((n = _cs_io_getdents (&job->counters, fd, buf, DENTS_BUFFER_SIZE)) > 0)
    {
      for (ssize_t off = 0; off < n;)
        {
          struct linux_dirent64 *d = (struct linux_dirent64 *) (buf + off);

          off += d->d_reclen;
          if (_cs_name_is_our_stage (d->d_name) && !_cs_name_run_alive (d->d_name))
            _cs_stage_remove_leftover (job, root_fd, d->d_name);
        }
    }
  _cs_io_close (&job->counters, fd);
}

void
_cs_stage_setup (CsJob      *job,
                 int         root_fd,
                 GPtrArray **out_listed)
{
  gboolean stage;

  if (out_listed != NULL)
    *out_listed = NULL;
  if (job->stage.stage_root_fd >= 0 || job->stage.stage_swept || root_fd < 0 || job->setup.settings.dry_run)
    return;

  job->stage.stage_swept = TRUE;
  remove_leftover_stages (job, root_fd, out_listed);

  switch (job->setup.staging)
    {
    case CS_STAGING_ALWAYS:
      stage = TRUE;
      break;
    case CS_STAGING_NEVER:
      stage = FALSE;
      break;
    case CS_STAGING_AUTO:
    default:
      stage = _cs_is_remote_filesystem (root_fd);
      break;
    }
  if (stage)
    job->stage.stage_root_fd = _cs_io_openat (&job->counters, root_fd, ".", O_RDONLY | O_DIRECTORY, 0);
}

static CsStage *
stage_create (CsJob *job,
              guint  index)
{
  CsStage *stage = g_new0 (CsStage, 1);

  stage->index = index;
  g_snprintf (stage->name, sizeof stage->name, CS_TEMP_PREFIX "%s-%u" CS_STAGE_SUFFIX,
              job->life.job_tag, index);
  if (_cs_io_mkdirat (&job->counters, job->stage.stage_root_fd, stage->name, 0700) != 0)
    {
      g_free (stage);
      return NULL;
    }
  stage->fd = _cs_io_openat (&job->counters, job->stage.stage_root_fd, stage->name,
                             O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
  if (stage->fd < 0)
    {
      _cs_io_unlinkat (&job->counters, job->stage.stage_root_fd, stage->name, AT_REMOVEDIR);
      g_free (stage);
      return NULL;
    }

  return stage;
}

CsStage *
_cs_stage_acquire (CsJob *job)
{
  CsStage *stage = NULL;

  if (job->stage.stage_root_fd < 0 || atomic_load_explicit (&job->stage.no_staging, memory_order_relaxed))
    return NULL;

  _cs_mutex_lock (&job->stage.stage_lock);
  if (job->stage.free_stages->len > 0)
    stage = g_ptr_array_steal_index_fast (job->stage.free_stages, job->stage.free_stages->len - 1);
  _cs_mutex_unlock (&job->stage.stage_lock);
  if (stage != NULL)
    return stage;

  /* Created outside the lock: on a share a mkdir is a round trip, and the
   * other workers need not wait for it. There are never more folders than
   * workers that ran at once. */
  stage = stage_create (job, atomic_fetch_add (&job->stage.stage_seq, 1));
  if (stage == NULL)
    {
      atomic_store (&job->stage.no_staging, 1);   /* no room for folders: beside from now on */
      return NULL;
    }
  _cs_mutex_lock (&job->stage.stage_lock);
  g_ptr_array_add (job->stage.stages, stage);
  _cs_mutex_unlock (&job->stage.stage_lock);

  return stage;
}

void
_cs_stage_release (CsJob   *job,
                   CsStage *stage)
{
  if (stage == NULL)
    return;
  _cs_mutex_lock (&job->stage.stage_lock);
  g_ptr_array_add (job->stage.free_stages, stage);
  _cs_mutex_unlock (&job->stage.stage_lock);
}

void
_cs_stage_teardown (CsJob *job)
{
  if (job->stage.stage_root_fd < 0)
    return;

  for (guint i = 0; i < job->stage.stages->len; i++)
    {
      CsStage *stage = g_ptr_array_index (job->stage.stages, i);

      _cs_io_close (&job->counters, stage->fd);
      /* Every temporary was published or removed by its worker; a folder that
       * is not empty anyway is cleaned the way a crashed run's is. */
      if (_cs_io_unlinkat (&job->counters, job->stage.stage_root_fd, stage->name, AT_REMOVEDIR) != 0
          && errno == ENOTEMPTY)
        _cs_stage_remove_leftover (job, job->stage.stage_root_fd, stage->name);
    }
  g_ptr_array_set_size (job->stage.free_stages, 0);
  g_ptr_array_set_size (job->stage.stages, 0);   /* frees them */
  _cs_io_close (&job->counters, job->stage.stage_root_fd);
  job->stage.stage_root_fd = -1;
}

void
_cs_stage_remove_leftover (CsJob      *job,
                           int         dir_fd,
                           const char *name)
{
  g_autofree guint8 *buf = NULL;
  struct stat st;
  ssize_t n;
  int fd;

  if (job->setup.settings.dry_run)
    return;
  fd = _cs_io_openat (&job->counters, dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
  if (fd < 0)
    return;
  /* Only a folder we own: the pattern alone proves nothing about someone else's. */
  if (_cs_io_fstat (&job->counters, fd, &st) != 0 || st.st_uid != job->life.euid)
    {
      _cs_io_close (&job->counters, fd);
      return;
    }

  buf = g_malloc (DENTS_BUFFER_SIZE);
  while ((n = _cs_io_getdents (&job->counters, fd, buf, DENTS_BUFFER_SIZE)) > 0)
    {
      for (ssize_t off = 0; off < n;)
        {
          struct linux_dirent64 *d = (struct linux_dirent64 *) (buf + off);
          struct stat tst;

          off += d->d_reclen;
          if (strcmp (d->d_name, ".") == 0 || strcmp (d->d_name, "..") == 0)
            continue;
          if (_cs_name_is_our_temp (d->d_name)
              && _cs_io_fstatat (&job->counters, fd, d->d_name, &tst, AT_SYMLINK_NOFOLLOW) == 0
              && (S_ISREG (tst.st_mode) || S_ISLNK (tst.st_mode)) && tst.st_uid == job->life.euid)
            _cs_io_unlinkat (&job->counters, fd, d->d_name, 0);
          /* The empty folders a probe of names makes (cs-dest-fs.c), under
           * whatever name the filesystem gave them; a folder with anything
           * in it stays. */
          else if (d->d_type == DT_DIR || d->d_type == DT_UNKNOWN)
            _cs_io_unlinkat (&job->counters, fd, d->d_name, AT_REMOVEDIR);
        }
    }
  _cs_io_close (&job->counters, fd);
  /* Fails, and so keeps the folder, if anything that is not ours is inside. */
  _cs_io_unlinkat (&job->counters, dir_fd, name, AT_REMOVEDIR);
}
