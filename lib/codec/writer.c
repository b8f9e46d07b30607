// SPDX-License-Identifier: MIT
/*
 * The record writer (SPEC §3, §4).  Records are packed with msgpack-c's
 * packer into one frame buffer; a full or old frame is compressed as one
 * zstd frame (content size and checksum in it) and written with write(2),
 * so a killed writer loses at most the unfinished frame.  The steady
 * state allocates nothing: buffers are sized once and reused.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <msgpack.h>
#include <zstd.h>
#include "ingero/hmap.h"
#include "ingero/io.h"
#include "ingero/schema.h"
#include "ingero/vec.h"

/* SPEC §3.1: one record may not exceed half the frame content limit, so
 * any frame the writer makes stays under the limit readers enforce. */
#define MAX_RECORD (ILOG_MAX_FRAME_CONTENT / 2)

struct ilog_writer {
	int fd;
	struct ilog_writer_opts o;
	ZSTD_CCtx *cctx;
	uint8_t *buf;            /* current frame's msgpack content */
	size_t len, cap;
	uint8_t *zbuf;           /* compressed frame */
	size_t zcap;
	msgpack_packer pk;
	int oom;                 /* a grow failed during the current record */
	uint32_t nrec;           /* records in the current frame */
	uint64_t frame_t0;       /* ms, CLOCK_MONOTONIC_COARSE */
	uint64_t tsbase[ILOG_K__COUNT]; /* SPEC §4.3 delta bases */
	/* SPEC §5.17: named ops already named, key (node, op); the node in force */
	struct ilog_hmap named;
	uint32_t node;
	int failed, werrno;
	char err[256];
	struct ilog_writer_stats st;
	/* opts.context: records a later file needs, in the order first put;
	 * ctxmap (kind << 32 | pid, key) -> index + 1 */
	struct wctx { uint32_t kind; void *u; uint64_t a, b; } *ctx; /* a, b: its ctxmap key */
	uint32_t nctx, capctx;
	struct ilog_hmap ctxmap;
	/* processes gone: pid -> 1 + the prune round (rotations and
	 * opts.prune_ms ticks) in which they were found gone; 0: back (a new
	 * process under the pid) */
	struct ilog_hmap gone;
	uint64_t round, prune_t0;
};

static int ctx_prune(struct ilog_writer *w);

static uint64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static int fail(struct ilog_writer *w, const char *fmt, ...)
{
	va_list ap;
	if (!w->failed) {
		va_start(ap, fmt);
		vsnprintf(w->err, sizeof(w->err), fmt, ap);
		va_end(ap);
	}
	w->failed = 1;
	return -1;
}

static int grow(struct ilog_writer *w, size_t need)
{
	size_t cap = w->cap * 2;
	while (cap < w->len + need)
		cap *= 2;
	uint8_t *b = realloc(w->buf, cap);
	if (!b)
		return -1;
	w->buf = b;
	w->cap = cap;
	size_t zcap = ZSTD_compressBound(cap);
	uint8_t *z = realloc(w->zbuf, zcap);
	if (!z)
		return -1;
	w->zbuf = z;
	w->zcap = zcap;
	return 0;
}

static int pk_write(void *data, const char *p, size_t n)
{
	struct ilog_writer *w = data;
	if (w->len + n > w->cap && grow(w, n)) {
		w->oom = 1;
		return -1;
	}
	uint8_t *d = w->buf + w->len;
	if (n <= 9) { /* msgpack scalars: skip the memcpy call */
		for (size_t i = 0; i < n; i++)
			d[i] = (uint8_t)p[i];
	} else {
		memcpy(d, p, n);
	}
	w->len += n;
	return 0;
}

