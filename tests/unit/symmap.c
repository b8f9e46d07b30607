// SPDX-License-Identifier: MIT
/*
 * lib/codec/symbolize_map.c: symbol and pycode records kept while reading, and
 * the frames they add to stack and pystack JSON.
 */
#include "test.h"
#include "ingero/symbolize_map.h"
#include "pyline_data.h"

static struct ilog_record sym(uint32_t node, uint32_t pid, uint64_t ip, const char *module,
			      uint64_t moff, const char *fn, uint64_t off, const char *file,
			      uint32_t line, uint32_t depth)
{
	struct ilog_record r = { .kind = ILOG_K_SYMBOL, .node = node };
	r.u.symbol = (struct ilog_symbol){
		.pid = pid, .ip = ip, .module = ilog_str_c(module), .module_off = moff,
		.function = ilog_str_c(fn), .sym_off = off, .file = ilog_str_c(file), .line = line,
		.inline_depth = depth,
	};
	return r;
}

static int note(struct ilog_symmap *m, struct ilog_record r)
{
	return ilog_symmap_note(m, &r);
}

/* JSON of a record with the map's frames, as ingero-export writes it. */
static char *render(struct ilog_symmap *m, const struct ilog_record *r)
{
	static struct ilog_buf b;
	b.len = 0;
	if (ilog_json_record(&b, r, NULL) || ilog_symmap_json(m, &b, r) || ilog_buf_put(&b, "", 1))
		return NULL;
	return b.p;
}

static const char *after(const char *json, const char *key)
{
	const char *p = json ? strstr(json, key) : NULL;
	return p ? p : "(missing)";
}

static void test_stacks(void)
{
	struct ilog_symmap *m = ilog_symmap_new();
	struct ilog_record st = { .kind = ILOG_K_STACK };
	st.u.stack = (struct ingero_stack){ .id = 7, .pid = 42, .nr = 2, .ips = { 0x1000, 0x2000 } };
	char *j = render(m, &st);
	ok(j && !strstr(j, "\"frames\""), "a stack read before its symbols renders as before");

	ok(!note(m, sym(0, 42, 0x1000, "/lib/a.so", 0x100, "leaf", 0, "/s/a.c", 10, 0)) &&
	   !note(m, sym(0, 42, 0x1000, "/lib/a.so", 0x100, "outer(int)", 0x20, "/s/a.c", 20, 1)),
	   "symbol records noted");
	unsigned n;
	const struct ilog_frame *f = ilog_symmap_frames(m, 0, 42, 0x1000, &n);
	ok(f && n == 2 && !strcmp(f[0].function, "leaf") && f[1].line == 20 &&
	   f[1].inline_depth == 1, "frames of an ip, innermost first");
	ok(!ilog_symmap_frames(m, 1, 42, 0x1000, &n) && n == 0 &&
	   !ilog_symmap_frames(m, 0, 43, 0x1000, &n), "other nodes and pids do not see them");
	is_str(after(render(m, &st), ",\"frames\""),
	       ",\"frames\":[{\"ip\":\"0x1000\",\"module\":\"/lib/a.so\",\"module_off\":\"0x100\","
	       "\"symbol\":\"leaf\",\"offset\":null,\"file\":\"/s/a.c\",\"line\":10,\"inlined\":true},"
	       "{\"ip\":\"0x1000\",\"module\":\"/lib/a.so\",\"module_off\":\"0x100\","
	       "\"symbol\":\"outer(int)\",\"offset\":32,\"file\":\"/s/a.c\",\"line\":20,\"inlined\":false},"
	       "{\"ip\":\"0x2000\",\"module\":null,\"module_off\":null,\"symbol\":null,\"offset\":null,"
	       "\"file\":null,\"line\":null,\"inlined\":false}]}",
	       "stack JSON: inlined frame, physical frame with offset, unknown ip as nulls");

	/* records of two ips interleaved: each ip's frames stay its own */
	note(m, sym(0, 42, 0x2000, "/lib/b.so", 0x5, "b0", 1, "", 0, 0));
	note(m, sym(0, 42, 0x3000, "/lib/b.so", 0x6, "c0", 2, "", 0, 0));
	note(m, sym(0, 42, 0x2000, "/lib/b.so", 0x5, "b1", 3, "", 0, 1));
	f = ilog_symmap_frames(m, 0, 42, 0x2000, &n);
	ok(f && n == 2 && !strcmp(f[0].function, "b0") && !strcmp(f[1].function, "b1"),
	   "interleaved records keep each ip's frames together");
	f = ilog_symmap_frames(m, 0, 42, 0x3000, &n);
	ok(f && n == 1 && !strcmp(f[0].function, "c0"), "and the other ip's");

	/* symbolized again: the later records replace the earlier */
	note(m, sym(0, 42, 0x1000, "/lib/a.so", 0x100, "renamed", 4, "", 0, 0));
	f = ilog_symmap_frames(m, 0, 42, 0x1000, &n);
	ok(f && n == 1 && !strcmp(f[0].function, "renamed"), "a new depth-0 record replaces an ip's frames");

	/* names are escaped; invalid UTF-8 becomes U+FFFD */
	note(m, sym(0, 42, 0x4000, "/lib/q\"uote.so", 1, "op\\er\xff", 0, "", 0, 0));
	struct ilog_record one = { .kind = ILOG_K_STACK };
	one.u.stack = (struct ingero_stack){ .id = 8, .pid = 42, .nr = 1, .ips = { 0x4000 } };
	has_str(render(m, &one), "\"module\":\"/lib/q\\\"uote.so\"", "module path escaped");
	has_str(render(m, &one), "\"symbol\":\"op\\\\er\\ufffd\"", "function escaped");
	ilog_symmap_free(m);
}

