// SPDX-License-Identifier: MIT
/*
 * The symbolize filter (ilog_symbolize_filter in lib/symbolize.h).  Two
 * passes over the input: the first gathers every mapping and the ips
 * that already have symbol records; the second copies the stream and
 * writes each new ip's symbol records right before the first stack that
 * uses it.  Reading twice (instead of holding the log) keeps memory to
 * the mappings and the distinct ips, and lets a mapping recorded after a
 * stack (a library dlopen'ed and noticed late) still resolve it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "symbolize.h"
#include "symbolize_int.h"

#define MAX_BID 64
#define MAX_FRAMES 64

struct fmap {
	uint64_t start, end, offset, seq;
	uint64_t maxend;              /* max end of this and all before, once sorted */
	uint32_t prot, nbid;
	const char *path;             /* pool */
	uint8_t bid[MAX_BID];
};

struct fproc {
	struct fmap *maps;
	uint32_t n, cap;
};

struct filt {
	struct sym_pool pool;
	struct fproc *procs;
	uint32_t nprocs, capprocs;
	struct sym_hmap procidx;      /* (node << 32 | pid, 0) -> procs[] */
	struct sym_hmap have;         /* (node << 32 | pid, ip): has symbols */
};

static void filt_free(struct filt *f)
{
	for (uint32_t i = 0; i < f->nprocs; i++)
		free(f->procs[i].maps);
	free(f->procs);
	sym_hmap_free(&f->procidx);
	sym_hmap_free(&f->have);
	sym_pool_free(&f->pool);
}

static inline uint64_t pkey(uint32_t node, uint32_t pid)
{
	return (uint64_t)node << 32 | pid;
}

static int add_mapping(struct filt *f, uint32_t node, const struct ilog_mapping *m, uint64_t seq)
{
	uint32_t *v = sym_hmap_get(&f->procidx, pkey(node, m->pid), 0);
	uint32_t pi;
	if (v) {
		pi = *v - 1;
	} else {
		if (f->nprocs == f->capprocs) {
			uint32_t cap = f->capprocs ? f->capprocs * 2 : 64;
			struct fproc *np = realloc(f->procs, cap * sizeof(*np));
			if (!np)
				return -1;
			f->procs = np;
			f->capprocs = cap;
		}
		pi = f->nprocs;
		f->procs[f->nprocs++] = (struct fproc){ 0 };
		if (sym_hmap_put(&f->procidx, pkey(node, m->pid), 0, pi))
			return -1;
	}
	struct fproc *p = &f->procs[pi];
	if (p->n == p->cap) {
		uint32_t cap = p->cap ? p->cap * 2 : 32;
		struct fmap *nm = realloc(p->maps, cap * sizeof(*nm));
		if (!nm)
			return -1;
		p->maps = nm;
		p->cap = cap;
	}
	struct fmap *fm = &p->maps[p->n];
	memset(fm, 0, sizeof(*fm));
	fm->start = m->start;
	fm->end = m->end;
	fm->offset = m->offset;
	fm->seq = seq;
	fm->prot = m->prot;
	fm->nbid = m->build_id.n <= MAX_BID ? m->build_id.n : 0;
	memcpy(fm->bid, m->build_id.p, fm->nbid);
	if (!(fm->path = sym_pool_intern(&f->pool, m->path.p, m->path.n)))
		return -1;
	p->n++;
	return 0;
}

