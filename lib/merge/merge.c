// SPDX-License-Identifier: MIT
/*
 * The merge engine (docs/merge.md).
 *
 * Pass 1 (regular files only) reads each input once to learn its nodes
 * (headers), its clock anchors and its NCCL collective sync points.  The
 * offsets between node clocks are then estimated from the collectives: the
 * n-th collective on a communicator completes at nearly the same true time
 * on every rank, so the difference of its completion times, as each node's
 * wall clock reports them, is the difference of the clocks.  Pass 2 is the
 * k-way merge proper: one pending record per input, the input with the
 * smallest wall time goes next, so memory is one frame per input plus the
 * id maps.  Each input's own order is kept (a stack record stays before the
 * events that use it).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ingero/merge.h"
#include "ingero/schema.h"
#include "ingero/hash.h"
#include "ingero/hmap.h"

#define MAX_POINTS (1u << 16) /* collective points kept per node (thinned beyond) */
#define MAX_COMMS 64          /* communicators tracked per process */

/* ---- small helpers ---- */

/* 64-bit hashing for namespaced ids: a splitmix64 finalizer over words. */
static uint64_t hash_add(uint64_t h, uint64_t v)
{
	return ilog_mix64(h ^ ilog_mix64(v + ILOG_GOLDEN64));
}

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t w;
	h = hash_add(h, n);
	for (; n >= 8; n -= 8, b += 8) {
		memcpy(&w, b, 8);
		h = hash_add(h, w);
	}
	w = 0;
	memcpy(&w, b, n);
	return hash_add(h, w);
}

static void copy_str(char *dst, size_t cap, struct ilog_str s)
{
	size_t n = s.n < cap - 1 ? s.n : cap - 1;
	memcpy(dst, s.p, n);
	dst[n] = 0;
}

/* ---- nodes ---- */

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

struct mnode {
	struct ilog_merge_node pub;
	uint32_t out;              /* output node_index */
	char boot_id[128];
	struct ilog_header hdr;    /* first header; strings point into hstr */
	char hstr[6][256];
	int upfront;               /* its first header is written before the records */
	int first_seen;            /* pass 2 has met its first header */
	/* pass 1 */
	uint64_t a_mono, a_real;
	struct cproc *procs;
	uint32_t nprocs;
	struct pending *pend;
	uint32_t npend;
	struct cpoint *pts;
	uint32_t npts, stride;
	/* pass 2 */
	uint64_t name_hash;
	struct ilog_hmap stack_map;   /* old stack id -> new id */
	struct ilog_hmap pystack_map;
	struct ilog_hmap emitted;     /* new stack/pystack/pycode ids already written */
};

struct minput {
	const char *path;
	const char *node;          /* --node */
	int is_file;
	int fd;
	struct ilog_reader *r;     /* pass 2 */
	struct mnode **bynode;     /* reader node index -> node */
	uint32_t nbynode;
	const struct ilog_record *rec; /* pending record, NULL when done */
	struct mnode *cur;         /* node of the pending record */
	int64_t key, last_key;
	int done;
};

struct ilog_merge {
	struct ilog_merge_opts o;
	struct minput *in;
	uint32_t nin;
	struct mnode **nodes;      /* output order */
	uint32_t nnodes;
	struct ilog_merge_node *pub; /* copy for ilog_merge_nodes */
	char *warn;
	size_t warnlen;
	struct ilog_merge_stats st;
	uint64_t scanned;          /* records read by pass 1 */
	uint32_t *heap;
	uint32_t nheap;
	struct ilog_writer *w;
	uint32_t cur_out;          /* node context of the output stream */
	uint8_t schema_done[256];  /* unknown-kind schemas passed through */
	char *err;
	size_t errlen;
};

const char *ilog_skew_method_name(int method)
{
	static const char *const n[] = { "reference", "same-boot", "collectives", "anchors" };
	return method >= 0 && method <= ILOG_SKEW_ANCHORS ? n[method] : "?";
}

static void warnf(struct ilog_merge *m, const char *fmt, ...)
{
	char line[768];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	char *p = realloc(m->warn, m->warnlen + (size_t)n + 2);
	if (!p)
		return;
	m->warn = p;
	memcpy(p + m->warnlen, line, (size_t)n);
	m->warnlen += (size_t)n;
	p[m->warnlen++] = '\n';
	p[m->warnlen] = 0;
}

