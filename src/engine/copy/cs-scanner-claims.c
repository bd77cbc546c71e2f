/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-scanner"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "cs-scanner-claims-private.h"
#include "cs-dest-fs-private.h"
#include "cs-dir-private.h"
#include "cs-job-private.h"
#include "cs-names-private.h"
#include "cs-scanner-leftovers-private.h"

/*
 * Which entry gets a name at the destination, decided before anything of it
 * is written: a name the destination cannot hold (a character it refuses, or
 * a second name that folds to one met already where case is ignored), and a
 * name another source takes, are reported and not copied.
 */

/*
 * Sources that land on one name (cp -r a/d b/d c) are decided by the order
 * they were named in, never by which worker gets there first: the first keeps
 * the name; a later folder merges into an earlier folder of that name, and in
 * the merged folder a name met again (IMG_0001.JPG in two cameras' DCIM) is
 * the first's; anything else of a later source that would land on a taken
 * name is not copied and is reported naming both. The scanner alone decides,
 * while it reads the folders one after the other, so a move never removes
 * the later one; it keeps the names of a merged folder's one level only.
 */

CsLater *
_cs_scanner_later_new (CsDir      *parent,
                       const char *name)
{
  CsLater *later = g_new0 (CsLater, 1);

  later->parent = _cs_dir_ref (parent);
  later->name = g_strdup (name);
  return later;
}

void
_cs_scanner_later_free (gpointer data)
{
  CsLater *later = data;

  _cs_dir_unref (later->parent);
  g_free (later->name);
  g_free (later);
}

/* Something found that could not even be looked at or opened: failed, and
 * found, so the classes still add up to the total; a folder as a folder. */
void
_cs_scanner_count_unreadable (CsJob    *job,
                              gboolean  folder)
{
  if (folder)
    {
      _cs_job_add_dir_total (job, CS_CLASS_TOTAL);
      _cs_job_add_dir_total (job, CS_CLASS_FAILED);
      return;
    }
  atomic_fetch_add (&job->tally.files_found, 1);
  _cs_job_add_total (job, CS_CLASS_TOTAL, 1, 0);
  _cs_job_add_total (job, CS_CLASS_FAILED, 1, 0);
}

/* Which member of a merged folder met a name first, and whether it was a
 * folder the later members' folders of that name merged into. */
typedef struct {
  guint     member;
  gboolean  merged;
  char      name[];
} Claim;

/* Counts an entry that is not copied because the destination cannot hold
 * it, and says why. */
void
_cs_scanner_not_held (CsJob             *job,
                      CsDir             *dir,
                      const char        *name,
                      const char        *dst_name,
                      const struct stat *st,
                      const char        *message)
{
  gboolean folder = S_ISDIR (st->st_mode);
  guint64 size = S_ISREG (st->st_mode) ? (guint64) st->st_size : 0;

  if (folder)
    {
      atomic_fetch_add (&job->tally.dirs_found, 1);
      _cs_job_add_dir_total (job, CS_CLASS_TOTAL);
      _cs_job_add_dir_total (job, CS_CLASS_FAILED);
    }
  else
    {
      atomic_fetch_add (&job->tally.files_found, 1);
      atomic_fetch_add (&job->tally.bytes_found, size);
      _cs_job_add_total (job, CS_CLASS_TOTAL, 1, size);
      _cs_job_add_total (job, CS_CLASS_FAILED, 1, size);
      atomic_fetch_add (&job->counters.files_done, 1);
      atomic_fetch_add (&job->counters.bytes_done, size);
    }
  _cs_job_report_item (job, dir, name, dst_name, size, folder, "name", 0, message, 1);
}

/*
 * Whether the destination can hold @name as it is, decided before anything of
 * it is written: a name with a character the destination refuses, and on a
 * destination that ignores case a second name that folds to one already met
 * in this folder, are reported once each and not copied. Of two such names
 * the one the destination already holds (@listed: the name it lists for
 * this one, or NULL) keeps its place, else the first met; the other never
 * overwrites it, run after run.
 */
