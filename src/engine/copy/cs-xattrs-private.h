/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * Extended attributes, ACLs included (system.posix_acl_access and, on
 * folders, system.posix_acl_default), go with files and folders alike, as
 * with cp -a. Once the destination refused a kind, it is not asked again and
 * only counted as lost (cs-metadata.c).
 */

#include "cs-job.h"

G_BEGIN_DECLS

/* The largest list and the largest value Linux allows, each. */
#define CS_XATTRS_BUFFER_SIZE (2 * 65536)

/* any thread: copies @src_fd's attributes to @dst_fd; returns what was not
 * kept, as bits 1 << CsMetadata (extended attributes, ACLs). @buffer holds
 * CS_XATTRS_BUFFER_SIZE bytes, or is NULL (folders): then a small one on the
 * stack, and a big one only for big attributes. */
guint  _cs_xattrs_copy  (CsJob      *job,
                         int         src_fd,
                         int         dst_fd,
                         char       *buffer);

G_END_DECLS
