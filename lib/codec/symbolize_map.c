// SPDX-License-Identifier: MIT
/* Symbolized stacks while reading (lib/include/ingero/symbolize_map.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ingero/pyline.h"
#include "ingero/vec.h"
#include "ingero/symbolize_map.h"

struct pycode {
	const char *file, *func;
	uint32_t first, version;
	uint8_t *table;
	uint32_t ntable;
};

struct ilog_symmap {
	struct ilog_strpool pool;
	struct ilog_frame *frames;
	uint32_t nframes, capframes;
	struct { uint32_t first, n; } *ents;
	uint32_t nents, capents;
	struct ilog_hmap ipidx;        /* (node << 32 | pid, ip) -> ents[] */
	uint32_t last;                /* ents[] entry the last symbol went to */
	struct pycode *codes;
	uint32_t ncodes, capcodes;
	struct ilog_hmap codeidx;      /* (node << 32 | pid, code) -> codes[] */
	/* stack and pystack records, kept only after ilog_symmap_keep_stacks */
	int keep_stacks;
	struct ilog_hmap stackidx;     /* (node, id) -> stacks[] */
	struct kept_stack { uint32_t pid, nr, first; } *stacks;
	uint32_t nstacks, capstacks;
	uint64_t *ips;
	uint32_t nips, capips;
	struct ilog_hmap pyidx;        /* (node, id) -> pys[] */
	struct kept_py { uint32_t pid, nr, first; uint64_t entry; } *pys;
	uint32_t npys, cappys;
	struct ingero_pyframe *pyfr;
	uint32_t npyfr, cappyfr;
	struct ilog_hmap kernidx;      /* (node << 32 | pid, handle) -> name (pool) */
};

struct ilog_symmap *ilog_symmap_new(void)
{
	struct ilog_symmap *m = calloc(1, sizeof(*m));
	if (m)
		m->last = UINT32_MAX;
	return m;
}

void ilog_symmap_free(struct ilog_symmap *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; i < m->ncodes; i++)
		free(m->codes[i].table);
	free(m->codes);
	free(m->frames);
	free(m->ents);
	ilog_hmap_free(&m->ipidx);
	ilog_hmap_free(&m->codeidx);
	ilog_hmap_free(&m->stackidx);
	ilog_hmap_free(&m->pyidx);
	ilog_hmap_free(&m->kernidx);
	free(m->stacks);
	free(m->ips);
	free(m->pys);
	free(m->pyfr);
	ilog_strpool_free(&m->pool);
	free(m);
}

/* sym_grow (symbolize_int.h), starting at 256 elements */
#define GROW(arr, n, cap) ilog_grow((void **)&(arr), &(cap), (n), sizeof(*(arr)), 256)

static const char *keep(struct ilog_symmap *m, struct ilog_str s)
{
	return ilog_strpool_intern(&m->pool, s.p, s.n);
}

static int note_symbol(struct ilog_symmap *m, uint32_t node, const struct ilog_symbol *s)
{
	uint64_t key = (uint64_t)node << 32 | s->pid;
	uint64_t *v = ilog_hmap_get(&m->ipidx, key, s->ip);
	uint32_t e;
	if (s->inline_depth == 0 || !v) {
		/* a frame list starts (again, if this ip had one) */
		if (GROW(m->ents, m->nents, m->capents))
			return -1;
		e = m->nents++;
		m->ents[e].first = m->nframes;
		m->ents[e].n = 0;
		if (ilog_hmap_set(&m->ipidx, key, s->ip, e))
			return -1;
	} else {
		e = *v;
		if (m->ents[e].first + m->ents[e].n != m->nframes) {
			/* its frames are not last (records of ips interleaved):
			 * move them to the end so they stay contiguous */
			for (uint32_t i = 0; i < m->ents[e].n; i++) {
				if (GROW(m->frames, m->nframes, m->capframes))
					return -1;
				m->frames[m->nframes++] = m->frames[m->ents[e].first + i];
			}
			m->ents[e].first = m->nframes - m->ents[e].n;
		}
	}
	if (GROW(m->frames, m->nframes, m->capframes))
		return -1;
	struct ilog_frame f = {
		.ip = s->ip, .module = keep(m, s->module), .module_off = s->module_off,
		.function = keep(m, s->function), .sym_off = s->sym_off, .file = keep(m, s->file),
		.line = s->line, .inline_depth = m->ents[e].n,
	};
	if (!f.module || !f.function || !f.file)
		return -1;
	m->frames[m->nframes++] = f;
	m->ents[e].n++;
	return 0;
}

