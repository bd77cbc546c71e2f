/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-report"

#include "config.h"

#include <errno.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include <json-glib/json-glib.h>

#include "cs-run.h"
#include "cs-run-private.h"
#include "report-fixtures.h"

#define RUN_ID "6f9619ff-8b86-4011-b42d-00c04fc964ff"

static char *
write_temp (const char *contents,
            gssize      len)
{
  g_autoptr(GError) error = NULL;
  char *path = NULL;
  int fd = g_file_open_tmp ("cs-run-XXXXXX.json", &path, &error);

  g_assert_no_error (error);
  close (fd);
  g_file_set_contents (path, contents, len, &error);
  g_assert_no_error (error);

  return path;
}

static void
assert_runs_equal (CsRun *a,
                   CsRun *b)
{
  g_autofree char *ja = cs_run_to_json_string (a, TRUE);
  g_autofree char *jb = cs_run_to_json_string (b, TRUE);
  g_autofree CsSample *sa = NULL;
  g_autofree CsSample *sb = NULL;
  guint na = 0, nb = 0;

  g_assert_cmpstr (ja, ==, jb);

  sa = cs_run_dup_samples (a, &na);
  sb = cs_run_dup_samples (b, &nb);
  g_assert_cmpuint (na, ==, nb);
  for (guint i = 0; i < na; i++)
    {
      /* Bit for bit, NaN included: memcmp on the doubles. */
      g_assert_cmpmem (&sa[i].t, sizeof (double), &sb[i].t, sizeof (double));
      for (guint c = 0; c < CS_N_COUNTERS; c++)
        {
          if (isnan (sa[i].values[c]))
            g_assert_true (isnan (sb[i].values[c]));
          else
            g_assert_cmpmem (&sa[i].values[c], sizeof (double), &sb[i].values[c], sizeof (double));
        }
      g_assert_cmpuint (sa[i].files_done, ==, sb[i].files_done);
      g_assert_cmpuint (sa[i].bytes_done, ==, sb[i].bytes_done);
    }
}

static CsRun *
reload (CsRun *run)
{
  g_autofree char *json = cs_run_to_json_string (run, FALSE);
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  CsRun *copy;

  root = json_from_string (json, &error);
  g_assert_no_error (error);
  copy = cs_run_new_from_json (root, &error);
  g_assert_no_error (error);
  g_assert_nonnull (copy);

  return copy;
}

static void
test_run_defaults (void)
{
  g_autoptr(CsRun) run = cs_run_new ();
  g_autoptr(CsRun) other = cs_run_new ();
  CsStat stat;

  g_assert_true (g_uuid_string_is_valid (cs_run_get_id (run)));
  g_assert_cmpstr (cs_run_get_id (run), !=, cs_run_get_id (other));
  g_assert_cmpstr (cs_run_get_kind (run), ==, "copy");
  g_assert_cmpstr (cs_run_get_outcome (run), ==, "running");
  g_assert_null (cs_run_get_fatal_error (run));
  g_assert_cmpuint (cs_run_get_n_samples (run), ==, 0);
  g_assert_false (cs_run_get_stat (run, CS_COUNTER_REQUEST_RATE, &stat));
  g_assert_nonnull (cs_run_get_sources (run));
  g_assert_null (cs_run_get_sources (run)[0]);
  g_assert_cmpstr (cs_class_to_string (CS_CLASS_MISMATCH), ==, "mismatch");
  g_assert_cmpstr (cs_kind_to_string (CS_KIND_BYTES), ==, "bytes");

  for (CsOverwrite o = CS_OVERWRITE_NEWER; o <= CS_OVERWRITE_ASK; o++)
    {
      CsOverwrite back;

      g_assert_true (cs_overwrite_from_string (cs_overwrite_to_string (o), &back));
      g_assert_cmpint (back, ==, o);
    }
  g_assert_false (cs_overwrite_from_string ("sometimes", NULL));

  g_assert_true (g_type_is_a (CS_TYPE_RUN, G_TYPE_BOXED));
  {
    CsRun *copy = g_boxed_copy (CS_TYPE_RUN, run);

    g_assert_true (copy == run);
    g_boxed_free (CS_TYPE_RUN, copy);
  }
}

static void
test_run_stats (void)
{
  g_autoptr(CsRun) run = cs_run_new ();
  const double values[] = { 4.0, NAN, 1.0, 7.0 };
  CsStat stat;

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      CsSample sample = { 0 };

      sample.t = i;
      for (guint c = 0; c < CS_N_COUNTERS; c++)
        sample.values[c] = NAN;
      sample.values[CS_COUNTER_FILE_RATE] = values[i];
      _cs_run_add_sample (run, &sample);
    }

  g_assert_true (cs_run_get_stat (run, CS_COUNTER_FILE_RATE, &stat));
  g_assert_cmpfloat (stat.avg, ==, 4.0);
  g_assert_cmpfloat (stat.min, ==, 1.0);
  g_assert_cmpfloat (stat.max, ==, 7.0);
  /* All NaN: no data, not zero. */
  g_assert_false (cs_run_get_stat (run, CS_COUNTER_CPU_USAGE, &stat));
}

