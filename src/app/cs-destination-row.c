/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <glib/gi18n.h>

#include "cs-destination-row.h"
#include "cs-format.h"
#include "cs-smb.h"

/*
 * Where the copy goes: a folder picked with the chooser (the window's
 * "win.choose-destination" action) or dropped onto the row, with its free space
 * (unknown for an smb:// location, which only the engine can reach).
 * A folder that does not exist yet is said to be made by the copy, with the
 * folders above it that are missing too (Copy Into makes them all), or said
 * not to be possible when a file stands in the way; its free space is that
 * of its nearest folder that exists.
 *
 * A folder on a share GNOME Files mounted is copied to at its server
 * directly when the engine can log in there, else through GVfs's mount
 * (cs-route.c), a different copy: the row tries the same login in a thread
 * and says which it will be, with what going direct was measured to give.
 */

/* Small files on the lab's Samba, Copyscope going direct against cp through
 * GVfs's mount: 2.62 s against 6.35 s for 1,000 × 12 KiB (bench/RESULTS.md,
 * "Native SMB", 2026-12-03, a quiet machine). */
#define DIRECT_SPEEDUP 2.4

typedef enum {
  ROUTE_NONE,     /* not a share GVfs mounted */
  ROUTE_ASKING,   /* logging in to see */
  ROUTE_DIRECT,
  ROUTE_MOUNT,
} Route;

struct _CsDestinationRow
{
  AdwActionRow   parent_instance;

  /* Template widgets */
  GtkLabel      *free_label;
  GtkButton     *choose_button;

  /* Owned */
  GFile         *file;
  GCancellable  *cancellable;
  gboolean       missing;     /* the copy makes the folder */
  guint          missing_above;  /* and this many folders above it */
  GFile         *blocker;     /* a file where a folder above it should be */
  Route          route;
  char          *share_name;  /* "nas/photos/2024" for a share GVfs mounted */
  char          *route_why;   /* why not directly */
};

G_DEFINE_FINAL_TYPE (CsDestinationRow, cs_destination_row, ADW_TYPE_ACTION_ROW)

enum {
  PROP_0,
  PROP_FILE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
free_space_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(CsDestinationRow) self = user_data;
  g_autoptr(GFileInfo) info = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *size = NULL;
  g_autofree char *text = NULL;

  info = g_file_query_filesystem_info_finish (G_FILE (object), result, &error);
  if (info == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          gtk_label_set_label (self->free_label, _("Free space unknown"));
          gtk_widget_set_visible (GTK_WIDGET (self->free_label), TRUE);
        }
      return;
    }

  if (!g_file_info_has_attribute (info, G_FILE_ATTRIBUTE_FILESYSTEM_FREE))
    {
      gtk_widget_set_visible (GTK_WIDGET (self->free_label), FALSE);
      return;
    }

  size = _cs_format_bytes (g_file_info_get_attribute_uint64 (info,
                                                             G_FILE_ATTRIBUTE_FILESYSTEM_FREE));
  /* Translators: free space on the destination, like "120 GB free" */
  text = g_strdup_printf (_("%s free"), size);
  gtk_label_set_label (self->free_label, text);
  gtk_widget_set_visible (GTK_WIDGET (self->free_label), TRUE);
}

