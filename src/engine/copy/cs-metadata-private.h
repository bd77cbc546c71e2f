/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * Metadata a destination cannot keep. A share that refuses owners, modes,
 * times, extended attributes, ACLs or symbolic links refuses them for every
 * file, so the first refusal is remembered and nothing is asked of it again in
 * the run. What was lost is said once, at the end of the run, in plain words:
 * how many files and folders it concerns, and one of them. Only what was
 * written in the run and actually differs from its source counts: a refused
 * chmod on a file that already shows its source's mode loses nothing, and a
 * rerun that copies nothing says nothing.
 */

#include <stdatomic.h>

#include "cs-items-private.h"
#include "cs-job.h"

G_BEGIN_DECLS

typedef enum {
  CS_METADATA_OWNERS,
  CS_METADATA_MODES,
  CS_METADATA_TIMES,
  CS_METADATA_XATTRS,
  CS_METADATA_ACLS,
  CS_METADATA_LINK_TIMES,
  CS_METADATA_LINKS,        /* symbolic links themselves */
  CS_METADATA_HARD_LINKS,   /* names of one file, copied as separate files */
  CS_METADATA_SPECIAL_BITS, /* setuid, setgid, sticky: cleared where the owner is not kept */
  CS_N_METADATA
} CsMetadata;

typedef struct {
  atomic_int           refused[CS_N_METADATA];  /* an errno once the destination refused it */
  atomic_uint_fast64_t files[CS_N_METADATA];    /* files (and links) that lost it */
  atomic_uint_fast64_t dirs[CS_N_METADATA];
  GMutex               lock;
  char                *example[CS_N_METADATA];  /* under the lock: the first that lost it */
} CsMetadataLoss;

void      _cs_metadata_init        (CsMetadataLoss *loss);
void      _cs_metadata_clear       (CsMetadataLoss *loss);

/* any thread: whether the destination refused @what earlier in the run, so
 * that asking again would only cost a request. */
gboolean  _cs_metadata_refused     (CsJob          *job,
                                    CsMetadata      what);
/* any thread: @code from setting @what; TRUE (and remembered) when it means
 * the destination keeps no @what at all (EPERM, EACCES, EOPNOTSUPP, ENOSYS,
 * EINVAL), FALSE when it is an error of this one item. */
gboolean  _cs_metadata_refuse      (CsJob          *job,
                                    CsMetadata      what,
                                    int             code);
/* any thread: @name in @dir (a folder when @is_dir) was written in this run and
 * the destination holds another @what than its source. */
void      _cs_metadata_lost        (CsJob          *job,
                                    CsMetadata      what,
                                    CsDir          *dir,
                                    const char     *name,
                                    gboolean        is_dir);
/*
 * any thread: the permission bits to give a copy of @src, whose owner and
 * group the destination file @fd (or @name in it, when not NULL) now shows.
 * As cp -p, rsync and tar: setuid and setgid (and on a file the sticky bit)
 * are kept only where the copy has the source's owner and group, never
 * handed to a user who could not have set them. @out_cleared: whether any
 * was cleared. Asks the destination only when the source has such a bit.
 */
mode_t    _cs_metadata_mode        (CsJob             *job,
                                    int                fd,
                                    const char        *name,
                                    const struct stat *src,
                                    gboolean          *out_cleared);

/* controller thread, once every item is done: one report per kind lost. */
void      _cs_metadata_report      (CsJob          *job);

G_END_DECLS
