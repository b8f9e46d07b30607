// SPDX-License-Identifier: MIT
/*
 * Rotation of a recording's files (ingero-record --rotate): where the
 * next file goes, when it is due, and which old ones go.  The files of a
 * recording -o DIR/NAME.ilog are DIR/NAME.YYYYMMDDTHHMMSSZ.ilog (the UTC
 * time the file starts; -N after the seconds when two start in one
 * second), so that their names sort as they were written, and the oldest
 * -- of this run or an earlier one with the same -o -- go first.  The
 * writer makes each file a complete log (ilog_writer_rotate).  A flight
 * recorder's dumps (--flight) are DIR/NAME.flight-SEQ-YYYYMMDDTHHMMSSZ.ilog:
 * SEQ restarts at 1 in each run, so they sort by time first; --keep and
 * --keep-size delete the oldest of them the same way.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#include "ingero/cli.h"
#include "ingero/vec.h"

struct ilog_rotate {
	struct ilog_rotate_opts o;
	char dir[PATH_MAX], stem[NAME_MAX + 1]; /* DIR and NAME of -o DIR/NAME.ilog */
	char cur[PATH_MAX];
	uint64_t t0_ns;                      /* CLOCK_MONOTONIC: the current file's start */
	uint32_t files;                      /* files made in this run */
	char last_ts[20];                    /* the last file's YYYYMMDDTHHMMSSZ, */
	/* and its -N (0: none) */
	unsigned long last_seq;
};

int ilog_rotate_parse(const char *s, uint64_t *bytes, uint64_t *ns)
{
	*bytes = *ns = 0;
	if (!s || !*s)
		return -1;
	size_t n = strlen(s);
	if (isdigit((unsigned char)s[n - 1]) || s[n - 1] == '.')
		return -1; /* no unit: a size or a time? */
	/* a lower-case unit is a time (m: minutes), one with an upper-case
	 * letter or a b a size (M, MiB, 512mb) */
	int size = 0;
	for (const char *p = s; *p; p++)
		if (isupper((unsigned char)*p) || *p == 'b')
			size = 1;
	return size ? ilog_parse_size(s, bytes) || !*bytes ? -1 : 0
		    : ilog_parse_duration(s, ns) || !*ns ? -1 : 0;
}

/* Is p a UTC time YYYYMMDDTHHMMSSZ?  Just past it, or NULL. */
static const char *utc_stamp(const char *p)
{
	for (int i = 0; i < 15; i++, p++)
		if (i == 8 ? *p != 'T' : !isdigit((unsigned char)*p))
			return NULL;
	return *p == 'Z' ? p + 1 : NULL;
}

#define FLIGHT_TAG ".flight-"
#define STAMP_ILOG 21 /* strlen("YYYYMMDDTHHMMSSZ.ilog") */

/* Is name one of ours: STEM.YYYYMMDDTHHMMSSZ[-N].ilog, or with
 * o.flight STEM.flight-SEQ-YYYYMMDDTHHMMSSZ.ilog? */
static int ours(const struct ilog_rotate *rt, const char *name)
{
	size_t k = strlen(rt->stem);
	if (strncmp(name, rt->stem, k))
		return 0;
	const char *p = name + k;
	if (rt->o.flight) {
		if (strncmp(p, FLIGHT_TAG, strlen(FLIGHT_TAG)))
			return 0;
		p += strlen(FLIGHT_TAG);
		if (!isdigit((unsigned char)*p))
			return 0;
		while (isdigit((unsigned char)*p))
			p++;
		return *p == '-' && (p = utc_stamp(p + 1)) && !strcmp(p, ".ilog");
	}
	if (*p++ != '.' || !(p = utc_stamp(p)))
		return 0;
	if (*p == '-') {
		if (!isdigit((unsigned char)*++p))
			return 0;
		while (isdigit((unsigned char)*p))
			p++;
	}
	return !strcmp(p, ".ilog");
}

/* A rotated file's name without its "-N" suffix (its length) and N (0
 * without one): STEM.YYYYMMDDTHHMMSSZ[-N].ilog. */
static size_t name_seq(const char *x, unsigned long *seq)
{
	size_t n = strlen(x) - 5; /* ".ilog" */
	size_t i = n;
	while (i > 0 && isdigit((unsigned char)x[i - 1]))
		i--;
	*seq = 0;
	if (i < n && i >= 2 && x[i - 1] == '-' && x[i - 2] == 'Z') {
		*seq = strtoul(x + i, NULL, 10);
		return i - 1;
	}
	return n;
}

/* Oldest first: by name without the suffix, then by N as a number (NAME
 * before NAME-1, -2 before -10). */
static int by_name(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	unsigned long sx, sy;
	size_t nx = name_seq(x, &sx), ny = name_seq(y, &sy);
	int c = strncmp(x, y, nx < ny ? nx : ny);
	if (c || nx != ny)
		return c ? c : (nx < ny ? -1 : 1);
	return sx < sy ? -1 : sx > sy;
}

/* Flight dumps, oldest first: by the time, then by SEQ as a number (a
 * run's 10th dump after its 9th, the next run's 1st after both). */
