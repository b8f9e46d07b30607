// SPDX-License-Identifier: MIT
/*
 * The merge engine (docs/merge.md): its nodes, opening the inputs, and
 * pass 2; clock-skew estimation (pass 1 and the offsets) is in skew.c.
 *
 * Pass 1 (regular files only, skew.c) reads each input once to learn its
 * nodes (headers), its clock anchors and its NCCL collective sync points,
 * from which the offsets between node clocks are estimated.  Pass 2 is the
 * k-way merge proper: one pending record per input, the input with the
 * smallest wall time goes next, so memory is one frame per input plus the
 * id maps.  Each input's own order is kept (a stack record stays before the
 * events that use it).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ingero/merge.h"
#include "ingero/schema.h"
#include "ingero/hash.h"
#include "ingero/hmap.h"
#include "merge_int.h"

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

/* ---- nodes ---- */

void ilog_merge_warnf(struct ilog_merge *m, const char *fmt, ...)
{
	size_t len = m->warn.len;
	va_list ap;
	va_start(ap, fmt);
	int rc = ilog_buf_vprintf(&m->warn, fmt, ap);
	va_end(ap);
	/* the line and a NUL for ilog_merge_warnings, or nothing */
	if (rc || ilog_buf_put(&m->warn, "\n", 2)) {
		m->warn.len = len;
		if (m->warn.p)
			m->warn.p[len] = 0;
	} else {
		m->warn.len--;
	}
}

int ilog_merge_errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

const char *ilog_merge_in_name(const char *path)
{
	return strcmp(path, "-") ? path : "(stdin)";
}

/*
 * The node a header belongs to: the same (name, session, boot) in the same
 * input is the same node; in another input it is the same recording given
 * twice (an error).  A different recording under a name already taken is
 * renamed NAME~2, NAME~3... and a warning says so.
 */
struct mnode *ilog_merge_resolve(struct ilog_merge *m, uint32_t in, const struct ilog_header *h,
				 char *err, size_t errlen)
{
	struct minput *mi = &m->in[in];
	char name[256], hname[256], boot[128];
	ilog_str_copy(hname, sizeof(hname), h->node);
	ilog_str_copy(boot, sizeof(boot), h->boot_id);
	if (mi->node && (!hname[0] || m->o.force_node || !strcmp(hname, mi->node))) {
		snprintf(name, sizeof(name), "%s", mi->node);
	} else if (mi->node) {
		ilog_merge_errf(err, errlen, "%s: header names the node '%s', not '%s' (--force-node renames it)",
				ilog_merge_in_name(mi->path), hname, mi->node);
		return NULL;
	} else if (!hname[0]) {
		ilog_merge_errf(err, errlen, "%s: header has no node identity (name it with --node NAME)",
				ilog_merge_in_name(mi->path));
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
		/* another file of the same recording: a later (or earlier) one
		 * of --rotate's series, unless it starts where one given
		 * already does */
		int twice = 0, known = 0;
		for (uint32_t j = 0; j < n->nstarts; j++) {
			known |= n->starts[j].input == in;
			twice |= n->starts[j].input != in && n->starts[j].mono == h->mono_ns;
		}
		if (!twice && h->mono_ns != n->hdr.mono_ns) {
			if (!known && !ilog_grow((void **)&n->starts, &n->capstarts, n->nstarts,
						 sizeof(*n->starts), 8))
				n->starts[n->nstarts++] = (struct mstart){ h->mono_ns, in };
			return n;
		}
		ilog_merge_errf(err, errlen, "%s: node '%s' session 0x%llx is also in %s (the same recording given twice)",
				ilog_merge_in_name(mi->path), hname,
				(unsigned long long)h->session_id,
				ilog_merge_in_name(m->in[n->pub.input].path));
		return NULL;
	}
	if (mi->node) {
		/* --node names a single-node input */
		for (uint32_t i = 0; i < m->nnodes; i++)
			if (m->nodes[i]->pub.input == in) {
				ilog_merge_errf(err, errlen, "%s: --node names one node, but the input holds several",
						ilog_merge_in_name(mi->path));
				return NULL;
			}
	}
	struct mnode *n = NULL;
	if (ilog_grow((void **)&m->nodes, &m->capnodes, m->nnodes, sizeof(*m->nodes), 4) ||
	    !(n = calloc(1, sizeof(*n)))) {
		ilog_merge_errf(err, errlen, "out of memory");
		return NULL;
	}
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
		ilog_str_copy(n->hstr[i], sizeof(n->hstr[i]), *s[i]);
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
				ilog_merge_warnf(m, "%s: a different recording of node '%s' (session 0x%llx) is renamed '%s'",
						 ilog_merge_in_name(m->in[n->pub.input].path),
						 n->pub.name, (unsigned long long)n->pub.session_id, nm);
			snprintf(n->pub.name, sizeof(n->pub.name), "%s", nm);
		}
		n->hdr.node = ilog_str_c(n->pub.name);
		n->name_hash = hash_bytes(0x1f0a5eedull, n->pub.name, strlen(n->pub.name));
	}
}

