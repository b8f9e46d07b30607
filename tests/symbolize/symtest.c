// SPDX-License-Identifier: MIT
/*
 * symtest: a program that records its own stacks, for the ingero-symbolize
 * tests.  It runs known call paths (C here, C++ in symtest_cpp.cc, a shared
 * library in symlib.c); each path ends in probe_here(), which takes the
 * stack the way a uprobe on probe_here would: its entry address, then the
 * return addresses of its callers (glibc's backtrace()).  It then writes a
 * log with the process's real mappings from /proc/self/maps and the GNU
 * build-ids of the loaded files (read from their notes in memory, so the
 * test does not take them from the code under test), and prints
 * "LABEL STACK_ID" per path.  Lines marked with an @name comment are the
 * answers the tests expect; the tests find them by name, not by number.
 *
 *   symtest -o FILE [--maps-after]   (--maps-after: mappings after stacks)
 */
#include <elf.h>
#include <execinfo.h>
#include <getopt.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ingero/cli.h"

void cpp_paths(void);
void symlib_entry(void (*probe)(const char *));
void probe_here(const char *label);

volatile int sink;

#define MAX_PATHS 16
#define MAX_IPS 64
static struct {
	const char *label;
	uint32_t n;
	uint64_t ips[MAX_IPS];
} paths[MAX_PATHS];
static int npaths;

#ifdef SYMTEST_VARIANT
/* symtest-v2: the same program built differently, so its build-id and
 * its addresses differ; the tests put it where symtest was recorded. */
__attribute__((noinline)) int variant_padding(int x)
{
	for (int i = 0; i < 64; i++)
		x = x * 31 + i;
	return x;
}
#endif

/* ra: probe_here's return address, where its caller's frames begin */
__attribute__((noinline)) static void capture(const char *label, void *ra)
{
	void *bt[MAX_IPS];
	int n = backtrace(bt, MAX_IPS), i = 0;
	if (npaths == MAX_PATHS)
		abort();
	/* frames above ra are capture's and probe_here's own (and, under a
	 * sanitizer, an interceptor's): a uprobe on probe_here sees its entry
	 * address instead, then the same return addresses */
	while (i < n && bt[i] != ra)
		i++;
	if (i == n)
		abort();
	paths[npaths].label = label;
	paths[npaths].ips[0] = (uint64_t)(uintptr_t)&probe_here;
	paths[npaths].n = 1;
	for (; i < n; i++)
		paths[npaths].ips[paths[npaths].n++] = (uint64_t)(uintptr_t)bt[i];
	npaths++;
}

__attribute__((noinline)) void probe_here(const char *label)
{ /* @probe_here: the line of the entry address */
	capture(label, __builtin_return_address(0));
	sink++;
}

/* C: two levels of inlining inside one real frame */
static inline __attribute__((always_inline)) void c_inline_leaf(void)
{
	probe_here("c_inline"); /* @c_inline_leaf_call */
	sink++;
}

static inline __attribute__((always_inline)) void c_inline_mid(void)
{
	c_inline_leaf(); /* @c_inline_mid_call */
	sink++;
}

__attribute__((noinline)) void c_outer(void)
{
	c_inline_mid(); /* @c_outer_call */
	sink++;
}

/* C: a static (local symbol) function */
__attribute__((noinline)) static void c_static_helper(void)
{
	probe_here("c_static"); /* @c_static_call */
	sink++;
}

__attribute__((noinline)) void c_caller(void)
{
	c_static_helper(); /* @c_caller_call */
	sink++;
}

/* Build-ids of the loaded objects, from their PT_NOTE segments. */
struct obj { uint64_t lo, hi; uint8_t bid[64]; uint32_t nbid; };
static struct obj objs[64];
static int nobjs;

static int on_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size, (void)arg;
	if (nobjs == 64)
		return 1;
	struct obj *o = &objs[nobjs];
	memset(o, 0, sizeof(*o));
	o->lo = UINT64_MAX;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t a = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD) {
			if (a < o->lo)
				o->lo = a;
			if (a + ph->p_memsz > o->hi)
				o->hi = a + ph->p_memsz;
		} else if (ph->p_type == PT_NOTE) {
			const uint8_t *p = (const uint8_t *)(uintptr_t)a, *end = p + ph->p_memsz;
			while (p + sizeof(ElfW(Nhdr)) <= end) {
				const ElfW(Nhdr) *nh = (const void *)p;
				const uint8_t *name = p + sizeof(*nh);
				const uint8_t *desc = name + ((nh->n_namesz + 3) & ~3u);
				if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
				    !memcmp(name, "GNU", 4) && nh->n_descsz <= 64) {
					memcpy(o->bid, desc, nh->n_descsz);
					o->nbid = nh->n_descsz;
				}
				p = desc + ((nh->n_descsz + 3) & ~3u);
			}
		}
	}
	nobjs++;
	return 0;
}

