/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-names"

#include "config.h"

#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "cs-items-private.h"
#include "cs-names-private.h"

/*
 * cs-names.c alone: which names are ours (a run's temporaries, staging
 * folders and claims, which a later run may remove after a crash, so a
 * stranger's file must never pass), whether the run that named one still
 * runs, "keep both"'s numbered names and a folder's path for messages.
 */

#define HEX16 "0123456789abcdef"

static void
test_is_ours (void)
{
  /* What the engine writes: the job tag, a sequence number, the suffix. */
  g_assert_true (_cs_name_is_ours (".copyscope-" HEX16 "-0.part", CS_TEMP_SUFFIX));
  g_assert_true (_cs_name_is_ours (".copyscope-" HEX16 "-1234567890.part", CS_TEMP_SUFFIX));
  g_assert_true (_cs_name_is_ours (".copyscope-0123456789ABCDEF-7.stage", CS_STAGE_SUFFIX));
  g_assert_true (_cs_name_is_ours (".copyscope-" HEX16 "-7", ""));

  /* The suffix must be the whole rest of the name. */
  g_assert_false (_cs_name_is_ours (".copyscope-" HEX16 "-7.part", CS_STAGE_SUFFIX));
  g_assert_false (_cs_name_is_ours (".copyscope-" HEX16 "-7.part", ""));
  g_assert_false (_cs_name_is_ours (".copyscope-" HEX16 "-7.part.txt", CS_TEMP_SUFFIX));
  g_assert_false (_cs_name_is_ours (".copyscope-" HEX16 "-7.part/", CS_TEMP_SUFFIX));
  g_assert_false (_cs_name_is_ours (".copyscope-" HEX16 "-7", CS_TEMP_SUFFIX));

  /* A tag of 16 hex digits, then "-" and at least one digit. */
  g_assert_false (_cs_name_is_ours (".copyscope-0123456789abcde-7.part", CS_TEMP_SUFFIX));
  g_assert_false (_cs_name_is_ours (".copyscope-0123456789abcdef0-7.part", CS_TEMP_SUFFIX));
  g_assert_false (_cs_name_is_ours (".copyscope-0123456789abcdeg-7.part", CS_TEMP_SUFFIX));
  g_assert_false (_cs_name_is_ours (".copyscope-" HEX16 "-.part", CS_TEMP_SUFFIX));
  g_assert_false (_cs_name_is_ours (".copyscope-" HEX16 "7.part", CS_TEMP_SUFFIX));
  g_assert_false (_cs_name_is_ours (".copyscope-" HEX16 "-x7.part", CS_TEMP_SUFFIX));

  /* Anything else: a user's file of a like name, nothing, odd bytes. */
  g_assert_false (_cs_name_is_ours ("copyscope-" HEX16 "-7.part", CS_TEMP_SUFFIX));
  g_assert_false (_cs_name_is_ours ("x.copyscope-" HEX16 "-7.part", CS_TEMP_SUFFIX));
  g_assert_false (_cs_name_is_ours (".copyscope-", ""));
  g_assert_false (_cs_name_is_ours ("", ""));
  g_assert_false (_cs_name_is_ours ("/", ""));
  g_assert_false (_cs_name_is_ours ("report.part", CS_TEMP_SUFFIX));
  g_assert_false (_cs_name_is_ours (".copyscope-é123456789abcdef-7.part", CS_TEMP_SUFFIX));
  g_assert_false (_cs_name_is_ours (".copyscope-\xff" "123456789abcdef-7.part", CS_TEMP_SUFFIX));
}

static void
test_temp_and_stage (void)
{
  g_autofree char *claim = g_strdup_printf (".copyscope-" HEX16 "-3" CS_CLAIM_SUFFIX "%016" G_GINT64_MODIFIER "x",
                                            _cs_name_hash ("photo.jpg"));

  g_assert_true (_cs_name_is_our_temp (".copyscope-" HEX16 "-3.part"));
  g_assert_true (_cs_name_is_our_temp (claim));
  g_assert_false (_cs_name_is_our_temp (".copyscope-" HEX16 "-3.stage"));
  g_assert_false (_cs_name_is_our_temp (".copyscope-" HEX16 "-3"));
  g_assert_false (_cs_name_is_our_temp (""));

  g_assert_true (_cs_name_is_our_stage (".copyscope-" HEX16 "-3.stage"));
  g_assert_false (_cs_name_is_our_stage (".copyscope-" HEX16 "-3.part"));
  g_assert_false (_cs_name_is_our_stage (claim));
  g_assert_false (_cs_name_is_our_stage (".stage"));
  g_assert_false (_cs_name_is_our_stage (""));
}

