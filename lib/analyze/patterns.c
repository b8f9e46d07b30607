// SPDX-License-Identifier: MIT
/*
 * The table of causal patterns (ingero/causal.h's ILOG_PATTERNS, where
 * each is defined), indexed by enum ilog_pattern.
 */
#include <string.h>
#include "ingero/causal.h"

const struct ilog_pattern_def ilog_patterns[ILOG_PAT__COUNT] = {
#define ENTRY(id, name, host, rule) [ILOG_PAT_##id] = { name, host, rule },
	ILOG_PATTERNS(ENTRY)
#undef ENTRY
};

int ilog_chain_is(const struct ilog_chain *c, enum ilog_pattern p)
{
	size_t n = strlen(ilog_patterns[p].name);
	return c->pattern.n == n && !memcmp(c->pattern.p, ilog_patterns[p].name, n);
}
