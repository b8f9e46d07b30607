// SPDX-License-Identifier: MIT
/* The regression gate (gate.h): per-op quantiles and new chains, two runs. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ingero/gate.h"
#include "stats_int.h"
#include "thresholds.h"

static int same_key(const struct ilog_stat_row *a, const struct ilog_stat_row *b, int pp)
{
	return a->layer == b->layer && a->op == b->op && (!pp || !strcmp(a->comm, b->comm));
}

/* Calls of the run's op (and process name) whose duration is above thr. */
static uint64_t calls_above(struct ilog_stats *st, const struct ilog_stat_row *r, int pp,
			    uint64_t thr)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < st->nser; i++) {
		const struct sseries *s = st->ser[i];
		if (s->op != r->op || s->layer != r->layer)
			continue;
		if (pp && strcmp(ilog_stats_comm(st, s->node, s->pid), r->comm))
			continue;
		n += ilog_series_above(s, 0, s->nt, thr);
	}
	return n;
}

/* The op's chunk quantiles (p99, or p50) in one run's chunk rows, of the
 * row's node, into v[ILOG_GATE_CHUNKS]; their number. */
static uint32_t chunk_q(const struct ilog_stat_row *w, int n, const struct ilog_stat_row *r,
			int pp, int p50, double *v)
{
	uint32_t m = 0;
	for (int i = 0; i < n && m < ILOG_GATE_CHUNKS; i++)
		if (w[i].node == r->node && same_key(&w[i], r, pp))
			v[m++] = (double)(p50 ? w[i].p50_ns : w[i].p99_ns);
	return m;
}

/* The p of the new run's chunk quantiles lying above the old run's; the
 * chunks of each run in r->chunks_old, r->chunks_new. */
static double shift_p(const struct ilog_stat_row *wo, int nwo, const struct ilog_stat_row *wn,
		      int nwn, struct ilog_gate_row *r, int pp, int p50)
{
	double x[ILOG_GATE_CHUNKS], y[ILOG_GATE_CHUNKS];
	r->chunks_old = chunk_q(wo, nwo, &r->old, pp, p50, x);
	r->chunks_new = chunk_q(wn, nwn, &r->cur, pp, p50, y);
	return ilog_ranksum_p(x, r->chunks_old, y, r->chunks_new);
}

static int chain_key_eq(const struct ilog_chain *a, const struct ilog_chain *b)
{
	return a->op == b->op && a->pattern.n == b->pattern.n &&
	       !memcmp(a->pattern.p, b->pattern.p, a->pattern.n) && a->comm.n == b->comm.n &&
	       !memcmp(a->comm.p, b->comm.p, a->comm.n);
}

