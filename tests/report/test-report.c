/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-report"

#include "config.h"

#include <errno.h>
#include <locale.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "cs-report.h"
#include "cs-report-csv.h"
#include "cs-run-private.h"
#include "report-fixtures.h"

#define ID_T1 "0b6e1a0c-6a43-4b52-9d0e-6f1c2d3e4a51"
#define ID_T2 "0b6e1a0c-6a43-4b52-9d0e-6f1c2d3e4a52"

static char *
render_text (CsRun              **runs,
             guint                n_runs,
             const char * const  *labels,
             CsReportFormat       format)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = cs_report_render (runs, n_runs, labels, format, &error);
  gsize len = 0;
  const char *data;

  g_assert_no_error (error);
  g_assert_nonnull (bytes);
  data = g_bytes_get_data (bytes, &len);
  g_assert_true (g_utf8_validate (data, (gssize) len, NULL));
  g_assert_null (memchr (data, '\0', len));

  return g_strndup (data, len);
}

/* Set CS_UPDATE_GOLDEN=1 to rewrite the golden files after a deliberate change;
 * inspect the diff before committing it. */
static void
assert_golden (const char *text,
               const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "report", "golden", name, NULL);
  g_autofree char *expected = NULL;
  g_autoptr(GError) error = NULL;

  if (g_getenv ("CS_UPDATE_GOLDEN") != NULL)
    {
      g_file_set_contents (path, text, -1, &error);
      g_assert_no_error (error);
      return;
    }

  g_file_get_contents (path, &expected, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, expected);
}

static GPtrArray *
two_runs (void)
{
  GPtrArray *runs = g_ptr_array_new_with_free_func ((GDestroyNotify) cs_run_unref);

  g_ptr_array_add (runs, fixture_run ("T1", ID_T1, 1, 1.0));
  g_ptr_array_add (runs, fixture_run ("T2", ID_T2, 2, 1.5));

  return runs;
}

static void
test_report_formats (void)
{
  CsReportFormat format;

  g_assert_true (cs_report_format_from_string ("MD", &format));
  g_assert_cmpint (format, ==, CS_REPORT_FORMAT_MARKDOWN);
  g_assert_true (cs_report_format_from_string ("markdown", &format));
  g_assert_cmpint (format, ==, CS_REPORT_FORMAT_MARKDOWN);
  g_assert_true (cs_report_format_from_string ("htm", &format));
  g_assert_cmpint (format, ==, CS_REPORT_FORMAT_HTML);
  g_assert_true (cs_report_format_from_string ("pdf", &format));
  g_assert_cmpint (format, ==, CS_REPORT_FORMAT_PDF);
  g_assert_false (cs_report_format_from_string ("docx", &format));
  g_assert_false (cs_report_format_from_string ("", &format));

  g_assert_true (cs_report_format_is_text (CS_REPORT_FORMAT_CSV));
  g_assert_false (cs_report_format_is_text (CS_REPORT_FORMAT_PNG));
  g_assert_cmpstr (cs_report_format_get_extension (CS_REPORT_FORMAT_MARKDOWN), ==, "md");
  g_assert_cmpstr (cs_report_format_get_content_type (CS_REPORT_FORMAT_SVG), ==, "image/svg+xml");
}

static void
test_report_golden (void)
{
  g_autoptr(GPtrArray) array = two_runs ();
  CsRun **runs = (CsRun **) array->pdata;
  g_autofree char *single_md = render_text (runs, 1, NULL, CS_REPORT_FORMAT_MARKDOWN);
  g_autofree char *compare_md = render_text (runs, 2, NULL, CS_REPORT_FORMAT_MARKDOWN);
  g_autofree char *single_csv = render_text (runs, 1, NULL, CS_REPORT_FORMAT_CSV);
  g_autofree char *compare_csv = render_text (runs, 2, NULL, CS_REPORT_FORMAT_CSV);

  assert_golden (single_md, "single.md");
  assert_golden (compare_md, "compare.md");
  assert_golden (single_csv, "single.csv");
  assert_golden (compare_csv, "compare.csv");
}

