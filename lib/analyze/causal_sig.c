// SPDX-License-Identifier: MIT
/*
 * The host signals the causal detectors join with a process's CUDA calls
 * (causal_int.h): preemptions of its threads, page allocations and the
 * system snapshots over a range of windows, and the per-window signals
 * with their outlier flags that an anomaly is compared against.
 */
#include <math.h>
#include <stdlib.h>
#include "causal_int.h"

/*
 * The host series are read through the lists of their process and of their
 * type (stats_int.h), in the order of st->hs as a scan of all of them would
 * meet them: a node of a thousand ranks has thousands of host series, and
 * each process needs its own few.
 */
static const struct hseries *hs_pid_first(struct ctx *x, const struct sproc *p)
{
	uint32_t i = ilog_stats_hs_pid(x->st, x->nd->idx, p->pid);
	return i ? x->st->hs[i - 1] : NULL;
}

static const struct hseries *hs_pid_next(struct ctx *x, const struct hseries *h)
{
	return h->next_pid ? x->st->hs[h->next_pid - 1] : NULL;
}

/* The node's host series of two types (or one: b = 0), merged in the
 * order of st->hs. */
struct hs2 { uint32_t a, b; };

static struct hs2 hs2_of(struct ctx *x, uint16_t ta, uint16_t tb)
{
	return (struct hs2){ ilog_stats_hs_type(x->st, x->nd->idx, ta),
			     ilog_stats_hs_type(x->st, x->nd->idx, tb) };
}

static const struct hseries *hs2_next(struct ctx *x, struct hs2 *it)
{
	uint32_t *w = it->a && (!it->b || it->a < it->b) ? &it->a : it->b ? &it->b : NULL;
	if (!w)
		return NULL;
	const struct hseries *h = x->st->hs[*w - 1];
	*w = h->next_type;
	return h;
}

/* ---- over a range of windows ---- */
/*
 * Preemptions of p's CUDA threads in the windows k of [a, b) with
 * (!in || !!in[k] == want), summed by preempter into out[0..return); their
 * number and off-CPU time, by anyone, into *n_all and *dur_all.  With
 * wq_all, also the threads' waits for a CPU after a wakeup, summed by the
 * process that held the CPU until the thread ran (the wakeup's occupant,
 * format 1.7) into the same entries (wn, and dur), and the time of the
 * waits with a known occupant into *wq_all.
 */
static uint32_t preempt_sum(struct ctx *x, const struct sproc *p, uint32_t a, uint32_t b,
			    const uint8_t *in, int want, struct preempt *out, uint32_t max,
			    uint64_t *n_all, uint64_t *dur_all, uint64_t *wq_all)
{
	uint32_t m = 0;
	*n_all = *dur_all = 0;
	if (wq_all)
		*wq_all = 0;
	for (const struct hseries *h = hs_pid_first(x, p); h; h = hs_pid_next(x, h)) {
		int wake = h->type == ILOG_HOST_WAKEUP;
		if ((h->type != ILOG_HOST_SWITCH && (!wake || !wq_all)) || !has_tid(p, h->tid))
			continue;
		uint64_t n = 0, d = 0;
		for (uint32_t k = a; k < b && k < h->nt; k++)
			if (!in || !!in[k] == want)
				n += h->t[k].n, d += h->t[k].dur;
		if (!n)
			continue;
		/* a preemption's switch to the idle task: a CPU quota throttled
		 * the thread (or the CPU went offline) - off-CPU time, but the
		 * idle task took nothing and is never a preempter; a wait with
		 * no occupant: the CPU was idle, or the log does not say */
		if (!wake) {
			*n_all += n;
			*dur_all += d;
		} else if (h->opid) {
			*wq_all += d;
		}
		if (!h->opid)
			continue;
		uint32_t j;
		for (j = 0; j < m && out[j].pid != h->opid; j++)
			;
		if (j == m) {
			if (m == max)
				continue;
			out[m++] = (struct preempt){ .pid = h->opid };
		}
		*(wake ? &out[j].wn : &out[j].n) += n;
		out[j].dur += d;
	}
	return m;
}

