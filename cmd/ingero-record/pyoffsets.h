/* SPDX-License-Identifier: MIT */
/*
 * CPython struct layouts the frame walker and the code-object reader need,
 * one row per minor version (x86-64, release builds).  Every number was
 * taken from that version's own headers (offsetof/sizeof in a program
 * built with Py_BUILD_CORE against the include directory of pyenv 3.10.13,
 * 3.11.7, 3.12.1, 3.13.0 and Debian's 3.11.2) and agrees with the DWARF of
 * the pyenv libpythons.  tests/cli/ingero-record/pylayout.sh compiles
 * tests/cli/ingero-record/pylayout.c against every interpreter's headers
 * found on the machine and fails on any entry that differs, so a wrong or
 * drifted entry cannot go unnoticed.
 *
 * 3.13 interpreters also describe themselves (_PyRuntime.debug_offsets);
 * python.c takes what that gives from the process and this row only for
 * what it does not (C-stack frame owner, first traceable instruction,
 * string bit fields).  Header-only so the layout test can include it.
 */
#ifndef INGERO_PYOFFSETS_H
#define INGERO_PYOFFSETS_H

#include <stdint.h>
#include "pywalk.h"

struct rec_py_layout {
	uint16_t version;            /* PY_VERSION_HEX >> 16 */
	uint8_t instr;               /* enum rec_py_instr */
	uint8_t owner_cstack;        /* FRAME_OWNED_BY_CSTACK or REC_PY_NO_OWNER */
	uint8_t owner_generator;     /* FRAME_OWNED_BY_GENERATOR or REC_PY_NO_OWNER */
	/* what the kernel walker reads (struct rec_py_proc) */
	uint16_t rt_interp_head;     /* _PyRuntimeState.interpreters.head */
	uint16_t interp_next;        /* PyInterpreterState.next */
	uint16_t interp_threads;     /* PyInterpreterState.tstate_head (3.10), threads.head */
	uint16_t ts_next;            /* PyThreadState.next */
	uint16_t ts_interp;          /* PyThreadState.interp (the recorder's sanity check) */
	uint16_t ts_thread_id;       /* PyThreadState.thread_id */
	uint16_t ts_frame;           /* PyThreadState.frame (3.10), cframe (3.11, 3.12), current_frame */
	uint16_t cframe_current;     /* _PyCFrame.current_frame (3.11, 3.12) */
	uint16_t fr_back;            /* PyFrameObject.f_back, _PyInterpreterFrame.previous */
	uint16_t fr_code;            /* f_code (3.10-3.12), f_executable (3.13) */
	uint16_t fr_instr;           /* f_lasti (3.10), prev_instr (3.11, 3.12), instr_ptr */
	uint16_t fr_owner;           /* _PyInterpreterFrame.owner */
	uint16_t fr_is_entry;        /* _PyInterpreterFrame.is_entry (3.11 only) */
	uint16_t co_code;            /* PyCodeObject.co_code_adaptive */
	uint16_t co_firsttraceable;  /* PyCodeObject._co_firsttraceable */
	/* what the recorder reads from code objects */
	uint16_t ob_type;            /* PyObject.ob_type */
	uint16_t tp_dealloc;         /* PyTypeObject.tp_dealloc (PyCode_Type's frees code objects) */
	uint16_t co_filename, co_name, co_qualname, co_firstlineno, co_linetable;
	uint16_t str_length;         /* PyASCIIObject.length */
	uint16_t str_state;          /* PyASCIIObject.state */
	uint16_t ascii_size;         /* sizeof(PyASCIIObject): compact ASCII data follows */
	uint16_t compact_size;       /* sizeof(PyCompactUnicodeObject): other compact data follows */
	uint8_t state_kind;          /* bit of state.kind (3 bits) */
	uint8_t state_compact;       /* bit of state.compact */
	uint8_t state_ascii;         /* bit of state.ascii */
	uint16_t bytes_size;         /* PyBytesObject.ob_base.ob_size */
	uint16_t bytes_sval;         /* PyBytesObject.ob_sval */
};