static void
cs_destination_row_show_path (CsDestinationRow *self)
{
  g_autofree char *parse_name = g_file_get_parse_name (self->file);
  g_autofree char *display = NULL;
  g_autofree char *subtitle = NULL;

  if (_cs_file_is_smb_url (self->file))
    {
      display = _cs_display_file (self->file);
      /* Translators: under a destination on an SMB share nobody mounted,
       * like "nas/photos/2024", then this */
      subtitle = g_strdup_printf (_("%s\nSMB share, reached at the server directly"), display);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (self), subtitle);
      return;
    }

  display = _cs_display_path (parse_name);
  if (self->route != ROUTE_NONE)
    {
      /* The share's name, not gvfsd-fuse's folder of it. */
      g_autofree char *plain = g_strdup (self->share_name);

      if (self->route == ROUTE_DIRECT)
        /* Translators: under a folder on an SMB share GNOME Files mounted,
         * like "nas/photos/2024", then this; %.1f× is a figure like "2.4×" */
        display = g_strdup_printf (_("%s\nSMB share: Copyscope talks to the server directly, "
                                     "measured %.1f× as fast for small files as through the mount"),
                                   plain, DIRECT_SPEEDUP);
      else if (self->route == ROUTE_MOUNT)
        /* Translators: likewise, when Copyscope could not log in itself;
         * the last %s is the server's answer */
        display = g_strdup_printf (_("%s\nSMB share: through GNOME's mount, slower for small "
                                     "files; Copyscope could not log in itself (%s)"),
                                   plain, self->route_why);
      else
        /* Translators: likewise, while Copyscope tries to log in */
        display = g_strdup_printf (_("%s\nSMB share: trying to reach the server directly…"), plain);
    }
  if (self->blocker != NULL)
    {
      g_autofree char *blocker = g_file_get_parse_name (self->blocker);
      g_autofree char *blocker_display = _cs_display_path (blocker);

      /* Translators: under a destination that cannot be made, a file
       * standing where one of its folders should be */
      subtitle = g_strdup_printf (_("%s\nCannot be made: %s is a file"), display, blocker_display);
    }
  else if (self->missing && self->missing_above > 0)
    /* Translators: under a destination that does not exist yet, nor do
     * some of the folders that should contain it */
    subtitle = g_strdup_printf (ngettext ("%s\nNot there yet: the copy makes this folder and %u folder above it",
                                          "%s\nNot there yet: the copy makes this folder and %u folders above it",
                                          self->missing_above),
                                display, self->missing_above);
  else if (self->missing)
    /* Translators: under a destination that does not exist yet */
    subtitle = g_strdup_printf (_("%s\nNot there yet: the copy makes this folder"), display);
  else
    subtitle = g_steal_pointer (&display);

  adw_action_row_set_subtitle (ADW_ACTION_ROW (self), subtitle);
}

static void
exists_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(CsDestinationRow) self = user_data;
  g_autoptr(GFileInfo) info = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) parent = NULL;
  GFile *file = G_FILE (object);

  info = g_file_query_info_finish (file, result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  /* Not there: the copy would make it; its free space is its parent's. */
  if ((g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND) ||
       g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY)) &&
      (parent = g_file_get_parent (file)) != NULL)
    {
      if (g_file_equal (file, self->file))
        self->missing = TRUE;
      else
        self->missing_above++;
      cs_destination_row_show_path (self);
      g_file_query_info_async (parent, G_FILE_ATTRIBUTE_STANDARD_TYPE, G_FILE_QUERY_INFO_NONE,
                               G_PRIORITY_DEFAULT, self->cancellable, exists_cb,
                               g_object_ref (self));
      return;
    }

  /* The nearest that exists: no folder can be made in a file. */
  if (self->missing && info != NULL && g_file_info_get_file_type (info) != G_FILE_TYPE_DIRECTORY)
    {
      g_set_object (&self->blocker, file);
      cs_destination_row_show_path (self);
      gtk_widget_set_visible (GTK_WIDGET (self->free_label), FALSE);
      return;
    }

  g_file_query_filesystem_info_async (file, G_FILE_ATTRIBUTE_FILESYSTEM_FREE,
                                      G_PRIORITY_DEFAULT, self->cancellable,
                                      free_space_cb, g_object_ref (self));
}

static void
route_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(CsDestinationRow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (cs_smb_log_in_finish (result, &error))
    self->route = ROUTE_DIRECT;
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  else
    {
      self->route = ROUTE_MOUNT;
      g_free (self->route_why);
      self->route_why = g_strdup (error->message);
    }
  cs_destination_row_show_path (self);
}

/* Tries the login a copy there would, to say which way it goes. */
static void
find_route (CsDestinationRow *self)
{
  g_autofree char *path = g_file_get_path (self->file);
  g_autoptr(CsSmbLocation) share = path != NULL ? cs_smb_location_parse (path) : NULL;

  if (share == NULL)
    return;
  self->share_name = g_strdup_printf ("%s/%s%s%s", share->server, share->share,
                                      share->path[0] != '\0' ? "/" : "", share->path);
  self->route = ROUTE_ASKING;
  cs_smb_log_in_async (path, NULL, NULL, NULL, self->cancellable, route_cb, g_object_ref (self));
}

