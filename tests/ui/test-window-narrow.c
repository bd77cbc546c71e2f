/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-window"

#include "config.h"

#include "test-window.h"

#include "cs-format.h"
#include "cs-run-private.h"

/* A narrow window: the slider's marks, the folding boxes and the progress
 * card's words. */

static void
collect_labels (GtkWidget *widget,
                GPtrArray *labels)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (GTK_IS_LABEL (child) && gtk_widget_get_mapped (child))
        g_ptr_array_add (labels, child);
      collect_labels (child, labels);
    }
}

/* The slider's marks 1 … 128 side by side, none touching the next. */
static void
assert_marks_apart (CsThreadSlider *slider)
{
  GtkWidget *scale = cs_thread_slider_get_scale (slider);
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();
  double right = -G_MAXDOUBLE;

  collect_labels (scale, labels);
  g_assert_cmpuint (labels->len, ==, 8);

  /* In the order of the marks, left to right. */
  for (guint i = 0; i < labels->len; i++)
    {
      graphene_rect_t bounds;

      g_assert_true (gtk_widget_compute_bounds (g_ptr_array_index (labels, i), scale, &bounds));
      g_test_message ("mark %s at %.0f–%.0f",
                      gtk_label_get_label (g_ptr_array_index (labels, i)),
                      bounds.origin.x, bounds.origin.x + bounds.size.width);
      g_assert_cmpfloat (bounds.origin.x, >, right);
      right = bounds.origin.x + bounds.size.width;
    }
}

/* Layout happens on the frame clock: let a few frames pass. */
static void
settle (void)
{
  for (guint i = 0; i < 20; i++)
    {
      g_usleep (G_USEC_PER_SEC / 100);
      cs_ui_iterate ();
    }
}

static gboolean
window_narrow (gpointer data)
{
  return gtk_widget_get_width (GTK_WIDGET (data)) <= 600;
}

static gboolean
window_wide (gpointer data)
{
  return gtk_widget_get_width (GTK_WIDGET (data)) >= 1000;
}

/* The copy page's columns: the graph's, not the progress card's. */
static CsFoldBox *
copy_fold_box (CsWindow *window)
{
  GtkWidget *graph = cs_ui_find (cs_ui_find (window, CS_TYPE_COPY_PAGE), CS_TYPE_THROUGHPUT_GRAPH);

  return CS_FOLD_BOX (gtk_widget_get_ancestor (graph, CS_TYPE_FOLD_BOX));
}

/* Every page works in a window 600 px wide: none asks for more, the copy's
 * graph goes above its counters, the sliders' marks stay apart. */
void
test_narrow (void)
{
  const char *pages[] = { "setup", "copying", "summary", "history", "compare", "sweep", "demo" };
  g_autofree char *root = cs_test_tree_make_tmp ();
  g_autofree char *source = g_build_filename (root, "a-folder-with-a-rather-long-name", NULL);
  g_autofree char *in_the_way = g_build_filename (root, "a-file-in-the-way", NULL);
  g_autofree char *nowhere = g_build_filename (in_the_way, "parent", "of-the-destination", NULL);
  CsWindow *window;

  /* With what makes the setup page widest: sources, a destination that
   * cannot be made, and the refusal that names it. */
  generate (source, 3, 1000);
  write_file (in_the_way, 10, 2);
  window = window_with_copy (source, nowhere, 8);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.start", NULL);
  g_assert_null (cs_window_get_job (window));
  g_assert_nonnull (cs_setup_page_get_refusal (setup_page (window)));

  gtk_window_set_default_size (GTK_WINDOW (window), 600, 800);
  g_assert_true (cs_ui_wait_until (window_narrow, window, WAIT_SECONDS));

  for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
    {
      g_autofree char *name = g_strdup_printf ("20-narrow-%s.png", pages[i]);
      int min = 0;

      gtk_stack_set_visible_child_name (cs_ui_page_stack (window), pages[i]);
      settle ();
      gtk_widget_measure (GTK_WIDGET (window), GTK_ORIENTATION_HORIZONTAL, -1, &min, NULL, NULL, NULL);
      g_test_message ("%s: at least %d px", pages[i], min);
      g_assert_cmpint (min, <=, 600);
      g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (window)), <=, 600);
      cs_ui_screenshot (window, name);

      if (g_strcmp0 (pages[i], "setup") == 0)
        assert_marks_apart (setup_slider (window));
      if (g_strcmp0 (pages[i], "copying") == 0)
        {
          assert_marks_apart (live_slider (window));
          g_assert_true (cs_fold_box_get_folded (copy_fold_box (window)));
        }
    }

  /* Wide again, side by side. */
  gtk_stack_set_visible_child_name (cs_ui_page_stack (window), "copying");
  gtk_window_set_default_size (GTK_WINDOW (window), 1100, 800);
  g_assert_true (cs_ui_wait_until (window_wide, window, WAIT_SECONDS));
  settle ();
  cs_ui_screenshot (window, "20-wide-copying.png");
  g_assert_false (cs_fold_box_get_folded (copy_fold_box (window)));

  cs_ui_window_destroy (window);
  cs_test_tree_remove (root);
}

