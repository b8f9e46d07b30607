// SPDX-License-Identifier: MIT
/*
 * The table of causal patterns (ingero/causal.h's ILOG_PATTERNS, where
 * each is defined), indexed by enum ilog_pattern.
 */
#include "ingero/causal.h"

const struct ilog_pattern_def ilog_patterns[ILOG_PAT__COUNT] = {
#define ENTRY(id, name, host, rule) [ILOG_PAT_##id] = { name, host, rule },
	ILOG_PATTERNS(ENTRY)
#undef ENTRY
};
