/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* What the window asks of the session: no suspend or logout while it copies,
 * a notification when a copy ends unwatched, and the file manager to show a
 * folder. Tests replace these hooks. */
typedef struct {
  guint (*inhibit)           (GtkWindow     *window,
                              const char    *reason);   /* 0: refused */
  void  (*uninhibit)         (GtkWindow     *window,
                              guint          cookie);
  void  (*send_notification) (GtkWindow     *window,
                              const char    *id,
                              GNotification *notification);
  void  (*show_uri)          (GtkWindow     *window,
                              const char    *uri);
} CsWindowSession;

/* cs-window.c; NULL puts the session's own hooks back */
void _cs_window_set_session (const CsWindowSession *hooks);

G_END_DECLS
