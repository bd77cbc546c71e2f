/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-run"

/*
 * The record read back from JSON: every field checked (cs-run-reader.c), the
 * limits on what a file may be, and what older records need: version 1's
 * samples reduced as they are read, notes told apart from failures, and
 * passwords taken out of the smb:// locations of records written before
 * they were.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "cs-json-io.h"
#include "cs-run.h"
#include "cs-run-internal.h"
#include "cs-run-private.h"
#include "cs-smb-url-private.h"

/* A run file this big is not something we wrote: refuse it before parsing. */
#define MAX_FILE_SIZE     ((gsize) 256 * 1024 * 1024)
/* The parser builds the whole tree; bounding the number of values bounds memory. */
#define MAX_JSON_VALUES   (32 * 1000 * 1000)
#define MAX_JSON_DEPTH    32
#define MAX_THREADS       100000
#define MAX_BUCKETS_READ  100000

/* A count kept whole: written as a JSON integer, clamped to G_MAXINT64. */
static guint64
read_count (CsRunReader *r,
            JsonObject  *object,
            const char  *where,
            const char  *name)
{
  return (guint64) _cs_run_read_int (r, object, where, name, 0, (double) G_MAXINT64);
}

/* A display path plus, optionally, its exact bytes in base64. Returns the
 * bytes to store (filename encoding). */
static char *
read_path (CsRunReader *r,
           JsonNode    *display_node,
           JsonNode    *raw_node,
           const char  *where,
           gboolean     nullable)
{
  g_autofree char *display = _cs_run_read_string_node (r, display_node, where, "", nullable);
  g_autofree char *raw = NULL;
  g_autofree guchar *bytes = NULL;
  gsize len = 0;

  /* A record from before passwords were taken out of smb:// URLs may hold
   * one: shown and exported without it all the same. */
  if (r->failed || raw_node == NULL || JSON_NODE_HOLDS_NULL (raw_node))
    return display != NULL ? _cs_smb_location_redact (display) : NULL;

  raw = _cs_run_read_string_node (r, raw_node, where, "(raw)", FALSE);
  if (raw == NULL)
    return NULL;

  bytes = g_base64_decode (raw, &len);
  if (len == 0 || memchr (bytes, '\0', len) != NULL)
    {
      _cs_run_reader_fail (r, "“%s” has an invalid raw path", where);
      return NULL;
    }

  g_free (raw);
  raw = g_strndup ((const char *) bytes, len);
  return _cs_smb_location_redact (raw);
}

static void
read_settings (CsRunReader   *r,
               JsonObject    *root,
               CsRunSettings *s)
{
  JsonObject *o = _cs_run_read_object (r, root, "", "settings");
  g_autofree char *overwrite = NULL;
  JsonArray *excludes;
  guint n;

  if (o == NULL)
    return;

  s->threads = _cs_run_read_int (r, o, "settings", "threads", 0, MAX_THREADS);
  overwrite = _cs_run_read_string (r, o, "settings", "overwrite", FALSE);
  if (overwrite != NULL && !cs_overwrite_from_string (overwrite, &s->overwrite))
    _cs_run_reader_fail (r, "“settings.overwrite” has an unknown value");
  s->verify = _cs_run_read_bool (r, o, "settings", "verify");
  s->durable = _cs_run_read_bool (r, o, "settings", "durable");
  s->flush = _cs_run_read_bool (r, o, "settings", "flush");
  s->dry_run = _cs_run_read_bool (r, o, "settings", "dry_run");
  s->retries = _cs_run_read_int (r, o, "settings", "retries", 0, 1000000);
  s->wait = _cs_run_read_double (r, o, "settings", "wait", 0, MAX_DURATION);
  s->interval_ms = _cs_run_read_int (r, o, "settings", "interval_ms", 0, 3600 * 1000);

  /* Written since jobs move and mirror; older records copied, unlimited. */
  if (json_object_get_member (o, "operation") != NULL)
    {
      g_autofree char *operation = _cs_run_read_string (r, o, "settings", "operation", FALSE);

      if (operation != NULL && !cs_operation_from_string (operation, &s->operation))
        _cs_run_reader_fail (r, "“settings.operation” has an unknown value");
    }
  if (json_object_get_member (o, "max_rate") != NULL)
    s->max_rate = _cs_run_read_double (r, o, "settings", "max_rate", 0, 1e15);
  if (json_object_get_member (o, "max_files") != NULL)
    s->max_files = _cs_run_read_double (r, o, "settings", "max_files", 0, 1e9);
  s->max_delete = -1;
  if (json_object_get_member (o, "max_delete") != NULL)
    s->max_delete = _cs_run_read_int (r, o, "settings", "max_delete", -1, (double) G_MAXINT64);

  excludes = _cs_run_read_array (r, o, "settings", "excludes", TRUE);
  if (excludes == NULL)
    return;
  n = json_array_get_length (excludes);
  s->excludes = g_new0 (char *, n + 1);
  for (guint i = 0; i < n && !r->failed; i++)
    s->excludes[i] = _cs_run_read_string_node (r, json_array_get_element (excludes, i),
                                               "settings", "excludes[]", FALSE);
}