static const struct py_case *find_case(unsigned version, const char *name)
{
	for (unsigned i = 0; i < sizeof(py_cases) / sizeof(py_cases[0]); i++)
		if (py_cases[i].version == version && !strcmp(py_cases[i].name, name))
			return &py_cases[i];
	return NULL;
}

static struct ilog_record pycode(uint32_t pid, uint64_t code, const struct py_case *c,
				 const char *file, const char *func)
{
	struct ilog_record r = { .kind = ILOG_K_PYCODE };
	r.u.pycode = (struct ilog_pycode){
		.pid = pid, .code = code, .py_version = c->version, .filename = ilog_str_c(file),
		.qualname = ilog_str_c(func), .firstlineno = c->first,
		.linetable = { c->table, c->ntable },
	};
	return r;
}

static void test_python(void)
{
	const struct py_case *step = find_case(0x030b, "step");
	const struct py_case *wide = find_case(0x030b, "wide");
	if (!step || !wide) {
		ok(0, "pyline_data.h has 3.11 'step' and 'wide'");
		return;
	}
	struct ilog_symmap *m = ilog_symmap_new();
	struct ilog_record ps = { .kind = ILOG_K_PYSTACK };
	ps.u.pystack = (struct ingero_pystack){ .id = 3, .pid = 9, .nr = 2 };
	/* an instruction of step() the interpreter puts on a line of its own */
	unsigned k = step->nlines / 2;
	while (k < step->nlines && step->lines[k].line <= 0)
		k++;
	uint32_t lasti = step->lines[k].start / 2;
	ps.u.pystack.frames[0] = (struct ingero_pyframe){ .code = 0xc0de, .lasti = lasti };
	ps.u.pystack.frames[1] = (struct ingero_pyframe){ .code = 0xdead, .lasti = 1 };
	ok(!strstr(render(m, &ps), "py_frames"), "a pystack before its code objects renders as before");
	note(m, pycode(9, 0xc0de, step, "train_loop.py", "step"));
	struct ilog_pyloc loc;
	ok(ilog_symmap_pyframe(m, 0, 9, 0xc0de, lasti, &loc) && loc.line == step->lines[k].line &&
	   !strcmp(loc.func, "step"), "a frame resolves to the line co_lines() gives (%d)",
	   step->lines[k].line);
	char want[256];
	snprintf(want, sizeof(want),
		 ",\"py_frames\":[{\"py_file\":\"train_loop.py\",\"py_func\":\"step\",\"py_line\":%d},"
		 "{\"py_file\":null,\"py_func\":null,\"py_line\":null}]}",
		 step->lines[k].line);
	is_str(after(render(m, &ps), ",\"py_frames\""), want,
	       "pystack JSON: a known frame, and an unknown code object as nulls");
	/* the code object freed, another one at its address */
	note(m, pycode(9, 0xc0de, wide, "train_loop.py", "wide"));
	ok(ilog_symmap_pyframe(m, 0, 9, 0xc0de, 0, &loc) && !strcmp(loc.func, "wide") &&
	   loc.line == wide->lines[0].line, "a later pycode at the same address replaces the earlier");
	ok(ilog_symmap_pyframe(m, 0, 9, 0xc0de, 60000, &loc) && loc.line == 0,
	   "an offset past the code: known function, no line");
	ilog_symmap_free(m);
}

int main(void)
{
	test_stacks();
	test_python();
	return done_testing();
}
