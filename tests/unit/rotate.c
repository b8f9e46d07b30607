// SPDX-License-Identifier: MIT
/*
 * Rotation: the writer's ilog_writer_rotate makes each file a complete log
 * (header, the context records a reader needs, ops named anew) with no
 * record lost or written twice at the boundary; lib/cli/rotate.c's names,
 * --rotate values and pruning by --keep and --keep-size.
 */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ingero/cli.h"
#include "ingero/ilog.h"
#include "ingero/io.h"
#include "test.h"

static void put(struct ilog_writer *w, const struct ilog_record *rec)
{
	if (ilog_writer_put(w, rec))
		abort();
}

struct counts { uint64_t header, process, mapping, stack, cuda, named, opname; char comm[32]; };

/* Reads fd from its start; counts by kind, and named cuda ops read back by name. */
static int count(int fd, struct counts *c)
{
	char err[256];
	lseek(fd, 0, SEEK_SET);
	struct ilog_reader *r = ilog_reader_open(fd, err, sizeof(err));
	const struct ilog_record *rec;
	int rc, first = 1;
	memset(c, 0, sizeof(*c));
	while ((rc = ilog_reader_next(r, &rec)) > 0) {
		if (first && rec->kind != ILOG_K_HEADER)
			rc = -5;
		first = 0;
		switch (rec->kind) {
		case ILOG_K_HEADER: c->header++; break;
		case ILOG_K_PROCESS:
			c->process++;
			ilog_str_copy(c->comm, sizeof(c->comm), rec->u.process.comm);
			break;
		case ILOG_K_MAPPING: c->mapping++; break;
		case ILOG_K_STACK: c->stack++; break;
		case ILOG_K_OPNAME: c->opname++; break;
		case ILOG_K_CUDA:
			c->cuda++;
			if (rec->u.cuda.op >= ILOG_OP_NAMED_FIRST &&
			    !strcmp(ilog_op_name(rec->u.cuda.op) ?: "", "cudaFakeRotate"))
				c->named++;
			break;
		}
	}
	ilog_reader_close(r);
	return rc;
}

static void test_writer_rotate(void)
{
	int a = memfd_create("a", 0), b = memfd_create("b", 0);
	char err[256];
	struct ilog_writer *w = ilog_writer_open(a, &(struct ilog_writer_opts){ .context = 1 }, err,
						 sizeof(err));
	struct ilog_header h = { .node = ILOG_STR("n"), .session_id = 7, .mono_ns = 1000, .real_ns = 2000 };
	ok(w && !ilog_writer_begin(w, &h), "writer with context opens");
	struct ilog_record p = { .kind = ILOG_K_PROCESS };
	p.u.process.pid = 42;
	p.u.process.comm = ILOG_STR("old");
	put(w, &p);
	p.u.process.comm = ILOG_STR("train"); /* the newer record replaces it */
	put(w, &p);
	struct ilog_record m = { .kind = ILOG_K_MAPPING };
	m.u.mapping.pid = 42;
	m.u.mapping.start = 0x1000;
	m.u.mapping.end = 0x2000;
	m.u.mapping.path = ILOG_STR("/lib/libcudart.so.13");
	put(w, &m);
	struct ilog_record s = { .kind = ILOG_K_STACK };
	s.u.stack.id = 9;
	s.u.stack.pid = 42;
	s.u.stack.nr = 2;
	s.u.stack.ips[0] = 0x1100;
	s.u.stack.ips[1] = 0x1200;
	put(w, &s);
	int op = ilog_op_intern("cudaFakeRotate", 14, ILOG_LAYER_RUNTIME, 0);
	ok(op >= ILOG_OP_NAMED_FIRST, "a named op");
	struct ilog_record c = { .kind = ILOG_K_CUDA };
	c.u.cuda.pid = 42;
	c.u.cuda.op = (uint16_t)op;
	c.u.cuda.stack_id = 9;
	for (int i = 0; i < 5; i++) {
		c.u.cuda.ts_ns = 5000 + 100 * (uint64_t)i;
		put(w, &c);
	}
	/* records not yet in a frame go to the old file */
	h.mono_ns = 9000;
	ok(!ilog_writer_rotate(w, b, &h), "rotate");
	for (int i = 0; i < 3; i++) {
		c.u.cuda.ts_ns = 9000 + 100 * (uint64_t)i;
		put(w, &c);
	}
	ok(!ilog_writer_close(w, err, sizeof(err)), "close");
	struct counts ca, cb;
	ok(count(a, &ca) == 0 && ca.header == 1 && ca.cuda == 5 && ca.named == 5 && ca.process == 2 &&
	   ca.mapping == 1 && ca.stack == 1 && ca.opname == 1,
	   "first file: every record put before the rotation, once (%llu cuda)", (unsigned long long)ca.cuda);
	ok(count(b, &cb) == 0 && cb.header == 1 && cb.cuda == 3 && cb.named == 3 && cb.process == 1 &&
	   !strcmp(cb.comm, "train") && cb.mapping == 1 && cb.stack == 1 && cb.opname == 1,
	   "second file alone: header, the latest process record, its mapping, the stack, the op's name, "
	   "and the 3 calls after the rotation");
	close(a);
	close(b);
}