static void
read_environment (CsRunReader      *r,
                  JsonObject       *root,
                  CsRunEnvironment *e)
{
  JsonObject *o = _cs_run_read_object (r, root, "", "environment");

  if (o == NULL)
    return;

  e->kernel = _cs_run_read_string (r, o, "environment", "kernel", TRUE);
  e->hostname = _cs_run_read_string (r, o, "environment", "hostname", TRUE);
  e->cpus = _cs_run_read_int (r, o, "environment", "cpus", 0, 1000000);
  e->source_fs = _cs_run_read_string (r, o, "environment", "source_fs", TRUE);
  e->destination_fs = _cs_run_read_string (r, o, "environment", "destination_fs", TRUE);
  /* Only in records of runs that met a share GVfs mounted. */
  e->route = _cs_run_read_string_node (r, json_object_get_member (o, "route"), "environment", "route",
                                       TRUE);
  e->cache_mode = _cs_run_read_string (r, o, "environment", "cache_mode", TRUE);
  e->tool_version = _cs_run_read_string (r, o, "environment", "tool_version", TRUE);
}

static void
read_totals (CsRunReader *r,
             JsonObject  *root,
             CsTotals    *totals)
{
  JsonObject *o = _cs_run_read_object (r, root, "", "totals");

  if (o == NULL)
    return;

  for (guint k = 0; k < CS_N_CLASSES && !r->failed; k++)
    {
      g_autofree char *where = g_strconcat ("totals.", cs_class_to_string (k), NULL);
      JsonObject *c = _cs_run_read_object (r, o, "totals", cs_class_to_string (k));

      if (c == NULL)
        return;
      for (guint j = 0; j < CS_N_KINDS; j++)
        totals->v[k][j] = _cs_run_read_int (r, c, where, cs_kind_to_string (j), 0,
                                            j == CS_KIND_BYTES ? MAX_BYTES : MAX_COUNT);
    }
}

/* Written for moves and mirrors only. */
static void
read_removals (CsRunReader *r,
               JsonObject  *root,
               CsRemovals  *m)
{
  JsonObject *o;

  if (json_object_get_member (root, "removals") == NULL)
    return;
  o = _cs_run_read_object (r, root, "", "removals");
  if (o == NULL)
    return;
  m->moved_files = read_count (r, o, "removals", "moved_files");
  m->moved_bytes = read_count (r, o, "removals", "moved_bytes");
  m->moved_dirs = read_count (r, o, "removals", "moved_dirs");
  m->kept_files = read_count (r, o, "removals", "kept_files");
  m->deleted_files = read_count (r, o, "removals", "deleted_files");
  m->deleted_dirs = read_count (r, o, "removals", "deleted_dirs");
  m->deleted_bytes = read_count (r, o, "removals", "deleted_bytes");
  m->not_deleted = read_count (r, o, "removals", "not_deleted");
}

/* Absent from records written before the reasons were kept. */
static gboolean
read_skips (CsRunReader *r,
            JsonObject  *root,
            CsSkips     *s)
{
  JsonObject *o;

  if (json_object_get_member (root, "skips") == NULL)
    return FALSE;
  o = _cs_run_read_object (r, root, "", "skips");
  if (o == NULL)
    return FALSE;
  s->identical_files = read_count (r, o, "skips", "identical_files");
  s->identical_bytes = read_count (r, o, "skips", "identical_bytes");
  s->chosen_files = read_count (r, o, "skips", "chosen_files");
  s->chosen_bytes = read_count (r, o, "skips", "chosen_bytes");
  return TRUE;
}