static void
test_hash (void)
{
  g_autofree char *long_name = g_strnfill (4096, 'n');

  /* XXH3-64 of the name's bytes, whatever they are: never a locale's idea of
   * them. 0x2d06800538d394c2 is XXH3-64 of nothing (xxhsum -H3 < /dev/null). */
  g_assert_cmpuint (_cs_name_hash (""), ==, G_GUINT64_CONSTANT (0x2d06800538d394c2));
  g_assert_cmpuint (_cs_name_hash ("photo.jpg"), ==, XXH3_64bits ("photo.jpg", 9));
  g_assert_cmpuint (_cs_name_hash ("été"), ==, XXH3_64bits ("été", strlen ("été")));
  g_assert_cmpuint (_cs_name_hash ("\xff\xfe"), ==, XXH3_64bits ("\xff\xfe", 2));
  g_assert_cmpuint (_cs_name_hash (long_name), ==, XXH3_64bits (long_name, 4096));
  g_assert_cmpuint (_cs_name_hash ("photo.jpg"), !=, _cs_name_hash ("photo.JPG"));
  /* NFC and NFD of one name are two names on Linux. */
  g_assert_cmpuint (_cs_name_hash ("\xc3\xa9"), !=, _cs_name_hash ("e\xcc\x81"));
}

static void
test_claim_hash (void)
{
  const char *finals[] = { "photo.jpg", "", "été.txt", "\xff\xfe.bin", "a/b" };
  guint64 hash = 0;

  for (guint i = 0; i < G_N_ELEMENTS (finals); i++)
    {
      guint64 expected = _cs_name_hash (finals[i]);
      g_autofree char *name = g_strdup_printf (".copyscope-" HEX16 "-42" CS_CLAIM_SUFFIX "%016" G_GINT64_MODIFIER "x",
                                               expected);

      hash = 0;
      g_assert_true (_cs_name_claim_hash (name, &hash));
      g_assert_cmpuint (hash, ==, expected);
      g_assert_true (_cs_name_claim_hash (name, NULL));
    }

  /* Upper-case digits, and a hash whose top digits are 0. */
  g_assert_true (_cs_name_claim_hash (".copyscope-" HEX16 "-1.claim-00000000DEADBEEF", &hash));
  g_assert_cmpuint (hash, ==, 0xdeadbeef);
  g_assert_true (_cs_name_claim_hash (".copyscope-" HEX16 "-1.claim-ffffffffffffffff", &hash));
  g_assert_cmpuint (hash, ==, G_MAXUINT64);

  /* Not claims: the hash's length or digits, the stem, the suffix. */
  hash = 7;
  g_assert_false (_cs_name_claim_hash (".copyscope-" HEX16 "-1.claim-0123456789abcde", &hash));
  g_assert_false (_cs_name_claim_hash (".copyscope-" HEX16 "-1.claim-0123456789abcdef0", &hash));
  g_assert_false (_cs_name_claim_hash (".copyscope-" HEX16 "-1.claim-0123456789abcdeg", &hash));
  g_assert_false (_cs_name_claim_hash (".copyscope-" HEX16 "-1.claim-", &hash));
  g_assert_false (_cs_name_claim_hash (".copyscope-" HEX16 "-1.claim-" HEX16 "/", &hash));
  g_assert_false (_cs_name_claim_hash (".copyscope-" HEX16 "-1.part.claim-" HEX16, &hash));
  g_assert_false (_cs_name_claim_hash (".copyscope-" HEX16 ".claim-" HEX16, &hash));
  g_assert_false (_cs_name_claim_hash ("photo.claim-" HEX16, &hash));
  g_assert_false (_cs_name_claim_hash (".claim-" HEX16, &hash));
  g_assert_false (_cs_name_claim_hash (".copyscope-" HEX16 "-1.part", &hash));
  g_assert_false (_cs_name_claim_hash ("", &hash));
  g_assert_false (_cs_name_claim_hash ("/", &hash));
  /* A name refused leaves the hash alone. */
  g_assert_cmpuint (hash, ==, 7);
}

/* A tag no other run on this machine has: 16 random hex digits. */
static char *
random_tag (void)
{
  return g_strdup_printf ("%08x%08x", g_random_int (), g_random_int ());
}

static void
test_run_alive (void)
{
  g_autofree char *tag = random_tag ();
  g_autofree char *temp = g_strdup_printf (".copyscope-%s-12.part", tag);
  g_autofree char *stage = g_strdup_printf (".copyscope-%s-0.stage", tag);
  g_autofree char *other = NULL;
  g_autofree char *other_temp = NULL;
  int fd, again;

  /* Nobody holds the tag yet: a killed run's file. */
  g_assert_false (_cs_name_run_alive (temp));

  fd = _cs_names_announce (tag);
  g_assert_cmpint (fd, >=, 0);
  g_assert_true (_cs_name_run_alive (temp));
  g_assert_true (_cs_name_run_alive (stage));
  /* Asking leaves the announcement in place. */
  g_assert_true (_cs_name_run_alive (temp));

  /* One run a tag: a second announcement of it is refused. */
  again = _cs_names_announce (tag);
  g_assert_cmpint (again, ==, -1);

  /* Another tag is another run. */
  do
    {
      g_free (other);
      other = random_tag ();
    }
  while (strcmp (other, tag) == 0);
  other_temp = g_strdup_printf (".copyscope-%s-12.part", other);
  g_assert_false (_cs_name_run_alive (other_temp));
  /* All 16 digits of the tag count, the last one too. */
  g_free (other_temp);
  other_temp = g_strdup_printf (".copyscope-%.15s%c-12.part", tag, tag[15] == '0' ? '1' : '0');
  g_assert_false (_cs_name_run_alive (other_temp));

  /* Not ours: never alive, whatever runs. */
  g_assert_false (_cs_name_run_alive (""));
  g_assert_false (_cs_name_run_alive ("/"));
  g_assert_false (_cs_name_run_alive ("report.part"));

  /* The run ends: its names are left behind. */
  close (fd);
  g_assert_false (_cs_name_run_alive (temp));
  g_assert_false (_cs_name_run_alive (stage));
}

