/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/*
 * The one file chooser: GtkFileDialog from GTK 4.10 on, GtkFileChooserNative
 * before (Debian 12 has 4.8), behind one _async/_finish pair. main thread.
 */
typedef enum {
  CS_CHOOSE_FILES,     /* one or more files to read */
  CS_CHOOSE_FOLDERS,   /* one or more folders to read */
  CS_CHOOSE_FOLDER,    /* one folder */
  CS_CHOOSE_SAVE,      /* a name to write, suggested by initial_name */
} CsChooseMode;

void        _cs_choose_async       (GtkWindow            *parent,
                                    CsChooseMode          mode,
                                    const char           *title,
                                    const char           *accept_label,
                                    const char           *initial_name,
                                    GCancellable         *cancellable,
                                    GAsyncReadyCallback   callback,
                                    gpointer              user_data);
GListModel *_cs_choose_finish      (GAsyncResult         *result,
                                    GError              **error);
GFile      *_cs_choose_file_finish (GAsyncResult         *result,
                                    GError              **error);

/* main thread: @owner's folder was chosen */
typedef void (*CsFolderChosenFunc) (gpointer owner,
                                    GFile   *folder);

void        _cs_choose_folder      (GtkWidget            *owner,
                                    const char           *title,
                                    GCancellable         *cancellable,
                                    CsFolderChosenFunc    chosen);

G_END_DECLS
