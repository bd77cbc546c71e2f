/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-scanner"

#include "config.h"

#include <errno.h>

#include "cs-dest-listing-private.h"
#include "cs-copy-data-private.h"
#include "cs-copy-private.h"
#include "cs-io-private.h"
#include "cs-metadata-private.h"

/*
 * A rerun onto a share, decided from folder listings. Asking the server
 * about each file by name costs a round trip per file (two SMB2 requests,
 * or more); SMB's directory query already returns every entry's size,
 * times and type, so the scanner lists each destination folder once (the
 * listing it makes anyway for Extras and leftovers) and decides from it
 * every file whose decision writes nothing, by the very rules a worker
 * applies (_cs_copy_decide_against). Only files that need work go to the
 * pool, and a worker decides those again by name: a listing may be
 * moments old, and publishing still refuses to overwrite what appeared or
 * changed meanwhile (RELIABILITY.md).
 */

GPtrArray *
_cs_dest_listing_read (CsJob *job,
                       CsDir *dir)
{
  g_autoptr(GPtrArray) entries = NULL;

  if (dir->dst_fd < 0 || dir->dst_new || !_cs_copy_on_share (dir->dst_fd))
    return NULL;
  entries = g_ptr_array_new_with_free_func (g_free);
  if (_cs_io_readdirplus (&job->counters, dir->dst_fd, entries) != 0)
    {
      g_debug ("folder not listed with attributes (%s): files asked by name", g_strerror (errno));
      return NULL;
    }
  return g_steal_pointer (&entries);
}

/* Whether an identical file's tweak would compare extended attributes and
 * ACLs (cs-tweak.c: the source changed after the destination did, and the
 * destination has not refused them): it does so on a handle it checks
 * against the destination's inode number, which a listing may number
 * otherwise than a stat. Left to a worker's stat by name; on a share that
 * keeps none, only until the first file finds that out. */
static gboolean
xattrs_compared (CsJob             *job,
                 const struct stat *src,
                 const struct stat *dst)
{
  if (!S_ISREG (src->st_mode) || (dst->st_ctim.tv_sec == 0 && dst->st_ctim.tv_nsec == 0)
      || atomic_load_explicit (&job->caps.no_xattr, memory_order_relaxed)
      || (_cs_metadata_refused (job, CS_METADATA_XATTRS) && _cs_metadata_refused (job, CS_METADATA_ACLS)))
    return FALSE;
  return src->st_ctim.tv_sec > dst->st_ctim.tv_sec
         || (src->st_ctim.tv_sec == dst->st_ctim.tv_sec && src->st_ctim.tv_nsec > dst->st_ctim.tv_nsec);
}

gboolean
_cs_dest_listing_decide (CsJob             *job,
                         CsDir             *dir,
                         const char        *name,
                         const char        *dst_name,
                         const struct stat *src,
                         const struct stat *dst)
{
  CsOverwrite overwrite = job->setup.settings.overwrite;
  guint64 size = S_ISREG (src->st_mode) ? (guint64) src->st_size : 0;
  CsAction action;

  /* Decided by name here, so the first file finds out whether the share
   * keeps extended attributes (the engine's SMB client keeps none) before
   * the files after it, rather than a worker racing the listing. */
  if (xattrs_compared (job, src, dst))
    {
      if (!_cs_copy_decide_identical (job, dir, name, dst_name, src))
        return FALSE;
      _cs_job_account (job, dir, name, dst_name, CS_ACTION_SKIP, size);
      return TRUE;
    }
  if (_cs_copy_identical_to (job, dir, name, dst_name, src, dst))
    {
      _cs_job_account (job, dir, name, dst_name, CS_ACTION_SKIP, size);
      return TRUE;
    }
  /* A question is asked by a worker, about what is there then. */
  if (overwrite == CS_OVERWRITE_ASK || overwrite == CS_OVERWRITE_ALWAYS || overwrite == CS_OVERWRITE_DIFFERENT)
    return FALSE;
  action = _cs_copy_decide_against (job, dir, name, dst_name, src, dst);
  if (action <= CS_ACTION_KEEP_BOTH)
    return FALSE;
  _cs_job_account (job, dir, name, dst_name, action, size);
  return TRUE;
}
