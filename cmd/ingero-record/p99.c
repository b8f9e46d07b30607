// SPDX-License-Identifier: MIT
/*
 * --p99-over FACTOR: the flight recorder's latency trigger.  The completed
 * calls of each (process, op) go into the live model's log-linear
 * histogram (ingero/hist.h, as ingero-export --listen keeps them): one
 * for the second in progress, one per second of the last P99_RECENT_S
 * seconds (the recent window) and one per P99_SLOT_S seconds of the
 * P99_BASE_SLOTS slots before them (the baseline: the minute before the
 * recent window, so a slow spell becomes the baseline once it lasts).
 * Each second, a (process, op) fires when its recent window holds at
 * least P99_MIN_RECENT calls, its baseline at least P99_MIN_BASE, and the
 * recent p99 is over FACTOR times the baseline's (nearest rank, each to
 * within 1/32).  It fires again only after a second back under the bound.
 * Per process, not per op over every process: one process whose calls
 * slow down is judged against its own past, not drowned by another's
 * steady calls of the same op.
 * Memory: about 70 KiB for each (process, op) that had a call in the
 * last P99_RECENT_S + P99_SLOT_S * P99_BASE_SLOTS seconds (freed once
 * its windows are empty), at most P99_MAX_SERIES of them; a new one
 * beyond goes unjudged until others go quiet (said once).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ingero/cli.h"
#include "ingero/hist.h"
#include "rec.h"

struct p99_op {
	uint32_t pid;
	uint16_t op;
	uint32_t cur[ILOG_HIST_NB];                   /* the second in progress */
	uint64_t ncur;
	uint32_t rec[P99_RECENT_S][ILOG_HIST_NB];     /* second t at t % P99_RECENT_S */
	uint64_t nrec[P99_RECENT_S];
	uint32_t base[P99_BASE_SLOTS][ILOG_HIST_NB];  /* slot s at s % P99_BASE_SLOTS */
	uint64_t nbase[P99_BASE_SLOTS], base_id[P99_BASE_SLOTS]; /* id: slot + 1 */
	int over;                                     /* fired, not yet back under */
	int judged;                                   /* had enough calls once (-v says so) */
};

/* The series by (pid, op): open addressing, linear probing, into s[];
 * rebuilt whenever quiet series are freed (at most once a second). */
#define P99_HASH (4 * P99_MAX_SERIES)

struct rec_p99 {
	double factor;
	uint64_t t;                                   /* seconds closed */
	struct p99_op *s[P99_MAX_SERIES];             /* s[0 .. n) */
	uint32_t n;
	int32_t idx[P99_HASH];                        /* index into s, -1: empty */
	uint32_t hr[ILOG_HIST_NB], hb[ILOG_HIST_NB];  /* the windows summed */
	int full;                                     /* said so */
};

static uint32_t slot_of(uint32_t pid, uint16_t op)
{
	uint64_t k = ((uint64_t)pid << 16 | op) * 0x9e3779b97f4a7c15ull;
	return (uint32_t)(k >> 40) & (P99_HASH - 1);
}

static void rehash(struct rec_p99 *p)
{
	memset(p->idx, 0xff, sizeof(p->idx));
	for (uint32_t i = 0; i < p->n; i++) {
		uint32_t h = slot_of(p->s[i]->pid, p->s[i]->op);
		while (p->idx[h] >= 0)
			h = (h + 1) & (P99_HASH - 1);
		p->idx[h] = (int32_t)i;
	}
}

struct rec_p99 *rec_p99_new(double factor)
{
	struct rec_p99 *p = calloc(1, sizeof(*p));
	if (p) {
		p->factor = factor;
		rehash(p);
	}
	return p;
}

void rec_p99_add(struct rec_p99 *p, uint32_t pid, uint32_t op, uint64_t dur_ns)
{
	if (op >= REC_MAX_OPS)
		return;
	uint32_t h = slot_of(pid, (uint16_t)op);
	struct p99_op *o = NULL;
	for (int32_t i; (i = p->idx[h]) >= 0; h = (h + 1) & (P99_HASH - 1))
		if (p->s[i]->pid == pid && p->s[i]->op == op) {
			o = p->s[i];
			break;
		}
	if (!o) {
		/* a new (process, op): within the bound and memory, else
		 * unjudged (the rest go on) */
		if (p->n == P99_MAX_SERIES || !(o = calloc(1, sizeof(*o)))) {
			if (!p->full++) {
				char why[64] = "out of memory";
				if (p->n == P99_MAX_SERIES)
					snprintf(why, sizeof(why), "%d (process, op) pairs judged "
						 "already", P99_MAX_SERIES);
				ilog_warnf("--p99-over: %s: %s of pid %u, and any other new (process, "
					   "op), goes unjudged until one has had no call for %d s", why,
					   ilog_op_name(op) ? ilog_op_name(op) : "an op", pid,
					   P99_RECENT_S + P99_SLOT_S * P99_BASE_SLOTS);
			}
			return;
		}
		o->pid = pid;
		o->op = (uint16_t)op;
		p->idx[h] = (int32_t)p->n;
		p->s[p->n++] = o;
	}
	o->cur[ilog_hist_bucket(dur_ns)]++;
	o->ncur++;
}

