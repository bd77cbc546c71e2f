/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include "test-fault.h"

/* A source that grows, shrinks or is rewritten while it is copied. */

typedef struct {
  Fixture *f;
  int      how;
} Change;

static void
change_source (const char *name,
               gpointer    data)
{
  Change *change = data;
  g_autofree char *path = g_build_filename (change->f->src, "b.bin", NULL);
  int fd = open (path, O_WRONLY | O_CLOEXEC);
  struct stat before;

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (fstat (fd, &before), ==, 0);
  switch (change->how)
    {
    case GROW:
      g_assert_cmpint (pwrite (fd, "more", 4, 12 << 20), ==, 4);
      break;
    case SHRINK:
      g_assert_cmpint (ftruncate (fd, 1 << 20), ==, 0);
      break;
    case REWRITE_KEEP_TIME:
      {
        /* What a program that restores times does (tar, rsync, an editor's
         * backup): size, mtime and inode as they were; only ctime moves. */
        struct timespec times[2] = { before.st_atim, before.st_mtim };

        g_assert_cmpint (pwrite (fd, "XXXX", 4, 100), ==, 4);
        g_assert_cmpint (futimens (fd, times), ==, 0);
      }
      break;
    case REWRITE:
    default:
      g_assert_cmpint (pwrite (fd, "XXXX", 4, 100), ==, 4);
      break;
    }
  close (fd);
  cs_oracle_update_source (change->f->oracle, 0, "b.bin");
}

/* Growing, shrinking or rewritten while copied: retried, or reported — never a
 * silent mix under the final name. */
void
test_source_changes (Fixture       *f,
                     gconstpointer  data)
{
  Change change = { f, GPOINTER_TO_INT (data) };
  g_autofree char *big = g_build_filename (f->src, "b.bin", NULL);
  g_auto(Outcome) o = { 0 };
  CsOracleState state;

  /* Over one request's worth, so the change can land between two of them. */
  write_pattern (big, 12 * 1024 * 1024, 2, 0640);
  watch (f);
  cs_fault_install (f->out);
  if (change.how == GROW)
    cs_fault_add (&(CsFaultRule) { CS_FAULT_FSTAT, "b.bin", 1, 1, CS_FAULT_HOOK, 0, change_source, &change });
  else
    cs_fault_add (&(CsFaultRule) { CS_FAULT_COPY_RANGE, "b.bin", 2, 1, CS_FAULT_HOOK, 0, change_source, &change });
  run (f, DEFAULTS, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (0), ==, 1);
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  state = cs_oracle_state (f->oracle, 0, "b.bin");
  g_test_message ("b.bin after the change: %s", cs_oracle_state_name (state));
  if (state == CS_ORACLE_ABSENT)
    {
      const CsRunError *e = find_error (&o, "b.bin");

      g_assert_nonnull (e);
      g_assert_nonnull (strstr (e->message, "changed"));
    }
  else
    g_assert_cmpint (state, ==, CS_ORACLE_COMPLETE);
  rerun_converges (f);
}
