/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-dir"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include "cs-dir-private.h"
#include "cs-job-private.h"
#include "cs-metadata-private.h"
#include "cs-links-private.h"
#include "cs-names-private.h"
#include "cs-xattrs-private.h"

typedef struct {
  guint64         hash;
  struct timespec ctime;
} CsClaim;

CsDir *
_cs_dir_new (CsJob      *job,
             CsDir      *parent,
             const char *name,
             const char *dst_name)
{
  CsDir *dir = g_new0 (CsDir, 1);

  _cs_job_acquire_dir_fds (job, 2);
  atomic_init (&dir->ref, 1);
  dir->job = job;
  dir->parent = parent != NULL ? _cs_dir_ref (parent) : NULL;
  dir->name = g_strdup (name);
  dir->dst_name = (dst_name == NULL || strcmp (dst_name, name) == 0) ? dir->name : g_strdup (dst_name);
  dir->src_fd = -1;
  dir->dst_fd = -1;
  dir->apply_attrs = TRUE;
  dir->mirror_root = parent != NULL ? parent->mirror_root : -1;

  return dir;
}

CsDir *
_cs_dir_ref (CsDir *dir)
{
  atomic_fetch_add (&dir->ref, 1);
  return dir;
}

/* Whether the destination folder shows the source folder's @mask (owner or
 * mode), asked for alone. */
static gboolean
shows (CsDir        *dir,
       unsigned int  mask)
{
  struct statx stx;

  if (_cs_io_statx (&dir->job->counters, dir->dst_fd, "", AT_EMPTY_PATH, mask, &stx) != 0)
    return FALSE;
  if (mask & STATX_MODE)
    return (stx.stx_mode & 07777) == (dir->st.st_mode & 07777);
  return stx.stx_uid == dir->st.st_uid && stx.stx_gid == dir->st.st_gid;
}

/* Whether the source folder has extended attributes or ACLs the
 * destination may keep: then they are given as ever, for what the
 * destination holds is not listed. */
static gboolean
xattrs_to_give (CsDir *dir)
{
  CsJob *job = dir->job;
  ssize_t n;

  if (atomic_load_explicit (&job->caps.no_xattr, memory_order_relaxed)
      || (_cs_metadata_refused (job, CS_METADATA_XATTRS) && _cs_metadata_refused (job, CS_METADATA_ACLS)))
    return FALSE;
  n = _cs_io_flistxattr (&job->counters, dir->src_fd, NULL, 0);
  return n != 0 && !(n < 0 && (errno == ENOTSUP || errno == ENOSYS));
}

/*
 * Whether the destination folder keeps what finish_attributes would give
 * it: its parent's listing showed it with the source folder's mode (where
 * the destination keeps modes), owner (as root, where it keeps owners) and
 * modification time, and this run wrote nothing in it since — writing in a
 * folder changes its times. Then nothing is set: on a share, setting a
 * folder's times by name costs three requests (create, set info, close),
 * one after another at the end of every folder. The access time is not
 * compared: listing a folder may change it on the server, and a rerun
 * that set it again would set it every time. Where anything is unsure (a
 * folder not listed, special bits, attributes to give, a move, a
 * manifest), it is set as ever.
 */
static gboolean
keeps_attributes (CsDir *dir)
{
  CsJob *job = dir->job;
  const struct stat *dst = &dir->dst_st;
  const struct stat *src = &dir->st;

  if (!dir->dst_seen || dir->dst_new || atomic_load (&dir->dst_written)
      || dir->resumes != NULL || dir->claims != NULL
      || job->setup.settings.operation == CS_OPERATION_MOVE || job->lists.manifest != NULL
      || _cs_job_stopped_fatally (job) || !S_ISDIR (dst->st_mode))
    return FALSE;
  if (!dir->dst_same_mtime)
    return FALSE;
  if (!_cs_metadata_refused (job, CS_METADATA_MODES)
      && ((src->st_mode & (S_ISUID | S_ISGID)) != 0 || (dst->st_mode & 07777) != (src->st_mode & 07777)))
    return FALSE;
  if (job->life.euid == 0 && !_cs_metadata_refused (job, CS_METADATA_OWNERS)
      && (dst->st_uid != src->st_uid || dst->st_gid != src->st_gid))
    return FALSE;
  return !xattrs_to_give (dir);
}

