// SPDX-License-Identifier: MIT
/*
 * The causal engine (causal.h).  Detectors run per process over the
 * finished statistics; each proposes candidate chains with the time it
 * estimates was lost, and the candidates are deduplicated, graded and
 * ranked.  Every number a root-cause sentence quotes is also written to
 * the chain's metrics object under a stable key, computed over the
 * chain's [ts_start, ts_end) interval so it can be checked against the log.
 *
 * This file is the engine: the candidates, the per-process driver that
 * prepares what the detectors share and runs them, the ranking and the
 * chains.  The detectors are lib/analyze/detect_*.c; what they share is
 * causal_int.h (formatting and metrics: causal_fmt.c, host signals:
 * causal_sig.c, a series' baseline, cold calls and anomalous intervals:
 * causal_series.c, the slow calls of a series - breaks, rhythm, isolated
 * stalls: causal_stalls.c).
 *
 * To add a detector: write lib/analyze/detect_NAME.c with one function of
 * the struct causal_detector type (its scope says what it is given: each
 * series as it is, each analyzed series, each process, each node) that
 * proposes chains with causal_cand_new, ending in its descriptor
 * causal_detector_NAME; then add the line X(NAME) to the table in
 * lib/analyze/detectors.c, where its position is its turn to run.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "ingero/buf.h"
#include "ingero/causal.h"
#include "ingero/hash.h"
#include "causal_int.h"

/* ---- candidates ---- */
struct cand *causal_cand_new(struct ctx *x, const struct sproc *p, enum ilog_pattern pattern,
			     uint16_t op, uint64_t a, uint64_t b, uint64_t lost)
{
	if (ilog_grow((void **)&x->c, &x->cap, x->n, sizeof(*x->c), 16)) {
		x->oom = 1;
		return NULL;
	}
	struct cand *c = &x->c[x->n++];
	memset(c, 0, sizeof(*c));
	c->node = x->nd->idx;
	c->pid = p ? p->pid : 0;
	c->op = op;
	c->forced = -1;
	c->pattern = pattern;
	c->ts_start = a;
	c->ts_end = b;
	c->lost = lost;
	c->wall = p ? causal_proc_wall(p) : 1;
	c->span = x->nd->last_ts > x->nd->t0 ? x->nd->last_ts - x->nd->t0 : 1;
	if (c->span < c->wall)
		c->span = c->wall;
	c->floor = ILOG_SEV_FLOOR_CALLS * (p ? causal_typical(x, p, op) : 0);
	cpy(c->comm, sizeof(c->comm), p ? ilog_stats_comm(x->st, x->nd->idx, p->pid) : "");
	causal_met_u(c, "t0_ns", x->nd->t0);
	causal_met_u(c, "window_ns", x->nd->width);
	if (p)
		causal_met_u(c, "wall_ns", c->wall);
	return c;
}

int causal_grade(uint64_t lost, uint64_t wall, uint64_t span, uint64_t floor)
{
	double impact = (double)lost / (double)(wall ? wall : 1);
	double of_span = (double)lost / (double)(span ? span : 1);
	if (impact < ILOG_MATERIAL_SHARE || (double)lost < ILOG_MATERIAL_NS)
		return -1; /* not material: a statistic, not a chain */
	if (impact >= ILOG_SEV_HIGH_IMPACT && of_span >= ILOG_SEV_HIGH_SPAN && lost >= floor)
		return ILOG_SEV_HIGH;
	if (impact >= ILOG_SEV_MEDIUM_IMPACT && of_span >= ILOG_SEV_MEDIUM_SPAN && lost >= floor)
		return ILOG_SEV_MEDIUM;
	return ILOG_SEV_LOW;
}

int causal_severity(const struct cand *c)
{
	if (c->forced >= 0)
		return c->forced;
	return causal_grade(c->lost > c->spread ? c->lost - c->spread : 0, c->wall, c->span, c->floor);
}

