// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the record decoder.  Mutating compressed bytes mostly
 * exercises zstd's checksum; here the input is the msgpack content of a
 * frame, compressed into a valid zstd frame after a frame holding a valid
 * header, so every input reaches the record decoder (kinds, field types,
 * counts, trailing fields, delta-coded timestamps, unknown kinds).  Seeds:
 * decompressed logs (tests/fuzz/run.sh).
 */
#include <zstd.h>
#include "check_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A log holding only a header, made once with the real writer. */
static size_t header_frame(uint8_t **out)
{
	static uint8_t *hdr;
	static size_t n;
	if (hdr) {
		*out = hdr;
		return n;
	}
	int fd = fuzz_fd();
	char err[256];
	struct ilog_writer *w = ilog_writer_open(fd, NULL, err, sizeof(err));
	struct ilog_record rec = { .kind = ILOG_K_HEADER };
	rec.u.header = (struct ilog_header){
		.magic = ILOG_STR(ILOG_MAGIC), .version_major = ILOG_VERSION_MAJOR,
		.node = ILOG_STR("fuzz"), .rank = -1, .mono_ns = 1000000000,
		.real_ns = 1795364400000000000ull,
	};
	if (!w || ilog_writer_put(w, &rec) || ilog_writer_close(w, err, sizeof(err)))
		abort();
	n = (size_t)lseek(fd, 0, SEEK_END);
	hdr = malloc(n);
	if (!hdr || pread(fd, hdr, n, 0) != (ssize_t)n)
		abort();
	close(fd);
	*out = hdr;
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static ZSTD_CCtx *cctx;
	uint8_t *hdr;
	size_t hn = header_frame(&hdr);
	if (!cctx) {
		cctx = ZSTD_createCCtx();
		ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1);
		ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
	}
	size_t cap = hn + ZSTD_compressBound(size);
	uint8_t *log = malloc(cap);
	if (!log)
		abort();
	memcpy(log, hdr, hn);
	size_t z = ZSTD_compress2(cctx, log + hn, cap - hn, data, size);
	if (ZSTD_isError(z))
		abort();
	check_log(log, hn + z);
	free(log);
	return 0;
}