/* The folder's owner, mode and times, set once everything inside it is
 * written so that writing inside it does not change them again. What a share
 * refuses is not asked again, and counts as lost only for a folder this run
 * created: a rerun that entered it says nothing. */
static gboolean
finish_attributes (CsDir *dir)
{
  CsJob *job = dir->job;
  CsDir *parent = dir->parent;
  struct timespec times[2] = { dir->st.st_atim, dir->st.st_mtim };
  /* After a fatal stop the destination's failures have one cause, said once.
   * A full share also refuses a folder's times (Samba stores them with the
   * DOS attributes), which libsmbclient then reports as EISDIR: its fallback
   * opens the folder for writing. The rerun the message asks for sets them. */
  gboolean fatal = _cs_job_stopped_fatally (job);
  gboolean done = TRUE;
  gboolean cleared;
  mode_t mode;
  guint lost;

  if (job->life.euid == 0 && !_cs_metadata_refused (job, CS_METADATA_OWNERS)
      && _cs_io_fchown (&job->counters, dir->dst_fd, dir->st.st_uid, dir->st.st_gid) != 0)
    _cs_metadata_refuse (job, CS_METADATA_OWNERS, errno);
  if (job->life.euid == 0 && dir->dst_new && _cs_metadata_refused (job, CS_METADATA_OWNERS)
      && !shows (dir, STATX_UID | STATX_GID))
    _cs_metadata_lost (job, CS_METADATA_OWNERS, parent, dir->dst_name, TRUE);
  /* ACLs and extended attributes as on files, before the mode: an ACL's mask
   * is the group bits the mode then sets, as the source folder has them. */
  lost = _cs_xattrs_copy (job, dir->src_fd, dir->dst_fd, NULL);
  for (guint kind = 0; dir->dst_new && kind < CS_N_METADATA; kind++)
    if (lost & (1u << kind))
      _cs_metadata_lost (job, kind, parent, dir->dst_name, TRUE);
  mode = _cs_metadata_mode (job, dir->dst_fd, NULL, &dir->st, &cleared);
  if (cleared && dir->dst_new)
    _cs_metadata_lost (job, CS_METADATA_SPECIAL_BITS, parent, dir->dst_name, TRUE);
  if (!_cs_metadata_refused (job, CS_METADATA_MODES)
      && _cs_io_fchmod (&job->counters, dir->dst_fd, mode) != 0
      && !_cs_metadata_refuse (job, CS_METADATA_MODES, errno))
    {
      done = FALSE;
      if (!fatal)
        _cs_job_report (job, parent, dir->dst_name, "chmod", errno, NULL, 1);
    }
  if (dir->dst_new && _cs_metadata_refused (job, CS_METADATA_MODES) && !shows (dir, STATX_MODE))
    _cs_metadata_lost (job, CS_METADATA_MODES, parent, dir->dst_name, TRUE);
  if (_cs_io_futimens (&job->counters, dir->dst_fd, times) != 0)
    {
      done = FALSE;
      if (!fatal)
        _cs_job_report (job, parent, dir->dst_name, "set times", errno, NULL, 1);
    }
  if (job->setup.settings.durable)
    _cs_io_fsync (&job->counters, dir->dst_fd);
  return done && !fatal;
}

/* Set while a finisher's thread ends a folder: its parents end there too. */
static GPrivate in_finisher;

/* Whether @dir, whose last reference just went, needs the server to end:
 * its attributes set again, on a share. */
static gboolean
ends_on_share (CsDir *dir)
{
  return dir->job->dirs.finisher != NULL && g_private_get (&in_finisher) == NULL && dir->apply_attrs
         && dir->merged_into == NULL && dir->dst_fd >= 0 && !dir->job->setup.settings.dry_run
         && !keeps_attributes (dir);
}

static CsDir *dir_end (CsDir *dir);

