/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include "test-fault.h"

/* Modes, times, extended attributes and links a destination refuses, and an
 * older replacement. */

/* A temporary nobody else can reach (unnamed, or in a staging folder) is
 * created with its final permissions, so only a mode the umask trims (or a
 * set-id bit) costs a chmod: on a share that is a round trip per file saved.
 * A named one beside the files is created 0600 and every other mode is set
 * afterwards.  With chmod refused, as on shares that keep no permissions, the
 * copy goes on and says so once, in a note: nothing failed. */
void
test_modes (Fixture       *f,
            gconstpointer  data)
{
  static const mode_t modes[] = { 0644, 0755, 0444, 0600, 0000, 0664, 0775, 04755 };
  gboolean refused = (GPOINTER_TO_INT (data) & MODES_REFUSED) != 0;
  gboolean named = (GPOINTER_TO_INT (data) & MODES_NAMED) != 0;
  gboolean private = named && staging != CS_STAGING_ALWAYS;
  g_autofree char *src = g_build_filename (f->root, "modes", NULL);
  g_autofree char *dst = g_build_filename (f->root, "modes-copy", NULL);
  g_auto(Outcome) o = { 0 };
  guint trimmed = 0, unlike_0600 = 0;
  mode_t old_umask = umask (022);

  g_assert_cmpint (g_mkdir (src, 0755), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    {
      g_autofree char *p = g_strdup_printf ("%s/m%04o", src, modes[i]);

      write_pattern (p, 100 + i, i, modes[i]);
      trimmed += (modes[i] & (022 | 07000)) != 0;
      unlike_0600 += modes[i] != 0600;
    }

  cs_fault_install (dst);
  if (refused)
    cs_fault_add (&(CsFaultRule) { CS_FAULT_CHMOD, NULL, 1, -1, CS_FAULT_ERRNO, EPERM });
  if (named)
    cs_fault_add (&(CsFaultRule) { CS_FAULT_CREATE, NULL, 1, 1, CS_FAULT_ERRNO, EOPNOTSUPP });
  run_job (src, dst, (Options) { 1, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);
  umask (old_umask);

  g_assert_true (o.ok);
  g_assert_cmpuint (o.totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, G_N_ELEMENTS (modes));
  /* A destination that refused a chmod is not asked again; otherwise one
   * more than the files: the folder's own mode, set after its contents. */
  g_assert_cmpuint (cs_fault_calls (CS_FAULT_CHMOD, NULL), ==,
                    refused ? 1 : (private ? unlike_0600 : trimmed) + 1);
  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    {
      g_autofree char *p = g_strdup_printf ("%s/m%04o", dst, modes[i]);
      gboolean chmod_needed = private ? modes[i] != 0600 : (modes[i] & (022 | 07000)) != 0;
      struct stat st;

      g_assert_cmpint (lstat (p, &st), ==, 0);
      if (!refused || !chmod_needed)
        g_assert_cmpint (st.st_mode & 07777, ==, modes[i]);
    }
  if (refused)
    {
      CsRunError *e;
      g_autofree char *count = g_strdup_printf (": %u files and 1 folder have other permissions",
                                                private ? unlike_0600 : trimmed);

      /* Once, with what was lost: the files that needed a chmod, and the folder.
       * A note, not a failure: the data is all there, and a retry would
       * lose the same. */
      g_assert_cmpuint (o.errors->len, ==, 1);
      e = g_ptr_array_index (o.errors, 0);
      g_assert_cmpstr (e->operation, ==, "chmod");
      g_assert_nonnull (strstr (e->message, count));
      g_assert_true (e->note);
      g_assert_cmpuint (e->attempts, ==, 0);
      g_assert_cmpuint (o.n_failures, ==, 0);
      g_assert_cmpuint (o.n_notes, ==, 1);
      g_assert_cmpuint (o.totals.v[CS_CLASS_FAILED][CS_KIND_FILES], ==, 0);

      /* A rerun writes nothing, so nothing was lost in it and nothing is said,
       * though the folder's mode is set again (and refused) after the scan.
       * (Into a folder holding the copy under the source's name, so that the
       * rerun lands on it.) */
      {
        g_autofree char *parent = g_build_filename (f->root, "rerun", NULL);
        g_autofree char *again = g_build_filename (parent, "modes", NULL);

        g_assert_cmpint (g_mkdir (parent, 0755), ==, 0);
        g_assert_cmpint (g_rename (dst, again), ==, 0);
        cs_fault_install (parent);
        cs_fault_add (&(CsFaultRule) { CS_FAULT_CHMOD, NULL, 1, -1, CS_FAULT_ERRNO, EPERM });
        run_job (src, parent, (Options) { 1, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);
        g_assert_cmpuint (cs_fault_calls (CS_FAULT_CHMOD, NULL), ==, 1);
      }
      g_assert_true (o.ok);
      g_assert_cmpuint (o.totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, 0);
      g_assert_cmpuint (o.totals.v[CS_CLASS_SKIPPED][CS_KIND_FILES], ==, G_N_ELEMENTS (modes));
      g_assert_cmpuint (o.errors->len, ==, 0);
    }
  else
    g_assert_cmpuint (o.errors->len, ==, 0);
}

/* A destination that stamps the time of the close on a file it was written
 * to (Samba behind GVfs): the first file's time is read back, found lost and
 * set again on its published name; every later file gets its time there, and
 * once that was read back it is trusted. Every file keeps its source's time,
 * nothing is reported, and a rerun skips every file silently. With @data,
 * files written just now: their times, to the nanosecond, prove as much. */
void
test_times_stamped_at_close (Fixture       *f,
                             gconstpointer  data)
{
  gboolean fresh = GPOINTER_TO_INT (data);
  g_autofree char *src = g_build_filename (f->root, "times", NULL);
  g_autofree char *parent = g_build_filename (f->root, "times-out", NULL);
  g_auto(Outcome) o = { 0 };

  g_assert_cmpint (g_mkdir (src, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (parent, 0755), ==, 0);
  for (guint i = 0; i < 12; i++)
    {
      g_autofree char *p = g_strdup_printf ("%s/t%02u", src, i);

      /* Well before the run: a copy showing this time cannot have been
       * stamped with the clock. */
      struct timespec old[2] = { { 1500000000 + i, 0 }, { 1500000000 + i, 123456789 } };

      write_pattern (p, 1000 + i, i, 0644);
      /* write_pattern dates its files years back. */
      g_assert_cmpint (utimensat (AT_FDCWD, p, fresh ? NULL : old, 0), ==, 0);
    }

  for (guint run = 0; run < 2; run++)
    {
      cs_fault_install (parent);
      /* Named temporaries, as on a share without O_TMPFILE. */
      cs_fault_add (&(CsFaultRule) { CS_FAULT_CREATE, NULL, 1, 1, CS_FAULT_ERRNO, EOPNOTSUPP });
      cs_fault_add (&(CsFaultRule) { CS_FAULT_CLOSE_STAMP, NULL, 1, -1, CS_FAULT_ERRNO, 0 });
      run_job (src, parent, (Options) { 1, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);

      g_assert_true (o.ok);
      g_assert_cmpuint (o.errors->len, ==, 0);
      g_assert_cmpuint (o.totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, run == 0 ? 12 : 0);
      g_assert_cmpuint (o.totals.v[CS_CLASS_SKIPPED][CS_KIND_FILES], ==, run == 0 ? 0 : 12);
      if (run == 0)
        g_assert_cmpuint (cs_fault_hits (1), >=, 12);
      for (guint i = 0; i < 12; i++)
        {
          g_autofree char *a = g_strdup_printf ("%s/t%02u", src, i);
          g_autofree char *b = g_strdup_printf ("%s/times/t%02u", parent, i);
          struct stat sa, sb;

          g_assert_cmpint (lstat (a, &sa), ==, 0);
          g_assert_cmpint (lstat (b, &sb), ==, 0);
          g_assert_cmpint (sb.st_mtim.tv_sec, ==, sa.st_mtim.tv_sec);
          g_assert_cmpint (sb.st_mtim.tv_nsec, ==, sa.st_mtim.tv_nsec);
        }
    }
}

/* Files written a moment ago (a rerun's changed files, as a rule) onto a
 * destination that keeps the times set on the open file: the first one is
 * read back, and shows the source's time to the nanosecond, which a stamp
 * of the destination's own would match once in a billion; the others are
 * trusted without a look. Before, a time within 10 s of the clock proved
 * nothing, and every file was read back (a stat by name each: three SMB2
 * requests on a share). */
void
test_times_fresh_trusted (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *src = g_build_filename (f->root, "fresh", NULL);
  g_autofree char *parent = g_build_filename (f->root, "fresh-out", NULL);
  g_auto(Outcome) o = { 0 };

  g_assert_cmpint (g_mkdir (src, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (parent, 0755), ==, 0);
  for (guint i = 0; i < 12; i++)
    {
      g_autofree char *p = g_strdup_printf ("%s/t%02u", src, i);

      write_pattern (p, 1000 + i, i, 0644);
      /* Written just now (write_pattern dates its files years back). */
      g_assert_cmpint (utimensat (AT_FDCWD, p, NULL, 0), ==, 0);
    }

  cs_fault_install (parent);
  run_job (src, parent, (Options) { 1, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);
  g_assert_true (o.ok);
  g_assert_cmpuint (o.errors->len, ==, 0);
  g_assert_cmpuint (o.totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, 12);
  g_test_message ("times read back: %u", cs_fault_calls (CS_FAULT_STATX_DEST, NULL));
  g_assert_cmpuint (cs_fault_calls (CS_FAULT_STATX_DEST, NULL), ==, 1);
  for (guint i = 0; i < 12; i++)
    {
      g_autofree char *a = g_strdup_printf ("%s/t%02u", src, i);
      g_autofree char *b = g_strdup_printf ("%s/fresh/t%02u", parent, i);
      struct stat sa, sb;

      g_assert_cmpint (lstat (a, &sa), ==, 0);
      g_assert_cmpint (lstat (b, &sb), ==, 0);
      g_assert_cmpint (sb.st_mtim.tv_sec, ==, sa.st_mtim.tv_sec);
      g_assert_cmpint (sb.st_mtim.tv_nsec, ==, sa.st_mtim.tv_nsec);
    }
}

static gboolean
same_bytes (const char *a,
            const char *b)
{
  g_autofree char *x = NULL;
  g_autofree char *y = NULL;
  gsize nx = 0, ny = 0;

  g_assert_true (g_file_get_contents (a, &x, &nx, NULL));
  g_assert_true (g_file_get_contents (b, &y, &ny, NULL));
  return nx == ny && memcmp (x, y, nx) == 0;
}

/* A source replaced by a file with an older modification time (a version
 * restored from a backup) changed after its copy was written: it is copied
 * again, where a destination file written after its source changed is kept
 * as newer. */
void
test_older_replacement (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *a = g_build_filename (f->src, "a.txt", NULL);
  g_autofree char *copy_a = g_build_filename (f->copy, "a.txt", NULL);
  g_autofree char *c = g_build_filename (f->src, "c.dat", NULL);
  g_autofree char *copy_c = g_build_filename (f->copy, "c.dat", NULL);
  g_autofree char *restored = g_build_filename (f->root, "restored", NULL);
  g_auto(Outcome) o = { 0 };
  struct timespec older[2] = { { 1500000000, 0 }, { 1500000000, 0 } };
  struct timespec newest[2] = { { 1900000000, 0 }, { 1900000000, 0 } };
  struct stat st;

  run_job (f->src, f->out, DEFAULTS, &o);
  g_assert_true (o.ok);

  /* a.txt: replaced at the source by older-dated bytes of the same size,
   * later than the copy by more than the kernel's coarse clock tick. */
  g_usleep (50 * 1000);
  g_assert_cmpint (lstat (a, &st), ==, 0);
  write_pattern (restored, (gsize) st.st_size, 77, 0644);
  g_assert_cmpint (utimensat (AT_FDCWD, restored, older, 0), ==, 0);
  g_assert_cmpint (g_rename (restored, a), ==, 0);
  /* c.dat: the copy was edited after the source, and is newer. */
  sleep (1);
  write_pattern (copy_c, 200000, 78, 0600);
  g_assert_cmpint (utimensat (AT_FDCWD, copy_c, newest, 0), ==, 0);

  run_job (f->src, f->out, DEFAULTS, &o);
  g_assert_true (o.ok);
  g_assert_true (same_bytes (a, copy_a));
  g_assert_cmpuint (o.totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, 1);
  g_assert_false (same_bytes (c, copy_c));
  g_assert_cmpint (lstat (copy_c, &st), ==, 0);
  g_assert_cmpint (st.st_mtim.tv_sec, ==, newest[1].tv_sec);
}

/* A destination without extended attributes and without symbolic links is
 * asked once for each and never again in the run; what it did not keep is
 * said once per kind, with how many files and links lost it, and a rerun
 * that copies no file says nothing about attributes. */
void
test_metadata_refused (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *src = g_build_filename (f->root, "meta", NULL);
  g_autofree char *parent = g_build_filename (f->root, "meta-out", NULL);
  g_auto(Outcome) o = { 0 };
  const char *xattr_msg = NULL, *link_msg = NULL;

  g_assert_cmpint (g_mkdir (src, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (parent, 0755), ==, 0);
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *p = g_strdup_printf ("%s/x%u", src, i);

      write_pattern (p, 1000 + i, i, 0644);
      if (setxattr (p, "user.copyscope-test", "v", 1, 0) != 0)
        {
          g_test_skip ("no user extended attributes where the tests run");
          return;
        }
    }
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *p = g_strdup_printf ("%s/link%u", src, i);

      g_assert_cmpint (symlink ("x0", p), ==, 0);
    }

  for (guint run = 0; run < 2; run++)
    {
      cs_fault_install (parent);
      cs_fault_add (&(CsFaultRule) { CS_FAULT_SETXATTR, NULL, 1, -1, CS_FAULT_ERRNO, ENOTSUP });
      cs_fault_add (&(CsFaultRule) { CS_FAULT_SYMLINK, NULL, 1, -1, CS_FAULT_ERRNO, EPERM });
      run_job (src, parent, DEFAULTS, &o);

      g_assert_cmpuint (o.totals.v[CS_CLASS_COPIED][CS_KIND_FILES], ==, run == 0 ? 3 : 0);
      g_assert_cmpuint (o.totals.v[CS_CLASS_FAILED][CS_KIND_FILES], ==, 2);
      /* Asked once, then remembered; workers already past the question
       * when the first refusal came may each have asked too. */
      if (run == 0)
        {
          g_assert_cmpuint (cs_fault_calls (CS_FAULT_SETXATTR, NULL), >=, 1);
          g_assert_cmpuint (cs_fault_calls (CS_FAULT_SETXATTR, NULL), <=, 3);
        }
      else
        g_assert_cmpuint (cs_fault_calls (CS_FAULT_SETXATTR, NULL), ==, 0);
      /* The same for the two links, one per worker (seen at load 30). */
      g_assert_cmpuint (cs_fault_calls (CS_FAULT_SYMLINK, NULL), >=, 1);
      g_assert_cmpuint (cs_fault_calls (CS_FAULT_SYMLINK, NULL), <=, 2);
      xattr_msg = link_msg = NULL;
      for (guint i = 0; i < o.errors->len; i++)
        {
          CsRunError *e = g_ptr_array_index (o.errors, i);

          if (g_str_equal (e->operation, "set attributes"))
            xattr_msg = e->message;
          else if (g_str_equal (e->operation, "create link"))
            link_msg = e->message;
        }
      g_assert_cmpuint (o.errors->len, ==, run == 0 ? 2 : 1);
      g_assert_nonnull (link_msg);
      g_assert_nonnull (strstr (link_msg, "cannot hold symbolic links: 2 links were not copied"));
      if (run == 0)
        {
          g_assert_nonnull (xattr_msg);
          g_assert_nonnull (strstr (xattr_msg, "does not keep extended attributes: 3 files"));
        }
      else
        g_assert_null (xattr_msg);
    }
}

/* One item that lost something is spoken of in the singular: "1 link was
 * not copied", not "1 link were". */
void
test_metadata_refused_one (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *src = g_build_filename (f->root, "meta", NULL);
  g_autofree char *parent = g_build_filename (f->root, "meta-out", NULL);
  g_autofree char *link = g_build_filename (src, "link", NULL);
  g_auto(Outcome) o = { 0 };
  CsRunError *e;

  g_assert_cmpint (g_mkdir (src, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (parent, 0755), ==, 0);
  g_assert_cmpint (symlink ("x0", link), ==, 0);
  cs_fault_install (parent);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_SYMLINK, NULL, 1, -1, CS_FAULT_ERRNO, EPERM });
  run_job (src, parent, DEFAULTS, &o);

  g_assert_cmpuint (o.errors->len, ==, 1);
  e = g_ptr_array_index (o.errors, 0);
  g_assert_cmpstr (e->operation, ==, "create link");
  g_assert_nonnull (strstr (e->message, "cannot hold symbolic links: 1 link was not copied"));
}
