/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-run"

/*
 * The samples' columns, read whole before any sample is made of them: from
 * the tree json-glib built (for a record handed over as a tree), or from
 * their text (for a record read from its file).
 *
 * The text scanner below is the one measured exception to json-glib in the
 * record (docs/ARCHITECTURE.md, "The measured exception to json-glib"). A
 * record of schema 1 holds every sample: 345,600 of them, 113 MB, for a day
 * at 250 ms, and json-glib builds a tree of all of it before anything can be
 * reduced: 12.4 s and 702 MB peak to parse such a file, over twice the
 * 300 MB an export may take. json-glib 1.6 has no way to read less
 * (json_parser_load_from_stream () builds the same tree, JsonReader walks a
 * tree already built), so the file reader has cs_json_load_file_apart () cut
 * "samples" out of the text and the columns are read here, straight into
 * arrays of doubles: 6.1 s and 175 MB for the same export. The text has
 * passed cs-json-io's checks (size, regular file, UTF-8, RFC 8259 tokens,
 * nesting, value count); this checks only the shape,
 * { "key": [ number or null, … ], … }, and every value gets the same range
 * checks and messages as the tree reader's.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "cs-run.h"
#include "cs-run-internal.h"

void
_cs_run_columns_clear (CsRunColumns *columns)
{
  g_free (columns->t);
  g_free (columns->files);
  g_free (columns->bytes);
  for (guint c = 0; c < CS_N_COUNTERS; c++)
    g_free (columns->values[c]);
}

/* What one value of a column must be. */
typedef enum {
  COLUMN_TIME,      /* a number of seconds */
  COLUMN_COUNT,     /* a whole number */
  COLUMN_COUNTER,   /* a number, or null for none */
} ColumnKind;

typedef enum {
  TOKEN_INTEGER,
  TOKEN_NUMBER,
  TOKEN_NULL,
  TOKEN_OTHER,
} TokenKind;

/* One value checked for its column, with the messages the tree reader gives. */
/* Where a sample's value failed, made only then: an old day-long record has
 * 7.6 million values, and formatting each one's place took a tenth of its
 * reading. */
static void
fail_sample (CsRunReader *r,
             guint        i,
             const char  *name,
             const char  *what)
{
  char where[32];

  g_snprintf (where, sizeof where, "samples[%u]", i);
  _cs_run_fail_field (r, where, name, what);
}

static void
column_value (CsRunReader *r,
              ColumnKind   kind,
              TokenKind    token,
              double       number,
              gint64       integer,
              guint        i,
              const char  *name,
              double      *out_double,
              guint64     *out_count)
{
  double max;

  if (r->failed)
    return;

  if (kind == COLUMN_COUNT)
    {
      max = g_str_equal (name, "bytes_done") ? MAX_BYTES : MAX_COUNT;
      if (token != TOKEN_INTEGER)
        {
          fail_sample (r, i, name, "must be a whole number");
          return;
        }
      if (integer < 0 || (double) integer > max)
        {
          g_autofree char *what = g_strdup_printf ("is out of range (%" G_GINT64_FORMAT ")", integer);

          fail_sample (r, i, name, what);
          return;
        }
      *out_count = (guint64) integer;
      return;
    }

  if (kind == COLUMN_COUNTER && token == TOKEN_NULL)
    {
      *out_double = NAN;
      return;
    }
  if (token != TOKEN_INTEGER && token != TOKEN_NUMBER)
    {
      fail_sample (r, i, name, "must be a number");
      return;
    }
  if (token == TOKEN_INTEGER)
    number = (double) integer;
  max = kind == COLUMN_TIME ? MAX_DURATION : MAX_COUNTER_VALUE;
  if (!isfinite (number) || number < 0 || number > max)
    {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      g_autofree char *what = g_strdup_printf ("is out of range (%s)",
                                               g_ascii_dtostr (buf, sizeof buf, number));

      fail_sample (r, i, name, what);
      return;
    }
  *out_double = number;
}

/* Where a column goes, by its key: a slot for doubles or for counts, and
 * its place among the lengths; FALSE for a key not ours. */
