/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-count-ahead"

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "cs-count-ahead-private.h"
#include "cs-io-quiet-private.h"
#include "cs-job-private.h"

/*
 * The scanner stays only a queue's length (a few thousand files) ahead of the
 * copy, so memory does not grow with the tree, and the total it finds is known
 * only when it reaches the end: on a 100,000-file tree, near the end of the
 * copy. The count ahead walks the same sources at the same time, keeping
 * nothing per file, and only counts what the scanner will find: each entry not
 * excluded that is not a folder is a file, a regular file's size its bytes, as
 * the scanner counts them. Once it has seen everything, the progress has a
 * total to measure against (cs_job_get_progress); the scanner's own total takes
 * over when its walk ends, and is the one recorded.
 *
 * It is a cheap walk: folders by their listing's type, without a stat, and
 * one fstatat per file. It asks through the seam's quiet door
 * (cs-io-quiet-private.h), not the job's counted calls: its requests are not
 * the copy's, so they stay out of the copy's counters and out of the faults
 * tests inject there (test-job's /job/count-ahead/quiet). It gives up rather
 * than guess — a folder too deep, no descriptor left — and then the copy
 * shows what the scanner found so far, as without it. It waits while the copy
 * is paused or asks, and ends when the copy is cancelled or the scan is done.
 *
 * It walks from the end: each folder's entries last to first, a folder's
 * own contents before it, the scanner's order backwards. With one source
 * (nothing merges, nothing moves whole) the two meet: the scanner says
 * where it is (the index of each entry on its path, _cs_count_ahead_at),
 * the count stops at the first file the scanner has reached, and when the
 * scanner reaches the last file the count took, the total is what the
 * scanner found before it and what the count found from it on. Each file
 * is then stat-ed twice only in the stretch the count covered, not in the
 * whole tree: on a rerun the scanner is not held back by copying and the
 * two meet about halfway, earlier than the count alone would end; a fresh
 * copy's scanner waits for the copy, and the count has counted nearly
 * everything, ahead of it, when they meet. Both read a folder in its
 * listing's order; a folder changed between the two readings makes the
 * total off by what changed, as files added meanwhile always did.
 *
 * It begins only after a second of the scan (CS_COUNT_WAIT_US), or sooner
 * once the scanner waited for room in a queue of files to copy
 * (count_copying). A tree the scanner walks within that time has its total
 * from the scanner soon after the count's would have come, and a second
 * stat of each of its files would be the count's whole cost: on a warm
 * no-op rerun of 100,000 files (0.35 s on a quiet machine, 0.5-0.9 s on a
 * busy one), 55–95 k stats and a fifth of the run's CPU. A longer warm
 * rerun has its total at about (1 s + its time) / 2 rather than half its
 * time. A scanner held by a queue of files to copy (not only to check)
 * waits for the copy, which sets the pace; there the total is wanted at
 * once and the count's stats take nothing from the scan. Nor do they where
 * the run reads the disk (a cold rerun: the process's blocks read, its
 * rusage, grew by CS_COUNT_DISK_BLOCKS during the wait): each stat waits on
 * an inode table's block, and the count's, at the tree's other end, read
 * the disk beside the scanner's and leave the blocks in the cache for it.
 */

/* While the copy is held, how often the count looks whether it should end. */
#define COUNT_HOLD_NAP_US (50 * 1000)
/* While it waits to begin, how often it looks at the queue. */
#define COUNT_WAIT_NAP_US (10 * 1000)
/* A pool copies when one decided file in this many is to copy. */
#define COUNT_COPYING_SHARE 8
/* A folder's listing is read this much at a time, as readdir does. */
#define COUNT_LIST_SIZE (32 * 1024)

typedef struct {
  guint64 files;
  guint64 bytes;
  /* Where the walk is: the entry's index at each level (1..depth). */
  guint   at[CS_COUNT_MAX_DEPTH + 1];
  /* It met the scanner: the scanner counts the rest. */
  gboolean met;
} Count;

/* Whether to go on: FALSE once the copy stops or the scan is done; waits
 * while the copy is paused or asks, as the scanner does. */
static gboolean
count_going (CsJob *job)
{
  for (;;)
    {
      if (atomic_load_explicit (&job->ahead.count_stop, memory_order_relaxed) || _cs_job_stopping (job))
        return FALSE;
      if (G_LIKELY (!_cs_job_gate_closed (job)))
        return TRUE;
      g_usleep (COUNT_HOLD_NAP_US);
    }
}

