// SPDX-License-Identifier: MIT
/*
 * No call missed after a late dlopen, system-wide.  A uprobe attached to a
 * file for every process is put in by the kernel whenever any process maps
 * that file, so what was attached ahead of time cannot miss a first call.
 * Ahead of time means every CUDA library file this host is known to have:
 * the dynamic linker's cache (/etc/ld.so.cache), the usual folders
 * (rec_attach_known) and every file the recorder attached on an earlier
 * run (a small list kept in /var/lib/ingero).  What is left is the first
 * mapping of a file never seen: the kernel stops that process as its
 * mmap() returns (bpf/record.bpf.c, hold_new_lib), the recorder attaches
 * and resumes it.  A watchdog, a process of its own, resumes any process
 * held longer than --hold-max and every held process when the recorder
 * dies, even by SIGKILL; the loss record "holds" counts the processes
 * resumed before their library was attached.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "ingero/cli.h"
#include "rec.h"
#include "bpf/record.skel.h"

/* ---- files attached before: the persisted list ---- */

#define LIBLIST_MAX 512

static const char *liblist_path(void)
{
	const char *p = getenv("INGERO_RECORD_LIBS");
	return p && *p ? p : "/var/lib/ingero/cuda-libs";
}

/* Attach each listed file that still exists and rewrite the list without
 * the others (newest LIBLIST_MAX kept). */
static void attach_listed(struct rec *r)
{
	const char *path = liblist_path();
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	char **keep = calloc(LIBLIST_MAX, sizeof(*keep));
	unsigned n = 0, total = 0;
	char line[4096];
	while (keep && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		struct stat st;
		if (line[0] != '/' || rec_lib_class(line) < 0 || stat(line, &st) || !S_ISREG(st.st_mode))
			continue;
		total++;
		int dup = 0;
		for (unsigned i = 0; i < n && !dup; i++)
			dup = !strcmp(keep[i], line);
		if (dup)
			continue;
		if (n == LIBLIST_MAX) {
			free(keep[0]);
			memmove(keep, keep + 1, (LIBLIST_MAX - 1) * sizeof(*keep));
			n--;
		}
		keep[n++] = strdup(line);
	}
	fclose(f);
	for (unsigned i = 0; i < n; i++)
		if (keep[i] && rec_attach_lib(r, keep[i], keep[i]) && ILOG_VERBOSE(1))
			ilog_warnf("%s", r->err);
	if (keep && total != n) {
		char tmp[4200];
		snprintf(tmp, sizeof(tmp), "%s.tmp", path);
		FILE *o = fopen(tmp, "we");
		if (o) {
			for (unsigned i = 0; i < n; i++)
				if (keep[i])
					fprintf(o, "%s\n", keep[i]);
			if (fclose(o) || rename(tmp, path))
				unlink(tmp);
		}
	}
	for (unsigned i = 0; keep && i < n; i++)
		free(keep[i]);
	free(keep);
}

static void list_add(const char *file)
{
	const char *path = liblist_path();
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		mkdir(dir, 0755); /* /var/lib/ingero: its parent exists */
	}
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	char buf[4200];
	int len = snprintf(buf, sizeof(buf), "%s\n", file);
	if (len > 0 && (size_t)len < sizeof(buf) && write(fd, buf, (size_t)len) != len &&
	    ILOG_VERBOSE(1))
		ilog_warnf("%s: %s", path, strerror(errno));
	close(fd);
}

/* ---- the dynamic linker's cache ---- */

/* glibc's format "glibc-ld.so.cache1.1" (alone, or after the old one):
 * 48-byte header, then entries {i32 flags; u32 key, value; u32; u64 hwcap}
 * whose string offsets count from the header's start. */
