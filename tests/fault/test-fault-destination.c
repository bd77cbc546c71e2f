/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include "test-fault.h"

/* A destination that fills up or goes away: ENOSPC, a vanished share, a
 * folder removed during the copy, and real full filesystems (as root). */

/* ENOSPC while replacing: the job stops with one clear message; the old file
 * is byte for byte what it was. */
void
test_enospc_replace (Fixture       *f,
                     gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };

  make_old_copy (f);
  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_COPY_RANGE, "b.bin", 1, -1, CS_FAULT_ERRNO, ENOSPC });
  cs_fault_add (&(CsFaultRule) { CS_FAULT_WRITE, "b.bin", 1, -1, CS_FAULT_ERRNO, ENOSPC });
  run (f, (Options) { 1, FALSE, FALSE, CS_OVERWRITE_ALWAYS, 2 }, &o);

  g_assert_false (o.ok);
  g_assert_error (o.error, CS_JOB_ERROR, CS_JOB_ERROR_DESTINATION);
  g_assert_nonnull (strstr (o.error->message, "full"));
  g_assert_cmpuint (cs_fault_hits (0) + cs_fault_hits (1), ==, 1);
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "b.bin"), ==, CS_ORACLE_OLD);
  rerun_converges (f);
}

/* Every call into the destination fails with ENOTCONN after a while, as on a
 * share whose server went away: one clear fatal error, fast. */
void
test_destination_vanishes (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *many = g_build_filename (f->src, "many", NULL);
  g_auto(Outcome) o = { 0 };
  gint64 start;

  g_assert_cmpint (g_mkdir (many, 0755), ==, 0);
  for (guint i = 0; i < 400; i++)
    {
      g_autofree char *p = g_strdup_printf ("%s/f%03u", many, i);
      write_pattern (p, 2000 + i, i, 0644);
    }
  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_ANY_DEST, NULL, 300, -1, CS_FAULT_ERRNO, ENOTCONN });
  start = g_get_monotonic_time ();
  run (f, (Options) { 8, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);

  g_assert_cmpuint (cs_fault_hits (0), >=, 1);
  g_assert_false (o.ok);
  g_assert_error (o.error, CS_JOB_ERROR, CS_JOB_ERROR_DESTINATION);
  g_assert_nonnull (strstr (o.error->message, "no longer available"));
  g_assert_cmpint (g_get_monotonic_time () - start, <, 2 * G_USEC_PER_SEC);
  /* One message, not one per file: the fatal one plus at most a few from
   * calls already in flight. */
  g_assert_cmpuint (o.errors->len, <=, 4);
  /* Temporaries may stay: removing them failed as well. */
  cs_oracle_check (f->oracle, CS_ORACLE_ALLOW_TEMP);
  rerun_converges (f);
}

typedef struct {
  char *path;
  int   done;
} Removal;

/* Someone deletes the copy's folder while it is being written. */
static void
remove_destination (const char *name,
                    gpointer    data)
{
  Removal *removal = data;

  /* The other workers go on creating files while the tree is walked, so one
   * pass can meet a folder that is no longer empty: walk again until it is
   * gone, as a user's "rm -r" run twice would. */
  if (g_atomic_int_compare_and_exchange (&removal->done, 0, 1))
    for (guint pass = 0; pass < 100 && g_file_test (removal->path, G_FILE_TEST_EXISTS); pass++)
      cs_test_tree_remove (removal->path);
  g_assert_false (g_file_test (removal->path, G_FILE_TEST_EXISTS));
}

/* The folder being copied into is removed mid-copy: the destination is gone,
 * like a share that vanished, so one clear fatal error, not one "No such file
 * or directory" per file that was still to come. */
void
test_destination_folder_removed (Fixture       *f,
                                 gconstpointer  data)
{
  Removal removal = { f->copy, 0 };
  g_auto(Outcome) o = { 0 };

  for (guint d = 0; d < 4; d++)
    for (guint i = 0; i < 100; i++)
      {
        g_autofree char *dir = g_strdup_printf ("%s/many%u", f->src, d);
        g_autofree char *p = g_strdup_printf ("%s/f%03u", dir, i);

        g_mkdir (dir, 0755);
        write_pattern (p, 2000 + i, i, 0644);
      }
  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_OPEN, NULL, 40, 1, CS_FAULT_HOOK, 0, remove_destination, &removal });
  run (f, (Options) { 4, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);

  g_assert_cmpuint (cs_fault_hits (0), ==, 1);
  g_assert_false (o.ok);
  g_assert_error (o.error, CS_JOB_ERROR, CS_JOB_ERROR_DESTINATION);
  g_assert_nonnull (strstr (o.error->message, "removed"));
  g_assert_cmpuint (o.errors->len, <=, 2);
  rerun_converges (f);
}