/* Absent from records of runs that wrote no manifest. */
static void
read_manifest (CsRunReader   *r,
               JsonObject    *root,
               CsRunManifest *m)
{
  g_autofree char *algo = NULL;
  JsonObject *o;

  if (json_object_get_member (root, "manifest") == NULL)
    return;
  o = _cs_run_read_object (r, root, "", "manifest");
  if (o == NULL)
    return;
  algo = _cs_run_read_string (r, o, "manifest", "algo", FALSE);
  if (r->failed)
    return;
  if (_cs_run_manifest_algo_known (algo) == NULL)
    {
      _cs_run_reader_fail (r, "“manifest.algo” has an unknown value");
      return;
    }
  m->path = read_path (r, _cs_run_get_member (r, o, "manifest", "path", TRUE),
                       json_object_get_member (o, "path_raw"), "manifest.path", FALSE);
  m->algo = g_strdup (_cs_run_manifest_algo_known (algo));
  m->files = read_count (r, o, "manifest", "files");
  m->from_copy = read_count (r, o, "manifest", "from_copy");
  m->read_copied = read_count (r, o, "manifest", "read_copied");
  m->read_kept = read_count (r, o, "manifest", "read_kept");
  m->bytes_read = read_count (r, o, "manifest", "bytes_read");
}

static void
read_timeline (CsRunReader *r,
               JsonObject  *root,
               GArray      *timeline)
{
  JsonArray *a = _cs_run_read_array (r, root, "", "thread_timeline", TRUE);

  if (a == NULL)
    return;

  for (guint i = 0; i < json_array_get_length (a) && !r->failed; i++)
    {
      g_autofree char *where = g_strdup_printf ("thread_timeline[%u]", i);
      JsonNode *node = json_array_get_element (a, i);
      CsThreadChange change = { 0 };
      JsonObject *o;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          _cs_run_reader_fail (r, "“%s” must be an object", where);
          return;
        }
      o = json_node_get_object (node);
      change.t = _cs_run_read_double (r, o, where, "t", 0, MAX_DURATION);
      change.from = _cs_run_read_int (r, o, where, "from", 0, MAX_THREADS);
      change.to = _cs_run_read_int (r, o, where, "to", 0, MAX_THREADS);
      change.reason = _cs_run_read_string (r, o, where, "reason", TRUE);
      g_array_append_val (timeline, change);
    }
}

static gboolean
event_kind_is_known (const char *kind)
{
  return g_str_equal (kind, "max-rate") || g_str_equal (kind, "max-files") || g_str_equal (kind, "resume")
         || g_str_equal (kind, "kept") || g_str_equal (kind, "pause") || g_str_equal (kind, "question");
}

static void
read_events (CsRunReader *r,
             JsonObject  *root,
             GArray      *events,
             guint64     *omitted)
{
  JsonArray *a = _cs_run_read_array (r, root, "", "events", FALSE);

  if (json_object_has_member (root, "events_omitted"))
    *omitted = _cs_run_read_int (r, root, "", "events_omitted", 0, MAX_COUNT);
  if (a == NULL)
    return;
  if (json_array_get_length (a) > CS_RUN_MAX_EVENTS)
    {
      _cs_run_reader_fail (r, "“events” has more than %d entries", CS_RUN_MAX_EVENTS);
      return;
    }

  for (guint i = 0; i < json_array_get_length (a) && !r->failed; i++)
    {
      g_autofree char *where = g_strdup_printf ("events[%u]", i);
      JsonNode *node = json_array_get_element (a, i);
      CsRunEvent event = { 0 };
      JsonObject *o;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          _cs_run_reader_fail (r, "“%s” must be an object", where);
          return;
        }
      o = json_node_get_object (node);
      event.t = _cs_run_read_double (r, o, where, "t", 0, MAX_DURATION);
      event.kind = _cs_run_read_string (r, o, where, "kind", FALSE);
      if (event.kind != NULL && !event_kind_is_known (event.kind))
        _cs_run_reader_fail (r, "“%s.kind” has an unknown value", where);
      event.value = _cs_run_read_double (r, o, where, "value", 0, 1e18);
      if (json_object_get_member (o, "size") != NULL)
        event.size = read_count (r, o, where, "size");
      if (json_object_get_member (o, "checked") != NULL)
        event.checked = read_count (r, o, where, "checked");
      if (json_object_get_member (o, "path") != NULL)
        event.path = _cs_run_read_string (r, o, where, "path", TRUE);
      if (event.path != NULL && g_str_has_prefix (event.path, "smb://"))
        {
          char *kept = _cs_smb_location_redact (event.path);

          g_free (event.path);
          event.path = kept;
        }
      g_array_append_val (events, event);
    }
}

