/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include "cs-fold-box.h"

/*
 * Children side by side while the width allows it, one above the other below
 * that: a page that is two columns on a wide window and one on a narrow one.
 * (libadwaita 1.2 has no AdwBreakpoint; this folds on the width it is given,
 * so it never asks for more than its widest child.) Side by side, the first
 * child that expands horizontally takes the room left by the others' natural
 * widths, down to its own minimum; below that the box folds.
 */

struct _CsFoldBox
{
  GtkWidget  parent_instance;

  int        spacing;
  gboolean   folded;      /* as last allocated */
};

static void cs_fold_box_buildable_init (GtkBuildableIface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (CsFoldBox, cs_fold_box, GTK_TYPE_WIDGET,
                               G_IMPLEMENT_INTERFACE (GTK_TYPE_BUILDABLE, cs_fold_box_buildable_init))

enum {
  PROP_0,
  PROP_SPACING,
  PROP_FOLDED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static GtkBuildableIface *parent_buildable_iface;

static guint
visible_children (CsFoldBox *self)
{
  guint n = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    n += gtk_widget_should_layout (child);

  return n;
}

static GtkWidget *
first_expander (CsFoldBox *self)
{
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (gtk_widget_should_layout (child) && gtk_widget_compute_expand (child, GTK_ORIENTATION_HORIZONTAL))
      return child;

  return NULL;
}

/* The narrowest width side by side: the expanding child at its minimum, the
 * others at their natural widths. */
static int
unfolded_width (CsFoldBox *self)
{
  GtkWidget *expander = first_expander (self);
  guint n = visible_children (self);
  int width = n > 1 ? self->spacing * (int) (n - 1) : 0;

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      int min = 0, nat = 0;

      if (!gtk_widget_should_layout (child))
        continue;
      gtk_widget_measure (child, GTK_ORIENTATION_HORIZONTAL, -1, &min, &nat, NULL, NULL);
      width += child == expander ? min : nat;
    }

  return width;
}

static gboolean
folds_at (CsFoldBox *self,
          int        width)
{
  return width >= 0 && width < unfolded_width (self);
}

/* Side by side at @width: the children's natural widths, and the difference
 * to @width taken from or given to the first that expands (or shared out
 * when none does). */
static void
side_by_side_widths (CsFoldBox *self,
                     int        width,
                     int       *widths,
                     guint      n)
{
  GtkWidget *expander = first_expander (self);
  int total = n > 1 ? self->spacing * (int) (n - 1) : 0;
  guint i = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (!gtk_widget_should_layout (child))
        continue;
      gtk_widget_measure (child, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &widths[i], NULL, NULL);
      total += widths[i];
      i++;
    }

  i = 0;
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      int min = 0;

      if (!gtk_widget_should_layout (child))
        continue;
      if (child == expander)
        {
          gtk_widget_measure (child, GTK_ORIENTATION_HORIZONTAL, -1, &min, NULL, NULL, NULL);
          widths[i] = MAX (widths[i] + width - total, min);
        }
      else if (expander == NULL)
        widths[i] += MAX (width - total, 0) / (int) n;
      i++;
    }
}

static GtkSizeRequestMode
cs_fold_box_get_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
cs_fold_box_measure (GtkWidget      *widget,
                     GtkOrientation  orientation,
                     int             for_size,
                     int            *minimum,
                     int            *natural,
                     int            *minimum_baseline,
                     int            *natural_baseline)
{
  CsFoldBox *self = CS_FOLD_BOX (widget);
  guint n = visible_children (self);
  gboolean folded;
  g_autofree int *widths = NULL;
  guint i = 0;

  *minimum = *natural = 0;

  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      /* Folded, the widest child; side by side, all of them at their natural widths. */
      *natural = n > 1 ? self->spacing * (int) (n - 1) : 0;
      for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
           child = gtk_widget_get_next_sibling (child))
        {
          int min = 0, nat = 0;

          if (!gtk_widget_should_layout (child))
            continue;
          gtk_widget_measure (child, GTK_ORIENTATION_HORIZONTAL, -1, &min, &nat, NULL, NULL);
          *minimum = MAX (*minimum, min);
          *natural += nat;
        }
      *natural = MAX (*minimum, *natural);
      return;
    }

  folded = folds_at (self, for_size);
  if (!folded && n > 0)
    {
      widths = g_new0 (int, n);
      side_by_side_widths (self, for_size, widths, n);
    }

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      int min = 0, nat = 0;

      if (!gtk_widget_should_layout (child))
        continue;

      gtk_widget_measure (child, GTK_ORIENTATION_VERTICAL, folded ? for_size : widths[i],
                          &min, &nat, NULL, NULL);
      if (folded)
        {
          *minimum += min + (i > 0 ? self->spacing : 0);
          *natural += nat + (i > 0 ? self->spacing : 0);
        }
      else
        {
          *minimum = MAX (*minimum, min);
          *natural = MAX (*natural, nat);
        }
      i++;
    }
}

