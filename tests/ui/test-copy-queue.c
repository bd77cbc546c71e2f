/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-copy-queue"

#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "cs-copy-queue.h"
#include "cs-generate.h"
#include "cs-queued-job.h"
#include "cs-test-tree.h"

/*
 * CsCopyQueue without a window: the copies run one device at a time in the
 * queue's order, a held one waits until let go, a removed one never runs,
 * and the queue goes on by itself after each end.
 */

#define WAIT_SECONDS 120

typedef struct {
  GPtrArray *shown;       /* of CsJob, in the order shown */
  GPtrArray *finished;    /* of CsJob */
} Seen;

static void
job_shown_cb (CsCopyQueue *queue,
              CsJob       *job,
              gboolean     running,
              Seen        *seen)
{
  g_assert_false (running);
  g_ptr_array_add (seen->shown, g_object_ref (job));
  /* What a window does once the copy's page is on screen. */
  cs_copy_queue_run (queue);
}

static void
job_finished_cb (CsCopyQueue *queue,
                 CsJob       *job,
                 Seen        *seen)
{
  g_assert_true (cs_copy_queue_get_job (queue) == NULL);
  g_ptr_array_add (seen->finished, g_object_ref (job));
}

static CsJob *
make_job (const char *root,
          const char *name,
          const char *destination)
{
  g_autofree char *source = g_build_filename (root, name, NULL);
  g_autoptr(GError) error = NULL;
  CsJob *job = cs_job_new ();

  cs_generate_files_sync (source, 40, 4096, 7, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  cs_job_add_source (job, source);
  cs_job_set_destination (job, destination);
  cs_job_set_into (job, TRUE);
  return job;
}

static gboolean
queue_empty (CsCopyQueue *queue)
{
  return cs_copy_queue_get_job (queue) == NULL &&
         g_list_model_get_n_items (cs_copy_queue_get_model (queue)) == 0;
}

static void
wait_until_empty (CsCopyQueue *queue)
{
  gint64 end = g_get_monotonic_time () + WAIT_SECONDS * G_USEC_PER_SEC;

  while (!queue_empty (queue) && g_get_monotonic_time () < end)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (1000);
  g_assert_true (queue_empty (queue));
}

static void
test_order (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("io.github.copyscope.Copyscope");
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *destination = g_build_filename (root, "destination", NULL);
  g_autoptr(CsCopyQueue) queue = NULL;
  g_autoptr(CsJob) first = NULL;
  g_autoptr(CsJob) second = NULL;
  g_autoptr(CsJob) third = NULL;
  g_autoptr(CsJob) dropped = NULL;
  g_autoptr(GError) error = NULL;
  const char *sources[] = { NULL, NULL };
  Seen seen = { g_ptr_array_new_with_free_func (g_object_unref),
                g_ptr_array_new_with_free_func (g_object_unref) };

  g_settings_set_boolean (settings, "queue-side-by-side", FALSE);
  g_assert_cmpint (g_mkdir (destination, 0755), ==, 0);
  first = make_job (root, "first", destination);
  second = make_job (root, "second", destination);
  third = make_job (root, "third", destination);
  dropped = make_job (root, "dropped", destination);

  queue = cs_copy_queue_new (settings);
  g_signal_connect (queue, "job-shown", G_CALLBACK (job_shown_cb), &seen);
  g_signal_connect (queue, "job-finished", G_CALLBACK (job_finished_cb), &seen);

  g_assert_true (cs_copy_queue_start (queue, first, destination, &error));
  g_assert_no_error (error);
  g_assert_true (cs_copy_queue_get_job (queue) == first);

  /* Behind it, to the same device: they wait, in the order given. */
  g_assert_true (cs_copy_queue_add (queue, second, sources, destination, &error));
  g_assert_true (cs_copy_queue_add (queue, third, sources, destination, &error));
  g_assert_true (cs_copy_queue_add (queue, dropped, sources, destination, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (cs_copy_queue_get_model (queue)), ==, 3);

  /* Third before second, second held, the last one removed. */
  cs_copy_queue_move (queue, 1, 0);
  cs_copy_queue_toggle_held (queue, 1);
  cs_copy_queue_remove (queue, 2);
  g_assert_cmpuint (g_list_model_get_n_items (cs_copy_queue_get_model (queue)), ==, 2);

  /* First and third run; the held second waits, with no window to ask. */
  {
    gint64 end = g_get_monotonic_time () + WAIT_SECONDS * G_USEC_PER_SEC;

    while (seen.finished->len < 2 && g_get_monotonic_time () < end)
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (1000);
    g_assert_cmpuint (seen.finished->len, ==, 2);
  }
  g_assert_true (cs_copy_queue_get_job (queue) == NULL);
  g_assert_cmpuint (g_list_model_get_n_items (cs_copy_queue_get_model (queue)), ==, 1);

  /* Let go: its turn is now. */
  cs_copy_queue_toggle_held (queue, 0);
  wait_until_empty (queue);

  g_assert_cmpuint (seen.shown->len, ==, 3);
  g_assert_true (g_ptr_array_index (seen.shown, 0) == first);
  g_assert_true (g_ptr_array_index (seen.shown, 1) == third);
  g_assert_true (g_ptr_array_index (seen.shown, 2) == second);
  g_assert_cmpuint (seen.finished->len, ==, 3);
  g_assert_cmpint (cs_job_get_state (dropped), ==, CS_JOB_STATE_READY);

  g_ptr_array_unref (seen.shown);
  g_ptr_array_unref (seen.finished);
  g_assert_finalize_object (g_steal_pointer (&queue));
  cs_test_tree_remove (root);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/copy-queue/order", test_order);

  return g_test_run ();
}