static void
finisher_run (gpointer data,
              gpointer user_data)
{
  CsDir *dir = data;
  CsJob *job;

  /* GLib's queue hands @dir over out of TSan's sight (its futex locks). */
  CS_TSAN_ACQUIRE (dir);
  job = dir->job;
  /* Set for this task only: GLib may hand the thread to a worker pool later. */
  g_private_set (&in_finisher, GINT_TO_POINTER (TRUE));
  _cs_dir_unref (dir_end (dir));
  g_private_set (&in_finisher, NULL);
  _cs_mutex_lock (&job->dirs.lock);
  if (--job->dirs.pending == 0)
    g_cond_broadcast (&job->dirs.cond);
  _cs_mutex_unlock (&job->dirs.lock);
}

/*
 * On a share a folder's times (and mode) are set by name, a CREATE, SETINFO
 * and CLOSE, once its last file is done: in the worker that wrote that
 * file, 11 ms of the 85 ms a replaced file took it behind 1 ms per
 * filesystem call (a 1 % changed rerun writes a file or two per folder).
 * The job's own two threads set them instead, each with its connection,
 * while the workers go on; a folder still ends after everything in it,
 * each folder holding its parent.
 */
void
_cs_dir_finisher_start (CsJob *job)
{
  if (job->setup.settings.dry_run || !_cs_io_connects (CS_IO_AT_LOCATION, job->setup.destination))
    return;
  g_mutex_init (&job->dirs.lock);
  g_cond_init (&job->dirs.cond);
  job->dirs.finisher = g_thread_pool_new (finisher_run, NULL, 2, TRUE, NULL);
}

void
_cs_dir_finisher_end (CsJob *job)
{
  if (job->dirs.finisher == NULL)
    return;
  _cs_mutex_lock (&job->dirs.lock);
  while (job->dirs.pending > 0)
    _cs_cond_wait (&job->dirs.cond, &job->dirs.lock);
  _cs_mutex_unlock (&job->dirs.lock);
  g_thread_pool_free (g_steal_pointer (&job->dirs.finisher), FALSE, TRUE);
  g_mutex_clear (&job->dirs.lock);
  g_cond_clear (&job->dirs.cond);
}

void
_cs_dir_unref (CsDir *dir)
{
  while (dir != NULL && atomic_fetch_sub (&dir->ref, 1) == 1)
    {
      CsJob *job = dir->job;

      if (ends_on_share (dir))
        {
          _cs_mutex_lock (&job->dirs.lock);
          job->dirs.pending++;
          _cs_mutex_unlock (&job->dirs.lock);
          CS_TSAN_RELEASE (dir);
          g_thread_pool_push (job->dirs.finisher, dir, NULL);
          return;
        }
      dir = dir_end (dir);
    }
}

/* @dir, whose last reference went, ended: its attributes, then freed. Its
 * parent, whose reference it held, is returned. */
static CsDir *
dir_end (CsDir *dir)
{
  CsJob *job = dir->job;
  CsDir *parent = dir->parent;
  CsDir *merged_into = dir->merged_into;

  /* The first source's folder gives the merged folder its attributes. */
  if (dir->apply_attrs && merged_into == NULL && dir->dst_fd >= 0 && !job->setup.settings.dry_run)
    dir->dst_done = keeps_attributes (dir) || finish_attributes (dir);
  if (dir->apply_attrs)
    _cs_job_dir_finished (job, dir);
  if (dir->src_fd >= 0)
    _cs_io_close (&job->counters, dir->src_fd);
  if (dir->dst_fd >= 0)
    _cs_io_close (&job->counters, dir->dst_fd);
  _cs_job_release_dir_fds (job, 2);
  g_clear_pointer (&dir->claims, g_array_unref);
  g_clear_pointer (&dir->resumes, g_hash_table_unref);
  g_clear_pointer (&dir->resumes_wanted, g_hash_table_unref);
  g_clear_pointer (&dir->dst_listed, g_ptr_array_unref);
  if (dir->dst_name != dir->name)
    g_free (dir->dst_name);
  g_free (dir->name);
  g_free (dir);
  _cs_dir_unref (merged_into);

  return parent;
}

