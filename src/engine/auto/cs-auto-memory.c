/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-auto"

#include "config.h"

#include "cs-auto-memory-private.h"
#include "cs-env-private.h"
#include "cs-io-private.h"
#include "cs-limits.h"

static const char *const size_class_keys[CS_N_SIZE_CLASSES] = {
  "threads-tiny-files", "threads-medium-files", "threads-large-files",
};

/* Where nothing is remembered: the best counts of the local benchmark
 * (bench/run, scale 0.2, cold, nothing deleted just before): tiny files 8–16
 * (many: 1.01 s at 16, 1.15 s at 8, 1.28 s at 4; small: 0.27 s at 8, 0.30 s
 * at 16), text-sized ones 16, large ones 8 (images: 0.14 s at 8, 0.17 s at
 * 4; one big file: 1 to 16 within 5 %). */
static const guint size_class_start[CS_N_SIZE_CLASSES] = { 16, 16, 8 };

static const char *const size_class_names[CS_N_SIZE_CLASSES] = { "tiny", "medium-sized", "large" };

CsSizeClass
_cs_size_class_for_mean (double mean_file_size)
{
  return mean_file_size < 64e3 ? CS_SIZE_TINY : mean_file_size < 4e6 ? CS_SIZE_MEDIUM : CS_SIZE_LARGE;
}

guint
_cs_size_class_start (CsSizeClass klass)
{
  g_assert (klass < CS_N_SIZE_CLASSES);
  return size_class_start[klass];
}

const char *
_cs_size_class_name (CsSizeClass klass)
{
  g_assert (klass < CS_N_SIZE_CLASSES);
  return size_class_names[klass];
}

static char *
memory_path (void)
{
  return g_build_filename (g_get_user_config_dir (), "copyscope", "auto-threads.ini", NULL);
}

static char *
memory_group (const char *fs_id)
{
  char *group = g_strdup_printf ("filesystem %s", fs_id);

  g_strdelimit (group, "[]\n\r", '_');
  return group;
}

/* @key from the group of @destination's filesystem; 0 when there is none. */
static guint
remembered_value (const char *destination,
                  const char *key,
                  char      **out_filesystem)
{
  g_autoptr(GKeyFile) file = g_key_file_new ();
  g_autofree char *path = memory_path ();
  g_autofree char *probe = NULL;
  g_autofree char *fs_id = NULL;
  g_autofree char *group = NULL;
  gint64 threads;

  if (out_filesystem != NULL)
    *out_filesystem = NULL;
  probe = _cs_env_filesystem_probe (destination);
  fs_id = _cs_env_filesystem_id (probe);
  group = memory_group (fs_id);
  if (!g_key_file_load_from_file (file, path, G_KEY_FILE_NONE, NULL))
    return 0;
  threads = g_key_file_get_int64 (file, group, key, NULL);
  if (threads < CS_JOB_MIN_THREADS || threads > CS_JOB_MAX_THREADS)
    return 0;
  if (out_filesystem != NULL)
    *out_filesystem = _cs_io_filesystem_type (probe);
  return (guint) threads;
}

guint
_cs_auto_memory_recall (const char  *destination,
                        char       **out_filesystem)
{
  return remembered_value (destination, "threads", out_filesystem);
}

guint
_cs_auto_memory_recall_for (const char  *destination,
                            CsSizeClass  klass)
{
  g_assert (klass < CS_N_SIZE_CLASSES);
  return remembered_value (destination, size_class_keys[klass], NULL);
}

void
_cs_auto_memory_store (const char *destination,
                       int         klass,
                       guint       threads)
{
  g_autoptr(GKeyFile) file = g_key_file_new ();
  g_autofree char *path = memory_path ();
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *fs_id = NULL;
  g_autofree char *group = NULL;
  g_autofree char *data = NULL;
  gsize len;

  fs_id = _cs_env_filesystem_id (destination);
  group = memory_group (fs_id);
  g_key_file_load_from_file (file, path, G_KEY_FILE_KEEP_COMMENTS, NULL);
  g_key_file_set_int64 (file, group, "threads", threads);
  if (klass >= 0 && klass < CS_N_SIZE_CLASSES)
    g_key_file_set_int64 (file, group, size_class_keys[klass], threads);
  g_key_file_set_int64 (file, group, "updated", g_get_real_time () / G_USEC_PER_SEC);
  data = g_key_file_to_data (file, &len, NULL);
  g_mkdir_with_parents (dir, 0700);
  g_file_set_contents_full (path, data, (gssize) len, G_FILE_SET_CONTENTS_CONSISTENT, 0600, NULL);
}