uint32_t causal_preempters(struct ctx *x, const struct sproc *p, uint32_t a, uint32_t b,
			    struct preempt *out, uint32_t max, uint64_t *n_all, uint64_t *dur_all)
{
	uint32_t m = preempt_sum(x, p, a, b, NULL, 1, out, max, n_all, dur_all, NULL);
	/* largest off-CPU time first */
	for (uint32_t i = 1; i < m; i++)
		for (uint32_t j = i; j > 0 && out[j].dur > out[j - 1].dur; j--) {
			struct preempt t = out[j];
			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return m;
}

/* Time p's CUDA threads waited for a CPU after a wakeup, in the windows as
 * preempt_sum selects them; the number of waits in *n (NULL: not wanted). */
static uint64_t runq_sum(struct ctx *x, const struct sproc *p, uint32_t a, uint32_t b,
			 const uint8_t *in, int want, uint64_t *n)
{
	uint64_t d = 0, k_n = 0;
	for (const struct hseries *h = hs_pid_first(x, p); h; h = hs_pid_next(x, h)) {
		if (h->type != ILOG_HOST_WAKEUP || !has_tid(p, h->tid))
			continue;
		for (uint32_t k = a; k < b && k < h->nt; k++)
			if (!in || !!in[k] == want)
				d += h->t[k].dur, k_n += h->t[k].n;
	}
	if (n)
		*n = k_n;
	return d;
}

uint64_t causal_runq_wait(struct ctx *x, const struct sproc *p, uint32_t a, uint32_t b,
			  uint64_t *n)
{
	return runq_sum(x, p, a, b, NULL, 1, n);
}

int causal_offcpu_explains(struct ctx *x, const struct sproc *p, const uint8_t *mark,
			   uint32_t lo, uint32_t hi, uint64_t lost, double *excess, double *in_all)
{
	double in = 0, out = 0;
	uint32_t nin = 0, nout = 0;
	for (uint32_t k = lo; k < hi; k++)
		nin += !!mark[k], nout += !mark[k];
	for (const struct hseries *h = hs_pid_first(x, p); h; h = hs_pid_next(x, h)) {
		if (!has_tid(p, h->tid) || (h->type != ILOG_HOST_SWITCH && h->type != ILOG_HOST_WAKEUP))
			continue;
		for (uint32_t k = lo; k < hi && k < h->nt; k++)
			*(mark[k] ? &in : &out) += (double)h->t[k].dur;
	}
	/* too few other windows for a rate: all of it counts */
	double rate = nout >= 3 ? out / nout : 0;
	*excess = in - rate * nin;
	if (in_all)
		*in_all = in;
	return *excess >= 0.5 * (double)lost;
}

void causal_own_preempt(struct ctx *x, const struct sproc *p, uint32_t a, uint32_t b,
			struct preempt *own, struct preempt *rec, uint64_t *n_all, uint64_t *dur_all)
{
	*own = *rec = (struct preempt){ 0 };
	*n_all = *dur_all = 0;
	struct preempt *pr = calloc(MAXPRE, sizeof(*pr));
	if (!pr) {
		x->oom = 1;
		return;
	}
	uint32_t m = preempt_sum(x, p, a, b, NULL, 0, pr, MAXPRE, n_all, dur_all, NULL);
	causal_drop_own(x, p, pr, m, own, rec);
	free(pr);
}

uint32_t causal_drop_own(struct ctx *x, const struct sproc *p, struct preempt *pr, uint32_t m,
			 struct preempt *own, struct preempt *rec)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < m; i++) {
		struct preempt *to = pr[i].pid == p->pid ? own
				     : causal_is_recorder(x, pr[i].pid) ? rec : NULL;
		if (pr[i].pid != p->pid && !causal_is_recorder(x, pr[i].pid)) {
			pr[k++] = pr[i];
			continue;
		}
		if (to) {
			to->pid = pr[i].pid;
			to->n += pr[i].n;
			to->wn += pr[i].wn;
			to->dur += pr[i].dur;
		}
	}
	return k;
}

