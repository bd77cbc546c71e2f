/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-decide-batch"

#include "config.h"

#include "cs-decide-batch-private.h"
#include "cs-copy-private.h"
#include "cs-dir-private.h"
#include "cs-job-private.h"

/* A batch goes at this many files: one queue trip (a futex wake-up or two)
 * for this many decisions, which take a stat each. Counted against the
 * queue's bound like any batch, so memory stays flat. */
#define DECIDE_BATCH_FILES 64
/* ... or this many bytes, should they all need copying: a worker copies its
 * batch's files one after the other. */
#define DECIDE_BATCH_BYTES (G_GUINT64_CONSTANT (4) << 20)

gboolean
_cs_decide_batch_wanted (CsJob *job,
                         CsDir *dir)
{
  return !job->setup.settings.dry_run && !dir->dst_new && _cs_copy_dest_is_local (job, dir);
}

void
_cs_decide_batch_flush (CsJob *job)
{
  CsItem *batch = g_steal_pointer (&job->scan.decide);

  if (batch == NULL)
    return;
  batch->n_files = job->scan.decide_n;
  job->scan.decide_n = 0;
  job->scan.decide_bytes = 0;
  _cs_job_push (job, batch);
}

void
_cs_decide_batch_add (CsJob             *job,
                      CsDir             *dir,
                      const char        *name,
                      const char        *dst_name,
                      const struct stat *st)
{
  CsItem *item = g_new0 (CsItem, 1);

  item->kind = S_ISREG (st->st_mode) ? CS_ITEM_FILE : S_ISLNK (st->st_mode) ? CS_ITEM_SYMLINK : CS_ITEM_SPECIAL;
  item->dir = _cs_dir_ref (dir);
  item->name = g_strdup (name);
  item->dst_name = g_strdup (dst_name);
  item->st = *st;
  atomic_fetch_add_explicit (&dir->n_files, 1, memory_order_relaxed);

  if (job->scan.decide == NULL)
    {
      job->scan.decide = g_new0 (CsItem, 1);
      job->scan.decide->kind = CS_ITEM_BATCH;
    }
  item->next = job->scan.decide->next;
  job->scan.decide->next = item;
  job->scan.decide_n++;
  if (S_ISREG (st->st_mode))
    job->scan.decide_bytes += (guint64) st->st_size;
  if (job->scan.decide_n >= DECIDE_BATCH_FILES || job->scan.decide_bytes >= DECIDE_BATCH_BYTES)
    _cs_decide_batch_flush (job);
}
