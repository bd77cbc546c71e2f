/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <glib/gi18n.h>

#include "cs-application.h"
#include "cs-format.h"
#include "cs-history.h"
#include "cs-history-probe.h"
#include "cs-window-private.h"

/*
 * The window: setup → copying → summary, on one stack. It shows the copies of
 * the application's CsCopyQueue (its own without an application): the view
 * of a run, its end and the session kept awake are in cs-window-run.c, the
 * questions (conflicts, a mirror's deletions) in cs-window-questions.c. The
 * pages beyond one copy (History, the comparison, the sweep, the
 * demonstration) ask through signals; the window navigates, shows their
 * toasts and keeps going back one step at a time. Actions are in
 * cs-window-actions.c.
 */

#define SCHEMA_ID          APP_ID

G_DEFINE_FINAL_TYPE (CsWindow, cs_window, ADW_TYPE_APPLICATION_WINDOW)

static guint
session_inhibit (GtkWindow  *window,
                 const char *reason)
{
  GtkApplication *app = gtk_window_get_application (window);

  if (app == NULL)
    return 0;

  return gtk_application_inhibit (app, window,
                                  GTK_APPLICATION_INHIBIT_SUSPEND | GTK_APPLICATION_INHIBIT_LOGOUT,
                                  reason);
}

static void
session_uninhibit (GtkWindow *window,
                   guint      cookie)
{
  GtkApplication *app = gtk_window_get_application (window);

  if (app != NULL)
    gtk_application_uninhibit (app, cookie);
}

static void
session_send_notification (GtkWindow     *window,
                           const char    *id,
                           GNotification *notification)
{
  GtkApplication *app = gtk_window_get_application (window);

  if (app != NULL)
    g_application_send_notification (G_APPLICATION (app), id, notification);
}

/* The file manager through the portal (or GIO's default handler outside one). */
static void
session_show_uri (GtkWindow  *window,
                  const char *uri)
{
  gtk_show_uri (window, uri, GDK_CURRENT_TIME);
}

static const CsWindowSession default_session = {
  session_inhibit,
  session_uninhibit,
  session_send_notification,
  session_show_uri,
};

static const CsWindowSession *session = &default_session;

const CsWindowSession *
_cs_window_get_session (void)
{
  return session;
}

/* Tests see what the window asks of the session through their own hooks;
 * NULL puts the session's back. */
void
_cs_window_set_session (const CsWindowSession *hooks)
{
  session = hooks != NULL ? hooks : &default_session;
}

/* Shows the folder a copy went into. */
void
_cs_window_open_folder (CsWindow   *self,
                        const char *path)
{
  g_autoptr(GFile) file = _cs_file_new_for_location (path);
  g_autofree char *uri = g_file_get_uri (file);

  session->show_uri (GTK_WINDOW (self), uri);
}

/* Opens the file at @path with its application (a log: the text editor). */
void
_cs_window_open_file (CsWindow   *self,
                      const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autofree char *uri = g_file_get_uri (file);

  session->show_uri (GTK_WINDOW (self), uri);
}

void
_cs_window_show_toast (CsWindow   *self,
                       const char *title)
{
  adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (title));
}

/* Pages */

static const struct {
  const char *page;
  const char *subtitle;
} page_subtitles[] = {
  { "history", N_("History") },
  { "compare", N_("Comparison") },
  { "sweep", N_("Thread Sweep") },
  { "demo", N_("Demonstration") },
};

/*
 * Going back is one logical step, not the walk through every page seen: the
 * pages where a copy is set up, runs and ends (setup, copying, its summary)
 * are the bottom; History, the sweep and the demonstration open on top of
 * the bottom page; a run, a comparison or a sweep opened from them goes on
 * top of them.
 */

/* The summary at the bottom is the last copy's, even after History showed
 * another run on the same page. */
static void
cs_window_restore_copy_summary (CsWindow   *self,
                                const char *page)
{
  if (g_strcmp0 (page, "summary") != 0 || self->copy_run == NULL ||
      !self->summary_from_history)
    return;

  cs_summary_page_set_run (self->summary_page, self->copy_run);
  self->summary_from_history = FALSE;
}

/* Shows @page, a bottom page: nothing to go back to. */
void
_cs_window_show_home (CsWindow   *self,
                      const char *page)
{
  g_ptr_array_set_size (self->back_stack, 0);
  cs_window_restore_copy_summary (self, page);
  gtk_stack_set_visible_child_name (self->stack, page);
  _cs_window_actions_update (self);
}