static void
test_numbered (void)
{
  const struct {
    const char *final;
    guint       n;
    const char *numbered;
  } cases[] = {
    { "photo.jpg", 2, "photo (2).jpg" },
    { "photo", 1, "photo (1)" },
    { "archive.tar.gz", 3, "archive.tar (3).gz" },
    /* A leading dot is a hidden file's, not an extension's. */
    { ".bashrc", 1, ".bashrc (1)" },
    { ".config.json", 1, ".config (1).json" },
    { "photo.", 5, "photo (5)." },
    { "..", 1, ". (1)." },
    { "", 1, " (1)" },
    { "été.jpg", 12, "été (12).jpg" },
    { "\xff\xfe.bin", 1, "\xff\xfe (1).bin" },
    { "photo.jpg", 0, "photo (0).jpg" },
    { "photo.jpg", CS_KEEP_BOTH_MAX, "photo (10000).jpg" },
    { "photo.jpg", G_MAXUINT, "photo (4294967295).jpg" },
  };
  g_autofree char *long_name = g_strnfill (255, 'a');
  g_autofree char *long_numbered = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *numbered = _cs_name_numbered (cases[i].final, cases[i].n);

      g_assert_cmpstr (numbered, ==, cases[i].numbered);
    }

  /* A name at the filesystem's limit grows past it: the caller's ENAMETOOLONG
   * to handle, not a name cut here into one that may not be unique. */
  long_numbered = _cs_name_numbered (long_name, 7);
  g_assert_cmpuint (strlen (long_numbered), ==, 255 + strlen (" (7)"));
  g_assert_true (g_str_has_prefix (long_numbered, long_name));
  g_assert_true (g_str_has_suffix (long_numbered, " (7)"));
}

static void
test_dir_path (void)
{
  CsDir root = { .name = (char *) "/home/user/src", .dst_name = (char *) "/mnt/backup/src" };
  CsDir slash = { .name = (char *) "/", .dst_name = (char *) "/" };
  CsDir trailing = { .name = (char *) "/home/user/src/", .dst_name = (char *) "/mnt/dst/" };
  CsDir sub = { .parent = &root, .name = (char *) "été", .dst_name = (char *) "été (1)" };
  CsDir subsub = { .parent = &sub, .name = (char *) "\xff", .dst_name = (char *) "\xff" };
  CsDir under_slash = { .parent = &slash, .name = (char *) "etc", .dst_name = (char *) "etc" };
  CsDir under_trailing = { .parent = &trailing, .name = (char *) "a", .dst_name = (char *) "b" };
  const struct {
    CsDir      *dir;
    const char *name;
    gboolean    destination;
    const char *path;
  } cases[] = {
    { NULL, NULL, FALSE, "" },
    { NULL, "file", FALSE, "file" },
    { NULL, "file", TRUE, "file" },
    { &root, NULL, FALSE, "/home/user/src" },
    { &root, NULL, TRUE, "/mnt/backup/src" },
    { &root, "file.txt", FALSE, "/home/user/src/file.txt" },
    { &sub, "file.txt", FALSE, "/home/user/src/été/file.txt" },
    { &sub, "file.txt", TRUE, "/mnt/backup/src/été (1)/file.txt" },
    { &subsub, "f", FALSE, "/home/user/src/été/\xff/f" },
    { &subsub, NULL, TRUE, "/mnt/backup/src/été (1)/\xff" },
    /* One slash between parts, however the root was named. */
    { &slash, "etc", FALSE, "/etc" },
    { &slash, NULL, FALSE, "/" },
    { &under_slash, "passwd", FALSE, "/etc/passwd" },
    { &trailing, "x", FALSE, "/home/user/src/x" },
    { &under_trailing, "x", FALSE, "/home/user/src/a/x" },
    { &under_trailing, "x", TRUE, "/mnt/dst/b/x" },
    { &root, "", FALSE, "/home/user/src/" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = _cs_dir_dup_path (cases[i].dir, cases[i].name, cases[i].destination);

      g_assert_cmpstr (path, ==, cases[i].path);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/names/is-ours", test_is_ours);
  g_test_add_func ("/names/temp-and-stage", test_temp_and_stage);
  g_test_add_func ("/names/hash", test_hash);
  g_test_add_func ("/names/claim-hash", test_claim_hash);
  g_test_add_func ("/names/run-alive", test_run_alive);
  g_test_add_func ("/names/numbered", test_numbered);
  g_test_add_func ("/names/dir-path", test_dir_path);

  return g_test_run ();
}
