/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "cs-compare.h"
#include "cs-run.h"

G_BEGIN_DECLS

/*
 * Every CSV Copyscope writes is written here: the report's (figures,
 * statistics, samples and failures of one run or a comparison) and the
 * samples alone of copyscope-cli copy --csv. RFC 4180, CRLF line ends,
 * numbers independent of the locale.
 */

/* The samples: a header, then one row per entry of the run's series (a
 * bucket's row holds its means). */
char *cs_report_samples_to_csv (CsRun     *run);

/* cs_report_render ()'s CSV. */
char *_cs_report_csv_render    (CsCompare *compare);

G_END_DECLS