/* Who is alive, for test_writer_gone's alive callback. */
static int alive_pid(void *ctx, uint32_t pid)
{
	return pid != *(const uint32_t *)ctx;
}

/* Processes gone leave the context: one that exited (its exit record) or
 * that alive says is gone is written into the next file once more and
 * dropped at the rotation after; the living, and a new process under a
 * pid that exited, stay. */
static void test_writer_gone(void)
{
	int fd[4];
	for (int i = 0; i < 4; i++)
		fd[i] = memfd_create("g", 0);
	char err[256];
	uint32_t dead = 0;
	struct ilog_writer *w = ilog_writer_open(
		fd[0], &(struct ilog_writer_opts){ .context = 1, .alive = alive_pid, .alive_ctx = &dead },
		err, sizeof(err));
	struct ilog_header h = { .node = ILOG_STR("n"), .session_id = 7, .mono_ns = 1000, .real_ns = 2000 };
	ok(w && !ilog_writer_begin(w, &h), "writer with context and alive opens");
	struct ilog_record p = { .kind = ILOG_K_PROCESS }, m = { .kind = ILOG_K_MAPPING };
	for (uint32_t pid = 10; pid <= 13; pid++) {
		p.u.process.pid = pid;
		p.u.process.comm = ILOG_STR("p");
		put(w, &p);
		m.u.mapping.pid = pid;
		m.u.mapping.start = 0x1000;
		m.u.mapping.end = 0x2000;
		m.u.mapping.path = ILOG_STR("/lib/libcudart.so.13");
		put(w, &m);
	}
	struct ilog_record x = { .kind = ILOG_K_HOST };
	x.u.host.type = ILOG_HOST_EXIT;
	x.u.host.ts_ns = 3000;
	x.u.host.pid = 10; /* 10 exits */
	put(w, &x);
	x.u.host.pid = 12; /* 12 exits, and a new process takes its pid */
	put(w, &x);
	p.u.process.pid = 12;
	p.u.process.comm = ILOG_STR("new");
	put(w, &p);
	dead = 11; /* 11 is gone without an exit record (not traced) */
	struct counts c[4];
	for (int i = 1; i < 4; i++)
		ok(!ilog_writer_rotate(w, fd[i], &h), "rotate %d", i);
	ok(!ilog_writer_close(w, err, sizeof(err)), "close");
	for (int i = 0; i < 4; i++)
		ok(count(fd[i], &c[i]) == 0, "file %d reads", i);
	ok(c[1].process == 4 && c[1].mapping == 4,
	   "the file after the exits still names every process (%llu process records)",
	   (unsigned long long)c[1].process);
	ok(c[2].process == 2 && c[2].mapping == 2,
	   "then only the living: 13 and the new 12 (%llu process, %llu mapping records)",
	   (unsigned long long)c[2].process, (unsigned long long)c[2].mapping);
	ok(c[3].process == 2 && c[3].mapping == 2, "and they stay");
	for (int i = 0; i < 4; i++)
		close(fd[i]);
}

static int mkfile(const char *dir, const char *name, size_t size)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)size))
		return -1;
	return close(fd);
}

static int exists(const char *dir, const char *name)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

