/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <stdatomic.h>
#include <string.h>

#include <glib/gi18n.h>

#include "cs-format.h"
#include "cs-source-row.h"

/*
 * One source: its name, and once the background scan is done its size and file
 * count. The scan runs in a GTask thread with plain GIO; the thread writes only
 * the atomics in ScanData, and a main-thread timeout shows them while it runs.
 * The task holds a reference on the row, so the row (which owns ScanData) lives
 * until the thread is done with it.
 */

typedef struct
{
  GFile            *file;
  _Atomic guint64   n_files;
  _Atomic guint64   n_dirs;
  _Atomic guint64   n_bytes;
  GFileType         type;     /* written by the thread before it returns */
  char             *link_target;  /* likewise, for a symbolic link */
} ScanData;

struct _CsSourceRow
{
  AdwActionRow  parent_instance;

  /* Template widgets */
  GtkImage     *icon;
  GtkSpinner   *spinner;
  GtkButton    *remove_button;
  GtkMenuButton *rename_button;
  GtkPopover   *rename_popover;
  GtkEntry     *rename_entry;

  /* Owned */
  GFile        *file;
  char         *counts;     /* what the scan found, or why it could not */
  char         *clash;      /* another source of the same name, said; or NULL */
  char         *copy_as;    /* the name at the destination, when not the source's */
  const char   *icon_name;  /* what the item is */
  GCancellable *cancellable;
  ScanData     *scan;
  guint         poll_id;

  gboolean      scanned;
  gboolean      missing;
};

G_DEFINE_FINAL_TYPE (CsSourceRow, cs_source_row, ADW_TYPE_ACTION_ROW)

enum {
  PROP_0,
  PROP_FILE,
  PROP_SCANNED,
  N_PROPS
};

enum {
  REMOVE,
  RENAME,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void
scan_data_free (ScanData *scan)
{
  g_clear_object (&scan->file);
  g_free (scan->link_target);
  g_free (scan);
}

#define SCAN_ATTRIBUTES G_FILE_ATTRIBUTE_STANDARD_NAME "," \
                        G_FILE_ATTRIBUTE_STANDARD_TYPE "," \
                        G_FILE_ATTRIBUTE_STANDARD_SIZE "," \
                        G_FILE_ATTRIBUTE_STANDARD_SYMLINK_TARGET

/* worker thread */
static void
scan_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  ScanData *scan = task_data;
  g_autoptr(GPtrArray) stack = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GFileInfo) info = NULL;
  g_autoptr(GError) error = NULL;

  info = g_file_query_info (scan->file, SCAN_ATTRIBUTES,
                            G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, cancellable, &error);
  if (info == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  scan->type = g_file_info_get_file_type (info);
  if (scan->type == G_FILE_TYPE_SYMBOLIC_LINK)
    scan->link_target = g_strdup (g_file_info_get_symlink_target (info));
  if (scan->type != G_FILE_TYPE_DIRECTORY)
    {
      atomic_store (&scan->n_files, 1);
      atomic_store (&scan->n_bytes, (guint64) g_file_info_get_size (info));
      g_task_return_boolean (task, TRUE);
      return;
    }

  /* An explicit stack: deep trees must not grow the thread's own stack. */
  g_ptr_array_add (stack, g_object_ref (scan->file));

  while (stack->len > 0)
    {
      g_autoptr(GFile) dir = g_ptr_array_steal_index (stack, stack->len - 1);
      g_autoptr(GFileEnumerator) enumerator = NULL;
      guint64 files = 0, bytes = 0, dirs = 1;

      enumerator = g_file_enumerate_children (dir, SCAN_ATTRIBUTES,
                                              G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS,
                                              cancellable, &error);
      if (enumerator == NULL)
        {
          if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            {
              g_task_return_error (task, g_steal_pointer (&error));
              return;
            }
          /* An unreadable folder is the copy's to report; the estimate goes on. */
          g_clear_error (&error);
          continue;
        }

      for (;;)
        {
          GFileInfo *child_info = NULL;
          GFile *child = NULL;

          if (!g_file_enumerator_iterate (enumerator, &child_info, &child, cancellable, &error))
            {
              if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
                {
                  g_task_return_error (task, g_steal_pointer (&error));
                  return;
                }
              g_clear_error (&error);
              break;
            }
          if (child_info == NULL)
            break;

          if (g_file_info_get_file_type (child_info) == G_FILE_TYPE_DIRECTORY)
            g_ptr_array_add (stack, g_object_ref (child));
          else
            {
              files++;
              bytes += (guint64) g_file_info_get_size (child_info);
            }
        }

      atomic_fetch_add (&scan->n_files, files);
      atomic_fetch_add (&scan->n_bytes, bytes);
      atomic_fetch_add (&scan->n_dirs, dirs);
    }

  g_task_return_boolean (task, TRUE);
}