static void attach_ldcache(struct rec *r)
{
	int fd = open("/etc/ld.so.cache", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	struct stat st;
	if (fstat(fd, &st) || st.st_size < 48 || st.st_size > (1 << 28)) {
		close(fd);
		return;
	}
	size_t size = (size_t)st.st_size;
	const char *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return;
	static const char magic[] = "glibc-ld.so.cache1.1";
	const char *h = memmem(m, size, magic, sizeof(magic) - 1);
	if (h && (size_t)(h - m) + 48 <= size) {
		size_t avail = size - (size_t)(h - m);
		uint32_t nlibs;
		memcpy(&nlibs, h + 20, 4);
		for (uint32_t i = 0; i < nlibs && 48 + (size_t)(i + 1) * 24 <= avail; i++) {
			int32_t flags;
			uint32_t value;
			memcpy(&flags, h + 48 + (size_t)i * 24, 4);
			memcpy(&value, h + 48 + (size_t)i * 24 + 8, 4);
#if defined(__x86_64__)
			if (flags != 0x0303) /* ELF libc6, x86-64 */
				continue;
#endif
			if (value >= avail || !memchr(h + value, 0, avail - value))
				continue;
			const char *lib = h + value;
			char real[4096];
			if (lib[0] != '/' || rec_lib_class(lib) < 0 || !realpath(lib, real))
				continue;
			if (rec_attach_lib(r, real, real))
				ilog_warnf("%s", r->err);
		}
	}
	munmap((void *)m, size);
}

void rec_attach_cached(struct rec *r)
{
	attach_ldcache(r);
	attach_listed(r);
}

/* ---- the attached files, for the kernel and the list ---- */

void rec_hold_file(struct rec *r, const char *path, const char *open_path, uint64_t dev,
		   uint64_t ino)
{
	struct rec_file_key k = { ((uint64_t)major(dev) << 20) | minor(dev), ino };
	uint8_t one = 1;
	if (r->hold)
		bpf_map__update_elem(r->skel->maps.lib_files, &k, sizeof(k), &one, 1, BPF_ANY);
	/* files in our own mount namespace only: a container's path means
	 * nothing here */
	if (!strcmp(path, open_path))
		list_add(path);
}

/* ---- the watchdog ---- */

static uint64_t mono_ns(void)
{
	return rec_now(CLOCK_MONOTONIC);
}

static void close_all_but(const int *keep, unsigned nkeep)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return;
	int fds[1024];
	unsigned n = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < 1024) {
		int fd = atoi(e->d_name);
		if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd <= 2 || fd == dirfd(d))
			continue;
		int k = 0;
		for (unsigned i = 0; i < nkeep; i++)
			k |= keep[i] == fd;
		if (!k)
			fds[n++] = fd;
	}
	closedir(d);
	for (unsigned i = 0; i < n; i++)
		close(fds[i]);
}

/* Resume every held process (all) or those held longer than max_ns:
 * whoever deletes the entry resumes the process, so it is resumed once.
 * The clock is read after the entry: a hold the kernel stamped after an
 * earlier reading (the sweep preempted between the two, on a loaded
 * host) has no negative age to wrap into an "expired" one, its process
 * resumed before its library is attached (the likely cause of
 * dlopen-exact's one lost hold of 28 beside two CPU hogs, in a 6 s
 * recording under a 30 s bound). */
static void sweep(int holds_fd, int stats_fd, uint64_t max_ns, int all)
{
	uint32_t key, next;
	uint64_t expired = 0;
	int more = bpf_map_get_next_key(holds_fd, NULL, &next) == 0;
	while (more) {
		key = next;
		more = bpf_map_get_next_key(holds_fd, &key, &next) == 0;
		struct rec_hold_ent h;
		if (bpf_map_lookup_elem(holds_fd, &key, &h))
			continue;
		uint64_t now = mono_ns();
		if (!all && (h.ts_ns >= now || now - h.ts_ns < max_ns))
			continue;
		if (bpf_map_delete_elem(holds_fd, &key))
			continue; /* the recorder got there first */
		kill((pid_t)key, SIGCONT);
		expired++;
	}
	if (expired) {
		uint32_t i = REC_HOLD_EXPIRED;
		uint64_t v = 0;
		bpf_map_lookup_elem(stats_fd, &i, &v);
		v += expired;
		bpf_map_update_elem(stats_fd, &i, &v, BPF_ANY);
	}
}