/* ---- open ---- */

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

static int open_pass2(struct ilog_merge *m, uint32_t in, char *err, size_t errlen)
{
	struct minput *mi = &m->in[in];
	if (!mi->is_file) {
		mi->fd = STDIN_FILENO;
	} else if ((mi->fd = open(mi->path, O_RDONLY | O_CLOEXEC)) < 0) {
		return ilog_merge_errf(err, errlen, "%s: %s", mi->path, strerror(errno));
	}
	char e2[256];
	if (!(mi->r = ilog_reader_open(mi->fd, e2, sizeof(e2))))
		return ilog_merge_errf(err, errlen, "%s: %s", ilog_merge_in_name(mi->path), e2);
	return 0;
}

struct ilog_merge *ilog_merge_open(const struct ilog_merge_input *in, uint32_t nin,
				   const struct ilog_merge_opts *opts, char *err, size_t errlen)
{
	struct ilog_merge *m = calloc(1, sizeof(*m));
	if (!m || !(m->in = calloc(nin ? nin : 1, sizeof(*m->in)))) {
		free(m);
		ilog_merge_errf(err, errlen, "out of memory");
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
				ilog_merge_errf(err, errlen, "%s: %s", mi->path, strerror(errno));
				goto fail;
			}
			mi->is_file = S_ISREG(sb.st_mode);
		} else if (++nstdin > 1) {
			ilog_merge_errf(err, errlen, "stdin given more than once");
			goto fail;
		}
		if (!mi->is_file && strcmp(mi->path, "-")) {
			ilog_merge_errf(err, errlen, "%s: not a regular file (pipe it to stdin)",
					mi->path);
			goto fail;
		}
		if (mi->is_file && ilog_merge_scan_input(m, i, err, errlen))
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
			ilog_merge_errf(err, errlen, "(stdin): %s", k < 0 ? ilog_reader_error(mi->r) : "empty input");
			goto fail;
		}
		mi->rec = rec;
		if (m->nnodes && rec->u.header.version_major != m->nodes[0]->hdr.version_major) {
			ilog_merge_errf(err, errlen, "(stdin): format version %u.%u cannot be merged with %u.%u",
					rec->u.header.version_major, rec->u.header.version_minor,
					m->nodes[0]->hdr.version_major, m->nodes[0]->hdr.version_minor);
			goto fail;
		}
		if (!ilog_merge_resolve(m, i, &rec->u.header, err, errlen))
			goto fail;
	}
	if (!m->nnodes) {
		ilog_merge_errf(err, errlen, "no input");
		goto fail;
	}
	qsort(m->nodes, m->nnodes, sizeof(*m->nodes), cmp_node);
	for (uint32_t i = 0; i < m->nnodes; i++) {
		m->nodes[i]->out = i;
		m->nodes[i]->upfront = 1;
	}
	rename_dups(m, 0);
	if (ilog_merge_estimate_all(m, err, errlen))
		goto fail;
	return m;
fail:
	ilog_merge_free(m);
	return NULL;
}

const struct ilog_merge_node *ilog_merge_nodes(const struct ilog_merge *m, uint32_t *n)
{
	struct ilog_merge *mm = (struct ilog_merge *)m;
	if (ilog_reserve((void **)&mm->pub, &mm->cappub, m->nnodes ? m->nnodes : 1, sizeof(*mm->pub), 4)) {
		*n = 0;
		return NULL;
	}
	struct ilog_merge_node *p = mm->pub;
	for (uint32_t i = 0; i < m->nnodes; i++)
		p[i] = m->nodes[i]->pub;
	*n = m->nnodes;
	return p;
}

