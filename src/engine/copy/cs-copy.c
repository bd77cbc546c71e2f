/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-copy"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "cs-copy-private.h"
#include "cs-big-file-private.h"
#include "cs-copy-attrs-private.h"
#include "cs-copy-data-private.h"
#include "cs-copy-outcome-private.h"
#include "cs-dest-fs-private.h"
#include "cs-dir-private.h"
#include "cs-job-private.h"
#include "cs-links-private.h"
#include "cs-metadata-private.h"
#include "cs-move-private.h"
#include "cs-publish-private.h"
#include "cs-resume-private.h"
#include "cs-stage-private.h"
#include "cs-tweak-private.h"

/*
 * One item: what to do with it (decide), then a file written to a hidden
 * temporary next to its final name (or in a staging folder), checked, given
 * its metadata, and only then published under its name; a symbolic link, a
 * FIFO or a device made anew the same way; a later name of a file linked to
 * its first. A file under its final name is always complete; a cancel, a kill
 * or an error leaves at most a temporary that the next run recognises and
 * removes. The bytes are cs-copy-data.c's, the metadata cs-copy-attrs.c's,
 * the publishing cs-publish.c's, big files cs-big-file.c's, and what came of
 * an attempt (retries, records) cs-copy-outcome.c's.
 */

/* Whether the source changed (was written, replaced, renamed into place)
 * after the destination file was last written: then a destination with a
 * later modification time is a copy of what the source was, not a newer
 * file, as when a source is replaced by an older-dated one (a version
 * restored from a backup). To the nanosecond where the destination keeps
 * them, else by whole seconds, as a share may keep no more. */
static gboolean
changed_since (const struct stat *src,
               const struct stat *dst)
{
  if (dst->st_ctim.tv_sec == 0)
    return FALSE;   /* a filesystem that shows no change time */
  if (dst->st_ctim.tv_nsec == 0)
    return src->st_ctim.tv_sec > dst->st_ctim.tv_sec;
  return src->st_ctim.tv_sec > dst->st_ctim.tv_sec
         || (src->st_ctim.tv_sec == dst->st_ctim.tv_sec && src->st_ctim.tv_nsec > dst->st_ctim.tv_nsec);
}

const char *
_cs_copy_type_name (mode_t mode)
{
  switch (mode & S_IFMT)
    {
    case S_IFDIR:
      return "a folder";
    case S_IFLNK:
      return "a symbolic link";
    case S_IFREG:
      return "a file";
    case S_IFIFO:
      return "a FIFO";
    case S_IFCHR:
      return "a character device";
    case S_IFBLK:
      return "a block device";
    case S_IFSOCK:
      return "a socket";
    default:
      return "something else";
    }
}

/* any worker, or the scanner for big files and dry runs */
CsAction
_cs_copy_decide (CsJob             *job,
                 CsDir             *dir,
                 const char        *name,
                 const char        *dst_name,
                 const struct stat *src)
{
  struct stat dst;

  if (dir->dst_new)
    return CS_ACTION_COPY;

  if (_cs_io_fstatat (&job->counters, dir->dst_fd, dst_name, &dst, AT_SYMLINK_NOFOLLOW) != 0)
    {
      if (errno == ENOENT)
        return CS_ACTION_COPY;
      _cs_job_report_item (job, dir, name, dst_name, (guint64) src->st_size, FALSE,
                           "stat destination", errno, NULL, 1);
      return CS_ACTION_FAIL;
    }
  return _cs_copy_decide_against (job, dir, name, dst_name, src, &dst);
}

