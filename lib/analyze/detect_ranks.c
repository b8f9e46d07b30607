// SPDX-License-Identifier: MIT
/*
 * Detector: the ranks of a multi-rank job, across processes and nodes
 * (the collectives matched by communicator: ranks.c).  Runs once per
 * analysis, after every node's detectors.
 *
 *   - desync: two ranks called different collectives (op, count or data
 *     type) as the same collective of a communicator: NCCL's contract is
 *     broken, the job hangs or computes garbage.  HIGH.
 *   - collective-hang: a collective some ranks entered and never finished
 *     before the log ended, while the others never entered it; the ranks
 *     in it were in a call for longer than max(1 s, 10x the slowest
 *     finished collective of that communicator), written as in flight
 *     (inflight records, or NO_RETURN at stop).  HIGH.  Names the ranks
 *     that never entered, each with its last CUDA call and what its threads
 *     did since.
 *   - straggler: the rank that arrives last at a communicator's
 *     collectives significantly more often than 1 in nranks (Chernoff,
 *     p < 0.01 / nranks) and costs the job time: the chain's lost time is
 *     what every other rank waited for it beyond the last but one
 *     (last - second-last arrival, summed), graded like every chain.  Its
 *     cause is looked for on its own node in the gaps before its late
 *     arrivals: off-CPU time (preemption, run-queue waits: the interval
 *     detectors' accounting) or I/O waits of it and its children.  The
 *     other ranks' synchronizes and collectives in that interval waited
 *     for it: their chains (GPU slower, host trouble) are dropped.
 */
#include <stdlib.h>
#include "causal_int.h"
#include "ranks_int.h"

/* NCCL data types, as SPEC §5.4 numbers them */
static const char *dtype_name(uint32_t t)
{
	static const char *n[] = { "int8", "uint8", "int32", "uint32", "int64", "uint64",
				   "float16", "float32", "float64", "bfloat16" };
	return t < sizeof(n) / sizeof(n[0]) ? n[t] : "type?";
}

static void set_node(struct ctx *x, uint32_t node)
{
	x->nd = ilog_stats_node(x->st, node);
	x->T = x->nd && x->nd->nticks ? x->nd->nticks : 1;
}

/* A common-timeline time back on a node's monotonic clock. */
static uint64_t to_mono(struct ctx *x, const struct ranks *rk, uint32_t node, uint64_t t)
{
	(void)rk;
	if (t == UINT64_MAX)
		return t;
	const struct snode *nd = ilog_stats_node(x->st, node);
	if (!nd || !nd->anchor_real)
		return t;
	return (uint64_t)((int64_t)t - (int64_t)nd->anchor_real + (int64_t)nd->anchor_mono);
}

static const struct rk_member *member_of(const struct ranks *rk, const struct rk_comm *c,
					 uint32_t rank)
{
	return rank < rk_comm_size(c) && c->members[rank] != UINT32_MAX
		       ? &rk->mem[c->members[rank]]
		       : NULL;
}

