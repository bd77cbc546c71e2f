/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "cs-destination-row.h"
#include "cs-options-group.h"
#include "cs-resume-hint.h"
#include "cs-setup-page.h"
#include "cs-source-list.h"
#include "cs-speed-limit.h"

/*
 * The next copy: its sources, whether it copies, moves or mirrors them, its
 * destination, the thread count (with the one that worked best there last
 * time) and the options. "changed" says that the sources or the destination
 * changed; the window decides what can start.
 */

struct _CsSetupPage
{
  GtkWidget         parent_instance;

  /* Template widgets */
  GtkLabel         *refusal_label;
  CsSourceList     *source_list;
  CsDestinationRow *destination_row;
  CsResumeHint     *resume_hint;
  CsThreadSlider   *thread_slider;
  CsSpeedLimit     *speed_limit;
  GtkToggleButton  *copy_toggle;
  GtkToggleButton  *move_toggle;
  GtkToggleButton  *mirror_toggle;
  AdwActionRow     *remembered_row;
  GtkButton        *remembered_button;
  CsOptionsGroup   *options_group;

  /* Owned */
  GSettings        *settings;
  guint             remembered_threads;
  CsOperation       operation;
};

G_DEFINE_FINAL_TYPE (CsSetupPage, cs_setup_page, GTK_TYPE_WIDGET)

enum {
  CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

enum {
  PROP_0,
  PROP_OPERATION,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
cs_setup_page_update_remembered (CsSetupPage *self)
{
  GFile *destination = cs_destination_row_get_file (self->destination_row);
  g_autofree char *path = destination != NULL ? g_file_get_path (destination) : NULL;
  g_autofree char *filesystem = NULL;
  g_autofree char *title = NULL;
  g_autofree char *label = NULL;
  guint threads = 0;

  if (path != NULL)
    threads = cs_job_get_remembered_threads (path, &filesystem);

  self->remembered_threads = threads;
  gtk_widget_set_visible (GTK_WIDGET (self->remembered_row), threads > 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "setup.use-remembered-threads", threads > 0);
  if (threads == 0)
    return;

  /* Two whole sentences rather than one with a pasted-in "kind of": word order and
   * agreement around the file system name differ between languages. */
  if (filesystem != NULL)
    {
      /* Translators: like "Last time 8 threads worked best for this nfs4 destination" */
      title = g_strdup_printf (ngettext ("Last time %u thread worked best for this %s destination",
                                         "Last time %u threads worked best for this %s destination",
                                         threads),
                               threads, filesystem);
    }
  else
    {
      title = g_strdup_printf (ngettext ("Last time %u thread worked best for this kind of "
                                         "destination",
                                         "Last time %u threads worked best for this kind of "
                                         "destination",
                                         threads),
                               threads);
    }

  /* Translators: the button that sets the remembered thread count, like "Use 8" */
  label = g_strdup_printf (_("Use %u"), threads);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->remembered_row), title);
  gtk_button_set_label (self->remembered_button, label);
}

static void
use_remembered_threads_action (GtkWidget  *widget,
                               const char *action_name,
                               GVariant   *parameter)
{
  CsSetupPage *self = CS_SETUP_PAGE (widget);

  if (self->remembered_threads > 0)
    cs_thread_slider_set_threads (self->thread_slider, self->remembered_threads);
}

static void
destination_changed_cb (CsSetupPage *self)
{
  cs_setup_page_update_remembered (self);
  g_signal_emit (self, signals[CHANGED], 0);
}

static void
sources_changed_cb (CsSetupPage *self)
{
  g_signal_emit (self, signals[CHANGED], 0);
}

/* The three buttons are a group: the one just turned on says the operation. */
static void
operation_toggled_cb (CsSetupPage     *self,
                      GtkToggleButton *button)
{
  if (!gtk_toggle_button_get_active (button))
    return;

  if (button == self->move_toggle)
    cs_setup_page_set_operation (self, CS_OPERATION_MOVE);
  else if (button == self->mirror_toggle)
    cs_setup_page_set_operation (self, CS_OPERATION_MIRROR);
  else
    cs_setup_page_set_operation (self, CS_OPERATION_COPY);
}

