/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "cs-smb.h"

G_BEGIN_DECLS

#define CS_TYPE_LOGIN_DIALOG (cs_login_dialog_get_type ())
G_DECLARE_FINAL_TYPE (CsLoginDialog, cs_login_dialog, CS, LOGIN_DIALOG, AdwMessageDialog)

CsLoginDialog *cs_login_dialog_new          (GtkWindow           *parent,
                                             const CsSmbLocation *location,
                                             const char          *user,
                                             const char          *domain,
                                             const char          *refusal);
const char    *cs_login_dialog_get_user     (CsLoginDialog       *self);
const char    *cs_login_dialog_get_domain   (CsLoginDialog       *self);
const char    *cs_login_dialog_get_password (CsLoginDialog       *self);
gboolean       cs_login_dialog_get_remember (CsLoginDialog       *self);
void           cs_login_dialog_set_remember (CsLoginDialog       *self,
                                             gboolean             remember);

G_END_DECLS
