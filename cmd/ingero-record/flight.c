// SPDX-License-Identifier: MIT
/*
 * --flight DUR: the recorder keeps the last DUR of compressed frames in
 * memory (lib/codec/flight.c, at most --flight-size of them) and writes
 * nothing until a trigger: SIGUSR1, a call in progress for longer than
 * --hang-after (the in-flight scan of each window, sink.c), or an op's p99
 * over --p99-over times its baseline's (p99.c).  A trigger
 * writes a `trigger` record (SPEC §5.23) and keeps the window before it;
 * DUR later (or when the recording stops first) the dump is written: the
 * definitions, then the frames from DUR before the trigger on, a complete
 * log named after -o, the dump's number and its UTC time, never over
 * another file.  A trigger while a dump is open is part of that dump.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "ingero/cli.h"
#include "rec.h"

volatile sig_atomic_t rec_flight_sig;

int rec_flight_open(struct rec *r)
{
	/* the dumps' folder is checked now, before anything is attached:
	 * finding it unwritable at the first incident would lose it */
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", r->o.out);
	char *sl = strrchr(dir, '/');
	if (!sl)
		snprintf(dir, sizeof(dir), ".");
	else
		sl[sl == dir] = 0;
	if (access(dir, W_OK | X_OK)) {
		snprintf(r->err, sizeof(r->err), "--flight: cannot write dumps in %.300s: %s", dir,
			 strerror(errno));
		return -1;
	}
	r->flight = ilog_flight_new(r->o.flight_ns, r->o.flight_bytes);
	if (!r->flight) {
		snprintf(r->err, sizeof(r->err), "--flight: out of memory");
		return -1;
	}
	struct ilog_writer_opts d = { .out = ilog_flight_defs, .out_ctx = r->flight };
	/* frames of a quarter second: the window is kept to that */
	struct ilog_writer_opts e = { .out = ilog_flight_events, .out_ctx = r->flight,
				      .frame_ms = 250 };
	r->wdef = ilog_writer_open(-1, &d, r->err, sizeof(r->err));
	e.defs = r->wdef;
	r->w = r->wdef ? ilog_writer_open(-1, &e, r->err, sizeof(r->err)) : NULL;
	if (r->w && r->o.p99_over > 0) {
		r->p99_next = rec_now(CLOCK_MONOTONIC) + 1000000000ull;
		if (!(r->p99 = rec_p99_new(r->o.p99_over)))
			snprintf(r->err, sizeof(r->err), "--p99-over: out of memory");
	}
	return r->w && (r->p99 || !(r->o.p99_over > 0)) ? 0 : -1;
}

static void trigger(struct rec *r, const char *reason, const struct rec_call *c,
		    const struct rec_p99_fire *p)
{
	uint64_t now = rec_now(CLOCK_MONOTONIC);
	if (ilog_flight_trigger(r->flight, now)) {
		r->flight_folded++;
		return;
	}
	r->flight_until = now + r->o.flight_ns;
	struct ilog_record rec = { .kind = ILOG_K_TRIGGER };
	rec.u.trigger = (struct ilog_trigger){
		.ts_ns = now, .reason = ilog_str_c(reason), .before_ns = r->o.flight_ns,
		.after_ns = r->o.flight_ns, .seq = ++r->flight_seq,
	};
	if (c) {
		rec.u.trigger.pid = c->pid;
		rec.u.trigger.tid = c->tid;
		rec.u.trigger.op = c->op;
		rec.u.trigger.value_ns = c->dur;
	}
	if (p) {
		rec.u.trigger.op = p->op;
		rec.u.trigger.value_ns = p->recent_ns;
		rec.u.trigger.baseline_ns = p->base_ns;
	}
	ilog_writer_put(r->w, &rec);
	ilog_writer_flush(r->w);
	if (!r->o.quiet) {
		char what[256] = "";
		if (c)
			snprintf(what, sizeof(what), ": %s of pid %u running for %.1f s",
				 ilog_op_name(c->op) ? ilog_op_name(c->op) : "a call", c->pid,
				 (double)c->dur / 1e9);
		if (p)
			snprintf(what, sizeof(what), ": the p99 of %s, %.3f ms over the last %d s, "
				 "is %.1fx its %.3f ms of the %d s before",
				 ilog_op_name(p->op) ? ilog_op_name(p->op) : "an op",
				 (double)p->recent_ns / 1e6, P99_RECENT_S,
				 (double)p->recent_ns / (double)(p->base_ns ? p->base_ns : 1),
				 (double)p->base_ns / 1e6, P99_SLOT_S * P99_BASE_SLOTS);
		fprintf(stderr, "%s: flight trigger %u (%s%s): keeping %.1f s before it, "
				"writing when %.1f s after it are in\n",
			ilog_prog, r->flight_seq, reason, what, (double)r->o.flight_ns / 1e9,
			(double)r->o.flight_ns / 1e9);
	}
}

