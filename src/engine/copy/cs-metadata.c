/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-metadata"

#include "config.h"

#include <errno.h>
#include <fcntl.h>

#include <glib/gi18n-lib.h>

#include "cs-errno-private.h"
#include "cs-io-private.h"
#include "cs-job-private.h"
#include "cs-metadata-private.h"
#include "cs-names-private.h"

/* As the run record names the request that was refused. */
static const char *const operations[CS_N_METADATA] = {
  [CS_METADATA_OWNERS] = "chown",
  [CS_METADATA_MODES] = "chmod",
  [CS_METADATA_TIMES] = "set times",
  [CS_METADATA_XATTRS] = "set attributes",
  [CS_METADATA_ACLS] = "set ACL",
  [CS_METADATA_LINK_TIMES] = "set link times",
  [CS_METADATA_LINKS] = "create link",
  [CS_METADATA_HARD_LINKS] = "link",
  [CS_METADATA_SPECIAL_BITS] = "chmod",
};

void
_cs_metadata_init (CsMetadataLoss *loss)
{
  for (guint i = 0; i < CS_N_METADATA; i++)
    {
      atomic_init (&loss->refused[i], 0);
      atomic_init (&loss->files[i], 0);
      atomic_init (&loss->dirs[i], 0);
      loss->example[i] = NULL;
    }
  g_mutex_init (&loss->lock);
}

void
_cs_metadata_clear (CsMetadataLoss *loss)
{
  for (guint i = 0; i < CS_N_METADATA; i++)
    g_clear_pointer (&loss->example[i], g_free);
  g_mutex_clear (&loss->lock);
}

gboolean
_cs_metadata_refused (CsJob      *job,
                      CsMetadata  what)
{
  return atomic_load_explicit (&job->dest.metadata.refused[what], memory_order_relaxed) != 0;
}

/* What "keeps none at all" sounds like for each kind: for extended attributes
 * EPERM and EINVAL concern one attribute (trusted.* as a user, a name the
 * filesystem does not know), a filesystem without symbolic links (FAT)
 * answers EPERM, and SFTP sets a link's times through the link, onto its
 * target, so sshfs answers ENOENT for a link whose target is not there (and
 * would move the target's time for one whose target is). */
static gboolean
means_refused (CsMetadata what,
               int        code)
{
  switch (what)
    {
    case CS_METADATA_XATTRS:
    case CS_METADATA_ACLS:
      return code == EOPNOTSUPP || code == ENOSYS;
    case CS_METADATA_LINKS:
      return code == EPERM || code == EOPNOTSUPP || code == ENOSYS;
    case CS_METADATA_HARD_LINKS:
      return code == EPERM || code == EOPNOTSUPP || code == ENOSYS;
    case CS_METADATA_LINK_TIMES:
      return code == ENOENT || _cs_share_refuses (code);
    case CS_METADATA_OWNERS:
    case CS_METADATA_MODES:
    case CS_METADATA_TIMES:
    case CS_METADATA_SPECIAL_BITS:
    case CS_N_METADATA:
    default:
      return _cs_share_refuses (code);
    }
}

gboolean
_cs_metadata_refuse (CsJob      *job,
                     CsMetadata  what,
                     int         code)
{
  int expected = 0;

  if (!means_refused (what, code))
    return FALSE;
  atomic_compare_exchange_strong (&job->dest.metadata.refused[what], &expected, code);
  return TRUE;
}

void
_cs_metadata_lost (CsJob      *job,
                   CsMetadata  what,
                   CsDir      *dir,
                   const char *name,
                   gboolean    is_dir)
{
  CsMetadataLoss *loss = &job->dest.metadata;

  if (atomic_fetch_add_explicit (is_dir ? &loss->dirs[what] : &loss->files[what], 1,
                                 memory_order_relaxed) != 0)
    return;
  _cs_mutex_lock (&loss->lock);
  if (loss->example[what] == NULL)
    loss->example[what] = _cs_dir_dup_path (dir, name, TRUE);
  _cs_mutex_unlock (&loss->lock);
}

/* "3 files", "1 folder", "2 links and 1 folder" */
static char *
count_phrase (CsMetadata what,
              guint64    files,
              guint64    dirs)
{
  gboolean links = what == CS_METADATA_LINKS || what == CS_METADATA_LINK_TIMES;
  g_autofree char *n_files = g_strdup_printf ("%" G_GUINT64_FORMAT, files);
  g_autofree char *n_dirs = g_strdup_printf ("%" G_GUINT64_FORMAT, dirs);
  g_autofree char *file_part = NULL;
  g_autofree char *dir_part = NULL;

  /* Translators: a count in a sentence like "The destination does not keep
   * owners: 3 files belong to another owner there" */
  file_part = g_strdup_printf (links ? ngettext ("%s link", "%s links", files)
                                     : ngettext ("%s file", "%s files", files), n_files);
  /* Translators: likewise, of folders */
  dir_part = g_strdup_printf (ngettext ("%s folder", "%s folders", dirs), n_dirs);
  if (files > 0 && dirs > 0)
    /* Translators: "3 files and 1 folder" */
    return g_strdup_printf (_("%s and %s"), file_part, dir_part);
  if (dirs > 0)
    return g_steal_pointer (&dir_part);
  return g_steal_pointer (&file_part);
}