/* any worker, or the scanner from a folder's listing */
CsAction
_cs_copy_decide_against (CsJob             *job,
                         CsDir             *dir,
                         const char        *name,
                         const char        *dst_name,
                         const struct stat *src,
                         const struct stat *there)
{
  struct stat dst = *there;

  /* A claim a killed run left: ours, holding no data, replaced like a
   * temporary — with its text, or killed before the text was written. */
  if (!S_ISDIR (dst.st_mode)
      && (_cs_publish_is_placeholder (job, dir, dst_name, &dst) || _cs_dir_is_unwritten_claim (dir, dst_name, &dst)))
    return CS_ACTION_REPLACE;

  /* Another kind of entry under the name: times of a link and a file say
   * nothing about which is newer, and a folder is never replaced by a file
   * here. A mirror lists it with its extras and replaces it once they are
   * deleted (cs-mirror.c); a copy leaves it and says so, unless told to
   * replace whatever is there (the name is renamed over, never written
   * through). */
  if ((dst.st_mode & S_IFMT) != (src->st_mode & S_IFMT)
      && (S_ISDIR (dst.st_mode) || job->setup.settings.overwrite != CS_OVERWRITE_ALWAYS))
    {
      g_autofree char *message = g_strdup_printf ("Not replaced: the destination is %s, the source %s",
                                                  _cs_copy_type_name (dst.st_mode),
                                                  _cs_copy_type_name (src->st_mode));

      _cs_job_report_item (job, dir, name, dst_name, (guint64) src->st_size, FALSE, "replace",
                           S_ISDIR (dst.st_mode) ? EISDIR : EEXIST, message, 1);
      return CS_ACTION_FAIL;
    }

  if (job->setup.settings.overwrite == CS_OVERWRITE_ALWAYS)
    return CS_ACTION_REPLACE;
  if (dst.st_size == src->st_size && _cs_copy_same_mtime (&dst, src)
      && (!(S_ISCHR (src->st_mode) || S_ISBLK (src->st_mode)) || dst.st_rdev == src->st_rdev))
    {
      /* The data is there; its mode, owner, attributes may not be. */
      _cs_tweak_metadata (job, dir, name, dst_name, src, &dst);
      return CS_ACTION_SKIP;
    }

  switch (job->setup.settings.overwrite)
    {
    case CS_OVERWRITE_NEVER:
      return CS_ACTION_SKIP_KEPT;
    case CS_OVERWRITE_DIFFERENT:
      return CS_ACTION_REPLACE;
    case CS_OVERWRITE_NEWER:
      return _cs_copy_newer (&dst, src) && !changed_since (src, &dst) ? CS_ACTION_SKIP_NEWER : CS_ACTION_REPLACE;
    case CS_OVERWRITE_ASK:
      {
        gboolean all = FALSE;

        switch (_cs_job_ask (job, dir, dst_name, src, &dst, &all))
          {
          case CS_CONFLICT_REPLACE:
            return CS_ACTION_REPLACE;
          case CS_CONFLICT_KEEP_BOTH:
            return CS_ACTION_KEEP_BOTH;
          case CS_CONFLICT_SKIP:
          default:
            return CS_ACTION_SKIP_KEPT;
          }
      }
    case CS_OVERWRITE_ALWAYS:
    default:
      return CS_ACTION_REPLACE;
    }
}

/* scanner thread */
gboolean
_cs_copy_decide_identical (CsJob             *job,
                           CsDir             *dir,
                           const char        *name,
                           const char        *dst_name,
                           const struct stat *src)
{
  struct stat dst;

  if (dir->dst_new || dir->dst_fd < 0 || job->setup.settings.overwrite == CS_OVERWRITE_ALWAYS
      || _cs_io_fstatat (&job->counters, dir->dst_fd, dst_name, &dst, AT_SYMLINK_NOFOLLOW) != 0)
    return FALSE;
  return _cs_copy_identical_to (job, dir, name, dst_name, src, &dst);
}

/* scanner thread */
gboolean
_cs_copy_identical_to (CsJob             *job,
                       CsDir             *dir,
                       const char        *name,
                       const char        *dst_name,
                       const struct stat *src,
                       const struct stat *dst)
{
  /* What a worker's decision would skip as identical, by the same rules in
   * the same order (_cs_copy_decide), and nothing else: all that decision
   * reports, asks or replaces stays with the worker. */
  if (dir->dst_new || dir->dst_fd < 0 || job->setup.settings.overwrite == CS_OVERWRITE_ALWAYS
      || (dst->st_mode & S_IFMT) != (src->st_mode & S_IFMT) || S_ISDIR (dst->st_mode)
      || dst->st_size != src->st_size || !_cs_copy_same_mtime (dst, src)
      || ((S_ISCHR (src->st_mode) || S_ISBLK (src->st_mode)) && dst->st_rdev != src->st_rdev)
      || _cs_publish_is_placeholder (job, dir, dst_name, dst) || _cs_dir_is_unwritten_claim (dir, dst_name, dst))
    return FALSE;
  _cs_tweak_metadata (job, dir, name, dst_name, src, dst);
  return TRUE;
}

