/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-app"

#include "config.h"

#include <locale.h>
#include <stdlib.h>

#include <glib/gi18n.h>

#include "cs-application.h"

/*
 * Run from the build tree, as the README starts it (./build/src/app/copyscope),
 * the window speaks the user's language and finds its settings from the
 * build's own catalogues and compiled schema; installed, from the system's.
 */
static const char *
locale_dir (void)
{
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *root = realpath (BUILD_ROOT, NULL);
  g_autofree char *prefix = root != NULL ? g_strconcat (root, G_DIR_SEPARATOR_S, NULL) : NULL;

  if (exe == NULL || prefix == NULL || !g_str_has_prefix (exe, prefix))
    return LOCALEDIR;

  g_setenv ("GSETTINGS_SCHEMA_DIR", BUILD_ROOT G_DIR_SEPARATOR_S "data", FALSE);
  return BUILD_ROOT G_DIR_SEPARATOR_S "po";
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(CsApplication) app = NULL;

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, locale_dir ());
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  app = cs_application_new ();

  return g_application_run (G_APPLICATION (app), argc, argv);
}
