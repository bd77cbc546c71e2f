/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "copyscope-engine.h"
#include "cs-fold-box.h"
#include "cs-format.h"
#include "cs-progress-view.h"

/*
 * What is done of what is known, the copy speed, and the time left: the
 * engine's estimate (cs-eta.h), which the CLI's progress line shows too.
 * While the sources are still being scanned the total is not known, and the
 * view says so: files and bytes found and done, a bar that only shows the
 * copy moves, no percentage and no time left. Once the total is known the
 * bar goes by bytes, and the files are counted beside it.
 *
 * A rerun onto a destination that already holds most files is deciding, not
 * copying: its MB/s sits near 0 and would read as stuck. While more than
 * half the files decided so far were left as they are, the view says
 * "Checking N of M files — K to copy so far" and how many files it checks a
 * second; a fresh copy never reads so (nothing there to leave).
 */

struct _CsProgressView
{
  GtkWidget       parent_instance;

  /* Template widgets */
  GtkLabel       *headline_label;
  GtkLabel       *eta_label;
  GtkProgressBar *progress_bar;
  GtkLabel       *bytes_label;
  GtkLabel       *scanning_label;
  GtkLabel       *rate_label;

  /* Owned */
  CsEta          *eta;
  gboolean        checking;
  double          check_t;        /* the run's clock at the last check-rate point */
  guint64         check_n;        /* files checked then */
  double          check_rate;     /* files checked/s over the last second or so; < 0: none yet */
};

G_DEFINE_FINAL_TYPE (CsProgressView, cs_progress_view, GTK_TYPE_WIDGET)

static void
cs_progress_view_dispose (GObject *object)
{
  GtkWidget *child;

  gtk_widget_dispose_template (GTK_WIDGET (object), CS_TYPE_PROGRESS_VIEW);
  g_clear_pointer (&CS_PROGRESS_VIEW (object)->eta, cs_eta_free);

  /* Unnamed template children too: the widget is their only parent. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (object))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (cs_progress_view_parent_class)->dispose (object);
}

/* Under the count, the time left starts where the count does. */
static void
folded_cb (CsProgressView *self,
           GParamSpec     *pspec,
           CsFoldBox      *box)
{
  gtk_label_set_xalign (self->eta_label, cs_fold_box_get_folded (box) ? 0 : 1);
}

static void
cs_progress_view_class_init (CsProgressViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cs_progress_view_dispose;

  g_type_ensure (CS_TYPE_FOLD_BOX);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-progress-view.ui");
  gtk_widget_class_bind_template_child (widget_class, CsProgressView, headline_label);
  gtk_widget_class_bind_template_child (widget_class, CsProgressView, eta_label);
  gtk_widget_class_bind_template_child (widget_class, CsProgressView, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, CsProgressView, bytes_label);
  gtk_widget_class_bind_template_child (widget_class, CsProgressView, scanning_label);
  gtk_widget_class_bind_template_child (widget_class, CsProgressView, rate_label);
  gtk_widget_class_bind_template_callback (widget_class, folded_cb);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "progressview");
}

static void
cs_progress_view_init (CsProgressView *self)
{
  GtkLayoutManager *layout;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->eta = cs_eta_new ();

  layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));
  gtk_orientable_set_orientation (GTK_ORIENTABLE (layout), GTK_ORIENTATION_VERTICAL);
  gtk_box_layout_set_spacing (GTK_BOX_LAYOUT (layout), 10);

  cs_progress_view_reset (self);
}

void
cs_progress_view_reset (CsProgressView *self)
{
  g_return_if_fail (CS_IS_PROGRESS_VIEW (self));

  cs_eta_reset (self->eta);

  self->checking = FALSE;
  self->check_t = 0;
  self->check_n = 0;
  self->check_rate = -1;

  gtk_label_set_label (self->headline_label, _("Starting…"));
  gtk_label_set_label (self->eta_label, "");
  gtk_label_set_label (self->bytes_label, "");
  gtk_label_set_label (self->rate_label, "");
  gtk_progress_bar_set_fraction (self->progress_bar, 0);
  gtk_widget_set_visible (GTK_WIDGET (self->scanning_label), FALSE);
}