static int note_pycode(struct ilog_symmap *m, uint32_t node, const struct ilog_pycode *p)
{
	uint64_t key = (uint64_t)node << 32 | p->pid;
	uint64_t *v = ilog_hmap_get(&m->codeidx, key, p->code);
	uint32_t i;
	if (v) {
		i = *v;
		free(m->codes[i].table);
	} else {
		if (GROW(m->codes, m->ncodes, m->capcodes))
			return -1;
		i = m->ncodes++;
		if (ilog_hmap_set(&m->codeidx, key, p->code, i))
			return -1;
	}
	struct pycode *c = &m->codes[i];
	memset(c, 0, sizeof(*c));
	c->file = keep(m, p->filename);
	c->func = keep(m, p->qualname);
	c->first = p->firstlineno;
	c->version = p->py_version;
	if (p->linetable.n && !(c->table = malloc(p->linetable.n)))
		return -1;
	if (p->linetable.n)
		memcpy(c->table, p->linetable.p, p->linetable.n);
	c->ntable = p->linetable.n;
	return c->file && c->func ? 0 : -1;
}

/* Room for n more elements of an array that grows by doubling. */
static int reserve(void **p, uint32_t used, uint32_t *cap, uint32_t n, size_t esize)
{
	while (*cap - used < n)
		if (ilog_grow(p, cap, *cap, esize, 256))
			return -1;
	return 0;
}

static int note_stack(struct ilog_symmap *m, uint32_t node, const struct ingero_stack *s)
{
	uint32_t nr = s->nr < INGERO_MAX_STACK ? s->nr : INGERO_MAX_STACK;
	if (ilog_hmap_get(&m->stackidx, node, s->id))
		return 0; /* ids are content hashes: the same stack again */
	if (reserve((void **)&m->stacks, m->nstacks, &m->capstacks, 1, sizeof(*m->stacks)) ||
	    reserve((void **)&m->ips, m->nips, &m->capips, nr, sizeof(*m->ips)))
		return -1;
	m->stacks[m->nstacks] = (struct kept_stack){ s->pid, nr, m->nips };
	memcpy(m->ips + m->nips, s->ips, nr * sizeof(*m->ips));
	m->nips += nr;
	return ilog_hmap_set(&m->stackidx, node, s->id, m->nstacks++);
}

static int note_pystack(struct ilog_symmap *m, uint32_t node, const struct ingero_pystack *s)
{
	uint32_t nr = s->nr < INGERO_MAX_PYFRAMES ? s->nr : INGERO_MAX_PYFRAMES;
	if (ilog_hmap_get(&m->pyidx, node, s->id))
		return 0;
	if (reserve((void **)&m->pys, m->npys, &m->cappys, 1, sizeof(*m->pys)) ||
	    reserve((void **)&m->pyfr, m->npyfr, &m->cappyfr, nr, sizeof(*m->pyfr)))
		return -1;
	m->pys[m->npys] = (struct kept_py){ s->pid, nr, m->npyfr, s->entry };
	memcpy(m->pyfr + m->npyfr, s->frames, nr * sizeof(*m->pyfr));
	m->npyfr += nr;
	return ilog_hmap_set(&m->pyidx, node, s->id, m->npys++);
}

void ilog_symmap_keep_stacks(struct ilog_symmap *m)
{
	m->keep_stacks = 1;
}

int ilog_symmap_note(struct ilog_symmap *m, const struct ilog_record *rec)
{
	switch (rec->kind) {
	case ILOG_K_KERNEL: {
		const char *n = keep(m, rec->u.kernel.name);
		return n ? ilog_hmap_set(&m->kernidx, (uint64_t)rec->node << 32 | rec->u.kernel.pid,
					 rec->u.kernel.handle, (uint64_t)(uintptr_t)n)
			 : -1;
	}
	case ILOG_K_SYMBOL: return note_symbol(m, rec->node, &rec->u.symbol);
	case ILOG_K_PYCODE: return note_pycode(m, rec->node, &rec->u.pycode);
	case ILOG_K_STACK: return m->keep_stacks ? note_stack(m, rec->node, &rec->u.stack) : 0;
	case ILOG_K_PYSTACK:
		return m->keep_stacks ? note_pystack(m, rec->node, &rec->u.pystack) : 0;
	default: return 0;
	}
}

