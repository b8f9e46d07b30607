// SPDX-License-Identifier: MIT
/*
 * The analysis driver (ingero/analysis.h): statistics, call sites,
 * launches per kernel and the causal engine, fed and finished the one way
 * every consumer needs them, with one set of options.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ingero/analysis.h"

struct ilog_analysis {
	struct ilog_analysis_opts o;
	struct ilog_stats *st;
	struct ilog_callsites *sites;
	struct ilog_kstats *ks;
	struct ilog_chain_set cs;
	int pid_seen;
	char err[256];
};

int ilog_analysis_opt(struct ilog_analysis_opts *o, int c, const char *arg, char *err,
		      size_t errlen)
{
	switch (c) {
	case ILOG_AOPT_WINDOW:
	case ILOG_AOPT_STATS_WINDOW:
		if (ilog_parse_duration(arg, &o->window_ns) || !o->window_ns) {
			snprintf(err, errlen, "%s: not a duration '%s'",
				 c == ILOG_AOPT_WINDOW ? "--window" : "--stats-window", arg);
			return -1;
		}
		return 1;
	case ILOG_AOPT_THRESHOLD: {
		char *end;
		double v = strtod(arg, &end);
		if (end == arg || (*end && strcmp(end, "%")) || !(v > 0) || v > 10000) {
			snprintf(err, errlen, "--threshold: not a percentage '%s'", arg);
			return -1;
		}
		o->threshold = v / 100;
		return 1;
	}
	case 'p':
		return ilog_filter_opt(&o->filt, "--pid", arg, err, errlen) ? -1 : 1;
	case ILOG_AOPT_SINCE:
		return ilog_filter_opt(&o->filt, "--since", arg, err, errlen) ? -1 : 1;
	case ILOG_AOPT_UNTIL:
		return ilog_filter_opt(&o->filt, "--until", arg, err, errlen) ? -1 : 1;
	default:
		return 0;
	}
}

struct ilog_analysis *ilog_analysis_new(const struct ilog_analysis_opts *o)
{
	struct ilog_analysis *a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	if (o)
		a->o = *o;
	struct ilog_stats_opts so = { .window_ns = a->o.window_ns };
	a->pid_seen = !a->o.filt.pid;
	a->st = ilog_stats_new(&so);
	if (a->o.callsites)
		a->sites = ilog_callsites_new(a->o.callsites > 1);
	if (a->o.kernels)
		a->ks = ilog_kstats_new();
	if (!a->st || (a->o.callsites && !a->sites) || (a->o.kernels && !a->ks)) {
		ilog_analysis_free(a);
		return NULL;
	}
	return a;
}

static int oom(struct ilog_analysis *a)
{
	snprintf(a->err, sizeof(a->err), "out of memory");
	return -1;
}

int ilog_analysis_observe(struct ilog_analysis *a, const struct ilog_record *rec)
{
	if (!a->pid_seen)
		a->pid_seen = ilog_record_of_pid(rec, a->o.filt.pid);
	return a->sites && ilog_callsites_observe(a->sites, rec) ? oom(a) : 0;
}

int ilog_analysis_count(struct ilog_analysis *a, const struct ilog_record *rec,
			const struct ilog_reader *r, uint32_t site_node)
{
	if (ilog_stats_add(a->st, rec, r))
		return -1; /* the statistics say why */
	if (a->sites && rec->kind == ILOG_K_CUDA && site_node != rec->node) {
		/* the call sites' own numbering: a copy keyed by it */
		struct ilog_record k = *rec;
		k.node = site_node;
		if (ilog_callsites_add(a->sites, &k))
			return oom(a);
	} else if (a->sites && ilog_callsites_add(a->sites, rec)) {
		return oom(a);
	}
	return a->ks && ilog_kstats_add(a->ks, rec) ? oom(a) : 0;
}

int ilog_analysis_add(struct ilog_analysis *a, const struct ilog_record *rec,
		      const struct ilog_reader *r)
{
	if (ilog_analysis_observe(a, rec))
		return -1;
	if (!ilog_filter_match(&a->o.filt, rec, r))
		return 0;
	return ilog_analysis_count(a, rec, r, rec->node);
}

int ilog_analysis_damage(struct ilog_analysis *a, const char *input, const struct ilog_damage *d)
{
	return ilog_stats_add_damage(a->st, input, d);
}

int ilog_analysis_finish(struct ilog_analysis *a, int chains)
{
	if (ilog_stats_finish(a->st))
		return -1;
	if (chains && ilog_causal_run(a->st, &a->cs, a->err, sizeof(a->err)))
		return -1;
	return 0;
}

const char *ilog_analysis_error(const struct ilog_analysis *a)
{
	const char *e = ilog_stats_error(a->st);
	return e ? e : a->err[0] ? a->err : "out of memory";
}

struct ilog_stats *ilog_analysis_stats(const struct ilog_analysis *a)
{
	return a->st;
}

const struct ilog_chain_set *ilog_analysis_chains(const struct ilog_analysis *a)
{
	return &a->cs;
}

const struct ilog_callsites *ilog_analysis_sites(const struct ilog_analysis *a)
{
	return a->sites;
}

struct ilog_kstats *ilog_analysis_kstats(const struct ilog_analysis *a)
{
	return a->ks;
}

int ilog_analysis_pid_seen(const struct ilog_analysis *a)
{
	return a->pid_seen;
}

void ilog_analysis_free(struct ilog_analysis *a)
{
	if (!a)
		return;
	ilog_chain_set_free(&a->cs);
	ilog_stats_free(a->st);
	ilog_callsites_free(a->sites);
	ilog_kstats_free(a->ks);
	free(a);
}
