// SPDX-License-Identifier: MIT
/* Text and JSON renderings of statistics and chains (explain.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ingero/explain.h"

/* JSON strings and formatted appends: the export sinks' helpers (export_util.c) */
#define bprintf ilog_buf_printf
#define jstr ilog_json_str

static void jkv_s(struct ilog_buf *b, const char *k, const char *v)
{
	bprintf(b, ",\"%s\":", k);
	jstr(b, v ? v : "", v ? strlen(v) : 0);
}

static void jkv_u(struct ilog_buf *b, const char *k, uint64_t v)
{
	bprintf(b, ",\"%s\":%llu", k, (unsigned long long)v);
}

static void jkv_f(struct ilog_buf *b, const char *k, double v)
{
	bprintf(b, ",\"%s\":%.6g", k, v);
}

/* A count of CUDA calls and the time they took. */
static void jkv_calls(struct ilog_buf *b, uint64_t calls, uint64_t cuda_ns)
{
	jkv_u(b, "calls", calls);
	jkv_u(b, "cuda_ns", cuda_ns);
}

static const char *dur(char *b, double ns)
{
	return ilog_fmt_dur(b, 32, ns);
}

/* ---- statistics ---- */
static int stats_rows(struct ilog_buf *b, struct ilog_stats *st, const struct ilog_explain_opts *o,
		      int windows)
{
	struct ilog_stat_row *rows;
	int n = windows ? ilog_stats_window_rows(st, o->per_process, &rows)
			: ilog_stats_rows(st, o->per_process, &rows);
	if (n < 0)
		return -1;
	uint32_t node = UINT32_MAX;
	for (int i = 0; i < n; i++) {
		const struct ilog_stat_row *r = &rows[i];
		char a[32], c[32], d[32], e[32], f[32];
		if (r->node != node) {
			node = r->node;
			bprintf(b, "\n%s (node %s)\n", windows ? "PER WINDOW" : "STATISTICS",
				r->node_name[0] ? r->node_name : "?");
			if (windows)
				bprintf(b, "  %-10s ", "WINDOW");
			else
				bprintf(b, "  ");
			if (o->per_process)
				bprintf(b, "%-8s %-15s ", "PID", "COMM");
			bprintf(b, "%-8s %-30s %9s %9s %7s %9s %9s %9s %9s\n", "LAYER", "OP", "CALLS",
				"TOTAL", windows ? "BUSY%" : "WALL%", "P50", "P95", "P99", "MAX");
		}
		if (windows) {
			struct ilog_stats_summary s;
			uint64_t t0 = 0;
			for (uint32_t k = 0; k < ilog_stats_nnodes(st); k++) {
				ilog_stats_summary(st, k, &s);
				if (s.node == r->node)
					t0 = s.start_ns;
			}
			bprintf(b, "  +%-9.3f ", (double)(r->start_ns - t0) / 1e9);
		} else {
			bprintf(b, "  ");
		}
		if (o->per_process)
			bprintf(b, "%-8u %-15.15s ", r->pid, r->comm[0] ? r->comm : "?");
		bprintf(b, "%-8s %-30s %9llu %9s %6.1f%% %9s %9s %9s %9s\n", ilog_layer_name(r->layer) ?: "?",
			ilog_op_name(r->op) ?: "?", (unsigned long long)r->count,
			dur(a, (double)r->total_ns), r->frac * 100, dur(c, (double)r->p50_ns),
			dur(d, (double)r->p95_ns), dur(e, (double)r->p99_ns), dur(f, (double)r->max_ns));
	}
	free(rows);
	return 0;
}

int ilog_explain_stats(struct ilog_buf *b, struct ilog_stats *st, const struct ilog_explain_opts *o)
{
	if (stats_rows(b, st, o, 0))
		return -1;
	if (o->windows && stats_rows(b, st, o, 1))
		return -1;
	return b->p || !b->len ? 0 : -1;
}

/* ---- the report ---- */
/* Read the next "key":"string" value of my own evidence JSON from *p. */
static int next_str(const char **p, const char *key, char *out, size_t n)
{
	char pat[32];
	snprintf(pat, sizeof(pat), "\"%s\":\"", key);
	const char *s = strstr(*p, pat);
	if (!s)
		return -1;
	s += strlen(pat);
	size_t k = 0;
	for (; *s && *s != '"'; s++) {
		char ch = *s;
		if (ch == '\\' && s[1]) {
			s++;
			ch = *s == 'u' ? '?' : *s;
			if (*s == 'u')
				s += 4;
		}
		if (k + 1 < n)
			out[k++] = ch;
	}
	out[k] = 0;
	*p = s;
	return 0;
}

static void timeline(struct ilog_buf *b, const struct ilog_chain *c, int max)
{
	char ev[8192];
	size_t n = c->evidence.n < sizeof(ev) - 1 ? c->evidence.n : sizeof(ev) - 1;
	memcpy(ev, c->evidence.p, n);
	ev[n] = 0;
	const char *p = ev;
	char t[64], what[600];
	int shown = 0;
	while (!next_str(&p, "t", t, sizeof(t)) && !next_str(&p, "what", what, sizeof(what))) {
		if (max && shown == max) {
			bprintf(b, "     ...\n");
			break;
		}
		bprintf(b, "     %-10s %s\n", t, what);
		shown++;
	}
}