int causal_offcpu(struct ctx *x, const struct sproc *p, const uint8_t *in, uint32_t lo,
		  uint32_t hi, uint64_t lost, struct offcpu *o)
{
	memset(o, 0, sizeof(*o));
	struct preempt *out = calloc(MAXPRE, sizeof(*out));
	o->pr = calloc(MAXPRE, sizeof(*o->pr));
	if (!out || !o->pr) {
		free(out);
		causal_offcpu_free(o);
		return -1;
	}
	/* wk_in: the windows' waits with an occupant (anyone's, own too) */
	uint64_t pn_out, pd_out, wk_in, wk_out;
	o->npr = preempt_sum(x, p, 0, x->T, in, 1, o->pr, MAXPRE, &o->pn, &o->pd, &wk_in);
	uint32_t nout = preempt_sum(x, p, lo, hi, in, 0, out, MAXPRE, &pn_out, &pd_out, &wk_out);
	/* the process's own threads and the recorder are no culprits, and the
	 * time they took is not contention by others */
	struct preempt own = { 0 }, own_out = { 0 };
	o->npr = causal_drop_own(x, p, o->pr, o->npr, &own, &own);
	nout = causal_drop_own(x, p, out, nout, &own_out, &own_out);
	o->wq = runq_sum(x, p, 0, x->T, in, 1, NULL);
	uint64_t wq_out = runq_sum(x, p, lo, hi, in, 0, NULL);
	double len_out = 0;
	for (uint32_t k = 0; k < x->T; k++) {
		if (in[k])
			o->len += (double)x->nd->width;
		else if (k >= lo && k < hi)
			len_out += (double)x->nd->width;
	}
	o->off_in = (double)(o->pd - own.dur + o->wq);
	o->self = own.dur;
	o->rate_out = len_out > 0 ? (double)(pd_out - own_out.dur + wq_out) / len_out : 0;
	double excess = o->off_in - o->rate_out * o->len;
	o->share = lost ? excess / (double)lost : 0;
	/* the culprit: the preempter whose off-CPU time rose most over its own
	 * rate in the other windows */
	for (uint32_t i = 0; i < o->npr; i++) {
		double d_out = 0;
		for (uint32_t j = 0; j < nout; j++)
			if (out[j].pid == o->pr[i].pid)
				d_out = (double)out[j].dur;
		o->pr[i].excess = (double)o->pr[i].dur - (len_out > 0 ? d_out / len_out : 0) * o->len;
	}
	for (uint32_t i = 1; i < o->npr; i++)
		for (uint32_t j = i; j > 0 && o->pr[j].excess > o->pr[j - 1].excess; j--) {
			struct preempt t = o->pr[j];
			o->pr[j] = o->pr[j - 1];
			o->pr[j - 1] = t;
		}
	/*
	 * A culprit when one preempter's time rose there and it took at least
	 * half of the time others' preemptions cost the threads in the windows;
	 * else the threads were preempted by many, or waited in the run queue,
	 * of a saturated host, and no one process is to blame (a kernel thread
	 * that preempted them a few times more, while others took most of the
	 * CPU, is not the cause).  A wait after a wakeup counts for whoever
	 * held the CPU until the thread ran (format 1.7; the waits with an
	 * idle CPU, or of an older log, for no one).
	 */
	(void)wk_out;
	double by_others = (double)o->pd + (double)wk_in - (double)own.dur;
	/* and its own rise is a quarter of the threads' off-CPU excess at
	 * least: 7 ms of preemptions are not who took a second of run-queue
	 * waits on a saturated host.  With no excess at all (the threads were
	 * off-CPU no more in the windows than outside, a host busy all along)
	 * nothing rose for anyone to explain: 5 ms of a sibling's preemptions
	 * beside 103 ms of run-queue waits named it the culprit of a clean
	 * workload's stalls on a loaded host */
	o->named = o->npr && o->pr[0].excess > 0 && (double)o->pr[0].dur >= 0.5 * by_others &&
		   excess > 0 && o->pr[0].excess >= 0.25 * excess;
	o->host = o->share >= 0.5;
	free(out);
	return 0;
}

void causal_offcpu_free(struct offcpu *o)
{
	free(o->pr);
	o->pr = NULL;
	o->npr = 0;
}

uint64_t causal_throttled(struct ctx *x, uint32_t pid, uint64_t a, uint64_t b, uint64_t *nthr,
			  uint64_t *nper, uint64_t *quota, uint64_t *period)
{
	double thr = 0, nt = 0, np = 0;
	uint64_t q = 0, qp = 0;
	for (uint32_t i = 0; i < x->st->nev; i++) {
		const struct sevent *e = &x->st->ev[i];
		if (e->node != x->nd->idx || e->pid != pid)
			continue;
		if (e->type == ILOG_HOST_CPU_QUOTA && e->ts < b) {
			q = e->value;
			qp = e->dur;
		}
		uint64_t ea = e->ts, eb = e->ts + e->dur;
		if (e->type != ILOG_HOST_CPU_THROTTLE || !e->dur || eb <= a || ea >= b)
			continue;
		/* a window partly in [a, b) counts with the part that is */
		double f = (double)((eb < b ? eb : b) - (ea > a ? ea : a)) / (double)e->dur;
		thr += f * (double)e->value;
		nt += f * (double)e->opid;
		np += f * (double)e->otid;
	}
	if (nthr)
		*nthr = (uint64_t)(nt + 0.5);
	if (nper)
		*nper = (uint64_t)(np + 0.5);
	if (quota)
		*quota = q;
	if (period)
		*period = qp;
	return (uint64_t)thr;
}

int causal_quota_held(struct ctx *x, uint32_t pid, uint64_t a, uint64_t b, double lost)
{
	uint64_t thr = causal_throttled(x, pid, a, b, NULL, NULL, NULL, NULL);
	return thr && (double)thr >= lost / 2;
}

/* Pages allocated in the windows k of [a, b) with (!in || in[k]). */
static uint64_t pages_sum(struct ctx *x, uint32_t a, uint32_t b, const uint8_t *in,
			  uint32_t *top_pid, uint64_t *top_n)
{
	uint64_t all = 0;
	*top_pid = 0;
	*top_n = 0;
	struct hs2 it = hs2_of(x, ILOG_HOST_PAGE_ALLOC, ILOG_HOST_PAGE_ALLOC_REST);
	for (const struct hseries *h; (h = hs2_next(x, &it));) {
		uint64_t n = 0;
		for (uint32_t k = a; k < b && k < h->nt; k++)
			if (!in || in[k])
				n += h->t[k].value;
		all += n;
		if (h->pid && n > *top_n) {
			*top_n = n;
			*top_pid = h->pid;
		}
	}
	return all;
}

