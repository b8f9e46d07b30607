// SPDX-License-Identifier: MIT
/*
 * The flight recorder's memory (ingero-record --flight).  A writer whose
 * definitions go to a second writer (ilog_writer_opts.defs) hands this its
 * compressed frames: the definitions' (header, schemas, processes,
 * mappings, stacks, op and kernel names) are all kept, once each, as they
 * are what any window's records refer to; the events' frames are kept
 * while younger than the window, and never more than max_bytes of them.
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
};

struct ilog_flight *ilog_flight_new(uint64_t window_ns, uint64_t max_bytes)
{
	struct ilog_flight *fl = calloc(1, sizeof(*fl));
	if (fl) {
		fl->window_ns = window_ns;
		fl->max_bytes = max_bytes;
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
