/* SPDX-License-Identifier: MIT */
/*
 * Internal to lib/symbolize/: what its files share beyond the public
 * ingero/symbolize.h (tables and pools are the base layer's, ingero/vec.h).
 */
#ifndef ILOG_SYMBOLIZE_INT_H
#define ILOG_SYMBOLIZE_INT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Length of a recorded path without the " (deleted)" that /proc/PID/maps
 * appends to files unlinked since they were mapped. */
static inline size_t sym_path_len(const char *path, size_t n)
{
	static const char deleted[] = " (deleted)";
	const size_t k = sizeof(deleted) - 1;
	return n > k && !memcmp(path + n - k, deleted, k) ? n - k : n;
}

/*
 * lib/symbolize/symbolize.c: is file an ELF file with build-id bid (any, when nbid
 * is 0), whole (PT_LOAD bytes present) when asked?  1 yes, 0 no such
 * file, -1 rejected with the reason ("FILE: problem") in why.
 */
int ilog_sym_check_file(const char *file, const uint8_t *bid, uint32_t nbid, int whole,
			char *why, size_t whylen);

#endif
