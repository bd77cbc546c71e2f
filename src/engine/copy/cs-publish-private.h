/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <sys/stat.h>

#include "cs-copy-outcome-private.h"
#include "cs-job-private.h"

G_BEGIN_DECLS

/* A fresh temporary's name for this run in @buf. */
void      _cs_publish_temp_name    (CsJob        *job,
                                    char         *buf,
                                    gsize         size);
/* The name a temporary takes to say it is about to claim @final. */
void      _cs_publish_intent_name  (CsJob        *job,
                                    const char   *final,
                                    char         *buf,
                                    gsize         size);
/* Whether files written beside their final names in @dir are published by a
 * claim: the filesystem can neither rename without replacing nor hard-link. */
gboolean  _cs_publishes_by_claim   (CsJob        *job,
                                    CsDir        *dir);
/* Whether @name in @dir's destination, with @st from lstat, is a claim a run
 * of ours left (to be replaced like a temporary). */
gboolean  _cs_publish_is_placeholder (CsJob             *job,
                                      CsDir             *dir,
                                      const char        *name,
                                      const struct stat *st);
/* worker thread: renames temporary @tmp in folder @tmp_fd (the destination
 * folder, or a staging folder) to @final in @dir as @action decided: over
 * the old file, under a free "keep both" name, or never over anything. */
CsOutcome _cs_publish              (CsJob        *job,
                                    int           tmp_fd,
                                    const char   *tmp,
                                    CsDir        *dir,
                                    const char   *final,
                                    CsAction      action);
/* worker thread: links the unnamed temporary @tmp_fd as @final in @dir;
 * CS_ERR_NO_UNNAMED when it cannot be (named ones from then on). */
CsOutcome _cs_publish_unnamed      (CsJob        *job,
                                    int           tmp_fd,
                                    CsDir        *dir,
                                    const char   *final);
/* Closes *@tmp_fd and removes @tmp (if named) from @folder_fd. */
void      _cs_publish_discard_temp (CsJob        *job,
                                    int           folder_fd,
                                    int          *tmp_fd,
                                    const char   *tmp);

G_END_DECLS