/* A day at 250 ms: 345,600 samples, kept small, its statistics exact. */
static void
test_run_long (void)
{
  g_autoptr(CsRun) run = cs_run_new ();
  g_autoptr(CsRun) copy = NULL;
  g_autoptr(GArray) series = NULL;
  g_autofree char *json = NULL;
  const guint n = 345600;
  double sum = 0, min = INFINITY, max = -INFINITY, band_max = -INFINITY;
  guint n_values = 0;
  CsStat stat;

  for (guint i = 0; i < n; i++)
    {
      CsSample sample = { 0 };

      sample.t = (i + 1) * 0.25;
      for (guint c = 0; c < CS_N_COUNTERS; c++)
        sample.values[c] = (i * 7 + c) % 1013;
      /* No reads now and then: no read latency. */
      if (i % 5 == 0)
        sample.values[CS_COUNTER_AVG_READ_REQUEST_TIME] = NAN;
      /* One spike, to be found in the band whatever it is merged with. */
      if (i == 123457)
        sample.values[CS_COUNTER_AVG_READ_REQUEST_TIME] = 5000.5;
      sample.files_done = i;
      sample.bytes_done = (guint64) i * 1000;
      _cs_run_add_sample (run, &sample);

      if (!isnan (sample.values[CS_COUNTER_AVG_READ_REQUEST_TIME]))
        {
          sum += sample.values[CS_COUNTER_AVG_READ_REQUEST_TIME];
          min = MIN (min, sample.values[CS_COUNTER_AVG_READ_REQUEST_TIME]);
          max = MAX (max, sample.values[CS_COUNTER_AVG_READ_REQUEST_TIME]);
          n_values++;
        }
    }
  _cs_run_set_duration (run, n * 0.25);

  g_assert_cmpuint (cs_run_get_n_samples (run), ==, n);
  g_assert_true (cs_run_get_stat (run, CS_COUNTER_AVG_READ_REQUEST_TIME, &stat));
  g_assert_cmpfloat (stat.avg, ==, sum / n_values);
  g_assert_cmpfloat (stat.min, ==, min);
  g_assert_cmpfloat (stat.max, ==, 5000.5);
  g_assert_cmpfloat (max, ==, 5000.5);

  /* The last ten minutes whole, the rest in at most 1024 buckets. */
  series = cs_run_dup_series (run);
  g_assert_cmpuint (series->len, <=, 1024 + 2401);
  g_assert_cmpuint (series->len, >=, 2400);
  for (guint i = 0; i < series->len; i++)
    {
      const CsBucket *b = &g_array_index (series, CsBucket, i);

      band_max = fmax (band_max, b->max[CS_COUNTER_AVG_READ_REQUEST_TIME]);
      g_assert_cmpfloat (b->t_start, <, b->sample.t);
      if (i > 0)
        g_assert_cmpfloat (b->t_start, ==, g_array_index (series, CsBucket, i - 1).sample.t);
    }
  g_assert_cmpfloat (band_max, ==, 5000.5);
  g_assert_cmpfloat (g_array_index (series, CsBucket, series->len - 1).sample.t, ==, n * 0.25);
  g_assert_cmpuint (g_array_index (series, CsBucket, series->len - 1).sample.files_done, ==, n - 1);

  json = cs_run_to_json_string (run, TRUE);
  g_test_message ("a day's record: %zu bytes, %u entries", strlen (json), series->len);
  g_assert_cmpuint (strlen (json), <=, 5 * 1000 * 1000);

  copy = reload (run);
  assert_runs_equal (run, copy);
  g_assert_cmpuint (cs_run_get_n_samples (copy), ==, n);
  g_assert_true (cs_run_get_stat (copy, CS_COUNTER_AVG_READ_REQUEST_TIME, &stat));
  g_assert_cmpfloat (stat.avg, ==, sum / n_values);
}

/* A record of version 1 holds every sample; it is reduced as it is read, its
 * statistics counted from all of them. */
static void
test_run_old_schema (void)
{
  g_autoptr(CsRun) run = fixture_run ("T1", RUN_ID, 2, 1.0);
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GString) text = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(CsRun) old = NULL;
  g_autoptr(GArray) series = NULL;
  g_autofree char *path = NULL;
  g_autofree char *doc = NULL;
  const guint n = 20000;
  double sum = 0;
  JsonObject *o;
  CsStat stat;

  doc = cs_run_to_json_string (run, FALSE);
  root = json_from_string (doc, &error);
  g_clear_pointer (&doc, g_free);
  g_assert_no_error (error);
  o = json_node_get_object (root);
  json_object_set_int_member (o, "schema_version", 1);
  json_object_remove_member (o, "buckets");
  json_object_set_string_member (o, "samples", "@@SAMPLES@@");
  doc = json_to_string (root, FALSE);

  /* Written as the old version did: every sample, every counter. */
  text = g_string_new ("{");
  g_string_append (text, "\"t\":[");
  for (guint i = 0; i < n; i++)
    g_string_append_printf (text, "%s%u.25", i > 0 ? "," : "", i);
  g_string_append (text, "],\"files_done\":[");
  for (guint i = 0; i < n; i++)
    g_string_append_printf (text, "%s%u", i > 0 ? "," : "", i);
  g_string_append (text, "],\"bytes_done\":[");
  for (guint i = 0; i < n; i++)
    g_string_append_printf (text, "%s%u", i > 0 ? "," : "", i * 10);
  for (guint c = 0; c < CS_N_COUNTERS; c++)
    {
      g_string_append_printf (text, "],\"%s\":[", cs_counter_get_info (c)->key);
      for (guint i = 0; i < n; i++)
        g_string_append_printf (text, "%s%u", i > 0 ? "," : "", (i * 3 + c) % 101);
    }
  g_string_append (text, "]}");
  for (guint i = 0; i < n; i++)
    sum += (i * 3 + CS_COUNTER_FILE_RATE) % 101;

  {
    g_autoptr(GString) full = g_string_new (doc);

    g_string_replace (full, "\"@@SAMPLES@@\"", text->str, 1);
    path = write_temp (full->str, full->len);
  }

  old = cs_run_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cs_run_get_n_samples (old), ==, n);
  g_assert_true (cs_run_get_stat (old, CS_COUNTER_FILE_RATE, &stat));
  g_assert_cmpfloat (stat.avg, ==, sum / n);
  g_assert_cmpfloat (stat.min, ==, 0);
  g_assert_cmpfloat (stat.max, ==, 100);
  series = cs_run_dup_series (old);
  /* A sample a second: the last 600 whole, the 19,400 before in buckets. */
  g_assert_cmpuint (series->len, <=, 601 + 1024);
  g_assert_cmpuint (series->len, >, 601);
  g_assert_cmpuint (g_array_index (series, CsBucket, series->len - 1).sample.files_done, ==, n - 1);
  g_unlink (path);
}