struct ilog_writer *ilog_writer_open(int fd, const struct ilog_writer_opts *opts,
				     char *err, size_t errlen)
{
	struct ilog_writer *w = calloc(1, sizeof(*w));
	if (!w) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	w->fd = fd;
	if (opts)
		w->o = *opts;
	int tuned = !w->o.level;
	if (tuned)
		w->o.level = 3;
	if (!w->o.frame_records)
		w->o.frame_records = 65536;
	if (!w->o.frame_bytes)
		w->o.frame_bytes = 1u << 20;
	if (w->o.frame_bytes > ILOG_MAX_FRAME_CONTENT / 2)
		w->o.frame_bytes = ILOG_MAX_FRAME_CONTENT / 2;
	if (!w->o.frame_ms)
		w->o.frame_ms = 1000;
	w->cap = w->o.frame_bytes + (64u << 10);
	w->buf = malloc(w->cap);
	w->zcap = ZSTD_compressBound(w->cap);
	w->zbuf = malloc(w->zcap);
	w->cctx = ZSTD_createCCtx();
	if (!w->buf || !w->zbuf || !w->cctx) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, w->o.level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_contentSizeFlag, 1))) {
		snprintf(err, errlen, "invalid zstd level %d", w->o.level);
		goto fail;
	}
	/*
	 * The default (level 0) is zstd's level 3 with a greedy match search
	 * (2 probes, 4-byte minimum match, 2^17-entry tables) instead of its
	 * double-fast one.  Event logs repeat whole records seen far back in
	 * the frame; greedy finds those repeats: on the synth mix 7.8 bytes
	 * per CUDA event instead of 8.4, decoding ~10% faster, compressing at
	 * ~60% of level 3's speed, still 5M+ events/s on one core (bench/codec,
	 * bench/RESULTS.md).  Any zstd decoder reads the result.
	 */
	if (tuned &&
	    (ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_strategy, ZSTD_greedy)) ||
	     ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_hashLog, 17)) ||
	     ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_chainLog, 17)) ||
	     ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_searchLog, 2)) ||
	     ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_minMatch, 4)))) {
		snprintf(err, errlen, "zstd rejects the default compression parameters");
		goto fail;
	}
	msgpack_packer_init(&w->pk, w, pk_write);
	w->frame_t0 = w->prune_t0 = now_ms();
	return w;
fail:
	ZSTD_freeCCtx(w->cctx);
	ilog_hmap_free(&w->named);
	free(w->buf);
	free(w->zbuf);
	free(w);
	return NULL;
}

int ilog_kind_is_def(uint32_t kind)
{
	switch (kind) {
	case ILOG_K_HEADER: case ILOG_K_SCHEMA: case ILOG_K_STACK: case ILOG_K_PYSTACK:
	case ILOG_K_PROCESS: case ILOG_K_MAPPING: case ILOG_K_PYCODE: case ILOG_K_OPNAME:
	case ILOG_K_KERNEL:
		return 1;
	}
	return 0;
}

int ilog_writer_flush(struct ilog_writer *w)
{
	if (w->failed)
		return -1;
	/* definitions first: what the frame refers to is out before it */
	if (w->o.defs && ilog_writer_flush(w->o.defs))
		return fail(w, "%s", ilog_writer_error(w->o.defs));
	if (!w->len)
		return 0;
	size_t z = ZSTD_compress2(w->cctx, w->zbuf, w->zcap, w->buf, w->len);
	if (ZSTD_isError(z))
		return fail(w, "zstd: %s", ZSTD_getErrorName(z));
	if (w->o.out ? w->o.out(w->o.out_ctx, w->zbuf, z) : ilog_write_all(w->fd, w->zbuf, z)) {
		w->werrno = errno;
		return fail(w, "write: %s", strerror(errno));
	}
	w->st.frames++;
	w->st.raw_bytes += w->len;
	w->st.out_bytes += z;
	w->st.file_bytes += z;
	w->len = 0;
	w->nrec = 0;
	memset(w->tsbase, 0, sizeof(w->tsbase));
	w->frame_t0 = now_ms();
	return 0;
}

int ilog_writer_tick(struct ilog_writer *w)
{
	if (w->o.defs && ilog_writer_tick(w->o.defs))
		return fail(w, "%s", ilog_writer_error(w->o.defs));
	if (w->o.context && w->o.prune_ms && !w->failed && now_ms() - w->prune_t0 >= w->o.prune_ms &&
	    ctx_prune(w))
		return -1;
	if (w->len && w->o.frame_ms != ILOG_FRAME_MS_OFF && now_ms() - w->frame_t0 >= w->o.frame_ms)
		return ilog_writer_flush(w);
	return w->failed ? -1 : 0;
}

/* Ends a record: frame policy (SPEC §4.1).  A record dropped here also
 * gives back the delta base it moved (kind's base before it: base0), or
 * the next record of its kind would decode to the wrong time. */
