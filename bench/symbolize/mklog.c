// SPDX-License-Identifier: MIT
/*
 * bench/symbolize/mklog: writes the benchmark's log: one process with N
 * modules mapped (real ELF files, build-ids read from them), S stacks of
 * D frames drawn from a pool of P addresses inside the modules' functions
 * (like a training job's stacks: a few thousand call sites, repeated), and
 * the addresses per module for addr2line (module_off, one byte back for
 * return addresses: what ingero-symbolize looks up): ADDRS_DIR/M.addrs, the
 * distinct ones, and ADDRS_DIR/M.all, every ip of the first SAMPLE stacks.
 *
 *   mklog LOG ADDRS_DIR SYMS_FILE STACKS DEPTH POOL SAMPLE
 *
 * SYMS_FILE lines: "MODULE_PATH VADDR SIZE" (functions, from nm -S).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ingero/cli.h"
#include "ingero/symbolize.h"

struct fn { unsigned mod; uint64_t vaddr, size; };

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

int main(int argc, char **argv)
{
	ilog_cli_init(argv[0]);
	if (argc != 8) {
		ilog_errorf("usage: mklog LOG ADDRS_DIR SYMS_FILE STACKS DEPTH POOL SAMPLE");
		return ILOG_EXIT_USAGE;
	}
	unsigned sample = (unsigned)atoi(argv[7]);
	unsigned nstacks = (unsigned)atoi(argv[4]), depth = (unsigned)atoi(argv[5]);
	unsigned npool = (unsigned)atoi(argv[6]);
	FILE *sf = fopen(argv[3], "r");
	if (!sf || depth > INGERO_MAX_STACK || !depth)
		return ILOG_EXIT_USAGE;
	static char paths[256][4096];
	static uint8_t bids[256][64];
	static int nbids[256];
	unsigned nmods = 0, nfns = 0, capfns = 1024;
	struct fn *fns = malloc(capfns * sizeof(*fns));
	char path[4096];
	unsigned long long va, sz;
	while (fscanf(sf, "%4095s %llx %llx", path, &va, &sz) == 3) {
		if (!nmods || strcmp(paths[nmods - 1], path)) {
			if (nmods == 256)
				break;
			snprintf(paths[nmods], sizeof(paths[0]), "%s", path);
			char err[256];
			nbids[nmods] = ilog_elf_build_id(path, bids[nmods], 64, err, sizeof(err));
			if (nbids[nmods] <= 0) {
				ilog_errorf("%s: no build-id", path);
				return ILOG_EXIT_USAGE;
			}
			nmods++;
		}
		if (sz < 2)
			continue;
		if (nfns == capfns)
			fns = realloc(fns, (capfns *= 2) * sizeof(*fns));
		fns[nfns++] = (struct fn){ nmods - 1, va, sz };
	}
	fclose(sf);
	if (!nfns)
		return ILOG_EXIT_USAGE;
	/* the pool: an address inside a function, per call site */
	uint64_t *pool = malloc(npool * sizeof(*pool));
	unsigned *pmod = malloc(npool * sizeof(*pmod));
	for (unsigned i = 0; i < npool; i++) {
		const struct fn *f = &fns[rnd() % nfns];
		pmod[i] = f->mod;
		pool[i] = 0x7f0000000000ull + (uint64_t)f->mod * 0x10000000ull + f->vaddr + 1 +
			  rnd() % (f->size - 1);
	}
	int fd = ilog_open_out(argv[1]);
	char err[256];
	struct ilog_writer_opts wo = { .frame_ms = ILOG_FRAME_MS_OFF };
	struct ilog_writer *w = fd < 0 ? NULL : ilog_writer_open(fd, &wo, err, sizeof(err));
	struct ilog_header h = { .node = ILOG_STR("bench"), .recorder = ILOG_STR("mklog"),
				 .rank = -1, .mono_ns = 1, .real_ns = 1795000000000000000ull };
	if (!w || ilog_writer_begin(w, &h))
		return ILOG_EXIT_USAGE;
	struct ilog_record rec = { .kind = ILOG_K_MAPPING };
	for (unsigned m = 0; m < nmods; m++) {
		/* the whole file at one base: file offset = address for the
		 * usual linker layout (p_offset == p_vaddr) */
		rec.u.mapping = (struct ilog_mapping){
			.pid = 1000, .start = 0x7f0000000000ull + (uint64_t)m * 0x10000000ull,
			.end = 0x7f0000000000ull + (uint64_t)(m + 1) * 0x10000000ull, .prot = 5,
			.path = ilog_str_c(paths[m]), .build_id = { bids[m], (uint32_t)nbids[m] },
		};
		if (ilog_writer_put(w, &rec))
			return ILOG_EXIT_USAGE;
	}
	/* which pool entries appear first in a stack (looked up as they are)
	 * and which later (return addresses, looked up one byte back) */
	uint8_t *used = calloc(npool, 1);
	FILE **all = calloc(nmods, sizeof(*all));
	for (unsigned m = 0; m < nmods; m++) {
		char name[4200];
		snprintf(name, sizeof(name), "%s/%u.all", argv[2], m);
		if (!(all[m] = fopen(name, "w")))
			return ILOG_EXIT_USAGE;
	}
	rec.kind = ILOG_K_STACK;
	for (unsigned s = 0; s < nstacks; s++) {
		struct ingero_stack *st = &rec.u.stack;
		st->pid = 1000;
		st->nr = depth;
		uint64_t hsh = 1469598103934665603ull;
		for (unsigned k = 0; k < depth; k++) {
			unsigned i = (unsigned)(rnd() % npool);
			st->ips[k] = pool[i];
			used[i] |= k ? 2 : 1;
			if (s < sample)
				fprintf(all[pmod[i]], "0x%llx\n", (unsigned long long)(pool[i] -
					0x7f0000000000ull - (uint64_t)pmod[i] * 0x10000000ull - (k ? 1 : 0)));
			hsh = (hsh ^ pool[i]) * 1099511628211ull;
		}
		st->id = hsh | 1;
		if (ilog_writer_put(w, &rec))
			return ILOG_EXIT_USAGE;
	}
	if (ilog_writer_close(w, err, sizeof(err)))
		return ILOG_EXIT_USAGE;
	for (unsigned m = 0; m < nmods; m++)
		fclose(all[m]);
	/* addresses per module, as addr2line gets them: every distinct one,
	 * and every one of every stack (what a pipeline without a cache asks) */
	for (unsigned m = 0; m < nmods; m++) {
		char name[4200];
		snprintf(name, sizeof(name), "%s/%u.addrs", argv[2], m);
		FILE *f = fopen(name, "w");
		if (!f)
			return ILOG_EXIT_USAGE;
		fprintf(f, "%s\n", paths[m]);
		for (unsigned i = 0; i < npool; i++)
			if (pmod[i] == m && used[i])
				fprintf(f, "0x%llx\n", (unsigned long long)(pool[i] -
					0x7f0000000000ull - (uint64_t)m * 0x10000000ull - (used[i] & 1 ? 0 : 1)));
		fclose(f);
	}
	printf("%u modules, %u functions, %u stacks of %u frames, %u call sites\n", nmods, nfns,
	       nstacks, depth, npool);
	return 0;
}
