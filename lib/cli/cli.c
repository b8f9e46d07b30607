// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "ingero/cli.h"
#include "ingero/vec.h"

const char *ilog_prog = "ingero";
const char *ilog_prog_file = "ingero";
int ilog_verbosity;

void ilog_cli_init(const char *argv0)
{
	const char *s = argv0 ? strrchr(argv0, '/') : NULL;
	ilog_prog = ilog_prog_file = s ? s + 1 : argv0 ? argv0 : "ingero";
}

static void vmsg(const char *tag, const char *fmt, va_list ap)
{
	char line[1024];
	vsnprintf(line, sizeof(line), fmt, ap);
	fprintf(stderr, "%s: %s%s\n", ilog_prog, tag, line);
}

void ilog_errorf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void ilog_warnf(const char *fmt, ...)
{
	va_list ap;
	if (ilog_verbosity < 0)
		return;
	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

int ilog_try_help(void)
{
	fprintf(stderr, "Try '%s --help'.\n", ilog_prog);
	return ILOG_EXIT_USAGE;
}

int ilog_self_path(char *exe, size_t en, char *dir, size_t dn)
{
	char p[PATH_MAX];
	ssize_t k = readlink("/proc/self/exe", p, sizeof(p) - 1);
	if (k <= 0)
		return -1;
	p[k] = 0;
	char *s = strrchr(p, '/');
	if (!s)
		return -1;
	if (exe)
		snprintf(exe, en, "%s", p);
	*s = 0;
	if (dir)
		snprintf(dir, dn, "%s", p);
	return 0;
}

const char *ilog_in_name(const char *path)
{
	return !path || !strcmp(path, "-") ? "(stdin)" : path;
}

int ilog_open_in(const char *path)
{
	if (!path || !strcmp(path, "-"))
		return STDIN_FILENO;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		ilog_errorf("%s: %s", path, strerror(errno));
	return fd;
}

int ilog_open_out(const char *path)
{
	if (!path || !strcmp(path, "-"))
		return STDOUT_FILENO;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		ilog_errorf("%s: %s", path, strerror(errno));
	return fd;
}

int ilog_refuse_tty(int fd, const char *what)
{
	if (isatty(fd)) {
		ilog_errorf("refusing to write %s to a terminal (use -o FILE or a pipe)", what);
		return -1;
	}
	return 0;
}

int ilog_finish_stdout(int rc)
{
	if (fflush(stdout) || ferror(stdout)) {
		ilog_errorf("write error on stdout: %s", strerror(errno));
		return ILOG_EXIT_USAGE;
	}
	return rc;
}


void ilog_progress_start(struct ilog_progress *p)
{
	*p = (struct ilog_progress){ .on = isatty(STDERR_FILENO) && ilog_verbosity >= 0 };
	clock_gettime(CLOCK_MONOTONIC, &p->t0);
}

void ilog_progress_show(struct ilog_progress *p, const char *what, uint64_t n, uint64_t every)
{
	if (!p->on || (every && n - p->last < every))
		return;
	p->last = n;
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	double e = (double)(t.tv_sec - p->t0.tv_sec) + (double)(t.tv_nsec - p->t0.tv_nsec) / 1e9;
	if (e < 2)
		return;
	fprintf(stderr, "\r%s: %s: %llu records, %.1fM records/s ", ilog_prog, what,
		(unsigned long long)n, (double)n / e / 1e6);
	p->shown = 1;
}

void ilog_progress_end(struct ilog_progress *p)
{
	if (p->shown)
		fprintf(stderr, "\n");
	p->shown = 0;
}

/* ---- option arguments ---- */

char *ilog_join_args(int n, char *const *v)
{
	size_t len = 1;
	for (int i = 0; i < n; i++)
		len += strlen(v[i]) + 1;
	char *s = malloc(len), *p = s;
	for (int i = 0; s && i < n; i++) {
		size_t k = strlen(v[i]);
		if (i)
			*p++ = ' ';
		memcpy(p, v[i], k);
		p += k;
	}
	if (s)
		*p = 0;
	return s;
}

/* ---- inputs ---- */

void ilog_inputs_start(struct ilog_inputs *in, char *const *paths, int n, uint64_t every)
{
	*in = (struct ilog_inputs){ .paths = paths, .n = n, .index = -1, .fd = -1, .every = every };
	ilog_progress_start(&in->pg);
}

static void input_close(struct ilog_inputs *in)
{
	if (in->r)
		ilog_reader_close(in->r);
	in->r = NULL;
	if (in->fd >= 0 && in->fd != STDIN_FILENO)
		close(in->fd);
	in->fd = -1;
}

int ilog_inputs_next(struct ilog_inputs *in, const struct ilog_record **rec)
{
	int last = in->n ? in->n : 1;
	for (;;) {
		if (in->r) {
			int k = ilog_reader_next(in->r, rec);
			if (k > 0) {
				ilog_progress_show(&in->pg, in->name, ++in->total, in->every);
				return 1;
			}
			if (k < 0) {
				ilog_progress_end(&in->pg);
				ilog_errorf("%s: %s", in->name, ilog_reader_error(in->r));
				in->rc = ILOG_EXIT_USAGE;
			}
			if (k == ILOG_READ_DAMAGE) { /* reported: the rest is read */
				struct ilog_inputs_damage d = { .name = in->name };
				ilog_reader_damage(in->r, &d.d);
				if (!ilog_grow((void **)&in->damage, &in->capdamage, in->ndamage,
					       sizeof(*in->damage), 4))
					in->damage[in->ndamage++] = d;
				continue;
			}
			input_close(in);
		}
		if (in->index + 1 >= last) {
			in->index = last;
			ilog_progress_end(&in->pg);
			return 0;
		}
		in->index++;
		const char *path = in->n ? in->paths[in->index] : "-";
		in->name = ilog_in_name(path);
		if ((in->fd = ilog_open_in(path)) < 0) {
			in->rc = ILOG_EXIT_USAGE;
			continue;
		}
		char err[256];
		if (!(in->r = ilog_reader_open(in->fd, err, sizeof(err)))) {
			ilog_errorf("%s: %s", in->name, err);
			in->rc = ILOG_EXIT_USAGE;
			input_close(in);
			continue;
		}
		/* one log at a time: its zstd on a second CPU (INGERO_READAHEAD=0:
		 * not, for a side-by-side measure, bench/correlate/run) */
		const char *ra = getenv("INGERO_READAHEAD");
		if (!ra || strcmp(ra, "0"))
			ilog_reader_readahead(in->r);
	}
}

void ilog_inputs_end(struct ilog_inputs *in)
{
	input_close(in);
	ilog_progress_end(&in->pg);
	free(in->damage);
	in->damage = NULL;
	in->ndamage = in->capdamage = 0;
}

int ilog_err_is_damage(const char *err)
{
	const char *p = err ? strstr(err, ": offset ") : NULL;
	if (!p || !isdigit((unsigned char)p[9]))
		return 0;
	for (p += 9; isdigit((unsigned char)*p); p++)
		;
	return *p == ':';
}

/* ---- outputs ---- */

/*
 * The temporary file of the one output (ilog_out_open), for the exit and
 * signal handlers: it is removed unless it was renamed into place.  Set
 * and cleared with those signals blocked, so a handler sees it whole.
 */
static char out_tmp[PATH_MAX + 32];
static volatile sig_atomic_t out_armed;
static const int out_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGXFSZ };

