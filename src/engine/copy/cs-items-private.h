/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * Folders, big files and items: what the scanner hands the workers, as data.
 * Who makes and frees them is cs-dir-private.h's (folders, items) and
 * cs-big-file-private.h's (big files); the rooms that only read them include this.
 */

#include <stdatomic.h>
#include <sys/stat.h>

#include "cs-job.h"

G_BEGIN_DECLS

typedef struct _CsResume CsResume;
typedef struct _CsDestFs CsDestFs;

typedef struct _CsDir  CsDir;
typedef struct _CsBig  CsBig;
typedef struct _CsItem CsItem;
typedef struct _CsLink CsLink;

/*
 * A folder being copied. Holds its source and destination descriptors while
 * anything inside it is outstanding; the last reference applies the folder's
 * mode and times (after its contents, so they stick) and closes it.
 */
struct _CsDir {
  atomic_int   ref;
  CsDir       *parent;
  char        *name;          /* in the parent; for a root, the whole path */
  char        *dst_name;      /* destination name in the parent (usually == name) */
  int          src_fd;
  int          dst_fd;
  struct stat  st;            /* of the source folder */
  gboolean     dst_new;       /* we created it in this run: nothing to compare against */
  gboolean     apply_attrs;   /* FALSE for the parents of file sources */
  gboolean     dst_done;      /* its copy was made and has its mode and times: a move may
                               * remove the source folder (if empty) */
  atomic_int   same_fs;       /* move: source and destination on one filesystem, renames work */
  int          mirror_root;   /* mirror: the root this folder lies in (CsDeletions), or -1 */
  gboolean     is_mirror_root;
  atomic_int   no_stage;      /* on another filesystem than the staging folders */
  atomic_uint  n_files;       /* queued so far by the scanner */
  GArray      *claims;        /* CsClaim: claims a killed run left unwritten here; usually NULL */
  GHashTable  *resumes;       /* scanner: partials and journals found here (names); usually NULL */
  GHashTable  *resumes_wanted; /* scanner: final-name hashes of this run's big files here */
  GPtrArray   *dst_listed;    /* scanner: its destination listed ahead (CsIoListed); usually NULL */
  /* Its destination folder as its parent's listing showed it, before this
   * run wrote anything in it (a share's listing gives each entry's stat);
   * dst_seen FALSE where no listing did. */
  struct stat  dst_st;
  gboolean     dst_seen;
  gboolean     dst_same_mtime; /* dst_st's modification time is st's, as the destination keeps it */
  atomic_int   dst_written;   /* this run wrote, or may have removed, an entry of its destination
                               * folder (_cs_dir_note_written) */
  dev_t        src_dev;       /* the source folder's filesystem */
  gboolean     src_pseudo;    /* on procfs, sysfs and the like: sizes say nothing */
  CsDestFs    *fs;            /* borrowed from the job: the destination folder's filesystem */
  CsJob       *job;           /* borrowed */
  /* A later source's folder of the same name merged into an earlier one's
   * (cp -r a/d b/d c): a reference to that one, which sets the destination
   * folder's attributes once both are done; usually NULL. */
  CsDir       *merged_into;
};

/* One big file, copied by several chunk items. */
struct _CsBig {
  atomic_int   ref;
  CsDir       *dir;           /* a reference, so the temporary can be removed at the end */
  gboolean     published;
  atomic_int   remaining;     /* chunks not yet finished */
  GMutex       lock;
  gboolean     opened;
  gboolean     failed;
  int          error_code;
  char        *error_op;
  int          src_fd;
  int          tmp_fd;
  char         tmp_name[64];
  CsResume    *resume;        /* its partial, when written resumably (cs-resume-private.h) */
  atomic_uint_fast64_t partial;   /* bytes its chunks copied, shown as progress */
  CsLink      *link;          /* a reference when it is the first name of several (cs-links.c) */
};

typedef enum {
  CS_ITEM_FILE,
  CS_ITEM_SYMLINK,
  CS_ITEM_SPECIAL,    /* a FIFO or a device: recreated, never opened */
  CS_ITEM_CHUNK,
  CS_ITEM_BATCH,      /* small files handed over together: one queue trip for several */
} CsItemKind;

struct _CsItem {
  CsItemKind   kind;
  CsItem      *next;          /* the members of a batch */
  CsDir       *dir;           /* a reference */
  char        *name;
  char        *dst_name;      /* NULL: same as name */
  struct stat  st;
  CsBig       *big;           /* chunks only */
  guint64      offset;
  guint64      length;
  gboolean     replace;       /* the destination exists and is to be replaced */
  gboolean     keep_both;     /* publish under a free "name (N)" */
  guint64      read_size;     /* files on a pseudo-filesystem: the bytes read, which st_size does not tell */
  CsLink      *link;          /* a reference: a file with several names (cs-links.c) */
  gboolean     link_first;    /* the name that is copied; the others are linked to it */
  guint        n_files;       /* batches: their members, each counted against the queue bound */
};

G_END_DECLS