/* The progress card's widest line, the count: a label with the style of a
 * title. */
static GtkLabel *
progress_headline (CsProgressView *card)
{
  for (GtkWidget *widget = gtk_widget_get_first_child (GTK_WIDGET (card)); widget != NULL;
       widget = gtk_widget_get_next_sibling (widget))
    for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
         child = gtk_widget_get_next_sibling (child))
      if (GTK_IS_LABEL (child) && gtk_widget_has_css_class (child, "title-3"))
        return GTK_LABEL (child);
  g_assert_not_reached ();
}

static GtkLabel *
progress_time_left (CsProgressView *card)
{
  GtkWidget *headline = GTK_WIDGET (progress_headline (card));

  return GTK_LABEL (gtk_widget_get_next_sibling (headline));
}

/* @label shows its whole text: not ellipsized, and given no less width
 * than it needs (a label that does not ellipsize would be cut by its
 * parent). */
static void
assert_whole (GtkLabel *label)
{
  int min = 0, nat = 0;

  gtk_widget_measure (GTK_WIDGET (label), GTK_ORIENTATION_HORIZONTAL, -1, &min, &nat, NULL, NULL);
  g_test_message ("“%s”: %d px, at least %d, at most %d", gtk_label_get_label (label),
                  gtk_widget_get_width (GTK_WIDGET (label)), min, nat);
  g_assert_false (pango_layout_is_ellipsized (gtk_label_get_layout (label)));
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (label)), >=, min);
}

/* No label shown under @root breaks a line inside a word: a title too long
 * for its row ("Geschwindigkeitsgren" over "ze") is cut where no reader
 * would. Breaks after a space, a hyphen, a slash or a dash are fine. */
static void
assert_words_whole (GtkWidget *root)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (!gtk_widget_get_mapped (child))
        continue;
      if (GTK_IS_LABEL (child))
        {
          PangoLayout *layout = gtk_label_get_layout (GTK_LABEL (child));
          const char *text = pango_layout_get_text (layout);

          for (GSList *l = pango_layout_get_lines_readonly (layout); l != NULL; l = l->next)
            {
              const PangoLayoutLine *line = l->data;
              gunichar before, after;

              if (line->start_index == 0)
                continue;
              before = g_utf8_get_char (g_utf8_prev_char (text + line->start_index));
              after = g_utf8_get_char (text + line->start_index);
              if (g_unichar_isspace (before) || g_unichar_isspace (after)
                  || before == '-' || before == '/' || before == 0x2014 || before == 0x2013)
                continue;
              g_test_message ("“%s” breaks a word before byte %d", text, line->start_index);
              g_test_fail ();
            }
        }
      assert_words_whole (child);
    }
}

/* The copy page's progress card in a window 600 px wide, in English, Dutch
 * and German, as the lab Samba's 2,000 small files showed it at 62 % with a
 * range of time left ("Nog 34 seconden tot 42 seconden"): the count is
 * whole ("1.235 van 2.000 bestanden", once cut to "1.235 van 2.000
 * bestan…"), and so is the time left, under the count where it must; no
 * label of the copy page or the setup page breaks a word. */
