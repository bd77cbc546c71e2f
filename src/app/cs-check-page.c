/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <glib/gi18n.h>

#include "cs-check-page.h"
#include "cs-format.h"
#include "cs-throughput-graph.h"

/*
 * A check against a checksum list while it runs: how many of the listed
 * files are read, the bytes and the rate, the differences so far, and the
 * reading on the copy's graph. The window feeds it (cs-window-check.c) and
 * owns Cancel (win.cancel-check).
 */

struct _CsCheckPage
{
  GtkWidget          parent_instance;

  /* Template widgets */
  GtkLabel          *where_label;
  GtkProgressBar    *progress_bar;
  GtkLabel          *counts_label;
  CsThroughputGraph *graph;
};

G_DEFINE_FINAL_TYPE (CsCheckPage, cs_check_page, GTK_TYPE_WIDGET)

static void
cs_check_page_dispose (GObject *object)
{
  GtkWidget *child;

  gtk_widget_dispose_template (GTK_WIDGET (object), CS_TYPE_CHECK_PAGE);
  /* Unnamed template children too: the page is their only parent. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (object))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (cs_check_page_parent_class)->dispose (object);
}

static void
cs_check_page_class_init (CsCheckPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cs_check_page_dispose;

  g_type_ensure (CS_TYPE_THROUGHPUT_GRAPH);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-check-page.ui");
  gtk_widget_class_bind_template_child (widget_class, CsCheckPage, where_label);
  gtk_widget_class_bind_template_child (widget_class, CsCheckPage, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, CsCheckPage, counts_label);
  gtk_widget_class_bind_template_child (widget_class, CsCheckPage, graph);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
cs_check_page_init (CsCheckPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

void
cs_check_page_start (CsCheckPage *self,
                     const char  *manifest,
                     const char  *folder)
{
  g_autofree char *list = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *where = NULL;

  g_return_if_fail (CS_IS_CHECK_PAGE (self));

  list = _cs_display_path (manifest);
  dir = _cs_display_path (folder);
  /* Translators: a checksum list and the folder checked against it */
  where = g_strdup_printf (_("%s → %s"), list, dir);
  gtk_label_set_label (self->where_label, where);
  gtk_progress_bar_set_fraction (self->progress_bar, 0);
  gtk_progress_bar_set_text (self->progress_bar, _("Reading the checksum list…"));
  gtk_label_set_label (self->counts_label, "");
  cs_throughput_graph_set_run (self->graph, NULL);
}

void
cs_check_page_update (CsCheckPage           *self,
                      const CsSample        *sample,
                      const CsManifestCheck *so_far)
{
  guint64 differences;
  g_autofree char *done = NULL;
  g_autofree char *listed = NULL;
  g_autofree char *bytes = NULL;
  g_autofree char *rate = NULL;
  g_autofree char *file_rate = NULL;
  g_autofree char *found = NULL;
  g_autofree char *progress = NULL;
  g_autofree char *counts = NULL;

  g_return_if_fail (CS_IS_CHECK_PAGE (self));
  g_return_if_fail (sample != NULL && so_far != NULL);

  differences = so_far->changed + so_far->missing + so_far->extra + so_far->unreadable;
  done = _cs_format_count (sample->files_done);
  listed = _cs_format_count (so_far->listed);
  bytes = _cs_format_bytes (sample->bytes_done);
  rate = cs_figure_format_localized (CS_FIGURE_SPEED, sample->values[CS_COUNTER_READ_TRANSFER_RATE]);
  file_rate = cs_figure_format_localized (CS_FIGURE_FILE_RATE, sample->values[CS_COUNTER_FILE_RATE]);
  found = _cs_format_count (differences);

  /* Translators: a check's progress, like "1,200 of 6,154 files checked" */
  progress = g_strdup_printf (ngettext ("%s of %s file checked", "%s of %s files checked",
                                        (gulong) so_far->listed),
                              done, listed);
  gtk_progress_bar_set_text (self->progress_bar, progress);
  if (so_far->listed > 0)
    gtk_progress_bar_set_fraction (self->progress_bar,
                                   MIN (1.0, (double) sample->files_done / (double) so_far->listed));

  /* Translators: a check's progress, like "1.2 GB read · 210.4 MB/s · 830 files/s · 1 difference so far" */
  counts = g_strdup_printf (ngettext ("%s read · %s · %s · %s difference so far",
                                      "%s read · %s · %s · %s differences so far",
                                      (gulong) differences),
                            bytes, rate, file_rate, found);
  gtk_label_set_label (self->counts_label, counts);
  cs_throughput_graph_push_sample (self->graph, sample);
}
