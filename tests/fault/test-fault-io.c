/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include "test-fault.h"

/* Errors of single calls: reads, writes, fsync, short transfers, EINTR, the
 * fast paths (copy_file_range, FICLONE), opening and creating. */

void
test_read_transient (Fixture       *f,
                     gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };
  CsOracleCounts c;

  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_READ, "b.bin", 2, 1, CS_FAULT_ERRNO, EIO });
  force_read_write ();
  run (f, DEFAULTS, &o);

  g_assert_cmpuint (cs_fault_hits (0), ==, 1);
  g_assert_true (o.ok);
  g_assert_cmpuint (o.totals.v[CS_CLASS_FAILED][CS_KIND_FILES], ==, 0);
  c = cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
  g_assert_cmpuint (c.n_new_complete, ==, o.totals.v[CS_CLASS_COPIED][CS_KIND_FILES]);
}

/* Sticky: that file fails after its retries, the rest is copied, and the
 * report says which file, which call and which error. */
void
test_read_sticky (Fixture       *f,
                  gconstpointer  data)
{
  gboolean replace = GPOINTER_TO_INT (data);
  g_auto(Outcome) o = { 0 };
  const CsRunError *e;
  CsOracleCounts c;

  if (replace)
    make_old_copy (f);
  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_READ, "b.bin", 1, -1, CS_FAULT_ERRNO, EIO });
  force_read_write ();
  run (f, (Options) { 2, FALSE, FALSE, CS_OVERWRITE_ALWAYS, 2 }, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (0), ==, 3);
  g_assert_cmpuint (o.totals.v[CS_CLASS_FAILED][CS_KIND_FILES], ==, 1);
  g_assert_cmpuint (o.errors->len, ==, 1);
  e = find_error (&o, "/b.bin");
  g_assert_nonnull (e);
  g_assert_cmpstr (e->operation, ==, "read");
  g_assert_cmpint (e->error_code, ==, EIO);
  g_assert_cmpuint (e->attempts, ==, 3);

  c = cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "b.bin"), ==, replace ? CS_ORACLE_OLD : CS_ORACLE_ABSENT);
  g_assert_cmpuint (c.n[CS_ORACLE_ABSENT] + c.n[CS_ORACLE_OLD], ==, 1);
  g_assert_cmpuint (c.n_new_complete, ==, o.totals.v[CS_CLASS_COPIED][CS_KIND_FILES]);
  rerun_converges (f);
}

/* A call that fails on the way out of the file: never published, and an old
 * file stays whole. @data: the op, ×2 + 1 when replacing. */
void
test_output_error (Fixture       *f,
                   gconstpointer  data)
{
  CsFaultOp op = GPOINTER_TO_INT (data) / 2;
  gboolean replace = GPOINTER_TO_INT (data) % 2;
  g_auto(Outcome) o = { 0 };
  const CsRunError *e;

  if (replace)
    make_old_copy (f);
  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { op, "b.bin", 1, -1, CS_FAULT_ERRNO, EIO });
  if (op == CS_FAULT_WRITE)
    force_read_write ();
  run (f, (Options) { 2, op == CS_FAULT_FSYNC, FALSE, CS_OVERWRITE_ALWAYS, 1 }, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (0), >=, 1);
  e = find_error (&o, "/b.bin");
  g_assert_nonnull (e);
  g_assert_cmpint (e->error_code, ==, EIO);
  g_assert_cmpuint (o.totals.v[CS_CLASS_FAILED][CS_KIND_FILES], ==, 1);
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "b.bin"), ==, replace ? CS_ORACLE_OLD : CS_ORACLE_ABSENT);
  rerun_converges (f);
}

/* Short counts and EINTR are normal answers: the result must be exact. */
void
test_short_and_eintr (Fixture       *f,
                      gconstpointer  data)
{
  CsFaultAction action = GPOINTER_TO_INT (data);
  g_auto(Outcome) o = { 0 };
  int times = action == CS_FAULT_EINTR ? 50 : -1;

  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_READ, NULL, 1, times, action });
  cs_fault_add (&(CsFaultRule) { CS_FAULT_WRITE, NULL, 1, times, action });
  if (action == CS_FAULT_EINTR)
    {
      cs_fault_add (&(CsFaultRule) { CS_FAULT_FSYNC, NULL, 1, 5, action });
      cs_fault_add (&(CsFaultRule) { CS_FAULT_COPY_RANGE, NULL, 1, 5, action });
    }
  else
    cs_fault_add (&(CsFaultRule) { CS_FAULT_COPY_RANGE, NULL, 1, -1, action });
  run (f, (Options) { 2, TRUE, TRUE, CS_OVERWRITE_NEWER, 0 }, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (0) + cs_fault_hits (1) + cs_fault_hits (2), >, 3);
  g_assert_cmpuint (o.errors->len, ==, 0);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
}