/* A record written before notes had their field: what the engine then listed
 * with no attempt made, and now lists as a note (cs-run.h, CsRunError). Every
 * failure was listed after at least one attempt; a symbolic link the
 * destination could not hold ("create link") failed, then as now. */
static gboolean
is_old_note (const CsRunError *error)
{
  static const char * const operations[] = {
    "chown", "chmod", "set times", "set attributes", "set ACL", "set link times", "link",
    "special file", "skip",
  };

  if (error->attempts != 0 || error->operation == NULL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (operations); i++)
    if (strcmp (error->operation, operations[i]) == 0)
      return TRUE;
  return FALSE;
}

static void
read_errors (CsRunReader *r,
             JsonObject  *root,
             GPtrArray   *errors,
             guint64     *omitted)
{
  JsonArray *a = _cs_run_read_array (r, root, "", "errors", TRUE);

  if (a == NULL)
    return;

  if (json_array_get_length (a) > CS_RUN_MAX_ERRORS)
    {
      _cs_run_reader_fail (r, "“errors” has more than %d entries", CS_RUN_MAX_ERRORS);
      return;
    }

  for (guint i = 0; i < json_array_get_length (a) && !r->failed; i++)
    {
      g_autofree char *where = g_strdup_printf ("errors[%u]", i);
      JsonNode *node = json_array_get_element (a, i);
      g_autofree guchar *bytes = NULL;
      CsRunError *error;
      JsonObject *o;
      gsize len;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          _cs_run_reader_fail (r, "“%s” must be an object", where);
          return;
        }
      o = json_node_get_object (node);

      error = g_new0 (CsRunError, 1);
      g_ptr_array_add (errors, error);
      error->path = _cs_run_read_string (r, o, where, "path", TRUE);
      if (json_object_has_member (o, "path_raw"))
        {
          error->path_raw = _cs_run_read_string (r, o, where, "path_raw", TRUE);
          if (error->path_raw != NULL)
            {
              bytes = g_base64_decode (error->path_raw, &len);
              if (len == 0 || memchr (bytes, '\0', len) != NULL)
                _cs_run_reader_fail (r, "“%s.path_raw” is not a valid raw path", where);
              else if (len > 6 && memcmp (bytes, "smb://", 6) == 0)
                {
                  /* An old record's password in a message's location, as
                   * in read_path. */
                  g_autofree char *raw = g_strndup ((const char *) bytes, len);
                  g_autofree char *kept = _cs_smb_location_redact (raw);

                  g_free (error->path_raw);
                  error->path_raw = g_base64_encode ((const guchar *) kept, strlen (kept));
                }
            }
        }
      if (error->path != NULL && g_str_has_prefix (error->path, "smb://"))
        {
          char *kept = _cs_smb_location_redact (error->path);

          g_free (error->path);
          error->path = kept;
        }
      error->operation = _cs_run_read_string (r, o, where, "operation", TRUE);
      error->error_code = _cs_run_read_int (r, o, where, "error_code", 0, 100000);
      error->message = _cs_run_read_string (r, o, where, "message", TRUE);
      error->attempts = _cs_run_read_int (r, o, where, "attempts", 0, G_MAXUINT);
      if (json_object_has_member (o, "note"))
        error->note = _cs_run_read_bool (r, o, where, "note");
      else
        error->note = is_old_note (error);
    }

  if (json_object_has_member (root, "errors_omitted"))
    *omitted = _cs_run_read_int (r, root, "", "errors_omitted", 0, MAX_COUNT);
}


