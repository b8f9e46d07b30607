// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the option parsers (duration, size, wall time, name
 * lists) on arbitrary strings, under UBSan (float-to-integer conversions
 * out of range are the classic bug here).  A parse that fails must leave
 * the result untouched; one that succeeds must give the same result twice.
 */
#include <stdlib.h>
#include <string.h>
#include "ingero/ilog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = 0;
	int (*const fn[])(const char *, uint64_t *) = {
		ilog_parse_duration, ilog_parse_size, ilog_parse_walltime,
	};
	for (size_t i = 0; i < sizeof(fn) / sizeof(fn[0]); i++) {
		uint64_t a = 0x5a5a5a5a5a5a5a5aull, b = 0;
		int ra = fn[i](s, &a), rb = fn[i](s, &b);
		if (ra != rb || (ra == 0 && a != b) || (ra != 0 && (ra != -1 || a != 0x5a5a5a5a5a5a5a5aull)))
			abort();
	}
	char bad[64] = "";
	uint64_t m1, m2;
	int r1 = ilog_parse_list(s, ilog_kind_from_name, &m1, bad, sizeof(bad));
	int r2 = ilog_parse_list(s, ilog_op_from_name, &m2, bad, sizeof(bad));
	if ((r1 != 0 && r1 != -1) || (r2 != 0 && r2 != -1) || memchr(bad, 0, sizeof(bad)) == NULL)
		abort();
	free(s);
	return 0;
}
