/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "cs-format.h"
#include "cs-login-dialog.h"
#include "cs-window-private.h"

/*
 * A copy to or from an SMB share nobody mounted goes to the server by its
 * smb:// URL, and the engine's connections log in there themselves. Before
 * such a copy starts, the window logs in to each of its servers once, off
 * the main thread (cs_smb_log_in_async): as a job would (the keyring's
 * password, a guest), and where the server refuses that, with what the
 * user types in a dialog, asked again while the server refuses it. Only
 * then does the copy start or join the queue, so a copy never fails at its
 * first file for want of a password; Cancel leaves the setup as it was and
 * says why. A password lives in memory only: the engine keeps it for the
 * process, and the keyring, if asked to remember it.
 */

struct _CsWindowLogin
{
  CsJob         *job;
  GStrv          sources;
  char          *destination;
  gboolean       from_setup;   /* the setup page's copy: its sources go with it */
  GPtrArray     *locations;    /* one smb:// location per server to log in to */
  guint          next;
  GCancellable  *cancellable;
  CsLoginDialog *dialog;       /* borrowed: it destroys itself when answered */
  /* The last answer, for the next question and the keyring */
  char          *user;
  char          *domain;
  char          *password;
  gboolean       remember;
};

static void
wipe (char **secret)
{
  if (*secret != NULL)
    explicit_bzero (*secret, strlen (*secret));
  g_clear_pointer (secret, g_free);
}

static void
login_free (CsWindowLogin *login)
{
  g_clear_object (&login->job);
  g_strfreev (login->sources);
  g_free (login->destination);
  g_ptr_array_unref (login->locations);
  g_clear_object (&login->cancellable);
  g_free (login->user);
  g_free (login->domain);
  wipe (&login->password);
  g_free (login);
}

/* The server a location names: a login there serves all of its shares. */
static char *
server_of (const CsSmbLocation *smb)
{
  return smb->port != 0 ? g_strdup_printf ("%s:%u", smb->server, smb->port) : g_strdup (smb->server);
}

/* The smb:// URLs of @sources and @destination, one per server. */
static GPtrArray *
urls_to_log_in (const char * const *sources,
                const char         *destination)
{
  g_autoptr(GPtrArray) servers = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *urls = g_ptr_array_new_with_free_func (g_free);
  guint n = sources != NULL ? g_strv_length ((char **) sources) : 0;

  for (guint i = 0; i <= n; i++)
    {
      const char *location = i < n ? sources[i] : destination;
      g_autoptr(CsSmbLocation) smb = NULL;
      g_autofree char *server = NULL;

      if (location == NULL || !g_str_has_prefix (location, "smb://")
          || (smb = cs_smb_location_parse (location)) == NULL)
        continue;
      server = server_of (smb);
      if (g_ptr_array_find_with_equal_func (servers, server, (GEqualFunc) g_str_equal, NULL))
        continue;
      g_ptr_array_add (servers, g_steal_pointer (&server));
      g_ptr_array_add (urls, g_strdup (location));
    }
  return urls;
}

static const char *
current_location (CsWindow *self)
{
  return g_ptr_array_index (self->login->locations, self->login->next);
}

/* "nas/photos": the share a question or a refusal is about. */
static char *
current_share (CsWindow *self)
{
  g_autoptr(CsSmbLocation) smb = cs_smb_location_parse (current_location (self));
  g_autofree char *server = server_of (smb);

  return g_strdup_printf ("%s/%s", server, smb->share);
}

/* Starts the copy, or queues it, once every server let the window log in;
 * else, with @refusal, leaves the setup as it was and says why. */
