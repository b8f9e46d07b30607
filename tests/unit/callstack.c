// SPDX-License-Identifier: MIT
/*
 * lib/codec/symbolize_map.c ilog_symmap_callstack: Python frames put in place of
 * the eval-loop calls that ran them (SPEC §5.7 entry, and the rule for
 * logs without it); lib/analyze/callsite.c: the heaviest call path of a process's
 * op, told in one line and summed over paths that read the same.
 */
#include "test.h"
#include "ingero/callsite.h"
#include "ingero/symbolize_map.h"

#define PID 4242
#define LIBCUDART "/usr/local/cuda/lib64/libcudart.so.13"
#define LIBPY "/usr/lib/libpython3.11.so.1.0"

/* a 3.11 line table: lasti 1 is firstlineno + 1 (tests/vectors/symbolized) */
static const uint8_t table311[] = { 0x80, 0x00, 0xd8, 0x08, 0x0c };

static void note(struct ilog_symmap *m, struct ilog_callsites *cs, struct ilog_record r)
{
	if (m && ilog_symmap_note(m, &r))
		abort();
	if (cs && ilog_callsites_observe(cs, &r))
		abort();
}

static struct ilog_record sym(uint64_t ip, const char *module, const char *fn, const char *file,
			      uint32_t line, uint32_t depth)
{
	struct ilog_record r = { .kind = ILOG_K_SYMBOL };
	r.u.symbol = (struct ilog_symbol){ .pid = PID, .ip = ip, .module = ilog_str_c(module),
					   .module_off = ip & 0xffff, .function = ilog_str_c(fn),
					   .file = ilog_str_c(file), .line = line,
					   .inline_depth = depth };
	return r;
}

static struct ilog_record code(uint64_t addr, const char *file, const char *fn)
{
	struct ilog_record r = { .kind = ILOG_K_PYCODE };
	r.u.pycode = (struct ilog_pycode){ .pid = PID, .code = addr, .py_version = 0x030b,
					   .filename = ilog_str_c(file), .qualname = ilog_str_c(fn),
					   .firstlineno = 10,
					   .linetable = { table311, sizeof(table311) } };
	return r;
}

static struct ilog_record stack(uint64_t id, const uint64_t *ips, uint32_t n)
{
	struct ilog_record r = { .kind = ILOG_K_STACK };
	r.u.stack.id = id;
	r.u.stack.pid = PID;
	r.u.stack.nr = n;
	memcpy(r.u.stack.ips, ips, n * sizeof(*ips));
	return r;
}

static struct ilog_record pystack(uint64_t id, const uint64_t *codes, uint32_t n, uint64_t entry)
{
	struct ilog_record r = { .kind = ILOG_K_PYSTACK };
	r.u.pystack.id = id;
	r.u.pystack.pid = PID;
	r.u.pystack.nr = n;
	r.u.pystack.entry = entry;
	for (uint32_t i = 0; i < n; i++)
		r.u.pystack.frames[i] = (struct ingero_pyframe){ codes[i], 1, 0 };
	return r;
}

static struct ilog_record call(uint16_t op, uint64_t stack_id, uint64_t pystack_id, uint64_t ns)
{
	struct ilog_record r = { .kind = ILOG_K_CUDA };
	r.u.cuda.pid = PID;
	r.u.cuda.tid = PID;
	r.u.cuda.op = op;
	r.u.cuda.dur_ns = ns;
	r.u.cuda.stack_id = stack_id;
	r.u.cuda.pystack_id = pystack_id;
	return r;
}

/* A merged stack as "a < [py]b < c". */
static const char *told(struct ilog_symmap *m, uint64_t sid, uint64_t pid)
{
	static struct ilog_callframe f[256];
	static char s[2048];
	unsigned n = ilog_symmap_callstack(m, 0, sid, pid, f, 256);
	size_t len = 0;
	s[0] = 0;
	for (unsigned i = 0; i < n && len < sizeof(s) - 64; i++) {
		const char *sep = i ? " < " : "";
		if (f[i].py)
			len += (size_t)snprintf(s + len, sizeof(s) - len, "%s[py]%s:%d", sep,
						f[i].pyloc.func ? f[i].pyloc.func : "?", f[i].pyloc.line);
		else
			len += (size_t)snprintf(s + len, sizeof(s) - len, "%s%s%s", sep,
						*f[i].frame.function ? f[i].frame.function : "?",
						f[i].inlined ? "(inl)" : "");
	}
	return s;
}

