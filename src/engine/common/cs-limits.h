/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * The thread counts every layer agrees on: the job's pool, Auto's search, the
 * sweep's steps, the window's slider and the CLI's options all check against
 * these, and Auto sits below the job, so they live below both.
 */

#define CS_JOB_MIN_THREADS     1
#define CS_JOB_MAX_THREADS     128
#define CS_JOB_DEFAULT_THREADS 8
