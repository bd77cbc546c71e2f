/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <sys/stat.h>
#include <glib/gstdio.h>

#include "cs-queued-job.h"

/*
 * A copy in the window's queue: its job, set up and checked when it was
 * queued, what it copies where (for the queue's list), the destination's
 * device, whether the user holds it back and whether it runs beside the
 * shown copy. The window starts the first one not held whose device is
 * free: copies to one device run one after the other, so two never share a
 * disk or a server; copies to different devices may run side by side.
 */

struct _CsQueuedJob
{
  GObject   parent_instance;

  CsJob    *job;
  char    **sources;
  char     *destination;
  char     *device;
  gboolean  held;
  gboolean  running;
};

G_DEFINE_FINAL_TYPE (CsQueuedJob, cs_queued_job, G_TYPE_OBJECT)

/*
 * What two copies must not share: for a share (a GVfs location, smb://…) its
 * server, whatever the share, because the server's disks and link are one;
 * for a local path the filesystem of its nearest existing folder (st_dev), a
 * network filesystem's mount included.
 */
char *
cs_queued_job_device_of (const char *destination)
{
  g_autoptr(GFile) file = NULL;
  g_autofree char *uri = NULL;
  g_autofree char *path = NULL;
  const char *scheme;

  g_return_val_if_fail (destination != NULL, NULL);

  /* An smb:// URL is its own; GVfs maps its FUSE paths back to the share's URI. */
  file = g_uri_peek_scheme (destination) != NULL ? g_file_new_for_uri (destination)
                                                 : g_file_new_for_path (destination);
  uri = g_file_get_uri (file);
  scheme = g_uri_peek_scheme (uri);
  if (g_strcmp0 (scheme, "file") != 0)
    {
      g_autoptr(GUri) parsed = g_uri_parse (uri, G_URI_FLAGS_NONE, NULL);
      const char *host = parsed != NULL ? g_uri_get_host (parsed) : NULL;

      return g_strdup_printf ("%s://%s", scheme, host != NULL ? host : "");
    }

  path = g_strdup (destination);
  for (;;)
    {
      struct stat st;
      g_autofree char *parent = NULL;

      if (g_stat (path, &st) == 0)
        return g_strdup_printf ("dev:%" G_GUINT64_FORMAT, (guint64) st.st_dev);
      parent = g_path_get_dirname (path);
      if (g_strcmp0 (parent, path) == 0)
        return g_strdup (destination);
      g_free (path);
      path = g_steal_pointer (&parent);
    }
}

enum {
  PROP_0,
  PROP_HELD,
  PROP_RUNNING,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
cs_queued_job_finalize (GObject *object)
{
  CsQueuedJob *self = CS_QUEUED_JOB (object);

  g_clear_object (&self->job);
  g_strfreev (self->sources);
  g_free (self->destination);
  g_free (self->device);

  G_OBJECT_CLASS (cs_queued_job_parent_class)->finalize (object);
}

static void
cs_queued_job_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  CsQueuedJob *self = CS_QUEUED_JOB (object);

  switch (prop_id)
    {
    case PROP_HELD:
      g_value_set_boolean (value, self->held);
      break;
    case PROP_RUNNING:
      g_value_set_boolean (value, self->running);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cs_queued_job_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  CsQueuedJob *self = CS_QUEUED_JOB (object);

  switch (prop_id)
    {
    case PROP_HELD:
      cs_queued_job_set_held (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cs_queued_job_class_init (CsQueuedJobClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = cs_queued_job_finalize;
  object_class->get_property = cs_queued_job_get_property;
  object_class->set_property = cs_queued_job_set_property;

  properties[PROP_HELD] = g_param_spec_boolean ("held", NULL, NULL, FALSE,
                                                G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                                                G_PARAM_STATIC_STRINGS);
  /* Started beside the copy the window shows; it leaves the queue when done. */
  properties[PROP_RUNNING] = g_param_spec_boolean ("running", NULL, NULL, FALSE,
                                                   G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY |
                                                   G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
cs_queued_job_init (CsQueuedJob *self)
{
}

CsQueuedJob *
cs_queued_job_new (CsJob              *job,
                   const char * const *sources,
                   const char         *destination)
{
  CsQueuedJob *self;

  g_return_val_if_fail (CS_IS_JOB (job), NULL);
  g_return_val_if_fail (sources != NULL, NULL);
  g_return_val_if_fail (destination != NULL, NULL);

  self = g_object_new (CS_TYPE_QUEUED_JOB, NULL);
  self->job = g_object_ref (job);
  self->sources = g_strdupv ((char **) sources);
  self->destination = g_strdup (destination);
  self->device = cs_queued_job_device_of (destination);

  return self;
}

CsJob *
cs_queued_job_get_job (CsQueuedJob *self)
{
  g_return_val_if_fail (CS_IS_QUEUED_JOB (self), NULL);

  return self->job;
}

const char * const *
cs_queued_job_get_sources (CsQueuedJob *self)
{
  g_return_val_if_fail (CS_IS_QUEUED_JOB (self), NULL);

  return (const char * const *) self->sources;
}

const char *
cs_queued_job_get_destination (CsQueuedJob *self)
{
  g_return_val_if_fail (CS_IS_QUEUED_JOB (self), NULL);

  return self->destination;
}

gboolean
cs_queued_job_get_held (CsQueuedJob *self)
{
  g_return_val_if_fail (CS_IS_QUEUED_JOB (self), FALSE);

  return self->held;
}

void
cs_queued_job_set_held (CsQueuedJob *self,
                        gboolean     held)
{
  g_return_if_fail (CS_IS_QUEUED_JOB (self));

  held = !!held;
  if (self->held == held)
    return;
  self->held = held;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HELD]);
}

/* The destination's device (cs_queued_job_device_of). */
const char *
cs_queued_job_get_device (CsQueuedJob *self)
{
  g_return_val_if_fail (CS_IS_QUEUED_JOB (self), NULL);

  return self->device;
}

gboolean
cs_queued_job_get_running (CsQueuedJob *self)
{
  g_return_val_if_fail (CS_IS_QUEUED_JOB (self), FALSE);

  return self->running;
}

void
cs_queued_job_set_running (CsQueuedJob *self,
                           gboolean     running)
{
  g_return_if_fail (CS_IS_QUEUED_JOB (self));

  running = !!running;
  if (self->running == running)
    return;
  self->running = running;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
}