void
test_progress_narrow (void)
{
  const struct {
    const char *language;
    const char *locale;
  } languages[] = {
    { "en", "en_US.UTF-8" },
    { "nl", "nl_NL.UTF-8" },
    { "de", "de_DE.UTF-8" },
  };

  /* gtk_test_init() set en_US.UTF-8, which the other tests count on. */
  g_autofree char *saved_locale = g_strdup (setlocale (LC_ALL, NULL));
  g_autofree char *saved_language = g_strdup (g_getenv ("LANGUAGE"));

  /* The build's catalogues, as the window run from the build finds them. */
  bindtextdomain (GETTEXT_PACKAGE, BUILD_ROOT G_DIR_SEPARATOR_S "po");
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  for (guint l = 0; l < G_N_ELEMENTS (languages); l++)
    {
      g_autofree char *name = g_strdup_printf ("21-progress-600-%s.png", languages[l].language);
      CsProgressView *card;
      CsProgress p = { 0 };
      CsWindow *window;

      if (setlocale (LC_ALL, languages[l].locale) == NULL)
        {
          g_test_message ("no locale %s (.ci/install-deps --tests makes it)", languages[l].locale);
          g_test_fail ();
          continue;
        }
      g_setenv ("LANGUAGE", languages[l].language, TRUE);

      window = cs_ui_window_new ();
      gtk_window_set_default_size (GTK_WINDOW (window), 600, 800);
      g_assert_true (cs_ui_wait_until (window_narrow, window, WAIT_SECONDS));
      gtk_stack_set_visible_child_name (cs_ui_page_stack (window), "copying");
      card = CS_PROGRESS_VIEW (cs_ui_find (cs_ui_find (window, CS_TYPE_COPY_PAGE), CS_TYPE_PROGRESS_VIEW));

      /* 2,000 files of 12 kB, 20 to 26 a second, a snapshot every quarter
       * second, up to 1,235 of them. */
      p.state = CS_JOB_STATE_RUNNING;
      p.total_known = TRUE;
      p.threads = p.active = 8;
      p.files_found = p.files_total = 2000;
      p.bytes_found = p.bytes_total = 2000 * 12300;
      for (guint i = 1; p.files_done < 1235; i++)
        {
          p.elapsed = i * 0.25;
          p.files_done = p.files_copied = MIN (1235, p.files_done + (i % 4 == 0 ? 8 : 5));
          p.bytes_done = p.bytes_copied = p.files_done * 12300;
          cs_progress_view_update (card, &p);
        }
      settle ();
      cs_ui_screenshot (window, name);

      assert_whole (progress_time_left (card));
      assert_whole (progress_headline (card));

      /* A rerun's headline, the longest: "Checking 1,235 of 2,000 files —
       * 12 to copy so far", whole, on two lines if need be. */
      p.files_checked = p.files_done;
      p.files_to_copy = 12;
      p.files_skipped = p.files_done - 12;
      p.elapsed += 1.5;
      cs_progress_view_update (card, &p);
      g_assert_true (cs_progress_view_get_checking (card));
      settle ();
      {
        g_autofree char *rerun = g_strdup_printf ("21-progress-600-rerun-%s.png", languages[l].language);

        cs_ui_screenshot (window, rerun);
      }
      assert_whole (progress_headline (card));
      assert_whole (progress_time_left (card));
      assert_words_whole (cs_ui_find (window, CS_TYPE_COPY_PAGE));
      gtk_stack_set_visible_child_name (cs_ui_page_stack (window), "setup");
      settle ();
      assert_words_whole (GTK_WIDGET (setup_page (window)));

      cs_ui_window_destroy (window);
    }

  if (saved_language != NULL)
    g_setenv ("LANGUAGE", saved_language, TRUE);
  else
    g_unsetenv ("LANGUAGE");
  setlocale (LC_ALL, saved_locale);
}

/* A copy that went wrong on a big tree: numbers as wide as the table gets,
 * and failures, whose count must be seen. */
