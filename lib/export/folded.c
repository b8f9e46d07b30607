// SPDX-License-Identifier: MIT
/*
 * --format folded: CUDA time by call path as folded stacks, one line per
 * path, "root;caller;...;callee VALUE", the input of flamegraph.pl,
 * inferno, speedscope and `perf script | stackcollapse` users' tools:
 *
 *   ingero-symbolize run.ilog | ingero-export -f folded | flamegraph.pl > cuda.svg
 *
 * The root is the process ("train.py [812]"), then its frames outermost
 * first -- native frames by symbol (module+0xoffset without one, inlined
 * ones marked _[i] as flamegraph.pl colours them), Python frames as
 * "func (file.py:line)" in place of the eval-loop calls that ran them
 * (the same merge as --callstacks) -- and the leaf is the CUDA call.
 * VALUE is the calls' total duration in nanoseconds, so a frame's width is
 * the CUDA time under it.  Calls without a stack are "[no stack]".
 * Lines come in the order their path was first seen.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ingero/callsite.h"
#include "export_int.h"

struct folded {
	struct ilog_callsites *cs;
	struct ilog_buf b;
	struct procname { uint32_t node, pid; char comm[64]; } *procs;
	uint32_t nprocs, cap;
	struct ilog_sink_ctx *c;
};

static int folded_open(struct ilog_sink_ctx *c)
{
	struct folded *f = calloc(1, sizeof(*f));
	if (!f || !(f->cs = ilog_callsites_new(1))) {
		free(f);
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	f->c = c;
	c->state = f;
	return 0;
}

static int folded_observe(struct ilog_sink_ctx *c, const struct ilog_record *rec)
{
	struct folded *f = c->state;
	if (rec->kind == ILOG_K_PROCESS) {
		const struct ilog_process *p = &rec->u.process;
		size_t i = 0;
		while (i < f->nprocs && !(f->procs[i].node == rec->node && f->procs[i].pid == p->pid))
			i++;
		if (i == f->nprocs) {
			if (ilog_grow((void **)&f->procs, &f->cap, f->nprocs, sizeof(*f->procs), 16))
				goto oom;
			f->nprocs++;
		}
		f->procs[i].node = rec->node;
		f->procs[i].pid = p->pid;
		snprintf(f->procs[i].comm, sizeof(f->procs[i].comm), "%.*s", (int)p->comm.n, p->comm.p);
	}
	if (ilog_callsites_observe(f->cs, rec))
		goto oom;
	return 0;
oom:
	snprintf(c->err, sizeof(c->err), "out of memory");
	return -1;
}

static int folded_record(struct ilog_sink_ctx *c, const struct ilog_record *rec,
			 const struct ilog_reader *r)
{
	(void)r;
	struct folded *f = c->state;
	if (ilog_callsites_add(f->cs, rec)) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	return 0;
}

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* One frame's name: ';' separates frames and the last space the value,
 * so ';' becomes ':' and control characters a space. */
static int name(struct ilog_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int name(struct ilog_buf *b, const char *fmt, ...)
{
	char t[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t, sizeof(t), fmt, ap);
	va_end(ap);
	for (char *p = t; *p; p++)
		if (*p == ';')
			*p = ':';
		else if ((unsigned char)*p < 0x20)
			*p = ' ';
	return ilog_buf_put(b, t, strlen(t));
}

static int frame(struct ilog_buf *b, const struct ilog_callframe *f)
{
	if (f->py)
		return f->pyloc.file ? name(b, "%s (%s:%d)", f->pyloc.func, base(f->pyloc.file),
					    f->pyloc.line)
				     : name(b, "[py code 0x%llx]", (unsigned long long)f->pycode);
	const struct ilog_frame *n = &f->frame;
	const char *inl = f->inlined ? "_[i]" : "";
	if (*n->function)
		return name(b, "%s%s", n->function, inl);
	if (*n->module)
		return name(b, "%s+0x%llx", base(n->module), (unsigned long long)n->module_off);
	return name(b, "0x%llx", (unsigned long long)n->ip);
}

static int one_path(void *arg, const struct ilog_callpath *p)
{
	struct folded *f = arg;
	struct ilog_buf *b = &f->b;
	const char *comm = NULL;
	for (size_t i = 0; i < f->nprocs && !comm; i++)
		if (f->procs[i].node == p->node && f->procs[i].pid == p->pid)
			comm = f->procs[i].comm;
	int rc = comm && *comm ? name(b, "%s [%u]", comm, p->pid) : name(b, "[%u]", p->pid);
	/* outermost first; frame 0 of a native stack is the traced function
	 * itself, which the leaf names */
	unsigned skip = p->nframes && !p->frames[0].py && p->stack_id ? 1 : 0;
	if (!p->nframes)
		rc = rc || ilog_buf_put(b, ";[no stack]", 11);
	for (unsigned i = p->nframes; i-- > skip && !rc;)
		rc = ilog_buf_put(b, ";", 1) || frame(b, &p->frames[i]);
	const char *op = ilog_op_name(p->op);
	rc = rc || ilog_buf_put(b, ";", 1) || (op ? name(b, "%s", op) : name(b, "op %u", p->op));
	rc = rc || ilog_buf_printf(b, " %llu\n", (unsigned long long)p->ns);
	if (!rc && b->len >= (256u << 10))
		rc = ilog_buf_flush_fd(b, f->c->out_fd, f->c->err, sizeof(f->c->err));
	return rc ? -1 : 0;
}

static int folded_close(struct ilog_sink_ctx *c)
{
	struct folded *f = c->state;
	if (!f)
		return 0;
	int rc = ilog_callsites_each(f->cs, one_path, f) ||
		 ilog_buf_flush_fd(&f->b, c->out_fd, c->err, sizeof(c->err));
	if (rc && !c->err[0])
		snprintf(c->err, sizeof(c->err), "write error or out of memory");
	ilog_callsites_free(f->cs);
	ilog_buf_free(&f->b);
	free(f->procs);
	free(f);
	c->state = NULL;
	return rc ? -1 : 0;
}

const struct ilog_sink ilog_sink_folded = {
	.name = "folded",
	.help = "CUDA time per call path as folded stacks (flamegraph.pl, inferno, speedscope)",
	.open = folded_open, .record = folded_record, .observe = folded_observe,
	.close = folded_close,
};
