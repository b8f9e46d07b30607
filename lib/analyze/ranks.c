// SPDX-License-Identifier: MIT
/*
 * The ranks of a multi-rank job matched by communicator, collective by
 * collective (the model is in ranks_int.h).  Fed every cuda, inflight and
 * host record by the statistics (stats.c), in log order: a node's log is
 * in the order its calls returned, a merged log in wall-time order, so the
 * n-th collective of every rank arrives close together and only a few are
 * open at a time.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "ingero/hash.h"
#include "ingero/vec.h"
#include "causal_int.h"
#include "ranks_int.h"

/*
 * A collective stays open until every rank reached it.  A log in time order
 * (one node, or merged) has a few open at a time; logs given one after the
 * other unmerged have every collective of the first open when the second
 * starts.  Open ones hold 32 bytes per rank: past RK_OPEN_BYTES of them (and
 * at least RK_MIN_OPEN), the oldest is closed as it is (a rank's records
 * lost) and the rest are still matched.
 */
#define RK_OPEN_BYTES (64u << 20)
#define RK_MIN_OPEN 64u

int ilog_ranks_is_collective(uint16_t op)
{
	switch (op) {
	case ILOG_OP_ncclAllReduce: case ILOG_OP_ncclAllGather: case ILOG_OP_ncclReduceScatter:
	case ILOG_OP_ncclBroadcast: case ILOG_OP_ncclReduce: case ILOG_OP_ncclBcast:
		return 1;
	}
	return 0;
}

/* A synchronize that waits for work on `stream`: the same stream, the
 * legacy default stream (it waits for every blocking stream), an event
 * (recorded after the collective, as frameworks do) or the whole device. */
static int sync_covers(const struct ingero_cuda_event *e, uint64_t stream)
{
	if (e->op == ILOG_OP_cudaStreamSynchronize || e->op == ILOG_OP_cuStreamSynchronize)
		return e->stream == stream || e->stream == 0;
	return 1;
}

static void warnf(struct ranks *rk, const char *f, ...) __attribute__((format(printf, 2, 3)));
static void warnf(struct ranks *rk, const char *f, ...)
{
	if (rk->nwarn == sizeof(rk->warn) / sizeof(rk->warn[0])) {
		rk->warn_over++;
		return;
	}
	va_list ap;
	va_start(ap, f);
	vsnprintf(rk->warn[rk->nwarn++], sizeof(rk->warn[0]), f, ap);
	va_end(ap);
}

struct ranks *ilog_ranks_new(void)
{
	return calloc(1, sizeof(struct ranks));
}

static void open_free(struct rk_open *o)
{
	free(o->arr);
	free(o->mono);
	free(o->gap);
	free(o->done);
}

void ilog_ranks_free(struct ranks *rk)
{
	if (!rk)
		return;
	for (uint32_t i = 0; i < rk->ncomms; i++) {
		struct rk_comm *c = &rk->comms[i];
		for (uint32_t j = 0; j < c->nopen; j++)
			open_free(&c->open[j]);
		free(c->open);
		free(c->done);
		free(c->members);
		free(c->mem);
	}
	free(rk->comms);
	free(rk->mem);
	free(rk->procs);
	ilog_hmap_free(&rk->commmap);
	ilog_hmap_free(&rk->memmap);
	ilog_hmap_free(&rk->rejmap);
	ilog_hmap_free(&rk->procmap);
	free(rk);
}

static struct rk_proc *proc_get(struct ranks *rk, uint32_t node, uint32_t pid, int add)
{
	uint64_t *v = ilog_hmap_get(&rk->procmap, node, pid);
	if (v)
		return &rk->procs[*v - 1];
	if (!add)
		return NULL;
	if (ilog_grow((void **)&rk->procs, &rk->capprocs, rk->nprocs, sizeof(*rk->procs), 16) ||
	    ilog_hmap_set(&rk->procmap, node, pid, rk->nprocs + 1)) {
		rk->oom = 1;
		return NULL;
	}
	struct rk_proc *p = &rk->procs[rk->nprocs++];
	memset(p, 0, sizeof(*p));
	p->node = node;
	p->pid = pid;
	return p;
}

