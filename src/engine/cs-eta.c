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

struct _CsEta {
  Point      points[HISTORY];
  guint      head;      /* where the next point goes */
  guint      len;
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
  memset (&eta->last, 0, sizeof eta->last);
  eta->last.scanning = TRUE;
  eta->last.total_known = FALSE;
  add_point (eta, &origin);
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

/* Time for @left units at the rate @done took @span: +inf when none moved. */
static double
time_for (guint64 left,
          guint64 done,
          double  span)
{
  return done > 0 ? (double) left * span / (double) done : INFINITY;
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

  /* A kind of work that is all done says nothing about the rest: the last
   * file's bytes when every file but one is done, empty files when every byte is. */
  if (bytes_left > 0)
    {
      double t = time_for (bytes_left, now->bytes_done - then->bytes_done, span);

      if (isfinite (t))
        {
          low = MIN (low, t);
          high = MAX (high, t);
        }
    }
  if (files_left > 0)
    {
      double t = time_for (files_left, now->files_done - then->files_done, span);

      if (isfinite (t))
        {
          low = MIN (low, t);
          high = MAX (high, t);
        }
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