/* Shows @page on top of the one shown now, which win.go-back returns to. */
void
_cs_window_navigate (CsWindow   *self,
                     const char *page)
{
  const char *current = gtk_stack_get_visible_child_name (self->stack);

  if (g_strcmp0 (current, page) == 0)
    return;

  g_ptr_array_add (self->back_stack, g_strdup (current));
  gtk_stack_set_visible_child_name (self->stack, page);
  _cs_window_actions_update (self);
}

/* Shows @page (History, the sweep, the demonstration) on top of the bottom
 * page, whichever of them is shown now. */
void
_cs_window_show_section (CsWindow   *self,
                         const char *page)
{
  const char *current = gtk_stack_get_visible_child_name (self->stack);
  g_autofree char *bottom = NULL;

  if (g_strcmp0 (current, page) == 0)
    return;

  bottom = self->back_stack->len > 0 ? g_strdup (g_ptr_array_index (self->back_stack, 0))
                                     : g_strdup (current);
  g_ptr_array_set_size (self->back_stack, 0);
  g_ptr_array_add (self->back_stack, g_steal_pointer (&bottom));
  gtk_stack_set_visible_child_name (self->stack, page);
  _cs_window_actions_update (self);
}

/* One step back; FALSE when there is none. */
gboolean
_cs_window_go_back (CsWindow *self)
{
  g_autofree char *page = NULL;

  if (self->back_stack->len == 0)
    return FALSE;

  page = g_strdup (g_ptr_array_index (self->back_stack, self->back_stack->len - 1));
  g_ptr_array_remove_index (self->back_stack, self->back_stack->len - 1);
  if (self->back_stack->len == 0)
    cs_window_restore_copy_summary (self, page);
  gtk_stack_set_visible_child_name (self->stack, page);
  _cs_window_actions_update (self);

  return TRUE;
}

static void
visible_page_changed_cb (CsWindow *self)
{
  const char *page = gtk_stack_get_visible_child_name (self->stack);
  const char *subtitle = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (page_subtitles); i++)
    if (g_strcmp0 (page, page_subtitles[i].page) == 0)
      subtitle = _(page_subtitles[i].subtitle);

  /* While a copy runs, the subtitle is its progress, whatever page is shown. */
  if (subtitle != NULL && cs_copy_queue_get_job (self->copy_queue) == NULL)
    adw_window_title_set_subtitle (self->window_title, subtitle);
  else if (cs_copy_queue_get_job (self->copy_queue) == NULL)
    adw_window_title_set_subtitle (self->window_title, NULL);

  _cs_window_actions_update (self);
}

static void
history_open_run_cb (CsWindow      *self,
                     CsRun         *run,
                     CsHistoryPage *page)
{
  cs_summary_page_set_run (self->summary_page, run);
  self->summary_from_history = TRUE;
  _cs_window_navigate (self, "summary");
}

static void
history_open_sweep_cb (CsWindow      *self,
                       CsSweep       *sweep,
                       CsHistoryPage *page)
{
  if (cs_sweep_page_is_running (self->sweep_page))
    {
      _cs_window_show_toast (self, _("A sweep is running; open this one when it is done"));
      return;
    }

  cs_sweep_page_show_sweep (self->sweep_page, sweep);
  _cs_window_navigate (self, "sweep");
}

static void
cs_window_compare (CsWindow           *self,
                   GPtrArray          *runs,
                   const char * const *labels)
{
  cs_compare_page_set_runs (self->compare_page, (CsRun **) runs->pdata, runs->len, labels);
  _cs_window_navigate (self, "compare");
}

static void
history_compare_cb (CsWindow      *self,
                    GPtrArray     *runs,
                    CsHistoryPage *page)
{
  cs_window_compare (self, runs, NULL);
}

static void
demo_compare_cb (CsWindow   *self,
                 GPtrArray  *runs,
                 CsDemoPage *page)
{
  static const char * const labels[] = { "T1", "T2", NULL };

  cs_window_compare (self, runs, runs->len == 2 ? labels : NULL);
}

static void
cs_window_save_size (CsWindow *self)
{
  int width, height;

  gtk_window_get_default_size (GTK_WINDOW (self), &width, &height);

  g_settings_delay (self->settings);
  g_settings_set_int (self->settings, "window-width", width);
  g_settings_set_int (self->settings, "window-height", height);
  g_settings_set_boolean (self->settings, "window-maximized",
                          gtk_window_is_maximized (GTK_WINDOW (self)));
  g_settings_apply (self->settings);
}

