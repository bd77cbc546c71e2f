/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "cs-explainer.h"
#include "cs-limit-hint.h"

/*
 * One line under a live graph saying what limits the copy now, as the
 * samples show it (cs-explainer.h), and a second one with what the latest
 * thread change did: Auto's decision and its reason, or for a change by
 * hand, the files or megabytes per second before and after it.
 *
 * Where a page shows the workers' time beside it ("Where the Time Goes"),
 * the sentence is a button that takes the reader there: it emits
 * "show-phases" and the page scrolls and moves the focus.
 */

struct _CsLimitHint
{
  GtkWidget    parent_instance;

  /* Template widgets */
  GtkLabel    *limit_label;
  GtkButton   *link_button;
  GtkLabel    *link_label;
  GtkLabel    *decision_label;

  /* Owned */
  CsExplainer *explainer;

  gboolean     limited;       /* the user's speed limit held the copy back */
  gboolean     auto_change;   /* the latest thread change was Auto's */
  gboolean     phases_link;
};

G_DEFINE_FINAL_TYPE (CsLimitHint, cs_limit_hint, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_PHASES_LINK,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  SHOW_PHASES,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
set_limit_text (CsLimitHint *self,
                const char  *text)
{
  gtk_label_set_label (self->limit_label, text);
  gtk_label_set_label (self->link_label, text);
  /* A screen reader names the button by what it reads. */
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->link_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, text, -1);
}

static void
link_clicked_cb (CsLimitHint *self)
{
  g_signal_emit (self, signals[SHOW_PHASES], 0);
}