static char *
format_time_left (CsEta *eta)
{
  g_autofree char *low_text = NULL;
  g_autofree char *high_text = NULL;
  double low, high;

  if (!cs_eta_get_left (eta, &low, &high))
    return g_strdup (_("Estimating time left…"));

  /* Under a second is said once, never as "About less than a second" or a
   * bound of it; a lower bound that small says nothing. */
  if (low < 1 && isinf (high))
    return g_strdup (_("Estimating time left…"));
  if (high < 1)
    return g_strdup (_("Less than a second left"));
  if (low < 1)
    {
      high_text = cs_format_duration (high, CS_DURATION_ESTIMATE, TRUE);
      /* Translators: time left when it may end any moment, like "Up to 5 seconds left" */
      return g_strdup_printf (_("Up to %s left"), high_text);
    }

  low_text = cs_format_duration (low, CS_DURATION_ESTIMATE, TRUE);
  if (isinf (high))
    /* Translators: time left when only a lower bound can be told (large files
     * done, many small ones left), like "At least 2 minutes left" */
    return g_strdup_printf (_("At least %s left"), low_text);

  high_text = cs_format_duration (high, CS_DURATION_ESTIMATE, TRUE);
  if (g_strcmp0 (low_text, high_text) == 0)
    /* Translators: time left, like "About 3 minutes left" */
    return g_strdup_printf (_("About %s left"), low_text);
  /* Translators: a range of time left, like "2 minutes to 3 min 20 s left" */
  return g_strdup_printf (_("%s to %s left"), low_text, high_text);
}

gboolean
cs_progress_reads_as_checking (guint64  checked,
                               guint64  skipped,
                               gboolean was)
{
  /* By counts of files, not bytes: what the user waits for on a rerun is a
   * decision per file, and a few changed big files do not make the tens of
   * thousands unchanged ones read as copying. */
  if (checked == 0)
    return FALSE;
  skipped = MIN (skipped, checked);
  return was ? skipped * 3 > checked : skipped * 2 > checked;
}

/* Files checked per second, measured over a second or more of the run's
 * clock, so one update's few files do not jump the figure. */
static void
update_check_rate (CsProgressView   *self,
                   const CsProgress *progress)
{
  double dt = progress->elapsed - self->check_t;

  if (progress->files_checked < self->check_n || dt < 0)
    {
      self->check_t = progress->elapsed;
      self->check_n = progress->files_checked;
      return;
    }
  if (dt < 1.0)
    return;
  self->check_rate = (double) (progress->files_checked - self->check_n) / dt;
  self->check_t = progress->elapsed;
  self->check_n = progress->files_checked;
}