static void test_files(void)
{
	uint64_t by, ns;
	ok(!ilog_rotate_parse("1G", &by, &ns) && by == 1ull << 30 && !ns, "--rotate 1G: a size");
	ok(!ilog_rotate_parse("512MiB", &by, &ns) && by == 512ull << 20, "--rotate 512MiB");
	ok(!ilog_rotate_parse("10m", &by, &ns) && ns == 600000000000ull && !by, "--rotate 10m: ten minutes");
	ok(!ilog_rotate_parse("64mb", &by, &ns) && by == 64ull << 20, "--rotate 64mb: a size");
	ok(ilog_rotate_parse("10", &by, &ns) && ilog_rotate_parse("0s", &by, &ns) &&
	   ilog_rotate_parse("x", &by, &ns) && ilog_rotate_parse("", &by, &ns),
	   "--rotate: a bare number, 0 and words are refused");
	char dir[] = "/tmp/ingero-rotate-XXXXXX";
	if (!mkdtemp(dir))
		abort();
	char path[256], err[256];
	snprintf(path, sizeof(path), "%s/run.ilog", dir);
	/* an earlier run's files and others' */
	mkfile(dir, "run.20260101T000000Z.ilog", 100);
	mkfile(dir, "run.20260101T000001Z.ilog", 100);
	mkfile(dir, "run.ilog", 100);
	mkfile(dir, "other.20250101T000000Z.ilog", 100);
	mkfile(dir, "run.2026.ilog", 100);
	struct ilog_rotate_opts o = { .path = path, .max_ns = 1, .keep = 3 };
	struct ilog_rotate *rt = ilog_rotate_open(&o, err, sizeof(err));
	ok(rt != NULL, "rotation opens in a writable folder");
	uint64_t real = 1795000000ull * 1000000000ull; /* 2026-11-18T11:06:40Z */
	int fd1 = ilog_rotate_next(rt, 0, real, err, sizeof(err));
	is_str(strrchr(ilog_rotate_current(rt), '/'), "/run.20261118T110640Z.ilog", "named by its UTC start");
	int fd2 = ilog_rotate_next(rt, 1, real, err, sizeof(err));
	is_str(strrchr(ilog_rotate_current(rt), '/'), "/run.20261118T110640Z-1.ilog", "two in one second: -1");
	ok(ilog_rotate_due(rt, 0, 2) && !ilog_rotate_due(rt, 0, 1), "due by age");
	ok(ilog_rotate_prune(rt, 0, err, sizeof(err)) == 1 &&
	   !exists(dir, "run.20260101T000000Z.ilog") && exists(dir, "run.20260101T000001Z.ilog") &&
	   exists(dir, "run.20261118T110640Z.ilog") && exists(dir, "run.20261118T110640Z-1.ilog") &&
	   exists(dir, "run.ilog") && exists(dir, "other.20250101T000000Z.ilog") && exists(dir, "run.2026.ilog"),
	   "--keep 3 of 4: the oldest file of the recording goes (an earlier run's), no other file");
	ok(ilog_rotate_prune(rt, 1, err, sizeof(err)) == 1 && !exists(dir, "run.20260101T000001Z.ilog") &&
	   exists(dir, "run.20261118T110640Z.ilog"), "a full disk: one more of the oldest");
	ok(ilog_rotate_prune(rt, 1, err, sizeof(err)) == 1 && !exists(dir, "run.20261118T110640Z.ilog") &&
	   ilog_rotate_prune(rt, 1, err, sizeof(err)) == 0 && exists(dir, "run.20261118T110640Z-1.ilog"),
	   "the current file is never deleted");
	/* a full disk in the second NAME and NAME-1 started: NAME goes; the
	 * next file of that second is NAME-2, not NAME again (NAME would sort
	 * before NAME-1 and the next full disk would find nothing older to
	 * delete) */
	int fd5 = ilog_rotate_next(rt, 2, real, err, sizeof(err));
	ok(fd5 >= 0 && ilog_rotate_prune(rt, 1, err, sizeof(err)) == 1 &&
	   !exists(dir, "run.20261118T110640Z-1.ilog") && exists(dir, "run.20261118T110640Z-2.ilog"),
	   "a full disk at NAME-2: NAME-1 goes");
	int fd6 = ilog_rotate_next(rt, 3, real, err, sizeof(err));
	is_str(strrchr(ilog_rotate_current(rt), '/'), "/run.20261118T110640Z-3.ilog",
	       "the next in that second: -3, past the files made, though NAME and NAME-1 are free");
	ok(ilog_rotate_prune(rt, 1, err, sizeof(err)) == 1 && !exists(dir, "run.20261118T110640Z-2.ilog"),
	   "and a full disk there finds NAME-2 to delete");
	int fd7 = ilog_rotate_next(rt, 4, real - 3600000000000ull, err, sizeof(err));
	is_str(strrchr(ilog_rotate_current(rt), '/'), "/run.20261118T110640Z-4.ilog",
	       "the clock stepped back an hour: the last file's time, the next -N");
	ok(ilog_rotate_prune(rt, 1, err, sizeof(err)) == 1 && !exists(dir, "run.20261118T110640Z-3.ilog"),
	   "still the oldest goes first");
	close(fd5);
	close(fd6);
	close(fd7);
	unlink(ilog_rotate_current(rt));
	ilog_rotate_free(rt);
	/* a new run in a second whose NAME-1 an earlier run left, its NAME
	 * deleted: past it */
	mkfile(dir, "run.20261118T110650Z-1.ilog", 10);
	rt = ilog_rotate_open(&o, err, sizeof(err));
	int fd8 = ilog_rotate_next(rt, 0, real + 10000000000ull, err, sizeof(err));
	is_str(strrchr(ilog_rotate_current(rt), '/'), "/run.20261118T110650Z-2.ilog",
	       "a new run: past an earlier run's -N in that second");
	close(fd8);
	unlink(ilog_rotate_current(rt));
	snprintf(path, sizeof(path), "%s/run.20261118T110650Z-1.ilog", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/run.ilog", dir);
	ilog_rotate_free(rt);
	/* --keep-size: the current file counts at its full size */
	struct ilog_rotate_opts o2 = { .path = path, .max_bytes = 300, .keep_bytes = 700 };
	rt = ilog_rotate_open(&o2, err, sizeof(err));
	mkfile(dir, "run.20260201T000000Z.ilog", 300);
	mkfile(dir, "run.20260202T000000Z.ilog", 300);
	int fd3 = ilog_rotate_next(rt, 0, real + 5000000000ull, err, sizeof(err));
	ok(ilog_rotate_prune(rt, 0, err, sizeof(err)) == 1 && exists(dir, "run.20261118T110645Z.ilog") &&
	   exists(dir, "run.20260202T000000Z.ilog") && !exists(dir, "run.20260201T000000Z.ilog"),
	   "--keep-size 700, files of 300 and the current one counted at 300: the oldest goes");
	ilog_rotate_free(rt);
	/* ten files started in one second: -10 is newer than -2 */
	char path4[256];
	snprintf(path4, sizeof(path4), "%s/seq.ilog", dir);
	struct ilog_rotate_opts o4 = { .path = path4, .max_ns = 1, .keep = 2 };
	rt = ilog_rotate_open(&o4, err, sizeof(err));
	mkfile(dir, "seq.20260301T000000Z-2.ilog", 10);
	mkfile(dir, "seq.20260301T000000Z-10.ilog", 10);
	mkfile(dir, "seq.20260301T000000Z.ilog", 10);
	int fd4 = ilog_rotate_next(rt, 0, real, err, sizeof(err));
	ok(ilog_rotate_prune(rt, 0, err, sizeof(err)) == 2 && exists(dir, "seq.20260301T000000Z-10.ilog") &&
	   !exists(dir, "seq.20260301T000000Z-2.ilog") && !exists(dir, "seq.20260301T000000Z.ilog"),
	   "--keep 2: NAME and NAME-2 go before NAME-10");
	close(fd4);
	ilog_rotate_free(rt);
	struct ilog_rotate_opts o3 = { .path = "/nonexistent/run.ilog", .max_ns = 1 };
	ok(!ilog_rotate_open(&o3, err, sizeof(err)) && strstr(err, "/nonexistent"),
	   "a folder that is not there: refused at once (%s)", err);
	uint64_t av, tot;
	ok(!ilog_rotate_free_space(path, &av, &tot) && tot >= av && tot > 0, "free space of the folder");
	close(fd1);
	close(fd2);
	close(fd3);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		diag("could not remove %s", dir);
}

/* A flight recorder's dumps (--flight with --keep, --keep-size): named by
 * ilog_rotate_dump_path, pruned oldest first by time then by number, the
 * newest never, the recording's rotated files and others left alone. */
static void test_dumps(void)
{
	char dir[] = "/tmp/ingero-dumps-XXXXXX";
	if (!mkdtemp(dir))
		abort();
	char path[256], err[256], d[512];
	snprintf(path, sizeof(path), "%s/node.ilog", dir);
	uint64_t real = 1795000000ull * 1000000000ull; /* 2026-11-18T11:06:40Z */
	ok(!ilog_rotate_dump_path(path, 7, real, d, sizeof(d)) &&
	   !strcmp(strrchr(d, '/'), "/node.flight-007-20261118T110640Z.ilog"),
	   "a dump's name: -o less .ilog, its number, its UTC time (%s)", d);
	ok(!ilog_rotate_dump_path("rec", 1234, real, d, sizeof(d)) &&
	   !strcmp(d, "rec.flight-1234-20261118T110640Z.ilog"), "no .ilog, no folder, 4 digits");
	ok(ilog_rotate_dump_path(path, 1, real, d, 20), "a name that does not fit: refused");
	/* an earlier run's dumps (its 9th, 10th), this run's (its 1st, 2nd:
	 * the 2nd in the same second as the 1st), others' */
	mkfile(dir, "node.flight-010-20261118T100000Z.ilog", 100);
	mkfile(dir, "node.flight-009-20261118T100000Z.ilog", 100);
	mkfile(dir, "node.flight-001-20261118T110640Z.ilog", 100);
	mkfile(dir, "node.flight-002-20261118T110640Z.ilog", 100);
	mkfile(dir, "node.20260101T000000Z.ilog", 100);
	mkfile(dir, "node.flight-x-20260101T000000Z.ilog", 100);
	mkfile(dir, "node.flight-003-20261118T110640Z.ilog.tmp", 100);
	mkfile(dir, "other.flight-001-20250101T000000Z.ilog", 100);
	struct ilog_rotate_opts o = { .path = path, .flight = 1, .keep = 3 };
	struct ilog_rotate *rt = ilog_rotate_open(&o, err, sizeof(err));
	ok(rt != NULL, "dumps: opens in a writable folder");
	ok(ilog_rotate_prune(rt, 0, err, sizeof(err)) == 1 &&
	   !exists(dir, "node.flight-009-20261118T100000Z.ilog") &&
	   exists(dir, "node.flight-010-20261118T100000Z.ilog"),
	   "--keep 3 of 4 dumps: the earlier run's 9th goes (older than its 10th, by number)");
	ok(exists(dir, "node.20260101T000000Z.ilog") && exists(dir, "node.flight-x-20260101T000000Z.ilog") &&
	   exists(dir, "node.flight-003-20261118T110640Z.ilog.tmp") &&
	   exists(dir, "other.flight-001-20250101T000000Z.ilog"), "dumps: no other file touched");
	ilog_rotate_dump_path(path, 3, real + 1000000000ull, d, sizeof(d));
	mkfile(dir, strrchr(d, '/') + 1, 100);
	ilog_rotate_set_current(rt, d);
	ok(ilog_rotate_prune(rt, 0, err, sizeof(err)) == 1 &&
	   !exists(dir, "node.flight-010-20261118T100000Z.ilog") &&
	   exists(dir, "node.flight-001-20261118T110640Z.ilog") &&
	   exists(dir, "node.flight-002-20261118T110640Z.ilog") &&
	   exists(dir, "node.flight-003-20261118T110641Z.ilog"), "a new dump: the oldest goes");
	ilog_rotate_free(rt);
	/* --keep-size 250: dumps of 100, the newest (of 300) kept all the same */
	struct ilog_rotate_opts o2 = { .path = path, .flight = 1, .keep_bytes = 250 };
	rt = ilog_rotate_open(&o2, err, sizeof(err));
	ilog_rotate_dump_path(path, 4, real + 2000000000ull, d, sizeof(d));
	mkfile(dir, strrchr(d, '/') + 1, 300);
	ilog_rotate_set_current(rt, d);
	ok(ilog_rotate_prune(rt, 0, err, sizeof(err)) == 3 && exists(dir, strrchr(d, '/') + 1) &&
	   !exists(dir, "node.flight-003-20261118T110641Z.ilog"),
	   "--keep-size under one dump: every older one goes, the newest stays");
	/* a full disk: with no current dump, even the last one can go */
	ilog_rotate_set_current(rt, "");
	ok(ilog_rotate_prune(rt, 1, err, sizeof(err)) == 1 && !exists(dir, strrchr(d, '/') + 1),
	   "a full disk with no dump being kept: the last one goes");
	ilog_rotate_free(rt);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		diag("could not remove %s", dir);
}

/* A frame whose write failed is written again once there is room (the
 * recorder's last frame on a full disk): here the file size limit stands
 * for the full disk (EFBIG after a partial write). */
static void test_writer_retry(void)
{
	int fd = memfd_create("r", 0);
	char err[256];
	struct ilog_writer *w = ilog_writer_open(fd, &(struct ilog_writer_opts){ 0 }, err, sizeof(err));
	struct ilog_header h = { .node = ILOG_STR("n"), .session_id = 7, .mono_ns = 1000, .real_ns = 2000 };
	ok(w && !ilog_writer_begin(w, &h) && !ilog_writer_flush(w), "writer opens, header written");
	struct ilog_writer_stats st;
	ilog_writer_stats(w, &st);
	uint64_t whole = st.file_bytes;
	struct ilog_record c = { .kind = ILOG_K_CUDA };
	c.u.cuda.pid = 42;
	c.u.cuda.op = ILOG_OP_cudaLaunchKernel;
	for (int i = 0; i < 100; i++) {
		c.u.cuda.ts_ns = 5000 + 100 * (uint64_t)i;
		put(w, &c);
	}
	struct rlimit old, lim;
	getrlimit(RLIMIT_FSIZE, &old);
	lim = (struct rlimit){ (rlim_t)whole + 8, old.rlim_max };
	signal(SIGXFSZ, SIG_IGN);
	ok(!setrlimit(RLIMIT_FSIZE, &lim), "file size limit set");
	ok(ilog_writer_flush(w) && ilog_writer_errno(w) == EFBIG, "the frame's write fails (%s)",
	   ilog_writer_error(w));
	ilog_writer_stats(w, &st);
	ok(st.pending == 100 && st.file_bytes == whole, "its 100 records pending, the file whole to %llu",
	   (unsigned long long)whole);
	ok(ilog_writer_flush(w) && ilog_writer_put(w, &c), "a failed writer stays failed");
	setrlimit(RLIMIT_FSIZE, &old);
	ok(!ftruncate(fd, (off_t)whole) && lseek(fd, (off_t)whole, SEEK_SET) == (off_t)whole &&
	   !ilog_writer_retry(w), "room made: the frame is written again");
	ilog_writer_stats(w, &st);
	struct counts n;
	ok(!st.pending && count(fd, &n) == 0 && n.header == 1 && n.cuda == 100,
	   "the file reads whole with the 100 records");
	ok(!ilog_writer_retry(w), "a retry with nothing failed does nothing");
	ilog_writer_close(w, NULL, 0);
	close(fd);
}

/* Who is alive for test_flight_compact: the pids from *ctx up. */
static int alive_from(void *ctx, uint32_t pid)
{
	return pid >= *(const uint32_t *)ctx;
}

/* A flight recorder's definitions (--flight) rewritten from the context
 * (ilog_flight_compact): generations of 100 processes, each gone when the
 * next starts.  After each compaction the definitions hold the living
 * generation and the one found gone at it, not every process met, so
 * they stay the same size; a dump reads whole, names the op used only
 * before the compactions, and holds the stack. */
static void test_flight_compact(void)
{
	char err[256], comm[16], path[300];
	uint32_t first_alive = 0;
	struct ilog_flight *fl = ilog_flight_new(600000000000ull, 1ull << 30);
	struct ilog_writer *d = ilog_writer_open(
		-1, &(struct ilog_writer_opts){ .out = ilog_flight_defs, .out_ctx = fl, .context = 1,
					       .alive = alive_from, .alive_ctx = &first_alive },
		err, sizeof(err));
	struct ilog_writer *w = d ? ilog_writer_open(
		-1, &(struct ilog_writer_opts){ .out = ilog_flight_events, .out_ctx = fl, .defs = d },
		err, sizeof(err)) : NULL;
	struct ilog_header h = { .node = ILOG_STR("n"), .session_id = 7, .mono_ns = 1000, .real_ns = 2000 };
	ok(fl && w && !ilog_writer_begin(w, &h), "flight, its definitions writer with a context");
	uint64_t now = ilog_mono_ns();
	ok(!ilog_flight_compact_due(fl, now), "no compaction due at the start");
	int op = ilog_op_intern("cudaFakeFlight", 14, ILOG_LAYER_RUNTIME, 0);
	struct ilog_record s = { .kind = ILOG_K_STACK };
	s.u.stack.id = 5;
	s.u.stack.pid = 1;
	s.u.stack.nr = 1;
	s.u.stack.ips[0] = 0x1100;
	put(w, &s);
	struct ilog_record c = { .kind = ILOG_K_CUDA };
	c.u.cuda.pid = 1;
	c.u.cuda.op = (uint16_t)op;
	c.u.cuda.stack_id = 5;
	c.u.cuda.ts_ns = 3000;
	put(w, &c);
	uint64_t ev, defs[10] = { 0 };
	int compacted = 1;
	for (uint32_t g = 0; g < 10; g++) {
		struct ilog_record p = { .kind = ILOG_K_PROCESS }, m = { .kind = ILOG_K_MAPPING };
		for (uint32_t pid = 100 * g + 100; pid < 100 * g + 200; pid++) {
			snprintf(comm, sizeof(comm), "w%u", pid);
			p.u.process.pid = pid;
			p.u.process.comm = ilog_str_c(comm);
			put(w, &p);
			snprintf(path, sizeof(path), "/opt/job-%u/lib/libcudart.so.13", pid * 2654435761u);
			m.u.mapping.pid = pid;
			m.u.mapping.start = 0x7f0000000000ull + pid * 0x10000ull;
			m.u.mapping.end = m.u.mapping.start + 0x8000;
			m.u.mapping.path = ilog_str_c(path);
			put(w, &m);
		}
		first_alive = 100 * g + 100; /* the generation before is gone */
		compacted &= !ilog_flight_compact(fl, d, &h, now);
		ilog_flight_usage(fl, &ev, &defs[g]);
	}
	ok(compacted, "ten compactions");
	ok(defs[9] <= defs[2] + defs[2] / 10,
	   "the definitions stay the size of two generations (%llu bytes after the third "
	   "compaction, %llu after the tenth)", (unsigned long long)defs[2], (unsigned long long)defs[9]);
	c.u.cuda.ts_ns = 4000;
	put(w, &c);
	ok(!ilog_flight_trigger(fl, now) && !ilog_writer_flush(w), "a trigger");
	ok(!ilog_flight_compact_due(fl, now + 3600000000000ull), "no compaction while a trigger is open");
	int fd = memfd_create("dump", 0);
	ok(!ilog_flight_dump(fl, fd, NULL), "dump");
	struct counts n;
	int rc = count(fd, &n);
	ok(rc == 0 && n.header == 1 && n.process == 200 && n.mapping == 200 &&
	   n.stack == 1 && n.opname == 1 && n.cuda == 2,
	   "the dump reads whole: one header, the last two generations' 200 processes and "
	   "mappings, the stack, the op named (read: %d; %llu processes, %llu op names, %llu calls)",
	   rc, (unsigned long long)n.process, (unsigned long long)n.opname, (unsigned long long)n.cuda);
	close(fd);
	/* due: a window and 10 s after the last, 1 MiB and twice its size */
	uint64_t x = 88172645463325252ull;
	for (uint64_t id = 100; id < 1300; id++) {
		s.u.stack.id = id;
		s.u.stack.nr = 127;
		for (int i = 0; i < 127; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			s.u.stack.ips[i] = x;
		}
		put(w, &s);
	}
	ilog_writer_flush(w);
	ilog_flight_usage(fl, &ev, &defs[0]);
	ok(defs[0] > (1u << 20) && !ilog_flight_compact_due(fl, now + 600000000000ull) &&
	   ilog_flight_compact_due(fl, now + 610000000000ull),
	   "a compaction is due with %llu bytes of definitions, the window and 10 s after the last",
	   (unsigned long long)defs[0]);
	ilog_writer_close(w, NULL, 0);
	ilog_writer_close(d, NULL, 0);
	ilog_flight_free(fl);
}

int main(void)
{
	test_writer_retry();
	test_writer_rotate();
	test_writer_gone();
	test_files();
	test_dumps();
	test_flight_compact();
	return done_testing();
}