static int errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static const char *in_name(const char *path)
{
	return strcmp(path, "-") ? path : "(stdin)";
}

/*
 * The node a header belongs to: the same (name, session, boot) in the same
 * input is the same node; in another input it is the same recording given
 * twice (an error).  A different recording under a name already taken is
 * renamed NAME~2, NAME~3... and a warning says so.
 */
static struct mnode *resolve(struct ilog_merge *m, uint32_t in, const struct ilog_header *h,
			     char *err, size_t errlen)
{
	struct minput *mi = &m->in[in];
	char name[256], hname[256], boot[128];
	copy_str(hname, sizeof(hname), h->node);
	copy_str(boot, sizeof(boot), h->boot_id);
	if (mi->node && (!hname[0] || m->o.force_node || !strcmp(hname, mi->node))) {
		snprintf(name, sizeof(name), "%s", mi->node);
	} else if (mi->node) {
		errf(err, errlen, "%s: header names the node '%s', not '%s' (--force-node renames it)",
		     in_name(mi->path), hname, mi->node);
		return NULL;
	} else if (!hname[0]) {
		errf(err, errlen, "%s: header has no node identity (name it with --node NAME)",
		     in_name(mi->path));
		return NULL;
	} else {
		snprintf(name, sizeof(name), "%s", hname);
	}
	for (uint32_t i = 0; i < m->nnodes; i++) {
		struct mnode *n = m->nodes[i];
		if (strcmp(n->pub.orig_name, hname) || n->pub.session_id != h->session_id ||
		    strcmp(n->boot_id, boot))
			continue;
		if (n->pub.input == in)
			return n;
		errf(err, errlen, "%s: node '%s' session 0x%llx is also in %s (the same recording given twice)",
		     in_name(mi->path), hname, (unsigned long long)h->session_id,
		     in_name(m->in[n->pub.input].path));
		return NULL;
	}
	if (mi->node) {
		/* --node names a single-node input */
		for (uint32_t i = 0; i < m->nnodes; i++)
			if (m->nodes[i]->pub.input == in) {
				errf(err, errlen, "%s: --node names one node, but the input holds several",
				     in_name(mi->path));
				return NULL;
			}
	}
	struct mnode **nn = realloc(m->nodes, (m->nnodes + 1) * sizeof(*nn));
	struct mnode *n = calloc(1, sizeof(*n));
	if (!nn || !n) {
		free(n);
		if (nn)
			m->nodes = nn;
		errf(err, errlen, "out of memory");
		return NULL;
	}
	m->nodes = nn;
	snprintf(n->pub.name, sizeof(n->pub.name), "%s", name);
	snprintf(n->pub.orig_name, sizeof(n->pub.orig_name), "%s", hname);
	snprintf(n->boot_id, sizeof(n->boot_id), "%s", boot);
	n->pub.rank = h->rank;
	n->pub.session_id = h->session_id;
	n->pub.input = in;
	n->pub.uncertainty_ns = -1;
	n->stride = 1;
	n->hdr = *h;
	struct ilog_str *s[6] = { &n->hdr.node, &n->hdr.boot_id, &n->hdr.host, &n->hdr.recorder,
				  &n->hdr.kernel, &n->hdr.driver };
	for (int i = 0; i < 6; i++) {
		copy_str(n->hstr[i], sizeof(n->hstr[i]), *s[i]);
		*s[i] = ilog_str_c(n->hstr[i]);
	}
	n->hdr.node = ilog_str_c(n->pub.name);
	n->hdr.magic = ILOG_STR(ILOG_MAGIC);
	n->a_mono = h->mono_ns;
	n->a_real = h->real_ns;
	n->pub.anchors = 1;
	n->out = m->nnodes;
	m->nodes[m->nnodes++] = n;
	return n;
}

