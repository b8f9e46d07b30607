// SPDX-License-Identifier: MIT
/*
 * Clock skew between the merged nodes (docs/merge.md): pass 1 over each
 * input, and the estimation of each node's offset from what it found.
 *
 * Pass 1 (regular files only) reads each input once to learn its nodes
 * (headers), its clock anchors and its NCCL collective sync points.  The
 * offsets between node clocks are then estimated from the collectives: the
 * n-th collective on a communicator completes at nearly the same true time
 * on every rank, so the difference of its completion times, as each node's
 * wall clock reports them, is the difference of the clocks.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ingero/merge.h"
#include "ingero/hash.h"
#include "merge_int.h"

#define MAX_POINTS (1u << 16) /* collective points kept per node (thinned beyond) */
#define MAX_COMMS 64          /* communicators tracked per process */

struct cpoint {
	uint32_t comm, seq;        /* communicator ordinal in its process, call number */
	uint32_t sig;              /* op and size, to refuse mismatched pairs */
	uint32_t pid;
	int64_t coll_end, sync_end;/* wall ns; sync_end 0 if no sync followed */
};

struct cproc {
	uint32_t pid, ncomm;
	uint64_t handle[MAX_COMMS];
	uint32_t seq[MAX_COMMS];
};

struct pending {
	uint32_t tid;
	int used;
	uint64_t stream;
	struct cpoint p;
};

const char *ilog_skew_method_name(int method)
{
	static const char *const n[] = { "reference", "same-boot", "collectives", "anchors" };
	return method >= 0 && method <= ILOG_SKEW_ANCHORS ? n[method] : "?";
}

/* ---- pass 1: anchors and collectives ---- */

static int is_collective(uint16_t op)
{
	return op == ILOG_OP_ncclAllReduce || op == ILOG_OP_ncclAllGather ||
	       op == ILOG_OP_ncclReduceScatter || op == ILOG_OP_ncclBroadcast;
}

static int is_sync(uint16_t op)
{
	return op == ILOG_OP_cudaStreamSynchronize || op == ILOG_OP_cuStreamSynchronize ||
	       op == ILOG_OP_cudaDeviceSynchronize || op == ILOG_OP_cuCtxSynchronize ||
	       op == ILOG_OP_cudaEventSynchronize;
}

static int add_point(struct mnode *n, const struct cpoint *p)
{
	if (p->seq % n->stride)
		return 0;
	if (n->npts == MAX_POINTS) {
		/* thin to every other kept call number; every node thins by
		 * powers of two, so coarser sets stay subsets of finer ones */
		n->stride *= 2;
		uint32_t k = 0;
		for (uint32_t i = 0; i < n->npts; i++)
			if (n->pts[i].seq % n->stride == 0)
				n->pts[k++] = n->pts[i];
		n->npts = k;
		if (p->seq % n->stride)
			return 0;
	}
	if (!n->pts && !(n->pts = malloc(MAX_POINTS * sizeof(*n->pts))))
		return -1;
	n->pts[n->npts++] = *p;
	return 0;
}

static struct pending *pend_for(struct mnode *n, uint32_t tid, int create)
{
	for (uint32_t i = 0; i < n->npend; i++)
		if (n->pend[i].tid == tid)
			return &n->pend[i];
	if (!create)
		return NULL;
	if (ilog_grow((void **)&n->pend, &n->cappend, n->npend, sizeof(*n->pend), 4))
		return NULL;
	struct pending *p = &n->pend[n->npend++];
	memset(p, 0, sizeof(*p));
	p->tid = tid;
	return p;
}

