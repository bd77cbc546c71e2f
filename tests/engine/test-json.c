/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "cs-json.h"

/*
 * cs-json against json-glib, which wrote every file before it: the same
 * tree, built through both builders side by side, must print the same bytes
 * (but for the two bugs we do not copy), and each library must read what the
 * other wrote. Then the parser alone: what it accepts, what it refuses, how
 * deep it goes, and that no damaged file crashes it.
 */

#define MAX_DEPTH 64

/* Both builders, fed the same calls. */
typedef struct {
  CsJsonBuilder *cs;
  JsonBuilder   *jg;
} Dual;

static void
dual_init (Dual *d)
{
  d->cs = cs_json_builder_new ();
  d->jg = json_builder_new ();
}

static void dual_begin_object (Dual *d) { cs_json_builder_begin_object (d->cs); json_builder_begin_object (d->jg); }
static void dual_end_object (Dual *d) { cs_json_builder_end_object (d->cs); json_builder_end_object (d->jg); }
static void dual_begin_array (Dual *d) { cs_json_builder_begin_array (d->cs); json_builder_begin_array (d->jg); }
static void dual_end_array (Dual *d) { cs_json_builder_end_array (d->cs); json_builder_end_array (d->jg); }
static void dual_member (Dual *d, const char *name) { cs_json_builder_set_member_name (d->cs, name); json_builder_set_member_name (d->jg, name); }
static void dual_string (Dual *d, const char *value) { cs_json_builder_add_string_value (d->cs, value); json_builder_add_string_value (d->jg, value); }
static void dual_int (Dual *d, gint64 value) { cs_json_builder_add_int_value (d->cs, value); json_builder_add_int_value (d->jg, value); }
static void dual_double (Dual *d, double value) { cs_json_builder_add_double_value (d->cs, value); json_builder_add_double_value (d->jg, value); }
static void dual_boolean (Dual *d, gboolean value) { cs_json_builder_add_boolean_value (d->cs, value); json_builder_add_boolean_value (d->jg, value); }
static void dual_null (Dual *d) { cs_json_builder_add_null_value (d->cs); json_builder_add_null_value (d->jg); }

static char *
jg_print (JsonNode *node,
          gboolean  pretty)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();

  json_generator_set_pretty (generator, pretty);
  json_generator_set_indent (generator, 2);
  json_generator_set_indent_char (generator, ' ');
  json_generator_set_root (generator, node);
  return json_generator_to_data (generator, NULL);
}

static CsJsonNode *
parse_ok (const char *text,
          gssize      length)
{
  g_autoptr(GError) error = NULL;
  CsJsonNode *node;

  node = cs_json_parse (text, length < 0 ? strlen (text) : (gsize) length, MAX_DEPTH, &error);
  if (node == NULL)
    g_error ("cs_json_parse (%s): %s", text, error->message);
  return node;
}

static char *
reprint (const char *text,
         gboolean    pretty)
{
  g_autoptr(CsJsonNode) node = parse_ok (text, -1);

  return cs_json_to_string (node, pretty);
}

/* What json-glib makes of @text, printed by json-glib. */
static char *
jg_reprint (const char *text,
            gboolean    pretty)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  if (!json_parser_load_from_data (parser, text, -1, &error))
    g_error ("json-glib refused %s: %s", text, error->message);
  return jg_print (json_parser_get_root (parser), pretty);
}

/* The documents, each a list of builder calls. None has a double that
 * prints with an exponent or a 0x1f byte: there the two differ on purpose. */

static void
doc_mixed (Dual *d)
{
  dual_begin_object (d);
  dual_member (d, "a");
  dual_int (d, 1);
  dual_member (d, "empty_object");
  dual_begin_object (d);
  dual_end_object (d);
  dual_member (d, "empty_array");
  dual_begin_array (d);
  dual_end_array (d);
  dual_member (d, "list");
  dual_begin_array (d);
  dual_int (d, 1);
  dual_double (d, 3.0);
  dual_begin_object (d);
  dual_member (d, "x");
  dual_null (d);
  dual_member (d, "deeper");
  dual_begin_object (d);
  dual_member (d, "empty");
  dual_begin_object (d);
  dual_end_object (d);
  dual_end_object (d);
  dual_end_object (d);
  dual_begin_array (d);
  dual_boolean (d, TRUE);
  dual_begin_array (d);
  dual_end_array (d);
  dual_begin_object (d);
  dual_end_object (d);
  dual_end_array (d);
  dual_begin_object (d);
  dual_end_object (d);
  dual_string (d, NULL);
  dual_end_array (d);
  dual_member (d, "s");
  dual_string (d, "text");
  dual_member (d, "f");
  dual_boolean (d, FALSE);
  dual_end_object (d);
}

static void
doc_empty_object (Dual *d)
{
  dual_begin_object (d);
  dual_end_object (d);
}

static void
doc_empty_array (Dual *d)
{
  dual_begin_array (d);
  dual_end_array (d);
}

static void
doc_empties (Dual *d)
{
  dual_begin_array (d);
  dual_begin_array (d);
  dual_begin_object (d);
  dual_end_object (d);
  dual_begin_array (d);
  dual_end_array (d);
  dual_end_array (d);
  dual_begin_object (d);
  dual_member (d, "");
  dual_begin_object (d);
  dual_end_object (d);
  dual_end_object (d);
  dual_end_array (d);
}