int ilog_gate_compare(struct ilog_stats *old, const struct ilog_chain_set *cold,
		      struct ilog_stats *cur, const struct ilog_chain_set *ccur,
		      double threshold, int pp, struct ilog_gate *g)
{
	memset(g, 0, sizeof(*g));
	g->threshold = threshold;
	struct ilog_stat_row *ro = NULL, *rn = NULL, *wo = NULL, *wn = NULL;
	int no = ilog_stats_rows(old, pp, &ro), nn = ilog_stats_rows(cur, pp, &rn);
	int nwo = ilog_stats_chunk_rows(old, pp, ILOG_GATE_CHUNKS, &wo);
	int nwn = ilog_stats_chunk_rows(cur, pp, ILOG_GATE_CHUNKS, &wn);
	if (no < 0 || nn < 0 || nwo < 0 || nwn < 0)
		goto oom;
	g->rows = calloc((size_t)(no + nn) + 1, sizeof(*g->rows));
	if (!g->rows)
		goto oom;
	/* rows are per node; runs are compared per op across nodes' first match */
	for (int i = 0; i < nn; i++) {
		struct ilog_gate_row *r = NULL;
		for (uint32_t j = 0; j < g->n; j++)
			if (same_key(&g->rows[j].cur, &rn[i], pp))
				r = &g->rows[j];
		if (r)
			continue; /* later nodes of a merged log: the first row stands */
		r = &g->rows[g->n++];
		r->layer = rn[i].layer;
		r->op = rn[i].op;
		r->comm = rn[i].comm;
		r->cur = rn[i];
		r->in_new = 1;
	}
	for (int i = 0; i < no; i++) {
		struct ilog_gate_row *r = NULL;
		for (uint32_t j = 0; j < g->n; j++)
			if ((g->rows[j].in_new && same_key(&g->rows[j].cur, &ro[i], pp)) ||
			    (!g->rows[j].in_new && same_key(&g->rows[j].old, &ro[i], pp)))
				r = &g->rows[j];
		if (r && r->in_old)
			continue;
		if (!r) {
			r = &g->rows[g->n++];
			r->layer = ro[i].layer;
			r->op = ro[i].op;
			r->comm = ro[i].comm;
		}
		r->old = ro[i];
		r->in_old = 1;
	}
	uint32_t nboth = 0;
	for (uint32_t j = 0; j < g->n; j++)
		nboth += g->rows[j].in_old && g->rows[j].in_new;
	for (uint32_t j = 0; j < g->n; j++) {
		struct ilog_gate_row *r = &g->rows[j];
		if (!r->in_old || !r->in_new)
			continue;
		r->d_p50 = r->old.p50_ns ? (double)r->cur.p50_ns / (double)r->old.p50_ns - 1 : 0;
		r->d_p99 = r->old.p99_ns ? (double)r->cur.p99_ns / (double)r->old.p99_ns - 1 : 0;
		double alpha = ILOG_FAMILY_ALPHA / (2.0 * nboth);
		uint64_t lim = ilog_sat_u64((double)r->old.p99_ns * (1 + threshold));
		r->above = calls_above(cur, &r->cur, pp, lim);
		r->p_shift = shift_p(wo, nwo, wn, nwn, r, pp, 0);
		if (r->d_p99 > threshold && ilog_chernoff(r->cur.count, r->above, 0.01) < alpha &&
		    r->p_shift < alpha)
			r->significant |= 1;
		lim = ilog_sat_u64((double)r->old.p50_ns * (1 + threshold));
		r->above50 = calls_above(cur, &r->cur, pp, lim);
		r->p_shift50 = shift_p(wo, nwo, wn, nwn, r, pp, 1);
		if (r->d_p50 > threshold && ilog_chernoff(r->cur.count, r->above50, 0.5) < alpha &&
		    r->p_shift50 < alpha)
			r->significant |= 2;
		/* cur.frac * (1 - old mean / new mean) */
		double mo = r->old.count ? (double)r->old.total_ns / (double)r->old.count : 0;
		r->cost = r->cur.total_ns ? r->cur.frac * (1 - mo * (double)r->cur.count /
							      (double)r->cur.total_ns)
					  : 0;
		if (r->cost >= ILOG_GATE_MATERIAL)
			r->regressed = r->significant;
		g->regressed += !!r->regressed;
	}
	/* chains of the new run that the old run did not have */
	g->new_chains = calloc(ccur->n + 1, sizeof(*g->new_chains));
	if (!g->new_chains)
		goto oom;
	for (uint32_t i = 0; i < ccur->n; i++) {
		const struct ilog_chain *c = &ccur->chains[i];
		int found = 0;
		for (uint32_t j = 0; j < cold->n && !found; j++)
			found = chain_key_eq(c, &cold->chains[j]) &&
				cold->chains[j].severity >= c->severity;
		if (found)
			continue;
		g->new_chains[g->nnew++] = c;
		g->new_high += c->severity == ILOG_SEV_HIGH;
	}
	free(ro);
	free(rn);
	free(wo);
	free(wn);
	return 0;
oom:
	free(ro);
	free(rn);
	free(wo);
	free(wn);
	ilog_gate_free(g);
	return -1;
}

