// SPDX-License-Identifier: MIT
/*
 * The record codec (lib/codec/writer.c, lib/codec/reader.c, lib/codec/schema.c) against
 * format/SPEC.md: round trips of every kind over edge values, delta-coded
 * timestamps across frame boundaries, forward compatibility (unknown kinds
 * and trailing fields), crash safety (a log cut at every byte of its last
 * frames) and bad input (each gives one clear error, keeps what came
 * before, and never crashes).
 *
 * Records are compared byte for byte over their struct after checking and
 * blanking string/bytes views, so a struct member the kind table forgets
 * to carry shows up as a difference: the expected records are filled by
 * member name here, not by walking the table under test.
 */
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>
#include <msgpack.h>
#include <zstd.h>
#include "ingero/ilog.h"
#include "ingero/schema.h"
#include "test.h"

/* ---- byte buffers and in-memory files ---- */

struct bytes { uint8_t *p; size_t n, cap; };

static void bytes_put(struct bytes *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	if (n)
		memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void bytes_free(struct bytes *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static int mem_fd(const void *p, size_t n)
{
	int fd = memfd_create("ilog-test", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	const uint8_t *q = p;
	while (n) {
		ssize_t k = write(fd, q, n);
		if (k <= 0)
			abort();
		q += k;
		n -= (size_t)k;
	}
	lseek(fd, 0, SEEK_SET);
	return fd;
}

static struct bytes fd_bytes(int fd)
{
	struct bytes b = { 0 };
	uint8_t t[65536];
	ssize_t k;
	lseek(fd, 0, SEEK_SET);
	while ((k = read(fd, t, sizeof(t))) > 0)
		bytes_put(&b, t, (size_t)k);
	return b;
}

/* ---- writing ---- */

struct wlog { int fd; struct ilog_writer *w; };

static struct ilog_writer *wopen(struct wlog *l, const struct ilog_writer_opts *o)
{
	char err[256];
	l->fd = memfd_create("ilog-w", MFD_CLOEXEC);
	l->w = ilog_writer_open(l->fd, o, err, sizeof(err));
	if (!l->w) {
		diag("writer_open: %s", err);
		abort();
	}
	return l->w;
}

static struct bytes wclose(struct wlog *l)
{
	char err[256];
	if (ilog_writer_close(l->w, err, sizeof(err))) {
		diag("writer_close: %s", err);
		abort();
	}
	struct bytes b = fd_bytes(l->fd);
	close(l->fd);
	return b;
}

static void wput(struct ilog_writer *w, const struct ilog_record *rec)
{
	if (ilog_writer_put(w, rec)) {
		diag("writer_put kind %u: %s", rec->kind, ilog_writer_error(w));
		abort();
	}
}

static void wraw(struct ilog_writer *w, const void *p, size_t n)
{
	struct ilog_raw raw = { p, (uint32_t)n };
	if (ilog_writer_put_raw(w, &raw))
		abort();
}

static struct ilog_record test_header(void)
{
	struct ilog_record r;
	memset(&r, 0, sizeof(r));
	r.kind = ILOG_K_HEADER;
	struct ilog_header *h = &r.u.header;
	h->magic = ILOG_STR(ILOG_MAGIC);
	h->version_major = ILOG_VERSION_MAJOR;
	h->version_minor = ILOG_VERSION_MINOR;
	h->node = ILOG_STR("node-t");
	h->boot_id = ILOG_STR("b00t");
	h->host = ILOG_STR("host-t");
	h->recorder = ILOG_STR("codec-test");
	h->kernel = ILOG_STR("6.1.0");
	h->driver = ILOG_STR("");
	h->session_id = 77;
	h->rank = -1;
	h->mono_ns = 1000000000;
	h->boot_ns = 1000000500;
	h->real_ns = 1795000000000000000ull;
	return r;
}

/* ---- reading ---- */

struct rlog { int fd; struct ilog_reader *r; };

static struct ilog_reader *ropen(struct rlog *l, const void *p, size_t n)
{
	char err[256];
	l->fd = mem_fd(p, n);
	l->r = ilog_reader_open(l->fd, err, sizeof(err));
	if (!l->r) {
		diag("reader_open: %s", err);
		abort();
	}
	return l->r;
}

static void rclose(struct rlog *l)
{
	ilog_reader_close(l->r);
	close(l->fd);
}

/* ---- record comparison ---- */

static const char *field_at(const struct ilog_kind_desc *d, size_t off)
{
	const char *name = "(padding)";
	for (unsigned i = 0; i < d->nfields; i++)
		if (d->fields[i].off <= off)
			name = d->fields[i].name;
	return name;
}

/* Check views (content), then point both at NULL so memcmp sees the rest. */
static int blank_views(const struct ilog_field *f, unsigned nf, uint8_t *a, uint8_t *b,
		       char *why, size_t wl)
{
	for (unsigned i = 0; i < nf; i++) {
		uint8_t *pa = a + f[i].off, *pb = b + f[i].off;
		switch (f[i].type) {
		case FT_STR: case FT_BIN: {
			/* struct ilog_str and ilog_bin share a layout */
			struct ilog_bin *x = (void *)pa, *y = (void *)pb;
			if (x->n != y->n || (x->n && memcmp(x->p, y->p, x->n))) {
				snprintf(why, wl, "field %s: %u bytes vs %u bytes or content differs",
					 f[i].name, x->n, y->n);
				return -1;
			}
			x->p = y->p = NULL;
			break;
		}
		case FT_ARR: {
			uint32_t na, nb;
			memcpy(&na, a + f[i].cnt_off, 4);
			memcpy(&nb, b + f[i].cnt_off, 4);
			if (na != nb) {
				snprintf(why, wl, "field %s: %u elements vs %u", f[i].name, na, nb);
				return -1;
			}
			for (uint32_t e = 0; e < na && e < f[i].max; e++)
				if (blank_views(f[i].sub, f[i].nsub, pa + (size_t)e * f[i].esize,
						pb + (size_t)e * f[i].esize, why, wl))
					return -1;
			break;
		}
		}
	}
	return 0;
}

static int rec_same(const struct ilog_record *want, const struct ilog_record *got,
		    char *why, size_t wl)
{
	if (want->kind != got->kind) {
		snprintf(why, wl, "kind %u, want %u", got->kind, want->kind);
		return 0;
	}
	const struct ilog_kind_desc *d = ilog_kind_desc(want->kind);
	if (!d) {
		if (want->raw.n != got->raw.n || memcmp(want->raw.p, got->raw.p, want->raw.n)) {
			snprintf(why, wl, "raw bytes of unknown kind %u differ", want->kind);
			return 0;
		}
		return 1;
	}
	static uint8_t a[sizeof(want->u)], b[sizeof(want->u)];
	memcpy(a, &want->u, d->size);
	memcpy(b, &got->u, d->size);
	if (blank_views(d->fields, d->nfields, a, b, why, wl))
		return 0;
	for (size_t i = 0; i < d->size; i++)
		if (a[i] != b[i]) {
			snprintf(why, wl, "%s: byte %zu (in %s) is 0x%02x, want 0x%02x", d->name, i,
				 field_at(d, i), b[i], a[i]);
			return 0;
		}
	return 1;
}

/* ---- edge values ---- */

/*
 * A variant gives every field of a record a value: integer field number k
 * gets base + k*step (mod 2^64, truncated to the field's width), so that
 * two fields swapped on the wire differ.
 */
struct variant {
	const char *name;
	uint64_t base, step;
	int64_t s64;
	int32_t s32;
	double f[3];
	uint32_t slen;            /* string and bytes length */
	uint32_t arr;             /* array elements (clamped to the kind's max) */
	const char *comm;
};

static const struct variant variants[] = {
	{ "zero", 0, 0, 0, 0, { 0.0, 0.0, 0.0 }, 0, 0, "" },
	{ "max", UINT64_MAX, UINT64_MAX /* -1 */, INT64_MAX, INT32_MAX,
	  { DBL_MAX, -DBL_MAX, INFINITY }, 4096, UINT32_MAX, "123456789012345" },
	{ "min", 1, 1, INT64_MIN, INT32_MIN, { DBL_TRUE_MIN, -0.0, -INFINITY }, 1, 1, "a" },
	{ "typical", 0x7f00deadbeefull, 0x10000193ull, -1234567, -2,
	  { 37.5, 0.1, 1e-300 }, 17, 5, "python3" },
	{ "huge strings", 0x8000000000000000ull, 0x100000001ull, -1, -1,
	  { 1.0, 100.0, -3.25 }, 100000, 3, "backup" },
};
#define NVARIANTS (sizeof(variants) / sizeof(variants[0]))

static uint8_t pattern[4u << 20]; /* string content: noise, every byte value */

static void pattern_init(void)
{
	uint64_t s = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < sizeof(pattern); i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		pattern[i] = (uint8_t)s;
	}
}

static uint64_t val(const struct variant *v, int k) { return v->base + (uint64_t)k * v->step; }
static struct ilog_str vstr(const struct variant *v, int k)
{
	return (struct ilog_str){ (const char *)pattern + k * 7, v->slen };
}
static struct ilog_bin vbin(const struct variant *v, int k)
{
	return (struct ilog_bin){ pattern + k * 11, v->slen };
}
static uint32_t varr(const struct variant *v, uint32_t max) { return v->arr < max ? v->arr : max; }

#define U8 ((uint8_t)val(v, k++))
#define U16 ((uint16_t)val(v, k++))
#define U32 ((uint32_t)val(v, k++))
#define U64 (val(v, k++))
#define S32 (k++, v->s32)
#define S64 (k++, v->s64)
#define F64 (v->f[k++ % 3])
#define STR (vstr(v, k++))
#define BIN (vbin(v, k++))

/* Every member of every kind, by name. */
static void fill(struct ilog_record *rec, uint32_t kind, const struct variant *v)
{
	int k = 0;
	memset(rec, 0, sizeof(*rec));
	rec->kind = kind;
	switch (kind) {
	case ILOG_K_HEADER: {
		struct ilog_header *h = &rec->u.header;
		h->magic = ILOG_STR(ILOG_MAGIC);  /* readers require these two */
		h->version_major = U32 & 1;
		h->version_minor = U32;
		h->node = STR; h->boot_id = STR; h->host = STR; h->recorder = STR;
		h->kernel = STR; h->driver = STR;
		h->session_id = U64; h->rank = S64;
		h->mono_ns = U64; h->boot_ns = U64; h->real_ns = U64;
		h->node_index = U32 & 0xffff;     /* the reader's node limit */
		break;
	}
	case ILOG_K_CLOCK:
		rec->u.clock.mono_ns = U64; rec->u.clock.boot_ns = U64; rec->u.clock.real_ns = U64;
		break;
	case ILOG_K_SCHEMA: {
		struct ilog_schema *s = &rec->u.schema;
		s->kind = U32; s->name = STR;
		s->nfields = varr(v, ILOG_MAX_SCHEMA_FIELDS);
		for (uint32_t i = 0; i < s->nfields; i++)
			s->fields[i] = STR;
		break;
	}
	case ILOG_K_CUDA:
	case ILOG_K_INFLIGHT: { /* one struct: a cuda record's fields (1.4) */
		struct ingero_cuda_event *e = kind == ILOG_K_CUDA ? &rec->u.cuda : &rec->u.inflight;
		e->ts_ns = U64; e->dur_ns = U64; e->pid = U32; e->tid = U32;
		e->op = U16; e->layer = U8; e->flags = U8; e->ret = S32;
		e->stream = U64; e->bytes = U64; e->handle = U64; e->kind = U32;
		e->grid_x = U32; e->grid_y = U32; e->grid_z = U32;
		e->block_x = U32; e->block_y = U32; e->block_z = U32;
		e->stack_id = U64; e->pystack_id = U64;
		break;
	}
	case ILOG_K_HOST: {
		struct ingero_host_event *e = &rec->u.host;
		e->ts_ns = U64; e->dur_ns = U64; e->value = U64; e->pid = U32; e->tid = U32;
		e->other_pid = U32; e->other_tid = U32; e->cpu = U32; e->type = U16;
		strcpy(e->comm, v->comm);
		strcpy(e->other_comm, v->comm + strlen(v->comm) / 2);
		break;
	}
	case ILOG_K_STACK: {
		struct ingero_stack *s = &rec->u.stack;
		s->id = U64; s->pid = U32; s->nr = varr(v, INGERO_MAX_STACK);
		for (uint32_t i = 0; i < s->nr; i++)
			s->ips[i] = U64;
		break;
	}
	case ILOG_K_PYSTACK: {
		struct ingero_pystack *s = &rec->u.pystack;
		s->id = U64; s->pid = U32; s->nr = varr(v, INGERO_MAX_PYFRAMES);
		for (uint32_t i = 0; i < s->nr; i++) {
			s->frames[i].code = U64;
			s->frames[i].lasti = U32;
		}
		break;
	}
	case ILOG_K_PROCESS: {
		struct ilog_process *p = &rec->u.process;
		p->ts_ns = U64; p->pid = U32; p->ppid = U32; p->uid = U32; p->start_ns = U64;
		p->comm = STR; p->exe = STR; p->cmdline = BIN;
		break;
	}
	case ILOG_K_MAPPING: {
		struct ilog_mapping *m = &rec->u.mapping;
		m->ts_ns = U64; m->pid = U32; m->start = U64; m->end = U64; m->offset = U64;
		m->prot = U32; m->path = STR; m->build_id = BIN;
		break;
	}
	case ILOG_K_PYCODE: {
		struct ilog_pycode *c = &rec->u.pycode;
		c->pid = U32; c->code = U64; c->py_version = U32; c->filename = STR;
		c->qualname = STR; c->firstlineno = U32; c->linetable = BIN;
		break;
	}
	case ILOG_K_SNAPSHOT: {
		struct ilog_snapshot *s = &rec->u.snapshot;
		s->ts_ns = U64; s->cpu_pct = F64; s->ncpu = U32; s->mem_total = U64;
		s->mem_avail = U64; s->swap_total = U64; s->swap_free = U64;
		s->load1 = F64; s->load5 = F64; s->load15 = F64;
		s->nprocs = varr(v, ILOG_MAX_SNAPSHOT_PROCS);
		for (uint32_t i = 0; i < s->nprocs; i++) {
			s->procs[i].pid = U32;
			s->procs[i].cpu_pct = F64;
			s->procs[i].rss = U64;
		}
		break;
	}
	case ILOG_K_LOSS:
		rec->u.loss.ts_ns = U64; rec->u.loss.source = STR;
		rec->u.loss.lost = U64; rec->u.loss.seen = U64;
		break;
	case ILOG_K_SYMBOL: {
		struct ilog_symbol *s = &rec->u.symbol;
		s->pid = U32; s->ip = U64; s->build_id = BIN; s->module = STR; s->module_off = U64;
		s->function = STR; s->sym_off = U64; s->file = STR; s->line = U32;
		s->inline_depth = U32;
		break;
	}
	case ILOG_K_CHAIN: {
		struct ilog_chain *c = &rec->u.chain;
		c->id = U64; c->ts_start = U64; c->ts_end = U64; c->severity = U32;
		c->pattern = STR; c->pid = U32; c->op = U16; c->score = F64; c->title = STR;
		c->root_cause = STR; c->fix = STR; c->evidence = STR;
		break;
	}
	case ILOG_K_PROVENANCE:
		rec->u.provenance.real_ns = U64; rec->u.provenance.tool = STR;
		rec->u.provenance.version = STR; rec->u.provenance.args = STR;
		break;
	case ILOG_K_NODE:
		rec->u.node.node_index = U32 & 0xffff;
		break;
	case ILOG_K_KERNEL:
		rec->u.kernel.pid = U32; rec->u.kernel.handle = U64; rec->u.kernel.name = STR;
		break;
	case ILOG_K_BLKIO: {
		struct ilog_blkio *b = &rec->u.blkio;
		b->ts_ns = U64; b->dur_ns = U64; b->major = U32; b->minor = U32; b->disk = STR;
		b->pid = U32; b->nprocs = U32; b->cgroup_id = U64; strcpy(b->comm, v->comm);
		b->ios = U64; b->bytes = U64; b->read_ios = U64; b->read_bytes = U64;
		b->lat_sum_ns = U64; b->lat_max_ns = U64;
		b->nhist = varr(v, INGERO_BLK_HBUCKETS);
		for (uint32_t i = 0; i < b->nhist; i++)
			b->hist[i] = U64;
		break;
	}
	case ILOG_K_RETRANS: {
		struct ilog_retrans *t = &rec->u.retrans;
		t->ts_ns = U64; t->dur_ns = U64; t->pid = U32; t->cgroup_id = U64;
		t->family = U8; t->saddr = BIN; t->daddr = BIN; t->sport = U16; t->dport = U16;
		t->count = U64; t->state = U8; t->flows = U32;
		strcpy(t->comm, v->comm);
		break;
	}
	case ILOG_K_SOCKIO: {
		struct ilog_sockio *o = &rec->u.sockio;
		o->ts_ns = U64; o->dur_ns = U64; o->pid = U32; o->cgroup_id = U64;
		o->tx_bytes = U64; o->rx_bytes = U64; o->tx_calls = U64; o->rx_calls = U64;
		o->others = U32;
		strcpy(o->comm, v->comm);
		break;
	}
	case ILOG_K_TRIGGER: {
		struct ilog_trigger *t = &rec->u.trigger;
		t->ts_ns = U64; t->reason = STR; t->pid = U32; t->tid = U32; t->op = U16 & 0xff;
		t->value_ns = U64; t->baseline_ns = U64; t->before_ns = U64; t->after_ns = U64;
		t->seq = U32;
		break;
	}
	default:
		abort();
	}
}

/* Write head + recs with opts, read back, compare in order. */
static void round_trip(struct check *ck, const char *what, const struct ilog_writer_opts *o,
		       const struct ilog_record *recs, size_t n)
{
	struct wlog wl;
	struct ilog_writer *w = wopen(&wl, o);
	struct ilog_record head = test_header();
	wput(w, &head);
	for (size_t i = 0; i < n; i++)
		wput(w, &recs[i]);
	struct bytes log = wclose(&wl);
	struct rlog rl;
	struct ilog_reader *r = ropen(&rl, log.p, log.n);
	const struct ilog_record *got;
	char why[256];
	int rc = ilog_reader_next(r, &got);
	if (rc != 1 || !rec_same(&head, got, why, sizeof(why)))
		check_fail(ck, "%s: header did not read back: %s", what,
			   rc == 1 ? why : ilog_reader_error(r));
	for (size_t i = 0; i < n; i++) {
		rc = ilog_reader_next(r, &got);
		if (rc != 1) {
			check_fail(ck, "%s: record %zu: rc %d: %s", what, i, rc,
				   rc < 0 ? ilog_reader_error(r) : "early end");
			break;
		}
		if (!rec_same(&recs[i], got, why, sizeof(why)))
			check_fail(ck, "%s: record %zu: %s", what, i, why);
	}
	if ((rc = ilog_reader_next(r, &got)) != 0)
		check_fail(ck, "%s: expected a clean end, rc %d %s", what, rc,
			   rc < 0 ? ilog_reader_error(r) : "");
	rclose(&rl);
	bytes_free(&log);
}

static void test_round_trip(void)
{
	static struct ilog_record recs[ILOG_K__COUNT * NVARIANTS];
	size_t n = 0;
	struct check ck;
	for (uint32_t kind = 1; kind < ILOG_K__COUNT; kind++) {
		if (kind == ILOG_K_OPNAME || !ilog_kind_desc(kind))
			continue; /* renumbered by the reader: test_named_ops; unassigned */
		check_begin(&ck);
		for (size_t vi = 0; vi < NVARIANTS; vi++) {
			fill(&recs[n], kind, &variants[vi]);
			round_trip(&ck, variants[vi].name, NULL, &recs[n], 1);
			n++;
		}
		check_end(&ck, "round trip: %s records, values zero/max/min/typical/huge strings",
			  ilog_kind_name(kind));
	}
	/* All of them in one log, under frame policies that cut between and
	 * around them (delta bases reset at every frame, SPEC §4.3). */
	static const struct { const char *name; struct ilog_writer_opts o; } pol[] = {
		{ "default options", { 0 } },
		{ "frame_records=1", { .frame_records = 1 } },
		{ "frame_records=2 level=1", { .frame_records = 2, .level = 1 } },
		{ "frame_records=3 level=-5", { .frame_records = 3, .level = -5 } },
		{ "frame_bytes=4096 level=19", { .frame_bytes = 4096, .level = 19 } },
	};
	for (size_t p = 0; p < sizeof(pol) / sizeof(pol[0]); p++) {
		check_begin(&ck);
		round_trip(&ck, pol[p].name, &pol[p].o, recs, n);
		check_end(&ck, "round trip: all %zu edge records in one log, %s", n, pol[p].name);
	}
}

/* ---- timestamps ---- */


/* Random jumps both ways, wrap-around, three delta-coded kinds interleaved. */
static void test_ts_deltas(void)
{
	enum { N = 3000 };
	static struct ilog_record recs[N];
	uint64_t ts = 5;
	for (int i = 0; i < N; i++) {
		struct ilog_record *r = &recs[i];
		memset(r, 0, sizeof(*r));
		switch (t_rnd() % 8) {
		case 0: ts = t_rnd(); break;                 /* anywhere */
		case 1: ts -= t_rnd() % 100000; break;       /* backwards */
		case 2: ts = UINT64_MAX - t_rnd() % 3; break; /* at the top */
		case 3: ts = t_rnd() % 3; break;             /* at the bottom */
		default: ts += t_rnd() % 5000; break;        /* a tight loop */
		}
		uint32_t pick = (uint32_t)(t_rnd() % 4);
		r->kind = pick < 2 ? ILOG_K_CUDA : pick == 2 ? ILOG_K_HOST : ILOG_K_PROCESS;
		if (r->kind == ILOG_K_CUDA) {
			r->u.cuda.ts_ns = ts;
			/* the next cuda delta is against ts + dur, which may wrap */
			r->u.cuda.dur_ns = t_rnd() % 3 ? t_rnd() % 100000 : t_rnd();
			r->u.cuda.op = ILOG_OP_cudaLaunchKernel;
		} else if (r->kind == ILOG_K_HOST) {
			r->u.host.ts_ns = ts;
			r->u.host.type = ILOG_HOST_SWITCH;
		} else {
			r->u.process.ts_ns = ts;
			r->u.process.pid = (uint32_t)i;
		}
	}
	static const uint32_t fr[] = { 1, 2, 3, 7, 64, 65536 };
	for (size_t i = 0; i < sizeof(fr) / sizeof(fr[0]); i++) {
		struct check ck;
		struct ilog_writer_opts o = { .frame_records = fr[i] };
		check_begin(&ck);
		round_trip(&ck, "ts", &o, recs, N);
		check_end(&ck, "timestamps: %d random cuda/host/process ts (wrapping, backwards) with frame_records=%u",
			  N, fr[i]);
	}
}

/* ---- the wire layout of a cuda event, hot path vs generic packer ---- */

struct mp { msgpack_sbuffer sb; msgpack_packer pk; };
static void mp_begin(struct mp *m)
{
	msgpack_sbuffer_init(&m->sb);
	msgpack_packer_init(&m->pk, &m->sb, msgpack_sbuffer_write);
}
static void mp_end(struct mp *m) { msgpack_sbuffer_destroy(&m->sb); }

/* The SPEC §5.4 field order, packed by hand with msgpack-c. */
static void pack_cuda_by_spec(msgpack_packer *pk, const struct ingero_cuda_event *e, uint64_t *base)
{
	msgpack_pack_array(pk, 21);
	msgpack_pack_uint32(pk, ILOG_K_CUDA);
	msgpack_pack_int64(pk, (int64_t)(e->ts_ns - *base));
	msgpack_pack_uint64(pk, e->dur_ns);
	msgpack_pack_uint32(pk, e->pid);
	msgpack_pack_uint32(pk, e->tid);
	msgpack_pack_uint8(pk, e->layer);
	msgpack_pack_uint16(pk, e->op);
	msgpack_pack_int32(pk, e->ret);
	msgpack_pack_uint64(pk, e->stream);
	msgpack_pack_uint64(pk, e->bytes);
	msgpack_pack_uint64(pk, e->handle);
	msgpack_pack_uint32(pk, e->kind);
	msgpack_pack_uint32(pk, e->grid_x);
	msgpack_pack_uint32(pk, e->grid_y);
	msgpack_pack_uint32(pk, e->grid_z);
	msgpack_pack_uint32(pk, e->block_x);
	msgpack_pack_uint32(pk, e->block_y);
	msgpack_pack_uint32(pk, e->block_z);
	msgpack_pack_uint8(pk, e->flags);
	msgpack_pack_uint64(pk, e->stack_id);
	msgpack_pack_uint64(pk, e->pystack_id);
	*base = e->ts_ns + e->dur_ns;
}

static struct bytes decompress_all(const struct bytes *log)
{
	struct bytes out = { 0 };
	const uint8_t *p = log->p;
	size_t left = log->n;
	while (left) {
		size_t cs = ZSTD_findFrameCompressedSize(p, left);
		unsigned long long sz = ZSTD_getFrameContentSize(p, left);
		if (ZSTD_isError(cs) || sz == ZSTD_CONTENTSIZE_ERROR || sz == ZSTD_CONTENTSIZE_UNKNOWN)
			abort();
		uint8_t *t = malloc(sz + 1);
		size_t got = ZSTD_decompress(t, sz + 1, p, cs);
		if (ZSTD_isError(got) || got != sz)
			abort();
		bytes_put(&out, t, got);
		free(t);
		p += cs;
		left -= cs;
	}
	return out;
}

/* A value of random width, so every msgpack integer size and its edges
 * (2^7, 2^8, 2^16, 2^32, and the negative ones) come up. */
static uint64_t rnd_width(void)
{
	uint64_t v = t_rnd() >> (t_rnd() % 64);
	switch (t_rnd() % 4) {
	case 0: return v;
	case 1: return (uint64_t)1 << (t_rnd() % 64);          /* a power of two */
	case 2: return ((uint64_t)1 << (t_rnd() % 64)) - 1;    /* just below one */
	default: return (uint64_t)-(int64_t)(v >> 1);        /* negative as signed */
	}
}

static void test_cuda_wire(void)
{
	enum { NEV = 4 + 4000 };
	static struct ingero_cuda_event ev[NEV];
	for (int i = 0; i < 4; i++) {
		struct ilog_record r;
		fill(&r, ILOG_K_CUDA, &variants[i % NVARIANTS]);
		ev[i] = r.u.cuda;
	}
	for (int i = 4; i < NEV; i++) {
		struct ingero_cuda_event *e = &ev[i];
		memset(e, 0, sizeof(*e));
		e->ts_ns = rnd_width(); e->dur_ns = rnd_width();
		e->pid = (uint32_t)rnd_width(); e->tid = (uint32_t)rnd_width();
		e->op = (uint16_t)rnd_width(); e->layer = (uint8_t)rnd_width();
		e->flags = (uint8_t)rnd_width(); e->ret = (int32_t)rnd_width();
		e->stream = rnd_width(); e->bytes = rnd_width(); e->handle = rnd_width();
		e->kind = (uint32_t)rnd_width();
		e->grid_x = (uint32_t)rnd_width(); e->grid_y = (uint32_t)rnd_width();
		e->grid_z = (uint32_t)rnd_width(); e->block_x = (uint32_t)rnd_width();
		e->block_y = (uint32_t)rnd_width(); e->block_z = (uint32_t)rnd_width();
		e->stack_id = rnd_width(); e->pystack_id = rnd_width();
	}
	struct mp m;
	mp_begin(&m);
	uint64_t base = 0;
	struct ilog_record head = test_header();
	struct wlog wl;
	struct ilog_writer *w = wopen(&wl, NULL);
	wput(w, &head);
	struct bytes hdr_only = { 0 };
	for (int i = 0; i < NEV; i++) {
		pack_cuda_by_spec(&m.pk, &ev[i], &base);
		if (i % 2) {
			if (ilog_writer_put_cuda(w, &ev[i]))
				abort();
		} else {
			struct ilog_record r = { .kind = ILOG_K_CUDA };
			r.u.cuda = ev[i];
			wput(w, &r);
		}
	}
	struct bytes log = wclose(&wl);
	struct bytes content = decompress_all(&log);
	/* the header record comes first; find where the cuda records start */
	struct wlog wh;
	w = wopen(&wh, NULL);
	wput(w, &head);
	hdr_only = wclose(&wh);
	struct bytes hdr_content = decompress_all(&hdr_only);
	ok(content.n == hdr_content.n + m.sb.size &&
	   !memcmp(content.p + hdr_content.n, m.sb.data, m.sb.size),
	   "%d cuda records of every integer width (put and put_cuda) are byte for byte the SPEC field order packed by msgpack-c",
	   NEV);
	if (content.n != hdr_content.n + m.sb.size)
		diag("content %zu bytes, header %zu + expected %zu", content.n, hdr_content.n,
		     m.sb.size);
	/* and they decode to what was written (the reader's fast path, and
	 * its checked path for the values the fast path leaves to it) */
	struct rlog rl;
	struct ilog_reader *r = ropen(&rl, log.p, log.n);
	const struct ilog_record *got;
	int same = ilog_reader_next(r, &got) == 1, nread = 0;
	for (int i = 0; i < NEV && same; i++, nread++)
		same = ilog_reader_next(r, &got) == 1 && got->kind == ILOG_K_CUDA &&
		       !memcmp(&got->u.cuda, &ev[i], sizeof(ev[i]));
	ok(same && ilog_reader_next(r, &got) == 0, "and read back equal (%d of %d)", nread, NEV);
	rclose(&rl);
	bytes_free(&log);
	bytes_free(&content);
	bytes_free(&hdr_only);
	bytes_free(&hdr_content);
	mp_end(&m);
}

/* ---- raw records: forward compatibility and bad shapes ---- */

/* A log: the test header, `good` cuda events, then raw records, all in one
 * frame unless split_after_good. */
static struct bytes log_with_raw(int good, const void *raw, size_t rawn, int split_after_good,
				 struct ilog_record *goods)
{
	struct wlog wl;
	struct ilog_writer *w = wopen(&wl, NULL);
	struct ilog_record head = test_header();
	wput(w, &head);
	for (int i = 0; i < good; i++) {
		struct ilog_record r;
		fill(&r, ILOG_K_CUDA, &variants[3]);
		r.u.cuda.ts_ns = 5000 + (uint64_t)i * 100;
		r.u.cuda.pid = (uint32_t)i;
		wput(w, &r);
		if (goods)
			goods[i] = r;
	}
	if (split_after_good && ilog_writer_flush(w))
		abort();
	if (rawn)
		wraw(w, raw, rawn);
	return wclose(&wl);
}

/* Reads everything: the number of records before the end, and the result. */
static int read_count(const struct bytes *log, uint64_t *n, char *err, size_t errlen)
{
	struct rlog rl;
	struct ilog_reader *r = ropen(&rl, log->p, log->n);
	const struct ilog_record *rec;
	int rc;
	*n = 0;
	while ((rc = ilog_reader_next(r, &rec)) > 0)
		(*n)++;
	snprintf(err, errlen, "%s", rc < 0 ? ilog_reader_error(r) : "");
	/* a fatal error is sticky: asking again gives the same answer; after
	 * damage at the tail the next answer is the end */
	if (rc == -1 && ilog_reader_next(r, &rec) != -1)
		rc = -3;
	if (rc == ILOG_READ_DAMAGE && ilog_reader_next(r, &rec) != 0)
		rc = -3;
	rclose(&rl);
	return rc;
}

static void test_forward_compat(void)
{
	struct mp m;
	struct ilog_record want;
	uint64_t base;
	fill(&want, ILOG_K_CUDA, &variants[3]);
	/* a cuda record with its args (1.2) and four trailing fields of every shape */
	mp_begin(&m);
	msgpack_pack_array(&m.pk, 22 + 4);
	msgpack_pack_uint32(&m.pk, ILOG_K_CUDA);
	msgpack_pack_int64(&m.pk, (int64_t)want.u.cuda.ts_ns);
	msgpack_pack_uint64(&m.pk, want.u.cuda.dur_ns);
	msgpack_pack_uint32(&m.pk, want.u.cuda.pid);
	msgpack_pack_uint32(&m.pk, want.u.cuda.tid);
	msgpack_pack_uint8(&m.pk, want.u.cuda.layer);
	msgpack_pack_uint16(&m.pk, want.u.cuda.op);
	msgpack_pack_int32(&m.pk, want.u.cuda.ret);
	msgpack_pack_uint64(&m.pk, want.u.cuda.stream);
	msgpack_pack_uint64(&m.pk, want.u.cuda.bytes);
	msgpack_pack_uint64(&m.pk, want.u.cuda.handle);
	msgpack_pack_uint32(&m.pk, want.u.cuda.kind);
	msgpack_pack_uint32(&m.pk, want.u.cuda.grid_x);
	msgpack_pack_uint32(&m.pk, want.u.cuda.grid_y);
	msgpack_pack_uint32(&m.pk, want.u.cuda.grid_z);
	msgpack_pack_uint32(&m.pk, want.u.cuda.block_x);
	msgpack_pack_uint32(&m.pk, want.u.cuda.block_y);
	msgpack_pack_uint32(&m.pk, want.u.cuda.block_z);
	msgpack_pack_uint8(&m.pk, want.u.cuda.flags);
	msgpack_pack_uint64(&m.pk, want.u.cuda.stack_id);
	msgpack_pack_uint64(&m.pk, want.u.cuda.pystack_id);
	msgpack_pack_array(&m.pk, 0);
	/* trailing: a map of nested things, a string, a float, an extension */
	msgpack_pack_map(&m.pk, 2);
	msgpack_pack_str(&m.pk, 3);
	msgpack_pack_str_body(&m.pk, "new", 3);
	msgpack_pack_array(&m.pk, 3);
	msgpack_pack_nil(&m.pk);
	msgpack_pack_true(&m.pk);
	msgpack_pack_bin(&m.pk, 2);
	msgpack_pack_bin_body(&m.pk, "\x01\x02", 2);
	msgpack_pack_int8(&m.pk, -5);
	msgpack_pack_double(&m.pk, 2.5);
	msgpack_pack_str(&m.pk, 5000);
	msgpack_pack_str_body(&m.pk, pattern, 5000);
	msgpack_pack_float(&m.pk, 1.5f);
	msgpack_pack_ext(&m.pk, 3, 7);
	msgpack_pack_ext_body(&m.pk, "abc", 3);
	/* then an unknown kind, then a host record with trailing fields */
	msgpack_pack_array(&m.pk, 4);
	msgpack_pack_uint32(&m.pk, 999);
	msgpack_pack_str(&m.pk, 2);
	msgpack_pack_str_body(&m.pk, "hi", 2);
	msgpack_pack_array(&m.pk, 2);
	msgpack_pack_uint64(&m.pk, UINT64_MAX);
	msgpack_pack_map(&m.pk, 0);
	msgpack_pack_ext(&m.pk, 16, 1);
	msgpack_pack_ext_body(&m.pk, "0123456789abcdef", 16);
	msgpack_pack_array(&m.pk, 1 + 12 + 1);
	msgpack_pack_uint32(&m.pk, ILOG_K_HOST);
	msgpack_pack_int64(&m.pk, 777);
	msgpack_pack_uint16(&m.pk, ILOG_HOST_OOM);
	for (int i = 0; i < 6; i++)
		msgpack_pack_uint32(&m.pk, (uint32_t)i + 1);
	msgpack_pack_uint32(&m.pk, 3);
	msgpack_pack_str(&m.pk, 4);
	msgpack_pack_str_body(&m.pk, "comm", 4);
	msgpack_pack_str(&m.pk, 5);
	msgpack_pack_str_body(&m.pk, "other", 5);
	msgpack_pack_uint64(&m.pk, 4026531835ull); /* cgroup_id (1.2) */
	msgpack_pack_array(&m.pk, 0);

	struct bytes log = log_with_raw(0, m.sb.data, m.sb.size, 0, NULL);
	struct rlog rl;
	struct ilog_reader *r = ropen(&rl, log.p, log.n);
	const struct ilog_record *got;
	char why[256] = "";
	int rc = ilog_reader_next(r, &got); /* header */
	rc = ilog_reader_next(r, &got);
	ok(rc == 1 && rec_same(&want, got, why, sizeof(why)),
	   "a cuda record with unknown trailing fields (map, string, float, ext) decodes; extras skipped");
	if (*why)
		diag("%s", why);
	rc = ilog_reader_next(r, &got);
	ok(rc == 1 && got->kind == 999 && got->raw.n == 1 + 3 + 3 + 1 + 9 + 1 + 18 &&
	   got->raw.p[0] == 0x94,
	   "an unknown kind is returned whole, with its raw bytes, not fatal");
	rc = ilog_reader_next(r, &got);
	ok(rc == 1 && got->kind == ILOG_K_HOST && got->u.host.ts_ns == 777 &&
	   got->u.host.type == ILOG_HOST_OOM && got->u.host.cpu == 3 &&
	   !strcmp(got->u.host.comm, "comm") && !strcmp(got->u.host.other_comm, "other") &&
	   got->u.host.cgroup_id == 4026531835ull,
	   "a host record with a trailing field decodes on the generic path");
	ok(ilog_reader_next(r, &got) == 0, "clean end after them");
	struct ilog_reader_stats st;
	ilog_reader_stats(r, &st);
	is_u64(st.skipped_unknown, 1, "reader stats count one record of unknown kind");
	rclose(&rl);
	bytes_free(&log);
	mp_end(&m);

	/* Missing trailing fields default to 0: cuda (hot path) and host (generic). */
	mp_begin(&m);
	msgpack_pack_array(&m.pk, 1 + 4);
	msgpack_pack_uint32(&m.pk, ILOG_K_CUDA);
	msgpack_pack_int64(&m.pk, 100);
	msgpack_pack_uint64(&m.pk, 7);
	msgpack_pack_uint32(&m.pk, 42);
	msgpack_pack_uint32(&m.pk, 43);
	msgpack_pack_array(&m.pk, 1 + 2);
	msgpack_pack_uint32(&m.pk, ILOG_K_HOST);
	msgpack_pack_int64(&m.pk, 200);
	msgpack_pack_uint16(&m.pk, ILOG_HOST_FORK);
	msgpack_pack_array(&m.pk, 1);
	msgpack_pack_uint32(&m.pk, ILOG_K_STACK);
	msgpack_pack_array(&m.pk, 1);         /* cuda with no fields at all */
	msgpack_pack_uint32(&m.pk, ILOG_K_CUDA);
	/* a full cuda event after the short ones must not inherit stale fields */
	struct ilog_record full;
	fill(&full, ILOG_K_CUDA, &variants[1]);
	base = 0; /* the kind-only record before it: ts + dur = 0 */
	pack_cuda_by_spec(&m.pk, &full.u.cuda, &base);
	struct ilog_record short_after;
	memset(&short_after, 0, sizeof(short_after));
	short_after.kind = ILOG_K_CUDA;
	short_after.u.cuda.ts_ns = base + 1;
	msgpack_pack_array(&m.pk, 2);
	msgpack_pack_uint32(&m.pk, ILOG_K_CUDA);
	msgpack_pack_int64(&m.pk, 1);
	log = log_with_raw(0, m.sb.data, m.sb.size, 0, NULL);
	r = ropen(&rl, log.p, log.n);
	ilog_reader_next(r, &got);
	struct ilog_record exp;
	memset(&exp, 0, sizeof(exp));
	exp.kind = ILOG_K_CUDA;
	exp.u.cuda.ts_ns = 100;
	exp.u.cuda.dur_ns = 7;
	exp.u.cuda.pid = 42;
	exp.u.cuda.tid = 43;
	*why = 0;
	ok(ilog_reader_next(r, &got) == 1 && rec_same(&exp, got, why, sizeof(why)),
	   "a cuda record with 4 of 20 fields: the missing ones are 0 (hot path)");
	if (*why)
		diag("%s", why);
	memset(&exp, 0, sizeof(exp));
	exp.kind = ILOG_K_HOST;
	exp.u.host.ts_ns = 200;
	exp.u.host.type = ILOG_HOST_FORK;
	*why = 0;
	ok(ilog_reader_next(r, &got) == 1 && rec_same(&exp, got, why, sizeof(why)),
	   "a host record with 2 of 11 fields: the missing ones are 0 (generic path)");
	if (*why)
		diag("%s", why);
	memset(&exp, 0, sizeof(exp));
	exp.kind = ILOG_K_STACK;
	ok(ilog_reader_next(r, &got) == 1 && rec_same(&exp, got, why, sizeof(why)),
	   "a stack record with no fields is an empty stack");
	memset(&exp, 0, sizeof(exp));
	exp.kind = ILOG_K_CUDA;
	*why = 0;
	rc = ilog_reader_next(r, &got);
	ok(rc == 1 && rec_same(&exp, got, why, sizeof(why)),
	   "a cuda record with only its kind: every field 0, ts included");
	if (*why)
		diag("%s", why);
	*why = 0;
	ok(ilog_reader_next(r, &got) == 1 && rec_same(&full, got, why, sizeof(why)),
	   "a full cuda record after short ones decodes whole");
	if (*why)
		diag("%s", why);
	*why = 0;
	ok(ilog_reader_next(r, &got) == 1 && rec_same(&short_after, got, why, sizeof(why)),
	   "a short cuda record after a full one does not keep the full one's fields");
	if (*why)
		diag("%s", why);
	ok(ilog_reader_next(r, &got) == 0, "clean end");
	rclose(&rl);
	bytes_free(&log);
	mp_end(&m);

	/* Non-minimal integer encodings (other msgpack writers) decode the same. */
	static const uint8_t wide[] = {
		0xdc, 0x00, 0x05,                                 /* array16 of 5 */
		0xcf, 0, 0, 0, 0, 0, 0, 0, ILOG_K_CUDA,           /* kind as uint64 */
		0xd3, 0, 0, 0, 0, 0, 0, 0x01, 0x00,               /* ts as int64 256 */
		0xd0, 0x05,                                       /* dur as int8 5 */
		0xcd, 0x00, 0x07,                                 /* pid as uint16 */
		0xd2, 0, 0, 0, 9,                                 /* tid as int32 */
	};
	log = log_with_raw(0, wide, sizeof(wide), 0, NULL);
	r = ropen(&rl, log.p, log.n);
	ilog_reader_next(r, &got);
	rc = ilog_reader_next(r, &got);
	ok(rc == 1 && got->kind == ILOG_K_CUDA && got->u.cuda.ts_ns == 256 &&
	   got->u.cuda.dur_ns == 5 && got->u.cuda.pid == 7 && got->u.cuda.tid == 9,
	   "integers in wider encodings (uint64 kind, int64 ts, int8, uint16, int32) and array16 decode");
	rclose(&rl);
	bytes_free(&log);

	/* A whole cuda record with every field as int64 (0xd3), as a writer
	 * in another language may make it: the same event. */
	{
		struct ilog_record full64;
		fill(&full64, ILOG_K_CUDA, &variants[3]);
		full64.u.cuda.bytes = INT64_MAX; /* int64 holds no more */
		uint8_t buf[3 + 9 * 21], *q = buf;
		*q++ = 0xdc; *q++ = 0; *q++ = 21;
		int64_t vals[21] = { ILOG_K_CUDA };
		int k = 1;
#define X(fld, nm, ty, vw, sql) vals[k++] = (int64_t)full64.u.cuda.fld;
		ILOG_CUDA_FIELDS(X)
#undef X
		for (int i = 0; i < 21; i++) {
			*q++ = 0xd3;
			for (int b = 7; b >= 0; b--)
				*q++ = (uint8_t)((uint64_t)vals[i] >> (8 * b));
		}
		log = log_with_raw(0, buf, sizeof(buf), 0, NULL);
		r = ropen(&rl, log.p, log.n);
		ilog_reader_next(r, &got);
		*why = 0;
		ok(ilog_reader_next(r, &got) == 1 && rec_same(&full64, got, why, sizeof(why)),
		   "a full cuda record with every field as int64 decodes the same");
		if (*why)
			diag("%s", why);
		rclose(&rl);
		bytes_free(&log);
	}

	/* Unknown records pass through a writer unchanged (filters rely on it). */
	static const uint8_t fut[] = { 0x93, 0xcd, 0x03, 0xe8, 0xa3, 'a', 'b', 'c', 0xc3 };
	log = log_with_raw(2, fut, sizeof(fut), 0, NULL);
	r = ropen(&rl, log.p, log.n);
	struct wlog wl;
	struct ilog_writer *w = wopen(&wl, NULL);
	while ((rc = ilog_reader_next(r, &got)) > 0)
		wput(w, got);
	rclose(&rl);
	struct bytes copy = wclose(&wl);
	struct bytes c1 = decompress_all(&log), c2 = decompress_all(&copy);
	ok(rc == 0 && c1.n == c2.n && !memcmp(c1.p, c2.p, c1.n),
	   "read then write: the same msgpack content, unknown kind 1000 included");
	bytes_free(&log);
	bytes_free(&copy);
	bytes_free(&c1);
	bytes_free(&c2);

	/* The writer refuses a kind it does not know unless given raw bytes. */
	w = wopen(&wl, NULL);
	struct ilog_record unk;
	memset(&unk, 0, sizeof(unk));
	unk.kind = 1234;
	ok(ilog_writer_put(w, &unk) == -1 && ilog_writer_error(w) &&
	   strstr(ilog_writer_error(w), "1234"),
	   "writer: an unknown kind without raw bytes is an error naming the kind");
	ilog_writer_close(w, NULL, 0);
	close(wl.fd);
}

/* Each bad record: the records before it come back, then one error. */
struct bad_case {
	const char *what;
	const uint8_t *p;
	size_t n;
	const char *msg;       /* what the error must say */
};

static void test_bad_records(void)
{
	static const uint8_t map[] = { 0x81, 0x01, 0x02 };
	static const uint8_t empty[] = { 0x90 };
	static const uint8_t kind_str[] = { 0x91, 0xa1, 'x' };
	static const uint8_t kind_neg[] = { 0x91, 0xff };
	static const uint8_t kind_big[] = { 0x91, 0xcf, 0, 0, 0, 1, 0, 0, 0, 0 };
	static const uint8_t pid_str[] = { 0x94, 0x04, 0x01, 0x02, 0xa3, 'p', 'i', 'd' };
	static const uint8_t pid_neg[] = { 0x94, 0x04, 0x01, 0x02, 0xff };
	static const uint8_t pid_big[] = { 0x94, 0x04, 0x01, 0x02, 0xcf, 0, 0, 0, 1, 0, 0, 0, 0 };
	static const uint8_t layer_256[] = { 0x96, 0x04, 0x01, 0x02, 0x03, 0x04, 0xcd, 0x01, 0x00 };
	static const uint8_t ret_big[] = { 0x98, 0x04, 1, 2, 3, 4, 5, 6, 0xce, 0x80, 0, 0, 0 };
	static const uint8_t ts_float[] = { 0x92, 0x04, 0xcb, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t comm_int[] = { 0x9b, 0x05, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0x07 };
	static const uint8_t str_4g[] = { 0x93, 0x0f, 0x00, 0xdb, 0xff, 0xff, 0xff, 0xff, 'x' };
	static const uint8_t proc_bin_4g[] = { 0x99, 0x08, 0, 1, 2, 3, 4, 0xa0, 0xa0,
					       0xc6, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t arr_4g[] = { 0x94, 0x06, 0x01, 0x02, 0xdd, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t trail_map_4g[] = { 0x92, 0x64, 0xdf, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t long_arr[] = { 0x95, 0x04, 0x01, 0x02 };
	static const uint8_t trunc_int[] = { 0x93, 0x04, 0xcf, 0x00 };
	static const uint8_t reserved[] = { 0x93, 0x04, 0x01, 0xc1 };
	static const uint8_t trail_reserved[] = { 0x95, 0x02, 1, 2, 3, 0xc1 };
	static uint8_t too_many_ips[7 + 128];
	static uint8_t deep[2 + 40];
	static uint8_t too_many_fields[7 + 65];
	static const uint8_t ip_str[] = { 0x94, 0x06, 0x01, 0x02, 0x92, 0x01, 0xa0 };
	static const uint8_t proc_not_arr[] = { 0x9c, 0x0b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x91, 0x05 };
	static const uint8_t str_long_frame[] = { 0x93, 0x0f, 0x00, 0xd9, 0x20, 'a', 'b' };
	static const uint8_t ext_long[] = { 0x93, 0x64, 0x00, 0xc9, 0xff, 0xff, 0xff, 0xf0, 0x01 };

	memcpy(too_many_ips, (const uint8_t[]){ 0x94, 0x06, 0x01, 0x02, 0xdc, 0x00, 0x80 }, 7);
	memset(too_many_ips + 7, 0x01, 128);
	deep[0] = 0x92;
	deep[1] = 0x64; /* kind 100: unknown, so its values are skipped */
	memset(deep + 2, 0x91, 39);
	deep[41] = 0x00;
	memcpy(too_many_fields, (const uint8_t[]){ 0x94, 0x03, 0x63, 0xa0, 0xdc, 0x00, 0x41 }, 7);
	memset(too_many_fields + 7, 0xa0, 65);

	const struct bad_case cases[] = {
		{ "a map, not an array", map, sizeof(map), "expected array, found map" },
		{ "an empty array", empty, sizeof(empty), "empty record" },
		{ "a string as kind", kind_str, sizeof(kind_str), "expected integer, found string" },
		{ "a negative kind", kind_neg, sizeof(kind_neg), "out of range" },
		{ "a kind above 2^32", kind_big, sizeof(kind_big), "out of range" },
		{ "a string as cuda pid", pid_str, sizeof(pid_str),
		  "cuda field pid: expected integer, found string" },
		{ "a negative cuda pid", pid_neg, sizeof(pid_neg), "cuda field pid: integer out of range" },
		{ "a cuda pid above 2^32", pid_big, sizeof(pid_big), "cuda field pid: integer out of range" },
		{ "a cuda layer of 256", layer_256, sizeof(layer_256), "cuda field layer: integer out of range" },
		{ "a cuda ret of 2^31", ret_big, sizeof(ret_big), "cuda field ret: integer out of range" },
		{ "a float as cuda ts", ts_float, sizeof(ts_float), "cuda field ts_ns: expected integer, found float" },
		{ "an integer as host comm", comm_int, sizeof(comm_int),
		  "host field comm: expected string, found integer" },
		{ "a 4 GB string length (str32 0xffffffff)", str_4g, sizeof(str_4g),
		  "provenance field tool: declared length 4294967295 exceeds the frame" },
		{ "a 4 GB bytes length (bin32 0xffffffff)", proc_bin_4g, sizeof(proc_bin_4g),
		  "process field argv: declared length 4294967295 exceeds the frame" },
		{ "a 4 G element array (array32 0xffffffff)", arr_4g, sizeof(arr_4g),
		  "stack field ips: declared length 4294967295 exceeds the frame" },
		{ "a 4 G entry map in a trailing field", trail_map_4g, sizeof(trail_map_4g),
		  "declared length 4294967295 exceeds the frame" },
		{ "an array longer than the frame", long_arr, sizeof(long_arr),
		  "declared length 5 exceeds the frame" },
		{ "an integer cut by the frame end", trunc_int, sizeof(trunc_int),
		  "cuda field ts_ns: record truncated" },
		{ "the reserved byte 0xc1 as a field", reserved, sizeof(reserved),
		  "found reserved byte 0xc1" },
		{ "the reserved byte 0xc1 as a trailing field", trail_reserved, sizeof(trail_reserved),
		  "reserved byte 0xc1" },
		{ "a 128-frame stack (max 127)", too_many_ips, sizeof(too_many_ips),
		  "stack field ips: array longer than the kind allows" },
		{ "a string among stack ips", ip_str, sizeof(ip_str),
		  "stack field ips: expected integer, found string" },
		{ "snapshot procs element not an array", proc_not_arr, sizeof(proc_not_arr),
		  "snapshot field procs: expected array, found integer" },
		{ "a 65-name schema (max 64)", too_many_fields, sizeof(too_many_fields),
		  "schema field fields: array longer than the kind allows" },
		{ "trailing arrays nested 40 deep", deep, sizeof(deep), "nesting deeper than 32" },
		{ "a str8 longer than the frame", str_long_frame, sizeof(str_long_frame),
		  "declared length 32 exceeds the frame" },
		{ "an ext32 longer than the frame", ext_long, sizeof(ext_long),
		  "exceeds the frame" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bad_case *c = &cases[i];
		for (int split = 0; split < 2; split++) {
			struct ilog_record goods[3];
			struct bytes log = log_with_raw(3, c->p, c->n, split, goods);
			/* which frame holds the bad record */
			size_t bad_frame = 0;
			if (split) {
				size_t cs = ZSTD_findFrameCompressedSize(log.p, log.n);
				bad_frame = cs;
			}
			struct rlog rl;
			struct ilog_reader *r = ropen(&rl, log.p, log.n);
			const struct ilog_record *got;
			int rc, n = 0, same = 1;
			char why[256];
			while ((rc = ilog_reader_next(r, &got)) > 0) {
				if (n >= 1 && n <= 3 && !rec_same(&goods[n - 1], got, why, sizeof(why)))
					same = 0;
				n++;
			}
			char want_off[64], want_rec[64];
			snprintf(want_off, sizeof(want_off), "offset %zu: ", bad_frame);
			snprintf(want_rec, sizeof(want_rec), "record %d of the frame", split ? 0 : 4);
			const char *err = ilog_reader_error(r);
			int pass = rc == ILOG_READ_DAMAGE && n == 4 && same && err &&
				   !strncmp(err, want_off, strlen(want_off)) && strstr(err, want_rec) &&
				   strstr(err, c->msg) && !strchr(err, '\n');
			/* the rest of the frame is lost, and it was the last */
			if (pass && ilog_reader_next(r, &got) != 0)
				pass = 0;
			ok(pass, "bad record (%s): header and 3 records kept, then one error%s", c->what,
			   split ? " (in its own frame)" : "");
			if (!pass)
				diag("rc %d after %d records; error: %s; want '%s' ... '%s' ... '%s'",
				     rc, n, err ? err : "(none)", want_off, want_rec, c->msg);
			rclose(&rl);
			bytes_free(&log);
		}
	}
}

/* ---- damaged and foreign input ---- */

struct framed {
	struct bytes log;
	size_t frame_start[256];  /* offsets of frame starts, plus the end */
	uint64_t recs_before[256]; /* records in frames before frame i */
	int nframes;
	struct ilog_record *recs; /* every record written, header first */
	size_t nrecs;
};

/* A log of mixed records, frames of 7 records, boundaries recorded. */
static void make_framed(struct framed *f, int nrecs)
{
	struct wlog wl;
	struct ilog_writer_opts o = { .frame_records = 7 };
	struct ilog_writer *w = wopen(&wl, &o);
	memset(f, 0, sizeof(*f));
	f->recs = calloc((size_t)nrecs, sizeof(*f->recs));
	f->recs[0] = test_header();
	static const uint32_t kinds[] = { ILOG_K_CUDA, ILOG_K_CUDA, ILOG_K_HOST, ILOG_K_STACK,
					  ILOG_K_CUDA, ILOG_K_PROCESS, ILOG_K_SNAPSHOT };
	for (int i = 1; i < nrecs; i++)
		fill(&f->recs[i], kinds[i % 7], &variants[1 + i % 3]);
	struct ilog_writer_stats st;
	for (int i = 0; i < nrecs; i++) {
		wput(w, &f->recs[i]);
		ilog_writer_stats(w, &st);
		if ((int)st.frames > f->nframes) {
			f->nframes = (int)st.frames;
			f->frame_start[f->nframes] = st.out_bytes;
			f->recs_before[f->nframes] = (uint64_t)i + 1;
		}
	}
	f->log = wclose(&wl);
	if (f->frame_start[f->nframes] != f->log.n) {
		f->nframes++;
		f->frame_start[f->nframes] = f->log.n;
		f->recs_before[f->nframes] = (uint64_t)nrecs;
	}
	f->nrecs = (size_t)nrecs;
}

static void framed_free(struct framed *f)
{
	bytes_free(&f->log);
	free(f->recs);
}

/* Reads p[0..n) and checks every record against f's; returns records read. */
static int read_prefix(const struct framed *f, const uint8_t *p, size_t n, uint64_t *nrec,
		       char *err, size_t errlen, int *same)
{
	struct rlog rl;
	struct ilog_reader *r = ropen(&rl, p, n);
	const struct ilog_record *got;
	char why[256];
	int rc;
	*nrec = 0;
	*same = 1;
	while ((rc = ilog_reader_next(r, &got)) > 0) {
		if (*nrec >= f->nrecs || !rec_same(&f->recs[*nrec], got, why, sizeof(why)))
			*same = 0;
		(*nrec)++;
	}
	snprintf(err, errlen, "%s", rc < 0 ? ilog_reader_error(r) : "");
	rclose(&rl);
	return rc;
}

static void test_cuts(void)
{
	struct framed f;
	make_framed(&f, 60);
	ok(f.nframes >= 6, "test log has %d frames (need 6+)", f.nframes);
	struct check ck;
	check_begin(&ck);
	size_t from = f.frame_start[f.nframes - 3], ncuts = 0;
	for (size_t cut = from; cut < f.log.n; cut++) {
		/* the frame the cut falls in, and the records before it */
		int fi = 0;
		while (fi + 1 <= f.nframes && f.frame_start[fi + 1] <= cut)
			fi++;
		uint64_t nrec;
		char err[512];
		int same;
		int rc = read_prefix(&f, f.log.p, cut, &nrec, err, sizeof(err), &same);
		ncuts++;
		if (!same)
			check_fail(&ck, "cut at %zu: a record read back differs", cut);
		if (nrec != f.recs_before[fi])
			check_fail(&ck, "cut at %zu: %llu records, want %llu", cut,
				   (unsigned long long)nrec, (unsigned long long)f.recs_before[fi]);
		if (cut == f.frame_start[fi]) {
			/* on a frame boundary the log is whole, just shorter */
			if (rc != 0)
				check_fail(&ck, "cut at boundary %zu: rc %d (%s)", cut, rc, err);
			continue;
		}
		char want[64];
		snprintf(want, sizeof(want), "offset %zu: ", f.frame_start[fi]);
		if (rc != ILOG_READ_DAMAGE || strncmp(err, want, strlen(want)) || !strstr(err, "truncated"))
			check_fail(&ck, "cut at %zu: rc %d, error '%s', want '%s...truncated...'", cut,
				   rc, err, want);
	}
	check_end(&ck, "a log cut at each of the %zu byte offsets of its last 3 frames: every complete frame's records, then 'offset N: truncated'",
		  ncuts);

	/* cuts inside the first frame, down to zero bytes */
	check_begin(&ck);
	for (size_t cut = 0; cut < f.frame_start[1]; cut++) {
		uint64_t nrec;
		char err[512];
		int same;
		int rc = read_prefix(&f, f.log.p, cut, &nrec, err, sizeof(err), &same);
		if (rc >= 0 || nrec != 0 || strncmp(err, "offset 0: ", 10))
			check_fail(&ck, "cut at %zu: rc %d, %llu records, '%s'", cut, rc,
				   (unsigned long long)nrec, err);
	}
	check_end(&ck, "a log cut inside its first frame (or empty): no records, an error at offset 0");
	framed_free(&f);
}

/*
 * Reads p[0..n) to the end, going on after damage: the records, checked
 * in order against f's but those of frames [lo, hi) (lost), the damage
 * reports (how many, and the first's range).  Returns the last rc.
 */
static int read_resync(const struct framed *f, const uint8_t *p, size_t n, int lo, int hi,
		       uint64_t *nrec, int *same, int *ndmg, struct ilog_damage *d, char *err,
		       size_t errlen)
{
	struct rlog rl;
	struct ilog_reader *r = ropen(&rl, p, n);
	const struct ilog_record *got;
	char why[256];
	int rc;
	uint64_t want = 0;
	*nrec = 0;
	*same = 1;
	*ndmg = 0;
	*err = 0;
	while ((rc = ilog_reader_next(r, &got)) > 0 || rc == ILOG_READ_DAMAGE) {
		if (rc < 0) {
			if (!(*ndmg)++) {
				ilog_reader_damage(r, d);
				snprintf(err, errlen, "%s", ilog_reader_error(r));
			}
			continue;
		}
		if (want == f->recs_before[lo] && hi > lo)
			want = f->recs_before[hi];
		if (want >= f->nrecs || !rec_same(&f->recs[want], got, why, sizeof(why)))
			*same = 0;
		want++;
		(*nrec)++;
	}
	if (rc < 0)
		snprintf(err, errlen, "%s", ilog_reader_error(r));
	rclose(&rl);
	return rc;
}

/* Damage anywhere in a middle frame is found, reported as that frame's
 * range, and costs that frame only: every other frame reads back. */
static void test_corruption(void)
{
	struct framed f;
	make_framed(&f, 40);
	int mid = f.nframes / 2;
	size_t a = f.frame_start[mid], b = f.frame_start[mid + 1];
	uint64_t lost = f.recs_before[mid + 1] - f.recs_before[mid];
	static const uint8_t flips[] = { 0xff, 0x01, 0x80 };
	for (size_t k = 0; k < sizeof(flips); k++) {
		struct check ck;
		check_begin(&ck);
		for (size_t i = a; i < b; i++) {
			f.log.p[i] ^= flips[k];
			uint64_t nrec, nall;
			char err[640];
			int same, same_all, ndmg, nd2;
			struct ilog_damage d = { 0 }, d2 = { 0 };
			int rc = read_resync(&f, f.log.p, f.log.n, mid, mid + 1, &nrec, &same, &ndmg,
					     &d, err, sizeof(err));
			/* a flip zstd's checksum cannot see changed nothing that
			 * decodes (unused bits): then every record reads back */
			read_resync(&f, f.log.p, f.log.n, 0, 0, &nall, &same_all, &nd2, &d2, err + 320,
				    sizeof(err) - 320);
			f.log.p[i] ^= flips[k];
			int fine = rc == 0 && ((ndmg == 1 && same && nrec == f.nrecs - lost &&
						d.off == a && d.bytes == b - a && !strncmp(err, "offset ", 7)) ||
					       (nd2 <= 1 && same_all && nall == f.nrecs &&
						(!nd2 || (d2.off >= a && d2.off + d2.bytes <= b))));
			if (!fine)
				check_fail(&ck, "byte %zu ^ 0x%02x: rc %d, %llu records (%s), %d damaged: %llu+%llu (want %zu+%zu), '%s'",
					   i, flips[k], rc, (unsigned long long)nrec,
					   same ? "same" : "differ", ndmg, (unsigned long long)d.off,
					   (unsigned long long)d.bytes, a, b - a, err);
		}
		check_end(&ck, "every byte of a middle frame xor 0x%02x: that frame reported and skipped, every other read back",
			  flips[k]);
	}
	/* two frames apart, and the header's frame: each its own range */
	if (f.nframes >= 5) {
		size_t x = f.frame_start[1] + 7, y = f.frame_start[3] + 7;
		f.log.p[x] ^= 0x40;
		f.log.p[y] ^= 0x40;
		uint64_t nrec;
		char err[640];
		int same, ndmg;
		struct ilog_damage d;
		struct rlog rl;
		struct ilog_reader *r = ropen(&rl, f.log.p, f.log.n);
		const struct ilog_record *got;
		int rc, dm = 0;
		uint64_t n = 0;
		while ((rc = ilog_reader_next(r, &got)) > 0 || rc == ILOG_READ_DAMAGE)
			if (rc < 0)
				dm++;
			else
				n++;
		struct ilog_reader_stats st;
		ilog_reader_stats(r, &st);
		rclose(&rl);
		uint64_t want = f.nrecs - (f.recs_before[2] - f.recs_before[1]) -
				(f.recs_before[4] - f.recs_before[3]);
		ok(rc == 0 && dm == 2 && n == want && st.damaged == 2 &&
		   st.damaged_bytes == f.frame_start[2] - f.frame_start[1] + f.frame_start[4] - f.frame_start[3],
		   "two damaged frames: two reports, %llu of %zu records read", (unsigned long long)n, f.nrecs);
		f.log.p[x] ^= 0x40;
		f.log.p[y] ^= 0x40;
		/* the header's frame: the records after it still read */
		f.log.p[f.frame_start[0] + 9] ^= 0x40;
		rc = read_resync(&f, f.log.p, f.log.n, 0, 1, &nrec, &same, &ndmg, &d, err, sizeof(err));
		f.log.p[f.frame_start[0] + 9] ^= 0x40;
		ok(rc == 0 && ndmg == 1 && d.off == 0 && d.bytes == f.frame_start[1] && same &&
		   nrec == f.nrecs - f.recs_before[1],
		   "the header's frame damaged: %llu records after it read (%s)", (unsigned long long)nrec, err);
	}
	framed_free(&f);
}

static struct bytes zstd_frame(const void *p, size_t n, int with_size)
{
	struct bytes out = { 0 };
	ZSTD_CCtx *c = ZSTD_createCCtx();
	size_t cap = ZSTD_compressBound(n) + 64;
	out.p = malloc(cap);
	out.cap = cap;
	ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, with_size);
	ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
	if (with_size) {
		out.n = ZSTD_compress2(c, out.p, cap, p, n);
	} else {
		/* streaming without a pledged size: the frame omits it */
		ZSTD_outBuffer o = { out.p, cap, 0 };
		ZSTD_inBuffer in = { p, n, 0 };
		while (ZSTD_compressStream2(c, &o, &in, ZSTD_e_end) != 0)
			;
		out.n = o.pos;
	}
	if (ZSTD_isError(out.n))
		abort();
	ZSTD_freeCCtx(c);
	return out;
}

static void expect_error(const char *what, const struct bytes *log, uint64_t want_n,
			 const char *want_msg)
{
	uint64_t n;
	char err[512];
	int rc = read_count(log, &n, err, sizeof(err));
	int pass = (rc == -1 || rc == ILOG_READ_DAMAGE) && n == want_n && strstr(err, want_msg) &&
		   !strchr(err, '\n');
	ok(pass, "%s: %llu records kept, then '%s'", what, (unsigned long long)want_n, want_msg);
	if (!pass)
		diag("rc %d, %llu records, error '%s'", rc, (unsigned long long)n, err);
}

static void test_bad_input(void)
{
	struct bytes b = { 0 };
	expect_error("empty input", &b, 0, "offset 0: empty input");
	bytes_put(&b, "hello, world\n", 13);
	expect_error("a text file", &b, 0, "offset 0: not an ingero log");
	bytes_free(&b);
	bytes_put(&b, "\x7f" "ELF\x02\x01\x01", 7);
	expect_error("an ELF file", &b, 0, "offset 0: not an ingero log");
	bytes_free(&b);

	/* a zstd file that is not a log */
	static const char text[] = "just some text, compressed with zstd\n";
	b = zstd_frame(text, sizeof(text) - 1, 1);
	expect_error("a zstd-compressed text file", &b, 0, "offset 0: not an ingero log");
	bytes_free(&b);

	/* a msgpack stream whose first record is not a header */
	static const uint8_t cuda_first[] = { 0x92, 0x04, 0x05 };
	b = zstd_frame(cuda_first, sizeof(cuda_first), 1);
	expect_error("a log that starts with a cuda record", &b, 0,
		     "offset 0: not an ingero log (first record is kind 4, not a header)");
	bytes_free(&b);

	/* a header with the wrong magic */
	struct ilog_record h = test_header();
	h.u.header.magic = ILOG_STR("GOLI");
	struct wlog wl;
	struct ilog_writer *w = wopen(&wl, NULL);
	wput(w, &h);
	b = wclose(&wl);
	expect_error("a header with magic GOLI", &b, 0, "offset 0: not an ingero log");
	bytes_free(&b);

	/* a future major version, alone and after a good log */
	h = test_header();
	h.u.header.version_major = ILOG_VERSION_MAJOR + 1;
	h.u.header.version_minor = 3;
	w = wopen(&wl, NULL);
	wput(w, &h);
	struct ilog_record ev;
	fill(&ev, ILOG_K_CUDA, &variants[3]);
	wput(w, &ev);
	struct bytes fut = wclose(&wl);
	char want[128];
	snprintf(want, sizeof(want), "offset 0: unsupported format version %d.3 (this reader reads %d.x)",
		 ILOG_VERSION_MAJOR + 1, ILOG_VERSION_MAJOR);
	expect_error("a future major version", &fut, 0, want);
	struct framed f;
	make_framed(&f, 20);
	struct bytes cat = { 0 };
	bytes_put(&cat, f.log.p, f.log.n);
	bytes_put(&cat, fut.p, fut.n);
	snprintf(want, sizeof(want), "offset %zu: unsupported format version", f.log.n);
	expect_error("a good log then a future major version (cat a b)", &cat, 20, want);
	bytes_free(&cat);
	bytes_free(&fut);

	/* a newer minor version reads */
	h = test_header();
	h.u.header.version_minor = 99;
	w = wopen(&wl, NULL);
	wput(w, &h);
	wput(w, &ev);
	b = wclose(&wl);
	uint64_t n;
	char err[512];
	ok(read_count(&b, &n, err, sizeof(err)) == 0 && n == 2, "a newer minor version reads");
	bytes_free(&b);

	/* garbage after good frames */
	static const uint8_t garbage_zstd[] = { 0x28, 0xb5, 0x2f, 0xfd, 0x64, 0x00, 0x01, 0x55,
						0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0,
						0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88 };
	bytes_put(&cat, f.log.p, f.log.n);
	bytes_put(&cat, garbage_zstd, sizeof(garbage_zstd));
	snprintf(want, sizeof(want), "offset %zu: ", f.log.n);
	expect_error("a zstd frame of garbage after a good log", &cat, 20, want);
	bytes_free(&cat);
	bytes_put(&cat, f.log.p, f.log.n);
	bytes_put(&cat, "garbage!garbage!", 16);
	snprintf(want, sizeof(want), "offset %zu: bad frame magic", f.log.n);
	expect_error("non-zstd bytes after a good log", &cat, 20, want);
	bytes_free(&cat);
	bytes_put(&cat, f.log.p, f.log.n);
	bytes_put(&cat, "\x28\xb5", 2);
	snprintf(want, sizeof(want), "offset %zu: truncated", f.log.n);
	expect_error("2 stray bytes after a good log", &cat, 20, want);
	bytes_free(&cat);

	/* a frame that does not record its content size */
	{
		struct bytes good = zstd_frame(cuda_first, sizeof(cuda_first), 0);
		bytes_put(&cat, f.log.p, f.log.n);
		bytes_put(&cat, good.p, good.n);
		snprintf(want, sizeof(want), "offset %zu: frame does not record its content size", f.log.n);
		expect_error("a frame without its content size", &cat, 20, want);
		bytes_free(&cat);
		bytes_free(&good);
	}

	/* a frame claiming more than the reader's limit */
	{
		size_t big = (size_t)ILOG_MAX_FRAME_CONTENT + 1;
		uint8_t *z = calloc(1, big);
		z[0] = 0x91;
		z[1] = 0x01;
		struct bytes huge = zstd_frame(z, big, 1);
		free(z);
		bytes_put(&cat, f.log.p, f.log.n);
		bytes_put(&cat, huge.p, huge.n);
		snprintf(want, sizeof(want), "offset %zu: frame content size %zu exceeds the %u MiB limit",
			 f.log.n, big, ILOG_MAX_FRAME_CONTENT >> 20);
		expect_error("a frame of 64 MiB + 1 byte", &cat, 20, want);
		bytes_free(&cat);
		bytes_free(&huge);
	}

	/* skippable frames are skipped, wherever they are */
	{
		static const uint8_t skf[] = { 0x50, 0x2a, 0x4d, 0x18, 5, 0, 0, 0, 'h', 'e', 'l', 'l', 'o' };
		bytes_put(&cat, skf, sizeof(skf));
		bytes_put(&cat, f.log.p, f.frame_start[2]);
		bytes_put(&cat, skf, sizeof(skf));
		bytes_put(&cat, f.log.p + f.frame_start[2], f.log.n - f.frame_start[2]);
		bytes_put(&cat, skf, sizeof(skf));
		int same;
		int rc = read_prefix(&f, cat.p, cat.n, &n, err, sizeof(err), &same);
		ok(rc == 0 && same && n == 20, "skippable frames before, between and after frames are skipped");
		cat.n -= 3;
		snprintf(want, sizeof(want), "offset %zu: truncated skippable frame", cat.n + 3 - sizeof(skf));
		expect_error("a truncated skippable frame at the end", &cat, 20, want);
		bytes_free(&cat);
	}

	/* node index limits */
	h = test_header();
	h.u.header.node_index = 65536;
	w = wopen(&wl, NULL);
	wput(w, &h);
	b = wclose(&wl);
	expect_error("a header with node index 65536", &b, 0, "node index 65536 out of range");
	bytes_free(&b);
	w = wopen(&wl, NULL);
	h = test_header();
	wput(w, &h);
	struct ilog_record nd = { .kind = ILOG_K_NODE };
	nd.u.node.node_index = UINT32_MAX;
	wput(w, &nd);
	b = wclose(&wl);
	expect_error("a node record with index 2^32-1", &b, 1, "node index 4294967295 out of range");
	bytes_free(&b);
	framed_free(&f);
}

/* ---- streaming: a pipe, tiny reads, frames larger than the read chunk ---- */

struct feeder { int fd; const uint8_t *p; size_t n; };

static void *feed(void *arg)
{
	struct feeder *fd = arg;
	size_t off = 0, step = 1;
	while (off < fd->n) {
		size_t k = fd->n - off < step ? fd->n - off : step;
		ssize_t w = write(fd->fd, fd->p + off, k);
		if (w <= 0)
			break;
		off += (size_t)w;
		step = step * 7 % 4093 + 1;  /* 1..4093 byte pieces */
	}
	close(fd->fd);
	return NULL;
}

static void test_pipe(void)
{
	/* one frame far larger than the reader's 1 MiB read chunk */
	struct ilog_writer_opts o = { .frame_bytes = 16u << 20, .frame_records = 1u << 30, .level = 1 };
	struct wlog wl;
	struct ilog_writer *w = wopen(&wl, &o);
	struct ilog_record h = test_header(), ev;
	wput(w, &h);
	uint64_t n = 0;
	/* 100 KB of noise per record from all over pattern[], so frames of
	 * 5 MB stay about 5 MB compressed */
#define NOISE_AT(i) ((size_t)(i) * 1000003u % (sizeof(pattern) - 100000))
	for (int i = 0; i < 100; i++) {
		fill(&ev, ILOG_K_PROCESS, &variants[3]);
		ev.u.process.pid = (uint32_t)i;
		ev.u.process.comm = (struct ilog_str){ (const char *)pattern + NOISE_AT(i), 100000 };
		wput(w, &ev);
		n++;
		if (i == 49 && ilog_writer_flush(w))
			abort();
	}
	struct bytes log = wclose(&wl);
	int pfd[2];
	if (pipe(pfd))
		abort();
	signal(SIGPIPE, SIG_IGN);
	struct feeder fd = { pfd[1], log.p, log.n };
	pthread_t t;
	pthread_create(&t, NULL, feed, &fd);
	char err[256];
	struct ilog_reader *r = ilog_reader_open(pfd[0], err, sizeof(err));
	const struct ilog_record *got;
	uint64_t seen = 0, bad = 0;
	int rc;
	while ((rc = ilog_reader_next(r, &got)) > 0) {
		if (got->kind == ILOG_K_PROCESS &&
		    (got->u.process.pid != seen - 1 ||
		     got->u.process.comm.n != 100000 ||
		     memcmp(got->u.process.comm.p, pattern + NOISE_AT(seen - 1), 100000)))
			bad++;
		seen++;
	}
	pthread_join(t, NULL);
	close(pfd[0]);
	ok(rc == 0 && seen == n + 1 && bad == 0,
	   "a %zu MB log of two 5 MB frames read from a pipe in 1..4093-byte pieces",
	   log.n >> 20);
	if (rc)
		diag("rc %d: %s, %llu records", rc, ilog_reader_error(r), (unsigned long long)seen);
	struct ilog_reader_stats st;
	ilog_reader_stats(r, &st);
	is_u64(st.in_bytes, log.n, "reader stats: in_bytes is the log size");
	is_u64(st.frames, 2, "reader stats: frames");
	ilog_reader_close(r);
	bytes_free(&log);
}

/* ---- writer framing policy and stats ---- */

static void test_writer(void)
{
	struct wlog wl;
	struct ilog_writer_opts o = { .frame_records = 10 };
	struct ilog_writer *w = wopen(&wl, &o);
	struct ilog_record h = test_header(), ev;
	struct rlog rl;
	struct ilog_reader *r;
	const struct ilog_record *got;
	wput(w, &h);
	for (int i = 0; i < 94; i++) {
		fill(&ev, ILOG_K_CUDA, &variants[3]);
		wput(w, &ev);
	}
	ok(ilog_writer_flush(w) == 0 && ilog_writer_flush(w) == 0, "flush twice: the second is a no-op");
	struct ilog_writer_stats st;
	ilog_writer_stats(w, &st);
	is_u64(st.records, 95, "writer stats: records");
	is_u64(st.frames, 10, "writer stats: 95 records at frame_records=10 make 10 frames");
	struct bytes log = wclose(&wl);
	is_u64(st.out_bytes, log.n, "writer stats: out_bytes is the file size");
	struct bytes content = decompress_all(&log);
	is_u64(st.raw_bytes, content.n, "writer stats: raw_bytes is the decompressed size");
	bytes_free(&content);
	bytes_free(&log);

	/* frame_bytes: frames end once they pass the size */
	o = (struct ilog_writer_opts){ .frame_bytes = 1000 };
	w = wopen(&wl, &o);
	wput(w, &h);
	for (int i = 0; i < 200; i++) {
		fill(&ev, ILOG_K_CUDA, &variants[1]);
		wput(w, &ev);
	}
	ilog_writer_stats(w, &st);
	log = wclose(&wl);
	ok(st.frames >= st.raw_bytes / 1200 && st.frames <= st.raw_bytes / 1000 + 1,
	   "frame_bytes=1000: %llu frames for %llu raw bytes", (unsigned long long)st.frames,
	   (unsigned long long)st.raw_bytes);
	bytes_free(&log);

	/* frame_ms: tick ends an old frame, leaves a young one */
	o = (struct ilog_writer_opts){ .frame_ms = 30 };
	w = wopen(&wl, &o);
	wput(w, &h);
	ilog_writer_tick(w);
	ilog_writer_stats(w, &st);
	ok(st.frames == 0, "tick on a young frame keeps it open");
	usleep(60000);
	ilog_writer_tick(w);
	ilog_writer_stats(w, &st);
	ok(st.frames == 1, "tick after frame_ms ends the frame (crash safety for idle recorders)");
	log = wclose(&wl);
	bytes_free(&log);

	/* a write error is reported, and sticks */
	int fd = open("/dev/null", O_RDONLY);
	char err[256];
	w = ilog_writer_open(fd, NULL, err, sizeof(err));
	wput(w, &h);
	int rc = ilog_writer_flush(w);
	ok(rc == -1 && ilog_writer_error(w) && strstr(ilog_writer_error(w), "write"),
	   "a failed write(2) is an error: %s", ilog_writer_error(w) ? ilog_writer_error(w) : "(none)");
	ok(ilog_writer_put(w, &h) == -1, "and every later put fails too");
	ok(ilog_writer_close(w, err, sizeof(err)) == -1 && strstr(err, "write"),
	   "close reports it");
	close(fd);

	/* a refused (too large) record gives back the delta base it moved */
	w = wopen(&wl, NULL);
	wput(w, &h);
	struct ilog_record p1, big, p2;
	memset(&p1, 0, sizeof(p1));
	p1.kind = ILOG_K_PROCESS;
	p1.u.process.ts_ns = 1000;
	p1.u.process.pid = 1;
	big = p1;
	big.u.process.ts_ns = 999999999;
	size_t bign = (size_t)ILOG_MAX_FRAME_CONTENT / 2 + 1;
	char *huge = calloc(1, bign);
	big.u.process.exe = (struct ilog_str){ huge, (uint32_t)bign };
	p2 = p1;
	p2.u.process.ts_ns = 2000;
	p2.u.process.pid = 2;
	wput(w, &p1);
	rc = ilog_writer_put(w, &big);
	ok(rc == -1 && ilog_writer_error(w) && strstr(ilog_writer_error(w), "exceeds"),
	   "a record over half the frame limit is refused: %s",
	   ilog_writer_error(w) ? ilog_writer_error(w) : "(none)");
	wput(w, &p2);
	free(huge);
	log = wclose(&wl);
	r = ropen(&rl, log.p, log.n);
	ilog_reader_next(r, &got);
	int r1 = ilog_reader_next(r, &got) == 1 && got->u.process.ts_ns == 1000;
	int r2 = ilog_reader_next(r, &got) == 1 && got->u.process.pid == 2 && got->u.process.ts_ns == 2000;
	ok(r1 && r2 && ilog_reader_next(r, &got) == 0,
	   "the log stays valid and the next record's timestamp is right");
	rclose(&rl);
	bytes_free(&log);

	/* begin: header + a schema record per known kind */
	w = wopen(&wl, NULL);
	int nschema = 0, kinds_ok = 1;
	struct ilog_header hh = test_header().u.header;
	hh.magic = ILOG_STR("XXXX");
	hh.version_major = 77;
	ok(ilog_writer_begin(w, &hh) == 0, "writer_begin");
	log = wclose(&wl);
	r = ropen(&rl, log.p, log.n);
	rc = ilog_reader_next(r, &got);
	ok(rc == 1 && got->kind == ILOG_K_HEADER && got->u.header.version_major == ILOG_VERSION_MAJOR &&
	   got->u.header.magic.n == 4 && !memcmp(got->u.header.magic.p, ILOG_MAGIC, 4),
	   "begin writes the magic and this format version whatever the caller passed");
	while ((rc = ilog_reader_next(r, &got)) > 0) {
		const struct ilog_kind_desc *d = ilog_kind_desc(got->u.schema.kind);
		if (got->kind != ILOG_K_SCHEMA || !d || got->u.schema.nfields != d->nfields ||
		    got->u.schema.name.n != strlen(d->name) ||
		    memcmp(got->u.schema.name.p, d->name, got->u.schema.name.n))
			kinds_ok = 0;
		nschema++;
	}
	int nkinds = 0;
	for (uint32_t k = 1; k < ILOG_K__COUNT; k++)
		nkinds += ilog_kind_desc(k) != NULL;
	ok(rc == 0 && nschema == nkinds && kinds_ok,
	   "begin then writes one schema record per kind (%d), naming it and its fields", nschema);
	const struct ilog_header *rh = ilog_reader_header(r, 0);
	ok(rh && rh->host.n == 6 && !memcmp(rh->host.p, "host-t", 6) && rh->host.p[6] == 0,
	   "reader keeps the header in force (NUL-terminated copies)");
	rclose(&rl);
	bytes_free(&log);
}

/* ---- reader context: anchors, nodes, schemas, concatenation ---- */

static void test_reader_context(void)
{
	struct wlog wl;
	struct ilog_writer *w = wopen(&wl, NULL);
	struct ilog_record h = test_header(), rec;
	wput(w, &h);
	memset(&rec, 0, sizeof(rec));
	rec.kind = ILOG_K_SCHEMA;
	rec.u.schema.kind = 200;
	rec.u.schema.name = ILOG_STR("gpu_metric");
	rec.u.schema.nfields = 2;
	rec.u.schema.fields[0] = ILOG_STR("sm");
	rec.u.schema.fields[1] = ILOG_STR("util");
	wput(w, &rec);
	memset(&rec, 0, sizeof(rec));
	rec.kind = ILOG_K_CLOCK;
	rec.u.clock.mono_ns = 2000000000;
	rec.u.clock.real_ns = 1795000001000000100ull; /* 100 ns drift */
	wput(w, &rec);
	memset(&rec, 0, sizeof(rec));
	rec.kind = ILOG_K_NODE;
	rec.u.node.node_index = 3;
	wput(w, &rec);
	struct ilog_record h2 = test_header();
	h2.u.header.node_index = 3;
	h2.u.header.host = ILOG_STR("other");
	h2.u.header.real_ns = 1;
	h2.u.header.mono_ns = 0;
	wput(w, &h2);
	fill(&rec, ILOG_K_CUDA, &variants[3]);
	rec.u.cuda.ts_ns = 50;
	wput(w, &rec);
	struct bytes a = wclose(&wl);

	struct rlog rl;
	struct ilog_reader *r = ropen(&rl, a.p, a.n);
	const struct ilog_record *got;
	ilog_reader_next(r, &got);
	is_u64(ilog_reader_wall(r, 0, 1000000005ull), 1795000000000000005ull,
	       "wall time from the header's anchor");
	ok(ilog_reader_wall(r, 1, 5) == 0 && ilog_reader_header(r, 1) == NULL,
	   "no anchor, no header for a node never seen");
	ilog_reader_next(r, &got);
	const struct ilog_schema *s = ilog_reader_schema(r, 200);
	ok(s && s->nfields == 2 && s->name.n == 10 && !memcmp(s->name.p, "gpu_metric", 10) &&
	   s->fields[1].n == 4 && !memcmp(s->fields[1].p, "util", 4),
	   "schema names of an unknown kind are kept");
	ok(ilog_reader_schema(r, ILOG_K_CUDA) == NULL, "no schema copy kept for known kinds");
	ilog_reader_next(r, &got);
	is_u64(ilog_reader_wall(r, 0, 2000000010ull), 1795000001000000110ull,
	       "a clock record moves the anchor");
	ilog_reader_next(r, &got);
	ok(got->kind == ILOG_K_NODE && got->node == 3, "a node record switches the node in force");
	ilog_reader_next(r, &got);
	ilog_reader_next(r, &got);
	ok(got->kind == ILOG_K_CUDA && got->node == 3 && ilog_reader_wall(r, 3, 50) == 51,
	   "records after it carry that node and its anchor");
	const struct ilog_header *hh = ilog_reader_header(r, 3);
	ok(hh && hh->host.n == 5 && !memcmp(hh->host.p, "other", 5) && ilog_reader_header(r, 0),
	   "headers are kept per node");
	is_u64(ilog_record_ts(got), 50, "ilog_record_ts of a cuda record");
	rclose(&rl);

	/* cat a a: the second header resets node to 0 */
	struct bytes cat = { 0 };
	bytes_put(&cat, a.p, a.n);
	bytes_put(&cat, a.p, a.n);
	uint64_t n;
	char err[256];
	ok(read_count(&cat, &n, err, sizeof(err)) == 0 && n == 12,
	   "two concatenated logs read as one stream (cat a.ilog b.ilog)");
	r = ropen(&rl, cat.p, cat.n);
	for (int i = 0; i < 7; i++)
		ilog_reader_next(r, &got);
	ok(got->kind == ILOG_K_HEADER && got->node == 0, "the second log's header is back on node 0");
	rclose(&rl);
	bytes_free(&cat);
	bytes_free(&a);

	/* kind names at the edges */
	int all = 1;
	for (uint32_t k = 1; k < ILOG_K__COUNT; k++)
		if (ilog_kind_desc(k) &&
		    (!ilog_kind_name(k) || ilog_kind_from_name(ilog_kind_name(k)) != (int)k))
			all = 0;
	ok(all && !ilog_kind_name(0) && !ilog_kind_name(ILOG_K__COUNT) &&
	   ilog_kind_from_name("nope") == -1, "kind names round trip; unknown ones are NULL / -1");
	all = 1;
	for (uint32_t op = 1; op < ILOG_OP__COUNT; op++)
		if (!ilog_op_name(op) || ilog_op_from_name(ilog_op_name(op)) != (int)op ||
		    !ilog_layer_name(ilog_op_layer(op)))
			all = 0;
	ok(all && !ilog_op_name(ILOG_OP__COUNT) && ilog_op_from_name("cudaNope") == -1 &&
	   ilog_op_layer(ILOG_OP_cuLaunchKernel) == ILOG_LAYER_DRIVER &&
	   ilog_op_layer(ILOG_OP_cudaGraphLaunch) == ILOG_LAYER_GRAPH &&
	   ilog_op_layer(ILOG_OP_ncclAllReduce) == ILOG_LAYER_NCCL,
	   "op names round trip and map to their layer");
}

/* SPEC §5.17: a log's named op numbers, read into the program's table. */
static struct bytes named_log(const char *const *names, const uint32_t *nums, size_t n,
			      uint32_t calls)
{
	struct wlog wl;
	struct ilog_writer *w = wopen(&wl, NULL);
	struct ilog_record h = test_header();
	wput(w, &h);
	for (size_t i = 0; i < n; i++) {
		/* written by hand: this writer's own table would renumber them */
		msgpack_sbuffer sb;
		msgpack_packer pk;
		msgpack_sbuffer_init(&sb);
		msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
		msgpack_pack_array(&pk, 4);
		msgpack_pack_uint32(&pk, ILOG_K_OPNAME);
		msgpack_pack_uint32(&pk, nums[i]);
		msgpack_pack_uint32(&pk, ILOG_LAYER_DRIVER);
		msgpack_pack_str(&pk, strlen(names[i]));
		msgpack_pack_str_body(&pk, names[i], strlen(names[i]));
		wraw(w, sb.data, sb.size);
		msgpack_sbuffer_destroy(&sb);
		for (uint32_t c = 0; c < calls; c++) {
			struct ilog_record r = { .kind = ILOG_K_CUDA };
			r.u.cuda.ts_ns = 2000000000ull + c;
			r.u.cuda.pid = 9;
			r.u.cuda.op = (uint16_t)nums[i];
			r.u.cuda.layer = ILOG_LAYER_DRIVER;
			r.u.cuda.nargs = 3;
			r.u.cuda.args[0] = c;
			r.u.cuda.args[1] = UINT64_MAX;
			r.u.cuda.args[2] = 0x7f00;
			/* put_raw of the cuda record, also by hand: the writer's
			 * put_cuda would name the number from its own table */
			msgpack_sbuffer_init(&sb);
			msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
			msgpack_pack_array(&pk, 22);
			msgpack_pack_uint32(&pk, ILOG_K_CUDA);
			msgpack_pack_int64(&pk, 0);
			for (int f = 0; f < 19; f++) {
				if (f == 1)
					msgpack_pack_uint32(&pk, 9); /* pid */
				else if (f == 4)
					msgpack_pack_uint32(&pk, nums[i]); /* op */
				else if (f == 3)
					msgpack_pack_uint32(&pk, ILOG_LAYER_DRIVER);
				else
					msgpack_pack_uint32(&pk, 0);
			}
			msgpack_pack_array(&pk, 3);
			for (int a = 0; a < 3; a++)
				msgpack_pack_uint64(&pk, r.u.cuda.args[a]);
			wraw(w, sb.data, sb.size);
			msgpack_sbuffer_destroy(&sb);
		}
		ilog_writer_flush(w);
	}
	return wclose(&wl);
}

static void test_named_ops(void)
{
	static const char *const na[] = { "cuTestNamedA", "cuTestNamedB" };
	static const uint32_t ia[] = { 300, 301 };
	static const char *const nb[] = { "cuTestNamedB", "cuTestNamedC" };
	/* numbers no other test's log uses unnamed (those are kept unnamed,
	 * ilog_op_unnamed: 256 and 65535 are boundary values there) */
	static const uint32_t ib[] = { 300, 290 };
	struct bytes la = named_log(na, ia, 2, 2), lb = named_log(nb, ib, 2, 3);
	/* read both in one program, and write them through one writer */
	struct wlog wl;
	struct ilog_writer *w = wopen(&wl, NULL);
	const struct bytes *in[] = { &la, &lb };
	uint64_t calls[3] = { 0 };
	int good = 1, nrec = 0;
	for (int k = 0; k < 2; k++) {
		struct rlog rl;
		struct ilog_reader *r = ropen(&rl, in[k]->p, in[k]->n);
		const struct ilog_record *rec;
		int rc;
		while ((rc = ilog_reader_next(r, &rec)) == 1) {
			if (rec->kind == ILOG_K_CUDA) {
				const char *nm = ilog_op_name(rec->u.cuda.op);
				int j = nm ? nm[11] - 'A' : -1;
				if (j < 0 || j > 2 || rec->u.cuda.nargs != 3 ||
				    rec->u.cuda.args[1] != UINT64_MAX ||
				    ilog_op_layer(rec->u.cuda.op) != ILOG_LAYER_DRIVER)
					good = 0;
				else
					calls[j]++;
			}
			if (k == 0 || rec->kind != ILOG_K_HEADER)
				wput(w, rec);
			nrec++;
		}
		if (rc < 0) {
			diag("%s", ilog_reader_error(r));
			good = 0;
		}
		rclose(&rl);
	}
	ok(good && calls[0] == 2 && calls[1] == 2 + 3 && calls[2] == 3 &&
	   ilog_op_from_name("cuTestNamedA") == 300 && ilog_op_from_name("cuTestNamedB") == 301 &&
	   ilog_op_from_name("cuTestNamedC") == 290 && ilog_op_limit() >= 302,
	   "named ops: two logs numbering the same name differently read into one table "
	   "(a log's own numbers kept where free)");
	struct bytes out = wclose(&wl);
	struct rlog rl;
	struct ilog_reader *r = ropen(&rl, out.p, out.n);
	const struct ilog_record *rec;
	int names = 0, ncuda = 0, named_first = 1;
	uint64_t seen = 0;
	while (ilog_reader_next(r, &rec) == 1) {
		if (rec->kind == ILOG_K_OPNAME) {
			names++;
			seen |= 1ull << (rec->u.opname.op & 63);
		} else if (rec->kind == ILOG_K_CUDA) {
			ncuda++;
			if (!(seen & (1ull << (rec->u.cuda.op & 63))))
				named_first = 0;
		}
	}
	ok(names == 3 && ncuda == 10 && named_first && !ilog_reader_error(r),
	   "named ops: a writer names each number once, before its first record (%d names)",
	   names);
	rclose(&rl);
	/* an opname below 256 is damage */
	static const char *const bad[] = { "cuTestNamedA" };
	static const uint32_t ibad[] = { 12 };
	struct bytes lbad = named_log(bad, ibad, 1, 0);
	r = ropen(&rl, lbad.p, lbad.n);
	while (ilog_reader_next(r, &rec) == 1)
		;
	const char *e = ilog_reader_error(r);
	ok(e && strstr(e, "opname: op 12 is not a named op"), "named ops: opname of op 12 is damage: %s",
	   e ? e : "(none)");
	rclose(&rl);
	bytes_free(&la);
	bytes_free(&lb);
	bytes_free(&lbad);
	bytes_free(&out);
}

int main(void)
{
	pattern_init();
	test_round_trip();
	test_ts_deltas();
	test_cuda_wire();
	test_forward_compat();
	test_bad_records();
	test_cuts();
	test_corruption();
	test_bad_input();
	test_pipe();
	test_writer();
	test_reader_context();
	test_named_ops();
	return done_testing();
}
