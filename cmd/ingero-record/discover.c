// SPDX-License-Identifier: MIT
/*
 * Finding what to trace: every mapped file named libcudart.so*,
 * libcuda.so* or libnccl.so* (system, venv, conda, bundled copies: each
 * file is attached once, by device and inode), plus the dynamic linker,
 * whose _dl_debug_state hook tells us when a process dlopens something.
 * For target processes it writes the process record and the executable
 * mappings with their GNU build-ids, which is what symbolizing a stack
 * offline needs.
 */
#include <ctype.h>
#include <ftw.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <glob.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "ingero/cli.h"
#include "ingero/hmap.h"
#include "ingero/vec.h"
#include "rec.h"
#include "bpf/record.skel.h"

uint64_t rec_now(clockid_t clk)
{
	struct timespec t;
	clock_gettime(clk, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

struct rec_proc *rec_proc_get(struct rec *r, uint32_t pid, int create)
{
	if (!pid)
		return NULL;
	unsigned h = (pid * 2654435761u) % REC_MAX_PROCS;
	for (unsigned i = 0; i < REC_MAX_PROCS; i++) {
		struct rec_proc *p = &r->procs[(h + i) % REC_MAX_PROCS];
		if (p->pid == pid)
			return p;
		if (!p->pid) {
			if (!create)
				return NULL;
			memset(p, 0, sizeof(*p));
			p->pid = pid;
			return p;
		}
	}
	return NULL;
}

static ssize_t read_file(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t n = 0;
	while (n < cap - 1) {
		ssize_t k = read(fd, buf + n, cap - 1 - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	close(fd);
	buf[n] = 0;
	return (ssize_t)n;
}

int rec_proc_uid(uint32_t pid, uint32_t *uid)
{
	char path[64], buf[4096];
	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	const char *u = strstr(buf, "\nUid:");
	if (!u)
		return -1;
	*uid = (uint32_t)strtoul(u + 5, NULL, 10);
	return 0;
}

/* /proc/PID/stat: fields after the parenthesized comm. */
static int proc_stat_flags(uint32_t pid, uint32_t *ppid, uint64_t *start, uint64_t *cpu,
			   uint64_t *flags);

static int proc_stat(uint32_t pid, uint32_t *ppid, uint64_t *start, uint64_t *cpu)
{
	return proc_stat_flags(pid, ppid, start, cpu, NULL);
}

/* proc_stat, and the task's kernel flags (PF_*) */
static int proc_stat_flags(uint32_t pid, uint32_t *ppid, uint64_t *start, uint64_t *cpu,
			   uint64_t *flags)
{
	char path[64], buf[2048];
	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	char *p = strrchr(buf, ')');
	if (!p)
		return -1;
	/* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ... starttime(22) */
	unsigned long long f[20] = { 0 };
	char st;
	if (sscanf(p + 2, "%c %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu "
			  "%llu %llu %llu %llu %llu",
		   &st, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9],
		   &f[10], &f[11], &f[12], &f[13], &f[14], &f[15], &f[16], &f[17], &f[18]) < 20)
		return -1;
	if (ppid)
		*ppid = (uint32_t)f[0];
	if (flags)
		*flags = f[5];
	if (cpu)
		*cpu = f[10] + f[11];
	if (start)
		*start = f[18];
	return 0;
}

int rec_add_target(struct rec *r, uint32_t pid)
{
	struct rec_target t = { .flags = REC_TARGET_NOTED };
	struct rec_proc *p = rec_proc_get(r, pid, 1);
	if (!p)
		return -1;
	return bpf_map__update_elem(r->skel->maps.targets, &pid, sizeof(pid), &t, sizeof(t),
				    BPF_ANY);
}

int rec_is_target(struct rec *r, uint32_t pid)
{
	struct rec_target t;
	return bpf_map__lookup_elem(r->skel->maps.targets, &pid, sizeof(pid), &t, sizeof(t), 0) ==
	       0;
}

/* ---- build-ids, cached per file ---- */
struct bid {
	uint64_t dev, ino;
	uint8_t len;
	uint8_t id[32];
};
static struct bid *bids;
static unsigned nbids, capbids;

size_t rec_build_id(const char *path, uint8_t *out, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	size_t len = 0;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t nph = 0;
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &nph))
		goto out;
	for (size_t i = 0; i < nph && !len; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		Elf_Data *d = elf_getdata_rawchunk(e, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR);
		if (!d)
			continue;
		size_t off = 0, noff, doff;
		GElf_Nhdr nh;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)d->d_buf + noff, "GNU", 4)) {
				len = nh.n_descsz < cap ? nh.n_descsz : cap;
				memcpy(out, (char *)d->d_buf + doff, len);
				break;
			}
		}
	}
