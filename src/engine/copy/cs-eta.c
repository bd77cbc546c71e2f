/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-eta"

#include "config.h"

#include <math.h>
#include <string.h>

#include "cs-eta.h"

/* Enough for the longest window at the fastest pace snapshots come (the
 * sampler's 100 ms minimum), with room to spare. */
#define HISTORY 256
/* The speed needs this much of the clock, or one request's bytes landing at
 * once would read as a burst no disk gave. */
#define SPEED_MIN_SPAN 0.5

typedef struct {
  double  t;
  guint64 bytes_done;
  guint64 files_done;
  guint64 copied;       /* published or being written */
} Point;

/* Fewer files done than this (or than there are left) tell no price of a file. */
#define FIT_MIN_FILES 100

/* Time for @left units at the rate @done took @span: +inf when none moved. */
static double
time_for (guint64 left,
          guint64 done,
          double  span)
{
  return done > 0 ? (double) left * span / (double) done : INFINITY;
}

/* The sums of a least-squares fit of the clock's steps to the files and the
 * megabytes done in them, dt = per_file * df + per_mb * dmb, and the steps'
 * totals. */
typedef struct {
  double ff, fm, mm;
  double ft, mt;
  double tt;
  double f, m, t;
} Fit;

struct _CsEta {
  Point      points[HISTORY];
  guint      head;      /* where the next point goes */
  guint      len;
  Fit        whole;     /* every step since the start */
  Fit        recent;    /* steps weighed down by their age */
  CsProgress last;
};

CsEta *
cs_eta_new (void)
{
  CsEta *eta = g_new0 (CsEta, 1);

  cs_eta_reset (eta);
  return eta;
}

void
cs_eta_free (CsEta *eta)
{
  g_free (eta);
}

static void
add_point (CsEta       *eta,
           const Point *point)
{
  eta->points[eta->head] = *point;
  eta->head = (eta->head + 1) % HISTORY;
  eta->len = MIN (eta->len + 1, HISTORY);
}

/* 0 = the newest */
static const Point *
point_at (CsEta *eta,
          guint  age)
{
  g_assert (age < eta->len);

  return &eta->points[(eta->head + HISTORY - 1 - age) % HISTORY];
}

/* The oldest point no older than @window before the newest. */
static const Point *
oldest_within (CsEta  *eta,
               double  window)
{
  const Point *now = point_at (eta, 0);
  const Point *oldest = now;

  for (guint age = 1; age < eta->len; age++)
    {
      const Point *p = point_at (eta, age);

      if (now->t - p->t > window)
        break;
      oldest = p;
    }

  return oldest;
}

void
cs_eta_reset (CsEta *eta)
{
  /* A job starts with nothing done at 0 on its clock. */
  static const Point origin = { 0 };

  g_return_if_fail (eta != NULL);

  eta->head = 0;
  eta->len = 0;
  memset (&eta->whole, 0, sizeof eta->whole);
  memset (&eta->recent, 0, sizeof eta->recent);
  memset (&eta->last, 0, sizeof eta->last);
  eta->last.scanning = TRUE;
  eta->last.total_known = FALSE;
  add_point (eta, &origin);
}

static void
fit_add (Fit    *fit,
         double  weight,
         double  df,
         double  dm,
         double  dt)
{
  fit->ff = weight * fit->ff + df * df;
  fit->fm = weight * fit->fm + df * dm;
  fit->mm = weight * fit->mm + dm * dm;
  fit->ft = weight * fit->ft + df * dt;
  fit->mt = weight * fit->mt + dm * dt;
  fit->tt = weight * fit->tt + dt * dt;
  fit->f = weight * fit->f + df;
  fit->m = weight * fit->m + dm;
  fit->t = weight * fit->t + dt;
}

/* The prices of a file and of a megabyte that explain the steps best, neither
 * negative. When files and bytes moved together (files all alike), either
 * price alone explains them; the one that explains them better is kept. */
static gboolean
fit_regress (const Fit *fit,
             double    *out_per_file,
             double    *out_per_mb)
{
  double det = fit->ff * fit->mm - fit->fm * fit->fm;
  double per_file_alone, per_mb_alone;

  if (det > 1e-9 * fit->ff * fit->mm)
    {
      double per_file = (fit->ft * fit->mm - fit->mt * fit->fm) / det;
      double per_mb = (fit->mt * fit->ff - fit->ft * fit->fm) / det;

      if (per_file >= 0 && per_mb >= 0)
        {
          *out_per_file = per_file;
          *out_per_mb = per_mb;
          return TRUE;
        }
    }

  per_file_alone = fit->ff > 0 ? fit->ft / fit->ff : -1;
  per_mb_alone = fit->mm > 0 ? fit->mt / fit->mm : -1;
  /* Of dt = p * dx, the squares left over are tt - p * xt. */
  if (per_file_alone > 0 && (per_mb_alone <= 0 || per_file_alone * fit->ft > per_mb_alone * fit->mt))
    {
      *out_per_file = per_file_alone;
      *out_per_mb = 0;
      return TRUE;
    }
  if (per_mb_alone > 0)
    {
      *out_per_file = 0;
      *out_per_mb = per_mb_alone;
      return TRUE;
    }
  return FALSE;
}