static const struct obj *obj_for(uint64_t start, uint64_t end)
{
	for (int i = 0; i < nobjs; i++)
		if (objs[i].nbid && start < objs[i].hi && end > objs[i].lo)
			return &objs[i];
	return NULL;
}

static void put(struct ilog_writer *w, const struct ilog_record *rec)
{
	if (ilog_writer_put(w, rec)) {
		ilog_errorf("%s", ilog_writer_error(w));
		exit(ILOG_EXIT_USAGE);
	}
}

static void put_maps(struct ilog_writer *w)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4352];
	if (!f) {
		ilog_errorf("/proc/self/maps: cannot open");
		exit(ILOG_EXIT_USAGE);
	}
	dl_iterate_phdr(on_object, NULL);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off;
		char perms[8], path[4096] = "";
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095[^\n]", &start, &end, perms, &off,
			   path) < 4 || !path[0])
			continue;
		struct ilog_record rec = { .kind = ILOG_K_MAPPING };
		const struct obj *o = path[0] == '/' ? obj_for(start, end) : NULL;
		rec.u.mapping = (struct ilog_mapping){
			.ts_ns = 1000, .pid = (uint32_t)getpid(), .start = start, .end = end,
			.offset = off,
			.prot = (perms[0] == 'r' ? 1u : 0) | (perms[1] == 'w' ? 2u : 0) |
				(perms[2] == 'x' ? 4u : 0),
			.path = ilog_str_c(path),
			.build_id = { o ? o->bid : NULL, o ? o->nbid : 0 },
		};
		put(w, &rec);
	}
	fclose(f);
}

static uint64_t stack_id(const uint64_t *ips, uint32_t n)
{
	uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)getpid();
	for (uint32_t i = 0; i < n; i++)
		for (int b = 0; b < 64; b += 8)
			h = (h ^ ((ips[i] >> b) & 0xff)) * 0x100000001b3ull;
	return h ? h : 1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "maps-after", no_argument, 0, 'm' }, { 0 },
	};
	const char *out = NULL;
	int maps_after = 0, c;
	ilog_cli_init(argv[0]);
	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'm': maps_after = 1; break;
		default: return ILOG_EXIT_USAGE;
		}
	}
	if (!out) {
		ilog_errorf("-o FILE is required");
		return ILOG_EXIT_USAGE;
	}

	c_outer(); /* @main_c_outer */
	c_caller(); /* @main_c_caller */
	cpp_paths(); /* @main_cpp */
	symlib_entry(probe_here); /* @main_lib */

	int fd = ilog_open_out(out);
	char err[256];
	struct ilog_writer_opts wo = { .frame_ms = ILOG_FRAME_MS_OFF };
	struct ilog_writer *w = fd < 0 ? NULL : ilog_writer_open(fd, &wo, err, sizeof(err));
	if (!w)
		return ILOG_EXIT_USAGE;
	struct ilog_header h = {
		.node = ILOG_STR("node-a"), .boot_id = ILOG_STR("00000000-0000-4000-8000-000000000000"),
		.host = ILOG_STR("node-a"), .recorder = ILOG_STR("symtest"), .kernel = ILOG_STR(""),
		.driver = ILOG_STR(""), .rank = -1, .mono_ns = 1000, .real_ns = 1795000000000000000ull,
	};
	if (ilog_writer_begin(w, &h))
		return ILOG_EXIT_USAGE;
	char exe[4096] = "";
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	struct ilog_record rec = { .kind = ILOG_K_PROCESS };
	rec.u.process = (struct ilog_process){
		.ts_ns = 1000, .pid = (uint32_t)getpid(), .ppid = (uint32_t)getppid(),
		.comm = ILOG_STR("symtest"), .exe = ilog_str_c(exe),
	};
	put(w, &rec);
	if (!maps_after)
		put_maps(w);
	for (int i = 0; i < npaths; i++) {
		struct ilog_record s = { .kind = ILOG_K_STACK };
		s.u.stack.pid = (uint32_t)getpid();
		s.u.stack.nr = paths[i].n;
		memcpy(s.u.stack.ips, paths[i].ips, paths[i].n * sizeof(uint64_t));
		s.u.stack.id = stack_id(paths[i].ips, paths[i].n);
		put(w, &s);
		printf("%s 0x%llx\n", paths[i].label, (unsigned long long)s.u.stack.id);
	}
	if (maps_after)
		put_maps(w);
	if (ilog_writer_close(w, err, sizeof(err))) {
		ilog_errorf("%s", err);
		return ILOG_EXIT_USAGE;
	}
	return ilog_finish_stdout(ILOG_EXIT_OK);
}
