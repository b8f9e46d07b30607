// SPDX-License-Identifier: MIT
/*
 * The format test vectors (format/SPEC.md §11) against the code and the
 * spec.  For every tests/vectors/NAME.hex:
 *
 *  - msgpack-c's own unpacker (msgpack_unpack_next, a consumer that shares
 *    no code with lib/) parses each frame's bytes as a sequence of records
 *    of the shape §4 and §5 give, and the timestamps are decoded here by
 *    the delta rules of §4.3 without lib/codec/reader.c;
 *  - NAME.ilog holds exactly those frames (decompressed), then nothing, or
 *    a damaged frame when NAME.stderr says so;
 *  - the frames, compressed again here, read with lib/codec/reader.c and
 *    rendered with lib/codec/json.c give NAME.jsonl byte for byte, and stop
 *    with NAME.stderr's error where the damage is inside a record;
 *  - every JSON line has unique keys, "type" first, and the timestamps
 *    decoded above.
 *
 * Then the hex and JSON blocks that SPEC.md shows, tagged with a vector
 * file name, must together be that file's content.  ingero-export's own
 * output is compared with the vectors by tests/cli/vectors/export.sh.
 */
#include <dirent.h>
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>
#include <msgpack.h>
#include <zstd.h>
#include "ingero/ilog.h"
#include "ingero/schema.h"
#include "ingero/symbolize_map.h"
#include "test.h"

struct bytes { uint8_t *p; size_t n, cap; };

static void bput(struct bytes *b, const void *p, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		b->cap = (b->n + n + 1) * 2;
		if (!(b->p = realloc(b->p, b->cap)))
			abort();
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
	b->p[b->n] = 0; /* text files stay C strings */
}

static void bfree(struct bytes *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static const char *tests_dir(void)
{
	const char *t = getenv("INGERO_TESTS");
	return t && *t ? t : "tests";
}

/* A whole file; 0, or -1 if it cannot be read. */
static int slurp(const char *path, struct bytes *b)
{
	FILE *f = fopen(path, "rb");
	char t[65536];
	size_t k;
	memset(b, 0, sizeof(*b));
	if (!f)
		return -1;
	bput(b, "", 0);
	while ((k = fread(t, 1, sizeof(t), f)) > 0)
		bput(b, t, k);
	fclose(f);
	return 0;
}

static int vec_file(const char *name, const char *ext, struct bytes *b)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/vectors/%s%s", tests_dir(), name, ext);
	return slurp(p, b);
}

/* ---- NAME.hex (§11.2): "@frame" lines, hex byte pairs, "#" comments ---- */

#define MAX_FRAMES 16
struct hexfile { struct bytes fr[MAX_FRAMES]; int n; };

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* 0, or -1 with a message naming the line. */
static int parse_hex(const char *text, struct hexfile *h, char *err, size_t errlen)
{
	int line = 1;
	memset(h, 0, sizeof(*h));
	for (const char *p = text; *p; line++) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		const char *hash = memchr(p, '#', len);
		size_t n = hash ? (size_t)(hash - p) : len;
		size_t i = 0;
		while (i < n && (p[i] == ' ' || p[i] == '\t'))
			i++;
		if (n - i >= 6 && !strncmp(p + i, "@frame", 6)) {
			if (h->n == MAX_FRAMES) {
				snprintf(err, errlen, "line %d: too many frames", line);
				return -1;
			}
			h->n++;
			i += 6;
		}
		for (; i < n; i++) {
			if (p[i] == ' ' || p[i] == '\t')
				continue;
			int hi = hexval(p[i]), lo = i + 1 < n ? hexval(p[i + 1]) : -1;
			if (hi < 0 || lo < 0 || (i + 2 < n && p[i + 2] != ' ' && p[i + 2] != '\t')) {
				snprintf(err, errlen, "line %d: not a hex byte at column %zu", line, i + 1);
				return -1;
			}
			if (!h->n)
				h->n = 1; /* bytes before any @frame: the first frame */
			uint8_t byte = (uint8_t)(hi << 4 | lo);
			bput(&h->fr[h->n - 1], &byte, 1);
			i++;
		}
		p += len + (e ? 1 : 0);
	}
	return 0;
}

static void hex_free(struct hexfile *h)
{
	for (int i = 0; i < h->n; i++)
		bfree(&h->fr[i]);
}

/* ---- the records, through msgpack-c (§4, §5) ---- */

struct mrec {
	uint32_t kind;
	int known;
	int rejectable;       /* a reader must stop here (§9) */
	char why[160];
	uint64_t ts;          /* the first delta-coded field, decoded by §4.3 */
	int has_ts;
};

