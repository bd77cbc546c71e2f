/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-metadata"

#include "config.h"

#include <errno.h>

#include "cs-errno-private.h"
#include "cs-job-private.h"
#include "cs-metadata-private.h"
#include "cs-names-private.h"

static const struct {
  const char *operation;    /* as the run record names the request */
  const char *subject;      /* "The destination does not keep …" */
  const char *lost;         /* "3 files …" */
  const char *lost_one;     /* "1 file …" */
} kinds[CS_N_METADATA] = {
  [CS_METADATA_OWNERS] = { "chown", "owners", "belong to another owner there than at the source",
                           "belongs to another owner there than at the source" },
  [CS_METADATA_MODES] = { "chmod", "permissions", "have other permissions there than at the source",
                          "has other permissions there than at the source" },
  [CS_METADATA_TIMES] = { "set times", "modification times",
                          "have other modification times there than at the source",
                          "has another modification time there than at the source" },
  [CS_METADATA_XATTRS] = { "set attributes", "extended attributes", "lost theirs", "lost its" },
  [CS_METADATA_ACLS] = { "set ACL", "access control lists", "lost theirs", "lost its" },
  [CS_METADATA_LINK_TIMES] = { "set link times", "the times of symbolic links",
                               "have other times there than at the source",
                               "has other times there than at the source" },
  [CS_METADATA_LINKS] = { "create link", "symbolic links", "were not copied", "was not copied" },
  [CS_METADATA_HARD_LINKS] = { "link", "hard links",
                               "were copied as separate files, where the source has them as names of one file",
                               "was copied as a separate file, where the source has it as a name of one file" },
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
  return atomic_load_explicit (&job->metadata.refused[what], memory_order_relaxed) != 0;
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
  atomic_compare_exchange_strong (&job->metadata.refused[what], &expected, code);
  return TRUE;
}

void
_cs_metadata_lost (CsJob      *job,
                   CsMetadata  what,
                   CsDir      *dir,
                   const char *name,
                   gboolean    is_dir)
{
  CsMetadataLoss *loss = &job->metadata;

  if (atomic_fetch_add_explicit (is_dir ? &loss->dirs[what] : &loss->files[what], 1,
                                 memory_order_relaxed) != 0)
    return;
  _cs_mutex_lock (&loss->lock);
  if (loss->example[what] == NULL)
    loss->example[what] = _cs_dir_dup_path (dir, name, TRUE);
  _cs_mutex_unlock (&loss->lock);
}

static char *
count_phrase (CsMetadata what,
              guint64    files,
              guint64    dirs)
{
  gboolean links = what == CS_METADATA_LINKS || what == CS_METADATA_LINK_TIMES;
  const char *file_word = links ? (files == 1 ? "link" : "links") : (files == 1 ? "file" : "files");
  const char *dir_word = dirs == 1 ? "folder" : "folders";

  if (files > 0 && dirs > 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " %s and %" G_GUINT64_FORMAT " %s",
                            files, file_word, dirs, dir_word);
  if (dirs > 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " %s", dirs, dir_word);
  return g_strdup_printf ("%" G_GUINT64_FORMAT " %s", files, file_word);
}

void
_cs_metadata_report (CsJob *job)
{
  CsMetadataLoss *loss = &job->metadata;

  /* A run that ended on a fatal error says that one thing. A destination
   * that went away (a server gone, a share unmounted) failed what it was
   * asked last, times and modes included, which says nothing about what it
   * keeps; the rerun the message calls for says what holds. */
  if (atomic_load (&job->stop) == CS_STOP_FATAL)
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
      message = g_strdup_printf ("The destination %s %s: %s %s (for example “%s”)",
                                 i == CS_METADATA_LINKS ? "cannot hold" : "does not keep",
                                 kinds[i].subject, count,
                                 files + dirs == 1 ? kinds[i].lost_one : kinds[i].lost, example);
      /* A link the destination cannot hold is a file not copied, counted
       * as failed; every other loss is a note: the data is there, and a
       * retry would lose the same. */
      if (i == CS_METADATA_LINKS)
        _cs_job_report (job, NULL, job->destination, kinds[i].operation,
                        atomic_load (&loss->refused[i]), message, 0);
      else
        _cs_job_note (job, NULL, job->destination, kinds[i].operation,
                      atomic_load (&loss->refused[i]), message);
    }
}