static void desync(struct ctx *x, const struct ranks *rk, const struct rk_comm *c)
{
	if (!c->nds)
		return;
	const struct rk_desync *d = &c->ds[0];
	const struct rk_member *a = member_of(rk, c, d->rank_a);
	set_node(x, d->node_b);
	struct sproc *p = ilog_stats_proc(x->st, d->node_b, d->pid_b);
	struct cand *k = causal_cand_new(x, p, ILOG_PAT_COLLECTIVE_DESYNC, d->op_b, d->ts_mono,
					 d->ts_mono + 1, 0);
	if (!k)
		return;
	k->forced = ILOG_SEV_HIGH;
	k->fatal = 1;
	snprintf(k->title, sizeof(k->title),
		 "Ranks disagree on collective #%llu of communicator %016llx: %s vs %s",
		 (unsigned long long)d->seq, (unsigned long long)c->id, opn(d->op_a), opn(d->op_b));
	snprintf(k->root, sizeof(k->root),
		 "Rank %u (PID %u) called %s (count %llu %s) as collective #%llu of communicator "
		 "%016llx (%u ranks), where rank %u (PID %u) called %s (count %llu %s): every rank "
		 "must issue the same collectives in the same order; %llu such mismatches in all",
		 d->rank_b, d->pid_b, opn(d->op_b), (unsigned long long)d->count_b,
		 dtype_name(d->dtype_b), (unsigned long long)d->seq, (unsigned long long)c->id,
		 rk_comm_size(c), d->rank_a, a ? a->pid : 0, opn(d->op_a), (unsigned long long)d->count_a,
		 dtype_name(d->dtype_a), (unsigned long long)c->ndesync);
	snprintf(k->fix, sizeof(k->fix),
		 "Make every rank take the same code path to its collectives: a collective under a "
		 "rank-dependent condition, an uneven number of batches per rank, or a different "
		 "model or bucket layout on one rank; run once with NCCL_DEBUG=INFO and "
		 "TORCH_DISTRIBUTED_DEBUG=DETAIL to see the mismatch.");
	causal_met_s(k, "comm", causal_fmt(x, "%016llx", (unsigned long long)c->id));
	causal_met_u(k, "seq", d->seq);
	causal_met_u(k, "rank", d->rank_b);
	causal_met_u(k, "other_rank", d->rank_a);
	causal_met_u(k, "mismatches", c->ndesync);
	causal_ev_add(x, k, d->ts_mono, "rank %u enters %s as collective #%llu", d->rank_b,
		      opn(d->op_b), (unsigned long long)d->seq);
}

/* What a rank that never entered the collective did: into b. */
static void missing_rank(struct ctx *x, const struct ranks *rk, const struct rk_member *m,
			 struct ilog_buf *b)
{
	const struct rk_proc *p = ilog_ranks_proc(rk, m->node, m->pid);
	set_node(x, m->node);
	ilog_buf_printf(b, "rank %u (PID %u, %s", m->rank, m->pid,
			ilog_stats_comm(x->st, m->node, m->pid));
	if (rk->multi)
		ilog_buf_printf(b, ", node %s", x->nd->name);
	ilog_buf_printf(b, ")");
	if (!p)
		return;
	if (p->in_op)
		ilog_buf_printf(b, " was inside %s since %s (%s when last written)", opn(p->in_op),
				R(x, p->in_ts), D(x, (double)p->in_dur));
	else if (p->op)
		ilog_buf_printf(b, " made its last CUDA call, %s, at %s (it returned at %s)",
				opn(p->op), R(x, p->ts), R(x, p->end));
	if (p->sw_n)
		ilog_buf_printf(b, "; since then its threads were off-CPU %s in %llu switches "
				"(%llu blocked in a wait, the last at %s)",
				D(x, (double)p->sw_ns), (unsigned long long)p->sw_n,
				(unsigned long long)p->sw_blocked, R(x, p->sw_last_ts));
	if (p->dead)
		ilog_buf_printf(b, "; the process exited at %s", R(x, p->exit_ts));
}

/*
 * Drop the chains of the ranks that waited for rank `late` in [a, b)
 * (common time): their synchronizes and collectives there are its cost,
 * and any other loss of theirs no longer than `waited` (what each of them
 * waited for it at least) cost the job nothing: they would have waited
 * anyway.  A failure or a kill is never dropped.
 */
static void drop_waiters(struct ctx *x, const struct ranks *rk, const struct rk_comm *c,
			 uint32_t late, uint64_t a, uint64_t b, uint64_t waited, uint32_t *dropped)
{
	for (uint32_t r = 0; r < rk_comm_size(c); r++) {
		const struct rk_member *m = member_of(rk, c, r);
		if (!m || r == late)
			continue;
		uint64_t ma = to_mono(x, rk, m->node, a), mb = to_mono(x, rk, m->node, b);
		for (uint32_t i = 0; i < x->n; i++) {
			struct cand *k = &x->c[i];
			if (k->dead || k->fatal || k->node != m->node || k->pid != m->pid ||
			    k->ts_end <= ma || k->ts_start >= mb)
				continue;
			if (is_sync(k->op) || ilog_ranks_is_collective(k->op) ||
			    k->pattern == ILOG_PAT_GPU_BOUND || k->lost <= waited) {
				k->dead = 1;
				(*dropped)++;
			}
		}
	}
}

