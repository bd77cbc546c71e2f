/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "cs-conflict.h"
#include "cs-counters.h"
#include "cs-deletions.h"
#include "cs-demo.h"
#include "cs-eta.h"
#include "cs-explainer.h"
#include "cs-figures.h"
#include "cs-generate.h"
#include "cs-job.h"
#include "cs-kept.h"
#include "cs-log.h"
#include "cs-manifest.h"
#include "cs-run.h"
#include "cs-smb.h"
#include "cs-sweep.h"
#include "cs-text.h"
