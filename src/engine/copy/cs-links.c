/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-links"

#include "config.h"

#include <string.h>

#include "cs-job-private.h"
#include "cs-links-private.h"
#include "cs-names-private.h"

typedef struct {
  dev_t dev;
  ino_t ino;
} CsLinkKey;

/* One allocation per file with several links: the key, the counts and the
 * first name's destination path. */
struct _CsLink {
  CsLinkKey    key;
  atomic_int   ref;
  nlink_t      unseen;        /* scanner: names not met yet */
  CsLinkState  state;         /* job->hardlinks.link_lock */
  CsItem      *waiters;       /* job->hardlinks.link_lock; linked by ->next */
  char         target[];
};

static guint
key_hash (gconstpointer p)
{
  const CsLinkKey *key = p;

  return (guint) key->ino ^ (guint) ((guint64) key->ino >> 32) ^ ((guint) key->dev * 31u);
}

static gboolean
key_equal (gconstpointer a,
           gconstpointer b)
{
  const CsLinkKey *x = a, *y = b;

  return x->dev == y->dev && x->ino == y->ino;
}

CsLink *
_cs_links_meet (CsJob             *job,
                CsDir             *dir,
                const char        *dst_name,
                const struct stat *st,
                gboolean          *out_first)
{
  CsLinkKey key = { st->st_dev, st->st_ino };
  g_autofree char *target = NULL;
  CsLink *link;
  gsize len;

  if (job->hardlinks.links == NULL)
    job->hardlinks.links = g_hash_table_new_full (key_hash, key_equal, NULL, (GDestroyNotify) _cs_link_unref);

  link = g_hash_table_lookup (job->hardlinks.links, &key);
  if (link != NULL)
    {
      *out_first = FALSE;
      atomic_fetch_add (&link->ref, 1);
      /* Its last name: nothing more will ask for it here. */
      if (--link->unseen == 0)
        g_hash_table_remove (job->hardlinks.links, &key);
      return link;
    }

  *out_first = TRUE;
  target = _cs_dir_dup_path (dir, dst_name, TRUE);
  len = strlen (target);
  link = g_malloc (sizeof *link + len + 1);
  link->key = key;
  atomic_init (&link->ref, 2);     /* the map's and the item's */
  link->unseen = st->st_nlink - 1;
  link->state = CS_LINK_PENDING;
  link->waiters = NULL;
  memcpy (link->target, target, len + 1);
  g_hash_table_add (job->hardlinks.links, link);
  return link;
}

void
_cs_links_clear (CsJob *job)
{
  g_clear_pointer (&job->hardlinks.links, g_hash_table_unref);
}

void
_cs_link_unref (CsLink *link)
{
  if (link != NULL && atomic_fetch_sub (&link->ref, 1) == 1)
    {
      g_assert (link->waiters == NULL);
      g_free (link);
    }
}

const char *
_cs_link_target (CsLink *link)
{
  return link->target;
}

CsLinkState
_cs_link_wait (CsJob  *job,
               CsItem *item)
{
  CsLink *link = item->link;
  CsLinkState state;

  _cs_mutex_lock (&job->hardlinks.link_lock);
  state = link->state;
  if (state == CS_LINK_PENDING)
    {
      _cs_job_hold_item (job);
      item->next = link->waiters;
      link->waiters = item;
    }
  _cs_mutex_unlock (&job->hardlinks.link_lock);

  return state;
}

CsItem *
_cs_link_settle (CsJob   *job,
                 CsLink  *link,
                 gboolean ready)
{
  CsItem *waiters;

  _cs_mutex_lock (&job->hardlinks.link_lock);
  if (link->state == CS_LINK_PENDING)
    link->state = ready ? CS_LINK_READY : CS_LINK_NONE;
  waiters = g_steal_pointer (&link->waiters);
  _cs_mutex_unlock (&job->hardlinks.link_lock);

  return waiters;
}
