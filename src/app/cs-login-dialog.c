/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <glib/gi18n.h>

#include "cs-login-dialog.h"

/*
 * Who copies to an SMB share the engine could not log in to by itself: a
 * user (the URL's, or the one who logged in here), a domain where the
 * server wants one, a password, and whether to keep it in the keyring. It
 * only asks; the window tries the answer (cs-window-login.c) and, when the
 * server refuses it, asks again with a new dialog saying so.
 */

struct _CsLoginDialog
{
  AdwMessageDialog  parent_instance;

  /* Template widgets */
  AdwEntryRow      *user_row;
  AdwEntryRow      *domain_row;
  AdwEntryRow      *password_row;
  GtkCheckButton   *remember_check;
};

G_DEFINE_FINAL_TYPE (CsLoginDialog, cs_login_dialog, ADW_TYPE_MESSAGE_DIALOG)

static void
cs_login_dialog_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), CS_TYPE_LOGIN_DIALOG);

  G_OBJECT_CLASS (cs_login_dialog_parent_class)->dispose (object);
}

static void
cs_login_dialog_class_init (CsLoginDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cs_login_dialog_dispose;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-login-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, CsLoginDialog, user_row);
  gtk_widget_class_bind_template_child (widget_class, CsLoginDialog, domain_row);
  gtk_widget_class_bind_template_child (widget_class, CsLoginDialog, password_row);
  gtk_widget_class_bind_template_child (widget_class, CsLoginDialog, remember_check);
}

static void
cs_login_dialog_init (CsLoginDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

/*
 * Asks for a login to @location's share, transient for @parent, with
 * @user and @domain filled in; @refusal, when not NULL, says why the last
 * answer did not do.
 */
CsLoginDialog *
cs_login_dialog_new (GtkWindow           *parent,
                     const CsSmbLocation *location,
                     const char          *user,
                     const char          *domain,
                     const char          *refusal)
{
  CsLoginDialog *self;
  g_autofree char *server = NULL;
  g_autofree char *heading = NULL;
  g_autofree char *body = NULL;

  g_return_val_if_fail (parent == NULL || GTK_IS_WINDOW (parent), NULL);
  g_return_val_if_fail (location != NULL, NULL);

  self = g_object_new (CS_TYPE_LOGIN_DIALOG,
                       "transient-for", parent,
                       NULL);

  server = location->port != 0 ? g_strdup_printf ("%s:%u", location->server, location->port)
                               : g_strdup (location->server);
  /* Translators: the heading of the dialog asking for an SMB login, like "Log In to nas" */
  heading = g_strdup_printf (_("Log In to %s"), server);
  if (refusal != NULL)
    body = g_strdup (refusal);
  else
    /* Translators: the body of the dialog asking for an SMB login; the
     * share's name, then the server's, like "The share “photos” on nas…" */
    body = g_strdup_printf (_("The share “%s” on %s needs a user and a password. Copyscope "
                              "logs in to it itself, with a connection for each thread."),
                            location->share, server);
  adw_message_dialog_set_heading (ADW_MESSAGE_DIALOG (self), heading);
  adw_message_dialog_set_body (ADW_MESSAGE_DIALOG (self), body);

  gtk_editable_set_text (GTK_EDITABLE (self->user_row), user != NULL ? user : "");
  gtk_editable_set_text (GTK_EDITABLE (self->domain_row), domain != NULL ? domain : "");
  /* The user is usually right already; the password is what is missing. */
  gtk_widget_grab_focus (GTK_WIDGET (user != NULL && user[0] != '\0' ? self->password_row
                                                                      : self->user_row));

  return self;
}

const char *
cs_login_dialog_get_user (CsLoginDialog *self)
{
  g_return_val_if_fail (CS_IS_LOGIN_DIALOG (self), NULL);

  return gtk_editable_get_text (GTK_EDITABLE (self->user_row));
}

const char *
cs_login_dialog_get_domain (CsLoginDialog *self)
{
  g_return_val_if_fail (CS_IS_LOGIN_DIALOG (self), NULL);

  return gtk_editable_get_text (GTK_EDITABLE (self->domain_row));
}

const char *
cs_login_dialog_get_password (CsLoginDialog *self)
{
  g_return_val_if_fail (CS_IS_LOGIN_DIALOG (self), NULL);

  return gtk_editable_get_text (GTK_EDITABLE (self->password_row));
}

gboolean
cs_login_dialog_get_remember (CsLoginDialog *self)
{
  g_return_val_if_fail (CS_IS_LOGIN_DIALOG (self), FALSE);

  return gtk_check_button_get_active (self->remember_check);
}

void
cs_login_dialog_set_remember (CsLoginDialog *self,
                              gboolean       remember)
{
  g_return_if_fail (CS_IS_LOGIN_DIALOG (self));

  gtk_check_button_set_active (self->remember_check, remember);
}