static gboolean
cs_window_close_request (GtkWindow *window)
{
  CsWindow *self = CS_WINDOW (window);

  cs_window_save_size (self);

  /* A running copy is cancelled first, after asking; the window closes when
   * the job has cleaned up. */
  if (cs_copy_queue_get_job (self->copy_queue) != NULL)
    {
      self->close_when_done = TRUE;
      _cs_window_ask_cancel (self);
      return TRUE;
    }

  return GTK_WINDOW_CLASS (cs_window_parent_class)->close_request (window);
}

static void
cs_window_constructed (GObject *object)
{
  CsWindow *self = CS_WINDOW (object);

  G_OBJECT_CLASS (cs_window_parent_class)->constructed (object);

  gtk_window_set_default_size (GTK_WINDOW (self),
                               g_settings_get_int (self->settings, "window-width"),
                               g_settings_get_int (self->settings, "window-height"));
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));
}

static void
cs_window_dispose (GObject *object)
{
  CsWindow *self = CS_WINDOW (object);

  _cs_window_run_dispose (self);
  _cs_window_login_cancel (self);
  _cs_window_check_cancel (self);
  g_cancellable_cancel (self->choosers);
  g_clear_object (&self->choosers);
  _cs_window_clear_questions (self);

  gtk_widget_dispose_template (GTK_WIDGET (self), CS_TYPE_WINDOW);

  G_OBJECT_CLASS (cs_window_parent_class)->dispose (object);
}

static void
cs_window_finalize (GObject *object)
{
  CsWindow *self = CS_WINDOW (object);

  g_clear_object (&self->settings);
  g_clear_pointer (&self->loop_probe, cs_loop_probe_free);
  g_clear_pointer (&self->retry_targets, g_hash_table_unref);
  g_clear_pointer (&self->back_stack, g_ptr_array_unref);
  g_clear_pointer (&self->copy_run, cs_run_unref);
  g_clear_object (&self->copy_queue);

  G_OBJECT_CLASS (cs_window_parent_class)->finalize (object);
}

static void
cs_window_class_init (CsWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->constructed = cs_window_constructed;
  object_class->dispose = cs_window_dispose;
  object_class->finalize = cs_window_finalize;

  window_class->close_request = cs_window_close_request;

  g_type_ensure (CS_TYPE_CHECK_PAGE);
  g_type_ensure (CS_TYPE_COMPARE_PAGE);
  g_type_ensure (CS_TYPE_COPY_PAGE);
  g_type_ensure (CS_TYPE_DEMO_PAGE);
  g_type_ensure (CS_TYPE_HISTORY_PAGE);
  g_type_ensure (CS_TYPE_SETUP_PAGE);
  g_type_ensure (CS_TYPE_SUMMARY_PAGE);
  g_type_ensure (CS_TYPE_SWEEP_PAGE);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-window.ui");
  gtk_widget_class_bind_template_child (widget_class, CsWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, back_button);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, add_button);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, history_button);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, start_button);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, cancel_button);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, pause_button);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, setup_page);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, copy_page);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, check_page);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, summary_page);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, history_page);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, compare_page);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, sweep_page);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, demo_page);

  _cs_window_class_install_actions (widget_class);
}

/* The Start button says what the job will do, and that it waits its turn
 * while a copy runs. */
void
_cs_window_update_start_button (CsWindow *self)
{
  const char *label, *name, *tooltip;

  if (cs_copy_queue_get_job (self->copy_queue) != NULL)
    {
      label = _("_Add to Queue");
      name = _("Add to Queue");
      tooltip = _("Run this copy after the ones before it");
    }
  else switch (cs_setup_page_get_operation (self->setup_page))
    {
    case CS_OPERATION_MOVE:
      label = _("_Start Move");
      name = _("Start Move");
      tooltip = _("Start moving the sources into the destination");
      break;
    case CS_OPERATION_MIRROR:
      label = _("_Start Mirror");
      name = _("Start Mirror");
      tooltip = _("Make the destination match the sources; before deleting anything, the window asks");
      break;
    case CS_OPERATION_COPY:
    default:
      label = _("_Start Copy");
      name = _("Start Copy");
      tooltip = _("Start copying the sources into the destination");
      break;
    }
  gtk_button_set_label (self->start_button, label);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->start_button), tooltip);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->start_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
}

/* Files dropped on the running copy's page: a copy of them, queued. */
static void
files_dropped_cb (CsWindow *self,
                  GSList   *list)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new ();

  for (GSList *l = list; l != NULL; l = l->next)
    g_ptr_array_add (files, l->data);
  cs_window_queue_copy (self, (GFile **) files->pdata, files->len, NULL);
}