static void
cs_destination_row_update (CsDestinationRow *self)
{
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->missing = FALSE;
  self->missing_above = 0;
  g_clear_object (&self->blocker);
  self->route = ROUTE_NONE;
  g_clear_pointer (&self->share_name, g_free);
  g_clear_pointer (&self->route_why, g_free);

  if (self->file == NULL)
    {
      adw_action_row_set_subtitle (ADW_ACTION_ROW (self), _("Choose a folder, or drop one here"));
      gtk_widget_set_visible (GTK_WIDGET (self->free_label), FALSE);
      return;
    }

  cs_destination_row_show_path (self);

  /* GIO knows nothing of a share nobody mounted; the engine reaches it,
   * and says nothing of its free space before the copy. */
  if (_cs_file_is_smb_url (self->file))
    {
      gtk_label_set_label (self->free_label, _("Free space unknown"));
      gtk_widget_set_visible (GTK_WIDGET (self->free_label), TRUE);
      return;
    }

  self->cancellable = g_cancellable_new ();
  find_route (self);
  cs_destination_row_show_path (self);
  g_file_query_info_async (self->file, G_FILE_ATTRIBUTE_STANDARD_TYPE, G_FILE_QUERY_INFO_NONE,
                           G_PRIORITY_DEFAULT, self->cancellable, exists_cb, g_object_ref (self));
}

static gboolean
drop_cb (CsDestinationRow *self,
         const GValue     *value,
         double            x,
         double            y,
         GtkDropTarget    *target)
{
  GSList *files;
  GFile *file;

  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;

  files = g_value_get_boxed (value);
  if (files == NULL || files->next != NULL)
    return FALSE;

  file = files->data;
  /* A share nobody mounted is known to be a folder only once logged in. */
  if (!_cs_file_is_smb_url (file)
      && g_file_query_file_type (file, G_FILE_QUERY_INFO_NONE, NULL) != G_FILE_TYPE_DIRECTORY)
    return FALSE;

  cs_destination_row_set_file (self, file);

  return TRUE;
}

static void
cs_destination_row_dispose (GObject *object)
{
  CsDestinationRow *self = CS_DESTINATION_ROW (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (cs_destination_row_parent_class)->dispose (object);
}

static void
cs_destination_row_finalize (GObject *object)
{
  CsDestinationRow *self = CS_DESTINATION_ROW (object);

  g_clear_object (&self->file);
  g_clear_object (&self->blocker);
  g_free (self->share_name);
  g_free (self->route_why);

  G_OBJECT_CLASS (cs_destination_row_parent_class)->finalize (object);
}

static void
cs_destination_row_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  CsDestinationRow *self = CS_DESTINATION_ROW (object);

  switch (prop_id)
    {
    case PROP_FILE:
      g_value_set_object (value, self->file);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cs_destination_row_set_property (GObject      *object,
                                 guint         prop_id,
                                 const GValue *value,
                                 GParamSpec   *pspec)
{
  CsDestinationRow *self = CS_DESTINATION_ROW (object);

  switch (prop_id)
    {
    case PROP_FILE:
      cs_destination_row_set_file (self, g_value_get_object (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cs_destination_row_class_init (CsDestinationRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cs_destination_row_dispose;
  object_class->finalize = cs_destination_row_finalize;
  object_class->get_property = cs_destination_row_get_property;
  object_class->set_property = cs_destination_row_set_property;

  properties[PROP_FILE] =
    g_param_spec_object ("file", NULL, NULL,
                         G_TYPE_FILE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-destination-row.ui");
  gtk_widget_class_bind_template_child (widget_class, CsDestinationRow, free_label);
  gtk_widget_class_bind_template_child (widget_class, CsDestinationRow, choose_button);
}

static void
cs_destination_row_init (CsDestinationRow *self)
{
  GtkDropTarget *target;

  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_widget_add_css_class (GTK_WIDGET (self), "destination-row");

  target = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect_object (target, "drop", G_CALLBACK (drop_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (target));
}

GFile *
cs_destination_row_get_file (CsDestinationRow *self)
{
  g_return_val_if_fail (CS_IS_DESTINATION_ROW (self), NULL);

  return self->file;
}

/* Whether the destination is not there yet, so that the copy makes it; known
 * a moment after it is set. */
gboolean
cs_destination_row_get_missing (CsDestinationRow *self)
{
  g_return_val_if_fail (CS_IS_DESTINATION_ROW (self), FALSE);

  return self->missing;
}

void
cs_destination_row_set_file (CsDestinationRow *self,
                             GFile            *file)
{
  g_autoptr(GFile) kept = NULL;

  g_return_if_fail (CS_IS_DESTINATION_ROW (self));
  g_return_if_fail (file == NULL || G_IS_FILE (file));

  /* A password typed into an smb:// URL goes to the login; the row, and
   * what the window keeps of it, hold the URL without it. */
  if (file != NULL)
    file = kept = _cs_file_take_password (file);
  if (self->file == file || (self->file != NULL && file != NULL && g_file_equal (self->file, file)))
    return;

  g_set_object (&self->file, file);
  cs_destination_row_update (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FILE]);
}