/* The note of pattern pat about node (stats node id), or NULL. */
static const struct ilog_chain *note_of(const struct ilog_chain_set *cs, uint32_t node,
					enum ilog_pattern pat)
{
	for (uint32_t i = 0; cs && i < cs->nnotes; i++)
		if (cs->note_nodes[i] == node && ilog_chain_is(&cs->notes[i], pat))
			return &cs->notes[i];
	return NULL;
}

static void node_summary(struct ilog_buf *b, struct ilog_stats *st,
			 const struct ilog_chain_set *cs, uint32_t i)
{
	struct ilog_stats_summary s;
	ilog_stats_summary(st, i, &s);
	char w[64], d1[32], d2[32];
	ilog_fmt_wall(w, sizeof(w), s.real_start_ns);
	bprintf(b, "  node %s: %s, %s recorded, %u CUDA process%s, windows of %s\n",
		s.node_name[0] ? s.node_name : "?", w,
		dur(d1, (double)(s.end_ns > s.start_ns ? s.end_ns - s.start_ns : 0)), s.processes,
		s.processes == 1 ? "" : "es", dur(d2, (double)s.window_ns));
	if (s.lost)
		bprintf(b, "  WARNING: the recorder lost %llu of %llu events; counts below are "
			"lower bounds\n", (unsigned long long)s.lost,
			(unsigned long long)(s.seen + s.lost));
	/* what recording cost: a fact about the measurement, no finding */
	const struct ilog_chain *ov = note_of(cs, s.node, ILOG_PAT_RECORDING_OVERHEAD);
	if (ov)
		bprintf(b, "  recording cost: %s off-CPU of the traced CUDA threads (%.2f%% of their "
			"CUDA time), taken by the recorder\n", dur(d1, (double)ov->lost_ns),
			ov->score * 100);
}

/* The damaged ranges of the inputs (SPEC §9), each one line. */
static void damage_text(struct ilog_buf *b, struct ilog_stats *st)
{
	const char *in;
	const struct ilog_damage *d;
	for (uint32_t i = 0; (d = ilog_stats_damage(st, i, &in)); i++) {
		bprintf(b, "  WARNING: %s: offset %llu: %llu damaged bytes skipped", in,
			(unsigned long long)d->off, (unsigned long long)d->bytes);
		if (d->records >= 0)
			bprintf(b, ", about %lld records lost", (long long)d->records);
		bprintf(b, "; counts below are lower bounds\n");
	}
}

static void host_summary(struct ilog_buf *b, struct ilog_stats *st, uint32_t i)
{
	struct ilog_stats_summary s;
	ilog_stats_summary(st, i, &s);
	char m1[32], m2[32], m3[32], m4[32], m5[32];
	bprintf(b, "\nHOST (node %s)\n", s.node_name[0] ? s.node_name : "?");
	if (!s.nsnaps) {
		bprintf(b, "  no system snapshots in the log\n");
		return;
	}
	bprintf(b, "  %llu snapshots: CPU %.1f%% busy on average (max %.1f%%) on %u CPUs, load1 up to "
		"%.2f\n", (unsigned long long)s.nsnaps, s.cpu_avg, s.cpu_max, s.ncpu, s.load1_max);
	bprintf(b, "  memory available at least %s of %s; swap used up to %s of %s (grew %s)\n",
		ilog_fmt_bytes(m1, sizeof(m1), (double)s.mem_avail_min),
		ilog_fmt_bytes(m2, sizeof(m2), (double)s.mem_total),
		ilog_fmt_bytes(m3, sizeof(m3), (double)s.swap_used_max),
		ilog_fmt_bytes(m4, sizeof(m4), (double)s.swap_total),
		ilog_fmt_bytes(m5, sizeof(m5), (double)s.swap_used_growth));
}

/* Whether pid on node is a chain's culprit. */
static int is_culprit(const struct ilog_chain_set *cs, uint32_t node, uint32_t pid)
{
	for (uint32_t i = 0; cs && pid && i < cs->n; i++)
		if (cs->nodes[i] == node && cs->chains[i].culprit_pid == pid)
			return 1;
	return 0;
}

/*
 * The processes of a node grouped by container, when it has more than one
 * (ilog_stats_containers): the groups with a CUDA process or a chain's
 * culprit, with those processes; the rest (shells, builds, short-lived
 * tools the recorder met) one line of counts.  0, or -1 when out of memory.
 */