gboolean
_cs_copy_dest_is_local (CsJob *job,
                        CsDir *dir)
{
  return dir->dst_fd >= 0 && !_cs_copy_on_share (dir->dst_fd) && !_cs_job_destination_remote (job);
}

/* Writes @item into a temporary in @folder_fd and publishes it. */
static CsOutcome
copy_file_attempt (CsJob    *job,
               CsWorker *worker,
               CsItem   *item,
               CsAction  action,
               int       folder_fd)
{
  const char *final = item->dst_name != NULL ? item->dst_name : item->name;
  char tmp[96] = "";
  int src_fd, tmp_fd = -1;
  mode_t created_mode = 0600;
  gboolean unnamed, when_published;
  CsTimes times_state;
  CsOutcome o;

  src_fd = _cs_copy_open_source (job, item->dir, item->name);
  if (src_fd < 0)
    return _cs_fail (errno, "open");

  /* A new file beside the others starts as an unnamed temporary where the
   * filesystem has them (see _cs_publish_unnamed); a replacement still needs a
   * name to rename over the old file atomically. */
  unnamed = folder_fd == item->dir->dst_fd && action == CS_ACTION_COPY
            && !atomic_load_explicit (&job->caps.no_unnamed, memory_order_relaxed);
  if (unnamed)
    {
      tmp_fd = _cs_io_openat (&job->counters, folder_fd, ".", O_RDWR | O_TMPFILE,
                              item->st.st_mode & 0777);
      if (tmp_fd >= 0)
        created_mode = item->st.st_mode & 0777;
      else if (errno == EISDIR || errno == ENOENT || _cs_io_is_unsupported (errno))
        {
          /* Kernels and filesystems without O_TMPFILE answer these. */
          atomic_store (&job->caps.no_unnamed, 1);
          unnamed = FALSE;
        }
      else
        {
          o = _cs_fail (errno, "create");
          goto out;
        }
    }

  /* Beside the final files a named temporary is private (0600) until
   * published. Nobody else can reach an unnamed one, or one in our own staging
   * folder (0700), so those are created with their final permissions and
   * usually need no chmod. */
  if (!unnamed)
    {
      if (folder_fd != item->dir->dst_fd)
        created_mode = item->st.st_mode & 0777;

      /* A new file that will be published by a claim is written under the
       * name that says so (publish_claimed), which saves renaming it there:
       * 3 of the 25 SMB2 requests a small file took. */
      if (action == CS_ACTION_COPY && folder_fd == item->dir->dst_fd
          && _cs_publishes_by_claim (job, item->dir))
        _cs_publish_intent_name (job, final, tmp, sizeof tmp);
      else
        _cs_publish_temp_name (job, tmp, sizeof tmp);
      /* Read-write: --verify reads the copy back through this descriptor. */
      tmp_fd = _cs_io_openat (&job->counters, folder_fd, tmp,
                              O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, created_mode);
      if (tmp_fd < 0)
        {
          o = _cs_fail (errno, "create");
          tmp[0] = '\0';
          goto out;
        }
    }

  o = CS_OK;
  if (item->dir->src_pseudo)
    o = _cs_copy_to_end (job, worker, src_fd, tmp_fd, &item->read_size);
  else if (item->st.st_size > 0)
    {
      gboolean cloned = FALSE;

      if (!atomic_load_explicit (&job->caps.no_clone, memory_order_relaxed) && !_cs_copy_is_sparse (&item->st))
        {
          if (_cs_io_clone (&job->counters, tmp_fd, src_fd, (guint64) item->st.st_size) == 0)
            cloned = TRUE;
          else if (_cs_io_is_unsupported (errno))
            atomic_store (&job->caps.no_clone, 1);
          else
            o = _cs_fail (errno, "clone");
        }
      if (!cloned && o.code == 0)
        o = _cs_copy_data (job, worker, src_fd, tmp_fd, &item->st, 0, (guint64) item->st.st_size);
    }

  when_published = _cs_copy_times_when_published (item, &times_state) && action != CS_ACTION_KEEP_BOTH;
  if (o.code == 0)
    o = _cs_copy_finish_temp (job, worker, item, src_fd, tmp_fd, created_mode, &item->st, !when_published);
  if (o.code == 0 && unnamed)
    {
      o = _cs_publish_unnamed (job, tmp_fd, item->dir, final);
      _cs_io_close (&job->counters, tmp_fd);
      tmp_fd = -1;
    }
  else if (o.code == 0)
    {
      _cs_io_close (&job->counters, tmp_fd);
      tmp_fd = -1;
      o = _cs_publish (job, folder_fd, tmp, item->dir, final, action);
      if (o.code == 0)
        tmp[0] = '\0';
    }
  if (o.code == 0)
    _cs_copy_keep_times (job, worker, item, action, when_published, times_state);

out:
  if (o.code != 0)
    _cs_publish_discard_temp (job, folder_fd, &tmp_fd, tmp);
  _cs_io_close (&job->counters, src_fd);

  return o;
}

