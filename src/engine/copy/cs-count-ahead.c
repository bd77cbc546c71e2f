/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-count-ahead"

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
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
 */

/* A descriptor per level is held open: deeper trees are not counted. */
#define COUNT_MAX_DEPTH 64
/* While the copy is held, how often the count looks whether it should end. */
#define COUNT_HOLD_NAP_US (50 * 1000)
/* A folder's listing is read this much at a time, as readdir does. */
#define COUNT_LIST_SIZE (32 * 1024)

typedef struct {
  guint64 files;
  guint64 bytes;
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

static gboolean count_dir (CsJob *job, int fd, guint depth, Count *count);

/* FALSE when the count cannot be whole. */
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
      /* Not even looked at, the scanner counts it as a file that failed. */
      if (_cs_io_quiet_fstatat (parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        {
          count->files++;
          return TRUE;
        }
      if (!S_ISDIR (st.st_mode))
        {
          count->files++;
          if (S_ISREG (st.st_mode))
            count->bytes += (guint64) st.st_size;
          return TRUE;
        }
    }

  if (depth >= COUNT_MAX_DEPTH)
    return FALSE;
  fd = _cs_io_quiet_openat (parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
  if (fd < 0)
    /* A folder the scanner cannot open either holds nothing it counts. */
    return errno != EMFILE && errno != ENFILE && errno != ENOMEM;
  return count_dir (job, fd, depth + 1, count);
}

/* Takes @fd. */
static gboolean
count_dir (CsJob *job,
           int    fd,
           guint  depth,
           Count *count)
{
  g_autofree char *buf = g_malloc (COUNT_LIST_SIZE);
  gboolean whole = TRUE;
  ssize_t n = 0;

  while (whole && (n = _cs_io_quiet_getdents (fd, buf, COUNT_LIST_SIZE)) > 0)
    for (ssize_t pos = 0; whole && pos < n;)
      {
        struct linux_dirent64 *entry = (struct linux_dirent64 *) (gpointer) (buf + pos);

        pos += entry->d_reclen;
        if (strcmp (entry->d_name, ".") == 0 || strcmp (entry->d_name, "..") == 0)
          continue;
        if (!count_going (job))
          whole = FALSE;
        else if (!_cs_job_is_excluded (job, entry->d_name))
          whole = count_entry (job, fd, entry->d_name, entry->d_type, depth, count);
      }
  /* A folder the scanner cannot read to its end gives it a total below ours. */
  if (whole && n < 0)
    whole = FALSE;
  _cs_io_quiet_close (fd);
  return whole;
}

static gpointer
count_thread (gpointer data)
{
  CsJob *job = data;
  Count count = { 0 };

  for (guint i = 0; i < job->setup.sources->len; i++)
    {
      g_autofree char *trimmed = g_strdup (g_ptr_array_index (job->setup.sources, i));
      const char *read_path = job->check.read_paths != NULL ? g_ptr_array_index (job->check.read_paths, i) : NULL;
      g_autofree char *name = NULL;
      struct stat st;

      if (!count_going (job))
        return NULL;
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
        return NULL;
      if (!count_entry (job, CS_IO_AT_LOCATION, trimmed, S_ISDIR (st.st_mode) ? DT_DIR : DT_UNKNOWN, 0,
                        &count))
        return NULL;
    }

  atomic_store_explicit (&job->ahead.files_counted, count.files, memory_order_relaxed);
  atomic_store_explicit (&job->ahead.bytes_counted, count.bytes, memory_order_relaxed);
  atomic_store_explicit (&job->ahead.counted, 1, memory_order_release);
  return NULL;
}

void
_cs_count_ahead_start (CsJob *job)
{
  g_assert (job->ahead.counter == NULL);

  /* A dry run only reads, as fast as a count would. */
  if (job->setup.settings.dry_run)
    return;
  job->ahead.counter = g_thread_new ("cs-count-ahead", count_thread, job);
}

void
_cs_count_ahead_stop (CsJob *job)
{
  atomic_store (&job->ahead.count_stop, 1);
  if (job->ahead.counter != NULL)
    g_thread_join (g_steal_pointer (&job->ahead.counter));
}
