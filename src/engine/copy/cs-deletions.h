/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define CS_TYPE_DELETIONS (cs_deletions_get_type ())
G_DECLARE_FINAL_TYPE (CsDeletions, cs_deletions, CS, DELETIONS, GObject)

/*
 * What a mirror deletes from its destination: every extra (a file, link or
 * folder the source does not have), folders with everything inside them,
 * listed before anything is deleted. Entries come children first, so a
 * folder follows its contents. Names matching the job's excludes, our
 * temporaries and staging folders, and whatever lies across a mount point
 * are never in it.
 *
 * The list is complete once the job's copying is done: read it in the
 * "deletions" signal (cs_job_set_confirm_deletions), or after a dry run.
 * When there are more entries than the job's maximum (cs_job_set_max_delete)
 * the counts still say how many there are, the list keeps the first ones,
 * and nothing is deleted.
 */
guint64     cs_deletions_get_n_files   (CsDeletions *self);   /* files, links and other non-folders */
guint64     cs_deletions_get_n_dirs    (CsDeletions *self);
guint64     cs_deletions_get_bytes     (CsDeletions *self);   /* of the files */
gint64      cs_deletions_get_max       (CsDeletions *self);   /* the job's maximum; -1: none */
gboolean    cs_deletions_get_over_max  (CsDeletions *self);   /* more than the maximum: none are deleted */
guint       cs_deletions_get_n_listed  (CsDeletions *self);
/* The @index-th entry: its destination path in the filename encoding (show
 * it with g_filename_display_name), whether it is a folder, its size. */
const char *cs_deletions_get_path      (CsDeletions *self,
                                        guint        index);
gboolean    cs_deletions_get_is_dir    (CsDeletions *self,
                                        guint        index);
guint64     cs_deletions_get_size      (CsDeletions *self,
                                        guint        index);
/* main thread: the answer to the "deletions" signal. TRUE deletes them;
 * FALSE deletes nothing (the copying is done either way). */
void        cs_deletions_answer        (CsDeletions *self,
                                        gboolean     delete_them);

G_END_DECLS