struct mstream { struct mrec *r; size_t n; };

static int int_value(const msgpack_object *o, uint64_t *bits, int *neg)
{
	if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER) {
		*bits = o->via.u64;
		*neg = 0;
		return 1;
	}
	if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) {
		*bits = (uint64_t)o->via.i64;
		*neg = 1;
		return 1;
	}
	return 0;
}

/* Does o have the msgpack type and range of field f (§4.2)? */
static int field_fits(const struct ilog_field *f, const msgpack_object *o, char *why, size_t wl)
{
	static const uint64_t umax[] = { UINT8_MAX, UINT16_MAX, UINT32_MAX, UINT64_MAX };
	uint64_t v;
	int neg;
	switch (f->type) {
	case FT_U8: case FT_U16: case FT_U32: case FT_U64:
		if (!int_value(o, &v, &neg) || neg || v > umax[f->type - FT_U8])
			goto bad;
		return 1;
	case FT_S32:
		if (!int_value(o, &v, &neg) || (neg ? (int64_t)v < INT32_MIN : v > INT32_MAX))
			goto bad;
		return 1;
	case FT_S64:
		if (!int_value(o, &v, &neg) || (!neg && v > INT64_MAX))
			goto bad;
		return 1;
	case FT_TS:
		if (!int_value(o, &v, &neg))
			goto bad;
		return 1;
	case FT_F64:
		if (o->type != MSGPACK_OBJECT_FLOAT64 && o->type != MSGPACK_OBJECT_FLOAT32 &&
		    !int_value(o, &v, &neg))
			goto bad;
		return 1;
	case FT_STR: case FT_CHARS:
		if (o->type != MSGPACK_OBJECT_STR)
			goto bad;
		return 1;
	case FT_BIN:
		if (o->type != MSGPACK_OBJECT_BIN)
			goto bad;
		return 1;
	case FT_ARR:
		if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size > f->max)
			goto bad;
		for (uint32_t i = 0; i < o->via.array.size; i++) {
			const msgpack_object *e = &o->via.array.ptr[i];
			if (f->nsub == 1) {
				if (!field_fits(f->sub, e, why, wl))
					goto bad;
				continue;
			}
			if (e->type != MSGPACK_OBJECT_ARRAY)
				goto bad;
			for (uint32_t j = 0; j < e->via.array.size && j < f->nsub; j++)
				if (!field_fits(&f->sub[j], &e->via.array.ptr[j], why, wl))
					goto bad;
		}
		return 1;
	}
bad:
	snprintf(why, wl, "field %s has the wrong type or range", f->name);
	return 0;
}

/*
 * Parse every frame with msgpack_unpack_next.  0 on success; -1 if the
 * bytes are not a sequence of whole msgpack values (a failure).
 */
static int msgpack_records(const struct hexfile *h, struct mstream *ms, char *err, size_t el)
{
	memset(ms, 0, sizeof(*ms));
	for (int f = 0; f < h->n; f++) {
		uint64_t base[ILOG_K__COUNT] = { 0 }; /* §4.3: each frame starts at 0 */
		size_t off = 0;
		msgpack_unpacked u;
		msgpack_unpacked_init(&u);
		while (off < h->fr[f].n) {
			msgpack_unpack_return rc = msgpack_unpack_next(&u, (const char *)h->fr[f].p,
								       h->fr[f].n, &off);
			if (rc != MSGPACK_UNPACK_SUCCESS) {
				snprintf(err, el, "frame %d: msgpack-c stops at byte %zu (code %d)",
					 f + 1, off, (int)rc);
				msgpack_unpacked_destroy(&u);
				return -1;
			}
			ms->r = realloc(ms->r, (ms->n + 1) * sizeof(*ms->r));
			struct mrec *m = &ms->r[ms->n++];
			memset(m, 0, sizeof(*m));
			const msgpack_object *o = &u.data;
			uint64_t kind;
			int neg;
			if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size == 0 ||
			    !int_value(&o->via.array.ptr[0], &kind, &neg) || neg || kind > UINT32_MAX) {
				m->rejectable = 1;
				snprintf(m->why, sizeof(m->why), "not an array starting with a kind");
				continue;
			}
			m->kind = (uint32_t)kind;
			const struct ilog_kind_desc *d = ilog_kind_desc(m->kind);
			m->known = d != NULL;
			if (!d)
				continue; /* §8.2: skipped whatever its values */
			uint32_t nv = o->via.array.size - 1;
			const msgpack_object *v = o->via.array.ptr + 1;
			uint64_t vals[2] = { 0, 0 };
			for (uint32_t i = 0; i < nv && i < d->nfields; i++) {
				const struct ilog_field *fd = &d->fields[i];
				if (!m->rejectable && !field_fits(fd, &v[i], m->why, sizeof(m->why)))
					m->rejectable = 1;
				uint64_t bits = 0;
				int ng;
				if (!int_value(&v[i], &bits, &ng))
					continue;
				if (fd->type == FT_TS && !m->rejectable) {
					bits += base[m->kind];
					base[m->kind] = bits;
					if (!m->has_ts) {
						m->ts = bits;
						m->has_ts = 1;
					}
				} else if (!strcmp(fd->name, "ts_ns") && !m->rejectable && !m->has_ts) {
					/* a kind after 1.0 (inflight): the time itself */
					m->ts = bits;
					m->has_ts = 1;
				}
				if (i < 2)
					vals[i] = bits;
			}
			/* §4.3: cuda's next base is this call's end (missing = 0) */
			if (m->kind == ILOG_K_CUDA)
				base[ILOG_K_CUDA] = vals[0] + vals[1];
			if (m->kind == ILOG_K_HEADER && nv >= 2 &&
			    int_value(&v[1], &kind, &neg) && !neg && kind > ILOG_VERSION_MAJOR) {
				m->rejectable = 1; /* §8.3 */
				snprintf(m->why, sizeof(m->why), "header of major %" PRIu64, kind);
			}
		}
		msgpack_unpacked_destroy(&u);
	}
	return 0;
}