const struct rk_proc *ilog_ranks_proc(const struct ranks *rk, uint32_t node, uint32_t pid)
{
	const uint64_t *v = ilog_hmap_get(&rk->procmap, node, pid);
	return v ? &rk->procs[*v - 1] : NULL;
}

static struct rk_comm *comm_get(struct ranks *rk, uint64_t id, uint32_t *idx)
{
	uint64_t *v = ilog_hmap_get(&rk->commmap, id, 0);
	if (v) {
		*idx = (uint32_t)*v - 1;
		return &rk->comms[*idx];
	}
	if (ilog_grow((void **)&rk->comms, &rk->capcomms, rk->ncomms, sizeof(*rk->comms), 8) ||
	    ilog_hmap_set(&rk->commmap, id, 0, rk->ncomms + 1)) {
		rk->oom = 1;
		return NULL;
	}
	*idx = rk->ncomms;
	struct rk_comm *c = &rk->comms[rk->ncomms++];
	memset(c, 0, sizeof(*c));
	c->id = id;
	return c;
}

static struct rk_member *member_add(struct ranks *rk, uint32_t node, const struct ingero_cuda_event *e,
				    uint32_t ci)
{
	if (ilog_grow((void **)&rk->mem, &rk->capmem, rk->nmem, sizeof(*rk->mem), 16) ||
	    ilog_hmap_set(&rk->memmap, (uint64_t)node << 32 | e->pid, e->handle, rk->nmem + 1)) {
		rk->oom = 1;
		return NULL;
	}
	struct rk_comm *c = &rk->comms[ci];
	if (ilog_grow((void **)&c->mem, &c->capmem, c->nmem, sizeof(*c->mem), 8)) {
		rk->oom = 1;
		return NULL;
	}
	c->mem[c->nmem++] = rk->nmem;
	struct rk_member *m = &rk->mem[rk->nmem++];
	memset(m, 0, sizeof(*m));
	m->node = node;
	m->pid = e->pid;
	m->tid = e->tid;
	m->handle = e->handle;
	m->comm = ci;
	struct rk_proc *p = proc_get(rk, node, e->pid, 1);
	if (!p)
		return NULL;
	m->next = p->members;
	p->members = rk->nmem;
	if (!rk->nodes_seen++)
		rk->first_node = node;
	else if (node != rk->first_node)
		rk->multi = 1;
	return m;
}

/* ncclCommInitRank(Config): the communicator of its id hash (args[0]),
 * nranks in bytes, the rank in kind (SPEC §5.4). */
static void comm_init(struct ranks *rk, uint32_t node, const struct ingero_cuda_event *e)
{
	if (e->nargs < 1 || !e->handle) {
		rk->noid_inits += !e->nargs; /* a log before 1.4: no identity */
		return;
	}
	uint32_t ci;
	struct rk_comm *c = comm_get(rk, e->args[0], &ci);
	if (!c)
		return;
	uint32_t nranks = (uint32_t)e->bytes, rank = e->kind;
	if (!c->nranks && !c->nmem) {
		if (!nranks || nranks > (1u << 20)) {
			warnf(rk, "communicator %016llx: pid %u declares %u ranks; left out",
			      (unsigned long long)c->id, e->pid, nranks);
			c->bad = 1;
			return;
		}
		c->nranks = nranks;
		c->members = malloc(nranks * sizeof(*c->members));
		if (!c->members) {
			rk->oom = 1;
			return;
		}
		memset(c->members, 0xff, nranks * sizeof(*c->members));
	}
	if (c->bad)
		return;
	if (nranks != c->nranks) {
		warnf(rk, "communicator %016llx: pid %u says %u ranks, another rank said %u; "
		      "analyzed with the first, pid %u left out",
		      (unsigned long long)c->id, e->pid, nranks, c->nranks, e->pid);
		if (ilog_hmap_set(&rk->rejmap, (uint64_t)node << 32 | e->pid, e->handle, 1))
			rk->oom = 1;
		return;
	}
	if (rank >= nranks || c->members[rank] != UINT32_MAX) {
		warnf(rk, "communicator %016llx: rank %u %s (pid %u); pid %u left out",
		      (unsigned long long)c->id, rank, rank >= nranks ? "out of range" : "repeated",
		      e->pid, e->pid);
		if (ilog_hmap_set(&rk->rejmap, (uint64_t)node << 32 | e->pid, e->handle, 1))
			rk->oom = 1;
		return;
	}
	struct rk_member *m = member_add(rk, node, e, ci);
	if (!m)
		return;
	m->rank = rank;
	c->members[rank] = (uint32_t)(m - rk->mem);
}

