// SPDX-License-Identifier: MIT
/* The regression gate (gate.h): per-op quantiles and new chains, two runs. */
#include <math.h>
#include <stdarg.h>
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

/*
 * How much the op's p99 moves from window to window inside one run: the
 * median window p99 + 3.5 robust sigmas, relative to the median.  A
 * change smaller than that is the run's own noise.
 */
static double window_noise(struct ilog_stats *st, const struct ilog_stat_row *r, int pp, int p50)
{
	struct ilog_stat_row *w;
	int n = ilog_stats_window_rows(st, pp, &w);
	if (n <= 0)
		return 0;
	double *v = malloc((size_t)n * sizeof(*v));
	uint32_t m = 0;
	for (int i = 0; v && i < n; i++)
		if (same_key(&w[i], r, pp) && w[i].count >= (p50 ? 2u : 100u)) /* p99: 100 calls */
			v[m++] = (double)(p50 ? w[i].p50_ns : w[i].p99_ns);
	free(w);
	double med = 0, mad = 0;
	if (m >= 4)
		ilog_robust(v, m, &med, &mad);
	free(v);
	return med > 0 ? 3.5 * 1.4826 * mad / med : 0;
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
	struct ilog_stat_row *ro = NULL, *rn = NULL;
	int no = ilog_stats_rows(old, pp, &ro), nn = ilog_stats_rows(cur, pp, &rn);
	if (no < 0 || nn < 0)
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
		r->noise = window_noise(old, &r->old, pp, 0);
		if (r->d_p99 > threshold && r->d_p99 > r->noise &&
		    ilog_chernoff(r->cur.count, r->above, 0.01) < alpha)
			r->regressed |= 1;
		lim = ilog_sat_u64((double)r->old.p50_ns * (1 + threshold));
		r->above50 = calls_above(cur, &r->cur, pp, lim);
		r->noise50 = window_noise(old, &r->old, pp, 1);
		if (r->d_p50 > threshold && r->d_p50 > r->noise50 &&
		    ilog_chernoff(r->cur.count, r->above50, 0.5) < alpha)
			r->regressed |= 2;
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
	return 0;
oom:
	free(ro);
	free(rn);
	ilog_gate_free(g);
	return -1;
}

void ilog_gate_free(struct ilog_gate *g)
{
	free(g->rows);
	free(g->new_chains);
	memset(g, 0, sizeof(*g));
}

#define bprintf ilog_buf_printf

static const char *pct(char *b, double d)
{
	snprintf(b, 16, "%+.1f%%", d * 100);
	return b;
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
				   : r->regressed ? "REGRESSED" : r->d_p99 < -g->threshold ? "faster"
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
	bprintf(b, "\nRESULT: ");
	if (!g->regressed && !g->new_high) {
		bprintf(b, "PASS: no op regressed beyond %.0f%% on p99 or p50 and no new HIGH chain\n",
			g->threshold * 100);
	} else {
		bprintf(b, "FAIL:");
		if (g->regressed) {
			bprintf(b, " %u op%s regressed beyond %.0f%% (", g->regressed,
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
			"\"above_limit\":%llu,\"noise\":%.6g,\"above_limit_p50\":%llu,\"noise_p50\":%.6g,"
			"\"regressed\":%s,\"regressed_p99\":%s,\"regressed_p50\":%s}\n",
			r->in_old ? "true" : "false", r->in_new ? "true" : "false",
			(unsigned long long)r->old.count, (unsigned long long)r->cur.count,
			(unsigned long long)r->old.p50_ns, (unsigned long long)r->cur.p50_ns,
			(unsigned long long)r->old.p99_ns, (unsigned long long)r->cur.p99_ns,
			r->old.frac, r->cur.frac, r->d_p50, r->d_p99, (unsigned long long)r->above,
			r->noise, (unsigned long long)r->above50, r->noise50,
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
	bprintf(b, "{\"type\":\"verdict\",\"threshold\":%.6g,\"regressed_ops\":%u,\"new_chains\":%u,"
		"\"new_high_chains\":%u,\"pass\":%s}\n", g->threshold, g->regressed, g->nnew,
		g->new_high, !g->regressed && !g->new_high ? "true" : "false");
	return b->len && !b->p ? -1 : 0;
}