static int end_record(struct ilog_writer *w, size_t start, uint32_t kind, uint64_t base0)
{
	if (w->oom) {
		w->len = start;
		w->oom = 0;
		w->tsbase[kind] = base0;
		return fail(w, "out of memory");
	}
	if (w->len - start > MAX_RECORD) {
		size_t n = w->len - start;
		w->len = start; /* the record is refused; the log stays valid */
		w->tsbase[kind] = base0;
		snprintf(w->err, sizeof(w->err), "record of %zu bytes exceeds the %u MiB limit",
			 n, MAX_RECORD >> 20);
		return -1;
	}
	w->st.records++;
	if (++w->nrec >= w->o.frame_records || w->len >= w->o.frame_bytes)
		return ilog_writer_flush(w);
	if (w->o.frame_ms != ILOG_FRAME_MS_OFF && (w->nrec & 63) == 0)
		return ilog_writer_tick(w);
	return 0;
}

static void pack_str(msgpack_packer *pk, const char *p, size_t n)
{
	msgpack_pack_str(pk, n);
	msgpack_pack_str_body(pk, p, n);
}

static void pack_fields(struct ilog_writer *w, uint32_t kind, const struct ilog_field *f,
			unsigned nf, const uint8_t *base);

static void pack_field(struct ilog_writer *w, uint32_t kind, const struct ilog_field *f,
		       const uint8_t *base)
{
	const uint8_t *p = base + f->off;
	msgpack_packer *pk = &w->pk;
	uint64_t v;
	switch (f->type) {
	case FT_U8: msgpack_pack_uint8(pk, *(const uint8_t *)p); break;
	case FT_U16: msgpack_pack_uint16(pk, *(const uint16_t *)p); break;
	case FT_U32: msgpack_pack_uint32(pk, *(const uint32_t *)p); break;
	case FT_U64: msgpack_pack_uint64(pk, *(const uint64_t *)p); break;
	case FT_S32: msgpack_pack_int32(pk, *(const int32_t *)p); break;
	case FT_S64: msgpack_pack_int64(pk, *(const int64_t *)p); break;
	case FT_F64: msgpack_pack_double(pk, *(const double *)p); break;
	case FT_TS:
		/* SPEC §4.3: D = (ts - previous) mod 2^64, as a signed integer */
		v = *(const uint64_t *)p;
		msgpack_pack_int64(pk, (int64_t)(v - w->tsbase[kind]));
		w->tsbase[kind] = v;
		break;
	case FT_STR: {
		const struct ilog_str *s = (const void *)p;
		pack_str(pk, s->n ? s->p : "", s->n);
		break;
	}
	case FT_BIN: {
		const struct ilog_bin *b = (const void *)p;
		msgpack_pack_bin(pk, b->n);
		msgpack_pack_bin_body(pk, b->n ? b->p : (const uint8_t *)"", b->n);
		break;
	}
	case FT_CHARS:
		pack_str(pk, (const char *)p, strnlen((const char *)p, INGERO_COMM_LEN));
		break;
	case FT_ARR: {
		uint32_t n = *(const uint32_t *)(base + f->cnt_off);
		if (n > f->max)
			n = f->max;
		msgpack_pack_array(pk, n);
		for (uint32_t i = 0; i < n; i++) {
			const uint8_t *e = p + (size_t)i * f->esize;
			if (f->nsub == 1) {
				pack_field(w, kind, f->sub, e);
			} else {
				msgpack_pack_array(pk, f->nsub);
				pack_fields(w, kind, f->sub, f->nsub, e);
			}
		}
		break;
	}
	}
}

static void pack_fields(struct ilog_writer *w, uint32_t kind, const struct ilog_field *f,
			unsigned nf, const uint8_t *base)
{
	for (unsigned i = 0; i < nf; i++)
		pack_field(w, kind, &f[i], base);
}

static int named_already(const struct ilog_writer *w, uint32_t op)
{
	const uint64_t *v = ilog_hmap_get(&w->named, w->node, op);
	return v && *v;
}

static void forget_names(struct ilog_writer *w, uint32_t node)
{
	for (size_t i = 0; i < w->named.cap; i++)
		if (w->named.s[i].a == node && w->named.s[i].v)
			w->named.s[i].v = 0;
}

static int name_op(struct ilog_writer *w, uint32_t op);

/* The key a context record is kept under (its newer record replaces it);
 * 0 for kinds that are no context.  Op names are context too: a flight
 * recorder's definitions rewritten from the context (flight.c) must
 * still name the ops of the frames from before. */