static void
test_run_round_trip (void)
{
  g_autoptr(CsRun) run = fixture_run ("T1", RUN_ID, 2, 1.0);
  g_autoptr(CsRun) copy = NULL;
  g_autoptr(GPtrArray) errors = NULL;
  g_autoptr(GArray) timeline = NULL;
  const char bad_path[] = "/data/bad\xff\xfe name\nwith newline";
  const char * const sources[] = { "/src/ok", "/src/caf\xe9", NULL };
  const double tricky[] = { 0.1, 1.0 / 3.0, 1e-300, 999999999999999.9, 5e-324, 1e-5, 2e-7, 123456789.123456789, 0.0 };
  g_autofree guchar *raw = NULL;
  gsize raw_len = 0;

  _cs_run_add_error (run, bad_path, "read", EIO, "Input/output error", 3);
  _cs_run_set_sources (run, sources);
  _cs_run_set_destination (run, "/dst/\x80\x81");
  _cs_run_set_kind (run, "sweep");
  for (guint i = 0; i < G_N_ELEMENTS (tricky); i++)
    {
      CsSample sample = { 0 };

      sample.t = 10 + i + tricky[i] * 1e-9;
      for (guint c = 0; c < CS_N_COUNTERS; c++)
        sample.values[c] = tricky[(i + c) % G_N_ELEMENTS (tricky)];
      sample.files_done = G_GUINT64_CONSTANT (999999999999999);
      sample.bytes_done = G_GUINT64_CONSTANT (123456789012345678);
      _cs_run_add_sample (run, &sample);
    }
  _cs_run_set_outcome (run, "failed", "Destination vanished: “/mnt/nas”");

  copy = reload (run);
  assert_runs_equal (run, copy);

  g_assert_cmpstr (cs_run_get_id (copy), ==, RUN_ID);
  g_assert_cmpstr (cs_run_get_kind (copy), ==, "sweep");
  g_assert_cmpstr (cs_run_get_outcome (copy), ==, "failed");
  g_assert_cmpstr (cs_run_get_fatal_error (copy), ==, "Destination vanished: “/mnt/nas”");
  g_assert_cmpstr (cs_run_get_sources (copy)[1], ==, "/src/caf\xe9");
  g_assert_cmpstr (cs_run_get_destination (copy), ==, "/dst/\x80\x81");
  g_assert_cmpint (cs_run_get_started (copy), ==, cs_run_get_started (run));
  g_assert_cmpstrv (cs_run_get_settings (copy)->excludes, ((const char * const[]) { "*.tmp", NULL }));
  g_assert_cmpstr (cs_run_get_environment (copy)->cache_mode, ==, "cold (drop_caches)");
  {
    CsSkips skips;

    g_assert_true (cs_run_get_skips (copy, &skips));
    g_assert_cmpuint (skips.identical_files, ==, 3);
    g_assert_cmpuint (skips.chosen_bytes, ==, 200);
  }

  timeline = cs_run_dup_timeline (copy);
  g_assert_cmpuint (timeline->len, ==, 1);
  g_assert_cmpuint (g_array_index (timeline, CsThreadChange, 0).to, ==, 4);
  g_assert_cmpstr (g_array_index (timeline, CsThreadChange, 0).reason, ==, "user");

  errors = cs_run_dup_errors (copy);
  g_assert_cmpuint (errors->len, ==, 2);
  {
    const CsRunError *e = g_ptr_array_index (errors, 1);

    g_assert_true (g_utf8_validate (e->path, -1, NULL));
    g_assert_nonnull (e->path_raw);
    raw = g_base64_decode (e->path_raw, &raw_len);
    g_assert_cmpmem (raw, raw_len, bad_path, strlen (bad_path));
    g_assert_cmpstr (e->operation, ==, "read");
    g_assert_cmpint (e->error_code, ==, EIO);
    g_assert_cmpuint (e->attempts, ==, 3);
    /* A valid UTF-8 path keeps no raw copy. */
    g_assert_null (((CsRunError *) g_ptr_array_index (errors, 0))->path_raw);
  }
}

