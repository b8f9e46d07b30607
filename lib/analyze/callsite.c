// SPDX-License-Identifier: MIT
/* Call paths of CUDA calls and the heaviest one told in a line (callsite.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ingero/callsite.h"
#include "ingero/vec.h"
#include "ingero/symbolize_map.h"
#include "ingero/hmap.h"

struct path {
	uint32_t node, pid;
	uint16_t op;
	uint64_t stack, pystack;
	uint64_t calls, ns, max_ns;
};

struct ilog_callsites {
	int all_calls;
	struct ilog_symmap *sym;
	struct ilog_hmap idx;  /* path key -> paths[] + 1 */
	struct path *paths;
	uint32_t npaths, cap;
};

struct ilog_callsites *ilog_callsites_new(int all_calls)
{
	struct ilog_callsites *c = calloc(1, sizeof(*c));
	if (c && !(c->sym = ilog_symmap_new())) {
		free(c);
		return NULL;
	}
	if (c) {
		ilog_symmap_keep_stacks(c->sym);
		c->all_calls = all_calls;
	}
	return c;
}

void ilog_callsites_free(struct ilog_callsites *c)
{
	if (!c)
		return;
	ilog_symmap_free(c->sym);
	ilog_hmap_free(&c->idx);
	free(c->paths);
	free(c);
}

int ilog_callsites_observe(struct ilog_callsites *c, const struct ilog_record *rec)
{
	return ilog_symmap_note(c->sym, rec);
}

static uint64_t op_key(uint32_t node, uint32_t pid, uint16_t op)
{
	uint64_t k = ilog_hash2(ilog_hash2(0x5ca1ab1e, (uint64_t)node << 32 | pid), op);
	return k ? k : 1;
}

int ilog_callsites_add(struct ilog_callsites *c, const struct ilog_record *rec)
{
	if (rec->kind != ILOG_K_CUDA)
		return 0;
	const struct ingero_cuda_event *e = &rec->u.cuda;
	if (!e->stack_id && !e->pystack_id && !c->all_calls)
		return 0;
	uint64_t k = ilog_hash2(ilog_hash2(op_key(rec->node, e->pid, e->op), e->stack_id), e->pystack_id);
	uint64_t *v = ilog_hmap_put(&c->idx, k ? k : 1, 0);
	if (!v)
		return -1;
	if (!*v) {
		if (ilog_grow((void **)&c->paths, &c->cap, c->npaths, sizeof(*c->paths), 64))
			return -1;
		c->paths[c->npaths] = (struct path){ rec->node, e->pid, e->op, e->stack_id,
						     e->pystack_id, 0, 0, 0 };
		*v = ++c->npaths;
	}
	struct path *p = &c->paths[*v - 1];
	p->calls++;
	if (e->flags & ILOG_CUDA_F_UNTIMED)
		return 0; /* counted; no duration (SPEC §5.4) */
	p->ns += e->dur_ns;
	if (e->dur_ns > p->max_ns)
		p->max_ns = e->dur_ns;
	return 0;
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* A library of the CUDA stack itself: its frames say nothing about who called. */
static int cuda_library(const char *module)
{
	static const char *const libs[] = { "libcudart", "libcuda.", "libcublas", "libcudnn",
					    "libnccl", "libcufft", "libcurand", "libcusparse",
					    "libcusolver", "libnvrtc", "libnvJitLink", "libcupti" };
	const char *b = base(module);
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++)
		if (!strncmp(b, libs[i], strlen(libs[i])))
			return 1;
	return 0;
}

struct out {
	char *p;
	size_t n, len;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	if (o->len + 1 >= o->n)
		return;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(o->p + o->len, o->n - o->len, fmt, ap);
	va_end(ap);
	if (k > 0)
		o->len = o->len + (size_t)k < o->n ? o->len + (size_t)k : o->n - 1;
}

#define SHOWN 3   /* frames told */
#define CAP 1024  /* frames of one merged stack looked at */

