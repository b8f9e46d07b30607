// SPDX-License-Identifier: MIT
/* The record filter (ingero/filter.h) that ingero-export and
 * ingero-correlate apply to what they read. */
#include "ingero/filter.h"

int ilog_record_pid(const struct ilog_record *rec, uint32_t *pid, uint32_t *other)
{
	*other = rec->kind == ILOG_K_HOST ? rec->u.host.other_pid : 0;
	switch (rec->kind) {
	case ILOG_K_CUDA: *pid = rec->u.cuda.pid; return 1;
	case ILOG_K_INFLIGHT: *pid = rec->u.inflight.pid; return 1;
	case ILOG_K_HOST: *pid = rec->u.host.pid; return 1;
	case ILOG_K_PROCESS: *pid = rec->u.process.pid; return 1;
	case ILOG_K_MAPPING: *pid = rec->u.mapping.pid; return 1;
	case ILOG_K_STACK: *pid = rec->u.stack.pid; return 1;
	case ILOG_K_PYSTACK: *pid = rec->u.pystack.pid; return 1;
	case ILOG_K_PYCODE: *pid = rec->u.pycode.pid; return 1;
	case ILOG_K_CHAIN: *pid = rec->u.chain.pid; return 1;
	/* the network's aggregates: a process's; pid 0 sums the others */
	case ILOG_K_RETRANS: *pid = rec->u.retrans.pid; return *pid != 0;
	case ILOG_K_SOCKIO: *pid = rec->u.sockio.pid; return *pid != 0;
	default: *pid = 0; return 0;
	}
}

int ilog_record_of_pid(const struct ilog_record *rec, uint32_t pid)
{
	uint32_t own, other;
	return ilog_record_pid(rec, &own, &other) && (own == pid || other == pid);
}

int ilog_filter_match(struct ilog_filter *f, const struct ilog_record *rec,
		      const struct ilog_reader *r)
{
	if (f->kinds && (rec->kind > 63 || !(f->kinds & (1ull << rec->kind))))
		return 0;
	/* a record of no process is kept whatever the pid */
	uint32_t own, other;
	if (f->pid && ilog_record_pid(rec, &own, &other) && own != f->pid && other != f->pid)
		return 0;
	if (!f->since && !f->until && !f->since_rel && !f->until_rel)
		return 1;
	uint64_t ts = ilog_record_ts(rec);
	if (!ts || rec->kind == ILOG_K_HEADER || rec->kind == ILOG_K_CLOCK)
		return 1;
	uint64_t wall = ilog_reader_wall(r, rec->node, ts);
	if (!wall)
		return 1;
	const struct ilog_header *h = ilog_reader_header(r, rec->node);
	uint64_t start = h ? h->real_ns : 0;
	if (f->since_rel && wall < start + f->since_rel_ns)
		return 0;
	if (f->until_rel && wall >= start + f->until_rel_ns)
		return 0;
	if (f->since && wall < f->since)
		return 0;
	if (f->until && wall >= f->until)
		return 0;
	return 1;
}
