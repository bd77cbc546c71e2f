/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "copyscope-engine.h"
#include "cs-io-private.h"
#include "cs-io-table-private.h"
#include "fake-libsmbclient/fake-libsmbclient.h"

/*
 * How the SMB backend sets its connections up (cs-io-smb-conn.c), against
 * the stand-in libsmbclient.so.0 in fake-libsmbclient/, which the loader
 * finds first (LD_LIBRARY_PATH, tests/engine/meson.build). Each thread of
 * a test is a worker with a connection of its own, and its first call
 * connects it: the first connection to a share alone, the others
 * together, and one that fails beside the others again alone. Every test
 * names a share of its own: what reached a share stays known to the
 * process.
 */

#define THREADS 8

static void (*reset) (int, const char *);
static void (*get_counts) (FakeSmbCounts *);

/* pthread's, not GLib's: ThreadSanitizer sees these (tests/sanitize.sh). */
typedef struct {
  const char        *url;
  const char        *then_url;    /* or NULL: a second call, on another share */
  pthread_barrier_t  go;
  pthread_barrier_t  between;
  pthread_mutex_t    lock;
  int                results[THREADS];
  int                errnos[THREADS];
  int                n;
} Start;

static gpointer
worker (gpointer data)
{
  Start *start = data;
  struct stat st;
  int r, e, i;

  pthread_barrier_wait (&start->go);
  r = _cs_io_stat_location (start->url, TRUE, &st);
  e = errno;
  if (start->then_url != NULL)
    {
      /* One thread starts the count anew while the others wait: two of
       * the set-ups on the second share made together fail. */
      if (pthread_barrier_wait (&start->between) == PTHREAD_BARRIER_SERIAL_THREAD)
        reset (2, NULL);
      pthread_barrier_wait (&start->between);
      if (r == 0)
        {
          r = _cs_io_stat_location (start->then_url, TRUE, &st);
          e = errno;
        }
    }
  pthread_mutex_lock (&start->lock);
  i = start->n++;
  start->results[i] = r;
  start->errnos[i] = r == 0 ? 0 : e;
  pthread_mutex_unlock (&start->lock);
  return NULL;
}

/* @threads workers stat @url, all let go at once. */
static void
stat_at_once_then (Start      *start,
                   const char *url,
                   const char *then_url,
                   int         threads)
{
  GThread *t[THREADS];

  memset (start, 0, sizeof *start);
  start->url = url;
  start->then_url = then_url;
  pthread_mutex_init (&start->lock, NULL);
  pthread_barrier_init (&start->go, NULL, (unsigned) threads);
  pthread_barrier_init (&start->between, NULL, (unsigned) threads);
  for (int i = 0; i < threads; i++)
    t[i] = g_thread_new ("worker", worker, start);
  for (int i = 0; i < threads; i++)
    g_thread_join (t[i]);
  pthread_barrier_destroy (&start->go);
  pthread_barrier_destroy (&start->between);
  pthread_mutex_destroy (&start->lock);
  g_assert_cmpint (start->n, ==, threads);
}

static void
stat_at_once (Start      *start,
              const char *url,
              int         threads)
{
  stat_at_once_then (start, url, NULL, threads);
}

/* The first connection to the share alone, the seven after it together:
 * one at a time, eight set-ups behind 1 ms per request took 0.45 s on the
 * lab Samba, together 0.13 s. */
static void
test_together (void)
{
  FakeSmbCounts c;
  Start start;

  reset (0, NULL);
  stat_at_once (&start, "smb://lab@fake/one/photo.jpg", THREADS);
  get_counts (&c);
  for (int i = 0; i < THREADS; i++)
    g_assert_cmpint (start.results[i], ==, 0);
  g_assert_cmpint (c.set_ups, ==, THREADS);
  g_assert_cmpint (c.set_ups_alone, >=, 1);
  g_assert_cmpint (c.most_at_once, >=, 2);
  g_assert_cmpint (c.failed_together, ==, 0);
}

/* Two set-ups made together fail, as libsmbclient's sometimes do: their
 * connections connect again, alone, and every call goes through. */
