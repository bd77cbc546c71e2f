/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * JSON files through json-glib: the one reader for run records and sweeps,
 * and the text every document is written as.
 */

typedef struct {
  const char *what;          /* "run", "sweep": named in messages */
  gsize       max_size;      /* bytes */
  guint       max_depth;     /* each object or array is one level */
  guint64     max_values;    /* bounds the tree json-glib builds from a small file */
} CsJsonLimits;

/*
 * The one JSON text in @path, checked before json-glib builds a tree of it.
 * Refuses what is not a regular file (a FIFO or a device named like a record
 * must not hang the caller), what is over a limit, and what is not strict
 * RFC 8259: json-glib 1.6 also takes comments, single quotes, text after the
 * value and integers that do not fit in 64 bits (it wraps them), and recurses
 * once per level of nesting.
 *
 * Errors: G_FILE_ERROR when @path cannot be opened or read;
 * G_IO_ERROR_NOT_REGULAR_FILE; G_IO_ERROR_MESSAGE_TOO_LARGE over the size or
 * the number of values; G_IO_ERROR_INVALID_DATA when it is empty, nested too
 * deep or not JSON. Messages are one short line.
 */
JsonNode *cs_json_load_file (const char          *path,
                             const CsJsonLimits  *limits,
                             GError             **error);

/*
 * Like cs_json_load_file (), with the value of one member of the top-level
 * object left out of the tree (it reads as {}) and handed back as its text,
 * for a reader that needs no tree of it: the samples of a long run, which as
 * a tree would take ten times the file's size. *@out_member is NULL when the
 * member is absent; the text has passed the same checks as the rest.
 */
JsonNode *cs_json_load_file_apart (const char          *path,
                                   const CsJsonLimits  *limits,
                                   const char          *member,
                                   GBytes             **out_member,
                                   GError             **error);

/* json_to_string (), except for json-glib 1.6's doubles: it appends ".0" to
 * every double printed without a dot, which turns 1e-300 into the invalid
 * 1e-300.0. Use it for every document holding doubles. */
char     *cs_json_to_string (JsonNode            *node,
                             gboolean             pretty);

G_END_DECLS
