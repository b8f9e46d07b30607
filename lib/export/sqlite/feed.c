// SPDX-License-Identifier: MIT
/*
 * The SQLite sink's summaries are fed on a second thread while the rows
 * load (struct feed, sqlite.h).
 */
#include <stdlib.h>
#include <string.h>
#include "sqlite.h"

static void graph_life_add(struct graph_life *l, const struct feed_ent *q)
{
	const struct ingero_cuda_event *e = &q->u.cuda;
	l->calls++;
	l->failed += e->ret != 0;
	switch (e->op) {
	case ILOG_OP_cudaStreamBeginCapture: {
		int k;
		l->captures++;
		l->open_ts = q->wall;
		for (k = 0; k < l->nstreams && l->streams[k] != (int64_t)e->stream; k++)
			;
		if (k == l->nstreams && l->nstreams < 64) {
			l->streams[k] = (int64_t)e->stream;
			l->stream_caps[l->nstreams++] = 0;
		}
		if (k < l->nstreams)
			l->stream_caps[k]++;
		break;
	}
	case ILOG_OP_cudaStreamEndCapture:
		if (l->open_ts)
			l->capture_ns += (uint64_t)(q->wall + (int64_t)e->dur_ns - l->open_ts);
		l->open_ts = 0;
		break;
	case ILOG_OP_cudaGraphInstantiate:
	case ILOG_OP_cudaGraphInstantiateWithFlags:
		l->instantiations++;
		l->instantiate_ns += e->dur_ns;
		break;
	default:
		l->launches++;
		break;
	}
}

/* A graph call (ops 14-18) into the session's lifecycle and its process's.
 * 0 or -1. */
static int graph_life_call(struct feed *f, const struct feed_ent *q)
{
	if (!f->nlives) {
		if (ilog_grow((void **)&f->lives, &f->caplives, 0, sizeof(*f->lives), 8))
			return -1;
		memset(&f->lives[0], 0, sizeof(f->lives[0]));
		f->nlives = 1;
	}
	uint64_t *v = ilog_hmap_put(&f->lifemap, q->u.cuda.pid, 0);
	if (!v)
		return -1;
	if (!*v) {
		if (ilog_grow((void **)&f->lives, &f->caplives, f->nlives, sizeof(*f->lives), 8))
			return -1;
		memset(&f->lives[f->nlives], 0, sizeof(f->lives[0]));
		f->lives[f->nlives].pid = q->u.cuda.pid;
		*v = ++f->nlives;
	}
	graph_life_add(&f->lives[0], q);
	graph_life_add(&f->lives[*v - 1], q);
	return 0;
}

/* A successful instantiation or launch of a graph exec.  0 or -1. */
static int graph_exec_add(struct feed *f, const struct feed_ent *q)
{
	const struct ingero_cuda_event *e = &q->u.cuda;
	uint64_t *v = ilog_hmap_put(&f->execmap, (uint64_t)(uint32_t)q->ord << 32 | e->pid, e->handle);
	if (!v)
		return -1;
	if (!*v) {
		if (ilog_grow((void **)&f->execs, &f->capexecs, f->nexecs, sizeof(*f->execs), 64))
			return -1;
		f->execs[f->nexecs] = (struct graph_exec){ .ord = q->ord, .pid = e->pid,
							   .handle = e->handle };
		*v = ++f->nexecs;
	}
	struct graph_exec *x = &f->execs[*v - 1];
	if (e->op != ILOG_OP_cudaGraphLaunch) {
		x->instantiations++;
		return 0;
	}
	if (!x->launches || q->wall < x->first_ts)
		x->first_ts = q->wall;
	if (!x->launches || q->wall > x->last_ts)
		x->last_ts = q->wall;
	x->launches++;
	x->launch_ns += e->dur_ns;
	return 0;
}

static void feed_apply(struct feed *f, const struct feed_ent *q, unsigned n)
{
	struct ilog_record *rec = &f->rec;
	for (unsigned i = 0; i < n; i++, q++) {
		if (f->failed) { /* out of memory: only free what was given */
			if (q->kind == ILOG_K_SNAPSHOT)
				free(q->u.snap);
			continue;
		}
		rec->kind = q->kind;
		rec->node = q->node;
		if (q->kind == ILOG_K_CUDA)
			rec->u.cuda = q->u.cuda;
		else if (q->kind == ILOG_K_HOST)
			rec->u.host = q->u.host;
		else if (q->kind == ILOG_K_SNAPSHOT) {
			rec->u.snapshot = *q->u.snap;
			free(q->u.snap);
		}
		/* the call sites key a call by the session's node */
		if (ilog_analysis_count(f->an, rec, NULL, (uint32_t)q->ord))
			f->failed = 1;
		if (q->kind == ILOG_K_CUDA) {
			if (q->u.cuda.op >= ILOG_OP_cudaStreamBeginCapture &&
			    q->u.cuda.op <= ILOG_OP_cudaGraphLaunch && graph_life_call(f, q))
				f->failed = 1;
			if ((q->u.cuda.op == ILOG_OP_cudaGraphInstantiate ||
			     q->u.cuda.op == ILOG_OP_cudaGraphInstantiateWithFlags ||
			     q->u.cuda.op == ILOG_OP_cudaGraphLaunch) && !q->u.cuda.ret &&
			    graph_exec_add(f, q))
				f->failed = 1;
		}
	}
}

