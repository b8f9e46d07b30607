// SPDX-License-Identifier: MIT
/*
 * Detector: the input pipeline stalls on disk (format 1.3 records).  The
 * job is a process with CUDA calls and its descendants (data-loader
 * workers are children of the training process).  Per recorder window
 * (the windows of the blkio and iowait records, gaps between them filled)
 * inside the process's CUDA span, the process's CUDA call rate; the
 * stalled windows are a run of windows whose rate is below
 * ILOG_DISK_RATE_DROP of the median window's - the GPU waited for input
 * - and the run whose I/O wait (the job's threads blocked on I/O, summed)
 * rose most over what its calls needed at the job's I/O wait per CUDA
 * call in the other windows is the interval.  A chain when that excess
 * accounts for at least ILOG_DISK_IO_SHARE of the time the GPU work
 * stalled (the missing calls at the median rate): a job whose calls fall
 * for another reason waits less on I/O per call, not more.  It
 * names the device the job's requests went to in the interval, its
 * latency quantiles in and outside the interval (all its requests), and
 * the process outside the job that moved the most bytes on it in the
 * interval when that is at least ILOG_DISK_DOMINANT of the device's.
 */
#include <stdlib.h>
#include "causal_int.h"

/* The job's I/O wait (its processes' iowait records) in each window. */
static void window_io(struct ctx *x, const struct sproc *p, struct rwin *w, uint32_t nw)
{
	for (uint32_t i = 0; i < x->st->niow; i++) {
		const struct siow *v = &x->st->iow[i];
		int j = v->node == x->nd->idx && v->cls < 0 ? causal_rwin_of(w, nw, v->ts) : -1;
		if (j >= 0 && causal_in_job(x, p, v->pid))
			w[j].io += v->ns;
	}
}

/*
 * The device the job's requests went to (maj:min) in the interval [ta, tb)
 * of the recorder windows w (those in it marked): its latency in and
 * outside the interval, and the process outside the job that moved at
 * least ILOG_DISK_DOMINANT of its bytes there.  Appends to the root
 * cause's tail (tailsz bytes) and the chain's metrics; the device's name,
 * the culprit (0: none) and its name in *diskp, *culp and *ccp.
 */