/* ---- NAME.ilog (§3) ---- */

/*
 * Walk the .ilog's frames: data frames must decompress to the .hex frames
 * in order, skippable ones are passed over.  Returns 1 if the file ends
 * cleanly after them, 0 if a damaged frame follows the last good one,
 * -1 on a mismatch (err filled).
 */
static int ilog_matches(const struct bytes *log, const struct hexfile *h, char *err, size_t el)
{
	size_t off = 0;
	int f = 0;
	while (off < log->n) {
		size_t cs = ZSTD_findFrameCompressedSize(log->p + off, log->n - off);
		if (ZSTD_isError(cs))
			break;
		uint32_t magic;
		memcpy(&magic, log->p + off, 4);
		if ((magic & ZSTD_MAGIC_SKIPPABLE_MASK) == ZSTD_MAGIC_SKIPPABLE_START) {
			off += cs;
			continue;
		}
		unsigned long long sz = ZSTD_getFrameContentSize(log->p + off, cs);
		if (sz == ZSTD_CONTENTSIZE_UNKNOWN || sz == ZSTD_CONTENTSIZE_ERROR) {
			snprintf(err, el, "frame at %zu: no content size (§3.1)", off);
			return -1;
		}
		uint8_t *d = malloc(sz + 1);
		size_t got = ZSTD_decompress(d, sz, log->p + off, cs);
		if (ZSTD_isError(got)) {
			free(d);
			break;
		}
		if (f >= h->n || got != h->fr[f].n || memcmp(d, h->fr[f].p, got)) {
			snprintf(err, el, "frame %d at byte %zu: content differs from the .hex", f + 1, off);
			free(d);
			return -1;
		}
		free(d);
		f++;
		off += cs;
	}
	if (f != h->n) {
		snprintf(err, el, "the .ilog has %d good frames, the .hex %d", f, h->n);
		return -1;
	}
	return off == log->n;
}

/* ---- our reader over the .hex frames (§3, §9) ---- */

static int mem_fd(const struct bytes *b)
{
	int fd = memfd_create("vector", MFD_CLOEXEC);
	if (fd < 0 || write(fd, b->p, b->n) != (ssize_t)b->n)
		abort();
	lseek(fd, 0, SEEK_SET);
	return fd;
}

/* Compress each frame as a writer must (§3.1): content size and checksum. */
static void compress_frames(const struct hexfile *h, struct bytes *out)
{
	ZSTD_CCtx *z = ZSTD_createCCtx();
	ZSTD_CCtx_setParameter(z, ZSTD_c_checksumFlag, 1);
	ZSTD_CCtx_setParameter(z, ZSTD_c_contentSizeFlag, 1);
	memset(out, 0, sizeof(*out));
	for (int f = 0; f < h->n; f++) {
		size_t cap = ZSTD_compressBound(h->fr[f].n);
		uint8_t *c = malloc(cap);
		size_t k = ZSTD_compress2(z, c, cap, h->fr[f].p, h->fr[f].n);
		if (ZSTD_isError(k))
			abort();
		bput(out, c, k);
		free(c);
	}
	ZSTD_freeCCtx(z);
}

