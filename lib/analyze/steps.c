// SPDX-License-Identifier: MIT
/*
 * Training steps found from a process's CUDA calls (steps_int.h says the
 * rule) and their composition: per step, the calls and time of each
 * (op, call path).
 */
#include <stdlib.h>
#include <string.h>
#include "ingero/vec.h"
#include "ranks_int.h"
#include "stats_int.h"
#include "steps_int.h"

const char *ilog_step_rule_name(int rule)
{
	switch (rule) {
	case ILOG_STEP_COLLECTIVE: return "collective";
	case ILOG_STEP_GRAPH: return "graph launch";
	case ILOG_STEP_SYNC: return "synchronize";
	default: return NULL;
	}
}

/* The marker class of an op: enum ilog_step_rule, 0 for none. */
static int op_rule(uint16_t op)
{
	switch (op) {
	case ILOG_OP_cudaGraphLaunch:
		return ILOG_STEP_GRAPH;
	case ILOG_OP_cudaStreamSynchronize:
	case ILOG_OP_cudaDeviceSynchronize:
	case ILOG_OP_cudaEventSynchronize:
	case ILOG_OP_cuCtxSynchronize:
	case ILOG_OP_cuStreamSynchronize:
		return ILOG_STEP_SYNC;
	default:
		return ilog_ranks_is_collective(op) ? ILOG_STEP_COLLECTIVE : 0;
	}
}

struct steps *ilog_steps_new(void)
{
	return calloc(1, sizeof(struct steps));
}

static void stp_scratch_free(struct stp *p)
{
	free(p->buf);
	free(p->touched);
	p->buf = NULL;
	p->touched = NULL;
	p->nbuf = p->capbuf = 0;
	ilog_hmap_free(&p->sitemap);
}

void ilog_steps_free(struct steps *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->n; i++) {
		struct stp *p = s->p[i];
		stp_scratch_free(p);
		free(p->sites);
		for (uint32_t b = 0; b < p->nblk; b++)
			free(p->blk[b]);
		free(p->blk);
		free(p->wide);
		free(p->ents);
		free(p->comp);
		free(p->cur);
		for (uint32_t k = 0; k < p->nslow; k++)
			free(p->slow[k].e);
		free(p);
	}
	free(s->p);
	ilog_hmap_free(&s->map);
	free(s);
}

const struct stp *ilog_steps_proc(const struct steps *s, uint32_t node, uint32_t pid)
{
	const uint64_t *v = s ? ilog_hmap_get(&s->map, node, pid) : NULL;
	return v ? s->p[*v - 1] : NULL;
}

/* Step i's entry in p->wide (there: its duration or time is STEP_WIDE). */
static const struct stwide *step_wide(const struct stp *p, uint32_t i)
{
	uint32_t lo = 0, hi = p->nwide;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (p->wide[mid].step <= i)
			lo = mid;
		else
			hi = mid;
	}
	return &p->wide[lo];
}

/* Step i's duration, start, end, CUDA time and calls (i < p->nsteps). */
static inline uint64_t step_dur(const struct stp *p, uint32_t i)
{
	uint32_t d = p->blk[i / STEP_BLOCK]->dur[i % STEP_BLOCK];
	return d == STEP_WIDE ? step_wide(p, i)->dur : d;
}

static uint64_t step_start(const struct stp *p, uint32_t i)
{
	uint32_t g = i - i % STEP_GROUP;
	uint64_t t = p->blk[i / STEP_BLOCK]->start[i % STEP_BLOCK / STEP_GROUP];
	for (; g < i; g++)
		t += step_dur(p, g);
	return t;
}

static inline uint64_t step_end(const struct stp *p, uint32_t i)
{
	return step_start(p, i) + step_dur(p, i);
}

static inline uint64_t step_ns(const struct stp *p, uint32_t i)
{
	uint32_t n = p->blk[i / STEP_BLOCK]->ns[i % STEP_BLOCK];
	return n == STEP_WIDE ? step_wide(p, i)->ns : n;
}

static inline uint32_t step_calls(const struct stp *p, uint32_t i)
{
	return p->blk[i / STEP_BLOCK]->calls[i % STEP_BLOCK];
}

/* What step i called: its stp.comp index + 1, 0 when not kept. */
static uint32_t step_comp(const struct stp *p, uint32_t i)
{
	if (i < STEP_KEEP)
		return i + 1;
	for (uint32_t k = 0; k < p->nslowc; k++)
		if (p->slowc[k].step == i)
			return p->slowc[k].comp;
	return 0;
}

