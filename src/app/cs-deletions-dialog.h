/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "cs-deletions.h"

G_BEGIN_DECLS

/*
 * The question a mirror asks once, after copying and before deleting: what
 * it would delete from @destination (counts, bytes and the list), and the
 * maximum it ever deletes. The dialog answers @deletions itself: "delete" or,
 * for any other response and when it goes unanswered, keep. main thread.
 */
AdwMessageDialog *_cs_deletions_dialog_new (GtkWindow   *parent,
                                            CsDeletions *deletions,
                                            const char  *destination);

G_END_DECLS
