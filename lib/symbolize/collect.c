// SPDX-License-Identifier: MIT
/*
 * --collect (ilog_collect_new in lib/include/ingero/symbolize.h): the recording
 * node copies the ELF files its log names into a directory keyed by
 * build-id, in the layout the symbolizer's debug-directory lookup reads,
 * so the log and the directory can be symbolized on another machine.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ingero/symbolize.h"
#include "ingero/io.h"
#include "ingero/vec.h"
#include "symbolize_int.h"

struct ilog_collect {
	const struct ilog_symbolize_opts *o;
	const char *dir;
	struct ilog_collect_stats st;
	struct ilog_strpool pool;
	struct ilog_hmap seen;         /* (interned build-id hex or path, 0) */
	char *err;                     /* the caller's, for this ilog_collect_add */
	size_t errlen;
};

static void say(struct ilog_collect *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct ilog_collect *c, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	if (!c->o->report)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->o->report(c->o->report_arg, ILOG_SYM_WARN, msg);
}

static int mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		int rc = mkdir(path, 0755);
		*p = '/';
		if (rc && errno != EEXIST)
			return -1;
	}
	return mkdir(path, 0755) && errno != EEXIST ? -1 : 0;
}

/* Copy src to dst through a temporary name, so dst is whole or absent. */
static int copy_file(struct ilog_collect *c, const char *src, const char *dst)
{
	char tmp[4200];
	int in = open(src, O_RDONLY | O_CLOEXEC), out = -1;
	if (in < 0) {
		snprintf(c->err, c->errlen, "%s: %s", src, strerror(errno));
		return -1;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", dst, (int)getpid());
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0)
		goto fail;
	int rc = ilog_copy_fd(in, out, &c->st.bytes);
	if (rc == -1) {
		snprintf(c->err, c->errlen, "%s: read error: %s", src, strerror(errno));
		goto fail_quiet;
	}
	if (rc)
		goto fail;
	if (close(out)) {
		out = -1;
		goto fail;
	}
	out = -1;
	if (rename(tmp, dst))
		goto fail;
	close(in);
	return 0;
fail:
	snprintf(c->err, c->errlen, "%s: %s", tmp, strerror(errno));
fail_quiet:
	if (out >= 0)
		close(out);
	unlink(tmp);
	close(in);
	return -1;
}

/* dst already holds the right file? */
static int present(struct ilog_collect *c, const char *dst, const uint8_t *bid, uint32_t nbid)
{
	char why[600];
	int k = ilog_sym_check_file(dst, bid, nbid, 0, why, sizeof(why));
	if (k < 0)
		say(c, "%s; replaced", why);
	return k > 0;
}

static int collect_one(struct ilog_collect *c, const struct ilog_mapping *m)
{
	const uint8_t *bid = m->build_id.p;
	uint32_t nbid = m->build_id.n;
	char h[130], dst[4096], src[4096], why[600];
	ilog_hex(h, bid, nbid);
	snprintf(dst, sizeof(dst), "%s/.build-id/%.2s", c->dir, h);
	if (mkdirs(dst)) {
		snprintf(c->err, c->errlen, "%s: %s", dst, strerror(errno));
		return -1;
	}
	/* the module itself: from its path, build-id checked */
	snprintf(dst, sizeof(dst), "%s/.build-id/%.2s/%s", c->dir, h, h + 2);
	if (present(c, dst, bid, nbid)) {
		c->st.present++;
	} else {
		const char *root = c->o->sysroot && *c->o->sysroot ? c->o->sysroot : "";
		size_t n = sym_path_len(m->path.p, m->path.n);
		snprintf(src, sizeof(src), "%s%.*s", root, (int)n, m->path.p);
		int k = ilog_sym_check_file(src, bid, nbid, 1, why, sizeof(why));
		if (k > 0) {
			if (copy_file(c, src, dst))
				return -1;
			c->st.copied++;
		} else {
			c->st.missing++;
			if (k < 0)
				say(c, "%s; not collected", why);
			else
				say(c, "%s (build-id %s): not found; not collected", src, h);
		}
	}
	/* its separate debug info, where a debug directory has it */
	snprintf(dst, sizeof(dst), "%s/.build-id/%.2s/%s.debug", c->dir, h, h + 2);
	if (present(c, dst, bid, nbid))
		return 0;
	const char *root = c->o->sysroot && *c->o->sysroot ? c->o->sysroot : "";
	for (unsigned d = 0; d <= c->o->ndebug_dirs; d++) {
		if (d == c->o->ndebug_dirs && c->o->no_system_debug)
			break;
		if (d < c->o->ndebug_dirs)
			snprintf(src, sizeof(src), "%s/.build-id/%.2s/%s.debug", c->o->debug_dirs[d], h,
				 h + 2);
		else
			snprintf(src, sizeof(src), "%s/usr/lib/debug/.build-id/%.2s/%s.debug", root, h,
				 h + 2);
		if (ilog_sym_check_file(src, bid, nbid, 0, why, sizeof(why)) > 0) {
			if (copy_file(c, src, dst))
				return -1;
			c->st.copied++;
			break;
		}
	}
	return 0;
}

static int on_mapping(struct ilog_collect *c, const struct ilog_mapping *m)
{
	if (!m->path.n || m->path.p[0] != '/')
		return 0; /* anonymous memory, [vdso], [stack]: no file */
	uint32_t nbid = m->build_id.n;
	char h[130];
	const char *key;
	if (nbid && nbid <= 64) {
		ilog_hex(h, m->build_id.p, nbid);
		key = ilog_strpool_intern(&c->pool, h, 2 * nbid);
	} else {
		key = ilog_strpool_intern(&c->pool, m->path.p, m->path.n);
	}
	if (!key) {
		snprintf(c->err, c->errlen, "out of memory");
		return -1;
	}
	if (ilog_hmap_get(&c->seen, (uintptr_t)key, 0))
		return 0;
	if (ilog_hmap_set(&c->seen, (uintptr_t)key, 0, 0)) {
		snprintf(c->err, c->errlen, "out of memory");
		return -1;
	}
	if (!nbid || nbid > 64) {
		/* data files (fonts, locale archives) have none and need
		 * none; a code mapping without one cannot be keyed */
		if (m->prot & PROT_EXEC) {
			c->st.missing++;
			say(c, "%.*s: no build-id recorded; not collected", (int)m->path.n, m->path.p);
		}
		return 0;
	}
	return collect_one(c, m);
}

struct ilog_collect *ilog_collect_new(const struct ilog_symbolize_opts *o, const char *dir,
				      char *err, size_t errlen)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s", dir);
	if (mkdirs(path)) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return NULL;
	}
	struct ilog_collect *c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->o = o;
	c->dir = dir;
	return c;
}

int ilog_collect_add(struct ilog_collect *c, const struct ilog_mapping *m, char *err, size_t errlen)
{
	c->err = err;
	c->errlen = errlen;
	return on_mapping(c, m);
}

const struct ilog_collect_stats *ilog_collect_stats(const struct ilog_collect *c)
{
	return &c->st;
}

void ilog_collect_free(struct ilog_collect *c)
{
	if (!c)
		return;
	ilog_hmap_free(&c->seen);
	ilog_strpool_free(&c->pool);
	free(c);
}
