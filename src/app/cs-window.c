/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <glib/gi18n.h>

#include "cs-format.h"
#include "cs-window-private.h"

/*
 * The window: setup → copying → summary, on one stack. It owns the job while
 * it runs, feeds the job's coalesced signals to the views, asks the questions
 * (conflicts, cancelling) and keeps the session from suspending meanwhile.
 * Actions and file choosers are in cs-window-actions.c.
 */

#define SCHEMA_ID          APP_ID
#define THREADS_SETTLE_MS  200
#define MAX_ERROR_ROWS     200
#define RUN_WAIT_MS        500

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

static const CsWindowSession default_session = {
  session_inhibit,
  session_uninhibit,
  session_send_notification,
};

static const CsWindowSession *session = &default_session;

/* Tests see what the window asks of the session through their own hooks;
 * NULL puts the session's back. */
void
_cs_window_set_session (const CsWindowSession *hooks)
{
  session = hooks != NULL ? hooks : &default_session;
}

static void cs_window_show_next_conflict (CsWindow *self);

void
_cs_window_show_toast (CsWindow   *self,
                       const char *title)
{
  adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (title));
}

/* main thread */
static void
job_sample_cb (CsWindow *self,
               gpointer  sample_pointer,
               CsJob    *job)
{
  const CsSample *sample = sample_pointer;

  cs_throughput_graph_push_sample (self->graph, sample);
  cs_counter_view_set_sample (self->counter_view, sample);
  cs_limit_hint_push_sample (self->limit_hint, sample);
}

static void
cs_window_show_errors (CsWindow *self,
                       guint     n_errors)
{
  g_autoptr(GPtrArray) errors = NULL;
  g_autofree char *title = NULL;

  if (n_errors == self->n_errors_shown)
    return;

  title = g_strdup_printf (ngettext ("%u Problem", "%u Problems", n_errors), n_errors);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->errors_row), title);
  adw_expander_row_set_subtitle (self->errors_row,
                                 _("Files that could not be copied; the copy goes on"));
  adw_expander_row_set_icon_name (self->errors_row, "dialog-warning-symbolic");
  adw_expander_row_set_enable_expansion (self->errors_row, TRUE);

  /* Only the first rows are listed; the summary and the export have them all. */
  if (self->error_rows->len < MAX_ERROR_ROWS)
    {
      errors = cs_job_get_run (self->job) != NULL
               ? cs_run_dup_errors (cs_job_get_run (self->job)) : NULL;

      for (guint i = self->error_rows->len; errors != NULL && i < errors->len && i < MAX_ERROR_ROWS; i++)
        {
          const CsRunError *error = g_ptr_array_index (errors, i);
          g_autofree char *path = _cs_display_path (error->path != NULL ? error->path : "");
          g_autofree char *reason = g_strdup_printf ("%s: %s",
                                                     error->operation != NULL ? error->operation : "",
                                                     error->message != NULL ? error->message : "");
          GtkWidget *row = g_object_new (ADW_TYPE_ACTION_ROW,
                                         "use-markup", FALSE,
                                         "title", path,
                                         "subtitle", reason,
                                         "title-lines", 1,
                                         "subtitle-lines", 2,
                                         NULL);

          adw_expander_row_add_row (self->errors_row, row);
          g_ptr_array_add (self->error_rows, row);
        }
    }

  self->n_errors_shown = n_errors;
}

static void
cs_window_reset_errors (CsWindow *self)
{
  for (guint i = 0; i < self->error_rows->len; i++)
    adw_expander_row_remove (self->errors_row, g_ptr_array_index (self->error_rows, i));
  g_ptr_array_set_size (self->error_rows, 0);

  self->n_errors_shown = 0;
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->errors_row), _("No Problems"));
  adw_expander_row_set_subtitle (self->errors_row, NULL);
  adw_expander_row_set_icon_name (self->errors_row, "emblem-ok-symbolic");
  adw_expander_row_set_expanded (self->errors_row, FALSE);
  adw_expander_row_set_enable_expansion (self->errors_row, FALSE);
}

