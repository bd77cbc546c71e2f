/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-json"

#include "config.h"

#include <math.h>
#include <string.h>

#include "cs-json.h"

/*
 * One struct for every node, tagged with its type. CsJsonObject and
 * CsJsonArray are the node itself behind a distinct pointer type, so the
 * getters cost nothing and the types still keep callers honest.
 *
 * Nothing here recurses: freeing, printing and parsing walk with explicit
 * stacks, so a deep tree (a hostile file parsed with a large max_depth, or a
 * long chain built by hand) costs heap, never the C stack.
 */

typedef enum {
  VALUE_INT,
  VALUE_DOUBLE,
  VALUE_BOOLEAN,
  VALUE_STRING,
} ValueKind;

typedef struct {
  char       *name;
  CsJsonNode *node;
} Member;

struct _CsJsonNode
{
  gatomicrefcount ref_count;
  guint8          type;         /* CsJsonNodeType */
  guint8          kind;         /* ValueKind, for CS_JSON_NODE_VALUE */

  union {
    struct {
      GArray     *members;      /* of Member, in order, names unique */
      GHashTable *index;        /* name → position + 1, once it is long */
    } object;
    GPtrArray *array;           /* of CsJsonNode, owned */
    gint64     v_int;
    double     v_double;
    gboolean   v_boolean;
    char      *v_string;
  } data;
};

/* Objects in run files have a dozen members; past this many a lookup by
 * scanning would make a hostile object with a million members quadratic. */
#define INDEX_THRESHOLD 16

/* An open object or array, for the builder and the parser alike. */
typedef struct {
  CsJsonNode *container;
  char       *name;             /* member name waiting for its value */
} OpenContainer;

G_DEFINE_QUARK (cs-json-error-quark, cs_json_error)

/* Nodes */

static CsJsonNode *
node_new (CsJsonNodeType type)
{
  CsJsonNode *node = g_new0 (CsJsonNode, 1);

  g_atomic_ref_count_init (&node->ref_count);
  node->type = type;

  switch (type)
    {
    case CS_JSON_NODE_OBJECT:
      node->data.object.members = g_array_new (FALSE, FALSE, sizeof (Member));
      break;
    case CS_JSON_NODE_ARRAY:
      node->data.array = g_ptr_array_new ();
      break;
    case CS_JSON_NODE_VALUE:
    case CS_JSON_NODE_NULL:
    default:
      break;
    }

  return node;
}

static CsJsonNode *
value_new (ValueKind kind)
{
  CsJsonNode *node = node_new (CS_JSON_NODE_VALUE);

  node->kind = kind;
  return node;
}

static gboolean
is_container (CsJsonNode *node)
{
  return node->type == CS_JSON_NODE_OBJECT || node->type == CS_JSON_NODE_ARRAY;
}

CsJsonNode *
cs_json_node_ref (CsJsonNode *node)
{
  g_return_val_if_fail (node != NULL, NULL);

  g_atomic_ref_count_inc (&node->ref_count);
  return node;
}

/* Drops a child's reference; a container that dies goes on @pending rather
 * than into a recursive call, a scalar is freed on the spot (arrays of
 * millions of numbers should not each take a trip through the stack). */
static void
release_child (CsJsonNode  *child,
               GPtrArray  **pending)
{
  if (!g_atomic_ref_count_dec (&child->ref_count))
    return;

  if (is_container (child))
    {
      if (*pending == NULL)
        *pending = g_ptr_array_new ();
      g_ptr_array_add (*pending, child);
      return;
    }

  if (child->type == CS_JSON_NODE_VALUE && child->kind == VALUE_STRING)
    g_free (child->data.v_string);
  g_free (child);
}

void
cs_json_node_unref (CsJsonNode *node)
{
  GPtrArray *pending = NULL;

  g_return_if_fail (node != NULL);

  if (!g_atomic_ref_count_dec (&node->ref_count))
    return;

  for (;;)
    {
      switch ((CsJsonNodeType) node->type)
        {
        case CS_JSON_NODE_OBJECT:
          {
            GArray *members = node->data.object.members;

            g_clear_pointer (&node->data.object.index, g_hash_table_destroy);
            for (guint i = 0; i < members->len; i++)
              {
                Member *m = &g_array_index (members, Member, i);

                g_free (m->name);
                release_child (m->node, &pending);
              }
            g_array_free (members, TRUE);
          }
          break;

        case CS_JSON_NODE_ARRAY:
          {
            GPtrArray *array = node->data.array;

            for (guint i = 0; i < array->len; i++)
              release_child (g_ptr_array_index (array, i), &pending);
            g_ptr_array_free (array, TRUE);
          }
          break;

        case CS_JSON_NODE_VALUE:
          if (node->kind == VALUE_STRING)
            g_free (node->data.v_string);
          break;

        case CS_JSON_NODE_NULL:
        default:
          break;
        }

      g_free (node);

      if (pending == NULL || pending->len == 0)
        break;
      node = g_ptr_array_steal_index_fast (pending, pending->len - 1);
    }

  if (pending != NULL)
    g_ptr_array_free (pending, TRUE);
}

CsJsonNodeType
cs_json_node_get_node_type (CsJsonNode *node)
{
  g_return_val_if_fail (node != NULL, CS_JSON_NODE_NULL);

  return node->type;
}