static gboolean
column_slot (CsRunColumns   *columns,
             const char     *name,
             ColumnKind     *out_kind,
             double       ***out_doubles,
             guint64      ***out_counts,
             int            *out_index)
{
  CsCounter counter;

  *out_doubles = NULL;
  *out_counts = NULL;
  if (g_str_equal (name, "t"))
    {
      *out_kind = COLUMN_TIME;
      *out_doubles = &columns->t;
      *out_index = -1;
    }
  else if (g_str_equal (name, "files_done") || g_str_equal (name, "bytes_done"))
    {
      *out_kind = COLUMN_COUNT;
      *out_counts = name[0] == 'f' ? &columns->files : &columns->bytes;
      *out_index = name[0] == 'f' ? 0 : 1;
    }
  else if (cs_counter_from_key (name, &counter))
    {
      *out_kind = COLUMN_COUNTER;
      *out_doubles = &columns->values[counter];
      *out_index = 2 + (int) counter;
    }
  else
    {
      return FALSE;
    }

  return TRUE;
}

static const char *
column_name (guint k)
{
  return k == 0 ? "files_done" : k == 1 ? "bytes_done" : cs_counter_get_info (k - 2)->key;
}

static void
columns_check (CsRunReader  *r,
               CsRunColumns *columns,
               guint         n_t,
               guint         lengths[CS_N_COUNTERS + 2])
{
  if (r->failed)
    return;
  if (columns->t == NULL)
    {
      _cs_run_fail_field (r, "samples", "t", "is missing");
      return;
    }
  for (guint k = 0; k < CS_N_COUNTERS + 2; k++)
    {
      gboolean present = k == 0 ? columns->files != NULL : k == 1 ? columns->bytes != NULL
                         : columns->values[k - 2] != NULL;

      /* A counter added in a later version is simply absent from older files. */
      if (!present && k >= 2)
        continue;
      if (!present)
        {
          _cs_run_fail_field (r, "samples", column_name (k), "is missing");
          return;
        }
      if (lengths[k] != n_t)
        {
          _cs_run_reader_fail (r, "“samples.%s” has %u values, “samples.t” has %u", column_name (k), lengths[k], n_t);
          return;
        }
    }
  columns->n = n_t;
}

static TokenKind
node_token (JsonNode *node,
            double   *number,
            gint64   *integer)
{
  GType type;

  if (JSON_NODE_HOLDS_NULL (node))
    return TOKEN_NULL;
  type = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_INVALID;
  if (type == G_TYPE_INT64)
    {
      *integer = json_node_get_int (node);
      return TOKEN_INTEGER;
    }
  if (type == G_TYPE_DOUBLE)
    {
      *number = json_node_get_double (node);
      return TOKEN_NUMBER;
    }

  return TOKEN_OTHER;
}

/* The samples' columns from a tree. */
void
_cs_run_read_columns_tree (CsRunReader  *r,
                           JsonObject   *root,
                           CsRunColumns *columns)
{
  JsonObject *o = _cs_run_read_object (r, root, "", "samples");
  guint lengths[CS_N_COUNTERS + 2] = { 0 };
  JsonArray *arrays[CS_N_COUNTERS + 2] = { NULL };
  JsonArray *t;
  guint n_t;

  if (o == NULL)
    return;
  t = _cs_run_read_array (r, o, "samples", "t", TRUE);
  if (t == NULL)
    return;
  n_t = json_array_get_length (t);
  if (n_t > MAX_SAMPLES)
    {
      _cs_run_reader_fail (r, "more than %d samples", MAX_SAMPLES);
      return;
    }
  columns->t = g_new (double, MAX (n_t, 1));

  for (guint k = 0; k < CS_N_COUNTERS + 2 && !r->failed; k++)
    {
      arrays[k] = _cs_run_read_array (r, o, "samples", column_name (k), k < 2);
      if (arrays[k] == NULL)
        continue;
      lengths[k] = json_array_get_length (arrays[k]);
      if (lengths[k] != n_t)
        continue;
      if (k == 0)
        columns->files = g_new (guint64, MAX (n_t, 1));
      else if (k == 1)
        columns->bytes = g_new (guint64, MAX (n_t, 1));
      else
        columns->values[k - 2] = g_new (double, MAX (n_t, 1));
    }
  for (guint k = 0; k < CS_N_COUNTERS + 2 && !r->failed; k++)
    if (arrays[k] != NULL && lengths[k] != n_t)
      _cs_run_reader_fail (r, "“samples.%s” has %u values, “samples.t” has %u", column_name (k), lengths[k], n_t);

  /* In sample order, so the first bad value named is the earliest. */
  for (guint i = 0; i < n_t && !r->failed; i++)
    {
      double number = 0;
      gint64 integer = 0;
      TokenKind token;

      token = node_token (json_array_get_element (t, i), &number, &integer);
      column_value (r, COLUMN_TIME, token, number, integer, i, "t", &columns->t[i], NULL);
      for (guint k = 0; k < CS_N_COUNTERS + 2; k++)
        {
          if (arrays[k] == NULL)
            continue;
          token = node_token (json_array_get_element (arrays[k], i), &number, &integer);
          if (k < 2)
            column_value (r, COLUMN_COUNT, token, number, integer, i, column_name (k), NULL,
                          k == 0 ? &columns->files[i] : &columns->bytes[i]);
          else
            column_value (r, COLUMN_COUNTER, token, number, integer, i, column_name (k),
                          &columns->values[k - 2][i], NULL);
        }
    }
  columns_check (r, columns, n_t, lengths);
}