static void
cs_window_init (CsWindow *self)
{
  CsThreadSlider *setup_slider;
  CsThreadSlider *live_slider;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->settings = g_settings_new (SCHEMA_ID);
  self->choosers = g_cancellable_new ();
  self->back_stack = g_ptr_array_new_with_free_func (g_free);
  g_queue_init (&self->conflicts);
  g_queue_init (&self->deletions_waiting);
  /* Its own until it is given the application's (cs_window_new ()). */
  self->copy_queue = cs_copy_queue_new (self->settings);
  _cs_window_run_init (self);

  cs_setup_page_bind_settings (self->setup_page, self->settings);
  cs_copy_page_bind_settings (self->copy_page, self->settings);
  cs_copy_page_set_queue (self->copy_page, cs_copy_queue_get_model (self->copy_queue));

  /* One count and one Auto switch, on two sliders: set up before the copy,
   * changed live during it, remembered for the next start. */
  setup_slider = cs_setup_page_get_thread_slider (self->setup_page);
  live_slider = cs_copy_page_get_thread_slider (self->copy_page);
  g_object_bind_property (setup_slider, "threads", live_slider, "threads",
                          G_BINDING_SYNC_CREATE | G_BINDING_BIDIRECTIONAL);
  g_object_bind_property (setup_slider, "auto", live_slider, "auto",
                          G_BINDING_SYNC_CREATE | G_BINDING_BIDIRECTIONAL);
  /* One speed limit too, set up before and changed during the copy. */
  g_object_bind_property (cs_setup_page_get_speed_limit (self->setup_page), "max-rate",
                          cs_copy_page_get_speed_limit (self->copy_page), "max-rate",
                          G_BINDING_SYNC_CREATE | G_BINDING_BIDIRECTIONAL);
  g_object_bind_property (cs_setup_page_get_speed_limit (self->setup_page), "max-files",
                          cs_copy_page_get_speed_limit (self->copy_page), "max-files",
                          G_BINDING_SYNC_CREATE | G_BINDING_BIDIRECTIONAL);

  g_signal_connect_object (self->setup_page, "changed",
                           G_CALLBACK (_cs_window_actions_update), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->setup_page, "notify::operation",
                           G_CALLBACK (_cs_window_update_start_button), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->copy_page, "files-dropped",
                           G_CALLBACK (files_dropped_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->stack, "notify::visible-child",
                           G_CALLBACK (visible_page_changed_cb), self, G_CONNECT_SWAPPED);

  g_signal_connect_object (self->history_page, "open-run", G_CALLBACK (history_open_run_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->history_page, "open-sweep", G_CALLBACK (history_open_sweep_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->history_page, "compare", G_CALLBACK (history_compare_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->demo_page, "compare", G_CALLBACK (demo_compare_cb), self,
                           G_CONNECT_SWAPPED);

  _cs_window_show_home (self, "setup");
  if (_cs_history_probe_requested ())
    _cs_history_probe_start (GTK_WIDGET (self), GTK_WIDGET (self->history_page));
}

/* With an @application, the window shows the application's copies. */
CsWindow *
cs_window_new (CsApplication *application)
{
  CsWindow *self;

  g_return_val_if_fail (application == NULL || CS_IS_APPLICATION (application), NULL);

  self = g_object_new (CS_TYPE_WINDOW,
                       "application", application,
                       NULL);
  if (application != NULL && cs_application_get_copy_queue (application) != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->copy_queue, self);
      g_set_object (&self->copy_queue, cs_application_get_copy_queue (application));
      _cs_window_run_init (self);
      cs_copy_page_set_queue (self->copy_page, cs_copy_queue_get_model (self->copy_queue));
    }

  return self;
}

static void
show_next_copy_cb (CsWindow *self)
{
  gtk_widget_activate_action (GTK_WIDGET (self), "win.new-copy", NULL);
}

/* What was handed to the window is always somewhere to be seen: on the setup
 * page, shown unless a copy runs; while one runs it waits there for the next
 * copy, and a toast says so. */
static void
cs_window_show_handed_over (CsWindow   *self,
                            const char *running_title)
{
  AdwToast *toast;

  if (cs_copy_queue_get_job (self->copy_queue) == NULL)
    {
      if (g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), "setup") != 0)
        _cs_window_show_home (self, "setup");
      return;
    }

  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), "setup") == 0)
    return;

  toast = adw_toast_new (running_title);
  adw_toast_set_button_label (toast, _("_Show"));
  g_signal_connect_object (toast, "button-clicked", G_CALLBACK (show_next_copy_cb), self,
                           G_CONNECT_SWAPPED);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

/* Sources for the next copy, from a drop, a chooser, the command line or the
 * file manager. */