/* main thread */
static void
job_progress_cb (CsWindow *self,
                 CsJob    *job)
{
  CsProgress progress;

  cs_job_get_progress (job, &progress);
  cs_progress_view_update (self->progress_view, &progress);
  cs_window_show_errors (self, progress.n_errors);

  if (progress.state != self->last_state)
    {
      self->last_state = progress.state;
      _cs_window_actions_update (self);
    }

  if (progress.bytes_found > 0)
    {
      g_autofree char *subtitle = NULL;
      double percent = 100.0 * (double) progress.bytes_done / (double) progress.bytes_found;

      if (progress.state == CS_JOB_STATE_PAUSED)
        subtitle = g_strdup (_("Paused"));
      else if (progress.scanning)
        subtitle = g_strdup (_("Copying"));
      else
        /* Translators: the window subtitle while copying, like "Copying · 42 %" */
        subtitle = g_strdup_printf (_("Copying · %.0f %%"), MIN (percent, 100.0));
      adw_window_title_set_subtitle (self->window_title, subtitle);
    }
}

/* main thread */
static void
job_threads_changed_cb (CsWindow *self,
                        guint     from,
                        guint     to,
                        CsJob    *job)
{
  g_autoptr(GArray) timeline = NULL;

  cs_throughput_graph_update_timeline (self->graph);

  timeline = cs_run_dup_timeline (cs_job_get_run (job));
  if (timeline != NULL && timeline->len > 0)
    cs_limit_hint_set_change (self->limit_hint,
                              &g_array_index (timeline, CsThreadChange, timeline->len - 1));

  /* A change the user is still making wins over one the job reports late. */
  if (self->threads_timeout_id == 0)
    cs_thread_slider_set_threads (self->thread_slider, to);
}

static char *
describe_file (guint64 size,
               gint64  mtime_us)
{
  g_autofree char *size_text = _cs_format_bytes (size);
  g_autoptr(GDateTime) date = g_date_time_new_from_unix_local (mtime_us / G_USEC_PER_SEC);
  g_autofree char *date_text = date != NULL ? g_date_time_format (date, "%c") : g_strdup ("?");

  /* Translators: a file's size and modification time, like "1.2 MB, modified Tue 4 Jun 2024" */
  return g_strdup_printf (_("%s, modified %s"), size_text, date_text);
}

static void
conflict_response_cb (CsWindow         *self,
                      const char       *response,
                      AdwMessageDialog *dialog)
{
  g_autoptr(CsConflict) conflict = g_steal_pointer (&self->conflict);
  CsConflictAnswer answer = CS_CONFLICT_SKIP;
  gboolean apply_to_all;

  apply_to_all = gtk_check_button_get_active (self->conflict_apply_all);
  self->conflict_dialog = NULL;
  self->conflict_apply_all = NULL;

  if (g_strcmp0 (response, "replace") == 0)
    answer = CS_CONFLICT_REPLACE;
  else if (g_strcmp0 (response, "keep-both") == 0)
    answer = CS_CONFLICT_KEEP_BOTH;

  if (conflict != NULL)
    cs_conflict_answer (conflict, answer, apply_to_all);

  /* Questions already asked before "apply to all" get the same answer. */
  if (apply_to_all)
    {
      CsConflict *queued;

      while ((queued = g_queue_pop_head (&self->conflicts)) != NULL)
        {
          cs_conflict_answer (queued, answer, TRUE);
          g_object_unref (queued);
        }
    }

  cs_window_show_next_conflict (self);
}