/* Render every record as the jsonl sink of ingero-export does (§6: the
 * record, then the frames of §6.4); the error (if any) in err. */
static int read_render(const struct bytes *log, struct bytes *json, char *err, size_t el)
{
	int fd = mem_fd(log);
	char e[256];
	struct ilog_reader *r = ilog_reader_open(fd, e, sizeof(e));
	struct ilog_symmap *sym = ilog_symmap_new();
	const struct ilog_record *rec;
	struct ilog_buf b = { 0 };
	int k;
	if (!r || !sym)
		abort();
	memset(json, 0, sizeof(*json));
	bput(json, "", 0);
	err[0] = 0;
	int first = 0; /* the first damage: reported; reading goes on (SPEC §9) */
	while ((k = ilog_reader_next(r, &rec)) > 0 || k == ILOG_READ_DAMAGE) {
		if (k < 0) {
			if (!first)
				first = k, snprintf(err, el, "%s", ilog_reader_error(r));
			continue;
		}
		b.len = 0;
		if (ilog_symmap_note(sym, rec) || ilog_json_record(&b, rec, r) ||
		    ilog_symmap_json(sym, &b, rec))
			abort();
		bput(json, b.p, b.len);
		bput(json, "\n", 1);
	}
	if (k < 0)
		snprintf(err, el, "%s", ilog_reader_error(r));
	ilog_buf_free(&b);
	ilog_symmap_free(sym);
	ilog_reader_close(r);
	close(fd);
	return first ? first : k;
}

/* The problem after "offset N: ", the part that does not depend on how
 * the frames were compressed. */
static const char *after_offset(const char *s)
{
	const char *p = strstr(s, "offset ");
	if (!p)
		return s;
	p += 7;
	while (*p >= '0' && *p <= '9')
		p++;
	return *p == ':' ? p + 2 : s;
}

/* ---- JSON lines (§6) ---- */

/* Skip one JSON value; NULL if malformed. */
static const char *json_skip(const char *p)
{
	int depth = 0;
	do {
		switch (*p) {
		case '"':
			for (p++; *p && *p != '"'; p++)
				if (*p == '\\' && p[1])
					p++;
			if (!*p)
				return NULL;
			p++;
			break;
		case '{': case '[': depth++; p++; break;
		case '}': case ']': depth--; p++; break;
		case ',': case ':': p++; break;
		case 0: return NULL;
		default:
			while (*p && !strchr(",]}", *p))
				p++;
		}
	} while (depth > 0);
	return p;
}

/*
 * Check one line: an object, keys unique, "type" first.  Returns the
 * number of top-level members, or -1 (why filled).  The value of key
 * `want` (if given) is copied to val.
 */
static int json_members(const char *line, const char *want, char *val, size_t vl,
			char keys[][48], int maxkeys, char *why, size_t wl)
{
	const char *p = line;
	int n = 0;
	if (*p++ != '{') {
		snprintf(why, wl, "not an object");
		return -1;
	}
	while (*p == '"') {
		const char *k = ++p;
		while (*p && *p != '"')
			p++;
		size_t kl = (size_t)(p - k);
		if (*p++ != '"' || *p++ != ':' || kl >= 48) {
			snprintf(why, wl, "bad key");
			return -1;
		}
		for (int i = 0; i < n && i < maxkeys; i++)
			if (strlen(keys[i]) == kl && !memcmp(keys[i], k, kl)) {
				snprintf(why, wl, "key \"%.*s\" twice", (int)kl, k);
				return -1;
			}
		if (n < maxkeys)
			snprintf(keys[n], 48, "%.*s", (int)kl, k);
		const char *v = p;
		if (!(p = json_skip(p))) {
			snprintf(why, wl, "bad value of \"%.*s\"", (int)kl, k);
			return -1;
		}
		if (want && strlen(want) == kl && !memcmp(want, k, kl))
			snprintf(val, vl, "%.*s", (int)(p - v), v);
		n++;
		if (*p == ',')
			p++;
	}
	if (*p != '}' || p[1]) {
		snprintf(why, wl, "junk at column %zu", (size_t)(p - line) + 1);
		return -1;
	}
	return n;
}

