// SPDX-License-Identifier: MIT
/*
 * Built by pylayout.sh against one CPython's own headers (-I its include
 * directory): compares every entry of the recorder's layout row for that
 * version (cmd/ingero-record/pyoffsets.h) with offsetof/sizeof computed by
 * the compiler from those headers.  Prints one line per entry, "ok" or
 * "MISMATCH", and exits 1 on any mismatch or when the table has no row.
 */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "internal/pycore_runtime.h"
#include "internal/pycore_interp.h"
#if PY_VERSION_HEX >= 0x030b0000
#include "internal/pycore_frame.h"
#else
#include "frameobject.h"
#endif
#include "pyoffsets.h"

static int bad, n;

static void check(const char *name, long table, long headers)
{
	n++;
	if (table == headers) {
		printf("ok %s %ld\n", name, table);
	} else {
		printf("MISMATCH %s: table %ld, headers %ld\n", name, table, headers);
		bad++;
	}
}
#define CHECK(field, expr) check(#field, (long)L->field, (long)(expr))

/* the bit a state bit field starts at, found by setting it in a zeroed object */
#define STATE_BIT(member, value)                                                         \
	({                                                                               \
		PyASCIIObject o;                                                         \
		unsigned w;                                                              \
		memset(&o, 0, sizeof(o));                                                \
		o.state.member = value;                                                  \
		memcpy(&w, (char *)&o + offsetof(PyASCIIObject, state), sizeof(w));      \
		(long)__builtin_ctz(w);                                                  \
	})