void
cs_window_add_sources (CsWindow  *self,
                       GFile    **files,
                       guint      n_files)
{
  g_autofree char *title = NULL;

  g_return_if_fail (CS_IS_WINDOW (self));
  g_return_if_fail (files != NULL || n_files == 0);

  if (n_files == 0)
    return;

  cs_setup_page_add_sources (self->setup_page, files, n_files);

  if (n_files == 1)
    {
      g_autofree char *name = _cs_display_name (files[0]);

      /* Translators: a source given while a copy runs */
      title = g_strdup_printf (_("“%s” waits for the next copy"), name);
    }
  else
    title = g_strdup_printf (ngettext ("%u source waits for the next copy",
                                       "%u sources wait for the next copy", n_files),
                             n_files);
  cs_window_show_handed_over (self, title);
}

/* The destination of the next copy. */
void
cs_window_set_destination (CsWindow *self,
                           GFile    *destination)
{
  g_autofree char *name = NULL;
  g_autofree char *title = NULL;

  g_return_if_fail (CS_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (destination));

  cs_setup_page_set_destination (self->setup_page, destination);

  name = _cs_display_name (destination);
  /* Translators: a destination given while a copy runs */
  title = g_strdup_printf (_("The next copy goes into “%s”"), name);
  cs_window_show_handed_over (self, title);
}

/* Whether the next job copies, moves or mirrors its sources, as if chosen on
 * the setup page (during a copy too: the next one is set up there meanwhile). */
void
cs_window_set_operation (CsWindow    *self,
                         CsOperation  operation)
{
  g_return_if_fail (CS_IS_WINDOW (self));

  cs_setup_page_set_operation (self->setup_page, operation);
}

/* The count for the next copy, as if set on the setup page's slider. */
void
cs_window_set_threads (CsWindow *self,
                       guint     threads,
                       gboolean  auto_threads)
{
  CsThreadSlider *slider;

  g_return_if_fail (CS_IS_WINDOW (self));

  slider = cs_setup_page_get_thread_slider (self->setup_page);
  cs_thread_slider_set_auto (slider, auto_threads);
  if (!auto_threads)
    cs_thread_slider_set_threads (slider, threads);
}

/*
 * Starts a copy of the setup page's sources into its destination, as the Start
 * button does. With @close_when_done, a copy that finishes without problems
 * closes the window. FALSE when the copy did not start; the setup page then
 * says why. TRUE also while it waits for a login to an SMB share, after
 * which it starts, or the setup page says why not.
 */
gboolean
cs_window_start_copy (CsWindow *self,
                      gboolean  close_when_done)
{
  g_return_val_if_fail (CS_IS_WINDOW (self), FALSE);

  if (cs_copy_queue_get_job (self->copy_queue) != NULL)
    return FALSE;

  gtk_widget_activate_action (GTK_WIDGET (self), "win.start", NULL);
  /* A copy to an SMB share may first wait for its login. */
  if (cs_copy_queue_get_job (self->copy_queue) == NULL && self->login == NULL)
    return FALSE;

  self->close_if_clean = !!close_when_done;
  return TRUE;
}

/*
 * A copy of @files into @destination (NULL: the setup page's, which the
 * running copy's is unless changed), set up as the setup page says, queued
 * after the running copy, or started when none runs. FALSE when it cannot
 * be; the window says why.
 */
gboolean
cs_window_queue_copy (CsWindow  *self,
                      GFile    **files,
                      guint      n_files,
                      GFile     *destination)
{
  g_autoptr(CsJob) job = NULL;
  g_auto(GStrv) sources = NULL;
  g_autofree char *destination_path = NULL;

  g_return_val_if_fail (CS_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (destination == NULL || G_IS_FILE (destination), FALSE);

  if (destination == NULL)
    destination = cs_setup_page_get_destination (self->setup_page);
  if (n_files == 0 || destination == NULL)
    return FALSE;

  job = _cs_window_build_job (self, files, n_files, destination, FALSE, &sources,
                              &destination_path);
  if (job == NULL)
    {
      _cs_window_show_home (self, "setup");
      return FALSE;
    }
  return _cs_window_submit (self, job, (const char * const *) sources, destination_path, FALSE);
}

/* The copies waiting behind the running one: a model of CsQueuedJob. */
GListModel *
cs_window_get_queue (CsWindow *self)
{
  g_return_val_if_fail (CS_IS_WINDOW (self), NULL);

  return cs_copy_queue_get_model (self->copy_queue);
}

/* The running job, or NULL. */
CsJob *
cs_window_get_job (CsWindow *self)
{
  g_return_val_if_fail (CS_IS_WINDOW (self), NULL);

  return cs_copy_queue_get_job (self->copy_queue);
}
