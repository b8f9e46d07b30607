// SPDX-License-Identifier: MIT
/*
 * minprobe: bench/record's reference probe.  Loads only the empty (or the
 * bpftrace-like timing) programs of bpf/minprobe.bpf.c and attaches them
 * to one function of a library in the way MODE names, then waits for
 * SIGINT, printing "attached" once the probes are in:
 *   perf          perf-event uprobe + uretprobe (what bpftrace does)
 *   perf-entry    perf-event uprobe only
 *   multi         uprobe_multi entry link + return link (Linux 6.6)
 *   multi-entry   uprobe_multi entry link only
 *   session       one uprobe session program, return probe set (6.13)
 *   session-entry the session program returning 1: no return probe
 *   time          perf-event pair timing each call into a histogram
 * OFFSET (default 0) is added to the symbol's: past the prologue, the
 * probed instruction is one the kernel must single-step, not emulate.
 * At exit it prints each program's run count and run time when
 * kernel.bpf_stats_enabled is 1.
 * usage: minprobe MODE LIBRARY SYMBOL [OFFSET]
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpf/minprobe.skel.h"

#define TRACE_UPROBE_MULTI 48
#define TRACE_UPROBE_SESSION 57
struct link_create_um {
	uint32_t prog_fd, target_fd, attach_type, flags;
	uint64_t path, offsets, ref_ctr_offsets, cookies;
	uint32_t cnt, um_flags, pid;
	uint8_t tail[92];
};

/* the file offset of a dynamic symbol: its address in the PT_LOAD that holds it */
static long sym_offset(const char *path, const char *name)
{
	long off = -1;
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	GElf_Addr addr = 0;
	while (e && !addr && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;
			if (gelf_getsym(d, (int)i, &s) && s.st_value &&
			    (n = elf_strptr(e, sh.sh_link, s.st_name)) && !strcmp(n, name)) {
				addr = s.st_value;
				break;
			}
		}
	}
	size_t np = 0;
	if (addr && !elf_getphdrnum(e, &np))
		for (size_t i = 0; i < np; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_memsz)
				off = (long)(addr - ph.p_vaddr + ph.p_offset);
		}
	if (e)
		elf_end(e);
	close(fd);
	return off;
}

static int link_multi(struct bpf_program *p, const char *path, uint64_t off, int type, int ret)
{
	struct link_create_um a;
	uint64_t cookie = 0;
	memset(&a, 0, sizeof(a));
	a.prog_fd = (uint32_t)bpf_program__fd(p);
	a.attach_type = (uint32_t)type;
	a.path = (uint64_t)(uintptr_t)path;
	a.offsets = (uint64_t)(uintptr_t)&off;
	a.cookies = (uint64_t)(uintptr_t)&cookie;
	a.cnt = 1;
	a.um_flags = ret ? 1 : 0;
	return (int)syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));
}

static void stats(struct bpf_program *p)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);
	memset(&info, 0, sizeof(info));
	if (bpf_program__fd(p) < 0 || bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
		return;
	if (info.run_cnt)
		fprintf(stderr, "minprobe: %s: %llu runs, %.1f ns a run\n", bpf_program__name(p),
			(unsigned long long)info.run_cnt,
			(double)info.run_time_ns / (double)info.run_cnt);
}

static volatile sig_atomic_t stop;
static void on_sig(int s)
{
	(void)s;
	stop = 1;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: minprobe MODE LIBRARY SYMBOL [OFFSET]\n");
		return 2;
	}
	const char *mode = argv[1], *lib = argv[2];
	long off = sym_offset(lib, argv[3]);
	if (off < 0) {
		fprintf(stderr, "minprobe: %s: no symbol %s\n", lib, argv[3]);
		return 2;
	}
	off += argc > 4 ? strtol(argv[4], NULL, 0) : 0;
	struct minprobe_bpf *s = minprobe_bpf__open();
	if (!s)
		return 2;
	struct bpf_program *use[2] = { NULL, NULL };
	int multi = 0;
	if (!strcmp(mode, "perf")) {
		use[0] = s->progs.empty_entry;
		use[1] = s->progs.empty_return;
	} else if (!strcmp(mode, "perf-entry")) {
		use[0] = s->progs.empty_entry;
	} else if (!strcmp(mode, "time")) {
		use[0] = s->progs.time_entry;
		use[1] = s->progs.time_return;
	} else if (!strcmp(mode, "multi") || !strcmp(mode, "multi-entry")) {
		multi = TRACE_UPROBE_MULTI;
		use[0] = s->progs.empty_multi;
		if (!strcmp(mode, "multi"))
			use[1] = s->progs.empty_multi_return;
	} else if (!strcmp(mode, "session") || !strcmp(mode, "session-entry")) {
		multi = TRACE_UPROBE_SESSION;
		use[0] = s->progs.empty_session;
		s->rodata->session_ret = !strcmp(mode, "session-entry");
	} else {
		fprintf(stderr, "minprobe: unknown mode %s\n", mode);
		return 2;
	}
	struct bpf_program *p;
	bpf_object__for_each_program(p, s->obj) {
		bpf_program__set_autoload(p, p == use[0] || p == use[1]);
		if (multi && (p == use[0] || p == use[1]))
			bpf_program__set_expected_attach_type(p, (enum bpf_attach_type)multi);
	}
	if (minprobe_bpf__load(s)) {
		fprintf(stderr, "minprobe: %s: cannot load: %s\n", mode, strerror(errno));
		return 2;
	}
	struct bpf_link *l[2] = { NULL, NULL };
	int fd[2] = { -1, -1 };
	for (int i = 0; i < 2 && use[i]; i++) {
		if (multi) {
			fd[i] = link_multi(use[i], lib, (uint64_t)off, multi, i);
		} else {
			LIBBPF_OPTS(bpf_uprobe_opts, uo, .retprobe = i == 1);
			l[i] = bpf_program__attach_uprobe_opts(use[i], -1, lib, (size_t)off, &uo);
		}
		if (multi ? fd[i] < 0 : !l[i]) {
			fprintf(stderr, "minprobe: %s: cannot attach: %s\n", mode, strerror(errno));
			return 2;
		}
	}
	signal(SIGINT, on_sig);
	signal(SIGTERM, on_sig);
	fprintf(stderr, "minprobe: %s attached at 0x%lx\n", mode, off);
	while (!stop)
		pause();
	for (int i = 0; i < 2 && use[i]; i++)
		stats(use[i]);
	for (int i = 0; i < 2; i++) {
		bpf_link__destroy(l[i]);
		if (fd[i] >= 0)
			close(fd[i]);
	}
	minprobe_bpf__destroy(s);
	return 0;
}
