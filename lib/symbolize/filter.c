// SPDX-License-Identifier: MIT
/*
 * The symbolize filter (ilog_symbolize_filter in lib/include/ingero/symbolize.h).  Two
 * passes over the input: the first gathers every mapping, the ips that
 * already have symbol records, the input's frames, and where each new ip
 * is first used; the second writes the input's frames again with the new
 * ips' symbol records added.  Reading twice (instead of holding the log)
 * keeps memory to the mappings and the distinct ips, and lets a mapping
 * recorded after a stack (a library dlopen'ed and noticed late) still
 * resolve it.  The new ips go to the resolvers (resolve.c), which with
 * two threads start on them while pass 1 reads.
 *
 * The second pass copies frames byte for byte wherever it can (SPEC §3.1:
 * frames are independent), so most of a log is neither decompressed
 * again nor re-encoded: a frame without new ips is copied as it is; the
 * symbols of a frame's new ips go in a frame of their own in front of
 * it; only a frame that must change inside (new ips after a header or
 * node record in it, --redo's records to drop, damage) is rewritten.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include "ingero/io.h"
#include "ingero/symbolize.h"
#include "ingero/vec.h"
#include "symbolize_int.h"
#include "filter_int.h"

struct fproc {
	struct fmap *maps;
	uint32_t n, cap;
};

/* Spliced frames are written by a writer that ends a frame only when
 * told, which it does below this size (lib/codec/writer.c's largest frame). */
#define SPLICE_MAX (ILOG_MAX_FRAME_CONTENT / 2)

/* An input frame, as pass 1 read it. */
struct iframe {
	uint64_t off, size;           /* compressed bytes, from the input's start */
	uint64_t bytes;               /* plan(): content with the symbols added, at most */
	uint32_t content, end;        /* decompressed size; end of its last record read */
	uint32_t barrier;             /* end of its last header or node record, 0 none */
	uint32_t nrec, nuses;
	uint32_t input;
	uint8_t splice;               /* must be rewritten (plan()) */
};

/* The ips seen in one process (ipset_get()): keys apart from values, so
 * the probes of a lookup that finds its ip (nearly all) stay in a table
 * of 8-byte keys; key 0 marks an empty slot and ip 0 has a slot of its own. */
struct ipset {
	uint64_t *k;
	uint32_t *v;                  /* uses[] index + 1, HAVE + 1 */
	uint32_t cap, n;
	uint32_t v0;                  /* ip 0's value, 0 absent */
};

/* A symbol record --redo leaves out. */
struct drop { uint32_t frame, at, len; };

#define HAVE (UINT32_MAX - 1)         /* an ipset value: the input has symbols */

static void filt_free(struct filt *f)
{
	for (uint32_t i = 0; i < f->nprocs; i++)
		free(f->procs[i].maps);
	free(f->procs);
	ilog_hmap_free(&f->procidx);
	ilog_hmap_free(&f->ipidx);
	for (uint32_t i = 0; i < f->nipsets; i++)
		free(f->ipsets[i].k);
	free(f->ipsets);
	free(f->uses);
	free(f->frames);
	free(f->drops);
	free(f->ans);
	for (int i = 0; i < 2; i++) {
		free(f->rout[i].a);
		free(f->rout[i].d);
	}
	free(f->byuse);
	for (uint32_t i = 0; i < f->nwm; i++)
		free(f->wm[i].q);
	free(f->wm);
	ilog_hmap_free(&f->wmidx);
	for (uint32_t i = 0; i < f->nheld; i++)
		free(f->held[i].msg);
	free(f->held);
	ilog_strpool_free(&f->pool);
}

static inline uint64_t pkey(uint32_t node, uint32_t pid)
{
	return (uint64_t)node << 32 | pid;
}

