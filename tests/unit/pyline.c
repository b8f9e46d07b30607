// SPDX-License-Identifier: MIT
/*
 * lib/codec/pyline.c against the interpreters themselves: pyline_data.h holds
 * co_linetable bytes and co_lines() answers dumped by CPython 3.10, 3.11,
 * 3.12 and 3.13 (tests/unit/pyline_gen.py), and every instruction of
 * every code object must decode to the interpreter's line.  Hand-made
 * tables cover what the documented format allows beyond those samples.
 */
#include "test.h"
#include "ingero/pyline.h"
#include "pyline_data.h"

#define NCASES (sizeof(py_cases) / sizeof(py_cases[0]))

/* The interpreter's answer for byte offset addr: line, 0 none, -1 past. */
static int want_line(const struct py_case *c, unsigned addr)
{
	for (unsigned i = 0; i < c->nlines; i++)
		if (addr >= c->lines[i].start && addr < c->lines[i].end)
			return c->lines[i].line < 0 ? 0 : c->lines[i].line;
	return -1;
}

static void check_version(unsigned version, const char *name)
{
	struct check ck;
	unsigned ncodes = 0, ninstr = 0;
	check_begin(&ck);
	for (unsigned k = 0; k < NCASES; k++) {
		const struct py_case *c = &py_cases[k];
		if (c->version != version)
			continue;
		ncodes++;
		for (unsigned u = 0; u < c->ncode / 2; u++, ninstr++) {
			int got = ilog_py_addr2line(version, c->table, c->ntable, c->first, u);
			int want = want_line(c, 2 * u);
			if (got != want)
				check_fail(&ck, "%s %s lasti %u: got %d, want %d", name, c->name,
					   u, got, want);
		}
		int got = ilog_py_addr2line(version, c->table, c->ntable, c->first, c->ncode / 2);
		if (got != -1)
			check_fail(&ck, "%s %s: lasti past the code gave %d, want -1", name,
				   c->name, got);
		got = ilog_py_addr2line(version, c->table, c->ntable, c->first, ILOG_PY_LASTI_NONE);
		if (got != (int)c->first)
			check_fail(&ck, "%s %s: lasti -1 gave %d, want co_firstlineno %u", name,
				   c->name, got, c->first);
	}
	if (!ncodes) {
		ok(0, "%s: no sampled code objects in pyline_data.h", name);
		return;
	}
	check_end(&ck, "%s: all %u instructions of %u code objects match co_lines()", name,
		  ninstr, ncodes);
}

/* Cutting a table anywhere never reads past the cut (ASan watches) and
 * never invents a line: each answer is the full table's or -1. */
static void check_truncation(void)
{
	struct check ck;
	check_begin(&ck);
	for (unsigned k = 0; k < NCASES; k++) {
		const struct py_case *c = &py_cases[k];
		if (c->ntable > 400)
			continue; /* the long ones add time, not shapes */
		for (unsigned cut = 0; cut < c->ntable; cut++) {
			unsigned char *t = malloc(cut ? cut : 1);
			memcpy(t, c->table, cut);
			for (unsigned u = 0; u < c->ncode / 2; u++) {
				int got = ilog_py_addr2line(c->version, t, cut, c->first, u);
				int full = want_line(c, 2 * u);
				if (got != -1 && got != full)
					check_fail(&ck, "%x %s cut %u lasti %u: %d, full table %d",
						   c->version, c->name, cut, u, got, full);
			}
			free(t);
		}
	}
	check_end(&ck, "a cut table gives the full table's line or -1, never another");
}

/* The samples must exercise every encoding, or a regenerated data file
 * could quietly stop testing one. */
