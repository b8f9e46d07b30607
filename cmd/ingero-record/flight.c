// SPDX-License-Identifier: MIT
/*
 * --flight DUR: the recorder keeps the last DUR of compressed frames in
 * memory (lib/codec/flight.c, at most --flight-size of them) and writes
 * nothing until a trigger: SIGUSR1, a call in progress for longer than
 * --hang-after (the in-flight scan of each window, sink.c), or a process's
 * p99 of an op over --p99-over times its baseline's (p99.c).  A trigger
 * writes a `trigger` record (SPEC §5.23) and keeps the window before it;
 * DUR later (or when the recording stops first) the dump is written: the
 * definitions, then the frames from DUR before the trigger on, a complete
 * log named after -o, the dump's number and its UTC time, never over
 * another file.  A trigger while a dump is open is part of that dump.
 * --keep N and --keep-size SIZE bound the dumps on disk: after each one,
 * the oldest of -o's dumps (this run's and earlier runs') beyond them are
 * deleted, the new one always kept (lib/cli/rotate.c, as for --rotate's
 * files); on a full disk they also make room: the oldest goes and the
 * dump, still in memory, is written again.  The definitions writer keeps
 * a context, as --rotate's writer does, and the definitions are rewritten
 * from it when they have grown (ilog_flight_compact): a recorder left on
 * holds the definitions of the living processes, not of every process it
 * ever met.
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
	if (r->o.rot.keep || r->o.rot.keep_bytes) {
		r->o.rot.path = r->o.out;
		r->o.rot.flight = 1;
		if (!(r->dumps = ilog_rotate_open(&r->o.rot, r->err, sizeof(r->err))))
			return -1;
	}
	r->flight = ilog_flight_new(r->o.flight_ns, r->o.flight_bytes);
	if (!r->flight) {
		snprintf(r->err, sizeof(r->err), "--flight: out of memory");
		return -1;
	}
	/* a context (no prune_ms: each compaction is the prune round) */
	struct ilog_writer_opts d = { .out = ilog_flight_defs, .out_ctx = r->flight,
				      .context = 1, .alive = rec_pid_alive };
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
		rec.u.trigger.pid = p->pid;
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
		if (p) {
			char comm[64];
			rec_proc_comm(p->pid, comm, sizeof(comm));
			snprintf(what, sizeof(what), ": the p99 of %s in pid %u (%s), %.3f ms over "
				 "the last %d s, is %.1fx its %.3f ms of the %d s before",
				 ilog_op_name(p->op) ? ilog_op_name(p->op) : "an op", p->pid, comm,
				 (double)p->recent_ns / 1e6, P99_RECENT_S,
				 (double)p->recent_ns / (double)(p->base_ns ? p->base_ns : 1),
				 (double)p->base_ns / 1e6, P99_SLOT_S * P99_BASE_SLOTS);
		}
		fprintf(stderr, "%s: flight trigger %u (%s%s): keeping %.1f s before it, "
				"writing when %.1f s after it are in\n",
			ilog_prog, r->flight_seq, reason, what, (double)r->o.flight_ns / 1e9,
			(double)r->o.flight_ns / 1e9);
	}
}

/* The open trigger's dump: OUT's name without .ilog, .flight-SEQ-UTC.ilog
 * (ilog_rotate_dump_path) */