uint64_t causal_typical(struct ctx *x, const struct sproc *p, uint16_t op)
{
	const struct sseries *best = NULL;
	for (uint32_t i = p->ser; i; i = x->st->ser[i - 1]->next) { /* its series */
		const struct sseries *s = x->st->ser[i - 1];
		if (!s->n)
			continue;
		if (op != ILOG_OP_UNKNOWN && s->op == op) {
			best = s;
			break;
		}
		if (!best || s->n > best->n)
			best = s;
	}
	struct dhist h;
	if (!best)
		return 0;
	if (ilog_dhist_series(&h, best, 0, best->nt, NULL, 0)) { /* nt: every tick */
		x->oom = 1;
		return 0;
	}
	uint64_t med = ilog_dhist_quantile(&h, 0.5);
	ilog_dhist_free(&h);
	return med;
}

void causal_ev_add(struct ctx *x, struct cand *c, uint64_t ts, const char *f, ...)
{
	(void)x;
	if (c->nev == sizeof(c->ev) / sizeof(c->ev[0]))
		return;
	va_list ap;
	va_start(ap, f);
	vsnprintf(c->ev[c->nev].what, sizeof(c->ev[0].what), f, ap);
	va_end(ap);
	c->ev[c->nev++].ts = ts;
}

/* ---- the detectors, per scope ---- */
static void run_scope(struct ctx *x, enum causal_scope scope, struct causal_proc *pc,
		      const struct causal_series *sc)
{
	for (uint32_t i = 0; i < causal_ndetectors; i++)
		if (causal_detectors[i]->scope == scope)
			causal_detectors[i]->run(x, pc, sc);
}

/*
 * One process: each of its series to the detectors of every series, and
 * one with enough calls, once its baseline, cold calls and anomalous
 * intervals are known, to those of analyzed series; then the process to
 * the process detectors.
 */
static void analyze_proc(struct ctx *x, struct sproc *p)
{
	struct causal_proc pc = { .p = p };
	pc.ser = malloc((p->nser ? p->nser : 1) * sizeof(*pc.ser));
	uint8_t *hot = calloc(x->T, 1), *inany = calloc(x->T, 1), *hide = calloc(x->T, 1);
	pc.cl = calloc(p->nser ? p->nser : 1, sizeof(*pc.cl));
	pc.lo = tick_at(x, p->first_ts);
	pc.hi = tick_at(x, p->last_end) + 1;
	if (!pc.ser || !hot || !inany || !hide || !pc.cl ||
	    causal_sig_build(x, p, &pc.g, pc.lo, pc.hi)) {
		x->oom = 1;
		goto out;
	}
	for (uint32_t i = p->ser; i; i = x->st->ser[i - 1]->next)
		pc.ser[pc.ns++] = x->st->ser[i - 1];
	pc.before = x->n;
	for (uint32_t i = 0; i < pc.ns && !x->oom; i++) {
		struct causal_series sc = { .s = pc.ser[i], .hot = hot, .inany = inany,
					    .hide = hide };
		run_scope(x, CAUSAL_SERIES_ALL, &pc, &sc);
		if (sc.s->n < 3 || is_graph_setup(sc.s->op))
			continue;
		if (causal_series_begin(x, &pc, &sc)) {
			x->oom = 1;
			break;
		}
		if (sc.s->n >= ILOG_MIN_SERIES) {
			if (causal_series_anomalies(x, &pc, &sc)) {
				x->oom = 1;
				ilog_dhist_free(&sc.bs.all);
				break;
			}
			run_scope(x, CAUSAL_SERIES_ANALYZED, &pc, &sc);
		}
		ilog_dhist_free(&sc.bs.all);
	}
	run_scope(x, CAUSAL_PROCESS, &pc, NULL);
out:
	causal_sig_free(&pc.g);
	free(pc.ser);
	free(hot);
	free(inany);
	free(hide);
	free(pc.cl);
}

/* ---- short-lived processes that behave alike: one finding ---- */
static int cmp_lost_idx(const void *pa, const void *pb, void *base)
{
	const struct cand *cb = base;
	uint64_t a = cb[*(const uint32_t *)pa].lost, b = cb[*(const uint32_t *)pb].lost;
	return a < b ? -1 : a > b;
}

static int short_lived(const struct cand *c)
{
	return c->pid && !c->fatal && !c->info && !c->dead &&
	       (double)c->wall < ILOG_GROUP_SHORT * (double)c->span;
}