static void
test_run_save_load (void)
{
  g_autoptr(CsRun) run = fixture_run ("T2", RUN_ID, 4, 2.0);
  g_autoptr(CsRun) loaded = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("cs-run-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "run.json", NULL);
  struct stat st;

  g_assert_true (cs_run_save (run, path, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0644);

  loaded = cs_run_load (path, &error);
  g_assert_no_error (error);
  assert_runs_equal (run, loaded);
  {
    g_autofree char *label = cs_run_dup_label (loaded);

    g_assert_cmpstr (label, ==, "T2");
  }

  g_unlink (path);
  g_rmdir (dir);
}

/* A summary gives back what a list shows: the same figures, statistics,
 * paths (raw bytes too), outcome and numbers as the run. */
static void
test_run_summary (void)
{
  g_autoptr(CsRun) run = fixture_run ("T1", RUN_ID, 2, 1.0);
  g_autoptr(CsRun) copy = NULL;
  g_autoptr(GVariant) summary = NULL;
  g_autoptr(GVariant) wrong = NULL;
  g_autoptr(GError) error = NULL;
  const char * const sources[] = { "/src/ok", "/src/caf\xe9", NULL };
  CsFigures fa, fb;

  _cs_run_set_sources (run, sources);
  _cs_run_set_destination (run, "/dst/\x80\x81");
  _cs_run_add_thread_change (run, 0.5, 2, 6, "auto: faster");
  _cs_run_add_error (run, "/x", "open", ENOENT, "No such file or directory", 1);
  _cs_run_set_outcome (run, "failed", "Destination vanished");

  summary = g_variant_ref_sink (cs_run_to_summary (run));
  copy = cs_run_new_from_summary (summary, &error);
  g_assert_no_error (error);
  g_assert_true (cs_run_is_header (copy));
  g_assert_false (cs_run_is_header (run));

  g_assert_cmpstr (cs_run_get_id (copy), ==, RUN_ID);
  g_assert_cmpstr (cs_run_get_kind (copy), ==, cs_run_get_kind (run));
  g_assert_cmpstr (cs_run_get_outcome (copy), ==, "failed");
  g_assert_cmpint (cs_run_get_started (copy), ==, cs_run_get_started (run));
  g_assert_cmpstrv (cs_run_get_sources (copy), sources);
  g_assert_cmpstr (cs_run_get_destination (copy), ==, "/dst/\x80\x81");
  {
    g_autofree char *label = cs_run_dup_label (copy);

    g_assert_cmpstr (label, ==, "T1");
  }
  g_assert_cmpuint (cs_run_get_n_errors (copy), ==, cs_run_get_n_errors (run));
  g_assert_cmpuint (cs_run_get_n_samples (copy), ==, cs_run_get_n_samples (run));

  cs_run_get_figures (run, &fa);
  cs_run_get_figures (copy, &fb);
  g_assert_cmpfloat (fa.duration, ==, fb.duration);
  g_assert_cmpfloat (fa.held, ==, fb.held);
  g_assert_cmpuint (fa.files, ==, fb.files);
  g_assert_cmpuint (fa.bytes, ==, fb.bytes);
  g_assert_cmpfloat (fa.speed, ==, fb.speed);
  g_assert_cmpfloat (fa.file_rate, ==, fb.file_rate);
  g_assert_cmpuint (fa.threads, ==, fb.threads);
  g_assert_cmpuint (fa.threads_min, ==, fb.threads_min);
  g_assert_cmpuint (fa.threads_max, ==, fb.threads_max);
  g_assert_cmpfloat (fa.threads_mean, ==, fb.threads_mean);
  for (guint c = 0; c < CS_N_COUNTERS; c++)
    {
      CsStat sa, sb;
      gboolean has = cs_run_get_stat (run, c, &sa);

      g_assert_cmpint (cs_run_get_stat (copy, c, &sb), ==, has);
      if (has)
        {
          g_assert_cmpfloat (sa.avg, ==, sb.avg);
          g_assert_cmpfloat (sa.min, ==, sb.min);
          g_assert_cmpfloat (sa.max, ==, sb.max);
        }
    }

  /* Anything else, such as an index of another version, is refused. */
  wrong = g_variant_ref_sink (g_variant_new ("(ss)", RUN_ID, "copy"));
  g_assert_null (cs_run_new_from_summary (wrong, &error));
  g_assert_error (error, CS_RUN_ERROR, CS_RUN_ERROR_INVALID);
}

/* A note (what the destination did not keep, a socket left out) is told
 * from a failure in the record, its header and its summary; a record written
 * before notes had their field has them recognised: what was listed with no
 * attempt made, by the requests that are notes now. */
static void
test_run_notes (void)
{
  g_autoptr(CsRun) run = fixture_run ("T1", RUN_ID, 2, 1.0);
  g_autoptr(CsRun) copy = NULL;
  g_autoptr(CsRun) header = NULL;
  g_autoptr(CsRun) listed = NULL;
  g_autoptr(CsRun) old = NULL;
  g_autoptr(GVariant) summary = NULL;
  g_autoptr(GPtrArray) errors = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  JsonArray *entries;
  guint n_before;
  static const struct {
    const char *operation;
    guint       attempts;
    gboolean    note;
  } old_entries[] = {
    { "chmod", 0, TRUE },           /* "The destination does not keep permissions" */
    { "set times", 0, TRUE },
    { "special file", 0, TRUE },    /* a socket left out */
    { "skip", 0, TRUE },            /* the destination's newer file kept */
    { "create link", 0, FALSE },    /* symbolic links not copied: failed */
    { "chmod", 1, FALSE },          /* a folder's chmod that went wrong */
    { "open", 1, FALSE },
  };

  /* The fixture lists one failure. */
  n_before = cs_run_get_n_errors (run);
  g_assert_cmpuint (cs_run_get_n_notes (run), ==, 0);
  _cs_run_add_note (run, "/mnt/nas", "chmod", EPERM,
                    "The destination does not keep permissions: 3 files have other permissions "
                    "there than at the source (for example “a.jpg”)");
  g_assert_cmpuint (cs_run_get_n_errors (run), ==, n_before);
  g_assert_cmpuint (cs_run_get_n_notes (run), ==, 1);

  json = cs_run_to_json_string (run, FALSE);
  g_assert_nonnull (strstr (json, "\"note\":true"));
  copy = reload (run);
  g_assert_cmpuint (cs_run_get_n_errors (copy), ==, n_before);
  g_assert_cmpuint (cs_run_get_n_notes (copy), ==, 1);
  errors = cs_run_dup_errors (copy);
  g_assert_cmpuint (errors->len, ==, n_before + 1);
  g_assert_false (((CsRunError *) g_ptr_array_index (errors, 0))->note);
  g_assert_true (((CsRunError *) g_ptr_array_index (errors, n_before))->note);
  g_assert_cmpuint (((CsRunError *) g_ptr_array_index (errors, n_before))->attempts, ==, 0);

  /* The header and the summary count them apart. */
  {
    g_autoptr(JsonNode) node = cs_run_to_header_json (run);

    header = cs_run_new_from_json (node, &error);
    g_assert_no_error (error);
    g_assert_true (cs_run_is_header (header));
    g_assert_cmpuint (cs_run_get_n_errors (header), ==, n_before);
    g_assert_cmpuint (cs_run_get_n_notes (header), ==, 1);
  }
  summary = g_variant_ref_sink (cs_run_to_summary (run));
  listed = cs_run_new_from_summary (summary, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (cs_run_get_n_errors (listed), ==, n_before);
  g_assert_cmpuint (cs_run_get_n_notes (listed), ==, 1);

  /* An older record: no "note" in its entries. */
  root = json_from_string (json, &error);
  g_assert_no_error (error);
  entries = json_object_get_array_member (json_node_get_object (root), "errors");
  for (guint i = 0; i < json_array_get_length (entries); i++)
    json_object_remove_member (json_array_get_object_element (entries, i), "note");
  for (guint i = 0; i < G_N_ELEMENTS (old_entries); i++)
    {
      JsonObject *o = json_object_new ();

      json_object_set_string_member (o, "path", "/mnt/nas");
      json_object_set_string_member (o, "operation", old_entries[i].operation);
      json_object_set_int_member (o, "error_code", 0);
      json_object_set_string_member (o, "message", "…");
      json_object_set_int_member (o, "attempts", old_entries[i].attempts);
      json_array_add_object_element (entries, o);
    }
  {
    g_autofree char *text = json_to_string (root, FALSE);

    g_assert_null (strstr (text, "\"note\""));
  }
  old = cs_run_new_from_json (root, &error);
  g_assert_no_error (error);
  g_clear_pointer (&errors, g_ptr_array_unref);
  errors = cs_run_dup_errors (old);
  g_assert_cmpuint (errors->len, ==, n_before + 1 + G_N_ELEMENTS (old_entries));
  for (guint i = 0; i < n_before; i++)
    g_assert_false (((CsRunError *) g_ptr_array_index (errors, i))->note);
  g_assert_true (((CsRunError *) g_ptr_array_index (errors, n_before))->note);
  for (guint i = 0; i < G_N_ELEMENTS (old_entries); i++)
    {
      const CsRunError *e = g_ptr_array_index (errors, n_before + 1 + i);

      g_test_message ("%s, %u attempts", e->operation, e->attempts);
      g_assert_cmpint (e->note, ==, old_entries[i].note);
    }
  g_assert_cmpuint (cs_run_get_n_notes (old), ==, 1 + 4);
  g_assert_cmpuint (cs_run_get_n_errors (old), ==, n_before + 3);
}

static void
test_run_errors_capped (void)
{
  g_autoptr(CsRun) run = cs_run_new ();
  g_autoptr(CsRun) copy = NULL;
  g_autofree char *json = NULL;

  for (guint i = 0; i < CS_RUN_MAX_ERRORS + 5; i++)
    _cs_run_add_error (run, "/x", "open", ENOENT, "No such file or directory", 1);

  g_assert_cmpuint (cs_run_get_n_errors (run), ==, CS_RUN_MAX_ERRORS);
  json = cs_run_to_json_string (run, FALSE);
  g_assert_nonnull (strstr (json, "\"errors_omitted\":5"));

  copy = reload (run);
  assert_runs_equal (run, copy);
}

/* A long run with many pauses or limit changes records no more events than its
 * reader takes back: the rest are counted, and the record still loads. */
static void
test_run_events_capped (void)
{
  const guint read_cap = 10000;
  g_autoptr(CsRun) run = cs_run_new ();
  g_autoptr(CsRun) copy = NULL;
  g_autofree char *json = NULL;

  for (guint i = 0; i < read_cap + 5; i++)
    {
      CsRunEvent event = { i * 0.25, (char *) "max-rate", 1e6 + i };

      _cs_run_add_event (run, &event);
    }

  copy = reload (run);
  assert_runs_equal (run, copy);
  g_assert_cmpuint (cs_run_get_n_events (run), ==, read_cap);
  g_assert_cmpuint (cs_run_get_n_events (copy), ==, read_cap);
  json = cs_run_to_json_string (copy, FALSE);
  g_assert_nonnull (strstr (json, "\"events_omitted\":5"));
}

typedef struct {
  CsRun *run;
  guint  n;
} RecordData;

static gpointer
record_thread (gpointer data)
{
  RecordData *d = data;

  for (guint i = 0; i < d->n; i++)
    {
      CsSample sample = { 0 };

      sample.t = i;
      _cs_run_add_sample (d->run, &sample);
      _cs_run_add_error (d->run, "/p", "write", ENOSPC, "No space left on device", 1);
    }

  return NULL;
}

static void
test_run_threads (void)
{
  g_autoptr(CsRun) run = cs_run_new ();
  RecordData data = { run, 2000 };
  GThread *threads[4];

  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("record", record_thread, &data);
  /* Readers take copies while the workers record. */
  for (guint i = 0; i < 50; i++)
    {
      g_autofree CsSample *samples = NULL;
      g_autoptr(GPtrArray) errors = NULL;
      guint n;

      samples = cs_run_dup_samples (run, &n);
      errors = cs_run_dup_errors (run);
      g_assert_cmpuint (errors->len, <=, 8000);
    }
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_thread_join (threads[i]);

  g_assert_cmpuint (cs_run_get_n_samples (run), ==, 8000);
  g_assert_cmpuint (cs_run_get_n_errors (run), ==, 8000);
}

static void
test_run_locale (void)
{
  g_autoptr(CsRun) run = fixture_run ("T1", RUN_ID, 2, 1.0);
  g_autoptr(CsRun) copy = NULL;
  g_autofree char *json = NULL;
  g_autofree char *old = g_strdup (setlocale (LC_NUMERIC, NULL));

  if (setlocale (LC_NUMERIC, "de_DE.UTF-8") == NULL)
    {
      g_test_skip ("The de_DE.UTF-8 locale is not installed (add it to /etc/locale.gen and run locale-gen)");
      return;
    }

  json = cs_run_to_json_string (run, FALSE);
  copy = reload (run);
  setlocale (LC_NUMERIC, old);

  g_assert_nonnull (strstr (json, "\"wait\":1.5"));
  g_assert_nonnull (strstr (json, "\"duration\":2.0"));
  assert_runs_equal (run, copy);
}

/* Bad input: every case is one clear CS_RUN_ERROR_INVALID naming the problem. */

typedef struct {
  const char *member;      /* dotted path; "" for the whole document */
  const char *value;       /* JSON literal; NULL removes the member */
  const char *expected;    /* substring of the message */
} BadCase;

static const BadCase bad_cases[] = {
  { "schema_version", NULL, "schema_version" },
  { "schema_version", "3", "unsupported schema_version" },
  { "schema_version", "0", "unsupported schema_version" },
  { "schema_version", "\"1\"", "unsupported schema_version" },
  { "schema_version", "1.0", "unsupported schema_version" },
  { "id", "\"../../etc/passwd\"", "“id” is not a UUID" },
  { "id", "17", "“id” must be a string" },
  { "kind", NULL, "“kind” is missing" },
  { "label", "[]", "“label” must be a string" },
  { "started_usec", "-5", "“started_usec” is out of range" },
  { "duration", "-1", "“duration” is out of range" },
  { "duration", "1e300", "“duration” is out of range" },
  { "duration", "400000000", "“duration” is out of range" },
  { "duration", "\"12\"", "“duration” must be a number" },
  { "sources", "\"/src\"", "“sources” must be an array" },
  { "sources", "[1]", "must be a string" },
  { "sources_raw", "[\"!!!\", null]", "invalid raw path" },
  { "sources_raw", "[null]", "differ in length" },
  { "destination", NULL, "“destination” is missing" },
  { "settings", "[]", "“settings” must be an object" },
  { "settings.threads", "-3", "“settings.threads” is out of range" },
  { "settings.threads", "2.5", "“settings.threads” must be a whole number" },
  { "settings.overwrite", "\"sometimes\"", "“settings.overwrite” has an unknown value" },
  { "settings.verify", "1", "“settings.verify” must be true or false" },
  { "settings.excludes", "[null]", "must be a string" },
  { "environment.cpus", "true", "“environment.cpus” must be a whole number" },
  { "totals.copied", NULL, "“totals.copied” is missing" },
  { "totals.copied.files", "2000000000000000", "“totals.copied.files” is out of range" },
  { "totals.failed.bytes", "-1", "“totals.failed.bytes” is out of range" },
  { "outcome", "\"exploded\"", "“outcome” has an unknown value" },
  { "thread_timeline", "[{\"t\": 1}]", "“thread_timeline[0].from” is missing" },
  { "thread_timeline", "[3]", "“thread_timeline[0]” must be an object" },
  { "errors", "[1]", "“errors[0]” must be an object" },
  { "errors", "[{\"path\": 5}]", "“errors[0].path” must be a string" },
  { "errors_omitted", "-1", "“errors_omitted” is out of range" },
  { "samples", "{}", "“samples.t” is missing" },
  { "samples.t", "[1, 2]", "“samples.files_done” has 8 values, “samples.t” has 2" },
  { "samples.t", "[0, 1, 2, 3, 4, 5, 6, -7]", "“samples[7].t” is out of range" },
  { "samples.request_rate", "[1e999, 1, 1, 1, 1, 1, 1, 1]", "“samples[0].request_rate” is out of range" },
  { "samples.request_rate", "[1e16, 1, 1, 1, 1, 1, 1, 1]", "“samples[0].request_rate” is out of range" },
  { "samples.cpu_usage", "[\"x\", 1, 1, 1, 1, 1, 1, 1]", "“samples[0].cpu_usage” must be a number" },
  { "samples.files_done", "[0.5, 1, 1, 1, 1, 1, 1, 1]", "“samples[0].files_done” must be a whole number" },
  { "stats", "7", "“stats” must be an object" },
  /* What json-glib alone would take, some of it as something else: an
   * integer past 64 bits (as a negative one), a string cut at the NUL ("a"),
   * a comment, single quotes. */
  { "settings.retries", "18446744073709551617", "an integer too large for 64 bits" },
  { "label", "\"a\\u0000b\"", "a NUL in a string" },
  { "label", "\"T1\" /* a note */", "not valid JSON" },
  { "label", "'T1'", "not valid JSON" },
  { "", "[]", "the top level must be an object" },
  { "", "\"run\"", "the top level must be an object" },
};

static void
set_member (JsonNode   *root,
            const char *member,
            const char *value)
{
  g_auto(GStrv) parts = g_strsplit (member, ".", -1);
  JsonObject *object = json_node_get_object (root);
  guint n = g_strv_length (parts);

  for (guint i = 0; i + 1 < n; i++)
    object = json_object_get_object_member (object, parts[i]);

  if (value == NULL)
    {
      json_object_remove_member (object, parts[n - 1]);
    }
  else
    {
      /* A placeholder, replaced by the literal text afterwards, so that values
       * json-glib would not write (1e999) reach the importer verbatim. */
      json_object_set_string_member (object, parts[n - 1], "@@VALUE@@");
    }
}

static void
assert_load_fails (const char *contents,
                   gssize      len,
                   int         code,
                   const char *expected)
{
  g_autofree char *path = write_temp (contents, len);
  g_autoptr(GError) error = NULL;
  g_autoptr(CsRun) run = cs_run_load (path, &error);

  g_assert_null (run);
  g_assert_error (error, CS_RUN_ERROR, code);
  if (strstr (error->message, expected) == NULL)
    g_error ("“%s” does not contain “%s”", error->message, expected);
  /* One line, so the CLI can print it after the file name. */
  g_assert_null (strchr (error->message, '\n'));
  g_unlink (path);
}

static void
test_run_bad_input (void)
{
  g_autoptr(CsRun) run = fixture_run ("T1", RUN_ID, 2, 1.0);
  g_autofree char *valid = cs_run_to_json_string (run, TRUE);

  for (guint i = 0; i < G_N_ELEMENTS (bad_cases); i++)
    {
      const BadCase *bc = &bad_cases[i];
      g_autoptr(JsonNode) root = NULL;
      g_autofree char *text = NULL;

      g_test_message ("case %u: %s = %s", i, bc->member, bc->value ? bc->value : "(removed)");
      if (bc->member[0] == '\0')
        {
          text = g_strdup (bc->value);
        }
      else
        {
          g_autoptr(GString) str = NULL;
          g_autofree char *doc = NULL;

          root = json_from_string (valid, NULL);
          set_member (root, bc->member, bc->value);
          doc = json_to_string (root, FALSE);
          str = g_string_new (doc);
          if (bc->value != NULL)
            g_string_replace (str, "\"@@VALUE@@\"", bc->value, 1);
          text = g_strdup (str->str);
        }
      assert_load_fails (text, -1, CS_RUN_ERROR_INVALID, bc->expected);
    }

  /* Not JSON at all, or cut short anywhere. */
  assert_load_fails ("", 0, CS_RUN_ERROR_INVALID, "empty");
  assert_load_fails ("NaN", -1, CS_RUN_ERROR_INVALID, "not valid JSON");
  assert_load_fails ("{\"schema_version\": 1", -1, CS_RUN_ERROR_INVALID, "not valid JSON");
  assert_load_fails ("\xff\xfe{}", 4, CS_RUN_ERROR_INVALID, "not valid JSON");
  assert_load_fails ("  \n", -1, CS_RUN_ERROR_INVALID, "not valid JSON");
  {
    g_autofree char *twice = g_strconcat (valid, "\n{}", NULL);

    assert_load_fails (twice, -1, CS_RUN_ERROR_INVALID, "text after the value");
  }
  for (gsize cut = 1; cut < strlen (valid); cut += strlen (valid) / 37)
    assert_load_fails (valid, cut, CS_RUN_ERROR_INVALID, "Invalid run file");
}

static void
test_run_too_large (void)
{
  g_autofree char *path = write_temp ("", 0);
  g_autoptr(GError) error = NULL;
  g_autoptr(CsRun) run = NULL;

  /* Sparse: costs no disk space. */
  g_assert_cmpint (truncate (path, (off_t) 257 * 1024 * 1024), ==, 0);
  run = cs_run_load (path, &error);
  g_assert_null (run);
  g_assert_error (error, CS_RUN_ERROR, CS_RUN_ERROR_TOO_LARGE);
  g_unlink (path);
}

static void
test_run_too_many_values (void)
{
  GString *text = g_string_new ("[");
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(CsRun) run = NULL;

  /* 40 million tiny values in 80 MB would need gigabytes as a JSON tree. */
  for (guint i = 0; i < 40 * 1000 * 1000 / 8; i++)
    g_string_append (text, "0,0,0,0,0,0,0,0,");
  g_string_append (text, "0]");
  path = write_temp (text->str, text->len);
  g_string_free (text, TRUE);

  run = cs_run_load (path, &error);
  g_assert_null (run);
  g_assert_error (error, CS_RUN_ERROR, CS_RUN_ERROR_TOO_LARGE);
  g_unlink (path);
}

static void
test_run_not_regular (void)
{
  g_autofree char *dir = g_dir_make_tmp ("cs-run-XXXXXX", NULL);
  g_autofree char *fifo = g_build_filename (dir, "fifo.json", NULL);
  g_autofree char *missing = g_build_filename (dir, "missing.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(CsRun) run = NULL;

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  /* Must return at once instead of waiting for a writer. */
  run = cs_run_load (fifo, &error);
  g_assert_null (run);
  g_assert_error (error, CS_RUN_ERROR, CS_RUN_ERROR_INVALID);
  g_clear_error (&error);

  run = cs_run_load (dir, &error);
  g_assert_null (run);
  g_assert_nonnull (error);
  g_clear_error (&error);

  run = cs_run_load (missing, &error);
  g_assert_null (run);
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);

  g_unlink (fifo);
  g_rmdir (dir);
}

/* The checksum list's place, algorithm and counts come back from the
 * record, a path that is not UTF-8 exactly; a run without one has none. */
static void
test_run_manifest (void)
{
  g_autoptr(CsRun) run = fixture_run ("T1", RUN_ID, 2, 1.0);
  g_autoptr(CsRun) copy = NULL;
  g_autoptr(CsRun) plain = NULL;
  const char path[] = "/dst/sums\xff.sha256";
  g_autoptr(GError) error = NULL;
  CsRunManifest m = { 0 };
  CsRunManifest record = {
    .path = path, .algo = "sha256", .files = 120, .from_copy = 100,
    .read_copied = 5, .read_kept = 15, .bytes_read = 123456789,
  };

  plain = reload (run);
  g_assert_false (cs_run_get_manifest (plain, &m));
  _cs_run_set_manifest (run, &record);
  copy = reload (run);
  g_assert_true (cs_run_get_manifest (copy, &m));
  g_assert_cmpstr (m.path, ==, path);
  g_assert_cmpstr (m.algo, ==, "sha256");
  g_assert_cmpuint (m.files, ==, 120);
  g_assert_cmpuint (m.from_copy, ==, 100);
  g_assert_cmpuint (m.read_copied, ==, 5);
  g_assert_cmpuint (m.read_kept, ==, 15);
  g_assert_cmpuint (m.bytes_read, ==, 123456789);

  /* The summary History lists from names it too. */
  {
    g_autoptr(GVariant) summary = g_variant_ref_sink (cs_run_to_summary (run));
    g_autoptr(GVariant) none = g_variant_ref_sink (cs_run_to_summary (plain));
    g_autoptr(CsRun) header = cs_run_new_from_summary (summary, &error);
    g_autoptr(CsRun) header_none = NULL;

    g_assert_no_error (error);
    g_assert_true (cs_run_get_manifest (header, &m));
    g_assert_cmpstr (m.path, ==, path);
    g_assert_cmpstr (m.algo, ==, "sha256");
    g_assert_cmpuint (m.files, ==, 120);
    header_none = cs_run_new_from_summary (none, &error);
    g_assert_no_error (error);
    g_assert_false (cs_run_get_manifest (header_none, &m));
  }
}

/* A record from before the check rate (issue 40) has no such column in its
 * samples, buckets or statistics: it reads, from a tree and from its text,
 * with the check rate as none and every other counter as it was. */
static void
test_run_without_check_rate (void)
{
  g_autoptr(CsRun) run = fixture_run ("T1", RUN_ID, 4, 2.0);
  g_autofree char *json = cs_run_to_json_string (run, FALSE);
  g_autofree char *dir = g_dir_make_tmp ("cs-run-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "old.json", NULL);
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *object;
  const char *parts[] = { "samples", "buckets", "stats" };

  root = json_from_string (json, &error);
  g_assert_no_error (error);
  object = json_node_get_object (root);
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    {
      JsonObject *part;

      if (!json_object_has_member (object, parts[i])
          || JSON_NODE_TYPE (json_object_get_member (object, parts[i])) != JSON_NODE_OBJECT)
        continue;
      part = json_object_get_object_member (object, parts[i]);
      g_assert_true (json_object_has_member (part, "check_rate") || g_str_equal (parts[i], "buckets"));
      json_object_remove_member (part, "check_rate");
      json_object_remove_member (part, "check_rate_min");
      json_object_remove_member (part, "check_rate_max");
    }
  {
    g_autofree char *text = json_to_string (root, FALSE);

    g_assert_null (strstr (text, "check_rate"));
    g_assert_true (g_file_set_contents (path, text, -1, &error));
    g_assert_no_error (error);
  }

  for (guint way = 0; way < 2; way++)
    {
      g_autoptr(CsRun) old = way == 0 ? cs_run_new_from_json (root, &error) : cs_run_load (path, &error);
      g_autofree CsSample *samples = NULL;
      g_autofree CsSample *want = NULL;
      guint n = 0, n_want = 0;
      CsStat stat;

      g_assert_no_error (error);
      g_assert_nonnull (old);
      samples = cs_run_dup_samples (old, &n);
      want = cs_run_dup_samples (run, &n_want);
      g_assert_cmpuint (n, ==, n_want);
      g_assert_cmpuint (n, >, 0);
      for (guint i = 0; i < n; i++)
        {
          g_assert_true (isnan (samples[i].values[CS_COUNTER_CHECK_RATE]));
          g_assert_cmpfloat (samples[i].values[CS_COUNTER_FILE_RATE], ==, want[i].values[CS_COUNTER_FILE_RATE]);
        }
      g_assert_false (cs_run_get_stat (old, CS_COUNTER_CHECK_RATE, &stat));
      g_assert_true (cs_run_get_stat (old, CS_COUNTER_FILE_RATE, &stat));
    }

  g_unlink (path);
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  setlocale (LC_ALL, "");
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/run/defaults", test_run_defaults);
  g_test_add_func ("/run/stats", test_run_stats);
  g_test_add_func ("/run/long", test_run_long);
  g_test_add_func ("/run/old-schema", test_run_old_schema);
  g_test_add_func ("/run/round-trip", test_run_round_trip);
  g_test_add_func ("/run/manifest", test_run_manifest);
  g_test_add_func ("/run/save-load", test_run_save_load);
  g_test_add_func ("/run/without-check-rate", test_run_without_check_rate);
  g_test_add_func ("/run/summary", test_run_summary);
  g_test_add_func ("/run/notes", test_run_notes);
  g_test_add_func ("/run/errors-capped", test_run_errors_capped);
  g_test_add_func ("/run/events-capped", test_run_events_capped);
  g_test_add_func ("/run/threads", test_run_threads);
  g_test_add_func ("/run/locale", test_run_locale);
  g_test_add_func ("/run/bad-input", test_run_bad_input);
  g_test_add_func ("/run/too-large", test_run_too_large);
  g_test_add_func ("/run/too-many-values", test_run_too_many_values);
  g_test_add_func ("/run/not-regular", test_run_not_regular);

  return g_test_run ();
}