gboolean
_cs_scanner_holdable (CsJob             *job,
                      CsDir             *dir,
                      const char        *name,
                      const char        *dst_name,
                      const struct stat *st,
                      CsFolderScan      *scan,
                      const char        *listed)
{
  const char *final = dst_name != NULL ? dst_name : name;
  const char *refused;

  if (dir->fs == NULL)
    return TRUE;
  refused = _cs_dest_fs_refused_in (job, dir->fs, dir->dst_fd, final);
  if (refused != NULL)
    {
      g_autofree char *message = g_strdup_printf ("Not copied: the destination cannot hold %s",
                                                  refused);

      _cs_scanner_not_held (job, dir, name, dst_name, st, message);
      return FALSE;
    }
  if (scan != NULL && scan->taken != NULL)
    {
      g_autofree char *key = _cs_dest_fs_fold (final);
      const char *first = g_hash_table_lookup (scan->taken, key);
      struct stat other;

      /* The destination holds the pair's other name, which the source has
       * too: that one stays, whichever the folder lists first. */
      if (first == NULL && listed != NULL && dst_name == NULL && strcmp (listed, final) != 0
          && _cs_io_fstatat (&job->counters, dir->src_fd, listed, &other, AT_SYMLINK_NOFOLLOW) == 0)
        {
          g_hash_table_insert (scan->taken, g_strdup (key), g_strdup (listed));
          first = listed;
        }
      if (first != NULL && strcmp (first, final) != 0)
        {
          g_autofree char *a = g_filename_display_name (final);
          g_autofree char *b = g_filename_display_name (first);
          g_autofree char *message =
            g_strdup_printf ("Not copied: “%s” and “%s” differ only in case, which the destination "
                             "does not tell apart; it keeps “%s”", a, b, b);

          _cs_scanner_not_held (job, dir, name, dst_name, st, message);
          return FALSE;
        }
      g_hash_table_insert (scan->taken, g_steal_pointer (&key), g_strdup (final));
    }
  return TRUE;
}

/* The message for a later source's @final in @dir, which lands where @first
 * (an earlier source's path) goes. */
char *
_cs_scanner_taken_message (CsDir      *dir,
                           const char *final,
                           const char *first)
{
  g_autofree char *target = _cs_dir_dup_path (dir, final, TRUE);
  g_autofree char *a = g_filename_display_name (first);
  g_autofree char *b = g_filename_display_name (target);

  return g_strdup_printf ("Not copied: “%s” goes to “%s” too, and was named first", a, b);
}

/* In a merged folder: whether @name is the first of its name, and if it is a
 * folder, the later members' folders of that name that merge into it. A name
 * met again is reported and not copied, or, for a folder merged already,
 * passed over. */
gboolean
_cs_scanner_claim_name (CsJob        *job,
                        CsDir        *dir,
                        const char   *name,
                        const char   *dst_name,
                        CsFolderScan *scan,
                        GPtrArray   **out_later)
{
  const char *final = dst_name != NULL ? dst_name : name;
  g_autofree char *key = _cs_scanner_dest_key (dir, final);
  Claim *claim = g_hash_table_lookup (scan->claimed, key);
  struct stat st;
  gboolean folder;

  if (_cs_io_fstatat (&job->counters, dir->src_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return TRUE;  /* handle_one reports it */
  folder = S_ISDIR (st.st_mode);

  if (claim != NULL)
    {
      g_autofree char *first = NULL;
      g_autofree char *message = NULL;

      if (claim->merged && folder)
        return FALSE;
      first = _cs_dir_dup_path (g_ptr_array_index (scan->members, claim->member), claim->name, FALSE);
      message = _cs_scanner_taken_message (dir, final, first);
      _cs_scanner_not_held (job, dir, name, dst_name, &st, message);
      return FALSE;
    }

  claim = g_malloc (sizeof (Claim) + strlen (name) + 1);
  claim->member = scan->member;
  claim->merged = FALSE;
  strcpy (claim->name, name);
  if (folder)
    for (guint m = scan->member + 1; m < scan->members->len; m++)
      {
        CsDir *other = g_ptr_array_index (scan->members, m);
        struct stat ost;

        if (_cs_io_fstatat (&job->counters, other->src_fd, name, &ost, AT_SYMLINK_NOFOLLOW) != 0
            || !S_ISDIR (ost.st_mode) || _cs_job_is_excluded (job, name))
          continue;
        if (*out_later == NULL)
          *out_later = g_ptr_array_new_with_free_func (_cs_scanner_later_free);
        g_ptr_array_add (*out_later, _cs_scanner_later_new (other, name));
        claim->merged = TRUE;
      }
  g_hash_table_insert (scan->claimed, g_steal_pointer (&key), claim);
  return TRUE;
}

/* CsLater folders that were to merge into one that could not be entered are
 * reported, never dropped silently. */
void
_cs_scanner_report_unmerged (CsJob      *job,
                             CsDir      *dir,
                             const char *name,
                             GPtrArray  *later)
{
  for (guint i = 0; later != NULL && i < later->len; i++)
    {
      CsLater *l = g_ptr_array_index (later, i);
      g_autofree char *path = NULL;
      g_autofree char *first = NULL;
      g_autofree char *message = NULL;

      if (l->entered)
        continue;
      path = _cs_dir_dup_path (dir, name, FALSE);
      first = g_filename_display_name (path);
      message = g_strdup_printf ("Not copied: it merges into the folder “%s”, which was not copied",
                                 first);
      _cs_job_report_item (job, l->parent, l->name, NULL, 0, TRUE, "name", 0, message, 1);
      _cs_scanner_count_unreadable (job, TRUE);
    }
}
