/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-scanner"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "cs-dest-listing-private.h"
#include "cs-copy-data-private.h"
#include "cs-copy-private.h"
#include "cs-io-private.h"
#include "cs-metadata-private.h"

/*
 * A rerun onto a share, decided from folder listings. Asking the server
 * about each file by name costs a round trip per file (two SMB2 requests,
 * or more); SMB's directory query already returns every entry's size,
 * times and type, so the scanner lists each destination folder once (the
 * listing it makes anyway for Extras and leftovers) and decides from it
 * every file whose decision writes nothing, by the very rules a worker
 * applies (_cs_copy_decide_against). Only files that need work go to the
 * pool, and a worker decides those again by name: a listing may be
 * moments old, and publishing still refuses to overwrite what appeared or
 * changed meanwhile (RELIABILITY.md).
 */

static void listing_timed (CsJob *job, gint64 start, guint entries);
static void grow_threads (CsJob *job);

GPtrArray *
_cs_dest_listing_read (CsJob *job,
                       CsDir *dir)
{
  g_autoptr(GPtrArray) entries = NULL;
  gint64 start;

  /* Listed ahead, when the folder was opened (_cs_dest_listing_take). */
  if (dir->dst_listed != NULL)
    return g_steal_pointer (&dir->dst_listed);
  if (dir->dst_fd < 0 || dir->dst_new || !_cs_copy_on_share (dir->dst_fd))
    return NULL;
  entries = g_ptr_array_new_with_free_func (g_free);
  start = g_get_monotonic_time ();
  if (_cs_io_readdirplus (&job->counters, dir->dst_fd, entries) != 0)
    {
      g_debug ("folder not listed with attributes (%s): files asked by name", g_strerror (errno));
      return NULL;
    }
  listing_timed (job, start, entries->len);
  return g_steal_pointer (&entries);
}

/* Whether an identical file's tweak would compare extended attributes and
 * ACLs (cs-tweak.c: the source changed after the destination did, and the
 * destination has not refused them): it does so on a handle it checks
 * against the destination's inode number, which a listing may number
 * otherwise than a stat. Left to a worker's stat by name; on a share that
 * keeps none, only until the first file finds that out. */
static gboolean
xattrs_compared (CsJob             *job,
                 const struct stat *src,
                 const struct stat *dst)
{
  if (!S_ISREG (src->st_mode) || (dst->st_ctim.tv_sec == 0 && dst->st_ctim.tv_nsec == 0)
      || atomic_load_explicit (&job->caps.no_xattr, memory_order_relaxed)
      || (_cs_metadata_refused (job, CS_METADATA_XATTRS) && _cs_metadata_refused (job, CS_METADATA_ACLS)))
    return FALSE;
  return src->st_ctim.tv_sec > dst->st_ctim.tv_sec
         || (src->st_ctim.tv_sec == dst->st_ctim.tv_sec && src->st_ctim.tv_nsec > dst->st_ctim.tv_nsec);
}

gboolean
_cs_dest_listing_decide (CsJob             *job,
                         CsDir             *dir,
                         const char        *name,
                         const char        *dst_name,
                         const struct stat *src,
                         const struct stat *dst)
{
  CsOverwrite overwrite = job->setup.settings.overwrite;
  guint64 size = S_ISREG (src->st_mode) ? (guint64) src->st_size : 0;
  CsAction action;

  /* Decided by name here, so the first file finds out whether the share
   * keeps extended attributes (the engine's SMB client keeps none) before
   * the files after it, rather than a worker racing the listing. */
  if (xattrs_compared (job, src, dst))
    {
      if (!_cs_copy_decide_identical (job, dir, name, dst_name, src))
        return FALSE;
      _cs_job_count_decided (job, CS_ACTION_SKIP);
      _cs_job_account (job, dir, name, dst_name, CS_ACTION_SKIP, size);
      return TRUE;
    }
  if (_cs_copy_identical_to (job, dir, name, dst_name, src, dst))
    {
      _cs_job_count_decided (job, CS_ACTION_SKIP);
      _cs_job_account (job, dir, name, dst_name, CS_ACTION_SKIP, size);
      return TRUE;
    }
  /* A question is asked by a worker, about what is there then. */
  if (overwrite == CS_OVERWRITE_ASK || overwrite == CS_OVERWRITE_ALWAYS || overwrite == CS_OVERWRITE_DIFFERENT)
    return FALSE;
  action = _cs_copy_decide_against (job, dir, name, dst_name, src, dst);
  if (action <= CS_ACTION_KEEP_BOTH)
    return FALSE;
  _cs_job_count_decided (job, action);
  _cs_job_account (job, dir, name, dst_name, action, size);
  return TRUE;
}