out:
	if (e)
		elf_end(e);
	close(fd);
	return len;
}

static size_t build_id_cached(const char *open_path, uint64_t dev, uint64_t ino, uint8_t *out)
{
	for (unsigned i = 0; i < nbids; i++)
		if (bids[i].dev == dev && bids[i].ino == ino) {
			memcpy(out, bids[i].id, bids[i].len);
			return bids[i].len;
		}
	if (ilog_grow((void **)&bids, &capbids, nbids, sizeof(*bids), 64))
		return 0;
	struct bid *b = &bids[nbids++];
	b->dev = dev;
	b->ino = ino;
	b->len = (uint8_t)rec_build_id(open_path, b->id, sizeof(b->id));
	memcpy(out, b->id, b->len);
	return b->len;
}

/* ---- records ---- */

/*
 * The process record of pid, from /proc/<from>: its own entry, or (from !=
 * pid) its parent's, for a child that was forked and exited before the
 * recorder got to it -- a fork copies comm, executable and arguments, and
 * its start time is then unknown (0).  0, or -1 when /proc/<from> is gone.
 */
static int write_process_rec(struct rec *r, uint32_t pid, uint32_t from, int track);

static int write_process_from(struct rec *r, uint32_t pid, uint32_t from)
{
	return write_process_rec(r, pid, from, 1);
}

/* Who pid is now: its start time and name (from /proc/PID/stat; an exec
 * renames it), hashed; 0 when it is gone or exiting (PF_EXITING, then a
 * zombie: /proc/PID/cgroup names the root cgroup, where exiting moves it). */
static uint64_t proc_ident(uint32_t pid)
{
	char path[64], buf[2048];
	uint64_t start = 0, flags = 0;
	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	ssize_t n = read_file(path, buf, sizeof(buf) - 1);
	if (n <= 0 || proc_stat_flags(pid, NULL, &start, NULL, &flags) || (flags & 0x4))
		return 0;
	buf[n] = 0;
	const char *a = strchr(buf, '('), *b = strrchr(buf, ')');
	uint64_t h = ilog_fnv1a_u64(ILOG_FNV64_INIT, start);
	if (a && b && b > a)
		h = ilog_fnv1a(h, a + 1, (size_t)(b - a - 1));
	return h ? h : 1;
}

/* The folder of the cgroup of this id (its inode) under the hierarchy
 * rec_cgroup_root names, by a walk of it; "" when none has it.
 * Results are kept: a walk per cgroup at most. */
static char cg_found[4096];
static uint64_t cg_want;

static int cg_visit(const char *f, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	if (type != FTW_D || (uint64_t)st->st_ino != cg_want)
		return 0;
	snprintf(cg_found, sizeof(cg_found), "%s", f);
	return 1;
}

static const char *cgroup_path_of(uint64_t id)
{
	static struct ilog_hmap known; /* id -> its path, interned */
	static struct ilog_strpool paths;
	if (!id)
		return "";
	uint64_t *v = ilog_hmap_get(&known, id, 0);
	if (v)
		return (const char *)(uintptr_t)*v;
	const char *root = rec_cgroup_root();
	size_t rl = strlen(root);
	cg_found[0] = 0;
	cg_want = id;
	if (nftw(root, cg_visit, 16, FTW_PHYS | FTW_MOUNT) == 1 && !strncmp(cg_found, root, rl))
		memmove(cg_found, cg_found + rl, strlen(cg_found + rl) + 1);
	else
		cg_found[0] = 0;
	if (!cg_found[0]) {
		struct stat st; /* the hierarchy's root itself */
		if (!stat(root, &st) && (uint64_t)st.st_ino == id)
			snprintf(cg_found, sizeof(cg_found), "/");
	}
	const char *kept = ilog_strpool_intern(&paths, cg_found, strlen(cg_found));
	if (kept)
		ilog_hmap_set(&known, id, 0, (uint64_t)(uintptr_t)kept);
	return cg_found;
}