/* ---- Fast paths ------------------------------------------------------------- */

/* copy_file_range answering 0 early or "not supported": fall back to reads. */
void
test_copy_range_fallback (Fixture       *f,
                          gconstpointer  data)
{
  int code = GPOINTER_TO_INT (data);
  g_auto(Outcome) o = { 0 };

  watch (f);
  cs_fault_install (f->out);
  if (code == 0)
    cs_fault_add (&(CsFaultRule) { CS_FAULT_COPY_RANGE, "b.bin", 1, -1, CS_FAULT_ZERO });
  else
    cs_fault_add (&(CsFaultRule) { CS_FAULT_COPY_RANGE, "b.bin", 1, -1, CS_FAULT_ERRNO, code });
  run (f, DEFAULTS, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (0), >=, 1);
  g_assert_cmpuint (cs_fault_calls (CS_FAULT_READ, "b.bin"), >=, 1);
  g_assert_cmpuint (o.errors->len, ==, 0);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
}

/* EIO from a fast path is a data error: no second method, the file fails. */
void
test_fast_path_eio (Fixture       *f,
                    gconstpointer  data)
{
  CsFaultOp op = GPOINTER_TO_INT (data);
  g_auto(Outcome) o = { 0 };
  const CsRunError *e;

  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { op, "b.bin", 1, -1, CS_FAULT_ERRNO, EIO });
  if (op == CS_FAULT_CLONE)
    {
      /* Reflinks do not exist on most test filesystems: say yes to every other
       * file, so b.bin is sure to be tried. */
      g_autofree char *one = g_build_filename (f->src, "b.bin", NULL);
      g_autofree char *copy = g_build_filename (f->out, "b.bin", NULL);

      g_clear_pointer (&f->oracle, cs_oracle_free);
      f->oracle = cs_oracle_new ();
      cs_oracle_add_pair (f->oracle, one, copy);
      run_job (one, f->out, DEFAULTS, &o);
    }
  else
    run (f, DEFAULTS, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (0), ==, 3);
  g_assert_cmpuint (cs_fault_calls (CS_FAULT_READ, "b.bin"), ==, 0);
  if (op == CS_FAULT_CLONE)
    g_assert_cmpuint (cs_fault_calls (CS_FAULT_COPY_RANGE, "b.bin"), ==, 0);
  e = find_error (&o, "b.bin");
  g_assert_nonnull (e);
  g_assert_cmpint (e->error_code, ==, EIO);
  g_assert_cmpstr (e->operation, ==, op == CS_FAULT_CLONE ? "clone" : "copy");
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, op == CS_FAULT_CLONE ? "." : "b.bin"), ==, CS_ORACLE_ABSENT);
  if (op != CS_FAULT_CLONE)
    rerun_converges (f);
}

/* ---- Opening and creating ---------------------------------------------------- */

void
test_open_create_errors (Fixture       *f,
                         gconstpointer  data)
{
  CsFaultOp op = GPOINTER_TO_INT (data);
  g_auto(Outcome) o = { 0 };
  const CsRunError *e;

  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { op, "b.bin", 1, -1, CS_FAULT_ERRNO, op == CS_FAULT_OPEN ? EACCES : EIO });
  run (f, DEFAULTS, &o);

  g_assert_true (o.ok);
  e = find_error (&o, "b.bin");
  g_assert_nonnull (e);
  g_assert_cmpstr (e->operation, ==, op == CS_FAULT_OPEN ? "open" : "create");
  /* Permission errors are not retried; I/O errors are. */
  g_assert_cmpuint (e->attempts, ==, op == CS_FAULT_OPEN ? 1 : 3);
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "b.bin"), ==, CS_ORACLE_ABSENT);
  rerun_converges (f);
}