/* main thread */
void
cs_progress_view_update (CsProgressView   *self,
                         const CsProgress *progress)
{
  g_autofree char *files_done = NULL;
  g_autofree char *files_total = NULL;
  g_autofree char *bytes_done = NULL;
  g_autofree char *bytes_total = NULL;
  g_autofree char *headline = NULL;
  g_autofree char *bytes = NULL;
  g_autofree char *speed = NULL;
  double fraction = 0;

  g_return_if_fail (CS_IS_PROGRESS_VIEW (self));
  g_return_if_fail (progress != NULL);

  cs_eta_push (self->eta, progress);
  update_check_rate (self, progress);
  self->checking = cs_progress_reads_as_checking (progress->files_checked, progress->files_skipped,
                                                  self->checking);

  files_done = _cs_format_count (progress->files_done);
  files_total = _cs_format_count (progress->files_total);
  bytes_done = _cs_format_bytes (progress->bytes_done);
  bytes_total = _cs_format_bytes (progress->bytes_total);

  if (progress->state == CS_JOB_STATE_PAUSED)
    /* Translators: like "Paused at 1,234 of 5,678 files" */
    headline = g_strdup_printf (ngettext ("Paused at %s of %s file", "Paused at %s of %s files",
                                          (gulong) progress->files_total),
                                files_done, files_total);
  else if (self->checking && progress->state == CS_JOB_STATE_RUNNING && !progress->flushing)
    {
      g_autofree char *checked = _cs_format_count (progress->files_checked);
      g_autofree char *to_copy = _cs_format_count (progress->files_to_copy);

      if (!progress->total_known)
        /* Translators: a rerun deciding which files changed while the
         * sources are still scanned, like "Checking 48,000 of 60,000 files
         * found so far — 312 to copy so far" */
        headline = g_strdup_printf (ngettext ("Checking %s of %s file found so far — %s to copy so far",
                                              "Checking %s of %s files found so far — %s to copy so far",
                                              (gulong) progress->files_total),
                                    checked, files_total, to_copy);
      else
        /* Translators: a rerun deciding which files changed, like
         * "Checking 48,000 of 100,000 files — 312 to copy so far" */
        headline = g_strdup_printf (ngettext ("Checking %s of %s file — %s to copy so far",
                                              "Checking %s of %s files — %s to copy so far",
                                              (gulong) progress->files_total),
                                    checked, files_total, to_copy);
    }
  else if (!progress->total_known)
    /* Translators: the total is still growing while the sources are scanned,
     * like "1,234 files done · 5,678 found so far" */
    headline = g_strdup_printf (ngettext ("%s file done · %s found so far",
                                          "%s files done · %s found so far",
                                          (gulong) progress->files_done),
                                files_done, files_total);
  else
    headline = g_strdup_printf (ngettext ("%s of %s file", "%s of %s files",
                                          (gulong) progress->files_total),
                                files_done, files_total);
  gtk_label_set_label (self->headline_label, headline);

  if (!progress->total_known)
    /* Translators: bytes done and found while the sources are still scanned,
     * like "1.2 GB done · 3.4 GB found so far" */
    bytes = g_strdup_printf (_("%s done · %s found so far"), bytes_done, bytes_total);
  else
    /* Translators: bytes copied of the total, like "1.2 GB of 3.4 GB" */
    bytes = g_strdup_printf (_("%s of %s"), bytes_done, bytes_total);
  gtk_label_set_label (self->bytes_label, bytes);

  gtk_widget_set_visible (GTK_WIDGET (self->scanning_label), !progress->total_known);

  speed = cs_figure_format_localized (CS_FIGURE_SPEED, cs_eta_get_speed (self->eta) / 1e6);
  if (self->checking && self->check_rate >= 0)
    {
      g_autofree char *checks = _cs_format_count ((guint64) round (self->check_rate));
      g_autofree char *both = NULL;

      /* Translators: a rerun's rates, files checked per second and the copy
       * speed, like "12,345 files checked/s · 0.4 MB/s" */
      both = g_strdup_printf (_("%s files checked/s · %s"), checks, speed);
      gtk_label_set_label (self->rate_label, both);
    }
  else
    gtk_label_set_label (self->rate_label, speed);

  /* A share of a total still growing would pretend: the bar only moves. */
  if (!progress->total_known)
    {
      if (progress->state == CS_JOB_STATE_RUNNING)
        gtk_progress_bar_pulse (self->progress_bar);
    }
  else
    {
      if (progress->bytes_total > 0)
        fraction = (double) progress->bytes_done / (double) progress->bytes_total;
      else if (progress->files_total > 0)
        fraction = (double) progress->files_done / (double) progress->files_total;
      gtk_progress_bar_set_fraction (self->progress_bar, CLAMP (fraction, 0, 1));
    }

  /* While scanning, "Still counting files…" beside the bytes says why there is none. */
  if (progress->state != CS_JOB_STATE_RUNNING || !progress->total_known)
    gtk_label_set_label (self->eta_label, "");
  else if (progress->flushing)
    /* Translators: everything is copied and the copy waits for the disk to
     * hold it, which can take seconds (the time left is not known) */
    gtk_label_set_label (self->eta_label, _("Writing to the disk…"));
  else
    {
      g_autofree char *left = format_time_left (self->eta);

      gtk_label_set_label (self->eta_label, left);
    }
}

/* Bytes copied per second over the last few seconds. */
double
cs_progress_view_get_rate (CsProgressView *self)
{
  g_return_val_if_fail (CS_IS_PROGRESS_VIEW (self), 0);

  return cs_eta_get_speed (self->eta);
}

/* Whether the copy reads as a rerun checking what is there (see above). */
gboolean
cs_progress_view_get_checking (CsProgressView *self)
{
  g_return_val_if_fail (CS_IS_PROGRESS_VIEW (self), FALSE);

  return self->checking;
}
