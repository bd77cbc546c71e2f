/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <glib/gi18n.h>

#include "cs-format.h"
#include "cs-history.h"
#include "cs-window-private.h"

/*
 * The window's view of the copies its CsCopyQueue runs: the copy shown on the
 * copying page (started once that page is on screen), its progress in the
 * title, the cancel dialog, the session kept awake meanwhile, and each end
 * told: a summary, a toast, a notification, the run kept in the history. The
 * queue decides what runs; this file shows it.
 */

#define RUN_WAIT_MS        500

#define JOB_LOG_KEY "cs-history-log"

/* @job writes its per-file log into the history folder, where it is named
 * after the run's record once the job has ended (cs_window_save_run ()). The
 * job holds the log: one dropped unstarted, from the queue or refused, leaves
 * nothing behind. */
static void
cs_window_attach_log (CsWindow *self,
                      CsJob    *job)
{
  g_autoptr(GError) error = NULL;
  CsHistoryLog *log = cs_history_log_new (&error);

  if (log == NULL)
    {
      /* Translators: a toast when the setting "Keep a Log of Every File" cannot be honoured */
      g_autofree char *message = g_strdup_printf (_("The copy keeps no log: %s"), error->message);

      _cs_window_show_toast (self, message);
      return;
    }
  cs_job_set_log_fd (job, cs_history_log_get_fd (log));
  g_object_set_data_full (G_OBJECT (job), JOB_LOG_KEY, log, (GDestroyNotify) cs_history_log_free);
}

/* main thread: the run of @job, ended, into the history, with its log. */
static void
cs_window_save_run (CsWindow *self,
                    CsJob    *job)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autofree char *log_path = NULL;
  CsHistoryLog *log = g_object_get_data (G_OBJECT (job), JOB_LOG_KEY);
  CsRun *run = cs_job_get_run (job);

  path = cs_history_save (run, &error);
  if (path == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("Could not keep the run in the history: %s"),
                                                  error->message);

      _cs_window_show_toast (self, message);
      /* A log without its record would be nobody's: it goes with the job. */
      return;
    }

  if (log != NULL && (log_path = cs_history_log_commit (log, run, &error)) == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("Could not keep the log of every file: %s"),
                                                  error->message);

      _cs_window_show_toast (self, message);
    }
}

/* The window's subtitle while @operation runs. */
static const char *
operation_doing (CsOperation operation)
{
  switch (operation)
    {
    case CS_OPERATION_MOVE:
      return _("Moving");
    case CS_OPERATION_MIRROR:
      return _("Mirroring");
    case CS_OPERATION_COPY:
    default:
      return _("Copying");
    }
}

/* The cancel dialog offers to keep the partial copies of big files only
 * while there are some with bytes their journals prove: without them, a
 * later run would start those files over anyway. Kept up to date while the
 * dialog shows, as the copy goes on behind it. */
static void
cancel_dialog_update_keep (CsWindow *self)
{
  GtkCheckButton *keep = g_object_get_data (G_OBJECT (self->cancel_dialog), "keep-partial");
  GtkLabel *keep_label = GTK_LABEL (gtk_check_button_get_child (keep));
  guint64 proven = 0;
  CsJob *job = cs_copy_queue_get_job (self->copy_queue);
  guint n = job != NULL ? cs_job_get_partials (job, &proven) : 0;
  g_autofree char *bytes = NULL;
  g_autofree char *label = NULL;

  gtk_widget_set_visible (GTK_WIDGET (keep), n > 0 && proven > 0);
  if (n == 0 || proven == 0)
    {
      gtk_check_button_set_active (keep, FALSE);
      return;
    }
  bytes = _cs_format_bytes (proven);
  /* Translators: a check box in the cancel dialog, like "Keep the partial
   * copy of 1 big file (1.2 GB so far) to resume it later" */
  label = g_strdup_printf (ngettext ("_Keep the partial copy of %u big file (%s so far) to resume it later",
                                     "_Keep the partial copies of %u big files (%s so far) to resume them later",
                                     n),
                           n, bytes);
  if (g_strcmp0 (gtk_label_get_label (keep_label), label) != 0)
    gtk_label_set_label (keep_label, label);
}

