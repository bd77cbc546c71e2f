/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "cs-io-table-private.h"

G_BEGIN_DECLS

/* The backend for smb://[user@]host[:port]/share/path locations. */
extern const CsIoTable _cs_io_smb;

G_END_DECLS
