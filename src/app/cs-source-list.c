/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <glib/gi18n.h>

#include "cs-format.h"
#include "cs-source-list.h"
#include "cs-source-row.h"

/*
 * The sources of a copy: a drop zone while empty, then a list of rows, each
 * measuring its own item. The model is a GListStore of GFile; the rows are made
 * from it, so the window reads the sources without knowing about rows.
 */

struct _CsSourceList
{
  GtkWidget       parent_instance;

  /* Template widgets */
  GtkStack       *stack;
  GtkListBox     *list_box;
  GtkLabel       *totals_label;

  /* Owned */
  GListStore     *files;
  GtkDropTarget  *drop_target;
};

G_DEFINE_FINAL_TYPE (CsSourceList, cs_source_list, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_N_FILES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
cs_source_list_update_totals (CsSourceList *self)
{
  guint64 files = 0, bytes = 0;
  gboolean all_scanned = TRUE;
  g_autofree char *size = NULL;
  g_autofree char *count = NULL;
  g_autofree char *text = NULL;

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->list_box));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      CsSourceRow *row;

      if (!CS_IS_SOURCE_ROW (child))
        continue;

      row = CS_SOURCE_ROW (child);
      all_scanned &= cs_source_row_get_scanned (row);
      files += cs_source_row_get_n_files (row);
      bytes += cs_source_row_get_n_bytes (row);
    }

  size = _cs_format_bytes (bytes);
  count = _cs_format_count (files);

  if (all_scanned)
    /* Translators: total of all sources, like "In all: 2.3 GB in 1,234 files" */
    text = g_strdup_printf (ngettext ("In all: %s in %s file", "In all: %s in %s files",
                                      (gulong) files),
                            size, count);
  else
    text = g_strdup (_("Counting…"));

  gtk_label_set_label (self->totals_label, text);
}

static void
row_remove_cb (CsSourceList *self,
               CsSourceRow  *row)
{
  GFile *file = cs_source_row_get_file (row);
  guint position;

  if (g_list_store_find_with_equal_func (self->files, file,
                                         (GEqualFunc) g_file_equal, &position))
    g_list_store_remove (self->files, position);
}

static void
row_scanned_cb (CsSourceList *self)
{
  cs_source_list_update_totals (self);
}

static GtkWidget *
create_row_cb (gpointer item,
               gpointer user_data)
{
  CsSourceList *self = user_data;
  GtkWidget *row = cs_source_row_new (G_FILE (item));

  g_signal_connect_object (row, "remove", G_CALLBACK (row_remove_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (row, "notify::scanned", G_CALLBACK (row_scanned_cb), self,
                           G_CONNECT_SWAPPED);

  return row;
}

static void
files_changed_cb (CsSourceList *self,
                  guint         position,
                  guint         removed,
                  guint         added,
                  GListModel   *model)
{
  guint n = g_list_model_get_n_items (model);

  gtk_stack_set_visible_child_name (self->stack, n > 0 ? "list" : "empty");
  cs_source_list_update_totals (self);

  if (removed != added)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_FILES]);
}

static gboolean
drop_cb (CsSourceList  *self,
         const GValue  *value,
         double         x,
         double         y,
         GtkDropTarget *target)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new ();

  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST))
    return FALSE;

  for (GSList *l = g_value_get_boxed (value); l != NULL; l = l->next)
    g_ptr_array_add (files, l->data);

  if (files->len == 0)
    return FALSE;

  cs_source_list_add (self, (GFile **) files->pdata, files->len);

  return TRUE;
}

