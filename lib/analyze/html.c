// SPDX-License-Identifier: MIT
/*
 * The HTML incident report (html.h): one page, inline SVG, CSS and a small
 * script, drawn from the statistics' per-window aggregates.  Every number
 * is printed with a fixed format, every list in a fixed order, so the same
 * statistics give the same bytes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ingero/html.h"
#include "stats_int.h"

#define bprintf ilog_buf_printf

/* A timeline's geometry, in SVG user units (the SVG scales to the page). */
#define TW 1200.0           /* width */
#define TL 180.0            /* left margin: the lanes' labels */
#define TR 36.0            /* room for the last time label */
#define TPW (TW - TL - TR)  /* plot width */
#define LAT_TOP 10.0
#define LAT_H 190.0         /* latency panel */
#define LANE_H 30.0
#define LANE_GAP 8.0
#define AXIS_H 28.0

static const char *const palette[] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd",
				       "#ff7f0e", "#17becf", "#8c564b", "#e377c2" };
#define NPAL (sizeof(palette) / sizeof(palette[0]))

/* HTML text or attribute value: & < > " ' escaped, bytes that are not
 * valid UTF-8 as U+FFFD. */
static void esc(struct ilog_buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		const char *e = c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;"
			      : c == '"' ? "&quot;" : c == '\'' ? "&#39;" : NULL;
		if (e) {
			ilog_buf_put(b, e, strlen(e));
			i++;
			continue;
		}
		if (c < 0x20 && c != '\n' && c != '\t') {
			ilog_buf_put(b, " ", 1);
			i++;
			continue;
		}
		size_t k = c < 0x80 ? 1 : ilog_utf8_len((const unsigned char *)s + i, n - i);
		if (!k) {
			ilog_buf_put(b, "\xef\xbf\xbd", 3);
			i++;
			continue;
		}
		ilog_buf_put(b, s + i, k);
		i += k;
	}
}

static void escz(struct ilog_buf *b, const char *s)
{
	esc(b, s ? s : "", s ? strlen(s) : 0);
}

static void escs(struct ilog_buf *b, struct ilog_str s)
{
	esc(b, s.n ? s.p : "", s.n);
}

static const char *dur(char *buf, double ns)
{
	return ilog_fmt_dur(buf, 32, ns);
}

/* ---- what is drawn for one node ---- */
struct opser {
	uint16_t op;
	uint64_t total;
	double *p50, *p99;        /* per window, NAN: no call */
};

struct lane {
	char key[48];             /* data-signal: stable id */
	char label[80];
	const char *unit;         /* ns, count, pages, bytes, pct */
	double *v;                /* per window, NAN: no sample */
	double full;              /* the lane's top: this, or its maximum when 0 */
};

struct skew {
	int known;
	long long rank, offset_ns;
	double unc_ns;            /* < 0: unknown */
	char method[32];
	int applied;
};

struct nview {
	struct ilog_stats_summary s;
	struct snode *nd;
	uint32_t nw;
	double off;               /* start on the shared axis, ns */
	struct opser ops[ILOG_HTML_OPS + 16];
	uint32_t nops;
	struct lane *lanes;
	uint32_t nlanes, caplanes;
	struct skew sk;
	char label[96];
};

struct ctx {
	struct ilog_buf *b;
	struct ilog_stats *st;
	const struct ilog_chain_set *cs;
	const struct ilog_html_opts *o;
	struct ilog_stat_row *rows, *prows, *wrows;
	int nrows, nprows, nwrows;
	struct nview *nv;
	uint32_t nn;
	double axis;              /* ns covered by the shared axis */
	int oom;
};

static double *nan_array(struct ctx *x, uint32_t n)
{
	double *v = malloc((n ? n : 1) * sizeof(*v));
	if (!v) {
		x->oom = 1;
		return NULL;
	}
	for (uint32_t i = 0; i < n; i++)
		v[i] = NAN;
	return v;
}

static struct nview *view_of(struct ctx *x, uint32_t node)
{
	for (uint32_t i = 0; i < x->nn; i++)
		if (x->nv[i].s.node == node)
			return &x->nv[i];
	return NULL;
}

/* The ops drawn: the heaviest by CUDA time, and every op a chain is about. */
static void pick_ops(struct ctx *x, struct nview *v)
{
	for (int i = 0; i < x->nrows; i++) {
		const struct ilog_stat_row *r = &x->rows[i];
		if (r->node != v->s.node || v->nops >= ILOG_HTML_OPS)
			continue;
		v->ops[v->nops++] = (struct opser){ .op = r->op, .total = r->total_ns };
	}
	for (uint32_t i = 0; i < x->cs->n; i++) {
		uint16_t op = x->cs->chains[i].op;
		int have = !op || x->cs->nodes[i] != v->s.node;
		for (uint32_t k = 0; k < v->nops && !have; k++)
			have = v->ops[k].op == op;
		if (!have && v->nops < sizeof(v->ops) / sizeof(v->ops[0]))
			v->ops[v->nops++] = (struct opser){ .op = op };
	}
	for (uint32_t k = 0; k < v->nops; k++) {
		v->ops[k].p50 = nan_array(x, v->nw);
		v->ops[k].p99 = nan_array(x, v->nw);
	}
	if (x->oom)
		return;
	for (int i = 0; i < x->nwrows; i++) {
		const struct ilog_stat_row *r = &x->wrows[i];
		if (r->node != v->s.node || !v->nd->width || r->start_ns < v->nd->t0)
			continue;
		uint64_t k = (r->start_ns - v->nd->t0) / v->nd->width;
		for (uint32_t j = 0; j < v->nops && k < v->nw; j++)
			if (v->ops[j].op == r->op) {
				/* one row per (layer, op): an op has one layer */
				v->ops[j].p50[k] = (double)r->p50_ns;
				v->ops[j].p99[k] = (double)r->p99_ns;
			}
	}
}

static struct lane *lane_add(struct ctx *x, struct nview *v, const char *key, const char *label,
			     const char *unit)
{
	if (ilog_grow((void **)&v->lanes, &v->caplanes, v->nlanes, sizeof(*v->lanes), 8)) {
		x->oom = 1;
		return NULL;
	}
	struct lane *l = &v->lanes[v->nlanes];
	memset(l, 0, sizeof(*l));
	snprintf(l->key, sizeof(l->key), "%s", key);
	snprintf(l->label, sizeof(l->label), "%s", label);
	l->unit = unit;
	if (!(l->v = nan_array(x, v->nw)))
		return NULL;
	v->nlanes++;
	return l;
}

/* Drop a lane that never left zero (a signal absent from the log). */
static void lane_keep_if_any(struct nview *v)
{
	struct lane *l = &v->lanes[v->nlanes - 1];
	for (uint32_t k = 0; k < v->nw; k++)
		if (l->v[k] > 0)
			return;
	free(l->v);
	v->nlanes--;
}

/*
 * Host signals.  The table names what the known host types mean; a type
 * it does not list (a newer recorder's) still gets lanes: its events per
 * window, and its summed duration and value where they are not zero.
 */
static const struct lanedef {
	uint16_t type;
	char metric;              /* n: events, d: summed dur_ns, v: summed value,
				   * r: value per dur_ns in percent, the latest carried */
	const char *key, *label, *unit;
} lanedefs[] = {
	{ ILOG_HOST_SWITCH, 'n', "preempt", "preemptions of the job's threads", "count" },
	{ ILOG_HOST_SWITCH, 'd', "preempt-offcpu", "off-CPU time, preempted", "ns" },
	{ HS_BLOCKED, 'd', "blocked-offcpu", "off-CPU time, blocked in a call", "ns" },
	{ ILOG_HOST_SCHED_AGG, 'v', "switches", "other context switches", "count" },
	{ ILOG_HOST_WAKEUP, 'd', "wakeup-delay", "wakeup-to-run delay", "ns" },
	{ ILOG_HOST_PAGE_ALLOC, 'v', "page-alloc", "page allocations", "pages" },
	{ ILOG_HOST_PAGE_ALLOC_REST, 'v', "page-alloc-rest", "page allocations, other processes",
	  "pages" },
	{ ILOG_HOST_RECLAIM, 'd', "reclaim", "direct reclaim stalls", "ns" },
	{ ILOG_HOST_COMPACT, 'd', "compact", "compaction stalls", "ns" },
	{ ILOG_HOST_IOWAIT, 'v', "iowait", "time blocked on I/O", "ns" },
	{ ILOG_HOST_WAIT, 'v', "between-waits", "time blocked between calls, not on I/O", "ns" },
	{ HS_RETRANS, 'v', "retransmits", "TCP retransmissions", "count" },
	{ HS_SOCKIO, 'v', "tcp-bytes", "TCP bytes sent and received", "bytes" },
	{ ILOG_HOST_CPU_QUOTA, 'r', "cpu-quota", "CPU quota of the job's cgroup (100% = 1 CPU)",
	  "pct" },
	{ ILOG_HOST_CPU_THROTTLE, 'v', "cpu-throttled", "CPU time throttled by that quota", "ns" },
};

static int by_u16(const void *a, const void *b)
{
	uint16_t x = *(const uint16_t *)a, y = *(const uint16_t *)b;
	return (x > y) - (x < y);
}

static void host_lane(struct ctx *x, struct nview *v, uint16_t type, char metric, const char *key,
		      const char *label, const char *unit)
{
	struct lane *l = lane_add(x, v, key, label, unit);
	if (!l)
		return;
	for (uint32_t k = 0; k < v->nw; k++)
		l->v[k] = 0;
	for (uint32_t i = 0; i < x->st->nhs; i++) {
		const struct hseries *h = x->st->hs[i];
		if (h->node != v->s.node || h->type != type)
			continue;
		for (uint32_t k = 0; k < h->nt && k < v->nw; k++) {
			if (metric != 'r') {
				l->v[k] += metric == 'n' ? (double)h->t[k].n
					 : metric == 'd' ? (double)h->t[k].dur : (double)h->t[k].value;
				continue;
			}
			/* a setting, not an amount: the largest of the targets' */
			double r = h->t[k].n && h->t[k].dur ?
					   100.0 * (double)h->t[k].value / (double)h->t[k].dur : 0;
			l->v[k] = r > l->v[k] ? r : l->v[k];
		}
	}
	/* a setting holds until the next reading */
	for (uint32_t k = 1; metric == 'r' && k < v->nw; k++)
		if (l->v[k] == 0)
			l->v[k] = l->v[k - 1];
	lane_keep_if_any(v);
}

