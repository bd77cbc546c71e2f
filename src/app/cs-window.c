/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <glib/gi18n.h>

#include "cs-deletions-dialog.h"
#include "cs-format.h"
#include "cs-history.h"
#include "cs-history-probe.h"
#include "cs-window-private.h"

/*
 * The window: setup → copying → summary, on one stack. It owns the job while
 * it runs, feeds the job's coalesced signals to the views, asks the questions
 * (conflicts, a mirror's deletions, cancelling) and keeps the session from suspending meanwhile.
 * The pages beyond one copy (History, the comparison, the sweep, the
 * demonstration) ask through signals; the window navigates, shows their
 * toasts and keeps going back one step at a time. Actions are in
 * cs-window-actions.c.
 */

#define SCHEMA_ID          APP_ID
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

static void cs_window_show_next_conflict (CsWindow *self);

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
  if (subtitle != NULL && self->job == NULL)
    adw_window_title_set_subtitle (self->window_title, subtitle);
  else if (self->job == NULL)
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
  guint n = self->job != NULL ? cs_job_get_partials (self->job, &proven) : 0;
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
  if (job == self->job)
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

/* One side of a conflict, with what sets it apart from the other side. */
static char *
describe_file (guint64 size,
               gint64  mtime_us,
               guint64 other_size,
               gint64  other_mtime_us)
{
  g_autofree char *size_text = _cs_format_bytes (size);
  g_autofree char *date_text = _cs_format_time (mtime_us);
  gboolean newer = mtime_us > other_mtime_us;
  gboolean larger = size > other_size;

  if (newer && larger)
    /* Translators: a file's size and modification time, like "1.2 MB, modified 4 Jun 2024, 10:12 — newer and larger" */
    return g_strdup_printf (_("%s, modified %s — newer and larger"), size_text, date_text);
  if (newer)
    /* Translators: a file's size and modification time, like "1.2 MB, modified 4 Jun 2024, 10:12 — newer" */
    return g_strdup_printf (_("%s, modified %s — newer"), size_text, date_text);
  if (larger)
    /* Translators: a file's size and modification time, like "1.2 MB, modified 4 Jun 2024, 10:12 — larger" */
    return g_strdup_printf (_("%s, modified %s — larger"), size_text, date_text);
  /* Translators: a file's size and modification time, like "1.2 MB, modified 4 Jun 2024, 10:12" */
  return g_strdup_printf (_("%s, modified %s"), size_text, date_text);
}

/* The questions of @job (tagged "cs-job") taken out of @questions, in
 * order, with their references: copies side by side each keep their own. */
static GList *
steal_questions_of (GQueue   *questions,
                    gpointer  job)
{
  GList *taken = NULL;

  for (GList *l = questions->head; l != NULL;)
    {
      GList *next = l->next;

      if (g_object_get_data (l->data, "cs-job") == job)
        {
          taken = g_list_prepend (taken, l->data);
          g_queue_delete_link (questions, l);
        }
      l = next;
    }

  return g_list_reverse (taken);
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

  /* Questions of the same copy already asked before "apply to all" get the
   * same answer. */
  if (apply_to_all && conflict != NULL)
    {
      GList *same = steal_questions_of (&self->conflicts,
                                        g_object_get_data (G_OBJECT (conflict), "cs-job"));

      for (GList *l = same; l != NULL; l = l->next)
        cs_conflict_answer (l->data, answer, TRUE);
      g_list_free_full (same, g_object_unref);
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
                            cs_conflict_get_destination_mtime (self->conflict),
                            cs_conflict_get_source_size (self->conflict),
                            cs_conflict_get_source_mtime (self->conflict));
  incoming = describe_file (cs_conflict_get_source_size (self->conflict),
                            cs_conflict_get_source_mtime (self->conflict),
                            cs_conflict_get_destination_size (self->conflict),
                            cs_conflict_get_destination_mtime (self->conflict));
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
  g_object_set_data (G_OBJECT (conflict), "cs-job", job);
  g_queue_push_tail (&self->conflicts, g_object_ref (conflict));
  cs_window_show_next_conflict (self);
}

static void cs_window_show_next_deletions (CsWindow *self);

