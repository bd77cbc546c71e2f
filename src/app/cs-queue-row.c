/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <glib/gi18n.h>

#include "cs-format.h"
#include "cs-queue-row.h"

/*
 * One copy waiting in the queue: what goes where, and whether it waits or is
 * held. Its buttons ask the window (win.queue-up, -down, -hold, -remove, with
 * the row's place in the queue) to change the queue.
 */

struct _CsQueueRow
{
  AdwActionRow     parent_instance;

  /* Template widgets */
  GtkButton       *up_button;
  GtkButton       *down_button;
  GtkToggleButton *hold_button;

  /* Owned */
  CsQueuedJob     *queued;
};

G_DEFINE_FINAL_TYPE (CsQueueRow, cs_queue_row, ADW_TYPE_ACTION_ROW)

static void
cs_queue_row_show (CsQueueRow *self)
{
  gboolean held = cs_queued_job_get_held (self->queued);
  gboolean running = cs_queued_job_get_running (self->queued);
  g_autofree char *destination = _cs_display_path (cs_queued_job_get_destination (self->queued));
  g_autofree char *subtitle = NULL;
  const char *state;

  if (running)
    /* Translators: a queued copy's state: it runs beside the one shown, to another device */
    state = _("Running side by side");
  else if (held)
    state = _("Held");
  else
    state = _("Waiting");
  /* Translators: a queued copy's destination and its state */
  subtitle = g_strdup_printf (_("Into %s · %s"), destination, state);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self), subtitle);
  /* A running copy is no longer moved about, held or removed here. */
  for (GtkWidget *button = GTK_WIDGET (self->up_button); button != NULL;
       button = gtk_widget_get_next_sibling (button))
    gtk_widget_set_sensitive (button, !running);
  gtk_toggle_button_set_active (self->hold_button, held);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->hold_button),
                               held ? _("Let this copy run when its turn comes") : _("Hold this copy back"));
}

static void
cs_queue_row_activate_action (CsQueueRow *self,
                              const char *action)
{
  int index = gtk_list_box_row_get_index (GTK_LIST_BOX_ROW (self));

  if (index >= 0)
    gtk_widget_activate_action (GTK_WIDGET (self), action, "u", (guint) index);
}

static void
up_clicked_cb (CsQueueRow *self)
{
  cs_queue_row_activate_action (self, "win.queue-up");
}

static void
down_clicked_cb (CsQueueRow *self)
{
  cs_queue_row_activate_action (self, "win.queue-down");
}

static void
hold_toggled_cb (CsQueueRow *self)
{
  if (gtk_toggle_button_get_active (self->hold_button) != cs_queued_job_get_held (self->queued))
    cs_queue_row_activate_action (self, "win.queue-hold");
}

static void
remove_clicked_cb (CsQueueRow *self)
{
  cs_queue_row_activate_action (self, "win.queue-remove");
}

static void
cs_queue_row_dispose (GObject *object)
{
  CsQueueRow *self = CS_QUEUE_ROW (object);

  g_clear_object (&self->queued);

  G_OBJECT_CLASS (cs_queue_row_parent_class)->dispose (object);
}

static void
cs_queue_row_class_init (CsQueueRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cs_queue_row_dispose;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-queue-row.ui");
  gtk_widget_class_bind_template_child (widget_class, CsQueueRow, up_button);
  gtk_widget_class_bind_template_child (widget_class, CsQueueRow, down_button);
  gtk_widget_class_bind_template_child (widget_class, CsQueueRow, hold_button);
  gtk_widget_class_bind_template_callback (widget_class, up_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, down_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, hold_toggled_cb);
  gtk_widget_class_bind_template_callback (widget_class, remove_clicked_cb);
}

static void
cs_queue_row_init (CsQueueRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
cs_queue_row_new (CsQueuedJob *queued)
{
  CsQueueRow *self;
  g_autofree char *title = NULL;

  g_return_val_if_fail (CS_IS_QUEUED_JOB (queued), NULL);

  self = g_object_new (CS_TYPE_QUEUE_ROW, NULL);
  self->queued = g_object_ref (queued);
  title = _cs_format_sources (cs_queued_job_get_sources (queued));
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self), title);
  g_signal_connect_object (queued, "notify::held", G_CALLBACK (cs_queue_row_show), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (queued, "notify::running", G_CALLBACK (cs_queue_row_show), self,
                           G_CONNECT_SWAPPED);
  cs_queue_row_show (self);

  return GTK_WIDGET (self);
}

CsQueuedJob *
cs_queue_row_get_job (CsQueueRow *self)
{
  g_return_val_if_fail (CS_IS_QUEUE_ROW (self), NULL);

  return self->queued;
}
