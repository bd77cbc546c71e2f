/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-demo"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>

#include "cs-demo.h"
#include "cs-generate.h"
#include "cs-task-private.h"

/* 12 KiB: the help-desk article's small files, as Windows counts a KB. */
#define SMALL_FILE_SIZE 12288

struct _CsDemo {
  gatomicrefcount ref;
  guint64   total_bytes;
  guint     threads;
  gboolean  t1_t2;
  gboolean  keep_sets;
  CsRun    *runs[CS_DEMO_N_RUNS];
  guint64   small_files;
};

G_DEFINE_BOXED_TYPE (CsDemo, cs_demo, cs_demo_ref, cs_demo_unref)

CsDemo *
cs_demo_new (guint64 total_bytes)
{
  CsDemo *self = g_new0 (CsDemo, 1);

  g_atomic_ref_count_init (&self->ref);
  self->total_bytes = total_bytes > 0 ? MAX (total_bytes, SMALL_FILE_SIZE) : 64 * 1000 * 1000;
  self->threads = 1;
  return self;
}

CsDemo *
cs_demo_ref (CsDemo *demo)
{
  g_return_val_if_fail (demo != NULL, NULL);
  g_atomic_ref_count_inc (&demo->ref);
  return demo;
}

void
cs_demo_unref (CsDemo *demo)
{
  g_return_if_fail (demo != NULL);

  if (!g_atomic_ref_count_dec (&demo->ref))
    return;
  for (guint i = 0; i < CS_DEMO_N_RUNS; i++)
    g_clear_pointer (&demo->runs[i], cs_run_unref);
  g_free (demo);
}

void
cs_demo_set_threads (CsDemo *demo,
                     guint   threads)
{
  g_return_if_fail (demo != NULL);
  g_return_if_fail (threads >= CS_JOB_MIN_THREADS && threads <= CS_JOB_MAX_THREADS);
  demo->threads = threads;
}

void
cs_demo_set_t1_t2 (CsDemo   *demo,
                   gboolean  enabled)
{
  g_return_if_fail (demo != NULL);
  demo->t1_t2 = !!enabled;
}

void
cs_demo_set_keep_sets (CsDemo   *demo,
                       gboolean  keep)
{
  g_return_if_fail (demo != NULL);
  demo->keep_sets = !!keep;
}

CsRun *
cs_demo_get_run (CsDemo    *demo,
                 CsDemoRun  which)
{
  g_return_val_if_fail (demo != NULL && which < CS_DEMO_N_RUNS, NULL);
  return demo->runs[which];
}

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      struct stat st;

      /* lstat: a link to a folder is removed, never followed */
      if (lstat (child, &st) == 0 && S_ISDIR (st.st_mode))
        remove_tree (child);
      else
        unlink (child);
    }
  rmdir (path);
}

/* A set kept from before is used as it is: the next demonstration starts at once. */
static gboolean
ensure_set (const char    *dir,
            guint64        n_files,
            guint64        size,
            GCancellable  *cancellable,
            GError       **error)
{
  /* Beside the set, not in it: it must not be copied with it. */
  g_autofree char *stamp = g_strconcat (dir, ".complete", NULL);

  if (g_file_test (stamp, G_FILE_TEST_EXISTS))
    return TRUE;
  if (g_file_test (dir, G_FILE_TEST_EXISTS))
    remove_tree (dir);
  if (!cs_generate_files_sync (dir, n_files, size, 4, NULL, NULL, cancellable, error))
    return FALSE;
  return g_file_set_contents (stamp, "", 0, error);
}

/* The set at @dir, its stamp, and the folders above it up to @work_dir that
 * it leaves empty. */
static void
remove_set (const char *dir,
            const char *work_dir)
{
  g_autofree char *stamp = g_strconcat (dir, ".complete", NULL);
  g_autofree char *parent = g_path_get_dirname (dir);

  remove_tree (dir);
  unlink (stamp);
  rmdir (parent);
  rmdir (work_dir);
}

static gboolean
copy_set (CsDemo        *demo,
          CsDemoRun      which,
          const char    *source,
          const char    *destination,
          guint          threads,
          CsDemoRunFunc  func,
          gpointer       user_data,
          GCancellable  *cancellable,
          GError       **error)
{
  static const char *names[] = { "big", "small", "small-t1", "small-t2" };
  static const char *labels[] = { N_("One big file"), N_("Small files"), "T1", "T2" };
  g_autofree char *name = g_strdup_printf ("copyscope-demo-%s-%d", names[which], (int) getpid ());
  g_autofree char *target = g_build_filename (destination, name, NULL);
  g_autoptr(CsJob) job = cs_job_new ();
  g_autoptr(GError) local_error = NULL;
  gboolean ok;

  cs_job_add_source (job, source);
  cs_job_set_destination (job, target);
  cs_job_set_threads (job, threads, NULL);
  cs_job_set_interval (job, 100);
  if (func != NULL)
    func (demo, which, job, user_data);

  ok = cs_job_run_sync (job, cancellable, &local_error);
  /* Said as the demonstration's, not the copy's. */
  if (!ok && g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_clear_error (&local_error);
      g_set_error_literal (&local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                           "The demonstration was cancelled");
    }
  if (!ok)
    g_propagate_error (error, g_steal_pointer (&local_error));
  cs_run_set_label (cs_job_get_run (job), _(labels[which]));
  g_clear_pointer (&demo->runs[which], cs_run_unref);
  demo->runs[which] = cs_run_ref (cs_job_get_run (job));
  remove_tree (target);

  return ok;
}