static int cmp_map(const void *a, const void *b)
{
	const struct fmap *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void index_maps(struct filt *f)
{
	for (uint32_t i = 0; i < f->nprocs; i++) {
		struct fproc *p = &f->procs[i];
		qsort(p->maps, p->n, sizeof(*p->maps), cmp_map);
		uint64_t mx = 0;
		for (uint32_t k = 0; k < p->n; k++) {
			if (p->maps[k].end > mx)
				mx = p->maps[k].end;
			p->maps[k].maxend = mx;
		}
	}
}

/* The mapping for ip in (node, pid) as seen from stream position seq:
 * the latest covering mapping before it, else the first one after. */
static const struct fmap *find_map(const struct filt *f, uint32_t node, uint32_t pid,
				   uint64_t ip, uint64_t seq)
{
	uint32_t *v = sym_hmap_get(&f->procidx, pkey(node, pid), 0);
	if (!v)
		return NULL;
	const struct fproc *p = &f->procs[*v - 1];
	uint32_t lo = 0, hi = p->n; /* first map with start > ip */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (p->maps[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct fmap *before = NULL, *after = NULL;
	for (uint32_t k = lo; k-- > 0 && p->maps[k].maxend > ip;) {
		const struct fmap *m = &p->maps[k];
		if (m->end <= ip)
			continue;
		if (m->seq < seq) {
			if (!before || m->seq > before->seq)
				before = m;
		} else if (!after || m->seq < after->seq) {
			after = m;
		}
	}
	return before ? before : after;
}

struct input {
	const char *name;
	int fd, own;
	off_t start;
};

/* Make an input readable twice: a pipe is copied to an unlinked file. */
static int make_seekable(struct input *in, char *err, size_t errlen)
{
	struct stat st;
	off_t off = lseek(in->fd, 0, SEEK_CUR);
	if (off >= 0 && !fstat(in->fd, &st) && S_ISREG(st.st_mode)) {
		in->start = off;
		return 0;
	}
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	int t = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (t < 0) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/ingero-symbolize.XXXXXX", dir);
		if ((t = mkstemp(path)) >= 0)
			unlink(path);
	}
	if (t < 0) {
		snprintf(err, errlen, "%s: cannot make a temporary copy in %s: %s", in->name, dir,
			 strerror(errno));
		return -1;
	}
	char buf[1 << 16];
	for (;;) {
		ssize_t n = read(in->fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "%s: read error: %s", in->name, strerror(errno));
			close(t);
			return -1;
		}
		if (!n)
			break;
		for (ssize_t w = 0; w < n;) {
			ssize_t k = write(t, buf + w, (size_t)(n - w));
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0) {
				snprintf(err, errlen, "%s: cannot write a temporary copy in %s: %s",
					 in->name, dir, strerror(errno));
				close(t);
				return -1;
			}
			w += k;
		}
	}
	in->fd = t;
	in->own = 1;
	in->start = 0;
	return 0;
}

/* The first damage is the one reported. */
static void damage(char *err, size_t errlen, int *damaged, const char *name, const char *msg)
{
	if (!*damaged)
		snprintf(err, errlen, "%s: %s", name, msg);
	*damaged = 1;
}

