// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "ingero/cli.h"

const char *ilog_prog = "ingero";
int ilog_verbosity;

void ilog_cli_init(const char *argv0)
{
	const char *s = argv0 ? strrchr(argv0, '/') : NULL;
	ilog_prog = s ? s + 1 : argv0 ? argv0 : "ingero";
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