/* ---- Folders listed ahead ------------------------------------------------ */

/* How many subfolders of one folder are opened ahead at most: each holds a
 * handle (on a share, a URL) until the scanner reaches it. */
#define PREFETCH_MAX 256
/* The threads that list ahead, a job's own, each with its connection.
 * Samba serves one connection's requests one after the other, and answers
 * libsmbclient's directory query (FileIdBothDirectoryInformation) with
 * each entry's EA size: a listxattr per entry beside the DOS attributes'
 * getxattr, twice the filesystem calls per entry of a client that asks
 * less (rclone's). Behind 1 ms per filesystem call, 5,000 files in folders
 * of 100, no-op copy: 2.6–2.8 s with 16, 3.4–3.7 s with 8 (load 11–16),
 * with connections set up one at a time. Set up together, 32 took 1.14–
 * 1.34 s against 16's 1.49–1.57 s, but at 0 µs 0.53–0.73 s against
 * 0.40–0.47 s, the set-ups of the other 16 costing what their listings do
 * not win back. So 16 list ahead, and 32 once a listing says the server
 * is slow (_cs_job_listing_slow). A thread's first listing does not count,
 * as it also sets its connection up (at 0 µs, 16 set-ups at once on two
 * busy cores took 0.1 s). */
#define PREFETCH_THREADS      16
#define PREFETCH_THREADS_SLOW 32

/* Set in a listing thread once it listed a folder. */
static GPrivate listed_before;

/* A destination listing of @entries entries that began at @start (monotonic
 * µs) is over: a slow one lets more threads list ahead. */
static void
listing_timed (CsJob *job,
               gint64 start,
               guint  entries)
{
  gint64 took = g_get_monotonic_time () - start;

  if (!_cs_job_listing_slow (took, entries) || atomic_exchange (&job->scan.listings_slow, TRUE))
    return;
  g_debug ("a listing of %u entries took %" G_GINT64_FORMAT " ms: %d threads list ahead",
           entries, took / 1000, PREFETCH_THREADS_SLOW);
  /* The scanner's thread, or a listing thread: the scanner waits for every
   * listing (prefetch_end) before it ends the pool. */
  grow_threads (job);
}

struct _CsPrefetch {
  atomic_int  ref;
  CsJob      *job;
  int         parent_fd;   /* borrowed: the table ends before its folder's walk does */
  char       *name;
  GMutex      lock;
  GCond       cond;
  gboolean    done;
  gboolean    taken;
  int         fd;
  struct stat st;          /* the folder's entry in its parent's listing */
  gboolean    has_st;
  gboolean    connect_first;  /* listed early: its thread's first task */
  GPtrArray  *entries;
};

static void
prefetch_unref (CsPrefetch *p)
{
  if (atomic_fetch_sub (&p->ref, 1) != 1)
    return;
  g_mutex_clear (&p->lock);
  g_cond_clear (&p->cond);
  g_clear_pointer (&p->entries, g_ptr_array_unref);
  g_free (p->name);
  g_free (p);
}

static void
prefetch_wait (CsPrefetch *p)
{
  g_mutex_lock (&p->lock);
  while (!p->done)
    g_cond_wait (&p->cond, &p->lock);
  g_mutex_unlock (&p->lock);
}

/* The end of a folder's table: what the scanner did not take is closed. */
static void
prefetch_end (gpointer data)
{
  CsPrefetch *p = data;

  prefetch_wait (p);
  if (!p->taken && p->fd >= 0)
    _cs_io_close (&p->job->counters, p->fd);
  prefetch_unref (p);
}