static int by_dump(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	const char *tx = x + strlen(x) - STAMP_ILOG, *ty = y + strlen(y) - STAMP_ILOG;
	int c = strncmp(tx, ty, STAMP_ILOG);
	if (c)
		return c;
	/* SEQ: the digits before "-STAMP"; more digits, a larger number */
	const char *sx = tx - 1, *sy = ty - 1;
	while (sx > x && isdigit((unsigned char)sx[-1]))
		sx--;
	while (sy > y && isdigit((unsigned char)sy[-1]))
		sy--;
	while (*sx == '0' && sx + 1 < tx - 1)
		sx++;
	while (*sy == '0' && sy + 1 < ty - 1)
		sy++;
	if (tx - sx != ty - sy)
		return tx - sx < ty - sy ? -1 : 1;
	return strncmp(sx, sy, (size_t)(tx - sx));
}

/* Our files in the folder, oldest first (malloc'ed names; *n of them).
 * 0, or -1 with errno. */
static int list(const struct ilog_rotate *rt, char ***names, uint32_t *n)
{
	*names = NULL;
	*n = 0;
	uint32_t cap = 0;
	DIR *d = opendir(rt->dir);
	if (!d)
		return -1;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!ours(rt, e->d_name))
			continue;
		char *s = strdup(e->d_name);
		if (!s || ilog_grow((void **)names, &cap, *n, sizeof(**names), 16)) {
			free(s);
			closedir(d);
			return -1;
		}
		(*names)[(*n)++] = s;
	}
	closedir(d);
	qsort(*names, *n, sizeof(**names), rt->o.flight ? by_dump : by_name);
	return 0;
}