static void
test_again_alone (void)
{
  g_autofree char *said = NULL;
  FakeSmbCounts c;
  Start start;
  FILE *out = tmpfile ();
  int saved = dup (STDOUT_FILENO);
  long n;

  reset (2, NULL);
  /* What the library says meanwhile, where it would say it. */
  g_assert_nonnull (out);
  fflush (stdout);
  g_assert_cmpint (dup2 (fileno (out), STDOUT_FILENO), >=, 0);
  stat_at_once (&start, "smb://lab@fake/two/photo.jpg", THREADS);
  fflush (stdout);
  g_assert_cmpint (dup2 (saved, STDOUT_FILENO), >=, 0);
  close (saved);
  n = ftell (out);
  said = g_malloc0 ((gsize) MAX (n, 0) + 1);
  rewind (out);
  g_assert_cmpuint (fread (said, 1, (gsize) MAX (n, 0), out), ==, (gsize) MAX (n, 0));
  fclose (out);

  get_counts (&c);
  g_test_message ("set-ups %d alone %d most %d failed %d again %d", c.set_ups, c.set_ups_alone, c.most_at_once, c.failed_together, c.again_alone);
  for (int i = 0; i < THREADS; i++)
    g_assert_cmpint (start.results[i], ==, 0);
  g_assert_cmpint (c.failed_together, ==, 2);
  g_assert_cmpint (c.again_alone, ==, 2);
  g_assert_cmpint (c.set_ups, ==, THREADS + 2);
  /* The failures it recovered from are no part of the output (but for the
   * debug log's lines, which GLib's test mode puts there, after a "#"). */
  {
    g_auto(GStrv) lines = g_strsplit (said, "\n", -1);

    for (guint i = 0; lines[i] != NULL; i++)
      if (lines[i][0] != '\0' && lines[i][0] != '#')
        g_error ("on standard output: %s", lines[i]);
  }
}

/* A share that refuses the login: every call says so, and the stat that
 * would connect is tried once, by the first connection, not by each. */
static void
test_refused (void)
{
  FakeSmbCounts c;
  Start start;

  reset (0, "smb://lab@fake/closed");
  stat_at_once (&start, "smb://lab@fake/closed/photo.jpg", 4);
  get_counts (&c);
  for (int i = 0; i < 4; i++)
    {
      g_assert_cmpint (start.results[i], ==, -1);
      g_assert_cmpint (start.errnos[i], ==, EACCES);
    }
  g_assert_cmpint (c.refusals, ==, 4 + 1);
}

/* A share that refused, then a password given (the window's dialog): the
 * next connections are set up as the first were, one alone and the others
 * together, not each alone for the next 10 s. */
static void
test_refused_then_given (void)
{
  FakeSmbCounts c;
  Start start;

  reset (0, "smb://lab@fake/locked");
  stat_at_once (&start, "smb://lab@fake/locked/photo.jpg", 2);
  g_assert_cmpint (start.results[0], ==, -1);

  reset (0, NULL);
  cs_smb_set_credentials (NULL, "typed in the dialog");
  stat_at_once (&start, "smb://lab@fake/locked/photo.jpg", THREADS);
  cs_smb_set_credentials (NULL, NULL);
  get_counts (&c);
  for (int i = 0; i < THREADS; i++)
    g_assert_cmpint (start.results[i], ==, 0);
  g_assert_cmpint (c.most_at_once, >=, 2);
}

/* Workers connected to one share (a copy's source) then call on another
 * (its destination): each connection is set up for that share too, the
 * first alone and the others together, and two that fail so again alone.
 * Before, a context's first call on a second share connected inside the
 * call, beside the others, and those two calls failed. */
static void
test_second_share (void)
{
  FakeSmbCounts c;
  Start start;

  reset (0, NULL);
  stat_at_once_then (&start, "smb://lab@fake/source/photo.jpg", "smb://lab@fake/target/photo.jpg", THREADS);
  get_counts (&c);
  for (int i = 0; i < THREADS; i++)
    g_assert_cmpint (start.results[i], ==, 0);
  g_assert_cmpint (c.failed_together, ==, 2);
  g_assert_cmpint (c.again_alone, ==, 2);
}

static void (*set_listing) (int);
static const char *(*listed) (int, struct stat *);

/* Lists the root of @url's share; @url names a share of the test's own. */
static GPtrArray *
list_share (const char *url)
{
  CsCounters counters = { 0 };
  GPtrArray *entries = g_ptr_array_new_with_free_func (g_free);
  int fd = _cs_io_openat (&counters, CS_IO_AT_LOCATION, url, O_RDONLY | O_DIRECTORY, 0);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (_cs_io_readdirplus (&counters, fd, entries), ==, 0);
  _cs_io_close (&counters, fd);
  g_assert_cmpuint (entries->len, ==, FAKE_SMB_LISTED - 2);
  return entries;
}

/* Each entry's stat is the library's readdirplus2's, but the inode number
 * (a listing's is never compared). */
