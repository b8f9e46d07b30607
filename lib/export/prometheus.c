// SPDX-License-Identifier: MIT
/*
 * --format prometheus: the log's per-op call counts, errors, bytes and
 * latency histograms, host preemptions and event losses in the Prometheus
 * text exposition format (version 0.0.4), for node-exporter's textfile
 * collector: `ingero-export -f prometheus run.ilog > /var/lib/node_exporter/ingero.prom`.
 *
 * One series per (node, layer, op) that was called; recordings of the same
 * node name and rank are summed into one series.  Counters are totals over
 * the log, so no sample carries a timestamp (the textfile collector stamps
 * them); the log's wall-clock span is exported as two gauges instead.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "export_int.h"

static int label_value(struct ilog_buf *b, const char *s)
{
	if (ilog_buf_put(b, "\"", 1))
		return -1;
	for (; *s; s++) {
		const char *e = *s == '\\' ? "\\\\" : *s == '"' ? "\\\"" : *s == '\n' ? "\\n" : NULL;
		if (e ? ilog_buf_put(b, e, 2) : ilog_buf_put(b, s, 1))
			return -1;
	}
	return ilog_buf_put(b, "\"", 1);
}

/* Node groups: nodes with the same name and rank are one series set. */
struct groups {
	uint32_t *first;           /* per node: the group's first node */
};

static int same_group(const struct ilog_node_id *a, const struct ilog_node_id *b)
{
	return a->rank == b->rank && !strcmp(a->name, b->name);
}

/* {node="..",rank="..",layer="..",op=".."} or the node part only */
static int labels(struct ilog_buf *b, const struct ilog_node_id *n, int op, const char *extra_k,
		  const char *extra_v, const char *tail)
{
	int rc = ilog_buf_put(b, "{node=", 6) || label_value(b, n->name[0] ? n->name : "unknown");
	if (!rc && n->rank >= 0)
		rc = ilog_buf_printf(b, ",rank=\"%lld\"", (long long)n->rank);
	if (!rc && op >= 0) {
		const char *on = ilog_op_name((uint32_t)op), *ln = ilog_layer_name(ilog_op_layer((uint32_t)op));
		rc = ilog_buf_printf(b, ",layer=\"%s\",op=\"%s\"", ln ? ln : "unknown", on ? on : "unknown");
	}
	if (!rc && extra_k)
		rc = ilog_buf_printf(b, ",%s=", extra_k) || label_value(b, extra_v);
	if (!rc && tail) /* label="value" pairs with nothing to escape */
		rc = ilog_buf_printf(b, ",%s", tail);
	return rc || ilog_buf_put(b, "}", 1);
}

