/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include "test-fault.h"

/* Temporaries in staging folders (network shares): the wrapper that runs
 * other tests so, and the faults only staging has. */

/* The staging folders sit in out/, which the oracle does not watch: nothing
 * of ours may be left there either. */
static void
assert_nothing_staged (Fixture *f)
{
  g_autoptr(GDir) dir = g_dir_open (f->out, 0, NULL);
  const char *name;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_prefix (name, ".copyscope-"))
      g_error ("left in the destination: %s", name);
}

/* Runs another test with every small file written in a staging folder, as on
 * a network share. */
void
test_staged (Fixture       *f,
             gconstpointer  data)
{
  const WrappedTest *t = data;

  staging = CS_STAGING_ALWAYS;
  ((void (*) (Fixture *, gconstpointer)) t->func) (f, t->data);
  staging = CS_STAGING_AUTO;
  assert_nothing_staged (f);
}

/* From a staging folder the hard link publishes first; another program's file
 * created under the final name meanwhile stays theirs. */
void
test_staged_created_meanwhile (Fixture       *f,
                               gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };
  g_autofree char *contents = NULL;
  Plant plant = { f, g_build_filename (f->copy, "b.bin", NULL) };

  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_LINK, "b.bin", 1, 1, CS_FAULT_HOOK, 0, plant_file, &plant });
  run (f, DEFAULTS, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (0), ==, 1);
  g_assert_cmpuint (cs_fault_calls (CS_FAULT_RENAME, "b.bin"), ==, 0);
  g_assert_true (g_file_get_contents (plant.path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "theirs, not ours\n");
  g_assert_nonnull (find_error (&o, "b.bin"));
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "b.bin"), ==, CS_ORACLE_OLD);
  g_free (plant.path);
}

/* A share that refuses hard links (EPERM, as FAT-like shares do): published by
 * renameat2 (RENAME_NOREPLACE) from the staging folder instead. */
void
test_staged_link_refused (Fixture       *f,
                          gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };

  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_LINK, NULL, 1, -1, CS_FAULT_ERRNO, EPERM });
  run (f, DEFAULTS, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (0), >=, 1);
  g_assert_cmpuint (cs_fault_calls (CS_FAULT_RENAME_NOREPLACE, NULL), >=, 4);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
}

/* A folder on another filesystem than the staging folders (a share mounted
 * inside the destination) answers EXDEV: its files are written beside them,
 * the one that found out again, and nothing is reported. */
void
test_staged_exdev (Fixture       *f,
                   gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };
  guint files = 5;     /* a.txt, b.bin, c.dat, sub/d.txt, sub/e */

  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_LINK, NULL, 1, -1, CS_FAULT_ERRNO, EXDEV });
  run (f, DEFAULTS, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (o.errors->len, ==, 0);
  g_assert_cmpuint (cs_fault_hits (0), >=, 1);
  g_assert_cmpuint (cs_fault_hits (0), <=, files);
  /* Beside: one rename per file (the symlink's too), none from a staging folder. */
  g_assert_cmpuint (cs_fault_calls (CS_FAULT_RENAME, NULL), ==, files + 1);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
}