GType
cs_json_node_get_value_type (CsJsonNode *node)
{
  g_return_val_if_fail (node != NULL, G_TYPE_INVALID);

  if (node->type != CS_JSON_NODE_VALUE)
    return G_TYPE_INVALID;

  switch ((ValueKind) node->kind)
    {
    case VALUE_INT:
      return G_TYPE_INT64;
    case VALUE_DOUBLE:
      return G_TYPE_DOUBLE;
    case VALUE_BOOLEAN:
      return G_TYPE_BOOLEAN;
    case VALUE_STRING:
      return G_TYPE_STRING;
    default:
      return G_TYPE_INVALID;
    }
}

CsJsonObject *
cs_json_node_get_object (CsJsonNode *node)
{
  g_return_val_if_fail (node != NULL, NULL);

  return node->type == CS_JSON_NODE_OBJECT ? (CsJsonObject *) node : NULL;
}

CsJsonArray *
cs_json_node_get_array (CsJsonNode *node)
{
  g_return_val_if_fail (node != NULL, NULL);

  return node->type == CS_JSON_NODE_ARRAY ? (CsJsonArray *) node : NULL;
}

const char *
cs_json_node_get_string (CsJsonNode *node)
{
  g_return_val_if_fail (node != NULL, NULL);

  if (node->type == CS_JSON_NODE_VALUE && node->kind == VALUE_STRING)
    return node->data.v_string;
  return NULL;
}

gint64
cs_json_node_get_int (CsJsonNode *node)
{
  g_return_val_if_fail (node != NULL, 0);

  if (node->type != CS_JSON_NODE_VALUE)
    return 0;

  if (node->kind == VALUE_INT)
    return node->data.v_int;

  if (node->kind == VALUE_DOUBLE)
    {
      double v = node->data.v_double;

      /* Casting a double outside gint64's range is undefined behaviour;
       * saturate instead (and NaN, which compares false, becomes 0). */
      if (isnan (v))
        return 0;
      if (v >= 9223372036854775808.0)
        return G_MAXINT64;
      if (v < -9223372036854775808.0)
        return G_MININT64;
      return (gint64) v;
    }

  return 0;
}

double
cs_json_node_get_double (CsJsonNode *node)
{
  g_return_val_if_fail (node != NULL, 0.0);

  if (node->type != CS_JSON_NODE_VALUE)
    return 0.0;
  if (node->kind == VALUE_DOUBLE)
    return node->data.v_double;
  if (node->kind == VALUE_INT)
    return (double) node->data.v_int;
  return 0.0;
}

gboolean
cs_json_node_get_boolean (CsJsonNode *node)
{
  g_return_val_if_fail (node != NULL, FALSE);

  if (node->type == CS_JSON_NODE_VALUE && node->kind == VALUE_BOOLEAN)
    return node->data.v_boolean;
  return FALSE;
}

/* Objects */

static CsJsonNode *
object_node (CsJsonObject *object)
{
  CsJsonNode *node = (CsJsonNode *) object;

  if (node == NULL || node->type != CS_JSON_NODE_OBJECT)
    return NULL;
  return node;
}

static gboolean
object_find (CsJsonNode *node,
             const char *name,
             guint      *out_position)
{
  GArray *members = node->data.object.members;

  if (node->data.object.index != NULL)
    {
      guint position = GPOINTER_TO_UINT (g_hash_table_lookup (node->data.object.index, name));

      if (position == 0)
        return FALSE;
      *out_position = position - 1;
      return TRUE;
    }

  for (guint i = 0; i < members->len; i++)
    {
      if (strcmp (g_array_index (members, Member, i).name, name) == 0)
        {
          *out_position = i;
          return TRUE;
        }
    }

  return FALSE;
}

/* Takes @name and @node. A name given again keeps its first place and takes
 * the new value, as json-glib does, so a document with duplicate names
 * prints the same through either library and the last value wins. */
static void
object_set_member (CsJsonNode *object,
                   char       *name,
                   CsJsonNode *node)
{
  GArray *members = object->data.object.members;
  Member member = { name, node };
  guint position;

  if (object_find (object, name, &position))
    {
      Member *m = &g_array_index (members, Member, position);

      cs_json_node_unref (m->node);
      m->node = node;
      g_free (name);
      return;
    }

  g_array_append_val (members, member);

  if (object->data.object.index != NULL)
    {
      g_hash_table_insert (object->data.object.index, name, GUINT_TO_POINTER (members->len));
    }
  else if (members->len > INDEX_THRESHOLD)
    {
      /* Keys borrow the names the members own. */
      object->data.object.index = g_hash_table_new (g_str_hash, g_str_equal);
      for (guint i = 0; i < members->len; i++)
        g_hash_table_insert (object->data.object.index,
                             g_array_index (members, Member, i).name,
                             GUINT_TO_POINTER (i + 1));
    }
}

guint
cs_json_object_get_size (CsJsonObject *object)
{
  CsJsonNode *node = object_node (object);

  g_return_val_if_fail (node != NULL, 0);

  return node->data.object.members->len;
}

