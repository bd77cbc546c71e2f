/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <glib/gi18n.h>

#include "cs-about.h"
#include "cs-application.h"
#include "cs-copy-queue.h"
#include "cs-format.h"
#include "cs-job.h"
#include "cs-preferences-window.h"
#include "cs-window.h"

#define SCHEMA_ID APP_ID

struct _CsApplication
{
  AdwApplication  parent_instance;

  /* Owned */
  GSettings      *settings;
  CsCopyQueue    *copy_queue;    /* the copies, apart from the window that shows them */
};

G_DEFINE_FINAL_TYPE (CsApplication, cs_application, ADW_TYPE_APPLICATION)

CsApplication *
cs_application_new (void)
{
  return g_object_new (CS_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN | G_APPLICATION_HANDLES_COMMAND_LINE,
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

/* The copies running and waiting, from startup on; the window shows them. */
CsCopyQueue *
cs_application_get_copy_queue (CsApplication *self)
{
  g_return_val_if_fail (CS_IS_APPLICATION (self), NULL);

  return self->copy_queue;
}

static CsWindow *
cs_application_get_main_window (CsApplication *self)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  if (CS_IS_WINDOW (window))
    return CS_WINDOW (window);

  return cs_window_new (self);
}

static gboolean
parse_threads (const char *text,
               guint      *out_threads,
               gboolean   *out_auto)
{
  guint64 value;

  if (g_strcmp0 (text, "auto") == 0)
    {
      *out_auto = TRUE;
      return TRUE;
    }

  if (!g_ascii_string_to_unsigned (text, 10, CS_JOB_MIN_THREADS, CS_JOB_MAX_THREADS, &value, NULL))
    return FALSE;

  *out_threads = (guint) value;
  *out_auto = FALSE;
  return TRUE;
}

/*
 * "copyscope [--move|--mirror] [--destination DIR] [--choose-destination] [--threads N|auto]
 * [--start] [--close-when-done] [SOURCE…]". It runs in the primary instance, so a second
 * command line sets up (or starts) a copy in the window already open, with paths
 * resolved against the caller's working folder rather than the primary's.
 */
static int
cs_application_command_line (GApplication            *app,
                             GApplicationCommandLine *command_line)
{
  CsApplication *self = CS_APPLICATION (app);
  GVariantDict *options = g_application_command_line_get_options_dict (command_line);
  g_autofree char *destination = NULL;
  g_autofree char *threads_text = NULL;
  g_auto(GStrv) sources = NULL;
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GFile) destination_file = NULL;
  gboolean start = FALSE;
  gboolean close_when_done = FALSE;
  gboolean choose_destination = FALSE;
  gboolean move = FALSE;
  gboolean mirror = FALSE;
  CsOperation operation;
  const char *refused;
  gboolean auto_threads = FALSE;
  guint threads = 0;
  CsWindow *window;

  g_variant_dict_lookup (options, "destination", "^ay", &destination);
  g_variant_dict_lookup (options, "threads", "s", &threads_text);
  g_variant_dict_lookup (options, G_OPTION_REMAINING, "^aay", &sources);
  g_variant_dict_lookup (options, "start", "b", &start);
  g_variant_dict_lookup (options, "close-when-done", "b", &close_when_done);
  g_variant_dict_lookup (options, "choose-destination", "b", &choose_destination);
  g_variant_dict_lookup (options, "move", "b", &move);
  g_variant_dict_lookup (options, "mirror", "b", &mirror);

  if (move && mirror)
    {
      g_application_command_line_printerr (command_line,
                                           _("--move and --mirror do not go together\n"));
      return 2;
    }
  operation = move ? CS_OPERATION_MOVE : mirror ? CS_OPERATION_MIRROR : CS_OPERATION_COPY;
  if (move)
    refused = _("The move cannot start; the window says why\n");
  else if (mirror)
    refused = _("The mirror cannot start; the window says why\n");
  else
    refused = _("The copy cannot start; the window says why\n");

  if (threads_text != NULL && !parse_threads (threads_text, &threads, &auto_threads))
    {
      g_application_command_line_printerr (command_line,
                                           _("--threads: “%s” is not a number of threads "
                                             "from %d to %d or “auto”\n"),
                                           threads_text, CS_JOB_MIN_THREADS, CS_JOB_MAX_THREADS);
      return 2;
    }

  if (start && (destination == NULL || sources == NULL || sources[0] == NULL))
    {
      g_application_command_line_printerr (command_line,
                                           _("--start needs --destination and at least one "
                                             "source\n"));
      return 2;
    }

  if (choose_destination && start)
    {
      g_application_command_line_printerr (command_line,
                                           _("--choose-destination and --start do not go "
                                             "together\n"));
      return 2;
    }

  for (guint i = 0; sources != NULL && sources[i] != NULL; i++)
    g_ptr_array_add (files, g_application_command_line_create_file_for_arg (command_line,
                                                                            sources[i]));

  window = cs_application_get_main_window (self);
  if (destination != NULL)
    destination_file = g_application_command_line_create_file_for_arg (command_line, destination);
  /* Sources handed over say, with or without --move or --mirror, what is
   * done with them. */
  if (files->len > 0 || move || mirror)
    cs_window_set_operation (window, operation);
  if (threads_text != NULL)
    cs_window_set_threads (window, threads, auto_threads);

  /* Sources handed over while a copy runs join the queue, into the running
   * copy's destination unless told another. */
  if (files->len > 0 && cs_copy_queue_get_job (self->copy_queue) != NULL && !choose_destination)
    {
      gtk_window_present (GTK_WINDOW (window));
      if (!cs_window_queue_copy (window, (GFile **) files->pdata, files->len, destination_file))
        {
          g_application_command_line_printerr (command_line, "%s", refused);
          return 3;
        }
      return 0;
    }

  if (files->len > 0)
    cs_window_add_sources (window, (GFile **) files->pdata, files->len);
  if (destination_file != NULL)
    cs_window_set_destination (window, destination_file);
  gtk_window_present (GTK_WINDOW (window));
  /* A file manager's "Copy to…" hands over the sources and leaves the rest to the user. */
  if (choose_destination)
    gtk_widget_activate_action (GTK_WIDGET (window), "win.choose-destination", NULL);

  if (start && !cs_window_start_copy (window, close_when_done))
    {
      g_application_command_line_printerr (command_line, "%s", refused);
      return 3;
    }

  return 0;
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

  /* Files opened from elsewhere (a file manager's "Open With") join the setup
   * of the existing window rather than opening another. */
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
  self->copy_queue = cs_copy_queue_new (self->settings);
}

