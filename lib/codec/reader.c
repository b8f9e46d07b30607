// SPDX-License-Identifier: MIT
/*
 * The streaming reader (SPEC §3, §4, §9).  Input is read in chunks; each
 * zstd frame is located with ZSTD_findFrameCompressedSize, decompressed
 * whole (writers record its content size), and its msgpack records are
 * decoded in place: strings and bytes are views into the frame buffer.
 * On damage the reader returns every record before it, then one error
 * naming the offset and the range it skipped, and goes on at the next
 * frame that decompresses and verifies its checksum (SPEC §9): frames are
 * independent, so a flipped bit costs its own frame and no other.
 *
 * Read-ahead (ilog_reader_readahead): a helper thread decompresses the
 * frame after the one being decoded, from a copy of its bytes, so a
 * reader of one log at a time has zstd on a second CPU.  The frame is
 * still located and checked here as before; only the decompression is
 * the helper's, and one that failed is done again here, so errors, their
 * offsets and the records read are the same with it or without.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>
#include "ingero/buf.h"
#include "ingero/mpread.h"
#include "ingero/schema.h"
#include "ingero/vec.h"

#define CHUNK (1u << 20)
#define MAX_NODES 65536
#define NAMED_OPS (ILOG_OP_MAX - ILOG_OP_NAMED_FIRST)

struct node_slot {
	int has_hdr, has_anchor;
	/* SPEC §5.17: this section's op numbers >= ILOG_OP_NAMED_FIRST to the
	 * program's (ilog_op_intern); 0 = not named; NULL until an opname */
	uint16_t *opmap;
	struct ilog_header hdr;   /* strings point into strs */
	char *strs;
	uint64_t a_mono, a_real;
};

struct schema_slot {
	struct ilog_schema s;
	char *strs;
};

/* The read-ahead helper's one job: the frame at `off`, its bytes in src,
 * decompressed into dst (room for sz bytes, as its header says; got:
 * zstd's result).  state: 0 no job, 1 posted, 2 done; under mu. */
struct readahead {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int state, quit, may_read;
	uint64_t off;
	struct ilog_buf src, dst;
	size_t sz, got;
	ZSTD_DCtx *dctx;
};

struct ilog_reader {
	int fd, eof;
	struct readahead *ra;     /* NULL: none (ilog_reader_readahead) */
	uint8_t *in;              /* input bytes [in_pos, in_len) not yet used */
	size_t in_len, in_pos, in_cap;
	uint64_t in_off;          /* file offset of in[0] */
	ZSTD_DCtx *dctx;
	uint8_t *fr;              /* decompressed frame */
	size_t fr_len, fr_cap;
	const uint8_t *fp;        /* next record in fr */
	uint64_t fr_off;          /* file offset of the current frame */
	uint64_t fr_size;         /* its compressed size */
	uint32_t fr_idx;          /* records decoded from the current frame */
	uint64_t tsbase[ILOG_K__COUNT];
	struct ilog_record rec;
	int state;                /* 0 reading, 1 done, -1 failed */
	int dmg_shown;            /* err is a damage just reported (ILOG_READ_DAMAGE) */
	int dmg_end;              /* that damage ran to the end of input */
	struct ilog_damage dmg;   /* the last damage */
	uint64_t content_bytes;   /* decompressed bytes of the frames loaded */
	int seen_header;
	uint32_t node;
	struct node_slot *nodes;   /* zeroed beyond nnodes */
	uint32_t nnodes, capnodes;
	struct schema_slot *schemas;
	uint32_t nschemas, capschemas;
	struct ilog_reader_stats st;
	char err[640];
};

static int fail(struct ilog_reader *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	r->state = -1;
	return -1;
}

/* A problem with the frame at the read position: its text into err, for
 * damage() to complete; ILOG_READ_DAMAGE. */
static int problem(struct ilog_reader *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	return ILOG_READ_DAMAGE;
}

struct ilog_reader *ilog_reader_open(int fd, char *err, size_t errlen)
{
	struct ilog_reader *r = calloc(1, sizeof(*r));
	if (!r || !(r->in = malloc(CHUNK)) || !(r->dctx = ZSTD_createDCtx())) {
		snprintf(err, errlen, "out of memory");
		if (r) {
			free(r->in);
			free(r);
		}
		return NULL;
	}
	r->fd = fd;
	r->in_cap = CHUNK;
	return r;
}

void ilog_reader_close(struct ilog_reader *r)
{
	if (!r)
		return;
	for (uint32_t i = 0; i < r->nnodes; i++) {
		free(r->nodes[i].strs);
		free(r->nodes[i].opmap);
	}
	for (uint32_t i = 0; i < r->nschemas; i++)
		free(r->schemas[i].strs);
	free(r->nodes);
	free(r->schemas);
	if (r->ra) {
		pthread_mutex_lock(&r->ra->mu);
		r->ra->quit = 1;
		pthread_cond_broadcast(&r->ra->cv);
		pthread_mutex_unlock(&r->ra->mu);
		pthread_join(r->ra->th, NULL);
		pthread_mutex_destroy(&r->ra->mu);
		pthread_cond_destroy(&r->ra->cv);
		ZSTD_freeDCtx(r->ra->dctx);
		ilog_buf_free(&r->ra->src);
		ilog_buf_free(&r->ra->dst);
		free(r->ra);
	}
	ZSTD_freeDCtx(r->dctx);
	free(r->in);
	free(r->fr);
	free(r);
}

/* Make at least `need` unread bytes available unless input ends first.
 * Returns the unread byte count, or -1 on a read error. */