#define N_ REC_PY_NONE
#define NO_ REC_PY_NO_OWNER
static const struct rec_py_layout rec_py_layouts[] = {
	{ .version = 0x030a, .instr = REC_PY_LASTI, .owner_cstack = NO_, .owner_generator = NO_,
	  .rt_interp_head = 32, .interp_next = 0, .interp_threads = 8, .ts_next = 8,
	  .ts_interp = 16, .ts_thread_id = 176, .ts_frame = 24, .cframe_current = N_,
	  .fr_back = 24, .fr_code = 32, .fr_instr = 96, .fr_owner = N_, .fr_is_entry = N_, .co_code = N_,
	  .co_firsttraceable = N_, .ob_type = 8, .tp_dealloc = 48, .co_filename = 104, .co_name = 112,
	  .co_qualname = N_, .co_firstlineno = 40, .co_linetable = 120, .str_length = 16,
	  .str_state = 32, .ascii_size = 48, .compact_size = 72, .state_kind = 2,
	  .state_compact = 5, .state_ascii = 6, .bytes_size = 16, .bytes_sval = 32 },
	{ .version = 0x030b, .instr = REC_PY_PREV_INSTR, .owner_cstack = NO_, .owner_generator = 1,
	  .rt_interp_head = 40, .interp_next = 0, .interp_threads = 16, .ts_next = 8,
	  .ts_interp = 16, .ts_thread_id = 152, .ts_frame = 56, .cframe_current = 8,
	  .fr_back = 48, .fr_code = 32, .fr_instr = 56, .fr_owner = 69, .fr_is_entry = 68, .co_code = 184,
	  .co_firsttraceable = 168, .ob_type = 8, .tp_dealloc = 48, .co_filename = 112, .co_name = 120,
	  .co_qualname = 128, .co_firstlineno = 72, .co_linetable = 136, .str_length = 16,
	  .str_state = 32, .ascii_size = 48, .compact_size = 72, .state_kind = 2,
	  .state_compact = 5, .state_ascii = 6, .bytes_size = 16, .bytes_sval = 32 },
	{ .version = 0x030c, .instr = REC_PY_PREV_INSTR, .owner_cstack = 3, .owner_generator = 1,
	  .rt_interp_head = 40, .interp_next = 0, .interp_threads = 72, .ts_next = 8,
	  .ts_interp = 16, .ts_thread_id = 136, .ts_frame = 56, .cframe_current = 0,
	  .fr_back = 8, .fr_code = 0, .fr_instr = 56, .fr_owner = 70, .fr_is_entry = N_, .co_code = 192,
	  .co_firsttraceable = 176, .ob_type = 8, .tp_dealloc = 48, .co_filename = 112, .co_name = 120,
	  .co_qualname = 128, .co_firstlineno = 68, .co_linetable = 136, .str_length = 16,
	  .str_state = 32, .ascii_size = 40, .compact_size = 56, .state_kind = 2,
	  .state_compact = 5, .state_ascii = 6, .bytes_size = 16, .bytes_sval = 32 },
	{ .version = 0x030d, .instr = REC_PY_INSTR_PTR, .owner_cstack = 3, .owner_generator = 1,
	  .rt_interp_head = 632, .interp_next = 7264, .interp_threads = 7344, .ts_next = 8,
	  .ts_interp = 16, .ts_thread_id = 152, .ts_frame = 72, .cframe_current = N_,
	  .fr_back = 8, .fr_code = 0, .fr_instr = 56, .fr_owner = 70, .fr_is_entry = N_, .co_code = 200,
	  .co_firsttraceable = 184, .ob_type = 8, .tp_dealloc = 48, .co_filename = 112, .co_name = 120,
	  .co_qualname = 128, .co_firstlineno = 68, .co_linetable = 136, .str_length = 16,
	  .str_state = 32, .ascii_size = 40, .compact_size = 56, .state_kind = 2,
	  .state_compact = 5, .state_ascii = 6, .bytes_size = 16, .bytes_sval = 32 },
};
#undef N_
#undef NO_

/*
 * _Py_DebugOffsets as 3.13 lays it out (Include/internal/pycore_runtime.h):
 * the fields this recorder uses, at their byte positions in the struct.
 * Version 3.14 reorganised it; only a 3.13 interpreter's is read.
 */
#define REC_PY_DBG_COOKIE "xdebugpy"
struct rec_py_dbg313 {
	uint16_t version;                         /* byte position of each field */
	uint16_t rt_interp_head, interp_next, interp_threads;
	uint16_t ts_next, ts_interp, ts_frame, ts_thread_id;
	uint16_t fr_back, fr_code, fr_instr, fr_owner;
	uint16_t co_filename, co_name, co_qualname, co_linetable, co_firstlineno, co_code;
	uint16_t ob_type, bytes_size, bytes_sval, str_state, str_length, ascii_size;
	uint16_t total;                           /* sizeof(_Py_DebugOffsets) */
};
static const struct rec_py_dbg313 rec_py_dbg313 = {
	.version = 8,
	.rt_interp_head = 24 + 16, .interp_next = 48 + 16, .interp_threads = 48 + 24,
	.ts_next = 152 + 16, .ts_interp = 152 + 24, .ts_frame = 152 + 32, .ts_thread_id = 152 + 40,
	.fr_back = 224 + 8, .fr_code = 224 + 16, .fr_instr = 224 + 24, .fr_owner = 224 + 40,
	.co_filename = 272 + 8, .co_name = 272 + 16, .co_qualname = 272 + 24,
	.co_linetable = 272 + 32, .co_firstlineno = 272 + 40, .co_code = 272 + 72,
	.ob_type = 352 + 8, .bytes_size = 512 + 8, .bytes_sval = 512 + 16,
	.str_state = 536 + 8, .str_length = 536 + 16, .ascii_size = 536 + 24,
	.total = 584,
};

#endif /* INGERO_PYOFFSETS_H */