static int containers_text(struct ilog_buf *b, struct ilog_stats *st,
			   const struct ilog_chain_set *cs, uint32_t i)
{
	struct ilog_stats_summary s;
	struct ilog_stats_container *g;
	ilog_stats_summary(st, i, &s);
	int n = ilog_stats_containers(st, s.node, &g);
	if (n <= 0)
		return n;
	char d[32];
	int shown = 0;
	uint32_t other_procs = 0;
	for (int k = 0; k < n; k++) {
		const struct ilog_stats_container *c = &g[k];
		uint32_t named = 0;
		for (uint32_t j = 0; j < c->nprocs; j++)
			named += c->procs[j].calls || is_culprit(cs, s.node, c->procs[j].pid);
		if (!named) {
			other_procs += c->nprocs;
			continue;
		}
		if (!shown++)
			bprintf(b, "\nCONTAINERS (node %s): %d groups of processes\n",
				s.node_name[0] ? s.node_name : "?", n);
		bprintf(b, "  %s", c->label[0] ? c->label : "the host (no container)");
		if (c->cgroup[0] && strncmp(c->label, "cgroup ", 7))
			bprintf(b, " (cgroup %s)", c->cgroup);
		bprintf(b, ": %u process%s, %llu CUDA calls\n", c->nprocs, c->nprocs == 1 ? "" : "es",
			(unsigned long long)c->calls);
		uint32_t listed = 0;
		for (uint32_t j = 0; j < c->nprocs && listed < 8; j++) {
			const struct ilog_stats_cproc *p = &c->procs[j];
			if (!p->calls && !is_culprit(cs, s.node, p->pid))
				continue;
			listed++;
			bprintf(b, "    PID %-8u %-15.15s ", p->pid, p->comm[0] ? p->comm : "?");
			if (p->calls)
				bprintf(b, "%llu CUDA calls, %s\n", (unsigned long long)p->calls,
					dur(d, (double)p->cuda_ns));
			else
				bprintf(b, "no CUDA calls, named by a chain\n");
		}
		if (named > listed)
			bprintf(b, "    ... and %u more with CUDA calls or named by a chain\n",
				named - listed);
		if (c->nprocs > named)
			bprintf(b, "    and %u process%s with no CUDA calls\n", c->nprocs - named,
				c->nprocs - named == 1 ? "" : "es");
	}
	if (shown && shown < n)
		bprintf(b, "  %d other group%s: %u process%s with no CUDA calls, none named by a chain\n",
			n - shown, n - shown == 1 ? "" : "s", other_procs, other_procs == 1 ? "" : "es");
	ilog_stats_containers_free(g, n);
	return 0;
}

static int containers_json(struct ilog_buf *b, struct ilog_stats *st, uint32_t i)
{
	struct ilog_stats_summary s;
	struct ilog_stats_container *g;
	ilog_stats_summary(st, i, &s);
	int n = ilog_stats_containers(st, s.node, &g);
	for (int k = 0; k < n; k++) {
		const struct ilog_stats_container *c = &g[k];
		bprintf(b, "{\"type\":\"container\"");
		jkv_s(b, "node", s.node_name);
		jkv_s(b, "container", c->label);
		jkv_s(b, "pod_uid", c->pod_uid);
		jkv_s(b, "container_id", c->container_id);
		jkv_s(b, "cgroup", c->cgroup);
		jkv_calls(b, c->calls, c->cuda_ns);
		bprintf(b, ",\"processes\":[");
		for (uint32_t j = 0; j < c->nprocs; j++) {
			bprintf(b, "%s{\"pid\":%u", j ? "," : "", c->procs[j].pid);
			jkv_s(b, "comm", c->procs[j].comm);
			jkv_calls(b, c->procs[j].calls, c->procs[j].cuda_ns);
			bprintf(b, "}");
		}
		bprintf(b, "]}\n");
	}
	ilog_stats_containers_free(g, n);
	return n < 0 ? -1 : 0;
}

/* The per-process statistics rows, computed once per report when a chain
 * first needs them (they hold the op totals call-site shares are of). */
struct rows {
	struct ilog_stat_row *r;
	int n, done;
};

/* Where a chain's calls came from, with the share of the process's time
 * in that op they carried (o->sites; 0 when none is known). */
/* The node name of a stats node id, "?" when unknown. */
static const char *node_name_of(struct ilog_stats *st, uint32_t node)
{
	for (uint32_t k = 0; k < ilog_stats_nnodes(st); k++) {
		struct ilog_stats_summary sm;
		ilog_stats_summary(st, k, &sm);
		if (sm.node == node)
			return sm.node_name[0] ? sm.node_name : "?";
	}
	return "?";
}

/* ---- training steps ---- */

/* A process's steps as the renderers read them. */
struct stepv {
	struct ilog_step_proc pr;
	struct ilog_step_site *ss;   /* its (op, call path) pairs, most time first */
	int nss;
	uint32_t *row;               /* site index -> row in ss + 1 */
	uint32_t nrow;
};

static void stepv_free(struct stepv *v)
{
	free(v->ss);
	free(v->row);
}

static int stepv_load(struct ilog_stats *st, const struct ilog_step_proc *pr, struct stepv *v)
{
	memset(v, 0, sizeof(*v));
	v->pr = *pr;
	v->nss = ilog_stats_step_sites(st, pr->node, pr->pid, &v->ss);
	if (v->nss < 0)
		return -1;
	for (int i = 0; i < v->nss; i++)
		if (v->ss[i].site + 1 > v->nrow)
			v->nrow = v->ss[i].site + 1;
	if (!(v->row = calloc(v->nrow + 1, sizeof(*v->row))))
		return -1;
	for (int i = 0; i < v->nss; i++)
		v->row[v->ss[i].site] = (uint32_t)i + 1;
	return 0;
}