/*
 * The samples' columns from their text, without a tree: a record of version
 * 1 holds every sample, 345,600 of them in 120 MB for a day, and json-glib's
 * tree of that is over a gigabyte. The text has passed the checks of
 * cs-json-io (tokens, UTF-8, nesting); the shape is checked here:
 * { "key": [ number or null, … ], … }.
 */
typedef struct {
  const char *p;
  const char *end;
} Text;

static void
text_space (Text *x)
{
  while (x->p < x->end && (*x->p == ' ' || *x->p == '\n' || *x->p == '\r' || *x->p == '\t'))
    x->p++;
}

static gboolean
text_take (Text *x,
           char  c)
{
  text_space (x);
  if (x->p < x->end && *x->p == c)
    {
      x->p++;
      return TRUE;
    }
  return FALSE;
}

/* A key without escapes (ours have none); NULL for anything else. */
static char *
text_key (Text *x)
{
  const char *start;

  text_space (x);
  if (x->p >= x->end || *x->p != '"')
    return NULL;
  start = ++x->p;
  while (x->p < x->end && *x->p != '"' && *x->p != '\\')
    x->p++;
  if (x->p >= x->end || *x->p != '"')
    return NULL;

  return g_strndup (start, (gsize) (x->p++ - start));
}

/* One value of a column. The text is NUL-terminated after its end. */
static TokenKind
text_value (Text   *x,
            double *number,
            gint64 *integer)
{
  const char *start;
  gboolean whole = TRUE;

  text_space (x);
  start = x->p;
  if (x->end - x->p >= 4 && memcmp (x->p, "null", 4) == 0)
    {
      x->p += 4;
      return TOKEN_NULL;
    }
  while (x->p < x->end && (g_ascii_isdigit (*x->p) || *x->p == '-'))
    x->p++;
  /* A fraction or an exponent: a double, not a count. */
  while (x->p < x->end && (g_ascii_isdigit (*x->p) || *x->p == '.' || *x->p == 'e' ||
                           *x->p == 'E' || *x->p == '-' || *x->p == '+'))
    {
      whole = FALSE;
      x->p++;
    }
  if (x->p == start)
    return TOKEN_OTHER;
  if (whole)
    {
      *integer = g_ascii_strtoll (start, NULL, 10);
      return TOKEN_INTEGER;
    }
  *number = g_ascii_strtod (start, NULL);

  return TOKEN_NUMBER;
}

/* Past one value of any kind (a column not ours), brackets and strings balanced. */
static gboolean
text_skip_value (Text *x)
{
  guint depth = 0;

  text_space (x);
  do
    {
      if (x->p >= x->end)
        return FALSE;
      if (*x->p == '"')
        {
          for (x->p++; x->p < x->end && *x->p != '"'; x->p++)
            if (*x->p == '\\')
              x->p++;
        }
      else if (*x->p == '[' || *x->p == '{')
        depth++;
      else if (*x->p == ']' || *x->p == '}')
        {
          if (depth == 0)
            return TRUE;
          depth--;
        }
      else if (*x->p == ',' && depth == 0)
        return TRUE;
      x->p++;
    }
  while (depth > 0 || (x->p < x->end && *x->p != ',' && *x->p != '}' && *x->p != ']'));

  return TRUE;
}

