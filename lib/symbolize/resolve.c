// SPDX-License-Identifier: MIT
/*
 * The symbolize filter's resolvers (filter.c reads and writes the log):
 * the queues of new ips by module, the second thread that resolves them
 * while pass 1 reads, the main thread's share after it, and the
 * symbolizers' reports held and passed on in stream order.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include "ingero/symbolize.h"
#include "ingero/vec.h"
#include "symbolize_int.h"
#include "filter_int.h"

/*
 * New ips are queued by module while pass 1 reads and resolved a module's
 * batch at a time, in address order.  A module (one file: its build-id,
 * else its path, as the symbolizer tells modules apart) belongs to the
 * first resolver that takes its jobs and is resolved by that resolver's
 * symbolizer only, so each symbolizer is used by one thread at a time and
 * each module's reports are made once.  With two threads the second
 * starts with the first jobs and takes modules while pass 1 reads; when
 * pass 1 ends the main thread takes the modules left
 * (ilog_sym_warm_join()), then waits for the second.  A resolver keeps to
 * the modules it owns and claims an unclaimed one, the one with the most
 * jobs waiting, when its own have none.
 */

#define WARM_BATCH 1024         /* jobs taken at a time, at most */
/* A new ip for the resolver thread, with its mapping. */
struct job {
	uint64_t start, end, offset, ip; /* its mapping (the module's is wmod's), the ip */
	uint32_t prot, use, pid;
	uint8_t ret;
};

/* The module key of a mapping: its build-id's hash, else its path's. */
static uint64_t wmod_hash(const struct fmap *fm)
{
	return fm->nbid ? ilog_strhash((const char *)fm->bid, fm->nbid)
			: ilog_strhash(fm->path, strlen(fm->path));
}

static int wmod_same(const struct wmod *w, const struct fmap *fm)
{
	return fm->nbid ? w->nbid == fm->nbid && !memcmp(w->bid, fm->bid, fm->nbid)
			: !w->nbid && w->path == fm->path; /* pool strings: one copy each */
}

/* The module of fm, made if new (mu held by the caller when a thread runs);
 * NULL out of memory. */
static struct wmod *wmod_of(struct filt *f, const struct fmap *fm, int make)
{
	uint64_t h = wmod_hash(fm), k = 0;
	for (uint64_t *v; (v = ilog_hmap_get(&f->wmidx, h, k)); k++)
		if (wmod_same(&f->wm[*v], fm))
			return &f->wm[*v];
	if (!make || ilog_grow((void **)&f->wm, &f->capwm, f->nwm, sizeof(*f->wm), 16) ||
	    ilog_hmap_set(&f->wmidx, h, k, f->nwm))
		return NULL;
	struct wmod *w = &f->wm[f->nwm++];
	*w = (struct wmod){ .path = fm->path, .nbid = fm->nbid };
	memcpy(w->bid, fm->bid, fm->nbid);
	return w;
}

/* The symbolizer that resolves fm's module: its owner's, else the main one. */
struct ilog_symbolizer *ilog_sym_symbolizer_for(struct filt *f, const struct fmap *fm)
{
	const struct wmod *w = f->nwm ? wmod_of(f, fm, 0) : NULL;
	return f->sym[w && w->owner ? w->owner - 1 : 0];
}

/* The use a resolver is resolving, for its reports: the thread's own, so
 * that setting it per ip writes no line the other thread reads. */
static _Thread_local uint32_t cur_use;

static int cmp_job(const void *a, const void *b)
{
	const struct job *x = a, *y = b;
	return x->ip < y->ip ? -1 : x->ip > y->ip;
}

/* Up to WARM_BATCH jobs for resolver `me` (1 main, 2 thread) into batch,
 * under mu: from a module it owns, else from the unclaimed module with the
 * most jobs waiting, which it then owns. */