static int family(struct ilog_buf *b, const char *name, const char *type, const char *help)
{
	return ilog_buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* The op's aggregate summed over the node's group. */
static struct ilog_opagg op_sum(const struct ilog_metrics *m, const uint32_t *first, uint32_t g,
				int op)
{
	struct ilog_opagg s = { 0 };
	for (uint32_t i = g; i < m->nagg; i++) {
		if (first[i] != g || (uint32_t)op >= m->agg[i].nop)
			continue;
		const struct ilog_opagg *o = &m->agg[i].op[op];
		if (!o->calls)
			continue;
		if (!s.calls || o->min_ns < s.min_ns)
			s.min_ns = o->min_ns;
		if (o->max_ns > s.max_ns)
			s.max_ns = o->max_ns;
		s.calls += o->calls;
		s.errors += o->errors;
		s.bytes += o->bytes;
		s.sum_ns += o->sum_ns;
		for (int k = 0; k <= ILOG_LAT_NBOUNDS; k++)
			s.bucket[k] += o->bucket[k];
	}
	return s;
}

static int render_live(const struct ilog_live *l, const uint32_t *first, struct ilog_buf *b);

/* The metrics of m, and with l (m is then l's) the live families too. */
static int render_with(const struct ilog_metrics *m, const struct ilog_live *l,
		       struct ilog_buf *b)
{
	uint32_t n = m->nagg;
	int rc = 0;
#define OUT(...) (rc |= ilog_buf_printf(b, __VA_ARGS__))
	uint32_t *first = calloc(n ? n : 1, sizeof(*first));
	if (!first)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		first[i] = i;
		for (uint32_t j = 0; j < i; j++)
			if (same_group(&m->nodes.nodes[i], &m->nodes.nodes[j])) {
				first[i] = j;
				break;
			}
	}
	static const struct { const char *name, *type, *help; } fam[] = {
		{ "ingero_cuda_calls_total", "counter", "CUDA runtime, driver, graph and NCCL calls recorded." },
		{ "ingero_cuda_call_errors_total", "counter", "Calls that returned an error code." },
		{ "ingero_cuda_call_bytes_total", "counter", "Bytes (sizes, byte or element counts) the calls passed." },
		{ "ingero_cuda_call_duration_seconds", "histogram", "Call latency, entry to return." },
	};
	for (int f = 0; f < 4; f++) {
		rc |= family(b, fam[f].name, fam[f].type, fam[f].help);
		for (uint32_t g = 0; g < n; g++) {
			if (first[g] != g)
				continue;
			const struct ilog_node_id *nd = &m->nodes.nodes[g];
			for (int op = 0; op < (int)ilog_op_limit(); op++) {
				struct ilog_opagg s = op_sum(m, first, g, op);
				if (!s.calls)
					continue;
				if (f < 3) {
					uint64_t v = f == 0 ? s.calls : f == 1 ? s.errors : s.bytes;
					OUT("%s", fam[f].name);
					rc |= labels(b, nd, op, NULL, NULL, NULL);
					OUT(" %" PRIu64 "\n", v);
					continue;
				}
				uint64_t cum = 0;
				for (int k = 0; k <= ILOG_LAT_NBOUNDS; k++) {
					char le[40];
					cum += s.bucket[k];
					if (k < ILOG_LAT_NBOUNDS)
						snprintf(le, sizeof(le), "le=\"%g\"", (double)ilog_lat_bounds_ns[k] / 1e9);
					else
						snprintf(le, sizeof(le), "le=\"+Inf\"");
					OUT("%s_bucket", fam[f].name);
					rc |= labels(b, nd, op, NULL, NULL, le);
					OUT(" %" PRIu64 "\n", cum);
				}
				OUT("%s_sum", fam[f].name);
				rc |= labels(b, nd, op, NULL, NULL, NULL);
				OUT(" %.9f\n", (double)s.sum_ns / 1e9);
				OUT("%s_count", fam[f].name);
				rc |= labels(b, nd, op, NULL, NULL, NULL);
				OUT(" %" PRIu64 "\n", s.calls);
			}
		}
	}
	/* per node */
	static const struct { const char *name, *type, *help; } nfam[] = {
		{ "ingero_host_preemptions_total", "counter", "Times a traced thread was switched out involuntarily." },
		{ "ingero_host_offcpu_seconds_total", "counter", "Time traced threads spent switched out by preemptions." },
		{ "ingero_log_start_timestamp_seconds", "gauge", "Wall-clock time of the first CUDA call in the log." },
		{ "ingero_log_end_timestamp_seconds", "gauge", "Wall-clock time the last CUDA call in the log returned." },
	};
	for (int f = 0; f < 4; f++) {
		rc |= family(b, nfam[f].name, nfam[f].type, nfam[f].help);
		for (uint32_t g = 0; g < n; g++) {
			if (first[g] != g)
				continue;
			uint64_t cnt = 0, ns = 0, lo = 0, hi = 0;
			for (uint32_t i = g; i < n; i++) {
				if (first[i] != g)
					continue;
				const struct ilog_nodeagg *a = &m->agg[i];
				cnt += a->preempt;
				ns += a->preempt_ns;
				if (a->first_ns && (!lo || a->first_ns < lo))
					lo = a->first_ns;
				if (a->last_ns > hi)
					hi = a->last_ns;
			}
			if (f >= 2 && !lo)
				continue; /* no calls, no span */
			OUT("%s", nfam[f].name);
			rc |= labels(b, &m->nodes.nodes[g], -1, NULL, NULL, NULL);
			if (f == 0)
				OUT(" %" PRIu64 "\n", cnt);
			else if (f == 1)
				OUT(" %.9f\n", (double)ns / 1e9);
			else
				OUT(" %.9f\n", (double)(f == 2 ? lo : hi) / 1e9);
		}
	}
	static const struct { const char *name, *help; } lfam[] = {
		{ "ingero_events_lost_total", "Events the recorder lost, per ring buffer or probe." },
		{ "ingero_events_seen_total", "Events the recorder saw, per ring buffer or probe." },
	};
	for (int f = 0; f < 2; f++) {
		rc |= family(b, lfam[f].name, "counter", lfam[f].help);
		for (uint32_t g = 0; g < n; g++) {
			if (first[g] != g)
				continue;
			/* each source once per group, in order of first appearance */
			for (uint32_t i = g; i < n; i++) {
				for (uint32_t s = 0; first[i] == g && s < m->agg[i].nloss; s++) {
					const char *src = m->agg[i].loss[s].source;
					uint64_t v = 0;
					int seen_before = 0;
					for (uint32_t j = g; j < n; j++) {
						for (uint32_t t = 0; first[j] == g && t < m->agg[j].nloss; t++) {
							if (strcmp(m->agg[j].loss[t].source, src))
								continue;
							if (j < i || (j == i && t < s))
								seen_before = 1;
							v += f ? m->agg[j].loss[t].seen : m->agg[j].loss[t].lost;
						}
					}
					if (seen_before)
						continue;
					OUT("%s", lfam[f].name);
					rc |= labels(b, &m->nodes.nodes[g], -1, "source", src, NULL);
					OUT(" %" PRIu64 "\n", v);
				}
			}
		}
	}
	if (l)
		rc |= render_live(l, first, b);
	free(first);
	return rc ? -1 : 0;
#undef OUT
}