/* ---- Real full filesystems (root) -------------------------------------------- */

static gboolean
mount_fs (Fixture    *f,
          const char *kind)
{
  g_autofree char *mnt = fixture_path (f, "mnt");
  g_autofree char *img = fixture_path (f, "img");
  g_autofree char *cmd = NULL;
  int status = 0;

  if (geteuid () != 0)
    {
      g_test_skip ("needs root to mount a small filesystem");
      return FALSE;
    }
  g_assert_cmpint (g_mkdir (mnt, 0755), ==, 0);
  if (strcmp (kind, "ext4") == 0)
    {
      cmd = g_strdup_printf ("sh -c 'truncate -s 16M %s && mkfs.ext4 -q -F -m 0 %s && mount -o loop %s %s' 2>&1",
                             img, img, img, mnt);
      if (!g_spawn_command_line_sync (cmd, NULL, NULL, &status, NULL) || status != 0)
        {
          g_test_skip ("cannot make and loop-mount an ext4 image here");
          return FALSE;
        }
    }
  else if (mount ("tmpfs", mnt, "tmpfs", 0, kind) != 0)
    {
      g_test_skip_printf ("cannot mount tmpfs -o %s here: %s", kind, g_strerror (errno));
      return FALSE;
    }
  f->mnt = g_steal_pointer (&mnt);
  return TRUE;
}

/* ext4 of 16 MiB: new files until it is full; then replacing a file with a
 * bigger version that does not fit. */
void
test_ext4_full (Fixture       *f,
                gconstpointer  data)
{
  gboolean replace = GPOINTER_TO_INT (data);
  g_autofree char *big = g_build_filename (f->src, "b.bin", NULL);
  g_autofree char *old = NULL;
  g_autofree char *copy = NULL;
  g_auto(Outcome) o = { 0 };

  if (!mount_fs (f, "ext4"))
    return;
  copy = g_build_filename (f->mnt, "src", NULL);
  if (replace)
    {
      old = g_build_filename (copy, "b.bin", NULL);
      g_assert_cmpint (g_mkdir (copy, 0755), ==, 0);
      write_pattern (old, 9 << 20, 99, 0644);
      write_pattern (big, 10 << 20, 2, 0640);
    }
  else
    write_pattern (big, 20 << 20, 2, 0640);

  f->oracle = cs_oracle_new ();
  cs_oracle_add_pair (f->oracle, f->src, copy);
  run_job (f->src, f->mnt, (Options) { 2, FALSE, FALSE, CS_OVERWRITE_ALWAYS, 2 }, &o);

  g_assert_false (o.ok);
  g_assert_error (o.error, CS_JOB_ERROR, CS_JOB_ERROR_DESTINATION);
  g_assert_nonnull (strstr (o.error->message, "full"));
  g_assert_cmpfloat (o.seconds, <, 5.0);
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "b.bin"), ==, replace ? CS_ORACLE_OLD : CS_ORACLE_ABSENT);
}

/* tmpfs with 64 inodes: out of inodes is "full" too, and stops the job. */
void
test_inodes_exhausted (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *many = g_build_filename (f->src, "many", NULL);
  g_autofree char *copy = NULL;
  g_auto(Outcome) o = { 0 };
  CsOracleCounts c;

  if (!mount_fs (f, "size=64m,nr_inodes=64"))
    return;
  g_assert_cmpint (g_mkdir (many, 0755), ==, 0);
  for (guint i = 0; i < 200; i++)
    {
      g_autofree char *p = g_strdup_printf ("%s/f%03u", many, i);
      write_pattern (p, 100, i, 0644);
    }
  copy = g_build_filename (f->mnt, "src", NULL);
  f->oracle = cs_oracle_new ();
  cs_oracle_add_pair (f->oracle, f->src, copy);
  run_job (f->src, f->mnt, (Options) { 4, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);

  g_assert_false (o.ok);
  g_assert_error (o.error, CS_JOB_ERROR, CS_JOB_ERROR_DESTINATION);
  g_assert_nonnull (strstr (o.error->message, "full"));
  g_assert_cmpuint (o.errors->len, <=, 4);
  c = cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_cmpuint (c.n[CS_ORACLE_COMPLETE], <, 64);
  g_assert_cmpuint (c.n[CS_ORACLE_ABSENT], >, 140);
}