/*
 * Block devices (format 1.3 blkio records): per device its throughput and
 * p99 latency in each recorder window (all its records of the window, the
 * histograms summed), held over the analysis windows the window covers.
 */
struct disk_acc {
	char disk[32];
	uint32_t ibps;            /* index of its first lane */
	uint64_t ts, dur, bytes, max;
	uint64_t h[INGERO_BLK_HBUCKETS];
};

static void disk_flush(struct nview *v, const struct snode *nd, struct disk_acc *a)
{
	if (!a->dur || a->ts < nd->t0)
		return;
	struct lane *bps = &v->lanes[a->ibps], *p99 = &v->lanes[a->ibps + 1];
	uint64_t k0 = (a->ts - nd->t0) / nd->width, k1 = (a->ts + a->dur - nd->t0) / nd->width;
	for (uint64_t k = k0; k <= k1 && k < v->nw; k++) {
		bps->v[k] = (double)a->bytes * 1e9 / (double)a->dur;
		p99->v[k] = (double)ilog_blk_quantile(a->h, INGERO_BLK_HBUCKETS, 0.99, a->max);
	}
}

static void disk_lanes(struct ctx *x, struct nview *v)
{
	const struct ilog_stats *st = x->st;
	struct disk_acc acc[8];
	uint32_t na = 0;
	for (uint32_t i = 0; i < st->nblk && !x->oom; i++) {
		const struct sblk *b = &st->blk[i];
		if (b->node != v->s.node)
			continue;
		uint32_t d = 0;
		while (d < na && strcmp(acc[d].disk, b->disk))
			d++;
		if (d == na) {
			if (na == 8)
				continue; /* the first 8 devices */
			char key[48], label[80];
			snprintf(key, sizeof(key), "disk-bps-%.30s", b->disk);
			snprintf(label, sizeof(label), "disk %.30s throughput (per s)", b->disk);
			if (!lane_add(x, v, key, label, "bytes"))
				return;
			snprintf(key, sizeof(key), "disk-p99-%.30s", b->disk);
			snprintf(label, sizeof(label), "disk %.30s latency p99", b->disk);
			if (!lane_add(x, v, key, label, "ns"))
				return;
			for (uint32_t k = 0; k < v->nw; k++)
				v->lanes[v->nlanes - 2].v[k] = v->lanes[v->nlanes - 1].v[k] = 0;
			memset(&acc[na], 0, sizeof(acc[na]));
			snprintf(acc[na].disk, sizeof(acc[na].disk), "%s", b->disk);
			acc[na++].ibps = v->nlanes - 2;
		}
		struct disk_acc *a = &acc[d];
		if (a->ts != b->ts) { /* a window's records are written together */
			disk_flush(v, v->nd, a);
			a->ts = b->ts, a->dur = b->dur, a->bytes = a->max = 0;
			memset(a->h, 0, sizeof(a->h));
		}
		a->bytes += b->bytes;
		a->max = b->lat_max > a->max ? b->lat_max : a->max;
		for (uint32_t e = 0; e < INGERO_BLK_HBUCKETS; e++)
			a->h[e] += b->hist[e];
	}
	for (uint32_t d = 0; d < na; d++)
		disk_flush(v, v->nd, &acc[d]);
}

/* The training steps of the node's processes (ilog_stats_step_procs), up
 * to 4: a lane each, the mean duration of the steps that ended in each
 * window. */
static void step_lanes(struct ctx *x, struct nview *v)
{
	const struct snode *nd = v->nd;
	struct ilog_step_proc *pr;
	int n = ilog_stats_step_procs(x->st, &pr), shown = 0;
	double *cnt = n > 0 ? calloc(v->nw + 1, sizeof(*cnt)) : NULL;
	if (n < 0 || (n > 0 && !cnt)) {
		x->oom = 1;
		free(pr);
		return;
	}
	for (int i = 0; i < n && shown < 4 && nd->width; i++) {
		if (pr[i].node != v->s.node)
			continue;
		char key[48], label[80];
		snprintf(key, sizeof(key), "steps-%u", pr[i].pid);
		snprintf(label, sizeof(label), "step time, PID %u (%.40s)", pr[i].pid, pr[i].comm);
		struct lane *l = lane_add(x, v, key, label, "ns");
		if (!l)
			break;
		memset(cnt, 0, v->nw * sizeof(*cnt));
		struct ilog_step_row r;
		for (uint32_t k = 0; !ilog_stats_step(x->st, pr[i].node, pr[i].pid, k, &r); k++) {
			uint64_t w = r.end_ns > nd->t0 ? (r.end_ns - nd->t0) / nd->width : 0;
			if (w >= v->nw)
				continue;
			double d = (double)(r.end_ns - r.start_ns);
			l->v[w] = cnt[w]++ ? l->v[w] + d : d;
		}
		for (uint32_t w = 0; w < v->nw; w++)
			if (cnt[w])
				l->v[w] /= cnt[w];
		shown++;
	}
	free(cnt);
	free(pr);
}

/* What a snapshot lane shows of a window's snapshots: PSI kind 0 ..
 * PSI_N - 1, the CPUs' steal or the swap used. */
enum { SNAP_STEAL = PSI_N, SNAP_SWAP };
static double snap_value(const struct snaptick *t, int what)
{
	return what < PSI_N ? t->psi_max[what]
	       : what == SNAP_STEAL ? t->steal_sum / t->n
				    : (double)t->swap_used_max;
}

/* A lane of one snapshot value (snap_value's what) out of full: a snapshot
 * samples a state, which holds until the next one.  NULL: out of memory. */
static struct lane *snap_lane(struct ctx *x, struct nview *v, const char *id, const char *label,
			      const char *unit, double full, int what)
{
	const struct snode *nd = v->nd;
	struct lane *l = lane_add(x, v, id, label, unit);
	if (!l)
		return NULL;
	l->full = full;
	const struct snaptick *t = NULL;
	for (uint32_t k = 0; k < v->nw; k++) {
		if (k < nd->nsnap && nd->snap[k].n)
			t = &nd->snap[k];
		if (t)
			l->v[k] = snap_value(t, what);
	}
	return l;
}

static void pick_lanes(struct ctx *x, struct nview *v)
{
	const struct snode *nd = v->nd;
	if (nd->nsnap) {
		struct lane *c = lane_add(x, v, "cpu-busy", "CPU busy (all CPUs)", "pct");
		struct lane *m = c ? lane_add(x, v, "mem-avail", "memory available", "bytes") : NULL;
		if (!m)
			return;
		c = &v->lanes[v->nlanes - 2];
		c->full = 100;            /* a share of the CPUs: of all of them */
		m->full = (double)nd->mem_total;
		int swap = 0;
		/* a snapshot samples a state: it holds until the next one */
		const struct snaptick *t = NULL;
		for (uint32_t k = 0; k < v->nw; k++) {
			if (k < nd->nsnap && nd->snap[k].n)
				t = &nd->snap[k];
			if (!t)
				continue;
			c->v[k] = t->cpu_sum / t->n;
			m->v[k] = (double)t->avail_min;
			swap |= t->swap_used_max > 0;
		}
		/* pressure stall information, where the snapshots have it */
		static const char *const psi[PSI_N][2] = {
			{ "psi-cpu-some", "CPU pressure, some" }, { "psi-mem-some", "memory pressure, some" },
			{ "psi-mem-full", "memory pressure, full" }, { "psi-io-some", "I/O pressure, some" },
			{ "psi-io-full", "I/O pressure, full" } };
		for (int p = 0; p < PSI_N; p++) {
			if (!snap_lane(x, v, psi[p][0], psi[p][1], "pct", 100, p))
				return;
			lane_keep_if_any(v);
		}
		/* the hypervisor's take of the CPUs (format 1.8), where it took any */
		if (!snap_lane(x, v, "cpu-steal", "CPU stolen by the hypervisor (all CPUs)", "pct", 100,
			       SNAP_STEAL))
			return;
		lane_keep_if_any(v);
		if (swap)
			snap_lane(x, v, "swap-used", "swap used", "bytes", (double)nd->swap_total,
				  SNAP_SWAP);
	}
	uint16_t types[64];
	uint32_t nt = 0;
	for (uint32_t i = 0; i < x->st->nhs; i++) {
		const struct hseries *h = x->st->hs[i];
		int have = h->node != v->s.node;
		for (uint32_t k = 0; k < nt && !have; k++)
			have = types[k] == h->type;
		if (!have && nt < 64)
			types[nt++] = h->type;
	}
	qsort(types, nt, sizeof(types[0]), by_u16);
	for (uint32_t i = 0; i < nt && !x->oom; i++) {
		int known = 0;
		for (size_t d = 0; d < sizeof(lanedefs) / sizeof(lanedefs[0]); d++)
			if (lanedefs[d].type == types[i]) {
				known = 1;
				host_lane(x, v, types[i], lanedefs[d].metric, lanedefs[d].key,
					  lanedefs[d].label, lanedefs[d].unit);
			}
		if (known)
			continue;
		const char *name = ilog_host_type_name(types[i]);
		char nb[24], key[48], label[80];
		if (!name) {
			snprintf(nb, sizeof(nb), "host-type-%u", types[i]);
			name = nb;
		}
		static const struct { char m; const char *what, *unit; } gen[] = {
			{ 'n', "events", "count" }, { 'd', "time", "ns" }, { 'v', "value", "count" } };
		for (size_t g = 0; g < 3; g++) {
			snprintf(key, sizeof(key), "%s-%s", name, gen[g].what);
			snprintf(label, sizeof(label), "%s %s", name, gen[g].what);
			host_lane(x, v, types[i], gen[g].m, key, label, gen[g].unit);
		}
	}
	disk_lanes(x, v);
	step_lanes(x, v);
}

