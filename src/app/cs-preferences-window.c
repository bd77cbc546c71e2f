/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <glib/gi18n.h>

#include "cs-preferences-window.h"

/*
 * Preferences: every row is bound to a key of the application's settings, so
 * there is nothing to apply or save. The setup page binds the same keys, and
 * the window reads the sampling interval and the units when it uses them.
 */

struct _CsPreferencesWindow
{
  AdwPreferencesWindow  parent_instance;

  /* Template widgets */
  GtkSpinButton        *threads_spin;
  AdwComboRow          *overwrite_row;
  GtkSwitch            *verify_switch;
  GtkSwitch            *log_switch;
  GtkSwitch            *side_by_side_switch;
  GtkSpinButton        *retries_spin;
  GtkSpinButton        *wait_spin;
  GtkSpinButton        *interval_spin;
  AdwComboRow          *units_row;
  AdwComboRow          *palette_row;

  /* Owned */
  GSettings            *settings;
};

G_DEFINE_FINAL_TYPE (CsPreferencesWindow, cs_preferences_window, ADW_TYPE_PREFERENCES_WINDOW)

enum {
  PROP_0,
  PROP_SETTINGS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* Nicks of each enumeration in the schema, in the order the combo rows list them. */
static const char * const overwrite_nicks[] = { "newer", "never", "always", "ask", NULL };
static const char * const units_nicks[] = { "decimal", "binary", NULL };
static const char * const palette_nicks[] = { "light", "dark", "high-contrast", NULL };

static gboolean
nick_to_position (GValue   *value,
                  GVariant *variant,
                  gpointer  user_data)
{
  const char * const *nicks = user_data;
  const char *nick = g_variant_get_string (variant, NULL);

  for (guint i = 0; nicks[i] != NULL; i++)
    {
      if (g_strcmp0 (nick, nicks[i]) == 0)
        {
          g_value_set_uint (value, i);
          return TRUE;
        }
    }

  return FALSE;
}

static GVariant *
position_to_nick (const GValue       *value,
                  const GVariantType *expected_type,
                  gpointer            user_data)
{
  const char * const *nicks = user_data;
  guint position = g_value_get_uint (value);

  if (position >= g_strv_length ((char **) nicks))
    return NULL;

  return g_variant_new_string (nicks[position]);
}

static void
bind_combo (GSettings          *settings,
            const char         *key,
            AdwComboRow        *row,
            const char * const *nicks)
{
  g_settings_bind_with_mapping (settings, key, row, "selected", G_SETTINGS_BIND_DEFAULT,
                                nick_to_position, position_to_nick, (gpointer) nicks, NULL);
}

static void
cs_preferences_window_constructed (GObject *object)
{
  CsPreferencesWindow *self = CS_PREFERENCES_WINDOW (object);
  GSettings *settings = self->settings;

  G_OBJECT_CLASS (cs_preferences_window_parent_class)->constructed (object);

  g_assert (G_IS_SETTINGS (settings));

  g_settings_bind (settings, "threads", gtk_spin_button_get_adjustment (self->threads_spin),
                   "value", G_SETTINGS_BIND_DEFAULT);
  bind_combo (settings, "overwrite", self->overwrite_row, overwrite_nicks);
  g_settings_bind (settings, "verify", self->verify_switch, "active", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "keep-log", self->log_switch, "active", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "queue-side-by-side", self->side_by_side_switch, "active",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "retries", gtk_spin_button_get_adjustment (self->retries_spin),
                   "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "wait", gtk_spin_button_get_adjustment (self->wait_spin),
                   "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "interval", gtk_spin_button_get_adjustment (self->interval_spin),
                   "value", G_SETTINGS_BIND_DEFAULT);
  bind_combo (settings, "units", self->units_row, units_nicks);
  bind_combo (settings, "export-palette", self->palette_row, palette_nicks);
}

static void
cs_preferences_window_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), CS_TYPE_PREFERENCES_WINDOW);

  G_OBJECT_CLASS (cs_preferences_window_parent_class)->dispose (object);
}

static void
cs_preferences_window_finalize (GObject *object)
{
  CsPreferencesWindow *self = CS_PREFERENCES_WINDOW (object);

  g_clear_object (&self->settings);

  G_OBJECT_CLASS (cs_preferences_window_parent_class)->finalize (object);
}

static void
cs_preferences_window_set_property (GObject      *object,
                                    guint         prop_id,
                                    const GValue *value,
                                    GParamSpec   *pspec)
{
  CsPreferencesWindow *self = CS_PREFERENCES_WINDOW (object);

  switch (prop_id)
    {
    case PROP_SETTINGS:
      g_set_object (&self->settings, g_value_get_object (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cs_preferences_window_get_property (GObject    *object,
                                    guint       prop_id,
                                    GValue     *value,
                                    GParamSpec *pspec)
{
  CsPreferencesWindow *self = CS_PREFERENCES_WINDOW (object);

  switch (prop_id)
    {
    case PROP_SETTINGS:
      g_value_set_object (value, self->settings);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cs_preferences_window_class_init (CsPreferencesWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->constructed = cs_preferences_window_constructed;
  object_class->dispose = cs_preferences_window_dispose;
  object_class->finalize = cs_preferences_window_finalize;
  object_class->set_property = cs_preferences_window_set_property;
  object_class->get_property = cs_preferences_window_get_property;

  properties[PROP_SETTINGS] =
    g_param_spec_object ("settings", NULL, NULL,
                         G_TYPE_SETTINGS,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-preferences-window.ui");
  gtk_widget_class_bind_template_child (widget_class, CsPreferencesWindow, threads_spin);
  gtk_widget_class_bind_template_child (widget_class, CsPreferencesWindow, overwrite_row);
  gtk_widget_class_bind_template_child (widget_class, CsPreferencesWindow, verify_switch);
  gtk_widget_class_bind_template_child (widget_class, CsPreferencesWindow, log_switch);
  gtk_widget_class_bind_template_child (widget_class, CsPreferencesWindow, side_by_side_switch);
  gtk_widget_class_bind_template_child (widget_class, CsPreferencesWindow, retries_spin);
  gtk_widget_class_bind_template_child (widget_class, CsPreferencesWindow, wait_spin);
  gtk_widget_class_bind_template_child (widget_class, CsPreferencesWindow, interval_spin);
  gtk_widget_class_bind_template_child (widget_class, CsPreferencesWindow, units_row);
  gtk_widget_class_bind_template_child (widget_class, CsPreferencesWindow, palette_row);
}

static void
cs_preferences_window_init (CsPreferencesWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

CsPreferencesWindow *
cs_preferences_window_new (GtkWindow *parent,
                           GSettings *settings)
{
  g_return_val_if_fail (parent == NULL || GTK_IS_WINDOW (parent), NULL);
  g_return_val_if_fail (G_IS_SETTINGS (settings), NULL);

  return g_object_new (CS_TYPE_PREFERENCES_WINDOW,
                       "transient-for", parent,
                       "settings", settings,
                       NULL);
}

/* The colours exported charts use, whatever the desktop's style. */
void
cs_preferences_get_export_palette (GSettings     *settings,
                                   CsPlotPalette *palette)
{
  g_return_if_fail (G_IS_SETTINGS (settings));
  g_return_if_fail (palette != NULL);

  switch (g_settings_get_enum (settings, "export-palette"))
    {
    case 1:
      cs_plot_palette_init_dark (palette);
      break;

    case 2:
      cs_plot_palette_init_high_contrast (palette);
      break;

    default:
      cs_plot_palette_init_light (palette);
      break;
    }
}