/*
 * Where the recorder is in its life: REC_ALIVE, REC_EXITING (its /proc
 * stat's flags, the 9th field, carry PF_EXITING, 0x4, from the first step
 * of its exit) or REC_DEAD (a zombie, or reaped: its files, its BPF links
 * among them, are released).  The end of the pipe comes in between: a
 * killed recorder's files are released one by one, its BPF links may take
 * seconds (uprobes taken out of every process mapping the library, on a
 * loaded host 18 s was seen).  stat_fd: /proc/PID/stat, read anew each time.
 */
enum { REC_ALIVE, REC_EXITING, REC_DEAD };
static int recorder_state(int stat_fd)
{
	char b[1024];
	ssize_t n = pread(stat_fd, b, sizeof(b) - 1, 0);
	if (n <= 0)
		return REC_DEAD; /* reaped */
	b[n] = 0;
	const char *q = strrchr(b, ')'); /* the name may hold spaces and parentheses */
	unsigned long flags = 0;
	char state = 0;
	if (!q || sscanf(q + 1, " %c %*d %*d %*d %*d %*d %lu", &state, &flags) != 2)
		return REC_ALIVE;
	return state == 'Z' || state == 'X' ? REC_DEAD : flags & 0x4 ? REC_EXITING : REC_ALIVE;
}

static void __attribute__((noreturn)) watchdog(int rd, int holds_fd, int stats_fd,
					      uint64_t max_ns, pid_t recorder)
{
	int keep[] = { rd, holds_fd, stats_fd };
	close_all_but(keep, 3);
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)recorder);
	int stat_fd = open(path, O_RDONLY | O_CLOEXEC);
	setsid(); /* a signal to the recorder's process group does not reach it */
	prctl(PR_SET_NAME, INGERO_WATCHDOG_COMM);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	/* look 4 times per bound, at most every 100 ms, at least every 5 ms */
	uint64_t step = max_ns / 4;
	int ms = step > 100000000ull ? 100 : step < 5000000ull ? 5 : (int)(step / 1000000);
	for (;;) {
		struct pollfd p = { rd, POLLIN, 0 };
		int n = poll(&p, 1, ms);
		if (n < 0 && errno != EINTR)
			n = 1;
		int st = stat_fd >= 0 ? recorder_state(stat_fd) : REC_ALIVE;
		/* end of file (or anything) on the pipe, or the recorder's exit
		 * begun: it is gone */
		if (n <= 0 && st == REC_ALIVE) {
			sweep(holds_fd, stats_fd, max_ns, 0);
			continue;
		}
		/* stop nothing more, then resume every held process */
		uint32_t off = REC_HOLD_OFF;
		uint64_t one = 1;
		bpf_map_update_elem(stats_fd, &off, &one, BPF_ANY);
		sweep(holds_fd, stats_fd, max_ns, 1);
		/* alive, it closed the pipe itself (rec_hold_close): its probes
		 * are out and it waits for this process */
		if (st == REC_ALIVE)
			_exit(0);
		/* dying, its probes stay in until its files are released: a
		 * program that passed hold_off() before the flag was set may
		 * still stop a process (a command resumed above went on to its
		 * next library load and was stopped again, by a killed
		 * recorder's probes, beside two CPU hogs): resume until it is
		 * dead, then once more */
		while (recorder_state(stat_fd) != REC_DEAD) {
			poll(NULL, 0, 5);
			sweep(holds_fd, stats_fd, max_ns, 1);
		}
		poll(NULL, 0, 20);
		sweep(holds_fd, stats_fd, max_ns, 1);
		_exit(0);
	}
}

