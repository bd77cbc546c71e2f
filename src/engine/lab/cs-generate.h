/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The benchmark scenarios (bench/README.md). */
typedef enum {
  CS_SCENARIO_BIG,      /* 1 file of 2 GiB */
  CS_SCENARIO_IMAGES,   /* 270 files of 7–8 MB, in folders of 500 */
  CS_SCENARIO_TEXT,     /* 4,386 files of 400–600 KB */
  CS_SCENARIO_SMALL,    /* 20,000 files of 12 KB */
  CS_SCENARIO_MANY,     /* 100,000 files of 0–2 KB, 3 levels deep */
  CS_N_SCENARIOS
} CsScenario;

const char *cs_scenario_to_string   (CsScenario  scenario);
gboolean    cs_scenario_from_string (const char *str,
                                     CsScenario *out_scenario);
const char *cs_scenario_describe    (CsScenario  scenario);  /* English, N_() */

/* Size of the scenario at a scale, before generating. */
void        cs_scenario_estimate    (CsScenario  scenario,
                                     double      scale,
                                     guint64    *out_files,
                                     guint64    *out_bytes);

/* Called from the generating thread, at most ~10 times a second. */
typedef void (*CsGenerateProgressFunc) (guint64  files_done,
                                        guint64  files_total,
                                        guint64  bytes_done,
                                        guint64  bytes_total,
                                        gpointer user_data);

/*
 * Writes the scenario into @dir (created if needed). The same scenario, scale and
 * seed always give the same names, sizes, bytes and modification times.
 */
gboolean    cs_generate_sync        (CsScenario              scenario,
                                     const char             *dir,
                                     double                  scale,
                                     guint64                 seed,
                                     CsGenerateProgressFunc  progress,
                                     gpointer                user_data,
                                     GCancellable           *cancellable,
                                     GError                **error);

/* The same on a thread of GTask's; @progress is called on that thread and
 * @callback on the caller's thread-default main context. */
void        cs_generate_async       (CsScenario              scenario,
                                     const char             *dir,
                                     double                  scale,
                                     guint64                 seed,
                                     CsGenerateProgressFunc  progress,
                                     gpointer                progress_data,
                                     GCancellable           *cancellable,
                                     GAsyncReadyCallback     callback,
                                     gpointer                user_data);
gboolean    cs_generate_finish      (GAsyncResult           *result,
                                     GError                **error);

/* Single custom set for the demo: @n_files of @file_size bytes each. */
gboolean    cs_generate_files_sync  (const char             *dir,
                                     guint64                 n_files,
                                     guint64                 file_size,
                                     guint64                 seed,
                                     CsGenerateProgressFunc  progress,
                                     gpointer                user_data,
                                     GCancellable           *cancellable,
                                     GError                **error);

G_END_DECLS