uint64_t causal_pages(struct ctx *x, uint32_t a, uint32_t b, uint32_t *top_pid, uint64_t *top_n)
{
	return pages_sum(x, a, b, NULL, top_pid, top_n);
}

uint64_t causal_pages_in(struct ctx *x, const uint8_t *in, uint32_t *top_pid, uint64_t *top_n)
{
	return pages_sum(x, 0, x->T, in, top_pid, top_n);
}

uint64_t causal_others_calls(struct ctx *x, const struct sproc *p, const uint8_t *in,
			     uint32_t *top_pid, uint64_t *top_n)
{
	uint64_t all = 0;
	*top_pid = 0;
	*top_n = 0;
	for (uint32_t i = 0; i < x->st->nprocs; i++) {
		const struct sproc *o = x->st->procs[i];
		if (o->node != x->nd->idx || o->pid == p->pid || !o->ncalls)
			continue;
		uint64_t n = 0;
		for (uint32_t j = o->ser; j; j = x->st->ser[j - 1]->next) {
			const struct sseries *s = x->st->ser[j - 1];
			for (uint32_t k = 0; k < x->T && k < s->nt; k++)
				if (in[k])
					n += causal_tick_calls(&s->t[k]);
		}
		all += n;
		if (n > *top_n) {
			*top_n = n;
			*top_pid = o->pid;
		}
	}
	return all;
}

int causal_page_storm(struct ctx *x, const struct sproc *p, uint32_t a, uint32_t b, uint32_t lo,
		      uint32_t hi, struct page_storm *out)
{
	memset(out, 0, sizeof(*out));
	uint64_t m_in = 0, m_out = 0;
	struct hs2 it = hs2_of(x, ILOG_HOST_PAGE_ALLOC, ILOG_HOST_PAGE_ALLOC_REST);
	for (const struct hseries *h; (h = hs2_next(x, &it));) {
		uint64_t pin = 0, nin = 0, pout = 0, nout = 0;
		for (uint32_t k = lo; k < hi && k < h->nt; k++) {
			if (k >= a && k < b)
				pin += h->t[k].value, nin += h->t[k].dur;
			else
				pout += h->t[k].value, nout += h->t[k].dur;
		}
		m_in += pin;
		m_out += pout;
		if (h->type != ILOG_HOST_PAGE_ALLOC || !h->pid || h->pid == p->pid || !pin ||
		    causal_is_recorder(x, h->pid))
			continue;
		double rate_out = nout ? (double)pout / (double)nout : 0;
		double excess = (double)pin - rate_out * (double)nin;
		if (excess > out->excess) {
			out->pid = h->pid;
			out->pages_in = pin, out->ns_in = nin;
			out->pages_out = pout, out->ns_out = nout;
			out->excess = excess;
		}
	}
	/* the machine: pages per window tick inside against outside */
	double len_in = 0, len_out = 0;
	for (uint32_t k = lo; k < hi; k++)
		*(k >= a && k < b ? &len_in : &len_out) += (double)x->nd->width;
	out->machine_excess = (double)m_in - (len_out > 0 ? (double)m_out / len_out : 0) * len_in;
	return 0;
}

void causal_stalls(struct ctx *x, uint32_t a, uint32_t b, uint64_t *n, uint64_t *ns)
{
	*n = *ns = 0;
	struct hs2 it = hs2_of(x, ILOG_HOST_RECLAIM, ILOG_HOST_COMPACT);
	for (const struct hseries *h; (h = hs2_next(x, &it));) {
		for (uint32_t k = a; k < b && k < h->nt; k++)
			*n += h->t[k].n, *ns += h->t[k].dur;
	}
}

void causal_snaps(struct ctx *x, uint32_t a, uint32_t b, struct snapsum *s)
{
	memset(s, 0, sizeof(*s));
	double sum = 0;
	uint64_t before = x->nd->swap_used_first, peak = 0;
	for (uint32_t k = a; k < b && k < x->nd->nsnap; k++) {
		const struct snaptick *t = &x->nd->snap[k];
		if (!t->n)
			continue;
		if (!s->n || t->avail_min < s->avail_min)
			s->avail_min = t->avail_min;
		s->n += t->n;
		sum += t->cpu_sum;
		if (t->cpu_max > s->cpu_max)
			s->cpu_max = t->cpu_max;
		if (t->load_max > s->load_max)
			s->load_max = t->load_max;
		if (t->psi_max[PSI_MEM_SOME] > s->psi_mem_max)
			s->psi_mem_max = t->psi_max[PSI_MEM_SOME];
		if (t->swap_used_max > peak)
			peak = t->swap_used_max;
		s->total = t->total;
	}
	s->cpu_avg = s->n ? sum / s->n : 0;
	s->swap_growth = peak > before ? peak - before : 0;
}

