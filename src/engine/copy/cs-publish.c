/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-copy"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "cs-publish-private.h"
#include "cs-dest-fs-private.h"
#include "cs-dir-private.h"
#include "cs-job-private.h"
#include "cs-names-private.h"

/*
 * A finished temporary becomes the file: renamed over the old one it
 * replaces, linked or renamed without replacing anything, under a free
 * "keep both" name, or, on shares that can do neither safely, through a
 * claim of the name first. A file under its final name is always complete.
 */

/* The text of a claim (see publish_claimed); returns its length. */
static gsize
placeholder_text (CsJob *job,
                  char  *buf,
                  gsize  size)
{
  return (gsize) g_snprintf (buf, size, CS_PLACEHOLDER_PREFIX "%s\n", job->life.job_tag);
}

/* Whether @name, with @st from lstat, is a claim of any run of ours: exactly the
 * claim's size, ours, and the claim's text with some job tag. Only files of
 * that exact size are opened, so this costs nothing on ordinary files. */
gboolean
_cs_publish_is_placeholder (CsJob             *job,
                            CsDir             *dir,
                            const char        *name,
                            const struct stat *st)
{
  char text[CS_PLACEHOLDER_SIZE + 1];
  const gsize prefix = sizeof CS_PLACEHOLDER_PREFIX - 1;
  ssize_t n;
  int fd;

  if (!S_ISREG (st->st_mode) || st->st_size != (off_t) CS_PLACEHOLDER_SIZE
      || st->st_uid != job->life.euid)
    return FALSE;
  fd = _cs_io_openat (&job->counters, dir->dst_fd, name, O_RDONLY | O_NOFOLLOW, 0);
  if (fd < 0)
    return FALSE;
  n = _cs_io_pread (&job->counters, fd, text, sizeof text, 0);
  _cs_io_close (&job->counters, fd);
  if (n != (ssize_t) CS_PLACEHOLDER_SIZE || memcmp (text, CS_PLACEHOLDER_PREFIX, prefix) != 0
      || text[CS_PLACEHOLDER_SIZE - 1] != '\n')
    return FALSE;
  for (gsize i = prefix; i < CS_PLACEHOLDER_SIZE - 1; i++)
    if (!g_ascii_isxdigit (text[i]))
      return FALSE;

  return TRUE;
}

void
_cs_publish_temp_name (CsJob *job,
                       char  *buf,
                       gsize  size)
{
  guint64 seq = atomic_fetch_add (&job->caps.temp_seq, 1);

  g_snprintf (buf, size, CS_TEMP_PREFIX "%s-%" G_GUINT64_FORMAT CS_TEMP_SUFFIX, job->life.job_tag, seq);
}

/* Whether a file written beside its final name in @dir is published by a
 * claim (publish_noreplace's last resort): the filesystem can neither rename
 * without replacing nor hard-link, as the first files found out. */
gboolean
_cs_publishes_by_claim (CsJob *job,
                        CsDir *dir)
{
  return (atomic_load_explicit (&job->caps.no_noreplace, memory_order_relaxed)
          || (dir->fs != NULL && dir->fs->noreplace_racy))
         && atomic_load_explicit (&job->caps.no_link, memory_order_relaxed);
}

/* Links @tmp to @final and drops @tmp: 0, or the errno of the link.
 *
 * From a staging folder (on a share) one link into a folder at a time: the
 * kernel checks the folder's permissions once before it queues for the
 * folder's lock and again holding it, and a share's folder attributes are
 * dropped by every change, so with several workers queued the first check was
 * always stale and cost a round trip of its own (sshfs, 100 files, 8 threads:
 * 195 requests for the folder's attributes, 103 with the lock). The kernel
 * runs the links one at a time anyway. */
static int
publish_link (CsJob      *job,
              int         tmp_fd,
              const char *tmp,
              CsDir      *dir,
              const char *final)
{
  int fd = dir->dst_fd;
  int code;

  if (tmp_fd == fd)
    code = _cs_io_linkat (&job->counters, tmp_fd, tmp, fd, final, 0) == 0 ? 0 : errno;
  else
    {
      GMutex *lock = &job->stage.link_locks[(guint) fd % CS_JOB_LINK_LOCKS];

      g_mutex_lock (lock);
      /* A worker that queued here behind the one that found the folder on
       * another filesystem (see copy_file_once) need not ask again. */
      if (atomic_load_explicit (&dir->no_stage, memory_order_relaxed))
        code = EXDEV;
      else
        code = _cs_io_linkat (&job->counters, tmp_fd, tmp, fd, final, 0) == 0 ? 0 : errno;
      if (code == EXDEV)
        atomic_store (&dir->no_stage, 1);
      g_mutex_unlock (lock);
    }
  if (code != 0)
    return code;
  _cs_io_unlinkat (&job->counters, tmp_fd, tmp, 0);
  return 0;
}