/* Lines of the .jsonl against the msgpack-c view of the same records. */
static void check_json(const char *name, const struct bytes *jsonl, const struct mstream *ms)
{
	struct check ck;
	char *copy = strdup((const char *)jsonl->p), *save = NULL;
	size_t i = 0;
	check_begin(&ck);
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save), i++) {
		char keys[64][48], why[128], ts[64] = "", type[80] = "";
		int n = json_members(line, "ts_ns", ts, sizeof(ts), keys, 64, why, sizeof(why));
		if (n < 0) {
			check_fail(&ck, "line %zu: %s", i + 1, why);
			continue;
		}
		json_members(line, "type", type, sizeof(type), keys, 64, why, sizeof(why));
		if (n == 0 || strcmp(keys[0], "type")) {
			check_fail(&ck, "line %zu: \"type\" is not the first key", i + 1);
			continue;
		}
		if (i >= ms->n) {
			check_fail(&ck, "line %zu: more lines than records", i + 1);
			continue;
		}
		const struct mrec *m = &ms->r[i];
		char want[80];
		snprintf(want, sizeof(want), "\"%s\"", m->known ? ilog_kind_name(m->kind) : "");
		if (m->known && strcmp(type, want))
			check_fail(&ck, "line %zu: type %s, the record's kind is %s", i + 1, type, want);
		if (m->has_ts && strtoull(ts, NULL, 10) != m->ts)
			check_fail(&ck, "line %zu: ts_ns %s, §4.3 decodes %" PRIu64, i + 1, ts, m->ts);
		if (!m->has_ts && ts[0] && m->known)
			check_fail(&ck, "line %zu: ts_ns %s on a record without one", i + 1, ts);
	}
	free(copy);
	check_end(&ck, "%s: JSON lines: unique keys, type first, ts_ns as §4.3 decodes", name);
}

/* The first line where two texts differ, both versions. */
static void diag_first_difference(const struct bytes *got, const struct bytes *want)
{
	size_t i = 0, line = 1, start = 0;
	while (i < got->n && i < want->n && got->p[i] == want->p[i]) {
		if (got->p[i] == '\n') {
			line++;
			start = i + 1;
		}
		i++;
	}
	int gl = (int)strcspn((const char *)got->p + start, "\n");
	int wl = (int)strcspn((const char *)want->p + start, "\n");
	diag("line %zu, byte %zu differs", line, i - start);
	diag("got  %.*s", gl, (const char *)got->p + start);
	diag("want %.*s", wl, (const char *)want->p + start);
}

static void one_vector(const char *name)
{
	struct bytes hex, log, jsonl, stderr_b = { 0 }, again, json;
	struct hexfile h;
	struct mstream ms = { 0 };
	char err[512];
	int has_stderr;
	if (vec_file(name, ".hex", &hex) || vec_file(name, ".ilog", &log) ||
	    vec_file(name, ".jsonl", &jsonl)) {
		ok(0, "%s: .hex, .ilog and .jsonl present", name);
		return;
	}
	has_stderr = vec_file(name, ".stderr", &stderr_b) == 0;
	if (!ok(parse_hex((const char *)hex.p, &h, err, sizeof(err)) == 0 && h.n > 0,
		"%s.hex parses", name)) {
		diag("%s", err);
		goto out;
	}

	/* (a) msgpack-c */
	int mrc = msgpack_records(&h, &ms, err, sizeof(err));
	if (!ok(mrc == 0, "%s: msgpack-c unpacks every frame into whole values", name))
		diag("%s", err);
	size_t nlines = 0;
	for (size_t i = 0; i < jsonl.n; i++)
		nlines += jsonl.p[i] == '\n';
	size_t firstbad = ms.n;
	for (size_t i = 0; i < ms.n; i++)
		if (ms.r[i].rejectable) {
			firstbad = i;
			break;
		}

	/* the .ilog holds these frames */
	int clean = ilog_matches(&log, &h, err, sizeof(err));
	if (!ok(clean >= 0, "%s.ilog decompresses to the frames of %s.hex", name, name))
		diag("%s", err);

	/* (b) our reader over the frames compressed again */
	compress_frames(&h, &again);
	int k = read_render(&again, &json, err, sizeof(err));
	if (!ok(json.n == jsonl.n && !memcmp(json.p, jsonl.p, jsonl.n),
		"%s: lib/codec/reader.c + lib/codec/json.c over the .hex give %s.jsonl", name, name))
		diag_first_difference(&json, &jsonl);
	if (k < 0) {
		const char *want = has_stderr ? after_offset((const char *)stderr_b.p) : "";
		char w[512];
		snprintf(w, sizeof(w), "%s", want);
		w[strcspn(w, "\n")] = 0;
		is_str(after_offset(err), w, "%s: the reader reports %s.stderr's error", name, name);
		ok(firstbad <= nlines && firstbad < ms.n,
		   "%s: it reports the first record msgpack-c finds against §4-§5, and goes on after its frame (record %zu of %zu)",
		   name, firstbad, ms.n);
	} else {
		ok(firstbad == ms.n, "%s: every record has the shape §4-§5 give", name);
		if (firstbad < ms.n)
			diag("record %zu: %s", firstbad, ms.r[firstbad].why);
		ok(nlines == ms.n, "%s: one JSON line per record (%zu lines, %zu records)", name,
		   nlines, ms.n);
		ok(has_stderr == (clean == 0),
		   "%s: %s.stderr exists exactly when the .ilog's framing is damaged", name, name);
	}
	check_json(name, &jsonl, &ms);
	bfree(&again);
	bfree(&json);
out:
	free(ms.r);
	hex_free(&h);
	bfree(&hex);
	bfree(&log);
	bfree(&jsonl);
	bfree(&stderr_b);
}