static void
prefetch_run (gpointer data,
              gpointer user_data)
{
  CsPrefetch *p = data;
  int fd = -1;
  GPtrArray *entries = NULL;
  gboolean listed = FALSE;

  /* GLib's queue hands @p over out of TSan's sight (its futex locks). */
  CS_TSAN_ACQUIRE (p);
  /* A task of connect_threads': no folder, a connection. */
  if (p->name == NULL)
    {
      if (!_cs_job_stopping (p->job))
        _cs_io_connect (CS_IO_AT_LOCATION, p->job->setup.destination);
      prefetch_unref (p);
      return;
    }
  /* Opened and listed at once: on a share, the listing shows the folder is
   * there without the stat by name an open asks first. */
  if (!_cs_job_stopping (p->job))
    {
      gint64 start;

      /* Set up apart, so the listing is timed alone as any other. */
      if (p->connect_first)
        _cs_io_connect (CS_IO_AT_LOCATION, p->job->setup.destination);
      start = g_get_monotonic_time ();

      entries = g_ptr_array_new_with_free_func (g_free);
      fd = _cs_io_openat_listed (&p->job->counters, p->parent_fd, p->name,
                                 O_RDONLY | O_DIRECTORY | O_NOFOLLOW, entries, &listed);
      if (!listed)
        g_clear_pointer (&entries, g_ptr_array_unref);
      else if (g_private_get (&listed_before) != NULL)
        listing_timed (p->job, start, entries->len);
      g_private_set (&listed_before, GINT_TO_POINTER (TRUE));
    }
  g_mutex_lock (&p->lock);
  p->fd = fd;
  p->entries = entries;
  p->done = TRUE;
  g_cond_signal (&p->cond);
  g_mutex_unlock (&p->lock);
  prefetch_unref (p);
}


/* The job's own threads, each with its connection, ended with the walk
 * (_cs_dest_listing_finish): FALSE where none could start. */
static gboolean
start_threads (CsJob *job)
{
  if (job->scan.prefetch == NULL)
    job->scan.prefetch = g_thread_pool_new (prefetch_run, NULL,
                                            atomic_load (&job->scan.listings_slow)
                                            ? PREFETCH_THREADS_SLOW : PREFETCH_THREADS,
                                            TRUE, NULL);
  /* A listing said slow since they started (the staging sweep's, too). */
  else if (atomic_load (&job->scan.listings_slow))
    grow_threads (job);
  return job->scan.prefetch != NULL;
}

/* @n more of the listing threads set their connections up (a task each:
 * the threads are idle, each takes one). */
static void
connect_threads (CsJob *job,
                 guint  n)
{
  for (guint i = 0; i < n && job->scan.prefetch != NULL; i++)
    {
      CsPrefetch *p = g_new0 (CsPrefetch, 1);

      atomic_init (&p->ref, 1);   /* the thread's */
      p->job = job;
      p->parent_fd = -1;
      p->fd = -1;
      g_mutex_init (&p->lock);
      g_cond_init (&p->cond);
      CS_TSAN_RELEASE (p);
      if (!g_thread_pool_push (job->scan.prefetch, p, NULL))
        prefetch_unref (p);
    }
}

#define NAMES_BUFFER_SIZE (32 * 1024)

/* Scanner or listing thread, once a listing said the server is slow: the
 * threads that started with PREFETCH_THREADS become PREFETCH_THREADS_SLOW,
 * once; those set up ahead for the source's subfolders set up more. */
static void
grow_threads (CsJob *job)
{
  guint n = job->scan.connect_ahead;

  if (job->scan.prefetch == NULL || g_thread_pool_get_max_threads (job->scan.prefetch) >= PREFETCH_THREADS_SLOW
      || atomic_exchange (&job->scan.prefetch_grown, TRUE))
    return;
  g_thread_pool_set_max_threads (job->scan.prefetch, PREFETCH_THREADS_SLOW, NULL);
  connect_threads (job, MIN (n, PREFETCH_THREADS_SLOW) - MIN (n, PREFETCH_THREADS));
}

