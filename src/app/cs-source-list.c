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
  GHashTable     *copy_as;      /* GFile → the name the user gave it at the destination */
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

/* The name @file lands on in the destination folder. */
static char *
landing_name (CsSourceList *self,
              GFile        *file)
{
  const char *as = g_hash_table_lookup (self->copy_as, file);

  return as != NULL ? g_strdup (as) : g_file_get_basename (file);
}

/*
 * Sources of one name land on one name: the engine keeps the first named and
 * reports the others (folders merge, cp -r's way). Said on both rows before
 * Start, naming the other, so the user can remove one or rename one; never
 * merged without a word.
 */
static void
cs_source_list_update_clashes (CsSourceList *self)
{
  g_autoptr(GHashTable) first = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) second = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->list_box));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      g_autofree char *name = NULL;

      if (!CS_IS_SOURCE_ROW (child))
        continue;
      name = landing_name (self, cs_source_row_get_file (CS_SOURCE_ROW (child)));
      if (!g_hash_table_contains (first, name))
        g_hash_table_insert (first, g_steal_pointer (&name), child);
      else if (!g_hash_table_contains (second, name))
        g_hash_table_insert (second, g_steal_pointer (&name), child);
    }

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->list_box));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      CsSourceRow *row;
      g_autofree char *name = NULL;
      g_autofree char *other_path = NULL;
      g_autofree char *message = NULL;
      CsSourceRow *one, *two;

      if (!CS_IS_SOURCE_ROW (child))
        continue;
      row = CS_SOURCE_ROW (child);
      name = landing_name (self, cs_source_row_get_file (row));
      one = g_hash_table_lookup (first, name);
      two = g_hash_table_lookup (second, name);
      if (two == NULL)
        {
          cs_source_row_set_clash (row, NULL);
          continue;
        }
      if (one == row)
        {
          other_path = _cs_display_file (cs_source_row_get_file (two));
          /* Translators: on the first of two sources that would land on one name */
          message = g_strdup_printf (_("Same name as “%s”, added after it: this one keeps the "
                                       "name"), other_path);
        }
      else
        {
          other_path = _cs_display_file (cs_source_row_get_file (one));
          /* Translators: on a later source that would land on the name of an earlier one */
          message = g_strdup_printf (_("Same name as “%s”, which goes first and keeps the name: "
                                       "nothing of this one replaces it (folders merge); remove "
                                       "one or copy this one under another name"), other_path);
        }
      cs_source_row_set_clash (row, message);
    }
}

static void
row_remove_cb (CsSourceList *self,
               CsSourceRow  *row)
{
  GFile *file = cs_source_row_get_file (row);
  guint position;

  g_hash_table_remove (self->copy_as, file);
  if (g_list_store_find_with_equal_func (self->files, file,
                                         (GEqualFunc) g_file_equal, &position))
    g_list_store_remove (self->files, position);
}

static void
row_rename_cb (CsSourceList *self,
               const char   *name,
               CsSourceRow  *row)
{
  cs_source_list_set_copy_as (self, cs_source_row_get_file (row), name);
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

  cs_source_row_set_copy_as (CS_SOURCE_ROW (row), g_hash_table_lookup (self->copy_as, item));
  g_signal_connect_object (row, "remove", G_CALLBACK (row_remove_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (row, "rename", G_CALLBACK (row_rename_cb), self, G_CONNECT_SWAPPED);
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
  cs_source_list_update_clashes (self);

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
  g_clear_pointer (&self->copy_as, g_hash_table_unref);

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

  self->copy_as = g_hash_table_new_full (g_file_hash, (GEqualFunc) g_file_equal,
                                         g_object_unref, g_free);
  self->files = g_list_store_new (G_TYPE_FILE);
  gtk_list_box_bind_model (self->list_box, G_LIST_MODEL (self->files),
                           create_row_cb, self, NULL);
  /* After the list box's own: the rows of what changed exist by then. */
  g_signal_connect_object (self->files, "items-changed", G_CALLBACK (files_changed_cb), self,
                           G_CONNECT_SWAPPED);

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

  g_hash_table_remove_all (self->copy_as);
  g_list_store_remove_all (self->files);
}

/* Copies @file under @name (filename encoding) at the destination; NULL, or
 * its own name, copies it under its own name again. */
void
cs_source_list_set_copy_as (CsSourceList *self,
                            GFile        *file,
                            const char   *name)
{
  g_autofree char *own = NULL;

  g_return_if_fail (CS_IS_SOURCE_LIST (self));
  g_return_if_fail (G_IS_FILE (file));

  own = g_file_get_basename (file);
  if (name == NULL || g_strcmp0 (name, own) == 0)
    g_hash_table_remove (self->copy_as, file);
  else
    g_hash_table_replace (self->copy_as, g_object_ref (file), g_strdup (name));

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->list_box));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (CS_IS_SOURCE_ROW (child) && g_file_equal (cs_source_row_get_file (CS_SOURCE_ROW (child)), file))
      cs_source_row_set_copy_as (CS_SOURCE_ROW (child), g_hash_table_lookup (self->copy_as, file));
  cs_source_list_update_clashes (self);
}

/* The name @file is copied under, when the user gave it one; else NULL. */
const char *
cs_source_list_get_copy_as (CsSourceList *self,
                            GFile        *file)
{
  g_return_val_if_fail (CS_IS_SOURCE_LIST (self), NULL);
  g_return_val_if_fail (G_IS_FILE (file), NULL);

  return g_hash_table_lookup (self->copy_as, file);
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
