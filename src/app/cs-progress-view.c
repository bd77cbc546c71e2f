/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "cs-format.h"
#include "cs-progress-view.h"

/*
 * Files and bytes done of what has been found so far, the current rate, and a
 * time left shown only once it has settled, as a range rather than a promise.
 *
 * The rate is measured over the last RATE_WINDOW seconds of the job's own clock
 * (which stops while paused or asking). Each update also makes an estimate of
 * the time left; the estimates of the last ETA_WINDOW seconds, each aged by the
 * time since it was made, give the range. It is shown when the scan is over and
 * the range is no wider than the middle estimate.
 */

#define HISTORY_SIZE   64
#define RATE_WINDOW    5.0
#define ETA_WINDOW     10.0
#define ETA_MIN_AGE    5.0

typedef struct
{
  double  elapsed;
  guint64 bytes_done;
  double  eta;          /* < 0 when none could be made */
} Point;

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

  Point           history[HISTORY_SIZE];
  guint           history_head;
  guint           history_len;
  double          rate;
};

G_DEFINE_FINAL_TYPE (CsProgressView, cs_progress_view, GTK_TYPE_WIDGET)

static const Point *
history_get (CsProgressView *self,
             guint           age)   /* 0 = newest */
{
  g_assert (age < self->history_len);

  return &self->history[(self->history_head + HISTORY_SIZE - 1 - age) % HISTORY_SIZE];
}

static void
cs_progress_view_push (CsProgressView   *self,
                       const CsProgress *progress)
{
  Point *point;
  double rate = 0;
  guint64 remaining;

  /* The clock did not move (paused, or a repeated update): nothing to learn. */
  if (self->history_len > 0 && progress->elapsed <= history_get (self, 0)->elapsed)
    return;

  for (guint age = 0; age < self->history_len; age++)
    {
      const Point *old = history_get (self, age);

      if (progress->elapsed - old->elapsed >= RATE_WINDOW || age + 1 == self->history_len)
        {
          double dt = progress->elapsed - old->elapsed;

          if (dt > 0 && progress->bytes_done >= old->bytes_done)
            rate = (double) (progress->bytes_done - old->bytes_done) / dt;
          break;
        }
    }

  self->rate = rate;

  point = &self->history[self->history_head];
  point->elapsed = progress->elapsed;
  point->bytes_done = progress->bytes_done;
  remaining = progress->bytes_found > progress->bytes_done
              ? progress->bytes_found - progress->bytes_done : 0;
  point->eta = rate > 0 ? (double) remaining / rate : -1;

  self->history_head = (self->history_head + 1) % HISTORY_SIZE;
  self->history_len = MIN (self->history_len + 1, HISTORY_SIZE);
}

/* FALSE while the estimate is not worth showing. */
static gboolean
cs_progress_view_get_eta (CsProgressView   *self,
                          const CsProgress *progress,
                          double           *out_low,
                          double           *out_high)
{
  double low = G_MAXDOUBLE, high = 0, now;
  guint n = 0;

  if (progress->scanning || progress->elapsed < ETA_MIN_AGE || self->history_len == 0)
    return FALSE;

  now = history_get (self, 0)->elapsed;

  for (guint age = 0; age < self->history_len; age++)
    {
      const Point *p = history_get (self, age);
      double eta;

      if (now - p->elapsed > ETA_WINDOW)
        break;
      if (p->eta < 0)
        return FALSE;

      eta = MAX (p->eta - (now - p->elapsed), 0);
      low = MIN (low, eta);
      high = MAX (high, eta);
      n++;
    }

  if (n < 3 || high - low > MAX ((low + high) / 2, 5.0))
    return FALSE;

  *out_low = low;
  *out_high = high;

  return TRUE;
}