static void
cs_window_show_next_conflict (CsWindow *self)
{
  g_autoptr(GtkBuilder) builder = NULL;
  g_autofree char *name = NULL;
  g_autofree char *existing = NULL;
  g_autofree char *incoming = NULL;
  g_autofree char *body = NULL;
  g_autoptr(GFile) destination = NULL;

  if (self->conflict_dialog != NULL || g_queue_is_empty (&self->conflicts))
    return;

  self->conflict = g_queue_pop_head (&self->conflicts);

  destination = g_file_new_for_path (cs_conflict_get_destination_path (self->conflict));
  name = _cs_display_name (destination);
  existing = describe_file (cs_conflict_get_destination_size (self->conflict),
                            cs_conflict_get_destination_mtime (self->conflict));
  incoming = describe_file (cs_conflict_get_source_size (self->conflict),
                            cs_conflict_get_source_mtime (self->conflict));
  /* Translators: the conflict dialog's body */
  body = g_strdup_printf (_("“%s” is already in the destination.\n\n"
                            "Existing: %s\nBeing copied: %s\n\n"
                            "The rest of the copy goes on while you decide."),
                          name, existing, incoming);

  builder = gtk_builder_new_from_resource ("/io/github/copyscope/Copyscope/ui/cs-conflict-dialog.ui");
  self->conflict_dialog = ADW_MESSAGE_DIALOG (gtk_builder_get_object (builder, "dialog"));
  self->conflict_apply_all = GTK_CHECK_BUTTON (gtk_builder_get_object (builder, "apply_all_check"));

  adw_message_dialog_set_body (self->conflict_dialog, body);
  gtk_window_set_transient_for (GTK_WINDOW (self->conflict_dialog), GTK_WINDOW (self));
  g_signal_connect_object (self->conflict_dialog, "response",
                           G_CALLBACK (conflict_response_cb), self, G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (self->conflict_dialog));
}

/* main thread */
static void
job_conflict_cb (CsWindow   *self,
                 CsConflict *conflict,
                 CsJob      *job)
{
  g_queue_push_tail (&self->conflicts, g_object_ref (conflict));
  cs_window_show_next_conflict (self);
}

/* Leaves no worker waiting for a question nobody will answer. */
static void
cs_window_drop_conflicts (CsWindow *self)
{
  CsConflict *queued;

  while ((queued = g_queue_pop_head (&self->conflicts)) != NULL)
    {
      cs_conflict_answer (queued, CS_CONFLICT_SKIP, FALSE);
      g_object_unref (queued);
    }

  if (self->conflict_dialog != NULL)
    {
      AdwMessageDialog *dialog = self->conflict_dialog;

      g_signal_handlers_disconnect_by_data (dialog, self);
      self->conflict_dialog = NULL;
      self->conflict_apply_all = NULL;
      if (self->conflict != NULL)
        cs_conflict_answer (self->conflict, CS_CONFLICT_SKIP, FALSE);
      g_clear_object (&self->conflict);
      gtk_window_destroy (GTK_WINDOW (dialog));
    }
}

static gboolean
apply_threads_cb (gpointer user_data)
{
  CsWindow *self = user_data;

  self->threads_timeout_id = 0;

  if (self->job != NULL)
    cs_job_set_threads (self->job, cs_thread_slider_get_threads (self->thread_slider), "user");

  return G_SOURCE_REMOVE;
}

static void
thread_slider_changed_cb (CsWindow *self)
{
  /* Under Auto the slider follows the job; only a hand on it turns Auto off. */
  if (self->job == NULL || cs_thread_slider_get_auto (self->thread_slider))
    return;

  /* A drag passes many counts; the job and its record get the one it settles on. */
  g_clear_handle_id (&self->threads_timeout_id, g_source_remove);
  self->threads_timeout_id = g_timeout_add (THREADS_SETTLE_MS, apply_threads_cb, self);
}

