/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-run"

/*
 * One value of a record's JSON tree read and checked: present, of its type,
 * in its range. The first problem ends the import with a message naming the
 * field ("Invalid run file: “settings.threads” is out of range (-1)"), and
 * every later call does nothing, so a reader reads on without checking after
 * each field.
 */

#include "config.h"

#include <math.h>

#include "cs-run.h"
#include "cs-run-internal.h"

void
_cs_run_reader_fail (CsRunReader *r,
                     const char  *format,
                     ...)
{
  g_autofree char *message = NULL;
  va_list args;

  if (r->failed)
    return;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  r->failed = TRUE;
  g_set_error (r->error, CS_RUN_ERROR, CS_RUN_ERROR_INVALID,
               "Invalid run file: %s", message);
}

void
_cs_run_fail_field (CsRunReader *r,
                    const char  *where,
                    const char  *name,
                    const char  *what)
{
  if (where[0] == '\0')
    _cs_run_reader_fail (r, "“%s” %s", name, what);
  else if (name[0] == '\0')
    _cs_run_reader_fail (r, "“%s” %s", where, what);
  else
    _cs_run_reader_fail (r, "“%s.%s” %s", where, name, what);
}

JsonNode *
_cs_run_get_member (CsRunReader *r,
                    JsonObject  *object,
                    const char  *where,
                    const char  *name,
                    gboolean     required)
{
  JsonNode *node;

  if (r->failed)
    return NULL;

  node = json_object_get_member (object, name);
  if (node == NULL && required)
    _cs_run_fail_field (r, where, name, "is missing");

  return node;
}

JsonObject *
_cs_run_read_object (CsRunReader *r,
                     JsonObject  *object,
                     const char  *where,
                     const char  *name)
{
  JsonNode *node = _cs_run_get_member (r, object, where, name, TRUE);

  if (node == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      _cs_run_fail_field (r, where, name, "must be an object");
      return NULL;
    }

  return json_node_get_object (node);
}

JsonArray *
_cs_run_read_array (CsRunReader *r,
                    JsonObject  *object,
                    const char  *where,
                    const char  *name,
                    gboolean     required)
{
  JsonNode *node = _cs_run_get_member (r, object, where, name, required);

  if (node == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      _cs_run_fail_field (r, where, name, "must be an array");
      return NULL;
    }

  return json_node_get_array (node);
}

char *
_cs_run_read_string_node (CsRunReader *r,
                          JsonNode    *node,
                          const char  *where,
                          const char  *name,
                          gboolean     nullable)
{
  if (r->failed)
    return NULL;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    {
      if (!nullable)
        _cs_run_fail_field (r, where, name, "must be a string");
      return NULL;
    }
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    {
      _cs_run_fail_field (r, where, name, "must be a string");
      return NULL;
    }

  return g_strdup (json_node_get_string (node));
}

char *
_cs_run_read_string (CsRunReader *r,
                     JsonObject  *object,
                     const char  *where,
                     const char  *name,
                     gboolean     nullable)
{
  JsonNode *node = _cs_run_get_member (r, object, where, name, TRUE);

  return _cs_run_read_string_node (r, node, where, name, nullable);
}

gint64
_cs_run_read_int_node (CsRunReader *r,
                       JsonNode    *node,
                       const char  *where,
                       const char  *name,
                       gint64       min,
                       double       max)
{
  gint64 value;

  if (r->failed || node == NULL)
    return 0;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64)
    {
      _cs_run_fail_field (r, where, name, "must be a whole number");
      return 0;
    }

  value = json_node_get_int (node);
  if (value < min || (double) value > max)
    {
      g_autofree char *what = g_strdup_printf ("is out of range (%" G_GINT64_FORMAT ")", value);

      _cs_run_fail_field (r, where, name, what);
      return 0;
    }

  return value;
}

gint64
_cs_run_read_int (CsRunReader *r,
                  JsonObject  *object,
                  const char  *where,
                  const char  *name,
                  gint64       min,
                  double       max)
{
  JsonNode *node = _cs_run_get_member (r, object, where, name, TRUE);

  return _cs_run_read_int_node (r, node, where, name, min, max);
}

double
_cs_run_read_double_node (CsRunReader *r,
                          JsonNode    *node,
                          const char  *where,
                          const char  *name,
                          double       min,
                          double       max,
                          gboolean     nullable)
{
  GType type;
  double value;

  if (r->failed || node == NULL)
    return NAN;
  if (nullable && JSON_NODE_HOLDS_NULL (node))
    return NAN;

  type = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_INVALID;
  if (type != G_TYPE_INT64 && type != G_TYPE_DOUBLE)
    {
      _cs_run_fail_field (r, where, name, "must be a number");
      return NAN;
    }

  value = json_node_get_double (node);
  if (!isfinite (value) || value < min || value > max)
    {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      g_autofree char *what = g_strdup_printf ("is out of range (%s)",
                                               g_ascii_dtostr (buf, sizeof buf, value));

      _cs_run_fail_field (r, where, name, what);
      return NAN;
    }

  return value;
}

double
_cs_run_read_double (CsRunReader *r,
                     JsonObject  *object,
                     const char  *where,
                     const char  *name,
                     double       min,
                     double       max)
{
  JsonNode *node = _cs_run_get_member (r, object, where, name, TRUE);

  return _cs_run_read_double_node (r, node, where, name, min, max, FALSE);
}

gboolean
_cs_run_read_bool (CsRunReader *r,
                   JsonObject  *object,
                   const char  *where,
                   const char  *name)
{
  JsonNode *node = _cs_run_get_member (r, object, where, name, TRUE);

  if (node == NULL)
    return FALSE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    {
      _cs_run_fail_field (r, where, name, "must be true or false");
      return FALSE;
    }

  return json_node_get_boolean (node);
}