/* The whole sentence, so that it translates whole: the first %s is the count
 * phrase, the second an example path; @n the files and folders it counts. */
static const char *
loss_sentence (CsMetadata what,
               guint64    n)
{
  switch (what)
    {
    case CS_METADATA_OWNERS:
      return ngettext ("The destination does not keep owners: %s belongs to another owner there "
                       "than at the source (for example “%s”)",
                       "The destination does not keep owners: %s belong to another owner there "
                       "than at the source (for example “%s”)", n);
    case CS_METADATA_MODES:
      return ngettext ("The destination does not keep permissions: %s has other permissions there "
                       "than at the source (for example “%s”)",
                       "The destination does not keep permissions: %s have other permissions there "
                       "than at the source (for example “%s”)", n);
    case CS_METADATA_TIMES:
      return ngettext ("The destination does not keep modification times: %s has another "
                       "modification time there than at the source (for example “%s”)",
                       "The destination does not keep modification times: %s have other "
                       "modification times there than at the source (for example “%s”)", n);
    case CS_METADATA_XATTRS:
      return ngettext ("The destination does not keep extended attributes: %s lost its "
                       "(for example “%s”)",
                       "The destination does not keep extended attributes: %s lost theirs "
                       "(for example “%s”)", n);
    case CS_METADATA_ACLS:
      return ngettext ("The destination does not keep access control lists: %s lost its "
                       "(for example “%s”)",
                       "The destination does not keep access control lists: %s lost theirs "
                       "(for example “%s”)", n);
    case CS_METADATA_LINK_TIMES:
      return ngettext ("The destination does not keep the times of symbolic links: %s has other "
                       "times there than at the source (for example “%s”)",
                       "The destination does not keep the times of symbolic links: %s have other "
                       "times there than at the source (for example “%s”)", n);
    case CS_METADATA_LINKS:
      return ngettext ("The destination cannot hold symbolic links: %s was not copied "
                       "(for example “%s”)",
                       "The destination cannot hold symbolic links: %s were not copied "
                       "(for example “%s”)", n);
    case CS_METADATA_HARD_LINKS:
      return ngettext ("The destination does not keep hard links: %s was copied as a separate "
                       "file, where the source has it as a name of one file (for example “%s”)",
                       "The destination does not keep hard links: %s were copied as separate "
                       "files, where the source has them as names of one file (for example “%s”)", n);
    case CS_METADATA_SPECIAL_BITS:
      return ngettext ("Setuid, setgid and sticky bits are kept only with the owner, which the copy "
                       "does not have: %s lost them (for example “%s”)",
                       "Setuid, setgid and sticky bits are kept only with the owner, which the copies "
                       "do not have: %s lost them (for example “%s”)", n);
    case CS_N_METADATA:
    default:
      g_assert_not_reached ();
    }
}

mode_t
_cs_metadata_mode (CsJob             *job,
                   int                fd,
                   const char        *name,
                   const struct stat *src,
                   gboolean          *out_cleared)
{
  mode_t mode = src->st_mode & 07777;
  /* cp -a keeps a folder's sticky bit (a shared folder stays one); a
   * file's it clears with the others. */
  mode_t special = S_ISDIR (src->st_mode) ? S_ISUID | S_ISGID : S_ISUID | S_ISGID | S_ISVTX;
  struct stat st;

  *out_cleared = FALSE;
  if ((mode & special) == 0)
    return mode;
  /* Not known to be kept: cleared, the safe side. */
  if ((name != NULL ? _cs_io_fstatat (&job->counters, fd, name, &st, AT_SYMLINK_NOFOLLOW)
                    : _cs_io_fstat (&job->counters, fd, &st)) == 0
      && st.st_uid == src->st_uid && st.st_gid == src->st_gid)
    return mode;
  *out_cleared = TRUE;
  return mode & ~special;
}

void
_cs_metadata_report (CsJob *job)
{
  CsMetadataLoss *loss = &job->dest.metadata;

  /* A run that ended on a fatal error says that one thing. A destination
   * that went away (a server gone, a share unmounted) failed what it was
   * asked last, times and modes included, which says nothing about what it
   * keeps; the rerun the message calls for says what holds. */
  if (_cs_job_stopped_fatally (job))
    return;

  for (guint i = 0; i < CS_N_METADATA; i++)
    {
      guint64 files = atomic_load (&loss->files[i]);
      guint64 dirs = atomic_load (&loss->dirs[i]);
      g_autofree char *count = NULL;
      g_autofree char *message = NULL;
      g_autofree char *example = NULL;

      if (files == 0 && dirs == 0)
        continue;
      count = count_phrase (i, files, dirs);
      _cs_mutex_lock (&loss->lock);
      example = g_filename_display_name (loss->example[i] != NULL ? loss->example[i] : "");
      _cs_mutex_unlock (&loss->lock);
      message = g_strdup_printf (loss_sentence (i, files + dirs), count, example);
      /* A link the destination cannot hold is a file not copied, counted
       * as failed; every other loss is a note: the data is there, and a
       * retry would lose the same. */
      if (i == CS_METADATA_LINKS)
        _cs_job_report (job, NULL, job->setup.destination, operations[i],
                        atomic_load (&loss->refused[i]), message, 0);
      else
        _cs_job_note (job, NULL, job->setup.destination, operations[i],
                      atomic_load (&loss->refused[i]), message);
    }
}