static void
cs_progress_view_dispose (GObject *object)
{
  GtkWidget *child;

  gtk_widget_dispose_template (GTK_WIDGET (object), CS_TYPE_PROGRESS_VIEW);

  /* Unnamed template children too: the widget is their only parent. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (object))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (cs_progress_view_parent_class)->dispose (object);
}

static void
cs_progress_view_class_init (CsProgressViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cs_progress_view_dispose;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/copyscope/Copyscope/ui/cs-progress-view.ui");
  gtk_widget_class_bind_template_child (widget_class, CsProgressView, headline_label);
  gtk_widget_class_bind_template_child (widget_class, CsProgressView, eta_label);
  gtk_widget_class_bind_template_child (widget_class, CsProgressView, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, CsProgressView, bytes_label);
  gtk_widget_class_bind_template_child (widget_class, CsProgressView, scanning_label);
  gtk_widget_class_bind_template_child (widget_class, CsProgressView, rate_label);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "progressview");
}

static void
cs_progress_view_init (CsProgressView *self)
{
  GtkLayoutManager *layout;

  gtk_widget_init_template (GTK_WIDGET (self));

  layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));
  gtk_orientable_set_orientation (GTK_ORIENTABLE (layout), GTK_ORIENTATION_VERTICAL);
  gtk_box_layout_set_spacing (GTK_BOX_LAYOUT (layout), 10);

  cs_progress_view_reset (self);
}

void
cs_progress_view_reset (CsProgressView *self)
{
  g_return_if_fail (CS_IS_PROGRESS_VIEW (self));

  self->history_head = 0;
  self->history_len = 0;
  self->rate = 0;

  gtk_label_set_label (self->headline_label, _("Starting…"));
  gtk_label_set_label (self->eta_label, "");
  gtk_label_set_label (self->bytes_label, "");
  gtk_label_set_label (self->rate_label, "");
  gtk_progress_bar_set_fraction (self->progress_bar, 0);
  gtk_widget_set_visible (GTK_WIDGET (self->scanning_label), FALSE);
}

/* main thread */
void
cs_progress_view_update (CsProgressView   *self,
                         const CsProgress *progress)
{
  g_autofree char *files_done = NULL;
  g_autofree char *files_found = NULL;
  g_autofree char *bytes_done = NULL;
  g_autofree char *bytes_found = NULL;
  g_autofree char *headline = NULL;
  g_autofree char *bytes = NULL;
  g_autofree char *rate = NULL;
  double fraction = 0, low, high;

  g_return_if_fail (CS_IS_PROGRESS_VIEW (self));
  g_return_if_fail (progress != NULL);

  cs_progress_view_push (self, progress);

  files_done = _cs_format_count (progress->files_done);
  files_found = _cs_format_count (progress->files_found);
  bytes_done = _cs_format_bytes (progress->bytes_done);
  bytes_found = _cs_format_bytes (progress->bytes_found);

  if (progress->state == CS_JOB_STATE_PAUSED)
    /* Translators: like "Paused at 1,234 of 5,678 files" */
    headline = g_strdup_printf (ngettext ("Paused at %s of %s file", "Paused at %s of %s files",
                                          (gulong) progress->files_found),
                                files_done, files_found);
  else if (progress->scanning)
    /* Translators: the total is still growing while the sources are scanned */
    headline = g_strdup_printf (ngettext ("%s of %s file found so far",
                                          "%s of %s files found so far",
                                          (gulong) progress->files_found),
                                files_done, files_found);
  else
    headline = g_strdup_printf (ngettext ("%s of %s file", "%s of %s files",
                                          (gulong) progress->files_found),
                                files_done, files_found);
  gtk_label_set_label (self->headline_label, headline);

  /* Translators: bytes copied of the total, like "1.2 GB of 3.4 GB" */
  bytes = g_strdup_printf (_("%s of %s"), bytes_done, bytes_found);
  gtk_label_set_label (self->bytes_label, bytes);

  gtk_widget_set_visible (GTK_WIDGET (self->scanning_label), progress->scanning);

  rate = _cs_format_rate (self->rate);
  gtk_label_set_label (self->rate_label, rate);

  if (progress->bytes_found > 0)
    fraction = (double) progress->bytes_done / (double) progress->bytes_found;
  else if (progress->files_found > 0)
    fraction = (double) progress->files_done / (double) progress->files_found;
  gtk_progress_bar_set_fraction (self->progress_bar, CLAMP (fraction, 0, 1));

  if (progress->state == CS_JOB_STATE_RUNNING && cs_progress_view_get_eta (self, progress, &low, &high))
    {
      g_autofree char *low_text = _cs_format_duration (low);
      g_autofree char *high_text = _cs_format_duration (high);
      g_autofree char *eta = NULL;

      if (g_strcmp0 (low_text, high_text) == 0)
        /* Translators: time left, like "About 3 minutes left" */
        eta = g_strdup_printf (_("About %s left"), low_text);
      else
        /* Translators: a range of time left, like "2 minutes to 3 min 20 s left" */
        eta = g_strdup_printf (_("%s to %s left"), low_text, high_text);
      gtk_label_set_label (self->eta_label, eta);
    }
  else if (progress->state == CS_JOB_STATE_RUNNING)
    gtk_label_set_label (self->eta_label, _("Estimating time left…"));
  else
    gtk_label_set_label (self->eta_label, "");
}

/* Bytes per second over the last few seconds. */
double
cs_progress_view_get_rate (CsProgressView *self)
{
  g_return_val_if_fail (CS_IS_PROGRESS_VIEW (self), 0);

  return self->rate;
}