CsJsonNode *
cs_json_object_get_member (CsJsonObject *object,
                           const char   *name)
{
  CsJsonNode *node = object_node (object);
  guint position;

  g_return_val_if_fail (node != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  if (!object_find (node, name, &position))
    return NULL;
  return g_array_index (node->data.object.members, Member, position).node;
}

gboolean
cs_json_object_has_member (CsJsonObject *object,
                           const char   *name)
{
  CsJsonNode *node = object_node (object);
  guint position;

  g_return_val_if_fail (node != NULL, FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  return object_find (node, name, &position);
}

CsJsonArray *
cs_json_object_get_array_member (CsJsonObject *object,
                                 const char   *name)
{
  CsJsonNode *member = cs_json_object_get_member (object, name);

  if (member == NULL || member->type != CS_JSON_NODE_ARRAY)
    return NULL;
  return (CsJsonArray *) member;
}

gboolean
cs_json_object_get_boolean_member_with_default (CsJsonObject *object,
                                                const char   *name,
                                                gboolean      default_value)
{
  CsJsonNode *member = cs_json_object_get_member (object, name);

  if (member == NULL || member->type != CS_JSON_NODE_VALUE || member->kind != VALUE_BOOLEAN)
    return default_value;
  return member->data.v_boolean;
}

/* Arrays */

guint
cs_json_array_get_length (CsJsonArray *array)
{
  CsJsonNode *node = (CsJsonNode *) array;

  g_return_val_if_fail (node != NULL && node->type == CS_JSON_NODE_ARRAY, 0);

  return node->data.array->len;
}

CsJsonNode *
cs_json_array_get_element (CsJsonArray *array,
                           guint        index)
{
  CsJsonNode *node = (CsJsonNode *) array;

  g_return_val_if_fail (node != NULL && node->type == CS_JSON_NODE_ARRAY, NULL);
  g_return_val_if_fail (index < node->data.array->len, NULL);

  return g_ptr_array_index (node->data.array, index);
}

/* Shared by the builder and the parser: puts @node (taken) where the
 * document is open, the caller having checked that it may go there. */
static void
attach (GArray      *stack,
        CsJsonNode **root,
        CsJsonNode  *node)
{
  OpenContainer *top;

  if (stack->len == 0)
    {
      g_assert (*root == NULL);
      *root = node;
      return;
    }

  top = &g_array_index (stack, OpenContainer, stack->len - 1);
  if (top->container->type == CS_JSON_NODE_ARRAY)
    {
      g_ptr_array_add (top->container->data.array, node);
    }
  else
    {
      object_set_member (top->container, top->name, node);
      top->name = NULL;
    }
}

static void
clear_open_container (gpointer data)
{
  OpenContainer *open = data;

  g_free (open->name);
}

/* Builder */

struct _CsJsonBuilder
{
  GArray     *stack;            /* of OpenContainer */
  CsJsonNode *root;
};

CsJsonBuilder *
cs_json_builder_new (void)
{
  CsJsonBuilder *builder = g_new0 (CsJsonBuilder, 1);

  builder->stack = g_array_new (FALSE, FALSE, sizeof (OpenContainer));
  g_array_set_clear_func (builder->stack, clear_open_container);

  return builder;
}

void
cs_json_builder_free (CsJsonBuilder *builder)
{
  g_return_if_fail (builder != NULL);

  /* The open containers are already part of the root's tree. */
  g_array_free (builder->stack, TRUE);
  g_clear_pointer (&builder->root, cs_json_node_unref);
  g_free (builder);
}

static OpenContainer *
builder_top (CsJsonBuilder *builder)
{
  if (builder->stack->len == 0)
    return NULL;
  return &g_array_index (builder->stack, OpenContainer, builder->stack->len - 1);
}

/* The text is promised to be UTF-8; if it is not, the document still has to
 * be JSON that reads back, so the bad bytes become U+FFFD. */
static char *
dup_utf8 (const char *text)
{
  if (g_utf8_validate (text, -1, NULL))
    return g_strdup (text);
  return g_utf8_make_valid (text, -1);
}

/* Takes @node; FALSE (and @node dropped) where no value may go. */
static gboolean
builder_add (CsJsonBuilder *builder,
             const char    *func,
             CsJsonNode    *node)
{
  OpenContainer *top = builder_top (builder);

  if (top == NULL && builder->root != NULL)
    {
      g_critical ("%s: the document is complete; a second top-level value is not JSON", func);
      cs_json_node_unref (node);
      return FALSE;
    }

  if (top != NULL && top->container->type == CS_JSON_NODE_OBJECT && top->name == NULL)
    {
      g_critical ("%s: a value inside an object needs cs_json_builder_set_member_name () first", func);
      cs_json_node_unref (node);
      return FALSE;
    }

  attach (builder->stack, &builder->root, node);
  return TRUE;
}

static void
builder_begin (CsJsonBuilder  *builder,
               const char     *func,
               CsJsonNodeType  type)
{
  CsJsonNode *node = node_new (type);
  OpenContainer open = { node, NULL };

  /* Attached at once: its parent (or the root) holds it from here on. */
  if (builder_add (builder, func, node))
    g_array_append_val (builder->stack, open);
}

static void
builder_end (CsJsonBuilder  *builder,
             const char     *func,
             CsJsonNodeType  type)
{
  OpenContainer *top = builder_top (builder);

  if (top == NULL || top->container->type != type)
    {
      g_critical ("%s: no %s is open", func, type == CS_JSON_NODE_OBJECT ? "object" : "array");
      return;
    }
  if (top->name != NULL)
    {
      g_critical ("%s: member “%s” has no value", func, top->name);
      return;
    }

  g_array_set_size (builder->stack, builder->stack->len - 1);
}

void
cs_json_builder_begin_object (CsJsonBuilder *builder)
{
  g_return_if_fail (builder != NULL);

  builder_begin (builder, G_STRFUNC, CS_JSON_NODE_OBJECT);
}

void
cs_json_builder_end_object (CsJsonBuilder *builder)
{
  g_return_if_fail (builder != NULL);

  builder_end (builder, G_STRFUNC, CS_JSON_NODE_OBJECT);
}

void
cs_json_builder_begin_array (CsJsonBuilder *builder)
{
  g_return_if_fail (builder != NULL);

  builder_begin (builder, G_STRFUNC, CS_JSON_NODE_ARRAY);
}

void
cs_json_builder_end_array (CsJsonBuilder *builder)
{
  g_return_if_fail (builder != NULL);

  builder_end (builder, G_STRFUNC, CS_JSON_NODE_ARRAY);
}

void
cs_json_builder_set_member_name (CsJsonBuilder *builder,
                                 const char    *name)
{
  OpenContainer *top;

  g_return_if_fail (builder != NULL);
  g_return_if_fail (name != NULL);

  top = builder_top (builder);
  if (top == NULL || top->container->type != CS_JSON_NODE_OBJECT)
    {
      g_critical ("%s: member “%s” outside an object", G_STRFUNC, name);
      return;
    }
  if (top->name != NULL)
    {
      g_critical ("%s: member “%s” has no value", G_STRFUNC, top->name);
      return;
    }

  top->name = dup_utf8 (name);
}

void
cs_json_builder_add_string_value (CsJsonBuilder *builder,
                                  const char    *value)
{
  CsJsonNode *node;

  g_return_if_fail (builder != NULL);

  if (value == NULL)
    {
      node = node_new (CS_JSON_NODE_NULL);
    }
  else
    {
      node = value_new (VALUE_STRING);
      node->data.v_string = dup_utf8 (value);
    }
  builder_add (builder, G_STRFUNC, node);
}

void
cs_json_builder_add_int_value (CsJsonBuilder *builder,
                               gint64         value)
{
  CsJsonNode *node;

  g_return_if_fail (builder != NULL);

  node = value_new (VALUE_INT);
  node->data.v_int = value;
  builder_add (builder, G_STRFUNC, node);
}

void
cs_json_builder_add_double_value (CsJsonBuilder *builder,
                                  double         value)
{
  CsJsonNode *node;

  g_return_if_fail (builder != NULL);

  node = value_new (VALUE_DOUBLE);
  node->data.v_double = value;
  builder_add (builder, G_STRFUNC, node);
}

void
cs_json_builder_add_boolean_value (CsJsonBuilder *builder,
                                   gboolean       value)
{
  CsJsonNode *node;

  g_return_if_fail (builder != NULL);

  node = value_new (VALUE_BOOLEAN);
  node->data.v_boolean = value != FALSE;
  builder_add (builder, G_STRFUNC, node);
}

void
cs_json_builder_add_null_value (CsJsonBuilder *builder)
{
  g_return_if_fail (builder != NULL);

  builder_add (builder, G_STRFUNC, node_new (CS_JSON_NODE_NULL));
}

void
cs_json_builder_add_value (CsJsonBuilder *builder,
                           CsJsonNode    *node)
{
  g_return_if_fail (node != NULL);
  if (builder == NULL)
    {
      /* Taken in any case: the caller has given it away. */
      cs_json_node_unref (node);
      g_return_if_fail (builder != NULL);
    }

  builder_add (builder, G_STRFUNC, node);
}

CsJsonNode *
cs_json_builder_get_root (CsJsonBuilder *builder)
{
  g_return_val_if_fail (builder != NULL, NULL);

  if (builder->stack->len > 0 || builder->root == NULL)
    return NULL;
  return cs_json_node_ref (builder->root);
}

/* Printing: the layout of json-glib 1.6's JsonGenerator with indent 2. */

static void
append_indent (GString *out,
               guint    level)
{
  static const char spaces[] = "                                                                ";
  gsize n = (gsize) level * 2;

  while (n > 0)
    {
      gsize chunk = MIN (n, sizeof spaces - 1);

      g_string_append_len (out, spaces, chunk);
      n -= chunk;
    }
}

static void
append_int (GString *out,
            gint64   value)
{
  char buf[24];
  char *p = buf + sizeof buf;
  guint64 magnitude = value < 0 ? 0 - (guint64) value : (guint64) value;

  do
    {
      *--p = (char) ('0' + magnitude % 10);
      magnitude /= 10;
    }
  while (magnitude != 0);
  if (value < 0)
    *--p = '-';

  g_string_append_len (out, p, buf + sizeof buf - p);
}

static void
append_double (GString *out,
               double   value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  /* JSON has no inf or nan; json-glib would write "inf.0". */
  if (!isfinite (value))
    {
      g_string_append_len (out, "null", 4);
      return;
    }

  g_ascii_dtostr (buf, sizeof buf, value);
  g_string_append (out, buf);
  /* Keep a double a double when read back, as json-glib does, but not by
   * turning "1e-300" into the invalid "1e-300.0" as json-glib 1.6 does. */
  if (strpbrk (buf, ".eE") == NULL)
    g_string_append_len (out, ".0", 2);
}

/* json-glib's escaping, except that it leaves 0x1f raw, which is not JSON. */
static void
append_string (GString    *out,
               const char *text)
{
  static const char hex[] = "0123456789abcdef";
  const guchar *run = (const guchar *) text;
  const guchar *p;

  g_string_append_c (out, '"');

  for (p = run; *p != '\0'; p++)
    {
      guchar c = *p;

      if (c >= 0x20 && c != '"' && c != '\\' && c != 0x7f)
        continue;

      g_string_append_len (out, (const char *) run, p - run);
      run = p + 1;

      switch (c)
        {
        case '"':
          g_string_append_len (out, "\\\"", 2);
          break;
        case '\\':
          g_string_append_len (out, "\\\\", 2);
          break;
        case '\b':
          g_string_append_len (out, "\\b", 2);
          break;
        case '\f':
          g_string_append_len (out, "\\f", 2);
          break;
        case '\n':
          g_string_append_len (out, "\\n", 2);
          break;
        case '\r':
          g_string_append_len (out, "\\r", 2);
          break;
        case '\t':
          g_string_append_len (out, "\\t", 2);
          break;
        default:
          {
            char escape[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xf] };

            g_string_append_len (out, escape, sizeof escape);
          }
          break;
        }
    }

  g_string_append_len (out, (const char *) run, p - run);
  g_string_append_c (out, '"');
}

static guint
container_length (CsJsonNode *node)
{
  if (node->type == CS_JSON_NODE_OBJECT)
    return node->data.object.members->len;
  return node->data.array->len;
}

typedef struct {
  CsJsonNode *node;
  guint       next;             /* index of the next member or element */
} PrintFrame;

/* Writes @node at @level; a non-empty container is only opened, pushed on
 * @stack for the caller to fill (TRUE). */
static gboolean
print_node (GString    *out,
            GArray     *stack,
            CsJsonNode *node,
            guint       level,
            gboolean    pretty)
{
  switch ((CsJsonNodeType) node->type)
    {
    case CS_JSON_NODE_OBJECT:
    case CS_JSON_NODE_ARRAY:
      {
        gboolean object = node->type == CS_JSON_NODE_OBJECT;

        g_string_append_c (out, object ? '{' : '[');
        if (container_length (node) > 0)
          {
            PrintFrame frame = { node, 0 };

            g_array_append_val (stack, frame);
            return TRUE;
          }
        /* json-glib's quirk: an empty object still gets its closing
         * indentation ("{    }" two levels down), an empty array does not. */
        if (object && pretty)
          append_indent (out, level);
        g_string_append_c (out, object ? '}' : ']');
      }
      return FALSE;

    case CS_JSON_NODE_NULL:
      g_string_append_len (out, "null", 4);
      return FALSE;

    case CS_JSON_NODE_VALUE:
      switch ((ValueKind) node->kind)
        {
        case VALUE_INT:
          append_int (out, node->data.v_int);
          break;
        case VALUE_DOUBLE:
          append_double (out, node->data.v_double);
          break;
        case VALUE_BOOLEAN:
          if (node->data.v_boolean)
            g_string_append_len (out, "true", 4);
          else
            g_string_append_len (out, "false", 5);
          break;
        case VALUE_STRING:
          append_string (out, node->data.v_string);
          break;
        default:
          g_assert_not_reached ();
        }
      return FALSE;

    default:
      g_assert_not_reached ();
    }
}

char *
cs_json_to_string (CsJsonNode *node,
                   gboolean    pretty)
{
  GString *out;
  GArray *stack;

  g_return_val_if_fail (node != NULL, NULL);

  out = g_string_sized_new (256);
  stack = g_array_new (FALSE, FALSE, sizeof (PrintFrame));

  print_node (out, stack, node, 0, pretty);

  while (stack->len > 0)
    {
      PrintFrame *frame = &g_array_index (stack, PrintFrame, stack->len - 1);
      guint level = stack->len - 1;
      CsJsonNode *container = frame->node;
      guint length = container_length (container);
      guint i;
      CsJsonNode *child;

      if (frame->next == length)
        {
          if (pretty)
            append_indent (out, level);
          g_string_append_c (out, container->type == CS_JSON_NODE_OBJECT ? '}' : ']');
          g_array_set_size (stack, stack->len - 1);
          if (stack->len == 0)
            break;
          frame = &g_array_index (stack, PrintFrame, stack->len - 1);
          container = frame->node;
          length = container_length (container);
        }
      else
        {
          i = frame->next++;
          if (i == 0 && pretty)
            g_string_append_c (out, '\n');
          if (pretty)
            append_indent (out, level + 1);

          if (container->type == CS_JSON_NODE_OBJECT)
            {
              Member *m = &g_array_index (container->data.object.members, Member, i);

              append_string (out, m->name);
              if (pretty)
                g_string_append_len (out, " : ", 3);
              else
                g_string_append_c (out, ':');
              child = m->node;
            }
          else
            {
              child = g_ptr_array_index (container->data.array, i);
            }

          /* The stack may move when a child is pushed: no use of @frame
           * after this. */
          if (print_node (out, stack, child, level + 1, pretty))
            continue;
        }

      /* One member or element done, in @frame's container. */
      if (frame->next != length)
        g_string_append_c (out, ',');
      if (pretty)
        g_string_append_c (out, '\n');
    }

  g_array_free (stack, TRUE);
  return g_string_free (out, FALSE);
}

/* Parsing */

typedef struct {
  const char  *data;
  const char  *end;
  const char  *p;
  GError     **error;
} Parser;

static void parse_error (Parser      *parser,
                         const char  *at,
                         CsJsonError  code,
                         const char  *format,
                         ...) G_GNUC_PRINTF (4, 5);

/* The position is worked out only for the message, from the start: nothing
 * is spent counting lines while the parse goes well. Columns count
 * characters (bytes that do not continue a UTF-8 sequence). */
static void
parse_error (Parser      *parser,
             const char  *at,
             CsJsonError  code,
             const char  *format,
             ...)
{
  g_autofree char *what = NULL;
  guint line = 1;
  guint column = 1;
  va_list args;

  for (const char *q = parser->data; q < at; q++)
    {
      if (*q == '\n')
        {
          line++;
          column = 1;
        }
      else if (((guchar) *q & 0xc0) != 0x80)
        {
          column++;
        }
    }

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);

  g_set_error (parser->error, CS_JSON_ERROR, code, "line %u, column %u: %s", line, column, what);
}