static void
test_report_json (void)
{
  g_autoptr(GPtrArray) array = two_runs ();
  CsRun **runs = (CsRun **) array->pdata;
  g_autofree char *single = render_text (runs, 1, NULL, CS_REPORT_FORMAT_JSON);
  g_autofree char *compare = render_text (runs, 2, (const char * const[]) { "one", "two", NULL },
                                          CS_REPORT_FORMAT_JSON);
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(CsRun) back = NULL;
  g_autofree char *again = NULL;
  JsonObject *root;
  JsonArray *embedded;

  /* A single run exports exactly as it saves. */
  again = cs_run_to_json_string (runs[0], TRUE);
  g_assert_cmpstr (single, ==, again);

  node = json_from_string (compare, &error);
  g_assert_no_error (error);
  root = json_node_get_object (node);
  g_assert_cmpint (json_object_get_int_member (root, "schema_version"), ==, CS_RUN_SCHEMA_VERSION);
  g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (root, "labels"), 1), ==, "two");
  g_assert_nonnull (strstr (json_object_get_string_member (root, "verdict"), "out of"));

  embedded = json_object_get_array_member (root, "runs");
  g_assert_cmpuint (json_array_get_length (embedded), ==, 2);
  back = cs_run_new_from_json (json_array_get_element (embedded, 1), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (cs_run_get_id (back), ==, ID_T2);
}