/* ncclCommSplit: args [parent, color, key] (SPEC §5.4). */
static void comm_split(struct ranks *rk, uint32_t node, const struct ingero_cuda_event *e)
{
	if (e->nargs < 3 || !e->handle || (int64_t)e->args[1] < 0) /* NCCL_SPLIT_NOCOLOR */
		return;
	uint64_t *pv = ilog_hmap_get(&rk->memmap, (uint64_t)node << 32 | e->pid, e->args[0]);
	if (!pv)
		return; /* the parent's init is not in the log */
	struct rk_member *pm = &rk->mem[*pv - 1];
	uint64_t id = ilog_fnv1a_u64(ilog_fnv1a_u64(ilog_fnv1a_u64(ILOG_FNV64_INIT,
				     rk->comms[pm->comm].id), e->args[1]), pm->splits++);
	uint32_t prank = pm->rank, ci;
	struct rk_comm *c = comm_get(rk, id, &ci);
	if (!c)
		return;
	c->split = 1;
	struct rk_member *m = member_add(rk, node, e, ci);
	if (!m)
		return;
	m->key = (int64_t)e->args[2];
	m->prank = prank;
	/* ranks by (key, rank in the parent), as NCCL numbers them */
	c = &rk->comms[ci];
	uint32_t n = c->nmem;
	for (uint32_t i = 1; i < n; i++)
		for (uint32_t j = i; j > 0; j--) {
			struct rk_member *a = &rk->mem[c->mem[j - 1]], *b = &rk->mem[c->mem[j]];
			if (a->key < b->key || (a->key == b->key && a->prank <= b->prank))
				break;
			uint32_t t = c->mem[j - 1];
			c->mem[j - 1] = c->mem[j];
			c->mem[j] = t;
		}
	uint32_t *mb = realloc(c->members, n * sizeof(*mb));
	if (!mb) {
		rk->oom = 1;
		return;
	}
	c->members = mb;
	for (uint32_t i = 0; i < n; i++) {
		c->members[i] = c->mem[i];
		rk->mem[c->mem[i]].rank = i;
	}
}

/* Each rank's share of a finished collective, and its lane. */
static void rank_account(struct ranks *rk, struct rk_comm *c, const struct rk_open *o,
			 const struct rk_coll *d)
{
	if (!c->lane_w)
		c->lane_w = 1;
	while (d->seq >= c->lane_w * RK_LANE) { /* halve the lanes' resolution */
		for (uint32_t r = 0; r < c->nmem; r++) {
			struct rk_member *m = &rk->mem[c->mem[r]];
			for (uint32_t b = 0; b < RK_LANE / 2; b++) {
				m->lane[b] = m->lane[2 * b] + m->lane[2 * b + 1];
				m->lane_n[b] = m->lane_n[2 * b] + m->lane_n[2 * b + 1];
			}
			memset(&m->lane[RK_LANE / 2], 0, sizeof(m->lane) / 2);
			memset(&m->lane_n[RK_LANE / 2], 0, sizeof(m->lane_n) / 2);
		}
		c->lane_w *= 2;
	}
	uint32_t bk = (uint32_t)(d->seq / c->lane_w);
	for (uint32_t r = 0; r < rk_comm_size(c); r++) {
		if (c->members[r] == UINT32_MAX)
			continue;
		struct rk_member *m = &rk->mem[c->members[r]];
		uint64_t late = o->arr[r] - d->first_t;
		if (!m->ncoll++)
			m->first_t = o->arr[r];
		m->last_t = o->arr[r];
		m->late_sum += late;
		if (late > m->late_max)
			m->late_max = late;
		m->lane[bk] += late;
		m->lane_n[bk]++;
		if (r == d->last) {
			m->nlast++;
			m->held += d->last_t - d->second_t;
		}
	}
}

