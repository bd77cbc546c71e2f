/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/*
 * JSON trees, built, printed and parsed with GLib alone.
 *
 * The run records, sweeps and reports are JSON. json-glib reads and writes
 * them well, but it links GIO, and loading GIO and its libraries is most of
 * what copyscope-cli spent before its first copy request on a cold cache
 * (about 8 of 20 ms). This is the subset the engine needs, with json-glib's
 * shape so the code reads the same: nodes holding an object, an array, a
 * value or null; a builder; a printer whose pretty output matches
 * json-glib 1.6 byte for byte (two-space indent, "name" : value), so files
 * written before and after this module are the same; and a strict RFC 8259
 * parser.
 *
 * Numbers: an integer literal that fits in 64 bits is a G_TYPE_INT64 value,
 * any other number a G_TYPE_DOUBLE. Doubles print with g_ascii_dtostr () and
 * a ".0" when they would otherwise read as an integer; non-finite doubles
 * print as null. A number past the double range parses as ±inf, as in
 * json-glib, so that readers report it with their range checks.
 *
 * Nodes are reference counted (atomically). Nodes returned by getters are
 * borrowed from their parent.
 */

typedef enum {
  CS_JSON_NODE_OBJECT,
  CS_JSON_NODE_ARRAY,
  CS_JSON_NODE_VALUE,
  CS_JSON_NODE_NULL,
} CsJsonNodeType;

typedef struct _CsJsonNode    CsJsonNode;
typedef struct _CsJsonObject  CsJsonObject;
typedef struct _CsJsonArray   CsJsonArray;
typedef struct _CsJsonBuilder CsJsonBuilder;

#define CS_JSON_ERROR (cs_json_error_quark ())

typedef enum {
  CS_JSON_ERROR_PARSE,
  CS_JSON_ERROR_DEPTH,
} CsJsonError;

GQuark          cs_json_error_quark                      (void);

/* Nodes */
CsJsonNode     *cs_json_node_ref                         (CsJsonNode     *node);
void            cs_json_node_unref                       (CsJsonNode     *node);
CsJsonNodeType  cs_json_node_get_node_type               (CsJsonNode     *node);
/* G_TYPE_INT64, G_TYPE_DOUBLE, G_TYPE_BOOLEAN or G_TYPE_STRING for a value,
 * G_TYPE_INVALID for anything else */
GType           cs_json_node_get_value_type              (CsJsonNode     *node);
/* NULL unless the node holds that kind */
CsJsonObject   *cs_json_node_get_object                  (CsJsonNode     *node);
CsJsonArray    *cs_json_node_get_array                   (CsJsonNode     *node);
const char     *cs_json_node_get_string                  (CsJsonNode     *node);
/* a double value converts (get_int truncates, saturating at the gint64
 * limits); anything else is 0 / FALSE */
gint64          cs_json_node_get_int                     (CsJsonNode     *node);
double          cs_json_node_get_double                  (CsJsonNode     *node);
gboolean        cs_json_node_get_boolean                 (CsJsonNode     *node);

#define CS_JSON_NODE_HOLDS_OBJECT(node) (cs_json_node_get_node_type (node) == CS_JSON_NODE_OBJECT)
#define CS_JSON_NODE_HOLDS_ARRAY(node)  (cs_json_node_get_node_type (node) == CS_JSON_NODE_ARRAY)
#define CS_JSON_NODE_HOLDS_VALUE(node)  (cs_json_node_get_node_type (node) == CS_JSON_NODE_VALUE)
#define CS_JSON_NODE_HOLDS_NULL(node)   (cs_json_node_get_node_type (node) == CS_JSON_NODE_NULL)

/* Objects keep their members in order; with a name given twice the last
 * value wins, in the place where the name first came (as in json-glib). */
guint           cs_json_object_get_size                  (CsJsonObject   *object);
CsJsonNode     *cs_json_object_get_member                (CsJsonObject   *object,
                                                          const char     *name);
gboolean        cs_json_object_has_member                (CsJsonObject   *object,
                                                          const char     *name);
/* NULL when absent or not an array */
CsJsonArray    *cs_json_object_get_array_member          (CsJsonObject   *object,
                                                          const char     *name);
gboolean        cs_json_object_get_boolean_member_with_default (CsJsonObject *object,
                                                          const char     *name,
                                                          gboolean        default_value);

guint           cs_json_array_get_length                 (CsJsonArray    *array);
CsJsonNode     *cs_json_array_get_element                (CsJsonArray    *array,
                                                          guint           index);

/* Building: the calls nest like the document. */
CsJsonBuilder  *cs_json_builder_new                      (void);
void            cs_json_builder_free                     (CsJsonBuilder  *builder);
void            cs_json_builder_begin_object             (CsJsonBuilder  *builder);
void            cs_json_builder_end_object               (CsJsonBuilder  *builder);
void            cs_json_builder_begin_array              (CsJsonBuilder  *builder);
void            cs_json_builder_end_array                (CsJsonBuilder  *builder);
/* inside an object, before each member's value */
void            cs_json_builder_set_member_name          (CsJsonBuilder  *builder,
                                                          const char     *name);
/* NULL adds null; the text must be UTF-8 (invalid bytes would be written
 * as U+FFFD, so the output stays JSON) */
void            cs_json_builder_add_string_value         (CsJsonBuilder  *builder,
                                                          const char     *value);
void            cs_json_builder_add_int_value            (CsJsonBuilder  *builder,
                                                          gint64          value);
void            cs_json_builder_add_double_value         (CsJsonBuilder  *builder,
                                                          double          value);
void            cs_json_builder_add_boolean_value        (CsJsonBuilder  *builder,
                                                          gboolean        value);
void            cs_json_builder_add_null_value           (CsJsonBuilder  *builder);
/* takes @node */
void            cs_json_builder_add_value                (CsJsonBuilder  *builder,
                                                          CsJsonNode     *node);
/* a new reference to the finished document, which may be a single scalar;
 * NULL while a container is still open or nothing was added */
CsJsonNode     *cs_json_builder_get_root                 (CsJsonBuilder  *builder);

/* Printing, pretty (two-space indent) or on one line. */
char           *cs_json_to_string                        (CsJsonNode     *node,
                                                          gboolean        pretty);

/* Parsing one JSON text (RFC 8259: UTF-8, one value, white space around it).
 * Deeper nesting than @max_depth is an error (CS_JSON_ERROR_DEPTH), so a
 * hostile file cannot exhaust the stack; each object or array is one level,
 * a lone scalar is depth 0. Strings cannot hold NUL, so "\u0000" is refused.
 * Errors read "line L, column C: …" (1-based, columns in characters). */
CsJsonNode     *cs_json_parse                            (const char     *data,
                                                          gsize           length,
                                                          guint           max_depth,
                                                          GError        **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CsJsonNode, cs_json_node_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CsJsonBuilder, cs_json_builder_free)

G_END_DECLS
