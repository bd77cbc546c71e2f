/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <glib/gi18n.h>

#include "cs-format.h"
#include "cs-history-row.h"

/*
 * One saved run (or sweep) in the history: when, what went where, and how
 * fast. A check button chooses it for a comparison; rename and delete are
 * requests the history page carries out.
 */

#define MAX_TIMELINE_STEPS 5

struct _CsHistoryRow
{
  AdwActionRow     parent_instance;

  /* Template widgets */
  GtkCheckButton  *check;
  GtkLabel        *label_tag;
  GtkMenuButton   *rename_button;
  GtkPopover      *rename_popover;
  GtkEntry        *rename_entry;

  /* Owned */
  CsRun           *run;
  CsSweep         *sweep;
  char            *path;
};

G_DEFINE_FINAL_TYPE (CsHistoryRow, cs_history_row, ADW_TYPE_ACTION_ROW)

enum {
  PROP_0,
  PROP_CHOSEN,
  N_PROPS
};

enum {
  RENAME_REQUESTED,
  DELETE_REQUESTED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* A check against a checksum list (cs-manifest.h): what it read against
 * which list, and what differs. Its totals: Total the files listed, Mismatch
 * the changed, Failed the missing and unreadable, Extras the extras. */
static void
cs_history_row_show_check (CsHistoryRow *self)
{
  CsRun *run = self->run;
  const char * const *sources = cs_run_get_sources (run);
  g_autofree char *label = cs_run_dup_label (run);
  g_autofree char *date = _cs_format_time (cs_run_get_started (run));
  /* The list by its name (the window's own are named by the run's id);
   * its whole path in the tooltip. */
  g_autofree char *list_path = g_strdup (sources != NULL && sources[0] != NULL ? sources[0] : "?");
  g_autofree char *list_name = g_path_get_basename (list_path);
  g_autofree char *list = g_filename_display_name (list_name);
  g_autofree char *tooltip = _cs_display_path (list_path);
  g_autofree char *folder = _cs_display_path (cs_run_get_destination (run) != NULL
                                              ? cs_run_get_destination (run) : "?");
  g_autofree char *files = NULL;
  g_autofree char *checked = NULL;
  g_autofree char *subtitle = NULL;
  g_autoptr(GString) found = g_string_new (NULL);
  const char *outcome = cs_run_get_outcome (run);
  CsTotals totals;
  struct {
    guint64     n;
    const char *what;
  } parts[3];

  cs_run_get_totals (run, &totals);
  files = _cs_format_count (totals.v[CS_CLASS_TOTAL][CS_KIND_FILES]);
  /* Translators: what a check found, after "Checked 6,154 files against …:" */
  parts[0].n = totals.v[CS_CLASS_MISMATCH][CS_KIND_FILES];
  parts[0].what = _("%s changed");
  parts[1].n = totals.v[CS_CLASS_FAILED][CS_KIND_FILES];
  parts[1].what = _("%s missing or unreadable");
  parts[2].n = totals.v[CS_CLASS_EXTRAS][CS_KIND_FILES];
  parts[2].what = _("%s extra");
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    {
      g_autofree char *n = NULL;

      if (parts[i].n == 0)
        continue;
      n = _cs_format_count (parts[i].n);
      if (found->len > 0)
        g_string_append (found, ", ");
      g_string_append_printf (found, parts[i].what, n);
    }
  if (found->len == 0)
    g_string_append (found, g_strcmp0 (outcome, "completed") == 0 ? _("every file matches") : _("not finished"));

  /* Translators: a saved check: the files checked, the checksum list, what
   * differs, then the folder, like "Checked 6,154 files against ~/SUMS.xxh128:
   * 1 changed\nin ~/backup" */
  checked = g_strdup_printf (ngettext ("Checked %s file against %s: %s", "Checked %s files against %s: %s",
                                       (gulong) totals.v[CS_CLASS_TOTAL][CS_KIND_FILES]),
                             files, list, found->str);
  /* Translators: the folder a saved check read, under what it found */
  subtitle = g_strdup_printf (_("%s\nin %s"), checked, folder);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self), date);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self), subtitle);
  gtk_widget_set_visible (GTK_WIDGET (self->label_tag), label != NULL && *label != '\0');
  gtk_label_set_label (self->label_tag, label != NULL ? label : "");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self), tooltip);
}