/* Both sets made (or kept from before), then copied one after the other. */
static gboolean
race (CsDemo         *demo,
      const char     *big_dir,
      const char     *small_dir,
      const char     *destination,
      CsDemoRunFunc   func,
      gpointer        user_data,
      GCancellable   *cancellable,
      GError        **error)
{
  /* The same bytes in both: one file, or 12 KiB pieces. */
  if (!ensure_set (big_dir, 1, demo->small_files * SMALL_FILE_SIZE, cancellable, error)
      || !ensure_set (small_dir, demo->small_files, SMALL_FILE_SIZE, cancellable, error))
    return FALSE;

  /* Cold-ish: let the sets reach the disk so neither copy gets the other's head start. */
  sync ();

  if (!copy_set (demo, CS_DEMO_BIG, big_dir, destination, demo->threads, func, user_data, cancellable, error)
      || !copy_set (demo, CS_DEMO_SMALL, small_dir, destination, demo->threads, func, user_data, cancellable, error))
    return FALSE;

  if (demo->t1_t2
      && (!copy_set (demo, CS_DEMO_SMALL_T1, small_dir, destination, 1, func, user_data, cancellable, error)
          || !copy_set (demo, CS_DEMO_SMALL_T2, small_dir, destination, 2, func, user_data, cancellable, error)))
    return FALSE;

  return TRUE;
}

gboolean
cs_demo_run_sync (CsDemo         *demo,
                  const char     *work_dir,
                  const char     *destination,
                  CsDemoRunFunc   func,
                  gpointer        user_data,
                  GCancellable   *cancellable,
                  GError        **error)
{
  g_autofree char *tag = NULL;
  g_autofree char *big_dir = NULL;
  g_autofree char *small_dir = NULL;
  gboolean ok;

  g_return_val_if_fail (demo != NULL, FALSE);
  g_return_val_if_fail (work_dir != NULL && destination != NULL, FALSE);

  demo->small_files = (demo->total_bytes + SMALL_FILE_SIZE / 2) / SMALL_FILE_SIZE;
  tag = g_strdup_printf ("%" G_GUINT64_FORMAT, demo->total_bytes);
  big_dir = g_build_filename (work_dir, "demo-big", tag, NULL);
  small_dir = g_build_filename (work_dir, "demo-small", tag, NULL);

  if (g_mkdir_with_parents (work_dir, 0755) != 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno), "%s: %s", work_dir, g_strerror (errno));
      return FALSE;
    }
  ok = race (demo, big_dir, small_dir, destination, func, user_data, cancellable, error);

  /* Left behind, the sets would fill the user's cache with twice the
   * demonstration's size, where nobody looks. */
  if (!demo->keep_sets)
    {
      remove_set (big_dir, work_dir);
      remove_set (small_dir, work_dir);
    }

  return ok;
}

typedef struct {
  CsDemo        *demo;
  char          *work_dir;
  char          *destination;
  CsDemoRunFunc  func;
  gpointer       func_data;
} DemoTask;

static void
demo_task_free (gpointer data)
{
  DemoTask *t = data;

  cs_demo_unref (t->demo);
  g_free (t->work_dir);
  g_free (t->destination);
  g_free (t);
}

typedef struct {
  DemoTask  *t;
  CsDemoRun  which;
  CsJob     *job;
} DemoCall;

/* the caller's thread, while the demonstration's waits */
static void
demo_task_call (gpointer data)
{
  DemoCall *c = data;

  c->t->func (c->t->demo, c->which, c->job, c->t->func_data);
}

/* the demonstration's thread: the caller hears of the copy before it starts */
static void
demo_task_func (CsDemo    *demo,
                CsDemoRun  which,
                CsJob     *job,
                gpointer   data)
{
  DemoCall c = { data, which, job };

  _cs_task_call_in_caller (demo_task_call, &c);
}

static gboolean
demo_task_run (gpointer       data,
               GCancellable  *cancellable,
               GError       **error)
{
  DemoTask *t = data;

  return cs_demo_run_sync (t->demo, t->work_dir, t->destination,
                           t->func != NULL ? demo_task_func : NULL, t, cancellable, error);
}

