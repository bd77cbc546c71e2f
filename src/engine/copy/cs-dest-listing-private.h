/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <sys/stat.h>

#include "cs-dir-private.h"
#include "cs-job-private.h"

G_BEGIN_DECLS

/* scanner thread: @dir's destination folder listed once with each entry's
 * stat, where its backend gives them in one listing (a share: SMB's
 * directory query returns every entry's size, times and type): CsIoListed
 * in a new array. NULL where it does not (a local disk, a libsmbclient
 * without readdirplus2) or the listing failed: then names are listed and
 * each file is asked about by name, as before. */
GPtrArray *_cs_dest_listing_read   (CsJob             *job,
                                    CsDir             *dir);
/* scanner thread: decides @name (@src from lstat) against @dst, what @dir's
 * listing showed at @dst_name, where the decision writes nothing: the same
 * file there (skipped, its metadata tweaked in place), one the policy keeps
 * (--overwrite=never, newer), or another type (reported) — accounted, TRUE.
 * FALSE for all that needs a worker (a copy, a replacement, a question),
 * which decides again by name: nothing is written on a listing's word. */
gboolean   _cs_dest_listing_decide (CsJob             *job,
                                    CsDir             *dir,
                                    const char        *name,
                                    const char        *dst_name,
                                    const struct stat *src,
                                    const struct stat *dst);

G_END_DECLS