static __attribute__((noinline)) struct stp *proc_get(struct steps *s, uint32_t node,
							uint32_t pid)
{
	uint64_t *v = ilog_hmap_put(&s->map, node, pid);
	if (!v)
		return NULL;
	if (!*v) {
		struct stp *p = calloc(1, sizeof(*p));
		if (!p || ilog_grow((void **)&s->p, &s->cap, s->n, sizeof(*s->p), 16)) {
			free(p);
			return NULL;
		}
		p->node = node;
		p->pid = pid;
		s->p[s->n] = p;
		*v = ++s->n;
	}
	return s->last = s->p[*v - 1];
}

/* Room for the open step's and the totals' figures of every site. */
static int cur_room(struct stp *p)
{
	if (p->capcur >= p->nsites)
		return 0;
	/* the two arrays share one capacity */
	uint32_t o = p->capcur, c1 = o, c2 = o;
	if (ilog_reserve0((void **)&p->cur, &c1, p->nsites, sizeof(*p->cur), 64) ||
	    ilog_reserve0((void **)&p->touched, &c2, p->nsites, sizeof(*p->touched), 64))
		return -1;
	for (uint32_t j = o; j < p->nsites; j++)
		p->cur[j].op = p->sites[j].op;
	p->capcur = c1;
	return 0;
}

/* A call's (op, call path) as one word; never 0 (an empty cache slot). */
static inline uint64_t site_key(const struct ingero_cuda_event *e)
{
	uint64_t k = ilog_hash2(e->stack_id ^ ((uint64_t)e->op << 48), e->pystack_id);
	return k ? k : 1;
}

/* A call's site not in the cache: looked up, or added. */
static __attribute__((noinline)) uint32_t site_miss(struct stp *p,
						    const struct ingero_cuda_event *e,
						    uint64_t key, uint32_t c)
{
	uint64_t *v = ilog_hmap_put(&p->sitemap, key, e->op);
	if (!v)
		return UINT32_MAX;
	if (!*v) {
		if (ilog_grow((void **)&p->sites, &p->capsites, p->nsites, sizeof(*p->sites), 16))
			return UINT32_MAX;
		p->sites[p->nsites] = (struct stsite){ .op = e->op, .layer = e->layer,
							.stack = e->stack_id, .pystack = e->pystack_id };
		*v = ++p->nsites;
		if (p->state == 1 && cur_room(p))
			return UINT32_MAX;
		if (p->state == 1)
			p->cur[p->nsites - 1].op = e->op;
	}
	p->cache[c].key = key;
	return p->cache[c].site = (uint32_t)(*v - 1);
}

/* An op's bit in a segment's signature: the table's ops (64 since format
 * 1.5) each their own, named ops (--api) share theirs. */
static inline uint64_t seg_bit(uint16_t op)
{
	return 1ull << (op & 63);
}
_Static_assert(ILOG_OP__COUNT <= 64, "an op's bit in a segment signature");

/* A segment's signature: its ops and how many calls it holds. */
static inline uint64_t seg_sig(uint64_t ops, uint64_t n)
{
	return ops ^ ilog_mix64(n + 1);
}

/* Where the composition of a step past the first STEP_KEEP goes: a slot
 * of the slowest (the fastest of them given up), or NULL. */
static struct stslow *slow_slot(struct stp *p, uint64_t d)
{
	if (p->nslow < STEP_SLOW) {
		struct stslow *sl = &p->slow[p->nslow++];
		sl->dur = d;
		if (p->nslow == 1 || d < p->slowmin)
			p->slowmin = d;
		return sl;
	}
	/* the fastest of them, found again only when it was given up */
	if (d <= p->slowmin)
		return NULL;
	struct stslow *m = &p->slow[0];
	for (uint32_t i = 1; i < STEP_SLOW; i++)
		if (p->slow[i].dur < m->dur)
			m = &p->slow[i];
	m->dur = d;
	p->slowmin = UINT64_MAX;
	for (uint32_t i = 0; i < STEP_SLOW; i++)
		if (p->slow[i].dur < p->slowmin)
			p->slowmin = p->slow[i].dur;
	return m;
}