/* The subtitle: what the item holds, the name it is copied under, and
 * another source of the same name, a line each. */
static void
cs_source_row_update_subtitle (CsSourceRow *self)
{
  g_autoptr(GString) text = g_string_new (self->counts);
  guint lines = 1;

  if (self->copy_as != NULL)
    {
      /* Translators: under a source the user renamed, like "Copied as “IMG_0001 (2).JPG”" */
      g_string_append_c (text, '\n');
      g_string_append_printf (text, _("Copied as “%s”"), self->copy_as);
      lines++;
    }
  if (self->clash != NULL)
    {
      g_string_append_c (text, '\n');
      g_string_append (text, self->clash);
      lines++;
    }
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (self), lines > 1 ? 0 : 1);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self), text->str);

  gtk_image_set_from_icon_name (self->icon, self->clash != NULL ? "dialog-warning-symbolic"
                                                               : self->icon_name);
  if (self->clash != NULL || g_strcmp0 (self->icon_name, "dialog-warning-symbolic") == 0)
    gtk_widget_add_css_class (GTK_WIDGET (self->icon), "warning");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->icon), "warning");
  gtk_widget_set_visible (GTK_WIDGET (self->rename_button),
                          self->clash != NULL || self->copy_as != NULL);
}

static void
cs_source_row_set_counts (CsSourceRow *self,
                          char        *counts)
{
  g_free (self->counts);
  self->counts = counts;
  cs_source_row_update_subtitle (self);
}

static void
cs_source_row_show_counts (CsSourceRow *self,
                           gboolean     final)
{
  guint64 files = atomic_load (&self->scan->n_files);
  guint64 bytes = atomic_load (&self->scan->n_bytes);
  g_autofree char *size = _cs_format_bytes (bytes);
  g_autofree char *count = _cs_format_count (files);
  g_autofree char *subtitle = NULL;

  if (final)
    /* Translators: size and number of files of a source, like "1.2 GB · 345 files" */
    subtitle = g_strdup_printf (ngettext ("%s · %s file", "%s · %s files", (gulong) files),
                                size, count);
  else
    /* Translators: shown while a folder is being measured, like "Counting… 1.2 GB · 345 files" */
    subtitle = g_strdup_printf (ngettext ("Counting… %s · %s file", "Counting… %s · %s files",
                                          (gulong) files),
                                size, count);

  cs_source_row_set_counts (self, g_steal_pointer (&subtitle));
}

static gboolean
poll_cb (gpointer user_data)
{
  CsSourceRow *self = user_data;

  cs_source_row_show_counts (self, FALSE);

  return G_SOURCE_CONTINUE;
}

static void
scan_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(CsSourceRow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;

      g_clear_handle_id (&self->poll_id, g_source_remove);
      gtk_spinner_stop (self->spinner);
      gtk_widget_set_visible (GTK_WIDGET (self->spinner), FALSE);

      self->missing = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
      self->icon_name = "dialog-warning-symbolic";
      cs_source_row_set_counts (self, g_strdup (error->message));
    }
  else
    {
      g_clear_handle_id (&self->poll_id, g_source_remove);
      gtk_spinner_stop (self->spinner);
      gtk_widget_set_visible (GTK_WIDGET (self->spinner), FALSE);

      if (self->scan->type == G_FILE_TYPE_DIRECTORY)
        self->icon_name = "folder-symbolic";
      else if (self->scan->type == G_FILE_TYPE_SYMBOLIC_LINK)
        self->icon_name = "emblem-symbolic-link-symbolic";

      /* A link is copied as a link, as cp -a does: what it points to is
       * what the user should see, not the few bytes of the link. */
      if (self->scan->type == G_FILE_TYPE_SYMBOLIC_LINK && self->scan->link_target != NULL)
        {
          g_autofree char *target = g_filename_display_name (self->scan->link_target);

          /* Translators: under a dropped symbolic link, like "Link to “photos/2024”, copied as a link" */
          cs_source_row_set_counts (self, g_strdup_printf (_("Link to “%s”, copied as a link"),
                                                           target));
        }
      else
        cs_source_row_show_counts (self, TRUE);
    }

  self->scanned = TRUE;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SCANNED]);
}

static void
remove_clicked_cb (CsSourceRow *self)
{
  g_signal_emit (self, signals[REMOVE], 0);
}