static int alike(const struct cand *a, const struct cand *b)
{
	return a->node == b->node && a->op == b->op && a->pattern == b->pattern &&
	       !strcmp(a->comm, b->comm);
}

/*
 * The chains of >= ILOG_GROUP_MIN short-lived processes (CUDA wall time
 * under ILOG_GROUP_SHORT of the recording) of one program with the same
 * pattern and op become one chain about the group.  It is graded as its
 * typical member (the median loss): twenty processes that each lost a
 * little are one note that says so, not twenty alarms, and not one alarm
 * for their sum.
 */
static void group_alike(struct ctx *x, uint32_t *idx)
{
	uint32_t n0 = x->n;
	for (uint32_t i = 0; i < n0 && !x->oom; i++) {
		if (!short_lived(&x->c[i]))
			continue;
		uint32_t m = 0;
		for (uint32_t j = i; j < n0; j++) {
			if (!short_lived(&x->c[j]) || !alike(&x->c[i], &x->c[j]))
				continue;
			/* one member per process: its costliest chain */
			uint32_t k;
			for (k = 0; k < m && x->c[idx[k]].pid != x->c[j].pid; k++)
				;
			if (k == m)
				idx[m++] = j;
			else if (x->c[j].lost > x->c[idx[k]].lost)
				idx[k] = j;
		}
		uint32_t procs = m;
		if (procs < ILOG_GROUP_MIN)
			continue;
		qsort_r(idx, m, sizeof(*idx), cmp_lost_idx, x->c);
		uint64_t total = 0, wall = 0, a = UINT64_MAX, b = 0;
		uint32_t same_culprit = 1;
		for (uint32_t k = 0; k < m; k++) {
			const struct cand *c = &x->c[idx[k]];
			total += c->lost, wall += c->wall;
			a = c->ts_start < a ? c->ts_start : a;
			b = c->ts_end > b ? c->ts_end : b;
			same_culprit &= c->culprit == x->c[idx[0]].culprit;
		}
		uint32_t mid = idx[m / 2];
		x->nd = ilog_stats_node(x->st, x->c[mid].node);
		const struct sproc *p = ilog_stats_proc(x->st, x->c[mid].node, x->c[mid].pid);
		int grade = causal_severity(&x->c[mid]); /* forced or graded, as the member */
		struct cand *g = causal_cand_new(x, p, x->c[mid].pattern, x->c[mid].op, a, b, total);
		if (!g)
			return;
		const struct cand *t = &x->c[mid]; /* after the realloc */
		g->forced = grade;
		if (grade < 0) /* the typical member lost nothing material */
			g->dead = 1;
		g->wall = wall;
		if (same_culprit) {
			g->culprit = t->culprit;
			cpy(g->ccomm, sizeof(g->ccomm), t->ccomm);
		}
		char pids[160];
		size_t l = 0;
		for (uint32_t k = 0; k < m && k < 8; k++) /* 8 x 12 < sizeof(pids) */
			l += (size_t)snprintf(pids + l, sizeof(pids) - l, "%s%u%s", k ? ", " : "",
					      x->c[idx[k]].pid, k == 7 && m > 8 ? ", ..." : "");
		const char *by = g->culprit ? causal_fmt(x, " (%s, PID %u)", g->ccomm, g->culprit) : "";
		if (!total) /* a finding that costs no time (gpu-bound): only alike */
			snprintf(g->title, sizeof(g->title), "%u short-lived processes of %s, each %s%s",
				 procs, t->comm, patn(t->pattern), by);
		else
			snprintf(g->title, sizeof(g->title),
				 "%u short-lived processes of %s each lost about %s to %s%s", procs,
				 t->comm, D(x, (double)t->lost), patn(t->pattern), by);
		int l0 = snprintf(g->root, sizeof(g->root), "%u short-lived processes of %s (PIDs %s) ",
				  procs, t->comm, pids);
		if (total)
			l0 += snprintf(g->root + l0, sizeof(g->root) - (size_t)l0,
				       "each lost about %s to %s (from %s to %s, %s in all, %s of their "
				       "%s of CUDA time)",
				       D(x, (double)t->lost), patn(t->pattern),
				       D(x, (double)x->c[idx[0]].lost), D(x, (double)x->c[idx[m - 1]].lost),
				       D(x, (double)total), P(x, (double)total / (double)wall),
				       D(x, (double)wall));
		else
			l0 += snprintf(g->root + l0, sizeof(g->root) - (size_t)l0,
				       "are alike: %s in each", patn(t->pattern));
		snprintf(g->root + l0, sizeof(g->root) - (size_t)l0, "; the typical one: %.900s", t->root);
		cpy(g->fix, sizeof(g->fix), t->fix);
		causal_met_u(g, "processes", procs);
		causal_met_u(g, "lost_median_ns", t->lost);
		causal_met_u(g, "lost_min_ns", x->c[idx[0]].lost);
		causal_met_u(g, "lost_max_ns", x->c[idx[m - 1]].lost);
		causal_met_u(g, "lost_total_ns", total);
		causal_met_u(g, "group_wall_ns", wall);
		for (uint32_t k = 0; k < m; k++) {
			struct cand *c = &x->c[idx[k]];
			causal_ev_add(x, g, c->ts_start, "PID %u: %s", c->pid, c->title);
		}
		/* every alike chain of these processes is the group's now */
		for (uint32_t j = 0; j < n0; j++)
			for (uint32_t k = 0; k < m; k++)
				if (short_lived(&x->c[j]) && alike(&x->c[j], t) &&
				    x->c[j].pid == x->c[idx[k]].pid)
					x->c[j].dead = 1;
	}
}

