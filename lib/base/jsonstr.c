// SPDX-License-Identifier: MIT
/* The JSON string escaper (ingero/buf.h): RFC 8259 strings from bytes that
 * may not be UTF-8 (process names, paths and symbols come from the traced
 * workload). */
#include <string.h>
#include "ingero/buf.h"

size_t ilog_utf8_len(const unsigned char *p, size_t n)
{
	unsigned char c = p[0];
	size_t k;
	unsigned cp;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		k = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		k = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		k = 4, cp = c & 0x07;
	else
		return 0;
	if (n < k)
		return 0;
	for (size_t i = 1; i < k; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((k == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (k == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return k;
}

int ilog_json_str(struct ilog_buf *b, const char *s, size_t n)
{
	static const char hexd[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	if (ilog_buf_reserve(b, n + 2))
		return -1;
	b->p[b->len++] = '"';
	size_t run = 0; /* bytes to copy as they are, pending */
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		size_t k = c >= 0x20 && c != '"' && c != '\\' ? (c < 0x80 ? 1 : ilog_utf8_len(p + i, n - i)) : 0;
		if (k) {
			run += k;
			i += k;
			continue;
		}
		if (run && ilog_buf_put(b, p + i - run, run))
			return -1;
		run = 0;
		char esc[6] = { '\\', (char)c };
		size_t en = 2;
		switch (c) {
		case '"': case '\\': break;
		case '\n': esc[1] = 'n'; break;
		case '\t': esc[1] = 't'; break;
		case '\r': esc[1] = 'r'; break;
		default:
			if (c < 0x20) {
				memcpy(esc, "\\u00", 4);
				esc[4] = hexd[c >> 4];
				esc[5] = hexd[c & 15];
			} else {
				memcpy(esc, "\\ufffd", 6); /* not UTF-8: say so, do not pass it on */
			}
			en = 6;
		}
		if (ilog_buf_put(b, esc, en))
			return -1;
		i++;
	}
	if (run && ilog_buf_put(b, p + n - run, run))
		return -1;
	return ilog_buf_put(b, "\"", 1);
}
