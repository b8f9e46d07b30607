// SPDX-License-Identifier: MIT
/*
 * --format otlp: the metrics of --format prometheus as one OTLP/HTTP JSON
 * document (an ExportMetricsServiceRequest, opentelemetry-proto
 * collector/metrics/v1), ready to POST to a collector's /v1/metrics:
 *   curl -H 'Content-Type: application/json' --data-binary @m.json http://collector:4318/v1/metrics
 * One ResourceMetrics per node (attributes host.name, ingero.node,
 * ingero.rank); cumulative sums and explicit-bucket histograms over the
 * log's wall-clock span.  JSON encoding rules of OTLP: lowerCamelCase
 * field names, 64-bit integers as decimal strings, enums as numbers.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "export_int.h"

static int str_attr(struct ilog_buf *b, const char *key, const char *v, int comma)
{
	return ilog_buf_printf(b, "%s{\"key\":\"%s\",\"value\":{\"stringValue\":", comma ? "," : "",
			       key) ||
	       ilog_json_str(b, v, strlen(v)) || ilog_buf_printf(b, "}}");
}

/* "attributes":[layer, op  -- left open for more */
static int op_attrs_open(struct ilog_buf *b, int op)
{
	const char *on = ilog_op_name((uint32_t)op), *ln = ilog_layer_name(ilog_op_layer((uint32_t)op));
	return ilog_buf_printf(b, "\"attributes\":[") || str_attr(b, "cuda.layer", ln ? ln : "unknown", 0) ||
	       str_attr(b, "cuda.op", on ? on : "unknown", 1);
}

static int op_attrs(struct ilog_buf *b, int op)
{
	return op_attrs_open(b, op) || ilog_buf_printf(b, "],");
}

/* One cumulative monotonic sum over the ops that were called. */
static int op_sum_metric(struct ilog_buf *b, const struct ilog_nodeagg *a, const char *name,
			 const char *desc, const char *unit, int which, uint64_t t0, uint64_t t1)
{
	int rc = ilog_buf_printf(b, ",{\"name\":\"%s\",\"description\":\"%s\",\"unit\":\"%s\","
				 "\"sum\":{\"aggregationTemporality\":2,\"isMonotonic\":true,"
				 "\"dataPoints\":[", name, desc, unit);
	int first = 1;
	for (int op = 0; op < (int)a->nop && !rc; op++) {
		const struct ilog_opagg *o = &a->op[op];
		if (!o->calls)
			continue;
		uint64_t v = which == 0 ? o->calls : which == 1 ? o->errors : o->bytes;
		rc = ilog_buf_printf(b, "%s{", first ? "" : ",") || op_attrs(b, op) ||
		     ilog_buf_printf(b, "\"startTimeUnixNano\":\"%" PRIu64 "\",\"timeUnixNano\":\"%"
				     PRIu64 "\",\"asInt\":\"%" PRIu64 "\"}", t0, t1, v);
		first = 0;
	}
	return rc || ilog_buf_printf(b, "]}}");
}

static int render_live(const struct ilog_live *l, uint32_t node, struct ilog_buf *b, uint64_t t0,
		       uint64_t t1);