/*
 * A process that is not a target but that the log names (a top page
 * allocator of a window, a preempter or waker of a target thread): its
 * process record (none for a target), once per process and again after
 * it exec'd, moved to another cgroup or its pid was reused, without making it a target or listing it in snapshots.
 * comm is the name the event gave (a thread's), cgid its cgroup as the
 * kernel saw it: a process already gone gets a record of those, its
 * cgroup's path found by that id under /sys/fs/cgroup.  Both tables are
 * bounded (REC_OTHERS_MAX): when one fills it starts over, which costs a
 * record again per process, never memory.  The bound is small: every
 * process a busy host starts preempts a target sooner or later (9 a second
 * on the soak's quiet machine), and an always-on recorder must stay flat;
 * at 4096 entries a table is at most 8192 slots of 24 bytes (192 KiB).
 * At 65536 they grew for hours towards 3 MiB each, doubling as they went:
 * the 30-minute soak's +10% RSS.
 */
#define REC_OTHERS_MAX 4096
int rec_write_other(struct rec *r, uint32_t pid, const char *comm, uint64_t cgid)
{
	static struct ilog_hmap asked;   /* (pid, name the event gave) -> 1 */
	/* (pid, 0) -> proc_ident of the record written (1: gone), (pid, 1) ->
	 * the hash of the name it gave, (pid, 2) -> the cgroup id it was for */
	static struct ilog_hmap written;
	if (!pid)
		return 0;
	size_t cn = comm ? strnlen(comm, INGERO_COMM_LEN) : 0;
	uint64_t ch = ilog_fnv1a(ILOG_FNV64_INIT, comm ? comm : "", cn);
	uint64_t key = ilog_fnv1a_u64(ch, cgid); /* a move to another cgroup is news */
	if (ilog_hmap_get(&asked, pid, key))
		return 0;
	if (asked.n >= REC_OTHERS_MAX)
		ilog_hmap_free(&asked);
	ilog_hmap_set(&asked, pid, key, 1);
	if (rec_is_target(r, pid))
		return 0; /* a target has its own records */
	uint64_t id = proc_ident(pid);
	const uint64_t *w = ilog_hmap_get(&written, pid, 0);
	const uint64_t *wc = ilog_hmap_get(&written, pid, 1);
	const uint64_t *wg = ilog_hmap_get(&written, pid, 2);
	if (w && (id ? *w == id : wc && *wc == ch) && (!cgid || (wg && *wg == cgid)))
		return 0; /* the same process in the same cgroup, or gone after a record of this name */
	if (written.n >= REC_OTHERS_MAX)
		ilog_hmap_free(&written);
	if (id) {
		char f[64], c[64] = "";
		snprintf(f, sizeof(f), "/proc/%u/comm", pid);
		ssize_t k = read_file(f, c, sizeof(c));
		uint64_t wrote = ilog_fnv1a(ILOG_FNV64_INIT, c, k > 0 ? strcspn(c, "\n") : 0);
		/* the cgroup it is in now (an event's may be older: a page
		 * allocation window opened before it moved) */
		char path[4096];
		uint64_t now_cg = cgid;
		if (rec_cgroup_of(pid, path, sizeof(path), &now_cg))
			now_cg = cgid;
		if (!write_process_rec(r, pid, pid, 0)) {
			ilog_hmap_set(&written, pid, 0, id);
			ilog_hmap_set(&written, pid, 1, wrote);
			ilog_hmap_set(&written, pid, 2, now_cg);
			return 1;
		}
	}
	ilog_hmap_set(&written, pid, 0, 1);
	ilog_hmap_set(&written, pid, 1, ch);
	ilog_hmap_set(&written, pid, 2, cgid);
	/* gone: what the event said of it */
	char cg[4096], pod[37], ctr[65];
	snprintf(cg, sizeof(cg), "%s", cgroup_path_of(cgid));
	ilog_cgroup_parse(cg, pod, ctr);
	struct ilog_record rec = { .kind = ILOG_K_PROCESS };
	rec.u.process = (struct ilog_process){
		.ts_ns = rec_now(CLOCK_MONOTONIC), .pid = pid,
		.comm = { comm ? comm : "", (uint32_t)cn },
		.cgroup = ilog_str_c(cg), .cgroup_id = cgid,
		.pod_uid = ilog_str_c(pod), .container_id = ilog_str_c(ctr),
	};
	ilog_writer_put(r->w, &rec);
	return 1;
}

void rec_proc_comm(uint32_t pid, char *buf, size_t n)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	ssize_t k = read_file(path, buf, n);
	if (k <= 0)
		snprintf(buf, n, "?");
	else
		buf[strcspn(buf, "\n")] = 0;
}

