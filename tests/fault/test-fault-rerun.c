/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include <sys/prctl.h>

#include "test-fault.h"

/* A rerun onto a complete local copy: the files its destination folders
 * were listed with are decided by the pool, in batches (cs-decide-batch.c),
 * not by the scanner. Each decision is made in a worker from the destination
 * as it is then, by the rules of any other (placeholders, --overwrite), and
 * publishing never overwrites what appeared after the listing. */

static const char *const files[] = { "a.txt", "b.bin", "c.dat", "d.txt", "e", "link" };

typedef struct {
  atomic_uint in_pool;
  atomic_uint elsewhere;
} Threads;

/* Which thread asks the destination about a file: GLib names the pool's
 * "pool-…"; the scanner is "cs-controller". */
static void
note_thread (const char *name,
             gpointer    data)
{
  Threads *threads = data;
  char comm[17] = "";

  g_assert_cmpint (prctl (PR_GET_NAME, comm), ==, 0);
  if (g_str_has_prefix (comm, "pool"))
    atomic_fetch_add (&threads->in_pool, 1);
  else
    atomic_fetch_add (&threads->elsewhere, 1);
}

static void
watch_threads (Threads *threads)
{
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    cs_fault_add (&(CsFaultRule) { CS_FAULT_STAT_DEST, files[i], 1, -1, CS_FAULT_HOOK, 0, note_thread, threads });
}

static void
first_copy (Fixture *f)
{
  g_auto(Outcome) o = { 0 };

  watch (f);
  run (f, DEFAULTS, &o);
  g_assert_true (o.ok);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
}

/* Every file of the no-op rerun is decided in a worker: the scanner asks the
 * destination about none (before, it stat-ed each one itself, and the pool
 * stat-ed those it did not skip again). */
void
test_rerun_decided_in_pool (Fixture       *f,
                            gconstpointer  data)
{
  Threads threads = { 0 };
  g_auto(Outcome) o = { 0 };

  first_copy (f);
  watch (f);
  cs_fault_install (f->out);
  watch_threads (&threads);
  run (f, DEFAULTS, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (atomic_load (&threads.elsewhere), ==, 0);
  g_assert_cmpuint (atomic_load (&threads.in_pool), >=, G_N_ELEMENTS (files));
  g_assert_cmpuint (o.totals.v[CS_CLASS_SKIPPED][CS_KIND_FILES], ==, G_N_ELEMENTS (files));
  g_assert_cmpuint (o.totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, 0);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
}

/* Another program writes the destination's b.bin after the folder was
 * listed (as the scanner reads the source's), newer than the source. */
static void
edit_copy (const char *name,
           gpointer    data)
{
  Fixture *f = data;
  g_autofree char *path = g_build_filename (f->copy, "b.bin", NULL);
  struct timespec later[2] = { { 0, UTIME_OMIT }, { time (NULL) + 1000, 0 } };

  g_assert_true (g_file_set_contents (path, "edited after the listing\n", -1, NULL));
  g_assert_cmpint (utimensat (AT_FDCWD, path, later, AT_SYMLINK_NOFOLLOW), ==, 0);
  cs_oracle_update_before (f->oracle, 0, "b.bin");
}

/* @data: the --overwrite mode. The decision is the destination's as it is
 * when decided, not as it was listed: "newer" and "never" keep the edit,
 * "different" replaces it, as they would any file found so. */
void
test_rerun_changed_after_listing (Fixture       *f,
                                  gconstpointer  data)
{
  CsOverwrite mode = GPOINTER_TO_INT (data);
  Threads threads = { 0 };
  g_auto(Outcome) o = { 0 };

  first_copy (f);
  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_STAT, "b.bin", 1, 1, CS_FAULT_HOOK, 0, edit_copy, f });
  watch_threads (&threads);
  run (f, (Options) { 2, FALSE, FALSE, mode, 2 }, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (0), ==, 1);
  g_assert_cmpuint (atomic_load (&threads.elsewhere), ==, 0);
  if (mode == CS_OVERWRITE_DIFFERENT)
    {
      g_assert_cmpuint (o.totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, 1);
      cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
    }
  else
    {
      g_assert_cmpuint (o.totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, 0);
      cs_oracle_check (f->oracle, CS_ORACLE_NONE);
      g_assert_cmpint (cs_oracle_state (f->oracle, 0, "b.bin"), ==, CS_ORACLE_OLD);
    }
}

typedef struct {
  Fixture *f;
  Plant    plant;
} Vanish;

/* The listed b.bin is removed before the decision: its name is free then. */
static void
remove_copy (const char *name,
             gpointer    data)
{
  Vanish *vanish = data;

  g_assert_cmpint (g_unlink (vanish->plant.path), ==, 0);
}

/* A file the listing had, gone when decided and created by another program
 * while its copy is written: the copy is published beside nothing, never
 * over theirs, and says so. */
void
test_rerun_appeared_before_publish (Fixture       *f,
                                    gconstpointer  data)
{
  Vanish vanish = { f, { f, g_build_filename (f->copy, "b.bin", NULL) } };
  g_auto(Outcome) o = { 0 };
  g_autofree char *contents = NULL;
  const CsRunError *e;

  first_copy (f);
  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_STAT, "b.bin", 1, 1, CS_FAULT_HOOK, 0, remove_copy, &vanish });
  cs_fault_add (&(CsFaultRule) { CS_FAULT_LINK, "b.bin", 1, 1, CS_FAULT_HOOK, 0, plant_file, &vanish.plant });
  run (f, DEFAULTS, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (0), ==, 1);
  g_assert_cmpuint (cs_fault_hits (1), ==, 1);
  g_assert_true (g_file_get_contents (vanish.plant.path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "theirs, not ours\n");
  e = find_error (&o, "b.bin");
  g_assert_nonnull (e);
  g_assert_nonnull (strstr (e->message, "Another program"));
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "b.bin"), ==, CS_ORACLE_OLD);
  g_free (vanish.plant.path);
}

/* A claim a killed run left under a listed name is ours and holds no data:
 * replaced, even with "never overwrite", and decided in the pool. */
void
test_rerun_placeholder_replaced (Fixture       *f,
                                 gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->copy, "a.txt", NULL);
  Threads threads = { 0 };
  g_auto(Outcome) o = { 0 };

  first_copy (f);
  g_assert_true (g_file_set_contents (path, "copyscope placeholder 0123456789abcdef\n", -1, NULL));
  watch (f);
  cs_fault_install (f->out);
  watch_threads (&threads);
  run (f, (Options) { 2, FALSE, FALSE, CS_OVERWRITE_NEVER, 2 }, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (atomic_load (&threads.elsewhere), ==, 0);
  g_assert_cmpuint (o.totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, 1);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
}
