/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * Happens-before for ThreadSanitizer across GLib's locks and queues.
 *
 * A distribution GLib is not built with -fsanitize=thread, and on Linux its
 * GMutex, GCond, GAsyncQueue and GThreadPool are atomics and raw futex calls
 * inside libglib, where TSan sees nothing. Every access those locks guard
 * would be reported as a race, so each lock and hand-off the engine relies on
 * says so here: release before giving something up (unlock, wait, push to the
 * pool, post to the main context), acquire after taking it (lock, wake-up,
 * start of the work). Outside a TSan build these are the plain GLib calls.
 *
 * Only synchronisation GLib really provides is annotated; an access with no
 * lock or hand-off behind it stays visible to TSan.
 */

#include <glib.h>

#if defined(__SANITIZE_THREAD__)
# define CS_TSAN 1
#elif defined(__has_feature)
# if __has_feature(thread_sanitizer)
#  define CS_TSAN 1
# endif
#endif

#ifdef CS_TSAN
# include <sanitizer/tsan_interface.h>
# define CS_TSAN_RELEASE(addr) __tsan_release ((void *) (addr))
# define CS_TSAN_ACQUIRE(addr) __tsan_acquire ((void *) (addr))
#else
# define CS_TSAN_RELEASE(addr) ((void) (addr))
# define CS_TSAN_ACQUIRE(addr) ((void) (addr))
#endif

G_BEGIN_DECLS

static inline void
_cs_mutex_lock (GMutex *mutex)
{
  g_mutex_lock (mutex);
  CS_TSAN_ACQUIRE (mutex);
}

static inline void
_cs_mutex_unlock (GMutex *mutex)
{
  CS_TSAN_RELEASE (mutex);
  g_mutex_unlock (mutex);
}

static inline void
_cs_cond_wait (GCond  *cond,
               GMutex *mutex)
{
  CS_TSAN_RELEASE (mutex);
  g_cond_wait (cond, mutex);
  CS_TSAN_ACQUIRE (mutex);
}

static inline gboolean
_cs_cond_wait_until (GCond  *cond,
                     GMutex *mutex,
                     gint64  end_time)
{
  gboolean signalled;

  CS_TSAN_RELEASE (mutex);
  signalled = g_cond_wait_until (cond, mutex, end_time);
  CS_TSAN_ACQUIRE (mutex);
  return signalled;
}

/* g_autoptr(CsMutexLocker) locker = _cs_mutex_locker_new (&lock); like GMutexLocker. */
typedef void CsMutexLocker;

static inline CsMutexLocker *
_cs_mutex_locker_new (GMutex *mutex)
{
  _cs_mutex_lock (mutex);
  return (CsMutexLocker *) mutex;
}

static inline void
_cs_mutex_locker_free (CsMutexLocker *locker)
{
  _cs_mutex_unlock ((GMutex *) locker);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CsMutexLocker, _cs_mutex_locker_free)

G_END_DECLS
