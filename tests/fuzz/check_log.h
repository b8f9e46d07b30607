/* SPDX-License-Identifier: MIT */
/*
 * What the reader fuzz targets check for one input log, besides "no
 * crash, no leak, no undefined behaviour" (ASan/UBSan):
 *   - an error is one line, and sticks; a damaged range (SPEC §9) is one
 *     line too, and reading goes on after it;
 *   - every record it returns renders as JSON, and the writer re-encodes
 *     it (unknown kinds pass through raw), as ingero-export and the
 *     filters do;
 *   - reading that re-encoded log gives the same records (same JSON, with
 *     the same wall times and schema names) and ends cleanly: the codec is
 *     its own inverse on everything the reader accepts (but for an opname
 *     repeating a number already named in its node's section, which the
 *     writer does not write twice).  That second read decompresses on the
 *     reader's read-ahead thread (ilog_reader_readahead), the first not.
 */
#ifndef INGERO_FUZZ_CHECK_LOG_H
#define INGERO_FUZZ_CHECK_LOG_H

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "ingero/hmap.h"
#include "ingero/ilog.h"

static int fuzz_fd(void)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	return fd;
}

static void fuzz_fill(int fd, const uint8_t *p, size_t n)
{
	if (ftruncate(fd, 0) || lseek(fd, 0, SEEK_SET) != 0)
		abort();
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k <= 0)
			abort();
		p += k;
		n -= (size_t)k;
	}
	lseek(fd, 0, SEEK_SET);
}

/* Read fd to the end (with the read-ahead thread if ra); JSON lines into
 * *json; re-encode into w if given. */
static int fuzz_read(int fd, int ra, struct ilog_buf *json, struct ilog_writer *w, uint64_t *nrec,
		     int *headless)
{
	char err[256];
	struct ilog_reader *r = ilog_reader_open(fd, err, sizeof(err));
	if (!r || (ra && ilog_reader_readahead(r)))
		abort();
	const struct ilog_record *rec;
	int rc;
	*nrec = 0;
	*headless = 0;
	/* (node, op) named in the node's section: a writer names a number
	 * once there (SPEC §5.17), so a repeated opname is not written again
	 * and is left out of what is compared */
	struct ilog_hmap named = { 0 };
	while ((rc = ilog_reader_next(r, &rec)) > 0 || rc == ILOG_READ_DAMAGE) {
		if (rc < 0) {
			const char *e = ilog_reader_error(r);
			struct ilog_damage d;
			ilog_reader_damage(r, &d);
			if (!e || !*e || strchr(e, '\n') || !d.bytes)
				abort();
			continue;
		}
		/* records read after a damaged header frame have no header:
		 * a log written from them is none (its first record must be one) */
		if (!*nrec && rec->kind != ILOG_K_HEADER)
			*headless = 1;
		int again = 0;
		if (rec->kind == ILOG_K_HEADER) {
			for (size_t i = 0; i < named.cap; i++)
				if (named.s[i].a == rec->u.header.node_index)
					named.s[i].v = 0;
		} else if (rec->kind == ILOG_K_OPNAME) {
			const uint64_t *v = ilog_hmap_get(&named, rec->node, rec->u.opname.op);
			again = v && *v;
			if (!again && ilog_hmap_set(&named, rec->node, rec->u.opname.op, 1))
				abort();
		}
		*nrec += !again;
		if (!again && (ilog_json_record(json, rec, r) || ilog_buf_put(json, "\n", 1)))
			abort();
		/* the accessors the filters use, on whatever came in */
		(void)ilog_reader_wall(r, rec->node, ilog_record_ts(rec));
		(void)ilog_reader_header(r, rec->node);
		(void)ilog_reader_schema(r, rec->kind);
		if (w && ilog_writer_put(w, rec))
			abort();
	}
	if (rc < 0) {
		const char *e = ilog_reader_error(r);
		if (!e || !*e || strchr(e, '\n') || ilog_reader_next(r, &rec) != -1)
			abort();
	} else if (ilog_reader_error(r) || ilog_reader_next(r, &rec) != 0) {
		abort();
	}
	ilog_reader_close(r);
	ilog_hmap_free(&named);
	return rc;
}

static void check_log(const uint8_t *data, size_t size)
{
	static int in = -1, out = -1;
	if (in < 0) {
		in = fuzz_fd();
		out = fuzz_fd();
	}
	fuzz_fill(in, data, size);
	if (ftruncate(out, 0) || lseek(out, 0, SEEK_SET) != 0)
		abort();
	char err[256];
	struct ilog_writer_opts o = { .level = 1, .frame_records = 7, .frame_bytes = 4096,
				      .frame_ms = ILOG_FRAME_MS_OFF };
	struct ilog_writer *w = ilog_writer_open(out, &o, err, sizeof(err));
	if (!w)
		abort();
	struct ilog_buf j1 = { 0 }, j2 = { 0 };
	uint64_t n1, n2;
	int headless, h2;
	fuzz_read(in, 0, &j1, w, &n1, &headless);
	if (ilog_writer_close(w, err, sizeof(err)))
		abort();
	lseek(out, 0, SEEK_SET);
	int rc2 = n1 && !headless ? fuzz_read(out, 1, &j2, NULL, &n2, &h2) : 0;
	if (n1 && !headless && (rc2 != 0 || n2 != n1 || j1.len != j2.len || memcmp(j1.p, j2.p, j1.len))) {
		/* re-encoding changed what the records say: show the first line
		 * that differs, as read and as read back */
		size_t a = 0;
		while (a < j1.len && a < j2.len && j1.p[a] == j2.p[a])
			a++;
		while (a > 0 && j1.p[a - 1] != '\n')
			a--;
		const char *e1 = a < j1.len ? memchr(j1.p + a, '\n', j1.len - a) : NULL;
		const char *e2 = a < j2.len ? memchr(j2.p + a, '\n', j2.len - a) : NULL;
		int l1 = a < j1.len ? (int)((e1 ? e1 : j1.p + j1.len) - (j1.p + a)) : 0;
		int l2 = a < j2.len ? (int)((e2 ? e2 : j2.p + j2.len) - (j2.p + a)) : 0;
		fprintf(stderr, "round trip: %llu records, read back %llu (rc %d); first difference:\n"
				"  read:      %.*s\n  read back: %.*s\n",
			(unsigned long long)n1, (unsigned long long)n2, rc2, l1, j1.p + a, l2,
			j2.p + a);
		if (getenv("FUZZ_DUMP"))
			fprintf(stderr, "--- read\n%.*s--- read back\n%.*s", (int)j1.len, j1.p,
				(int)j2.len, j2.p);
		abort();
	}
	ilog_buf_free(&j1);
	ilog_buf_free(&j2);
}

#endif