static void hang(struct ctx *x, const struct ranks *rk, const struct rk_comm *c)
{
	uint32_t n = rk_comm_size(c);
	const struct rk_open *o = NULL;
	for (uint32_t i = 0; i < c->nopen && !o; i++)
		if (c->open[i].narr && c->open[i].narr < n)
			o = &c->open[i];
	if (!o)
		return;
	/* how long finished collectives took: a slow job is not a hung one */
	uint64_t slowest = 0;
	for (uint32_t i = 0; i < c->ndone; i++)
		if (c->done[i].done_t > c->done[i].first_t &&
		    c->done[i].done_t - c->done[i].first_t > slowest)
			slowest = c->done[i].done_t - c->done[i].first_t;
	uint64_t thr = 10 * slowest > 1000000000ull ? 10 * slowest : 1000000000ull;
	uint64_t waited = 0, since = UINT64_MAX, lost = 0;
	const struct rk_member *first = NULL;
	int evidence = 0;
	for (uint32_t r = 0; r < n; r++) {
		const struct rk_member *m = member_of(rk, c, r);
		if (!m || !o->arr[r])
			continue;
		/* until the log's end: its last record, or the end of the call it
		 * waits in (an in-flight call is timed up to when it was written) */
		const struct snode *nd = ilog_stats_node(x->st, m->node);
		uint64_t end = nd ? nd->last_ts : 0;
		if (m->waiting && m->wait_ts + m->wait_ns > end)
			end = m->wait_ts + m->wait_ns;
		if (m->in_coll && o->mono[r] + m->stuck_ns > end)
			end = o->mono[r] + m->stuck_ns;
		uint64_t w = end > o->mono[r] ? end - o->mono[r] : 0;
		evidence |= (m->in_coll && m->nseq == o->seq + 1) || m->waiting;
		if (w > waited)
			waited = w;
		lost += w;
		if (o->mono[r] < since || !first) {
			since = o->mono[r];
			first = m;
		}
	}
	if (!evidence || waited < thr || !first)
		return;
	/* the subject: the first rank that never entered it, else the first that did */
	const struct rk_member *subj = first;
	for (uint32_t r = 0; r < n; r++)
		if (!o->arr[r] && member_of(rk, c, r)) {
			subj = member_of(rk, c, r);
			break;
		}
	struct ilog_buf in = { 0 }, out = { 0 };
	uint32_t nin = 0, nout = 0;
	for (uint32_t r = 0; r < n; r++) {
		const struct rk_member *m = member_of(rk, c, r);
		if (o->arr[r]) {
			ilog_buf_printf(&in, "%s%u", nin++ ? ", " : "", r);
			continue;
		}
		if (nout++)
			ilog_buf_printf(&out, "; ");
		if (m)
			missing_rank(x, rk, m, &out);
		else
			ilog_buf_printf(&out, "rank %u has no record in the log (its process or "
					"node was not recorded, or it never initialized the "
					"communicator)", r);
	}
	set_node(x, subj->node);
	struct sproc *p = ilog_stats_proc(x->st, subj->node, subj->pid);
	uint64_t a = to_mono(x, rk, subj->node, o->arr[first->rank]);
	struct cand *k = causal_cand_new(x, p, ILOG_PAT_COLLECTIVE_HANG, o->op, a, x->nd->last_ts, lost);
	if (k) {
		k->forced = ILOG_SEV_HIGH;
		k->fatal = 1;
		snprintf(k->title, sizeof(k->title),
			 "Job stuck in %s #%llu of communicator %016llx: %u of %u ranks never entered it",
			 opn(o->op), (unsigned long long)o->seq, (unsigned long long)c->id, nout, n);
		snprintf(k->root, sizeof(k->root),
			 "Ranks %.*s entered %s #%llu (count %llu %s) of communicator %016llx (%u ranks) "
			 "from %s and were still waiting in it %s later when the log ended; %.*s",
			 (int)in.len, in.p ? in.p : "", opn(o->op), (unsigned long long)o->seq,
			 (unsigned long long)o->count, dtype_name(o->dtype), (unsigned long long)c->id,
			 n, R(x, a), D(x, (double)waited), (int)out.len, out.p ? out.p : "");
		snprintf(k->fix, sizeof(k->fix),
			 "Find what the missing rank is doing: dump its stacks (py-spy dump --pid %u, "
			 "or gdb -p %u, thread apply all bt); a rank that skipped the collective (an "
			 "exception, an uneven last batch, a rank-dependent branch) or blocks on I/O or "
			 "a lock before it stalls every rank; set NCCL's and the framework's timeouts "
			 "(TORCH_NCCL_ASYNC_ERROR_HANDLING, timeout=) so a hang fails fast.",
			 subj->pid, subj->pid);
		causal_met_s(k, "comm", causal_fmt(x, "%016llx", (unsigned long long)c->id));
		causal_met_u(k, "seq", o->seq);
		causal_met_u(k, "nranks", n);
		causal_met_u(k, "ranks_in", nin);
		causal_met_u(k, "ranks_missing", nout);
		causal_met_u(k, "waited_ns", waited);
		causal_met_u(k, "count", o->count);
		causal_ev_add(x, k, a, "rank %u enters %s #%llu first", first->rank, opn(o->op),
			      (unsigned long long)o->seq);
		uint32_t dropped = 0;
		drop_waiters(x, rk, c, subj->rank, o->arr[first->rank], UINT64_MAX, waited, &dropped);
		causal_met_u(k, "waiting_chains_dropped", dropped);
		const struct rk_proc *sp = ilog_ranks_proc(rk, subj->node, subj->pid);
		if (sp && !o->arr[subj->rank] && sp->op)
			causal_ev_add(x, k, sp->ts, "rank %u's last CUDA call: %s", subj->rank,
				      opn(sp->op));
		if (sp && sp->in_op)
			causal_ev_add(x, k, sp->in_ts, "rank %u enters %s and stays", subj->rank,
				      opn(sp->in_op));
	}
	ilog_buf_free(&in);
	ilog_buf_free(&out);
}

