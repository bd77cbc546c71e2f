/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include "test-fault.h"

/* Big files, copied in chunks by several workers or whole. */

/* Runs another test with big files copied in chunks by several workers, as on
 * a network share (a local disk copies them whole). */
void
test_chunked (Fixture       *f,
              gconstpointer  data)
{
  const WrappedTest *t = data;

  chunking = CS_CHUNKING_ALWAYS;
  ((void (*) (Fixture *, gconstpointer)) t->func) (f, t->data);
  chunking = CS_CHUNKING_AUTO;
}

/* ---- Big files, copied in chunks by several workers -------------------------- */

static void
make_big_sparse (const char *path)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  g_autofree char *block = g_malloc (1 << 20);
  struct timespec ts[2] = { { 1500000000, 1 }, { 1500000000, 1 } };

  g_assert_cmpint (fd, >=, 0);
  for (guint i = 0; i < 100; i += 9)
    {
      memset (block, 'A' + (int) i % 26, 1 << 20);
      g_assert_cmpint (pwrite (fd, block, 1 << 20, (off_t) i << 20), ==, 1 << 20);
    }
  g_assert_cmpint (ftruncate (fd, 100 << 20), ==, 0);
  g_assert_cmpint (futimens (fd, ts), ==, 0);
  close (fd);
}

/* A sparse 100 MiB "big" in the source, watched, and @rule armed. */
static void
big_file_with_fault (Fixture     *f,
                     CsFaultRule  rule)
{
  g_autofree char *big = g_build_filename (f->src, "big", NULL);

  make_big_sparse (big);
  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&rule);
}

void
test_big_file_read_error (Fixture       *f,
                          gconstpointer  data)
{
  int times = GPOINTER_TO_INT (data);
  g_auto(Outcome) o = { 0 };

  big_file_with_fault (f, (CsFaultRule) { CS_FAULT_READ, "big", 3, times, CS_FAULT_ERRNO, EIO });
  force_read_write ();
  run (f, (Options) { 4, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (0), >=, 1);
  cs_oracle_check (f->oracle, times > 0 ? CS_ORACLE_ALL_COMPLETE : CS_ORACLE_NONE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "big"), ==, times > 0 ? CS_ORACLE_COMPLETE : CS_ORACLE_ABSENT);
  if (times < 0)
    {
      g_assert_nonnull (find_error (&o, "/big"));
      rerun_converges (f);
    }
}

/* The destination fills up under a big file: the job stops with one clear
 * error that names the file, and the file is counted as failed. In chunks it
 * used to vanish from the record: no error, counted nowhere. */
void
test_big_file_full (Fixture       *f,
                    gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };
  const CsRunError *e;

  big_file_with_fault (f, (CsFaultRule) { CS_FAULT_COPY_RANGE, "big", 2, -1, CS_FAULT_ERRNO, ENOSPC });
  cs_fault_add (&(CsFaultRule) { CS_FAULT_WRITE, "big", 2, -1, CS_FAULT_ERRNO, ENOSPC });
  run (f, (Options) { 4, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);

  g_assert_false (o.ok);
  g_assert_error (o.error, CS_JOB_ERROR, CS_JOB_ERROR_DESTINATION);
  g_assert_nonnull (strstr (o.error->message, "full"));
  e = find_error (&o, "/big");
  g_assert_nonnull (e);
  g_assert_nonnull (strstr (e->message, "full"));
  g_assert_cmpuint (o.errors->len, <=, 2);
  g_assert_cmpuint (o.totals.v[CS_CLASS_FAILED][CS_KIND_FILES], ==, 1);
  cs_oracle_check (f->oracle, CS_ORACLE_ALLOW_TEMP);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "big"), ==, CS_ORACLE_ABSENT);
  rerun_converges (f);
}

/* On a local disk a big file is copied whole, its source opened once; in
 * chunks every chunk opens it again (here the second open fails once). */
void
test_big_file_opens (Fixture       *f,
                     gconstpointer  data)
{
  gboolean chunks = chunking == CS_CHUNKING_ALWAYS;
  g_auto(Outcome) o = { 0 };

  big_file_with_fault (f, (CsFaultRule) { CS_FAULT_OPEN, "big", 2, 1, CS_FAULT_ERRNO, EIO });
  run (f, (Options) { 4, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (0), ==, chunks ? 1 : 0);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "big"), ==, CS_ORACLE_COMPLETE);
}