static uint32_t take(struct filt *f, int me, struct job *batch, uint32_t *widx,
		     struct wmod *mod)
{
	struct wmod *best = NULL;
	for (uint32_t i = 0; i < f->nwm; i++) {
		struct wmod *w = &f->wm[i];
		uint32_t left = w->n - w->next;
		if (!left || (w->owner && w->owner != me))
			continue;
		if (w->owner == me) {
			best = w;
			break;
		}
		if (!best || left > best->n - best->next)
			best = w;
	}
	if (!best)
		return 0;
	best->owner = me;
	*widx = (uint32_t)(best - f->wm);
	*mod = *best; /* its path and build-id, as wm[] may move */
	uint32_t n = best->n - best->next < WARM_BATCH ? best->n - best->next : WARM_BATCH;
	memcpy(batch, best->q + best->next, n * sizeof(*batch));
	best->next += n;
	return n;
}

/* Keep an answer for plan() (out of memory: it asks again). */
static void keep(struct rout *r, uint32_t use, uint32_t w, const struct ilog_symbol *out,
		 uint32_t k)
{
	/* a large first block: pages untouched cost nothing */
	if (ilog_reserve((void **)&r->a, &r->cap, r->n + k, sizeof(*r->a), 16384) ||
	    ilog_grow((void **)&r->d, &r->capd, r->nd, sizeof(*r->d), 1024))
		return;
	memcpy(r->a + r->n, out, k * sizeof(*out));
	r->d[r->nd++] = (struct rdone){ use, r->n, w, k };
	r->n += k;
}

/* Resolve jobs as resolver `me` until none is left for it; the thread
 * waits for more while pass 1 reads.  The answers are kept (keep()) for
 * plan(). */
static void resolve_jobs(struct filt *f, int me)
{
	struct ilog_symbol out[MAX_FRAMES];
	struct job *batch = malloc(WARM_BATCH * sizeof(*batch));
	if (!batch)
		return;
	for (;;) {
		pthread_mutex_lock(&f->mu);
		uint32_t n, w = 0;
		struct wmod mod;
		while (!(n = take(f, me, batch, &w, &mod)) && me == 2 && !f->jobs_end) {
			f->waiting = 1;
			pthread_cond_wait(&f->cv, &f->mu);
			f->waiting = 0;
		}
		pthread_mutex_unlock(&f->mu);
		if (!n)
			break;
		/* in address order: neighbours share line tables, DIEs and
		 * symbols, which then stay in the cache */
		qsort(batch, n, sizeof(*batch), cmp_job);
		for (uint32_t i = 0; i < n; i++) {
			const struct job *j = &batch[i];
			struct ilog_mapping m = {
				.pid = j->pid, .start = j->start, .end = j->end, .offset = j->offset,
				.prot = j->prot, .path = ilog_str_c(mod.path),
				.build_id = { mod.bid, mod.nbid },
			};
			cur_use = j->use;
			int k = ilog_symbolizer_lookup(f->sym[me - 1], &m, j->ip, j->ret, out,
						       MAX_FRAMES);
			if (k < 0)
				goto out; /* out of memory: plan() finds it again */
			keep(&f->rout[me - 1], j->use, w, out, (uint32_t)k);
		}
	}
out:
	free(batch);
}

static void *warm(void *arg)
{
	resolve_jobs(arg, 2);
	return NULL;
}

/* The symbolizers' reports: held while two resolvers run, tagged with the
 * use being resolved, and passed on by plan() at that use, so stderr reads
 * as if every ip were resolved one by one in stream order. */
void ilog_sym_on_report(void *arg, enum ilog_sym_level level, const char *msg)
{
	struct filt *f = arg;
	if (f->warming) {
		pthread_mutex_lock(&f->mu);
		char *m = strdup(msg);
		int held = m && !ilog_grow((void **)&f->held, &f->capheld, f->nheld,
					  sizeof(*f->held), 16);
		if (held)
			f->held[f->nheld++] = (struct held){ cur_use, f->nheld, level, m };
		else
			free(m);
		pthread_mutex_unlock(&f->mu);
		if (held)
			return;
	}
	if (f->o->report)
		f->o->report(f->o->report_arg, level, msg);
}