static void
cs_window_notify_done (CsWindow *self,
                       CsRun    *run)
{
  g_autoptr(GNotification) notification = NULL;
  g_autoptr(GIcon) icon = NULL;
  const char *outcome = cs_run_get_outcome (run);
  CsTotals totals;
  g_autofree char *bytes = NULL;
  g_autofree char *count = NULL;
  g_autofree char *body = NULL;
  guint n_errors = cs_run_get_n_errors (run);
  const char *title;

  /* Whoever watches the window sees the summary; the others hear of it. */
  if (gtk_window_is_active (GTK_WINDOW (self)))
    return;

  cs_run_get_totals (run, &totals);
  bytes = _cs_format_bytes (totals.v[CS_CLASS_COPIED][CS_KIND_BYTES]);
  count = _cs_format_count (totals.v[CS_CLASS_COPIED][CS_KIND_FILES]);

  if (g_strcmp0 (outcome, "cancelled") == 0)
    title = _("Copy cancelled");
  else if (g_strcmp0 (outcome, "failed") == 0)
    title = _("Copy failed");
  else if (n_errors > 0)
    title = _("Copy finished with problems");
  else
    title = _("Copy complete");

  if (n_errors > 0)
    body = g_strdup_printf (ngettext ("%s files copied (%s); %u problem",
                                      "%s files copied (%s); %u problems", n_errors),
                            count, bytes, n_errors);
  else
    body = g_strdup_printf (_("%s files copied (%s)"), count, bytes);

  notification = g_notification_new (title);
  g_notification_set_body (notification, body);
  icon = g_themed_icon_new (APP_ID);
  g_notification_set_icon (notification, icon);
  g_notification_set_default_action (notification, "app.activate");
  session->send_notification (GTK_WINDOW (self), "copy-finished", notification);
}

static void
cs_window_uninhibit (CsWindow *self)
{
  if (self->inhibit_cookie != 0)
    session->uninhibit (GTK_WINDOW (self), self->inhibit_cookie);
  self->inhibit_cookie = 0;
}

static void
run_done_cb (CsJob        *job,
             const GError *error,
             gpointer      user_data)
{
  g_autoptr(CsWindow) self = user_data;
  g_autoptr(CsJob) finished = NULL;
  CsRun *run;
  CsProgress progress;

  /* The summary built below is a one-off after the copy, not part of it. */
  if (self->loop_probe != NULL && self->job == job)
    {
      g_autofree char *line = NULL;

      cs_loop_probe_stop (self->loop_probe);
      line = cs_loop_probe_describe (self->loop_probe);
      g_printerr ("%s\n", line);
    }

  if (error != NULL && !g_error_matches (error, CS_JOB_ERROR, CS_JOB_ERROR_CANCELLED))
    g_message ("Copy stopped: %s", error->message);

  /* The window may be gone; the job's result is then nobody's concern. */
  if (self->job != job)
    return;

  finished = g_steal_pointer (&self->job);
  g_signal_handlers_disconnect_by_data (finished, self);
  g_clear_handle_id (&self->threads_timeout_id, g_source_remove);
  g_clear_object (&self->cancellable);
  cs_window_drop_conflicts (self);
  cs_window_uninhibit (self);

  if (self->cancel_dialog != NULL)
    gtk_window_destroy (GTK_WINDOW (self->cancel_dialog));

  cs_job_get_progress (finished, &progress);
  cs_progress_view_update (self->progress_view, &progress);

  run = cs_job_get_run (finished);
  _cs_window_save_run (self, run);
  cs_summary_page_set_run (self->summary_page, run);
  adw_window_title_set_subtitle (self->window_title, NULL);
  gtk_stack_set_visible_child_name (self->stack, "summary");
  _cs_window_actions_update (self);

  /* The user closed the window during the copy and has seen it cancelled. */
  if (self->close_when_done)
    {
      gtk_window_destroy (GTK_WINDOW (self));
      return;
    }

  cs_window_notify_done (self, run);

  /* Closing after a clean copy was asked for on the command line; after
   * problems the summary stays, because it is the only place that lists them. */
  if (self->close_if_clean && g_strcmp0 (cs_run_get_outcome (run), "completed") == 0 &&
      cs_run_get_n_errors (run) == 0)
    {
      gtk_window_destroy (GTK_WINDOW (self));
      return;
    }
  self->close_if_clean = FALSE;
}

