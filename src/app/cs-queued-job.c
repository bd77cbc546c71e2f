/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include "cs-queued-job.h"

/*
 * A copy waiting in the window's queue: its job, set up and checked when it
 * was queued, what it copies where (for the queue's list), and whether the
 * user holds it back. The window starts the first one not held when the
 * running copy ends; jobs run one after the other.
 */

struct _CsQueuedJob
{
  GObject   parent_instance;

  CsJob    *job;
  char    **sources;
  char     *destination;
  gboolean  held;
};

G_DEFINE_FINAL_TYPE (CsQueuedJob, cs_queued_job, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_HELD,
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
