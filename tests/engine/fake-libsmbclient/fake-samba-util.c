/* SPDX-License-Identifier: GPL-3.0-or-later */

/*
 * A stand-in for libsamba-util.so.0, which the fake libsmbclient.so.0 next
 * to it links, as the real one does: the engine hands it its thread
 * functions (cs-io-smb-conn.c), and without them it lets one call run at
 * a time.
 */

int smb_thread_set_functions (const void *functions);

int
smb_thread_set_functions (const void *functions)
{
  return 0;
}
