/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>

#include <gio/gio.h>

#include "cs-cancellable.h"
#include "cs-io-error.h"

/*
 * The engine's stand-ins for GCancellable and G_IO_ERROR, which let it run
 * without GIO: the same rules, the same error domain, the same codes. This
 * test links GIO to compare.
 */

static void
test_io_error_is_gio (void)
{
  g_assert_cmpuint (CS_IO_ERROR, ==, G_IO_ERROR);

  g_assert_cmpint (CS_IO_ERROR_FAILED, ==, G_IO_ERROR_FAILED);
  g_assert_cmpint (CS_IO_ERROR_NOT_FOUND, ==, G_IO_ERROR_NOT_FOUND);
  g_assert_cmpint (CS_IO_ERROR_EXISTS, ==, G_IO_ERROR_EXISTS);
  g_assert_cmpint (CS_IO_ERROR_INVALID_ARGUMENT, ==, G_IO_ERROR_INVALID_ARGUMENT);
  g_assert_cmpint (CS_IO_ERROR_PERMISSION_DENIED, ==, G_IO_ERROR_PERMISSION_DENIED);
  g_assert_cmpint (CS_IO_ERROR_CANCELLED, ==, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (CS_IO_ERROR_INVALID_DATA, ==, G_IO_ERROR_INVALID_DATA);
  g_assert_cmpint (CS_IO_ERROR_BROKEN_PIPE, ==, G_IO_ERROR_BROKEN_PIPE);
  g_assert_cmpint (CS_IO_ERROR_NO_SUCH_DEVICE, ==, G_IO_ERROR_NO_SUCH_DEVICE);

  /* every errno a system call can return, and some it cannot */
  for (int e = 0; e < 200; e++)
    {
      if ((int) cs_io_error_from_errno (e) != (int) g_io_error_from_errno (e))
        g_error ("errno %d (%s): GIO says %d, the engine %d", e, g_strerror (e),
                 g_io_error_from_errno (e), cs_io_error_from_errno (e));
    }
}

typedef struct {
  guint          calls;
  CsCancellable *seen;
} Log;

static void
on_cancelled (CsCancellable *cancellable,
              gpointer       user_data)
{
  Log *log = user_data;

  log->calls++;
  log->seen = cancellable;
}

static void
test_cancel_runs_callbacks_once (void)
{
  g_autoptr(CsCancellable) c = cs_cancellable_new ();
  g_autoptr(GError) error = NULL;
  Log a = { 0 }, b = { 0 }, gone = { 0 };
  gulong id_gone;

  g_assert_false (cs_cancellable_is_cancelled (c));
  g_assert_false (cs_cancellable_set_error_if_cancelled (c, &error));
  g_assert_no_error (error);

  g_assert_cmpuint (cs_cancellable_connect (c, on_cancelled, &a), !=, 0);
  id_gone = cs_cancellable_connect (c, on_cancelled, &gone);
  g_assert_cmpuint (cs_cancellable_connect (c, on_cancelled, &b), !=, 0);
  cs_cancellable_disconnect (c, id_gone);

  cs_cancellable_cancel (c);
  cs_cancellable_cancel (c);
  g_assert_true (cs_cancellable_is_cancelled (c));
  g_assert_cmpuint (a.calls, ==, 1);
  g_assert_cmpuint (b.calls, ==, 1);
  g_assert_true (a.seen == c);
  g_assert_cmpuint (gone.calls, ==, 0);

  g_assert_true (cs_cancellable_set_error_if_cancelled (c, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

static void
test_connect_after_cancel_runs_at_once (void)
{
  g_autoptr(CsCancellable) c = cs_cancellable_new ();
  Log log = { 0 };

  cs_cancellable_cancel (c);
  g_assert_cmpuint (cs_cancellable_connect (c, on_cancelled, &log), ==, 0);
  g_assert_cmpuint (log.calls, ==, 1);
  /* id 0 is "nothing to disconnect" */
  cs_cancellable_disconnect (c, 0);
}

static void
test_null_is_never_cancelled (void)
{
  g_autoptr(GError) error = NULL;

  g_assert_false (cs_cancellable_is_cancelled (NULL));
  g_assert_false (cs_cancellable_set_error_if_cancelled (NULL, &error));
  g_assert_no_error (error);
  cs_cancellable_cancel (NULL);
  cs_cancellable_disconnect (NULL, 1);
}

/* disconnect () on one thread while another cancels: when it returns, the
 * callback is not running (it finished, or it never started), so its data
 * can be freed. */
typedef struct {
  int started;
  int finished;
} Slow;

static void
on_cancelled_slowly (CsCancellable *cancellable,
                     gpointer       user_data)
{
  Slow *slow = user_data;

  g_atomic_int_set (&slow->started, 1);
  g_usleep (20 * 1000);
  g_atomic_int_set (&slow->finished, 1);
}

static gpointer
cancel_thread (gpointer user_data)
{
  cs_cancellable_cancel (user_data);
  return NULL;
}

static void
test_disconnect_waits_for_running_callback (void)
{
  guint waited = 0;

  for (guint round = 0; round < 5; round++)
    {
      g_autoptr(CsCancellable) c = cs_cancellable_new ();
      Slow slow = { 0, 0 };
      gulong id = cs_cancellable_connect (c, on_cancelled_slowly, &slow);
      GThread *thread = g_thread_new ("cancel", cancel_thread, c);

      /* well inside the callback's 20 ms, on all but a very busy machine */
      g_usleep (5 * 1000);
      cs_cancellable_disconnect (c, id);
      g_assert_cmpint (g_atomic_int_get (&slow.started), ==, g_atomic_int_get (&slow.finished));
      waited += g_atomic_int_get (&slow.finished);
      g_thread_join (thread);
    }
  /* the case the test is about happened at least once */
  g_assert_cmpuint (waited, >, 0);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/io-error/is-gio", test_io_error_is_gio);
  g_test_add_func ("/cancellable/runs-callbacks-once", test_cancel_runs_callbacks_once);
  g_test_add_func ("/cancellable/connect-after-cancel", test_connect_after_cancel_runs_at_once);
  g_test_add_func ("/cancellable/null", test_null_is_never_cancelled);
  g_test_add_func ("/cancellable/disconnect-waits", test_disconnect_waits_for_running_callback);

  return g_test_run ();
}