static ssize_t fill(struct ilog_reader *r, size_t need)
{
	for (;;) {
		size_t avail = r->in_len - r->in_pos;
		if (avail >= need || r->eof)
			return (ssize_t)avail;
		if (r->in_pos) {
			memmove(r->in, r->in + r->in_pos, avail);
			r->in_off += r->in_pos;
			r->in_len = avail;
			r->in_pos = 0;
		}
		if (r->in_cap - r->in_len < CHUNK / 4 || r->in_cap < need) {
			size_t cap = r->in_cap * 2;
			while (cap < need)
				cap *= 2;
			uint8_t *p = realloc(r->in, cap);
			if (!p) {
				errno = ENOMEM;
				return -1;
			}
			r->in = p;
			r->in_cap = cap;
		}
		ssize_t k = read(r->fd, r->in + r->in_len, r->in_cap - r->in_len);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (k == 0)
			r->eof = 1;
		r->in_len += (size_t)k;
	}
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void *ra_main(void *arg)
{
	struct readahead *ra = arg;
	pthread_mutex_lock(&ra->mu);
	for (;;) {
		while (ra->state != 1 && !ra->quit)
			pthread_cond_wait(&ra->cv, &ra->mu);
		if (ra->quit)
			break;
		pthread_mutex_unlock(&ra->mu);
		size_t got = ZSTD_decompressDCtx(ra->dctx, ra->dst.p, ra->dst.cap, ra->src.p,
						 ra->src.len);
		pthread_mutex_lock(&ra->mu);
		ra->got = got;
		ra->state = 2;
		pthread_cond_broadcast(&ra->cv);
	}
	pthread_mutex_unlock(&ra->mu);
	return NULL;
}

int ilog_reader_readahead(struct ilog_reader *r)
{
	if (r->ra)
		return 0;
	struct readahead *ra = calloc(1, sizeof(*ra));
	if (!ra || !(ra->dctx = ZSTD_createDCtx()))
		goto fail;
	pthread_mutex_init(&ra->mu, NULL);
	pthread_cond_init(&ra->cv, NULL);
	if (pthread_create(&ra->th, NULL, ra_main, ra)) {
		pthread_mutex_destroy(&ra->mu);
		pthread_cond_destroy(&ra->cv);
		goto fail;
	}
	/* a file's next bytes can be read ahead at no wait; a pipe's (a
	 * live recording) may not have been written yet */
	struct stat st;
	ra->may_read = !fstat(r->fd, &st) && S_ISREG(st.st_mode);
	r->ra = ra;
	return 0;
fail:
	if (ra)
		ZSTD_freeDCtx(ra->dctx);
	free(ra);
	return -1;
}

/* Wait for the helper's job; 1 and the frame's content in r->fr if it is
 * the frame at off, of sz bytes, decompressed whole; else 0. */
static int ra_take(struct ilog_reader *r, uint64_t off, size_t sz)
{
	struct readahead *ra = r->ra;
	if (!ra)
		return 0;
	pthread_mutex_lock(&ra->mu);
	while (ra->state == 1)
		pthread_cond_wait(&ra->cv, &ra->mu);
	int ok = ra->state == 2 && ra->off == off && ra->sz == sz && !ZSTD_isError(ra->got) &&
		 ra->got == sz;
	ra->state = 0;
	pthread_mutex_unlock(&ra->mu);
	if (!ok)
		return 0;
	uint8_t *f = r->fr;
	size_t cap = r->fr_cap;
	r->fr = (uint8_t *)ra->dst.p;
	r->fr_cap = ra->dst.cap;
	ra->dst = (struct ilog_buf){ (char *)f, 0, cap };
	return 1;
}

/* After a frame is loaded: the next one, if it is a whole data frame in
 * the input (a file's read on for it), goes to the helper. */
static void ra_post(struct ilog_reader *r)
{
	struct readahead *ra = r->ra; /* idle: ra_take ran for this frame */
	size_t avail = r->in_len - r->in_pos, cs;
	for (;;) {
		if (avail < 8 || le32(r->in + r->in_pos) != ZSTD_MAGICNUMBER)
			return;
		cs = ZSTD_findFrameCompressedSize(r->in + r->in_pos, avail);
		if (!ZSTD_isError(cs))
			break;
		if (ZSTD_getErrorCode(cs) != ZSTD_error_srcSize_wrong || !ra->may_read || r->eof ||
		    avail > ZSTD_compressBound(ILOG_MAX_FRAME_CONTENT) + 64)
			return;
		ssize_t k = fill(r, avail + 1);
		if (k < 0 || (size_t)k <= avail)
			return;
		avail = (size_t)k;
	}
	const uint8_t *p = r->in + r->in_pos;
	unsigned long long sz = ZSTD_getFrameContentSize(p, cs);
	if (sz > ILOG_MAX_FRAME_CONTENT) /* the errors too: the reader says them */
		return;
	ra->src.len = 0;
	if (ilog_buf_put(&ra->src, p, cs) || ilog_buf_reserve(&ra->dst, (size_t)sz))
		return;
	pthread_mutex_lock(&ra->mu);
	ra->off = r->in_off + r->in_pos;
	ra->sz = sz;
	ra->state = 1;
	pthread_cond_broadcast(&ra->cv);
	pthread_mutex_unlock(&ra->mu);
}

/*
 * Load the frame at the read position: 1 loaded (possibly empty), 0 clean
 * end, -1 failed (r->err set, fatal), or ILOG_READ_DAMAGE: the bytes there
 * are no good frame (r->err says why, the read position is unchanged).
 * A skippable frame is stepped over.  `strict` is for the search after
 * damage: only a data frame with a checksum that verifies will do, and
 * nothing is said about the rest.
 */
static int load_frame(struct ilog_reader *r, int strict)
{
	for (;;) {
		ssize_t avail = fill(r, 8);
		uint64_t off = r->in_off + r->in_pos;
		if (avail < 0)
			return fail(r, "offset %llu: read error: %s", (unsigned long long)off,
				    strerror(errno));
		if (avail == 0)
			return 0;
		const uint8_t *p = r->in + r->in_pos;
		uint32_t magic = avail >= 4 ? le32(p) : 0;
		/* RFC 8878 3.1.1.1.1: the frame header descriptor's bit 2 is
		 * the checksum flag, bit 3 reserved (0) */
		if (strict && (magic != ZSTD_MAGICNUMBER || avail < 5 || (p[4] & 0x0c) != 0x04))
			return ILOG_READ_DAMAGE;
		if (avail < 4 || (magic != ZSTD_MAGICNUMBER &&
				  (magic & ZSTD_MAGIC_SKIPPABLE_MASK) != ZSTD_MAGIC_SKIPPABLE_START)) {
			if (off == 0)
				return fail(r, "offset 0: not an ingero log (no zstd frame magic)");
			if (avail < 4)
				return problem(r, "truncated: %zd stray bytes at end of input", avail);
			return problem(r, "bad frame magic 0x%08x (not a zstd frame)", magic);
		}
		/* SPEC §3.2: skippable frames carry nothing for us */
		if (magic != ZSTD_MAGICNUMBER) {
			if (avail < 8)
				return problem(r, "truncated skippable frame header");
			uint64_t left = 8 + (uint64_t)le32(p + 4);
			/* damage to its length cannot be told from a long one:
			 * one cut short is the tail */
			while (left) {
				avail = fill(r, 1);
				if (avail < 0)
					return fail(r, "offset %llu: read error: %s",
						    (unsigned long long)off, strerror(errno));
				if (avail == 0)
					return fail(r, "offset %llu: truncated skippable frame",
						    (unsigned long long)off);
				size_t k = (uint64_t)avail < left ? (size_t)avail : (size_t)left;
				r->in_pos += k;
				left -= k;
			}
			continue;
		}
		size_t cs;
		for (;;) {
			cs = ZSTD_findFrameCompressedSize(r->in + r->in_pos, (size_t)avail);
			if (!ZSTD_isError(cs))
				break;
			if (ZSTD_getErrorCode(cs) != ZSTD_error_srcSize_wrong)
				return problem(r, "corrupt frame: %s", ZSTD_getErrorName(cs));
			if (r->eof)
				return problem(r, "truncated frame (input ends after %zd bytes of it)", avail);
			if ((size_t)avail > ZSTD_compressBound(ILOG_MAX_FRAME_CONTENT) + 64)
				return problem(r, "frame larger than the %u MiB limit",
					   ILOG_MAX_FRAME_CONTENT >> 20);
			/* any more bytes, not a whole CHUNK more: on a live
			 * stream (ingero-record -o - | ...) the rest of the
			 * frame may be all the writer has sent */
			avail = fill(r, (size_t)avail + 1);
			if (avail < 0)
				return fail(r, "offset %llu: read error: %s",
					    (unsigned long long)off, strerror(errno));
		}
		p = r->in + r->in_pos;
		unsigned long long sz = ZSTD_getFrameContentSize(p, cs);
		if (sz == ZSTD_CONTENTSIZE_ERROR)
			return problem(r, "corrupt frame header");
		if (sz == ZSTD_CONTENTSIZE_UNKNOWN)
			return problem(r, "frame does not record its content size");
		if (sz > ILOG_MAX_FRAME_CONTENT)
			return problem(r, "frame content size %llu exceeds the %u MiB limit", sz,
				   ILOG_MAX_FRAME_CONTENT >> 20);
		if (sz > r->fr_cap) {
			uint8_t *f = realloc(r->fr, sz);
			if (!f)
				return fail(r, "offset %llu: out of memory", (unsigned long long)off);
			r->fr = f;
			r->fr_cap = sz;
		}
		size_t got = sz;
		if (!ra_take(r, off, sz)) {
			got = ZSTD_decompressDCtx(r->dctx, r->fr, r->fr_cap, p, cs);
			if (ZSTD_isError(got))
				return problem(r, "corrupt frame: %s", ZSTD_getErrorName(got));
			if (got != sz)
				return problem(r, "corrupt frame: %zu bytes decoded, header says %llu",
					       got, sz);
		}
		r->fr_off = off;
		r->fr_size = cs;
		r->fr_len = got;
		r->fp = r->fr;
		r->fr_idx = 0;
		r->in_pos += cs;
		r->st.in_bytes += cs;
		r->st.frames++;
		r->content_bytes += got;
		memset(r->tsbase, 0, sizeof(r->tsbase));
		if (r->ra)
			ra_post(r);
		return 1;
	}
}

/* Records in `content` decompressed bytes, or else `in` compressed ones,
 * at this log's average so far; -1 with nothing to go by. */
static int64_t records_in(const struct ilog_reader *r, uint64_t content, uint64_t in)
{
	if (!r->st.records)
		return -1;
	double per = content ? (double)r->content_bytes / (double)r->st.records
			     : (double)r->st.in_bytes / (double)r->st.records;
	uint64_t n = content ? content : in;
	if (per <= 0 || !n)
		return -1;
	int64_t k = (int64_t)((double)n / per + 0.5);
	return k ? k : 1;
}

/*
 * The bytes from `off` (the read position) are damaged: r->err says how.
 * Look for the next frame that decompresses and verifies its checksum,
 * from `from` on, load it, and complete the message with the range
 * skipped (SPEC §9).  `content` is the damaged frame's content size when
 * its header could be read (for the records lost), `lost_known` a count
 * of records lost when it is known.  ILOG_READ_DAMAGE, or -1 (fatal).
 */
static int damage(struct ilog_reader *r, uint64_t off, uint64_t from, uint64_t content,
		  int64_t lost_known)
{
	char why[400];
	snprintf(why, sizeof(why), "%.399s", r->err);
	uint64_t pos = from, found = UINT64_MAX;
	for (;;) {
		r->in_pos = (size_t)(pos - r->in_off);
		ssize_t avail = fill(r, 4);
		if (avail < 0)
			return fail(r, "offset %llu: read error: %s", (unsigned long long)pos,
				    strerror(errno));
		if (avail < 4)
			break;
		static const uint8_t m[4] = { 0x28, 0xb5, 0x2f, 0xfd }; /* ZSTD_MAGICNUMBER */
		const uint8_t *b = r->in + r->in_pos, *q = memmem(b, (size_t)avail, m, 4);
		if (!q) {
			pos += (uint64_t)avail - 3;
			if (r->eof) {
				pos = r->in_off + r->in_len;
				r->in_pos = r->in_len;
				break;
			}
			continue;
		}
		pos += (uint64_t)(q - b);
		r->in_pos = (size_t)(pos - r->in_off);
		int k = load_frame(r, 1);
		if (k < 0 && k != ILOG_READ_DAMAGE)
			return -1;
		if (k == 1) {
			found = pos;
			break;
		}
		pos++;
	}
	uint64_t end = found != UINT64_MAX ? found : r->in_off + r->in_len;
	r->dmg = (struct ilog_damage){ .off = off, .bytes = end - off,
				       .records = lost_known >= 0 ? lost_known
						  : records_in(r, content, end - off) };
	r->st.damaged++;
	r->st.damaged_bytes += end - off;
	r->dmg_end = found == UINT64_MAX;
	char lost[64] = "";
	if (r->dmg.records >= 0)
		snprintf(lost, sizeof(lost), ", %s%lld record%s lost", lost_known >= 0 ? "" : "about ",
			 (long long)r->dmg.records, r->dmg.records == 1 ? "" : "s");
	if (r->dmg_end && !strncmp(why, "truncated", 9))
		/* the usual tail of a killed writer: its message says it all */
		snprintf(r->err, sizeof(r->err), "offset %llu: %s", (unsigned long long)off, why);
	else if (r->dmg_end)
		snprintf(r->err, sizeof(r->err), "offset %llu: %s (%llu bytes to the end skipped%s)",
			 (unsigned long long)off, why, (unsigned long long)(end - off), lost);
	else
		snprintf(r->err, sizeof(r->err), "offset %llu: %s (%llu bytes skipped, to offset %llu%s)",
			 (unsigned long long)off,
			 !strncmp(why, "truncated frame", 15) ? "corrupt frame: its blocks run past the end of input" : why,
			 (unsigned long long)(end - off), (unsigned long long)end, lost);
	r->dmg_shown = 1;
	if (r->dmg_end)
		r->state = 1;
	return ILOG_READ_DAMAGE;
}

/* Load the next frame with content: 1 loaded, 0 clean end, -1 error,
 * ILOG_READ_DAMAGE (a damaged range skipped; the frame after it, if any,
 * is loaded). */
static int next_frame(struct ilog_reader *r)
{
	for (;;) {
		int k = load_frame(r, 0);
		if (k == ILOG_READ_DAMAGE) {
			uint64_t off = r->in_off + r->in_pos;
			/* the damaged frame's content size, if its header says */
			uint64_t content = 0;
			size_t avail = r->in_len - r->in_pos;
			if (avail >= 4 && le32(r->in + r->in_pos) == ZSTD_MAGICNUMBER) {
				unsigned long long sz = ZSTD_getFrameContentSize(r->in + r->in_pos, avail);
				if (sz <= ILOG_MAX_FRAME_CONTENT)
					content = sz;
			}
			return damage(r, off, off + 1, content, -1);
		}
		if (k <= 0 || r->fr_len)
			return k;
	}
}

static int decode_fields(struct ilog_reader *r, struct mp_cur *c, uint32_t kind,
			 const struct ilog_field *f, unsigned nf, uint32_t nvals,
			 uint8_t *base, const char **bad);

static int decode_field(struct ilog_reader *r, struct mp_cur *c, uint32_t kind,
			const struct ilog_field *f, uint8_t *base, const char **bad)
{
	uint8_t *p = base + f->off;
	uint64_t v;
	int neg, rc;
	*bad = f->name;
	switch (f->type) {
	case FT_U8: case FT_U16: case FT_U32: case FT_U64: {
		static const uint64_t max[] = { UINT8_MAX, UINT16_MAX, UINT32_MAX, UINT64_MAX };
		if ((rc = mp_int(c, &v, &neg)))
			return rc;
		if (neg || v > max[f->type - FT_U8])
			return MP_E_RANGE;
		switch (f->type) {
		case FT_U8: *p = (uint8_t)v; break;
		case FT_U16: memcpy(p, &(uint16_t){ (uint16_t)v }, 2); break;
		case FT_U32: memcpy(p, &(uint32_t){ (uint32_t)v }, 4); break;
		default: memcpy(p, &v, 8); break;
		}
		return 0;
	}
	case FT_S32:
		if ((rc = mp_int(c, &v, &neg)))
			return rc;
		if (neg ? (int64_t)v < INT32_MIN : v > INT32_MAX)
			return MP_E_RANGE;
		memcpy(p, &(int32_t){ (int32_t)(int64_t)v }, 4);
		return 0;
	case FT_S64:
		if ((rc = mp_int(c, &v, &neg)))
			return rc;
		if (!neg && v > INT64_MAX)
			return MP_E_RANGE;
		memcpy(p, &v, 8);
		return 0;
	case FT_TS:
		/* SPEC §4.3: value = previous + D (mod 2^64) */
		if ((rc = mp_int(c, &v, &neg)))
			return rc;
		v += r->tsbase[kind];
		r->tsbase[kind] = v;
		memcpy(p, &v, 8);
		return 0;
	case FT_F64:
		return mp_f64(c, (double *)p);
	case FT_STR: {
		struct ilog_str *s = (void *)p;
		const uint8_t *q;
		if ((rc = mp_str(c, &q, &s->n)))
			return rc;
		s->p = (const char *)q;
		return 0;
	}
	case FT_BIN: {
		struct ilog_bin *b = (void *)p;
		return mp_bin(c, &b->p, &b->n);
	}
	case FT_CHARS: {
		const uint8_t *q;
		uint32_t n;
		if ((rc = mp_str(c, &q, &n)))
			return rc;
		if (n > INGERO_COMM_LEN - 1)
			n = INGERO_COMM_LEN - 1;
		memcpy(p, q, n);
		p[n] = 0;
		return 0;
	}
	case FT_ARR: {
		uint32_t n;
		if ((rc = mp_array(c, &n)))
			return rc;
		if (n > f->max)
			return MP_E_TOOMANY;
		memcpy(base + f->cnt_off, &n, 4);
		for (uint32_t i = 0; i < n; i++) {
			uint8_t *e = p + (size_t)i * f->esize;
			if (f->nsub == 1) {
				rc = decode_field(r, c, kind, f->sub, e, bad);
			} else {
				uint32_t m;
				if ((rc = mp_array(c, &m)))
					return rc;
				rc = decode_fields(r, c, kind, f->sub, f->nsub, m, e, bad);
			}
			if (rc) {
				*bad = f->name; /* elements have no names of their own */
				return rc;
			}
		}
		*bad = f->name;
		return 0;
	}
	}
	return MP_E_TYPE;
}

/* Decode nvals encoded values into fields; missing ones stay zero, extra
 * ones are skipped (SPEC §8.1). */
static int decode_fields(struct ilog_reader *r, struct mp_cur *c, uint32_t kind,
			 const struct ilog_field *f, unsigned nf, uint32_t nvals,
			 uint8_t *base, const char **bad)
{
	unsigned n = nvals < nf ? nvals : nf;
	int rc;
	for (unsigned i = 0; i < n; i++)
		if ((rc = decode_field(r, c, kind, &f[i], base, bad)))
			return rc;
	for (uint32_t i = n; i < nvals; i++) {
		*bad = "(trailing field)";
		if ((rc = ilog_mp_skip(c)))
			return rc;
	}
	return 0;
}

/* Straight-line decoders per wire type for the hot kind. */
static inline __attribute__((always_inline)) int dec_unsigned(struct mp_cur *c, uint64_t *v, uint64_t max)
{
	int neg, rc = mp_int(c, v, &neg);
	if (!rc && (neg || *v > max))
		rc = MP_E_RANGE;
	return rc;
}
#define DEC_FT_U8(c, v) dec_unsigned(c, v, UINT8_MAX)
#define DEC_FT_U16(c, v) dec_unsigned(c, v, UINT16_MAX)
#define DEC_FT_U32(c, v) dec_unsigned(c, v, UINT32_MAX)
#define DEC_FT_U64(c, v) dec_unsigned(c, v, UINT64_MAX)
static inline __attribute__((always_inline)) int DEC_FT_S32(struct mp_cur *c, uint64_t *v)
{
	int neg, rc = mp_int(c, v, &neg);
	if (!rc && (neg ? (int64_t)*v < INT32_MIN : *v > INT32_MAX))
		rc = MP_E_RANGE;
	return rc;
}
#define DEC_FT_TS(c, v) dec_ts(r, c, v)
static inline __attribute__((always_inline)) int dec_ts(struct ilog_reader *r, struct mp_cur *c, uint64_t *v)
{
	int neg, rc = mp_int(c, v, &neg);
	if (rc)
		return rc;
	*v += r->tsbase[ILOG_K_CUDA];
	r->tsbase[ILOG_K_CUDA] = *v;
	return 0;
}

/*
 * The fast path for the common case: all 20 cuda fields present as
 * integers, and room left in the frame for the widest encoding of each,
 * so no per-field bounds checks and one load per integer.  It returns 0
 * (changing nothing but *e) on anything else -- a type or range error --
 * and decode_cuda's checked path decides and reports.  The results are
 * the checked path's: the codec test round-trips every integer width.
 * Switches per field beat branch-free loads here: each inlined site
 * learns its field's usual width.
 */
#define X(fld, nm, ty, vw, sql) +1
enum { CUDA_NFIELDS = 0 ILOG_CUDA_FIELDS(X) };
#undef X

static inline __attribute__((always_inline)) uint64_t ld_be(const uint8_t *p, unsigned n)
{
	switch (n) {
	case 1: return *p;
	case 2: { uint16_t v; memcpy(&v, p, 2); return __builtin_bswap16(v); }
	case 4: { uint32_t v; memcpy(&v, p, 4); return __builtin_bswap32(v); }
	default: { uint64_t v; memcpy(&v, p, 8); return __builtin_bswap64(v); }
	}
}

/* Any integer as mp_int gives it: bits mod 2^64, *neg for values < 0. */
static inline __attribute__((always_inline)) int fast_int(const uint8_t **pp, uint64_t *bits, int *neg)
{
	const uint8_t *p = *pp;
	uint8_t b = *p;
	*neg = 0;
	if (b < 0x80) { *bits = b; *pp = p + 1; return 1; }
	if (b >= 0xe0) { *bits = (uint64_t)(int64_t)(int8_t)b; *neg = 1; *pp = p + 1; return 1; }
	switch (b) {
	case 0xcc: *bits = ld_be(p + 1, 1); *pp = p + 2; return 1;
	case 0xcd: *bits = ld_be(p + 1, 2); *pp = p + 3; return 1;
	case 0xce: *bits = ld_be(p + 1, 4); *pp = p + 5; return 1;
	case 0xcf: *bits = ld_be(p + 1, 8); *pp = p + 9; return 1;
	case 0xd0: *bits = (uint64_t)(int64_t)(int8_t)ld_be(p + 1, 1); *pp = p + 2; break;
	case 0xd1: *bits = (uint64_t)(int64_t)(int16_t)ld_be(p + 1, 2); *pp = p + 3; break;
	case 0xd2: *bits = (uint64_t)(int64_t)(int32_t)ld_be(p + 1, 4); *pp = p + 5; break;
	case 0xd3: *bits = ld_be(p + 1, 8); *pp = p + 9; break;
	default: return 0;
	}
	*neg = (int64_t)*bits < 0;
	return 1;
}

/* A msgpack unsigned form (what writers use for values >= 0). */
static inline __attribute__((always_inline)) int fast_uint(const uint8_t **pp, uint64_t *v)
{
	const uint8_t *p = *pp;
	uint8_t b = *p;
	if (b < 0x80) { *v = b; *pp = p + 1; return 1; }
	switch (b) {
	case 0xcc: *v = ld_be(p + 1, 1); *pp = p + 2; return 1;
	case 0xcd: *v = ld_be(p + 1, 2); *pp = p + 3; return 1;
	case 0xce: *v = ld_be(p + 1, 4); *pp = p + 5; return 1;
	case 0xcf: *v = ld_be(p + 1, 8); *pp = p + 9; return 1;
	default: return 0;
	}
}

static int decode_cuda_fast(struct ilog_reader *r, struct mp_cur *c, struct ingero_cuda_event *e)
{
	const uint8_t *p = c->p;
	uint64_t v;
	int neg;
#define FAST_UINT(fld, max) \
	if (!fast_uint(&p, &v) || v > (max)) \
		return 0; \
	e->fld = (__typeof__(e->fld))v;
#define FAST_FT_U8(fld) FAST_UINT(fld, UINT8_MAX)
#define FAST_FT_U16(fld) FAST_UINT(fld, UINT16_MAX)
#define FAST_FT_U32(fld) FAST_UINT(fld, UINT32_MAX)
#define FAST_FT_U64(fld) FAST_UINT(fld, UINT64_MAX)
#define FAST_FT_S32(fld) \
	if (!fast_int(&p, &v, &neg) || (neg ? (int64_t)v < INT32_MIN : v > INT32_MAX)) \
		return 0; \
	e->fld = (int32_t)(int64_t)v;
#define FAST_FT_TS(fld) \
	if (!fast_int(&p, &v, &neg)) \
		return 0; \
	e->fld = r->tsbase[ILOG_K_CUDA] + v;
#define X(fld, nm, ty, vw, sql) FAST_##ty(fld)
	ILOG_CUDA_FIELDS(X)
#undef X
	e->nargs = 0;
	memset(e->args, 0, sizeof(e->args));
	/* SPEC §4.3: the next cuda ts is coded against this call's end */
	r->tsbase[ILOG_K_CUDA] = e->ts_ns + e->dur_ns;
	c->p = p;
	return 1;
}

/*
 * Stack records, as writers write them (id, pid, ips, all unsigned
 * integers), without the table walk: what filters reading whole logs of
 * stacks spend most of their decoding on.  Returns 0 on anything else,
 * near the frame's end included, for decode_fields to decide and report;
 * the result is decode_fields' (a zeroed tail after the ips).
 */
static int decode_stack_fast(struct mp_cur *c, struct ingero_stack *e)
{
	const uint8_t *p = c->p;
	uint64_t v;
	uint32_t n;
	if ((size_t)(c->end - p) < 9 + 9 + 3 + 9 * INGERO_MAX_STACK)
		return 0;
	if (!fast_uint(&p, &v))
		return 0;
	e->id = v;
	if (!fast_uint(&p, &v) || v > UINT32_MAX)
		return 0;
	e->pid = (uint32_t)v;
	if ((*p & 0xf0) == 0x90) {
		n = *p++ & 0x0f;
	} else if (*p == 0xdc) {
		n = (uint32_t)ld_be(p + 1, 2);
		p += 3;
	} else {
		return 0;
	}
	if (n > INGERO_MAX_STACK)
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		if (!fast_uint(&p, &v))
			return 0;
		e->ips[i] = v;
	}
	e->nr = n;
	memset(e->ips + n, 0, (INGERO_MAX_STACK - n) * sizeof(e->ips[0]));
	c->p = p;
	return 1;
}