/* ---- ranking and output ---- */
static int overlap(const struct cand *a, const struct cand *b)
{
	return a->ts_start < b->ts_end && b->ts_start < a->ts_end;
}

static int cmp_rank(const void *pa, const void *pb, void *base)
{
	const struct cand *cb = base;
	const struct cand *a = &cb[*(const uint32_t *)pa], *b = &cb[*(const uint32_t *)pb];
	int sa = causal_severity(a), sb = causal_severity(b);
	if (a->info != b->info) /* the cost of observing comes after the findings */
		return a->info ? 1 : -1;
	if (sa != sb)
		return sa > sb ? -1 : 1;
	if (a->fatal != b->fatal)
		return a->fatal ? -1 : 1;
	if (a->lost != b->lost)
		return a->lost > b->lost ? -1 : 1;
	return a->ts_start < b->ts_start ? -1 : a->ts_start > b->ts_start;
}

static char *keep(struct ilog_chain_set *cs, const char *s, size_t n)
{
	char **m = realloc(cs->mem, (cs->nmem + 1) * sizeof(*m));
	if (!m)
		return NULL;
	cs->mem = m;
	char *d = malloc(n + 1);
	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = 0;
	cs->mem[cs->nmem++] = d;
	return d;
}

static int kstr(struct ilog_chain_set *cs, struct ilog_str *dst, const char *s, size_t n)
{
	char *d = keep(cs, s ? s : "", s ? n : 0);
	if (!d)
		return -1;
	*dst = (struct ilog_str){ d, (uint32_t)(s ? n : 0) };
	return 0;
}

/* The timeline as a JSON array, in time order (stable). */
static void ev_render(struct ctx *x, struct cand *c, struct ilog_buf *b)
{
	for (uint32_t i = 1; i < c->nev; i++)
		for (uint32_t j = i; j > 0 && c->ev[j].ts < c->ev[j - 1].ts; j--) {
			__typeof__(c->ev[0]) t = c->ev[j];
			c->ev[j] = c->ev[j - 1];
			c->ev[j - 1] = t;
		}
	ilog_buf_put(b, "[", 1);
	for (uint32_t i = 0; i < c->nev; i++) {
		char t[64];
		int n = snprintf(t, sizeof(t), "%s{\"ts_ns\":%llu,\"t\":", i ? "," : "",
				 (unsigned long long)c->ev[i].ts);
		ilog_buf_put(b, t, (size_t)n);
		json_str(b, R(x, c->ev[i].ts));
		ilog_buf_put(b, ",\"what\":", 8);
		json_str(b, c->ev[i].what);
		ilog_buf_put(b, "}", 1);
	}
	ilog_buf_put(b, "]", 1);
}