/* A big file through its partial (cs-resume-private.h): the blocks an
 * earlier run wrote and the journal proves are kept, the others copied. */
static CsOutcome
copy_resumable (CsJob    *job,
                CsWorker *worker,
                CsItem   *item,
                CsAction  action)
{
  const char *final = item->dst_name != NULL ? item->dst_name : item->name;
  guint64 size = (guint64) item->st.st_size;
  CsResume *resume;
  CsTimes times_state;
  gboolean when_published;
  CsOutcome o = CS_OK;
  gint64 started;
  int src_fd, tmp_fd, code;

  src_fd = _cs_copy_open_source (job, item->dir, item->name);
  if (src_fd < 0)
    return _cs_fail (errno, "open");
  resume = _cs_resume_open (job, worker, item->dir, final, src_fd, &item->st);
  if (resume == NULL)
    {
      o = errno == EBUSY || errno == EEXIST || _cs_io_is_unsupported (errno)
          ? _cs_fail (CS_ERR_NO_RESUME, NULL) : _cs_fail (errno, "create");
      _cs_io_close (&job->counters, src_fd);
      return o;
    }
  tmp_fd = _cs_resume_get_fd (resume);
  worker->resumed = _cs_resume_get_kept (resume);

  for (guint64 off = 0; off < size && o.code == 0; off += CS_RESUME_BLOCK)
    {
      guint64 length = MIN (CS_RESUME_BLOCK, size - off);

      if (_cs_resume_has_block (resume, off))
        {
          /* Kept: progress as if copied now. */
          worker->partial += length;
          atomic_fetch_add_explicit (&job->tally.bytes_partial, length, memory_order_relaxed);
          continue;
        }
      /* The fastest way the filesystems allow (copy_file_range), then, where
       * journaling pays (_cs_resume_pays), the block's hash read back from
       * the partial's pages while the next one copies. Hashing from the
       * buffer through pread/pwrite took 2.74 s for a warm 2 GiB against
       * cp's 0.64 s; reading every block back before the next, 1.54 s
       * against 0.54 s (bench/resume-overhead). */
      started = g_get_monotonic_time ();
      o = _cs_copy_data (job, worker, src_fd, tmp_fd, &item->st, off, length);
      if (o.code == 0 && !_cs_copied_by_server (worker, tmp_fd, length)
          && _cs_resume_pays (length, g_get_monotonic_time () - started)
          && (code = _cs_resume_hash_later (resume, off, length)) != 0)
        o = _cs_fail (code, "write journal");
    }
  if (o.code == 0 && (code = _cs_resume_hashed (resume)) != 0)
    o = _cs_fail (code, "write journal");
  when_published = _cs_copy_times_when_published (item, &times_state) && action != CS_ACTION_KEEP_BOTH;
  if (o.code == 0)
    o = _cs_copy_finish_temp (job, worker, item, src_fd, tmp_fd, 0600, &item->st, !when_published);
  if (o.code == 0)
    {
      _cs_resume_release_fd (job, resume);
      o = _cs_publish (job, item->dir->dst_fd, _cs_resume_get_name (resume), item->dir, final, action);
    }
  _cs_resume_close (job, resume, o.code == 0, o.code != 0 && _cs_copy_keeps_partial (job, o.code));
  if (o.code == 0)
    _cs_copy_keep_times (job, worker, item, action, when_published, times_state);
  _cs_io_close (&job->counters, src_fd);

  return o;
}

