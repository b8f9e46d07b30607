// SPDX-License-Identifier: MIT
/*
 * Fleet-wide stack ids for the ClickHouse export (rule in
 * export_clickhouse.h and docs/fleet.md).  The recorder's ids hash pid
 * and addresses, so the same code path gets a different id in every
 * process; here each frame becomes (file, offset in the file) through the
 * process's mapping records, which is the same wherever the file is
 * loaded, and the id hashes those.
 *
 * Mappings follow SPEC §7.2: a process record starts the pid's address
 * space afresh (a new image), a mapping replaces the ones it overlaps.
 * The stack is resolved against the mappings in force where its record
 * stands (the recorder writes a process's mappings before its stacks); a
 * frame no mapping holds keeps its address, is counted in the row's
 * `unresolved`, and makes the id process-specific.
 */
#include <stdlib.h>
#include <string.h>
#include "clickhouse.h"
#include "ingero/hash.h"
#include "ingero/vec.h"
#include "ingero/symbolize_map.h"

struct map {
	uint64_t start, end, offset;
	const char *key, *path;   /* interned */
};

struct pidmaps {
	struct map *m;
	uint32_t n, cap;
};

struct ilog_ch_stacks {
	struct ilog_strpool pool;
	struct ilog_hmap pidx;      /* (node, pid) -> pids[] */
	struct pidmaps *pids;
	uint32_t npids, cappids;
	struct ilog_hmap ids;       /* (node, recorder id) -> fids[] */
	uint64_t *fids;
	uint32_t nfids, capfids;
	struct ilog_hmap sent;      /* (fleet id, 0): a stacks row was made */
	char hex[2 * 64 + 1];
};

struct ilog_ch_stacks *ilog_ch_stacks_new(void)
{
	return calloc(1, sizeof(struct ilog_ch_stacks));
}

void ilog_ch_stacks_free(struct ilog_ch_stacks *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->npids; i++)
		free(s->pids[i].m);
	free(s->pids);
	free(s->fids);
	ilog_hmap_free(&s->pidx);
	ilog_hmap_free(&s->ids);
	ilog_hmap_free(&s->sent);
	ilog_strpool_free(&s->pool);
	free(s);
}

static struct pidmaps *pid_get(struct ilog_ch_stacks *s, uint32_t node, uint32_t pid, int create)
{
	uint64_t k = (uint64_t)node << 32 | pid;
	uint64_t *v = ilog_hmap_get(&s->pidx, k, 0);
	if (v)
		return &s->pids[*v];
	if (!create)
		return NULL;
	if (ilog_grow((void **)&s->pids, &s->cappids, s->npids, sizeof(*s->pids), 64))
		return NULL;
	if (ilog_hmap_set(&s->pidx, k, 0, s->npids))
		return NULL;
	s->pids[s->npids] = (struct pidmaps){ 0 };
	return &s->pids[s->npids++];
}