static void
cs_limit_hint_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  CsLimitHint *self = CS_LIMIT_HINT (object);

  switch (prop_id)
    {
    case PROP_PHASES_LINK:
      g_value_set_boolean (value, self->phases_link);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cs_limit_hint_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  CsLimitHint *self = CS_LIMIT_HINT (object);

  switch (prop_id)
    {
    case PROP_PHASES_LINK:
      cs_limit_hint_set_phases_link (self, g_value_get_boolean (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cs_limit_hint_dispose (GObject *object)
{
  GtkWidget *child;

  gtk_widget_dispose_template (GTK_WIDGET (object), CS_TYPE_LIMIT_HINT);
  g_clear_pointer (&CS_LIMIT_HINT (object)->explainer, cs_explainer_free);

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (object))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (cs_limit_hint_parent_class)->dispose (object);
}

static void
cs_limit_hint_class_init (CsLimitHintClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cs_limit_hint_dispose;
  object_class->get_property = cs_limit_hint_get_property;
  object_class->set_property = cs_limit_hint_set_property;

  /* Whether the sentence takes the reader to the workers' time: set where
   * the page shows it and handles "show-phases". */
  properties[PROP_PHASES_LINK] =
    g_param_spec_boolean ("phases-link", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* The sentence was activated: show where the workers' time goes. */
  signals[SHOW_PHASES] = g_signal_new ("show-phases", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                       0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-limit-hint.ui");
  gtk_widget_class_bind_template_child (widget_class, CsLimitHint, limit_label);
  gtk_widget_class_bind_template_child (widget_class, CsLimitHint, link_button);
  gtk_widget_class_bind_template_child (widget_class, CsLimitHint, link_label);
  gtk_widget_class_bind_template_child (widget_class, CsLimitHint, decision_label);
  gtk_widget_class_bind_template_callback (widget_class, link_clicked_cb);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "limithint");
}

static void
cs_limit_hint_init (CsLimitHint *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->explainer = cs_explainer_new ();
  cs_limit_hint_reset (self);
}

void
cs_limit_hint_reset (CsLimitHint *self)
{
  g_return_if_fail (CS_IS_LIMIT_HINT (self));

  cs_explainer_reset (self->explainer);
  self->limited = FALSE;
  self->auto_change = FALSE;
  set_limit_text (self, _("Measuring what limits this copy…"));
  gtk_label_set_label (self->decision_label, "");
  gtk_widget_set_visible (GTK_WIDGET (self->decision_label), FALSE);
}

/* main thread */
void
cs_limit_hint_push_sample (CsLimitHint    *self,
                           const CsSample *sample)
{
  g_autofree char *limit = NULL;

  g_return_if_fail (CS_IS_LIMIT_HINT (self));
  g_return_if_fail (sample != NULL);

  cs_explainer_push (self->explainer, sample);

  if (self->limited)
    set_limit_text (self, _("Limited by your setting: the speed limit"));
  else if ((limit = cs_explainer_dup_limit (self->explainer)) != NULL)
    set_limit_text (self, limit);

  if (!self->auto_change)
    {
      g_autofree char *change = cs_explainer_dup_change (self->explainer);

      if (change != NULL)
        {
          gtk_label_set_label (self->decision_label, change);
          gtk_widget_set_visible (GTK_WIDGET (self->decision_label), TRUE);
        }
    }
}

/* main thread. The workers' time by phase, oldest first (the tail of
 * cs_run_dup_phase_series is enough: the explainer takes each bucket once
 * and looks back a few seconds); before the sample they end with. */
void
cs_limit_hint_push_phases (CsLimitHint         *self,
                           const CsPhaseBucket *buckets,
                           guint                n_buckets)
{
  g_return_if_fail (CS_IS_LIMIT_HINT (self));
  g_return_if_fail (buckets != NULL || n_buckets == 0);

  for (guint i = 0; i < n_buckets; i++)
    cs_explainer_push_phases (self->explainer, &buckets[i]);
}

void
cs_limit_hint_set_phases_link (CsLimitHint *self,
                               gboolean     phases_link)
{
  g_return_if_fail (CS_IS_LIMIT_HINT (self));

  phases_link = !!phases_link;
  if (self->phases_link == phases_link)
    return;

  self->phases_link = phases_link;
  gtk_widget_set_visible (GTK_WIDGET (self->limit_label), !phases_link);
  gtk_widget_set_visible (GTK_WIDGET (self->link_button), phases_link);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PHASES_LINK]);
}

gboolean
cs_limit_hint_get_phases_link (CsLimitHint *self)
{
  g_return_val_if_fail (CS_IS_LIMIT_HINT (self), FALSE);

  return self->phases_link;
}

/* Whether the speed limit set holds the copy back now (cs_job_get_limited):
 * then that is what limits it, whatever the files are. Before a sample. */
void
cs_limit_hint_set_limited (CsLimitHint *self,
                           gboolean     limited)
{
  g_return_if_fail (CS_IS_LIMIT_HINT (self));

  self->limited = !!limited;
}

/* Whether the scan has ended (CsProgress.scanning no longer). Before a sample. */
void
cs_limit_hint_set_scan_ended (CsLimitHint *self,
                              gboolean     scan_ended)
{
  g_return_if_fail (CS_IS_LIMIT_HINT (self));

  cs_explainer_set_scan_ended (self->explainer, scan_ended);
}

/* Whether the copy goes to a network share, where a request is a round trip
 * (cs_job_get_destination_remote). Before a sample. */
void
cs_limit_hint_set_remote (CsLimitHint *self,
                          gboolean     remote)
{
  g_return_if_fail (CS_IS_LIMIT_HINT (self));

  cs_explainer_set_remote (self->explainer, remote);
}

/* Shows the decision when Auto threads made it; what a change by hand did
 * shows once it is measured. */
void
cs_limit_hint_set_change (CsLimitHint          *self,
                          const CsThreadChange *change)
{
  g_autofree char *text = NULL;
  const char *reason;

  g_return_if_fail (CS_IS_LIMIT_HINT (self));

  /* By hand: what it did is measured (cs_limit_hint_push_sample). */
  self->auto_change = change != NULL && change->reason != NULL && g_str_has_prefix (change->reason, "auto");
  if (!self->auto_change)
    {
      gtk_widget_set_visible (GTK_WIDGET (self->decision_label), FALSE);
      return;
    }

  reason = change->reason + strlen ("auto");
  while (*reason == ':' || *reason == ' ')
    reason++;

  if (*reason != '\0')
    /* Translators: the latest decision of Auto threads, like "Auto: 4 → 8 threads — files/s rose 20 %" */
    text = g_strdup_printf (_("Auto: %u → %u threads — %s"), change->from, change->to, reason);
  else
    text = g_strdup_printf (_("Auto: %u → %u threads"), change->from, change->to);

  gtk_label_set_label (self->decision_label, text);
  gtk_widget_set_visible (GTK_WIDGET (self->decision_label), TRUE);
}

const char *
cs_limit_hint_get_text (CsLimitHint *self)
{
  g_return_val_if_fail (CS_IS_LIMIT_HINT (self), NULL);

  return gtk_label_get_label (self->limit_label);
}