static void dump(struct rec *r)
{
	if (ilog_writer_flush(r->w)) {
		ilog_errorf("--flight: %s", ilog_writer_error(r->w));
		return;
	}
	char path[4096], tmp[4200], e2[512];
	if (ilog_rotate_dump_path(r->o.out, r->flight_seq, rec_now(CLOCK_REALTIME), path,
				  sizeof(path))) {
		ilog_errorf("--flight: '%s': path too long", r->o.out);
		ilog_flight_dump(r->flight, -1, NULL); /* closed: the next gets its dump */
		return;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	struct ilog_flight_stats st = { 0 };
	uint64_t trig = ilog_flight_open(r->flight), dropped = 0;
	int rc, e, fd, made_room = 0, tries = 0;
	for (;;) {
		st = (struct ilog_flight_stats){ 0 };
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		rc = fd < 0 ? -1 : ilog_flight_dump(r->flight, fd, &st);
		dropped += st.dropped;
		if (fd >= 0 && (close(fd) || rc))
			rc = -1;
		/* link: never over an existing file */
		if (!rc && link(tmp, path))
			rc = -1;
		e = errno;
		if (fd >= 0)
			unlink(tmp);
		/* a full disk, dumps bounded by --keep/--keep-size: the
		 * oldest dump goes (the last one too: the one being written
		 * is the newest now), and this one, its frames still in
		 * memory, is written again */
		if (!rc || (e != ENOSPC && e != EDQUOT) || !r->dumps || tries++ >= 4)
			break;
		ilog_rotate_set_current(r->dumps, "");
		int k = ilog_rotate_prune(r->dumps, 1, e2, sizeof(e2));
		if (k <= 0)
			break;
		made_room += k;
		if (!ilog_flight_open(r->flight))
			ilog_flight_trigger(r->flight, trig);
	}
	if (rc) {
		ilog_errorf("--flight: %s: %s%s", fd < 0 ? tmp : path, strerror(e),
			    made_room ? " (after deleting the oldest dumps for room)" : "");
		/* close the trigger all the same: the next one gets its dump */
		if (ilog_flight_open(r->flight))
			ilog_flight_dump(r->flight, -1, NULL);
		return;
	}
	/* --keep, --keep-size: the oldest dumps beyond them go */
	int gone = 0;
	if (r->dumps) {
		ilog_rotate_set_current(r->dumps, path);
		gone = ilog_rotate_prune(r->dumps, 0, e2, sizeof(e2));
		if (gone < 0) {
			ilog_warnf("--keep: %s", e2);
			gone = 0;
		}
	}
	gone += made_room;
	if (!r->o.quiet) {
		char del[96] = "";
		if (gone > 0)
			snprintf(del, sizeof(del), "; %d older dump%s deleted (%s)", gone,
				 gone == 1 ? "" : "s", made_room ? "a full disk" : "--keep");
		fprintf(stderr, "%s: flight dump %u written to %s: %.1f MiB, %llu frames%s%s%s\n",
			ilog_prog, r->flight_seq, path, (double)st.bytes / 1048576.0,
			(unsigned long long)st.frames, dropped ? ", the oldest dropped for "
			"--flight-size" : "", r->flight_folded ? " (later triggers folded in)" : "",
			del);
	}
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
	/* a process's p99 of an op over its baseline's (p99.c), each second */
	struct rec_p99_fire pf;
	if (r->p99 && now >= r->p99_next) {
		r->p99_next = now + 1000000000ull;
		if (rec_p99_second(r->p99, &pf))
			trigger(r, "p99", NULL, &pf);
	}
	if (ilog_flight_open(r->flight) && now >= r->flight_until)
		dump(r);
	/* the definitions rewritten from the context, under the first
	 * header's clocks (a dump's frames may be older than now) */
	if (ilog_flight_compact_due(r->flight, now)) {
		char buf[5][256] = { "" };
		struct ilog_header h;
		rec_header(r, &h, buf);
		h.mono_ns = r->hdr_clock[0];
		h.boot_ns = r->hdr_clock[1];
		h.real_ns = r->hdr_clock[2];
		if (!ilog_flight_compact(r->flight, r->wdef, &h, now))
			r->flight_compactions++;
		else
			ilog_warnf("--flight: rewriting the definitions: %s (the old ones kept)",
				   ilog_writer_error(r->wdef));
	}
}

void rec_flight_close(struct rec *r)
{
	if (r->flight && ilog_flight_open(r->flight))
		dump(r);
}