/* ---- steps ---- */

#define STEP_CHUNK 32 /* steps per chunk whose medians tell a run's own spread */

/* The relative spread of a process's step time within its run: 3.5 robust
 * sigmas of the medians of its chunks of STEP_CHUNK steps, over their
 * median; 0 with fewer than 4 chunks.  -1 out of memory. */
static double step_noise(struct ilog_stats *st, uint32_t node, uint32_t pid)
{
	struct ilog_step_row *r;
	int n = ilog_stats_steps(st, node, pid, &r);
	if (n < 0)
		return -1;
	uint32_t nc = (uint32_t)n / STEP_CHUNK;
	double *med = nc >= 4 ? malloc(nc * sizeof(*med)) : NULL, d[STEP_CHUNK], m, mad;
	for (uint32_t c = 0; med && c < nc; c++) {
		for (uint32_t i = 0; i < STEP_CHUNK; i++)
			d[i] = (double)(r[c * STEP_CHUNK + i].end_ns - r[c * STEP_CHUNK + i].start_ns);
		ilog_robust(d, STEP_CHUNK, &med[c], &mad);
	}
	free(r);
	if (!med)
		return nc >= 4 ? -1 : 0;
	ilog_robust(med, nc, &m, &mad);
	free(med);
	return m > 0 ? 3.5 * 1.4826 * mad / m : 0;
}

/* A process's (op, call site) pairs per step, the paths of one site summed. */
struct skeys {
	struct ilog_gate_site *k;
	uint32_t n;
};

static int step_keys(struct ilog_stats *st, const struct ilog_callsites *cs,
		     const struct ilog_step_proc *p, int isnew, struct skeys *out)
{
	struct ilog_step_site *ss;
	int n = ilog_stats_step_sites(st, p->node, p->pid, &ss);
	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		char site[ILOG_GATE_SITE_LEN];
		ilog_callsites_describe(cs, p->node, p->pid, ss[i].op, ss[i].stack_id,
					ss[i].pystack_id, site, sizeof(site));
		struct ilog_gate_site *k = NULL;
		for (uint32_t j = 0; j < out->n && !k; j++)
			if (out->k[j].op == ss[i].op && !strcmp(out->k[j].site, site))
				k = &out->k[j];
		if (!k) {
			struct ilog_gate_site *g = realloc(out->k, (out->n + 1) * sizeof(*g));
			if (!g) {
				free(ss);
				return -1;
			}
			out->k = g;
			k = &out->k[out->n++];
			memset(k, 0, sizeof(*k));
			k->op = ss[i].op;
			snprintf(k->site, sizeof(k->site), "%s", site);
		}
		*(isnew ? &k->new_calls : &k->old_calls) += ss[i].calls_per_step;
		*(isnew ? &k->new_ns : &k->old_ns) += ss[i].ns_per_step;
	}
	free(ss);
	return 0;
}

static double site_change(const struct ilog_gate_site *k)
{
	return fabs(k->new_ns - k->old_ns);
}

static int by_change(const void *a, const void *b)
{
	double x = site_change(a), y = site_change(b);
	return x != y ? (x > y ? -1 : 1) : 0;
}