/* ---- clock offsets from ingero-merge's provenance record ---- */
/* The end of the JSON object or array opening at p (string-aware). */
static const char *json_close(const char *p)
{
	int depth = 0, str = 0;
	for (; *p; p++) {
		if (str) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				str = 0;
		} else if (*p == '"') {
			str = 1;
		} else if (*p == '{' || *p == '[') {
			depth++;
		} else if (*p == '}' || *p == ']') {
			if (!--depth)
				return p;
		}
	}
	return NULL;
}

/* The raw value of "key": in the object [p, e), NULL when absent. */
static const char *json_val(const char *p, const char *e, const char *key)
{
	size_t kl = strlen(key);
	for (const char *q = p; q && q + kl + 3 < e; q = memchr(q + 1, '"', (size_t)(e - q - 1)))
		if (*q == '"' && !strncmp(q + 1, key, kl) && q[kl + 1] == '"' && q[kl + 2] == ':')
			return q + kl + 3;
	return NULL;
}

static void find_skew(struct ctx *x, struct nview *v)
{
	const char *p = x->st->merge_prov.len ? x->st->merge_prov.p : NULL;
	const char *nodes = p ? strstr(p, "\"nodes\":[") : NULL;
	struct ilog_buf want = { 0 };
	if (!nodes || ilog_json_str(&want, v->s.node_name, strlen(v->s.node_name))) {
		ilog_buf_free(&want);
		return;
	}
	for (const char *o = strchr(nodes + 9, '{'); o; o = strchr(o + 1, '{')) {
		const char *e = json_close(o), *n = e ? json_val(o, e, "node") : NULL;
		if (!e)
			break;
		if (n && !strncmp(n, want.p, want.len)) {
			const char *s;
			v->sk.known = 1;
			v->sk.rank = (s = json_val(o, e, "rank")) ? strtoll(s, NULL, 10) : -1;
			v->sk.offset_ns = (s = json_val(o, e, "offset_ns")) ? strtoll(s, NULL, 10) : 0;
			s = json_val(o, e, "uncertainty_ns");
			v->sk.unc_ns = s && *s != 'n' ? strtod(s, NULL) : -1;
			s = json_val(o, e, "applied");
			v->sk.applied = s && *s == 't';
			s = json_val(o, e, "method");
			size_t k = 0;
			for (s = s && *s == '"' ? s + 1 : ""; *s && *s != '"' && k + 1 < sizeof(v->sk.method); s++)
				v->sk.method[k++] = *s;
			v->sk.method[k] = 0;
			break;
		}
		o = e;
	}
	ilog_buf_free(&want);
}