/* The straggler's own cause in the gaps before its late arrivals. */
static void straggler_cause(struct ctx *x, struct cand *k, const struct sproc *p,
			    const uint8_t *in, uint64_t lost)
{
	uint32_t lo = tick_at(x, p->first_ts), hi = tick_at(x, p->last_end) + 1;
	struct offcpu oc = { 0 };
	if (causal_offcpu(x, p, in, lo, hi, lost, &oc)) {
		x->oom = 1;
		return;
	}
	/* I/O waits of the rank and of its children (data loaders) in those windows */
	uint64_t iow = 0;
	uint32_t iow_pid = 0;
	for (uint32_t i = 0; i < x->st->niow; i++) {
		const struct siow *w = &x->st->iow[i];
		if (w->node != x->nd->idx || w->cls >= 0 || !in[tick_at(x, w->ts)])
			continue;
		const struct sproc *q = ilog_stats_proc(x->st, w->node, w->pid);
		if (w->pid != p->pid && (!q || q->ppid != p->pid))
			continue;
		iow += w->ns;
		if (!iow_pid || w->pid != p->pid)
			iow_pid = w->pid;
	}
	size_t l = strlen(k->root);
	if (oc.host && oc.npr && oc.named) {
		const struct preempt *t = &oc.pr[0];
		char took[160];
		k->culprit = t->pid;
		cpy(k->ccomm, sizeof(k->ccomm), ilog_stats_comm(x->st, x->nd->idx, t->pid));
		snprintf(k->root + l, sizeof(k->root) - l,
			 ". On its own node it was off the CPU: PID %u (%s) %s in those gaps (%s)",
			 t->pid, k->ccomm, causal_took(x, took, sizeof(took), t, "it", "it"),
			 oc.share >= 1 ? "as long as all of its lateness"
				       : causal_fmt(x, "%s of its lateness", P(x, oc.share)));
		snprintf(k->fix, sizeof(k->fix), FIX_CPU, causal_fmt(x, "%s (PID %u)", k->ccomm, t->pid),
			 k->ccomm);
		causal_met_u(k, "culprit_offcpu_ns", t->dur);
		causal_met_u(k, "culprit_preemptions", t->n);
		if (t->wn)
			causal_met_u(k, "culprit_runq_waits", t->wn);
	} else if (oc.host) {
		snprintf(k->root + l, sizeof(k->root) - l,
			 ". On its own node it waited for a CPU: %s off-CPU above its usual rate in "
			 "those gaps (%s), the host's CPUs busy with many processes",
			 D(x, oc.off_in - oc.rate_out * oc.len),
			 oc.share >= 1 ? "as long as all of its lateness"
				       : causal_fmt(x, "%s of its lateness", P(x, oc.share)));
		snprintf(k->fix, sizeof(k->fix), FIX_CPU, "the other work", "that work");
	} else if (iow * 2 >= lost) {
		snprintf(k->root + l, sizeof(k->root) - l,
			 ". On its own node it waited on I/O: %s of I/O wait by %s PID %u (%s) in "
			 "those gaps",
			 D(x, (double)iow), iow_pid == p->pid ? "the rank," : "its child",
			 iow_pid, ilog_stats_comm(x->st, x->nd->idx, iow_pid));
		snprintf(k->fix, sizeof(k->fix),
			 "Feed the late rank faster: more DataLoader workers with prefetch, the "
			 "dataset on local or faster storage, or its shards balanced across ranks.");
		if (iow_pid != p->pid) {
			k->culprit = iow_pid;
			cpy(k->ccomm, sizeof(k->ccomm), ilog_stats_comm(x->st, x->nd->idx, iow_pid));
		}
	} else {
		snprintf(k->root + l, sizeof(k->root) - l,
			 ". No host cause on its node: it was on the CPU, so its own work between "
			 "collectives (host compute, Python, a larger share of the data) took longer");
		snprintf(k->fix, sizeof(k->fix),
			 "Balance the work across ranks (uneven batches or sequence lengths, a rank "
			 "doing extra logging, checkpointing or evaluation) and profile the late rank's "
			 "step between collectives (its call site is below).");
	}
	causal_met_f(k, "offcpu_share_of_lateness", oc.share);
	causal_met_u(k, "iowait_ns", iow);
	causal_offcpu_free(&oc);
}