int rec_mmap_lock_arg(void)
{
	if (getenv("INGERO_RECORD_HOLD_TP") || getenv("INGERO_RECORD_HOLD_RAWTP"))
		return 0;
	struct btf *b = btf__load_vmlinux_btf();
	if (!b)
		return 0;
	/* typedef void (*btf_trace_mmap_lock_released)(void *, struct mm_struct *,
	 * [const char *memcg_path,] bool write) */
	int arg = 0, id = btf__find_by_name_kind(b, "btf_trace_mmap_lock_released",
						 BTF_KIND_TYPEDEF);
	const struct btf_type *t = id > 0 ? btf__type_by_id(b, btf__resolve_type(b, id)) : NULL;
	if (t && btf_is_ptr(t))
		t = btf__type_by_id(b, t->type);
	if (t && btf_is_func_proto(t) && (btf_vlen(t) == 3 || btf_vlen(t) == 4)) {
		const struct btf_param *p = btf_params(t);
		int w = btf__resolve_type(b, p[btf_vlen(t) - 1].type);
		const struct btf_type *wt = w > 0 ? btf__type_by_id(b, w) : NULL;
		if (wt && btf_is_int(wt) && wt->size == 1)
			arg = btf_vlen(t) - 2; /* the first is the probe's data */
	}
	btf__free(b);
	return arg;
}

void rec_mmap_lock_load(struct record_bpf *s, int arg)
{
	bpf_program__set_autoload(s->progs.hold_mmap_lock, arg == 1);
	bpf_program__set_autoload(s->progs.hold_mmap_lock_path, arg == 2);
}

const char *rec_mmap_watch(struct record_bpf *s, int *taxed)
{
	*taxed = 0;
	if (bpf_program__autoload(s->progs.hold_mmap_lock))
		s->links.hold_mmap_lock = bpf_program__attach(s->progs.hold_mmap_lock);
	else if (bpf_program__autoload(s->progs.hold_mmap_lock_path))
		s->links.hold_mmap_lock_path = bpf_program__attach(s->progs.hold_mmap_lock_path);
	if (s->links.hold_mmap_lock || s->links.hold_mmap_lock_path)
		return "by the address space lock's tracepoint";
	*taxed = 1;
	/* INGERO_RECORD_HOLD_RAWTP: the last fallback, for its test */
	if (!getenv("INGERO_RECORD_HOLD_RAWTP"))
		s->links.hold_mmap_enter = bpf_program__attach(s->progs.hold_mmap_enter);
	if (s->links.hold_mmap_enter)
		s->links.hold_mmap_exit = bpf_program__attach(s->progs.hold_mmap_exit);
	if (s->links.hold_mmap_exit)
		return "by its system call's tracepoints";
	bpf_link__destroy(s->links.hold_mmap_enter);
	s->links.hold_mmap_enter = NULL;
	s->links.hold_new_lib = bpf_program__attach(s->progs.hold_new_lib);
	if (s->links.hold_new_lib)
		return "at every system call's exit";
	return NULL;
}

/* System-wide: watch mmap() for new CUDA library files; 0, or -1 (with a
 * warning) when the kernel takes none of its programs. */
static int watch_mmap(struct rec *r)
{
	int taxed;
	r->hold_how = rec_mmap_watch(r->skel, &taxed);
	if (!r->hold_how) {
		ilog_warnf("cannot watch mmap() for new CUDA libraries: %s; a library file never "
			   "attached before can miss its first calls",
			   strerror(errno));
		return -1;
	}
	return 0;
}