/* The first @max subfolders of @fd's folder, in the order the scanner
 * will enter them (its listing's: cs-scanner-walk.c reads the folder as
 * this does), none excluded. */
static GPtrArray *
first_subfolders (CsJob *job,
                  int    fd,
                  guint  max)
{
  g_autofree guint8 *buf = g_malloc (NAMES_BUFFER_SIZE);
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  ssize_t len;
  int own;

  own = _cs_io_openat (&job->counters, fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
  if (own < 0)
    return names;
  while (names->len < max && (len = _cs_io_getdents (&job->counters, own, buf, NAMES_BUFFER_SIZE)) > 0)
    for (ssize_t off = 0; off < len && names->len < max;)
      {
        struct linux_dirent64 *d = (struct linux_dirent64 *) (buf + off);

        off += d->d_reclen;
        if ((d->d_type == DT_DIR || d->d_type == DT_UNKNOWN) && strcmp (d->d_name, ".") != 0
            && strcmp (d->d_name, "..") != 0 && !_cs_job_is_excluded (job, d->d_name))
          g_ptr_array_add (names, g_strdup (d->d_name));
      }
  _cs_io_close (&job->counters, own);
  return names;
}

/* A new folder to open and list ahead in @parent_fd, its references the
 * thread's and one more; pushed by push_prefetch. */
static CsPrefetch *
prefetch_new (CsJob      *job,
              int         parent_fd,
              const char *name)
{
  CsPrefetch *p = g_new0 (CsPrefetch, 1);

  atomic_init (&p->ref, 2);
  p->job = job;
  p->parent_fd = parent_fd;
  p->name = g_strdup (name);
  p->fd = -1;
  g_mutex_init (&p->lock);
  g_cond_init (&p->cond);
  return p;
}

static void
push_prefetch (CsJob      *job,
               CsPrefetch *p)
{
  CS_TSAN_RELEASE (p);
  if (!start_threads (job) || !g_thread_pool_push (job->scan.prefetch, p, NULL))
    {
      /* No thread: done at once, opened by nobody; the scanner goes its own way. */
      p->done = TRUE;
      atomic_fetch_sub (&p->ref, 1);
    }
}

/*
 * A listing thread's first folder also set its connection up (on the lab
 * share behind 1 ms per filesystem call, 16 set-ups at once took 0.15 s),
 * after the scanner had listed the folder above, so each rerun onto a
 * share waited for both in turn; and the scanner waited for the first
 * folder it entered to be listed after its parent (20,000 files in 200
 * folders behind 1 ms: the top listing 0.48 s, the first folder's 0.3 s
 * more, before a file could be decided). While the scanner lists the top
 * folder, threads set up and list the subfolders it will enter first, by
 * the source's names: one for each, up to as many as list ahead. The walk
 * keeps those its listing shows as folders of those very names
 * (_cs_dest_listing_prefetch); the others are closed.
 */
void
_cs_dest_listing_start_early (CsJob *job,
                              CsDir *dir)
{
  g_autoptr(GPtrArray) names = NULL;

  if (job->scan.prefetch != NULL || job->setup.settings.dry_run || dir->dst_fd < 0 || dir->dst_new
      || dir->src_fd < 0 || !_cs_io_connects (dir->dst_fd, NULL)
      /* A source on a share: its names cost a listing there. */
      || _cs_io_connects (dir->src_fd, NULL))
    return;
  names = first_subfolders (job, dir->src_fd, PREFETCH_THREADS_SLOW);
  if (names->len == 0 || !start_threads (job))
    return;
  job->scan.connect_ahead = names->len;
  job->scan.early = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, prefetch_end);
  for (guint i = 0; i < MIN (names->len, (guint) g_thread_pool_get_max_threads (job->scan.prefetch)); i++)
    {
      CsPrefetch *p = prefetch_new (job, dir->dst_fd, g_ptr_array_index (names, i));

      /* Its listing thread sets up first, as a connect task's does. */
      p->connect_first = TRUE;
      g_hash_table_insert (job->scan.early, p->name, p);
      push_prefetch (job, p);
    }
}