/* The open step ends at a marker call's return; the next one opens.  Out
 * of line: once per step, and step_call stays small. */
static __attribute__((noinline)) int boundary(struct stp *p, uint64_t end)
{
	/* a marker call that returned before the open step began (another
	 * thread's, that overlapped the one that opened it) ends nothing: the
	 * step's length would be negative */
	if (p->open && end <= p->open_start)
		return 0;
	if (p->open) {
		uint64_t d = end - p->open_start;
		int keep = p->nsteps < STEP_KEEP;
		struct stslow *sl = keep ? NULL : slow_slot(p, d);
		uint32_t b = p->nsteps / STEP_BLOCK, bi = p->nsteps % STEP_BLOCK;
		if (b == p->nblk) {
			if (ilog_grow((void **)&p->blk, &p->capblk, p->nblk, sizeof(*p->blk), 16) ||
			    !(p->blk[p->nblk] = malloc(sizeof(**p->blk))))
				return -1;
			p->nblk++;
		}
		if (keep && (ilog_reserve((void **)&p->ents, &p->capents, p->nents + p->ntouched,
					  sizeof(*p->ents), 256) ||
			     ilog_grow((void **)&p->comp, &p->capcomp, p->ncomp, sizeof(*p->comp),
				       64)))
			return -1;
		if (keep)
			p->comp[p->ncomp++] = (struct stcomp){ p->nents, p->ntouched };
		if (sl) {
			struct ilog_step_op *e = realloc(sl->e, (p->ntouched + 1) * sizeof(*e));
			if (!e)
				return -1;
			*sl = (struct stslow){ d, p->nsteps, p->ntouched, e };
		}
		struct stblock *bk = p->blk[b];
		if (bi % STEP_GROUP == 0)
			bk->start[bi / STEP_GROUP] = p->open_start;
		if (d >= STEP_WIDE || p->open_ns >= STEP_WIDE) {
			if (ilog_grow((void **)&p->wide, &p->capwide, p->nwide, sizeof(*p->wide), 16))
				return -1;
			p->wide[p->nwide++] = (struct stwide){ d, p->open_ns, p->nsteps };
		}
		bk->dur[bi] = d >= STEP_WIDE ? STEP_WIDE : (uint32_t)d;
		bk->ns[bi] = p->open_ns >= STEP_WIDE ? STEP_WIDE : (uint32_t)p->open_ns;
		bk->calls[bi] = (uint32_t)p->open_calls;
		p->nsteps++;
		/* what it called, where it is kept */
		for (uint32_t i = 0; (keep || sl) && i < p->ntouched; i++) {
			uint32_t j = p->touched[i];
			struct ilog_step_op op = { j, p->cur[j].calls, p->cur[j].ns };
			if (keep)
				p->ents[p->nents++] = op;
			if (sl)
				sl->e[i] = op;
		}
	}
	p->open = 1;
	p->open_start = end;
	p->ntouched = 0;
	p->gen++;
	p->open_calls = p->open_ns = 0;
	return 0;
}

/* One call of a process whose step is known (inlined in the per-call path). */
static inline __attribute__((always_inline)) int step_call(struct stp *p, uint64_t ts, uint64_t dur, uint32_t j)
{
	struct stcur *c = &p->cur[j];
	uint16_t op = c->op;
	if (p->open) {
		if (c->gen != p->gen) {
			c->gen = p->gen;
			c->calls = 0;
			c->ns = 0;
			c->tot_steps++;
			p->touched[p->ntouched++] = j;
		}
		c->calls++;
		c->ns += dur;
		c->tot_calls++;
		c->tot_ns += dur;
		p->open_calls++;
		p->open_ns += dur;
	}
	p->seg |= seg_bit(op);
	p->segn++;
	if (op != p->marker)
		return 0;
	uint64_t sig = p->counted ? seg_sig(p->seg, p->segn) : p->seg;
	p->seg = p->segn = 0;
	/* a step ends at the segment that ends steps where that tells (then a
	 * prologue or a missed marker call never shifts the count); else every
	 * k-th marker call */
	p->since++;
	if (p->bsig_unique ? sig != p->bsig && !(p->open && p->since >= 2 * p->k)
			   : p->since < p->k)
		return 0;
	p->since = 0;
	return boundary(p, ts + dur);
}