static void out_block(sigset_t *old)
{
	sigset_t s;
	sigemptyset(&s);
	for (size_t i = 0; i < sizeof(out_signals) / sizeof(out_signals[0]); i++)
		sigaddset(&s, out_signals[i]);
	sigprocmask(SIG_BLOCK, &s, old);
}

static void out_at_exit(void)
{
	if (out_armed)
		unlink(out_tmp);
	out_armed = 0;
}

/* Remove the temporary file, then die of the signal as before (SA_RESETHAND
 * restored the default action; the signal is delivered on return). */
static void out_on_signal(int sig)
{
	if (out_armed)
		unlink(out_tmp);
	out_armed = 0;
	raise(sig);
}

static void out_hook(void)
{
	static int hooked;
	if (hooked++)
		return;
	atexit(out_at_exit);
	/* only where the default action (death) is in force: a signal the
	 * caller ignores (nohup, a background job) stays ignored */
	for (size_t i = 0; i < sizeof(out_signals) / sizeof(out_signals[0]); i++) {
		struct sigaction old, sa = { .sa_handler = out_on_signal, .sa_flags = SA_RESETHAND };
		if (!sigaction(out_signals[i], NULL, &old) && old.sa_handler == SIG_DFL)
			sigaction(out_signals[i], &sa, NULL);
	}
}