static int ctx_key(const struct ilog_writer *w, const struct ilog_record *rec, uint64_t *a,
		   uint64_t *b)
{
	uint64_t k = (uint64_t)rec->kind << 32;
	switch (rec->kind) {
	case ILOG_K_OPNAME: *a = k; *b = (uint64_t)w->node << 32 | rec->u.opname.op; return 1;
	case ILOG_K_PROCESS: *a = k | rec->u.process.pid; *b = 0; return 1;
	case ILOG_K_MAPPING: *a = k | rec->u.mapping.pid; *b = rec->u.mapping.start; return 1;
	case ILOG_K_KERNEL: *a = k | rec->u.kernel.pid; *b = rec->u.kernel.handle; return 1;
	case ILOG_K_STACK: *a = k; *b = rec->u.stack.id; return 1;
	case ILOG_K_PYSTACK: *a = k; *b = rec->u.pystack.id; return 1;
	case ILOG_K_PYCODE: *a = k | rec->u.pycode.pid; *b = rec->u.pycode.code; return 1;
	}
	return 0;
}

/* A deep copy of rec's body (d->size bytes) with its strings and bytes
 * after it, views repointed; NULL out of memory.  Context kinds have
 * strings and bytes only at the top level. */
static void *ctx_copy(const struct ilog_kind_desc *d, const struct ilog_record *rec)
{
	size_t n = d->size;
	for (unsigned i = 0; i < d->nfields; i++)
		if (d->fields[i].type == FT_STR || d->fields[i].type == FT_BIN)
			n += ((const struct ilog_str *)((const uint8_t *)&rec->u + d->fields[i].off))->n;
	uint8_t *u = malloc(n ? n : 1), *q = u + d->size;
	if (!u)
		return NULL;
	memcpy(u, &rec->u, d->size);
	for (unsigned i = 0; i < d->nfields; i++) {
		if (d->fields[i].type != FT_STR && d->fields[i].type != FT_BIN)
			continue;
		struct ilog_str *v = (struct ilog_str *)(u + d->fields[i].off);
		if (v->n)
			memcpy(q, v->p, v->n);
		v->p = (const char *)q;
		q += v->n;
	}
	return u;
}

static int ctx_keep(struct ilog_writer *w, const struct ilog_kind_desc *d,
		    const struct ilog_record *rec)
{
	uint64_t a, b;
	if (rec->kind == ILOG_K_HOST && rec->u.host.type == ILOG_HOST_EXIT) {
		uint64_t *g = ilog_hmap_put(&w->gone, rec->u.host.pid, 0);
		if (!g)
			return fail(w, "out of memory");
		if (!*g)
			*g = 1 + w->round;
	}
	if (!ctx_key(w, rec, &a, &b))
		return 0;
	if (rec->kind == ILOG_K_PROCESS) { /* a process under a pid gone is new */
		uint64_t *g = ilog_hmap_get(&w->gone, rec->u.process.pid, 0);
		if (g)
			*g = 0;
	}
	void *u = ctx_copy(d, rec);
	if (!u)
		return fail(w, "out of memory");
	uint64_t *slot = ilog_hmap_put(&w->ctxmap, a, b);
	if (!slot) {
		free(u);
		return fail(w, "out of memory");
	}
	if (*slot) {
		free(w->ctx[*slot - 1].u);
		w->ctx[*slot - 1].u = u;
		return 0;
	}
	if (ilog_grow((void **)&w->ctx, &w->capctx, w->nctx, sizeof(*w->ctx), 64)) {
		free(u);
		return fail(w, "out of memory");
	}
	w->ctx[w->nctx] = (struct wctx){ rec->kind, u, a, b };
	*slot = ++w->nctx;
	return 0;
}