/* Version 2: the buckets, in columns like the samples'. */
static void
read_buckets (CsRunReader *r,
              JsonObject  *root,
              CsRun       *run)
{
  JsonObject *o;
  JsonArray *t;
  guint n;
  JsonArray *columns[4 + 3 * CS_N_COUNTERS];
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);

  if (json_object_get_member (root, "buckets") == NULL)
    return;
  o = _cs_run_read_object (r, root, "", "buckets");
  if (o == NULL)
    return;
  run->bucket_width = _cs_run_read_double (r, o, "buckets", "width", 1e-3, MAX_DURATION);
  t = _cs_run_read_array (r, o, "buckets", "t", TRUE);
  if (t == NULL)
    return;
  n = json_array_get_length (t);
  if (n > MAX_BUCKETS_READ)
    {
      _cs_run_reader_fail (r, "more than %d buckets", MAX_BUCKETS_READ);
      return;
    }

  g_ptr_array_add (names, g_strdup ("t_start"));
  g_ptr_array_add (names, g_strdup ("n"));
  g_ptr_array_add (names, g_strdup ("files_done"));
  g_ptr_array_add (names, g_strdup ("bytes_done"));
  for (guint c = 0; c < CS_N_COUNTERS; c++)
    {
      const char *key = cs_counter_get_info (c)->key;

      g_ptr_array_add (names, g_strdup (key));
      g_ptr_array_add (names, g_strconcat (key, "_min", NULL));
      g_ptr_array_add (names, g_strconcat (key, "_max", NULL));
    }
  for (guint k = 0; k < names->len && !r->failed; k++)
    {
      columns[k] = _cs_run_read_array (r, o, "buckets", names->pdata[k], k < 4);
      if (columns[k] != NULL && json_array_get_length (columns[k]) != n)
        _cs_run_reader_fail (r, "“buckets.%s” has %u values, “buckets.t” has %u",
                             (const char *) names->pdata[k], json_array_get_length (columns[k]), n);
    }

  for (guint i = 0; i < n && !r->failed; i++)
    {
      char where[32];
      CsBucket bucket = { 0 };

      g_snprintf (where, sizeof where, "buckets[%u]", i);
      bucket.sample.t = _cs_run_read_double_node (r, json_array_get_element (t, i), where, "t",
                                                  0, MAX_DURATION, FALSE);
      bucket.t_start = _cs_run_read_double_node (r, json_array_get_element (columns[0], i), where,
                                                 "t_start", 0, bucket.sample.t, FALSE);
      bucket.n = _cs_run_read_int_node (r, json_array_get_element (columns[1], i), where, "n",
                                        1, MAX_SAMPLES);
      bucket.sample.files_done = _cs_run_read_int_node (r, json_array_get_element (columns[2], i),
                                                        where, "files_done", 0, MAX_COUNT);
      bucket.sample.bytes_done = _cs_run_read_int_node (r, json_array_get_element (columns[3], i),
                                                        where, "bytes_done", 0, MAX_BYTES);
      for (guint c = 0; c < CS_N_COUNTERS; c++)
        {
          double *into[3] = { &bucket.sample.values[c], &bucket.min[c], &bucket.max[c] };

          for (guint k = 0; k < 3; k++)
            {
              JsonArray *column = columns[4 + 3 * c + k];

              *into[k] = column == NULL ? NAN
                         : _cs_run_read_double_node (r, json_array_get_element (column, i), where,
                                                     names->pdata[4 + 3 * c + k], 0,
                                                     MAX_COUNTER_VALUE, TRUE);
            }
        }
      if (run->buckets->len > 0 &&
          bucket.t_start < g_array_index (run->buckets, CsBucket, run->buckets->len - 1).sample.t)
        _cs_run_reader_fail (r, "“%s” begins before the one before it ends", where);
      g_array_append_val (run->buckets, bucket);
    }
}

