// SPDX-License-Identifier: MIT
/*
 * The live metrics of a stream (ingero/export.h: ilog_live): the
 * cumulative metrics of --format prometheus, a sliding window of latency
 * histograms and preemptions, the newest host snapshot per node, and
 * causal chains found window by window by the engine of ingero-correlate.
 * One mutex guards it all: the stream's reader takes it per record, a
 * renderer for the length of one rendering.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "export_int.h"
#include "ingero/vec.h"

#define DEFAULT_WINDOW_NS 60000000000ull

struct ilog_live *ilog_live_new(const struct ilog_live_opts *o)
{
	struct ilog_live *l = calloc(1, sizeof(*l));
	pthread_mutex_t *mu = malloc(sizeof(*mu));
	if (!l || !mu || pthread_mutex_init(mu, NULL)) {
		free(l);
		free(mu);
		return NULL;
	}
	l->mu = mu;
	if (o)
		l->o = *o;
	if (!l->o.window_ns)
		l->o.window_ns = DEFAULT_WINDOW_NS;
	if (!l->o.chain_window_ns)
		l->o.chain_window_ns = DEFAULT_WINDOW_NS;
	l->slot_ns = l->o.window_ns / ILOG_LIVE_SLOTS;
	if (!l->slot_ns)
		l->slot_ns = 1;
	return l;
}

void ilog_live_lock(struct ilog_live *l)
{
	pthread_mutex_lock(l->mu);
}

void ilog_live_unlock(struct ilog_live *l)
{
	pthread_mutex_unlock(l->mu);
}

/* The slot of wall time w, cleared if it held an older slot number; NULL
 * when w is older than the window. */
static struct ilog_live_slot *slot_at(struct ilog_live *l, uint64_t w)
{
	uint64_t id = w / l->slot_ns + 1;
	if (id > l->latest_slot)
		l->latest_slot = id;
	if (id + ILOG_LIVE_SLOTS <= l->latest_slot)
		return NULL;
	struct ilog_live_slot *s = &l->slot[id % ILOG_LIVE_SLOTS];
	if (s->id != id) {
		if (s->id > id)
			return NULL;
		for (uint32_t i = 0; i < s->nn; i++) {
			struct ilog_live_slotnode *n = &s->n[i];
			for (int op = 0; op < ILOG_OP__COUNT; op++) {
				if (n->op[op].h)
					memset(n->op[op].h, 0, ILOG_LIVE_NB * sizeof(uint32_t));
				n->op[op].calls = 0;
			}
			n->preempt = 0;
		}
		s->id = id;
	}
	return s;
}

/* Per-node arrays grow zeroed (ilog_reserve0): their capacity is their
 * length, and a zero entry is a node with nothing yet. */
static struct ilog_live_slotnode *slot_node(struct ilog_live_slot *s, uint32_t node)
{
	if (ilog_reserve0((void **)&s->n, &s->nn, node + 1, sizeof(*s->n), 4))
		return NULL;
	return &s->n[node];
}

static struct ilog_live_host *host_for(struct ilog_live *l, uint32_t node)
{
	if (ilog_reserve0((void **)&l->host, &l->nhost, node + 1, sizeof(*l->host), 4))
		return NULL;
	return &l->host[node];
}

/* ---- chains, one window at a time ---- */

static int chain_count(struct ilog_live *l, uint32_t node, const struct ilog_chain *c)
{
	char kind[48];
	ilog_str_copy(kind, sizeof(kind), c->pattern);
	for (uint32_t i = 0; i < l->nchains; i++) {
		struct ilog_live_chains *k = &l->chains[i];
		if (k->node == node && k->sev == c->severity && !strcmp(k->kind, kind)) {
			k->n++;
			return 0;
		}
	}
	struct ilog_live_chains *k = realloc(l->chains, (l->nchains + 1) * sizeof(*k));
	if (!k)
		return -1;
	l->chains = k;
	k += l->nchains++;
	memset(k, 0, sizeof(*k));
	k->node = node;
	k->sev = c->severity;
	memcpy(k->kind, kind, sizeof(kind));
	k->n = 1;
	return 0;
}

/* Analyze the open chain window (the lock is not held: the engine may
 * take a while, and renderers go on meanwhile), then count its chains. */