static void
deletions_response_cb (CsWindow *self)
{
  self->deletions_dialog = NULL;
  self->deletions_job = NULL;
  cs_window_show_next_deletions (self);
}

/* One mirror's question at a time; copies side by side may ask together. */
static void
cs_window_show_next_deletions (CsWindow *self)
{
  g_autoptr(CsDeletions) deletions = NULL;
  CsJob *job;

  if (self->deletions_dialog != NULL || g_queue_is_empty (&self->deletions_waiting))
    return;

  deletions = g_queue_pop_head (&self->deletions_waiting);
  job = g_object_get_data (G_OBJECT (deletions), "cs-job");
  self->deletions_job = job;
  self->deletions_dialog = _cs_deletions_dialog_new (GTK_WINDOW (self), deletions,
                                                     cs_run_get_destination (cs_job_get_run (job)));
  g_signal_connect_object (self->deletions_dialog, "response",
                           G_CALLBACK (deletions_response_cb), self, G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (self->deletions_dialog));
}

/* main thread: a mirror has copied everything and asks before deleting. */
static void
job_deletions_cb (CsWindow    *self,
                  CsDeletions *deletions,
                  CsJob       *job)
{
  g_object_set_data_full (G_OBJECT (deletions), "cs-job", g_object_ref (job), g_object_unref);
  g_queue_push_tail (&self->deletions_waiting, g_object_ref (deletions));
  cs_window_show_next_deletions (self);
}

/* A finished job's question, asked or waiting, goes: nobody needs the answer
 * (the engine stopped waiting and deleted nothing). */
static void
cs_window_drop_deletions (CsWindow *self,
                          CsJob    *job)
{
  GList *waiting = steal_questions_of (&self->deletions_waiting, job);

  for (GList *l = waiting; l != NULL; l = l->next)
    cs_deletions_answer (l->data, FALSE);
  g_list_free_full (waiting, g_object_unref);

  if (self->deletions_dialog != NULL && self->deletions_job == job)
    {
      AdwMessageDialog *dialog = g_steal_pointer (&self->deletions_dialog);

      self->deletions_job = NULL;
      g_signal_handlers_disconnect_by_data (dialog, self);
      gtk_window_destroy (GTK_WINDOW (dialog));
      cs_window_show_next_deletions (self);
    }
}

/* Leaves no worker of @job waiting for a question nobody will answer; a
 * mirror's question unanswered deletes nothing. Copies side by side keep
 * theirs. */
