/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "cs-copy-page.h"
#include "cs-counter-view.h"
#include "cs-fold-box.h"
#include "cs-format.h"
#include "cs-limit-hint.h"
#include "cs-progress-view.h"
#include "cs-queue-row.h"
#include "cs-speed-limit.h"
#include "cs-phase-view.h"
#include "cs-throughput-graph.h"

/*
 * A copy while it runs: progress, the live graph, what limits it, the thread
 * slider and Auto (which steer the job), the problems so far and every
 * counter, and the copies queued behind it. Files dropped on the page are
 * handed to the window ("files-dropped"), which queues them. The page follows
 * the job's coalesced signals; the window owns the job, its questions, its
 * end and the queue.
 */

#define THREADS_SETTLE_MS  200
#define MAX_ERROR_ROWS     200

struct _CsCopyPage
{
  GtkWidget          parent_instance;

  /* Template widgets */
  CsProgressView    *progress_view;
  GtkToggleButton   *show_all_button;
  CsThroughputGraph *graph;
  CsPhaseView       *phase_view;
  CsLimitHint       *limit_hint;
  CsThreadSlider    *thread_slider;
  CsSpeedLimit      *speed_limit;
  AdwExpanderRow    *errors_row;
  CsCounterView     *counter_view;
  GtkWidget         *queue_box;
  GtkLabel          *queue_label;
  GtkListBox        *queue_list;

  /* Owned */
  GListModel        *queue;
  CsJob             *job;
  GPtrArray         *error_rows;      /* rows added to errors_row */
  guint              n_errors_shown;
  guint              n_notes_shown;
  guint              threads_timeout_id;
};

G_DEFINE_FINAL_TYPE (CsCopyPage, cs_copy_page, GTK_TYPE_WIDGET)

/* The newest phase buckets handed to the limit hint each sample: its
 * window (a few seconds) at the sampler's fastest pace, with room. */
#define PHASES_FED 64
/* Pixels above the phase view kept in sight when scrolling to it: its heading. */
#define PHASES_HEADING_ROOM 36

enum {
  FILES_DROPPED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* main thread */
static void
job_sample_cb (CsCopyPage *self,
               gpointer    sample_pointer,
               CsJob      *job)
{
  const CsSample *sample = sample_pointer;
  g_autoptr(GArray) phases = cs_run_dup_phase_series_newest (cs_job_get_run (job), PHASES_FED);
  CsProgress progress;

  cs_throughput_graph_push_sample (self->graph, sample);
  cs_phase_view_refresh (self->phase_view, FALSE);
  cs_counter_view_set_sample (self->counter_view, sample);
  cs_limit_hint_set_limited (self->limit_hint, cs_job_get_limited (job));
  cs_limit_hint_set_remote (self->limit_hint, cs_job_get_destination_remote (job));
  cs_job_get_progress (job, &progress);
  cs_limit_hint_set_scan_ended (self->limit_hint, !progress.scanning);
  /* The sampler records a sample's phases before it hands the sample over;
   * the newest few are all the hint looks at (it takes each once). */
  if (phases != NULL)
    {
      cs_limit_hint_push_phases (self->limit_hint,
                                 &g_array_index (phases, CsPhaseBucket, 0), phases->len);
    }
  cs_limit_hint_push_sample (self->limit_hint, sample);
}

/* main thread: the limit's sentence was activated. The view may be below
 * the fold (a narrow window puts it under the graph): scroll it into sight
 * and give it the focus, so a screen reader reads it and Tab goes on from
 * there. */
static void
limit_hint_show_phases_cb (CsCopyPage *self)
{
  GtkWidget *view = GTK_WIDGET (self->phase_view);
  GtkWidget *frame = gtk_widget_get_parent (view);
  GtkWidget *scrolled = gtk_widget_get_ancestor (view, GTK_TYPE_SCROLLED_WINDOW);

  if (scrolled != NULL)
    {
      GtkWidget *content = gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (scrolled));
      GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scrolled));
      graphene_rect_t bounds;

      /* The heading above the frame too, where there is room for it. */
      if (content != NULL && gtk_widget_compute_bounds (frame, content, &bounds))
        gtk_adjustment_clamp_page (adjustment,
                                   MAX (0.0, bounds.origin.y - PHASES_HEADING_ROOM),
                                   bounds.origin.y + bounds.size.height);
    }
  gtk_widget_grab_focus (view);
}

