/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * What a destination filesystem keeps, found out once per filesystem and run
 * by watching it, not by its name: whether the times set on a file survive
 * its publication. The one thing a filesystem cannot be asked is whether its
 * RENAME_NOREPLACE is atomic, so that alone comes from its type: GVfs's FUSE
 * bridge turns it into a stat and a plain rename.
 */

#include <glib.h>
#include <stdatomic.h>
#include <sys/types.h>

#include "cs-job.h"

G_BEGIN_DECLS

/* How a destination filesystem keeps the modification time of a new file. */
typedef enum {
  CS_TIMES_UNKNOWN,       /* set on the open file, and read back after publication */
  CS_TIMES_ON_FD,         /* set on the open file: kept */
  CS_TIMES_TRY_PUBLISHED, /* the close loses them: set by name once published, and read back */
  CS_TIMES_PUBLISHED,     /* set by name once published: kept */
  CS_TIMES_LOST,          /* lost even so: set and read back every time, and reported */
} CsTimes;

typedef struct {
  dev_t       dev;
  char       *type;              /* "ext4", "fuse.gvfsd-fuse" … */
  gboolean    noreplace_racy;    /* RENAME_NOREPLACE is a check and a plain rename */
  atomic_int  times;             /* CsTimes */
} CsDestFs;

/* scanner thread: the filesystem of the destination folder @dst_fd; @parent is
 * the folder's parent's (or NULL). */
CsDestFs   *_cs_dest_fs_for          (CsJob      *job,
                                      int         dst_fd,
                                      CsDestFs   *parent);
void        _cs_dest_fs_free         (CsDestFs   *fs);

G_END_DECLS