static void disk_device(struct ctx *x, struct cand *c, const struct sproc *p,
			const struct rwin *w, uint32_t nw, uint32_t maj, uint32_t min, uint64_t ta,
			uint64_t tb, uint64_t len_in, uint64_t len_out, char *tail, size_t tailsz,
			const char **diskp, uint32_t *culp, const char **ccp)
{
	size_t l = strlen(tail);
	const char *disk = "";
	uint32_t cul = 0;
	const char *cc = "";
	uint64_t hin[INGERO_BLK_HBUCKETS] = { 0 }, hout[INGERO_BLK_HBUCKETS] = { 0 };
	uint64_t mx_in = 0, mx_out = 0, by_in = 0, by_out = 0, ios_in = 0;
	uint64_t top_by = 0, top_out = 0;
	for (uint32_t i = 0; i < x->st->nblk; i++) {
		const struct sblk *k = &x->st->blk[i];
		int j = k->node == x->nd->idx && k->major == maj && k->minor == min
				? causal_rwin_of(w, nw, k->ts) : -1;
		if (j < 0)
			continue;
		disk = k->disk;
		uint64_t *h = w[j].in ? hin : hout, *mx = w[j].in ? &mx_in : &mx_out;
		for (uint32_t b = 0; b < INGERO_BLK_HBUCKETS; b++)
			h[b] += k->hist[b];
		if (k->lat_max > *mx)
			*mx = k->lat_max;
		*(w[j].in ? &by_in : &by_out) += k->bytes;
		if (w[j].in)
			ios_in += k->ios;
	}
	/* the busiest process outside the job on the device in the
	 * interval: its bytes in and outside it (the first 256 of them) */
	struct { uint32_t pid; uint64_t in, out; } cp[256];
	uint32_t ncp = 0;
	for (uint32_t i = 0; i < x->st->nblk; i++) {
		const struct sblk *k = &x->st->blk[i];
		if (k->node != x->nd->idx || k->major != maj || k->minor != min || !k->pid ||
		    k->ts < ta || k->ts >= tb)
			continue;
		uint32_t q = 0;
		while (q < ncp && cp[q].pid != k->pid)
			q++;
		if (q == ncp && ncp < 256 && !causal_in_job(x, p, k->pid) &&
		    !causal_is_recorder(x, k->pid))
			cp[ncp++] = (typeof(cp[0])){ k->pid, 0, 0 };
	}
	for (uint32_t i = 0; ncp && i < x->st->nblk; i++) {
		const struct sblk *k = &x->st->blk[i];
		int j = k->node == x->nd->idx && k->major == maj && k->minor == min
				? causal_rwin_of(w, nw, k->ts) : -1;
		for (uint32_t q = 0; j >= 0 && q < ncp; q++)
			if (cp[q].pid == k->pid)
				*(w[j].in ? &cp[q].in : &cp[q].out) += k->bytes;
	}
	for (uint32_t q = 0; q < ncp; q++)
		if (cp[q].in > top_by)
			top_by = cp[q].in, top_out = cp[q].out, cul = cp[q].pid;
	uint64_t p50i = ilog_blk_quantile(hin, INGERO_BLK_HBUCKETS, 0.5, mx_in);
	uint64_t p99i = ilog_blk_quantile(hin, INGERO_BLK_HBUCKETS, 0.99, mx_in);
	uint64_t p50o = ilog_blk_quantile(hout, INGERO_BLK_HBUCKETS, 0.5, mx_out);
	uint64_t p99o = ilog_blk_quantile(hout, INGERO_BLK_HBUCKETS, 0.99, mx_out);
	l += (size_t)snprintf(tail + l, tailsz - l,
			      "; %s (device %u:%u) served %llu requests in the interval at "
			      "p50 %s and p99 %s, against p50 %s and p99 %s outside it", disk,
			      maj, min, (unsigned long long)ios_in, D(x, (double)p50i),
			      D(x, (double)p99i), D(x, (double)p50o), D(x, (double)p99o));
	causal_met_s(c, "disk", disk);
	causal_met_u(c, "disk_major", maj);
	causal_met_u(c, "disk_minor", min);
	causal_met_u(c, "disk_ios_in", ios_in);
	causal_met_u(c, "disk_bytes_in", by_in);
	causal_met_u(c, "disk_bytes_out", by_out);
	causal_met_u(c, "disk_p50_in_ns", p50i);
	causal_met_u(c, "disk_p99_in_ns", p99i);
	causal_met_u(c, "disk_p50_out_ns", p50o);
	causal_met_u(c, "disk_p99_out_ns", p99o);
	if (cul && (double)top_by >= ILOG_DISK_DOMINANT * (double)by_in) {
		cc = ilog_stats_comm(x->st, x->nd->idx, cul);
		const char *ctr = ilog_stats_container(x->st, x->nd->idx, cul);
		l += (size_t)snprintf(tail + l, tailsz - l,
				      "; PID %u (%s)%s%s%s moved %s of the device's %s in the "
				      "interval (%s/s, against %s/s outside it)", cul, cc,
				      ctr[0] ? " in " : "", ctr, ctr[0] ? "," : "",
				      P(x, (double)top_by / (double)by_in), B(x, (double)by_in),
				      B(x, (double)top_by * 1e9 / (double)len_in),
				      B(x, len_out ? (double)top_out * 1e9 / (double)len_out : 0));
		causal_met_u(c, "culprit_bytes_in", top_by);
		causal_met_u(c, "culprit_bytes_out", top_out);
		if (ctr[0])
			causal_met_s(c, "culprit_container", ctr);
		causal_ev_add(x, c, ta, "PID %u (%s) moves %s of %s's bytes", cul, cc,
			      P(x, (double)top_by / (double)by_in), disk);
	} else {
		cul = 0;
	}
	*diskp = disk;
	*culp = cul;
	*ccp = cc;
}