/* The regression's prices, scaled so that the steps they explain add up to
 * the time the steps took. The clock's steps are even and the work done in
 * each is not (a disk or a machine others use, bursts of small files): least
 * squares weighs a step that did much more than one that did little, so its
 * prices come out low by as much as the pace varies, by a fifth to a third on
 * a real tree. The regression still tells what a file costs against a
 * megabyte; the clock says what the two cost together. */
static gboolean
fit_solve (const Fit *fit,
           double    *out_per_file,
           double    *out_per_mb)
{
  double per_file, per_mb, explained;

  if (!fit_regress (fit, &per_file, &per_mb))
    return FALSE;
  explained = per_file * fit->f + per_mb * fit->m;
  if (!(explained > 0))
    return FALSE;

  *out_per_file = per_file * fit->t / explained;
  *out_per_mb = per_mb * fit->t / explained;
  return TRUE;
}

/* The time for @files_left and @bytes_left at the prices of @fit; +inf when it
 * knows no price of what is left. */
static double
fit_time_for (const Fit *fit,
              guint64    files_left,
              guint64    bytes_left)
{
  double per_file, per_mb;

  if (!fit_solve (fit, &per_file, &per_mb))
    return INFINITY;
  if ((files_left > 0 && per_file == 0 && bytes_left == 0) ||
      (bytes_left > 0 && per_mb == 0 && files_left == 0))
    return INFINITY;

  return per_file * (double) files_left + per_mb * (double) bytes_left / 1e6;
}

void
cs_eta_push (CsEta            *eta,
             const CsProgress *progress)
{
  Point point;

  g_return_if_fail (eta != NULL);
  g_return_if_fail (progress != NULL);

  eta->last = *progress;

  /* Paused, asking, or the same snapshot again: the clock did not move. */
  if (!(progress->elapsed > point_at (eta, 0)->t))
    return;

  point.t = progress->elapsed;
  point.bytes_done = progress->bytes_done;
  point.files_done = progress->files_done;
  point.copied = progress->bytes_copied + progress->bytes_copying;

  {
    const Point *before = point_at (eta, 0);
    double dt = point.t - before->t;
    double df = point.files_done > before->files_done ? (double) (point.files_done - before->files_done) : 0;
    double dm = point.bytes_done > before->bytes_done ? (double) (point.bytes_done - before->bytes_done) / 1e6 : 0;

    fit_add (&eta->whole, 1.0, df, dm, dt);
    fit_add (&eta->recent, exp (-dt / CS_ETA_WINDOW), df, dm, dt);
  }
  add_point (eta, &point);
}

double
cs_eta_get_speed (CsEta *eta)
{
  const Point *now, *then;
  double span;

  g_return_val_if_fail (eta != NULL, 0);

  now = point_at (eta, 0);
  then = oldest_within (eta, CS_ETA_SPEED_WINDOW);
  span = now->t - then->t;
  if (span < SPEED_MIN_SPAN || now->copied <= then->copied)
    return 0;

  return (double) (now->copied - then->copied) / span;
}

gboolean
cs_eta_get_left (CsEta  *eta,
                 double *out_low,
                 double *out_high)
{
  const Point *now, *then;
  const CsProgress *p;
  guint64 bytes_left, files_left;
  double span, low = INFINITY, high = -INFINITY;

  g_return_val_if_fail (eta != NULL, FALSE);

  p = &eta->last;
  now = point_at (eta, 0);
  then = oldest_within (eta, CS_ETA_WINDOW);
  span = now->t - then->t;
  if (!p->total_known || span < CS_ETA_MIN_SPAN)
    return FALSE;

  bytes_left = p->bytes_total > now->bytes_done ? p->bytes_total - now->bytes_done : 0;
  files_left = p->files_total > now->files_done ? p->files_total - now->files_done : 0;
  /* Nothing moved lately: no pace to tell the rest by. */
  if (now->bytes_done == then->bytes_done && now->files_done == then->files_done)
    return FALSE;

  /* At the prices of the whole copy, and at those of the last seconds: a
   * tree's folders differ (icons, then archives), so the files of the last
   * seconds are seldom like those left, while the whole copy misses a change
   * of pace (threads, a busier disk) for a while. */
  for (guint i = 0; i < 2; i++)
    {
      double t = fit_time_for (i == 0 ? &eta->whole : &eta->recent, files_left, bytes_left);

      if (isfinite (t))
        {
          low = MIN (low, t);
          high = MAX (high, t);
        }
    }
  /* A few large files done say nothing of what a file costs: were the many
   * small ones left to go at the pace files went lately, the copy would end
   * only then. */
  if (isfinite (low) && now->files_done < MIN (files_left, FIT_MIN_FILES))
    {
      double t = time_for (files_left, now->files_done - then->files_done, span);

      if (isfinite (t))
        high = MAX (high, t);
    }

  if (!isfinite (low))
    return FALSE;
  if (high > CS_ETA_MAX_SPREAD * MAX (low, 1.0))
    high = INFINITY;

  if (out_low != NULL)
    *out_low = low;
  if (out_high != NULL)
    *out_high = high;
  return TRUE;
}
