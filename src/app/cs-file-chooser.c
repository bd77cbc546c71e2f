/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <glib/gi18n.h>

#include "cs-file-chooser.h"

/*
 * A GTask per question. Its result is a GListModel of GFile; a chooser the
 * user dismissed, or one cancelled, ends in G_IO_ERROR_CANCELLED, whatever
 * the GTK version calls it. The task holds no reference on the window: a
 * window that goes cancels its choosers (the task then reports that, whatever
 * was chosen), and a reference would keep it from going.
 */

static void
return_files (GTask      *task,
              GListModel *files,
              GError     *error)
{
  if (files != NULL)
    g_task_return_pointer (task, files, g_object_unref);
#if GTK_CHECK_VERSION (4, 10, 0)
  else if (error == NULL || error->domain == GTK_DIALOG_ERROR)
#else
  else if (error == NULL)
#endif
    {
      g_clear_error (&error);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Dismissed");
    }
  else
    g_task_return_error (task, error);
}

#if GTK_CHECK_VERSION (4, 10, 0)

static GListModel *
single_file (GFile *file)
{
  GListStore *store;

  if (file == NULL)
    return NULL;

  store = g_list_store_new (G_TYPE_FILE);
  g_list_store_append (store, file);
  g_object_unref (file);

  return G_LIST_MODEL (store);
}

static void
dialog_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GtkFileDialog *dialog = GTK_FILE_DIALOG (object);
  GListModel *files = NULL;
  GError *error = NULL;

  switch ((CsChooseMode) GPOINTER_TO_INT (g_task_get_task_data (task)))
    {
    case CS_CHOOSE_FILES:
      files = gtk_file_dialog_open_multiple_finish (dialog, result, &error);
      break;
    case CS_CHOOSE_FOLDERS:
      files = gtk_file_dialog_select_multiple_folders_finish (dialog, result, &error);
      break;
    case CS_CHOOSE_FOLDER:
      files = single_file (gtk_file_dialog_select_folder_finish (dialog, result, &error));
      break;
    case CS_CHOOSE_SAVE:
      files = single_file (gtk_file_dialog_save_finish (dialog, result, &error));
      break;
    default:
      g_assert_not_reached ();
    }

  return_files (task, files, error);
}

static void
choose (GTask        *task,
        GtkWindow    *parent,
        CsChooseMode  mode,
        const char   *title,
        const char   *accept_label,
        const char   *initial_name,
        GCancellable *cancellable)
{
  g_autoptr(GtkFileDialog) dialog = gtk_file_dialog_new ();

  gtk_file_dialog_set_title (dialog, title);
  gtk_file_dialog_set_modal (dialog, TRUE);
  if (accept_label != NULL)
    gtk_file_dialog_set_accept_label (dialog, accept_label);
  if (initial_name != NULL)
    gtk_file_dialog_set_initial_name (dialog, initial_name);

  switch (mode)
    {
    case CS_CHOOSE_FILES:
      gtk_file_dialog_open_multiple (dialog, parent, cancellable, dialog_done_cb, task);
      break;
    case CS_CHOOSE_FOLDERS:
      gtk_file_dialog_select_multiple_folders (dialog, parent, cancellable, dialog_done_cb, task);
      break;
    case CS_CHOOSE_FOLDER:
      gtk_file_dialog_select_folder (dialog, parent, cancellable, dialog_done_cb, task);
      break;
    case CS_CHOOSE_SAVE:
      gtk_file_dialog_save (dialog, parent, cancellable, dialog_done_cb, task);
      break;
    default:
      g_assert_not_reached ();
    }
}

#else /* GTK < 4.10 */

typedef struct
{
  GtkNativeDialog *native;
  gulong           cancelled_id;
  GListModel      *files;
} NativeData;

static void
native_data_free (gpointer data)
{
  NativeData *native_data = data;

  gtk_native_dialog_destroy (native_data->native);
  g_object_unref (native_data->native);
  g_clear_object (&native_data->files);
  g_free (native_data);
}

/* main thread: after the dialog's answer, outside its signal, since the
 * task's end destroys the dialog */
static gboolean
native_finish_cb (gpointer user_data)
{
  GTask *task = user_data;
  NativeData *data = g_task_get_task_data (task);

  return_files (task, g_steal_pointer (&data->files), NULL);
  g_object_unref (task);

  return G_SOURCE_REMOVE;
}

static void
native_response_cb (GtkNativeDialog *native,
                    int              response,
                    GTask           *task)
{
  GCancellable *cancellable = g_task_get_cancellable (task);
  NativeData *data = g_task_get_task_data (task);

  g_signal_handlers_disconnect_by_data (native, task);
  if (data->cancelled_id != 0)
    g_signal_handler_disconnect (cancellable, data->cancelled_id);
  data->cancelled_id = 0;

  if (response == GTK_RESPONSE_ACCEPT)
    data->files = gtk_file_chooser_get_files (GTK_FILE_CHOOSER (native));
  g_idle_add_full (G_PRIORITY_DEFAULT, native_finish_cb, task, NULL);
}

