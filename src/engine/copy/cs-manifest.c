/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-manifest"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "cs-manifest.h"
#include "cs-manifest-private.h"
#include "cs-job-private.h"
#include "cs-names-private.h"
#include "cs-run-private.h"

#define FLUSH_BYTES (256 * 1024)

struct _CsManifest {
  CsManifestAlgo algo;
  char          *path;         /* absolute, the final name */
  char          *folder;       /* its folder */
  char          *tmp_folder;   /* where the temporary is: folder, or the nearest that exists */
  char          *tmp;          /* the temporary's name in folder */
  char          *root;         /* the destination root, canonical */
  char          *self_rel;     /* the manifest's path below root, or NULL: outside it */
  int            fd;           /* the temporary */
  GMutex         lock;
  GString       *pending;
  gboolean       broken;       /* a write failed: errno_saved says why */
  int            errno_saved;
  atomic_uint_fast64_t files, from_copy, read_copied, read_kept, bytes_read;
};

/* ---- Hashing ------------------------------------------------------------ */

void
_cs_hasher_init (CsHasher *hasher,
                 gboolean  sha256)
{
  hasher->xxh = XXH3_createState ();
  XXH3_128bits_reset (hasher->xxh);
  hasher->sha = sha256 ? g_checksum_new (G_CHECKSUM_SHA256) : NULL;
}

void
_cs_hasher_update (CsHasher   *hasher,
                   const void *data,
                   gsize       length)
{
  XXH3_128bits_update (hasher->xxh, data, length);
  if (hasher->sha != NULL)
    g_checksum_update (hasher->sha, data, (gssize) length);
}

void
_cs_hasher_finish (CsHasher *hasher,
                   guint8   *xxh,
                   guint8   *sha)
{
  XXH128_canonical_t canonical;

  XXH128_canonicalFromHash (&canonical, XXH3_128bits_digest (hasher->xxh));
  memcpy (xxh, canonical.digest, 16);
  if (sha != NULL && hasher->sha != NULL)
    {
      gsize len = 32;

      g_checksum_get_digest (hasher->sha, sha, &len);
    }
  _cs_hasher_clear (hasher);
}

void
_cs_hasher_clear (CsHasher *hasher)
{
  g_clear_pointer (&hasher->xxh, XXH3_freeState);
  g_clear_pointer (&hasher->sha, g_checksum_free);
}

/* The digest of @algo of the file @fd, through @buffer; 0 or an errno. */
static int
hash_fd (CsCounters     *counters,
         int             fd,
         CsManifestAlgo  algo,
         guint8         *buffer,
         gsize           buffer_size,
         guint8         *digest,
         guint64        *out_bytes)
{
  CsHasher hasher;
  guint8 xxh[16];
  guint64 pos = 0;

  _cs_hasher_init (&hasher, algo == CS_MANIFEST_SHA256);
  for (;;)
    {
      ssize_t n = _cs_io_pread (counters, fd, buffer, buffer_size, (off_t) pos);

      if (n < 0)
        {
          int saved = errno;

          _cs_hasher_clear (&hasher);
          return saved;
        }
      if (n == 0)
        break;
      _cs_hasher_update (&hasher, buffer, (gsize) n);
      pos += (guint64) n;
    }
  if (algo == CS_MANIFEST_SHA256)
    _cs_hasher_finish (&hasher, xxh, digest);
  else
    _cs_hasher_finish (&hasher, digest, NULL);
  *out_bytes = pos;
  return 0;
}

/* ---- Writing ------------------------------------------------------------ */

void
cs_job_set_manifest (CsJob          *self,
                     const char     *path,
                     CsManifestAlgo  algo)
{
  g_return_if_fail (CS_IS_JOB (self));
  g_return_if_fail (self->gate.state == CS_JOB_STATE_READY);

  g_clear_pointer (&self->setup.manifest_path, g_free);
  self->setup.manifest_path = path != NULL ? g_canonicalize_filename (path, NULL) : NULL;
  self->setup.manifest_algo = algo;
}

