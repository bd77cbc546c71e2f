/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-io"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#ifdef HAVE_LIBURING
#include <liburing.h>
#endif

#include "cs-io-stat-ahead-private.h"

/*
 * One ring per thread that starts stats ahead (the scanner's), made at its
 * first use and closed when the thread ends. Folders nest: while the
 * scanner handles an entry of one folder it may read a subfolder and start
 * its stats too, so both share the ring; each completion names its own
 * slot, whichever folder's it is, and a folder's stats are waited for
 * before it is freed.
 */

/* Stats in flight at once, over all the thread's folders: enough to keep
 * the kernel's workers and the disk's queue busy, few enough that a
 * folder's first entries are in before the scanner wants them. */
#define RING_DEPTH 64

static atomic_int enabled = -1;  /* -1: not read yet */

static gboolean
is_enabled (void)
{
  int e = atomic_load_explicit (&enabled, memory_order_relaxed);

  if (e < 0)
    {
      e = g_getenv ("COPYSCOPE_NO_IO_URING") == NULL;
      atomic_store_explicit (&enabled, e, memory_order_relaxed);
    }
  return e != 0;
}

void
_cs_io_stat_ahead_enable (gboolean on)
{
  atomic_store (&enabled, on ? (int) (g_getenv ("COPYSCOPE_NO_IO_URING") == NULL) : 0);
}

#ifdef HAVE_LIBURING

/* What fstatat fills, from what statx said: the same fields, nanoseconds
 * included, as glibc's own fstatat does on statx. */
static void
stat_from_statx (struct stat        *st,
                 const struct statx *stx)
{
  memset (st, 0, sizeof *st);
  st->st_dev = makedev (stx->stx_dev_major, stx->stx_dev_minor);
  st->st_ino = stx->stx_ino;
  st->st_mode = stx->stx_mode;
  st->st_nlink = stx->stx_nlink;
  st->st_uid = stx->stx_uid;
  st->st_gid = stx->stx_gid;
  st->st_rdev = makedev (stx->stx_rdev_major, stx->stx_rdev_minor);
  st->st_size = (off_t) stx->stx_size;
  st->st_blksize = (blksize_t) stx->stx_blksize;
  st->st_blocks = (blkcnt_t) stx->stx_blocks;
  st->st_atim.tv_sec = stx->stx_atime.tv_sec;
  st->st_atim.tv_nsec = stx->stx_atime.tv_nsec;
  st->st_mtim.tv_sec = stx->stx_mtime.tv_sec;
  st->st_mtim.tv_nsec = stx->stx_mtime.tv_nsec;
  st->st_ctim.tv_sec = stx->stx_ctime.tv_sec;
  st->st_ctim.tv_nsec = stx->stx_ctime.tv_nsec;
}

typedef struct {
  struct io_uring ring;
  guint           in_flight;
  gboolean        ok;         /* set up, and no submission failed since */
} Ring;

typedef struct {
  struct statx   stx;
  CsIoStatAhead *owner;
  int            res;         /* 0 or -errno */
  gboolean       done;
} Slot;

struct _CsIoStatAhead {
  CsCounters         *c;
  Ring               *ring;
  int                 handle;     /* the seam's, for a stat one by one */
  int                 dirfd;      /* the system's */
  const char * const *names;
  guint               n;
  guint               submitted;  /* names[0 .. submitted) went to the kernel */
  guint               out;        /* of those, not in yet */
  Slot               *slots;
};

static void
ring_free (gpointer data)
{
  Ring *r = data;

  if (r->ok || r->in_flight > 0)
    io_uring_queue_exit (&r->ring);
  g_free (r);
}

static GPrivate thread_ring = G_PRIVATE_INIT (ring_free);
static atomic_int refused;  /* set once a ring could not be made: no retry per folder */

static Ring *
ring_get (void)
{
  Ring *r = g_private_get (&thread_ring);

  if (r == NULL)
    {
      if (atomic_load_explicit (&refused, memory_order_relaxed))
        return NULL;
      r = g_new0 (Ring, 1);
      /* Fails under a seccomp filter that refuses io_uring, with
       * kernel.io_uring_disabled, or on a kernel without it: stats one by
       * one then, said nowhere, since nothing else changes. */
      r->ok = io_uring_queue_init (RING_DEPTH, &r->ring, 0) == 0;
      if (!r->ok)
        {
          atomic_store (&refused, 1);
          g_free (r);
          return NULL;
        }
      g_private_set (&thread_ring, r);
    }
  return r->ok ? r : NULL;
}

gboolean
_cs_io_stat_ahead_available (void)
{
  return is_enabled () && ring_get () != NULL;
}

