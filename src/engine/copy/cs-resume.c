/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-resume"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

#include "cs-names-private.h"
#include "cs-resume-private.h"
#include "cs-tsan-private.h"

#define JOURNAL_MAGIC   "CSRESUM1"
#define PART_SUFFIX     ".part"
#define JOURNAL_SUFFIX  ".journal"
#define LOCK_SUFFIX     ".lock"     /* where a backend locks by name (SMB) */

/* Both in the byte order of the machine that wrote them: a journal read on
 * another one fails its checks and the file starts over, which is safe. */
typedef struct {
  char    magic[8];
  guint64 dev, ino, size;
  gint64  mtime_sec, mtime_nsec, ctime_sec, ctime_nsec;
  guint64 block;
  guint64 check;              /* XXH3 of everything above */
} Header;

typedef struct {
  guint64 offset, length, hash;
  guint64 check;              /* XXH3 of the three above: a torn record is ignored */
} Record;

struct _CsResume {
  CsDir   *dir;               /* a reference */
  char     name[64];          /* the partial */
  char     journal[64];
  char     lock_name[64];
  int      locked;              /* 0: not; 1: on the handle; 2: by name */
  int      fd;
  int      journal_fd;
  guint64  size;
  guint8  *kept;              /* one per block: proven from before */
  guint64  kept_bytes;
  GMutex   lock;              /* the journal's end, for workers writing chunks */
  guint64  journal_end;
  guint64  proven;            /* kept and journaled since: what a later run keeps */
  char    *display;           /* the final file, for the run record */

  /* Whole files: a thread of the partial's own hashes each block the worker
   * has just copied, while the worker copies the next (one at a time). */
  CsJob   *job;
  GThread *hasher;
  GMutex   hash_lock;
  GCond    hash_cond;
  guint64  hash_offset, hash_length;   /* the block handed over; 0 long: none */
  gboolean hash_quit;
  int      hash_code;                  /* the first failure, an errno */
  guint8  *hash_buffer;
};

gboolean
_cs_resume_wanted (CsJob             *job,
                   const struct stat *st)
{
  /* A sparse file's holes would be written as data: it is copied as before. */
  return !job->setup.settings.dry_run
         && S_ISREG (st->st_mode) && (guint64) st->st_size >= CS_RESUME_MIN
         && (guint64) st->st_blocks * 512 >= (guint64) st->st_size;
}

static void
fill_header (Header            *h,
             const struct stat *st)
{
  memset (h, 0, sizeof *h);
  memcpy (h->magic, JOURNAL_MAGIC, sizeof h->magic);
  h->dev = st->st_dev;
  h->ino = st->st_ino;
  h->size = (guint64) st->st_size;
  h->mtime_sec = st->st_mtim.tv_sec;
  h->mtime_nsec = st->st_mtim.tv_nsec;
  h->ctime_sec = st->st_ctim.tv_sec;
  h->ctime_nsec = st->st_ctim.tv_nsec;
  h->block = CS_RESUME_BLOCK;
  h->check = XXH3_64bits (h, offsetof (Header, check));
}

static guint64
block_length (CsResume *r,
              guint64   offset)
{
  return MIN (CS_RESUME_BLOCK, r->size - offset);
}

/* XXH3 of [@offset, @offset + @length) of @fd, read through the worker's buffer. */
static int
hash_range (CsJob    *job,
            guint8   *buffer,
            int       fd,
            guint64   offset,
            guint64   length,
            guint64  *out)
{
  XXH3_state_t *state = XXH3_createState ();
  guint64 done = 0;

  XXH3_64bits_reset (state);
  while (done < length)
    {
      ssize_t n = _cs_io_pread (&job->counters, fd, buffer, MIN (length - done, CS_BUFFER_SIZE),
                                (off_t) (offset + done));

      if (n <= 0)
        {
          int code = n < 0 ? errno : EIO;

          XXH3_freeState (state);
          return code;
        }
      XXH3_64bits_update (state, buffer, (size_t) n);
      done += (guint64) n;
    }
  *out = XXH3_64bits_digest (state);
  XXH3_freeState (state);
  return 0;
}