/* The open trigger's dump: OUT's name without .ilog, .flight-SEQ-UTC.ilog */
static void dump(struct rec *r)
{
	if (ilog_writer_flush(r->w)) {
		ilog_errorf("--flight: %s", ilog_writer_error(r->w));
		return;
	}
	char stamp[32], path[4096], tmp[4200];
	time_t t = time(NULL);
	struct tm tm;
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", gmtime_r(&t, &tm));
	size_t stem = strlen(r->o.out);
	if (stem > 5 && !strcmp(r->o.out + stem - 5, ".ilog"))
		stem -= 5;
	snprintf(path, sizeof(path), "%.*s.flight-%03u-%s.ilog", (int)stem, r->o.out,
		 r->flight_seq, stamp);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	struct ilog_flight_stats st = { 0 };
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	int rc = fd < 0 ? -1 : ilog_flight_dump(r->flight, fd, &st);
	if (fd >= 0 && (close(fd) || rc))
		rc = -1;
	/* link: never over an existing file */
	if (!rc && link(tmp, path))
		rc = -1;
	int e = errno;
	if (fd >= 0)
		unlink(tmp);
	if (rc) {
		ilog_errorf("--flight: %s: %s", fd < 0 ? tmp : path, strerror(e));
		/* close the trigger all the same: the next one gets its dump */
		if (ilog_flight_open(r->flight))
			ilog_flight_dump(r->flight, -1, NULL);
		return;
	}
	if (!r->o.quiet)
		fprintf(stderr, "%s: flight dump %u written to %s: %.1f MiB, %llu frames%s%s\n",
			ilog_prog, r->flight_seq, path, (double)st.bytes / 1048576.0,
			(unsigned long long)st.frames, st.dropped ? ", the oldest dropped for "
			"--flight-size" : "", r->flight_folded ? " (later triggers folded in)" : "");
	r->flight_folded = 0;
}

void rec_flight_tick(struct rec *r, uint64_t now)
{
	if (!r->flight)
		return;
	if (rec_flight_sig) {
		rec_flight_sig = 0;
		trigger(r, "signal", NULL, NULL);
	}
	/* a call running longer than --hang-after, once per call */
	const struct rec_call *c = &r->longest;
	if (r->o.hang_after_ns && c->dur >= r->o.hang_after_ns &&
	    (c->tid != r->hang.tid || c->ts != r->hang.ts)) {
		r->hang = *c;
		trigger(r, "hang", c, NULL);
	}
	/* an op's p99 over its baseline's (p99.c), checked each second */
	struct rec_p99_fire pf;
	if (r->p99 && now >= r->p99_next) {
		r->p99_next = now + 1000000000ull;
		if (rec_p99_second(r->p99, &pf))
			trigger(r, "p99", NULL, &pf);
	}
	if (ilog_flight_open(r->flight) && now >= r->flight_until)
		dump(r);
}

void rec_flight_close(struct rec *r)
{
	if (r->flight && ilog_flight_open(r->flight))
		dump(r);
}
