/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <linux/fs.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <adwaita.h>

#ifdef HAVE_LIBURING
#include <liburing.h>
#endif

#include "cs-about.h"

/*
 * The about window. Its debug information says what a bug report needs to
 * know about the machine: library versions at run time, the kernel, and which
 * of the copy engine's fast paths this kernel and the user's cache folder offer.
 */

/* Two temporary files in the user's cache folder, the first with a little data;
 * the fast paths are tried between them. */
static gboolean
open_probe_files (int *src_fd,
                  int *dst_fd)
{
  g_autofree char *dir = g_build_filename (g_get_user_cache_dir (), "copyscope", NULL);
  g_autofree char *src_path = NULL;
  g_autofree char *dst_path = NULL;
  char block[4096];

  *src_fd = *dst_fd = -1;
  if (g_mkdir_with_parents (dir, 0700) != 0)
    return FALSE;

  src_path = g_build_filename (dir, "probe-XXXXXX", NULL);
  dst_path = g_build_filename (dir, "probe-XXXXXX", NULL);
  *src_fd = g_mkstemp_full (src_path, O_RDWR | O_CLOEXEC, 0600);
  *dst_fd = g_mkstemp_full (dst_path, O_RDWR | O_CLOEXEC, 0600);

  /* Unlinked at once: nothing is left behind whatever happens next. */
  if (*src_fd >= 0)
    g_unlink (src_path);
  if (*dst_fd >= 0)
    g_unlink (dst_path);

  memset (block, 'c', sizeof block);
  if (*src_fd < 0 || *dst_fd < 0 || write (*src_fd, block, sizeof block) != sizeof block)
    {
      if (*src_fd >= 0)
        close (*src_fd);
      if (*dst_fd >= 0)
        close (*dst_fd);
      *src_fd = *dst_fd = -1;
      return FALSE;
    }

  return TRUE;
}

static const char *
probe_reflink (void)
{
  int src_fd, dst_fd;
  const char *answer;

  if (!open_probe_files (&src_fd, &dst_fd))
    return "unknown (no cache folder)";

  if (ioctl (dst_fd, FICLONE, src_fd) == 0)
    answer = "yes";
  else if (errno == EOPNOTSUPP || errno == EXDEV || errno == EINVAL || errno == ENOTTY)
    answer = "no (not on this file system)";
  else
    answer = "no";

  close (src_fd);
  close (dst_fd);

  return answer;
}

static const char *
probe_copy_file_range (void)
{
  int src_fd, dst_fd;
  loff_t off_in = 0, off_out = 0;
  const char *answer;

  if (!open_probe_files (&src_fd, &dst_fd))
    return "unknown (no cache folder)";

  if (copy_file_range (src_fd, &off_in, dst_fd, &off_out, 4096, 0) > 0)
    answer = "yes";
  else if (errno == ENOSYS)
    answer = "no (not in this kernel)";
  else
    answer = "no";

  close (src_fd);
  close (dst_fd);

  return answer;
}

static const char *
probe_io_uring (void)
{
#ifdef HAVE_LIBURING
  struct io_uring ring;
  int ret = io_uring_queue_init (2, &ring, 0);

  if (ret < 0)
    return ret == -ENOSYS ? "no (not in this kernel)" : "no (not allowed)";

  io_uring_queue_exit (&ring);
  return "yes";
#else
  return "no (built without liburing)";
#endif
}

/* Plain English on purpose: it is pasted into bug reports. */
char *
cs_about_dup_debug_info (void)
{
  GString *info = g_string_new (NULL);
  struct utsname name;

  g_string_append_printf (info, "Copyscope %s (%s)\n", PACKAGE_VERSION, APP_ID);
  g_string_append_printf (info, "Profile: %s\n\n", PROFILE);

  g_string_append (info, "Libraries at run time:\n");
  g_string_append_printf (info, "- GTK %u.%u.%u\n", gtk_get_major_version (),
                          gtk_get_minor_version (), gtk_get_micro_version ());
  g_string_append_printf (info, "- GLib %u.%u.%u\n", glib_major_version,
                          glib_minor_version, glib_micro_version);
  g_string_append_printf (info, "- libadwaita %u.%u.%u\n\n", adw_get_major_version (),
                          adw_get_minor_version (), adw_get_micro_version ());

  if (uname (&name) == 0)
    g_string_append_printf (info, "Kernel: %s %s %s\n\n", name.sysname, name.release,
                            name.machine);

  g_string_append (info, "Copy paths (tried in the user cache folder):\n");
  g_string_append_printf (info, "- reflink (FICLONE): %s\n", probe_reflink ());
  g_string_append_printf (info, "- copy_file_range: %s\n", probe_copy_file_range ());
  g_string_append_printf (info, "- io_uring: %s\n", probe_io_uring ());

  g_string_append_printf (info, "\nLanguage: %s\n", g_get_language_names ()[0]);

  return g_string_free (info, FALSE);
}

void
cs_about_show (GtkWindow *parent)
{
  static const char *developers[] = { "The Copyscope developers", NULL };
  g_autofree char *debug_info = cs_about_dup_debug_info ();
  AdwAboutWindow *about;

  about = ADW_ABOUT_WINDOW (adw_about_window_new ());
  g_object_set (about,
                "transient-for", parent,
                "application-name", _("Copyscope"),
                "application-icon", APP_ID,
                "version", PACKAGE_VERSION,
                "developer-name", _("The Copyscope developers"),
                "comments", _("Copy files and watch how fast it goes"),
                "website", "https://github.com/copyscope/copyscope",
                "issue-url", "https://github.com/copyscope/copyscope/issues",
                "developers", developers,
                "copyright", "© 2024 The Copyscope developers",
                "license-type", GTK_LICENSE_GPL_3_0,
                /* Translators: put your names here, one per line, like
                 * "Jan Jansen <jan@example.org>" */
                "translator-credits", _("translator-credits"),
                "debug-info", debug_info,
                "debug-info-filename", "copyscope-debug.txt",
                NULL);

  adw_about_window_add_acknowledgement_section (about, _("Built on"),
                                                (const char *[]) {
                                                  "GTK https://gtk.org",
                                                  "libadwaita https://gnome.pages.gitlab.gnome.org/libadwaita/",
                                                  "xxHash https://xxhash.com",
                                                  "liburing https://github.com/axboe/liburing",
                                                  NULL
                                                });

  gtk_window_present (GTK_WINDOW (about));
}