/* copy_file_attempt, again with a named temporary when an unnamed one could
 * not be linked in (the job then writes named ones from the start). */
static CsOutcome
copy_file_via (CsJob    *job,
               CsWorker *worker,
               CsItem   *item,
               CsAction  action,
               int       folder_fd)
{
  CsOutcome o = copy_file_attempt (job, worker, item, action, folder_fd);

  if (o.code == CS_ERR_NO_UNNAMED)
    o = copy_file_attempt (job, worker, item, action, folder_fd);
  return o;
}

static CsOutcome
copy_file_once (CsJob    *job,
                CsWorker *worker,
                CsItem   *item,
                CsAction  action)
{
  CsStage *stage = NULL;
  CsOutcome o;

  /* Written beside its final name, never staged: the partial stays there. */
  if (!item->dir->src_pseudo && _cs_resume_wanted (job, &item->st))
    {
      o = copy_resumable (job, worker, item, action);
      if (o.code != CS_ERR_NO_RESUME)
        return o;
    }

  /* Staging pays where workers queue for a folder's lock; one or two workers
   * hardly do, and a rename between folders costs them a round trip more
   * (lab NAS, 100 files, 1 thread: 1.5 s beside, 1.8 s staged). Nor where
   * files are published by a claim: the claim and the renames take the
   * folder's lock anyway, and a staged file is renamed into the folder
   * before its claim, where one written beside is created under its
   * intent's name (3 SMB2 requests a file). */
  if ((job->setup.staging == CS_STAGING_ALWAYS || _cs_job_threads (job) >= 4)
      && !atomic_load_explicit (&item->dir->no_stage, memory_order_relaxed)
      && (job->setup.staging == CS_STAGING_ALWAYS || !_cs_publishes_by_claim (job, item->dir)))
    stage = _cs_stage_acquire (job);
  if (stage == NULL)
    return copy_file_via (job, worker, item, action, item->dir->dst_fd);

  o = copy_file_via (job, worker, item, action, stage->fd);
  _cs_stage_release (job, stage);
  /* A folder on another filesystem (a share mounted inside the destination):
   * its files are written beside them, this one again. */
  if (o.code == EXDEV)
    {
      atomic_store (&item->dir->no_stage, 1);
      o = copy_file_via (job, worker, item, action, item->dir->dst_fd);
    }

  return o;
}

static CsOutcome
copy_symlink_once (CsJob    *job,
                   CsWorker *worker,
                   CsItem   *item,
                   CsAction  action)
{
  const char *final = item->dst_name != NULL ? item->dst_name : item->name;
  gsize size = MAX ((gsize) item->st.st_size + 1, 256);
  g_autofree char *target = g_malloc (size);
  struct timespec times[2] = { item->st.st_atim, item->st.st_mtim };
  char tmp[64];
  ssize_t n;
  CsOutcome o;

  n = _cs_io_readlinkat (&job->counters, item->dir->src_fd, item->name, target, size);
  if (n < 0)
    return _cs_fail (errno, "read link");
  if ((gsize) n >= size)
    return _cs_fail (CS_ERR_SOURCE_CHANGED, "read link");
  target[n] = '\0';

  if (_cs_metadata_refused (job, CS_METADATA_LINKS))
    return _cs_fail (CS_ERR_NOT_HELD, "create link");
  _cs_publish_temp_name (job, tmp, sizeof tmp);
  if (_cs_io_symlinkat (&job->counters, target, item->dir->dst_fd, tmp) != 0)
    return _cs_fail (_cs_metadata_refuse (job, CS_METADATA_LINKS, errno) ? CS_ERR_NOT_HELD : errno,
                     "create link");

  if (job->life.euid == 0)
    _cs_io_fchownat (&job->counters, item->dir->dst_fd, tmp, item->st.st_uid, item->st.st_gid,
                     AT_SYMLINK_NOFOLLOW);
  /* A link's own time is not worth the link: where the destination refuses
   * it, it is only counted. */
  if (_cs_metadata_refused (job, CS_METADATA_LINK_TIMES))
    worker->lost |= 1u << CS_METADATA_LINK_TIMES;
  else if (_cs_io_utimensat (&job->counters, item->dir->dst_fd, tmp, times, AT_SYMLINK_NOFOLLOW) != 0)
    {
      if (!_cs_metadata_refuse (job, CS_METADATA_LINK_TIMES, errno))
        {
          o = _cs_fail (errno, "set times");
          _cs_io_unlinkat (&job->counters, item->dir->dst_fd, tmp, 0);
          return o;
        }
      worker->lost |= 1u << CS_METADATA_LINK_TIMES;
    }

  o = _cs_publish (job, item->dir->dst_fd, tmp, item->dir, final, action);
  if (o.code != 0)
    _cs_io_unlinkat (&job->counters, item->dir->dst_fd, tmp, 0);

  return o;
}

