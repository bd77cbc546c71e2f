/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-route"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "cs-gvfs-path-private.h"
#include "cs-job-private.h"
#include "cs-smb-login-private.h"

/*
 * A share GNOME Files mounted through GVfs reaches applications as a path
 * on gvfsd-fuse's mount, and every request on it crosses the kernel,
 * gvfsd-fuse and gvfsd-smb, one at a time: some 46 SMB2 requests per small
 * file under the never-clobber contract, and no more speed from more
 * threads (bench/RESULTS.md, "SMB through GVfs"). The same share spoken to
 * directly, each worker on a connection of its own, is what the engine's SMB
 * backend does for smb:// locations; so a job whose locations are such paths
 * takes them as the smb:// URLs of the same folders, when it can log in
 * there (cs-smb-login.c). Where it cannot, the paths stay paths and
 * the copy goes through GVfs's mount as before. Either way one route for
 * the whole run, said in its record. smb:// URLs log in the same way (the
 * login the window asked for, the password given, the keyring's, a guest)
 * and have no other route: where none works, the check says so.
 */

typedef struct {
  char        **location;   /* in the job's arrays */
  CsGvfsShare  *share;
  gboolean      url;        /* already an smb:// URL: nothing to map */
} Mapped;

static void
mapped_clear (gpointer data)
{
  _cs_gvfs_share_free (((Mapped *) data)->share);
}

static void
map_location (GArray  *mapped,
              char   **location)
{
  Mapped m = { location, NULL, FALSE };

  if (*location == NULL)
    return;
  if ((m.share = _cs_gvfs_share_of_url (*location)) != NULL)
    m.url = TRUE;
  else
    m.share = _cs_gvfs_share_of_path (*location);
  if (m.share != NULL)
    g_array_append_val (mapped, m);
}

void
_cs_route_choose (CsJob *job)
{
  g_autoptr(GArray) mapped = g_array_new (FALSE, FALSE, sizeof (Mapped));
  g_autofree char *why = NULL;
  const CsGvfsShare *named;
  gboolean any_path = FALSE;

  g_array_set_clear_func (mapped, mapped_clear);
  for (guint i = 0; i < job->setup.sources->len; i++)
    map_location (mapped, (char **) &job->setup.sources->pdata[i]);
  for (guint i = 0; i < job->setup.source_targets->len; i++)
    map_location (mapped, (char **) &job->setup.source_targets->pdata[i]);
  map_location (mapped, &job->setup.destination);
  if (mapped->len == 0)
    return;

  /* The destination's share is the one a user thinks of; the last mapped. */
  named = g_array_index (mapped, Mapped, mapped->len - 1).share;
  for (guint i = 0; i < mapped->len; i++)
    {
      const Mapped *m = &g_array_index (mapped, Mapped, i);

      any_path = any_path || !m->url;
      if (_cs_smb_login_connect (m->share, &why))
        continue;
      if (!m->url)
        job->setup.route = g_strdup_printf (_("through GVfs's mount (SMB directly to %s/%s: %s)"),
                                      m->share->server, m->share->share, why);
      return;
    }

  if (any_path)
    {
      job->setup.given_sources = g_ptr_array_new_with_free_func (g_free);
      for (guint i = 0; i < job->setup.sources->len; i++)
        g_ptr_array_add (job->setup.given_sources, g_strdup (g_ptr_array_index (job->setup.sources, i)));
      job->setup.given_destination = g_strdup (job->setup.destination);
    }
  for (guint i = 0; i < mapped->len; i++)
    {
      Mapped *m = &g_array_index (mapped, Mapped, i);

      if (m->url)
        continue;
      g_free (*m->location);
      *m->location = g_strdup (m->share->url);
    }
  job->setup.route = g_strdup_printf (_("SMB directly to %s/%s"), named->server, named->share);
}