static void
cs_application_dispose (GObject *object)
{
  CsApplication *self = CS_APPLICATION (object);

  g_clear_object (&self->copy_queue);
  g_clear_object (&self->settings);

  G_OBJECT_CLASS (cs_application_parent_class)->dispose (object);
}

static void
cs_application_class_init (CsApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->dispose = cs_application_dispose;

  app_class->command_line = cs_application_command_line;
  app_class->startup = cs_application_startup;
  app_class->activate = cs_application_activate;
  app_class->open = cs_application_open;
}

static void
cs_application_init (CsApplication *self)
{
  static const GOptionEntry entries[] = {
    { "move", 'm', 0, G_OPTION_ARG_NONE, NULL,
      N_("Move the sources instead of copying them: each is removed once its copy is complete"),
      NULL },
    { "mirror", 0, 0, G_OPTION_ARG_NONE, NULL,
      N_("Make the destination match the sources: copy what is new or changed, then delete "
         "what they no longer have, after the window has asked"),
      NULL },
    { "destination", 'd', 0, G_OPTION_ARG_FILENAME, NULL,
      N_("Copy into DIR (the sources are the files and folders named after the options)"),
      N_("DIR") },
    { "threads", 't', 0, G_OPTION_ARG_STRING, NULL,
      N_("Copy with N worker threads (1–128), or “auto”"), N_("N") },
    { "choose-destination", 0, 0, G_OPTION_ARG_NONE, NULL,
      N_("Open the chooser for the destination"), NULL },
    { "start", 's', 0, G_OPTION_ARG_NONE, NULL,
      N_("Start the copy at once"), NULL },
    { "close-when-done", 0, 0, G_OPTION_ARG_NONE, NULL,
      N_("With --start: close the window when the copy has finished without problems"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, NULL, NULL, N_("[SOURCE…]") },
    { NULL }
  };

  g_application_add_main_option_entries (G_APPLICATION (self), entries);
}