static void spec_tables(const char *spec);

/* ---- SPEC.md's examples are the vector files (§11) ---- */

struct shown { char file[128]; struct bytes text; };

static void spec_blocks(void)
{
	char path[4096];
	struct bytes spec;
	struct shown sh[32];
	int ns = 0;
	snprintf(path, sizeof(path), "%s/../format/SPEC.md", tests_dir());
	if (!ok(slurp(path, &spec) == 0, "format/SPEC.md is readable"))
		return;
	memset(sh, 0, sizeof(sh));
	/* fenced blocks whose info string names tests/vectors/FILE */
	char *p = (char *)spec.p;
	int unterminated = 0;
	while ((p = strstr(p, "```"))) {
		if (p != (char *)spec.p && p[-1] != '\n') {
			p += 3;
			continue;
		}
		char *eol = strchr(p, '\n');
		if (!eol)
			break;
		char *end = strstr(eol, "\n```");
		if (!end) {
			unterminated = 1;
			break;
		}
		char *tag = memmem(p, (size_t)(eol - p), "tests/vectors/", 14);
		if (tag) {
			char file[128];
			size_t fl = strcspn(tag + 14, " \t\n");
			snprintf(file, sizeof(file), "%.*s", (int)fl, tag + 14);
			int i;
			for (i = 0; i < ns && strcmp(sh[i].file, file); i++)
				;
			if (i == ns && ns < 32)
				snprintf(sh[ns++].file, sizeof(sh[0].file), "%s", file);
			if (i < 32)
				bput(&sh[i].text, eol + 1, (size_t)(end + 1 - (eol + 1)));
		}
		p = strchr(end + 1, '\n');
		if (!p)
			break;
		p++;
	}
	ok(!unterminated, "SPEC.md: every fenced block is closed");
	spec_tables((const char *)spec.p);
	ok(ns >= 4, "SPEC.md shows vector files (%d of them)", ns);
	for (int i = 0; i < ns; i++) {
		struct bytes f;
		char vp[4096];
		snprintf(vp, sizeof(vp), "%s/vectors/%s", tests_dir(), sh[i].file);
		if (slurp(vp, &f)) {
			ok(0, "SPEC.md shows tests/vectors/%s, which exists", sh[i].file);
			continue;
		}
		int same = f.n == sh[i].text.n && !memcmp(f.p, sh[i].text.p, f.n);
		if (!ok(same, "SPEC.md's blocks of tests/vectors/%s are its content", sh[i].file)) {
			size_t j = 0;
			while (j < f.n && j < sh[i].text.n && f.p[j] == sh[i].text.p[j])
				j++;
			diag("first difference at byte %zu of %zu (SPEC shows %zu bytes); "
			     "regenerate with tests/vectors/regen.sh and copy the file into SPEC.md",
			     j, f.n, sh[i].text.n);
		}
		bfree(&f);
		bfree(&sh[i].text);
	}
	bfree(&spec);
}

/* ---- SPEC.md's tables are the code's (§5) ---- */

static const char *const wire_names[] = {
	[FT_U8] = "u8", [FT_U16] = "u16", [FT_U32] = "u32", [FT_U64] = "u64",
	[FT_S32] = "s32", [FT_S64] = "s64", [FT_F64] = "f64", [FT_STR] = "str",
	[FT_BIN] = "bin", [FT_CHARS] = "chars", [FT_TS] = "ts", [FT_ARR] = "array",
};

/* The type column §5 must show for a field: "u32", "array<str>, ≤ 64",
 * "array<[`code` u64, `lasti` u32]>, ≤ 32". */
