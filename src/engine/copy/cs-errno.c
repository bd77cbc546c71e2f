/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-errno"

#include "config.h"

#include <errno.h>

#include <glib/gi18n-lib.h>

#include "cs-errno-private.h"

gboolean
_cs_is_fatal_errno (int error_code)
{
  switch (error_code)
    {
    case ENOSPC:
    case EDQUOT:
    case EROFS:
    case ENOTCONN:
    case ESTALE:
    case ENODEV:
    case ENXIO:
    case ECONNABORTED:   /* a FUSE share whose daemon died */
    case ECONNREFUSED:   /* an SMB server that died: no new connection */
    case ENETRESET:      /* ... and the one in use dropped */
    case ECONNRESET:
    case EPIPE:
      return TRUE;
    default:
      return FALSE;
    }
}

/* In the language of the run, as g_strerror () is: the run record keeps it. */
const char *
_cs_fatal_message (int error_code)
{
  switch (error_code)
    {
    case ENOSPC:
      return _("The destination is full");
    case EDQUOT:
      return _("The disk quota at the destination is used up");
    case EROFS:
      return _("The destination is read-only");
    default:
      return _("The destination is no longer available");
    }
}

gboolean
_cs_share_refuses (int error_code)
{
  return error_code == EPERM || error_code == EACCES || error_code == EOPNOTSUPP
         || error_code == ENOSYS || error_code == EINVAL;
}
