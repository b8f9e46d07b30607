// SPDX-License-Identifier: MIT
/*
 * --unwind: native stacks through code without frame pointers.
 *
 * The kernel's frame-pointer walk stops at the first function built
 * without them -- libffi under ctypes, the CPython eval loop, most of
 * PyTorch and cuBLAS -- so a Python process's native stack usually ends
 * right above the CUDA call, and the eval-loop frames Python frames belong
 * to (SPEC §5.7 `entry`) are never seen.  For each new call path the BPF
 * side sends the registers and the top of the user stack at
 * the call's return (struct rec_ustack, whose comment says what "new"
 * means); here libdw unwinds that copy with
 * the call-frame information (.eh_frame / .debug_frame) of the process's
 * mapped files, as `perf record --call-graph dwarf` does for every sample.
 * The result is written as an ordinary stack record (same content hash as
 * the kernel's, so an identical stack keeps its id), and the events of the
 * path get its id: for calls unwound this way the kernel makes no
 * frame-pointer walk at all (it would end early and cost ~1 us a call).
 * Nothing changes in the log format: a stack is a stack.
 *
 * Costs are paid per new call path, not per call: one map lookup per
 * event in BPF, and here one unwind (tens of microseconds) per path plus
 * one libdw session per process, rebuilt when the process maps new code.
 */
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "ingero/hmap.h"
#include "rec.h"

/* x86-64 DWARF register numbers */
enum { DW_RBX = 3, DW_RBP = 6, DW_RSP = 7, DW_R12 = 12 };

#define UW_MAX_PROCS 64

struct uw_proc {
	uint32_t pid;
	uint64_t start_ticks;        /* pid reuse */
	unsigned nmaps, exec_gen;    /* what the session was built from */
	uint64_t used;               /* for eviction */
	Dwfl *dwfl;
};

static struct {
	struct uw_proc procs[UW_MAX_PROCS];
	uint64_t clock;
	const struct rec_ustack *cur; /* the copy being unwound */
	uint64_t ips[INGERO_MAX_STACK];
	uint32_t nr;
	struct ilog_hmap pairs;     /* copy key (record.h) -> unwound stack id */
	struct ilog_hmap written;   /* unwound stack ids written */
	uint64_t n_unwound, n_better, ns;
} uw;

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)arg;
	if (*thread_argp)
		return 0;
	*thread_argp = (void *)1;
	return (pid_t)uw.cur->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)arg;
	*thread_argp = (void *)1;
	return uw.cur && (uint32_t)tid == uw.cur->tid;
}

/* Only the copy: the live stack has moved on since. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	(void)dwfl;
	(void)arg;
	const struct rec_ustack *u = uw.cur;
	uint64_t sp = u->regs[REC_UREG_SP];
	if (addr < sp || addr - sp > (uint64_t)u->size - 8 || u->size < 8)
		return false;
	memcpy(result, u->data + (addr - sp), 8);
	/* a return address an outer traced call's uretprobe replaced */
	for (uint32_t i = 0; i < u->npend && i < REC_USTACK_PENDING; i++)
		if (u->pend_slot[i] == addr)
			*result = u->pend_ret[i];
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	(void)thread_arg;
	const __u64 *g = uw.cur->regs;
	Dwarf_Word bx = g[REC_UREG_BX], bpsp[2] = { g[REC_UREG_BP], g[REC_UREG_SP] };
	Dwarf_Word hi[4] = { g[REC_UREG_R12], g[REC_UREG_R13], g[REC_UREG_R14], g[REC_UREG_R15] };
	if (!dwfl_thread_state_registers(thread, DW_RBX, 1, &bx) ||
	    !dwfl_thread_state_registers(thread, DW_RBP, 2, bpsp) ||
	    !dwfl_thread_state_registers(thread, DW_R12, 4, hi))
		return false;
	dwfl_thread_state_register_pc(thread, g[REC_UREG_IP]);
	return true;
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static char *debuginfo_path;
static uint32_t elf_pid; /* the process whose session is built or used */