/* Close the lowest open collective of c into its summary. */
static void coll_close(struct ranks *rk, struct rk_comm *c)
{
	struct rk_open *o = &c->open[0];
	uint32_t n = rk_comm_size(c);
	if (o->narr >= 2 && o->narr == n) {
		if (ilog_grow((void **)&c->done, &c->capdone, c->ndone, sizeof(*c->done), 64)) {
			rk->oom = 1;
			return;
		}
		struct rk_coll *d = &c->done[c->ndone++];
		memset(d, 0, sizeof(*d));
		d->seq = o->seq;
		d->op = o->op;
		uint32_t last = 0;
		d->first_t = UINT64_MAX;
		for (uint32_t r = 0; r < n; r++) {
			uint64_t t = o->arr[r];
			if (t < d->first_t)
				d->first_t = t;
			if (t >= d->last_t) {
				d->second_t = d->last_t;
				d->last_t = t;
				last = r;
			} else if (t > d->second_t) {
				d->second_t = t;
			}
			if (o->done[r] && (!d->done_t || o->done[r] < d->done_t))
				d->done_t = o->done[r];
		}
		for (uint32_t r = 0; r < n; r++)
			d->wait += d->last_t - o->arr[r];
		d->last = last;
		d->last_mono = o->mono[last];
		d->gap_mono = o->gap[last];
		rank_account(rk, c, o, d);
	}
	open_free(o);
	memmove(&c->open[0], &c->open[1], (c->nopen - 1) * sizeof(*c->open));
	c->nopen--;
	c->open_base++;
}

static struct rk_open *coll_open(struct ranks *rk, struct rk_comm *c, uint64_t seq)
{
	while (seq >= c->open_base + c->nopen) {
		uint32_t cap = RK_OPEN_BYTES / (32u * (rk_comm_size(c) ? rk_comm_size(c) : 1));
		if (c->nopen >= (cap > RK_MIN_OPEN ? cap : RK_MIN_OPEN))
			coll_close(rk, c);
		if (ilog_grow((void **)&c->open, &c->capopen, c->nopen, sizeof(*c->open), 8)) {
			rk->oom = 1;
			return NULL;
		}
		uint32_t n = rk_comm_size(c);
		struct rk_open *o = &c->open[c->nopen];
		memset(o, 0, sizeof(*o));
		o->seq = c->open_base + c->nopen;
		o->arr = calloc(n, sizeof(*o->arr));
		o->mono = calloc(n, sizeof(*o->mono));
		o->gap = calloc(n, sizeof(*o->gap));
		o->done = calloc(n, sizeof(*o->done));
		if (!o->arr || !o->mono || !o->gap || !o->done) {
			open_free(o);
			rk->oom = 1;
			return NULL;
		}
		c->nopen++;
	}
	return seq < c->open_base ? NULL : &c->open[seq - c->open_base];
}

static void arrive(struct ranks *rk, struct rk_member *m, const struct ingero_cuda_event *e,
		   uint64_t t)
{
	struct rk_comm *c = &rk->comms[m->comm];
	uint64_t seq = m->nseq++;
	m->stream = e->stream;
	uint64_t gap = m->prev_done_mono > m->last_arr_mono ? m->prev_done_mono : m->last_arr_mono;
	m->last_arr_mono = e->ts_ns;
	if (c->bad || m->rank >= rk_comm_size(c))
		return;
	struct rk_open *o = coll_open(rk, c, seq);
	if (!o)
		return; /* closed already: this rank came too late to count */
	if (!o->narr) {
		o->op = e->op;
		o->count = e->bytes;
		o->dtype = e->kind;
		o->first_rank = m->rank;
	} else if (o->op != e->op || o->count != e->bytes || o->dtype != e->kind) {
		if (c->nds < sizeof(c->ds) / sizeof(c->ds[0]))
			c->ds[c->nds++] = (struct rk_desync){
				.seq = seq, .rank_a = o->first_rank, .rank_b = m->rank,
				.op_a = o->op, .op_b = e->op, .count_a = o->count, .count_b = e->bytes,
				.dtype_a = o->dtype, .dtype_b = e->kind, .ts_mono = e->ts_ns,
				.node_b = m->node, .pid_b = m->pid };
		c->ndesync++;
	}
	if (!o->arr[m->rank])
		o->narr++;
	o->arr[m->rank] = t ? t : 1;
	o->mono[m->rank] = e->ts_ns;
	o->gap[m->rank] = gap;
	while (c->nopen && c->open[0].narr == rk_comm_size(c) && !rk->oom)
		coll_close(rk, c);
}