/* One program's steps in both runs into *gs.  0 or -1. */
static int step_pair(struct ilog_gate_step *gs, double threshold, struct ilog_stats *old,
		     const struct ilog_callsites *sold, const struct ilog_step_proc *po,
		     struct ilog_stats *cur, const struct ilog_callsites *scur,
		     const struct ilog_step_proc *pn)
{
	*gs = (struct ilog_gate_step){
		.comm = pn->comm, .old_pid = po->pid, .new_pid = pn->pid, .old_steps = po->nsteps,
		.new_steps = pn->nsteps, .marker = pn->marker, .per_step = pn->per_step,
		.old_p50_ns = po->p50_ns, .new_p50_ns = pn->p50_ns,
	};
	gs->d_step = po->p50_ns ? (double)pn->p50_ns / (double)po->p50_ns - 1 : 0;
	double no = step_noise(old, po->node, po->pid), nn = step_noise(cur, pn->node, pn->pid);
	if (no < 0 || nn < 0)
		return -1;
	gs->noise = no > nn ? no : nn;
	gs->regressed = gs->d_step > threshold && gs->d_step > gs->noise;
	struct skeys k = { 0 };
	if (step_keys(old, sold, po, 0, &k) || step_keys(cur, scur, pn, 1, &k)) {
		free(k.k);
		return -1;
	}
	qsort(k.k, k.n, sizeof(*k.k), by_change);
	/* the changes that matter: 1% of the old step in time, or half a call per step */
	for (uint32_t i = 0; i < k.n && gs->nsites < ILOG_GATE_SITES; i++)
		if (site_change(&k.k[i]) >= 0.01 * (double)po->p50_ns ||
		    fabs(k.k[i].new_calls - k.k[i].old_calls) >= 0.5)
			gs->sites[gs->nsites++] = k.k[i];
	free(k.k);
	return 0;
}

int ilog_gate_steps(struct ilog_gate *g, struct ilog_stats *old,
		    const struct ilog_callsites *sold, struct ilog_stats *cur,
		    const struct ilog_callsites *scur)
{
	struct ilog_step_proc *po = NULL, *pn = NULL;
	int no = ilog_stats_step_procs(old, &po), nn = ilog_stats_step_procs(cur, &pn), rc = -1;
	if (no < 0 || nn < 0)
		goto out;
	free(g->steps);
	g->nsteps = g->steps_regressed = 0;
	if (!(g->steps = calloc((size_t)nn + 1, sizeof(*g->steps))))
		goto out;
	for (int i = 0; i < nn; i++) {
		/* a program is its process with the most steps */
		int best = 1;
		for (int j = 0; j < nn && best; j++)
			best = j == i || strcmp(pn[j].comm, pn[i].comm) ||
			       pn[j].nsteps < pn[i].nsteps || (pn[j].nsteps == pn[i].nsteps && j > i);
		int o = -1;
		for (int j = 0; j < no && best; j++)
			if (!strcmp(po[j].comm, pn[i].comm) && (o < 0 || po[j].nsteps > po[o].nsteps))
				o = j;
		if (!best || o < 0)
			continue;
		struct ilog_gate_step *gs = &g->steps[g->nsteps++];
		if (step_pair(gs, g->threshold, old, sold, &po[o], cur, scur, &pn[i]))
			goto out;
		g->steps_regressed += gs->regressed;
	}
	rc = 0;
out:
	free(po);
	free(pn);
	return rc;
}

void ilog_gate_free(struct ilog_gate *g)
{
	free(g->rows);
	free(g->new_chains);
	free(g->steps);
	memset(g, 0, sizeof(*g));
}

#define bprintf ilog_buf_printf

static const char *pct(char *b, double d)
{
	snprintf(b, 16, "%+.1f%%", d * 100);
	return b;
}

/* "cudaMemcpy from step (workload.c:270)" */
static void site_text(struct ilog_buf *b, const struct ilog_gate_site *k)
{
	bprintf(b, "%s%s%s", ilog_op_name(k->op) ?: "?", k->site[0] ? " from " : "", k->site);
}