static void
cs_fold_box_size_allocate (GtkWidget *widget,
                           int        width,
                           int        height,
                           int        baseline)
{
  CsFoldBox *self = CS_FOLD_BOX (widget);
  guint n = visible_children (self);
  gboolean folded = folds_at (self, width);
  g_autofree int *widths = NULL;
  int position = 0;
  guint i = 0;

  if (!folded && n > 0)
    {
      widths = g_new0 (int, n);
      side_by_side_widths (self, width, widths, n);
    }

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      int child_height;

      if (!gtk_widget_should_layout (child))
        continue;

      if (folded)
        {
          /* The last child takes what is left. */
          gtk_widget_measure (child, GTK_ORIENTATION_VERTICAL, width, &child_height, NULL, NULL, NULL);
          if (i == n - 1)
            child_height = MAX (child_height, height - position);
          gtk_widget_size_allocate (child, &(GtkAllocation) { 0, position, width, child_height }, -1);
          position += child_height + self->spacing;
        }
      else
        {
          gtk_widget_size_allocate (child, &(GtkAllocation) { position, 0, widths[i], height }, -1);
          position += widths[i] + self->spacing;
        }
      i++;
    }

  if (folded != self->folded)
    {
      self->folded = folded;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FOLDED]);
    }
}

static void
cs_fold_box_buildable_add_child (GtkBuildable *buildable,
                                 GtkBuilder   *builder,
                                 GObject      *child,
                                 const char   *type)
{
  if (GTK_IS_WIDGET (child))
    gtk_widget_set_parent (GTK_WIDGET (child), GTK_WIDGET (buildable));
  else
    parent_buildable_iface->add_child (buildable, builder, child, type);
}

static void
cs_fold_box_buildable_init (GtkBuildableIface *iface)
{
  parent_buildable_iface = g_type_interface_peek_parent (iface);
  iface->add_child = cs_fold_box_buildable_add_child;
}

static void
cs_fold_box_dispose (GObject *object)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (object))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (cs_fold_box_parent_class)->dispose (object);
}

static void
cs_fold_box_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  CsFoldBox *self = CS_FOLD_BOX (object);

  switch (prop_id)
    {
    case PROP_SPACING:
      g_value_set_int (value, self->spacing);
      break;

    case PROP_FOLDED:
      g_value_set_boolean (value, self->folded);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cs_fold_box_set_property (GObject      *object,
                          guint         prop_id,
                          const GValue *value,
                          GParamSpec   *pspec)
{
  CsFoldBox *self = CS_FOLD_BOX (object);

  switch (prop_id)
    {
    case PROP_SPACING:
      if (self->spacing != g_value_get_int (value))
        {
          self->spacing = g_value_get_int (value);
          gtk_widget_queue_resize (GTK_WIDGET (self));
          g_object_notify_by_pspec (object, pspec);
        }
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cs_fold_box_class_init (CsFoldBoxClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cs_fold_box_dispose;
  object_class->get_property = cs_fold_box_get_property;
  object_class->set_property = cs_fold_box_set_property;

  widget_class->get_request_mode = cs_fold_box_get_request_mode;
  widget_class->measure = cs_fold_box_measure;
  widget_class->size_allocate = cs_fold_box_size_allocate;

  properties[PROP_SPACING] =
    g_param_spec_int ("spacing", NULL, NULL, 0, G_MAXINT, 0,
                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* One child above the other, as last laid out. */
  properties[PROP_FOLDED] =
    g_param_spec_boolean ("folded", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_css_name (widget_class, "foldbox");
}

static void
cs_fold_box_init (CsFoldBox *self)
{
}

gboolean
cs_fold_box_get_folded (CsFoldBox *self)
{
  g_return_val_if_fail (CS_IS_FOLD_BOX (self), FALSE);

  return self->folded;
}
