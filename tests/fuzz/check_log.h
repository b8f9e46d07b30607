/* SPDX-License-Identifier: MIT */
/*
 * What the reader fuzz targets check for one input log, besides "no
 * crash, no leak, no undefined behaviour" (ASan/UBSan):
 *   - an error is one line, and sticks;
 *   - every record it returns renders as JSON, and the writer re-encodes
 *     it (unknown kinds pass through raw), as ingero-export and the
 *     filters do;
 *   - reading that re-encoded log gives the same records (same JSON, with
 *     the same wall times and schema names) and ends cleanly: the codec is
 *     its own inverse on everything the reader accepts.
 */
#ifndef INGERO_FUZZ_CHECK_LOG_H
#define INGERO_FUZZ_CHECK_LOG_H

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
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

/* Read fd to the end; JSON lines into *json; re-encode into w if given. */
static int fuzz_read(int fd, struct ilog_buf *json, struct ilog_writer *w, uint64_t *nrec)
{
	char err[256];
	struct ilog_reader *r = ilog_reader_open(fd, err, sizeof(err));
	if (!r)
		abort();
	const struct ilog_record *rec;
	int rc;
	*nrec = 0;
	while ((rc = ilog_reader_next(r, &rec)) > 0) {
		(*nrec)++;
		if (ilog_json_record(json, rec, r) || ilog_buf_put(json, "\n", 1))
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
	fuzz_read(in, &j1, w, &n1);
	if (ilog_writer_close(w, err, sizeof(err)))
		abort();
	lseek(out, 0, SEEK_SET);
	int rc2 = n1 ? fuzz_read(out, &j2, NULL, &n2) : 0;
	if (n1 && (rc2 != 0 || n2 != n1 || j1.len != j2.len || memcmp(j1.p, j2.p, j1.len)))
		abort(); /* re-encoding changed what the records say */
	ilog_buf_free(&j1);
	ilog_buf_free(&j2);
}

#endif