/*
 * A FIFO or a device node: made anew under a temporary name with mknod, given
 * its owner (as root), mode and times, and published like a file. Never
 * opened: a FIFO's read would wait for a writer, a device's would read the
 * device. Making a device needs root (CAP_MKNOD); without it, or on a
 * destination that cannot hold such nodes, it is skipped with a note.
 */
static CsOutcome
copy_special_once (CsJob    *job,
                   CsWorker *worker,
                   CsItem   *item,
                   CsAction  action)
{
  const char *final = item->dst_name != NULL ? item->dst_name : item->name;
  struct timespec times[2] = { item->st.st_atim, item->st.st_mtim };
  int dst_fd = item->dir->dst_fd;
  char tmp[64];
  gboolean cleared;
  mode_t mode;
  CsOutcome o = CS_OK;

  _cs_publish_temp_name (job, tmp, sizeof tmp);
  if (_cs_io_mknodat (&job->counters, dst_fd, tmp, (item->st.st_mode & S_IFMT) | 0600,
                      item->st.st_rdev) != 0)
    return _cs_fail (errno == EPERM || _cs_io_is_unsupported (errno) ? CS_ERR_CANNOT_MAKE : errno, "create");

  /* What the destination refuses is counted as lost, as for files. */
  if (job->life.euid == 0 && !_cs_metadata_refused (job, CS_METADATA_OWNERS)
      && _cs_io_fchownat (&job->counters, dst_fd, tmp, item->st.st_uid, item->st.st_gid,
                          AT_SYMLINK_NOFOLLOW) != 0
      && !_cs_metadata_refuse (job, CS_METADATA_OWNERS, errno))
    o = _cs_fail (errno, "chown");
  if (job->life.euid == 0 && _cs_metadata_refused (job, CS_METADATA_OWNERS))
    worker->lost |= 1u << CS_METADATA_OWNERS;
  mode = _cs_metadata_mode (job, dst_fd, tmp, &item->st, &cleared);
  if (cleared)
    worker->lost |= 1u << CS_METADATA_SPECIAL_BITS;
  if (o.code == 0 && !_cs_metadata_refused (job, CS_METADATA_MODES)
      && _cs_io_fchmodat (&job->counters, dst_fd, tmp, mode) != 0
      && !_cs_metadata_refuse (job, CS_METADATA_MODES, errno))
    o = _cs_fail (errno, "chmod");
  if (_cs_metadata_refused (job, CS_METADATA_MODES))
    worker->lost |= 1u << CS_METADATA_MODES;
  if (o.code == 0
      && _cs_io_utimensat (&job->counters, dst_fd, tmp, times, AT_SYMLINK_NOFOLLOW) != 0)
    o = _cs_fail (errno, "set times");
  if (o.code == 0)
    o = _cs_publish (job, dst_fd, tmp, item->dir, final, action);
  if (o.code != 0)
    _cs_io_unlinkat (&job->counters, dst_fd, tmp, 0);

  return o;
}

static CsOutcome
symlink_once (CsJob    *job,
              CsWorker *worker,
              CsItem   *item,
              CsAction  action)
{
  return copy_symlink_once (job, worker, item, action);
}

static CsOutcome
special_once (CsJob    *job,
              CsWorker *worker,
              CsItem   *item,
              CsAction  action)
{
  return copy_special_once (job, worker, item, action);
}

/* A later name's copy in place of a link: the destination cannot link
 * (FAT, most SMB shares; then it is not asked again), the first name's copy
 * is gone, or it has too many links. The contents are the same either way,
 * and what was not kept is said at the end (cs-metadata.c). */