/* main thread: the cancellable is cancelled there, like the chooser is shown.
 * The chooser goes at once: its window may be going too, and GTK's own
 * dialog must not outlive the window it is transient for. */
static void
native_cancelled_cb (GCancellable *cancellable,
                     GTask        *task)
{
  NativeData *data = g_task_get_task_data (task);

  native_response_cb (data->native, GTK_RESPONSE_CANCEL, task);
  gtk_native_dialog_destroy (data->native);
}

static void
choose (GTask        *task,
        GtkWindow    *parent,
        CsChooseMode  mode,
        const char   *title,
        const char   *accept_label,
        const char   *initial_name,
        GCancellable *cancellable)
{
  GtkFileChooserAction action = GTK_FILE_CHOOSER_ACTION_OPEN;
  NativeData *data = g_new0 (NativeData, 1);
  GtkFileChooserNative *native;

  if (mode == CS_CHOOSE_FOLDERS || mode == CS_CHOOSE_FOLDER)
    action = GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER;
  else if (mode == CS_CHOOSE_SAVE)
    action = GTK_FILE_CHOOSER_ACTION_SAVE;

  native = gtk_file_chooser_native_new (title, parent, action, accept_label, NULL);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  gtk_file_chooser_set_select_multiple (GTK_FILE_CHOOSER (native),
                                        mode == CS_CHOOSE_FILES || mode == CS_CHOOSE_FOLDERS);
  if (initial_name != NULL)
    gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (native), initial_name);

  data->native = GTK_NATIVE_DIALOG (native);
  g_task_set_task_data (task, data, native_data_free);

  g_signal_connect (native, "response", G_CALLBACK (native_response_cb), task);
  if (cancellable != NULL)
    data->cancelled_id = g_signal_connect (cancellable, "cancelled",
                                           G_CALLBACK (native_cancelled_cb), task);
  gtk_native_dialog_show (data->native);
}

#endif

/*
 * Asks for files or folders as @mode says, with @title and, when not NULL,
 * @accept_label on the button that chooses. @initial_name suggests the name
 * to save as.
 */
void
_cs_choose_async (GtkWindow           *parent,
                  CsChooseMode         mode,
                  const char          *title,
                  const char          *accept_label,
                  const char          *initial_name,
                  GCancellable        *cancellable,
                  GAsyncReadyCallback  callback,
                  gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (parent == NULL || GTK_IS_WINDOW (parent));
  g_return_if_fail (mode <= CS_CHOOSE_SAVE);
  g_return_if_fail (title != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, _cs_choose_async);
  if (g_task_return_error_if_cancelled (task))
    {
      g_object_unref (task);
      return;
    }

#if GTK_CHECK_VERSION (4, 10, 0)
  g_task_set_task_data (task, GINT_TO_POINTER (mode), NULL);
#endif
  /* The task's reference goes to the dialog's answer. */
  choose (task, parent, mode, title, accept_label, initial_name, cancellable);
}

/* The files chosen; NULL with G_IO_ERROR_CANCELLED when none were. */
GListModel *
_cs_choose_finish (GAsyncResult  *result,
                   GError       **error)
{
  g_return_val_if_fail (G_IS_TASK (result), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == _cs_choose_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* The first file chosen, for the modes that choose one. */
GFile *
_cs_choose_file_finish (GAsyncResult  *result,
                        GError       **error)
{
  g_autoptr(GListModel) files = _cs_choose_finish (result, error);

  if (files == NULL)
    return NULL;
  if (g_list_model_get_n_items (files) == 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Nothing chosen");
      return NULL;
    }

  return g_list_model_get_item (files, 0);
}

typedef struct
{
  GtkWidget          *owner;    /* alive unless the chooser was cancelled */
  CsFolderChosenFunc  chosen;
} FolderData;

static void
folder_chosen_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  FolderData *data = user_data;
  g_autoptr(GFile) folder = _cs_choose_file_finish (result, NULL);

  if (folder != NULL)
    data->chosen (data->owner, folder);

  g_free (data);
}

/* Asks for one folder for @owner, which gets it through @chosen unless the
 * user changed their mind. @owner cancels @cancellable when it goes. */
void
_cs_choose_folder (GtkWidget          *owner,
                   const char         *title,
                   GCancellable       *cancellable,
                   CsFolderChosenFunc  chosen)
{
  GtkWidget *root;
  FolderData *data;

  g_return_if_fail (GTK_IS_WIDGET (owner));
  g_return_if_fail (chosen != NULL);

  root = GTK_WIDGET (gtk_widget_get_root (owner));
  data = g_new0 (FolderData, 1);
  data->owner = owner;
  data->chosen = chosen;

  _cs_choose_async (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL, CS_CHOOSE_FOLDER, title,
                    _("_Select"), NULL, cancellable, folder_chosen_cb, data);
}