static void check_coverage(void)
{
	unsigned split_pos = 0, split_neg = 0, none310 = 0, long_range = 0;
	unsigned codes[16] = { 0 }, multi_chunk = 0;
	for (unsigned k = 0; k < NCASES; k++) {
		const struct py_case *c = &py_cases[k];
		if (c->version == 0x030a) {
			for (unsigned i = 0; i + 1 < c->ntable; i += 2) {
				int d = (signed char)c->table[i + 1];
				split_pos += c->table[i] == 0 && d == 127;
				split_neg += c->table[i] == 0 && d == -127;
				none310 += d == -128;
				long_range += c->table[i] == 254;
			}
		} else if (c->version == 0x030b) {
			for (unsigned i = 0; i < c->ntable; i++) {
				if (c->table[i] & 0x80)
					codes[(c->table[i] >> 3) & 15]++;
				else if (c->table[i] & 0x40)
					multi_chunk++;
			}
		}
	}
	ok(split_pos && split_neg && none310 && long_range,
	   "3.10 samples hold split line deltas (+%u, -%u), no-line pairs (%u), 254-byte ranges (%u)",
	   split_pos, split_neg, none310, long_range);
	unsigned short_forms = 0;
	for (int i = 0; i < 10; i++)
		short_forms += codes[i];
	ok(short_forms && codes[10] && codes[11] && codes[12] && codes[13] && codes[14] &&
	   codes[15] && multi_chunk,
	   "3.11 samples hold every entry code (short %u, one-line %u/%u/%u, no-column %u, long %u, none %u) and multi-chunk varints (%u)",
	   short_forms, codes[10], codes[11], codes[12], codes[13], codes[14], codes[15],
	   multi_chunk);
}

/* Hand-made from Objects/locations.md: shapes real code rarely makes. */
static void check_documented(void)
{
	/* no-column entries (code 13, one code unit each) with three-chunk
	 * signed varints: +5000 (10000 = 16 + 28*64 + 2*4096), then -5000 */
	static const unsigned char far[] = { 0xe8, 0x50, 0x5c, 0x02, 0xe8, 0x51, 0x5c, 0x02 };
	for (unsigned v = 0x030b; v <= 0x030d; v++) {
		ok(ilog_py_addr2line(v, far, sizeof(far), 7, 0) == 5007 &&
		   ilog_py_addr2line(v, far, sizeof(far), 7, 1) == 7,
		   "%x: three-chunk varint line deltas +5000 and -5000", v);
	}
	/* a long form (code 14) of length 8 units: delta +3, end-line delta,
	 * columns; then a no-location entry (code 15) of 2 units */
	static const unsigned char lng[] = { 0xf7, 0x06, 0x00, 0x05, 0x09, 0xf9 };
	ok(ilog_py_addr2line(0x030c, lng, sizeof(lng), 10, 7) == 13 &&
	   ilog_py_addr2line(0x030c, lng, sizeof(lng), 10, 8) == 0 &&
	   ilog_py_addr2line(0x030c, lng, sizeof(lng), 10, 9) == 0 &&
	   ilog_py_addr2line(0x030c, lng, sizeof(lng), 10, 10) == -1,
	   "3.12: long form spans its 8 units; no-location entry has no line");
	/* a 3.11 table whose first byte is not an entry start is damage */
	static const unsigned char bad[] = { 0x12, 0x80 };
	ok(ilog_py_addr2line(0x030b, bad, sizeof(bad), 1, 0) == -1,
	   "3.11: a table not starting with an entry byte is rejected");
	/* 3.10: a range with no line between two lined ones keeps the
	 * running line for the next pair (lnotab_notes.txt) */
	static const unsigned char t310[] = { 4, 2, 2, 0x80, 6, 1 };
	ok(ilog_py_addr2line(0x030a, t310, sizeof(t310), 20, 1) == 22 &&
	   ilog_py_addr2line(0x030a, t310, sizeof(t310), 20, 2) == 0 &&
	   ilog_py_addr2line(0x030a, t310, sizeof(t310), 20, 3) == 23,
	   "3.10: a no-line range in between leaves the running line alone");
	ok(ilog_py_addr2line(0x0309, t310, sizeof(t310), 20, 1) == -1 &&
	   ilog_py_addr2line(0x030e, far, sizeof(far), 20, 1) == -1,
	   "versions with another table format are refused, not guessed");
	ok(ilog_py_addr2line(0x030b, NULL, 0, 5, 0) == -1 &&
	   ilog_py_addr2line(0x030b, NULL, 0, 5, ILOG_PY_LASTI_NONE) == 5,
	   "an empty table: no line for an instruction, firstlineno before the first");
}

int main(void)
{
	check_version(0x030a, "3.10");
	check_version(0x030b, "3.11");
	check_version(0x030c, "3.12");
	check_version(0x030d, "3.13");
	check_coverage();
	check_documented();
	check_truncation();
	return done_testing();
}
