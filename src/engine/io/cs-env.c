/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-env"

#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cs-env-private.h"

void
_cs_env_init_environment (CsRunEnvironment *env)
{
  struct utsname u;

  g_assert (env != NULL);

  if (uname (&u) == 0)
    env->kernel = g_strdup_printf ("%s %s %s", u.sysname, u.release, u.machine);
  else
    env->kernel = g_strdup ("unknown");
  env->hostname = g_strdup (g_get_host_name ());
  env->cpus = g_get_num_processors ();
  env->tool_version = g_strdup ("copyscope " PACKAGE_VERSION);
}

/* mountinfo escapes spaces and the like as \ooo. */
static char *
unescape_mount_field (const char *field)
{
  GString *out = g_string_new (NULL);

  for (const char *p = field; *p != '\0'; p++)
    {
      if (p[0] == '\\' && g_ascii_isdigit (p[1]) && g_ascii_isdigit (p[2]) && g_ascii_isdigit (p[3]))
        {
          g_string_append_c (out, (char) ((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0')));
          p += 3;
        }
      else
        g_string_append_c (out, *p);
    }

  return g_string_free (out, FALSE);
}

/* The mount of device @dev; among several, the longest that is a prefix of
 * @path (when given). */
static char *
find_mount_of (dev_t       dev,
               const char *path,
               gboolean    with_source)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  char *best = NULL;
  gsize best_len = 0;

  if (!g_file_get_contents ("/proc/self/mountinfo", &contents, NULL, NULL))
    return g_strdup ("unknown");

  /* Match by device number; among bind mounts of one device, any type is the same. */
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = g_strsplit (lines[i], " ", -1);
      guint n = g_strv_length (fields);
      unsigned int maj, min;
      guint dash;

      if (n < 7 || sscanf (fields[2], "%u:%u", &maj, &min) != 2)
        continue;
      if (makedev (maj, min) != dev)
        continue;
      for (dash = 6; dash < n && strcmp (fields[dash], "-") != 0; dash++)
        ;
      if (dash + 1 >= n)
        continue;

      {
        g_autofree char *mount_point = unescape_mount_field (fields[4]);
        gsize len = strlen (mount_point);

        if (best == NULL || (path != NULL && g_str_has_prefix (path, mount_point) && len > best_len))
          {
            g_free (best);
            if (with_source && dash + 2 < n)
              best = g_strdup_printf ("%s %s", fields[dash + 1], fields[dash + 2]);
            else
              best = g_strdup (fields[dash + 1]);
            best_len = len;
          }
      }
    }

  return best != NULL ? best : g_strdup ("unknown");
}

static char *
find_mount (const char *path,
            gboolean    with_source)
{
  struct stat st;

  g_return_val_if_fail (path != NULL, NULL);

  if (stat (path, &st) != 0)
    return g_strdup ("unknown");
  return find_mount_of (st.st_dev, path, with_source);
}

char *
_cs_env_filesystem_type_of_dev (dev_t dev)
{
  return find_mount_of (dev, NULL, FALSE);
}

char *
_cs_env_filesystem_type (const char *path)
{
  return find_mount (path, FALSE);
}

char *
_cs_env_filesystem_id (const char *path)
{
  return find_mount (path, TRUE);
}

gboolean
_cs_env_read_cpu_times (guint64 *out_total,
                        guint64 *out_idle,
                        guint64 *out_system)
{
  char buf[512];
  guint64 v[10] = { 0 };
  ssize_t n;
  int fd;

  fd = open ("/proc/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return FALSE;
  n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n <= 0)
    return FALSE;
  buf[n] = '\0';

  if (sscanf (buf, "cpu %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
              " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
              " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT,
              &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) < 4)
    return FALSE;

  *out_total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
  *out_idle = v[3] + v[4];                   /* idle + iowait */
  *out_system = v[2] + v[5] + v[6];          /* system + irq + softirq */
  return TRUE;
}

guint64
_cs_env_process_cpu_usec (void)
{
  struct rusage ru;

  if (getrusage (RUSAGE_SELF, &ru) != 0)
    return 0;

  return (guint64) (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * G_USEC_PER_SEC
         + (guint64) (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

guint64
_cs_env_process_rss (void)
{
  char buf[128];
  unsigned long size_pages = 0, rss_pages = 0;
  ssize_t n;
  int fd;

  fd = open ("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n <= 0)
    return 0;
  buf[n] = '\0';
  if (sscanf (buf, "%lu %lu", &size_pages, &rss_pages) != 2)
    return 0;

  return (guint64) rss_pages * (guint64) sysconf (_SC_PAGESIZE);
}

char *
_cs_env_filesystem_probe (const char *destination)
{
  return g_file_test (destination, G_FILE_TEST_EXISTS) ? g_strdup (destination) : g_path_get_dirname (destination);
}
