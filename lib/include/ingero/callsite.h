/* SPDX-License-Identifier: MIT */
/*
 * Where a process's calls of an op come from: the CUDA time of each
 * (node, pid, op, stack, pystack) call path, summed while a log is read,
 * and the heaviest path of a (node, pid, op) told in one line, the way a
 * person reads it -- Python frames when the call has them ("train.py:142
 * in forward()"), else the innermost native frames outside the CUDA
 * libraries ("train_step (train.cc:42)").  ingero-correlate puts it under
 * each causal chain.  Native names need symbol records (ingero-symbolize);
 * Python frames resolve from the recorder's pycode records alone.
 */
#ifndef ILOG_CALLSITE_H
#define ILOG_CALLSITE_H

#include <stddef.h>
#include "ingero/ilog.h"
#include "ingero/symbolize_map.h"

struct ilog_callsites;

/* NULL when out of memory.  With all_calls, calls without a stack are
 * kept too (as a path of stack and pystack 0), for ilog_callsites_each. */
struct ilog_callsites *ilog_callsites_new(int all_calls);
void ilog_callsites_free(struct ilog_callsites *c);

/* Every record read, filtered out or not: the stacks, symbols and code
 * objects a call path is told with.  0, or -1 out of memory. */
int ilog_callsites_observe(struct ilog_callsites *c, const struct ilog_record *rec);

/* A cuda record that counts (passed the filters): its duration goes to its
 * call path.  0, or -1 out of memory. */
int ilog_callsites_add(struct ilog_callsites *c, const struct ilog_record *rec);

/*
 * The call path with the most time among the (node, pid, op) calls (op 0:
 * of any op): its
 * description into out (NUL-terminated, cut to n), *ns the time of its
 * calls and *calls how many there were.  1 when there is one, 0 when no
 * call of them had a stack that could be named.
 */
int ilog_callsites_top(const struct ilog_callsites *c, uint32_t node, uint32_t pid, uint16_t op,
		       char *out, size_t n, uint64_t *ns, uint64_t *calls);

/*
 * One call path of (node, pid, op) told in one line as
 * ilog_callsites_top tells it, into out (NUL-terminated, cut to n).  1
 * when it could be named, 0 when not (no stack, no symbols: out is "").
 * c may be NULL (0).
 */
int ilog_callsites_describe(const struct ilog_callsites *c, uint32_t node, uint32_t pid,
			    uint16_t op, uint64_t stack_id, uint64_t pystack_id, char *out,
			    size_t n);

/* One call path with its merged frames (ilog_symmap_callstack), innermost
 * first, for ilog_callsites_each. */
struct ilog_callpath {
	uint32_t node, pid;
	uint16_t op;
	uint64_t stack_id, pystack_id;
	uint64_t calls, ns, max_ns; /* max_ns: the longest call */
	const struct ilog_callframe *frames;
	unsigned nframes;
};

/* Every call path in the order first seen; fn returning nonzero stops and
 * is returned. */
int ilog_callsites_each(const struct ilog_callsites *c,
			int (*fn)(void *arg, const struct ilog_callpath *p), void *arg);

#endif
