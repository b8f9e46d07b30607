// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the log reader on arbitrary bytes, as a file or pipe
 * would give them (framing, skippable frames, zstd, msgpack records,
 * reader state), with the checks in check_log.h.  Seeds: the format test
 * vectors, tests/data and synth logs (tests/fuzz/run.sh).
 */
#include "check_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_log(data, size);
	return 0;
}
