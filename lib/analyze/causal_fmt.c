// SPDX-License-Identifier: MIT
/*
 * Words and numbers for the causal chains (causal_int.h): the rotating
 * format buffers every sentence is built from, CUDA error names, and the
 * metrics object in which every number a sentence quotes is written under
 * a stable key.
 */
#include <math.h>
#include <stdarg.h>
#include "causal_int.h"

const char *causal_fmt(struct ctx *x, const char *f, ...)
{
	char *b = x->fb[x->fi++ % 16];
	va_list ap;
	va_start(ap, f);
	vsnprintf(b, sizeof(x->fb[0]), f, ap);
	va_end(ap);
	return b;
}

const char *causal_err_name(int32_t e)
{
	switch (e) {
	case 1: return "invalid value";
	case 2: return "out of memory";
	case 3: return "initialization error";
	case 35: return "insufficient driver";
	case 100: return "no device";
	case 700: return "illegal address";
	case 900: return "stream capture unsupported";
	case 901: return "stream capture invalidated";
	case 999: return "unknown";
	}
	return "error";
}

static void met_key(struct cand *c, const char *k)
{
	ilog_buf_put(&c->met, c->met.len ? "," : "{", 1);
	json_str(&c->met, k);
	ilog_buf_put(&c->met, ":", 1);
}

void causal_met_u(struct cand *c, const char *k, uint64_t v)
{
	char t[32];
	met_key(c, k);
	int n = snprintf(t, sizeof(t), "%llu", (unsigned long long)v);
	ilog_buf_put(&c->met, t, (size_t)n);
}

void causal_met_preempt(struct cand *c, const char *who, const struct preempt *q)
{
	char k[64];
	snprintf(k, sizeof(k), "%s_preemptions", who);
	causal_met_u(c, k, q->n);
	if (q->wn) {
		snprintf(k, sizeof(k), "%s_runq_waits", who);
		causal_met_u(c, k, q->wn);
	}
	snprintf(k, sizeof(k), "%s_offcpu_ns", who);
	causal_met_u(c, k, q->dur);
}

const char *causal_took(struct ctx *x, char *b, size_t n, const struct preempt *q,
			const char *whom, const char *them)
{
	unsigned long long pn = q->n, wn = q->wn;
	const char *d = D(x, (double)q->dur);
	if (!wn)
		snprintf(b, n, "preempted %s %llu times for %s", whom, pn, d);
	else if (!pn)
		snprintf(b, n, "kept %s waiting for a CPU after %llu wakeups, for %s", whom, wn, d);
	else
		snprintf(b, n, "preempted %s %llu times and kept %s waiting for a CPU after %llu "
			 "wakeups, for %s", whom, pn, them, wn, d);
	return b;
}

void causal_met_f(struct cand *c, const char *k, double v)
{
	char t[48];
	met_key(c, k);
	int n = snprintf(t, sizeof(t), "%.6g", isfinite(v) ? v : 0);
	ilog_buf_put(&c->met, t, (size_t)n);
}

void causal_met_s(struct cand *c, const char *k, const char *v)
{
	met_key(c, k);
	json_str(&c->met, v);
}

void causal_met_anomalies(struct ctx *x, struct cand *c, const uint8_t *inany)
{
	met_key(c, "anomalies");
	ilog_buf_put(&c->met, "[", 1);
	for (uint32_t k = 0, first = 1; k < x->T; k++) {
		if (!inany[k] || (k > 0 && inany[k - 1]))
			continue;
		uint32_t e = k;
		while (e < x->T && inany[e])
			e++;
		char t[64];
		int n = snprintf(t, sizeof(t), "%s[%llu,%llu]", first ? "" : ",",
				 (unsigned long long)tick_ts(x, k), (unsigned long long)tick_ts(x, e));
		ilog_buf_put(&c->met, t, (size_t)n);
		first = 0;
	}
	ilog_buf_put(&c->met, "]", 1);
}