static void
login_end (CsWindow   *self,
           const char *refusal)
{
  CsWindowLogin *login = g_steal_pointer (&self->login);

  if (cs_copy_queue_get_job (self->copy_queue) == NULL)
    adw_window_title_set_subtitle (self->window_title, NULL);
  if (refusal == NULL)
    {
      gboolean queued = cs_copy_queue_get_job (self->copy_queue) != NULL;
      gboolean started = queued ? _cs_window_queue (self, login->job, login->sources, login->destination)
                                : _cs_window_start (self, login->job, login->destination);

      if (started && login->from_setup)
        _cs_window_setup_started (self, login->job, queued);
      if (!started)
        self->close_if_clean = FALSE;
    }
  else
    {
      self->close_if_clean = FALSE;
      /* Someone setting up a copy reads it there; a copy handed over while
       * another runs is told in a toast. */
      if (cs_copy_queue_get_job (self->copy_queue) != NULL && !login->from_setup)
        _cs_window_show_toast (self, refusal);
      else
        {
          g_autofree char *text = g_strdup_printf ("%s\n%s", _("The copy cannot start."), refusal);

          cs_setup_page_show_refusal (self->setup_page, text);
          if (cs_copy_queue_get_job (self->copy_queue) == NULL)
            _cs_window_show_home (self, "setup");
        }
    }
  login_free (login);
  _cs_window_actions_update (self);
}

static void login_next (CsWindow *self);
static void ask (CsWindow *self, const char *refusal);

/* main thread */
static void
remembered_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(CsWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!cs_smb_remember_password_finish (result, &error))
    {
      /* Translators: a toast when the login worked but the keyring did not take the password */
      g_autofree char *title = g_strdup_printf (_("The password was not kept in the keyring: %s"),
                                                error->message);

      if (gtk_widget_get_realized (GTK_WIDGET (self)))
        _cs_window_show_toast (self, title);
    }
}

/* main thread: the answer the user typed, tried */
static void
given_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(CsWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  CsWindowLogin *login = self->login;
  gboolean logged_in = cs_smb_log_in_finish (result, &error);

  if (login == NULL || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (logged_in)
    {
      if (login->remember)
        cs_smb_remember_password_async (current_location (self), login->domain, login->user,
                                        login->password, NULL, remembered_cb, g_object_ref (self));
      wipe (&login->password);
      login->next++;
      login_next (self);
      return;
    }

  wipe (&login->password);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED))
    {
      g_autofree char *share = current_share (self);
      /* Translators: the dialog asking for an SMB login again, like "nas/photos
       * refused this user and password. Check them and try again." */
      g_autofree char *refusal = g_strdup_printf (_("%s refused this user and password. Check them "
                                                    "and try again."), share);

      ask (self, refusal);
      return;
    }
  login_end (self, error->message);
}

static void
dialog_response_cb (CsWindow      *self,
                    const char    *response,
                    CsLoginDialog *dialog)
{
  CsWindowLogin *login = self->login;
  const char *user, *domain;

  if (login == NULL || login->dialog != dialog)
    return;
  login->dialog = NULL;
  /* libadwaita 1.2's password row hears its text's "notify::has-focus"
   * without a reference: with the focus still in it as the dialog went,
   * the text told the row already freed ("invalid unclassed pointer in
   * cast to 'GtkEditable'", a crash at worst). Taken out while it lives. */
  gtk_window_set_focus (GTK_WINDOW (dialog), NULL);

  if (g_strcmp0 (response, "log-in") != 0)
    {
      g_autofree char *share = current_share (self);
      /* Translators: why a copy to an SMB share did not start, like "No user
       * and password were given for nas/photos." */
      g_autofree char *refusal = g_strdup_printf (_("No user and password were given for %s."), share);

      login_end (self, refusal);
      return;
    }

  user = cs_login_dialog_get_user (dialog);
  domain = cs_login_dialog_get_domain (dialog);
  g_free (login->user);
  login->user = user[0] != '\0' ? g_strdup (user) : NULL;
  g_free (login->domain);
  login->domain = domain[0] != '\0' ? g_strdup (domain) : NULL;
  wipe (&login->password);
  login->password = g_strdup (cs_login_dialog_get_password (dialog));
  login->remember = cs_login_dialog_get_remember (dialog);
  cs_smb_log_in_async (current_location (self), login->domain, login->user, login->password,
                       login->cancellable, given_cb, g_object_ref (self));
}

