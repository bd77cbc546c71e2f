/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "cs-io-private.h"

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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/io/backend/routes", test_routes);
  g_test_add_func ("/io/backend/never-joins-backends", test_never_joins_backends);
  g_test_add_func ("/io/backend/unknown", test_unknown_backend);
  return g_test_run ();
}