static void
test_report_graphics (void)
{
  g_autoptr(GPtrArray) array = two_runs ();
  CsRun **runs = (CsRun **) array->pdata;
  static const struct {
    CsReportFormat  format;
    const char     *magic;
  } cases[] = {
    { CS_REPORT_FORMAT_PNG, "\x89PNG" },
    { CS_REPORT_FORMAT_SVG, "<?xml" },
    { CS_REPORT_FORMAT_PDF, "%PDF" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    for (guint n = 1; n <= 2; n++)
      {
        g_autoptr(GError) error = NULL;
        g_autoptr(GBytes) bytes = cs_report_render (runs, n, NULL, cases[i].format, &error);
        gsize len = 0;
        const char *data;

        g_assert_no_error (error);
        data = g_bytes_get_data (bytes, &len);
        g_assert_cmpuint (len, >, 100);
        g_assert_cmpmem (data, strlen (cases[i].magic), cases[i].magic, strlen (cases[i].magic));
      }
}

static void
test_report_html (void)
{
  g_autoptr(GPtrArray) array = two_runs ();
  CsRun **runs = (CsRun **) array->pdata;
  g_autofree char *single = render_text (runs, 1, NULL, CS_REPORT_FORMAT_HTML);
  g_autofree char *compare = render_text (runs, 2, NULL, CS_REPORT_FORMAT_HTML);

  for (guint i = 0; i < 2; i++)
    {
      const char *html = i == 0 ? single : compare;
      const char *svg = strstr (html, "<svg");

      g_assert_true (g_str_has_prefix (html, "<!DOCTYPE html>"));
      g_assert_true (g_str_has_suffix (html, "</html>\n"));
      /* One self-contained file: the chart inline, nothing fetched. */
      g_assert_nonnull (svg);
      g_assert_nonnull (strstr (svg, "</svg>"));
      g_assert_null (strstr (html, "<?xml"));
      g_assert_null (strstr (html, "src=\"http"));
      g_assert_null (strstr (html, "<link"));
      g_assert_nonnull (strstr (html, "<style>"));
      g_assert_nonnull (strstr (html, "MB = 10^6 bytes"));
    }

  g_assert_nonnull (strstr (compare, "achieves better results in"));
  g_assert_nonnull (strstr (compare, "<h3>T1 vs. T2 - Data Transfer Rate</h3>"));
  g_assert_nonnull (strstr (single, "<h1>Copyscope run report: T1</h1>"));
}

/* A note (what the destination did not keep) is listed as a note, apart from
 * the failures, in every format. */
static void
test_report_notes (void)
{
  g_autoptr(CsRun) run = fixture_run ("T1", ID_T1, 2, 1.0);
  CsRun *runs[] = { run };
  const char note[] = "The destination does not keep permissions: 3 files have other permissions "
                      "there than at the source (for example “a.jpg”)";
  g_autofree char *md = NULL;
  g_autofree char *html = NULL;
  g_autofree char *csv = NULL;
  const char *failures, *notes;

  _cs_run_add_note (run, "/mnt/nas", "chmod", EPERM, note);

  md = render_text (runs, 1, NULL, CS_REPORT_FORMAT_MARKDOWN);
  failures = strstr (md, "## Failures\n");
  notes = strstr (md, "## Notes\n");
  g_assert_nonnull (failures);
  g_assert_nonnull (notes);
  g_assert_cmpuint (notes - md, >, failures - md);
  /* The failure in its table, the note in its own, after it. */
  g_assert_cmpuint (strstr (md, "Permission denied") - md, <, notes - md);
  g_assert_cmpuint (strstr (md, "does not keep permissions") - md, >, notes - md);
  g_assert_nonnull (strstr (notes, "| Path | Operation | Note |"));

  html = render_text (runs, 1, NULL, CS_REPORT_FORMAT_HTML);
  g_assert_cmpuint (strstr (html, "does not keep permissions") - html, >, strstr (html, "<h2>Notes</h2>") - html);

  csv = render_text (runs, 1, NULL, CS_REPORT_FORMAT_CSV);
  g_assert_nonnull (strstr (csv, "\r\npath,operation,error_code,message,attempts\r\n"));
  g_assert_nonnull (strstr (csv, "\r\npath,operation,error_code,note\r\n/mnt/nas,chmod,1,"));
}

/* Names chosen to break out of every format we write. */
static CsRun *
hostile_run (void)
{
  const char * const sources[] = { "/src/<script>alert(1)</script>", "=cmd|' /C calc'!A0", NULL };
  g_autoptr(CsRun) run = fixture_run ("T1", ID_T1, 2, 1.0);

  _cs_run_set_sources (run, sources);
  _cs_run_set_destination (run, "/dst/line\nbreak \"quoted\", comma");
  _cs_run_add_error (run, "/src/<script>alert(1)</script>", "open", EACCES, "Permission denied", 1);
  _cs_run_add_error (run, "=cmd|' /C calc'!A0", "read", EIO, "Input/output error", 2);
  _cs_run_add_error (run, "/src/bad\xff\xfename\n<img src=x onerror=alert(1)>", "open", ENOENT,
                     "@SUM(1+1)*cmd|' /C calc'!A0", 1);
  _cs_run_add_error (run, "-2+3", "stat", ENOENT, "+danger", 1);

  return g_steal_pointer (&run);
}

static void
test_report_hostile_html (void)
{
  g_autoptr(CsRun) a = hostile_run ();
  g_autoptr(CsRun) b = hostile_run ();
  CsRun *runs[] = { a, b };
  const char * const labels[] = { "<script>alert(2)</script>", "\"><img src=x onerror=alert(3)>", NULL };

  for (guint n = 1; n <= 2; n++)
    {
      g_autofree char *html = render_text (runs, n, labels, CS_REPORT_FORMAT_HTML);

      g_assert_null (strstr (html, "<script"));
      g_assert_null (strstr (html, "<img"));
      g_assert_null (strstr (html, "\">"
                                   "<img"));
      g_assert_nonnull (strstr (html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
      g_assert_nonnull (strstr (html, "&lt;img src=x onerror=alert(1)&gt;"));
      /* Invalid bytes show as \xHH, never raw, and never as a U+FFFD that
       * would make two names read alike. */
      g_assert_nonnull (strstr (html, "bad\\xff\\xfename"));
    }
}

/* Splits RFC 4180 text into records of cells. */
static GPtrArray *
parse_csv (const char *text)
{
  GPtrArray *records = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  GPtrArray *record = g_ptr_array_new_with_free_func (g_free);
  GString *cell = g_string_new (NULL);
  gboolean quoted = FALSE;

  for (const char *p = text; *p != '\0'; p++)
    {
      if (quoted)
        {
          if (*p == '"' && p[1] == '"')
            g_string_append_c (cell, *p++);
          else if (*p == '"')
            quoted = FALSE;
          else
            g_string_append_c (cell, *p);
        }
      else if (*p == '"')
        {
          g_assert_cmpuint (cell->len, ==, 0);
          quoted = TRUE;
        }
      else if (*p == ',')
        {
          g_ptr_array_add (record, g_strdup (cell->str));
          g_string_truncate (cell, 0);
        }
      else if (*p == '\r' && p[1] == '\n')
        {
          p++;
          g_ptr_array_add (record, g_strdup (cell->str));
          g_string_truncate (cell, 0);
          g_ptr_array_add (records, record);
          record = g_ptr_array_new_with_free_func (g_free);
        }
      else
        {
          /* Bare LF or CR outside quotes would split a record in a spreadsheet. */
          g_assert_true (*p != '\n' && *p != '\r');
          g_string_append_c (cell, *p);
        }
    }
  g_assert_false (quoted);
  g_assert_cmpuint (cell->len, ==, 0);
  g_assert_cmpuint (record->len, ==, 0);
  g_ptr_array_unref (record);
  g_string_free (cell, TRUE);

  return records;
}

static void
test_report_hostile_csv (void)
{
  g_autoptr(CsRun) a = hostile_run ();
  g_autoptr(CsRun) b = hostile_run ();
  CsRun *runs[] = { a, b };
  const char * const labels[] = { "=HYPERLINK(\"http://x\")", "@T2", NULL };

  for (guint n = 1; n <= 2; n++)
    {
      g_autofree char *csv = render_text (runs, n, labels, CS_REPORT_FORMAT_CSV);
      g_autoptr(GPtrArray) records = parse_csv (csv);
      guint paths_seen = 0;

      for (guint r = 0; r < records->len; r++)
        {
          GPtrArray *record = g_ptr_array_index (records, r);

          for (guint c = 0; c < record->len; c++)
            {
              const char *cell = g_ptr_array_index (record, c);
              char *end = NULL;

              if (cell[0] == '\0' || strchr ("=+-@\t\r", cell[0]) == NULL)
                continue;
              /* Only numbers we wrote ourselves may start with a sign. */
              g_ascii_strtod (cell, &end);
              if (end == NULL || *end != '\0' || end == cell)
                g_error ("cell “%s” in record %u could run as a formula", cell, r);
            }

          for (guint c = 0; c < record->len; c++)
            {
              const char *cell = g_ptr_array_index (record, c);

              if (g_str_equal (cell, "'=cmd|' /C calc'!A0") || g_str_equal (cell, "'-2+3"))
                paths_seen++;
            }
        }
      g_assert_cmpuint (paths_seen, ==, 2 * n);
      g_assert_nonnull (strstr (csv, "'@SUM(1+1)*cmd|' /C calc'!A0"));
      g_assert_nonnull (strstr (csv, "'+danger"));
      if (n == 2)
        {
          g_assert_nonnull (strstr (csv, "\"'=HYPERLINK(\"\"http://x\"\") average\""));
          g_assert_nonnull (strstr (csv, "'@T2"));
        }
    }
}

static void
test_report_hostile_markdown (void)
{
  g_autoptr(CsRun) a = hostile_run ();
  g_autoptr(CsRun) b = hostile_run ();
  CsRun *runs[] = { a, b };
  const char * const labels[] = { "T|1", "`T2`", NULL };
  g_autofree char *md = render_text (runs, 2, labels, CS_REPORT_FORMAT_MARKDOWN);

  g_assert_null (strstr (md, "<script"));
  g_assert_nonnull (strstr (md, "&lt;script&gt;"));
  g_assert_nonnull (strstr (md, "T\\|1"));
  g_assert_nonnull (strstr (md, "\\`T2\\`"));
  /* A newline in a name must not end a table row. */
  g_assert_nonnull (strstr (md, "line\\nbreak"));
}

/* cairo numbers its SVG surfaces with a process-wide counter, so two renders
 * differ in those ids and nowhere else. */
static void
assert_same_html (const char *html,
                  const char *expected)
{
  const char *svg = strstr (html, "<svg");
  const char *svg_end = strstr (html, "</svg>");
  const char *expected_svg = strstr (expected, "<svg");
  const char *expected_end = strstr (expected, "</svg>");
  g_autoptr(GRegex) ids = g_regex_new ("surface[0-9]+", 0, 0, NULL);
  g_autofree char *chart = NULL;
  g_autofree char *expected_chart = NULL;
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;

  g_assert_nonnull (svg);
  g_assert_nonnull (svg_end);
  g_assert_nonnull (expected_svg);
  g_assert_nonnull (expected_end);
  g_assert_cmpmem (html, svg - html, expected, expected_svg - expected);
  g_assert_cmpstr (svg_end, ==, expected_end);

  chart = g_strndup (svg, svg_end - svg);
  expected_chart = g_strndup (expected_svg, expected_end - expected_svg);
  a = g_regex_replace_literal (ids, chart, -1, 0, "surface", 0, NULL);
  b = g_regex_replace_literal (ids, expected_chart, -1, 0, "surface", 0, NULL);
  g_assert_cmpstr (a, ==, b);
}

/* copyscope-cli copy --csv: the samples alone. */
static void
test_report_samples_csv (void)
{
  g_autoptr(CsRun) run = fixture_run ("T1", ID_T1, 2, 1.0);
  g_autofree char *csv = cs_report_samples_to_csv (run);
  g_auto(GStrv) lines = g_strsplit (csv, "\r\n", -1);
  g_auto(GStrv) header = g_strsplit (lines[0], ",", -1);
  g_auto(GStrv) row = NULL;

  g_assert_cmpuint (g_strv_length (lines), ==, 1 + 8 + 1);
  g_assert_cmpstr (lines[9], ==, "");
  g_assert_cmpstr (header[0], ==, "t");
  g_assert_cmpstr (header[1], ==, "threads");
  g_assert_cmpstr (header[2], ==, "files_done");
  g_assert_cmpstr (header[3], ==, "bytes_done");
  g_assert_cmpstr (header[4], ==, "request_rate");
  g_assert_cmpuint (g_strv_length (header), ==, 4 + CS_N_COUNTERS - 1);

  row = g_strsplit (lines[1], ",", -1);
  g_assert_cmpuint (g_strv_length (row), ==, g_strv_length (header));
  g_assert_cmpstr (row[0], ==, "0.25");
  g_assert_cmpstr (row[1], ==, "2");
  g_assert_cmpstr (row[2], ==, "10");
  g_assert_cmpstr (row[3], ==, "1000000");
  g_assert_cmpstr (row[4], ==, "1");
  /* The NaN read latency of the third sample is an empty cell. */
  {
    g_auto(GStrv) third = g_strsplit (lines[3], ",", -1);
    guint col = 4 + CS_COUNTER_AVG_READ_REQUEST_TIME;

    g_assert_cmpstr (header[col], ==, "average_read_request_time");
    g_assert_cmpstr (third[col], ==, "");
  }
}

/* The samples' CSV byte for byte: the same rows the report's CSV (its golden
 * files) holds for the run, and the same under a locale with decimal commas. */
static void
test_report_samples_csv_golden (void)
{
  g_autoptr(CsRun) run = fixture_run ("T1", ID_T1, 2, 1.0);
  g_autofree char *csv = cs_report_samples_to_csv (run);
  g_autofree char *report = render_text (&run, 1, NULL, CS_REPORT_FORMAT_CSV);
  g_autofree char *old = g_strdup (setlocale (LC_NUMERIC, NULL));
  g_autofree char *german = NULL;

  assert_golden (csv, "samples.csv");
  g_assert_nonnull (strstr (report, csv));

  if (setlocale (LC_NUMERIC, "de_DE.UTF-8") == NULL)
    {
      g_test_skip ("The de_DE.UTF-8 locale is not installed (add it to /etc/locale.gen and run locale-gen)");
      return;
    }
  german = cs_report_samples_to_csv (run);
  setlocale (LC_NUMERIC, old);
  g_assert_cmpstr (german, ==, csv);
  g_assert_null (strstr (german, "0,25"));
}

static void
test_report_locale (void)
{
  g_autoptr(GPtrArray) array = two_runs ();
  CsRun **runs = (CsRun **) array->pdata;
  g_autofree char *old = g_strdup (setlocale (LC_NUMERIC, NULL));
  static const CsReportFormat formats[] = {
    CS_REPORT_FORMAT_MARKDOWN, CS_REPORT_FORMAT_CSV, CS_REPORT_FORMAT_JSON, CS_REPORT_FORMAT_HTML,
  };
  char *c_locale[G_N_ELEMENTS (formats)];

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    c_locale[i] = render_text (runs, 2, NULL, formats[i]);

  if (setlocale (LC_NUMERIC, "de_DE.UTF-8") == NULL)
    {
      for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
        g_free (c_locale[i]);
      g_test_skip ("The de_DE.UTF-8 locale is not installed (add it to /etc/locale.gen and run locale-gen)");
      return;
    }

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_autofree char *german = render_text (runs, 2, NULL, formats[i]);

      /* Byte for byte the same as under the C locale: dots, never commas. */
      if (formats[i] == CS_REPORT_FORMAT_HTML)
        assert_same_html (german, c_locale[i]);
      else
        g_assert_cmpstr (german, ==, c_locale[i]);
      g_free (c_locale[i]);
    }
  setlocale (LC_NUMERIC, old);
}

int
main (int   argc,
      char *argv[])
{
  setlocale (LC_ALL, "");
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/report/formats", test_report_formats);
  g_test_add_func ("/report/golden", test_report_golden);
  g_test_add_func ("/report/json", test_report_json);
  g_test_add_func ("/report/graphics", test_report_graphics);
  g_test_add_func ("/report/html", test_report_html);
  g_test_add_func ("/report/notes", test_report_notes);
  g_test_add_func ("/report/hostile/html", test_report_hostile_html);
  g_test_add_func ("/report/hostile/csv", test_report_hostile_csv);
  g_test_add_func ("/report/hostile/markdown", test_report_hostile_markdown);
  g_test_add_func ("/report/locale", test_report_locale);
  g_test_add_func ("/report/samples-csv", test_report_samples_csv);
  g_test_add_func ("/report/samples-csv/golden", test_report_samples_csv_golden);

  return g_test_run ();
}
