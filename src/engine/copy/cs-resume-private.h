/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * Resuming a big file. A file of CS_RESUME_MIN or more is written to a
 * partial copy with a name of its own beside the final one,
 * ".copyscope-resume-<16 hex of the final name>.part", and a journal beside
 * that, ".copyscope-resume-<…>.journal": the source's identity (device,
 * inode, size, mtime, ctime), the block size, and one record per block
 * written (offset, length, XXH3 of the block: of the bytes read from the
 * source and written, in chunks; read back from the partial's pages just
 * written, for a whole file, beside the copy of the next block, and only
 * where that pays: _cs_resume_pays), appended after the block's writes. A
 * block without a record is copied again by the next run.
 *
 * A later run that copies the same file to the same name opens both: a
 * journal of another source, or of this one changed, starts the file over;
 * otherwise every journaled block is read back from the partial and kept
 * when its hash still matches, and the last kept block is read from the
 * source too and must match as well, so the partial is proven to be this
 * source's bytes. Only the blocks missing are copied; the file is then
 * checked (--verify) and published like any other, and the journal goes.
 *
 * This is the one exception to "a later run removes our temporaries": a
 * partial and its journal stay after a kill, a crash, a lost destination
 * or an error (and, when asked, a cancel); a run removes them once stale,
 * when it has read the folder they are in and its source has no such file.
 * The run writing a partial holds a lock on it, so another run at the same
 * time leaves it alone and writes an ordinary temporary instead.
 */

#include <sys/stat.h>

#include "cs-dir-private.h"
#include "cs-job-private.h"

G_BEGIN_DECLS

#define CS_RESUME_MIN     CS_BIG_FILE_MIN
#define CS_RESUME_BLOCK   CS_CHUNK_SIZE
#define CS_RESUME_PREFIX  ".copyscope-resume-"

/* Whether @st, of a file about to be copied, is written resumably. */
gboolean     _cs_resume_wanted        (CsJob             *job,
                                       const struct stat *st);
/* worker thread: the partial of @final in @dir for the source @src_fd of
 * @st, opened and checked (or new). NULL, with errno set, when there is
 * none to be had (EBUSY: another run writes it): the caller then writes an
 * ordinary temporary. */
CsResume    *_cs_resume_open          (CsJob             *job,
                                       CsWorker          *worker,
                                       CsDir             *dir,
                                       const char        *final,
                                       int                src_fd,
                                       const struct stat *st);
int          _cs_resume_get_fd        (CsResume          *resume);
/* Before publication: closes the partial's handle where its lock does not
 * live on it (a backend's lock by name), as a share renames no open file;
 * TRUE when it did, and the handle is then no more to be used. */
gboolean     _cs_resume_release_fd    (CsJob             *job,
                                       CsResume          *resume);
const char  *_cs_resume_get_name      (CsResume          *resume);
/* Bytes of the partial kept from before, proven; 0 for a new one. */
guint64      _cs_resume_get_kept      (CsResume          *resume);
/* Whether the block at @offset was kept. */
gboolean     _cs_resume_has_block     (CsResume          *resume,
                                       guint64            offset);
/* any worker: [@offset, @offset + @length) of the partial is written, and
 * the bytes written have the XXH3 @hash: journaled. */
int          _cs_resume_wrote_block   (CsJob             *job,
                                       CsResume          *resume,
                                       guint64            offset,
                                       guint64            length,
                                       guint64            hash);
/* Whether a whole file's block, copied in @usec, is worth journaling: one
 * that went faster than CS_RESUME_PAYS_RATE costs less to copy again after
 * an interruption than reading it back to hash it costs every copy (a warm
 * local copy runs at 2–4 GB/s, and its 32 MiB block hashes in 5–10 ms of
 * CPU); a slower one, from a disk, a busy or a limited copy, is journaled,
 * its hash a fraction of its time and taken beside the next block. */
#define CS_RESUME_PAYS_RATE 1e9
gboolean     _cs_resume_pays          (guint64            length,
                                       gint64             usec);
/* worker thread, whole files: [@offset, @offset + @length) of the partial
 * is written; a thread of the partial's own reads it back from the pages
 * just written and journals its hash while the worker copies the next block.
 * Waits for the block handed over before, if any; a nonzero errno when
 * hashing or journaling one failed (nothing more is then handed over). */
int          _cs_resume_hash_later    (CsResume          *resume,
                                       guint64            offset,
                                       guint64            length);
/* worker thread: waits for the block handed over; its errno, or 0. */
int          _cs_resume_hashed        (CsResume          *resume);
/* The partial was published under its final name: the journal goes. @keep
 * FALSE instead: neither is needed any more, both go; TRUE: both stay for
 * a later run. The descriptor is closed either way. */
void         _cs_resume_close         (CsJob             *job,
                                       CsResume          *resume,
                                       gboolean           published,
                                       gboolean           keep);

/* any thread, without a job: the bytes of the partial of @final in the
 * folder handle @dir_fd that its journal says are written, for the source
 * file of @st; 0 when there is none, none of this source (it changed), or
 * none the next run would keep. The journal only is read, none of the
 * partial's bytes: the run that goes on still proves them, so this is what
 * it will keep unless a block was damaged since. */
guint64      _cs_resume_peek          (CsCounters        *counters,
                                       int                dir_fd,
                                       const char        *final,
                                       const struct stat *st);

/* A partial's or a journal's name; @out_hash gets the final name's hash. */
gboolean     _cs_name_is_resume       (const char        *name,
                                       guint64           *out_hash);
/* scanner thread, once @dir's source folder was read to its end: removes
 * the partials there that no file of this run is copied to (@wanted holds
 * the hashes of the final names of its big files), unless a run writes them. */
void         _cs_resume_sweep         (CsJob             *job,
                                       CsDir             *dir,
                                       GHashTable        *found,
                                       GHashTable        *wanted);

G_END_DECLS