static void
doc_strings (Dual *d)
{
  char all[128];
  guint n = 0;

  /* Every ASCII byte but NUL and 0x1f. */
  for (guint c = 1; c < 0x80; c++)
    if (c != 0x1f)
      all[n++] = (char) c;
  all[n] = '\0';

  dual_begin_object (d);
  dual_member (d, "all ascii");
  dual_string (d, all);
  dual_member (d, "quote \" backslash \\ slash / newline \n tab \t");
  dual_string (d, "\"\\/\b\f\n\r\t\x01\x1b\x1e\x7f");
  dual_member (d, "utf-8");
  dual_string (d, "é € 𝄞 \xef\xbb\xbf");
  dual_member (d, "empty");
  dual_string (d, "");
  dual_member (d, "path");
  dual_string (d, "/home/user/Données/file \"quoted\".txt");
  dual_end_object (d);
}

static void
doc_numbers (Dual *d)
{
  static const gint64 ints[] = { 0, 1, -1, 42, -42, 1000000, G_MAXINT32, G_MININT32, G_MAXINT64, G_MININT64, G_MAXINT64 - 1, G_MININT64 + 1 };
  static const double doubles[] = { 0.0, -0.0, 1.0, -1.0, 3.0, 0.1, 0.5, -2.25, 1234.5678, 123456789.125, 1e15, 1e16, 3.141592653589793, 0.001, 1.0 / 3.0, 4503599627370496.5 };

  dual_begin_object (d);
  dual_member (d, "ints");
  dual_begin_array (d);
  for (guint i = 0; i < G_N_ELEMENTS (ints); i++)
    dual_int (d, ints[i]);
  dual_end_array (d);
  dual_member (d, "doubles");
  dual_begin_array (d);
  for (guint i = 0; i < G_N_ELEMENTS (doubles); i++)
    dual_double (d, doubles[i]);
  dual_end_array (d);
  dual_member (d, "booleans");
  dual_begin_array (d);
  dual_boolean (d, TRUE);
  dual_boolean (d, FALSE);
  dual_end_array (d);
  dual_member (d, "nulls");
  dual_begin_array (d);
  dual_null (d);
  dual_string (d, NULL);
  dual_end_array (d);
  dual_end_object (d);
}

static void
doc_deep (Dual *d)
{
  for (guint i = 0; i < 12; i++)
    {
      if (i % 2 == 0)
        {
          dual_begin_object (d);
          dual_member (d, "level");
          dual_int (d, i);
          dual_member (d, "next");
        }
      else
        {
          dual_begin_array (d);
          dual_string (d, "level");
        }
    }
  dual_null (d);
  for (guint i = 12; i-- > 0;)
    {
      if (i % 2 == 0)
        dual_end_object (d);
      else
        dual_end_array (d);
    }
}

/* json-glib keeps a repeated name where it first was, with the last value. */
static void
doc_duplicates (Dual *d)
{
  dual_begin_object (d);
  dual_member (d, "a");
  dual_int (d, 1);
  dual_member (d, "b");
  dual_int (d, 2);
  dual_member (d, "a");
  dual_begin_array (d);
  dual_int (d, 3);
  dual_end_array (d);
  dual_member (d, "many");
  dual_begin_object (d);
  /* enough names to need the index */
  for (guint i = 0; i < 100; i++)
    {
      char name[16];

      g_snprintf (name, sizeof name, "m%u", i % 40);
      dual_member (d, name);
      dual_int (d, i);
    }
  dual_end_object (d);
  dual_end_object (d);
}

typedef void (*DocFunc) (Dual *d);

static const struct {
  const char *name;
  DocFunc     build;
} docs[] = {
  { "mixed", doc_mixed },
  { "empty object", doc_empty_object },
  { "empty array", doc_empty_array },
  { "empties", doc_empties },
  { "strings", doc_strings },
  { "numbers", doc_numbers },
  { "deep", doc_deep },
  { "duplicates", doc_duplicates },
};

static void
build_doc (guint        i,
           CsJsonNode **out_cs,
           JsonNode   **out_jg)
{
  Dual d;

  dual_init (&d);
  docs[i].build (&d);
  *out_cs = cs_json_builder_get_root (d.cs);
  *out_jg = json_builder_get_root (d.jg);
  g_assert_nonnull (*out_cs);
  g_assert_nonnull (*out_jg);
  cs_json_builder_free (d.cs);
  g_object_unref (d.jg);
}

static void
test_print_matches_json_glib (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (docs); i++)
    {
      g_autoptr(CsJsonNode) cs = NULL;
      g_autoptr(JsonNode) jg = NULL;

      build_doc (i, &cs, &jg);
      for (int pretty = 0; pretty <= 1; pretty++)
        {
          g_autofree char *ours = cs_json_to_string (cs, pretty);
          g_autofree char *theirs = jg_print (jg, pretty);

          g_test_message ("%s, pretty %d", docs[i].name, pretty);
          g_assert_cmpstr (ours, ==, theirs);
        }
    }
}

/* Scalars at the top, which json-glib's builder cannot make. */
static void
test_print_scalars (void)
{
  static const struct {
    const char *text;
    GType       type;
  } cases[] = {
    { "0", G_TYPE_INT64 },
    { "-9223372036854775808", G_TYPE_INT64 },
    { "2.5", G_TYPE_DOUBLE },
    { "true", G_TYPE_BOOLEAN },
    { "\"a\\tb\"", G_TYPE_STRING },
    { "null", G_TYPE_INVALID },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      for (int pretty = 0; pretty <= 1; pretty++)
        {
          g_autoptr(CsJsonNode) node = parse_ok (cases[i].text, -1);
          g_autofree char *ours = cs_json_to_string (node, pretty);
          g_autofree char *theirs = jg_reprint (cases[i].text, pretty);

          g_assert_cmpint (cs_json_node_get_value_type (node), ==, cases[i].type);
          g_assert_cmpstr (ours, ==, cases[i].text);
          g_assert_cmpstr (ours, ==, theirs);
        }
    }
}

