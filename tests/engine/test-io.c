/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cs-io-private.h"
#include "cs-io-stat-ahead-private.h"
#include "cs-test-tree.h"

/*
 * The seam between the engine and its backends: a second backend, which
 * reaches local files under "shift://" locations, gets its calls with its own
 * handles, and a call never joins handles of two backends.
 */

#define SCHEME "shift://"

static int shift_opens;

static int
shift_openat (int dirfd, const char *path, int flags, mode_t mode)
{
  shift_opens++;
  if (dirfd == CS_IO_AT_LOCATION)
    {
      g_assert_true (g_str_has_prefix (path, SCHEME));
      path += strlen (SCHEME);
    }
  return _cs_io_get_default ()->openat (dirfd, path, flags, mode);
}

static CsIoTable shift_table;

static int
shift_backend (void)
{
  shift_table = *_cs_io_get_default ();
  shift_table.name = "shift";
  shift_table.scheme = SCHEME;
  shift_table.openat = shift_openat;
  return _cs_io_register (&shift_table);
}

static char *
make_folder (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("cs-io-XXXXXX", &error);
  g_autofree char *a = NULL;

  g_assert_no_error (error);
  a = g_build_filename (dir, "a", NULL);
  g_file_set_contents (a, "hello", 5, &error);
  g_assert_no_error (error);
  return dir;
}

static void
remove_folder (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_assert_cmpint (g_unlink (path), ==, 0);
    }
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

static gboolean
lists (CsCounters *c,
       int         dir,
       const char *want)
{
  char buf[4096];
  ssize_t n;
  gboolean seen = FALSE;

  while ((n = _cs_io_getdents (c, dir, buf, sizeof buf)) > 0)
    for (ssize_t pos = 0; pos < n;)
      {
        struct linux_dirent64 *d = (struct linux_dirent64 *) (buf + pos);

        seen = seen || strcmp (d->d_name, want) == 0;
        pos += d->d_reclen;
      }
  g_assert_cmpint (n, ==, 0);
  return seen;
}

static void
test_routes (void)
{
  g_autofree char *tmp = make_folder ();
  g_autofree char *location = g_strconcat (SCHEME, tmp, NULL);
  CsCounters c = { 0 };
  int number = shift_backend ();
  int dir, file, posix;
  char buf[16];
  struct statfs sfs;

  g_assert_cmpint (number, >, 0);
  g_assert_cmpint (_cs_io_register (&shift_table), ==, number);
  shift_opens = 0;

  dir = _cs_io_openat (&c, CS_IO_AT_LOCATION, location, O_RDONLY | O_DIRECTORY, 0);
  g_assert_cmpint (dir, >=, 0);
  g_assert_cmpint (dir >> CS_IO_HANDLE_BITS, ==, number);
  file = _cs_io_openat (&c, dir, "a", O_RDONLY, 0);
  g_assert_cmpint (file >> CS_IO_HANDLE_BITS, ==, number);
  g_assert_cmpint (shift_opens, ==, 2);
  g_assert_cmpstr (_cs_io_backend (file, NULL)->name, ==, "shift");
  g_assert_cmpstr (_cs_io_backend (CS_IO_AT_LOCATION, location)->name, ==, "shift");

  g_assert_cmpint (_cs_io_pread (&c, file, buf, sizeof buf, 0), ==, 5);
  g_assert_cmpmem (buf, 5, "hello", 5);
  g_assert_cmpint (_cs_io_fstatfs (file, &sfs), ==, 0);
  g_assert_cmpint (_cs_io_fadvise (file, 0, 0, POSIX_FADV_SEQUENTIAL), ==, 0);
  g_assert_true (lists (&c, dir, "a"));
  g_assert_cmpuint (c.requests[CS_REQ_OPEN], ==, 2);
  g_assert_cmpuint (c.requests[CS_REQ_READ], ==, 1);
  g_assert_cmpuint (c.bytes_read, ==, 5);

  /* A path is the POSIX backend's, whose handles are the descriptors. */
  posix = _cs_io_openat (&c, CS_IO_AT_LOCATION, tmp, O_RDONLY | O_DIRECTORY, 0);
  g_assert_cmpint (posix, >=, 0);
  g_assert_cmpint (posix >> CS_IO_HANDLE_BITS, ==, 0);
  g_assert_cmpint (fcntl (posix, F_GETFD), >=, 0);
  g_assert_cmpint (shift_opens, ==, 2);
  g_assert_cmpstr (_cs_io_backend (posix, NULL)->name, ==, "posix");

  g_assert_cmpint (_cs_io_close (&c, file), ==, 0);
  g_assert_cmpint (_cs_io_close (&c, dir), ==, 0);
  g_assert_cmpint (_cs_io_close (&c, posix), ==, 0);
  g_assert_cmpuint (c.requests[CS_REQ_CLOSE], ==, 3);
  remove_folder (tmp);
}