/* A big file the copy goes on with from an earlier run's partial copy is
 * told as it happens, in a toast; each once (@job's "cs-events-told"). */
static void
job_tell_resumed (CsWindow *self,
                  CsJob    *job)
{
  CsRun *run = cs_job_get_run (job);
  guint told = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (job), "cs-events-told"));
  g_autoptr(GArray) events = NULL;
  guint64 kept = 0, size = 0;
  const char *path = NULL;
  guint n = 0;

  if (cs_run_get_n_events (run) == told)
    return;
  events = cs_run_dup_events (run);
  for (guint i = told; i < events->len; i++)
    {
      const CsRunEvent *e = &g_array_index (events, CsRunEvent, i);

      if (g_strcmp0 (e->kind, "resume") != 0)
        continue;
      n++;
      kept += (guint64) e->value;
      size += e->size;
      path = e->path;
    }
  g_object_set_data (G_OBJECT (job), "cs-events-told", GUINT_TO_POINTER (events->len));

  if (n > 0)
    {
      g_autofree char *kept_text = _cs_format_bytes (kept);
      g_autofree char *size_text = _cs_format_bytes (size);
      g_autofree char *name = path != NULL ? g_path_get_basename (path) : NULL;
      g_autofree char *title = NULL;
      g_autoptr(AdwToast) toast = NULL;

      if (n == 1 && name != NULL)
        /* Translators: a toast when a big file goes on from the partial copy
         * an earlier copy kept, like "Resuming video.mkv at 17.9 GB of 20.0 GB" */
        title = g_strdup_printf (_("Resuming %s at %s of %s"), name, kept_text, size_text);
      else
        /* Translators: a toast when big files go on from the partial copies
         * an earlier copy kept, like "Resuming 3 big files at 17.9 GB of 20.0 GB" */
        title = g_strdup_printf (ngettext ("Resuming %u big file at %s of %s",
                                           "Resuming %u big files at %s of %s", n),
                                 n, kept_text, size_text);
      toast = adw_toast_new (title);
      adw_toast_set_timeout (toast, 8);
      adw_toast_overlay_add_toast (self->toast_overlay, g_steal_pointer (&toast));
    }
}

/* main thread */
static void
job_progress_cb (CsWindow *self,
                 CsJob    *job)
{
  CsProgress progress;

  cs_job_get_progress (job, &progress);
  if (job == cs_copy_queue_get_job (self->copy_queue))
    {
      if (self->cancel_dialog != NULL)
        cancel_dialog_update_keep (self);
      job_tell_resumed (self, job);
    }

  if (progress.state != self->last_state)
    {
      self->last_state = progress.state;
      _cs_window_actions_update (self);
    }

  if (progress.bytes_total > 0)
    {
      g_autofree char *subtitle = NULL;
      double percent = 100.0 * (double) progress.bytes_done / (double) progress.bytes_total;

      CsOperation operation = cs_job_get_operation (job);

      if (progress.state == CS_JOB_STATE_PAUSED)
        subtitle = g_strdup (_("Paused"));
      else if (!progress.total_known)
        subtitle = g_strdup (operation_doing (operation));
      else if (operation == CS_OPERATION_MOVE)
        /* Translators: the window subtitle while moving, like "Moving · 42 %" */
        subtitle = g_strdup_printf (_("Moving · %.0f %%"), MIN (percent, 100.0));
      else if (operation == CS_OPERATION_MIRROR)
        /* Translators: the window subtitle while mirroring, like "Mirroring · 42 %" */
        subtitle = g_strdup_printf (_("Mirroring · %.0f %%"), MIN (percent, 100.0));
      else
        /* Translators: the window subtitle while copying, like "Copying · 42 %" */
        subtitle = g_strdup_printf (_("Copying · %.0f %%"), MIN (percent, 100.0));
      adw_window_title_set_subtitle (self->window_title, subtitle);
    }
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
  _cs_window_get_session ()->send_notification (GTK_WINDOW (self), "copy-finished", notification);
}