/* The metrics of m, and with l (m is then l's) the live ones too. */
static int render_with(const struct ilog_metrics *m, const struct ilog_live *l,
		       struct ilog_buf *b)
{
	int rc = ilog_buf_printf(b, "{\"resourceMetrics\":[");
	for (uint32_t i = 0; i < m->nagg && !rc; i++) {
		const struct ilog_nodeagg *a = &m->agg[i];
		const struct ilog_node_id *n = &m->nodes.nodes[i];
		uint64_t t0 = a->first_ns, t1 = a->last_ns;
		rc = ilog_buf_printf(b, "%s{\"resource\":{\"attributes\":[", i ? "," : "") ||
		     str_attr(b, "service.name", "ingero", 0) ||
		     str_attr(b, "host.name", n->host[0] ? n->host : n->name, 1) ||
		     str_attr(b, "ingero.node", n->name, 1);
		if (!rc && n->rank >= 0)
			rc = ilog_buf_printf(b, ",{\"key\":\"ingero.rank\",\"value\":{\"intValue\":\"%lld\"}}",
					     (long long)n->rank);
		if (rc)
			break;
		rc = ilog_buf_printf(b, "]},\"scopeMetrics\":[{\"scope\":{\"name\":\"ingero\","
				     "\"version\":\"%s\"},\"metrics\":[", INGERO_VERSION);
		/* the histogram first: then every other metric starts with a comma */
		rc = rc || ilog_buf_printf(b, "{\"name\":\"ingero.cuda.call.duration\","
					   "\"description\":\"Call latency, entry to return.\",\"unit\":\"s\","
					   "\"histogram\":{\"aggregationTemporality\":2,\"dataPoints\":[");
		int first = 1;
		for (int op = 0; op < (int)a->nop && !rc; op++) {
			const struct ilog_opagg *g = &a->op[op];
			if (!g->calls)
				continue;
			rc = ilog_buf_printf(b, "%s{", first ? "" : ",") || op_attrs(b, op) ||
			     ilog_buf_printf(b, "\"startTimeUnixNano\":\"%" PRIu64 "\",\"timeUnixNano\":\"%"
					     PRIu64 "\",\"count\":\"%" PRIu64 "\",\"sum\":%.9g,"
					     "\"bucketCounts\":[", t0, t1, g->calls, (double)g->sum_ns / 1e9);
			for (int k = 0; k <= ILOG_LAT_NBOUNDS && !rc; k++)
				rc = ilog_buf_printf(b, "%s\"%" PRIu64 "\"", k ? "," : "", g->bucket[k]);
			rc = rc || ilog_buf_printf(b, "],\"explicitBounds\":[");
			for (int k = 0; k < ILOG_LAT_NBOUNDS && !rc; k++)
				rc = ilog_buf_printf(b, "%s%g", k ? "," : "", (double)ilog_lat_bounds_ns[k] / 1e9);
			rc = rc || ilog_buf_printf(b, "],\"min\":%.9g,\"max\":%.9g}", (double)g->min_ns / 1e9,
						   (double)g->max_ns / 1e9);
			first = 0;
		}
		rc = rc || ilog_buf_printf(b, "]}}") ||
		     op_sum_metric(b, a, "ingero.cuda.calls", "CUDA runtime, driver, graph and NCCL calls.",
				   "{call}", 0, t0, t1) ||
		     op_sum_metric(b, a, "ingero.cuda.call.errors", "Calls that returned an error code.",
				   "{call}", 1, t0, t1) ||
		     op_sum_metric(b, a, "ingero.cuda.call.bytes", "Bytes or element counts the calls passed.",
				   "By", 2, t0, t1) ||
		     ilog_buf_printf(b, ",{\"name\":\"ingero.host.preemptions\",\"description\":"
				     "\"Times a traced thread was switched out involuntarily.\",\"unit\":"
				     "\"{preemption}\",\"sum\":{\"aggregationTemporality\":2,\"isMonotonic\":true,"
				     "\"dataPoints\":[{\"startTimeUnixNano\":\"%" PRIu64 "\",\"timeUnixNano\":\"%"
				     PRIu64 "\",\"asInt\":\"%" PRIu64 "\"}]}}", t0, t1, a->preempt) ||
		     ilog_buf_printf(b, ",{\"name\":\"ingero.host.offcpu\",\"description\":"
				     "\"Time traced threads spent switched out by preemptions.\",\"unit\":\"s\","
				     "\"sum\":{\"aggregationTemporality\":2,\"isMonotonic\":true,\"dataPoints\":"
				     "[{\"startTimeUnixNano\":\"%" PRIu64 "\",\"timeUnixNano\":\"%" PRIu64
				     "\",\"asDouble\":%.9g}]}}", t0, t1, (double)a->preempt_ns / 1e9);
		if (!rc && a->nloss) {
			rc = ilog_buf_printf(b, ",{\"name\":\"ingero.events.lost\",\"description\":"
					     "\"Events the recorder lost, per ring buffer or probe.\",\"unit\":"
					     "\"{event}\",\"sum\":{\"aggregationTemporality\":2,\"isMonotonic\":true,"
					     "\"dataPoints\":[");
			for (uint32_t s = 0; s < a->nloss && !rc; s++)
				rc = ilog_buf_printf(b, "%s{\"attributes\":[", s ? "," : "") ||
				     str_attr(b, "ingero.source", a->loss[s].source, 0) ||
				     ilog_buf_printf(b, "],\"startTimeUnixNano\":\"%" PRIu64 "\",\"timeUnixNano\":\"%"
						     PRIu64 "\",\"asInt\":\"%" PRIu64 "\"}", t0, t1, a->loss[s].lost);
			rc = rc || ilog_buf_printf(b, "]}}");
		}
		if (l)
			rc = rc || render_live(l, i, b, t0, t1);
		rc = rc || ilog_buf_printf(b, "]}]}");
	}
	return rc || ilog_buf_printf(b, "]}\n");
}