/* native: cudaMemset < ffi_call < EVAL_A < map_next < EVAL_B (an inlined
 * helper, then the eval loop) < Py_RunMain */
enum { IP_CUDA = 0x7f0000001000, IP_FFI = 0x7f0000002000, IP_EVAL_A = 0x7f0000003000,
       IP_MAP = 0x7f0000004000, IP_EVAL_B = 0x7f0000005000, IP_MAIN = 0x7f0000006000,
       IP_TRAIN = 0x560000001000 };
static const uint64_t ips[] = { IP_CUDA, IP_FFI, IP_EVAL_A, IP_MAP, IP_EVAL_B, IP_MAIN };
static const uint64_t py3[] = { 0x7e0000000100, 0x7e0000000200, 0x7e0000000300 };

static void symbols(struct ilog_symmap *m, struct ilog_callsites *cs)
{
	note(m, cs, sym(IP_CUDA, LIBCUDART, "cudaMemset", "", 0, 0));
	note(m, cs, sym(IP_FFI, "/usr/lib/libffi.so.8", "ffi_call", "", 0, 0));
	note(m, cs, sym(IP_EVAL_A, LIBPY, "_PyEval_EvalFrameDefault", "ceval.c", 4769, 0));
	note(m, cs, sym(IP_MAP, LIBPY, "map_next", "bltinmodule.c", 1371, 0));
	note(m, cs, sym(IP_EVAL_B, LIBPY, "_Py_INCREF", "object.h", 500, 0));
	note(m, cs, sym(IP_EVAL_B, LIBPY, "_PyEval_EvalFrameDefault", "ceval.c", 4800, 1));
	note(m, cs, sym(IP_MAIN, LIBPY, "Py_RunMain", "main.c", 680, 0));
	note(m, cs, sym(IP_TRAIN, "/opt/app/train", "train_step", "src/train.c", 42, 0));
	note(m, cs, code(py3[0], "/opt/app/job.py", "via_c"));
	note(m, cs, code(py3[1], "/opt/app/job.py", "main"));
	note(m, cs, code(py3[2], "/opt/app/job.py", "<module>"));
}