/* Asks for a login to the current server; @refusal says why again. */
static void
ask (CsWindow   *self,
     const char *refusal)
{
  CsWindowLogin *login = self->login;
  g_autoptr(CsSmbLocation) smb = cs_smb_location_parse (current_location (self));
  const char *user = login->user != NULL ? login->user
                     : smb->user != NULL ? smb->user : g_get_user_name ();
  const char *domain = login->domain != NULL ? login->domain : smb->domain;

  login->dialog = cs_login_dialog_new (GTK_WINDOW (self), smb, user, domain, refusal);
  cs_login_dialog_set_remember (login->dialog, login->remember);
  g_signal_connect_object (login->dialog, "response", G_CALLBACK (dialog_response_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (login->dialog));
}

/* main thread: logged in as a job would, or refused */
static void
looked_up_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(CsWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  gboolean logged_in = cs_smb_log_in_finish (result, &error);

  if (self->login == NULL || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (logged_in)
    {
      self->login->next++;
      login_next (self);
      return;
    }
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED))
    ask (self, NULL);
  else
    login_end (self, error->message);
}

static void
login_next (CsWindow *self)
{
  CsWindowLogin *login = self->login;
  g_autofree char *share = NULL;
  g_autofree char *subtitle = NULL;

  if (login->next == login->locations->len)
    {
      login_end (self, NULL);
      return;
    }

  share = current_share (self);
  /* Translators: the window's subtitle while it logs in to an SMB share, like "Logging in to nas/photos…" */
  subtitle = g_strdup_printf (_("Logging in to %s…"), share);
  if (cs_copy_queue_get_job (self->copy_queue) == NULL)
    adw_window_title_set_subtitle (self->window_title, subtitle);
  cs_smb_log_in_async (current_location (self), NULL, NULL, NULL, login->cancellable,
                       looked_up_cb, g_object_ref (self));
}

/*
 * Runs @job (checked here; @sources and @destination as the job has them),
 * or queues it while another copy runs, once each server its smb:// URLs
 * name has let the window log in. @from_setup: the setup page's copy,
 * whose sources go with it once it starts. TRUE when it started, queued or
 * waits for a login; FALSE when it cannot, the window saying why.
 */
gboolean
_cs_window_submit (CsWindow           *self,
                   CsJob              *job,
                   const char * const *sources,
                   const char         *destination,
                   gboolean            from_setup)
{
  g_autoptr(GPtrArray) urls = urls_to_log_in (sources, destination);
  gboolean queued, started;

  g_assert (CS_IS_WINDOW (self));
  g_assert (CS_IS_JOB (job));

  if (self->login != NULL)
    {
      _cs_window_show_toast (self, _("Another copy is logging in to its share; add this one after it"));
      return FALSE;
    }

  if (urls->len == 0)
    {
      queued = cs_copy_queue_get_job (self->copy_queue) != NULL;
      started = queued ? _cs_window_queue (self, job, (GStrv) sources, destination)
                       : _cs_window_start (self, job, destination);
      if (started && from_setup)
        _cs_window_setup_started (self, job, queued);
      return started;
    }

  cs_setup_page_show_refusal (self->setup_page, NULL);
  self->login = g_new0 (CsWindowLogin, 1);
  self->login->job = g_object_ref (job);
  self->login->sources = g_strdupv ((char **) sources);
  self->login->destination = g_strdup (destination);
  self->login->from_setup = from_setup;
  self->login->locations = g_steal_pointer (&urls);
  self->login->cancellable = g_cancellable_new ();
  _cs_window_actions_update (self);
  login_next (self);
  return TRUE;
}

/* The copy waiting for a login, if any, is dropped with its question. */
void
_cs_window_login_cancel (CsWindow *self)
{
  CsWindowLogin *login = g_steal_pointer (&self->login);

  if (login == NULL)
    return;
  g_cancellable_cancel (login->cancellable);
  if (login->dialog != NULL)
    {
      g_signal_handlers_disconnect_by_data (login->dialog, self);
      gtk_window_destroy (GTK_WINDOW (login->dialog));
    }
  login_free (login);
}