/* ---- the page ---- */
static const char css[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1d232b;background:#f5f6f8}\n"
	"main{max-width:1380px;margin:0 auto;padding:16px 24px 48px}\n"
	"h1{font-size:22px;margin:8px 0 4px}h2{font-size:18px;margin:28px 0 10px;border-bottom:1px solid #d5d9df;padding-bottom:4px}\n"
	"h3{font-size:15px;margin:4px 0}\n"
	".facts{display:flex;flex-wrap:wrap;gap:6px 28px;margin:8px 0;color:#3b4450}.facts b{color:#1d232b}\n"
	".verdict{font-size:17px;padding:10px 14px;border-radius:6px;background:#e8f3ea;border-left:6px solid #2e8540;margin:10px 0}\n"
	".verdict.sev-high{background:#fbe9e9;border-color:#c62828}.verdict.sev-medium{background:#fff4e0;border-color:#e08a00}\n"
	".verdict.sev-low{background:#eef3fb;border-color:#3a6fc4}\n"
	".loss{font-size:16px;font-weight:600;padding:10px 14px;border-radius:6px;background:#c62828;color:#fff}\n"
	".note{color:#5b6572}\n"
	".chains{display:grid;grid-template-columns:repeat(auto-fill,minmax(420px,1fr));gap:12px}\n"
	".chain{background:#fff;border-radius:6px;padding:10px 14px;border-left:6px solid #3a6fc4;box-shadow:0 1px 2px #0002}\n"
	".chain.sev-high{border-color:#c62828}.chain.sev-medium{border-color:#e08a00}\n"
	".chain .top{display:flex;flex-wrap:wrap;gap:4px 12px;align-items:baseline;color:#3b4450}\n"
	".chain .rank{font-weight:700;color:#1d232b}.sev{font-weight:700;font-size:12px;padding:1px 6px;border-radius:3px;background:#3a6fc4;color:#fff}\n"
	".sev-high .sev{background:#c62828}.sev-medium .sev{background:#e08a00}\n"
	".chain p{margin:5px 0}.chain code,.callpath{font:12px ui-monospace,monospace;word-break:break-word}\n"
	".culprit-name{color:#c62828}\n"
	"a.goto{display:inline-block;margin-top:4px;color:#0b57d0}\n"
	".node{background:#fff;border-radius:6px;padding:8px 12px;margin:10px 0;box-shadow:0 1px 2px #0002}\n"
	".skew{color:#3b4450;font-size:13px;margin:2px 0 6px}\n"
	"svg.timeline,svg.nodes{width:100%;height:auto;display:block}\n"
	"svg text{font:11px system-ui,sans-serif;fill:#3b4450}\n"
	".grid line{stroke:#e3e6ea}.axis line{stroke:#8a939e}\n"
	"rect.anomaly{fill:#f3b0a8;fill-opacity:.45}rect.anomaly.hl{fill:#e8554e;fill-opacity:.5;stroke:#b71c1c}\n"
	".op-series path{fill:none;stroke-width:1.6}.op-series path.p50{stroke-dasharray:4 3;stroke-width:1.2}\n"
	".lane path{fill:#7d8fa8;fill-opacity:.55;stroke:#5b6f8c;stroke-width:.6}.lane .base{stroke:#c5cbd3}\n"
	".cursor{stroke:#1d232b;stroke-width:.8}\n"
	".legend{display:flex;flex-wrap:wrap;gap:4px 16px;font-size:12px;margin:4px 0 0 4px}\n"
	".legend i{display:inline-block;width:18px;height:3px;margin-right:5px;vertical-align:middle}\n"
	"#tip{position:absolute;background:#1d232bee;color:#fff;font-size:12px;padding:6px 9px;border-radius:4px;pointer-events:none;max-width:340px;z-index:9}\n"
	"#tip span{color:#9fc3ff}\n"
	"table{border-collapse:collapse;background:#fff;font-size:13px;box-shadow:0 1px 2px #0002}\n"
	"th,td{padding:3px 10px;text-align:right;border-bottom:1px solid #eceff2;white-space:nowrap}\n"
	"th{background:#e9edf2;cursor:pointer;user-select:none}th[aria-sort=ascending]::after{content:' \\25b2'}th[aria-sort=descending]::after{content:' \\25bc'}\n"
	"td.s,th.s{text-align:left}\n"
	".bar{display:inline-block;height:9px;background:#3a6fc4;vertical-align:middle;margin-right:6px}\n"
	".icicle{position:relative;background:#fff;border:1px solid #dde1e6;margin:4px 0 14px;overflow:hidden}\n"
	".icicle div{position:absolute;height:19px;box-sizing:border-box;border:1px solid #fff;font-size:11px;line-height:17px;padding:0 3px;overflow:hidden;white-space:nowrap;text-overflow:ellipsis;background:#f0b27a}\n"
	".icicle div.py{background:#8fc1e3}.icicle div.root{background:#c9ced6;font-weight:600}.icicle div.other{background:#dfe3e8}\n";

static const char script[] =
	"(function(){'use strict';\n"
	"var D=JSON.parse(document.getElementById('ingero-data').textContent),tip=document.getElementById('tip');\n"
	"function each(s,f){Array.prototype.forEach.call(document.querySelectorAll(s),f);}\n"
	"function dur(n){var a=Math.abs(n);return a<1e3?n.toFixed(0)+' ns':a<1e6?(n/1e3).toPrecision(3)+' us':a<1e9?(n/1e6).toPrecision(3)+' ms':(n/1e9).toPrecision(3)+' s';}\n"
	"function bytes(v){var u=['B','KiB','MiB','GiB','TiB'],i=0;while(v>=1024&&i<4){v/=1024;i++;}return v.toFixed(i?1:0)+' '+u[i];}\n"
	"function val(v,u){if(v===null)return 'no sample';if(u==='ns')return dur(v);if(u==='bytes')return bytes(v);if(u==='pct')return v.toFixed(1)+'%';return (Math.round(v*100)/100)+(u==='count'?'':' '+u);}\n"
	"function line(a,b){var r=document.createElement('div'),s=document.createElement('span');s.textContent=a;r.appendChild(s);r.appendChild(document.createTextNode(' '+b));tip.appendChild(r);}\n"
	"each('svg.timeline',function(svg){\n"
	" var N=D.nodes[+svg.getAttribute('data-node')],ov=svg.querySelector('.hover'),cur=svg.querySelector('.cursor'),ops=svg.querySelectorAll('.op-series'),lanes=svg.querySelectorAll('.lane');\n"
	" function hide(){tip.hidden=true;cur.setAttribute('visibility','hidden');}\n"
	" ov.addEventListener('mousemove',function(e){\n"
	"  var m=svg.getScreenCTM();if(!m)return;var x=(e.clientX-m.e)/m.a,k=Math.floor(((x-D.L)/D.PW*D.axis-N.off)/N.w);\n"
	"  if(k<0||k>=N.n){hide();return;}\n"
	"  var cx=(D.L+(N.off+(k+0.5)*N.w)/D.axis*D.PW).toFixed(1);cur.setAttribute('x1',cx);cur.setAttribute('x2',cx);cur.setAttribute('visibility','visible');\n"
	"  tip.textContent='';var h=document.createElement('b');h.textContent='+'+dur(k*N.w)+' to +'+dur((k+1)*N.w);tip.appendChild(h);\n"
	"  for(var i=0;i<ops.length;i++){var a=N.ops[i][0][k],b=N.ops[i][1][k];line(ops[i].getAttribute('data-op'),a===null?'no calls':'p50 '+dur(a)+', p99 '+dur(b));}\n"
	"  for(i=0;i<lanes.length;i++)line(lanes[i].getAttribute('data-label'),val(N.lanes[i][k],lanes[i].getAttribute('data-unit')));\n"
	"  tip.hidden=false;tip.style.left=Math.max(0,Math.min(e.pageX+14,document.documentElement.scrollWidth-360))+'px';tip.style.top=(e.pageY+14)+'px';\n"
	" });\n"
	" ov.addEventListener('mouseleave',hide);\n"
	"});\n"
	"each('a.goto',function(a){a.addEventListener('click',function(e){\n"
	" var r=document.getElementById(a.getAttribute('data-iv'));if(!r)return;e.preventDefault();\n"
	" each('rect.anomaly.hl',function(x){x.classList.remove('hl');});r.classList.add('hl');\n"
	" var s=r.ownerSVGElement,w=s.parentNode,b=r.getBBox(),m=s.getScreenCTM();\n"
	" s.scrollIntoView({block:'center'});if(m&&w.scrollWidth>w.clientWidth)w.scrollLeft=Math.max(0,(b.x+b.width/2)*m.a-w.clientWidth/2);\n"
	" if(history.replaceState)history.replaceState(null,'','#'+r.id);\n"
	"});});\n"
	"each('table.sortable',function(t){var hs=t.tHead.rows[0].cells;\n"
	" Array.prototype.forEach.call(hs,function(th,i){th.addEventListener('click',function(){\n"
	"  var num=th.hasAttribute('data-num'),up=th.getAttribute('aria-sort')===(num?'descending':'ascending');\n"
	"  Array.prototype.forEach.call(hs,function(x){x.removeAttribute('aria-sort');});th.setAttribute('aria-sort',(up?!num:num)?'descending':'ascending');\n"
	"  var dir=th.getAttribute('aria-sort')==='ascending'?1:-1,b=t.tBodies[0],rs=Array.prototype.slice.call(b.rows);\n"
	"  rs.sort(function(p,q){var x=p.cells[i],y=q.cells[i];if(num)return dir*(+x.getAttribute('data-v')-+y.getAttribute('data-v'));return dir*x.textContent.localeCompare(y.textContent);});\n"
	"  rs.forEach(function(r){b.appendChild(r);});\n"
	" });});\n"
	"});\n"
	"})();\n";

static const char *sev_class(uint32_t sev)
{
	return sev == ILOG_SEV_HIGH ? "sev-high" : sev == ILOG_SEV_MEDIUM ? "sev-medium" : "sev-low";
}

struct hproc {
	uint32_t node, pid;
	const char *comm;
	uint64_t total;
};

static int by_total(const void *a, const void *b)
{
	const struct hproc *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static void header(struct ctx *x)
{
	struct ilog_buf *b = x->b;
	char d[32], w[64];
	bprintf(b, "<header>\n<h1>ingero incident report");
	if (x->o->name) {
		bprintf(b, ": ");
		escz(b, x->o->name);
	}
	bprintf(b, "</h1>\n");
	if (x->o->note) {
		bprintf(b, "<p class=\"note\">");
		escz(b, x->o->note);
		bprintf(b, "</p>\n");
	}
	uint64_t lost = 0, seen = 0, span = 0;
	bprintf(b, "<div class=\"facts\">\n<span>Node%s: <b>", x->nn == 1 ? "" : "s");
	for (uint32_t i = 0; i < x->nn; i++) {
		bprintf(b, "%s", i ? ", " : "");
		escz(b, x->nv[i].label);
		lost += x->nv[i].s.lost;
		seen += x->nv[i].s.seen;
		uint64_t dd = x->nv[i].s.end_ns > x->nv[i].s.start_ns ? x->nv[i].s.end_ns - x->nv[i].s.start_ns : 0;
		span = dd > span ? dd : span;
	}
	if (!x->nn)
		bprintf(b, "none");
	ilog_fmt_wall(w, sizeof(w), x->nn ? x->nv[0].s.real_start_ns : 0);
	bprintf(b, "</b></span>\n<span>Recorded: <b>%s</b></span>\n<span>Duration: <b>%s</b></span>\n",
		w, dur(d, x->nn > 1 ? x->axis : (double)span));
	/* the processes with CUDA calls, heaviest first */
	struct hproc *pr = calloc(x->nprows ? (size_t)x->nprows : 1, sizeof(*pr));
	uint32_t np = 0;
	for (int i = 0; pr && i < x->nprows; i++) {
		const struct ilog_stat_row *r = &x->prows[i];
		if (!np || pr[np - 1].node != r->node || pr[np - 1].pid != r->pid)
			pr[np++] = (struct hproc){ r->node, r->pid, r->comm, 0 };
		pr[np - 1].total += r->total_ns;
	}
	if (!pr)
		x->oom = 1;
	else
		qsort(pr, np, sizeof(*pr), by_total);
	bprintf(b, "<span>CUDA processes (%u): <b>", np);
	for (uint32_t i = 0; i < np && i < 8; i++) {
		bprintf(b, "%s", i ? ", " : "");
		escz(b, pr[i].comm[0] ? pr[i].comm : "?");
		bprintf(b, " (%u)", pr[i].pid);
	}
	bprintf(b, "%s%s</b></span>\n</div>\n", np > 8 ? ", ..." : "", np ? "" : "none");
	free(pr);
	/* lost events first: every figure below is a lower bound then */
	if (lost)
		bprintf(b, "<p class=\"loss\" id=\"loss\">The recorder lost %llu of %llu events (%.2f%%): "
			   "counts and times below are lower bounds.</p>\n",
			(unsigned long long)lost, (unsigned long long)(lost + seen),
			100.0 * (double)lost / (double)(lost + seen));
	/* damaged input: every figure below is a lower bound too */
	const char *in;
	const struct ilog_damage *dm;
	for (uint32_t i = 0; (dm = ilog_stats_damage(x->st, i, &in)); i++) {
		bprintf(b, "<p class=\"loss\">");
		escz(b, in);
		bprintf(b, ": offset %llu: %llu damaged bytes skipped", (unsigned long long)dm->off,
			(unsigned long long)dm->bytes);
		if (dm->records >= 0)
			bprintf(b, ", about %lld records lost", (long long)dm->records);
		bprintf(b, ": counts and times below are lower bounds.</p>\n");
	}
	/* what recording cost, per node: a fact about the measurement */
	for (uint32_t i = 0; i < x->cs->nnotes; i++) {
		const struct ilog_chain *c = &x->cs->notes[i];
		if (!ilog_chain_is(c, ILOG_PAT_RECORDING_OVERHEAD))
			continue;
		bprintf(b, "<p class=\"note\" id=\"overhead-%u\">Recording cost: %s off-CPU of the "
			   "traced CUDA threads (%.2f%% of their CUDA time), taken by the recorder.</p>\n",
			i, dur(d, (double)c->lost_ns), c->score * 100);
	}
	/* the verdict */
	if (!x->cs->n) {
		bprintf(b, "<p class=\"verdict\" id=\"verdict\">No causal chain: nothing material was "
			   "found (no finding lost 5%% of a process's CUDA time and 50 ms).</p>\n");
	} else {
		const struct ilog_chain *c = &x->cs->chains[0];
		bprintf(b, "<p class=\"verdict %s\" id=\"verdict\"><b>%s %.*s:</b> ", sev_class(c->severity),
			ilog_severity_name(c->severity) ?: "?", (int)c->pattern.n, c->pattern.p);
		escs(b, c->title);
		if (x->cs->n > 1)
			bprintf(b, " <span class=\"note\">(and %u more chain%s)</span>", x->cs->n - 1,
				x->cs->n == 2 ? "" : "s");
		bprintf(b, "</p>\n");
	}
	bprintf(b, "</header>\n");
}

/* "+1.25 s" from the start of the node's recording */
static const char *rel(char *buf, const struct nview *v, uint64_t ts)
{
	buf[0] = '+';
	ilog_fmt_dur(buf + 1, 31, ts > v->s.start_ns ? (double)(ts - v->s.start_ns) : 0);
	return buf;
}

static void chains(struct ctx *x)
{
	struct ilog_buf *b = x->b;
	const struct ilog_chain_set *cs = x->cs;
	bprintf(b, "<section id=\"chains\">\n<h2>Causal chains: %u, most severe first</h2>\n", cs->n);
	if (!cs->n)
		bprintf(b, "<p>Nothing material: no finding lost 5%% of a process's CUDA time and "
			   "50 ms.</p>\n");
	bprintf(b, "<div class=\"chains\">\n");
	for (uint32_t i = 0; i < cs->n; i++) {
		const struct ilog_chain *c = &cs->chains[i];
		const struct nview *v = view_of(x, cs->nodes[i]);
		char d[32], t0[32], t1[32];
		bprintf(b, "<article class=\"chain %s\" id=\"chain-%u\" data-rank=\"%u\" data-pattern=\"",
			sev_class(c->severity), i + 1, i + 1);
		escs(b, c->pattern);
		bprintf(b, "\">\n<div class=\"top\"><span class=\"rank\">#%u</span><span class=\"sev\">%s</span>"
			   "<b class=\"pattern\">", i + 1, ilog_severity_name(c->severity) ?: "?");
		escs(b, c->pattern);
		bprintf(b, "</b><span>");
		if (c->pid) { /* a chain about the node as a whole names none */
			bprintf(b, "PID %u (", c->pid);
			escs(b, c->comm);
			bprintf(b, ")");
		}
		if (x->nn > 1 && v) {
			bprintf(b, " on ");
			escz(b, v->label);
		}
		bprintf(b, "</span>");
		if (c->lost_ns)
			bprintf(b, "<span>lost <b>%s</b> (%.1f%%)</span>", dur(d, (double)c->lost_ns),
				c->score * 100);
		bprintf(b, "</div>\n<h3>");
		escs(b, c->title);
		bprintf(b, "</h3>\n<p><b>Root cause:</b> ");
		escs(b, c->root_cause);
		bprintf(b, ".</p>\n");
		if (c->culprit_comm.n || c->culprit_pid) {
			bprintf(b, "<p>Culprit: <b class=\"culprit-name\">");
			escs(b, c->culprit_comm);
			bprintf(b, "</b> (PID %u)", c->culprit_pid);
			/* a neighbour: in another container than the victim */
			const char *ctr = ilog_stats_other_container(x->st, x->cs->nodes[i],
								    c->culprit_pid, c->pid);
			if (ctr[0]) {
				bprintf(b, " in <span class=\"culprit-container\">");
				escz(b, ctr);
				bprintf(b, "</span>");
			}
			bprintf(b, "</p>\n");
		}
		bprintf(b, "<p><b>Fix:</b> ");
		escs(b, c->fix);
		bprintf(b, "</p>\n");
		char site[512];
		uint64_t ns, calls;
		if (x->o->sites && c->pid &&
		    ilog_callsites_top(x->o->sites, cs->nodes[i], c->pid, c->op, site, sizeof(site), &ns,
				       &calls)) {
			bprintf(b, "<p><b>Called from:</b> <code class=\"callpath\">");
			escz(b, site);
			bprintf(b, "</code> (%llu calls, %s)</p>\n", (unsigned long long)calls, dur(d, (double)ns));
		}
		if (v && c->ts_start)
			bprintf(b, "<a class=\"goto\" href=\"#iv-%u\" data-iv=\"iv-%u\">Show %s to %s on the "
				   "timeline</a>\n", i + 1, i + 1, rel(t0, v, c->ts_start),
				rel(t1, v, c->ts_end > c->ts_start ? c->ts_end : c->ts_start));
		bprintf(b, "</article>\n");
	}
	bprintf(b, "</div>\n</section>\n");
}

static double xpos(const struct ctx *x, double t)
{
	return TL + TPW * (x->axis > 0 ? t / x->axis : 0);
}

/* A round step of about axis/8: 1, 2 or 5 x 10^k ns. */
static double tick_step(double axis)
{
	double raw = axis / 8, p = pow(10, floor(log10(raw > 1 ? raw : 1)));
	return raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
}

static void time_axis(struct ctx *x, double y, double top)
{
	struct ilog_buf *b = x->b;
	double step = tick_step(x->axis);
	char d[32];
	bprintf(b, "<g class=\"axis\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", TL, y,
		TL + TPW, y);
	for (double t = 0; t <= x->axis * 1.0001 && step > 0; t += step) {
		double px = xpos(x, t);
		bprintf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke-opacity=\".25\"/>"
			   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">+%s</text>",
			px, top, px, y + 4, px, y + 16, t > 0 ? dur(d, t) : "0 s");
	}
	bprintf(b, "</g>\n");
}

static void lat_path(struct ctx *x, const struct nview *v, const double *val, double e0, double e1,
		     const char *cls)
{
	struct ilog_buf *b = x->b;
	bprintf(b, "<path class=\"%s\" d=\"", cls);
	int pen = 0;
	for (uint32_t k = 0; k < v->nw; k++) {
		if (isnan(val[k]) || val[k] <= 0) {
			pen = 0;
			continue;
		}
		double px = xpos(x, v->off + ((double)k + 0.5) * (double)v->nd->width);
		double py = LAT_TOP + LAT_H * (1 - (log10(val[k]) - e0) / (e1 - e0));
		bprintf(b, "%s%.1f %.1f", pen ? "L" : "M", px, py);
		pen = 1;
	}
	bprintf(b, "\"/>");
}

static void timeline(struct ctx *x, uint32_t vi)
{
	struct ilog_buf *b = x->b;
	struct nview *v = &x->nv[vi];
	double lanes_top = LAT_TOP + LAT_H + 14;
	double h = lanes_top + v->nlanes * (LANE_H + LANE_GAP) + AXIS_H;
	char d[32];
	bprintf(b, "<svg class=\"timeline\" data-node=\"%u\" viewBox=\"0 0 %.0f %.0f\" "
		   "xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">\n", vi, TW, h);
	/* the latency scale: whole decades around the drawn quantiles */
	double lo = INFINITY, hi = 0;
	for (uint32_t j = 0; j < v->nops; j++)
		for (uint32_t k = 0; k < v->nw; k++) {
			if (v->ops[j].p50[k] > 0 && v->ops[j].p50[k] < lo)
				lo = v->ops[j].p50[k];
			if (v->ops[j].p99[k] > hi)
				hi = v->ops[j].p99[k];
		}
	double e0 = isinf(lo) ? 3 : floor(log10(lo)), e1 = hi > 0 ? ceil(log10(hi)) : e0 + 1;
	if (e1 <= e0)
		e1 = e0 + 1;
	bprintf(b, "<g class=\"grid\">");
	for (double e = e0; e <= e1; e++) {
		double py = LAT_TOP + LAT_H * (1 - (e - e0) / (e1 - e0));
		bprintf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" "
			   "text-anchor=\"end\">%s</text>", TL, py, TL + TPW, py, TL - 6, py + 4,
			dur(d, pow(10, e)));
	}
	bprintf(b, "<text x=\"8\" y=\"%.1f\">call latency</text><text x=\"8\" y=\"%.1f\">p99 solid, "
		   "p50 dashed</text></g>\n", LAT_TOP + 14, LAT_TOP + 28);
	/* the chains' intervals, under everything */
	bprintf(b, "<g class=\"anomalies\">");
	for (uint32_t i = 0; i < x->cs->n; i++) {
		const struct ilog_chain *c = &x->cs->chains[i];
		if (x->cs->nodes[i] != v->s.node || !c->ts_start)
			continue;
		double t0 = c->ts_start > v->s.start_ns ? (double)(c->ts_start - v->s.start_ns) : 0;
		double t1 = c->ts_end > c->ts_start ? (double)(c->ts_end - v->s.start_ns) : t0;
		double x0 = xpos(x, v->off + t0), wd = xpos(x, v->off + t1) - x0;
		bprintf(b, "<rect class=\"anomaly\" id=\"iv-%u\" data-rank=\"%u\" x=\"%.1f\" y=\"%.1f\" "
			   "width=\"%.1f\" height=\"%.1f\"><title>#%u %s ", i + 1, i + 1, x0, LAT_TOP,
			wd < 2 ? 2 : wd, h - AXIS_H - LAT_TOP, i + 1, ilog_severity_name(c->severity) ?: "?");
		escs(b, c->pattern);
		bprintf(b, "</title></rect>");
	}
	bprintf(b, "</g>\n");
	for (uint32_t j = 0; j < v->nops; j++) {
		bprintf(b, "<g class=\"op-series\" data-op=\"%s\" stroke=\"%s\">",
			ilog_op_name(v->ops[j].op) ?: "?", palette[j % NPAL]);
		lat_path(x, v, v->ops[j].p99, e0, e1, "p99");
		lat_path(x, v, v->ops[j].p50, e0, e1, "p50");
		bprintf(b, "</g>\n");
	}
	/* host lanes, each scaled to its own maximum */
	for (uint32_t l = 0; l < v->nlanes; l++) {
		const struct lane *ln = &v->lanes[l];
		double top = lanes_top + l * (LANE_H + LANE_GAP), base = top + LANE_H, mx = 0;
		for (uint32_t k = 0; k < v->nw; k++)
			if (ln->v[k] > mx)
				mx = ln->v[k];
		int pct = !strcmp(ln->unit, "pct");
		double scale = ln->full > mx ? ln->full : mx;
		bprintf(b, "<g class=\"lane\" data-signal=\"");
		escz(b, ln->key);
		bprintf(b, "\" data-label=\"");
		escz(b, ln->label);
		bprintf(b, "\" data-unit=\"%s\"><text x=\"8\" y=\"%.1f\">", ln->unit, top + 13);
		escz(b, ln->label);
		char m[32];
		if (!strcmp(ln->unit, "ns"))
			dur(m, mx);
		else if (!strcmp(ln->unit, "bytes"))
			ilog_fmt_bytes(m, sizeof(m), mx);
		else if (pct)
			snprintf(m, sizeof(m), mx < 10 ? "%.1f%%" : "%.0f%%", mx);
		else
			snprintf(m, sizeof(m), "%.0f%s%s", mx, strcmp(ln->unit, "count") ? " " : "",
				 strcmp(ln->unit, "count") ? ln->unit : "");
		char f[40] = "", fb[32];
		if (ln->full > mx && !strcmp(ln->unit, "bytes"))
			snprintf(f, sizeof(f), " of %s", ilog_fmt_bytes(fb, sizeof(fb), ln->full));
		else if (ln->full > mx && pct)
			snprintf(f, sizeof(f), " of 100%%");
		bprintf(b, "</text><text x=\"8\" y=\"%.1f\">max %s%s</text><line class=\"base\" x1=\"%.1f\" "
			   "y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/><path d=\"M%.1f %.1f", top + 26, m, f, TL, base,
			TL + TPW, base, xpos(x, v->off), base);
		for (uint32_t k = 0; k < v->nw; k++) {
			double val = isnan(ln->v[k]) || scale <= 0 ? 0 : ln->v[k] / scale;
			bprintf(b, "V%.1fH%.1f", base - val * (LANE_H - 2),
				xpos(x, v->off + (double)(k + 1) * (double)v->nd->width));
		}
		bprintf(b, "V%.1fZ\"/></g>\n", base);
	}
	time_axis(x, h - AXIS_H + 2, LAT_TOP);
	bprintf(b, "<line class=\"cursor\" x1=\"0\" y1=\"%.1f\" x2=\"0\" y2=\"%.1f\" visibility=\"hidden\"/>"
		   "<rect class=\"hover\" x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"%.1f\" fill=\"transparent\"/>\n"
		   "</svg>\n", LAT_TOP, h - AXIS_H, TL, TPW, h);
	bprintf(b, "<div class=\"legend\">");
	for (uint32_t j = 0; j < v->nops; j++)
		bprintf(b, "<span><i style=\"background:%s\"></i>%s</span>", palette[j % NPAL],
			ilog_op_name(v->ops[j].op) ?: "?");
	bprintf(b, "</div>\n");
}

static void skew_line(struct ctx *x, const struct nview *v)
{
	char d[32], u[32];
	if (!v->sk.known)
		return;
	bprintf(x->b, "<p class=\"skew\" data-offset-ns=\"%lld\">Clock offset %s%s (%s%s%s), %s</p>\n",
		v->sk.offset_ns, v->sk.offset_ns < 0 ? "-" : "+",
		dur(d, (double)llabs(v->sk.offset_ns)), v->sk.method,
		v->sk.unc_ns >= 0 ? ", &plusmn; " : "", v->sk.unc_ns >= 0 ? dur(u, v->sk.unc_ns) : "",
		v->sk.applied ? "applied by ingero-merge" : "not applied");
}

/* Several nodes: one lane each on the shared axis, with the offset the
 * merge applied to its clock. */
static void node_lanes(struct ctx *x)
{
	struct ilog_buf *b = x->b;
	double h = x->nn * 24.0 + AXIS_H + 6;
	char d[32];
	bprintf(b, "<svg class=\"nodes\" viewBox=\"0 0 %.0f %.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n",
		TW, h);
	for (uint32_t i = 0; i < x->nn; i++) {
		const struct nview *v = &x->nv[i];
		double y = 4 + i * 24.0;
		double len = v->s.end_ns > v->s.start_ns ? (double)(v->s.end_ns - v->s.start_ns) : 0;
		bprintf(b, "<g class=\"node-lane\" data-node=\"");
		escz(b, v->label);
		bprintf(b, "\"><text x=\"8\" y=\"%.1f\">", y + 14);
		escz(b, v->label);
		bprintf(b, "</text><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"16\" fill=\"%s\" "
			   "fill-opacity=\".6\"/>", xpos(x, v->off), y + 2,
			xpos(x, v->off + len) - xpos(x, v->off), palette[i % NPAL]);
		if (v->sk.known)
			bprintf(b, "<text x=\"%.1f\" y=\"%.1f\">offset %s%s</text>", xpos(x, v->off) + 6,
				y + 14, v->sk.offset_ns < 0 ? "-" : "+",
				dur(d, (double)llabs(v->sk.offset_ns)));
		bprintf(b, "</g>\n");
	}
	time_axis(x, h - AXIS_H + 2, 4);
	bprintf(b, "</svg>\n");
}

/*
 * A multi-rank job: per communicator a lane per rank, its arrival at the
 * collectives after the first rank's (the mean in each bucket of
 * collectives, all lanes on one scale), and a table of the ranks.
 */
static void ranks_section(struct ctx *x)
{
	struct ilog_buf *b = x->b;
	struct ilog_rank_row *r;
	int n = ilog_stats_ranks(x->st, &r);
	if (n < 0)
		x->oom = 1;
	if (n <= 0)
		return;
	bprintf(b, "<section id=\"ranks\">\n<h2>Ranks</h2>\n<p class=\"note\">Each rank's arrival at "
		   "its communicator's collectives after the first rank's, by collective number "
		   "(the mean per bucket; every lane on the same scale).  The rank the others wait "
		   "for stands out.</p>\n");
	for (int i = 0; i < n;) {
		int j = i;
		uint64_t mx = 1, nb = 1;
		while (j < n && r[j].comm == r[i].comm) {
			for (uint32_t k = 0; k < r[j].nlane; k++)
				if (r[j].lane_ns[k] != UINT64_MAX && r[j].lane_ns[k] > mx)
					mx = r[j].lane_ns[k];
			nb = r[j].nlane > nb ? r[j].nlane : nb;
			j++;
		}
		char d[32], d2[32], d3[32];
		bprintf(b, "<h3>communicator %016llx: %u ranks</h3>\n", (unsigned long long)r[i].comm,
			r[i].nranks);
		double h = (j - i) * 20.0 + 24, w = TW - TL - 20;
		bprintf(b, "<svg class=\"rank-lanes\" data-comm=\"%016llx\" viewBox=\"0 0 %.0f %.0f\" "
			   "xmlns=\"http://www.w3.org/2000/svg\">\n", (unsigned long long)r[i].comm, TW, h);
		for (int k = i; k < j; k++) {
			double y = 4 + (k - i) * 20.0;
			bprintf(b, "<g class=\"rank-lane\" data-rank=\"%u\" data-pid=\"%u\" "
				   "data-late-max-ns=\"%llu\"><text x=\"8\" y=\"%.1f\">rank %u (PID %u)</text>",
				r[k].rank, r[k].pid, (unsigned long long)r[k].late_max_ns, y + 13, r[k].rank,
				r[k].pid);
			for (uint32_t q = 0; q < r[k].nlane; q++) {
				if (r[k].lane_ns[q] == UINT64_MAX)
					continue;
				double bh = 16.0 * (double)r[k].lane_ns[q] / (double)mx;
				bprintf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
					   "fill=\"%s\"><title>collectives %llu-%llu: %s late</title></rect>",
					TL + w * q / (double)nb, y + 16 - bh, w / (double)nb, bh,
					palette[(k - i) % NPAL],
					(unsigned long long)(q * r[k].lane_w),
					(unsigned long long)((q + 1) * r[k].lane_w - 1),
					dur(d, (double)r[k].lane_ns[q]));
			}
			bprintf(b, "</g>\n");
		}
		bprintf(b, "<text x=\"%.1f\" y=\"%.1f\">collective 0</text><text x=\"%.1f\" y=\"%.1f\" "
			   "text-anchor=\"end\">%llu</text>\n</svg>\n", TL, h - 4, TW - 20, h - 4,
			(unsigned long long)(nb * r[i].lane_w));
		bprintf(b, "<table class=\"ranks\"><thead><tr><th>rank</th><th>PID</th><th>collectives"
			   "</th><th>last</th><th>late (mean)</th><th>late (max)</th><th>held the others"
			   "</th><th>steps/s</th></tr></thead><tbody>\n");
		for (int k = i; k < j; k++)
			bprintf(b, "<tr><td>%u</td><td>%u</td><td>%llu</td><td>%llu</td><td>%s</td><td>%s"
				   "</td><td>%s</td><td>%.1f</td></tr>\n", r[k].rank, r[k].pid,
				(unsigned long long)r[k].collectives, (unsigned long long)r[k].last,
				dur(d, (double)r[k].late_mean_ns), dur(d2, (double)r[k].late_max_ns),
				dur(d3, (double)r[k].held_ns), r[k].rate_hz);
		bprintf(b, "</tbody></table>\n");
		i = j;
	}
	bprintf(b, "</section>\n");
	free(r);
}