/* STEPS: each program's median step in both runs and what changed in it. */
static void steps_text(struct ilog_buf *b, const struct ilog_gate *g)
{
	for (uint32_t i = 0; i < g->nsteps; i++) {
		const struct ilog_gate_step *s = &g->steps[i];
		char a[32], c[32], p[16];
		bprintf(b, "\nSTEPS %s (PID %u -> %u): %u -> %u steps of %u %s; median step %s -> %s "
			"(%s, own spread %.1f%%): %s\n", s->comm, s->old_pid, s->new_pid, s->old_steps,
			s->new_steps, s->per_step, ilog_op_name(s->marker) ?: "?",
			ilog_fmt_dur(a, 32, (double)s->old_p50_ns), ilog_fmt_dur(c, 32, (double)s->new_p50_ns),
			pct(p, s->d_step), s->noise * 100,
			s->regressed ? "REGRESSED" : s->d_step < -g->threshold ? "faster" : "ok");
		for (uint32_t k = 0; k < s->nsites; k++) {
			const struct ilog_gate_site *t = &s->sites[k];
			bprintf(b, "  %s%-9s ", t->old_calls == 0 ? "new " : t->new_calls == 0 ? "gone " : "",
				"per step:");
			bprintf(b, "%.1f -> %.1f calls, %s -> %s: ", t->old_calls, t->new_calls,
				ilog_fmt_dur(a, 32, t->old_ns), ilog_fmt_dur(c, 32, t->new_ns));
			site_text(b, t);
			bprintf(b, "\n");
		}
	}
}

/* The regressed steps in the RESULT line: the program, the step's change
 * and the (op, call site) that changed most. */
static void steps_result(struct ilog_buf *b, const struct ilog_gate *g)
{
	int first = 1;
	for (uint32_t i = 0; i < g->nsteps; i++) {
		const struct ilog_gate_step *s = &g->steps[i];
		if (!s->regressed)
			continue;
		char a[32];
		bprintf(b, "%s step time of %s %+.1f%%", first ? "" : ",", s->comm, s->d_step * 100);
		if (s->nsites) {
			const struct ilog_gate_site *t = &s->sites[0];
			double dc = t->new_calls - t->old_calls, dn = t->new_ns - t->old_ns;
			if (fabs(dc) >= 0.05) {
				bprintf(b, " (each step: %+.1f call%s of ", dc, fabs(dc) == 1 ? "" : "s");
				site_text(b, t);
				bprintf(b, ", %s%s)", dn < 0 ? "-" : "+", ilog_fmt_dur(a, 32, fabs(dn)));
			} else {
				bprintf(b, " (each step: ");
				site_text(b, t);
				bprintf(b, " %s%s, as many calls)", dn < 0 ? "-" : "+",
					ilog_fmt_dur(a, 32, fabs(dn)));
			}
		}
		first = 0;
	}
}