/* "cudaMemcpy" or "cudaMemcpy from log_metrics (train.cc:42)" */
static void site_name(const struct ilog_explain_opts *o, const struct ilog_step_proc *pr,
		      const struct ilog_step_site *s, char *out, size_t n)
{
	char where[400];
	if (ilog_callsites_describe(o->sites, pr->node, pr->pid, s->op, s->stack_id,
				    s->pystack_id, where, sizeof(where)))
		snprintf(out, n, "%s from %s", ilog_op_name(s->op) ?: "?", where);
	else
		snprintf(out, n, "%s", ilog_op_name(s->op) ?: "?");
}

/* The sites whose time in step i differs most from their mean per step:
 * up to 2, into the report. */
static void step_diff(struct ilog_buf *b, struct ilog_stats *st, const struct ilog_explain_opts *o,
		      const struct stepv *v, uint32_t i)
{
	const struct ilog_step_op *ops;
	uint32_t n = ilog_stats_step_ops(st, v->pr.node, v->pr.pid, i, &ops);
	int shown = 0;
	for (int round = 0; round < 2; round++) {
		double bestd = 0;
		int best = -1;
		uint32_t bcalls = 0;
		for (uint32_t k = 0; k < n; k++) {
			uint32_t r = ops[k].site < v->nrow ? v->row[ops[k].site] : 0;
			if (!r || (round && (int)r - 1 == shown - 1))
				continue;
			double d = (double)ops[k].ns - v->ss[r - 1].ns_per_step;
			if (d > bestd) {
				bestd = d;
				best = (int)r - 1;
				bcalls = ops[k].calls;
			}
		}
		if (best < 0 || bestd < 0.05 * (double)v->pr.p50_ns)
			break;
		char nm[512], d1[32];
		site_name(o, &v->pr, &v->ss[best], nm, sizeof(nm));
		bprintf(b, "%s%s +%s (%u call%s, %.1f per step)", round ? "; " : ": ", nm,
			dur(d1, bestd), bcalls, bcalls == 1 ? "" : "s", v->ss[best].calls_per_step);
		shown = best + 1;
	}
	if (!shown)
		bprintf(b, ": no call took notably longer than usual (host time between calls)");
}

/* fn for each process with steps, in order; its first nonzero result, or
 * -1 out of memory, else 0. */
static int steps_each(struct ilog_buf *b, struct ilog_stats *st, const struct ilog_explain_opts *o,
		      int (*fn)(struct ilog_buf *, struct ilog_stats *,
				const struct ilog_explain_opts *, const struct stepv *))
{
	struct ilog_step_proc *pr;
	int np = ilog_stats_step_procs(st, &pr), rc = np < 0 ? -1 : 0;
	for (int p = 0; p < np && !rc; p++) {
		struct stepv v;
		rc = stepv_load(st, &pr[p], &v) ? -1 : fn(b, st, o, &v);
		stepv_free(&v);
	}
	free(pr);
	return rc;
}

/* STEPS: a process's step, how it was found, its durations, what a step
 * calls, and the slowest steps with what differed in them. */
static int step_text(struct ilog_buf *b, struct ilog_stats *st, const struct ilog_explain_opts *o,
		     const struct stepv *v)
{
	char d1[32], d2[32], d3[32], d4[32];
	bprintf(b, "\nSTEPS (PID %u %s): %u steps, one per %u %s call%s (%s), "
		"p50 %s, p90 %s, max %s\n", v->pr.pid, v->pr.comm,
		v->pr.nsteps, v->pr.per_step, ilog_op_name(v->pr.marker) ?: "?",
		v->pr.per_step == 1 ? "" : "s", ilog_step_rule_name(v->pr.rule) ?: "?",
		dur(d1, (double)v->pr.p50_ns), dur(d2, (double)v->pr.p90_ns),
		dur(d3, (double)v->pr.max_ns));
	bprintf(b, "  %10s %12s  %s\n", "CALLS/STEP", "TIME/STEP", "OP AND CALL SITE");
	for (int i = 0; i < v->nss && i < 8; i++) {
		char nm[512];
		site_name(o, &v->pr, &v->ss[i], nm, sizeof(nm));
		bprintf(b, "  %10.1f %12s  %s\n", v->ss[i].calls_per_step,
			dur(d4, v->ss[i].ns_per_step), nm);
	}
	if (v->nss > 8)
		bprintf(b, "  (%d more)\n", v->nss - 8);
	uint32_t top[3];
	uint32_t nt = ilog_stats_step_slowest(st, v->pr.node, v->pr.pid, top, 3);
	bprintf(b, "  Slowest steps:\n");
	for (uint32_t i = 0; i < nt; i++) {
		struct ilog_step_row row, *r = &row;
		if (ilog_stats_step(st, v->pr.node, v->pr.pid, top[i], r))
			continue;
		double d = (double)(r->end_ns - r->start_ns);
		bprintf(b, "    step %u at +%s: %s (%+.0f%% of p50)", r->step,
			dur(d1, (double)(r->start_ns - v->pr.first_ns)), dur(d2, d),
			(d / (double)v->pr.p50_ns - 1) * 100);
		step_diff(b, st, o, v, r->step);
		bprintf(b, "\n");
	}
	return 0;
}