const struct ilog_frame *ilog_symmap_frames(const struct ilog_symmap *m, uint32_t node,
					    uint32_t pid, uint64_t ip, unsigned *n)
{
	uint64_t *v = ilog_hmap_get(&m->ipidx, (uint64_t)node << 32 | pid, ip);
	if (!v) {
		*n = 0;
		return NULL;
	}
	*n = m->ents[*v].n;
	return m->frames + m->ents[*v].first;
}

const char *ilog_symmap_kernel(const struct ilog_symmap *m, uint32_t node,
			       const struct ingero_cuda_event *e)
{
	switch (e->op) {
	case ILOG_OP_cudaLaunchKernel: {
		/* the host stub's symbol (ingero-symbolize): its physical frame */
		unsigned n;
		const struct ilog_frame *f = ilog_symmap_frames(m, node, e->pid, e->handle, &n);
		return n && f[n - 1].function[0] ? f[n - 1].function : NULL;
	}
	case ILOG_OP_cuLaunchKernel:
	case ILOG_OP_cuLaunchKernelEx: {
		const uint64_t *v = ilog_hmap_get(&m->kernidx, (uint64_t)node << 32 | e->pid, e->handle);
		return v ? (const char *)(uintptr_t)*v : NULL;
	}
	default:
		return NULL;
	}
}

int ilog_symmap_pyframe(const struct ilog_symmap *m, uint32_t node, uint32_t pid,
			uint64_t code, uint32_t lasti, struct ilog_pyloc *out)
{
	uint64_t *v = ilog_hmap_get(&m->codeidx, (uint64_t)node << 32 | pid, code);
	if (!v)
		return 0;
	const struct pycode *c = &m->codes[*v];
	int line = ilog_py_addr2line(c->version, c->table, c->ntable, c->first, lasti);
	out->file = c->file;
	out->func = c->func;
	out->line = line > 0 ? line : 0;
	return 1;
}

/* ---- a call's stack: native and Python frames merged ---- */

/* Is ip a C call of CPython's eval loop?  Its physical frame, or one
 * inlined into it, is _PyEval_EvalFrameDefault (3.10 to 3.13). */
static int eval_loop(const struct ilog_frame *f, unsigned n)
{
	for (unsigned k = 0; k < n; k++)
		if (!strcmp(f[k].function, "_PyEval_EvalFrameDefault"))
			return 1;
	return 0;
}

void ilog_py_place(const uint8_t *is_eval, unsigned nnat, unsigned npy, uint64_t entry,
		   unsigned *at)
{
	unsigned nevals = 0;
	for (unsigned i = 0; i < nnat; i++)
		nevals += is_eval[i] != 0;
	/* without entry bits: one each if the counts agree, else all to the innermost */
	if (!entry && npy)
		entry = nevals == npy ? ~0ull : 1ull << ((npy - 1) & 63);
	unsigned k = 0;
	for (unsigned i = 0; i < nnat && k < npy; i++) {
		if (!is_eval[i])
			continue;
		/* this eval-loop call runs frames k.. up to the one entered from C */
		do
			at[k] = i;
		while (!(entry >> (k++ & 63) & 1) && k < npy);
	}
	/* Python frames the native stack did not reach: outermost */
	for (; k < npy; k++)
		at[k] = nnat;
}

static int put_py(struct ilog_callframe *out, unsigned cap, unsigned *n,
		  const struct ilog_symmap *m, uint32_t node, uint32_t pid,
		  const struct ingero_pyframe *f)
{
	if (*n >= cap)
		return -1;
	struct ilog_callframe *c = &out[(*n)++];
	memset(c, 0, sizeof(*c));
	c->py = 1;
	c->pycode = f->code;
	c->lasti = f->lasti;
	if (!ilog_symmap_pyframe(m, node, pid, f->code, f->lasti, &c->pyloc))
		c->pyloc = (struct ilog_pyloc){ NULL, NULL, 0 };
	return 0;
}