/* "IMG_0001.JPG" → "IMG_0001 (2).JPG": a name the user can take as it is. */
static char *
suggested_name (const char *name)
{
  const char *dot = strrchr (name, '.');

  if (dot == NULL || dot == name)
    return g_strdup_printf ("%s (2)", name);
  return g_strdup_printf ("%.*s (2)%s", (int) (dot - name), name, dot);
}

static void
rename_popover_show_cb (CsSourceRow *self)
{
  g_autofree char *name = g_file_get_basename (self->file);
  g_autofree char *display = NULL;
  g_autofree char *suggestion = NULL;

  display = g_filename_display_name (self->copy_as != NULL ? self->copy_as : name);
  suggestion = self->copy_as != NULL ? g_strdup (display) : suggested_name (display);
  gtk_editable_set_text (GTK_EDITABLE (self->rename_entry), suggestion);
  gtk_widget_remove_css_class (GTK_WIDGET (self->rename_entry), "error");
  gtk_widget_grab_focus (GTK_WIDGET (self->rename_entry));
}

static void
rename_confirm_cb (CsSourceRow *self)
{
  g_autofree char *text = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->rename_entry))));
  g_autofree char *name = NULL;

  /* One name in the destination folder, never a path. */
  if (*text == '\0' || strchr (text, '/') != NULL || strcmp (text, ".") == 0
      || strcmp (text, "..") == 0)
    {
      gtk_widget_add_css_class (GTK_WIDGET (self->rename_entry), "error");
      gtk_widget_error_bell (GTK_WIDGET (self->rename_entry));
      return;
    }
  name = g_filename_from_utf8 (text, -1, NULL, NULL, NULL);
  if (name == NULL)
    return;
  gtk_popover_popdown (self->rename_popover);
  g_signal_emit (self, signals[RENAME], 0, name);
}

static void
cs_source_row_constructed (GObject *object)
{
  CsSourceRow *self = CS_SOURCE_ROW (object);
  g_autoptr(GTask) task = NULL;
  g_autofree char *name = NULL;
  g_autofree char *parse_name = NULL;

  G_OBJECT_CLASS (cs_source_row_parent_class)->constructed (object);

  g_assert (self->file != NULL);

  name = _cs_display_name (self->file);
  parse_name = _cs_display_file (self->file);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self), name);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self), parse_name);
  self->icon_name = "text-x-generic-symbolic";
  cs_source_row_set_counts (self, g_strdup (_("Counting…")));

  self->scan = g_new0 (ScanData, 1);
  self->scan->file = g_object_ref (self->file);
  self->scan->type = G_FILE_TYPE_UNKNOWN;
  self->cancellable = g_cancellable_new ();

  /* GIO cannot read a share nobody mounted; the copy's own count will. */
  if (_cs_file_is_smb_url (self->file))
    {
      g_autofree char *where = g_path_get_dirname (parse_name);
      g_autofree char *subtitle = NULL;

      /* Translators: under a source on an SMB share nobody mounted, like
       * "On nas/photos; counted when the copy starts" */
      subtitle = g_strdup_printf (_("On %s; counted when the copy starts"), where);
      cs_source_row_set_counts (self, g_steal_pointer (&subtitle));
      gtk_widget_set_visible (GTK_WIDGET (self->spinner), FALSE);
      self->scanned = TRUE;
      return;
    }

  gtk_spinner_start (self->spinner);

  task = g_task_new (self, self->cancellable, scan_done_cb, g_object_ref (self));
  g_task_set_source_tag (task, cs_source_row_constructed);
  g_task_set_task_data (task, self->scan, NULL);
  g_task_run_in_thread (task, scan_thread);

  self->poll_id = g_timeout_add (500, poll_cb, self);
}

static void
cs_source_row_dispose (GObject *object)
{
  CsSourceRow *self = CS_SOURCE_ROW (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->poll_id, g_source_remove);

  G_OBJECT_CLASS (cs_source_row_parent_class)->dispose (object);
}

static void
cs_source_row_finalize (GObject *object)
{
  CsSourceRow *self = CS_SOURCE_ROW (object);

  g_clear_object (&self->cancellable);
  g_clear_object (&self->file);
  g_clear_pointer (&self->scan, scan_data_free);
  g_clear_pointer (&self->counts, g_free);
  g_clear_pointer (&self->clash, g_free);
  g_clear_pointer (&self->copy_as, g_free);

  G_OBJECT_CLASS (cs_source_row_parent_class)->finalize (object);
}