/* lock held */
static void
flush_locked (CsManifest *m)
{
  gsize done = 0;

  while (done < m->pending->len && !m->broken)
    {
      ssize_t n = write (m->fd, m->pending->str + done, m->pending->len - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          m->errno_saved = n < 0 ? errno : EIO;
          m->broken = TRUE;
          break;
        }
      done += (gsize) n;
    }
  g_string_truncate (m->pending, 0);
}

/* Removes what a killed run of ours left in the manifest's folder: its
 * temporaries, which the copy's own sweep does not reach when the folder
 * lies outside the destination. Only names of ours whose run is gone. */
static void
sweep_leftovers (const char *folder)
{
  g_autoptr(GDir) dir = g_dir_open (folder, 0, NULL);
  const char *name;

  if (dir == NULL)
    return;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = NULL;
      struct stat st;

      if (!_cs_name_is_our_temp (name) || _cs_name_run_alive (name))
        continue;
      path = g_build_filename (folder, name, NULL);
      if (g_lstat (path, &st) == 0 && S_ISREG (st.st_mode) && st.st_uid == geteuid ())
        g_unlink (path);
    }
}

gboolean
_cs_manifest_open (CsJob   *job,
                   GError **error)
{
  g_autofree char *dest = NULL;
  CsManifest *m;
  char tmp[96];

  if (job->setup.manifest_path == NULL || job->setup.settings.dry_run)
    return TRUE;

  if (!_cs_io_is_path (job->setup.manifest_path))
    {
      g_set_error (error, CS_JOB_ERROR, CS_JOB_ERROR_INVALID,
                   _("A checksum list is written to a local file, not to %s"), job->setup.manifest_path);
      return FALSE;
    }

  m = g_new0 (CsManifest, 1);
  m->algo = job->setup.manifest_algo;
  m->path = g_strdup (job->setup.manifest_path);
  m->folder = g_path_get_dirname (m->path);
  g_mutex_init (&m->lock);
  m->pending = g_string_sized_new (FLUSH_BYTES + 4096);

  dest = g_canonicalize_filename (job->setup.destination, NULL);
  m->root = g_steal_pointer (&dest);
  if (g_str_has_prefix (m->path, m->root) && m->path[strlen (m->root)] == '/')
    m->self_rel = g_strdup (m->path + strlen (m->root) + 1);
  else if (strcmp (m->root, "/") == 0)
    m->self_rel = g_strdup (m->path + 1);

  /* The manifest's folder may be one the copy makes ("copy DIR new
   * --manifest new/SUMS"): the temporary waits in the nearest folder that
   * exists, and is renamed into place at the end. */
  m->tmp_folder = g_strdup (m->folder);
  while (!g_file_test (m->tmp_folder, G_FILE_TEST_IS_DIR) && strcmp (m->tmp_folder, "/") != 0)
    {
      char *parent = g_path_get_dirname (m->tmp_folder);

      g_free (m->tmp_folder);
      m->tmp_folder = parent;
    }
  sweep_leftovers (m->tmp_folder);
  g_snprintf (tmp, sizeof tmp, CS_TEMP_PREFIX "%s-%" G_GUINT64_FORMAT CS_TEMP_SUFFIX, job->life.job_tag,
              (guint64) atomic_fetch_add (&job->caps.temp_seq, 1));
  m->tmp = g_build_filename (m->tmp_folder, tmp, NULL);
  m->fd = open (m->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (m->fd < 0)
    {
      int saved = errno;
      g_autofree char *display = g_filename_display_name (m->path);

      g_set_error (error, CS_JOB_ERROR, CS_JOB_ERROR_DESTINATION,
                   _("Cannot write the checksum list %s: %s"), display, g_strerror (saved));
      g_clear_pointer (&m->tmp, g_free);
      _cs_manifest_free (m);
      return FALSE;
    }
  job->lists.manifest = m;
  return TRUE;
}

gboolean
_cs_manifest_wants_sha256 (CsJob *job)
{
  return job->lists.manifest != NULL && job->lists.manifest->algo == CS_MANIFEST_SHA256;
}

/* @dir/@name as a path below the destination root, or NULL where it is not
 * below it (then it is not listed). */
static char *
relative_path (CsManifest *m,
               CsDir      *dir,
               const char *name)
{
  g_autofree char *full = _cs_dir_dup_path (dir, name, TRUE);
  g_autofree char *canonical = g_canonicalize_filename (full, NULL);
  gsize n = strlen (m->root);

  if (strcmp (canonical, m->root) == 0)
    {
      /* A single file copied to a file's name: listed by that name, as
       * the tools check it from its folder. */
      return g_path_get_basename (canonical);
    }
  if (strcmp (m->root, "/") == 0)
    return g_strdup (canonical + 1);
  if (g_str_has_prefix (canonical, m->root) && canonical[n] == '/')
    return g_strdup (canonical + n + 1);
  return NULL;
}

static void
add_line (CsJob        *job,
          CsManifest   *m,
          const char   *rel,
          const guint8 *digest)
{
  _cs_mutex_lock (&m->lock);
  cs_manifest_append_line (m->pending, m->algo, digest, rel);
  if (m->pending->len >= FLUSH_BYTES)
    flush_locked (m);
  _cs_mutex_unlock (&m->lock);
  atomic_fetch_add_explicit (&m->files, 1, memory_order_relaxed);
}

/* Reads @name in @dir's destination folder and lists it; FALSE where it is
 * not a regular file (nothing to list). A file that cannot be read is a
 * failure of the run: the manifest cannot vouch for it. */
static gboolean
list_from_destination (CsJob      *job,
                       CsWorker   *worker,
                       CsDir      *dir,
                       const char *name,
                       const char *rel)
{
  CsManifest *m = job->lists.manifest;
  guint8 digest[CS_MANIFEST_MAX_DIGEST];
  guint64 bytes = 0;
  struct stat st;
  int fd, code;

  /* Non-blocking: a FIFO in a file's place would hold the open forever. */
  fd = _cs_io_openat (&job->counters, dir->dst_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, 0);
  if (fd < 0)
    {
      if (errno == ELOOP || errno == ENOENT)
        return FALSE;
      code = errno;
    }
  else if (_cs_io_fstat (&job->counters, fd, &st) != 0)
    code = errno;
  else if (!S_ISREG (st.st_mode))
    {
      _cs_io_close (&job->counters, fd);
      return FALSE;
    }
  else
    code = hash_fd (&job->counters, fd, m->algo, worker->buffer, CS_BUFFER_SIZE, digest, &bytes);
  if (fd >= 0)
    _cs_io_close (&job->counters, fd);
  if (code != 0)
    {
      _cs_job_report (job, dir, name, "checksum", code, NULL, 1);
      return FALSE;
    }
  atomic_fetch_add_explicit (&m->bytes_read, bytes, memory_order_relaxed);
  add_line (job, m, rel, digest);
  return TRUE;
}

static const char *
final_name (CsItem *item)
{
  return item->dst_name != NULL ? item->dst_name : item->name;
}

void
_cs_manifest_copied (CsJob    *job,
                     gpointer  worker_ptr,
                     CsItem   *item)
{
  CsWorker *worker = worker_ptr;
  CsManifest *m = job->lists.manifest;
  g_autofree char *rel = NULL;

  if (m == NULL || (item->kind != CS_ITEM_FILE && item->kind != CS_ITEM_CHUNK))
    return;
  rel = relative_path (m, item->dir, final_name (item));
  if (rel == NULL || g_strcmp0 (rel, m->self_rel) == 0)
    return;
  if (worker->has_digest)
    {
      add_line (job, m, rel, worker->digest);
      atomic_fetch_add_explicit (&m->from_copy, 1, memory_order_relaxed);
    }
  else if (list_from_destination (job, worker, item->dir, final_name (item), rel))
    atomic_fetch_add_explicit (&m->read_copied, 1, memory_order_relaxed);
}

void
_cs_manifest_kept (CsJob    *job,
                   gpointer  worker_ptr,
                   CsItem   *item)
{
  CsManifest *m = job->lists.manifest;
  g_autofree char *rel = NULL;

  if (m == NULL || !S_ISREG (item->st.st_mode))
    return;
  rel = relative_path (m, item->dir, final_name (item));
  if (rel == NULL || g_strcmp0 (rel, m->self_rel) == 0)
    return;
  if (list_from_destination (job, worker_ptr, item->dir, final_name (item), rel))
    atomic_fetch_add_explicit (&m->read_kept, 1, memory_order_relaxed);
}

void
_cs_manifest_moved (CsJob    *job,
                    gpointer  worker_ptr,
                    CsItem   *item,
                    int       action)
{
  CsManifest *m = job->lists.manifest;
  struct stat st;

  if (m == NULL || !S_ISREG (item->st.st_mode) || action == CS_ACTION_FAIL)
    return;
  if (action >= CS_ACTION_SKIP)
    {
      _cs_manifest_kept (job, worker_ptr, item);
      return;
    }
  /* Renamed: the source's own inode is there now; anything else means
   * the rename did not happen (it failed, or the job stopped first). */
  if (_cs_io_fstatat (&job->counters, item->dir->dst_fd, final_name (item), &st, AT_SYMLINK_NOFOLLOW) == 0
      && st.st_ino == item->st.st_ino && st.st_dev == item->st.st_dev)
    {
      CsWorker *worker = worker_ptr;

      worker->has_digest = FALSE;
      _cs_manifest_copied (job, worker, item);
    }
}

gboolean
_cs_manifest_is_self (CsJob      *job,
                      CsDir      *dir,
                      const char *name)
{
  g_autofree char *rel = NULL;

  if (job->lists.manifest == NULL || job->lists.manifest->self_rel == NULL)
    return FALSE;
  rel = relative_path (job->lists.manifest, dir, name);
  return g_strcmp0 (rel, job->lists.manifest->self_rel) == 0;
}

/* fsync of the folder holding @path: the rename is on disk too. */
static void
sync_folder (const char *folder)
{
  int fd = open (folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  if (fd >= 0)
    {
      fsync (fd);
      close (fd);
    }
}

void
_cs_manifest_finish (CsJob *job)
{
  CsManifest *m = job->lists.manifest;
  int code = 0;

  if (m == NULL)
    return;

  if (_cs_job_stopping (job))
    {
      /* A cancel or a fatal error: the list would miss files; none is
       * published, and an older one under the name stays as it was. */
      close (m->fd);
      m->fd = -1;
      g_unlink (m->tmp);
      return;
    }

  _cs_mutex_lock (&m->lock);
  flush_locked (m);
  _cs_mutex_unlock (&m->lock);
  if (m->broken)
    code = m->errno_saved;
  else if (fsync (m->fd) != 0)
    code = errno;
  if (close (m->fd) != 0 && code == 0)
    code = errno;
  m->fd = -1;
  if (code == 0 && rename (m->tmp, m->path) != 0)
    code = errno;
  if (code != 0)
    {
      g_unlink (m->tmp);
      _cs_run_add_error (job->life.run, m->path, "write checksum list", code, NULL, 1);
      return;
    }
  g_clear_pointer (&m->tmp, g_free);
  sync_folder (m->folder);

  {
    CsRunManifest record = {
      .path = m->path,
      .algo = cs_manifest_algo_to_string (m->algo),
      .files = atomic_load (&m->files),
      .from_copy = atomic_load (&m->from_copy),
      .read_copied = atomic_load (&m->read_copied),
      .read_kept = atomic_load (&m->read_kept),
      .bytes_read = atomic_load (&m->bytes_read),
    };

    _cs_run_set_manifest (job->life.run, &record);
  }
}

void
_cs_manifest_free (CsManifest *m)
{
  if (m == NULL)
    return;
  if (m->fd >= 0)
    close (m->fd);
  if (m->tmp != NULL)
    g_unlink (m->tmp);
  g_string_free (m->pending, TRUE);
  g_mutex_clear (&m->lock);
  g_free (m->path);
  g_free (m->folder);
  g_free (m->tmp_folder);
  g_free (m->tmp);
  g_free (m->root);
  g_free (m->self_rel);
  g_free (m);
}
