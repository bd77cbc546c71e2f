/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include "test-cli.h"

/* What a run writes: the JSON record to a file or stdout, CSV, reports with
 * charts, absolute paths, the log and the limits. */

/* Reports */

void
test_json_file (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *src = fixture_path (f, "src");
  g_autofree char *dst = fixture_path (f, "dst");
  g_autofree char *json = fixture_path (f, "run.json");
  g_autoptr(JsonNode) root = NULL;
  g_auto(CliResult) r = { 0 };
  JsonObject *object;
  JsonObject *settings;
  JsonArray *sources;
  gint64 bytes;

  make_sample_tree (src);
  bytes = (gint64) cs_test_tree_sum_file_sizes (src);
  run_cli (&r, "copy", "--threads", "3", "--json", json, src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);

  root = load_json (json);
  object = json_node_get_object (root);
  g_assert_cmpint (json_object_get_int_member (object, "schema_version"), ==,
                   CS_RUN_SCHEMA_VERSION);
  g_assert_cmpstr (json_string (root, "outcome"), ==, "completed");
  g_assert_cmpstr (json_string (root, "destination"), ==, dst);
  sources = json_object_get_array_member (object, "sources");
  g_assert_cmpuint (json_array_get_length (sources), ==, 1);
  g_assert_cmpstr (json_array_get_string_element (sources, 0), ==, src);
  settings = json_object_get_object_member (object, "settings");
  g_assert_cmpint (json_object_get_int_member (settings, "threads"), ==, 3);

  g_assert_cmpint (json_total (root, "copied", "bytes"), ==, bytes);
  g_assert_cmpint (json_total (root, "total", "bytes"), ==, bytes);
  g_assert_cmpint (json_total (root, "copied", "files"), ==, count_items (src));
  g_assert_cmpint (json_total (root, "failed", "files"), ==, 0);
  g_assert_cmpuint (json_n_errors (root), ==, 0);

  /* The summary table says the same. */
  g_assert_cmpuint (summary_value (r.out, "Files", 1), ==, count_items (src));
  cs_test_tree_assert_equal (src, dst);
}

void
test_json_stdout (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *src = fixture_path (f, "src");
  g_autofree char *dst = fixture_path (f, "dst");
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_auto(CliResult) r = { 0 };
  JsonNode *root;

  make_sample_tree (src);
  run_cli (&r, "copy", "--json", "-", src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);

  /* Only JSON on stdout: the whole of it parses as one object. */
  g_assert_true (r.out[0] == '{');
  json_parser_load_from_data (parser, r.out, -1, &error);
  g_assert_no_error (error);
  root = json_parser_get_root (parser);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (root), "schema_version"), ==,
                   CS_RUN_SCHEMA_VERSION);
  g_assert_cmpint (json_total (root, "copied", "bytes"), ==,
                   (gint64) cs_test_tree_sum_file_sizes (src));
  /* The summary moved to stderr. */
  g_assert_nonnull (strstr (r.err, "Copied"));
  cs_test_tree_assert_equal (src, dst);
}

void
test_csv (Fixture       *f,
          gconstpointer  data)
{
  const char *src = get_shared_small ();
  g_autofree char *dst = fixture_path (f, "dst");
  g_autofree char *json = fixture_path (f, "run.json");
  g_autofree char *csv = fixture_path (f, "run.csv");
  g_autofree char *text = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_auto(GStrv) lines = NULL;
  g_auto(GStrv) header = NULL;
  g_auto(CliResult) r = { 0 };
  JsonObject *samples;
  JsonArray *times;
  guint n_rows = 0;
  double last_t = -1;

  run_cli (&r, "copy", "-q", "--no-flush", "--interval", "100", "--json", json, "--csv", csv,
           src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);

  root = load_json (json);
  samples = json_object_get_object_member (json_node_get_object (root), "samples");
  times = json_object_get_array_member (samples, "t");
  g_assert_cmpuint (json_array_get_length (times), >=, 1);

  text = read_file (csv);
  g_assert_true (g_str_has_prefix (text, "t,"));
  lines = g_strsplit (text, "\n", -1);
  header = g_strsplit (g_strchomp (lines[0]), ",", -1);
  g_assert_cmpstr (header[0], ==, "t");
  g_assert_true (g_strv_contains ((const char * const *) header, "threads"));
  for (guint i = 1; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = NULL;
      char *end = NULL;
      double t;

      g_strchomp (lines[i]);
      if (lines[i][0] == '\0')
        continue;
      fields = g_strsplit (lines[i], ",", -1);
      g_assert_cmpuint (g_strv_length (fields), ==, g_strv_length (header));
      t = g_ascii_strtod (fields[0], &end);
      g_assert_true (end != fields[0] && *end == '\0');
      g_assert_cmpfloat (t, >=, last_t);
      last_t = t;
      n_rows++;
    }
  g_assert_cmpuint (n_rows, ==, json_array_get_length (times));
}

