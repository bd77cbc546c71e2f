/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-plot"

#include "config.h"

#include <gio/gio.h>
#include <glib/gi18n-lib.h>
#include <gmodule.h>

#include "cs-chart.h"

/*
 * cs_chart_render_throughput() for programs that do not link cairo: the first
 * chart loads the copyscope-charts module and keeps it for the life of the
 * process. Where the module is looked for, in order:
 *  - $COPYSCOPE_CHARTS_MODULE, a file name (other layouts, and the tests);
 *  - beside the running program, which is where the build folder puts it;
 *  - the installed folder (libdir/copyscope).
 */

#define MODULE_FILE "copyscope-charts." G_MODULE_SUFFIX

typedef struct {
  CsChartRenderFunc  render;
  char              *error;     /* why it could not be loaded */
} Loaded;

static char *
program_folder (void)
{
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);

  return exe != NULL ? g_path_get_dirname (exe) : NULL;
}

static GPtrArray *
candidates (void)
{
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  const char *override = g_getenv ("COPYSCOPE_CHARTS_MODULE");
  g_autofree char *folder = NULL;

  if (override != NULL && *override != '\0')
    {
      g_ptr_array_add (paths, g_strdup (override));
      return paths;
    }

  folder = program_folder ();
  if (folder != NULL)
    g_ptr_array_add (paths, g_build_filename (folder, MODULE_FILE, NULL));
  g_ptr_array_add (paths, g_build_filename (CS_CHARTS_MODULE_DIR, MODULE_FILE, NULL));

  return paths;
}

static char *
try_load (const char         *path,
          CsChartRenderFunc  *out_render)
{
  GModule *module;
  gpointer render = NULL;
  gpointer version = NULL;

  module = g_module_open (path, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
  if (module == NULL)
    return g_strdup (g_module_error ());

  if (!g_module_symbol (module, CS_CHART_MODULE_VERSION_SYMBOL, &version) ||
      !g_module_symbol (module, CS_CHART_MODULE_RENDER_SYMBOL, &render))
    {
      g_module_close (module);
      return g_strdup_printf (_("%s is not a Copyscope chart module"), path);
    }

  /* A module left installed by another version may draw from other structs. */
  if (g_strcmp0 (version, PACKAGE_VERSION) != 0)
    {
      char *message = g_strdup_printf (_("%s belongs to Copyscope %s, not %s"),
                                       path, (const char *) version, PACKAGE_VERSION);

      g_module_close (module);
      return message;
    }

  g_module_make_resident (module);
  *out_render = (CsChartRenderFunc) render;
  return NULL;
}

static gpointer
load_module (gpointer data)
{
  Loaded *loaded = g_new0 (Loaded, 1);
  g_autoptr(GPtrArray) paths = candidates ();
  g_autoptr(GString) reasons = g_string_new (NULL);

  for (guint i = 0; i < paths->len && loaded->render == NULL; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      g_autofree char *why = NULL;

      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        {
          why = g_strdup_printf (_("%s does not exist"), path);
        }
      else
        {
          why = try_load (path, &loaded->render);
        }

      if (why != NULL)
        g_string_append_printf (reasons, "%s%s", reasons->len > 0 ? "; " : "", why);
    }

  if (loaded->render == NULL)
    loaded->error = g_string_free (g_steal_pointer (&reasons), FALSE);

  return loaded;
}

GBytes *
cs_chart_render_throughput (CsPlotFormat      format,
                            double            width,
                            double            height,
                            const CsPlotRun  *runs,
                            guint             n_runs,
                            GError          **error)
{
  static GOnce once = G_ONCE_INIT;
  Loaded *loaded = g_once (&once, load_module, NULL);

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (loaded->render == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("Charts are not available: %s"), loaded->error);
      return NULL;
    }

  return loaded->render (format, width, height, runs, n_runs, error);
}
