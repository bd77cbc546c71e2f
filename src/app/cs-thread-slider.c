/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "cs-job.h"
#include "cs-thread-slider.h"

/*
 * Thread count from 1 to 128. The scale runs over log2 of the count, so each
 * doubling takes the same room and the marks at 1, 2, 4 … 128 are evenly
 * spaced; any whole count in between can be reached and is shown exactly.
 * The Auto switch beside it hands the count to the job's controller; moving
 * the slider by hand takes it back. Scrolling over it scrolls the page.
 */

struct _CsThreadSlider
{
  GtkWidget       parent_instance;

  /* Template widgets */
  GtkScale       *scale;
  GtkAdjustment  *adjustment;
  GtkLabel       *value_label;
  GtkSwitch      *auto_switch;

  guint           threads;
  guint           updating : 1;
};

G_DEFINE_FINAL_TYPE (CsThreadSlider, cs_thread_slider, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_THREADS,
  PROP_AUTO,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static guint
threads_from_position (double position)
{
  double threads = round (exp2 (position));

  return (guint) CLAMP (threads, CS_JOB_MIN_THREADS, CS_JOB_MAX_THREADS);
}

static void
cs_thread_slider_show_value (CsThreadSlider *self)
{
  g_autofree char *number = g_strdup_printf ("%u", self->threads);
  g_autofree char *text = g_strdup_printf (ngettext ("%u thread", "%u threads", self->threads),
                                           self->threads);

  gtk_label_set_label (self->value_label, number);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->scale),
                                  GTK_ACCESSIBLE_PROPERTY_VALUE_TEXT, text,
                                  -1);
}

static void
scale_value_changed_cb (CsThreadSlider *self)
{
  guint threads;

  if (self->updating)
    return;

  threads = threads_from_position (gtk_adjustment_get_value (self->adjustment));
  if (threads == self->threads)
    return;

  /* A count chosen by hand turns Auto off first, so the job hears it in that order. */
  gtk_switch_set_active (self->auto_switch, FALSE);

  self->threads = threads;
  cs_thread_slider_show_value (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_THREADS]);
}

static void
auto_switch_changed_cb (CsThreadSlider *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_AUTO]);
}

/* A wheel or touchpad scrolling the page past the slider changed the count
 * (and the remembered one) on its way: the scale gives its scroll controller
 * up, so scrolling over it scrolls the page like over any other row. The
 * pointer and the keyboard still move it. */
static void
cs_thread_slider_drop_scrolling (CsThreadSlider *self)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (self->scale));
  g_autoptr(GPtrArray) scrolling = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (GTK_IS_EVENT_CONTROLLER_SCROLL (controller))
        g_ptr_array_add (scrolling, g_steal_pointer (&controller));
    }

  for (guint i = 0; i < scrolling->len; i++)
    gtk_widget_remove_controller (GTK_WIDGET (self->scale), g_ptr_array_index (scrolling, i));
}

/* GtkScale asks for no more than its mark labels' widths added up, which at
 * the minimum puts them edge to edge ("163264128"). The marks are evenly
 * spaced, so each needs the room of the widest label and a gap. */
static void
cs_thread_slider_space_marks (CsThreadSlider *self)
{
  const guint n_marks = 8;     /* 1, 2, 4 … 128, as in the template */
  const int gap = 8;
  g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout (GTK_WIDGET (self->scale), "128");
  int widest = 0;

  pango_layout_get_pixel_size (layout, &widest, NULL);
  gtk_widget_set_size_request (GTK_WIDGET (self->scale), (int) n_marks * (widest + gap), -1);
}