int causal_cpu_saturated(struct ctx *x, uint32_t a, uint32_t b, double *psi, double *busy)
{
	double p = 0, c = 0;
	uint32_t n = 0, c_n = 0;
	for (uint32_t k = a; k < x->nd->nsnap; k++) {
		const struct snaptick *t = &x->nd->snap[k];
		if (!t->n)
			continue;
		p += t->psi_max[PSI_CPU_SOME];
		n++;
		c += t->cpu_sum;
		c_n += t->n;
		if (k >= b)
			break; /* the first after the range, which covers its end */
	}
	*psi = n ? p / n : 0;
	*busy = c_n ? c / c_n : 0;
	return n && (*psi >= ILOG_SAT_PSI || *busy >= ILOG_SAT_CPU);
}

double causal_stolen(struct ctx *x, const uint8_t *in, uint32_t lo, uint32_t hi, int every_cpu,
		     double st[2])
{
	double s_in = 0, l_in = 0, s_out = 0, l_out = 0;
	uint32_t prev = UINT32_MAX;
	for (uint32_t k = 0; k < x->nd->nsnap; k++) {
		const struct snaptick *t = &x->nd->snap[k];
		if (!t->n)
			continue;
		if (prev != UINT32_MAX) { /* the first has no span: its steal is 0 */
			int hit = 0;
			for (uint32_t j = prev + 1; j <= k && j < x->T; j++)
				hit |= in[j];
			double len = (double)(k - prev) * (double)x->nd->width;
			double pct = t->steal_sum / t->n;
			if (hit)
				s_in += pct * len, l_in += len;
			else if (prev + 1 >= lo && k < hi)
				s_out += pct * len, l_out += len;
		}
		prev = k;
	}
	double r_in = l_in > 0 ? s_in / l_in : 0, r_out = l_out > 0 ? s_out / l_out : 0;
	if (st)
		st[0] = r_in, st[1] = r_out;
	/* per CPU: what a thread on any one of them lost, on average */
	double ex = (r_in - r_out) / 100 * l_in * (every_cpu && x->nd->ncpu ? x->nd->ncpu : 1);
	return ex > 0 ? ex : 0;
}

void causal_met_steal(struct cand *c, double stolen, const double st[2])
{
	causal_met_u(c, "stolen_ns", ilog_sat_u64(stolen));
	causal_met_f(c, "steal_in_pct", st[0]);
	causal_met_f(c, "steal_out_pct", st[1]);
}

/* ---- per-process signals ---- */
/*
 * Windows of [lo, hi) where a signal is a robust outlier against the
 * windows not set in skip (all of them when skip is NULL).
 */
static void elevated(const double *s, uint32_t lo, uint32_t hi, const uint8_t *skip,
		     uint8_t *flag)
{
	double med = 0, mad = 0;
	double *v = malloc((hi - lo + 1) * sizeof(*v));
	uint32_t n = 0;
	for (uint32_t k = lo; v && k < hi; k++)
		if (!skip || !skip[k])
			v[n++] = s[k];
	if (v)
		ilog_robust(v, n, &med, &mad);
	free(v);
	/* a count-like signal varies by at least its square root (Poisson) */
	double sigma = 1.4826 * mad;
	if (sigma < sqrt(med))
		sigma = sqrt(med);
	double thr = med + ILOG_Z_OUTLIER * sigma;
	for (uint32_t k = lo; k < hi; k++)
		flag[k] = s[k] > thr && s[k] > 0;
}

/* The CUDA calls of every process of the node per window (x->T of them),
 * counted once per node; NULL when out of memory. */
static const uint64_t *node_calls(struct ctx *x)
{
	struct snode *nd = x->nd;
	if (nd->calls && nd->ncalls == x->T)
		return nd->calls;
	free(nd->calls);
	nd->ncalls = 0;
	if (!(nd->calls = calloc(x->T, sizeof(*nd->calls))))
		return NULL;
	nd->ncalls = x->T;
	for (uint32_t i = 0; i < x->st->nser; i++) {
		const struct sseries *s = x->st->ser[i];
		if (s->node == nd->idx)
			for (uint32_t k = 0; k < x->T && k < s->nt; k++)
				nd->calls[k] += causal_tick_calls(&s->t[k]);
	}
	return nd->calls;
}

void causal_sig_free(struct sig *g)
{
	free(g->cpu);
	free(g->fcpu);
	free(g->used);
	free(g->swapgrow);
	free(g->net);
	free(g->fnet);
	memset(g, 0, sizeof(*g));
}