static CsRun *
failed_run (void)
{
  const char *sources[] = { "/data/photos", NULL };
  CsTotals totals = { { { 0 } } };
  CsRun *run = cs_run_new ();

  _cs_run_set_kind (run, "copy");
  _cs_run_set_sources (run, sources);
  _cs_run_set_destination (run, "/mnt/nas/backup");
  _cs_run_set_started (run, g_get_real_time ());
  _cs_run_set_duration (run, 3600.0);
  totals.v[CS_CLASS_TOTAL][CS_KIND_DIRS] = 123456;
  totals.v[CS_CLASS_TOTAL][CS_KIND_FILES] = 3110400;
  totals.v[CS_CLASS_TOTAL][CS_KIND_BYTES] = G_GUINT64_CONSTANT (7776000000000);
  totals.v[CS_CLASS_COPIED][CS_KIND_DIRS] = 123000;
  totals.v[CS_CLASS_COPIED][CS_KIND_FILES] = 3107205;
  totals.v[CS_CLASS_COPIED][CS_KIND_BYTES] = G_GUINT64_CONSTANT (7770000000000);
  totals.v[CS_CLASS_SKIPPED][CS_KIND_DIRS] = 456;
  totals.v[CS_CLASS_SKIPPED][CS_KIND_FILES] = 2718;
  totals.v[CS_CLASS_SKIPPED][CS_KIND_BYTES] = G_GUINT64_CONSTANT (5000000000);
  totals.v[CS_CLASS_MISMATCH][CS_KIND_FILES] = 89;
  totals.v[CS_CLASS_MISMATCH][CS_KIND_BYTES] = 123456789;
  totals.v[CS_CLASS_FAILED][CS_KIND_FILES] = 388;
  totals.v[CS_CLASS_FAILED][CS_KIND_BYTES] = G_GUINT64_CONSTANT (877000000);
  totals.v[CS_CLASS_EXTRAS][CS_KIND_DIRS] = 12;
  totals.v[CS_CLASS_EXTRAS][CS_KIND_FILES] = 4321;
  totals.v[CS_CLASS_EXTRAS][CS_KIND_BYTES] = G_GUINT64_CONSTANT (98765432100);
  _cs_run_set_totals (run, &totals);
  _cs_run_set_outcome (run, "completed", NULL);

  return run;
}

/* The shown widget under @root that a screen reader calls @name, other
 * than a label that says it. */
static GtkWidget *
find_mapped_labelled (GtkWidget  *root,
                      const char *name)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      g_autofree char *problem = NULL;
      GtkWidget *found;

      if (!gtk_widget_get_mapped (child))
        continue;
      if (GTK_IS_LABEL (child))
        continue;
      problem = gtk_test_accessible_check_property (GTK_ACCESSIBLE (child),
                                                    GTK_ACCESSIBLE_PROPERTY_LABEL, name);
      if (problem == NULL)
        return child;
      if ((found = find_mapped_labelled (child, name)) != NULL)
        return found;
    }

  return NULL;
}

/* @label is read whole: not ellipsized, given its width, and inside the
 * window and every scrolled window around it, so nothing of it waits past
 * an edge for a scroll sideways. */
static void
assert_label_in_view (GtkLabel  *label,
                      GtkWidget *window)
{
  GtkWidget *widget = GTK_WIDGET (label);
  graphene_rect_t bounds;
  int min = 0;

  gtk_widget_measure (widget, GTK_ORIENTATION_HORIZONTAL, -1, &min, NULL, NULL, NULL);
  g_assert_false (pango_layout_is_ellipsized (gtk_label_get_layout (label)));
  g_assert_cmpint (gtk_widget_get_width (widget), >=, min);

  for (GtkWidget *ancestor = gtk_widget_get_parent (widget); ancestor != NULL;
       ancestor = gtk_widget_get_parent (ancestor))
    {
      if (ancestor != window && !GTK_IS_SCROLLED_WINDOW (ancestor))
        continue;
      g_assert_true (gtk_widget_compute_bounds (widget, ancestor, &bounds));
      if (bounds.origin.x < 0
          || bounds.origin.x + bounds.size.width > gtk_widget_get_width (ancestor) + 0.5)
        {
          g_test_message ("“%s” at %.0f–%.0f, outside the %s’s 0–%d", gtk_label_get_label (label),
                          bounds.origin.x, bounds.origin.x + bounds.size.width,
                          G_OBJECT_TYPE_NAME (ancestor), gtk_widget_get_width (ancestor));
          g_test_fail ();
        }
      if (ancestor == window)
        break;
    }
}

/* Every label shown under @root is in view; returns them all. */
static GPtrArray *
assert_labels_in_view (GtkWidget *root,
                       GtkWidget *window)
{
  GPtrArray *labels = g_ptr_array_new ();

  collect_labels (root, labels);
  g_assert_cmpuint (labels->len, >, 0);
  for (guint i = 0; i < labels->len; i++)
    assert_label_in_view (g_ptr_array_index (labels, i), window);

  return labels;
}

/* One of @labels says @text. */
static gboolean
labels_say (GPtrArray  *labels,
            const char *text)
{
  for (guint i = 0; i < labels->len; i++)
    if (strstr (gtk_label_get_label (g_ptr_array_index (labels, i)), text) != NULL)
      return TRUE;

  g_test_message ("no label says “%s”", text);
  return FALSE;
}