/* Same result as decode_fields over the cuda table, without the walk. */
static int decode_cuda(struct ilog_reader *r, struct mp_cur *c, uint32_t nvals,
		       struct ingero_cuda_event *e, const char **bad)
{
	if (nvals == CUDA_NFIELDS && (size_t)(c->end - c->p) >= 9 * CUDA_NFIELDS &&
	    decode_cuda_fast(r, c, e))
		return 0;
	uint32_t i = 0;
	uint64_t v;
	int rc;
	e->nargs = 0;
	memset(e->args, 0, sizeof(e->args));
#define X(fld, nm, ty, vw, sql)                                   \
	if (i++ < nvals) {                                   \
		if ((rc = DEC_##ty(c, &v))) {                \
			*bad = nm;                           \
			return rc;                           \
		}                                            \
		e->fld = (__typeof__(e->fld))v;              \
	} else {                                             \
		e->fld = 0;                                  \
	}
	ILOG_CUDA_FIELDS(X)
#undef X
	/* SPEC §4.3: the next cuda ts is coded against this call's end */
	r->tsbase[ILOG_K_CUDA] = e->ts_ns + e->dur_ns;
	if (i++ < nvals) { /* args (1.2), the one field after the X-macro list */
		const struct ilog_kind_desc *d = ilog_kind_desc(ILOG_K_CUDA);
		if ((rc = decode_field(r, c, ILOG_K_CUDA, &d->fields[CUDA_NFIELDS], (uint8_t *)e,
				       bad)))
			return rc;
	}
	for (; i < nvals; i++) {
		*bad = "(trailing field)";
		if ((rc = ilog_mp_skip(c)))
			return rc;
	}
	return 0;
}

/*
 * SPEC §8.3: magic and version are the first three header values in every
 * major, and a later major may lay out the rest differently, so they are
 * checked before the rest is decoded.  Anything else wrong with them is
 * left to the full decode and on_header.
 */
static int check_version(struct ilog_reader *r, struct mp_cur c, uint32_t nvals)
{
	const struct ilog_kind_desc *d = ilog_kind_desc(ILOG_K_HEADER);
	struct ilog_header h = { 0 };
	const char *bad;
	if (nvals < 3 || decode_fields(r, &c, ILOG_K_HEADER, d->fields, 3, 3, (uint8_t *)&h, &bad))
		return 0;
	if (h.magic.n == 4 && !memcmp(h.magic.p, ILOG_MAGIC, 4) &&
	    h.version_major > ILOG_VERSION_MAJOR)
		return fail(r, "offset %llu: unsupported format version %u.%u (this reader reads %d.x)",
			    (unsigned long long)r->fr_off, h.version_major, h.version_minor,
			    ILOG_VERSION_MAJOR);
	return 0;
}

static struct node_slot *node_slot(struct ilog_reader *r, uint32_t idx)
{
	if (idx >= MAX_NODES)
		return NULL;
	if (idx >= r->nnodes) {
		if (ilog_reserve0((void **)&r->nodes, &r->capnodes, idx + 1, sizeof(*r->nodes), 4))
			return NULL;
		r->nnodes = idx + 1;
	}
	return &r->nodes[idx];
}

/* Copy n string views into one owned block and repoint them at it. */
static char *own_strs(struct ilog_str **s, unsigned n)
{
	size_t total = 1;
	for (unsigned i = 0; i < n; i++)
		total += s[i]->n + 1;
	char *blk = malloc(total), *q = blk;
	if (!blk)
		return NULL;
	for (unsigned i = 0; i < n; i++) {
		if (s[i]->n) /* an absent field's view is NULL */
			memcpy(q, s[i]->p, s[i]->n);
		q[s[i]->n] = 0;
		s[i]->p = q;
		q += s[i]->n + 1;
	}
	return blk;
}

static int on_header(struct ilog_reader *r, const struct ilog_header *h, uint32_t nvals)
{
	if (nvals < 3 || h->magic.n != 4 || memcmp(h->magic.p, ILOG_MAGIC, 4))
		return fail(r, "offset %llu: not an ingero log (header magic missing)",
			    (unsigned long long)r->fr_off);
	if (h->version_major > ILOG_VERSION_MAJOR)
		return fail(r, "offset %llu: unsupported format version %u.%u (this reader reads %d.x)",
			    (unsigned long long)r->fr_off, h->version_major, h->version_minor,
			    ILOG_VERSION_MAJOR);
	struct node_slot *n = node_slot(r, h->node_index);
	if (!n)
		return fail(r, "offset %llu: node index %u out of range",
			    (unsigned long long)r->fr_off, h->node_index);
	free(n->strs);
	if (n->opmap) /* a new section numbers its named ops anew */
		memset(n->opmap, 0, NAMED_OPS * sizeof(*n->opmap));
	n->hdr = *h;
	struct ilog_str *s[] = { &n->hdr.magic, &n->hdr.node, &n->hdr.boot_id, &n->hdr.host,
				 &n->hdr.recorder, &n->hdr.kernel, &n->hdr.driver };
	if (!(n->strs = own_strs(s, sizeof(s) / sizeof(s[0]))))
		return fail(r, "out of memory");
	n->has_hdr = 1;
	n->has_anchor = 1;
	n->a_mono = h->mono_ns;
	n->a_real = h->real_ns;
	r->node = h->node_index;
	r->seen_header = 1;
	return 0;
}

/* SPEC §5.17: learn a name, and give the record the program's number. */
static int on_opname(struct ilog_reader *r, struct ilog_opname *o)
{
	if (o->op < ILOG_OP_NAMED_FIRST || o->op >= ILOG_OP_MAX)
		return fail(r, "offset %llu: record %u of the frame: opname: op %u is not a named op (%u..%u)",
			    (unsigned long long)r->fr_off, r->fr_idx - 1, o->op,
			    ILOG_OP_NAMED_FIRST, ILOG_OP_MAX - 1);
	int g = ilog_op_intern(o->name.p, o->name.n, o->layer, o->op);
	if (g < 0)
		return fail(r, "offset %llu: record %u of the frame: opname: bad name for op %u",
			    (unsigned long long)r->fr_off, r->fr_idx - 1, o->op);
	struct node_slot *n = node_slot(r, r->node);
	if (!n)
		return fail(r, "out of memory");
	if (!n->opmap && !(n->opmap = calloc(NAMED_OPS, sizeof(*n->opmap))))
		return fail(r, "out of memory");
	n->opmap[o->op - ILOG_OP_NAMED_FIRST] = (uint16_t)g;
	o->op = (uint32_t)g;
	return 0;
}

/* A named op's number in this program's table.  One the section never
 * named keeps its number unless another log of this program named that
 * number: then it gets an unnamed number of its own (SPEC §5.17: it is
 * rendered as a number, never with another log's name). */
static inline int map_op(struct ilog_reader *r, struct ingero_cuda_event *e)
{
	if (e->op < ILOG_OP_NAMED_FIRST || r->node >= r->nnodes)
		return 0;
	struct node_slot *n = &r->nodes[r->node];
	uint16_t *m = n->opmap;
	if (m && m[e->op - ILOG_OP_NAMED_FIRST]) {
		e->op = m[e->op - ILOG_OP_NAMED_FIRST];
		return 0;
	}
	int g = ilog_op_unnamed(e->op);
	if (g < 0)
		return 0; /* the table is full: kept as it is */
	if (!m && !(m = n->opmap = calloc(NAMED_OPS, sizeof(*n->opmap))))
		return fail(r, "out of memory");
	m[e->op - ILOG_OP_NAMED_FIRST] = (uint16_t)g;
	e->op = (uint32_t)g;
	return 0;
}

static int on_schema(struct ilog_reader *r, const struct ilog_schema *s)
{
	if (ilog_kind_desc(s->kind) || ilog_reader_schema(r, s->kind))
		return 0; /* we know this kind, or already have its names */
	if (ilog_grow((void **)&r->schemas, &r->capschemas, r->nschemas, sizeof(*r->schemas), 4))
		return fail(r, "out of memory");
	struct schema_slot *slot = &r->schemas[r->nschemas];
	slot->s = *s;
	struct ilog_str *v[ILOG_MAX_SCHEMA_FIELDS + 1];
	v[0] = &slot->s.name;
	for (uint32_t i = 0; i < s->nfields; i++)
		v[i + 1] = &slot->s.fields[i];
	if (!(slot->strs = own_strs(v, s->nfields + 1)))
		return fail(r, "out of memory");
	r->nschemas++;
	return 0;
}

int ilog_reader_next(struct ilog_reader *r, const struct ilog_record **out)
{
	r->dmg_shown = 0;
	if (r->state)
		return r->state < 0 ? -1 : 0;
	while (!r->fr_len || r->fp >= r->fr + r->fr_len) { /* fr is NULL before the first frame */
		int k = next_frame(r);
		if (k < 0)
			return k;
		if (k == 0) {
			r->state = 1;
			if (!r->seen_header && !r->st.frames && r->in_off + r->in_pos == 0)
				return fail(r, "offset 0: empty input (not an ingero log)");
			return 0;
		}
	}
	struct mp_cur c = { r->fp, r->fr + r->fr_len };
	struct ilog_record *rec = &r->rec;
	/* The hot record, as writers write it: array16 of 21, kind 4, all
	 * fields; nothing else to do for it once a header was seen. */
	if ((size_t)(c.end - c.p) >= 4 + 9 * CUDA_NFIELDS && c.p[0] == 0xdc && c.p[1] == 0 &&
	    c.p[2] == 1 + CUDA_NFIELDS && c.p[3] == ILOG_K_CUDA && r->seen_header) {
		c.p += 4;
		if (decode_cuda_fast(r, &c, &rec->u.cuda)) {
			if (map_op(r, &rec->u.cuda))
				return -1;
			rec->kind = ILOG_K_CUDA;
			rec->raw.p = r->fp;
			rec->raw.n = (uint32_t)(c.p - r->fp);
			r->fp = c.p;
			r->fr_idx++;
			rec->node = r->node;
			r->st.records++;
			*out = rec;
			return 1;
		}
		c.p = r->fp; /* the checked path below finds what is wrong */
	}
	const struct ilog_kind_desc *d = NULL;
	const char *bad = "(record)";
	uint32_t nvals;
	uint64_t kind;
	int neg, rc;
	size_t at = (size_t)(c.p - r->fr);
	if ((rc = mp_array(&c, &nvals)) || nvals == 0 ||
	    (bad = "(kind)", rc = mp_int(&c, &kind, &neg)) || neg || kind > UINT32_MAX) {
		if (!rc)
			rc = nvals == 0 ? MP_E_EMPTY : MP_E_RANGE;
		goto bad_record;
	}
	nvals--;
	rec->kind = (uint32_t)kind;
	if (rec->kind == ILOG_K_CUDA) {
		if ((rc = decode_cuda(r, &c, nvals, &rec->u.cuda, &bad))) {
			d = ilog_kind_desc(ILOG_K_CUDA);
			goto bad_record;
		}
	} else if (rec->kind == ILOG_K_STACK && nvals == 3 && r->seen_header &&
		   decode_stack_fast(&c, &rec->u.stack)) {
		/* done */
	} else if ((d = ilog_kind_desc(rec->kind))) {
		memset(&rec->u, 0, d->size);
		if (rec->kind == ILOG_K_HEADER && check_version(r, c, nvals))
			return -1;
		if ((rc = decode_fields(r, &c, rec->kind, d->fields, d->nfields, nvals,
					(uint8_t *)&rec->u, &bad)))
			goto bad_record;
	} else {
		bad = "(unknown kind)";
		for (uint32_t i = 0; i < nvals; i++)
			if ((rc = ilog_mp_skip(&c)))
				goto bad_record;
		r->st.skipped_unknown++;
	}
	rec->raw.p = r->fp;
	rec->raw.n = (uint32_t)(c.p - r->fp);
	r->fp = c.p;
	r->fr_idx++;
	if (!r->seen_header && !r->st.damaged && rec->kind != ILOG_K_HEADER)
		return fail(r, "offset %llu: not an ingero log (first record is kind %u, not a header)",
			    (unsigned long long)r->fr_off, rec->kind);
	switch (rec->kind) {
	case ILOG_K_HEADER:
		if (on_header(r, &rec->u.header, nvals))
			return -1;
		break;
	case ILOG_K_CLOCK: {
		struct node_slot *n = node_slot(r, r->node);
		if (n) {
			n->has_anchor = 1;
			n->a_mono = rec->u.clock.mono_ns;
			n->a_real = rec->u.clock.real_ns;
		}
		break;
	}
	case ILOG_K_NODE:
		if (!node_slot(r, rec->u.node.node_index))
			return fail(r, "offset %llu: node index %u out of range",
				    (unsigned long long)r->fr_off, rec->u.node.node_index);
		r->node = rec->u.node.node_index;
		break;
	case ILOG_K_SCHEMA:
		if (on_schema(r, &rec->u.schema))
			return -1;
		break;
	case ILOG_K_CUDA:
		if (map_op(r, &rec->u.cuda))
			return -1;
		break;
	case ILOG_K_INFLIGHT:
		if (map_op(r, &rec->u.inflight))
			return -1;
		break;
	case ILOG_K_OPNAME:
		if (on_opname(r, &rec->u.opname))
			return -1;
		break;
	}
	rec->node = r->node;
	r->st.records++;
	*out = rec;
	return 1;
bad_record:
	if (!r->seen_header && !r->st.damaged)
		return fail(r, "offset %llu: not an ingero log (its first record does not decode: %s)",
			    (unsigned long long)r->fr_off, ilog_mp_strerror(rc, &c));
	/* the rest of the frame is lost: its records cannot be told apart */
	problem(r, "record %u of the frame (byte %zu of its content): %s%s%s: %s", r->fr_idx, at,
	    d ? d->name : "", d ? " field " : "", bad, ilog_mp_strerror(rc, &c));
	uint64_t rest = r->fr_len - at;
	r->fr_len = 0;
	return damage(r, r->fr_off, r->in_off + r->in_pos, rest, -1);
}

const char *ilog_reader_error(const struct ilog_reader *r)
{
	return r->state < 0 || r->dmg_shown ? r->err : NULL;
}

void ilog_reader_damage(const struct ilog_reader *r, struct ilog_damage *d)
{
	*d = r->dmg;
}

const struct ilog_header *ilog_reader_header(const struct ilog_reader *r, uint32_t node)
{
	return node < r->nnodes && r->nodes[node].has_hdr ? &r->nodes[node].hdr : NULL;
}

uint64_t ilog_reader_wall(const struct ilog_reader *r, uint32_t node, uint64_t mono)
{
	if (node >= r->nnodes || !r->nodes[node].has_anchor)
		return 0;
	const struct node_slot *n = &r->nodes[node];
	return n->a_real + (mono - n->a_mono);
}

const struct ilog_schema *ilog_reader_schema(const struct ilog_reader *r, uint32_t kind)
{
	for (uint32_t i = 0; i < r->nschemas; i++)
		if (r->schemas[i].s.kind == kind)
			return &r->schemas[i].s;
	return NULL;
}

void ilog_reader_where(const struct ilog_reader *r, struct ilog_reader_where *w)
{
	w->frame_off = r->fr_off;
	w->frame_size = r->fr_size;
	w->content_size = r->fr_len;
	w->rec_off = r->rec.raw.p ? (uint64_t)(r->rec.raw.p - r->fr) : 0;
}

void ilog_reader_stats(const struct ilog_reader *r, struct ilog_reader_stats *st)
{
	*st = r->st;
}