static void
cs_history_row_show_run (CsHistoryRow *self)
{
  CsRun *run = self->run;
  g_autofree char *label = cs_run_dup_label (run);
  g_autofree char *date = _cs_format_time (cs_run_get_started (run));
  g_autofree char *sources = _cs_format_sources (cs_run_get_sources (run));
  g_autofree char *destination = _cs_display_path (cs_run_get_destination (run) != NULL
                                                   ? cs_run_get_destination (run) : "?");
  g_autofree char *threads = NULL;
  g_autofree char *duration = NULL;
  g_autofree char *files = NULL;
  g_autofree char *speed = NULL;
  g_autofree char *file_rate = NULL;
  g_autofree char *subtitle = NULL;
  g_autofree char *tooltip = NULL;
  const char *outcome = cs_run_get_outcome (run);
  CsFigures figures;

  if (g_strcmp0 (cs_run_get_kind (run), "check") == 0)
    {
      cs_history_row_show_check (self);
      return;
    }

  cs_run_get_figures (run, &figures);
  threads = _cs_format_figures_threads (&figures);
  duration = cs_figure_format_localized (CS_FIGURE_DURATION, figures.duration);
  files = _cs_format_count (figures.files);
  speed = cs_figure_format_localized (CS_FIGURE_SPEED, figures.speed);
  file_rate = cs_figure_format_localized (CS_FIGURE_FILE_RATE, figures.file_rate);

  /* Translators: a saved run's details: sources → destination, then
   * threads · duration · files copied · MB/s · files/s */
  subtitle = g_strdup_printf (ngettext ("%s → %s\n%s · %s · %s file · %s · %s",
                                        "%s → %s\n%s · %s · %s files · %s · %s",
                                        (gulong) figures.files),
                              sources, destination, threads, duration, files, speed, file_rate);
  {
    CsRunManifest m;

    if (cs_run_get_manifest (run, &m))
      {
        /* Translators: after a saved run's details, when it kept a checksum list */
        char *with = g_strdup_printf ("%s · %s", subtitle, _("checksum list"));

        g_free (subtitle);
        subtitle = with;
      }
  }

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self), date);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self), subtitle);

  gtk_widget_set_visible (GTK_WIDGET (self->label_tag), label != NULL && *label != '\0');
  gtk_label_set_label (self->label_tag, label != NULL ? label : "");

  if (g_strcmp0 (outcome, "cancelled") == 0)
    tooltip = g_strdup (_("This copy was cancelled"));
  else if (g_strcmp0 (outcome, "failed") == 0)
    tooltip = g_strdup (_("This copy failed"));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self), tooltip);
}

static void
cs_history_row_show_sweep (CsHistoryRow *self)
{
  CsSweep *sweep = self->sweep;
  g_autofree char *date = _cs_format_time (cs_sweep_get_started (sweep));
  g_autofree char *source = _cs_display_path (cs_sweep_get_source (sweep) != NULL
                                              ? cs_sweep_get_source (sweep) : "?");
  g_autofree char *destination = _cs_display_path (cs_sweep_get_destination (sweep) != NULL
                                                   ? cs_sweep_get_destination (sweep) : "?");
  g_autofree CsSweepStat *stats = NULL;
  g_autoptr(GString) counts = g_string_new (NULL);
  g_autofree char *recommendation = NULL;
  g_autofree char *subtitle = NULL;
  guint n_stats = 0;
  guint recommended = cs_sweep_get_recommended (sweep, NULL);
  guint repeats = cs_sweep_get_repeats (sweep);

  stats = cs_sweep_dup_stats (sweep, &n_stats);
  for (guint i = 0; i < n_stats; i++)
    g_string_append_printf (counts, i > 0 ? ", %u" : "%u", stats[i].threads);

  if (recommended > 0)
    recommendation = g_strdup_printf (ngettext ("recommended: %u thread",
                                                "recommended: %u threads", recommended),
                                      recommended);
  else
    recommendation = g_strdup (_("no recommendation"));

  /* Translators: a saved sweep: source → destination, then the thread counts,
   * the repeats and the recommended count */
  subtitle = g_strdup_printf (ngettext ("%s → %s\nThreads %s · %u repeat · %s",
                                        "%s → %s\nThreads %s · %u repeats · %s", repeats),
                              source, destination, counts->str, repeats, recommendation);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self), date);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self), subtitle);

  gtk_widget_set_visible (GTK_WIDGET (self->check), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->rename_button), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->label_tag), TRUE);
  gtk_label_set_label (self->label_tag, _("Sweep"));
}

static void
check_toggled_cb (CsHistoryRow *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CHOSEN]);
}

static void
rename_popover_show_cb (CsHistoryRow *self)
{
  g_autofree char *label = self->run != NULL ? cs_run_dup_label (self->run) : NULL;

  gtk_editable_set_text (GTK_EDITABLE (self->rename_entry), label != NULL ? label : "");
  gtk_widget_grab_focus (GTK_WIDGET (self->rename_entry));
}

static void
rename_activate_cb (CsHistoryRow *self)
{
  g_autofree char *label = g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->rename_entry)));

  gtk_popover_popdown (self->rename_popover);
  cs_history_row_rename (self, g_strstrip (label));
}

static void
delete_clicked_cb (CsHistoryRow *self)
{
  cs_history_row_delete (self);
}

static void
cs_history_row_dispose (GObject *object)
{
  CsHistoryRow *self = CS_HISTORY_ROW (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), CS_TYPE_HISTORY_ROW);

  G_OBJECT_CLASS (cs_history_row_parent_class)->dispose (object);
}