static void data_json(struct ctx *x)
{
	struct ilog_buf *b = x->b;
	bprintf(b, "<script type=\"application/json\" id=\"ingero-data\">{\"L\":%.0f,\"PW\":%.0f,"
		   "\"axis\":%.0f,\"nodes\":[", TL, TPW, x->axis);
	for (uint32_t i = 0; i < x->nn; i++) {
		const struct nview *v = &x->nv[i];
		bprintf(b, "%s{\"off\":%.0f,\"w\":%llu,\"n\":%u,\"ops\":[", i ? "," : "", v->off,
			(unsigned long long)v->nd->width, v->nw);
		for (uint32_t j = 0; j < v->nops; j++)
			for (int q = 0; q < 2; q++) {
				const double *a = q ? v->ops[j].p99 : v->ops[j].p50;
				bprintf(b, "%s[", q ? "," : j ? ",[" : "[");
				for (uint32_t k = 0; k < v->nw; k++)
					bprintf(b, isnan(a[k]) ? "%snull" : "%s%.0f", k ? "," : "", a[k]);
				bprintf(b, "]%s", q ? "]" : "");
			}
		bprintf(b, "],\"lanes\":[");
		for (uint32_t l = 0; l < v->nlanes; l++) {
			bprintf(b, "%s[", l ? "," : "");
			for (uint32_t k = 0; k < v->nw; k++)
				bprintf(b, isnan(v->lanes[l].v[k]) ? "%snull" : "%s%.6g", k ? "," : "",
					v->lanes[l].v[k]);
			bprintf(b, "]");
		}
		bprintf(b, "]}");
	}
	bprintf(b, "]}</script>\n");
}