/* A synchronize of (node, pid) returned at `end`: the collectives it waited for are complete. */
static void complete(struct ranks *rk, uint32_t node, const struct ingero_cuda_event *e,
		     uint64_t end_t)
{
	const struct rk_proc *p = proc_get(rk, node, e->pid, 0);
	for (uint32_t i = p ? p->members : 0; i; i = rk->mem[i - 1].next) {
		struct rk_member *m = &rk->mem[i - 1];
		if (m->done_seq == m->nseq || !sync_covers(e, m->stream))
			continue;
		struct rk_comm *c = &rk->comms[m->comm];
		for (uint64_t s = m->done_seq; s < m->nseq; s++) {
			if (s >= c->open_base && s < c->open_base + c->nopen) {
				struct rk_open *o = &c->open[s - c->open_base];
				if (m->rank < rk_comm_size(c) && !o->done[m->rank])
					o->done[m->rank] = end_t;
			} else if (s < c->open_base && c->ndone &&
				   c->done[c->ndone - 1].seq >= s) {
				/* finished already: its summary is near the end */
				for (uint32_t k = c->ndone; k-- > 0 && c->done[k].seq >= s;)
					if (c->done[k].seq == s && (!c->done[k].done_t ||
								    end_t < c->done[k].done_t))
						c->done[k].done_t = end_t;
			}
		}
		m->done_seq = m->nseq;
		m->prev_done_mono = e->ts_ns + e->dur_ns;
		m->waiting = 0;
	}
}

/* A synchronize still in flight: the process's members wait in it. */
static void waiting(struct ranks *rk, uint32_t node, const struct ingero_cuda_event *e)
{
	const struct rk_proc *p = proc_get(rk, node, e->pid, 0);
	for (uint32_t i = p ? p->members : 0; i; i = rk->mem[i - 1].next) {
		struct rk_member *m = &rk->mem[i - 1];
		if (!sync_covers(e, m->stream) || e->ts_ns < m->last_arr_mono)
			continue;
		m->waiting = 1;
		m->wait_op = e->op;
		m->wait_ts = e->ts_ns;
		if (e->dur_ns > m->wait_ns || m->wait_ts != e->ts_ns)
			m->wait_ns = e->dur_ns;
	}
}

static void proc_call(struct rk_proc *p, const struct ingero_cuda_event *e, int inflight)
{
	if (inflight) {
		if (!p->in_op || e->ts_ns >= p->in_ts) {
			p->in_op = e->op;
			p->in_ts = e->ts_ns;
			p->in_dur = e->dur_ns;
			p->in_stack = e->stack_id;
			p->in_pystack = e->pystack_id;
		}
		return;
	}
	if (p->in_op && p->in_ts == e->ts_ns)
		p->in_op = 0; /* it returned */
	uint64_t end = e->ts_ns + e->dur_ns;
	if (end < p->end)
		return;
	p->op = e->op;
	p->flags = e->flags;
	p->ts = e->ts_ns;
	p->end = end;
	p->stack_id = e->stack_id;
	p->pystack_id = e->pystack_id;
	p->sw_n = p->sw_blocked = p->sw_ns = 0;
}

