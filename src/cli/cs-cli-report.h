/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * The report subcommands of copyscope-cli. argv[0] is the subcommand name.
 * Exit codes: 0 success, 2 usage error, 3 a run file could not be read or is
 * invalid, or the output could not be written.
 */
int cs_cli_report  (int    argc,
                    char **argv);
int cs_cli_compare (int    argc,
                    char **argv);
int cs_cli_history (int    argc,
                    char **argv);

G_END_DECLS