/* Whether @rec is a whole record, of a block of a file of @size. */
static gboolean
record_valid (const Record *rec,
              guint64       size)
{
  return rec->check == XXH3_64bits (rec, offsetof (Record, check)) && rec->offset % CS_RESUME_BLOCK == 0
         && rec->offset < size && rec->length == MIN (CS_RESUME_BLOCK, size - rec->offset);
}

/* The records of the journal open as @fd, when its header is of the source
 * of @st; FALSE when it is not, or cannot be read. */
static gboolean
read_journal (CsCounters        *c,
              int                fd,
              const struct stat *st,
              Record           **out_records,
              guint64           *out_n)
{
  Header want, have;
  struct stat jst;
  g_autofree Record *records = NULL;
  guint64 n_records;
  ssize_t n;

  fill_header (&want, st);
  if (_cs_io_fstat (c, fd, &jst) != 0 || (guint64) jst.st_size < sizeof (Header))
    return FALSE;
  n = _cs_io_pread (c, fd, &have, sizeof have, 0);
  if (n != (ssize_t) sizeof have || memcmp (&have, &want, sizeof have) != 0)
    return FALSE;

  n_records = ((guint64) jst.st_size - sizeof (Header)) / sizeof (Record);
  records = g_new (Record, MAX (n_records, 1));
  n = _cs_io_pread (c, fd, records, n_records * sizeof (Record), sizeof (Header));
  if (n < 0)
    return FALSE;
  *out_records = g_steal_pointer (&records);
  *out_n = (guint64) n / sizeof (Record);
  return TRUE;
}

/* A journal of this very source: keeps each block whose record the partial
 * still matches. FALSE when the partial is to start over. */
static gboolean
load (CsJob             *job,
      CsWorker          *worker,
      CsResume          *r,
      int                src_fd,
      const struct stat *st,
      guint64           *out_checked)
{
  g_autofree Record *records = NULL;
  guint64 n_records, last = G_MAXUINT64, last_hash = 0, hash;

  if (!read_journal (&job->counters, r->journal_fd, st, &records, &n_records))
    return FALSE;
  r->journal_end = sizeof (Header) + n_records * sizeof (Record);

  for (guint64 i = 0; i < n_records; i++)
    {
      const Record *rec = &records[i];
      guint64 index = rec->offset / CS_RESUME_BLOCK;

      if (!record_valid (rec, r->size) || r->kept[index])
        continue;
      *out_checked += rec->length;
      if (hash_range (job, worker->buffer, r->fd, rec->offset, rec->length, &hash) != 0 || hash != rec->hash)
        continue;
      r->kept[index] = TRUE;
      r->kept_bytes += rec->length;
      if (last == G_MAXUINT64 || rec->offset > last)
        {
          last = rec->offset;
          last_hash = rec->hash;
        }
    }
  if (last == G_MAXUINT64)
    return FALSE;

  /* The source said by its identity that it did not change; one block of its
   * bytes says so too. */
  if (hash_range (job, worker->buffer, src_fd, last, block_length (r, last), &hash) != 0 || hash != last_hash)
    return FALSE;
  return TRUE;
}

static int
start_over (CsJob             *job,
            CsResume          *r,
            const struct stat *st)
{
  Header h;

  memset (r->kept, 0, (r->size + CS_RESUME_BLOCK - 1) / CS_RESUME_BLOCK);
  r->kept_bytes = 0;
  fill_header (&h, st);
  if (_cs_io_ftruncate (&job->counters, r->fd, 0) != 0 || _cs_io_ftruncate (&job->counters, r->journal_fd, 0) != 0)
    return errno;
  if (_cs_io_pwrite (&job->counters, r->journal_fd, &h, sizeof h, 0) != (ssize_t) sizeof h)
    return errno != 0 ? errno : EIO;
  r->journal_end = sizeof h;
  return 0;
}