int ilog_gate_text(struct ilog_buf *b, const struct ilog_gate *g, const char *old_name,
		   const char *new_name)
{
	bprintf(b, "ingero regression gate: %s -> %s (threshold %.0f%% on p99 and p50)\n\n", old_name,
		new_name, g->threshold * 100);
	bprintf(b, "%-8s %-28s%s %17s  %-29s  %-29s  %-15s %s\n", "LAYER", "OP",
		g->rows && g->n && g->rows[0].comm[0] ? " COMM           " : "", "CALLS OLD/NEW",
		"P50 OLD -> NEW", "P99 OLD -> NEW", "WALL% OLD->NEW", "VERDICT");
	for (uint32_t i = 0; i < g->n; i++) {
		const struct ilog_gate_row *r = &g->rows[i];
		char a[32], c[32], d[32], e[32], p1[16], p2[16], cols[64], w[32];
		snprintf(cols, sizeof(cols), "%llu/%llu", (unsigned long long)r->old.count,
			 (unsigned long long)r->cur.count);
		const char *verdict = !r->in_old ? "new op" : !r->in_new ? "gone"
				   : r->regressed ? "REGRESSED" : r->significant ? "ok (minor)"
				   : r->d_p99 < -g->threshold ? "faster"
				   : r->d_p99 > g->threshold || r->d_p50 > g->threshold ? "ok (noise)" : "ok";
		char p50[64], p99[64];
		snprintf(p50, sizeof(p50), "%s -> %s (%s)", ilog_fmt_dur(a, 32, (double)r->old.p50_ns),
			 ilog_fmt_dur(c, 32, (double)r->cur.p50_ns),
			 r->in_old && r->in_new ? pct(p1, r->d_p50) : "n/a");
		snprintf(p99, sizeof(p99), "%s -> %s (%s)", ilog_fmt_dur(d, 32, (double)r->old.p99_ns),
			 ilog_fmt_dur(e, 32, (double)r->cur.p99_ns),
			 r->in_old && r->in_new ? pct(p2, r->d_p99) : "n/a");
		snprintf(w, sizeof(w), "%.1f -> %.1f", r->old.frac * 100, r->cur.frac * 100);
		bprintf(b, "%-8s %-28s", ilog_layer_name(r->layer) ?: "?", ilog_op_name(r->op) ?: "?");
		if (r->comm[0])
			bprintf(b, " %-15.15s", r->comm);
		bprintf(b, " %17s  %-29s  %-29s  %-15s %s\n", cols, p50, p99, w, verdict);
	}
	if (g->nnew) {
		bprintf(b, "\nNEW CHAINS (%u, %u HIGH)\n", g->nnew, g->new_high);
		for (uint32_t i = 0; i < g->nnew; i++) {
			const struct ilog_chain *c = g->new_chains[i];
			bprintf(b, "  %-6s %.*s: %.*s\n", ilog_severity_name(c->severity) ?: "?",
				(int)c->pattern.n, c->pattern.p, (int)c->root_cause.n, c->root_cause.p);
		}
	}
	steps_text(b, g);
	bprintf(b, "\nRESULT: ");
	if (!g->regressed && !g->new_high && !g->steps_regressed) {
		bprintf(b, "PASS: no op regressed beyond %.0f%% on p99 or p50, no step time beyond "
			"%.0f%% and no new HIGH chain\n", g->threshold * 100, g->threshold * 100);
	} else {
		bprintf(b, "FAIL:");
		steps_result(b, g);
		if (g->regressed) {
			bprintf(b, "%s %u op%s regressed beyond %.0f%% (", g->steps_regressed ? ";" : "", g->regressed,
				g->regressed == 1 ? "" : "s", g->threshold * 100);
			int first = 1;
			for (uint32_t i = 0; i < g->n; i++)
				if (g->rows[i].regressed) {
					const struct ilog_gate_row *r = &g->rows[i];
					bprintf(b, "%s%s", first ? "" : ", ", ilog_op_name(r->op) ?: "?");
					if (r->regressed & 1)
						bprintf(b, " p99 %+.1f%%", r->d_p99 * 100);
					if (r->regressed & 2)
						bprintf(b, " p50 %+.1f%%", r->d_p50 * 100);
					first = 0;
				}
			bprintf(b, ")%s", g->new_high ? ";" : "");
		}
		if (g->new_high)
			bprintf(b, " %u new HIGH chain%s", g->new_high, g->new_high == 1 ? "" : "s");
		bprintf(b, "\n");
	}
	return b->len && !b->p ? -1 : 0;
}

#define jesc ilog_json_str