static int write_process_rec(struct rec *r, uint32_t pid, uint32_t from, int track)
{
	char path[64], comm[64] = "", exe[4096] = "";
	static char cmdline[32768];
	uint32_t ppid = 0, uid = 0;
	uint64_t start = 0;
	if (proc_stat(from, &ppid, &start, NULL))
		return -1;
	if (from != pid) {
		ppid = from;
		start = 0;
	}
	rec_proc_uid(from, &uid);
	snprintf(path, sizeof(path), "/proc/%u/comm", from);
	ssize_t n = read_file(path, comm, sizeof(comm));
	if (n > 0 && comm[n - 1] == '\n')
		comm[n - 1] = 0;
	snprintf(path, sizeof(path), "/proc/%u/exe", from);
	n = readlink(path, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	snprintf(path, sizeof(path), "/proc/%u/cmdline", from);
	ssize_t cl = read_file(path, cmdline, sizeof(cmdline));
	long hz = sysconf(_SC_CLK_TCK);
	struct ilog_record rec = { .kind = ILOG_K_PROCESS };
	rec.u.process = (struct ilog_process){
		.ts_ns = rec_now(CLOCK_MONOTONIC), .pid = pid, .ppid = ppid, .uid = uid,
		.start_ns = start * (1000000000ull / (uint64_t)(hz > 0 ? hz : 100)),
		.comm = ilog_str_c(comm), .exe = ilog_str_c(exe),
		.cmdline = { (const uint8_t *)cmdline, cl > 0 ? (uint32_t)cl : 0 },
	};
	char cg[4096], pod[37], ctr[65];
	uint64_t cgid = 0;
	if (!rec_cgroup_of(from, cg, sizeof(cg), &cgid)) {
		ilog_cgroup_parse(cg, pod, ctr);
		rec.u.process.cgroup = ilog_str_c(cg);
		rec.u.process.cgroup_id = cgid;
		rec.u.process.pod_uid = ilog_str_c(pod);
		rec.u.process.container_id = ilog_str_c(ctr);
	}
	ilog_writer_put(r->w, &rec);
	struct rec_proc *p = track ? rec_proc_get(r, pid, 1) : NULL;
	if (p) {
		p->start_ticks = start;
		p->written_gen = p->exec_gen + 1;
		p->nmaps = 0; /* a new image: its mappings are all new */
	}
	return 0;
}

static void write_process(struct rec *r, uint32_t pid)
{
	write_process_from(r, pid, pid);
}

static int map_seen(struct rec_proc *p, uint64_t start)
{
	for (unsigned i = 0; i < p->nmaps; i++)
		if (p->maps[i] == start)
			return 1;
	if (ilog_grow((void **)&p->maps, &p->capmaps, p->nmaps, sizeof(*p->maps), 32))
		return 1;
	p->maps[p->nmaps++] = start;
	return 0;
}

/* Files of a process in our own mount namespace are opened by their
 * path; others (containers) through /proc/PID/root. */
static int same_root(uint32_t pid)
{
	static struct stat self;
	static int have;
	char path[64];
	struct stat st;
	if (!have)
		have = stat("/", &self) ? -1 : 1;
	snprintf(path, sizeof(path), "/proc/%u/root/", pid);
	return have > 0 && !stat(path, &st) && st.st_dev == self.st_dev && st.st_ino == self.st_ino;
}

void rec_scan_pid(struct rec *r, uint32_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	FILE *f = fopen(path, "re");
	if (!f) {
		/* a child that exited before its scan: described by its parent */
		struct rec_proc *c = rec_proc_get(r, pid, 0);
		if (c && c->fork_parent && !c->exec_gen && c->written_gen != c->exec_gen + 1)
			write_process_from(r, pid, c->fork_parent);
		return;
	}
	int target = rec_is_target(r, pid), cuda = 0;
	if (!target && r->o.mode == REC_MODE_UID) {
		uint32_t uid;
		if (rec_proc_uid(pid, &uid) || uid != r->o.uid) {
			fclose(f);
			return;
		}
	}
	struct rec_proc *p = target ? rec_proc_get(r, pid, 1) : NULL;
	int own_root = same_root(pid);
	if (p && p->written_gen != p->exec_gen + 1)
		write_process(r, pid);
	char line[4608];
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off, ino;
		char perms[8], dev[16];
		int pos = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %15s %llu %n", &start, &end, perms, &off, dev,
			   &ino, &pos) < 6 || !pos)
			continue;
		char *file = line + pos;
		file[strcspn(file, "\n")] = 0;
		if (file[0] != '/' || strstr(file, " (deleted)"))
			continue;
		char open_path[4200];
		if (own_root)
			snprintf(open_path, sizeof(open_path), "%s", file);
		else
			snprintf(open_path, sizeof(open_path), "/proc/%u/root%s", pid, file);
		if (perms[2] == 'x') {
			if (rec_lib_class(file) >= 0) {
				cuda = 1;
				if (r->o.ncuda_libs == 0 && rec_attach_lib(r, file, open_path))
					ilog_warnf("%s", r->err);
			} else if (rec_is_interp(file) && !r->o.ncuda_libs) {
				/* --cuda-lib: no discovery, so no need to watch dlopen */
				rec_attach_dlhook(r, file, open_path);
			}
		}
		if (!p || perms[2] != 'x' || map_seen(p, start))
			continue;
		uint8_t id[32];
		struct stat st;
		size_t idlen = 0;
		if (!stat(open_path, &st))
			idlen = build_id_cached(open_path, st.st_dev, st.st_ino, id);
		struct ilog_record rec = { .kind = ILOG_K_MAPPING };
		rec.u.mapping = (struct ilog_mapping){
			.ts_ns = rec_now(CLOCK_MONOTONIC), .pid = pid, .start = start, .end = end,
			.offset = off,
			.prot = (uint32_t)((perms[0] == 'r' ? PROT_READ : 0) |
					   (perms[1] == 'w' ? PROT_WRITE : 0) | PROT_EXEC),
			.path = ilog_str_c(file), .build_id = { id, (uint32_t)idlen },
		};
		ilog_writer_put(r->w, &rec);
		rec_py_mapping(r, pid, file, open_path, start, off);
	}
	fclose(f);
	/* a CUDA process of the right user becomes a target (not in --pid mode) */
	if (!target && cuda && r->o.mode != REC_MODE_PIDS && rec_cgroup_has(r->o.cgroup_id, pid)) {
		if (!rec_add_target(r, pid))
			rec_scan_pid(r, pid); /* now write its records */
	}
}

