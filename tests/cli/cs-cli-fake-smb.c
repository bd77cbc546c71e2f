/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cs-cli-fake-smb"

#include "config.h"

#include <glib.h>

#include "cs-fake-smb.h"

/*
 * copyscope-cli with the fake SMB server of tests/common/cs-fake-smb.c in
 * its I/O seam, for the tests that run the CLI as a user does against a
 * share: "smb://[user@]nas/share/…" is kept in $CS_FAKE_SMB_FOLDER, which
 * only $CS_FAKE_SMB_USER with $CS_FAKE_SMB_PASSWORD logs in to. Built for
 * the tests only, never installed.
 */

__attribute__ ((constructor)) static void
install_fake_smb (void)
{
  const char *folder = g_getenv ("CS_FAKE_SMB_FOLDER");

  if (folder != NULL)
    cs_fake_smb_install (folder, g_getenv ("CS_FAKE_SMB_USER"), g_getenv ("CS_FAKE_SMB_PASSWORD"));
}