static void wire_type(const struct ilog_field *f, char *out, size_t n)
{
	if (f->type != FT_ARR) {
		snprintf(out, n, "%s", wire_names[f->type]);
		return;
	}
	size_t o = (size_t)snprintf(out, n, "array<");
	if (f->nsub == 1) {
		o += (size_t)snprintf(out + o, n - o, "%s", wire_names[f->sub->type]);
	} else {
		o += (size_t)snprintf(out + o, n - o, "[");
		for (unsigned i = 0; i < f->nsub && o < n; i++)
			o += (size_t)snprintf(out + o, n - o, "%s`%s` %s", i ? ", " : "",
					      f->sub[i].name, wire_names[f->sub[i].type]);
		o += (size_t)snprintf(out + o, n - o, "]");
	}
	snprintf(out + o, n - o, ">, \u2264 %u", f->max);
}

/* Split a table row "| a | b | ... |" into trimmed cells; the count. */
static int cells(const char *line, char c[][256], int max)
{
	int n = 0;
	if (*line != '|')
		return 0;
	for (const char *p = line + 1; *p && *p != '\n' && n < max;) {
		const char *e = p;
		while (*e && *e != '|' && *e != '\n')
			e++;
		if (*e != '|')
			break;
		while (p < e && *p == ' ')
			p++;
		const char *q = e;
		while (q > p && q[-1] == ' ')
			q--;
		snprintf(c[n++], 256, "%.*s", (int)(q - p), p);
		p = e + 1;
	}
	return n;
}

/* "`name`" -> "name" */
static const char *unquote(char *s)
{
	size_t l = strlen(s);
	if (l >= 2 && s[0] == '`' && s[l - 1] == '`') {
		s[l - 1] = 0;
		return s + 1;
	}
	return s;
}

/*
 * Every kind's field table in §5 (position, name, type) against the kind
 * tables of lib/codec/schema.c, and the kind, op and host-type tables against
 * the names lib/ uses, so a field appended to the code without the spec
 * (or the other way round) fails here.
 */