void rec_scan_all(struct rec *r)
{
	DIR *d = opendir("/proc");
	if (!d)
		return;
	struct dirent *e;
	uint32_t self = (uint32_t)getpid();
	while ((e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		uint32_t pid = (uint32_t)strtoul(e->d_name, NULL, 10);
		if (pid == self)
			continue;
		if (r->o.mode == REC_MODE_PIDS && !rec_is_target(r, pid))
			continue;
		rec_scan_pid(r, pid);
	}
	closedir(d);
}

/*
 * CUDA libraries in the usual places are attached before any process
 * maps them, so a program started later is traced from its first call:
 * the CUDA toolkit's and driver's folders, the wheels pip installs
 * system-wide (site-packages/nvidia/NAME/lib), then the linker cache and
 * the files of earlier runs (hold.c).  Copies elsewhere (venvs, bundles)
 * are found when a process maps them.
 */
void rec_attach_known(struct rec *r)
{
#define REC_LIBS "lib{cudart,cuda,nccl}.so.*"
	static const char *const pats[] = {
		"/usr/local/cuda*/lib64/" REC_LIBS, "/usr/local/cuda*/targets/*/lib/" REC_LIBS,
		"/usr/lib/x86_64-linux-gnu/" REC_LIBS, "/usr/lib64/" REC_LIBS,
		"/usr/local/nvidia/lib64/" REC_LIBS, "/usr/lib/wsl/lib/" REC_LIBS,
		"/usr/{local/,}lib/python3*/{site,dist}-packages/nvidia/*/lib/" REC_LIBS,
		"/opt/conda/lib/" REC_LIBS,
		"/lib64/ld-linux-x86-64.so.2",
	};
#undef REC_LIBS
	for (size_t i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
		glob_t g;
		if (glob(pats[i], GLOB_BRACE, NULL, &g))
			continue;
		for (size_t k = 0; k < g.gl_pathc; k++) {
			char real[4096];
			if (!realpath(g.gl_pathv[k], real))
				continue;
			if (rec_is_interp(real))
				rec_attach_dlhook(r, real, real);
			else if (rec_attach_lib(r, real, real))
				ilog_warnf("%s", r->err);
		}
		globfree(&g);
	}
	rec_attach_cached(r);
}

void rec_queue_scan(struct rec *r, uint32_t pid)
{
	for (unsigned i = 0; i < r->npending; i++)
		if (r->pending[i] == pid)
			return;
	if (r->npending < sizeof(r->pending) / sizeof(r->pending[0]))
		r->pending[r->npending++] = pid;
}

void rec_scan_pending(struct rec *r)
{
	unsigned n = r->npending;
	r->npending = 0;
	for (unsigned i = 0; i < n; i++)
		rec_scan_pid(r, r->pending[i]);
}
