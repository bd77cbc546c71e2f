/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-ui-test"

#include "config.h"

#include <string.h>

#include "cs-ui-test.h"

static gboolean
timeout_cb (gpointer data)
{
  gboolean *timed_out = data;

  *timed_out = TRUE;
  return G_SOURCE_REMOVE;
}

static gboolean
tick_cb (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

/* GTK, libadwaita and the app's style sheet, as AdwApplication loads them. */
void
cs_ui_test_init (int    *argc,
                 char ***argv)
{
  g_autoptr(GtkCssProvider) css = NULL;

  gtk_test_init (argc, argv, NULL);
  adw_init ();

  css = gtk_css_provider_new ();
  gtk_css_provider_load_from_resource (css, "/io/github/copyscope/Copyscope/style.css");
  gtk_style_context_add_provider_for_display (gdk_display_get_default (),
                                              GTK_STYLE_PROVIDER (css),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);

  if (g_strcmp0 (g_getenv ("CS_TEST_COLOR_SCHEME"), "dark") == 0)
    adw_style_manager_set_color_scheme (adw_style_manager_get_default (),
                                        ADW_COLOR_SCHEME_FORCE_DARK);
}

/* Runs the main loop until @condition holds; FALSE after @seconds without. */
gboolean
cs_ui_wait_until (CsUiCondition condition,
                  gpointer      data,
                  guint         seconds)
{
  gboolean timed_out = FALSE;
  guint id = g_timeout_add_seconds (seconds, timeout_cb, &timed_out);
  /* Wakes the loop often, for conditions that no event announces. */
  guint tick = g_timeout_add (5, tick_cb, NULL);

  while (!condition (data) && !timed_out)
    g_main_context_iteration (NULL, TRUE);

  g_source_remove (tick);
  if (!timed_out)
    g_source_remove (id);

  return !timed_out;
}

void
cs_ui_iterate (void)
{
  for (guint i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
}

/* Saves @widget's window as a PNG when CS_SCREENSHOT_DIR is set: what the tests saw. */
void
cs_ui_screenshot (gpointer    widget,
                  const char *name)
{
  GtkWidget *window = widget;
  const char *dir = g_getenv ("CS_SCREENSHOT_DIR");
  g_autoptr(GdkPaintable) paintable = NULL;
  g_autoptr(GtkSnapshot) snapshot = NULL;
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *path = NULL;
  int width, height;

  if (dir == NULL)
    return;

  /* Let pending layout and drawing happen first, and the page transitions,
   * which run on the frame clock. */
  cs_ui_iterate ();
  for (guint i = 0; i < 40; i++)
    {
      g_usleep (G_USEC_PER_SEC / 100);
      while (g_main_context_iteration (NULL, FALSE))
        ;
    }

  width = gtk_widget_get_width (window);
  height = gtk_widget_get_height (window);
  paintable = gtk_widget_paintable_new (window);
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, snapshot, width, height);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  if (node == NULL)
    return;

  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (window)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, width, height));
  path = g_build_filename (dir, name, NULL);
  gdk_texture_save_to_png (texture, path);
}

/* A window on screen with the default settings, whatever a previous test chose. */
CsWindow *
cs_ui_window_new (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("io.github.copyscope.Copyscope");
  const char *keys[] = { "threads", "auto-threads", "overwrite", "retries", "wait", "flush",
                         "verify", "keep-log", "keep-manifest" };
  CsWindow *window;

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    g_settings_reset (settings, keys[i]);

  window = cs_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (window), 1100, 800);
  gtk_window_present (GTK_WINDOW (window));
  cs_ui_iterate ();

  return window;
}

void
cs_ui_window_destroy (CsWindow *window)
{
  gtk_window_destroy (GTK_WINDOW (window));
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

gboolean
cs_ui_job_done (gpointer window)
{
  return cs_window_get_job (CS_WINDOW (window)) == NULL;
}

static gboolean
has_accessible_label (GtkWidget  *widget,
                      const char *label)
{
  g_autofree char *problem =
    gtk_test_accessible_check_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LABEL, label);

  return problem == NULL;
}

typedef gboolean (*Match) (GtkWidget *widget, gconstpointer data);

