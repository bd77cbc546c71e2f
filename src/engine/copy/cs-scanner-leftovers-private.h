/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "cs-job-private.h"

G_BEGIN_DECLS

/* How much of a folder's listing is read at a time; less deep in a tree,
 * where a buffer is held per level. */
#define DENTS_BUFFER_SIZE      (32 * 1024)
#define DENTS_BUFFER_SIZE_DEEP (4 * 1024)

/* scanner thread: @name as @dir's destination filesystem compares names
 * (folded where it ignores case). */
char     *_cs_scanner_dest_key     (CsDir        *dir,
                                    const char   *name);
/* scanner thread: lists @dir's existing destination folder before anything
 * is written into it: what earlier runs of ours left is removed, partials
 * are kept for their files, and the other names go in @names (as keys by
 * _cs_scanner_dest_key, with the listed name) and their types in @types,
 * either of which may be NULL. */
void      _cs_scanner_prepare_existing_dir (CsJob      *job,
                                            CsDir      *dir,
                                            GHashTable *names,
                                            GHashTable *types);
/* scanner thread: the same from one listing with each entry's stat, where
 * the destination gives them (cs-dest-listing-private.h): the listed names →
 * their CsIoListed, in a new table. NULL where it does not: nothing listed. */
GHashTable *_cs_scanner_prepare_listed_dir (CsJob      *job,
                                            CsDir      *dir,
                                            GHashTable *names,
                                            GHashTable *types);
/* scanner thread: counts the names left in @names as Extras (their sizes
 * from @stats, the listing's, or NULL: asked by name). */
void      _cs_scanner_count_extras (CsJob        *job,
                                    CsDir        *dir,
                                    GHashTable   *names,
                                    GHashTable   *stats);

G_END_DECLS
