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
} FakeSmbCounts;

/* Starts counting anew: the next @failures_together set-ups made beside
 * another fail with ENOMEM; logins to @refused_share ("smb://host/share")
 * are refused with EACCES. */
void fake_smb_reset      (int            failures_together,
                          const char    *refused_share);
void fake_smb_get_counts (FakeSmbCounts *out);
