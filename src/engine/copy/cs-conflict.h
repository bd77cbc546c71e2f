/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

typedef enum {
  CS_CONFLICT_SKIP,
  CS_CONFLICT_REPLACE,
  CS_CONFLICT_KEEP_BOTH,   /* publish the copy under a new name: "photo (2).jpg" */
} CsConflictAnswer;

#define CS_TYPE_CONFLICT (cs_conflict_get_type ())
G_DECLARE_FINAL_TYPE (CsConflict, cs_conflict, CS, CONFLICT, GObject)

/*
 * A question from a worker about an existing destination file. The job emits it
 * on the main context; the copy waits until cs_conflict_answer() is called (each
 * worker at its next request), and the run's clock with it.
 */
const char *cs_conflict_get_source_path        (CsConflict       *self);
const char *cs_conflict_get_destination_path   (CsConflict       *self);
guint64     cs_conflict_get_source_size        (CsConflict       *self);
guint64     cs_conflict_get_destination_size   (CsConflict       *self);
gint64      cs_conflict_get_source_mtime       (CsConflict       *self); /* unix µs */
gint64      cs_conflict_get_destination_mtime  (CsConflict       *self); /* unix µs */
void        cs_conflict_answer                 (CsConflict       *self,
                                                CsConflictAnswer  answer,
                                                gboolean          apply_to_all);

G_END_DECLS