static void
cs_window_show_refusal (CsWindow     *self,
                        const GError *error)
{
  const char *lead;
  g_autofree char *text = NULL;

  if (error == NULL)
    {
      gtk_widget_set_visible (GTK_WIDGET (self->refusal_label), FALSE);
      return;
    }

  if (error->domain != CS_JOB_ERROR)
    lead = _("The copy cannot start.");
  else switch ((CsJobErrorCode) error->code)
    {
    case CS_JOB_ERROR_MISSING_SOURCE:
      lead = _("A source is missing. Remove it from the list or put it back.");
      break;
    case CS_JOB_ERROR_SAME_FILE:
      lead = _("A source is the destination itself.");
      break;
    case CS_JOB_ERROR_INSIDE_SOURCE:
      lead = _("The destination is inside a source. Choose a folder outside the sources.");
      break;
    case CS_JOB_ERROR_DUPLICATE_SOURCE:
      lead = _("A source is listed twice.");
      break;
    case CS_JOB_ERROR_DESTINATION:
      lead = _("The destination cannot be used.");
      break;
    case CS_JOB_ERROR_INVALID:
    case CS_JOB_ERROR_CANCELLED:
    default:
      lead = _("The copy cannot start.");
      break;
    }

  text = g_strdup_printf ("%s\n%s", lead, error->message);
  gtk_label_set_label (self->refusal_label, text);
  gtk_widget_set_visible (GTK_WIDGET (self->refusal_label), TRUE);
}

/* Settings of the setup page into @job. */
void
_cs_window_configure_job (CsWindow *self,
                          CsJob    *job)
{
  cs_job_set_overwrite (job, cs_options_group_get_overwrite (self->options_group));
  cs_job_set_verify (job, cs_options_group_get_verify (self->options_group));
  cs_job_set_flush (job, cs_options_group_get_flush (self->options_group));
  cs_job_set_retries (job, cs_options_group_get_retries (self->options_group));
  cs_job_set_wait (job, cs_options_group_get_wait (self->options_group));
  cs_job_set_threads (job, cs_thread_slider_get_threads (self->setup_thread_slider), NULL);
  cs_job_set_auto_threads (job, cs_thread_slider_get_auto (self->setup_thread_slider));
  cs_job_set_interval (job, g_settings_get_uint (self->settings, "interval"));
  /* The engine's default lets sixteen workers share the CPU with this thread;
   * with sixty-four at that value the loop waited for a CPU for more than half
   * of a copy of `many` on two cores, and stalled for 1.1–1.8 s (0.23–0.47 s at
   * the 99th percentile; COPYSCOPE_LOOP_PROBE). At the maximum the workers are
   * also SCHED_IDLE: the longest stall was then 41 ms over five runs
   * (bench/window). */
  cs_job_set_worker_nice (job, CS_JOB_MAX_WORKER_NICE);
}

static void cs_window_run_when_drawn (CsWindow *self);

static void
cs_window_clear_run_wait (CsWindow *self)
{
  g_clear_handle_id (&self->run_timeout_id, g_source_remove);
  if (self->run_handler_id != 0)
    g_signal_handler_disconnect (self->run_handler_instance, self->run_handler_id);
  self->run_handler_id = 0;
  self->run_handler_instance = NULL;
}

/* main thread */
static void
cs_window_run_job (CsWindow *self)
{
  cs_window_clear_run_wait (self);

  if (self->job == NULL || self->job_running)
    return;

  self->job_running = TRUE;
  /* From the job's start: drawing the copying page the first time, before
   * that, costs the same with or without a copy. */
  g_clear_pointer (&self->loop_probe, cs_loop_probe_free);
  if (cs_loop_probe_requested ())
    self->loop_probe = cs_loop_probe_new ();
  cs_job_run_async (self->job, self->cancellable, run_done_cb, g_object_ref (self));
}