static uint64_t chain_id(const struct cand *c, uint64_t salt)
{
	/* stable across runs of the same log: FNV-1a over what identifies it,
	 * salted with the chains already in the input so that correlating a
	 * correlated log again keeps ids unique in it (SPEC §7.5) */
	uint64_t h = ILOG_FNV64_INIT;
	uint64_t parts[6] = { c->node, c->pid, c->op, c->ts_start, c->culprit, salt };
	for (int i = 0; i < 6; i++)
		h = ilog_fnv1a_u64(h, parts[i]);
	h = ilog_fnv1a(h, patn(c->pattern), strlen(patn(c->pattern)));
	return h ? h : 1;
}

/*
 * The container of a chain's culprit when it is not the victim's (a
 * neighbour's), for every detector alike: its label as reports name it
 * (culprit_container), its pod UID and container id in full and its cgroup
 * path, from the culprit's process record.
 */
static void culprit_container(struct ctx *x, struct cand *c)
{
	const struct sproc *p = c->culprit ? ilog_stats_proc(x->st, c->node, c->culprit) : NULL;
	if (!p || !ilog_stats_other_container(x->st, c->node, c->culprit, c->pid)[0])
		return;
	causal_met_s(c, "culprit_container", p->ctr);
	if (p->pod[0])
		causal_met_s(c, "culprit_pod_uid", p->pod);
	if (p->cid[0])
		causal_met_s(c, "culprit_container_id", p->cid);
	if (p->cgroup[0])
		causal_met_s(c, "culprit_cgroup", p->cgroup);
}

/* A ranked candidate as a chain (or note) of cs. */
static int emit(struct ctx *x, struct ilog_chain_set *cs, struct cand *c, struct ilog_chain *o)
{
	struct ilog_buf ev = { 0 };
	ev_render(x, c, &ev);
	causal_met_f(c, "impact", (double)c->lost / (double)c->wall);
	causal_met_u(c, "recording_ns", c->span);
	causal_met_u(c, "severity_floor_ns", c->floor);
	if (c->spread)
		causal_met_u(c, "spread_ns", c->spread);
	culprit_container(x, c);
	ilog_buf_put(&c->met, "}", 1);
	o->id = chain_id(c, x->st->chains_in);
	o->ts_start = c->ts_start;
	o->ts_end = c->ts_end;
	o->severity = (uint32_t)causal_severity(c);
	o->pid = c->pid;
	o->op = c->op;
	o->score = (double)c->lost / (double)c->wall;
	if (o->score > 1) /* concurrent threads can lose more than the wall time */
		o->score = 1;
	o->culprit_pid = c->culprit;
	o->lost_ns = c->lost;
	int rc = kstr(cs, &o->pattern, patn(c->pattern), strlen(patn(c->pattern))) ||
		 kstr(cs, &o->title, c->title, strlen(c->title)) ||
		 kstr(cs, &o->root_cause, c->root, strlen(c->root)) ||
		 kstr(cs, &o->fix, c->fix, strlen(c->fix)) || kstr(cs, &o->evidence, ev.p, ev.len) ||
		 kstr(cs, &o->comm, c->comm, strlen(c->comm)) ||
		 kstr(cs, &o->culprit_comm, c->ccomm, strlen(c->ccomm)) ||
		 kstr(cs, &o->metrics, c->met.p, c->met.len);
	ilog_buf_free(&ev);
	return rc ? -1 : 0;
}