int ilog_writer_put(struct ilog_writer *w, const struct ilog_record *rec)
{
	if (w->failed)
		return -1;
	if (w->o.defs && ilog_kind_is_def(rec->kind))
		return ilog_writer_put(w->o.defs, rec);
	const struct ilog_kind_desc *d = ilog_kind_desc(rec->kind);
	if (!d) {
		if (rec->raw.p)
			return ilog_writer_put_raw(w, &rec->raw);
		return fail(w, "record kind %u unknown to this writer", rec->kind);
	}
	if (rec->kind == ILOG_K_CUDA)
		return ilog_writer_put_cuda(w, &rec->u.cuda);
	switch (rec->kind) {
	case ILOG_K_OPNAME: /* once per number and node: put_cuda may have named it */
		if (named_already(w, rec->u.opname.op))
			return 0;
		if (ilog_hmap_set(&w->named, w->node, rec->u.opname.op, 1))
			return fail(w, "out of memory");
		break;
	case ILOG_K_HEADER: /* a new section: its named ops are named again */
		w->node = rec->u.header.node_index;
		forget_names(w, w->node);
		break;
	case ILOG_K_NODE:
		w->node = rec->u.node.node_index;
		break;
	case ILOG_K_INFLIGHT: /* a named op is named before its first record of any kind */
		if (rec->u.inflight.op >= ILOG_OP_NAMED_FIRST && name_op(w, rec->u.inflight.op))
			return -1;
		break;
	case ILOG_K_TRIGGER:
		if (rec->u.trigger.op >= ILOG_OP_NAMED_FIRST && name_op(w, rec->u.trigger.op))
			return -1;
		break;
	}
	if (w->o.context && ctx_keep(w, d, rec))
		return -1;
	size_t start = w->len;
	uint64_t base0 = w->tsbase[rec->kind];
	msgpack_pack_array(&w->pk, 1 + d->nfields);
	msgpack_pack_uint32(&w->pk, rec->kind);
	pack_fields(w, rec->kind, d->fields, d->nfields, (const uint8_t *)&rec->u);
	return end_record(w, start, rec->kind, base0);
}

/*
 * A prune round (a rotation, or a tick opts.prune_ms after the last): the
 * context of processes found gone before this round is dropped (those
 * found in it stay until the next, so a rotation writes them once more
 * for records that arrive late); ctxmap and gone are rebuilt from what
 * stays.
 */
static int ctx_prune(struct ilog_writer *w)
{
	uint64_t cur = w->round;
	w->prune_t0 = now_ms();
	for (uint32_t i = 0; w->o.alive && i < w->nctx; i++) {
		if (w->ctx[i].kind != ILOG_K_PROCESS)
			continue;
		uint32_t pid = ((const struct ilog_process *)w->ctx[i].u)->pid;
		uint64_t *g = ilog_hmap_get(&w->gone, pid, 0);
		if ((!g || !*g) && !w->o.alive(w->o.alive_ctx, pid) &&
		    ilog_hmap_set(&w->gone, pid, 0, 1 + cur))
			return fail(w, "out of memory");
	}
	uint32_t k = 0;
	for (uint32_t i = 0; i < w->nctx; i++) {
		uint32_t pid = (uint32_t)w->ctx[i].a;
		uint64_t *g = pid ? ilog_hmap_get(&w->gone, pid, 0) : NULL;
		if (g && *g && *g - 1 < cur)
			free(w->ctx[i].u);
		else
			w->ctx[k++] = w->ctx[i];
	}
	struct ilog_hmap keep = { 0 }, map = { 0 };
	for (size_t i = 0; i < w->gone.cap; i++) {
		const struct ilog_hmap_slot *e = &w->gone.s[i];
		if (!(e->a == ILOG_HMAP_EMPTY && e->b == ILOG_HMAP_EMPTY) && e->v && e->v - 1 >= cur &&
		    ilog_hmap_set(&keep, e->a, 0, e->v))
			goto oom;
	}
	for (uint32_t i = 0; i < k; i++) {
		if (ilog_hmap_set(&map, w->ctx[i].a, w->ctx[i].b, i + 1))
			goto oom;
	}
	w->nctx = k;
	ilog_hmap_free(&w->gone);
	ilog_hmap_free(&w->ctxmap);
	w->gone = keep;
	w->ctxmap = map;
	w->round++;
	return 0;
oom:
	ilog_hmap_free(&keep);
	ilog_hmap_free(&map);
	return fail(w, "out of memory");
}