/* Waits for the block handed over, if any; with hash_lock held. */
static void
wait_hashed (CsResume *r)
{
  while (r->hash_length != 0)
    _cs_cond_wait (&r->hash_cond, &r->hash_lock);
}

static void
stop_hasher (CsResume *r)
{
  if (r->hasher == NULL)
    return;
  _cs_mutex_lock (&r->hash_lock);
  r->hash_quit = TRUE;
  g_cond_broadcast (&r->hash_cond);
  _cs_mutex_unlock (&r->hash_lock);
  g_thread_join (r->hasher);
  r->hasher = NULL;
}

static void
free_resume (CsJob    *job,
             CsResume *r)
{
  stop_hasher (r);
  g_mutex_clear (&r->hash_lock);
  g_cond_clear (&r->hash_cond);
  g_free (r->hash_buffer);
  /* Before the partial's handle closes: a lock by name outlives it. */
  if (r->locked)
    _cs_io_unlock (&job->counters, r->fd, r->dir->dst_fd, r->lock_name);
  if (r->journal_fd >= 0)
    _cs_io_close (&job->counters, r->journal_fd);
  if (r->fd >= 0)
    _cs_io_close (&job->counters, r->fd);
  _cs_dir_unref (r->dir);
  g_mutex_clear (&r->lock);
  g_free (r->kept);
  g_free (r->display);
  g_free (r);
}

/* Counted open, for a cancel to know what it could keep (cs_job_get_partials). */
static void
opened (CsJob    *job,
        CsResume *r)
{
  r->proven = r->kept_bytes;
  atomic_fetch_add (&job->resume.partials_open, 1);
  atomic_fetch_add (&job->resume.partials_proven, r->proven);
}