/* A saved run of a small copy, for the report tests. */
static char *
saved_run (Fixture *f)
{
  g_autofree char *src = fixture_path (f, "src");
  g_autofree char *dst = fixture_path (f, "dst");
  char *json = fixture_path (f, "run.json");
  g_auto(CliResult) r = { 0 };

  make_sample_tree (src);
  run_cli (&r, "copy", "--quiet", "--no-history", "--json", json, src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  return json;
}

static void
assert_file_starts_with (const char *path,
                         const char *magic,
                         gsize       magic_len)
{
  g_autofree char *contents = NULL;
  gsize len = 0;

  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  g_assert_cmpuint (len, >, magic_len);
  g_assert_cmpmem (contents, magic_len, magic, magic_len);
}

void
test_report_charts (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *json = saved_run (f);
  static const struct {
    const char *name;
    const char *magic;
    gsize       magic_len;
  } outputs[] = {
    { "chart.png", "\x89PNG\r\n\x1a\n", 8 },
    { "chart.svg", "<?xml", 5 },
    { "chart.pdf", "%PDF-", 5 },
    { "report.html", "<!DOCTYPE html>", 15 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (outputs); i++)
    {
      g_autofree char *out = fixture_path (f, outputs[i].name);
      g_auto(CliResult) r = { 0 };

      run_cli (&r, "report", json, "-o", out, NULL);
      g_assert_cmpint (r.status, ==, 0);
      assert_file_starts_with (out, outputs[i].magic, outputs[i].magic_len);
    }

  /* The HTML report carries its chart inline. */
  {
    g_autofree char *html = fixture_path (f, "report.html");
    g_autofree char *contents = NULL;

    g_assert_true (g_file_get_contents (html, &contents, NULL, NULL));
    g_assert_nonnull (strstr (contents, "<svg"));
  }
}

/* report --format trace, sysprof and --chart phases: a record with phases
 * made through the writers gives each, and so does a real copy's (the
 * engine records them); a record without them (one from before they were
 * kept) is refused with a message. */
void
test_report_trace (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *plain = saved_run (f);
  g_autofree char *json = fixture_path (f, "phases.json");
  g_autofree char *trace = fixture_path (f, "copy.json");
  g_autofree char *capture = fixture_path (f, "copy.syscap");
  g_autofree char *chart = fixture_path (f, "phases.png");
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonNode) record = load_json (plain);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  /* The phases as the record's writer puts them (cs-run-phases.c). */
  json_parser_load_from_data (parser,
                              "{\"ids\": [\"opening\", \"writing\"],"
                              " \"totals\": {\"opening\": 0.5, \"writing\": 0.5},"
                              " \"samples\": {\"t\": [1.0], \"opening\": [500], \"writing\": [500]},"
                              " \"buckets\": {\"width\": 1.0, \"t\": [], \"t_start\": [], \"n\": []},"
                              " \"lanes\": [{\"worker\": 0, \"t_us\": [0, 500000], \"phase\": [0, 1]}]}",
                              -1, &error);
  g_assert_no_error (error);
  json_object_set_member (json_node_get_object (record), "phases",
                          json_node_copy (json_parser_get_root (parser)));
  text = json_to_string (record, FALSE);
  g_assert_true (g_file_set_contents (json, text, -1, &error));
  g_assert_no_error (error);

  {
    g_auto(CliResult) r = { 0 };

    run_cli (&r, "report", json, "--format", "trace", "-o", trace, NULL);
    g_assert_cmpint (r.status, ==, 0);
    root = load_json (trace);
    g_assert_nonnull (json_object_get_array_member (json_node_get_object (root), "traceEvents"));
  }
#ifdef HAVE_SYSPROF
  {
    g_auto(CliResult) r = { 0 };

    run_cli (&r, "report", json, "--format", "sysprof", "-o", capture, NULL);
    g_assert_cmpint (r.status, ==, 0);
    g_assert_true (g_file_test (capture, G_FILE_TEST_IS_REGULAR));
  }
#endif
  {
    g_auto(CliResult) r = { 0 };

    run_cli (&r, "report", json, "--chart", "phases", "-o", chart, NULL);
    g_assert_cmpint (r.status, ==, 0);
    assert_file_starts_with (chart, "\x89PNG\r\n\x1a\n", 8);
  }
  {
    g_auto(CliResult) r = { 0 };
    g_autoptr(JsonNode) real = NULL;

    run_cli (&r, "report", plain, "--format", "trace", "-o", trace, NULL);
    g_assert_cmpint (r.status, ==, 0);
    real = load_json (trace);
    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (json_node_get_object (real), "traceEvents")), >, 0);
  }
  {
    g_auto(CliResult) r = { 0 };
    g_autofree char *bare = fixture_path (f, "bare.json");
    g_autofree char *bare_text = NULL;

    json_object_remove_member (json_node_get_object (record), "phases");
    json_object_remove_member (json_node_get_object (record), "latency");
    bare_text = json_to_string (record, FALSE);
    g_assert_true (g_file_set_contents (bare, bare_text, -1, &error));
    g_assert_no_error (error);
    run_cli (&r, "report", bare, "--format", "trace", "-o", trace, NULL);
    g_assert_cmpint (r.status, ==, 3);
    g_assert_nonnull (strstr (r.err, "no phase data"));
  }
  {
    g_auto(CliResult) r = { 0 };

    run_cli (&r, "report", json, "--format", "sysprof", NULL);
    g_assert_cmpint (r.status, ==, 2);
  }
}