static gboolean
link_unsupported (int code)
{
  return code == EPERM || (code != EXDEV && _cs_io_is_unsupported (code));
}

/* What a hard link's result @code (0 or an errno) settles: TRUE with @out set
 * when linked, when the name was taken meanwhile, or on a real error; FALSE
 * when this way of linking is @refused and another must be tried. */
static gboolean
link_settled (int         code,
              gboolean    refused,
              const char *op,
              CsOutcome  *out)
{
  if (code == 0)
    *out = CS_OK;
  else if (code == EEXIST)
    *out = _cs_fail (CS_ERR_APPEARED, op);
  else if (refused)
    return FALSE;
  else
    *out = _cs_fail (code, op);
  return TRUE;
}

/* Publishes by hard link unless links are known not to work here; TRUE when
 * that settled it, with the outcome in @out. */
static gboolean
publish_by_link (CsJob      *job,
                 int         tmp_fd,
                 const char *tmp,
                 CsDir      *dir,
                 const char *final,
                 CsOutcome  *out)
{
  int code;

  if (atomic_load_explicit (&job->caps.no_link, memory_order_relaxed))
    return FALSE;
  code = publish_link (job, tmp_fd, tmp, dir, final);
  if (link_settled (code, link_unsupported (code), "rename", out))
    return TRUE;
  atomic_store (&job->caps.no_link, 1);
  return FALSE;
}

/* Whether a rename over an existing name in @dir is a try that does not
 * replace, a delete of the name and the rename again (libsmbclient 4.17):
 * then the engine deletes the name itself, which saves the failed try. */
static gboolean
replace_deletes_first (CsDir *dir)
{
  const CsIoTable *backend = _cs_io_backend (dir->dst_fd, NULL);

  return backend != NULL && backend->replace_deletes_first;
}

/* Whether the file under @final is still the claim we made: our own text,
 * with this run's tag. Asked only after a rename over it failed, to take
 * back what is ours and nothing else. */
static gboolean
claim_intact (CsJob      *job,
              CsDir      *dir,
              const char *final,
              const char *text,
              gsize       len)
{
  char now_text[CS_PLACEHOLDER_SIZE + 1];
  struct stat now;
  ssize_t n;
  int fd;

  if (_cs_io_fstatat (&job->counters, dir->dst_fd, final, &now, AT_SYMLINK_NOFOLLOW) != 0
      || !S_ISREG (now.st_mode) || now.st_size != (off_t) len)
    return FALSE;
  fd = _cs_io_openat (&job->counters, dir->dst_fd, final, O_RDONLY | O_NOFOLLOW, 0);
  if (fd < 0)
    return FALSE;
  n = _cs_io_pread (&job->counters, fd, now_text, sizeof now_text, 0);
  _cs_io_close (&job->counters, fd);
  return n == (ssize_t) len && memcmp (now_text, text, len) == 0;
}

/* The name a temporary takes to say which final name it is about to claim:
 * ".copyscope-<tag>-<n>.claim-<hash of the name>". */
void
_cs_publish_intent_name (CsJob      *job,
                         const char *final,
                         char       *buf,
                         gsize       size)
{
  g_snprintf (buf, size, CS_TEMP_PREFIX "%s-%" G_GUINT64_FORMAT CS_CLAIM_SUFFIX "%016"
              G_GINT64_MODIFIER "x", job->life.job_tag, (guint64) atomic_fetch_add (&job->caps.temp_seq, 1),
              _cs_name_hash (final));
}

/* Whether temporary @tmp in @tmp_fd already has the intent to claim @final
 * in @dir (see publish_claimed). */
