/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * Files whose data is already at the destination and whose metadata is not
 * ("tweaked" files, Robocopy's /IT): the same size, time and type, another
 * mode, owner, extended attribute or ACL. A rerun of copy or mirror gives
 * the destination its source's metadata in place, without copying the data,
 * as rsync -a does on every run; one rule for both commands.
 *
 * What is compared: the mode (not of symbolic links, which have none) and,
 * as root, owner and group, from the two stats the decision already has, so
 * an unchanged tree costs nothing more; extended attributes and ACLs only
 * when the source changed after the destination did (its change time is
 * later: setfattr, setfacl, chmod and chown all move it), as listing them on
 * both sides costs two requests per file. What the destination refused
 * before in the run is not asked again.
 */

#include <sys/stat.h>

#include "cs-items-private.h"
#include "cs-job-private.h"

G_BEGIN_DECLS

/* any worker, or the scanner: @name in @dir's source (with @src from lstat)
 * has the same data as @dst_name in its destination (with @dst): gives the
 * destination the source's metadata where it differs. */
void      _cs_tweak_metadata       (CsJob             *job,
                                    CsDir             *dir,
                                    const char        *name,
                                    const char        *dst_name,
                                    const struct stat *src,
                                    const struct stat *dst);

G_END_DECLS