static void add_call(struct ranks *rk, uint32_t node, const struct ilog_record *rec,
		     rk_clock_fn clk, void *arg)
{
	const struct ingero_cuda_event *e = &rec->u.cuda;
	int inflight = rec->kind == ILOG_K_INFLIGHT || (e->flags & ILOG_CUDA_F_NO_RETURN);
	struct rk_proc *p = proc_get(rk, node, e->pid, 1);
	if (!p)
		return;
	if (ilog_ranks_is_collective(e->op)) {
		uint64_t *v = ilog_hmap_get(&rk->memmap, (uint64_t)node << 32 | e->pid, e->handle);
		/* an inflight record repeats a call, and its cuda record follows */
		int seen = v && rk->mem[*v - 1].last_arr_mono == e->ts_ns && rk->mem[*v - 1].nseq;
		if (!v && ilog_hmap_get(&rk->rejmap, (uint64_t)node << 32 | e->pid, e->handle)) {
			; /* its init was left out, and said so */
		} else if (!v) {
			if (!rk->orphan_calls++) {
				rk->orphan_pid = e->pid;
				rk->orphan_handle = e->handle;
			}
		} else if (!seen) {
			uint64_t t = clk(arg, node, e->ts_ns);
			arrive(rk, &rk->mem[*v - 1], e, t);
		}
		if (v) {
			struct rk_member *m = &rk->mem[*v - 1];
			m->in_coll = inflight;
			m->stuck_ns = inflight ? e->dur_ns : 0;
		}
	} else if (is_sync(e->op)) {
		if (inflight)
			waiting(rk, node, e);
		else if (!e->ret)
			complete(rk, node, e,
				 clk(arg, node, e->ts_ns + e->dur_ns));
	} else if (rec->kind == ILOG_K_CUDA && !inflight && !e->ret) {
		if (e->op == ILOG_OP_ncclCommInitRank || e->op == ILOG_OP_ncclCommInitRankConfig)
			comm_init(rk, node, e);
		else if (e->op == ILOG_OP_ncclCommSplit)
			comm_split(rk, node, e);
	}
	proc_call(p, e, inflight);
}

int ilog_ranks_add(struct ranks *rk, uint32_t node, const struct ilog_record *rec,
		   rk_clock_fn clk, void *arg)
{
	if (rec->kind == ILOG_K_CUDA || rec->kind == ILOG_K_INFLIGHT) {
		if (rec->u.cuda.layer == ILOG_LAYER_NCCL || rk->nmem || rk->nprocs)
			add_call(rk, node, rec, clk, arg);
	} else if (rec->kind == ILOG_K_HOST) {
		const struct ingero_host_event *h = &rec->u.host;
		struct rk_proc *p = rk->nprocs ? proc_get(rk, node, h->pid, 0) : NULL;
		if (p && h->type == ILOG_HOST_SWITCH && h->ts_ns >= p->end) {
			p->sw_n++;
			p->sw_blocked += h->value != 0;
			p->sw_ns += h->dur_ns;
			p->sw_last_ts = h->ts_ns;
			p->sw_last_state = (int64_t)h->value;
		} else if (p && h->type == ILOG_HOST_EXIT && h->pid == h->tid) {
			p->dead = 1;
			p->exit_ts = h->ts_ns;
		}
	}
	return rk->oom ? -1 : 0;
}

int ilog_ranks_finish(struct ranks *rk)
{
	for (uint32_t i = 0; i < rk->ncomms; i++) {
		struct rk_comm *c = &rk->comms[i];
		while (c->nopen && c->open[0].narr == rk_comm_size(c) && !rk->oom)
			coll_close(rk, c);
		if (c->split && c->nmem < 2)
			c->bad = 1; /* a split of one rank: nothing to compare */
	}
	/* a log before format 1.4 has communicators without identity: nothing
	 * to match, nothing to warn about */
	if (rk->orphan_calls && !rk->noid_inits)
		warnf(rk, "%llu collective calls on communicators whose init is not in the log "
		      "(first: pid %llu, communicator 0x%llx); left out of the cross-rank analysis",
		      (unsigned long long)rk->orphan_calls, (unsigned long long)rk->orphan_pid,
		      (unsigned long long)rk->orphan_handle);
	return rk->oom ? -1 : 0;
}