static int on_cuda_pass1(struct mnode *n, const struct ingero_cuda_event *e, int64_t end_wall)
{
	if (is_collective(e->op)) {
		struct pending *pd = pend_for(n, e->tid, 1);
		if (!pd)
			return -1;
		if (pd->used && add_point(n, &pd->p))
			return -1;
		struct cproc *pr = NULL;
		for (uint32_t i = 0; i < n->nprocs && !pr; i++)
			if (n->procs[i].pid == e->pid)
				pr = &n->procs[i];
		if (!pr) {
			if (ilog_grow((void **)&n->procs, &n->capprocs, n->nprocs, sizeof(*n->procs), 4))
				return -1;
			pr = &n->procs[n->nprocs++];
			memset(pr, 0, sizeof(*pr));
			pr->pid = e->pid;
		}
		uint32_t c = 0;
		while (c < pr->ncomm && pr->handle[c] != e->handle)
			c++;
		if (c == pr->ncomm) {
			if (c == MAX_COMMS) {
				pd->used = 0;
				return 0; /* too many communicators: not tracked */
			}
			pr->handle[pr->ncomm++] = e->handle;
		}
		pd->used = 1;
		pd->stream = e->stream;
		pd->p = (struct cpoint){ .comm = c, .seq = pr->seq[c]++,
					 .sig = (uint32_t)ilog_mix64(e->op * 0x100000001ull ^ e->bytes),
					 .pid = e->pid, .coll_end = end_wall };
		return 0;
	}
	if (is_sync(e->op)) {
		struct pending *pd = pend_for(n, e->tid, 0);
		if (!pd || !pd->used)
			return 0;
		/* a stream sync on another stream does not wait for the collective */
		if ((e->op == ILOG_OP_cudaStreamSynchronize || e->op == ILOG_OP_cuStreamSynchronize) &&
		    e->stream != pd->stream)
			return 0;
		pd->p.sync_end = end_wall;
		pd->used = 0;
		return add_point(n, &pd->p);
	}
	return 0;
}