int causal_sig_build(struct ctx *x, const struct sproc *p, struct sig *g, uint32_t lo,
		     uint32_t hi)
{
	uint32_t T = x->T;
	g->cpu = calloc((size_t)T * 6, sizeof(double));
	g->fcpu = calloc((size_t)T * 5, 1);
	if (!g->cpu || !g->fcpu) {
		causal_sig_free(g);
		return -1;
	}
	g->gpu = g->cpu + T;
	g->mem = g->cpu + 2 * T;
	g->gr = g->cpu + 3 * T;
	g->memrate = g->cpu + 4 * T;
	g->memspan = g->cpu + 5 * T;
	g->fgpu = g->fcpu + T;
	g->fmem = g->fcpu + 2 * T;
	g->fgr = g->fcpu + 3 * T;
	g->fmemw = g->fcpu + 4 * T;
	g->net = calloc(T ? (size_t)T * 2 : 1, sizeof(double));
	g->fnet = calloc(T ? T : 1, 1);
	if (!g->net || !g->fnet) {
		causal_sig_free(g);
		return -1;
	}
	g->netspan = g->net + T;
	int have_pages = 0;
	/* (the sums are of whole numbers, exact in a double: their order does
	 * not matter, and each list keeps the order of a scan anyway) */
	for (const struct hseries *h = hs_pid_first(x, p); h; h = hs_pid_next(x, h)) {
		if (h->type == ILOG_HOST_SWITCH && has_tid(p, h->tid))
			for (uint32_t k = 0; k < T && k < h->nt; k++)
				g->cpu[k] += (double)h->t[k].dur;
	}
	struct hs2 net = { ilog_stats_hs_type(x->st, x->nd->idx, HS_RETRANS), 0 };
	for (const struct hseries *h; (h = hs2_next(x, &net));) {
		/* each aggregate's own length: one long aggregate (a window the
		 * recorder's tick was late for) widens no other's flag */
		for (uint32_t k = 0; k < T && k < h->nt; k++) {
			if (!h->t[k].n)
				continue;
			g->net[k] += (double)h->t[k].value;
			uint64_t span = (h->t[k].max + x->nd->width - 1) / x->nd->width;
			span = span < 1 ? 1 : span < T ? span : T;
			if ((double)span > g->netspan[k])
				g->netspan[k] = (double)span;
			if (span > g->net_span)
				g->net_span = (uint32_t)span;
		}
	}
	struct hs2 it = hs2_of(x, ILOG_HOST_PAGE_ALLOC, ILOG_HOST_PAGE_ALLOC_REST);
	for (const struct hseries *h; (h = hs2_next(x, &it));) {
		have_pages = 1;
		for (uint32_t k = 0; k < T && k < h->nt; k++) {
			const struct htick *t = &h->t[k];
			g->mem[k] += (double)t->value;
			if (!t->n || !t->dur)
				continue;
			g->memrate[k] += (double)t->value * 1e9 / (double)t->dur;
			double span = (double)((t->dur / t->n + x->nd->width - 1) / x->nd->width);
			if (span > g->memspan[k])
				g->memspan[k] = span;
		}
	}
	/* the other processes' calls: the node's less p's own */
	const uint64_t *all = node_calls(x);
	if (!all) {
		causal_sig_free(g);
		return -1;
	}
	uint64_t *own = calloc(T, sizeof(*own));
	if (!own) {
		causal_sig_free(g);
		return -1;
	}
	for (uint32_t i = p->ser; i; i = x->st->ser[i - 1]->next) {
		const struct sseries *s = x->st->ser[i - 1];
		for (uint32_t k = 0; k < T && k < s->nt; k++)
			own[k] += causal_tick_calls(&s->t[k]);
	}
	for (uint32_t k = 0; k < T; k++)
		g->gpu[k] = (double)(all[k] - own[k]);
	free(own);
	for (uint32_t i = 0; i < x->st->ncap; i++) {
		const struct scapture *c = &x->st->cap[i];
		if (c->node == x->nd->idx && c->pid == p->pid)
			g->gr[tick_at(x, c->begin_ts)] += 1;
	}
	for (uint32_t i = 0; i < x->st->ninst; i++) {
		const struct sinst *c = &x->st->inst[i];
		if (c->node == x->nd->idx && c->pid == p->pid)
			g->gr[tick_at(x, c->ts)] += 1;
	}
	g->have_pages = have_pages;
	/* memory in use (snapshots, carried between them) and new swap use */
	if (x->nd->nsnap) {
		g->used = calloc((size_t)T * 3, sizeof(double));
		g->swapgrow = calloc(T, 1);
		if (!g->used || !g->swapgrow) {
			causal_sig_free(g);
			return -1;
		}
		g->avail = g->used + T;
		g->total = g->used + 2 * T;
		uint64_t swap_peak = x->nd->swap_used_first;
		uint32_t prev = 0, first = T;
		for (uint32_t k = 0; k < T; k++) {
			const struct snaptick *t = k < x->nd->nsnap ? &x->nd->snap[k] : NULL;
			if (t && t->n) {
				if (first == T)
					first = k;
				g->avail[k] = (double)(t->avail_min < t->total ? t->avail_min : t->total);
				g->total[k] = (double)t->total;
				if (t->swap_used_max > swap_peak) {
					/* it grew some time since the previous snapshot */
					for (uint32_t j = prev; j <= k; j++)
						g->swapgrow[j] = 1;
					swap_peak = t->swap_used_max;
				}
				prev = k + 1;
			} else if (k) {
				g->avail[k] = g->avail[k - 1];
				g->total[k] = g->total[k - 1];
			}
		}
		/* before the first snapshot the machine looked as at the first */
		for (uint32_t k = 0; k < first && first < T; k++)
			g->avail[k] = g->avail[first], g->total[k] = g->total[first];
		for (uint32_t k = 0; k < T; k++)
			g->used[k] = g->total[k] - g->avail[k];
	}
	(void)lo;
	(void)hi;
	return 0;
}

