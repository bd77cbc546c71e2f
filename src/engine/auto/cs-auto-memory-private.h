/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * What Auto remembers between runs: per destination filesystem (named by its
 * mount source, so a share is the same share next time), the thread count it
 * settled on in general (what the window offers) and for each size class.
 * Kept in the user's config folder as a key file.
 */

#include <glib.h>

G_BEGIN_DECLS

/* What limits a copy changes with the size of its files; Auto remembers a
 * count for each class. */
typedef enum {
  CS_SIZE_TINY,       /* mean < 64 kB: requests per file */
  CS_SIZE_MEDIUM,     /* < 4 MB: both */
  CS_SIZE_LARGE,      /* bandwidth */
  CS_N_SIZE_CLASSES
} CsSizeClass;

CsSizeClass  _cs_size_class_for_mean     (double       mean_file_size);
/* The count to start from where nothing is remembered. */
guint        _cs_size_class_start        (CsSizeClass  klass);
/* For messages: "tiny", "medium-sized", "large". */
const char  *_cs_size_class_name         (CsSizeClass  klass);

/* The count Auto settled on for @destination's filesystem, in general; 0 when
 * nothing is remembered. @out_filesystem: its type, when there is one. */
guint        _cs_auto_memory_recall      (const char  *destination,
                                          char       **out_filesystem);
/* The same for files of @klass. */
guint        _cs_auto_memory_recall_for  (const char  *destination,
                                          CsSizeClass  klass);
/* Remembers @threads for @destination's filesystem, in general and, unless
 * @klass is negative (the files were never sized), for that class. */
void         _cs_auto_memory_store       (const char  *destination,
                                          int          klass,
                                          guint        threads);

G_END_DECLS