static int render(const struct ilog_metrics *m, struct ilog_buf *b)
{
	return render_with(m, NULL, b);
}

/* ---- live (ilog_live_otlp) ---- */

/* ,{"name":..,"description":..,"unit":..,"gauge":{"dataPoints":[ */
static int gauge_open(struct ilog_buf *b, const char *name, const char *desc, const char *unit)
{
	return ilog_buf_printf(b, ",{\"name\":\"%s\",\"description\":", name) ||
	       ilog_json_str(b, desc, strlen(desc)) ||
	       ilog_buf_printf(b, ",\"unit\":\"%s\",\"gauge\":{\"dataPoints\":[", unit);
}

static int render_live(const struct ilog_live *l, uint32_t node, struct ilog_buf *b, uint64_t t0,
		       uint64_t t1)
{
	static const double qs[] = { 0.5, 0.9, 0.99 };
	struct ilog_live_nodes on = { NULL, node };
	uint64_t now = l->latest_wall;
	char desc[160];
	int rc = 0, first = 1;
	snprintf(desc, sizeof(desc), "Call latency quantile over the last %g s of the stream.",
		 (double)l->o.window_ns / 1e9);
	rc = gauge_open(b, "ingero.cuda.call.window.duration", desc, "s");
	for (int op = 0; op < ILOG_OP__COUNT && !rc; op++) {
		uint64_t qv[3];
		if (!ilog_live_quantiles(l, on, op, qs, 3, qv))
			continue;
		for (int k = 0; k < 3 && !rc; k++) {
			rc = ilog_buf_printf(b, "%s{", first ? "" : ",") || op_attrs_open(b, op) ||
			     ilog_buf_printf(b, ",{\"key\":\"quantile\",\"value\":{\"doubleValue\":%g}}],"
					   "\"timeUnixNano\":\"%" PRIu64 "\",\"asDouble\":%.9g}",
					   qs[k], now, (double)qv[k] / 1e9);
			first = 0;
		}
	}
	rc = rc || ilog_buf_printf(b, "]}}");
	snprintf(desc, sizeof(desc), "Calls in the last %g s of the stream.", (double)l->o.window_ns / 1e9);
	rc = rc || gauge_open(b, "ingero.cuda.window.calls", desc, "{call}");
	first = 1;
	for (int op = 0; op < ILOG_OP__COUNT && !rc; op++) {
		uint64_t qv[1], n = ilog_live_quantiles(l, on, op, qs, 1, qv);
		if (!n)
			continue;
		rc = ilog_buf_printf(b, "%s{", first ? "" : ",") || op_attrs(b, op) ||
		     ilog_buf_printf(b, "\"timeUnixNano\":\"%" PRIu64 "\",\"asInt\":\"%" PRIu64 "\"}", now, n);
		first = 0;
	}
	rc = rc || ilog_buf_printf(b, "]}}");
	snprintf(desc, sizeof(desc), "Preemptions of traced threads per second over the last %g s.",
		 (double)l->o.window_ns / 1e9);
	rc = rc || gauge_open(b, "ingero.host.preemption.rate", desc, "{preemption}/s") ||
	     ilog_buf_printf(b, "{\"timeUnixNano\":\"%" PRIu64 "\",\"asDouble\":%.9g}]}}", now,
			     ilog_live_preempt_rate(l, on));
	const struct ilog_live_host *h = node < l->nhost && l->host[node].seen ? &l->host[node] : NULL;
	static const struct { const char *name, *desc, *unit; } hm[] = {
		{ "ingero.host.cpu.utilization", "Share of all CPUs busy, newest snapshot.", "1" },
		{ "ingero.host.load1", "One-minute load average, newest snapshot.", "1" },
		{ "ingero.host.memory.total", "Memory of the node, newest snapshot.", "By" },
		{ "ingero.host.memory.available", "Available memory, newest snapshot.", "By" },
		{ "ingero.host.swap.used", "Swap in use, newest snapshot.", "By" },
	};
	for (int f = 0; h && f < 5 && !rc; f++) {
		double v = f == 0 ? h->cpu_pct / 100 : f == 1 ? h->load1
			 : f == 2 ? (double)h->mem_total : f == 3 ? (double)h->mem_avail
			 : (double)(h->swap_total - (h->swap_free < h->swap_total ? h->swap_free : h->swap_total));
		rc = gauge_open(b, hm[f].name, hm[f].desc, hm[f].unit) ||
		     ilog_buf_printf(b, "{\"timeUnixNano\":\"%" PRIu64 "\",\"asDouble\":%.10g}]}}", now, v);
	}
	/* chains: a cumulative sum per (kind, severity) */
	rc = rc || ilog_buf_printf(b, ",{\"name\":\"ingero.chains\",\"description\":\"Causal chains "
				   "ingero-correlate's engine found, by kind and severity.\",\"unit\":"
				   "\"{chain}\",\"sum\":{\"aggregationTemporality\":2,\"isMonotonic\":true,"
				   "\"dataPoints\":[");
	first = 1;
	for (uint32_t c = 0; c < l->nchains && !rc; c++) {
		const struct ilog_live_chains *k = &l->chains[c];
		if (k->node != node)
			continue;
		rc = ilog_buf_printf(b, "%s{\"attributes\":[", first ? "" : ",") ||
		     str_attr(b, "ingero.chain.kind", k->kind, 0) ||
		     str_attr(b, "ingero.chain.severity", ilog_severity_name(k->sev), 1) ||
		     ilog_buf_printf(b, "],\"startTimeUnixNano\":\"%" PRIu64 "\",\"timeUnixNano\":\"%"
				     PRIu64 "\",\"asInt\":\"%" PRIu64 "\"}", t0, t1 > t0 ? t1 : t0, k->n);
		first = 0;
	}
	rc = rc || ilog_buf_printf(b, "]}}");
	if (node == 0 && !rc) {
		/* the exporter's own counters, once: on the first node */
		static const char *const what[ILOG_PUSH__N] = { "sent", "failed", "dropped" };
		rc = ilog_buf_printf(b, ",{\"name\":\"ingero.export.records\",\"description\":"
				     "\"Records read from the stream.\",\"unit\":\"{record}\",\"sum\":"
				     "{\"aggregationTemporality\":2,\"isMonotonic\":true,\"dataPoints\":"
				     "[{\"startTimeUnixNano\":\"%" PRIu64 "\",\"timeUnixNano\":\"%" PRIu64
				     "\",\"asInt\":\"%" PRIu64 "\"}]}}", t0, now > t0 ? now : t0, l->records) ||
		     ilog_buf_printf(b, ",{\"name\":\"ingero.export.otlp.pushes\",\"description\":"
				     "\"OTLP pushes by result: sent, failed after retries, dropped.\",\"unit\":"
				     "\"{push}\",\"sum\":{\"aggregationTemporality\":2,\"isMonotonic\":true,"
				     "\"dataPoints\":[");
		for (int k = 0; k < ILOG_PUSH__N && !rc; k++)
			rc = ilog_buf_printf(b, "%s{\"attributes\":[", k ? "," : "") ||
			     str_attr(b, "result", what[k], 0) ||
			     ilog_buf_printf(b, "],\"startTimeUnixNano\":\"%" PRIu64 "\",\"timeUnixNano\":\"%"
					     PRIu64 "\",\"asInt\":\"%" PRIu64 "\"}", t0, now > t0 ? now : t0,
					     l->push[k]);
		rc = rc || ilog_buf_printf(b, "]}}");
	}
	return rc;
}

int ilog_live_otlp(struct ilog_live *l, struct ilog_buf *b)
{
	ilog_live_lock(l);
	int rc = render_with(&l->m, l, b);
	ilog_live_unlock(l);
	return rc ? -1 : 0;
}

static int otlp_close(struct ilog_sink_ctx *c)
{
	return ilog_metrics_sink_close(c, render);
}

const struct ilog_sink ilog_sink_otlp = {
	.name = "otlp",
	.help = "the same metrics as one OTLP/HTTP JSON document (POST to /v1/metrics)",
	.open = ilog_metrics_sink_open, .record = ilog_metrics_sink_record,
	.close = otlp_close,
};