static void
cs_history_row_finalize (GObject *object)
{
  CsHistoryRow *self = CS_HISTORY_ROW (object);

  g_clear_pointer (&self->run, cs_run_unref);
  g_clear_pointer (&self->sweep, cs_sweep_unref);
  g_clear_pointer (&self->path, g_free);

  G_OBJECT_CLASS (cs_history_row_parent_class)->finalize (object);
}

static void
cs_history_row_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  CsHistoryRow *self = CS_HISTORY_ROW (object);

  switch (prop_id)
    {
    case PROP_CHOSEN:
      g_value_set_boolean (value, cs_history_row_get_chosen (self));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cs_history_row_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  CsHistoryRow *self = CS_HISTORY_ROW (object);

  switch (prop_id)
    {
    case PROP_CHOSEN:
      cs_history_row_set_chosen (self, g_value_get_boolean (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cs_history_row_class_init (CsHistoryRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cs_history_row_dispose;
  object_class->finalize = cs_history_row_finalize;
  object_class->get_property = cs_history_row_get_property;
  object_class->set_property = cs_history_row_set_property;

  properties[PROP_CHOSEN] =
    g_param_spec_boolean ("chosen", NULL, NULL,
                          FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* The new label, "" to remove it. */
  signals[RENAME_REQUESTED] =
    g_signal_new ("rename-requested",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRING);

  signals[DELETE_REQUESTED] =
    g_signal_new ("delete-requested",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-history-row.ui");
  gtk_widget_class_bind_template_child (widget_class, CsHistoryRow, check);
  gtk_widget_class_bind_template_child (widget_class, CsHistoryRow, label_tag);
  gtk_widget_class_bind_template_child (widget_class, CsHistoryRow, rename_button);
  gtk_widget_class_bind_template_child (widget_class, CsHistoryRow, rename_popover);
  gtk_widget_class_bind_template_child (widget_class, CsHistoryRow, rename_entry);
  gtk_widget_class_bind_template_callback (widget_class, check_toggled_cb);
  gtk_widget_class_bind_template_callback (widget_class, rename_popover_show_cb);
  gtk_widget_class_bind_template_callback (widget_class, rename_activate_cb);
  gtk_widget_class_bind_template_callback (widget_class, delete_clicked_cb);
}

static void
cs_history_row_init (CsHistoryRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
cs_history_row_new_for_run (CsRun *run)
{
  CsHistoryRow *self;

  g_return_val_if_fail (run != NULL, NULL);

  self = g_object_new (CS_TYPE_HISTORY_ROW, NULL);
  self->run = cs_run_ref (run);
  cs_history_row_show_run (self);

  return GTK_WIDGET (self);
}

GtkWidget *
cs_history_row_new_for_sweep (CsSweep    *sweep,
                              const char *path)
{
  CsHistoryRow *self;

  g_return_val_if_fail (sweep != NULL, NULL);
  g_return_val_if_fail (path != NULL, NULL);

  self = g_object_new (CS_TYPE_HISTORY_ROW, NULL);
  self->sweep = cs_sweep_ref (sweep);
  self->path = g_strdup (path);
  cs_history_row_show_sweep (self);

  return GTK_WIDGET (self);
}

CsRun *
cs_history_row_get_run (CsHistoryRow *self)
{
  g_return_val_if_fail (CS_IS_HISTORY_ROW (self), NULL);

  return self->run;
}

CsSweep *
cs_history_row_get_sweep (CsHistoryRow *self)
{
  g_return_val_if_fail (CS_IS_HISTORY_ROW (self), NULL);

  return self->sweep;
}

const char *
cs_history_row_get_path (CsHistoryRow *self)
{
  g_return_val_if_fail (CS_IS_HISTORY_ROW (self), NULL);

  return self->path;
}

gboolean
cs_history_row_get_chosen (CsHistoryRow *self)
{
  g_return_val_if_fail (CS_IS_HISTORY_ROW (self), FALSE);

  return gtk_check_button_get_active (self->check);
}

void
cs_history_row_set_chosen (CsHistoryRow *self,
                           gboolean      chosen)
{
  g_return_if_fail (CS_IS_HISTORY_ROW (self));

  /* The check button's notify announces the change. */
  gtk_check_button_set_active (self->check, chosen);
}

/* Asks the page to give the run a new label; "" removes it. */
void
cs_history_row_rename (CsHistoryRow *self,
                       const char   *label)
{
  g_return_if_fail (CS_IS_HISTORY_ROW (self));
  g_return_if_fail (label != NULL);

  if (self->run == NULL)
    return;

  g_signal_emit (self, signals[RENAME_REQUESTED], 0, label);
  cs_history_row_show_run (self);
}

void
cs_history_row_delete (CsHistoryRow *self)
{
  g_return_if_fail (CS_IS_HISTORY_ROW (self));

  g_signal_emit (self, signals[DELETE_REQUESTED], 0);
}
