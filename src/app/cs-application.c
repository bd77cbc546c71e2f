/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <glib/gi18n.h>

#include "cs-about.h"
#include "cs-application.h"
#include "cs-format.h"
#include "cs-preferences-window.h"
#include "cs-window.h"

#define SCHEMA_ID APP_ID

struct _CsApplication
{
  AdwApplication  parent_instance;

  /* Owned */
  GSettings      *settings;
  GFile          *destination;   /* from --destination, for the next window */
};

G_DEFINE_FINAL_TYPE (CsApplication, cs_application, ADW_TYPE_APPLICATION)

CsApplication *
cs_application_new (void)
{
  return g_object_new (CS_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN,
                       /* The development profile has its own id; resources keep one path. */
                       "resource-base-path", "/io/github/copyscope/Copyscope",
                       NULL);
}

GSettings *
cs_application_get_settings (CsApplication *self)
{
  g_return_val_if_fail (CS_IS_APPLICATION (self), NULL);

  return self->settings;
}

static CsWindow *
cs_application_get_main_window (CsApplication *self)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  if (CS_IS_WINDOW (window))
    return CS_WINDOW (window);

  return cs_window_new (self);
}

/* A destination given on the command line goes to the window once. */
static void
cs_application_apply_destination (CsApplication *self,
                                  CsWindow      *window)
{
  g_autoptr(GFile) destination = g_steal_pointer (&self->destination);

  if (destination != NULL)
    cs_window_set_destination (window, destination);
}

static int
cs_application_handle_local_options (GApplication *app,
                                     GVariantDict *options)
{
  CsApplication *self = CS_APPLICATION (app);
  g_autofree char *destination = NULL;

  if (g_variant_dict_lookup (options, "destination", "^ay", &destination))
    {
      g_clear_object (&self->destination);
      self->destination = g_file_new_for_commandline_arg (destination);
    }

  return G_APPLICATION_CLASS (cs_application_parent_class)->handle_local_options (app, options);
}

static void
cs_application_activate (GApplication *app)
{
  CsWindow *window = cs_application_get_main_window (CS_APPLICATION (app));

  cs_application_apply_destination (CS_APPLICATION (app), window);
  gtk_window_present (GTK_WINDOW (window));
}

static void
cs_application_open (GApplication  *app,
                     GFile        **files,
                     int            n_files,
                     const char    *hint)
{
  CsWindow *window = cs_application_get_main_window (CS_APPLICATION (app));

  /* A second "copyscope FILE…" lands here through the primary instance, so the
   * files join the setup of the existing window rather than opening another. */
  cs_window_add_sources (window, files, (guint) n_files);
  cs_application_apply_destination (CS_APPLICATION (app), window);
  gtk_window_present (GTK_WINDOW (window));
}

static void
quit_action (GSimpleAction *action,
             GVariant      *parameter,
             gpointer       user_data)
{
  GtkApplication *app = user_data;
  GList *windows = gtk_application_get_windows (app);

  /* Closing through the window lets a running copy ask before it is cancelled. */
  if (windows != NULL)
    gtk_window_close (GTK_WINDOW (windows->data));
  else
    g_application_quit (G_APPLICATION (app));
}

static void
about_action (GSimpleAction *action,
              GVariant      *parameter,
              gpointer       user_data)
{
  GtkApplication *app = user_data;

  cs_about_show (gtk_application_get_active_window (app));
}

static void
preferences_action (GSimpleAction *action,
                    GVariant      *parameter,
                    gpointer       user_data)
{
  CsApplication *self = user_data;
  CsPreferencesWindow *preferences;

  preferences = cs_preferences_window_new (gtk_application_get_active_window (GTK_APPLICATION (self)),
                                           self->settings);
  gtk_window_present (GTK_WINDOW (preferences));
}

static void
units_changed_cb (CsApplication *self)
{
  _cs_format_set_binary_units (g_settings_get_enum (self->settings, "units") == 1);
}

static const GActionEntry app_actions[] = {
  { "quit", quit_action },
  { "about", about_action },
  { "preferences", preferences_action },
};

static void
cs_application_startup (GApplication *app)
{
  CsApplication *self = CS_APPLICATION (app);
  static const struct {
    const char *action;
    const char *accels[3];
  } accels[] = {
    { "app.quit", { "<Control>q", NULL } },
    { "app.preferences", { "<Control>comma", NULL } },
    { "window.close", { "<Control>w", NULL } },
    { "win.add-files", { "<Control>o", NULL } },
    { "win.add-folder", { "<Control><Shift>o", NULL } },
    { "win.choose-destination", { "<Control>d", NULL } },
    { "win.start", { "<Control>Return", NULL } },
    { "win.pause", { "<Control>p", NULL } },
    { "win.cancel", { "Escape", NULL } },
    { "win.new-copy", { "<Control>n", NULL } },
    { "win.export", { "<Control>e", NULL } },
    { "win.show-history", { "<Control>h", NULL } },
  };

  G_APPLICATION_CLASS (cs_application_parent_class)->startup (app);

  g_action_map_add_action_entries (G_ACTION_MAP (app), app_actions,
                                   G_N_ELEMENTS (app_actions), app);

  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (app),
                                           accels[i].action, accels[i].accels);

  self->settings = g_settings_new (SCHEMA_ID);
  g_signal_connect_object (self->settings, "changed::units",
                           G_CALLBACK (units_changed_cb), self, G_CONNECT_SWAPPED);
  units_changed_cb (self);
}

static void
cs_application_dispose (GObject *object)
{
  CsApplication *self = CS_APPLICATION (object);

  g_clear_object (&self->settings);
  g_clear_object (&self->destination);

  G_OBJECT_CLASS (cs_application_parent_class)->dispose (object);
}

static void
cs_application_class_init (CsApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->dispose = cs_application_dispose;

  app_class->handle_local_options = cs_application_handle_local_options;
  app_class->startup = cs_application_startup;
  app_class->activate = cs_application_activate;
  app_class->open = cs_application_open;
}

static void
cs_application_init (CsApplication *self)
{
  static const GOptionEntry entries[] = {
    { "destination", 'd', 0, G_OPTION_ARG_FILENAME, NULL,
      N_("Copy into DIR (the sources are the files and folders named after the options)"),
      N_("DIR") },
    { NULL }
  };

  g_application_set_option_context_parameter_string (G_APPLICATION (self), _("[SOURCE…]"));
  g_application_add_main_option_entries (G_APPLICATION (self), entries);
}