static void *feed_main(void *arg)
{
	struct feed *f = arg;
	pthread_mutex_lock(&f->mu);
	for (;;) {
		while (!f->todo && !f->stop)
			pthread_cond_wait(&f->cv, &f->mu);
		if (!f->todo)
			break;
		struct feed_ent *q = f->todo;
		unsigned n = f->ntodo;
		f->todo = NULL;
		f->busy = 1;
		pthread_mutex_unlock(&f->mu);
		feed_apply(f, q, n);
		pthread_mutex_lock(&f->mu);
		f->busy = 0;
		pthread_cond_broadcast(&f->cv);
	}
	pthread_mutex_unlock(&f->mu);
	return NULL;
}

/* Hand the filled batch over (once the thread is done with the other)
 * and fill the other.  With wait, also wait until it is worked off. */
void ilog_sq_feed_hand(struct feed *f, int wait)
{
	if (!f->running) {
		feed_apply(f, f->buf[f->cur], f->n);
		f->n = 0;
		return;
	}
	pthread_mutex_lock(&f->mu);
	while (f->todo || f->busy)
		pthread_cond_wait(&f->cv, &f->mu);
	if (f->n) {
		f->todo = f->buf[f->cur];
		f->ntodo = f->n;
		f->cur ^= 1;
		f->n = 0;
		pthread_cond_broadcast(&f->cv);
	}
	while (wait && (f->todo || f->busy))
		pthread_cond_wait(&f->cv, &f->mu);
	pthread_mutex_unlock(&f->mu);
}

/* NULL when out of memory. */
struct feed *ilog_sq_feed_new(struct ilog_analysis *an)
{
	struct feed *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->an = an;
	f->buf[0] = malloc(2 * FEED_BATCH * sizeof(struct feed_ent));
	if (!f->buf[0]) {
		free(f);
		return NULL;
	}
	f->buf[1] = f->buf[0] + FEED_BATCH;
	pthread_mutex_init(&f->mu, NULL);
	pthread_cond_init(&f->cv, NULL);
	f->running = !pthread_create(&f->th, NULL, feed_main, f);
	return f;
}

/* Stop the thread after what it was given. */
void ilog_sq_feed_end(struct feed *f)
{
	if (!f || !f->running)
		return;
	pthread_mutex_lock(&f->mu);
	f->stop = 1;
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->mu);
	pthread_join(f->th, NULL);
	f->running = 0;
}

void ilog_sq_feed_free(struct feed *f)
{
	if (!f)
		return;
	ilog_sq_feed_end(f);
	pthread_mutex_destroy(&f->mu);
	pthread_cond_destroy(&f->cv);
	for (unsigned i = 0; i < f->n; i++) /* filled, never handed over */
		if (f->buf[f->cur][i].kind == ILOG_K_SNAPSHOT)
			free(f->buf[f->cur][i].u.snap);
	free(f->buf[0]);
	ilog_hmap_free(&f->execmap);
	free(f->execs);
	ilog_hmap_free(&f->lifemap);
	free(f->lives);
	free(f);
}

/* One record for the summaries.  0, or -1 out of memory. */
int ilog_sq_feed_record(struct feed *f, const struct ilog_record *rec,
		       const struct ilog_reader *r, int ord, int64_t wall)
{
	switch (rec->kind) {
	case ILOG_K_HEADER:
	case ILOG_K_PROCESS:
	case ILOG_K_LOSS:
	case ILOG_K_BLKIO: /* a few a window */
		/* strings: in order, once the thread is idle */
		ilog_sq_feed_hand(f, 1);
		return f->failed || ilog_analysis_count(f->an, rec, r, rec->node) ? -1 : 0;
	default:
		break;
	}
	struct feed_ent *q = &f->buf[f->cur][f->n++];
	q->kind = rec->kind;
	q->node = rec->node;
	q->ord = ord;
	q->wall = wall;
	if (rec->kind == ILOG_K_CUDA)
		q->u.cuda = rec->u.cuda;
	else if (rec->kind == ILOG_K_HOST)
		q->u.host = rec->u.host;
	else if (rec->kind == ILOG_K_SNAPSHOT) {
		/* one every few thousand calls, too large to copy inline */
		if (!(q->u.snap = malloc(sizeof(*q->u.snap)))) {
			f->n--;
			return -1;
		}
		*q->u.snap = rec->u.snapshot;
	}
	if (f->n == FEED_BATCH)
		ilog_sq_feed_hand(f, 0);
	return f->failed ? -1 : 0;
}