static void
cs_window_drop_questions (CsWindow *self,
                          CsJob    *job)
{
  GList *waiting = steal_questions_of (&self->conflicts, job);

  cs_window_drop_deletions (self, job);
  for (GList *l = waiting; l != NULL; l = l->next)
    cs_conflict_answer (l->data, CS_CONFLICT_SKIP, FALSE);
  g_list_free_full (waiting, g_object_unref);

  if (self->conflict_dialog != NULL && g_object_get_data (G_OBJECT (self->conflict), "cs-job") == job)
    {
      AdwMessageDialog *dialog = self->conflict_dialog;

      g_signal_handlers_disconnect_by_data (dialog, self);
      self->conflict_dialog = NULL;
      self->conflict_apply_all = NULL;
      cs_conflict_answer (self->conflict, CS_CONFLICT_SKIP, FALSE);
      g_clear_object (&self->conflict);
      gtk_window_destroy (GTK_WINDOW (dialog));
      cs_window_show_next_conflict (self);
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

/* A copy that ran side by side has ended: it leaves the queue, its run is
 * kept, a toast leads to its summary, and its device is free for the next. */
static void
cs_window_side_job_done (CsWindow *self,
                         CsJob    *job)
{
  g_autoptr(CsQueuedJob) queued = NULL;
  g_autofree char *name = NULL;
  g_autofree char *title = NULL;
  CsRun *run = cs_job_get_run (job);
  AdwToast *toast;
  guint position;

  for (guint i = 0; self->side_jobs != NULL && i < self->side_jobs->len; i++)
    if (cs_queued_job_get_job (g_ptr_array_index (self->side_jobs, i)) == job)
      queued = g_ptr_array_steal_index (self->side_jobs, i);
  if (queued == NULL)
    return;

  g_signal_handlers_disconnect_by_data (job, self);
  cs_window_drop_questions (self, job);
  if (g_list_store_find (self->queue, queued, &position))
    g_list_store_remove (self->queue, position);
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

  _cs_window_start_queued (self);
  _cs_window_actions_update (self);
}

static void
run_done_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(CsWindow) self = user_data;
  CsJob *job = CS_JOB (object);
  g_autoptr(GError) error = NULL;
  g_autoptr(CsJob) finished = NULL;
  CsRun *run;

  /* The summary built below is a one-off after the copy, not part of it. */
  if (self->loop_probe != NULL && self->job == job)
    {
      g_autofree char *line = NULL;

      cs_loop_probe_stop (self->loop_probe);
      line = cs_loop_probe_describe (self->loop_probe);
      g_printerr ("%s\n", line);
    }

  if (!cs_job_run_finish (job, result, &error)
      && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_message ("Copy stopped: %s", error->message);

  /* A copy that ran side by side ends apart from the one shown. The window
   * may be gone; the job's result is then nobody's concern. */
  if (self->job != job)
    {
      cs_window_side_job_done (self, job);
      return;
    }

  finished = g_steal_pointer (&self->job);
  g_signal_handlers_disconnect_by_data (finished, self);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->job_device, g_free);
  cs_window_drop_questions (self, finished);

  if (self->cancel_dialog != NULL)
    gtk_window_destroy (GTK_WINDOW (self->cancel_dialog));

  cs_copy_page_set_job (self->copy_page, NULL);

  run = cs_job_get_run (finished);
  cs_window_save_run (self, finished);
  g_clear_pointer (&self->copy_run, cs_run_unref);
  self->copy_run = cs_run_ref (run);
  cs_summary_page_set_run (self->summary_page, run);
  self->summary_from_history = FALSE;
  adw_window_title_set_subtitle (self->window_title, NULL);

  /* The user closed the window during the copy and has seen it cancelled. */
  if (self->close_when_done)
    {
      g_list_store_remove_all (self->queue);
      gtk_window_destroy (GTK_WINDOW (self));
      return;
    }

  /* The next queued copy follows; this one's summary is a toast away. */
  _cs_window_start_queued (self);
  if (self->job == NULL)
    cs_window_uninhibit (self);
  if (self->job != NULL)
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
  self->inhibit_cookie = session->inhibit (GTK_WINDOW (self), reason);
}

/*
 * Checks @job, whose destination is @destination, and runs it, or explains on
 * the setup page why not. The window takes its own reference.
 */
gboolean
_cs_window_start (CsWindow   *self,
                  CsJob      *job,
                  const char *destination)
{
  g_autoptr(GError) error = NULL;

  g_assert (CS_IS_WINDOW (self));
  g_assert (CS_IS_JOB (job));

  if (self->job != NULL)
    return FALSE;

  if (!cs_job_check (job, &error))
    {
      cs_window_show_refusal (self, error);
      _cs_window_show_home (self, "setup");
      return FALSE;
    }
  cs_window_show_refusal (self, NULL);

  self->job = g_object_ref (job);
  self->job_device = cs_queued_job_device_of (destination);
  self->cancellable = g_cancellable_new ();
  self->last_state = CS_JOB_STATE_READY;

  g_signal_connect_object (job, "progress", G_CALLBACK (job_progress_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (job, "conflict", G_CALLBACK (job_conflict_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (job, "deletions", G_CALLBACK (job_deletions_cb), self, G_CONNECT_SWAPPED);
  cs_copy_page_set_job (self->copy_page, job);

  /* A copy that a suspend or a logout cuts off is left for the next run to clean up. */
  cs_window_inhibit_for (self, job);
  adw_window_title_set_subtitle (self->window_title, operation_doing (cs_job_get_operation (job)));
  _cs_window_show_home (self, "copying");

  self->job_running = FALSE;
  cs_window_run_when_drawn (self);

  return TRUE;
}

/*
 * @job (checked here) waits in the queue until the copies to its destination
 * device queued before it have run, so two never share a disk or a server;
 * with "queue-side-by-side", one to another device starts at once beside the
 * running copy. FALSE, with a toast saying why, when it cannot run.
 */
gboolean
_cs_window_queue (CsWindow   *self,
                  CsJob      *job,
                  GStrv       sources,
                  const char *destination)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(CsQueuedJob) queued = NULL;
  guint n;
  g_autofree char *title = NULL;

  if (!cs_job_check (job, &error))
    {
      _cs_window_show_toast (self, error->message);
      return FALSE;
    }

  queued = cs_queued_job_new (job, (const char * const *) sources, destination);
  g_list_store_append (self->queue, queued);
  n = g_list_model_get_n_items (G_LIST_MODEL (self->queue));
  /* Translators: a copy added to the queue while another runs */
  title = g_strdup_printf (ngettext ("Queued: %u copy waits for its turn",
                                     "Queued: %u copies wait for their turn", n), n);
  _cs_window_show_toast (self, title);
  _cs_window_start_queued (self);
  _cs_window_actions_update (self);
  return TRUE;
}

/* Whether a copy runs to @device: a second one waits for it. */
static gboolean
cs_window_device_busy (CsWindow   *self,
                       const char *device)
{
  if (self->job != NULL && g_strcmp0 (self->job_device, device) == 0)
    return TRUE;
  for (guint i = 0; i < self->side_jobs->len; i++)
    if (g_strcmp0 (cs_queued_job_get_device (g_ptr_array_index (self->side_jobs, i)), device) == 0)
      return TRUE;

  return FALSE;
}

/* The first queued copy that may start: not held, not running, its device free. */
static CsQueuedJob *
cs_window_next_queued (CsWindow *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->queue));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(CsQueuedJob) candidate = g_list_model_get_item (G_LIST_MODEL (self->queue), i);

      if (!cs_queued_job_get_held (candidate) && !cs_queued_job_get_running (candidate) &&
          !cs_window_device_busy (self, cs_queued_job_get_device (candidate)))
        return g_steal_pointer (&candidate);
    }

  return NULL;
}

/* A copy running side by side becomes the one shown, when that one ended and
 * none queued can take its place. */
static void
cs_window_show_side_job (CsWindow *self)
{
  g_autoptr(CsQueuedJob) queued = g_ptr_array_steal_index (self->side_jobs, 0);
  CsJob *job = cs_queued_job_get_job (queued);
  guint position;

  if (g_list_store_find (self->queue, queued, &position))
    g_list_store_remove (self->queue, position);
  cs_queued_job_set_running (queued, FALSE);

  self->job = g_object_ref (job);
  self->job_device = g_strdup (cs_queued_job_get_device (queued));
  self->cancellable = g_cancellable_new ();
  self->job_running = TRUE;
  self->last_state = CS_JOB_STATE_READY;
  g_signal_connect_object (job, "progress", G_CALLBACK (job_progress_cb), self, G_CONNECT_SWAPPED);
  cs_copy_page_set_job (self->copy_page, job);
  cs_window_inhibit_for (self, job);
  _cs_window_show_home (self, "copying");
}

/* @queued runs beside the copy shown and stays in the queue's list, marked
 * running, until it ends. */
static void
cs_window_start_side_job (CsWindow    *self,
                          CsQueuedJob *queued)
{
  CsJob *job = cs_queued_job_get_job (queued);

  cs_queued_job_set_running (queued, TRUE);
  g_ptr_array_add (self->side_jobs, g_object_ref (queued));
  g_signal_connect_object (job, "conflict", G_CALLBACK (job_conflict_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (job, "deletions", G_CALLBACK (job_deletions_cb), self, G_CONNECT_SWAPPED);
  cs_job_run_async (job, NULL, run_done_cb, g_object_ref (self));
}

/*
 * Starts what the queue allows. Copies to one destination device (a
 * filesystem, or a server for shares) run one after the other. When nothing
 * is shown, the first queued copy whose device is free starts and is shown,
 * or else one running side by side is shown. With "queue-side-by-side", the
 * queued copies to other devices start beside it.
 */
void
_cs_window_start_queued (CsWindow *self)
{
  CsQueuedJob *next;

  while (self->job == NULL && (next = cs_window_next_queued (self)) != NULL)
    {
      g_autoptr(CsQueuedJob) queued = next;
      guint position;

      if (g_list_store_find (self->queue, queued, &position))
        g_list_store_remove (self->queue, position);
      /* One that cannot start any more (a source gone meanwhile) says why on
       * the setup page; the next one gets its turn. */
      _cs_window_start (self, cs_queued_job_get_job (queued), cs_queued_job_get_destination (queued));
    }
  if (self->job == NULL && self->side_jobs->len > 0)
    cs_window_show_side_job (self);

  if (self->job == NULL || !g_settings_get_boolean (self->settings, "queue-side-by-side"))
    return;
  while ((next = cs_window_next_queued (self)) != NULL)
    {
      g_autoptr(CsQueuedJob) queued = next;

      cs_window_start_side_job (self, queued);
    }
}

static void
cancel_response_cb (CsWindow         *self,
                    const char       *response,
                    AdwMessageDialog *dialog)
{
  self->cancel_dialog = NULL;

  if (g_strcmp0 (response, "cancel") == 0 && self->job != NULL)
    {
      GtkCheckButton *keep = g_object_get_data (G_OBJECT (dialog), "keep-partial");

      cs_window_drop_questions (self, self->job);
      cs_job_set_keep_partial (self->job, keep != NULL && gtk_widget_get_visible (GTK_WIDGET (keep))
                                          && gtk_check_button_get_active (keep));
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
  g_object_set_data (G_OBJECT (self->cancel_dialog), "keep-partial",
                     gtk_builder_get_object (builder, "keep_partial"));
  cancel_dialog_update_keep (self);
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
      cs_window_drop_questions (self, self->job);
      cs_job_cancel (self->job);
      g_clear_object (&self->job);
    }
  for (guint i = 0; self->side_jobs != NULL && i < self->side_jobs->len; i++)
    {
      CsJob *side = cs_queued_job_get_job (g_ptr_array_index (self->side_jobs, i));

      g_signal_handlers_disconnect_by_data (side, self);
      cs_window_drop_questions (self, side);
      cs_job_cancel (side);
    }
  g_clear_pointer (&self->side_jobs, g_ptr_array_unref);

  _cs_window_login_cancel (self);
  _cs_window_check_cancel (self);
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_cancellable_cancel (self->choosers);
  g_clear_object (&self->choosers);
  cs_window_clear_run_wait (self);
  cs_window_uninhibit (self);

  g_queue_clear_full (&self->conflicts, g_object_unref);
  g_queue_clear_full (&self->deletions_waiting, g_object_unref);
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
  g_clear_pointer (&self->retry_targets, g_hash_table_unref);
  g_clear_pointer (&self->back_stack, g_ptr_array_unref);
  g_clear_pointer (&self->copy_run, cs_run_unref);
  g_clear_object (&self->queue);
  g_free (self->job_device);

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

  if (self->job != NULL)
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
  self->side_jobs = g_ptr_array_new_with_free_func (g_object_unref);
  self->queue = g_list_store_new (CS_TYPE_QUEUED_JOB);

  cs_setup_page_bind_settings (self->setup_page, self->settings);
  cs_copy_page_bind_settings (self->copy_page, self->settings);
  cs_copy_page_set_queue (self->copy_page, G_LIST_MODEL (self->queue));

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
  /* Turned on while copies wait, the ones to other devices start now. */
  g_signal_connect_object (self->settings, "changed::queue-side-by-side",
                           G_CALLBACK (_cs_window_start_queued), self, G_CONNECT_SWAPPED);
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

CsWindow *
cs_window_new (CsApplication *application)
{
  g_return_val_if_fail (application == NULL || CS_IS_APPLICATION (application), NULL);

  return g_object_new (CS_TYPE_WINDOW,
                       "application", application,
                       NULL);
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

  if (self->job == NULL)
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

  if (self->job != NULL)
    return FALSE;

  gtk_widget_activate_action (GTK_WIDGET (self), "win.start", NULL);
  /* A copy to an SMB share may first wait for its login. */
  if (self->job == NULL && self->login == NULL)
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

  return G_LIST_MODEL (self->queue);
}

/* The running job, or NULL. */
CsJob *
cs_window_get_job (CsWindow *self)
{
  g_return_val_if_fail (CS_IS_WINDOW (self), NULL);

  return self->job;
}
