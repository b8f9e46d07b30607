// SPDX-License-Identifier: MIT
/*
 * The ranks of a multi-rank job as rows (ingero/stats.h): per rank of each
 * communicator, and per finished collective, for the report, JSON, HTML
 * and the sinks.
 */
#include <stdlib.h>
#include <string.h>
#include "ranks_int.h"
#include "stats_int.h"

int ilog_stats_ranks(struct ilog_stats *st, struct ilog_rank_row **rows)
{
	*rows = NULL;
	const struct ranks *rk = st->rk;
	uint32_t n = 0;
	for (uint32_t i = 0; rk && i < rk->ncomms; i++)
		n += rk->comms[i].bad ? 0 : rk_comm_size(&rk->comms[i]);
	if (!n)
		return 0;
	struct ilog_rank_row *r = calloc(n, sizeof(*r));
	if (!r)
		return -1;
	uint32_t k = 0;
	for (uint32_t i = 0; i < rk->ncomms; i++) {
		const struct rk_comm *c = &rk->comms[i];
		for (uint32_t j = 0; !c->bad && j < rk_comm_size(c); j++) {
			struct ilog_rank_row *o = &r[k++];
			o->comm = c->id;
			o->nranks = rk_comm_size(c);
			o->rank = j;
			o->lane_w = c->lane_w ? c->lane_w : 1;
			if (c->members[j] == UINT32_MAX)
				continue; /* a rank with no record: its pid is 0 */
			const struct rk_member *m = &rk->mem[c->members[j]];
			o->node = m->node;
			o->pid = m->pid;
			o->collectives = m->ncoll;
			o->last = m->nlast;
			o->late_mean_ns = m->ncoll ? m->late_sum / m->ncoll : 0;
			o->late_max_ns = m->late_max;
			o->held_ns = m->held;
			o->first_ns = m->first_t;
			o->last_ns = m->last_t;
			if (m->ncoll > 1 && m->last_t > m->first_t)
				o->rate_hz = (double)(m->ncoll - 1) * 1e9 / (double)(m->last_t - m->first_t);
			uint32_t used = 0;
			for (uint32_t b = 0; b < RK_LANE; b++)
				if (m->lane_n[b])
					used = b + 1;
			o->nlane = used;
			for (uint32_t b = 0; b < used; b++)
				o->lane_ns[b] = m->lane_n[b] ? m->lane[b] / m->lane_n[b] : UINT64_MAX;
		}
	}
	*rows = r;
	return (int)k;
}

int ilog_stats_collectives(struct ilog_stats *st,
			   int (*fn)(void *arg, const struct ilog_coll_row *c), void *arg)
{
	const struct ranks *rk = st->rk;
	for (uint32_t i = 0; rk && i < rk->ncomms; i++) {
		const struct rk_comm *c = &rk->comms[i];
		for (uint32_t j = 0; !c->bad && j < c->ndone; j++) {
			const struct rk_coll *d = &c->done[j];
			const struct rk_member *m =
				c->members[d->last] != UINT32_MAX ? &rk->mem[c->members[d->last]] : NULL;
			struct ilog_coll_row row = {
				.comm = c->id, .seq = d->seq, .op = d->op, .nranks = rk_comm_size(c),
				.last_rank = d->last, .last_node = m ? m->node : 0,
				.last_pid = m ? m->pid : 0, .first_ns = d->first_t,
				.second_ns = d->second_t, .last_ns = d->last_t, .done_ns = d->done_t,
				.wait_ns = d->wait,
			};
			int rc = fn(arg, &row);
			if (rc)
				return rc;
		}
	}
	return 0;
}
