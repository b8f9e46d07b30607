// SPDX-License-Identifier: MIT
/*
 * `ingero-mcp RUN.ilog`: turn a log into the same database `ingero-export
 * --format sqlite` writes, so every tool has one schema to query.  The
 * export's own sink (lib/export/sqlite/sqlite.c, through the sink table in
 * lib/include/ingero/export.h) writes a private temporary file, which is copied into an
 * in-memory database with the SQLite backup API and removed: the server
 * then holds no file that anything could change under it.
 *
 * The sink writes the summaries the tools read (docs/schema.md), among
 * them, for a log that ingero-correlate has not seen, the chains its
 * causal engine finds: get_causal_chains answers for a raw recording too.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ingero/export.h"
#include "mcp_int.h"

/* Run every record of the log through the sqlite sink into path. */
static int export_log(const char *log, const struct ilog_analysis_opts *ao, const char *path,
		      int out_fd, char *note, size_t notelen, char *err, size_t errlen)
{
	const struct ilog_sink *sink = ilog_sink_find("sqlite");
	if (!sink) {
		snprintf(err, errlen, "%s: this build has no sqlite export to load logs with", log);
		return -1;
	}
	int fd = open(log, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", log, strerror(errno));
		return -1;
	}
	char rerr[256];
	struct ilog_reader *r = ilog_reader_open(fd, rerr, sizeof(rerr));
	if (!r) {
		snprintf(err, errlen, "%s: %s", log, rerr);
		close(fd);
		return -1;
	}
	struct ilog_sink_ctx ctx = { .out_fd = out_fd, .out_path = path, .source = log,
				     .analysis = ao };
	/* the records ingero-export --pid, --since, --until would export */
	struct ilog_filter filt = ao ? ao->filt : (struct ilog_filter){ 0 };
	int rc = -1, k = 0;
	if (sink->open(&ctx)) {
		snprintf(err, errlen, "%s: loading: %s", log, ctx.err);
		goto out;
	}
	const struct ilog_record *rec;
	uint64_t n = 0, ndamage = 0;
	char first[sizeof(rerr) + 384] = "";
	while ((k = ilog_reader_next(r, &rec)) > 0 || k == ILOG_READ_DAMAGE) {
		if (k < 0) { /* SPEC §9: skipped, the rest is loaded */
			if (!ndamage++)
				snprintf(first, sizeof(first), "%s", ilog_reader_error(r));
			continue;
		}
		n++;
		if ((sink->observe && sink->observe(&ctx, rec)) ||
		    (ilog_filter_match(&filt, rec, r) && sink->record(&ctx, rec, r))) {
			snprintf(err, errlen, "%s: loading: %s", log, ctx.err);
			sink->close(&ctx);
			goto out;
		}
	}
	if (k < 0) {
		/* A recorder killed mid-frame leaves a damaged tail; what came
		 * before it is still worth investigating (SPEC §9). */
		if (!n) {
			snprintf(err, errlen, "%s: %s", log, ilog_reader_error(r));
			sink->close(&ctx);
			goto out;
		}
		snprintf(note, notelen, "%s: %s (the %llu records before it are loaded)", log,
			 ilog_reader_error(r), (unsigned long long)n);
	} else if (ndamage) {
		snprintf(note, notelen, "%s: %s (%llu damaged range%s skipped; the %llu records "
			 "outside them are loaded)", log, first, (unsigned long long)ndamage,
			 ndamage == 1 ? "" : "s", (unsigned long long)n);
	}
	if (sink->close(&ctx)) {
		snprintf(err, errlen, "%s: loading: %s", log, ctx.err);
		goto out;
	}
	rc = 0;
out:
	ilog_reader_close(r);
	close(fd);
	return rc;
}

struct ilog_mcp *ilog_mcp_open_log(const char *log, const struct ilog_mcp_opts *opts,
				   char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	char dir[4096], path[4200], note[512] = "";
	snprintf(dir, sizeof(dir), "%s/ingero-mcp.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/load.db", dir);
	sqlite3 *file = NULL, *mem = NULL;
	struct ilog_mcp *m = NULL;
	/* A sink that opens its path itself wants it not to exist yet. */
	const struct ilog_sink *sink = ilog_sink_find("sqlite");
	int fd = -1;
	if (sink && !sink->path_output &&
	    (fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	int rc = export_log(log, opts ? opts->analysis : NULL, path, fd, note, sizeof(note), err,
			    errlen);
	if (fd >= 0)
		close(fd);
	if (rc)
		goto out;
	if (sqlite3_open_v2(path, &file, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: cannot open the loaded database", log);
		goto out;
	}
	sqlite3_backup *b = sqlite3_backup_init(mem, "main", file, "main");
	rc = b ? sqlite3_backup_step(b, -1) : SQLITE_ERROR;
	sqlite3_backup_finish(b);
	if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "%s: copying into memory: %s", log, sqlite3_errmsg(mem));
		goto out;
	}
	struct ilog_mcp_opts o = opts ? *opts : (struct ilog_mcp_opts){ 0 };
	if (!o.source)
		o.source = log;
	m = ilog_mcp_adopt_db(mem, &o, err, errlen);
	mem = NULL; /* adopted, or closed on failure */
	if (m)
		snprintf(m->note, sizeof(m->note), "%s", note);
out:
	sqlite3_close(file);
	sqlite3_close(mem);
	/* The sink may have left a journal beside the file. */
	static const char *const sfx[] = { "", "-journal", "-wal", "-shm" };
	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		char p[4300];
		snprintf(p, sizeof(p), "%s%s", path, sfx[i]);
		unlink(p);
	}
	rmdir(dir);
	return m;
}

const char *ilog_mcp_note(const struct ilog_mcp *m)
{
	return m->note;
}