static void add(uint32_t *to, const uint32_t *from)
{
	for (uint32_t b = 0; b < ILOG_HIST_NB; b++)
		to[b] += from[b];
}

/* Second t closes: the recent window's oldest second goes to the
 * baseline, the second in progress becomes the newest. */
static void shift(struct p99_op *o, uint64_t t)
{
	uint32_t i = (uint32_t)(t % P99_RECENT_S);
	if (o->nrec[i] && t >= P99_RECENT_S) {
		uint64_t s = (t - P99_RECENT_S) / P99_SLOT_S;
		uint32_t k = (uint32_t)(s % P99_BASE_SLOTS);
		if (o->base_id[k] != s + 1) {
			memset(o->base[k], 0, sizeof(o->base[k]));
			o->nbase[k] = 0;
			o->base_id[k] = s + 1;
		}
		add(o->base[k], o->rec[i]);
		o->nbase[k] += o->nrec[i];
	}
	memcpy(o->rec[i], o->cur, sizeof(o->cur));
	o->nrec[i] = o->ncur;
	memset(o->cur, 0, sizeof(o->cur));
	o->ncur = 0;
}

int rec_p99_second(struct rec_p99 *p, struct rec_p99_fire *f)
{
	uint64_t t = p->t++;
	/* the baseline's slots still in it: the P99_BASE_SLOTS up to the
	 * one the recent window's oldest second went into */
	uint64_t newest = t >= P99_RECENT_S ? (t - P99_RECENT_S) / P99_SLOT_S + 1 : 0;
	double best = 0;
	int freed = 0;
	for (uint32_t j = 0; j < p->n; j++) {
		struct p99_op *o = p->s[j];
		shift(o, t);
		uint64_t nr = 0, nb = 0;
		for (int i = 0; i < P99_RECENT_S; i++)
			nr += o->nrec[i];
		for (int k = 0; k < P99_BASE_SLOTS; k++)
			if (o->base_id[k] && o->base_id[k] + P99_BASE_SLOTS > newest)
				nb += o->nbase[k];
		if (!nr && !nb) {
			/* no call for the recent window and the baseline: a
			 * process gone or an op it no longer calls; its
			 * memory is for another */
			free(o);
			p->s[j--] = p->s[--p->n];
			freed = 1;
			continue;
		}
		if (nr < P99_MIN_RECENT || nb < P99_MIN_BASE)
			continue; /* too few calls to judge: as it was */
		memset(p->hr, 0, sizeof(p->hr));
		memset(p->hb, 0, sizeof(p->hb));
		for (int i = 0; i < P99_RECENT_S; i++)
			add(p->hr, o->rec[i]);
		for (int k = 0; k < P99_BASE_SLOTS; k++)
			if (o->base_id[k] && o->base_id[k] + P99_BASE_SLOTS > newest)
				add(p->hb, o->base[k]);
		uint64_t qr = ilog_hist_quantile(p->hr, nr, 0.99);
		uint64_t qb = ilog_hist_quantile(p->hb, nb, 0.99);
		int over = (double)qr > p->factor * (double)(qb ? qb : 1);
		if (!o->judged && ILOG_VERBOSE(1)) {
			char comm[64];
			rec_proc_comm(o->pid, comm, sizeof(comm));
			fprintf(stderr, "%s: --p99-over: %s of pid %u (%s) judged from now on: p99 "
					"%.3f ms over the last %d s (%llu calls), %.3f ms before "
					"(%llu calls)\n",
				ilog_prog, ilog_op_name(o->op) ? ilog_op_name(o->op) : "an op", o->pid,
				comm, (double)qr / 1e6, P99_RECENT_S, (unsigned long long)nr,
				(double)qb / 1e6, (unsigned long long)nb);
		}
		o->judged = 1;
		if (over && !o->over) {
			double ratio = (double)qr / (double)(qb ? qb : 1);
			if (ratio > best) {
				best = ratio;
				*f = (struct rec_p99_fire){ o->pid, o->op, qr, qb, nr, nb };
			}
		}
		o->over = over;
	}
	if (freed) {
		rehash(p);
		p->full = 0; /* room again: a later overflow is said again */
	}
	return best > 0;
}

uint32_t rec_p99_series(const struct rec_p99 *p)
{
	return p->n;
}

void rec_p99_free(struct rec_p99 *p)
{
	if (!p)
		return;
	for (uint32_t i = 0; i < p->n; i++)
		free(p->s[i]);
	free(p);
}