static void
cs_window_uninhibit (CsWindow *self)
{
  if (self->inhibit_cookie != 0)
    _cs_window_get_session ()->uninhibit (GTK_WINDOW (self), self->inhibit_cookie);
  self->inhibit_cookie = 0;
}

static void
show_summary_cb (CsWindow *self)
{
  _cs_window_show_home (self, "summary");
}

/* Whoever watched the copy sees its summary; someone setting up the next copy
 * meanwhile stays there and is told, with a way to the summary. */
static void
cs_window_show_summary_or_tell (CsWindow *self,
                                CsRun    *run)
{
  const char *page = gtk_stack_get_visible_child_name (self->stack);
  AdwToast *toast;

  if (g_strcmp0 (page, "copying") == 0 || g_strcmp0 (page, "summary") == 0)
    {
      _cs_window_show_home (self, "summary");
      return;
    }

  /* The copy's page under this one is its summary now. */
  for (guint i = 0; i < self->back_stack->len; i++)
    if (g_strcmp0 (g_ptr_array_index (self->back_stack, i), "copying") == 0)
      {
        g_free (self->back_stack->pdata[i]);
        self->back_stack->pdata[i] = g_strdup ("summary");
      }

  if (g_strcmp0 (cs_run_get_outcome (run), "completed") == 0 && cs_run_get_n_errors (run) == 0)
    toast = adw_toast_new (_("The copy is complete"));
  else
    toast = adw_toast_new (_("The copy has ended; its summary says how"));
  adw_toast_set_button_label (toast, _("_Show Summary"));
  adw_toast_set_priority (toast, ADW_TOAST_PRIORITY_HIGH);
  g_signal_connect_object (toast, "button-clicked", G_CALLBACK (show_summary_cb), self,
                           G_CONNECT_SWAPPED);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
  _cs_window_actions_update (self);
}

/* A copy ended while the window goes on with the next one queued. */
static void
cs_window_tell_done (CsWindow *self,
                     CsRun    *run)
{
  AdwToast *toast;

  /* The finished copy's page under this one is its summary now. */
  for (guint i = 0; i < self->back_stack->len; i++)
    if (g_strcmp0 (g_ptr_array_index (self->back_stack, i), "copying") == 0)
      {
        g_free (self->back_stack->pdata[i]);
        self->back_stack->pdata[i] = g_strdup ("summary");
      }

  if (g_strcmp0 (cs_run_get_outcome (run), "completed") == 0 && cs_run_get_n_errors (run) == 0)
    toast = adw_toast_new (_("A copy is complete; the next one in the queue runs"));
  else
    toast = adw_toast_new (_("A copy has ended; its summary says how. The next one in the queue runs"));
  adw_toast_set_button_label (toast, _("_Show Summary"));
  adw_toast_set_priority (toast, ADW_TOAST_PRIORITY_HIGH);
  g_signal_connect_object (toast, "button-clicked", G_CALLBACK (show_summary_cb), self,
                           G_CONNECT_SWAPPED);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

static void
show_run_summary_cb (CsWindow *self,
                     AdwToast *toast)
{
  CsRun *run = g_object_get_data (G_OBJECT (toast), "cs-run");

  cs_summary_page_set_run (self->summary_page, run);
  self->summary_from_history = TRUE;
  _cs_window_navigate (self, "summary");
}

/* A copy that ran side by side has ended and left the queue: its run is
 * kept and a toast leads to its summary; its device is free for the next. */
static void
side_job_finished_cb (CsWindow    *self,
                      CsQueuedJob *queued,
                      CsCopyQueue *queue)
{
  CsJob *job = cs_queued_job_get_job (queued);
  g_autofree char *name = NULL;
  g_autofree char *title = NULL;
  CsRun *run = cs_job_get_run (job);
  AdwToast *toast;

  g_signal_handlers_disconnect_by_data (job, self);
  _cs_window_drop_questions (self, job);
  cs_window_save_run (self, job);

  name = _cs_display_path (cs_queued_job_get_destination (queued));
  if (g_strcmp0 (cs_run_get_outcome (run), "completed") == 0 && cs_run_get_n_errors (run) == 0)
    /* Translators: a copy that ran side by side, like "The copy into /media/usb is complete" */
    title = g_strdup_printf (_("The copy into %s is complete"), name);
  else
    title = g_strdup_printf (_("The copy into %s has ended; its summary says how"), name);
  toast = adw_toast_new (title);
  adw_toast_set_button_label (toast, _("_Show Summary"));
  g_object_set_data_full (G_OBJECT (toast), "cs-run", cs_run_ref (run), (GDestroyNotify) cs_run_unref);
  g_signal_connect_object (toast, "button-clicked", G_CALLBACK (show_run_summary_cb), self,
                           G_CONNECT_SWAPPED);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);

  cs_copy_queue_advance (queue);
  _cs_window_actions_update (self);
}