/* The problems so far, or, while nothing failed, the notes (what the
 * destination does not keep, what is left out on purpose), which are not
 * problems; the rows list both, in the order they came. */
static void
cs_copy_page_show_errors (CsCopyPage *self,
                          guint       n_errors,
                          guint       n_notes)
{
  g_autoptr(GPtrArray) errors = NULL;
  g_autofree char *title = NULL;

  if (n_errors == self->n_errors_shown && n_notes == self->n_notes_shown)
    return;

  if (n_errors > 0)
    {
      title = g_strdup_printf (ngettext ("%u Problem", "%u Problems", n_errors), n_errors);
      adw_expander_row_set_subtitle (self->errors_row,
                                     _("Files that could not be copied; the copy goes on"));
      adw_expander_row_set_icon_name (self->errors_row, "dialog-warning-symbolic");
    }
  else
    {
      title = g_strdup_printf (ngettext ("No Problems, %u Note", "No Problems, %u Notes", n_notes),
                               n_notes);
      adw_expander_row_set_subtitle (self->errors_row, NULL);
      adw_expander_row_set_icon_name (self->errors_row, "emblem-ok-symbolic");
    }
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->errors_row), title);
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
          g_autofree char *reason = NULL;
          GtkWidget *row;

          if (error->note)
            /* Translators: a row of the live list that is not a failure, like
             * "Note: Not copied: a socket belongs to the program that listens on it" */
            reason = g_strdup_printf (_("Note: %s"), error->message != NULL ? error->message : "");
          else
            reason = g_strdup_printf ("%s: %s", error->operation != NULL ? error->operation : "",
                                      error->message != NULL ? error->message : "");
          /* A leaf row per entry, made from data; the layout is AdwActionRow's. */
          row = g_object_new (ADW_TYPE_ACTION_ROW,
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
  self->n_notes_shown = n_notes;
}

static void
cs_copy_page_reset_errors (CsCopyPage *self)
{
  for (guint i = 0; i < self->error_rows->len; i++)
    adw_expander_row_remove (self->errors_row, g_ptr_array_index (self->error_rows, i));
  g_ptr_array_set_size (self->error_rows, 0);

  self->n_errors_shown = 0;
  self->n_notes_shown = 0;
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->errors_row), _("No Problems"));
  adw_expander_row_set_subtitle (self->errors_row, NULL);
  adw_expander_row_set_icon_name (self->errors_row, "emblem-ok-symbolic");
  adw_expander_row_set_expanded (self->errors_row, FALSE);
  adw_expander_row_set_enable_expansion (self->errors_row, FALSE);
}

/* main thread */
static void
job_progress_cb (CsCopyPage *self,
                 CsJob      *job)
{
  CsProgress progress;

  cs_job_get_progress (job, &progress);
  cs_progress_view_update (self->progress_view, &progress);
  cs_throughput_graph_set_show_checks (self->graph, cs_progress_view_get_checking (self->progress_view));
  cs_copy_page_show_errors (self, progress.n_errors, progress.n_notes);
}

/* main thread */
static void
job_threads_changed_cb (CsCopyPage *self,
                        guint       from,
                        guint       to,
                        CsJob      *job)
{
  g_autoptr(GArray) timeline = NULL;

  cs_throughput_graph_update_timeline (self->graph);
  cs_phase_view_refresh (self->phase_view, TRUE);

  timeline = cs_run_dup_timeline (cs_job_get_run (job));
  if (timeline != NULL && timeline->len > 0)
    cs_limit_hint_set_change (self->limit_hint,
                              &g_array_index (timeline, CsThreadChange, timeline->len - 1));

  /* A change the user is still making wins over one the job reports late. */
  if (self->threads_timeout_id == 0)
    cs_thread_slider_set_threads (self->thread_slider, to);
}