void
_cs_dir_note_written (CsDir *dir)
{
  /* A later source's folder writes in the folder it merged into. */
  for (; dir != NULL; dir = dir->merged_into)
    atomic_store (&dir->dst_written, 1);
}

/* Filesystems whose files make up their contents when read: /proc/version
 * reports size 0, a sysfs attribute a page, whatever it holds. */
static gboolean
is_pseudo_filesystem (int fd)
{
  struct statfs sfs;

  if (_cs_io_fstatfs (fd, &sfs) != 0)
    return FALSE;
  switch ((unsigned long) sfs.f_type)
    {
    case PROC_SUPER_MAGIC:
    case SYSFS_MAGIC:
    case DEBUGFS_MAGIC:
    case TRACEFS_MAGIC:
    case SECURITYFS_MAGIC:
    case CGROUP_SUPER_MAGIC:
    case CGROUP2_SUPER_MAGIC:
      return TRUE;
    default:
      return FALSE;
    }
}

void
_cs_dir_note_source (CsJob *job,
                     CsDir *dir,
                     CsDir *parent)
{
  struct stat st;

  if (parent != NULL && parent->src_dev == dir->st.st_dev)
    {
      dir->src_dev = parent->src_dev;
      dir->src_pseudo = parent->src_pseudo;
      return;
    }
  dir->src_dev = _cs_io_fstat (&job->counters, dir->src_fd, &st) == 0 ? st.st_dev : 0;
  dir->src_pseudo = is_pseudo_filesystem (dir->src_fd);
}

void
_cs_dir_add_claim (CsDir                 *dir,
                   guint64                hash,
                   const struct timespec *ctime)
{
  CsClaim claim = { hash, *ctime };

  if (dir->claims == NULL)
    dir->claims = g_array_new (FALSE, FALSE, sizeof (CsClaim));
  g_array_append_val (dir->claims, claim);
}

/*
 * A claim is made by an exclusive create, then its text is written: a kill
 * between the two leaves an empty file under the final name, not provably
 * ours by itself. It is ours when the claim's temporary says it was about to
 * claim this very name and the empty file was made no earlier than that
 * (with 2 s to spare for a FAT share's clock): only a program that created an
 * empty file of that name in the one request between the two, in a copy
 * killed right there, could be taken for us.
 */
gboolean
_cs_dir_is_unwritten_claim (CsDir             *dir,
                            const char        *name,
                            const struct stat *st)
{
  guint64 hash;

  if (dir->claims == NULL || !S_ISREG (st->st_mode) || st->st_size != 0
      || st->st_uid != dir->job->life.euid)
    return FALSE;
  hash = _cs_name_hash (name);
  for (guint i = 0; i < dir->claims->len; i++)
    {
      const CsClaim *claim = &g_array_index (dir->claims, CsClaim, i);

      if (claim->hash == hash && st->st_ctim.tv_sec + 2 >= claim->ctime.tv_sec)
        return TRUE;
    }
  return FALSE;
}

gboolean
_cs_dir_dst_removed (CsJob *job,
                     CsDir *dir)
{
  struct stat st;

  /* An open folder that was removed has no name left: no links. */
  return dir->dst_fd >= 0 && _cs_io_fstat (&job->counters, dir->dst_fd, &st) == 0 && st.st_nlink == 0;
}

/* A first name that goes without being settled (the job stopped before a
 * worker took it): the names that waited for it are cancelled with it. */
void
_cs_item_abandon_link (CsJob  *job,
                       CsLink *link)
{
  CsItem *waiter = _cs_link_settle (job, link, FALSE);

  while (waiter != NULL)
    {
      CsItem *next = waiter->next;

      waiter->next = NULL;
      _cs_item_free (waiter);
      _cs_job_release_held (job);
      waiter = next;
    }
}

void
_cs_item_free (CsItem *item)
{
  if (item->link != NULL)
    {
      if (item->link_first)
        _cs_item_abandon_link (item->dir->job, item->link);
      _cs_link_unref (item->link);
    }
  if (item->dir != NULL)
    _cs_dir_unref (item->dir);
  g_free (item->name);
  g_free (item->dst_name);
  g_free (item);
}