static int chains_close(struct ilog_live *l)
{
	struct ilog_analysis *an = l->an;
	if (!an)
		return 0;
	l->an = NULL;
	memset(l->st_hdr, 0, l->nst_hdr);
	ilog_live_unlock(l);
	int rc = ilog_analysis_finish(an, 1);
	struct ilog_stats *st = ilog_analysis_stats(an);
	const struct ilog_chain_set *cs = ilog_analysis_chains(an);
	/* the chains' nodes by name in the live model's numbering */
	uint32_t nn = ilog_stats_nnodes(st);
	int32_t *map = calloc(nn ? nn : 1, sizeof(*map));
	ilog_live_lock(l);
	if (!map)
		rc = -1;
	for (uint32_t i = 0; !rc && i < nn; i++) {
		struct ilog_stats_summary s;
		ilog_stats_summary(st, i, &s);
		map[i] = -1;
		for (uint32_t j = 0; j < l->m.nodes.nnodes && map[i] < 0; j++)
			if (!strcmp(l->m.nodes.nodes[j].name, s.node_name ? s.node_name : ""))
				map[i] = (int32_t)j;
	}
	for (uint32_t i = 0; !rc && i < cs->n; i++)
		if (cs->nodes[i] < nn && map[cs->nodes[i]] >= 0)
			rc = chain_count(l, (uint32_t)map[cs->nodes[i]], &cs->chains[i]);
	l->chain_windows += !rc;
	free(map);
	ilog_analysis_free(an);
	return rc;
}

/* Feed a record to the open chain window, opening one (and closing the
 * last) as the stream's time w passes a window's end. */
static int chains_add(struct ilog_live *l, const struct ilog_record *rec,
		      const struct ilog_reader *r, uint64_t w)
{
	if (rec->kind == ILOG_K_HEADER || rec->kind == ILOG_K_CHAIN)
		return 0; /* headers are fed per window below; chains are ours to find */
	if (w && l->an && w >= l->st_end && chains_close(l))
		return -1;
	if (!l->an) {
		if (!w)
			return 0; /* a window starts at a record with a time */
		if (!(l->an = ilog_analysis_new(&l->o.analysis)))
			return -1;
		l->st_end = (w / l->o.chain_window_ns + 1) * l->o.chain_window_ns;
	}
	/* the record's node header first, from the reader, once per window */
	if (ilog_reserve0((void **)&l->st_hdr, &l->nst_hdr, rec->node + 1, 1, 8))
		return -1;
	if (!l->st_hdr[rec->node]) {
		const struct ilog_header *h = ilog_reader_header(r, rec->node);
		if (!h)
			return 0;
		struct ilog_record hr = { .kind = ILOG_K_HEADER, .node = rec->node };
		hr.u.header = *h;
		if (ilog_analysis_count(l->an, &hr, r, rec->node))
			return -1;
		l->st_hdr[rec->node] = 1;
	}
	return ilog_analysis_count(l->an, rec, r, rec->node);
}

/* ---- records ---- */

static uint64_t record_ts(const struct ilog_record *rec)
{
	switch (rec->kind) {
	case ILOG_K_CUDA: return rec->u.cuda.ts_ns;
	case ILOG_K_HOST: return rec->u.host.ts_ns;
	case ILOG_K_SNAPSHOT: return rec->u.snapshot.ts_ns;
	default: return 0;
	}
}

static int live_add(struct ilog_live *l, const struct ilog_record *rec,
		    const struct ilog_reader *r)
{
	l->records++;
	if (ilog_metrics_add(&l->m, rec, r))
		return -1;
	int node = ilog_node_map_get(&l->m.nodes, rec, r);
	uint64_t ts = record_ts(rec), w = ts ? ilog_reader_wall(r, rec->node, ts) : 0;
	if (w) {
		if (!l->first_wall || w < l->first_wall)
			l->first_wall = w;
		if (w > l->latest_wall)
			l->latest_wall = w;
	}
	if (node >= 0 && w && (rec->kind == ILOG_K_CUDA || rec->kind == ILOG_K_HOST)) {
		struct ilog_live_slot *s = slot_at(l, w);
		struct ilog_live_slotnode *sn = s ? slot_node(s, (uint32_t)node) : NULL;
		if (s && !sn)
			return -1;
		if (sn && rec->kind == ILOG_K_CUDA) {
			const struct ingero_cuda_event *e = &rec->u.cuda;
			struct ilog_live_cell *c = &sn->op[e->op < ILOG_OP__COUNT ? e->op : ILOG_OP_UNKNOWN];
			if (!c->h && !(c->h = calloc(ILOG_LIVE_NB, sizeof(uint32_t))))
				return -1;
			c->h[ilog_hist_bucket(e->dur_ns)]++;
			c->calls++;
		} else if (sn && rec->u.host.type == ILOG_HOST_SWITCH) {
			sn->preempt++;
		}
	}
	if (node >= 0 && rec->kind == ILOG_K_SNAPSHOT) {
		const struct ilog_snapshot *sp = &rec->u.snapshot;
		struct ilog_live_host *h = host_for(l, (uint32_t)node);
		if (!h)
			return -1;
		*h = (struct ilog_live_host){ 1, sp->cpu_pct, sp->load1, sp->mem_total,
					      sp->mem_avail, sp->swap_total, sp->swap_free };
	}
	return chains_add(l, rec, r, w);
}

