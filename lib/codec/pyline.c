// SPDX-License-Identifier: MIT
/*
 * CPython line-table decoding (lib/include/ingero/pyline.h).  Two formats exist among
 * the interpreters the recorder walks; the facts below are from CPython's
 * Objects/lnotab_notes.txt (3.10) and Objects/locations.md (3.11+).  Every
 * read is bounds-checked: a table comes from another process's memory
 * and may be torn or stale.
 */
#include "ingero/pyline.h"

/*
 * 3.10 (PEP 626): pairs (bytecode-delta: unsigned byte, line-delta:
 * signed byte).  Each pair is one address range [end, end + delta); its
 * line is the running line plus line-delta, where -128 means "no line"
 * and leaves the running line alone.  Deltas too large for a byte are
 * split into several pairs, some with an empty range, so the running
 * line must be advanced even for empty ranges.
 */
static int clamp_line(int64_t line)
{
	return line <= 0 ? 0 : line > INT32_MAX ? INT32_MAX : (int)line;
}

static int addr2line_310(const uint8_t *t, size_t n, int64_t line, uint64_t addr)
{
	uint64_t start = 0;
	for (size_t i = 0; i + 1 < n; i += 2) {
		uint64_t end = start + t[i];
		int delta = (int8_t)t[i + 1];
		if (delta != -128)
			line += delta;
		if (addr >= start && addr < end)
			return delta == -128 ? 0 : clamp_line(line);
		start = end;
	}
	return -1;
}

/* 3.11+ varints: 6-bit groups, least significant first, bit 6 = more. */
static int read_varint(const uint8_t *t, size_t n, size_t *i, uint32_t *v)
{
	uint32_t val = 0;
	for (unsigned shift = 0; *i < n && shift < 32; shift += 6) {
		uint8_t b = t[(*i)++];
		if (b & 0x80)
			return -1; /* the next entry started: the varint is cut */
		val |= (uint32_t)(b & 63) << shift;
		if (!(b & 64)) {
			*v = val;
			return 0;
		}
	}
	return -1;
}

/*
 * 3.11, 3.12, 3.13 location table: entries start with a byte whose bit 7
 * is set; bits 3..6 are a code, bits 0..2 the length in code units minus
 * one.  The code says how the line moves (columns do not matter here):
 *   15       no location: no line, the running line stays
 *   14 (long), 13 (no columns)   signed varint line delta follows
 *   10..12   one-line forms: delta code - 10, then two column bytes
 *   0..9     short forms: same line, one column byte
 * A signed varint is an unsigned one with the sign in bit 0.
 */
static int addr2line_311(const uint8_t *t, size_t n, int64_t line, uint64_t addr)
{
	uint64_t start = 0;
	size_t i = 0;
	while (i < n) {
		uint8_t b = t[i++];
		if (!(b & 0x80))
			return -1;
		unsigned code = (b >> 3) & 15;
		uint64_t end = start + (((uint64_t)(b & 7) + 1) * 2);
		if (code == 13 || code == 14) {
			uint32_t u;
			if (read_varint(t, n, &i, &u))
				return -1;
			line += (u & 1) ? -(int64_t)(u >> 1) : (int64_t)(u >> 1);
		} else if (code >= 10 && code <= 12) {
			line += code - 10;
		}
		if (addr >= start && addr < end)
			return code == 15 ? 0 : clamp_line(line);
		start = end;
		while (i < n && !(t[i] & 0x80)) /* column bytes, or the rest of a long form */
			i++;
	}
	return -1;
}

int ilog_py_addr2line(uint32_t py_version, const uint8_t *table, size_t n,
		      uint32_t firstlineno, uint32_t lasti)
{
	if (lasti == ILOG_PY_LASTI_NONE)
		return clamp_line(firstlineno);
	if (!table && n)
		return -1;
	uint64_t addr = (uint64_t)lasti * 2; /* code units are 2 bytes in 3.6+ */
	switch (py_version) {
	case 0x030a:
		return addr2line_310(table, n, firstlineno, addr);
	case 0x030b: case 0x030c: case 0x030d:
		return addr2line_311(table, n, firstlineno, addr);
	default:
		return -1;
	}
}
