/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "cs-counter-view.h"
#include "cs-format.h"

/*
 * Every counter of the latest sample: one grid row per CsCounter, in the order
 * of the enumeration, made from the row template with the counter's name and
 * unit as the engine defines them.
 */

#define ROW_RESOURCE "/io/github/copyscope/Copyscope/ui/cs-counter-row.ui"

struct _CsCounterView
{
  GtkWidget  parent_instance;

  /* Template widgets */
  GtkGrid   *grid;

  /* Borrowed: the value labels, in the grid */
  GtkLabel  *values[CS_N_COUNTERS];
};

G_DEFINE_FINAL_TYPE (CsCounterView, cs_counter_view, GTK_TYPE_WIDGET)

static void
cs_counter_view_dispose (GObject *object)
{
  CsCounterView *self = CS_COUNTER_VIEW (object);
  GtkWidget *child;

  memset (self->values, 0, sizeof self->values);
  gtk_widget_dispose_template (GTK_WIDGET (self), CS_TYPE_COUNTER_VIEW);

  /* Unnamed template children too: the widget is their only parent. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (cs_counter_view_parent_class)->dispose (object);
}

static void
cs_counter_view_class_init (CsCounterViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cs_counter_view_dispose;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-counter-view.ui");
  gtk_widget_class_bind_template_child (widget_class, CsCounterView, grid);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "counterview");
}

static void
cs_counter_view_init (CsCounterView *self)
{
  GtkLayoutManager *layout;

  gtk_widget_init_template (GTK_WIDGET (self));

  layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));
  gtk_orientable_set_orientation (GTK_ORIENTABLE (layout), GTK_ORIENTATION_VERTICAL);
  gtk_box_layout_set_spacing (GTK_BOX_LAYOUT (layout), 12);

  for (guint i = 0; i < CS_N_COUNTERS; i++)
    {
      const CsCounterInfo *info = cs_counter_get_info ((CsCounter) i);
      g_autoptr(GtkBuilder) builder = gtk_builder_new_from_resource (ROW_RESOURCE);
      GtkWidget *name = GTK_WIDGET (gtk_builder_get_object (builder, "name"));
      GtkWidget *value = GTK_WIDGET (gtk_builder_get_object (builder, "value"));
      GtkWidget *unit = GTK_WIDGET (gtk_builder_get_object (builder, "unit"));

      gtk_label_set_label (GTK_LABEL (name), _(info->label));
      gtk_label_set_label (GTK_LABEL (unit), _cs_counter_unit (info));
      gtk_grid_attach (self->grid, name, 0, (int) i, 1, 1);
      gtk_grid_attach (self->grid, value, 1, (int) i, 1, 1);
      gtk_grid_attach (self->grid, unit, 2, (int) i, 1, 1);
      self->values[i] = GTK_LABEL (value);
    }
}

/* main thread */
void
cs_counter_view_set_sample (CsCounterView  *self,
                            const CsSample *sample)
{
  g_return_if_fail (CS_IS_COUNTER_VIEW (self));

  for (guint i = 0; i < CS_N_COUNTERS; i++)
    {
      g_autofree char *text = NULL;

      if (sample == NULL)
        text = g_strdup ("—");
      else
        text = _cs_format_counter_value ((CsCounter) i, sample->values[i]);

      gtk_label_set_label (self->values[i], text);
    }
}
