// SPDX-License-Identifier: MIT
/*
 * --rotate: the recording goes to a series of files, each a complete log
 * (the writer replays the context a reader needs, ilog_writer_rotate);
 * lib/cli/rotate.c names them and deletes the oldest.  A full disk
 * (ENOSPC): the file being written is cut back to its last whole frame,
 * one line says so, the oldest file of the recording is deleted and
 * recording goes on in a new file; with no older file left to delete the
 * recording stops cleanly (exit 2).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "ingero/cli.h"
#include "rec.h"

int rec_rotate_open(struct rec *r)
{
	r->o.rot.path = r->o.out;
	if (!(r->rot = ilog_rotate_open(&r->o.rot, r->err, sizeof(r->err))))
		return -1;
	r->out_fd = ilog_rotate_next(r->rot, rec_now(CLOCK_MONOTONIC), rec_now(CLOCK_REALTIME),
				     r->err, sizeof(r->err));
	if (r->out_fd < 0 || ilog_rotate_prune(r->rot, 0, r->err, sizeof(r->err)) < 0)
		return -1;
	return 0;
}

/* A write failed for want of room (a full disk, or a quota). */
static int disk_full(int en)
{
	return en == ENOSPC || en == EDQUOT;
}

/* The current file back to its last whole frame (what the writer wrote
 * whole stays a log), the offset there; a warning when it cannot be. 0 or -1. */
static int cut_back(struct rec *r)
{
	struct ilog_writer_stats st;
	ilog_writer_stats(r->w, &st);
	if (ftruncate(r->out_fd, (off_t)st.file_bytes) ||
	    lseek(r->out_fd, (off_t)st.file_bytes, SEEK_SET) < 0) {
		ilog_warnf("%s: cannot cut back to its last frame: %s", ilog_rotate_current(r->rot),
			   strerror(errno));
		return -1;
	}
	return 0;
}

/* Into the next file; after a full disk, first make room.  0 or -1. */
static int next_file(struct rec *r, int full)
{
	char e[512];
	for (int tries = 0; tries < 4; tries++) {
		if (full) {
			int k = ilog_rotate_prune(r->rot, 1, e, sizeof(e));
			if (k <= 0) {
				snprintf(r->err, sizeof(r->err), "%s: no space left on the device and no older file of the recording to delete: recording stopped (every file written is whole)",
					 ilog_rotate_current(r->rot));
				return -1;
			}
		}
		int fd = ilog_rotate_next(r->rot, rec_now(CLOCK_MONOTONIC), rec_now(CLOCK_REALTIME),
					  e, sizeof(e));
		if (fd < 0) {
			snprintf(r->err, sizeof(r->err), "%s", e);
			if (!disk_full(errno))
				return -1;
			full = 1;
			continue;
		}
		/* the last frame of the old file first: if the disk is full
		 * now, it is cut back to its last whole frame (that frame is
		 * lost: counted in `dropped`) */
		if (!full && ilog_writer_flush(r->w))
			cut_back(r);
		char buf[5][256] = { "" };
		struct ilog_header h;
		rec_header(r, &h, buf);
		int rc = ilog_writer_rotate(r->w, fd, &h);
		close(r->out_fd);
		r->out_fd = fd;
		if (!rc)
			return ilog_rotate_prune(r->rot, 0, r->err, sizeof(r->err)) < 0 ? -1 : 0;
		int en = ilog_writer_errno(r->w);
		/* the new file cut back to nothing whole is nothing: gone */
		struct ilog_writer_stats st;
		ilog_writer_stats(r->w, &st);
		if (ftruncate(fd, (off_t)st.file_bytes) == 0 && !st.file_bytes)
			unlink(ilog_rotate_current(r->rot));
		snprintf(r->err, sizeof(r->err), "%s: %s", ilog_rotate_current(r->rot),
			 ilog_writer_error(r->w));
		if (!disk_full(en))
			return -1;
		full = 1;
	}
	return -1;
}

int rec_rotate_tick(struct rec *r, int force)
{
	struct ilog_writer_stats st;
	ilog_writer_stats(r->w, &st);
	int en = ilog_writer_errno(r->w);
	if (en) {
		/* what reached the file before the failed write stays a log */
		cut_back(r);
		if (!disk_full(en)) {
			snprintf(r->err, sizeof(r->err), "%s: %s", ilog_rotate_current(r->rot),
				 ilog_writer_error(r->w));
			return -1;
		}
		char was[4096];
		snprintf(was, sizeof(was), "%s", ilog_rotate_current(r->rot));
		uint64_t lost0 = st.dropped;
		if (next_file(r, 1))
			return -1;
		ilog_writer_stats(r->w, &st);
		ilog_errorf("%s: no space left on the device: the file ends at its last whole frame, "
			    "%llu records lost; oldest files deleted, recording goes on in %s", was,
			    (unsigned long long)(st.dropped - lost0), ilog_rotate_current(r->rot));
		return 0;
	}
	if (!force && !ilog_rotate_due(r->rot, st.file_bytes, rec_now(CLOCK_MONOTONIC)))
		return 0;
	return next_file(r, 0);
}

/*
 * The last frame of a rotated recording, at its end: the newest events,
 * the ones an incident was recorded for.  On a full disk the oldest files
 * of the recording go, one at a time, until it fits in the current file;
 * with none left to delete the file is cut back to its last whole frame.
 * One line says which.  Either way the recording ended as asked (as a full
 * disk in the middle of it does, it is no error).  0: written; 1: a full
 * disk, said; -1: another write error (r->err; the file is cut back all
 * the same).
 */
int rec_rotate_finish(struct rec *r)
{
	if (!ilog_writer_flush(r->w))
		return 0;
	char e[512];
	int en, made = 0;
	for (;;) {
		en = ilog_writer_errno(r->w);
		if (cut_back(r) || !disk_full(en) || ilog_rotate_prune(r->rot, 1, e, sizeof(e)) <= 0)
			break;
		made++;
		if (!ilog_writer_retry(r->w)) {
			ilog_errorf("%s: no space left on the device for the recording's last frame: "
				    "%d oldest files deleted", ilog_rotate_current(r->rot), made);
			return 1;
		}
	}
	if (!disk_full(en)) {
		snprintf(r->err, sizeof(r->err), "%s: %s", ilog_rotate_current(r->rot),
			 ilog_writer_error(r->w));
		return -1;
	}
	struct ilog_writer_stats st;
	ilog_writer_stats(r->w, &st);
	ilog_errorf("%s: no space left on the device and no older file of the recording to "
		    "delete: the file ends at its last whole frame, %llu records lost at the end "
		    "of the recording", ilog_rotate_current(r->rot), (unsigned long long)st.pending);
	return 1;
}