static void
cs_setup_page_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  CsSetupPage *self = CS_SETUP_PAGE (object);

  switch (prop_id)
    {
    case PROP_OPERATION:
      g_value_set_uint (value, self->operation);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cs_setup_page_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  CsSetupPage *self = CS_SETUP_PAGE (object);

  switch (prop_id)
    {
    case PROP_OPERATION:
      cs_setup_page_set_operation (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cs_setup_page_dispose (GObject *object)
{
  CsSetupPage *self = CS_SETUP_PAGE (object);
  GtkWidget *child;

  gtk_widget_dispose_template (GTK_WIDGET (self), CS_TYPE_SETUP_PAGE);

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  g_clear_object (&self->settings);

  G_OBJECT_CLASS (cs_setup_page_parent_class)->dispose (object);
}

static void
cs_setup_page_class_init (CsSetupPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cs_setup_page_dispose;
  object_class->get_property = cs_setup_page_get_property;
  object_class->set_property = cs_setup_page_set_property;

  /* What is done with the sources: a CsOperation, copy, move or mirror. */
  properties[PROP_OPERATION] =
    g_param_spec_uint ("operation", NULL, NULL,
                       CS_OPERATION_COPY, CS_OPERATION_MIRROR, CS_OPERATION_COPY,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* The sources or the destination changed. */
  signals[CHANGED] =
    g_signal_new ("changed",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  g_type_ensure (CS_TYPE_DESTINATION_ROW);
  g_type_ensure (CS_TYPE_OPTIONS_GROUP);
  g_type_ensure (CS_TYPE_RESUME_HINT);
  g_type_ensure (CS_TYPE_SOURCE_LIST);
  g_type_ensure (CS_TYPE_SPEED_LIMIT);
  g_type_ensure (CS_TYPE_THREAD_SLIDER);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-setup-page.ui");
  gtk_widget_class_bind_template_child (widget_class, CsSetupPage, refusal_label);
  gtk_widget_class_bind_template_child (widget_class, CsSetupPage, source_list);
  gtk_widget_class_bind_template_child (widget_class, CsSetupPage, destination_row);
  gtk_widget_class_bind_template_child (widget_class, CsSetupPage, resume_hint);
  gtk_widget_class_bind_template_child (widget_class, CsSetupPage, thread_slider);
  gtk_widget_class_bind_template_child (widget_class, CsSetupPage, speed_limit);
  gtk_widget_class_bind_template_child (widget_class, CsSetupPage, copy_toggle);
  gtk_widget_class_bind_template_child (widget_class, CsSetupPage, move_toggle);
  gtk_widget_class_bind_template_child (widget_class, CsSetupPage, mirror_toggle);
  gtk_widget_class_bind_template_child (widget_class, CsSetupPage, remembered_row);
  gtk_widget_class_bind_template_child (widget_class, CsSetupPage, remembered_button);
  gtk_widget_class_bind_template_child (widget_class, CsSetupPage, options_group);

  gtk_widget_class_install_action (widget_class, "setup.use-remembered-threads", NULL,
                                   use_remembered_threads_action);
  gtk_widget_class_bind_template_callback (widget_class, operation_toggled_cb);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "setuppage");
}

static void
cs_setup_page_init (CsSetupPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  g_signal_connect_object (cs_source_list_get_files (self->source_list), "items-changed",
                           G_CALLBACK (sources_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->destination_row, "notify::file",
                           G_CALLBACK (destination_changed_cb), self, G_CONNECT_SWAPPED);

  cs_setup_page_update_remembered (self);

  /* The partials an earlier copy kept, told under the destination (its
   * destination is bound in the template); looked for again when the page
   * comes back after a copy. */
  cs_resume_hint_set_sources (self->resume_hint, cs_source_list_get_files (self->source_list));
  g_signal_connect_object (self, "map", G_CALLBACK (cs_resume_hint_refresh), self->resume_hint,
                           G_CONNECT_SWAPPED);
}

/* The options, the thread count and Auto are remembered in @settings. */
void
cs_setup_page_bind_settings (CsSetupPage *self,
                             GSettings   *settings)
{
  g_return_if_fail (CS_IS_SETUP_PAGE (self));
  g_return_if_fail (G_IS_SETTINGS (settings));

  g_set_object (&self->settings, settings);
  cs_options_group_bind_settings (self->options_group, settings);
  g_settings_bind (settings, "threads", self->thread_slider, "threads", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "auto-threads", self->thread_slider, "auto", G_SETTINGS_BIND_DEFAULT);
}

/* The sources, a list of GFile. */
GListModel *
cs_setup_page_get_sources (CsSetupPage *self)
{
  g_return_val_if_fail (CS_IS_SETUP_PAGE (self), NULL);

  return cs_source_list_get_files (self->source_list);
}

void
cs_setup_page_add_sources (CsSetupPage  *self,
                           GFile       **files,
                           guint         n_files)
{
  g_return_if_fail (CS_IS_SETUP_PAGE (self));

  cs_source_list_add (self->source_list, files, n_files);
}

/* The name the user gave @file at the destination, or NULL. */
const char *
cs_setup_page_get_copy_as (CsSetupPage *self,
                           GFile       *file)
{
  g_return_val_if_fail (CS_IS_SETUP_PAGE (self), NULL);

  return cs_source_list_get_copy_as (self->source_list, file);
}

void
cs_setup_page_clear_sources (CsSetupPage *self)
{
  g_return_if_fail (CS_IS_SETUP_PAGE (self));

  cs_source_list_clear (self->source_list);
}

GFile *
cs_setup_page_get_destination (CsSetupPage *self)
{
  g_return_val_if_fail (CS_IS_SETUP_PAGE (self), NULL);

  return cs_destination_row_get_file (self->destination_row);
}

void
cs_setup_page_set_destination (CsSetupPage *self,
                               GFile       *destination)
{
  g_return_if_fail (CS_IS_SETUP_PAGE (self));

  cs_destination_row_set_file (self->destination_row, destination);
}

/* The slider of the next copy's thread count and Auto. */
CsThreadSlider *
cs_setup_page_get_thread_slider (CsSetupPage *self)
{
  g_return_val_if_fail (CS_IS_SETUP_PAGE (self), NULL);

  return self->thread_slider;
}

/* The speed limit of the next copy (and, bound to the copy page's, of the
 * running one). */
CsSpeedLimit *
cs_setup_page_get_speed_limit (CsSetupPage *self)
{
  g_return_val_if_fail (CS_IS_SETUP_PAGE (self), NULL);

  return self->speed_limit;
}

/* The options, the thread count, Auto and the speed limit as set here, into @job. */
void
cs_setup_page_configure_job (CsSetupPage *self,
                             CsJob       *job)
{
  g_return_if_fail (CS_IS_SETUP_PAGE (self));
  g_return_if_fail (CS_IS_JOB (job));

  cs_job_set_overwrite (job, cs_options_group_get_overwrite (self->options_group));
  cs_job_set_verify (job, cs_options_group_get_verify (self->options_group));
  cs_job_set_flush (job, cs_options_group_get_flush (self->options_group));
  cs_job_set_retries (job, cs_options_group_get_retries (self->options_group));
  cs_job_set_wait (job, cs_options_group_get_wait (self->options_group));
  cs_job_set_threads (job, cs_thread_slider_get_threads (self->thread_slider), NULL);
  cs_job_set_auto_threads (job, cs_thread_slider_get_auto (self->thread_slider));
  cs_job_set_max_rate (job, cs_speed_limit_get_max_rate (self->speed_limit));
  cs_job_set_max_files (job, cs_speed_limit_get_max_files (self->speed_limit));
  cs_job_set_operation (job, self->operation);
  /* A mirror lists what it would delete and asks once; the default maximum
   * holds, as in the CLI, so that a wrong source deletes nothing. */
  if (self->operation == CS_OPERATION_MIRROR)
    {
      cs_job_set_max_delete (job, CS_JOB_DEFAULT_MAX_DELETE);
      cs_job_set_confirm_deletions (job, TRUE);
    }
}

/* Whether the next copy keeps a log of every file (the window opens it:
 * where it goes is History's concern, not the job's). */
gboolean
cs_setup_page_get_keep_log (CsSetupPage *self)
{
  g_return_val_if_fail (CS_IS_SETUP_PAGE (self), FALSE);

  return cs_options_group_get_keep_log (self->options_group);
}

/* Whether the next copy keeps a checksum list of what it leaves at the
 * destination (the window names it, in History). */
gboolean
cs_setup_page_get_keep_manifest (CsSetupPage *self)
{
  g_return_val_if_fail (CS_IS_SETUP_PAGE (self), FALSE);

  return cs_options_group_get_keep_manifest (self->options_group);
}

/* What the next job does with its sources. */
CsOperation
cs_setup_page_get_operation (CsSetupPage *self)
{
  g_return_val_if_fail (CS_IS_SETUP_PAGE (self), CS_OPERATION_COPY);

  return self->operation;
}

/* "Copy Into", "Move Into" or "Mirror Into": the destination row's title,
 * and the destination chooser's. */
const char *
cs_setup_page_get_into_title (CsSetupPage *self)
{
  g_return_val_if_fail (CS_IS_SETUP_PAGE (self), NULL);

  switch (self->operation)
    {
    case CS_OPERATION_MOVE:
      return _("Move Into");
    case CS_OPERATION_MIRROR:
      return _("Mirror Into");
    case CS_OPERATION_COPY:
    default:
      return _("Copy Into");
    }
}

void
cs_setup_page_set_operation (CsSetupPage *self,
                             CsOperation  operation)
{
  GtkToggleButton *buttons[] = {
    [CS_OPERATION_COPY] = self->copy_toggle,
    [CS_OPERATION_MOVE] = self->move_toggle,
    [CS_OPERATION_MIRROR] = self->mirror_toggle,
  };

  g_return_if_fail (CS_IS_SETUP_PAGE (self));
  g_return_if_fail (operation <= CS_OPERATION_MIRROR);

  if (!gtk_toggle_button_get_active (buttons[operation]))
    gtk_toggle_button_set_active (buttons[operation], TRUE);
  if (self->operation == operation)
    return;
  self->operation = operation;
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->destination_row),
                                 cs_setup_page_get_into_title (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_OPERATION]);
}

void
cs_setup_page_set_overwrite (CsSetupPage *self,
                             CsOverwrite  overwrite)
{
  g_return_if_fail (CS_IS_SETUP_PAGE (self));

  cs_options_group_set_overwrite (self->options_group, overwrite);
}

/* Why the copy cannot start, at the top of the page; NULL hides it. */
void
cs_setup_page_show_refusal (CsSetupPage *self,
                            const char  *text)
{
  g_return_if_fail (CS_IS_SETUP_PAGE (self));

  if (text != NULL)
    gtk_label_set_label (self->refusal_label, text);
  gtk_widget_set_visible (GTK_WIDGET (self->refusal_label), text != NULL);
}

/* The refusal shown, or NULL. */
const char *
cs_setup_page_get_refusal (CsSetupPage *self)
{
  g_return_val_if_fail (CS_IS_SETUP_PAGE (self), NULL);

  if (!gtk_widget_get_visible (GTK_WIDGET (self->refusal_label)))
    return NULL;

  return gtk_label_get_label (self->refusal_label);
}