int ilog_writer_rotate(struct ilog_writer *w, int fd, const struct ilog_header *h)
{
	if (!w->failed)
		ilog_writer_flush(w);
	if (w->failed) { /* the frame that did not go out is lost */
		w->st.dropped += w->nrec;
		w->len = 0;
		w->nrec = 0;
		w->failed = 0;
		w->oom = 0;
		w->err[0] = 0;
	}
	if (ctx_prune(w))
		return -1;
	w->fd = fd;
	w->st.file_bytes = 0;
	memset(w->tsbase, 0, sizeof(w->tsbase));
	w->frame_t0 = now_ms();
	/* the new file names its ops anew: ilog_writer_begin's header
	 * forgets the names of its node */
	if (ilog_writer_begin(w, h))
		return -1;
	int keep = w->o.context;
	w->o.context = 0; /* replayed, not kept again */
	for (uint32_t i = 0; i < w->nctx; i++) {
		struct ilog_record rec = { .kind = w->ctx[i].kind };
		const struct ilog_kind_desc *d = ilog_kind_desc(rec.kind);
		memcpy(&rec.u, w->ctx[i].u, d->size);
		if (ilog_writer_put(w, &rec)) {
			w->o.context = keep;
			return -1;
		}
	}
	w->o.context = keep;
	return ilog_writer_flush(w);
}

int ilog_writer_retry(struct ilog_writer *w)
{
	if (!w->failed)
		return 0;
	if (!w->werrno || w->o.out) /* only a failed write to the fd is written again */
		return -1;
	w->failed = 0;
	w->werrno = 0;
	w->err[0] = 0;
	return ilog_writer_flush(w);
}

int ilog_writer_errno(const struct ilog_writer *w)
{
	return w->failed ? w->werrno : 0;
}

/*
 * The hot path writes msgpack straight into the frame buffer instead of
 * through msgpack-c's per-value write callback (most of the encode time
 * at tens of millions of events per second).  The bytes are exactly what
 * msgpack-c's packer makes, the smallest encoding of each value; the
 * codec unit test compares the two.
 */
static inline uint8_t *enc_be(uint8_t *d, uint8_t tag, uint64_t v, unsigned n)
{
	*d++ = tag;
	for (unsigned i = n; i-- > 0; v >>= 8)
		d[i] = (uint8_t)v;
	return d + n;
}

static inline uint8_t *enc_uint(uint8_t *d, uint64_t v)
{
	if (v < 0x80) {
		*d = (uint8_t)v;
		return d + 1;
	}
	if (v < 0x100)
		return enc_be(d, 0xcc, v, 1);
	if (v < 0x10000)
		return enc_be(d, 0xcd, v, 2);
	if (v < 0x100000000ull)
		return enc_be(d, 0xce, v, 4);
	return enc_be(d, 0xcf, v, 8);
}

static inline uint8_t *enc_int(uint8_t *d, int64_t v)
{
	if (v >= 0)
		return enc_uint(d, (uint64_t)v);
	if (v >= -32) {
		*d = (uint8_t)v;
		return d + 1;
	}
	if (v >= -128)
		return enc_be(d, 0xd0, (uint64_t)v, 1);
	if (v >= -32768)
		return enc_be(d, 0xd1, (uint64_t)v, 2);
	if (v >= INT32_MIN)
		return enc_be(d, 0xd2, (uint64_t)v, 4);
	return enc_be(d, 0xd3, (uint64_t)v, 8);
}

/* SPEC §5.17: before a named op's first record (per node), its name. */
static int name_op(struct ilog_writer *w, uint32_t op)
{
	if (named_already(w, op))
		return 0;
	const char *nm = ilog_op_name(op);
	if (!nm) /* a number its log never named: written as it is */
		return 0;
	struct ilog_record o = { .kind = ILOG_K_OPNAME };
	o.u.opname.op = op;
	o.u.opname.layer = ilog_op_layer(op);
	o.u.opname.name = ilog_str_c(nm);
	return ilog_writer_put(w, &o);
}