void
cs_demo_run_async (CsDemo              *demo,
                   const char          *work_dir,
                   const char          *destination,
                   CsDemoRunFunc        func,
                   gpointer             func_data,
                   GCancellable        *cancellable,
                   GAsyncReadyCallback  callback,
                   gpointer             user_data)
{
  DemoTask *t;

  g_return_if_fail (demo != NULL);
  g_return_if_fail (work_dir != NULL && destination != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  t = g_new0 (DemoTask, 1);
  *t = (DemoTask) { cs_demo_ref (demo), g_strdup (work_dir), g_strdup (destination), func, func_data };
  _cs_task_run_in_thread (cs_demo_run_async, t, demo_task_free, demo_task_run,
                          cancellable, callback, user_data);
}

gboolean
cs_demo_run_finish (CsDemo        *demo,
                    GAsyncResult  *result,
                    GError       **error)
{
  DemoTask *t;

  g_return_val_if_fail (demo != NULL, FALSE);
  t = _cs_task_get_data (result, cs_demo_run_async);
  g_return_val_if_fail (t != NULL && t->demo == demo, FALSE);

  return _cs_task_finish (result, cs_demo_run_async, error);
}

double
cs_demo_requests_per_file (CsRun *run)
{
  g_autofree CsSample *samples = NULL;
  CsTotals totals;
  double requests = 0, prev = 0;
  guint n = 0;

  g_return_val_if_fail (run != NULL, 0);

  samples = cs_run_dup_samples (run, &n);
  for (guint i = 0; i < n; i++)
    {
      requests += samples[i].values[CS_COUNTER_REQUEST_RATE] * (samples[i].t - prev);
      prev = samples[i].t;
    }
  cs_run_get_totals (run, &totals);
  if (totals.v[CS_CLASS_COPIED][CS_KIND_FILES] == 0)
    return 0;
  return requests / (double) totals.v[CS_CLASS_COPIED][CS_KIND_FILES];
}

static char *
format_count (guint64 n)
{
  g_autofree char *digits = g_strdup_printf ("%" G_GUINT64_FORMAT, n);
  GString *out = g_string_new (NULL);
  gsize len = strlen (digits);

  for (gsize i = 0; i < len; i++)
    {
      if (i > 0 && (len - i) % 3 == 0)
        g_string_append_c (out, ',');
      g_string_append_c (out, digits[i]);
    }
  return g_string_free (out, FALSE);
}

/* The phases that took the most of @seconds' working time, like "Opening
 * and creating 31 %, Setting metadata 22 %": at most three, each at least
 * PHASE_SHOWN of it (the first always); NULL without working time. */
#define PHASE_SHOWN 0.10

static char *
dup_top_phases (const double seconds[CS_PHASE_N])
{
  gboolean shown[CS_PHASE_N] = { FALSE };
  double worked = 0;
  GString *out;

  /* Waiting for work, for an answer, or paused is time a worker did not
   * spend on the files: the share is of the rest. */
  for (guint p = 0; p < CS_PHASE_N; p++)
    if (p == CS_PHASE_WAITING || p == CS_PHASE_QUESTION || p == CS_PHASE_PAUSED)
      shown[p] = TRUE;
    else if (seconds[p] > 0)
      worked += seconds[p];
  if (!(worked > 0))
    return NULL;

  out = g_string_new (NULL);
  for (guint n = 0; n < 3; n++)
    {
      guint top = CS_PHASE_N;

      for (guint p = 0; p < CS_PHASE_N; p++)
        if (!shown[p] && seconds[p] > 0 && (top == CS_PHASE_N || seconds[p] > seconds[top]))
          top = p;
      if (top == CS_PHASE_N || (n > 0 && seconds[top] / worked < PHASE_SHOWN))
        break;
      shown[top] = TRUE;
      if (n > 0)
        /* Translators: between two phases in a list, like "Opening and creating 31 %, Setting metadata 22 %" */
        g_string_append (out, _(", "));
      /* Translators: a phase and its share of the workers' busy time, like "Writing 97 %" */
      g_string_append_printf (out, _("%s %.0f %%"), _(cs_phase_get_label (top)), 100.0 * seconds[top] / worked);
    }
  return g_string_free (out, FALSE);
}

char *
cs_demo_explain_phases (const double big[CS_PHASE_N],
                        const double small[CS_PHASE_N],
                        guint64      small_files)
{
  g_autofree char *top_big = NULL;
  g_autofree char *top_small = NULL;
  g_autofree char *count = NULL;
  g_autofree char *files = NULL;

  g_return_val_if_fail (big != NULL && small != NULL, NULL);

  top_big = dup_top_phases (big);
  top_small = dup_top_phases (small);
  if (top_big == NULL || top_small == NULL)
    return NULL;

  count = format_count (small_files);
  /* Translators: "5,461 small files", in "The workers' busy time — one big file: …; 5,461 small files: …" */
  files = g_strdup_printf (ngettext ("%s small file", "%s small files", (gulong) MIN (small_files, G_MAXULONG)),
                           count);
  /* Translators: where the workers' time went in the demonstration's two copies, like
   * "The workers' busy time — one big file: Writing 97 %; 5,461 small files: Opening and
   * creating 31 %, Setting metadata 22 %, Publishing 18 %." */
  return g_strdup_printf (_("The workers' busy time — one big file: %s; %s: %s."), top_big, files, top_small);
}

char *
cs_demo_explain (CsDemo *demo)
{
  CsRun *big, *small;
  double t_big, t_small, per_file_ms, requests, ratio;
  g_autofree char *files = NULL;
  g_autofree char *sb = NULL;
  g_autofree char *ss = NULL;
  GString *out;

  g_return_val_if_fail (demo != NULL, NULL);

  big = demo->runs[CS_DEMO_BIG];
  small = demo->runs[CS_DEMO_SMALL];
  if (big == NULL || small == NULL)
    return g_strdup (_("The demonstration has not run yet."));

  t_big = MAX (cs_run_get_duration (big), 1e-3);
  t_small = MAX (cs_run_get_duration (small), 1e-3);
  ratio = t_small / t_big;
  per_file_ms = 1000.0 * t_small / (double) MAX (demo->small_files, 1) * demo->threads;
  requests = cs_demo_requests_per_file (small);
  files = format_count (demo->small_files);
  sb = cs_format_duration (t_big, CS_DURATION_MEASURED, TRUE);
  ss = cs_format_duration (t_small, CS_DURATION_MEASURED, TRUE);

  out = g_string_new (NULL);
  g_string_append_printf (out, _("Same %.0f MB: one file took %s, %s small files took %s — "),
                          (double) demo->small_files * SMALL_FILE_SIZE / 1e6, sb, files, ss);
  if (ratio >= 1.5)
    g_string_append_printf (out, _("%.0f× slower. "), ratio);
  else
    g_string_append (out, _("about as fast here. "));
  g_string_append_printf (out, _("Each small file costs about %.2f ms"), per_file_ms);
  if (requests > 0)
    g_string_append_printf (out, _(": open, create, write, set times, close, rename — about %.0f requests instead of 1"), requests);
  g_string_append (out, ".");
  {
    double big_phases[CS_PHASE_N], small_phases[CS_PHASE_N];
    g_autofree char *phases = NULL;

    /* Why, in the workers' own time: what one file spends writing, many
     * small ones spend opening, setting times and publishing. */
    if (cs_run_get_phase_totals (big, big_phases) && cs_run_get_phase_totals (small, small_phases)
        && (phases = cs_demo_explain_phases (big_phases, small_phases, demo->small_files)) != NULL)
      g_string_append_printf (out, " %s", phases);
  }
  {
    CsStat wait;

    /* On a share each request is a round trip: what threads buy is how many
     * of them are on the way at once. A local disk answers in microseconds. */
    if (cs_run_get_stat (small, CS_COUNTER_AVG_WRITE_REQUEST_TIME, &wait) && wait.avg >= 0.5)
      g_string_append_printf (out, _(" Each request waited about %.1f ms for an answer; %u threads keep %u of them on the way at once."),
                              wait.avg, demo->threads, demo->threads);
  }

  if (demo->runs[CS_DEMO_SMALL_T1] != NULL && demo->runs[CS_DEMO_SMALL_T2] != NULL)
    {
      double t1 = MAX (cs_run_get_duration (demo->runs[CS_DEMO_SMALL_T1]), 1e-3);
      double t2 = MAX (cs_run_get_duration (demo->runs[CS_DEMO_SMALL_T2]), 1e-3);
      g_autofree char *s1 = cs_format_duration (t1, CS_DURATION_MEASURED, TRUE);
      g_autofree char *s2 = cs_format_duration (t2, CS_DURATION_MEASURED, TRUE);

      g_string_append_printf (out, _(" With 2 threads the small files took %s instead of %s with 1: "), s2, s1);
      if (t1 / t2 >= 1.1)
        g_string_append_printf (out, _("%.1f× faster, because two requests are in flight at once."), t1 / t2);
      else
        g_string_append (out, _("no faster here, because this disk answers each request at once."));
    }

  return g_string_free (out, FALSE);
}

const char *
cs_demo_explain_limit (double bytes_per_file)
{
  if (!(bytes_per_file > 0))
    return "";
  if (bytes_per_file < 1e6)
    return _("Small files: limited by requests — more threads help");
  return _("Large files: limited by bandwidth — more threads won't help");
}
