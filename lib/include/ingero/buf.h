/* SPDX-License-Identifier: MIT */
/*
 * Base layer (lib/base/): a growable byte buffer and the one JSON string
 * escaper every JSON writer uses.  libc only.
 */
#ifndef INGERO_BUF_H
#define INGERO_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct ilog_buf { char *p; size_t len, cap; };

void ilog_buf_free(struct ilog_buf *b);
/* Room for n more bytes (b->p + b->len .. + n writable).  0 or -1 (ENOMEM). */
int ilog_buf_reserve(struct ilog_buf *b, size_t n);
/* Append n bytes.  0 or -1 (ENOMEM). */
int ilog_buf_put(struct ilog_buf *b, const void *p, size_t n);
/* printf into a buffer.  0 or -1 (ENOMEM or a bad format). */
int ilog_buf_printf(struct ilog_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same with a va_list (for a function that takes a format itself). */
int ilog_buf_vprintf(struct ilog_buf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* Write the buffer to fd and empty it.  0, or -1 with err filled
 * ("write error: REASON"). */
int ilog_buf_flush_fd(struct ilog_buf *b, int fd, char *err, size_t errlen);

/*
 * Append s (n bytes) as a JSON string: quotes around it; '"', '\\', and
 * the controls \n, \t, \r as two-character escapes, other controls as
 * \u00XX; valid UTF-8 copied as it is; each byte that does not begin a
 * valid UTF-8 sequence (overlong, surrogate, beyond U+10FFFF, cut short)
 * becomes U+FFFD ("\ufffd").  0 or -1 (ENOMEM).
 */
int ilog_json_str(struct ilog_buf *b, const char *s, size_t n);
/* Length of the valid UTF-8 sequence at p (1..4, n >= 1 bytes there), or 0. */
size_t ilog_utf8_len(const unsigned char *p, size_t n);

/* Lowercase hex of p[0..n) into out (2n + 1 bytes, NUL-terminated). */
void ilog_hex(char *out, const void *p, size_t n);

#endif