/* Give later nodes with a taken name a numbered one (after sorting). */
static void rename_dups(struct ilog_merge *m, uint32_t from)
{
	for (uint32_t i = from; i < m->nnodes; i++) {
		struct mnode *n = m->nodes[i];
		for (int k = 2;; k++) {
			int taken = 0;
			for (uint32_t j = 0; j < i && !taken; j++)
				taken = !strcmp(m->nodes[j]->pub.name, n->pub.name);
			if (!taken)
				break;
			char nm[256];
			snprintf(nm, sizeof(nm), "%.240s~%d", n->pub.orig_name[0] ? n->pub.orig_name
										 : n->pub.name, k);
			if (k == 2 || strcmp(nm, n->pub.name))
				warnf(m, "%s: a different recording of node '%s' (session 0x%llx) is renamed '%s'",
				      in_name(m->in[n->pub.input].path), n->pub.name,
				      (unsigned long long)n->pub.session_id, nm);
			snprintf(n->pub.name, sizeof(n->pub.name), "%s", nm);
		}
		n->hdr.node = ilog_str_c(n->pub.name);
		n->name_hash = hash_bytes(0x1f0a5eedull, n->pub.name, strlen(n->pub.name));
	}
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
	struct pending *p = realloc(n->pend, (n->npend + 1) * sizeof(*p));
	if (!p)
		return NULL;
	n->pend = p;
	p = &n->pend[n->npend++];
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
			pr = realloc(n->procs, (n->nprocs + 1) * sizeof(*pr));
			if (!pr)
				return -1;
			n->procs = pr;
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

static int scan_input(struct ilog_merge *m, uint32_t in, char *err, size_t errlen)
{
	struct minput *mi = &m->in[in];
	int fd = open(mi->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errf(err, errlen, "%s: %s", mi->path, strerror(errno));
	char e2[256];
	struct ilog_reader *r = ilog_reader_open(fd, e2, sizeof(e2));
	if (!r) {
		close(fd);
		return errf(err, errlen, "%s: %s", mi->path, e2);
	}
	struct mnode **by = NULL;
	uint32_t nby = 0;
	const struct ilog_record *rec;
	int k, rc = 0;
	while ((k = ilog_reader_next(r, &rec)) > 0) {
		if (m->o.progress && !(++m->scanned & ((1u << 20) - 1)))
			m->o.progress(m->o.progress_arg, 1, m->scanned);
		if (rec->kind == ILOG_K_HEADER) {
			const struct ilog_header *h = &rec->u.header;
			if (m->nnodes && h->version_major != m->nodes[0]->hdr.version_major) {
				rc = errf(err, errlen, "%s: format version %u.%u cannot be merged with %s's %u.%u",
					  mi->path, h->version_major, h->version_minor,
					  in_name(m->in[m->nodes[0]->pub.input].path),
					  m->nodes[0]->hdr.version_major, m->nodes[0]->hdr.version_minor);
				break;
			}
			struct mnode *n = resolve(m, in, h, err, errlen);
			if (!n) {
				rc = -1;
				break;
			}
			n->pub.scanned = 1;
			if (rec->node >= nby) {
				struct mnode **b = realloc(by, (rec->node + 1) * sizeof(*b));
				if (!b) {
					rc = errf(err, errlen, "out of memory");
					break;
				}
				memset(b + nby, 0, (rec->node + 1 - nby) * sizeof(*b));
				by = b;
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
					rc = errf(err, errlen, "out of memory");
					break;
				}
			}
		}
	}
	if (!rc && k < 0)
		rc = errf(err, errlen, "%s: %s", mi->path, ilog_reader_error(r));
	if (!rc && !nby)
		rc = errf(err, errlen, "%s: no header (not an ingero log)", mi->path);
	for (uint32_t i = 0; i < m->nnodes && !rc; i++) {
		struct mnode *n = m->nodes[i];
		for (uint32_t j = 0; j < n->npend; j++)
			if (n->pend[j].used && add_point(n, &n->pend[j].p))
				rc = errf(err, errlen, "out of memory");
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

static int cmp_node(const void *a, const void *b)
{
	const struct mnode *x = *(struct mnode *const *)a, *y = *(struct mnode *const *)b;
	/* ranked nodes first, by rank */
	int xr = x->pub.rank >= 0, yr = y->pub.rank >= 0;
	if (xr != yr)
		return xr ? -1 : 1;
	if (xr && x->pub.rank != y->pub.rank)
		return x->pub.rank < y->pub.rank ? -1 : 1;
	int c = strcmp(x->pub.name, y->pub.name);
	if (c)
		return c;
	if (x->pub.session_id != y->pub.session_id)
		return x->pub.session_id < y->pub.session_id ? -1 : 1;
	return x->pub.input < y->pub.input ? -1 : x->pub.input > y->pub.input;
}

static int estimate_all(struct ilog_merge *m, char *err, size_t errlen)
{
	struct mnode *ref = m->nodes[0];
	if (m->o.reference) {
		ref = NULL;
		for (uint32_t i = 0; i < m->nnodes && !ref; i++)
			if (!strcmp(m->nodes[i]->pub.name, m->o.reference))
				ref = m->nodes[i];
		if (!ref)
			return errf(err, errlen, "--reference: no node named '%s'", m->o.reference);
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
			return errf(err, errlen, "out of memory");
		}
		if (n->pub.method == ILOG_SKEW_ANCHORS && n->npts && ref->npts)
			warnf(m, "node %s: no collective matched the reference %s (op or size differ): "
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

/* ---- open ---- */

static int open_pass2(struct ilog_merge *m, uint32_t in, char *err, size_t errlen)
{
	struct minput *mi = &m->in[in];
	if (!mi->is_file) {
		mi->fd = STDIN_FILENO;
	} else if ((mi->fd = open(mi->path, O_RDONLY | O_CLOEXEC)) < 0) {
		return errf(err, errlen, "%s: %s", mi->path, strerror(errno));
	}
	char e2[256];
	if (!(mi->r = ilog_reader_open(mi->fd, e2, sizeof(e2))))
		return errf(err, errlen, "%s: %s", in_name(mi->path), e2);
	return 0;
}

struct ilog_merge *ilog_merge_open(const struct ilog_merge_input *in, uint32_t nin,
				   const struct ilog_merge_opts *opts, char *err, size_t errlen)
{
	struct ilog_merge *m = calloc(1, sizeof(*m));
	if (!m || !(m->in = calloc(nin ? nin : 1, sizeof(*m->in)))) {
		free(m);
		errf(err, errlen, "out of memory");
		return NULL;
	}
	m->o = *opts;
	m->nin = nin;
	int nstdin = 0;
	for (uint32_t i = 0; i < nin; i++) {
		struct minput *mi = &m->in[i];
		struct stat sb;
		mi->path = in[i].path;
		mi->node = in[i].node;
		mi->fd = -1;
		if (strcmp(mi->path, "-")) {
			if (stat(mi->path, &sb)) {
				errf(err, errlen, "%s: %s", mi->path, strerror(errno));
				goto fail;
			}
			mi->is_file = S_ISREG(sb.st_mode);
		} else if (++nstdin > 1) {
			errf(err, errlen, "stdin given more than once");
			goto fail;
		}
		if (!mi->is_file && strcmp(mi->path, "-")) {
			errf(err, errlen, "%s: not a regular file (pipe it to stdin)", mi->path);
			goto fail;
		}
		if (mi->is_file && scan_input(m, i, err, errlen))
			goto fail;
	}
	/* stdin is read once: its first header names its node */
	for (uint32_t i = 0; i < nin; i++) {
		struct minput *mi = &m->in[i];
		if (open_pass2(m, i, err, errlen))
			goto fail;
		if (mi->is_file)
			continue;
		const struct ilog_record *rec;
		int k = ilog_reader_next(mi->r, &rec);
		if (k <= 0) {
			errf(err, errlen, "(stdin): %s", k < 0 ? ilog_reader_error(mi->r) : "empty input");
			goto fail;
		}
		mi->rec = rec;
		if (m->nnodes && rec->u.header.version_major != m->nodes[0]->hdr.version_major) {
			errf(err, errlen, "(stdin): format version %u.%u cannot be merged with %u.%u",
			     rec->u.header.version_major, rec->u.header.version_minor,
			     m->nodes[0]->hdr.version_major, m->nodes[0]->hdr.version_minor);
			goto fail;
		}
		if (!resolve(m, i, &rec->u.header, err, errlen))
			goto fail;
	}
	if (!m->nnodes) {
		errf(err, errlen, "no input");
		goto fail;
	}
	qsort(m->nodes, m->nnodes, sizeof(*m->nodes), cmp_node);
	for (uint32_t i = 0; i < m->nnodes; i++) {
		m->nodes[i]->out = i;
		m->nodes[i]->upfront = 1;
	}
	rename_dups(m, 0);
	if (estimate_all(m, err, errlen))
		goto fail;
	return m;
fail:
	ilog_merge_free(m);
	return NULL;
}

const struct ilog_merge_node *ilog_merge_nodes(const struct ilog_merge *m, uint32_t *n)
{
	struct ilog_merge *mm = (struct ilog_merge *)m;
	struct ilog_merge_node *p = realloc(mm->pub, (m->nnodes ? m->nnodes : 1) * sizeof(*p));
	if (!p) {
		*n = 0;
		return NULL;
	}
	mm->pub = p;
	for (uint32_t i = 0; i < m->nnodes; i++)
		p[i] = m->nodes[i]->pub;
	*n = m->nnodes;
	return p;
}

const char *ilog_merge_warnings(const struct ilog_merge *m)
{
	return m->warn ? m->warn : "";
}

void ilog_merge_stats(const struct ilog_merge *m, struct ilog_merge_stats *st)
{
	*st = m->st;
}

void ilog_merge_free(struct ilog_merge *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; i < m->nin; i++) {
		struct minput *mi = &m->in[i];
		ilog_reader_close(mi->r);
		if (mi->fd > STDIN_FILENO)
			close(mi->fd);
		free(mi->bynode);
	}
	for (uint32_t i = 0; i < m->nnodes; i++) {
		struct mnode *n = m->nodes[i];
		free(n->pts);
		free(n->procs);
		free(n->pend);
		ilog_hmap_free(&n->stack_map);
		ilog_hmap_free(&n->pystack_map);
		ilog_hmap_free(&n->emitted);
		free(n);
	}
	if (m->w)
		ilog_writer_close(m->w, NULL, 0);
	free(m->nodes);
	free(m->pub);
	free(m->in);
	free(m->heap);
	free(m->warn);
	free(m);
}

/* ---- pass 2 ---- */

static int64_t offset_of(const struct mnode *n)
{
	return n->pub.applied ? n->pub.offset_ns : 0;
}

static int put(struct ilog_merge *m, const struct ilog_record *rec)
{
	if (ilog_writer_put(m->w, rec))
		return errf(m->err, m->errlen, "write: %s", ilog_writer_error(m->w));
	m->st.records_out++;
	return 0;
}

static int switch_node(struct ilog_merge *m, const struct mnode *n)
{
	if (m->cur_out == n->out)
		return 0;
	struct ilog_record rec = { .kind = ILOG_K_NODE };
	rec.u.node.node_index = n->out;
	m->cur_out = n->out;
	return put(m, &rec);
}

static int put_header(struct ilog_merge *m, struct mnode *n, const struct ilog_header *h)
{
	struct ilog_record rec = { .kind = ILOG_K_HEADER };
	rec.u.header = *h;
	rec.u.header.node = ilog_str_c(n->pub.name);
	rec.u.header.node_index = n->out;
	rec.u.header.real_ns = h->real_ns - (uint64_t)offset_of(n);
	m->cur_out = n->out;
	return put(m, &rec);
}

/* Bind a header of input mi to its node (a node unseen by pass 1 is added
 * now and its header written in stream). */
static struct mnode *bind_header(struct ilog_merge *m, uint32_t in, const struct ilog_record *rec)
{
	struct minput *mi = &m->in[in];
	uint32_t before = m->nnodes;
	struct mnode *n = resolve(m, in, &rec->u.header, m->err, m->errlen);
	if (!n)
		return NULL;
	if (m->nnodes != before) {
		n->pub.method = ILOG_SKEW_ANCHORS;
		rename_dups(m, before);
	}
	if (rec->node >= mi->nbynode) {
		struct mnode **b = realloc(mi->bynode, (rec->node + 1) * sizeof(*b));
		if (!b) {
			errf(m->err, m->errlen, "out of memory");
			return NULL;
		}
		memset(b + mi->nbynode, 0, (rec->node + 1 - mi->nbynode) * sizeof(*b));
		mi->bynode = b;
		mi->nbynode = rec->node + 1;
	}
	mi->bynode[rec->node] = n;
	return n;
}

/* Advance input i to its next record and compute its merge key. */
static int advance(struct ilog_merge *m, uint32_t i)
{
	struct minput *mi = &m->in[i];
	const struct ilog_record *rec;
	int k = ilog_reader_next(mi->r, &rec);
	if (k <= 0) {
		mi->done = 1;
		mi->rec = NULL;
		if (k < 0)
			return errf(m->err, m->errlen, "%s: %s", in_name(mi->path),
				    ilog_reader_error(mi->r));
		return 0;
	}
	if (m->o.progress && !(++m->st.records_in & ((1u << 20) - 1)))
		m->o.progress(m->o.progress_arg, 2, m->st.records_in);
	else if (!m->o.progress)
		m->st.records_in++;
	mi->rec = rec;
	if (rec->kind == ILOG_K_HEADER) {
		if (!(mi->cur = bind_header(m, i, rec)))
			return -1;
	} else {
		mi->cur = rec->node < mi->nbynode ? mi->bynode[rec->node] : NULL;
	}
	uint64_t ts = ilog_record_ts(rec);
	uint64_t wall = ts && mi->cur ? ilog_reader_wall(mi->r, rec->node, ts) : 0;
	mi->key = wall ? (int64_t)wall - offset_of(mi->cur) : mi->last_key;
	mi->last_key = mi->key;
	return 0;
}

static int heap_less(const struct ilog_merge *m, uint32_t a, uint32_t b)
{
	const struct minput *x = &m->in[a], *y = &m->in[b];
	if (x->key != y->key)
		return x->key < y->key;
	uint32_t xo = x->cur ? x->cur->out : 0, yo = y->cur ? y->cur->out : 0;
	if (xo != yo)
		return xo < yo;
	return a < b;
}

static void heap_down(struct ilog_merge *m, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, s = i;
		if (l < m->nheap && heap_less(m, m->heap[l], m->heap[s]))
			s = l;
		if (r < m->nheap && heap_less(m, m->heap[r], m->heap[s]))
			s = r;
		if (s == i)
			return;
		uint32_t t = m->heap[i];
		m->heap[i] = m->heap[s];
		m->heap[s] = t;
		i = s;
	}
}

static uint64_t nonzero(uint64_t h)
{
	return h ? h : 1;
}

/* Content id of a stack, namespaced by node: the same frames of the same
 * process on the same node get the same id, whatever id the input used. */
static uint64_t stack_hash(const struct mnode *n, const struct ingero_stack *s)
{
	uint64_t h = hash_add(n->name_hash, 0x57ac);
	h = hash_add(h, s->pid);
	uint32_t nr = s->nr < INGERO_MAX_STACK ? s->nr : INGERO_MAX_STACK;
	return nonzero(hash_bytes(h, s->ips, nr * sizeof(s->ips[0])));
}

static uint64_t pystack_hash(const struct mnode *n, const struct ingero_pystack *s)
{
	uint64_t h = hash_add(n->name_hash, 0x9957ac);
	h = hash_add(h, s->pid);
	uint32_t nr = s->nr < INGERO_MAX_PYFRAMES ? s->nr : INGERO_MAX_PYFRAMES;
	h = hash_add(h, nr);
	for (uint32_t i = 0; i < nr; i++)
		h = hash_add(hash_add(h, s->frames[i].code), s->frames[i].lasti);
	return nonzero(h);
}

static uint64_t pycode_hash(const struct mnode *n, const struct ilog_pycode *c)
{
	uint64_t h = hash_add(n->name_hash, 0xc0de);
	h = hash_add(hash_add(hash_add(h, c->pid), c->code), c->py_version);
	h = hash_bytes(h, c->filename.p, c->filename.n);
	h = hash_bytes(h, c->qualname.p, c->qualname.n);
	h = hash_add(h, c->firstlineno);
	return nonzero(hash_bytes(h, c->linetable.p, c->linetable.n));
}

/* New id for a reference: the mapped one, or (no stack record seen yet) a
 * namespaced hash of the old id so distinct nodes still never collide. */
static uint64_t remap(struct ilog_merge *m, struct mnode *n, struct ilog_hmap *map, uint64_t old,
		      uint64_t salt)
{
	if (!old)
		return 0;
	uint64_t *v = ilog_hmap_get(map, old, 0);
	if (v)
		return *v;
	m->st.unresolved_refs++;
	return nonzero(hash_add(hash_add(n->name_hash, salt), old));
}

/* 1 if the id was written before (and is now marked), 0 if new, -1 oom. */
static int seen_id(struct mnode *n, uint64_t id)
{
	uint64_t *v = ilog_hmap_put(&n->emitted, id, 0);
	if (!v)
		return -1;
	if (*v)
		return 1;
	*v = 1;
	return 0;
}

static int emit(struct ilog_merge *m, struct minput *mi)
{
	const struct ilog_record *in = mi->rec;
	struct mnode *n = mi->cur;
	struct ilog_record rec;
	int s;
	switch (in->kind) {
	case ILOG_K_HEADER:
		if (!n->first_seen && n->upfront) {
			n->first_seen = 1;
			return 0; /* written before the records */
		}
		n->first_seen = 1;
		return put_header(m, n, &in->u.header);
	case ILOG_K_NODE:
		return 0; /* the reader's node context; ours is written as needed */
	case ILOG_K_SCHEMA:
		/* known kinds are described by our own writer's schema records */
		if (ilog_kind_desc(in->u.schema.kind))
			return 0;
		if (in->u.schema.kind < 256) {
			if (m->schema_done[in->u.schema.kind])
				return 0;
			m->schema_done[in->u.schema.kind] = 1;
		}
		return put(m, in);
	case ILOG_K_PROVENANCE:
		return put(m, in);
	}
	if (!n)
		return 0; /* no header for this node context: nothing to attach it to */
	if (switch_node(m, n))
		return -1;
	switch (in->kind) {
	case ILOG_K_CLOCK:
		rec = *in;
		rec.u.clock.real_ns -= (uint64_t)offset_of(n);
		return put(m, &rec);
	case ILOG_K_STACK: {
		uint64_t id = stack_hash(n, &in->u.stack);
		uint64_t *v = ilog_hmap_put(&n->stack_map, in->u.stack.id, 0);
		if (!v || (s = seen_id(n, id)) < 0)
			return errf(m->err, m->errlen, "out of memory");
		*v = id;
		if (s) {
			m->st.stacks_dedup++;
			return 0;
		}
		rec.kind = ILOG_K_STACK;
		rec.u.stack = in->u.stack;
		rec.u.stack.id = id;
		return put(m, &rec);
	}
	case ILOG_K_PYSTACK: {
		uint64_t id = pystack_hash(n, &in->u.pystack);
		uint64_t *v = ilog_hmap_put(&n->pystack_map, in->u.pystack.id, 0);
		if (!v || (s = seen_id(n, id)) < 0)
			return errf(m->err, m->errlen, "out of memory");
		*v = id;
		if (s) {
			m->st.pystacks_dedup++;
			return 0;
		}
		rec.kind = ILOG_K_PYSTACK;
		rec.u.pystack = in->u.pystack;
		rec.u.pystack.id = id;
		return put(m, &rec);
	}
	case ILOG_K_PYCODE:
		if ((s = seen_id(n, pycode_hash(n, &in->u.pycode))) < 0)
			return errf(m->err, m->errlen, "out of memory");
		if (s) {
			m->st.pycode_dedup++;
			return 0;
		}
		return put(m, in);
	case ILOG_K_CUDA: {
		struct ingero_cuda_event e = in->u.cuda;
		e.stack_id = remap(m, n, &n->stack_map, e.stack_id, 0x57ac);
		e.pystack_id = remap(m, n, &n->pystack_map, e.pystack_id, 0x9957ac);
		if (ilog_writer_put_cuda(m->w, &e))
			return errf(m->err, m->errlen, "write: %s", ilog_writer_error(m->w));
		m->st.records_out++;
		return 0;
	}
	case ILOG_K_CHAIN: {
		/* a content id, like stacks: merging a merged log keeps it */
		const struct ilog_chain *c = &in->u.chain;
		uint64_t h = hash_add(hash_add(n->name_hash, 0xc4a1), c->ts_start);
		h = hash_add(hash_add(hash_add(h, c->ts_end), c->pid), (uint64_t)c->op << 32 | c->severity);
		rec.kind = ILOG_K_CHAIN;
		rec.u.chain = *c;
		rec.u.chain.id = nonzero(hash_bytes(h, c->pattern.p, c->pattern.n));
		return put(m, &rec);
	}
	default:
		return put(m, in); /* unknown kinds go out raw */
	}
}

/* The provenance record: who merged what, and each node's clock offset. */
static int put_provenance(struct ilog_merge *m)
{
	struct ilog_buf a = { 0 };
	const char *args = m->o.args ? m->o.args : "";
	int bad = ilog_buf_put(&a, "{\"command\":", 11) || ilog_json_str(&a, args, strlen(args)) ||
		  ilog_buf_printf(&a, ",\"aligned\":%s,\"inputs\":[", m->o.align ? "true" : "false");
	for (uint32_t i = 0; i < m->nin; i++) {
		const char *name = in_name(m->in[i].path);
		bad = bad || (i && ilog_buf_put(&a, ",", 1)) || ilog_json_str(&a, name, strlen(name));
	}
	bad = bad || ilog_buf_put(&a, "],\"nodes\":[", 11);
	for (uint32_t i = 0; i < m->nnodes; i++) {
		const struct ilog_merge_node *p = &m->nodes[i]->pub;
		bad = bad || ilog_buf_printf(&a, "%s{\"node_index\":%u,\"node\":", i ? "," : "", i) ||
		      ilog_json_str(&a, p->name, strlen(p->name)) ||
		      ilog_buf_printf(&a, ",\"rank\":%lld,\"input\":%u,\"method\":\"%s\",\"offset_ns\":%lld,",
				      (long long)p->rank, p->input, ilog_skew_method_name(p->method),
				      (long long)p->offset_ns);
		if (p->uncertainty_ns >= 0)
			bad = bad || ilog_buf_printf(&a, "\"uncertainty_ns\":%.0f,", p->uncertainty_ns);
		else
			bad = bad || ilog_buf_printf(&a, "\"uncertainty_ns\":null,");
		bad = bad || ilog_buf_printf(&a, "\"matched\":%llu,\"applied\":%s}",
					     (unsigned long long)p->matched, p->applied ? "true" : "false");
	}
	bad = bad || ilog_buf_put(&a, "]}", 3); /* with its NUL */
	if (bad) {
		ilog_buf_free(&a);
		return errf(m->err, m->errlen, "out of memory");
	}
	struct ilog_record rec = { .kind = ILOG_K_PROVENANCE };
	rec.u.provenance = (struct ilog_provenance){
		.real_ns = m->o.now_real_ns, .tool = ILOG_STR("ingero-merge"),
		.version = ILOG_STR(INGERO_VERSION), .args = ilog_str_c(a.p),
	};
	int rc = put(m, &rec);
	ilog_buf_free(&a);
	return rc;
}

int ilog_merge_write(struct ilog_merge *m, int fd, char *err, size_t errlen)
{
	m->err = err;
	m->errlen = errlen;
	err[0] = 0;
	struct ilog_writer_opts wo = { .level = m->o.level, .frame_ms = ILOG_FRAME_MS_OFF };
	char e2[256];
	if (!(m->w = ilog_writer_open(fd, &wo, e2, sizeof(e2))))
		return errf(err, errlen, "%s", e2);
	/* SPEC §5.16: one header per node, node_index = position */
	struct mnode *n0 = m->nodes[0];
	struct ilog_header h0 = n0->hdr;
	h0.node_index = 0;
	h0.real_ns -= (uint64_t)offset_of(n0);
	if (ilog_writer_begin(m->w, &h0))
		return errf(err, errlen, "write: %s", ilog_writer_error(m->w));
	m->st.records_out += ILOG_K__COUNT;
	for (uint32_t i = 1; i < m->nnodes; i++)
		if (put_header(m, m->nodes[i], &m->nodes[i]->hdr))
			return -1;
	if (put_provenance(m))
		return -1;
	if (!(m->heap = malloc((m->nin ? m->nin : 1) * sizeof(*m->heap))))
		return errf(err, errlen, "out of memory");
	for (uint32_t i = 0; i < m->nin; i++) {
		struct minput *mi = &m->in[i];
		if (mi->rec) {
			/* stdin's first header, read by open */
			m->st.records_in++;
			if (!(mi->cur = bind_header(m, i, mi->rec)))
				return -1;
			mi->key = mi->last_key = (int64_t)mi->rec->u.header.real_ns - offset_of(mi->cur);
		} else if (advance(m, i)) {
			return -1;
		}
		if (!mi->done)
			m->heap[m->nheap++] = i;
	}
	for (uint32_t i = m->nheap / 2 + 1; i-- > 0;)
		heap_down(m, i);
	int rc = 0;
	while (m->nheap) {
		uint32_t i = m->heap[0];
		if (emit(m, &m->in[i]) || advance(m, i)) {
			rc = -1;
			break;
		}
		if (m->in[i].done)
			m->heap[0] = m->heap[--m->nheap];
		heap_down(m, 0);
	}
	if (ilog_writer_close(m->w, e2, sizeof(e2)) && !rc)
		rc = errf(err, errlen, "write: %s", e2);
	m->w = NULL;
	return rc;
}