int ilog_writer_put_cuda(struct ilog_writer *w, const struct ingero_cuda_event *ev)
{
	if (w->failed)
		return -1;
	if (ev->op >= ILOG_OP_NAMED_FIRST && name_op(w, ev->op))
		return -1;
	/* the cuda table, unrolled from the same X-macro list */
#define X(fld, nm, ty, vw, sql) +1
	enum { NVALS = 1 ILOG_CUDA_FIELDS(X), MAXLEN = 3 + 9 * NVALS };
#undef X
	_Static_assert(NVALS >= 16 && NVALS < 65536, "cuda record is an array16");
	/* args (1.2) only when there are any: SPEC §4.4 lets trailing
	 * defaults go, and decoded ops, the hot ones, have none */
	uint32_t nargs = ev->nargs < ILOG_CUDA_MAX_ARGS ? ev->nargs : ILOG_CUDA_MAX_ARGS;
	size_t start = w->len;
	uint64_t base0 = w->tsbase[ILOG_K_CUDA];
	if (w->cap - w->len < MAXLEN + 1 + 9 * ILOG_CUDA_MAX_ARGS &&
	    grow(w, MAXLEN + 1 + 9 * ILOG_CUDA_MAX_ARGS)) {
		w->oom = 1;
		return end_record(w, start, ILOG_K_CUDA, base0);
	}
	uint8_t *d = w->buf + w->len;
	d = enc_be(d, 0xdc, NVALS + (nargs ? 1 : 0), 2);
	d = enc_uint(d, ILOG_K_CUDA);
#define ENC_FT_U8(v) enc_uint(d, v)
#define ENC_FT_U16(v) enc_uint(d, v)
#define ENC_FT_U32(v) enc_uint(d, v)
#define ENC_FT_U64(v) enc_uint(d, v)
#define ENC_FT_S32(v) enc_int(d, v)
#define ENC_FT_TS(v) enc_int(d, (int64_t)((v) - base0))
#define X(fld, nm, ty, vw, sql) d = ENC_##ty(ev->fld);
	ILOG_CUDA_FIELDS(X)
#undef X
	if (nargs) {
		*d++ = (uint8_t)(0x90 | nargs);
		for (uint32_t i = 0; i < nargs; i++)
			d = enc_uint(d, ev->args[i]);
	}
	w->len = (size_t)(d - w->buf);
	/* SPEC §4.3: the next cuda ts is coded against this call's end */
	w->tsbase[ILOG_K_CUDA] = ev->ts_ns + ev->dur_ns;
	return end_record(w, start, ILOG_K_CUDA, base0);
}

int ilog_writer_put_raw(struct ilog_writer *w, const struct ilog_raw *raw)
{
	if (w->failed)
		return -1;
	size_t start = w->len;
	pk_write(w, (const char *)raw->p, raw->n);
	/* raw bytes move no delta base: slot 0 (no kind) stands in */
	return end_record(w, start, 0, w->tsbase[0]);
}

int ilog_writer_begin(struct ilog_writer *w, const struct ilog_header *h)
{
	struct ilog_record rec = { .kind = ILOG_K_HEADER };
	rec.u.header = *h;
	rec.u.header.magic = ILOG_STR(ILOG_MAGIC);
	rec.u.header.version_major = ILOG_VERSION_MAJOR;
	rec.u.header.version_minor = ILOG_VERSION_MINOR;
	if (ilog_writer_put(w, &rec))
		return -1;
	/* SPEC §5.3: self-description, so old readers can name new kinds */
	for (uint32_t k = 1; k < ILOG_K__COUNT; k++) {
		const struct ilog_kind_desc *d = ilog_kind_desc(k);
		if (!d)
			continue; /* a number not (yet) assigned */
		struct ilog_record s = { .kind = ILOG_K_SCHEMA };
		s.u.schema.kind = k;
		s.u.schema.name = ilog_str_c(d->name);
		s.u.schema.nfields = d->nfields;
		for (unsigned i = 0; i < d->nfields && i < ILOG_MAX_SCHEMA_FIELDS; i++)
			s.u.schema.fields[i] = ilog_str_c(d->fields[i].name);
		if (ilog_writer_put(w, &s))
			return -1;
	}
	/* SPEC §3.1: the header and schemas end their frame, so a filter can
	 * put records after them (symbols for the first stacks) by adding
	 * frames, without rewriting one; and the log is readable from the
	 * start, however the writer ends */
	return ilog_writer_flush(w);
}

const char *ilog_writer_error(const struct ilog_writer *w)
{
	return w->err[0] ? w->err : NULL;
}

void ilog_writer_stats(const struct ilog_writer *w, struct ilog_writer_stats *st)
{
	*st = w->st;
	st->pending = w->nrec;
}

int ilog_writer_close(struct ilog_writer *w, char *err, size_t errlen)
{
	if (!w)
		return 0;
	int rc = ilog_writer_flush(w);
	if (rc && err)
		snprintf(err, errlen, "%s", w->err);
	ZSTD_freeCCtx(w->cctx);
	ilog_hmap_free(&w->named);
	for (uint32_t i = 0; i < w->nctx; i++)
		free(w->ctx[i].u);
	free(w->ctx);
	ilog_hmap_free(&w->ctxmap);
	ilog_hmap_free(&w->gone);
	free(w->buf);
	free(w->zbuf);
	free(w);
	return rc;
}
