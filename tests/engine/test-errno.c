/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-errno"

#include "config.h"

#include <errno.h>
#include <locale.h>

#include "cs-errno-private.h"

/*
 * cs-errno.c alone: which errors stop the whole copy (the destination is
 * full, read-only or gone), the run's message for each, and which say the
 * share keeps no owners or modes at all. The suite runs in C.UTF-8, so the
 * messages are the untranslated ones.
 */

#define GONE_MESSAGE "The destination is no longer available"

/* Every error that stops the job, as cs-copy.c meets them. */
static const int fatal[] = {
  ENOSPC, EDQUOT, EROFS, ENOTCONN, ESTALE, ENODEV, ENXIO, ECONNABORTED,
  ECONNREFUSED, ENETRESET, ECONNRESET, EPIPE,
};

/* A file's own trouble: that file fails, the others go on. */
static const int per_file[] = {
  0, EIO, ENOENT, EACCES, EPERM, EEXIST, ENOTDIR, EISDIR, ENAMETOOLONG, EINVAL,
  EINTR, EAGAIN, EBADF, EFBIG, EMFILE, ENFILE, ELOOP, EXDEV, EOPNOTSUPP, ENOSYS,
  ETIMEDOUT, EBUSY, ETXTBSY, EILSEQ, ENOTEMPTY, ENOMEM, -1, G_MAXINT,
};

static void
test_fatal (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (fatal); i++)
    g_assert_true (_cs_is_fatal_errno (fatal[i]));
  for (guint i = 0; i < G_N_ELEMENTS (per_file); i++)
    g_assert_false (_cs_is_fatal_errno (per_file[i]));
}

static void
test_fatal_message (void)
{
  g_assert_cmpstr (_cs_fatal_message (ENOSPC), ==, "The destination is full");
  g_assert_cmpstr (_cs_fatal_message (EDQUOT), ==, "The disk quota at the destination is used up");
  g_assert_cmpstr (_cs_fatal_message (EROFS), ==, "The destination is read-only");

  /* The rest of the fatal ones: a share or disk that went away. */
  for (guint i = 0; i < G_N_ELEMENTS (fatal); i++)
    {
      const char *message = _cs_fatal_message (fatal[i]);

      g_assert_nonnull (message);
      g_assert_true (g_utf8_validate (message, -1, NULL));
      if (fatal[i] != ENOSPC && fatal[i] != EDQUOT && fatal[i] != EROFS)
        g_assert_cmpstr (message, ==, GONE_MESSAGE);
      else
        g_assert_cmpstr (message, !=, GONE_MESSAGE);
    }

  /* Never NULL, even for what is not fatal: a caller may print it. */
  g_assert_cmpstr (_cs_fatal_message (0), ==, GONE_MESSAGE);
  g_assert_cmpstr (_cs_fatal_message (EIO), ==, GONE_MESSAGE);
  g_assert_cmpstr (_cs_fatal_message (-1), ==, GONE_MESSAGE);

  /* The removed folder's message is a sentence of its own. */
  g_assert_cmpstr (CS_DEST_REMOVED_MESSAGE, !=, GONE_MESSAGE);
}

static void
test_share_refuses (void)
{
  const int refusals[] = { EPERM, EACCES, EOPNOTSUPP, ENOTSUP, ENOSYS, EINVAL };
  const int others[] = { 0, EIO, ENOENT, ENOSPC, EROFS, ENOTCONN, EBADF, EINTR, ENOMEM,
                         EDQUOT, ELOOP, -1 };

  for (guint i = 0; i < G_N_ELEMENTS (refusals); i++)
    g_assert_true (_cs_share_refuses (refusals[i]));
  for (guint i = 0; i < G_N_ELEMENTS (others); i++)
    g_assert_false (_cs_share_refuses (others[i]));
}

/* A share that keeps no modes must not stop the copy, and a destination that
 * went away is not a refusal to say once and go on: the classes are apart
 * for every errno there is. */
static void
test_classes_apart (void)
{
  for (int e = 0; e < 4096; e++)
    g_assert_false (_cs_is_fatal_errno (e) && _cs_share_refuses (e));
}

int
main (int   argc,
      char *argv[])
{
  setlocale (LC_ALL, "");
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/errno/fatal", test_fatal);
  g_test_add_func ("/errno/fatal-message", test_fatal_message);
  g_test_add_func ("/errno/share-refuses", test_share_refuses);
  g_test_add_func ("/errno/classes-apart", test_classes_apart);

  return g_test_run ();
}