/* The most frequent value of v[0..n) (ties: the first seen); *count its count. */
static uint64_t mode(uint64_t *v, uint32_t n, uint32_t *count)
{
	uint64_t best = 0;
	uint32_t bc = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t c = 0;
		for (uint32_t j = 0; j < n; j++)
			c += v[j] == v[i];
		if (c > bc)
			best = v[i], bc = c;
		if (n > 512 && i >= 64)
			break; /* a sample of the first calls is enough to know the mode */
	}
	*count = bc;
	return best;
}

/*
 * How many marker calls make a step, from the signatures of the segments
 * that end at each (sig[0], what came before the first marker call, is no
 * step's): the smallest k whose segments repeat at lag k nearly as often
 * as at the best lag (*best: that share); 1 when none repeats half the time.
 */
static uint32_t pick_k(const uint64_t *sig, uint32_t nm, double *best)
{
	uint32_t ns = nm - 1, k = 1;
	double ratio[STEP_MAXK + 1] = { 0 };
	*best = 0;
	for (uint32_t kk = 1; kk <= STEP_MAXK && kk * STEP_MIN < ns; kk++) {
		uint32_t same = 0;
		for (uint32_t i = 1; i + kk < nm; i++)
			same += sig[i] == sig[i + kk];
		ratio[kk] = (double)same / (double)(ns - kk);
		if (ratio[kk] > *best)
			*best = ratio[kk];
	}
	for (uint32_t kk = 1; kk <= STEP_MAXK && kk * STEP_MIN < ns; kk++)
		if (ratio[kk] >= *best - 0.05) {
			k = kk;
			break;
		}
	return *best < 0.5 ? 1 : k;
}

/*
 * Find the step from the held calls: the marker, k, the phase, the
 * boundary's signature; then replay the held calls.  With final, decide
 * with what there is; else only once the marker has STEP_DETECT_MIN calls.
 */
static int detect(struct stp *p, int final)
{
	enum { NOPS = ILOG_OP__COUNT };
	uint64_t cnt[NOPS] = { 0 }, tim[NOPS] = { 0 };
	for (uint32_t i = 0; i < p->nbuf; i++) {
		uint16_t op = p->sites[p->buf[i].site].op;
		if (op < NOPS && op_rule(op)) {
			cnt[op]++;
			tim[op] += p->buf[i].dur;
		}
	}
	/* the marker: by rule, then calls (collectives, graphs) or time (synchronizes) */
	int m = -1;
	for (int op = 0; op < NOPS; op++) {
		if (!cnt[op])
			continue;
		if (m < 0 || op_rule((uint16_t)op) < op_rule((uint16_t)m)) {
			m = op;
			continue;
		}
		if (op_rule((uint16_t)op) > op_rule((uint16_t)m))
			continue;
		if (op_rule((uint16_t)op) == ILOG_STEP_SYNC ? tim[op] > tim[m] : cnt[op] > cnt[m])
			m = op;
	}
	if (m < 0 || (!final && cnt[m] < STEP_DETECT_MIN))
		return final ? (p->state = 2, 0) : 0;
	uint32_t nm = (uint32_t)cnt[m];
	uint64_t *sig = malloc(nm * sizeof(*sig)), *sigc = malloc(nm * sizeof(*sigc)),
		 *dur = malloc(nm * sizeof(*dur));
	if (!sig || !sigc || !dur) {
		free(sig);
		free(sigc);
		free(dur);
		return -1;
	}
	uint64_t seg = 0, segn = 0;
	for (uint32_t i = 0, o = 0; i < p->nbuf; i++) {
		uint16_t op = p->sites[p->buf[i].site].op;
		seg |= seg_bit(op);
		segn++;
		if (op != m)
			continue;
		sig[o] = seg;
		sigc[o] = seg_sig(seg, segn);
		dur[o++] = p->buf[i].dur;
		seg = segn = 0;
	}
	/* the segments told by their ops and how many calls they hold, when
	 * that repeats; else by their ops alone (a count that varies) */
	double best;
	uint32_t k = pick_k(sigc, nm, &best);
	p->counted = best >= 0.5;
	if (p->counted)
		memcpy(sig, sigc, nm * sizeof(*sig));
	else
		k = pick_k(sig, nm, &best);
	free(sigc);
	/* each phase's commonest segment */
	uint64_t *ph = malloc(nm * sizeof(*ph)), modes[STEP_MAXK] = { 0 };
	if (!ph) {
		free(sig);
		free(dur);
		return -1;
	}
	for (uint32_t q = 0; q < k; q++) {
		uint32_t n = 0, c;
		for (uint32_t i = 1; i < nm; i++)
			if (i % k == q)
				ph[n++] = sig[i];
		modes[q] = n ? mode(ph, n, &c) : 0;
	}
	/* the step ends at the phase whose segment is most unlike the others'
	 * (the optimizer's after alike micro-batches), then whose marker calls
	 * take the most time (the synchronize that waits for the whole step) */
	uint32_t phase = 0, odd[STEP_MAXK] = { 0 };
	uint64_t pt[STEP_MAXK] = { 0 };
	for (uint32_t i = 1; i < nm; i++)
		pt[i % k] += dur[i];
	for (uint32_t q = 0; q < k; q++)
		for (uint32_t r = 0; r < k; r++)
			odd[q] += modes[r] != modes[q];
	for (uint32_t q = 1; q < k; q++)
		if (odd[q] > odd[phase] || (odd[q] == odd[phase] && pt[q] > pt[phase]))
			phase = q;
	/* the segments that end a step realign the count only when no other
	 * phase's commonest is the same */
	p->bsig = modes[phase];
	p->bsig_unique = k > 1;
	for (uint32_t q = 0; q < k; q++)
		if (q != phase && modes[q] == p->bsig)
			p->bsig_unique = 0;
	free(ph);
	free(sig);
	free(dur);
	if (nm < STEP_MIN * k + 1) {
		if (!final && p->nbuf < STEP_DETECT_MAX)
			return 0;
		p->state = 2;
		return 0;
	}
	p->marker = (uint16_t)m;
	p->rule = (uint8_t)op_rule((uint16_t)m);
	p->k = k;
	p->since = (k - 1 - phase) % k;
	p->state = 1;
	p->seg = p->segn = 0;
	if (cur_room(p))
		return -1;
	for (uint32_t i = 0; i < p->nbuf; i++)
		if (step_call(p, p->buf[i].ts, p->buf[i].dur, p->buf[i].site))
			return -1;
	free(p->buf);
	p->buf = NULL;
	p->nbuf = p->capbuf = 0;
	return 0;
}

