/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <glib/gi18n.h>

#include "cs-options-group.h"

/* Nicks of the schema's Overwrite enumeration, indexed by CsOverwrite; the combo
 * row lists its choices in the same order. */
static const char * const overwrite_nicks[] = {
  [CS_OVERWRITE_NEWER] = "newer",
  [CS_OVERWRITE_NEVER] = "never",
  [CS_OVERWRITE_ALWAYS] = "always",
  [CS_OVERWRITE_ASK] = "ask",
};

struct _CsOptionsGroup
{
  AdwPreferencesGroup  parent_instance;

  /* Template widgets */
  AdwComboRow         *overwrite_row;
  GtkSwitch           *verify_switch;
  GtkSwitch           *flush_switch;
  GtkSwitch           *log_switch;
  GtkSwitch           *manifest_switch;
  GtkSpinButton       *retries_spin;
  GtkSpinButton       *wait_spin;
};

G_DEFINE_FINAL_TYPE (CsOptionsGroup, cs_options_group, ADW_TYPE_PREFERENCES_GROUP)

static gboolean
overwrite_get_mapping (GValue   *value,
                       GVariant *variant,
                       gpointer  user_data)
{
  const char *nick = g_variant_get_string (variant, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (overwrite_nicks); i++)
    {
      if (g_strcmp0 (nick, overwrite_nicks[i]) == 0)
        {
          g_value_set_uint (value, i);
          return TRUE;
        }
    }

  return FALSE;
}

static GVariant *
overwrite_set_mapping (const GValue       *value,
                       const GVariantType *expected_type,
                       gpointer            user_data)
{
  guint index = g_value_get_uint (value);

  if (index >= G_N_ELEMENTS (overwrite_nicks))
    return NULL;

  return g_variant_new_string (overwrite_nicks[index]);
}

static void
cs_options_group_class_init (CsOptionsGroupClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-options-group.ui");
  gtk_widget_class_bind_template_child (widget_class, CsOptionsGroup, overwrite_row);
  gtk_widget_class_bind_template_child (widget_class, CsOptionsGroup, verify_switch);
  gtk_widget_class_bind_template_child (widget_class, CsOptionsGroup, flush_switch);
  gtk_widget_class_bind_template_child (widget_class, CsOptionsGroup, log_switch);
  gtk_widget_class_bind_template_child (widget_class, CsOptionsGroup, manifest_switch);
  gtk_widget_class_bind_template_child (widget_class, CsOptionsGroup, retries_spin);
  gtk_widget_class_bind_template_child (widget_class, CsOptionsGroup, wait_spin);
}

static void
cs_options_group_init (CsOptionsGroup *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

/* The widgets hold the values; settings remember them between runs. */
void
cs_options_group_bind_settings (CsOptionsGroup *self,
                                GSettings      *settings)
{
  g_return_if_fail (CS_IS_OPTIONS_GROUP (self));
  g_return_if_fail (G_IS_SETTINGS (settings));

  g_settings_bind_with_mapping (settings, "overwrite", self->overwrite_row, "selected",
                                G_SETTINGS_BIND_DEFAULT,
                                overwrite_get_mapping, overwrite_set_mapping, NULL, NULL);
  g_settings_bind (settings, "verify", self->verify_switch, "active", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "flush", self->flush_switch, "active", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "keep-log", self->log_switch, "active", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "keep-manifest", self->manifest_switch, "active", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "retries", gtk_spin_button_get_adjustment (self->retries_spin),
                   "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "wait", gtk_spin_button_get_adjustment (self->wait_spin),
                   "value", G_SETTINGS_BIND_DEFAULT);
}

CsOverwrite
cs_options_group_get_overwrite (CsOptionsGroup *self)
{
  guint selected;

  g_return_val_if_fail (CS_IS_OPTIONS_GROUP (self), CS_OVERWRITE_NEWER);

  selected = adw_combo_row_get_selected (self->overwrite_row);
  if (selected >= G_N_ELEMENTS (overwrite_nicks))
    return CS_OVERWRITE_NEWER;

  return (CsOverwrite) selected;
}

void
cs_options_group_set_overwrite (CsOptionsGroup *self,
                                CsOverwrite     overwrite)
{
  g_return_if_fail (CS_IS_OPTIONS_GROUP (self));
  g_return_if_fail ((guint) overwrite < G_N_ELEMENTS (overwrite_nicks));

  adw_combo_row_set_selected (self->overwrite_row, (guint) overwrite);
}

gboolean
cs_options_group_get_verify (CsOptionsGroup *self)
{
  g_return_val_if_fail (CS_IS_OPTIONS_GROUP (self), FALSE);

  return gtk_switch_get_active (self->verify_switch);
}

gboolean
cs_options_group_get_flush (CsOptionsGroup *self)
{
  g_return_val_if_fail (CS_IS_OPTIONS_GROUP (self), FALSE);

  return gtk_switch_get_active (self->flush_switch);
}

/* Whether the copy keeps its per-file log beside its record in History. */
gboolean
cs_options_group_get_keep_log (CsOptionsGroup *self)
{
  g_return_val_if_fail (CS_IS_OPTIONS_GROUP (self), FALSE);

  return gtk_switch_get_active (self->log_switch);
}

/* Whether the copy keeps a checksum list beside its record in History. */
gboolean
cs_options_group_get_keep_manifest (CsOptionsGroup *self)
{
  g_return_val_if_fail (CS_IS_OPTIONS_GROUP (self), FALSE);

  return gtk_switch_get_active (self->manifest_switch);
}

guint
cs_options_group_get_retries (CsOptionsGroup *self)
{
  g_return_val_if_fail (CS_IS_OPTIONS_GROUP (self), 0);

  return (guint) gtk_spin_button_get_value_as_int (self->retries_spin);
}

double
cs_options_group_get_wait (CsOptionsGroup *self)
{
  g_return_val_if_fail (CS_IS_OPTIONS_GROUP (self), 0);

  return gtk_spin_button_get_value (self->wait_spin);
}