static void
test_never_joins_backends (void)
{
  g_autofree char *tmp = make_folder ();
  g_autofree char *location = g_strconcat (SCHEME, tmp, NULL);
  g_autofree char *a = g_build_filename (tmp, "a", NULL);
  g_autofree char *b = g_build_filename (tmp, "b", NULL);
  CsCounters c = { 0 };
  int dir, posix, in, out;
  off_t off_in = 0, off_out = 0;

  shift_backend ();
  dir = _cs_io_openat (&c, CS_IO_AT_LOCATION, location, O_RDONLY | O_DIRECTORY, 0);
  posix = _cs_io_openat (&c, CS_IO_AT_LOCATION, tmp, O_RDONLY | O_DIRECTORY, 0);
  g_assert_cmpint (dir, >=, 0);
  g_assert_cmpint (posix, >=, 0);

  errno = 0;
  g_assert_cmpint (_cs_io_renameat2 (&c, dir, "a", posix, "b", RENAME_NOREPLACE), ==, -1);
  g_assert_cmpint (errno, ==, EXDEV);
  errno = 0;
  g_assert_cmpint (_cs_io_linkat (&c, dir, "a", posix, "b", 0), ==, -1);
  g_assert_cmpint (errno, ==, EXDEV);
  g_assert_true (g_file_test (a, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (b, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (c.requests[CS_REQ_RENAME], ==, 0);

  in = _cs_io_openat (&c, dir, "a", O_RDONLY, 0);
  out = _cs_io_openat (&c, posix, "b", O_WRONLY | O_CREAT | O_EXCL, 0644);
  errno = 0;
  g_assert_cmpint (_cs_io_copy_range (&c, in, &off_in, out, &off_out, 5), ==, -1);
  g_assert_cmpint (errno, ==, EXDEV);
  g_assert_true (_cs_io_is_unsupported (errno));
  errno = 0;
  g_assert_cmpint (_cs_io_clone (&c, out, in, 5), ==, -1);
  g_assert_cmpint (errno, ==, EXDEV);
  g_assert_cmpuint (c.requests[CS_REQ_COPY], ==, 0);
  g_assert_cmpint (_cs_io_close (&c, in), ==, 0);
  g_assert_cmpint (_cs_io_close (&c, out), ==, 0);
  g_assert_cmpint (_cs_io_unlinkat (&c, posix, "b", 0), ==, 0);

  /* Within one backend the same calls go through. */
  g_assert_cmpint (_cs_io_renameat2 (&c, dir, "a", dir, "b", RENAME_NOREPLACE), ==, 0);
  g_assert_true (g_file_test (b, G_FILE_TEST_EXISTS));

  _cs_io_close (&c, dir);
  _cs_io_close (&c, posix);
  remove_folder (tmp);
}

static void
test_unknown_backend (void)
{
  CsCounters c = { 0 };
  char buf[4];

  errno = 0;
  g_assert_cmpint (_cs_io_pread (&c, 7 << CS_IO_HANDLE_BITS, buf, sizeof buf, 0), ==, -1);
  g_assert_cmpint (errno, ==, EBADF);
  g_assert_null (_cs_io_backend (7 << CS_IO_HANDLE_BITS, NULL));
  g_assert_cmpuint (c.requests[CS_REQ_READ], ==, 0);
}

/* The stats started ahead (io_uring's statx) say what fstatat says, field by
 * field and to the nanosecond, errors included, also with a second folder's
 * stats started while the first's are out (the scanner nests them). */
static void
assert_same_stat (const struct stat *a,
                  const struct stat *b)
{
  g_assert_cmpuint (a->st_dev, ==, b->st_dev);
  g_assert_cmpuint (a->st_ino, ==, b->st_ino);
  g_assert_cmpuint (a->st_mode, ==, b->st_mode);
  g_assert_cmpuint (a->st_nlink, ==, b->st_nlink);
  g_assert_cmpuint (a->st_uid, ==, b->st_uid);
  g_assert_cmpuint (a->st_gid, ==, b->st_gid);
  g_assert_cmpuint (a->st_rdev, ==, b->st_rdev);
  g_assert_cmpint (a->st_size, ==, b->st_size);
  g_assert_cmpint (a->st_blksize, ==, b->st_blksize);
  g_assert_cmpint (a->st_blocks, ==, b->st_blocks);
  g_assert_cmpint (a->st_atim.tv_sec, ==, b->st_atim.tv_sec);
  g_assert_cmpint (a->st_atim.tv_nsec, ==, b->st_atim.tv_nsec);
  g_assert_cmpint (a->st_mtim.tv_sec, ==, b->st_mtim.tv_sec);
  g_assert_cmpint (a->st_mtim.tv_nsec, ==, b->st_mtim.tv_nsec);
  g_assert_cmpint (a->st_ctim.tv_sec, ==, b->st_ctim.tv_sec);
  g_assert_cmpint (a->st_ctim.tv_nsec, ==, b->st_ctim.tv_nsec);
}

static void
test_stat_ahead_same (void)
{
  g_autofree char *tmp = make_folder ();
  g_autofree char *sub = g_build_filename (tmp, "sub", NULL);
  g_autofree char *fifo = g_build_filename (tmp, "fifo", NULL);
  g_autofree char *link = g_build_filename (tmp, "link", NULL);
  g_autofree char *gone = g_build_filename (tmp, "dangling", NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *sub_a = g_build_filename (sub, "a", NULL);
  g_autofree char *deeper = g_build_filename (sub, "deeper", NULL);
  const char *inner_names[] = { "a", "missing", "deeper" };
  struct timespec times[2] = { { 1500000000, 123456789 }, { 1600000000, 987654321 } };
  CsCounters c = { 0 };
  g_autoptr(CsIoStatAhead) ahead = NULL;
  g_autoptr(CsIoStatAhead) inner = NULL;
  int dir, sub_fd;

  if (!_cs_io_stat_ahead_available ())
    {
      g_test_skip ("io_uring is not available here");
      remove_folder (tmp);
      return;
    }
  g_assert_cmpint (g_mkdir (sub, 0750), ==, 0);
  g_assert_cmpint (g_mkdir (deeper, 0700), ==, 0);
  g_assert_true (g_file_set_contents (sub_a, "inner", 5, NULL));
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_cmpint (symlink ("a", link), ==, 0);
  g_assert_cmpint (symlink ("no/such", gone), ==, 0);
  g_assert_cmpint (utimensat (AT_FDCWD, link, times, AT_SYMLINK_NOFOLLOW), ==, 0);
  for (guint i = 0; i < 150; i++)
    {
      g_autofree char *path = g_strdup_printf ("%s/f%03u", tmp, i);
      g_autoptr(GError) error = NULL;

      g_file_set_contents (path, "x", i * 37, &error);
      g_assert_no_error (error);
      times[1].tv_nsec = i * 1000 + 7;
      g_assert_cmpint (utimensat (AT_FDCWD, path, times, 0), ==, 0);
      g_ptr_array_add (names, g_strdup_printf ("f%03u", i));
    }
  g_ptr_array_add (names, g_strdup ("a"));
  g_ptr_array_add (names, g_strdup ("sub"));
  g_ptr_array_add (names, g_strdup ("fifo"));
  g_ptr_array_add (names, g_strdup ("link"));
  g_ptr_array_add (names, g_strdup ("dangling"));
  g_ptr_array_add (names, g_strdup ("missing"));

  dir = _cs_io_openat (&c, CS_IO_AT_LOCATION, tmp, O_RDONLY | O_DIRECTORY, 0);
  g_assert_cmpint (dir, >=, 0);
  sub_fd = _cs_io_openat (&c, CS_IO_AT_LOCATION, sub, O_RDONLY | O_DIRECTORY, 0);
  g_assert_cmpint (sub_fd, >=, 0);
  c.requests[CS_REQ_STAT] = 0;
  /* More names than the ring holds at once: taken in order, topped up. */
  ahead = _cs_io_stat_ahead_start (&c, dir, (const char * const *) names->pdata, names->len);
  g_assert_nonnull (ahead);
  for (guint i = 0; i < names->len; i++)
    {
      struct stat want, got;
      int want_r, want_errno, got_r;

      /* Halfway, another folder's stats, taken out of order. */
      if (i == names->len / 2)
        {
          inner = _cs_io_stat_ahead_start (&c, sub_fd, inner_names, G_N_ELEMENTS (inner_names));
          g_assert_nonnull (inner);
          for (guint k = G_N_ELEMENTS (inner_names); k-- > 0;)
            {
              errno = 0;
              want_r = fstatat (sub_fd, inner_names[k], &want, AT_SYMLINK_NOFOLLOW);
              want_errno = errno;
              errno = 0;
              got_r = _cs_io_stat_ahead_take (inner, k, &got);
              g_assert_cmpint (got_r, ==, want_r);
              if (got_r == 0)
                assert_same_stat (&got, &want);
              else
                g_assert_cmpint (errno, ==, want_errno);
            }
          g_clear_pointer (&inner, _cs_io_stat_ahead_free);
        }
      errno = 0;
      want_r = fstatat (dir, g_ptr_array_index (names, i), &want, AT_SYMLINK_NOFOLLOW);
      want_errno = errno;
      errno = 0;
      got_r = _cs_io_stat_ahead_take (ahead, i, &got);
      g_assert_cmpint (got_r, ==, want_r);
      if (got_r == 0)
        assert_same_stat (&got, &want);
      else
        g_assert_cmpint (errno, ==, want_errno);
    }
  g_clear_pointer (&ahead, _cs_io_stat_ahead_free);
  /* Each counted once, as a stat one by one would be. */
  g_assert_cmpuint (c.requests[CS_REQ_STAT], ==, names->len + G_N_ELEMENTS (inner_names));

  /* A test's table sees every stat itself: none started ahead. */
  shift_table = *_cs_io_get_default ();
  _cs_io_set (&shift_table);
  g_assert_null (_cs_io_stat_ahead_start (&c, dir, (const char * const *) names->pdata, names->len));
  _cs_io_set (NULL);
  /* Turned off (as COPYSCOPE_NO_IO_URING does): none either. */
  _cs_io_stat_ahead_enable (FALSE);
  g_assert_null (_cs_io_stat_ahead_start (&c, dir, (const char * const *) names->pdata, names->len));
  _cs_io_stat_ahead_enable (TRUE);

  _cs_io_close (&c, sub_fd);
  _cs_io_close (&c, dir);
  cs_test_tree_remove (tmp);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/io/backend/routes", test_routes);
  g_test_add_func ("/io/backend/never-joins-backends", test_never_joins_backends);
  g_test_add_func ("/io/backend/unknown", test_unknown_backend);
  g_test_add_func ("/io/stat-ahead/same-as-fstatat", test_stat_ahead_same);
  return g_test_run ();
}
