/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "cs-format.h"
#include "cs-totals-view.h"

/*
 * The summary's totals: Robocopy's table, a column per class, where the
 * window has room for every column; a row per class ("Failed — 388 files ·
 * 877 MB") where it has not, so no column waits past the edge for a scroll
 * sideways that a new user would not know to make. An AdwSqueezer (1.2
 * has no breakpoints) shows the first whose natural width fits; both say
 * the same, and a screen reader calls either "Totals".
 */

struct _CsTotalsView
{
  GtkWidget   parent_instance;

  /* Template widgets */
  AdwSqueezer *squeezer;      /* the one child: dispose unparents it */
  GtkGrid     *totals_grid;
  GtkListBox  *totals_list;
};

G_DEFINE_FINAL_TYPE (CsTotalsView, cs_totals_view, GTK_TYPE_WIDGET)

static void
set_grid_text (GtkGrid    *grid,
               int         column,
               int         row,
               const char *text)
{
  GtkWidget *label = gtk_grid_get_child_at (grid, column, row);

  g_assert (GTK_IS_LABEL (label));
  gtk_label_set_label (GTK_LABEL (label), text);
}

/* A check's classes are the files that match, differ or are gone. */
static const char *
class_title (CsClass  klass,
             gboolean check)
{
  switch (klass)
    {
    case CS_CLASS_TOTAL:
      return _("Total");
    case CS_CLASS_COPIED:
      return check ? _("Matched") : _("Copied");
    case CS_CLASS_SKIPPED:
      return _("Skipped");
    case CS_CLASS_MISMATCH:
      return check ? _("Changed") : _("Mismatch");
    case CS_CLASS_FAILED:
      return check ? _("Missing") : _("Failed");
    case CS_CLASS_EXTRAS:
      return _("Extras");
    case CS_N_CLASSES:
    default:
      g_assert_not_reached ();
    }
}

/* "%s bytes" with every digit, for a tooltip. */
static char *
exact_bytes (guint64 bytes)
{
  g_autofree char *exact = _cs_format_count (bytes);

  return g_strdup_printf (_("%s bytes"), exact);
}

/* A class's row of the narrow list: its files and bytes, and its folders
 * when it has any ("388 files · 877 MB"). */
static char *
class_figures (const CsTotals *totals,
               CsClass         klass)
{
  guint64 files = totals->v[klass][CS_KIND_FILES];
  guint64 dirs = totals->v[klass][CS_KIND_DIRS];
  g_autofree char *files_count = _cs_format_count (files);
  g_autofree char *bytes = _cs_format_bytes (totals->v[klass][CS_KIND_BYTES]);
  g_autofree char *files_text = g_strdup_printf (ngettext ("%s file", "%s files", (gulong) files),
                                                 files_count);
  g_autofree char *dirs_count = NULL;
  g_autofree char *dirs_text = NULL;

  if (dirs == 0)
    return g_strdup_printf ("%s · %s", files_text, bytes);

  dirs_count = _cs_format_count (dirs);
  dirs_text = g_strdup_printf (ngettext ("%s folder", "%s folders", (gulong) dirs), dirs_count);
  return g_strdup_printf ("%s · %s · %s", files_text, bytes, dirs_text);
}

static void
cs_totals_view_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), CS_TYPE_TOTALS_VIEW);

  G_OBJECT_CLASS (cs_totals_view_parent_class)->dispose (object);
}

static void
cs_totals_view_class_init (CsTotalsViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cs_totals_view_dispose;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-totals-view.ui");
  gtk_widget_class_bind_template_child (widget_class, CsTotalsView, squeezer);
  gtk_widget_class_bind_template_child (widget_class, CsTotalsView, totals_grid);
  gtk_widget_class_bind_template_child (widget_class, CsTotalsView, totals_list);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "totalsview");
}

static void
cs_totals_view_init (CsTotalsView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

void
cs_totals_view_set_totals (CsTotalsView   *self,
                           const CsTotals *totals,
                           gboolean        check)
{
  g_return_if_fail (CS_IS_TOTALS_VIEW (self));
  g_return_if_fail (totals != NULL);

  for (guint klass = 0; klass < CS_N_CLASSES; klass++)
    {
      GtkListBoxRow *list_row = gtk_list_box_get_row_at_index (self->totals_list, (int) klass);
      AdwActionRow *row = ADW_ACTION_ROW (list_row);
      const char *title = class_title ((CsClass) klass, check);
      g_autofree char *figures = class_figures (totals, (CsClass) klass);
      g_autofree char *row_tooltip = exact_bytes (totals->v[klass][CS_KIND_BYTES]);
      /* Failures deserve a second look; zero of them do not. */
      gboolean alarming = klass == CS_CLASS_FAILED && totals->v[klass][CS_KIND_FILES] > 0;

      set_grid_text (self->totals_grid, (int) klass + 1, 0, title);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
      adw_action_row_set_subtitle (row, figures);
      gtk_widget_set_tooltip_text (GTK_WIDGET (row), row_tooltip);
      if (alarming)
        gtk_widget_add_css_class (GTK_WIDGET (row), "error");
      else
        gtk_widget_remove_css_class (GTK_WIDGET (row), "error");

      for (guint kind = 0; kind < CS_N_KINDS; kind++)
        {
          guint64 value = totals->v[klass][kind];
          g_autofree char *text = NULL;
          GtkWidget *label;

          if (kind == CS_KIND_BYTES)
            text = _cs_format_bytes (value);
          else
            text = _cs_format_count (value);

          set_grid_text (self->totals_grid, (int) klass + 1, (int) kind + 1, text);

          label = gtk_grid_get_child_at (self->totals_grid, (int) klass + 1, (int) kind + 1);
          if (kind == CS_KIND_BYTES)
            {
              g_autofree char *tooltip = exact_bytes (value);

              gtk_widget_set_tooltip_text (label, tooltip);
            }
          if (klass == CS_CLASS_FAILED && value > 0)
            gtk_widget_add_css_class (label, "error");
          else
            gtk_widget_remove_css_class (label, "error");
        }
    }
}