/* A process's steps, (op, call site) pairs and steps as JSON objects. */
static int step_json(struct ilog_buf *b, struct ilog_stats *st, const struct ilog_explain_opts *o,
		     const struct stepv *v)
{
	const char *node = node_name_of(st, v->pr.node);
	bprintf(b, "{\"type\":\"steps\"");
	jkv_s(b, "node", node);
	jkv_u(b, "pid", v->pr.pid);
	jkv_s(b, "comm", v->pr.comm);
	jkv_s(b, "rule", ilog_step_rule_name(v->pr.rule));
	jkv_s(b, "marker_op", ilog_op_name(v->pr.marker));
	jkv_u(b, "per_step", v->pr.per_step);
	jkv_u(b, "steps", v->pr.nsteps);
	jkv_u(b, "start_ns", v->pr.first_ns);
	jkv_u(b, "end_ns", v->pr.last_ns);
	jkv_u(b, "p50_ns", v->pr.p50_ns);
	jkv_u(b, "p90_ns", v->pr.p90_ns);
	jkv_u(b, "min_ns", v->pr.min_ns);
	jkv_u(b, "max_ns", v->pr.max_ns);
	jkv_u(b, "mean_ns", v->pr.mean_ns);
	bprintf(b, "}\n");
	for (int i = 0; i < v->nss; i++) {
		const struct ilog_step_site *s = &v->ss[i];
		char where[400];
		ilog_callsites_describe(o->sites, v->pr.node, v->pr.pid, s->op, s->stack_id,
					s->pystack_id, where, sizeof(where));
		bprintf(b, "{\"type\":\"step_site\"");
		jkv_s(b, "node", node);
		jkv_u(b, "pid", v->pr.pid);
		jkv_u(b, "site", s->site);
		jkv_s(b, "layer", ilog_layer_name(s->layer));
		jkv_s(b, "op", ilog_op_name(s->op));
		jkv_s(b, "call_site", where);
		jkv_u(b, "stack_id", s->stack_id);
		jkv_u(b, "pystack_id", s->pystack_id);
		jkv_u(b, "steps", s->steps);
		jkv_u(b, "calls", s->calls);
		jkv_u(b, "total_ns", s->ns);
		jkv_f(b, "calls_per_step", s->calls_per_step);
		jkv_f(b, "ns_per_step", s->ns_per_step);
		bprintf(b, "}\n");
	}
	for (uint32_t i = 0; i < v->pr.nsteps; i++) {
		struct ilog_step_row row, *r = &row;
		const struct ilog_step_op *ops;
		uint32_t n = ilog_stats_step_ops(st, v->pr.node, v->pr.pid, i, &ops);
		/* the steps whose composition is kept; every step with --windows
		 * (the output would otherwise grow with the log) */
		if (!n && !o->windows)
			continue;
		if (ilog_stats_step(st, v->pr.node, v->pr.pid, i, r))
			break;
		bprintf(b, "{\"type\":\"step\"");
		jkv_s(b, "node", node);
		jkv_u(b, "pid", v->pr.pid);
		jkv_u(b, "step", r->step);
		jkv_u(b, "start_ns", r->start_ns);
		jkv_u(b, "end_ns", r->end_ns);
		jkv_u(b, "dur_ns", r->end_ns - r->start_ns);
		jkv_calls(b, r->calls, r->cuda_ns);
		/* [site, calls, ns]: the first steps' and the slowest's */
		for (uint32_t k = 0; k < n; k++)
			bprintf(b, "%s[%u,%u,%llu]", k ? "," : ",\"ops\":[", ops[k].site,
				ops[k].calls, (unsigned long long)ops[k].ns);
		bprintf(b, "%s}\n", n ? "]" : "");
	}
	return b->len && !b->p ? -1 : 0;
}

/* RANKS: per communicator of a multi-rank job, each rank's arrivals; r[i]
 * of the n rows in the table, under its communicator's header where a new
 * one begins, or as a JSON object. */
static void rank_text(struct ilog_buf *b, struct ilog_stats *st, const struct ilog_rank_row *r,
		      int n, int i)
{
	char d1[32], d2[32], d3[32];
	if (!i || r[i].comm != r[i - 1].comm) {
		uint64_t ncoll = 0;
		for (int j = i; j < n && r[j].comm == r[i].comm; j++)
			ncoll = r[j].collectives > ncoll ? r[j].collectives : ncoll;
		bprintf(b, "\nRANKS (communicator %016llx): %u ranks, %llu collectives every "
			"rank reached\n", (unsigned long long)r[i].comm, r[i].nranks,
			(unsigned long long)ncoll);
		bprintf(b, "  %4s %8s  %-16s %11s %6s %10s %10s %10s %9s\n", "RANK", "PID",
			"NODE", "COLLECTIVES", "LAST", "LATE MEAN", "LATE MAX", "HELD UP",
			"STEPS/S");
	}
	if (!r[i].pid) {
		bprintf(b, "  %4u %8s  %-16s (no record of this rank)\n", r[i].rank, "-", "-");
		return;
	}
	bprintf(b, "  %4u %8u  %-16.16s %11llu %6llu %10s %10s %10s %9.1f\n", r[i].rank,
		r[i].pid, node_name_of(st, r[i].node), (unsigned long long)r[i].collectives,
		(unsigned long long)r[i].last, dur(d1, (double)r[i].late_mean_ns),
		dur(d2, (double)r[i].late_max_ns), dur(d3, (double)r[i].held_ns),
		r[i].rate_hz);
}