/* Version 2: the statistics, kept as the samples came, read back. */
static void
read_stats (CsRunReader *r,
            JsonObject  *root,
            CsRun       *run)
{
  JsonObject *o = _cs_run_read_object (r, root, "", "stats");

  for (guint c = 0; o != NULL && c < CS_N_COUNTERS && !r->failed; c++)
    {
      const char *key = cs_counter_get_info (c)->key;
      g_autofree char *where = g_strconcat ("stats.", key, NULL);
      JsonObject *stat;

      if (json_object_get_member (o, key) == NULL)
        continue;
      stat = _cs_run_read_object (r, o, "stats", key);
      if (stat == NULL)
        return;
      run->sums[c].n = _cs_run_read_int (r, stat, where, "n", 0, MAX_SAMPLES);
      run->sums[c].min = _cs_run_read_double (r, stat, where, "min", 0, MAX_COUNTER_VALUE);
      run->sums[c].max = _cs_run_read_double (r, stat, where, "max", 0, MAX_COUNTER_VALUE);
      run->sums[c].sum = _cs_run_read_double (r, stat, where, "sum",
                                              0, MAX_COUNTER_VALUE * MAX_SAMPLES);
      if (run->sums[c].n == 0)
        run->sums[c] = (StatSum) { 0, 0, INFINITY, -INFINITY };
    }
}


/* @samples_text: the value of "samples", left out of the tree by the file
 * reader; NULL to read it from the tree. */
static CsRun *
run_from_json (JsonNode  *node,
               GBytes    *samples_text,
               GError   **error)
{
  g_autoptr(CsRun) run = NULL;
  g_auto(CsRunColumns) columns = { 0 };
  gint64 schema = 0;
  g_autofree char *id = NULL;
  g_autofree char *kind = NULL;
  g_autofree char *outcome = NULL;
  CsRunReader r = { error, FALSE };
  JsonObject *root;
  JsonNode *version;
  JsonArray *sources;
  JsonArray *sources_raw;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      _cs_run_reader_fail (&r, "the top level must be an object");
      return NULL;
    }
  root = json_node_get_object (node);

  version = json_object_get_member (root, "schema_version");
  if (version == NULL)
    {
      _cs_run_reader_fail (&r, "“schema_version” is missing; this is not a Copyscope run");
      return NULL;
    }
  if (JSON_NODE_HOLDS_VALUE (version) && json_node_get_value_type (version) == G_TYPE_INT64)
    schema = json_node_get_int (version);
  if (schema < 1 || schema > CS_RUN_SCHEMA_VERSION)
    {
      _cs_run_reader_fail (&r, "unsupported schema_version (this version reads %d)",
                           CS_RUN_SCHEMA_VERSION);
      return NULL;
    }

  run = cs_run_new ();

  id = _cs_run_read_string (&r, root, "", "id", FALSE);
  if (id != NULL && !g_uuid_string_is_valid (id))
    _cs_run_reader_fail (&r, "“id” is not a UUID");
  if (id != NULL)
    {
      g_free (run->id);
      run->id = g_steal_pointer (&id);
    }

  kind = _cs_run_read_string (&r, root, "", "kind", FALSE);
  if (kind != NULL)
    run->kind = g_intern_string (kind);
  run->label = _cs_run_read_string (&r, root, "", "label", TRUE);
  if (run->label != NULL && run->label[0] == '\0')
    g_clear_pointer (&run->label, g_free);

  run->started = _cs_run_read_int (&r, root, "", "started_usec", 0, MAX_STARTED_USEC);
  g_free (_cs_run_read_string (&r, root, "", "started", FALSE));
  run->duration = _cs_run_read_double (&r, root, "", "duration", 0, MAX_DURATION);
  /* Records from before it was kept say nothing: no pause was counted. */
  if (json_object_get_member (root, "held") != NULL)
    run->held = _cs_run_read_double (&r, root, "", "held", 0, MAX_DURATION);

  sources = _cs_run_read_array (&r, root, "", "sources", TRUE);
  sources_raw = _cs_run_read_array (&r, root, "", "sources_raw", FALSE);
  if (sources != NULL)
    {
      guint n = json_array_get_length (sources);

      if (sources_raw != NULL && json_array_get_length (sources_raw) != n)
        _cs_run_reader_fail (&r, "“sources_raw” and “sources” differ in length");

      g_strfreev (run->sources);
      run->sources = g_new0 (char *, n + 1);
      for (guint i = 0; i < n && !r.failed; i++)
        run->sources[i] = read_path (&r, json_array_get_element (sources, i),
                                     sources_raw != NULL ? json_array_get_element (sources_raw, i) : NULL,
                                     "sources[]", FALSE);
    }

  run->destination = read_path (&r, _cs_run_get_member (&r, root, "", "destination", TRUE),
                                json_object_get_member (root, "destination_raw"),
                                "destination", TRUE);

  read_settings (&r, root, &run->settings);
  read_environment (&r, root, &run->environment);
  read_totals (&r, root, &run->totals);
  read_removals (&r, root, &run->removals);
  run->skips_known = read_skips (&r, root, &run->skips);
  read_manifest (&r, root, &run->manifest);

  outcome = _cs_run_read_string (&r, root, "", "outcome", FALSE);
  if (outcome != NULL && !_cs_run_outcome_is_known (outcome))
    _cs_run_reader_fail (&r, "“outcome” has an unknown value");
  if (outcome != NULL)
    run->outcome = g_intern_string (outcome);
  run->fatal_error = _cs_run_read_string (&r, root, "", "fatal_error", TRUE);

  read_timeline (&r, root, run->timeline);
  read_events (&r, root, run->events, &run->events_omitted);
  read_errors (&r, root, run->errors, &run->errors_omitted);
  for (guint i = 0; i < run->errors->len; i++)
    {
      if (((CsRunError *) g_ptr_array_index (run->errors, i))->note)
        run->n_notes++;
      else
        run->n_errors++;
    }
  if (schema >= 2 && json_object_get_member (root, "header") != NULL)
    {
      run->header = _cs_run_read_bool (&r, root, "", "header");
      /* A header written before notes counts them with the failures. */
      run->n_errors = _cs_run_read_int (&r, root, "", "n_errors", 0, CS_RUN_MAX_ERRORS);
      if (json_object_has_member (root, "n_notes"))
        run->n_notes = _cs_run_read_int (&r, root, "", "n_notes", 0, CS_RUN_MAX_ERRORS);
      run->header_samples = _cs_run_read_int (&r, root, "", "n_samples", 0, G_MAXUINT);
    }

  if (samples_text != NULL)
    _cs_run_read_columns_text (&r, samples_text, &columns);
  else
    _cs_run_read_columns_tree (&r, root, &columns);

  if (schema == 1)
    {
      /* Every sample whole, and statistics of them alone: the samples are
       * reduced as a recording run would, and counted as they come. */
      if (!r.failed && json_object_has_member (root, "stats"))
        _cs_run_read_object (&r, root, "", "stats");
      if (!r.failed)
        _cs_run_store_columns (run, &columns, TRUE);
    }
  else
    {
      read_buckets (&r, root, run);
      read_stats (&r, root, run);
      if (!r.failed)
        _cs_run_read_phases (&r, root, run);
      if (!r.failed)
        _cs_run_store_columns (run, &columns, FALSE);
    }

  if (r.failed)
    return NULL;

  return g_steal_pointer (&run);
}

