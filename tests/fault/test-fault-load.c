/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include "test-fault.h"

/* Load: many threads against one, a queue bounded in files, and hard links
 * kept, refused and cancelled while later names wait. */

/* 128 workers give the same tree as one, on many small files and on a few big
 * ones. */
void
test_threads_agree (Fixture       *f,
                    gconstpointer  data)
{
  gboolean big = GPOINTER_TO_INT (data);
  g_autofree char *many = g_build_filename (f->root, "many", NULL);
  g_autofree char *d1 = g_build_filename (f->root, "d1", NULL);
  g_autofree char *d128 = g_build_filename (f->root, "d128", NULL);
  g_autoptr(CsOracle) oracle = cs_oracle_new ();
  g_auto(Outcome) o1 = { 0 };
  g_auto(Outcome) o128 = { 0 };
  CsOracleCounts c;

  g_assert_cmpint (g_mkdir (many, 0755), ==, 0);
  if (big)
    {
      for (guint i = 0; i < 3; i++)
        {
          g_autofree char *p = g_strdup_printf ("%s/big%u", many, i);
          write_pattern (p, (70u << 20) + i * 4099, i, 0644);
        }
    }
  else
    {
      for (guint i = 0; i < 2000; i++)
        {
          g_autofree char *p = g_strdup_printf ("%s/d%02u", many, i % 20);
          g_autofree char *q = g_strdup_printf ("%s/f%04u", p, i);

          g_mkdir (p, 0755);
          write_pattern (q, i * 13 % 5000, i, 0644);
        }
    }
  cs_oracle_add_pair (oracle, many, d1);
  cs_oracle_add_pair (oracle, many, d128);

  run_job (many, d1, (Options) { 1, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o1);
  run_job (many, d128, (Options) { 128, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o128);
  g_assert_true (o1.ok);
  g_assert_true (o128.ok);
  c = cs_oracle_check (oracle, CS_ORACLE_ALL_COMPLETE);
  g_assert_cmpuint (c.n_new_complete, ==, big ? 6 : 4000);
  cs_test_tree_assert_equal (d1, d128);
}

/* The queue's bound (CsJob's max_pending) is what keeps memory flat: the
 * scanner waits while this many files are queued or being copied. */
#define QUEUE_BOUND 4096

typedef struct {
  CsJob                *job;
  int                   measuring;
  int                   released;
  atomic_uint_fast64_t  stalled_at;
} Stall;

/* Holds every worker on its first file until the scanner stops finding files,
 * because the queue is full; one of them watches the count. */
static void
hold_workers (const char *name,
              gpointer    data)
{
  Stall *stall = data;
  guint64 last = G_MAXUINT64;
  guint stable = 0;

  if (!g_atomic_int_compare_and_exchange (&stall->measuring, 0, 1))
    {
      while (!g_atomic_int_get (&stall->released))
        g_usleep (10000);
      return;
    }
  while (!g_atomic_int_get (&stall->released))
    {
      CsProgress p;

      cs_job_get_progress (stall->job, &p);
      if (p.files_found != last)
        {
          last = p.files_found;
          stable = 0;
        }
      else if (++stable >= 25 || !p.scanning)
        {
          atomic_store (&stall->stalled_at, p.files_found);
          g_atomic_int_set (&stall->released, 1);
        }
      g_usleep (20000);
    }
}

/* Small files travel in batches of up to sixteen; the bound must count files,
 * not batches, or the queue holds sixteen times as many and memory grows with
 * the tree (25 MB at 100,000 files). */
void
test_queue_bounded_in_files (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *many = g_build_filename (f->root, "many", NULL);
  g_autofree char *copy = g_build_filename (f->root, "copy", NULL);
  g_autoptr(CsOracle) oracle = cs_oracle_new ();
  g_autoptr(CsJob) job = cs_job_new ();
  g_autoptr(GError) error = NULL;
  Stall stall = { job, 0, 0, 0 };
  guint64 found;

  g_assert_cmpint (g_mkdir (many, 0755), ==, 0);
  for (guint d = 0; d < 20; d++)
    {
      g_autofree char *dir = g_strdup_printf ("%s/d%02u", many, d);

      g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
      for (guint i = 0; i < 1000; i++)
        {
          g_autofree char *p = g_strdup_printf ("%s/f%04u", dir, i);
          int fd = open (p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

          g_assert_cmpint (fd, >=, 0);
          close (fd);
        }
    }
  cs_oracle_add_pair (oracle, many, copy);

  cs_fault_install (f->root);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_OPEN, NULL, 1, -1, CS_FAULT_HOOK, 0, hold_workers, &stall });
  cs_job_add_source (job, many);
  cs_job_set_destination (job, copy);
  cs_job_set_threads (job, 2, NULL);
  cs_job_set_interval (job, 0);
  cs_job_set_flush (job, FALSE);
  g_assert_true (cs_job_run_sync (job, NULL, &error));
  g_assert_no_error (error);

  found = atomic_load (&stall.stalled_at);
  g_test_message ("the scanner stopped at %" G_GUINT64_FORMAT " files with the workers held", found);
  /* The bound, the last batch pushed over it, and the batch being filled. */
  g_assert_cmpuint (found, >=, QUEUE_BOUND);
  g_assert_cmpuint (found, <=, QUEUE_BOUND + 2 * 16);
  cs_oracle_check (oracle, CS_ORACLE_ALL_COMPLETE);
}

/* ---- Hard links ------------------------------------------------------------------ */

/* @n files in @dir, each with a second name: next to it (the two may travel
 * in one batch, later name first) and in a folder of its own. */
static void
make_linked_pairs (const char *dir,
                   guint       n)
{
  g_autofree char *other = g_strconcat (dir, "-links", NULL);

  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (other, 0755), ==, 0);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *p = g_strdup_printf ("%s/f%04u", dir, i);
      g_autofree char *q = g_strdup_printf ("%s/g%04u", dir, i);
      g_autofree char *r = g_strdup_printf ("%s/h%04u", other, i);

      write_pattern (p, 100 + i % 700, i, 0644);
      g_assert_cmpint (link (p, q), ==, 0);
      if (i % 3 == 0)
        g_assert_cmpint (link (p, r), ==, 0);
    }
}

