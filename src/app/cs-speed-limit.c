/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include "cs-speed-limit.h"

/*
 * A speed limit: MB/s and files/s, 0 for none. Set up before a copy and
 * changed during it; the pages bind both controls and hand the values to the
 * job (cs_job_set_max_rate, cs_job_set_max_files), which applies them live.
 */

struct _CsSpeedLimit
{
  GtkWidget      parent_instance;

  /* Template widgets */
  GtkSpinButton *rate_spin;      /* MB/s */
  GtkSpinButton *files_spin;     /* files/s */
};

G_DEFINE_FINAL_TYPE (CsSpeedLimit, cs_speed_limit, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_MAX_RATE,
  PROP_MAX_FILES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
rate_changed_cb (CsSpeedLimit *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_RATE]);
}

static void
files_changed_cb (CsSpeedLimit *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_FILES]);
}

static void
cs_speed_limit_dispose (GObject *object)
{
  GtkWidget *child;

  gtk_widget_dispose_template (GTK_WIDGET (object), CS_TYPE_SPEED_LIMIT);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (object))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (cs_speed_limit_parent_class)->dispose (object);
}

static void
cs_speed_limit_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  CsSpeedLimit *self = CS_SPEED_LIMIT (object);

  switch (prop_id)
    {
    case PROP_MAX_RATE:
      g_value_set_double (value, cs_speed_limit_get_max_rate (self));
      break;
    case PROP_MAX_FILES:
      g_value_set_double (value, cs_speed_limit_get_max_files (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cs_speed_limit_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  CsSpeedLimit *self = CS_SPEED_LIMIT (object);

  switch (prop_id)
    {
    case PROP_MAX_RATE:
      cs_speed_limit_set_max_rate (self, g_value_get_double (value));
      break;
    case PROP_MAX_FILES:
      cs_speed_limit_set_max_files (self, g_value_get_double (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cs_speed_limit_class_init (CsSpeedLimitClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cs_speed_limit_dispose;
  object_class->get_property = cs_speed_limit_get_property;
  object_class->set_property = cs_speed_limit_set_property;

  /* Bytes per second and files per second; 0: no limit. */
  properties[PROP_MAX_RATE] = g_param_spec_double ("max-rate", NULL, NULL, 0, G_MAXDOUBLE, 0,
                                                   G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                                                   G_PARAM_STATIC_STRINGS);
  properties[PROP_MAX_FILES] = g_param_spec_double ("max-files", NULL, NULL, 0, G_MAXDOUBLE, 0,
                                                    G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                                                    G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-speed-limit.ui");
  gtk_widget_class_bind_template_child (widget_class, CsSpeedLimit, rate_spin);
  gtk_widget_class_bind_template_child (widget_class, CsSpeedLimit, files_spin);
  gtk_widget_class_bind_template_callback (widget_class, rate_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, files_changed_cb);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
}

static void
cs_speed_limit_init (CsSpeedLimit *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_box_layout_set_spacing (GTK_BOX_LAYOUT (gtk_widget_get_layout_manager (GTK_WIDGET (self))), 6);
}

double
cs_speed_limit_get_max_rate (CsSpeedLimit *self)
{
  g_return_val_if_fail (CS_IS_SPEED_LIMIT (self), 0);

  return gtk_spin_button_get_value (self->rate_spin) * 1e6;
}

void
cs_speed_limit_set_max_rate (CsSpeedLimit *self,
                             double        bytes_per_second)
{
  g_return_if_fail (CS_IS_SPEED_LIMIT (self));

  gtk_spin_button_set_value (self->rate_spin, bytes_per_second / 1e6);
}

double
cs_speed_limit_get_max_files (CsSpeedLimit *self)
{
  g_return_val_if_fail (CS_IS_SPEED_LIMIT (self), 0);

  return gtk_spin_button_get_value (self->files_spin);
}

void
cs_speed_limit_set_max_files (CsSpeedLimit *self,
                              double        files_per_second)
{
  g_return_if_fail (CS_IS_SPEED_LIMIT (self));

  gtk_spin_button_set_value (self->files_spin, files_per_second);
}