CsRun *
cs_run_new_from_json (JsonNode  *node,
                      GError   **error)
{
  g_return_val_if_fail (node != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return run_from_json (node, NULL, error);
}

static const CsJsonLimits run_limits = {
  .what = "run",
  .max_size = MAX_FILE_SIZE,
  .max_depth = MAX_JSON_DEPTH,
  .max_values = MAX_JSON_VALUES,
};

CsRun *
cs_run_load (const char  *path,
             GError     **error)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GBytes) samples = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* The samples are read from their text: see _cs_run_read_columns_text (). */
  root = cs_json_load_file_apart (path, &run_limits, "samples", &samples, &local_error);
  if (root == NULL)
    {
      if (local_error->domain != G_IO_ERROR)
        g_propagate_error (error, g_steal_pointer (&local_error));
      else if (local_error->code == G_IO_ERROR_MESSAGE_TOO_LARGE)
        g_set_error_literal (error, CS_RUN_ERROR, CS_RUN_ERROR_TOO_LARGE, local_error->message);
      else if (local_error->code == G_IO_ERROR_INVALID_DATA)
        g_set_error (error, CS_RUN_ERROR, CS_RUN_ERROR_INVALID, "Invalid run file: %s", local_error->message);
      else
        g_set_error_literal (error, CS_RUN_ERROR, CS_RUN_ERROR_INVALID, local_error->message);
      return NULL;
    }

  return run_from_json (root, samples, error);
}

