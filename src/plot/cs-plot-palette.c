/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-plot"

#include "config.h"

#include "cs-plot.h"

/* The colour sets the charts draw with: light, dark and high contrast. */

static CsPlotColor
color_from_hex (guint32 hex)
{
  return (CsPlotColor) {
    .r = ((hex >> 16) & 0xff) / 255.0,
    .g = ((hex >> 8) & 0xff) / 255.0,
    .b = (hex & 0xff) / 255.0,
    .a = 1.0,
  };
}

static void
palette_fill (CsPlotPalette *palette,
              guint32        background,
              guint32        foreground,
              guint32        grid,
              guint32        marker,
              const guint32  series[CS_PLOT_N_SERIES_COLORS])
{
  palette->background = color_from_hex (background);
  palette->foreground = color_from_hex (foreground);
  palette->grid = color_from_hex (grid);
  palette->marker = color_from_hex (marker);
  for (guint i = 0; i < CS_PLOT_N_SERIES_COLORS; i++)
    palette->series[i] = color_from_hex (series[i]);
  palette->font_family = NULL;
  palette->font_size = 0.0;
}

/*
 * Series colours follow Okabe and Ito's palette, which stays distinguishable
 * with the common forms of colour blindness; the first pair (read and write)
 * is blue against vermilion or orange. Each theme shifts the hues so that all
 * of them keep a contrast of at least 3:1 against its background, the WCAG
 * minimum for graphics.
 */
void
cs_plot_palette_init_light (CsPlotPalette *palette)
{
  static const guint32 series[CS_PLOT_N_SERIES_COLORS] = {
    0x0072b2, 0xd55e00, 0x009e73, 0xb8608f,
    0xb36b00, 0x3d88c0, 0x8f7d00, 0x5e5c64,
  };

  g_return_if_fail (palette != NULL);

  palette_fill (palette, 0xffffff, 0x2e3436, 0xe6e5e2, 0x77767b, series);
}

void
cs_plot_palette_init_dark (CsPlotPalette *palette)
{
  static const guint32 series[CS_PLOT_N_SERIES_COLORS] = {
    0x56b4e9, 0xe69f00, 0x2fc59a, 0xe495c2,
    0xf0e442, 0x8fa8ff, 0xff8c5a, 0xc0bfbc,
  };

  g_return_if_fail (palette != NULL);

  palette_fill (palette, 0x242424, 0xeeeeec, 0x3a3a3a, 0x9a9996, series);
}

void
cs_plot_palette_init_high_contrast (CsPlotPalette *palette)
{
  static const guint32 series[CS_PLOT_N_SERIES_COLORS] = {
    0x004f8c, 0xa33b00, 0x00664a, 0x8b2f6e,
    0x7a5100, 0x1c5fa0, 0x000000, 0x4a4a4a,
  };

  g_return_if_fail (palette != NULL);

  palette_fill (palette, 0xffffff, 0x000000, 0x9a9996, 0x000000, series);
}