int ilog_live_add(struct ilog_live *l, const struct ilog_record *rec,
		  const struct ilog_reader *r)
{
	ilog_live_lock(l);
	int rc = l->oom ? -1 : live_add(l, rec, r);
	l->oom |= rc != 0;
	ilog_live_unlock(l);
	return rc;
}

int ilog_live_end(struct ilog_live *l)
{
	ilog_live_lock(l);
	int rc = l->oom || chains_close(l) ? -1 : 0;
	ilog_live_unlock(l);
	return rc;
}

void ilog_live_push_count(struct ilog_live *l, int which)
{
	ilog_live_lock(l);
	if (which >= 0 && which < ILOG_PUSH__N)
		l->push[which]++;
	ilog_live_unlock(l);
}

/* ---- what the renderers read ---- */

/* Node i of a slot is one of the figure's nodes (a slot's capacity may
 * pass the nodes known, n). */
static int in_nodes(struct ilog_live_nodes on, uint32_t i, uint32_t n)
{
	return i < n && (on.first ? on.first[i] == on.g : i == on.g);
}

static int slot_live(const struct ilog_live *l, const struct ilog_live_slot *s)
{
	return s->id && s->id + ILOG_LIVE_SLOTS > l->latest_slot;
}

uint64_t ilog_live_quantiles(const struct ilog_live *l, struct ilog_live_nodes on, int op,
			     const double *qs, int nq, uint64_t *out)
{
	uint64_t n = 0;
	for (int k = 0; k < ILOG_LIVE_SLOTS; k++) {
		const struct ilog_live_slot *s = &l->slot[k];
		for (uint32_t i = 0; slot_live(l, s) && i < s->nn; i++)
			if (in_nodes(on, i, l->m.nagg))
				n += s->n[i].op[op].calls;
	}
	if (!n)
		return 0;
	/* nearest rank: the ceil(q n)-th smallest; one pass over the buckets
	 * for all quantiles (qs ascending) */
	uint64_t cum = 0;
	int qi = 0;
	for (uint32_t b = 0; b < ILOG_LIVE_NB && qi < nq; b++) {
		for (int k = 0; k < ILOG_LIVE_SLOTS; k++) {
			const struct ilog_live_slot *s = &l->slot[k];
			for (uint32_t i = 0; slot_live(l, s) && i < s->nn; i++)
				if (in_nodes(on, i, l->m.nagg) && s->n[i].op[op].h)
					cum += s->n[i].op[op].h[b];
		}
		while (qi < nq && cum >= ilog_hist_rank(qs[qi], n))
			out[qi++] = ilog_hist_value(b);
	}
	return n;
}

uint64_t ilog_live_span(const struct ilog_live *l)
{
	if (!l->latest_wall)
		return 0;
	/* the oldest live slot's number is latest_slot - ILOG_LIVE_SLOTS */
	uint64_t start = l->latest_slot > ILOG_LIVE_SLOTS
				 ? (l->latest_slot - ILOG_LIVE_SLOTS) * l->slot_ns : 0;
	if (start < l->first_wall)
		start = l->first_wall;
	return l->latest_wall - start;
}

double ilog_live_preempt_rate(const struct ilog_live *l, struct ilog_live_nodes on)
{
	uint64_t n = 0, span = ilog_live_span(l);
	for (int k = 0; k < ILOG_LIVE_SLOTS; k++) {
		const struct ilog_live_slot *s = &l->slot[k];
		for (uint32_t i = 0; slot_live(l, s) && i < s->nn; i++)
			if (in_nodes(on, i, l->m.nagg))
				n += s->n[i].preempt;
	}
	return span ? (double)n * 1e9 / (double)span : 0;
}

void ilog_live_free(struct ilog_live *l)
{
	if (!l)
		return;
	for (int k = 0; k < ILOG_LIVE_SLOTS; k++) {
		for (uint32_t i = 0; i < l->slot[k].nn; i++)
			for (int op = 0; op < ILOG_OP__COUNT; op++)
				free(l->slot[k].n[i].op[op].h);
		free(l->slot[k].n);
	}
	ilog_analysis_free(l->an);
	free(l->st_hdr);
	free(l->host);
	free(l->chains);
	ilog_metrics_free(&l->m);
	pthread_mutex_destroy(l->mu);
	free(l->mu);
	free(l);
}
