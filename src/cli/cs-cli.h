/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Exit codes, documented in --help and the README. */
enum {
  CS_EXIT_OK          = 0,    /* everything copied or skipped as asked */
  CS_EXIT_FAILED      = 1,    /* some items failed */
  CS_EXIT_USAGE       = 2,
  CS_EXIT_FATAL       = 3,    /* nothing could start, or the destination became unusable */
  CS_EXIT_MISMATCH    = 4,    /* verification found a difference */
  CS_EXIT_INTERRUPTED = 130,
};

int   cs_cli_copy        (int argc, char **argv);
int   cs_cli_move        (int argc, char **argv);
int   cs_cli_mirror      (int argc, char **argv);
int   cs_cli_generate    (int argc, char **argv);
int   cs_cli_sweep       (int argc, char **argv);
int   cs_cli_demo        (int argc, char **argv);
int   cs_cli_check       (int argc, char **argv);

/* Shared helpers */
void  cs_cli_usage_error (const char *command, const char *format, ...) G_GNUC_PRINTF (2, 3);
gboolean cs_cli_parse_rate (const char *text, double *out);
gboolean cs_cli_parse_files_rate (const char *text, double *out);
/* What smb:// locations log in with: @auth_file (smbclient -A's format), or
 * else the password in COPYSCOPE_SMB_PASSWORD; FALSE when the file is unusable. */
gboolean cs_cli_load_smb_credentials (const char *auth_file, GError **error);

/* Takes a password out of every smb:// location in @argv, for the login
 * only; says so once on stderr. */
void cs_cli_take_smb_passwords (int argc, char **argv);

G_END_DECLS