/* Where @a (levels 1..@a_depth) stands against @b in the scanner's order:
 * a folder's entry before what is in it. */
static int
compare_at (const guint *a,
            guint        a_depth,
            const guint *b,
            guint        b_depth)
{
  for (guint i = 1; i <= MIN (a_depth, b_depth); i++)
    if (a[i] != b[i])
      return a[i] < b[i] ? -1 : 1;
  return a_depth < b_depth ? -1 : a_depth > b_depth ? 1 : 0;
}

/* meet_lock held: the meeting gives the total. */
static void
publish_met (CsJob *job)
{
  atomic_store_explicit (&job->ahead.files_counted, job->ahead.files_before + job->ahead.files_after,
                         memory_order_relaxed);
  atomic_store_explicit (&job->ahead.bytes_counted, job->ahead.bytes_before + job->ahead.bytes_after,
                         memory_order_relaxed);
  atomic_store_explicit (&job->ahead.counted, 1, memory_order_release);
}

/* Before stat-ing the file at @count->at[1..@depth]: FALSE when the scanner
 * has reached it, so the count ends there. */
static gboolean
meet_take (CsJob *job,
           Count *count,
           guint  depth)
{
  gboolean take;

  if (!atomic_load_explicit (&job->ahead.meeting, memory_order_acquire))
    return !atomic_load (&job->ahead.crossed);
  _cs_mutex_lock (&job->ahead.meet_lock);
  take = !atomic_load (&job->ahead.crossed)
         && (job->ahead.scan_depth == 0
             || compare_at (count->at, depth, job->ahead.scan_at, job->ahead.scan_depth) > 0);
  if (take)
    {
      memcpy (job->ahead.last_at, count->at, sizeof job->ahead.last_at);
      job->ahead.last_depth = depth;
      job->ahead.has_last = TRUE;
      job->ahead.pending = TRUE;
    }
  _cs_mutex_unlock (&job->ahead.meet_lock);
  return take;
}

/* After a file meet_take gave: what the count has from it on. */
static void
meet_settle (CsJob *job,
             Count *count)
{
  if (!atomic_load_explicit (&job->ahead.meeting, memory_order_relaxed) && !atomic_load (&job->ahead.crossed))
    return;
  _cs_mutex_lock (&job->ahead.meet_lock);
  job->ahead.files_after = count->files;
  job->ahead.bytes_after = count->bytes;
  job->ahead.pending = FALSE;
  /* The scanner met it during the stat: the total waited for this file. */
  if (atomic_load (&job->ahead.crossed))
    publish_met (job);
  _cs_mutex_unlock (&job->ahead.meet_lock);
}

void
_cs_count_ahead_at_slow (CsJob *job,
                         guint  depth,
                         guint  index)
{
  if (depth > CS_COUNT_MAX_DEPTH)
    return;
  _cs_mutex_lock (&job->ahead.meet_lock);
  if (atomic_load_explicit (&job->ahead.meeting, memory_order_relaxed))
    {
      job->ahead.scan_at[depth] = index;
      job->ahead.scan_depth = depth;
      /* The scanner steps through every entry, so it meets the count's
       * last file exactly: what it found before that file, with what the
       * count found from it on, is the whole tree, each file once. */
      if (job->ahead.has_last
          && compare_at (job->ahead.scan_at, depth, job->ahead.last_at, job->ahead.last_depth) >= 0)
        {
          atomic_store (&job->ahead.crossed, 1);
          atomic_store_explicit (&job->ahead.meeting, 0, memory_order_relaxed);
          job->ahead.files_before = atomic_load (&job->tally.files_found);
          job->ahead.bytes_before = atomic_load (&job->tally.bytes_found);
          if (!job->ahead.pending)
            publish_met (job);
        }
    }
  _cs_mutex_unlock (&job->ahead.meet_lock);
}

static gboolean count_dir (CsJob *job, int fd, guint depth, Count *count);