/*
 * Flag the windows where each signal is a robust outlier against the
 * windows of [lo, hi) outside the op's anomalies (base[k] == 0): the
 * question is whether the host differed when the op was slow.
 */
int causal_sig_flags(struct ctx *x, struct sig *g, const uint8_t *anom, uint32_t lo, uint32_t hi)
{
	uint32_t nb = 0;
	for (uint32_t k = lo; k < hi; k++)
		nb += !anom[k];
	const uint8_t *mask = nb >= 3 ? anom : NULL; /* too few quiet windows: all of them */
	elevated(g->cpu, lo, hi, mask, g->fcpu);
	elevated(g->gpu, lo, hi, mask, g->fgpu);
	elevated(g->gr, lo, hi, mask, g->fgr);
	/* TCP retransmissions on the node: an outlier against the quiet
	 * windows (a count: Poisson noise at least); an aggregate covers
	 * [ts, ts + dur), so does its flag */
	memset(g->fnet, 0, x->T);
	uint8_t *fr = calloc(x->T ? x->T : 1, 1);
	if (!fr)
		return -1;
	elevated(g->net, lo, hi, mask, fr);
	for (uint32_t k = lo; k < hi; k++)
		for (uint32_t j = 0; fr[k] && j < (g->netspan[k] > 1 ? g->netspan[k] : 1) && k + j < x->T;
		     j++)
			g->fnet[k + j] = 1;
	free(fr);
	/*
	 * Memory pressure needs evidence that memory was scarce, not only that
	 * it moved (a 1% swing of used memory on an idle host is another
	 * process starting, not pressure).  A window is flagged when
	 *   - swap use grew (the kernel pushed pages out), or
	 *   - page allocations are a robust outlier AND ran at >= ILOG_MEM_CHURN
	 *     of the available memory per second (a storm that would take all
	 *     of it within 1 / ILOG_MEM_CHURN seconds), or
	 *   - used memory is a robust outlier AND available memory was below
	 *     ILOG_MEM_SCARCE of the total.
	 * fmemw: the windows where page allocations are an outlier at any
	 * rate (fmem's among them), where an interval nothing else explains
	 * weighs its storm's rate as graded evidence (detect_interval.c).
	 * The size of the machine comes from the snapshots; without them page
	 * allocations cannot be weighed and do not count.
	 */
	memset(g->fmem, 0, x->T);
	memset(g->fmemw, 0, x->T);
	if (!g->used)
		return 0;
	uint8_t *fu = calloc(x->T, 1);
	if (!fu)
		return -1;
	if (g->have_pages) {
		elevated(g->mem, lo, hi, mask, fu);
		for (uint32_t k = x->T; k-- > 0;) {
			/* each aggregate at its own length: one that covered more
			 * than its pages' time (the recorder's first window, which
			 * also held the programs' load) makes no other look slow */
			double rate = g->memrate[k] * ILOG_PAGE_BYTES;
			if (!fu[k])
				continue;
			uint8_t *f = rate >= ILOG_MEM_CHURN * g->avail[k] ? g->fmem : NULL;
			/* an aggregate covers [ts, ts + dur): so does its flag */
			for (uint32_t j = 0; j < (g->memspan[k] > 1 ? g->memspan[k] : 1) && k + j < x->T; j++) {
				g->fmemw[k + j] = 1;
				if (f)
					f[k + j] = 1;
			}
		}
	}
	memset(fu, 0, x->T);
	elevated(g->used, lo, hi, mask, fu);
	for (uint32_t k = lo; k < hi; k++)
		g->fmem[k] |= (fu[k] && g->avail[k] < ILOG_MEM_SCARCE * g->total[k]) |
			      g->swapgrow[k];
	free(fu);
	return 0;
}


/* ---- the network (format 1.3) ---- */
void causal_net_reach(struct ctx *x, const uint8_t *in, uint8_t *nin)
{
	uint64_t w = x->nd->width;
	memset(nin, 0, x->T);
	for (uint32_t i = 0; i < x->st->nhs; i++) {
		const struct hseries *h = x->st->hs[i];
		if (h->node != x->nd->idx || h->type != HS_RETRANS || !h->opid)
			continue;
		for (uint32_t k = 0; k < x->T && k < h->nt; k++) {
			if (!h->t[k].n || nin[k])
				continue;
			uint64_t reach = (h->t[k].max + w - 1) / w;
			for (uint64_t j = 0; j < (reach ? reach : 1) && k + j < x->T && !nin[k]; j++)
				nin[k] = in[k + j];
		}
	}
}

uint32_t causal_net_from(const struct sig *g, uint32_t a, uint32_t lo)
{
	uint32_t from = a;
	for (uint32_t k = a; k > lo && a - (k - 1) < g->net_span; k--)
		if (g->net[k - 1] > 0 && (double)(k - 1) + g->netspan[k - 1] > (double)a)
			from = k - 1;
	return from;
}