/* The copy shown has ended and left the queue. */
static void
job_finished_cb (CsWindow    *self,
                 CsJob       *job,
                 CsCopyQueue *queue)
{
  CsRun *run;

  /* The summary built below is a one-off after the copy, not part of it. */
  if (self->loop_probe != NULL)
    {
      g_autofree char *line = NULL;

      cs_loop_probe_stop (self->loop_probe);
      line = cs_loop_probe_describe (self->loop_probe);
      g_printerr ("%s\n", line);
    }

  g_signal_handlers_disconnect_by_data (job, self);
  _cs_window_drop_questions (self, job);

  if (self->cancel_dialog != NULL)
    gtk_window_destroy (GTK_WINDOW (self->cancel_dialog));

  cs_copy_page_set_job (self->copy_page, NULL);

  run = cs_job_get_run (job);
  cs_window_save_run (self, job);
  g_clear_pointer (&self->copy_run, cs_run_unref);
  self->copy_run = cs_run_ref (run);
  cs_summary_page_set_run (self->summary_page, run);
  self->summary_from_history = FALSE;
  adw_window_title_set_subtitle (self->window_title, NULL);

  /* The user closed the window during the copy and has seen it cancelled. */
  if (self->close_when_done)
    {
      cs_copy_queue_clear (queue);
      gtk_window_destroy (GTK_WINDOW (self));
      return;
    }

  /* The next queued copy follows; this one's summary is a toast away. */
  cs_copy_queue_advance (queue);
  if (cs_copy_queue_get_job (queue) == NULL)
    cs_window_uninhibit (self);
  if (cs_copy_queue_get_job (queue) != NULL)
    {
      cs_window_tell_done (self, run);
      return;
    }
  cs_window_show_summary_or_tell (self, run);
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
      cs_setup_page_show_refusal (self->setup_page, NULL);
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
    case CS_JOB_ERROR_SOURCE_INSIDE:
    default:
      lead = _("The copy cannot start.");
      break;
    }

  text = g_strdup_printf ("%s\n%s", lead, error->message);
  cs_setup_page_show_refusal (self->setup_page, text);
}