int ilog_gate_json(struct ilog_buf *b, const struct ilog_gate *g)
{
	for (uint32_t i = 0; i < g->n; i++) {
		const struct ilog_gate_row *r = &g->rows[i];
		bprintf(b, "{\"type\":\"diff\",\"layer\":\"%s\",\"op\":\"%s\",\"comm\":",
			ilog_layer_name(r->layer) ?: "?", ilog_op_name(r->op) ?: "?");
		jesc(b, r->comm, strlen(r->comm));
		bprintf(b, ",\"in_old\":%s,\"in_new\":%s,\"old_count\":%llu,\"new_count\":%llu,"
			"\"old_p50_ns\":%llu,\"new_p50_ns\":%llu,\"old_p99_ns\":%llu,\"new_p99_ns\":%llu,"
			"\"old_wall_frac\":%.6g,\"new_wall_frac\":%.6g,\"d_p50\":%.6g,\"d_p99\":%.6g,"
			"\"above_limit\":%llu,\"p_shift\":%.6g,\"above_limit_p50\":%llu,\"p_shift_p50\":%.6g,"
			"\"chunks_old\":%u,\"chunks_new\":%u,"
			"\"cost\":%.6g,\"significant\":%s,"
			"\"regressed\":%s,\"regressed_p99\":%s,\"regressed_p50\":%s}\n",
			r->in_old ? "true" : "false", r->in_new ? "true" : "false",
			(unsigned long long)r->old.count, (unsigned long long)r->cur.count,
			(unsigned long long)r->old.p50_ns, (unsigned long long)r->cur.p50_ns,
			(unsigned long long)r->old.p99_ns, (unsigned long long)r->cur.p99_ns,
			r->old.frac, r->cur.frac, r->d_p50, r->d_p99, (unsigned long long)r->above,
			r->p_shift, (unsigned long long)r->above50, r->p_shift50, r->chunks_old,
			r->chunks_new, r->cost, r->significant ? "true" : "false",
			r->regressed ? "true" : "false", r->regressed & 1 ? "true" : "false",
			r->regressed & 2 ? "true" : "false");
	}
	for (uint32_t i = 0; i < g->nnew; i++) {
		const struct ilog_chain *c = g->new_chains[i];
		bprintf(b, "{\"type\":\"new_chain\",\"severity\":\"%s\",\"pattern\":",
			ilog_severity_name(c->severity) ?: "?");
		jesc(b, c->pattern.p, c->pattern.n);
		bprintf(b, ",\"pid\":%u,\"comm\":", c->pid);
		jesc(b, c->comm.p, c->comm.n);
		bprintf(b, ",\"op\":\"%s\",\"root_cause\":", ilog_op_name(c->op) ?: "?");
		jesc(b, c->root_cause.p, c->root_cause.n);
		bprintf(b, "}\n");
	}
	for (uint32_t i = 0; i < g->nsteps; i++) {
		const struct ilog_gate_step *st = &g->steps[i];
		bprintf(b, "{\"type\":\"step_diff\",\"comm\":");
		jesc(b, st->comm, strlen(st->comm));
		bprintf(b, ",\"old_pid\":%u,\"new_pid\":%u,\"old_steps\":%u,\"new_steps\":%u,"
			"\"marker_op\":\"%s\",\"per_step\":%u,\"old_p50_ns\":%llu,\"new_p50_ns\":%llu,"
			"\"d_step\":%.6g,\"noise\":%.6g,\"regressed\":%s,\"changes\":[",
			st->old_pid, st->new_pid, st->old_steps, st->new_steps,
			ilog_op_name(st->marker) ?: "?", st->per_step,
			(unsigned long long)st->old_p50_ns, (unsigned long long)st->new_p50_ns,
			st->d_step, st->noise, st->regressed ? "true" : "false");
		for (uint32_t k = 0; k < st->nsites; k++) {
			const struct ilog_gate_site *t = &st->sites[k];
			bprintf(b, "%s{\"op\":\"%s\",\"call_site\":", k ? "," : "",
				ilog_op_name(t->op) ?: "?");
			jesc(b, t->site, strlen(t->site));
			bprintf(b, ",\"old_calls_per_step\":%.6g,\"new_calls_per_step\":%.6g,"
				"\"old_ns_per_step\":%.6g,\"new_ns_per_step\":%.6g}", t->old_calls,
				t->new_calls, t->old_ns, t->new_ns);
		}
		bprintf(b, "]}\n");
	}
	bprintf(b, "{\"type\":\"verdict\",\"threshold\":%.6g,\"regressed_ops\":%u,\"new_chains\":%u,"
		"\"new_high_chains\":%u,\"regressed_steps\":%u,\"pass\":%s}\n", g->threshold,
		g->regressed, g->nnew, g->new_high, g->steps_regressed,
		!g->regressed && !g->new_high && !g->steps_regressed ? "true" : "false");
	return b->len && !b->p ? -1 : 0;
}