uint32_t causal_net_flows(struct ctx *x, uint32_t a, uint32_t b, const uint8_t *in, uint32_t lo,
			  uint32_t hi, struct net_flow *f, uint32_t cap, uint64_t *all_in,
			  uint64_t *all_out)
{
	uint32_t n = 0;
	*all_in = *all_out = 0;
	for (uint32_t i = 0; i < x->st->nhs; i++) {
		const struct hseries *h = x->st->hs[i];
		if (h->node != x->nd->idx || h->type != HS_RETRANS || !h->opid)
			continue;
		uint64_t vin = 0, vout = 0;
		for (uint32_t k = lo; k < hi && k < h->nt; k++) {
			if (in ? in[k] : k >= a && k < b)
				vin += h->t[k].value;
			else
				vout += h->t[k].value;
		}
		*all_in += vin;
		*all_out += vout;
		const struct sflow *fl = &x->st->flows[h->opid - 1];
		if (!fl->family || !vin)
			continue; /* the rest of the flows is no flow to name */
		struct net_flow e = { h->opid - 1, vin, vout };
		uint32_t j = n < cap ? n++ : cap - 1;
		if (j == cap - 1 && n == cap && f[j].in >= vin)
			continue;
		f[j] = e;
		for (; j > 0 && f[j].in > f[j - 1].in; j--) {
			struct net_flow t = f[j];
			f[j] = f[j - 1];
			f[j - 1] = t;
		}
	}
	return n;
}

int causal_net_significant(uint64_t n_in, uint64_t n_out, double len_in, double len_out)
{
	if (!n_in || !(len_in > 0))
		return 0;
	double mu = (double)(n_out + 1) * len_in / (len_out > 0 ? len_out : len_in);
	/* the lower tail P(X < n_in) passes 1 - alpha: the upper one is below */
	double lmu = log(mu), cdf = 0;
	for (uint64_t j = 0; j < n_in; j++) {
		cdf += exp(-mu + (double)j * lmu - lgamma((double)j + 1));
		if (cdf > 1 - ILOG_NET_ALPHA)
			return 1;
	}
	return 0;
}

void causal_flow_text(const struct sflow *f, char *buf, size_t n)
{
	char sa[64], da[64];
	const char *o = f->family == 6 ? "[" : "", *c = f->family == 6 ? "]" : "";
	ilog_inet_str((struct ilog_bin){ f->saddr, f->family == 4 ? 4 : 16 }, sa, sizeof(sa));
	ilog_inet_str((struct ilog_bin){ f->daddr, f->family == 4 ? 4 : 16 }, da, sizeof(da));
	snprintf(buf, n, "%s%s%s:%u > %s%s%s:%u", o, sa, c, f->sport, o, da, c, f->dport);
}

void causal_flow_owner(struct ctx *x, struct cand *c, uint32_t subject, const struct sflow *fl,
		       char *ft, size_t nft, char *who, size_t nwho)
{
	causal_flow_text(fl, ft, nft);
	const char *cc = fl->pid ? ilog_stats_comm(x->st, x->nd->idx, fl->pid) : "";
	const char *ctr = fl->pid ? ilog_stats_other_container(x->st, x->nd->idx, fl->pid, subject)
				  : "";
	if (fl->pid && fl->pid != subject && !causal_is_recorder(x, fl->pid)) {
		c->culprit = fl->pid;
		cpy(c->ccomm, sizeof(c->ccomm), cc);
	}
	who[0] = 0;
	if (fl->pid)
		snprintf(who, nwho, " of PID %u (%s)%s%s%s", fl->pid, cc, ctr[0] ? " in " : "", ctr,
			 ctr[0] ? "," : "");
	causal_met_s(c, "flow", ft);
	causal_met_u(c, "flow_pid", fl->pid);
}

uint64_t causal_net_bytes(struct ctx *x, uint32_t pid, uint32_t a, uint32_t b, const uint8_t *in)
{
	uint64_t v = 0;
	for (uint32_t i = 0; i < x->st->nhs; i++) {
		const struct hseries *h = x->st->hs[i];
		if (h->node == x->nd->idx && h->type == HS_SOCKIO && h->pid == pid)
			for (uint32_t k = a; k < b && k < h->nt; k++)
				if (!in || in[k])
					v += h->t[k].value;
	}
	return v;
}

double causal_call_coverage(struct ctx *x, const struct scall *v, uint32_t m,
			     const uint8_t *flag)
{
	uint32_t nc = 0;
	for (uint32_t i = 0; i < m; i++) {
		uint32_t a = tick_at(x, v[i].ts), b = tick_at(x, v[i].ts + v[i].dur), cov = 0;
		for (uint32_t k = a ? a - 1 : 0; k <= b + 1 && k < x->T; k++)
			cov |= flag[k];
		nc += cov;
	}
	return m ? (double)nc / m : 0;
}
