/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* What smb:// locations log in with, for the whole process: @user where the
 * URL names none (NULL: the login name), @password for every share. Kept in
 * memory only; never logged, never in a run record. */
void cs_smb_set_credentials (const char *user,
                             const char *password);

G_END_DECLS