/*
 * Whether rank s, when last, is late beyond the job's own arrival jitter:
 * the median of its leads over the last but one rank must be at least
 * twice the typical lead of whoever else arrived last (with i.i.d.
 * arrivals every rank's lead has the same distribution, so the ratio is
 * about 1); when others were last fewer than 5 times, twice the mean
 * spacing of the other ranks' arrivals ((last but one - first) / (n - 2)).
 * A rank last a little more often than chance on a busy host, by no more
 * than anyone's jitter, is not a straggler.
 */
static int late_beyond_jitter(const struct rk_comm *c, uint32_t s, uint32_t n)
{
	uint64_t *mine = malloc(c->ndone * sizeof(*mine)), *other = malloc(c->ndone * sizeof(*other));
	uint64_t *sp = malloc(c->ndone * sizeof(*sp));
	if (!mine || !other || !sp) {
		free(mine);
		free(other);
		free(sp);
		return 1; /* out of memory: the other rules stand */
	}
	uint32_t nm = 0, no = 0, ns = 0;
	for (uint32_t i = 0; i < c->ndone; i++) {
		const struct rk_coll *d = &c->done[i];
		uint64_t g = d->last_t - d->second_t;
		if (d->last == s)
			mine[nm++] = g;
		else
			other[no++] = g;
		if (n >= 3)
			sp[ns++] = (d->second_t - d->first_t) / (n - 2);
	}
	qsort(mine, nm, sizeof(*mine), cmp_u64);
	qsort(other, no, sizeof(*other), cmp_u64);
	qsort(sp, ns, sizeof(*sp), cmp_u64);
	uint64_t base = no >= 5 ? other[(no - 1) / 2] : ns ? sp[(ns - 1) / 2] : 0;
	int ok = nm && mine[(nm - 1) / 2] >= 2 * base;
	free(mine);
	free(other);
	free(sp);
	return ok;
}