static void rank_json(struct ilog_buf *b, struct ilog_stats *st, const struct ilog_rank_row *r,
		      int i)
{
	char id[24];
	snprintf(id, sizeof(id), "%016llx", (unsigned long long)r[i].comm);
	bprintf(b, "{\"type\":\"rank\"");
	jkv_s(b, "comm", id);
	jkv_u(b, "nranks", r[i].nranks);
	jkv_u(b, "rank", r[i].rank);
	jkv_s(b, "node", r[i].pid ? node_name_of(st, r[i].node) : "");
	jkv_u(b, "pid", r[i].pid);
	jkv_u(b, "collectives", r[i].collectives);
	jkv_u(b, "last_count", r[i].last);
	jkv_u(b, "late_mean_ns", r[i].late_mean_ns);
	jkv_u(b, "late_max_ns", r[i].late_max_ns);
	jkv_u(b, "held_ns", r[i].held_ns);
	jkv_f(b, "steps_per_s", r[i].rate_hz);
	bprintf(b, "}\n");
}

/* Every rank of every communicator, as text or JSON objects. */
static int ranks_out(struct ilog_buf *b, struct ilog_stats *st, int json)
{
	struct ilog_rank_row *r;
	int n = ilog_stats_ranks(st, &r);
	if (n <= 0)
		return n;
	for (int i = 0; i < n; i++)
		if (json)
			rank_json(b, st, r, i);
		else
			rank_text(b, st, r, n, i);
	free(r);
	return 0;
}

static int call_site(struct ilog_stats *st, const struct ilog_explain_opts *o, struct rows *rw,
		     const struct ilog_chain *c, uint32_t node, char *site, size_t n, double *share,
		     uint64_t *calls)
{
	uint64_t ns, total = 0;
	/* a chain over the whole run names no op: the process's heaviest path */
	if (!o->sites || !c->pid ||
	    !ilog_callsites_top(o->sites, node, c->pid, c->op, site, n, &ns, calls))
		return 0;
	if (!rw->done) {
		rw->n = ilog_stats_rows(st, 1, &rw->r);
		rw->done = 1;
	}
	for (int i = 0; i < rw->n; i++)
		if (rw->r[i].node == node && rw->r[i].pid == c->pid &&
		    (!c->op || rw->r[i].op == c->op))
			total += rw->r[i].total_ns;
	*share = total ? (double)ns / (double)total : 0;
	return 1;
}

static void rows_free(struct rows *rw)
{
	if (rw->n >= 0)
		free(rw->r);
}

int ilog_explain_report(struct ilog_buf *b, struct ilog_stats *st,
			const struct ilog_chain_set *cs, const struct ilog_explain_opts *o)
{
	bprintf(b, "ingero incident report%s%s\n", o->name ? ": " : "", o->name ? o->name : "");
	for (uint32_t i = 0; i < ilog_stats_nnodes(st); i++)
		node_summary(b, st, cs, i);
	if (!ilog_stats_nnodes(st))
		bprintf(b, "  the log holds no CUDA, host or snapshot events\n");
	damage_text(b, st);
	int overlap;
	char ranks[256];
	uint32_t logs = ilog_stats_logs(st, &overlap, ranks, sizeof(ranks));
	if (logs > 1) {
		bprintf(b, "  %u logs, not merged: each is analyzed on its own node's timeline\n", logs);
		if (overlap)
			bprintf(b, "  they were recorded at the same time%s%s%s: merge them first "
				"(ingero merge LOG... | ingero correlate --report) to align their "
				"clocks and see the job as one\n", ranks[0] ? ", as ranks " : "",
				ranks, ranks[0] ? " of one job" : "");
	}
	for (uint32_t i = 0; i < ilog_stats_nnodes(st); i++)
		if (containers_text(b, st, cs, i))
			return -1;
	if (!cs->n) {
		bprintf(b, "\nNo causal chain: nothing material was found (no finding lost 5%% of a "
			"process's CUDA time and 50 ms); the statistics follow.\n");
	} else {
		uint32_t nh = 0, nm = 0;
		for (uint32_t i = 0; i < cs->n; i++)
			nh += cs->chains[i].severity == ILOG_SEV_HIGH,
				nm += cs->chains[i].severity == ILOG_SEV_MEDIUM;
		bprintf(b, "\nCAUSAL CHAINS: %u (%u HIGH, %u MEDIUM, %u LOW), most severe first\n",
			cs->n, nh, nm, cs->n - nh - nm);
	}
	struct rows rw = { 0 };
	for (uint32_t i = 0; i < cs->n; i++) {
		const struct ilog_chain *c = &cs->chains[i];
		char d1[32];
		bprintf(b, "\n#%u %-6s %.*s  PID %u (%.*s)", i + 1, ilog_severity_name(c->severity) ?: "?",
			(int)c->pattern.n, c->pattern.p, c->pid, (int)c->comm.n, c->comm.p);
		if (ilog_stats_nnodes(st) > 1) /* merged logs: say which node */
			for (uint32_t k = 0; k < ilog_stats_nnodes(st); k++) {
				struct ilog_stats_summary sm;
				ilog_stats_summary(st, k, &sm);
				if (sm.node == cs->nodes[i])
					bprintf(b, " on node %s", sm.node_name[0] ? sm.node_name : "?");
			}
		if (c->lost_ns)
			bprintf(b, "  lost %s (%.1f%%)", dur(d1, (double)c->lost_ns), c->score * 100);
		bprintf(b, "\n   %.*s\n", (int)c->title.n, c->title.p);
		bprintf(b, "   Root cause: %.*s.\n", (int)c->root_cause.n, c->root_cause.p);
		char site[512];
		double share;
		uint64_t calls;
		if (call_site(st, o, &rw, c, cs->nodes[i], site, sizeof(site), &share, &calls))
			bprintf(b, "   Called from: %s (%.0f%% of its %s time, %llu calls)\n", site,
				share * 100, c->op ? ilog_op_name(c->op) ?: "?" : "CUDA",
				(unsigned long long)calls);
		bprintf(b, "   Fix: %.*s\n", (int)c->fix.n, c->fix.p);
		bprintf(b, "   Timeline:\n");
		timeline(b, c, o->max_timeline);
	}
	rows_free(&rw);
	uint32_t nn = 0;
	for (uint32_t i = 0; i < cs->nnotes; i++) {
		const struct ilog_chain *c = &cs->notes[i];
		if (ilog_chain_is(c, ILOG_PAT_RECORDING_OVERHEAD))
			continue; /* in the header */
		if (!nn++)
			bprintf(b, "\nNOTES (no findings: how the processes spent their time)\n");
		bprintf(b, "  %.*s  PID %u (%.*s): %.*s\n", (int)c->pattern.n, c->pattern.p, c->pid,
			(int)c->comm.n, c->comm.p, (int)c->title.n, c->title.p);
	}
	if (steps_each(b, st, o, step_text) || ranks_out(b, st, 0) || ilog_explain_stats(b, st, o))
		return -1;
	for (uint32_t i = 0; i < ilog_stats_nnodes(st); i++)
		host_summary(b, st, i);
	return b->len && !b->p ? -1 : 0;
}