static void disk(struct ctx *x, struct causal_proc *pc, const struct causal_series *sc)
{
	const struct sproc *p = pc->p;
	(void)sc;
	if (!x->st->niow)
		return;
	struct rwin *w = NULL;
	uint32_t nw = causal_rwindows(x, p->first_ts, p->last_end, 0, &w);
	if (nw < 4)
		goto out;
	double med = causal_rwin_calls(x, pc, w, nw);
	if (med <= 0)
		goto out;
	window_io(x, p, w, nw);
	/* the run of slow windows whose I/O wait rose most over the others' rate */
	double best = 0, best_lost = 0;
	uint32_t ba = 0, bb = 0;
	uint64_t io_all = 0, len_all = 0;
	for (uint32_t j = 0; j < nw; j++)
		io_all += w[j].io, len_all += w[j].dur;
	uint64_t calls_all = 0;
	for (uint32_t j = 0; j < nw; j++)
		calls_all += w[j].calls;
	for (uint32_t a = 0; a < nw;) {
		if ((double)w[a].calls / (double)w[a].dur >= ILOG_DISK_RATE_DROP * med) {
			a++;
			continue;
		}
		uint32_t b = a;
		uint64_t io_in = 0, len_in = 0, calls_in = 0;
		double lost = 0;
		while (b < nw && (double)w[b].calls / (double)w[b].dur < ILOG_DISK_RATE_DROP * med) {
			io_in += w[b].io, len_in += w[b].dur, calls_in += w[b].calls;
			lost += (double)w[b].dur * (1 - (double)w[b].calls / (double)w[b].dur / med);
			b++;
		}
		/* the I/O wait the interval's work would have needed at the job's
		 * I/O wait per CUDA call outside it: what is above is the stall's */
		uint64_t c_out = calls_all - calls_in;
		double per_call = c_out ? (double)(io_all - io_in) / (double)c_out : 0;
		double ex = (double)io_in - per_call * (double)calls_in;
		if (len_all > len_in && c_out && ex > best)
			best = ex, best_lost = lost, ba = a, bb = b;
		a = b;
	}
	if (bb <= ba || best < ILOG_DISK_IO_SHARE * best_lost || best_lost <= 0)
		goto out;
	uint64_t io_in = 0, len_in = 0, calls_in = 0;
	for (uint32_t j = ba; j < bb; j++)
		w[j].in = 1, io_in += w[j].io, len_in += w[j].dur, calls_in += w[j].calls;
	uint64_t len_out = len_all - len_in, io_out = io_all - io_in, calls_out = 0;
	for (uint32_t j = 0; j < nw; j++)
		if (!w[j].in)
			calls_out += w[j].calls;
	uint64_t ta = w[ba].ts, tb = w[bb - 1].ts + w[bb - 1].dur;
	/* the device the job's requests went to in the interval (the most
	 * requests and bytes; the first 64 devices) */
	struct { uint32_t maj, min; uint64_t n; } dv[64];
	uint32_t ndv = 0, maj = 0, min = 0;
	uint64_t dev_best = 0;
	for (uint32_t i = 0; i < x->st->nblk; i++) {
		const struct sblk *k = &x->st->blk[i];
		if (k->node != x->nd->idx || k->ts < ta || k->ts >= tb || !k->pid || !causal_in_job(x, p, k->pid))
			continue;
		uint32_t d = 0;
		while (d < ndv && (dv[d].maj != k->major || dv[d].min != k->minor))
			d++;
		if (d == ndv && ndv < 64)
			dv[ndv++] = (typeof(dv[0])){ k->major, k->minor, 0 };
		if (d < ndv && (dv[d].n += k->bytes + k->ios) > dev_best)
			dev_best = dv[d].n, maj = k->major, min = k->minor;
	}
	struct cand *c = causal_cand_new(x, p, ILOG_PAT_DISK_STALL, ILOG_OP_UNKNOWN, ta, tb,
					 ilog_sat_u64(best_lost));
	if (!c)
		goto out;
	const char *comm = c->comm;
	double r_in = (double)calls_in * 1e9 / (double)len_in;
	double r_out = len_out ? (double)calls_out * 1e9 / (double)len_out : 0;
	char tail[1024] = "";
	const char *disk = "";
	uint32_t cul = 0;
	const char *cc = "";
	if (dev_best)
		disk_device(x, c, p, w, nw, maj, min, ta, tb, len_in, len_out, tail, sizeof(tail),
			    &disk, &cul, &cc);
	snprintf(c->root, sizeof(c->root),
		 "PID %u (%s) made %.1f CUDA calls/s between %s and %s against %.1f/s outside "
		 "that interval while the job's processes were blocked on I/O for %s (%s of the "
		 "interval, against %s outside it)%s",
		 p->pid, comm, r_in, R(x, ta), R(x, tb), r_out, D(x, (double)io_in),
		 P(x, (double)io_in / (double)len_in),
		 P(x, len_out ? (double)io_out / (double)len_out : 0), tail);
	if (cul) {
		c->culprit = cul;
		cpy(c->ccomm, sizeof(c->ccomm), cc);
		snprintf(c->title, sizeof(c->title),
			 "Input pipeline stalled on disk %s: %s (PID %u) slowed %s (PID %u)", disk, cc,
			 cul, comm, p->pid);
	} else {
		snprintf(c->title, sizeof(c->title), "Input pipeline of %s (PID %u) stalled on disk%s%s",
			 comm, p->pid, disk[0] ? " " : "", disk);
	}
	snprintf(c->fix, sizeof(c->fix),
		 "Feed the GPU faster than it consumes: more DataLoader workers and a deeper "
		 "prefetch, the dataset on faster local storage or cached in memory; %s",
		 cul ? causal_fmt(x, "keep %s (PID %u) off the job's device (cgroup io.max or "
			 "blkio throttle, ionice -c3) or move it", cc, cul)
		     : "check the device's health and queue (iostat -x) and its other users");
	causal_rwin_metrics(c, w, nw, ta, tb, calls_in, calls_out, r_in, r_out, med);
	causal_met_u(c, "iowait_in_ns", io_in);
	causal_met_u(c, "iowait_out_ns", io_out);
	causal_met_u(c, "len_in_ns", len_in);
	causal_met_u(c, "len_out_ns", len_out);
	causal_met_f(c, "iowait_excess_ns", best);
	causal_ev_add(x, c, ta, "CUDA calls fall to %.1f/s from %.1f/s: the GPU waits for input",
		      r_in, r_out);
	causal_ev_add(x, c, ta, "the job's threads blocked on I/O %s of the time",
		      P(x, (double)io_in / (double)len_in));
out:
	free(w);
}

const struct causal_detector causal_detector_disk = {
	"disk", CAUSAL_PROCESS, disk,
};