static void straggler(struct ctx *x, const struct ranks *rk, const struct rk_comm *c)
{
	uint32_t n = rk_comm_size(c), nd = c->ndone;
	if (n < 2 || nd < ILOG_MIN_SERIES)
		return;
	uint64_t *cnt = calloc(n, sizeof(*cnt)), *gap = calloc(n, sizeof(*gap));
	if (!cnt || !gap) {
		free(cnt);
		free(gap);
		x->oom = 1;
		return;
	}
	for (uint32_t i = 0; i < nd; i++) {
		cnt[c->done[i].last]++;
		gap[c->done[i].last] += c->done[i].last_t - c->done[i].second_t;
	}
	uint32_t s = 0;
	for (uint32_t r = 1; r < n; r++)
		if (gap[r] > gap[s])
			s = r;
	uint64_t k_last = cnt[s], lost = gap[s];
	free(cnt);
	free(gap);
	const struct rk_member *m = member_of(rk, c, s);
	if (!m || (double)k_last * n <= nd ||
	    ilog_chernoff(nd, k_last, 1.0 / n) >= ILOG_FAMILY_ALPHA / n)
		return; /* last no more often than chance */
	if (!late_beyond_jitter(c, s, n))
		return;
	set_node(x, m->node);
	struct sproc *p = ilog_stats_proc(x->st, m->node, m->pid);
	if (!p)
		return;
	uint64_t *lat = malloc(k_last * sizeof(*lat));
	uint8_t *in = calloc(x->T, 1);
	if (!lat || !in) {
		free(lat);
		free(in);
		x->oom = 1;
		return;
	}
	uint64_t a = UINT64_MAX, b = 0, ca = UINT64_MAX, cb = 0, worst = 0, worst_ts = 0, wait = 0;
	uint32_t nl = 0;
	for (uint32_t i = 0; i < nd; i++) {
		const struct rk_coll *d = &c->done[i];
		if (d->last != s)
			continue;
		uint64_t g = d->last_t - d->second_t;
		lat[nl++] = g;
		wait += d->wait;
		if (d->last_mono < a)
			a = d->last_mono;
		if (d->last_mono > b)
			b = d->last_mono;
		if (d->first_t < ca)
			ca = d->first_t;
		if (d->last_t > cb)
			cb = d->last_t;
		if (g > worst) {
			worst = g;
			worst_ts = d->last_mono;
		}
		uint32_t k0 = tick_at(x, d->gap_mono ? d->gap_mono : d->last_mono),
			 k1 = tick_at(x, d->last_mono);
		for (uint32_t k = k0; k <= k1; k++)
			in[k] = 1;
	}
	qsort(lat, nl, sizeof(*lat), cmp_u64);
	uint64_t p50 = lat[(nl - 1) / 2], p99 = lat[(uint64_t)(nl - 1) * 99 / 100];
	free(lat);
	struct cand *k = causal_cand_new(x, p, ILOG_PAT_STRAGGLER, ILOG_OP_UNKNOWN, a, b + 1, lost);
	if (!k) {
		free(in);
		return;
	}
	snprintf(k->title, sizeof(k->title), "Rank %u (PID %u, %s) is the straggler of communicator "
		 "%016llx: last at %llu of %u collectives", s, m->pid, k->comm,
		 (unsigned long long)c->id, (unsigned long long)k_last, nd);
	snprintf(k->root, sizeof(k->root),
		 "Rank %u (PID %u) arrived last at %llu of %u collectives of communicator %016llx "
		 "(%u ranks; by chance 1 in %u) between %s and %s, late by %s at the median and %s "
		 "at p99 after the last but one rank; the other %u ranks waited %s for it in all "
		 "(%s each), so their synchronizes there are its cost, not slowness of their own",
		 s, m->pid, (unsigned long long)k_last, nd, (unsigned long long)c->id, n, n,
		 R(x, a), R(x, b), D(x, (double)p50), D(x, (double)p99), n - 1,
		 D(x, (double)lost * (n - 1)), D(x, (double)lost));
	straggler_cause(x, k, p, in, lost);
	free(in);
	causal_met_s(k, "comm", causal_fmt(x, "%016llx", (unsigned long long)c->id));
	causal_met_u(k, "rank", s);
	causal_met_u(k, "nranks", n);
	causal_met_u(k, "collectives", nd);
	causal_met_u(k, "last_count", k_last);
	causal_met_u(k, "lateness_p50_ns", p50);
	causal_met_u(k, "lateness_p99_ns", p99);
	causal_met_u(k, "job_wait_ns", lost * (n - 1));
	causal_met_u(k, "arrival_skew_wait_ns", wait);
	causal_ev_add(x, k, a, "rank %u arrives last at a collective, the first of %llu times", s,
		      (unsigned long long)k_last);
	if (worst_ts)
		causal_ev_add(x, k, worst_ts, "rank %u arrives %s after the last but one rank", s,
			      D(x, (double)worst));
	uint32_t dropped = 0;
	drop_waiters(x, rk, c, s, ca, cb + 1, lost, &dropped);
	/* the straggler's own chain of the same culprit says it again, with less */
	for (uint32_t i = 0; k->culprit && i + 1 < x->n; i++) {
		struct cand *o = &x->c[i];
		if (!o->dead && !o->fatal && o->node == k->node && o->pid == k->pid &&
		    o->culprit == k->culprit && o->ts_end > a && o->ts_start <= b) {
			o->dead = 1;
			dropped++;
		}
	}
	causal_met_u(k, "waiting_chains_dropped", dropped);
}

