/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-report"

#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <json-glib/json-glib.h>

#include "cs-report-csv.h"
#include "cs-run.h"

int LLVMFuzzerTestOneInput (const uint8_t *data,
                            size_t         size);

/*
 * Any input must either import or fail with a CsRunError, never crash or
 * hang; and whatever imports must survive its own export unchanged. The input
 * goes through cs_run_load, by way of an in-memory file, so the size, depth
 * and value-count limits are fuzzed too.
 */
int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CsRun) run = NULL;
  g_autoptr(CsRun) again = NULL;
  g_autoptr(JsonParser) reparser = NULL;
  g_autofree char *path = NULL;
  g_autofree char *json = NULL;
  g_autofree char *json_again = NULL;
  int fd;

  fd = memfd_create ("run.json", MFD_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, data, size), ==, (gssize) size);
  path = g_strdup_printf ("/proc/self/fd/%d", fd);

  run = cs_run_load (path, &error);
  close (fd);
  if (run == NULL)
    {
      g_assert_true (error->domain == CS_RUN_ERROR);
      g_assert_null (strchr (error->message, '\n'));
      return 0;
    }

  json = cs_run_to_json_string (run, FALSE);
  reparser = json_parser_new_immutable ();
  if (!json_parser_load_from_data (reparser, json, -1, &error))
    g_error ("export of an imported run is not JSON: %s", error->message);
  again = cs_run_new_from_json (json_parser_get_root (reparser), &error);
  if (again == NULL)
    g_error ("export of an imported run does not import: %s", error->message);
  json_again = cs_run_to_json_string (again, FALSE);
  g_assert_cmpstr (json, ==, json_again);

  {
    g_autofree char *csv = cs_report_samples_to_csv (run);

    g_assert_nonnull (csv);
  }

  return 0;
}

#ifdef CS_FUZZ_REPLAY
int
main (int   argc,
      char *argv[])
{
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  const char *name;

  if (argc != 2)
    {
      fprintf (stderr, "usage: %s CORPUS-DIR\n", argv[0]);
      return 2;
    }

  dir = g_dir_open (argv[1], 0, &error);
  g_assert_no_error (error);
  while ((name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, (GCompareFunc) g_strcmp0);
  g_assert_cmpuint (names->len, >, 0);

  printf ("1..%u\n", names->len);
  for (guint i = 0; i < names->len; i++)
    {
      const char *base = *(const char **) &names->pdata[i];
      g_autofree char *path = g_build_filename (argv[1], base, NULL);
      g_autofree char *contents = NULL;
      g_autoptr(GError) load_error = NULL;
      g_autoptr(CsRun) run = NULL;
      gsize len = 0;

      g_file_get_contents (path, &contents, &len, &error);
      g_assert_no_error (error);
      LLVMFuzzerTestOneInput ((const uint8_t *) contents, len);

      /* Once more for the report line. */
      run = cs_run_load (path, &load_error);
      printf ("ok %u %s: %s\n", i + 1, base, run != NULL ? "imported" : load_error->message);
    }

  return 0;
}
#endif