static int cmp_held(const void *a, const void *b)
{
	const struct held *x = a, *y = b;
	if (x->use != y->use)
		return x->use < y->use ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Pass on the held reports made for uses up to `use` (all: UINT32_MAX). */
void ilog_sym_replay(struct filt *f, uint32_t use)
{
	for (; f->nreplayed < f->nheld && f->held[f->nreplayed].use <= use; f->nreplayed++)
		if (f->o->report)
			f->o->report(f->o->report_arg, f->held[f->nreplayed].level,
				     f->held[f->nreplayed].msg);
}

/* Hand the pending jobs to the resolvers, starting the thread the first
 * time. */
void ilog_sym_warm_hand(struct filt *f)
{
	if (!f->npend)
		return;
	pthread_mutex_lock(&f->mu);
	for (uint32_t i = 0; i < f->npend; i++) {
		const struct pjob *p = &f->pend[i];
		struct wmod *w = wmod_of(f, p->fm, 1);
		/* out of memory: plan() resolves it */
		if (w && !ilog_grow((void **)&w->q, &w->cap, w->n, sizeof(*w->q), 64))
			w->q[w->n++] = (struct job){ p->fm->start, p->fm->end, p->fm->offset, p->ip,
						     p->fm->prot, p->use, p->pid, p->ret };
	}
	f->npend = 0;
	if (f->waiting)
		pthread_cond_signal(&f->cv);
	pthread_mutex_unlock(&f->mu);
	if (!f->thr_state && f->nthreads > 1) {
		f->warming = 1;
		if (pthread_create(&f->thr, NULL, warm, f)) {
			f->warming = 0;
			f->thr_state = -1; /* the main thread resolves them all */
		} else {
			f->thr_state = f->started = 1;
		}
	}
}

/* A new ip for the resolvers, when its mapping is already known. */
void ilog_sym_warm_push(struct filt *f, const struct use *u, uint32_t idx)
{
	const struct fmap *fm = ilog_sym_find_map(f, u->node, u->pid, u->ip, u->seq);
	if (!fm)
		return; /* a mapping after its stack, if any: plan() decides */
	f->pend[f->npend++] = (struct pjob){ fm, u->ip, idx, u->pid, u->ret };
	if (f->npend == sizeof(f->pend) / sizeof(f->pend[0]))
		ilog_sym_warm_hand(f);
}

/* opts.threads, with 0: 2 where this process may run on two CPUs or
 * more (lib/include/ingero/symbolize.h). */
int ilog_sym_want_threads(const struct ilog_symbolize_opts *o)
{
	if (o->threads)
		return o->threads;
	cpu_set_t set;
	return !sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 1 ? 2 : 1;
}

/* After pass 1: the main thread resolves what the second has not taken
 * (with one thread: everything, module by module, in address order),
 * then waits for it; the held reports are put in stream order.  help 0:
 * an error, nothing more to resolve. */
void ilog_sym_warm_join(struct filt *f, int help)
{
	if (f->joined)
		return;
	f->joined = 1;
	ilog_sym_warm_hand(f);
	if (f->thr_state == 1) {
		pthread_mutex_lock(&f->mu);
		f->jobs_end = 1;
		pthread_cond_signal(&f->cv);
		pthread_mutex_unlock(&f->mu);
	}
	if (help) {
		f->warming = 1;
		resolve_jobs(f, 1);
	}
	if (f->thr_state == 1)
		pthread_join(f->thr, NULL);
	f->thr_state = -1;
	f->warming = 0;
	if (f->nheld > 1)
		qsort(f->held, f->nheld, sizeof(*f->held), cmp_held);
	if (help && f->nuses && (f->byuse = calloc(f->nuses, sizeof(*f->byuse))))
		for (int r = 0; r < 2; r++)
			for (uint32_t i = 0; i < f->rout[r].nd; i++) {
				struct rdone d = f->rout[r].d[i];
				d.w |= (uint32_t)r << 31; /* which resolver's a[] */
				f->byuse[d.use] = d;
			}
}