static void
cs_thread_slider_dispose (GObject *object)
{
  GtkWidget *child;

  gtk_widget_dispose_template (GTK_WIDGET (object), CS_TYPE_THREAD_SLIDER);

  /* Unnamed template children too: the widget is their only parent. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (object))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (cs_thread_slider_parent_class)->dispose (object);
}

static void
cs_thread_slider_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  CsThreadSlider *self = CS_THREAD_SLIDER (object);

  switch (prop_id)
    {
    case PROP_THREADS:
      g_value_set_uint (value, self->threads);
      break;

    case PROP_AUTO:
      g_value_set_boolean (value, cs_thread_slider_get_auto (self));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cs_thread_slider_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  CsThreadSlider *self = CS_THREAD_SLIDER (object);

  switch (prop_id)
    {
    case PROP_THREADS:
      cs_thread_slider_set_threads (self, g_value_get_uint (value));
      break;

    case PROP_AUTO:
      cs_thread_slider_set_auto (self, g_value_get_boolean (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cs_thread_slider_class_init (CsThreadSliderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cs_thread_slider_dispose;
  object_class->get_property = cs_thread_slider_get_property;
  object_class->set_property = cs_thread_slider_set_property;

  properties[PROP_THREADS] =
    g_param_spec_uint ("threads", NULL, NULL,
                       CS_JOB_MIN_THREADS, CS_JOB_MAX_THREADS, CS_JOB_DEFAULT_THREADS,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  properties[PROP_AUTO] =
    g_param_spec_boolean ("auto", NULL, NULL,
                          FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-thread-slider.ui");
  gtk_widget_class_bind_template_child (widget_class, CsThreadSlider, scale);
  gtk_widget_class_bind_template_child (widget_class, CsThreadSlider, adjustment);
  gtk_widget_class_bind_template_child (widget_class, CsThreadSlider, value_label);
  gtk_widget_class_bind_template_child (widget_class, CsThreadSlider, auto_switch);
  gtk_widget_class_bind_template_callback (widget_class, scale_value_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, auto_switch_changed_cb);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "threadslider");
}

static void
cs_thread_slider_init (CsThreadSlider *self)
{
  GtkLayoutManager *layout;

  gtk_widget_init_template (GTK_WIDGET (self));
  cs_thread_slider_drop_scrolling (self);
  cs_thread_slider_space_marks (self);

  layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));
  gtk_box_layout_set_spacing (GTK_BOX_LAYOUT (layout), 12);

  self->threads = CS_JOB_DEFAULT_THREADS;
  cs_thread_slider_show_value (self);
}

guint
cs_thread_slider_get_threads (CsThreadSlider *self)
{
  g_return_val_if_fail (CS_IS_THREAD_SLIDER (self), CS_JOB_DEFAULT_THREADS);

  return self->threads;
}

void
cs_thread_slider_set_threads (CsThreadSlider *self,
                              guint           threads)
{
  g_return_if_fail (CS_IS_THREAD_SLIDER (self));

  threads = CLAMP (threads, CS_JOB_MIN_THREADS, CS_JOB_MAX_THREADS);
  if (threads == self->threads)
    return;

  self->threads = threads;

  /* The knob follows the exact count; the value it lands on must not round it
   * back to a neighbour. */
  self->updating = TRUE;
  gtk_adjustment_set_value (self->adjustment, log2 ((double) threads));
  self->updating = FALSE;

  cs_thread_slider_show_value (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_THREADS]);
}

GtkWidget *
cs_thread_slider_get_scale (CsThreadSlider *self)
{
  g_return_val_if_fail (CS_IS_THREAD_SLIDER (self), NULL);

  return GTK_WIDGET (self->scale);
}

gboolean
cs_thread_slider_get_auto (CsThreadSlider *self)
{
  g_return_val_if_fail (CS_IS_THREAD_SLIDER (self), FALSE);

  return gtk_switch_get_active (self->auto_switch);
}

/* The switch's notify announces the change as "auto". */
void
cs_thread_slider_set_auto (CsThreadSlider *self,
                           gboolean        auto_threads)
{
  g_return_if_fail (CS_IS_THREAD_SLIDER (self));

  gtk_switch_set_active (self->auto_switch, auto_threads);
}