static gboolean
is_intent_for (int         tmp_fd,
               const char *tmp,
               CsDir      *dir,
               const char *final)
{
  guint64 hash;

  return tmp_fd == dir->dst_fd && _cs_name_claim_hash (tmp, &hash) && hash == _cs_name_hash (final);
}

/*
 * The last resort, for shares that can neither rename without replacing nor
 * hard-link (some SMB and FUSE servers). "Check that the name is free, then
 * rename" would clobber a file another program creates between the two, so
 * the name is claimed first, atomically, with an exclusive create; the
 * finished temporary is then renamed over our own claim.
 *
 * While the claim stands, anyone creating the name (O_EXCL, link, mkdir,
 * rename without replace) is told it exists. The claim is a small file that
 * says what it is: "copyscope placeholder <job tag>\n", mode 0400, so an
 * ordinary program opening it for writing as another user is refused too.
 * A kill between the claim and the rename leaves it under the final name; it
 * is not a partial copy of anything, the oracle counts it with the
 * temporaries, and the next run recognises it by its exact size, owner and
 * text (_cs_publish_is_placeholder) and replaces it with the file. A kill between the
 * create and the write of the text leaves an empty file instead, not ours by
 * itself: so the temporary says which name it is about to claim
 * (".copyscope-<tag>-<n>.claim-<hash of the name>"), and the next run,
 * finding that temporary of a run that is gone, replaces the empty file of
 * that name with the file, if the empty file is no older than the
 * temporary's last change (_cs_dir_is_unwritten_claim). Before that, the
 * rerun took the empty file for a newer one and skipped it for ever. A
 * temporary written beside its final name once the job knows it publishes
 * this way is created under that name (copy_file_attempt); else it is
 * renamed to it here, one request more (three on SMB).
 *
 * The claim is not looked at again before the rename: the rename follows its
 * close at once, so a check by name would narrow nothing (it would itself
 * open the window it closes) and cost a round trip (three requests on SMB).
 * What no primitive these shares offer can close: a program that replaces
 * our claim by renaming over it, or rewrites it at its size, in the moment
 * between the claim's close and the rename. That needs a program that
 * deliberately replaces a file it did not create, and the window is one
 * request wide instead of the whole check-to-rename gap.
 *
 * The fast paths never come here: the claim and its delete cost five requests
 * more than a rename.
 */
static CsOutcome
publish_claimed (CsJob      *job,
                 int         tmp_fd,
                 const char *tmp,
                 CsDir      *dir,
                 const char *final)
{
  char text[CS_PLACEHOLDER_SIZE + 1];
  gsize len = placeholder_text (job, text, sizeof text);
  gboolean renamed = !is_intent_for (tmp_fd, tmp, dir, final);
  char intent[96];
  CsOutcome o;
  ssize_t n;
  int fd;

  if (renamed)
    {
      _cs_publish_intent_name (job, final, intent, sizeof intent);
      if (_cs_io_renameat2 (&job->counters, tmp_fd, tmp, dir->dst_fd, intent, 0) != 0)
        return _cs_fail (errno, "rename");
    }
  else
    g_strlcpy (intent, tmp, sizeof intent);

  fd = _cs_io_openat (&job->counters, dir->dst_fd, final,
                      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0400);
  if (fd < 0)
    {
      o = _cs_fail (errno == EEXIST ? CS_ERR_APPEARED : errno, "rename");
      goto give_back;
    }
  n = _cs_io_pwrite (&job->counters, fd, text, len, 0);
  if (n != (ssize_t) len)
    {
      o = _cs_fail (n >= 0 ? EIO : errno, "rename");
      _cs_io_close (&job->counters, fd);
      _cs_io_unlinkat (&job->counters, dir->dst_fd, final, 0);
      goto give_back;
    }
  _cs_io_close (&job->counters, fd);

  /* Where the rename over the claim would first try not to replace it,
   * then delete it and rename again, the claim is deleted here, right
   * before the rename, as that delete would: the name is free for the
   * same one request, and the failed try goes (on SMB a create, a set
   * info and a close per new file). */
  if (replace_deletes_first (dir))
    _cs_io_unlinkat (&job->counters, dir->dst_fd, final, 0);
  if (_cs_io_renameat2 (&job->counters, dir->dst_fd, intent, dir->dst_fd, final, 0) == 0)
    return CS_OK;

  /* Over our own claim "exists" is what libsmbclient says when its delete of
   * the claim failed, also because the server just went away: asked again,
   * a share that is gone says so itself, and the job stops on that instead
   * of listing the file as a failure of its own. */
  {
    int code = errno;
    struct stat now;

    if (code == EEXIST && _cs_io_fstatat (&job->counters, dir->dst_fd, final, &now,
                                          AT_SYMLINK_NOFOLLOW) != 0 && errno != ENOENT)
      code = errno;
    o = _cs_fail (code, "rename");
  }
  if (claim_intact (job, dir, final, text, len))
    _cs_io_unlinkat (&job->counters, dir->dst_fd, final, 0);

give_back:
  /* The caller still owns the temporary under its old name (keep-both tries
   * the next name with it, a failure removes it). */
  if (renamed && _cs_io_renameat2 (&job->counters, dir->dst_fd, intent, tmp_fd, tmp, 0) != 0)
    _cs_io_unlinkat (&job->counters, dir->dst_fd, intent, 0);
  return o;
}