static gboolean
link_refused (CsJob *job,
              int    code)
{
  if (_cs_metadata_refuse (job, CS_METADATA_HARD_LINKS, code))
    return TRUE;
  return code == EMLINK || code == EXDEV || code == ENOENT || code == ENAMETOOLONG
         || _cs_io_is_unsupported (code);
}

/* A later name of a file, linked to the copy of its first name: new by one
 * hard link (which fails on an existing name, as RENAME_NOREPLACE does); in
 * place of an older file by a link under a temporary name and a rename over
 * it, so the old file stays whole until then. */
static CsOutcome
link_once (CsJob    *job,
           CsWorker *worker,
           CsItem   *item,
           CsAction  action)
{
  const char *final = item->dst_name != NULL ? item->dst_name : item->name;
  const char *target = _cs_link_target (item->link);
  int dst_fd = item->dir->dst_fd;
  char tmp[64];
  CsOutcome o;

  if (action == CS_ACTION_COPY)
    {
      if (_cs_io_linkat (&job->counters, AT_FDCWD, target, dst_fd, final, 0) == 0)
        return CS_OK;
      if (errno == EEXIST)
        return _cs_fail (CS_ERR_APPEARED, "link");
      return _cs_fail (link_refused (job, errno) ? CS_ERR_NO_LINK : errno, "link");
    }

  _cs_publish_temp_name (job, tmp, sizeof tmp);
  if (_cs_io_linkat (&job->counters, AT_FDCWD, target, dst_fd, tmp, 0) != 0)
    return _cs_fail (link_refused (job, errno) ? CS_ERR_NO_LINK : errno, "link");
  if (_cs_io_renameat2 (&job->counters, dst_fd, tmp, dst_fd, final, 0) == 0)
    return CS_OK;
  o = _cs_fail (errno, "rename");
  _cs_io_unlinkat (&job->counters, dst_fd, tmp, 0);
  return o;
}

/* Whether @final in @item's destination folder is its first name's copy
 * already (one file, linked). */
