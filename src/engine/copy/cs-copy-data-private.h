/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <sys/stat.h>

#include "cs-copy-outcome-private.h"
#include "cs-job-private.h"

G_BEGIN_DECLS

/* worker thread: @name in @dir's source, opened for reading without
 * touching its access time where the job may ask that; -1 and errno. */
int       _cs_copy_open_source     (CsJob        *job,
                                    CsDir        *dir,
                                    const char   *name);
/* Before a request of @want bytes: what the speed limit lets it move now
 * (waiting for it, holding nothing), or 0 when the job stops meanwhile. */
guint64   _cs_copy_limit_take      (CsJob        *job,
                                    guint64       want);
/* After it: gives back what it took and did not move (@moved < 0: nothing). */
void      _cs_copy_limit_refund    (CsJob        *job,
                                    guint64       taken,
                                    gssize        moved);
/* Whether @fd is a file a backend of URLs reaches (on an SMB share). */
gboolean  _cs_copy_on_share        (int           fd);
/* Whether @st's file has holes, to be kept. */
gboolean  _cs_copy_is_sparse       (const struct stat *st);
/* worker thread: copies [@offset, @offset + @length) of the file @st
 * describes from @src_fd to @dst_fd the fastest way the filesystems allow,
 * keeping holes; progress in @worker->partial and the job's counters. */
CsOutcome _cs_copy_data            (CsJob        *job,
                                    CsWorker     *worker,
                                    int           src_fd,
                                    int           dst_fd,
                                    const struct stat *st,
                                    guint64       offset,
                                    guint64       length);
/* Like _cs_copy_data through a buffer, with the XXH3 of the bytes written
 * in @out_hash (a partial's journal, cs-resume-private.h). */
CsOutcome _cs_copy_range_hashed    (CsJob        *job,
                                    CsWorker     *worker,
                                    int           src_fd,
                                    int           dst_fd,
                                    guint64       offset,
                                    guint64       length,
                                    guint64       file_size,
                                    guint64      *out_hash);
/* A file of a pseudo-filesystem, read to its end whatever its size says;
 * what was read in @out_size. */
CsOutcome _cs_copy_to_end          (CsJob        *job,
                                    CsWorker     *worker,
                                    int           src_fd,
                                    int           dst_fd,
                                    guint64      *out_size);
/* XXH3-128 of @fd's @size bytes in @xxh (16 bytes, canonical), and SHA-256
 * in @sha when it is not NULL. */
CsOutcome _cs_copy_hash_file       (CsJob        *job,
                                    CsWorker     *worker,
                                    int           fd,
                                    guint64       size,
                                    guint8       *xxh,
                                    guint8       *sha);
/* Whether the server copied the whole last range to @dst_fd itself (SMB
 * copy-chunk), so that hashing it would fetch it back over the network. */
gboolean  _cs_copied_by_server     (const CsWorker *worker,
                                    int           dst_fd,
                                    guint64       length);

G_END_DECLS