/* Publishes a finished temporary without ever clobbering a file it did not decide to replace. */
static CsOutcome
publish_noreplace (CsJob      *job,
                   int         tmp_fd,
                   const char *tmp,
                   CsDir      *dir,
                   const char *final)
{
  int fd = dir->dst_fd;
  /* From a staging folder a hard link locks only the final folder, where a
   * rename between folders also takes the filesystem-wide rename lock, so
   * renames into different folders wait for each other (lab NAS, 1,000 files
   * in 13 folders, 32 threads: 1.5 s linked, 3.9 s renamed). A folder with
   * more files than the largest pool is the bottleneck itself, and there the
   * rename, one round trip fewer than link and unlink, wins (1,000 files in
   * one folder: 3.9 s renamed, 4.5 s linked). */
  gboolean staged = tmp_fd != fd;
  gboolean prefer_link = staged && atomic_load_explicit (&dir->n_files, memory_order_relaxed) <= CS_JOB_MAX_THREADS;
  CsOutcome o;

  if (prefer_link && publish_by_link (job, tmp_fd, tmp, dir, final, &o))
    return o;

  /* Where RENAME_NOREPLACE is a check and a plain rename (GVfs), a name
   * created between the two would be clobbered: a hard link, or the claim. */
  if (!atomic_load_explicit (&job->caps.no_noreplace, memory_order_relaxed)
      && !(dir->fs != NULL && dir->fs->noreplace_racy))
    {
      if (_cs_io_renameat2 (&job->counters, tmp_fd, tmp, fd, final, RENAME_NOREPLACE) == 0)
        return CS_OK;
      if (errno == EEXIST)
        return _cs_fail (CS_ERR_APPEARED, "rename");
      /* From a staging folder on another filesystem: the caller writes beside. */
      if (errno == EXDEV || !_cs_io_is_unsupported (errno))
        return _cs_fail (errno, "rename");
      atomic_store (&job->caps.no_noreplace, 1);
    }

  /* Without RENAME_NOREPLACE, a hard link fails just as safely on an existing name. */
  if (publish_by_link (job, tmp_fd, tmp, dir, final, &o))
    return o;

  return publish_claimed (job, tmp_fd, tmp, dir, final);
}

/* "name (2).ext", "name (3).ext", … until one is free. */
static CsOutcome
publish_keep_both (CsJob      *job,
                   int         tmp_fd,
                   const char *tmp,
                   CsDir      *dir,
                   const char *final)
{
  for (guint n = 2; n < CS_KEEP_BOTH_MAX; n++)
    {
      g_autofree char *candidate = _cs_name_numbered (final, n);
      CsOutcome o = publish_noreplace (job, tmp_fd, tmp, dir, candidate);

      if (o.code != CS_ERR_APPEARED)
        return o;
    }

  return _cs_fail (EEXIST, "rename");
}

/* Renames temporary @tmp in folder @tmp_fd (the destination folder, or a
 * staging folder) to @final in @dir. */