static gboolean
apply_threads_cb (gpointer user_data)
{
  CsCopyPage *self = user_data;

  self->threads_timeout_id = 0;

  if (self->job != NULL)
    cs_job_set_threads (self->job, cs_thread_slider_get_threads (self->thread_slider), "user");

  return G_SOURCE_REMOVE;
}

static void
thread_slider_changed_cb (CsCopyPage *self)
{
  /* Under Auto the slider follows the job; only a hand on it turns Auto off. */
  if (self->job == NULL || cs_thread_slider_get_auto (self->thread_slider))
    return;

  /* A drag passes many counts; the job and its record get the one it settles on. */
  g_clear_handle_id (&self->threads_timeout_id, g_source_remove);
  self->threads_timeout_id = g_timeout_add (THREADS_SETTLE_MS, apply_threads_cb, self);
}

static void
auto_changed_cb (CsCopyPage *self)
{
  if (self->job != NULL)
    cs_job_set_auto_threads (self->job, cs_thread_slider_get_auto (self->thread_slider));
}

static GtkWidget *
create_queue_row (gpointer item,
                  gpointer user_data)
{
  return cs_queue_row_new (CS_QUEUED_JOB (item));
}

/* A copy started side by side stays listed, marked running: the heading
 * counts it apart from those that wait. */
static void
queue_update_title (CsCopyPage *self)
{
  guint n = g_list_model_get_n_items (self->queue);
  guint running = 0;
  guint waiting;
  g_autofree char *title = NULL;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(CsQueuedJob) queued = g_list_model_get_item (self->queue, i);

      if (cs_queued_job_get_running (queued))
        running++;
    }
  waiting = n - running;

  if (running == 0)
    {
      /* Translators: the heading of the copies waiting behind the running one */
      title = g_strdup_printf (ngettext ("Queue: %u Copy Waiting", "Queue: %u Copies Waiting", waiting),
                               waiting);
    }
  else
    {
      g_autofree char *beside = NULL;

      /* Translators: the heading of the queue when copies run beside the one shown */
      beside = g_strdup_printf (ngettext ("Queue: %u Copy Running Side by Side",
                                          "Queue: %u Copies Running Side by Side", running),
                                running);
      if (waiting == 0)
        title = g_steal_pointer (&beside);
      else
        /* Translators: the queue's heading, then how many copies wait:
         * "Queue: 1 Copy Running Side by Side, 2 Waiting" */
        title = g_strdup_printf (ngettext ("%s, %u Waiting", "%s, %u Waiting", waiting),
                                 beside, waiting);
    }
  gtk_label_set_label (self->queue_label, title);
  gtk_widget_set_visible (self->queue_box, n > 0);
}

static void
queue_changed_cb (GListModel *queue,
                  guint       position,
                  guint       removed,
                  guint       added,
                  CsCopyPage *self)
{
  for (guint i = position; i < position + added; i++)
    {
      g_autoptr(CsQueuedJob) queued = g_list_model_get_item (queue, i);

      /* Once per item: one moved in the list is removed and added again. */
      g_signal_handlers_disconnect_by_func (queued, queue_update_title, self);
      g_signal_connect_object (queued, "notify::running", G_CALLBACK (queue_update_title), self,
                               G_CONNECT_SWAPPED);
    }
  queue_update_title (self);
}

static gboolean
drop_cb (CsCopyPage    *self,
         const GValue  *value,
         double         x,
         double         y,
         GtkDropTarget *target)
{
  GSList *files = g_value_get_boxed (value);

  if (files == NULL)
    return FALSE;
  g_signal_emit (self, signals[FILES_DROPPED], 0, files);
  return TRUE;
}

