/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* @location without a password an smb:// URL may carry, which goes to
 * @out_password, unescaped as libsmbclient reads it (NULL when there is
 * none). Anything that is not an smb:// URL comes back as it is. */
char *_cs_smb_url_take        (const char  *location,
                               char       **out_password);

/* @location without a password an smb:// URL may carry, which is dropped:
 * for what was kept before cs_smb_location_take_password () kept nothing
 * else (a record from an older version). */
char *_cs_smb_location_redact (const char  *location);

/* Frees a password, its bytes zeroed first; NULL is fine. */
void  _cs_smb_password_wipe   (char        *secret);

G_END_DECLS