/* ---- JSON Lines ---- */
static void row_json(struct ilog_buf *b, const char *type, const struct ilog_stat_row *r, int pp,
		     int win)
{
	bprintf(b, "{\"type\":\"%s\"", type);
	jkv_s(b, "node", r->node_name);
	if (pp) {
		jkv_u(b, "pid", r->pid);
		jkv_s(b, "comm", r->comm);
	}
	jkv_s(b, "layer", ilog_layer_name(r->layer));
	jkv_s(b, "op", ilog_op_name(r->op));
	if (win) {
		jkv_u(b, "start_ns", r->start_ns);
		jkv_u(b, "end_ns", r->end_ns);
	}
	jkv_u(b, "count", r->count);
	jkv_u(b, "total_ns", r->total_ns);
	jkv_f(b, win ? "busy_frac" : "wall_frac", r->frac);
	jkv_u(b, "min_ns", r->min_ns);
	jkv_u(b, "p50_ns", r->p50_ns);
	jkv_u(b, "p95_ns", r->p95_ns);
	jkv_u(b, "p99_ns", r->p99_ns);
	jkv_u(b, "max_ns", r->max_ns);
	if (!win) {
		jkv_u(b, "bytes", r->bytes);
		jkv_u(b, "errors", r->errors);
	}
	bprintf(b, "}\n");
}

static int chain_json(struct ilog_buf *b, struct ilog_stats *st, const char *type,
		      const struct ilog_chain *c, uint32_t node, uint32_t rank);

int ilog_explain_chain_json(struct ilog_buf *b, struct ilog_stats *st,
			    const struct ilog_chain *c, uint32_t node, uint32_t rank)
{
	return chain_json(b, st, "chain", c, node, rank);
}

static int chain_json(struct ilog_buf *b, struct ilog_stats *st, const char *type,
		      const struct ilog_chain *c, uint32_t node, uint32_t rank)
{
	const char *nn = "";
	for (uint32_t i = 0; i < ilog_stats_nnodes(st); i++) {
		struct ilog_stats_summary s;
		ilog_stats_summary(st, i, &s);
		if (s.node == node)
			nn = s.node_name;
	}
	bprintf(b, "{\"type\":\"%s\",\"rank\":%u,\"id\":\"0x%llx\"", type, rank,
		(unsigned long long)c->id);
	jkv_s(b, "severity", ilog_severity_name(c->severity));
	bprintf(b, ",\"pattern\":");
	jstr(b, c->pattern.p, c->pattern.n);
	jkv_s(b, "node", nn);
	jkv_u(b, "pid", c->pid);
	bprintf(b, ",\"comm\":");
	jstr(b, c->comm.p, c->comm.n);
	jkv_s(b, "op", ilog_op_name(c->op));
	jkv_u(b, "culprit_pid", c->culprit_pid);
	bprintf(b, ",\"culprit_comm\":");
	jstr(b, c->culprit_comm.p, c->culprit_comm.n);
	jkv_u(b, "ts_start", c->ts_start);
	jkv_u(b, "ts_end", c->ts_end);
	jkv_u(b, "lost_ns", c->lost_ns);
	jkv_f(b, "score", c->score);
	bprintf(b, ",\"title\":");
	jstr(b, c->title.p, c->title.n);
	bprintf(b, ",\"root_cause\":");
	jstr(b, c->root_cause.p, c->root_cause.n);
	bprintf(b, ",\"fix\":");
	jstr(b, c->fix.p, c->fix.n);
	bprintf(b, ",\"evidence\":%.*s,\"metrics\":%.*s}", (int)c->evidence.n, c->evidence.p,
		(int)(c->metrics.n ? c->metrics.n : 2), c->metrics.n ? c->metrics.p : "{}");
	return b->len && !b->p ? -1 : 0;
}

