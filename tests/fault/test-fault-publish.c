/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-test"

#include "config.h"

#include "test-fault.h"

/* Publishing a finished file under its final name while another program
 * creates it, on destinations with and without RENAME_NOREPLACE and hard
 * links: the claim, and kills while it stands. */

/* No RENAME_NOREPLACE (EINVAL, as on some shares): the hard-link fallback
 * publishes, and still never replaces. */
void
test_noreplace_einval (Fixture       *f,
                       gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };

  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_RENAME_NOREPLACE, NULL, 1, -1, CS_FAULT_ERRNO, EINVAL });
  run (f, DEFAULTS, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (0), ==, 1);
  g_assert_cmpuint (cs_fault_calls (CS_FAULT_LINK, NULL), >=, 5);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
}

void
test_created_meanwhile (Fixture       *f,
                        gconstpointer  data)
{
  int how = GPOINTER_TO_INT (data);
  g_auto(Outcome) o = { 0 };
  g_autofree char *contents = NULL;
  Plant plant = { f, g_build_filename (f->copy, "b.bin", NULL) };
  const CsRunError *e;
  guint hook;

  watch (f);
  cs_fault_install (f->out);
  /* The first create is the first unnamed temporary: refused as by a
   * filesystem without them, the job writes named ones from then on. */
  if (how != PUBLISH_UNNAMED)
    cs_fault_add (&(CsFaultRule) { CS_FAULT_CREATE, NULL, 1, 1, CS_FAULT_ERRNO, EOPNOTSUPP });
  if (how == PUBLISH_LINK_FALLBACK)
    cs_fault_add (&(CsFaultRule) { CS_FAULT_RENAME_NOREPLACE, NULL, 1, -1, CS_FAULT_ERRNO, EINVAL });
  hook = how == PUBLISH_UNNAMED ? 0 : how == PUBLISH_NAMED ? 1 : 2;
  cs_fault_add (&(CsFaultRule) { how == PUBLISH_NAMED ? CS_FAULT_RENAME_NOREPLACE : CS_FAULT_LINK,
                                 "b.bin", 1, 1, CS_FAULT_HOOK, 0, plant_file, &plant });
  /* One worker where only the first create is refused: with two, both may
   * try an unnamed temporary at once and the second one's succeeds, so
   * b.bin is published the other way (seen under ASan on a loaded
   * machine: the hook never ran). A filesystem without them refuses all. */
  run (f, how == PUBLISH_UNNAMED ? DEFAULTS : (Options) { 1, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (hook), ==, 1);
  if (how != PUBLISH_UNNAMED)
    g_assert_cmpuint (cs_fault_hits (0), ==, 1);
  g_assert_true (g_file_get_contents (plant.path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "theirs, not ours\n");
  e = find_error (&o, "b.bin");
  g_assert_nonnull (e);
  g_assert_nonnull (strstr (e->message, "Another program"));
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "b.bin"), ==, CS_ORACLE_OLD);
  g_free (plant.path);
}

/* Linking an unnamed temporary refused both ways (by descriptor and through
 * /proc), as where /proc is missing: that file and every later one are
 * written as named temporaries, and nothing is reported or lost. */
