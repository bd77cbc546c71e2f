/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * Helpers for tests that copy real trees. Every walk uses lstat: symlinks are
 * compared as links, never followed. Failures are reported as GTest assertion
 * failures naming the path, so they stop the current test.
 */

/* A fresh empty folder under the temporary directory, mode 0755 so that an
 * unprivileged user can traverse it. Free with g_free after cs_test_tree_remove. */
char       *cs_test_tree_make_tmp          (void);

/* rm -rf, without following symlinks; a missing @path is not an error. */
void        cs_test_tree_remove            (const char *path);

/* Asserts that @a and @b hold the same tree: the same names, and for each entry
 * the same type and permission bits; regular files: size, contents byte for
 * byte and mtime to the nanosecond; symlinks: target and mtime; folders: mtime.
 * Owners are compared when the test runs as root. Folder sizes, link counts,
 * inode numbers and access times are not compared. */
void        cs_test_tree_assert_equal      (const char *a,
                                            const char *b);

/*
 * Asserts what a copy of @source may look like after a fault: every entry of
 * @copy exists in @source with the same type; every regular file and symlink is
 * complete and identical (contents and metadata as in cs_test_tree_assert_equal);
 * folders may lack entries and their metadata is not checked. Names starting with
 * ".copyscope-" are allowed only when @allow_temporaries is set, and then must be
 * regular files matching the temporary pattern exactly.
 */
void        cs_test_tree_assert_partial    (const char *source,
                                            const char *copy,
                                            gboolean    allow_temporaries);

/* TRUE for ".copyscope-<16 hex>-<digits>.part" and for a claim's temporary,
 * ".copyscope-<16 hex>-<digits>.claim-<16 hex>". */
gboolean    cs_test_tree_is_temporary_name (const char *name);

/* The number of entries whose name starts with ".copyscope-" in @dir and below;
 * 0 when @dir does not exist. */
guint       cs_test_tree_find_temporaries  (const char *dir);

/* Regular files and symlinks in @dir and below (symlinks not followed), and the
 * sum of the regular files' sizes. */
guint       cs_test_tree_count_files       (const char *dir);
guint       cs_test_tree_count_symlinks    (const char *dir);
guint64     cs_test_tree_sum_file_sizes    (const char *dir);

/* A description of every entry of @dir (type, mode, owner, size, mtime, SHA-256
 * of the contents, symlink target), keyed by relative path; "." is @dir itself.
 * Use it to prove that a tree was not touched. Free with g_hash_table_unref. */
GHashTable *cs_test_tree_snapshot          (const char *dir);
void        cs_test_tree_assert_snapshot   (const char *dir,
                                            GHashTable *snapshot);

G_END_DECLS