static void describe(const struct ilog_callsites *c, const struct path *p, struct out *o)
{
	static struct ilog_callframe f[CAP];
	unsigned n = ilog_symmap_callstack(c->sym, p->node, p->stack, p->pystack, f, CAP), shown = 0;
	/* Python frames tell it best: the line of the script that made the call */
	for (unsigned i = 0; i < n && shown < SHOWN; i++) {
		if (!f[i].py || !f[i].pyloc.file)
			continue;
		put(o, "%s%s:%d in %s()", shown ? " < " : "", base(f[i].pyloc.file), f[i].pyloc.line,
		    f[i].pyloc.func);
		shown++;
	}
	if (shown)
		return;
	/* else the innermost native frames outside the CUDA libraries */
	for (unsigned i = 0; i < n && shown < SHOWN; i++) {
		const struct ilog_frame *fr = &f[i].frame;
		/* unsymbolized frames (no symbol record) cannot be named */
		if (f[i].py || !*fr->module || cuda_library(fr->module))
			continue;
		const char *sep = shown ? " < " : "";
		if (*fr->function && *fr->file)
			put(o, "%s%s (%s:%u)", sep, fr->function, base(fr->file), fr->line);
		else if (*fr->function)
			put(o, "%s%s (%s)", sep, fr->function, base(fr->module));
		else
			put(o, "%s%s+0x%llx", sep, base(fr->module), (unsigned long long)fr->module_off);
		shown++;
	}
}

int ilog_callsites_describe(const struct ilog_callsites *c, uint32_t node, uint32_t pid,
			    uint16_t op, uint64_t stack_id, uint64_t pystack_id, char *out,
			    size_t n)
{
	if (n)
		out[0] = 0;
	if (!c || !n || (!stack_id && !pystack_id))
		return 0;
	struct path p = { node, pid, op, stack_id, pystack_id, 0, 0, 0 };
	struct out o = { out, n, 0 };
	describe(c, &p, &o);
	return o.len > 0;
}

struct told {
	char *text;
	uint64_t calls, ns;
};

static int by_text(const void *a, const void *b)
{
	return strcmp(((const struct told *)a)->text, ((const struct told *)b)->text);
}

/*
 * Paths are told, then summed by what they say: stacks that differ only
 * in frames nobody can name (past a function without frame pointers the
 * walk reads stale rbp values, different on each call) are one call site.
 */
int ilog_callsites_top(const struct ilog_callsites *c, uint32_t node, uint32_t pid, uint16_t op,
		       char *out, size_t n, uint64_t *ns_out, uint64_t *calls)
{
	struct told *t = NULL;
	uint32_t nt = 0, cap = 0;
	int found = 0;
	char line[512];
	for (size_t i = 0; i < c->npaths; i++) {
		const struct path *p = &c->paths[i];
		if (p->node != node || p->pid != pid || (op && p->op != op))
			continue;
		struct out o = { line, sizeof(line), 0 };
		line[0] = 0;
		describe(c, p, &o);
		if (!o.len)
			continue; /* nothing could be named */
		if (ilog_grow((void **)&t, &cap, nt, sizeof(*t), 16))
			goto out;
		if (!(t[nt].text = strdup(line)))
			goto out;
		t[nt].calls = p->calls;
		t[nt].ns = p->ns;
		nt++;
	}
	if (!nt || !n)
		goto out;
	qsort(t, nt, sizeof(*t), by_text);
	size_t best = 0;
	uint64_t best_ns = 0, best_calls = 0;
	for (size_t i = 0; i < nt;) {
		size_t j = i;
		uint64_t ns = 0, k = 0;
		for (; j < nt && !strcmp(t[j].text, t[i].text); j++) {
			ns += t[j].ns;
			k += t[j].calls;
		}
		if (ns > best_ns || (ns == best_ns && k > best_calls)) {
			best = i;
			best_ns = ns;
			best_calls = k;
		}
		i = j;
	}
	snprintf(out, n, "%s", t[best].text);
	*ns_out = best_ns;
	*calls = best_calls;
	found = 1;
out:
	for (size_t i = 0; i < nt; i++)
		free(t[i].text);
	free(t);
	return found;
}

int ilog_callsites_each(const struct ilog_callsites *c,
			int (*fn)(void *arg, const struct ilog_callpath *p), void *arg)
{
	static struct ilog_callframe f[CAP];
	for (size_t i = 0; i < c->npaths; i++) {
		const struct path *p = &c->paths[i];
		struct ilog_callpath cp = {
			.node = p->node, .pid = p->pid, .op = p->op, .stack_id = p->stack,
			.pystack_id = p->pystack, .calls = p->calls, .ns = p->ns, .max_ns = p->max_ns,
			.frames = f,
		};
		cp.nframes = ilog_symmap_callstack(c->sym, p->node, p->stack, p->pystack, f, CAP);
		int rc = fn(arg, &cp);
		if (rc)
			return rc;
	}
	return 0;
}
