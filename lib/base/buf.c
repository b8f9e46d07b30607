// SPDX-License-Identifier: MIT
/* Growable byte buffer (ingero/buf.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ingero/buf.h"
#include "ingero/io.h"

void ilog_buf_free(struct ilog_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

int ilog_buf_reserve(struct ilog_buf *b, size_t n)
{
	if (b->len + n <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap * 2 : 4096;
	while (cap < b->len + n)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (!p)
		return -1;
	b->p = p;
	b->cap = cap;
	return 0;
}

int ilog_buf_put(struct ilog_buf *b, const void *p, size_t n)
{
	if (!n)
		return 0;
	if (ilog_buf_reserve(b, n))
		return -1;
	memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

int ilog_buf_vprintf(struct ilog_buf *b, const char *fmt, va_list ap)
{
	char tmp[512];
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap), rc = -1;
	if (n >= 0 && (size_t)n < sizeof(tmp)) {
		rc = ilog_buf_put(b, tmp, (size_t)n);
	} else if (n >= 0 && !ilog_buf_reserve(b, (size_t)n + 1)) {
		/* too long for tmp: formatted again, in place */
		vsnprintf(b->p + b->len, (size_t)n + 1, fmt, again);
		b->len += (size_t)n;
		rc = 0;
	}
	va_end(again);
	return rc;
}

int ilog_buf_printf(struct ilog_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = ilog_buf_vprintf(b, fmt, ap);
	va_end(ap);
	return rc;
}

int ilog_buf_flush_fd(struct ilog_buf *b, int fd, char *err, size_t errlen)
{
	if (ilog_write_all(fd, b->p, b->len)) {
		snprintf(err, errlen, "write error: %s", strerror(errno));
		return -1;
	}
	b->len = 0;
	return 0;
}

void ilog_hex(char *out, const void *p, size_t n)
{
	static const char d[] = "0123456789abcdef";
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = d[c[i] >> 4];
		out[2 * i + 1] = d[c[i] & 15];
	}
	out[2 * n] = 0;
}