/* A call held while the step is being found; at 1024, 2048, ... held
 * calls, try to find it; at the most, decide. */
static __attribute__((noinline)) int hold(struct stp *p, const struct ingero_cuda_event *e,
					  uint64_t dur, uint32_t j)
{
	if (ilog_grow((void **)&p->buf, &p->capbuf, p->nbuf, sizeof(*p->buf), 256))
		return -1;
	p->buf[p->nbuf++] = (struct stcall){ e->ts_ns, dur, j };
	if (p->nbuf >= STEP_DETECT_CALLS && !(p->nbuf & (p->nbuf - 1)))
		return detect(p, p->nbuf >= STEP_DETECT_MAX);
	return 0;
}

/* Per call: the slow paths are out of line, so this stays a leaf. */
int ilog_steps_add(struct steps *s, uint32_t node, const struct ingero_cuda_event *e)
{
	struct stp *p = s->last;
	if ((!p || p->pid != e->pid || p->node != node) && !(p = proc_get(s, node, e->pid)))
		return -1;
	if (p->state == 2)
		return 0;
	uint64_t key = site_key(e);
	uint32_t c = (uint32_t)(key >> 32) & (STEP_CACHE - 1), j;
	if (p->cache[c].key == key)
		j = p->cache[c].site;
	else if ((j = site_miss(p, e, key, c)) == UINT32_MAX)
		return -1;
	/* a launch recorded at entry (SPEC §5.4 UNTIMED) counts with the mean
	 * time of its site's timed calls so far, which stand for it */
	struct stsite *si = &p->sites[j];
	uint64_t dur = e->dur_ns;
	if (e->flags & ILOG_CUDA_F_UNTIMED) {
		dur = si->timed_n ? si->timed_ns / si->timed_n : 0;
	} else {
		si->timed_n++;
		si->timed_ns += dur;
	}
	return p->state == 1 ? step_call(p, e->ts_ns, dur, j) : hold(p, e, dur, j);
}

/* What the queries read, made once: step durations' order statistics,
 * the slowest steps' compositions beside the first ones'. */