static gboolean
same_file_as_target (CsJob      *job,
                     CsItem     *item,
                     const char *final)
{
  struct stat a, b;

  if (_cs_io_fstatat (&job->counters, AT_FDCWD, _cs_link_target (item->link), &a, AT_SYMLINK_NOFOLLOW) != 0
      || _cs_io_fstatat (&job->counters, item->dir->dst_fd, final, &b, AT_SYMLINK_NOFOLLOW) != 0)
    return TRUE;   /* nothing to link to, or nothing there: left as decided */
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The first name of a file is done: @ready when its copy is at the
 * destination, identical. The names that waited for it are taken up here. */
static void
settle_first (CsJob    *job,
              CsWorker *worker,
              CsLink   *link,
              gboolean  ready)
{
  CsItem *waiter = _cs_link_settle (job, link, ready);

  while (waiter != NULL)
    {
      CsItem *next = waiter->next;

      waiter->next = NULL;
      /* Settled: it cannot be put aside again. */
      _cs_copy_item (job, worker, waiter);
      _cs_item_free (waiter);
      _cs_job_release_held (job);
      waiter = next;
    }
}

/* worker thread */
gboolean
_cs_copy_item (CsJob    *job,
               CsWorker *worker,
               CsItem   *item)
{
  const char *final = item->dst_name != NULL ? item->dst_name : item->name;
  guint64 size = item->kind == CS_ITEM_SYMLINK ? 0 : (guint64) item->st.st_size;
  gboolean first = item->link != NULL && item->link_first;
  gboolean linked = FALSE, ready = FALSE;
  CsAction action;
  guint attempts = 0;
  CsOutcome o;

  worker->partial = 0;
  worker->lost = 0;
  worker->resumed = 0;
  worker->has_digest = FALSE;
  if (item->kind == CS_ITEM_CHUNK)
    {
      CsLink *settled = _cs_big_copy_chunk (job, worker, item, &ready);

      if (settled != NULL)
        settle_first (job, worker, settled, ready);
      /* A big file's chunks count as progress until the whole file is done. */
      atomic_fetch_add (&item->big->partial, worker->partial);
      _cs_big_unref (job, item->big);
      return TRUE;
    }

  if (_cs_job_stopping (job))
    return TRUE;

  /* A later name: linked once its first name's copy is there; until then
   * it waits with that file, off the queue. */
  if (item->link != NULL && !first)
    switch (_cs_link_wait (job, item))
      {
      case CS_LINK_PENDING:
        return FALSE;
      case CS_LINK_READY:
        linked = TRUE;
        break;
      case CS_LINK_NONE:
      default:
        break;
      }

  action = _cs_copy_decide (job, item->dir, item->name, final, &item->st);
  /* The same data under a later name is not yet the same file: names
   * linked since the last run are linked here too (rsync -H). */
  if (linked && action == CS_ACTION_SKIP && job->setup.settings.operation != CS_OPERATION_MOVE
      && !same_file_as_target (job, item, final))
    action = CS_ACTION_REPLACE;
  _cs_job_count_decided (job, action);
  if (job->setup.settings.operation == CS_OPERATION_MOVE && _cs_move_item (job, worker, item, action))
    {
      _cs_manifest_moved (job, worker, item, action);
      /* As for a copy, only an identical file there is one the later names
       * may share; renamed ones keep their links by themselves. */
      if (first)
        settle_first (job, worker, item->link, action == CS_ACTION_SKIP);
      return TRUE;
    }
  if (action >= CS_ACTION_SKIP)
    {
      _cs_job_account (job, item->dir, item->name, final, action, size);
      if (action != CS_ACTION_FAIL)
        _cs_manifest_kept (job, worker, item);
      /* Only an identical file there is one the later names may share. */
      if (first)
        settle_first (job, worker, item->link, action == CS_ACTION_SKIP);
      return TRUE;
    }
  if (!_cs_limiter_take (&job->limits.file_limit, 1))
    return TRUE;

  o = _cs_fail (CS_ERR_NO_LINK, NULL);
  if (linked && action != CS_ACTION_KEEP_BOTH && !_cs_metadata_refused (job, CS_METADATA_HARD_LINKS))
    o = _cs_copy_with_retries (job, link_once, worker, item, action, &attempts);
  if (o.code == CS_ERR_NO_LINK && linked)
    worker->lost |= 1u << CS_METADATA_HARD_LINKS;
  if (o.code == CS_ERR_NO_LINK)
    o = _cs_copy_with_retries (job, item->kind == CS_ITEM_SYMLINK ? symlink_once
                           : item->kind == CS_ITEM_SPECIAL ? special_once : copy_file_once,
                               worker, item, action, &attempts);
  atomic_fetch_sub_explicit (&job->tally.bytes_partial, worker->partial, memory_order_relaxed);
  if (o.code == 0 && item->dir->src_pseudo)
    {
      /* Counted by its size when found; by what it held once read. */
      _cs_job_correct_found_bytes (job, size, item->read_size);
      _cs_copy_record_success (job, worker, item, action, item->read_size);
    }
  else if (o.code == 0)
    {
      _cs_copy_record_success (job, worker, item, action, size);
      ready = action != CS_ACTION_KEEP_BOTH;
    }
  else if (o.code == CS_ERR_APPEARED && _cs_copy_appeared_identical (job, item->dir, final, &item->st))
    {
      _cs_job_account (job, item->dir, item->name, final, CS_ACTION_SKIP, size);
      _cs_manifest_kept (job, worker, item);
      ready = TRUE;
    }
  else if (o.code == CS_ERR_CANNOT_MAKE)
    {
      const char *message = S_ISFIFO (item->st.st_mode) || job->life.euid == 0
                            ? "Not copied: the destination cannot hold this FIFO or device"
                            : "Not copied: only root can make a device node";

      _cs_job_note (job, item->dir, item->name, "special file", 0, message);
      _cs_job_log (job, item->dir, item->name, "skipped", 0, message + strlen ("Not copied: "));
      _cs_job_add_total (job, CS_CLASS_SKIPPED, 1, 0);
      atomic_fetch_add_explicit (&job->counters.files_done, 1, memory_order_relaxed);
      if (job->setup.settings.operation == CS_OPERATION_MOVE)
        atomic_fetch_add (&job->tally.kept_files, 1);
    }
  else
    _cs_copy_record_failure (job, item, final, o, attempts, size);

  /* A "keep both" copy went under another name, which the manifest does
   * not learn. */
  if (o.code == 0 && action != CS_ACTION_KEEP_BOTH)
    _cs_manifest_copied (job, worker, item);
  if (first)
    settle_first (job, worker, item->link, ready);
  return TRUE;
}