int main(void)
{
	struct ilog_symmap *m = ilog_symmap_new();
	ilog_symmap_keep_stacks(m);
	symbols(m, NULL);
	note(m, NULL, stack(1, ips, 6));
	note(m, NULL, pystack(11, py3, 3, 0x5)); /* via_c entered from C; main, <module> one call */
	is_str(told(m, 1, 11),
	       "cudaMemset < ffi_call < [py]via_c:11 < map_next < [py]main:11 < [py]<module>:11 < "
	       "Py_RunMain",
	       "entry bits: each eval-loop call replaced by its own Python frames, inlined ones too");
	note(m, NULL, pystack(12, py3, 3, 0));
	is_str(told(m, 1, 12),
	       "cudaMemset < ffi_call < [py]via_c:11 < [py]main:11 < [py]<module>:11 < map_next < "
	       "_Py_INCREF(inl) < _PyEval_EvalFrameDefault < Py_RunMain",
	       "no entry bits, 3 Python frames for 2 eval-loop calls: all to the innermost");
	note(m, NULL, pystack(13, py3 + 1, 2, 0));
	is_str(told(m, 1, 13),
	       "cudaMemset < ffi_call < [py]main:11 < map_next < [py]<module>:11 < Py_RunMain",
	       "no entry bits, counts agree: one Python frame per eval-loop call");
	static const uint64_t fp[] = { IP_CUDA, IP_FFI, 0x1234 };
	note(m, NULL, stack(2, fp, 3));
	is_str(told(m, 2, 11), "cudaMemset < ffi_call < ? < [py]via_c:11 < [py]main:11 < [py]<module>:11",
	       "a stack that never reaches the eval loop: Python frames last");
	is_str(told(m, 0, 11), "[py]via_c:11 < [py]main:11 < [py]<module>:11", "no native stack");
	is_str(told(m, 1, 0),
	       "cudaMemset < ffi_call < _PyEval_EvalFrameDefault < map_next < _Py_INCREF(inl) < "
	       "_PyEval_EvalFrameDefault < Py_RunMain",
	       "no Python stack: native frames as they are");
	is_str(told(m, 99, 98), "", "unknown ids: nothing");
	ilog_symmap_free(m);

	/* call sites */
	struct ilog_callsites *cs = ilog_callsites_new(0);
	symbols(NULL, cs);
	note(NULL, cs, stack(1, ips, 6));
	note(NULL, cs, pystack(11, py3, 3, 0x5));
	static const uint64_t native[] = { IP_CUDA, IP_TRAIN, 0x9999 };
	static const uint64_t native2[] = { IP_CUDA, IP_TRAIN, 0x8888 }; /* stale rbp differs */
	note(NULL, cs, stack(3, native, 3));
	note(NULL, cs, stack(4, native2, 3));
	struct ilog_record calls[] = {
		call(ILOG_OP_cudaMemset, 1, 11, 10000), call(ILOG_OP_cudaMemset, 1, 11, 10000),
		call(ILOG_OP_cudaMemset, 1, 11, 10000), call(ILOG_OP_cudaMemset, 3, 0, 6000),
		call(ILOG_OP_cudaMemset, 4, 0, 6000),   call(ILOG_OP_cudaMemset, 4, 0, 6000),
		call(ILOG_OP_cudaMemset, 0, 0, 12000),  call(ILOG_OP_cudaMalloc, 3, 0, 100),
	};
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		ok(!ilog_callsites_add(cs, &calls[i]), "call %zu added", i);
	char site[256];
	uint64_t ns = 0, n = 0;
	ok(ilog_callsites_top(cs, 0, PID, ILOG_OP_cudaMemset, site, sizeof(site), &ns, &n),
	   "cudaMemset has a call site");
	is_str(site, "job.py:11 in via_c() < job.py:11 in main() < job.py:11 in <module>()",
	       "the heaviest path, told by its Python frames");
	is_u64(ns, 30000, "its time");
	is_u64(n, 3, "its calls");
	ok(ilog_callsites_top(cs, 0, PID, ILOG_OP_cudaMalloc, site, sizeof(site), &ns, &n),
	   "cudaMalloc has a call site");
	is_str(site, "train_step (train.c:42)",
	       "no Python frames: the first native frame outside the CUDA libraries");
	ok(!ilog_callsites_top(cs, 0, PID + 1, ILOG_OP_cudaMemset, site, sizeof(site), &ns, &n),
	   "another process: none");
	ok(ilog_callsites_top(cs, 0, PID, 0, site, sizeof(site), &ns, &n), "any op");
	is_str(site, "job.py:11 in via_c() < job.py:11 in main() < job.py:11 in <module>()",
	       "any op: the heaviest path over all ops (30 us against 12 + 0.1)");
	/* the two native paths differ only in a frame nobody can name: one site */
	struct ilog_record more[] = { call(ILOG_OP_cudaMemset, 3, 0, 10000),
				      call(ILOG_OP_cudaMemset, 4, 0, 10000) };
	for (size_t i = 0; i < 2; i++)
		ilog_callsites_add(cs, &more[i]);
	ok(ilog_callsites_top(cs, 0, PID, ILOG_OP_cudaMemset, site, sizeof(site), &ns, &n),
	   "cudaMemset again");
	is_str(site, "train_step (train.c:42)", "paths that read the same are summed (38 > 30 us)");
	is_u64(n, 5, "calls summed over both paths");
	is_u64(ns, 38000, "time summed over both paths");
	ilog_callsites_free(cs);
	return done_testing();
}