static int summarize(struct stp *p)
{
	/* the durations' quantiles from the statistics' histogram (within
	 * 0.4%, min and max exact): a sort of every step costs more than the
	 * steps themselves */
	struct dhist h = { .c = calloc(HB_N, sizeof(uint64_t)), .min = UINT64_MAX };
	if (!h.c)
		return -1;
	uint64_t topd[STEP_SLOW]; /* top[]'s durations */
	for (uint32_t k = 0; k < p->nsteps; k++) {
		uint64_t d = step_dur(p, k);
		h.c[hb_index(d)]++;
		h.total += d;
		h.min = d < h.min ? d : h.min;
		h.max = d > h.max ? d : h.max;
		/* the slowest steps, slowest first */
		uint32_t at = p->ntop;
		while (at > 0 && d > topd[at - 1])
			at--;
		if (at < STEP_SLOW) {
			for (uint32_t q = p->ntop < STEP_SLOW ? p->ntop : STEP_SLOW - 1; q > at; q--) {
				p->top[q] = p->top[q - 1];
				topd[q] = topd[q - 1];
			}
			p->top[at] = k;
			topd[at] = d;
			p->ntop += p->ntop < STEP_SLOW;
		}
	}
	h.n = p->nsteps;
	p->p50 = ilog_dhist_quantile(&h, 0.5);
	p->p90 = ilog_dhist_quantile(&h, 0.9);
	p->min = h.min;
	p->max = h.max;
	p->mean = h.total / p->nsteps;
	ilog_dhist_free(&h);
	for (uint32_t j = 0; j < p->nsites; j++)
		p->nused += p->cur[j].tot_steps > 0;
	for (uint32_t k = 0; k < p->nslow; k++) {
		struct stslow *sl = &p->slow[k];
		if (ilog_reserve((void **)&p->ents, &p->capents, p->nents + sl->n, sizeof(*p->ents),
				 256) ||
		    ilog_grow((void **)&p->comp, &p->capcomp, p->ncomp, sizeof(*p->comp), 64))
			return -1;
		p->comp[p->ncomp++] = (struct stcomp){ p->nents, sl->n };
		p->slowc[p->nslowc].step = sl->step;
		p->slowc[p->nslowc++].comp = p->ncomp;
		memcpy(p->ents + p->nents, sl->e, sl->n * sizeof(*sl->e));
		p->nents += sl->n;
		free(sl->e);
		sl->e = NULL;
	}
	p->nslow = 0;
	return 0;
}

int ilog_steps_finish(struct steps *s)
{
	for (uint32_t i = 0; s && i < s->n; i++) {
		struct stp *p = s->p[i];
		if (p->state == 0 && detect(p, 1))
			return -1;
		/* the step still open at the end is no step: out of the totals */
		for (uint32_t k = 0; p->open && k < p->ntouched; k++) {
			struct stcur *c = &p->cur[p->touched[k]];
			c->tot_steps--;
			c->tot_calls -= c->calls;
			c->tot_ns -= c->ns;
		}
		stp_scratch_free(p);
		if (p->state != 1 || p->nsteps < STEP_MIN) {
			p->state = 2;
			p->nsteps = 0;
			p->nents = p->ncomp = 0;
			continue;
		}
		if (summarize(p))
			return -1;
	}
	return 0;
}

/* ---- queries (ingero/stats.h) ---- */