/* The exact pretty layout, written out once so a change shows here. */
static void
test_print_layout (void)
{
  g_autoptr(CsJsonBuilder) b = cs_json_builder_new ();
  g_autoptr(CsJsonNode) root = NULL;
  g_autofree char *pretty = NULL;
  g_autofree char *compact = NULL;

  cs_json_builder_begin_object (b);
  cs_json_builder_set_member_name (b, "a");
  cs_json_builder_add_int_value (b, 1);
  cs_json_builder_set_member_name (b, "o");
  cs_json_builder_begin_object (b);
  cs_json_builder_end_object (b);
  cs_json_builder_set_member_name (b, "l");
  cs_json_builder_begin_array (b);
  cs_json_builder_begin_array (b);
  cs_json_builder_end_array (b);
  cs_json_builder_begin_object (b);
  cs_json_builder_end_object (b);
  cs_json_builder_add_double_value (b, 2.0);
  cs_json_builder_end_array (b);
  cs_json_builder_end_object (b);
  root = cs_json_builder_get_root (b);

  pretty = cs_json_to_string (root, TRUE);
  compact = cs_json_to_string (root, FALSE);
  g_assert_cmpstr (pretty, ==,
                   "{\n"
                   "  \"a\" : 1,\n"
                   "  \"o\" : {  },\n"
                   "  \"l\" : [\n"
                   "    [],\n"
                   "    {    },\n"
                   "    2.0\n"
                   "  ]\n"
                   "}");
  g_assert_cmpstr (compact, ==, "{\"a\":1,\"o\":{},\"l\":[[],{},2.0]}");
}

static char *
print_double (double value)
{
  g_autoptr(CsJsonBuilder) b = cs_json_builder_new ();
  g_autoptr(CsJsonNode) root = NULL;

  cs_json_builder_add_double_value (b, value);
  root = cs_json_builder_get_root (b);
  return cs_json_to_string (root, TRUE);
}