/* A limit set during the copy applies at once (the job marks the change). */
static void
limit_changed_cb (CsCopyPage *self)
{
  if (self->job == NULL)
    return;
  cs_job_set_max_rate (self->job, cs_speed_limit_get_max_rate (self->speed_limit));
  cs_job_set_max_files (self->job, cs_speed_limit_get_max_files (self->speed_limit));
}

static void
cs_copy_page_dispose (GObject *object)
{
  CsCopyPage *self = CS_COPY_PAGE (object);
  GtkWidget *child;

  if (self->job != NULL)
    g_signal_handlers_disconnect_by_data (self->job, self);
  g_clear_object (&self->job);
  g_clear_handle_id (&self->threads_timeout_id, g_source_remove);
  if (self->queue != NULL)
    g_signal_handlers_disconnect_by_data (self->queue, self);
  g_clear_object (&self->queue);

  gtk_widget_dispose_template (GTK_WIDGET (self), CS_TYPE_COPY_PAGE);

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (cs_copy_page_parent_class)->dispose (object);
}

static void
cs_copy_page_finalize (GObject *object)
{
  CsCopyPage *self = CS_COPY_PAGE (object);

  g_clear_pointer (&self->error_rows, g_ptr_array_unref);

  G_OBJECT_CLASS (cs_copy_page_parent_class)->finalize (object);
}

static void
cs_copy_page_class_init (CsCopyPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cs_copy_page_dispose;
  object_class->finalize = cs_copy_page_finalize;

  g_type_ensure (CS_TYPE_COUNTER_VIEW);
  g_type_ensure (CS_TYPE_FOLD_BOX);
  g_type_ensure (CS_TYPE_LIMIT_HINT);
  g_type_ensure (CS_TYPE_PROGRESS_VIEW);
  g_type_ensure (CS_TYPE_SPEED_LIMIT);
  g_type_ensure (CS_TYPE_THREAD_SLIDER);
  g_type_ensure (CS_TYPE_THROUGHPUT_GRAPH);
  g_type_ensure (CS_TYPE_PHASE_VIEW);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-copy-page.ui");
  gtk_widget_class_bind_template_child (widget_class, CsCopyPage, progress_view);
  gtk_widget_class_bind_template_child (widget_class, CsCopyPage, show_all_button);
  gtk_widget_class_bind_template_child (widget_class, CsCopyPage, graph);
  gtk_widget_class_bind_template_child (widget_class, CsCopyPage, phase_view);
  gtk_widget_class_bind_template_child (widget_class, CsCopyPage, limit_hint);
  gtk_widget_class_bind_template_child (widget_class, CsCopyPage, thread_slider);
  gtk_widget_class_bind_template_child (widget_class, CsCopyPage, speed_limit);
  gtk_widget_class_bind_template_child (widget_class, CsCopyPage, errors_row);
  gtk_widget_class_bind_template_child (widget_class, CsCopyPage, counter_view);
  gtk_widget_class_bind_template_child (widget_class, CsCopyPage, queue_box);
  gtk_widget_class_bind_template_child (widget_class, CsCopyPage, queue_label);
  gtk_widget_class_bind_template_child (widget_class, CsCopyPage, queue_list);

  /* Files dropped during a copy (a GSList of GFile), for the queue. */
  signals[FILES_DROPPED] = g_signal_new ("files-dropped", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                         0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_POINTER);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "copypage");
}