typedef struct
{
  GtkWidget *window;
  int        width;
} Width;

/* The window is @width wide, or as near as it lets itself be made, short
 * of the few pixels its frame takes. */
static gboolean
window_has_width (gpointer data)
{
  Width *w = data;
  int min = 0;

  gtk_widget_measure (w->window, GTK_ORIENTATION_HORIZONTAL, -1, &min, NULL, NULL, NULL);
  return ABS (gtk_widget_get_width (w->window) - MAX (w->width, min)) <= 12;
}

/* The summary's totals after a copy with failures, in a window as narrow as
 * it goes, 600 px and 1100 px wide, in English, Dutch and German: every
 * class and every count is read without scrolling sideways. In Dutch at
 * 600 px the table once ran past the edge and hid "Mislukt" and "Extra",
 * the columns that say how many failed. */
void
test_totals_narrow (void)
{
  const struct {
    const char *language;
    const char *locale;
  } languages[] = {
    { "en", "en_US.UTF-8" },
    { "nl", "nl_NL.UTF-8" },
    { "de", "de_DE.UTF-8" },
  };
  g_autofree char *saved_locale = g_strdup (setlocale (LC_ALL, NULL));
  g_autofree char *saved_language = g_strdup (g_getenv ("LANGUAGE"));
  g_autoptr(CsRun) run = failed_run ();

  bindtextdomain (GETTEXT_PACKAGE, BUILD_ROOT G_DIR_SEPARATOR_S "po");
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  for (guint l = 0; l < G_N_ELEMENTS (languages); l++)
    {
      CsWindow *window;
      /* Narrow again last: the rows come back once the table was shown. */
      int widths[4] = { 0, 600, 1100, 0 };

      if (setlocale (LC_ALL, languages[l].locale) == NULL)
        {
          g_test_message ("no locale %s (.ci/install-deps --tests makes it)", languages[l].locale);
          g_test_fail ();
          continue;
        }
      g_setenv ("LANGUAGE", languages[l].language, TRUE);

      window = cs_ui_window_new ();
      /* The narrowest the window asks to be allowed; its pages may ask more. */
      gtk_widget_get_size_request (GTK_WIDGET (window), &widths[0], NULL);
      g_assert_cmpint (widths[0], >, 0);
      g_assert_cmpint (widths[0], <, 600);
      widths[3] = widths[0];
      cs_summary_page_set_run (summary_page (window), run);
      gtk_stack_set_visible_child_name (cs_ui_page_stack (window), "summary");

      for (guint i = 0; i < G_N_ELEMENTS (widths); i++)
        {
          g_autofree char *name = NULL;
          g_autofree char *failed = _cs_format_count (388);
          g_autoptr(GPtrArray) labels = NULL;
          Width w = { GTK_WIDGET (window), widths[i] };
          GtkWidget *totals;

          gtk_window_set_default_size (GTK_WINDOW (window), widths[i], 900);
          g_assert_true (cs_ui_wait_until (window_has_width, &w, WAIT_SECONDS));
          settle ();
          name = g_strdup_printf ("22-totals-%d-%s.png", gtk_widget_get_width (GTK_WIDGET (window)),
                                  languages[l].language);
          cs_ui_screenshot (window, name);
          g_test_message ("%s at %d px", languages[l].language,
                          gtk_widget_get_width (GTK_WIDGET (window)));

          totals = find_mapped_labelled (GTK_WIDGET (summary_page (window)), _("Totals"));
          g_assert_nonnull (totals);
          labels = assert_labels_in_view (totals, GTK_WIDGET (window));

          g_assert_true (labels_say (labels, _("Total")));
          g_assert_true (labels_say (labels, _("Copied")));
          g_assert_true (labels_say (labels, _("Skipped")));
          g_assert_true (labels_say (labels, _("Mismatch")));
          g_assert_true (labels_say (labels, _("Failed")));
          g_assert_true (labels_say (labels, _("Extras")));
          g_assert_true (labels_say (labels, failed));

          /* Where there is room, the table. */
          if (widths[i] == 1100)
            g_assert_true (GTK_IS_GRID (totals));
        }

      cs_ui_window_destroy (window);
    }

  if (saved_language != NULL)
    g_setenv ("LANGUAGE", saved_language, TRUE);
  else
    g_unsetenv ("LANGUAGE");
  setlocale (LC_ALL, saved_locale);
}
