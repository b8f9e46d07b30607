// SPDX-License-Identifier: MIT
/*
 * The flight recorder's memory (ingero-record --flight).  A writer whose
 * definitions go to a second writer (ilog_writer_opts.defs) hands this its
 * compressed frames: the definitions' (header, schemas, processes,
 * mappings, stacks, op and kernel names) are kept, as they are what any
 * window's records refer to; the events' frames are kept while younger
 * than the window, and never more than max_bytes of them.  Definitions
 * come with every process the recorder meets, so a recorder left on
 * rewrites them now and then from the definitions writer's context
 * (ilog_flight_compact): the living processes' and the recently gone,
 * every stack and name; a process gone for a window and more is dropped.
 * A trigger keeps every frame from the window before it on, until the
 * dump, which writes the definitions and then those frames: a complete
 * log (SPEC §3: every frame independent), its definitions first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ingero/buf.h"
#include "ingero/io.h"
#include "ingero/ilog.h"
#include "ingero/vec.h"

struct flight_frame {
	uint64_t t;                /* CLOCK_MONOTONIC ns when it completed */
	uint8_t *p;
	size_t n;
};

struct ilog_flight {
	uint64_t window_ns, max_bytes;
	struct ilog_buf defs;      /* every definitions frame, in order */
	struct flight_frame *f;    /* events frames f[head .. n) */
	uint32_t head, n, cap;
	uint64_t bytes;            /* of events frames kept */
	uint64_t trigger;          /* 0: none open */
	uint64_t dropped;          /* frames of an open capture dropped for the bound */
	uint64_t compact_t;        /* the last compaction (or the start), mono ns */
	size_t compact_len;        /* the definitions' size it left */
};

/* Compactions are at least the window and this much apart, so that a
 * process found gone at one and dropped at the next (ilog_writer_opts
 * .alive) has no record in any window a later dump holds, late ones
 * (a window's aggregates drained after its exit) included; and only once
 * the definitions are this big and twice what the last one left. */
#define COMPACT_GAP_NS 10000000000ull
#define COMPACT_MIN_BYTES (1u << 20)

struct ilog_flight *ilog_flight_new(uint64_t window_ns, uint64_t max_bytes)
{
	struct ilog_flight *fl = calloc(1, sizeof(*fl));
	if (fl) {
		fl->window_ns = window_ns;
		fl->max_bytes = max_bytes;
		fl->compact_t = ilog_mono_ns();
	}
	return fl;
}

static void drop_head(struct ilog_flight *fl)
{
	struct flight_frame *h = &fl->f[fl->head++];
	fl->bytes -= h->n;
	free(h->p);
	if (fl->head == fl->n)
		fl->head = fl->n = 0;
}

int ilog_flight_events(void *ctx, const uint8_t *frame, size_t n)
{
	struct ilog_flight *fl = ctx;
	uint64_t now = ilog_mono_ns();
	/* the oldest half gone: move the rest down rather than grow */
	if (fl->n == fl->cap && fl->head > fl->cap / 2) {
		memmove(fl->f, fl->f + fl->head, (fl->n - fl->head) * sizeof(*fl->f));
		fl->n -= fl->head;
		fl->head = 0;
	}
	if (ilog_grow((void **)&fl->f, &fl->cap, fl->n, sizeof(*fl->f), 64))
		return errno = ENOMEM, -1;
	uint8_t *p = malloc(n ? n : 1);
	if (!p)
		return errno = ENOMEM, -1;
	memcpy(p, frame, n);
	fl->f[fl->n++] = (struct flight_frame){ now, p, n };
	fl->bytes += n;
	/* older than the window before the trigger (or before now) */
	uint64_t from = fl->trigger ? fl->trigger : now;
	while (fl->head < fl->n && fl->n - fl->head > 1 &&
	       fl->f[fl->head].t + fl->window_ns < from)
		drop_head(fl);
	while (fl->head < fl->n && fl->n - fl->head > 1 && fl->bytes > fl->max_bytes) {
		fl->dropped += fl->trigger != 0;
		drop_head(fl);
	}
	return 0;
}

int ilog_flight_defs(void *ctx, const uint8_t *frame, size_t n)
{
	struct ilog_flight *fl = ctx;
	return ilog_buf_put(&fl->defs, frame, n) ? (errno = ENOMEM, -1) : 0;
}

int ilog_flight_trigger(struct ilog_flight *fl, uint64_t now)
{
	if (fl->trigger)
		return -1;
	fl->trigger = now ? now : 1;
	fl->dropped = 0;
	return 0;
}

uint64_t ilog_flight_open(const struct ilog_flight *fl)
{
	return fl->trigger;
}

int ilog_flight_dump(struct ilog_flight *fl, int fd, struct ilog_flight_stats *st)
{
	int rc = ilog_write_all(fd, fl->defs.p, fl->defs.len);
	uint64_t frames = 0, bytes = fl->defs.len;
	for (uint32_t i = fl->head; !rc && i < fl->n; i++) {
		if (fl->f[i].t + fl->window_ns < fl->trigger)
			continue;
		rc = ilog_write_all(fd, fl->f[i].p, fl->f[i].n);
		frames++;
		bytes += fl->f[i].n;
	}
	if (st)
		*st = (struct ilog_flight_stats){ frames, bytes, fl->dropped };
	fl->trigger = 0;
	fl->dropped = 0;
	return rc;
}

int ilog_flight_compact_due(const struct ilog_flight *fl, uint64_t now)
{
	return !fl->trigger && now >= fl->compact_t + fl->window_ns + COMPACT_GAP_NS &&
	       fl->defs.len >= COMPACT_MIN_BYTES && fl->defs.len >= 2 * fl->compact_len;
}

int ilog_flight_compact(struct ilog_flight *fl, struct ilog_writer *defs,
			const struct ilog_header *h, uint64_t now)
{
	if (fl->trigger) /* an open capture's dump needs what its frames name */
		return 0;
	/* what is pending belongs to the old definitions (and to the
	 * context): the new ones start with the header */
	if (ilog_writer_flush(defs))
		return -1;
	struct ilog_buf old = fl->defs;
	fl->defs = (struct ilog_buf){ 0 };
	if (ilog_writer_rotate(defs, -1, h)) {
		ilog_buf_free(&fl->defs); /* the old ones hold all the new would */
		fl->defs = old;
		return -1;
	}
	ilog_buf_free(&old);
	fl->compact_t = now;
	fl->compact_len = fl->defs.len;
	return 0;
}

void ilog_flight_usage(const struct ilog_flight *fl, uint64_t *events, uint64_t *defs)
{
	*events = fl->bytes;
	*defs = fl->defs.len;
}

void ilog_flight_free(struct ilog_flight *fl)
{
	if (!fl)
		return;
	while (fl->head < fl->n)
		drop_head(fl);
	free(fl->f);
	ilog_buf_free(&fl->defs);
	free(fl);
}
