/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-names"

#include "config.h"

#include <string.h>

#include "cs-names-private.h"

gboolean
_cs_name_is_ours (const char *name,
                  const char *suffix)
{
  const char *p;
  guint i;

  if (!g_str_has_prefix (name, CS_TEMP_PREFIX))
    return FALSE;
  p = name + strlen (CS_TEMP_PREFIX);
  for (i = 0; i < 16; i++)
    if (!g_ascii_isxdigit (p[i]))
      return FALSE;
  p += 16;
  if (*p++ != '-' || !g_ascii_isdigit (*p))
    return FALSE;
  while (g_ascii_isdigit (*p))
    p++;

  return strcmp (p, suffix) == 0;
}

gboolean
_cs_name_is_our_temp (const char *name)
{
  return _cs_name_is_ours (name, CS_TEMP_SUFFIX);
}

gboolean
_cs_name_is_our_stage (const char *name)
{
  return _cs_name_is_ours (name, CS_STAGE_SUFFIX);
}