/* FALSE when the count cannot be whole (or met the scanner). */
static gboolean
count_entry (CsJob         *job,
             int            parent_fd,
             const char    *name,
             unsigned char  d_type,
             guint          depth,
             Count         *count)
{
  struct stat st;
  int fd;

  if (d_type != DT_DIR)
    {
      if (!meet_take (job, count, depth))
        {
          count->met = TRUE;
          return FALSE;
        }
      /* Not even looked at, the scanner counts it as a file that failed. */
      if (_cs_io_quiet_fstatat (parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        {
          count->files++;
          meet_settle (job, count);
          return TRUE;
        }
      if (!S_ISDIR (st.st_mode))
        {
          count->files++;
          if (S_ISREG (st.st_mode))
            count->bytes += (guint64) st.st_size;
          meet_settle (job, count);
          return TRUE;
        }
      meet_settle (job, count);
    }

  if (depth >= CS_COUNT_MAX_DEPTH)
    return FALSE;
  fd = _cs_io_quiet_openat (parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
  if (fd < 0)
    /* A folder the scanner cannot open either holds nothing it counts. */
    return errno != EMFILE && errno != ENFILE && errno != ENOMEM;
  return count_dir (job, fd, depth + 1, count);
}

/* Takes @fd. Its entries last to first: the listing is read whole first,
 * packed (a type byte and the name per entry, of this one folder only). */
static gboolean
count_dir (CsJob *job,
           int    fd,
           guint  depth,
           Count *count)
{
  g_autofree char *buf = g_malloc (COUNT_LIST_SIZE);
  g_autoptr(GByteArray) names = g_byte_array_new ();
  g_autoptr(GArray) starts = g_array_new (FALSE, FALSE, sizeof (guint));
  gboolean whole = TRUE;
  ssize_t n = 0;

  while ((n = _cs_io_quiet_getdents (fd, buf, COUNT_LIST_SIZE)) > 0)
    for (ssize_t pos = 0; pos < n;)
      {
        struct linux_dirent64 *entry = (struct linux_dirent64 *) (gpointer) (buf + pos);
        guint start = names->len;

        pos += entry->d_reclen;
        if (strcmp (entry->d_name, ".") == 0 || strcmp (entry->d_name, "..") == 0)
          continue;
        g_array_append_val (starts, start);
        g_byte_array_append (names, &entry->d_type, 1);
        g_byte_array_append (names, (const guint8 *) entry->d_name, (guint) strlen (entry->d_name) + 1);
      }
  /* A folder the scanner cannot read to its end gives it a total below ours. */
  if (n < 0)
    whole = FALSE;

  /* Indexed as the scanner indexes them: in the listing's order. */
  for (guint i = starts->len; whole && i > 0; i--)
    {
      const char *kept = (const char *) names->data + g_array_index (starts, guint, i - 1);

      count->at[depth] = i - 1;
      if (!count_going (job))
        whole = FALSE;
      else if (!_cs_job_is_excluded (job, kept + 1))
        whole = count_entry (job, fd, kept + 1, (unsigned char) kept[0], depth, count);
    }
  _cs_io_quiet_close (fd);
  return whole;
}

/* Whether the pool copies rather than checks: at least one file in
 * COUNT_COPYING_SHARE of those decided is to be copied. A rerun's pool can
 * lag a scanner that ends soon all the same, with a link or a changed file
 * here and there to copy. */
static gboolean
count_copying (CsJob *job)
{
  guint64 to_copy = atomic_load_explicit (&job->tally.files_to_copy, memory_order_relaxed);
  guint64 checked = atomic_load_explicit (&job->tally.files_checked, memory_order_relaxed);

  return to_copy > 0 && to_copy * COUNT_COPYING_SHARE >= checked;
}

/* Blocks the process read from a disk so far (512 bytes each). */
static guint64
count_blocks_read (void)
{
  struct rusage usage;

  return getrusage (RUSAGE_SELF, &usage) == 0 ? (guint64) usage.ru_inblock : 0;
}

/* Waits until the count should begin: FALSE when the scan ended (or the
 * copy stopped) first. */
static gboolean
count_wait (CsJob *job)
{
  gint64 until = g_get_monotonic_time () + job->ahead.wait_us;
  guint64 blocks = count_blocks_read ();
  gboolean begin = FALSE;

  _cs_mutex_lock (&job->ahead.meet_lock);
  for (;;)
    {
      gint64 now = g_get_monotonic_time ();

      if (atomic_load_explicit (&job->ahead.count_stop, memory_order_relaxed) || _cs_job_stopping (job))
        break;
      if (now >= until || (atomic_load_explicit (&job->ahead.scan_held, memory_order_relaxed) && count_copying (job))
          || count_blocks_read () - blocks >= job->ahead.disk_blocks)
        {
          begin = TRUE;
          break;
        }
      /* The stop wakes it; a full queue or a cancel is seen within a nap. */
      _cs_cond_wait_until (&job->ahead.wake, &job->ahead.meet_lock, MIN (until, now + COUNT_WAIT_NAP_US));
    }
  _cs_mutex_unlock (&job->ahead.meet_lock);
  return begin;
}

static gpointer
count_thread (gpointer data)
{
  CsJob *job = data;
  Count count = { 0 };
  gboolean whole = count_wait (job);

  for (guint i = 0; whole && i < job->setup.sources->len; i++)
    {
      g_autofree char *trimmed = g_strdup (g_ptr_array_index (job->setup.sources, i));
      const char *read_path = job->check.read_paths != NULL ? g_ptr_array_index (job->check.read_paths, i) : NULL;
      g_autofree char *name = NULL;
      struct stat st;

      if (!count_going (job))
        {
          whole = FALSE;
          break;
        }
      /* A source the check refused is not read. */
      if (job->check.refusals != NULL && g_ptr_array_index (job->check.refusals, i) != NULL)
        continue;
      /* "folder/" names the folder itself, as the scanner reads it, and
       * "link/" the folder the link points to. */
      while (strlen (trimmed) > 1 && g_str_has_suffix (trimmed, "/"))
        trimmed[strlen (trimmed) - 1] = '\0';
      name = _cs_io_location_name (trimmed);
      if (read_path != NULL)
        {
          g_free (trimmed);
          trimmed = g_strdup (read_path);
        }
      if (_cs_job_is_excluded (job, name))
        continue;
      /* A source this walk cannot see (gone, or a share reached through
       * another I/O backend than the system calls, which it leaves to the
       * copy's own connections) leaves it no total to claim. */
      if (!_cs_io_is_path (trimmed)
          || _cs_io_quiet_fstatat (CS_IO_AT_LOCATION, trimmed, &st, AT_SYMLINK_NOFOLLOW) != 0)
        whole = FALSE;
      else
        whole = count_entry (job, CS_IO_AT_LOCATION, trimmed, S_ISDIR (st.st_mode) ? DT_DIR : DT_UNKNOWN, 0,
                             &count);
    }

  /* Met, the scanner gives the total where it reaches the count's last
   * file; a count that gave up leaves none; one that counted everything
   * before they met gives its own. */
  if (count.met)
    return NULL;
  _cs_mutex_lock (&job->ahead.meet_lock);
  atomic_store_explicit (&job->ahead.meeting, 0, memory_order_relaxed);
  if (whole && !atomic_load (&job->ahead.crossed))
    {
      atomic_store_explicit (&job->ahead.files_counted, count.files, memory_order_relaxed);
      atomic_store_explicit (&job->ahead.bytes_counted, count.bytes, memory_order_relaxed);
      atomic_store_explicit (&job->ahead.counted, 1, memory_order_release);
    }
  _cs_mutex_unlock (&job->ahead.meet_lock);
  return NULL;
}

void
_cs_count_ahead_start (CsJob *job)
{
  g_assert (job->ahead.counter == NULL);

  /* A dry run only reads, as fast as a count would. */
  if (job->setup.settings.dry_run)
    return;
  /* One source walked as the scanner walks it: not several, whose folders
   * of one name merge, nor a move, which takes folders whole. Set before
   * the scanner starts, so it says where it is from its first entry. */
  atomic_store (&job->ahead.meeting, job->setup.sources->len == 1
                                     && job->setup.settings.operation != CS_OPERATION_MOVE);
  job->ahead.counter = g_thread_new ("cs-count-ahead", count_thread, job);
}

void
_cs_count_ahead_stop (CsJob *job)
{
  _cs_mutex_lock (&job->ahead.meet_lock);
  atomic_store (&job->ahead.count_stop, 1);
  g_cond_broadcast (&job->ahead.wake);
  _cs_mutex_unlock (&job->ahead.meet_lock);
  if (job->ahead.counter != NULL)
    g_thread_join (g_steal_pointer (&job->ahead.counter));
}