void
_cs_run_read_columns_text (CsRunReader  *r,
                           GBytes       *text,
                           CsRunColumns *columns)
{
  guint lengths[CS_N_COUNTERS + 2] = { 0 };
  gsize len = 0;
  Text x;
  guint n_t = 0;

  x.p = g_bytes_get_data (text, &len);
  x.end = x.p + len;

  if (!text_take (&x, '{'))
    {
      _cs_run_reader_fail (r, "“samples” must be an object");
      return;
    }
  if (!text_take (&x, '}'))
    {
      do
        {
          g_autofree char *name = text_key (&x);
          ColumnKind kind;
          double **doubles;
          guint64 **counts;
          int index;
          guint n = 0, cap = 0;

          if (name == NULL || !text_take (&x, ':'))
            {
              _cs_run_reader_fail (r, "“samples” is not made of columns");
              return;
            }
          if (!column_slot (columns, name, &kind, &doubles, &counts, &index))
            {
              if (!text_skip_value (&x))
                {
                  _cs_run_reader_fail (r, "“samples” is not made of columns");
                  return;
                }
              continue;
            }
          if (!text_take (&x, '['))
            {
              _cs_run_fail_field (r, "samples", name, "must be an array");
              return;
            }
          /* A key given twice counts once, its last values, as json-glib reads it. */
          if (doubles != NULL)
            g_clear_pointer (doubles, g_free);
          else
            g_clear_pointer (counts, g_free);
          if (!text_take (&x, ']'))
            {
              do
                {
                  double number = 0;
                  gint64 integer = 0;
                  TokenKind token = text_value (&x, &number, &integer);

                  if (n >= MAX_SAMPLES)
                    {
                      _cs_run_reader_fail (r, "more than %d samples", MAX_SAMPLES);
                      return;
                    }
                  if (n == cap)
                    {
                      cap = MAX (cap * 2, 4096);
                      if (doubles != NULL)
                        *doubles = g_renew (double, *doubles, cap);
                      else
                        *counts = g_renew (guint64, *counts, cap);
                    }
                  column_value (r, kind, token, number, integer, n, name,
                                doubles != NULL ? &(*doubles)[n] : NULL,
                                counts != NULL ? &(*counts)[n] : NULL);
                  n++;
                }
              while (!r->failed && text_take (&x, ','));
              if (r->failed)
                return;
              if (!text_take (&x, ']'))
                {
                  _cs_run_reader_fail (r, "“samples.%s” is not an array of numbers", name);
                  return;
                }
            }
          else if (doubles != NULL)
            {
              *doubles = g_new (double, 1);
            }
          else
            {
              *counts = g_new (guint64, 1);
            }
          if (index < 0)
            n_t = n;
          else
            lengths[index] = n;
        }
      while (text_take (&x, ','));

      if (!text_take (&x, '}'))
        {
          _cs_run_reader_fail (r, "“samples” is not made of columns");
          return;
        }
    }
  text_space (&x);
  if (x.p != x.end)
    {
      _cs_run_reader_fail (r, "“samples” is not made of columns");
      return;
    }

  columns_check (r, columns, n_t, lengths);
}

/* Each sample of the columns, as the sampler would have added it. @count:
 * into the statistics (a version 1 record keeps none to read back). */
void
_cs_run_store_columns (CsRun        *run,
                       CsRunColumns *columns,
                       gboolean      count)
{
  for (guint i = 0; i < columns->n; i++)
    {
      CsSample sample;

      sample.t = columns->t[i];
      sample.files_done = columns->files[i];
      sample.bytes_done = columns->bytes[i];
      for (guint c = 0; c < CS_N_COUNTERS; c++)
        sample.values[c] = columns->values[c] != NULL ? columns->values[c][i] : NAN;
      _cs_run_store_sample (run, &sample, count);
    }
  _cs_run_settle_pending (run);
}

