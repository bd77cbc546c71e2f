/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <glib/gi18n.h>

#include "cs-application.h"
#include "cs-window.h"

#define SCHEMA_ID APP_ID

struct _CsApplication
{
  AdwApplication  parent_instance;

  /* Owned */
  GSettings      *settings;
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

static void
cs_application_activate (GApplication *app)
{
  CsWindow *window = cs_application_get_main_window (CS_APPLICATION (app));

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
  static const char *developers[] = { "The Copyscope developers", NULL };

  adw_show_about_window (gtk_application_get_active_window (app),
                         "application-name", _("Copyscope"),
                         "application-icon", APP_ID,
                         "version", PACKAGE_VERSION,
                         "comments", _("Copy files and watch how fast it goes"),
                         "website", "https://github.com/copyscope/copyscope",
                         "developers", developers,
                         "license-type", GTK_LICENSE_GPL_3_0,
                         "translator-credits", _("translator-credits"),
                         NULL);
}

static const GActionEntry app_actions[] = {
  { "quit", quit_action },
  { "about", about_action },
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
    { "window.close", { "<Control>w", NULL } },
    { "win.add-files", { "<Control>o", NULL } },
    { "win.add-folder", { "<Control><Shift>o", NULL } },
    { "win.start", { "<Control>Return", NULL } },
    { "win.pause", { "<Control>p", NULL } },
    { "win.new-copy", { "<Control>n", NULL } },
    { "win.export", { "<Control>e", NULL } },
  };

  G_APPLICATION_CLASS (cs_application_parent_class)->startup (app);

  g_action_map_add_action_entries (G_ACTION_MAP (app), app_actions,
                                   G_N_ELEMENTS (app_actions), app);

  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (app),
                                           accels[i].action, accels[i].accels);

  self->settings = g_settings_new (SCHEMA_ID);
}

static void
cs_application_dispose (GObject *object)
{
  CsApplication *self = CS_APPLICATION (object);

  g_clear_object (&self->settings);

  G_OBJECT_CLASS (cs_application_parent_class)->dispose (object);
}

static void
cs_application_class_init (CsApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->dispose = cs_application_dispose;

  app_class->startup = cs_application_startup;
  app_class->activate = cs_application_activate;
  app_class->open = cs_application_open;
}

static void
cs_application_init (CsApplication *self)
{
}
