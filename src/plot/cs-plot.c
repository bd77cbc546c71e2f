/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-plot"

#include "config.h"

#include <math.h>

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <glib/gi18n-lib.h>

#include "cs-plot.h"

gboolean
cs_plot_format_from_string (const char   *str,
                            CsPlotFormat *out_format)
{
  static const struct {
    const char   *name;
    CsPlotFormat  format;
  } formats[] = {
    { "png", CS_PLOT_FORMAT_PNG },
    { "svg", CS_PLOT_FORMAT_SVG },
    { "pdf", CS_PLOT_FORMAT_PDF },
  };

  g_return_val_if_fail (str != NULL, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      if (g_ascii_strcasecmp (str, formats[i].name) == 0)
        {
          if (out_format != NULL)
            *out_format = formats[i].format;
          return TRUE;
        }
    }

  return FALSE;
}

static cairo_status_t
append_to_byte_array (void                *closure,
                      const unsigned char *data,
                      unsigned int         length)
{
  g_byte_array_append (closure, data, length);

  return CAIRO_STATUS_SUCCESS;
}

/* Image surfaces are limited to 32767 pixels a side. */
#define MAX_RENDER_SIZE 32767.0

GBytes *
cs_plot_render (CsPlotFormat     format,
                double           width,
                double           height,
                CsPlotDrawFunc   draw,
                gpointer         user_data,
                GError         **error)
{
  g_autoptr(GByteArray) buffer = NULL;
  cairo_surface_t *surface = NULL;
  cairo_status_t status;
  cairo_t *cr;

  g_return_val_if_fail (draw != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!(width >= 1.0 && width <= MAX_RENDER_SIZE && height >= 1.0 && height <= MAX_RENDER_SIZE))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("Cannot draw a chart of %g × %g"), width, height);
      return NULL;
    }

  buffer = g_byte_array_new ();

  switch (format)
    {
    case CS_PLOT_FORMAT_PNG:
      surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32,
                                            (int) ceil (width), (int) ceil (height));
      break;

    case CS_PLOT_FORMAT_SVG:
      surface = cairo_svg_surface_create_for_stream (append_to_byte_array, buffer,
                                                     width, height);
      break;

    case CS_PLOT_FORMAT_PDF:
      surface = cairo_pdf_surface_create_for_stream (append_to_byte_array, buffer,
                                                     width, height);
      cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_CREATOR, "Copyscope");
      break;

    default:
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("Unknown chart file format"));
      return NULL;
    }

  cr = cairo_create (surface);
  draw (cr, width, height, user_data);
  status = cairo_status (cr);
  cairo_destroy (cr);

  if (status == CAIRO_STATUS_SUCCESS && format == CS_PLOT_FORMAT_PNG)
    status = cairo_surface_write_to_png_stream (surface, append_to_byte_array, buffer);

  /* Vector surfaces write their last bytes when finished. */
  cairo_surface_finish (surface);
  if (status == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);

  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   _("Could not draw the chart: %s"), cairo_status_to_string (status));
      return NULL;
    }

  return g_byte_array_free_to_bytes (g_steal_pointer (&buffer));
}
