// SPDX-License-Identifier: MIT
/*
 * ilogframes: the zstd frames of a log, for the ingero-symbolize tests
 * that check which frames it copies byte for byte and which it writes.
 *
 *   ilogframes list LOG            one line per frame: its compressed bytes'
 *                                  FNV-1a hash, then the kinds of its records
 *                                  in order, runs counted ("header schema*16")
 *   ilogframes split N IN OUT      IN written again, N records per frame
 *   ilogframes join IN OUT         IN written again in one frame, header and
 *                                  events together (as writers did before
 *                                  they ended the first frame after the header)
 *   ilogframes grow MIB IN OUT     IN written again in frames of 32 MiB (the
 *                                  writer's largest), then IN's stack records
 *                                  again and again, ids changed, until about
 *                                  MIB MiB of records are written
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include "ingero/cli.h"
#include "ingero/mpread.h"

static int list(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st))
		return -1;
	size_t n = (size_t)st.st_size;
	uint8_t *buf = malloc(n ? n : 1);
	if (!buf || read(fd, buf, n) != (ssize_t)n)
		return -1;
	close(fd);
	for (size_t off = 0; off < n;) {
		size_t cs = ZSTD_findFrameCompressedSize(buf + off, n - off);
		if (ZSTD_isError(cs))
			return -1;
		uint64_t h = 0xcbf29ce484222325ull;
		for (size_t i = 0; i < cs; i++)
			h = (h ^ buf[off + i]) * 0x100000001b3ull;
		printf("%016llx", (unsigned long long)h);
		unsigned long long sz = ZSTD_getFrameContentSize(buf + off, cs);
		uint8_t *c = sz < (1ull << 27) ? malloc(sz ? sz : 1) : NULL;
		if (c && ZSTD_decompress(c, sz, buf + off, cs) == sz) {
			struct mp_cur cur = { c, c + sz };
			const char *last = NULL;
			unsigned run = 0;
			while (cur.p < cur.end) {
				const uint8_t *p = cur.p;
				uint32_t nv;
				uint64_t kind;
				int neg;
				if (mp_array(&cur, &nv) || !nv || mp_int(&cur, &kind, &neg))
					break;
				cur.p = p;
				if (ilog_mp_skip(&cur))
					break;
				const char *k = ilog_kind_name((uint32_t)kind);
				if (!k)
					k = "unknown";
				if (last && !strcmp(last, k)) {
					run++;
					continue;
				}
				if (last)
					printf(run > 1 ? " %s*%u" : " %s", last, run);
				last = k;
				run = 1;
			}
			if (last)
				printf(run > 1 ? " %s*%u" : " %s", last, run);
		} else {
			printf(" (skippable or unreadable)");
		}
		free(c);
		printf("\n");
		off += cs;
	}
	free(buf);
	return 0;
}

static int rewrite(const char *in, const char *out, uint32_t frame_records, uint64_t grow)
{
	char err[256];
	int ifd = open(in, O_RDONLY), ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	struct ilog_writer_opts wo = {
		.frame_records = frame_records, .frame_ms = ILOG_FRAME_MS_OFF,
		.frame_bytes = grow ? ILOG_MAX_FRAME_CONTENT / 2 : 0,
	};
	struct ilog_reader *r = ifd < 0 ? NULL : ilog_reader_open(ifd, err, sizeof(err));
	struct ilog_writer *w = ofd < 0 ? NULL : ilog_writer_open(ofd, &wo, err, sizeof(err));
	if (!r || !w)
		return -1;
	static struct ingero_stack stacks[256];
	unsigned nstacks = 0;
	uint64_t bytes = 0;
	const struct ilog_record *rec;
	int k;
	while ((k = ilog_reader_next(r, &rec)) > 0) {
		if (ilog_writer_put(w, rec))
			return -1;
		bytes += rec->raw.n;
		if (rec->kind == ILOG_K_STACK && nstacks < 256)
			stacks[nstacks++] = rec->u.stack;
	}
	if (k < 0)
		return -1;
	struct ilog_record s = { .kind = ILOG_K_STACK };
	for (uint64_t i = 1; nstacks && bytes < grow; i++) {
		s.u.stack = stacks[i % nstacks];
		s.u.stack.id ^= i << 20;
		if (ilog_writer_put(w, &s))
			return -1;
		bytes += 16 + 9 * (uint64_t)s.u.stack.nr;
	}
	ilog_reader_close(r);
	return ilog_writer_close(w, err, sizeof(err)) || close(ofd) ? -1 : 0;
}

int main(int argc, char **argv)
{
	ilog_cli_init(argv[0]);
	int rc = -1;
	if (argc == 3 && !strcmp(argv[1], "list"))
		rc = list(argv[2]);
	else if (argc == 5 && !strcmp(argv[1], "split"))
		rc = rewrite(argv[3], argv[4], (uint32_t)atoi(argv[2]), 0);
	else if (argc == 4 && !strcmp(argv[1], "join"))
		rc = rewrite(argv[2], argv[3], UINT32_MAX, 0);
	else if (argc == 5 && !strcmp(argv[1], "grow"))
		rc = rewrite(argv[3], argv[4], UINT32_MAX, (uint64_t)atoi(argv[2]) << 20);
	else
		return ILOG_EXIT_USAGE;
	if (rc)
		ilog_errorf("%s: failed: %s", argv[1], errno ? strerror(errno) : "bad input");
	return rc ? ILOG_EXIT_USAGE : 0;
}