int ilog_merge_scan_input(struct ilog_merge *m, uint32_t in, char *err, size_t errlen)
{
	struct minput *mi = &m->in[in];
	int fd = open(mi->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ilog_merge_errf(err, errlen, "%s: %s", mi->path, strerror(errno));
	char e2[256];
	struct ilog_reader *r = ilog_reader_open(fd, e2, sizeof(e2));
	if (!r) {
		close(fd);
		return ilog_merge_errf(err, errlen, "%s: %s", mi->path, e2);
	}
	struct mnode **by = NULL;     /* reader node index -> node; zeroed beyond nby */
	uint32_t nby = 0, capby = 0;
	const struct ilog_record *rec;
	int k, rc = 0;
	/* damaged ranges are skipped: the merge proper reports them */
	while ((k = ilog_reader_next(r, &rec)) > 0 || k == ILOG_READ_DAMAGE) {
		if (k < 0)
			continue;
		if (m->o.progress && !(++m->scanned & ((1u << 20) - 1)))
			m->o.progress(m->o.progress_arg, 1, m->scanned);
		if (rec->kind == ILOG_K_HEADER) {
			const struct ilog_header *h = &rec->u.header;
			if (m->nnodes && h->version_major != m->nodes[0]->hdr.version_major) {
				rc = ilog_merge_errf(err, errlen, "%s: format version %u.%u cannot be merged with %s's %u.%u",
						     mi->path, h->version_major, h->version_minor,
						     ilog_merge_in_name(m->in[m->nodes[0]->pub.input].path),
						     m->nodes[0]->hdr.version_major, m->nodes[0]->hdr.version_minor);
				break;
			}
			struct mnode *n = ilog_merge_resolve(m, in, h, err, errlen);
			if (!n) {
				rc = -1;
				break;
			}
			n->pub.scanned = 1;
			if (rec->node >= nby) {
				if (ilog_reserve0((void **)&by, &capby, rec->node + 1, sizeof(*by), 4)) {
					rc = ilog_merge_errf(err, errlen, "out of memory");
					break;
				}
				nby = rec->node + 1;
			}
			if (by[rec->node] == n) {
				/* a re-emitted header is an anchor too */
				uint64_t step = (uint64_t)llabs((int64_t)((h->real_ns - h->mono_ns) -
									  (n->a_real - n->a_mono)));
				if (step > n->pub.anchor_step_ns)
					n->pub.anchor_step_ns = step;
				n->a_mono = h->mono_ns;
				n->a_real = h->real_ns;
				n->pub.anchors++;
			}
			by[rec->node] = n;
			continue;
		}
		struct mnode *n = rec->node < nby ? by[rec->node] : NULL;
		if (!n)
			continue;
		if (rec->kind == ILOG_K_CLOCK) {
			const struct ilog_clock *c = &rec->u.clock;
			uint64_t step = (uint64_t)llabs((int64_t)((c->real_ns - c->mono_ns) -
								  (n->a_real - n->a_mono)));
			if (step > n->pub.anchor_step_ns)
				n->pub.anchor_step_ns = step;
			n->a_mono = c->mono_ns;
			n->a_real = c->real_ns;
			n->pub.anchors++;
		} else if (rec->kind == ILOG_K_CUDA) {
			const struct ingero_cuda_event *e = &rec->u.cuda;
			if (is_collective(e->op) || is_sync(e->op)) {
				int64_t end = (int64_t)ilog_reader_wall(r, rec->node, e->ts_ns + e->dur_ns);
				if (on_cuda_pass1(n, e, end)) {
					rc = ilog_merge_errf(err, errlen, "out of memory");
					break;
				}
			}
		}
	}
	if (!rc && k < 0)
		rc = ilog_merge_errf(err, errlen, "%s: %s", mi->path, ilog_reader_error(r));
	if (!rc && !nby)
		rc = ilog_merge_errf(err, errlen, "%s: no header (not an ingero log)", mi->path);
	for (uint32_t i = 0; i < m->nnodes && !rc; i++) {
		struct mnode *n = m->nodes[i];
		for (uint32_t j = 0; j < n->npend; j++)
			if (n->pend[j].used && add_point(n, &n->pend[j].p))
				rc = ilog_merge_errf(err, errlen, "out of memory");
		n->npend = 0;
	}
	free(by);
	ilog_reader_close(r);
	close(fd);
	return rc;
}

/* ---- estimation ---- */

static int cmp_point(const void *a, const void *b)
{
	const struct cpoint *x = a, *y = b;
	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	if (x->coll_end != y->coll_end)
		return x->coll_end < y->coll_end ? -1 : 1;
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* Sort by (comm, seq) and keep one point per key: the middle one of the
 * node's processes (ranks on one node finish a collective together). */
static void collapse(struct mnode *n)
{
	if (!n->npts)
		return;
	qsort(n->pts, n->npts, sizeof(*n->pts), cmp_point);
	uint32_t k = 0;
	for (uint32_t i = 0; i < n->npts;) {
		uint32_t j = i;
		while (j < n->npts && n->pts[j].comm == n->pts[i].comm && n->pts[j].seq == n->pts[i].seq)
			j++;
		n->pts[k++] = n->pts[i + (j - i) / 2];
		i = j;
	}
	n->npts = k;
}

static int64_t median_sorted(const int64_t *v, size_t n)
{
	return n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

/*
 * Offset of n against the reference from matched points: the median of the
 * differences (robust to stragglers and mismatched pairs), its spread as
 * 1.4826 x MAD (sigma for a normal distribution) and its standard error as
 * 1.2533 x sigma / sqrt(count) (the median's efficiency).  A pair counts
 * when op and size agree; sync completions are used when both sides have
 * one, the collectives' own returns otherwise.
 */
static int estimate(struct mnode *n, const struct mnode *ref)
{
	uint32_t stride = n->stride > ref->stride ? n->stride : ref->stride;
	size_t cap = n->npts < ref->npts ? n->npts : ref->npts;
	if (!cap)
		return 0;
	int64_t *d = malloc(cap * sizeof(*d));
	if (!d)
		return -1;
	size_t nd = 0;
	for (uint32_t i = 0, j = 0; i < n->npts && j < ref->npts;) {
		const struct cpoint *a = &n->pts[i], *b = &ref->pts[j];
		if (a->comm != b->comm || a->seq != b->seq) {
			if (a->comm < b->comm || (a->comm == b->comm && a->seq < b->seq))
				i++;
			else
				j++;
			continue;
		}
		if (a->seq % stride == 0 && a->sig == b->sig)
			d[nd++] = a->sync_end && b->sync_end ? a->sync_end - b->sync_end
							     : a->coll_end - b->coll_end;
		i++;
		j++;
	}
	if (nd) {
		qsort(d, nd, sizeof(*d), cmp_i64);
		int64_t med = median_sorted(d, nd);
		for (size_t i = 0; i < nd; i++)
			d[i] = d[i] > med ? d[i] - med : med - d[i];
		qsort(d, nd, sizeof(*d), cmp_i64);
		double sigma = 1.4826 * (double)median_sorted(d, nd);
		n->pub.method = ILOG_SKEW_COLLECTIVES;
		n->pub.offset_ns = med;
		n->pub.spread_ns = sigma;
		n->pub.uncertainty_ns = 1.2533 * sigma / sqrt((double)nd);
		n->pub.matched = nd;
	}
	free(d);
	return 0;
}

int ilog_merge_estimate_all(struct ilog_merge *m, char *err, size_t errlen)
{
	struct mnode *ref = m->nodes[0];
	if (m->o.reference) {
		ref = NULL;
		for (uint32_t i = 0; i < m->nnodes && !ref; i++)
			if (!strcmp(m->nodes[i]->pub.name, m->o.reference))
				ref = m->nodes[i];
		if (!ref)
			return ilog_merge_errf(err, errlen, "--reference: no node named '%s'",
					       m->o.reference);
	}
	for (uint32_t i = 0; i < m->nnodes; i++) {
		collapse(m->nodes[i]);
		m->nodes[i]->pub.points = m->nodes[i]->npts;
		m->st.collectives += m->nodes[i]->npts;
	}
	for (uint32_t i = 0; i < m->nnodes; i++) {
		struct mnode *n = m->nodes[i];
		n->pub.method = ILOG_SKEW_ANCHORS;
		n->pub.uncertainty_ns = -1;
		if (n == ref) {
			n->pub.method = ILOG_SKEW_REFERENCE;
			n->pub.uncertainty_ns = 0;
		} else if (n->boot_id[0] && !strcmp(n->boot_id, ref->boot_id)) {
			/* one CLOCK_MONOTONIC: the anchors give the offset outright */
			n->pub.method = ILOG_SKEW_SAME_BOOT;
			n->pub.offset_ns = (int64_t)(n->hdr.real_ns - n->hdr.mono_ns) -
					   (int64_t)(ref->hdr.real_ns - ref->hdr.mono_ns);
			n->pub.uncertainty_ns = (double)(n->pub.anchor_step_ns > ref->pub.anchor_step_ns
							 ? n->pub.anchor_step_ns : ref->pub.anchor_step_ns);
		} else if (estimate(n, ref)) {
			return ilog_merge_errf(err, errlen, "out of memory");
		}
		if (n->pub.method == ILOG_SKEW_ANCHORS && n->npts && ref->npts)
			ilog_merge_warnf(m, "node %s: no collective matched the reference %s (op or size differ): "
					    "offset unknown", n->pub.name, ref->pub.name);
		uint64_t a = (uint64_t)llabs(n->pub.offset_ns);
		n->pub.warn = m->o.skew_threshold_ns && a > m->o.skew_threshold_ns;
		n->pub.applied = m->o.align && n->pub.method != ILOG_SKEW_ANCHORS &&
				 n->pub.method != ILOG_SKEW_REFERENCE && n->pub.offset_ns;
	}
	for (uint32_t i = 0; i < m->nnodes; i++) {
		struct mnode *n = m->nodes[i];
		free(n->pts);
		n->pts = NULL;
		free(n->procs);
		n->procs = NULL;
		free(n->pend);
		n->pend = NULL;
	}
	return 0;
}