static void
cs_copy_page_init (CsCopyPage *self)
{
  GtkDropTarget *target;

  gtk_widget_init_template (GTK_WIDGET (self));

  target = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect_object (target, "drop", G_CALLBACK (drop_cb), self, G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (target));

  self->error_rows = g_ptr_array_new ();

  g_object_bind_property (self->show_all_button, "active", self->graph, "show-all",
                          G_BINDING_SYNC_CREATE);
  g_signal_connect_object (self->thread_slider, "notify::threads",
                           G_CALLBACK (thread_slider_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->thread_slider, "notify::auto",
                           G_CALLBACK (auto_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->speed_limit, "notify::max-rate",
                           G_CALLBACK (limit_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->speed_limit, "notify::max-files",
                           G_CALLBACK (limit_changed_cb), self, G_CONNECT_SWAPPED);

  /* The limit's sentence leads to the workers' time, which it is drawn
   * from; the view takes the focus when it is shown that way. */
  gtk_widget_set_focusable (GTK_WIDGET (self->phase_view), TRUE);
  cs_limit_hint_set_phases_link (self->limit_hint, TRUE);
  g_signal_connect_object (self->limit_hint, "show-phases",
                           G_CALLBACK (limit_hint_show_phases_cb), self, G_CONNECT_SWAPPED);
}

/*
 * Follows @job from its start; NULL after its end, when the page shows its
 * last progress and keeps what it showed.
 */
void
cs_copy_page_set_job (CsCopyPage *self,
                      CsJob      *job)
{
  g_return_if_fail (CS_IS_COPY_PAGE (self));
  g_return_if_fail (job == NULL || CS_IS_JOB (job));

  if (self->job == job)
    return;

  if (self->job != NULL)
    {
      CsProgress progress;

      g_signal_handlers_disconnect_by_data (self->job, self);
      g_clear_handle_id (&self->threads_timeout_id, g_source_remove);
      cs_job_get_progress (self->job, &progress);
      cs_progress_view_update (self->progress_view, &progress);
      g_clear_object (&self->job);
    }

  if (job == NULL)
    return;

  self->job = g_object_ref (job);
  g_signal_connect_object (job, "progress", G_CALLBACK (job_progress_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (job, "sample", G_CALLBACK (job_sample_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (job, "threads-changed", G_CALLBACK (job_threads_changed_cb), self,
                           G_CONNECT_SWAPPED);

  cs_progress_view_reset (self->progress_view);
  cs_throughput_graph_set_show_checks (self->graph, FALSE);
  cs_counter_view_set_sample (self->counter_view, NULL);
  cs_copy_page_reset_errors (self);
  cs_throughput_graph_set_run (self->graph, cs_job_get_run (job));
  cs_phase_view_set_run (self->phase_view, cs_job_get_run (job));
  cs_limit_hint_reset (self->limit_hint);
  cs_thread_slider_set_threads (self->thread_slider, cs_job_get_threads (job));
}

/* The job shown, or NULL. */
CsJob *
cs_copy_page_get_job (CsCopyPage *self)
{
  g_return_val_if_fail (CS_IS_COPY_PAGE (self), NULL);

  return self->job;
}

/* The speed limit that steers the running job. */
CsSpeedLimit *
cs_copy_page_get_speed_limit (CsCopyPage *self)
{
  g_return_val_if_fail (CS_IS_COPY_PAGE (self), NULL);

  return self->speed_limit;
}

/* The slider that steers the running job. */
CsThreadSlider *
cs_copy_page_get_thread_slider (CsCopyPage *self)
{
  g_return_val_if_fail (CS_IS_COPY_PAGE (self), NULL);

  return self->thread_slider;
}

/* Whether the graph shows the whole copy is remembered in @settings. */
void
cs_copy_page_bind_settings (CsCopyPage *self,
                            GSettings  *settings)
{
  g_return_if_fail (CS_IS_COPY_PAGE (self));
  g_return_if_fail (G_IS_SETTINGS (settings));

  g_settings_bind (settings, "graph-show-all", self->show_all_button, "active",
                   G_SETTINGS_BIND_DEFAULT);
}

/* The copies waiting behind the running one: a model of CsQueuedJob. */
void
cs_copy_page_set_queue (CsCopyPage *self,
                        GListModel *queue)
{
  g_return_if_fail (CS_IS_COPY_PAGE (self));
  g_return_if_fail (G_IS_LIST_MODEL (queue));

  g_set_object (&self->queue, queue);
  gtk_list_box_bind_model (self->queue_list, queue, create_queue_row, NULL, NULL);
  g_signal_connect_object (queue, "items-changed", G_CALLBACK (queue_changed_cb), self, 0);
  queue_changed_cb (queue, 0, 0, g_list_model_get_n_items (queue), self);
}