int ilog_explain_json(struct ilog_buf *b, struct ilog_stats *st,
		      const struct ilog_chain_set *cs, const struct ilog_explain_opts *o)
{
	int overlap;
	char ranks[256];
	uint32_t logs = ilog_stats_logs(st, &overlap, ranks, sizeof(ranks));
	for (uint32_t i = 0; i < ilog_stats_nnodes(st); i++) {
		struct ilog_stats_summary s;
		ilog_stats_summary(st, i, &s);
		bprintf(b, "{\"type\":\"summary\"");
		if (logs > 1) { /* several logs, not merged: each node its own */
			jkv_u(b, "logs", logs);
			bprintf(b, ",\"logs_overlap\":%s", overlap ? "true" : "false");
		}
		jkv_s(b, "node", s.node_name);
		jkv_u(b, "start_ns", s.start_ns);
		jkv_u(b, "end_ns", s.end_ns);
		jkv_u(b, "duration_ns", s.end_ns > s.start_ns ? s.end_ns - s.start_ns : 0);
		jkv_u(b, "real_start_ns", s.real_start_ns);
		jkv_u(b, "window_ns", s.window_ns);
		jkv_u(b, "windows", s.nwindows);
		jkv_u(b, "records", s.records);
		jkv_u(b, "cuda_events", s.cuda);
		jkv_u(b, "host_events", s.host);
		jkv_u(b, "snapshots", s.snapshots);
		jkv_u(b, "unknown_records", s.unknown);
		jkv_u(b, "processes", s.processes);
		jkv_u(b, "lost", s.lost);
		jkv_u(b, "chains", cs ? cs->n : 0);
		jkv_u(b, "notes", cs ? cs->nnotes : 0);
		const struct ilog_chain *ov = note_of(cs, s.node, ILOG_PAT_RECORDING_OVERHEAD);
		jkv_u(b, "recording_overhead_ns", ov ? ov->lost_ns : 0);
		jkv_f(b, "recording_overhead_share", ov ? ov->score : 0);
		if (s.nsnaps) {
			jkv_f(b, "cpu_pct_avg", s.cpu_avg);
			jkv_f(b, "cpu_pct_max", s.cpu_max);
			jkv_f(b, "load1_max", s.load1_max);
			jkv_u(b, "ncpu", s.ncpu);
			jkv_u(b, "mem_total", s.mem_total);
			jkv_u(b, "mem_avail_min", s.mem_avail_min);
			jkv_u(b, "swap_total", s.swap_total);
			jkv_u(b, "swap_used_max", s.swap_used_max);
			jkv_u(b, "swap_used_growth", s.swap_used_growth);
		}
		bprintf(b, "}\n");
		if (containers_json(b, st, i))
			return -1;
	}
	const char *in;
	const struct ilog_damage *d;
	for (uint32_t i = 0; (d = ilog_stats_damage(st, i, &in)); i++) {
		bprintf(b, "{\"type\":\"damage\"");
		jkv_s(b, "input", in);
		jkv_u(b, "offset", d->off);
		jkv_u(b, "bytes", d->bytes);
		if (d->records >= 0)
			jkv_u(b, "records_lost", (uint64_t)d->records);
		bprintf(b, "}\n");
	}
	if (ranks_out(b, st, 1))
		return -1;
	for (int w = 0; w <= (o->windows ? 1 : 0); w++) {
		struct ilog_stat_row *rows;
		int n = w ? ilog_stats_window_rows(st, o->per_process, &rows)
			  : ilog_stats_rows(st, o->per_process, &rows);
		if (n < 0)
			return -1;
		for (int i = 0; i < n; i++)
			row_json(b, w ? "window" : "stat", &rows[i], o->per_process, w);
		free(rows);
	}
	if (steps_each(b, st, o, step_json))
		return -1;
	struct rows rw = { 0 };
	for (uint32_t i = 0; cs && i < cs->n; i++) {
		const struct ilog_chain *c = &cs->chains[i];
		if (ilog_explain_chain_json(b, st, c, cs->nodes[i], i + 1)) {
			rows_free(&rw);
			return -1;
		}
		char site[512];
		double share;
		uint64_t calls;
		if (b->len &&
		    call_site(st, o, &rw, c, cs->nodes[i], site, sizeof(site), &share, &calls)) {
			b->len--; /* reopen the chain object */
			bprintf(b, ",\"call_site\":");
			jstr(b, site, strlen(site));
			jkv_f(b, "call_site_share", share);
			jkv_u(b, "call_site_calls", calls);
			bprintf(b, "}");
		}
		ilog_buf_put(b, "\n", 1);
	}
	rows_free(&rw);
	for (uint32_t i = 0; cs && i < cs->nnotes; i++) {
		if (chain_json(b, st, "note", &cs->notes[i], cs->note_nodes[i], i + 1))
			return -1;
		ilog_buf_put(b, "\n", 1);
	}
	return b->len && !b->p ? -1 : 0;
}