static void stat_cells(struct ilog_buf *b, const struct ilog_stat_row *r)
{
	char c[5][32];
	bprintf(b, "<td data-v=\"%llu\">%llu</td><td data-v=\"%llu\">%s</td><td data-v=\"%.6f\">%.1f%%</td>"
		   "<td data-v=\"%llu\">%s</td><td data-v=\"%llu\">%s</td><td data-v=\"%llu\">%s</td>"
		   "<td data-v=\"%llu\">%s</td>",
		(unsigned long long)r->count, (unsigned long long)r->count,
		(unsigned long long)r->total_ns, dur(c[0], (double)r->total_ns), r->frac, r->frac * 100,
		(unsigned long long)r->p50_ns, dur(c[1], (double)r->p50_ns),
		(unsigned long long)r->p95_ns, dur(c[2], (double)r->p95_ns),
		(unsigned long long)r->p99_ns, dur(c[3], (double)r->p99_ns),
		(unsigned long long)r->max_ns, dur(c[4], (double)r->max_ns));
}

static const char stat_heads[] =
	"<th data-num>Calls</th><th data-num aria-sort=\"descending\">Total</th><th data-num>Wall</th>"
	"<th data-num>p50</th><th data-num>p95</th><th data-num>p99</th><th data-num>Max</th>";