guint64
_cs_resume_peek (CsCounters        *counters,
                 int                dir_fd,
                 const char        *final,
                 const struct stat *st)
{
  guint64 hash = _cs_name_hash (final);
  guint64 size = (guint64) st->st_size;
  g_autofree Record *records = NULL;
  g_autofree guint8 *seen = NULL;
  guint64 n_records = 0, kept = 0;
  char name[64], journal[64];
  struct stat pst;
  gboolean ok;
  int fd;

  /* As _cs_resume_wanted and _cs_resume_open have it. */
  if (!S_ISREG (st->st_mode) || size < CS_RESUME_MIN || (guint64) st->st_blocks * 512 < size)
    return 0;
  g_snprintf (name, sizeof name, CS_RESUME_PREFIX "%016" G_GINT64_MODIFIER "x" PART_SUFFIX, hash);
  g_snprintf (journal, sizeof journal, CS_RESUME_PREFIX "%016" G_GINT64_MODIFIER "x" JOURNAL_SUFFIX, hash);
  if (_cs_io_fstatat (counters, dir_fd, name, &pst, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG (pst.st_mode)
      || pst.st_uid != geteuid () || pst.st_nlink != 1)
    return 0;
  fd = _cs_io_openat (counters, dir_fd, journal, O_RDONLY | O_NOFOLLOW, 0);
  if (fd < 0)
    return 0;
  ok = read_journal (counters, fd, st, &records, &n_records);
  _cs_io_close (counters, fd);
  if (!ok)
    return 0;

  seen = g_new0 (guint8, (size + CS_RESUME_BLOCK - 1) / CS_RESUME_BLOCK);
  for (guint64 i = 0; i < n_records; i++)
    {
      const Record *rec = &records[i];

      /* A block the partial does not reach is not there to keep. */
      if (!record_valid (rec, size) || seen[rec->offset / CS_RESUME_BLOCK]
          || rec->offset + rec->length > (guint64) pst.st_size)
        continue;
      seen[rec->offset / CS_RESUME_BLOCK] = TRUE;
      kept += rec->length;
    }
  return kept;
}

CsResume *
_cs_resume_open (CsJob             *job,
                 CsWorker          *worker,
                 CsDir             *dir,
                 const char        *final,
                 int                src_fd,
                 const struct stat *st)
{
  guint64 hash = _cs_name_hash (final);
  CsResume *r = g_new0 (CsResume, 1);
  g_autofree char *path = NULL;
  guint64 checked = 0;
  struct stat pst;
  int code;

  r->dir = _cs_dir_ref (dir);
  r->fd = r->journal_fd = -1;
  r->size = (guint64) st->st_size;
  r->kept = g_new0 (guint8, (r->size + CS_RESUME_BLOCK - 1) / CS_RESUME_BLOCK);
  g_mutex_init (&r->lock);
  g_mutex_init (&r->hash_lock);
  g_cond_init (&r->hash_cond);
  r->job = job;
  g_snprintf (r->name, sizeof r->name, CS_RESUME_PREFIX "%016" G_GINT64_MODIFIER "x" PART_SUFFIX, hash);
  g_snprintf (r->journal, sizeof r->journal, CS_RESUME_PREFIX "%016" G_GINT64_MODIFIER "x" JOURNAL_SUFFIX, hash);
  g_snprintf (r->lock_name, sizeof r->lock_name, CS_RESUME_PREFIX "%016" G_GINT64_MODIFIER "x" LOCK_SUFFIX, hash);

  r->fd = _cs_io_openat (&job->counters, dir->dst_fd, r->name, O_RDWR | O_CREAT | O_NOFOLLOW, 0600);
  if (r->fd < 0)
    goto refuse;
  /* The backend's (cs-io-private.h): flock on a path, a lock file on SMB. */
  if ((code = _cs_io_lock (&job->counters, r->fd, dir->dst_fd, r->lock_name)) < 0)
    goto refuse;
  r->locked = 1 + code;
  if (_cs_io_fstat (&job->counters, r->fd, &pst) != 0)
    goto refuse;
  if (!S_ISREG (pst.st_mode) || pst.st_uid != job->life.euid || pst.st_nlink != 1)
    {
      /* Not one we could have written: left alone. */
      errno = EEXIST;
      goto refuse;
    }
  r->journal_fd = _cs_io_openat (&job->counters, dir->dst_fd, r->journal, O_RDWR | O_CREAT | O_NOFOLLOW, 0600);
  if (r->journal_fd < 0)
    goto refuse;

  path = _cs_dir_dup_path (dir, final, TRUE);
  r->display = g_filename_display_name (path);
  if (load (job, worker, r, src_fd, st, &checked))
    {
      CsRunEvent event = { _cs_job_elapsed (job), (char *) "resume", (double) r->kept_bytes,
                           r->size, checked, r->display };

      _cs_run_add_event (job->life.run, &event);
      opened (job, r);
      return r;
    }
  code = start_over (job, r, st);
  if (code == 0)
    {
      opened (job, r);
      return r;
    }
  errno = code;

refuse:
  code = errno;
  free_resume (job, r);
  errno = code;
  return NULL;
}

int
_cs_resume_get_fd (CsResume *resume)
{
  return resume->fd;
}

gboolean
_cs_resume_release_fd (CsJob    *job,
                       CsResume *resume)
{
  /* A lock on the handle (flock) would go with it: the handle stays. */
  if (resume->locked != 2 || resume->fd < 0)
    return FALSE;
  stop_hasher (resume);
  _cs_io_close (&job->counters, resume->fd);
  resume->fd = -1;
  return TRUE;
}

const char *
_cs_resume_get_name (CsResume *resume)
{
  return resume->name;
}

guint64
_cs_resume_get_kept (CsResume *resume)
{
  return resume->kept_bytes;
}

gboolean
_cs_resume_has_block (CsResume *resume,
                      guint64   offset)
{
  return offset < resume->size && resume->kept[offset / CS_RESUME_BLOCK];
}

gboolean
_cs_resume_pays (guint64 length,
                 gint64  usec)
{
  return (double) length * G_USEC_PER_SEC < CS_RESUME_PAYS_RATE * (double) MAX (usec, 1);
}

/* the partial's hasher thread */
static gpointer
hash_blocks (gpointer data)
{
  CsResume *r = data;

  _cs_mutex_lock (&r->hash_lock);
  for (;;)
    {
      guint64 offset = r->hash_offset, length = r->hash_length, hash = 0;
      int code;

      if (length == 0)
        {
          if (r->hash_quit)
            break;
          _cs_cond_wait (&r->hash_cond, &r->hash_lock);
          continue;
        }
      _cs_mutex_unlock (&r->hash_lock);
      code = hash_range (r->job, r->hash_buffer, r->fd, offset, length, &hash);
      if (code == 0)
        code = _cs_resume_wrote_block (r->job, r, offset, length, hash);
      _cs_mutex_lock (&r->hash_lock);
      if (r->hash_code == 0)
        r->hash_code = code;
      r->hash_length = 0;
      g_cond_broadcast (&r->hash_cond);
    }
  _cs_mutex_unlock (&r->hash_lock);
  return NULL;
}

int
_cs_resume_hash_later (CsResume *resume,
                       guint64   offset,
                       guint64   length)
{
  int code;

  if (resume->hasher == NULL)
    {
      resume->hash_buffer = g_malloc (CS_BUFFER_SIZE);
      resume->hasher = g_thread_new ("cs-resume-hash", hash_blocks, resume);
    }
  _cs_mutex_lock (&resume->hash_lock);
  wait_hashed (resume);
  code = resume->hash_code;
  if (code == 0)
    {
      resume->hash_offset = offset;
      resume->hash_length = length;
      g_cond_broadcast (&resume->hash_cond);
    }
  _cs_mutex_unlock (&resume->hash_lock);
  return code;
}

int
_cs_resume_hashed (CsResume *resume)
{
  int code;

  if (resume->hasher == NULL)
    return 0;
  _cs_mutex_lock (&resume->hash_lock);
  wait_hashed (resume);
  code = resume->hash_code;
  _cs_mutex_unlock (&resume->hash_lock);
  return code;
}

int
_cs_resume_wrote_block (CsJob    *job,
                        CsResume *resume,
                        guint64   offset,
                        guint64   length,
                        guint64   hash)
{
  Record rec = { offset, length, hash, 0 };
  ssize_t n;
  int code;

  rec.check = XXH3_64bits (&rec, offsetof (Record, check));
  _cs_mutex_lock (&resume->lock);
  n = _cs_io_pwrite (&job->counters, resume->journal_fd, &rec, sizeof rec, (off_t) resume->journal_end);
  if (n == (ssize_t) sizeof rec)
    {
      resume->journal_end += sizeof rec;
      resume->proven += length;
      atomic_fetch_add (&job->resume.partials_proven, length);
    }
  code = n == (ssize_t) sizeof rec ? 0 : n < 0 ? errno : EIO;
  _cs_mutex_unlock (&resume->lock);
  return code;
}

void
_cs_resume_close (CsJob    *job,
                  CsResume *resume,
                  gboolean  published,
                  gboolean  keep)
{
  int dst_fd = resume->dir->dst_fd;

  /* The block handed over last is journaled first: it was written whole. */
  stop_hasher (resume);
  atomic_fetch_sub (&job->resume.partials_open, 1);
  atomic_fetch_sub (&job->resume.partials_proven, resume->proven);
  if (!published && keep)
    {
      CsRunEvent event = { _cs_job_elapsed (job), (char *) "kept", (double) resume->proven,
                           resume->size, 0, resume->display };

      _cs_run_add_event (job->life.run, &event);
    }
  /* A share removes no file open on it, so the journal is closed first; a
   * lock on the partial's handle (flock) holds until the end. */
  if (resume->journal_fd >= 0)
    {
      _cs_io_close (&job->counters, resume->journal_fd);
      resume->journal_fd = -1;
    }
  if (published || !keep)
    _cs_io_unlinkat (&job->counters, dst_fd, resume->journal, 0);
  if (!published && !keep)
    _cs_io_unlinkat (&job->counters, dst_fd, resume->name, 0);
  free_resume (job, resume);
}

gboolean
_cs_name_is_resume (const char *name,
                    guint64    *out_hash)
{
  const char *hex = name + strlen (CS_RESUME_PREFIX);
  const char *suffix = hex + 16;
  guint64 hash = 0;

  if (!g_str_has_prefix (name, CS_RESUME_PREFIX) || strlen (hex) < 16
      || (strcmp (suffix, PART_SUFFIX) != 0 && strcmp (suffix, JOURNAL_SUFFIX) != 0
          && strcmp (suffix, LOCK_SUFFIX) != 0))
    return FALSE;
  for (guint i = 0; i < 16; i++)
    {
      int v = g_ascii_xdigit_value (hex[i]);

      if (v < 0 || g_ascii_isupper (hex[i]))
        return FALSE;
      hash = (hash << 4) | (guint64) v;
    }
  if (out_hash != NULL)
    *out_hash = hash;
  return TRUE;
}

void
_cs_resume_sweep (CsJob      *job,
                  CsDir      *dir,
                  GHashTable *found,
                  GHashTable *wanted)
{
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, found);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      const char *name = key;
      char partner[64], lock_name[64];
      guint64 hash;
      struct stat st;
      int fd;

      if (!_cs_name_is_resume (name, &hash) || (wanted != NULL && g_hash_table_contains (wanted, &hash)))
        continue;
      if (g_str_has_suffix (name, LOCK_SUFFIX))
        {
          /* Left by a holder killed after its partial went: removed once
           * it is the backend's to take (stale). */
          g_snprintf (partner, sizeof partner, CS_RESUME_PREFIX "%016" G_GINT64_MODIFIER "x" PART_SUFFIX, hash);
          if (_cs_io_fstatat (&job->counters, dir->dst_fd, partner, &st, AT_SYMLINK_NOFOLLOW) != 0
              && errno == ENOENT
              && _cs_io_fstatat (&job->counters, dir->dst_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0
              && _cs_io_lock (&job->counters, -1, dir->dst_fd, name) >= 0)
            _cs_io_unlock (&job->counters, -1, dir->dst_fd, name);
          continue;
        }
      if (g_str_has_suffix (name, JOURNAL_SUFFIX))
        {
          /* A journal goes with its partial, or alone when that is gone. */
          g_snprintf (partner, sizeof partner, CS_RESUME_PREFIX "%016" G_GINT64_MODIFIER "x" PART_SUFFIX, hash);
          if (_cs_io_fstatat (&job->counters, dir->dst_fd, partner, &st, AT_SYMLINK_NOFOLLOW) != 0
              && errno == ENOENT)
            _cs_io_unlinkat (&job->counters, dir->dst_fd, name, 0);
          continue;
        }
      fd = _cs_io_openat (&job->counters, dir->dst_fd, name, O_RDONLY | O_NOFOLLOW, 0);
      if (fd < 0)
        continue;
      g_snprintf (lock_name, sizeof lock_name, CS_RESUME_PREFIX "%016" G_GINT64_MODIFIER "x" LOCK_SUFFIX, hash);
      if (_cs_io_fstat (&job->counters, fd, &st) == 0 && S_ISREG (st.st_mode) && st.st_uid == job->life.euid
          && _cs_io_lock (&job->counters, fd, dir->dst_fd, lock_name) >= 0)
        {
          g_snprintf (partner, sizeof partner, CS_RESUME_PREFIX "%016" G_GINT64_MODIFIER "x" JOURNAL_SUFFIX, hash);
          _cs_io_unlinkat (&job->counters, dir->dst_fd, partner, 0);
          _cs_io_unlinkat (&job->counters, dir->dst_fd, name, 0);
          _cs_io_unlock (&job->counters, fd, dir->dst_fd, lock_name);
        }
      _cs_io_close (&job->counters, fd);
    }
}