static int add_mapping(struct ilog_ch_stacks *s, uint32_t node, const struct ilog_mapping *mp)
{
	if (mp->end <= mp->start)
		return 0;
	struct pidmaps *p = pid_get(s, node, mp->pid, 1);
	if (!p)
		return -1;
	const char *key, *path = ilog_strpool_intern(&s->pool, mp->path.p, mp->path.n);
	if (mp->build_id.n) {
		static const char d[] = "0123456789abcdef";
		uint32_t n = mp->build_id.n < 64 ? mp->build_id.n : 64;
		for (uint32_t i = 0; i < n; i++) {
			s->hex[2 * i] = d[mp->build_id.p[i] >> 4];
			s->hex[2 * i + 1] = d[mp->build_id.p[i] & 15];
		}
		key = ilog_strpool_intern(&s->pool, s->hex, 2 * n);
	} else {
		char buf[4096 + 6];
		int n = snprintf(buf, sizeof(buf), "path:%.*s", (int)mp->path.n, mp->path.p);
		key = ilog_strpool_intern(&s->pool, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
	}
	if (!key || !path)
		return -1;
	/* drop what the new mapping overlaps, as mmap would */
	uint32_t k = 0;
	for (uint32_t i = 0; i < p->n; i++)
		if (p->m[i].end <= mp->start || p->m[i].start >= mp->end)
			p->m[k++] = p->m[i];
	p->n = k;
	if (ilog_grow((void **)&p->m, &p->cap, p->n, sizeof(*p->m), 64))
		return -1;
	uint32_t at = p->n;
	while (at && p->m[at - 1].start > mp->start) {
		p->m[at] = p->m[at - 1];
		at--;
	}
	p->m[at] = (struct map){ mp->start, mp->end, mp->offset, key, path };
	p->n++;
	return 0;
}

int ilog_ch_stacks_note(struct ilog_ch_stacks *s, uint32_t node, const struct ilog_record *rec)
{
	if (rec->kind == ILOG_K_PROCESS) {
		struct pidmaps *p = pid_get(s, node, rec->u.process.pid, 0);
		if (p)
			p->n = 0;
		return 0;
	}
	if (rec->kind == ILOG_K_MAPPING)
		return add_mapping(s, node, &rec->u.mapping);
	return 0;
}

static const struct map *find(const struct pidmaps *p, uint64_t ip)
{
	uint32_t lo = 0, hi = p ? p->n : 0;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (p->m[mid].end <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < (p ? p->n : 0) && p->m[lo].start <= ip ? &p->m[lo] : NULL;
}

uint64_t ilog_ch_stack_hash(const struct ilog_ch_frames *f)
{
	uint64_t h = ILOG_FNV64_INIT;
	for (uint32_t i = 0; i < f->n; i++) {
		h = ilog_fnv1a(h, f->key[i].p, f->key[i].n);
		h = ilog_fnv1a(h, "", 1);
		h = ilog_fnv1a_u64(h, f->offset[i]);
	}
	/* splitmix64's finalizer: FNV's low bits are weak, ids get sharded */
	h = ilog_mix64(h);
	return h ? h : 1;
}

uint64_t ilog_ch_stacks_add(struct ilog_ch_stacks *s, uint32_t node, uint32_t rnode,
			    const struct ingero_stack *st, const struct ilog_symmap *sym,
			    struct ilog_ch_frames *f)
{
	static const struct ilog_str empty = { "", 0 };
	const struct pidmaps *p = pid_get(s, node, st->pid, 0);
	uint32_t nr = st->nr < INGERO_MAX_STACK ? st->nr : INGERO_MAX_STACK;
	f->n = nr;
	f->unresolved = f->symbolized = 0;
	for (uint32_t i = 0; i < nr; i++) {
		uint64_t ip = st->ips[i];
		const struct map *m = find(p, ip);
		if (m) {
			f->key[i] = ilog_str_c(m->key);
			f->module[i] = ilog_str_c(m->path);
			f->offset[i] = ip - m->start + m->offset;
		} else {
			f->key[i] = f->module[i] = empty;
			f->offset[i] = ip;
			f->unresolved++;
		}
		unsigned nf = 0;
		const struct ilog_frame *fr = sym ? ilog_symmap_frames(sym, rnode, st->pid, ip, &nf)
						  : NULL;
		f->function[i] = f->file[i] = empty;
		f->line[i] = 0;
		if (nf) {
			/* the innermost frame at ip, as the SQLite stack_frames view */
			f->function[i] = ilog_str_c(fr[0].function);
			f->file[i] = ilog_str_c(fr[0].file);
			f->line[i] = fr[0].line;
			if (*fr[0].function)
				f->symbolized++;
		}
	}
	uint64_t fid = ilog_ch_stack_hash(f);
	uint64_t *v = ilog_hmap_get(&s->ids, (uint64_t)node, st->id);
	if (v) {
		s->fids[*v] = fid;
		return fid;
	}
	if (ilog_grow((void **)&s->fids, &s->capfids, s->nfids, sizeof(*s->fids), 64))
		return 0;
	if (ilog_hmap_set(&s->ids, (uint64_t)node, st->id, s->nfids))
		return 0;
	s->fids[s->nfids++] = fid;
	return fid;
}

uint64_t ilog_ch_stacks_id(const struct ilog_ch_stacks *s, uint32_t node, uint64_t rid)
{
	uint64_t *v = ilog_hmap_get(&s->ids, (uint64_t)node, rid);
	return v ? s->fids[*v] : 0;
}

int ilog_ch_stacks_first(struct ilog_ch_stacks *s, uint64_t fid)
{
	if (ilog_hmap_get(&s->sent, fid, 0))
		return 0;
	return ilog_hmap_set(&s->sent, fid, 0, 0) ? -1 : 1;
}
