/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * An SMB server without a server: a backend of the engine's I/O seam for
 * smb:// locations, registered after the real one so that it takes them,
 * which keeps "smb://[user@]CS_FAKE_SMB_SERVER/CS_FAKE_SMB_SHARE/…" in a
 * local folder. Each location a job or a login opens asks the engine's
 * credentials (what libsmbclient's authentication callback asks) and is
 * refused with EACCES unless they give the password and user set here;
 * another share is ENOENT. What the engine does above the seam, its
 * logins, routes and records, is its own. Not thread-safe to set while a
 * job runs.
 */

#define CS_FAKE_SMB_SERVER "nas"
#define CS_FAKE_SMB_SHARE  "share"

/* Registers the backend (once) and keeps the share in @folder, which only
 * @user (NULL: any) with @password logs in to. */
void  cs_fake_smb_install  (const char *folder,
                            const char *user,
                            const char *password);
/* How many logins the share refused, and the last user it was offered. */
guint cs_fake_smb_refusals (void);
char *cs_fake_smb_dup_last_user (void);

/* The reads and writes of files on the share since the last install: how
 * many, the largest in bytes, and how many buffers above 1 MiB they were
 * made from (by address: the job's big buffers, each counted once). */
typedef struct {
  guint  reads;
  guint  writes;
  gsize  largest;
  guint  big_buffers;
  guint  listings;     /* folders listed with every entry's stat (readdirplus) */
  guint  stats;        /* stats of a name (a round trip each on a real share) */
  guint  folder_stats; /* stats of an open folder (by its name, on a real share) */
  guint  name_reads;   /* reads of a folder's names that gave some but "." and ".."
                        * (getdents: on a real share, the same directory query),
                        * and folders opened as files, which libsmbclient lists */
  guint  connects;     /* connections set up ahead, each in a thread of the job's */
  guint  folder_times_by_writers; /* folders' times set by a thread that wrote files */
} CsFakeSmbIo;

void  cs_fake_smb_io       (CsFakeSmbIo *out);
/* The folders whose times were set since the last install (each time a
 * line, relative to the share's folder, "." for itself), sorted. */
char *cs_fake_smb_dup_folder_times (void);

/* Whether folders are listed with each entry's stat, as libsmbclient's
 * readdirplus2 does (the default), or by names only (ENOTSUP: an older
 * libsmbclient). Reset by install. */
void  cs_fake_smb_set_listing (gboolean with_stats);
/* Each write to a file held @ms, as on a slow link. Reset by install. */
void  cs_fake_smb_set_write_delay (guint ms);
/* Names compared ignoring case, as on a Samba share of the default
 * "case sensitive = auto" (stats and opens of a single name). Reset by
 * install. */
void  cs_fake_smb_set_ignore_case (gboolean ignore);
/* Called with the local path of each folder just listed with stats, before
 * the job sees the listing: a test may change the folder behind it. NULL
 * to stop; reset by install. */
typedef void (*CsFakeSmbListed) (const char *folder, gpointer data);
void  cs_fake_smb_on_listed (CsFakeSmbListed func,
                             gpointer        data);

/* No secret service for the process: the keyring this machine may have is
 * not the test's. @runtime: an empty folder, the XDG_RUNTIME_DIR it gets. */
void  cs_fake_smb_hide_keyring (const char *runtime);

G_END_DECLS