unsigned ilog_symmap_callstack(const struct ilog_symmap *m, uint32_t node, uint64_t stack_id,
			       uint64_t pystack_id, struct ilog_callframe *out, unsigned cap)
{
	uint64_t *sv = stack_id ? ilog_hmap_get(&m->stackidx, node, stack_id) : NULL;
	uint64_t *pv = pystack_id ? ilog_hmap_get(&m->pyidx, node, pystack_id) : NULL;
	const struct kept_stack *st = sv ? &m->stacks[*sv] : NULL;
	const struct kept_py *py = pv ? &m->pys[*pv] : NULL;
	const uint64_t *ips = st ? m->ips + st->first : NULL;
	const struct ingero_pyframe *pf = py ? m->pyfr + py->first : NULL;
	uint32_t nip = st ? st->nr : 0, npy = py ? py->nr : 0, pid = st ? st->pid : py ? py->pid : 0;
	unsigned n = 0, nf, at[INGERO_MAX_PYFRAMES];
	uint8_t is_eval[INGERO_MAX_STACK] = { 0 };
	for (uint32_t i = 0; i < nip; i++) {
		const struct ilog_frame *f = ilog_symmap_frames(m, node, pid, ips[i], &nf);
		is_eval[i] = f && eval_loop(f, nf);
	}
	ilog_py_place(is_eval, nip, npy, py ? py->entry : 0, at);
	uint32_t k = 0;
	for (uint32_t i = 0; i < nip; i++) {
		if (k < npy && at[k] == i) {
			/* this call's Python frames replace it */
			for (; k < npy && at[k] == i; k++)
				if (put_py(out, cap, &n, m, node, pid, &pf[k]))
					return n;
			continue;
		}
		const struct ilog_frame *f = ilog_symmap_frames(m, node, pid, ips[i], &nf);
		if (!nf) {
			if (n >= cap)
				return n;
			memset(&out[n], 0, sizeof(out[n]));
			out[n].frame = (struct ilog_frame){ .ip = ips[i], .module = "", .function = "",
							    .file = "" };
			n++;
			continue;
		}
		for (unsigned j = 0; j < nf; j++) {
			if (n >= cap)
				return n;
			memset(&out[n], 0, sizeof(out[n]));
			out[n].frame = f[j];
			out[n].inlined = j + 1 < nf;
			n++;
		}
	}
	for (; k < npy; k++)
		if (put_py(out, cap, &n, m, node, pid, &pf[k]))
			return n;
	return n;
}

/* ---- JSON ---- */

/* Appends remember a failure instead of returning it, so the renderers
 * read as straight sequences (and C's unspecified order of `|` operands
 * never reorders output). */
struct jw {
	struct ilog_buf *b;
	int err;
};

static void jput(struct jw *w, const char *s, size_t n)
{
	if (!w->err && ilog_buf_put(w->b, s, n))
		w->err = 1;
}

#define JS(w, lit) jput(w, lit, sizeof(lit) - 1)

static void jhex(struct jw *w, uint64_t v)
{
	char t[24];
	int n = snprintf(t, sizeof(t), "\"0x%llx\"", (unsigned long long)v);
	jput(w, t, (size_t)n);
}

static void jnum(struct jw *w, uint64_t v)
{
	char t[24];
	int n = snprintf(t, sizeof(t), "%llu", (unsigned long long)v);
	jput(w, t, (size_t)n);
}

/* A string, or null when empty. */
static void jstr(struct jw *w, const char *s)
{
	if (!s || !*s)
		JS(w, "null");
	else if (!w->err && ilog_json_str(w->b, s, strlen(s)))
		w->err = 1;
}

/* A number (hex: in quotes), or null when it is not known. */
static void jnum_known(struct jw *w, int known, int hex, uint64_t v)
{
	if (!known)
		JS(w, "null");
	else if (hex)
		jhex(w, v);
	else
		jnum(w, v);
}

static void put_frame(struct jw *w, const struct ilog_frame *f, int inlined)
{
	JS(w, "{\"ip\":");
	jhex(w, f->ip);
	JS(w, ",\"module\":");
	jstr(w, f->module);
	JS(w, ",\"module_off\":");
	jnum_known(w, *f->module != 0, 1, f->module_off);
	JS(w, ",\"symbol\":");
	jstr(w, f->function);
	JS(w, ",\"offset\":");
	jnum_known(w, *f->function && !inlined, 0, f->sym_off);
	JS(w, ",\"file\":");
	jstr(w, f->file);
	JS(w, ",\"line\":");
	jnum_known(w, f->line != 0, 0, f->line);
	if (inlined)
		JS(w, ",\"inlined\":true}");
	else
		JS(w, ",\"inlined\":false}");
}