static void
cs_source_list_dispose (GObject *object)
{
  CsSourceList *self = CS_SOURCE_LIST (object);
  GtkWidget *child;

  gtk_widget_dispose_template (GTK_WIDGET (self), CS_TYPE_SOURCE_LIST);

  /* Unnamed template children too: the widget is their only parent. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  g_clear_object (&self->files);

  G_OBJECT_CLASS (cs_source_list_parent_class)->dispose (object);
}

static void
cs_source_list_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  CsSourceList *self = CS_SOURCE_LIST (object);

  switch (prop_id)
    {
    case PROP_N_FILES:
      g_value_set_uint (value, cs_source_list_get_n_files (self));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cs_source_list_class_init (CsSourceListClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cs_source_list_dispose;
  object_class->get_property = cs_source_list_get_property;

  properties[PROP_N_FILES] =
    g_param_spec_uint ("n-files", NULL, NULL,
                       0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-source-list.ui");
  gtk_widget_class_bind_template_child (widget_class, CsSourceList, stack);
  gtk_widget_class_bind_template_child (widget_class, CsSourceList, list_box);
  gtk_widget_class_bind_template_child (widget_class, CsSourceList, totals_label);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "sourcelist");
}

static void
cs_source_list_init (CsSourceList *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_widget_add_css_class (GTK_WIDGET (self), "source-list");

  self->files = g_list_store_new (G_TYPE_FILE);
  g_signal_connect_object (self->files, "items-changed", G_CALLBACK (files_changed_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_list_box_bind_model (self->list_box, G_LIST_MODEL (self->files),
                           create_row_cb, self, NULL);

  /* A controller, not a widget: the drop zone is the whole list, empty or not. */
  self->drop_target = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect_object (self->drop_target, "drop", G_CALLBACK (drop_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (self->drop_target));

  gtk_stack_set_visible_child_name (self->stack, "empty");
}

GListModel *
cs_source_list_get_files (CsSourceList *self)
{
  g_return_val_if_fail (CS_IS_SOURCE_LIST (self), NULL);

  return G_LIST_MODEL (self->files);
}

guint
cs_source_list_get_n_files (CsSourceList *self)
{
  g_return_val_if_fail (CS_IS_SOURCE_LIST (self), 0);

  return g_list_model_get_n_items (G_LIST_MODEL (self->files));
}

/* Adds the files that are not sources yet, in the order given. */
void
cs_source_list_add (CsSourceList  *self,
                    GFile        **files,
                    guint          n_files)
{
  g_autoptr(GPtrArray) fresh = g_ptr_array_new ();
  g_autoptr(GPtrArray) kept = g_ptr_array_new_with_free_func (g_object_unref);

  g_return_if_fail (CS_IS_SOURCE_LIST (self));
  g_return_if_fail (files != NULL || n_files == 0);

  /* A password typed into an smb:// URL goes to the login, not the list. */
  for (guint i = 0; i < n_files; i++)
    g_ptr_array_add (kept, _cs_file_take_password (files[i]));
  files = (GFile **) kept->pdata;

  for (guint i = 0; i < n_files; i++)
    {
      gboolean known = g_list_store_find_with_equal_func (self->files, files[i],
                                                          (GEqualFunc) g_file_equal, NULL);

      for (guint j = 0; !known && j < fresh->len; j++)
        known = g_file_equal (files[i], fresh->pdata[j]);

      if (!known)
        g_ptr_array_add (fresh, files[i]);
    }

  if (fresh->len > 0)
    g_list_store_splice (self->files, g_list_model_get_n_items (G_LIST_MODEL (self->files)),
                         0, fresh->pdata, fresh->len);
}

void
cs_source_list_clear (CsSourceList *self)
{
  g_return_if_fail (CS_IS_SOURCE_LIST (self));

  g_list_store_remove_all (self->files);
}

/* TRUE when a scan found an item gone; @out_missing gets the first such item. */
gboolean
cs_source_list_get_missing (CsSourceList  *self,
                            GFile        **out_missing)
{
  g_return_val_if_fail (CS_IS_SOURCE_LIST (self), FALSE);

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->list_box));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (CS_IS_SOURCE_ROW (child) && cs_source_row_get_missing (CS_SOURCE_ROW (child)))
        {
          if (out_missing != NULL)
            *out_missing = g_object_ref (cs_source_row_get_file (CS_SOURCE_ROW (child)));
          return TRUE;
        }
    }

  return FALSE;
}