static void list_free(char **names, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/*
 * The -N to start from for a file stamped ts: past every file of ours in
 * the folder with that stamp.  A name freed by a deleted file is not
 * taken again: NAME after NAME-1 would sort older than it, and a full
 * disk's pruning, oldest first, would find nothing before the current
 * file to delete.
 */
static unsigned long first_seq(const struct ilog_rotate *rt, const char *ts)
{
	char **names;
	uint32_t n;
	unsigned long next = 0;
	if (list(rt, &names, &n))
		return 0; /* O_EXCL still keeps the names apart */
	size_t k = strlen(rt->stem) + 1;
	for (uint32_t i = 0; i < n; i++) {
		unsigned long seq;
		if (!strncmp(names[i] + k, ts, 16)) {
			name_seq(names[i], &seq);
			if (seq + 1 > next)
				next = seq + 1;
		}
	}
	list_free(names, n);
	return next;
}

/*
 * Open a new file named for real_ns; its fd, or -1 with err.  Names never
 * go backwards in a run: a clock stepped back (or a second already used)
 * keeps the last file's stamp with the next -N, so the files still sort
 * as they were written.
 */
static int open_next(struct ilog_rotate *rt, uint64_t real_ns, char *err, size_t errlen)
{
	time_t t = (time_t)(real_ns / 1000000000ull);
	struct tm tm;
	char ts[32];
	gmtime_r(&t, &tm);
	strftime(ts, sizeof(ts), "%Y%m%dT%H%M%SZ", &tm);
	unsigned long seq = 0;
	if (rt->files && strcmp(ts, rt->last_ts) <= 0) {
		snprintf(ts, sizeof(ts), "%.16s", rt->last_ts);
		seq = rt->last_seq + 1;
	}
	unsigned long past = first_seq(rt, ts);
	if (past > seq)
		seq = past;
	for (int i = 0; i < 1000; i++, seq++) {
		char sfx[24] = "";
		if (seq)
			snprintf(sfx, sizeof(sfx), "-%lu", seq);
		int k = snprintf(rt->cur, sizeof(rt->cur), "%s/%s.%s%s.ilog", rt->dir, rt->stem, ts, sfx);
		if (k < 0 || (size_t)k >= sizeof(rt->cur)) {
			snprintf(err, errlen, "'%s/%s': path too long", rt->dir, rt->stem);
			return -1;
		}
		int fd = open(rt->cur, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0) {
			rt->files++;
			snprintf(rt->last_ts, sizeof(rt->last_ts), "%.16s", ts);
			rt->last_seq = seq;
			return fd;
		}
		if (errno != EEXIST) {
			snprintf(err, errlen, "'%s': %s", rt->cur, strerror(errno));
			return -1;
		}
	}
	snprintf(err, errlen, "'%s': too many files started in one second", rt->cur);
	return -1;
}

struct ilog_rotate *ilog_rotate_open(const struct ilog_rotate_opts *o, char *err, size_t errlen)
{
	struct ilog_rotate *rt = calloc(1, sizeof(*rt));
	if (!rt) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	rt->o = *o;
	const char *slash = strrchr(o->path, '/');
	const char *base = slash ? slash + 1 : o->path;
	size_t bl = strlen(base);
	if (bl > 5 && !strcmp(base + bl - 5, ".ilog"))
		bl -= 5;
	if (!bl || bl > NAME_MAX - 40) {
		snprintf(err, errlen, "'%s': not a file name to rotate", o->path);
		goto fail;
	}
	memcpy(rt->stem, base, bl);
	if (slash)
		snprintf(rt->dir, sizeof(rt->dir), "%.*s", (int)(slash - o->path), o->path);
	if (!rt->dir[0])
		snprintf(rt->dir, sizeof(rt->dir), "%s", slash ? "/" : ".");
	/* written before anything is attached: a folder that cannot take the
	 * files is a usage error, not a recording lost later */
	struct stat st;
	if (stat(rt->dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "'%s': %s", rt->dir, errno ? strerror(errno) : "not a folder");
		goto fail;
	}
	if (access(rt->dir, W_OK | X_OK)) {
		snprintf(err, errlen, "'%s': %s", rt->dir, strerror(errno));
		goto fail;
	}
	return rt;
fail:
	free(rt);
	return NULL;
}

int ilog_rotate_next(struct ilog_rotate *rt, uint64_t mono_ns, uint64_t real_ns, char *err,
		     size_t errlen)
{
	int fd = open_next(rt, real_ns, err, errlen);
	if (fd >= 0)
		rt->t0_ns = mono_ns;
	return fd;
}

int ilog_rotate_due(const struct ilog_rotate *rt, uint64_t file_bytes, uint64_t mono_ns)
{
	return (rt->o.max_bytes && file_bytes >= rt->o.max_bytes) ||
	       (rt->o.max_ns && mono_ns - rt->t0_ns >= rt->o.max_ns);
}

const char *ilog_rotate_current(const struct ilog_rotate *rt)
{
	return rt->cur;
}

int ilog_rotate_dump_path(const char *out, uint32_t seq, uint64_t real_ns, char *buf, size_t n)
{
	time_t t = (time_t)(real_ns / 1000000000ull);
	struct tm tm;
	char ts[32];
	strftime(ts, sizeof(ts), "%Y%m%dT%H%M%SZ", gmtime_r(&t, &tm));
	size_t stem = strlen(out);
	if (stem > 5 && !strcmp(out + stem - 5, ".ilog"))
		stem -= 5;
	int k = snprintf(buf, n, "%.*s" FLIGHT_TAG "%03u-%s.ilog", (int)stem, out, seq, ts);
	return k < 0 || (size_t)k >= n ? -1 : 0;
}

void ilog_rotate_set_current(struct ilog_rotate *rt, const char *path)
{
	snprintf(rt->cur, sizeof(rt->cur), "%s", path);
}

int ilog_rotate_prune(struct ilog_rotate *rt, uint32_t extra, char *err, size_t errlen)
{
	char **names;
	uint32_t n;
	if (list(rt, &names, &n)) {
		snprintf(err, errlen, "'%s': %s", rt->dir, strerror(errno));
		return -1;
	}
	/*
	 * Newest first, keep while within --keep files and --keep-size
	 * bytes, the current file counted (at its full size to come, when
	 * files rotate by size: the budget holds while it grows); files
	 * [0, cut) go, and `extra` more of the oldest (a full disk), never
	 * the current one.
	 */
	uint64_t total = 0;
	uint32_t cut = 0, icur = n;
	/* the current file by its name: the caller's path of a dump may
	 * spell the folder otherwise (rec.ilog's dumps in ".") */
	const char *cb = strrchr(rt->cur, '/');
	cb = cb ? cb + 1 : rt->cur;
	for (uint32_t i = n; i-- > 0;) {
		char p[PATH_MAX + NAME_MAX + 2];
		struct stat st;
		snprintf(p, sizeof(p), "%s/%s", rt->dir, names[i]);
		int cur = rt->cur[0] && !strcmp(names[i], cb);
		uint64_t sz = stat(p, &st) ? 0 : (uint64_t)st.st_size;
		if (cur) {
			icur = i;
			if (sz < rt->o.max_bytes)
				sz = rt->o.max_bytes;
		}
		total += sz;
		uint32_t count = n - i;
		if (!cur && ((rt->o.keep && count > rt->o.keep) ||
			     (rt->o.keep_bytes && total > rt->o.keep_bytes))) {
			cut = i + 1;
			break;
		}
	}
	cut += extra;
	if (cut > icur)
		cut = icur;
	int removed = 0;
	for (uint32_t i = 0; i < cut; i++) {
		char p[PATH_MAX + NAME_MAX + 2];
		snprintf(p, sizeof(p), "%s/%s", rt->dir, names[i]);
		if (unlink(p) && errno != ENOENT) {
			snprintf(err, errlen, "'%s': %s", p, strerror(errno));
			list_free(names, n);
			return -1;
		}
		removed++;
	}
	list_free(names, n);
	return removed;
}

int ilog_rotate_free_space(const char *path, uint64_t *avail, uint64_t *total)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
	if (!dir[0])
		snprintf(dir, sizeof(dir), "/");
	struct statvfs v;
	if (statvfs(dir, &v))
		return -1;
	*avail = (uint64_t)v.f_bavail * v.f_frsize;
	*total = (uint64_t)v.f_blocks * v.f_frsize;
	return 0;
}

void ilog_rotate_free(struct ilog_rotate *rt)
{
	free(rt);
}