/* Depth first, in the order the widgets are laid out. */
static GtkWidget *
find_matching (GtkWidget     *root,
               Match          match,
               gconstpointer  data)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (match (child, data))
        return child;
      if ((found = find_matching (child, match, data)) != NULL)
        return found;
    }

  return NULL;
}

static gboolean
match_type (GtkWidget     *widget,
            gconstpointer  data)
{
  return G_TYPE_CHECK_INSTANCE_TYPE (widget, *(const GType *) data);
}

/* The first widget of @type inside @root. */
GtkWidget *
cs_ui_find (gpointer root,
            GType    type)
{
  return find_matching (root, match_type, &type);
}

typedef struct
{
  GType       type;
  const char *label;
} Labelled;

static gboolean
match_labelled (GtkWidget     *widget,
                gconstpointer  data)
{
  const Labelled *labelled = data;

  return G_TYPE_CHECK_INSTANCE_TYPE (widget, labelled->type) &&
         has_accessible_label (widget, labelled->label);
}

/* The first widget of @type inside @root that a screen reader calls @accessible_label. */
GtkWidget *
cs_ui_find_labelled (gpointer    root,
                     GType       type,
                     const char *accessible_label)
{
  Labelled labelled = { type, accessible_label };

  return find_matching (root, match_labelled, &labelled);
}

static gboolean
match_button (GtkWidget     *widget,
              gconstpointer  data)
{
  const char *label = data;
  const char *text;

  if (!GTK_IS_BUTTON (widget))
    return FALSE;
  if (has_accessible_label (widget, label))
    return TRUE;

  /* The text a user reads, mnemonic underline aside. */
  text = gtk_button_get_label (GTK_BUTTON (widget));
  if (text != NULL)
    {
      g_autoptr(GString) plain = g_string_new (text);

      g_string_replace (plain, "_", "", 0);
      return g_strcmp0 (plain->str, label) == 0;
    }

  return FALSE;
}

/* The button inside @root that reads, or is called, @label. */
GtkWidget *
cs_ui_find_button (gpointer    root,
                   const char *label)
{
  return find_matching (root, match_button, label);
}

static gboolean
match_label (GtkWidget     *widget,
             gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && gtk_widget_get_visible (widget) &&
         strstr (gtk_label_get_label (GTK_LABEL (widget)), data) != NULL;
}

/* The first shown label inside @root whose text contains @contains. */
GtkWidget *
cs_ui_find_label (gpointer    root,
                  const char *contains)
{
  return find_matching (root, match_label, contains);
}

static gboolean
match_page_stack (GtkWidget     *widget,
                  gconstpointer  data)
{
  return GTK_IS_STACK (widget) && gtk_stack_get_child_by_name (GTK_STACK (widget), "setup") != NULL &&
         gtk_stack_get_child_by_name (GTK_STACK (widget), "summary") != NULL;
}

/* The stack of the window's pages. */
GtkStack *
cs_ui_page_stack (CsWindow *window)
{
  GtkWidget *stack = find_matching (GTK_WIDGET (window), match_page_stack, NULL);

  g_assert_nonnull (stack);
  return GTK_STACK (stack);
}

const char *
cs_ui_visible_page (CsWindow *window)
{
  return gtk_stack_get_visible_child_name (cs_ui_page_stack (window));
}

/* The question the window asks now (a conflict, cancelling), or NULL. */
AdwMessageDialog *
cs_ui_find_dialog (CsWindow *window)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) toplevel = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (toplevel) &&
          gtk_window_get_transient_for (toplevel) == GTK_WINDOW (window) &&
          gtk_widget_get_visible (GTK_WIDGET (toplevel)))
        return ADW_MESSAGE_DIALOG (toplevel);
    }

  return NULL;
}

/* Answers @dialog as a click on its button @label would, which also closes it. */
void
cs_ui_answer (AdwMessageDialog *dialog,
              const char       *label)
{
  GtkWidget *button = cs_ui_find_button (dialog, label);

  g_assert_nonnull (button);
  /* "clicked" itself: activating a button clicks it only a moment later. */
  g_signal_emit_by_name (button, "clicked");
  cs_ui_iterate ();
}