static void
unexpected (Parser     *parser,
            const char *expected)
{
  guchar c;

  if (parser->p >= parser->end)
    {
      parse_error (parser, parser->p, CS_JSON_ERROR_PARSE, "unexpected end of data, expected %s", expected);
      return;
    }

  c = (guchar) *parser->p;
  if (c > 0x20 && c < 0x7f)
    parse_error (parser, parser->p, CS_JSON_ERROR_PARSE, "unexpected “%c”, expected %s", c, expected);
  else
    parse_error (parser, parser->p, CS_JSON_ERROR_PARSE, "unexpected byte 0x%02x, expected %s", c, expected);
}

static void
skip_space (Parser *parser)
{
  const char *p = parser->p;

  while (p < parser->end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
    p++;
  parser->p = p;
}

static int
hex_digit (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* The four hex digits after "\u" at @p, or -1. */
static int
read_hex4 (Parser     *parser,
           const char *p)
{
  int value = 0;

  if (parser->end - p < 4)
    return -1;

  for (int i = 0; i < 4; i++)
    {
      int digit = hex_digit (p[i]);

      if (digit < 0)
        return -1;
      value = value * 16 + digit;
    }

  return value;
}

/* At the opening quote. The input is already known to be UTF-8 without
 * NULs, and a string starts and ends at ASCII bytes, so what lies between
 * is UTF-8 too. */
static char *
parse_string (Parser *parser)
{
  const char *start = parser->p;
  const char *p = start + 1;
  const char *run;
  GString *text;

  /* Most strings have no escapes: one scan, one copy. */
  while (p < parser->end && *p != '"' && *p != '\\' && (guchar) *p >= 0x20)
    p++;
  if (p < parser->end && *p == '"')
    {
      parser->p = p + 1;
      return g_strndup (start + 1, p - start - 1);
    }

  text = g_string_new_len (start + 1, p - start - 1);
  run = p;

  for (;;)
    {
      while (p < parser->end && *p != '"' && *p != '\\' && (guchar) *p >= 0x20)
        p++;
      g_string_append_len (text, run, p - run);

      if (p >= parser->end)
        {
          parse_error (parser, start, CS_JSON_ERROR_PARSE, "unterminated string");
          goto fail;
        }
      if (*p == '"')
        break;
      if (*p != '\\')
        {
          parse_error (parser, p, CS_JSON_ERROR_PARSE, "control character 0x%02x in a string", (guchar) *p);
          goto fail;
        }

      /* A backslash */
      if (p + 1 >= parser->end)
        {
          parse_error (parser, start, CS_JSON_ERROR_PARSE, "unterminated string");
          goto fail;
        }
      switch (p[1])
        {
        case '"':
        case '\\':
        case '/':
          g_string_append_c (text, p[1]);
          p += 2;
          break;
        case 'b':
          g_string_append_c (text, '\b');
          p += 2;
          break;
        case 'f':
          g_string_append_c (text, '\f');
          p += 2;
          break;
        case 'n':
          g_string_append_c (text, '\n');
          p += 2;
          break;
        case 'r':
          g_string_append_c (text, '\r');
          p += 2;
          break;
        case 't':
          g_string_append_c (text, '\t');
          p += 2;
          break;
        case 'u':
          {
            int unit = read_hex4 (parser, p + 2);
            gunichar c;

            if (unit < 0)
              {
                parse_error (parser, p, CS_JSON_ERROR_PARSE, "invalid \\u escape");
                goto fail;
              }
            if (unit >= 0xdc00 && unit <= 0xdfff)
              {
                parse_error (parser, p, CS_JSON_ERROR_PARSE, "lone low surrogate \\u%04x", (guint) unit);
                goto fail;
              }
            if (unit >= 0xd800 && unit <= 0xdbff)
              {
                int low = -1;

                if (parser->end - p >= 8 && p[6] == '\\' && p[7] == 'u')
                  low = read_hex4 (parser, p + 8);
                if (low < 0xdc00 || low > 0xdfff)
                  {
                    parse_error (parser, p, CS_JSON_ERROR_PARSE, "lone high surrogate \\u%04x", (guint) unit);
                    goto fail;
                  }
                c = 0x10000 + (((gunichar) unit - 0xd800) << 10) + ((gunichar) low - 0xdc00);
                p += 12;
              }
            else
              {
                /* Our strings end at their first NUL, and silently
                 * cutting one short is worse than refusing it. */
                if (unit == 0)
                  {
                    parse_error (parser, p, CS_JSON_ERROR_PARSE, "\\u0000 is not supported");
                    goto fail;
                  }
                c = (gunichar) unit;
                p += 6;
              }
            g_string_append_unichar (text, c);
          }
          break;
        default:
          parse_error (parser, p, CS_JSON_ERROR_PARSE, "invalid escape in a string");
          goto fail;
        }
      run = p;
    }

  parser->p = p + 1;
  return g_string_free (text, FALSE);

fail:
  g_string_free (text, TRUE);
  return NULL;
}

static gboolean
is_digit (const char *p,
          const char *end)
{
  return p < end && *p >= '0' && *p <= '9';
}

static CsJsonNode *
parse_number (Parser *parser)
{
  const char *start = parser->p;
  const char *end = parser->end;
  const char *p = start;
  const char *digits;
  gboolean negative = FALSE;
  gboolean integer = TRUE;
  CsJsonNode *node;

  if (*p == '-')
    {
      negative = TRUE;
      p++;
    }

  digits = p;
  if (!is_digit (p, end))
    {
      parse_error (parser, p, CS_JSON_ERROR_PARSE, "invalid number: a digit must follow “-”");
      return NULL;
    }
  if (*p == '0')
    {
      p++;
      if (is_digit (p, end))
        {
          parse_error (parser, start, CS_JSON_ERROR_PARSE, "invalid number: leading zero");
          return NULL;
        }
    }
  else
    {
      while (is_digit (p, end))
        p++;
    }

  if (p < end && *p == '.')
    {
      integer = FALSE;
      p++;
      if (!is_digit (p, end))
        {
          parse_error (parser, p, CS_JSON_ERROR_PARSE, "invalid number: a digit must follow “.”");
          return NULL;
        }
      while (is_digit (p, end))
        p++;
    }

  if (p < end && (*p == 'e' || *p == 'E'))
    {
      integer = FALSE;
      p++;
      if (p < end && (*p == '+' || *p == '-'))
        p++;
      if (!is_digit (p, end))
        {
          parse_error (parser, p, CS_JSON_ERROR_PARSE, "invalid number: the exponent has no digits");
          return NULL;
        }
      while (is_digit (p, end))
        p++;
    }

  if (integer)
    {
      /* Up to 2^63 in magnitude, the one more that a negative allows. */
      guint64 limit = negative ? (guint64) G_MAXINT64 + 1 : (guint64) G_MAXINT64;
      guint64 magnitude = 0;
      const char *q;

      for (q = digits; q < p; q++)
        {
          guint digit = (guint) (*q - '0');

          if (magnitude > (limit - digit) / 10)
            break;
          magnitude = magnitude * 10 + digit;
        }

      if (q == p)
        {
          node = value_new (VALUE_INT);
          if (!negative)
            node->data.v_int = (gint64) magnitude;
          else if (magnitude == (guint64) G_MAXINT64 + 1)
            node->data.v_int = G_MININT64;
          else
            node->data.v_int = - (gint64) magnitude;
          parser->p = p;
          return node;
        }
      /* Too big for gint64: a double, like any other number. */
    }

  {
    char buf[64];
    gsize len = p - start;
    char *copy = len < sizeof buf ? buf : g_malloc (len + 1);
    double value;

    /* g_ascii_strtod wants a terminated string, and the grammar is already
     * checked, so it reads exactly these bytes. */
    memcpy (copy, start, len);
    copy[len] = '\0';
    value = g_ascii_strtod (copy, NULL);
    if (copy != buf)
      g_free (copy);

    /* A number past the double range reads as ±inf, as json-glib reads it:
     * the caller checks ranges anyway and names the field that is wrong,
     * which says more than a parse error would. */
    node = value_new (VALUE_DOUBLE);
    node->data.v_double = value;
    parser->p = p;
    return node;
  }
}

static gboolean
parse_literal (Parser     *parser,
               const char *word)
{
  gsize len = strlen (word);

  if ((gsize) (parser->end - parser->p) < len || memcmp (parser->p, word, len) != 0)
    return FALSE;
  parser->p += len;
  return TRUE;
}

/* A value that is not an object or an array, at a byte that is not white
 * space; NULL with the error set otherwise. */
static CsJsonNode *
parse_scalar (Parser *parser)
{
  CsJsonNode *node;

  switch (*parser->p)
    {
    case '"':
      {
        char *text = parse_string (parser);

        if (text == NULL)
          return NULL;
        node = value_new (VALUE_STRING);
        node->data.v_string = text;
        return node;
      }

    case '-':
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
      return parse_number (parser);

    case 't':
    case 'f':
      {
        gboolean value = *parser->p == 't';

        if (parse_literal (parser, value ? "true" : "false"))
          {
            node = value_new (VALUE_BOOLEAN);
            node->data.v_boolean = value;
            return node;
          }
      }
      break;

    case 'n':
      if (parse_literal (parser, "null"))
        return node_new (CS_JSON_NODE_NULL);
      break;

    default:
      break;
    }

  unexpected (parser, "a value");
  return NULL;
}

typedef enum {
  EXPECT_VALUE,
  EXPECT_MEMBER,
  AFTER_VALUE,
} ParseState;

CsJsonNode *
cs_json_parse (const char  *data,
               gsize        length,
               guint        max_depth,
               GError     **error)
{
  Parser parser = { data, data + length, data, error };
  const char *invalid = NULL;
  ParseState state = EXPECT_VALUE;
  CsJsonNode *root = NULL;
  GArray *stack;

  g_return_val_if_fail (data != NULL || length == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (length == 0)
    {
      parse_error (&parser, data, CS_JSON_ERROR_PARSE, "empty input");
      return NULL;
    }

  /* One pass over everything: UTF-8 (no overlong forms, no surrogates) and
   * no NUL, which GLib's check refuses as well. Past this, every byte is
   * either part of the grammar or inside a string. */
  if (!g_utf8_validate_len (data, length, &invalid))
    {
      if (*invalid == '\0')
        parse_error (&parser, invalid, CS_JSON_ERROR_PARSE, "NUL byte");
      else
        parse_error (&parser, invalid, CS_JSON_ERROR_PARSE, "invalid UTF-8");
      return NULL;
    }

  stack = g_array_new (FALSE, FALSE, sizeof (OpenContainer));
  g_array_set_clear_func (stack, clear_open_container);

  for (;;)
    {
      OpenContainer *top;

      skip_space (&parser);

      switch (state)
        {
        case EXPECT_VALUE:
          if (parser.p >= parser.end)
            {
              if (root == NULL)
                parse_error (&parser, parser.p, CS_JSON_ERROR_PARSE, "no value, only white space");
              else
                unexpected (&parser, "a value");
              goto fail;
            }

          if (*parser.p == '[' || *parser.p == '{')
            {
              gboolean object = *parser.p == '{';
              OpenContainer open = { NULL, NULL };

              if (stack->len >= max_depth)
                {
                  parse_error (&parser, parser.p, CS_JSON_ERROR_DEPTH, "nested deeper than %u levels", max_depth);
                  goto fail;
                }

              open.container = node_new (object ? CS_JSON_NODE_OBJECT : CS_JSON_NODE_ARRAY);
              attach (stack, &root, open.container);
              g_array_append_val (stack, open);
              parser.p++;

              skip_space (&parser);
              if (parser.p < parser.end && *parser.p == (object ? '}' : ']'))
                {
                  parser.p++;
                  g_array_set_size (stack, stack->len - 1);
                  state = AFTER_VALUE;
                }
              else
                {
                  state = object ? EXPECT_MEMBER : EXPECT_VALUE;
                }
            }
          else
            {
              CsJsonNode *node = parse_scalar (&parser);

              if (node == NULL)
                goto fail;
              attach (stack, &root, node);
              state = AFTER_VALUE;
            }
          break;

        case EXPECT_MEMBER:
          top = &g_array_index (stack, OpenContainer, stack->len - 1);
          if (parser.p >= parser.end || *parser.p != '"')
            {
              unexpected (&parser, "a member name");
              goto fail;
            }
          top->name = parse_string (&parser);
          if (top->name == NULL)
            goto fail;

          skip_space (&parser);
          if (parser.p >= parser.end || *parser.p != ':')
            {
              unexpected (&parser, "“:”");
              goto fail;
            }
          parser.p++;
          state = EXPECT_VALUE;
          break;

        case AFTER_VALUE:
          if (stack->len == 0)
            {
              if (parser.p < parser.end)
                {
                  unexpected (&parser, "the end after the value");
                  goto fail;
                }
              g_array_free (stack, TRUE);
              return root;
            }

          top = &g_array_index (stack, OpenContainer, stack->len - 1);
          if (top->container->type == CS_JSON_NODE_OBJECT)
            {
              if (parser.p < parser.end && *parser.p == ',')
                {
                  parser.p++;
                  state = EXPECT_MEMBER;
                }
              else if (parser.p < parser.end && *parser.p == '}')
                {
                  parser.p++;
                  g_array_set_size (stack, stack->len - 1);
                }
              else
                {
                  unexpected (&parser, "“,” or “}”");
                  goto fail;
                }
            }
          else
            {
              if (parser.p < parser.end && *parser.p == ',')
                {
                  parser.p++;
                  state = EXPECT_VALUE;
                }
              else if (parser.p < parser.end && *parser.p == ']')
                {
                  parser.p++;
                  g_array_set_size (stack, stack->len - 1);
                }
              else
                {
                  unexpected (&parser, "“,” or “]”");
                  goto fail;
                }
            }
          break;

        default:
          g_assert_not_reached ();
        }
    }

fail:
  /* Everything parsed so far hangs off the root. */
  g_array_free (stack, TRUE);
  g_clear_pointer (&root, cs_json_node_unref);
  return NULL;
}