/* Settings of the setup page into @job. */
void
_cs_window_configure_job (CsWindow *self,
                          CsJob    *job)
{
  cs_setup_page_configure_job (self->setup_page, job);
  /* "Copy Into D": each source at D/NAME, whether D exists yet or not. */
  cs_job_set_into (job, TRUE);
  cs_job_set_interval (job, g_settings_get_uint (self->settings, "interval"));
  if (cs_setup_page_get_keep_log (self->setup_page))
    cs_window_attach_log (self, job);
  if (cs_setup_page_get_keep_manifest (self->setup_page))
    {
      g_autofree char *manifest = cs_history_manifest_path (cs_job_get_run (job), CS_MANIFEST_XXH128);

      if (manifest != NULL)
        cs_job_set_manifest (job, manifest, CS_MANIFEST_XXH128);
    }
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

  if (cs_copy_queue_get_job (self->copy_queue) == NULL ||
      cs_copy_queue_get_job_running (self->copy_queue))
    return;

  /* From the job's start: drawing the copying page the first time, before
   * that, costs the same with or without a copy. */
  g_clear_pointer (&self->loop_probe, cs_loop_probe_free);
  if (cs_loop_probe_requested ())
    self->loop_probe = cs_loop_probe_new ();
  cs_copy_queue_run (self->copy_queue);
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

/* A copy that a suspend or a logout cuts off is left for the next run to
 * clean up: while one runs, the session is asked to wait. */
static void
cs_window_inhibit_for (CsWindow *self,
                       CsJob    *job)
{
  const char *reason;

  switch (cs_job_get_operation (job))
    {
    case CS_OPERATION_MOVE:
      reason = _("Moving files");
      break;
    case CS_OPERATION_MIRROR:
      reason = _("Mirroring files");
      break;
    case CS_OPERATION_COPY:
    default:
      reason = _("Copying files");
      break;
    }
  cs_window_uninhibit (self);
  self->inhibit_cookie = _cs_window_get_session ()->inhibit (GTK_WINDOW (self), reason);
}

/* The queue shows @job now: from the start, or, @running, one that ran side
 * by side until the one shown ended. */
static void
job_shown_cb (CsWindow    *self,
              CsJob       *job,
              gboolean     running,
              CsCopyQueue *queue)
{
  if (!running)
    cs_window_show_refusal (self, NULL);
  self->last_state = CS_JOB_STATE_READY;

  g_signal_connect_object (job, "progress", G_CALLBACK (job_progress_cb), self, G_CONNECT_SWAPPED);
  if (!running)
    _cs_window_watch_questions (self, job);
  cs_copy_page_set_job (self->copy_page, job);

  /* A copy that a suspend or a logout cuts off is left for the next run to clean up. */
  cs_window_inhibit_for (self, job);
  if (!running)
    adw_window_title_set_subtitle (self->window_title, operation_doing (cs_job_get_operation (job)));
  _cs_window_show_home (self, "copying");

  if (!running)
    cs_window_run_when_drawn (self);
}

static void
side_job_started_cb (CsWindow    *self,
                     CsJob       *job,
                     CsCopyQueue *queue)
{
  _cs_window_watch_questions (self, job);
}

/* A queued copy that cannot start any more says why on the setup page. */
static void
refused_cb (CsWindow     *self,
            CsJob        *job,
            const GError *error,
            CsCopyQueue  *queue)
{
  cs_window_show_refusal (self, error);
  _cs_window_show_home (self, "setup");
}

/*
 * Checks @job, whose destination is @destination, and runs it once its page
 * is on screen, or explains on the setup page why not.
 */
gboolean
_cs_window_start (CsWindow   *self,
                  CsJob      *job,
                  const char *destination)
{
  g_autoptr(GError) error = NULL;

  g_assert (CS_IS_WINDOW (self));
  g_assert (CS_IS_JOB (job));

  if (cs_copy_queue_get_job (self->copy_queue) != NULL)
    return FALSE;

  if (!cs_copy_queue_start (self->copy_queue, job, destination, &error))
    {
      cs_window_show_refusal (self, error);
      _cs_window_show_home (self, "setup");
      return FALSE;
    }

  return TRUE;
}

/*
 * @job (checked by the queue) waits its turn there (cs_copy_queue_add ()).
 * FALSE, with a toast saying why, when it cannot run.
 */
gboolean
_cs_window_queue (CsWindow   *self,
                  CsJob      *job,
                  GStrv       sources,
                  const char *destination)
{
  g_autoptr(GError) error = NULL;
  guint n = g_list_model_get_n_items (cs_copy_queue_get_model (self->copy_queue)) + 1;
  g_autofree char *title = NULL;

  if (!cs_copy_queue_add (self->copy_queue, job, (const char * const *) sources, destination,
                          &error))
    {
      _cs_window_show_toast (self, error->message);
      return FALSE;
    }

  /* Translators: a copy added to the queue while another runs */
  title = g_strdup_printf (ngettext ("Queued: %u copy waits for its turn",
                                     "Queued: %u copies wait for their turn", n), n);
  _cs_window_show_toast (self, title);
  _cs_window_actions_update (self);
  return TRUE;
}

static void
cancel_response_cb (CsWindow         *self,
                    const char       *response,
                    AdwMessageDialog *dialog)
{
  CsJob *job = cs_copy_queue_get_job (self->copy_queue);

  self->cancel_dialog = NULL;

  if (g_strcmp0 (response, "cancel") == 0 && job != NULL)
    {
      GtkCheckButton *keep = g_object_get_data (G_OBJECT (dialog), "keep-partial");

      _cs_window_drop_questions (self, job);
      cs_job_set_keep_partial (job, keep != NULL && gtk_widget_get_visible (GTK_WIDGET (keep))
                                    && gtk_check_button_get_active (keep));
      cs_job_cancel (job);
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

  if (cs_copy_queue_get_job (self->copy_queue) == NULL || self->cancel_dialog != NULL)
    return;

  builder = gtk_builder_new_from_resource ("/io/github/copyscope/Copyscope/ui/cs-cancel-dialog.ui");
  self->cancel_dialog = ADW_MESSAGE_DIALOG (gtk_builder_get_object (builder, "dialog"));
  g_object_set_data (G_OBJECT (self->cancel_dialog), "keep-partial",
                     gtk_builder_get_object (builder, "keep_partial"));
  cancel_dialog_update_keep (self);
  gtk_window_set_transient_for (GTK_WINDOW (self->cancel_dialog), GTK_WINDOW (self));
  g_signal_connect_object (self->cancel_dialog, "response",
                           G_CALLBACK (cancel_response_cb), self, G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (self->cancel_dialog));
}

/* main thread: the window shows @self->copy_queue from now on */
void
_cs_window_run_init (CsWindow *self)
{
  g_signal_connect_object (self->copy_queue, "job-shown", G_CALLBACK (job_shown_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->copy_queue, "side-job-started", G_CALLBACK (side_job_started_cb),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->copy_queue, "job-finished", G_CALLBACK (job_finished_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->copy_queue, "side-job-finished",
                           G_CALLBACK (side_job_finished_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->copy_queue, "refused", G_CALLBACK (refused_cb), self,
                           G_CONNECT_SWAPPED);
}

/* The window goes: the copies it shows are cancelled, leaving no worker
 * waiting for a question, and the session may suspend again. */
void
_cs_window_run_dispose (CsWindow *self)
{
  CsCopyQueue *queue = self->copy_queue;
  GListModel *model;
  CsJob *job;

  g_signal_handlers_disconnect_by_data (queue, self);
  job = cs_copy_queue_get_job (queue);
  if (job != NULL)
    {
      g_signal_handlers_disconnect_by_data (job, self);
      _cs_window_drop_questions (self, job);
    }
  model = cs_copy_queue_get_model (queue);
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(CsQueuedJob) queued = g_list_model_get_item (model, i);

      if (!cs_queued_job_get_running (queued))
        continue;
      g_signal_handlers_disconnect_by_data (cs_queued_job_get_job (queued), self);
      _cs_window_drop_questions (self, cs_queued_job_get_job (queued));
    }
  cs_copy_queue_cancel_all (queue);
  cs_window_clear_run_wait (self);
  cs_window_uninhibit (self);
}