static void stats_table(struct ctx *x)
{
	struct ilog_buf *b = x->b;
	bprintf(b, "<section id=\"stats\">\n<h2>Statistics per op</h2>\n<table class=\"sortable\" "
		   "id=\"op-table\"><thead><tr>%s<th class=\"s\">Layer</th><th class=\"s\">Op</th>%s"
		   "<th data-num>Errors</th></tr></thead><tbody>\n",
		x->nn > 1 ? "<th class=\"s\">Node</th>" : "", stat_heads);
	for (int i = 0; i < x->nrows; i++) {
		const struct ilog_stat_row *r = &x->rows[i];
		bprintf(b, "<tr>");
		if (x->nn > 1) {
			bprintf(b, "<td class=\"s\">");
			escz(b, r->node_name);
			bprintf(b, "</td>");
		}
		bprintf(b, "<td class=\"s\">%s</td><td class=\"s\">%s</td>", ilog_layer_name(r->layer) ?: "?",
			ilog_op_name(r->op) ?: "?");
		stat_cells(b, r);
		bprintf(b, "<td data-v=\"%llu\">%llu</td></tr>\n", (unsigned long long)r->errors,
			(unsigned long long)r->errors);
	}
	bprintf(b, "</tbody></table>\n</section>\n");
}

/* Does any node hold processes of more than one container? */
static int grouped(struct ctx *x)
{
	for (uint32_t i = 0; i < x->nn; i++) {
		struct ilog_stats_container *g;
		int n = ilog_stats_containers(x->st, x->nv[i].s.node, &g);
		ilog_stats_containers_free(g, n);
		if (n < 0)
			x->oom = 1;
		if (n > 0)
			return 1;
	}
	return 0;
}

/* The processes grouped by container, on a node with more than one. */
static void containers(struct ctx *x)
{
	struct ilog_buf *b = x->b;
	int head = 0;
	for (uint32_t i = 0; i < x->nn; i++) {
		struct ilog_stats_container *g;
		int n = ilog_stats_containers(x->st, x->nv[i].s.node, &g);
		if (n < 0)
			x->oom = 1;
		if (n > 0 && !head++)
			bprintf(b, "<section id=\"containers\">\n<h2>Containers</h2>\n<table class=\"sortable\""
				   " id=\"ctr-table\"><thead><tr>%s<th class=\"s\">Container</th><th class=\"s\">"
				   "Pod UID</th><th class=\"s\">Container ID</th><th class=\"s\">Cgroup</th>"
				   "<th class=\"s\">Processes</th><th data-num>CUDA calls</th><th data-num "
				   "aria-sort=\"descending\">CUDA time</th></tr></thead><tbody>\n",
				x->nn > 1 ? "<th class=\"s\">Node</th>" : "");
		for (int k = 0; k < n; k++) {
			const struct ilog_stats_container *c = &g[k];
			char d[32];
			bprintf(b, "<tr>");
			if (x->nn > 1) {
				bprintf(b, "<td class=\"s\">");
				escz(b, x->nv[i].label);
				bprintf(b, "</td>");
			}
			const char *cells[4] = { c->label[0] ? c->label : "the host (no container)",
						 c->pod_uid, c->container_id, c->cgroup };
			for (int j = 0; j < 4; j++) {
				bprintf(b, "<td class=\"s\">");
				escz(b, cells[j]);
				bprintf(b, "</td>");
			}
			bprintf(b, "<td class=\"s\">");
			for (uint32_t j = 0; j < c->nprocs; j++) {
				bprintf(b, "%s", j ? ", " : "");
				if (j == 16) {
					bprintf(b, "... (%u in all)", c->nprocs);
					break;
				}
				escz(b, c->procs[j].comm[0] ? c->procs[j].comm : "?");
				bprintf(b, " (%u)", c->procs[j].pid);
			}
			bprintf(b, "</td><td data-v=\"%llu\">%llu</td><td data-v=\"%llu\">%s</td></tr>\n",
				(unsigned long long)c->calls, (unsigned long long)c->calls,
				(unsigned long long)c->cuda_ns, dur(d, (double)c->cuda_ns));
		}
		ilog_stats_containers_free(g, n);
	}
	if (head)
		bprintf(b, "</tbody></table>\n</section>\n");
}

/* Per process: its CUDA time (bar: share of the heaviest), calls, ops,
 * heaviest op, its container when there are several; then its rows per
 * op. */
static void proc_table(struct ctx *x)
{
	struct ilog_buf *b = x->b;
	int ctr = grouped(x);
	uint64_t top = 1;
	for (int i = 0; i < x->nprows; i++) {
		uint64_t t = 0;
		for (int j = i; j < x->nprows && x->prows[j].node == x->prows[i].node &&
				x->prows[j].pid == x->prows[i].pid; j++)
			t += x->prows[j].total_ns;
		top = t > top ? t : top;
	}
	bprintf(b, "<section id=\"processes\">\n<h2>Per process</h2>\n<table class=\"sortable\" "
		   "id=\"proc-table\"><thead><tr>%s<th data-num>PID</th><th class=\"s\">Process</th>"
		   "<th data-num aria-sort=\"descending\">CUDA time</th><th data-num>Calls</th><th data-num>"
		   "Ops</th><th class=\"s\">Heaviest op</th><th data-num>Its p99</th>%s</tr></thead>"
		   "<tbody>\n",
		x->nn > 1 ? "<th class=\"s\">Node</th>" : "", ctr ? "<th class=\"s\">Container</th>" : "");
	for (int i = 0; i < x->nprows;) {
		const struct ilog_stat_row *r = &x->prows[i];
		uint64_t t = 0, calls = 0;
		int j = i;
		for (; j < x->nprows && x->prows[j].node == r->node && x->prows[j].pid == r->pid; j++)
			t += x->prows[j].total_ns, calls += x->prows[j].count;
		char d[2][32];
		bprintf(b, "<tr>");
		if (x->nn > 1) {
			bprintf(b, "<td class=\"s\">");
			escz(b, r->node_name);
			bprintf(b, "</td>");
		}
		bprintf(b, "<td data-v=\"%u\">%u</td><td class=\"s\">", r->pid, r->pid);
		escz(b, r->comm[0] ? r->comm : "?");
		bprintf(b, "</td><td data-v=\"%llu\" class=\"s\"><span class=\"bar\" style=\"width:%.0fpx\">"
			   "</span>%s</td><td data-v=\"%llu\">%llu</td><td data-v=\"%d\">%d</td>"
			   "<td class=\"s\">%s</td><td data-v=\"%llu\">%s</td>",
			(unsigned long long)t, 120.0 * (double)t / (double)top, dur(d[0], (double)t),
			(unsigned long long)calls, (unsigned long long)calls, j - i, j - i,
			ilog_op_name(r->op) ?: "?", (unsigned long long)r->p99_ns, dur(d[1], (double)r->p99_ns));
		if (ctr) {
			bprintf(b, "<td class=\"s\">");
			escz(b, ilog_stats_container(x->st, r->node, r->pid));
			bprintf(b, "</td>");
		}
		bprintf(b, "</tr>\n");
		i = j;
	}
	bprintf(b, "</tbody></table>\n</section>\n");
}

/* ---- call-path icicles ---- */
struct ipath {
	uint32_t node;
	uint16_t op;
	uint64_t ns, calls;
	char **f;                 /* frame labels, outermost first */
	unsigned nf;
};

struct icoll {
	struct ctx *x;
	struct ipath *p;
	uint32_t n, cap;
};