/* Many linked names, some met before their first name is copied: all kept
 * as links, nothing lost, nothing waits for ever. */
void
test_links_kept (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *pairs = g_build_filename (f->src, "pairs", NULL);
  g_auto(Outcome) o = { 0 };
  g_auto(Outcome) again = { 0 };

  make_linked_pairs (pairs, 600);
  watch (f);
  run (f, (Options) { 4, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (o.errors->len, ==, 0);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
  /* Copied once, linked the rest: the rerun finds everything in place. */
  run (f, DEFAULTS, &again);
  g_assert_true (again.ok);
  g_assert_cmpuint (again.totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, 0);
}

/* A destination without hard links (FAT, many shares): every name copied as
 * a file of its own, complete, and that said once. */
void
test_links_refused (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *pairs = g_build_filename (f->src, "pairs", NULL);
  g_auto(Outcome) o = { 0 };
  guint notes = 0;

  make_linked_pairs (pairs, 50);
  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_LINK, NULL, 1, -1, CS_FAULT_ERRNO, EPERM });
  run (f, (Options) { 4, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);

  g_assert_true (o.ok);
  for (guint i = 0; i < o.errors->len; i++)
    {
      const CsRunError *e = g_ptr_array_index (o.errors, i);

      g_assert_cmpstr (e->operation, ==, "link");
      g_assert_nonnull (strstr (e->message, "hard links"));
      notes++;
    }
  g_assert_cmpuint (notes, ==, 1);
  g_assert_cmpuint (o.totals.v[CS_CLASS_FAILED][CS_KIND_FILES], ==, 0);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE | CS_ORACLE_NO_LINKS);
}

typedef struct {
  CsJob *job;
  int    cancelled;
} Canceller;

static void
cancel_job (const char *name,
            gpointer    data)
{
  Canceller *c = data;

  if (g_atomic_int_compare_and_exchange (&c->cancelled, 0, 1))
    cs_job_cancel (c->job);
}

/* Cancelled while later names wait for their first: the job ends, clean. */
void
test_links_cancelled (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *pairs = g_build_filename (f->src, "pairs", NULL);
  g_autoptr(CsJob) job = cs_job_new ();
  g_autoptr(GError) error = NULL;
  Canceller canceller = { job, 0 };

  make_linked_pairs (pairs, 400);
  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_OPEN, NULL, 150, 1, CS_FAULT_HOOK, 0, cancel_job, &canceller });
  cs_job_add_source (job, f->src);
  cs_job_set_destination (job, f->out);
  cs_job_set_threads (job, 4, NULL);
  cs_job_set_interval (job, 0);
  cs_job_set_flush (job, FALSE);
  g_assert_false (cs_job_run_sync (job, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (cs_fault_hits (0), ==, 1);
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  rerun_converges (f);
}