static void
cs_source_row_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  CsSourceRow *self = CS_SOURCE_ROW (object);

  switch (prop_id)
    {
    case PROP_FILE:
      g_value_set_object (value, self->file);
      break;

    case PROP_SCANNED:
      g_value_set_boolean (value, self->scanned);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cs_source_row_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  CsSourceRow *self = CS_SOURCE_ROW (object);

  switch (prop_id)
    {
    case PROP_FILE:
      self->file = g_value_dup_object (value);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cs_source_row_class_init (CsSourceRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->constructed = cs_source_row_constructed;
  object_class->dispose = cs_source_row_dispose;
  object_class->finalize = cs_source_row_finalize;
  object_class->get_property = cs_source_row_get_property;
  object_class->set_property = cs_source_row_set_property;

  properties[PROP_FILE] =
    g_param_spec_object ("file", NULL, NULL,
                         G_TYPE_FILE,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                         G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  properties[PROP_SCANNED] =
    g_param_spec_boolean ("scanned", NULL, NULL,
                          FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* The row asks; the list that owns the model removes it. */
  signals[REMOVE] =
    g_signal_new ("remove",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  /* The row asks, with the name (in the filename encoding); the list keeps it. */
  signals[RENAME] =
    g_signal_new ("rename",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-source-row.ui");
  gtk_widget_class_bind_template_child (widget_class, CsSourceRow, icon);
  gtk_widget_class_bind_template_child (widget_class, CsSourceRow, rename_button);
  gtk_widget_class_bind_template_child (widget_class, CsSourceRow, rename_popover);
  gtk_widget_class_bind_template_child (widget_class, CsSourceRow, rename_entry);
  gtk_widget_class_bind_template_callback (widget_class, rename_popover_show_cb);
  gtk_widget_class_bind_template_callback (widget_class, rename_confirm_cb);
  gtk_widget_class_bind_template_child (widget_class, CsSourceRow, spinner);
  gtk_widget_class_bind_template_child (widget_class, CsSourceRow, remove_button);
  gtk_widget_class_bind_template_callback (widget_class, remove_clicked_cb);
}

static void
cs_source_row_init (CsSourceRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
cs_source_row_new (GFile *file)
{
  g_return_val_if_fail (G_IS_FILE (file), NULL);

  return g_object_new (CS_TYPE_SOURCE_ROW, "file", file, NULL);
}

GFile *
cs_source_row_get_file (CsSourceRow *self)
{
  g_return_val_if_fail (CS_IS_SOURCE_ROW (self), NULL);

  return self->file;
}

gboolean
cs_source_row_get_scanned (CsSourceRow *self)
{
  g_return_val_if_fail (CS_IS_SOURCE_ROW (self), FALSE);

  return self->scanned;
}

gboolean
cs_source_row_get_missing (CsSourceRow *self)
{
  g_return_val_if_fail (CS_IS_SOURCE_ROW (self), FALSE);

  return self->missing;
}

guint64
cs_source_row_get_n_files (CsSourceRow *self)
{
  g_return_val_if_fail (CS_IS_SOURCE_ROW (self), 0);

  return atomic_load (&self->scan->n_files);
}

/* @message: what another source of the same name means for this one, or NULL. */
void
cs_source_row_set_clash (CsSourceRow *self,
                         const char  *message)
{
  g_return_if_fail (CS_IS_SOURCE_ROW (self));

  if (g_strcmp0 (self->clash, message) == 0)
    return;
  g_free (self->clash);
  self->clash = g_strdup (message);
  cs_source_row_update_subtitle (self);
}

const char *
cs_source_row_get_clash (CsSourceRow *self)
{
  g_return_val_if_fail (CS_IS_SOURCE_ROW (self), NULL);

  return self->clash;
}

/* @name: the name at the destination (filename encoding), or NULL for the source's own. */
void
cs_source_row_set_copy_as (CsSourceRow *self,
                           const char  *name)
{
  g_return_if_fail (CS_IS_SOURCE_ROW (self));

  if (g_strcmp0 (self->copy_as, name) == 0)
    return;
  g_free (self->copy_as);
  self->copy_as = g_strdup (name);
  cs_source_row_update_subtitle (self);
}

const char *
cs_source_row_get_copy_as (CsSourceRow *self)
{
  g_return_val_if_fail (CS_IS_SOURCE_ROW (self), NULL);

  return self->copy_as;
}

/* What a dropped symbolic link points to, once scanned; else NULL. */
const char *
cs_source_row_get_link_target (CsSourceRow *self)
{
  g_return_val_if_fail (CS_IS_SOURCE_ROW (self), NULL);

  return self->scanned ? self->scan->link_target : NULL;
}

guint64
cs_source_row_get_n_bytes (CsSourceRow *self)
{
  g_return_val_if_fail (CS_IS_SOURCE_ROW (self), 0);

  return atomic_load (&self->scan->n_bytes);
}