void
_cs_dest_listing_end_early (CsJob *job)
{
  g_clear_pointer (&job->scan.early, g_hash_table_unref);
}

/* Starts opening and listing @listed's folder ahead, in @table (made on
 * the first): FALSE where it is no folder to list or is excluded. */
static gboolean
prefetch_one (CsJob       *job,
              CsDir       *dir,
              CsIoListed  *listed,
              GHashTable  *early,
              GHashTable **table)
{
  gpointer found = NULL;
  CsPrefetch *p;

  if (!S_ISDIR (listed->st.st_mode) || _cs_job_is_excluded (job, listed->name))
    return FALSE;
  if (*table == NULL)
    *table = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, prefetch_end);
  /* Listed early by this very name (_cs_dest_listing_start_early). */
  if (early != NULL && g_hash_table_steal_extended (early, listed->name, NULL, &found))
    p = found;
  else
    p = prefetch_new (job, dir->dst_fd, listed->name);

  /* What the scanner asks first of a folder it opens (_cs_dest_fs_for),
   * its filesystem: the listing's stat tells it as a stat of the opened
   * folder would, without another request (a stat by name, on a share).
   * The thread reads neither. */
  p->st = listed->st;
  p->has_st = TRUE;
  g_hash_table_insert (*table, p->name, p);
  if (found == NULL)
    push_prefetch (job, p);
  return TRUE;
}

/*
 * @first: the listed names of the subfolders the scanner will enter first,
 * in that order (the source's). The threads take folders in the order they
 * are pushed, and the scanner waits for each folder it enters: pushed in
 * the order of the destination's table, the first folder the scanner
 * entered was often listed among the last (5,000 files in 50 folders
 * behind 1 ms, a 1 % changed rerun: the scanner waited 0.9 s for its
 * first folder, and the first file to replace reached a worker only 1.3 s
 * into the run).
 */
GHashTable *
_cs_dest_listing_prefetch (CsJob      *job,
                           CsDir      *dir,
                           GHashTable *stats,
                           GPtrArray  *first)
{
  /* Those listed early that this listing does not show as folders of
   * their names are closed as the function returns. */
  g_autoptr(GHashTable) early = g_steal_pointer (&job->scan.early);
  GHashTable *table = NULL;
  GHashTableIter iter;
  gpointer value;
  guint n = 0;

  if (stats == NULL || dir->dst_fd < 0 || job->setup.settings.dry_run)
    return NULL;
  for (guint i = 0; first != NULL && i < first->len && n < PREFETCH_MAX; i++)
    {
      CsIoListed *listed = g_hash_table_lookup (stats, g_ptr_array_index (first, i));

      if (listed != NULL && (table == NULL || !g_hash_table_contains (table, listed->name))
          && prefetch_one (job, dir, listed, early, &table))
        n++;
    }
  /* Then the others, as before: a later source's folders merged into this
   * one, and folders only the destination has. */
  g_hash_table_iter_init (&iter, stats);
  while (g_hash_table_iter_next (&iter, NULL, &value) && n < PREFETCH_MAX)
    {
      CsIoListed *listed = value;

      if ((table == NULL || !g_hash_table_contains (table, listed->name))
          && prefetch_one (job, dir, listed, early, &table))
        n++;
    }
  return table;
}

int
_cs_dest_listing_take (CsPrefetch  *prefetch,
                       GPtrArray  **out_entries,
                       struct stat *out_st,
                       gboolean    *out_has_st)
{
  prefetch_wait (prefetch);
  *out_entries = NULL;
  *out_has_st = FALSE;
  if (prefetch->taken || prefetch->fd < 0)
    return -1;
  prefetch->taken = TRUE;
  *out_entries = g_steal_pointer (&prefetch->entries);
  *out_has_st = prefetch->has_st;
  if (prefetch->has_st)
    *out_st = prefetch->st;
  return prefetch->fd;
}

void
_cs_dest_listing_finish (CsJob *job)
{
  _cs_dest_listing_end_early (job);
  if (job->scan.prefetch != NULL)
    g_thread_pool_free (g_steal_pointer (&job->scan.prefetch), FALSE, TRUE);
}