static gboolean
run_timeout_cb (gpointer user_data)
{
  CsWindow *self = user_data;

  self->run_timeout_id = 0;
  cs_window_run_job (self);

  return G_SOURCE_REMOVE;
}

static void
run_wait_step_cb (CsWindow *self)
{
  GObject *instance = self->run_handler_instance;

  g_signal_handler_disconnect (instance, self->run_handler_id);
  self->run_handler_id = 0;
  self->run_handler_instance = NULL;

  /* After a frame has been painted the page is on screen; before that, the
   * window was still being shown or crossfading. */
  if (GDK_IS_FRAME_CLOCK (instance))
    cs_window_run_job (self);
  else
    cs_window_run_when_drawn (self);
}

static void
cs_window_wait_for (CsWindow   *self,
                    gpointer    instance,
                    const char *signal)
{
  self->run_handler_instance = instance;
  self->run_handler_id = g_signal_connect_object (instance, signal,
                                                  G_CALLBACK (run_wait_step_cb), self,
                                                  G_CONNECT_SWAPPED);
}

/*
 * The job starts once the copying page is on screen: shown, crossfaded to and
 * painted once. That first frame (every counter's text laid out, the graph's
 * fonts loaded) and the crossfade are the heaviest drawing of a copy; with 64
 * workers already running, the main thread got a CPU so rarely that those
 * frames held the loop up for 0.3–0.5 s each (COPYSCOPE_LOOP_PROBE, two cores). A window that draws no frames, hidden
 * or minimized, gets its job after RUN_WAIT_MS anyway.
 */
static void
cs_window_run_when_drawn (CsWindow *self)
{
  GdkFrameClock *clock;

  if (self->run_timeout_id == 0)
    self->run_timeout_id = g_timeout_add (RUN_WAIT_MS, run_timeout_cb, self);

  if (!gtk_widget_get_mapped (GTK_WIDGET (self)))
    cs_window_wait_for (self, self, "map");
  else if (gtk_stack_get_transition_running (self->stack))
    cs_window_wait_for (self, self->stack, "notify::transition-running");
  else if ((clock = gtk_widget_get_frame_clock (GTK_WIDGET (self))) != NULL)
    {
      cs_window_wait_for (self, clock, "after-paint");
      gdk_frame_clock_request_phase (clock, GDK_FRAME_CLOCK_PHASE_PAINT);
    }
  else
    cs_window_run_job (self);
}

/*
 * Checks @job and runs it, or explains on the setup page why not. The window
 * takes its own reference.
 */
