/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <sys/stat.h>

#include "cs-dest-listing-private.h"
#include "cs-job-private.h"

G_BEGIN_DECLS

/* A later source's folder to merge into the folder of its name being entered. */
typedef struct {
  CsDir    *parent;   /* a reference */
  char     *name;     /* in @parent */
  gboolean  entered;  /* merged (or reported) by enter_dir */
} CsLater;

/* What the scanner keeps while it reads one source folder. */
typedef struct {
  GHashTable *existing;     /* the destination folder's names not met yet, for Extras */
  GHashTable *taken;        /* on a case-insensitive destination: folded name → source name */
  GHashTable *types;        /* mirror: the destination's names → their d_type, where listed */
  /* Where several sources' folders merge: the folders (the first, then the
   * later ones in operand order), the one being read, and the names met so
   * far (as the destination compares them) → Claim. Else NULL. */
  GPtrArray  *members;
  guint       member;
  GHashTable *claimed;
  /* On a share: the destination's listed names → CsIoListed, what a stat of
   * each would say (cs-dest-listing-private.h). Else NULL. */
  GHashTable *stats;
  /* Its subfolders opened and listed ahead: listed names → CsPrefetch. */
  GHashTable *prefetches;
} CsFolderScan;

CsLater  *_cs_scanner_later_new    (CsDir        *parent,
                                    const char   *name);
void      _cs_scanner_later_free   (gpointer      later);
/* Something found that could not even be looked at or opened: failed, and
 * found; a folder as a folder. */
void      _cs_scanner_count_unreadable (CsJob    *job,
                                        gboolean  folder);
/* Counts an entry that is not copied because the destination cannot hold
 * it, and says why (@message). */
void      _cs_scanner_not_held     (CsJob        *job,
                                    CsDir        *dir,
                                    const char   *name,
                                    const char   *dst_name,
                                    const struct stat *st,
                                    const char   *message);
/* Whether the destination can hold @name as it is (its characters, its case
 * against the names met in @scan, which may be NULL); reported if not. */
gboolean  _cs_scanner_holdable     (CsJob        *job,
                                    CsDir        *dir,
                                    const char   *name,
                                    const char   *dst_name,
                                    const struct stat *st,
                                    CsFolderScan *scan,
                                    const char   *listed);
/* The message for a later source's @final in @dir, which lands where @first
 * (an earlier source's path) goes. */
char     *_cs_scanner_taken_message (CsDir       *dir,
                                     const char  *final,
                                     const char  *first);
/* In a merged folder: whether @name is the first of its name, and if it is
 * a folder, the later members' folders of that name (CsLater) that merge
 * into it in @out_later. A name met again is reported and not copied. */
gboolean  _cs_scanner_claim_name   (CsJob        *job,
                                    CsDir        *dir,
                                    const char   *name,
                                    const char   *dst_name,
                                    CsFolderScan *scan,
                                    GPtrArray   **out_later);
/* The folders of @later (CsLater) that were not entered, because @name in
 * @dir could not be: reported, never dropped silently. */
void      _cs_scanner_report_unmerged (CsJob      *job,
                                       CsDir      *dir,
                                       const char *name,
                                       GPtrArray  *later);

G_END_DECLS