/* A mapped file as the process sees it: through /proc/PID/root, so a
 * process in a container (another mount namespace) gets its own files;
 * anything else (the vDSO, deleted files) as libdw finds it. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	if (name && name[0] == '/' && elf_pid) {
		char path[PATH_MAX];
		int n = snprintf(path, sizeof(path), "/proc/%u/root%s", elf_pid, name);
		int fd = n > 0 && (size_t)n < sizeof(path) ? open(path, O_RDONLY | O_CLOEXEC) : -1;
		if (fd >= 0) {
			*file_name = strdup(name);
			*elfp = NULL;
			return fd;
		}
	}
	return dwfl_linux_proc_find_elf(mod, userdata, name, base, file_name, elfp);
}

static const Dwfl_Callbacks proc_cbs = {
	.find_elf = find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

static void proc_drop(struct uw_proc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	memset(p, 0, sizeof(*p));
}

/* The libdw session of a process, (re)built when it mapped new code. */
static Dwfl *session(struct rec *r, uint32_t pid)
{
	struct rec_proc *rp = rec_proc_get(r, pid, 0);
	unsigned nmaps = rp ? rp->nmaps : 0, gen = rp ? rp->exec_gen : 0;
	uint64_t ticks = rp ? rp->start_ticks : 0;
	struct uw_proc *p = NULL, *lru = &uw.procs[0];
	for (unsigned i = 0; i < UW_MAX_PROCS; i++) {
		struct uw_proc *c = &uw.procs[i];
		if (c->pid == pid) {
			p = c;
			break;
		}
		if (c->used < lru->used)
			lru = c;
	}
	if (p && (p->nmaps != nmaps || p->exec_gen != gen || p->start_ticks != ticks))
		proc_drop(p);
	if (!p || !p->dwfl) {
		p = p ? p : lru;
		proc_drop(p);
		Dwfl *d = dwfl_begin(&proc_cbs);
		if (!d)
			return NULL;
		if (dwfl_linux_proc_report(d, (pid_t)pid) != 0 || dwfl_report_end(d, NULL, NULL) ||
		    !dwfl_attach_state(d, NULL, (pid_t)pid, &thread_cbs, NULL)) {
			dwfl_end(d);
			return NULL;
		}
		*p = (struct uw_proc){ .pid = pid, .start_ticks = ticks, .nmaps = nmaps,
				       .exec_gen = gen, .dwfl = d };
	}
	p->used = ++uw.clock;
	return p->dwfl;
}

static int on_frame(Dwfl_Frame *state, void *arg)
{
	(void)arg;
	Dwarf_Addr pc;
	if (!dwfl_frame_pc(state, &pc, NULL) || uw.nr >= INGERO_MAX_STACK)
		return DWARF_CB_ABORT;
	uw.ips[uw.nr++] = pc;
	return DWARF_CB_OK;
}

/* The content hash the kernel side uses for stack ids (record.bpf.c). */
static uint64_t stack_hash(uint32_t pid, const uint64_t *ips, uint32_t nr)
{
	uint64_t h = ILOG_FNV64_INIT ^ pid;
	for (uint32_t i = 0; i < nr; i++) {
		h = ilog_fnv1a_word(h, ips[i]);
		h ^= h >> 29;
	}
	return h ? h : 1;
}

void rec_unwind_copy(struct rec *r, const void *msg, size_t size)
{
	const struct rec_ustack *u = msg;
	if (size < REC_USTACK_HDR_LEN || u->size > size - REC_USTACK_HDR_LEN)
		return;
	if (!u->size || u->size > REC_USTACK_MAX)
		return;
	uint64_t t0 = rec_now(CLOCK_MONOTONIC);
	elf_pid = u->pid;
	Dwfl *d = session(r, u->pid);
	uw.cur = u;
	uw.ips[0] = u->entry_ip;
	uw.nr = 1;
	int rc = d ? dwfl_getthread_frames(d, (pid_t)u->tid, on_frame, NULL) : -1;
	uw.cur = NULL;
	(void)rc; /* the frames up to a failure are still good */
	uw.n_unwound++;
	uw.ns += rec_now(CLOCK_MONOTONIC) - t0;
	if (uw.nr < 2) {
		/* nothing unwound (the process is gone, no CFI for the caller):
		 * the caller at least, as the registers say */
		uw.ips[uw.nr++] = u->regs[REC_UREG_IP];
	} else {
		uw.n_better++;
	}
	uint64_t id = stack_hash(u->pid, uw.ips, uw.nr);
	uint64_t *w = ilog_hmap_put(&uw.written, id, 0);
	if (w && !*w) {
		*w = 1;
		static struct ilog_record rec = { .kind = ILOG_K_STACK };
		rec.u.stack.id = id;
		rec.u.stack.pid = u->pid;
		rec.u.stack.nr = uw.nr;
		memcpy(rec.u.stack.ips, uw.ips, uw.nr * 8ull);
		ilog_writer_put(r->w, &rec);
		r->n_stack++;
	}
	uint64_t *pv = u->key ? ilog_hmap_put(&uw.pairs, u->key, 0) : NULL;
	if (pv)
		*pv = id;
}

uint64_t rec_unwind_stack_id(const struct rec_cuda *m)
{
	if (!m->ukey || !uw.pairs.n)
		return m->ev.stack_id;
	uint64_t *v = ilog_hmap_get(&uw.pairs, m->ukey, 0);
	return v ? *v : m->ev.stack_id;
}

void rec_unwind_stats(uint64_t *unwound, uint64_t *better, uint64_t *ns)
{
	*unwound = uw.n_unwound;
	*better = uw.n_better;
	*ns = uw.ns;
}

void rec_unwind_close(void)
{
	for (unsigned i = 0; i < UW_MAX_PROCS; i++)
		proc_drop(&uw.procs[i]);
	ilog_hmap_free(&uw.pairs);
	ilog_hmap_free(&uw.written);
}