gboolean
_cs_window_start (CsWindow *self,
                  CsJob    *job)
{
  g_autoptr(GError) error = NULL;

  g_assert (CS_IS_WINDOW (self));
  g_assert (CS_IS_JOB (job));

  if (self->job != NULL)
    return FALSE;

  if (!cs_job_check (job, &error))
    {
      cs_window_show_refusal (self, error);
      gtk_stack_set_visible_child_name (self->stack, "setup");
      _cs_window_actions_update (self);
      return FALSE;
    }
  cs_window_show_refusal (self, NULL);

  self->job = g_object_ref (job);
  self->cancellable = cs_cancellable_new ();
  self->last_state = CS_JOB_STATE_READY;

  g_signal_connect_object (job, "progress", G_CALLBACK (job_progress_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (job, "sample", G_CALLBACK (job_sample_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (job, "threads-changed", G_CALLBACK (job_threads_changed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (job, "conflict", G_CALLBACK (job_conflict_cb), self, G_CONNECT_SWAPPED);

  cs_progress_view_reset (self->progress_view);
  cs_counter_view_set_sample (self->counter_view, NULL);
  cs_window_reset_errors (self);
  cs_throughput_graph_set_run (self->graph, cs_job_get_run (job));
  cs_limit_hint_reset (self->limit_hint);
  cs_thread_slider_set_threads (self->thread_slider, cs_job_get_threads (job));

  /* A copy that a suspend or a logout cuts off is left for the next run to clean up. */
  self->inhibit_cookie = session->inhibit (GTK_WINDOW (self), _("Copying files"));

  adw_window_title_set_subtitle (self->window_title, _("Copying"));
  gtk_stack_set_visible_child_name (self->stack, "copying");
  _cs_window_actions_update (self);

  self->job_running = FALSE;
  cs_window_run_when_drawn (self);

  return TRUE;
}

static void
cancel_response_cb (CsWindow         *self,
                    const char       *response,
                    AdwMessageDialog *dialog)
{
  self->cancel_dialog = NULL;

  if (g_strcmp0 (response, "cancel") == 0 && self->job != NULL)
    {
      cs_window_drop_conflicts (self);
      cs_job_cancel (self->job);
      /* Only a run reports the end, even of a job cancelled before it began. */
      cs_window_run_job (self);
    }
  else
    self->close_when_done = FALSE;
}

/* Asks before cancelling, and says what cancelling keeps. */
void
_cs_window_ask_cancel (CsWindow *self)
{
  g_autoptr(GtkBuilder) builder = NULL;

  if (self->job == NULL || self->cancel_dialog != NULL)
    return;

  builder = gtk_builder_new_from_resource ("/io/github/copyscope/Copyscope/ui/cs-cancel-dialog.ui");
  self->cancel_dialog = ADW_MESSAGE_DIALOG (gtk_builder_get_object (builder, "dialog"));
  gtk_window_set_transient_for (GTK_WINDOW (self->cancel_dialog), GTK_WINDOW (self));
  g_signal_connect_object (self->cancel_dialog, "response",
                           G_CALLBACK (cancel_response_cb), self, G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (self->cancel_dialog));
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
  if (self->job != NULL)
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

  if (self->job != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->job, self);
      cs_window_drop_conflicts (self);
      cs_job_cancel (self->job);
      g_clear_object (&self->job);
    }

  cs_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_handle_id (&self->threads_timeout_id, g_source_remove);
  cs_window_clear_run_wait (self);
  cs_window_uninhibit (self);

  if (self->chooser != NULL)
    {
      gtk_native_dialog_destroy (self->chooser);
      g_clear_object (&self->chooser);
    }

  g_queue_clear_full (&self->conflicts, g_object_unref);
  g_clear_object (&self->conflict);

  gtk_widget_dispose_template (GTK_WIDGET (self), CS_TYPE_WINDOW);

  G_OBJECT_CLASS (cs_window_parent_class)->dispose (object);
}

static void
cs_window_finalize (GObject *object)
{
  CsWindow *self = CS_WINDOW (object);

  g_clear_object (&self->settings);
  g_clear_pointer (&self->loop_probe, cs_loop_probe_free);
  g_clear_pointer (&self->error_rows, g_ptr_array_unref);
  g_clear_pointer (&self->retry_targets, g_hash_table_unref);
  _cs_window_pages_finalize (self);

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

  g_type_ensure (CS_TYPE_COUNTER_VIEW);
  g_type_ensure (CS_TYPE_DESTINATION_ROW);
  g_type_ensure (CS_TYPE_OPTIONS_GROUP);
  g_type_ensure (CS_TYPE_PROGRESS_VIEW);
  g_type_ensure (CS_TYPE_SOURCE_LIST);
  g_type_ensure (CS_TYPE_SUMMARY_PAGE);
  g_type_ensure (CS_TYPE_THREAD_SLIDER);
  g_type_ensure (CS_TYPE_THROUGHPUT_GRAPH);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-window.ui");
  gtk_widget_class_bind_template_child (widget_class, CsWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, add_button);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, start_button);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, cancel_button);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, pause_button);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, source_list);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, destination_row);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, setup_thread_slider);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, options_group);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, refusal_label);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, progress_view);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, show_all_button);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, graph);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, thread_slider);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, errors_row);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, counter_view);
  gtk_widget_class_bind_template_child (widget_class, CsWindow, summary_page);

  _cs_window_class_install_actions (widget_class);
  _cs_window_class_install_page_actions (widget_class);
}

