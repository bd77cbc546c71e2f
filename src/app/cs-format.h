/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "cs-counters.h"
#include "cs-figures.h"

G_BEGIN_DECLS

/* Text for the window's numbers; main thread only where it touches GTK, the rest is pure. */
void  _cs_format_set_binary_units (gboolean binary);
char *_cs_format_bytes        (guint64     bytes);
char *_cs_format_count        (guint64     count);
char *_cs_format_rate         (double      bytes_per_second);
char *_cs_format_time         (gint64      unix_us);
char *_cs_format_value        (double      value);
/* "8 threads", or "1–16 threads, mean 8.4" for a count that changed. */
char *_cs_format_figures_threads (const CsFigures *figures);
char *_cs_format_counter_value (CsCounter  counter,
                                double     value);
const char *_cs_counter_unit  (const CsCounterInfo *info);
char *_cs_display_name        (GFile      *file);
/* A path, or an smb:// location as "server/share/folder". */
char *_cs_display_path        (const char *path);
/* What a file the window was given is to the engine: its path (GVfs's
 * FUSE path for a share it mounted), else an smb:// URL; NULL for
 * anything else, which the engine cannot reach. */
char  *_cs_file_get_location  (GFile      *file);
/* Whether @file is an SMB share's folder the engine reaches by its URL,
 * with no path to ask GIO about. */
gboolean _cs_file_is_smb_url  (GFile      *file);
GFile *_cs_file_new_for_location (const char *location);
/* @file as the window may show and keep it: an smb:// URL with a password
 * typed or dropped into it becomes the URL without it, the password going
 * to the engine's login for that server (cs_smb_location_take_password ());
 * anything else is @file. A new reference. */
GFile *_cs_file_take_password (GFile      *file);
/* "server/share/folder" for an smb:// URL, else the path or the URI. */
char  *_cs_display_file       (GFile      *file);

/* A copy's sources by the first one's name: "Photos", "Photos and 3 more". */
char *_cs_format_sources       (const char * const *sources);

G_END_DECLS
