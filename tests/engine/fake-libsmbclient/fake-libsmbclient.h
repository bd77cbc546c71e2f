/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* What the fake libsmbclient.so.0 counted since its last reset. */
typedef struct {
  int set_ups;          /* connections set up (or tried) */
  int set_ups_alone;    /* of them, with no other under way meanwhile */
  int most_at_once;     /* the most under way at one moment */
  int failed_together;  /* failed on purpose, set up beside another */
  int again_alone;      /* a context that failed so, set up alone after */
  int refusals;         /* refused by the share the reset named */
  int stats;            /* stats answered */
  int listed_plus;      /* entries handed by readdirplus */
  int listed_plus2;     /* entries handed by readdirplus2, with a stat */
} FakeSmbCounts;

/* Starts counting anew: the next @failures_together set-ups made beside
 * another fail with ENOMEM; logins to @refused_share ("smb://host/share")
 * are refused with EACCES. */
void fake_smb_reset      (int            failures_together,
                          const char    *refused_share);
void fake_smb_get_counts (FakeSmbCounts *out);

/* The entries every folder lists: FAKE_SMB_LISTED of them, "." and ".."
 * first. readdirplus2 gives the stat libsmbclient 4.17's setup_stat makes
 * of each (its mode from the DOS attributes), or, once told @otherwise, a
 * stat another library might make (the mode a POSIX server reports). */
#define FAKE_SMB_LISTED 30
void fake_smb_set_listing (int          otherwise);
/* The name and stat readdirplus2 gives entry @i. */
const char *fake_smb_listed (int          i,
                             struct stat *st);
