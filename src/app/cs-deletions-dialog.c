/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <glib/gi18n.h>

#include "cs-deletions-dialog.h"
#include "cs-format.h"

/* "3 files (1.2 MB) and 1 folder": what the mirror would delete. */
static char *
describe_counts (CsDeletions *deletions)
{
  guint64 n_files = cs_deletions_get_n_files (deletions);
  guint64 n_dirs = cs_deletions_get_n_dirs (deletions);
  g_autofree char *files_count = _cs_format_count (n_files);
  g_autofree char *dirs_count = _cs_format_count (n_dirs);
  g_autofree char *bytes = _cs_format_bytes (cs_deletions_get_bytes (deletions));
  g_autofree char *files = NULL;
  g_autofree char *dirs = NULL;

  /* Translators: files a mirror would delete and their size, like "3 files (1.2 MB)" */
  files = g_strdup_printf (ngettext ("%s file (%s)", "%s files (%s)", (gulong) n_files),
                           files_count, bytes);
  /* Translators: folders a mirror would delete, like "2 folders" */
  dirs = g_strdup_printf (ngettext ("%s folder", "%s folders", (gulong) n_dirs), dirs_count);

  if (n_dirs == 0)
    return g_steal_pointer (&files);
  if (n_files == 0)
    return g_steal_pointer (&dirs);
  /* Translators: like "3 files (1.2 MB) and 2 folders" */
  return g_strdup_printf (_("%s and %s"), files, dirs);
}

/* The entry's place in the destination, as the user knows it. */
static char *
display_path (GFile      *root,
              const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *relative = g_file_get_relative_path (root, file);

  return g_filename_display_name (relative != NULL ? relative : path);
}

static GtkWidget *
make_row (GFile       *root,
          CsDeletions *deletions,
          guint        index)
{
  gboolean is_dir = cs_deletions_get_is_dir (deletions, index);
  g_autofree char *name = display_path (root, cs_deletions_get_path (deletions, index));
  AdwActionRow *row = ADW_ACTION_ROW (adw_action_row_new ());

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), name);
  adw_action_row_set_title_lines (row, 1);
  adw_action_row_set_icon_name (row, is_dir ? "folder-symbolic" : "text-x-generic-symbolic");
  if (!is_dir)
    {
      g_autofree char *size = _cs_format_bytes (cs_deletions_get_size (deletions, index));
      GtkWidget *label = gtk_label_new (size);

      gtk_widget_add_css_class (label, "dim-label");
      gtk_widget_add_css_class (label, "numeric");
      adw_action_row_add_suffix (row, label);
    }

  return GTK_WIDGET (row);
}

/* Whatever ends the dialog, an answer or the window going, answers: the
 * first answer counts, so after "delete" this keeps nothing back. */
static void
answer_keep (gpointer data)
{
  CsDeletions *deletions = data;

  cs_deletions_answer (deletions, FALSE);
  g_object_unref (deletions);
}

static void
response_cb (AdwMessageDialog *dialog,
             const char       *response,
             CsDeletions      *deletions)
{
  cs_deletions_answer (deletions, g_strcmp0 (response, "delete") == 0);
}

AdwMessageDialog *
_cs_deletions_dialog_new (GtkWindow   *parent,
                          CsDeletions *deletions,
                          const char  *destination)
{
  g_autoptr(GtkBuilder) builder = NULL;
  g_autoptr(GFile) root = g_file_new_for_path (destination);
  g_autofree char *counts = describe_counts (deletions);
  g_autofree char *folder = _cs_display_name (root);
  g_autofree char *limit = NULL;
  g_autofree char *body = NULL;
  AdwMessageDialog *dialog;
  GtkListBox *list;
  guint64 total = cs_deletions_get_n_files (deletions) + cs_deletions_get_n_dirs (deletions);
  guint n_listed = cs_deletions_get_n_listed (deletions);
  gint64 max = cs_deletions_get_max (deletions);

  g_return_val_if_fail (CS_IS_DELETIONS (deletions), NULL);

  builder = gtk_builder_new_from_resource ("/io/github/copyscope/Copyscope/ui/cs-deletions-dialog.ui");
  dialog = ADW_MESSAGE_DIALOG (gtk_builder_get_object (builder, "dialog"));
  list = GTK_LIST_BOX (gtk_builder_get_object (builder, "list"));

  if (max >= 0)
    {
      g_autofree char *max_text = _cs_format_count ((guint64) max);

      /* Translators: the mirror's safety limit (the CLI's --max-delete), like "1,000" */
      limit = g_strdup_printf (ngettext ("A mirror deletes at most %s file or folder: "
                                         "beyond that it deletes nothing, so that a wrong "
                                         "source cannot empty the destination.",
                                         "A mirror deletes at most %s files and folders: "
                                         "beyond that it deletes nothing, so that a wrong "
                                         "source cannot empty the destination.",
                                         (gulong) max),
                               max_text);
    }
  /* Translators: the mirror's question; the first %s is like "3 files (1.2 MB) and
   * 2 folders", the second the destination folder's name */
  body = g_strdup_printf (_("Everything is copied. To match the sources, the mirror would "
                            "delete %s from “%s”. Nothing is deleted unless you say so.%s%s"),
                          counts, folder, limit != NULL ? "\n\n" : "", limit != NULL ? limit : "");
  adw_message_dialog_set_body (dialog, body);

  for (guint i = 0; i < n_listed; i++)
    gtk_list_box_append (list, make_row (root, deletions, i));
  if (total > n_listed)
    {
      GtkLabel *more = GTK_LABEL (gtk_builder_get_object (builder, "more_label"));
      g_autofree char *count = _cs_format_count (total - n_listed);
      g_autofree char *text = NULL;

      /* Translators: below the list of what a mirror would delete */
      text = g_strdup_printf (ngettext ("and %s more", "and %s more", (gulong) (total - n_listed)),
                              count);
      gtk_label_set_label (more, text);
      gtk_widget_set_visible (GTK_WIDGET (more), TRUE);
    }

  g_object_set_data_full (G_OBJECT (dialog), "cs-deletions", g_object_ref (deletions), answer_keep);
  g_signal_connect (dialog, "response", G_CALLBACK (response_cb), deletions);
  gtk_window_set_transient_for (GTK_WINDOW (dialog), parent);

  return dialog;
}
