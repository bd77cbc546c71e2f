/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <sys/stat.h>

#include "cs-deletions.h"
#include "cs-job.h"

G_BEGIN_DECLS

/* One extra as it was listed, which it must still be when it is deleted. */
typedef struct {
  char     *path;       /* the whole destination path */
  guint     rel;        /* where the part below the mirror's root starts in @path */
  guint     root;       /* which root (cs_deletions_add_root) */
  mode_t    type;       /* S_IFREG, S_IFDIR, S_IFLNK, … */
  guint64   size;
  dev_t     dev;
  ino_t     ino;
  struct timespec mtime;
} CsExtra;

CsDeletions     *_cs_deletions_new       (gint64             max);
/* scanner thread: a folder the mirror makes match, by its path; returns its index. */
guint            _cs_deletions_add_root  (CsDeletions       *self,
                                          const char        *path,
                                          const struct stat *st);
const char      *_cs_deletions_get_root  (CsDeletions       *self,
                                          guint              root,
                                          struct stat       *out_st);
/* scanner thread: @rel below root @root, as lstat found it. */
void             _cs_deletions_add       (CsDeletions       *self,
                                          guint              root,
                                          const char        *rel,
                                          const struct stat *st);
/* scanner thread: the destination folder @rel ("." for the root), which
 * has extras: its source folder's times, for after the deletions. */
void             _cs_deletions_add_folder (CsDeletions      *self,
                                           guint             root,
                                           const char       *rel,
                                           const struct stat *src);
/* The @index-th folder of those, FALSE past the end. */
gboolean         _cs_deletions_get_folder (CsDeletions      *self,
                                           guint             index,
                                           guint            *out_root,
                                           const char      **out_rel,
                                           struct timespec   out_times[2]);
guint64          _cs_deletions_count     (CsDeletions       *self);
/* A copy of entry @index (its path still the list's); FALSE past the end. */
gboolean         _cs_deletions_get       (CsDeletions       *self,
                                          guint              index,
                                          CsExtra           *out);
/* Blocks the controller until answered; FALSE (delete nothing) when the
 * job stops first. */
gboolean         _cs_deletions_wait      (CsDeletions       *self,
                                          CsJob             *job);

G_END_DECLS
