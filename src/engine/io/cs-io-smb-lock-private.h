/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "cs-io-table-private.h"

G_BEGIN_DECLS

/* A partial's lock where the server offers none: the file @name in @dirfd,
 * made and read through @t's calls (the SMB backend's table). 1 when taken,
 * -1 with errno (EBUSY: held by a live process). */
int       _cs_io_smb_lock          (const CsIoTable *t,
                                    int              fd,
                                    int              dirfd,
                                    const char      *name);
int       _cs_io_smb_unlock        (const CsIoTable *t,
                                    int              fd,
                                    int              dirfd,
                                    const char      *name);

G_END_DECLS