static void
cs_window_init (CsWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->settings = g_settings_new (SCHEMA_ID);
  self->error_rows = g_ptr_array_new ();
  g_queue_init (&self->conflicts);
  _cs_window_pages_init (self);

  cs_options_group_bind_settings (self->options_group, self->settings);
  g_settings_bind (self->settings, "threads", self->setup_thread_slider, "threads",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "graph-show-all", self->show_all_button, "active",
                   G_SETTINGS_BIND_DEFAULT);

  /* One count, two sliders: set up before the copy, changed live during it. */
  g_object_bind_property (self->setup_thread_slider, "threads",
                          self->thread_slider, "threads",
                          G_BINDING_SYNC_CREATE | G_BINDING_BIDIRECTIONAL);
  g_object_bind_property (self->show_all_button, "active",
                          self->graph, "show-all",
                          G_BINDING_SYNC_CREATE);

  g_signal_connect_object (self->thread_slider, "notify::threads",
                           G_CALLBACK (thread_slider_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (cs_source_list_get_files (self->source_list), "items-changed",
                           G_CALLBACK (_cs_window_actions_update), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->destination_row, "notify::file",
                           G_CALLBACK (_cs_window_actions_update), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->stack, "notify::visible-child",
                           G_CALLBACK (_cs_window_actions_update), self, G_CONNECT_SWAPPED);

  gtk_stack_set_visible_child_name (self->stack, "setup");
  _cs_window_actions_update (self);
}

CsWindow *
cs_window_new (CsApplication *application)
{
  g_return_val_if_fail (application == NULL || CS_IS_APPLICATION (application), NULL);

  return g_object_new (CS_TYPE_WINDOW,
                       "application", application,
                       NULL);
}

void
cs_window_add_sources (CsWindow  *self,
                       GFile    **files,
                       guint      n_files)
{
  g_return_if_fail (CS_IS_WINDOW (self));

  if (self->job != NULL)
    return;

  /* Files handed over after a copy start the next one. */
  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), "summary") == 0)
    gtk_stack_set_visible_child_name (self->stack, "setup");

  cs_source_list_add (self->source_list, files, n_files);
}

void
cs_window_set_destination (CsWindow *self,
                           GFile    *destination)
{
  g_return_if_fail (CS_IS_WINDOW (self));

  cs_destination_row_set_file (self->destination_row, destination);
}

/* The count for the next copy, as if set on the setup page's slider. */
void
cs_window_set_threads (CsWindow *self,
                       guint     threads,
                       gboolean  auto_threads)
{
  g_return_if_fail (CS_IS_WINDOW (self));

  cs_thread_slider_set_auto (self->setup_thread_slider, auto_threads);
  if (!auto_threads)
    cs_thread_slider_set_threads (self->setup_thread_slider, threads);
}

/*
 * Starts a copy of the setup page's sources into its destination, as the Start
 * button does. With @close_when_done, a copy that finishes without problems
 * closes the window. FALSE when the copy did not start; the setup page then
 * says why.
 */
gboolean
cs_window_start_copy (CsWindow *self,
                      gboolean  close_when_done)
{
  g_return_val_if_fail (CS_IS_WINDOW (self), FALSE);

  if (self->job != NULL)
    return FALSE;

  gtk_widget_activate_action (GTK_WIDGET (self), "win.start", NULL);
  if (self->job == NULL)
    return FALSE;

  self->close_if_clean = !!close_when_done;
  return TRUE;
}

/* The running job, or NULL. */
CsJob *
cs_window_get_job (CsWindow *self)
{
  g_return_val_if_fail (CS_IS_WINDOW (self), NULL);

  return self->job;
}