/* Whether pid of node is a rank of communicator c. */
static int is_rank(const struct ranks *rk, const struct rk_comm *c, uint32_t node, uint32_t pid)
{
	for (uint32_t r = 0; r < rk_comm_size(c); r++) {
		const struct rk_member *m = member_of(rk, c, r);
		if (m && m->node == node && m->pid == pid)
			return 1;
	}
	return 0;
}

/*
 * What a rank's own chains cannot tell: ranks of one job that preempt each
 * other share the job's CPUs -- the job's own load (too many ranks for the
 * cores), not another process's interference -- so a rank's chain naming a
 * fellow rank as the culprit goes; and a rank's synchronizes wait for the
 * other ranks as much as for its GPU, so "GPU-bound" (a note) is not
 * drawn for it: the RANKS section accounts for that wait.  A failure or a
 * kill always stays.
 */
static void drop_rank_notes(struct ctx *x, const struct ranks *rk, const struct rk_comm *c)
{
	for (uint32_t i = 0; i < x->n; i++) {
		struct cand *k = &x->c[i];
		if (k->dead || k->fatal || !is_rank(rk, c, k->node, k->pid))
			continue;
		if ((k->culprit && is_rank(rk, c, k->node, k->culprit)) ||
		    k->pattern == ILOG_PAT_GPU_BOUND)
			k->dead = 1;
	}
}

static void ranks_job(struct ctx *x, struct causal_proc *pc, const struct causal_series *sc)
{
	(void)pc;
	(void)sc;
	const struct ranks *rk = x->st->rk;
	if (!rk)
		return;
	for (uint32_t i = 0; i < rk->ncomms && !x->oom; i++) {
		const struct rk_comm *c = &rk->comms[i];
		if (c->bad || rk_comm_size(c) < 2)
			continue;
		drop_rank_notes(x, rk, c);
		desync(x, rk, c);
		hang(x, rk, c);
		straggler(x, rk, c);
	}
}

const struct causal_detector causal_detector_ranks = {
	"ranks", CAUSAL_JOB, ranks_job,
};