int ilog_out_check(const char *out, char *const *inputs, int n)
{
	struct stat so, si;
	/* only a regular file is destroyed by truncation; a terminal or a
	 * socket may well be both stdin and the output */
	if (!out || !strcmp(out, "-") || stat(out, &so) || !S_ISREG(so.st_mode))
		return 0;
	for (int i = 0; i < (n ? n : 1); i++) {
		const char *in = n ? inputs[i] : "-";
		int bad = strcmp(in, "-") ? stat(in, &si) : fstat(STDIN_FILENO, &si);
		if (!bad && si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
			ilog_errorf("'%s': output is the same file as input '%s'", out,
				    ilog_in_name(in));
			return -1;
		}
	}
	return 0;
}

int ilog_out_open(struct ilog_out *o, const char *path, char *const *inputs, int n,
		  const char *tty_what)
{
	*o = (struct ilog_out){ .path = path && strcmp(path, "-") ? path : NULL, .fd = -1 };
	if (ilog_out_check(path, inputs, n))
		return -1;
	if (!o->path) {
		o->fd = STDOUT_FILENO;
		/* -o - asks for stdout as it is */
		if (!path && tty_what && ilog_refuse_tty(o->fd, tty_what))
			return -1;
		return 0;
	}
	struct stat st;
	int exists = !stat(path, &st), e = errno;
	/*
	 * Written in place as before: a device, FIFO or directory (the open
	 * says why not), a path stat cannot look at (likewise), a link to
	 * nothing yet and a name that is empty or ends in '/'.  Nothing
	 * there to destroy.
	 */
	if (exists ? !S_ISREG(st.st_mode)
		   : e != ENOENT || !lstat(path, &st) || !*path || path[strlen(path) - 1] == '/') {
		o->fd = ilog_open_out(path);
		return o->fd < 0 ? -1 : 0;
	}
	/* an existing file: replaced where it is (through a link), and only
	 * when it could have been opened for writing */
	o->target = exists ? realpath(path, NULL) : strdup(path);
	if (!o->target || (exists && faccessat(AT_FDCWD, o->target, W_OK, AT_EACCESS))) {
		ilog_errorf("%s: %s", path, strerror(errno));
		free(o->target);
		o->target = NULL;
		return -1;
	}
	const char *slash = strrchr(o->target, '/');
	const char *base = slash ? slash + 1 : o->target;
	int dirlen = slash ? (int)(slash + 1 - o->target) : 0, fd = -1;
	sigset_t old;
	out_hook(); /* before the file exists: no moment a signal would leave it */
	out_block(&old);
	/* a long name is cut to stay within NAME_MAX (255) */
	if ((size_t)snprintf(out_tmp, sizeof(out_tmp), "%.*s.%.200s.XXXXXX", dirlen, o->target,
			     base) >= sizeof(out_tmp))
		errno = ENAMETOOLONG;
	else if ((fd = mkostemp(out_tmp, O_CLOEXEC)) >= 0)
		out_armed = 1;
	e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (fd < 0) {
		ilog_errorf("%s: %s", path, strerror(e));
		free(o->target);
		o->target = NULL;
		return -1;
	}
	/* mkstemp's 0600 becomes what open(O_CREAT) would have given, or
	 * what truncating the existing file would have kept; a file system
	 * that refuses leaves it private, the safe side */
	mode_t um = umask(0);
	umask(um);
	if (exists && fchown(fd, st.st_uid, st.st_gid)) {
		/* only root may give a file away: ours, then */
	}
	if (fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~um)) {
		/* stays 0600 */
	}
	o->fd = fd;
	o->tmp = out_tmp;
	return 0;
}

int ilog_out_close(struct ilog_out *o, int ok)
{
	int rc = 0;
	if (o->path && o->fd >= 0 && close(o->fd) && ok) {
		ilog_errorf("%s: close failed", o->path);
		rc = -1;
	}
	o->fd = -1;
	if (o->tmp) {
		sigset_t old;
		out_block(&old);
		if (ok && !rc && rename(o->tmp, o->target)) {
			ilog_errorf("%s: %s", o->path, strerror(errno));
			rc = -1;
		}
		if (!ok || rc)
			unlink(o->tmp);
		out_armed = 0;
		sigprocmask(SIG_SETMASK, &old, NULL);
		o->tmp = NULL;
	}
	free(o->target);
	o->target = NULL;
	return ok ? rc : 0;
}
