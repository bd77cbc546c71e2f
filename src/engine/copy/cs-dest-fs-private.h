/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * What a destination filesystem can hold, found out once per filesystem and
 * run by asking it, not by its name: whether it tells names apart by case,
 * which characters and endings it refuses in names, and whether the times
 * set on a file survive its publication. The one thing a filesystem cannot be
 * asked is whether its RENAME_NOREPLACE is atomic, so that alone comes from
 * its type: GVfs's FUSE bridge turns it into a stat and a plain rename.
 *
 * The probes write only inside a folder named like our staging folders
 * (".copyscope-<tag>-<n>.stage"), which a later run removes after a crash.
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

typedef struct _CsDestFs {
  dev_t       dev;
  char       *type;              /* "ext4", "fuse.gvfsd-fuse" … */
  gboolean    probed;            /* the case probe could be made */
  gboolean    case_insensitive;
  gboolean    noreplace_racy;    /* RENAME_NOREPLACE is a check and a plain rename */
  guint       names_asked;       /* scanner only: bits of name_traits[] probed */
  guint       names_refused;
  atomic_int  times;             /* CsTimes */
  /* What a fresh temporary shows where chmod or chown is refused, asked of
   * the first one (cs-copy.c: keep_mode, keep_owner); 0 until then. */
  atomic_uint fresh_mode;        /* CS_FRESH_KNOWN | created mode << 12 | mode shown */
  atomic_int  fresh_owner_known;
  atomic_ullong fresh_owner;     /* uid << 32 | gid */
  atomic_int  tweak_mode_checked; /* a mode set in place was seen to stick (cs-tweak.c) */
} CsDestFs;

#define CS_FRESH_KNOWN (1u << 24)

/* scanner thread: the filesystem of the destination folder @dst_fd; @parent is
 * the folder's parent's (or NULL). Met for the first time, it is probed. */
CsDestFs   *_cs_dest_fs_for          (CsJob      *job,
                                      int         dst_fd,
                                      CsDestFs   *parent);
/* The same, given @folder, an fstat of @dst_fd made already. */
CsDestFs   *_cs_dest_fs_for_stat     (CsJob      *job,
                                      int         dst_fd,
                                      const struct stat *folder,
                                      CsDestFs   *parent);
void        _cs_dest_fs_free         (CsDestFs   *fs);

/* scanner thread: NULL when @fs can hold @name, else what in it the
 * filesystem refuses ("names with “:”", "names ending in a dot"); probed
 * in a folder inside @dir_fd the first time a name needs it. */
const char *_cs_dest_fs_refused_in   (CsJob      *job,
                                      CsDestFs   *fs,
                                      int         dir_fd,
                                      const char *name);

/* Two names a case-insensitive filesystem takes for one have the same key:
 * each character upper-cased alone, as SMB servers compare names (no
 * expansions: "ß" stays itself). Bytes that are not UTF-8 are kept. */
char       *_cs_dest_fs_fold         (const char *name);

G_END_DECLS