static void spec_tables(const char *spec)
{
	struct check fk, kk, ok_ops, hk, wk;
	int kinds_seen = 0, ops_seen = 0, hosts_seen = 0, waits_seen = 0;
	int fields_seen[ILOG_K__COUNT] = { 0 };
	int kind = -1;     /* the §5.K section we are in */
	int table = 0;     /* 1 fields, 2 kinds, 3 ops, 4 host types, 5 wait classes */
	char c[10][256];
	check_begin(&fk);
	check_begin(&kk);
	check_begin(&ok_ops);
	check_begin(&hk);
	check_begin(&wk);
	for (const char *line = spec; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (!strncmp(line, "#", 1)) {
			int k;
			kind = sscanf(line, "### 5.%*d %*s (kind %d)", &k) == 1 ? k : -1;
			table = 0;
			continue;
		}
		int n = cells(line, c, 10);
		if (n == 0) {
			table = table < 0 ? 0 : table;
			continue;
		}
		if (!strcmp(c[0], "#") && n >= 3 && !strcmp(c[1], "field"))
			table = kind > 0 ? 1 : 0;
		else if (!strcmp(c[0], "kind") && n >= 2 && !strcmp(c[1], "name"))
			table = 2;
		else if (!strcmp(c[0], "op") && n >= 3 && !strcmp(c[1], "name"))
			table = 3;
		else if (!strcmp(c[0], "type") && n >= 2 && !strcmp(c[1], "name"))
			table = 4;
		else if (!strcmp(c[0], "class") && n >= 2 && !strcmp(c[1], "name"))
			table = 5;
		if (!table || c[0][0] < '0' || c[0][0] > '9')
			continue;
		int num = atoi(c[0]);
		const char *name = unquote(c[1]);
		if (table == 1) {
			const struct ilog_kind_desc *d = ilog_kind_desc((uint32_t)kind);
			char want[256];
			if (!d || num < 1 || num > d->nfields) {
				check_fail(&fk, "§5 kind %d: field %d (%s) is not in lib/codec/schema.c", kind, num, name);
				continue;
			}
			const struct ilog_field *f = &d->fields[num - 1];
			wire_type(f, want, sizeof(want));
			if (strcmp(name, f->name) || strcmp(c[2], want))
				check_fail(&fk, "§5 kind %d field %d: SPEC says %s %s, lib/codec/schema.c %s %s",
					   kind, num, name, c[2], f->name, want);
			if (num != fields_seen[kind] + 1)
				check_fail(&fk, "§5 kind %d: field %d out of order", kind, num);
			fields_seen[kind] = num;
		} else if (table == 2) {
			const char *want = num > 0 ? ilog_kind_name((uint32_t)num) : NULL;
			if (num > 0 && (!want || strcmp(want, name)))
				check_fail(&kk, "§5 kind %d: SPEC says %s, lib says %s", num, name,
					   want ? want : "(none)");
			kinds_seen += num > 0;
		} else if (table == 3) {
			const char *want = ilog_op_name((uint32_t)num);
			const char *layer = num ? ilog_layer_name(ilog_op_layer((uint32_t)num)) : "any";
			if (!want || strcmp(want, name) || strcmp(c[2], layer))
				check_fail(&ok_ops, "§5.4 op %d: SPEC says %s (%s), lib says %s (%s)", num,
					   name, c[2], want ? want : "(none)", layer ? layer : "?");
			ops_seen++;
		} else if (table == 4) {
			const char *want = ilog_host_type_name((uint32_t)num);
			if (!want || strcmp(want, name))
				check_fail(&hk, "§5.5 host type %d: SPEC says %s, lib says %s", num, name,
					   want ? want : "(none)");
			hosts_seen++;
		} else if (table == 5) {
			const char *want = ilog_wait_class_name((uint32_t)num);
			if (!want || strcmp(want, name))
				check_fail(&wk, "§5.5 wait class %d: SPEC says %s, lib says %s", num, name,
					   want ? want : "(none)");
			waits_seen++;
		}
	}
	for (uint32_t k = 1; k < ILOG_K__COUNT; k++) {
		const struct ilog_kind_desc *d = ilog_kind_desc(k);
		if (d && fields_seen[k] != d->nfields)
			check_fail(&fk, "§5 kind %u (%s): SPEC lists %d fields, lib/codec/schema.c has %u", k,
				   d->name, fields_seen[k], d->nfields);
	}
	/* §8.2: a kind added after 1.0 (whose last was 16, node) is not delta
	 * coded, so a reader that does not know it keeps its bases */
	for (uint32_t k = ILOG_K_NODE + 1; k < ILOG_K__COUNT; k++) {
		const struct ilog_kind_desc *d = ilog_kind_desc(k);
		for (unsigned i = 0; d && i < d->nfields; i++)
			if (d->fields[i].type == FT_TS)
				check_fail(&fk, "kind %u (%s), added after 1.0: field %s is delta coded "
						"(ts), §8.2 forbids it", k, d->name, d->fields[i].name);
	}
	int nkinds = 0;
	for (uint32_t k = 1; k < ILOG_K__COUNT; k++)
		nkinds += ilog_kind_desc(k) != NULL;
	if (kinds_seen != nkinds)
		check_fail(&kk, "§5 lists %d kinds, lib has %d", kinds_seen, nkinds);
	if (ops_seen != ILOG_OP__COUNT)
		check_fail(&ok_ops, "§5.4 lists %d ops, lib has %d", ops_seen, ILOG_OP__COUNT);
	if (hosts_seen != ILOG_HOST__COUNT - 1)
		check_fail(&hk, "§5.5 lists %d host types, lib has %d", hosts_seen, ILOG_HOST__COUNT - 1);
	check_end(&fk, "SPEC.md §5: every kind's fields, in order and type, are lib/codec/schema.c's");
	check_end(&kk, "SPEC.md §5: the kind numbers and names are lib's");
	check_end(&ok_ops, "SPEC.md §5.4: the op numbers, names and layers are lib's");
	if (waits_seen != ILOG_WAIT__COUNT)
		check_fail(&wk, "§5.5 lists %d wait classes, lib has %d", waits_seen, ILOG_WAIT__COUNT);
	check_end(&hk, "SPEC.md §5.5: the host event types are lib's");
	check_end(&wk, "SPEC.md §5.5: the wait classes are lib's");
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/vectors", tests_dir());
	DIR *d = opendir(dir);
	if (!ok(d != NULL, "%s is readable", dir))
		return done_testing();
	char *names[64];
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < 64) {
		size_t l = strlen(e->d_name);
		if (l > 4 && !strcmp(e->d_name + l - 4, ".hex"))
			names[n++] = strndup(e->d_name, l - 4);
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof(names[0]), by_name);
	ok(n >= 8, "tests/vectors has the vectors (%d)", n);
	for (int i = 0; i < n; i++) {
		one_vector(names[i]);
		free(names[i]);
	}
	spec_blocks();
	return done_testing();
}
