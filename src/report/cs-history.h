/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

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
gboolean    cs_history_delete     (const char      *id,
                                   GError         **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CsHistoryEntry, cs_history_entry_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (CsHistorySlot, cs_history_slot_free)

G_END_DECLS