/* Sends as many of @a's stats as the ring has room for. */
static void
submit_more (CsIoStatAhead *a)
{
  guint first = a->submitted, next = a->submitted;
  int r;

  while (next < a->n && a->ring->in_flight + (next - first) < RING_DEPTH)
    {
      struct io_uring_sqe *sqe = io_uring_get_sqe (&a->ring->ring);

      if (sqe == NULL)
        break;
      io_uring_prep_statx (sqe, a->dirfd, a->names[next], AT_SYMLINK_NOFOLLOW,
                           STATX_BASIC_STATS, &a->slots[next].stx);
      io_uring_sqe_set_data (sqe, &a->slots[next]);
      next++;
    }
  if (next == first)
    return;
  do
    r = io_uring_submit (&a->ring->ring);
  while (r == -EINTR);
  if (r < 0)
    {
      /* Nothing went: the ring is given up (its prepared entries never
       * reach the kernel), and the rest are stated one by one. */
      a->ring->ok = FALSE;
      return;
    }
  /* The kernel takes all it was given or fails; a short count is a
   * failure partway, after which the rest stay unsent as above. */
  if ((guint) r < next - first)
    a->ring->ok = FALSE;
  a->submitted += (guint) r;
  a->out += (guint) r;
  a->ring->in_flight += (guint) r;
  atomic_fetch_add_explicit (&a->c->requests[CS_REQ_STAT], (guint) r, memory_order_relaxed);
}

/* Waits for one completion of the thread's ring, any folder's. */
static void
reap_one (Ring *r)
{
  struct io_uring_cqe *cqe;
  Slot *slot;
  int e;

  do
    e = io_uring_wait_cqe (&r->ring, &cqe);
  while (e == -EINTR);
  /* Only a broken ring fails a wait with stats in flight. */
  g_assert (e == 0);
  slot = io_uring_cqe_get_data (cqe);
  slot->res = cqe->res;
  slot->done = TRUE;
  slot->owner->out--;
  r->in_flight--;
  io_uring_cqe_seen (&r->ring, cqe);
}

CsIoStatAhead *
_cs_io_stat_ahead_start (CsCounters         *c,
                         int                 dirfd,
                         const char * const *names,
                         guint               n)
{
  CsIoStatAhead *a;
  Ring *ring;
  int fd;

  if (n < 2 || !is_enabled () || !_cs_io_is_system_fd (dirfd, &fd))
    return NULL;
  ring = ring_get ();
  if (ring == NULL)
    return NULL;
  a = g_new0 (CsIoStatAhead, 1);
  a->c = c;
  a->ring = ring;
  a->handle = dirfd;
  a->dirfd = fd;
  a->names = names;
  a->n = n;
  a->slots = g_new (Slot, n);
  for (guint i = 0; i < n; i++)
    {
      a->slots[i].owner = a;
      a->slots[i].done = FALSE;
    }
  submit_more (a);
  return a;
}

int
_cs_io_stat_ahead_take (CsIoStatAhead *a,
                        guint          i,
                        struct stat   *st)
{
  Slot *slot;

  g_return_val_if_fail (i < a->n, -1);
  slot = &a->slots[i];
  while (!slot->done)
    {
      if (i < a->submitted)
        reap_one (a->ring);
      else if (!a->ring->ok)
        return _cs_io_fstatat (a->c, a->handle, a->names[i], st, AT_SYMLINK_NOFOLLOW);
      else if (a->ring->in_flight < RING_DEPTH)
        submit_more (a);
      else
        reap_one (a->ring);
    }
  /* Keep the ring full while the scanner handles this one. */
  if (a->ring->ok && a->submitted < a->n && a->ring->in_flight < RING_DEPTH / 2)
    submit_more (a);
  if (slot->res < 0)
    {
      errno = -slot->res;
      return -1;
    }
  stat_from_statx (st, &slot->stx);
  return 0;
}

void
_cs_io_stat_ahead_free (CsIoStatAhead *a)
{
  if (a == NULL)
    return;
  while (a->out > 0)
    reap_one (a->ring);
  g_free (a->slots);
  g_free (a);
}

#else /* !HAVE_LIBURING */

gboolean
_cs_io_stat_ahead_available (void)
{
  /* Built without liburing: read nonetheless, so the switch means the same. */
  (void) is_enabled ();
  return FALSE;
}

CsIoStatAhead *
_cs_io_stat_ahead_start (CsCounters         *c G_GNUC_UNUSED,
                         int                 dirfd G_GNUC_UNUSED,
                         const char * const *names G_GNUC_UNUSED,
                         guint               n G_GNUC_UNUSED)
{
  return NULL;
}

int
_cs_io_stat_ahead_take (CsIoStatAhead *a G_GNUC_UNUSED,
                        guint          i G_GNUC_UNUSED,
                        struct stat   *st G_GNUC_UNUSED)
{
  g_return_val_if_reached (-1);
}

void
_cs_io_stat_ahead_free (CsIoStatAhead *a G_GNUC_UNUSED)
{
}

#endif
