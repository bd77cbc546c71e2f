/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

#include "cs-run.h"

G_BEGIN_DECLS

/* Fills kernel, hostname, CPUs and tool version. */
void     _cs_env_init_environment (CsRunEnvironment *env);

/* The filesystem type of the mount holding @path ("ext4", "tmpfs", "fuse.sshfs" …). */
char    *_cs_env_filesystem_type  (const char       *path);

/* The filesystem type of device @dev, for a folder open as a descriptor. */
char    *_cs_env_filesystem_type_of_dev (dev_t dev);

/* The type and source of that mount ("nfs4 nas:/photos"): names a share across runs. */
char    *_cs_env_filesystem_id    (const char       *path);

/* The destination, or the folder it will be made in: what to ask about its
 * filesystem. */
char    *_cs_env_filesystem_probe (const char       *destination);

/* Whole-machine CPU times from /proc/stat, in clock ticks. */
gboolean _cs_env_read_cpu_times   (guint64          *out_total,
                                   guint64          *out_idle,
                                   guint64          *out_system);

/* This process: user+system CPU time in µs, and resident set size in bytes. */
guint64  _cs_env_process_cpu_usec (void);
guint64  _cs_env_process_rss      (void);

G_END_DECLS