/* Difference 1: doubles with an exponent stay JSON; non-finite ones are null. */
static void
test_print_doubles (void)
{
  static const struct {
    double      value;
    const char *text;
  } cases[] = {
    { 3.0, "3.0" },
    { 0.5, "0.5" },
    { 0.1, "0.10000000000000001" },   /* g_ascii_dtostr () is %.17g */
    { -0.0, "-0.0" },
    { 1e16, "10000000000000000.0" },
    { 1e17, "1e+17" },
    { 1e-300, "1e-300" },
    { -2.5e-5, "-2.5000000000000001e-05" },
    { 1e22, "1e+22" },
    { G_MAXDOUBLE, "1.7976931348623157e+308" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = print_double (cases[i].value);
      g_autoptr(CsJsonNode) back = parse_ok (text, -1);

      g_assert_cmpstr (text, ==, cases[i].text);
      g_assert_cmpint (cs_json_node_get_value_type (back), ==, G_TYPE_DOUBLE);
      g_assert_true (cs_json_node_get_double (back) == cases[i].value);
    }

  {
    g_autofree char *inf = print_double (INFINITY);
    g_autofree char *minus_inf = print_double (-INFINITY);
    g_autofree char *nan = print_double (NAN);

    g_assert_cmpstr (inf, ==, "null");
    g_assert_cmpstr (minus_inf, ==, "null");
    g_assert_cmpstr (nan, ==, "null");
  }
}

static char *
print_string (const char *value)
{
  g_autoptr(CsJsonBuilder) b = cs_json_builder_new ();
  g_autoptr(CsJsonNode) root = NULL;

  cs_json_builder_add_string_value (b, value);
  root = cs_json_builder_get_root (b);
  return cs_json_to_string (root, FALSE);
}

/* Difference 2: 0x1f is escaped; the rest as json-glib does it. */
static void
test_print_escapes (void)
{
  static const struct {
    const char *value;
    const char *text;
  } cases[] = {
    { "a\x1f" "b", "\"a\\u001fb\"" },
    { "\x01\x1b\x1e", "\"\\u0001\\u001b\\u001e\"" },
    { "\x7f", "\"\\u007f\"" },
    { "\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"" },
    { "\"\\/", "\"\\\"\\\\/\"" },
    { "é𝄞", "\"é𝄞\"" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = print_string (cases[i].value);
      g_autoptr(CsJsonNode) back = parse_ok (text, -1);

      g_assert_cmpstr (text, ==, cases[i].text);
      g_assert_cmpstr (cs_json_node_get_string (back), ==, cases[i].value);
    }

  /* The builder is promised UTF-8; given other bytes it still writes JSON. */
  {
    g_autofree char *text = print_string ("a\xff" "b");
    g_autoptr(CsJsonNode) back = parse_ok (text, -1);

    g_assert_cmpstr (text, ==, "\"a\xef\xbf\xbd" "b\"");
  }
}

static void
test_parse_round_trip (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (docs); i++)
    {
      g_autoptr(CsJsonNode) cs = NULL;
      g_autoptr(JsonNode) jg = NULL;

      build_doc (i, &cs, &jg);
      for (int pretty = 0; pretty <= 1; pretty++)
        {
          g_autofree char *ours = cs_json_to_string (cs, pretty);
          g_autofree char *theirs = jg_print (jg, pretty);
          g_autofree char *ours_again = reprint (ours, pretty);
          g_autofree char *theirs_read_by_us = reprint (theirs, pretty);
          g_autofree char *ours_read_by_them = jg_reprint (ours, pretty);
          g_autofree char *other_layout = reprint (ours, !pretty);
          g_autofree char *other_layout_theirs = jg_print (jg, !pretty);

          g_test_message ("%s, pretty %d", docs[i].name, pretty);
          g_assert_cmpstr (ours_again, ==, ours);
          g_assert_cmpstr (theirs_read_by_us, ==, theirs);
          g_assert_cmpstr (ours_read_by_them, ==, ours);
          g_assert_cmpstr (other_layout, ==, other_layout_theirs);
        }
    }
}

static void
test_parse_accept (void)
{
  static const struct {
    const char *text;
    const char *compact;
  } cases[] = {
    { "0", "0" },
    { " \t\r\n[ 1 , 2 ]\n\r\t ", "[1,2]" },
    { "[1, 2.5, -0, true, false, null, \"a\"]", "[1,2.5,0,true,false,null,\"a\"]" },
    { "{\"a\" : {\"b\" : []}, \"c\" : {}}", "{\"a\":{\"b\":[]},\"c\":{}}" },
    { "\"\\u00e9\\u20AC\\ud834\\uDD1E\\/\\\"\\\\\\b\\f\\n\\r\\t\"", "\"é€𝄞/\\\"\\\\\\b\\f\\n\\r\\t\"" },
    { "\"\\u001f\\u007f\\u0001\"", "\"\\u001f\\u007f\\u0001\"" },
    { "\"é €\xf0\x9d\x84\x9e\"", "\"é €𝄞\"" },
    { "{\"a\":1,\"b\":2,\"a\":3}", "{\"a\":3,\"b\":2}" },
    { "1E2", "100.0" },
    { "1e+2", "100.0" },
    { "-1.5e-3", "-0.0015" },
    { "0.0", "0.0" },
    { "-0.0", "-0.0" },
    { "1e-400", "0.0" },          /* underflow reads as 0 */
    { "[1e999, -1e400]", "[null,null]" }, /* overflow as ±inf, which prints as null */
    { "123456789012345678901234567890", "1.2345678901234568e+29" },
    { "[[[]]]", "[[[]]]" },
    { "{\"\":\"\"}", "{\"\":\"\"}" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *compact = reprint (cases[i].text, FALSE);

      g_assert_cmpstr (compact, ==, cases[i].compact);
    }

  /* Overflow is ±inf, as in json-glib: callers range-check and name the field. */
  {
    g_autoptr(CsJsonNode) node = parse_ok ("[1e999, -1e999]", -1);
    CsJsonArray *array = cs_json_node_get_array (node);

    g_assert_cmpuint (cs_json_node_get_value_type (cs_json_array_get_element (array, 0)), ==, G_TYPE_DOUBLE);
    g_assert_true (isinf (cs_json_node_get_double (cs_json_array_get_element (array, 0))));
    g_assert_cmpfloat (cs_json_node_get_double (cs_json_array_get_element (array, 1)), <, 0);
  }

  /* The length bounds the text: what follows is not looked at. */
  {
    g_autoptr(CsJsonNode) node = parse_ok ("[1]garbage", 3);

    g_assert_cmpuint (cs_json_array_get_length (cs_json_node_get_array (node)), ==, 1);
  }
}

static void
test_parse_reject (void)
{
  static const struct {
    const char *text;
    gssize      length;
  } cases[] = {
    { "[1,]", -1 },
    { "[1,,2]", -1 },
    { "[,]", -1 },
    { "{\"a\":1,}", -1 },
    { "{\"a\" 1}", -1 },
    { "{\"a\":}", -1 },
    { "{a:1}", -1 },
    { "{1:1}", -1 },
    { "[1 2]", -1 },
    { "01", -1 },
    { "-01", -1 },
    { "00", -1 },
    { "+1", -1 },
    { ".5", -1 },
    { "5.", -1 },
    { "-", -1 },
    { "-a", -1 },
    { "1e", -1 },
    { "1e+", -1 },
    { "1.e3", -1 },
    { "0x10", -1 },
    { "1.5.3", -1 },
    { "'a'", -1 },
    { "['a']", -1 },
    { "// comment\n1", -1 },
    { "/* comment */ 1", -1 },
    { "[1] // comment", -1 },
    { "NaN", -1 },
    { "-Infinity", -1 },
    { "Infinity", -1 },
    { "tru", -1 },
    { "True", -1 },
    { "nul", -1 },
    { "truex", -1 },
    { "\"abc", -1 },
    { "\"abc\\", -1 },
    { "\"abc\\\"", -1 },
    { "[1, 2", -1 },
    { "[", -1 },
    { "{\"a\": 1", -1 },
    { "{\"a\"", -1 },
    { "{", -1 },
    { "]", -1 },
    { "}", -1 },
    { "{} x", -1 },
    { "[] []", -1 },
    { "1 2", -1 },
    { "\"a\" \"b\"", -1 },
    { "\"\xff\"", -1 },
    { "\"\x80\"", -1 },
    { "\"\xc3\"", -1 },
    { "\"\xc0\xaf\"", -1 },           /* overlong "/" */
    { "\"\xe0\x80\xaf\"", -1 },       /* overlong "/" again */
    { "\"\xed\xa0\x80\"", -1 },       /* a surrogate, encoded */
    { "\"\xf4\x90\x80\x80\"", -1 },   /* past U+10FFFF */
    { "\xef\xbb\xbf[]", -1 },         /* a byte order mark is not white space */
    { "\"\\ud834\"", -1 },
    { "\"\\ud834x\"", -1 },
    { "\"\\ud834\\u0041\"", -1 },
    { "\"\\ud834\\ud834\"", -1 },
    { "\"\\udd1e\"", -1 },
    { "\"\\udd1e\\ud834\"", -1 },
    { "\"\\u12\"", -1 },
    { "\"\\u12g4\"", -1 },
    { "\"\\x41\"", -1 },
    { "\"\\a\"", -1 },
    { "\"\\u0000\"", -1 },
    { "\"a\tb\"", -1 },
    { "\"a\nb\"", -1 },
    { "\"\x1f\"", -1 },
    { "\"\x01\"", -1 },
    { "[1]\0", 4 },
    { "\"a\0b\"", 5 },
    { "\0", 1 },
    { "", -1 },
    { "   \n\t\r ", -1 },
    { "\f1", -1 },                   /* form feed is not JSON white space */
    { "\v1", -1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gsize length = cases[i].length < 0 ? strlen (cases[i].text) : (gsize) cases[i].length;
      g_autoptr(GError) error = NULL;
      g_autoptr(CsJsonNode) node = NULL;
      g_autofree char *shown = g_strescape (cases[i].text, NULL);

      node = cs_json_parse (cases[i].text, length, MAX_DEPTH, &error);
      g_test_message ("%s: %s", shown, error != NULL ? error->message : "accepted");
      g_assert_null (node);
      g_assert_error (error, CS_JSON_ERROR, CS_JSON_ERROR_PARSE);
      g_assert_true (g_str_has_prefix (error->message, "line "));
    }
}

static void
test_parse_error_position (void)
{
  static const struct {
    const char *text;
    const char *prefix;
  } cases[] = {
    { "[1,\n  x]", "line 2, column 3: " },
    { "{\n\"é\": 1,\n\"b\" 2}", "line 3, column 5: " },
    { "", "line 1, column 1: " },
    { "\"ab", "line 1, column 1: " },
    { "[\"é\xff\"]", "line 1, column 4: " },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      CsJsonNode *node = cs_json_parse (cases[i].text, strlen (cases[i].text), MAX_DEPTH, &error);

      g_assert_null (node);
      g_assert_nonnull (error);
      g_test_message ("%s", error->message);
      g_assert_true (g_str_has_prefix (error->message, cases[i].prefix));
    }
}

/* -0 is an integer literal, so INT64 0, as json-glib reads it: the sign of
 * an integer zero means nothing. "-0.0" keeps its sign as a double. */
static void
test_parse_number_types (void)
{
  static const struct {
    const char *text;
    GType       type;
    gint64      v_int;
    double      v_double;
  } cases[] = {
    { "1", G_TYPE_INT64, 1, 1.0 },
    { "-0", G_TYPE_INT64, 0, 0.0 },
    { "1.0", G_TYPE_DOUBLE, 1, 1.0 },
    { "1e2", G_TYPE_DOUBLE, 100, 100.0 },
    { "1E-2", G_TYPE_DOUBLE, 0, 0.01 },
    { "9223372036854775807", G_TYPE_INT64, G_MAXINT64, 9223372036854775807.0 },
    { "-9223372036854775808", G_TYPE_INT64, G_MININT64, -9223372036854775808.0 },
    { "9223372036854775808", G_TYPE_DOUBLE, G_MAXINT64, 9223372036854775808.0 },
    { "-9223372036854775809", G_TYPE_DOUBLE, G_MININT64, -9223372036854775808.0 },
    { "18446744073709551616", G_TYPE_DOUBLE, G_MAXINT64, 18446744073709551616.0 },
    { "-2.7", G_TYPE_DOUBLE, -2, -2.7 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(CsJsonNode) node = parse_ok (cases[i].text, -1);

      g_test_message ("%s", cases[i].text);
      g_assert_cmpint (cs_json_node_get_node_type (node), ==, CS_JSON_NODE_VALUE);
      g_assert_cmpint (cs_json_node_get_value_type (node), ==, cases[i].type);
      g_assert_cmpint (cs_json_node_get_int (node), ==, cases[i].v_int);
      g_assert_cmpfloat (cs_json_node_get_double (node), ==, cases[i].v_double);
    }

  {
    g_autoptr(CsJsonNode) node = parse_ok ("-0.0", -1);

    g_assert_true (signbit (cs_json_node_get_double (node)));
  }
}

static char *
nested (guint    depth,
        gboolean close)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < depth; i++)
    g_string_append_c (text, '[');
  if (close)
    for (guint i = 0; i < depth; i++)
      g_string_append_c (text, ']');
  return g_string_free (text, FALSE);
}

static void
test_parse_depth (void)
{
  g_autofree char *ok = nested (32, TRUE);
  g_autofree char *too_deep = nested (33, TRUE);
  g_autofree char *hostile = nested (100000, FALSE);
  g_autofree char *hostile_closed = nested (100000, TRUE);
  g_autoptr(GError) error = NULL;
  CsJsonNode *node;

  node = cs_json_parse (ok, strlen (ok), 32, &error);
  g_assert_no_error (error);
  cs_json_node_unref (node);

  node = cs_json_parse (too_deep, strlen (too_deep), 32, &error);
  g_assert_null (node);
  g_assert_error (error, CS_JSON_ERROR, CS_JSON_ERROR_DEPTH);
  g_clear_error (&error);

  node = cs_json_parse ("{\"a\":{\"b\":[1]}}", 15, 2, &error);
  g_assert_null (node);
  g_assert_error (error, CS_JSON_ERROR, CS_JSON_ERROR_DEPTH);
  g_clear_error (&error);

  /* A scalar is depth 0, [] depth 1. */
  node = cs_json_parse ("1", 1, 0, &error);
  g_assert_no_error (error);
  cs_json_node_unref (node);
  node = cs_json_parse ("[]", 2, 0, &error);
  g_assert_error (error, CS_JSON_ERROR, CS_JSON_ERROR_DEPTH);
  g_clear_error (&error);
  node = cs_json_parse ("[]", 2, 1, &error);
  g_assert_no_error (error);
  cs_json_node_unref (node);

  node = cs_json_parse (hostile, strlen (hostile), MAX_DEPTH, &error);
  g_assert_null (node);
  g_assert_error (error, CS_JSON_ERROR, CS_JSON_ERROR_DEPTH);
  g_clear_error (&error);

  /* Without a useful bound the parse, the printing and the freeing of a
   * tree 100000 deep still need no stack. */
  node = cs_json_parse (hostile, strlen (hostile), G_MAXUINT, &error);
  g_assert_null (node);
  g_assert_error (error, CS_JSON_ERROR, CS_JSON_ERROR_PARSE);
  g_clear_error (&error);

  node = cs_json_parse (hostile_closed, strlen (hostile_closed), G_MAXUINT, &error);
  g_assert_no_error (error);
  {
    g_autofree char *compact = cs_json_to_string (node, FALSE);

    g_assert_cmpstr (compact, ==, hostile_closed);
  }
  cs_json_node_unref (node);

  /* Pretty output grows with the square of the depth (2 spaces a level on
   * every line), so only a shallower chain is printed that way. */
  {
    g_autofree char *chain = nested (3000, TRUE);
    g_autofree char *pretty = NULL;
    g_autofree char *compact = NULL;

    node = cs_json_parse (chain, strlen (chain), G_MAXUINT, &error);
    g_assert_no_error (error);
    pretty = cs_json_to_string (node, TRUE);
    cs_json_node_unref (node);
    node = cs_json_parse (pretty, strlen (pretty), G_MAXUINT, &error);
    g_assert_no_error (error);
    compact = cs_json_to_string (node, FALSE);
    cs_json_node_unref (node);
    g_assert_cmpstr (compact, ==, chain);
    g_assert_true (g_str_has_prefix (pretty, "[\n  [\n    [\n"));
    g_assert_true (g_str_has_suffix (pretty, "\n    ]\n  ]\n]"));
  }
}

static char *
fuzz_seed_document (void)
{
  g_autoptr(CsJsonNode) cs = NULL;
  g_autoptr(JsonNode) jg = NULL;
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (docs); i++)
    {
      g_autofree char *one = NULL;

      g_clear_pointer (&cs, cs_json_node_unref);
      g_clear_pointer (&jg, json_node_unref);
      build_doc (i, &cs, &jg);
      one = cs_json_to_string (cs, TRUE);
      g_string_append (text, i == 0 ? "[\n" : ",\n");
      g_string_append (text, one);
    }
  g_string_append (text, ",\n[1e-300, -1.5E+3, 0, -0, \"\\u00e9\\ud834\\udd1e\\u001f\", 1e16, 9223372036854775808]\n]\n");

  return g_string_free (text, FALSE);
}

static void
test_parse_fuzz (void)
{
  static const char interesting[] = "{}[]\",:\\ \n0123456789-+.eEtruefalsn\x1f\x7f\x80\xc3\xff";
  g_autofree char *seed = fuzz_seed_document ();
  gsize seed_len = strlen (seed);
  guint parsed = 0;
  /* Not g_test_rand_int (): GTest picks a new seed every run unless given
   * --seed, and a failure here should come back on the next run. */
  g_autoptr(GRand) rand = g_rand_new_with_seed (0x15011);

  cs_json_node_unref (parse_ok (seed, -1));

  for (guint iteration = 0; iteration < 20000; iteration++)
    {
      g_autofree char *text = g_memdup2 (seed, seed_len + 1);
      gsize len = seed_len;
      guint n_mutations = 1 + g_rand_int_range (rand, 0, 4);
      g_autoptr(GError) error = NULL;
      CsJsonNode *node;

      for (guint m = 0; m < n_mutations; m++)
        {
          gsize at = g_rand_int_range (rand, 0, (gint32) len);

          switch (g_rand_int_range (rand, 0, 5))
            {
            case 0:             /* any byte */
              text[at] = (char) g_rand_int_range (rand, 0, 256);
              break;
            case 1:             /* a byte that matters to the grammar */
              text[at] = interesting[g_rand_int_range (rand, 0, sizeof interesting - 1)];
              break;
            case 2:             /* cut */
              len = at;
              break;
            case 3:             /* delete one byte */
              memmove (text + at, text + at + 1, len - at);
              len--;
              break;
            default:            /* flip a bit */
              text[at] ^= (char) (1 << g_rand_int_range (rand, 0, 8));
              break;
            }
          if (len == 0)
            break;
        }

      node = cs_json_parse (text, len, MAX_DEPTH, &error);
      if (node == NULL)
        {
          g_assert_nonnull (error);
          g_assert_true (error->domain == CS_JSON_ERROR);
          continue;
        }

      g_assert_no_error (error);
      parsed++;
      for (int pretty = 0; pretty <= 1; pretty++)
        {
          g_autofree char *printed = cs_json_to_string (node, pretty);
          g_autofree char *again = reprint (printed, pretty);

          g_assert_cmpstr (again, ==, printed);
        }
      cs_json_node_unref (node);
    }

  /* Some mutations (inside strings, digits for digits) must still parse. */
  g_test_message ("%u of 20000 mutants parsed", parsed);
  g_assert_cmpuint (parsed, >, 100);
}

static void
test_getters (void)
{
  g_autoptr(CsJsonNode) root = parse_ok ("{\"i\":7,\"d\":2.9,\"big\":1e300,\"nbig\":-1e300,\"b\":true,\"s\":\"x\",\"n\":null,\"a\":[1,\"two\"],\"o\":{}}", -1);
  CsJsonObject *object = cs_json_node_get_object (root);
  CsJsonArray *array;
  CsJsonNode *member;

  g_assert_true (CS_JSON_NODE_HOLDS_OBJECT (root));
  g_assert_nonnull (object);
  g_assert_null (cs_json_node_get_array (root));
  g_assert_null (cs_json_node_get_string (root));
  g_assert_cmpint (cs_json_node_get_value_type (root), ==, G_TYPE_INVALID);
  g_assert_cmpint (cs_json_node_get_int (root), ==, 0);
  g_assert_cmpuint (cs_json_object_get_size (object), ==, 9);

  member = cs_json_object_get_member (object, "i");
  g_assert_true (CS_JSON_NODE_HOLDS_VALUE (member));
  g_assert_cmpint (cs_json_node_get_int (member), ==, 7);
  g_assert_cmpfloat (cs_json_node_get_double (member), ==, 7.0);
  g_assert_false (cs_json_node_get_boolean (member));
  g_assert_null (cs_json_node_get_string (member));

  member = cs_json_object_get_member (object, "d");
  g_assert_cmpint (cs_json_node_get_int (member), ==, 2);
  g_assert_cmpfloat (cs_json_node_get_double (member), ==, 2.9);

  /* Out of gint64's range a double saturates. */
  g_assert_cmpint (cs_json_node_get_int (cs_json_object_get_member (object, "big")), ==, G_MAXINT64);
  g_assert_cmpint (cs_json_node_get_int (cs_json_object_get_member (object, "nbig")), ==, G_MININT64);

  member = cs_json_object_get_member (object, "b");
  g_assert_cmpint (cs_json_node_get_value_type (member), ==, G_TYPE_BOOLEAN);
  g_assert_true (cs_json_node_get_boolean (member));
  g_assert_cmpint (cs_json_node_get_int (member), ==, 0);
  g_assert_cmpfloat (cs_json_node_get_double (member), ==, 0.0);

  member = cs_json_object_get_member (object, "s");
  g_assert_cmpstr (cs_json_node_get_string (member), ==, "x");
  g_assert_cmpint (cs_json_node_get_int (member), ==, 0);

  member = cs_json_object_get_member (object, "n");
  g_assert_true (CS_JSON_NODE_HOLDS_NULL (member));
  g_assert_cmpint (cs_json_node_get_value_type (member), ==, G_TYPE_INVALID);
  g_assert_null (cs_json_node_get_string (member));
  g_assert_null (cs_json_node_get_object (member));

  g_assert_true (cs_json_object_has_member (object, "o"));
  g_assert_false (cs_json_object_has_member (object, "missing"));
  g_assert_null (cs_json_object_get_member (object, "missing"));
  g_assert_null (cs_json_object_get_array_member (object, "missing"));
  g_assert_null (cs_json_object_get_array_member (object, "o"));
  g_assert_cmpuint (cs_json_object_get_size (cs_json_node_get_object (cs_json_object_get_member (object, "o"))), ==, 0);

  g_assert_true (cs_json_object_get_boolean_member_with_default (object, "b", FALSE));
  g_assert_true (cs_json_object_get_boolean_member_with_default (object, "missing", TRUE));
  g_assert_false (cs_json_object_get_boolean_member_with_default (object, "i", FALSE));

  array = cs_json_object_get_array_member (object, "a");
  g_assert_nonnull (array);
  g_assert_true (CS_JSON_NODE_HOLDS_ARRAY (cs_json_object_get_member (object, "a")));
  g_assert_cmpuint (cs_json_array_get_length (array), ==, 2);
  g_assert_cmpint (cs_json_node_get_int (cs_json_array_get_element (array, 0)), ==, 1);
  g_assert_cmpstr (cs_json_node_get_string (cs_json_array_get_element (array, 1)), ==, "two");

  /* A borrowed node outlives its tree once referenced. */
  member = cs_json_node_ref (cs_json_array_get_element (array, 1));
  g_clear_pointer (&root, cs_json_node_unref);
  g_assert_cmpstr (cs_json_node_get_string (member), ==, "two");
  cs_json_node_unref (member);
}

/* Duplicate names: the first place, the last value, whether the object is
 * small (scanned) or large (indexed). */
static void
test_duplicates (void)
{
  GString *text = g_string_new ("{");
  g_autoptr(CsJsonNode) root = NULL;
  CsJsonObject *object;

  for (guint i = 0; i < 1000; i++)
    g_string_append_printf (text, "%s\"k%u\":%u", i == 0 ? "" : ",", i % 300, i);
  g_string_append_c (text, '}');
  root = parse_ok (text->str, text->len);
  object = cs_json_node_get_object (root);

  g_assert_cmpuint (cs_json_object_get_size (object), ==, 300);
  g_assert_cmpint (cs_json_node_get_int (cs_json_object_get_member (object, "k0")), ==, 900);
  g_assert_cmpint (cs_json_node_get_int (cs_json_object_get_member (object, "k299")), ==, 899);
  g_assert_false (cs_json_object_has_member (object, "k300"));
  {
    g_autofree char *compact = cs_json_to_string (root, FALSE);
    g_autofree char *theirs = jg_reprint (text->str, FALSE);

    g_assert_true (g_str_has_prefix (compact, "{\"k0\":900,\"k1\":901,"));
    g_assert_cmpstr (compact, ==, theirs);
  }
  g_string_free (text, TRUE);
}

static void
test_builder (void)
{
  g_autoptr(CsJsonBuilder) b = cs_json_builder_new ();
  g_autoptr(CsJsonBuilder) inner = cs_json_builder_new ();
  g_autoptr(CsJsonNode) sub = NULL;
  g_autoptr(CsJsonNode) root = NULL;
  g_autofree char *text = NULL;

  g_assert_null (cs_json_builder_get_root (b));

  cs_json_builder_begin_array (inner);
  cs_json_builder_add_int_value (inner, 5);
  cs_json_builder_end_array (inner);
  sub = cs_json_builder_get_root (inner);

  cs_json_builder_begin_object (b);
  g_assert_null (cs_json_builder_get_root (b));
  cs_json_builder_set_member_name (b, "null");
  cs_json_builder_add_string_value (b, NULL);
  cs_json_builder_set_member_name (b, "shared");
  cs_json_builder_add_value (b, cs_json_node_ref (sub));
  cs_json_builder_set_member_name (b, "list");
  cs_json_builder_begin_array (b);
  cs_json_builder_add_value (b, cs_json_node_ref (sub));
  cs_json_builder_add_null_value (b);
  g_assert_null (cs_json_builder_get_root (b));
  cs_json_builder_end_array (b);
  cs_json_builder_end_object (b);

  root = cs_json_builder_get_root (b);
  text = cs_json_to_string (root, FALSE);
  g_assert_cmpstr (text, ==, "{\"null\":null,\"shared\":[5],\"list\":[[5],null]}");
  g_assert_true (CS_JSON_NODE_HOLDS_NULL (cs_json_object_get_member (cs_json_node_get_object (root), "null")));

  /* A top-level scalar, which json-glib's builder refuses but files hold. */
  {
    g_autoptr(CsJsonBuilder) scalar = cs_json_builder_new ();
    g_autoptr(CsJsonNode) node = NULL;

    cs_json_builder_add_boolean_value (scalar, TRUE);
    node = cs_json_builder_get_root (scalar);
    g_assert_true (cs_json_node_get_boolean (node));
  }
}

static void
test_builder_misuse (void)
{
  g_autoptr(CsJsonBuilder) b = cs_json_builder_new ();
  g_autoptr(CsJsonNode) root = NULL;
  g_autofree char *text = NULL;

  cs_json_builder_begin_object (b);

  g_test_expect_message ("cs-json", G_LOG_LEVEL_CRITICAL, "*needs cs_json_builder_set_member_name*");
  cs_json_builder_add_int_value (b, 1);
  g_test_assert_expected_messages ();

  g_test_expect_message ("cs-json", G_LOG_LEVEL_CRITICAL, "*needs cs_json_builder_set_member_name*");
  cs_json_builder_begin_array (b);
  g_test_assert_expected_messages ();

  g_test_expect_message ("cs-json", G_LOG_LEVEL_CRITICAL, "*no array is open*");
  cs_json_builder_end_array (b);
  g_test_assert_expected_messages ();

  cs_json_builder_set_member_name (b, "a");
  g_test_expect_message ("cs-json", G_LOG_LEVEL_CRITICAL, "*has no value*");
  cs_json_builder_set_member_name (b, "b");
  g_test_assert_expected_messages ();
  g_test_expect_message ("cs-json", G_LOG_LEVEL_CRITICAL, "*has no value*");
  cs_json_builder_end_object (b);
  g_test_assert_expected_messages ();

  cs_json_builder_begin_array (b);
  g_test_expect_message ("cs-json", G_LOG_LEVEL_CRITICAL, "*outside an object*");
  cs_json_builder_set_member_name (b, "c");
  g_test_assert_expected_messages ();
  g_test_expect_message ("cs-json", G_LOG_LEVEL_CRITICAL, "*no object is open*");
  cs_json_builder_end_object (b);
  g_test_assert_expected_messages ();
  cs_json_builder_end_array (b);
  cs_json_builder_end_object (b);

  g_test_expect_message ("cs-json", G_LOG_LEVEL_CRITICAL, "*second top-level value*");
  cs_json_builder_add_value (b, cs_json_builder_get_root (b));
  g_test_assert_expected_messages ();
  g_test_expect_message ("cs-json", G_LOG_LEVEL_CRITICAL, "*no object is open*");
  cs_json_builder_end_object (b);
  g_test_assert_expected_messages ();

  root = cs_json_builder_get_root (b);
  text = cs_json_to_string (root, FALSE);
  g_assert_cmpstr (text, ==, "{\"a\":[]}");
}

/* Run files hold arrays of up to millions of numbers. */
static void
test_large_array (void)
{
  g_autoptr(CsJsonBuilder) b = cs_json_builder_new ();
  g_autoptr(CsJsonNode) root = NULL;
  g_autoptr(CsJsonNode) back = NULL;
  g_autofree char *text = NULL;
  g_autofree char *again = NULL;
  guint n = g_test_slow () ? 2000000 : 200000;
  gint64 start;

  start = g_get_monotonic_time ();
  cs_json_builder_begin_array (b);
  for (guint i = 0; i < n; i++)
    {
      if (i % 2 == 0)
        cs_json_builder_add_int_value (b, (gint64) i * 1000003);
      else
        cs_json_builder_add_double_value (b, i / 7.0);
    }
  cs_json_builder_end_array (b);
  root = cs_json_builder_get_root (b);
  text = cs_json_to_string (root, TRUE);
  back = parse_ok (text, -1);
  again = cs_json_to_string (back, TRUE);
  g_assert_cmpstr (again, ==, text);
  g_assert_cmpuint (cs_json_array_get_length (cs_json_node_get_array (back)), ==, n);
  g_test_message ("%u numbers built, printed, parsed and printed in %.0f ms (%zu bytes)",
                  n, (g_get_monotonic_time () - start) / 1000.0, strlen (text));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/json/print/matches-json-glib", test_print_matches_json_glib);
  g_test_add_func ("/json/print/scalars", test_print_scalars);
  g_test_add_func ("/json/print/layout", test_print_layout);
  g_test_add_func ("/json/print/doubles", test_print_doubles);
  g_test_add_func ("/json/print/escapes", test_print_escapes);
  g_test_add_func ("/json/parse/round-trip", test_parse_round_trip);
  g_test_add_func ("/json/parse/accept", test_parse_accept);
  g_test_add_func ("/json/parse/reject", test_parse_reject);
  g_test_add_func ("/json/parse/error-position", test_parse_error_position);
  g_test_add_func ("/json/parse/number-types", test_parse_number_types);
  g_test_add_func ("/json/parse/depth", test_parse_depth);
  g_test_add_func ("/json/parse/fuzz", test_parse_fuzz);
  g_test_add_func ("/json/getters", test_getters);
  g_test_add_func ("/json/duplicates", test_duplicates);
  g_test_add_func ("/json/builder", test_builder);
  g_test_add_func ("/json/builder-misuse", test_builder_misuse);
  g_test_add_func ("/json/large-array", test_large_array);

  return g_test_run ();
}