int main(void)
{
	const struct rec_py_layout *L = NULL;
	unsigned v = PY_VERSION_HEX >> 16;
	for (size_t i = 0; i < sizeof(rec_py_layouts) / sizeof(rec_py_layouts[0]); i++)
		if (rec_py_layouts[i].version == v)
			L = &rec_py_layouts[i];
	printf("python %s\n", PY_VERSION);
	if (!L) {
		printf("MISMATCH no row for %x\n", v);
		return 1;
	}
	CHECK(rt_interp_head, offsetof(_PyRuntimeState, interpreters.head));
	CHECK(interp_next, offsetof(PyInterpreterState, next));
#if PY_VERSION_HEX >= 0x030b0000
	CHECK(interp_threads, offsetof(PyInterpreterState, threads.head));
#else
	CHECK(interp_threads, offsetof(PyInterpreterState, tstate_head));
#endif
	CHECK(ts_next, offsetof(PyThreadState, next));
	CHECK(ts_interp, offsetof(PyThreadState, interp));
	CHECK(ts_thread_id, offsetof(PyThreadState, thread_id));
#if PY_VERSION_HEX >= 0x030d0000
	CHECK(instr, REC_PY_INSTR_PTR);
	CHECK(ts_frame, offsetof(PyThreadState, current_frame));
	CHECK(cframe_current, REC_PY_NONE);
	CHECK(fr_code, offsetof(_PyInterpreterFrame, f_executable));
	CHECK(fr_instr, offsetof(_PyInterpreterFrame, instr_ptr));
#elif PY_VERSION_HEX >= 0x030b0000
	CHECK(instr, REC_PY_PREV_INSTR);
	CHECK(ts_frame, offsetof(PyThreadState, cframe));
	CHECK(cframe_current, offsetof(_PyCFrame, current_frame));
	CHECK(fr_code, offsetof(_PyInterpreterFrame, f_code));
	CHECK(fr_instr, offsetof(_PyInterpreterFrame, prev_instr));
#else
	CHECK(instr, REC_PY_LASTI);
	CHECK(ts_frame, offsetof(PyThreadState, frame));
	CHECK(cframe_current, REC_PY_NONE);
	CHECK(fr_back, offsetof(PyFrameObject, f_back));
	CHECK(fr_code, offsetof(PyFrameObject, f_code));
	CHECK(fr_instr, offsetof(PyFrameObject, f_lasti));
	check("f_lasti is an int", (long)sizeof(((PyFrameObject *)0)->f_lasti), (long)sizeof(int));
	CHECK(fr_owner, REC_PY_NONE);
	CHECK(owner_cstack, REC_PY_NO_OWNER);
	CHECK(owner_generator, REC_PY_NO_OWNER);
	CHECK(co_code, REC_PY_NONE);
	CHECK(co_firsttraceable, REC_PY_NONE);
	CHECK(co_qualname, REC_PY_NONE);
	CHECK(fr_is_entry, REC_PY_NONE);
#endif
#if PY_VERSION_HEX >= 0x030b0000
	CHECK(fr_back, offsetof(_PyInterpreterFrame, previous));
	CHECK(fr_owner, offsetof(_PyInterpreterFrame, owner));
	check("owner is one byte", (long)sizeof(((_PyInterpreterFrame *)0)->owner), 1);
	CHECK(owner_generator, FRAME_OWNED_BY_GENERATOR);
#if PY_VERSION_HEX >= 0x030c0000
	CHECK(owner_cstack, FRAME_OWNED_BY_CSTACK);
	CHECK(fr_is_entry, REC_PY_NONE); /* entry frames are C-stack shims instead */
#else
	CHECK(owner_cstack, REC_PY_NO_OWNER);
	CHECK(fr_is_entry, offsetof(_PyInterpreterFrame, is_entry));
	check("is_entry is one byte", (long)sizeof(((_PyInterpreterFrame *)0)->is_entry), 1);
#endif
	CHECK(co_code, offsetof(PyCodeObject, co_code_adaptive));
	CHECK(co_firsttraceable, offsetof(PyCodeObject, _co_firsttraceable));
	CHECK(co_qualname, offsetof(PyCodeObject, co_qualname));
	check("code unit bytes", 2, (long)sizeof(_Py_CODEUNIT));
#endif
	CHECK(ob_type, offsetof(PyObject, ob_type));
	CHECK(tp_dealloc, offsetof(PyTypeObject, tp_dealloc));
	CHECK(co_filename, offsetof(PyCodeObject, co_filename));
	CHECK(co_name, offsetof(PyCodeObject, co_name));
	CHECK(co_firstlineno, offsetof(PyCodeObject, co_firstlineno));
	CHECK(co_linetable, offsetof(PyCodeObject, co_linetable));
	CHECK(str_length, offsetof(PyASCIIObject, length));
	CHECK(str_state, offsetof(PyASCIIObject, state));
	CHECK(ascii_size, sizeof(PyASCIIObject));
	CHECK(compact_size, sizeof(PyCompactUnicodeObject));
	check("non-compact data pointer", L->compact_size, (long)offsetof(PyUnicodeObject, data));
	CHECK(state_kind, STATE_BIT(kind, 7));
	CHECK(state_compact, STATE_BIT(compact, 1));
	CHECK(state_ascii, STATE_BIT(ascii, 1));
	CHECK(bytes_size, offsetof(PyBytesObject, ob_base.ob_size));
	CHECK(bytes_sval, offsetof(PyBytesObject, ob_sval));
#if PY_VERSION_HEX >= 0x030d0000 && PY_VERSION_HEX < 0x030e0000
	/* where python.c finds each offset inside a 3.13 _Py_DebugOffsets */
	const struct rec_py_dbg313 *D = &rec_py_dbg313;
#define DCHECK(field, member) check("debug_offsets." #field, (long)D->field, \
				    (long)offsetof(_Py_DebugOffsets, member))
	DCHECK(version, version);
	DCHECK(rt_interp_head, runtime_state.interpreters_head);
	DCHECK(interp_next, interpreter_state.next);
	DCHECK(interp_threads, interpreter_state.threads_head);
	DCHECK(ts_next, thread_state.next);
	DCHECK(ts_interp, thread_state.interp);
	DCHECK(ts_frame, thread_state.current_frame);
	DCHECK(ts_thread_id, thread_state.thread_id);
	DCHECK(fr_back, interpreter_frame.previous);
	DCHECK(fr_code, interpreter_frame.executable);
	DCHECK(fr_instr, interpreter_frame.instr_ptr);
	DCHECK(fr_owner, interpreter_frame.owner);
	DCHECK(co_filename, code_object.filename);
	DCHECK(co_name, code_object.name);
	DCHECK(co_qualname, code_object.qualname);
	DCHECK(co_linetable, code_object.linetable);
	DCHECK(co_firstlineno, code_object.firstlineno);
	DCHECK(co_code, code_object.co_code_adaptive);
	DCHECK(ob_type, pyobject.ob_type);
	DCHECK(bytes_size, bytes_object.ob_size);
	DCHECK(bytes_sval, bytes_object.ob_sval);
	DCHECK(str_state, unicode_object.state);
	DCHECK(str_length, unicode_object.length);
	DCHECK(ascii_size, unicode_object.asciiobject_size);
	check("debug_offsets size", D->total, (long)sizeof(_Py_DebugOffsets));
	check("debug_offsets first in _PyRuntime", 0, (long)offsetof(_PyRuntimeState, debug_offsets));
#endif
	printf("%d entries, %d mismatched\n", n, bad);
	return bad ? 1 : 0;
}