static const char *basename_of(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

#define ICICLE_DEPTH 40

static int collect_path(void *arg, const struct ilog_callpath *cp)
{
	struct icoll *c = arg;
	const struct nview *v = view_of(c->x, cp->node);
	int drawn = 0;
	for (uint32_t j = 0; v && j < v->nops; j++)
		drawn |= v->ops[j].op == cp->op;
	if (!drawn || !cp->nframes)
		return 0;
	if (ilog_grow((void **)&c->p, &c->cap, c->n, sizeof(*c->p), 64))
		return -1;
	struct ipath *p = &c->p[c->n];
	unsigned nf = cp->nframes < ICICLE_DEPTH ? cp->nframes : ICICLE_DEPTH;
	*p = (struct ipath){ cp->node, cp->op, cp->ns, cp->calls, calloc(nf, sizeof(char *)), 0 };
	if (!p->f)
		return -1;
	c->n++;
	/*
	 * The outermost frames of deep stacks: where the program decided.  A
	 * frame nobody named (no symbol record, no pycode) is told by its
	 * module alone, and a run of them as one: past a function without
	 * frame pointers the walk reads stale addresses, different on each
	 * call, and paths that differ only there are one path.
	 */
	unsigned named = 0;
	for (unsigned i = 0; i < cp->nframes; i++)
		named += (cp->frames[i].py && cp->frames[i].pyloc.file) ||
			 (!cp->frames[i].py && *cp->frames[i].frame.function);
	char prev[256] = "";
	for (unsigned i = 0; i < cp->nframes && p->nf < nf; i++) {
		const struct ilog_callframe *f = &cp->frames[cp->nframes - 1 - i];
		char l[256];
		if (f->py && f->pyloc.file)
			snprintf(l, sizeof(l), "\x01%s (%s:%d)", f->pyloc.func ? f->pyloc.func : "?",
				 basename_of(f->pyloc.file), f->pyloc.line);
		else if (*(f->py ? "" : f->frame.function))
			snprintf(l, sizeof(l), "%s", f->frame.function);
		else if (named)
			continue; /* the named frames tell the path */
		else if (f->py)
			snprintf(l, sizeof(l), "\x01(python)");
		else
			snprintf(l, sizeof(l), "%s", *f->frame.module ? basename_of(f->frame.module) : "?");
		if (!strcmp(l, prev) && !named)
			continue;
		snprintf(prev, sizeof(prev), "%s", l);
		if (!(p->f[p->nf] = strdup(l)))
			return -1;
		p->nf++;
	}
	return 0;
}

static int by_ns(const void *a, const void *b)
{
	const struct ipath *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	for (unsigned i = 0; i < x->nf && i < y->nf; i++) {
		int c = strcmp(x->f[i], y->f[i]);
		if (c)
			return c;
	}
	return (x->nf > y->nf) - (x->nf < y->nf);
}

static int by_frames(const void *a, const void *b)
{
	const struct ipath *x = a, *y = b;
	for (unsigned i = 0; i < x->nf && i < y->nf; i++) {
		int c = strcmp(x->f[i], y->f[i]);
		if (c)
			return c;
	}
	return (x->nf > y->nf) - (x->nf < y->nf);
}

/* Lay out paths [lo, hi) (sorted by frames, sharing frames < depth) from x0. */
static void icicle_level(struct ilog_buf *b, const struct ipath *p, uint32_t lo, uint32_t hi,
			 unsigned depth, double x0, double total, unsigned *maxd)
{
	double at = x0;
	for (uint32_t i = lo; i < hi;) {
		if (p[i].nf <= depth) {
			at += (double)p[i].ns;
			i++;
			continue;
		}
		uint32_t j = i;
		uint64_t ns = 0, calls = 0;
		for (; j < hi && p[j].nf > depth && !strcmp(p[j].f[depth], p[i].f[depth]); j++)
			ns += p[j].ns, calls += p[j].calls;
		const char *l = p[i].f[depth];
		int py = l[0] == '\x01';
		char d[32];
		bprintf(b, "<div%s style=\"left:%.3f%%;width:%.3f%%;top:%upx\" title=\"", py ? " class=\"py\"" : "",
			100 * at / total, 100 * (double)ns / total, (depth + 1) * 19);
		escz(b, l + py);
		bprintf(b, " - %s, %llu calls\">", dur(d, (double)ns), (unsigned long long)calls);
		escz(b, l + py);
		bprintf(b, "</div>");
		if (depth + 2 > *maxd)
			*maxd = depth + 2;
		icicle_level(b, p, i, j, depth + 1, at, total, maxd);
		at += (double)ns;
		i = j;
	}
}

static void icicles(struct ctx *x)
{
	struct ilog_buf *b = x->b;
	struct icoll c = { x, NULL, 0, 0 };
	bprintf(b, "<section id=\"callpaths\">\n<h2>Call paths per op</h2>\n");
	if (x->o->sites && ilog_callsites_each(x->o->sites, collect_path, &c))
		x->oom = 1;
	if (!c.n)
		bprintf(b, "<p>No call stacks in the log (ingero-record records them unless "
			   "--no-stacks; ingero-symbolize names native frames).</p>\n");
	for (uint32_t vi = 0; vi < x->nn && !x->oom; vi++) {
		const struct nview *v = &x->nv[vi];
		for (uint32_t j = 0; j < v->nops; j++) {
			/* this op's paths, heaviest first; the rest summed */
			struct ipath *sel = NULL;
			uint32_t ns = 0, cap = 0;
			uint64_t total = 0, rest = 0, calls = 0;
			for (uint32_t i = 0; i < c.n; i++) {
				if (c.p[i].node != v->s.node || c.p[i].op != v->ops[j].op)
					continue;
				if (ilog_grow((void **)&sel, &cap, ns, sizeof(*sel), 32)) {
					x->oom = 1;
					break;
				}
				sel[ns++] = c.p[i];
				total += c.p[i].ns;
				calls += c.p[i].calls;
			}
			if (!ns || !total) {
				free(sel);
				continue;
			}
			/* paths told alike are one */
			qsort(sel, ns, sizeof(*sel), by_frames);
			uint32_t u = 0;
			for (uint32_t i = 0; i < ns; i++) {
				if (u && !by_frames(&sel[u - 1], &sel[i])) {
					sel[u - 1].ns += sel[i].ns;
					sel[u - 1].calls += sel[i].calls;
				} else {
					sel[u++] = sel[i];
				}
			}
			ns = u;
			qsort(sel, ns, sizeof(*sel), by_ns);
			uint32_t keep = ns < ILOG_HTML_PATHS ? ns : ILOG_HTML_PATHS;
			for (uint32_t i = keep; i < ns; i++)
				rest += sel[i].ns;
			qsort(sel, keep, sizeof(*sel), by_frames);
			char d[32];
			bprintf(b, "<h3>");
			if (x->nn > 1) {
				escz(b, v->label);
				bprintf(b, ": ");
			}
			bprintf(b, "%s</h3>\n<div class=\"icicle\" data-op=\"%s\" data-paths=\"%u\">"
				   "<div class=\"root\" style=\"left:0%%;width:100%%;top:0px\">%s: %s in %llu "
				   "calls with a stack</div>", ilog_op_name(v->ops[j].op) ?: "?",
				ilog_op_name(v->ops[j].op) ?: "?", keep, ilog_op_name(v->ops[j].op) ?: "?",
				dur(d, (double)total), (unsigned long long)calls);
			unsigned maxd = 1;
			icicle_level(b, sel, 0, keep, 0, 0, (double)total, &maxd);
			if (rest)
				bprintf(b, "<div class=\"other\" style=\"left:%.3f%%;width:%.3f%%;top:19px\" "
					   "title=\"%u lighter paths\">%u other paths</div>",
					100 * (double)(total - rest) / (double)total,
					100 * (double)rest / (double)total, ns - keep, ns - keep);
			bprintf(b, "<span style=\"display:block;height:%upx\"></span></div>\n", (maxd + 1) * 19);
			free(sel);
		}
	}
	for (uint32_t i = 0; i < c.n; i++) {
		for (unsigned k = 0; k < c.p[i].nf; k++)
			free(c.p[i].f[k]);
		free(c.p[i].f);
	}
	free(c.p);
	bprintf(b, "</section>\n");
}

int ilog_html_report(struct ilog_buf *b, struct ilog_stats *st, const struct ilog_chain_set *cs,
		     const struct ilog_html_opts *o)
{
	struct ctx x = { .b = b, .st = st, .cs = cs, .o = o };
	x.nrows = ilog_stats_rows(st, 0, &x.rows);
	x.nprows = ilog_stats_rows(st, 1, &x.prows);
	x.wrows = NULL;
	x.nwrows = ilog_stats_window_rows(st, 0, &x.wrows);
	x.nn = ilog_stats_nnodes(st);
	x.nv = calloc(x.nn ? x.nn : 1, sizeof(*x.nv));
	if (x.nrows < 0 || x.nprows < 0 || x.nwrows < 0 || !x.nv)
		x.oom = 1;
	/* the shared axis: wall clock when the nodes were recorded together
	 * (a merged log's clocks are aligned), else each from its own start */
	int overlap = 0;
	char ranks[8];
	ilog_stats_logs(st, &overlap, ranks, sizeof(ranks));
	uint64_t r0 = UINT64_MAX;
	int walls = x.nn > 1;
	for (uint32_t i = 0; i < x.nn && !x.oom; i++) {
		struct nview *v = &x.nv[i];
		ilog_stats_summary(st, i, &v->s);
		v->nd = ilog_stats_node(st, v->s.node);
		v->nw = (uint32_t)v->s.nwindows;
		if (v->s.node < st->nodemap.nnodes)
			ilog_node_label(&st->nodemap.nodes[v->s.node], v->label, sizeof(v->label));
		else /* records before any header */
			snprintf(v->label, sizeof(v->label), "%s", v->s.node_name[0] ? v->s.node_name : "?");
		walls &= v->s.real_start_ns != 0;
		if (v->s.real_start_ns && v->s.real_start_ns < r0)
			r0 = v->s.real_start_ns;
		find_skew(&x, v);
	}
	if (st->logs > 1 && !overlap)
		walls = 0; /* separate recordings: side by side from 0 */
	for (uint32_t i = 0; i < x.nn && !x.oom; i++) {
		struct nview *v = &x.nv[i];
		v->off = walls ? (double)(v->s.real_start_ns - r0) : 0;
		double end = v->off + (double)v->nw * (double)v->nd->width;
		x.axis = end > x.axis ? end : x.axis;
		pick_ops(&x, v);
		if (!x.oom)
			pick_lanes(&x, v);
	}
	if (!x.oom) {
		bprintf(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			   "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n"
			   "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
			   "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
			   "<link rel=\"icon\" href=\"data:,\">\n<title>ingero incident report");
		if (o->name) {
			bprintf(b, ": ");
			escz(b, o->name);
		}
		bprintf(b, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n", css);
		header(&x);
		chains(&x);
		bprintf(b, "<section id=\"timeline\">\n<h2>Timeline</h2>\n<p class=\"note\">Per-op call "
			   "latency per window (log scale), the causal chains' intervals shaded, the host's "
			   "signals under it on the same time axis.  Hover for values.</p>\n");
		if (x.nn > 1)
			node_lanes(&x);
		for (uint32_t i = 0; i < x.nn; i++) {
			bprintf(b, "<div class=\"node\" id=\"node-%u\">\n<h3>", i);
			escz(b, x.nv[i].label);
			char d[32];
			bprintf(b, "</h3>\n<p class=\"skew\">windows of %s</p>\n",
				dur(d, (double)x.nv[i].nd->width));
			skew_line(&x, &x.nv[i]);
			timeline(&x, i);
			bprintf(b, "</div>\n");
		}
		if (!x.nn)
			bprintf(b, "<p>The log holds no CUDA, host or snapshot events.</p>\n");
		bprintf(b, "</section>\n");
		ranks_section(&x);
		stats_table(&x);
		proc_table(&x);
		containers(&x);
		icicles(&x);
		bprintf(b, "<div id=\"tip\" hidden></div>\n");
		data_json(&x);
		bprintf(b, "<script>\n%s</script>\n</main>\n</body>\n</html>\n", script);
	}
	for (uint32_t i = 0; x.nv && i < x.nn; i++) {
		for (uint32_t j = 0; j < x.nv[i].nops; j++) {
			free(x.nv[i].ops[j].p50);
			free(x.nv[i].ops[j].p99);
		}
		for (uint32_t l = 0; l < x.nv[i].nlanes; l++)
			free(x.nv[i].lanes[l].v);
		free(x.nv[i].lanes);
	}
	free(x.nv);
	if (x.nrows > 0)
		free(x.rows);
	if (x.nprows > 0)
		free(x.prows);
	if (x.nwrows > 0)
		free(x.wrows);
	return x.oom || (b->len && !b->p) ? -1 : 0;
}