CsOutcome
_cs_publish (CsJob      *job,
             int         tmp_fd,
             const char *tmp,
             CsDir      *dir,
             const char *final,
             CsAction    action)
{
  switch (action)
    {
    case CS_ACTION_REPLACE:
      /* rename() replaces atomically: the old file stays whole until this
       * instant. Where a rename over a name is a try that does not replace,
       * a delete of the name and the rename again (libsmbclient 4.17), that
       * delete is made here: the old file stays as long as it did, until
       * the request before the rename, and the rename needs no failed try
       * (on SMB three requests, a create, a set info and a close, fewer per
       * replaced file). Whatever the delete says, the rename does what it
       * did before; where it then fails, the name is left empty, as it was
       * when libsmbclient's own rename after its delete failed (a kill
       * between the two leaves the same: the name absent, the temporary
       * complete, which the rerun copies again). */
      if (replace_deletes_first (dir))
        _cs_io_unlinkat (&job->counters, dir->dst_fd, final, 0);
      if (_cs_io_renameat2 (&job->counters, tmp_fd, tmp, dir->dst_fd, final, 0) != 0)
        return _cs_fail (errno, "rename");
      return CS_OK;
    case CS_ACTION_KEEP_BOTH:
      return publish_keep_both (job, tmp_fd, tmp, dir, final);
    case CS_ACTION_COPY:
    case CS_ACTION_SKIP:
    case CS_ACTION_SKIP_NEWER:
    case CS_ACTION_SKIP_KEPT:
    case CS_ACTION_FAIL:
    default:
      return publish_noreplace (job, tmp_fd, tmp, dir, final);
    }
}

/* Linking by descriptor (AT_EMPTY_PATH) answers these without
 * CAP_DAC_READ_SEARCH; /proc/self/fd may still work. */
static gboolean
lacks_privilege (int code)
{
  return code == ENOENT || code == EPERM;
}

/* One way of linking an unnamed temporary; see link_settled. @code gets the
 * link's result. */
static gboolean
link_unnamed (CsJob      *job,
              int         olddirfd,
              const char *oldpath,
              CsDir      *dir,
              const char *final,
              int         flags,
              CsOutcome  *out,
              int        *code)
{
  *code = _cs_io_linkat (&job->counters, olddirfd, oldpath, dir->dst_fd, final, flags) == 0 ? 0 : errno;

  return link_settled (*code, lacks_privilege (*code) || _cs_io_is_unsupported (*code), "link", out);
}

/* No /proc, or links refused: named temporaries from now on, this file too. */
static CsOutcome
no_unnamed (CsJob *job)
{
  atomic_store (&job->caps.no_unnamed, 1);
  return _cs_fail (CS_ERR_NO_UNNAMED, "link");
}

/*
 * An unnamed temporary (O_TMPFILE) becomes the file by one hard link, which
 * fails on an existing name like RENAME_NOREPLACE. A folder's lock is then
 * taken once per file instead of twice (create, rename): copying 4,000 small
 * files into one folder, 8 threads spent 40 % of their CPU spinning on it.
 * A kill leaves nothing behind, since the kernel frees an inode no name holds.
 * Linking by descriptor (AT_EMPTY_PATH) needs CAP_DAC_READ_SEARCH; without it
 * the link goes through /proc/self/fd.
 */
CsOutcome
_cs_publish_unnamed (CsJob      *job,
                     int         tmp_fd,
                     CsDir      *dir,
                     const char *final)
{
  char proc[64];
  CsOutcome o;
  int code;

  if (!atomic_load_explicit (&job->caps.unnamed_via_proc, memory_order_relaxed))
    {
      if (link_unnamed (job, tmp_fd, "", dir, final, AT_EMPTY_PATH, &o, &code))
        return o;
      /* Only a refusal of this way is worth the other; a filesystem that
       * cannot link refuses both. */
      if (!lacks_privilege (code))
        return no_unnamed (job);
      atomic_store (&job->caps.unnamed_via_proc, 1);
    }

  g_snprintf (proc, sizeof proc, "/proc/self/fd/%d", tmp_fd);
  if (link_unnamed (job, AT_FDCWD, proc, dir, final, AT_SYMLINK_FOLLOW, &o, &code))
    return o;

  return no_unnamed (job);
}

void
_cs_publish_discard_temp (CsJob      *job,
                          int         folder_fd,
                          int        *tmp_fd,
                          const char *tmp)
{
  if (*tmp_fd >= 0)
    {
      _cs_io_close (&job->counters, *tmp_fd);
      *tmp_fd = -1;
    }
  if (tmp[0] != '\0')
    _cs_io_unlinkat (&job->counters, folder_fd, tmp, 0);
}
