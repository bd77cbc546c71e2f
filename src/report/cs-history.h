/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "cs-manifest-format.h"
#include "cs-run.h"

G_BEGIN_DECLS

/*
 * The run history: one JSON file per finished run under
 * $XDG_DATA_HOME/copyscope/runs/, named "<UTC start>-<id>.json" so a directory
 * listing sorts by time. Every write is atomic. Saved thread sweeps share the
 * folder as "sweep-<UTC start>.json".
 */

#define CS_HISTORY_SWEEP_PREFIX "sweep-"

typedef struct {
  char  *path;
  CsRun *run;
} CsHistoryEntry;

void        cs_history_entry_free (CsHistoryEntry  *entry);

char       *cs_history_get_dir    (void);

/* Saves @run; returns the path written. */
char       *cs_history_save       (CsRun           *run,
                                   GError         **error);
/*
 * Saving touches the history folder a few times (its path, the place of the
 * new name, a free inode): on a cold cache, milliseconds spent after the copy
 * has ended. A caller that will save can reserve the file while the copy runs
 * (the copy command does it from its idle main loop): the file is created
 * unnamed in the folder, and commit () writes the run and names it. Any
 * problem with the reservation only means commit () saves the ordinary way;
 * a reservation dropped or lost in a crash leaves nothing behind.
 */
typedef struct _CsHistorySlot CsHistorySlot;

/* @run: its start time and id, which name the file, must be set */
CsHistorySlot *cs_history_reserve    (CsRun           *run);
/* Like cs_history_save (); @slot may be NULL. */
char          *cs_history_commit     (CsHistorySlot   *slot,
                                      CsRun           *run,
                                      GError         **error);
void           cs_history_slot_free  (CsHistorySlot   *slot);

/* Entries, newest first. Files that fail to load are skipped; their
 * number goes to @n_skipped when not NULL. Sweeps are no runs and are neither
 * listed nor counted. An absent folder is an empty history. */
GPtrArray  *cs_history_list       (guint           *n_skipped,
                                   GError         **error);
/* Paths of the saved sweeps, newest first; an unreadable folder lists none. */
GPtrArray  *cs_history_list_sweeps (void);
CsRun      *cs_history_load       (const char      *id,
                                   GError         **error);
/* Rewrites the run's file with a new label (NULL or "" removes it). */
gboolean    cs_history_set_label  (const char      *id,
                                   const char      *label,
                                   GError         **error);
/* Deletes the run's record, its per-file log and the window's checksum list. */
gboolean    cs_history_delete     (const char      *id,
                                   GError         **error);
/*
 * As cs_history_delete (), for a delete that can be undone: the log is not
 * deleted but set aside under a hidden name, given in @log_aside (NULL when
 * the run has no log). cs_history_restore_log () puts it back beside the
 * record saved again; g_unlink () of @log_aside ends it. A log set aside and
 * left (the program ended first) is deleted by a listing a day later.
 */
gboolean    cs_history_delete_full (const char     *id,
                                    char          **log_aside,
                                    GError        **error);
gboolean    cs_history_restore_log (const char     *log_aside,
                                    CsRun          *run,
                                    GError        **error);

/*
 * The per-file log of a run (cs-log.h) lies beside its record, under the
 * record's name with ".log" for ".json"; listings pass it by.
 *
 * Returns its path when the run has one, else NULL.
 */
char       *cs_history_find_log   (CsRun           *run);

/*
 * Where the window keeps a run's checksum list (cs-manifest.h): beside the
 * records, named after the run's id ("<id>.xxh128"), which is known before
 * the run starts; listings pass it by. NULL when the history folder cannot
 * be made. Once the run ends its record says where the list is
 * (cs_run_get_manifest ()).
 */
char       *cs_history_manifest_path (CsRun           *run,
                                      CsManifestAlgo   algo);
/* Deleting a run (cs_history_delete_full ()) deletes that list too, or sets
 * it aside when the delete can be undone; this puts it back for the run
 * saved again. TRUE when there was one to put back. */
gboolean    cs_history_restore_manifest (CsRun         *run);

/*
 * A log for a run that has not started yet, whose name is not known: an
 * unnamed file in the history folder, which the job writes through
 * cs_history_log_get_fd () and cs_history_log_commit () names after the run
 * has ended. A log freed without a commit, or lost in a crash, leaves
 * nothing behind.
 */
typedef struct _CsHistoryLog CsHistoryLog;

CsHistoryLog *cs_history_log_new     (GError         **error);
int           cs_history_log_get_fd  (CsHistoryLog    *log);
/* Names the log after @run's record; returns its path. */
char         *cs_history_log_commit  (CsHistoryLog    *log,
                                      CsRun           *run,
                                      GError         **error);
void          cs_history_log_free    (CsHistoryLog    *log);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CsHistoryEntry, cs_history_entry_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CsHistorySlot, cs_history_slot_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CsHistoryLog, cs_history_log_free)

G_END_DECLS
