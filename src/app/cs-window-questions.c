/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <glib/gi18n.h>

#include "cs-deletions-dialog.h"
#include "cs-format.h"
#include "cs-window-private.h"

/*
 * The questions of the copies the window shows: a conflict (which file wins)
 * and a mirror's deletions. Copies side by side may ask together; each
 * question waits its turn, one dialog at a time, tagged with its job
 * ("cs-job") so that a copy that ends takes its own questions with it and
 * leaves no worker waiting.
 */

static void cs_window_show_next_conflict (CsWindow *self);

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
void
_cs_window_drop_questions (CsWindow *self,
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

/* main thread: @job's questions are asked in this window. */
void
_cs_window_watch_questions (CsWindow *self,
                            CsJob    *job)
{
  g_signal_connect_object (job, "conflict", G_CALLBACK (job_conflict_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (job, "deletions", G_CALLBACK (job_deletions_cb), self, G_CONNECT_SWAPPED);
}

/* The window goes: what still waits is nobody's. */
void
_cs_window_clear_questions (CsWindow *self)
{
  g_queue_clear_full (&self->conflicts, g_object_unref);
  g_queue_clear_full (&self->deletions_waiting, g_object_unref);
  g_clear_object (&self->conflict);
}
