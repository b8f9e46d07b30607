// SPDX-License-Identifier: MIT
/* The record filter (ingero/filter.h) that ingero-export and
 * ingero-correlate apply to what they read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ingero/filter.h"

int ilog_record_pid(const struct ilog_record *rec, uint32_t *pid, uint32_t *other)
{
	*other = rec->kind == ILOG_K_HOST ? rec->u.host.other_pid : 0;
	switch (rec->kind) {
	case ILOG_K_CUDA: *pid = rec->u.cuda.pid; return 1;
	case ILOG_K_INFLIGHT: *pid = rec->u.inflight.pid; return 1;
	case ILOG_K_TRIGGER: *pid = rec->u.trigger.pid; return rec->u.trigger.pid != 0;
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

/* TIME of --since or --until: 0, or -1 with err filled. */
static int filter_time(const char *opt, const char *arg, uint64_t *abs, const char **rel,
		       uint64_t *rel_ns, char *err, size_t errlen)
{
	int bad;
	if (arg[0] == '+') {
		*rel = arg;
		bad = ilog_parse_duration(arg + 1, rel_ns);
	} else {
		bad = ilog_parse_walltime(arg, abs);
	}
	if (bad) {
		uint64_t ns;
		/* "10s" for "+10s": a duration alone is no point in time */
		if (arg[0] != '+' && *arg && !ilog_parse_duration(arg, &ns))
			snprintf(err, errlen, "%s: not a time '%s': use '+%s' for %s after the log's start",
				 opt, arg, arg, arg);
		else
			snprintf(err, errlen, "%s: not a time '%s'", opt, arg);
		return -1;
	}
	return 0;
}

int ilog_filter_opt(struct ilog_filter *f, const char *opt, const char *arg, char *err,
		    size_t errlen)
{
	if (!strcmp(opt, "--since"))
		return filter_time(opt, arg, &f->since, &f->since_rel, &f->since_rel_ns, err, errlen);
	if (!strcmp(opt, "--until"))
		return filter_time(opt, arg, &f->until, &f->until_rel, &f->until_rel_ns, err, errlen);
	char *end;
	unsigned long v = strtoul(arg, &end, 10);
	if (strcmp(opt, "--pid") || *end || !*arg || !v || v > UINT32_MAX) {
		snprintf(err, errlen, "%s: not a process id '%s'", opt, arg);
		return -1;
	}
	f->pid = (uint32_t)v;
	return 0;
}
