// SPDX-License-Identifier: MIT
/*
 * Launches per kernel (ingero-correlate --by kernel, SPEC §5.18): every
 * cudaLaunchKernel, cuLaunchKernel and cuLaunchKernelEx call grouped by
 * node and the name of the kernel it runs, which the symbol records of its
 * host stub (runtime launches, from ingero-symbolize) or the kernel record
 * of its handle (driver launches, from the recorder) give.  Launches no
 * record names are one row, "(unknown)".  Quantiles are exact: the
 * durations are kept and sorted once.
 */
#include <stdlib.h>
#include <string.h>
#include "ingero/hmap.h"
#include "ingero/stats.h"
#include "ingero/symbolize_map.h"
#include "ingero/vec.h"
#include "stats_int.h"

struct kgroup {
	uint32_t node;
	char *name;
	uint64_t *dur;
	uint32_t n, cap;
	uint32_t untimed; /* launches recorded at entry (SPEC §5.4 UNTIMED): counted, not timed */
	uint64_t total, by_op[3]; /* cudaLaunchKernel, cuLaunchKernel, cuLaunchKernelEx */
};

struct ilog_kstats {
	struct ilog_symmap *sym;
	struct ilog_hmap idx; /* (node, name hash) -> groups[] + 1, chained by probing names */
	struct kgroup *g;
	uint32_t n, cap;
};

struct ilog_kstats *ilog_kstats_new(void)
{
	struct ilog_kstats *k = calloc(1, sizeof(*k));
	if (k && !(k->sym = ilog_symmap_new())) {
		free(k);
		return NULL;
	}
	return k;
}

void ilog_kstats_free(struct ilog_kstats *k)
{
	if (!k)
		return;
	for (uint32_t i = 0; i < k->n; i++) {
		free(k->g[i].name);
		free(k->g[i].dur);
	}
	free(k->g);
	ilog_hmap_free(&k->idx);
	ilog_symmap_free(k->sym);
	free(k);
}

static struct kgroup *group(struct ilog_kstats *k, uint32_t node, const char *name)
{
	/* one hash per name; equal hashes of other names take the next key */
	for (uint64_t h = ilog_strhash(name, strlen(name));; h++) {
		uint64_t *v = ilog_hmap_get(&k->idx, node, h);
		if (!v)
			break;
		if (!strcmp(k->g[*v].name, name))
			return &k->g[*v];
	}
	if (ilog_grow((void **)&k->g, &k->cap, k->n, sizeof(*k->g), 64))
		return NULL;
	uint64_t h = ilog_strhash(name, strlen(name));
	while (ilog_hmap_get(&k->idx, node, h))
		h++;
	struct kgroup *g = &k->g[k->n];
	*g = (struct kgroup){ .node = node, .name = strdup(name) };
	if (!g->name || ilog_hmap_set(&k->idx, node, h, k->n)) {
		free(g->name);
		return NULL;
	}
	k->n++;
	return g;
}

int ilog_kstats_add(struct ilog_kstats *k, const struct ilog_record *rec)
{
	if (ilog_symmap_note(k->sym, rec))
		return -1;
	if (rec->kind != ILOG_K_CUDA)
		return 0;
	const struct ingero_cuda_event *e = &rec->u.cuda;
	int which = e->op == ILOG_OP_cudaLaunchKernel ? 0 : e->op == ILOG_OP_cuLaunchKernel ? 1
		  : e->op == ILOG_OP_cuLaunchKernelEx ? 2 : -1;
	if (which < 0)
		return 0;
	const char *name = ilog_symmap_kernel(k->sym, rec->node, e);
	struct kgroup *g = group(k, rec->node, name ? name : "(unknown)");
	if (!g)
		return -1;
	g->by_op[which]++;
	if (e->flags & ILOG_CUDA_F_UNTIMED) {
		g->untimed++;
		return 0;
	}
	if (ilog_grow((void **)&g->dur, &g->cap, g->n, sizeof(*g->dur), 256))
		return -1;
	g->dur[g->n++] = e->dur_ns;
	g->total += e->dur_ns;
	return 0;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int row_cmp(const void *a, const void *b)
{
	const struct ilog_kstat_row *x = a, *y = b;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	return strcmp(x->kernel, y->kernel);
}

/* nearest rank: the ceil(q * n)-th smallest */
static uint64_t rank(const uint64_t *v, uint32_t n, double q)
{
	uint64_t r = (uint64_t)(q * n);
	if ((double)r < q * n)
		r++;
	return v[r ? r - 1 : 0];
}

int ilog_kstats_rows(struct ilog_kstats *k, struct ilog_kstat_row **out)
{
	*out = NULL;
	if (!k->n)
		return 0;
	struct ilog_kstat_row *rows = calloc(k->n, sizeof(*rows));
	if (!rows)
		return -1;
	for (uint32_t i = 0; i < k->n; i++) {
		struct kgroup *g = &k->g[i];
		/* the timed launches stand for the untimed ones (--launch-timing):
		 * percentiles are theirs, the total is scaled to every launch */
		uint64_t all = (uint64_t)g->n + g->untimed;
		rows[i] = (struct ilog_kstat_row){
			.node = g->node, .kernel = g->name, .launches = all,
			.runtime = g->by_op[0], .driver = g->by_op[1] + g->by_op[2],
		};
		if (g->n) {
			qsort(g->dur, g->n, sizeof(*g->dur), u64_cmp);
			rows[i].total_ns = g->untimed ? ilog_sat_u64((double)g->total * (double)all / g->n)
						      : g->total;
			rows[i].p50_ns = rank(g->dur, g->n, 0.5);
			rows[i].p99_ns = rank(g->dur, g->n, 0.99);
			rows[i].max_ns = g->dur[g->n - 1];
		}
	}
	qsort(rows, k->n, sizeof(*rows), row_cmp);
	*out = rows;
	return (int)k->n;
}