static int by_proc(const void *a, const void *b)
{
	const struct ilog_step_proc *x = a, *y = b;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

int ilog_stats_step_procs(struct ilog_stats *st, struct ilog_step_proc **out)
{
	*out = NULL;
	struct steps *s = st->steps;
	uint32_t n = 0;
	for (uint32_t i = 0; s && i < s->n; i++)
		n += s->p[i]->nsteps > 0;
	if (!n)
		return 0;
	struct ilog_step_proc *r = calloc(n, sizeof(*r));
	if (!r)
		return -1;
	n = 0;
	for (uint32_t i = 0; i < s->n; i++) {
		const struct stp *p = s->p[i];
		if (!p->nsteps)
			continue;
		struct ilog_step_proc *q = &r[n++];
		*q = (struct ilog_step_proc){
			.node = p->node, .pid = p->pid, .comm = ilog_stats_comm(st, p->node, p->pid),
			.marker = p->marker, .rule = p->rule, .per_step = p->k,
			.nsteps = p->nsteps, .first_ns = step_start(p, 0),
			.last_ns = step_end(p, p->nsteps - 1), .p50_ns = p->p50, .p90_ns = p->p90,
			.min_ns = p->min, .max_ns = p->max, .mean_ns = p->mean, .nsites = p->nused,
		};
		for (uint32_t k = 0; k < p->nsites; k++)
			if (p->sites[k].op == p->marker)
				q->marker_layer = p->sites[k].layer;
	}
	qsort(r, n, sizeof(*r), by_proc);
	*out = r;
	return (int)n;
}

int ilog_stats_steps(struct ilog_stats *st, uint32_t node, uint32_t pid,
		     struct ilog_step_row **out)
{
	*out = NULL;
	const struct stp *p = ilog_steps_proc(st->steps, node, pid);
	if (!p || !p->nsteps)
		return 0;
	struct ilog_step_row *r = calloc(p->nsteps, sizeof(*r));
	if (!r)
		return -1;
	uint64_t start = step_start(p, 0);
	for (uint32_t i = 0; i < p->nsteps; i++) {
		uint64_t end = start + step_dur(p, i);
		r[i] = (struct ilog_step_row){ i, start, end, step_calls(p, i), step_ns(p, i) };
		start = end;
	}
	*out = r;
	return (int)p->nsteps;
}

int ilog_stats_step(struct ilog_stats *st, uint32_t node, uint32_t pid, uint32_t i,
		    struct ilog_step_row *r)
{
	const struct stp *p = ilog_steps_proc(st->steps, node, pid);
	if (!p || i >= p->nsteps)
		return -1;
	*r = (struct ilog_step_row){ i, step_start(p, i), step_end(p, i), step_calls(p, i),
				     step_ns(p, i) };
	return 0;
}

uint32_t ilog_stats_step_slowest(struct ilog_stats *st, uint32_t node, uint32_t pid,
				 uint32_t *idx, uint32_t n)
{
	const struct stp *p = ilog_steps_proc(st->steps, node, pid);
	uint32_t k = 0;
	for (; p && k < p->ntop && k < n; k++)
		idx[k] = p->top[k];
	return k;
}

static int by_site_time(const void *a, const void *b)
{
	const struct ilog_step_site *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return x->site < y->site ? -1 : x->site > y->site;
}

int ilog_stats_step_sites(struct ilog_stats *st, uint32_t node, uint32_t pid,
			  struct ilog_step_site **out)
{
	*out = NULL;
	const struct stp *p = ilog_steps_proc(st->steps, node, pid);
	if (!p || !p->nsteps)
		return 0;
	struct ilog_step_site *r = calloc(p->nused + 1, sizeof(*r));
	if (!r)
		return -1;
	uint32_t n = 0;
	for (uint32_t j = 0; j < p->nsites; j++) {
		const struct stcur *c = &p->cur[j];
		if (!c->tot_steps)
			continue; /* called only outside the steps */
		r[n++] = (struct ilog_step_site){
			.site = j, .op = p->sites[j].op, .layer = p->sites[j].layer,
			.stack_id = p->sites[j].stack, .pystack_id = p->sites[j].pystack,
			.steps = c->tot_steps, .calls = c->tot_calls, .ns = c->tot_ns,
			.calls_per_step = (double)c->tot_calls / p->nsteps,
			.ns_per_step = (double)c->tot_ns / p->nsteps,
		};
	}
	qsort(r, n, sizeof(*r), by_site_time);
	*out = r;
	return (int)n;
}

uint32_t ilog_stats_step_ops(struct ilog_stats *st, uint32_t node, uint32_t pid, uint32_t i,
			     const struct ilog_step_op **ops)
{
	const struct stp *p = ilog_steps_proc(st->steps, node, pid);
	*ops = NULL;
	if (!p || i >= p->nsteps)
		return 0;
	uint32_t k = step_comp(p, i);
	if (!k)
		return 0;
	const struct stcomp *c = &p->comp[k - 1];
	*ops = p->ents + c->ent;
	return c->n;
}

int64_t ilog_stats_step_at(struct ilog_stats *st, uint32_t node, uint32_t pid, uint64_t ts)
{
	const struct stp *p = ilog_steps_proc(st->steps, node, pid);
	if (!p || !p->nsteps || ts < step_start(p, 0) || ts >= step_end(p, p->nsteps - 1))
		return -1;
	uint32_t lo = 0, hi = p->nsteps;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (step_start(p, mid) <= ts)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}