const char *ilog_merge_warnings(const struct ilog_merge *m)
{
	return m->warn.p ? m->warn.p : "";
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
		free(n->starts);
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
	ilog_buf_free(&m->warn);
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
		return ilog_merge_errf(m->err, m->errlen, "write: %s", ilog_writer_error(m->w));
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
	struct mnode *n = ilog_merge_resolve(m, in, &rec->u.header, m->err, m->errlen);
	if (!n)
		return NULL;
	if (m->nnodes != before) {
		n->pub.method = ILOG_SKEW_ANCHORS;
		rename_dups(m, before);
	}
	if (rec->node >= mi->nbynode) {
		if (ilog_reserve0((void **)&mi->bynode, &mi->capbynode, rec->node + 1,
				  sizeof(*mi->bynode), 4)) {
			ilog_merge_errf(m->err, m->errlen, "out of memory");
			return NULL;
		}
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
	int k;
	while ((k = ilog_reader_next(mi->r, &rec)) == ILOG_READ_DAMAGE) {
		m->st.damaged++;
		if (m->o.damage) {
			char line[1024];
			snprintf(line, sizeof(line), "%s: %s", ilog_merge_in_name(mi->path),
				 ilog_reader_error(mi->r));
			m->o.damage(m->o.damage_arg, line);
		}
	}
	if (k <= 0) {
		mi->done = 1;
		mi->rec = NULL;
		if (k < 0)
			return ilog_merge_errf(m->err, m->errlen, "%s: %s",
					       ilog_merge_in_name(mi->path), ilog_reader_error(mi->r));
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
			return ilog_merge_errf(m->err, m->errlen, "out of memory");
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
			return ilog_merge_errf(m->err, m->errlen, "out of memory");
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
			return ilog_merge_errf(m->err, m->errlen, "out of memory");
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
			return ilog_merge_errf(m->err, m->errlen, "write: %s",
					       ilog_writer_error(m->w));
		m->st.records_out++;
		return 0;
	}
	case ILOG_K_INFLIGHT: /* its stacks are the node's, as a cuda record's */
		rec = *in;
		rec.u.inflight.stack_id = remap(m, n, &n->stack_map, rec.u.inflight.stack_id, 0x57ac);
		rec.u.inflight.pystack_id = remap(m, n, &n->pystack_map, rec.u.inflight.pystack_id,
						  0x9957ac);
		return put(m, &rec);
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

int ilog_merge_node_json(struct ilog_buf *b, uint32_t i, const struct ilog_merge_node *p)
{
	int bad = ilog_buf_printf(b, "{\"node_index\":%u,\"node\":", i) ||
		  ilog_json_str(b, p->name, strlen(p->name)) ||
		  ilog_buf_printf(b, ",\"rank\":%lld,\"input\":%u,\"method\":\"%s\",\"offset_ns\":%lld,",
				  (long long)p->rank, p->input, ilog_skew_method_name(p->method),
				  (long long)p->offset_ns);
	if (p->uncertainty_ns >= 0)
		bad = bad || ilog_buf_printf(b, "\"uncertainty_ns\":%.0f,", p->uncertainty_ns);
	else
		bad = bad || ilog_buf_printf(b, "\"uncertainty_ns\":null,");
	return bad || ilog_buf_printf(b, "\"matched\":%llu,\"applied\":%s}",
				      (unsigned long long)p->matched, p->applied ? "true" : "false") ? -1 : 0;
}

/* The provenance record: who merged what, and each node's clock offset. */
static int put_provenance(struct ilog_merge *m)
{
	struct ilog_buf a = { 0 };
	const char *args = m->o.args ? m->o.args : "";
	int bad = ilog_buf_put(&a, "{\"command\":", 11) || ilog_json_str(&a, args, strlen(args)) ||
		  ilog_buf_printf(&a, ",\"aligned\":%s,\"inputs\":[", m->o.align ? "true" : "false");
	for (uint32_t i = 0; i < m->nin; i++) {
		const char *name = ilog_merge_in_name(m->in[i].path);
		bad = bad || (i && ilog_buf_put(&a, ",", 1)) || ilog_json_str(&a, name, strlen(name));
	}
	bad = bad || ilog_buf_put(&a, "],\"nodes\":[", 11);
	for (uint32_t i = 0; i < m->nnodes; i++)
		bad = bad || (i && ilog_buf_put(&a, ",", 1)) ||
		      ilog_merge_node_json(&a, i, &m->nodes[i]->pub);
	bad = bad || ilog_buf_put(&a, "]}", 3); /* with its NUL */
	if (bad) {
		ilog_buf_free(&a);
		return ilog_merge_errf(m->err, m->errlen, "out of memory");
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
		return ilog_merge_errf(err, errlen, "%s", e2);
	/* SPEC §5.16: one header per node, node_index = position */
	struct mnode *n0 = m->nodes[0];
	struct ilog_header h0 = n0->hdr;
	h0.node_index = 0;
	h0.real_ns -= (uint64_t)offset_of(n0);
	if (ilog_writer_begin(m->w, &h0))
		return ilog_merge_errf(err, errlen, "write: %s", ilog_writer_error(m->w));
	m->st.records_out += ILOG_K__COUNT;
	for (uint32_t i = 1; i < m->nnodes; i++)
		if (put_header(m, m->nodes[i], &m->nodes[i]->hdr))
			return -1;
	if (put_provenance(m))
		return -1;
	if (!(m->heap = malloc((m->nin ? m->nin : 1) * sizeof(*m->heap))))
		return ilog_merge_errf(err, errlen, "out of memory");
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
		rc = ilog_merge_errf(err, errlen, "write: %s", e2);
	m->w = NULL;
	return rc;
}