static void
assert_stats_are_the_library_s (GPtrArray *entries)
{
  for (guint i = 0; i < entries->len; i++)
    {
      const CsIoListed *e = g_ptr_array_index (entries, i);
      struct stat want;
      const char *name = listed ((int) i + 2, &want);

      g_assert_cmpstr (e->name, ==, name);
      g_assert_cmpuint (e->st.st_mode, ==, want.st_mode);
      g_assert_cmpint (e->st.st_size, ==, want.st_size);
      g_assert_cmpint (e->st.st_blocks, ==, want.st_blocks);
      g_assert_cmpuint (e->st.st_nlink, ==, want.st_nlink);
      g_assert_cmpuint (e->st.st_uid, ==, want.st_uid);
      g_assert_cmpuint (e->st.st_gid, ==, want.st_gid);
      g_assert_cmpuint (e->st.st_dev, ==, want.st_dev);
      g_assert_cmpint (e->st.st_mtim.tv_sec, ==, want.st_mtim.tv_sec);
      g_assert_cmpint (e->st.st_mtim.tv_nsec, ==, want.st_mtim.tv_nsec);
      g_assert_cmpint (e->st.st_ctim.tv_sec, ==, want.st_ctim.tv_sec);
      g_assert_cmpint (e->st.st_ctim.tv_nsec, ==, want.st_ctim.tv_nsec);
      g_assert_cmpint (e->st.st_atim.tv_sec, ==, want.st_atim.tv_sec);
      g_assert_cmpint (e->st.st_atim.tv_nsec, ==, want.st_atim.tv_nsec);
    }
}

/* libsmbclient's readdirplus2 parses the folder's URL again for each
 * entry it makes a stat of (setting the context's credentials from the
 * configuration, a scan of its parameter table by name): a fifth of a
 * no-op rerun's CPU. A listing takes its first folder's and file's stats
 * from it, and the others' from readdirplus, made by the same rules:
 * before, all 30 from readdirplus2. Folders, read-only, hidden and system
 * files among them. */
static void
test_listing_stats (void)
{
  g_autoptr(GPtrArray) entries = NULL;
  FakeSmbCounts c;

  reset (0, NULL);
  entries = list_share ("smb://lab@fake/listing");
  get_counts (&c);
  g_test_message ("readdirplus2: %d entries, readdirplus: %d", c.listed_plus2, c.listed_plus);
  assert_stats_are_the_library_s (entries);
  g_assert_cmpint (c.listed_plus2, <=, 4);
  g_assert_cmpint (c.listed_plus2 + c.listed_plus, ==, FAKE_SMB_LISTED);
}

/* A library whose readdirplus2 makes its stats otherwise: every entry's
 * stat comes from it, in that listing and the run's later ones. */
static void
test_listing_stats_otherwise (void)
{
  g_autoptr(GPtrArray) first = NULL;
  g_autoptr(GPtrArray) later = NULL;
  FakeSmbCounts c;

  reset (0, NULL);
  set_listing (TRUE);
  first = list_share ("smb://lab@fake/otherwise");
  later = list_share ("smb://lab@fake/otherwise");
  get_counts (&c);
  assert_stats_are_the_library_s (first);
  assert_stats_are_the_library_s (later);
  g_assert_cmpint (c.listed_plus2, ==, 2 * FAKE_SMB_LISTED);
  set_listing (FALSE);
}

int
main (int argc, char *argv[])
{
  void *fake;

  g_test_init (&argc, &argv, NULL);
  /* The same library the engine opens, by the same name. */
  fake = dlopen ("libsmbclient.so.0", RTLD_NOW | RTLD_LOCAL);
  if (fake == NULL || (reset = dlsym (fake, "fake_smb_reset")) == NULL
      || (get_counts = dlsym (fake, "fake_smb_get_counts")) == NULL
      || (set_listing = dlsym (fake, "fake_smb_set_listing")) == NULL
      || (listed = dlsym (fake, "fake_smb_listed")) == NULL)
    g_error ("the fake libsmbclient.so.0 is not first in LD_LIBRARY_PATH");
  g_test_add_func ("/smb-connect/together", test_together);
  g_test_add_func ("/smb-connect/again-alone", test_again_alone);
  g_test_add_func ("/smb-connect/refused", test_refused);
  g_test_add_func ("/smb-connect/refused-then-given", test_refused_then_given);
  g_test_add_func ("/smb-connect/second-share", test_second_share);
  g_test_add_func ("/smb-connect/listing-stats", test_listing_stats);
  /* Last: the run keeps to the library's stats once it saw them differ. */
  g_test_add_func ("/smb-connect/listing-stats-otherwise", test_listing_stats_otherwise);
  return g_test_run ();
}
