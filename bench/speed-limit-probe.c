/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench/speed-limit compiles this against the build's engine: a copy of
 * SOURCE into DEST/ at RATE1 bytes/s, changed to RATE2 after SECONDS, as
 * the window's speed limit changes it live; the run record goes to RECORD,
 * whose samples and "max-rate" events show when the change took effect.
 *
 * speed-limit-probe SOURCE DEST RATE1 RATE2 SECONDS RECORD
 */
#include <stdlib.h>

#include "copyscope-engine.h"

static GMainLoop *loop;

static gboolean
change_cb (gpointer data)
{
  double *rate = g_object_get_data (data, "rate2");

  cs_job_set_max_rate (CS_JOB (data), *rate);
  return G_SOURCE_REMOVE;
}

static void
done_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  if (!cs_job_run_finish (CS_JOB (object), result, &error))
    g_printerr ("speed-limit-probe: %s\n", error->message);
  g_main_loop_quit (loop);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(CsJob) job = NULL;
  g_autoptr(GError) error = NULL;
  double rate2;

  if (argc != 7)
    {
      g_printerr ("usage: speed-limit-probe SOURCE DEST RATE1 RATE2 SECONDS RECORD\n");
      return 2;
    }

  job = cs_job_new ();
  cs_job_add_source (job, argv[1]);
  cs_job_set_destination (job, argv[2]);
  cs_job_set_into (job, TRUE);
  cs_job_set_interval (job, 100);
  cs_job_set_max_rate (job, g_ascii_strtod (argv[3], NULL));
  rate2 = g_ascii_strtod (argv[4], NULL);
  g_object_set_data (G_OBJECT (job), "rate2", &rate2);

  loop = g_main_loop_new (NULL, FALSE);
  g_timeout_add ((guint) (g_ascii_strtod (argv[5], NULL) * 1000), change_cb, job);
  cs_job_run_async (job, NULL, done_cb, NULL);
  g_main_loop_run (loop);

  if (!cs_run_save (cs_job_get_run (job), argv[6], &error))
    {
      g_printerr ("speed-limit-probe: %s\n", error->message);
      return 1;
    }
  return 0;
}