int ilog_causal_run(struct ilog_stats *st, struct ilog_chain_set *cs, char *err, size_t errlen)
{
	memset(cs, 0, sizeof(*cs));
	struct ctx x = { .st = st };
	for (uint32_t i = 0; i < st->nnodes && !x.oom; i++) {
		x.nd = &st->nodes[i];
		x.T = x.nd->nticks ? x.nd->nticks : 1;
		for (uint32_t j = 0; j < st->nprocs && !x.oom; j++)
			if (st->procs[j]->node == x.nd->idx && st->procs[j]->ncalls)
				analyze_proc(&x, st->procs[j]);
		run_scope(&x, CAUSAL_NODE, NULL, NULL);
	}
	if (!x.oom && st->nnodes)
		run_scope(&x, CAUSAL_JOB, NULL, NULL);
	/* one chain per (node, pid, pattern, culprit) and overlapping time: the costliest */
	for (uint32_t i = 0; i < x.n; i++)
		for (uint32_t j = 0; j < x.n; j++) {
			struct cand *a = &x.c[i], *b = &x.c[j];
			if (i == j || a->dead || b->dead || a->node != b->node || a->pid != b->pid ||
			    a->pattern != b->pattern || a->culprit != b->culprit || !overlap(a, b))
				continue;
			if (b->lost > a->lost || (b->lost == a->lost && j < i))
				a->dead = 1;
		}
	/* "the GPU got slower" is not credible while a host cause hit the same process */
	for (uint32_t i = 0; i < x.n; i++) {
		struct cand *a = &x.c[i];
		if (a->pattern != ILOG_PAT_GPU_SLOW)
			continue;
		for (uint32_t j = 0; j < x.n && !a->dead; j++) {
			const struct cand *b = &x.c[j];
			if (!b->dead && causal_severity(b) >= 0 && b->node == a->node &&
			    b->pid == a->pid && overlap(a, b) && ilog_patterns[b->pattern].host)
				a->dead = 1;
		}
	}
	/* whatever a detector proposed: neither the victim nor the recorder is
	 * ever a chain's culprit */
	for (uint32_t i = 0; i < x.n; i++) {
		struct cand *c = &x.c[i];
		x.nd = ilog_stats_node(st, c->node);
		if (c->culprit && (c->culprit == c->pid || causal_is_recorder(&x, c->culprit))) {
			c->culprit = 0;
			c->ccomm[0] = 0;
		}
	}
	uint32_t *grp = malloc((x.n ? x.n : 1) * sizeof(*grp));
	if (grp)
		group_alike(&x, grp);
	else
		x.oom = 1;
	free(grp);
	uint32_t *ord = malloc((x.n ? x.n : 1) * sizeof(*ord)), m = 0;
	if (!ord)
		x.oom = 1;
	for (uint32_t i = 0; ord && i < x.n; i++)
		if (!x.c[i].dead && causal_severity(&x.c[i]) >= 0)
			ord[m++] = i;
	if (ord && m)
		qsort_r(ord, m, sizeof(*ord), cmp_rank, x.c);
	uint32_t nnote = 0;
	for (uint32_t r = 0; r < m; r++)
		nnote += x.c[ord[r]].info;
	if (!x.oom && m) {
		cs->chains = calloc(m - nnote ? m - nnote : 1, sizeof(*cs->chains));
		cs->nodes = calloc(m - nnote ? m - nnote : 1, sizeof(*cs->nodes));
		cs->notes = calloc(nnote ? nnote : 1, sizeof(*cs->notes));
		cs->note_nodes = calloc(nnote ? nnote : 1, sizeof(*cs->note_nodes));
		if (!cs->chains || !cs->nodes || !cs->notes || !cs->note_nodes)
			x.oom = 1;
	}
	for (uint32_t r = 0; !x.oom && r < m; r++) {
		struct cand *c = &x.c[ord[r]];
		struct ilog_chain *o = c->info ? &cs->notes[cs->nnotes] : &cs->chains[cs->n];
		x.nd = ilog_stats_node(st, c->node);
		if (emit(&x, cs, c, o)) {
			x.oom = 1;
			break;
		}
		if (c->info)
			cs->note_nodes[cs->nnotes++] = c->node;
		else
			cs->nodes[cs->n++] = c->node;
	}
	for (uint32_t i = 0; i < x.n; i++)
		ilog_buf_free(&x.c[i].met);
	free(x.c);
	free(ord);
	if (x.oom) {
		ilog_chain_set_free(cs);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

void ilog_chain_set_free(struct ilog_chain_set *cs)
{
	for (uint32_t i = 0; i < cs->nmem; i++)
		free(cs->mem[i]);
	free(cs->mem);
	free(cs->chains);
	free(cs->nodes);
	free(cs->notes);
	free(cs->note_nodes);
	memset(cs, 0, sizeof(*cs));
}
