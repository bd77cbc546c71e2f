/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-fuzz"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cs-cli.h"
#include "cs-io-private.h"

int LLVMFuzzerTestOneInput (const uint8_t *data,
                            size_t         size);

/*
 * The copy subcommand's option parsing, fed argv vectors: the input is split
 * at NUL bytes into arguments after "copy". Any vector must end in one of the
 * documented exit codes, never a crash, a hang or a write outside the sandbox.
 *
 * The sandbox: each vector runs in a fresh temporary folder; every '/' in an
 * argument becomes '_' and ".." becomes "__", so every path is a name in that
 * folder; the engine's I/O table refuses every open and create, so a vector
 * that parses starts a job that copies nothing. Help options are defused
 * because GOption answers them with exit(0).
 */

#define MAX_ARGS 64

static int
deny_openat (int dirfd, const char *path, int flags, mode_t mode)
{
  errno = EACCES;
  return -1;
}

static int
deny_mkdirat (int dirfd, const char *path, mode_t mode)
{
  errno = EACCES;
  return -1;
}

static CsIoTable deny_table;
static char *sandbox;

static void
setup_once (void)
{
  static gboolean done;
  g_autoptr(GError) error = NULL;

  if (done)
    return;
  done = TRUE;
  sandbox = g_dir_make_tmp ("cs-fuzz-cli-XXXXXX", &error);
  g_assert_no_error (error);
  g_setenv ("XDG_DATA_HOME", sandbox, TRUE);
  g_setenv ("XDG_CONFIG_HOME", sandbox, TRUE);

  deny_table = *_cs_io_get_default ();
  deny_table.openat = deny_openat;
  deny_table.mkdirat = deny_mkdirat;
  _cs_io_set (&deny_table);

  /* The CLI's messages are expected; the fuzzer's own output is what counts. */
  if (g_getenv ("CS_FUZZ_VERBOSE") == NULL)
    {
      FILE *null = freopen ("/dev/null", "w", stderr);
      g_assert_nonnull (null);
    }
}

static char *
defuse (const char *arg)
{
  GString *s = g_string_new (arg);

  g_strdelimit (s->str, "/", '_');
  if (strcmp (s->str, "..") == 0)
    g_string_assign (s, "__");
  if (g_str_has_prefix (s->str, "--help"))
    s->str[2] = 'x';
  else if (s->str[0] == '-' && s->str[1] != '-')
    g_strdelimit (s->str, "h?", 'x');
  return g_string_free (s, FALSE);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  g_autofree char **argv = NULL;
  gsize start = 0;
  int status, argc;

  setup_once ();

  g_ptr_array_add (args, g_strdup ("copy"));
  for (gsize i = 0; i <= size && args->len < MAX_ARGS; i++)
    if (i == size || data[i] == '\0')
      {
        g_autofree char *raw = g_strndup ((const char *) data + start, i - start);

        if (i > start || i < size)
          g_ptr_array_add (args, defuse (raw));
        start = i + 1;
      }

  /* GOption rearranges argv; the strings stay ours. */
  argc = (int) args->len;
  argv = g_new0 (char *, args->len + 1);
  memcpy (argv, args->pdata, args->len * sizeof (char *));

  /* Only for the call: the fuzzer keeps its corpus and artifacts where it was
   * started. */
  {
    int here = open (".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    g_assert_cmpint (here, >=, 0);
    g_assert_cmpint (chdir (sandbox), ==, 0);
    status = cs_cli_copy (argc, argv);
    g_assert_cmpint (fchdir (here), ==, 0);
    close (here);
  }
  switch (status)
    {
    case CS_EXIT_OK:
    case CS_EXIT_FAILED:
    case CS_EXIT_USAGE:
    case CS_EXIT_FATAL:
    case CS_EXIT_MISMATCH:
    case CS_EXIT_INTERRUPTED:
      break;
    default:
      g_error ("cs_cli_copy returned %d, not a documented exit code", status);
    }
  return 0;
}

#ifdef CS_FUZZ_REPLAY
static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* Replays a corpus as TAP, each input in a child of its own so one crash is
 * one failed line. Every input must pass. */
int
main (int   argc,
      char *argv[])
{
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *corpus = NULL;
  const char *name;
  guint failed = 0;

  if (argc != 2)
    {
      fprintf (stdout, "usage: %s CORPUS-DIR\n", argv[0]);
      return 2;
    }
  corpus = g_canonicalize_filename (argv[1], NULL);

  dir = g_dir_open (corpus, 0, &error);
  g_assert_no_error (error);
  while ((name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  g_assert_cmpuint (names->len, >, 0);

  /* One sandbox for all the children, removed at the end. */
  setup_once ();
  printf ("1..%u\n", names->len);
  fflush (stdout);
  for (guint i = 0; i < names->len; i++)
    {
      const char *base = g_ptr_array_index (names, i);
      g_autofree char *path = g_build_filename (corpus, base, NULL);
      g_autofree char *contents = NULL;
      gsize len = 0;
      int status = 0;
      pid_t pid;

      g_file_get_contents (path, &contents, &len, &error);
      g_assert_no_error (error);
      pid = fork ();
      g_assert_cmpint (pid, >=, 0);
      if (pid == 0)
        {
          LLVMFuzzerTestOneInput ((const uint8_t *) contents, len);
          _exit (0);
        }
      g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
      if (WIFEXITED (status) && WEXITSTATUS (status) == 0)
        printf ("ok %u %s\n", i + 1, base);
      else
        {
          printf ("not ok %u %s\n", i + 1, base);
          failed++;
        }
      fflush (stdout);
    }

  {
    const char *rm[] = { "rm", "-rf", sandbox, NULL };

    g_spawn_sync (NULL, (char **) rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
  }
  return failed > 0 ? 1 : 0;
}
#endif
