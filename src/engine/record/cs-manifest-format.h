/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * Checksum manifests: one line per regular file of a copy's destination,
 * in the format of the standard tool of its algorithm, so that tool checks
 * it without Copyscope:
 *
 *   xxh128:  "<32 hex>  <path>\n"   xxhsum -H2's output, xxhsum -c reads it
 *   sha256:  "<64 hex>  <path>\n"   sha256sum's output, sha256sum -c reads it
 *
 * Paths are relative to the destination root. A name holding a backslash,
 * a newline or a carriage return is written as GNU coreutils writes it: the
 * line starts with a backslash and the name has "\\", "\n" and "\r" for
 * those bytes. Every other byte is written as it is, invalid UTF-8 included,
 * as both tools do. (xxhsum 0.8.1, in Debian 12, writes no escapes and
 * cannot read such a line back; sha256sum and cs_manifest_check can.)
 */

typedef enum {
  CS_MANIFEST_XXH128,
  CS_MANIFEST_SHA256,
} CsManifestAlgo;

#define CS_MANIFEST_MAX_DIGEST 32

/* "xxh128", "sha256" */
const char *cs_manifest_algo_to_string   (CsManifestAlgo  algo);
gboolean    cs_manifest_algo_from_string (const char     *text,
                                          CsManifestAlgo *out_algo);
/* Bytes in a digest: 16 or 32. */
gsize       cs_manifest_digest_size      (CsManifestAlgo  algo);

/* Appends one line (see above) to @out. @path is in the filename encoding. */
void        cs_manifest_append_line      (GString        *out,
                                          CsManifestAlgo  algo,
                                          const guint8   *digest,
                                          const char     *path);
/* One line without its newline: its digest and path. The algorithm is told
 * by the digest's length; FALSE with @error for a line that is not one. */
gboolean    cs_manifest_parse_line       (const char     *line,
                                          gsize           length,
                                          CsManifestAlgo *out_algo,
                                          guint8         *out_digest,
                                          char          **out_path,
                                          GError        **error);

G_END_DECLS
