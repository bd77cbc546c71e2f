/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "cs-text.h"

/*
 * The one escaper of names shown as plain text (cs-text.h): the per-file
 * log, the terminal, the history list, the record's display form and the
 * Markdown report all write a name through it.
 */

/* Every byte but NUL, alone and in runs, and random names: the escaped form
 * is UTF-8 without tabs or newlines, and unescaping gives the bytes back. */
static void
test_round_trip (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (26);

  for (guint i = 0; i < 2000; i++)
    {
      char name[64];
      guint len = i < 255 ? 1 : (guint) g_rand_int_range (rand, 1, sizeof name);
      g_autofree char *escaped = NULL;
      g_autofree char *back = NULL;
      g_autoptr(GError) error = NULL;

      for (guint j = 0; j < len; j++)
        name[j] = i < 255 ? (char) (i + 1) : (char) g_rand_int_range (rand, 1, 256);
      /* Valid multi-byte characters in between too. */
      if (i % 7 == 0 && len > 4)
        memcpy (name + len / 2 - 1, "\xc3\xa9", 2);
      name[len] = '\0';

      escaped = cs_text_escape (name, -1, CS_TEXT_ESCAPE_LINE);
      g_assert_true (g_utf8_validate (escaped, -1, NULL));
      g_assert_null (strpbrk (escaped, "\t\n\r\x1b\x7f"));
      back = cs_text_unescape (escaped, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (back, ==, name);
    }
}

/* What each mode writes as it is, and what not. */
static void
test_cases (void)
{
  static const struct {
    const char *bytes;
    gssize      len;
    const char *line;
    const char *invalid;
  } cases[] = {
    { "plain.txt", -1, "plain.txt", "plain.txt" },
    { "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x93\x81", -1,
      "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x93\x81", "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x93\x81" },
    { "back\\slash", -1, "back\\\\slash", "back\\slash" },
    { "new\nline\ttab\rcr", -1, "new\\nline\\ttab\\rcr", "new\nline\ttab\rcr" },
    { "esc\x1b[31mred\x7f", -1, "esc\\x1b[31mred\\x7f", "esc\x1b[31mred\x7f" },
    { "\x01\x1f", -1, "\\x01\\x1f", "\x01\x1f" },
    /* Not UTF-8: a stray byte, a sequence cut short, an overlong one, a
     * surrogate; each byte on its own, so two such names never read alike. */
    { "bad\xff", -1, "bad\\xff", "bad\\xff" },
    { "cut\xc3", -1, "cut\\xc3", "cut\\xc3" },
    { "long\xc0\xaf", -1, "long\\xc0\\xaf", "long\\xc0\\xaf" },
    { "sur\xed\xa0\x80", -1, "sur\\xed\\xa0\\x80", "sur\\xed\\xa0\\x80" },
    { "\\xff\xff", -1, "\\\\xff\\xff", "\\xff\\xff" },
    /* Bytes with a length: a NUL among them (a raw path from a record). */
    { "a\0b", 3, "a\\x00b", "a\\x00b" },
    { "abc", 2, "ab", "ab" },
    { "", -1, "", "" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *line = cs_text_escape (cases[i].bytes, cases[i].len, CS_TEXT_ESCAPE_LINE);
      g_autofree char *invalid = cs_text_escape (cases[i].bytes, cases[i].len, CS_TEXT_ESCAPE_INVALID);

      g_test_message ("case %u", i);
      g_assert_cmpstr (line, ==, cases[i].line);
      g_assert_cmpstr (invalid, ==, cases[i].invalid);
      g_assert_true (g_utf8_validate (line, -1, NULL));
      g_assert_true (g_utf8_validate (invalid, -1, NULL));
    }
}

static void
test_unescape_refuses (void)
{
  const char *bad[] = { "\\", "a\\", "\\q", "\\x4", "\\xg0", "\\x00", "a\tb", "a\nb", "a\x7f" };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *back = cs_text_unescape (bad[i], &error);

      g_assert_null (back);
      g_assert_error (error, G_CONVERT_ERROR, G_CONVERT_ERROR_ILLEGAL_SEQUENCE);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/text/round-trip", test_round_trip);
  g_test_add_func ("/text/cases", test_cases);
  g_test_add_func ("/text/unescape-refuses", test_unescape_refuses);

  return g_test_run ();
}
