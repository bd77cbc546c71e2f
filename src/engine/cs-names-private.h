/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * What a run of ours leaves on disk and nobody else does: temporaries and
 * staging folders named ".copyscope-<16 hex>-<digits><suffix>", and claims on
 * final names. A later run removes them after a crash only when the name (and
 * the owner) says they are ours.
 */

#include <glib.h>

G_BEGIN_DECLS

#define CS_TEMP_PREFIX     ".copyscope-"
#define CS_TEMP_SUFFIX     ".part"
#define CS_STAGE_SUFFIX    ".stage"

/* The claim on a final name where a share can neither rename without replacing
 * nor hard-link: this, the job tag and a newline (cs-copy.c, publish_claimed). */
#define CS_PLACEHOLDER_PREFIX "copyscope placeholder "
#define CS_PLACEHOLDER_SIZE   (sizeof CS_PLACEHOLDER_PREFIX - 1 + 16 + 1)

/* ".copyscope-<16 hex>-<digits><suffix>": named by a run of ours */
gboolean  _cs_name_is_ours         (const char   *name,
                                    const char   *suffix);
/* The temporaries of any run of ours. */
gboolean  _cs_name_is_our_temp     (const char   *name);
/* ".copyscope-<16 hex>-<digits>.stage" */
gboolean  _cs_name_is_our_stage    (const char   *name);

G_END_DECLS
