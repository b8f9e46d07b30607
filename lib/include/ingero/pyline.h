/* SPDX-License-Identifier: MIT */
/*
 * CPython line tables, decoded offline: a pystack frame (code object,
 * instruction offset) plus that code object's pycode record (first line,
 * co_linetable bytes, interpreter version) gives a source line, without
 * the interpreter.  Pure computation; no allocation.
 */
#ifndef ILOG_PYLINE_H
#define ILOG_PYLINE_H

#include <stddef.h>
#include <stdint.h>

/* lasti of a frame that has not run an instruction yet (CPython's -1). */
#define ILOG_PY_LASTI_NONE UINT32_MAX

/*
 * The source line of the instruction at `lasti`, counted in 2-byte code
 * units from the start of the bytecode (struct ingero_pyframe.lasti), in
 * a code object compiled by CPython `py_version` (PY_VERSION_HEX >> 16:
 * 0x030a..0x030d) whose co_firstlineno is `firstlineno` and co_linetable
 * is table[0..n).  Same answer as the interpreter's PyCode_Addr2Line.
 *
 * Returns the line (> 0); 0 when the instruction has no line number (the
 * compiler marks some artificial instructions so); -1 when lasti lies
 * past the table, the table is damaged, or the version's format is not
 * one this decoder knows.  lasti == ILOG_PY_LASTI_NONE gives firstlineno.
 */
int ilog_py_addr2line(uint32_t py_version, const uint8_t *table, size_t n,
		      uint32_t firstlineno, uint32_t lasti);

#endif