/* The record says where the files were and went, absolute, wherever the CLI
 * ran from; `history` shows the same. */
void
test_record_absolute_paths (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *home = fixture_path (f, "home");
  g_autofree char *src = fixture_path (f, "work/src");
  g_autofree char *dst = fixture_path (f, "work/out");
  g_autofree char *work = fixture_path (f, "work");
  g_autofree char *json = fixture_path (f, "run.json");
  g_autofree char *shown = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GPtrArray) records = NULL;
  JsonObject *o;
  g_auto(CliResult) r = { 0 };

  make_sample_tree (src);
  make_dir (dst, 0755);

  run_cli_at (&r, work, home, "copy", "--quiet", "--json", json, "./src/", "../work/out", NULL);
  g_assert_cmpint (r.status, ==, 0);

  records = history_records (home);
  g_assert_cmpuint (records->len, ==, 1);
  for (guint i = 0; i < 2; i++)
    {
      g_clear_pointer (&root, json_node_unref);
      root = load_json (i == 0 ? json : g_ptr_array_index (records, 0));
      o = json_node_get_object (root);
      g_assert_cmpuint (json_array_get_length (json_object_get_array_member (o, "sources")), ==, 1);
      g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (o, "sources"), 0), ==, src);
      g_assert_cmpstr (json_object_get_string_member (o, "destination"), ==, dst);
    }

  run_cli_at (&r, "/", home, "history", NULL);
  g_assert_cmpint (r.status, ==, 0);
  shown = g_strdup_printf ("%s → %s", src, dst);
  g_assert_nonnull (strstr (r.out, shown));
}

/* --log writes a line per file; --max-rate and --max-files reach the record. */
void
test_log_and_limits (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *src = fixture_path (f, "src");
  g_autofree char *dst = fixture_path (f, "dst");
  g_autofree char *log = fixture_path (f, "copy.log");
  g_autofree char *json = fixture_path (f, "run.json");
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;
  g_auto(CliResult) r = { 0 };
  JsonObject *settings;

  make_sample_tree (src);
  run_cli (&r, "copy", "--log", log, "--json", json, "--max-rate", "2.5G", "--max-files", "1e4/s",
           src, dst, NULL);
  g_assert_cmpint (r.status, ==, 0);
  text = read_file (log);
  g_assert_cmpuint (count_lines (text), ==, cs_test_tree_count_files (src) + cs_test_tree_count_symlinks (src));
  g_assert_true (g_str_has_prefix (text, "copied\t"));
  g_assert_nonnull (strstr (r.out, "Limits"));
  root = load_json (json);
  settings = json_object_get_object_member (json_node_get_object (root), "settings");
  g_assert_cmpfloat (json_object_get_double_member (settings, "max_rate"), ==, 2.5e9);
  g_assert_cmpfloat (json_object_get_double_member (settings, "max_files"), ==, 1e4);
  g_assert_cmpstr (json_object_get_string_member (settings, "operation"), ==, "copy");
}