/* Pass 1: mappings and the ips that already have symbols. */
static int pass1(struct filt *f, const struct ilog_symbolize_opts *o, struct input *in,
		 unsigned nin, struct ilog_symbolize_stats *st, char *err, size_t errlen, int *damaged)
{
	uint64_t seq = 0;
	for (unsigned i = 0; i < nin; i++) {
		char e[256];
		if (lseek(in[i].fd, in[i].start, SEEK_SET) < 0) {
			snprintf(err, errlen, "%s: cannot seek: %s", in[i].name, strerror(errno));
			return -1;
		}
		struct ilog_reader *r = ilog_reader_open(in[i].fd, e, sizeof(e));
		if (!r) {
			snprintf(err, errlen, "%s: %s", in[i].name, e);
			return -1;
		}
		const struct ilog_record *rec;
		int k;
		while ((k = ilog_reader_next(r, &rec)) > 0) {
			seq++;
			st->records++;
			if (o->progress && !(seq & 0xffff))
				o->progress(o->progress_arg, 1, seq);
			if (rec->kind == ILOG_K_MAPPING) {
				if (add_mapping(f, rec->node, &rec->u.mapping, seq))
					goto oom;
			} else if (rec->kind == ILOG_K_SYMBOL) {
				if (sym_hmap_put(&f->have, pkey(rec->node, rec->u.symbol.pid),
						 rec->u.symbol.ip, 0))
					goto oom;
			}
			continue;
oom:
			ilog_reader_close(r);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		if (k < 0)
			damage(err, errlen, damaged, in[i].name, ilog_reader_error(r));
		ilog_reader_close(r);
	}
	if (o->progress)
		o->progress(o->progress_arg, 1, seq);
	index_maps(f);
	return 0;
}

static int put(struct ilog_writer *w, const struct ilog_record *rec, char *err, size_t errlen)
{
	if (!ilog_writer_put(w, rec))
		return 0;
	snprintf(err, errlen, "output: %s", ilog_writer_error(w));
	return -1;
}

/* Symbol records for each new ip of a stack, before the stack. */
static int symbolize_stack(struct filt *f, struct ilog_symbolizer *sym, struct ilog_writer *w,
			   const struct ilog_record *rec, uint64_t seq,
			   struct ilog_symbolize_stats *st, char *err, size_t errlen)
{
	const struct ingero_stack *sk = &rec->u.stack;
	struct ilog_record out = { .kind = ILOG_K_SYMBOL };
	struct ilog_symbol fr[MAX_FRAMES];
	st->stacks++;
	for (uint32_t i = 0; i < sk->nr && i < INGERO_MAX_STACK; i++) {
		uint64_t ip = sk->ips[i];
		uint64_t key = pkey(rec->node, sk->pid);
		if (sym_hmap_get(&f->have, key, ip))
			continue;
		if (sym_hmap_put(&f->have, key, ip, 0)) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		st->ips++;
		const struct fmap *fm = find_map(f, rec->node, sk->pid, ip, seq);
		int n = 1;
		if (fm) {
			struct ilog_mapping m = {
				.pid = sk->pid, .start = fm->start, .end = fm->end,
				.offset = fm->offset, .prot = fm->prot, .path = ilog_str_c(fm->path),
				.build_id = { fm->bid, fm->nbid },
			};
			/* ips after the first are return addresses (bpf_get_stack) */
			n = ilog_symbolizer_lookup(sym, &m, ip, i > 0, fr, MAX_FRAMES);
			if (n < 0) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
		} else {
			fr[0] = (struct ilog_symbol){ .pid = sk->pid, .ip = ip };
		}
		if (fr[0].function.n)
			st->resolved++;
		for (int k = 0; k < n; k++) {
			out.u.symbol = fr[k];
			if (put(w, &out, err, errlen))
				return -1;
			st->symbols++;
		}
	}
	return 0;
}

static int pass2(struct filt *f, const struct ilog_symbolize_opts *o, struct ilog_symbolizer *sym,
		 struct input *in, unsigned nin, int out_fd, struct ilog_symbolize_stats *st, char *err,
		 size_t errlen)
{
	struct ilog_writer_opts wo = { .frame_ms = ILOG_FRAME_MS_OFF };
	char e[256];
	struct ilog_writer *w = ilog_writer_open(out_fd, &wo, e, sizeof(e));
	if (!w) {
		snprintf(err, errlen, "output: %s", e);
		return -1;
	}
	uint64_t seq = 0;
	int rc = 0;
	for (unsigned i = 0; i < nin && !rc; i++) {
		if (lseek(in[i].fd, in[i].start, SEEK_SET) < 0) {
			snprintf(err, errlen, "%s: cannot read again: %s", in[i].name, strerror(errno));
			rc = -1;
			break;
		}
		struct ilog_reader *r = ilog_reader_open(in[i].fd, e, sizeof(e));
		if (!r) {
			snprintf(err, errlen, "%s: %s", in[i].name, e);
			rc = -1;
			break;
		}
		const struct ilog_record *rec;
		while (!rc && ilog_reader_next(r, &rec) > 0) {
			seq++;
			if (o->progress && !(seq & 0xffff))
				o->progress(o->progress_arg, 2, seq);
			if (rec->kind == ILOG_K_SYMBOL && o->redo)
				continue;
			if (rec->kind == ILOG_K_STACK &&
			    symbolize_stack(f, sym, w, rec, seq, st, err, errlen))
				rc = -1;
			else if (put(w, rec, err, errlen))
				rc = -1;
		}
		ilog_reader_close(r);
	}
	if (o->progress)
		o->progress(o->progress_arg, 2, seq);
	if (ilog_writer_close(w, e, sizeof(e)) && !rc) {
		snprintf(err, errlen, "output: %s", e);
		rc = -1;
	}
	return rc;
}

int ilog_symbolize_filter(const struct ilog_symbolize_opts *o,
			  const struct ilog_symbolize_input *inputs, unsigned nin, int out_fd,
			  struct ilog_symbolize_stats *st, char *err, size_t errlen)
{
	struct filt f = { 0 };
	struct ilog_symbolize_stats dummy;
	struct input *in = calloc(nin ? nin : 1, sizeof(*in));
	struct ilog_symbolizer *sym = ilog_symbolizer_new(o);
	int rc = -1, damaged = 0;
	if (!st)
		st = &dummy;
	memset(st, 0, sizeof(*st));
	if (!in || !sym) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (unsigned i = 0; i < nin; i++) {
		in[i] = (struct input){ inputs[i].name, inputs[i].fd, 0, 0 };
		if (make_seekable(&in[i], err, errlen))
			goto out;
	}
	if (pass1(&f, o, in, nin, st, err, errlen, &damaged))
		goto out;
	if (o->redo) {
		sym_hmap_free(&f.have);
	} else {
		st->kept = f.have.n;
	}
	char e2[512];
	if (pass2(&f, o, sym, in, nin, out_fd, st, e2, sizeof(e2))) {
		snprintf(err, errlen, "%s", e2); /* output failed: that matters more */
		goto out;
	}
	st->modules = ilog_symbolizer_modules(sym, &st->modules_found);
	rc = damaged ? -1 : 0;
out:
	for (unsigned i = 0; in && i < nin; i++)
		if (in[i].own)
			close(in[i].fd);
	free(in);
	ilog_symbolizer_free(sym);
	filt_free(&f);
	return rc;
}