static int add_mapping(struct filt *f, uint32_t node, const struct ilog_mapping *m, uint64_t seq)
{
	ilog_sym_warm_hand(f); /* the fmaps the pending jobs point at may move */
	uint64_t *v = ilog_hmap_get(&f->procidx, pkey(node, m->pid), 0);
	uint32_t pi;
	if (v) {
		pi = *v;
	} else {
		if (ilog_grow((void **)&f->procs, &f->capprocs, f->nprocs, sizeof(*f->procs), 64))
			return -1;
		pi = f->nprocs;
		f->procs[f->nprocs++] = (struct fproc){ 0 };
		if (ilog_hmap_set(&f->procidx, pkey(node, m->pid), 0, pi))
			return -1;
	}
	struct fproc *p = &f->procs[pi];
	if (ilog_grow((void **)&p->maps, &p->cap, p->n, sizeof(*p->maps), 32))
		return -1;
	const char *path = ilog_strpool_intern(&f->pool, m->path.p, m->path.n);
	if (!path)
		return -1;
	/* kept sorted by start, then stream order, as they come (recorders
	 * write them in address order, so this is nearly always an append):
	 * ilog_sym_find_map works during pass 1 too */
	uint32_t lo = 0, hi = p->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (p->maps[mid].start <= m->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(&p->maps[lo + 1], &p->maps[lo], (p->n - lo) * sizeof(*p->maps));
	p->n++;
	struct fmap *fm = &p->maps[lo];
	memset(fm, 0, sizeof(*fm));
	fm->start = m->start;
	fm->end = m->end;
	fm->offset = m->offset;
	fm->seq = seq;
	fm->prot = m->prot;
	fm->nbid = m->build_id.n <= MAX_BID ? m->build_id.n : 0;
	memcpy(fm->bid, m->build_id.p, fm->nbid);
	fm->path = path;
	for (uint64_t mx = lo ? p->maps[lo - 1].maxend : 0; lo < p->n; lo++) {
		if (p->maps[lo].end > mx)
			mx = p->maps[lo].end;
		p->maps[lo].maxend = mx;
	}
	return 0;
}

/* The mapping for ip in (node, pid) as seen from stream position seq:
 * the latest covering mapping before it, else the first one after. */
const struct fmap *ilog_sym_find_map(const struct filt *f, uint32_t node, uint32_t pid,
				     uint64_t ip, uint64_t seq)
{
	uint64_t *v = ilog_hmap_get(&f->procidx, pkey(node, pid), 0);
	if (!v)
		return NULL;
	const struct fproc *p = &f->procs[*v];
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
	int rc = ilog_copy_fd(in->fd, t, NULL);
	if (rc) {
		if (rc == -1)
			snprintf(err, errlen, "%s: read error: %s", in->name, strerror(errno));
		else
			snprintf(err, errlen, "%s: cannot write a temporary copy in %s: %s", in->name,
				 dir, strerror(errno));
		close(t);
		return -1;
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

/*
 * The ips seen, per process: pass 1 asks about every ip of every stack
 * (1.6M on bench/symbolize for 20000 distinct ones), so a process's ips
 * are one table keyed by the ip alone, a probe one multiply and one
 * cache line.
 */
static inline uint32_t ip_hash(uint64_t ip, uint32_t cap)
{
	return (uint32_t)((ip * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

/* The value slot of ip, NULL if absent. */
static inline uint32_t *ipset_get(struct ipset *t, uint64_t ip)
{
	if (!ip)
		return t->v0 ? &t->v0 : NULL;
	if (!t->cap)
		return NULL;
	for (uint32_t i = ip_hash(ip, t->cap);; i = (i + 1) & (t->cap - 1)) {
		if (t->k[i] == ip)
			return &t->v[i];
		if (!t->k[i])
			return NULL;
	}
}

/* Add ip (absent) with value v.  0, or -1 out of memory. */
static int ipset_add(struct ipset *t, uint64_t ip, uint32_t v)
{
	if (!ip) {
		t->v0 = v + 1;
		return 0;
	}
	if ((uint64_t)(t->n + 1) * 4 > (uint64_t)t->cap * 3) {
		uint32_t cap = t->cap ? t->cap * 2 : 1024;
		/* one block: the keys, then the values */
		uint64_t *nk = calloc(cap, sizeof(*nk) + sizeof(uint32_t));
		if (!nk)
			return -1;
		uint32_t *nv = (uint32_t *)(nk + cap);
		for (uint32_t k = 0; k < t->cap; k++) {
			if (!t->k[k])
				continue;
			uint32_t i = ip_hash(t->k[k], cap);
			while (nk[i])
				i = (i + 1) & (cap - 1);
			nk[i] = t->k[k];
			nv[i] = t->v[k];
		}
		free(t->k);
		t->k = nk;
		t->v = nv;
		t->cap = cap;
	}
	uint32_t i = ip_hash(ip, t->cap);
	while (t->k[i])
		i = (i + 1) & (t->cap - 1);
	t->k[i] = ip;
	t->v[i] = v + 1;
	t->n++;
	return 0;
}

/* The ip table of (node, pid); NULL out of memory. */
static struct ipset *ipset_of(struct filt *f, uint64_t key)
{
	uint64_t *v = ilog_hmap_get(&f->ipidx, key, 0);
	if (v)
		return &f->ipsets[*v];
	if (ilog_grow((void **)&f->ipsets, &f->capipsets, f->nipsets, sizeof(*f->ipsets), 16) ||
	    ilog_hmap_set(&f->ipidx, key, 0, f->nipsets))
		return NULL;
	f->ipsets[f->nipsets] = (struct ipset){ 0 };
	return &f->ipsets[f->nipsets++];
}

/* A symbol record in the input: its ip needs none of ours. */
static int note_have(struct filt *f, uint64_t key, uint64_t ip)
{
	struct ipset *t = ipset_of(f, key);
	if (!t)
		return -1;
	uint32_t *v = ipset_get(t, ip);
	if (!v) {
		f->nkept++;
		return ipset_add(t, ip, HAVE);
	}
	if (*v - 1 != HAVE && !f->uses[*v - 1].kept) {
		f->uses[*v - 1].kept = 1; /* its stack came first */
		f->nkept++;
	}
	return 0;
}

/* A stack record: its ips not seen before, in order.  A runtime kernel
 * launch (SPEC §5.18) is a stack of one: the kernel's host stub, an entry
 * address like ips[0]. */
static int note_ips(struct filt *f, const struct ilog_record *rec, uint32_t pid,
		    const __u64 *ips, uint32_t nr, uint64_t seq, uint32_t frame, uint32_t at,
		    int barrier)
{
	struct ipset *t = ipset_of(f, pkey(rec->node, pid));
	if (!t)
		return -1;
	for (uint32_t i = 0; i < nr; i++) {
		uint64_t ip = ips[i];
		if (ipset_get(t, ip))
			continue;
		if (f->nuses >= HAVE || ilog_grow((void **)&f->uses, &f->capuses, f->nuses,
					     sizeof(*f->uses), 1024) ||
		    ipset_add(t, ip, f->nuses))
			return -1;
		f->uses[f->nuses] = (struct use){
			.ip = ip, .seq = seq, .node = rec->node, .pid = pid, .frame = frame,
			.at = at, .ret = i > 0, .barrier = (uint8_t)barrier,
		};
		ilog_sym_warm_push(f, &f->uses[f->nuses], f->nuses);
		f->nuses++;
	}
	return 0;
}

/* A reader of input `in` from its start (each pass reads it anew); NULL
 * with err set ("NAME: cannot seek: REASON", "NAME: problem"). */
static struct ilog_reader *read_from_start(const struct input *in, char *err, size_t errlen)
{
	char e[256];
	if (lseek(in->fd, in->start, SEEK_SET) < 0) {
		snprintf(err, errlen, "%s: cannot seek: %s", in->name, strerror(errno));
		return NULL;
	}
	struct ilog_reader *r = ilog_reader_open(in->fd, e, sizeof(e));
	if (!r)
		snprintf(err, errlen, "%s: %s", in->name, e);
	return r;
}

/* Pass 1: mappings, the ips that already have symbols, each input frame,
 * and where each new ip is first used. */
static int pass1(struct filt *f, const struct ilog_symbolize_opts *o, struct input *in,
		 unsigned nin, struct ilog_symbolize_stats *st, char *err, size_t errlen, int *damaged)
{
	uint64_t seq = 0;
	for (unsigned i = 0; i < nin; i++) {
		struct ilog_reader *r = read_from_start(&in[i], err, errlen);
		if (!r)
			return -1;
		const struct ilog_record *rec;
		struct ilog_reader_where wh;
		struct iframe *fr = NULL;
		int k;
		while ((k = ilog_reader_next(r, &rec)) > 0 || k == ILOG_READ_DAMAGE) {
			if (k < 0) { /* left out of the frames: pass 2 drops it */
				damage(err, errlen, damaged, in[i].name, ilog_reader_error(r));
				if (o->report) {
					char line[1024];
					snprintf(line, sizeof(line), "%s: %s", in[i].name,
						 ilog_reader_error(r));
					o->report(o->report_arg, ILOG_SYM_DAMAGE, line);
				}
				continue;
			}
			seq++;
			st->records++;
			if (o->progress && !(seq & 0xffff))
				o->progress(o->progress_arg, 1, seq);
			ilog_reader_where(r, &wh);
			if (!fr || fr->off != wh.frame_off) {
				if (ilog_grow((void **)&f->frames, &f->capframes, f->nframes,
					 sizeof(*f->frames), 64))
					goto oom;
				fr = &f->frames[f->nframes++];
				*fr = (struct iframe){ .off = wh.frame_off, .size = wh.frame_size,
						       .content = (uint32_t)wh.content_size, .input = i };
			}
			uint32_t at = (uint32_t)wh.rec_off;
			fr->end = at + rec->raw.n;
			fr->nrec++;
			switch (rec->kind) {
			case ILOG_K_MAPPING:
				if (add_mapping(f, rec->node, &rec->u.mapping, seq))
					goto oom;
				break;
			case ILOG_K_HEADER:
			case ILOG_K_NODE:
				/* symbols for stacks after this belong after it */
				fr->barrier = fr->end;
				break;
			case ILOG_K_SYMBOL:
				if (o->redo) {
					struct drop *d = f->ndrops ? &f->drops[f->ndrops - 1] : NULL;
					fr->splice = 1;
					if (d && d->frame == f->nframes - 1 && d->at + d->len == at) {
						d->len += rec->raw.n; /* a run of them: one drop */
						break;
					}
					if (ilog_grow((void **)&f->drops, &f->capdrops, f->ndrops,
						 sizeof(*f->drops), 64))
						goto oom;
					f->drops[f->ndrops++] = (struct drop){ f->nframes - 1, at, rec->raw.n };
				} else if (note_have(f, pkey(rec->node, rec->u.symbol.pid),
						     rec->u.symbol.ip)) {
					goto oom;
				}
				break;
			case ILOG_K_STACK:
				st->stacks++;
				if (note_ips(f, rec, rec->u.stack.pid, rec->u.stack.ips,
					     rec->u.stack.nr < INGERO_MAX_STACK ? rec->u.stack.nr
									: INGERO_MAX_STACK,
					     seq, f->nframes - 1, at, fr->barrier != 0))
					goto oom;
				break;
			case ILOG_K_CUDA:
				/* which kernel a runtime launch runs: its stub's symbol,
				 * when a mapping holds the stub (no record for a
				 * handle that is no address of the process) */
				if (rec->u.cuda.op == ILOG_OP_cudaLaunchKernel && rec->u.cuda.handle &&
				    ilog_sym_find_map(f, rec->node, rec->u.cuda.pid, rec->u.cuda.handle,
						      seq) &&
				    note_ips(f, rec, rec->u.cuda.pid, &rec->u.cuda.handle, 1, seq,
					     f->nframes - 1, at, fr->barrier != 0))
					goto oom;
				break;
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
	return 0;
}

/* The frames of one new ip; -1 out of memory. */
static int lookup_use(struct filt *f, const struct use *u, struct ilog_symbol *fr)
{
	const struct fmap *fm = ilog_sym_find_map(f, u->node, u->pid, u->ip, u->seq);
	if (!fm) {
		fr[0] = (struct ilog_symbol){ .pid = u->pid, .ip = u->ip };
		return 1;
	}
	struct ilog_mapping m = {
		.pid = u->pid, .start = fm->start, .end = fm->end, .offset = fm->offset,
		.prot = fm->prot, .path = ilog_str_c(fm->path), .build_id = { fm->bid, fm->nbid },
	};
	/* ips after a stack's first are return addresses (bpf_get_stack) */
	return ilog_symbolizer_lookup(ilog_sym_symbolizer_for(f, fm), &m, u->ip, u->ret, fr,
				      MAX_FRAMES);
}

/*
 * Between the passes: drop the ips the input already has symbols for,
 * resolve the rest in stream order (the symbolizer caches the answers
 * pass 2 asks again), and decide each frame's fate.  A frame whose new
 * ips all come before any header or node record in it gets their symbol
 * records in a frame of their own in front of it; one with new ips after
 * such a record (they must stay in its section and node), with records to
 * drop, or cut short by damage is spliced.  Returns 1 when a spliced
 * frame would outgrow what one frame may hold (pass 2 then writes every
 * record anew), 0, or -1 out of memory.
 */
static int plan(struct filt *f, struct ilog_symbolize_stats *st)
{
	for (uint32_t i = 0; i < f->nframes; i++) {
		struct iframe *fr = &f->frames[i];
		fr->bytes = fr->end;
		if (fr->end != fr->content)
			fr->splice = 1;
	}
	uint32_t n = 0;
	for (uint32_t i = 0; i < f->nuses; i++) {
		ilog_sym_replay(f, i);
		if (f->uses[i].kept)
			continue;
		struct use *u = &f->uses[n++];
		*u = f->uses[i];
		struct iframe *fr = &f->frames[u->frame];
		/* the answer is kept for pass 2: its strings are the pool's,
		 * the symbolizer's and the mappings', all fixed from now on */
		const struct rdone *d = f->byuse && f->byuse[i].k ? &f->byuse[i] : NULL;
		struct ilog_symbol *out;
		int k;
		if (d) { /* a resolver's answer: the same lookup_use() would give */
			const struct wmod *w = &f->wm[d->w & 0x7fffffff];
			u->src = (uint8_t)(1 + (d->w >> 31));
			u->ans = d->first;
			out = f->rout[u->src - 1].a + d->first;
			k = (int)d->k;
			for (int j = 0; j < k; j++) /* the job's copy of it is gone */
				out[j].build_id = (struct ilog_bin){ w->bid, w->nbid };
		} else {
			if (ilog_reserve((void **)&f->ans, &f->capans, f->nans + MAX_FRAMES,
					sizeof(*f->ans), 1024))
				return -1;
			out = &f->ans[f->nans];
			if ((k = lookup_use(f, u, out)) < 0)
				return -1;
			u->src = 0;
			u->ans = f->nans;
			f->nans += (uint32_t)k;
		}
		u->nans = (uint8_t)k;
		st->ips++;
		st->symbols += (uint64_t)k;
		if (out[0].function.n)
			st->resolved++;
		fr->nuses++;
		if (u->barrier)
			fr->splice = 1;
		/* an encoded symbol record is its strings plus at most 72 bytes */
		for (int j = 0; j < k; j++)
			fr->bytes += 72 + (uint64_t)out[j].build_id.n + out[j].module.n +
				     out[j].function.n + out[j].file.n;
	}
	f->nuses = n;
	ilog_sym_replay(f, UINT32_MAX);
	int big = 0;
	for (uint32_t i = 0; i < f->nframes; i++)
		if (f->frames[i].splice && f->frames[i].bytes >= SPLICE_MAX)
			big = 1;
	return big;
}

static int put(struct ilog_writer *w, const struct ilog_record *rec, char *err, size_t errlen)
{
	if (!ilog_writer_put(w, rec))
		return 0;
	snprintf(err, errlen, "output: %s", ilog_writer_error(w));
	return -1;
}

/* The symbol records of one new ip, as plan() found them. */
static int put_use(const struct filt *f, struct ilog_writer *w, const struct use *u, char *err,
		   size_t errlen)
{
	struct ilog_record out = { .kind = ILOG_K_SYMBOL };
	const struct ilog_symbol *a = u->src ? f->rout[u->src - 1].a : f->ans;
	for (uint32_t k = 0; k < u->nans; k++) {
		out.u.symbol = a[u->ans + k];
		if (put(w, &out, err, errlen))
			return -1;
	}
	return 0;
}

struct out {
	int fd;
	struct ilog_writer *sym;     /* frames of symbol records */
	struct ilog_writer *splice;  /* spliced frames: never cut by size or count */
	uint32_t cin;                /* pending byte copy: input, offset, length */
	uint64_t coff, clen;
	int nosendfile;              /* sendfile(2) refused this output */
	uint8_t *buf;                /* a compressed frame, then its content */
	size_t bufcap;
	uint8_t *content;
	size_t contentcap;
	ZSTD_DCtx *dctx;
};

static int read_at(int fd, uint8_t *p, size_t n, off_t off)
{
	while (n) {
		ssize_t k = pread(fd, p, n, off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (!k)
				errno = EIO; /* shorter than in pass 1 */
			return -1;
		}
		p += k;
		n -= (size_t)k;
		off += k;
	}
	return 0;
}

static int reserve(uint8_t **p, size_t *cap, size_t n)
{
	if (n <= *cap)
		return 0;
	uint8_t *q = realloc(*p, n);
	if (!q)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}

/* Write the pending run of input frames, byte for byte: sendfile(2)
 * copies in the kernel (to a file or a pipe); read and write where it
 * cannot. */
static int copy_out(struct out *o, const struct input *in, char *err, size_t errlen)
{
	const struct input *ip = &in[o->cin];
	while (o->clen) {
		off_t off = ip->start + (off_t)o->coff;
		size_t n = o->clen < (1u << 30) ? (size_t)o->clen : (1u << 30);
		ssize_t k = o->nosendfile ? -1 : sendfile(o->fd, ip->fd, &off, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && !o->nosendfile && errno != EINVAL && errno != ENOSYS) {
			snprintf(err, errlen, "output: write: %s", strerror(errno));
			return -1;
		}
		if (k < 0) {
			o->nosendfile = 1;
			k = (ssize_t)(n < (1u << 20) ? n : (1u << 20));
			if (reserve(&o->buf, &o->bufcap, (size_t)k)) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			if (read_at(ip->fd, o->buf, (size_t)k, off)) {
				snprintf(err, errlen, "%s: cannot read again: %s", ip->name,
					 strerror(errno));
				return -1;
			}
			if (ilog_write_all(o->fd, o->buf, (size_t)k)) {
				snprintf(err, errlen, "output: write: %s", strerror(errno));
				return -1;
			}
		} else if (!k) {
			snprintf(err, errlen, "%s: cannot read again: input is shorter", ip->name);
			return -1;
		}
		o->coff += (uint64_t)k;
		o->clen -= (uint64_t)k;
	}
	return 0;
}

static int flush(struct ilog_writer *w, char *err, size_t errlen)
{
	if (!ilog_writer_flush(w))
		return 0;
	snprintf(err, errlen, "output: %s", ilog_writer_error(w));
	return -1;
}

static int raw(struct ilog_writer *w, const uint8_t *p, size_t n, char *err, size_t errlen)
{
	struct ilog_raw r = { p, (uint32_t)n };
	if (!n || !ilog_writer_put_raw(w, &r))
		return 0;
	snprintf(err, errlen, "output: %s", ilog_writer_error(w));
	return -1;
}

/*
 * One frame rewritten: its records as they are, in order, with the symbol
 * records of each new ip right before the stack that first uses it and
 * the dropped ones left out.  Only records of kind symbol, which carries
 * no delta-coded time (SPEC §4.3), come or go, and the frame's records
 * stay together in one frame, so every other record decodes as before.
 */
static int splice_frame(const struct filt *f, struct out *o,
		  const struct input *in, uint32_t fi, uint32_t *ucur, uint32_t *dcur, char *err,
		  size_t errlen)
{
	const struct iframe *fr = &f->frames[fi];
	const struct input *ip = &in[fr->input];
	if (reserve(&o->buf, &o->bufcap, fr->size) ||
	    reserve(&o->content, &o->contentcap, fr->content ? fr->content : 1)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (read_at(ip->fd, o->buf, fr->size, ip->start + (off_t)fr->off)) {
		snprintf(err, errlen, "%s: cannot read again: %s", ip->name, strerror(errno));
		return -1;
	}
	size_t got = ZSTD_decompressDCtx(o->dctx, o->content, o->contentcap, o->buf, fr->size);
	if (ZSTD_isError(got) || got != fr->content) {
		snprintf(err, errlen, "%s: offset %llu: frame changed since it was read", ip->name,
			 (unsigned long long)fr->off);
		return -1;
	}
	uint32_t pos = 0;
	for (;;) {
		const struct use *u = *ucur < f->nuses && f->uses[*ucur].frame == fi ?
				      &f->uses[*ucur] : NULL;
		const struct drop *d = *dcur < f->ndrops && f->drops[*dcur].frame == fi ?
				       &f->drops[*dcur] : NULL;
		uint32_t next = fr->end;
		if (u && u->at < next)
			next = u->at;
		if (d && d->at < next)
			next = d->at;
		if (raw(o->splice, o->content + pos, next - pos, err, errlen))
			return -1;
		pos = next;
		if (u && u->at == pos) {
			if (put_use(f, o->splice, u, err, errlen))
				return -1;
			++*ucur;
		} else if (d && d->at == pos) {
			pos += d->len;
			++*dcur;
		} else {
			break;
		}
	}
	return flush(o->splice, err, errlen);
}

/* Pass 2, frame by frame (plan() says how). */
static int pass2_frames(const struct filt *f, const struct ilog_symbolize_opts *opt,
			struct input *in, int out_fd, char *err,
			size_t errlen)
{
	/* zstd level 1: symbol records are a small part of a log, written
	 * on every run; level 1 compresses them about twice as fast as the
	 * writer's default, for frames about a tenth larger */
	struct ilog_writer_opts wo = { .level = 1, .frame_ms = ILOG_FRAME_MS_OFF };
	struct ilog_writer_opts so = { .level = 1, .frame_ms = ILOG_FRAME_MS_OFF,
				       .frame_records = UINT32_MAX, .frame_bytes = SPLICE_MAX };
	char e[256];
	struct out o = { .fd = out_fd };
	int rc = -1;
	o.dctx = ZSTD_createDCtx();
	if (!o.dctx) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (!(o.sym = ilog_writer_open(out_fd, &wo, e, sizeof(e))) ||
	    !(o.splice = ilog_writer_open(out_fd, &so, e, sizeof(e)))) {
		snprintf(err, errlen, "output: %s", e);
		goto out;
	}
	uint32_t ucur = 0, dcur = 0;
	uint64_t seq = 0;
	for (uint32_t i = 0; i < f->nframes; i++) {
		const struct iframe *fr = &f->frames[i];
		if (!fr->splice && o.clen && o.cin == fr->input && o.coff + o.clen == fr->off &&
		    !fr->nuses) {
			o.clen += fr->size;     /* the next frame of the run */
		} else {
			if (copy_out(&o, in, err, errlen))
				goto out;
			if (fr->splice) {
				if (splice_frame(f, &o, in, i, &ucur, &dcur, err, errlen))
					goto out;
			} else {
				for (; ucur < f->nuses && f->uses[ucur].frame == i; ucur++)
					if (put_use(f, o.sym, &f->uses[ucur], err, errlen))
						goto out;
				if (flush(o.sym, err, errlen))
					goto out;
				o.cin = fr->input;
				o.coff = fr->off;
				o.clen = fr->size;
			}
		}
		seq += fr->nrec;
		if (opt->progress && (seq >> 16) != ((seq - fr->nrec) >> 16))
			opt->progress(opt->progress_arg, 2, seq);
	}
	if (copy_out(&o, in, err, errlen))
		goto out;
	if (opt->progress)
		opt->progress(opt->progress_arg, 2, seq);
	rc = 0;
out:
	if (o.sym && ilog_writer_close(o.sym, e, sizeof(e)) && !rc) {
		snprintf(err, errlen, "output: %s", e);
		rc = -1;
	}
	if (o.splice && ilog_writer_close(o.splice, e, sizeof(e)) && !rc) {
		snprintf(err, errlen, "output: %s", e);
		rc = -1;
	}
	ZSTD_freeDCtx(o.dctx);
	free(o.buf);
	free(o.content);
	return rc;
}

/* Pass 2 for the rare input plan() cannot splice: every record decoded
 * and written anew, each new ip's symbols right before its first stack. */
static int pass2_records(const struct filt *f, const struct ilog_symbolize_opts *o,
			 struct input *in, unsigned nin, int out_fd,
			 char *err, size_t errlen)
{
	struct ilog_writer_opts wo = { .frame_ms = ILOG_FRAME_MS_OFF };
	char e[256];
	struct ilog_writer *w = ilog_writer_open(out_fd, &wo, e, sizeof(e));
	if (!w) {
		snprintf(err, errlen, "output: %s", e);
		return -1;
	}
	uint64_t seq = 0, fi = 0, off = 0;
	uint32_t ucur = 0;
	int rc = 0, first = 1;
	for (unsigned i = 0; i < nin && !rc; i++) {
		struct ilog_reader *r = read_from_start(&in[i], err, errlen);
		if (!r) {
			rc = -1;
			break;
		}
		const struct ilog_record *rec;
		struct ilog_reader_where wh;
		int fresh = 1, k;
		while (!rc && ((k = ilog_reader_next(r, &rec)) > 0 || k == ILOG_READ_DAMAGE)) {
			if (k < 0) /* reported by pass 1 */
				continue;
			seq++;
			if (o->progress && !(seq & 0xffff))
				o->progress(o->progress_arg, 2, seq);
			ilog_reader_where(r, &wh);
			if (fresh || wh.frame_off != off) {
				fi += !first;   /* numbered as pass 1 did */
				first = fresh = 0;
				off = wh.frame_off;
			}
			for (; !rc && ucur < f->nuses && f->uses[ucur].frame == fi &&
			       f->uses[ucur].at == wh.rec_off; ucur++)
				rc = put_use(f, w, &f->uses[ucur], err, errlen);
			if (!rc && !(rec->kind == ILOG_K_SYMBOL && o->redo))
				rc = put(w, rec, err, errlen);
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
	int threads = ilog_sym_want_threads(o);
	struct filt f = { .o = o, .nthreads = threads };
	struct ilog_symbolize_stats dummy;
	struct input *in = calloc(nin ? nin : 1, sizeof(*in));
	struct ilog_symbolize_opts so = *o;
	so.report = ilog_sym_on_report;
	so.report_arg = &f;
	for (int i = 0; i < (threads > 1 ? 2 : 1); i++)
		f.sym[i] = ilog_symbolizer_new(&so);
	pthread_mutex_init(&f.mu, NULL);
	pthread_cond_init(&f.cv, NULL);
	int rc = -1, damaged = 0;
	if (!st)
		st = &dummy;
	memset(st, 0, sizeof(*st));
	if (!in || !f.sym[0] || (threads > 1 && !f.sym[1])) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (unsigned i = 0; i < nin; i++) {
		in[i] = (struct input){ inputs[i].name, inputs[i].fd, 0, 0 };
		if (make_seekable(&in[i], err, errlen))
			goto out;
	}
	uint64_t t0 = ilog_mono_ns();
	int p1 = pass1(&f, o, in, nin, st, err, errlen, &damaged);
	uint64_t t1 = ilog_mono_ns();
	ilog_sym_warm_join(&f, 1);
	if (p1)
		goto out;
	if (!o->redo)
		st->kept = f.nkept;
	int big = plan(&f, st);
	if (big < 0) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	uint64_t t2 = ilog_mono_ns();
	char e2[512];
	if (big ? pass2_records(&f, o, in, nin, out_fd, e2, sizeof(e2))
		: pass2_frames(&f, o, in, out_fd, e2, sizeof(e2))) {
		snprintf(err, errlen, "%s", e2); /* output failed: that matters more */
		goto out;
	}
	st->read_ns = t1 - t0;
	st->resolve_ns = t2 - t1;
	st->write_ns = ilog_mono_ns() - t2;
	st->threads = f.started ? 2 : 1;
	for (int i = 0; i < 2 && f.sym[i]; i++) {
		uint64_t found;
		st->modules += ilog_symbolizer_modules(f.sym[i], &found);
		st->modules_found += found;
	}
	rc = damaged ? -1 : 0;
out:
	for (unsigned i = 0; in && i < nin; i++)
		if (in[i].own)
			close(in[i].fd);
	free(in);
	ilog_sym_warm_join(&f, 0);
	ilog_sym_replay(&f, UINT32_MAX);
	for (int i = 0; i < 2; i++)
		ilog_symbolizer_free(f.sym[i]);
	filt_free(&f);
	pthread_mutex_destroy(&f.mu);
	pthread_cond_destroy(&f.cv);
	return rc;
}
