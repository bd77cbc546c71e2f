/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-copy"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "cs-copy-attrs-private.h"
#include "cs-copy-data-private.h"
#include "cs-dest-fs-private.h"
#include "cs-job-private.h"
#include "cs-manifest-private.h"
#include "cs-metadata-private.h"
#include "cs-xattrs-private.h"

/*
 * What a copied file has besides its bytes, given to its temporary before it
 * is published (the source checked unchanged, --verify, extended attributes,
 * owner, mode) and its times, kept as each destination keeps them; and the
 * comparison of times at the precision a destination keeps.
 */

/* The worker's buffer also holds an extended attribute's list and value. */

/* The worker's buffer also holds an extended attribute's list and value. */
G_STATIC_ASSERT (CS_BUFFER_SIZE >= CS_XATTRS_BUFFER_SIZE);

static gboolean
same_time (const struct timespec *a,
           const struct timespec *b)
{
  return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* The precision a destination keeps shows in its stamp: trailing zeros in
 * the nanoseconds (a multiple of 10^6 for a share with milliseconds), none at
 * all for whole seconds, and an even whole second for a share that keeps 2 s
 * (FAT, and the NAS appliances built on it, like Robocopy's /FFT).  A stamp
 * that looks coarse by chance only makes the comparison of that one file
 * coarser: its size must still match. */
static gint64
kept_precision_ns (const struct stat *dst)
{
  long nsec = dst->st_mtim.tv_nsec;
  gint64 g = 1;

  if (nsec == 0)
    return (dst->st_mtim.tv_sec % 2 == 0 ? 2 : 1) * G_GINT64_CONSTANT (1000000000);
  while (g < G_GINT64_CONSTANT (1000000000) && nsec % (g * 10) == 0)
    g *= 10;
  return g;
}

/* @dst minus @src in ns, clamped to ±4 s: only differences up to 2 s matter. */
static gint64
mtime_diff_ns (const struct stat *dst,
               const struct stat *src)
{
  gint64 secs = (gint64) dst->st_mtim.tv_sec - (gint64) src->st_mtim.tv_sec;

  secs = CLAMP (secs, -4, 4);
  return secs * G_GINT64_CONSTANT (1000000000) + (dst->st_mtim.tv_nsec - src->st_mtim.tv_nsec);
}

/* Equal at the precision the destination keeps, whether the share rounded the
 * time down or up. */
gboolean
_cs_copy_same_mtime (const struct stat *dst,
                     const struct stat *src)
{
  gint64 d = mtime_diff_ns (dst, src);

  return ABS (d) < kept_precision_ns (dst);
}

gboolean
_cs_copy_newer (const struct stat *dst,
                const struct stat *src)
{
  return mtime_diff_ns (dst, src) >= kept_precision_ns (dst);
}

/* The owner a fresh temporary shows on @fs, where chown is refused: the first
 * one's, asked once. A filesystem that refuses chown gives every file it
 * creates for us one owner (a share's login, a FAT mount's uid=), so asking
 * each file again costs a round trip (an SMB2 request) and tells nothing new. */
static gboolean
fresh_owner (CsDestFs *fs,
             uid_t    *uid,
             gid_t    *gid)
{
  guint64 v;

  if (fs == NULL || !atomic_load (&fs->fresh_owner_known))
    return FALSE;
  v = atomic_load (&fs->fresh_owner);
  *uid = (uid_t) (v >> 32);
  *gid = (gid_t) (v & G_MAXUINT32);
  return TRUE;
}

/* Whether @fd shows @st's owner; asked for alone, which a share answers from
 * the attributes the create brought back. Only after chown was refused. */
static gboolean
shows_owner (CsJob             *job,
             CsDestFs          *fs,
             int                fd,
             const struct stat *st)
{
  struct statx stx;
  uid_t uid;
  gid_t gid;

  if (!fresh_owner (fs, &uid, &gid))
    {
      if (_cs_io_statx (&job->counters, fd, "", AT_EMPTY_PATH, STATX_UID | STATX_GID, &stx) != 0)
        return FALSE;
      uid = stx.stx_uid;
      gid = stx.stx_gid;
      if (fs != NULL)
        {
          atomic_store (&fs->fresh_owner, (guint64) uid << 32 | (guint64) gid);
          atomic_store (&fs->fresh_owner_known, 1);
        }
    }
  return uid == st->st_uid && gid == st->st_gid;
}

/* Owner and group (as root), unless the destination refused them before. */
static CsOutcome
keep_owner (CsJob             *job,
            CsWorker          *worker,
            CsItem            *item,
            int                tmp_fd,
            const struct stat *st)
{
  /* A temporary we created in a folder we created already has our owner and
   * group; asking again costs a round trip per file on a share. */
  if (job->life.euid != 0 || (item->dir->dst_new && st->st_uid == job->life.euid && st->st_gid == job->life.egid))
    return CS_OK;
  if (!_cs_metadata_refused (job, CS_METADATA_OWNERS)
      && _cs_io_fchown (&job->counters, tmp_fd, st->st_uid, st->st_gid) == 0)
    return CS_OK;
  if (!_cs_metadata_refused (job, CS_METADATA_OWNERS)
      && !_cs_metadata_refuse (job, CS_METADATA_OWNERS, errno))
    return _cs_fail (errno, "chown");
  if (!shows_owner (job, item->dir->fs, tmp_fd, st))
    worker->lost |= 1u << CS_METADATA_OWNERS;
  return CS_OK;
}

/* The mode a fresh temporary created with @created_mode shows on @fs, where
 * chmod is refused: the first one's, asked once (as fresh_owner). */
static gboolean
fresh_mode (CsDestFs *fs,
            mode_t    created_mode,
            mode_t   *shown)
{
  guint v = fs != NULL ? atomic_load (&fs->fresh_mode) : 0;

  if (!(v & CS_FRESH_KNOWN) || ((v >> 12) & 07777) != (created_mode & 07777))
    return FALSE;
  *shown = v & 07777;
  return TRUE;
}

/* The mode, after chown (which clears set-id bits). A temporary created with
 * its final mode keeps it unless a umask took bits away; asking for the mode
 * alone is answered from the attributes the create brought back, where a
 * chmod is a round trip (two on sshfs) per file on a share. Where chmod is
 * refused, what a fresh temporary shows is asked of the first one only. */
static CsOutcome
keep_mode (CsJob    *job,
           CsWorker *worker,
           CsDestFs *fs,
           int       tmp_fd,
           mode_t    created_mode,
           mode_t    mode)
{
  mode_t now_mode = 0;
  gboolean shown = FALSE;

  if (_cs_metadata_refused (job, CS_METADATA_MODES) && fresh_mode (fs, created_mode, &now_mode))
    {
      if ((now_mode & 07777) != mode)
        worker->lost |= 1u << CS_METADATA_MODES;
      return CS_OK;
    }
  if (mode == created_mode)
    {
      shown = _cs_io_fstat_mode (&job->counters, tmp_fd, &now_mode) == 0;
      if (shown && (now_mode & 07777) == mode)
        return CS_OK;
    }
  if (!_cs_metadata_refused (job, CS_METADATA_MODES)
      && _cs_io_fchmod (&job->counters, tmp_fd, mode) == 0)
    return CS_OK;
  if (!_cs_metadata_refused (job, CS_METADATA_MODES)
      && !_cs_metadata_refuse (job, CS_METADATA_MODES, errno))
    return _cs_fail (errno, "chmod");
  if (!shown)
    shown = _cs_io_fstat_mode (&job->counters, tmp_fd, &now_mode) == 0;
  /* Refused, so this is what the create gave it. */
  if (shown && fs != NULL)
    atomic_store (&fs->fresh_mode, CS_FRESH_KNOWN | (guint) (created_mode & 07777) << 12
                                   | (guint) (now_mode & 07777));
  if (!shown || (now_mode & 07777) != mode)
    worker->lost |= 1u << CS_METADATA_MODES;
  return CS_OK;
}

/* Everything between "all bytes are in the temporary" and "ready to publish";
 * the times too when @times_on_fd (see _cs_copy_keep_times). */
CsOutcome
_cs_copy_finish_temp (CsJob             *job,
                      CsWorker          *worker,
                      CsItem            *item,
                      int                src_fd,
                      int                tmp_fd,
                      mode_t             created_mode,
                      const struct stat *st,
                      gboolean           times_on_fd)
{
  struct timespec times[2] = { st->st_atim, st->st_mtim };
  struct stat now;
  gboolean cleared;
  mode_t mode;
  CsOutcome o;

  if (!item->dir->src_pseudo && _cs_copy_is_sparse (st) && _cs_io_ftruncate (&job->counters, tmp_fd, st->st_size) != 0)
    return _cs_fail (errno, "truncate");

  /* The source must be the file we scanned, unchanged, or the copy is a mix.
   * The change time too: a program that rewrites a file and puts its mtime
   * back (tar, rsync, a backup tool) leaves size, mtime and inode as they
   * were, but not ctime, which no one can set. */
  if (_cs_io_fstat (&job->counters, src_fd, &now) != 0)
    return _cs_fail (errno, "stat");
  if (now.st_size != st->st_size || !same_time (&now.st_mtim, &st->st_mtim)
      || !same_time (&now.st_ctim, &st->st_ctim) || now.st_ino != st->st_ino
      || now.st_dev != st->st_dev)
    return _cs_fail (CS_ERR_SOURCE_CHANGED, "copy");

  /* A pseudo-file read again may read differently (a counter, the time): it
   * is not read back. */
  if (job->setup.settings.verify && st->st_size > 0 && !item->dir->src_pseudo)
    {
      guint8 a[16], b[16], sha[32];
      gboolean sha256 = _cs_manifest_wants_sha256 (job);

      /* Read the copy back from the device, not from the pages we just wrote. */
      if (_cs_io_fsync (&job->counters, tmp_fd) != 0)
        return _cs_fail (errno, "fsync");
      _cs_io_fadvise (tmp_fd, 0, 0, POSIX_FADV_DONTNEED);
      o = _cs_copy_hash_file (job, worker, src_fd, (guint64) st->st_size, a, NULL);
      if (o.code != 0)
        return o;
      /* XXH3-128, as xxhsum -H2: what is read back is the manifest's line. */
      o = _cs_copy_hash_file (job, worker, tmp_fd, (guint64) st->st_size, b, sha256 ? sha : NULL);
      if (o.code != 0)
        return o;
      if (memcmp (a, b, sizeof a) != 0)
        return _cs_fail (CS_ERR_MISMATCH, "verify");
      memcpy (worker->digest, sha256 ? sha : b, sha256 ? sizeof sha : sizeof b);
      worker->has_digest = TRUE;
    }

  worker->lost |= _cs_xattrs_copy (job, src_fd, tmp_fd, (char *) worker->buffer);
  o = keep_owner (job, worker, item, tmp_fd, st);
  if (o.code != 0)
    return o;
  mode = _cs_metadata_mode (job, tmp_fd, NULL, st, &cleared);
  if (cleared)
    worker->lost |= 1u << CS_METADATA_SPECIAL_BITS;
  o = keep_mode (job, worker, item->dir->fs, tmp_fd, created_mode, mode);
  if (o.code != 0)
    return o;
  if (times_on_fd && _cs_io_futimens (&job->counters, tmp_fd, times) != 0)
    return _cs_fail (errno, "set times");
  if (job->setup.settings.durable && _cs_io_fsync (&job->counters, tmp_fd) != 0)
    return _cs_fail (errno, "fsync");

  return CS_OK;
}

/*
 * Times, kept as the destination keeps them. On a local disk, NFS, sshfs or
 * the lab NAS the time set on the open temporary stays. Through GVfs the
 * server stamps the time of the close over it, and the close comes when
 * gvfsd-fuse gets to the release, which the kernel sends without waiting:
 * a time set by name after close () may still come before it. Only a rename
 * closes the file at once, so there the time is set on the published file.
 * (Through FUSE the right time even shows for about a second, from the
 * kernel's attribute cache, so a check must ask the server.)
 *
 * fusefat stamps the time of the rename instead.
 *
 * Which it is, each destination filesystem answers for itself: the first
 * file published there is read back from the server (AT_STATX_FORCE_SYNC).
 * If its time was lost, files get their times by name once published from
 * then on, and the first of those is read back too; if even that is lost,
 * every file is set and read back, and what still differs is reported. Only
 * a file whose time is shown to the microsecond, or is well apart from the
 * clock, can show that a time was kept (a stamp of a coarse destination's
 * own looks the same as a file written a moment ago), so until one comes
 * every file is read back; usually only the first file of a run pays it.
 */

/* Farther than a FAT share's 2 s and a server's clock from now. */
#define TIMES_TELLING_NS (G_GINT64_CONSTANT (10) * G_TIME_SPAN_SECOND * 1000)

/* Whether @item's times are set on its published name (else on the open
 * temporary), and the state that was decided by, for _cs_copy_keep_times. */
gboolean
_cs_copy_times_when_published (CsItem  *item,
                               CsTimes *state)
{
  *state = item->dir->fs != NULL ? (CsTimes) atomic_load (&item->dir->fs->times) : CS_TIMES_ON_FD;
  return *state >= CS_TIMES_TRY_PUBLISHED;
}

/* Whether a copy showing @src's time as @shown proves that the time was
 * kept, not stamped by the destination just now: a time far from the clock,
 * or one shown to the microsecond or finer (a share's 100 ns, a disk's
 * nanosecond): a stamp of the destination's own, made at the close or the
 * rename, would match the source's that finely only if the source changed
 * within that microsecond. A rerun's changed files were written moments
 * ago; before, each of them was read back (on a share a stat by name,
 * three SMB2 requests a file). */
static gboolean
telling_time (const struct stat *src,
              const struct stat *shown)
{
  gint64 now = g_get_real_time () * 1000;
  gint64 t = (gint64) src->st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000) + src->st_mtim.tv_nsec;

  return kept_precision_ns (shown) <= 1000 || ABS (now - t) > TIMES_TELLING_NS;
}

/* Whether the published @name shows @src's time; what it shows in @shown. */
static gboolean
shows_mtime (CsJob             *job,
             int                dir_fd,
             const char        *name,
             const struct stat *src,
             struct stat       *shown)
{
  struct statx stx;

  memset (shown, 0, sizeof *shown);
  if (_cs_io_statx (&job->counters, dir_fd, name, AT_SYMLINK_NOFOLLOW | AT_STATX_FORCE_SYNC,
                    STATX_MTIME, &stx) != 0)
    return FALSE;
  shown->st_mtim.tv_sec = stx.stx_mtime.tv_sec;
  shown->st_mtim.tv_nsec = stx.stx_mtime.tv_nsec;
  return _cs_copy_same_mtime (shown, src);
}

/* After @item is published: sets its times on its name when that is the
 * way here, reads them back while that way is not known to work, moves the
 * filesystem on to the next way when they were lost, and sets this file's
 * times again if need be. */
void
_cs_copy_keep_times (CsJob    *job,
                     CsWorker *worker,
                     CsItem   *item,
                     CsAction  action,
                     gboolean  when_published,
                     CsTimes   state)
{
  const char *final = item->dst_name != NULL ? item->dst_name : item->name;
  struct timespec times[2] = { item->st.st_atim, item->st.st_mtim };
  int fd = item->dir->dst_fd;
  CsTimes trying = when_published ? CS_TIMES_TRY_PUBLISHED : CS_TIMES_UNKNOWN;
  int expected = (int) state;
  struct stat shown;

  /* "name (2)" is not under @final: its times were set on the temporary. */
  if (item->dir->fs == NULL || action == CS_ACTION_KEEP_BOTH)
    return;
  if (when_published && _cs_io_utimensat (&job->counters, fd, final, times, AT_SYMLINK_NOFOLLOW) != 0)
    {
      worker->lost |= 1u << CS_METADATA_TIMES;
      return;
    }
  if (state == (when_published ? CS_TIMES_PUBLISHED : CS_TIMES_ON_FD))
    return;
  if (shows_mtime (job, fd, final, &item->st, &shown))
    {
      if (state == trying && telling_time (&item->st, &shown))
        atomic_compare_exchange_strong (&item->dir->fs->times, &expected,
                                        when_published ? CS_TIMES_PUBLISHED : CS_TIMES_ON_FD);
      return;
    }
  if (state == trying)
    atomic_compare_exchange_strong (&item->dir->fs->times, &expected,
                                    when_published ? CS_TIMES_LOST : CS_TIMES_TRY_PUBLISHED);
  if (_cs_io_utimensat (&job->counters, fd, final, times, AT_SYMLINK_NOFOLLOW) != 0
      || !shows_mtime (job, fd, final, &item->st, &shown))
    worker->lost |= 1u << CS_METADATA_TIMES;
}

/*
 * The final name was taken while we copied: by another program, whose file is
 * left alone and reported — or by another copy of the same file (two identical
 * runs at once), whose file is what ours would have been. That one is what a
 * rerun would skip as identical (the same type, size and time at the
 * precision the destination keeps), so it counts as skipped, not as a
 * failure.
 */
gboolean
_cs_copy_appeared_identical (CsJob             *job,
                             CsDir             *dir,
                             const char        *final,
                             const struct stat *src)
{
  struct stat dst;

  return _cs_io_fstatat (&job->counters, dir->dst_fd, final, &dst, AT_SYMLINK_NOFOLLOW) == 0
         && (dst.st_mode & S_IFMT) == (src->st_mode & S_IFMT) && dst.st_size == src->st_size
         && _cs_copy_same_mtime (&dst, src);
}