int rec_hold_start(struct rec *r)
{
	r->hold_pipe = -1;
	if (r->hold && watch_mmap(r))
		r->hold = 0;
	if (!r->watch)
		return 0;
	int p[2];
	if (pipe2(p, O_CLOEXEC)) {
		snprintf(r->err, sizeof(r->err), "watchdog pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid_t self = getpid(), w = fork();
	if (w < 0) {
		snprintf(r->err, sizeof(r->err), "watchdog: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (w == 0) {
		close(p[1]);
		watchdog(p[0], bpf_map__fd(r->skel->maps.holds), bpf_map__fd(r->skel->maps.hold_stats),
			 r->o.hold_max_ns, self);
	}
	close(p[0]);
	r->hold_pipe = p[1];
	r->watchdog = w;
	if (ILOG_VERBOSE(1) && r->hold)
		fprintf(stderr, "%s: new CUDA library files stop their process until attached "
				"(at most %llu ms; mmap() watched %s); watchdog %d\n",
			ilog_prog, (unsigned long long)(r->o.hold_max_ns / 1000000),
			r->hold_how, (int)w);
	else if (ILOG_VERBOSE(1))
		fprintf(stderr, "%s: the command's library loads stop their process until "
				"attached (at most %llu ms); watchdog %d\n",
			ilog_prog, (unsigned long long)(r->o.hold_max_ns / 1000000), (int)w);
	return 0;
}

void rec_hold_msg(struct rec *r, const struct rec_hold_msg *m)
{
	rec_queue_scan(r, m->pid);
	if (r->nlheld < sizeof(r->lheld) / sizeof(r->lheld[0]))
		r->lheld[r->nlheld++] = *m;
	/* else: the watchdog resumes it */
}

void rec_hold_resume(struct rec *r, uint32_t pid)
{
	if (!bpf_map__delete_elem(r->skel->maps.holds, &pid, sizeof(pid), 0))
		kill((pid_t)pid, SIGCONT);
}

/* After the scan of the held processes: mark their files attached (the
 * kernel's key, which a stat() may not give on every file system) and
 * resume the processes the watchdog has not. */
void rec_hold_release(struct rec *r)
{
	uint8_t one = 1;
	for (unsigned i = 0; i < r->nlheld; i++) {
		const struct rec_hold_msg *m = &r->lheld[i];
		bpf_map__update_elem(r->skel->maps.lib_files, &m->file, sizeof(m->file), &one, 1,
				     BPF_ANY);
		rec_hold_resume(r, m->pid);
	}
	r->nlheld = 0;
	for (unsigned i = 0; i < r->nheld; i++)
		rec_hold_resume(r, r->held[i]);
	r->nheld = 0;
}

void rec_hold_close(struct rec *r)
{
	if (!r->watch)
		return;
	bpf_link__destroy(r->skel->links.hold_mmap_lock);
	bpf_link__destroy(r->skel->links.hold_mmap_lock_path);
	bpf_link__destroy(r->skel->links.hold_mmap_enter);
	bpf_link__destroy(r->skel->links.hold_mmap_exit);
	bpf_link__destroy(r->skel->links.hold_new_lib);
	r->skel->links.hold_mmap_lock = r->skel->links.hold_mmap_lock_path = NULL;
	r->skel->links.hold_mmap_enter = r->skel->links.hold_mmap_exit = NULL;
	r->skel->links.hold_new_lib = NULL;
	rec_hold_release(r);
	sweep(bpf_map__fd(r->skel->maps.holds), bpf_map__fd(r->skel->maps.hold_stats), 0, 1);
	if (r->hold_pipe >= 0) {
		close(r->hold_pipe);
		r->hold_pipe = -1;
		waitpid(r->watchdog, NULL, 0);
	}
	r->hold = r->watch = 0;
}

void rec_hold_losses(struct rec *r, uint64_t ts)
{
	if (!r->hold_loaded)
		return;
	uint64_t v[REC_HOLD__COUNT] = { 0 };
	for (uint32_t i = 0; i < REC_HOLD__COUNT; i++)
		bpf_map__lookup_elem(r->skel->maps.hold_stats, &i, sizeof(i), &v[i], sizeof(v[i]), 0);
	if (!v[REC_HOLD_HELD] && !v[REC_HOLD_MISSED])
		return;
	struct ilog_record rec = { .kind = ILOG_K_LOSS };
	rec.u.loss = (struct ilog_loss){ .ts_ns = ts, .source = ILOG_STR("holds"),
					 .lost = v[REC_HOLD_EXPIRED] + v[REC_HOLD_MISSED],
					 .seen = v[REC_HOLD_HELD] + v[REC_HOLD_MISSED] };
	ilog_writer_put(r->w, &rec);
}

uint64_t rec_hold_sum(struct rec *r)
{
	uint64_t s = 0;
	for (uint32_t i = 0; r->hold_loaded && i < REC_HOLD__COUNT; i++) {
		uint64_t v = 0;
		bpf_map__lookup_elem(r->skel->maps.hold_stats, &i, sizeof(i), &v, sizeof(v), 0);
		s += v * (41 + i * 2);
	}
	return s;
}