static void stack_json(const struct ilog_symmap *m, struct jw *w, uint32_t node,
		       const struct ingero_stack *s)
{
	uint32_t nr = s->nr < INGERO_MAX_STACK ? s->nr : INGERO_MAX_STACK;
	unsigned n, known = 0;
	for (uint32_t i = 0; i < nr && !known; i++)
		known = ilog_symmap_frames(m, node, s->pid, s->ips[i], &n) != NULL;
	if (!known)
		return;
	JS(w, ",\"frames\":[");
	for (uint32_t i = 0; i < nr; i++) {
		const struct ilog_frame *f = ilog_symmap_frames(m, node, s->pid, s->ips[i], &n);
		if (i)
			JS(w, ",");
		if (!n) {
			struct ilog_frame none = { .ip = s->ips[i], .module = "", .function = "",
						   .file = "" };
			put_frame(w, &none, 0);
		}
		for (unsigned k = 0; k < n; k++) {
			if (k)
				JS(w, ",");
			put_frame(w, &f[k], k + 1 < n);
		}
	}
	JS(w, "]");
}

static void pyframe_json(struct jw *w, const struct ilog_pyloc *loc)
{
	if (!loc->file) {
		JS(w, "{\"py_file\":null,\"py_func\":null,\"py_line\":null}");
		return;
	}
	JS(w, "{\"py_file\":");
	jstr(w, loc->file);
	JS(w, ",\"py_func\":");
	jstr(w, loc->func);
	JS(w, ",\"py_line\":");
	if (loc->line)
		jnum(w, (uint64_t)loc->line);
	else
		JS(w, "null");
	JS(w, "}");
}

#define CALLSTACK_CAP 1024

/* A cuda record's merged stack: ,"callstack":[...] */
static void callstack_json(const struct ilog_symmap *m, struct jw *w, uint32_t node,
			   const struct ingero_cuda_event *e)
{
	static struct ilog_callframe cf[CALLSTACK_CAP];
	unsigned n = ilog_symmap_callstack(m, node, e->stack_id, e->pystack_id, cf, CALLSTACK_CAP);
	if (!n)
		return;
	JS(w, ",\"callstack\":[");
	for (unsigned i = 0; i < n; i++) {
		if (i)
			JS(w, ",");
		if (cf[i].py)
			pyframe_json(w, &cf[i].pyloc);
		else
			put_frame(w, &cf[i].frame, cf[i].inlined);
	}
	JS(w, "]");
}

static void pystack_json(const struct ilog_symmap *m, struct jw *w, uint32_t node,
			 const struct ingero_pystack *s)
{
	uint32_t nr = s->nr < INGERO_MAX_PYFRAMES ? s->nr : INGERO_MAX_PYFRAMES;
	struct ilog_pyloc loc;
	unsigned known = 0;
	for (uint32_t i = 0; i < nr && !known; i++)
		known = ilog_symmap_pyframe(m, node, s->pid, s->frames[i].code, s->frames[i].lasti,
					    &loc);
	if (!known)
		return;
	JS(w, ",\"py_frames\":[");
	for (uint32_t i = 0; i < nr; i++) {
		if (i)
			JS(w, ",");
		if (!ilog_symmap_pyframe(m, node, s->pid, s->frames[i].code, s->frames[i].lasti,
					 &loc))
			loc = (struct ilog_pyloc){ NULL, NULL, 0 };
		pyframe_json(w, &loc);
	}
	JS(w, "]");
}

int ilog_symmap_json(const struct ilog_symmap *m, struct ilog_buf *b,
		     const struct ilog_record *rec)
{
	const char *kname = rec->kind == ILOG_K_CUDA ? ilog_symmap_kernel(m, rec->node, &rec->u.cuda)
						      : NULL;
	int cuda = rec->kind == ILOG_K_CUDA && m->keep_stacks;
	if ((rec->kind != ILOG_K_STACK && rec->kind != ILOG_K_PYSTACK && !cuda && !kname) ||
	    !b->len || b->p[b->len - 1] != '}')
		return 0;
	size_t start = b->len;
	struct jw w = { b, 0 };
	b->len--; /* reopen the object */
	if (kname) {
		JS(&w, ",\"kernel\":");
		jstr(&w, kname);
	}
	if (rec->kind == ILOG_K_STACK)
		stack_json(m, &w, rec->node, &rec->u.stack);
	else if (rec->kind == ILOG_K_PYSTACK)
		pystack_json(m, &w, rec->node, &rec->u.pystack);
	else if (cuda)
		callstack_json(m, &w, rec->node, &rec->u.cuda);
	JS(&w, "}");
	if (w.err) {
		b->len = start;
		b->p[start - 1] = '}';
		return -1;
	}
	return 0;
}