static int render(const struct ilog_metrics *m, struct ilog_buf *b)
{
	return render_with(m, NULL, b);
}

/* ---- live (ilog_live_prometheus): what only a running stream has ---- */

static const double live_q[] = { 0.5, 0.9, 0.99 };
#define NQ (int)(sizeof(live_q) / sizeof(live_q[0]))

static int render_live(const struct ilog_live *l, const uint32_t *first, struct ilog_buf *b)
{
	const struct ilog_metrics *m = &l->m;
	int rc = 0;
#define OUT(...) (rc |= ilog_buf_printf(b, __VA_ARGS__))
	/* a summary as Prometheus' client libraries keep one: quantiles over
	 * a sliding window, _sum and _count over everything */
	char help[160];
	snprintf(help, sizeof(help),
		 "Call latency: quantiles over the last %g s of the stream (within 3.2%%), "
		 "sum and count of all calls.", (double)l->o.window_ns / 1e9);
	rc |= family(b, "ingero_cuda_call_window_duration_seconds", "summary", help);
	/* the window's calls per op, a family of their own, gathered in the
	 * same pass and written after the summary */
	struct ilog_buf wc = { 0 };
	snprintf(help, sizeof(help), "Calls in the last %g s of the stream.",
		 (double)l->o.window_ns / 1e9);
	rc |= family(&wc, "ingero_cuda_window_calls", "gauge", help);
	for (uint32_t g = 0; g < m->nagg; g++) {
		if (first[g] != g)
			continue;
		struct ilog_live_nodes on = { first, g };
		for (int op = 0; op < ILOG_OP__COUNT; op++) {
			uint64_t qv[NQ], n;
			struct ilog_opagg s = op_sum(m, first, g, op);
			if (!s.calls)
				continue;
			n = ilog_live_quantiles(l, on, op, live_q, NQ, qv);
			for (int k = 0; n && k < NQ; k++) {
				char qs[32];
				snprintf(qs, sizeof(qs), "quantile=\"%g\"", live_q[k]);
				OUT("ingero_cuda_call_window_duration_seconds");
				rc |= labels(b, &m->nodes.nodes[g], op, NULL, NULL, qs);
				OUT(" %.9f\n", (double)qv[k] / 1e9);
			}
			OUT("ingero_cuda_call_window_duration_seconds_sum");
			rc |= labels(b, &m->nodes.nodes[g], op, NULL, NULL, NULL);
			OUT(" %.9f\n", (double)s.sum_ns / 1e9);
			OUT("ingero_cuda_call_window_duration_seconds_count");
			rc |= labels(b, &m->nodes.nodes[g], op, NULL, NULL, NULL);
			OUT(" %" PRIu64 "\n", s.calls);
			if (n)
				rc |= ilog_buf_printf(&wc, "ingero_cuda_window_calls") ||
				      labels(&wc, &m->nodes.nodes[g], op, NULL, NULL, NULL) ||
				      ilog_buf_printf(&wc, " %" PRIu64 "\n", n);
		}
	}
	rc |= ilog_buf_put(b, wc.p, wc.len);
	ilog_buf_free(&wc);
	snprintf(help, sizeof(help), "Preemptions of traced threads per second over the last %g s.",
		 (double)l->o.window_ns / 1e9);
	rc |= family(b, "ingero_host_preemptions_per_second", "gauge", help);
	for (uint32_t g = 0; g < m->nagg; g++) {
		if (first[g] != g)
			continue;
		OUT("ingero_host_preemptions_per_second");
		rc |= labels(b, &m->nodes.nodes[g], -1, NULL, NULL, NULL);
		OUT(" %.6g\n", ilog_live_preempt_rate(l, (struct ilog_live_nodes){ first, g }));
	}
	/* host gauges: the newest snapshot of each node (a group shows its
	 * first node that has one) */
	static const struct { const char *name, *help; } hfam[] = {
		{ "ingero_host_cpu_busy_ratio", "Share of all CPUs busy, newest snapshot (0..1)." },
		{ "ingero_host_load1", "One-minute load average, newest snapshot." },
		{ "ingero_host_memory_total_bytes", "Memory of the node, newest snapshot." },
		{ "ingero_host_memory_available_bytes", "Available memory, newest snapshot." },
		{ "ingero_host_swap_used_bytes", "Swap in use, newest snapshot." },
	};
	for (int f = 0; f < 5; f++) {
		rc |= family(b, hfam[f].name, "gauge", hfam[f].help);
		for (uint32_t g = 0; g < m->nagg; g++) {
			if (first[g] != g)
				continue;
			const struct ilog_live_host *h = NULL;
			for (uint32_t i = g; i < l->nhost && i < m->nagg && !h; i++)
				if (first[i] == g && l->host[i].seen)
					h = &l->host[i];
			if (!h)
				continue;
			double v = f == 0 ? h->cpu_pct / 100 : f == 1 ? h->load1
				 : f == 2 ? (double)h->mem_total : f == 3 ? (double)h->mem_avail
				 : (double)(h->swap_total - (h->swap_free < h->swap_total ? h->swap_free : h->swap_total));
			OUT("%s", hfam[f].name);
			rc |= labels(b, &m->nodes.nodes[g], -1, NULL, NULL, NULL);
			OUT(" %.10g\n", v);
		}
	}
	snprintf(help, sizeof(help), "Causal chains ingero-correlate's engine found, by kind and "
		 "severity, in windows of %g s of the stream.", (double)l->o.chain_window_ns / 1e9);
	rc |= family(b, "ingero_chains_total", "counter", help);
	for (uint32_t g = 0; g < m->nagg; g++) {
		if (first[g] != g)
			continue;
		/* one series per (kind, severity) of the group: summed, in
		 * order of first appearance */
		for (uint32_t c = 0; c < l->nchains; c++) {
			const struct ilog_live_chains *k = &l->chains[c];
			if (first[k->node] != g)
				continue;
			uint64_t n = 0;
			int before = 0;
			for (uint32_t d = 0; d < l->nchains; d++) {
				const struct ilog_live_chains *o = &l->chains[d];
				if (first[o->node] != g || o->sev != k->sev || strcmp(o->kind, k->kind))
					continue;
				before |= d < c;
				n += o->n;
			}
			if (before)
				continue;
			char sev[40];
			snprintf(sev, sizeof(sev), "severity=\"%s\"", ilog_severity_name(k->sev));
			OUT("ingero_chains_total");
			rc |= labels(b, &m->nodes.nodes[g], -1, "kind", k->kind, sev);
			OUT(" %" PRIu64 "\n", n);
		}
	}
	rc |= family(b, "ingero_chain_windows_total", "counter",
		     "Chain windows of the stream the causal engine has analyzed.");
	OUT("ingero_chain_windows_total %" PRIu64 "\n", l->chain_windows);
	rc |= family(b, "ingero_export_records_total", "counter", "Records read from the stream.");
	OUT("ingero_export_records_total %" PRIu64 "\n", l->records);
	if (l->push[0] + l->push[1] + l->push[2]) {
		static const char *const what[ILOG_PUSH__N] = { "sent", "failed", "dropped" };
		rc |= family(b, "ingero_export_otlp_pushes_total", "counter",
			     "OTLP pushes by result: sent, failed after retries, dropped.");
		for (int k = 0; k < ILOG_PUSH__N; k++)
			OUT("ingero_export_otlp_pushes_total{result=\"%s\"} %" PRIu64 "\n", what[k],
			    l->push[k]);
	}
	return rc ? -1 : 0;
#undef OUT
}

int ilog_live_prometheus(struct ilog_live *l, struct ilog_buf *b)
{
	ilog_live_lock(l);
	int rc = render_with(&l->m, l, b);
	ilog_live_unlock(l);
	return rc;
}

static int prom_close(struct ilog_sink_ctx *c)
{
	return ilog_metrics_sink_close(c, render);
}

const struct ilog_sink ilog_sink_prometheus = {
	.name = "prometheus",
	.help = "per-op counters and latency histograms, Prometheus text format (textfile collector)",
	.open = ilog_metrics_sink_open, .record = ilog_metrics_sink_record,
	.close = prom_close,
};