void
test_unnamed_link_refused (Fixture       *f,
                           gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };

  watch (f);
  cs_fault_install (f->out);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_LINK, NULL, 1, 2, CS_FAULT_ERRNO, EPERM });
  run (f, (Options) { 1, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (o.errors->len, ==, 0);
  g_assert_cmpuint (cs_fault_hits (0), ==, 2);
  g_assert_cmpuint (cs_fault_calls (CS_FAULT_RENAME_NOREPLACE, NULL), >=, 4);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
}

/* Shares with neither RENAME_NOREPLACE nor hard links (@data: what linkat
 * answers there). Another program creates the final name just after the
 * engine made sure it was free and just before the rename that may replace:
 * whatever it created must survive, or it must have been refused the name. */
typedef struct {
  Fixture  *f;
  char     *path;
  gboolean  created;
  int       refused;    /* errno of their create, 0 if it worked */
} Rival;

static void
rival_creates (const char *name,
               gpointer    data)
{
  Rival *rival = data;
  int fd = open (rival->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);

  if (fd < 0)
    {
      rival->refused = errno;
      return;
    }
  g_assert_cmpint (write (fd, "theirs, not ours\n", 17), ==, 17);
  close (fd);
  rival->created = TRUE;
  cs_oracle_update_before (rival->f->oracle, 0, "b.bin");
}

static void
no_noreplace_no_link (int link_error)
{
  cs_fault_add (&(CsFaultRule) { CS_FAULT_RENAME_NOREPLACE, NULL, 1, -1, CS_FAULT_ERRNO, EINVAL });
  cs_fault_add (&(CsFaultRule) { CS_FAULT_LINK, NULL, 1, -1, CS_FAULT_ERRNO, link_error });
}

void
test_created_after_check (Fixture       *f,
                          gconstpointer  data)
{
  Rival rival = { f, g_build_filename (f->copy, "b.bin", NULL), FALSE, 0 };
  g_auto(Outcome) o = { 0 };
  g_autofree char *contents = NULL;
  gsize length = 0;

  watch (f);
  cs_fault_install (f->out);
  no_noreplace_no_link (GPOINTER_TO_INT (data));
  cs_fault_add (&(CsFaultRule) { CS_FAULT_RENAME_REPLACE, "b.bin", 1, 1, CS_FAULT_HOOK, 0, rival_creates, &rival });
  run (f, DEFAULTS, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (2), ==, 1);
  g_assert_true (g_file_get_contents (rival.path, &contents, &length, NULL));
  if (rival.created)
    {
      const CsRunError *e = find_error (&o, "b.bin");

      g_assert_cmpuint (length, ==, 17);
      g_assert_cmpstr (contents, ==, "theirs, not ours\n");
      g_assert_nonnull (e);
      g_assert_nonnull (strstr (e->message, "Another program"));
      cs_oracle_check (f->oracle, CS_ORACLE_NONE);
      g_assert_cmpint (cs_oracle_state (f->oracle, 0, "b.bin"), ==, CS_ORACLE_OLD);
    }
  else
    {
      /* The name was already claimed: they were told it exists, and nothing of
       * theirs was there to lose. */
      g_assert_cmpint (rival.refused, ==, EEXIST);
      g_assert_cmpuint (o.errors->len, ==, 0);
      cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
    }
  g_free (rival.path);
}

typedef struct {
  char *from;
  char *to;
} Freeze;

/* What a SIGKILL at this instant leaves on disk: the destination as it is now,
 * copied aside while the only worker waits in this hook. */
static void
freeze_destination (const char *name,
                    gpointer    data)
{
  Freeze *freeze = data;
  const char *argv[] = { "cp", "-a", "--", freeze->from, freeze->to, NULL };
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                               NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
}

/* Killed between claiming the final name and renaming over the claim: the
 * claim is classed as ours, and a rerun (on a share with the fast path or
 * without it) replaces it with the file and leaves nothing behind. */
void
test_killed_while_claimed (Fixture       *f,
                           gconstpointer  data)
{
  gboolean rerun_without_link = GPOINTER_TO_INT (data);
  g_autofree char *killed = fixture_path (f, "killed");
  Freeze freeze = { f->copy, g_build_filename (killed, "src", NULL) };
  g_autoptr(CsOracle) after_kill = cs_oracle_new ();
  g_auto(Outcome) o = { 0 };
  g_auto(Outcome) again = { 0 };
  CsOracleCounts c;

  g_assert_cmpint (g_mkdir (killed, 0755), ==, 0);
  cs_oracle_add_pair (after_kill, f->src, freeze.to);
  watch (f);
  cs_fault_install (f->out);
  no_noreplace_no_link (EPERM);
  cs_fault_add (&(CsFaultRule) { CS_FAULT_RENAME_REPLACE, "b.bin", 1, 1, CS_FAULT_HOOK, 0, freeze_destination, &freeze });
  run (f, (Options) { 1, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (2), ==, 1);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);

  c = cs_oracle_check (after_kill, CS_ORACLE_ALLOW_TEMP);
  g_assert_cmpint (cs_oracle_state (after_kill, 0, "b.bin"), ==, CS_ORACLE_TEMP);
  g_assert_cmpuint (c.n[CS_ORACLE_TEMP], >=, 2);   /* the claim and the finished temporary */

  cs_fault_remove ();
  if (rerun_without_link)
    {
      cs_fault_install (killed);
      no_noreplace_no_link (EPERM);
    }
  run_job (f->src, killed, DEFAULTS, &again);
  g_assert_true (again.ok);
  g_assert_cmpuint (again.errors->len, ==, 0);
  cs_oracle_check (after_kill, CS_ORACLE_ALL_COMPLETE);
  g_free (freeze.to);
}

/* The server goes away while a name is claimed: from the claim's check on,
 * every call into the destination fails with ENOTCONN. */
static void
server_goes_after_claim (const char *name,
                         gpointer    data)
{
  /* After the claim's text: its fstat passes, the check of the name fails. */
  cs_fault_add (&(CsFaultRule) { CS_FAULT_ANY_DEST, NULL, 2, -1, CS_FAULT_ERRNO, ENOTCONN });
}

/* A share that vanishes between the claim and its check is a share gone (one
 * fatal error), not a file "another program created": the check of the claim
 * could not be made, which says nothing about who holds the name. Seen on the
 * lab Samba, its server killed mid-copy (test-smb-native.sh, 1 run in 4 under
 * load). */
void
test_gone_while_claimed (Fixture       *f,
                         gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };

  watch (f);
  cs_fault_install (f->out);
  no_noreplace_no_link (EPERM);
  /* b.bin's data goes by copy_file_range: its first write is the claim's text. */
  cs_fault_add (&(CsFaultRule) { CS_FAULT_WRITE, "b.bin", 1, 1, CS_FAULT_HOOK, 0, server_goes_after_claim, NULL });
  run (f, (Options) { 1, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);

  g_assert_cmpuint (cs_fault_hits (2), ==, 1);
  g_assert_cmpuint (cs_fault_hits (3), >=, 1);
  g_assert_false (o.ok);
  g_assert_error (o.error, CS_JOB_ERROR, CS_JOB_ERROR_DESTINATION);
  for (guint i = 0; i < o.errors->len; i++)
    {
      const CsRunError *e = g_ptr_array_index (o.errors, i);

      g_assert_null (strstr (e->message, "Another program"));
    }
  cs_oracle_check (f->oracle, CS_ORACLE_ALLOW_TEMP | CS_ORACLE_ALLOW_CLAIM);
  rerun_converges (f);
}

/* Killed between creating the claim and writing its text, as a SIGKILL on a
 * FAT share without RENAME_NOREPLACE or hard links can land: the final name
 * holds an empty file. The rerun must know it for its own claim and replace
 * it with the file; before, under the default policy, the empty file was
 * "newer" than the source and was skipped for ever. */
void
test_killed_while_claiming (Fixture       *f,
                            gconstpointer  data)
{
  gboolean rerun_without_link = GPOINTER_TO_INT (data);
  g_autofree char *killed = fixture_path (f, "killed");
  g_autofree char *claim = NULL;
  Freeze freeze = { f->copy, g_build_filename (killed, "src", NULL) };
  g_autoptr(CsOracle) after_kill = cs_oracle_new ();
  g_auto(Outcome) o = { 0 };
  g_auto(Outcome) again = { 0 };
  struct stat st;

  g_assert_cmpint (g_mkdir (killed, 0755), ==, 0);
  cs_oracle_add_pair (after_kill, f->src, freeze.to);
  watch (f);
  cs_fault_install (f->out);
  no_noreplace_no_link (EPERM);
  /* b.bin's data goes by copy_file_range: its first write is the claim's text. */
  cs_fault_add (&(CsFaultRule) { CS_FAULT_WRITE, "b.bin", 1, 1, CS_FAULT_HOOK, 0, freeze_destination, &freeze });
  run (f, (Options) { 1, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (cs_fault_hits (2), ==, 1);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);

  claim = g_build_filename (freeze.to, "b.bin", NULL);
  g_assert_cmpint (lstat (claim, &st), ==, 0);
  g_assert_cmpint (st.st_size, ==, 0);
  cs_oracle_check (after_kill, CS_ORACLE_ALLOW_TEMP | CS_ORACLE_ALLOW_CLAIM);

  cs_fault_remove ();
  if (rerun_without_link)
    {
      cs_fault_install (killed);
      no_noreplace_no_link (EPERM);
    }
  run_job (f->src, killed, DEFAULTS, &again);
  g_assert_true (again.ok);
  g_assert_cmpuint (again.errors->len, ==, 0);
  cs_oracle_check (after_kill, CS_ORACLE_ALL_COMPLETE);
  g_assert_cmpuint (cs_test_tree_find_temporaries (killed), ==, 0);
  g_free (freeze.to);
}

/* Once the job knows it publishes by a claim, a new file's temporary is
 * created under the name that says which name it will claim, and is renamed
 * once, over its claim, not twice: on SMB each rename is three requests. Of
 * the five files here only the first is written under another name, and the
 * symbolic link has temporaries of its own. */
void
test_claimed_renamed_once (Fixture       *f,
                           gconstpointer  data)
{
  g_auto(Outcome) o = { 0 };
  guint renames;

  watch (f);
  cs_fault_install (f->out);
  no_noreplace_no_link (EPERM);
  run (f, (Options) { 1, FALSE, FALSE, CS_OVERWRITE_NEWER, 2 }, &o);

  g_assert_true (o.ok);
  g_assert_cmpuint (o.errors->len, ==, 0);
  cs_oracle_check (f->oracle, CS_ORACLE_ALL_COMPLETE);
  g_assert_cmpuint (cs_test_tree_find_temporaries (f->copy), ==, 0);
  renames = cs_fault_calls (CS_FAULT_RENAME_REPLACE, NULL);
  g_test_message ("%u renames for 5 files and a link", renames);
  g_assert_cmpuint (renames, <=, 5 + 1 + 2);
}

/* An empty file under the final name that no claim of ours explains is
 * someone's file, and the policy decides: here it is newer than the source
 * and stays. */
void
test_empty_file_not_a_claim (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->copy, "b.bin", NULL);
  g_auto(Outcome) o = { 0 };

  g_assert_cmpint (g_mkdir (f->copy, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, "", 0, NULL));
  watch (f);
  cs_fault_install (f->out);
  no_noreplace_no_link (EPERM);
  run (f, DEFAULTS, &o);

  g_assert_true (o.ok);
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "b.bin"), ==, CS_ORACLE_OLD);
  g_assert_nonnull (find_error (&o, "b.bin"));
}

/* A file that only looks like a claim (its size, its owner, the start of the
 * text) is someone's file: with "never overwrite" it stays as it was. */
void
test_claim_lookalike_kept (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->copy, "a.txt", NULL);
  g_auto(Outcome) o = { 0 };

  g_assert_cmpint (g_mkdir (f->copy, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, "copyscope placeholder not-ours-at-all!\n", -1, NULL));
  watch (f);
  run (f, (Options) { 2, FALSE, FALSE, CS_OVERWRITE_NEVER, 2 }, &o);

  g_assert_true (o.ok);
  cs_oracle_check (f->oracle, CS_ORACLE_NONE);
  g_assert_cmpint (cs_oracle_state (f->oracle, 0, "a.txt"), ==, CS_ORACLE_OLD);
  g_assert_cmpuint (o.totals.v[CS_CLASS_SKIPPED][CS_KIND_FILES], ==, 1);
}
